/* Resolving SWF field 17 (see preceding.h). */
#include <stdlib.h>
#include "preceding.h"

struct numbered {
	int64_t num;
	uint32_t line;
};

/* By job number, then by line: the lines of one number in file order. */
static int by_num_line(const void *a, const void *b)
{
	const struct numbered *x = a, *y = b;

	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The index in s[0..n) of the last entry before (num, line) in
 * by_num_line's order, or n if there is none. */
static size_t last_before(const struct numbered *s, size_t n, int64_t num, uint32_t line)
{
	size_t lo = 0, hi = n;	/* the first entry not before (num, line) is in [lo, hi] */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].num < num || (s[mid].num == num && s[mid].line < line))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : n;
}

int preceding_resolve(const int64_t *num, const int64_t *want, size_t n, uint32_t *pred)
{
	struct numbered *s;
	size_t k;

	/* Most traces name no predecessor at all: no sort for them. */
	for (k = 0; k < n && want[k] <= 0; k++)
		pred[k] = PRECEDING_NONE;
	if (k == n)
		return 0;
	if (!(s = malloc(n * sizeof *s)))
		return -1;
	for (size_t i = 0; i < n; i++)
		s[i] = (struct numbered){ num[i], (uint32_t)i };
	qsort(s, n, sizeof *s, by_num_line);
	for (size_t i = k; i < n; i++) {
		size_t at;

		if (want[i] <= 0) {
			pred[i] = PRECEDING_NONE;
			continue;
		}
		at = last_before(s, n, want[i], (uint32_t)i);
		pred[i] = at < n && s[at].num == want[i] ? s[at].line : PRECEDING_UNKNOWN;
	}
	free(s);
	return 0;
}
