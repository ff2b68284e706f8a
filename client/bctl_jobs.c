/* bctl's job commands: hold and release any user's queued jobs (admins;
 * their owners use bstop and bresume). See bctl_jobs.h and bctl(8). */
#include <string.h>
#include "bctl_jobs.h"
#include "jobctl.h"

const char bctl_jobs_usage[] =
"  hold ID...                    the queued jobs leave the queue, kept\n"
"  release ID...                 held jobs queue again (as new arrivals)\n";

int bctl_jobs(const char *socket_opt, int argc, char **argv)
{
	if (strcmp(argv[0], "hold") == 0)
		return jobctl_run("bctl", socket_opt, PJ_HOLD, true, argc - 1, argv + 1);
	if (strcmp(argv[0], "release") == 0)
		return jobctl_run("bctl", socket_opt, PJ_RELEASE, true, argc - 1, argv + 1);
	return -1;
}
