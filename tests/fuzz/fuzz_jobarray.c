/* libFuzzer target for common/jobarray.c: -J arguments, job references,
 * the compact spec text and %J/%I substitution.
 *
 * Every check failure calls abort(), so libFuzzer reports it as a crash
 * with the input saved. The input, up to its first NUL, is one string in
 * a heap block of exactly its size (so AddressSanitizer sees any
 * over-read), and goes through:
 *
 *  - jobarray_parse, against an independent model of jobarray.h's grammar
 *    (same accept or refuse; same name, kind, cap and indices); a refusal
 *    leaves the result empty and points within the text (at
 *    JOBARRAY_TEXT_MAX for a longer one), with a one-line reason and the
 *    same answer for err NULL and a 1-byte err buffer;
 *  - jobref_parse, against the model likewise;
 *  - jobarray_format_spec of every accepted list: snprintf rules
 *    (exact-size buffers, cuts, len 0), and "x" + the text parses back to
 *    the same indices and cap;
 *  - jobarray_subst with the input as the pattern, a pseudo-random id,
 *    index and buffer size, against a model of the substitution. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jobarray.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) check_failed(#cond, __LINE__); } while (0)

static void check_failed(const char *what, int line)
{
	fprintf(stderr, "fuzz_jobarray.c:%d: check failed: %s\n", line, what);
	abort();
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* ---- the model ---- */

struct model {
	bool ok, is_array;
	size_t name_len;
	uint32_t cap;
	uint64_t id;
	uint32_t *idx;
	size_t n;
};

static bool digit(char c) { return c >= '0' && c <= '9'; }

/* A run of digits at s[*i] as a value; more than 19 significant digits
 * (10^19 and up: too large for anything here) is UINT64_MAX. Returns false
 * if there is no digit. */
static bool model_number(const char *s, size_t len, size_t *i, uint64_t *v)
{
	size_t start = *i, sig = 0;
	uint64_t x = 0;

	while (*i < len && digit(s[*i])) {
		if (sig || s[*i] != '0')
			sig++;
		if (sig && sig <= 19)
			x = x * 10 + (unsigned)(s[*i] - '0');
		(*i)++;
	}
	*v = sig > 19 ? UINT64_MAX : x;
	return *i > start;
}

static void model_blanks(const char *s, size_t len, size_t *i)
{
	while (*i < len && (s[*i] == ' ' || s[*i] == '\t'))
		(*i)++;
}

static bool in_range(uint64_t v) { return v >= 1 && v <= JOBARRAY_INDEX_MAX; }

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* s[*i] is just past '['; reads to just past ']'. Items are kept as
 * (lo, hi, step) and expanded only when the total is within bounds. */
static bool model_spec(const char *s, size_t len, size_t *i, struct model *m)
{
	uint64_t lo[JOBARRAY_TEXT_MAX], hi[JOBARRAY_TEXT_MAX], step[JOBARRAY_TEXT_MAX];
	size_t items = 0;
	uint64_t total = 0;	/* at most 2048 items of 2^31: no overflow */

	for (;;) {
		uint64_t a, b, st = 1;

		model_blanks(s, len, i);
		if (!model_number(s, len, i, &a) || !in_range(a))
			return false;
		b = a;
		model_blanks(s, len, i);
		if (*i < len && s[*i] == '-') {
			(*i)++;
			model_blanks(s, len, i);
			if (!model_number(s, len, i, &b) || !in_range(b) || b < a)
				return false;
			model_blanks(s, len, i);
			if (*i < len && s[*i] == ':') {
				(*i)++;
				model_blanks(s, len, i);
				if (!model_number(s, len, i, &st) || !in_range(st))
					return false;
				model_blanks(s, len, i);
			}
		}
		lo[items] = a;
		hi[items] = b;
		step[items] = st;
		items++;
		total += (b - a) / st + 1;
		if (*i < len && s[*i] == ',') {
			(*i)++;
			continue;
		}
		if (*i < len && s[*i] == ']')
			break;
		return false;
	}
	(*i)++;
	if (total > JOBARRAY_MAX)
		return false;
	m->idx = xmalloc((size_t)total * sizeof *m->idx);
	for (size_t k = 0; k < items; k++)
		for (uint64_t v = lo[k]; v <= hi[k]; v += step[k])
			m->idx[m->n++] = (uint32_t)v;
	qsort(m->idx, m->n, sizeof *m->idx, cmp_u32);
	for (size_t k = 1; k < m->n; k++)
		if (m->idx[k] == m->idx[k - 1])
			return false;
	return true;
}

