/* Job arrays: -J name[SPEC]%K (indices, names, caps, every refusal with
 * its position, the element bound and hostile sizes), job references,
 * the compact spec text and its round trip, and %J/%I substitution. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "jobarray.h"
#include "tap.h"

/* idx[0..n) as "1 2 3" into buf. */
static const char *list(const uint32_t *idx, uint32_t n, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < n && at + 16 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%u", i ? " " : "", idx[i]);
	return buf;
}

/* s is an array named name with the indices want (space-separated) and
 * cap. */
static void array(const char *s, const char *name, const char *want, uint32_t cap)
{
	struct jobarray a;
	char err[256] = "", got[4096] = "";
	int rc = jobarray_parse(s, &a, err, sizeof err, NULL);
	bool good = rc == 0 && a.is_array && strcmp(a.name, name) == 0 && a.cap == cap &&
		    strcmp(list(a.index, a.count, got, sizeof got), want) == 0;

	ok(good, "'%s' is '%s' [%s] %%%u", s, name, want, cap);
	if (!good)
		printf("#   rc %d, name '%s', got '%s', cap %u, err '%s'\n", rc,
		       rc == 0 ? a.name : "", got, rc == 0 ? a.cap : 0, err);
	jobarray_free(&a);
}

static void plain(const char *s)
{
	struct jobarray a;
	char err[256] = "";
	int rc = jobarray_parse(s, &a, err, sizeof err, NULL);

	ok(rc == 0 && !a.is_array && strcmp(a.name, s) == 0 && !a.index && a.count == 0 &&
	   a.cap == 0, "'%s' is a plain name", s);
	if (rc != 0)
		printf("#   err '%s'\n", err);
	jobarray_free(&a);
}

/* s for a TAP line: control characters as \xNN. */
static const char *shown(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", (unsigned char)*s);
		else
			out[o++] = *s;
	}
	out[o] = '\0';
	return out;
}

/* Refused at pos with a one-line reason containing about; *out empty. */
static void refuses(const char *s, size_t pos, const char *about)
{
	struct jobarray a = { .name = (char *)"x", .count = 9 };
	char err[256] = "", show[128];
	size_t at = 9999;
	int rc = jobarray_parse(s, &a, err, sizeof err, &at);
	bool good = rc == -1 && !a.name && !a.index && a.count == 0 && a.cap == 0 && !a.is_array &&
		    at == pos && strstr(err, about) && !strchr(err, '\n');

	ok(good, "'%.60s' is refused at %zu: %s", shown(s, show, sizeof show), pos, err);
	if (!good)
		printf("#   rc %d, at %zu, want a message about '%s'\n", rc, at, about);
	if (rc == 0)
		jobarray_free(&a);
}

static void ref(const char *s, uint64_t id, const char *want)
{
	struct jobref r;
	char err[256] = "", got[4096] = "";
	int rc = jobref_parse(s, &r, err, sizeof err, NULL);
	bool good = rc == 0 && r.id == id && strcmp(list(r.index, r.count, got, sizeof got), want) == 0 &&
		    (r.count == 0) == (r.index == NULL);

	ok(good, "reference '%s' is %llu [%s]", s, (unsigned long long)id, want);
	if (!good)
		printf("#   rc %d, id %llu, got '%s', err '%s'\n", rc, (unsigned long long)r.id, got, err);
	jobref_free(&r);
}

static void ref_refuses(const char *s, size_t pos, const char *about)
{
	struct jobref r = { .id = 7, .count = 3 };
	char err[256] = "";
	size_t at = 9999;
	int rc = jobref_parse(s, &r, err, sizeof err, &at);
	bool good = rc == -1 && r.id == 0 && !r.index && r.count == 0 && at == pos &&
		    strstr(err, about) && !strchr(err, '\n');

	ok(good, "reference '%.60s' is refused at %zu: %s", s, pos, err);
	if (!good)
		printf("#   rc %d, at %zu, want a message about '%s'\n", rc, at, about);
	if (rc == 0)
		jobref_free(&r);
}

