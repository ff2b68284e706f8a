/* Predicted starts of the queued jobs under EASY and FCFS, for bq and
 * bsub's answers (conservative shows its guarantees, which the core keeps
 * current, instead). A forecast plans the whole queue (sched_forecast_*)
 * a slice per loop turn, so a deep queue never holds the loop; answers
 * show the last complete one, never half of one, with the time it was
 * made and whether the queue changed since (forecast_made, _fresh).
 *
 * A forecast is made on demand, when an answer wants one and the last is
 * out of date (the queue or the plan changed other than by an arrival, or
 * it was completed a second ago); an arrival joins it in place. One that
 * is begun is finished even if the queue changes meanwhile (a job that
 * left is passed over, one that came back is planned at the tail): were
 * it made anew at each change, a user holding and releasing their jobs in
 * a loop would keep every forecast from ever being whole. What changed
 * shows in the next one. No answer waits for a forecast for long: a
 * listing waits at most FORECAST_WAIT, and only for one that will be
 * fresh, while forecasts are made quicker than that
 * (forecast_worth_waiting); else it answers at once from the last
 * complete one. */
#ifndef BF_FORECAST_H
#define BF_FORECAST_H
#include <stdbool.h>
#include <stdint.h>
#include "bf_time.h"

struct daemon;
struct djob;
struct sched_forecast;


/* A forecast's share of a loop turn, and the jobs planned between looks
 * at the clock (a few hundred microseconds in a deep, tight queue). */
#define FORECAST_TURN	((bf_time)5000 * BF_USEC)
#define FORECAST_CHUNK	256u
/* The longest a listing waits for a fresh forecast (from its request):
 * enough for a queue of thousands between two of a person's commands,
 * short enough that an answer from an older one comes at once to them. */
#define FORECAST_WAIT	((bf_time)500 * 1000 * BF_USEC)

/* The queue or the plan changed (other than by an arrival at the tail). */
void forecast_stale(struct daemon *d);
/* An answer wants predictions: whether the forecast shown is up to date
 * (or none can be made); if not, one is begun or taken a slice further
 * (the drive brings the next turns: drive_want_forecast). Never waits. */
bool forecast_want(struct daemon *d);
/* Whether a reader that asked at `since` (clock_monotonic) and found the
 * forecast not up to date should wait a turn for it: only for one that
 * will be fresh when whole (begun after the last change), not past
 * FORECAST_WAIT, and only if the last forecast took less than that. */
bool forecast_worth_waiting(const struct daemon *d, bf_time since);
/* A queued job's start in the forecast shown, BF_NEVER if it has none. */
bf_time forecast_of(const struct daemon *d, const struct djob *j);
/* When the forecast shown was begun: what its predictions are as of
 * (BF_NEVER: none, or conservative); and whether the queue and the plan
 * are still those it planned (conservative: always). */
bf_time forecast_made(const struct daemon *d);
bool forecast_fresh(const struct daemon *d);
/* Once per loop turn: the next slice of a forecast being made. Returns
 * whether more is to do (forecast_busy): the drive then brings another
 * turn. */
bool forecast_turn(struct daemon *d);
/* A forecast is being made and not yet at the queue's tail. */
bool forecast_busy(const struct daemon *d);
void forecast_free(struct daemon *d);

#endif
