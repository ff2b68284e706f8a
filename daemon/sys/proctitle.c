/* See proctitle.h. Linux shows /proc/PID/cmdline from the memory between
 * the mm's arg_start and arg_end. As root (the daemon's usual case) the
 * title gets a buffer of its own (PR_SET_MM); otherwise it is written
 * over the command line's own strings, cut to their length. The
 * environment is never touched: tools (and the crash torture) find a
 * run's processes by it. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include "proctitle.h"

static char *area;		/* argv[0]'s string ... */
static size_t area_len;		/* ... to the end of the last contiguous one */

void proctitle_init(int argc, char **argv)
{
	char *start, *end;

	if (argc < 1 || !argv[0])
		return;
	start = argv[0];
	end = start + strlen(start) + 1;
	for (int k = 1; k < argc; k++)
		if (argv[k] == end)
			end += strlen(argv[k]) + 1;
	/* Options keep pointers into argv (optarg): point argv at copies
	 * first, so that a title never overwrites a path still in use. */
	for (int k = 0; k < argc; k++) {
		char *c = strdup(argv[k]);

		if (!c)
			return;		/* no title then */
		argv[k] = c;
	}
	area = start;
	area_len = (size_t)(end - start);
}

void proctitle_set(const char *title, const char *comm)
{
	static char own[64];
	size_t n = strlen(title);

	if (!area || area_len < 2)
		return;
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	/* A buffer of its own, where allowed (CAP_SYS_RESOURCE). The heap
	 * lies below the stack's strings: the new start first keeps the pair
	 * in order. */
	if (n < sizeof own) {
		memcpy(own, title, n + 1);
		if (prctl(PR_SET_MM, PR_SET_MM_ARG_START, (unsigned long)own, 0, 0) == 0) {
			if (prctl(PR_SET_MM, PR_SET_MM_ARG_END, (unsigned long)(own + n + 1), 0, 0) == 0)
				return;
			prctl(PR_SET_MM, PR_SET_MM_ARG_START, (unsigned long)area, 0, 0);
		}
	}
	if (n > area_len - 1 && strlen(comm) <= area_len - 1) {
		title = comm;		/* a cut title could name another job */
		n = strlen(comm);
	}
	if (n > area_len - 1)
		n = area_len - 1;
	memcpy(area, title, n);
	memset(area + n, 0, area_len - n);
}
