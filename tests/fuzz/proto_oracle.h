/* The checks behind the wire-protocol fuzzer (tests/fuzz/fuzz_proto.c),
 * shared with tests/unit/test_proto.c, which replays the seed corpus
 * through them with plain cc so the corpus stays meaningful without clang.
 * Everything here is static: each includer gets its own copy.
 *
 * proto_oracle_input(data, size) treats data as the bytes a hostile peer
 * sends on a connection. Input selection:
 *
 *  - data[0] == 0: the bytes go through unchanged (a real frame always
 *    starts with 0: its length is at most 4 MiB, under 2^24).
 *  - data[0] != 0: the bytes, unchanged, must be refused from the header
 *    alone (their length field is 16 MiB or more); then data[1..] is
 *    wrapped in a valid header whose type data[0] picks (ORACLE_TYPES[
 *    data[0] % 13], or data[0] itself for the 13th choice), so mutations of
 *    a payload are not wasted on a broken length field.
 *
 * The stream is then handled as backfilld's read_cb and the clients do it:
 * proto_frame() on the 8 header bytes first, and a refused header is never
 * decoded; then proto_frame() on the whole stream; the first frame (copied
 * to a heap block of exactly its size, so AddressSanitizer sees any
 * over-read) goes to every decoder. Bytes after the first frame are
 * ignored, as the client ignores them (the daemon refuses them before
 * decoding).
 *
 * What is checked (a failure calls oracle_failed(): abort(), or the
 * includer's hook):
 *  - the header: refused exactly when an independent reading of it (the
 *    man page's FRAMES) says so, with a reason; "read more" until the whole
 *    frame is there, then its size and type;
 *  - each decoder refuses, with a reason, a frame of a type not its own;
 *  - the decoder of the frame's type against an independent model built
 *    from backfilld-protocol(7) (tags, kinds, required, lists, limits, NUL
 *    in text, value ranges): the decoder accepts exactly what the model
 *    accepts, and every decoded value equals the model's, strings byte for
 *    byte and NUL-terminated, lists in order;
 *  - every decoded string and array lies wholly inside the frame or inside
 *    one of the arena's blocks (malloc_usable_size bounds a block; under
 *    ASan that is the size asked for);
 *  - the limits of proto.h hold for what was decoded;
 *  - round trip: the matching proto_enc_* re-encodes what was decoded into
 *    a frame that proto_frame() accepts, no longer than the original; it
 *    decodes to the same message (field by field, with the encoder's
 *    documented omissions: start/end without a start kind, a total not over
 *    the count); and re-encoding that gives the same bytes again;
 *  - a tiny error buffer gives the same result and is cut, NUL-terminated,
 *    never overrun;
 *  - arenas are freed (LeakSanitizer in the fuzzer). */
#ifndef BF_PROTO_ORACLE_H
#define BF_PROTO_ORACLE_H
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proto.h"

/* Called on a failed check before abort(); the unit test longjmps out. */
static void (*oracle_fail_hook)(void);

static void oracle_failed(const char *what, int line)
{
	fprintf(stderr, "proto_oracle.h:%d: check failed: %s\n", line, what);
	if (oracle_fail_hook)
		oracle_fail_hook();
	abort();
}

#define OCHECK(cond) do { if (!(cond)) oracle_failed(#cond, __LINE__); } while (0)

/* What became of an input. */
enum oracle_outcome {
	OR_SHORT = 0,		/* not a whole frame: the reader would wait */
	OR_HEADER = 1,		/* refused from the header */
	OR_REFUSED = 2,		/* refused by the decoder of its type */
	OR_DECODED = 3,		/* decoded by the decoder of its type */
	OR_NODECODER = 4,	/* a whole frame of a type no decoder takes */
};

static const enum proto_type ORACLE_TYPES[12] = {
	PT_SUBMIT, PT_LIST, PT_INFO, PT_CANCEL, PT_PROFILE, PT_NODES,
	PT_ERROR, PT_SUBMITTED, PT_JOBS, PT_CANCELLED, PT_STEPS, PT_NODEMAP,
};

/* The type of frame an input becomes (see above); -1 if none. */
__attribute__((unused))
static int oracle_input_type(const uint8_t *data, size_t size)
{
	if (size == 0)
		return -1;
	if (data[0] == 0)
		return size >= PROTO_HEADER ? data[5] : -1;
	return data[0] % 13 < 12 ? (int)ORACLE_TYPES[data[0] % 13] : data[0];
}

static uint32_t orc_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ---- the model: backfilld-protocol(7), written down independently ---- */

enum { MK_INT = 1, MK_BYTES = 2, MK_GROUP = 3 };
enum { RULE_NONE, RULE_ABSOLUTE, RULE_ENV };
#define ANY_LO INT64_MIN
#define ANY_HI INT64_MAX
#define STR    PROTO_MAX_STRING
#define NODELIST (PROTO_MAX_PAYLOAD / 2)

struct mspec;
struct mtag {
	uint8_t tag, kind;
	bool required, list;
	int64_t lo, hi;			/* int: the range */
	uint32_t max_len;		/* bytes */
	bool binary;			/* bytes that may hold NUL: the script */
	int rule;			/* bytes: a value rule */
	uint32_t max_count;		/* list */
	const struct mspec *group;	/* group: its fields */
};
struct mspec {
	const struct mtag *t;
	size_t n;
};
#define MSPEC(arr) { arr, sizeof arr / sizeof *arr }
#define M_INT(tag, req, lo, hi) { tag, MK_INT, req, false, lo, hi, 0, false, RULE_NONE, 0, NULL }
#define M_STR(tag, req, max) { tag, MK_BYTES, req, false, 0, 0, max, false, RULE_NONE, 0, NULL }

