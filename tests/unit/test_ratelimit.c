/* The per-user budgets (daemon/serve/ratelimit.c's table): a burst of changes
 * then one per interval, a request for many jobs let in whole and paid
 * for after, log lines per minute with a summary, and a table that stays
 * bounded by dropping idle users and refusing one too many. */
#include "serve/ratelimit.h"
#include "tap.h"

static const struct user_budget B = { .burst = 20, .interval = BF_SEC, .lines = 5 };

/* Changes uid gets in a row at `now`, one request of one change each. */
static int run_of(struct user_rates *t, uid_t uid, bf_time now, bf_time *retry)
{
	int n = 0;

	while (n < 1000 && userrate_check(t, uid, now, &B, retry) == 0) {
		userrate_charge(t, uid, now, &B, 1);
		n++;
	}
	return n;
}

static void test_changes(void)
{
	struct user_rates t;
	bf_time now = 1000 * BF_SEC, retry = 0;

	if (userrate_init(&t, 8) < 0) {
		ok(0, "init");
		return;
	}
	ok_eq(run_of(&t, 65534, now, &retry), 20, "a burst of 20 changes at once, then refused");
	ok_eq(retry, BF_SEC, "refused: told to try again in one interval");
	ok(userrate_newly_refused(&t, 65534), "the first refusal of a run is news (one log line)");
	ok(!userrate_newly_refused(&t, 65534), "the next ones are not");
	ok_eq(run_of(&t, 65534, now + BF_SEC / 2, &retry), 0, "half an interval later: still none");
	ok_eq(retry, BF_SEC / 2, "and the wait is the rest of the interval");
	ok_eq(run_of(&t, 65534, now + BF_SEC, &retry), 1, "one interval later: one more");
	ok_eq(run_of(&t, 65534, now + 6 * BF_SEC, &retry), 5, "five intervals later: five more");
	ok(userrate_newly_refused(&t, 65534), "a refusal after changes let in is news again");
	ok(userrate_check(&t, 65534, now + 6 * BF_SEC, &B, &retry) == 1 &&
	   !userrate_newly_refused(&t, 65534), "the next refusal of that run is not");
	ok_eq(run_of(&t, 1000, now, &retry), 20, "another user has a budget of their own");
	ok_eq(run_of(&t, 65534, now + 100 * BF_SEC, &retry), 20, "an idle user's bucket refills "
	      "to the burst, no more");

	/* A request for many jobs is let in whole; the debt is waited off. */
	now = 5000 * BF_SEC;
	ok(userrate_check(&t, 2000, now, &B, &retry) == 0, "a request for 100 jobs is let in");
	userrate_charge(&t, 2000, now, &B, 100);
	ok(userrate_check(&t, 2000, now + 80 * BF_SEC, &B, &retry) == 1,
	   "then nothing until the debt is paid off");
	ok_eq(retry, BF_SEC, "...which ends 81 s after it");
	ok(userrate_check(&t, 2000, now + 81 * BF_SEC, &B, &retry) == 0, "81 s later: one more");

	/* Over any stretch: burst + T / interval (+ the last request's rest). */
	{
		int got = 0;
		bf_time start = 9000 * BF_SEC;

		for (bf_time at = start; at < start + 10 * BF_SEC; at += BF_SEC / 100)
			got += run_of(&t, 3000, at, &retry);
		ok(got <= 20 + 10 + 1, "a tight loop for 10 s gets %d changes (at most 31)", got);
	}
	userrate_free(&t, now);
}

static void test_lines(void)
{
	struct user_rates t;
	bf_time now = 1000 * BF_SEC;
	int n = 0;

	if (userrate_init(&t, 8) < 0) {
		ok(0, "init");
		return;
	}
	for (int k = 0; k < 100; k++)
		n += userrate_line(&t, 65534, now, &B);
	ok_eq(n, 5, "5 lines a minute about one user, the rest counted");
	ok_eq(t.v[0].lines.suppressed, 95, "the 95 others are counted for the summary");
	ok_eq(userrate_due(&t), now + USERRATE_WINDOW, "the summary is due at the minute's end");
	ok(userrate_line(&t, 1000, now, &B), "another user's lines are their own");
	userrate_sweep(&t, now + 30 * BF_SEC);
	ok_eq(t.v[0].lines.suppressed, 95, "a sweep before it is due logs nothing");
	userrate_sweep(&t, now + USERRATE_WINDOW);
	ok_eq(t.n, 1, "at the minute's end the summary is logged; the quiet user is dropped");
	ok_eq(t.v[0].uid, 65534, "the one whose summary opened a new minute stays");
	ok_eq(userrate_due(&t), BF_NEVER, "nothing left to summarise");
	userrate_sweep(&t, now + 2 * USERRATE_WINDOW);
	ok_eq(t.n, 0, "a minute later it is idle and dropped too");
	userrate_free(&t, now);
}

static void test_bounded(void)
{
	struct user_rates t;
	bf_time now = 1000 * BF_SEC, retry;
	int in = 0;

	if (userrate_init(&t, 4) < 0) {
		ok(0, "init");
		return;
	}
	for (uid_t u = 1; u <= 4; u++) {
		in += userrate_check(&t, u, now, &B, &retry) == 0;
		userrate_charge(&t, u, now, &B, 1);
	}
	ok_eq(in, 4, "4 users fill a table of 4");
	ok_eq(userrate_check(&t, 5, now, &B, &retry), -1, "a fifth busy user is refused, not grown for");
	ok(!userrate_line(&t, 5, now, &B), "and gets no log lines");
	ok_eq(userrate_check(&t, 5, now + 2 * BF_SEC, &B, &retry), 0,
	      "once the others' buckets refill, they are dropped and there is room");
	ok_eq(t.n, 1, "only the new user is left");
	userrate_free(&t, now);
}

int main(void)
{
	test_changes();
	test_lines();
	test_bounded();
	return tap_done();
}
