/* Reload of a live scheduler: sched_set_policy between every pair of
 * policies and sched_add_nodes, on hand-built scenarios (which promises are
 * kept, which are announced broken, and why) and on random workloads
 * (invariants after every call, no promise moved later unannounced, and a
 * switched scheduler going on exactly as one built with the new policy). */
#include <stdlib.h>
#include <string.h>
#include "sched.h"
#include "tap.h"
#include "sched_driver.h"

static void drv_init(struct drv *d, enum sched_policy p, uint32_t nodes, bf_time grace)
{
	drv_init_params(d, &(struct sched_params){ .policy = p, .nodes = nodes, .kill_grace = grace });
}

static void submit(struct drv *d, bf_time t, uint64_t id, uint32_t n, bf_time est)
{
	if (sched_submit(d->s, t, id, n, est) != SCHED_OK)
		abort();
	run(d, t);
}

static void end(struct drv *d, bf_time t, uint64_t id)
{
	sched_end(d->s, t, id, END_EXITED);
	run(d, t);
}

/* The switch alone, no pass: what it announces is in d->broken*. */
static int setpol(struct drv *d, bf_time t, enum sched_policy p)
{
	int rc = sched_set_policy(d->s, t, p);

	drv_take(d, t);
	return rc;
}

static struct sched_job_info info_of(struct drv *d, uint64_t id)
{
	struct sched_job_info info = { .guarantee = -2, .first_guarantee = -2 };

	sched_job_info(d->s, id, &info);
	return info;
}

/* Conservative, 10 nodes: A (6, running to 100), B (8) reserved at 100,
 * C (4) backfilled at 0, D (10) at 200, E (2) at 100 beside B. Leaving
 * conservative, B (the head) keeps 100 as its shadow; D and E lose their
 * guarantees and are told. Afterwards the new policy decides: EASY
 * backfills E at 100, FCFS makes it wait for D. */
static void from_conservative(enum sched_policy to)
{
	const char *name = sched_policy_name(to);
	struct drv d;
	const struct sched_stats *st;

	drv_init(&d, SCHED_CONSERVATIVE, 10, 0);
	submit(&d, S(0), 1, 6, S(100));
	submit(&d, S(0), 2, 8, S(100));
	submit(&d, S(0), 3, 4, S(100));
	submit(&d, S(1), 4, 10, S(10));
	submit(&d, S(2), 5, 2, S(50));
	ok(d.start[3] == 0 && guarantee(&d, 2) == S(100) && guarantee(&d, 4) == S(200) &&
	   guarantee(&d, 5) == S(100), "cons -> %s: set up (C runs; B 100, D 200, E 100)", name);
	ok_eq(setpol(&d, S(10), to), SCHED_OK, "cons -> %s: switched", name);
	ok_eq(sched_get_params(d.s)->policy, to, "cons -> %s: the parameters say so", name);
	ok(d.broken[4] == 1 && d.broken_t[4] == BF_NEVER && d.broken_why[4] == BROKEN_POLICY &&
	   d.broken[5] == 1 && d.broken_t[5] == BF_NEVER && d.broken_why[5] == BROKEN_POLICY,
	   "cons -> %s: D and E are told they lost their guarantee (t never, policy)", name);
	ok(d.broken[2] == 0 && guarantee(&d, 2) == S(100) && info_of(&d, 2).first_guarantee == S(100),
	   "cons -> %s: the head B keeps 100, untold", name);
	ok(guarantee(&d, 4) == BF_NEVER && guarantee(&d, 5) == BF_NEVER &&
	   info_of(&d, 4).first_guarantee == BF_NEVER && info_of(&d, 5).first_guarantee == BF_NEVER,
	   "cons -> %s: D and E have no guarantee left", name);
	ok_eq(d.nacts, 2, "cons -> %s: two announcements, nothing else", name);
	st = sched_get_stats(d.s);
	ok(st->broken == 2 && st->replans == 2, "cons -> %s: counted (broken %llu, replans %llu)",
	   name, (unsigned long long)st->broken, (unsigned long long)st->replans);
	ok_eq(sched_next_wakeup(d.s), S(10), "cons -> %s: the core wants a pass now", name);
	run(&d, S(10));
	ok(d.start[2] < 0 && d.start[5] < 0, "cons -> %s: nobody starts at 10", name);
	sched_end(d.s, S(100), 1, END_EXITED);
	end(&d, S(100), 3);
	ok_eq(d.start[2], S(100), "cons -> %s: B starts at its promise", name);
	ok_eq(guarantee(&d, 4), S(200), "cons -> %s: D, the new head, is promised 200", name);
	if (to == SCHED_EASY) {
		ok_eq(d.start[5], S(100), "cons -> easy: E is backfilled at 100 (ends by D's shadow)");
	} else {
		ok_eq(d.start[5], -1, "cons -> fcfs: E waits behind D");
		end(&d, S(200), 2);
		end(&d, S(205), 4);
		ok(d.start[4] == S(200) && d.start[5] == S(205), "cons -> fcfs: D at 200, then E");
	}
	ok_eq(d.checks_failed, 0, "cons -> %s: invariants held", name);
	sched_free(d.s);
}

