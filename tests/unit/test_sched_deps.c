/* Dependencies in the scheduler core (sched_submit_job, sched_dep_release):
 * a conservative chain gets a guaranteed start for every step, kept, and
 * moved earlier by an early end; a predecessor moved later takes its
 * successors with it, told; START edges; an array's cap as order edges;
 * EASY and FCFS pass over a waiting job; restore; bctl top refused; and a
 * randomized stress under every policy against the invariants, with
 * conservative's bounded compression checked against the unbounded one. */
#include <stdlib.h>
#include <string.h>
#include "sched.h"
#include "tap.h"
#include "sched_driver.h"

static void drv_init(struct drv *d, enum sched_policy p, uint32_t nodes, bf_time grace)
{
	drv_init_params(d, &(struct sched_params){ .policy = p, .nodes = nodes,
	                                           .kill_grace = grace });
}

static void submit(struct drv *d, bf_time t, uint64_t id, uint32_t n, bf_time est)
{
	if (sched_submit(d->s, t, id, n, est) != SCHED_OK)
		abort();
	run(d, t);
}

/* A job that waits for the END of each job in preds (0-terminated), as a
 * condition its driver releases. */
static void submit_after(struct drv *d, bf_time t, uint64_t id, uint32_t n, bf_time est,
                         const uint64_t *preds, uint8_t kind)
{
	struct sched_dep deps[8];
	uint32_t k = 0;

	for (; preds[k]; k++)
		deps[k] = (struct sched_dep){ .job = preds[k], .kind = kind, .cond = true };
	if (sched_submit_job(d->s, t, &(struct sched_new_job){ .id = id, .nodes = n,
	                     .estimate = est, .deps = deps, .ndeps = k, .waiting = true }) != SCHED_OK)
		abort();
	run(d, t);
}

static void end(struct drv *d, bf_time t, uint64_t id)
{
	if (sched_end(d->s, t, id, END_EXITED) != SCHED_OK)
		abort();
	run(d, t);
}

static void release(struct drv *d, bf_time t, uint64_t id)
{
	if (sched_dep_release(d->s, t, id) != SCHED_OK)
		abort();
	run(d, t);
}

static int total_broken(const struct drv *d)
{
	int n = 0;

	for (int i = 0; i < MAXJ; i++)
		n += d->broken[i];
	return n;
}

/* Conservative, 4 nodes, grace 10 s: a 3-step chain submitted at once;
 * each step is guaranteed the end of the step before (its guarantee plus
 * its limit plus the grace); a small job backfills beside step 1; an early
 * end of step 1 moves steps 2 and 3 earlier. */
static void chain_conservative(void)
{
	struct drv d;
	struct sched_job_info info;

	drv_init(&d, SCHED_CONSERVATIVE, 4, S(10));
	submit(&d, S(0), 1, 2, S(100));
	submit_after(&d, S(0), 2, 4, S(50), (uint64_t[]){ 1, 0 }, SCHED_DEP_END);
	submit_after(&d, S(0), 3, 2, S(20), (uint64_t[]){ 2, 0 }, SCHED_DEP_END);
	submit(&d, S(0), 4, 2, S(30));
	ok(d.start[1] == S(0) && d.start[4] == S(0) && d.start[2] == -1,
	   "chain: step 1 and an independent job start, step 2 waits");
	ok_eq(guarantee(&d, 2), S(110), "step 2 is guaranteed step 1's end: limit + grace");
	ok_eq(guarantee(&d, 3), S(170), "step 3 is guaranteed step 2's guaranteed end");
	ok(sched_job_info(d.s, 3, &info) == SCHED_OK && info.preds == 1 && info.waiting,
	   "step 3 shows one predecessor and its wait");
	end(&d, S(30), 4);
	end(&d, S(40), 1);
	ok(d.start[2] == -1, "step 1 ended: step 2 still waits for its driver's word");
	release(&d, S(40), 2);
	ok_eq(d.start[2], S(40), "released, step 2 starts at once (step 1 ended early)");
	ok_eq(guarantee(&d, 3), S(100), "step 3 moved earlier with it: 40 + 50 + 10");
	end(&d, S(45), 2);
	release(&d, S(45), 3);
	ok_eq(d.start[3], S(45), "step 3 starts when step 2 ends");
	ok(total_broken(&d) == 0 && d.checks_failed == 0, "chain: nothing broken, invariants held");
	sched_free(d.s);
}

/* A predecessor moved later takes its successor with it, and the
 * successor is told why: a running job's longer limit moves the queued
 * job after it (BROKEN_LIMIT), and that one's successor (BROKEN_DEPENDENCY). */
