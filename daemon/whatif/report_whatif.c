/* The what-if parts of a replay's report (see report_whatif.h). Every
 * format string is a literal (-Wformat=2); labels are fixed text. */
#include <inttypes.h>
#include <math.h>
#include "report_whatif.h"

#define LABEL "%-14s"

static bool shaped(const struct replay_result *r)
{
	const struct shaping *sh = &r->shape;

	return (sh->load > 0 && sh->load != 1.0) || sh->utilization > 0 || sh->from.set || sh->to.set ||
	       sh->nexclude || sh->flurry;
}

void report_dist_json(struct jw *w, const char *key, const struct bd_dist *d)
{
	jw_key(w, key);
	jw_open(w);
	jw_f64(w, "avg", d->avg);
	jw_f64(w, "median", d->median);
	jw_f64(w, "p90", d->p90);
	jw_f64(w, "p99", d->p99);
	jw_close(w);
}

static void ci_json(struct jw *w, const char *key, const struct stats_bm *bm)
{
	jw_key(w, key);
	jw_open(w);
	jw_f64(w, "mean", bm->mean);
	jw_f64(w, "half_width", bm->half_width);
	jw_f64(w, "lo", bm->lo);
	jw_f64(w, "hi", bm->hi);
	jw_close(w);
}

void report_group_json(struct jw *w, const struct bd_group *g)
{
	jw_str(w, "class", g->label);
	jw_u64(w, "jobs", g->jobs);
	jw_f64(w, "load", g->load);
	jw_u64(w, "killed", g->killed);
	jw_u64(w, "backfilled", g->backfilled);
	report_dist_json(w, "wait_s", &g->wait);
	report_dist_json(w, "response_s", &g->response);
	report_dist_json(w, "bounded_slowdown", &g->bsld);
}

static void groups_json(struct jw *w, const char *key, const struct bd_group *g, size_t n)
{
	jw_key(w, key);
	jw_open_array(w);
	for (size_t i = 0; i < n; i++) {
		jw_key(w, NULL);
		jw_open(w);
		report_group_json(w, &g[i]);
		jw_close(w);
	}
	jw_close_array(w);
}

static void bound_json(struct jw *w, const char *key, int64_t v)
{
	if (v == INT64_MIN || v == INT64_MAX) {
		jw_key(w, key);
		fputs("null", w->out);
	} else {
		jw_f64(w, key, (double)v);
	}
}

void report_whatif_json(struct jw *w, const struct replay_result *r)
{
	const struct shaping *sh = &r->shape;
	const struct shaping_counts *c = &r->shaped;
	char est[32];

	est_name(&r->est, est, sizeof est);
	jw_u64(w, "trace_nodes", r->trace_nodes);
	jw_bool(w, "per_event", r->per_event);
	jw_str(w, "estimates", est);
	jw_u64(w, "seed", r->seed);
	jw_f64(w, "estimate_accuracy", r->est_accuracy);
	jw_u64(w, "extended_predictions", r->extended);
	jw_u64(w, "broken_by_extensions", r->broken);
	jw_key(w, "shaping");
	jw_open(w);
	jw_f64(w, "load", sh->load);
	bound_json(w, "from_s", c->window_from);
	bound_json(w, "to_s", c->window_to);
	jw_u64(w, "before_window", c->before_window);
	jw_u64(w, "after_window", c->after_window);
	jw_key(w, "excluded_users");
	jw_open_array(w);
	for (size_t i = 0; i < sh->nexclude; i++)
		jw_u64(w, NULL, sh->exclude[i]);
	jw_close_array(w);
	jw_u64(w, "excluded_jobs", c->users_excluded);
	jw_u64(w, "flurry_threshold", sh->flurry);
	jw_u64(w, "flurry_jobs", c->flurry_jobs);
	jw_u64(w, "flurry_users", c->flurry_users);
	jw_f64(w, "utilization_target", sh->utilization > 0 ? sh->utilization : NAN);	/* null */
	jw_f64(w, "offered_load", r->offered_load);
	jw_close(w);
	if (!r->bd)
		return;
	jw_key(w, "distribution");
	jw_open(w);
	report_dist_json(w, "wait_s", &r->bd->all.wait);
	report_dist_json(w, "response_s", &r->bd->all.response);
	report_dist_json(w, "bounded_slowdown", &r->bd->all.bsld);
	jw_close(w);
	jw_key(w, "confidence");
	jw_open(w);
	jw_u64(w, "batch_jobs", r->bd->batch);
	jw_u64(w, "warmup_batches", r->bd->warmup);
	jw_u64(w, "batches", r->bd->ci_bsld.batches);
	ci_json(w, "wait_s", &r->bd->ci_wait);
	ci_json(w, "response_s", &r->bd->ci_response);
	ci_json(w, "bounded_slowdown", &r->bd->ci_bsld);
	jw_close(w);
	groups_json(w, "by_month", r->bd->month, r->bd->nmonth);
	groups_json(w, "by_runtime", r->bd->runtime, BD_RUNTIME_CLASSES);
	groups_json(w, "by_size", r->bd->size, BD_SIZE_CLASSES);
}

