/* backfilld --replay: the command line of what-if analysis. One replay,
 * a comparison of two (--compare), or a sweep over a grid of settings
 * (any list of several values, --seeds, or --cell). Usage errors exit 2,
 * a failed replay 1. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "decimal.h"
#include "duration.h"
#include "compare.h"
#include "plot.h"
#include "replay.h"
#include "svg.h"
#include "sweep.h"

void replay_usage(FILE *f)
{
	fputs(
"Replay: an SWF trace (plain or gzip, - for stdin) through the same scheduler\n"
"under a virtual clock, with the metrics of the literature. A comma list of\n"
"several values in --policy, --estimates, --load, --utilization or --nodes, or\n"
"--seeds, makes a sweep over the grid of them; see backfilld-whatif(7).\n"
"  --replay FILE     the trace to replay\n"
"  --policy P[,P..]  fcfs, easy (default), conservative or creasy\n"
"  --alpha A         creasy's weight of criticality, 0 to 1e9 (0: EASY's order)\n"
"  --nodes N[,N..]   machine size (default: the header's MaxProcs, else MaxNodes)\n"
"  --estimates M[,M..] runtime estimates: trace (default), exact, f=F (uniform in\n"
"                    [r, F r]), xK (the trace's times K), model, history\n"
"  --estimate-cap TIME  the model's upper bound (default 24:00, as bsub -t)\n"
"  --seed S          the seed of the estimate models' draws (default 1)\n"
"  --seeds A..B|LIST every seed of a range or list: mean and spread; estimates\n"
"                    that do not use the seed (all but f=F with F > 1 and model)\n"
"                    are replayed once\n"
"  --per-event       the literature's simulator's order (pyss): a scheduling pass\n"
"                    after every arrival and every end (arrivals first, ends in\n"
"                    start order, nodes of jobs at their limit back at once) and\n"
"                    a one-pass compression after every end;\n"
"                    default: one pass per instant, settled compression\n"
"  --load F[,F..]    offered load times F (inter-arrival times divided by F),\n"
"                    0.01 to 100\n"
"  --utilization U[,U..]  the offered load to reach, above 0 and at most 10\n"
"                    (0.85: the jobs' node-seconds over the machine's from the\n"
"                    first submission to the last); the --load factor is found\n"
"                    for it and the load reached reported; not with --load\n"
"  --from WHEN, --to WHEN  only jobs submitted in [from, to): YYYY-MM-DD[THH:MM]\n"
"                    (UTC, needs UnixStartTime) or +30d, +12h from the trace's start\n"
"  --exclude-user U[,U..]  leave out these users' jobs (SWF field 12)\n"
"  --dependencies trace|none  honour SWF fields 17 and 18 (preceding job, think\n"
"                    time): a job is submitted at its preceding job's end in the\n"
"                    replay plus the think time, if that is after its own submit\n"
"                    time (default: trace when a job names an earlier job)\n"
"  --remove-flurries N  leave out every job of an hour in which its user\n"
"                    submitted N or more\n"
"  --batch N         jobs per batch for the batch-means intervals (default jobs/32,\n"
"                    at least 10)\n"
"  --warmup K        batches dropped first (default 1)\n"
"  --breakdown       text report: tables by month, runtime class and size class\n"
"  --compare A,B     replay two ways (policies, estimate models, or policy/model as\n"
"                    easy/exact) and report the paired per-job differences, each\n"
"                    verdict also at 2 and 5 times the batch size; with --seeds,\n"
"                    both sides for each seed, paired by seed: per figure the mean\n"
"                    difference and relative difference, each with a 95% Student t\n"
"                    interval across the seeds, and the seeds B won (text or json)\n"
"  --parallel J      sweep worker processes (default: one per CPU)\n"
"  --cell K          run only cell K of the sweep (0-based); --cells prints how many\n"
"  --plot FILE.svg   a sweep: the metric against the swept parameter (error bars:\n"
"                    95% interval over the seeds); --compare: monthly bars, over\n"
"                    seeds each side's mean; one replay: utilization and queue\n"
"                    over time. SVG only: another name than *.svg is refused\n"
"  --plot-metric M   bsld (default), wait, response, utilization, bsld-p90, wait-p90\n"
"  --format F        text (default), json, or csv (a row per replay)\n"
"  --jobs-out FILE   write one SWF line per simulated job, in input order, with\n"
"                    the simulated wait (field 3) and run time (field 4)\n"
"  --check           verify the scheduler's invariants after every event\n"
"  --lenient         skip malformed lines (counted) instead of failing\n"
"\n"
"Input rules: size = field 8 if > 0, else field 5; runtime = field 4;\n"
"estimate = field 9 if > 0, else the runtime; a job running past its estimate\n"
"is killed at it (runtime cut, counted). Skipped and counted by reason: no\n"
"usable size, negative runtime, negative submit time, a time beyond 100 years,\n"
"more nodes than the machine. Same instant: ends first, then arrivals in file\n"
"order. Queue order is arrival order. A job whose preceding job (field 17) is\n"
"not an earlier, replayed job of the trace arrives at its own submit time\n"
"(counted); a delayed job's waits count from its effective submit time.\n", f);
}

struct cli {
	struct replay_opts o;
	struct grid g;
	struct sweep_opts so;
	const char *compare;
	bool cells, seeds_given, breakdown, alpha_given;
};

static int usage_error(const char *fmt_what, const char *arg, const char *why)
{
	fprintf(stderr, "backfilld: %s %s: %s\n", fmt_what, arg, why);
	return -1;
}

/* Splits a comma list in place; at most max items. */
static size_t split(char *s, char **items, size_t max)
{
	size_t n = 0;

	for (char *save = NULL, *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == max)
			return max + 1;
		items[n++] = t;
	}
	return n;
}

