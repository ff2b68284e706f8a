/* Small statistics for replay reports and estimate models: percentiles,
 * Student's t quantiles for 90% and 95% intervals, batch means with their
 * confidence interval (SCHEDULING.md, "Metrics"), mean and standard
 * deviation, and an online accumulator.
 *
 * Pure code: no I/O, no clock, no allocation. Inputs are assumed finite:
 * a NaN (or an infinity) in the input is the caller's business, and every
 * result derived from such input is unspecified. It stays memory-safe:
 * stats_sort orders NaN after every number, so its comparison is a total
 * order whatever the input. */
#ifndef BF_STATS_H
#define BF_STATS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Percentile of n values by linear interpolation between closest ranks
 * (the "R-7"/Excel PERCENTILE.INC method): p in [0, 1] (clamped into it;
 * a NaN p gives NaN). `sorted` must be in ascending order: sort it first
 * with stats_sort, which sorts in place. n == 0 gives NaN. */
double stats_percentile_sorted(const double *sorted, size_t n, double p);
/* Sorts v in place, ascending (NaN, if any, last). */
void stats_sort(double *v, size_t n);
/* The percentiles p[0..np) (ascending) of v[0..n) into out, exactly as
 * stats_percentile_sorted would give them after stats_sort, in O(n) for a
 * few percentiles instead of a sort: v is reordered (partly sorted). */
void stats_percentiles(double *v, size_t n, const double *p, double *out, size_t np);

/* Student's t quantile: the value t with P(T <= t) = 0.95 for df degrees of
 * freedom (so mean ± t * s / sqrt(k) is a 90% two-sided interval). df >= 1
 * (df == 0 gives NaN). Exact to 3 decimals against the published table for
 * df 1..30, 40, 60, 120, and tends to 1.6449 for large df. */
double stats_t95(unsigned df);
/* The same for P(T <= t) = 0.975: mean ± t * s / sqrt(k) is a 95% two-sided
 * interval (a comparison across seeds states its 95%). Exact to 3 decimals
 * against the published table, tends to 1.9600. */
double stats_t975(unsigned df);

/* Batch means: the values in their order (e.g. jobs in order of completion),
 * cut into consecutive batches of `batch` values; the first `warmup` batches
 * are dropped; an incomplete last batch is dropped. The estimate is the mean of
 * the batch means, the interval mean ± t95(k-1) * sd(batch means) / sqrt(k). */
struct stats_bm {
	size_t batches;		/* k, batches used */
	size_t used;		/* values used: k * batch */
	double mean;		/* mean of the batch means (NaN if k == 0) */
	double half_width;	/* 90% half-width (NaN if k < 2) */
	double lo, hi;		/* mean ∓ half_width */
};
/* 0, or -1 if batch == 0 (out is then filled as for k == 0). */
int stats_batch_means(const double *v, size_t n, size_t batch, size_t warmup,
                      struct stats_bm *out);
/* A paired comparison: d = the batch means of v (the per-job differences A - B);
 * significant when the interval excludes zero. Never significant with fewer
 * than two batches (no interval). */
bool stats_bm_significant(const struct stats_bm *bm);

/* Paired samples across independent runs (a comparison's two sides
 * replayed with each of n seeds): the mean of the differences a[i] - b[i]
 * with its 95% Student t interval, mean ± t975(n-1) * sd / sqrt(n), and the
 * same for the relative differences (a[i] - b[i]) / b[i]. Half-widths and
 * bounds are NaN when n < 2; the relative figures are NaN when some b[i]
 * is 0. A difference is significant when its interval excludes zero. */
struct stats_paired {
	size_t n;
	double mean_a, mean_b;
	double diff, half, lo, hi;
	double rel, rel_half, rel_lo, rel_hi;
};
void stats_paired95(const double *a, const double *b, size_t n, struct stats_paired *out);
bool stats_paired_significant(const struct stats_paired *p);

/* Mean and sample standard deviation of n values (mean NaN when n == 0, sd
 * NaN when n < 2), computed stably (Welford). Either pointer may be NULL. */
void stats_mean_sd(const double *v, size_t n, double *mean, double *sd);

/* Running count, mean and variance (Welford), for mean + k * sd predictions.
 * Start from all zeros: struct stats_run r = { 0 }; */
struct stats_run { uint64_t n; double mean, m2; };
void stats_run_add(struct stats_run *r, double x);
double stats_run_sd(const struct stats_run *r);	/* sample sd; 0 when n < 2 */

#endif
