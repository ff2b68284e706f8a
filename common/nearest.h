/* The nearest of a list of names to a misspelled one, for "did you mean"
 * hints (an unknown key in backfilld.yaml). */
#ifndef BF_NEAREST_H
#define BF_NEAREST_H
#include <stddef.h>

/* Levenshtein distance between a (alen bytes) and b (NUL-terminated):
 * insertions, deletions and substitutions of one byte each. Names longer
 * than NEAREST_MAX_LEN count as far from everything (SIZE_MAX). */
#define NEAREST_MAX_LEN 64
size_t nearest_distance(const char *a, size_t alen, const char *b);

/* The name in names[0..n) closest to word, or NULL when none is close
 * enough to be a likely typo: at most 2 edits, and no more than a third of
 * the longer one's length ("polcy" and "polciy" suggest policy; "spol"
 * suggests spool, "id" nothing).
 * The first of equally near names wins. */
const char *nearest_name(const char *word, size_t len, const char *const *names, size_t n);

#endif