static void arrays(void)
{
	array("sweep[1-10]", "sweep", "1 2 3 4 5 6 7 8 9 10", 0);
	array("sweep[1-10]%2", "sweep", "1 2 3 4 5 6 7 8 9 10", 2);
	array("a[7]", "a", "7", 0);
	array("a[1,3,5]", "a", "1 3 5", 0);
	array("a[1-10:3]", "a", "1 4 7 10", 0);
	array("a[1-11:3]", "a", "1 4 7 10", 0);
	array("a[1-12:3]", "a", "1 4 7 10", 0);
	array("a[2-2:5]", "a", "2", 0);
	array("a[1-3:100]", "a", "1", 0);
	array("a[5-5]", "a", "5", 0);
	array("a[9,1-3,5]", "a", "1 2 3 5 9", 0);
	array("a[10-12,1-2]", "a", "1 2 10 11 12", 0);
	array("a[1-9:2,2-10:2]", "a", "1 2 3 4 5 6 7 8 9 10", 0);
	array("a[007-009]", "a", "7 8 9", 0);
	array("a[1, 2, 3]", "a", "1 2 3", 0);
	array("a[ 1 - 5 : 2 , 9 ]", "a", "1 3 5 9", 0);
	array("a[\t4\t]", "a", "4", 0);
	array("a[2147483647]", "a", "2147483647", 0);
	array("a[2147483646-2147483647]", "a", "2147483646 2147483647", 0);
	array("a[1-2147483647:2147483646]", "a", "1 2147483647", 0);
	array("a[1]%1", "a", "1", 1);
	array("a[1]%2147483647", "a", "1", 2147483647);
	array("a[1-3]%007", "a", "1 2 3", 7);
	/* The name: empty, blanks, odd characters, all fine. */
	array("[1-3]", "", "1 2 3", 0);
	array("[1-3]%2", "", "1 2 3", 2);
	array("my job[1-2]", "my job", "1 2", 0);
	array("a%b[1]", "a%b", "1", 0);
	array("x.y-z_1+@:/[2]", "x.y-z_1+@:/", "2", 0);
	array("caf\xc3\xa9[1]", "caf\xc3\xa9", "1", 0);
	array("\"q'[1]", "\"q'", "1", 0);
	plain("sweep");
	plain("plain%5");
	plain("my job");
	plain("a%");
	plain("a*");
	plain("caf\xc3\xa9");
	plain("1234");
	plain(" x ");
}

