/* bq -d and bq --swf: ended jobs from backfilld's store (PT_HISTORY). */
#ifndef BF_BQ_HISTORY_H
#define BF_BQ_HISTORY_H
#include <stdbool.h>
#include <stdint.h>
#include "bf_time.h"

struct bq_history_opts {
	const char *socket;
	bf_time since, until;	/* ended in [since, until); BF_NEVER: no bound */
	int64_t uid;		/* one user's, or everyone's (-1) */
	bool json, swf;
	bool wide;		/* -w: user, name and exit status not cut */
};

/* A time as bq --since and --until take it: YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS]
 * (or with T), local time; or a duration (2h, 1d, 90m) meaning that long
 * before now. 0, or -1 if it is none of these. */
int bq_parse_when(const char *s, bf_time now, bf_time *out);

/* Fetch every page and print it: a table, JSON, or SWF. The exit code. */
int bq_history(const struct bq_history_opts *o);

#endif
