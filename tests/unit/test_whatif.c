/* The what-if replay's pure modules against hand-computed values:
 * runtime estimate models (common/estimates.c), workload shaping
 * (common/shaping.c) and breakdowns, percentiles, batch means and the
 * timeline (common/breakdown.c). SCHEDULING.md, "Runtime estimates for
 * what-if studies" and "Metrics", says what they must do. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../tap.h"
#include "../../common/breakdown.h"
#include "../../common/estimates.h"
#include "../../common/shaping.h"

#define S(x) ((bf_time)((x) * (double)BF_SEC))
#define DAY 86400
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * (fabs(want) > 1.0 ? fabs(want) : 1.0);
}

static void ok_near(double got, double want, const char *what)
{
	if (!ok(near(got, want, 1e-9), "%s", what))
		printf("#   got %.12g, want %.12g\n", got, want);
}

static void ok_str(const char *got, const char *want, const char *what)
{
	if (!ok(strcmp(got, want) == 0, "%s", what))
		printf("#   got '%s', want '%s'\n", got, want);
}

/* ==== estimates ========================================================== */

static void test_est_parse(void)
{
	static const struct {
		const char *spec;
		enum est_kind kind;
		double param;
		const char *name;
	} good[] = {
		{ "trace", EST_TRACE, 1, "trace" },
		{ "exact", EST_EXACT, 1, "exact" },
		{ "model", EST_MODEL, 1, "model" },
		{ "history", EST_HISTORY, 1, "history" },
		{ "f=4", EST_UNIFORM, 4, "f=4" },
		{ "f=1", EST_UNIFORM, 1, "f=1" },
		{ "f=4.0", EST_UNIFORM, 4, "f=4" },
		{ "f=301", EST_UNIFORM, 301, "f=301" },
		{ "x2", EST_SCALED, 2, "x2" },
		{ "x0.5", EST_SCALED, 0.5, "x0.5" },
		{ "x2.50", EST_SCALED, 2.5, "x2.5" },
	};
	static const char *const bad[] = {
		"f=0.5", "f=", "x0", "x-1", "xabc", "f=4x", "bogus", "", "x", "f=-4",
		"x2 ", "Trace", "f4", "f=1e400", "x1e400", "x0.0", "x0x2", "f=0x4", "xinf",
		"f=1e1",
	};
	char err[256], name[64];

	for (size_t i = 0; i < N_OF(good); i++) {
		struct est_model m;

		memset(&m, 0xa5, sizeof m);
		err[0] = '\0';
		int rc = est_parse(good[i].spec, &m, err, sizeof err);

		if (!ok(rc == 0, "est_parse '%s' succeeds", good[i].spec)) {
			printf("#   err: %s\n", err);
			continue;
		}
		ok_eq(m.kind, good[i].kind, "est_parse '%s': kind", good[i].spec);
		if (good[i].kind == EST_UNIFORM || good[i].kind == EST_SCALED)
			ok_near(m.param, good[i].param, "est_parse: F or K as given");
		ok_eq(m.cap, EST_DEFAULT_CAP, "est_parse '%s': the cap is the default 24 h",
		      good[i].spec);
		name[0] = '\0';
		est_name(&m, name, sizeof name);
		ok_str(name, good[i].name, "est_name gives the canonical name back");
	}
	ok_eq(EST_DEFAULT_CAP, 24LL * 3600 * BF_SEC, "EST_DEFAULT_CAP is 24 h");
	for (size_t i = 0; i < N_OF(bad); i++) {
		struct est_model m;

		err[0] = '\0';
		int rc = est_parse(bad[i], &m, err, sizeof err);

		ok(rc == -1 && err[0] != '\0', "est_parse '%s' fails with a reason", bad[i]);
	}
	/* A small error buffer is not overrun (the reason is cut). */
	{
		struct est_model m;
		char small[8];

		memset(small, 'z', sizeof small);
		ok(est_parse("bogus-and-long", &m, small, sizeof small) == -1 &&
		   memchr(small, '\0', sizeof small) != NULL, "est_parse: the reason fits errlen");
	}
}

static void test_est_draw_simple(void)
{
	struct est_model m;
	char err[128];

	est_parse("exact", &m, err, sizeof err);
	ok_eq(est_draw(&m, 1, 7, S(1234), S(5000)), S(1234), "exact: e = r (the trace's ignored)");
	ok_eq(est_draw(&m, 1, 7, S(1.5), -1), S(1.5), "exact: e = r, even sub-second");

	est_parse("trace", &m, err, sizeof err);
	ok_eq(est_draw(&m, 1, 7, S(100), S(500)), S(500), "trace: field 9 when > 0");
	ok_eq(est_draw(&m, 1, 7, S(100), 0), S(100), "trace: r when field 9 is 0");
	ok_eq(est_draw(&m, 1, 7, S(100), -S(1)), S(100), "trace: r when field 9 is -1");
	ok_eq(est_draw(&m, 1, 7, S(100), S(50)), S(50),
	      "trace: field 9 even below r (the job is killed at it)");

	est_parse("history", &m, err, sizeof err);
	ok_eq(est_draw(&m, 1, 7, S(100), S(500)), S(500), "history: the kill limit is field 9");
	ok_eq(est_draw(&m, 1, 7, S(100), -1), S(100), "history: r when the trace has none");

	est_parse("f=1", &m, err, sizeof err);
	{
		int exact = 1;

		for (uint64_t k = 0; k < 2000; k++) {
			bf_time r = S(1 + (k * 37) % 100000);

			exact &= est_draw(&m, 3, k, r, S(7)) == r;
		}
		ok(exact, "f=1: e is exactly r for 2000 keys");
	}

	est_parse("x2", &m, err, sizeof err);
	ok_eq(est_draw(&m, 1, 7, S(100), S(1000)), S(2000), "x2: twice the trace's estimate");
	ok_eq(est_draw(&m, 1, 7, S(100), -1), S(100), "x2: r when the trace has no estimate");
	ok_eq(est_draw(&m, 1, 7, S(100), 0), S(100), "x2: r when field 9 is 0");
	est_parse("x0.5", &m, err, sizeof err);
	ok_eq(est_draw(&m, 1, 7, S(100), S(3)), S(2), "x0.5 of 3 s: 1.5 s rounded up to 2 s");
	ok_eq(est_draw(&m, 1, 7, S(100), S(1000)), S(500), "x0.5 of 1000 s: 500 s");
	ok_eq(est_draw(&m, 1, 7, S(100), S(1)), S(1), "x0.5 of 1 s: 0.5 s rounded up to 1 s");
	est_parse("x3", &m, err, sizeof err);
	ok_eq(est_draw(&m, 1, 7, S(100), S(1.2)), S(4), "x3 of 1.2 s: 3.6 s rounded up to 4 s");
	/* K = 1.1: 50 s * 1.1 is 55 s exactly; a floating-point product just
	 * above 55 must not be rounded up to 56. */
	est_parse("x1.1", &m, err, sizeof err);
	ok_eq(est_draw(&m, 1, 7, S(100), S(50)), S(55), "x1.1 of 50 s is 55 s");
	ok_eq(est_draw(&m, 1, 7, S(100), S(1000)), S(1100), "x1.1 of 1000 s is 1100 s");
}

/* est_uses_seed says which models draw: every other gives each job the
 * same estimate whatever the seed (checked over many jobs and seeds), and
 * a model that draws gives some job another one. */
static void test_est_uses_seed(void)
{
	static const struct { const char *spec; bool uses; } models[] = {
		{ "trace", false }, { "exact", false }, { "x2", false }, { "x0.5", false },
		{ "f=1", false }, { "history", false }, { "f=1.5", true }, { "f=4", true },
		{ "model", true },
	};
	char err[128];

	for (size_t i = 0; i < N_OF(models); i++) {
		struct est_model m;
		bool differs = false;

		est_parse(models[i].spec, &m, err, sizeof err);
		for (uint64_t k = 0; k < 500 && !differs; k++) {
			bf_time r = S(1 + (k * 37) % 100000), e = S(2 + (k * 53) % 200000);

			for (uint64_t seed = 2; seed <= 5; seed++)
				differs |= est_draw(&m, seed, k, r, e) != est_draw(&m, 1, k, r, e);
		}
		ok(est_uses_seed(&m) == models[i].uses && differs == models[i].uses,
		   "%s: %s the seed", models[i].spec, models[i].uses ? "uses" : "does not use");
	}
}

