/* bench_queue: how the cost of one scheduler event grows with the queue.
 *
 * Drives the core directly (no replay, no I/O in the timed regions) on a
 * machine of 1024 nodes that is full of running jobs, with Q = 10, 100,
 * 1000 and 10000 jobs waiting, under conservative and EASY backfilling:
 *
 *  (a) an arrival: submit one job + sched_run, then cancel it + sched_run,
 *      so the queue length stays Q. The two halves are also timed apart.
 *  (b) an early end: a running job ends well before its estimate +
 *      sched_run (conservative compresses: every queued job is visited;
 *      EASY scans the queue for backfill candidates). The 64 running jobs
 *      end one after another; the state is rebuilt between such batches,
 *      outside the timed region. Jobs that start shrink the queue a little
 *      during a batch, so the mean queue length seen is reported as well.
 *  (c) the reservation profile alone with B breakpoints: one
 *      profile_anchor, and one profile_reserve + profile_release pair.
 *
 * Benchmarks may read the clock (the core may not): CLOCK_MONOTONIC.
 * Figures only; the exit status is 1 only if the core reports an error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bf_time.h"
#include "profile.h"
#include "sched.h"

#define NODES		1024u
#define NRUN		64u		/* running jobs of RUN_NODES nodes: a full machine */
#define RUN_NODES	16u
#define MEASURE_S	0.2		/* aim for this much timed work per figure */
#define MAX_WALL_S	3.0		/* ... but stop a figure after this long in all */
#define NPRE		4096u		/* pre-drawn random operands (a power of two) */

#define SEC(x)		((bf_time)(x) * BF_SEC)
#define MIN_EST		SEC(600)		/* queued estimates: 10 min .. 10 h */
#define MAX_EST		SEC(10 * 3600)
#define QUEUE_SEED	0x5eed0001u
#define ARRIVE_SEED	0x5eed0002u
#define PROFILE_SEED	0x5eed0003u

static const uint32_t queue_lengths[] = { 10, 100, 1000, 10000 };
static const enum sched_policy policies[] = { SCHED_CONSERVATIVE, SCHED_EASY };
static const uint32_t breakpoints[] = { 100, 1000, 10000, 100000 };

/* ---- helpers ---- */

static double clock_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* splitmix64: fixed seeds, so every run measures the same states. */
static uint64_t rnd(uint64_t *st)
{
	uint64_t z = (*st += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi] (the tiny modulo bias does not matter here). */
static int64_t rnd_range(uint64_t *st, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd(st) % (uint64_t)(hi - lo + 1));
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_queue: %s: %s (%d)\n", what, sched_strerror(rc), rc);
	exit(1);
}

static void ok(int rc, const char *what)
{
	if (rc != SCHED_OK)
		die(what, rc);
}

static void check_state(const struct sched *s, bf_time now, const char *when)
{
	char msg[300];

	if (sched_check(s, now, msg, sizeof msg) != 0) {
		fprintf(stderr, "bench_queue: invariant broken %s: %s\n", when, msg);
		exit(1);
	}
}

/* Count (and drop) the pending actions; anything but a start is a surprise
 * here (no job reaches its estimate and no node fails). */
static uint32_t take_starts(struct sched *s)
{
	size_t n;
	const struct sched_action *a = sched_actions(s, &n);

	for (size_t i = 0; i < n; i++) {
		if (a[i].kind != SA_START) {
			fprintf(stderr, "bench_queue: unexpected action %d for job %" PRIu64 "\n",
			        (int)a[i].kind, a[i].job);
			exit(1);
		}
	}
	sched_clear_actions(s);
	return (uint32_t)n;
}

/* The measured state: 64 running jobs of 16 nodes (estimates 1..10 h,
 * started at t = 0, ids 1..64), then q queued jobs (1..256 nodes,
 * estimates 10 min..10 h, submitted at t = 1 s, ids 1001..). */
static struct sched *build_state(enum sched_policy pol, uint32_t q)
{
	struct sched_params prm = { .policy = pol, .nodes = NODES, .kill_grace = 0 };
	struct sched *s;
	uint64_t st = QUEUE_SEED;
	int rc;