static void moved_later(void)
{
	struct drv d;

	drv_init(&d, SCHED_CONSERVATIVE, 4, 0);
	submit(&d, S(0), 1, 2, S(100));
	submit(&d, S(0), 2, 4, S(100));
	submit_after(&d, S(0), 3, 1, S(10), (uint64_t[]){ 2, 0 }, SCHED_DEP_END);
	ok(guarantee(&d, 2) == S(100) && guarantee(&d, 3) == S(200),
	   "moved: 2 after the running 1, 3 after 2");
	if (sched_set_limit(d.s, S(10), 1, S(150)) != SCHED_OK)
		abort();
	run(&d, S(10));
	ok(guarantee(&d, 2) == S(150) && d.broken[2] == 1 && d.broken_why[2] == BROKEN_LIMIT,
	   "a longer limit on 1 moves 2 to 150, told (limit)");
	ok(guarantee(&d, 3) == S(250) && d.broken[3] == 1 &&
	   d.broken_why[3] == BROKEN_DEPENDENCY && d.broken_t[3] == S(250),
	   "and 3 to 250, told (dependency)");
	ok(d.checks_failed == 0, "moved: invariants held");
	sched_free(d.s);
}

/* A START edge: guaranteed its predecessor's start; started with it. */
static void after_start(void)
{
	struct drv d;

	drv_init(&d, SCHED_CONSERVATIVE, 4, 0);
	submit(&d, S(0), 1, 4, S(100));
	submit(&d, S(0), 2, 2, S(100));
	submit_after(&d, S(0), 3, 2, S(10), (uint64_t[]){ 2, 0 }, SCHED_DEP_START);
	ok_eq(guarantee(&d, 3), S(100), "started(): guaranteed its predecessor's start");
	end(&d, S(60), 1);
	ok(d.start[2] == S(60) && d.start[3] == -1, "2 starts early; 3 waits for its word");
	release(&d, S(60), 3);
	ok_eq(d.start[3], S(60), "released at 2's start, 3 starts beside it");
	ok(total_broken(&d) == 0 && d.checks_failed == 0, "started(): invariants held");
	sched_free(d.s);
}

/* An array of 6 one-node elements with a cap of 2 at once, as order edges
 * (element k after element k-2): never more than 2 run, every element is
 * guaranteed a start and starts no later. */
static void array_cap(enum sched_policy p)
{
	struct drv d;
	int most = 0;
	bf_time promised[7];

	drv_init(&d, p, 8, 0);
	for (uint64_t k = 1; k <= 6; k++) {
		struct sched_dep dep = { .job = k - 2, .kind = SCHED_DEP_END };

		if (sched_submit_job(d.s, 0, &(struct sched_new_job){ .id = k, .nodes = 1,
		                     .estimate = S(10 * k), .deps = &dep, .ndeps = k > 2 }) != SCHED_OK)
			abort();
		run(&d, 0);
	}
	for (uint64_t k = 1; k <= 6; k++)
		promised[k] = d.start[k] >= 0 ? d.start[k] : guarantee(&d, k);
	for (bf_time t = S(1); t <= S(200); t += S(1)) {
		int running = 0;
		struct sched_job_info info;

		for (uint64_t k = 1; k <= 6; k++)
			if (sched_job_info(d.s, k, &info) == SCHED_OK && info.state == JOB_RUNNING &&
			    info.start + (bf_time)(S(10 * k) / 2) == t)
				end(&d, t, k);	/* each ends halfway */
		run(&d, t);
		for (uint64_t k = 1; k <= 6; k++)
			running += sched_job_info(d.s, k, &info) == SCHED_OK &&
			           info.state == JOB_RUNNING;
		if (running > most)
			most = running;
	}
	ok(most == 2, "%s: array with a cap of 2: at most 2 elements at once (%d)",
	   sched_policy_name(p), most);
	if (p == SCHED_CONSERVATIVE) {
		int kept = 1;

		for (uint64_t k = 1; k <= 6; k++)
			kept &= d.start[k] >= 0 && d.start[k] <= promised[k];
		ok(kept && promised[3] == S(10) && promised[6] == S(60),
		   "conservative: every element was guaranteed a start (3 at 10, 6 at 60) and kept it");
	}
	ok(total_broken(&d) == 0 && d.checks_failed == 0, "%s: array: invariants held",
	   sched_policy_name(p));
	sched_free(d.s);
}

/* A cap of 1 as a chain of order edges: an element cancelled while it
 * waits passes its place on (the next follows the one before it), so the
 * cap still holds. */
