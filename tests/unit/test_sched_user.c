/* The cap on running jobs per user (max_running_per_user): hand-built cases
 * per policy (a capped user's job waits while others go ahead, starts when
 * one of the user's jobs ends; conservative guarantees respect the cap and
 * are kept; EASY keeps the head's promise), live changes of the cap, a
 * restart, randomized stress with several users and caps, and no cap
 * behaving exactly as before. */
#include <stdlib.h>
#include <string.h>
#include "sched.h"
#include "tap.h"
#include "sched_driver.h"

static void drv_init(struct drv *d, enum sched_policy p, uint32_t nodes, uint32_t cap)
{
	drv_init_params(d, &(struct sched_params){ .policy = p, .nodes = nodes,
	                                           .max_running_per_user = cap });
}

static void submit(struct drv *d, bf_time t, uint64_t id, uint32_t user, uint32_t n, bf_time est)
{
	if (sched_submit_as(d->s, t, id, n, est, user) != SCHED_OK)
		abort();
	run(d, t);
}

static void end(struct drv *d, bf_time t, uint64_t id)
{
	if (sched_end(d->s, t, id, END_EXITED) != SCHED_OK)
		abort();
	run(d, t);
}

static void set_cap(struct drv *d, bf_time t, uint32_t cap)
{
	if (sched_set_user_cap(d->s, t, cap) != SCHED_OK)
		abort();
	drv_take(d, t);		/* announcements come with the change */
	run(d, t);
}

static int total_broken(const struct drv *d)
{
	int n = 0;

	for (int i = 0; i < MAXJ; i++)
		n += d->broken[i];
	return n;
}

/* Cap 1, 4 nodes: user 1's second job waits with nodes free, user 2's job
 * goes ahead, and the waiting job starts when user 1's first job ends. */
static void capped_waits(enum sched_policy p)
{
	const char *name = sched_policy_name(p);
	struct drv d;
	struct sched_job_info info;

	drv_init(&d, p, 4, 1);
	submit(&d, S(0), 1, 1, 1, S(100));
	submit(&d, S(1), 2, 1, 1, S(100));
	submit(&d, S(2), 3, 2, 1, S(100));
	ok(d.start[1] == S(0) && d.start[2] == -1 && d.start[3] == S(2),
	   "%s: cap 1: user 1's second job waits with 3 nodes free, user 2's goes ahead", name);
	ok(sched_job_info(d.s, 3, &info) == SCHED_OK && info.backfilled && info.user == 2,
	   "%s: the other user's job counts as backfilled past the capped one", name);
	if (p == SCHED_CONSERVATIVE)
		ok_eq(guarantee(&d, 2), S(100), "%s: the capped job is guaranteed the end of "
		      "its user's running job, not now", name);
	end(&d, S(50), 1);
	ok_eq(d.start[2], S(50), "%s: it starts when its user's first job ends", name);
	ok(total_broken(&d) == 0 && d.checks_failed == 0, "%s: nothing broken, invariants held", name);
	sched_free(d.s);
}

/* Conservative, cap 2: a user's third and fourth jobs are placed where the
 * user has fewer than 2 jobs planned, and each starts on its guarantee. */
