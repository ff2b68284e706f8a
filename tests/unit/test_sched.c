/* Policy tests on hand-built scenarios, and a randomized stress test that
 * checks the invariants after every event. Times here are in seconds and
 * converted; N is small so each scenario can be followed by hand. */
#include <stdlib.h>
#include <string.h>
#include "sched.h"
#include "tap.h"
#include "sched_driver.h"

static void drv_init(struct drv *d, enum sched_policy p, uint32_t nodes, bf_time grace)
{
	drv_init_params(d, &(struct sched_params){ .policy = p, .nodes = nodes, .kill_grace = grace });
}

static int submit(struct drv *d, bf_time t, uint64_t id, uint32_t n, bf_time est)
{
	int rc = sched_submit(d->s, t, id, n, est);

	if (rc == SCHED_OK)
		rc = sched_run(d->s, t);
	drv_take(d, t);
	return rc;
}

static int end(struct drv *d, bf_time t, uint64_t id)
{
	int rc = sched_end(d->s, t, id, END_EXITED);

	if (rc == SCHED_OK)
		rc = sched_run(d->s, t);
	drv_take(d, t);
	return rc;
}

static bool backfilled(struct drv *d, uint64_t id)
{
	struct sched_job_info info;

	return sched_job_info(d->s, id, &info) == SCHED_OK && info.backfilled;
}

/* Conservative: the first queued job gets a reservation; a later small job
 * is backfilled into the hole before it; on an early end, compression moves
 * jobs earlier, never later. */
static void conservative_hole_and_compression(void)
{
	struct drv d;

	drv_init(&d, SCHED_CONSERVATIVE, 10, 0);
	submit(&d, S(0), 1, 6, S(100));		/* A runs [0,100), 4 nodes free */
	ok_eq(d.start[1], S(0), "cons: A starts at once");
	submit(&d, S(1), 2, 8, S(100));		/* B needs 8: reserved at 100 */
	ok_eq(d.start[2], -1, "cons: B waits");
	ok_eq(guarantee(&d, 2), S(100), "cons: B is guaranteed 100, when A's estimate ends");
	submit(&d, S(2), 3, 4, S(50));		/* C fits the hole [2,52) */
	ok_eq(d.start[3], S(2), "cons: C is backfilled into the hole at once");
	ok(backfilled(&d, 3), "cons: C counts as backfilled");
	ok_eq(guarantee(&d, 2), S(100), "cons: B's guarantee unchanged by C");
	submit(&d, S(3), 4, 4, S(200));		/* D: 2 free under B, so after B */
	ok_eq(guarantee(&d, 4), S(200), "cons: D is guaranteed 200, after B");

	/* A ends early at 50: B moves up to 52 (C's planned end), D to 152. */
	end(&d, S(50), 1);
	ok_eq(guarantee(&d, 2), S(52), "cons: compression moves B earlier (100 -> 52)");
	ok_eq(guarantee(&d, 4), S(152), "cons: compression moves D earlier (200 -> 152)");
	end(&d, S(52), 3);
	ok_eq(d.start[2], S(52), "cons: B starts at its new guarantee");
	ok_eq(d.checks_failed, 0, "cons: invariants held throughout");
	sched_free(d.s);
}

/* Re-planning from scratch after an early end would push a backfilled job
 * past its guarantee; compression keeps every job at or before it. */
static void compression_is_not_replanning(void)
{
	struct drv d, scratch;

	drv_init(&d, SCHED_CONSERVATIVE, 10, 0);
	submit(&d, S(0), 1, 6, S(100));		/* R1 [0,100) */
	submit(&d, S(0), 2, 4, S(50));		/* R2 [0,50) */
	submit(&d, S(1), 3, 10, S(100));	/* E: whole machine at 100 */
	submit(&d, S(2), 4, 4, S(50));		/* K: backfilled into [50,100) */
	ok_eq(guarantee(&d, 3), S(100), "replan: E guaranteed 100");
	ok_eq(guarantee(&d, 4), S(50), "replan: K guaranteed 50, in the hole before E");
	end(&d, S(10), 1);			/* R1 ends early */
	ok(d.start[4] >= 0 && d.start[4] <= S(50), "replan: compression starts K no later than 50 (at %lld)",
	   (long long)d.start[4]);
	ok_eq(d.start[4], S(10), "replan: K in fact moves up to now");
	ok(guarantee(&d, 3) <= S(100), "replan: E no later than its guarantee");

	/* The same state planned from scratch, in arrival order: E takes
	 * the machine at 50 and K lands at 150, past its guarantee of 50. */
	drv_init(&scratch, SCHED_CONSERVATIVE, 10, 0);
	submit(&scratch, S(0), 2, 4, S(50));
	submit(&scratch, S(10), 3, 10, S(100));
	submit(&scratch, S(10), 4, 4, S(50));
	ok_eq(guarantee(&scratch, 3), S(50), "replan: from scratch E would take 50");
	ok_eq(guarantee(&scratch, 4), S(150), "replan: from scratch K would start at 150 > 50");
	ok_eq(d.checks_failed + scratch.checks_failed, 0, "replan: invariants held");
	sched_free(d.s);
	sched_free(scratch.s);
}

struct collected {
	bf_time t[64];
	uint64_t id[64];
	size_t n;
};

static void collect(uint64_t id, bf_time t, void *arg)
{
	struct collected *c = arg;

	if (c->n < 64) {
		c->id[c->n] = id;
		c->t[c->n] = t;
	}
	c->n++;
}

/* A forecast planned 4 jobs a step gives what sched_predict gives at once;
 * jobs that join the tail after it reached the end are planned where a
 * forecast made anew would place them; a step after the last job planned
 * left says so. */
static void forecast_in_slices(enum sched_policy pol)
{
	const char *name = sched_policy_name(pol);
	struct drv d;
	struct collected c = { .n = 0 };
	struct sched_forecast *f;
	bf_time whole[64];
	unsigned seed = 7;
	int steps = 0, rc;
	bool same = true;

	drv_init(&d, pol, 10, 0);
	submit(&d, S(0), 1, 8, S(100));		/* running: 2 nodes free until 100 */
	for (uint64_t id = 2; id < 32; id++) {
		seed = seed * 1103515245 + 12345;
		sched_submit(d.s, S(1), id, 1 + (seed >> 8) % 10, S(1 + (seed >> 12) % 200));
	}
	ok_eq(sched_predict(d.s, S(1), whole, 64), 30, "%s forecast: 30 queued", name);
	f = sched_forecast_new(d.s, S(1));
	while ((rc = sched_forecast_step(d.s, f, S(1), 4, collect, &c)) == 0)
		steps++;
	ok(rc == 1 && steps == 7 && c.n == 30, "%s forecast: 30 jobs in 8 steps of 4 (%d, %zu)",
	   name, steps + 1, c.n);
	for (size_t k = 0; k < 30; k++)
		same &= c.t[k] == whole[k] && c.id[k] == k + 2;
	ok(same, "%s forecast: in slices, the same starts as at once", name);
	ok(whole[29] > S(100) && whole[0] >= S(1), "%s forecast: the last after the running job",
	   name);

	/* Two arrivals (at the same instant: a forecast made later would
	 * plan every job from then on). */
	sched_submit(d.s, S(1), 40, 10, S(50));
	sched_submit(d.s, S(1), 41, 1, S(5));
	ok_eq(sched_forecast_step(d.s, f, S(1), 4, collect, &c), 1, "%s forecast: arrivals planned",
	      name);
	sched_predict(d.s, S(1), whole, 64);
	ok(c.n == 32 && c.id[30] == 40 && c.id[31] == 41 && c.t[30] == whole[30] &&
	   c.t[31] == whole[31], "%s forecast: arrivals where a new forecast puts them (%lld, %lld)",
	   name, (long long)c.t[30], (long long)c.t[31]);
	/* One more, planned a minute later: not before then. */
	sched_submit(d.s, S(61), 42, 1, S(5));
	sched_forecast_step(d.s, f, S(61), 4, collect, &c);
	ok(c.n == 33 && c.t[32] >= S(61), "%s forecast: an arrival planned later is planned from "
	   "then (%lld)", name, (long long)c.t[32]);
	sched_cancel(d.s, S(62), 42);
	ok_eq(sched_forecast_step(d.s, f, S(3), 4, collect, &c), SCHED_E_NOJOB,
	      "%s forecast: the last job planned left: the forecast says so", name);
	sched_forecast_free(f);
	sched_free(d.s);
}

/* EASY backfills a job that delays the second queued job, never the first;
 * conservative refuses the same job; FCFS lets nobody pass. */
static void easy_delays_second_not_first(void)
{
	struct drv d;
	bf_time pred[8];

	drv_init(&d, SCHED_EASY, 10, 0);
	submit(&d, S(0), 1, 8, S(100));		/* R [0,100), 2 free */
	submit(&d, S(1), 2, 4, S(100));		/* Q1: head, shadow 100, extra 6 */
	submit(&d, S(2), 3, 6, S(100));		/* Q2: would start at 100 beside Q1 */
	ok_eq(guarantee(&d, 2), S(100), "easy: the head is promised its shadow time 100");
	ok_eq(guarantee(&d, 3), BF_NEVER, "easy: the second job has no guarantee");
	ok_eq(sched_predict(d.s, S(2), pred, 8), 2, "easy: predictions for both queued jobs");
	ok_eq(pred[1], S(100), "easy: Q2 predicted at 100 before B arrives");
	submit(&d, S(3), 4, 2, S(1000));	/* B: long, fits the extra nodes */
	ok_eq(d.start[4], S(3), "easy: B is backfilled at once into the extra nodes");
	ok(backfilled(&d, 4), "easy: B counts as backfilled");
	ok_eq(guarantee(&d, 2), S(100), "easy: the head's shadow is unchanged");
	end(&d, S(100), 1);
	ok_eq(d.start[2], S(100), "easy: the head starts at its shadow time");
	ok_eq(d.start[3], -1, "easy: Q2 is delayed past 100 by B");
	end(&d, S(200), 2);
	ok_eq(d.start[3], S(200), "easy: Q2 starts when Q1 ends");
	ok_eq(d.checks_failed, 0, "easy: invariants held");
	sched_free(d.s);

	drv_init(&d, SCHED_CONSERVATIVE, 10, 0);
	submit(&d, S(0), 1, 8, S(100));
	submit(&d, S(1), 2, 4, S(100));
	submit(&d, S(2), 3, 6, S(100));
	submit(&d, S(3), 4, 2, S(1000));
	ok_eq(d.start[4], -1, "cons: B is not backfilled (it would delay Q2)");
	ok_eq(guarantee(&d, 3), S(100), "cons: Q2 keeps 100");
	ok_eq(guarantee(&d, 4), S(200), "cons: B is guaranteed 200");
	ok_eq(d.checks_failed, 0, "cons: invariants held");
	sched_free(d.s);

	drv_init(&d, SCHED_FCFS, 10, 0);
	submit(&d, S(0), 1, 8, S(100));
	submit(&d, S(1), 2, 4, S(100));
	submit(&d, S(3), 4, 2, S(10));		/* fits and ends early, still waits */
	ok_eq(d.start[4], -1, "fcfs: nobody passes the head");
	end(&d, S(100), 1);
	ok(d.start[2] == S(100) && d.start[4] == S(100), "fcfs: both start in order at 100");
	ok(!backfilled(&d, 4) && d.checks_failed == 0, "fcfs: nothing backfilled, invariants held");
	sched_free(d.s);
}

