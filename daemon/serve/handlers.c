/* Request handlers: a command table, and one function per request type.
 * Identity comes from the socket (SO_PEERCRED): a user sees and cancels the
 * details of their own jobs; root acts on all; anyone lists everyone's
 * jobs with their public fields. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include "duration.h"
#include "proto.h"
#include "sched.h"
#include "sys/clock.h"
#include "sys/failpoint.h"
#include "sys/log.h"
#include "sys/runner.h"
#include "sys/store.h"
#include "arrayline.h"
#include "arrays.h"
#include "conn.h"
#include "daemon.h"
#include "drive.h"
#include "forecast.h"
#include "handlers.h"
#include "history.h"
#include "jobctl.h"
#include "jobs.h"
#include "nodectl.h"
#include "nodes.h"
#include "peer.h"
#include "pending.h"
#include "ratelimit.h"
#include "submit.h"

static bool may_see(const struct conn *c, uint32_t owner)
{
	return conn_uid(c) == owner || peer_is_admin(c);
}

/* ---- listing ---- */

/* A listing, encoded as it is made: `count` jobs in the frame, `total`
 * there were (a listing that does not fit one frame keeps its head: the
 * running jobs, then the queue in order, then the held, then the recently
 * ended). */
struct listing {
	struct conn *c;
	bool all;
	bool elements;		/* bq -A: an array's elements, not its line */
	struct proto_buf b;
	uint32_t count, total;
	uint32_t queue_seen;	/* queued jobs visited (for the total, once full) */
};

/* A job did not fit the frame, or for the tests the listing holds the
 * few rows they asked for (test.list_rows: a short queue is cut too). */
static bool full(const struct listing *l)
{
	uint32_t rows = failpoint_num(FP_LIST_ROWS);

	return l->count < l->total || (rows && l->count == rows);
}

static void add_row(struct listing *l, const struct store_job *r, bf_time predicted)
{
	struct proto_job pj;
	bool room = !full(l);

	l->total++;
	if (!room)
		return;
	jobs_to_proto(r, false, predicted, &pj);
	l->count += proto_jobs_add(&l->b, &pj);
}

static int add_queued(const struct sched_job_info *i, void *arg)
{
	struct listing *l = arg;
	struct daemon *d = conn_daemon(l->c);
	struct djob *j;

	l->queue_seen++;
	if (full(l) && l->all) {
		/* The rest are counted, not read (a queue of 100,000). */
		l->total += sched_queue_len(d->sched) - l->queue_seen + 1;
		return 1;
	}
	j = jobs_get(d, i->id);
	if (!j || (!l->all && j->rec.uid != conn_uid(l->c)) || (j->rec.array_id && !l->elements))
		return 0;
	/* The core's guarantee, shown from a copy: the job's record is what
	 * the store holds, and only drive.c moves it (see sync_guarantee). */
	if (j->rec.guarantee == i->guarantee) {
		add_row(l, &j->rec, forecast_of(d, j));
	} else {
		struct store_job shown = j->rec;

		shown.guarantee = i->guarantee;
		add_row(l, &shown, forecast_of(d, j));
	}
	return 0;
}

/* (The store's strings live during the visit: the row is encoded then.) */
static int add_final(const struct store_job *r, void *arg)
{
	struct listing *l = arg;

	if ((!l->all && r->uid != conn_uid(l->c)) || (r->array_id && !l->elements))
		return 0;
	add_row(l, r, BF_NEVER);
	return 0;
}

/* A live array's own line (bq without -A). */
static int add_array(struct darray *a, void *arg)
{
	struct listing *l = arg;
	struct arrayline_buf b;
	struct proto_job pj;
	bool room = !full(l);

	if (!l->all && a->uid != conn_uid(l->c))
		return 0;
	l->total++;
	if (!room)
		return 0;
	arrayline_live(conn_daemon(l->c), a, &pj, &b);
	l->count += proto_jobs_add(&l->b, &pj);
	return 0;
}

/* A listing's or an info's request, and when it came (clock_monotonic):
 * what it waits for has a deadline from then. */
struct read_req {
	struct proto_list m;
	bf_time since;
};

static void wait_read(struct conn *c, const uint8_t *frame, size_t len,
                      void (*answer)(struct conn *c))
{
	struct read_req *r = malloc(sizeof *r);
	char err[200] = "";

	if (r)
		r->since = clock_monotonic();
	conn_wait_read(c, r, r ? proto_dec_list(frame, len, &r->m, err, sizeof err) : -1, err,
	                   answer);
}