static void test_est_uniform(void)
{
	int in_range = 1, same = 1;
	size_t streams_differ = 0;
	double sum = 0;
	const size_t n = 100000;

	for (uint64_t k = 0; k < n; k++) {
		double u = est_uniform(42, k, 0);

		in_range &= u > 0.0 && u <= 1.0;
		same &= u == est_uniform(42, k, 0);
		streams_differ += u != est_uniform(42, k, 1);
		sum += u;
	}
	ok(in_range, "est_uniform: every draw in (0, 1]");
	ok(same, "est_uniform: deterministic in (seed, key, stream)");
	ok(streams_differ > n * 99 / 100, "est_uniform: streams give other draws (%zu of %zu)",
	   streams_differ, n);
	ok(near(sum / (double)n, 0.5, 0.01), "est_uniform: mean %.4f is about 1/2", sum / (double)n);
	ok(est_uniform(1, 5, 0) != est_uniform(2, 5, 0), "est_uniform: the seed matters");
	ok(est_uniform(1, 5, 0) != est_uniform(1, 6, 0), "est_uniform: the key matters");
}

static void test_est_draw_uniform(void)
{
	struct est_model m;
	char err[128];
	const double F = 4;
	const size_t n = 20000;
	const bf_time r = S(1000);
	int bounded = 1, whole = 1, determ = 1;
	size_t differ = 0, at_r = 0;
	double sum = 0;

	ok(est_parse("f=4", &m, err, sizeof err) == 0, "parse f=4");
	for (uint64_t k = 0; k < n; k++) {
		bf_time e = est_draw(&m, 11, k, r, S(5));

		bounded &= e >= r && e <= (bf_time)(F * (double)r);
		whole &= e % BF_SEC == 0;
		determ &= e == est_draw(&m, 11, k, r, S(5));
		differ += e != est_draw(&m, 12, k, r, S(5));
		at_r += e == r;
		sum += (double)e / (double)r;
	}
	ok(bounded, "f=4: every e in [r, 4 r]");
	ok(whole, "f=4: every e whole seconds");
	ok(determ, "f=4: the same (seed, key) gives the same e");
	ok(differ > n * 95 / 100, "f=4: another seed gives another e for most keys (%zu of %zu)",
	   differ, n);
	ok(at_r < n / 100, "f=4: e is not stuck at r (%zu of %zu)", at_r, n);
	ok(fabs(sum / (double)n - (1 + F) / 2) <= 0.02 * (1 + F) / 2,
	   "f=4: the mean of e/r (%.4f) is within 2%% of (1+F)/2 = %.2f", sum / (double)n,
	   (1 + F) / 2);

	/* A runtime that is not whole seconds: e rounded up, still in [r, F r]. */
	{
		int ok_sub = 1;
		bf_time rs = S(2.5);

		for (uint64_t k = 0; k < 1000; k++) {
			bf_time e = est_draw(&m, 11, k, rs, -1);

			ok_sub &= e % BF_SEC == 0 && e >= S(3) && e <= S(10);
		}
		ok(ok_sub, "f=4, r = 2.5 s: e in whole seconds within [3 s, 10 s]");
	}
	ok_eq(est_draw(&m, 11, 3, 0, -1), 0, "f=4: a job of 0 s gets 0 s");
}

static void test_est_draw_model(void)
{
	struct est_model m;
	char err[128];
	const size_t n = 20000;
	size_t killed = 0, at_cap = 0;
	int killed_ok = 1, rest_ok = 1, capped = 1, determ = 1;

	ok(est_parse("model", &m, err, sizeof err) == 0, "parse model");
	ok_eq(m.cap, EST_DEFAULT_CAP, "model: default cap 24 h");

	/* r = 1000 s: 10% at floor(0.99 r) = 990 s, else r/u >= r, capped at 24 h. */
	for (uint64_t k = 0; k < n; k++) {
		bf_time e = est_draw(&m, 5, k, S(1000), S(77));

		determ &= e == est_draw(&m, 5, k, S(1000), S(77));
		if (e < S(1000)) {
			killed++;
			killed_ok &= e == S(990);
		} else {
			rest_ok &= e % BF_SEC == 0;
		}
		capped &= e <= S(24 * 3600);
		at_cap += e == S(24 * 3600);
	}
	ok(killed >= n * 8 / 100 && killed <= n * 12 / 100,
	   "model, r = 1000 s: %zu of %zu killed (0.08 .. 0.12)", killed, n);
	ok(killed_ok, "model: every killed e is floor(0.99 r) = 990 s");
	ok(rest_ok, "model: other e are whole seconds");
	ok(determ, "model: deterministic for (seed, key)");
	ok(capped, "model: no e above the 24 h cap");
	/* P(1000/u > 86400) = 1000/86400 ~ 1.2% of the 90%. */
	ok(at_cap > n / 200 && at_cap < n * 3 / 100, "model: ~1%% reach the cap (%zu)", at_cap);

	/* floor, not round or ceil: 0.99 * 1001 s = 990.99 s -> 990 s. */
	{
		size_t seen = 0;
		int all = 1;

		for (uint64_t k = 0; k < 2000; k++) {
			bf_time e = est_draw(&m, 5, k, S(1001), -1);

			if (e < S(1001)) {
				seen++;
				all &= e == S(990);
			}
		}
		ok(seen > 0 && all, "model, r = 1001 s: killed e = floor(990.99) = 990 s (%zu)", seen);
	}

	/* r < 90 s: the non-killed e are at least 10 r. */
	{
		int ge10 = 1;
		size_t nk = 0, k49 = 0;

		for (uint64_t k = 0; k < n; k++) {
			bf_time e = est_draw(&m, 9, k, S(50), -1);

			if (e == S(49)) {
				k49++;
				continue;
			}
			nk++;
			ge10 &= e >= S(500);
		}
		ok(k49 > 0 && ge10 && nk > 0, "model, r = 50 s: killed at 49 s (%zu), others >= 500 s",
		   k49);
	}
	{
		int ge10 = 1;

		for (uint64_t k = 0; k < n; k++) {
			bf_time e = est_draw(&m, 9, k, S(89), -1);

			if (e >= S(89))
				ge10 &= e >= S(890);
		}
		ok(ge10, "model, r = 89 s: non-killed e >= 890 s");
	}
	{
		size_t below10 = 0;

		for (uint64_t k = 0; k < n; k++) {
			bf_time e = est_draw(&m, 9, k, S(90), -1);

			below10 += e >= S(90) && e < S(900);
		}
		ok(below10 > n / 2, "model, r = 90 s: no x10 (%zu non-killed e below 900 s)", below10);
	}

	/* Beyond the cap: never cut below r. */
	{
		int ok_long = 1, ok_killed = 1;
		size_t nk = 0;
		const bf_time r = S(30 * 3600);

		for (uint64_t k = 0; k < 5000; k++) {
			bf_time e = est_draw(&m, 2, k, r, -1);

			if (e < r) {
				ok_killed &= e == S(106920);	/* floor(0.99 * 108000) */
				continue;
			}
			nk++;
			ok_long &= e == r;
		}
		ok(nk > 4000 && ok_long, "model, r = 30 h > cap: non-killed e = r exactly (%zu)", nk);
		ok(ok_killed && nk < 5000, "model, r = 30 h: killed at 0.99 r = 106920 s");
	}

	/* A cap of one's own. */
	{
		struct est_model c = m;
		int le = 1;
		size_t hit = 0;

		c.cap = S(3600);
		for (uint64_t k = 0; k < 5000; k++) {
			bf_time e = est_draw(&c, 4, k, S(1000), -1);

			le &= e <= S(3600);
			hit += e == S(3600);
		}
		ok(le && hit > 0, "model, cap 1 h: no e above 1 h, some at it (%zu)", hit);
	}
}