/* EASY or FCFS, 10 nodes: A (6, to 100), B (8) the head with shadow 100,
 * C (4, 1000 s), D (2, 50 s), E (1, 1000 s). EASY backfills D and E; FCFS
 * starts neither. Becoming conservative, B keeps 100 and everybody else
 * gets the place an arrival now in queue order would get. */
static void to_conservative(enum sched_policy from)
{
	const char *name = sched_policy_name(from);
	struct drv d;

	drv_init(&d, from, 10, 0);
	submit(&d, S(0), 1, 6, S(100));
	submit(&d, S(0), 2, 8, S(100));
	submit(&d, S(0), 3, 4, S(1000));
	submit(&d, S(0), 4, 2, S(50));
	submit(&d, S(0), 5, 1, S(1000));
	ok(guarantee(&d, 2) == S(100) && guarantee(&d, 3) == BF_NEVER &&
	   info_of(&d, 3).first_guarantee == BF_NEVER, "%s -> cons: set up (B's shadow 100, C none)",
	   name);
	ok(from == SCHED_EASY ? d.start[4] == 0 && d.start[5] == 0 : d.start[4] < 0 && d.start[5] < 0,
	   "%s -> cons: D and E %s", name, from == SCHED_EASY ? "backfilled" : "wait");
	ok_eq(setpol(&d, S(10), SCHED_CONSERVATIVE), SCHED_OK, "%s -> cons: switched", name);
	ok_eq(d.nacts, 0, "%s -> cons: no promise broken, nothing announced", name);
	ok_eq(guarantee(&d, 2), S(100), "%s -> cons: B keeps 100", name);
	ok(guarantee(&d, 3) == S(200) && info_of(&d, 3).first_guarantee == S(200),
	   "%s -> cons: C is guaranteed 200, after B, its first guarantee", name);
	if (from == SCHED_FCFS) {
		/* D fits [10,60) beside A, E [10,1010) beside everyone. */
		ok(guarantee(&d, 4) == S(10) && guarantee(&d, 5) == S(10),
		   "fcfs -> cons: D and E are guaranteed now");
		ok_eq(sched_get_stats(d.s)->replans, 3, "fcfs -> cons: three guarantees changed");
		run(&d, S(10));
		ok(d.start[4] == S(10) && d.start[5] == S(10), "fcfs -> cons: and start at the pass");
		end(&d, S(60), 4);
		sched_end(d.s, S(100), 5, END_EXITED);
	} else {
		ok_eq(sched_get_stats(d.s)->replans, 1, "easy -> cons: one guarantee changed");
		run(&d, S(10));
		end(&d, S(50), 4);
	}
	end(&d, S(100), 1);
	ok_eq(d.start[2], S(100), "%s -> cons: B starts at 100", name);
	end(&d, S(150), 2);
	ok_eq(d.start[3], S(150), "%s -> cons: B ends early, C compressed to 150", name);
	ok_eq(d.checks_failed, 0, "%s -> cons: invariants held", name);
	sched_free(d.s);
}

/* Between EASY and FCFS the head's promise is the same shadow time: a
 * switch says nothing, and the next pass backfills, or not. */