	if ((rc = sched_new(&s, &prm)) != SCHED_OK)
		die("sched_new", rc);
	for (uint32_t i = 0; i < NRUN; i++) {
		bf_time est = SEC(3600) + (SEC(9 * 3600) * i) / (NRUN - 1);

		ok(sched_submit(s, 0, 1 + i, RUN_NODES, est), "submit (running job)");
	}
	ok(sched_run(s, 0), "sched_run (t=0)");
	if (take_starts(s) != NRUN || sched_running_len(s) != NRUN || sched_free_nodes(s) != 0) {
		fprintf(stderr, "bench_queue: the %u first jobs did not all start\n", NRUN);
		exit(1);
	}
	for (uint32_t k = 0; k < q; k++) {
		uint32_t n = (uint32_t)rnd_range(&st, 1, 256);
		bf_time est = rnd_range(&st, MIN_EST, MAX_EST);

		ok(sched_submit(s, SEC(1), 1001 + (uint64_t)k, n, est), "submit (queued job)");
	}
	ok(sched_run(s, SEC(1)), "sched_run (t=1s)");
	if (take_starts(s) != 0 || sched_queue_len(s) != q) {
		fprintf(stderr, "bench_queue: a queued job started on a full machine\n");
		exit(1);
	}
	return s;
}

/* ---- (a) arrival ---- */

struct arrive_res {
	double total_us, submit_us, cancel_us;	/* per op */
	uint64_t reps;
};

static void bench_arrival(enum sched_policy pol, uint32_t q, struct arrive_res *r)
{
	static uint32_t size[NPRE];
	static bf_time est[NPRE];
	struct sched *s = build_state(pol, q);
	uint64_t st = ARRIVE_SEED, id = 100000000, reps = 0;
	const bf_time now = SEC(2);
	double t_sub = 0, t_can = 0, start = clock_s();

	for (uint32_t i = 0; i < NPRE; i++) {
		size[i] = (uint32_t)rnd_range(&st, 1, 256);
		est[i] = rnd_range(&st, MIN_EST, MAX_EST);
	}
	/* Settle the state at `now` first (a no-op pass), outside the timing. */
	ok(sched_run(s, now), "sched_run");
	take_starts(s);
	while (t_sub + t_can < MEASURE_S && clock_s() - start < MAX_WALL_S) {
		for (uint32_t k = 0; k < 256; k++, reps++, id++) {
			uint32_t i = (uint32_t)(reps & (NPRE - 1));
			double a, b, c;
			int rc;

			a = clock_s();
			rc = sched_submit(s, now, id, size[i], est[i]);
			if (rc == SCHED_OK)
				rc = sched_run(s, now);
			b = clock_s();
			if (rc != SCHED_OK)
				die("arrival: submit/run", rc);
			rc = sched_cancel(s, now, id);
			if (rc == SCHED_OK)
				rc = sched_run(s, now);
			c = clock_s();
			if (rc != SCHED_OK)
				die("arrival: cancel/run (the job should still be queued)", rc);
			t_sub += b - a;
			t_can += c - b;
			if (take_starts(s) != 0) {
				fprintf(stderr, "bench_queue: a job started on a full machine\n");
				exit(1);
			}
		}
	}
	if (sched_queue_len(s) != q) {
		fprintf(stderr, "bench_queue: queue length drifted to %u (want %u)\n",
		        sched_queue_len(s), q);
		exit(1);
	}
	check_state(s, now, "after the arrival benchmark");
	r->reps = reps;
	r->submit_us = t_sub / (double)reps * 1e6;
	r->cancel_us = t_can / (double)reps * 1e6;
	r->total_us = r->submit_us + r->cancel_us;
	sched_free(s);
}

/* ---- (b) early end ---- */

struct end_res {
	double us_per_end, ns_per_queued, mean_q;
	double started_per_end, moved_per_end;
	uint64_t ends, batches;
	double rebuild_s;		/* untimed, for information */
};