static const struct mtag m_submit_t[] = {
	M_INT(1, true, 1, UINT32_MAX),
	M_INT(2, false, 1, BF_MAX_DURATION),	/* absent: the daemon's default_limit */
	M_STR(3, false, STR),
	{ 4, MK_BYTES, true, false, 0, 0, PROTO_MAX_SCRIPT, true, RULE_NONE, 0, NULL },
	{ 5, MK_BYTES, true, false, 0, 0, STR, false, RULE_ABSOLUTE, 0, NULL },
	M_STR(6, false, STR),
	M_STR(7, false, STR),
	{ 8, MK_BYTES, false, true, 0, 0, STR, false, RULE_NONE, PROTO_MAX_LIST, NULL },
	{ 9, MK_BYTES, false, true, 0, 0, STR, false, RULE_ENV, PROTO_MAX_LIST, NULL },
	M_INT(10, false, 0, 0777),		/* the submitter's umask; absent: 022 */
};
/* Tag 3: the client reads the forecast's time (0 or 1). */
static const struct mtag m_list_t[] = { M_INT(1, false, 0, 1), M_INT(2, false, ANY_LO, ANY_HI),
                                        M_INT(3, false, 0, 1) };
static const struct mtag m_info_t[] = { M_INT(1, false, 0, 1), M_INT(2, true, ANY_LO, ANY_HI),
                                        M_INT(3, false, 0, 1) };
static const struct mtag m_cancel_t[] = {
	{ 1, MK_INT, true, true, ANY_LO, ANY_HI, 0, false, RULE_NONE, PROTO_MAX_LIST, NULL },
	M_INT(2, false, 1, 64),		/* bkill -s: the signal */
};
static const struct mtag m_error_t[] = { M_INT(1, true, ANY_LO, ANY_HI), M_STR(2, false, STR) };
static const struct mtag m_submitted_t[] = {
	M_INT(1, true, ANY_LO, ANY_HI), M_INT(2, true, ANY_LO, ANY_HI), M_INT(3, true, 0, 3),
	M_INT(4, false, 1, ANY_HI),		/* estimate: "above 0" */
};
static const struct mtag m_job_t[] = {
	M_INT(1, true, ANY_LO, ANY_HI),
	M_INT(2, true, 0, UINT32_MAX),
	M_STR(3, false, STR),
	M_STR(4, false, STR),
	M_STR(5, true, STR),
	M_INT(6, true, 0, UINT32_MAX),
	M_INT(7, true, ANY_LO, ANY_HI),
	M_INT(8, true, ANY_LO, ANY_HI),
	M_INT(9, false, ANY_LO, ANY_HI),
	M_INT(10, false, ANY_LO, ANY_HI),
	M_INT(11, false, 0, 3),
	M_INT(12, false, INT32_MIN, INT32_MAX),
	M_STR(13, false, NODELIST),
	M_STR(14, false, STR),
	M_STR(15, false, STR),
	M_STR(16, false, STR),
	M_STR(17, false, STR),
	/* Usage: CPU time and peak memory, each with its source (1 or 2);
	 * a figure and its source come together (m_job_pairs). */
	M_INT(18, false, 0, ANY_HI),
	M_INT(19, false, 1, 2),
	M_INT(20, false, 0, ANY_HI),
	M_INT(21, false, 1, 2),
	M_STR(22, false, STR),			/* broken */
	M_INT(23, false, 0, BF_NEVER - 1),	/* first_guarantee */
	M_STR(24, false, STR),			/* pending */
};
static const struct mspec m_job = MSPEC(m_job_t);
static const uint8_t m_job_pairs[][2] = { { 18, 19 }, { 20, 21 } };
/* The total's range is not in the man page; 0 to 2^32-1 is what the
 * struct holds. */
static const struct mtag m_jobs_t[] = {
	{ 1, MK_GROUP, false, true, 0, 0, 0, false, RULE_NONE, PROTO_MAX_RECORDS, &m_job },
	M_INT(2, false, 0, UINT32_MAX),
	M_INT(3, false, 1, BF_NEVER - 1),	/* forecast_at */
	M_INT(4, false, 0, 1),			/* forecast_stale */
};
/* A result code: PE_OK to PE_LAST, "any code 0 to 9". */
static const struct mtag m_result_t[] = { M_INT(1, true, ANY_LO, ANY_HI), M_INT(2, true, 0, PE_LAST) };
static const struct mspec m_result = MSPEC(m_result_t);
static const struct mtag m_cancelled_t[] = {
	{ 1, MK_GROUP, false, true, 0, 0, 0, false, RULE_NONE, PROTO_MAX_RECORDS, &m_result },
};
static const struct mtag m_step_t[] = { M_INT(1, true, ANY_LO, ANY_HI), M_INT(2, true, ANY_LO, ANY_HI) };
static const struct mspec m_step = MSPEC(m_step_t);
static const struct mtag m_steps_t[] = {
	M_INT(1, true, 1, UINT32_MAX),
	{ 2, MK_GROUP, false, true, 0, 0, 0, false, RULE_NONE, PROTO_MAX_RECORDS, &m_step },
};
/* The holder's uid range is not in the man page: that of the struct. */
static const struct mtag m_holder_t[] = {
	M_INT(1, true, ANY_LO, ANY_HI), M_INT(2, true, 0, UINT32_MAX), M_STR(3, false, STR),
	M_STR(4, true, NODELIST),
};
static const struct mspec m_holder = MSPEC(m_holder_t);
static const struct mtag m_nodemap_t[] = {
	M_STR(1, true, NODELIST),
	{ 2, MK_GROUP, false, true, 0, 0, 0, false, RULE_NONE, PROTO_MAX_RECORDS, &m_holder },
	M_STR(3, false, NODELIST),		/* drained */
	M_STR(4, false, NODELIST),		/* down */
};

