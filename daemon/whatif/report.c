/* The replay's report: a readable text summary, or one JSON object whose
 * key names and order are a stable interface (documented in backfilld(8)).
 *
 * Every format string here is a literal (-Wformat=2): variable text goes
 * through fputs or an escaping writer, never through a format. */
#include <math.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include "jsonw.h"
#include "replay.h"
#include "report_whatif.h"

const char *replay_skip_name(enum replay_skip why)
{
	/* No default: the compiler flags a reason added without a name. */
	switch (why) {
	case SKIP_NO_SIZE:	return "no_size";
	case SKIP_NO_RUNTIME:	return "no_runtime";
	case SKIP_BAD_SUBMIT:	return "bad_submit";
	case SKIP_BAD_TIME:	return "bad_time";
	case SKIP_TOO_LARGE:	return "too_large";
	case SKIP_MALFORMED:	return "malformed";
	case SKIP_NREASONS:	break;
	}
	return "unknown";
}

const char *replay_dep_ignored_name(enum replay_dep_ignored why)
{
	switch (why) {
	case DEP_NOT_EARLIER:	return "not_earlier";
	case DEP_NOT_REPLAYED:	return "not_replayed";
	case DEP_BAD_THINK:	return "bad_think";
	case DEP_OFF:		return "off";
	case DEP_NREASONS:	break;
	}
	return "unknown";
}

static uint64_t skipped_total(const struct replay_result *r)
{
	uint64_t total = 0;

	for (int i = 0; i < SKIP_NREASONS; i++)
		total += r->skipped[i];
	return total;
}

static uint64_t ignored_total(const struct replay_dep_counts *d)
{
	uint64_t total = 0;

	for (int i = 0; i < DEP_NREASONS; i++)
		total += d->ignored[i];
	return total;
}

/* ---- JSON ---------------------------------------------------------------- */

/* Only when shown (replay.h), so that a report of a trace without
 * workflows is what it was before they were read. */
static void deps_json(struct jw *w, const struct replay_dep_counts *d)
{
	jw_key(w, "dependencies");
	jw_open(w);
	jw_str(w, "mode", replay_deps_name(d->mode));
	jw_u64(w, "with_predecessor", d->with_pred);
	jw_u64(w, "honoured", d->honoured);
	jw_key(w, "ignored");
	jw_open(w);
	for (int i = 0; i < DEP_NREASONS; i++)
		jw_u64(w, replay_dep_ignored_name((enum replay_dep_ignored)i), d->ignored[i]);
	jw_close(w);
	jw_u64(w, "delayed", d->delayed);
	jw_f64(w, "delay_avg_s", d->delay_avg);
	jw_close(w);
}

static void report_json(FILE *out, const struct replay_result *r)
{
	struct jw w = { .out = out, .depth = 0, .first = true };

	jw_open(&w);
	jw_str(&w, "trace", r->trace);
	jw_str(&w, "policy", sched_policy_name(r->policy));
	if (r->policy == SCHED_CREASY)
		jw_f64(&w, "alpha", r->alpha);
	jw_u64(&w, "nodes", r->nodes);
	jw_str(&w, "nodes_source", r->nodes_source);
	jw_u64(&w, "jobs_read", r->jobs_read);
	jw_u64(&w, "jobs_simulated", r->m.jobs);
	jw_key(&w, "skipped");
	jw_open(&w);
	jw_u64(&w, "total", skipped_total(r));
	for (int i = 0; i < SKIP_NREASONS; i++)
		jw_u64(&w, replay_skip_name((enum replay_skip)i), r->skipped[i]);
	jw_close(&w);
	jw_u64(&w, "reordered", r->reordered);
	if (r->deps.shown)
		deps_json(&w, &r->deps);
	jw_u64(&w, "killed", r->m.killed);
	jw_u64(&w, "backfilled", r->m.backfilled);
	jw_f64(&w, "makespan_s", r->m.makespan);
	jw_f64(&w, "utilization", r->m.utilization);
	jw_f64(&w, "wait_avg_s", r->m.avg_wait);
	jw_f64(&w, "wait_max_s", r->m.max_wait);
	jw_f64(&w, "response_avg_s", r->m.avg_response);
	jw_f64(&w, "bounded_slowdown_avg", r->m.avg_bsld);
	jw_u64(&w, "events", r->events);
	jw_u64(&w, "checks", r->checks);
	jw_u64(&w, "compressions", r->stats.compressions);
	jw_u64(&w, "compress_visits", r->stats.compress_visits);
	jw_u64(&w, "compress_searches", r->stats.compress_searches);
	jw_u64(&w, "compress_moves", r->stats.reanchors);
	jw_u64(&w, "max_queue", r->stats.max_queue);
	jw_f64(&w, "wall_s", r->wall_seconds);
	jw_f64(&w, "events_per_s", r->events_per_second);
	report_whatif_json(&w, r);
	jw_close(&w);
	putc('\n', out);
}