/* Real nodes, kills at the limit, the grace in the plan, cancels, errors. */
static void mechanics(void)
{
	struct drv d;
	uint32_t nodes[16];
	struct sched_job_info info;

	drv_init(&d, SCHED_CONSERVATIVE, 8, S(5));
	submit(&d, S(0), 1, 3, S(10));
	submit(&d, S(0), 2, 2, S(10));
	ok_eq(sched_job_nodes(d.s, 1, nodes, 16), 3, "nodes: job 1 holds 3 nodes");
	ok(nodes[0] == 0 && nodes[1] == 1 && nodes[2] == 2, "nodes: lowest free first (0,1,2)");
	ok_eq(sched_job_nodes(d.s, 2, nodes, 16), 2, "nodes: job 2 holds 2 nodes");
	ok(nodes[0] == 3 && nodes[1] == 4, "nodes: job 2 gets 3,4");
	ok_eq(sched_free_nodes(d.s), 3, "nodes: 3 free");
	submit(&d, S(1), 3, 8, S(10));
	ok_eq(guarantee(&d, 3), S(15), "grace: the plan holds nodes until estimate + grace (15)");
	ok_eq(sched_next_wakeup(d.s), S(10), "kill: the core wants waking at the limit");
	run(&d, S(10));
	ok(d.kills[1] == 1 && d.kills[2] == 1, "kill: both jobs are signalled at their limit");
	run(&d, S(11));
	ok(d.kills[1] == 1, "kill: only once");
	ok_eq(sched_end(d.s, S(12), 1, END_KILLED), SCHED_OK, "kill: the killed job's end is taken");
	ok_eq(sched_end(d.s, S(12), 2, END_KILLED), SCHED_OK, "kill: and the other");
	run(&d, S(12));
	ok_eq(d.start[3], S(12), "grace: ending inside the grace compresses; job 3 starts at 12");
	sched_job_nodes(d.s, 3, nodes, 16);
	ok(nodes[0] == 0 && nodes[7] == 7, "nodes: the freed nodes are reused");

	/* cancel */
	submit(&d, S(13), 4, 8, S(10));
	ok_eq(guarantee(&d, 4), S(12 + 15), "cancel: job 4 queued behind job 3");
	ok_eq(sched_cancel(d.s, S(14), 4), SCHED_OK, "cancel: a queued job leaves at once");
	ok_eq(sched_job_info(d.s, 4, &info), SCHED_E_NOJOB, "cancel: and is gone");
	ok_eq(sched_cancel(d.s, S(14), 3), 1, "cancel: a running job is signalled");
	drv_take(&d, S(14));
	ok_eq(d.kills[3], 1, "cancel: SA_KILL for the running job");
	ok_eq(sched_end(d.s, S(15), 3, END_CANCELLED), SCHED_OK, "cancel: its end is taken");

	/* errors */
	ok_eq(sched_submit(d.s, S(16), 5, 9, S(1)), SCHED_E_TOOBIG, "error: more nodes than the partition");
	ok_eq(sched_submit(d.s, S(16), 5, 0, S(1)), SCHED_E_INVAL, "error: zero nodes");
	ok_eq(sched_submit(d.s, S(16), 5, 1, -1), SCHED_E_INVAL, "error: negative estimate");
	ok_eq(sched_submit(d.s, S(16), 5, 1, S(1)), SCHED_OK, "submit ok");
	ok_eq(sched_submit(d.s, S(16), 5, 1, S(1)), SCHED_E_DUP, "error: duplicate id");
	ok_eq(sched_submit(d.s, S(15), 6, 1, S(1)), SCHED_E_TIME, "error: time going backwards");
	ok_eq(sched_end(d.s, S(16), 99, END_EXITED), SCHED_E_NOJOB, "error: end of an unknown job");
	ok_eq(sched_cancel(d.s, S(16), 99), SCHED_E_NOJOB, "error: cancel of an unknown job");
	ok_eq(sched_node_down(d.s, S(16), 8), SCHED_E_INVAL, "error: no such node");
	drv_take(&d, S(16));
	ok_eq(d.checks_failed, 0, "mechanics: invariants held");
	sched_free(d.s);
}

/* A (job 1) holds all 4 nodes from 0 with a 10 s limit; B (job 2) needs
 * all 4 for 5 s and waits for it. */
static void one_behind_another(struct drv *d, enum sched_policy p, bf_time grace)
{
	drv_init(d, p, 4, grace);
	submit(d, S(0), 1, 4, S(10));
	submit(d, S(0), 2, 4, S(5));
}

/* A signalled job that keeps its nodes past the end of its hold: the plan
 * keeps them too, for as long again as it has overrun (a second at least),
 * the promises it overlaps are made again later and announced, and when it
 * ends the plan is compressed. */
static void overrun_of_the_plan(void)
{
	struct drv d;

	/* conservative, grace 2: A (4 nodes, 10 s) holds all nodes to 12 */
	drv_init(&d, SCHED_CONSERVATIVE, 4, S(2));
	submit(&d, S(0), 1, 4, S(10));
	submit(&d, S(0), 2, 2, S(5));
	submit(&d, S(0), 3, 2, S(100));
	ok(guarantee(&d, 2) == S(12) && guarantee(&d, 3) == S(12),
	   "overrun: B and C are promised the end of A's hold (12)");
	run(&d, S(10));
	ok(d.kills[1] == 1 && d.kill_t[1] == S(12),
	   "overrun: A is signalled at its limit, to be gone by the end of its hold (12)");
	ok_eq(sched_next_wakeup(d.s), S(12), "overrun: then the core watches the end of its hold");
	run(&d, S(12));
	ok(d.start[2] < 0 && d.start[3] < 0, "overrun: A still holds its nodes at 12: nobody starts");
	ok(d.broken[2] == 1 && d.broken[3] == 1, "overrun: B and C are told their promise broke");
	ok(d.broken_t[2] == S(14) && guarantee(&d, 2) == S(14) && guarantee(&d, 3) == S(14),
	   "overrun: the plan keeps A's nodes as long again as it overran (2 s): new start 14");
	ok(d.broken_why[2] == BROKEN_OVERRUN, "overrun: the reason is the overrun, not a lost node");
	ok_eq(sched_get_stats(d.s)->hold_extensions, 1, "overrun: one longer hold");
	end(&d, S(12) + BF_SEC / 2, 1);
	ok(d.start[2] == S(12) + BF_SEC / 2 && d.start[3] == S(12) + BF_SEC / 2,
	   "overrun: when A dies at 12.5 the plan is compressed: B and C start then");
	ok_eq(d.checks_failed, 0, "overrun: invariants held");
	sched_free(d.s);

	/* a job that will not die: O(log) re-plans, not one a pass */
	one_behind_another(&d, SCHED_CONSERVATIVE, S(2));
	for (bf_time t = S(10); t <= S(3600); t += S(1)) {
		bf_time w = sched_next_wakeup(d.s);

		run(&d, w < t ? w : t);
	}
	ok(sched_get_stats(d.s)->hold_extensions >= 8 &&
	   sched_get_stats(d.s)->hold_extensions <= 12,
	   "stuck: an hour past its limit, %llu longer holds (the overrun doubles each time)",
	   (unsigned long long)sched_get_stats(d.s)->hold_extensions);
	ok(guarantee(&d, 2) > S(3600) && d.broken[2] ==
	   (int)sched_get_stats(d.s)->hold_extensions, "stuck: B's promise is renewed, and told, "
	   "each time (%d)", d.broken[2]);
	end(&d, S(3601), 1);
	ok_eq(d.start[2], S(3601), "stuck: B starts when it dies");
	ok_eq(d.checks_failed, 0, "stuck: invariants held");
	sched_free(d.s);

	/* no grace: a job that dies at its kill instant is not overdue; one
	 * that does not is, a microsecond later */
	one_behind_another(&d, SCHED_CONSERVATIVE, 0);
	run(&d, S(10));
	ok(d.kills[1] == 1 && d.start[2] < 0 && d.broken[2] == 0,
	   "no grace: A signalled at 10; B waits for its nodes, its promise not yet broken");
	ok_eq(sched_next_wakeup(d.s), S(10) + 1, "no grace: A is overdue a microsecond later");
	run(&d, S(10) + 1);
	ok(d.broken[2] == 1 && d.broken_t[2] == S(11) + 1, "no grace: then B's promise moves "
	   "to 11 s + 1 us");
	end(&d, S(10) + 2, 1);
	ok_eq(d.start[2], S(10) + 2, "no grace: B starts when A is gone");
	ok_eq(d.checks_failed, 0, "no grace: invariants held");
	sched_free(d.s);
	one_behind_another(&d, SCHED_CONSERVATIVE, 0);
	run(&d, S(10));
	end(&d, S(10), 1);
	ok(d.start[2] == S(10) && d.broken[2] == 0 && sched_get_stats(d.s)->hold_extensions == 0,
	   "no grace: a job that dies at its kill instant delays nobody");
	sched_free(d.s);

	/* EASY: the head's shadow moves, and the head is told */
	one_behind_another(&d, SCHED_EASY, S(2));
	ok_eq(guarantee(&d, 2), S(12), "EASY overrun: the head's shadow is 12");
	run(&d, S(10));
	run(&d, S(12));
	ok(d.broken[2] == 1 && d.broken_t[2] == S(14) && guarantee(&d, 2) == S(14) &&
	   d.broken_why[2] == BROKEN_OVERRUN, "EASY overrun: the head is told its shadow moved to 14");
	end(&d, S(13), 1);
	ok_eq(d.start[2], S(13), "EASY overrun: it starts when A dies");
	ok_eq(d.checks_failed, 0, "EASY overrun: invariants held");
	sched_free(d.s);

	/* a pass a moment late (a busy event loop) signals the job with the
	 * end its hold had: nobody's promise moves */
	one_behind_another(&d, SCHED_CONSERVATIVE, S(2));
	run(&d, S(11));
	ok(d.kills[1] == 1 && d.broken[2] == 0 && guarantee(&d, 2) == S(12) &&
	   sched_get_stats(d.s)->hold_extensions == 0,
	   "late pass: a kill a second late leaves the plan alone");
	ok_eq(d.kill_t[1], S(12), "late pass: the job is to be gone by 12 all the same");
	{
		size_t n;

		sched_cancel(d.s, S(11), 1);
		sched_actions(d.s, &n);
		ok_eq(n, 0, "late pass: cancelling a signalled job signals nothing more");
	}
	sched_free(d.s);

	/* a node of the overdue job goes down after its hold ended, before
	 * the pass that finds it overdue: its nodes are counted once */
	drv_init(&d, SCHED_CONSERVATIVE, 4, S(2));
	submit(&d, S(0), 1, 2, S(10));
	submit(&d, S(0), 2, 1, S(100));
	run(&d, S(10));
	sched_node_down(d.s, S(12) + BF_SEC / 2, 0);
	run(&d, S(12) + BF_SEC / 2);
	submit(&d, S(12) + BF_SEC / 2, 3, 1, S(5));
	ok(d.checks_failed == 0 && d.start[3] == S(12) + BF_SEC / 2,
	   "down while overdue: invariants hold, and the one free node is used at once");
	sched_free(d.s);

	/* no grace, and the job dies a microsecond late, before any pass
	 * found it overdue: the due job starts late, and is told */
	one_behind_another(&d, SCHED_CONSERVATIVE, 0);
	run(&d, S(10));
	end(&d, S(10) + 1, 1);
	ok(d.start[2] == S(10) + 1 && d.broken[2] == 1 && d.broken_t[2] == S(10) + 1 &&
	   d.checks_failed == 0, "late by a microsecond: the start is announced as a broken "
	   "promise, not a silent violation");
	sched_free(d.s);

	/* the end of time: a hold that cannot grow does not spin the pass */
	drv_init(&d, SCHED_CONSERVATIVE, 4, S(2));
	submit(&d, S(0), 1, 4, S(10));
	run(&d, S(10));
	ok_eq(sched_run(d.s, BF_NEVER - 1), SCHED_OK, "end of time: the pass returns");
	drv_take(&d, BF_NEVER - 1);
	sched_free(d.s);

	/* a limit that passed while nobody ran a pass (a restart): signalled
	 * at the next pass and given the grace from then; the promise that
	 * overlaps the grace is moved and told */
	drv_init(&d, SCHED_CONSERVATIVE, 4, S(2));
	ok_eq(sched_restore_running(d.s, S(20), 1, 0, S(10), 0, BF_NEVER, (uint32_t[]){ 0, 1, 2, 3 }, 4),
	      SCHED_OK, "late kill: A restored at 20, its limit 10 long past");
	ok_eq(sched_restore_queued(d.s, S(20), 2, 0, 4, S(5), S(12)), SCHED_OK,
	      "late kill: B restored with its promise 12");
	run(&d, S(20));
	ok(d.kills[1] == 1 && d.kill_t[1] == S(22) && d.broken[2] == 1 && d.broken_t[2] == S(22),
	   "late kill: A signalled at 20 with its grace to 22; B told it starts at 22");
	ok_eq(d.checks_failed, 0, "late kill: invariants held");
	sched_free(d.s);

	/* a restore compresses only where the driver says the acknowledged
	 * plan had room: A held [0,100) and ended while the driver was down,
	 * so B, promised 100, is restored there and moves up only once A's
	 * span is reported freed (the whole plan is not searched) */
	drv_init(&d, SCHED_CONSERVATIVE, 4, 0);
	ok_eq(sched_restore_queued(d.s, S(20), 2, 0, 4, S(10), S(100)), SCHED_OK,
	      "restore freed: B restored with its promise 100");
	run(&d, S(20));
	ok(d.start[2] == -1 && guarantee(&d, 2) == S(100),
	   "restore freed: without a report, B keeps its promise 100");
	sched_free(d.s);
	drv_init(&d, SCHED_CONSERVATIVE, 4, 0);
	ok_eq(sched_restore_queued(d.s, S(20), 2, 0, 4, S(10), S(100)), SCHED_OK,
	      "restore freed: B restored again");
	ok_eq(sched_restore_freed(d.s, S(20), S(100)), SCHED_OK,
	      "restore freed: A's hold [20,100) reported free");
	ok_eq(sched_restore_freed(d.s, S(20), S(20)), SCHED_E_INVAL,
	      "restore freed: an empty span is refused");
	run(&d, S(20));
	ok(d.start[2] == S(20) && d.broken[2] == 0 && d.checks_failed == 0,
	   "restore freed: B starts at once, nothing announced");
	sched_free(d.s);
}

