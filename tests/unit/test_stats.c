/* Statistics (common/stats.c) against hand-computed values: R-7 percentiles,
 * the t(0.95) table and its asymptotic tail, batch means with warm-up and an
 * incomplete last batch, the paired-difference significance test, and the
 * stability of Welford's variance on values far from zero. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "../tap.h"
#include "stats.h"

static int near_tol(double got, double want, double tol)
{
	return fabs(got - want) <= tol * (fabs(want) > 1.0 ? fabs(want) : 1.0);
}

static void ok_near(double got, double want, const char *what)
{
	if (!ok(near_tol(got, want, 1e-12), "%s", what))
		printf("#   got %.17g, want %.17g\n", got, want);
}

/* Deterministic noise in [0, 1) (splitmix64): the same on every libc. */
static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static double uniform(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;	/* / 2^53 */
}

/* ---- percentiles -------------------------------------------------------- */

static void test_percentile_small(void)
{
	double one[1] = { 42.5 };
	double two[2] = { 20.0, 10.0 };	/* unsorted on purpose */

	ok(isnan(stats_percentile_sorted(NULL, 0, 0.5)), "percentile: n = 0 is NaN");

	ok(stats_percentile_sorted(one, 1, 0.0) == 42.5 &&
	   stats_percentile_sorted(one, 1, 0.5) == 42.5 &&
	   stats_percentile_sorted(one, 1, 0.9) == 42.5 &&
	   stats_percentile_sorted(one, 1, 0.99) == 42.5 &&
	   stats_percentile_sorted(one, 1, 1.0) == 42.5,
	   "percentile: n = 1 is the value for every p");

	stats_sort(two, 2);
	ok(two[0] == 10.0 && two[1] == 20.0, "sort: two values");
	/* h = p (n - 1) = p: 10 + p * 10. */
	ok(stats_percentile_sorted(two, 2, 0.0) == 10.0, "percentile: n = 2, p = 0 is the min");
	ok_near(stats_percentile_sorted(two, 2, 0.5), 15.0, "percentile: n = 2, p = 0.5");
	ok_near(stats_percentile_sorted(two, 2, 0.9), 19.0, "percentile: n = 2, p = 0.9");
	ok_near(stats_percentile_sorted(two, 2, 0.99), 19.9, "percentile: n = 2, p = 0.99");
	ok(stats_percentile_sorted(two, 2, 1.0) == 20.0, "percentile: n = 2, p = 1 is the max");

	ok(stats_percentile_sorted(two, 2, -0.25) == 10.0 &&
	   stats_percentile_sorted(two, 2, 1.0000001) == 20.0,
	   "percentile: p outside [0, 1] is clamped");
	ok(isnan(stats_percentile_sorted(two, 2, NAN)), "percentile: p NaN gives NaN");

	/* Equal neighbours interpolate to exactly their value. */
	double same[3] = { 7.1, 7.1, 7.1 };
	ok(stats_percentile_sorted(same, 3, 0.37) == 7.1, "percentile: between equal values, exact");
}

/* Sorted: 1 2 4 7 11 16 22 29 37 46 (gaps 1..9), given shuffled.
 * R-7 rank h = 9 p from 0:
 *   p 0.25: h 2.25 -> 4 + 0.25 * 3 = 4.75
 *   p 0.5:  h 4.5  -> 11 + 0.5 * 5 = 13.5
 *   p 0.75: h 6.75 -> 22 + 0.75 * 7 = 27.25
 *   p 0.9:  h 8.1  -> 37 + 0.1 * 9 = 37.9
 *   p 0.99: h 8.91 -> 37 + 0.91 * 9 = 45.19
 *   p 1/3:  h 3    -> 7 exactly (a whole rank) */
