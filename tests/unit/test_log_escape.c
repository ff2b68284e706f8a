/* log_escape: what a user's text (an -o path, a job name, a reason) may
 * put into a line of the daemon's log. No byte that a terminal acts on
 * gets through raw; valid UTF-8 text stays readable. */
#include <string.h>
#include "sys/log.h"
#include "tap.h"

/* The escaped form of in, compared with want. */
static void is(const char *in, const char *want, const char *what)
{
	char out[512];
	size_t n = log_escape(in, out, sizeof out);

	if (!ok(strcmp(out, want) == 0 && n == strlen(want), "%s", what))
		printf("#   got \"%s\", want \"%s\"\n", out, want);
}

/* No byte below 0x20, no DEL, no C1 control encoded as UTF-8. */
static int clean(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return 0;
	return 1;
}

static void test_forms(void)
{
	is("job 42: started on node001", "job 42: started on node001", "plain ASCII is kept");
	is("", "", "an empty text stays empty");
	is("a\\b", "a\\\\b", "a backslash is doubled: an escape is never ambiguous");
	is("a\nb", "a\\nb", "a newline becomes \\n");
	is("a\rb", "a\\rb", "a carriage return becomes \\r");
	is("a\tb", "a\\tb", "a tab becomes \\t");
	is("\x1b[2K\x1b[1Gjob 1: cancelled by root", "\\e[2K\\e[1Gjob 1: cancelled by root",
	   "ESC becomes \\e: no sequence reaches the terminal");
	is("\x01\x07\x08\x1f\x7f", "\\x01\\x07\\x08\\x1f\\x7f", "other C0 controls and DEL become \\xHH");
	is("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac "
	   "\xf0\x9f\x98\x80", "valid UTF-8 (2, 3 and 4 bytes) is kept");
	is("\xc2\xa0", "\xc2\xa0", "U+00A0, the first character past the C1 controls, is kept");
	is("x\xc2\x9b" "31m", "x\\u009b31m", "a C1 control (8-bit CSI) becomes \\u009b");
	is("\xc2\x85", "\\u0085", "NEL (U+0085) becomes \\u0085");
	is("\xe2\x80\xae" "txt.exe", "\\u202etxt.exe", "a right-to-left override becomes \\u202e");
	is("\xe2\x80\xa8\xe2\x81\xa6\xd8\x9c\xe2\x80\x8f", "\\u2028\\u2066\\u061c\\u200f",
	   "line separator, isolate and direction marks are escaped");
	is("\xff\xfe", "\\xff\\xfe", "bytes that are never UTF-8 become \\xHH");
	is("\xc0\xaf", "\\xc0\\xaf", "an overlong '/' is escaped byte by byte");
	is("\xe0\x80\xaf", "\\xe0\\x80\\xaf", "an overlong 3-byte form is escaped");
	is("\xed\xa0\x80", "\\xed\\xa0\\x80", "a surrogate is escaped");
	is("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "past U+10FFFF is escaped");
	is("ab\xe6\x97", "ab\\xe6\\x97", "a sequence cut by the end is escaped");
	is("\xe6\x97" "a", "\\xe6\\x97a", "a sequence cut by ASCII is escaped, the ASCII kept");
	ok(log_escape(NULL, (char[4]){ 1, 1, 1, 1 }, 4) == 0, "NULL is an empty text");
}

static void test_bounds(void)
{
	char out[8], in[300], big[4 * sizeof in + 1];
	size_t n;

	n = log_escape("abcdefghij", out, sizeof out);
	ok(n == 7 && strcmp(out, "abcdefg") == 0, "a long text is cut to fit, NUL-terminated");
	n = log_escape("abcdef\x1b", out, sizeof out);
	ok(n == 6 && strcmp(out, "abcdef") == 0, "an escape that does not fit is left out whole");
	n = log_escape("abcd\xe6\x97\xa5", out, sizeof out);
	ok(n == 7 && strcmp(out, "abcd\xe6\x97\xa5") == 0, "a character that fits exactly is kept");
	n = log_escape("abcde\xe6\x97\xa5", out, sizeof out);
	ok(n == 5 && strcmp(out, "abcde") == 0, "a character that does not fit is left out whole");
	ok(log_escape("abc", out, 0) == 0, "no room: nothing written");
	n = log_escape("abc", out, 1);
	ok(n == 0 && out[0] == 0, "room for the NUL only: an empty string");

	/* The worst case: every byte escaped as \xHH fits in 4x + 1. */
	memset(in, 0xff, sizeof in - 1);
	in[sizeof in - 1] = 0;
	n = log_escape(in, big, sizeof big);
	ok(n == 4 * (sizeof in - 1), "4 times the length plus 1 holds the worst case");

	/* Every single byte and every pair: nothing raw gets through. */
	{
		int bad = 0;

		for (int a = 1; a < 256; a++) {
			for (int b = 0; b < 256; b++) {
				char s[3] = { (char)a, (char)b, 0 }, o[32];

				log_escape(s, o, sizeof o);
				bad += !clean(o);
			}
		}
		ok_eq(bad, 0, "no pair of bytes leaves a control character in the escaped text");
	}
}

int main(void)
{
	test_forms();
	test_bounds();
	return tap_done();
}
