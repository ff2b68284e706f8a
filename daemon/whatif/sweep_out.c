/* A sweep's results (see sweep_out.h). Every format string is a literal. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jsonw.h"
#include "plot.h"
#include "report_whatif.h"
#include "svg.h"
#include "sweep_out.h"

/* A CSV field: quoted, with quotes doubled, when it has a comma, a quote
 * or a line break. */
static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	putc('"', out);
}

static void csv_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, ",%.6g", v);
	else
		fputs(",", out);
}

static const char *const csv_header =
	"cell,trace,policy,estimates,seed,load,nodes,per_event,from_s,to_s,excluded_users,"
	"flurry,jobs,killed,backfilled,utilization,estimate_accuracy,"
	"wait_avg_s,wait_median_s,wait_p90_s,wait_p99_s,"
	"response_avg_s,response_median_s,response_p90_s,response_p99_s,"
	"bsld_avg,bsld_median,bsld_p90,bsld_p99,bsld_ci90_half,wait_ci90_half,wall_s";

/* Appended to the header and to every row when the trace names a
 * preceding job or --dependencies was given (replay.h); otherwise the
 * columns are what they were before workflows were read. */
static const char *const csv_deps_header = ",dependencies,with_predecessor,honoured,delayed";

/* Appended last when the loads are offered loads to reach (--utilization):
 * the target and the offered load reached; the load column is then the
 * factor each cell's jobs needed. */
static const char *const csv_target_header = ",utilization_target,offered_load";

static void when_csv(FILE *out, const struct shape_when *w)
{
	if (w->set)
		fprintf(out, ",%s%" PRId64, w->absolute ? "@" : "", w->sec);
	else
		fputs(",", out);
}

static void csv_row(FILE *out, const char *trace, size_t k, const struct cell_row *r)
{
	const struct replay_settings *s = &r->set;
	char est[32];

	est_name(&s->est, est, sizeof est);
	fprintf(out, "%zu,", k);
	csv_field(out, trace);
	fprintf(out, ",%s,%s,%" PRIu64 ",%.9g,%" PRIu32 ",%d", sched_policy_name(s->policy), est,
	        s->seed, r->load, r->nodes, s->per_event);
	when_csv(out, &s->shape.from);
	when_csv(out, &s->shape.to);
	putc(',', out);
	for (size_t i = 0; i < s->shape.nexclude; i++)
		fprintf(out, "%s%" PRIu32, i ? " " : "", s->shape.exclude[i]);
	fprintf(out, ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, s->shape.flurry, r->jobs,
	        r->killed, r->backfilled);
	csv_num(out, r->utilization);
	csv_num(out, r->est_accuracy);
	const struct bd_dist *d[] = { &r->wait, &r->response, &r->bsld };
	for (int i = 0; i < 3; i++) {
		csv_num(out, d[i]->avg);
		csv_num(out, d[i]->median);
		csv_num(out, d[i]->p90);
		csv_num(out, d[i]->p99);
	}
	csv_num(out, r->ci_bsld.half_width);
	csv_num(out, r->ci_wait.half_width);
	csv_num(out, r->wall_s);
	if (r->deps.shown)
		fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64, replay_deps_name(r->deps.mode),
		        r->deps.with_pred, r->deps.honoured, r->deps.delayed);
	if (s->shape.utilization > 0) {
		csv_num(out, s->shape.utilization);
		fprintf(out, ",%.9g", r->offered_load);
	}
	putc('\n', out);
}

/* ---- summary over seeds ----------------------------------------------------- */

struct summary {
	size_t first;		/* the row of its first seed */
	size_t seeds;
	size_t replays;		/* of its seeds' cells, those replayed (1 when its
				 * estimate model does not use the seed) */
	double mean[4], sd[4], lo[4], hi[4];	/* bsld, wait, response, utilization % */
};
static const char *const sum_metric[4] = { "bsld", "wait", "response", "utilization" };

/* One summary per cell of the grid without its seed dimension; rows hold
 * every cell (a whole sweep). */