/* ---- text ---------------------------------------------------------------- */

static void num(FILE *out, double v, int prec)
{
	if (isfinite(v))
		fprintf(out, "%.*f", prec, v);
	else
		fputs("-", out);
}

void report_dist_text(FILE *out, const struct bd_dist *d, int prec)
{
	fputs("avg ", out);
	num(out, d->avg, prec);
	fputs(", median ", out);
	num(out, d->median, prec);
	fputs(", p90 ", out);
	num(out, d->p90, prec);
	fputs(", p99 ", out);
	num(out, d->p99, prec);
}

void report_ci_text(FILE *out, const struct stats_bm *bm, uint32_t batch, uint32_t warmup,
                    int prec)
{
	if (bm->batches < 2) {
		fprintf(out, "- (%zu batches of %" PRIu32 " jobs after %" PRIu32
		        " warm-up: too few for an interval; see --batch)", bm->batches, batch, warmup);
		return;
	}
	num(out, bm->mean, prec);
	fputs(" +- ", out);
	num(out, bm->half_width, prec);
	fprintf(out, " (90%%, %zu batches of %" PRIu32 " jobs after %" PRIu32 " warm-up)",
	        bm->batches, batch, warmup);
}

static void when_text(FILE *out, int64_t v)
{
	if (v == INT64_MIN || v == INT64_MAX)
		fputs("open", out);
	else
		fprintf(out, "%" PRId64 " s", v);
}