static void test_est_history(void)
{
	struct est_history *h = est_history_new();
	const bf_time week = EST_HISTORY_FORGET;

	ok(h != NULL, "est_history_new");
	if (!h)
		return;
	ok_eq(EST_HISTORY_FORGET, 7LL * DAY * BF_SEC, "EST_HISTORY_FORGET is a week");
	ok_eq(est_history_predict(h, S(10), 1, 2, 3, S(777)), S(777), "no record: the fallback");

	/* Key A = (1, 2, 4): 100, 200, 300 s -> 200 + 1.5 * 100 = 350 s. */
	ok_eq(est_history_record(h, S(1000), 1, 2, 4, S(100)), 0, "record");
	ok_eq(est_history_predict(h, S(1001), 1, 2, 4, S(9)), S(100),
	      "one record: the key predicts its runtime (sd 0)");
	est_history_record(h, S(2000), 1, 2, 4, S(200));
	est_history_record(h, S(3000), 1, 2, 4, S(300));
	ok_eq(est_history_predict(h, S(3000), 1, 2, 4, S(9)), S(350),
	      "key A: ceil(mean + 1.5 sd) = 350 s");
	ok_eq(est_history_predict(h, S(3000), 9, 9, 9, S(9)), S(350),
	      "an unknown key: the whole workload's (only A's so far)");

	/* Key B = (1, 2, 5) (differs in size only): 1000 s. The workload is now
	 * 100, 200, 300, 1000: mean 400, sd sqrt(500000 / 3) = 408.248...,
	 * 400 + 612.372... = 1012.37 -> 1013 s. */
	est_history_record(h, S(4000), 1, 2, 5, S(1000));
	ok_eq(est_history_predict(h, S(4000), 1, 2, 5, S(9)), S(1000), "key B: its own 1000 s");
	ok_eq(est_history_predict(h, S(4000), 1, 2, 4, S(9)), S(350), "key A unchanged by B");
	ok_eq(est_history_predict(h, S(4000), 1, 3, 4, S(9)), S(1013),
	      "another exe: the whole workload's 1013 s");
	ok_eq(est_history_predict(h, S(4000), 2, 2, 4, S(9)), S(1013),
	      "another user: the whole workload's 1013 s");

	/* A's last record ended at 3000 s: a week later it still counts; a
	 * microsecond more and it is forgotten. */
	ok_eq(est_history_predict(h, S(3000) + week, 1, 2, 4, S(9)), S(350),
	      "key A exactly a week after its last end: still its own");
	ok_eq(est_history_predict(h, S(3000) + week + 1, 1, 2, 4, S(9)), S(1013),
	      "key A more than a week after: the whole workload's");

	/* A new record after the gap starts A over: {500} -> 500 s (not the
	 * 532 s of 100, 200, 300, 500). The workload keeps everything:
	 * 100, 200, 300, 1000, 500: mean 420, sd sqrt(508000 / 4) = 356.37...,
	 * 420 + 534.56 = 954.56 -> 955 s. */
	est_history_record(h, S(3001) + week, 1, 2, 4, S(500));
	ok_eq(est_history_predict(h, S(3002) + week, 1, 2, 4, S(9)), S(500),
	      "key A restarted after a week unused: 500 s");
	ok_eq(est_history_predict(h, S(3002) + week, 7, 7, 7, S(9)), S(955),
	      "the whole workload keeps the forgotten runs: 955 s");
	/* B's last end (4000 s) is now over a week ago. */
	ok_eq(est_history_predict(h, S(4001) + week, 1, 2, 5, S(9)), S(955),
	      "key B after a week: the whole workload's");
	ok_eq(est_history_predict(h, S(4000) + week, 1, 2, 5, S(9)), S(1000),
	      "key B at exactly a week: its own");
	est_history_free(h);

	/* At least 1 s, whole seconds. */
	h = est_history_new();
	est_history_record(h, S(1), 3, 3, 3, 0);
	ok_eq(est_history_predict(h, S(2), 3, 3, 3, S(9)), S(1), "a key of 0 s runs predicts 1 s");
	ok_eq(est_history_predict(h, S(2), 4, 4, 4, S(9)), S(1), "the workload of 0 s predicts 1 s");
	est_history_record(h, S(1), 5, 5, 5, S(2.2));
	ok_eq(est_history_predict(h, S(2), 5, 5, 5, S(9)), S(3), "2.2 s rounded up to 3 s");
	est_history_free(h);

	/* Many keys: the table grows, and each key keeps its own. The keys
	 * differ in one field only (size, then exe, then user), so that a probe
	 * passing another key must compare every field. */
	h = est_history_new();
	{
		const uint32_t nk = 6000;
		int rec = 0, own = 1;
		uint32_t first_bad = UINT32_MAX, u, e, z;

#define KEY(i) (u = (i) < 4000 ? 1 : (i), e = (i) >= 2000 && (i) < 4000 ? (i) : 1, \
		z = (i) < 2000 ? (i) + 1000 : 1)
		for (uint32_t i = 0; i < nk; i++) {
			KEY(i);
			rec |= est_history_record(h, S(100), u, e, z, S(i + 1));
			rec |= est_history_record(h, S(200), u, e, z, S(i + 1));
		}
		ok(rec == 0, "6000 keys recorded");
		for (uint32_t i = 0; i < nk; i++) {
			KEY(i);
			if (est_history_predict(h, S(300), u, e, z, S(9)) != S(i + 1)) {
				own = 0;
				if (first_bad == UINT32_MAX)
					first_bad = i;
			}
		}
#undef KEY
		if (!ok(own, "6000 keys differing in one field: each predicts its own runtime"))
			printf("#   first wrong key %u\n", first_bad);
		ok_eq(est_history_predict(h, S(300), 1, 1, 1, S(9)) > S(1000), 1,
		      "an unseen key among them: the workload's (above 1000 s)");
	}
	est_history_free(h);
	est_history_free(NULL);
}

/* ==== shaping ============================================================ */

static void test_when_parse(void)
{
	static const struct {
		const char *s;
		bool absolute;
		int64_t sec;
	} good[] = {
		{ "1970-01-02", true, 86400 },
		{ "1970-01-01", true, 0 },
		{ "2000-03-01", true, 951868800 },
		{ "2000-02-29", true, 951868800 - 86400 },
		{ "2000-01-31", true, 949276800 },
		{ "2000-03-01T12:30", true, 951868800 + 12 * 3600 + 30 * 60 },
		{ "2000-03-01T12:30:15", true, 951868800 + 12 * 3600 + 30 * 60 + 15 },
		{ "2000-12-31T23:59:59", true, 978307200 - 1 },
		{ "+30d", false, 2592000 },
		{ "+12h", false, 43200 },
		{ "+90m", false, 5400 },
		{ "+3600", false, 3600 },
		{ "+5s", false, 5 },
		{ "+0", false, 0 },
	};
	static const char *const bad[] = {
		"2000-13-01", "2000-02-30x", "1969-12-31", "+", "+3x", "yesterday", "",
		"2000-00-10", "2000-01-00", "2000-01-32", "2000-03-01T24:00", "2000-03-01T12:60",
		"2000-03-01T12:30:60", "2000-03-01T12", "2000-03-01T12:30:", "2000-03-01T", "+d",
		"+-5", "+5d3", "2000-3-01", "20000-01-01", "+1e400", "+0x10", "+1e3",
		"2000-+1-01", "2000-01- 1", "1999-02-29",
	};
	/* Dates that do not exist: a day past the end of its month. */
	static const char *const no_such_day[] = { "2000-02-30", "2001-02-29", "2000-04-31" };
	char err[256];

	for (size_t i = 0; i < N_OF(good); i++) {
		struct shape_when w = { 0 };

		err[0] = '\0';
		if (!ok(shape_when_parse(good[i].s, &w, err, sizeof err) == 0, "when '%s' parses",
		        good[i].s)) {
			printf("#   err: %s\n", err);
			continue;
		}
		ok(w.set && w.absolute == good[i].absolute, "when '%s': set, %s", good[i].s,
		   good[i].absolute ? "absolute" : "relative");
		ok_eq(w.sec, good[i].sec, "when '%s': seconds", good[i].s);
	}
	for (size_t i = 0; i < N_OF(bad); i++) {
		struct shape_when w;

		err[0] = '\0';
		ok(shape_when_parse(bad[i], &w, err, sizeof err) == -1 && err[0],
		   "when '%s' fails with a reason", bad[i]);
	}
	for (size_t i = 0; i < N_OF(no_such_day); i++) {
		struct shape_when w = { 0 };

		err[0] = '\0';
		if (!ok(shape_when_parse(no_such_day[i], &w, err, sizeof err) == -1 && err[0],
		        "when '%s' (no such day) fails with a reason", no_such_day[i]))
			printf("#   accepted as %lld (%s)\n", (long long)w.sec,
			       w.absolute ? "absolute" : "relative");
	}
	/* A sign where the year's digits go is not a year. */
	{
		struct shape_when w = { 0 };

		err[0] = '\0';
		if (!ok(shape_when_parse("-200-01-01", &w, err, sizeof err) == -1 && err[0],
		        "when '-200-01-01' fails with a reason"))
			printf("#   accepted as %lld seconds since the epoch\n", (long long)w.sec);
	}
}

