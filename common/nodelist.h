/* Node lists: the hostlist expressions Slurm users know, expanded and
 * compacted.
 *
 * The grammar that nodelist_parse() accepts:
 *
 *   A list is one or more elements separated by commas; each element is a
 *   plain name (gpu7, login-1) or a prefix followed by one bracket group,
 *   node[001-128], that expands to one name per number:
 *
 *     a[1-3,7],b05,c      ->  a1 a2 a3 a7 b05 c
 *     rack1-node[01-04]   ->  rack1-node01 .. rack1-node04
 *     node[8-10]          ->  node8 node9 node10
 *     node[098-100]       ->  node098 node099 node100
 *
 *   Inside the brackets: one or more comma-separated numbers N or ranges
 *   N-M with N <= M, each number at most NODELIST_NUM_DIGITS digits. A
 *   range is zero-padded to the width of its first number as written
 *   ([001-128] gives 001..128, [8-10] gives 8, 9, 10). The prefix may be
 *   empty ([1-3] gives 1 2 3).
 *
 *   Names use only A-Z a-z 0-9 . _ - and are 1 to NODELIST_NAME_MAX bytes.
 *   Only one bracket group per element, at its end: nested brackets
 *   (a[1-[2-3]]), two groups (a[1-2]b[3-4]) and text after the group
 *   (a[1-2]-ib) are rejected. Also rejected: an empty list or element
 *   (a,,b, a trailing comma), empty brackets, backward or open ranges
 *   ([5-3], [1-], [a-b]), unbalanced brackets, a name listed twice (the
 *   message names the first repeat in list order), and more than
 *   NODELIST_MAX names in all (counted before anything is expanded, so
 *   n[0-999999999] fails at once and allocates nothing). No spaces.
 *
 * nodelist_format() writes the canonical form: each maximal run of
 * adjacent names with the same prefix and a numeric tail (its trailing
 * digits, at most NODELIST_NUM_DIGITS of them) becomes prefix[...], where
 * consecutive numbers that print in the padding of the range's first
 * number make one range (node001..node064 + node070 -> node[001-064,070];
 * n8 n9 n10 -> n[8-10]; n08 n9 -> n[08,9]); a run of one is written as
 * the plain name; everything else is written as is, comma-joined, in the
 * order given (nothing is sorted). For canonical x, the format of
 * parse(x) is x, and for any list of distinct valid names, parse(format())
 * gives the same list back. */
#ifndef BF_NODELIST_H
#define BF_NODELIST_H
#include <stddef.h>
#include <stdint.h>

#define NODELIST_MAX        1048576u	/* names in one list */
#define NODELIST_NAME_MAX   63		/* bytes in a name, without the NUL */
#define NODELIST_NUM_DIGITS 18		/* digits in a bracket number */

/* The expanded names, in order. names[] and the strings it points to are
 * one allocation (pointers first, then the NUL-terminated strings): do not
 * free or grow single names; nodelist_free() releases it all. Pass names
 * to nodelist_format() as (const char *const *)list.names. */
struct nodelist {
	char **names;
	uint32_t count;
};

/* Expand an expression. Returns 0, or -1 with a one-line reason in err
 * (err may be NULL) and *out empty ({NULL, 0}, safe to free). Time is
 * linear in the input and output, plus O(n log n) for the duplicate check;
 * memory is the names themselves plus 8 bytes per name while checking. */
int  nodelist_parse(const char *s, struct nodelist *out, char *err, size_t errlen);
void nodelist_free(struct nodelist *nl);

/* The canonical compact form of names[0..count) (see above). Like
 * snprintf: returns the length the full text needs (-1 if over INT_MAX),
 * writes at most len bytes, always NUL-terminated when len > 0, so a short
 * buffer gets a cut (but safe) prefix of the text; buf may be NULL when
 * len is 0. */
int  nodelist_format(const char *const *names, uint32_t count, char *buf, size_t len);

#endif
