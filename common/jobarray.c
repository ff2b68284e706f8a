/* Job arrays: -J name[SPEC]%K, job references, %J/%I paths; see jobarray.h.
 *
 * A spec is read once into its items (each an arithmetic run lo, lo+step,
 * .. hi), counting their elements without expanding them, so a hostile
 * [1-2147483647] is refused before anything of its size is allocated.
 * Only then are the indices written out. Items in increasing order that
 * do not overlap (the usual case) come out sorted and distinct as they
 * are; otherwise the indices are sorted and a repeat is looked for. */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "errf.h"
#include "decimal.h"
#include "jobarray.h"

#define QUOTE_MAX 24	/* input bytes shown in a message */
#define QBUF      (4 * QUOTE_MAX + 8)

/* One item of a spec: lo, lo + step, .., hi (hi is the last index it
 * gives, not necessarily the B the user wrote) and where its text is. */
struct item {
	uint32_t lo, hi, step;
	size_t start, end;
};

struct scan {
	const char *s;
	size_t len, pos;
	struct item *item;
	size_t nitems, capitems;
	uint64_t total;		/* elements of all items */
	char *err;
	size_t errlen, errpos;
};

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_blank(char c) { return c == ' ' || c == '\t'; }

__attribute__((format(printf, 3, 4)))
static int fail(struct scan *sc, size_t at, const char *fmt, ...)
{
	va_list ap;

	sc->errpos = at;
	if (sc->err && sc->errlen) {
		va_start(ap, fmt);
		vsnprintf(sc->err, sc->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The byte at i, or '\0' at the end. */
static char at(const struct scan *sc, size_t i)
{
	return i < sc->len ? sc->s[i] : '\0';
}

static void skip(struct scan *sc)
{
	while (is_blank(at(sc, sc->pos)))
		sc->pos++;
}

/* Input bytes for a message (errf_quote, blanks kept). out needs QBUF bytes. */
static const char *quote(char *out, const char *s, size_t n)
{
	return errf_quote(out, s, n, QUOTE_MAX, ERRF_KEEP_BLANK);
}

/* What is at i, for "expected X, not <this>". out needs QBUF bytes. */
static const char *token(const struct scan *sc, size_t i, char *out)
{
	if (i >= sc->len)
		return "the end";
	out[0] = '\'';
	quote(out + 1, sc->s + i, 1);
	strcat(out, "'");
	return out;
}

/* Digits at sc->pos, saturating (so an absurd number still reaches the
 * range check). Returns how many there were. */
static size_t digits(struct scan *sc, uint64_t *v)
{
	size_t start = sc->pos;

	*v = 0;
	for (; is_digit(at(sc, sc->pos)); sc->pos++) {
		unsigned d = (unsigned)(at(sc, sc->pos) - '0');

		*v = *v > (UINT64_MAX - d) / 10 ? UINT64_MAX : *v * 10 + d;
	}
	return sc->pos - start;
}

/* A number 1 .. JOBARRAY_INDEX_MAX at sc->pos (digits are there); what is
 * "index", "step" or "%K"; zero says why it is not valid. */
static int bounded(struct scan *sc, const char *what, const char *zero, uint32_t *out)
{
	size_t start = sc->pos;
	char q[QBUF];
	uint64_t v;

	digits(sc, &v);
	if (v == 0)
		return fail(sc, start, "%s 0 is not valid (%s)", what, zero);
	if (v > JOBARRAY_INDEX_MAX)
		return fail(sc, start, "%s %s is too large (at most %u)", what,
			    quote(q, sc->s + start, sc->pos - start), JOBARRAY_INDEX_MAX);
	*out = (uint32_t)v;
	return 0;
}

/* Where an item should start and no index is. */
static int no_item(struct scan *sc)
{
	char c = at(sc, sc->pos), q[QBUF];

	if (c == ',')
		return fail(sc, sc->pos, "empty item in the index list (as in [1,,2])");
	if (c == ']' && sc->nitems == 0)
		return fail(sc, sc->pos, "empty index list '[]'");
	if (c == ']')
		return fail(sc, sc->pos, "empty item in the index list (a ',' before ']')");
	if (c == '-')
		return fail(sc, sc->pos, "a range needs a start, as in [1-5]");
	if (c == ':')
		return fail(sc, sc->pos, "a step needs a range, as in [1-10:2]");
	if (sc->pos >= sc->len)
		return fail(sc, sc->pos, "missing ']'");
	return fail(sc, sc->pos, "expected an index, not %s", token(sc, sc->pos, q));
}

static bool item_ends(char c)
{
	return c == ',' || c == ']' || c == '\0';
}

static int add_item(struct scan *sc, const struct item *it)
{
	if (sc->nitems == sc->capitems) {
		size_t cap = sc->capitems ? 2 * sc->capitems : 16;
		struct item *t = realloc(sc->item, cap * sizeof *t);

		if (!t)
			return fail(sc, it->start, "out of memory");
		sc->item = t;
		sc->capitems = cap;
	}
	sc->item[sc->nitems++] = *it;
	sc->total += (uint64_t)(it->hi - it->lo) / it->step + 1;
	return 0;
}

/* N, A-B or A-B:STEP, blanks around. */
static int parse_item(struct scan *sc)
{
	struct item it = { .step = 1 };
	char q[QBUF];
	bool range = false;

	skip(sc);
	it.start = sc->pos;
	if (!is_digit(at(sc, sc->pos)))
		return no_item(sc);
	if (bounded(sc, "index", "indices start at 1", &it.lo) < 0)
		return -1;
	it.hi = it.lo;
	it.end = sc->pos;
	skip(sc);
	if (at(sc, sc->pos) == '-') {
		sc->pos++;
		skip(sc);
		if (item_ends(at(sc, sc->pos)))
			return fail(sc, sc->pos, "range '%s-' has no end",
				    quote(q, sc->s + it.start, it.end - it.start));
		if (!is_digit(at(sc, sc->pos)))
			return fail(sc, sc->pos, "expected the end of the range after '-', not %s",
				    token(sc, sc->pos, q));
		if (bounded(sc, "index", "indices start at 1", &it.hi) < 0)
			return -1;
		if (it.hi < it.lo)
			return fail(sc, it.start, "range %s goes backwards",
				    quote(q, sc->s + it.start, sc->pos - it.start));
		it.end = sc->pos;
		range = true;
		skip(sc);
	}
	if (at(sc, sc->pos) == ':') {
		if (!range)
			return fail(sc, sc->pos, "a step needs a range, as in [1-10:2]");
		sc->pos++;
		skip(sc);
		if (!is_digit(at(sc, sc->pos)))
			return fail(sc, sc->pos, "expected a step after ':', not %s",
				    token(sc, sc->pos, q));
		if (bounded(sc, "step", "a step is at least 1", &it.step) < 0)
			return -1;
		it.end = sc->pos;
		/* The last index the run reaches; B itself may be skipped. */
		it.hi = it.lo + (it.hi - it.lo) / it.step * it.step;
	}
	return add_item(sc, &it);
}

/* [ item (, item)* ] at sc->pos; leaves sc->pos after ']'. */
static int parse_spec(struct scan *sc)
{
	size_t open = sc->pos;
	char q[QBUF];

	sc->pos++;
	for (;;) {
		if (parse_item(sc) < 0)
			return -1;
		skip(sc);
		if (at(sc, sc->pos) == ',') {
			sc->pos++;
			continue;
		}
		if (at(sc, sc->pos) == ']')
			break;
		if (sc->pos >= sc->len)
			return fail(sc, sc->pos, "missing ']' for the '[' at column %zu", open + 1);
		return fail(sc, sc->pos, "expected ',' or ']' after an item, not %s",
			    token(sc, sc->pos, q));
	}
	sc->pos++;
	if (sc->total > JOBARRAY_MAX)
		return fail(sc, open, "the array would have %" PRIu64 " elements, more than %u",
			    sc->total, JOBARRAY_MAX);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static bool item_has(const struct item *it, uint32_t v)
{
	return v >= it->lo && v <= it->hi && (v - it->lo) % it->step == 0;
}

/* The first two items, in the order written, that give v. */
static int repeated(struct scan *sc, uint32_t v)
{
	const struct item *first = NULL;
	char q1[QBUF], q2[QBUF];

	for (size_t k = 0; k < sc->nitems; k++) {
		const struct item *it = &sc->item[k];

		if (!item_has(it, v))
			continue;
		if (!first) {
			first = it;
			continue;
		}
		return fail(sc, it->start, "index %" PRIu32 " is listed twice (in '%s' and in '%s')",
			    v, quote(q1, sc->s + first->start, first->end - first->start),
			    quote(q2, sc->s + it->start, it->end - it->start));
	}
	return fail(sc, 0, "index %" PRIu32 " is listed twice", v);	/* not reached */
}

/* Every index of the items, ascending and distinct, into a new array. */
static int expand(struct scan *sc, uint32_t **out)
{
	/* total <= JOBARRAY_MAX: no overflow of the size. */
	uint32_t *idx = malloc((size_t)sc->total * sizeof *idx);
	bool sorted = true;
	size_t n = 0;

	if (!idx)
		return fail(sc, 0, "out of memory for %" PRIu64 " indices", sc->total);
	for (size_t k = 0; k < sc->nitems; k++) {
		const struct item *it = &sc->item[k];

		if (k && it->lo <= sc->item[k - 1].hi)
			sorted = false;
		for (uint32_t v = it->lo;; v += it->step) {
			idx[n++] = v;
			if (v == it->hi)
				break;
		}
	}
	if (!sorted) {
		qsort(idx, n, sizeof *idx, cmp_u32);
		for (size_t k = 1; k < n; k++) {
			if (idx[k] == idx[k - 1]) {
				uint32_t v = idx[k];

				free(idx);
				return repeated(sc, v);
			}
		}
	}
	*out = idx;
	return 0;
}

static int check_length(struct scan *sc)
{
	if (sc->len > JOBARRAY_TEXT_MAX)
		return fail(sc, JOBARRAY_TEXT_MAX, "longer than %d bytes", JOBARRAY_TEXT_MAX);
	return 0;
}

/* The name, s[0, n): no control characters, no ']', not too long. */
static int check_name(struct scan *sc, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)sc->s[i] < 0x20 || sc->s[i] == 0x7f)
			return fail(sc, i, "control character \\x%02x in the job name",
				    (unsigned char)sc->s[i]);
		if (sc->s[i] == ']')
			return fail(sc, i, "']' without '['");
	}
	if (n > JOBARRAY_NAME_MAX)
		return fail(sc, 0, "job name of %zu bytes, more than %d", n, JOBARRAY_NAME_MAX);
	return 0;
}

/* %K after the ']', if any, and then the end. */
static int parse_cap(struct scan *sc, uint32_t *cap)
{
	char q[QBUF];

	*cap = 0;
	if (at(sc, sc->pos) == '%') {
		sc->pos++;
		if (!is_digit(at(sc, sc->pos)))
			return fail(sc, sc->pos, "expected a number after '%%' (the most elements "
				    "running at once), not %s", token(sc, sc->pos, q));
		if (bounded(sc, "%K", "it would run no element at all: K is at least 1", cap) < 0)
			return -1;
		if (sc->pos < sc->len)
			return fail(sc, sc->pos, "unexpected %s after %%K", token(sc, sc->pos, q));
		return 0;
	}
	if (sc->pos < sc->len)
		return fail(sc, sc->pos, "unexpected %s after ']' (only %%K may follow, as in "
			    "name[1-10]%%2)", token(sc, sc->pos, q));
	return 0;
}

static int parse_array(struct scan *sc, struct jobarray *out)
{
	const char *bracket;
	size_t n;

	if (check_length(sc) < 0)
		return -1;
	bracket = memchr(sc->s, '[', sc->len);
	n = bracket ? (size_t)(bracket - sc->s) : sc->len;
	if (check_name(sc, n) < 0)
		return -1;
	if (!bracket && n == 0)
		return fail(sc, 0, "empty job name");
	if (bracket) {
		sc->pos = n;
		if (parse_spec(sc) < 0 || parse_cap(sc, &out->cap) < 0 ||
		    expand(sc, &out->index) < 0)
			return -1;
		out->count = (uint32_t)sc->total;
		out->is_array = true;
	}
	out->name = malloc(n + 1);
	if (!out->name)
		return fail(sc, 0, "out of memory");
	memcpy(out->name, sc->s, n);
	out->name[n] = '\0';
	return 0;
}

int jobarray_parse(const char *s, struct jobarray *out, char *err, size_t errlen,
		   size_t *errpos)
{
	struct scan sc = { .s = s ? s : "", .err = err, .errlen = errlen };
	int rc;

	*out = (struct jobarray){ 0 };
	sc.len = strnlen(sc.s, JOBARRAY_TEXT_MAX + 1);
	rc = parse_array(&sc, out);
	free(sc.item);
	if (rc < 0)
		jobarray_free(out);
	if (errpos)
		*errpos = rc < 0 ? sc.errpos : 0;
	return rc;
}

void jobarray_free(struct jobarray *a)
{
	if (!a)
		return;
	free(a->name);
	free(a->index);
	*a = (struct jobarray){ 0 };
}

static int parse_ref(struct scan *sc, struct jobref *out)
{
	char q[QBUF];
	uint64_t v;

	if (check_length(sc) < 0)
		return -1;
	if (sc->len == 0)
		return fail(sc, 0, "empty job reference");
	if (digits(sc, &v) == 0)
		return fail(sc, 0, "expected a job id (as in 123 or 123[1-5]), not %s",
			    token(sc, 0, q));
	if (v == 0)
		return fail(sc, 0, "job id 0 is not valid (ids start at 1)");
	if (v > INT64_MAX)
		return fail(sc, 0, "job id %s is too large (at most %" PRId64 ")",
			    quote(q, sc->s, sc->pos), INT64_MAX);
	out->id = v;
	if (sc->pos == sc->len)
		return 0;
	if (at(sc, sc->pos) != '[')
		return fail(sc, sc->pos, "unexpected %s after the job id (use ID or ID[1-5,9])",
			    token(sc, sc->pos, q));
	if (parse_spec(sc) < 0)
		return -1;
	if (sc->pos < sc->len)
		return fail(sc, sc->pos, "unexpected %s after ']'", token(sc, sc->pos, q));
	if (expand(sc, &out->index) < 0)
		return -1;
	out->count = (uint32_t)sc->total;
	return 0;
}

int jobref_parse(const char *s, struct jobref *out, char *err, size_t errlen, size_t *errpos)
{
	struct scan sc = { .s = s ? s : "", .err = err, .errlen = errlen };
	int rc;

	*out = (struct jobref){ 0 };
	sc.len = strnlen(sc.s, JOBARRAY_TEXT_MAX + 1);
	rc = parse_ref(&sc, out);
	free(sc.item);
	if (rc < 0)
		jobref_free(out);
	if (errpos)
		*errpos = rc < 0 ? sc.errpos : 0;
	return rc;
}

void jobref_free(struct jobref *r)
{
	if (!r)
		return;
	free(r->index);
	*r = (struct jobref){ 0 };
}

/* ---- printing ---- */

/* snprintf-style output: counts everything, stores what fits. */
struct out {
	char *buf;
	size_t len, pos;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len && o->pos < o->len - 1) {
		size_t room = o->len - 1 - o->pos;

		memcpy(o->buf + o->pos, s, n < room ? n : room);
	}
	o->pos += n;
}

