/* Node lists: expansion with padding, every rejection, the size guards,
 * compact formatting, and round trips (fixed and random). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nodelist.h"
#include "tap.h"

#define NAMES(nl) ((const char *const *)(nl).names)

/* s expands to the names in want (space-separated). */
static void expands(const char *s, const char *want)
{
	struct nodelist nl;
	char err[256] = "", got[4096] = "";
	size_t at = 0;
	int rc = nodelist_parse(s, &nl, err, sizeof err);

	for (uint32_t i = 0; rc == 0 && i < nl.count && at < sizeof got - 80; i++)
		at += (size_t)snprintf(got + at, sizeof got - at, "%s%s", i ? " " : "", nl.names[i]);
	ok(rc == 0 && strcmp(got, want) == 0, "'%s' expands to %s", s, want);
	if (rc != 0 || strcmp(got, want) != 0)
		printf("#   rc %d, got '%s', err '%s'\n", rc, got, err);
	nodelist_free(&nl);
}

/* Rejected with a message containing `about`; the list is left empty. */
static void rejects(const char *s, const char *about)
{
	struct nodelist nl = { (char **)&nl, 99 };
	char err[256] = "";
	int rc = nodelist_parse(s, &nl, err, sizeof err);

	ok(rc == -1 && nl.names == NULL && nl.count == 0 && strstr(err, about) && !strchr(err, '\n'),
	   "'%.60s' is rejected: %s", s ? s : "(NULL)", err);
	if (rc != -1 || !strstr(err, about))
		printf("#   rc %d, want a message about '%s'\n", rc, about);
	nodelist_free(&nl);
}

/* format(parse(s)) == want (want == s for canonical s). */
static void compacts(const char *s, const char *want)
{
	struct nodelist nl;
	char err[256] = "", buf[4096] = "";
	int rc = nodelist_parse(s, &nl, err, sizeof err);
	int n = rc == 0 ? nodelist_format(NAMES(nl), nl.count, buf, sizeof buf) : -1;

	ok(rc == 0 && strcmp(buf, want) == 0 && n == (int)strlen(want), "'%s' formats as '%s'", s,
	   want);
	if (rc != 0 || strcmp(buf, want) != 0)
		printf("#   rc %d, got '%s', err '%s'\n", rc, buf, err);
	nodelist_free(&nl);
}

static void formats(const char *const *names, uint32_t count, const char *want)
{
	char buf[1024];
	int n = nodelist_format(names, count, buf, sizeof buf);

	ok(strcmp(buf, want) == 0 && n == (int)strlen(want), "%u names format as '%s'", count, want);
	if (strcmp(buf, want) != 0)
		printf("#   got '%s'\n", buf);
}

static void expansion(void)
{
	struct nodelist nl;
	char err[256];

	expands("gpu7", "gpu7");
	expands("a[1-3,7],b05,c", "a1 a2 a3 a7 b05 c");
	expands("rack1-node[01-04]", "rack1-node01 rack1-node02 rack1-node03 rack1-node04");
	expands("node[8-10]", "node8 node9 node10");
	expands("node[098-101]", "node098 node099 node100 node101");
	expands("n[1-010]", "n1 n2 n3 n4 n5 n6 n7 n8 n9 n10");
	expands("n[007]", "n007");
	expands("n[5-5]", "n5");
	expands("n[3,1,2]", "n3 n1 n2");
	expands("n[0-2],m[00-01]", "n0 n1 n2 m00 m01");
	expands("[1-3]", "1 2 3");
	expands("a.b_c-d", "a.b_c-d");
	expands("x-[9-11]", "x-9 x-10 x-11");
	expands("1-2", "1-2");
	expands("n[999999999999999998-999999999999999999]",
		"n999999999999999998 n999999999999999999");
	expands("n[000000000000000001-000000000000000002]",
		"n000000000000000001 n000000000000000002");

	ok_eq(nodelist_parse("node[001-128]", &nl, err, sizeof err), 0, "node[001-128] parses");
	ok(nl.count == 128 && strcmp(nl.names[0], "node001") == 0 &&
	   strcmp(nl.names[63], "node064") == 0 && strcmp(nl.names[127], "node128") == 0,
	   "into node001 .. node128");
	nodelist_free(&nl);
	ok(nl.names == NULL && nl.count == 0, "free empties the list");
	nodelist_free(&nl);
	nodelist_free(NULL);
	ok(1, "freeing twice, or NULL, is harmless");
}

