/* Node lists: expand hostlist expressions and compact them; see nodelist.h.
 *
 * Parsing is two passes of one scanner over the text. The first validates
 * and only counts names and bytes, refusing more than NODELIST_MAX names
 * before anything is allocated; the second writes every name into one
 * block sized exactly. Duplicates are found by a stable merge sort of the
 * indices (O(n log n) whatever the input, unlike a hash an adversary could
 * fill with collisions). */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "decimal.h"
#include "errf.h"
#include "nodelist.h"

#define QUOTE_MAX 40	/* characters of input shown in a message */

/* Where the scanner puts names: nowhere while counting (names == NULL). */
struct builder {
	char **names;
	char *next;		/* where the next name's bytes go */
	uint64_t count;
	uint64_t bytes;		/* sum of name lengths + NULs */
};

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
	       c == '.' || c == '_' || c == '-';
}

/* Input text for a message (errf_quote). out needs 4 * QUOTE_MAX + 4 bytes. */
static const char *quote(char *out, const char *s, size_t n)
{
	return errf_quote(out, s, n, QUOTE_MAX, 0);
}

/* One character for a message: 'x', or \xNN (the end of the text is
 * \x00). out needs 8 bytes. */
static const char *show(char *out, char c)
{
	quote(out + 1, &c, 1);
	if (out[1] == '\\')
		return out + 1;
	out[0] = out[2] = '\'';
	out[3] = '\0';
	return out;
}