static void easy_fcfs(void)
{
	struct drv d;

	drv_init(&d, SCHED_FCFS, 12, 0);
	submit(&d, S(0), 1, 8, S(100));
	submit(&d, S(0), 2, 6, S(100));
	submit(&d, S(1), 3, 2, S(10));
	ok(d.start[3] < 0 && guarantee(&d, 2) == S(100), "fcfs: C waits behind B (shadow 100)");
	ok_eq(setpol(&d, S(5), SCHED_EASY), SCHED_OK, "fcfs -> easy: switched");
	ok(d.nacts == 0 && guarantee(&d, 2) == S(100) && sched_get_stats(d.s)->replans == 0,
	   "fcfs -> easy: nothing announced, B keeps 100");
	run(&d, S(5));
	ok_eq(d.start[3], S(5), "fcfs -> easy: the next pass backfills C");
	ok_eq(setpol(&d, S(6), SCHED_FCFS), SCHED_OK, "easy -> fcfs: switched");
	ok(d.nacts == 0 && guarantee(&d, 2) == S(100), "easy -> fcfs: nothing announced");
	submit(&d, S(6), 4, 2, S(10));
	ok_eq(d.start[4], -1, "easy -> fcfs: a job that EASY would backfill waits");
	ok_eq(setpol(&d, S(6), SCHED_FCFS), SCHED_OK, "same policy: accepted");
	ok(d.nacts == 0 && sched_get_stats(d.s)->replans == 0, "same policy: nothing changes");
	ok_eq(sched_set_policy(d.s, S(6), (enum sched_policy)7), SCHED_E_INVAL, "unknown policy refused");
	ok_eq(sched_set_policy(d.s, S(5), SCHED_EASY), SCHED_E_TIME, "time going back refused");
	ok_eq(sched_get_params(d.s)->policy, SCHED_FCFS, "refused switches change nothing");
	ok_eq(d.checks_failed, 0, "easy <-> fcfs: invariants held");
	sched_free(d.s);
}

/* A promise the plan moved since the last pass (here a job cancelled
 * after its whole hold passed unsignalled: it keeps its nodes for the
 * grace from now) is announced at the switch, with that cause. */
static void moved_before_the_switch(enum sched_policy from, enum sched_policy to)
{
	struct drv d;

	drv_init(&d, from, 4, S(2));
	submit(&d, S(0), 1, 4, S(10));
	submit(&d, S(0), 2, 4, S(5));
	run(&d, S(9));
	ok_eq(guarantee(&d, 2), S(12), "%s -> %s: B promised the end of A's hold, 12",
	      sched_policy_name(from), sched_policy_name(to));
	ok_eq(sched_cancel(d.s, S(13), 1), 1, "%s -> %s: A cancelled at 13, past its hold",
	      sched_policy_name(from), sched_policy_name(to));
	setpol(&d, S(13), to);
	ok(d.broken[2] == 1 && d.broken_t[2] == S(15) && d.broken_why[2] == BROKEN_LATE &&
	   guarantee(&d, 2) == S(15) && info_of(&d, 2).first_guarantee == S(15),
	   "%s -> %s: B told at the switch: 15, because of the late pass (%d)",
	   sched_policy_name(from), sched_policy_name(to), d.broken_why[2]);
	run(&d, S(13));
	ok_eq(d.broken[2], 1, "%s -> %s: and told once", sched_policy_name(from), sched_policy_name(to));
	end(&d, S(14), 1);
	ok_eq(d.start[2], S(14), "%s -> %s: B starts when A dies", sched_policy_name(from),
	      sched_policy_name(to));
	ok_eq(d.checks_failed, 0, "%s -> %s: invariants held", sched_policy_name(from),
	      sched_policy_name(to));
	sched_free(d.s);
}

/* EASY, no grace: A (all 4 nodes) is signalled at its limit, 10, and the
 * head B, promised 10, waits for it to die. A switch a microsecond later
 * places B at once: a promise that passed is kept by a place now, not
 * announced. The pass then finds A overdue, and that is announced. */
static void passed_promise(void)
{
	struct drv d;

	drv_init(&d, SCHED_EASY, 4, 0);
	submit(&d, S(0), 1, 4, S(10));
	submit(&d, S(0), 2, 4, S(5));
	run(&d, S(10));
	ok(d.start[2] < 0 && guarantee(&d, 2) == S(10), "passed: B, promised 10, waits for A");
	setpol(&d, S(10) + 1, SCHED_CONSERVATIVE);
	ok(d.broken[2] == 0 && guarantee(&d, 2) == S(10) + 1 &&
	   info_of(&d, 2).first_guarantee == S(10) + 1,
	   "passed: placed at the switch's instant, untold, its promise from now on");
	run(&d, S(10) + 1);
	ok(d.broken[2] == 1 && d.broken_why[2] == BROKEN_OVERRUN,
	   "passed: A still holds its nodes at the pass: told, as an overrun");
	end(&d, S(10) + 2, 1);
	ok_eq(d.start[2], S(10) + 2, "passed: B starts when A dies");
	ok_eq(d.checks_failed, 0, "passed: invariants held");
	sched_free(d.s);
}

