/* Statistics for replay reports and estimate models.
 *
 * Pure code: no I/O, no clock, no allocation. Everything is double.
 *
 * Why the care about rounding: the figures summarized here (waits,
 * responses, slowdowns, differences between two policies) can sit on a
 * large offset - a response of ~1e6 s whose spread is a few seconds, an
 * epoch time - and the textbook one-pass variance, sum(x^2) - n mean^2,
 * then subtracts two nearly equal numbers of size n * offset^2 and keeps
 * nothing but rounding noise (it can even come out negative). Welford's
 * update only ever squares deviations from the running mean, so its error
 * is relative to the spread, not to the offset. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "stats.h"

/* ---- percentiles -------------------------------------------------------- */

/* Ascending, NaN after every number and equal to another NaN: a total
 * order whatever the input, because qsort may misbehave - in some libc
 * versions, out of bounds - when handed a comparison that is not one. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	int nx = isnan(x) != 0, ny = isnan(y) != 0;

	if (nx || ny)
		return nx - ny;
	return (x > y) - (x < y);
}

/* Sorting is most of a replay's analysis (percentiles of every group), and
 * qsort's call per comparison costs several times the comparison: so a
 * quicksort on doubles (Hoare partition, which many equal values, such as
 * the zero waits of an idle machine, do not slow; median of three), with
 * insertion sort for short runs and qsort as the guard against a bad
 * sequence of pivots. NaNs are moved to the end first, as cmp_double
 * orders them. */