/* An option's comma list, parsed item by item. */
static int list(const char *opt, const char *arg, size_t max, size_t *n,
                int (*one)(struct cli *, const char *, size_t), struct cli *c)
{
	char buf[4096], *items[GRID_MAX_SEEDS + 1];

	if (strlen(arg) >= sizeof buf)
		return usage_error(opt, "...", "the list is too long");
	snprintf(buf, sizeof buf, "%s", arg);
	*n = split(buf, items, max);
	if (*n == 0)
		return usage_error(opt, arg, "expected a value");
	if (*n > max) {
		char why[64];

		snprintf(why, sizeof why, "at most %zu values", max);
		return usage_error(opt, arg, why);
	}
	for (size_t i = 0; i < *n; i++)
		if (one(c, items[i], i) < 0)
			return -1;
	return 0;
}

static int one_policy(struct cli *c, const char *s, size_t i)
{
	if (sched_policy_parse(s, &c->g.policy[i]) < 0)
		return usage_error("--policy", s, "unknown policy (fcfs, easy, conservative or creasy)");
	return 0;
}

static int one_est(struct cli *c, const char *s, size_t i)
{
	char err[200];
	bf_time cap = c->g.est[i].cap;

	if (est_parse(s, &c->g.est[i], err, sizeof err) < 0)
		return usage_error("--estimates", s, err);
	if (cap > 0)
		c->g.est[i].cap = cap;
	return 0;
}

static int one_load(struct cli *c, const char *s, size_t i)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0.01 && v <= 100))
		return usage_error("--load", s, "expected a factor from 0.01 to 100");
	c->g.load[i] = v;
	return 0;
}

static int one_target(struct cli *c, const char *s, size_t i)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v > 0 && v <= 10))
		return usage_error("--utilization", s, "expected an offered load above 0 and at most "
		                   "10 (0.85: the jobs ask for 85% of the machine)");
	c->g.load[i] = v;
	return 0;
}

static int one_nodes(struct cli *c, const char *s, size_t i)
{
	uint64_t v;

	if (decimal_parse(s, 1, REPLAY_MAX_NODES, &v) < 0) {
		char why[80];

		snprintf(why, sizeof why, "expected a whole number from 1 to %u", REPLAY_MAX_NODES);
		return usage_error("--nodes", s, why);
	}
	c->g.nodes[i] = (uint32_t)v;
	return 0;
}

