/* The tests' knobs, every one in a table, read once: see failpoint.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include "proto.h"
#include "sched.h"
#include "failpoint.h"

enum kind { NUM, PATH, DELAY_MS };

/* The longest a delay knob holds: a minute. */
#define DELAY_MAX_MS 60000

static const struct knob {
	const char *name;
	enum kind kind;
	uint32_t max;		/* NUM, DELAY_MS: the largest value taken (above: off) */
} knobs[FP_COUNT] = {
	/* Slices small enough that a short queue takes several turns (serve/):
	 * a few jobs placed again
	 * a turn, in one call; a few planned a turn by the forecast; a
	 * listing cut at a few rows; a few broken guarantees announced a
	 * turn; and a pause between the turns of such work, so that a
	 * client's request falls between them. */
	[FP_PLACE_SLICE] = { "BACKFILLD_TEST_PLACE_SLICE", NUM, SCHED_LIVE_PLACES },
	[FP_FORECAST_SLICE] = { "BACKFILLD_TEST_FORECAST_SLICE", NUM, FAILPOINT_FORECAST_MAX },
	[FP_LIST_ROWS] = { "BACKFILLD_TEST_LIST_ROWS", NUM, PROTO_MAX_LIST },
	[FP_ANNOUNCE_SLICE] = { "BACKFILLD_TEST_ANNOUNCE_SLICE", NUM, UINT32_MAX },
	[FP_TURN_GAP_MS] = { "BACKFILLD_TEST_TURN_GAP_MS", NUM, 1000 },
	/* A shorter write-ahead log between the store's checkpoints (pages). */
	[FP_CHECKPOINT_PAGES] = { "BACKFILLD_TEST_CHECKPOINT_PAGES", NUM, 1000 },
	/* The disk reserve's watch, every so many seconds: a long one lets a
	 * test fill the disk before a commit, not before the watch. */
	[FP_RESERVE_WATCH_S] = { "BACKFILLD_TEST_RESERVE_WATCH_S", NUM, 3600 },
	/* 1: no room held past the store's ends, so that a commit can fail
	 * for want of space (write_again's test). */
	[FP_NO_TAILS] = { "BACKFILLD_TEST_NO_TAILS", NUM, 1 },
	/* For the crash tests: while the file named exists, the loop's
	 * commits wait (retried every 20 ms) and the loop goes on serving, as
	 * a commit starved by a storm of requests would (drive.c). */
	[FP_COMMIT_HOLD] = { "BACKFILLD_TEST_COMMIT_HOLD", PATH, 0 },
	/* While the file named exists, a flush of the spool waits before it
	 * begins (looked at every 20 ms), so that a test sees the loop serve,
	 * a stop or a crash while one is under way (syncer.c). */
	[FP_SYNC_HOLD] = { "BACKFILLD_TEST_SYNC_HOLD", PATH, 0 },
	/* While the file named exists, a flush fails (EIO), as on a failing
	 * disk (syncer.c). */
	[FP_SYNC_FAIL] = { "BACKFILLD_TEST_SYNC_FAIL", PATH, 0 },
	/* Widens the window between the supervisor's fork and its record,
	 * where a daemon that dies leaves a live supervisor the spool does
	 * not show yet (supervisor.c). */
	[FP_SUP_DELAY_MS] = { "BACKFILLD_TEST_SUP_DELAY_MS", DELAY_MS, DELAY_MAX_MS },
	/* Holds the job's child once it is its owner's, before it opens
	 * anything, where the owner tries to attach (supervisor.c). */
	[FP_CHILD_DELAY_MS] = { "BACKFILLD_TEST_CHILD_DELAY_MS", DELAY_MS, DELAY_MAX_MS },
};

/* The values, written by failpoint_init alone (failpoint.h says when). */
static struct {
	bool read;
	uint32_t num[FP_COUNT];		/* NUM and DELAY_MS: 0 when off */
	const char *path[FP_COUNT];	/* PATH: the environment's own string */
} fp;

/* A number in 1..max, else 0: unset, empty, not a number (strtol's 0),
 * negative or too large. */
static uint32_t number(const char *e, uint32_t max)
{
	long n = e ? strtol(e, NULL, 10) : 0;

	return n > 0 && (unsigned long)n <= max ? (uint32_t)n : 0;
}

void failpoint_init(void)
{
	for (int k = 0; k < FP_COUNT; k++) {
		const char *e = getenv(knobs[k].name);

		fp.path[k] = knobs[k].kind == PATH ? e : NULL;
		fp.num[k] = knobs[k].kind == PATH ? 0 : number(e, knobs[k].max);
	}
	fp.read = true;
}

static void ready(void)
{
	if (!fp.read)
		failpoint_init();
}

uint32_t failpoint_num(enum failpoint k)
{
	ready();
	return fp.num[k];
}

uint32_t failpoint_or(enum failpoint k, uint32_t otherwise)
{
	uint32_t v = failpoint_num(k);

	return v ? v : otherwise;
}

const char *failpoint_path(enum failpoint k)
{
	ready();
	return fp.path[k];
}

void failpoint_delay(enum failpoint k)
{
	long ms;

	ready();
	if ((ms = fp.num[k]) > 0)
		nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000 }, NULL);
}
