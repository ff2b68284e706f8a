/* The users of a site-level (closed-loop) simulation, as SCHEDULING.md
 * states them ("Site-level simulation"): when a user continues a session,
 * when it is active, and the draws from the distributions a trace gives.
 * Pure: no clock, no I/O, every draw from a caller's seeded generator, so a
 * simulation is deterministic given its seed.
 *
 * Time is in microseconds from the start of the simulation, which is a
 * Monday, 00:00. */
#ifndef BF_SESSION_H
#define BF_SESSION_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

#define SESSION_DAY		((bf_time)24 * 3600 * BF_SEC)
#define SESSION_WEEK		(7 * SESSION_DAY)
/* A gap longer than this between a user's jobs ends a session. */
#define SESSION_THINK_MAX	((bf_time)20 * 60 * BF_SEC)
/* Breaks between sessions are at most this long: a trace's longer gaps
 * (a user away for days) are left out of the break distribution. */
#define SESSION_BREAK_MAX	((bf_time)8 * 3600 * BF_SEC)
/* The day users' window, 07:30 to 17:30; night users have the rest. */
#define SESSION_DAY_START	((bf_time)(7 * 60 + 30) * 60 * BF_SEC)
#define SESSION_DAY_LEN		((bf_time)10 * 3600 * BF_SEC)
/* Shares of the users: by day, and on weekdays; shifts of -60..60 min. */
#define SESSION_DAY_SHARE	0.7
#define SESSION_WEEKDAY_SHARE	0.8
#define SESSION_MAX_SHIFT_MIN	60

/* The probability that a user whose last job's response was `minutes`
 * continues its session: 0.8 / (0.05 R + 1) (R < 0 counts as 0). */
double session_continue_p(double minutes);

/* A user's activity: by day or by night, on weekdays (Monday to Friday)
 * or at weekends (Saturday and Sunday), shifted by `shift` minutes. A
 * night window starts on its day at 17:30 and ends at 07:30 the next. */
struct session_class {
	bool night, weekend;
	int shift;		/* minutes, -60..60 */
};

/* The next instant >= t at which the user is active: t itself if it is. */
bf_time session_next_active(const struct session_class *c, bf_time t);
static inline bool session_active(const struct session_class *c, bf_time t)
{
	return session_next_active(c, t) == t;
}
/* The end of the window that holds t (t must be active). */
bf_time session_window_end(const struct session_class *c, bf_time t);

/* A seeded generator (splitmix64): the same seed, the same draws. */
static inline uint64_t session_rand(uint64_t *st)
{
	uint64_t z = (*st += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double session_uniform(uint64_t *st)
{
	return (double)(session_rand(st) >> 11) * (1.0 / 9007199254740992.0);
}

/* A class drawn with the shares above. */
struct session_class session_draw_class(uint64_t *rng);

/* An empirical distribution: values with their counts, drawn in
 * proportion to the counts. */
struct session_dist {
	int64_t *v;
	uint64_t *cum;		/* cum[i]: counts of v[0..i] */
	size_t n, cap;
};

/* Add count more of value v (values may repeat). 0 or -1 (no memory). */
int  session_dist_add(struct session_dist *d, int64_t v, uint64_t count);
uint64_t session_dist_total(const struct session_dist *d);
/* A draw; d must not be empty. */
int64_t session_dist_draw(const struct session_dist *d, uint64_t *rng);
/* The mean of the values, weighted by their counts (0 if empty). */
double session_dist_mean(const struct session_dist *d);
/* The same values in order, each once with its total count. 0 or -1. */
int  session_dist_sorted(const struct session_dist *d, struct session_dist *out);
/* The value at quantile q in 0..1 (0 if empty). */
int64_t session_dist_quantile(const struct session_dist *d, double q);
void session_dist_free(struct session_dist *d);

/* After a batch whose last job's response was `minutes`: the gap before
 * the user's next batch, in seconds. With the probability above it goes
 * on after a think time drawn from `think`, else (*new_session set) it
 * takes a break drawn from `brk`; an empty distribution gives 60 s, or
 * 1 h for a break. */
int64_t session_next_gap(const struct session_dist *think, const struct session_dist *brk,
                         double minutes, uint64_t *rng, bool *new_session);

#endif
