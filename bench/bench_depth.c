/* bench_depth: conservative backfilling with a deep queue, event by event.
 *
 * The scheduler core alone (no I/O in the timed regions), in the tight
 * workload of bench_daemon: 65 nodes, a blocker job holding 64 of them for
 * an hour, and Q jobs of 2..65 nodes (estimates 1 min .. 4 h) queued behind
 * it, so that every job waits and the plan is as long as the queue. The
 * core runs as the live daemon drives it: one slice of a compression pass
 * (or of placing again) per sched_run (compress_passes = 1,
 * compress_slice = SCHED_LIVE_SLICE, place_slice = SCHED_LIVE_PLACES, as
 * daemon/serve/server.c), the next asked for at once by sched_next_wakeup, and
 * the calls grouped into turns of the daemon's loop as drive.c does (up to
 * SCHED_LIVE_CALLS calls, or SCHED_LIVE_TURN): the longest turn is the
 * longest the loop is held by the core ("per slice"), and the sum is the
 * whole event. With Q = 10,000 and 100,000, in this order on one state
 * (the queue stays about Q):
 *
 *   arrival     one more job: sched_submit + the calls that follow
 *   cancel head the first queued job cancelled: the plan is compressed
 *   node down   a node of the blocker fails: the plan is repaired
 *   early end   the blocker ends 50 min early: the plan is compressed and
 *               the jobs that fit start
 *   to EASY     the policy becomes EASY: every guarantee but the head's
 *               is dropped, and announced (broken)
 *   to cons.    and conservative again: every queued job placed anew
 *
 * Each event's figures: total ms, turns, the longest turn in ms,
 * jobs moved earlier, guarantees broken. Building the queue (Q arrivals)
 * is timed too: the core's share of a fill.
 *
 * An event whose settling takes more than BENCH_DEPTH_EVENT_S seconds
 * (default 30) is stopped there and reported UNFINISHED with what it took
 * so far: the plan is whole after every pass, so the next event can go on.
 *
 * Usage: bench_depth [Q...]  (default 10000 100000)
 * Benchmarks may read the clock (the core may not). Figures only; the exit
 * status is 1 only if the core reports an error or breaks an invariant. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bf_time.h"
#include "sched.h"

#define NODES		65u
#define BLOCK_NODES	64u
#define BLOCK_ID	1u
#define SEC(x)		((bf_time)(x) * BF_SEC)
#define EST_MIN		SEC(60)
#define EST_MAX		SEC(4 * 3600)
#define SEED		0x5eed00d1u

static double clock_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rnd(uint64_t *st)
{
	uint64_t z = (*st += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static void ok(int rc, const char *what)
{
	if (rc != SCHED_OK) {
		fprintf(stderr, "bench_depth: %s: %s (%d)\n", what, sched_strerror(rc), rc);
		exit(1);
	}
}

struct event_cost {
	double total_s, longest_s;
	uint32_t calls, started, broken;
	bool unfinished;	/* stopped after event_budget_s */
};

/* Seconds of sched_run calls one event may take here before the bench
 * moves on (the plan is whole after every call; the rest of the settling
 * is left undone): BENCH_DEPTH_EVENT_S, default 30. */
static double event_budget_s = 30;

/* Drop the pending actions, counting starts and broken guarantees. */
static void take_actions(struct sched *s, struct event_cost *c)
{
	size_t n;
	const struct sched_action *a = sched_actions(s, &n);

	for (size_t k = 0; k < n; k++) {
		if (a[k].kind == SA_START)
			c->started++;
		else if (a[k].kind == SA_BROKEN)
			c->broken++;
	}
	sched_clear_actions(s);
}

/* The event (already applied, costing `first_s`) and the sched_run calls
 * that follow it at `now`, in turns as the daemon's loop makes them. */
static void settle(struct sched *s, bf_time now, double first_s, struct event_cost *c)
{
	c->total_s = c->longest_s = first_s;
	c->calls = 0;
	c->unfinished = false;
	do {
		double t0 = clock_s(), d;

		if (c->total_s > event_budget_s) {
			c->unfinished = true;
			break;
		}
		for (uint32_t k = 1;; k++) {
			ok(sched_run(s, now), "sched_run");
			if (k >= SCHED_LIVE_CALLS || sched_next_wakeup(s) > now ||
			    clock_s() - t0 >= (double)SCHED_LIVE_TURN / 1e6)
				break;
		}
		d = clock_s() - t0;
		c->total_s += d;
		if (d > c->longest_s)
			c->longest_s = d;
		c->calls++;
		take_actions(s, c);
	} while (sched_next_wakeup(s) <= now);
}

static void check(const struct sched *s, bf_time now, const char *when)
{
	char msg[300];

	if (sched_check(s, now, msg, sizeof msg) != 0) {
		fprintf(stderr, "bench_depth: invariant broken after %s: %s\n", when, msg);
		exit(1);
	}
}

static uint64_t reanchors(const struct sched *s)
{
	return sched_get_stats(s)->reanchors;
}

static void report(uint32_t q, const char *what, const struct event_cost *c, uint64_t moved)
{
	printf("%8u  %-11s %10.2f %6u %10.2f %8" PRIu64 " %7u %7u%s\n", q, what, c->total_s * 1e3,
	       c->calls, c->longest_s * 1e3, moved, c->started, c->broken,
	       c->unfinished ? "   UNFINISHED: stopped here" : "");
	fflush(stdout);
}

enum event_kind { EV_ARRIVAL, EV_CANCEL_HEAD, EV_NODE_DOWN, EV_EARLY_END, EV_TO_EASY, EV_TO_CONS };