static int one_seed(struct cli *c, const char *s, size_t i)
{
	if (decimal_parse(s, 0, UINT64_MAX, &c->g.seed[i]) < 0)
		return usage_error("--seeds", s, "expected a whole number");
	return 0;
}

static int one_user(struct cli *c, const char *s, size_t i)
{
	uint64_t v;

	if (decimal_parse(s, 0, UINT32_MAX - 1, &v) < 0)
		return usage_error("--exclude-user", s, "expected an SWF user number (field 12)");
	c->o.set.shape.exclude[i] = (uint32_t)v;
	return 0;
}

/* "A..B" (at most GRID_MAX_SEEDS of them) or a list. */
static int parse_seeds(struct cli *c, const char *arg)
{
	const char *dots = strstr(arg, "..");

	c->seeds_given = true;
	if (dots) {
		char lo[32];
		uint64_t a, b;

		if ((size_t)(dots - arg) >= sizeof lo)
			return usage_error("--seeds", arg, "expected A..B");
		memcpy(lo, arg, (size_t)(dots - arg));
		lo[dots - arg] = '\0';
		if (decimal_parse(lo, 0, UINT64_MAX, &a) < 0 || decimal_parse(dots + 2, 0, UINT64_MAX, &b) < 0 ||
		    b < a)
			return usage_error("--seeds", arg, "expected A..B with A <= B");
		if (b - a >= GRID_MAX_SEEDS)
			return usage_error("--seeds", arg, "at most 1000 seeds");
		c->g.nseed = (size_t)(b - a + 1);
		for (size_t i = 0; i < c->g.nseed; i++)
			c->g.seed[i] = a + i;
		return 0;
	}
	return list("--seeds", arg, GRID_MAX_SEEDS, &c->g.nseed, one_seed, c);
}

static int parse_count(const char *opt, const char *arg, uint64_t lo, uint64_t hi, uint64_t *v)
{
	if (decimal_parse(arg, lo, hi, v) < 0) {
		char why[80];

		snprintf(why, sizeof why, "expected a whole number from %llu to %llu",
		         (unsigned long long)lo, (unsigned long long)hi);
		return usage_error(opt, arg, why);
	}
	return 0;
}

enum {
	O_REPLAY = 256, O_POLICY, O_NODES, O_FORMAT, O_JOBS_OUT, O_CHECK, O_LENIENT, O_PER_EVENT,
	O_ESTIMATES, O_CAP, O_SEED, O_SEEDS, O_LOAD, O_FROM, O_TO, O_EXCLUDE, O_FLURRIES, O_BATCH,
	O_WARMUP, O_BREAKDOWN, O_COMPARE, O_PARALLEL, O_CELL, O_CELLS, O_PLOT, O_METRIC, O_ALPHA,
	O_DEPS, O_UTIL, O_HELP,
};

static const struct option longopts[] = {
	{ "replay", required_argument, NULL, O_REPLAY },
	{ "policy", required_argument, NULL, O_POLICY },
	{ "alpha", required_argument, NULL, O_ALPHA },
	{ "nodes", required_argument, NULL, O_NODES },
	{ "format", required_argument, NULL, O_FORMAT },
	{ "jobs-out", required_argument, NULL, O_JOBS_OUT },
	{ "check", no_argument, NULL, O_CHECK },
	{ "lenient", no_argument, NULL, O_LENIENT },
	{ "per-event", no_argument, NULL, O_PER_EVENT },
	{ "estimates", required_argument, NULL, O_ESTIMATES },
	{ "estimate-cap", required_argument, NULL, O_CAP },
	{ "seed", required_argument, NULL, O_SEED },
	{ "seeds", required_argument, NULL, O_SEEDS },
	{ "load", required_argument, NULL, O_LOAD },
	{ "utilization", required_argument, NULL, O_UTIL },
	{ "from", required_argument, NULL, O_FROM },
	{ "to", required_argument, NULL, O_TO },
	{ "exclude-user", required_argument, NULL, O_EXCLUDE },
	{ "remove-flurries", required_argument, NULL, O_FLURRIES },
	{ "dependencies", required_argument, NULL, O_DEPS },
	{ "batch", required_argument, NULL, O_BATCH },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "breakdown", no_argument, NULL, O_BREAKDOWN },
	{ "compare", required_argument, NULL, O_COMPARE },
	{ "parallel", required_argument, NULL, O_PARALLEL },
	{ "cell", required_argument, NULL, O_CELL },
	{ "cells", no_argument, NULL, O_CELLS },
	{ "plot", required_argument, NULL, O_PLOT },
	{ "plot-metric", required_argument, NULL, O_METRIC },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

