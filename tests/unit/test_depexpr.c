/* Dependency expressions (bsub -w): what parses and its canonical text,
 * every refusal with its position and reason, precedence, quoting,
 * elements, exit() comparisons, the bounds, round trips, Kleene
 * evaluation, marked printing, and one atom's value over a set of jobs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "depexpr.h"
#include "tap.h"

static struct depexpr *parse(const char *s, char *err, size_t errlen, size_t *errpos)
{
	struct depexpr *e = NULL;

	if (depexpr_parse(s, strlen(s), &e, err, errlen, errpos) < 0)
		return NULL;
	return e;
}

/* s for a TAP line: control characters as \xNN. */
static const char *shown(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", (unsigned char)*s);
		else
			out[o++] = *s;
	}
	out[o] = '\0';
	return out;
}

/* s parses, its canonical text is want, and want reads back to an equal
 * tree with the same text. */
static void canon(const char *s, const char *want)
{
	char err[256] = "", got[DEPEXPR_MAX_LEN + 1] = "", again[DEPEXPR_MAX_LEN + 1] = "";
	char show[256];
	struct depexpr *e = parse(s, err, sizeof err, NULL), *back = NULL;
	int n = e ? depexpr_format(e, got, sizeof got) : -1;
	bool same;

	if (e)
		back = parse(got, err, sizeof err, NULL);
	if (back)
		depexpr_format(back, again, sizeof again);
	same = e && back && depexpr_equal(e, back) && strcmp(got, want) == 0 &&
	       n == (int)strlen(want) && strcmp(again, got) == 0;
	ok(same, "'%s' is %s", shown(s, show, sizeof show), want);
	if (!same)
		printf("#   got '%s', again '%s', err '%s'\n", got, again, err);
	depexpr_free(e);
	depexpr_free(back);
}

/* Refused at byte pos with a one-line reason containing about. */
static void refuses(const char *s, size_t pos, const char *about)
{
	char err[256] = "", show[256];
	size_t at = 9999;
	struct depexpr *e = (struct depexpr *)&at;
	int rc = depexpr_parse(s, strlen(s), &e, err, sizeof err, &at);
	bool good = rc == -1 && e == NULL && at == pos && strstr(err, about) && !strchr(err, '\n');

	ok(good, "'%.60s' is refused at %zu: %s", shown(s, show, sizeof show), pos, err);
	if (!good)
		printf("#   rc %d, at %zu, want a message about '%s'\n", rc, at, about);
	if (rc == 0)
		depexpr_free(e);
}

static void accepted(void)
{
	canon("done(12)", "done(12)");
	canon("12", "done(12)");
	canon("  12  ", "done(12)");
	canon("0012", "done(12)");
	canon("done( 12 )", "done(12)");
	canon("done (12)", "done(12)");
	canon("\tdone(12)\n&&\r\nended(13)", "done(12) && ended(13)");
	canon("exit(12)", "exit(12)");
	canon("ended(12)", "ended(12)");
	canon("started(12)", "started(12)");
	canon("sweep", "done(sweep)");
	canon("done(sweep)", "done(sweep)");
	canon("done(a_b-c.d+e:f/g@h)", "done(a_b-c.d+e:f/g@h)");
	canon("done(x1)", "done(x1)");
	canon("done(-x)", "done(-x)");
	canon("9223372036854775807", "done(9223372036854775807)");
	/* A word is a condition only before '('. */
	canon("done && exit", "done(done) && done(exit)");
	canon("done(done)", "done(done)");
	canon("numdone", "done(numdone)");
	/* Elements. */
	canon("12[3]", "done(12[3])");
	canon("done(12[3])", "done(12[3])");
	canon("done(12[003])", "done(12[3])");
	canon("sweep[7]", "done(sweep[7])");
	canon("exit(sweep[2147483647])", "exit(sweep[2147483647])");
	/* Quoting: a quoted ref is a name, always; quotes only when needed. */
	canon("done(\"sweep\")", "done(sweep)");
	canon("done('sweep')", "done(sweep)");
	canon("done(\"678\")", "done(\"678\")");
	canon("\"678\"", "done(\"678\")");
	canon("done(\"12abc\")", "done(\"12abc\")");
	canon("done(\"my job\")", "done(\"my job\")");
	canon("done('my job')", "done(\"my job\")");
	canon("done('say \"hi\"')", "done('say \"hi\"')");
	canon("done(\"it's\")", "done(\"it's\")");
	canon("done(\"my job[3]\")", "done(\"my job[3]\")");
	canon("done(\"12[3]\")", "done(\"12[3]\")");
	canon("done(\"a[3]\")", "done(a[3])");
	canon("done(\"a&&b\")", "done(\"a&&b\")");
	canon("done(\"(x)\")", "done(\"(x)\")");
	canon("done(\"caf\xc3\xa9\")", "done(\"caf\xc3\xa9\")");
	canon("done(\" x \")", "done(\" x \")");
	/* exit() codes. */
	canon("exit(12,3)", "exit(12,3)");
	canon("exit(12, 3)", "exit(12,3)");
	canon("exit(12,==3)", "exit(12,3)");
	canon("exit(12, == 3)", "exit(12,3)");
	canon("exit(12,!=0)", "exit(12,!=0)");
	canon("exit(12, > 2)", "exit(12,>2)");
	canon("exit(12,<2)", "exit(12,<2)");
	canon("exit(12,>=255)", "exit(12,>=255)");
	canon("exit(12,<=0)", "exit(12,<=0)");
	canon("exit(12,0)", "exit(12,0)");
	canon("exit(12,007)", "exit(12,7)");
	canon("exit(\"678\",!=0)", "exit(\"678\",!=0)");
	canon("exit(a[2], 1)", "exit(a[2],1)");
}