/* A lost node breaks the guarantees that no longer fit, latest arrival
 * first, and says so; a job on a lost node is killed. */
static void node_failure(void)
{
	struct drv d;

	drv_init(&d, SCHED_CONSERVATIVE, 4, 0);
	submit(&d, S(0), 1, 2, S(100));		/* nodes 0,1 [0,100) */
	submit(&d, S(1), 2, 4, S(100));		/* [100,200) */
	submit(&d, S(2), 3, 2, S(50));		/* nodes 2,3 now: [2,52) */
	ok_eq(d.start[3], S(2), "down: job 3 backfilled");
	ok_eq(sched_node_down(d.s, S(10), 0), SCHED_OK, "down: node 0 goes down while job 1 holds it");
	drv_take(&d, S(10));
	ok_eq(d.kills[1], 1, "down: job 1 is killed (node failure)");
	ok_eq(d.broken[2], 1, "down: job 2 (needs all 4 nodes) loses its guarantee, and is told");
	ok_eq(guarantee(&d, 2), BF_NEVER, "down: job 2 cannot be placed with 3 nodes up");
	sched_end(d.s, S(11), 1, END_NODE_FAILED);
	run(&d, S(11));
	ok_eq(sched_free_nodes(d.s), 1, "down: node 0 stays out; node 1 is free");
	ok_eq(sched_node_up(d.s, S(20), 0), SCHED_OK, "up: node 0 is back");
	run(&d, S(20));
	ok_eq(guarantee(&d, 2), S(52), "up: job 2 is placed again, after job 3");
	ok_eq(d.checks_failed, 0, "down/up: invariants held");
	sched_free(d.s);
}

/* A lost node takes back reservations, placed again a slice a call
 * (place_slice, as the live daemon does): until the last slice the core
 * says it is placing, the plan stays whole, compression waits, and a job
 * that arrives meanwhile waits behind the others and is placed after
 * them; the moved promises are told as each job is placed. */
static void placing_in_slices(void)
{
	struct drv d;

	drv_init_params(&d, &(struct sched_params){ .policy = SCHED_CONSERVATIVE, .nodes = 5,
	                                            .place_slice = 1 });
	submit(&d, S(0), 1, 5, S(100));		/* runs [0,100) */
	submit(&d, S(1), 2, 3, S(100));		/* [100,200) */
	submit(&d, S(2), 3, 2, S(100));		/* [100,200), beside 2 */
	submit(&d, S(3), 4, 2, S(100));		/* [200,300) */
	submit(&d, S(4), 5, 3, S(100));		/* [200,300), beside 4 */
	ok_eq(guarantee(&d, 5), S(200), "placing: job 5 promised 200");
	/* Node 0 is out from job 1's planned end: 4 nodes from 100 on. */
	ok_eq(sched_node_down(d.s, S(10), 0), SCHED_OK, "placing: node 0 lost under job 1");
	drv_take(&d, S(10));
	ok(sched_placing(d.s) && guarantee(&d, 3) == S(200) && d.broken[3] == 1 &&
	   d.broken[5] == 0 && guarantee(&d, 5) == S(200),
	   "placing: the first slice placed job 3 at 200 and told it; job 5 waits with its "
	   "old promise (%lld)", (long long)guarantee(&d, 5));
	ok_eq(submit(&d, S(11), 6, 1, S(50)), SCHED_OK, "placing: job 6 arrives meanwhile");
	ok(sched_placing(d.s) && guarantee(&d, 5) == S(300) && d.broken[5] == 1 &&
	   d.broken_why[5] == BROKEN_NODE_LOST && guarantee(&d, 6) == BF_NEVER,
	   "placing: the next call placed job 5 at 300 and told it why; job 6 waits behind it");
	run(&d, S(11));
	ok(!sched_placing(d.s) && guarantee(&d, 6) == S(100) && d.broken[6] == 0,
	   "placing: then job 6, in the hole at 100 (%lld), with nothing to tell",
	   (long long)guarantee(&d, 6));
	ok_eq(sched_cancel(d.s, S(12), 2), SCHED_OK, "placing: job 2 cancelled");
	run(&d, S(12));
	ok(guarantee(&d, 3) == S(100) && guarantee(&d, 4) == S(150) && guarantee(&d, 5) == S(250),
	   "placing done: compression runs again (jobs 3, 4, 5 at 100, 150, 250: %lld %lld %lld)",
	   (long long)guarantee(&d, 3), (long long)guarantee(&d, 4), (long long)guarantee(&d, 5));
	ok_eq(d.checks_failed, 0, "placing: invariants held after every call");
	sched_free(d.s);
}

/* A switch from EASY to conservative places the queued jobs as if they
 * arrived now: with place_slice, a slice a call, the same places as all at
 * once, the head's promise kept. */
static void policy_switch_in_slices(void)
{
	struct sched *s[2];
	struct sched_job_info a, b;
	int calls = 0, differ = 0;
	unsigned seed = 7;

	for (int k = 0; k < 2; k++) {
		sched_new(&s[k], &(struct sched_params){ .policy = SCHED_EASY, .nodes = 8,
		                                         .place_slice = k ? 2 : 0 });
		sched_submit(s[k], S(0), 1, 8, S(100));
		sched_run(s[k], S(0));
	}
	for (uint64_t id = 2; id <= 31; id++) {
		seed = seed * 1103515245u + 12345u;
		for (int k = 0; k < 2; k++)
			sched_submit(s[k], S(1), id, 1 + (seed >> 8) % 8, S(10 + (seed >> 12) % 90));
	}
	for (int k = 0; k < 2; k++) {
		sched_run(s[k], S(1));
		sched_clear_actions(s[k]);
		sched_set_policy(s[k], S(2), SCHED_CONSERVATIVE);
	}
	ok(!sched_placing(s[0]) && sched_placing(s[1]),
	   "switch to conservative: all placed at once, or the first slice placed");
	while (sched_placing(s[1]) && calls < 100) {
		sched_run(s[1], S(2));
		calls++;
	}
	sched_run(s[0], S(2));
	for (uint64_t id = 2; id <= 31; id++)
		differ += sched_job_info(s[0], id, &a) != SCHED_OK ||
		          sched_job_info(s[1], id, &b) != SCHED_OK || a.guarantee != b.guarantee ||
		          a.first_guarantee != b.first_guarantee || a.guarantee == BF_NEVER;
	ok(calls > 5 && differ == 0, "switch to conservative in slices (%d calls): the 30 guarantees "
	   "as all at once (%d differ)", calls, differ);
	sched_job_info(s[1], 2, &b);
	ok_eq(b.guarantee, S(100), "switch: the head keeps its promise (the blocker's end)");
	ok_eq(sched_get_stats(s[1])->broken, 0, "switch: no promise broken");
	for (int k = 0; k < 2; k++) {
		char msg[200] = "";

		ok(sched_check(s[k], S(2), msg, sizeof msg) == 0, "switch: invariants (%s)", msg);
		sched_free(s[k]);
	}
}