static void refusals(void)
{
	char big[JOBARRAY_TEXT_MAX + 8];

	refuses("", 0, "empty job name");
	refuses("a[", 2, "missing ']'");
	refuses("[", 1, "missing ']'");
	refuses("a[]", 2, "empty index list '[]'");
	refuses("a[ ]", 3, "empty index list '[]'");
	refuses("a[1,,2]", 4, "empty item in the index list (as in [1,,2])");
	refuses("a[,1]", 2, "empty item");
	refuses("a[1,]", 4, "empty item in the index list (a ',' before ']')");
	refuses("a[1-]", 4, "range '1-' has no end");
	refuses("a[1- ,3]", 5, "range '1-' has no end");
	refuses("a[1-", 4, "range '1-' has no end");
	refuses("a[-3]", 2, "a range needs a start, as in [1-5]");
	refuses("a[5-2]", 2, "range 5-2 goes backwards");
	refuses("a[3,10 - 9]", 4, "range 10 - 9 goes backwards");
	refuses("a[1-5:0]", 6, "step 0 is not valid (a step is at least 1)");
	refuses("a[:0]", 2, "a step needs a range");
	refuses("a[3:2]", 3, "a step needs a range, as in [1-10:2]");
	refuses("a[1-5:]", 6, "expected a step after ':', not ']'");
	refuses("a[1-5:x]", 6, "expected a step after ':', not 'x'");
	refuses("a[1-5:2:3]", 7, "expected ',' or ']' after an item, not ':'");
	refuses("a[1-2-3]", 5, "expected ',' or ']' after an item, not '-'");
	refuses("a[0]", 2, "index 0 is not valid (indices start at 1)");
	refuses("a[0-5]", 2, "index 0 is not valid");
	refuses("a[1-0]", 4, "index 0 is not valid");
	refuses("a[2147483648]", 2, "index 2147483648 is too large (at most 2147483647)");
	refuses("a[1-2147483648]", 4, "index 2147483648 is too large");
	refuses("a[99999999999999999999999999]", 2, "index 999999999999999999999999... is too large");
	refuses("a[1-5:2147483648]", 6, "step 2147483648 is too large");
	refuses("a[x]", 2, "expected an index, not 'x'");
	refuses("a[1x]", 3, "expected ',' or ']' after an item, not 'x'");
	refuses("a[1 2]", 4, "expected ',' or ']' after an item, not '2'");
	refuses("a[1-x]", 4, "expected the end of the range after '-', not 'x'");
	refuses("a[+1]", 2, "expected an index, not '+'");
	refuses("a[[1]]", 2, "expected an index, not '['");
	refuses("a[1", 3, "missing ']' for the '[' at column 2");
	refuses("a[1,2", 5, "missing ']' for the '[' at column 2");
	refuses("a[1]b", 4, "unexpected 'b' after ']' (only %K may follow");
	refuses("a[1][2]", 4, "unexpected '[' after ']'");
	refuses("a[1]]", 4, "unexpected ']' after ']'");
	refuses("a[1] ", 4, "unexpected ' ' after ']'");
	refuses("a[1]%", 5, "expected a number after '%' (the most elements running at once), not the end");
	refuses("a[1]%x", 5, "expected a number after '%'");
	refuses("a[1]%-1", 5, "expected a number after '%'");
	refuses("a[1]%0", 5, "%K 0 is not valid (it would run no element at all: K is at least 1)");
	refuses("a[1]%2147483648", 5, "%K 2147483648 is too large");
	refuses("a[1]%2x", 6, "unexpected 'x' after %K");
	refuses("a[1]%2%3", 6, "unexpected '%' after %K");
	refuses("a]", 1, "']' without '['");
	refuses("a]b[1]", 1, "']' without '['");
	refuses("a\tb", 1, "control character \\x09 in the job name");
	refuses("a\nb[1]", 1, "control character \\x0a");
	refuses("a\x7f", 1, "control character \\x7f");
	refuses("a[1,\x01]", 4, "expected an index, not '\\x01'");
	/* Repeats: the index and both items. */
	refuses("a[1-5,3]", 6, "index 3 is listed twice (in '1-5' and in '3')");
	refuses("a[3,1-5]", 4, "index 3 is listed twice (in '3' and in '1-5')");
	refuses("a[1,1]", 4, "index 1 is listed twice (in '1' and in '1')");
	refuses("a[1-10:3,2-10:2,5-9]", 9, "index 4 is listed twice (in '1-10:3' and in '2-10:2')");
	refuses("a[7, 1-20:3]", 5, "index 7 is listed twice (in '7' and in '1-20:3')");
	refuses("a[1-5 , 5 - 9]", 8, "index 5 is listed twice (in '1-5' and in '5 - 9')");
	/* Lengths. */
	memset(big, 'n', JOBARRAY_NAME_MAX);
	big[JOBARRAY_NAME_MAX] = '\0';
	plain(big);
	big[JOBARRAY_NAME_MAX] = 'n';
	big[JOBARRAY_NAME_MAX + 1] = '\0';
	refuses(big, 0, "job name of 512 bytes, more than 511");
	strcpy(big + JOBARRAY_NAME_MAX + 1, "[1]");
	refuses(big, 0, "job name of 512 bytes");
	memcpy(big, "a[1", 3);
	memset(big + 3, ' ', JOBARRAY_TEXT_MAX - 4);
	strcpy(big + JOBARRAY_TEXT_MAX - 1, "]");
	{
		struct jobarray a;

		ok(strlen(big) == JOBARRAY_TEXT_MAX && jobarray_parse(big, &a, NULL, 0, NULL) == 0 &&
		   a.count == 1, "a text of 4096 bytes is fine");
		jobarray_free(&a);
	}
	strcpy(big + JOBARRAY_TEXT_MAX - 1, " ]");
	refuses(big, JOBARRAY_TEXT_MAX, "longer than 4096 bytes");
	{
		struct jobarray a;
		char err[64];
		size_t at = 5;

		ok(jobarray_parse(NULL, &a, err, sizeof err, &at) == -1 && at == 0 &&
		   strstr(err, "empty job name"), "NULL is empty");
		ok(jobarray_parse("a[", &a, NULL, 0, NULL) == -1, "err and errpos may be NULL");
		ok(jobarray_parse("a[1-2]", &a, err, sizeof err, &at) == 0 && at == 0,
		   "errpos is 0 on success");
		jobarray_free(&a);
		jobarray_free(&a);
		jobarray_free(NULL);
		ok(jobarray_parse("a[0]", &a, err, 6, &at) == -1 && strlen(err) == 5,
		   "a short err buffer is cut, not overrun");
	}
}

