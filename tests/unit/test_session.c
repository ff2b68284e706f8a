/* The session model of the site-level simulation (common/session.c): the
 * probability of going on, activity windows across days, nights, weekends
 * and shifts, the class shares, and the empirical distributions. */
#include <math.h>
#include "session.h"
#include "tap.h"

#define MIN(x)	((bf_time)(x) * 60 * BF_SEC)
#define HOUR(x)	(MIN(60) * (x))
#define DAY(x)	(SESSION_DAY * (x))

static void continue_p(void)
{
	ok(fabs(session_continue_p(0) - 0.8) < 1e-12, "R = 0: goes on with probability 0.8");
	ok(fabs(session_continue_p(20) - 0.4) < 1e-12, "R = 20 min: 0.8 / 2 = 0.4");
	ok(fabs(session_continue_p(60) - 0.2) < 1e-12, "R = 60 min: 0.8 / 4 = 0.2");
	ok(fabs(session_continue_p(-5) - 0.8) < 1e-12, "a negative R counts as 0");
	ok(session_continue_p(1e6) > 0 && session_continue_p(1e6) < 1e-4,
	   "a huge R: almost never goes on");
	ok(session_continue_p(NAN) == 0.8, "not a number counts as 0");
}

static void windows(void)
{
	struct session_class day = { false, false, 0 }, wend = { false, true, 0 };
	struct session_class night = { true, false, 0 }, late = { false, false, 60 };
	struct session_class early_night_wend = { true, true, -60 };

	/* Day 0 is a Monday. */
	ok(session_active(&day, HOUR(7) + MIN(30)), "day user: Monday 07:30 is active");
	ok_eq(session_next_active(&day, HOUR(7) + MIN(29)), HOUR(7) + MIN(30),
	      "day user: Monday 07:29 waits for 07:30");
	ok(!session_active(&day, HOUR(17) + MIN(30)), "day user: 17:30 is past the window");
	ok_eq(session_window_end(&day, HOUR(12)), HOUR(17) + MIN(30), "the window ends at 17:30");
	ok_eq(session_next_active(&day, DAY(4) + HOUR(18)), DAY(7) + HOUR(7) + MIN(30),
	      "day user: Friday 18:00 sleeps over the weekend to Monday 07:30");
	ok_eq(session_next_active(&day, DAY(5) + HOUR(10)), DAY(7) + HOUR(7) + MIN(30),
	      "day user: Saturday is not its day");
	ok_eq(session_next_active(&wend, HOUR(10)), DAY(5) + HOUR(7) + MIN(30),
	      "weekend user: Monday 10:00 waits for Saturday 07:30");
	ok(session_active(&wend, DAY(6) + HOUR(17)), "weekend user: Sunday 17:00 is active");
	ok_eq(session_next_active(&wend, DAY(6) + HOUR(18)), DAY(12) + HOUR(7) + MIN(30),
	      "weekend user: Sunday 18:00 waits a week less a day");
	ok(session_active(&night, DAY(4) + HOUR(20)), "night user: Friday 20:00 is active");
	ok(session_active(&night, DAY(5) + HOUR(6)),
	   "night user: Saturday 06:00 is still Friday's night");
	ok_eq(session_window_end(&night, DAY(5) + HOUR(6)), DAY(5) + HOUR(7) + MIN(30),
	      "Friday's night ends Saturday 07:30");
	ok_eq(session_next_active(&night, DAY(5) + HOUR(18)), DAY(7) + HOUR(17) + MIN(30),
	      "night user: Saturday 18:00 waits for Monday 17:30");
	ok_eq(session_next_active(&night, 0), HOUR(17) + MIN(30),
	      "night user: the first Monday 00:00 waits for 17:30 (no Sunday night before)");
	ok_eq(session_next_active(&late, HOUR(8)), HOUR(8) + MIN(30),
	      "shift +60: the day starts at 08:30");
	ok(session_active(&late, HOUR(18)), "shift +60: 18:00 is active");
	ok(session_active(&early_night_wend, DAY(7) + HOUR(6)),
	   "night weekend user, shift -60: Monday 06:00 is still Sunday's night (16:30-06:30)");
	ok(!session_active(&early_night_wend, DAY(7) + HOUR(6) + MIN(30)),
	   "and 06:30 is not");
	ok_eq(session_next_active(&early_night_wend, DAY(8)), DAY(12) + HOUR(16) + MIN(30),
	      "then Saturday 16:30");
}

