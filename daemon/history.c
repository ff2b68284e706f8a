/* Ended jobs from the store, a page at a time (PT_HISTORY): bq -d and
 * bq --swf. Anyone may read the public fields of everyone's ended jobs,
 * as of the listing; the owner and the admins also get the node list,
 * the reason of a failure and the CPU time and memory used. The store
 * keeps ended jobs for keep_ended (backfilld.yaml(5)); older ones are
 * gone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "server.h"

struct page {
	struct conn *c;
	bool admin;		/* asked once a page: it may look the user's groups up */
	struct proto_job *jobs;
	uint32_t n, cap;
	char **strs;		/* copies of the rows' strings (alive only in the visit) */
	uint32_t nstrs;
	bool failed;
};

static const char *keep(struct page *p, const char *s)
{
	char *copy;

	if (!s)
		return NULL;
	if (!(copy = strdup(s))) {
		p->failed = true;
		return NULL;
	}
	p->strs[p->nstrs++] = copy;
	return copy;
}

#define STRS_PER_JOB 5

static int add(const struct store_job *r, void *arg)
{
	struct page *p = arg;
	bool detail = p->admin || conn_uid(p->c) == r->uid;
	struct proto_job *o;

	if (p->n == p->cap)
		return 1;
	o = &p->jobs[p->n++];
	jobs_to_proto(r, detail, BF_NEVER, o);
	o->cwd = o->out = o->err = NULL;	/* bq -l ID has those */
	if (o->start_kind == PS_NONE && r->end != BF_NEVER)
		o->end = r->end;	/* it left the queue then */
	o->user = keep(p, r->user);
	o->name = keep(p, r->name);
	o->broken = keep(p, r->broken);
	o->first_guarantee = r->first_guarantee;	/* bq --swf keeps it */
	o->node_list = detail ? keep(p, r->node_list) : NULL;
	o->reason = detail ? keep(p, r->reason) : NULL;
	return 0;
}

static void answer_history(struct conn *c)
{
	struct daemon *d = conn_daemon(c);
	const struct proto_history *m = conn_ctx(c);
	struct page p = { .c = c, .cap = m->max, .admin = handlers_is_admin(c) };
	struct proto_buf b;

	p.jobs = calloc(p.cap, sizeof *p.jobs);
	p.strs = calloc((size_t)p.cap * STRS_PER_JOB, sizeof *p.strs);
	if (!p.jobs || !p.strs) {
		conn_error(c, PE_INTERNAL, "out of memory");
		goto out;
	}
	if (store_load_history(d->store, m->since, m->until, m->uid, m->after_end, m->after_id,
	                       m->max, add, &p) < 0) {
		log_warnx("reading ended jobs: %s", store_error(d->store));
		conn_error(c, PE_INTERNAL, "reading ended jobs: %s", store_error(d->store));
		goto out;
	}
	if (p.failed) {
		conn_error(c, PE_INTERNAL, "out of memory");
		goto out;
	}
	/* A page that does not fit one frame is cut; the client's cursor
	 * takes the rest with the next page. */
	proto_buf_init(&b);
	while (proto_enc_jobs(&b, &(struct proto_jobs){ p.jobs, p.n, 0 }) < 0 && p.n > 1)
		p.n /= 2;
	conn_reply(c, &b);
	proto_buf_free(&b);
out:
	for (uint32_t k = 0; k < p.nstrs; k++)
		free(p.strs[k]);
	free(p.strs);
	free(p.jobs);
}

void history_request(struct conn *c, const uint8_t *frame, size_t len)
{
	struct proto_history *m = malloc(sizeof *m);
	char err[200] = "";

	handlers_wait_read(c, m, m ? proto_dec_history(frame, len, m, err, sizeof err) : -1, err,
	                   answer_history);
}