static void test_percentile_ten(void)
{
	double v[10] = { 22, 4, 46, 1, 16, 29, 7, 37, 2, 11 };
	static const double want[10] = { 1, 2, 4, 7, 11, 16, 22, 29, 37, 46 };
	int sorted = 1;

	stats_sort(v, 10);
	for (int i = 0; i < 10; i++)
		sorted &= v[i] == want[i];
	ok(sorted, "sort: ten shuffled values ascending");

	ok(stats_percentile_sorted(v, 10, 0.0) == 1.0, "percentile of 10: p = 0 is the min");
	ok_near(stats_percentile_sorted(v, 10, 0.25), 4.75, "percentile of 10: p = 0.25");
	ok_near(stats_percentile_sorted(v, 10, 0.5), 13.5, "percentile of 10: p = 0.5 (median)");
	ok_near(stats_percentile_sorted(v, 10, 0.75), 27.25, "percentile of 10: p = 0.75");
	ok_near(stats_percentile_sorted(v, 10, 0.9), 37.9, "percentile of 10: p = 0.9");
	ok_near(stats_percentile_sorted(v, 10, 0.99), 45.19, "percentile of 10: p = 0.99");
	ok_near(stats_percentile_sorted(v, 10, 1.0 / 3.0), 7.0, "percentile of 10: whole rank");
	ok(stats_percentile_sorted(v, 10, 1.0) == 46.0, "percentile of 10: p = 1 is the max");

	/* Negative values, duplicates, and the sort of an already reversed array. */
	double w[6] = { 3, 3, 0, -1, -2, -5 };
	stats_sort(w, 6);
	ok(w[0] == -5 && w[1] == -2 && w[2] == -1 && w[3] == 0 && w[4] == 3 && w[5] == 3,
	   "sort: negatives and duplicates");
	/* h = 5 * 0.5 = 2.5 -> -1 + 0.5 * 1 = -0.5 */
	ok_near(stats_percentile_sorted(w, 6, 0.5), -0.5, "percentile: median across zero");

	/* NaN input is the caller's business, but sorting stays a total order:
	 * NaN goes last and the numbers keep their order. */
	double x[5] = { 2, NAN, 1, NAN, 0 };
	stats_sort(x, 5);
	ok(x[0] == 0 && x[1] == 1 && x[2] == 2 && isnan(x[3]) && isnan(x[4]), "sort: NaN last");

	/* Extremes of opposite sign: the difference overflows, the result does not. */
	double big[2] = { -1.5e308, 1.5e308 };
	ok(stats_percentile_sorted(big, 2, 0.5) == 0.0, "percentile: no overflow near DBL_MAX");
}

/* ---- Student's t -------------------------------------------------------- */

/* The published one-sided 0.95 column (two-sided 90%), 3 decimals. */
static const double t_published[30] = {
	6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812,
	1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725,
	1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697,
};

static int rounds_to(double got, double want)
{
	return fabs(got - want) <= 0.0005;
}

static void ok_t(unsigned df, double want)
{
	double t = stats_t95(df);

	if (!ok(rounds_to(t, want), "t95(%u) = %.3f", df, want))
		printf("#   got %.6f\n", t);
}

