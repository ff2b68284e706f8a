/* Metrics (common/metrics.c) against hand-computed values, and the replay
 * report (daemon/whatif/report.c): JSON keys, order and escaping; the text rules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../tap.h"
#include "metrics.h"
/* The build puts only common/ on the include path. */
#include "../../daemon/whatif/replay.h"

#ifdef TEST_STANDALONE
/* Stand-in for common/sched.c, for building this test on its own. */
const char *sched_policy_name(enum sched_policy p)
{
	switch (p) {
	case SCHED_FCFS:		return "fcfs";
	case SCHED_EASY:		return "easy";
	case SCHED_CONSERVATIVE:	return "conservative";
	}
	return "?";
}
#endif

#define S(x) ((bf_time)((x) * (double)BF_SEC))

static int near(double got, double want)
{
	return fabs(got - want) <= 1e-9 * (fabs(want) > 1.0 ? fabs(want) : 1.0);
}

static void ok_near(double got, double want, const char *what)
{
	if (!ok(near(got, want), "%s", what))
		printf("#   got %.12g, want %.12g\n", got, want);
}

static void test_bsld(void)
{
	ok(metrics_bounded_slowdown(0, S(100)) == 1.0, "bsld: w = 0, r >= 10 s is exactly 1");
	ok(metrics_bounded_slowdown(0, S(3)) == 1.0, "bsld: w = 0, r < 10 s is 1 (floor)");
	ok(metrics_bounded_slowdown(0, 0) == 1.0, "bsld: zero-length job is 1");
	ok(metrics_bounded_slowdown(S(5), S(5)) == 1.0, "bsld: (5 + 5) / 10 = 1");
	ok_near(metrics_bounded_slowdown(S(15), S(5)), 2.0, "bsld: r < 10 s uses 10 s: (15 + 5) / 10");
	ok_near(metrics_bounded_slowdown(S(300), S(100)), 4.0, "bsld: (300 + 100) / 100");
	ok_near(metrics_bounded_slowdown(S(1.5), S(10)), 1.15, "bsld: sub-second wait counts");
	ok(metrics_bounded_slowdown(1, 0) == 1.0, "bsld: 1 us wait on a 0 s job is 1");
}

/* Three jobs on a 4-node machine, times in seconds:
 *   A submit 0,  start 0,   end 100, 2 nodes: w 0,  r 100, resp 100, bsld 1
 *   B submit 10, start 50,  end 55,  1 node:  w 40, r 5,   resp 45,  bsld 45/10 = 4.5
 *   C submit 20, start 100, end 300, 4 nodes: w 80, r 200, resp 280, bsld 280/200 = 1.4
 *     (killed, backfilled)
 * avg wait 40, max 80; avg response 425/3; avg bsld 6.9/3 = 2.3;
 * node-seconds 200 + 5 + 800 = 1005; makespan 300; utilization 1005/1200. */
static void test_three_jobs(void)
{
	struct metrics m;
	struct metrics_summary s;

	metrics_init(&m);
	/* Added out of submit order: first_submit / last_end are min / max. */
	metrics_add(&m, S(20), S(100), S(300), 4, true, true);
	metrics_add(&m, S(0), S(0), S(100), 2, false, false);
	metrics_add(&m, S(10), S(50), S(55), 1, false, false);

	ok_eq(m.first_submit, 0, "first submit is the minimum");
	ok_eq(m.last_end, S(300), "last end is the maximum");
	ok_near(m.node_seconds, 1005.0, "node-seconds");

	metrics_summarize(&m, 4, &s);
	ok_eq(s.jobs, 3, "jobs");
	ok_eq(s.killed, 1, "killed");
	ok_eq(s.backfilled, 1, "backfilled");
	ok_near(s.avg_wait, 40.0, "average wait");
	ok_near(s.max_wait, 80.0, "max wait");
	ok_near(s.avg_response, 425.0 / 3.0, "average response");
	ok_near(s.avg_bsld, 2.3, "average bounded slowdown");
	ok_near(s.makespan, 300.0, "makespan = last end - first submit");
	ok_near(s.utilization, 1005.0 / 1200.0, "utilization = node-s / (nodes * makespan)");
}

static void test_fractional(void)
{
	struct metrics m;
	struct metrics_summary s;

	/* Microsecond times: submit 1.25 s, start 2.5 s, end 4 s on 2 of 2 nodes.
	 * w 1.25, r 1.5, bsld floor 1; span 2.75 s; util 3 / 5.5. */
	metrics_init(&m);
	metrics_add(&m, S(1.25), S(2.5), S(4), 2, false, false);
	metrics_summarize(&m, 2, &s);
	ok_near(s.avg_wait, 1.25, "sub-second wait");
	ok_near(s.avg_response, 2.75, "sub-second response");
	ok(s.avg_bsld == 1.0, "short job's bounded slowdown is 1");
	ok_near(s.makespan, 2.75, "sub-second makespan");
	ok_near(s.utilization, 3.0 / 5.5, "sub-second utilization");
}