static void conservative_plan(void)
{
	struct drv d;

	drv_init(&d, SCHED_CONSERVATIVE, 10, 2);
	submit(&d, S(0), 1, 7, 1, S(100));
	submit(&d, S(0), 2, 7, 1, S(200));
	submit(&d, S(1), 3, 7, 1, S(150));	/* [100, 250) */
	submit(&d, S(2), 4, 7, 1, S(50));	/* 1 and 3 end at 200 or later: [200, 250) */
	submit(&d, S(3), 5, 8, 1, S(50));
	ok(guarantee(&d, 3) == S(100) && guarantee(&d, 4) == S(200) && d.start[5] == S(3),
	   "conservative cap 2: guarantees 100 and 200 (%lld, %lld), another user starts at once",
	   (long long)guarantee(&d, 3), (long long)guarantee(&d, 4));
	sched_end(d.s, S(100), 1, END_KILLED);
	run(&d, S(100));
	ok_eq(d.start[3], S(100), "conservative cap 2: the third job starts on its guarantee");
	sched_end(d.s, S(200), 2, END_KILLED);
	run(&d, S(200));
	ok_eq(d.start[4], S(200), "conservative cap 2: the fourth job starts on its guarantee");
	ok(total_broken(&d) == 0 && d.checks_failed == 0,
	   "conservative cap 2: nothing broken, invariants held");
	sched_free(d.s);

	/* Compression moves a job earlier only where its user allows too:
	 * another user's early end frees nodes, not a place under the cap. */
	drv_init(&d, SCHED_CONSERVATIVE, 2, 1);
	submit(&d, S(0), 1, 1, 1, S(100));
	submit(&d, S(0), 2, 2, 1, S(300));
	submit(&d, S(1), 3, 1, 2, S(10));	/* both nodes: from 300 */
	submit(&d, S(2), 4, 1, 1, S(10));	/* cap 1 and node: [100, 110) */
	ok_eq(guarantee(&d, 4), S(100), "conservative cap 1: placed after its user's job");
	end(&d, S(20), 2);			/* user 2 ends early: 3 may move */
	ok(guarantee(&d, 3) == S(110) && guarantee(&d, 4) == S(100),
	   "conservative cap 1: compression moves the 2-node job to 110, after job 4 (%lld); "
	   "job 4 stays at 100 (%lld), though a node is free from 20", (long long)guarantee(&d, 3),
	   (long long)guarantee(&d, 4));
	ok(d.start[4] == -1 && d.checks_failed == 0, "conservative cap 1: it did not start at 20");
	sched_free(d.s);
}

/* Conservative, no grace: a job killed at its limit keeps running until the
 * driver reports its end; a job of its user due then waits for that, as
 * for nodes, and starts at the same instant once the end is reported. */
static void conservative_due_waits(void)
{
	struct drv d;

	drv_init(&d, SCHED_CONSERVATIVE, 4, 1);
	submit(&d, S(0), 1, 1, 1, S(10));
	submit(&d, S(1), 2, 1, 1, S(10));
	ok_eq(guarantee(&d, 2), S(10), "due: job 2 is guaranteed 10, after its user's job");
	run(&d, S(10));				/* job 1 signalled, still running */
	ok(d.start[2] == -1, "due: at 10, with nodes free, it waits for its user's job to end");
	end(&d, S(10), 1);
	ok(d.start[2] == S(10) && total_broken(&d) == 0 && d.checks_failed == 0,
	   "due: it starts at 10 when the end is reported, promise kept");
	sched_free(d.s);
}

/* Conservative, grace 5: a killed job that outlives its hold keeps its
 * user's place longer; the user's next reservation moves and is told. */
static void conservative_overrun(void)
{
	struct drv d;
	struct sched_params prm = { .policy = SCHED_CONSERVATIVE, .nodes = 4, .kill_grace = S(5),
	                            .max_running_per_user = 1 };

	drv_init_params(&d, &prm);
	submit(&d, S(0), 1, 1, 1, S(10));	/* holds to 15 */
	submit(&d, S(1), 2, 1, 1, S(10));	/* [15, 30) */
	ok_eq(guarantee(&d, 2), S(15), "overrun: the next job of the user is guaranteed 15");
	run(&d, S(10));				/* killed; will not die by 15 */
	run(&d, S(15));
	ok(d.broken[2] == 1 && d.broken_why[2] == BROKEN_OVERRUN && guarantee(&d, 2) > S(15) &&
	   d.start[2] == -1, "overrun: its user's place is still taken: moved to %lld, told as "
	   "an overrun", (long long)guarantee(&d, 2));
	end(&d, S(16), 1);
	ok(d.start[2] == S(16) && d.checks_failed == 0, "overrun: it starts when the job dies");
	sched_free(d.s);

	/* No grace, and the first pass after the limit comes late: the next
	 * job of the user was due at 11, and waits while the killed job's
	 * hold grows to now. The two overlap in the past only, which the
	 * invariant check must not count (it did). */
	drv_init(&d, SCHED_CONSERVATIVE, 8, 1);
	submit(&d, S(3), 1, 1, 3, S(8));	/* holds to 11 */
	submit(&d, S(9), 2, 1, 1, S(19));	/* [11, 30) */
	submit(&d, S(13), 3, 2, 1, S(40));	/* the first pass after 11 */
	ok(d.start[2] == -1 && d.start[3] == S(13) && d.checks_failed == 0,
	   "overrun, no grace, a late pass: the waiting job's past overlap is no fault (%s)",
	   d.checks_failed ? d.msg : "checks clean");
	end(&d, S(14), 1);
	ok(d.start[2] == S(14) && d.checks_failed == 0,
	   "overrun, no grace: it starts when the job dies");
	sched_free(d.s);
}