static void test_t95(void)
{
	int all = 1;

	ok(isnan(stats_t95(0)), "t95(0) is NaN");
	ok_t(1, 6.314);
	ok_t(2, 2.920);
	ok_t(10, 1.812);
	ok_t(30, 1.697);
	ok_t(40, 1.684);
	ok_t(60, 1.671);
	ok_t(120, 1.658);
	for (unsigned df = 1; df <= 30; df++)
		if (!rounds_to(stats_t95(df), t_published[df - 1])) {
			all = 0;
			printf("# t95(%u) = %.6f, table %.3f\n", df, stats_t95(df), t_published[df - 1]);
		}
	ok(all, "t95: the whole published table df 1..30 to 3 decimals");

	/* Past the table, against the incomplete beta function (6 decimals). */
	ok(fabs(stats_t95(31) - 1.695519) < 1e-6, "t95(31) from the expansion: 1.695519");
	ok(fabs(stats_t95(1000) - 1.646379) < 1e-6, "t95(1000): 1.646379");
	ok(fabs(stats_t95(1000000) - 1.6449) < 1e-4, "t95: tends to 1.6449 for large df");
	ok(fabs(stats_t95(UINT_MAX) - 1.6448536269514727) < 1e-8, "t95: huge df is the normal quantile");

	/* Decreasing everywhere, in particular across the seam at 30 / 31. */
	int dec = 1;
	for (unsigned df = 1; df < 2000; df++)
		if (!(stats_t95(df + 1) < stats_t95(df))) {
			dec = 0;
			printf("# t95(%u) = %.9f >= t95(%u) = %.9f\n", df + 1, stats_t95(df + 1),
			       df, stats_t95(df));
		}
	ok(dec, "t95: strictly decreasing in df (1..2000)");
	ok(stats_t95(1000000) > 1.6448536269514727, "t95: stays above the normal quantile");
}

/* The published two-sided 95% table (t 0.975), df 1..30, 3 decimals. */
static const double t975_published[30] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

static void test_t975(void)
{
	int all = 1, dec = 1;

	ok(isnan(stats_t975(0)), "t975(0) is NaN");
	for (unsigned df = 1; df <= 30; df++)
		if (!rounds_to(stats_t975(df), t975_published[df - 1])) {
			all = 0;
			printf("# t975(%u) = %.6f, table %.3f\n", df, stats_t975(df),
			       t975_published[df - 1]);
		}
	ok(all, "t975: the whole published table df 1..30 to 3 decimals");
	ok(rounds_to(stats_t975(9), 2.262), "t975(9) = 2.262 (10 seeds)");
	/* Past the table, against the incomplete beta function (7 digits). */
	ok(fabs(stats_t975(31) - 2.0395134) < 1e-6, "t975(31) from the expansion: 2.039513");
	ok(fabs(stats_t975(40) - 2.0210754) < 1e-6, "t975(40): 2.021075");
	ok(fabs(stats_t975(60) - 2.0002978) < 1e-6, "t975(60): 2.000298");
	ok(fabs(stats_t975(120) - 1.9799304) < 1e-6, "t975(120): 1.979930");
	ok(fabs(stats_t975(1000) - 1.9623391) < 1e-6, "t975(1000): 1.962339");
	ok(fabs(stats_t975(UINT_MAX) - 1.9599639845400542) < 1e-8,
	   "t975: huge df is the normal quantile 1.959964");
	for (unsigned df = 1; df < 2000; df++)
		if (!(stats_t975(df + 1) < stats_t975(df))) {
			dec = 0;
			printf("# t975(%u) = %.9f >= t975(%u) = %.9f\n", df + 1, stats_t975(df + 1),
			       df, stats_t975(df));
		}
	ok(dec, "t975: strictly decreasing in df (1..2000), across the seam at 30 / 31");
	ok(stats_t975(5) > stats_t95(5), "t975 is above t95");
}

/* Paired samples: differences 2, 1, 4, 0 (mean 1.75, sd sqrt(8.75 / 3)),
 * relative 2/8, 1/11, 4/10, 0/9. */