/* One field the model read; a group's fields follow it directly. */
struct mf {
	uint8_t tag;
	long parent;		/* index of the group, -1 at the top */
	size_t kids;		/* a group: how many fields follow inside it */
	int64_t i;
	const uint8_t *data;
	uint32_t len;
};
struct mp {
	struct mf *f;
	size_t n, cap;
};

static size_t mp_add(struct mp *mp, const struct mf *f)
{
	if (mp->n == mp->cap) {
		size_t cap = mp->cap ? 2 * mp->cap : 64;
		struct mf *nf = realloc(mp->f, cap * sizeof *nf);

		if (!nf)
			abort();
		mp->f = nf;
		mp->cap = cap;
	}
	mp->f[mp->n] = *f;
	return mp->n++;
}

/* Does [p, end) read as fields of spec? Records them in mp. */
static bool m_walk(struct mp *mp, const uint8_t *p, const uint8_t *end, const struct mspec *sp,
                   long parent)
{
	uint32_t seen[32] = { 0 };

	while (p < end) {
		struct mf f = { 0 };
		const struct mtag *t = NULL;
		size_t k, left;

		if (end - p < 2)
			return false;
		f.tag = p[0];
		f.parent = parent;
		for (k = 0; k < sp->n; k++)
			if (sp->t[k].tag == p[0])
				t = &sp->t[k];
		if (!t || t->kind != p[1])
			return false;
		k = (size_t)(t - sp->t);
		seen[k]++;
		if (seen[k] > (t->list ? t->max_count : 1))
			return false;
		p += 2;
		left = (size_t)(end - p);
		if (t->kind == MK_INT) {
			uint64_t u = 0;

			if (left < 8)
				return false;
			for (int b = 0; b < 8; b++)
				u = u << 8 | p[b];
			p += 8;
			/* Two's complement, without relying on the conversion. */
			f.i = u <= INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
			if (f.i < t->lo || f.i > t->hi)
				return false;
			mp_add(mp, &f);
			continue;
		}
		if (left < 4 || left - 4 < orc_rd32(p))
			return false;
		f.len = orc_rd32(p);
		f.data = p + 4;
		p += 4 + (size_t)f.len;
		if (t->kind == MK_BYTES) {
			if (f.len > t->max_len)
				return false;
			if (!t->binary && memchr(f.data, 0, f.len))
				return false;
			if (t->rule == RULE_ABSOLUTE && (f.len == 0 || f.data[0] != '/'))
				return false;
			if (t->rule == RULE_ENV &&
			    (f.len == 0 || f.data[0] == '=' || !memchr(f.data, '=', f.len)))
				return false;
			mp_add(mp, &f);
		} else {
			size_t g = mp_add(mp, &f);

			if (!m_walk(mp, f.data, f.data + f.len, t->group, (long)g))
				return false;
			mp->f[g].kids = mp->n - g - 1;
		}
	}
	for (size_t k = 0; k < sp->n; k++)
		if (sp->t[k].required && !seen[k])
			return false;
	/* In a job, tags 18 to 21 are at index tag - 1. */
	for (size_t k = 0; sp == &m_job && k < sizeof m_job_pairs / sizeof *m_job_pairs; k++)
		if (!seen[m_job_pairs[k][0] - 1] != !seen[m_job_pairs[k][1] - 1])
			return false;
	return true;
}

/* The field of `tag` among those of `parent` in [lo, hi); NULL if absent. */
static const struct mf *mf_get(const struct mp *mp, size_t lo, size_t hi, long parent, uint8_t tag)
{
	for (size_t k = lo; k < hi; k++)
		if (mp->f[k].parent == parent && mp->f[k].tag == tag)
			return &mp->f[k];
	return NULL;
}
#define TOP(mp, tag) mf_get(mp, 0, (mp)->n, -1, tag)
#define IN(mp, g, tag) mf_get(mp, (size_t)(g) + 1, (size_t)(g) + 1 + (mp)->f[g].kids, (long)(g), tag)

/* ---- where decoded memory may be ---- */

struct where {
	const uint8_t *frame;
	size_t len;
	const struct proto_arena *a;
};

static bool within(uintptr_t p, size_t n, uintptr_t base, size_t size)
{
	return p >= base && p - base <= size && n <= size - (p - base);
}

/* [p, p + n) inside the frame or inside one block of the arena. */
static bool inside(const struct where *w, const void *p, size_t n)
{
	uintptr_t u = (uintptr_t)p;

	if (!p)
		return false;
	if (within(u, n, (uintptr_t)w->frame, w->len))
		return true;
	for (size_t k = 0; k < w->a->n; k++)
		if (within(u, n, (uintptr_t)w->a->blocks[k], malloc_usable_size(w->a->blocks[k])))
			return true;
	return false;
}

/* s is exactly the model's bytes field f (absent: NULL), NUL-terminated. */
static void same_str(const struct where *w, const char *s, const struct mf *f)
{
	if (!f) {
		OCHECK(s == NULL);
		return;
	}
	OCHECK(s != NULL);
	OCHECK(inside(w, s, (size_t)f->len + 1));
	OCHECK(memcmp(s, f->data, f->len) == 0 && s[f->len] == '\0');
	OCHECK(strlen(s) <= PROTO_MAX_PAYLOAD / 2);
}