static void rejections(void)
{
	char name63[80], name64[80], big[200];

	rejects("", "empty node list");
	rejects(NULL, "empty node list");
	rejects("a,,b", "empty name");
	rejects(",a", "empty name");
	rejects("a,", "empty name");
	rejects(",", "empty name");
	rejects("n[5-3]", "'5-3' goes backwards");
	rejects("n[010-9]", "'010-9' goes backwards");
	rejects("n[a-b]", "expected a number in brackets, not 'a'");
	rejects("n[1-b]", "expected a number after '-' in brackets, not 'b'");
	rejects("n[1-]", "'1-' has no end");
	rejects("n[1-,3]", "'1-' has no end");
	rejects("n[-3]", "no start");
	rejects("n[1--3]", "after '-'");
	rejects("n[1-2-3]", "unexpected '-'");
	rejects("n[]", "empty brackets");
	rejects("n[1,,2]", "empty element");
	rejects("n[1,]", "empty element");
	rejects("n[,1]", "empty element");
	rejects("n[1-3", "missing ']'");
	rejects("n[1,", "missing ']'");
	rejects("n[", "missing ']'");
	rejects("n1-3]", "']' without '['");
	rejects("n[1]]", "']' without '['");
	rejects("]", "']' without '['");
	rejects("n[1-[2-3]]", "nested");
	rejects("n[[1-2]]", "nested");
	rejects("a[1-2]b[3-4]", "only one [...] group");
	rejects("a[1-2][3-4]", "only one [...] group");
	rejects("a[1-2]-ib", "text after ']'");
	rejects("n[1 ]", "unexpected \\x20");
	rejects("n 1", "character \\x20");
	rejects(" n1", "character \\x20");
	rejects("n1\t", "character \\x09");
	rejects("n\xc3\xa9", "character \\xc3");
	rejects("n/1", "character '/'");
	rejects("n:1", "character ':'");
	rejects("n@1", "character '@'");
	rejects("n1;rm", "character ';'");
	rejects("n[0x1]", "unexpected 'x'");
	rejects("n[1234567890123456789]", "more than 18 digits");
	rejects("a,b,a", "'a' is listed twice");
	rejects("a,b,c,b,a", "'b' is listed twice");
	rejects("n[1-5,3]", "'n3' is listed twice");
	rejects("n[1-5],n3", "'n3' is listed twice");
	rejects("n[01-02],n[1-3],n[2-2],n02", "'n2' is listed twice");
	rejects("z,y,x,n[1-100000],n50000,y", "'n50000' is listed twice");

	memset(name63, 'a', sizeof name63);
	name63[63] = '\0';
	expands(name63, name63);
	memcpy(name64, name63, 64);
	name64[63] = 'b';
	name64[64] = '\0';
	rejects(name64, "more than 63");
	snprintf(big, sizeof big, "%.60s[1-100]", name63);	/* 60 + 3 digits = 63 */
	{
		struct nodelist nl;

		ok(nodelist_parse(big, &nl, NULL, 0) == 0 && nl.count == 100 && strlen(nl.names[99]) == 63,
		   "a range up to names of exactly 63 bytes is fine");
		nodelist_free(&nl);
	}
	snprintf(big, sizeof big, "%.60s[1-1000]", name63);	/* 1000 has 4 digits */
	rejects(big, "more than 63");
	snprintf(big, sizeof big, "%.62s[01-02]", name63);
	rejects(big, "more than 63");
	snprintf(big, sizeof big, "%s,x", name64);
	rejects(big, "more than 63");
	snprintf(big, sizeof big, "%s[1-2]", name64);
	rejects(big, "more than 63");

	{
		struct nodelist nl;

		ok_eq(nodelist_parse("a,,b", &nl, NULL, 0), -1, "a NULL err buffer is fine");
	}
}

/* The count guard: refuses before expanding, so these must be instant and
 * allocate nothing (the first would be gigabytes). */
