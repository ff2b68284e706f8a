/* The tests' failure points and small slices, gathered as SQLite gathers
 * its own behind sqlite3FaultSim: one table (failpoint.c) of every
 * BACKFILLD_TEST_* variable the daemon heeds, each a number with its
 * largest value, a path or a delay in milliseconds, read from the
 * environment once, at start. Afterwards the code asks the table
 * (failpoint_num, failpoint_path, failpoint_delay) and never reads the
 * environment for a test knob. Unset or out of range, a knob is off: 0,
 * NULL, no delay.
 *
 * The table is global state outside the daemon's context struct, the
 * accepted exception to that rule: main() writes it once (failpoint_init),
 * before anything forks or starts a thread, and from then on it is only
 * read: by the loop, and by every supervisor, which inherits it across the
 * fork. A program that never calls failpoint_init (a unit test) has it
 * read at its first question; one that changes its environment to try a
 * knob (test_syncer) calls failpoint_init again, while none of its threads
 * asks. */
#ifndef BF_FAILPOINT_H
#define BF_FAILPOINT_H
#include <stdint.h>

enum failpoint {
	/* Numbers: 0 (off), else 1 up to the knob's largest. */
	FP_PLACE_SLICE,
	FP_FORECAST_SLICE,
	FP_LIST_ROWS,
	FP_ANNOUNCE_SLICE,
	FP_TURN_GAP_MS,
	FP_CHECKPOINT_PAGES,
	FP_RESERVE_WATCH_S,
	FP_NO_TAILS,
	/* Paths: NULL (off), else the file whose existence holds or fails. */
	FP_COMMIT_HOLD,
	FP_SYNC_HOLD,
	FP_SYNC_FAIL,
	/* Delays: 1 to 60,000 ms, else none. */
	FP_SUP_DELAY_MS,
	FP_CHILD_DELAY_MS,
	FP_COUNT
};

/* The largest FP_FORECAST_SLICE: the forecast's own slice, FORECAST_CHUNK
 * (serve/forecast.h, which sys/ does not see; server.c checks they agree). */
#define FAILPOINT_FORECAST_MAX 256u

/* Read every knob from the environment (see above: once, at start). */
void failpoint_init(void);
/* A number knob's value, 0 when off. */
uint32_t failpoint_num(enum failpoint fp);
/* A number knob's value, or `otherwise` when it is off. */
uint32_t failpoint_or(enum failpoint fp, uint32_t otherwise);
/* A path knob's path, NULL when off. */
const char *failpoint_path(enum failpoint fp);
/* Sleep for a delay knob's milliseconds, if it is on. */
void failpoint_delay(enum failpoint fp);

#endif