/* Whether an answer that shows starts waits another loop turn: for the
 * slices of a plan being settled (drive_unsettled: none shows half of
 * one), at most UNSETTLED_WAIT; for a fresh forecast, only as long as
 * forecast_worth_waiting says. Then it answers with what there is: the
 * last complete forecast, with its time. */
static bool wait_for_starts(struct conn *c, const struct read_req *r,
                            void (*answer)(struct conn *c))
{
	struct daemon *d = conn_daemon(c);
	bool fresh = drive_want_forecast(d);

	if ((drive_unsettled(d) && clock_monotonic() - r->since < UNSETTLED_WAIT) ||
	    (!fresh && forecast_worth_waiting(d, r->since))) {
		conn_wait_turn(c, answer);	/* the next slice, then again */
		return true;
	}
	return false;
}

/* The forecast's time and freshness, for a client that reads them. */
static void forecast_said(const struct daemon *d, const struct proto_list *m,
                          struct proto_jobs *tail)
{
	tail->forecast_at = BF_NEVER;
	tail->forecast_stale = false;
	if (!m->forecast || d->o.policy == SCHED_CONSERVATIVE)
		return;
	tail->forecast_at = forecast_made(d);
	tail->forecast_stale = !forecast_fresh(d);
}

/* bq ID of an array: each of its elements, in index order (the live from
 * memory, with the core's guarantee; the ended from the store). */
struct elements {
	struct listing *l;
	struct daemon *d;
};

static int add_element(const struct store_job *r, void *arg)
{
	struct elements *e = arg;
	struct djob *j = jobs_get(e->d, r->id);
	struct sched_job_info info;

	if (!e->l->all && !may_see(e->l->c, r->uid))
		return 0;
	if (j && store_state_live(j->rec.state)) {
		struct store_job shown = j->rec;

		if (sched_job_info(e->d->sched, r->id, &info) == SCHED_OK && info.state == JOB_QUEUED)
			shown.guarantee = info.guarantee;
		add_row(e->l, &shown, j->rec.state == ST_QUEUED ? forecast_of(e->d, j) : BF_NEVER);
	} else {
		add_row(e->l, r, BF_NEVER);
	}
	return 0;
}

static void answer_list(struct conn *c)
{
	struct daemon *d = conn_daemon(c);
	const struct read_req *r = conn_ctx(c);
	const struct proto_list *m = &r->m;
	struct listing l = { .c = c };
	struct proto_jobs tail = { 0 };

	if (wait_for_starts(c, r, answer_list))
		return;
	l.all = m->all_users;
	l.elements = m->elements;
	proto_buf_init(&l.b);
	proto_jobs_begin(&l.b);
	if (m->has_job) {
		/* PT_LIST of one id: an array's elements (bq ID). */
		struct elements e = { &l, d };

		if (store_load_elements(d->store, m->job, add_element, &e) < 0)
			log_warnx("listing an array's elements: %s", store_error(d->store));
		goto finish;
	}
	/* Running jobs, then the queue in its order, then the held (out of
	 * the queue), then the recently ended. */
	for (uint32_t k = 0; k < d->njobs; k++) {
		struct djob *j = d->jobs[k];

		if (j->rec.state == ST_RUNNING && (l.all || j->rec.uid == conn_uid(c)) &&
		    (!j->rec.array_id || l.elements))
			add_row(&l, &j->rec, BF_NEVER);
	}
	sched_foreach_queued(d->sched, add_queued, &l);
	for (uint32_t k = 0; k < d->njobs; k++) {
		struct djob *j = d->jobs[k];

		if (j->rec.held && j->rec.state == ST_QUEUED && (l.all || j->rec.uid == conn_uid(c)) &&
		    (!j->rec.array_id || l.elements))
			add_row(&l, &j->rec, BF_NEVER);
	}
	if (!l.elements)
		arrays_foreach(d, add_array, &l);
	/* (0: none; store_load_final's limit 0 might mean "no limit".) */
	if ((m->has_ended ? m->ended : PROTO_DEFAULT_ENDED) > 0 &&
	    store_load_final(d->store, m->has_ended ? m->ended : PROTO_DEFAULT_ENDED, l.all ? -1 : (int64_t)conn_uid(c), add_final,
	                     &l) < 0)
		log_warnx("listing ended jobs: %s", store_error(d->store));
finish:
	tail.count = l.count;
	tail.total = l.total;
	forecast_said(d, m, &tail);
	if (proto_jobs_finish(&l.b, &tail) < 0)
		conn_error(c, PE_INTERNAL, "out of memory");
	else
		conn_reply(c, &l.b);
	proto_buf_free(&l.b);
}