static void insertion(double *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double x = v[i];
		size_t k = i;

		for (; k > 0 && v[k - 1] > x; k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
}

static void swap(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* Hoare partition of v[0, n), n > 2, around the median of the first, the
 * middle and the last: returns k with v[0, k] <= pivot <= v[k + 1, n). */
static size_t partition(double *v, size_t n)
{
	size_t i = 0, k = n - 1, m = n / 2;
	double pivot;

	if (v[m] < v[0])
		swap(&v[m], &v[0]);
	if (v[n - 1] < v[m]) {
		swap(&v[n - 1], &v[m]);
		if (v[m] < v[0])
			swap(&v[m], &v[0]);
	}
	pivot = v[m];
	for (;;) {
		while (v[i] < pivot)
			i++;
		while (pivot < v[k])
			k--;
		if (i >= k)
			return k;
		swap(&v[i++], &v[k--]);
	}
}

static void quick(double *v, size_t n, unsigned depth)
{
	while (n > 16) {
		size_t k;

		if (depth-- == 0) {
			qsort(v, n, sizeof *v, cmp_double);
			return;
		}
		k = partition(v, n);
		/* [0, k] <= pivot <= [k + 1, n): recurse on the smaller side. */
		if (k + 1 < n - k - 1) {
			quick(v, k + 1, depth);
			v += k + 1;
			n -= k + 1;
		} else {
			quick(v + k + 1, n - k - 1, depth);
			n = k + 1;
		}
	}
	insertion(v, n);
}

void stats_sort(double *v, size_t n)
{
	size_t m = 0;
	unsigned depth = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			swap(&v[m++], &v[i]);
	for (size_t k = m; k > 1; k >>= 1)
		depth += 2;
	quick(v, m, depth);
}

/* Where R-7 reads the sorted values for p (see below): the rank lo and the
 * weight f of the next; false if p alone decides (`*at` is then the one
 * rank to read, or SIZE_MAX for NaN). */
static bool rank_of(size_t n, double p, size_t *lo, double *f, size_t *at)
{
	*at = SIZE_MAX;
	if (n == 0 || isnan(p))
		return false;
	/* A p just outside [0, 1] is nearly always rounding (99.0 / 100 and
	 * the like): clamping beats a NaN the caller did not expect. */
	if (p <= 0.0) {
		*at = 0;
		return false;
	}
	if (p >= 1.0) {
		*at = n - 1;
		return false;
	}
	double h = p * (double)(n - 1);
	*lo = (size_t)h;	/* h >= 0: truncation is floor */
	if (*lo >= n - 1) {
		*at = n - 1;
		return false;
	}
	*f = h - (double)*lo;
	return true;
}

static double between(double a, double b, double f)
{
	double d = b - a;
	/* a + f (b - a) gives a exactly when a == b or f == 0, which the
	 * weighted sum a (1 - f) + b f does not; only when the difference
	 * overflows (values of opposite sign near DBL_MAX) fall back to the
	 * weighted sum, which cannot overflow. */
	if (isinf(d) && !isinf(a) && !isinf(b))
		return a * (1.0 - f) + b * f;
	return a + f * d;
}

/* the rank h = p (n - 1) counted from 0, interpolated linearly between
 * the values at floor(h) and floor(h) + 1. p = 0 and p = 1 give the extreme
 * values exactly, and an exact rank gives its value exactly. */
double stats_percentile_sorted(const double *sorted, size_t n, double p)
{
	size_t lo, at;
	double f;

	if (!rank_of(n, p, &lo, &f, &at))
		return at == SIZE_MAX ? NAN : sorted[at];
	return between(sorted[lo], sorted[lo + 1], f);
}

/* ---- percentiles without sorting ---------------------------------------- */

/* v[from, m) holds the values of rank from.. in some order: put the one of
 * rank k (from <= k < m) at v[k], the smaller before it, the larger after
 * (Hoare partition, median of three; a sort of what is left as the guard
 * against a bad sequence of pivots). */
static void select_rank(double *v, size_t from, size_t m, size_t k)
{
	size_t lo = from, hi = m;	/* k in [lo, hi) */
	unsigned depth = 0;

	for (size_t w = m - from; w > 1; w >>= 1)
		depth += 2;
	while (hi - lo > 16 && depth-- > 0) {
		size_t j = lo + partition(v + lo, hi - lo);

		/* [lo, j] <= pivot <= [j + 1, hi) */
		if (k <= j)
			hi = j + 1;
		else
			lo = j + 1;
	}
	quick(v + lo, hi - lo, 2 * 64);
}

/* The value of rank k once ranks before `*from` are in place; NaN past the
 * numbers (as stats_sort orders them). */
static double rank_value(double *v, size_t m, size_t *from, size_t k)
{
	if (k >= m)
		return NAN;
	if (k >= *from) {
		select_rank(v, *from, m, k);
		*from = k + 1;
	}
	return v[k];
}

void stats_percentiles(double *v, size_t n, const double *p, double *out, size_t np)
{
	size_t m = 0, from = 0, lo, at;
	double f;

	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			swap(&v[m++], &v[i]);
	for (size_t k = 0; k < np; k++) {
		if (!rank_of(n, p[k], &lo, &f, &at)) {
			out[k] = at == SIZE_MAX ? NAN : rank_value(v, m, &from, at);
			continue;
		}
		double a = rank_value(v, m, &from, lo);

		out[k] = between(a, rank_value(v, m, &from, lo + 1), f);
	}
}

/* ---- Student's t -------------------------------------------------------- */

/* t(0.95; df) and t(0.975; df) for df 1..30, to 6 decimals (computed from
 * the regularized incomplete beta function; the published 3-decimal
 * tables round these). */
static const double t95_table[30] = {
	6.313752, 2.919986, 2.353363, 2.131847, 2.015048,
	1.943180, 1.894579, 1.859548, 1.833113, 1.812461,
	1.795885, 1.782288, 1.770933, 1.761310, 1.753050,
	1.745884, 1.739607, 1.734064, 1.729133, 1.724718,
	1.720743, 1.717144, 1.713872, 1.710882, 1.708141,
	1.705618, 1.703288, 1.701131, 1.699127, 1.697261,
};
static const double t975_table[30] = {
	12.706205, 4.302653, 3.182446, 2.776445, 2.570582,
	2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
	2.200985, 2.178813, 2.160369, 2.144787, 2.131450,
	2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
	2.079614, 2.073873, 2.068658, 2.063899, 2.059539,
	2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
};

/* The standard normal's 0.95 and 0.975 quantiles. */
#define Z95 1.6448536269514727
#define Z975 1.9599639845400542

/* Beyond the tables: the Cornish-Fisher expansion of t in powers of 1/df
 * around the normal quantile z (Abramowitz & Stegun 26.7.5, the expansion
 * Hill's algorithm 396 builds on). Four terms leave an error of order
 * 1 / df^5: checked against the incomplete beta function, under 1e-8 from
 * df 31 on for 0.95 (-7e-9 at 31, -2e-9 at 40, -1e-11 at 120) and under
 * 3e-8 for 0.975 (-2.6e-8 at 31, -7e-9 at 40, -3e-11 at 120), far inside
 * the 3 decimals of the published tables, and the tables hand over to it
 * at 30 without a visible step. */
static double cornish_fisher(double z, unsigned df)
{
	const double z2 = z * z;
	const double z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
	const double g1 = (z3 + z) / 4.0;
	const double g2 = (5.0 * z5 + 16.0 * z3 + 3.0 * z) / 96.0;
	const double g3 = (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / 384.0;
	const double g4 = (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z)
	                  / 92160.0;
	const double u = 1.0 / (double)df;

	/* Horner in 1/df: the small terms are added first. */
	return z + u * (g1 + u * (g2 + u * (g3 + u * g4)));
}

double stats_t95(unsigned df)
{
	if (df == 0)
		return NAN;
	return df <= 30 ? t95_table[df - 1] : cornish_fisher(Z95, df);
}

double stats_t975(unsigned df)
{
	if (df == 0)
		return NAN;
	return df <= 30 ? t975_table[df - 1] : cornish_fisher(Z975, df);
}

/* ---- mean and standard deviation ---------------------------------------- */

/* Welford: the mean moves by delta / n, and m2 (the sum of squared
 * deviations) grows by delta * (x - new mean) = delta^2 (n - 1) / n >= 0. */
void stats_run_add(struct stats_run *r, double x)
{
	r->n++;
	double delta = x - r->mean;
	r->mean += delta / (double)r->n;
	r->m2 += delta * (x - r->mean);
}

double stats_run_sd(const struct stats_run *r)
{
	/* m2 cannot go negative in exact arithmetic; if rounding ever makes
	 * it so, the spread is zero to working precision. */
	if (r->n < 2 || !(r->m2 > 0.0))
		return 0.0;
	return sqrt(r->m2 / (double)(r->n - 1));
}

/* Welford on the values shifted by the first one. Welford alone keeps the
 * variance's error relative to the spread, but its running mean still
 * rounds at the scale of the offset (ulp(1e9) ~ 1.2e-7) at every step, and
 * that leaks into the variance (~2e-8 relative for 1e5 values 1e9 + U(0,1)).
 * With all values at hand, shifting by v[0] removes the offset first: for
 * values within a factor 2 of v[0] the subtraction is exact (Sterbenz), and
 * the offset comes back in one final rounding. stats_run cannot do this (it
 * has no room to keep the shift), so the two agree to that ~1e-8, exactly
 * on data without a large offset. */
void stats_mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	struct stats_run r = { 0 };
	double shift = n > 0 ? v[0] : 0.0;

	for (size_t i = 0; i < n; i++)
		stats_run_add(&r, v[i] - shift);
	if (mean)
		*mean = n == 0 ? NAN : shift + r.mean;
	if (sd)
		*sd = n < 2 ? NAN : stats_run_sd(&r);
}

/* ---- paired samples ------------------------------------------------------ */

/* Welford for each of the four (the values here are a few figures per
 * seed, with no large offset to remove first). */
void stats_paired95(const double *a, const double *b, size_t n, struct stats_paired *out)
{
	struct stats_run ra = { 0 }, rb = { 0 }, rd = { 0 }, rr = { 0 };
	bool rel = n > 0;

	*out = (struct stats_paired){ .n = n };
	for (size_t i = 0; i < n; i++) {
		stats_run_add(&ra, a[i]);
		stats_run_add(&rb, b[i]);
		stats_run_add(&rd, a[i] - b[i]);
		if (b[i] != 0.0)
			stats_run_add(&rr, (a[i] - b[i]) / b[i]);
		else
			rel = false;
	}
	out->mean_a = n ? ra.mean : NAN;
	out->mean_b = n ? rb.mean : NAN;
	out->diff = n ? rd.mean : NAN;
	out->rel = rel ? rr.mean : NAN;
	if (n < 2) {
		out->half = out->lo = out->hi = NAN;
		out->rel_half = out->rel_lo = out->rel_hi = NAN;
		return;
	}
	double t = stats_t975(n - 1 > UINT_MAX ? UINT_MAX : (unsigned)(n - 1)), root = sqrt((double)n);

	out->half = t * stats_run_sd(&rd) / root;
	out->lo = out->diff - out->half;
	out->hi = out->diff + out->half;
	out->rel_half = rel ? t * stats_run_sd(&rr) / root : NAN;
	out->rel_lo = out->rel - out->rel_half;
	out->rel_hi = out->rel + out->rel_half;
}

bool stats_paired_significant(const struct stats_paired *p)
{
	return p->n >= 2 && (p->lo > 0.0 || p->hi < 0.0);
}

/* ---- batch means -------------------------------------------------------- */

/* The mean of one batch, summed as deviations from its first value: values
 * of one batch are usually close to each other, so the deviations are
 * small and nearly exact, and the offset is added back once, at the end. */
static double batch_mean(const double *v, size_t batch)
{
	double base = v[0], sum = 0.0;

	for (size_t i = 1; i < batch; i++)
		sum += v[i] - base;
	return base + sum / (double)batch;
}

int stats_batch_means(const double *v, size_t n, size_t batch, size_t warmup,
                      struct stats_bm *out)
{
	*out = (struct stats_bm){ .mean = NAN, .half_width = NAN, .lo = NAN, .hi = NAN };
	if (batch == 0)
		return -1;

	/* Whole batches only; a batch cut short by the end of the run would
	 * weigh a few jobs as much as a full batch. */
	size_t full = n / batch;
	if (full <= warmup)
		return 0;
	size_t k = full - warmup;
	const double *first = v + warmup * batch;

	struct stats_run r = { 0 };
	for (size_t j = 0; j < k; j++)
		stats_run_add(&r, batch_mean(first + j * batch, batch));

	out->batches = k;
	out->used = k * batch;
	out->mean = r.mean;
	if (k < 2) {
		/* One batch: an estimate but no spread, so no interval. */
		out->lo = out->hi = NAN;
		return 0;
	}
	/* Beyond UINT_MAX degrees of freedom t is the normal quantile anyway. */
	unsigned df = k - 1 > UINT_MAX ? UINT_MAX : (unsigned)(k - 1);
	out->half_width = stats_t95(df) * stats_run_sd(&r) / sqrt((double)k);
	out->lo = out->mean - out->half_width;
	out->hi = out->mean + out->half_width;
	return 0;
}

/* The interval excludes zero. With no interval (k < 2) lo and hi are NaN
 * and both comparisons are false: not significant. A zero-width interval
 * (every batch mean equal) excludes zero exactly when the mean is not 0. */
bool stats_bm_significant(const struct stats_bm *bm)
{
	return bm->batches >= 2 && (bm->lo > 0.0 || bm->hi < 0.0);
}
