/* Predicted starts, planned in slices (see forecast.h). Each job keeps
 * its prediction in two places, by the parity of the forecast that wrote
 * it: the forecast being made writes one, answers read the other (the
 * last complete forecast), so switching to a new one is a number. */
#include <stdlib.h>
#include <event2/event.h>
#include "sched.h"
#include "sys/clock.h"
#include "sys/failpoint.h"
#include "sys/log.h"
#include "daemon.h"
#include "forecast.h"
#include "jobs.h"

void forecast_stale(struct daemon *d)
{
	d->fc.changes++;
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
 * several turns (test.forecast_chunk). The last job planned may have left
 * the queue meanwhile: the forecast goes on after it (out of date, but
 * whole in a bounded number of turns). A forecast that cannot go on (no
 * memory) is dropped. */
static void step(struct daemon *d, bf_time now)
{
	struct forecast *f = &d->fc;
	uint32_t chunk = failpoint_or(FP_FORECAST_SLICE, FORECAST_CHUNK);
	bf_time t0 = clock_monotonic();
	int rc;

	do {
		rc = sched_forecast_step(d->sched, f->run, now, chunk, put, d);
		if (rc == SCHED_E_NOJOB) {
			sched_forecast_resume(d->sched, f->run);
			rc = 0;
		}
	} while (rc == 0 && !failpoint_num(FP_FORECAST_SLICE) && clock_monotonic() - t0 < FORECAST_TURN);
	f->stepped = d->turns;
	f->complete = rc == 1;
	if (rc == 1 && f->shown != f->round) {
		f->shown = f->round;
		f->shown_at = f->began;
		f->shown_changes = f->run_changes;
		f->done = now;	/* its age: arrivals planned later do not renew it */
		f->took = clock_monotonic() - f->began_mono;
	} else if (rc < 0) {
		log_warnx("predicting starts: %s", sched_strerror(rc));
		sched_forecast_free(f->run);
		f->run = NULL;
	}
}

/* A new forecast from now; the one shown stays shown until it is whole. */
static void begin(struct daemon *d, bf_time now)
{
	struct forecast *f = &d->fc;

	sched_forecast_free(f->run);
	if (!(f->run = sched_forecast_new(d->sched, now))) {
		log_warnx("predicting starts: out of memory");
		return;
	}
	/* Its parity not the shown one's: that one is read until it is whole. */
	f->round += (f->round + 1) % 2 == f->shown % 2 && f->shown ? 2 : 1;
	f->complete = false;
	f->run_changes = f->changes;
	f->began = now;
	f->began_mono = clock_monotonic();
	step(d, now);
}

bool forecast_want(struct daemon *d)
{
	struct forecast *f = &d->fc;
	bf_time now = daemon_now(d);

	if (d->o.policy == SCHED_CONSERVATIVE)
		return true;	/* the guarantees are the plan */
	if (f->run && !f->complete) {
		/* Finished first, changed or not (see forecast.h). */
		if (f->stepped != d->turns)
			step(d, now);
	} else if (f->run && f->run_changes == f->changes && now - f->done < BF_SEC) {
		/* Whole and up to date: the arrivals since, if any. A second
		 * old, it is made again; counted from when it was whole, or a
		 * forecast that takes longer would never be. */
		step(d, now);
	} else {
		begin(d, now);
	}
	return !f->run || forecast_fresh(d);
}

bool forecast_worth_waiting(const struct daemon *d, bf_time since)
{
	bf_time waited = clock_monotonic() - since;

	/* (One begun before the last change would not be fresh when whole:
	 * the queue is changing faster than forecasts are made.) */
	return d->fc.run && d->fc.run_changes == d->fc.changes && waited < FORECAST_WAIT &&
	       d->fc.took < FORECAST_WAIT - waited;
}

bf_time forecast_of(const struct daemon *d, const struct djob *j)
{
	uint64_t r = d->fc.shown;

	if (!r || d->o.policy == SCHED_CONSERVATIVE || j->pred_round[r & 1] != r)
		return BF_NEVER;
	return j->pred[r & 1];
}

bf_time forecast_made(const struct daemon *d)
{
	if (!d->fc.shown || d->o.policy == SCHED_CONSERVATIVE)
		return BF_NEVER;
	return d->fc.shown_at;
}

/* Nothing changed since the one shown began, and, if it is the one made
 * last, it has planned the arrivals since (a newer one being made after a
 * second, for nothing but the time, leaves it fresh). */
bool forecast_fresh(const struct daemon *d)
{
	const struct forecast *f = &d->fc;

	if (d->o.policy == SCHED_CONSERVATIVE)
		return true;
	return f->shown && f->shown_changes == f->changes && (f->shown != f->round || f->complete);
}

bool forecast_busy(const struct daemon *d)
{
	return d->fc.run && !d->fc.complete;
}

bool forecast_turn(struct daemon *d)
{
	struct forecast *f = &d->fc;

	if (!f->run || f->complete)
		return false;
	if (f->stepped != d->turns)
		step(d, daemon_now(d));
	return forecast_busy(d);
}

void forecast_free(struct daemon *d)
{
	sched_forecast_free(d->fc.run);
	d->fc.run = NULL;
}
