/* Job dependencies as LSF's bsub -w writes them: parsed into a tree,
 * printed canonically, evaluated in three-valued (Kleene) logic.
 *
 * The grammar that depexpr_parse() accepts (blanks -- space, tab, newline,
 * CR, VT, FF -- may go between any two tokens, not inside one):
 *
 *   expr   := or
 *   or     := and ( "||" and )*
 *   and    := unary ( "&&" unary )*
 *   unary  := "!" unary | "(" expr ")" | atom
 *   atom   := KIND "(" ref [ "," [op] CODE ] ")" | ref
 *   KIND   := done | exit | ended | started      (lower case, as LSF)
 *   op     := == | != | < | <= | > | >=           (none: ==)
 *   CODE   := 0 .. 255, decimal
 *
 *   && binds tighter than ||; ! binds tightest. A bare ref is done(ref), as
 *   in LSF. Only exit() takes a code: exit(12) is "exited, whatever the
 *   code" (including no code at all: killed, failed to start), exit(12,3)
 *   is "exited with code 3", exit(12,!=0) "with a code other than 0". A
 *   word is a condition only when '(' follows it: "done && x" waits for the
 *   jobs named done and x. LSF's other conditions (post_done, post_err,
 *   numdone, numexit, numended, numpend, numrun, numstart, external) are
 *   refused as not supported.
 *
 *   ref, the job or jobs a condition is about:
 *     12        the job with id 12 (1 .. 2^63-1; leading zeros are fine);
 *               for an array, every element of it
 *     12[3]     element 3 of array 12 (1 .. 2^31-1)
 *     sweep     every job named sweep (unquoted: A-Z a-z 0-9 _ - . + : / @,
 *               not beginning with a digit)
 *     sweep[3]  element 3 of the array(s) named sweep
 *     "my job" or 'my job', "my job[3]": a quoted NAME, always. As in LSF,
 *               a quoted word of digits is a name: done("678") waits for
 *               the job named 678, and a name that begins with a digit
 *               must be quoted (done(12abc) is refused, saying so). A
 *               quoted name is any bytes but control characters (below
 *               0x20, and 0x7f), its own quote, '[', ']' and '*'; a
 *               trailing [N] inside the quotes is an element.
 *   Names are 1 to DEPEXPR_NAME_MAX bytes. Refused with their own reasons:
 *   LSF's wildcards (jobA*, a[*]) and element ranges or lists (a[1-3]),
 *   which backfilld does not have.
 *
 * Bounds: at most DEPEXPR_MAX_LEN bytes of text, DEPEXPR_MAX_ATOMS atoms,
 * and DEPEXPR_MAX_DEPTH levels of nesting, where each '(' and each '!' is
 * one level around what follows it (!!x is two): 64 nested '(' are
 * accepted, 65 refused. A NUL byte is refused. The canonical text (below)
 * must fit in DEPEXPR_MAX_LEN bytes too: it spells out done() around a
 * bare ref and puts blanks around operators, so "a&&b&&..." near the limit
 * is refused, saying how long its canonical text would be. That keeps
 * every accepted tree's canonical text a valid input, which is what the
 * daemon can store and read back.
 *
 * The canonical text (depexpr_format): every atom as kind(ref) (a bare ref
 * comes out as done(ref)), ids in plain decimal, names unquoted when the
 * unquoted form reads back the same and in double quotes otherwise (single
 * quotes when the name holds a '"'), exit codes as exit(12,3) and
 * exit(12,!=0), " && " and " || " between operands, '!' glued to its
 * operand, and parentheses only where precedence needs them. Nested
 * operators of the same kind are flattened (a && (b && c) is a && b && c;
 * Kleene && and || are associative, so nothing changes meaning) and !!x is
 * kept as written. For every tree e, depexpr_parse(depexpr_format(e))
 * gives a tree equal to e (depexpr_equal), and the canonical text of it is
 * the same text. */
#ifndef BF_DEPEXPR_H
#define BF_DEPEXPR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEPEXPR_MAX_LEN   4096	/* bytes of expression text */
#define DEPEXPR_MAX_ATOMS 256	/* conditions in one expression */
#define DEPEXPR_MAX_DEPTH 64	/* nested '(' and '!' */
#define DEPEXPR_NAME_MAX  511	/* bytes in a job name, without the NUL */
#define DEPEXPR_INDEX_MAX 2147483647	/* highest array element index */
/* depexpr_format_marked's longest text: the canonical text and a
 * " [waiting]" after each atom. */
#define DEPEXPR_MARKED_MAX (DEPEXPR_MAX_LEN + 10 * DEPEXPR_MAX_ATOMS)

enum dep_kind { DEP_DONE, DEP_EXIT, DEP_ENDED, DEP_STARTED };

/* How exit() compares the job's exit code with the atom's code. ANY is
 * exit() without a code: any exit that is not DONE. */
enum dep_cmp { DEP_CMP_ANY, DEP_CMP_EQ, DEP_CMP_NE, DEP_CMP_LT, DEP_CMP_LE, DEP_CMP_GT,
	       DEP_CMP_GE };

