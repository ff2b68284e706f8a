/* The command lines of workload characterization and site-level
 * simulation (backfilld(8), SITE SIMULATION):
 *
 *   backfilld --characterize TRACE[,TRACE..] [--model-out FILE]
 *   backfilld --site MODEL --users N[,N..] --days D [--policy P[,P..]]
 *             [--alpha A[,A..]] [--seed S | --seeds A..B] [--nodes N]
 *             [--format text|json|csv]
 *             [--plot-throughput FILE.svg] [--plot-sessions FILE.svg]
 *
 * Several users, policies or alphas make a sweep: one simulation per
 * combination (alphas for creasy only) and seed, one CSV row or JSON object
 * each; the plots draw throughput and session length against the users,
 * one line per policy (and alpha), each point the mean over the seeds. */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "decimal.h"
#include "plot.h"
#include "site.h"
#include "site_seeds.h"
#include "svg.h"

#define MAX_LIST 32
#define MAX_SEEDS 100

#define MAX_TRACES 16

struct site_cli {
	const char *trace, *model_out, *model;
	char trace_buf[4096];
	const char *traces[MAX_TRACES];
	size_t ntraces;
	uint32_t users[MAX_LIST], nusers;
	enum sched_policy policy[4];
	uint32_t npolicy;
	double alpha[MAX_LIST];
	uint32_t nalpha;
	uint64_t days, seed, nodes;
	uint64_t seed_lo, nseeds;	/* --seeds: nseeds from seed_lo; else 1 */
	bool days_given, seed_given, joint_mix, mix_given, exact, est_given;
	const char *format, *plot_tp, *plot_ses, *jobs_out;
};

static int usage_error(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "backfilld: %s %s: %s\nTry 'backfilld --help' for more information.\n", opt,
	        arg, why);
	return -1;
}

static int whole(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char why[80];

	if (decimal_parse(s, lo, hi, out) == 0)
		return 0;
	snprintf(why, sizeof why, "expected a whole number from %llu to %llu",
	         (unsigned long long)lo, (unsigned long long)hi);
	return usage_error(opt, s, why);
}

/* A comma list, each item parsed by one(); at most MAX_LIST. */
static int list(const char *opt, const char *arg, uint32_t *n, struct site_cli *c,
                int (*one)(struct site_cli *, const char *, uint32_t))
{
	char buf[1024], *save = NULL, *t;

	if (strlen(arg) >= sizeof buf)
		return usage_error(opt, "...", "the list is too long");
	snprintf(buf, sizeof buf, "%s", arg);
	*n = 0;
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_LIST)
			return usage_error(opt, arg, "at most 32 values");
		if (one(c, t, (*n)++) < 0)
			return -1;
	}
	if (*n == 0)
		return usage_error(opt, arg, "expected a value");
	return 0;
}

static int one_users(struct site_cli *c, const char *s, uint32_t i)
{
	uint64_t v;

	if (whole("--users", s, 1, 100000, &v) < 0)
		return -1;
	c->users[i] = (uint32_t)v;
	return 0;
}

static int one_policy(struct site_cli *c, const char *s, uint32_t i)
{
	if (i >= 4)
		return usage_error("--policy", s, "at most the 4 policies");
	if (sched_policy_parse(s, &c->policy[i]) < 0)
		return usage_error("--policy", s, "unknown policy (fcfs, easy, conservative or creasy)");
	return 0;
}

static int one_alpha(struct site_cli *c, const char *s, uint32_t i)
{
	if (sched_alpha_parse(s, &c->alpha[i]) < 0)
		return usage_error("--alpha", s, "expected a number from 0 to 1e9");
	return 0;
}