/* An array's name at the limit. */
static void long_name(void)
{
	char big[JOBARRAY_NAME_MAX + 8];
	struct jobarray a;

	memset(big, 'n', JOBARRAY_NAME_MAX);
	strcpy(big + JOBARRAY_NAME_MAX, "[1]");
	ok(jobarray_parse(big, &a, NULL, 0, NULL) == 0 && strlen(a.name) == JOBARRAY_NAME_MAX &&
	   a.count == 1, "an array name of 511 bytes");
	jobarray_free(&a);
}

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sizes(void)
{
	struct jobarray a;
	char err[256];
	size_t at;
	double t0;
	bool good = true;
	int rc;

	rc = jobarray_parse("big[1-1000000]", &a, err, sizeof err, NULL);
	ok(rc == 0 && a.count == JOBARRAY_MAX && a.index[0] == 1 && a.index[999999] == 1000000,
	   "1000000 elements are fine");
	jobarray_free(&a);
	refuses("big[1-1000001]", 3, "the array would have 1000001 elements, more than 1000000");
	refuses("big[1-999999,1000000,1000001]", 3, "1000001 elements, more than 1000000");
	refuses("big[1-600000,400000-900000]", 3, "1100001 elements");
	/* Out of order and interleaved: a sort, still no repeat. */
	rc = jobarray_parse("big[2-1000000:2,1-999999:2]%10", &a, err, sizeof err, NULL);
	for (uint32_t i = 0; rc == 0 && i < a.count; i++)
		good &= a.index[i] == i + 1;
	ok(rc == 0 && a.count == JOBARRAY_MAX && good && a.cap == 10,
	   "two interleaved halves sort into 1..1000000");
	jobarray_free(&a);
	refuses("big[1-500000,400000-800000]", 13,
		"index 400000 is listed twice (in '1-500000' and in '400000-800000')");
	/* Hostile sizes are refused by counting, before any allocation. */
	t0 = seconds();
	for (int i = 0; i < 100; i++) {
		rc = jobarray_parse("h[1-2147483647]", &a, err, sizeof err, &at);
		rc |= jobarray_parse("h[1-2147483647,1-2147483647,1-2147483647,1-2147483647]", &a,
				     err, sizeof err, &at) + 1;
	}
	ok(rc == -1 && strstr(err, "8589934588 elements") && seconds() - t0 < 1.0,
	   "[1-2147483647] x 4 is refused at once: %s", err);
	refuses("h[1-2147483647]", 1, "the array would have 2147483647 elements, more than 1000000");
	{
		/* The most items a text holds, each a huge range: still counted
		 * exactly, without overflow. */
		char *t = malloc(JOBARRAY_TEXT_MAX + 1);
		size_t n = 2;
		int ranges = 0;

		if (!t)
			abort();
		memcpy(t, "h[", 2);
		for (; n + 16 < JOBARRAY_TEXT_MAX; ranges++)
			n += (size_t)sprintf(t + n, "1-2147483647,");
		t[n - 1] = ']';
		t[n] = '\0';
		rc = jobarray_parse(t, &a, err, sizeof err, &at);
		ok(rc == -1 && at == 1 && strstr(err, "more than 1000000"),
		   "%d ranges of 2^31-1 are counted exactly: %s", ranges, err);
		/* And the most items, each one index. */
		n = 2;
		for (uint32_t v = 1; n + 12 < JOBARRAY_TEXT_MAX; v++)
			n += (size_t)sprintf(t + n, "%u,", v * 3);
		t[n - 1] = ']';
		t[n] = '\0';
		rc = jobarray_parse(t, &a, err, sizeof err, &at);
		ok(rc == 0 && a.count > 800 && a.index[a.count - 1] == 3 * a.count,
		   "%u items of one index each", a.count);
		jobarray_free(&a);
		free(t);
	}
}