struct one {
	struct conn *c;
	bool found;
	bool element;		/* asked for by its index: the element itself */
	bool stored_array;	/* the id of an array all ended: its line, once the
				 * visit is over (the store reads it with the same
				 * statement) */
	struct proto_buf *b;
	enum proto_err code;
};

static void reply_one(struct one *o, const struct store_job *r, bf_time predicted,
                      const char *pending)
{
	struct proto_jobs js = { .count = 1, .forecast_at = BF_NEVER };
	const struct read_req *req = conn_ctx(o->c);
	struct proto_job pj;
	char out[PROTO_MAX_STRING];

	o->found = true;
	if (!may_see(o->c, r->uid)) {
		o->code = PE_DENIED;
		return;
	}
	jobs_to_proto(r, true, predicted, &pj);
	pj.pending = pending;
	pj.out = jobs_out_path(r, out, sizeof out);	/* where it really goes */
	if (!pj.err)
		pj.err = pj.out;
	js.jobs = &pj;
	if (r->state == ST_QUEUED && !r->held)
		forecast_said(conn_daemon(o->c), &req->m, &js);
	proto_enc_jobs(o->b, &js);
}

static int info_final(const struct store_job *r, void *arg)
{
	struct one *o = arg;

	/* An array's id, its elements all ended: the array's line. */
	if (r->array_id && r->array_id == r->id && !o->element) {
		o->found = true;
		if (!may_see(o->c, r->uid))
			o->code = PE_DENIED;
		else
			o->stored_array = true;
		return 1;
	}
	reply_one(arg, r, BF_NEVER, NULL);
	return 1;
}

/* A live array's own line. */
static void reply_array(struct conn *c, struct darray *a)
{
	struct proto_jobs js = { .count = 1, .forecast_at = BF_NEVER };
	struct arrayline_buf ab;
	struct proto_job pj;
	struct proto_buf b;

	if (!may_see(c, a->uid)) {
		conn_error(c, PE_DENIED, "job %" PRIu64 " belongs to another user", a->id);
		return;
	}
	arrayline_live(conn_daemon(c), a, &pj, &ab);
	js.jobs = &pj;
	proto_buf_init(&b);
	proto_enc_jobs(&b, &js);
	conn_reply(c, &b);
	proto_buf_free(&b);
}

static void h_list(struct conn *c, const uint8_t *frame, size_t len)
{
	wait_read(c, frame, len, answer_list);
}

static void answer_info(struct conn *c)
{
	struct daemon *d = conn_daemon(c);
	const struct read_req *r = conn_ctx(c);
	struct proto_list m = r->m;
	struct proto_buf b;
	struct one o = { .c = c, .b = &b, .code = PE_OK, .element = m.index > 0 };
	struct darray *a;
	struct djob *j;

	if (m.index) {
		/* "ID[3]": the element itself. */
		uint64_t id = arrays_find_element(d, m.job, m.index);

		if (!id) {
			conn_error(c, PE_NOJOB, "no job %" PRIu64 "[%" PRIu32 "]", m.job, m.index);
			return;
		}
		m.job = id;
	} else if ((a = arrays_get(d, m.job))) {
		reply_array(c, a);
		return;
	}

	if ((j = jobs_get(d, m.job)) && j->rec.state == ST_QUEUED &&
	    wait_for_starts(c, r, answer_info))
		return;
	proto_buf_init(&b);
	if (j) {
		struct sched_job_info info;
		struct store_job shown = j->rec;	/* a copy: see add_queued */
		char why[PROTO_MAX_STRING];

		if (sched_job_info(d->sched, j->rec.id, &info) == SCHED_OK && info.state == JOB_QUEUED)
			shown.guarantee = info.guarantee;
		reply_one(&o, &shown, j->rec.state == ST_QUEUED ? forecast_of(d, j) : BF_NEVER,
		          pending_reason(d, j, shown.guarantee, why, sizeof why));
	} else if (store_get_job(d->store, m.job, info_final, &o) < 0) {
		o.code = PE_INTERNAL;
	} else if (o.stored_array) {
		struct proto_jobs js = { .count = 1, .forecast_at = BF_NEVER };
		struct arrayline_buf ab;
		struct proto_job pj;

		if (arrayline_stored(d, m.job, &pj, &ab) != 1) {
			o.code = PE_INTERNAL;
		} else {
			js.jobs = &pj;
			proto_enc_jobs(&b, &js);
		}
	}
	if (!o.found && o.code == PE_OK)
		conn_error(c, PE_NOJOB, "no job %" PRIu64, m.job);
	else if (o.code == PE_DENIED)
		conn_error(c, PE_DENIED, "job %" PRIu64 " belongs to another user", m.job);
	else if (o.code != PE_OK)
		conn_error(c, o.code, "reading job %" PRIu64 " failed", m.job);
	else
		conn_reply(c, &b);
	proto_buf_free(&b);
}