/* ---- text ---------------------------------------------------------------- */

/* Free text for a terminal: control characters shown as \xHH so a strange
 * file name cannot break the layout. NULL shows as "?". */
static void text_string(FILE *out, const char *s)
{
	if (!s) {
		putc('?', out);
		return;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\x%02x", (unsigned)*p);
		else
			putc(*p, out);
	}
}

/* Labels are padded to one column so the values line up. */
#define LABEL "%-14s"

/* "N jobs had a predecessor (M of them ignored: why n, ...)", and how
 * much later the honoured ones came. Only when shown (replay.h). */
static void deps_text(FILE *out, const struct replay_dep_counts *d)
{
	uint64_t ignored = ignored_total(d);
	const char *sep = "";

	fprintf(out, LABEL "%s (fields 17 and 18 %s): %" PRIu64 " job%s had a predecessor",
	        "dependencies", replay_deps_name(d->mode),
	        d->mode == DEPS_TRACE ? "honoured" : "not honoured", d->with_pred,
	        d->with_pred == 1 ? "" : "s");
	if (d->with_pred)
		fprintf(out, " (%" PRIu64 " of them ignored%s", ignored, ignored ? ": " : "");
	for (int i = 0; i < DEP_NREASONS; i++) {
		if (!d->ignored[i])
			continue;
		fprintf(out, "%s%s %" PRIu64, sep, replay_dep_ignored_name((enum replay_dep_ignored)i),
		        d->ignored[i]);
		sep = ", ";
	}
	fputs(d->with_pred ? ")\n" : "\n", out);
	if (d->mode != DEPS_TRACE)
		return;
	fprintf(out, LABEL "%" PRIu64 " submitted after their own submit time, %.1f s later on"
	        " average; waits count from then\n", "", d->delayed, d->delay_avg);
}