static void test_degenerate(void)
{
	struct metrics m;
	struct metrics_summary s;

	metrics_init(&m);
	ok(m.first_submit == BF_NEVER && m.last_end == -BF_NEVER, "empty: span markers");
	memset(&s, 0x55, sizeof s);
	metrics_summarize(&m, 128, &s);
	ok(s.jobs == 0 && s.killed == 0 && s.backfilled == 0, "empty: counts 0");
	ok(s.makespan == 0.0 && s.utilization == 0.0, "empty: makespan and utilization 0");
	ok(s.avg_wait == 0.0 && s.max_wait == 0.0 && s.avg_response == 0.0 && s.avg_bsld == 0.0,
	   "empty: averages 0");

	/* One zero-length job at one instant: makespan 0, utilization 0, not NaN. */
	metrics_add(&m, S(7), S(7), S(7), 3, false, false);
	metrics_summarize(&m, 8, &s);
	ok(s.makespan == 0.0 && s.utilization == 0.0, "zero span: utilization 0");
	ok(s.avg_bsld == 1.0, "zero span: bounded slowdown 1");
	metrics_summarize(&m, 0, &s);
	ok(s.utilization == 0.0, "zero nodes: utilization 0");
}

/* ---- report ------------------------------------------------------------- */

static char *render(const struct replay_result *r, enum report_format f)
{
	FILE *fp = tmpfile();
	char *buf = NULL;
	long len;

	if (!fp)
		return NULL;
	report_print(fp, r, f);
	if (fflush(fp) == 0 && (len = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)len + 1)) != NULL) {
		size_t n = fread(buf, 1, (size_t)len, fp);
		buf[n] = '\0';
	}
	fclose(fp);
	return buf;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

static void fill(struct replay_result *r, const char *trace)
{
	*r = (struct replay_result){ 0 };
	r->trace = trace;
	r->policy = SCHED_CONSERVATIVE;
	r->nodes = 338;
	r->nodes_source = "MaxProcs";
	r->jobs_read = 1000;
	r->skipped[SKIP_NO_SIZE] = 2;
	r->skipped[SKIP_TOO_LARGE] = 3;
	r->reordered = 4;
	r->m = (struct metrics_summary){ .jobs = 995, .killed = 12, .backfilled = 300,
		.makespan = 86400.5, .utilization = 0.75, .avg_wait = 123.25,
		.max_wait = 9000, .avg_response = 4567.125, .avg_bsld = 3.5 };
	r->events = 1990;
	r->checks = 1990;
	r->stats.compressions = 77;
	r->stats.max_queue = 41;
	r->wall_seconds = 0.5;
	r->events_per_second = 3980;
}

static const char *const keys[] = {
	"trace", "policy", "nodes", "nodes_source", "jobs_read", "jobs_simulated",
	"skipped", "total", "no_size", "no_runtime", "bad_submit", "bad_time",
	"too_large", "malformed", "reordered", "killed", "backfilled", "makespan_s",
	"utilization", "wait_avg_s", "wait_max_s", "response_avg_s",
	"bounded_slowdown_avg", "events", "checks", "compressions", "compress_visits",
	"compress_searches", "compress_moves", "max_queue",
	"wall_s", "events_per_s", "trace_nodes", "per_event", "estimates", "seed",
	"estimate_accuracy", "extended_predictions", "broken_by_extensions", "shaping", "load",
	"from_s", "to_s", "before_window", "after_window", "excluded_users", "excluded_jobs",
	"flurry_threshold", "flurry_jobs", "flurry_users", "utilization_target", "offered_load",
};

