/* The profile against a brute-force model: an array of free nodes per
 * instant over a small time range, checked after random reserve/release. */
#include <stdlib.h>
#include <string.h>
#include "profile.h"
#include "tap.h"

#define T 200			/* model instants 0..T-1; later instants are free */
#define CAP 16

static int64_t model[T + 64];

static int64_t m_free(bf_time t) { return t < T + 64 ? model[t] : CAP; }

static bf_time m_anchor(int64_t n, bf_time d, bf_time from)
{
	for (bf_time t = from; t < T + 64; t++) {
		bf_time u;

		for (u = t; u < t + d && m_free(u) >= n; u++)
			;
		if (u == t + d)
			return t;
	}
	return BF_NEVER;
}

/* Earliest t in [from, before) with n free at t and over all of
 * [t, min(t + d, clip)). */
static bf_time m_anchor_before(int64_t n, bf_time d, bf_time from, bf_time before, bf_time clip)
{
	for (bf_time t = from; t < before && t < T + 64; t++) {
		bf_time end = t + d < clip ? t + d : clip, u;

		if (m_free(t) < n)
			continue;
		for (u = t; u < end && m_free(u) >= n; u++)
			;
		if (u >= end)
			return t;
	}
	return BF_NEVER;
}

struct resv { bf_time t, d; int64_t n; };

static void hand_cases(void)
{
	struct profile p;

	profile_init(&p, 10);
	ok_eq(profile_free_at(&p, 0), 10, "empty profile is all free");
	ok_eq(profile_anchor(&p, 10, 100, 5), 5, "empty profile anchors at from");
	ok_eq(profile_anchor(&p, 11, 1, 0), BF_NEVER, "more than capacity never fits");
	profile_reserve(&p, 0, 6, 100);		/* 4 free on [0,100) */
	profile_reserve(&p, 100, 8, 50);	/* 2 free on [100,150) */
	ok_eq(profile_free_at(&p, 99), 4, "free before a breakpoint");
	ok_eq(profile_free_at(&p, 100), 2, "free at a breakpoint (half-open)");
	ok_eq(profile_free_at(&p, 150), 10, "free after the last reservation");
	ok_eq(profile_anchor(&p, 4, 100, 0), 0, "a hole exactly as long as the job fits");
	ok_eq(profile_anchor(&p, 4, 101, 0), 150, "a hole one unit too short is skipped");
	ok_eq(profile_anchor(&p, 4, 101, 0), 150, "anchor does not change the profile");
	ok_eq(profile_anchor(&p, 2, 1000, 0), 0, "small job fits from the start");
	ok_eq(profile_anchor(&p, 3, 101, 0), 150, "3 nodes: the [100,150) step is too low");
	ok_eq(profile_anchor(&p, 2, 101, 0), 0, "2 nodes: the low step is enough");
	ok_eq(profile_anchor(&p, 4, 50, 60), 150, "from inside a period");
	ok_eq(profile_anchor(&p, 4, 40, 60), 60, "fits exactly before the drop at 100");
	ok_eq(profile_first_fit(&p, 5, 0), 150, "first fit");
	ok_eq(profile_first_below(&p, 3, 0, 1000), 100, "first below");
	ok_eq(profile_first_below(&p, 3, 0, 100), BF_NEVER, "first below is bounded");
	ok_eq(profile_size(&p), 3, "two reservations sharing a breakpoint: 3 keys");
	profile_release(&p, 100, 8, 50);
	profile_release(&p, 0, 6, 100);
	ok_eq(profile_size(&p), 0, "releasing everything removes every breakpoint");
	ok_eq(profile_next_change(&p, 0), BF_NEVER, "no change left");
	/* Cleared: empty, and as good as new for what comes. */
	for (bf_time t = 0; t < 1000; t += 10)
		profile_reserve(&p, t, 1 + t % 7, 15);
	profile_clear(&p);
	ok(profile_size(&p) == 0 && profile_free_at(&p, 500) == 10 &&
	   profile_next_change(&p, 0) == BF_NEVER, "cleared: nothing reserved");
	profile_reserve(&p, 100, 6, 50);
	ok(profile_size(&p) == 2 && profile_anchor(&p, 5, 20, 0) == 0 &&
	   profile_anchor(&p, 5, 200, 0) == 150 && profile_free_at(&p, 120) == 4,
	   "cleared, then reserved: searched as a new plan");
	profile_destroy(&p);
}