static void refs(void)
{
	ref("123", 123, "");
	ref("0123", 123, "");
	ref("9223372036854775807", 9223372036854775807ull, "");
	ref("123[7]", 123, "7");
	ref("123[1-5,9]", 123, "1 2 3 4 5 9");
	ref("123[ 9, 1-5 ]", 123, "1 2 3 4 5 9");
	ref("1[1-10:5]", 1, "1 6");
	ref_refuses("", 0, "empty job reference");
	ref_refuses("abc", 0, "expected a job id (as in 123 or 123[1-5]), not 'a'");
	ref_refuses(" 123", 0, "expected a job id");
	ref_refuses("-1", 0, "expected a job id");
	ref_refuses("0", 0, "job id 0 is not valid");
	ref_refuses("9223372036854775808", 0, "job id 9223372036854775808 is too large");
	ref_refuses("99999999999999999999999999", 0, "is too large");
	ref_refuses("123 ", 3, "unexpected ' ' after the job id (use ID or ID[1-5,9])");
	ref_refuses("123x", 3, "unexpected 'x' after the job id");
	ref_refuses("123[", 4, "missing ']'");
	ref_refuses("123[]", 4, "empty index list");
	ref_refuses("123[1-5", 7, "missing ']' for the '[' at column 4");
	ref_refuses("123[5-1]", 4, "goes backwards");
	ref_refuses("123[1,1]", 6, "index 1 is listed twice");
	ref_refuses("123[1]x", 6, "unexpected 'x' after ']'");
	ref_refuses("123[1]%2", 6, "unexpected '%' after ']'");
	ref_refuses("123[1-2000000]", 3, "2000000 elements, more than 1000000");
	ref_refuses("123[0]", 4, "index 0 is not valid");
	{
		struct jobref r;

		ok(jobref_parse(NULL, &r, NULL, 0, NULL) == -1, "a NULL reference is refused");
		jobref_free(NULL);
	}
}

static void formats(const char *spec, uint32_t cap, const char *want)
{
	struct jobarray a;
	char buf[512] = "", err[256] = "";
	int rc = jobarray_parse(spec, &a, err, sizeof err, NULL);
	int n = rc == 0 ? jobarray_format_spec(a.index, a.count, cap, buf, sizeof buf) : -1;

	ok(rc == 0 && n == (int)strlen(want) && strcmp(buf, want) == 0, "'%s' %%%u formats as %s",
	   spec, cap, want);
	if (rc != 0 || strcmp(buf, want) != 0)
		printf("#   got '%s', err '%s'\n", buf, err);
	jobarray_free(&a);
}

static void formatting(void)
{
	const uint32_t one[] = { 5 };
	char buf[16];

	formats("x[1-100]", 0, "[1-100]");
	formats("x[1-100]", 4, "[1-100]%4");
	formats("x[1-99:2,105]", 0, "[1-99:2,105]");
	formats("x[1]", 0, "[1]");
	formats("x[1,2]", 0, "[1-2]");
	formats("x[1,3]", 0, "[1,3]");
	formats("x[1,3,5]", 0, "[1-5:2]");
	formats("x[1,2,3,5,7,9]", 0, "[1-3,5-9:2]");
	formats("x[1,3,4,5]", 0, "[1,3-5]");
	formats("x[1,3,4,10]", 0, "[1,3-4,10]");
	formats("x[1,2,4,8,16]", 0, "[1-2,4,8,16]");
	formats("x[1-10:3,20-30]", 0, "[1-10:3,20-30]");
	formats("x[1-12:3]", 0, "[1-10:3]");
	formats("x[2147483647,1]", 0, "[1,2147483647]");
	formats("x[1,2147483647,1073741824]", 0, "[1-2147483647:1073741823]");
	formats("x[1-3]%2147483647", 2147483647, "[1-3]%2147483647");
	ok(jobarray_format_spec(NULL, 0, 5, buf, sizeof buf) == 0 && buf[0] == '\0',
	   "no indices: no text, cap or not");
	ok(jobarray_format_spec(one, 1, 0, NULL, 0) == 3, "a NULL buffer of 0 gives the length");
	memset(buf, 'x', sizeof buf);
	ok(jobarray_format_spec(one, 1, 12, buf, 4) == 6 && strcmp(buf, "[5]") == 0 && buf[4] == 'x',
	   "a short buffer is cut, not overrun, and the full length returned");
}