static void bench_end(enum sched_policy pol, uint32_t q, struct end_res *r)
{
	double timed = 0, qsum = 0, start = clock_s(), rebuild = 0;
	uint64_t ends = 0, batches = 0, started = 0, moved = 0;

	while (batches == 0 || (timed < MEASURE_S && clock_s() - start < MAX_WALL_S)) {
		double b0 = clock_s();
		struct sched *s = build_state(pol, q);
		uint64_t re0 = sched_get_stats(s)->reanchors;
		uint64_t co0 = sched_get_stats(s)->compressions;
		bf_time t = SEC(3);

		rebuild += clock_s() - b0;
		for (uint32_t k = 0; k < NRUN; k++, t += 1000) {
			double a, b;
			int rc;

			qsum += sched_queue_len(s);
			a = clock_s();
			rc = sched_end(s, t, 1 + k, END_EXITED);
			if (rc == SCHED_OK)
				rc = sched_run(s, t);
			b = clock_s();
			if (rc != SCHED_OK)
				die("early end: end/run", rc);
			timed += b - a;
			started += take_starts(s);
			ends++;
		}
		check_state(s, t, "after a batch of early ends");
		moved += sched_get_stats(s)->reanchors - re0;
		if (pol == SCHED_CONSERVATIVE && sched_get_stats(s)->compressions - co0 != NRUN) {
			fprintf(stderr, "bench_queue: expected one compression per early end, got %"
			        PRIu64 " for %u\n", sched_get_stats(s)->compressions - co0, NRUN);
			exit(1);
		}
		sched_free(s);
		batches++;
	}
	r->ends = ends;
	r->batches = batches;
	r->mean_q = qsum / (double)ends;
	r->us_per_end = timed / (double)ends * 1e6;
	r->ns_per_queued = r->mean_q > 0 ? r->us_per_end * 1e3 / r->mean_q : 0;
	r->started_per_end = (double)started / (double)ends;
	r->moved_per_end = (double)moved / (double)ends;
	r->rebuild_s = rebuild / (double)batches;
}

/* ---- (c) the profile alone ---- */

struct prof_res {
	uint32_t breakpoints;
	double anchor_ns, pair_ns, build_s;
	uint64_t anchors, pairs;
};

static void bench_profile(uint32_t want, struct prof_res *r)
{
	static bf_time q_from[NPRE], q_d[NPRE];
	static int64_t q_n[NPRE];
	struct profile p;
	uint64_t st = PROFILE_SEED, reps;
	/* Mean reservation: 32.5 nodes for ~5.1 h; spread the starts over a
	 * horizon that keeps the plan about 70 % full whatever its size. */
	uint64_t nres = want / 2 + 1;
	bf_time horizon = (bf_time)((double)nres * 32.5 * 18300.0 / (0.7 * NODES)) * BF_SEC;
	double t, b0 = clock_s();
	volatile bf_time sink = 0;

	if (profile_init(&p, NODES) < 0)
		die("profile_init", SCHED_E_NOMEM);
	/* A feasible plan, as conservative builds one: each reservation at
	 * its first fit after a random instant. */
	while (profile_size(&p) < want) {
		int64_t n = rnd_range(&st, 1, 64);
		bf_time d = rnd_range(&st, MIN_EST, MAX_EST);
		bf_time a = profile_anchor(&p, n, d, rnd_range(&st, 0, horizon));

		if (a == BF_NEVER)
			die("profile_anchor found no place", SCHED_E_INVAL);
		if (profile_reserve(&p, a, n, d) < 0)
			die("profile_reserve", SCHED_E_NOMEM);
	}
	r->build_s = clock_s() - b0;
	r->breakpoints = profile_size(&p);
	for (uint32_t i = 0; i < NPRE; i++) {
		q_n[i] = rnd_range(&st, 1, 256);
		q_d[i] = rnd_range(&st, MIN_EST, MAX_EST);
		q_from[i] = rnd_range(&st, 0, horizon);
	}

	/* One profile_anchor: a job of 1..256 nodes from a random instant. */
	reps = 0;
	b0 = clock_s();
	do {
		for (uint32_t k = 0; k < 1024; k++, reps++) {
			uint32_t i = (uint32_t)(reps & (NPRE - 1));

			sink = profile_anchor(&p, q_n[i], q_d[i], q_from[i]);
		}
		t = clock_s() - b0;
	} while (t < MEASURE_S);
	r->anchors = reps;
	r->anchor_ns = t / (double)reps * 1e9;
	(void)sink;

	/* A reserve + release pair at a random instant: four point updates
	 * (two inserts, two deletes). The profile ends as it began. */
	reps = 0;
	b0 = clock_s();
	do {
		for (uint32_t k = 0; k < 1024; k++, reps++) {
			uint32_t i = (uint32_t)(reps & (NPRE - 1));

			if (profile_reserve(&p, q_from[i], q_n[i], q_d[i]) < 0)
				die("profile_reserve", SCHED_E_NOMEM);
			if (profile_release(&p, q_from[i], q_n[i], q_d[i]) < 0)
				die("profile_release", SCHED_E_NOMEM);
		}
		t = clock_s() - b0;
	} while (t < MEASURE_S);
	r->pairs = reps;
	r->pair_ns = t / (double)reps * 1e9;
	if (profile_size(&p) != r->breakpoints) {
		fprintf(stderr, "bench_queue: profile changed size (%u -> %u)\n",
		        r->breakpoints, profile_size(&p));
		exit(1);
	}
	profile_destroy(&p);
}