static struct summary *summarize(const struct grid *g, const struct cell_row *rows, size_t n,
                                 size_t *nsum)
{
	size_t m = n / g->nseed;
	struct summary *su = calloc(m ? m : 1, sizeof *su);
	double *v = malloc(g->nseed * sizeof *v);

	if (!su || !v) {
		free(su);
		free(v);
		return NULL;
	}
	for (size_t i = 0; i < m; i++) {
		su[i].first = i * g->nseed;
		su[i].seeds = g->nseed;
		for (size_t k = 0; k < g->nseed; k++)
			su[i].replays += rows[i * g->nseed + k].replayed;
		for (int q = 0; q < 4; q++) {
			su[i].lo[q] = INFINITY;
			su[i].hi[q] = -INFINITY;
			for (size_t s = 0; s < g->nseed; s++) {
				v[s] = cell_metric(&rows[i * g->nseed + s], sum_metric[q]);
				su[i].lo[q] = fmin(su[i].lo[q], v[s]);
				su[i].hi[q] = fmax(su[i].hi[q], v[s]);
			}
			stats_mean_sd(v, g->nseed, &su[i].mean[q], &su[i].sd[q]);
		}
	}
	free(v);
	*nsum = m;
	return su;
}

static void print_csv(FILE *out, const struct replay_opts *o, const struct cell_row *rows,
                      size_t first, size_t count)
{
	fputs(csv_header, out);
	if (count && rows[0].deps.shown)
		fputs(csv_deps_header, out);
	if (count && rows[0].set.shape.utilization > 0)
		fputs(csv_target_header, out);
	putc('\n', out);
	for (size_t i = 0; i < count; i++)
		csv_row(out, o->trace, first + i, &rows[i]);
}

/* A window bound as given: null, or seconds "since" the trace's start or
 * the epoch (a date). */
static void when_json(struct jw *w, const char *key, const struct shape_when *wh)
{
	jw_key(w, key);
	if (!wh->set) {
		fputs("null", w->out);
		return;
	}
	jw_open(w);
	jw_str(w, "since", wh->absolute ? "epoch" : "trace start");
	jw_f64(w, "s", (double)wh->sec);
	jw_close(w);
}

static void settings_json(struct jw *w, const struct cell_row *r)
{
	char est[32];

	est_name(&r->set.est, est, sizeof est);
	jw_str(w, "policy", sched_policy_name(r->set.policy));
	if (r->set.policy == SCHED_CREASY)
		jw_f64(w, "alpha", r->set.alpha);
	jw_str(w, "estimates", est);
	jw_f64(w, "load", r->load);
	if (r->set.shape.utilization > 0)
		jw_f64(w, "utilization_target", r->set.shape.utilization);
	jw_u64(w, "nodes", r->nodes);
	jw_bool(w, "per_event", r->set.per_event);
	when_json(w, "from", &r->set.shape.from);
	when_json(w, "to", &r->set.shape.to);
	jw_key(w, "excluded_users");
	jw_open_array(w);
	for (size_t i = 0; i < r->set.shape.nexclude; i++)
		jw_u64(w, NULL, r->set.shape.exclude[i]);
	jw_close_array(w);
	jw_u64(w, "flurry", r->set.shape.flurry);
	if (r->deps.shown)
		jw_str(w, "dependencies", replay_deps_name(r->deps.mode));
}