static void test_paired(void)
{
	const double a[] = { 10, 12, 14, 9 }, b[] = { 8, 11, 10, 9 };
	struct stats_paired p;
	double half = 3.182446 * sqrt(8.75 / 3) / 2, rel = (0.25 + 1.0 / 11 + 0.4) / 4;
	double rsd;

	stats_paired95(a, b, 4, &p);
	ok(p.n == 4, "paired: n");
	ok_near(p.mean_a, 11.25, "paired: mean of a");
	ok_near(p.mean_b, 9.5, "paired: mean of b");
	ok_near(p.diff, 1.75, "paired: mean difference 1.75");
	ok(fabs(p.half - half) < 1e-5, "paired: half-width t975(3) sd / 2 = %.5f", half);
	ok_near(p.lo, p.diff - p.half, "paired: lo");
	ok_near(p.hi, p.diff + p.half, "paired: hi");
	ok(!stats_paired_significant(&p), "paired: [-0.97, 4.47] holds 0: not significant");
	ok_near(p.rel, rel, "paired: mean relative difference");
	{
		const double r[] = { 0.25, 1.0 / 11, 0.4, 0 };

		stats_mean_sd(r, 4, NULL, &rsd);
	}
	ok(fabs(p.rel_half - 3.182446 * rsd / 2) < 1e-5, "paired: relative half-width");

	const double c[] = { 5, 6, 7 }, d[] = { 3, 4, 5 };
	stats_paired95(c, d, 3, &p);
	ok(p.diff == 2 && p.half == 0 && p.lo == 2 && p.hi == 2 && stats_paired_significant(&p),
	   "paired: every difference 2: the interval is [2, 2], significant");
	const double e[] = { 1, 2 }, f[] = { 0, 2 };
	stats_paired95(e, f, 2, &p);
	ok(isnan(p.rel) && isnan(p.rel_lo) && isfinite(p.lo), "paired: a b of 0: no relative figures");
	stats_paired95(a, b, 1, &p);
	ok(p.diff == 2 && isnan(p.half) && isnan(p.lo) && !stats_paired_significant(&p),
	   "paired: one pair: a difference, no interval, not significant");
	stats_paired95(a, b, 0, &p);
	ok(isnan(p.diff) && isnan(p.mean_a) && !stats_paired_significant(&p), "paired: none: NaN");
}

/* ---- batch means -------------------------------------------------------- */

/* Batches of 4: a warm-up batch (mean 100), then batch means 2, 4, 6, 8,
 * then 3 values of an incomplete batch (1e6 each). With warm-up 1:
 *   k = 4, used 16, mean (2 + 4 + 6 + 8) / 4 = 5,
 *   sd of {2, 4, 6, 8} = sqrt((9 + 1 + 1 + 9) / 3) = sqrt(20 / 3) = 2.5820,
 *   half-width t95(3) * sd / sqrt(4) = 2.353363 * 1.290994 = 3.038179. */
static const double seq[] = {
	100, 90, 110, 100,	/* warm-up, mean 100 */
	1, 3, 2, 2,		/* mean 2 */
	4, 4, 0, 8,		/* mean 4 */
	6, 5, 7, 6,		/* mean 6 */
	10, 6, 9, 7,		/* mean 8 */
	1e6, 1e6, 1e6,		/* incomplete */
};
#define SEQ_N (sizeof seq / sizeof seq[0])

