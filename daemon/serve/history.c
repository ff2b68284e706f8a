/* Ended jobs from the store, a page at a time (PT_HISTORY): bq -d and
 * bq --swf. Anyone may read the public fields of everyone's ended jobs,
 * as of the listing; the owner and the admins also get the node list,
 * the reason of a failure and the CPU time and memory used. The store
 * keeps ended jobs for keep_ended (backfilld.yaml(5)); older ones are
 * gone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proto.h"
#include "sys/log.h"
#include "sys/store.h"
#include "conn.h"
#include "daemon.h"
#include "history.h"
#include "jobs.h"
#include "peer.h"

/* A page, encoded as the store's rows are visited (their strings live
 * only during the visit): up to the request's count, or what fits one
 * frame (the client's cursor takes the rest with the next page). */
struct page {
	struct conn *c;
	bool admin;		/* asked once a page: it may look the user's groups up */
	struct proto_buf b;
	uint32_t n;
	bool failed;		/* not even one row could be encoded */
};

static int add(const struct store_job *r, void *arg)
{
	struct page *p = arg;
	bool detail = p->admin || conn_uid(p->c) == r->uid;
	struct proto_job o;

	jobs_to_proto(r, detail, BF_NEVER, &o);
	o.cwd = o.out = o.err = NULL;	/* bq -l ID has those */
	if (o.start_kind == PS_NONE && r->end != BF_NEVER)
		o.end = r->end;	/* it left the queue then */
	o.broken = r->broken;
	o.first_guarantee = r->first_guarantee;	/* bq --swf keeps it */
	if (!proto_jobs_add(&p->b, &o)) {
		p->failed = p->n == 0;	/* (a full frame: the next page) */
		return 1;
	}
	p->n++;
	return 0;
}

static void answer_history(struct conn *c)
{
	struct daemon *d = conn_daemon(c);
	const struct proto_history *m = conn_ctx(c);
	struct page p = { .c = c, .admin = peer_is_admin(c) };

	proto_buf_init(&p.b);
	proto_jobs_begin(&p.b);
	if (store_load_history(d->store, m->since, m->until, m->uid, m->after_end, m->after_id,
	                       m->max, add, &p) < 0) {
		log_warnx("reading ended jobs: %s", store_error(d->store));
		conn_error(c, PE_INTERNAL, "reading ended jobs: %s", store_error(d->store));
	} else if (p.failed || proto_jobs_end(&p.b, p.n, 0) < 0) {
		conn_error(c, PE_INTERNAL, "out of memory");
	} else {
		conn_reply(c, &p.b);
	}
	proto_buf_free(&p.b);
}

void history_request(struct conn *c, const uint8_t *frame, size_t len)
{
	struct proto_history *m = malloc(sizeof *m);
	char err[200] = "";

	conn_wait_read(c, m, m ? proto_dec_history(frame, len, m, err, sizeof err) : -1, err,
	                   answer_history);
}