static void test_json(void)
{
	struct replay_result r;
	char key[64];
	const char *prev = NULL;
	int in_order = 1, once = 1;

	fill(&r, "tr\"ace\\dir\nname\x01\xc3\xa9.swf");
	char *j = render(&r, REPORT_JSON);
	if (!ok(j != NULL, "JSON rendered"))
		return;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		snprintf(key, sizeof key, "\"%s\": ", keys[i]);
		const char *at = strstr(j, key);
		if (count(j, key) != 1) {
			once = 0;
			printf("# key %s appears %d times\n", keys[i], count(j, key));
		}
		if (!at || (prev && at < prev)) {
			in_order = 0;
			printf("# key %s missing or out of order\n", keys[i]);
		}
		prev = at;
	}
	ok(once, "JSON: every key exactly once");
	ok(in_order, "JSON: keys in the documented order");
	ok_eq(count(j, "\": "), (long long)(sizeof keys / sizeof keys[0]), "JSON: no other keys");
	ok(strstr(j, "\"trace\": \"tr\\\"ace\\\\dir\\u000aname\\u0001\xc3\xa9.swf\",\n") != NULL,
	   "JSON: quote, backslash, newline and control escaped; UTF-8 passed through");
	ok(j[0] == '{' && strcmp(j + strlen(j) - 3, "\n}\n") == 0, "JSON: one object, newline at end");
	ok(strstr(j, "{\n  \"trace\": ") == j, "JSON: two-space indentation");
	ok(strstr(j, "\"skipped\": {\n    \"total\": 5,\n    \"no_size\": 2,\n") != NULL,
	   "JSON: skipped nested with total");
	ok(strstr(j, "    \"malformed\": 0\n  },\n  \"reordered\": 4,\n") != NULL,
	   "JSON: nested object closed and followed");
	ok(strstr(j, "\"policy\": \"conservative\",\n") != NULL, "JSON: policy name");
	ok(strstr(j, "\"nodes\": 338,\n") != NULL, "JSON: nodes as integer");
	ok(strstr(j, "\"jobs_simulated\": 995,\n") != NULL, "JSON: jobs_simulated = m.jobs");
	ok(strstr(j, "\"makespan_s\": 86400.500000,\n") != NULL, "JSON: seconds with %%.6f");
	ok(strstr(j, "\"response_avg_s\": 4567.125000,\n") != NULL, "JSON: response");
	ok(strstr(j, "\"compressions\": 77,\n  \"compress_visits\": 0,\n  \"compress_searches\": 0,\n"
	             "  \"compress_moves\": 0,\n  \"max_queue\": 41,\n") != NULL, "JSON: sched stats");
	ok(strstr(j, "\"events_per_s\": 3980.000000,\n") != NULL, "JSON: events per second");
	ok(strstr(j, "\"flurry_users\": 0,\n    \"utilization_target\": null,\n"
	             "    \"offered_load\": 0.000000\n  }\n}") != NULL,
	   "JSON: the shaping's last keys (no target: null), no comma after the last");
	ok(strstr(j, "\"estimates\": \"trace\",\n") != NULL && strstr(j, "\"per_event\": false,\n"),
	   "JSON: the estimate model and the event order");
	ok(strstr(j, "\"excluded_users\": [\n    ]") != NULL, "JSON: an empty list");
	ok(!strstr(j, "\"distribution\"") && !strstr(j, "\"by_month\""),
	   "JSON: no distribution without a breakdown");
	ok_eq(count(j, "{"), count(j, "}"), "JSON: braces balanced");
	free(j);

	/* Not finite: JSON has no infinity. */
	r.events_per_second = INFINITY;
	r.nodes_source = NULL;
	j = render(&r, REPORT_JSON);
	ok(j && strstr(j, "\"events_per_s\": null,\n") && strstr(j, "\"nodes_source\": null,\n"),
	   "JSON: infinity and a missing string as null");
	free(j);
}

static void test_text(void)
{
	struct replay_result r;

	fill(&r, "ctc.swf");
	char *t = render(&r, REPORT_TEXT);
	if (!ok(t != NULL, "text rendered"))
		return;
	ok(strncmp(t, "backfilld replay: ctc.swf\n", 26) == 0, "text: title line");
	ok(strstr(t, "\nrules         size = field 8") != NULL, "text: rules line present");
	ok(strstr(t, "killed at it;") != NULL && strstr(t, "ends, then arrivals in file order") != NULL,
	   "text: kill and same-instant rules stated");
	ok(strstr(t, "\nnodes         338 (from MaxProcs)\n") != NULL, "text: nodes and source");
	ok(strstr(t, "\njobs          1000 read, 995 simulated, 5 skipped\n") != NULL, "text: jobs");
	ok(strstr(t, "no_size 2, no_runtime 0, bad_submit 0, bad_time 0, too_large 3, malformed 0\n")
	   != NULL, "text: each skip reason with its count");
	ok(strstr(t, "\nutilization   75.00 %\n") != NULL, "text: utilization in percent");
	ok(strstr(t, "\nchecks        1990 ") != NULL, "text: checks shown when run");
	free(t);

	r.skipped[SKIP_NO_SIZE] = r.skipped[SKIP_TOO_LARGE] = 0;
	r.checks = 0;
	t = render(&r, REPORT_TEXT);
	ok(t && !strstr(t, "\nskipped ") && !strstr(t, "\nchecks "),
	   "text: no skipped or checks line when there are none");
	free(t);
}

static void test_skip_names(void)
{
	ok(strcmp(replay_skip_name(SKIP_NO_SIZE), "no_size") == 0 &&
	   strcmp(replay_skip_name(SKIP_NO_RUNTIME), "no_runtime") == 0 &&
	   strcmp(replay_skip_name(SKIP_BAD_SUBMIT), "bad_submit") == 0 &&
	   strcmp(replay_skip_name(SKIP_BAD_TIME), "bad_time") == 0 &&
	   strcmp(replay_skip_name(SKIP_TOO_LARGE), "too_large") == 0 &&
	   strcmp(replay_skip_name(SKIP_MALFORMED), "malformed") == 0,
	   "skip reason names");
	ok(strcmp(replay_skip_name(SKIP_NREASONS), "unknown") == 0, "out-of-range skip reason");
}

int main(void)
{
	test_bsld();
	test_three_jobs();
	test_fractional();
	test_degenerate();
	test_skip_names();
	test_json();
	test_text();
	return tap_done();
}
