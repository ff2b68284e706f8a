/* bench_queue: how the cost of one scheduler event grows with the queue.
 *
 * Drives the core directly (no replay, no I/O in the timed regions) on a
 * machine of 1024 nodes that is full of running jobs, with Q = 10, 100,
 * 1000 and 10000 jobs waiting, under conservative and EASY backfilling:
 *
 *  (a) an arrival: submit one job + sched_run, then cancel it + sched_run,
 *      so the queue length stays Q. The two halves are also timed apart.
 *  (b) an early end: a running job ends hours before its estimate +
 *      sched_run (conservative compresses: every queued job is visited;
 *      EASY scans the queue for backfill candidates). The 64 running jobs
 *      end one after another; the state is rebuilt between such batches,
 *      outside the timed region. Jobs that start shrink the queue a little
 *      during a batch, so the mean queue length seen is reported as well.
 *  (c) the reservation profile alone with B breakpoints: one
 *      profile_anchor, and one profile_reserve + profile_release pair.
 *
 * For conservative, "searches" counts the rounds of profile_anchor(_before)
 * (one first-fit and one first-below descent each) that the placements
 * need. They are counted on a model of the plan built with the public
 * profile API, the same way the core builds it (see model_*), outside the
 * timing; they explain costs that grow faster than log(B).
 *
 * Benchmarks may read the clock (the core may not): CLOCK_MONOTONIC, with
 * the cost of one clock read subtracted from every timed region.
 * Figures only; the exit status is 1 only if the core reports an error. */
#include <inttypes.h>
#include <stdbool.h>
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
#define MIN_ENDS	3u		/* (b): at least this many early ends per figure */
#define NPRE		4096u		/* pre-drawn random operands (a power of two) */
#define NMODEL_ARRIVALS	256u		/* arrivals whose searches are counted */

#define SEC(x)		((bf_time)(x) * BF_SEC)
#define MIN_EST		SEC(600)		/* queued estimates: 10 min .. 10 h */
#define MAX_EST		SEC(10 * 3600)
#define T_QUEUE		SEC(1)			/* the queue arrives */
#define T_ARRIVE	SEC(2)			/* (a) happens */
#define T_END		SEC(3)			/* (b) starts; one end per ms */
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

/* What one clock_s() call costs; subtracted once from every timed region. */
static double clock_ovh;

static double since(double a)
{
	double d = clock_s() - a - clock_ovh;

	return d > 0 ? d : 0;
}