/* A drained node finishes its job and takes no new one: the job is not
 * signalled, the node is out of the plan from the job's planned end, the
 * guarantees that no longer fit are told (BROKEN_NODE_DRAINED), and a
 * drained node that then goes down has its job killed. */
static void node_drain(enum sched_policy p)
{
	const char *name = sched_policy_name(p);
	struct drv d;

	drv_init(&d, p, 4, 0);
	submit(&d, S(0), 1, 2, S(100));		/* nodes 0,1 [0,100) */
	submit(&d, S(1), 2, 4, S(100));		/* the head: at 100 */
	submit(&d, S(2), 3, 1, S(50));		/* node 2 now: [2,52) */
	ok_eq(sched_node_drain(d.s, S(10), 0), SCHED_OK, "%s drain: node 0, held by job 1", name);
	run(&d, S(10));
	ok_eq(d.kills[1], 0, "%s drain: job 1 runs on (not signalled)", name);
	ok_eq(d.broken[2], 1, "%s drain: job 2 (all 4 nodes) is told its start moved", name);
	ok_eq(d.broken_why[2], BROKEN_NODE_DRAINED, "%s drain: the cause is the drain", name);
	ok_eq(sched_node_drain(d.s, S(11), 0), SCHED_OK, "%s drain: again, nothing changes", name);
	run(&d, S(11));
	ok_eq(d.broken[2] + d.kills[1], 1, "%s drain: a second drain tells nobody anything", name);
	submit(&d, S(12), 4, 1, S(10));		/* node 3 */
	ok_eq(d.start[4], S(12), "%s drain: a small job still starts on an idle node", name);
	sched_end(d.s, S(22), 4, END_EXITED);
	sched_end(d.s, S(30), 3, END_EXITED);
	sched_end(d.s, S(40), 1, END_EXITED);
	run(&d, S(40));
	ok_eq(sched_free_nodes(d.s), 3, "%s drain: job 1 ended: nodes 1-3 free, node 0 stays out", name);
	ok_eq(d.start[2], -1, "%s drain: job 2 does not start on 3 nodes", name);
	ok_eq(sched_node_up(d.s, S(60), 0), SCHED_OK, "%s resume: node 0 is back", name);
	run(&d, S(60));
	ok_eq(d.start[2], S(60), "%s resume: job 2 starts", name);
	/* Drained while busy, then lost: now the job is killed. */
	submit(&d, S(61), 5, 1, S(100));
	ok_eq(sched_node_drain(d.s, S(70), 1), SCHED_OK, "%s drain: node 1, held by job 2", name);
	run(&d, S(70));
	ok_eq(d.kills[2], 0, "%s drain: job 2 runs on", name);
	ok_eq(sched_node_down(d.s, S(71), 1), SCHED_OK, "%s down: the drained node is lost", name);
	run(&d, S(71));
	ok_eq(d.kills[2], 1, "%s down: job 2 is killed now", name);
	ok_eq(d.checks_failed, 0, "%s drain: invariants held", name);
	sched_free(d.s);
}

/* A new time limit (bctl limit), conservative: shorter moves promises
 * earlier, longer moves those it overlaps later and tells them; a queued
 * job's own place follows its limit. */
static void limits(void)
{
	struct drv d;
	struct sched_job_info i;

	drv_init(&d, SCHED_CONSERVATIVE, 4, 0);
	submit(&d, S(0), 1, 4, S(100));		/* runs [0,100) */
	submit(&d, S(1), 2, 4, S(100));		/* [100,200) */
	submit(&d, S(2), 3, 4, S(100));		/* [200,300) */
	ok_eq(sched_set_limit(d.s, S(10), 1, S(50)), SCHED_OK, "limit: job 1 (running) to 50 s");
	run(&d, S(10));
	ok(guarantee(&d, 2) == S(50) && guarantee(&d, 3) == S(150) && d.broken[2] + d.broken[3] == 0,
	   "limit: shorter: jobs 2 and 3 move earlier (%lld, %lld), nobody is told",
	   (long long)guarantee(&d, 2), (long long)guarantee(&d, 3));
	ok_eq(sched_set_limit(d.s, S(20), 1, S(80)), SCHED_OK, "limit: job 1 to 80 s");
	run(&d, S(20));
	/* As for any longer hold: the reservation it overlaps (job 2's) is
	 * placed again, after job 3's (250), and told; job 3 then moves up
	 * to 80, and the settled compression moves job 2 up behind it. */
	ok(guarantee(&d, 2) == S(180) && d.broken[2] == 1 && d.broken_why[2] == BROKEN_LIMIT &&
	   guarantee(&d, 3) == S(80) && d.broken[3] == 0,
	   "limit: longer: job 2, which it now overlaps, is placed again and told why (%lld); "
	   "job 3 moves up (%lld)", (long long)guarantee(&d, 2), (long long)guarantee(&d, 3));
	ok_eq(sched_set_limit(d.s, S(21), 2, S(10)), SCHED_OK, "limit: job 2 (queued) to 10 s");
	run(&d, S(21));
	ok(guarantee(&d, 2) == S(180) && guarantee(&d, 3) == S(80) && d.broken[2] == 1,
	   "limit: a queued job made shorter finds an earlier place (%lld)",
	   (long long)guarantee(&d, 2));
	ok_eq(sched_set_limit(d.s, S(22), 3, S(150)), SCHED_OK, "limit: job 3 (queued) to 150 s");
	run(&d, S(22));
	ok(guarantee(&d, 2) == S(80) && guarantee(&d, 3) == S(90) && d.broken[3] == 1 &&
	   d.broken_why[3] == BROKEN_LIMIT && d.broken_t[3] == S(90),
	   "limit: a queued job made longer: job 2 moves up into its place first (%lld), then it "
	   "is placed after it (%lld) and told", (long long)guarantee(&d, 2),
	   (long long)guarantee(&d, 3));
	ok_eq(sched_set_limit(d.s, S(30), 1, S(25)), SCHED_OK, "limit: job 1 to 25 s, already past");
	run(&d, S(30));
	ok_eq(d.kills[1], 1, "limit: a limit already past: killed at the next pass");
	ok_eq(sched_set_limit(d.s, S(31), 1, S(60)), SCHED_E_INVAL, "limit: not for a job being killed");
	ok_eq(sched_set_limit(d.s, S(31), 9, S(60)), SCHED_E_NOJOB, "limit: no such job");
	ok_eq(sched_set_limit(d.s, S(31), 3, 0), SCHED_E_INVAL, "limit: 0 is no limit");
	ok(sched_job_info(d.s, 3, &i) == SCHED_OK && i.estimate == S(150), "limit: job 3's limit is 150 s");
	ok_eq(d.checks_failed, 0, "limit: invariants held");
	sched_free(d.s);
}

/* Settled compression (the what-if issue's smallest case), 2 nodes:
 * 1 (1 node, 100), 2 (1 node, estimate 1000, runs 10), 3 (2 nodes, 100),
 * 4 (1 node, 100). At 10 job 2 ends: job 3 moves to 200 and job 4 to 10,
 * which frees [110, 200); a second pass moves job 3 to 110. */
/* What a compression costs: only the jobs reserved after a freed region
 * are searched for an earlier place, and of a run of equal jobs that
 * cannot move, only the first. */
static void compression_cost(void)
{
	struct drv d;
	const struct sched_stats *st;
	uint64_t visits, searches, moves;
	bool stacked = true;

	/* 10 nodes: A holds them all until 100; B1..B50 (10 nodes, 10 s each)
	 * are stacked after it, Bk at 90 + 10 k. */
	drv_init(&d, SCHED_CONSERVATIVE, 10, 0);
	submit(&d, S(0), 1, 10, S(100));
	for (uint64_t k = 1; k <= 50; k++) {
		submit(&d, S(1), 100 + k, 10, S(10));
		stacked &= guarantee(&d, 100 + k) == S(90) + S(10) * (bf_time)k;
	}
	ok(stacked, "cost: 50 equal jobs stacked after the running one");
	st = sched_get_stats(d.s);
	visits = st->compress_visits;
	searches = st->compress_searches;
	moves = st->reanchors;
	sched_cancel(d.s, S(2), 150);	/* the last: nobody is after it */
	run(&d, S(2));
	ok(st->compress_searches == searches && st->reanchors == moves,
	   "cost: the last job cancelled: %llu jobs looked at, none searched",
	   (unsigned long long)(st->compress_visits - visits));
	searches = st->compress_searches;
	sched_cancel(d.s, S(3), 125);	/* frees [340, 350): B26..B49 move up */
	run(&d, S(3));
	ok(st->reanchors - moves == 24 && st->compress_searches - searches == 24 &&
	   guarantee(&d, 126) == S(340) && guarantee(&d, 149) == S(570),
	   "cost: a job in the middle cancelled: the 24 after it move up, each searched once "
	   "(%llu searches, %llu moves), the 24 before it never",
	   (unsigned long long)(st->compress_searches - searches),
	   (unsigned long long)(st->reanchors - moves));
	ok_eq(d.checks_failed, 0, "cost: invariants held");
	sched_free(d.s);

	/* A1 and A2 hold 5 nodes each, until 100 and 200; C1..C100 (10 nodes)
	 * wait for both. A1 ends at 10: its 5 nodes are no use to any of them,
	 * and only the first of the run is searched. */
	drv_init(&d, SCHED_CONSERVATIVE, 10, 0);
	submit(&d, S(0), 1, 5, S(100));
	submit(&d, S(0), 2, 5, S(200));
	for (uint64_t k = 1; k <= 100; k++)
		submit(&d, S(1), 200 + k, 10, S(10));
	st = sched_get_stats(d.s);
	searches = st->compress_searches;
	visits = st->compress_visits;
	moves = st->reanchors;
	end(&d, S(10), 1);
	ok(st->compress_visits - visits == 100 && st->compress_searches - searches == 1 &&
	   st->reanchors == moves, "cost: an early end no queued job fits: 100 equal jobs looked "
	   "at, %llu searched", (unsigned long long)(st->compress_searches - searches));
	ok_eq(d.checks_failed, 0, "cost: invariants held");
	sched_free(d.s);
}

/* Runs of alike jobs (sched_runs.c): 8 nodes, job 1 holds them all until
 * 100; jobs 11..58 (1 node, 50 s) wait in six runs of eight, each run
 * reserved at one instant (100, 150, .. 350). Once a pass has found the
 * runs at their earliest, a pass looks at one job a run; when job 1 ends
 * early, the first of each run is searched and moves up, and the seven
 * after it go along. A twin that searches every job alone (compress_
 * unbounded, which makes no runs) must give every job the same place. */