static struct shaping shaping0(void)
{
	return (struct shaping){ .load = 1.0 };
}

static void test_shape_load(void)
{
	struct shaping sh = shaping0();
	struct shaping_counts c;
	char err[256];
	bool keep[8];

	/* Load 2: gaps from the first kept job halved, rounded (11/2 = 5.5 -> 6). */
	{
		struct shape_job j[] = { { S(10), 1 }, { S(21), 1 }, { S(33), 2 }, { S(70), 3 } };

		sh.load = 2;
		ok(shape_apply(&sh, -1, j, 4, keep, &c, err, sizeof err) == 0, "load 2 applies");
		ok(keep[0] && keep[1] && keep[2] && keep[3], "load 2 keeps every job");
		ok_eq(j[0].submit, S(10), "load 2: the first job stays");
		ok_eq(j[1].submit, S(16), "load 2: 10 + 11/2 rounded = 16");
		ok_eq(j[2].submit, S(22), "load 2: 10 + 23/2 rounded = 22");
		ok_eq(j[3].submit, S(40), "load 2: 10 + 60/2 = 40");
	}
	/* Load 0.5: gaps doubled. */
	{
		struct shape_job j[] = { { S(10), 1 }, { S(21), 1 }, { S(33), 2 } };

		sh.load = 0.5;
		shape_apply(&sh, -1, j, 3, keep, &c, err, sizeof err);
		ok(j[0].submit == S(10) && j[1].submit == S(32) && j[2].submit == S(56),
		   "load 0.5: 10, 32, 56");
	}
	/* From the first kept job: job 0's user left out. */
	{
		struct shape_job j[] = { { S(0), 5 }, { S(100), 1 }, { S(200), 1 }, { S(301), 2 } };

		sh = shaping0();
		sh.load = 2;
		sh.exclude[0] = 5;
		sh.nexclude = 1;
		shape_apply(&sh, -1, j, 4, keep, &c, err, sizeof err);
		ok(!keep[0] && keep[1] && keep[2] && keep[3], "job 0 excluded");
		ok(j[1].submit == S(100) && j[2].submit == S(150) && j[3].submit == S(201),
		   "load 2 from the first kept job: 100, 150, 201 (100.5 rounded)");
		ok_eq(j[0].submit, 0, "an excluded job's submit is left alone");
	}
	/* Order preserved with close arrivals. */
	{
		struct shape_job j[64];
		int sorted = 1;

		for (size_t i = 0; i < N_OF(j); i++)
			j[i] = (struct shape_job){ S(1000 + i * i % 7 + i), (uint32_t)i };
		for (size_t i = 1; i < N_OF(j); i++)
			if (j[i].submit < j[i - 1].submit)
				j[i].submit = j[i - 1].submit;
		sh = shaping0();
		sh.load = 3;
		bool kp[64];
		shape_apply(&sh, -1, j, N_OF(j), kp, &c, err, sizeof err);
		for (size_t i = 1; i < N_OF(j); i++)
			sorted &= j[i].submit >= j[i - 1].submit && j[i].submit % BF_SEC == 0;
		ok(sorted, "load 3: arrival order kept, whole seconds");
		ok_eq(j[0].submit, S(1000), "load 3: the first arrival stays");
	}
	/* Load 1 (as logged): untouched, even sub-second. */
	{
		struct shape_job j[] = { { S(1.5), 1 }, { S(2.25), 1 } };

		sh = shaping0();
		shape_apply(&sh, -1, j, 2, keep, &c, err, sizeof err);
		ok(j[0].submit == S(1.5) && j[1].submit == S(2.25), "load 1: submits untouched");
	}
}

static void test_shape_window(void)
{
	struct shaping sh = shaping0();
	struct shaping_counts c;
	char err[256];
	bool keep[8];

	/* Relative [+100, +200): 50 before; 200 and 250 after; 199.5 is in. */
	{
		struct shape_job j[] = { { S(50), 1 },  { S(100), 1 }, { S(150), 1 },
		                         { S(199.5), 1 }, { S(200), 1 }, { S(250), 1 } };

		shape_when_parse("+100", &sh.from, err, sizeof err);
		shape_when_parse("+200", &sh.to, err, sizeof err);
		ok(shape_apply(&sh, -1, j, 6, keep, &c, err, sizeof err) == 0, "relative window");
		ok(!keep[0] && keep[1] && keep[2] && keep[3] && !keep[4] && !keep[5],
		   "window [100, 200): jobs 1..3 kept");
		ok_eq(c.before_window, 1, "one job before the window");
		ok_eq(c.after_window, 2, "two jobs after it");
		ok_eq(c.window_from, 100, "window_from in trace seconds");
		ok_eq(c.window_to, 200, "window_to in trace seconds");
		ok_eq(c.users_excluded + c.flurry_jobs, 0, "nothing else removed");
	}
	/* Only a start: the end stays open. */
	{
		struct shape_job j[] = { { S(0), 1 }, { S(3600), 1 }, { S(90000), 1 } };

		sh = shaping0();
		shape_when_parse("+1h", &sh.from, err, sizeof err);
		shape_apply(&sh, -1, j, 3, keep, &c, err, sizeof err);
		ok(!keep[0] && keep[1] && keep[2], "from +1h: the job at 0 goes");
		ok(c.window_from == 3600 && c.window_to == INT64_MAX && c.after_window == 0,
		   "from only: window_to open");
	}
	/* Neither: both open. */
	{
		struct shape_job j[] = { { S(0), 1 } };

		sh = shaping0();
		shape_apply(&sh, -1, j, 1, keep, &c, err, sizeof err);
		ok(c.window_from == INT64_MIN && c.window_to == INT64_MAX && keep[0],
		   "no window: both ends open, the job kept");
	}
	/* An absolute date needs a UnixStartTime. */
	{
		struct shape_job j[] = { { S(0), 1 } };

		sh = shaping0();
		shape_when_parse("2000-02-01", &sh.from, err, sizeof err);
		err[0] = '\0';
		ok(shape_apply(&sh, -1, j, 1, keep, &c, err, sizeof err) == -1 && err[0],
		   "an absolute --from without UnixStartTime fails with a reason");
		sh = shaping0();
		shape_when_parse("2000-02-01", &sh.to, err, sizeof err);
		err[0] = '\0';
		ok(shape_apply(&sh, -1, j, 1, keep, &c, err, sizeof err) == -1 && err[0],
		   "an absolute --to without UnixStartTime fails with a reason");
	}
	/* With UnixStartTime 2000-01-31T23:00Z = 949359600: 2000-02-01 is trace
	 * second 3600, 2000-02-01T01:30 is 9000. */
	{
		struct shape_job j[] = { { S(0), 1 },    { S(3599), 1 }, { S(3600), 1 },
		                         { S(7200), 1 }, { S(9000), 1 }, { S(9001), 1 } };

		sh = shaping0();
		shape_when_parse("2000-02-01", &sh.from, err, sizeof err);
		shape_when_parse("2000-02-01T01:30", &sh.to, err, sizeof err);
		ok(shape_apply(&sh, 949359600, j, 6, keep, &c, err, sizeof err) == 0,
		   "absolute window with UnixStartTime");
		ok_eq(c.window_from, 3600, "2000-02-01 is trace second 3600");
		ok_eq(c.window_to, 9000, "2000-02-01T01:30 is trace second 9000");
		ok(!keep[0] && !keep[1] && keep[2] && keep[3] && !keep[4] && !keep[5],
		   "absolute window keeps 3600 and 7200");
		ok(c.before_window == 2 && c.after_window == 2, "2 before, 2 after");
	}
	/* Window then load: the load counts from the first job in the window. */
	{
		struct shape_job j[] = { { S(0), 1 }, { S(100), 1 }, { S(140), 1 }, { S(500), 1 } };

		sh = shaping0();
		sh.load = 2;
		shape_when_parse("+100", &sh.from, err, sizeof err);
		shape_apply(&sh, -1, j, 4, keep, &c, err, sizeof err);
		ok(!keep[0] && j[1].submit == S(100) && j[2].submit == S(120) && j[3].submit == S(300),
		   "window, then load 2 from the first job in it: 100, 120, 300");
	}
}