static void guards(void)
{
	struct nodelist nl;
	char err[256];

	rejects("n[0-999999999]", "more than 1048576 nodes");
	rejects("n[0-999999999999999999]", "more than 1048576 nodes");
	rejects("n[1-1048577]", "more than 1048576 nodes");
	rejects("n[1-1048576],x", "more than 1048576 nodes");
	rejects("x,n[1-1048576]", "more than 1048576 nodes");
	rejects("a[1-600000],b[1-600000]", "more than 1048576 nodes");
	rejects("a[1-1048576,0]", "more than 1048576 nodes");
	/* Over the count before a syntax error later on: still the count. */
	rejects("n[0-999999999],[", "more than 1048576 nodes");
	{
		clock_t t0 = clock();
		int refused = 0;

		for (int i = 0; i < 10000; i++)
			refused += nodelist_parse("n[0-999999999999999999]", &nl, NULL, 0) == -1 &&
				   nl.names == NULL;
		ok(refused == 10000 && clock() - t0 < CLOCKS_PER_SEC,
		   "10000 refusals of a 10^18-name range take %.3f s of CPU (no expansion)",
		   (double)(clock() - t0) / CLOCKS_PER_SEC);
	}

	ok_eq(nodelist_parse("n[1-1048576]", &nl, err, sizeof err), 0, "exactly NODELIST_MAX names are fine");
	ok(nl.count == NODELIST_MAX && strcmp(nl.names[NODELIST_MAX - 1], "n1048576") == 0 &&
	   strcmp(nl.names[9], "n10") == 0, "all of them, in order");
	{
		char buf[64];
		int n = nodelist_format(NAMES(nl), nl.count, buf, sizeof buf);

		ok(n == 12 && strcmp(buf, "n[1-1048576]") == 0, "and they format back to n[1-1048576]");
	}
	nodelist_free(&nl);
	ok_eq(nodelist_parse("n[1-1048575],m", &nl, err, sizeof err), 0,
	      "NODELIST_MAX across elements is fine");
	ok_eq(nl.count, NODELIST_MAX, "and counted");
	nodelist_free(&nl);
}

static void formatting(void)
{
	static const char *const run[] = {
		"node001", "node002", "node003", "node064", "node070", "node071",
		"login", "gpu7", "gpu8", "a1", "b1", "a2",
	};
	static const char *const pads[] = { "n8", "n9", "n10", "n08", "n09", "n010", "n011" };
	static const char *const mixed[] = { "n08", "n9", "n1", "n01", "n001" };
	static const char *const longnum[] = {
		"n0000000000000000000001", "n0000000000000000000002",	/* 22 digits: not numeric */
		"n999999999999999999", "n1000000000000000000",	/* 18, then 19 digits */
	};
	static const char *const empty_prefix[] = { "1", "2", "3", "x", "07" };
	const char *many[128];
	char names[128][16];
	char buf[64];
	int n;

	formats(run, 3, "node[001-003]");
	formats(run, 12, "node[001-003,064,070-071],login,gpu[7-8],a1,b1,a2");
	formats(pads, 7, "n[8-10,08-09,010-011]");
	formats(mixed, 5, "n[08,9,1,01,001]");
	formats(longnum, 4,
		"n0000000000000000000001,n0000000000000000000002,n999999999999999999,n1000000000000000000");
	formats(empty_prefix, 5, "[1-3],x,07");
	formats(run, 1, "node001");
	formats(run, 0, "");

	for (int i = 0; i < 128; i++) {
		snprintf(names[i], sizeof names[i], "node%03d", i < 64 ? i + 1 : i + 6);
		many[i] = names[i];
	}
	formats(many, 65, "node[001-064,070]");
	formats(many, 128, "node[001-064,070-133]");

	/* Truncation: the full length comes back, the buffer stays terminated. */
	memset(buf, 'x', sizeof buf);
	n = nodelist_format(run, 12, buf, 10);
	ok(n == 49 && strcmp(buf, "node[001-") == 0 && buf[10] == 'x',
	   "a 10-byte buffer gets 9 characters and a NUL, and the full length (%d)", n);
	ok_eq(nodelist_format(run, 12, NULL, 0), 49, "a NULL buffer of 0 bytes gives the length");
	n = nodelist_format(run, 12, buf, 1);
	ok(n == 49 && buf[0] == '\0', "a 1-byte buffer gets an empty string");
	{
		int cut_bad = 0;
		char whole[64];

		nodelist_format(run, 12, whole, sizeof whole);
		for (size_t len = 1; len <= 52; len++) {
			char small[64];

			memset(small, 'x', sizeof small);
			cut_bad += nodelist_format(run, 12, small, len) != 49 ||
				   strlen(small) != (len <= 49 ? len - 1 : 49) ||
				   strncmp(small, whole, strlen(small)) != 0 || small[len] != 'x';
		}
		ok_eq(cut_bad, 0, "every buffer size from 1 to 52 gives a terminated prefix, no overrun");
	}
}

