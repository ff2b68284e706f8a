/* libFuzzer target for common/depexpr.c: parse, print, evaluate.
 *
 * Every check failure calls abort(), so libFuzzer reports it as a crash
 * with the input saved. Per input (copied to a heap block of exactly its
 * size, so that AddressSanitizer sees any over-read):
 *
 *  - a refusal: *out NULL, errpos within the text, a one-line reason; the
 *    same answer and place with err NULL and with a 1-byte err buffer;
 *    a text over DEPEXPR_MAX_LEN bytes is refused at DEPEXPR_MAX_LEN;
 *  - an accepted tree: the bounds (atoms, lengths, indices, codes) and the
 *    shape of each atom; the canonical text fits DEPEXPR_MAX_LEN, prints
 *    like snprintf (exact-size heap buffers, cuts, len 0), parses back to
 *    an equal tree and prints the same again;
 *  - evaluation with pseudo-random atom values against an independent
 *    oracle: a shunting-yard evaluator over the tokens of the input text
 *    and of the canonical text (Kleene: && is the least, || the greatest
 *    of F < U < T), each atom asked once in order; refining an UNKNOWN
 *    atom never changes a definite result;
 *  - the marked text: each atom's mark in order, and without the marks it
 *    is the canonical text;
 *  - dep_atom_value on pseudo-random job facts against its definition as
 *    the && of one value per job (an empty set: FALSE for done and exit,
 *    TRUE for ended and started). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "depexpr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) check_failed(#cond, __LINE__); } while (0)

static void check_failed(const char *what, int line)
{
	fprintf(stderr, "fuzz_depexpr.c:%d: check failed: %s\n", line, what);
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

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/* ---- atom values ---- */

struct vals {
	enum dep_value v[DEPEXPR_MAX_ATOMS];
	size_t calls;		/* how many times the callback ran */
	bool in_order;
};

static enum dep_value give(const struct dep_atom *a, size_t i, void *arg)
{
	struct vals *s = arg;

	(void)a;
	if (i != s->calls)
		s->in_order = false;
	s->calls++;
	CHECK(i < DEPEXPR_MAX_ATOMS);
	return s->v[i];
}

/* Kleene order F < U < T as 0, 1, 2. */
static int rank(enum dep_value v) { return v == DEP_FALSE ? 0 : v == DEP_UNKNOWN ? 1 : 2; }

static enum dep_value unrank(int r)
{
	return r == 0 ? DEP_FALSE : r == 1 ? DEP_UNKNOWN : DEP_TRUE;
}

/* ---- the oracle: tokens of an accepted text, shunting-yard ---- */

enum tok { T_ATOM, T_AND, T_OR, T_NOT, T_LP, T_RP };

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.' || c == '+' || c == ':' || c == '/' || c == '@';
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Past a quoted string starting at s[i]. */
static size_t skip_quoted(const char *s, size_t n, size_t i)
{
	char q = s[i];

	for (i++; i < n && s[i] != q; i++)
		;
	CHECK(i < n);
	return i + 1;
}

/* The tokens of a text the parser accepted; returns how many. Lax on
 * purpose: the text is known to be valid, only its structure is read.
 * ends, if not NULL, gets the offset just past each atom. */
static size_t tokenize(const char *s, size_t n, enum tok *t, size_t *ends)
{
	size_t natoms = 0;

	size_t i = 0, k = 0;

	while (i < n) {
		if (blank(s[i])) {
			i++;
		} else if (s[i] == '&' || s[i] == '|') {
			CHECK(i + 1 < n && s[i + 1] == s[i]);
			t[k++] = s[i] == '&' ? T_AND : T_OR;
			i += 2;
		} else if (s[i] == '!' || s[i] == '(' || s[i] == ')') {
			t[k++] = s[i] == '!' ? T_NOT : s[i] == '(' ? T_LP : T_RP;
			i++;
		} else if (s[i] == '"' || s[i] == '\'') {
			t[k++] = T_ATOM;
			i = skip_quoted(s, n, i);
			if (ends)
				ends[natoms] = i;
			natoms++;
		} else {
			size_t j = i, after;

			CHECK(word_char(s[i]));
			while (j < n && word_char(s[j]))
				j++;
			for (after = j; after < n && blank(s[after]); after++)
				;
			if (after < n && s[after] == '(' && !(s[i] >= '0' && s[i] <= '9')) {
				/* kind( ... ): to the ')' outside quotes. */
				for (j = after + 1; j < n && s[j] != ')';)
					j = s[j] == '"' || s[j] == '\'' ? skip_quoted(s, n, j) : j + 1;
				CHECK(j < n);
				j++;
			} else if (j < n && s[j] == '[') {
				while (j < n && s[j] != ']')
					j++;
				CHECK(j < n);
				j++;
			}
			t[k++] = T_ATOM;
			i = j;
			if (ends)
				ends[natoms] = i;
			natoms++;
		}
	}
	return k;
}