void report_whatif_text(FILE *out, const struct replay_result *r)
{
	const struct shaping *sh = &r->shape;
	const struct shaping_counts *c = &r->shaped;
	char est[32];

	est_name(&r->est, est, sizeof est);
	if (r->trace_nodes && r->trace_nodes != r->nodes)
		fprintf(out, LABEL "%" PRIu32 " nodes replayed against the trace's %" PRIu32 "\n",
		        "machine", r->nodes, r->trace_nodes);
	fprintf(out, LABEL "%s", "estimates", est);
	if (r->est.kind == EST_UNIFORM || r->est.kind == EST_MODEL)
		fprintf(out, " (seed %" PRIu64 ")", r->seed);
	fputs("; mean accuracy r/e ", out);
	num(out, r->est_accuracy, 3);
	if (r->est.kind == EST_HISTORY)
		fprintf(out, "; %" PRIu64 " predictions ran out and were extended to the limit"
		        " (%" PRIu64 " promises moved)", r->extended, r->broken);
	putc('\n', out);
	if (shaped(r)) {
		const char *sep = "";

		fprintf(out, LABEL, "shaping");
		if (sh->utilization > 0) {
			fprintf(out, "load x%.6g (inter-arrival times / %.6g) for an offered load of %g "
			        "(--utilization)", sh->load, sh->load, sh->utilization);
			sep = "; ";
		} else if (sh->load > 0 && sh->load != 1.0) {
			fprintf(out, "load x%g (inter-arrival times / %g)", sh->load, sh->load);
			sep = "; ";
		}
		if (sh->from.set || sh->to.set) {
			fputs(sep, out);
			sep = "; ";
			fputs("window ", out);
			when_text(out, c->window_from);
			fputs(" to ", out);
			when_text(out, c->window_to);
			fprintf(out, " (%" PRIu64 " jobs before, %" PRIu64 " after, left out)",
			        c->before_window, c->after_window);
		}
		if (sh->nexclude) {
			fputs(sep, out);
			sep = "; ";
			fputs("users", out);
			for (size_t i = 0; i < sh->nexclude; i++)
				fprintf(out, " %" PRIu32, sh->exclude[i]);
			fprintf(out, " left out (%" PRIu64 " jobs)", c->users_excluded);
		}
		if (sh->flurry)
			fprintf(out, "%sflurries of %" PRIu32 "+ jobs an hour removed (%" PRIu64
			        " jobs of %" PRIu64 " users)", sep, sh->flurry, c->flurry_jobs, c->flurry_users);
		putc('\n', out);
	}
	fprintf(out, LABEL, "offered load");
	num(out, r->offered_load, 6);
	fputs(" (the jobs' logged node-seconds over the machine's from the first submission "
	      "to the last)\n", out);
	if (!r->bd)
		return;
	fprintf(out, LABEL, "wait (s)");
	report_dist_text(out, &r->bd->all.wait, 1);
	fprintf(out, "\n" LABEL, "response (s)");
	report_dist_text(out, &r->bd->all.response, 1);
	fprintf(out, "\n" LABEL, "bounded sld");
	report_dist_text(out, &r->bd->all.bsld, 3);
	fprintf(out, "\n" LABEL, "bsld 90% CI");
	report_ci_text(out, &r->bd->ci_bsld, r->bd->batch, r->bd->warmup, 3);
	fprintf(out, "\n" LABEL, "wait 90% CI");
	report_ci_text(out, &r->bd->ci_wait, r->bd->batch, r->bd->warmup, 1);
	putc('\n', out);
}

static void table(FILE *out, const char *title, const struct bd_group *g, size_t n)
{
	fprintf(out, "\n%-10s %7s %6s %6s %10s %10s %10s %10s %9s %9s\n", title, "jobs", "load%",
	        "backf", "wait avg", "wait p90", "resp avg", "resp p90", "bsld avg", "bsld p90");
	for (size_t i = 0; i < n; i++) {
		if (g[i].jobs == 0)
			continue;
		fprintf(out, "%-10s %7" PRIu64 " ", g[i].label, g[i].jobs);
		if (isfinite(g[i].load))
			fprintf(out, "%6.2f", g[i].load * 100);
		else
			fprintf(out, "%6s", "-");
		fprintf(out, " %6" PRIu64 " ", g[i].backfilled);
		fprintf(out, "%10.0f %10.0f %10.0f %10.0f %9.2f %9.2f\n", g[i].wait.avg, g[i].wait.p90,
		        g[i].response.avg, g[i].response.p90, g[i].bsld.avg, g[i].bsld.p90);
	}
}

void report_print_tables(FILE *out, const struct replay_result *r)
{
	if (!r->bd)
		return;
	table(out, r->bd->calendar ? "month" : "period", r->bd->month, r->bd->nmonth);
	table(out, "runtime", r->bd->runtime, BD_RUNTIME_CLASSES);
	table(out, "size", r->bd->size, BD_SIZE_CLASSES);
	fputs("(times in seconds; backf = backfilled jobs; load%: a month's own offered load, its\n"
	      " jobs' logged node-seconds over the machine's in the month, the first and last\n"
	      " counted from the first submission to the last; a class's share of the machine\n"
	      " over the replay's span)\n", out);
}
