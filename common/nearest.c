/* Edit distance for "did you mean" (see nearest.h). Names are short keys,
 * so the plain two-row dynamic programme is enough. */
#include <stdint.h>
#include <string.h>
#include "nearest.h"

size_t nearest_distance(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b), prev[NEAREST_MAX_LEN + 1], cur[NEAREST_MAX_LEN + 1];

	if (alen > NEAREST_MAX_LEN || blen > NEAREST_MAX_LEN)
		return SIZE_MAX;
	for (size_t j = 0; j <= blen; j++)
		prev[j] = j;
	for (size_t x = 1; x <= alen; x++) {
		cur[0] = x;
		for (size_t j = 1; j <= blen; j++) {
			size_t sub = prev[j - 1] + (a[x - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (blen + 1) * sizeof *prev);
	}
	return prev[blen];
}

const char *nearest_name(const char *word, size_t len, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;

	for (size_t k = 0; k < n; k++) {
		size_t d = nearest_distance(word, len, names[k]), longer = strlen(names[k]);

		if (len > longer)
			longer = len;
		/* 2 edits at most, and no more than a third of the name: a
		 * short word two edits from a short key is another word. */
		if (d <= 2 && 3 * d <= longer && d < best_d) {
			best = names[k];
			best_d = d;
		}
	}
	return best;
}