static int64_t int_or(const struct mf *f, int64_t dflt)
{
	return f ? f->i : dflt;
}

/* Two strings the same, NULL only with NULL. */
static bool str_eq(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

/* The limits of proto.h for one short string. */
static void short_str(const char *s)
{
	OCHECK(s == NULL || strlen(s) <= PROTO_MAX_STRING);
}

/* ---- per message: model comparison, limits, equality for the round trip ---- */

static void model_submit(const struct where *w, const struct mp *mp, const struct proto_submit *m)
{
	uint32_t na = 0, ne = 0;

	OCHECK(m->nodes >= 1 && m->nodes == TOP(mp, 1)->i);
	/* No time limit: 0, for the daemon's default_limit. */
	OCHECK(TOP(mp, 2) ? m->estimate > 0 && m->estimate <= BF_MAX_DURATION &&
	                    m->estimate == TOP(mp, 2)->i : m->estimate == 0);
	same_str(w, m->name, TOP(mp, 3));
	OCHECK(m->script_len <= PROTO_MAX_SCRIPT && m->script_len == TOP(mp, 4)->len);
	OCHECK(inside(w, m->script, m->script_len));
	OCHECK(m->script_len == 0 || memcmp(m->script, TOP(mp, 4)->data, m->script_len) == 0);
	same_str(w, m->cwd, TOP(mp, 5));
	OCHECK(m->cwd[0] == '/');
	same_str(w, m->out, TOP(mp, 6));
	same_str(w, m->err, TOP(mp, 7));
	OCHECK(m->argc <= PROTO_MAX_LIST && m->envc <= PROTO_MAX_LIST);
	OCHECK(m->argc == 0 || inside(w, m->argv, m->argc * sizeof *m->argv));
	OCHECK(m->envc == 0 || inside(w, m->env, m->envc * sizeof *m->env));
	for (size_t k = 0; k < mp->n; k++) {
		if (mp->f[k].tag == 8) {
			OCHECK(na < m->argc);
			same_str(w, m->argv[na++], &mp->f[k]);
		} else if (mp->f[k].tag == 9) {
			OCHECK(ne < m->envc);
			same_str(w, m->env[ne], &mp->f[k]);
			OCHECK(m->env[ne][0] != '=' && strchr(m->env[ne], '='));
			ne++;
		}
	}
	OCHECK(na == m->argc && ne == m->envc);
	OCHECK(TOP(mp, 10) ? m->has_umask && m->umask <= 0777 && m->umask == TOP(mp, 10)->i
	                   : !m->has_umask);
	short_str(m->name);
	short_str(m->cwd);
	short_str(m->out);
	short_str(m->err);
}

static bool eq_submit(const struct proto_submit *x, const struct proto_submit *y)
{
	if (x->nodes != y->nodes || x->estimate != y->estimate || !str_eq(x->name, y->name) ||
	    x->script_len != y->script_len ||
	    (x->script_len && memcmp(x->script, y->script, x->script_len) != 0) ||
	    !str_eq(x->cwd, y->cwd) || !str_eq(x->out, y->out) || !str_eq(x->err, y->err) ||
	    x->argc != y->argc || x->envc != y->envc || x->has_umask != y->has_umask ||
	    (x->has_umask && x->umask != y->umask))
		return false;
	for (uint32_t k = 0; k < x->argc; k++)
		if (!str_eq(x->argv[k], y->argv[k]))
			return false;
	for (uint32_t k = 0; k < x->envc; k++)
		if (!str_eq(x->env[k], y->env[k]))
			return false;
	return true;
}

static void model_list(const struct mp *mp, const struct proto_list *m)
{
	const struct mf *job = TOP(mp, 2);

	OCHECK(m->all_users == (int_or(TOP(mp, 1), 0) == 1));
	OCHECK(m->has_job == (job != NULL));
	OCHECK(!job || m->job == (uint64_t)job->i);
	OCHECK(m->forecast == (int_or(TOP(mp, 3), 0) == 1));
}

static bool eq_list(const struct proto_list *x, const struct proto_list *y)
{
	return x->all_users == y->all_users && x->has_job == y->has_job &&
	       (!x->has_job || x->job == y->job) && x->forecast == y->forecast;
}

static void model_cancel(const struct where *w, const struct mp *mp, const struct proto_cancel *m)
{
	uint32_t n = 0;

	OCHECK(m->count >= 1 && m->count <= PROTO_MAX_LIST);
	OCHECK(inside(w, m->ids, m->count * sizeof *m->ids));
	for (size_t k = 0; k < mp->n; k++) {
		if (mp->f[k].tag != 1)
			continue;
		OCHECK(n < m->count && m->ids[n] == (uint64_t)mp->f[k].i);
		n++;
	}
	OCHECK(n == m->count);
	OCHECK(m->signal == int_or(TOP(mp, 2), 0));
}

static bool eq_cancel(const struct proto_cancel *x, const struct proto_cancel *y)
{
	return x->count == y->count && x->signal == y->signal &&
	       (x->count == 0 || memcmp(x->ids, y->ids, x->count * sizeof *x->ids) == 0);
}

static void model_error(const struct where *w, const struct mp *mp, const struct proto_error *m)
{
	int64_t code = TOP(mp, 1)->i;

	/* "The decoder takes a code outside 0 to 255 as PE_INTERNAL." */
	OCHECK((int64_t)m->code == (code >= 0 && code <= 255 ? code : PE_INTERNAL));
	same_str(w, m->message, TOP(mp, 2));
	short_str(m->message);
}

static bool eq_error(const struct proto_error *x, const struct proto_error *y)
{
	return x->code == y->code && str_eq(x->message, y->message);
}

static void model_submitted(const struct mp *mp, const struct proto_submitted *m)
{
	OCHECK(m->job == (uint64_t)TOP(mp, 1)->i);
	OCHECK(m->start == TOP(mp, 2)->i);
	OCHECK((int64_t)m->kind == TOP(mp, 3)->i);
	OCHECK(m->estimate == int_or(TOP(mp, 4), 0));
}

static bool eq_submitted(const struct proto_submitted *x, const struct proto_submitted *y)
{
	return x->job == y->job && x->start == y->start && x->kind == y->kind &&
	       x->estimate == y->estimate;
}

static void model_jobs(const struct where *w, const struct mp *mp, const struct proto_jobs *m)
{
	uint32_t n = 0;

	OCHECK(m->total == (uint64_t)int_or(TOP(mp, 2), 0));
	OCHECK(m->forecast_at == int_or(TOP(mp, 3), BF_NEVER));
	OCHECK(m->forecast_stale == (int_or(TOP(mp, 4), 0) == 1));
	OCHECK(m->count == 0 || inside(w, m->jobs, m->count * sizeof *m->jobs));
	for (size_t g = 0; g < mp->n; g++) {
		const struct proto_job *j;
		const struct mf *ex;

		if (mp->f[g].parent != -1 || mp->f[g].tag != 1)
			continue;
		OCHECK(n < m->count);
		j = &m->jobs[n++];
		OCHECK(j->id == (uint64_t)IN(mp, g, 1)->i);
		OCHECK(j->uid == IN(mp, g, 2)->i);
		same_str(w, j->user, IN(mp, g, 3));
		same_str(w, j->name, IN(mp, g, 4));
		same_str(w, j->state, IN(mp, g, 5));
		OCHECK(j->nodes == IN(mp, g, 6)->i);
		OCHECK(j->estimate == IN(mp, g, 7)->i);
		OCHECK(j->submit == IN(mp, g, 8)->i);
		OCHECK(j->start == int_or(IN(mp, g, 9), 0));
		OCHECK(j->end == int_or(IN(mp, g, 10), 0));
		OCHECK((int64_t)j->start_kind == int_or(IN(mp, g, 11), PS_NONE));
		ex = IN(mp, g, 12);
		OCHECK(j->has_exit == (ex != NULL));
		OCHECK(!ex || j->exit_status == ex->i);
		same_str(w, j->node_list, IN(mp, g, 13));
		same_str(w, j->cwd, IN(mp, g, 14));
		same_str(w, j->out, IN(mp, g, 15));
		same_str(w, j->err, IN(mp, g, 16));
		same_str(w, j->reason, IN(mp, g, 17));
		OCHECK(j->cpu_us == int_or(IN(mp, g, 18), -1));
		OCHECK((int64_t)j->cpu_src == int_or(IN(mp, g, 19), PU_NONE));
		OCHECK(j->mem_kb == int_or(IN(mp, g, 20), -1));
		OCHECK((int64_t)j->mem_src == int_or(IN(mp, g, 21), PU_NONE));
		same_str(w, j->broken, IN(mp, g, 22));
		OCHECK(j->first_guarantee == int_or(IN(mp, g, 23), BF_NEVER));
		same_str(w, j->pending, IN(mp, g, 24));
		short_str(j->user);
		short_str(j->name);
		short_str(j->state);
		short_str(j->reason);
	}
	OCHECK(n == m->count && m->count <= PROTO_MAX_RECORDS);
}

/* What the encoder keeps: start only with a start kind, end when it is
 * not 0, the exit status only when there is one, the first guarantee when
 * there is one, the total only over the count. */
static bool eq_jobs(const struct proto_jobs *x, const struct proto_jobs *y)
{
	if (x->count != y->count ||
	    (x->total > x->count ? x->total : 0) != (y->total > y->count ? y->total : 0) ||
	    x->forecast_at != y->forecast_at || x->forecast_stale != y->forecast_stale)
		return false;
	for (uint32_t k = 0; k < x->count; k++) {
		const struct proto_job *a = &x->jobs[k], *b = &y->jobs[k];

		if (a->id != b->id || a->uid != b->uid || !str_eq(a->user, b->user) ||
		    !str_eq(a->name, b->name) || !str_eq(a->state, b->state) ||
		    a->nodes != b->nodes || a->estimate != b->estimate || a->submit != b->submit ||
		    a->start_kind != b->start_kind ||
		    (a->start_kind != PS_NONE && a->start != b->start) || a->end != b->end ||
		    !str_eq(a->broken, b->broken) || !str_eq(a->pending, b->pending) ||
		    (a->first_guarantee > 0 ? a->first_guarantee : BF_NEVER) !=
		    (b->first_guarantee > 0 ? b->first_guarantee : BF_NEVER) ||
		    a->has_exit != b->has_exit || (a->has_exit && a->exit_status != b->exit_status) ||
		    !str_eq(a->node_list, b->node_list) || !str_eq(a->cwd, b->cwd) ||
		    !str_eq(a->out, b->out) || !str_eq(a->err, b->err) ||
		    !str_eq(a->reason, b->reason) || a->cpu_src != b->cpu_src ||
		    (a->cpu_src && a->cpu_us != b->cpu_us) || a->mem_src != b->mem_src ||
		    (a->mem_src && a->mem_kb != b->mem_kb))
			return false;
	}
	return true;
}

static void model_cancelled(const struct where *w, const struct mp *mp,
                            const struct proto_cancelled *m)
{
	uint32_t n = 0;

	OCHECK(m->count == 0 || (inside(w, m->ids, m->count * sizeof *m->ids) &&
	                         inside(w, m->codes, m->count * sizeof *m->codes)));
	for (size_t g = 0; g < mp->n; g++) {
		if (mp->f[g].parent != -1)
			continue;
		OCHECK(n < m->count);
		OCHECK(m->ids[n] == (uint64_t)IN(mp, g, 1)->i);
		OCHECK((int64_t)m->codes[n] == IN(mp, g, 2)->i);
		n++;
	}
	OCHECK(n == m->count && m->count <= PROTO_MAX_RECORDS);
}

static bool eq_cancelled(const struct proto_cancelled *x, const struct proto_cancelled *y)
{
	return x->count == y->count &&
	       (x->count == 0 || (memcmp(x->ids, y->ids, x->count * sizeof *x->ids) == 0 &&
	                          memcmp(x->codes, y->codes, x->count * sizeof *x->codes) == 0));
}

static void model_steps(const struct where *w, const struct mp *mp, const struct proto_steps *m)
{
	uint32_t n = 0;

	OCHECK(m->nodes >= 1 && m->nodes == TOP(mp, 1)->i);
	OCHECK(m->count == 0 || inside(w, m->steps, m->count * sizeof *m->steps));
	for (size_t g = 0; g < mp->n; g++) {
		if (mp->f[g].parent != -1 || mp->f[g].tag != 2)
			continue;
		OCHECK(n < m->count);
		OCHECK(m->steps[n].t == IN(mp, g, 1)->i && m->steps[n].free == IN(mp, g, 2)->i);
		n++;
	}
	OCHECK(n == m->count && m->count <= PROTO_MAX_RECORDS);
}

static bool eq_steps(const struct proto_steps *x, const struct proto_steps *y)
{
	if (x->nodes != y->nodes || x->count != y->count)
		return false;
	for (uint32_t k = 0; k < x->count; k++)
		if (x->steps[k].t != y->steps[k].t || x->steps[k].free != y->steps[k].free)
			return false;
	return true;
}

static void model_nodemap(const struct where *w, const struct mp *mp, const struct proto_nodemap *m)
{
	uint32_t n = 0;

	same_str(w, m->nodes, TOP(mp, 1));
	same_str(w, m->drained, TOP(mp, 3));
	same_str(w, m->down, TOP(mp, 4));
	OCHECK(m->count == 0 || inside(w, m->held, m->count * sizeof *m->held));
	for (size_t g = 0; g < mp->n; g++) {
		const struct proto_holder *h;

		if (mp->f[g].parent != -1 || mp->f[g].tag != 2)
			continue;
		OCHECK(n < m->count);
		h = &m->held[n++];
		OCHECK(h->job == (uint64_t)IN(mp, g, 1)->i && h->uid == IN(mp, g, 2)->i);
		same_str(w, h->user, IN(mp, g, 3));
		same_str(w, h->nodes, IN(mp, g, 4));
		short_str(h->user);
	}
	OCHECK(n == m->count && m->count <= PROTO_MAX_RECORDS);
}

static bool eq_nodemap(const struct proto_nodemap *x, const struct proto_nodemap *y)
{
	if (!str_eq(x->nodes, y->nodes) || x->count != y->count || !str_eq(x->drained, y->drained) ||
	    !str_eq(x->down, y->down))
		return false;
	for (uint32_t k = 0; k < x->count; k++)
		if (x->held[k].job != y->held[k].job || x->held[k].uid != y->held[k].uid ||
		    !str_eq(x->held[k].user, y->held[k].user) ||
		    !str_eq(x->held[k].nodes, y->held[k].nodes))
			return false;
	return true;
}

/* ---- one decoder, generically ---- */

/* Every message struct, so one function can drive any decoder. */
union omsg {
	struct proto_submit submit;
	struct proto_list list;
	struct proto_cancel cancel;
	struct proto_error error;
	struct proto_submitted submitted;
	struct proto_jobs jobs;
	struct proto_cancelled cancelled;
	struct proto_steps steps;
	struct proto_nodemap nodemap;
};

enum odec { OD_SUBMIT, OD_LIST, OD_CANCEL, OD_ERROR, OD_SUBMITTED, OD_JOBS, OD_CANCELLED,
            OD_STEPS, OD_NODEMAP, OD_COUNT };

static int odecode(enum odec d, const uint8_t *f, size_t len, union omsg *m,
                   struct proto_arena *a, char *err, size_t errlen)
{
	switch (d) {
	case OD_SUBMIT: return proto_dec_submit(f, len, &m->submit, a, err, errlen);
	case OD_LIST: return proto_dec_list(f, len, &m->list, err, errlen);
	case OD_CANCEL: return proto_dec_cancel(f, len, &m->cancel, a, err, errlen);
	case OD_ERROR: return proto_dec_error(f, len, &m->error, a, err, errlen);
	case OD_SUBMITTED: return proto_dec_submitted(f, len, &m->submitted, err, errlen);
	case OD_JOBS: return proto_dec_jobs(f, len, &m->jobs, a, err, errlen);
	case OD_CANCELLED: return proto_dec_cancelled(f, len, &m->cancelled, a, err, errlen);
	case OD_STEPS: return proto_dec_steps(f, len, &m->steps, a, err, errlen);
	case OD_NODEMAP: return proto_dec_nodemap(f, len, &m->nodemap, a, err, errlen);
	default: abort();
	}
}

static int oencode(enum odec d, struct proto_buf *b, enum proto_type type, const union omsg *m)
{
	switch (d) {
	case OD_SUBMIT: return proto_enc_submit(b, &m->submit);
	case OD_LIST: return proto_enc_list(b, type, &m->list);
	case OD_CANCEL: return proto_enc_cancel(b, &m->cancel);
	case OD_ERROR: return proto_enc_error(b, &m->error);
	case OD_SUBMITTED: return proto_enc_submitted(b, &m->submitted);
	case OD_JOBS: return proto_enc_jobs(b, &m->jobs);
	case OD_CANCELLED: return proto_enc_cancelled(b, &m->cancelled);
	case OD_STEPS: return proto_enc_steps(b, &m->steps);
	case OD_NODEMAP: return proto_enc_nodemap(b, &m->nodemap);
	default: abort();
	}
}

static bool oequal(enum odec d, const union omsg *x, const union omsg *y)
{
	switch (d) {
	case OD_SUBMIT: return eq_submit(&x->submit, &y->submit);
	case OD_LIST: return eq_list(&x->list, &y->list);
	case OD_CANCEL: return eq_cancel(&x->cancel, &y->cancel);
	case OD_ERROR: return eq_error(&x->error, &y->error);
	case OD_SUBMITTED: return eq_submitted(&x->submitted, &y->submitted);
	case OD_JOBS: return eq_jobs(&x->jobs, &y->jobs);
	case OD_CANCELLED: return eq_cancelled(&x->cancelled, &y->cancelled);
	case OD_STEPS: return eq_steps(&x->steps, &y->steps);
	case OD_NODEMAP: return eq_nodemap(&x->nodemap, &y->nodemap);
	default: abort();
	}
}

static void omodel(enum odec d, const struct where *w, const struct mp *mp, const union omsg *m)
{
	switch (d) {
	case OD_SUBMIT: model_submit(w, mp, &m->submit); break;
	case OD_LIST: model_list(mp, &m->list); break;
	case OD_CANCEL: model_cancel(w, mp, &m->cancel); break;
	case OD_ERROR: model_error(w, mp, &m->error); break;
	case OD_SUBMITTED: model_submitted(mp, &m->submitted); break;
	case OD_JOBS: model_jobs(w, mp, &m->jobs); break;
	case OD_CANCELLED: model_cancelled(w, mp, &m->cancelled); break;
	case OD_STEPS: model_steps(w, mp, &m->steps); break;
	case OD_NODEMAP: model_nodemap(w, mp, &m->nodemap); break;
	default: abort();
	}
}

/* The decoder's own type(s), and the model's table for a type. */
static bool otakes(enum odec d, unsigned type)
{
	static const unsigned own[OD_COUNT] = {
		PT_SUBMIT, PT_LIST, PT_CANCEL, PT_ERROR, PT_SUBMITTED, PT_JOBS, PT_CANCELLED,
		PT_STEPS, PT_NODEMAP,
	};
	return type == own[d] || (d == OD_LIST && type == PT_INFO);
}

static const struct mspec *ospec(unsigned type)
{
	static const struct mspec submit = MSPEC(m_submit_t), list = MSPEC(m_list_t),
		info = MSPEC(m_info_t), cancel = MSPEC(m_cancel_t), error = MSPEC(m_error_t),
		submitted = MSPEC(m_submitted_t), jobs = MSPEC(m_jobs_t),
		cancelled = MSPEC(m_cancelled_t), steps = MSPEC(m_steps_t),
		nodemap = MSPEC(m_nodemap_t);

	switch (type) {
	case PT_SUBMIT: return &submit;
	case PT_LIST: return &list;
	case PT_INFO: return &info;
	case PT_CANCEL: return &cancel;
	case PT_ERROR: return &error;
	case PT_SUBMITTED: return &submitted;
	case PT_JOBS: return &jobs;
	case PT_CANCELLED: return &cancelled;
	case PT_STEPS: return &steps;
	case PT_NODEMAP: return &nodemap;
	default: return NULL;
	}
}

/* Refused with a reason: non-empty, NUL-terminated inside the buffer. */
static void check_reason(const char *err, size_t errlen)
{
	OCHECK(err[0] != '\0' && memchr(err, '\0', errlen) != NULL);
}

/* Re-encode m, decode again, compare; the canonical bytes are stable. */
static void round_trip(enum odec d, unsigned type, const union omsg *m, size_t orig_len)
{
	struct proto_buf b, b2;
	struct proto_arena a = { 0 };
	union omsg m2;
	char err[256];
	size_t flen = 0;
	enum proto_type t2;

	proto_buf_init(&b);
	proto_buf_init(&b2);
	OCHECK(oencode(d, &b, (enum proto_type)type, m) == 0);
	OCHECK(b.len <= orig_len);
	OCHECK(proto_frame(b.p, b.len, &flen, &t2, err, sizeof err) == 1);
	OCHECK(flen == b.len && (unsigned)t2 == type);
	memset(&m2, 0xa5, sizeof m2);
	err[0] = '\0';
	if (odecode(d, b.p, b.len, &m2, &a, err, sizeof err) != 0) {
		fprintf(stderr, "re-encoded frame refused: %s\n", err);
		OCHECK(!"a re-encoded message decodes");
	}
	OCHECK(oequal(d, m, &m2));
	OCHECK(oencode(d, &b2, (enum proto_type)type, &m2) == 0);
	OCHECK(b2.len == b.len && memcmp(b.p, b2.p, b.len) == 0);
	proto_arena_free(&a);
	proto_buf_free(&b);
	proto_buf_free(&b2);
}

/* One whole frame of `type`, exactly `len` bytes on the heap. */
static enum oracle_outcome check_frame(const uint8_t *frame, size_t len, unsigned type)
{
	enum oracle_outcome out = OR_NODECODER;

	for (int d = 0; d < OD_COUNT; d++) {
		struct proto_arena a = { 0 };
		struct mp mp = { 0 };
		union omsg m;
		char err[256], tiny[6];
		const struct mspec *sp;
		bool model_ok;
		int rc;

		memset(&m, 0xa5, sizeof m);	/* the decoder must set every field */
		err[0] = '\0';
		rc = odecode((enum odec)d, frame, len, &m, &a, err, sizeof err);
		if (!otakes((enum odec)d, type)) {
			OCHECK(rc == -1);
			check_reason(err, sizeof err);
			proto_arena_free(&a);
			continue;
		}
		sp = ospec(type);
		model_ok = m_walk(&mp, frame + PROTO_HEADER, frame + len, sp, -1);
		if ((rc == 0) != model_ok) {
			fprintf(stderr, "decoder %s (%s), model %s\n", rc == 0 ? "accepts" : "refuses",
			        rc == 0 ? "" : err, model_ok ? "accepts" : "refuses");
			OCHECK(!"decoder and model agree");
		}
		if (rc == 0) {
			struct where w = { frame, len, &a };

			omodel((enum odec)d, &w, &mp, &m);
			round_trip((enum odec)d, type, &m, len);
			out = OR_DECODED;
		} else {
			OCHECK(rc == -1);
			check_reason(err, sizeof err);
			out = OR_REFUSED;
		}
		proto_arena_free(&a);
		free(mp.f);

		/* A tiny error buffer: same answer, the reason cut, no overrun. */
		memset(tiny, 0x7f, sizeof tiny);
		rc = odecode((enum odec)d, frame, len, &m, &a, tiny, sizeof tiny - 1);
		OCHECK(rc == (out == OR_DECODED ? 0 : -1));
		OCHECK(tiny[sizeof tiny - 1] == 0x7f);
		OCHECK(rc == 0 || memchr(tiny, '\0', sizeof tiny - 1) != NULL);
		proto_arena_free(&a);
		proto_arena_free(&a);	/* harmless twice */
	}
	return out;
}

/* The stream a peer sent, read the way backfilld and the clients read it. */
static enum oracle_outcome check_stream(const uint8_t *s, size_t size)
{
	char err[256];
	size_t flen = 7, need;
	enum proto_type type = (enum proto_type)0;
	bool good_header;
	uint8_t *frame;
	enum oracle_outcome out;
	int rc;

	if (size < PROTO_HEADER) {
		OCHECK(proto_frame(s, size, &flen, &type, err, sizeof err) == 0);
		return OR_SHORT;
	}
	/* FRAMES: version 1, bytes 6-7 zero, length at most 4 MiB. */
	good_header = s[4] == 1 && s[6] == 0 && s[7] == 0 && orc_rd32(s) <= 4u * 1024 * 1024;
	need = PROTO_HEADER + (size_t)orc_rd32(s);

	/* The header alone first, as read_cb does. */
	err[0] = '\0';
	rc = proto_frame(s, PROTO_HEADER, &flen, &type, err, sizeof err);
	if (!good_header) {
		OCHECK(rc == -1);
		check_reason(err, sizeof err);
		/* Never decoded; the whole stream is refused just the same. */
		OCHECK(proto_frame(s, size, &flen, &type, err, sizeof err) == -1);
		OCHECK(proto_frame(s, size, &flen, &type, NULL, 0) == -1);
		return OR_HEADER;
	}
	OCHECK(rc == (need == PROTO_HEADER ? 1 : 0));
	if (need > size) {
		OCHECK(proto_frame(s, size, &flen, &type, err, sizeof err) == 0);
		return OR_SHORT;
	}
	if (need > PROTO_HEADER)
		OCHECK(proto_frame(s, need - 1, &flen, &type, err, sizeof err) == 0);
	OCHECK(proto_frame(s, size, &flen, &type, err, sizeof err) == 1);
	OCHECK(flen == need && (unsigned)type == s[5]);

	frame = malloc(need);
	if (!frame)
		abort();
	memcpy(frame, s, need);
	out = check_frame(frame, need, s[5]);
	free(frame);
	return out;
}

__attribute__((unused))
static enum oracle_outcome proto_oracle_input(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	size_t n;
	enum oracle_outcome out;
	unsigned type;

	if (size == 0 || data[0] == 0)
		return check_stream(data, size);
	/* Not a frame: the length field alone says 16 MiB or more. */
	if (size >= PROTO_HEADER) {
		char err[256];
		size_t flen;
		enum proto_type t;

		OCHECK(proto_frame(data, size, &flen, &t, err, sizeof err) == -1);
	}
	n = size - 1;
	if (n > PROTO_MAX_PAYLOAD)
		return OR_HEADER;
	type = (unsigned)oracle_input_type(data, size);
	buf = malloc(PROTO_HEADER + n);
	if (!buf)
		abort();
	buf[0] = (uint8_t)(n >> 24);
	buf[1] = (uint8_t)(n >> 16);
	buf[2] = (uint8_t)(n >> 8);
	buf[3] = (uint8_t)n;
	buf[4] = PROTO_VERSION;
	buf[5] = (uint8_t)type;
	buf[6] = buf[7] = 0;
	memcpy(buf + PROTO_HEADER, data + 1, n);
	out = check_stream(buf, PROTO_HEADER + n);
	free(buf);
	return out;
}

#endif