static int prec(enum tok t) { return t == T_NOT ? 3 : t == T_AND ? 2 : t == T_OR ? 1 : 0; }

/* Apply one operator from the operator stack to the value stack. */
static void apply(enum tok op, int *val, size_t *nv)
{
	if (op == T_NOT) {
		CHECK(*nv >= 1);
		val[*nv - 1] = 2 - val[*nv - 1];
		return;
	}
	CHECK(*nv >= 2);
	if (op == T_AND)
		val[*nv - 2] = val[*nv - 2] < val[*nv - 1] ? val[*nv - 2] : val[*nv - 1];
	else
		val[*nv - 2] = val[*nv - 2] > val[*nv - 1] ? val[*nv - 2] : val[*nv - 1];
	(*nv)--;
}

/* The Kleene value of an accepted text, atoms taking v[] in order. */
static enum dep_value oracle_eval(const char *s, size_t n, const enum dep_value *v, size_t natoms)
{
	enum tok *t = xmalloc((n + 1) * sizeof *t), *ops = xmalloc((n + 1) * sizeof *ops);
	int *val = xmalloc((n + 1) * sizeof *val);
	size_t nt = tokenize(s, n, t, NULL), no = 0, nv = 0, atom = 0;

	for (size_t i = 0; i < nt; i++) {
		switch (t[i]) {
		case T_ATOM:
			CHECK(atom < natoms);
			val[nv++] = rank(v[atom++]);
			break;
		case T_LP:
		case T_NOT:
			/* ! is prefix and right-associative: just stacked. */
			ops[no++] = t[i];
			break;
		case T_RP:
			while (no && ops[no - 1] != T_LP)
				apply(ops[--no], val, &nv);
			CHECK(no);
			no--;
			break;
		case T_AND:
		case T_OR:
			while (no && ops[no - 1] != T_LP && prec(ops[no - 1]) >= prec(t[i]))
				apply(ops[--no], val, &nv);
			ops[no++] = t[i];
			break;
		}
	}
	while (no) {
		CHECK(ops[no - 1] != T_LP);
		apply(ops[--no], val, &nv);
	}
	CHECK(nv == 1 && atom == natoms);
	{
		enum dep_value r = unrank(val[0]);

		free(t);
		free(ops);
		free(val);
		return r;
	}
}

/* ---- checks of an accepted tree ---- */

static void check_atoms(const struct depexpr *e)
{
	size_t n = depexpr_natoms(e);

	CHECK(n >= 1 && n <= DEPEXPR_MAX_ATOMS);
	CHECK(depexpr_atom(e, n) == NULL);
	for (size_t i = 0; i < n; i++) {
		const struct dep_atom *a = depexpr_atom(e, i);

		CHECK(a && (int)a->kind >= DEP_DONE && a->kind <= DEP_STARTED);
		CHECK(a->index == -1 || (a->index >= 1 && a->index <= DEPEXPR_INDEX_MAX));
		if (a->kind == DEP_EXIT)
			CHECK((int)a->cmp >= DEP_CMP_ANY && a->cmp <= DEP_CMP_GE &&
			      a->code >= 0 && a->code <= 255 && (a->cmp != DEP_CMP_ANY || a->code == 0));
		else
			CHECK(a->cmp == DEP_CMP_ANY && a->code == 0);
		if (a->by_name) {
			size_t len;

			CHECK(a->name && a->id == 0);
			len = strlen(a->name);
			CHECK(len >= 1 && len <= DEPEXPR_NAME_MAX);
			CHECK(!(strchr(a->name, '"') && strchr(a->name, '\'')));
			for (size_t k = 0; k < len; k++)
				CHECK((unsigned char)a->name[k] >= 0x20 && a->name[k] != 0x7f &&
				      a->name[k] != '[' && a->name[k] != ']' && a->name[k] != '*');
		} else {
			CHECK(!a->name && a->id >= 1 && a->id <= INT64_MAX);
		}
	}
}

