/* A progress line on standard error for a long replay or sweep, shown on
 * a terminal only: a bar, the count done, and the time left once it can
 * be told. The core has no clock; this is the driver's. */
#ifndef BF_PROGRESS_H
#define BF_PROGRESS_H
#include <stdbool.h>
#include <stdint.h>

struct progress {
	bool on;
	const char *unit;	/* "jobs", "cells" */
	int64_t t0_ms;		/* when it started */
	int64_t shown_ms;	/* when the line was last drawn; -1 never */
};

/* Starts the clock; on: draw at all (callers pass isatty(2) or their
 * option). The first call of progress_show draws at once. */
void progress_start(struct progress *p, bool on, const char *unit);
/* The line for done of total, at most five times a second. */
void progress_show(struct progress *p, uint64_t done, uint64_t total);
/* The last line: kept (with a newline) or cleared (the report follows). */
void progress_end(struct progress *p, uint64_t done, uint64_t total, bool keep);
/* ", 1:05 left", ", 12 s left" (rounded up), or "" while it cannot be
 * told (nothing done, all done, or under half a second gone). */
void progress_left(char *buf, size_t len, int64_t elapsed_ms, uint64_t done, uint64_t total);

#endif