static void chain_cancel(enum sched_policy p)
{
	struct drv d;

	drv_init(&d, p, 8, 0);
	for (uint64_t k = 1; k <= 4; k++) {
		struct sched_dep dep = { .job = k - 1, .kind = SCHED_DEP_END };

		if (sched_submit_job(d.s, 0, &(struct sched_new_job){ .id = k, .nodes = 1,
		                     .estimate = S(100), .deps = &dep, .ndeps = k > 1 }) != SCHED_OK)
			abort();
	}
	run(&d, 0);
	if (sched_cancel(d.s, S(10), 2) != SCHED_OK)
		abort();
	run(&d, S(10));
	ok(d.start[1] == 0 && d.start[3] == -1 && d.start[4] == -1,
	   "%s: cap 1, element 2 cancelled while it waits: 3 still follows 1", sched_policy_name(p));
	if (p == SCHED_CONSERVATIVE)
		ok(guarantee(&d, 3) == S(100) && guarantee(&d, 4) == S(200),
		   "conservative: 3 moves up to 1's end, 4 after it (%lld %lld)",
		   (long long)guarantee(&d, 3), (long long)guarantee(&d, 4));
	end(&d, S(50), 1);
	ok(d.start[3] == S(50) && d.start[4] == -1, "%s: 3 starts when 1 ends, 4 still waits",
	   sched_policy_name(p));
	ok(d.checks_failed == 0, "%s: invariants held", sched_policy_name(p));
	sched_free(d.s);
}

/* EASY and FCFS: a waiting job is never the head and holds nobody up. */
static void easy_passes_over(enum sched_policy p)
{
	struct drv d;

	drv_init(&d, p, 4, 0);
	submit(&d, S(0), 1, 4, S(100));
	submit_after(&d, S(0), 2, 2, S(10), (uint64_t[]){ 1, 0 }, SCHED_DEP_END);
	submit(&d, S(0), 3, 4, S(50));
	ok(guarantee(&d, 3) == S(100) && guarantee(&d, 2) == BF_NEVER,
	   "%s: the job after the waiting one is the head, promised 100", sched_policy_name(p));
	end(&d, S(20), 1);
	ok(d.start[3] == S(20) && d.start[2] == -1, "%s: it starts; the waiting job does not",
	   sched_policy_name(p));
	release(&d, S(25), 2);
	end(&d, S(70), 3);
	ok_eq(d.start[2], S(70), "%s: released, it starts when nodes are free", sched_policy_name(p));
	ok(d.checks_failed == 0, "%s: invariants held", sched_policy_name(p));
	sched_free(d.s);
}

/* Predicted starts under EASY follow the chain. */
static void easy_predicts_chain(void)
{
	struct drv d;
	bf_time pred[3];

	drv_init(&d, SCHED_EASY, 4, 0);
	submit(&d, S(0), 1, 4, S(100));
	submit(&d, S(0), 2, 4, S(100));
	submit_after(&d, S(0), 3, 1, S(10), (uint64_t[]){ 2, 0 }, SCHED_DEP_END);
	ok(sched_predict(d.s, S(0), pred, 3) == 2 && pred[0] == S(100) && pred[1] == S(200),
	   "EASY: the forecast plans the chain's second step after the first's end");
	sched_free(d.s);
}

/* A restart keeps each step's guarantee, and a top of a waiting job is
 * refused. */
static void restore_and_top(void)
{
	struct drv d;
	uint32_t nodes[2] = { 0, 1 };
	struct sched_dep dep = { .job = 2, .kind = SCHED_DEP_END, .cond = true };

	drv_init(&d, SCHED_CONSERVATIVE, 4, 0);
	if (sched_restore_running(d.s, S(50), 1, 0, S(100), 0, BF_NEVER, nodes, 2) != SCHED_OK ||
	    sched_restore_queued(d.s, S(50), 2, 0, 4, S(100), S(100)) != SCHED_OK ||
	    sched_restore_queued_job(d.s, S(50), &(struct sched_new_job){ .id = 3, .nodes = 1,
	                             .estimate = S(10), .deps = &dep, .ndeps = 1, .waiting = true,
	                             .submit = 0, .guarantee = S(200) }) != SCHED_OK)
		abort();
	run(&d, S(50));
	ok(guarantee(&d, 2) == S(100) && guarantee(&d, 3) == S(200) && total_broken(&d) == 0,
	   "restore: each step keeps its guarantee");
	ok_eq(sched_top(d.s, S(50), 3), SCHED_E_INVAL, "top of a job with predecessors is refused");
	dep.job = 99;
	ok_eq(sched_submit_job(d.s, S(50), &(struct sched_new_job){ .id = 4, .nodes = 1,
	      .estimate = S(1), .deps = &dep, .ndeps = 1 }), SCHED_E_NOJOB,
	      "a predecessor not in the system is refused");
	ok(d.checks_failed == 0, "restore: invariants held");
	sched_free(d.s);
}

