/* backfilld: command line. For now the replay mode; the live daemon joins
 * it later with its own options. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "replay.h"

#ifndef BACKFILLD_VERSION
#define BACKFILLD_VERSION "0.1"
#endif

static void usage(FILE *f)
{
	fprintf(f,
"usage: backfilld --replay FILE [--policy fcfs|easy|conservative] [--nodes N]\n"
"                 [--format text|json] [--jobs-out FILE] [--check] [--lenient]\n"
"       backfilld --help | --version\n"
"\n"
"Replay an SWF trace (plain or gzip, - for stdin) through the scheduler under\n"
"a virtual clock and report the usual metrics.\n"
"\n"
"  --replay FILE     the trace to replay\n"
"  --policy P        fcfs, easy (default) or conservative backfilling\n"
"  --nodes N         machine size (default: the header's MaxProcs, else MaxNodes)\n"
"  --format F        report as text (default) or json\n"
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
"order. Queue order is arrival order.\n"
"\n"
"Exit status: 0 done, 1 replay failed, 2 usage error. See backfilld(8).\n");
}

/* A whole decimal number in [lo, hi], nothing else. */
static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "replay", required_argument, NULL, 'r' },
		{ "policy", required_argument, NULL, 'p' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "jobs-out", required_argument, NULL, 'o' },
		{ "check", no_argument, NULL, 'c' },
		{ "lenient", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct replay_opts o = { .policy = SCHED_EASY, .format = REPORT_TEXT };
	struct replay_result res;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			o.trace = optarg;
			break;
		case 'p':
			if (sched_policy_parse(optarg, &o.policy) < 0) {
				fprintf(stderr, "backfilld: --policy: unknown policy '%s' "
				        "(fcfs, easy or conservative)\n", optarg);
				return 2;
			}
			break;
		case 'n':
			if (parse_u32(optarg, 1, REPLAY_MAX_NODES, &o.nodes) < 0) {
				fprintf(stderr, "backfilld: --nodes: expected a whole number from 1 to %u, "
				        "got '%s'\n", REPLAY_MAX_NODES, optarg);
				return 2;
			}
			break;
		case 'f':
			if (strcmp(optarg, "text") == 0) {
				o.format = REPORT_TEXT;
			} else if (strcmp(optarg, "json") == 0) {
				o.format = REPORT_JSON;
			} else {
				fprintf(stderr, "backfilld: --format: expected text or json, got '%s'\n",
				        optarg);
				return 2;
			}
			break;
		case 'o':
			o.jobs_out = optarg;
			break;
		case 'c':
			o.check = true;
			break;
		case 'l':
			o.lenient = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("backfilld %s\n", BACKFILLD_VERSION);
			return 0;
		default:
			if (optopt)
				fprintf(stderr, "backfilld: option -%c: unknown, or its value is missing\n",
				        optopt);
			else
				fprintf(stderr, "backfilld: %s: unknown option, or its value is missing\n",
				        argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "backfilld: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!o.trace) {
		fprintf(stderr, "backfilld: nothing to do: give --replay FILE (see --help)\n");
		return 2;
	}
	if (replay_run(&o, &res) < 0)
		return 1;
	report_print(stdout, &res, o.format);
	return fflush(stdout) == 0 ? 0 : 1;
}