static void put_u32(struct out *o, uint32_t v)
{
	char num[16];

	put(o, num, decimal_put(num, v, 0));
}

int jobarray_format_spec(const uint32_t *index, uint32_t count, uint32_t cap, char *buf,
			 size_t len)
{
	struct out o = { .buf = buf, .len = len };
	uint32_t i = 0;

	if (count)
		put(&o, "[", 1);
	while (i < count) {
		uint32_t j = i, d = 0;

		/* The longest run from i with one step d. */
		if (i + 1 < count && index[i + 1] > index[i]) {
			d = index[i + 1] - index[i];
			for (j = i + 1; j + 1 < count && index[j + 1] > index[j] &&
			     index[j + 1] - index[j] == d; j++)
				;
		}
		if (i)
			put(&o, ",", 1);
		put_u32(&o, index[i]);
		/* Two in a row read better as A-B; two with a gap do not. */
		if (j > i && (d == 1 || j - i >= 2)) {
			put(&o, "-", 1);
			put_u32(&o, index[j]);
			if (d > 1) {
				put(&o, ":", 1);
				put_u32(&o, d);
			}
			i = j + 1;
		} else {
			i++;
		}
	}
	if (count)
		put(&o, "]", 1);
	if (count && cap) {
		put(&o, "%", 1);
		put_u32(&o, cap);
	}
	if (len)
		buf[o.pos < len ? o.pos : len - 1] = '\0';
	return o.pos > INT_MAX ? -1 : (int)o.pos;
}

int jobarray_subst(const char *pattern, uint64_t id, uint32_t index, char *out, size_t outlen)
{
	char num_id[24], num_ix[16];
	size_t o = 0;

	if (outlen == 0)
		return -1;
	num_id[decimal_put(num_id, id, 0)] = '\0';
	num_ix[decimal_put(num_ix, index, 0)] = '\0';
	for (const char *p = pattern; *p; p++) {
		const char *v = p;
		size_t n = 1;

		if (p[0] == '%' && (p[1] == 'J' || p[1] == 'I' || p[1] == '%')) {
			v = p[1] == 'J' ? num_id : p[1] == 'I' ? num_ix : "%";
			n = strlen(v);
			p++;
		}
		/* Room for v and the NUL. */
		if (n >= outlen - o || o + n > INT_MAX) {
			out[0] = '\0';
			return -1;
		}
		memcpy(out + o, v, n);
		o += n;
	}
	out[o] = '\0';
	return (int)o;
}
