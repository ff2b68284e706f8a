/* A tiny driver for the scheduler core, shared by the test_sched*.c unit
 * tests: the actions of every call are taken and logged by job id (starts,
 * kills, broken promises), and the invariants are checked after each.
 * Ends and arrivals are given by hand; each test keeps its own submit(),
 * end() and drv_init() (which parameters it sets) on top of these. */
#ifndef BF_SCHED_DRIVER_H
#define BF_SCHED_DRIVER_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched.h"

#define S(x) ((bf_time)(x) * BF_SEC)
#define MAXJ 64

struct drv {
	struct sched *s;
	bf_time start[MAXJ];	/* by job id; -1 while not started */
	int kills[MAXJ];
	bf_time kill_t[MAXJ];	/* the last SA_KILL's end of hold */
	int broken[MAXJ];
	bf_time broken_t[MAXJ];	/* the last SA_BROKEN's new start */
	int broken_why[MAXJ];
	size_t nacts;		/* actions taken at the last drv_take */
	int checks_failed;
	char msg[300];
};

__attribute__((unused))
static void drv_init_params(struct drv *d, const struct sched_params *prm)
{
	memset(d, 0, sizeof *d);
	for (int i = 0; i < MAXJ; i++)
		d->start[i] = -1;
	if (sched_new(&d->s, prm) != SCHED_OK)
		abort();
}

__attribute__((unused))
static void drv_take(struct drv *d, bf_time now)
{
	const struct sched_action *a = sched_actions(d->s, &d->nacts);

	for (size_t i = 0; i < d->nacts; i++) {
		if (a[i].job >= MAXJ)
			abort();
		if (a[i].kind == SA_START) {
			d->start[a[i].job] = a[i].t;
		} else if (a[i].kind == SA_KILL) {
			d->kills[a[i].job]++;
			d->kill_t[a[i].job] = a[i].t;
		} else if (a[i].kind == SA_BROKEN) {
			d->broken[a[i].job]++;
			d->broken_t[a[i].job] = a[i].t;
			d->broken_why[a[i].job] = a[i].why;
		}
	}
	sched_clear_actions(d->s);
	if (sched_check(d->s, now, d->msg, sizeof d->msg) != 0 && !d->checks_failed++)
		printf("# check failed: %s\n", d->msg);
}

/* A scheduling pass at t. */
__attribute__((unused))
static void run(struct drv *d, bf_time t)
{
	sched_run(d->s, t);
	drv_take(d, t);
}

/* The job's guarantee; -2 for a job the core does not know. */
__attribute__((unused))
static bf_time guarantee(struct drv *d, uint64_t id)
{
	struct sched_job_info info;

	return sched_job_info(d->s, id, &info) == SCHED_OK ? info.guarantee : -2;
}
#endif