static void add_nodes(void)
{
	struct drv d;
	uint32_t nodes[8];

	/* conservative: a job too wide, then one that moves up */
	drv_init(&d, SCHED_CONSERVATIVE, 4, 0);
	submit(&d, S(0), 1, 2, S(100));
	submit(&d, S(0), 2, 2, S(1000));
	submit(&d, S(0), 3, 2, S(10));
	ok_eq(guarantee(&d, 3), S(100), "add: C waits for A's end at 100");
	ok_eq(sched_submit(d.s, S(1), 4, 6, S(10)), SCHED_E_TOOBIG, "add: 6 nodes of 4: too big");
	ok_eq(sched_add_nodes(d.s, S(5), 0), SCHED_OK, "add 0: accepted");
	ok(sched_get_params(d.s)->nodes == 4 && sched_next_wakeup(d.s) > S(5), "add 0: nothing changes");
	ok_eq(sched_add_nodes(d.s, S(5), SCHED_MAX_NODES), SCHED_E_INVAL, "add: past the limit refused");
	ok_eq(sched_get_params(d.s)->nodes, 4, "add: and changes nothing");
	ok_eq(sched_add_nodes(d.s, S(5), 2), SCHED_OK, "add: 2 nodes at 5");
	ok_eq(sched_get_params(d.s)->nodes, 6, "add: the partition has 6 nodes");
	run(&d, S(5));
	ok_eq(d.start[3], S(5), "add: C moves up from 100 and starts at once");
	ok(sched_job_nodes(d.s, 3, nodes, 8) == 2 && nodes[0] == 4 && nodes[1] == 5,
	   "add: on the new nodes 4 and 5");
	submit(&d, S(6), 4, 6, S(10));
	ok_eq(guarantee(&d, 4), S(1000), "add: a 6-node job is accepted now, guaranteed at 1000");
	ok_eq(sched_node_down(d.s, S(7), 5), SCHED_OK, "add: a new node can go down");
	drv_take(&d, S(7));
	ok(d.broken[4] == 1 && d.broken_t[4] == BF_NEVER, "add: then the 6-node job cannot be placed");
	ok_eq(sched_node_down(d.s, S(7), 6), SCHED_E_INVAL, "add: node 6 does not exist");
	ok_eq(sched_node_up(d.s, S(8), 5), SCHED_OK, "add: node 5 back");
	run(&d, S(8));
	ok_eq(guarantee(&d, 4), S(1000), "add: and the 6-node job placed again");
	ok_eq(d.checks_failed, 0, "add conservative: invariants held");
	sched_free(d.s);

	/* EASY: the head fits at the next pass */
	drv_init(&d, SCHED_EASY, 4, 0);
	submit(&d, S(0), 1, 4, S(100));
	submit(&d, S(0), 2, 2, S(10));
	ok_eq(sched_add_nodes(d.s, S(3), 2), SCHED_OK, "add EASY: 2 nodes at 3");
	ok_eq(sched_free_nodes(d.s), 2, "add EASY: 2 free");
	ok_eq(sched_next_wakeup(d.s), S(3), "add EASY: the core wants a pass now");
	run(&d, S(3));
	ok_eq(d.start[2], S(3), "add EASY: the head starts on them");
	ok_eq(d.checks_failed, 0, "add EASY: invariants held");
	sched_free(d.s);

	/* many nodes: the bitmaps' summary words grow too */
	drv_init(&d, SCHED_FCFS, 100, 0);
	submit(&d, S(0), 1, 100, S(10));
	ok_eq(sched_add_nodes(d.s, S(1), 5000), SCHED_OK, "add: 5000 nodes to 100");
	submit(&d, S(1), 2, 5000, S(10));
	ok(d.start[2] == S(1) && sched_job_nodes(d.s, 2, nodes, 1) == 5000 && nodes[0] == 100,
	   "add: a 5000-node job starts on nodes 100..");
	ok_eq(d.checks_failed, 0, "add many: invariants held");
	sched_free(d.s);
}

/* ---- random workloads ---- */

enum { SN = 16, SMAXN = 32, SJ = 300 };

/* A driver over a random workload, as in test_sched.c's stress, that checks
 * what a reload may and may not do to the promises. */