/* --seeds A..B: every seed from A to B, at most MAX_SEEDS. */
static int seeds(struct site_cli *c, const char *arg)
{
	char buf[64], *dots;
	uint64_t hi;

	snprintf(buf, sizeof buf, "%s", arg);
	if (strlen(arg) >= sizeof buf || !(dots = strstr(buf, "..")))
		return usage_error("--seeds", arg, "expected A..B");
	*dots = '\0';
	if (whole("--seeds", buf, 0, UINT64_MAX, &c->seed_lo) < 0 ||
	    whole("--seeds", dots + 2, 0, UINT64_MAX, &hi) < 0)
		return -1;
	if (hi < c->seed_lo || hi - c->seed_lo >= MAX_SEEDS)
		return usage_error("--seeds", arg, "expected A..B with A <= B, at most 100 seeds");
	c->nseeds = hi - c->seed_lo + 1;
	return 0;
}

/* --characterize TRACE[,TRACE..]: the traces pooled into one model. */
static int trace_list(struct site_cli *c, const char *arg)
{
	char *save = NULL, *t;

	if (strlen(arg) >= sizeof c->trace_buf)
		return usage_error("--characterize", "...", "the list is too long");
	snprintf(c->trace_buf, sizeof c->trace_buf, "%s", arg);
	c->trace = arg;
	c->ntraces = 0;
	for (t = strtok_r(c->trace_buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (c->ntraces == MAX_TRACES)
			return usage_error("--characterize", arg, "at most 16 traces");
		c->traces[c->ntraces++] = t;
	}
	if (c->ntraces == 0)
		return usage_error("--characterize", arg, "expected a trace");
	return 0;
}

enum { O_CHAR = 256, O_MODEL_OUT, O_SITE, O_USERS, O_DAYS, O_POLICY, O_ALPHA, O_SEED, O_NODES,
       O_FORMAT, O_PLOT_TP, O_PLOT_SES, O_JOBS_OUT, O_SEEDS, O_JOB_MIX, O_ESTIMATES, O_HELP };

static const struct option longopts[] = {
	{ "characterize", required_argument, NULL, O_CHAR },
	{ "model-out", required_argument, NULL, O_MODEL_OUT },
	{ "site", required_argument, NULL, O_SITE },
	{ "users", required_argument, NULL, O_USERS },
	{ "days", required_argument, NULL, O_DAYS },
	{ "policy", required_argument, NULL, O_POLICY },
	{ "alpha", required_argument, NULL, O_ALPHA },
	{ "seed", required_argument, NULL, O_SEED },
	{ "seeds", required_argument, NULL, O_SEEDS },
	{ "nodes", required_argument, NULL, O_NODES },
	{ "format", required_argument, NULL, O_FORMAT },
	{ "plot-throughput", required_argument, NULL, O_PLOT_TP },
	{ "plot-sessions", required_argument, NULL, O_PLOT_SES },
	{ "jobs-out", required_argument, NULL, O_JOBS_OUT },
	{ "job-mix", required_argument, NULL, O_JOB_MIX },
	{ "estimates", required_argument, NULL, O_ESTIMATES },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

static int option(struct site_cli *c, int opt, const char *arg)
{
	switch (opt) {
	case O_CHAR: return trace_list(c, arg);
	case O_MODEL_OUT: c->model_out = arg; return 0;
	case O_SITE: c->model = arg; return 0;
	case O_USERS: return list("--users", arg, &c->nusers, c, one_users);
	case O_POLICY: return list("--policy", arg, &c->npolicy, c, one_policy);
	case O_ALPHA: return list("--alpha", arg, &c->nalpha, c, one_alpha);
	case O_DAYS: c->days_given = true; return whole("--days", arg, 1, 3650, &c->days);
	case O_SEED: c->seed_given = true; return whole("--seed", arg, 0, UINT64_MAX, &c->seed);
	case O_SEEDS: return seeds(c, arg);
	case O_NODES: return whole("--nodes", arg, 1, MODEL_MAX_NODES, &c->nodes);
	case O_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "json") && strcmp(arg, "csv"))
			return usage_error("--format", arg, "expected text, json or csv");
		c->format = arg;
		return 0;
	case O_PLOT_TP:
	case O_PLOT_SES:
		if (plot_path_check(opt == O_PLOT_TP ? "--plot-throughput" : "--plot-sessions",
		                    arg) < 0)
			return -1;
		*(opt == O_PLOT_TP ? &c->plot_tp : &c->plot_ses) = arg;
		return 0;
	case O_JOBS_OUT: c->jobs_out = arg; return 0;
	case O_JOB_MIX:
		if (strcmp(arg, "independent") && strcmp(arg, "joint"))
			return usage_error("--job-mix", arg, "expected independent or joint");
		c->joint_mix = strcmp(arg, "joint") == 0;
		c->mix_given = true;
		return 0;
	case O_ESTIMATES:
		if (strcmp(arg, "trace") && strcmp(arg, "exact"))
			return usage_error("--estimates", arg, "expected trace or exact with --site");
		c->exact = strcmp(arg, "exact") == 0;
		c->est_given = true;
		return 0;
	case O_HELP: site_usage(stdout); return 1;
	case ':':
		fprintf(stderr, "backfilld: an option needs a value\n");
		return -1;
	default:	/* '?' is told by site_main */
		return -1;
	}
}