static void test_shape_users(void)
{
	struct shaping sh = shaping0();
	struct shaping_counts c;
	char err[256];
	bool keep[8];
	struct shape_job j[] = { { S(0), 1 }, { S(1), 2 }, { S(2), 3 }, { S(3), 2 },
	                         { S(4), 1 }, { S(5), UINT32_MAX } };

	sh.exclude[0] = 2;
	sh.nexclude = 1;
	shape_apply(&sh, -1, j, 6, keep, &c, err, sizeof err);
	ok(keep[0] && !keep[1] && keep[2] && !keep[3] && keep[4] && keep[5],
	   "exclude user 2: exactly their jobs go");
	ok_eq(c.users_excluded, 2, "exclude user 2: 2 jobs counted");

	sh.exclude[0] = 1;
	sh.exclude[1] = 3;
	sh.nexclude = 2;
	shape_apply(&sh, -1, j, 6, keep, &c, err, sizeof err);
	ok(!keep[0] && keep[1] && !keep[2] && keep[3] && !keep[4] && keep[5],
	   "exclude users 1 and 3");
	ok_eq(c.users_excluded, 3, "exclude users 1 and 3: 3 jobs");

	sh.exclude[0] = 99;
	sh.nexclude = 1;
	shape_apply(&sh, -1, j, 6, keep, &c, err, sizeof err);
	ok_eq(c.users_excluded, 0, "excluding a user with no jobs removes none");
}

static void test_shape_flurries(void)
{
	struct shaping sh = shaping0();
	struct shaping_counts c;
	char err[256];
	/* Built in arrival order below. */
	struct shape_job j[64];
	bool keep[64];
	size_t n = 0, who[64];
	int right = 1;

	/* user 10: 5 jobs within 3599 s -> a flurry.
	 * user 11: 4 jobs within 30 s -> no (threshold 5).
	 * user 12: 5 jobs over 3700 s -> no.
	 * unknown user (UINT32_MAX): 10 jobs within 9 s -> never a flurry. */
	static const struct { uint32_t user; int sec; } in[] = {
		{ 10, 0 }, { 11, 0 }, { 12, 0 }, { UINT32_MAX, 0 },
		{ UINT32_MAX, 1 }, { UINT32_MAX, 2 }, { UINT32_MAX, 3 }, { UINT32_MAX, 4 },
		{ UINT32_MAX, 5 }, { UINT32_MAX, 6 }, { UINT32_MAX, 7 }, { UINT32_MAX, 8 },
		{ UINT32_MAX, 9 }, { 11, 10 }, { 11, 20 }, { 11, 30 }, { 10, 600 }, { 12, 925 },
		{ 10, 1200 }, { 10, 1800 }, { 12, 1850 }, { 12, 2775 }, { 10, 3599 }, { 12, 3700 },
	};

	for (size_t i = 0; i < N_OF(in); i++) {
		j[n] = (struct shape_job){ S(in[i].sec), in[i].user };
		who[n++] = in[i].user;
	}
	sh.flurry = 5;
	ok(shape_apply(&sh, -1, j, n, keep, &c, err, sizeof err) == 0, "flurries: applies");
	for (size_t i = 0; i < n; i++)
		right &= keep[i] == (who[i] != 10);
	ok(right, "flurry 5: exactly user 10's 5 jobs removed");
	ok_eq(c.flurry_jobs, 5, "flurry_jobs 5");
	ok_eq(c.flurry_users, 1, "flurry_users 1");

	/* Threshold 4: user 11's 4 jobs in 30 s are a flurry too. */
	sh.flurry = 4;
	shape_apply(&sh, -1, j, n, keep, &c, err, sizeof err);
	/* user 12 at threshold 4: 0, 925, 1850, 2775 are within an hour -> gone. */
	right = 1;
	for (size_t i = 0; i < n; i++)
		right &= keep[i] == (who[i] == UINT32_MAX);
	ok(right, "flurry 4: users 10, 11 and 12 gone, the unknown user kept");
	ok_eq(c.flurry_users, 3, "flurry 4: 3 users");
	ok_eq(c.flurry_jobs, 14, "flurry 4: 5 + 4 + 5 jobs");

	/* Only the jobs of the flurry go: a sixth job 2 h later stays. */
	{
		struct shape_job k[] = { { S(0), 7 }, { S(100), 7 }, { S(200), 7 }, { S(300), 7 },
		                         { S(400), 7 }, { S(7600), 7 }, { S(7700), 8 } };
		bool kp[N_OF(k)];

		sh.flurry = 5;
		shape_apply(&sh, -1, k, N_OF(k), kp, &c, err, sizeof err);
		ok(!kp[0] && !kp[1] && !kp[2] && !kp[3] && !kp[4] && kp[5] && kp[6],
		   "a flurry's jobs go; the user's job 2 h later stays");
		ok(c.flurry_jobs == 5 && c.flurry_users == 1, "5 jobs of 1 user");
	}
	/* An excluded user's jobs do not count towards a flurry (users first). */
	{
		struct shape_job k[] = { { S(0), 7 }, { S(1), 7 }, { S(2), 8 }, { S(3), 8 },
		                         { S(4), 8 }, { S(5), 8 } };
		bool kp[N_OF(k)];

		sh = shaping0();
		sh.flurry = 4;
		sh.exclude[0] = 8;
		sh.nexclude = 1;
		shape_apply(&sh, -1, k, N_OF(k), kp, &c, err, sizeof err);
		ok(kp[0] && kp[1] && !kp[2] && !kp[5] && c.users_excluded == 4 && c.flurry_jobs == 0 &&
		   c.flurry_users == 0, "excluded jobs are counted as excluded, not as a flurry");
	}
	/* No jobs at all. */
	{
		bool kp[1];

		sh = shaping0();
		sh.flurry = 3;
		sh.load = 2;
		ok(shape_apply(&sh, -1, NULL, 0, kp, &c, err, sizeof err) == 0 && c.flurry_jobs == 0,
		   "no jobs: nothing to do");
	}
}

/* ==== breakdown ========================================================== */

static void test_classes(void)
{
	static const struct { double sec; int c; } rt[] = {
		{ 0, 0 }, { 29, 0 }, { 29.999999, 0 }, { 30, 1 }, { 299, 1 }, { 300, 2 }, { 3599, 2 },
		{ 3600, 3 }, { 35999, 3 }, { 36000, 4 }, { 1e6, 4 },
	};
	static const struct { uint32_t size; int c; } sz[] = {
		{ 1, 0 }, { 2, 1 }, { 4, 1 }, { 5, 2 }, { 16, 2 }, { 17, 3 }, { 64, 3 }, { 65, 4 },
		{ 256, 4 }, { 257, 5 }, { 1024, 5 }, { 1025, 6 }, { UINT32_MAX, 6 },
	};

	for (size_t i = 0; i < N_OF(rt); i++)
		ok_eq(bd_runtime_class(S(rt[i].sec)), rt[i].c, "runtime class of %g s", rt[i].sec);
	for (size_t i = 0; i < N_OF(sz); i++)
		ok_eq(bd_size_class(sz[i].size), sz[i].c, "size class of %u", sz[i].size);
	ok_str(bd_runtime_labels[0], "<30s", "runtime label 0");
	ok_str(bd_size_labels[6], ">1024", "size label 6");
}

