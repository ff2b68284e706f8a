/* Predicted starts of the queued jobs under EASY and FCFS, for bq and
 * bsub's answers (conservative shows its guarantees instead). A forecast
 * plans the whole queue (sched_forecast_*) a slice per loop turn, so a
 * deep queue never holds the loop; answers show the last complete one,
 * never half of one. It is made on demand, when an answer wants it and
 * the last one is out of date (the queue or the plan changed other than
 * by an arrival, or it was completed a second ago); an arrival joins the
 * forecast in place. */
#ifndef BF_FORECAST_H
#define BF_FORECAST_H
#include <stdbool.h>
#include <stdint.h>
#include "bf_time.h"


struct daemon;
struct djob;
struct sched_forecast;

struct forecast {
	struct sched_forecast *run;	/* being made, or the last made (for arrivals) */
	uint64_t round;			/* the number of `run` (1, 2, ...) */
	uint64_t shown;			/* the last complete: what answers show (0: none) */
	bool complete;			/* run is at the queue's tail */
	bool stale;			/* something changed since run began */
	bf_time done;			/* when run first reached the tail */
	uint64_t stepped;		/* the loop turn it last planned in */
};

/* A forecast's share of a loop turn, and the jobs planned between looks
 * at the clock (a few hundred microseconds in a deep, tight queue). */
#define FORECAST_TURN	((bf_time)5000 * BF_USEC)
#define FORECAST_CHUNK	256u

/* The queue or the plan changed (other than by an arrival at the tail). */
void forecast_stale(struct daemon *d);
/* Whether the forecast shown is up to date (or none can be made); if
 * not, a slice of a new one is planned (one per loop turn), the next turn
 * is brought on, and a reader that waits asks again then (conn_wait_turn). */
bool forecast_ready(struct daemon *d);
/* A queued job's start in the forecast shown, BF_NEVER if it has none. */
bf_time forecast_of(const struct daemon *d, const struct djob *j);
/* Once per loop turn: the next slice of a forecast being made. */
void forecast_turn(struct daemon *d);
void forecast_free(struct daemon *d);

#endif