/* EASY: backfilling must not leave the head's own user at the cap at the
 * shadow time; other users' jobs backfill as usual. */
static void easy_head_user(void)
{
	struct drv d;

	for (uint32_t cap = 1; cap <= 2; cap++) {
		drv_init(&d, SCHED_EASY, 4, cap);
		submit(&d, S(0), 1, 2, 3, S(100));	/* user 2 holds 3 nodes to 100 */
		submit(&d, S(1), 2, 1, 2, S(50));	/* head (user 1): shadow 100 */
		submit(&d, S(2), 3, 1, 1, S(500));	/* user 1, long: in the extra node */
		ok_eq(guarantee(&d, 2), S(100), "easy cap %u: the head is promised 100", cap);
		if (cap == 1)
			ok(d.start[3] == -1, "easy cap 1: the head's user's long job does not "
			   "backfill (it would leave the head capped at its shadow)");
		else
			ok(d.start[3] == S(2), "easy cap 2: with room under the cap it backfills");
		sched_end(d.s, S(100), 1, END_KILLED);
		run(&d, S(100));
		ok(d.start[2] == S(100) && total_broken(&d) == 0 && d.checks_failed == 0,
		   "easy cap %u: the head starts on its promise, nothing broken", cap);
		sched_free(d.s);
	}

	/* A short job of the head's user (ends by the shadow) may backfill,
	 * and another user's long job too. */
	drv_init(&d, SCHED_EASY, 5, 1);
	submit(&d, S(0), 1, 2, 3, S(100));
	submit(&d, S(1), 2, 1, 3, S(50));	/* head, shadow 100, extra 2 */
	submit(&d, S(2), 3, 1, 1, S(90));	/* ends at 92 <= 100 */
	submit(&d, S(3), 4, 3, 1, S(500));	/* another user, in the extra nodes */
	ok(d.start[3] == S(2) && d.start[4] == S(3),
	   "easy cap 1: a short job of the head's user and another user's long job backfill");
	sched_end(d.s, S(92), 3, END_KILLED);
	sched_end(d.s, S(100), 1, END_KILLED);
	run(&d, S(100));
	ok(d.start[2] == S(100) && d.checks_failed == 0, "easy cap 1: the head starts at 100");
	sched_free(d.s);
}

/* EASY and FCFS: the head keeps its promise when a job before it becomes
 * eligible again (its user's job ended). */
static void sticky_head(enum sched_policy p)
{
	const char *name = sched_policy_name(p);
	struct drv d;

	drv_init(&d, p, 3, 1);
	submit(&d, S(0), 1, 3, 1, S(100));	/* user 3 holds a node to 100 */
	submit(&d, S(0), 2, 1, 1, S(100));	/* user 1 runs */
	submit(&d, S(1), 3, 1, 1, S(300));	/* user 1: capped */
	submit(&d, S(2), 4, 2, 3, S(10));	/* user 2: head, shadow 100 */
	ok_eq(guarantee(&d, 4), S(100), "%s: the first eligible job is the head, promised 100", name);
	end(&d, S(50), 2);			/* job 3 is eligible, before the head */
	ok(d.start[3] == -1 && guarantee(&d, 4) == S(100) && d.broken[4] == 0,
	   "%s: the job that became eligible does not take the head's promise or nodes", name);
	sched_end(d.s, S(100), 1, END_KILLED);
	run(&d, S(100));
	ok(d.start[4] == S(100) && total_broken(&d) == 0, "%s: the head starts on its promise", name);
	end(&d, S(110), 4);
	ok(d.start[3] == S(110) && d.checks_failed == 0, "%s: then the other job starts", name);
	sched_free(d.s);
}

/* Live changes: lower the cap (announced with BROKEN_USER_CAP exactly for
 * the jobs that move later), raise it again (only earlier, nobody told). */
