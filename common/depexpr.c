/* Job dependencies (bsub -w): parse, print, evaluate; see depexpr.h.
 *
 * A recursive-descent parser whose recursion is bounded by the nesting
 * limit: each level of '(' or '!' costs a few frames, and a chain of &&
 * or || is a loop, not recursion. The tree is an array of nodes linked by
 * index; an && or || node has any number of operands (nested ones of the
 * same operator are spliced in as they are parsed), so its depth, and the
 * recursion of every walk over it, is bounded by the nesting too. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "errf.h"
#include <strings.h>
#include "depexpr.h"

#define NONE      UINT32_MAX	/* no node */
#define QUOTE_MAX 24		/* input bytes shown in a message */

enum op { OP_ATOM, OP_NOT, OP_AND, OP_OR };

struct node {
	enum op op;
	uint32_t arg;	/* ATOM: atom index; NOT: operand; AND, OR: first operand */
	uint32_t next;	/* the next operand of the AND or OR this node is in */
};

struct depexpr {
	struct node *node;
	size_t nnodes, capnodes;
	struct dep_atom *atom;
	size_t natoms, capatoms;
	uint32_t root;
};

struct parser {
	const char *s;
	size_t len, pos;
	int depth;		/* '(' and '!' around pos */
	const char *after;	/* the token before an operand, for messages */
	struct depexpr *e;
	char *err;
	size_t errlen, errpos;
};

static const char *const kind_name[] = { "done", "exit", "ended", "started" };
#define NKINDS 4

/* LSF's conditions that backfilld refuses by name rather than as unknown. */
static const char *const unsupported[] = {
	"post_done", "post_err", "numdone", "numexit", "numended", "numpend", "numrun",
	"numstart", "external",
};

static const char *const cmp_text[] = { "", "", "!=", "<", "<=", ">", ">=" };

static const char *const mark_text[] = { " [never]", " [met]", " [waiting]" };

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* A character of an unquoted name. */
static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
	       c == '-' || c == '.' || c == '+' || c == ':' || c == '/' || c == '@';
}