static void alike_runs(void)
{
	struct drv d[2];
	const struct sched_stats *st;
	uint64_t visits, searches, moves;
	bool same = true, stacked = true;

	for (int k = 0; k < 2; k++) {
		drv_init_params(&d[k], &(struct sched_params){ .policy = SCHED_CONSERVATIVE,
		                .nodes = 8, .compress_unbounded = k == 1 });
		submit(&d[k], S(0), 1, 8, S(100));
		for (uint64_t id = 11; id <= 58; id++)
			submit(&d[k], S(1), id, 1, S(50));
	}
	for (uint64_t id = 11; id <= 58; id++)
		stacked &= guarantee(&d[0], id) == S(100) + S(50) * (bf_time)((id - 11) / 8);
	ok(stacked, "runs: 48 alike jobs reserved eight at a time, at 100 .. 350");
	st = sched_get_stats(d[0].s);
	for (int k = 0; k < 2; k++) {	/* frees [350, 400): nobody can use it */
		sched_cancel(d[k].s, S(2), 58);
		run(&d[k], S(2));
	}
	visits = st->compress_visits;
	for (int k = 0; k < 2; k++) {
		sched_cancel(d[k].s, S(3), 57);
		run(&d[k], S(3));
	}
	ok(st->compress_visits - visits <= 6,
	   "runs: a pass that moves nothing looks at one job a run (%llu looked at, 46 queued)",
	   (unsigned long long)(st->compress_visits - visits));
	searches = st->compress_searches;
	moves = st->reanchors;
	for (int k = 0; k < 2; k++)
		end(&d[k], S(10), 1);
	for (uint64_t id = 11; id <= 56; id++)
		same &= guarantee(&d[0], id) == guarantee(&d[1], id) &&
		        d[0].start[id] == d[1].start[id];
	ok(st->reanchors - moves >= 38 && st->compress_searches - searches <= 14,
	   "runs: an early end: %llu jobs move up, %llu searched (at most two a run, and a "
	   "second pass)",
	   (unsigned long long)(st->reanchors - moves),
	   (unsigned long long)(st->compress_searches - searches));
	ok(same && d[0].start[11] == S(10) && guarantee(&d[0], 56) == S(260),
	   "runs: the same starts and guarantees as every job searched alone (job 56 at %lld)",
	   (long long)guarantee(&d[0], 56));
	ok_eq(d[0].checks_failed + d[1].checks_failed, 0, "runs: invariants held");
	sched_free(d[0].s);
	sched_free(d[1].s);

	/* Without a cap, jobs of different users are alike; a cap set later
	 * tells them apart. 2 nodes: jobs 1 (user 1) and 2 (user 3) run until
	 * 100; 11 (user 1) and 12 (user 2), alike, are reserved at 100 and
	 * made a run by a pass. Cap 1; job 2 ends at 10: job 11 cannot move
	 * (its user runs job 1), job 12 starts at 10, as with no runs. */
	for (int k = 0; k < 2; k++) {
		struct drv *x = &d[k];

		drv_init_params(x, &(struct sched_params){ .policy = SCHED_CONSERVATIVE, .nodes = 2,
		                .compress_unbounded = k == 1 });
		sched_submit_as(x->s, 0, 1, 1, S(100), 1);
		sched_submit_as(x->s, 0, 2, 1, S(100), 3);
		run(x, 0);
		sched_submit_as(x->s, S(1), 11, 1, S(50), 1);
		sched_submit_as(x->s, S(1), 12, 1, S(50), 2);
		sched_submit_as(x->s, S(1), 13, 2, S(10), 4);
		run(x, S(1));
		sched_cancel(x->s, S(2), 13);
		run(x, S(2));
		sched_set_user_cap(x->s, S(3), 1);
		run(x, S(3));
		end(x, S(10), 2);
	}
	ok(d[0].start[12] == S(10) && d[1].start[12] == S(10) && d[0].start[11] < 0,
	   "runs: a cap set later tells the users of a run apart (job 12 starts at %lld)",
	   (long long)d[0].start[12]);
	ok_eq(d[0].checks_failed + d[1].checks_failed, 0, "runs: invariants held with the cap");
	sched_free(d[0].s);
	sched_free(d[1].s);
}

static void settled_compression(void)
{
	struct drv d;

	drv_init(&d, SCHED_CONSERVATIVE, 2, 0);
	submit(&d, S(0), 1, 1, S(100));
	submit(&d, S(0), 2, 1, S(1000));
	submit(&d, S(1), 3, 2, S(100));
	submit(&d, S(2), 4, 1, S(100));
	ok(guarantee(&d, 3) == S(1000) && guarantee(&d, 4) == S(100),
	   "settled: before: job 3 at 1000, job 4 at 100 (beside job 2)");
	end(&d, S(10), 2);
	ok(d.start[4] == S(10), "settled: job 4 starts at 10");
	ok_eq(guarantee(&d, 3), S(110), "settled: job 3 is guaranteed 110, not 200 (a second pass)");
	end(&d, S(100), 1);
	sched_end(d.s, S(110), 4, END_EXITED);
	run(&d, S(110));
	ok_eq(d.start[3], S(110), "settled: job 3 starts at 110");
	ok_eq(d.checks_failed, 0, "settled: invariants held");
	sched_free(d.s);
}

/* The literature's event order (replay --per-event): one compression pass
 * per end, not settled, and one also after an end at the estimate, which
 * the driver asks for in that end's turn (sched_compress_next). In the
 * case above, the pass at t=10 leaves job 3 at 200; job 1's end at its
 * estimate (100) gives its node back without a compression, and the
 * compression asked for then finds 110. */
static void per_end_compression(void)
{
	struct drv d;

	drv_init_params(&d, &(struct sched_params){ .policy = SCHED_CONSERVATIVE, .nodes = 2,
	                                            .compress_per_end = true });
	submit(&d, S(0), 1, 1, S(100));
	submit(&d, S(0), 2, 1, S(1000));
	submit(&d, S(1), 3, 2, S(100));
	submit(&d, S(2), 4, 1, S(100));
	end(&d, S(10), 2);
	ok(d.start[4] == S(10), "per end: job 4 starts at 10");
	ok_eq(guarantee(&d, 3), S(200), "per end: one pass leaves job 3 at 200");
	end(&d, S(100), 1);
	ok_eq(guarantee(&d, 3), S(200), "per end: an end at the estimate alone does not compress");
	sched_compress_next(d.s);
	run(&d, S(100));
	ok_eq(guarantee(&d, 3), S(110), "per end: the compression asked for at its turn: job 3 at 110");
	end(&d, S(110), 4);
	ok_eq(d.start[3], S(110), "per end: job 3 starts at 110");
	ok_eq(d.checks_failed, 0, "per end: invariants held");
	sched_free(d.s);
}

/* One pass per call (the live daemon's compress_passes = 1): a settling
 * that takes many passes (a tight queue, the head cancelled) goes on at
 * each call, sched_next_wakeup() asks for the next at once, and the plan it
 * settles in is the one a single call reaches. */
static void sliced_settling(uint32_t slice)
{
	struct sched *one, *all;
	struct sched_params prm = { .policy = SCHED_CONSERVATIVE, .nodes = 65 };
	unsigned rng = 7, calls = 0, bad = 0, later = 0;
	bf_time t = 0;
	char msg[300];

	sched_new(&all, &prm);
	prm.compress_passes = 1;
	prm.compress_slice = slice;
	sched_new(&one, &prm);
	for (uint64_t id = 1; id <= 801; id++) {
		uint32_t n = id == 1 ? 64 : 2 + (rng = rng * 1103515245u + 12345u) / 7 % 64;
		bf_time e = id == 1 ? S(3600) : S(60 + (rng >> 9) % (4 * 3600 - 60));

		t += 1000;
		sched_submit(all, t, id, n, e);
		sched_submit(one, t, id, n, e);
		sched_run(all, t);
		sched_run(one, t);
		sched_clear_actions(all);
		sched_clear_actions(one);
	}
	for (uint64_t head = 2; head < 6; head++) {
		bf_time before[802];

		t += S(1);
		for (uint64_t id = head + 1; id <= 801; id++) {
			struct sched_job_info in;

			before[id] = sched_job_info(one, id, &in) == SCHED_OK ? in.guarantee : BF_NEVER;
		}
		sched_cancel(all, t, head);
		sched_cancel(one, t, head);
		sched_run(all, t);
		do {
			sched_run(one, t);
			calls++;
			/* Between calls the plan is whole and no promise is later. */
			if (sched_check(one, t, msg, sizeof msg) != 0)
				bad++;
			for (uint64_t id = head + 1; id <= 801; id++) {
				struct sched_job_info in;

				if (sched_job_info(one, id, &in) == SCHED_OK && in.state == JOB_QUEUED &&
				    in.guarantee > before[id])
					later++;
			}
		} while (sched_next_wakeup(one) == t && calls < 100000);
		for (uint64_t id = head + 1; id <= 801; id++) {
			struct sched_job_info a, b;

			if (sched_job_info(all, id, &a) != sched_job_info(one, id, &b) ||
			    a.guarantee != b.guarantee || a.state != b.state)
				bad++;
		}
		sched_clear_actions(all);
		sched_clear_actions(one);
	}
	ok(calls > (slice ? 400u : 8u), "sliced (%u units a call): the settlings took several calls (%u)",
	   slice, calls);
	ok_eq(later, 0, "sliced (%u units a call): between calls no promise moved later", slice);
	ok_eq(bad, 0, "sliced (%u units a call): every plan whole, and the same as settled in one call",
	      slice);
	sched_free(all);
	sched_free(one);
}

/* The live daemon's compression (slices, one pass a call, run until done
 * at each instant) against every job searched alone in one call, over
 * random runs of events: arrivals in runs of equal jobs, ends, cancels,
 * limits made shorter, with and without a cap; jobs end at their
 * estimates. Both must give every job the same start and guarantee. (A
 * limit changed while a pass was cut in slices was placed at once, not in
 * its turn, and a region freed meanwhile was not offered to the jobs the
 * pass had passed.) */
struct twin {
	struct drv d[2];
	bf_time est[MAXJ], now;
	bool ended[2][MAXJ];
};

static unsigned twin_rnd(unsigned *r)
{
	*r = *r * 1103515245u + 12345u;
	return (*r >> 8) & 0xffffff;
}

static void twin_settle(struct drv *d, bf_time t)
{
	for (int k = 0; k < 3000 && sched_next_wakeup(d->s) <= t; k++)
		sched_run(d->s, t);
	sched_run(d->s, t);
	drv_take(d, t);
}