/* ---- main ---- */

static double clock_overhead_ns(void)
{
	double a = clock_s(), b = a;
	uint32_t n = 0;

	for (; n < 200000; n++)
		b = clock_s();
	return (b - a) / n * 1e9;
}

int main(void)
{
	double t0 = clock_s();
	size_t nq = sizeof queue_lengths / sizeof *queue_lengths;
	size_t np = sizeof policies / sizeof *policies;
	size_t nb = sizeof breakpoints / sizeof *breakpoints;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("bench_queue: cost of one event vs queue length Q (scheduler core, no replay)\n");
	printf("machine %u nodes, full: %u running jobs of %u nodes (estimates 1..10 h);\n"
	       "Q queued jobs of 1..256 nodes, estimates 10 min..10 h (fixed seed).\n"
	       "~%.1f s of timed work per figure; clock_gettime costs %.0f ns per read.\n",
	       NODES, NRUN, RUN_NODES, MEASURE_S, clock_overhead_ns());

	printf("\n(a) arrival: submit + sched_run, then cancel + sched_run (Q stays constant)\n");
	printf("%-13s %6s %9s %14s %12s %14s\n", "policy", "Q", "reps",
	       "arrive+cancel", "submit+run", "cancel+run");
	printf("%-13s %6s %9s %14s %12s %14s\n", "", "", "", "us/op", "us", "us");
	for (size_t p = 0; p < np; p++) {
		for (size_t i = 0; i < nq; i++) {
			struct arrive_res r;

			bench_arrival(policies[p], queue_lengths[i], &r);
			printf("%-13s %6u %9" PRIu64 " %14.3f %12.3f %14.3f\n",
			       sched_policy_name(policies[p]), queue_lengths[i], r.reps,
			       r.total_us, r.submit_us, r.cancel_us);
		}
	}

	printf("\n(b) early end: sched_end (hours before the estimate) + sched_run;\n"
	       "    the %u running jobs end one after another, state rebuilt (untimed) per batch\n",
	       NRUN);
	printf("%-13s %6s %8s %7s %10s %12s %9s %9s %10s\n", "policy", "Q", "mean Q", "ends",
	       "us/end", "ns/queued", "started", "moved", "rebuild");
	printf("%-13s %6s %8s %7s %10s %12s %9s %9s %10s\n", "", "", "", "", "", "job", "/end",
	       "/end", "s/batch");
	for (size_t p = 0; p < np; p++) {
		for (size_t i = 0; i < nq; i++) {
			struct end_res r;

			bench_end(policies[p], queue_lengths[i], &r);
			printf("%-13s %6u %8.1f %7" PRIu64 " %10.3f %12.1f %9.2f %9.2f %10.3f\n",
			       sched_policy_name(policies[p]), queue_lengths[i], r.mean_q, r.ends,
			       r.us_per_end, r.ns_per_queued, r.started_per_end, r.moved_per_end,
			       r.rebuild_s);
		}
	}
	printf("    started/end: queued jobs started by the end; moved/end (conservative):\n"
	       "    reservations moved earlier by the compression.\n");

	printf("\n(c) profile alone: B breakpoints (a ~70%% full plan of random reservations)\n");
	printf("%8s %10s %12s %16s %10s\n", "B", "anchor ns", "anchors", "reserve+release",
	       "build s");
	printf("%8s %10s %12s %16s %10s\n", "", "", "", "ns/pair", "");
	for (size_t i = 0; i < nb; i++) {
		struct prof_res r;

		bench_profile(breakpoints[i], &r);
		printf("%8u %10.1f %12" PRIu64 " %16.1f %10.3f\n", r.breakpoints, r.anchor_ns,
		       r.anchors, r.pair_ns, r.build_s);
	}
	printf("    anchor: a job of 1..256 nodes for 10 min..10 h from a random instant.\n");

	printf("\nbench_queue took %.1f s\n", clock_s() - t0);
	return 0;
}