static void live_changes(void)
{
	struct drv d;
	bf_time was4, was5;

	drv_init(&d, SCHED_CONSERVATIVE, 4, 0);
	submit(&d, S(0), 1, 1, 1, S(100));
	submit(&d, S(0), 2, 1, 1, S(200));
	submit(&d, S(0), 3, 2, 2, S(300));
	submit(&d, S(1), 4, 1, 1, S(50));	/* [100, 150) */
	submit(&d, S(2), 5, 3, 1, S(50));	/* [150, 200) */
	was4 = guarantee(&d, 4);
	was5 = guarantee(&d, 5);
	ok(was4 == S(100) && was5 == S(150), "live: no cap, guarantees 100 and 150");
	set_cap(&d, S(10), 1);
	ok(d.broken[4] == 1 && d.broken_why[4] == BROKEN_USER_CAP && d.broken_t[4] == S(200) &&
	   guarantee(&d, 4) == S(200), "live: cap 1: user 1's job moves to 200 (its user runs 2 "
	   "until then), announced with BROKEN_USER_CAP (%d, %lld)", d.broken_why[4],
	   (long long)d.broken_t[4]);
	ok(d.broken[5] == 0 && guarantee(&d, 5) <= was5,
	   "live: the other user's job is not announced and moves no later (%lld)",
	   (long long)guarantee(&d, 5));
	ok(d.start[1] == S(0) && d.start[2] == S(0) && sched_running_len(d.s) == 3,
	   "live: the running jobs above the new cap keep running");
	was4 = guarantee(&d, 4);
	set_cap(&d, S(20), 2);
	ok(total_broken(&d) == 1 && guarantee(&d, 4) < was4,
	   "live: cap 2: compression moves it earlier (%lld), nobody is told",
	   (long long)guarantee(&d, 4));
	set_cap(&d, S(30), 0);
	ok(total_broken(&d) == 1 && d.checks_failed == 0, "live: cap lifted: nothing announced, "
	   "invariants held");
	sched_free(d.s);

	/* EASY: a head whose user has no place under the lowered cap at its
	 * shadow keeps the head, its promise moved to when it has one. */
	drv_init(&d, SCHED_EASY, 3, 0);
	submit(&d, S(0), 1, 1, 1, S(300));	/* user 1 until 300 */
	submit(&d, S(0), 2, 2, 2, S(100));	/* user 2: 2 nodes until 100 */
	submit(&d, S(1), 3, 1, 2, S(10));	/* head: shadow 100 */
	submit(&d, S(2), 4, 2, 1, S(10));
	ok_eq(guarantee(&d, 3), S(100), "live easy: the head is promised 100");
	set_cap(&d, S(5), 1);
	ok(d.broken[3] == 1 && d.broken_why[3] == BROKEN_USER_CAP && d.broken_t[3] == S(300) &&
	   guarantee(&d, 3) == S(300), "live easy: cap 1: its user runs a job to 300: the promise "
	   "moves to 300, announced with BROKEN_USER_CAP (%lld)", (long long)d.broken_t[3]);
	end(&d, S(100), 2);
	ok(d.start[3] == -1 && d.start[4] == S(100),
	   "live easy: at 100 the head's nodes are free but its user is at the cap: another "
	   "user's job backfills");
	end(&d, S(110), 4);
	set_cap(&d, S(120), 2);
	ok(d.start[3] == S(120) && total_broken(&d) == 1 && d.checks_failed == 0,
	   "live easy: cap 2: the head starts at once, nothing more announced");
	sched_free(d.s);
}

/* A restart with a cap: running jobs above it are adopted; a promise that
 * fits the nodes but no longer the cap is placed again and announced. */