static void precedence(void)
{
	canon("a && b || c", "done(a) && done(b) || done(c)");
	canon("a || b && c", "done(a) || done(b) && done(c)");
	canon("(a || b) && c", "(done(a) || done(b)) && done(c)");
	canon("a && (b || c)", "done(a) && (done(b) || done(c))");
	canon("(a && b) || c", "done(a) && done(b) || done(c)");
	canon("a || (b && c)", "done(a) || done(b) && done(c)");
	canon("((a))", "done(a)");
	canon("(((a && b)))", "done(a) && done(b)");
	/* Same operators nested are flattened. */
	canon("a && (b && c)", "done(a) && done(b) && done(c)");
	canon("(a && b) && (c && d)", "done(a) && done(b) && done(c) && done(d)");
	canon("a || (b || (c || d))", "done(a) || done(b) || done(c) || done(d)");
	canon("(a || b) && (c || d)", "(done(a) || done(b)) && (done(c) || done(d))");
	canon("a && (b || c && (d || e))", "done(a) && (done(b) || done(c) && (done(d) || done(e)))");
	/* ! binds tightest. */
	canon("!a", "!done(a)");
	canon("! a", "!done(a)");
	canon("!a && b", "!done(a) && done(b)");
	canon("!(a && b)", "!(done(a) && done(b))");
	canon("!(a || b) || c", "!(done(a) || done(b)) || done(c)");
	canon("!!a", "!!done(a)");
	canon("!(!a)", "!!done(a)");
	canon("!(a)", "!done(a)");
	canon("!exit(1,!=0)", "!exit(1,!=0)");
	canon("done(312) && (started(Job2)||exit(\"99Job\"))",
	      "done(312) && (started(Job2) || exit(\"99Job\"))");
	canon("a&&b", "done(a) && done(b)");
	canon("a||b", "done(a) || done(b)");
}