static const char *const event_names[] = { "arrival", "cancel head", "node down", "early end",
                                           "to EASY", "to cons." };

/* One event at `now` and its settling, timed and reported; `id`: the
 * newcomer's, for an arrival. */
static void event(struct sched *s, uint32_t q, enum event_kind ev, bf_time now, uint64_t id)
{
	struct event_cost c = { 0 };
	uint64_t moved = reanchors(s);
	uint32_t nodes[NODES], nn = 0;
	double t0;

	if (ev == EV_NODE_DOWN && (nn = sched_job_nodes(s, BLOCK_ID, nodes, NODES)) == 0) {
		fprintf(stderr, "bench_depth: the blocker holds no node\n");
		exit(1);
	}
	t0 = clock_s();
	switch (ev) {
	case EV_ARRIVAL:
		ok(sched_submit(s, now, id, 2, SEC(600)), "submit");
		break;
	case EV_CANCEL_HEAD:	/* the first job queued behind the blocker */
		ok(sched_cancel(s, now, BLOCK_ID + 1), "cancel the head");
		break;
	case EV_NODE_DOWN:	/* the blocker's: it ends as failed */
		ok(sched_node_down(s, now, nodes[nn - 1]), "node down");
		break;
	case EV_EARLY_END:
		ok(sched_end(s, now, BLOCK_ID, END_EXITED), "early end");
		break;
	case EV_TO_EASY:
		ok(sched_set_policy(s, now, SCHED_EASY), "switch to EASY");
		break;
	case EV_TO_CONS:
		ok(sched_set_policy(s, now, SCHED_CONSERVATIVE), "switch to conservative");
		break;
	}
	settle(s, now, clock_s() - t0, &c);
	check(s, now, event_names[ev]);
	report(q, event_names[ev], &c, reanchors(s) - moved);
}

static void depth(uint32_t q)
{
	struct sched_params prm = { .policy = SCHED_CONSERVATIVE, .nodes = NODES,
	                            .compress_passes = 1,
	                            .compress_slice = SCHED_LIVE_SLICE,
	                            .place_slice = SCHED_LIVE_PLACES };
	struct sched *s;
	struct event_cost c = { 0 };
	uint64_t st = SEED, id = BLOCK_ID;
	bf_time now = SEC(1);
	double t0, fill;

	ok(sched_new(&s, &prm), "sched_new");
	ok(sched_submit(s, now, BLOCK_ID, BLOCK_NODES, SEC(3600)), "submit blocker");
	settle(s, now, 0, &c);
	now += SEC(1);
	t0 = clock_s();
	for (uint32_t k = 0; k < q; k++) {
		uint32_t n = 2 + (uint32_t)(rnd(&st) % (NODES - 1));
		bf_time est = EST_MIN + (bf_time)(rnd(&st) % (uint64_t)(EST_MAX - EST_MIN));

		ok(sched_submit(s, now, ++id, n, est), "submit");
		ok(sched_run(s, now), "sched_run");
		sched_clear_actions(s);
	}
	fill = clock_s() - t0;
	check(s, now, "the fill");
	printf("%8u  %-11s %10.2f %6s %10.4f %8s %7s %7s   (%.0f arrivals/s)\n", q, "fill",
	       fill * 1e3, "-", fill / q * 1e3, "-", "-", "-", q / fill);
	fflush(stdout);

	event(s, q, EV_ARRIVAL, now += SEC(1), ++id);
	event(s, q, EV_CANCEL_HEAD, now += SEC(1), 0);
	event(s, q, EV_NODE_DOWN, now += SEC(1), 0);
	event(s, q, EV_EARLY_END, now += SEC(600), 0);
	event(s, q, EV_TO_EASY, now += SEC(1), 0);
	event(s, q, EV_TO_CONS, now += SEC(1), 0);
	sched_free(s);
}

int main(int argc, char **argv)
{
	const char *b = getenv("BENCH_DEPTH_EVENT_S");

	if (b && atof(b) > 0)
		event_budget_s = atof(b);
	printf("bench_depth: conservative, the tight workload of bench_daemon in the core:\n"
	       "%u nodes, a blocker on %u for 1 h, Q jobs of 2..%u nodes (1 min .. 4 h)\n"
	       "behind it; a slice of a compression pass (%u units of work) or %u jobs placed\n"
	       "again per sched_run, up to %u calls or %.0f ms a turn, as the live daemon runs it.\n\n",
	       NODES, BLOCK_NODES, NODES, SCHED_LIVE_SLICE, SCHED_LIVE_PLACES, SCHED_LIVE_CALLS,
	       (double)SCHED_LIVE_TURN / 1e3);
	printf("%8s  %-11s %10s %6s %10s %8s %7s %7s\n", "Q", "event", "total ms", "turns",
	       "longest ms", "moved", "started", "broken");
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			depth((uint32_t)strtoul(argv[i], NULL, 10));
	} else {
		depth(10000);
		depth(100000);
	}
	printf("    total: the event and every sched_run it needs; turns: the daemon's loop turns\n"
	       "    they make (slices of a compression pass or of placing again); longest: the\n"
	       "    longest turn (or the event's own call), the daemon's loop held at once by the\n"
	       "    core; fill: the Q arrivals (longest: per arrival);\n"
	       "    moved: guarantees moved earlier; broken: guarantees made later;\n"
	       "    UNFINISHED: stopped after %.0f s (BENCH_DEPTH_EVENT_S), not settled.\n",
	       event_budget_s);
	return 0;
}
