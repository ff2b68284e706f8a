/* The offered load and the factor that reaches a target (common/offered.c),
 * checked by hand and against the scaling the replay does (shape_scale):
 * the span it gives is the one the factor was worked out for, and no other
 * whole span comes nearer the target. */
#include <math.h>
#include <stdint.h>
#include "../tap.h"
#include "offered.h"
#include "shaping.h"

#define S(x) ((bf_time)((x) * (double)BF_SEC))
#define DAY 86400

static void test_load(void)
{
	ok(offered_load(500, 2, S(250)) == 1.0, "500 node-s on 2 nodes over 250 s: load 1");
	ok(fabs(offered_load(15292800, 10, S(89 * DAY)) - 17.7 / 89) < 1e-15,
	   "the months trace: 15292800 node-s on 10 nodes over 89 days");
	ok(isnan(offered_load(500, 2, 0)) && isnan(offered_load(500, 0, S(1))),
	   "no span or no nodes: no load");
}

static void test_factor_by_hand(void)
{
	double f, reached;

	/* The months trace to 0.5: a span of 15292800 / 5 = 3058560 s. */
	ok(offered_factor(15292800, 10, S(89 * DAY), 0.5, &f, &reached) == 0, "0.5 is reachable");
	ok(fabs(f - 7689600.0 / 3058560) < 1e-12, "factor 7689600 / 3058560 = %.6f", f);
	ok(reached == 0.5, "reached exactly: 0.5");
	/* 1000 node-s on 1 node over 1000 s to 0.3: 3333.3 s, so 3333 s. */
	int rc = offered_factor(1000, 1, S(1000), 0.3, &f, &reached);
	ok(rc == 0 && fabs(f - 1000.0 / 3333) < 1e-15 && reached == 1000.0 / 3333,
	   "0.3 from 1000 node-s: the nearest whole span, 3333 s: %.7f", reached);
	/* A target beyond what a second can hold: the span is one second. */
	ok(offered_factor(10, 1, S(100), 1000, &f, &reached) == 0 && f == 100 && reached == 10,
	   "a span under a second: one second, load 10");
	ok(offered_factor(10, 1, 0, 0.5, &f, &reached) == -1, "no span: no factor");
	ok(offered_factor(0, 1, S(10), 0.5, &f, &reached) == -1, "no work: no factor");
	ok(offered_factor(10, 1, S(10), 0, &f, &reached) == -1, "target 0: no factor");
}

/* Deterministic noise (splitmix64). */
static uint64_t state = 12345;

static double uniform(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* Random workloads: scaling by the factor (as the replay does) gives the
 * span the factor promised, and the load reached is the nearest a whole
 * span can give, within half a second of span of the target. */
static void test_factor_scaled(void)
{
	enum { JOBS = 50, ROUNDS = 2000 };
	int spans = 1, nearest = 1, within = 1;

	for (int r = 0; r < ROUNDS; r++) {
		struct shape_job j[JOBS];
		bool keep[JOBS];
		bf_time t = S(1000);
		double work = 0, f, reached, target = 0.05 + 2 * uniform();
		uint32_t nodes = 1 + (uint32_t)(uniform() * 1000);

		for (int i = 0; i < JOBS; i++) {
			t += S(floor(uniform() * 5000));
			j[i] = (struct shape_job){ .submit = t, .user = 1 };
			keep[i] = true;
			work += floor(1 + uniform() * 64) * floor(uniform() * 20000);
		}
		if (offered_factor(work, nodes, j[JOBS - 1].submit - j[0].submit, target, &f,
		                   &reached) < 0)
			continue;
		shape_scale(j, JOBS, keep, f);
		double span_s = (double)((j[JOBS - 1].submit - j[0].submit) / BF_SEC);
		double got = offered_load(work, nodes, j[JOBS - 1].submit - j[0].submit);

		spans &= got == reached;
		for (int d = -1; d <= 1; d += 2)
			if (span_s + d >= 1)
				nearest &= fabs(got - target) <=
				           fabs(work / ((double)nodes * (span_s + d)) - target);
		within &= span_s == 1 || fabs(work / ((double)nodes * target) - span_s) <= 0.5;
	}
	ok(spans, "scaled as the replay scales, the span gives the load the factor promised");
	ok(nearest, "no whole span a second longer or shorter comes nearer the target");
	ok(within, "the span is within half a second of the exact one");
}

int main(void)
{
	test_load();
	test_factor_by_hand();
	test_factor_scaled();
	return tap_done();
}