/* Random sorted lists: format, parse "x" + text, the same list and cap. */
static void round_trips(void)
{
	unsigned seed = 99;
	int bad = 0;

	for (int t = 0; t < 2000; t++) {
		uint32_t idx[300], n = 0, v = 0, cap;
		char text[8192], err[256];
		struct jobarray a;

		seed = seed * 1103515245u + 12345u;
		cap = (seed >> 8) % 3 ? 0 : (seed >> 12) % 50 + 1;
		while (n < 1 + (seed >> 16) % 299) {
			seed = seed * 1103515245u + 12345u;
			switch ((seed >> 10) % 4) {
			case 0: v += 1; break;
			case 1: v += 2; break;
			case 2: v += 1 + (seed >> 14) % 5; break;
			default: v += 1 + (seed >> 14) % 100000; break;
			}
			idx[n++] = v;
		}
		text[0] = 'x';
		jobarray_format_spec(idx, n, cap, text + 1, sizeof text - 1);
		if (jobarray_parse(text, &a, err, sizeof err, NULL) != 0 || a.count != n ||
		    a.cap != cap || memcmp(a.index, idx, n * sizeof *idx) != 0) {
			if (bad++ < 3)
				printf("#   '%s': %s\n", text, err);
		}
		jobarray_free(&a);
	}
	ok(bad == 0, "2000 random index lists format and parse back the same");
}

static void subst(const char *pattern, uint64_t id, uint32_t index, const char *want)
{
	char out[256];
	int n = jobarray_subst(pattern, id, index, out, sizeof out);

	ok(n == (int)strlen(want) && strcmp(out, want) == 0, "'%s' with %llu[%u] is '%s'", pattern,
	   (unsigned long long)id, index, want);
	if (strcmp(out, want) != 0)
		printf("#   got '%s'\n", out);
}

static void substitution(void)
{
	char out[16], *big;

	subst("out.%J", 42, 0, "out.42");
	subst("out.%J.%I", 42, 7, "out.42.7");
	subst("out.%J.%I", 42, 0, "out.42.0");
	subst("%J%J%I%I", 1, 2, "1122");
	subst("100%%.%J", 5, 0, "100%.5");
	subst("%%J", 5, 0, "%J");
	subst("%%%J", 5, 0, "%5");
	subst("a%b%", 5, 0, "a%b%");
	subst("%j %i %x", 5, 1, "%j %i %x");
	subst("%", 5, 0, "%");
	subst("", 5, 0, "");
	subst("plain", 5, 0, "plain");
	subst("%J", 9223372036854775807ull, 2147483647, "9223372036854775807");
	subst("/o/%I", 1, 2147483647, "/o/2147483647");
	ok(jobarray_subst("out.%J", 123456, 0, out, 11) == 10 && strcmp(out, "out.123456") == 0,
	   "a result that just fits");
	ok(jobarray_subst("out.%J", 1234567, 0, out, 11) == -1 && out[0] == '\0',
	   "one byte over is refused, out empty");
	ok(jobarray_subst("0123456789abcdef", 1, 0, out, sizeof out) == -1 && out[0] == '\0',
	   "a pattern that does not fit is refused");
	ok(jobarray_subst("", 1, 0, out, 1) == 0 && out[0] == '\0', "an empty result in one byte");
	ok(jobarray_subst("", 1, 0, out, 0) == -1, "no room at all");
	big = malloc(PATH_MAX);
	if (!big)
		abort();
	memset(big, 'p', PATH_MAX - 3);
	strcpy(big + PATH_MAX - 3, "%J");
	ok(jobarray_subst(big, 7, 0, big, 0) == -1, "outlen 0 touches nothing");
	{
		char *res = malloc(PATH_MAX);

		if (!res)
			abort();
		ok(jobarray_subst(big, 77, 0, res, PATH_MAX) == PATH_MAX - 1,
		   "a path of PATH_MAX - 1 bytes fits PATH_MAX");
		ok(jobarray_subst(big, 777, 0, res, PATH_MAX) == -1, "PATH_MAX bytes do not");
		free(res);
	}
	free(big);
}

int main(void)
{
	arrays();
	refusals();
	long_name();
	sizes();
	refs();
	formatting();
	round_trips();
	substitution();
	return tap_done();
}