static void restart(void)
{
	struct drv d;

	drv_init(&d, SCHED_CONSERVATIVE, 4, 1);
	ok_eq(sched_restore_running_as(d.s, S(10), 1, 0, S(100), 0, BF_NEVER,
	                               (uint32_t[]){ 0 }, 1, 5), SCHED_OK, "restart: user 5's job");
	ok_eq(sched_restore_running_as(d.s, S(10), 2, 0, S(200), 0, BF_NEVER,
	                               (uint32_t[]){ 1 }, 1, 5), SCHED_OK,
	      "restart: its second job, above cap 1, is adopted");
	ok_eq(sched_restore_queued_as(d.s, S(10), 3, S(1), 1, S(50), S(20), 5), SCHED_OK,
	      "restart: a queued job promised 20 (the cap was higher)");
	ok_eq(sched_restore_queued_as(d.s, S(10), 4, S(2), 1, S(50), S(20), 6), SCHED_OK,
	      "restart: another user's job promised 20");
	run(&d, S(10));
	ok(d.broken[3] == 1 && d.broken_why[3] == BROKEN_USER_CAP && guarantee(&d, 3) == S(200),
	   "restart: the capped promise moves to 200, announced with BROKEN_USER_CAP (%d)",
	   d.broken_why[3]);
	run(&d, S(20));
	ok(d.broken[4] == 0 && d.start[4] == S(20) && d.checks_failed == 0,
	   "restart: the other user's job keeps its promise and starts on it (no room was "
	   "reported freed: sched_restore_freed)");
	sched_free(d.s);
}

/* ---- randomized stress ---- */

enum { SN = 16, SJ = 300, SU = 4 };

struct stress {
	struct sched *s;
	enum sched_policy pol;
	uint32_t cap;
	bf_time grace;
	unsigned rng;
	bf_time est[SJ], run_for[SJ], promised[SJ], end_at[SJ];
	uint32_t user[SJ];
	int state[SJ];		/* 0 unborn, 1 queued, 2 running, 3 gone */
	uint32_t running[SU];
	int over_cap, later, late_start, bad_cause, raise_told, raise_later, lower_told, other_told;
	int creasy_told;
	uint64_t trace;
};

static void stress_take(struct stress *t, bf_time now, int change)
{
	size_t na;
	const struct sched_action *a = sched_actions(t->s, &na);

	for (size_t k = 0; k < na; k++) {
		uint64_t id = a[k].job;

		t->trace = (t->trace ^ (uint64_t)a[k].kind ^ (id << 8) ^ ((uint64_t)now << 24)) *
		           0x100000001b3ULL;
		if (a[k].kind == SA_START) {
			t->state[id] = 2;
			if (t->cap && t->running[t->user[id]] >= t->cap)
				t->over_cap++;
			t->running[t->user[id]]++;
			/* one that would run past its estimate ends when killed */
			t->end_at[id] = t->run_for[id] < t->est[id] ? now + t->run_for[id] : BF_NEVER;
			if (!t->grace && t->end_at[id] == BF_NEVER)
				t->end_at[id] = now + t->est[id];
			if (t->pol == SCHED_CONSERVATIVE && t->promised[id] != BF_NEVER &&
			    now > t->promised[id])
				t->late_start++;
		} else if (a[k].kind == SA_KILL) {
			/* With a grace, one in three takes up to the grace +
			 * 20 s to die: past its hold at times. */
			t->rng = t->rng * 1103515245u + 12345u;
			if (t->grace && (t->rng >> 8) % 3 == 0)
				t->end_at[id] = now + (t->grace + S(20)) / 1000 *
				                (bf_time)((t->rng >> 10) % 1000);
		} else if (a[k].kind == SA_BROKEN) {
			if (change == 2 || a[k].why == BROKEN_PRIORITY) {
				/* a change of policy, or CREASY's head passed */
				t->promised[id] = a[k].t;
				continue;
			}
			if (change > 0)
				t->raise_told++;
			if (change == 0 && !t->grace && t->pol == SCHED_CREASY &&
			    a[k].why == BROKEN_USER_CAP)
				t->creasy_told++;	/* the head's user was at the cap */
			else if (change == 0 && !t->grace)
				t->other_told++;
			if (change < 0) {
				t->lower_told++;
				if (a[k].why != BROKEN_USER_CAP ||
				    (t->promised[id] != BF_NEVER && a[k].t <= t->promised[id]))
					t->bad_cause++;
			}
			t->promised[id] = a[k].t;
		}
	}
	sched_clear_actions(t->s);
}

/* Every queued job's promise: never later than the last one known unless
 * announced (then promised[] was updated by stress_take). */