/* The canonical text in an exact-size heap block; checks snprintf rules. */
static char *canonical(const struct depexpr *e, uint64_t h)
{
	int n = depexpr_format(e, NULL, 0);
	char *buf, *cut;
	size_t c;

	CHECK(n > 0 && n <= DEPEXPR_MAX_LEN);
	buf = xmalloc((size_t)n + 1);
	CHECK(depexpr_format(e, buf, (size_t)n + 1) == n && strlen(buf) == (size_t)n);
	/* A cut: a NUL-terminated prefix, nothing written past len. */
	c = 1 + h % (size_t)n;
	cut = xmalloc(c);
	CHECK(depexpr_format(e, cut, c) == n);
	CHECK(strlen(cut) == c - 1 && memcmp(cut, buf, c - 1) == 0);
	free(cut);
	return buf;
}

/* The marked text is the canonical text with each atom's mark inserted
 * just after the atom (the oracle's tokenizer says where atoms end). */
static void check_marked(const struct depexpr *e, const char *canon, const struct vals *sv)
{
	static const char *const mark[] = { " [never]", " [met]", " [waiting]" };
	struct vals s = *sv;
	size_t len = strlen(canon), natoms = depexpr_natoms(e), o = 0, from = 0;
	size_t *ends = xmalloc(natoms * sizeof *ends);
	enum tok *t = xmalloc((len + 1) * sizeof *t);
	char *buf, *want;
	int n;

	CHECK(tokenize(canon, len, t, ends) >= natoms);
	s.calls = 0;
	s.in_order = true;
	n = depexpr_format_marked(e, give, &s, NULL, 0);
	CHECK(n > 0 && n <= DEPEXPR_MARKED_MAX && s.calls == natoms && s.in_order);
	buf = xmalloc((size_t)n + 1);
	want = xmalloc(len + natoms * 16 + 1);
	CHECK(depexpr_format_marked(e, give, &s, buf, (size_t)n + 1) == n);
	for (size_t k = 0; k < natoms; k++) {
		memcpy(want + o, canon + from, ends[k] - from);
		o += ends[k] - from;
		from = ends[k];
		memcpy(want + o, mark[s.v[k]], strlen(mark[s.v[k]]));
		o += strlen(mark[s.v[k]]);
	}
	memcpy(want + o, canon + from, len - from + 1);
	CHECK(strcmp(buf, want) == 0);
	free(ends);
	free(t);
	free(buf);
	free(want);
}

static void check_eval(const struct depexpr *e, const char *in, size_t in_len, const char *canon,
		       uint64_t h)
{
	struct vals s = { .in_order = true };
	size_t n = depexpr_natoms(e);
	enum dep_value r, o1, o2;

	for (size_t i = 0; i < n; i++)
		s.v[i] = (enum dep_value)(mix(h + i) % 3);
	r = depexpr_eval(e, give, &s);
	CHECK(s.calls == n && s.in_order);
	o1 = oracle_eval(in, in_len, s.v, n);
	o2 = oracle_eval(canon, strlen(canon), s.v, n);
	if (r != o1 || r != o2) {
		fprintf(stderr, "eval %d, oracle on the input %d, on the canonical text %d\n",
			r, o1, o2);
		abort();
	}
	/* Refining an UNKNOWN never changes a definite value. */
	for (size_t i = 0; i < n; i++) {
		if (s.v[i] != DEP_UNKNOWN)
			continue;
		s.v[i] = mix(h ^ i) & 1 ? DEP_TRUE : DEP_FALSE;
		s.calls = 0;
		if (r != DEP_UNKNOWN)
			CHECK(depexpr_eval(e, give, &s) == r);
		else
			r = depexpr_eval(e, give, &s);
	}
	check_marked(e, canon, &s);
}

/* ---- dep_atom_value against its definition ---- */

static enum dep_value one_job(const struct dep_atom *a, const struct dep_fact *f)
{
	bool ended = f->ended || f->done;
	bool match;