static unsigned ndigits(uint64_t v)
{
	unsigned n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Room for k more names? Checked before any are counted or written. */
static int room(const struct builder *b, uint64_t k, char *err, size_t errlen)
{
	if (k > NODELIST_MAX - b->count)
		return errf(err, errlen, "more than %u nodes in the list", NODELIST_MAX);
	return 0;
}

static int add_name(struct builder *b, const char *name, size_t len, char *err, size_t errlen)
{
	char q[4 * QUOTE_MAX + 4];

	if (len > NODELIST_NAME_MAX)
		return errf(err, errlen, "node name '%s' has %zu bytes, more than %d",
			    quote(q, name, len), len, NODELIST_NAME_MAX);
	if (room(b, 1, err, errlen) < 0)
		return -1;
	if (b->names) {
		b->names[b->count] = b->next;
		memcpy(b->next, name, len);
		b->next[len] = '\0';
		b->next += len + 1;
	}
	b->count++;
	b->bytes += len + 1;
	return 0;
}

/* prefix + every number of lo..hi, zero-padded to width. */
static int add_range(struct builder *b, const char *pre, size_t plen, uint64_t lo, uint64_t hi,
		     unsigned width, char *err, size_t errlen)
{
	unsigned dmax = ndigits(hi) > width ? ndigits(hi) : width;

	if (plen + dmax > NODELIST_NAME_MAX) {
		char name[NODELIST_NAME_MAX + 24], q[4 * QUOTE_MAX + 4];
		size_t n = plen > NODELIST_NAME_MAX ? NODELIST_NAME_MAX + 1 : plen;

		memcpy(name, pre, n);
		if (plen <= NODELIST_NAME_MAX)
			n += decimal_put(name + n, hi, width);
		return errf(err, errlen, "node name '%s' has %zu bytes, more than %d",
			    quote(q, name, n), plen + dmax, NODELIST_NAME_MAX);
	}
	if (room(b, hi - lo + 1, err, errlen) < 0)
		return -1;
	if (!b->names) {
		/* Count the bytes by bands of equal digit count. */
		for (uint64_t v = lo; ; ) {
			unsigned d = ndigits(v);
			uint64_t band_end = hi;

			if (d < 19) {
				uint64_t top = 1;

				for (unsigned i = 0; i < d; i++)
					top *= 10;
				if (top - 1 < hi)
					band_end = top - 1;
			}
			b->bytes += (band_end - v + 1) * (plen + (d > width ? d : width) + 1);
			if (band_end == hi)
				break;
			v = band_end + 1;
		}
		b->count += hi - lo + 1;
		return 0;
	}
	for (uint64_t v = lo; ; v++) {
		size_t n;

		b->names[b->count++] = b->next;
		memcpy(b->next, pre, plen);
		n = plen + decimal_put(b->next + plen, v, width);
		b->next[n] = '\0';
		b->next += n + 1;
		if (v == hi)
			break;
	}
	return 0;
}

/* A bracket number: at most NODELIST_NUM_DIGITS digits, leading zeros kept
 * in *width. Returns the digit count (0 if there is no number). */
static int bracket_number(const char **p, uint64_t *v, unsigned *width, char *err, size_t errlen)
{
	const char *s = *p;
	char q[4 * QUOTE_MAX + 4];
	size_t n = 0;

	*v = 0;
	while (is_digit(s[n]))
		n++;
	if (n > NODELIST_NUM_DIGITS)
		return errf(err, errlen, "number '%s' in brackets has more than %d digits",
			    quote(q, s, n), NODELIST_NUM_DIGITS);
	for (size_t i = 0; i < n; i++)
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	*width = (unsigned)n;
	*p = s + n;
	return (int)n;
}

/* What is wrong where a number was wanted inside brackets; where is ""
 * or " after '-'". */
static int no_number(const char *p, const char *where, char *err, size_t errlen)
{
	char c[8];

	if (*p == '[')
		return errf(err, errlen, "nested brackets are not supported");
	if (*p == '\0')
		return errf(err, errlen, "missing ']'");
	if (*p == ',' || *p == ']')
		return errf(err, errlen, "empty element in brackets (as in [1,,2] or [])");
	return errf(err, errlen, "expected a number%s in brackets, not %s", where, show(c, *p));
}

/* The bracket group after a prefix; *p is just past '['. */
static int scan_brackets(const char **pp, const char *pre, size_t plen, struct builder *b,
			 char *err, size_t errlen)
{
	const char *p = *pp;
	char c[8], q1[4 * QUOTE_MAX + 4], q2[4 * QUOTE_MAX + 4];

	if (*p == ']')
		return errf(err, errlen, "empty brackets '[]'");
	for (;;) {
		const char *lo_s = p, *hi_s;
		uint64_t lo, hi;
		unsigned width, hw;
		int n = bracket_number(&p, &lo, &width, err, errlen);

		if (n < 0)
			return -1;
		if (n == 0 && *p == '-')
			return errf(err, errlen, "a range in brackets has no start (as in [-3])");
		if (n == 0)
			return no_number(p, "", err, errlen);
		hi = lo;
		if (*p == '-') {
			p++;
			hi_s = p;
			n = bracket_number(&p, &hi, &hw, err, errlen);
			if (n < 0)
				return -1;
			if (n == 0 && (*p == ',' || *p == ']' || *p == '\0'))
				return errf(err, errlen, "range '%s-' has no end",
					    quote(q1, lo_s, (size_t)(hi_s - 1 - lo_s)));
			if (n == 0)
				return no_number(p, " after '-'", err, errlen);
			if (hi < lo)
				return errf(err, errlen, "range '%s-%s' goes backwards",
					    quote(q1, lo_s, (size_t)(hi_s - 1 - lo_s)),
					    quote(q2, hi_s, (size_t)(p - hi_s)));
		}
		if (add_range(b, pre, plen, lo, hi, width, err, errlen) < 0)
			return -1;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == ']')
			break;
		if (*p == '\0')
			return errf(err, errlen, "missing ']'");
		if (*p == '[')
			return errf(err, errlen, "nested brackets are not supported");
		return errf(err, errlen, "unexpected %s in brackets (expected ',', '-' or ']')",
			    show(c, *p));
	}
	p++;	/* ']' */
	if (*p == ']')
		return errf(err, errlen, "']' without '['");
	for (const char *q = p; *q && *q != ','; q++)
		if (*q == '[')
			return errf(err, errlen, "only one [...] group per name is supported");
	if (*p && *p != ',')
		return errf(err, errlen, "text after ']' is not supported (a [...] group must end the name)");
	*pp = p;
	return 0;
}