struct sim {
	struct sched *s;
	bf_time grace;
	bool slow;		/* with a grace: some jobs take long to die */
	unsigned rng;
	uint32_t nodes;
	uint8_t down[SMAXN];
	bf_time est[SJ], run_for[SJ], end_at[SJ], start[SJ];
	uint32_t width[SJ];
	int state[SJ];		/* 0 unborn, 1 queued, 2 running, 3 gone */
	bf_time prev[SJ];	/* guarantee after the last call */
	int broke[SJ];		/* call number of its last SA_BROKEN */
	bf_time broke_t[SJ];
	int broke_why[SJ];
	int call;
	/* counts of what went wrong */
	int bad_check, later, late_start, bad_switch, bad_drop, bad_cons, bad_add, stuck;
	int switches, adds;
	char msg[300];
};

static void sim_init(struct sim *m, enum sched_policy p, bf_time grace, bool slow, unsigned seed)
{
	struct sched_params prm = { .policy = p, .nodes = SN, .kill_grace = grace };

	memset(m, 0, sizeof *m);
	m->grace = grace;
	m->slow = slow;
	m->rng = seed;
	m->nodes = SN;
	if (sched_new(&m->s, &prm) != SCHED_OK)
		abort();
	for (int i = 0; i < SJ; i++) {
		seed = seed * 1103515245 + 12345;
		m->est[i] = S(1 + (seed >> 8) % 500);
		seed = seed * 1103515245 + 12345;
		m->run_for[i] = (seed >> 8) % 4 == 0 ? m->est[i] + S(1)
		                                     : (bf_time)((seed >> 8) % (uint64_t)m->est[i]);
		seed = seed * 1103515245 + 12345;
		m->width[i] = 1 + (uint32_t)((seed >> 12) % (SN / 2 + 1)) +
		              ((seed >> 20) % 9 == 0 ? SN - 2 : 0);
		m->end_at[i] = m->start[i] = m->prev[i] = BF_NEVER;
		m->broke[i] = -1;
	}
}

static bool policy_is(const struct sim *m, enum sched_policy p)
{
	return sched_get_params(m->s)->policy == p;
}

static bf_time max_t(bf_time a, bf_time b) { return a > b ? a : b; }

/* After every call: act on the actions as a driver would, check the
 * invariants, and that no conservative guarantee moved later unsaid. */
static void sim_take(struct sim *m, bf_time now)
{
	size_t na;
	const struct sched_action *a = sched_actions(m->s, &na);
	bool cons = policy_is(m, SCHED_CONSERVATIVE);

	m->call++;
	for (size_t k = 0; k < na; k++) {
		uint64_t id = a[k].job;

		if (a[k].kind == SA_START) {
			m->state[id] = 2;
			m->start[id] = now;
			m->end_at[id] = m->run_for[id] < m->est[id] ? now + m->run_for[id] : BF_NEVER;
			if (cons && m->prev[id] != BF_NEVER && now > m->prev[id])
				m->late_start++;
		} else if (a[k].kind == SA_KILL) {
			m->rng = m->rng * 1103515245u + 12345u;
			m->end_at[id] = now;
			if (m->slow && (m->rng >> 8) % 3 == 0)
				m->end_at[id] += (m->grace + S(20)) / 1000 * (bf_time)((m->rng >> 10) % 1000);
		} else {
			m->broke[id] = m->call;
			m->broke_t[id] = a[k].t;
			m->broke_why[id] = a[k].why;
			m->prev[id] = a[k].t;
		}
	}
	sched_clear_actions(m->s);
	if (sched_check(m->s, now, m->msg, sizeof m->msg) != 0 && !m->bad_check++)
		printf("# check failed: %s\n", m->msg);
	for (int i = 0; i < SJ; i++) {
		struct sched_job_info info;

		if (m->state[i] != 1 || sched_job_info(m->s, (uint64_t)i, &info) != SCHED_OK)
			continue;
		if (cons && info.guarantee > m->prev[i])
			m->later++;
		m->prev[i] = info.guarantee;
	}
}

static void sim_run(struct sim *m, bf_time now)
{
	sched_run(m->s, now);
	sim_take(m, now);
}

/* Ends and wake-ups up to `until`, each followed by a pass. */
static void sim_until(struct sim *m, bf_time until, bf_time *now)
{
	for (int guard = 0;; guard++) {
		bf_time w = sched_next_wakeup(m->s);

		if (guard > 100000) {
			m->stuck++;
			return;
		}
		for (int i = 0; i < SJ; i++)
			if (m->state[i] == 2 && m->end_at[i] < w)
				w = m->end_at[i];
		if (w > until || w == BF_NEVER)
			return;
		*now = w;
		for (int i = 0; i < SJ; i++) {
			if (m->state[i] == 2 && m->end_at[i] == w) {
				sched_end(m->s, w, (uint64_t)i, END_EXITED);
				m->state[i] = 3;
			}
		}
		sim_run(m, w);
	}
}