static void refusals(void)
{
	refuses("", 0, "empty dependency expression");
	refuses("   ", 3, "empty dependency expression");
	refuses("done(1", 6, "expected ')' after the job id, not the end");
	refuses("done(1 2)", 7, "expected ')' after the job id, not '2'");
	refuses("done(abc", 8, "expected ')' after the job name");
	refuses("done(abc def)", 9, "expected ')' after the job name, not 'def'");
	refuses("exit(1, 3", 9, "expected ')' after the exit code");
	refuses("done()", 5, "expected a job id or name in done(), not ')'");
	refuses("exit(", 5, "expected a job id or name in exit(), not the end");
	refuses("ended(,3)", 6, "expected a job id or name in ended()");
	refuses("done(1, 2)", 6, "only exit() takes an exit code, not done()");
	refuses("started(1,2)", 9, "only exit() takes an exit code");
	refuses("exit(1, )", 8, "expected an exit code (0 to 255) after ','");
	refuses("exit(1, !=)", 10, "expected an exit code (0 to 255) after '!='");
	refuses("exit(1, = 3)", 8, "'=' is not a comparison (use '==')");
	refuses("exit(1, !3)", 8, "'!' is not a comparison (use '!=')");
	refuses("exit(1, 256)", 8, "exit code 256 is out of range (0 to 255)");
	refuses("exit(1, 99999999999999999999999)", 8, "out of range");
	refuses("exit(1, -1)", 8, "expected an exit code (0 to 255) after ','");
	refuses("exit(1, <> 3)", 9, "expected an exit code");
	refuses("exit(1, 3, 4)", 9, "expected ')' after the exit code, not ','");
	refuses("foo(1)", 0, "unknown condition 'foo' (use done, exit, ended or started)");
	refuses("Done(1)", 0, "unknown condition 'Done' (conditions are lower case: done)");
	refuses("a && EXIT(1)", 5, "lower case: exit");
	refuses("post_done(1)", 0, "condition post_done is not supported");
	refuses("a || post_err(1)", 5, "condition post_err is not supported");
	refuses("numdone(1, 3)", 0, "condition numdone is not supported");
	refuses("numexit(1,*)", 0, "numexit is not supported");
	refuses("numended(1,1)", 0, "numended is not supported");
	refuses("numpend(1,1)", 0, "numpend is not supported");
	refuses("numrun(1,1)", 0, "numrun is not supported");
	refuses("numstart(1,1)", 0, "numstart is not supported");
	refuses("!external (1, \"x\")", 1, "condition external is not supported");
	refuses("done(0)", 5, "job id 0 is not valid");
	refuses("0", 0, "job id 0 is not valid");
	refuses("done(9223372036854775808)", 5, "job id 9223372036854775808 is too large");
	refuses("done(99999999999999999999999999)", 5, "is too large");
	refuses("done(12abc)", 5, "a job name that begins with a digit must be quoted, as in \"12abc\"");
	refuses("12.5", 0, "must be quoted");
	refuses("done(\"abc)", 5, "the quoted name has no closing '\"'");
	refuses("done('abc)", 5, "no closing \"'\"");
	refuses("done(\"\")", 6, "empty job name");
	refuses("done(\"[3]\")", 6, "empty job name");
	refuses("done(\"a\tb\")", 7, "control character \\x09");
	refuses("done(\"a\x7f\")", 7, "control character \\x7f");
	refuses("done(\"a]\")", 7, "']' without '['");
	refuses("done(\"a[3]b\")", 10, "ends after its element");
	refuses("done(\"a[3\")", 9, "expected ']' after the element index, not the closing quote");
	refuses("done(\"a[x]\")", 8, "expected an element index after '[', not 'x'");
	refuses("done(\"a\"[3])", 8, "the element goes inside the quotes");
	refuses("done(a*)", 6, "wildcards ('*') in job names are not supported");
	refuses("jobA*", 4, "wildcards");
	refuses("done(*)", 5, "wildcards");
	refuses("*", 0, "wildcards");
	refuses("done(\"a*\")", 7, "wildcards");
	refuses("done(a[*])", 6, "'[*]'");
	refuses("done(a[1-3])", 8, "a range or list of elements is not supported here");
	refuses("done(12[1,2])", 9, "range or list");
	refuses("done(a[1:2])", 8, "range or list");
	refuses("done(a[0])", 7, "element index 0 is not valid");
	refuses("done(a[2147483648])", 7, "element index 2147483648 is too large (at most 2147483647)");
	refuses("done(a[])", 7, "expected an element index after '[', not ']'");
	refuses("done(a[3)", 8, "expected ']' after the element index, not ')'");
	refuses("done(a[3", 8, "not the end");
	refuses("done(a [3])", 7, "expected ')' after the job name, not '['");
	refuses("done(1))", 7, "')' without a matching '('");
	refuses(")", 0, "expected a condition, not ')'");
	refuses("(done(1)", 8, "missing ')' for the '(' at column 1");
	refuses("a && (b || (c)", 14, "missing ')' for the '(' at column 6");
	refuses("(a b)", 3, "expected '&&', '||' or ')' (for the '(' at column 1), not 'b'");
	refuses("()", 1, "expected a condition after '(', not ')'");
	refuses("done(1) &&", 10, "expected a condition after '&&', not the end");
	refuses("done(1) ||   ", 13, "expected a condition after '||', not the end");
	refuses("&& done(1)", 0, "expected a condition, not '&&'");
	refuses("done(1) & done(2)", 8, "'&' is not an operator (use '&&')");
	refuses("done(1) | done(2)", 8, "'|' is not an operator (use '||')");
	refuses("(a & b)", 3, "'&' is not an operator");
	refuses("done(1) ||| done(2)", 10, "expected a condition after '||', not '|'");
	refuses("done(1) && && done(2)", 11, "expected a condition after '&&', not '&&'");
	refuses("done(1) done(2)", 8, "expected '&&', '||' or the end, not 'done'");
	refuses("a and b", 2, "expected '&&', '||' or the end, not 'and'");
	refuses("!", 1, "expected a condition after '!', not the end");
	refuses("a != b", 2, "expected '&&', '||' or the end, not '!='");
	refuses("!=", 1, "expected a condition after '!', not '='");
	refuses("#", 0, "expected a condition, not '#'");
	refuses("a # b", 2, "not '#'");
	refuses("\xc3\xa9", 0, "not '\\xc3'");
	refuses("done(1)\x01", 7, "not '\\x01'");
	refuses("12(3)", 2, "expected '&&', '||' or the end, not '('");
	refuses("\"a\" \"b\"", 4, "expected '&&', '||' or the end");
	{
		char err[256] = "";
		size_t at = 99;
		struct depexpr *e = NULL;
		static const char nul[] = "done(1) && done(\0x)";

		ok(depexpr_parse(nul, sizeof nul - 1, &e, err, sizeof err, &at) == -1 && at == 16 &&
		   strstr(err, "NUL byte") && e == NULL, "a NUL byte is refused at its place: %s", err);
		ok(depexpr_parse("done(1)", 5, &e, err, sizeof err, &at) == -1 && at == 5 &&
		   strstr(err, "expected a job id or name in done(), not the end"),
		   "len bounds the text, not a NUL: %s", err);
		ok(depexpr_parse("junk((", 6, &e, NULL, 0, NULL) == -1 && e == NULL,
		   "err and errpos may be NULL");
		ok(depexpr_parse(NULL, 5, &e, err, sizeof err, &at) == -1 && at == 0 &&
		   strstr(err, "empty"), "a NULL text is empty");
		ok(depexpr_parse("done(1)", 7, &e, err, 4, &at) == 0 && e && at == 0,
		   "errpos is 0 on success");
		depexpr_free(e);
		ok(depexpr_parse("done(1", 6, &e, err, 5, &at) == -1 && strlen(err) == 4,
		   "a short err buffer is cut, not overrun");
		depexpr_free(NULL);
	}
}