static int check(struct site_cli *c)
{
	bool creasy = false;

	if (c->trace && c->model)
		return usage_error("--characterize", c->trace, "and --site are two runs: one at a time");
	if (c->trace) {
		if (c->nusers || c->npolicy || c->nalpha || c->days_given || c->format || c->plot_tp ||
		    c->plot_ses || c->nodes || c->jobs_out || c->seed_given || c->nseeds ||
		    c->mix_given || c->est_given)
			return usage_error("--characterize", c->trace,
			                   "takes --model-out only (the simulation options go with --site)");
		return 0;
	}
	if (c->model_out)
		return usage_error("--model-out", c->model_out, "goes with --characterize");
	if (!c->model)
		return usage_error("--site", "", "needs a model file (backfilld --characterize writes "
		                   "one)");
	if (!c->nusers || !c->days_given)
		return usage_error("--site", c->model, "needs --users N and --days D");
	if (!c->npolicy)
		c->policy[c->npolicy++] = SCHED_EASY;
	for (uint32_t i = 0; i < c->npolicy; i++)
		creasy |= c->policy[i] == SCHED_CREASY;
	if (creasy && !c->nalpha)
		return usage_error("--policy", "creasy", "needs --alpha A (0 gives EASY's order)");
	if (!creasy && c->nalpha)
		return usage_error("--alpha", "", "is creasy's, and no simulation here uses creasy");
	if (!c->format)
		c->format = "text";
	if (c->seed_given && c->nseeds)
		return usage_error("--seed", "and --seeds", "one or the other");
	if (!c->nseeds) {
		c->seed_lo = c->seed;
		c->nseeds = 1;
	}
	if (c->jobs_out && (c->nusers > 1 || c->npolicy > 1 || c->nalpha > 1 || c->nseeds > 1))
		return usage_error("--jobs-out", c->jobs_out, "is for a single simulation");
	return 0;
}

static int characterize(const struct site_cli *c)
{
	struct site_model m;
	FILE *f;
	int rc = 0;

	if (model_characterize(c->traces, c->ntraces, &m) < 0)
		return 1;
	model_summary(&m, stdout);
	if (c->model_out) {
		if (!(f = fopen(c->model_out, "w")) || model_write(&m, f) < 0 || fclose(f) != 0) {
			fprintf(stderr, "backfilld: %s: %s\n", c->model_out, strerror(errno));
			rc = 1;
		} else {
			printf("%-22s %s\n", "model written to", c->model_out);
		}
	}
	model_free(&m);
	return rc;
}

/* One line per policy and alpha over the users, of throughput or of
 * session length: each point the mean over the seeds, with the 95%
 * interval of that mean (site_seeds.h) as its error bar. */