static void print_json(FILE *out, const struct replay_opts *o, const struct grid *g,
                       const struct cell_row *rows, size_t first, size_t count,
                       const struct summary *su, size_t nsum)
{
	struct jw w = { .out = out, .first = true };

	jw_open(&w);
	jw_str(&w, "trace", o->trace);
	jw_u64(&w, "cells_in_grid", grid_cells(g));
	jw_key(&w, "cells");
	jw_open_array(&w);
	for (size_t i = 0; i < count; i++) {
		const struct cell_row *r = &rows[i];

		jw_key(&w, NULL);
		jw_open(&w);
		jw_u64(&w, "cell", first + i);
		settings_json(&w, r);
		jw_u64(&w, "seed", r->set.seed);
		jw_u64(&w, "jobs", r->jobs);
		jw_u64(&w, "skipped", r->skipped);
		if (r->deps.shown) {
			jw_u64(&w, "with_predecessor", r->deps.with_pred);
			jw_u64(&w, "honoured", r->deps.honoured);
			jw_u64(&w, "delayed", r->deps.delayed);
		}
		jw_u64(&w, "killed", r->killed);
		jw_u64(&w, "backfilled", r->backfilled);
		jw_f64(&w, "offered_load", r->offered_load);
		jw_f64(&w, "utilization", r->utilization);
		jw_f64(&w, "estimate_accuracy", r->est_accuracy);
		report_dist_json(&w, "wait_s", &r->wait);
		report_dist_json(&w, "response_s", &r->response);
		report_dist_json(&w, "bounded_slowdown", &r->bsld);
		jw_f64(&w, "bsld_ci90_half", r->ci_bsld.half_width);
		jw_f64(&w, "wall_s", r->wall_s);
		jw_bool(&w, "replayed", r->replayed);
		jw_u64(&w, "same_as_cell", r->same_as);
		jw_close(&w);
	}
	jw_close_array(&w);
	jw_key(&w, "summary");
	jw_open_array(&w);
	for (size_t i = 0; i < nsum; i++) {
		jw_key(&w, NULL);
		jw_open(&w);
		settings_json(&w, &rows[su[i].first]);
		jw_u64(&w, "seeds", su[i].seeds);
		jw_u64(&w, "replays", su[i].replays);
		for (int q = 0; q < 4; q++) {
			jw_key(&w, sum_metric[q]);
			jw_open(&w);
			jw_f64(&w, "mean", su[i].mean[q]);
			jw_f64(&w, "sd", su[i].sd[q]);
			jw_f64(&w, "min", su[i].lo[q]);
			jw_f64(&w, "max", su[i].hi[q]);
			jw_close(&w);
		}
		jw_close(&w);
	}
	jw_close_array(&w);
	jw_close(&w);
	putc('\n', out);
}

/* "trace, x2": the grid's estimate models that do not use the seed. */
static void seedless_models(const struct grid *g, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < g->nest && at < len; i++) {
		char est[32];

		if (est_uses_seed(&g->est[i]))
			continue;
		est_name(&g->est[i], est, sizeof est);
		at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", est);
	}
}

/* A line per setting: jobs and skipped (the same for every seed), the
 * bounded slowdown, response time, wait and utilization; with several
 * seeds their means, and the bounded slowdown's spread. */
static void print_text(FILE *out, const struct replay_opts *o, const struct grid *g,
                       const struct cell_row *rows, const struct summary *su, size_t nsum)
{
	double wall = 0;
	size_t replays = 0;
	bool spread = g->nseed > 1;

	for (size_t i = 0; i < nsum * g->nseed; i++) {
		wall += rows[i].wall_s;
		replays += rows[i].replayed;
	}
	fprintf(out, "backfilld sweep: %s, %zu cells (%zu seed%s each), %zu replayed; the replays "
	        "took %.2f s in all\n", o->trace, nsum * g->nseed, g->nseed,
	        g->nseed == 1 ? "" : "s", replays, wall);
	if (replays < nsum * g->nseed) {
		char names[512];

		seedless_models(g, names, sizeof names);
		fprintf(out, "estimates %s: not drawn with the seed, so each setting with them was "
		        "replayed once, not once per seed (the same figures for every seed)\n", names);
	}
	if (nsum && rows[0].deps.shown)
		fprintf(out, "dependencies %s (SWF fields 17 and 18 %s in every cell)\n",
		        replay_deps_name(rows[0].deps.mode), rows[0].deps.mode == DEPS_TRACE ?
		        "honoured, waits counted from the effective submit times," : "not honoured");
	fprintf(out, "%-13s %-10s ", "policy", "estimates");
	if (g->load_target)
		fprintf(out, "%8s %8s", "offered", "factor");
	else
		fprintf(out, "%6s", "load");
	fprintf(out, " %7s %7s %7s  ", "nodes", "jobs", "skipped");
	fprintf(out, spread ? "%-35s" : "%9s", spread ? "bsld avg (sd, min-max)" : "bsld avg");
	fprintf(out, " %11s %11s %7s\n", "resp avg s", "wait avg s", "util %");
	for (size_t i = 0; i < nsum; i++) {
		const struct cell_row *r = &rows[su[i].first];
		char est[32], bsld[64];

		est_name(&r->set.est, est, sizeof est);
		if (!isfinite(su[i].mean[0]))
			snprintf(bsld, sizeof bsld, "- (no job)");
		else if (!spread)
			snprintf(bsld, sizeof bsld, "%.3f", su[i].mean[0]);
		else if (su[i].replays == 1)
			snprintf(bsld, sizeof bsld, "%.3f (the same for every seed)", su[i].mean[0]);
		else
			snprintf(bsld, sizeof bsld, "%.3f (%.3f, %.3f-%.3f)", su[i].mean[0],
			         isfinite(su[i].sd[0]) ? su[i].sd[0] : 0.0, su[i].lo[0], su[i].hi[0]);
		fprintf(out, "%-13s %-10s ", sched_policy_name(r->set.policy), est);
		if (g->load_target)
			fprintf(out, "%8.6f %8.4f", r->offered_load, r->load);
		else
			fprintf(out, "%6g", r->set.shape.load);
		fprintf(out, " %7" PRIu32 " %7" PRIu64 " %7" PRIu64 "  ", r->nodes, r->jobs, r->skipped);
		fprintf(out, spread ? "%-35s" : "%9s", bsld);
		fprintf(out, " %11.0f %11.0f %7.2f\n",
		        isfinite(su[i].mean[2]) ? su[i].mean[2] : 0.0,
		        isfinite(su[i].mean[1]) ? su[i].mean[1] : 0.0, su[i].mean[3]);
	}
	if (spread)
		fputs("(each figure the mean over the seeds; for bsld also their sample standard "
		      "deviation, smallest and largest)\n", out);
	if (g->load_target)
		fputs("(offered: the offered load reached for --utilization, the jobs' logged "
		      "node-seconds over the\n machine's from the first submission to the last; "
		      "factor: the --load factor that took)\n", out);
}