static void atoms(void)
{
	char err[256];
	struct depexpr *e = parse("done(12) && !exit(\"my job[4]\", >=3) || ended(x[2]) || 7 || "
				  "started(9[1])", err, sizeof err, NULL);
	const struct dep_atom *a;

	ok(e && depexpr_natoms(e) == 5, "five atoms");
	if (!e)
		return;
	a = depexpr_atom(e, 0);
	ok(a->kind == DEP_DONE && !a->by_name && a->id == 12 && !a->name && a->index == -1 &&
	   a->cmp == DEP_CMP_ANY && a->code == 0, "atom 0: done(12)");
	a = depexpr_atom(e, 1);
	ok(a->kind == DEP_EXIT && a->by_name && a->id == 0 && strcmp(a->name, "my job") == 0 &&
	   a->index == 4 && a->cmp == DEP_CMP_GE && a->code == 3, "atom 1: exit(\"my job[4]\",>=3)");
	a = depexpr_atom(e, 2);
	ok(a->kind == DEP_ENDED && a->by_name && strcmp(a->name, "x") == 0 && a->index == 2,
	   "atom 2: ended(x[2])");
	a = depexpr_atom(e, 3);
	ok(a->kind == DEP_DONE && !a->by_name && a->id == 7 && a->index == -1, "atom 3: bare 7 is done(7)");
	a = depexpr_atom(e, 4);
	ok(a->kind == DEP_STARTED && a->id == 9 && a->index == 1, "atom 4: started(9[1])");
	ok(depexpr_atom(e, 5) == NULL, "no atom 5");
	depexpr_free(e);
	e = parse("exit(1)", err, sizeof err, NULL);
	a = depexpr_atom(e, 0);
	ok(a && a->cmp == DEP_CMP_ANY && a->code == 0, "exit(1) compares nothing");
	depexpr_free(e);
	e = parse("exit(1, 5)", err, sizeof err, NULL);
	a = depexpr_atom(e, 0);
	ok(a && a->cmp == DEP_CMP_EQ && a->code == 5, "exit(1, 5) is == 5");
	depexpr_free(e);
	e = parse("exit(1, != 0)", err, sizeof err, NULL);
	a = depexpr_atom(e, 0);
	ok(a && a->cmp == DEP_CMP_NE && a->code == 0, "exit(1, != 0)");
	depexpr_free(e);
	{
		struct depexpr *x = parse("done(a) && done(b)", err, sizeof err, NULL);
		struct depexpr *y = parse("done(a) || done(b)", err, sizeof err, NULL);
		struct depexpr *z = parse("done(a) && done(c)", err, sizeof err, NULL);
		struct depexpr *w = parse("a && b", err, sizeof err, NULL);

		ok(!depexpr_equal(x, y) && !depexpr_equal(x, z) && depexpr_equal(x, w) &&
		   depexpr_equal(NULL, NULL) && !depexpr_equal(x, NULL), "depexpr_equal");
		depexpr_free(x);
		depexpr_free(y);
		depexpr_free(z);
		depexpr_free(w);
	}
}

/* Text of n bytes: s, then blanks. */
static char *padded(const char *s, size_t n)
{
	char *t = malloc(n + 1);

	if (!t)
		abort();
	memset(t, ' ', n);
	memcpy(t, s, strlen(s));
	t[n] = '\0';
	return t;
}

static void accepts_text(const char *what, const char *s)
{
	char err[256] = "";
	struct depexpr *e = parse(s, err, sizeof err, NULL);

	ok(e != NULL, "%s is accepted", what);
	if (!e)
		printf("#   err '%s'\n", err);
	depexpr_free(e);
}