static const char *serve_only[] = { "socket", "db", "spool", "kill-grace", "launch",
                                    "foreground", "config", "check-config", "cgroup" };

/* One option; 0, 1 (help printed), -1 (usage error, said) or -2 (said, and
 * needs no pointer to --help). */
static int option(struct cli *c, int opt, const char *arg)
{
	struct replay_opts *o = &c->o;
	char err[300];
	uint64_t v;

	switch (opt) {
	case O_REPLAY: o->trace = arg; return 0;
	case O_POLICY: return list("--policy", arg, 4, &c->g.npolicy, one_policy, c);
	case O_ALPHA:
		if (sched_alpha_parse(arg, &o->set.alpha) < 0)
			return usage_error("--alpha", arg, "expected a number from 0 to 1e9");
		c->alpha_given = true;
		return 0;
	case O_NODES: return list("--nodes", arg, GRID_MAX, &c->g.nnodes, one_nodes, c);
	case O_ESTIMATES: return list("--estimates", arg, GRID_MAX, &c->g.nest, one_est, c);
	case O_LOAD:
	case O_UTIL:
		if (c->g.nload && c->g.load_target != (opt == O_UTIL)) {
			fprintf(stderr, "backfilld: --utilization and --load both set the load: give "
			        "one (--utilization finds the --load factor for you)\n");
			return -1;
		}
		c->g.load_target = opt == O_UTIL;
		return opt == O_UTIL ? list("--utilization", arg, GRID_MAX, &c->g.nload, one_target, c) :
		                       list("--load", arg, GRID_MAX, &c->g.nload, one_load, c);
	case O_SEEDS: return parse_seeds(c, arg);
	case O_EXCLUDE:
		return list("--exclude-user", arg, SHAPE_MAX_USERS, &o->set.shape.nexclude, one_user, c);
	case O_FORMAT:
		if (strcmp(arg, "text") == 0)
			o->format = REPORT_TEXT;
		else if (strcmp(arg, "json") == 0)
			o->format = REPORT_JSON;
		else if (strcmp(arg, "csv") == 0)
			o->format = REPORT_CSV;
		else
			return usage_error("--format", arg, "expected text, json or csv");
		return 0;
	case O_JOBS_OUT: o->jobs_out = arg; return 0;
	case O_CHECK: o->check = true; return 0;
	case O_LENIENT: o->lenient = true; return 0;
	case O_PER_EVENT: o->set.per_event = true; return 0;
	case O_BREAKDOWN: c->breakdown = true; return 0;
	case O_CAP: {
		bf_time cap;

		if (duration_parse(arg, &cap, err, sizeof err) < 0 || cap <= 0)
			return usage_error("--estimate-cap", arg, "expected a time as bsub -t takes it");
		for (size_t i = 0; i < GRID_MAX; i++)
			c->g.est[i].cap = cap;
		return 0;
	}
	case O_SEED:
		if (parse_count("--seed", arg, 0, UINT64_MAX, &v) < 0)
			return -1;
		c->g.seed[0] = v;
		c->g.nseed = 1;
		return 0;
	case O_FROM:
	case O_TO:
		if (shape_when_parse(arg, opt == O_FROM ? &o->set.shape.from : &o->set.shape.to, err,
		                     sizeof err) < 0)
			return usage_error(opt == O_FROM ? "--from" : "--to", arg, err);
		return 0;
	case O_FLURRIES:
		if (parse_count("--remove-flurries", arg, 2, 1000000, &v) < 0)
			return -1;
		o->set.shape.flurry = (uint32_t)v;
		return 0;
	case O_DEPS:
		if (strcmp(arg, "trace") == 0)
			o->set.deps = DEPS_TRACE;
		else if (strcmp(arg, "none") == 0)
			o->set.deps = DEPS_NONE;
		else
			return usage_error("--dependencies", arg, "expected trace (honour SWF fields 17 "
			                   "and 18) or none");
		return 0;
	case O_BATCH:
		if (parse_count("--batch", arg, 1, 100000000, &v) < 0)
			return -1;
		o->bd.batch = (uint32_t)v;
		return 0;
	case O_WARMUP:
		if (parse_count("--warmup", arg, 0, 1000000, &v) < 0)
			return -1;
		o->bd.warmup = (uint32_t)v;
		return 0;
	case O_COMPARE: c->compare = arg; return 0;
	case O_PARALLEL:
		if (parse_count("--parallel", arg, 1, 256, &v) < 0)
			return -1;
		c->so.parallel = (unsigned)v;
		return 0;
	case O_CELL:
		if (parse_count("--cell", arg, 0, 100000000, &v) < 0)
			return -1;
		c->so.cell = (long)v;
		return 0;
	case O_CELLS: c->cells = true; return 0;
	case O_PLOT:
		if (plot_path_check("--plot", arg) < 0)
			return -2;	/* said in one line */
		c->so.plot = arg;
		return 0;
	case O_METRIC:
		if (!cell_metric_known(arg))
			return usage_error("--plot-metric", arg,
			                   "expected bsld, wait, response, utilization, bsld-p90 or wait-p90");
		c->so.metric = arg;
		return 0;
	case O_HELP:
		replay_usage(stdout);
		return 1;
	}
	return -1;
}