static int plot(const char *path, const struct site_cli *c, const struct site_model *m,
                const struct site_result *res, size_t nres, bool sessions)
{
	struct svg_series s[4 * MAX_LIST];
	char names[4 * MAX_LIST][48], title[400];
	double x[4 * MAX_LIST][MAX_LIST], y[4 * MAX_LIST][MAX_LIST];
	double lo[4 * MAX_LIST][MAX_LIST], hi[4 * MAX_LIST][MAX_LIST], v[MAX_SEEDS];
	size_t ns = 0;
	struct svg_axes ax = { .title = title, .xlabel = "users",
	                       .ylabel = sessions ? "session length (jobs per session)" :
	                                            "throughput (jobs per hour)" };
	FILE *f;
	int rc, at;

	/* The results go seeds-innermost, then users: each line is a run of
	 * nusers * nseeds. */
	for (size_t k = 0, run = c->nusers * c->nseeds; k + run <= nres; k += run, ns++) {
		const struct site_settings *st = &res[k].set;

		if (st->policy == SCHED_CREASY)
			snprintf(names[ns], sizeof names[ns], "creasy, alpha %g", st->alpha);
		else
			snprintf(names[ns], sizeof names[ns], "%s", sched_policy_name(st->policy));
		for (uint32_t u = 0; u < c->nusers; u++) {
			const struct site_result *r = &res[k + u * c->nseeds];

			for (uint64_t d = 0; d < c->nseeds; d++)
				v[d] = sessions ? r[d].all.session_length : r[d].all.throughput;
			x[ns][u] = r->set.users;
			plot_ci95(v, c->nseeds, &y[ns][u], &lo[ns][u], &hi[ns][u]);
		}
		s[ns] = (struct svg_series){ .name = names[ns], .n = c->nusers, .x = x[ns],
		                             .y = y[ns], .lo = lo[ns], .hi = hi[ns] };
	}
	at = snprintf(title, sizeof title, "site model of %s: %s against users", m->source,
	              sessions ? "session length (jobs per session)" : "throughput (jobs per hour)");
	if (c->npolicy == 1 && c->nalpha <= 1 && at > 0 && (size_t)at < sizeof title)
		at += snprintf(title + at, sizeof title - (size_t)at, ", %s", names[0]);
	if (c->nseeds > 1 && at > 0 && (size_t)at < sizeof title)
		snprintf(title + at, sizeof title - (size_t)at, "; mean of %" PRIu64 " seeds, 95%% CI",
		         c->nseeds);
	if (!(f = fopen(path, "w"))) {
		fprintf(stderr, "backfilld: %s: %s\n", path, strerror(errno));
		return -1;
	}
	rc = svg_line_chart(f, &ax, s, ns);
	if (fclose(f) != 0 || rc < 0) {
		fprintf(stderr, "backfilld: %s: cannot write the plot\n", path);
		return -1;
	}
	return 0;
}

static int simulate_all(struct site_cli *c)
{
	struct site_model m;
	struct site_result *res;
	size_t nres = 0, max = (size_t)c->npolicy * (c->nalpha ? c->nalpha : 1) * c->nusers *
	                       c->nseeds;
	bool sweep = max > 1, summary = c->nseeds > 1 && strcmp(c->format, "csv") != 0;
	FILE *jobs = NULL;
	int rc = 1;

	if (model_read(c->model, &m) < 0)
		return 1;
	if (c->jobs_out && !(jobs = fopen(c->jobs_out, "w"))) {
		fprintf(stderr, "backfilld: %s: %s\n", c->jobs_out, strerror(errno));
		model_free(&m);
		return 1;
	}
	if (!(res = calloc(max, sizeof *res))) {
		fprintf(stderr, "backfilld: out of memory\n");
		model_free(&m);
		return 1;
	}
	if (sweep && !summary && strcmp(c->format, "json") == 0)
		printf("[\n");
	for (uint32_t p = 0; p < c->npolicy; p++) {
		uint32_t na = c->policy[p] == SCHED_CREASY ? c->nalpha : 1;

		for (uint32_t a = 0; a < na; a++) {
			for (uint64_t k = 0; k < (uint64_t)c->nusers * c->nseeds; k++) {
				struct site_settings set = {
					.users = c->users[k / c->nseeds], .days = (uint32_t)c->days,
					.nodes = (uint32_t)c->nodes, .policy = c->policy[p],
					.alpha = c->policy[p] == SCHED_CREASY ? c->alpha[a] : 0,
					.seed = c->seed_lo + k % c->nseeds,
					.joint_mix = c->joint_mix,
					.exact_estimates = c->exact,
				};
				struct site_result *r = &res[nres];

				if (site_run(&m, &set, r, jobs) < 0)
					goto out;
				if (summary)
					;	/* (told together once all have run) */
				else if (strcmp(c->format, "csv") == 0)
					site_report_csv(stdout, r, nres == 0);
				else if (strcmp(c->format, "json") == 0) {
					if (nres)
						printf(",\n");
					site_report_json(stdout, &m, r);
				} else {
					if (nres)
						putchar('\n');
					site_report_text(stdout, &m, r);
				}
				nres++;
			}
		}
	}
	if (sweep && !summary && strcmp(c->format, "json") == 0)
		printf("]\n");
	if (summary && (strcmp(c->format, "json") == 0 ?
	    site_seeds_json(stdout, &m, res, nres / c->nseeds, c->nseeds) :
	    site_seeds_text(stdout, &m, res, nres / c->nseeds, c->nseeds)) < 0) {
		fprintf(stderr, "backfilld: out of memory\n");
		goto out;
	}
	rc = 0;
	if (c->plot_tp && plot(c->plot_tp, c, &m, res, nres, false) < 0)
		rc = 1;
	if (c->plot_ses && plot(c->plot_ses, c, &m, res, nres, true) < 0)
		rc = 1;
out:
	if (fflush(stdout) != 0 || (jobs && fclose(jobs) != 0))
		rc = 1;
	free(res);
	model_free(&m);
	return rc;
}

