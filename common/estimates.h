/* Runtime estimate models for what-if replays (SCHEDULING.md, "Runtime
 * estimates for what-if studies"). Pure: no I/O, no clock.
 *
 * Every random draw is a function of (seed, the job's line in the trace),
 * so a job gets the same estimate whatever else is shaped away around it,
 * and a replay is the same on every machine. Estimates are whole seconds,
 * as the trace's times are (rounded up, except the model's 0.99 r, rounded
 * down so that the job is killed as the model intends). */
#ifndef BF_ESTIMATES_H
#define BF_ESTIMATES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

enum est_kind {
	EST_TRACE,	/* field 9; exact when the trace has none */
	EST_EXACT,	/* e = r */
	EST_UNIFORM,	/* f=F: e uniform in [r, F r] */
	EST_SCALED,	/* xK: the trace's estimate times K */
	EST_MODEL,	/* 10% at 0.99 r, else r/u, x10 below 90 s, capped */
	EST_HISTORY,	/* per (user, executable, size): mean + 1.5 sd */
};

struct est_model {
	enum est_kind kind;
	double param;	/* F or K */
	bf_time cap;	/* model: the upper bound (default 24 h) */
};

#define EST_DEFAULT_CAP (24 * 3600 * BF_SEC)
#define EST_HISTORY_FORGET (7 * 86400 * BF_SEC)	/* a key unused this long starts over */
#define EST_HISTORY_SDS 1.5

/* "trace", "exact", "f=F" (F >= 1), "xK" (K > 0), "model", "history".
 * Returns 0, or -1 with the reason in err. */
int  est_parse(const char *spec, struct est_model *m, char *err, size_t errlen);
/* The canonical name ("f=4", "x2", "model"), as parsed. */
void est_name(const struct est_model *m, char *buf, size_t len);

/* Whether the model's estimates depend on the seed: only f=F with F > 1
 * and model draw anything. A replay under any other (trace, exact, xK,
 * f=1, history) is the same for every seed, so a sweep over seeds or a
 * comparison paired by seed replays it once. */
bool est_uses_seed(const struct est_model *m);

/* The estimate of a job before the replay runs (every model but history,
 * for which this is the trace's: the limit the job is killed at).
 * run: the job's real runtime; trace_est: field 9 in microseconds, <= 0
 * when the trace has none; key: the job's line in the trace. */
bf_time est_draw(const struct est_model *m, uint64_t seed, uint64_t key, bf_time run,
                 bf_time trace_est);

/* A uniform draw in (0, 1], a function of (seed, key, stream) only. */
double est_uniform(uint64_t seed, uint64_t key, uint32_t stream);

/* The history model: what is known at `now` of the runtimes of jobs that
 * ended before it. */
struct est_history;
struct est_history *est_history_new(void);
void est_history_free(struct est_history *h);
/* The prediction for a job arriving at now (whole seconds, at least 1 s):
 * mean + 1.5 sd of the key's earlier runtimes if it has one that ended
 * within a week; else the whole workload's; else `fallback`. Returns -1 on
 * out of memory. */
bf_time est_history_predict(struct est_history *h, bf_time now, uint32_t user, uint32_t exe,
                            uint32_t size, bf_time fallback);
/* A job of that key ended at now after running `run`. 0, or -1 (memory). */
int  est_history_record(struct est_history *h, bf_time now, uint32_t user, uint32_t exe,
                        uint32_t size, bf_time run);

#endif
