/* bctl's job commands: hold and release any user's queued jobs (admins;
 * their owners use bstop and bresume), and a job's time limit (admins;
 * owners may shorten theirs). See bctl_jobs.h and bctl(8). */
#include <stdio.h>
#include <string.h>
#include "bctl_jobs.h"
#include "client.h"
#include "duration.h"
#include "jobop.h"

const char bctl_jobs_usage[] =
"  hold ID...                    the queued jobs leave the queue, kept\n"
"  release ID...                 held jobs queue again (as new arrivals)\n"
"  limit ID TIME                 a new time limit (a job's owner: shorter only)\n"
"  top ID                        the queued job goes first in the queue\n"
"  requeue ID...                 running jobs are ended and queued again\n";

/* bctl limit ID TIME */
static int limit(const char *socket_opt, int argc, char **argv)
{
	bf_time t;
	char why[200];

	if (argc != 3) {
		fprintf(stderr, "bctl: limit takes a job ID and a time, as in bctl limit 12 1:30:00\n"
		        "Try 'bctl --help' for more information.\n");
		return CLIENT_EXIT_USAGE;
	}
	/* The grammar's own reason: it tells "abc" (not a time) from "0"
	 * (a time, but no limit); t is set only when the parse succeeds. */
	if (duration_parse(argv[2], &t, why, sizeof why) < 0) {
		fprintf(stderr, "bctl: limit: '%s' is not a time limit: %s (as in 90, 1:30:00 or 1h30m)\n",
		        argv[2], why);
		return CLIENT_EXIT_USAGE;
	}
	return jobop_run("bctl", socket_opt, PJ_LIMIT, false, t, 1, argv + 1);
}

int bctl_jobs(const char *socket_opt, int argc, char **argv)
{
	if (strcmp(argv[0], "hold") == 0)
		return jobop_run("bctl", socket_opt, PJ_HOLD, true, 0, argc - 1, argv + 1);
	if (strcmp(argv[0], "release") == 0)
		return jobop_run("bctl", socket_opt, PJ_RELEASE, true, 0, argc - 1, argv + 1);
	if (strcmp(argv[0], "limit") == 0)
		return limit(socket_opt, argc, argv);
	if (strcmp(argv[0], "requeue") == 0)
		return jobop_run("bctl", socket_opt, PJ_REQUEUE, true, 0, argc - 1, argv + 1);
	if (strcmp(argv[0], "top") == 0) {
		if (argc != 2) {
			fprintf(stderr, "bctl: top takes one job ID, as in bctl top 12\n"
			        "Try 'bctl --help' for more information.\n");
			return CLIENT_EXIT_USAGE;
		}
		return jobop_run("bctl", socket_opt, PJ_TOP, true, 0, 1, argv + 1);
	}
	return -1;
}