static void bounds(void)
{
	char *t, name[DEPEXPR_NAME_MAX + 20];
	size_t n = 0;

	t = padded("done(1)", DEPEXPR_MAX_LEN);
	accepts_text("a text of 4096 bytes", t);
	free(t);
	t = padded("done(1)", DEPEXPR_MAX_LEN + 1);
	refuses(t, DEPEXPR_MAX_LEN, "longer than 4096 bytes");
	free(t);

	/* 256 atoms, then 257. */
	t = malloc(16 * 300);
	if (!t)
		abort();
	for (int i = 1; i <= 256; i++)
		n += (size_t)sprintf(t + n, "%sdone(%d)", i > 1 ? " && " : "", i);
	accepts_text("256 atoms", t);
	sprintf(t + n, " || 257");
	refuses(t, n + 4, "more than 256 conditions");
	/* Short to write, too long when canonical. */
	n = 0;
	for (int i = 0; i < 256; i++)
		n += (size_t)sprintf(t + n, "%sabcdefgh", i ? "&&" : "");
	refuses(t, 0, "would be 4604 bytes, more than 4096");
	free(t);

	/* Nesting: 64 levels, then 65, of '(' and of '!'. */
	t = malloc(300);
	if (!t)
		abort();
	n = 0;
	for (int i = 0; i < 64; i++)
		t[n++] = '(';
	n += (size_t)sprintf(t + n, "a");
	for (int i = 0; i < 64; i++)
		t[n++] = ')';
	t[n] = '\0';
	accepts_text("64 nested '('", t);
	memmove(t + 1, t, n + 1);
	t[0] = '(';
	strcat(t, ")");
	refuses(t, 64, "nested more than 64 levels deep");
	memset(t, '!', 64);
	strcpy(t + 64, "a");
	accepts_text("64 '!'", t);
	memset(t, '!', 65);
	strcpy(t + 65, "a");
	refuses(t, 64, "nested more than 64 levels deep");
	n = 0;
	for (int i = 0; i < 32; i++) {
		t[n++] = '!';
		t[n++] = '(';
	}
	t[n++] = 'a';
	for (int i = 0; i < 32; i++)
		t[n++] = ')';
	t[n] = '\0';
	accepts_text("32 '!(' (64 levels)", t);
	memmove(t + 1, t, n + 1);
	t[0] = '!';
	refuses(t, 64, "nested more than 64 levels");
	free(t);
	/* Depth is nesting, not length: many flat groups are fine. */
	t = malloc(2000);
	if (!t)
		abort();
	n = 0;
	for (int i = 0; i < 200; i++)
		n += (size_t)sprintf(t + n, "%s(!a)", i ? "||" : "");
	accepts_text("200 groups side by side", t);
	free(t);

	/* Names: 511 bytes, then 512. */
	memcpy(name, "done(", 5);
	memset(name + 5, 'n', DEPEXPR_NAME_MAX);
	strcpy(name + 5 + DEPEXPR_NAME_MAX, ")");
	accepts_text("a name of 511 bytes", name);
	memset(name + 5, 'n', DEPEXPR_NAME_MAX + 1);
	strcpy(name + 6 + DEPEXPR_NAME_MAX, ")");
	refuses(name, 5, "job name of 512 bytes, more than 511");
	name[4] = '"';
	memcpy(name, "done(", 5);
	name[5] = '"';
	memset(name + 6, 'q', DEPEXPR_NAME_MAX + 1);
	strcpy(name + 7 + DEPEXPR_NAME_MAX, "\")");
	refuses(name, 6, "job name of 512 bytes");
}

/* ---- evaluation ---- */

static const char vch[] = "FTU";

/* Atom values from a string: 'F', 'T', 'U' (or anything else) by index. */
static enum dep_value from_string(const struct dep_atom *a, size_t i, void *arg)
{
	const char *v = arg;

	(void)a;
	return v[i] == 'F' ? DEP_FALSE : v[i] == 'T' ? DEP_TRUE : v[i] == 'U' ? DEP_UNKNOWN : (enum dep_value)7;
}

static void evals(const char *s, const char *vals, char want)
{
	char err[256] = "";
	struct depexpr *e = parse(s, err, sizeof err, NULL);
	enum dep_value v = e ? depexpr_eval(e, from_string, (void *)vals) : DEP_UNKNOWN;

	ok(e && vch[v] == want, "'%s' with %s is %c", s, vals, want);
	if (!e || vch[v] != want)
		printf("#   got %c, err '%s'\n", vch[v], err);
	depexpr_free(e);
}