/* The whole list, counting (b->names == NULL) or writing. */
static int scan(const char *s, struct builder *b, char *err, size_t errlen)
{
	const char *p = s;
	char c[8];

	if (!*p)
		return errf(err, errlen, "empty node list");
	for (;;) {
		const char *pre = p;
		size_t plen;

		while (name_char(*p))
			p++;
		plen = (size_t)(p - pre);
		/* Names end up in the environment and on command lines (a
		 * site's remote shell): nothing that reads as an option or a
		 * relative path. */
		if (plen && (pre[0] == '-' || pre[0] == '.'))
			return errf(err, errlen, "a node name may not begin with '%c'", pre[0]);
		if (*p == '[') {
			p++;
			if (scan_brackets(&p, pre, plen, b, err, errlen) < 0)
				return -1;
		} else if (*p == ']') {
			return errf(err, errlen, "']' without '['");
		} else if (*p && *p != ',') {
			return errf(err, errlen,
				    "character %s is not allowed in a node name (only A-Z a-z 0-9 . _ -)",
				    show(c, *p));
		} else if (plen == 0) {
			return errf(err, errlen, "empty name in node list (check the commas)");
		} else if (add_name(b, pre, plen, err, errlen) < 0) {
			return -1;
		}
		if (!*p)
			return 0;
		p++;	/* ',' */
	}
}

/* Stable merge sort of indices by name. */
static void sort_idx(uint32_t *a, uint32_t *tmp, uint32_t n, char *const *names)
{
	for (uint32_t w = 1; w < n; w *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * w) {
			uint32_t mid = lo + w < n ? lo + w : n;
			uint32_t hi = mid + w < n ? mid + w : n;
			uint32_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				tmp[k++] = strcmp(names[a[j]], names[a[i]]) < 0 ? a[j++] : a[i++];
			while (i < mid)
				tmp[k++] = a[i++];
			while (j < hi)
				tmp[k++] = a[j++];
		}
		memcpy(a, tmp, (size_t)n * sizeof *a);
	}
}

/* The first index (in list order) whose name appeared before, or -1;
 * -2 if memory ran out. */
static int64_t first_repeat(char *const *names, uint32_t n)
{
	uint32_t *idx = malloc((size_t)n * sizeof *idx), *tmp = malloc((size_t)n * sizeof *tmp);
	int64_t best = -1;

	if (!idx || !tmp) {
		free(idx);
		free(tmp);
		return -2;
	}
	for (uint32_t i = 0; i < n; i++)
		idx[i] = i;
	sort_idx(idx, tmp, n, names);
	/* Stable: equal names keep list order, so each later one is a repeat. */
	for (uint32_t k = 1; k < n; k++)
		if (strcmp(names[idx[k]], names[idx[k - 1]]) == 0 && (best < 0 || idx[k] < best))
			best = idx[k];
	free(idx);
	free(tmp);
	return best;
}

int nodelist_parse(const char *s, struct nodelist *out, char *err, size_t errlen)
{
	struct builder b = { 0 };
	size_t ptrs;
	int64_t rep;
	char q[4 * QUOTE_MAX + 4];

	out->names = NULL;
	out->count = 0;
	if (!s)
		return errf(err, errlen, "empty node list");
	if (scan(s, &b, err, errlen) < 0)
		return -1;
	/* count <= 2^20 names of <= 64 bytes: no size_t overflow. */
	ptrs = (size_t)b.count * sizeof(char *);
	b.names = malloc(ptrs + (size_t)b.bytes);
	if (!b.names)
		return errf(err, errlen, "out of memory for %llu node names", (unsigned long long)b.count);
	b.next = (char *)b.names + ptrs;
	b.count = 0;
	b.bytes = 0;
	if (scan(s, &b, err, errlen) < 0) {	/* cannot fail: the same text passed */
		free(b.names);
		return -1;
	}
	rep = first_repeat(b.names, (uint32_t)b.count);
	if (rep != -1) {
		if (rep == -2)
			errf(err, errlen, "out of memory checking %llu node names for repeats",
			     (unsigned long long)b.count);
		else
			errf(err, errlen, "node '%s' is listed twice",
			     quote(q, b.names[rep], strlen(b.names[rep])));
		free(b.names);
		return -1;
	}
	out->names = b.names;
	out->count = (uint32_t)b.count;
	return 0;
}