/* ---- plot ----------------------------------------------------------------- */

/* The x dimension: estimates when every model has a parameter of the same
 * kind (f=F, xK), else load, else nodes. */
static int x_dim(const struct grid *g, const char **label, bool *logx)
{
	bool same = g->nest > 1;

	for (size_t i = 1; same && i < g->nest; i++)
		same = g->est[i].kind == g->est[0].kind;
	if (same && (g->est[0].kind == EST_UNIFORM || g->est[0].kind == EST_SCALED)) {
		*label = g->est[0].kind == EST_UNIFORM ? "estimate factor F (e uniform in [r, F r])" :
		         "estimate multiplier K (e = K x the trace's)";
		*logx = true;
		return 'e';
	}
	if (g->nload > 1) {
		*label = g->load_target ? "offered load (--utilization)" :
		         "load factor (inter-arrival times divided by it)";
		*logx = false;
		return 'l';
	}
	if (g->nnodes > 1) {
		*label = "machine size (nodes)";
		*logx = false;
		return 'n';
	}
	return 0;
}

/* The title: the trace, the metric in full, the policy when there is one,
 * and what a point is when there are seeds. */
static void plot_title(char *buf, size_t len, const struct replay_opts *o, const struct grid *g,
                       const char *metric)
{
	char name[96];
	int at = snprintf(buf, len, "%s: %s", plot_basename(o->trace),
	                  plot_metric_name(metric, name, sizeof name));

	if (g->npolicy == 1 && at > 0 && (size_t)at < len)
		at += snprintf(buf + at, len - (size_t)at, ", %s", sched_policy_name(g->policy[0]));
	if (g->nseed > 1 && at > 0 && (size_t)at < len)
		snprintf(buf + at, len - (size_t)at, "; mean of %zu seeds, 95%% CI", g->nseed);
}

/* The series' arrays: x, y and the error bars' ends, nx each per series. */
struct plot_data {
	double *x, *y, *lo, *hi, *v;
};

