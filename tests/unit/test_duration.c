/* Time limits: every accepted form with its exact microseconds, every
 * rejection with a relevant message, the 100-year bound, and formatting. */
#include <stdint.h>
#include <string.h>
#include "duration.h"
#include "tap.h"

#define S   ((bf_time)BF_SEC)
#define MIN (60 * S)
#define H   (60 * MIN)
#define D   (24 * H)

static void accepts(const char *s, bf_time want)
{
	bf_time got = -1;
	char err[128] = "";
	int rc = duration_parse(s, &got, err, sizeof err);

	ok(rc == 0 && got == want, "'%s' is %lld us", s, (long long)want);
	if (rc != 0 || got != want)
		printf("#   rc %d, got %lld, err '%s'\n", rc, (long long)got, err);
}

/* Rejected, *out untouched, with a message that contains `about`. */
static void rejects(const char *s, const char *about)
{
	bf_time got = 12345;
	char err[128] = "";
	int rc = duration_parse(s, &got, err, sizeof err);

	ok(rc == -1 && got == 12345 && err[0] && strstr(err, about) && !strchr(err, '\n'),
	   "'%s' is rejected: %s", s, err);
	if (rc != -1 || !strstr(err, about))
		printf("#   rc %d, want a message about '%s'\n", rc, about);
}

static void formats(bf_time us, const char *want)
{
	char buf[64];
	int n = duration_format(us, buf, sizeof buf);

	ok(strcmp(buf, want) == 0 && n == (int)strlen(want), "%lld us formats as %s", (long long)us,
	   want);
	if (strcmp(buf, want) != 0)
		printf("#   got '%s'\n", buf);
}

static void accepted_forms(void)
{
	/* M: whole minutes. */
	accepts("90", 90 * MIN);
	accepts("1", MIN);
	accepts("007", 7 * MIN);
	accepts("0001440", D);
	/* H:MM, as LSF's -W. */
	accepts("2:00", 2 * H);
	accepts("0:30", 30 * MIN);
	accepts("1:59", H + 59 * MIN);
	accepts("36:00", 36 * H);
	accepts("00:01", MIN);
	accepts("0:00:01", S);
	/* H:MM:SS. */
	accepts("1:02:03", H + 2 * MIN + 3 * S);
	accepts("0:00:59", 59 * S);
	accepts("100:59:59", 100 * H + 59 * MIN + 59 * S);
	/* Units. */
	accepts("90s", 90 * S);
	accepts("45m", 45 * MIN);
	accepts("2h", 2 * H);
	accepts("3d", 3 * D);
	accepts("1h30m", H + 30 * MIN);
	accepts("1d12h", D + 12 * H);
	accepts("1d2h3m4s", D + 2 * H + 3 * MIN + 4 * S);
	accepts("1d4s", D + 4 * S);
	accepts("1h90m", 2 * H + 30 * MIN);
	accepts("0h5m", 5 * MIN);
	accepts("007s", 7 * S);
	accepts("100000s", 100000 * S);
	/* Fractions on a single unit, exact. */
	accepts("1.5h", H + 30 * MIN);
	accepts("0.5s", 500000);
	accepts("0.000001s", 1);
	accepts("1.000001s", S + 1);
	accepts("2.25m", 2 * MIN + 15 * S);
	accepts("0.0000001m", 6);
	accepts("0.25d", 6 * H);
	accepts("0.00000001d", 864);
	accepts("0.00000001h", 36);
	accepts("0.1h", 6 * MIN);
	accepts("1.50h", H + 30 * MIN);
	accepts("0.999999s", 999999);
}