void nodelist_free(struct nodelist *nl)
{
	if (!nl)
		return;
	free(nl->names);
	nl->names = NULL;
	nl->count = 0;
}

/* snprintf-style output: counts everything, stores what fits. */
struct out {
	char *buf;
	size_t len, pos;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len && o->pos < o->len - 1) {
		size_t room_left = o->len - 1 - o->pos;

		memcpy(o->buf + o->pos, s, n < room_left ? n : room_left);
	}
	o->pos += n;
}

/* A name split into prefix and numeric tail (trailing digits, 1 to
 * NODELIST_NUM_DIGITS of them); numeric is false otherwise. */
struct split {
	const char *name;
	size_t len, plen;	/* whole name, prefix */
	uint64_t value;
	bool numeric;
};

static struct split split_name(const char *name)
{
	struct split x = { .name = name, .len = strlen(name) };
	size_t d = 0;

	while (d < x.len && is_digit(name[x.len - 1 - d]))
		d++;
	x.plen = x.len - d;
	x.numeric = d >= 1 && d <= NODELIST_NUM_DIGITS;
	for (size_t i = x.plen; x.numeric && i < x.len; i++)
		x.value = x.value * 10 + (uint64_t)(name[i] - '0');
	return x;
}

static bool same_prefix(const struct split *a, const struct split *b)
{
	return a->numeric && b->numeric && a->plen == b->plen && memcmp(a->name, b->name, a->plen) == 0;
}

/* b continues a range that started with width w and has reached a: the
 * next number, printed in the range's padding exactly as b writes it. */
static bool continues(const struct split *a, const struct split *b, size_t w)
{
	size_t d = b->len - b->plen, nd = ndigits(b->value);

	return b->value == a->value + 1 && d == (nd > w ? nd : w);
}

int nodelist_format(const char *const *names, uint32_t count, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };
	uint32_t i = 0;

	while (i < count) {
		struct split first = split_name(names[i]), prev, cur;
		uint32_t j = i + 1;

		if (i)
			put(&o, ",", 1);
		/* The group: adjacent names with the same prefix and a number. */
		if (first.numeric) {
			while (j < count) {
				cur = split_name(names[j]);
				if (!same_prefix(&first, &cur))
					break;
				j++;
			}
		}
		if (j - i == 1) {
			put(&o, first.name, first.len);
			i = j;
			continue;
		}
		put(&o, first.name, first.plen);
		put(&o, "[", 1);
		for (uint32_t k = i; k < j; ) {
			struct split start = split_name(names[k]);
			size_t w = start.len - start.plen;
			uint32_t e = k + 1;

			prev = start;
			while (e < j && (cur = split_name(names[e]), continues(&prev, &cur, w))) {
				prev = cur;
				e++;
			}
			if (k > i)
				put(&o, ",", 1);
			put(&o, start.name + start.plen, w);
			if (e - k > 1) {
				put(&o, "-", 1);
				put(&o, prev.name + prev.plen, prev.len - prev.plen);
			}
			k = e;
		}
		put(&o, "]", 1);
		i = j;
	}
	if (len)
		buf[o.pos < len ? o.pos : len - 1] = '\0';
	return o.pos > INT_MAX ? -1 : (int)o.pos;
}
