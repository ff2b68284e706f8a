/* Holding and releasing queued jobs (PT_JOBCTL): bstop and bresume for a
 * job's owner, bctl hold and release for the admins. See bstop(1).
 *
 * A held job leaves the plan (the core forgets it, as for a cancel: under
 * conservative backfilling the room it had goes to others, whose
 * guarantees only move earlier) and stays the daemon's, queued and held,
 * in the store. Released, it queues again as a new arrival behind the
 * jobs waiting then, with a new guarantee: it gave up its place, and no
 * other job's promise moves for it. A running job is not held.
 * Also a new time limit (bctl limit), first in the queue (bctl top) and a
 * running job queued again (bctl requeue).
 *
 * What an ordinary user asks for here costs a row in the store and a line
 * in the log per job, and can be asked for again at once (bstop, bresume,
 * bstop ...): it is charged to their budget of changes, and its lines to
 * their budget of log lines (ratelimit.h). Root and the admins have none. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "duration.h"
#include "proto.h"
#include "sched.h"
#include "sys/log.h"
#include "sys/store.h"
#include "conn.h"
#include "arrays.h"
#include "daemon.h"
#include "depend.h"
#include "drive.h"
#include "forecast.h"
#include "jobctl.h"
#include "jobs.h"
#include "peer.h"
#include "ratelimit.h"

struct jobctl_result {
	enum proto_jobop op;
	bf_time limit;
	uint32_t n;
	uint64_t *ids;
	enum proto_err *codes;
	bool admin;		/* no budgets */
	char by[300];
};

static void result_free(void *p)
{
	struct jobctl_result *r = p;

	free(r->ids);
	free(r->codes);
	free(r);
}

/* Once durable: one log line per job changed, then the answer. */
static void answer(struct conn *c)
{
	struct jobctl_result *r = conn_ctx(c);
	struct daemon *d = conn_daemon(c);
	struct proto_buf b;

	for (uint32_t k = 0; k < r->n; k++) {
		struct djob *j;

		if (r->codes[k] != PE_OK || !(j = jobs_get(d, r->ids[k])) ||
		    !ratelimit_log_ok(c, r->admin))
			continue;	/* (past the budget: counted, summarised) */
		if (r->op == PJ_LIMIT) {
			char t[64];

			duration_format(r->limit, t, sizeof t);
			log_job(LOG_NOTICE, r->ids[k], j->rec.user, "time limit set to %s by %s", t,
			        r->by);
		} else if (r->op == PJ_REQUEUE) {
			log_job(LOG_NOTICE, r->ids[k], j->rec.user, "requeue asked by %s: terminating "
			        "it, to queue it again", r->by);
		} else if (r->op == PJ_TOP) {
			log_job(LOG_NOTICE, r->ids[k], j->rec.user, "moved to the front of the queue "
			        "by %s", r->by);
		} else {
			log_job(LOG_NOTICE, r->ids[k], j->rec.user, "%s by %s",
			        r->op == PJ_HOLD ? "held" : "released", r->by);
		}
	}
	proto_buf_init(&b);
	proto_enc_jobctled(&b, &(struct proto_cancelled){ r->ids, r->codes, r->n });
	conn_reply(c, &b);
	proto_buf_free(&b);
}

static enum proto_err hold(struct daemon *d, struct djob *j, const char *by)
{
	char detail[400];

	if (j->rec.state != ST_QUEUED || j->rec.held)
		return PE_INVALID;	/* running (not held), or held already */
	if (sched_cancel(d->sched, daemon_now(d), j->rec.id) != SCHED_OK)
		return PE_INTERNAL;
	j->rec.held = true;
	j->rec.guarantee = BF_NEVER;
	forecast_stale(d);
	snprintf(detail, sizeof detail, "held by %s", by);
	drive_store(d, j, detail);
	return PE_OK;
}

static enum proto_err release(struct daemon *d, struct djob *j, const char *by)
{
	struct sched_job_info info;
	bf_time now = daemon_now(d);
	char detail[400], why[1024];
	int rc;