static void stress_promises(struct stress *t, uint64_t next, int change)
{
	for (uint64_t i = 0; i < next; i++) {
		struct sched_job_info info;

		if (t->state[i] != 1 || sched_job_info(t->s, i, &info) != SCHED_OK)
			continue;
		if (info.guarantee > t->promised[i] && t->promised[i] != BF_NEVER) {
			t->later++;
			if (change > 0)
				t->raise_later++;
		}
		t->promised[i] = info.guarantee;
		t->trace = (t->trace ^ (uint64_t)info.guarantee) * 0x100000001b3ULL;
	}
}

struct cfg {
	enum sched_policy pol;
	uint32_t cap;		/* at the start; 0 is no cap */
	bool live;		/* the cap changes (0 .. 3) */
	bool switching;		/* the policy changes too */
	double alpha;		/* CREASY's */
	bool users;		/* SU users, else every job is user 0's */
	bool unbounded;		/* compress_unbounded */
	bool report;		/* tests, else only the hash */
	bf_time grace;
	unsigned seed;
};

/* A workload over SU users. Returns a hash of every action and guarantee,
 * to compare runs. */
static uint64_t stress(struct cfg c)
{
	enum sched_policy pol = c.pol;
	uint32_t cap = c.cap;
	bool live = c.live, report = c.report;
	bf_time grace = c.grace;
	unsigned seed = c.seed;
	struct sched_params prm = { .policy = pol, .nodes = SN, .max_running_per_user = cap,
	                            .compress_unbounded = c.unbounded, .kill_grace = grace,
	                            .alpha = c.alpha };
	struct stress *t = calloc(1, sizeof *t);
	char msg[300];
	int bad_check = 0, changes = 0;
	bf_time now = 0;
	uint64_t next = 0, trace;
	const char *name = sched_policy_name(pol);

	t->pol = pol;
	t->cap = cap;
	t->grace = grace;
	t->rng = seed;
	if (sched_new(&t->s, &prm) != SCHED_OK)
		abort();
	for (int i = 0; i < SJ; i++) {
		seed = seed * 1103515245 + 12345;
		t->est[i] = S(1 + (seed >> 8) % 300);
		seed = seed * 1103515245 + 12345;
		t->run_for[i] = (seed >> 8) % 4 == 0 ? t->est[i] : (bf_time)((seed >> 8) % (uint64_t)t->est[i]);
		t->user[i] = c.users ? (seed >> 20) % SU : 0;
		t->promised[i] = BF_NEVER;
		t->end_at[i] = BF_NEVER;
	}
	for (int events = 0; events < 2500; events++) {
		int r, change = 0;
		bf_time ext;

		seed = seed * 1103515245 + 12345;
		r = (int)((seed >> 8) % 100);
		ext = now + S((seed >> 16) % 7);
		for (;;) {	/* ends and wake-ups before the next outside event */
			bf_time w = sched_next_wakeup(t->s);

			for (int i = 0; i < SJ; i++)
				if (t->state[i] == 2 && t->end_at[i] < w)
					w = t->end_at[i];
			if (w > ext)
				break;
			now = w;
			for (int i = 0; i < SJ; i++) {
				if (t->state[i] == 2 && t->end_at[i] <= now) {
					sched_end(t->s, now, (uint64_t)i, END_EXITED);
					t->state[i] = 3;
					t->running[t->user[i]]--;
				}
			}
			sched_run(t->s, now);
			stress_take(t, now, 0);
			stress_promises(t, next, 0);
		}
		now = ext;
		if (r < 50 && next < SJ) {
			sched_submit_as(t->s, now, next, 1 + (uint32_t)((seed >> 12) % (SN / 2)),
			                t->est[next], t->user[next]);
			t->state[next++] = 1;
		} else if (r < 55 && next > 0) {
			uint64_t v = (seed >> 12) % next;

			if (t->state[v] == 1 && sched_cancel(t->s, now, v) == SCHED_OK)
				t->state[v] = 3;
		} else if (r < 58 && live) {
			uint32_t nc = (seed >> 12) % 4;	/* 0 (none) .. 3 */

			change = t->cap == 0 ? (nc ? -1 : 0) :
			         nc == 0 || nc > t->cap ? 1 : nc < t->cap ? -1 : 0;
			if (sched_set_user_cap(t->s, now, nc) != SCHED_OK)
				abort();
			t->cap = nc;
			changes += change != 0;
			stress_take(t, now, change);
			stress_promises(t, next, change);
		} else if (r < 60 && c.switching) {
			enum sched_policy p = (enum sched_policy)((seed >> 12) % 4);

			if (sched_set_policy(t->s, now, p) != SCHED_OK)
				abort();
			t->pol = p;
			stress_take(t, now, 2);
			stress_promises(t, next, 2);
		}
		sched_run(t->s, now);
		stress_take(t, now, 0);
		stress_promises(t, next, 0);
		if (sched_check(t->s, now, msg, sizeof msg) != 0 && !bad_check++)
			printf("# %s cap %u: %s\n", name, t->cap, msg);
	}
	if (report) {
		ok_eq(bad_check, 0, "stress %s cap %u%s, grace %llds: sched_check after every call",
		      name, cap, c.switching ? " (live cap and policy changes)" : live ?
		      " (live changes)" : "", (long long)(grace / BF_SEC));
		ok_eq(t->over_cap, 0, "stress %s cap %u: no start took a user past the cap", name, cap);
		ok_eq(t->later, 0, "stress %s cap %u: no promise moved later unannounced", name, cap);
		if (!grace && !c.switching)
			ok_eq(t->other_told, 0, "stress %s cap %u: no announcement but for a lower "
			      "cap (jobs end by their estimates, no node fails)", name, cap);
		if (pol == SCHED_CONSERVATIVE || c.switching)
			ok_eq(t->late_start, 0, "stress %s cap %u: no job started after its "
			      "conservative guarantee", name, cap);
		if (live && !c.switching) {
			ok(t->raise_told == 0 && t->raise_later == 0, "stress %s: %d raises of the cap: "
			   "no announcement, no promise later", name, changes);
			ok_eq(t->bad_cause, 0, "stress %s: the %d announcements at a lower cap are "
			      "BROKEN_USER_CAP, each for a promise that moved later", name, t->lower_told);
		}
	}
	trace = t->trace;
	sched_free(t->s);
	free(t);
	return trace;
}