	switch (a->kind) {
	case DEP_DONE:
		return f->done ? DEP_TRUE : ended ? DEP_FALSE : DEP_UNKNOWN;
	case DEP_EXIT:
		if (f->done)
			return DEP_FALSE;
		if (!ended)
			return DEP_UNKNOWN;
		if (a->cmp == DEP_CMP_ANY)
			return DEP_TRUE;
		if (f->exit_code < 0)
			return DEP_FALSE;
		switch (a->cmp) {
		case DEP_CMP_EQ: match = f->exit_code == a->code; break;
		case DEP_CMP_NE: match = f->exit_code != a->code; break;
		case DEP_CMP_LT: match = f->exit_code < a->code; break;
		case DEP_CMP_LE: match = f->exit_code <= a->code; break;
		case DEP_CMP_GT: match = f->exit_code > a->code; break;
		default: match = f->exit_code >= a->code; break;
		}
		return match ? DEP_TRUE : DEP_FALSE;
	case DEP_ENDED:
		return ended ? DEP_TRUE : DEP_UNKNOWN;
	case DEP_STARTED:
		return ended || f->started ? DEP_TRUE : DEP_UNKNOWN;
	}
	abort();
}

static void check_atom_values(const struct depexpr *e, uint64_t h)
{
	struct dep_fact f[8];

	for (size_t i = 0; i < depexpr_natoms(e) && i < 16; i++) {
		const struct dep_atom *a = depexpr_atom(e, i);
		uint64_t r = mix(h + 1000 + i);
		size_t n = r % 9;
		int want = n ? 2 : a->kind == DEP_DONE || a->kind == DEP_EXIT ? 0 : 2;

		for (size_t j = 0; j < n; j++) {
			uint64_t x = mix(r + j);

			f[j].started = x & 1;
			f[j].ended = x & 2;
			f[j].done = (x & 12) == 12;	/* sometimes without ended: done implies it */
			f[j].exit_code = (int)((x >> 8) % 260) - 1;
			if (f[j].exit_code > 255)
				f[j].exit_code = (int)((x >> 20) % 3);
			{
				int v = rank(one_job(a, &f[j]));

				want = v < want ? v : want;
			}
		}
		CHECK(dep_atom_value(a, f, n) == unrank(want));
	}
}

/* ---- the entry point ---- */

static void check_refusal(const char *in, size_t size, const char *err, size_t errpos)
{
	struct depexpr *e = (struct depexpr *)&e;
	size_t pos2 = 12345;
	char small[1] = { 'Q' };

	CHECK(errpos <= size && err[0] && !strchr(err, '\n'));
	if (size > DEPEXPR_MAX_LEN)
		CHECK(errpos == DEPEXPR_MAX_LEN);
	CHECK(depexpr_parse(in, size, &e, NULL, 0, &pos2) == -1 && e == NULL && pos2 == errpos);
	CHECK(depexpr_parse(in, size, &e, small, 1, NULL) == -1 && small[0] == '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = xmalloc(size), err[256];
	struct depexpr *e = (struct depexpr *)&err, *back = NULL;
	size_t errpos = 99999;
	uint64_t h = hash_bytes(data, size);
	char *canon;

	if (size)
		memcpy(in, data, size);
	err[0] = '\0';
	if (depexpr_parse(in, size, &e, err, sizeof err, &errpos) < 0) {
		CHECK(e == NULL);
		check_refusal(in, size, err, errpos);
		free(in);
		return 0;
	}
	CHECK(e && errpos == 0 && size <= DEPEXPR_MAX_LEN);
	check_atoms(e);
	canon = canonical(e, h);
	if (depexpr_parse(canon, strlen(canon), &back, err, sizeof err, &errpos) < 0) {
		fprintf(stderr, "the canonical text '%s' is refused at %zu: %s\n", canon, errpos, err);
		abort();
	}
	CHECK(depexpr_equal(e, back) && depexpr_equal(back, e));
	{
		char *again = canonical(back, h >> 7);

		CHECK(strcmp(again, canon) == 0);
		free(again);
	}
	check_eval(e, in, size, canon, h);
	check_atom_values(e, h);
	depexpr_free(back);
	depexpr_free(e);
	free(canon);
	free(in);
	return 0;
}