/* The jobs that end at their estimates up to t, in time order. */
static void twin_advance(struct twin *w, bf_time t)
{
	for (;;) {
		bf_time best = t + 1;
		int bk = -1;
		uint64_t bid = 0;

		for (int k = 0; k < 2; k++)
			for (uint64_t id = 1; id < MAXJ; id++)
				if (w->d[k].start[id] >= 0 && !w->ended[k][id] &&
				    w->d[k].start[id] + w->est[id] < best) {
					best = w->d[k].start[id] + w->est[id];
					bk = k;
					bid = id;
				}
		if (bk < 0)
			break;
		if (best < w->now)
			best = w->now;
		sched_end(w->d[bk].s, best, bid, END_EXITED);
		w->ended[bk][bid] = true;
		twin_settle(&w->d[bk], best);
		twin_settle(&w->d[1 - bk], best);
		w->now = best;
	}
	w->now = t;
}

static void sliced_like_whole(uint32_t slice, int seeds)
{
	int bad = 0, checks = 0;
	static struct twin w;

	for (int seed = 1; seed <= seeds; seed++) {
		unsigned r = (unsigned)seed;
		bf_time t = 0;
		uint64_t next = 1;
		bool diverged = false;

		memset(&w, 0, sizeof w);
		for (int k = 0; k < 2; k++)
			drv_init_params(&w.d[k], &(struct sched_params){
				.policy = SCHED_CONSERVATIVE, .nodes = 8,
				.max_running_per_user = (uint32_t)seed % 2,
				.compress_unbounded = k == 1,
				.compress_passes = k == 0, .compress_slice = k == 0 ? slice : 0 });
		for (int step = 0; step < 150 && !diverged; step++) {
			unsigned op;

			t += S(1 + twin_rnd(&r) % 5);
			twin_advance(&w, t);
			op = twin_rnd(&r) % 10;
			if (op < 5 && next < MAXJ - 5) {
				uint32_t n = 1 + twin_rnd(&r) % 3;
				bf_time e = S(10 * (1 + twin_rnd(&r) % 3));
				uint32_t u = twin_rnd(&r) % 2;
				unsigned rep = 1 + twin_rnd(&r) % 5;

				for (unsigned q = 0; q < rep && next < MAXJ - 1; q++, next++) {
					w.est[next] = e;
					for (int k = 0; k < 2; k++)
						sched_submit_as(w.d[k].s, t, next, n, e, u);
				}
			} else if (op < 7) {	/* an end, or a cancel */
				uint64_t id = 1 + twin_rnd(&r) % (next > 1 ? next - 1 : 1);

				for (int k = 0; k < 2; k++) {
					if (w.d[k].start[id] < 0) {
						sched_cancel(w.d[k].s, t, id);
					} else if (!w.ended[k][id]) {
						sched_end(w.d[k].s, t, id, END_EXITED);
						w.ended[k][id] = true;
					}
				}
			} else if (op == 7) {	/* a queued job's limit made shorter */
				uint64_t id = 1 + twin_rnd(&r) % (next > 1 ? next - 1 : 1);

				if (w.d[0].start[id] < 0) {
					w.est[id] = S(5);
					for (int k = 0; k < 2; k++)
						sched_set_limit(w.d[k].s, t, id, S(5));
				}
			}
			for (int k = 0; k < 2; k++)
				twin_settle(&w.d[k], t);
			for (uint64_t id = 1; id < next && !diverged; id++)
				diverged = guarantee(&w.d[0], id) != guarantee(&w.d[1], id) ||
				           w.d[0].start[id] != w.d[1].start[id];
		}
		bad += diverged;
		checks += w.d[0].checks_failed + w.d[1].checks_failed;
		sched_free(w.d[0].s);
		sched_free(w.d[1].s);
	}
	ok_eq(bad, 0, "sliced (%u units a call) like whole: the same starts and guarantees in %d "
	      "random runs with limits, ends and cancels", slice, seeds);
	ok_eq(checks, 0, "sliced (%u units a call) like whole: invariants held", slice);
}

struct nth {
	uint32_t want, seen;
	uint64_t id;
};

static int nth_queued(const struct sched_job_info *i, void *arg)
{
	struct nth *n = arg;

	n->id = i->id;
	return n->seen++ == n->want;
}

/* Slices with events between them: arrivals and cancels (the job the
 * next slice starts with among them) while a pass is cut in slices. Every
 * plan stays whole, no promise moves later, and the settling ends. */
static void sliced_with_events(void)
{
	struct sched *s;
	struct sched_params prm = { .policy = SCHED_CONSERVATIVE, .nodes = 65,
	                            .compress_passes = 1, .compress_slice = 5 };
	bf_time promise[1400] = { 0 }, t = 0;
	unsigned rng = 11, bad = 0, later = 0, calls = 0, events = 0;
	uint64_t next_id = 402;
	char msg[300];

	sched_new(&s, &prm);
	for (uint64_t id = 1; id <= 401; id++) {
		uint32_t n = id == 1 ? 64 : 2 + (rng = rng * 1103515245u + 12345u) / 7 % 64;

		t += 1000;
		sched_submit(s, t, id, n, id == 1 ? S(3600) : S(60 + (rng >> 9) % 14000));
		sched_run(s, t);
		sched_clear_actions(s);
	}
	t += S(1);
	sched_cancel(s, t, 2);
	do {
		struct sched_job_info in;

		sched_run(s, t);
		sched_clear_actions(s);
		calls++;
		if (calls == 1) {
			/* The first slice (5 units of work) searched the first
			 * queued job only: the second, where the next slice
			 * starts, leaves, and a newcomer may take its slot. */
			struct nth nth = { .want = 1 };

			sched_foreach_queued(s, nth_queued, &nth);
			sched_cancel(s, t, nth.id);
			sched_submit(s, t, next_id++, 3, S(100));
			events++;
		}
		if (sched_check(s, t, msg, sizeof msg) != 0)
			bad++;
		for (uint64_t id = 3; id < next_id; id++) {
			if (sched_job_info(s, id, &in) != SCHED_OK || in.state != JOB_QUEUED)
				continue;
			if (promise[id] && in.guarantee > promise[id])
				later++;
			promise[id] = in.guarantee;
		}
		rng = rng * 1103515245u + 12345u;
		if (calls % 3 == 0 && next_id < 1400) {
			/* A queued job leaves, or one more arrives. */
			uint64_t id = 3 + (rng >> 8) % (next_id - 3);

			if (rng % 2 && sched_job_info(s, id, &in) == SCHED_OK && in.state == JOB_QUEUED)
				sched_cancel(s, t, id);
			else
				sched_submit(s, t, next_id++, 2 + (rng >> 12) % 64, S(60 + (rng >> 5) % 9000));
			events++;
		}
	} while (sched_next_wakeup(s) <= t && calls < 200000);
	ok(events > 50 && calls < 200000, "sliced with events: %u events between %u calls, and it settled",
	   events, calls);
	ok_eq(bad, 0, "sliced with events: every plan whole");
	ok_eq(later, 0, "sliced with events: no promise moved later");
	sched_free(s);
}

/* An operator puts a job first (bctl top): conservative plans again in
 * the new order and tells those that move later; EASY's old head loses
 * its promise and is told. */
static void top(void)
{
	struct drv d;

	drv_init(&d, SCHED_CONSERVATIVE, 4, 0);
	submit(&d, S(0), 1, 4, S(100));		/* runs [0,100) */
	submit(&d, S(1), 2, 2, S(100));		/* [100,200) */
	submit(&d, S(2), 3, 4, S(100));		/* [200,300) */
	submit(&d, S(3), 4, 2, S(100));		/* [100,200), beside 2 */
	ok_eq(sched_top(d.s, S(10), 3), SCHED_OK, "top: job 3 first (conservative)");
	run(&d, S(10));
	ok(guarantee(&d, 3) == S(100) && guarantee(&d, 2) == S(200) && guarantee(&d, 4) == S(200),
	   "top: job 3 at 100, jobs 2 and 4 after it (%lld %lld %lld)", (long long)guarantee(&d, 3),
	   (long long)guarantee(&d, 2), (long long)guarantee(&d, 4));
	ok(d.broken[2] == 1 && d.broken_why[2] == BROKEN_TOP && d.broken[4] == 1 && d.broken[3] == 0,
	   "top: the two that moved later are told why; job 3 is not");
	ok_eq(sched_top(d.s, S(11), 3), SCHED_OK, "top: already first: nothing changes");
	run(&d, S(11));
	ok_eq(d.broken[2] + d.broken[4], 2, "top: again: nobody told anything");
	ok_eq(sched_top(d.s, S(12), 1), SCHED_E_NOJOB, "top: a running job is not queued");
	ok_eq(d.checks_failed, 0, "top: invariants held (conservative)");
	sched_free(d.s);

	drv_init(&d, SCHED_EASY, 4, 0);
	submit(&d, S(0), 1, 4, S(100));
	submit(&d, S(1), 2, 4, S(100));		/* the head: 100 */
	submit(&d, S(2), 3, 1, S(500));		/* too long to backfill */
	ok(guarantee(&d, 2) == S(100), "top: EASY head promised 100");
	ok_eq(sched_top(d.s, S(10), 3), SCHED_OK, "top: job 3 first (EASY)");
	run(&d, S(10));
	ok(d.broken[2] == 1 && d.broken_why[2] == BROKEN_TOP && d.broken_t[2] == BF_NEVER &&
	   guarantee(&d, 3) == S(100),
	   "top: the old head loses its promise and is told; job 3 is promised 100");
	ok_eq(d.checks_failed, 0, "top: invariants held (EASY)");
	sched_free(d.s);
}

/* Restart: a scheduler rebuilt from what the old one would have stored
 * (running jobs with their nodes and starts, queued jobs in order with their
 * guarantees) has the same nodes, the same guarantees, and goes on to the
 * same schedule. */
struct snapshot {
	int nrun, nq;
	struct sched_job_info run[16], q[16];
	uint32_t nodes[16][16];
	const struct sched *from;
};

static int snap_running(const struct sched_job_info *i, void *arg)
{
	struct snapshot *sn = arg;

	sched_job_nodes(sn->from, i->id, sn->nodes[sn->nrun], 16);
	sn->run[sn->nrun++] = *i;
	return 0;
}

static int snap_queued(const struct sched_job_info *i, void *arg)
{
	struct snapshot *sn = arg;

	sn->q[sn->nq++] = *i;
	return 0;
}