static int plot(const struct replay_opts *o, const struct sweep_plot *so, const struct grid *g,
                const struct cell_row *rows, const struct summary *su, size_t nsum)
{
	const char *xlabel;
	bool logx;
	int dim = x_dim(g, &xlabel, &logx);
	size_t nx = dim == 'e' ? g->nest : dim == 'l' ? g->nload : g->nnodes;
	size_t nser = nsum / (nx ? nx : 1);
	struct svg_series *ser = calloc(nser ? nser : 1, sizeof *ser);
	struct plot_data d = { malloc(nsum * sizeof *d.x), malloc(nsum * sizeof *d.y),
	                       malloc(nsum * sizeof *d.lo), malloc(nsum * sizeof *d.hi),
	                       malloc(g->nseed * sizeof *d.v) };
	char (*names)[96] = calloc(nser ? nser : 1, sizeof *names);
	FILE *f = NULL;
	int rc = -1;

	if (!dim) {
		fprintf(stderr, "backfilld: --plot: nothing is swept to plot against (give several "
		        "f=F or xK estimates, loads or machine sizes)\n");
		goto out;
	}
	if (!ser || !d.x || !d.y || !d.lo || !d.hi || !d.v || !names)
		goto out;
	/* Series: every combination of the other dimensions, in grid order. */
	for (size_t i = 0; i < nsum; i++) {
		struct grid_at a = grid_decode(g, su[i].first);
		size_t xi = dim == 'e' ? a.est : dim == 'l' ? a.load : a.nodes;
		size_t si = 0, mul = 1, at;
		const struct cell_row *r = &rows[su[i].first];

		/* The series index: the other dimensions' indices, mixed radix. */
		if (dim != 'n') si += a.nodes * mul, mul *= g->nnodes;
		if (dim != 'l') si += a.load * mul, mul *= g->nload;
		if (dim != 'e') si += a.est * mul, mul *= g->nest;
		si += a.policy * mul;
		at = si * nx + xi;
		if (xi == 0) {
			char est[32];
			int len;

			est_name(&r->set.est, est, sizeof est);
			len = snprintf(names[si], sizeof names[si], "%s", sched_policy_name(r->set.policy));
			if (dim != 'e' && g->nest > 1)
				len += snprintf(names[si] + len, sizeof names[si] - (size_t)len, ", %s", est);
			if (dim != 'l' && g->nload > 1)
				len += snprintf(names[si] + len, sizeof names[si] - (size_t)len,
				                g->load_target ? ", offered load %g" : ", load %g",
				                g->load[a.load]);
			if (dim != 'n' && g->nnodes > 1)
				snprintf(names[si] + len, sizeof names[si] - (size_t)len, ", %u nodes",
				         r->nodes);
			ser[si] = (struct svg_series){ .name = names[si], .x = d.x + si * nx,
			                               .y = d.y + si * nx, .lo = d.lo + si * nx,
			                               .hi = d.hi + si * nx, .n = nx };
		}
		d.x[at] = dim == 'e' ? r->set.est.param : dim == 'l' ? g->load[a.load] :
		          (double)r->nodes;
		/* Each point the mean over its seeds, its bar their 95% interval. */
		for (size_t k = 0; k < g->nseed; k++)
			d.v[k] = cell_metric(&rows[su[i].first + k], so->metric);
		plot_ci95(d.v, g->nseed, &d.y[at], &d.lo[at], &d.hi[at]);
	}
	{
		char ylabel[128], title[256], name[96];
		struct svg_axes ax = { .title = title, .xlabel = xlabel, .ylabel = ylabel, .logx = logx };

		snprintf(ylabel, sizeof ylabel, "%s%s", plot_metric_name(so->metric, name, sizeof name),
		         plot_metric_unit(so->metric));
		plot_title(title, sizeof title, o, g, so->metric);
		if (!(f = fopen(so->plot, "w"))) {
			perror(so->plot);
			goto out;
		}
		if (svg_line_chart(f, &ax, ser, nser) < 0) {
			fprintf(stderr, "backfilld: --plot: nothing to draw\n");
			goto out;
		}
		rc = 0;
	}
out:
	if (f && (fclose(f) != 0) && rc == 0) {
		fprintf(stderr, "backfilld: %s: write failed\n", so->plot);
		rc = -1;
	}
	free(ser);
	free(d.x);
	free(d.y);
	free(d.lo);
	free(d.hi);
	free(d.v);
	free(names);
	return rc;
}

int sweep_print(FILE *out, const struct replay_opts *o, const struct grid *g,
                const struct sweep_plot *so, const struct cell_row *rows, size_t first,
                size_t count)
{
	size_t nsum = 0;
	struct summary *su = NULL;
	int rc = 0;

	/* A single cell (--cell) has no summary over seeds. */
	if (count == grid_cells(g) && !(su = summarize(g, rows, count, &nsum))) {
		fprintf(stderr, "backfilld: out of memory\n");
		return -1;
	}
	if (o->format == REPORT_CSV)
		print_csv(out, o, rows, first, count);
	else if (o->format == REPORT_JSON)
		print_json(out, o, g, rows, first, count, su, nsum);
	else if (su)
		print_text(out, o, g, rows, su, nsum);
	else
		print_csv(out, o, rows, first, count);
	if (so->plot && su)
		rc = plot(o, so, g, rows, su, nsum);
	free(su);
	return rc;
}