static void test_months(void)
{
	const int64_t us = 949359600;	/* 2000-01-31T23:00:00Z */
	const int64_t ny = 978303600;	/* 2000-12-31T23:00:00Z */
	char buf[32];

	ok_eq(bd_month_of(0, us, 0), 0, "submit 0: month 0");
	bd_month_label(0, us, 0, buf, sizeof buf);
	ok_str(buf, "2000-01", "month 0 is 2000-01");
	ok_eq(bd_month_of(S(2 * 3600), us, 0), 1, "2 h later (Feb 1, 01:00): month 1");
	bd_month_label(1, us, 0, buf, sizeof buf);
	ok_str(buf, "2000-02", "month 1 is 2000-02");
	ok_eq(bd_month_of(S(2 * 3600 + 30 * DAY), us, 0), 2, "30 days after that (Mar 2): month 2");
	ok_eq(bd_month_of(S(30 * DAY), us, 0), 2, "30 days after Jan 31 23:00 (Mar 1): month 2");
	ok_eq(bd_month_of(S(29 * DAY + 3599), us, 0), 1, "Feb 29 23:59:59: month 1");
	bd_month_label(2, us, 0, buf, sizeof buf);
	ok_str(buf, "2000-03", "month 2 is 2000-03");
	ok_eq(bd_month_of(S(3599), us, 0), 0, "59:59 later (still Jan 31): month 0");
	/* From a first submit in February. */
	ok_eq(bd_month_of(S(2 * 3600 + 30 * DAY), us, S(2 * 3600)), 1,
	      "from a February first submit, Mar 2 is month 1");
	bd_month_label(1, us, S(2 * 3600), buf, sizeof buf);
	ok_str(buf, "2000-03", "... labelled 2000-03");
	/* Across a year. */
	bd_month_label(0, ny, 0, buf, sizeof buf);
	ok_str(buf, "2000-12", "Dec 31 23:00: 2000-12");
	ok_eq(bd_month_of(S(3600), ny, 0), 1, "an hour later: month 1");
	bd_month_label(1, ny, 0, buf, sizeof buf);
	ok_str(buf, "2001-01", "month 1 after December 2000 is 2001-01");
	bd_month_label(13, ny, 0, buf, sizeof buf);
	ok_str(buf, "2002-01", "month 13 is 2002-01");

	/* Without UnixStartTime: 30-day periods from the first submit. */
	ok_eq(bd_month_of(S(30 * DAY - 1), -1, 0), 0, "no UnixStartTime: 30 d - 1 s is period 0");
	ok_eq(bd_month_of(S(30 * DAY), -1, 0), 1, "no UnixStartTime: 30 d is period 1");
	ok_eq(bd_month_of(S(1000 + 65 * DAY), -1, S(1000)), 2, "65 d after the first: period 2");
	bd_month_label(0, -1, 0, buf, sizeof buf);
	ok_str(buf, "+0d", "period 0 is +0d");
	bd_month_label(1, -1, 0, buf, sizeof buf);
	ok_str(buf, "+30d", "period 1 is +30d");
	bd_month_label(2, -1, S(5000), buf, sizeof buf);
	ok_str(buf, "+60d", "period 2 is +60d");
}

#define J(sub, st, rn, sz, kl, bf) \
	{ .submit = S(sub), .start = S(st), .run = S(rn), .estimate = S(rn), .logged_run = S(rn), \
	  .size = (sz), .killed = (kl), .backfilled = (bf) }

/* Seven jobs on 4 nodes, seconds (the arrival index is the line):
 *  i submit start run size end  wait resp bsld
 *  0   0      0  100   1   100    0  100  1
 *  1   0     10   20   1    30   10   30  1.5
 *  2   5     50   10   1    60   45   55  5.5   backfilled
 *  3  10     40   20   1    60   30   50  2.5   (ends with 2: later index)
 *  4  20    200   50   2   250  180  230  4.6
 *  5  30    100   40   4   140   70  110  2.75  backfilled
 *  6  40    300    5   1   305  260  265  26.5  killed (r < 10 s: 265 / 10)
 * waits sorted 0 10 30 45 70 180 260: avg 85, median 45, p90 180 + .4*80 = 212,
 *   p99 180 + .94*80 = 255.2
 * responses sorted 30 50 55 100 110 230 265: avg 120, median 100, p90 244
 * bsld sorted 1 1.5 2.5 2.75 4.6 5.5 26.5: avg 44.35/7, median 2.75, p90 13.9
 * node-s 100+20+10+20+100+160+5 = 415 over 4 * 305 = 1220.
 * Completion order 1, 2, 3, 0, 5, 4, 6: waits 10 45 | 30 0 | 70 180 | 260;
 * batch 2, warm-up 1: batches 15 and 125, mean 70 (the partial last dropped). */
static const struct replay_job seven[] = {
	J(0, 0, 100, 1, false, false),   J(0, 10, 20, 1, false, false),
	J(5, 50, 10, 1, false, true),    J(10, 40, 20, 1, false, false),
	J(20, 200, 50, 2, false, false), J(30, 100, 40, 4, false, true),
	J(40, 300, 5, 1, true, false),
};

static double sum_loads(const struct bd_group *g, size_t n, uint64_t *jobs)
{
	double s = 0;

	*jobs = 0;
	for (size_t i = 0; i < n; i++) {
		s += g[i].load;
		*jobs += g[i].jobs;
	}
	return s;
}