static void measure_clock_overhead(void)
{
	double a = clock_s(), b = a;
	uint32_t n;

	for (n = 0; n < 200000; n++)
		b = clock_s();
	clock_ovh = (b - a) / n;
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

static void fail(const char *msg)
{
	fprintf(stderr, "bench_queue: %s\n", msg);
	exit(1);
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

/* The running jobs: 16 nodes each, estimates 1..10 h in even steps. */
static bf_time run_estimate(uint32_t i)
{
	return SEC(3600) + (SEC(9 * 3600) * i) / (NRUN - 1);
}

/* The queued jobs, drawn in this order from QUEUE_SEED by both the state
 * and its model. */
static void queued_job(uint64_t *st, uint32_t *nodes, bf_time *est)
{
	*nodes = (uint32_t)rnd_range(st, 1, 256);
	*est = rnd_range(st, MIN_EST, MAX_EST);
}

/* The measured state: 64 running jobs of 16 nodes (started at t = 0, ids
 * 1..64), then q queued jobs (submitted at T_QUEUE, ids 1001..). */
static struct sched *build_state(enum sched_policy pol, uint32_t q)
{
	struct sched_params prm = { .policy = pol, .nodes = NODES, .kill_grace = 0 };
	struct sched *s;
	uint64_t st = QUEUE_SEED;
	int rc;

	if ((rc = sched_new(&s, &prm)) != SCHED_OK)
		die("sched_new", rc);
	for (uint32_t i = 0; i < NRUN; i++)
		ok(sched_submit(s, 0, 1 + i, RUN_NODES, run_estimate(i)), "submit (running job)");
	ok(sched_run(s, 0), "sched_run (t=0)");
	if (take_starts(s) != NRUN || sched_running_len(s) != NRUN || sched_free_nodes(s) != 0)
		fail("the first jobs did not all start on the empty machine");
	for (uint32_t k = 0; k < q; k++) {
		uint32_t n;
		bf_time est;

		queued_job(&st, &n, &est);
		ok(sched_submit(s, T_QUEUE, 1001 + (uint64_t)k, n, est), "submit (queued job)");
	}
	ok(sched_run(s, T_QUEUE), "sched_run (queue)");
	if (take_starts(s) != 0 || sched_queue_len(s) != q)
		fail("a queued job started on a full machine");
	return s;
}

/* ---- the model of the conservative plan, for counting searches ---- */

/* profile_anchor_before's loop, counting its rounds. *model_ok turns false
 * if the answer differs from the library's (the core changed its search:
 * then the counts no longer describe it). */
static uint64_t rounds_before(const struct profile *p, int64_t n, bf_time d, bf_time from,
                              bf_time limit, bf_time *out, bool *model_ok)
{
	bf_time t = from, s, k;
	uint64_t r = 0;

	for (;;) {
		r++;
		s = profile_first_fit(p, n, t);
		if (s >= limit || s >= BF_NEVER) {
			*out = BF_NEVER;
			break;
		}
		k = profile_first_below(p, n, s, s + d < limit ? s + d : limit);
		if (k == BF_NEVER) {
			*out = s;
			break;
		}
		t = k;
	}
	if (*out != profile_anchor_before(p, n, d, from, limit, limit))
		*model_ok = false;
	return r;
}

struct model {
	struct profile p;
	uint32_t q;
	uint32_t *nodes;
	bf_time *est, *resv;
	uint64_t place_rounds;		/* to place the queue */
};

/* The conservative plan of build_state: running holds, then each queued
 * job at its first fit from T_QUEUE, in arrival order. */
static void model_build(struct model *m, uint32_t q, bool *model_ok)
{
	uint64_t st = QUEUE_SEED;

	memset(m, 0, sizeof *m);
	m->q = q;
	m->nodes = malloc((q ? q : 1) * sizeof *m->nodes);
	m->est = malloc((q ? q : 1) * sizeof *m->est);
	m->resv = malloc((q ? q : 1) * sizeof *m->resv);
	if (!m->nodes || !m->est || !m->resv || profile_init(&m->p, NODES) < 0)
		die("model", SCHED_E_NOMEM);
	for (uint32_t i = 0; i < NRUN; i++)
		if (profile_reserve(&m->p, 0, RUN_NODES, run_estimate(i)) < 0)
			die("model", SCHED_E_NOMEM);
	for (uint32_t k = 0; k < q; k++) {
		queued_job(&st, &m->nodes[k], &m->est[k]);
		m->place_rounds += rounds_before(&m->p, m->nodes[k], m->est[k], T_QUEUE, BF_NEVER,
		                                 &m->resv[k], model_ok);
		if (m->resv[k] == BF_NEVER || profile_reserve(&m->p, m->resv[k], m->nodes[k],
		                                              m->est[k]) < 0)
			die("model: placing a queued job", SCHED_E_NOMEM);
	}
}

static void model_free(struct model *m)
{
	profile_destroy(&m->p);
	free(m->nodes);
	free(m->est);
	free(m->resv);
}

/* Searches of the compression after running job 1 ends at T_END: each
 * queued job, in arrival order, looks for a start before its reservation
 * and moves there if it finds one. Returns the rounds; *moved the moves. */
static uint64_t model_first_compression(struct model *m, uint64_t *moved, bool *model_ok)
{
	uint64_t r = 0;

	*moved = 0;
	if (profile_release(&m->p, 0, RUN_NODES, run_estimate(0)) < 0)
		die("model", SCHED_E_NOMEM);
	for (uint32_t k = 0; k < m->q; k++) {
		bf_time a;

		if (m->resv[k] <= T_END)
			continue;
		r += rounds_before(&m->p, m->nodes[k], m->est[k], T_END, m->resv[k], &a, model_ok);
		if (a != BF_NEVER) {
			if (profile_release(&m->p, m->resv[k], m->nodes[k], m->est[k]) < 0 ||
			    profile_reserve(&m->p, a, m->nodes[k], m->est[k]) < 0)
				die("model", SCHED_E_NOMEM);
			m->resv[k] = a;
			(*moved)++;
		}
	}
	return r;
}

/* ---- (a) arrival ---- */

static uint32_t arr_size[NPRE];
static bf_time arr_est[NPRE];

static void draw_arrivals(void)
{
	uint64_t st = ARRIVE_SEED;

	for (uint32_t i = 0; i < NPRE; i++) {
		arr_size[i] = (uint32_t)rnd_range(&st, 1, 256);
		arr_est[i] = rnd_range(&st, MIN_EST, MAX_EST);
	}
}

struct arrive_res {
	double total_us, submit_us, cancel_us;	/* per op */
	uint64_t reps;
	double searches;		/* conservative: rounds per arrival, model */
	double place_searches;		/* conservative: rounds per queued job, model */
	double first_compr_searches;	/* rounds per queued job, first compression */
	double first_compr_moved;	/* jobs moved by it */
};

static void bench_arrival(enum sched_policy pol, uint32_t q, struct arrive_res *r)
{
	struct sched *s = build_state(pol, q);
	uint64_t id = 100000000, reps = 0;
	double t_sub = 0, t_can = 0, start = clock_s();

	/* Settle the state at T_ARRIVE first (a no-op pass), outside the timing. */
	ok(sched_run(s, T_ARRIVE), "sched_run");
	take_starts(s);
	while (reps == 0 || (t_sub + t_can < MEASURE_S && clock_s() - start < MAX_WALL_S)) {
		uint32_t i = (uint32_t)(reps & (NPRE - 1));
		double a;
		int rc;

		a = clock_s();
		rc = sched_submit(s, T_ARRIVE, id, arr_size[i], arr_est[i]);
		if (rc == SCHED_OK)
			rc = sched_run(s, T_ARRIVE);
		t_sub += since(a);
		if (rc != SCHED_OK)
			die("arrival: submit/run", rc);
		a = clock_s();
		rc = sched_cancel(s, T_ARRIVE, id);
		if (rc == SCHED_OK)
			rc = sched_run(s, T_ARRIVE);
		t_can += since(a);
		if (rc != SCHED_OK)
			die("arrival: cancel/run (the job should still be queued)", rc);
		if (take_starts(s) != 0)
			fail("an arrival started a job on a full machine");
		reps++;
		id++;
	}
	if (sched_queue_len(s) != q)
		fail("the queue length drifted in the arrival benchmark");
	check_state(s, T_ARRIVE, "after the arrival benchmark");
	sched_free(s);
	r->reps = reps;
	r->submit_us = t_sub / (double)reps * 1e6;
	r->cancel_us = t_can / (double)reps * 1e6;
	r->total_us = r->submit_us + r->cancel_us;
}

/* The searches of conservative arrivals, on the model (untimed). */
static void count_arrival_searches(uint32_t q, struct arrive_res *r, bool *model_ok)
{
	struct model m;
	uint64_t rounds = 0, moved;

	model_build(&m, q, model_ok);
	r->place_searches = q ? (double)m.place_rounds / q : 0;
	for (uint32_t i = 0; i < NMODEL_ARRIVALS; i++) {
		bf_time a;

		rounds += rounds_before(&m.p, arr_size[i], arr_est[i], T_ARRIVE, BF_NEVER, &a,
		                        model_ok);
	}
	r->searches = (double)rounds / NMODEL_ARRIVALS;
	rounds = model_first_compression(&m, &moved, model_ok);
	r->first_compr_searches = q ? (double)rounds / q : 0;
	r->first_compr_moved = (double)moved;
	model_free(&m);
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
	bool done = false;

	while (!done) {
		double b0 = clock_s();
		struct sched *s = build_state(pol, q);
		uint64_t re0 = sched_get_stats(s)->reanchors;
		uint64_t co0 = sched_get_stats(s)->compressions;
		bf_time t = T_END;
		uint32_t k;

		rebuild += clock_s() - b0;
		for (k = 0; k < NRUN && !done; k++, t += 1000) {
			double a;
			int rc;

			qsum += sched_queue_len(s);
			a = clock_s();
			rc = sched_end(s, t, 1 + k, END_EXITED);
			if (rc == SCHED_OK)
				rc = sched_run(s, t);
			timed += since(a);
			if (rc != SCHED_OK)
				die("early end: end/run", rc);
			started += take_starts(s);
			ends++;
			/* Big queues: stop inside a batch once enough is timed. */
			done = ends >= MIN_ENDS &&
			       (timed >= MEASURE_S || clock_s() - start >= MAX_WALL_S);
		}
		check_state(s, t, "after a batch of early ends");
		moved += sched_get_stats(s)->reanchors - re0;
		if (pol == SCHED_CONSERVATIVE && sched_get_stats(s)->compressions - co0 != k)
			fail("expected one compression per early end");
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
	double anchor_ns, pair_ns, build_s, searches;
	uint64_t anchors, pairs;
};

static void bench_profile(uint32_t want, struct prof_res *r, bool *model_ok)
{
	static bf_time q_from[NPRE], q_d[NPRE];
	static int64_t q_n[NPRE];
	struct profile p;
	uint64_t st = PROFILE_SEED, reps, rounds = 0;
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
			fail("profile_anchor found no place on an empty-enough profile");
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

	/* One profile_anchor: a job of 1..256 nodes from a random instant.
	 * Timed in runs of 256 calls (the clock would weigh on single calls). */
	reps = 0;
	t = 0;
	do {
		double a = clock_s();

		for (uint32_t k = 0; k < 256; k++, reps++) {
			uint32_t i = (uint32_t)(reps & (NPRE - 1));

			sink = profile_anchor(&p, q_n[i], q_d[i], q_from[i]);
		}
		t += since(a);
	} while (t < MEASURE_S);
	r->anchors = reps;
	r->anchor_ns = t / (double)reps * 1e9;
	(void)sink;
	for (uint32_t i = 0; i < NPRE; i++) {
		bf_time a;

		rounds += rounds_before(&p, q_n[i], q_d[i], q_from[i], BF_NEVER, &a, model_ok);
	}
	r->searches = (double)rounds / NPRE;

	/* A reserve + release pair at a random instant: four point updates
	 * (two inserts, two deletes). The profile ends as it began. */
	reps = 0;
	t = 0;
	do {
		double a = clock_s();

		for (uint32_t k = 0; k < 256; k++, reps++) {
			uint32_t i = (uint32_t)(reps & (NPRE - 1));

			if (profile_reserve(&p, q_from[i], q_n[i], q_d[i]) < 0)
				die("profile_reserve", SCHED_E_NOMEM);
			if (profile_release(&p, q_from[i], q_n[i], q_d[i]) < 0)
				die("profile_release", SCHED_E_NOMEM);
		}
		t += since(a);
	} while (t < MEASURE_S);
	r->pairs = reps;
	r->pair_ns = t / (double)reps * 1e9;
	if (profile_size(&p) != r->breakpoints)
		fail("reserve + release changed the profile's size");
	profile_destroy(&p);
}

/* ---- main ---- */

#define NQ (sizeof queue_lengths / sizeof *queue_lengths)
#define NP (sizeof policies / sizeof *policies)
#define NB (sizeof breakpoints / sizeof *breakpoints)

int main(void)
{
	double t0 = clock_s();
	struct arrive_res model[NQ];
	bool model_ok = true;

	setvbuf(stdout, NULL, _IOLBF, 0);
	measure_clock_overhead();
	draw_arrivals();
	printf("bench_queue: cost of one event vs queue length Q (scheduler core, no replay)\n");
	printf("machine %u nodes, full: %u running jobs of %u nodes (estimates 1..10 h);\n"
	       "Q queued jobs of 1..256 nodes, estimates 10 min..10 h (fixed seed).\n"
	       "~%.1f s of timed work per figure; one clock read (%.0f ns) subtracted per timed "
	       "region.\n", NODES, NRUN, RUN_NODES, MEASURE_S, clock_ovh * 1e9);
	for (size_t i = 0; i < NQ; i++)
		count_arrival_searches(queue_lengths[i], &model[i], &model_ok);

	printf("\n(a) arrival: submit + sched_run, then cancel + sched_run (Q stays constant)\n");
	printf("%-13s %6s %8s %14s %12s %12s %10s\n", "policy", "Q", "reps",
	       "arrive+cancel", "submit+run", "cancel+run", "searches");
	printf("%-13s %6s %8s %14s %12s %12s %10s\n", "", "", "", "us/op", "us", "us",
	       "/arrival");
	for (size_t p = 0; p < NP; p++) {
		for (size_t i = 0; i < NQ; i++) {
			struct arrive_res r;

			bench_arrival(policies[p], queue_lengths[i], &r);
			printf("%-13s %6u %8" PRIu64 " %14.3f %12.3f %12.3f",
			       sched_policy_name(policies[p]), queue_lengths[i], r.reps,
			       r.total_us, r.submit_us, r.cancel_us);
			if (policies[p] == SCHED_CONSERVATIVE)
				printf(" %10.1f\n", model[i].searches);
			else
				printf(" %10s\n", "-");
		}
	}
	printf("    conservative: cancelling a queued job opens a hole, so cancel+run compresses\n"
	       "    the whole plan; searches/arrival: rounds of profile_anchor for the newcomer.\n");

	printf("\n(b) early end: sched_end (hours before the estimate) + sched_run; the %u running\n"
	       "    jobs end one after another, the state is rebuilt (untimed) between batches\n",
	       NRUN);
	printf("%-13s %6s %8s %6s %11s %11s %8s %8s %10s %9s\n", "policy", "Q", "mean Q", "ends",
	       "us/end", "ns per", "started", "moved", "searches", "rebuild");
	printf("%-13s %6s %8s %6s %11s %11s %8s %8s %10s %9s\n", "", "", "", "", "", "queued job",
	       "/end", "/end", "/job", "s");
	for (size_t p = 0; p < NP; p++) {
		for (size_t i = 0; i < NQ; i++) {
			struct end_res r;

			bench_end(policies[p], queue_lengths[i], &r);
			printf("%-13s %6u %8.1f %6" PRIu64 " %11.3f %11.1f %8.2f %8.2f",
			       sched_policy_name(policies[p]), queue_lengths[i], r.mean_q, r.ends,
			       r.us_per_end, r.ns_per_queued, r.started_per_end, r.moved_per_end);
			if (policies[p] == SCHED_CONSERVATIVE)
				printf(" %10.1f", model[i].first_compr_searches);
			else
				printf(" %10s", "-");
			printf(" %9.3f\n", r.rebuild_s);
		}
	}
	printf("    started/end: queued jobs the end let start; moved/end (conservative): jobs\n"
	       "    the compression moved earlier; searches/job: anchor rounds per queued job in\n"
	       "    the first compression if every hole before each reservation were searched (a\n"
	       "    model; the core bounds the search by the regions freed since the job settled,\n"
	       "    see common/sched_cons.c); rebuild: building the state once (Q arrivals).\n");
	printf("    conservative, searches per job to place the queue on arrival:\n    ");
	for (size_t i = 0; i < NQ; i++)
		printf("%sQ=%u: %.1f", i ? ", " : "", queue_lengths[i], model[i].place_searches);
	printf("\n");

	printf("\n(c) profile alone: B breakpoints (a ~70%% full plan of random reservations)\n");
	printf("%8s %10s %10s %10s %16s %9s\n", "B", "anchor", "searches", "anchors",
	       "reserve+release", "build");
	printf("%8s %10s %10s %10s %16s %9s\n", "", "ns", "/anchor", "timed", "ns/pair", "s");
	for (size_t i = 0; i < NB; i++) {
		struct prof_res r;

		bench_profile(breakpoints[i], &r, &model_ok);
		printf("%8u %10.1f %10.2f %10" PRIu64 " %16.1f %9.3f\n", r.breakpoints,
		       r.anchor_ns, r.searches, r.anchors, r.pair_ns, r.build_s);
	}
	printf("    anchor: a job of 1..256 nodes for 10 min..10 h from a random instant;\n"
	       "    one search = one first-fit + one first-below descent, O(log B) each.\n");
	if (!model_ok)
		printf("\nnote: profile_anchor_before no longer answers as the search model does;\n"
		       "the 'searches' columns may not describe the core any more.\n");

	printf("\nbench_queue took %.1f s\n", clock_s() - t0);
	return 0;
}