static void model_array(const char *s, size_t len, struct model *m)
{
	const char *br;
	size_t i;
	uint64_t k;

	memset(m, 0, sizeof *m);
	if (len > JOBARRAY_TEXT_MAX)
		return;
	br = memchr(s, '[', len);
	m->name_len = br ? (size_t)(br - s) : len;
	if (m->name_len > JOBARRAY_NAME_MAX)
		return;
	for (i = 0; i < m->name_len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || s[i] == ']')
			return;
	if (!br) {
		m->ok = m->name_len > 0;
		return;
	}
	m->is_array = true;
	i = m->name_len + 1;
	if (!model_spec(s, len, &i, m))
		return;
	if (i < len) {
		if (s[i] != '%')
			return;
		i++;
		if (!model_number(s, len, &i, &k) || !in_range(k) || i != len)
			return;
		m->cap = (uint32_t)k;
	}
	m->ok = true;
}

static void model_ref(const char *s, size_t len, struct model *m)
{
	size_t i = 0;

	memset(m, 0, sizeof *m);
	if (len > JOBARRAY_TEXT_MAX)
		return;
	if (!model_number(s, len, &i, &m->id) || m->id == 0 || m->id > INT64_MAX)
		return;
	if (i == len) {
		m->ok = true;
		return;
	}
	if (s[i] != '[')
		return;
	i++;
	m->ok = model_spec(s, len, &i, m) && i == len;
}

/* ---- checks ---- */

static void check_list(const uint32_t *idx, uint32_t n, const struct model *m)
{
	CHECK(n == m->n);
	CHECK(n == 0 ? idx == NULL : memcmp(idx, m->idx, n * sizeof *idx) == 0);
	for (uint32_t i = 1; i < n; i++)
		CHECK(idx[i] > idx[i - 1]);
}

/* "x" + format_spec(list) parses back to the same list and cap. */
static void check_format(const uint32_t *idx, uint32_t n, uint32_t cap, uint64_t h)
{
	int len = jobarray_format_spec(idx, n, cap, NULL, 0);
	char *buf, *cut;
	struct jobarray back;
	char err[256];
	size_t c;

	CHECK(len >= 3);
	buf = xmalloc((size_t)len + 2);
	buf[0] = 'x';
	CHECK(jobarray_format_spec(idx, n, cap, buf + 1, (size_t)len + 1) == len);
	CHECK(strlen(buf + 1) == (size_t)len && buf[1] == '[');
	c = 1 + h % (size_t)len;
	cut = xmalloc(c);
	CHECK(jobarray_format_spec(idx, n, cap, cut, c) == len);
	CHECK(strlen(cut) == c - 1 && memcmp(cut, buf + 1, c - 1) == 0);
	free(cut);
	if (len + 1 <= JOBARRAY_TEXT_MAX) {
		if (jobarray_parse(buf, &back, err, sizeof err, NULL) != 0) {
			fprintf(stderr, "'%s' is refused: %s\n", buf, err);
			abort();
		}
		CHECK(back.is_array && back.count == n && back.cap == cap &&
		      memcmp(back.index, idx, n * sizeof *idx) == 0);
		jobarray_free(&back);
	}
	free(buf);
}

static void check_refusal(const char *s, size_t len, const char *err, size_t errpos, bool ref)
{
	char small[1] = { 'Q' };
	size_t pos2 = 777;

	CHECK(err[0] && !strchr(err, '\n'));
	CHECK(errpos <= len);
	if (len > JOBARRAY_TEXT_MAX)
		CHECK(errpos == JOBARRAY_TEXT_MAX);
	if (ref) {
		struct jobref r;

		CHECK(jobref_parse(s, &r, NULL, 0, &pos2) == -1 && pos2 == errpos);
		CHECK(jobref_parse(s, &r, small, 1, NULL) == -1 && small[0] == '\0');
		CHECK(r.id == 0 && !r.index && r.count == 0);
	} else {
		struct jobarray a;

		CHECK(jobarray_parse(s, &a, NULL, 0, &pos2) == -1 && pos2 == errpos);
		CHECK(jobarray_parse(s, &a, small, 1, NULL) == -1 && small[0] == '\0');
		CHECK(!a.name && !a.index && a.count == 0 && a.cap == 0 && !a.is_array);
	}
}

