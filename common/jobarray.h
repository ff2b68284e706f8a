/* Job arrays as LSF writes them: the -J argument name[SPEC]%K, a job
 * reference as bkill and bq take it (123, 123[7], 123[1-5,9]), and the
 * %J / %I substitution of -o and -e paths.
 *
 * The grammar that jobarray_parse() accepts:
 *
 *   NAME                  a plain job name: not an array (bsub -J plain)
 *   NAME[SPEC]            an array of the indices SPEC lists
 *   NAME[SPEC]%K          the same, with at most K elements running at once
 *
 *   NAME is everything before the first '['. A plain name is 1 to
 *   JOBARRAY_NAME_MAX bytes; an array's name may also be empty ("[1-10]"
 *   is an array without a name, listed by its id). A name has no control
 *   characters (below 0x20, and 0x7f) and no ']'; anything else goes,
 *   blanks included, and a '%' in a plain name is just a character
 *   ("run%2" is the plain name run%2: %K belongs to arrays only).
 *
 *   SPEC is one or more items separated by ',':
 *     N          the index N
 *     A-B        A, A+1, .., B (A <= B)
 *     A-B:STEP   A, A+STEP, .. up to B (STEP >= 1; B need not be reached)
 *   Indices are 1 to JOBARRAY_INDEX_MAX, decimal (leading zeros are
 *   fine). Blanks (space, tab) may go around items and around '-', ':' and
 *   ',' ([1, 2, 3] as in LSF's examples). An index listed twice, by two
 *   items or overlapping ranges, is refused, naming it and both items (LSF
 *   wants unique indices, and a repeat is most likely a typing mistake).
 *   Items may come in any order; the result is sorted.
 *
 *   K is 1 to JOBARRAY_INDEX_MAX (a K above the array's size limits
 *   nothing). Nothing may follow ']' but %K.
 *
 *   At most JOBARRAY_MAX elements: the total is counted before anything is
 *   allocated, so [1-2147483647] is refused at once, the message giving
 *   the count. The whole text is at most JOBARRAY_TEXT_MAX bytes.
 *
 * jobref_parse() takes ID, ID[SPEC] with ID 1 .. 2^63-1 (decimal, no
 * blanks around it) and SPEC as above, nothing after ']'.
 *
 * Note for dependencies (depexpr.h): -w names a job by name unquoted only
 * with A-Z a-z 0-9 _ - . + : / @, and quoted with anything but control
 * characters, brackets, '*' and its own quote; a job name with '*', or
 * with both quote characters, cannot be named there. */
#ifndef BF_JOBARRAY_H
#define BF_JOBARRAY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JOBARRAY_MAX       1000000u	/* elements in one array */
#define JOBARRAY_INDEX_MAX 2147483647u	/* highest index, and highest %K */
#define JOBARRAY_NAME_MAX  511		/* bytes in a name, without the NUL */
#define JOBARRAY_TEXT_MAX  4096		/* bytes of a -J argument or reference */

/* A parsed -J argument. name is NUL-terminated ("" for an array without a
 * name). index[0..count) are the indices, ascending and distinct; NULL
 * and 0 when !is_array. cap is %K, 0 for none. */
struct jobarray {
	char *name;
	uint32_t *index;
	uint32_t count;
	uint32_t cap;
	bool is_array;
};

/* A parsed job reference: the job id and, for ID[SPEC], the indices
 * (ascending, distinct); index NULL and count 0 for a whole job. */
struct jobref {
	uint64_t id;
	uint32_t *index;
	uint32_t count;
};

/* Parse a -J argument (grammar above). Returns 0, or -1 with a one-line
 * reason in err (err may be NULL), *out empty (safe to free), and, when
 * errpos is not NULL, *errpos the 0-based byte offset the reason is about.
 * Out of memory is -1 too. Time is linear in the text and the element
 * count, plus a sort when items are out of order or overlap. */
int  jobarray_parse(const char *s, struct jobarray *out, char *err, size_t errlen,
		    size_t *errpos);
void jobarray_free(struct jobarray *a);	/* NULL is fine; leaves it empty */

/* Parse a job reference (see above); as jobarray_parse(). */
int  jobref_parse(const char *s, struct jobref *out, char *err, size_t errlen, size_t *errpos);
void jobref_free(struct jobref *r);

/* The compact text of an index list, as a -J argument's tail: "[SPEC]",
 * then "%K" when cap > 0; "" when count is 0. index[] must be ascending
 * and distinct (as parsed). Runs of consecutive indices become A-B, runs
 * of three or more with an equal step above 1 become A-B:STEP, and the
 * rest single indices: [1-99:2,105] for 1, 3, .., 99, 105 (a run ends at
 * its last index: [1-100:2] prints as [1-99:2]). For such a
 * list, jobarray_parse("x" + text) gives the same indices and cap back.
 * Like snprintf: returns the length the full text needs (-1 if over
 * INT_MAX), writes at most len bytes, always NUL-terminated when len > 0;
 * buf may be NULL when len is 0. */
int  jobarray_format_spec(const uint32_t *index, uint32_t count, uint32_t cap, char *buf,
			  size_t len);

/* An -o, -e or -i path with LSF's substitutions: %J is the job id, %I the
 * array index (pass 0 for a job that is not an array element, as LSF
 * writes 0), and %% a single '%' (so a path can hold "%J" literally as
 * "%%J"). Any other '%' is kept as it is. Returns the length written to
 * out (NUL-terminated), or -1 if the result does not fit in outlen bytes
 * with its NUL (pass PATH_MAX for a path) -- out is then "" when outlen >
 * 0. */
int  jobarray_subst(const char *pattern, uint64_t id, uint32_t index, char *out, size_t outlen);

#endif