static void round_trips(void)
{
	static const char *const canon[] = {
		"node[001-128]",
		"node[001-064,070]",
		"a[1-3,7],b05,c",
		"rack1-node[01-04]",
		"gpu7",
		"n[8-10]",
		"n[098-101,5,03-04]",
		"[1-3],x,07",
		"a-[1-2],b.c_d,e[10-11,13]",
		"n[1,3,2]",
		"x1,y1,x2",
	};
	for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++)
		compacts(canon[i], canon[i]);
	/* Not canonical: the equivalent canonical form comes out. */
	compacts("gpu[7]", "gpu7");
	compacts("n[1,2,3]", "n[1-3]");
	compacts("n1,n2,n3", "n[1-3]");
	compacts("n[1-2],n[3-4]", "n[1-4]");
	compacts("rack1[1-2]", "rack[11-12]");
	compacts("n[5-5]", "n5");
}

static unsigned seed = 2024;

static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245 + 12345;
	return (seed >> 8) % n;
}

/* Random lists of distinct names -> format -> parse gives the same list. */
static void random_round_trips(void)
{
	static const char *const prefixes[] = { "n", "node", "rack1-n", "a.b_c", "", "gpu-", "x0y", "Z" };
	static const char alphabet[] = "abcXYZ019._-";
	enum { ROUNDS = 1500, MAXN = 300 };
	static char names[MAXN][NODELIST_NAME_MAX + 1];
	const char *ptr[MAXN];
	int bad = 0, merged = 0;

	for (int r = 0; r < ROUNDS; r++) {
		unsigned count = 0, want = 1 + rnd(MAXN);
		char buf[MAXN * 70], err[256];
		struct nodelist nl;
		int len;

		while (count < want) {
			char cand[NODELIST_NAME_MAX + 1];
			unsigned kind = rnd(4), run = 1 + rnd(6);

			if (kind == 0) {	/* random characters */
				unsigned l = 1 + rnd(12);

				/* alphabet minus its last three ("._-") for the first
				 * character: a name may not begin with '-' or '.' */
				for (unsigned i = 0; i < l; i++)
					cand[i] = alphabet[rnd(sizeof alphabet - (i ? 1 : 4))];
				cand[l] = '\0';
				run = 1;
			}
			for (unsigned k = 0; k < run && count < want; k++) {
				if (kind != 0) {	/* a run of prefix + numbers, some padded */
					static unsigned long long v;
					static int width;

					if (k == 0) {
						v = rnd(4) == 0 ? 999999999999999990ULL + rnd(20) : rnd(1200);
						width = (int)rnd(5);
					} else if (rnd(5)) {
						v++;
					} else {
						v = rnd(1200);
					}
					if (v > 999999999999999999ULL)
						continue;
					snprintf(cand, sizeof cand, "%s%0*llu", prefixes[kind == 1 ? 0 : rnd(8)],
						 width, v);
				}
				int dup = 0;

				for (unsigned j = 0; j < count && !dup; j++)
					dup = strcmp(names[j], cand) == 0;
				if (dup)
					continue;
				strcpy(names[count], cand);
				ptr[count] = names[count];
				count++;
			}
		}
		len = nodelist_format(ptr, count, buf, sizeof buf);
		if (len < 0 || (size_t)len >= sizeof buf) {
			bad++;
			continue;
		}
		merged += strchr(buf, '[') != NULL;
		if (nodelist_parse(buf, &nl, err, sizeof err) != 0 || nl.count != count) {
			if (!bad)
				printf("#   '%s': %s\n", buf, err);
			bad++;
			nodelist_free(&nl);
			continue;
		}
		for (unsigned j = 0; j < count; j++)
			if (strcmp(nl.names[j], ptr[j]) != 0) {
				if (!bad)
					printf("#   '%s': name %u is %s, want %s\n", buf, j, nl.names[j], ptr[j]);
				bad++;
				break;
			}
		nodelist_free(&nl);
	}
	ok_eq(bad, 0, "%d random lists of distinct names survive format -> parse", ROUNDS);
	ok(merged > ROUNDS / 2, "and most of them had ranges to merge (%d)", merged);
}

static void leading_chars(void)
{
	struct nodelist nl;
	char err[256];
	static const char *const bad[] = { "-rf", "a,-b", ".", "..", ".hidden[1-2]", "x,../y" };

	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
		ok(nodelist_parse(bad[k], &nl, err, sizeof err) < 0 && strstr(err, "may not begin"),
		   "'%s' refused: %s", bad[k], err);
	ok(nodelist_parse("a-b.c_d[1-2]", &nl, err, sizeof err) == 0 && nl.count == 2,
	   "'-' and '.' inside a name are fine");
	nodelist_free(&nl);
}

int main(void)
{
	leading_chars();
	expansion();
	rejections();
	guards();
	formatting();
	round_trips();
	random_round_trips();
	return tap_done();
}
