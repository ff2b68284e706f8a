/* --compare A,B (see compare.h). Every format string is a literal. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"
#include "compare.h"
#include "jsonw.h"
#include "plot.h"
#include "svg.h"

int compare_side_parse(const char *spec, const struct replay_settings *base,
                       struct replay_settings *out, char *err, size_t errlen)
{
	char buf[64], *slash;
	enum sched_policy p;

	*out = *base;
	if (strlen(spec) >= sizeof buf) {
		snprintf(err, errlen, "'%.40s...': too long", spec);
		return -1;
	}
	snprintf(buf, sizeof buf, "%s", spec);
	if ((slash = strchr(buf, '/')) != NULL) {
		*slash = '\0';
		if (sched_policy_parse(buf, &out->policy) < 0) {
			snprintf(err, errlen, "'%s': unknown policy '%s' before '/'", spec, buf);
			return -1;
		}
		return est_parse(slash + 1, &out->est, err, errlen);
	}
	if (sched_policy_parse(buf, &p) == 0) {
		out->policy = p;
		return 0;
	}
	if (est_parse(buf, &out->est, err, errlen) < 0) {
		snprintf(err, errlen, "'%s': neither a policy (fcfs, easy, conservative, creasy) nor an "
		         "estimate model (trace, exact, f=F, xK, model, history)", spec);
		return -1;
	}
	return 0;
}

/* A verdict is also worked out with batches 2 and 5 times as long. Batch
 * means takes the batches for independent samples; batches too short for
 * that give an interval too narrow, and then a verdict can come and go
 * with the batch size (CTC-SP2 on 430 nodes: easy against conservative is
 * significant at the default, not with batches 5 times as long). */
enum { SIZES = 3 };
static const unsigned batch_times[SIZES] = { 1, 2, 5 };

/* The paired difference of one metric over a group of jobs. */
struct paired {
	double a, b, diff;		/* means */
	size_t batch[SIZES];		/* jobs a batch: as asked (or the default), x2, x5 */
	struct stats_bm bm[SIZES];	/* batch means of the per-job differences */
};

struct cgroup {
	char kind[8], label[24];
	uint64_t jobs;
	struct paired resp, bsld;
};

/* The batch means of n differences at each batch size, each as --batch
 * would give it (its first `warmup` batches dropped), so that a verdict
 * shown for a size is the one a comparison with that --batch shows. */
static void batch_sizes(const double *d, size_t n, uint32_t batch, uint32_t warmup,
                        struct paired *p)
{
	size_t b = batch ? batch : (n / 32 > 10 ? n / 32 : 10);

	for (int k = 0; k < SIZES; k++) {
		p->batch[k] = b * batch_times[k];
		stats_batch_means(d, n, p->batch[k], warmup, &p->bm[k]);
	}
}

/* Jobs of a group in arrival order (the pairs are the same jobs; arrival
 * order is the one both replays share). */
static void pair_group(const struct replay_jobs *A, const struct replay_jobs *B,
                       const bool *in, uint32_t batch, uint32_t warmup, double *scratch,
                       struct cgroup *g)
{
	struct paired *p[2] = { &g->resp, &g->bsld };

	for (int m = 0; m < 2; m++) {
		double sa = 0, sb = 0;
		size_t n = 0;

		for (size_t i = 0; i < A->n; i++) {
			const struct replay_job *x = &A->j[i], *y = &B->j[i];
			double va, vb;

			if (!in[i])
				continue;
			if (m == 0) {
				va = (double)(x->start - x->submit + x->run) / BF_SEC;
				vb = (double)(y->start - y->submit + y->run) / BF_SEC;
			} else {
				va = metrics_bounded_slowdown(x->start - x->submit, x->run);
				vb = metrics_bounded_slowdown(y->start - y->submit, y->run);
			}
			sa += va;
			sb += vb;
			scratch[n++] = va - vb;
		}
		g->jobs = n;
		p[m]->a = n ? sa / (double)n : NAN;
		p[m]->b = n ? sb / (double)n : NAN;
		p[m]->diff = n ? (sa - sb) / (double)n : NAN;
		batch_sizes(scratch, n, batch, warmup, p[m]);
	}
}