static void test_compute_seven(void)
{
	struct replay_job j[N_OF(seven)];
	struct replay_jobs js = { j, N_OF(seven) };
	struct bd_opts o = { .batch = 2, .warmup = 1 };
	struct breakdown *bd;
	uint64_t nj;

	memcpy(j, seven, sizeof j);
	for (size_t i = 0; i < N_OF(j); i++)
		j[i].line = (uint32_t)i;
	bd = bd_compute(&js, 4, -1, &o);
	ok(bd != NULL, "bd_compute");
	if (!bd)
		return;
	ok_str(bd->all.label, "all", "the overall group is 'all'");
	ok_eq(bd->all.jobs, 7, "all: 7 jobs");
	ok_eq(bd->all.killed, 1, "all: 1 killed");
	ok_eq(bd->all.backfilled, 2, "all: 2 backfilled");
	ok_near(bd->all.wait.avg, 85, "wait: average 85");
	ok_near(bd->all.wait.median, 45, "wait: median 45");
	ok_near(bd->all.wait.p90, 212, "wait: p90 212");
	ok_near(bd->all.wait.p99, 255.2, "wait: p99 255.2");
	ok_near(bd->all.response.avg, 120, "response: average 120");
	ok_near(bd->all.response.median, 100, "response: median 100");
	ok_near(bd->all.response.p90, 244, "response: p90 244");
	ok_near(bd->all.bsld.avg, 44.35 / 7, "bounded slowdown: average 44.35 / 7");
	ok_near(bd->all.bsld.median, 2.75, "bounded slowdown: median 2.75");
	ok_near(bd->all.bsld.p90, 13.9, "bounded slowdown: p90 13.9 (26.5 from r < 10 s)");
	ok_near(bd->all.load, 415.0 / 1220.0, "utilization 415 / 1220");

	/* Runtime classes: < 30 s: jobs 1, 2, 3, 6; 30 s - 5 min: 0, 4, 5. */
	ok_eq(bd->runtime[0].jobs, 4, "runtime < 30 s: 4 jobs");
	ok_eq(bd->runtime[1].jobs, 3, "runtime 30 s - 5 min: 3 jobs");
	ok_eq(bd->runtime[0].killed, 1, "runtime < 30 s: the killed job");
	ok_eq(bd->runtime[1].backfilled, 1, "runtime 30 s - 5 min: 1 backfilled");
	ok_near(bd->runtime[1].wait.avg, 250.0 / 3, "runtime 30 s - 5 min: average wait 250/3");
	ok_near(bd->runtime[1].wait.median, 70, "runtime 30 s - 5 min: median wait 70");
	ok_near(bd->runtime[1].load, 360.0 / 1220, "runtime 30 s - 5 min: load 360 / 1220");
	ok_near(bd->runtime[0].bsld.avg, (1.5 + 5.5 + 2.5 + 26.5) / 4,
	        "runtime < 30 s: average bounded slowdown");
	ok(bd->runtime[2].jobs == 0 && isnan(bd->runtime[2].wait.avg) &&
	   isnan(bd->runtime[2].bsld.p99) && bd->runtime[2].load == 0,
	   "an empty class: 0 jobs, NaN figures, load 0");
	ok_str(bd->runtime[1].label, "30s-5m", "runtime class label");
	ok_near(sum_loads(bd->runtime, BD_RUNTIME_CLASSES, &nj), bd->all.load,
	        "runtime classes' loads sum to the utilization");
	ok_eq(nj, 7, "runtime classes' jobs sum to 7");
	/* Sizes: 1: jobs 0, 1, 2, 3, 6; 2-4: 4, 5. */
	ok_eq(bd->size[0].jobs, 5, "size 1: 5 jobs");
	ok_eq(bd->size[1].jobs, 2, "size 2-4: 2 jobs");
	ok_near(bd->size[1].load, 260.0 / 1220, "size 2-4: load 260 / 1220");
	ok_near(sum_loads(bd->size, BD_SIZE_CLASSES, &nj), bd->all.load,
	        "size classes' loads sum to the utilization");
	ok_eq(nj, 7, "size classes' jobs sum to 7");
	ok(!bd->calendar && bd->nmonth == 1 && bd->month[0].jobs == 7, "one 30-day period");
	ok_str(bd->month[0].label, "+0d", "its label +0d");

	/* Batch means: completion order, ties by index, warm-up dropped. */
	ok_eq(bd->batch, 2, "batch as asked");
	ok_eq(bd->warmup, 1, "warm-up as asked");
	ok_eq(bd->ci_wait.batches, 2, "wait: 2 batches (one warm-up, one partial dropped)");
	ok_eq(bd->ci_wait.used, 4, "wait: 4 values used");
	ok_near(bd->ci_wait.mean, 70, "wait: batch means mean (15 + 125) / 2 = 70");
	ok_near(bd->ci_wait.half_width, stats_t95(1) * 55, "wait: half-width t95(1) * 110 / 2");
	/* responses in completion order 30 55 | 50 100 | 110 230 | 265 */
	ok_near(bd->ci_response.mean, (75 + 170) / 2.0, "response: batch means mean 122.5");
	/* bsld in completion order 1.5 5.5 | 2.5 1 | 2.75 4.6 | 26.5 */
	ok_near(bd->ci_bsld.mean, (1.75 + 3.675) / 2, "bsld: batch means mean 2.7125");
	bd_free(bd);

	/* Warm-up 0: three batches 27.5, 15, 125. */
	o.warmup = 0;
	bd = bd_compute(&js, 4, -1, &o);
	ok(bd && bd->ci_wait.batches == 3 && near(bd->ci_wait.mean, 167.5 / 3, 1e-9),
	   "warm-up 0: 3 batches, mean 167.5 / 3");
	bd_free(bd);

	/* The default batch: jobs / 32, at least 10. */
	o = (struct bd_opts){ .batch = 0, .warmup = 1 };
	bd = bd_compute(&js, 4, -1, &o);
	ok(bd && bd->batch == 10 && bd->ci_wait.batches == 0 && isnan(bd->ci_wait.mean),
	   "default batch for 7 jobs: 10; no whole batch, NaN mean");
	bd_free(bd);

	/* Arrival order does not change the figures (min submit, max end). */
	{
		struct replay_job r[N_OF(seven)];
		struct replay_jobs rs = { r, N_OF(seven) };

		for (size_t i = 0; i < N_OF(r); i++) {
			r[i] = j[N_OF(r) - 1 - i];
			r[i].line = (uint32_t)i;
		}
		o = (struct bd_opts){ .batch = 2, .warmup = 1 };
		bd = bd_compute(&rs, 4, -1, &o);
		ok(bd && near(bd->all.wait.p90, 212, 1e-9) && near(bd->all.load, 415.0 / 1220, 1e-9),
		   "the same jobs in reverse: same p90 and utilization");
		/* Reversed, the tied jobs (ends at 60) swap index: 30 then 45. */
		ok(bd && bd->ci_wait.batches == 2 && near(bd->ci_wait.mean, (22.5 + 125) / 2, 1e-9),
		   "reversed: ties by index give batches 22.5 and 125");
		bd_free(bd);
	}
}

static void test_compute_months(void)
{
	/* UnixStartTime 2000-01-31T23:00Z: submits in Jan, Feb, Mar and May
	 * (2000-05-10 is trace second 957916800 - 949359600 = 8557200). */
	struct replay_job j[] = {
		J(0, 0, 100, 1, false, false),
		J(7200, 7200, 100, 2, false, false),
		J(7200 + 30 * DAY, 7200 + 30 * DAY + 50, 100, 1, false, false),
		J(8557200, 8557200, 100, 1, true, false),
	};
	struct replay_jobs js = { j, N_OF(j) };
	struct bd_opts o = { .batch = 2, .warmup = 1 };
	struct breakdown *bd = bd_compute(&js, 2, 949359600, &o);
	static const char *const labels[] = { "2000-01", "2000-02", "2000-03", "2000-04",
	                                      "2000-05" };
	static const uint64_t count[] = { 1, 1, 1, 0, 1 };
	uint64_t nj;

	ok(bd != NULL, "bd_compute with months");
	if (!bd)
		return;
	ok(bd->calendar, "calendar months with UnixStartTime");
	ok_eq(bd->nmonth, 5, "January to May: 5 months");
	for (size_t m = 0; m < 5 && m < bd->nmonth; m++) {
		ok_str(bd->month[m].label, labels[m], "month label");
		ok_eq(bd->month[m].jobs, count[m], "jobs in %s", labels[m]);
	}
	if (bd->nmonth >= 5) {
		ok(isnan(bd->month[3].wait.avg), "April (no jobs): NaN wait");
		ok_near(bd->month[2].wait.avg, 50, "March: wait 50");
		ok_eq(bd->month[4].killed, 1, "May: the killed job");
		/* Each month's own offered load, 2 nodes, within the span of
		 * submissions [Jan 31 23:00, May 10 00:00]: January's last hour,
		 * February's 29 days (2000 is a leap year), March's 31, April's
		 * 30 (no job), May's first 9 days. */
		ok_near(bd->month[0].load * 2 * 3600, 100, "January: 100 node-s over 1 h");
		ok_near(bd->month[1].load * 2 * 29 * 86400, 200, "February: 200 node-s over 29 days");
		ok_near(bd->month[2].load * 2 * 31 * 86400, 100, "March: 100 node-s over 31 days");
		ok_near(bd->month[3].load, 0, "April: no job, load 0");
		ok_near(bd->month[4].load * 2 * 9 * 86400, 100, "May: 100 node-s over 9 days");
		ok_near(bd->month[0].load * 3600 + bd->month[1].load * 29 * 86400 +
		        bd->month[2].load * 31 * 86400 + bd->month[3].load * 30 * 86400 +
		        bd->month[4].load * 9 * 86400, 500.0 / 2,
		        "the months' loads times their lengths give back the work over the nodes");
		sum_loads(bd->month, bd->nmonth, &nj);
		ok_eq(nj, 4, "months' jobs sum to 4");
	}
	ok_near(bd->all.load, 500.0 / (2.0 * (8557200 + 100)), "utilization over the span");
	bd_free(bd);

	/* The same without UnixStartTime: periods 0, 0, 1, 3 (99.04 d). */
	bd = bd_compute(&js, 2, -1, &o);
	ok(bd && !bd->calendar && bd->nmonth == 4, "30-day periods: 4");
	if (bd && bd->nmonth == 4) {
		ok(bd->month[0].jobs == 2 && bd->month[1].jobs == 1 && bd->month[2].jobs == 0 &&
		   bd->month[3].jobs == 1, "periods hold 2, 1, 0, 1 jobs");
		ok_str(bd->month[3].label, "+90d", "period 3 is +90d");
		/* Periods of 30 days from the first submission; the last is cut
		 * at the last one (99.04 days: 9.04 days of period 3). */
		ok_near(bd->month[0].load * 2 * 30 * 86400, 300, "period 0: 300 node-s / 30 d");
		ok_near(bd->month[2].load, 0, "period 2: load 0");
		ok_near(bd->month[3].load * 2 * (8557200.0 - 90 * 86400), 100,
		        "period 3: 100 node-s over what the trace covers of it");
	}
	bd_free(bd);

	/* No jobs. */
	js.n = 0;
	bd = bd_compute(&js, 2, -1, &o);
	ok(bd && bd->all.jobs == 0 && isnan(bd->all.wait.avg) && bd->nmonth == 0 &&
	   bd->ci_wait.batches == 0, "no jobs: empty groups, no months, no batches");
	bd_free(bd);
	bd_free(NULL);
}