static void random_cases(void)
{
	struct profile p;
	struct resv *rs = calloc(4096, sizeof *rs);
	int nr = 0, bad_free = 0, bad_anchor = 0, bad_below = 0, bad_fit = 0, ops = 0;
	int bad_walk = 0, bad_hops = 0, bad_walk2 = 0, bad_tree = 0, walks = 0, bad_min = 0, mins = 0;
	unsigned seed = 12345;

	profile_init(&p, CAP);
	for (int i = 0; i < T + 64; i++)
		model[i] = CAP;
	for (int step = 0; step < 20000; step++) {
		seed = seed * 1103515245 + 12345;
		unsigned r = seed >> 8;
		if ((r % 3 != 0 || nr == 0) && nr < 4096) {
			/* Reserve where the model says it fits, like the scheduler. */
			int64_t n = 1 + (r >> 4) % CAP;
			bf_time d = 1 + (r >> 9) % 40, from = (r >> 15) % 150;
			bf_time a = m_anchor(n, d, from);
			bf_time b = profile_anchor(&p, n, d, from);

			bad_anchor += a != b;
			if (a == BF_NEVER || a + d > T)
				continue;
			profile_reserve(&p, a, n, d);
			for (bf_time t = a; t < a + d; t++)
				model[t] -= n;
			rs[nr++] = (struct resv){ a, d, n };
		} else {
			int k = (r >> 4) % nr;

			profile_release(&p, rs[k].t, rs[k].n, rs[k].d);
			for (bf_time t = rs[k].t; t < rs[k].t + rs[k].d; t++)
				model[t] += rs[k].n;
			rs[k] = rs[--nr];
		}
		ops++;
		for (bf_time t = 0; t < T; t += 7)
			bad_free += profile_free_at(&p, t) != m_free(t);
		for (int64_t n = 1; n <= CAP; n += 5) {
			bf_time from = (r >> 3) % T, fb = BF_NEVER, ff = BF_NEVER;

			for (bf_time t = from; t < from + 30; t++)
				if (m_free(t) < n) { fb = t; break; }
			for (bf_time t = from; t < T + 64; t++)
				if (m_free(t) >= n) { ff = t; break; }
			bad_below += profile_first_below(&p, n, from, from + 30) != fb;
			if (n == 1) {	/* the least free over a window, once a step */
				bf_time until = from + 1 + (r >> 11) % 60;
				int64_t least = INT64_MAX;

				for (bf_time t = from; t < until; t++)
					least = m_free(t) < least ? m_free(t) : least;
				bad_min += profile_min_free(&p, from, until) != least;
				mins++;
			}
			bad_fit += profile_first_fit(&p, n, from) != ff;
		}
		/* The walk and the hole-by-hole search, with a bound and a clip as
		 * compression asks them, against the model and each other. */
		for (int q = 0; q < 6; q++) {
			seed = seed * 1103515245 + 12345;
			unsigned u = seed >> 4;
			int64_t n = (int64_t)(u % (CAP + 2));	/* 0 and CAP + 1 too */
			bf_time d = 1 + (u >> 5) % 60, from = (u >> 11) % T;
			bf_time before = (u >> 19) % 4 ? from + (u >> 13) % 120 : BF_NEVER;
			bf_time clip = (u >> 21) % 3 ? from + (u >> 23) % 90 : BF_NEVER;
			bf_time m = m_anchor_before(n, d, from, before, clip);
			bf_time w = profile_anchor_before(&p, n, d, from, before, clip);
			bf_time h = profile_anchor_before_hops(&p, n, d, from, before, clip);
			bf_time k = profile_anchor_before_walk(&p, n, d, from, before, clip);
			bf_time tr = profile_anchor_before_tree(&p, n, d, from, before, clip);

			if (n > CAP)
				m = BF_NEVER;
			else if (n <= 0)
				m = from < before ? from : BF_NEVER;
			bad_walk += w != m;
			bad_hops += h != m;
			bad_walk2 += k != m;
			bad_tree += tr != m;
			walks++;
		}
	}
	ok(ops > 10000, "random operations ran (%d)", ops);
	ok_eq(bad_free, 0, "free_at agrees with the model");
	ok_eq(bad_anchor, 0, "anchor agrees with the model");
	ok_eq(bad_below, 0, "first_below agrees with the model");
	ok_eq(bad_fit, 0, "first_fit agrees with the model");
	ok_eq(bad_min, 0, "min_free agrees with the model (%d windows)", mins);
	ok_eq(bad_walk, 0, "anchor_before (by subtrees) agrees with the model (%d queries)", walks);
	ok_eq(bad_tree, 0, "anchor_before_tree (by subtrees alone) agrees with the model");
	ok_eq(bad_walk2, 0, "anchor_before_walk (a reference) agrees with the model");
	ok_eq(bad_hops, 0, "anchor_before_hops (a reference) agrees with the model");
	while (nr > 0) {
		nr--;
		profile_release(&p, rs[nr].t, rs[nr].n, rs[nr].d);
	}
	ok_eq(profile_size(&p), 0, "all released: no breakpoints left");
	profile_destroy(&p);
	free(rs);
}