static void test_batch_means(void)
{
	struct stats_bm bm;

	ok_eq(stats_batch_means(seq, SEQ_N, 4, 1, &bm), 0, "bm: returns 0");
	ok_eq(bm.batches, 4, "bm: k = 4 (warm-up and incomplete batch dropped)");
	ok_eq(bm.used, 16, "bm: 16 values used");
	ok_near(bm.mean, 5.0, "bm: mean of batch means 5");
	ok_near(bm.half_width, stats_t95(3) * sqrt(20.0 / 3.0) / 2.0,
	        "bm: half-width t95(3) * sqrt(20/3) / sqrt(4)");
	ok(fabs(bm.half_width - 3.038179) < 1e-6, "bm: half-width 3.038179 by hand");
	ok_near(bm.lo, 5.0 - bm.half_width, "bm: lo = mean - half-width");
	ok_near(bm.hi, 5.0 + bm.half_width, "bm: hi = mean + half-width");
	ok(stats_bm_significant(&bm), "bm: [1.96, 8.04] excludes zero");

	/* No warm-up: the batch of 100 counts; means 100, 2, 4, 6, 8: mean 24,
	 * sd^2 = (76^2 + 22^2 + 20^2 + 18^2 + 16^2) / 4 = 7240 / 4 = 1810. */
	stats_batch_means(seq, SEQ_N, 4, 0, &bm);
	ok(bm.batches == 5 && bm.used == 20, "bm: warm-up 0 keeps the first batch");
	ok_near(bm.mean, 24.0, "bm: warm-up 0 mean 24");
	ok_near(bm.half_width, stats_t95(4) * sqrt(1810.0) / sqrt(5.0), "bm: warm-up 0 half-width");

	/* Exactly whole batches: nothing dropped at the end. */
	stats_batch_means(seq, 20, 4, 1, &bm);
	ok(bm.batches == 4 && bm.used == 16 && near_tol(bm.mean, 5.0, 1e-12),
	   "bm: n a multiple of the batch, same result");
	/* One value short of the last batch: that batch goes. */
	stats_batch_means(seq, 19, 4, 1, &bm);
	ok(bm.batches == 3 && bm.used == 12 && near_tol(bm.mean, 4.0, 1e-12),
	   "bm: last batch one short is dropped");

	/* Batch of 8 over 23 values: 2 full batches, warm-up 1 leaves one:
	 * values 8..15 = 4 4 0 8 6 5 7 6, mean 5. A mean, no interval. */
	stats_batch_means(seq, SEQ_N, 8, 1, &bm);
	ok(bm.batches == 1 && bm.used == 8 && near_tol(bm.mean, 5.0, 1e-12),
	   "bm: one batch gives a mean");
	ok(isnan(bm.half_width) && isnan(bm.lo) && isnan(bm.hi), "bm: one batch, no interval");
	ok(!stats_bm_significant(&bm), "bm: one batch is never significant");

	/* Warm-up eats everything; a batch longer than the data. */
	stats_batch_means(seq, SEQ_N, 4, 5, &bm);
	ok(bm.batches == 0 && bm.used == 0 && isnan(bm.mean) && isnan(bm.half_width),
	   "bm: warm-up >= batches gives k = 0, mean NaN");
	ok(!stats_bm_significant(&bm), "bm: k = 0 is not significant");
	stats_batch_means(seq, SEQ_N, 100, 0, &bm);
	ok(bm.batches == 0 && isnan(bm.mean), "bm: batch longer than the data gives k = 0");
	stats_batch_means(NULL, 0, 4, 0, &bm);
	ok(bm.batches == 0 && isnan(bm.mean), "bm: no values");

	ok_eq(stats_batch_means(seq, SEQ_N, 0, 0, &bm), -1, "bm: batch 0 is an error");
	ok(bm.batches == 0 && isnan(bm.mean), "bm: batch 0 leaves an empty result");

	/* Batch means of values on a large offset keep their small spread:
	 * 1e9 + {2, 4, 6, 8} as batch means, as above. */
	double off[16];
	for (int i = 0; i < 16; i++)
		off[i] = 1e9 + seq[4 + i];
	stats_batch_means(off, 16, 4, 0, &bm);
	ok(bm.batches == 4 && bm.mean == 1e9 + 5.0 &&
	   near_tol(bm.half_width, stats_t95(3) * sqrt(20.0 / 3.0) / 2.0, 1e-9),
	   "bm: offset 1e9, same half-width");
}