static void h_info(struct conn *c, const uint8_t *frame, size_t len)
{
	wait_read(c, frame, len, answer_info);
}

/* ---- cancel ---- */

/* Cancels go CANCEL_PER_TURN a loop turn, for all requests together (each
 * a store and a log line, then the job's files: a bkill of 4,096 held the
 * loop a second, and twelve of them at once 200 ms a turn), each request
 * answered once all of its jobs are stored. */
#define CANCEL_PER_TURN 256
/* Each request at least this many a turn, so that a request is never held
 * back by newer ones that take the turns' share first. */
#define CANCEL_EACH_TURN 16

struct cancel_result {
	uint32_t n;
	uint64_t *ids;
	enum proto_err *codes;
	char *done;		/* per id: this request cancelled it (logged once durable) */
	bool started;		/* a first slice was taken */
	char by[300];		/* who: "alice (uid 1000)" */
	int signal;		/* bkill -s: 0, or the signal to pass on */
	bool admin;		/* bkill -s: no budget (ratelimit.h) */
	uint32_t next;		/* ids looked at so far */
	uint32_t logged;	/* ids whose cancel was logged (durable) */
	bool changed;		/* the ids since the last commit changed something */
};

static void cancel_result_free(void *p)
{
	struct cancel_result *r = p;

	free(r->ids);
	free(r->codes);
	free(r->done);
	free(r);
}

/* The cancels stored so far are durable: log them. */
static void log_cancelled(struct conn *c, struct cancel_result *r)
{
	struct daemon *d = conn_daemon(c);

	for (; r->logged < r->next; r->logged++) {
		uint32_t k = r->logged;
		struct djob *j;

		if (!r->done[k])
			continue;
		j = jobs_get(d, r->ids[k]);
		log_job(LOG_NOTICE, r->ids[k], j ? j->rec.user : NULL, "cancelled by %s%s", r->by,
		        j && j->rec.state == ST_RUNNING ? " while running" : "");
	}
}

static void answer_cancelled(struct conn *c)
{
	struct cancel_result *r = conn_ctx(c);
	struct proto_buf b;

	log_cancelled(c, r);
	proto_buf_init(&b);
	proto_enc_cancelled(&b, &(struct proto_cancelled){ r->ids, r->codes, r->n });
	conn_reply(c, &b);
	proto_buf_free(&b);
}

/* bkill -s: pass a signal on to a running job (nothing to store: the job
 * goes on, or ends as any job does). A user can ask for it again and
 * again: it is charged to their budget of changes, its line to their
 * budget of log lines (ratelimit.h). */
static enum proto_err signal_one(struct conn *c, struct djob *j, int sig, const char *by,
                                 bool admin)
{
	if (j->rec.state != ST_RUNNING || j->rec.kill_why || j->sup.pidfd < 0)
		return PE_INVALID;	/* queued, or being killed already */
	if (runner_signal(&j->sup, sig) < 0)
		return PE_INVALID;
	if (ratelimit_log_ok(c, admin))
		log_job(LOG_NOTICE, j->rec.id, j->rec.user, "signal %d sent by %s", sig, by);
	return PE_OK;
}