/* A full plan, as a deep conservative queue makes it: thousands of
 * reservations packed from random places, so that a search crosses many
 * holes and whole subtrees of them are skipped by their summary. The
 * search (with and without its short walk) must give the answer of the
 * hole-by-hole reference for every query, over a long run of changes. */
/* A copy of a plan that held many more breakpoints than it holds now is
 * as large as what it holds, answers as the plan does, and changes
 * without changing the plan. */
static void copy_cases(struct profile *p, struct resv *rs, int nr)
{
	struct profile c;
	int bad = 0, bad_free = 0, queries = 0;
	unsigned seed = 4242;
	int64_t at_before;

	while (nr > 300) {	/* most leave: their nodes go to the free list */
		nr--;
		profile_release(p, rs[nr].t, rs[nr].n, rs[nr].d);
	}
	ok_eq(profile_copy(&c, p), 0, "copy: made");
	ok(c.count == p->count && c.cap <= p->cap / 4 && c.used == c.count + 1,
	   "copy: %u breakpoints in %u nodes (the plan: %u in %u)", c.count, c.cap, p->count,
	   p->cap);
	for (bf_time t = -1; t != BF_NEVER;
	     t = profile_next_change(p, t))
		bad_free += profile_free_at(&c, t) != profile_free_at(p, t) ||
			profile_next_change(&c, t) != profile_next_change(p, t);
	for (int q = 0; q < 20000; q++) {
		seed = seed * 1103515245 + 12345;
		unsigned u = seed >> 4;
		int64_t n = 1 + (u >> 3) % 64;
		bf_time d = 1 + (u >> 9) % (u % 2 ? 400 : 20000);
		bf_time from = (u >> 12) % 30000;

		bad += profile_anchor_before(&c, n, d, from, BF_NEVER, BF_NEVER) !=
			profile_anchor_before_hops(p, n, d, from, BF_NEVER, BF_NEVER);
		queries++;
	}
	ok_eq(bad_free, 0, "copy: the same free nodes at every breakpoint");
	ok_eq(bad, 0, "copy: the same answers to %d searches", queries);
	at_before = profile_free_at(p, 100);
	profile_reserve(&c, 100, 5, 50);
	ok(profile_free_at(&c, 100) == at_before - 5 && profile_free_at(p, 100) == at_before,
	   "copy: a reservation in the copy leaves the plan as it was");
	bad = 0;
	for (int q = 0; q < 2000; q++) {
		seed = seed * 1103515245 + 12345;
		unsigned u = seed >> 4;
		int64_t n = 1 + (u >> 3) % 64;
		bf_time d = 1 + (u >> 9) % 3000;
		bf_time a = profile_anchor_before_hops(&c, n, d, (u >> 12) % 30000, BF_NEVER, BF_NEVER);

		bad += profile_anchor_before(&c, n, d, (u >> 12) % 30000, BF_NEVER, BF_NEVER) != a;
		if (a != BF_NEVER && q % 2 == 0 && profile_prepare(&c, 2) == 0)
			profile_reserve(&c, a, n, d);
	}
	ok_eq(bad, 0, "copy: grown by 1,000 reservations, it still answers as the reference");
	profile_destroy(&c);
}