/* Paired differences A - B, 1000 jobs in batches of 50, first batch dropped. */
static void test_significance(void)
{
	enum { N = 1000, B = 50 };
	static double d[N];
	struct stats_bm bm;

	/* Clearly positive: 5 + noise in [-1, 1). */
	for (int i = 0; i < N; i++)
		d[i] = 5.0 + 2.0 * uniform() - 1.0;
	stats_batch_means(d, N, B, 1, &bm);
	ok(bm.batches == 19 && bm.used == 950, "paired: 19 batches of 50 after warm-up");
	ok(stats_bm_significant(&bm) && bm.lo > 4.5 && bm.hi < 5.5,
	   "paired: a difference of 5 is significant, interval around 5");

	/* Clearly negative: the interval lies below zero. */
	for (int i = 0; i < N; i++)
		d[i] = -d[i];
	stats_batch_means(d, N, B, 1, &bm);
	ok(stats_bm_significant(&bm) && bm.hi < 0.0, "paired: a difference of -5 is significant");

	/* Zero mean: batch means alternate +1 and -1 (each batch also carries
	 * noise that sums to zero within it), 20 batches, warm-up 0, so the
	 * mean is 0 and the interval straddles it. */
	for (int j = 0; j < N / B; j++)
		for (int i = 0; i < B; i += 2) {
			double e = 3.0 * uniform();
			double m = (j % 2) ? -1.0 : 1.0;
			d[j * B + i] = m + e;
			d[j * B + i + 1] = m - e;
		}
	stats_batch_means(d, N, B, 0, &bm);
	ok(bm.batches == 20 && fabs(bm.mean) < 1e-12, "paired: zero-mean sequence, mean 0");
	ok(bm.lo < 0.0 && bm.hi > 0.0 && !stats_bm_significant(&bm),
	   "paired: zero mean is not significant");

	/* Every batch mean equal and non-zero: a zero-width interval at 0.5. */
	for (int i = 0; i < N; i++)
		d[i] = 0.5;
	stats_batch_means(d, N, B, 1, &bm);
	ok(bm.half_width == 0.0 && stats_bm_significant(&bm),
	   "paired: constant non-zero difference is significant (zero width)");
	for (int i = 0; i < N; i++)
		d[i] = 0.0;
	stats_batch_means(d, N, B, 1, &bm);
	ok(!stats_bm_significant(&bm), "paired: identical policies are not significant");
}

/* ---- mean and standard deviation ---------------------------------------- */

static void test_mean_sd(void)
{
	/* The classic: mean 5, sum of squared deviations 32, sample sd sqrt(32 / 7). */
	static const double v[8] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	double m, s;

	stats_mean_sd(v, 8, &m, &s);
	ok_near(m, 5.0, "mean_sd: mean 5");
	ok_near(s, sqrt(32.0 / 7.0), "mean_sd: sample sd sqrt(32/7)");

	stats_mean_sd(v, 1, &m, &s);
	ok(m == 2.0 && isnan(s), "mean_sd: n = 1, sd NaN");
	stats_mean_sd(NULL, 0, &m, &s);
	ok(isnan(m) && isnan(s), "mean_sd: n = 0, both NaN");
	m = -1.0;
	stats_mean_sd(v, 8, &m, NULL);
	ok(m == 5.0, "mean_sd: sd pointer may be NULL");
	s = -1.0;
	stats_mean_sd(v, 8, NULL, &s);
	ok_near(s, sqrt(32.0 / 7.0), "mean_sd: mean pointer may be NULL");

	static const double c[4] = { 3.25, 3.25, 3.25, 3.25 };
	stats_mean_sd(c, 4, &m, &s);
	ok(m == 3.25 && s == 0.0, "mean_sd: constant values, sd exactly 0");
}

/* 1e5 values 1e9 + noise in [0, 1): sd ~ 0.2887. The reference is two
 * passes over the exact deviations from 1e9 (x - 1e9 is exact: both are
 * multiples of ulp(1e9) and the result is small) in long double. The
 * textbook formula sum(x^2) - n mean^2 on the same doubles loses it. */