/* ---- randomized stress ---- */

static uint64_t rng;
static int dep_broken;	/* BROKEN_DEPENDENCY told, in all stress runs */

static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33) % n;
}

struct sjob {
	bool live, running, ended, killed;
	bf_time start, est, run;
	uint64_t preds[3];
	int npreds;
	bool waiting;
};

/* Random jobs with random END dependencies on jobs in the system, each
 * released when all its predecessors ended (cancelled counts); ends at
 * random before the limit. With chaos, nodes go down and come back,
 * running jobs get longer limits and queued ones are cancelled: promises
 * may then be broken, but each start still comes after its predecessors
 * and the invariants hold (a start later than its promise is one of
 * them). Returns the starts, in `starts` (by id), for comparison. */
static int stress(enum sched_policy p, bool unbounded, bool chaos, uint64_t seed,
                  bf_time *starts, int n)
{
	bool down[16] = { false };
	struct sjob *j = calloc((size_t)n + 1, sizeof *j);
	struct sched *s;
	char msg[300];
	int bad = 0, submitted = 0;

	rng = seed;
	if (!j || sched_new(&s, &(struct sched_params){ .policy = p, .nodes = 16,
	                    .kill_grace = S(2), .compress_unbounded = unbounded }) != SCHED_OK)
		abort();
	for (bf_time t = 0, next; t < S(100000) && (submitted < n || sched_queue_len(s) ||
	                                             sched_running_len(s)); t = next) {
		size_t na;
		const struct sched_action *a;

		/* ends */
		for (int i = 1; i <= submitted; i++)
			if (j[i].running && (t >= j[i].start + j[i].run || j[i].killed)) {
				if (sched_end(s, t, (uint64_t)i, j[i].killed ? END_KILLED : END_EXITED) !=
				    SCHED_OK)
					abort();
				j[i].running = false;
				j[i].ended = true;
			}
		if (chaos && rnd(25) == 0) {
			uint32_t node = rnd(16);

			/* (all up again once every job arrived: every job ends) */
			if (!down[node] && submitted < n)
				sched_node_down(s, t, node);
			else
				sched_node_up(s, t, node);
			down[node] = !down[node] && submitted < n;
		}
		if (chaos && submitted == n)
			for (uint32_t node = 0; node < 16; node++)
				if (down[node]) {
					sched_node_up(s, t, node);
					down[node] = false;
				}
		if (chaos && submitted && rnd(25) == 0) {
			int i = 1 + (int)rnd((uint32_t)submitted);

			if (j[i].running && !j[i].killed)
				sched_set_limit(s, t, (uint64_t)i, j[i].est + S(rnd(200)));
			else if (!j[i].running && !j[i].ended &&
			         sched_cancel(s, t, (uint64_t)i) == SCHED_OK) {
				j[i].ended = true;
				j[i].waiting = false;
			}
		}
		/* releases: every predecessor ended */
		for (int i = 1; i <= submitted; i++) {
			bool all = j[i].waiting;

			for (int k = 0; all && k < j[i].npreds; k++)
				all = j[j[i].preds[k]].ended;
			if (all) {
				if (sched_dep_release(s, t, (uint64_t)i) != SCHED_OK)
					abort();
				j[i].waiting = false;
			}
		}
		/* arrivals */
		for (int m = rnd(3); m > 0 && submitted < n; m--) {
			struct sched_dep deps[3];
			struct sjob *x = &j[++submitted];
			uint32_t nd = 0;

			x->est = S(10 + rnd(300));
			x->run = rnd(4) ? x->est * (1 + rnd(100)) / 100 : x->est;
			for (int k = 0; k < 3 && submitted > 1; k++) {
				uint64_t q = 1 + rnd((uint32_t)submitted - 1);
				bool dup = false;

				for (uint32_t e = 0; e < nd; e++)
					dup |= deps[e].job == q;
				if (rnd(3) == 0 && !j[q].ended && !dup) {
					deps[nd++] = (struct sched_dep){ .job = q, .cond = true };
					x->preds[x->npreds++] = q;
				}
			}
			x->waiting = nd > 0;
			x->live = true;
			if (sched_submit_job(s, t, &(struct sched_new_job){ .id = (uint64_t)submitted,
			                     .nodes = 1 + rnd(12), .estimate = x->est, .deps = deps,
			                     .ndeps = nd, .waiting = x->waiting }) != SCHED_OK)
				abort();
		}
		sched_run(s, t);
		a = sched_actions(s, &na);
		for (size_t k = 0; k < na; k++) {
			if (a[k].kind == SA_START) {
				struct sjob *x = &j[a[k].job];

				x->running = true;
				x->start = t;
				starts[a[k].job] = t;
				for (int q = 0; q < x->npreds; q++)
					bad += !j[x->preds[q]].ended;
			} else if (a[k].kind == SA_KILL) {
				j[a[k].job].killed = true;	/* ends at the next instant */
			} else if (a[k].kind == SA_BROKEN) {
				/* No node lost, no limit changed: none may break
				 * (CREASY's head may lose its promise to one of
				 * higher priority). */
				bad += !chaos && !(p == SCHED_CREASY && a[k].why == BROKEN_PRIORITY);
				dep_broken += a[k].why == BROKEN_DEPENDENCY;
			}
		}
		sched_clear_actions(s);
		/* The next instant: an end, the core's wakeup, or an arrival. */
		next = submitted < n ? t + S(1 + rnd(20)) : BF_NEVER;
		for (uint32_t node = 0; node < 16; node++)
			if (down[node] && next == BF_NEVER)
				next = t + 1;	/* to bring it back */
		if (sched_next_wakeup(s) > t && sched_next_wakeup(s) < next)
			next = sched_next_wakeup(s);
		for (int i = 1; i <= submitted; i++)
			if (j[i].running && j[i].killed)
				next = t + 1;
			else if (j[i].running && j[i].start + j[i].run < next)
				next = j[i].start + j[i].run > t ? j[i].start + j[i].run : t + 1;
		if (sched_check(s, t, msg, sizeof msg) != 0) {
			printf("# %s seed %llu at %lld: %s\n", sched_policy_name(p),
			       (unsigned long long)seed, (long long)t, msg);
			bad++;
			break;
		}
	}
	bad += sched_queue_len(s) + sched_running_len(s);	/* all done */
	sched_free(s);
	free(j);
	return bad;
}

