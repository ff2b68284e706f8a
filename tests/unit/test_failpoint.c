/* The tests' knobs (daemon/sys/failpoint.c) read as the daemon has always
 * read them: a number in 1..its largest, anything else off (unset, empty,
 * 0, negative, too large, not a number; strtol's leading digits count); a
 * path as given; a delay of 1 ms to a minute, else none; read once, and
 * again only when failpoint_init is called again. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "proto.h"
#include "sched.h"
#include "sys/failpoint.h"
#include "tap.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The value of number knob fp with its variable set to v (NULL: unset). */
static unsigned num_with(enum failpoint fp, const char *var, const char *v)
{
	if (v)
		setenv(var, v, 1);
	else
		unsetenv(var);
	failpoint_init();
	return failpoint_num(fp);
}

int main(void)
{
	static const struct {
		const char *v;
		unsigned want;
	} slice[] = {
		{ NULL, 0 }, { "", 0 }, { "0", 0 }, { "-2", 0 }, { "abc", 0 }, { "1", 1 },
		{ "4", 4 }, { "4 jobs", 4 }, { "6", 6 }, { "7", 0 }, { "99999999999999999999", 0 },
	};
	const char *v = "BACKFILLD_TEST_PLACE_SLICE";
	double t0;

	/* Read at the first question, without failpoint_init. */
	setenv("BACKFILLD_TEST_LIST_ROWS", "3", 1);
	ok_eq(failpoint_num(FP_LIST_ROWS), 3, "a knob is read at the first question");
	setenv("BACKFILLD_TEST_LIST_ROWS", "5", 1);
	ok_eq(failpoint_num(FP_LIST_ROWS), 3, "and not again when the environment changes");
	failpoint_init();
	ok_eq(failpoint_num(FP_LIST_ROWS), 5, "but again by failpoint_init");

	for (size_t k = 0; k < sizeof slice / sizeof *slice; k++)
		ok_eq(num_with(FP_PLACE_SLICE, v, slice[k].v), slice[k].want,
		      "PLACE_SLICE (largest %d) \"%s\"", SCHED_LIVE_PLACES,
		      slice[k].v ? slice[k].v : "(unset)");
	ok_eq(num_with(FP_LIST_ROWS, "BACKFILLD_TEST_LIST_ROWS", "4096"), PROTO_MAX_LIST,
	      "LIST_ROWS takes PROTO_MAX_LIST");
	ok_eq(num_with(FP_LIST_ROWS, "BACKFILLD_TEST_LIST_ROWS", "4097"), 0, "not one more");
	ok_eq(num_with(FP_FORECAST_SLICE, "BACKFILLD_TEST_FORECAST_SLICE", "256"), 256,
	      "FORECAST_SLICE takes 256");
	ok_eq(num_with(FP_FORECAST_SLICE, "BACKFILLD_TEST_FORECAST_SLICE", "257"), 0, "not 257");
	ok_eq(num_with(FP_ANNOUNCE_SLICE, "BACKFILLD_TEST_ANNOUNCE_SLICE", "4294967295"),
	      4294967295u, "ANNOUNCE_SLICE takes UINT32_MAX");
	ok_eq(num_with(FP_ANNOUNCE_SLICE, "BACKFILLD_TEST_ANNOUNCE_SLICE", "4294967296"), 0,
	      "not one more");
	ok_eq(num_with(FP_TURN_GAP_MS, "BACKFILLD_TEST_TURN_GAP_MS", "1000"), 1000,
	      "TURN_GAP_MS takes 1000");
	ok_eq(num_with(FP_CHECKPOINT_PAGES, "BACKFILLD_TEST_CHECKPOINT_PAGES", "1001"), 0,
	      "CHECKPOINT_PAGES not 1001");
	ok_eq(num_with(FP_RESERVE_WATCH_S, "BACKFILLD_TEST_RESERVE_WATCH_S", "3600"), 3600,
	      "RESERVE_WATCH_S takes 3600");
	ok_eq(num_with(FP_NO_TAILS, "BACKFILLD_TEST_NO_TAILS", "2"), 0, "NO_TAILS not 2");
	ok_eq(num_with(FP_NO_TAILS, "BACKFILLD_TEST_NO_TAILS", "1"), 1, "but 1");

	/* Paths: as given, whatever they hold; NULL when unset. */
	unsetenv("BACKFILLD_TEST_COMMIT_HOLD");
	setenv("BACKFILLD_TEST_SYNC_HOLD", "/tmp/no such hold", 1);
	setenv("BACKFILLD_TEST_SYNC_FAIL", "", 1);
	failpoint_init();
	ok(failpoint_path(FP_COMMIT_HOLD) == NULL, "an unset path is NULL");
	ok(failpoint_path(FP_SYNC_HOLD) && !strcmp(failpoint_path(FP_SYNC_HOLD), "/tmp/no such hold"),
	   "a path is as given");
	ok(failpoint_path(FP_SYNC_FAIL) && !*failpoint_path(FP_SYNC_FAIL), "an empty one too");
	ok_eq(failpoint_num(FP_SYNC_HOLD), 0, "a path is no number");

	/* Delays: 1..60000 ms, else none. */
	setenv("BACKFILLD_TEST_SUP_DELAY_MS", "60001", 1);
	setenv("BACKFILLD_TEST_CHILD_DELAY_MS", "120", 1);
	failpoint_init();
	t0 = now_ms();
	failpoint_delay(FP_SUP_DELAY_MS);
	ok(now_ms() - t0 < 50, "a delay over a minute is none (%.0f ms)", now_ms() - t0);
	t0 = now_ms();
	failpoint_delay(FP_CHILD_DELAY_MS);
	ok(now_ms() - t0 >= 120, "a delay of 120 ms sleeps that long (%.0f ms)", now_ms() - t0);
	ok_eq(failpoint_num(FP_CHILD_DELAY_MS), 120, "its number is its milliseconds");
	setenv("BACKFILLD_TEST_SUP_DELAY_MS", "60000", 1);
	failpoint_init();
	ok_eq(failpoint_num(FP_SUP_DELAY_MS), 60000, "a minute is taken");
	return tap_done();
}