	if (j->rec.state != ST_QUEUED || !j->rec.held)
		return PE_INVALID;
	/* A new arrival now: behind every job waiting (after the jobs it
	 * waits on, too). */
	if ((rc = depend_enter(d, j, now, DEPEND_SUBMIT, now, BF_NEVER, why, sizeof why)) == 1) {
		depend_never(d, j, now);	/* (decided while it was held) */
		return PE_OK;
	}
	if (rc < 0)
		return rc == SCHED_E_TOOBIG || rc == SCHED_E_INVAL ? PE_TOOBIG : PE_INTERNAL;
	j->rec.held = false;
	j->rec.seq = d->next_seq++;	/* its new place, also after a restart */
	j->rec.queued = now;		/* waiting from now (CREASY's priority) */
	if (sched_job_info(d->sched, j->rec.id, &info) == SCHED_OK)
		j->rec.guarantee = j->rec.first_guarantee = info.guarantee;
	forecast_stale(d);
	snprintf(detail, sizeof detail, "released by %s", by);
	drive_store(d, j, detail);
	return PE_OK;
}

void jobctl_release_disk_held(struct daemon *d)
{
	for (uint32_t k = 0; k < d->njobs; k++) {
		struct djob *j = d->jobs[k];

		if (!j->disk_held)
			continue;
		j->disk_held = false;
		if (release(d, j, "the daemon (space is free again)") == PE_OK)
			log_job(LOG_NOTICE, j->rec.id, j->rec.user, "released by the daemon: space "
			        "is free again");
	}
	drive_want_commit(d);
}

/* A new time limit: an admin any, an owner shorter only. */
static enum proto_err limit(struct daemon *d, struct djob *j, bf_time est, bool admin,
                            const char *by)
{
	struct sched_job_info info;
	char was[64], now[64], detail[500];
	int rc;

	if (!admin && est >= j->rec.estimate)
		return PE_DENIED;
	if (!store_state_live(j->rec.state))
		return PE_DONE;
	if (!j->rec.held && (rc = sched_set_limit(d->sched, daemon_now(d), j->rec.id, est)) < 0)
		return rc == SCHED_E_INVAL ? PE_INVALID : PE_INTERNAL;
	duration_format(j->rec.estimate, was, sizeof was);
	duration_format(est, now, sizeof now);
	j->rec.estimate = est;
	if (!j->rec.held && sched_job_info(d->sched, j->rec.id, &info) == SCHED_OK) {
		if (info.state == JOB_RUNNING) {
			bf_time left = j->rec.start + est - daemon_now(d);

			j->rec.hold_end = info.hold_end;	/* a restart plans with it */
			/* A cluster job's node sides enforce the limit themselves. */
			if (d->o.remote && j->sup.pidfd >= 0 &&
			    runner_set_limit(&j->sup, left > 0 ? (left + BF_SEC - 1) / BF_SEC : 0) < 0)
				log_job(LOG_WARNING, j->rec.id, j->rec.user, "cannot tell its nodes the new "
				        "limit: %s", strerror(errno));
		} else
			j->rec.guarantee = info.guarantee;
	}
	forecast_stale(d);
	snprintf(detail, sizeof detail, "time limit %s -> %s by %s", was, now, by);
	drive_store(d, j, detail);
	return PE_OK;
}

/* bctl requeue (admins): a running job is terminated as for a cancel and,
 * once it has ended, queues again (drive.c, requeue). */
static enum proto_err requeue(struct daemon *d, struct djob *j, bool admin, const char *by)
{
	char detail[400];

	if (!admin)
		return PE_DENIED;
	if (j->rec.state != ST_RUNNING || j->rec.kill_why || j->rec.requeue)
		return PE_INVALID;	/* queued, or on its way out already */
	if (sched_cancel(d->sched, daemon_now(d), j->rec.id) < 0)
		return PE_INTERNAL;
	j->rec.requeue = true;
	snprintf(detail, sizeof detail, "requeue asked by %s: terminating it", by);
	drive_store(d, j, detail);
	return PE_OK;
}

/* First in the queue (admins): see sched_top for the guarantees. */
static enum proto_err top(struct daemon *d, struct djob *j, bool admin, const char *by)
{
	struct sched_job_info info;
	char detail[400];
	int rc;