int site_main(int argc, char **argv)
{
	struct site_cli c = { .seed = 1 };
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		int rc;

		if (opt == '?') {
			fprintf(stderr, "backfilld: unknown option '%s' with --site or --characterize\n"
			        "Try 'backfilld --help' for more information.\n", argv[optind - 1]);
			return 2;
		}
		if ((rc = option(&c, opt, optarg)) != 0)
			return rc > 0 ? 0 : 2;
	}
	if (optind < argc) {
		fprintf(stderr, "backfilld: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (check(&c) < 0)
		return 2;
	return c.trace ? characterize(&c) : simulate_all(&c);
}

void site_usage(FILE *f)
{
	fputs(
"Characterize a trace, and simulate a site's users (closed loop):\n"
"  --characterize TRACE[,TRACE..]  sessions, think times, breaks, batch widths,\n"
"                    runs of equal size, sizes and runtimes of SWF traces (several\n"
"                    are pooled into one model): a summary\n"
"  --model-out FILE  and the model, for --site\n"
"  --site MODEL      simulated users submit from the model; the next batch waits\n"
"                    for the last, and a slow response ends the session sooner\n"
"  --users N[,N..]   how many users (a list: one simulation each)\n"
"  --days D          days simulated (users stop submitting then)\n"
"  --policy P[,P..]  fcfs, easy (default), conservative or creasy\n"
"  --alpha A[,A..]   creasy's weight of criticality, 0 to 1e9 (needed with creasy)\n"
"  --seed S          the users' draws (default 1): the same seed, the same run\n"
"  --seeds A..B      every seed from A to B (at most 100): text and json give each\n"
"                    setting's mean, sd and 95% interval, and its throughput gain\n"
"                    over the first setting paired by seed; csv a row per run;\n"
"                    the plots show means with their 95% intervals\n"
"  --nodes N         the machine (default: the model's)\n"
"  --job-mix M       independent (default: a job's runtime and estimate drawn\n"
"                    whatever its size, as the paper's users draw them) or joint\n"
"                    (drawn among the jobs of its size)\n"
"  --estimates E     trace (default: the estimate the trace had with the runtime)\n"
"                    or exact (the runtime)\n"
"  --format F        text (default), json or csv\n"
"  --jobs-out FILE   every simulated job as an SWF line (one simulation)\n"
"  --plot-throughput FILE.svg, --plot-sessions FILE.svg  throughput or session\n"
"                    length against users, a line per policy and alpha (SVG only:\n"
"                    another name than *.svg is refused)\n", f);
}