static void rejections(void)
{
	char big[200];

	rejects("", "empty");
	rejects(" 5", "space");
	rejects("5 ", "space");
	rejects("1h 30m", "space");
	rejects("1\t", "space");
	rejects("+5", "sign");
	rejects("-5", "sign");
	rejects("-1h", "sign");
	rejects("0", "more than 0");
	rejects("000", "more than 0");
	rejects("0:00", "more than 0");
	rejects("0:00:00", "more than 0");
	rejects("0s", "more than 0");
	rejects("0d0h0m0s", "more than 0");
	rejects("0.0h", "more than 0");
	rejects("2:0", "two digits");
	rejects("2:000", "two digits");
	rejects("2:60", "00 to 59");
	rejects("2:30:60", "00 to 59");
	rejects("2:30:5", "two digits");
	rejects("2:", "two digits");
	rejects("2:30:", "two digits");
	rejects(":30", "hours");
	rejects("1:2:3:4", "too many ':'");
	rejects("1:00:00:00", "too many ':'");
	rejects("1:30s", "'s'");
	rejects("1h:30", "'h'");
	rejects("1:30.5", "'.'");
	rejects("h", "number before");
	rejects("m30", "number before");
	rejects("5x", "unknown unit 'x'");
	rejects("5H", "unknown unit 'H'");
	rejects("5\x01", "\\x01");
	rejects("5\xc3\xa9", "\\xc3");
	rejects("1h1h", "twice");
	rejects("1s1s", "twice");
	rejects("30m1h", "largest to smallest");
	rejects("1s1d", "largest to smallest");
	rejects("1h30", "needs a unit");
	rejects("1.5", "fraction needs a unit");
	rejects(".5h", "digit before");
	rejects("1.h", "digit after");
	rejects("1..5h", "digit after");
	rejects("1.5h30m", "single unit");
	rejects("1h0.5m", "single unit");
	rejects("0.0000001s", "at most 6 digits");
	rejects("0.00000001m", "at most 7 digits");
	rejects("0.000000001h", "at most 8 digits");
	rejects("0.000000001d", "at most 8 digits");
	rejects("1.5.5h", "'.'");
	rejects("1h,30m", "','");
	/* Overflow in every form saturates into the 100-year check. */
	rejects("99999999999999999999999999999999", "100 years");
	rejects("99999999999999999999:00", "100 years");
	rejects("18446744073709551616s", "100 years");
	rejects("18446744073709551615d", "100 years");
	rejects("99999999999999d99999999999999h", "100 years");
	/* Bounded length. */
	memset(big, '0', sizeof big);
	big[DURATION_MAX_LEN - 1] = '5';
	big[DURATION_MAX_LEN] = '\0';
	accepts(big, 5 * MIN);
	big[DURATION_MAX_LEN] = '5';
	big[DURATION_MAX_LEN + 1] = '\0';
	rejects(big, "longer than 64");
	/* A NULL error buffer is allowed. */
	{
		bf_time t;

		ok_eq(duration_parse("nope", &t, NULL, 0), -1, "a NULL err buffer is fine");
		ok_eq(duration_parse(NULL, &t, NULL, 0), -1, "a NULL string is rejected");
	}
}

static void bounds(void)
{
	bf_time max = BF_MAX_DURATION;

	ok_eq(max, (bf_time)36600 * D, "100 years is 36600 days");
	accepts("36600d", max);
	accepts("878400h", max);
	accepts("52704000", max);
	accepts("52704000m", max);
	accepts("3162240000s", max);
	accepts("878400:00", max);
	accepts("878400:00:00", max);
	accepts("36599d23h59m59s", max - S);
	accepts("36599.99999999d", max - 864);
	accepts("3162239999.999999s", max - 1);
	accepts("0.000001s", 1);
	rejects("36601d", "100 years");
	rejects("36600d1s", "100 years");
	rejects("52704001", "100 years");
	rejects("52704000m1s", "100 years");
	rejects("878400:00:01", "100 years");
	rejects("878400:01", "100 years");
	rejects("3162240001s", "100 years");
	rejects("3162240000.000001s", "100 years");
	rejects("36600.00000001d", "100 years");
}

static void formatting(void)
{
	char buf[64];

	formats(0, "0:00:00");
	formats(S, "0:00:01");
	formats(1500000, "0:00:01.500");
	formats(1, "0:00:00.000001");
	formats(1001, "0:00:00.001001");
	formats(1000, "0:00:00.001");
	formats(90 * MIN, "1:30:00");
	formats(D - S, "23:59:59");
	formats(D, "1d 00:00:00");
	formats(2 * D + 3 * H + 4 * MIN + 5 * S, "2d 03:04:05");
	formats(D + 250000, "1d 00:00:00.250");
	formats(BF_MAX_DURATION, "36600d 00:00:00");
	formats(-5 * MIN, "-0:05:00");
	formats(-(D + 1500), "-1d 00:00:00.001500");
	formats(INT64_MIN, "-106751991d 04:00:54.775808");
	formats(INT64_MAX, "106751991d 04:00:54.775807");

	ok_eq(duration_format(2 * D, NULL, 0), 11, "a NULL buffer of 0 bytes gives the length");
	memset(buf, 'x', sizeof buf);
	ok_eq(duration_format(90 * MIN, buf, 4), 7, "a short buffer still returns the full length");
	ok(strcmp(buf, "1:3") == 0 && buf[4] == 'x', "and is cut, NUL-terminated, not overrun");
}

/* Every formatted duration below a day without fractions parses back as
 * H:MM:SS to the same value. */
static void format_parse(void)
{
	int bad = 0;
	unsigned seed = 4242;

	for (int i = 0; i < 20000; i++) {
		char buf[64], err[128];
		bf_time t, back = -1;

		seed = seed * 1103515245 + 12345;
		t = (bf_time)((seed >> 4) % 86399 + 1) * S;
		duration_format(t, buf, sizeof buf);
		bad += duration_parse(buf, &back, err, sizeof err) != 0 || back != t;
	}
	ok_eq(bad, 0, "20000 random H:MM:SS listings parse back to the same time");
}

int main(void)
{
	accepted_forms();
	rejections();
	bounds();
	formatting();
	format_parse();
	return tap_done();
}