	if (!admin)
		return PE_DENIED;
	if (j->rec.state != ST_QUEUED || j->rec.held)
		return PE_INVALID;
	if ((rc = sched_top(d->sched, daemon_now(d), j->rec.id)) < 0)
		return rc == SCHED_E_NOJOB || rc == SCHED_E_INVAL ? PE_INVALID : PE_INTERNAL;
	if (sched_job_info(d->sched, j->rec.id, &info) == SCHED_OK && info.guarantee != BF_NEVER)
		j->rec.guarantee = info.guarantee;
	j->rec.seq = --d->top_seq;	/* first, also after a restart */
	forecast_stale(d);
	snprintf(detail, sizeof detail, "moved to the front of the queue by %s", by);
	drive_store(d, j, detail);
	return PE_OK;
}

static enum proto_err one_job(struct conn *c, struct jobctl_result *r, uint64_t id, bool admin);

struct one_args {
	struct conn *c;
	struct jobctl_result *r;
	bool admin;
};

static int one_element(uint64_t id, void *arg)
{
	struct one_args *x = arg;

	return one_job(x->c, x->r, id, x->admin);
}

/* A job, or an array's id: the change for each of its live elements. */
static enum proto_err one(struct conn *c, struct jobctl_result *r, uint64_t id, bool admin)
{
	struct darray *a = arrays_get(conn_daemon(c), id);
	struct one_args x = { c, r, admin };

	if (!a)
		return one_job(c, r, id, admin);
	if (!admin && a->uid != conn_uid(c))
		return PE_DENIED;
	return (enum proto_err)arrays_each_live(conn_daemon(c), a, one_element, &x);
}

static enum proto_err one_job(struct conn *c, struct jobctl_result *r, uint64_t id, bool admin)
{
	struct daemon *d = conn_daemon(c);
	struct djob *j = jobs_get(d, id);
	int64_t owner = -1;

	if (!j) {
		if (store_get_job(d->store, id, store_job_owner, &owner) < 0 || owner < 0)
			return PE_NOJOB;
		return admin || owner == conn_uid(c) ? PE_DONE : PE_DENIED;
	}
	if (!admin && j->rec.uid != conn_uid(c))
		return PE_DENIED;
	drive_announce_now(d, j);	/* what the job was told comes first */
	switch (r->op) {
	case PJ_HOLD: return hold(d, j, r->by);
	case PJ_RELEASE: return release(d, j, r->by);
	case PJ_TOP: return top(d, j, admin, r->by);
	case PJ_REQUEUE: return requeue(d, j, admin, r->by);
	default: return limit(d, j, r->limit, admin, r->by);
	}
}

void jobctl_request(struct conn *c, const uint8_t *frame, size_t len)
{
	struct daemon *d = conn_daemon(c);
	struct proto_jobctl m;
	struct proto_arena a = { 0 };
	struct jobctl_result *r;
	bool admin;
	uint32_t changed = 0;
	char err[200];

	if (proto_dec_jobctl(frame, len, &m, &a, err, sizeof err) < 0) {
		conn_error(c, PE_MALFORMED, "%s", err);
		goto out;
	}
	admin = peer_is_admin(c);
	if (m.admin && !admin) {
		conn_error(c, PE_DENIED, "bctl is for root and the admin group; your own queued jobs "
		           "you may hold and release with bstop and bresume");
		goto out;
	}
	if (!ratelimit_may_change(c, admin))
		goto out;	/* refused, saying when to try again */
	if (!(r = calloc(1, sizeof *r)) || !(r->ids = calloc(m.count, sizeof *r->ids)) ||
	    !(r->codes = calloc(m.count, sizeof *r->codes)) || conn_set_ctx(c, r, result_free) < 0) {
		if (r)
			result_free(r);
		conn_error(c, PE_INTERNAL, "out of memory");
		goto out;
	}
	r->op = m.op;
	r->limit = m.limit;
	r->n = m.count;
	r->admin = admin;
	peer_who(c, r->by, sizeof r->by);
	for (uint32_t k = 0; k < m.count; k++) {
		r->ids[k] = m.ids[k];
		r->codes[k] = one(c, r, m.ids[k], admin);
		changed += r->codes[k] == PE_OK;
	}
	/* Every job it changed, and one at least: a request that changed
	 * nothing (held already, not the user's) still had the daemon look. */
	ratelimit_charge(c, admin, changed ? changed : 1);
	if (changed) {
		conn_wait_commit(c, answer, 0);
		drive_want_commit(d);
	} else {
		answer(c);
	}
out:
	proto_arena_free(&a);
}
