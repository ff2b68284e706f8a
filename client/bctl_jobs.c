/* bctl's job commands: not built yet (issue 9); see bctl_jobs.h. */
#include "bctl_jobs.h"

const char bctl_jobs_usage[] = "";

int bctl_jobs(const char *socket_opt, int argc, char **argv)
{
	(void)socket_opt;
	(void)argc;
	(void)argv;
	return -1;
}