static bool is_control(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

__attribute__((format(printf, 3, 4)))
static int fail(struct parser *p, size_t at, const char *fmt, ...)
{
	va_list ap;

	p->errpos = at;
	if (p->err && p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err, p->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The byte at i, or '\0' at the end (NUL bytes were refused up front). */
static char at(const struct parser *p, size_t i)
{
	return i < p->len ? p->s[i] : '\0';
}

static size_t skip_from(const struct parser *p, size_t i)
{
	while (i < p->len && is_blank(p->s[i]))
		i++;
	return i;
}

static void skip(struct parser *p)
{
	p->pos = skip_from(p, p->pos);
}

static bool looking_at(const struct parser *p, const char *tok)
{
	size_t n = strlen(tok);

	return p->len - p->pos >= n && memcmp(p->s + p->pos, tok, n) == 0;
}

static size_t word_end(const struct parser *p, size_t i)
{
	while (i < p->len && is_word(p->s[i]))
		i++;
	return i;
}

/* Input bytes for a message (errf_quote). out needs 4 * QUOTE_MAX + 4 bytes. */
static const char *quote(char *out, const char *s, size_t n)
{
	return errf_quote(out, s, n, QUOTE_MAX, 0);
}

/* What is at i, for "expected X, not <this>": the end, an operator, a
 * word, or one character. out needs 4 * QUOTE_MAX + 8 bytes. */
static const char *token(const struct parser *p, size_t i, char *out)
{
	size_t n = 1;

	if (i >= p->len)
		return "the end";
	if (p->len - i >= 2 && (memcmp(p->s + i, "&&", 2) == 0 || memcmp(p->s + i, "||", 2) == 0 ||
				memcmp(p->s + i, "!=", 2) == 0 || memcmp(p->s + i, "==", 2) == 0))
		n = 2;
	else if (is_word(p->s[i]))
		n = word_end(p, i) - i;
	out[0] = '\'';
	quote(out + 1, p->s + i, n);
	strcat(out, "'");
	return out;
}

/* ---- building the tree ---- */

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *t;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	t = realloc(*arr, c * size);
	if (!t)
		return -1;
	*arr = t;
	*cap = c;
	return 0;
}

static int new_node(struct parser *p, enum op op, uint32_t arg, uint32_t *out)
{
	struct depexpr *e = p->e;

	if (grow((void **)&e->node, &e->capnodes, e->nnodes + 1, sizeof *e->node) < 0)
		return fail(p, p->pos, "out of memory");
	e->node[e->nnodes] = (struct node){ .op = op, .arg = arg, .next = NONE };
	*out = (uint32_t)e->nnodes++;
	return 0;
}

/* Add child to the operands of parent, after *last; an operand with
 * parent's operator gives its own operands instead (a && (b && c) is
 * a && b && c). */
static void append(struct depexpr *e, uint32_t parent, uint32_t *last, uint32_t child)
{
	struct node *n = e->node;
	uint32_t first = child, end = child;

	if (n[child].op == n[parent].op) {
		first = end = n[child].arg;
		while (n[end].next != NONE)
			end = n[end].next;
	}
	if (*last == NONE)
		n[parent].arg = first;
	else
		n[*last].next = first;
	*last = end;
}

/* Takes a->name: freed if the atom is refused. */
static int add_atom(struct parser *p, size_t start, struct dep_atom *a, uint32_t *out)
{
	struct depexpr *e = p->e;

	if (e->natoms == DEPEXPR_MAX_ATOMS) {
		free(a->name);
		return fail(p, start, "more than %d conditions in one expression", DEPEXPR_MAX_ATOMS);
	}
	if (grow((void **)&e->atom, &e->capatoms, e->natoms + 1, sizeof *e->atom) < 0) {
		free(a->name);
		return fail(p, start, "out of memory");
	}
	e->atom[e->natoms] = *a;
	e->atom[e->natoms].pos = start;
	return new_node(p, OP_ATOM, (uint32_t)e->natoms++, out);
}

/* ---- refs ---- */

/* Digits at p->pos as a number, saturating at UINT64_MAX (so an absurd
 * number still reaches the range check); advances p->pos. */
static uint64_t number(struct parser *p)
{
	uint64_t v = 0;

	for (; is_digit(at(p, p->pos)); p->pos++) {
		unsigned d = (unsigned)(at(p, p->pos) - '0');

		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
	}
	return v;
}

/* "[N]" at p->pos, ending before limit (the closing quote of a quoted
 * name, or the end of the text). */
static int parse_element(struct parser *p, size_t limit, struct dep_atom *a)
{
	size_t open = p->pos, start;
	char q[4 * QUOTE_MAX + 8];
	const char *end_is = limit < p->len ? "the closing quote" : "the end";
	uint64_t v;

	p->pos++;
	if (p->pos < limit && p->s[p->pos] == '*')
		return fail(p, open, "'[*]' (one element after another) is not supported");
	if (p->pos >= limit || !is_digit(p->s[p->pos]))
		return fail(p, p->pos, "expected an element index after '[', not %s",
			    p->pos >= limit ? end_is : token(p, p->pos, q));
	start = p->pos;
	v = number(p);	/* stops at limit: a quote is not a digit */
	if (v == 0)
		return fail(p, start, "element index 0 is not valid (indices start at 1)");
	if (v > DEPEXPR_INDEX_MAX)
		return fail(p, start, "element index %s is too large (at most %d)",
			    quote(q, p->s + start, p->pos - start), DEPEXPR_INDEX_MAX);
	if (p->pos < limit && (p->s[p->pos] == '-' || p->s[p->pos] == ',' || p->s[p->pos] == ':'))
		return fail(p, p->pos, "a range or list of elements is not supported here: "
			    "name one element, as in [%" PRIu64 "], or the whole array", v);
	if (p->pos >= limit || p->s[p->pos] != ']')
		return fail(p, p->pos, "expected ']' after the element index, not %s",
			    p->pos >= limit ? end_is : token(p, p->pos, q));
	p->pos++;
	a->index = (int64_t)v;
	return 0;
}

static int copy_name(struct parser *p, size_t start, size_t n, struct dep_atom *a)
{
	if (n > DEPEXPR_NAME_MAX)
		return fail(p, start, "job name of %zu bytes, more than %d", n, DEPEXPR_NAME_MAX);
	a->name = malloc(n + 1);
	if (!a->name)
		return fail(p, start, "out of memory");
	memcpy(a->name, p->s + start, n);
	a->name[n] = '\0';
	a->by_name = true;
	return 0;
}

/* A job id, maybe with an element: 12, 12[3]. */
static int parse_id(struct parser *p, struct dep_atom *a)
{
	size_t start = p->pos, end = word_end(p, start);
	char q[4 * QUOTE_MAX + 8];
	uint64_t v = number(p);

	if (end > p->pos)
		return fail(p, start, "a job name that begins with a digit must be quoted, "
			    "as in \"%s\"", quote(q, p->s + start, end - start));
	if (v == 0)
		return fail(p, start, "job id 0 is not valid (ids start at 1)");
	if (v > INT64_MAX)
		return fail(p, start, "job id %s is too large (at most %" PRId64 ")",
			    quote(q, p->s + start, p->pos - start), INT64_MAX);
	a->id = v;
	return at(p, p->pos) == '[' ? parse_element(p, p->len, a) : 0;
}

/* An unquoted name, maybe with an element: sweep, sweep[3]. */
static int parse_word(struct parser *p, struct dep_atom *a)
{
	size_t start = p->pos, end = word_end(p, start);

	if (at(p, end) == '*')
		return fail(p, end, "wildcards ('*') in job names are not supported");
	if (copy_name(p, start, end - start, a) < 0)
		return -1;
	p->pos = end;
	return at(p, p->pos) == '[' ? parse_element(p, p->len, a) : 0;
}

/* "name", 'name', "name[3]": always a name, whatever its characters. */
static int parse_quoted(struct parser *p, struct dep_atom *a)
{
	size_t open = p->pos, close, i;
	char qc = p->s[open];
	const char *c;

	c = memchr(p->s + open + 1, qc, p->len - open - 1);
	if (!c)
		return fail(p, open, "the quoted name has no closing %s", qc == '"' ? "'\"'" : "\"'\"");
	close = (size_t)(c - p->s);
	for (i = open + 1; i < close && p->s[i] != '['; i++) {
		if (is_control(p->s[i]))
			return fail(p, i, "control character \\x%02x in a job name",
				    (unsigned char)p->s[i]);
		if (p->s[i] == '*')
			return fail(p, i, "wildcards ('*') in job names are not supported");
		if (p->s[i] == ']')
			return fail(p, i, "']' without '[' in a job name");
	}
	if (i == open + 1)
		return fail(p, i, "empty job name");
	if (copy_name(p, open + 1, i - open - 1, a) < 0)
		return -1;
	p->pos = i;
	if (i < close) {
		if (parse_element(p, close, a) < 0)
			return -1;
		if (p->pos != close)
			return fail(p, p->pos, "a quoted name ends after its element ([N], then the quote)");
	}
	p->pos = close + 1;
	if (at(p, p->pos) == '[')
		return fail(p, p->pos, "the element goes inside the quotes, as in \"name[3]\"");
	return 0;
}

static bool starts_ref(char c)
{
	return is_word(c) || c == '"' || c == '\'';
}

static int parse_ref(struct parser *p, struct dep_atom *a)
{
	char c = at(p, p->pos);

	if (c == '"' || c == '\'')
		return parse_quoted(p, a);
	if (is_digit(c))
		return parse_id(p, a);
	return parse_word(p, a);
}

/* ---- atoms ---- */

/* The comparison and code of exit(ref, [op] CODE), at p->pos. */
static int parse_code(struct parser *p, struct dep_atom *a)
{
	static const struct { const char *text; enum dep_cmp cmp; } ops[] = {
		{ "==", DEP_CMP_EQ }, { "!=", DEP_CMP_NE }, { "<=", DEP_CMP_LE },
		{ ">=", DEP_CMP_GE }, { "<", DEP_CMP_LT }, { ">", DEP_CMP_GT },
	};
	const char *op = NULL;
	char q[4 * QUOTE_MAX + 8];
	size_t start;
	uint64_t v;

	a->cmp = DEP_CMP_EQ;	/* LSF: a code without an operator is == */
	for (size_t i = 0; i < sizeof ops / sizeof ops[0] && !op; i++) {
		if (looking_at(p, ops[i].text)) {
			a->cmp = ops[i].cmp;
			op = ops[i].text;
			p->pos += strlen(op);
			skip(p);
		}
	}
	if (!op && at(p, p->pos) == '=')
		return fail(p, p->pos, "'=' is not a comparison (use '==')");
	if (!op && at(p, p->pos) == '!')
		return fail(p, p->pos, "'!' is not a comparison (use '!=')");
	if (!is_digit(at(p, p->pos)))
		return fail(p, p->pos, "expected an exit code (0 to 255) after '%s', not %s",
			    op ? op : ",", token(p, p->pos, q));
	start = p->pos;
	v = number(p);
	if (v > 255)
		return fail(p, start, "exit code %s is out of range (0 to 255)",
			    quote(q, p->s + start, p->pos - start));
	a->code = (int)v;
	return 0;
}

/* kind ( ref [, [op] CODE] ): the kind is s[start, wend), '(' at paren. */
static int parse_call(struct parser *p, size_t start, size_t wend, size_t paren,
		      struct dep_atom *a)
{
	size_t n = wend - start;
	char q[4 * QUOTE_MAX + 8];
	const char *what;
	int k;

	for (k = 0; k < NKINDS; k++)
		if (strlen(kind_name[k]) == n && memcmp(p->s + start, kind_name[k], n) == 0)
			break;
	if (k == NKINDS) {
		for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
			if (strlen(unsupported[i]) == n && memcmp(p->s + start, unsupported[i], n) == 0)
				return fail(p, start, "condition %s is not supported "
					    "(use done, exit, ended or started)", unsupported[i]);
		for (k = 0; k < NKINDS; k++)
			if (strlen(kind_name[k]) == n && strncasecmp(p->s + start, kind_name[k], n) == 0)
				return fail(p, start, "unknown condition '%s' (conditions are lower "
					    "case: %s)", quote(q, p->s + start, n), kind_name[k]);
		return fail(p, start, "unknown condition '%s' (use done, exit, ended or started)",
			    quote(q, p->s + start, n));
	}
	a->kind = (enum dep_kind)k;
	p->pos = paren + 1;
	skip(p);
	if (at(p, p->pos) == '*')
		return fail(p, p->pos, "wildcards ('*') in job names are not supported");
	if (!starts_ref(at(p, p->pos)))
		return fail(p, p->pos, "expected a job id or name in %s(), not %s", kind_name[k],
			    token(p, p->pos, q));
	if (parse_ref(p, a) < 0)
		return -1;
	what = a->by_name ? "the job name" : "the job id";
	skip(p);
	if (at(p, p->pos) == ',') {
		if (a->kind != DEP_EXIT)
			return fail(p, p->pos, "only exit() takes an exit code, not %s()", kind_name[k]);
		p->pos++;
		skip(p);
		if (parse_code(p, a) < 0)
			return -1;
		what = "the exit code";
		skip(p);
	}
	if (at(p, p->pos) != ')')
		return fail(p, p->pos, "expected ')' after %s, not %s", what, token(p, p->pos, q));
	p->pos++;
	return 0;
}

/* A condition: kind(...), or a bare ref, which is done(ref). */
static int parse_atom(struct parser *p, uint32_t *out)
{
	struct dep_atom a = { .kind = DEP_DONE, .index = -1, .cmp = DEP_CMP_ANY };
	size_t start = p->pos;
	char c = at(p, start), q[4 * QUOTE_MAX + 8];
	int rc;

	if (c == '*')
		return fail(p, start, "wildcards ('*') in job names are not supported");
	if (!starts_ref(c)) {
		if (p->after)
			return fail(p, start, "expected a condition after %s, not %s", p->after,
				    token(p, start, q));
		return fail(p, start, "expected a condition, not %s", token(p, start, q));
	}
	if (is_word(c) && !is_digit(c)) {
		size_t wend = word_end(p, start), paren = skip_from(p, wend);

		if (at(p, paren) == '(')
			rc = parse_call(p, start, wend, paren, &a);
		else
			rc = parse_ref(p, &a);
	} else {
		rc = parse_ref(p, &a);
	}
	if (rc < 0) {
		free(a.name);
		return -1;
	}
	return add_atom(p, start, &a, out);
}

/* ---- expressions ---- */

static int parse_list(struct parser *p, enum op op, uint32_t *out);

static int parse_unary(struct parser *p, uint32_t *out)
{
	size_t start;
	char c;
	uint32_t child;
	int rc;

	skip(p);
	start = p->pos;
	c = at(p, start);
	if (c != '!' && c != '(')
		return parse_atom(p, out);
	if (p->depth == DEPEXPR_MAX_DEPTH)
		return fail(p, start, "nested more than %d levels deep (each '(' and '!' is one)",
			    DEPEXPR_MAX_DEPTH);
	p->depth++;
	p->pos++;
	if (c == '!') {
		p->after = "'!'";
		rc = parse_unary(p, &child);
		if (rc == 0)
			rc = new_node(p, OP_NOT, child, out);
	} else {
		p->after = "'('";
		rc = parse_list(p, OP_OR, out);
		skip(p);
		if (rc == 0 && at(p, p->pos) != ')') {
			char q[4 * QUOTE_MAX + 8];

			if (p->pos >= p->len)
				rc = fail(p, p->pos, "missing ')' for the '(' at column %zu", start + 1);
			else if (at(p, p->pos) == '&' || at(p, p->pos) == '|')
				rc = fail(p, p->pos, "'%c' is not an operator (use '%c%c')",
					  at(p, p->pos), at(p, p->pos), at(p, p->pos));
			else
				rc = fail(p, p->pos, "expected '&&', '||' or ')' (for the '(' at "
					  "column %zu), not %s", start + 1, token(p, p->pos, q));
		}
		p->pos += rc == 0;
	}
	p->depth--;
	return rc;
}

static int parse_operand(struct parser *p, enum op op, uint32_t *out)
{
	return op == OP_OR ? parse_list(p, OP_AND, out) : parse_unary(p, out);
}

/* operand ( "&&" operand )* for OP_AND, likewise with "||" for OP_OR. */
static int parse_list(struct parser *p, enum op op, uint32_t *out)
{
	const char *tok = op == OP_OR ? "||" : "&&";
	uint32_t first, parent, last = NONE, child;

	if (parse_operand(p, op, &first) < 0)
		return -1;
	skip(p);
	if (!looking_at(p, tok)) {
		*out = first;
		return 0;
	}
	if (new_node(p, op, NONE, &parent) < 0)
		return -1;
	append(p->e, parent, &last, first);
	while (skip(p), looking_at(p, tok)) {
		p->pos += 2;
		p->after = op == OP_OR ? "'||'" : "'&&'";
		if (parse_operand(p, op, &child) < 0)
			return -1;
		append(p->e, parent, &last, child);
	}
	*out = parent;
	return 0;
}

/* What follows a whole expression: only the end. */
static int parse_end(struct parser *p)
{
	char c, q[4 * QUOTE_MAX + 8];

	skip(p);
	c = at(p, p->pos);
	if (p->pos >= p->len)
		return 0;
	if (c == ')')
		return fail(p, p->pos, "')' without a matching '('");
	if (c == '&' || c == '|')
		return fail(p, p->pos, "'%c' is not an operator (use '%c%c')", c, c, c);
	return fail(p, p->pos, "expected '&&', '||' or the end, not %s", token(p, p->pos, q));
}

static int parse_all(struct parser *p)
{
	uint32_t root;
	int n;

	if (p->len > DEPEXPR_MAX_LEN)
		return fail(p, DEPEXPR_MAX_LEN, "longer than %d bytes", DEPEXPR_MAX_LEN);
	if (p->len && memchr(p->s, '\0', p->len))
		return fail(p, (size_t)((const char *)memchr(p->s, '\0', p->len) - p->s),
			    "NUL byte in the expression");
	p->e = calloc(1, sizeof *p->e);
	if (!p->e)
		return fail(p, 0, "out of memory");
	skip(p);
	if (p->pos >= p->len)
		return fail(p, p->pos, "empty dependency expression");
	if (parse_list(p, OP_OR, &root) < 0 || parse_end(p) < 0)
		return -1;
	p->e->root = root;
	/* The canonical text must be an input too (see depexpr.h). */
	n = depexpr_format(p->e, NULL, 0);
	if (n < 0 || n > DEPEXPR_MAX_LEN)
		return fail(p, 0, "too long: its canonical form (done(x) for a bare x, blanks "
			    "around && and ||) would be %d bytes, more than %d", n, DEPEXPR_MAX_LEN);
	return 0;
}

int depexpr_parse(const char *s, size_t len, struct depexpr **out, char *err, size_t errlen,
		  size_t *errpos)
{
	struct parser p = { .s = s ? s : "", .len = s ? len : 0, .err = err, .errlen = errlen };

	*out = NULL;
	if (parse_all(&p) < 0) {
		depexpr_free(p.e);
		if (errpos)
			*errpos = p.errpos;
		return -1;
	}
	if (errpos)
		*errpos = 0;
	*out = p.e;
	return 0;
}

void depexpr_free(struct depexpr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->natoms; i++)
		free(e->atom[i].name);
	free(e->atom);
	free(e->node);
	free(e);
}

size_t depexpr_natoms(const struct depexpr *e)
{
	return e ? e->natoms : 0;
}

const struct dep_atom *depexpr_atom(const struct depexpr *e, size_t i)
{
	return e && i < e->natoms ? &e->atom[i] : NULL;
}

/* ---- comparing ---- */

static bool atom_equal(const struct dep_atom *a, const struct dep_atom *b)
{
	if (a->kind != b->kind || a->by_name != b->by_name || a->id != b->id ||
	    a->index != b->index || a->cmp != b->cmp || a->code != b->code)
		return false;
	return !a->by_name || strcmp(a->name, b->name) == 0;
}

static bool node_equal(const struct depexpr *ea, uint32_t a, const struct depexpr *eb, uint32_t b)
{
	const struct node *na = &ea->node[a], *nb = &eb->node[b];

	if (na->op != nb->op)
		return false;
	switch (na->op) {
	case OP_ATOM:
		return atom_equal(&ea->atom[na->arg], &eb->atom[nb->arg]);
	case OP_NOT:
		return node_equal(ea, na->arg, eb, nb->arg);
	case OP_AND:
	case OP_OR:
		break;
	}
	for (a = na->arg, b = nb->arg; a != NONE && b != NONE;
	     a = ea->node[a].next, b = eb->node[b].next)
		if (!node_equal(ea, a, eb, b))
			return false;
	return a == NONE && b == NONE;
}

bool depexpr_equal(const struct depexpr *a, const struct depexpr *b)
{
	if (!a || !b)
		return a == b;
	return a->natoms == b->natoms && node_equal(a, a->root, b, b->root);
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

static void put_str(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_u64(struct out *o, uint64_t v)
{
	char num[24];

	put(o, num, (size_t)snprintf(num, sizeof num, "%" PRIu64, v));
}

/* Can the name go unquoted and read back the same? */
static bool plain_name(const char *name)
{
	if (is_digit(name[0]))
		return false;
	for (const char *c = name; *c; c++)
		if (!is_word(*c))
			return false;
	return true;
}

static void put_ref(struct out *o, const struct dep_atom *a)
{
	char q = '\0';

	if (a->by_name) {
		/* A parsed name never holds both quotes. */
		if (!plain_name(a->name))
			q = strchr(a->name, '"') ? '\'' : '"';
		if (q)
			put(o, &q, 1);
		put_str(o, a->name);
	} else {
		put_u64(o, a->id);
	}
	if (a->index >= 0) {
		put(o, "[", 1);
		put_u64(o, (uint64_t)a->index);
		put(o, "]", 1);
	}
	if (q)
		put(o, &q, 1);
}

static void put_atom(struct out *o, const struct dep_atom *a)
{
	put_str(o, kind_name[a->kind]);
	put(o, "(", 1);
	put_ref(o, a);
	if (a->kind == DEP_EXIT && a->cmp != DEP_CMP_ANY) {
		put(o, ",", 1);
		put_str(o, cmp_text[a->cmp]);
		put_u64(o, (uint64_t)a->code);
	}
	put(o, ")", 1);
}

/* marks: each atom's value for depexpr_format_marked, or NULL. */
static void put_node(struct out *o, const struct depexpr *e, uint32_t i, const enum dep_value *marks)
{
	const struct node *n = &e->node[i];
	bool first = true;

	switch (n->op) {
	case OP_ATOM:
		put_atom(o, &e->atom[n->arg]);
		if (marks)
			put_str(o, mark_text[marks[n->arg]]);
		return;
	case OP_NOT:
		put(o, "!", 1);
		if (e->node[n->arg].op == OP_AND || e->node[n->arg].op == OP_OR) {
			put(o, "(", 1);
			put_node(o, e, n->arg, marks);
			put(o, ")", 1);
		} else {
			put_node(o, e, n->arg, marks);
		}
		return;
	case OP_AND:
	case OP_OR:
		break;
	}
	for (uint32_t c = n->arg; c != NONE; c = e->node[c].next, first = false) {
		/* Only || under && needs parentheses: && binds tighter, and
		 * an operand never has its parent's operator (append()). */
		bool paren = n->op == OP_AND && e->node[c].op == OP_OR;

		if (!first)
			put_str(o, n->op == OP_AND ? " && " : " || ");
		if (paren)
			put(o, "(", 1);
		put_node(o, e, c, marks);
		if (paren)
			put(o, ")", 1);
	}
}

static int finish(struct out *o)
{
	if (o->len)
		o->buf[o->pos < o->len ? o->pos : o->len - 1] = '\0';
	return o->pos > INT32_MAX ? -1 : (int)o->pos;
}

int depexpr_format(const struct depexpr *e, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };

	put_node(&o, e, e->root, NULL);
	return finish(&o);
}

/* Every atom's value, asked once each and in order. */
static void atom_values(const struct depexpr *e, dep_atom_fn *atom, void *arg, enum dep_value *v)
{
	for (size_t i = 0; i < e->natoms; i++) {
		v[i] = atom(&e->atom[i], i, arg);
		if (v[i] != DEP_FALSE && v[i] != DEP_TRUE)
			v[i] = DEP_UNKNOWN;
	}
}

int depexpr_format_marked(const struct depexpr *e, dep_atom_fn *atom, void *arg, char *buf,
			  size_t len)
{
	enum dep_value v[DEPEXPR_MAX_ATOMS];
	struct out o = { .buf = buf, .len = len };

	atom_values(e, atom, arg, v);
	put_node(&o, e, e->root, v);
	return finish(&o);
}

/* ---- evaluating ---- */

static enum dep_value eval_node(const struct depexpr *e, uint32_t i, const enum dep_value *v)
{
	const struct node *n = &e->node[i];
	/* The value that decides an && (FALSE) or an || (TRUE) at once. */
	enum dep_value decides = n->op == OP_AND ? DEP_FALSE : DEP_TRUE, r;

	switch (n->op) {
	case OP_ATOM:
		return v[n->arg];
	case OP_NOT:
		r = eval_node(e, n->arg, v);
		return r == DEP_UNKNOWN ? r : r == DEP_TRUE ? DEP_FALSE : DEP_TRUE;
	case OP_AND:
	case OP_OR:
		break;
	}
	r = decides == DEP_FALSE ? DEP_TRUE : DEP_FALSE;
	for (uint32_t c = n->arg; c != NONE; c = e->node[c].next) {
		enum dep_value x = eval_node(e, c, v);

		if (x == decides)
			return decides;
		if (x == DEP_UNKNOWN)
			r = DEP_UNKNOWN;
	}
	return r;
}

enum dep_value depexpr_eval(const struct depexpr *e, dep_atom_fn *atom, void *arg)
{
	enum dep_value v[DEPEXPR_MAX_ATOMS];

	atom_values(e, atom, arg, v);
	return eval_node(e, e->root, v);
}

/* ---- one atom over its jobs ---- */

static bool code_matches(const struct dep_atom *a, int code)
{
	if (code < 0)
		return false;	/* no code: a comparison cannot hold */
	switch (a->cmp) {
	case DEP_CMP_ANY: return true;
	case DEP_CMP_EQ: return code == a->code;
	case DEP_CMP_NE: return code != a->code;
	case DEP_CMP_LT: return code < a->code;
	case DEP_CMP_LE: return code <= a->code;
	case DEP_CMP_GT: return code > a->code;
	case DEP_CMP_GE: return code >= a->code;
	}
	return false;
}

/* done or exit: FALSE as soon as one job rules it out for good. */
static enum dep_value ending_value(const struct dep_atom *a, const struct dep_fact *f, size_t n)
{
	bool all = true;

	if (n == 0)
		return DEP_FALSE;	/* pruned: see depexpr.h */
	for (size_t i = 0; i < n; i++) {
		bool ended = f[i].ended || f[i].done;

		if (!ended) {
			all = false;
		} else if (a->kind == DEP_DONE) {
			if (!f[i].done)
				return DEP_FALSE;
		} else if (f[i].done ||
			   (a->cmp != DEP_CMP_ANY && !code_matches(a, f[i].exit_code))) {
			return DEP_FALSE;
		}
	}
	return all ? DEP_TRUE : DEP_UNKNOWN;
}

enum dep_value dep_atom_value(const struct dep_atom *a, const struct dep_fact *facts, size_t n)
{
	if (a->kind == DEP_DONE || a->kind == DEP_EXIT)
		return ending_value(a, facts, n);
	for (size_t i = 0; i < n; i++) {
		bool ended = facts[i].ended || facts[i].done;

		if (a->kind == DEP_ENDED ? !ended : !(ended || facts[i].started))
			return DEP_UNKNOWN;
	}
	return DEP_TRUE;
}