static enum proto_err cancel_job(struct conn *c, uint64_t id, int sig, const char *by,
                                 bool admin, bool *changed)
{
	struct daemon *d = conn_daemon(c);
	struct djob *j = jobs_get(d, id);
	bf_time now = daemon_now(d);
	int64_t owner = -1;
	char detail[64];

	if (!j) {
		if (store_get_job(d->store, id, store_job_owner, &owner) < 0 || owner < 0)
			return PE_NOJOB;
		return may_see(c, (uint32_t)owner) ? PE_DONE : PE_DENIED;
	}
	if (!may_see(c, j->rec.uid))
		return PE_DENIED;
	if (!store_state_live(j->rec.state))
		return PE_DONE;
	drive_announce_now(d, j);	/* what the job was told comes first */
	if (sig)
		return signal_one(c, j, sig, by, admin);
	snprintf(detail, sizeof detail, "cancelled by uid %u", (unsigned)conn_uid(c));
	forecast_stale(d);
	if (j->rec.state == ST_QUEUED) {
		/* A held job is not in the plan: only the store knows it. */
		if (!j->rec.held && sched_cancel(d->sched, now, id) < 0)
			return PE_INTERNAL;
		j->rec.held = false;
		j->rec.state = ST_CANCELLED;
		j->rec.end = now;
		j->rec.guarantee = BF_NEVER;
		drive_store(d, j, detail);
	} else if (!j->rec.kill_why) {
		/* Running: the pass turns the core's kill into signals. */
		if (sched_cancel(d->sched, now, id) < 0)
			return PE_INTERNAL;
		/* (A full disk here is handled as anywhere: drive_store_failed.) */
		if (store_begin(d->store) < 0 || store_log(d->store, id, now, j->rec.state, detail) < 0)
			drive_store_failed(d);
	} else {
		return PE_OK;	/* signalled already: nothing to store or wait for */
	}
	*changed = true;
	return PE_OK;
}

struct cancel_args {
	struct conn *c;
	int sig;
	const char *by;
	bool admin, *changed;
};

static int cancel_element(uint64_t id, void *arg)
{
	struct cancel_args *x = arg;

	return cancel_job(x->c, id, x->sig, x->by, x->admin, x->changed);
}

/* A job, or an array's id: each of its elements still live (bkill ID; an
 * element alone is bkill "ID[3]", which bkill finds by its index). */
static enum proto_err cancel_one(struct conn *c, uint64_t id, int sig, const char *by,
                                 bool admin, bool *changed)
{
	struct darray *a = arrays_get(conn_daemon(c), id);
	struct cancel_args x = { c, sig, by, admin, changed };

	if (!a)
		return cancel_job(c, id, sig, by, admin, changed);
	if (!may_see(c, a->uid))
		return PE_DENIED;
	return (enum proto_err)arrays_each_live(conn_daemon(c), a, cancel_element, &x);
}

/* The next CANCEL_PER_TURN ids, then: more at the next turn (after this
 * one's commit, which logs them), or the answer (after the last commit). */
static void cancel_more(struct conn *c)
{
	struct cancel_result *r = conn_ctx(c);
	struct daemon *d = conn_daemon(c);
	uint32_t room = d->turn_cancels + CANCEL_EACH_TURN < CANCEL_PER_TURN ?
	                CANCEL_PER_TURN - d->turn_cancels : CANCEL_EACH_TURN;
	uint32_t end = r->n - r->next > room ? r->next + room : r->n, signals = 0;
	bool first = !r->started;

	log_cancelled(c, r);	/* (called after a commit, but the first time) */
	r->changed = false;
	for (uint32_t k = r->next; k < end; k++) {
		bool this_one = false;

		r->codes[k] = cancel_one(c, r->ids[k], r->signal, r->by, r->admin, &this_one);
		r->done[k] = this_one;
		r->changed |= this_one;
		signals += r->signal && r->codes[k] == PE_OK;
	}
	if (r->signal)	/* a request costs one change at least */
		ratelimit_charge(c, r->admin, first && !signals ? 1 : signals);
	d->turn_cancels += end - r->next;
	r->next = end;
	r->started = true;
	if (!r->changed && r->next == r->n) {
		answer_cancelled(c);
		return;
	}
	conn_wait_commit(c, r->next == r->n ? answer_cancelled : cancel_more, 0);
	if (first)
		drive_want_commit(d);	/* (from a request: this loop pass) */
	else
		drive_next_turn(d);	/* (from inside a commit: the next pass) */
}