struct qlist {
	int n;
	uint64_t id[SJ];
	bf_time g[SJ];
};

static int collect(const struct sched_job_info *i, void *arg)
{
	struct qlist *q = arg;

	q->id[q->n] = i->id;
	q->g[q->n++] = i->guarantee;
	return 0;
}

static uint32_t nodes_up(const struct sim *m)
{
	uint32_t up = 0;

	for (uint32_t i = 0; i < m->nodes; i++)
		up += !m->down[i];
	return up;
}

/* A switch: every guarantee later than before (a passed one counts as now)
 * is announced with its new value; conservative places every job that fits
 * the nodes up; EASY and FCFS keep a promise for the head only, and every
 * other job that loses one is told, with BROKEN_POLICY. */
static void sim_switch(struct sim *m, bf_time now, enum sched_policy p)
{
	struct qlist before = { 0 }, after = { 0 };
	int call;

	sched_foreach_queued(m->s, collect, &before);
	if (sched_set_policy(m->s, now, p) != SCHED_OK)
		abort();
	sim_take(m, now);
	call = m->call;
	m->switches++;
	sched_foreach_queued(m->s, collect, &after);
	if (after.n != before.n)
		m->bad_switch++;
	for (int k = 0; k < after.n && k < before.n; k++) {
		uint64_t id = after.id[k];
		bf_time was = before.g[k], g = after.g[k];
		bool told = m->broke[id] == call && m->broke_t[id] == g;

		if (before.id[k] != id || (m->broke[id] == call && m->broke_t[id] != g))
			m->bad_switch++;
		if (was != BF_NEVER && g > max_t(was, now) && !told)
			m->bad_switch++;
		if (p == SCHED_CONSERVATIVE && g == BF_NEVER && m->width[id] <= nodes_up(m))
			m->bad_cons++;
		if (p != SCHED_CONSERVATIVE && k > 0 &&
		    (g != BF_NEVER || (was != BF_NEVER && !(told && m->broke_why[id] == BROKEN_POLICY))))
			m->bad_drop++;
	}
}

/* add_nodes and its pass, conservative: promises only move earlier. */
static void sim_add(struct sim *m, bf_time now, uint32_t count)
{
	struct qlist before = { 0 }, after = { 0 };
	bool cons = policy_is(m, SCHED_CONSERVATIVE);

	sched_foreach_queued(m->s, collect, &before);
	if (sched_add_nodes(m->s, now, count) != SCHED_OK)
		abort();
	m->nodes += count;
	m->adds++;
	sim_take(m, now);
	sim_run(m, now);
	if (sched_get_params(m->s)->nodes != m->nodes)
		m->bad_add++;
	if (!cons)
		return;
	sched_foreach_queued(m->s, collect, &after);
	/* The pass may start jobs: compare those still queued. */
	for (int k = 0, b = 0; k < after.n; k++) {
		while (b < before.n && before.id[b] != after.id[k])
			b++;
		if (b == before.n || after.g[k] > before.g[b] || m->broke[after.id[k]] >= m->call - 1)
			m->bad_add++;
	}
}

static uint64_t sim_submit(struct sim *m, bf_time now, uint64_t id)
{
	if (sched_submit(m->s, now, id, m->width[id], m->est[id]) == SCHED_OK)
		m->state[id] = 1;
	return id + 1;
}