/* Many jobs of every class: each group is the jobs of that class, counted
 * here independently, and the groups partition the whole. */
static void test_compute_many(void)
{
	enum { N = 640 };
	static struct replay_job j[N];
	struct replay_jobs js = { j, N };
	struct bd_opts o = { 0, 1 };
	static const double runs[] = { 5, 29, 30, 200, 299, 300, 1000, 3600, 20000, 36000, 50000 };
	static const uint32_t sizes[] = { 1, 2, 4, 5, 16, 17, 64, 65, 256, 257, 1024, 1025, 2000 };
	uint64_t rc[BD_RUNTIME_CLASSES] = { 0 }, sc[BD_SIZE_CLASSES] = { 0 }, killed = 0, nj;
	struct breakdown *bd;
	int per_class = 1;
	double work = 0, jan_work = 0;

	for (size_t i = 0; i < N; i++) {
		double r = runs[i % N_OF(runs)];
		uint32_t z = sizes[(i * 7) % N_OF(sizes)];
		int c;

		j[i] = (struct replay_job)J(i * 3600.0, i * 3600.0 + (double)(i % 13) * 60, r, z,
		                            i % 5 == 0, i % 3 == 0);
		j[i].line = (uint32_t)i;
		for (c = 0; c < 4 && r >= (double[]){ 30, 300, 3600, 36000 }[c]; c++)
			;
		rc[c]++;
		for (c = 0; c < 6 && z > (uint32_t[]){ 1, 4, 16, 64, 256, 1024 }[c]; c++)
			;
		sc[c]++;
		killed += i % 5 == 0;
		work += r * z;
		jan_work += i == 0 ? r * z : 0;
	}
	bd = bd_compute(&js, 4096, 949359600, &o);
	ok(bd != NULL, "bd_compute, 640 jobs");
	if (!bd)
		return;
	ok_eq(bd->batch, 20, "default batch for 640 jobs: 640 / 32 = 20");
	ok_eq(bd->ci_wait.batches, 31, "32 batches, one warm-up: 31");
	for (int c = 0; c < BD_RUNTIME_CLASSES; c++)
		per_class &= bd->runtime[c].jobs == rc[c];
	for (int c = 0; c < BD_SIZE_CLASSES; c++)
		per_class &= bd->size[c].jobs == sc[c];
	ok(per_class, "every runtime and size class holds its jobs");
	ok_eq(bd->all.killed, killed, "killed counted");
	ok_near(sum_loads(bd->runtime, BD_RUNTIME_CLASSES, &nj), bd->all.load,
	        "runtime loads sum to the utilization");
	ok_eq(nj, N, "runtime classes' jobs sum to the total");
	ok_near(sum_loads(bd->size, BD_SIZE_CLASSES, &nj), bd->all.load,
	        "size loads sum to the utilization");
	ok_eq(nj, N, "size classes' jobs sum to the total");
	/* January holds job 0's last hour (from 23:00), February the rest up
	 * to the last submission: each month's work over its own length. */
	ok_near(bd->month[0].load * 4096 * 3600, jan_work, "January's own offered load");
	ok_near(bd->month[1].load * 4096 * ((N - 1) * 3600.0 - 3600), work - jan_work,
	        "February's own offered load, up to the last submission");
	sum_loads(bd->month, bd->nmonth, &nj);
	ok_eq(nj, N, "months' jobs sum to the total");
	/* 640 h from 2000-01-31T23:00: to 2000-02-27T14:00 (plus a little): 2 months. */
	ok_eq(bd->nmonth, 2, "640 hours from Jan 31 23:00: January and February");
	bd_free(bd);
}

static void test_timeline(void)
{
	/* 4 nodes. A: all 4 nodes over [0, 100). B: 1 node, submitted at 0,
	 * started at 100, runs 100. Span [0, 200). */
	struct replay_job j[] = {
		J(0, 0, 100, 4, false, false),
		J(0, 100, 100, 1, false, false),
	};
	struct replay_jobs js = { j, 2 };
	double util[4], queue[4];
	bf_time t0 = -1, w = -1;

	ok(bd_timeline(&js, 4, 4, util, queue, &t0, &w) == 0, "bd_timeline, 4 bins");
	ok_eq(t0, 0, "t0 is the first submit");
	ok_eq(w, S(50), "bins of 50 s");
	ok(near(util[0], 1, 1e-12) && near(util[1], 1, 1e-12), "utilization 1 in the first half");
	ok(near(util[2], 0.25, 1e-12) && near(util[3], 0.25, 1e-12),
	   "utilization 1/4 in the second half (B on 1 of 4 nodes)");
	ok(near(queue[0], 1, 1e-12) && near(queue[1], 1, 1e-12), "queue 1 in the first half");
	ok(queue[2] == 0 && queue[3] == 0, "queue 0 in the second half");

	/* 3 bins: width ceil(200 s / 3) = 66.666667 s. */
	{
		double u3[3], q3[3];
		const double W = 66666667;

		ok(bd_timeline(&js, 4, 3, u3, q3, &t0, &w) == 0, "bd_timeline, 3 bins");
		ok_eq(w, 66666667, "3 bins: width rounded up to the microsecond");
		ok_near(u3[0], 1, "bin 0: all nodes");
		ok_near(u3[1], (33333333 + 0.25 * 33333334) / W, "bin 1: A to 100 s, then B");
		ok_near(u3[2], 0.25 * 66666666 / W, "bin 2: B to 200 s");
		ok_near(q3[0], 1, "queue bin 0: B waits");
		ok_near(q3[1], 33333333 / W, "queue bin 1: B waits to 100 s");
		ok_eq(q3[2], 0, "queue bin 2: empty");
	}

	/* Shifted in time, on 8 nodes: t0 follows; the areas add up. */
	{
		struct replay_job k[] = {
			J(1000, 1010, 30, 3, false, false),
			J(1005, 1020, 47, 8, false, false),
			J(1100, 1100, 13, 1, false, false),
		};
		struct replay_jobs ks = { k, 3 };
		double u[7], q[7], su = 0, sq = 0;

		ok(bd_timeline(&ks, 8, 7, u, q, &t0, &w) == 0, "bd_timeline, 7 bins");
		ok_eq(t0, S(1000), "t0 is the first submit (1000 s)");
		ok_eq(w, S(113) / 7 + 1, "width ceil(113 s / 7)");
		for (int i = 0; i < 7; i++) {
			su += u[i];
			sq += q[i];
		}
		ok_near(su * (double)w, (30.0 * 3 + 47 * 8 + 13) / 8 * BF_SEC,
		        "utilization integrates to node-seconds / nodes");
		ok_near(sq * (double)w, (10.0 + 15) * BF_SEC, "queue integrates to the total wait");
	}

	js.n = 0;
	ok(bd_timeline(&js, 4, 4, util, queue, &t0, &w) == -1, "no jobs: -1");
	js.n = 2;
	ok(bd_timeline(&js, 4, 0, util, queue, &t0, &w) == -1, "no bins: -1");
}

int main(void)
{
	test_est_parse();
	test_est_draw_simple();
	test_est_uses_seed();
	test_est_uniform();
	test_est_draw_uniform();
	test_est_draw_model();
	test_est_history();
	test_when_parse();
	test_shape_load();
	test_shape_window();
	test_shape_users();
	test_shape_flurries();
	test_classes();
	test_months();
	test_compute_seven();
	test_compute_months();
	test_compute_many();
	test_timeline();
	return tap_done();
}
