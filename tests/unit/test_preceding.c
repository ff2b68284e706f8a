/* SWF field 17 resolved to the line of the preceding job. */
#include <stdint.h>
#include <stdlib.h>
#include "preceding.h"
#include "../tap.h"

#define N(a) (sizeof (a) / sizeof (a)[0])

/* No line names a predecessor: every one is NONE (the common case). */
static void test_none(void)
{
	const int64_t num[] = { 1, 2, 3 }, want[] = { -1, 0, -1 };
	uint32_t pred[3];

	ok(preceding_resolve(num, want, N(num), pred) == 0, "no predecessor: resolves");
	ok(pred[0] == PRECEDING_NONE && pred[1] == PRECEDING_NONE && pred[2] == PRECEDING_NONE,
	   "field 17 of -1 or 0 names no job");
	ok(preceding_resolve(NULL, NULL, 0, NULL) == 0, "an empty trace resolves");
}

/* A chain, a fork, forward and self references, an unknown number. */
static void test_kinds(void)
{
	const int64_t num[]  = { 10, 11, 12, 13, 14, 15, 16 };
	const int64_t want[] = { -1, 10, 11, 10, 16, 15, 99 };
	uint32_t pred[N(num)];

	ok(preceding_resolve(num, want, N(num), pred) == 0, "kinds: resolves");
	ok_eq(pred[1], 0, "11 follows 10 (line 0)");
	ok_eq(pred[2], 1, "12 follows 11 (line 1): a chain");
	ok_eq(pred[3], 0, "13 follows 10 too: two jobs may follow one");
	ok(pred[4] == PRECEDING_UNKNOWN, "14 names 16, a later line: no job");
	ok(pred[5] == PRECEDING_UNKNOWN, "15 names itself: no job");
	ok(pred[6] == PRECEDING_UNKNOWN, "16 names 99, no line's number: no job");
}

/* Duplicate numbers: the latest earlier line with the number. */
static void test_duplicates(void)
{
	const int64_t num[]  = { 5, 6, 5, 7, 5 };
	const int64_t want[] = { -1, 5, -1, 5, 5 };
	uint32_t pred[N(num)];

	ok(preceding_resolve(num, want, N(num), pred) == 0, "duplicates: resolves");
	ok_eq(pred[1], 0, "line 1 names 5: line 0, the only 5 before it");
	ok_eq(pred[3], 2, "line 3 names 5: line 2, the latest 5 before it");
	ok_eq(pred[4], 2, "line 4 (itself a 5) names 5: line 2, not itself");
}

/* Unsorted job numbers resolve as well as sorted ones. */
static void test_unsorted(void)
{
	const int64_t num[]  = { 30, 10, 20, 40 };
	const int64_t want[] = { -1, 30, 40, 20 };
	uint32_t pred[N(num)];

	ok(preceding_resolve(num, want, N(num), pred) == 0, "unsorted numbers: resolves");
	ok(pred[1] == 0 && pred[2] == PRECEDING_UNKNOWN && pred[3] == 2,
	   "unsorted numbers: 10 -> line 0, 20 -> none (40 comes later), 40 -> line 2");
}

/* Many lines: each names the one before it; the last but one names line 0. */
static void test_many(void)
{
	enum { M = 100000 };
	int64_t *num = malloc(M * sizeof *num), *want = malloc(M * sizeof *want);
	uint32_t *pred = malloc(M * sizeof *pred);
	size_t bad = 0;

	if (!num || !want || !pred) {
		ok(0, "many: memory");
		goto out;
	}
	for (size_t i = 0; i < M; i++) {
		num[i] = (int64_t)(M - i);	/* descending numbers */
		want[i] = i ? (int64_t)(M - i + 1) : -1;
	}
	want[M - 2] = M;
	ok(preceding_resolve(num, want, M, pred) == 0, "many: resolves");
	for (size_t i = 1; i < M; i++)
		bad += pred[i] != (i == M - 2 ? 0 : i - 1);
	ok_eq(bad, 0, "many: every line found its predecessor");
out:
	free(num);
	free(want);
	free(pred);
}

int main(void)
{
	test_none();
	test_kinds();
	test_duplicates();
	test_unsorted();
	test_many();
	return tap_done();
}