static void test_stability(void)
{
	enum { N = 100000 };
	static double x[N];
	const double off = 1e9, ulp = 1.1920928955078125e-07;	/* ulp(1e9) = 2^-23 */
	long double sum = 0.0L, ss = 0.0L;

	for (int i = 0; i < N; i++)
		x[i] = off + uniform();
	for (int i = 0; i < N; i++)
		sum += (long double)(x[i] - off);
	long double dmean = sum / N;
	for (int i = 0; i < N; i++) {
		long double e = (long double)(x[i] - off) - dmean;
		ss += e * e;
	}
	double ref_mean = (double)((long double)off + dmean);
	double ref_sd = (double)sqrtl(ss / (N - 1));
	ok(fabs(ref_sd - sqrt(1.0 / 12.0)) < 0.01, "stability: reference sd is the uniform's 0.2887");

	/* stats_mean_sd: Welford on values shifted by the first. */
	double m, s;
	stats_mean_sd(x, N, &m, &s);
	if (!ok(fabs(m - ref_mean) <= ulp, "mean_sd: mean of 1e9 + noise within 1 ulp(1e9)"))
		printf("#   got %.17g, want %.17g\n", m, ref_mean);
	if (!ok(fabs(s - ref_sd) <= 1e-12 * ref_sd, "mean_sd: sd of 1e9 + noise to 1e-12 relative"))
		printf("#   got %.17g, want %.17g (rel %.3g)\n", s, ref_sd, fabs(s - ref_sd) / ref_sd);

	/* stats_run: plain online Welford, whose running mean rounds at
	 * ulp(1e9) every step; still good to ~1e-8 of the sd. */
	struct stats_run r = { 0 };
	for (int i = 0; i < N; i++)
		stats_run_add(&r, x[i]);
	double rs = stats_run_sd(&r);
	ok(r.n == N, "run: count");
	if (!ok(fabs(r.mean - ref_mean) <= 8.0 * ulp, "run: mean of 1e9 + noise within 8 ulp(1e9)"))
		printf("#   got %.17g, want %.17g\n", r.mean, ref_mean);
	if (!ok(fabs(rs - ref_sd) <= 1e-7 * ref_sd, "run: sd of 1e9 + noise to 1e-7 relative"))
		printf("#   got %.17g, want %.17g (rel %.3g)\n", rs, ref_sd, fabs(rs - ref_sd) / ref_sd);
	ok(fabs(r.mean - m) <= 8.0 * ulp && fabs(rs - s) <= 1e-7 * s,
	   "run: matches stats_mean_sd on offset data (to 1e-7)");

	/* The one-pass textbook formula, to show the test has teeth. */
	double s1 = 0.0, s2 = 0.0;
	for (int i = 0; i < N; i++) {
		s1 += x[i];
		s2 += x[i] * x[i];
	}
	double naive_var = (s2 - s1 * s1 / N) / (N - 1);
	double naive_sd = naive_var > 0.0 ? sqrt(naive_var) : 0.0;
	ok(!near_tol(naive_sd, ref_sd, 0.1), "stability: the naive formula is off by > 10%% here");
	printf("# sd: reference %.15g, mean_sd %.15g, run %.15g, naive %.6g\n",
	       ref_sd, s, rs, naive_sd);
}

static void test_run(void)
{
	static const double v[8] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct stats_run r = { 0 };
	double m, s;

	ok(stats_run_sd(&r) == 0.0, "run: empty sd 0");
	stats_run_add(&r, 2.0);
	ok(r.n == 1 && r.mean == 2.0 && stats_run_sd(&r) == 0.0, "run: one value, sd 0 (not NaN)");
	for (int i = 1; i < 8; i++)
		stats_run_add(&r, v[i]);
	stats_mean_sd(v, 8, &m, &s);
	ok(r.n == 8 && near_tol(r.mean, m, 1e-15), "run: mean matches stats_mean_sd");
	ok(near_tol(stats_run_sd(&r), s, 1e-14), "run: sd matches stats_mean_sd");
	ok_near(r.mean + 2.0 * stats_run_sd(&r), 5.0 + 2.0 * sqrt(32.0 / 7.0),
	        "run: mean + 2 sd prediction");

	/* Added in a different order: the same figures up to rounding. */
	struct stats_run q = { 0 };
	for (int i = 7; i >= 0; i--)
		stats_run_add(&q, v[i]);
	ok(near_tol(q.mean, m, 1e-15) && near_tol(stats_run_sd(&q), s, 1e-14),
	   "run: order of addition does not matter (to rounding)");
}