static void report_text(FILE *out, const struct replay_result *r)
{
	const struct metrics_summary *m = &r->m;
	uint64_t skipped = skipped_total(r);

	fputs("backfilld replay: ", out);
	if (r->trace && r->trace[0] == '-' && r->trace[1] == '\0')
		fputs("(standard input)", out);
	else
		text_string(out, r->trace);
	putc('\n', out);

	fprintf(out, LABEL, "policy");
	text_string(out, sched_policy_name(r->policy));
	if (r->policy == SCHED_CREASY)
		fprintf(out, " (alpha %g)", r->alpha);
	fprintf(out, "\n" LABEL "%" PRIu32 " (from ", "nodes", r->nodes);
	text_string(out, r->nodes_source);
	fputs(")\n", out);
	fprintf(out, LABEL "%" PRIu64 " read, %" PRIu64 " simulated, %" PRIu64 " skipped\n",
	        "jobs", r->jobs_read, m->jobs, skipped);
	if (skipped > 0) {
		fprintf(out, LABEL, "skipped");
		for (int i = 0; i < SKIP_NREASONS; i++)
			fprintf(out, "%s%s %" PRIu64, i ? ", " : "",
			        replay_skip_name((enum replay_skip)i), r->skipped[i]);
		putc('\n', out);
	}
	if (r->reordered > 0)
		fprintf(out, LABEL "%" PRIu64 " lines before an earlier submit time"
		        " (stably sorted by submit)\n", "reordered", r->reordered);
	if (r->deps.shown)
		deps_text(out, &r->deps);
	fprintf(out, LABEL "%" PRIu64 " (ran past their estimate; cut at it)\n",
	        "killed", m->killed);
	fprintf(out, LABEL "%" PRIu64 " (started while an earlier arrival still waited)\n",
	        "backfilled", m->backfilled);
	fprintf(out, LABEL "%.0f s (%.2f days)\n", "makespan", m->makespan, m->makespan / 86400.0);
	fprintf(out, LABEL "%.2f %%\n", "utilization", m->utilization * 100.0);
	fprintf(out, LABEL "avg %.1f s, max %.0f s\n", "wait", m->avg_wait, m->max_wait);
	fprintf(out, LABEL "avg %.1f s\n", "response", m->avg_response);
	fprintf(out, LABEL "avg %.3f (threshold %d s)\n", "bounded sld", m->avg_bsld,
	        (int)(METRICS_BSLD_THRESHOLD / BF_SEC));
	fprintf(out, LABEL "max %" PRIu64 " jobs waiting", "queue", r->stats.max_queue);
	if (r->policy == SCHED_CONSERVATIVE)
		fprintf(out, "; %" PRIu64 " compressions (jobs looked at %" PRIu64 ", searched %"
		        PRIu64 ", moved %" PRIu64 ")", r->stats.compressions,
		        r->stats.compress_visits, r->stats.compress_searches, r->stats.reanchors);
	putc('\n', out);
	fprintf(out, LABEL "%" PRIu64 " (%.0f per second), replay took %.3f s\n",
	        "events", r->events, r->events_per_second, r->wall_seconds);
	if (r->checks > 0)
		fprintf(out, LABEL "%" PRIu64 " (invariants checked after every event)\n",
		        "checks", r->checks);
	report_whatif_text(out, r);
	/* The input rules, so a report says how the trace was read. */
	fprintf(out, LABEL "%s\n", "rules",
	        "size = field 8 if > 0, else field 5; runtime = field 4;");
	fprintf(out, LABEL "%s\n", "",
	        "estimate = field 9 if > 0, else the runtime (or the model's: estimates above);");
	fprintf(out, LABEL "%s\n", "",
	        r->per_event ?
	        "same-instant events (--per-event, as pyss): nodes of jobs at their limit back first," :
	        "same-instant events: ends, then arrivals in file order, then one pass;");
	if (r->per_event)
		fprintf(out, LABEL "%s\n", "",
		        "then arrivals in file order, then ends in start order, a pass after each;");
	fprintf(out, LABEL "%s\n", "", "a job past its estimate is killed at it; queue in arrival order;");
	fprintf(out, LABEL "%s\n", "",
	        "skipped: no size, runtime < 0, submit < 0, a time over 100 years, too many nodes;");
	fprintf(out, LABEL "%s\n", "",
	        r->deps.shown ? "a trace not sorted by submit time is stably sorted by it;" :
	        "a trace not sorted by submit time is stably sorted by it");
	if (!r->deps.shown)
		return;
	fprintf(out, LABEL "%s\n", "",
	        "with dependencies, a job whose field 17 names an earlier, replayed job arrives");
	fprintf(out, LABEL "%s\n", "",
	        "at max(its submit time, that job's end + field 18), the others at their own");
}

void report_print(FILE *out, const struct replay_result *r, enum report_format f)
{
	if (f == REPORT_JSON)
		report_json(out, r);
	else
		report_text(out, r);
}
