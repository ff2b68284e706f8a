/* The wire protocol: frames, fields, and the messages; see proto.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "errf.h"
#include "proto.h"

enum proto_kind { PK_INT = 1, PK_BYTES = 2, PK_GROUP = 3 };

static const char *const err_names[] = {
	[PE_OK] = "ok", [PE_MALFORMED] = "malformed request", [PE_VERSION] = "protocol version",
	[PE_INVALID] = "invalid request", [PE_TOOBIG] = "too many nodes", [PE_NOJOB] = "no such job",
	[PE_DENIED] = "permission denied", [PE_INTERNAL] = "internal error",
	[PE_DONE] = "job already ended",
	[PE_BUSY] = "the daemon is busy: too many connections or unfinished requests from you; "
	            "try again",
};

const char *proto_err_name(enum proto_err e)
{
	return (unsigned)e < sizeof err_names / sizeof *err_names ? err_names[e] : "unknown error";
}

/* ---- output ---- */

void proto_buf_init(struct proto_buf *b)
{
	*b = (struct proto_buf){ 0 };
}

void proto_buf_free(struct proto_buf *b)
{
	free(b->p);
	proto_buf_init(b);
}

static uint8_t *room(struct proto_buf *b, size_t n)
{
	if (b->failed || n > PROTO_HEADER + PROTO_MAX_PAYLOAD - b->len) {
		b->failed = true;
		return NULL;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	b->len += n;
	return b->p + b->len - n;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void proto_start(struct proto_buf *b, enum proto_type type)
{
	uint8_t *h;

	b->len = 0;
	b->failed = false;
	if ((h = room(b, PROTO_HEADER)) != NULL) {
		memset(h, 0, PROTO_HEADER);
		h[4] = PROTO_VERSION;
		h[5] = (uint8_t)type;
	}
}

void proto_put_int(struct proto_buf *b, uint8_t tag, int64_t v)
{
	uint8_t *p = room(b, 10);

	if (!p)
		return;
	p[0] = tag;
	p[1] = PK_INT;
	be32(p + 2, (uint32_t)((uint64_t)v >> 32));
	be32(p + 6, (uint32_t)v);
}

void proto_put_bytes(struct proto_buf *b, uint8_t tag, const void *data, size_t n)
{
	uint8_t *p = n <= PROTO_MAX_PAYLOAD ? room(b, 6 + n) : NULL;

	if (!p) {
		b->failed = true;
		return;
	}
	p[0] = tag;
	p[1] = PK_BYTES;
	be32(p + 2, (uint32_t)n);
	if (n)
		memcpy(p + 6, data, n);
}

void proto_put_str(struct proto_buf *b, uint8_t tag, const char *s)
{
	if (s)
		proto_put_bytes(b, tag, s, strlen(s));
}

size_t proto_group_open(struct proto_buf *b, uint8_t tag)
{
	uint8_t *p = room(b, 6);

	if (!p)
		return 0;
	p[0] = tag;
	p[1] = PK_GROUP;
	return b->len;
}

void proto_group_close(struct proto_buf *b, size_t mark)
{
	if (!b->failed)
		be32(b->p + mark - 4, (uint32_t)(b->len - mark));
}

int proto_finish(struct proto_buf *b)
{
	if (b->failed || b->len < PROTO_HEADER)
		return -1;
	be32(b->p, (uint32_t)(b->len - PROTO_HEADER));
	return 0;
}

/* ---- input ---- */

int proto_frame(const uint8_t *buf, size_t avail, size_t *frame_len, enum proto_type *type,
                char *err, size_t errlen)
{
	uint32_t n;

	if (avail < PROTO_HEADER)
		return 0;
	n = rd32(buf);
	if (buf[4] != PROTO_VERSION)
		return errf(err, errlen, "protocol version %u; this side speaks %u", buf[4],
		            PROTO_VERSION);
	if (buf[6] || buf[7])
		return errf(err, errlen, "malformed frame header");
	if (n > PROTO_MAX_PAYLOAD)
		return errf(err, errlen, "message of %u bytes is over the %u-byte limit", n,
		            PROTO_MAX_PAYLOAD);
	if (avail - PROTO_HEADER < n)
		return 0;
	*frame_len = PROTO_HEADER + (size_t)n;
	*type = (enum proto_type)buf[5];
	return 1;
}

struct field {
	uint8_t tag, kind;
	int64_t i;
	const uint8_t *data;	/* PK_BYTES and PK_GROUP */
	uint32_t len;
};

/* What a message allows: for each tag, its kind, how long, how often. */
struct spec {
	uint8_t tag, kind;
	bool required, repeated;
	uint32_t max_len;	/* PK_BYTES */
	uint32_t max_count;	/* repeated: 0 means PROTO_MAX_LIST */
};

/* Walk the fields of [p, end), checking each against the spec table, and
 * hand each one to `take`. Catches truncation, unknown tags, wrong kinds,
 * repeats, over-long or NUL-bearing strings (max_len != PROTO_MAX_SCRIPT
 * marks text), too many list items and missing required fields. */
static int walk(const uint8_t *p, const uint8_t *end, const struct spec *sp, size_t nspec,
                int (*take)(const struct field *, void *, char *, size_t), void *ctx,
                char *err, size_t errlen)
{
	uint32_t count[32] = { 0 };

	while (p < end) {
		struct field f = { 0 };
		size_t k;

		if (end - p < 2)
			return errf(err, errlen, "truncated field");
		f.tag = p[0];
		f.kind = p[1];
		p += 2;
		for (k = 0; k < nspec && sp[k].tag != f.tag; k++)
			;
		if (k == nspec)
			return errf(err, errlen, "unknown field %u", f.tag);
		if (sp[k].kind != f.kind)
			return errf(err, errlen, "field %u has the wrong kind", f.tag);
		if (++count[k] > 1 && !sp[k].repeated)
			return errf(err, errlen, "field %u given twice", f.tag);
		if (count[k] > (sp[k].max_count ? sp[k].max_count : PROTO_MAX_LIST))
			return errf(err, errlen, "more than %u of field %u",
			            sp[k].max_count ? sp[k].max_count : PROTO_MAX_LIST, f.tag);
		if (f.kind == PK_INT) {
			if (end - p < 8)
				return errf(err, errlen, "truncated field %u", f.tag);
			f.i = (int64_t)((uint64_t)rd32(p) << 32 | rd32(p + 4));
			p += 8;
		} else {
			if (end - p < 4)
				return errf(err, errlen, "truncated field %u", f.tag);
			f.len = rd32(p);
			p += 4;
			if ((size_t)(end - p) < f.len)
				return errf(err, errlen, "truncated field %u", f.tag);
			f.data = p;
			p += f.len;
			if (f.kind == PK_BYTES && f.len > sp[k].max_len)
				return errf(err, errlen, "field %u is over %u bytes", f.tag, sp[k].max_len);
			if (f.kind == PK_BYTES && sp[k].max_len != PROTO_MAX_SCRIPT &&
			    memchr(f.data, '\0', f.len))
				return errf(err, errlen, "field %u has a NUL byte", f.tag);
		}
		if (take(&f, ctx, err, errlen) < 0)
			return -1;
	}
	for (size_t k = 0; k < nspec; k++)
		if (sp[k].required && !count[k])
			return errf(err, errlen, "field %u is missing", sp[k].tag);
	return 0;
}

static int walk_frame(const uint8_t *frame, size_t len, enum proto_type want,
                      const struct spec *sp, size_t nspec,
                      int (*take)(const struct field *, void *, char *, size_t), void *ctx,
                      char *err, size_t errlen)
{
	if (len < PROTO_HEADER || rd32(frame) != len - PROTO_HEADER)
		return errf(err, errlen, "bad frame length");
	if (frame[5] != want)
		return errf(err, errlen, "message type %u, expected %u", frame[5], want);
	return walk(frame + PROTO_HEADER, frame + len, sp, nspec, take, ctx, err, errlen);
}

void proto_arena_free(struct proto_arena *a)
{
	for (size_t k = 0; k < a->n; k++)
		free(a->blocks[k]);
	free(a->blocks);
	*a = (struct proto_arena){ 0 };
}

static void *arena_block(struct proto_arena *a, size_t n)
{
	void *p;

	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		void **nb = realloc(a->blocks, cap * sizeof *nb);

		if (!nb)
			return NULL;
		a->blocks = nb;
		a->cap = cap;
	}
	p = calloc(1, n ? n : 1);
	if (p)
		a->blocks[a->n++] = p;
	return p;
}

/* Zeroed memory that lives until proto_arena_free. A job listing holds
 * three strings a job: one calloc each was a tenth of bq -a, so small
 * pieces come from shared chunks. */
#define ARENA_CHUNK	65536
#define ARENA_SMALL	1024

static void *arena_alloc(struct proto_arena *a, size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n == 0 || n > ARENA_SMALL)
		return arena_block(a, n);
	if (a->chunk_left < n) {
		if (!(a->chunk = arena_block(a, ARENA_CHUNK)))
			return NULL;
		a->chunk_left = ARENA_CHUNK;
	}
	p = a->chunk;
	a->chunk += n;
	a->chunk_left -= n;
	return p;
}

