/* --compare A,B --seeds: both sides replayed with every seed, paired by
 * seed (see compare.h). Every format string is a literal.
 *
 * Why by seed and not by job: with random estimates one replay is one
 * draw, and a per-job interval within it says nothing of the next draw.
 * The seed is the unit of replication: the same seed gives both sides the
 * same estimates (a job's draw is a function of the seed and its line), so
 * a seed's A - B is one paired sample, and the seeds are independent. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "jsonw.h"
#include "plot.h"
#include "svg.h"
#include "sweep.h"

/* The figures compared, each with the direction that is better. */
struct figure {
	const char *name;	/* cell_metric's, or "killed" */
	const char *key;	/* in JSON */
	const char *label;	/* in the text table */
	bool higher_better;
	int prec;
};
static const struct figure figures[] = {
	{ "bsld", "bounded_slowdown", "bsld", false, 3 },
	{ "response", "response_s", "resp s", false, 1 },
	{ "wait", "wait_s", "wait s", false, 1 },
	{ "bsld-p90", "bounded_slowdown_p90", "bsld p90", false, 3 },
	{ "wait-p90", "wait_p90_s", "wait p90 s", false, 1 },
	{ "utilization", "utilization_pct", "util %", true, 3 },
	{ "killed", "killed", "killed", false, 1 },
};
enum { NFIG = sizeof figures / sizeof figures[0] };

static double figure_of(const struct cell_row *r, int f)
{
	if (strcmp(figures[f].name, "killed") == 0)
		return (double)r->killed;
	return cell_metric(r, figures[f].name);
}

/* The cells: side (A 0, B 1) outermost, the seed inside. */
struct sides {
	const struct replay_settings *side[2];
	const uint64_t *seed;
	size_t nseed;
};

static void side_settings(const void *arg, size_t k, const struct replay_settings *base,
                          struct replay_settings *out)
{
	const struct sides *s = arg;

	(void)base;	/* each side is already base with its changes */
	*out = *s->side[k / s->nseed];
	out->seed = s->seed[k % s->nseed];
}

static size_t side_source(const void *arg, size_t k)
{
	const struct sides *s = arg;
	size_t side = k / s->nseed;

	return est_uses_seed(&s->side[side]->est) ? k : side * s->nseed;
}

/* One figure over the seeds. */
struct fig_result {
	struct stats_paired p;
	size_t a_won, b_won, ties;
};

static void compute(const struct cell_row *rows, size_t nseed, double *va, double *vb,
                    struct fig_result *res)
{
	for (int f = 0; f < NFIG; f++) {
		struct fig_result *r = &res[f];

		*r = (struct fig_result){ 0 };
		for (size_t s = 0; s < nseed; s++) {
			va[s] = figure_of(&rows[s], f);
			vb[s] = figure_of(&rows[nseed + s], f);
			if (va[s] == vb[s])
				r->ties++;
			else if ((va[s] > vb[s]) == figures[f].higher_better)
				r->a_won++;
			else
				r->b_won++;
		}
		stats_paired95(va, vb, nseed, &r->p);
	}
}

/* With neither side using the seed every pair is the same pair: the
 * difference is exact and has no interval to give. */
static bool varies(const struct replay_settings *a, const struct replay_settings *b)
{
	return est_uses_seed(&a->est) || est_uses_seed(&b->est);
}

static const char *verdict(const struct fig_result *r, bool vary)
{
	if (!vary || r->p.n < 2 || !isfinite(r->p.half))
		return "n/a";
	if (!stats_paired_significant(&r->p))
		return "no";
	return r->p.diff < 0 ? "A lower" : "B lower";
}