static void restart(void)
{
	struct drv d, e;
	struct snapshot sn = { 0 };
	uint32_t a[16], b[16];
	int same_nodes = 1, same_guar = 1, rc = 0;

	drv_init(&d, SCHED_CONSERVATIVE, 16, 0);
	submit(&d, S(0), 1, 8, S(100));
	submit(&d, S(1), 2, 4, S(50));
	submit(&d, S(2), 3, 16, S(100));	/* reserved at 100 */
	submit(&d, S(3), 4, 6, S(30));		/* reserved at 50 */
	submit(&d, S(4), 5, 2, S(500));		/* after job 3 */
	submit(&d, S(5), 6, 4, S(40));		/* backfilled now: [5,45) */
	sn.from = d.s;
	sched_foreach_running(d.s, snap_running, &sn);
	sched_foreach_queued(d.s, snap_queued, &sn);
	ok(sn.nrun == 3 && sn.nq == 3, "restart: 3 running and 3 queued jobs to store (%d, %d)",
	   sn.nrun, sn.nq);

	/* The daemon was down from 5 to 10; everything comes back at 10. */
	drv_init(&e, SCHED_CONSERVATIVE, 16, 0);
	for (int k = 0; k < sn.nrun; k++)
		rc |= sched_restore_running(e.s, S(10), sn.run[k].id, sn.run[k].submit,
		                            sn.run[k].estimate, sn.run[k].start, sn.run[k].hold_end,
		                            sn.nodes[k],
		                            sn.run[k].nodes);
	for (int k = 0; k < sn.nq; k++)
		rc |= sched_restore_queued(e.s, S(10), sn.q[k].id, sn.q[k].submit, sn.q[k].nodes,
		                           sn.q[k].estimate, sn.q[k].guarantee);
	run(&e, S(10));
	ok_eq(rc, SCHED_OK, "restart: every job restored");
	ok_eq(sched_free_nodes(e.s), sched_free_nodes(d.s), "restart: the same nodes free");
	for (int k = 0; k < sn.nrun; k++) {
		uint32_t n = sched_job_nodes(e.s, sn.run[k].id, a, 16);

		sched_job_nodes(d.s, sn.run[k].id, b, 16);
		same_nodes &= n == sn.run[k].nodes && memcmp(a, b, n * sizeof *a) == 0;
	}
	ok(same_nodes, "restart: running jobs adopted on exactly their nodes");
	for (int k = 0; k < sn.nq; k++)
		same_guar &= guarantee(&e, sn.q[k].id) == sn.q[k].guarantee;
	ok(same_guar, "restart: every queued job keeps its guarantee");
	for (int k = 1; k <= 6; k++)
		if (d.start[k] >= 0)
			e.start[k] = d.start[k];	/* started before the restart */

	/* The same future for both: the same schedule. */
	end(&d, S(40), 2);
	end(&e, S(40), 2);
	end(&d, S(45), 6);
	end(&e, S(45), 6);
	end(&d, S(60), 1);
	end(&e, S(60), 1);
	end(&d, S(70), 4);
	end(&e, S(70), 4);
	ok(memcmp(d.start, e.start, sizeof d.start) == 0 && d.start[3] == S(70),
	   "restart: the restored scheduler goes on to the same starts");
	ok_eq(d.checks_failed + e.checks_failed, 0, "restart: invariants held");
	sched_free(d.s);
	sched_free(e.s);

	/* Errors leave nothing behind; limits that passed are acted on. */
	drv_init(&e, SCHED_CONSERVATIVE, 4, 0);
	ok_eq(sched_restore_running(e.s, S(10), 1, 0, S(5), 0, BF_NEVER, (uint32_t[]){ 0, 0 }, 2),
	      SCHED_E_INVAL, "restore: a node listed twice is refused");
	ok_eq(sched_restore_running(e.s, S(10), 1, 0, S(5), 0, BF_NEVER, (uint32_t[]){ 4 }, 1),
	      SCHED_E_INVAL, "restore: a node out of range is refused");
	ok_eq(sched_restore_running(e.s, S(10), 1, 0, S(5), S(11), BF_NEVER, (uint32_t[]){ 1 }, 1),
	      SCHED_E_INVAL, "restore: a start in the future is refused");
	ok(sched_free_nodes(e.s) == 4 && guarantee(&e, 1) == -2, "restore: and nothing is left behind");
	ok_eq(sched_restore_running(e.s, S(10), 1, 0, S(5), 0, BF_NEVER, (uint32_t[]){ 1, 2 }, 2), SCHED_OK,
	      "restore: a job whose limit passed while down");
	run(&e, S(10));
	ok_eq(e.kills[1], 1, "restore: it is signalled at the first pass");
	sched_end(e.s, S(10), 1, END_KILLED);
	sched_node_down(e.s, S(10), 3);
	ok_eq(sched_restore_queued(e.s, S(10), 2, S(1), 4, S(10), S(50)), SCHED_OK,
	      "restore: a job promised all 4 nodes, with one down");
	ok_eq(sched_restore_queued(e.s, S(10), 3, S(2), 2, S(10), S(5)), SCHED_OK,
	      "restore: a job whose promise passed while down");
	run(&e, S(10));
	ok_eq(e.broken[2], 1, "restore: the promise that no longer fits is announced broken");
	ok_eq(e.start[3], S(10), "restore: the passed promise is kept by starting now");
	ok_eq(e.broken[3], 0, "restore: and is not announced broken");
	ok_eq(e.checks_failed, 0, "restore: invariants held");
	sched_free(e.s);
}

/* Random workloads: every policy, random early ends, cancels and node
 * changes; invariants after every event, and under conservative no queued
 * job's guarantee ever moves later unless the core said SA_BROKEN. */
enum { SN = 32, SJ = 400 };

static int stress_slices;	/* passes that left jobs waiting for a place, all runs */
static double stress_alpha;	/* CREASY's */

struct stress {
	struct sched *s;
	enum sched_policy pol;
	bf_time est[SJ], run_for[SJ], promised[SJ], end_at[SJ];
	int state[SJ];		/* 0 unborn, 1 queued, 2 running, 3 gone */
	bf_time grace;
	unsigned rng;		/* for slow deaths */
	int slow_deaths;
	int late_start;
	int stuck;
	int slices;		/* passes that left jobs waiting for a place */
	bf_time copy[SJ];	/* the guarantees as sched_drain_moved told them */
	uint64_t trace;		/* a hash of every action, to compare runs */
};

static int copy_moved(const struct sched_job_info *i, void *arg)
{
	struct stress *t = arg;

	t->copy[i->id] = i->guarantee;
	return 0;
}

/* A scheduling pass at `now`, acting on its actions like a driver would. */
static void stress_pass(struct stress *t, bf_time now)
{
	size_t na;
	const struct sched_action *a;

	sched_run(t->s, now);
	a = sched_actions(t->s, &na);
	for (size_t k = 0; k < na; k++) {
		uint64_t id = a[k].job;

		t->trace = (t->trace ^ (uint64_t)a[k].kind ^ (id << 8) ^ ((uint64_t)now << 24)) *
		           0x100000001b3ULL;
		if (a[k].kind == SA_START) {
			t->state[id] = 2;
			/* one that would run past its estimate ends when killed */
			t->end_at[id] = t->run_for[id] < t->est[id] ? now + t->run_for[id] : BF_NEVER;
			if (t->pol == SCHED_CONSERVATIVE && t->promised[id] != BF_NEVER &&
			    now > t->promised[id])
				t->late_start++;
		} else if (a[k].kind == SA_KILL) {
			/* Dies at once; with a grace, one in three takes up to
			 * the grace + 20 s to die, past its hold at times. */
			t->rng = t->rng * 1103515245u + 12345u;
			t->end_at[id] = now;
			if (t->grace && (t->rng >> 8) % 3 == 0) {
				t->end_at[id] += (t->grace + S(20)) / 1000 * (bf_time)((t->rng >> 10) % 1000);
				t->slow_deaths++;
			}
		} else {
			t->promised[id] = a[k].t;	/* a broken promise, renewed */
		}
	}
	sched_clear_actions(t->s);
}

/* shapes: jobs come in runs of 7 of the same nodes and estimate, as in
 * real traces (what compression's shortcut for equal jobs is about);
 * walk: repairs the reference way (sched_params.repair_reference);
 * place_slice: places again that many a call (the driver calls until all
 * are placed before it looks at the guarantees). */