/* Every group: all, each month, each runtime and size class (by A's
 * jobs: the class of a job is the same in both, its runtime may be cut
 * differently only by the estimate model, and A's is the one named). */
static struct cgroup *all_groups(const struct replay_jobs *A, const struct replay_jobs *B,
                                 int64_t unix_start, const struct bd_opts *bo, size_t *ng)
{
	size_t n = A->n, nmonth = 0, k = 0;
	bf_time first = n ? A->j[0].submit : 0;
	bool *in = calloc(n ? n : 1, sizeof *in);
	double *scratch = malloc((n ? n : 1) * sizeof *scratch);
	struct cgroup *g;

	/* The first job in arrival order is the earliest but for a job
	 * whose preceding job held it back past the others. */
	for (size_t i = 0; i < n; i++)
		first = A->j[i].submit < first ? A->j[i].submit : first;
	for (size_t i = 0; i < n; i++) {
		size_t m = bd_month_of(A->j[i].submit, unix_start, first) + 1;

		nmonth = m > nmonth ? m : nmonth;
	}
	g = calloc(1 + nmonth + BD_RUNTIME_CLASSES + BD_SIZE_CLASSES, sizeof *g);
	if (!in || !scratch || !g) {
		free(in);
		free(scratch);
		free(g);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		in[i] = true;
	snprintf(g[k].kind, sizeof g[k].kind, "all");
	snprintf(g[k].label, sizeof g[k].label, "all");
	pair_group(A, B, in, bo->batch, bo->warmup, scratch, &g[k++]);
	for (size_t m = 0; m < nmonth; m++, k++) {
		for (size_t i = 0; i < n; i++)
			in[i] = bd_month_of(A->j[i].submit, unix_start, first) == m;
		snprintf(g[k].kind, sizeof g[k].kind, "month");
		bd_month_label(m, unix_start, first, g[k].label, sizeof g[k].label);
		pair_group(A, B, in, bo->batch, bo->warmup, scratch, &g[k]);
	}
	for (int c = 0; c < BD_RUNTIME_CLASSES; c++, k++) {
		for (size_t i = 0; i < n; i++)
			in[i] = bd_runtime_class(A->j[i].run) == c;
		snprintf(g[k].kind, sizeof g[k].kind, "runtime");
		snprintf(g[k].label, sizeof g[k].label, "%s", bd_runtime_labels[c]);
		pair_group(A, B, in, bo->batch, bo->warmup, scratch, &g[k]);
	}
	for (int c = 0; c < BD_SIZE_CLASSES; c++, k++) {
		for (size_t i = 0; i < n; i++)
			in[i] = bd_size_class(A->j[i].size) == c;
		snprintf(g[k].kind, sizeof g[k].kind, "size");
		snprintf(g[k].label, sizeof g[k].label, "%s", bd_size_labels[c]);
		pair_group(A, B, in, bo->batch, bo->warmup, scratch, &g[k]);
	}
	free(in);
	free(scratch);
	*ng = k;
	return g;
}

static const char *verdict(const struct stats_bm *bm)
{
	if (bm->batches < 2 || !isfinite(bm->half_width))
		return "n/a";
	if (!stats_bm_significant(bm))
		return "no";
	return bm->mean < 0 ? "A lower" : "B lower";
}

/* Two batch sizes that both give an interval give different verdicts (too
 * few batches for an interval is no verdict, not another one). */
static bool depends_on_batch(const struct paired *p)
{
	const char *seen = NULL;

	for (int k = 0; k < SIZES; k++) {
		const char *v = verdict(&p->bm[k]);

		if (strcmp(v, "n/a") == 0)
			continue;
		if (seen && strcmp(seen, v) != 0)
			return true;
		seen = v;
	}
	return false;
}

void compare_side_name(const struct replay_settings *s, char *buf, size_t len)
{
	char est[32];

	est_name(&s->est, est, sizeof est);
	snprintf(buf, len, "%s/%s", sched_policy_name(s->policy), est);
}

void compare_load_text(FILE *out, double load, double target, double offered)
{
	if (target > 0)
		fprintf(out, "load x%.6g (inter-arrival times / it) for an offered load of %g "
		        "(--utilization): reached %.6f\n", load, target, offered);
	else if (load != 1.0)
		fprintf(out, "load x%g (inter-arrival times / it): offered load %.6f\n", load, offered);
}

void compare_load_json(struct jw *w, double load, double target, double offered)
{
	jw_f64(w, "load", load);
	jw_f64(w, "utilization_target", target > 0 ? target : NAN);
	jw_f64(w, "offered_load", offered);
}

void compare_deps_json(struct jw *w, const struct replay_dep_counts *d)
{
	if (!d->shown)
		return;
	jw_key(w, "dependencies");
	jw_open(w);
	jw_str(w, "mode", replay_deps_name(d->mode));
	jw_u64(w, "with_predecessor", d->with_pred);
	jw_u64(w, "honoured", d->honoured);
	jw_close(w);
}

static void num(FILE *out, double v, int width, int prec)
{
	if (isfinite(v))
		fprintf(out, " %*.*f", width, prec, v);
	else
		fprintf(out, " %*s", width, "-");
}

static void text_paired(FILE *out, const struct paired *p, int prec)
{
	num(out, p->a, 9, prec);
	num(out, p->b, 9, prec);
	num(out, p->diff, 9, prec);
	if (p->bm[0].batches >= 2 && isfinite(p->bm[0].half_width)) {
		char ci[48];

		snprintf(ci, sizeof ci, "[%.*f, %.*f]", prec, p->bm[0].lo, prec, p->bm[0].hi);
		fprintf(out, " %-22s", ci);
	} else {
		fprintf(out, " %-22s", "-");
	}
	fprintf(out, " %-7s%c", verdict(&p->bm[0]), depends_on_batch(p) ? '*' : ' ');
}

/* The groups whose verdict changes with the batch size, each at every
 * size. */
static void text_batch_note(FILE *out, const struct cgroup *g, size_t ng)
{
	bool any = false;

	for (size_t i = 0; i < ng; i++) {
		const struct paired *p[2] = { &g[i].resp, &g[i].bsld };

		for (int m = 0; m < 2; m++) {
			if (g[i].jobs == 0 || !depends_on_batch(p[m]))
				continue;
			if (!any)
				fputs("the verdict depends on the batch size (* above; each size as --batch "
				      "gives it):\n", out);
			any = true;
			fprintf(out, "  %s %s, %s:", g[i].kind, g[i].label, m ? "bsld" : "resp");
			for (int k = 0; k < SIZES; k++)
				fprintf(out, "%s %s at %zu%s (%zu batches)", k ? "," : "",
				        verdict(&p[m]->bm[k]), p[m]->batch[k], k ? "" : " jobs a batch",
				        p[m]->bm[k].batches);
			putc('\n', out);
		}
	}
	if (!any)
		fputs("every verdict is the same with batches 2 and 5 times as long (where they leave "
		      "2 batches or more)\n", out);
}

static void print_text(FILE *out, const struct replay_opts *o, const char *na, const char *nb,
                       const struct replay_result *ra, const struct replay_result *rb,
                       const struct cgroup *g, size_t ng)
{
	fprintf(out, "backfilld compare: %s, %" PRIu64 " jobs, %" PRIu32 " nodes\n", o->trace,
	        ra->m.jobs, ra->nodes);
	compare_load_text(out, ra->shape.load, ra->shape.utilization, ra->offered_load);
	if (ra->deps.shown)
		fprintf(out, "dependencies %s: %" PRIu64 " jobs had a predecessor, %" PRIu64 " honoured%s\n",
		        replay_deps_name(ra->deps.mode), ra->deps.with_pred, ra->deps.honoured,
		        ra->deps.honoured ? " (each side's waits count from the submit times its own "
		        "schedule gave them)" : "");
	fprintf(out, "A = %s: bsld %.3f, wait %.1f s, utilization %.2f %%\n", na, ra->m.avg_bsld,
	        ra->m.avg_wait, ra->m.utilization * 100);
	fprintf(out, "B = %s: bsld %.3f, wait %.1f s, utilization %.2f %%\n", nb, rb->m.avg_bsld,
	        rb->m.avg_wait, rb->m.utilization * 100);
	fprintf(out, "per-job paired differences A - B, 90%% batch-means intervals (jobs in "
	        "arrival order; significant when the interval excludes 0)\n\n");
	fprintf(out, "%-8s %-9s %7s | %9s %9s %9s %-22s %-7s | %9s %9s %9s %-22s %-7s\n", "group",
	        "class", "jobs", "resp A", "resp B", "A-B", "90% CI", "signif", "bsld A", "bsld B",
	        "A-B", "90% CI", "signif");
	for (size_t i = 0; i < ng; i++) {
		if (g[i].jobs == 0)
			continue;
		fprintf(out, "%-8s %-9s %7" PRIu64 " |", g[i].kind, g[i].label, g[i].jobs);
		text_paired(out, &g[i].resp, 0);
		fputs(" |", out);
		text_paired(out, &g[i].bsld, 2);
		putc('\n', out);
	}
	fputs("(resp in seconds; bsld = bounded slowdown, threshold 10 s)\n", out);
	text_batch_note(out, g, ng);
}

static void paired_json(struct jw *w, const char *key, const struct paired *p)
{
	jw_key(w, key);
	jw_open(w);
	jw_f64(w, "a", p->a);
	jw_f64(w, "b", p->b);
	jw_f64(w, "diff", p->diff);
	jw_f64(w, "lo", p->bm[0].lo);
	jw_f64(w, "hi", p->bm[0].hi);
	jw_u64(w, "batches", p->bm[0].batches);
	jw_str(w, "significant", verdict(&p->bm[0]));
	jw_u64(w, "batch_jobs", p->batch[0]);
	jw_key(w, "by_batch_size");
	jw_open_array(w);
	for (int k = 0; k < SIZES; k++) {
		jw_key(w, NULL);
		jw_open(w);
		jw_u64(w, "batch_jobs", p->batch[k]);
		jw_u64(w, "batches", p->bm[k].batches);
		jw_f64(w, "lo", p->bm[k].lo);
		jw_f64(w, "hi", p->bm[k].hi);
		jw_str(w, "significant", verdict(&p->bm[k]));
		jw_close(w);
	}
	jw_close_array(w);
	jw_bool(w, "depends_on_batch_size", depends_on_batch(p));
	jw_close(w);
}

static void print_json(FILE *out, const struct replay_opts *o, const char *na, const char *nb,
                       const struct replay_result *ra, const struct replay_result *rb,
                       const struct cgroup *g, size_t ng)
{
	struct jw w = { .out = out, .first = true };
	const struct replay_result *r[2] = { ra, rb };
	const char *name[2] = { na, nb };

	jw_open(&w);
	jw_str(&w, "trace", o->trace);
	jw_u64(&w, "jobs", ra->m.jobs);
	jw_u64(&w, "nodes", ra->nodes);
	compare_load_json(&w, ra->shape.load, ra->shape.utilization, ra->offered_load);
	compare_deps_json(&w, &ra->deps);
	for (int s = 0; s < 2; s++) {
		jw_key(&w, s ? "b" : "a");
		jw_open(&w);
		jw_str(&w, "variant", name[s]);
		jw_f64(&w, "bounded_slowdown_avg", r[s]->m.avg_bsld);
		jw_f64(&w, "wait_avg_s", r[s]->m.avg_wait);
		jw_f64(&w, "response_avg_s", r[s]->m.avg_response);
		jw_f64(&w, "utilization", r[s]->m.utilization);
		jw_u64(&w, "killed", r[s]->m.killed);
		jw_u64(&w, "backfilled", r[s]->m.backfilled);
		jw_close(&w);
	}
	jw_key(&w, "groups");
	jw_open_array(&w);
	for (size_t i = 0; i < ng; i++) {
		jw_key(&w, NULL);
		jw_open(&w);
		jw_str(&w, "group", g[i].kind);
		jw_str(&w, "class", g[i].label);
		jw_u64(&w, "jobs", g[i].jobs);
		paired_json(&w, "response_s", &g[i].resp);
		paired_json(&w, "bounded_slowdown", &g[i].bsld);
		jw_close(&w);
	}
	jw_close_array(&w);
	jw_close(&w);
	putc('\n', out);
}

/* Monthly bars of the metric (bsld or response: the paired ones); policy:
 * the one both sides have, or NULL. */
static int plot_months(const char *path, const char *metric, const char *trace,
                       const char *policy, const char *na, const char *nb,
                       const struct cgroup *g, size_t ng)
{
	size_t nm = 0;
	const char **cats = malloc(ng * sizeof *cats);
	double *ya = malloc(ng * sizeof *ya), *yb = malloc(ng * sizeof *yb);
	bool resp = strcmp(metric, "response") == 0;
	FILE *f = NULL;
	int rc = -1;

	if (!cats || !ya || !yb)
		goto out;
	for (size_t i = 0; i < ng; i++) {
		const struct paired *p = resp ? &g[i].resp : &g[i].bsld;

		if (strcmp(g[i].kind, "month") != 0)
			continue;
		cats[nm] = g[i].label;
		ya[nm] = p->a;
		yb[nm++] = p->b;
	}
	{
		struct svg_bar_series s[2] = { { .name = na, .y = ya }, { .name = nb, .y = yb } };
		char title[256], name[96];
		struct svg_axes ax = { .title = title, .xlabel = "month of submission",
		                       .ylabel = resp ? "average response time (s)" :
		                                        "average bounded slowdown",
		                       .y_from_zero = true };

		snprintf(title, sizeof title, "%s: %s, by month of submission%s%s",
		         plot_basename(trace), plot_metric_name(resp ? "response" : "bsld", name,
		                                                sizeof name),
		         policy ? ", " : "", policy ? policy : "");

		if (!(f = fopen(path, "w"))) {
			perror(path);
			goto out;
		}
		if (svg_bar_chart(f, &ax, cats, nm, s, 2) < 0) {
			fprintf(stderr, "backfilld: --plot: no month to draw\n");
			goto out;
		}
		rc = 0;
	}
out:
	if (f && fclose(f) != 0 && rc == 0) {
		fprintf(stderr, "backfilld: %s: write failed\n", path);
		rc = -1;
	}
	free(cats);
	free(ya);
	free(yb);
	return rc;
}

int compare_run(const struct trace *tr, const struct replay_opts *o,
                const struct replay_settings *a, const struct replay_settings *b,
                const char *plot, const char *metric, FILE *out)
{
	struct replay_result ra = { 0 }, rb = { 0 };
	struct replay_jobs ja = { 0 }, jb = { 0 };
	struct replay_opts q = *o;
	struct cgroup *g = NULL;
	char na[64], nb[64];
	size_t ng = 0;
	int rc = -1;

	q.jobs_out = NULL;
	compare_side_name(a, na, sizeof na);
	compare_side_name(b, nb, sizeof nb);
	if (replay_cell(tr, &q, a, &ra, &ja) < 0 || replay_cell(tr, &q, b, &rb, &jb) < 0)
		goto out;
	/* Shaping and the input rules do not depend on the policy or the
	 * estimates, so both replays have the same jobs in the same order
	 * (of their own submit times: a job held back by its preceding job
	 * keeps its place, only its effective submit time differs). */
	if (ja.n != jb.n) {
		fprintf(stderr, "backfilld: internal error: the two replays have %zu and %zu jobs\n",
		        ja.n, jb.n);
		goto out;
	}
	if (!(g = all_groups(&ja, &jb, replay_unix_start(tr), &o->bd, &ng))) {
		fprintf(stderr, "backfilld: out of memory\n");
		goto out;
	}
	if (o->format == REPORT_JSON)
		print_json(out, o, na, nb, &ra, &rb, g, ng);
	else
		print_text(out, o, na, nb, &ra, &rb, g, ng);
	rc = plot ? plot_months(plot, metric, o->trace, a->policy == b->policy ?
	                        sched_policy_name(a->policy) : NULL, na, nb, g, ng) : 0;
out:
	free(g);
	free(ja.j);
	free(jb.j);
	replay_result_free(&ra);
	replay_result_free(&rb);
	return rc;
}