static void kleene(void)
{
	/* The tables, from the definition: FALSE < UNKNOWN < TRUE, && is the
	 * least, || the greatest, ! flips the order. */
	static const int rank[3] = { 0, 2, 1 };	/* F, T, U */

	for (int a = 0; a < 3; a++) {
		char one[2] = { vch[a], 0 };
		int na = 2 - rank[a];

		evals("!x", one, vch[na == 0 ? 0 : na == 2 ? 1 : 2]);
		evals("x", one, vch[a]);
		for (int b = 0; b < 3; b++) {
			char two[3] = { vch[a], vch[b], 0 };
			int lo = rank[a] < rank[b] ? rank[a] : rank[b];
			int hi = rank[a] > rank[b] ? rank[a] : rank[b];

			evals("x && y", two, vch[lo == 0 ? 0 : lo == 2 ? 1 : 2]);
			evals("x || y", two, vch[hi == 0 ? 0 : hi == 2 ? 1 : 2]);
		}
	}
	evals("a && b || c", "FFT", 'T');
	evals("a && (b || c)", "FFT", 'F');
	evals("a || b && c", "TFF", 'T');
	evals("(a || b) && c", "TFF", 'F');
	evals("!a && b", "FT", 'T');
	evals("!(a && b)", "FT", 'T');
	evals("!!a", "U", 'U');
	evals("!!a", "T", 'T');
	evals("a && b && c && d", "TTUT", 'U');
	evals("a && b && c && d", "TUFT", 'F');
	evals("a || b || c", "FUF", 'U');
	evals("a || b || c", "UUT", 'T');
	evals("!(a || b) || c && !d", "FFUU", 'T');
	evals("!(a || b) || c && !d", "TFTF", 'T');
	evals("!(a || b) || c && !d", "TFTT", 'F');
	evals("!(a || b) || c && !d", "UFTF", 'T');
	evals("!(a || b) || c && !d", "UFTT", 'U');
	evals("x", "?", 'U');	/* a value outside the enum is UNKNOWN */
}

struct calls {
	size_t order[DEPEXPR_MAX_ATOMS];
	size_t n;
	const char *vals;
};

static enum dep_value record(const struct dep_atom *a, size_t i, void *arg)
{
	struct calls *c = arg;

	(void)a;
	c->order[c->n++] = i;
	return from_string(a, i, (void *)c->vals);
}

static void each_atom_once(void)
{
	char err[256];
	struct depexpr *e = parse("a && b || !(c || d) && e", err, sizeof err, NULL);
	struct calls c = { .vals = "FTTFU" };
	char buf[256];
	bool inorder = true;

	depexpr_eval(e, record, &c);
	for (size_t i = 0; i < c.n; i++)
		inorder &= c.order[i] == i;
	ok(c.n == 5 && inorder, "eval asks each atom once, in order, even past a FALSE");
	c.n = 0;
	depexpr_format_marked(e, record, &c, buf, sizeof buf);
	inorder = true;
	for (size_t i = 0; i < c.n; i++)
		inorder &= c.order[i] == i;
	ok(c.n == 5 && inorder, "format_marked too");
	depexpr_free(e);
}

static void marked(const char *s, const char *vals, const char *want)
{
	char err[256] = "", buf[512] = "";
	struct depexpr *e = parse(s, err, sizeof err, NULL);
	int n = e ? depexpr_format_marked(e, from_string, (void *)vals, buf, sizeof buf) : -1;

	ok(n == (int)strlen(want) && strcmp(buf, want) == 0, "'%s' marked is %s", s, want);
	if (strcmp(buf, want) != 0)
		printf("#   got '%s'\n", buf);
	depexpr_free(e);
}

static void marking(void)
{
	char err[256], buf[16];
	struct depexpr *e;
	char *t;
	size_t n = 0;

	marked("done(12) && ended(sweep)", "TU", "done(12) [met] && ended(sweep) [waiting]");
	marked("!exit(1,3) || 2", "FU", "!exit(1,3) [never] || done(2) [waiting]");
	marked("(a || b) && c", "FTT", "(done(a) [never] || done(b) [met]) && done(c) [met]");
	e = parse("done(12) && ended(sweep)", err, sizeof err, NULL);
	ok(depexpr_format_marked(e, from_string, "TU", buf, sizeof buf) == 40 &&
	   strcmp(buf, "done(12) [met] ") == 0, "marked: short buffer cut, full length returned");
	ok(depexpr_format_marked(e, from_string, "TU", NULL, 0) == 40, "marked: NULL buffer of 0");
	ok(depexpr_format(e, buf, sizeof buf) == 24 && strcmp(buf, "done(12) && end") == 0,
	   "format: short buffer cut, full length returned");
	ok(depexpr_format(e, NULL, 0) == 24, "format: NULL buffer of 0");
	memset(buf, 'x', sizeof buf);
	ok(depexpr_format(e, buf, 1) == 24 && buf[0] == '\0' && buf[1] == 'x', "format: 1 byte");
	depexpr_free(e);
	/* The longest marked text fits DEPEXPR_MARKED_MAX. */
	t = malloc(DEPEXPR_MAX_LEN + 1);
	if (!t)
		abort();
	for (int i = 0; i < 256; i++)
		n += (size_t)sprintf(t + n, "%sa", i ? "&&" : "");
	e = parse(t, err, sizeof err, NULL);
	memset(t, 'U', 256);
	ok(e && depexpr_format_marked(e, from_string, t, NULL, 0) <= DEPEXPR_MARKED_MAX,
	   "256 waiting atoms fit DEPEXPR_MARKED_MAX");
	depexpr_free(e);
	free(t);
}

/* ---- one atom over a set of jobs ---- */