/* "1..10" for a run of consecutive seeds, else "1, 5, 9" (at most a few). */
static void seeds_text(const uint64_t *seed, size_t n, char *buf, size_t len)
{
	bool run = true;
	size_t at = 0;

	for (size_t i = 1; i < n; i++)
		run &= seed[i] == seed[i - 1] + 1;
	if (run) {
		snprintf(buf, len, "%" PRIu64 "..%" PRIu64, seed[0], seed[n - 1]);
		return;
	}
	for (size_t i = 0; i < n && at + 24 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%" PRIu64, i ? ", " : "", seed[i]);
	if (at + 24 >= len)
		snprintf(buf + at, len - at, ", ...");
}

static void num(FILE *out, double v, int width, int prec)
{
	if (isfinite(v))
		fprintf(out, " %*.*f", width, prec, v);
	else
		fprintf(out, " %*s", width, "-");
}

static void interval(FILE *out, double lo, double hi, double scale, int prec, const char *unit,
                     int width)
{
	char ci[64];

	if (isfinite(lo) && isfinite(hi))
		snprintf(ci, sizeof ci, "[%+.*f%s, %+.*f%s]", prec, lo * scale, unit, prec, hi * scale,
		         unit);
	else
		snprintf(ci, sizeof ci, "-");
	fprintf(out, " %-*s", width, ci);
}

struct report {
	const struct replay_opts *o;
	const struct replay_settings *a, *b;
	const struct cell_row *rows;	/* A's seeds, then B's */
	const uint64_t *seed;
	size_t nseed;
	const struct fig_result *res;
};

static void print_text(FILE *out, const struct report *r)
{
	const struct cell_row *ra = &r->rows[0];
	bool vary = varies(r->a, r->b);
	unsigned df = r->nseed - 1 > UINT32_MAX ? UINT32_MAX : (unsigned)(r->nseed - 1);
	char na[64], nb[64], seeds[200];

	compare_side_name(r->a, na, sizeof na);
	compare_side_name(r->b, nb, sizeof nb);
	seeds_text(r->seed, r->nseed, seeds, sizeof seeds);
	fprintf(out, "backfilld compare over seeds: %s, %" PRIu64 " jobs, %" PRIu32 " nodes, %zu seeds "
	        "(%s)\n", r->o->trace, ra->jobs, ra->nodes, r->nseed, seeds);
	compare_load_text(out, ra->load, ra->set.shape.utilization, ra->offered_load);
	if (ra->deps.shown)
		fprintf(out, "dependencies %s: %" PRIu64 " jobs had a predecessor, %" PRIu64 " honoured\n",
		        replay_deps_name(ra->deps.mode), ra->deps.with_pred, ra->deps.honoured);
	fprintf(out, "A = %s: %s\n", na, est_uses_seed(&r->a->est) ? "replayed with each seed" :
	        "its estimates do not use the seed: replayed once");
	fprintf(out, "B = %s: %s\n", nb, est_uses_seed(&r->b->est) ? "replayed with each seed" :
	        "its estimates do not use the seed: replayed once");
	if (vary)
		fprintf(out, "paired by seed (the same seed, the same draws on both sides): per figure "
		        "the mean over the seeds of A - B\nand of (A - B) / B, each with a 95%% "
		        "confidence interval, Student t with %u degrees of freedom\n(mean +- %.3f sd / "
		        "sqrt(%zu)); significant when the interval excludes 0\n\n", df,
		        stats_t975(df), r->nseed);
	else
		fputs("neither side uses the seed: every seed gives the same two replays, so the "
		      "differences are exact,\nwith no interval across seeds (--compare without --seeds "
		      "gives per-job intervals)\n\n", out);
	fprintf(out, "%-10s %11s %11s %11s %-24s %8s %-19s %-19s %s\n", "figure", "A mean", "B mean",
	        "A-B", "95% CI", "(A-B)/B", "95% CI", "B won", "signif");
	for (int f = 0; f < NFIG; f++) {
		const struct fig_result *x = &r->res[f];
		char won[48], rel[16];

		fprintf(out, "%-10s", figures[f].label);
		num(out, x->p.mean_a, 11, figures[f].prec);
		num(out, x->p.mean_b, 11, figures[f].prec);
		num(out, x->p.diff, 11, figures[f].prec);
		interval(out, vary ? x->p.lo : NAN, vary ? x->p.hi : NAN, 1, figures[f].prec, "", 24);
		if (isfinite(x->p.rel))
			snprintf(rel, sizeof rel, "%+.1f%%", x->p.rel * 100);
		else
			snprintf(rel, sizeof rel, "-");
		fprintf(out, " %8s", rel);
		interval(out, vary ? x->p.rel_lo : NAN, vary ? x->p.rel_hi : NAN, 100, 1, "%", 19);
		if (x->ties)
			snprintf(won, sizeof won, "%zu of %zu, %zu tied", x->b_won, r->nseed, x->ties);
		else
			snprintf(won, sizeof won, "%zu of %zu", x->b_won, r->nseed);
		fprintf(out, " %-19s %s\n", won, verdict(x, vary));
	}
	fputs("(B won: the seeds where B's figure is better, lower but for utilization; bsld = "
	      "bounded slowdown,\nthreshold 10 s; each side's figure per seed is that replay's "
	      "average, or its 90th percentile)\n", out);
}

static void per_side_json(struct jw *w, const char *key, const struct cell_row *row)
{
	jw_key(w, key);
	jw_open(w);
	for (int f = 0; f < NFIG; f++)
		jw_f64(w, figures[f].key, figure_of(row, f));
	jw_close(w);
}

static void print_json(FILE *out, const struct report *r)
{
	struct jw w = { .out = out, .first = true };
	const struct cell_row *ra = &r->rows[0];
	const struct replay_settings *side[2] = { r->a, r->b };
	bool vary = varies(r->a, r->b);
	unsigned df = r->nseed - 1 > UINT32_MAX ? UINT32_MAX : (unsigned)(r->nseed - 1);

	jw_open(&w);
	jw_str(&w, "trace", r->o->trace);
	jw_u64(&w, "jobs", ra->jobs);
	jw_u64(&w, "nodes", ra->nodes);
	compare_load_json(&w, ra->load, ra->set.shape.utilization, ra->offered_load);
	compare_deps_json(&w, &ra->deps);
	jw_key(&w, "seeds");
	jw_open_array(&w);
	for (size_t s = 0; s < r->nseed; s++)
		jw_u64(&w, NULL, r->seed[s]);
	jw_close_array(&w);
	for (int k = 0; k < 2; k++) {
		char name[64];

		compare_side_name(side[k], name, sizeof name);
		jw_key(&w, k ? "b" : "a");
		jw_open(&w);
		jw_str(&w, "variant", name);
		jw_bool(&w, "uses_seed", est_uses_seed(&side[k]->est));
		jw_u64(&w, "replays", est_uses_seed(&side[k]->est) ? r->nseed : 1);
		jw_close(&w);
	}
	jw_key(&w, "interval");
	jw_open(&w);
	jw_f64(&w, "confidence", 0.95);
	jw_str(&w, "method", vary ? "Student t across seeds" : "none: nothing varies with the seed");
	jw_u64(&w, "degrees_of_freedom", df);
	jw_f64(&w, "t", vary ? stats_t975(df) : NAN);
	jw_close(&w);
	jw_key(&w, "figures");
	jw_open_array(&w);
	for (int f = 0; f < NFIG; f++) {
		const struct fig_result *x = &r->res[f];

		jw_key(&w, NULL);
		jw_open(&w);
		jw_str(&w, "figure", figures[f].key);
		jw_str(&w, "better", figures[f].higher_better ? "higher" : "lower");
		jw_f64(&w, "a_mean", x->p.mean_a);
		jw_f64(&w, "b_mean", x->p.mean_b);
		jw_f64(&w, "diff", x->p.diff);
		jw_f64(&w, "lo", vary ? x->p.lo : NAN);
		jw_f64(&w, "hi", vary ? x->p.hi : NAN);
		jw_f64(&w, "rel_diff", x->p.rel);
		jw_f64(&w, "rel_lo", vary ? x->p.rel_lo : NAN);
		jw_f64(&w, "rel_hi", vary ? x->p.rel_hi : NAN);
		jw_u64(&w, "a_won", x->a_won);
		jw_u64(&w, "b_won", x->b_won);
		jw_u64(&w, "ties", x->ties);
		jw_str(&w, "significant", verdict(x, vary));
		jw_close(&w);
	}
	jw_close_array(&w);
	jw_key(&w, "per_seed");
	jw_open_array(&w);
	for (size_t s = 0; s < r->nseed; s++) {
		jw_key(&w, NULL);
		jw_open(&w);
		jw_u64(&w, "seed", r->seed[s]);
		per_side_json(&w, "a", &r->rows[s]);
		per_side_json(&w, "b", &r->rows[r->nseed + s]);
		jw_close(&w);
	}
	jw_close_array(&w);
	jw_close(&w);
	putc('\n', out);
}

/* --plot: each side's mean of the metric over the seeds, a bar each, with
 * the 95% interval of that mean across the seeds. */
static int plot_sides(const struct report *r, const char *path, const char *metric, double *v)
{
	double y[2], lo[2], hi[2];
	char na[64], nb[64], title[256], name[96], ylabel[128], series[64];
	const char *cats[2] = { na, nb };
	struct svg_bar_series s = { .name = series, .y = y, .lo = lo, .hi = hi };
	struct svg_axes ax = { .title = title, .xlabel = "variant", .ylabel = ylabel,
	                       .y_from_zero = true };
	FILE *f;
	int rc;

	compare_side_name(r->a, na, sizeof na);
	compare_side_name(r->b, nb, sizeof nb);
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < r->nseed; i++)
			v[i] = cell_metric(&r->rows[(size_t)k * r->nseed + i], metric);
		plot_ci95(v, r->nseed, &y[k], &lo[k], &hi[k]);
	}
	plot_metric_name(metric, name, sizeof name);
	snprintf(ylabel, sizeof ylabel, "%s%s", name, plot_metric_unit(metric));
	snprintf(title, sizeof title, "%s: %s%s%s; mean of %zu seeds, 95%% CI",
	         plot_basename(r->o->trace), name, r->a->policy == r->b->policy ? ", " : "",
	         r->a->policy == r->b->policy ? sched_policy_name(r->a->policy) : "", r->nseed);
	snprintf(series, sizeof series, "mean of %zu seeds", r->nseed);
	if (!(f = fopen(path, "w"))) {
		perror(path);
		return -1;
	}
	rc = svg_bar_chart(f, &ax, cats, 2, &s, 1);
	if (fclose(f) != 0 || rc < 0) {
		fprintf(stderr, "backfilld: %s: write failed\n", path);
		return -1;
	}
	return 0;
}

int compare_seeds_run(const struct trace *tr, const struct replay_opts *o,
                      const struct replay_settings *a, const struct replay_settings *b,
                      const uint64_t *seed, size_t nseed, const struct sweep_opts *so,
                      FILE *out)
{
	struct sides sd = { { a, b }, seed, nseed };
	struct sweep_cells c = { 2 * nseed, side_settings, side_source, &sd };
	struct fig_result res[NFIG];
	struct cell_row *rows;
	double *va = malloc(nseed * sizeof *va), *vb = malloc(nseed * sizeof *vb);
	int rc = -1;

	if (!va || !vb) {
		fprintf(stderr, "backfilld: out of memory\n");
		goto out;
	}
	if (!(rows = sweep_rows(tr, o, &c, so, 0, c.n)))
		goto out;
	compute(rows, nseed, va, vb, res);
	{
		struct report r = { o, a, b, rows, seed, nseed, res };

		if (o->format == REPORT_JSON)
			print_json(out, &r);
		else
			print_text(out, &r);
		rc = so->plot ? plot_sides(&r, so->plot, so->metric, va) : 0;
	}
	sweep_rows_free(rows);
out:
	free(va);
	free(vb);
	return rc;
}