static void stress_all(void)
{
	enum sched_policy pols[] = { SCHED_FCFS, SCHED_EASY, SCHED_CONSERVATIVE, SCHED_CREASY };
	enum { N = 300 };
	bf_time a[N + 1], b[N + 1];

	for (size_t i = 0; i < sizeof pols / sizeof *pols; i++) {
		int bad = 0;

		for (uint64_t seed = 1; seed <= 20; seed++)
			bad += stress(pols[i], false, false, seed, a, N);
		ok(bad == 0, "%s: 20 random runs of %d jobs with dependencies: each starts after "
		   "its predecessors, no promise broken, invariants held (%d faults)",
		   sched_policy_name(pols[i]), N, bad);
		bad = 0;
		for (uint64_t seed = 1; seed <= 20; seed++)
			bad += stress(pols[i], false, true, seed, a, N);
		ok(bad == 0, "%s: and with nodes lost, limits raised and jobs cancelled: each "
		   "starts after its predecessors, invariants held (%d faults)",
		   sched_policy_name(pols[i]), bad);
	}
	for (uint64_t seed = 1; seed <= 20; seed++) {
		int same = 1;

		memset(a, 0xff, sizeof a);
		memset(b, 0xff, sizeof b);
		stress(SCHED_CONSERVATIVE, false, seed > 10, seed, a, N);
		stress(SCHED_CONSERVATIVE, true, seed > 10, seed, b, N);
		same = memcmp(a, b, sizeof a) == 0;
		if (!same) {
			ok(0, "conservative seed %llu: bounded compression differs from unbounded",
			   (unsigned long long)seed);
			return;
		}
	}
	ok(1, "conservative: bounded compression gives the same schedule as unbounded in 20 "
	   "random runs with dependencies");
	ok(dep_broken > 0, "the runs with nodes lost moved successors later with their "
	   "predecessors, told (%d times)", dep_broken);
}

int main(void)
{
	chain_conservative();
	moved_later();
	after_start();
	array_cap(SCHED_CONSERVATIVE);
	array_cap(SCHED_EASY);
	array_cap(SCHED_FCFS);
	chain_cancel(SCHED_CONSERVATIVE);
	chain_cancel(SCHED_EASY);
	easy_passes_over(SCHED_EASY);
	easy_passes_over(SCHED_FCFS);
	easy_predicts_chain();
	restore_and_top();
	stress_all();
	return tap_done();
}