static int parse(struct cli *c, int argc, char **argv)
{
	int opt, rc;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (opt == ':') {
			for (const struct option *lo = longopts; lo->name; lo++)
				if (lo->val == optopt)
					fprintf(stderr, "backfilld: option --%s needs a value\n", lo->name);
			return -1;
		}
		if (opt == '?') {
			const char *a = argv[optind - 1];

			for (size_t i = 0; i < sizeof serve_only / sizeof serve_only[0]; i++)
				if (strncmp(a, "--", 2) == 0 && strncmp(a + 2, serve_only[i],
				                                        strlen(serve_only[i])) == 0) {
					fprintf(stderr, "backfilld: %s is for the daemon, not --replay\n", a);
					return -1;
				}
			fprintf(stderr, "backfilld: unknown option '%s'\n", a);
			return -1;
		}
		if ((rc = option(c, opt, optarg)) != 0)
			return rc;
	}
	if (optind < argc) {
		fprintf(stderr, "backfilld: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* CREASY needs its alpha, and only CREASY takes one (in a comparison,
 * either side may name it). */
static int alpha_check(const struct cli *c)
{
	bool creasy = c->compare && strstr(c->compare, "creasy");

	for (size_t i = 0; i < c->g.npolicy; i++)
		creasy |= c->g.policy[i] == SCHED_CREASY;
	if (creasy && !c->alpha_given) {
		fprintf(stderr, "backfilld: --policy creasy needs --alpha A (0 gives EASY's order)\n");
		return -1;
	}
	if (!creasy && c->alpha_given) {
		fprintf(stderr, "backfilld: --alpha is creasy's, and no replay here uses creasy\n");
		return -1;
	}
	return 0;
}

/* Settings that every cell shares, and the defaults of the grid. */
static int finish(struct cli *c)
{
	struct grid *g = &c->g;

	if (!c->o.trace) {
		fprintf(stderr, "backfilld: --replay FILE is needed\n");
		return -1;
	}
	if (!g->npolicy)
		g->policy[g->npolicy++] = SCHED_EASY;
	if (alpha_check(c) < 0)
		return -1;
	if (!g->nest) {
		bf_time cap = g->est[0].cap;

		g->est[0] = (struct est_model){ .kind = EST_TRACE, .param = 1, .cap = cap };
		g->nest = 1;
	}
	for (size_t i = 0; i < g->nest; i++)
		if (g->est[i].cap <= 0)
			g->est[i].cap = EST_DEFAULT_CAP;
	if (!g->nload)
		g->load[g->nload++] = 1.0;
	if (!g->nnodes)
		g->nodes[g->nnodes++] = 0;
	if (!g->nseed)
		g->seed[g->nseed++] = 1;
	/* The single-cell settings, for a plain replay or a comparison. */
	c->o.set.policy = g->policy[0];
	c->o.set.est = g->est[0];
	c->o.set.shape.load = g->load_target ? 1.0 : g->load[0];
	c->o.set.shape.utilization = g->load_target ? g->load[0] : 0;
	c->o.set.nodes = g->nodes[0];
	c->o.set.seed = g->seed[0];
	if (c->o.bd.warmup == UINT32_MAX)
		c->o.bd.warmup = 1;
	if (grid_cells(g) > 1000000) {
		fprintf(stderr, "backfilld: the sweep has %zu cells, more than 1000000: sweep fewer "
		        "values at once\n", grid_cells(g));
		return -1;
	}
	if (c->compare && (grid_dims(g) || c->so.cell >= 0)) {
		fprintf(stderr, "backfilld: --compare takes one value of each setting (its two sides "
		        "say what differs), not lists or --cell\n");
		return -1;
	}
	if (c->compare && c->o.format == REPORT_CSV) {
		fprintf(stderr, "backfilld: --compare reports in text or JSON, not CSV\n");
		return -1;
	}
	if (c->o.jobs_out && (grid_dims(g) || c->seeds_given || c->so.cell >= 0 || c->compare)) {
		fprintf(stderr, "backfilld: --jobs-out is for a single replay\n");
		return -1;
	}
	if (c->o.format == REPORT_CSV && c->so.plot && !(grid_dims(g) || c->seeds_given ||
	                                                 c->so.cell >= 0 || c->compare)) {
		fprintf(stderr, "backfilld: --plot of a single replay (its time line) goes with the "
		        "text or JSON report, not CSV\n");
		return -1;
	}
	if (c->o.jobs_out && c->o.format == REPORT_CSV) {
		fprintf(stderr, "backfilld: --jobs-out goes with the text or JSON report, not CSV\n");
		return -1;
	}
	return 0;
}

/* One replay's utilization and queue length over time, each on its own
 * axis: utilization (%) on the left, jobs waiting on the right. */
static int plot_timeline(const char *path, const struct replay_jobs *jobs, uint32_t nodes,
                         const char *trace, enum sched_policy policy)
{
	enum { BINS = 300 };
	double x[BINS], util[BINS], queue[BINS];
	bf_time t0, width;
	struct svg_series s[2] = { { .name = "utilization (%)", .n = BINS, .x = x, .y = util },
	                           { .name = "jobs waiting", .n = BINS, .x = x, .y = queue,
	                             .right = true } };
	char title[256];
	struct svg_axes ax = { .title = title, .xlabel = "days since the first submission",
	                       .ylabel = "utilization (%)", .y_from_zero = true,
	                       .y2label = "queue length (jobs waiting)", .y2_from_zero = true };
	FILE *f;
	int rc;

	if (bd_timeline(jobs, nodes, BINS, util, queue, &t0, &width) < 0) {
		fprintf(stderr, "backfilld: --plot: no job to draw\n");
		return -1;
	}
	for (int i = 0; i < BINS; i++) {
		x[i] = ((double)i + 0.5) * (double)width / BF_SEC / 86400.0;
		util[i] *= 100;
	}
	snprintf(title, sizeof title, "%s: utilization and queue length over time, %s",
	         plot_basename(trace), sched_policy_name(policy));
	if (!(f = fopen(path, "w"))) {
		perror(path);
		return -1;
	}
	rc = svg_line_chart(f, &ax, s, 2);
	if (fclose(f) != 0 || rc < 0) {
		fprintf(stderr, "backfilld: %s: write failed\n", path);
		return -1;
	}
	return 0;
}

static int single(struct cli *c, const struct trace *tr)
{
	struct replay_result res;
	struct replay_jobs jobs = { 0 };
	int rc;

	c->o.progress = c->so.progress;	/* (a sweep's bar counts cells instead) */
	if (replay_cell(tr, &c->o, &c->o.set, &res, c->so.plot ? &jobs : NULL) < 0)
		return 1;
	res.trace = c->o.trace;
	report_print(stdout, &res, c->o.format);
	if (c->breakdown && c->o.format == REPORT_TEXT)
		report_print_tables(stdout, &res);
	rc = c->so.plot ? plot_timeline(c->so.plot, &jobs, res.nodes, c->o.trace,
	                                       c->o.set.policy) : 0;
	free(jobs.j);
	replay_result_free(&res);
	return rc < 0 || fflush(stdout) != 0 ? 1 : 0;
}

int replay_main(int argc, char **argv)
{
	struct cli *c = calloc(1, sizeof *c);
	struct trace *tr = NULL;
	int rc = 2;

	if (!c) {
		fprintf(stderr, "backfilld: out of memory\n");
		return 1;
	}
	c->o.format = REPORT_TEXT;
	c->o.bd.warmup = UINT32_MAX;	/* not given */
	c->so.cell = -1;
	c->so.metric = "bsld";
	c->so.progress = isatty(STDERR_FILENO);
	switch (parse(c, argc, argv)) {
	case 1:
		rc = 0;
		goto out;
	case -1:
		fprintf(stderr, "Try 'backfilld --help' for more information.\n");
		goto out;
	case -2:
		goto out;
	}
	if (finish(c) < 0)
		goto out;
	if (c->cells) {
		printf("%zu\n", grid_cells(&c->g));
		rc = 0;
		goto out;
	}
	rc = 1;
	if (!(tr = replay_load(c->o.trace, c->o.lenient, c->o.jobs_out != NULL)))
		goto out;
	if (c->compare) {
		char *sides[3], buf[256], err[300];
		struct replay_settings a, b;

		snprintf(buf, sizeof buf, "%s", c->compare);
		if (split(buf, sides, 2) != 2) {
			fprintf(stderr, "backfilld: --compare %s: expected two variants A,B\n", c->compare);
			rc = 2;
			goto out;
		}
		if (compare_side_parse(sides[0], &c->o.set, &a, err, sizeof err) < 0 ||
		    compare_side_parse(sides[1], &c->o.set, &b, err, sizeof err) < 0) {
			fprintf(stderr, "backfilld: --compare: %s\n", err);
			rc = 2;
			goto out;
		}
		if (c->g.nseed > 1)
			rc = compare_seeds_run(tr, &c->o, &a, &b, c->g.seed, c->g.nseed, &c->so,
			                       stdout) < 0 ? 1 : 0;
		else
			rc = compare_run(tr, &c->o, &a, &b, c->so.plot, c->so.metric, stdout) < 0 ? 1 : 0;
	} else if (grid_dims(&c->g) || c->seeds_given || c->so.cell >= 0 ||
	           c->o.format == REPORT_CSV) {	/* (CSV: a sweep of one cell, one row) */
		rc = sweep_run(tr, &c->o, &c->g, &c->so, stdout) < 0 ? 1 : 0;
	} else {
		rc = single(c, tr);
	}
	if (fflush(stdout) != 0)
		rc = 1;
out:
	replay_trace_free(tr);
	free(c);
	return rc;
}
