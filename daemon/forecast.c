/* Predicted starts, planned in slices (see forecast.h). Each job keeps
 * its prediction in two places, by the parity of the forecast that wrote
 * it: the forecast being made writes one, answers read the other (the
 * last complete forecast), so switching to a new one is a number. */
#include <stdlib.h>
#include <event2/event.h>
#include "clock.h"
#include "forecast.h"
#include "log.h"
#include "server.h"

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

/* A slice of the forecast being made (or of the arrivals since it was
 * whole): chunks of FORECAST_CHUNK jobs until FORECAST_TURN has passed, or
 * for the tests one chunk of a few a turn, so that a short queue takes
 * several turns (test.forecast_chunk). A forecast that cannot go on is
 * dropped. */
static void step(struct daemon *d, bf_time now)
{
	struct forecast *f = &d->fc;
	uint32_t chunk = d->test.forecast_chunk ? d->test.forecast_chunk : FORECAST_CHUNK;
	bf_time t0 = clock_monotonic();
	int rc;

	do
		rc = sched_forecast_step(d->sched, f->run, now, chunk, put, d);
	while (rc == 0 && !d->test.forecast_chunk && clock_monotonic() - t0 < FORECAST_TURN);
	f->stepped = d->turns;
	f->complete = rc == 1;
	if (rc == 1 && f->shown != f->round) {
		f->shown = f->round;
		f->done = now;	/* its age: arrivals planned later do not renew it */
	} else if (rc < 0) {
		if (rc != SCHED_E_NOJOB)
			log_warnx("predicting starts: %s", sched_strerror(rc));
		sched_forecast_free(f->run);
		f->run = NULL;
	}
}

/* Whether the forecast shown can be answered with: it is complete and up
 * to date, or none can be made now (answers then show no predictions). */
static bool answerable(struct daemon *d)
{
	struct forecast *f = &d->fc;

	if (!f->run)
		return true;
	if (!f->complete)
		drive_next_turn(d);
	return !f->run || f->complete;
}

bool forecast_ready(struct daemon *d)
{
	struct forecast *f = &d->fc;
	bf_time now = server_now(d);

	if (d->o.policy == SCHED_CONSERVATIVE)
		return true;	/* the guarantees are the plan */
	/* A second old, it is made again; counted from when it was whole,
	 * or a forecast that takes longer would never be. */
	if (f->run && !f->stale && f->complete && now - f->done < BF_SEC) {
		step(d, now);	/* the arrivals since, if any */
		return answerable(d);
	}
	if (f->run && !f->stale && !f->complete) {
		if (f->stepped != d->turns)
			step(d, now);
		return answerable(d);
	}
	/* Out of date, or none: a new one. The one shown stays shown. */
	sched_forecast_free(f->run);
	if (!(f->run = sched_forecast_new(d->sched, now))) {
		log_warnx("predicting starts: out of memory");
		return true;
	}
	/* Its parity not the shown one's: that one is read until it is whole. */
	f->round += (f->round + 1) % 2 == f->shown % 2 && f->shown ? 2 : 1;
	f->complete = f->stale = false;
	step(d, now);
	return answerable(d);
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
		step(d, server_now(d));
	if (f->run && !f->complete)
		drive_next_turn(d);
}

void forecast_free(struct daemon *d)
{
	sched_forecast_free(d->fc.run);
	d->fc.run = NULL;
}