static void full_plan_cases(void)
{
	enum { CAPF = 64, NR = 3000 };
	struct profile p;
	struct resv *rs = calloc(NR, sizeof *rs);
	int nr = 0, bad = 0, bad_tree = 0, queries = 0, found = 0, far = 0;
	unsigned seed = 777;

	profile_init(&p, CAPF);
	for (int step = 0; step < 12000; step++) {
		seed = seed * 1103515245 + 12345;
		unsigned r = seed >> 8;

		if ((r % 4 != 0 || nr < NR / 2) && nr < NR) {
			/* Mostly small and short, some wide or long, as in a queue. */
			int64_t n = r % 7 ? 1 + (r >> 4) % 8 : 1 + (r >> 4) % CAPF;
			bf_time d = r % 5 ? 1 + (r >> 10) % 300 : 1 + (r >> 10) % 5000;
			bf_time from = (r >> 16) % 20000;
			bf_time a = profile_anchor_before_hops(&p, n, d, from, BF_NEVER, BF_NEVER);

			if (a == BF_NEVER)
				continue;
			profile_reserve(&p, a, n, d);
			rs[nr++] = (struct resv){ a, d, n };
		} else {
			int k = (r >> 4) % nr;

			profile_release(&p, rs[k].t, rs[k].n, rs[k].d);
			rs[k] = rs[--nr];
		}
		for (int q = 0; q < 4; q++) {
			seed = seed * 1103515245 + 12345;
			unsigned u = seed >> 4;
			int64_t n = u % 3 ? 1 + (u >> 3) % 4 : 1 + (u >> 3) % CAPF;
			bf_time d = 1 + (u >> 9) % (u % 2 ? 400 : 20000);
			bf_time from = (u >> 12) % 30000;
			bf_time before = (u >> 20) % 3 ? from + (u >> 14) % 60000 : BF_NEVER;
			bf_time clip = (u >> 22) % 3 ? before + (u >> 24) % 2000 : BF_NEVER;
			bf_time h = profile_anchor_before_hops(&p, n, d, from, before, clip);

			bad += profile_anchor_before(&p, n, d, from, before, clip) != h;
			bad_tree += profile_anchor_before_tree(&p, n, d, from, before, clip) != h;
			queries++;
			found += h != BF_NEVER;
			far += h != BF_NEVER && h > from + 1000;
		}
	}
	ok(profile_size(&p) > 2000, "a full plan: %u breakpoints", profile_size(&p));
	ok(found > queries / 10 && far > queries / 20 && found < queries,
	   "queries that find a place, far ahead, and that find none (%d, %d of %d)",
	   found, far, queries);
	ok_eq(bad, 0, "anchor_before agrees with the hole-by-hole reference");
	ok_eq(bad_tree, 0, "anchor_before_tree agrees with the hole-by-hole reference");
	copy_cases(&p, rs, nr);
	profile_destroy(&p);
	free(rs);
}

int main(void)
{
	hand_cases();
	random_cases();
	full_plan_cases();
	return tap_done();
}