static void stress(enum sched_policy p, bf_time grace, unsigned seed0)
{
	struct sim *m = calloc(1, sizeof *m);
	unsigned seed = seed0;
	uint64_t next = 0;
	bf_time now = 0;
	int left = 0;

	sim_init(m, p, grace, grace > 0, seed);
	for (int events = 0; events < 3000; events++) {
		bf_time ext;
		int r;

		seed = seed * 1103515245 + 12345;
		r = (int)((seed >> 8) % 100);
		ext = now + S((seed >> 16) % 7);	/* the next outside event */
		sim_until(m, ext, &now);
		now = ext;
		if (r < 40 && next < SJ) {
			next = sim_submit(m, now, next);
		} else if (r < 45 && next > 0) {
			uint64_t v = (seed >> 12) % next;

			if (m->state[v] == 1 && sched_cancel(m->s, now, v) == SCHED_OK)
				m->state[v] = 3;
		} else if (r < 48) {
			uint32_t n = (uint32_t)((seed >> 12) % m->nodes);

			if (sched_node_down(m->s, now, n) == SCHED_OK)
				m->down[n] = 1;
		} else if (r < 53) {
			uint32_t n = (uint32_t)((seed >> 12) % m->nodes);

			if (sched_node_up(m->s, now, n) == SCHED_OK)
				m->down[n] = 0;
		} else if (r < 57) {
			sim_switch(m, now, (enum sched_policy)((seed >> 12) % 3));
		} else if (r < 58 && m->nodes + 2 <= SMAXN) {
			sim_add(m, now, 1 + (uint32_t)((seed >> 12) % 2));
			continue;
		}
		sim_take(m, now);
		sim_run(m, now);
	}
	/* No more events but every node back: everything runs to the end, and
	 * no conservative job starts after its guarantee. */
	for (uint32_t n = 0; n < m->nodes; n++) {
		if (m->down[n]) {
			sched_node_up(m->s, now, n);
			m->down[n] = 0;
		}
	}
	sim_take(m, now);
	sim_run(m, now);
	sim_until(m, BF_NEVER - 1, &now);
	for (uint64_t i = 0; i < next; i++)
		left += m->state[i] == 1 || m->state[i] == 2;
	ok(m->bad_check == 0 && m->stuck == 0,
	   "random %s, grace %llds, seed %u: invariants after every call (%d switches, %d adds, "
	   "%u nodes at the end, queue up to %llu)", sched_policy_name(p),
	   (long long)(grace / BF_SEC), seed0, m->switches, m->adds, m->nodes,
	   (unsigned long long)sched_get_stats(m->s)->max_queue);
	ok(m->switches > 10 && m->adds > 5, "random %s seed %u: switched and grew often enough",
	   sched_policy_name(p), seed0);
	ok_eq(m->bad_switch, 0, "random %s seed %u: a switch moves no promise later unannounced",
	      sched_policy_name(p), seed0);
	ok_eq(m->bad_cons, 0, "random %s seed %u: to conservative, every job that fits is guaranteed",
	      sched_policy_name(p), seed0);
	ok_eq(m->bad_drop, 0, "random %s seed %u: to EASY/FCFS, only the head keeps a promise; "
	      "the others are told", sched_policy_name(p), seed0);
	ok_eq(m->bad_add, 0, "random %s seed %u: added nodes move conservative guarantees only "
	      "earlier", sched_policy_name(p), seed0);
	ok_eq(m->later, 0, "random %s seed %u: under conservative no guarantee moved later unannounced",
	      sched_policy_name(p), seed0);
	ok_eq(m->late_start, 0, "random %s seed %u: under conservative no job started after its "
	      "guarantee", sched_policy_name(p), seed0);
	ok_eq(left, 0, "random %s seed %u: every job ran to the end", sched_policy_name(p), seed0);
	sched_free(m->s);
	free(m);
}

/* A switched scheduler is the scheduler of the new policy: the same
 * guarantees and the same schedule from then on as one rebuilt at the
 * switch from the running jobs (on their nodes, with their holds) and the
 * queue, submitted again in order at that instant. */
struct running_list {
	const struct sched *s;
	int n;
	struct sched_job_info info[SJ];
	uint32_t nodes[SJ][SMAXN];
};

static int collect_running(const struct sched_job_info *i, void *arg)
{
	struct running_list *r = arg;

	sched_job_nodes(r->s, i->id, r->nodes[r->n], SMAXN);
	r->info[r->n++] = *i;
	return 0;
}