static void h_cancel(struct conn *c, const uint8_t *frame, size_t len)
{
	struct proto_cancel m;
	struct proto_arena a = { 0 };
	struct cancel_result *r;
	char err[200];
	bool admin;

	if (proto_dec_cancel(frame, len, &m, &a, err, sizeof err) < 0) {
		conn_error(c, PE_MALFORMED, "%s", err);
		goto out;
	}
	/* bkill -s is charged; a cancel is not (once a job, which submitting
	 * it paid for). */
	admin = m.signal && peer_is_admin(c);
	if (m.signal && !ratelimit_may_change(c, admin))
		goto out;	/* refused, saying when to try again */
	r = calloc(1, sizeof *r);
	if (!r || !(r->ids = calloc(m.count, sizeof *r->ids)) ||
	    !(r->codes = calloc(m.count, sizeof *r->codes)) ||
	    !(r->done = calloc(m.count, 1)) || conn_set_ctx(c, r, cancel_result_free) < 0) {
		if (r) {
			free(r->ids);
			free(r->codes);
			free(r->done);
		}
		free(r);
		conn_error(c, PE_INTERNAL, "out of memory");
		goto out;
	}
	r->n = m.count;
	r->signal = m.signal;
	r->admin = admin;
	memcpy(r->ids, m.ids, m.count * sizeof *r->ids);
	peer_who(c, r->by, sizeof r->by);
	cancel_more(c);
out:
	proto_arena_free(&a);
}

/* ---- profile ---- */

static void answer_profile(struct conn *c)
{
	struct daemon *d = conn_daemon(c);
	enum { STEPS = 64 };
	bf_time t[STEPS];
	int64_t f[STEPS];
	struct proto_step steps[STEPS];
	struct proto_buf b;
	size_t n;

	n = sched_profile_steps(d->sched, daemon_now(d), t, f, STEPS);
	for (size_t k = 0; k < n; k++)
		steps[k] = (struct proto_step){ t[k], f[k] };
	proto_buf_init(&b);
	proto_enc_steps(&b, &(struct proto_steps){ d->nnodes, steps, (uint32_t)n });
	conn_reply(c, &b);
	proto_buf_free(&b);
}

static void h_profile(struct conn *c, const uint8_t *frame, size_t len)
{
	(void)frame;
	if (len != PROTO_HEADER)
		conn_error(c, PE_MALFORMED, "a profile request has no fields");
	else
		conn_wait_durable(c, answer_profile);
}

/* ---- nodes ---- */

static void answer_nodes(struct conn *c)
{
	struct daemon *d = conn_daemon(c);
	struct proto_holder *held = calloc(d->njobs ? d->njobs : 1, sizeof *held);
	char *drained = nodes_in(d, NA_DRAIN), *down = nodes_in(d, NA_DOWN);
	struct proto_buf b;
	uint32_t n = 0;

	if (!held || !drained || !down) {
		conn_error(c, PE_INTERNAL, "out of memory");
		free(held);
		free(drained);
		free(down);
		return;
	}
	for (uint32_t k = 0; k < d->njobs; k++) {
		const struct store_job *r = &d->jobs[k]->rec;

		if (r->state == ST_RUNNING && r->node_list)
			held[n++] = (struct proto_holder){ r->id, r->uid, r->user, r->node_list };
	}
	proto_buf_init(&b);
	proto_enc_nodemap(&b, &(struct proto_nodemap){ d->partition, held, n,
	                                                *drained ? drained : NULL,
	                                                *down ? down : NULL });
	conn_reply(c, &b);
	proto_buf_free(&b);
	free(held);
	free(drained);
	free(down);
}

static void h_nodes(struct conn *c, const uint8_t *frame, size_t len)
{
	(void)frame;
	if (len != PROTO_HEADER)
		conn_error(c, PE_MALFORMED, "a nodes request has no fields");
	else
		conn_wait_durable(c, answer_nodes);
}

typedef void (*handler_fn)(struct conn *c, const uint8_t *frame, size_t len);

static const struct command {
	enum proto_type type;
	const char *name;	/* for the debug log */
	handler_fn fn;
} commands[] = {
	{ PT_SUBMIT, "submit", submit_request },
	{ PT_LIST, "list", h_list },
	{ PT_INFO, "info", h_info },
	{ PT_CANCEL, "cancel", h_cancel },
	{ PT_PROFILE, "profile", h_profile },
	{ PT_NODES, "nodes", h_nodes },
	{ PT_NODECTL, "node control", nodectl_request },
	{ PT_NODELIST, "node list", nodectl_list },
	{ PT_STATUS, "status", nodectl_status },
	{ PT_HISTORY, "history", history_request },
	{ PT_JOBCTL, "job control", jobctl_request },
};

void handle_request(struct conn *c, enum proto_type type, const uint8_t *frame, size_t len)
{
	for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
		if (commands[k].type == type) {
			log_debug("request: %s from uid %u, %zu bytes", commands[k].name,
			          (unsigned)conn_uid(c), len);
			commands[k].fn(c, frame, len);
			return;
		}
	}
	conn_error(c, PE_MALFORMED, "unknown request type %u", (unsigned)type);
}