/* No cap: the same starts and guarantees whoever the users are, and a cap
 * that never binds (more than the jobs there are) changes nothing either:
 * the capped paths take the same decisions as the plain ones. */
static void no_cap_is_unchanged(enum sched_policy p, unsigned seed)
{
	struct cfg c = { .pol = p, .grace = S(3), .seed = seed };
	uint64_t plain = stress(c);

	c.users = true;
	ok(plain == stress(c), "%s: no cap: jobs of several users run exactly as jobs of one",
	   sched_policy_name(p));
	c.cap = SJ + 1;
	ok(plain == stress(c),
	   "%s: a cap that never binds schedules exactly as no cap", sched_policy_name(p));
}

int main(void)
{
	static const enum sched_policy pols[] = { SCHED_FCFS, SCHED_EASY, SCHED_CONSERVATIVE,
	                                          SCHED_CREASY };

	for (int k = 0; k < 3; k++)
		capped_waits(pols[k]);
	conservative_plan();
	conservative_due_waits();
	conservative_overrun();
	easy_head_user();
	sticky_head(SCHED_EASY);
	sticky_head(SCHED_FCFS);
	live_changes();
	restart();
	for (unsigned seed = 1; seed <= 2; seed++) {
		for (int k = 0; k < 4; k++) {
			struct cfg c = { .pol = pols[k], .users = true, .report = true, .seed = seed,
			                 .alpha = 20 };

			for (c.cap = 1; c.cap <= 3; c.cap += 2)
				stress(c);
			c.cap = 2;
			c.live = true;
			stress(c);
			c.grace = S(3);
			stress(c);
			c.switching = true;
			stress(c);
			no_cap_is_unchanged(pols[k], seed);
		}
		struct cfg b = { .pol = SCHED_CONSERVATIVE, .cap = 2, .live = true, .users = true,
		                 .grace = S(3), .seed = seed }, u = b;

		u.unbounded = true;
		ok(stress(b) == stress(u),
		   "conservative with caps: bounded compression gives the same schedule as searching "
		   "every hole");
	}
	return tap_done();
}