#define PEND    { false, false, false, 0 }
#define RUN     { true, false, false, 0 }
#define DONE    { true, true, true, 0 }
#define EXIT(c) { true, true, false, (c) }
#define GONE    { false, true, false, -1 }	/* cancelled while it waited */

static void value_is(const char *atom, const struct dep_fact *f, size_t n, char want,
		     const char *what)
{
	char err[256] = "";
	struct depexpr *e = parse(atom, err, sizeof err, NULL);
	enum dep_value v = e ? dep_atom_value(depexpr_atom(e, 0), f, n) : DEP_UNKNOWN;

	ok(e && vch[v] == want, "%s over %s is %c", atom, what, want);
	if (!e || vch[v] != want)
		printf("#   got %c, err '%s'\n", vch[v], err);
	depexpr_free(e);
}

static void atom_values(void)
{
	const struct dep_fact pend[] = { PEND }, run[] = { RUN }, done[] = { DONE },
		exit3[] = { EXIT(3) }, exit0[] = { EXIT(0) }, killed[] = { EXIT(-1) },
		gone[] = { GONE }, done_run[] = { DONE, RUN }, done_done[] = { DONE, DONE, DONE },
		done_exit[] = { DONE, EXIT(1) }, run_exit[] = { RUN, EXIT(1) },
		exit_exit[] = { EXIT(1), EXIT(2), EXIT(-1) }, exit_3_4[] = { EXIT(3), EXIT(4) },
		pend_run[] = { PEND, RUN }, run_done[] = { RUN, DONE, EXIT(9) };
	/* Inconsistent facts: done implies ended, ended implies started. */
	const struct dep_fact odd_done[] = { { false, false, true, 0 } };

	/* done */
	value_is("done(1)", pend, 1, 'U', "pending");
	value_is("done(1)", run, 1, 'U', "running");
	value_is("done(1)", done, 1, 'T', "done");
	value_is("done(1)", exit3, 1, 'F', "exit 3");
	value_is("done(1)", killed, 1, 'F', "killed");
	value_is("done(1)", gone, 1, 'F', "cancelled");
	value_is("done(1)", done_done, 3, 'T', "three done");
	value_is("done(1)", done_run, 2, 'U', "done + running");
	value_is("done(1)", done_exit, 2, 'F', "done + exit");
	value_is("done(1)", run_exit, 2, 'F', "running + exit");
	value_is("done(1)", NULL, 0, 'F', "no jobs");
	value_is("done(1)", odd_done, 1, 'T', "done without ended");
	/* exit, any code */
	value_is("exit(1)", pend, 1, 'U', "pending");
	value_is("exit(1)", run, 1, 'U', "running");
	value_is("exit(1)", done, 1, 'F', "done");
	value_is("exit(1)", exit3, 1, 'T', "exit 3");
	value_is("exit(1)", exit0, 1, 'T', "exit 0 not done");
	value_is("exit(1)", killed, 1, 'T', "killed");
	value_is("exit(1)", gone, 1, 'T', "cancelled");
	value_is("exit(1)", exit_exit, 3, 'T', "three exits");
	value_is("exit(1)", run_exit, 2, 'U', "running + exit");
	value_is("exit(1)", done_exit, 2, 'F', "done + exit");
	value_is("exit(1)", run_done, 3, 'F', "running + done + exit");
	value_is("exit(1)", NULL, 0, 'F', "no jobs");
	value_is("exit(1)", odd_done, 1, 'F', "done without ended");
	/* exit with a comparison */
	value_is("exit(1,3)", exit3, 1, 'T', "exit 3");
	value_is("exit(1,4)", exit3, 1, 'F', "exit 3");
	value_is("exit(1,!=0)", exit3, 1, 'T', "exit 3");
	value_is("exit(1,!=3)", exit3, 1, 'F', "exit 3");
	value_is("exit(1,!=0)", killed, 1, 'F', "killed (no code)");
	value_is("exit(1,==0)", killed, 1, 'F', "killed (no code)");
	value_is("exit(1,>=0)", killed, 1, 'F', "killed (no code)");
	value_is("exit(1,0)", exit0, 1, 'T', "exit 0 not done");
	value_is("exit(1,<4)", exit3, 1, 'T', "exit 3");
	value_is("exit(1,<3)", exit3, 1, 'F', "exit 3");
	value_is("exit(1,<=3)", exit3, 1, 'T', "exit 3");
	value_is("exit(1,>2)", exit3, 1, 'T', "exit 3");
	value_is("exit(1,>3)", exit3, 1, 'F', "exit 3");
	value_is("exit(1,>=3)", exit3, 1, 'T', "exit 3");
	value_is("exit(1,>=3)", exit_3_4, 2, 'T', "exits 3 and 4");
	value_is("exit(1,3)", exit_3_4, 2, 'F', "exits 3 and 4");
	value_is("exit(1,3)", run_exit, 2, 'F', "running + exit 1");
	value_is("exit(1,1)", run_exit, 2, 'U', "running + exit 1");
	value_is("exit(1,3)", done, 1, 'F', "done");
	value_is("exit(1,3)", pend, 1, 'U', "pending");
	value_is("exit(1,3)", NULL, 0, 'F', "no jobs");
	/* ended */
	value_is("ended(1)", pend, 1, 'U', "pending");
	value_is("ended(1)", run, 1, 'U', "running");
	value_is("ended(1)", done, 1, 'T', "done");
	value_is("ended(1)", exit3, 1, 'T', "exit 3");
	value_is("ended(1)", gone, 1, 'T', "cancelled");
	value_is("ended(1)", done_exit, 2, 'T', "done + exit");
	value_is("ended(1)", run_done, 3, 'U', "running + done + exit");
	value_is("ended(1)", NULL, 0, 'T', "no jobs");
	value_is("ended(1)", odd_done, 1, 'T', "done without ended");
	/* started */
	value_is("started(1)", pend, 1, 'U', "pending");
	value_is("started(1)", run, 1, 'T', "running");
	value_is("started(1)", done, 1, 'T', "done");
	value_is("started(1)", gone, 1, 'T', "cancelled while waiting");
	value_is("started(1)", pend_run, 2, 'U', "pending + running");
	value_is("started(1)", run_done, 3, 'T', "running + done + exit");
	value_is("started(1)", NULL, 0, 'T', "no jobs");
	value_is("started(1)", odd_done, 1, 'T', "done without started");
}