static void check_array(const char *s, size_t len, uint64_t h)
{
	struct jobarray a;
	struct model m;
	char err[256] = "";
	size_t errpos = 555;
	int rc = jobarray_parse(s, &a, err, sizeof err, &errpos);

	model_array(s, len, &m);
	if (rc != (m.ok ? 0 : -1)) {
		fprintf(stderr, "jobarray_parse %d, model %d: %s\n", rc, m.ok, err);
		abort();
	}
	if (rc < 0) {
		CHECK(!a.name && !a.index && a.count == 0 && a.cap == 0 && !a.is_array);
		check_refusal(s, len, err, errpos, false);
	} else {
		CHECK(errpos == 0 && a.name && strlen(a.name) == m.name_len &&
		      memcmp(a.name, s, m.name_len) == 0);
		CHECK(a.is_array == m.is_array && a.cap == m.cap);
		check_list(a.index, a.count, &m);
		if (a.is_array)
			check_format(a.index, a.count, a.cap, h);
		jobarray_free(&a);
		CHECK(!a.name && !a.index && a.count == 0);
	}
	free(m.idx);
}

static void check_ref(const char *s, size_t len)
{
	struct jobref r;
	struct model m;
	char err[256] = "";
	size_t errpos = 555;
	int rc = jobref_parse(s, &r, err, sizeof err, &errpos);

	model_ref(s, len, &m);
	if (rc != (m.ok ? 0 : -1)) {
		fprintf(stderr, "jobref_parse %d, model %d: %s\n", rc, m.ok, err);
		abort();
	}
	if (rc < 0) {
		check_refusal(s, len, err, errpos, true);
	} else {
		CHECK(errpos == 0 && r.id == m.id);
		check_list(r.index, r.count, &m);
		jobref_free(&r);
	}
	free(m.idx);
}

static void check_subst(const char *s, size_t len, uint64_t h)
{
	uint64_t id = mix(h) >> (mix(h + 1) % 64);
	uint32_t index = (uint32_t)(mix(h + 2) % ((uint64_t)JOBARRAY_INDEX_MAX + 1));
	char num_id[24], num_ix[16], *want = xmalloc(len * 10 + 1), *out;
	size_t w = 0, outlen = mix(h + 3) % (len * 3 + 8);
	int rc;

	snprintf(num_id, sizeof num_id, "%llu", (unsigned long long)id);
	snprintf(num_ix, sizeof num_ix, "%u", index);
	for (size_t i = 0; i < len; i++) {
		const char *v = NULL;

		if (s[i] == '%' && i + 1 < len)
			v = s[i + 1] == 'J' ? num_id : s[i + 1] == 'I' ? num_ix : s[i + 1] == '%' ? "%" : NULL;
		if (v) {
			memcpy(want + w, v, strlen(v));
			w += strlen(v);
			i++;
		} else {
			want[w++] = s[i];
		}
	}
	want[w] = '\0';
	out = xmalloc(outlen);
	if (outlen)
		out[0] = 'Q';
	rc = jobarray_subst(s, id, index, out, outlen);
	if (w < outlen)
		CHECK(rc == (int)w && strcmp(out, want) == 0);
	else
		CHECK(rc == -1 && (outlen == 0 || out[0] == '\0'));
	free(out);
	free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = strnlen((const char *)data, size);
	char *s = xmalloc(len + 1);
	uint64_t h = 1469598103934665603ull;

	memcpy(s, data, len);
	s[len] = '\0';
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 1099511628211ull;
	check_array(s, len, h);
	check_ref(s, len);
	check_subst(s, len, h);
	free(s);
	return 0;
}