static void classes(void)
{
	uint64_t rng = 42, a = 7, b = 7;
	int day = 0, weekday = 0, n = 100000, bad_shift = 0;
	double shift = 0;
	bool same = true;

	for (int i = 0; i < n; i++) {
		struct session_class c = session_draw_class(&rng);

		day += !c.night;
		weekday += !c.weekend;
		shift += c.shift;
		bad_shift += c.shift < -60 || c.shift > 60;
	}
	ok(fabs(day / (double)n - 0.7) < 0.01, "70%% of users by day (%.3f)", day / (double)n);
	ok(fabs(weekday / (double)n - 0.8) < 0.01, "80%% on weekdays (%.3f)", weekday / (double)n);
	ok(bad_shift == 0 && fabs(shift / n) < 1, "shifts within -60..60 minutes, mean %.2f",
	   shift / n);
	for (int i = 0; i < 1000; i++)
		same &= session_rand(&a) == session_rand(&b);
	ok(same, "the same seed gives the same draws");
}

static void dists(void)
{
	struct session_dist d = { 0 }, s;
	uint64_t rng = 3;
	int n = 200000, ones = 0, tens = 0;

	session_dist_add(&d, 10, 3);
	session_dist_add(&d, 1, 1);
	session_dist_add(&d, 10, 1);
	ok(session_dist_total(&d) == 5, "counts add up");
	ok(fabs(session_dist_mean(&d) - 41.0 / 5) < 1e-12, "mean weighted by counts");
	for (int i = 0; i < n; i++) {
		int64_t v = session_dist_draw(&d, &rng);

		ones += v == 1;
		tens += v == 10;
	}
	ok(ones + tens == n && fabs(ones / (double)n - 0.2) < 0.005,
	   "draws in proportion to the counts (%.4f of 1s, want 0.2)", ones / (double)n);
	ok(session_dist_sorted(&d, &s) == 0 && s.n == 2 && s.v[0] == 1 && s.v[1] == 10 &&
	   s.cum[0] == 1 && s.cum[1] == 5, "sorted: each value once with its count");
	ok(session_dist_quantile(&d, 0) == 1 && session_dist_quantile(&d, 0.5) == 10 &&
	   session_dist_quantile(&d, 1) == 10, "quantiles");
	session_dist_free(&s);
	session_dist_free(&d);
	ok(session_dist_quantile(&d, 0.5) == 0 && session_dist_mean(&d) == 0, "empty: 0");
}

/* The choice after a batch: a think time with probability 0.8 / (0.05 R
 * + 1), from the think times; else a break, from the breaks. */
static void next_gap(void)
{
	struct session_dist think = { 0 }, brk = { 0 }, none = { 0 };
	uint64_t rng = 11;
	int n = 100000, kept[2] = { 0, 0 }, wrong = 0;
	double r[2] = { 0, 20 };
	bool ns;

	session_dist_add(&think, 90, 1);
	session_dist_add(&think, 300, 1);
	session_dist_add(&brk, 7200, 1);
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < n; i++) {
			int64_t g = session_next_gap(&think, &brk, r[k], &rng, &ns);

			kept[k] += !ns;
			wrong += ns ? g != 7200 : g != 90 && g != 300;
		}
	}
	ok(fabs(kept[0] / (double)n - 0.8) < 0.01, "R = 0: the session goes on %.3f of the time",
	   kept[0] / (double)n);
	ok(fabs(kept[1] / (double)n - 0.4) < 0.01, "R = 20 min: %.3f of the time",
	   kept[1] / (double)n);
	ok(wrong == 0, "a think time when it goes on, a break when not");
	ok(session_next_gap(&none, &none, 0, &rng, &ns) == (ns ? 3600 : 60),
	   "no think times or breaks in the model: 60 s or an hour");
	session_dist_free(&think);
	session_dist_free(&brk);
}

int main(void)
{
	continue_p();
	windows();
	classes();
	dists();
	next_gap();
	return tap_done();
}