/* ---- round trips of random expressions ---- */

static unsigned next_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

static void gen_ref(char *t, size_t *n, unsigned *seed)
{
	static const char *const names[] = {
		"sweep", "a", "\"my job\"", "'x\"y'", "\"678\"", "-x.y", "\"a(b)\"", "j@h:1/2+3",
	};
	if (next_rand(seed) % 3 == 0)
		*n += (size_t)sprintf(t + *n, "%u", next_rand(seed) % 100000 + 1);
	else
		*n += (size_t)sprintf(t + *n, "%s", names[next_rand(seed) % 8]);
	if (next_rand(seed) % 4 == 0 && t[*n - 1] != '"' && t[*n - 1] != '\'')
		*n += (size_t)sprintf(t + *n, "[%u]", next_rand(seed) % 50 + 1);
}

static void gen(char *t, size_t *n, unsigned *seed, int depth)
{
	static const char *const kinds[] = { "done", "exit", "ended", "started", "" };
	static const char *const ops[] = { "", "==", "!=", "<", "<=", ">", ">=" };
	unsigned r = next_rand(seed) % 10;

	if (depth > 6 || r < 4) {
		const char *k = kinds[next_rand(seed) % 5];

		if (!*k) {
			gen_ref(t, n, seed);
			return;
		}
		*n += (size_t)sprintf(t + *n, "%s(", k);
		gen_ref(t, n, seed);
		if (!strcmp(k, "exit") && next_rand(seed) % 2)
			*n += (size_t)sprintf(t + *n, ", %s%u", ops[next_rand(seed) % 7],
					      next_rand(seed) % 256);
		t[(*n)++] = ')';
	} else if (r < 6) {
		t[(*n)++] = '!';
		gen(t, n, seed, depth + 1);
	} else if (r < 7) {
		t[(*n)++] = '(';
		gen(t, n, seed, depth + 1);
		t[(*n)++] = ')';
	} else {
		gen(t, n, seed, depth + 1);
		*n += (size_t)sprintf(t + *n, r < 9 ? " && " : "||");
		gen(t, n, seed, depth + 1);
	}
	t[*n] = '\0';
}

static void round_trips(void)
{
	unsigned seed = 2024;
	int parsed = 0, bad = 0;

	for (int i = 0; i < 3000; i++) {
		char t[64 * 1024], f1[DEPEXPR_MAX_LEN + 1], f2[DEPEXPR_MAX_LEN + 1], err[256];
		size_t n = 0;
		struct depexpr *a, *b;

		gen(t, &n, &seed, 0);
		a = parse(t, err, sizeof err, NULL);
		if (!a)
			continue;
		parsed++;
		depexpr_format(a, f1, sizeof f1);
		b = parse(f1, err, sizeof err, NULL);
		if (b)
			depexpr_format(b, f2, sizeof f2);
		if (!b || !depexpr_equal(a, b) || strcmp(f1, f2) != 0) {
			if (bad++ < 3)
				printf("#   '%s' -> '%s': %s\n", t, f1, b ? "differs" : err);
		}
		depexpr_free(a);
		depexpr_free(b);
	}
	ok(parsed > 2500 && bad == 0, "%d random expressions: parse, format, parse again: equal, "
	   "and the text is stable", parsed);
}

int main(void)
{
	accepted();
	precedence();
	refusals();
	atoms();
	bounds();
	kleene();
	each_atom_once();
	marking();
	atom_values();
	round_trips();
	return tap_done();
}