static void rebuilt_equals_switched(enum sched_policy from, enum sched_policy to, bf_time grace,
                                    unsigned seed0)
{
	unsigned seed = seed0;
	struct sim *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
	struct running_list *run = calloc(1, sizeof *run);
	struct qlist q = { 0 };
	struct sched_params prm = { .policy = to, .nodes = SN, .kill_grace = grace };
	bf_time now = 0, ta = 0, tb;
	uint64_t next = 0;
	int same_g = 1, rc = 0, cut = 150 + (int)(seed0 % 50);

	sim_init(a, from, grace, false, seed);
	for (int events = 0; events < 600; events++) {
		bf_time ext;
		int r;

		seed = seed * 1103515245 + 12345;
		r = (int)((seed >> 8) % 100);
		ext = now + S((seed >> 16) % 7);
		if (events <= cut) {
			sim_until(a, ext, &now);
		} else {
			ta = tb = now;
			sim_until(a, ext, &ta);
			sim_until(b, ext, &tb);
		}
		now = ext;
		if (events == cut) {
			/* The switch, and the rebuilt scheduler beside it. */
			*b = *a;
			if (sched_new(&b->s, &prm) != SCHED_OK)
				abort();
			run->s = a->s;
			sched_foreach_running(a->s, collect_running, run);
			sched_foreach_queued(a->s, collect, &q);
			for (int k = 0; k < run->n; k++) {
				const struct sched_job_info *i = &run->info[k];

				rc |= sched_restore_running(b->s, now, i->id, i->submit, i->estimate,
				                            i->start, i->hold_end, run->nodes[k], i->nodes);
			}
			for (int k = 0; k < q.n; k++)
				rc |= sched_submit(b->s, now, q.id[k], a->width[q.id[k]], a->est[q.id[k]]);
			sched_set_policy(a->s, now, to);
			sim_take(a, now);
			sim_take(b, now);
			/* EASY and FCFS promise at the pass, so compare after it
			 * (and conservative before it as well). */
			for (int pass = 0; pass < 2; pass++) {
				for (int k = 0; k < q.n; k++) {
					struct sched_job_info ia, ib;

					sched_job_info(a->s, q.id[k], &ia);
					sched_job_info(b->s, q.id[k], &ib);
					if (pass || to == SCHED_CONSERVATIVE)
						same_g &= ia.guarantee == ib.guarantee;
					/* conservative: every queued job that fits is guaranteed */
					if (!pass && to == SCHED_CONSERVATIVE && a->width[q.id[k]] <= SN)
						same_g &= ia.guarantee != BF_NEVER;
				}
				sim_run(a, now);
				sim_run(b, now);
			}
			continue;
		}
		if (r < 50 && next < SJ) {
			if (events > cut)
				sim_submit(b, now, next);
			next = sim_submit(a, now, next);
		} else if (r < 55 && next > 0) {
			uint64_t v = (seed >> 12) % next;

			if (a->state[v] == 1 && sched_cancel(a->s, now, v) == SCHED_OK)
				a->state[v] = 3;
			if (events > cut && b->state[v] == 1 && sched_cancel(b->s, now, v) == SCHED_OK)
				b->state[v] = 3;
		}
		sim_run(a, now);
		if (events > cut)
			sim_run(b, now);
	}
	ta = tb = now;
	sim_until(a, BF_NEVER - 1, &ta);
	sim_until(b, BF_NEVER - 1, &tb);
	ok(rc == SCHED_OK && q.n > 3 && run->n > 1, "%s -> %s, grace %llds, seed %u: rebuilt from "
	   "%d running and %d queued jobs", sched_policy_name(from), sched_policy_name(to),
	   (long long)(grace / BF_SEC), seed0, run->n, q.n);
	ok(same_g, "%s -> %s seed %u: the switched scheduler promises what the rebuilt one does",
	   sched_policy_name(from), sched_policy_name(to), seed0);
	ok(memcmp(a->start, b->start, sizeof a->start) == 0 && a->bad_check + b->bad_check == 0,
	   "%s -> %s seed %u: and goes on to the same starts, every job's",
	   sched_policy_name(from), sched_policy_name(to), seed0);
	sched_free(a->s);
	sched_free(b->s);
	free(a);
	free(b);
	free(run);
}

int main(void)
{
	static const enum sched_policy all[] = { SCHED_FCFS, SCHED_EASY, SCHED_CONSERVATIVE };

	from_conservative(SCHED_EASY);
	from_conservative(SCHED_FCFS);
	to_conservative(SCHED_EASY);
	to_conservative(SCHED_FCFS);
	easy_fcfs();
	moved_before_the_switch(SCHED_EASY, SCHED_CONSERVATIVE);
	moved_before_the_switch(SCHED_CONSERVATIVE, SCHED_EASY);
	moved_before_the_switch(SCHED_EASY, SCHED_FCFS);
	passed_promise();
	add_nodes();
	for (unsigned seed = 1; seed <= 2; seed++) {
		for (int p = 0; p < 3; p++) {
			stress(all[p], 0, seed);
			stress(all[p], S(3), seed);
		}
	}
	for (int f = 0; f < 3; f++)
		for (int t = 0; t < 3; t++)
			if (f != t)
				rebuilt_equals_switched(all[f], all[t], (f + t) % 2 ? S(3) : 0, 7 + (unsigned)(3 * f + t));
	return tap_done();
}