/* A field's bytes as a C string (the frame has no NULs to end them). */
static const char *arena_str(struct proto_arena *a, const struct field *f)
{
	char *s = arena_alloc(a, (size_t)f->len + 1);

	if (s)
		memcpy(s, f->data, f->len);
	return s;
}

/* Append to a growing array kept in the arena (the spec bounds lists by
 * PROTO_MAX_LIST). The array is a block of its own, grown in place by
 * realloc: a listing of 10,000 jobs no longer leaves every smaller copy
 * behind. */
static void *arena_push(struct proto_arena *a, void **arr, uint32_t *count, size_t size)
{
	uint32_t n = *count;

	if ((n & (n - 1)) == 0) {	/* at 0, 1, 2, 4, ...: grow to twice */
		size_t old = n * size, want = (n ? 2 * (size_t)n : 1) * size;
		void *na;

		if (n == 0) {
			if (!(na = arena_block(a, want)))
				return NULL;
		} else {
			size_t k = a->n;

			while (k > 0 && a->blocks[k - 1] != *arr)
				k--;
			if (k == 0 || !(na = realloc(*arr, want)))
				return NULL;
			a->blocks[k - 1] = na;
			memset((char *)na + old, 0, want - old);
		}
		*arr = na;
	}
	(*count)++;
	return (char *)*arr + n * size;
}

#define NOMEM(err, len) errf(err, len, "out of memory")

/* ---- SUBMIT ---- */

enum { SU_NODES = 1, SU_ESTIMATE, SU_NAME, SU_SCRIPT, SU_CWD, SU_OUT, SU_ERR, SU_ARG, SU_ENV,
       SU_UMASK, SU_DEPEND, SU_ARRAY };