/* One condition. by_name: name is set (NUL-terminated, owned by the tree)
 * and id is 0; otherwise id is set and name is NULL. index is the array
 * element, or -1 for the whole job (or every element of an array). cmp and
 * code are used by DEP_EXIT only (other kinds: DEP_CMP_ANY and 0). */
struct dep_atom {
	enum dep_kind kind;
	bool by_name;
	uint64_t id;
	char *name;
	int64_t index;
	enum dep_cmp cmp;
	int code;
	size_t pos;	/* where it begins in the text parsed (0-based; not compared) */
};

struct depexpr;		/* the tree; atoms numbered 0.. in text order */

/* Parse s[0, len) (need not be NUL-terminated). Returns 0 with a new tree
 * in *out, or -1 with *out NULL, a one-line reason in err (which does not
 * quote the whole input; err may be NULL) and, when errpos is not NULL,
 * *errpos the 0-based byte offset the reason is about (at most len), so a
 * client can point at it ("-w: at column <errpos+1>: <err>"). A reason
 * that mentions another place says "column N", 1-based. Out of memory
 * is -1 too ("out of memory"). */
int depexpr_parse(const char *s, size_t len, struct depexpr **out, char *err, size_t errlen,
		  size_t *errpos);
void depexpr_free(struct depexpr *e);	/* NULL is fine */

/* The atoms in text order, to resolve their names and ids; NULL past the
 * end. */
size_t depexpr_natoms(const struct depexpr *e);
const struct dep_atom *depexpr_atom(const struct depexpr *e, size_t i);

/* The same tree: the same shape and equal atoms (names byte for byte). */
bool depexpr_equal(const struct depexpr *a, const struct depexpr *b);

/* The canonical text (see above). Like snprintf: returns the length the
 * full text needs, writes at most len bytes, always NUL-terminated when
 * len > 0; buf may be NULL when len is 0. The text of a parsed tree is at
 * most DEPEXPR_MAX_LEN bytes (see the bounds above): a buffer of
 * DEPEXPR_MAX_LEN + 1 bytes always holds it. */
int depexpr_format(const struct depexpr *e, char *buf, size_t len);

enum dep_value { DEP_FALSE, DEP_TRUE, DEP_UNKNOWN };

/* The value of atom i (a is depexpr_atom(e, i)). arg is the caller's. A
 * value outside the enum counts as DEP_UNKNOWN. */
typedef enum dep_value dep_atom_fn(const struct dep_atom *a, size_t i, void *arg);

/* The expression's value in Kleene logic: FALSE && x is FALSE, TRUE || x
 * is TRUE, !UNKNOWN is UNKNOWN, otherwise UNKNOWN wherever an UNKNOWN
 * could still change the result. atom() is called exactly once for each
 * atom, in order (no short cut), so a caller may collect them. TRUE means
 * the job may start; FALSE that it never can (whatever happens later, as
 * long as each FALSE or TRUE atom stays so); UNKNOWN that it waits. */
enum dep_value depexpr_eval(const struct depexpr *e, dep_atom_fn *atom, void *arg);

/* depexpr_format() with each atom's value after it, for bq -l:
 * done(12) [met] && ended(sweep) [waiting], where [met] is TRUE, [never]
 * FALSE (that atom cannot become true any more) and [waiting] UNKNOWN.
 * A value is about the atom itself, not any '!' around it. atom() is
 * called once for each atom, in order. Not a parse input. snprintf-like,
 * as depexpr_format(); the text is at most DEPEXPR_MARKED_MAX bytes. */
int depexpr_format_marked(const struct depexpr *e, dep_atom_fn *atom, void *arg, char *buf,
			  size_t len);

/* What one job of an atom's set has done so far. done implies ended, and
 * ended implies started (a job cancelled while it waited has ended, and
 * counts as started, as LSF's EXIT state does). exit_code: when ended and
 * not done, 0..255, or -1 when it has none (killed by a signal, cancelled,
 * failed to start); ignored otherwise. */
struct dep_fact {
	bool started;
	bool ended;
	bool done;
	int exit_code;
};

/* An atom's value over the set of jobs its ref means (the caller resolves
 * it: all the jobs of a name, every element of an array, one element),
 * LSF's meaning for a name shared by several jobs: every job must meet it.
 *
 *   done     TRUE when every job is done; FALSE when any job ended
 *            without being done (it never can be); else UNKNOWN.
 *   exit     TRUE when every job ended not done and, with a comparison,
 *            every code matches (-1 matches no comparison); FALSE when
 *            any job is done, or ended not done with a code that does not
 *            match; else UNKNOWN.
 *   ended    TRUE when every job ended; else UNKNOWN (never FALSE).
 *   started  TRUE when every job started or ended; else UNKNOWN.
 *
 * An empty set (n == 0: the daemon refuses unknown ids and names at
 * submission, so this means the jobs were pruned since, long ended) is
 * FALSE for done and exit -- how they ended is not known any more, and
 * FALSE is final, so the daemon can say the dependency is never met
 * rather than let the job wait forever -- and TRUE for ended and started,
 * which every pruned job was. */
enum dep_value dep_atom_value(const struct dep_atom *a, const struct dep_fact *facts, size_t n);

#endif
