/* Predicted starts, planned in slices (see forecast.h). Each job keeps
 * its prediction in two places, by the parity of the forecast that wrote
 * it: the forecast being made writes one, answers read the other (the
 * last complete forecast), so switching to a new one is a number. */
#include <stdlib.h>
#include "forecast.h"
#include "log.h"
#include "server.h"

/* Jobs per slice: FORECAST_SLICE, or for the tests a few, so that a
 * short queue takes several turns (BACKFILLD_TEST_FORECAST_SLICE). */
static uint32_t slice(void)
{
	static uint32_t n;

	if (!n) {
		const char *e = getenv("BACKFILLD_TEST_FORECAST_SLICE");
		long v = e ? strtol(e, NULL, 10) : 0;

		n = v > 0 && v < FORECAST_SLICE ? (uint32_t)v : FORECAST_SLICE;
	}
	return n;
}

void forecast_stale(struct daemon *d)
{
	d->fc.stale = true;
}

static void put(uint64_t id, bf_time t, void *arg)
{
	struct daemon *d = arg;
	struct djob *j = jobs_get(d, id);

	if (j) {
		j->pred[d->fc.round & 1] = t;
		j->pred_round[d->fc.round & 1] = d->fc.round;
	}
}

/* A slice of the forecast being made (all the arrivals, for one that is
 * complete); a forecast that cannot go on is dropped. */
static void step(struct daemon *d, bf_time now, uint32_t max)
{
	struct forecast *f = &d->fc;
	int rc = sched_forecast_step(d->sched, f->run, now, max, put, d);

	f->stepped = d->turns;
	if (rc == 1) {
		f->complete = true;
		f->shown = f->round;
	} else if (rc < 0) {
		if (rc != SCHED_E_NOJOB)
			log_warnx("predicting starts: %s", sched_strerror(rc));
		sched_forecast_free(f->run);
		f->run = NULL;
	}
}

bool forecast_ready(struct daemon *d)
{
	struct forecast *f = &d->fc;
	bf_time now = server_now(d);

	if (d->o.policy == SCHED_CONSERVATIVE)
		return true;	/* the guarantees are the plan */
	if (f->run && !f->stale && f->complete && now - f->began < BF_SEC) {
		step(d, now, UINT32_MAX);	/* the arrivals since, if any */
		return f->run && f->complete;
	}
	if (f->run && !f->stale && !f->complete) {
		if (f->stepped != d->turns)
			step(d, now, slice());
		return f->run && f->complete;
	}
	/* Out of date, or none: a new one. The one shown stays shown. */
	sched_forecast_free(f->run);
	if (!(f->run = sched_forecast_new(d->sched, now))) {
		log_warnx("predicting starts: out of memory");
		return false;
	}
	f->round++;
	f->began = now;
	f->complete = f->stale = false;
	step(d, now, slice());
	return f->run && f->complete;
}

bf_time forecast_of(const struct daemon *d, const struct djob *j)
{
	uint64_t r = d->fc.shown;

	if (!r || d->o.policy == SCHED_CONSERVATIVE || j->pred_round[r & 1] != r)
		return BF_NEVER;
	return j->pred[r & 1];
}

void forecast_turn(struct daemon *d)
{
	struct forecast *f = &d->fc;

	if (!f->run || f->complete || f->stale)
		return;
	if (f->stepped != d->turns)
		step(d, server_now(d), slice());
	if (f->run && !f->complete)
		drive_want_commit(d);	/* the next slice at the next turn */
}

void forecast_free(struct daemon *d)
{
	sched_forecast_free(d->fc.run);
	d->fc.run = NULL;
}