static const struct spec submit_spec[] = {
	{ SU_NODES, PK_INT, true, false, 0, 0 },
	{ SU_ESTIMATE, PK_INT, false, false, 0, 0 },	/* absent: the daemon's default_limit */
	{ SU_NAME, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ SU_SCRIPT, PK_BYTES, true, false, PROTO_MAX_SCRIPT, 0 },
	{ SU_CWD, PK_BYTES, true, false, PROTO_MAX_STRING, 0 },
	{ SU_OUT, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ SU_ERR, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ SU_ARG, PK_BYTES, false, true, PROTO_MAX_STRING, 0 },
	{ SU_ENV, PK_BYTES, false, true, PROTO_MAX_STRING, 0 },
	{ SU_UMASK, PK_INT, false, false, 0, 0 },	/* absent: an older client's, 022 */
	{ SU_DEPEND, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ SU_ARRAY, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
};

int proto_enc_submit(struct proto_buf *b, const struct proto_submit *m)
{
	proto_start(b, PT_SUBMIT);
	proto_put_int(b, SU_NODES, m->nodes);
	if (m->estimate > 0)
		proto_put_int(b, SU_ESTIMATE, m->estimate);
	proto_put_str(b, SU_NAME, m->name);
	proto_put_bytes(b, SU_SCRIPT, m->script, m->script_len);
	proto_put_str(b, SU_CWD, m->cwd);
	proto_put_str(b, SU_OUT, m->out);
	proto_put_str(b, SU_ERR, m->err);
	for (uint32_t k = 0; k < m->argc; k++)
		proto_put_str(b, SU_ARG, m->argv[k]);
	for (uint32_t k = 0; k < m->envc; k++)
		proto_put_str(b, SU_ENV, m->env[k]);
	if (m->has_umask)
		proto_put_int(b, SU_UMASK, m->umask);
	proto_put_str(b, SU_DEPEND, m->depend);
	proto_put_str(b, SU_ARRAY, m->array);
	return proto_finish(b);
}

struct submit_ctx {
	struct proto_submit *m;
	struct proto_arena *a;
};

static int take_submit(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct submit_ctx *c = vctx;
	struct proto_submit *m = c->m;
	const char *s = NULL, **slot;

	if (f->kind == PK_BYTES && f->tag != SU_SCRIPT && !(s = arena_str(c->a, f)))
		return NOMEM(err, errlen);
	switch (f->tag) {
	case SU_NODES:
		if (f->i < 1 || f->i > UINT32_MAX)
			return errf(err, errlen, "nodes must be from 1 to %u", UINT32_MAX);
		m->nodes = (uint32_t)f->i;
		break;
	case SU_ESTIMATE:
		if (f->i <= 0 || f->i > BF_MAX_DURATION)
			return errf(err, errlen, "the time limit must be more than 0 and at most 100 years");
		m->estimate = f->i;
		break;
	case SU_NAME: m->name = s; break;
	case SU_SCRIPT:
		m->script = f->data;
		m->script_len = f->len;
		break;
	case SU_CWD:
		if (s[0] != '/')
			return errf(err, errlen, "the working directory must be an absolute path");
		m->cwd = s;
		break;
	case SU_OUT: m->out = s; break;
	case SU_ERR: m->err = s; break;
	case SU_DEPEND: m->depend = s; break;
	case SU_ARRAY: m->array = s; break;
	case SU_UMASK:
		if (f->i < 0 || f->i > 0777)
			return errf(err, errlen, "the umask must be from 0 to 0777");
		m->has_umask = true;
		m->umask = (uint32_t)f->i;
		break;
	case SU_ARG:
	case SU_ENV:
		if (f->tag == SU_ENV && (!strchr(s, '=') || s[0] == '='))
			return errf(err, errlen, "an environment entry must be NAME=value");
		slot = f->tag == SU_ARG ? arena_push(c->a, (void **)&m->argv, &m->argc, sizeof *slot)
		                        : arena_push(c->a, (void **)&m->env, &m->envc, sizeof *slot);
		if (!slot)
			return NOMEM(err, errlen);
		*slot = s;
		break;
	}
	return 0;
}

int proto_dec_submit(const uint8_t *frame, size_t len, struct proto_submit *m,
                     struct proto_arena *a, char *err, size_t errlen)
{
	struct submit_ctx c = { m, a };

	*m = (struct proto_submit){ 0 };
	return walk_frame(frame, len, PT_SUBMIT, submit_spec, sizeof submit_spec / sizeof *submit_spec,
	                  take_submit, &c, err, errlen);
}

/* ---- LIST / INFO, PROFILE ---- */

enum { LI_ALL = 1, LI_JOB, LI_FORECAST, LI_ELEMENTS, LI_INDEX, LI_ENDED };

static const struct spec list_spec[] = {
	{ LI_ALL, PK_INT, false, false, 0, 0 },
	{ LI_JOB, PK_INT, false, false, 0, 0 },
	{ LI_FORECAST, PK_INT, false, false, 0, 0 },
	{ LI_ELEMENTS, PK_INT, false, false, 0, 0 },
	{ LI_INDEX, PK_INT, false, false, 0, 0 },
	{ LI_ENDED, PK_INT, false, false, 0, 0 },
};
#define NLIST_SPEC (sizeof list_spec / sizeof *list_spec)

int proto_enc_list(struct proto_buf *b, enum proto_type type, const struct proto_list *m)
{
	proto_start(b, type);
	if (m->all_users)
		proto_put_int(b, LI_ALL, 1);
	if (m->has_job)
		proto_put_int(b, LI_JOB, (int64_t)m->job);
	if (m->forecast)
		proto_put_int(b, LI_FORECAST, 1);
	if (m->elements)
		proto_put_int(b, LI_ELEMENTS, 1);
	if (m->index)
		proto_put_int(b, LI_INDEX, m->index);
	if (m->has_ended)
		proto_put_int(b, LI_ENDED, m->ended);
	return proto_finish(b);
}

static int take_list(const struct field *f, void *vm, char *err, size_t errlen)
{
	struct proto_list *m = vm;

	if (f->tag == LI_ALL) {
		if (f->i != 0 && f->i != 1)
			return errf(err, errlen, "'all users' must be 0 or 1");
		m->all_users = f->i;
	} else if (f->tag == LI_FORECAST) {
		if (f->i != 0 && f->i != 1)
			return errf(err, errlen, "'forecast' must be 0 or 1");
		m->forecast = f->i;
	} else if (f->tag == LI_ELEMENTS) {
		if (f->i != 0 && f->i != 1)
			return errf(err, errlen, "'elements' must be 0 or 1");
		m->elements = f->i;
	} else if (f->tag == LI_INDEX) {
		if (f->i < 1 || f->i > UINT32_MAX)
			return errf(err, errlen, "an array index must be from 1 to %u", UINT32_MAX);
		m->index = (uint32_t)f->i;
	} else if (f->tag == LI_ENDED) {
		if (f->i < 0 || f->i > PROTO_MAX_ENDED)
			return errf(err, errlen, "'ended' must be from 0 to %u", PROTO_MAX_ENDED);
		m->has_ended = true;
		m->ended = (uint32_t)f->i;
	} else {
		m->has_job = true;
		m->job = (uint64_t)f->i;
	}
	return 0;
}

int proto_dec_list(const uint8_t *frame, size_t len, struct proto_list *m, char *err, size_t errlen)
{
	*m = (struct proto_list){ 0 };
	if (len >= PROTO_HEADER && frame[5] == PT_INFO) {
		if (walk_frame(frame, len, PT_INFO, list_spec, NLIST_SPEC, take_list, m, err,
		               errlen) < 0)
			return -1;
		return m->has_job ? 0 : errf(err, errlen, "which job? (field %u is missing)", LI_JOB);
	}
	return walk_frame(frame, len, PT_LIST, list_spec, NLIST_SPEC, take_list, m, err, errlen);
}

int proto_enc_profile(struct proto_buf *b)
{
	proto_start(b, PT_PROFILE);
	return proto_finish(b);
}

/* ---- CANCEL ---- */

enum { CA_ID = 1, CA_SIGNAL };
static const struct spec cancel_spec[] = {
	{ CA_ID, PK_INT, true, true, 0, 0 },
	{ CA_SIGNAL, PK_INT, false, false, 0, 0 },
};

int proto_enc_cancel(struct proto_buf *b, const struct proto_cancel *m)
{
	proto_start(b, PT_CANCEL);
	for (uint32_t k = 0; k < m->count; k++)
		proto_put_int(b, CA_ID, (int64_t)m->ids[k]);
	if (m->signal)
		proto_put_int(b, CA_SIGNAL, m->signal);
	return proto_finish(b);
}

struct cancel_ctx {
	struct proto_cancel *m;
	struct proto_arena *a;
};

static int take_cancel(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct cancel_ctx *c = vctx;
	uint64_t *slot;

	if (f->tag == CA_SIGNAL) {
		if (f->i < 1 || f->i > 64)
			return errf(err, errlen, "bad signal %lld", (long long)f->i);
		c->m->signal = (int32_t)f->i;
		return 0;
	}
	if (!(slot = arena_push(c->a, (void **)&c->m->ids, &c->m->count, sizeof *slot)))
		return NOMEM(err, errlen);
	*slot = (uint64_t)f->i;
	return 0;
}

int proto_dec_cancel(const uint8_t *frame, size_t len, struct proto_cancel *m,
                     struct proto_arena *a, char *err, size_t errlen)
{
	struct cancel_ctx c = { m, a };

	*m = (struct proto_cancel){ 0 };
	return walk_frame(frame, len, PT_CANCEL, cancel_spec, 2, take_cancel, &c, err, errlen);
}

/* ---- ERROR ---- */

enum { ER_CODE = 1, ER_MESSAGE };
static const struct spec error_spec[] = {
	{ ER_CODE, PK_INT, true, false, 0, 0 },
	{ ER_MESSAGE, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
};

int proto_enc_error(struct proto_buf *b, const struct proto_error *m)
{
	proto_start(b, PT_ERROR);
	proto_put_int(b, ER_CODE, m->code);
	if (m->message)
		proto_put_bytes(b, ER_MESSAGE, m->message,
		                strnlen(m->message, PROTO_MAX_STRING));
	return proto_finish(b);
}

struct error_ctx {
	struct proto_error *m;
	struct proto_arena *a;
};

static int take_error(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct error_ctx *c = vctx;

	if (f->tag == ER_CODE) {
		c->m->code = (enum proto_err)(f->i >= 0 && f->i < 256 ? f->i : PE_INTERNAL);
	} else if (!(c->m->message = arena_str(c->a, f))) {
		return NOMEM(err, errlen);
	}
	return 0;
}

int proto_dec_error(const uint8_t *frame, size_t len, struct proto_error *m,
                    struct proto_arena *a, char *err, size_t errlen)
{
	struct error_ctx c = { m, a };

	*m = (struct proto_error){ 0 };
	return walk_frame(frame, len, PT_ERROR, error_spec, 2, take_error, &c, err, errlen);
}

/* ---- SUBMITTED ---- */

enum { SD_JOB = 1, SD_START, SD_KIND, SD_ESTIMATE, SD_ELEMENTS };
static const struct spec submitted_spec[] = {
	{ SD_JOB, PK_INT, true, false, 0, 0 },
	{ SD_START, PK_INT, true, false, 0, 0 },
	{ SD_KIND, PK_INT, true, false, 0, 0 },
	{ SD_ESTIMATE, PK_INT, false, false, 0, 0 },
	{ SD_ELEMENTS, PK_INT, false, false, 0, 0 },
};

int proto_enc_submitted(struct proto_buf *b, const struct proto_submitted *m)
{
	proto_start(b, PT_SUBMITTED);
	proto_put_int(b, SD_JOB, (int64_t)m->job);
	proto_put_int(b, SD_START, m->start);
	proto_put_int(b, SD_KIND, m->kind);
	if (m->estimate > 0)
		proto_put_int(b, SD_ESTIMATE, m->estimate);
	if (m->elements > 0)
		proto_put_int(b, SD_ELEMENTS, m->elements);
	return proto_finish(b);
}

static int check_kind(int64_t v, char *err, size_t errlen)
{
	return v >= PS_NONE && v <= PS_PREDICTED ? 0 : errf(err, errlen, "unknown start kind %lld",
	                                                    (long long)v);
}

static int take_submitted(const struct field *f, void *vm, char *err, size_t errlen)
{
	struct proto_submitted *m = vm;

	switch (f->tag) {
	case SD_JOB: m->job = (uint64_t)f->i; break;
	case SD_START: m->start = f->i; break;
	case SD_KIND:
		if (check_kind(f->i, err, errlen) < 0)
			return -1;
		m->kind = (enum proto_start_kind)f->i;
		break;
	case SD_ESTIMATE:
		if (f->i <= 0)
			return errf(err, errlen, "bad time limit %lld", (long long)f->i);
		m->estimate = f->i;
		break;
	case SD_ELEMENTS:
		if (f->i < 1 || f->i > UINT32_MAX)
			return errf(err, errlen, "bad element count %lld", (long long)f->i);
		m->elements = (uint32_t)f->i;
		break;
	}
	return 0;
}

int proto_dec_submitted(const uint8_t *frame, size_t len, struct proto_submitted *m,
                        char *err, size_t errlen)
{
	*m = (struct proto_submitted){ 0 };
	return walk_frame(frame, len, PT_SUBMITTED, submitted_spec,
	                  sizeof submitted_spec / sizeof *submitted_spec, take_submitted, m, err,
	                  errlen);
}

/* ---- JOBS ---- */

enum {
	JO_ID = 1, JO_UID, JO_USER, JO_NAME, JO_STATE, JO_NODES, JO_ESTIMATE, JO_SUBMIT,
	JO_START, JO_END, JO_START_KIND, JO_EXIT, JO_NODE_LIST, JO_CWD, JO_OUT, JO_ERR, JO_REASON,
	JO_CPU_US, JO_CPU_SRC, JO_MEM_KB, JO_MEM_SRC, JO_BROKEN, JO_FIRST_GUARANTEE, JO_PENDING,
	JO_DEPEND, JO_ARRAY, JO_INDEX, JO_COUNTS,
};
enum { JS_JOB = 1, JS_TOTAL, JS_FORECAST_AT, JS_FORECAST_STALE };

static const struct spec jobs_spec[] = {
	{ JS_JOB, PK_GROUP, false, true, 0, PROTO_MAX_RECORDS },
	{ JS_TOTAL, PK_INT, false, false, 0, 0 },
	{ JS_FORECAST_AT, PK_INT, false, false, 0, 0 },
	{ JS_FORECAST_STALE, PK_INT, false, false, 0, 0 },
};
#define NJOBS_SPEC (sizeof jobs_spec / sizeof *jobs_spec)
static const struct spec job_spec[] = {
	{ JO_ID, PK_INT, true, false, 0, 0 },
	{ JO_UID, PK_INT, true, false, 0, 0 },
	{ JO_USER, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ JO_NAME, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ JO_STATE, PK_BYTES, true, false, PROTO_MAX_STRING, 0 },
	{ JO_NODES, PK_INT, true, false, 0, 0 },
	{ JO_ESTIMATE, PK_INT, true, false, 0, 0 },
	{ JO_SUBMIT, PK_INT, true, false, 0, 0 },
	{ JO_START, PK_INT, false, false, 0, 0 },
	{ JO_END, PK_INT, false, false, 0, 0 },
	{ JO_START_KIND, PK_INT, false, false, 0, 0 },
	{ JO_EXIT, PK_INT, false, false, 0, 0 },
	{ JO_NODE_LIST, PK_BYTES, false, false, PROTO_MAX_PAYLOAD / 2, 0 },
	{ JO_CWD, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ JO_OUT, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ JO_ERR, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ JO_REASON, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ JO_CPU_US, PK_INT, false, false, 0, 0 },
	{ JO_CPU_SRC, PK_INT, false, false, 0, 0 },
	{ JO_MEM_KB, PK_INT, false, false, 0, 0 },
	{ JO_MEM_SRC, PK_INT, false, false, 0, 0 },
	{ JO_BROKEN, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ JO_FIRST_GUARANTEE, PK_INT, false, false, 0, 0 },
	{ JO_PENDING, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ JO_DEPEND, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ JO_ARRAY, PK_INT, false, false, 0, 0 },
	{ JO_INDEX, PK_INT, false, false, 0, 0 },
	{ JO_COUNTS, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
};

static void put_job(struct proto_buf *b, const struct proto_job *j)
{
	size_t g = proto_group_open(b, JS_JOB);

	proto_put_int(b, JO_ID, (int64_t)j->id);
	proto_put_int(b, JO_UID, j->uid);
	proto_put_str(b, JO_USER, j->user);
	proto_put_str(b, JO_NAME, j->name);
	proto_put_str(b, JO_STATE, j->state ? j->state : "?");
	proto_put_int(b, JO_NODES, j->nodes);
	proto_put_int(b, JO_ESTIMATE, j->estimate);
	proto_put_int(b, JO_SUBMIT, j->submit);
	if (j->start_kind != PS_NONE) {
		proto_put_int(b, JO_START, j->start);
		proto_put_int(b, JO_START_KIND, j->start_kind);
	}
	if (j->start_kind != PS_NONE || j->end != 0)	/* an end without a start: cancelled queued */
		proto_put_int(b, JO_END, j->end);
	if (j->has_exit)
		proto_put_int(b, JO_EXIT, j->exit_status);
	proto_put_str(b, JO_NODE_LIST, j->node_list);
	proto_put_str(b, JO_CWD, j->cwd);
	proto_put_str(b, JO_OUT, j->out);
	proto_put_str(b, JO_ERR, j->err);
	if (j->reason)
		proto_put_bytes(b, JO_REASON, j->reason, strnlen(j->reason, PROTO_MAX_STRING));
	if (j->broken)
		proto_put_bytes(b, JO_BROKEN, j->broken, strnlen(j->broken, PROTO_MAX_STRING));
	if (j->pending)
		proto_put_bytes(b, JO_PENDING, j->pending, strnlen(j->pending, PROTO_MAX_STRING));
	if (j->depend)
		proto_put_bytes(b, JO_DEPEND, j->depend, strnlen(j->depend, PROTO_MAX_STRING));
	if (j->array_id) {
		proto_put_int(b, JO_ARRAY, (int64_t)j->array_id);
		proto_put_int(b, JO_INDEX, j->array_index);
	}
	if (j->array_counts)
		proto_put_bytes(b, JO_COUNTS, j->array_counts,
		                strnlen(j->array_counts, PROTO_MAX_STRING));
	if (j->first_guarantee != BF_NEVER && j->first_guarantee != 0)
		proto_put_int(b, JO_FIRST_GUARANTEE, j->first_guarantee);
	/* A usage with a known source and a value, or nothing. */
	if (j->cpu_src > PU_NONE && j->cpu_src <= PU_RUSAGE && j->cpu_us >= 0) {
		proto_put_int(b, JO_CPU_US, j->cpu_us);
		proto_put_int(b, JO_CPU_SRC, j->cpu_src);
	}
	if (j->mem_src > PU_NONE && j->mem_src <= PU_RUSAGE && j->mem_kb >= 0) {
		proto_put_int(b, JO_MEM_KB, j->mem_kb);
		proto_put_int(b, JO_MEM_SRC, j->mem_src);
	}
	proto_group_close(b, g);
}

/* The fields after the jobs: the total, the forecast's. */
static void put_tail(struct proto_buf *b, const struct proto_jobs *m)
{
	if (m->total > m->count)
		proto_put_int(b, JS_TOTAL, m->total);
	if (m->forecast_at > 0 && m->forecast_at < BF_NEVER)	/* (0: a struct left zeroed) */
		proto_put_int(b, JS_FORECAST_AT, m->forecast_at);
	if (m->forecast_stale)
		proto_put_int(b, JS_FORECAST_STALE, 1);
}

int proto_enc_jobs(struct proto_buf *b, const struct proto_jobs *m)
{
	proto_start(b, PT_JOBS);
	for (uint32_t k = 0; k < m->count; k++)
		put_job(b, &m->jobs[k]);
	put_tail(b, m);
	return proto_finish(b);
}

void proto_jobs_begin(struct proto_buf *b)
{
	proto_start(b, PT_JOBS);
}

/* Room kept for the fields that proto_jobs_end may add (three ints of
 * 10 bytes). */
#define TOTAL_ROOM 32

bool proto_jobs_add(struct proto_buf *b, const struct proto_job *j)
{
	size_t was = b->len;

	if (b->failed)
		return false;
	put_job(b, j);
	if (!b->failed && b->len + TOTAL_ROOM <= PROTO_HEADER + PROTO_MAX_PAYLOAD)
		return true;
	b->len = was;	/* it does not fit (or memory ran out): as before it */
	b->failed = false;
	return false;
}

int proto_jobs_end(struct proto_buf *b, uint32_t count, uint32_t total)
{
	return proto_jobs_finish(b, &(struct proto_jobs){ .count = count, .total = total,
	                                                  .forecast_at = BF_NEVER });
}

int proto_jobs_finish(struct proto_buf *b, const struct proto_jobs *tail)
{
	put_tail(b, tail);
	return proto_finish(b);
}

struct jobs_ctx {
	struct proto_jobs *m;
	struct proto_job *cur;
	struct proto_arena *a;
};

static int take_job_field(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct jobs_ctx *c = vctx;
	struct proto_job *j = c->cur;
	const char *s = NULL;

	if (f->kind == PK_BYTES && !(s = arena_str(c->a, f)))
		return NOMEM(err, errlen);
	switch (f->tag) {
	case JO_ID: j->id = (uint64_t)f->i; break;
	case JO_UID:
		if (f->i < 0 || f->i > UINT32_MAX)
			return errf(err, errlen, "bad uid");
		j->uid = (uint32_t)f->i;
		break;
	case JO_USER: j->user = s; break;
	case JO_NAME: j->name = s; break;
	case JO_STATE: j->state = s; break;
	case JO_NODES:
		if (f->i < 0 || f->i > UINT32_MAX)
			return errf(err, errlen, "bad node count");
		j->nodes = (uint32_t)f->i;
		break;
	case JO_ESTIMATE: j->estimate = f->i; break;
	case JO_SUBMIT: j->submit = f->i; break;
	case JO_START: j->start = f->i; break;
	case JO_END: j->end = f->i; break;
	case JO_START_KIND:
		if (check_kind(f->i, err, errlen) < 0)
			return -1;
		j->start_kind = (enum proto_start_kind)f->i;
		break;
	case JO_EXIT:
		if (f->i < INT32_MIN || f->i > INT32_MAX)
			return errf(err, errlen, "bad exit status");
		j->has_exit = true;
		j->exit_status = (int32_t)f->i;
		break;
	case JO_NODE_LIST: j->node_list = s; break;
	case JO_CWD: j->cwd = s; break;
	case JO_OUT: j->out = s; break;
	case JO_ERR: j->err = s; break;
	case JO_REASON: j->reason = s; break;
	case JO_BROKEN: j->broken = s; break;
	case JO_PENDING: j->pending = s; break;
	case JO_DEPEND: j->depend = s; break;
	case JO_COUNTS: j->array_counts = s; break;
	case JO_ARRAY:
		if (f->i < 1)
			return errf(err, errlen, "bad array id");
		j->array_id = (uint64_t)f->i;
		break;
	case JO_INDEX:
		if (f->i < 0 || f->i > UINT32_MAX)
			return errf(err, errlen, "bad array index");
		j->array_index = (uint32_t)f->i;
		break;
	case JO_FIRST_GUARANTEE:
		if (f->i < 0 || f->i >= BF_NEVER)
			return errf(err, errlen, "bad guarantee");
		j->first_guarantee = f->i;
		break;
	case JO_CPU_US:
	case JO_MEM_KB:
		if (f->i < 0)
			return errf(err, errlen, "negative usage");
		*(f->tag == JO_CPU_US ? &j->cpu_us : &j->mem_kb) = f->i;
		break;
	case JO_CPU_SRC:
	case JO_MEM_SRC:
		if (f->i < PU_CGROUP || f->i > PU_RUSAGE)
			return errf(err, errlen, "unknown usage source %lld", (long long)f->i);
		*(f->tag == JO_CPU_SRC ? &j->cpu_src : &j->mem_src) = (enum proto_usage_src)f->i;
		break;
	}
	return 0;
}

static int take_job(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct jobs_ctx *c = vctx;

	if (f->tag == JS_TOTAL) {
		if (f->i < 0 || f->i > UINT32_MAX)
			return errf(err, errlen, "bad total");
		c->m->total = (uint32_t)f->i;
		return 0;
	}
	if (f->tag == JS_FORECAST_AT) {
		if (f->i <= 0 || f->i >= BF_NEVER)
			return errf(err, errlen, "bad forecast time");
		c->m->forecast_at = f->i;
		return 0;
	}
	if (f->tag == JS_FORECAST_STALE) {
		if (f->i != 0 && f->i != 1)
			return errf(err, errlen, "'forecast stale' must be 0 or 1");
		c->m->forecast_stale = f->i;
		return 0;
	}
	c->cur = arena_push(c->a, (void **)&c->m->jobs, &c->m->count, sizeof *c->cur);
	if (!c->cur)
		return NOMEM(err, errlen);
	c->cur->cpu_us = c->cur->mem_kb = -1;	/* unknown unless sent */
	c->cur->first_guarantee = BF_NEVER;
	if (walk(f->data, f->data + f->len, job_spec, sizeof job_spec / sizeof *job_spec,
	         take_job_field, c, err, errlen) < 0)
		return -1;
	/* A usage comes with its source, or not at all. */
	if ((c->cur->cpu_us >= 0) != (c->cur->cpu_src != PU_NONE) ||
	    (c->cur->mem_kb >= 0) != (c->cur->mem_src != PU_NONE))
		return errf(err, errlen, "a usage without its source, or a source without a usage");
	return 0;
}

int proto_dec_jobs(const uint8_t *frame, size_t len, struct proto_jobs *m,
                   struct proto_arena *a, char *err, size_t errlen)
{
	struct jobs_ctx c = { m, NULL, a };

	*m = (struct proto_jobs){ .forecast_at = BF_NEVER };
	return walk_frame(frame, len, PT_JOBS, jobs_spec, NJOBS_SPEC, take_job, &c, err, errlen);
}

/* ---- CANCELLED ---- */

enum { CD_RESULT = 1 };
enum { CR_ID = 1, CR_CODE };
static const struct spec cancelled_spec[] = {
	{ CD_RESULT, PK_GROUP, false, true, 0, PROTO_MAX_RECORDS },
};
static const struct spec result_spec[] = {
	{ CR_ID, PK_INT, true, false, 0, 0 },
	{ CR_CODE, PK_INT, true, false, 0, 0 },
};

/* PT_CANCELLED and PT_JOBCTLED: a result per job. */
static int enc_results(struct proto_buf *b, enum proto_type type, const struct proto_cancelled *m)
{
	proto_start(b, type);
	for (uint32_t k = 0; k < m->count; k++) {
		size_t g = proto_group_open(b, CD_RESULT);

		proto_put_int(b, CR_ID, (int64_t)m->ids[k]);
		proto_put_int(b, CR_CODE, m->codes[k]);
		proto_group_close(b, g);
	}
	return proto_finish(b);
}

struct cancelled_ctx {
	struct proto_cancelled *m;
	struct proto_arena *a;
	uint64_t *ids;
	enum proto_err *codes;
	uint32_t nids, ncodes;
};

static int take_result_field(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct cancelled_ctx *c = vctx;

	if (f->tag == CR_ID) {
		c->ids[c->nids - 1] = (uint64_t)f->i;
	} else {
		if (f->i < 0 || f->i > PE_LAST)
			return errf(err, errlen, "unknown result code %lld", (long long)f->i);
		c->codes[c->ncodes - 1] = (enum proto_err)f->i;
	}
	return 0;
}

static int take_result(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct cancelled_ctx *c = vctx;

	if (!arena_push(c->a, (void **)&c->ids, &c->nids, sizeof *c->ids) ||
	    !arena_push(c->a, (void **)&c->codes, &c->ncodes, sizeof *c->codes))
		return NOMEM(err, errlen);
	return walk(f->data, f->data + f->len, result_spec, 2, take_result_field, c, err, errlen);
}

static int dec_results(const uint8_t *frame, size_t len, enum proto_type type,
                       struct proto_cancelled *m, struct proto_arena *a, char *err, size_t errlen)
{
	struct cancelled_ctx c = { .m = m, .a = a };

	*m = (struct proto_cancelled){ 0 };
	if (walk_frame(frame, len, type, cancelled_spec, 1, take_result, &c, err, errlen) < 0)
		return -1;
	m->ids = c.ids;
	m->codes = c.codes;
	m->count = c.nids;
	return 0;
}

int proto_enc_cancelled(struct proto_buf *b, const struct proto_cancelled *m)
{
	return enc_results(b, PT_CANCELLED, m);
}

int proto_dec_cancelled(const uint8_t *frame, size_t len, struct proto_cancelled *m,
                        struct proto_arena *a, char *err, size_t errlen)
{
	return dec_results(frame, len, PT_CANCELLED, m, a, err, errlen);
}

int proto_enc_jobctled(struct proto_buf *b, const struct proto_cancelled *m)
{
	return enc_results(b, PT_JOBCTLED, m);
}

int proto_dec_jobctled(const uint8_t *frame, size_t len, struct proto_cancelled *m,
                       struct proto_arena *a, char *err, size_t errlen)
{
	return dec_results(frame, len, PT_JOBCTLED, m, a, err, errlen);
}

/* ---- JOBCTL ---- */

enum { JC_OP = 1, JC_ADMIN, JC_ID, JC_LIMIT };
static const struct spec jobctl_spec[] = {
	{ JC_OP, PK_INT, true, false, 0, 0 },
	{ JC_ADMIN, PK_INT, false, false, 0, 0 },
	{ JC_ID, PK_INT, true, true, 0, 0 },
	{ JC_LIMIT, PK_INT, false, false, 0, 0 },
};

int proto_enc_jobctl(struct proto_buf *b, const struct proto_jobctl *m)
{
	proto_start(b, PT_JOBCTL);
	proto_put_int(b, JC_OP, m->op);
	if (m->admin)
		proto_put_int(b, JC_ADMIN, 1);
	for (uint32_t k = 0; k < m->count; k++)
		proto_put_int(b, JC_ID, (int64_t)m->ids[k]);
	if (m->op == PJ_LIMIT)
		proto_put_int(b, JC_LIMIT, m->limit);
	return proto_finish(b);
}

struct jobctl_ctx {
	struct proto_jobctl *m;
	struct proto_arena *a;
	uint64_t *ids;
};

static int take_jobctl(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct jobctl_ctx *c = vctx;

	switch (f->tag) {
	case JC_OP:
		if (f->i < PJ_HOLD || f->i > PJ_LAST)
			return errf(err, errlen, "unknown job operation %lld", (long long)f->i);
		c->m->op = (enum proto_jobop)f->i;
		break;
	case JC_ADMIN: c->m->admin = f->i != 0; break;
	case JC_LIMIT:
		if (f->i <= 0 || f->i > BF_MAX_DURATION)
			return errf(err, errlen, "bad time limit");
		c->m->limit = f->i;
		break;
	case JC_ID:
		if (!arena_push(c->a, (void **)&c->ids, &c->m->count, sizeof *c->ids))
			return NOMEM(err, errlen);
		c->ids[c->m->count - 1] = (uint64_t)f->i;
		break;
	}
	return 0;
}

int proto_dec_jobctl(const uint8_t *frame, size_t len, struct proto_jobctl *m,
                     struct proto_arena *a, char *err, size_t errlen)
{
	struct jobctl_ctx c = { m, a, NULL };

	*m = (struct proto_jobctl){ 0 };
	if (walk_frame(frame, len, PT_JOBCTL, jobctl_spec, 4, take_jobctl, &c, err, errlen) < 0)
		return -1;
	if ((m->op == PJ_LIMIT) != (m->limit > 0))
		return errf(err, errlen, "a time limit goes with, and only with, a limit request");
	m->ids = c.ids;
	return 0;
}

/* ---- STEPS ---- */

enum { ST_NODES = 1, ST_STEP };
enum { SS_T = 1, SS_FREE };
static const struct spec steps_spec[] = {
	{ ST_NODES, PK_INT, true, false, 0, 0 },
	{ ST_STEP, PK_GROUP, false, true, 0, PROTO_MAX_RECORDS },
};
static const struct spec step_spec[] = {
	{ SS_T, PK_INT, true, false, 0, 0 },
	{ SS_FREE, PK_INT, true, false, 0, 0 },
};

int proto_enc_steps(struct proto_buf *b, const struct proto_steps *m)
{
	proto_start(b, PT_STEPS);
	proto_put_int(b, ST_NODES, m->nodes);
	for (uint32_t k = 0; k < m->count; k++) {
		size_t g = proto_group_open(b, ST_STEP);

		proto_put_int(b, SS_T, m->steps[k].t);
		proto_put_int(b, SS_FREE, m->steps[k].free);
		proto_group_close(b, g);
	}
	return proto_finish(b);
}

struct steps_ctx {
	struct proto_steps *m;
	struct proto_arena *a;
	struct proto_step *steps;
	uint32_t n;
};

static int take_step_field(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct steps_ctx *c = vctx;

	(void)err;
	(void)errlen;
	if (f->tag == SS_T)
		c->steps[c->n - 1].t = f->i;
	else
		c->steps[c->n - 1].free = f->i;
	return 0;
}

static int take_steps(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct steps_ctx *c = vctx;

	if (f->tag == ST_NODES) {
		if (f->i < 1 || f->i > UINT32_MAX)
			return errf(err, errlen, "bad partition size");
		c->m->nodes = (uint32_t)f->i;
		return 0;
	}
	if (!arena_push(c->a, (void **)&c->steps, &c->n, sizeof *c->steps))
		return NOMEM(err, errlen);
	return walk(f->data, f->data + f->len, step_spec, 2, take_step_field, c, err, errlen);
}

int proto_dec_steps(const uint8_t *frame, size_t len, struct proto_steps *m,
                    struct proto_arena *a, char *err, size_t errlen)
{
	struct steps_ctx c = { .m = m, .a = a };

	*m = (struct proto_steps){ 0 };
	if (walk_frame(frame, len, PT_STEPS, steps_spec, 2, take_steps, &c, err, errlen) < 0)
		return -1;
	m->steps = c.steps;
	m->count = c.n;
	return 0;
}

/* ---- NODES / NODEMAP ---- */

enum { NM_NODES = 1, NM_HELD, NM_DRAINED, NM_DOWN };
enum { HD_JOB = 1, HD_UID, HD_USER, HD_NODES };
static const struct spec nodemap_spec[] = {
	{ NM_NODES, PK_BYTES, true, false, PROTO_MAX_PAYLOAD / 2, 0 },
	{ NM_HELD, PK_GROUP, false, true, 0, PROTO_MAX_RECORDS },
	{ NM_DRAINED, PK_BYTES, false, false, PROTO_MAX_PAYLOAD / 2, 0 },
	{ NM_DOWN, PK_BYTES, false, false, PROTO_MAX_PAYLOAD / 2, 0 },
};
static const struct spec holder_spec[] = {
	{ HD_JOB, PK_INT, true, false, 0, 0 },
	{ HD_UID, PK_INT, true, false, 0, 0 },
	{ HD_USER, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ HD_NODES, PK_BYTES, true, false, PROTO_MAX_PAYLOAD / 2, 0 },
};

int proto_enc_nodes(struct proto_buf *b)
{
	proto_start(b, PT_NODES);
	return proto_finish(b);
}

int proto_enc_nodemap(struct proto_buf *b, const struct proto_nodemap *m)
{
	proto_start(b, PT_NODEMAP);
	proto_put_str(b, NM_NODES, m->nodes ? m->nodes : "");
	for (uint32_t k = 0; k < m->count; k++) {
		size_t g = proto_group_open(b, NM_HELD);

		proto_put_int(b, HD_JOB, (int64_t)m->held[k].job);
		proto_put_int(b, HD_UID, m->held[k].uid);
		proto_put_str(b, HD_USER, m->held[k].user);
		proto_put_str(b, HD_NODES, m->held[k].nodes ? m->held[k].nodes : "");
		proto_group_close(b, g);
	}
	if (m->drained)
		proto_put_str(b, NM_DRAINED, m->drained);
	if (m->down)
		proto_put_str(b, NM_DOWN, m->down);
	return proto_finish(b);
}

struct nodemap_ctx {
	struct proto_nodemap *m;
	struct proto_arena *a;
	struct proto_holder *held;
	uint32_t n;
};

static int take_holder_field(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct nodemap_ctx *c = vctx;
	struct proto_holder *h = &c->held[c->n - 1];
	const char *s = NULL;

	if (f->kind == PK_BYTES && !(s = arena_str(c->a, f)))
		return NOMEM(err, errlen);
	switch (f->tag) {
	case HD_JOB: h->job = (uint64_t)f->i; break;
	case HD_UID:
		if (f->i < 0 || f->i > UINT32_MAX)
			return errf(err, errlen, "bad uid");
		h->uid = (uint32_t)f->i;
		break;
	case HD_USER: h->user = s; break;
	case HD_NODES: h->nodes = s; break;
	}
	return 0;
}

static int take_nodemap(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct nodemap_ctx *c = vctx;

	if (f->tag == NM_NODES || f->tag == NM_DRAINED || f->tag == NM_DOWN) {
		const char *s = arena_str(c->a, f);

		if (!s)
			return NOMEM(err, errlen);
		*(f->tag == NM_NODES ? &c->m->nodes : f->tag == NM_DRAINED ? &c->m->drained :
		  &c->m->down) = s;
		return 0;
	}
	if (!arena_push(c->a, (void **)&c->held, &c->n, sizeof *c->held))
		return NOMEM(err, errlen);
	c->held[c->n - 1] = (struct proto_holder){ 0 };
	return walk(f->data, f->data + f->len, holder_spec, 4, take_holder_field, c, err, errlen);
}

int proto_dec_nodemap(const uint8_t *frame, size_t len, struct proto_nodemap *m,
                      struct proto_arena *a, char *err, size_t errlen)
{
	struct nodemap_ctx c = { .m = m, .a = a };

	*m = (struct proto_nodemap){ 0 };
	if (walk_frame(frame, len, PT_NODEMAP, nodemap_spec, 4, take_nodemap, &c, err, errlen) < 0)
		return -1;
	m->held = c.held;
	m->count = c.n;
	return 0;
}

/* ---- NODECTL ---- */

enum { NC_OP = 1, NC_NODES, NC_REASON };
static const struct spec nodectl_spec[] = {
	{ NC_OP, PK_INT, true, false, 0, 0 },
	{ NC_NODES, PK_BYTES, true, false, PROTO_MAX_STRING, 0 },
	{ NC_REASON, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
};

int proto_enc_empty(struct proto_buf *b, enum proto_type type)
{
	proto_start(b, type);
	return proto_finish(b);
}

int proto_enc_nodectl(struct proto_buf *b, const struct proto_nodectl *m)
{
	proto_start(b, PT_NODECTL);
	proto_put_int(b, NC_OP, m->op);
	proto_put_str(b, NC_NODES, m->nodes ? m->nodes : "");
	proto_put_str(b, NC_REASON, m->reason);
	return proto_finish(b);
}

struct nodectl_ctx {
	struct proto_nodectl *m;
	struct proto_arena *a;
};

static int take_nodectl(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct nodectl_ctx *c = vctx;
	const char *s = NULL;

	if (f->kind == PK_BYTES && !(s = arena_str(c->a, f)))
		return NOMEM(err, errlen);
	switch (f->tag) {
	case NC_OP:
		if (f->i < PN_DRAIN || f->i > PN_LAST)
			return errf(err, errlen, "unknown node operation %lld", (long long)f->i);
		c->m->op = (enum proto_nodeop)f->i;
		break;
	case NC_NODES: c->m->nodes = s; break;
	case NC_REASON: c->m->reason = s; break;
	}
	return 0;
}

int proto_dec_nodectl(const uint8_t *frame, size_t len, struct proto_nodectl *m,
                      struct proto_arena *a, char *err, size_t errlen)
{
	struct nodectl_ctx c = { m, a };

	*m = (struct proto_nodectl){ 0 };
	return walk_frame(frame, len, PT_NODECTL, nodectl_spec, 3, take_nodectl, &c, err, errlen);
}

/* ---- NODESTATES ---- */

enum { NS_NODE = 1 };
enum { NO_NAME = 1, NO_STATE, NO_JOB, NO_REASON, NO_BY, NO_SINCE, NO_CHANGED };
static const struct spec nodestates_spec[] = {
	{ NS_NODE, PK_GROUP, false, true, 0, PROTO_MAX_RECORDS },
};
static const struct spec node_spec[] = {
	{ NO_NAME, PK_BYTES, true, false, PROTO_MAX_STRING, 0 },
	{ NO_STATE, PK_INT, true, false, 0, 0 },
	{ NO_JOB, PK_INT, false, false, 0, 0 },
	{ NO_REASON, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ NO_BY, PK_BYTES, false, false, PROTO_MAX_STRING, 0 },
	{ NO_SINCE, PK_INT, false, false, 0, 0 },
	{ NO_CHANGED, PK_INT, false, false, 0, 0 },
};

int proto_enc_nodestates(struct proto_buf *b, const struct proto_nodestates *m)
{
	proto_start(b, PT_NODESTATES);
	for (uint32_t k = 0; k < m->count; k++) {
		const struct proto_node *n = &m->nodes[k];
		size_t g = proto_group_open(b, NS_NODE);

		proto_put_str(b, NO_NAME, n->name ? n->name : "");
		proto_put_int(b, NO_STATE, n->state);
		if (n->job)
			proto_put_int(b, NO_JOB, (int64_t)n->job);
		proto_put_str(b, NO_REASON, n->reason);
		proto_put_str(b, NO_BY, n->by);
		if (n->since != BF_NEVER)
			proto_put_int(b, NO_SINCE, n->since);
		if (n->changed)
			proto_put_int(b, NO_CHANGED, 1);
		proto_group_close(b, g);
	}
	return proto_finish(b);
}

struct nodestates_ctx {
	struct proto_arena *a;
	struct proto_node *nodes;
	uint32_t n;
};

static int take_node_field(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct nodestates_ctx *c = vctx;
	struct proto_node *n = &c->nodes[c->n - 1];
	const char *s = NULL;

	if (f->kind == PK_BYTES && !(s = arena_str(c->a, f)))
		return NOMEM(err, errlen);
	switch (f->tag) {
	case NO_NAME: n->name = s; break;
	case NO_STATE:
		if (f->i < 0 || f->i > PNS_LAST)
			return errf(err, errlen, "unknown node state %lld", (long long)f->i);
		n->state = (enum proto_node_state)f->i;
		break;
	case NO_JOB:
		if (f->i <= 0)
			return errf(err, errlen, "bad job id");
		n->job = (uint64_t)f->i;
		break;
	case NO_REASON: n->reason = s; break;
	case NO_BY: n->by = s; break;
	case NO_SINCE:
		if (f->i < 0 || f->i >= BF_NEVER)
			return errf(err, errlen, "bad time");
		n->since = f->i;
		break;
	case NO_CHANGED: n->changed = f->i != 0; break;
	}
	return 0;
}

static int take_nodestate(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct nodestates_ctx *c = vctx;

	if (!arena_push(c->a, (void **)&c->nodes, &c->n, sizeof *c->nodes))
		return NOMEM(err, errlen);
	c->nodes[c->n - 1] = (struct proto_node){ .since = BF_NEVER };
	return walk(f->data, f->data + f->len, node_spec, 7, take_node_field, c, err, errlen);
}

int proto_dec_nodestates(const uint8_t *frame, size_t len, struct proto_nodestates *m,
                         struct proto_arena *a, char *err, size_t errlen)
{
	struct nodestates_ctx c = { .a = a };

	*m = (struct proto_nodestates){ 0 };
	if (walk_frame(frame, len, PT_NODESTATES, nodestates_spec, 1, take_nodestate, &c, err,
	               errlen) < 0)
		return -1;
	m->nodes = c.nodes;
	m->count = c.n;
	return 0;
}

/* ---- STATUSINFO ---- */

enum { SI_ITEM = 1 };
enum { KV_KEY = 1, KV_VALUE };
static const struct spec statusinfo_spec[] = {
	{ SI_ITEM, PK_GROUP, false, true, 0, 0 },
};
static const struct spec kv_spec[] = {
	{ KV_KEY, PK_BYTES, true, false, PROTO_MAX_STRING, 0 },
	{ KV_VALUE, PK_BYTES, true, false, PROTO_MAX_STRING, 0 },
};

int proto_enc_statusinfo(struct proto_buf *b, const struct proto_statusinfo *m)
{
	proto_start(b, PT_STATUSINFO);
	for (uint32_t k = 0; k < m->count; k++) {
		size_t g = proto_group_open(b, SI_ITEM);

		proto_put_str(b, KV_KEY, m->items[k].key ? m->items[k].key : "");
		proto_put_str(b, KV_VALUE, m->items[k].value ? m->items[k].value : "");
		proto_group_close(b, g);
	}
	return proto_finish(b);
}

struct statusinfo_ctx {
	struct proto_arena *a;
	struct proto_kv *items;
	uint32_t n;
};

static int take_kv_field(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct statusinfo_ctx *c = vctx;
	const char *s = arena_str(c->a, f);

	if (!s)
		return NOMEM(err, errlen);
	if (f->tag == KV_KEY)
		c->items[c->n - 1].key = s;
	else
		c->items[c->n - 1].value = s;
	return 0;
}

static int take_kv(const struct field *f, void *vctx, char *err, size_t errlen)
{
	struct statusinfo_ctx *c = vctx;

	if (!arena_push(c->a, (void **)&c->items, &c->n, sizeof *c->items))
		return NOMEM(err, errlen);
	c->items[c->n - 1] = (struct proto_kv){ 0 };
	return walk(f->data, f->data + f->len, kv_spec, 2, take_kv_field, c, err, errlen);
}

int proto_dec_statusinfo(const uint8_t *frame, size_t len, struct proto_statusinfo *m,
                         struct proto_arena *a, char *err, size_t errlen)
{
	struct statusinfo_ctx c = { .a = a };

	*m = (struct proto_statusinfo){ 0 };
	if (walk_frame(frame, len, PT_STATUSINFO, statusinfo_spec, 1, take_kv, &c, err,
	               errlen) < 0)
		return -1;
	m->items = c.items;
	m->count = c.n;
	return 0;
}

/* ---- HISTORY ---- */

enum { HI_SINCE = 1, HI_UNTIL, HI_UID, HI_AFTER_END, HI_AFTER_ID, HI_MAX };
static const struct spec history_spec[] = {
	{ HI_SINCE, PK_INT, false, false, 0, 0 },
	{ HI_UNTIL, PK_INT, false, false, 0, 0 },
	{ HI_UID, PK_INT, false, false, 0, 0 },
	{ HI_AFTER_END, PK_INT, false, false, 0, 0 },
	{ HI_AFTER_ID, PK_INT, false, false, 0, 0 },
	{ HI_MAX, PK_INT, true, false, 0, 0 },
};

int proto_enc_history(struct proto_buf *b, const struct proto_history *m)
{
	proto_start(b, PT_HISTORY);
	if (m->since != BF_NEVER)
		proto_put_int(b, HI_SINCE, m->since);
	if (m->until != BF_NEVER)
		proto_put_int(b, HI_UNTIL, m->until);
	if (m->uid >= 0)
		proto_put_int(b, HI_UID, m->uid);
	if (m->after_end != BF_NEVER) {
		proto_put_int(b, HI_AFTER_END, m->after_end);
		proto_put_int(b, HI_AFTER_ID, (int64_t)m->after_id);
	}
	proto_put_int(b, HI_MAX, m->max);
	return proto_finish(b);
}

static int take_history(const struct field *f, void *vm, char *err, size_t errlen)
{
	struct proto_history *m = vm;

	switch (f->tag) {
	case HI_SINCE:
	case HI_UNTIL:
	case HI_AFTER_END:
		if (f->i < 0 || f->i >= BF_NEVER)
			return errf(err, errlen, "bad time in field %u", f->tag);
		*(f->tag == HI_SINCE ? &m->since : f->tag == HI_UNTIL ? &m->until : &m->after_end) =
			f->i;
		break;
	case HI_UID:
		if (f->i < 0 || f->i > UINT32_MAX)
			return errf(err, errlen, "bad uid");
		m->uid = f->i;
		break;
	case HI_AFTER_ID: m->after_id = (uint64_t)f->i; break;
	case HI_MAX:
		if (f->i < 1 || f->i > PROTO_HISTORY_PAGE)
			return errf(err, errlen, "a page of 1 to %u jobs, not %lld", PROTO_HISTORY_PAGE,
			            (long long)f->i);
		m->max = (uint32_t)f->i;
		break;
	}
	return 0;
}

int proto_dec_history(const uint8_t *frame, size_t len, struct proto_history *m, char *err,
                      size_t errlen)
{
	*m = (struct proto_history){ .since = BF_NEVER, .until = BF_NEVER, .uid = -1,
	                             .after_end = BF_NEVER };
	return walk_frame(frame, len, PT_HISTORY, history_spec, 6, take_history, m, err, errlen);
}