static int cmp_ref(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* stats_sort is a hand-written quicksort: against qsort on random arrays
 * of every shape it meets (many equal values, sorted, reversed, few
 * distinct, sizes around its insertion-sort cut-off), with NaNs last. */
static void test_sort_random(void)
{
	static double a[5000], b[5000];
	unsigned long long x = 88172645463325252ULL;
	int bad = 0;

	for (int round = 0; round < 400; round++) {
		size_t n = (size_t)(round < 40 ? round : (round * 37) % 5000);
		int shape = round % 5, nans = 0;

		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			a[i] = shape == 0 ? (double)(x % 1000000) / 7 :
			       shape == 1 ? (double)(x % 3) :
			       shape == 2 ? (double)i :
			       shape == 3 ? (double)(n - i) : 0.0;
			if (round % 7 == 0 && x % 11 == 0) {
				a[i] = NAN;
				nans++;
			}
		}
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (!isnan(a[i]))
				b[m++] = a[i];
		qsort(b, m, sizeof *b, cmp_ref);
		stats_sort(a, n);
		for (size_t i = 0; i < m; i++)
			bad += a[i] != b[i];
		for (size_t i = m; i < n; i++)
			bad += !isnan(a[i]);
		bad += (size_t)nans != n - m;
	}
	ok(bad == 0, "sort: 400 random arrays (duplicates, sorted, reversed, NaNs) as qsort sorts them");
}

/* stats_percentiles against stats_sort + stats_percentile_sorted, bit for
 * bit, on random arrays: sizes from 0 to a few thousand, many ties, NaNs
 * (which both put last), infinities, and percentiles at 0, 1 and outside. */
static void test_percentiles_select(void)
{
	static const double ps[][5] = {
		{ 0.5, 0.9, 0.99, 0.99, 0.999 }, { 0.0, 0.25, 0.5, 0.75, 1.0 },
		{ -0.5, 0.01, 0.5, 1.0, 2.0 }, { 0.1, 0.1, 0.2, 0.95, 0.9999 },
	};
	unsigned bad = 0, runs = 0;

	for (unsigned r = 0; r < 600; r++) {
		size_t n = r < 40 ? r : (size_t)(uniform() * (r % 3 ? 300 : 5000));
		double *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
		unsigned kind = r % 5;
		const double *p = ps[r % 4];
		double got[5];

		for (size_t i = 0; i < n; i++) {
			double u = uniform();

			a[i] = kind == 0 ? u * 1e6 : kind == 1 ? (double)(int)(u * 4) :
			       kind == 2 ? (u < 0.05 ? NAN : u) : kind == 3 ? (u < 0.02 ? INFINITY :
			       u < 0.04 ? -INFINITY : u - 0.5) : (double)i;
			b[i] = a[i];
		}
		stats_sort(b, n);
		stats_percentiles(a, n, p, got, 5);
		for (int k = 0; k < 5; k++) {
			double want = stats_percentile_sorted(b, n, p[k]);

			if (!(want == got[k] || (isnan(want) && isnan(got[k])))) {
				if (bad++ < 5)
					printf("#   run %u, n %zu, p %g: got %.17g, want %.17g\n", r, n,
					       p[k], got[k], want);
			}
		}
		runs++;
		free(a);
		free(b);
	}
	ok(bad == 0, "percentiles by selection equal those of a sort, bit for bit (%u arrays, "
	   "%u differences)", runs, bad);
}

int main(void)
{
	test_percentiles_select();
	test_sort_random();
	test_percentile_small();
	test_percentile_ten();
	test_t95();
	test_t975();
	test_paired();
	test_batch_means();
	test_significance();
	test_mean_sd();
	test_stability();
	test_run();
	return tap_done();
}