static uint64_t stress_with(enum sched_policy pol, bf_time grace, unsigned seed, bool unbounded,
                            bool shapes, bool walk, uint32_t place_slice)
{
	static const bf_time shape_est[] = { S(50), S(120), S(300), S(120) };
	static const uint32_t shape_nodes[] = { 1, 3, SN / 2, 1, 3 };
	struct sched_params prm = { .policy = pol, .nodes = SN, .kill_grace = grace,
	                            .compress_unbounded = unbounded, .repair_reference = walk,
	                            .place_slice = place_slice, .alpha = stress_alpha };
	uint64_t trace;
	struct stress *t = calloc(1, sizeof *t);
	char msg[300];
	int bad_check = 0, later = 0, events = 0, node_events = 0, limits = 0, stale = 0;
	bf_time now = 0;
	uint64_t next = 0;

	t->pol = pol;
	t->grace = grace;
	t->rng = seed;
	sched_new(&t->s, &prm);
	for (int i = 0; i < SJ; i++) {
		seed = seed * 1103515245 + 12345;
		t->est[i] = shapes ? shape_est[i / 7 % 4] : S(1 + (seed >> 8) % 500);
		seed = seed * 1103515245 + 12345;
		t->run_for[i] = (seed >> 8) % 4 == 0 ? t->est[i] + S(1)
		                                     : (bf_time)((seed >> 8) % (uint64_t)t->est[i]);
		t->promised[i] = BF_NEVER;
		t->copy[i] = BF_NEVER;
		t->end_at[i] = BF_NEVER;
	}
	while (events < 4000) {
		int r;
		bf_time ext, w;

		seed = seed * 1103515245 + 12345;
		r = (int)((seed >> 8) % 100);
		ext = now + S((seed >> 16) % 7);	/* the next outside event */
		/* Like a real driver: the ends and wake-ups before it happen on
		 * time, each followed by a pass. */
		for (int guard = 0;; guard++) {
			w = sched_next_wakeup(t->s);
			if (guard > 100000) {
				t->stuck++;	/* a wake-up that never moves on */
				break;
			}
			for (int i = 0; i < SJ; i++)
				if (t->state[i] == 2 && t->end_at[i] < w)
					w = t->end_at[i];
			if (w > ext)
				break;
			now = w;
			for (int i = 0; i < SJ; i++) {
				if (t->state[i] == 2 && t->end_at[i] == now) {
					sched_end(t->s, now, (uint64_t)i, END_EXITED);
					t->state[i] = 3;
				}
			}
			stress_pass(t, now);
		}
		now = ext;
		if (r < 45 && next < SJ) {
			sched_submit(t->s, now, next, shapes ? shape_nodes[next / 7 % 5] :
			             1 + (uint32_t)((seed >> 12) % (SN / 2 + 1)) +
			             ((seed >> 20) % 9 == 0 ? SN / 2 - 1 : 0), t->est[next]);
			t->state[next++] = 1;
		} else if (r < 50 && next > 0) {
			uint64_t v = (seed >> 12) % next;

			if (t->state[v] == 1 && sched_cancel(t->s, now, v) == SCHED_OK)
				t->state[v] = 3;
		} else if (r < 53) {
			if ((seed >> 7) % 3 == 0)
				sched_node_drain(t->s, now, (uint32_t)((seed >> 12) % SN));
			else
				sched_node_down(t->s, now, (uint32_t)((seed >> 12) % SN));
			node_events++;
		} else if (r < 58) {
			sched_node_up(t->s, now, (uint32_t)((seed >> 12) % SN));
			node_events++;
		} else if (r < 62 && next > 0) {
			/* A new limit, shorter or longer, queued or running (a
			 * running job with no natural end runs until killed). */
			uint64_t v = (seed >> 12) % next;
			bf_time est = S(1 + (seed >> 24) % 500);

			if ((t->state[v] == 1 || t->state[v] == 2) &&
			    sched_set_limit(t->s, now, v, est) == SCHED_OK) {
				t->est[v] = est;
				limits++;
			}
		} else if (r < 63 && next > 0) {
			uint64_t v = (seed >> 12) % next;

			if (t->state[v] == 1)
				sched_top(t->s, now, v);
		}
		do {
			stress_pass(t, now);
			if (sched_placing(t->s))
				t->slices++;
		} while (sched_placing(t->s));
		sched_drain_moved(t->s, copy_moved, t);
		for (uint64_t i = 0; i < next; i++) {
			struct sched_job_info info;

			if (t->state[i] == 1 && sched_job_info(t->s, i, &info) == SCHED_OK)
				stale += t->copy[i] != info.guarantee;
		}
		if (pol == SCHED_CONSERVATIVE) {
			for (uint64_t i = 0; i < next; i++) {
				struct sched_job_info info;

				if (t->state[i] != 1 || sched_job_info(t->s, i, &info) != SCHED_OK)
					continue;
				if (info.guarantee > t->promised[i])
					later++;
				t->promised[i] = info.guarantee;
				t->trace = (t->trace ^ (uint64_t)info.guarantee) * 0x100000001b3ULL;
			}
		}
		if (sched_check(t->s, now, msg, sizeof msg) != 0 && !bad_check++)
			printf("# %s: %s\n", sched_policy_name(pol), msg);
		events++;
	}
	ok_eq(bad_check, 0, "stress %s, grace %llds: invariants after every one of %d events "
	      "(%d node changes, %d new limits, %d slow deaths, %llu longer holds)",
	      sched_policy_name(pol), (long long)(grace / BF_SEC), events, node_events, limits,
	      t->slow_deaths, (unsigned long long)sched_get_stats(t->s)->hold_extensions);
	ok_eq(t->stuck, 0, "stress %s: the driver never got stuck on a wake-up", sched_policy_name(pol));
	ok_eq(stale, 0, "stress %s: a copy of the guarantees kept by sched_drain_moved stays equal "
	      "to the core's", sched_policy_name(pol));
	if (pol == SCHED_CONSERVATIVE) {
		ok_eq(later, 0, "stress conservative: no guarantee moved later unless announced");
		ok_eq(t->late_start, 0, "stress conservative: no job started after its guarantee");
	}
	stress_slices += t->slices;
	trace = t->trace;
	sched_free(t->s);
	free(t);
	return trace;
}

static uint64_t stress(enum sched_policy pol, bf_time grace, unsigned seed, bool unbounded,
                       bool shapes)
{
	return stress_with(pol, grace, seed, unbounded, shapes, false, 0);
}

/* A [0,15) with grace 5 (killed at 10, gone at 15), B reserved at 15, C
 * at 30; the pass that starts B comes at `pass`. */
static void late_start(struct drv *d, bf_time pass)
{
	drv_init(d, SCHED_CONSERVATIVE, 2, S(5));
	submit(d, S(0), 1, 2, S(10));
	submit(d, S(1), 2, 2, S(10));
	submit(d, S(2), 3, 2, S(10));
	run(d, S(10));
	sched_end(d->s, S(15), 1, END_KILLED);
	run(d, pass);
}

/* A pass that comes late: the plan keeps what was acknowledged when the
 * grace absorbs the delay, says why when it cannot, and a restart from
 * what sched_job_info() gave rebuilds the very same plan. */
static void late_passes(void)
{
	struct drv d, e;
	struct sched_job_info info;

	/* A [0,15) with grace 5, B reserved at 15, C at 30: B is started by
	 * a pass 1.5 s late. */
	late_start(&d, S(16) + BF_SEC / 2);
	sched_job_info(d.s, 2, &info);
	ok(d.start[2] == S(16) + BF_SEC / 2 && info.hold_end == S(30) && guarantee(&d, 3) == S(30) &&
	   d.broken[3] == 0, "late start by less than the grace: B keeps the plan's end (%lld), C its "
	   "promise", (long long)info.hold_end);

	/* A restart rebuilds it: B with the hold end the plan gave it. */
	drv_init(&e, SCHED_CONSERVATIVE, 2, S(5));
	ok_eq(sched_restore_running(e.s, S(17), 2, S(1), S(10), info.start, info.hold_end,
	                            (uint32_t[]){ 0, 1 }, 2), SCHED_OK, "late start: B restored");
	sched_restore_queued(e.s, S(17), 3, S(2), 2, S(10), S(30));
	run(&e, S(17));
	ok(e.broken[3] == 0 && guarantee(&e, 3) == S(30),
	   "late start: after a restart C keeps its promise (%lld)", (long long)guarantee(&e, 3));
	sched_free(e.s);
	/* Restored as if it had started on time for its whole hold (what the
	 * restart did before), C would not fit: the break the review found. */
	drv_init(&e, SCHED_CONSERVATIVE, 2, S(5));
	sched_restore_running(e.s, S(17), 2, S(1), S(10), info.start, BF_NEVER,
	                      (uint32_t[]){ 0, 1 }, 2);
	sched_restore_queued(e.s, S(17), 3, S(2), 2, S(10), S(30));
	run(&e, S(17));
	ok(e.broken[3] == 1 && e.broken_why[3] == BROKEN_LATE,
	   "late start: a plan rebuilt without the hold end breaks C, and names the late pass");
	sched_free(e.s);
	ok_eq(d.checks_failed, 0, "late start: invariants held");
	sched_free(d.s);

	/* The same, but 7 s late: more than the grace. B gets its whole hold
	 * from its start, and C is moved and told why. */
	late_start(&d, S(22));
	ok(d.start[2] == S(22) && d.broken[3] == 1 && d.broken_t[3] == S(37) &&
	   d.broken_why[3] == BROKEN_LATE, "late start by more than the grace: C moves to 37 (%lld), "
	   "announced as a late pass (%d)", (long long)d.broken_t[3], d.broken_why[3]);
	ok_eq(d.checks_failed, 0, "late start beyond the grace: invariants held");
	sched_free(d.s);

	/* No pass from 9 to 13 (the daemon was suspended): A's whole hold
	 * ran out unsignalled. B's promise moves, and the cause is the late
	 * pass, not a killed job that will not die. */
	drv_init(&d, SCHED_CONSERVATIVE, 2, S(2));
	submit(&d, S(0), 1, 2, S(10));
	submit(&d, S(1), 2, 2, S(10));
	run(&d, S(9));
	run(&d, S(13));
	ok(d.kills[1] == 1 && d.broken[2] == 1 && d.broken_why[2] == BROKEN_LATE,
	   "a suspended driver: the late kill's delay is announced as a late pass (%d)",
	   d.broken_why[2]);
	sched_free(d.s);
}

int main(void)
{
	conservative_hole_and_compression();
	compression_is_not_replanning();
	easy_delays_second_not_first();
	mechanics();
	overrun_of_the_plan();
	node_failure();
	node_drain(SCHED_CONSERVATIVE);
	node_drain(SCHED_EASY);
	limits();
	top();
	settled_compression();
	compression_cost();
	alike_runs();
	per_end_compression();
	forecast_in_slices(SCHED_EASY);
	forecast_in_slices(SCHED_FCFS);
	sliced_settling(0);
	placing_in_slices();
	policy_switch_in_slices();
	sliced_settling(7);
	sliced_like_whole(7, 200);
	sliced_like_whole(50, 200);
	sliced_with_events();
	restart();
	late_passes();
	for (unsigned seed = 1; seed <= 3; seed++) {
		/* With no grace, jobs killed at their limit end exactly as
		 * planned (no compression): the next reservation falls due. */
		stress(SCHED_FCFS, S(3), seed, false, false);
		stress(SCHED_EASY, 0, seed, false, false);
		stress(SCHED_EASY, S(3), seed, false, false);
		/* CREASY with alpha 0 orders by waiting time: arrival order,
		 * and jobs put first before it, as EASY has them. */
		for (bf_time grace = 0; grace <= S(3); grace += S(3)) {
			uint64_t easy = stress(SCHED_EASY, grace, seed, false, false);

			ok(easy == stress(SCHED_CREASY, grace, seed, false, false),
			   "stress creasy, alpha 0, grace %llds: the same actions as EASY (starts, "
			   "kills, promises and broken ones, with bctl top among the events)",
			   (long long)(grace / BF_SEC));
			stress_alpha = 50;
			ok(easy != stress(SCHED_CREASY, grace, seed, false, false),
			   "stress creasy, alpha 50, grace %llds: another schedule than EASY's",
			   (long long)(grace / BF_SEC));
			stress_alpha = 1e6;	/* criticality decides the order */
			stress(SCHED_CREASY, grace, seed, false, false);
			stress_alpha = 0;
		}
		for (bf_time grace = 0; grace <= S(3); grace += S(3)) {
			for (int shapes = 0; shapes <= 1; shapes++) {
				uint64_t bounded = stress(SCHED_CONSERVATIVE, grace, seed, false, shapes);

				ok(bounded == stress(SCHED_CONSERVATIVE, grace, seed, true, shapes),
				   "stress conservative, grace %llds%s: bounded compression gives the "
				   "same starts and guarantees as searching every hole",
				   (long long)(grace / BF_SEC), shapes ? ", runs of equal jobs" : "");
				ok(bounded == stress_with(SCHED_CONSERVATIVE, grace, seed, false, shapes, true, 0),
				   "stress conservative, grace %llds%s: repairs by the sweep and bounded "
				   "places give the same starts and guarantees as the reference",
				   (long long)(grace / BF_SEC), shapes ? ", runs of equal jobs" : "");
				ok(bounded == stress_with(SCHED_CONSERVATIVE, grace, seed, false, shapes, false,
				                          1 + seed % 3),
				   "stress conservative, grace %llds%s: placing again %u a call gives the "
				   "same starts and guarantees as all at once",
				   (long long)(grace / BF_SEC), shapes ? ", runs of equal jobs" : "", 1 + seed % 3);
			}
		}
	}
	ok(stress_slices > 100, "stress conservative: %d passes placed a slice and left jobs "
	   "waiting for a place", stress_slices);
	return tap_done();
}
