/* Request handlers: a command table, and one function per request type.
 * Identity comes from the socket (SO_PEERCRED): a user sees and cancels the
 * details of their own jobs; root acts on all; anyone lists everyone's
 * jobs with their public fields. */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include "duration.h"
#include "log.h"
#include "server.h"

#define FINAL_IN_LIST 100	/* recently ended jobs bq shows */

/* Root, or a member of admin_group (backfilld.yaml(5)): the primary group
 * the socket reports, or a supplementary one of the user's. */
bool handlers_is_admin(const struct conn *c)
{
	const struct serve_limits *L = &conn_daemon(c)->o.lim;
	struct passwd pw, *pwp = NULL;
	char buf[4096];
	gid_t groups[256];
	int n = 256;

	if (conn_uid(c) == 0)
		return true;
	if (!L->has_admin)
		return false;
	if (conn_gid(c) == L->admin_gid)
		return true;
	if (getpwuid_r(conn_uid(c), &pw, buf, sizeof buf, &pwp) != 0 || !pwp ||
	    getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) < 0)
		return false;	/* more than 256 groups: only the first count */
	for (int k = 0; k < n; k++)
		if (groups[k] == L->admin_gid)
			return true;
	return false;
}

static bool may_see(const struct conn *c, uint32_t owner)
{
	return conn_uid(c) == owner || handlers_is_admin(c);
}

/* Join strings NUL-terminated back to back (the store's argv/env form). */
static char *join(const char *const *v, uint32_t n, size_t *len)
{
	size_t total = 0;
	char *s, *p;

	for (uint32_t k = 0; k < n; k++)
		total += strlen(v[k]) + 1;
	if (!(s = malloc(total ? total : 1)))
		return NULL;
	p = s;
	for (uint32_t k = 0; k < n; k++)
		p = stpcpy(p, v[k]) + 1;
	*len = total;
	return s;
}

/* The script goes into the spool (see spool.h), made durable with the
 * rest of the batch: one syncfs of the spool before the commit (see
 * drive_commit), not an fsync per script. */
static int spool_script(struct daemon *d, uint64_t id, uid_t uid, gid_t gid, const uint8_t *data,
                        size_t len, char *err, size_t errlen)
{
	if (spool_job_create(&d->spool, id, uid, gid, data, len, err, errlen) < 0)
		return -1;
	d->spool_dirty = true;
	return 0;
}

/* Who is on the other end, for the log: "alice (uid 1000)". */
void handlers_who(const struct conn *c, char *buf, size_t len)
{
	struct passwd pw, *pwp = NULL;
	char pwbuf[1024];

	getpwuid_r(conn_uid(c), &pw, pwbuf, sizeof pwbuf, &pwp);
	snprintf(buf, len, "%s (uid %u)", pwp ? pwp->pw_name : "?", (unsigned)conn_uid(c));
}

/* A local time for the log, as bq prints it (a guarantee rounded up, as
 * clients round it: never earlier than the truth). */
const char *handlers_human_time(bf_time t, char *buf, size_t len)
{
	time_t secs = (time_t)((t + BF_SEC - 1) / BF_SEC);
	struct tm tm;

	if (!localtime_r(&secs, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "%lld", (long long)secs);
	return buf;
}

/* Once durable (the answer comes after the commit). */
static void log_submitted(const struct djob *j, const struct proto_submitted *m)
{
	char lim[64], when[64] = "";

	duration_format(j->rec.estimate, lim, sizeof lim);
	if (m->kind != PS_NONE)
		handlers_human_time(m->start, when, sizeof when);
	log_job(LOG_NOTICE, j->rec.id, j->rec.user, "submitted by %s (uid %u): %u node%s, limit %s, "
	        "%s%s", j->rec.user ? j->rec.user : "?", (unsigned)j->rec.uid, j->rec.nodes,
	        j->rec.nodes == 1 ? "" : "s", lim,
	        m->kind == PS_ACTUAL ? "started at " : m->kind == PS_GUARANTEED ?
	        "guaranteed to start by " : m->kind == PS_PREDICTED ? "predicted to start at " :
	        "no start time yet", when);
}

static void answer_submitted(struct conn *c)
{
	struct daemon *d = conn_daemon(c);
	struct djob *j = jobs_get(d, conn_job(c));
	struct proto_submitted m = { .job = conn_job(c), .start = BF_NEVER, .kind = PS_NONE };
	struct sched_job_info info;
	struct proto_buf b;

	if (drive_unsettled(d)) {
		/* Its place, or the places of jobs before it, are still being
		 * found, or guarantees broken still being told: the answer
		 * names its guarantee, so it waits for the last slice. */
		conn_wait_turn(c, answer_submitted);
		return;
	}
	if (j && j->rec.start != BF_NEVER) {
		m.kind = PS_ACTUAL;
		m.start = j->rec.start;
	} else if (j && sched_job_info(d->sched, j->rec.id, &info) == SCHED_OK &&
	           info.guarantee != BF_NEVER) {
		m.kind = PS_GUARANTEED;
		m.start = info.guarantee;
	} else if (j && forecast_ready(d) && (m.start = forecast_of(d, j)) != BF_NEVER) {
		/* (A forecast that takes more than this turn is not waited for.) */
		m.kind = PS_PREDICTED;
	}
	if (j)
		log_submitted(j, &m);
	proto_buf_init(&b);
	proto_enc_submitted(&b, &m);
	conn_reply(c, &b);
	proto_buf_free(&b);
}

/* The partition's limits (backfilld.yaml(5)); a submission without a time
 * limit gets default_limit. -1 with the reason in err. */
static int check_limits(struct conn *c, struct proto_submit *m, char *err, size_t errlen)
{
	struct daemon *d = conn_daemon(c);
	const struct serve_limits *L = &d->o.lim;
	char a[64], b[64];
	uint32_t queued = 0;

	if (m->estimate == 0) {
		if (!L->default_limit) {
			snprintf(err, errlen, "no time limit: give -t TIME (this partition has no "
			         "default_limit)");
			return -1;
		}
		m->estimate = L->default_limit;
	}
	if (L->max_limit && m->estimate > L->max_limit) {
		duration_format(m->estimate, a, sizeof a);
		duration_format(L->max_limit, b, sizeof b);
		snprintf(err, errlen, "the time limit %s is more than this partition's max_limit %s",
		         a, b);
		return -1;
	}
	if (L->max_nodes && m->nodes > L->max_nodes) {
		snprintf(err, errlen, "%u nodes asked for; a job may have at most %u (max_nodes)",
		         m->nodes, L->max_nodes);
		return -1;
	}
	if (L->max_queued_per_user) {
		for (uint32_t k = 0; k < d->njobs; k++)
			queued += d->jobs[k]->rec.state == ST_QUEUED &&
			          d->jobs[k]->rec.uid == conn_uid(c);
		if (queued >= L->max_queued_per_user) {
			snprintf(err, errlen, "you have %u jobs waiting, the most this partition takes "
			         "from one user (max_queued_per_user); submit again when some have "
			         "started", queued);
			return -1;
		}
	}
	return 0;
}

static void h_submit(struct conn *c, const uint8_t *frame, size_t len)
{
	struct daemon *d = conn_daemon(c);
	struct proto_submit m;
	struct proto_arena a = { 0 };
	struct store_job rec;
	struct sched_job_info info;
	struct passwd pw, *pwp = NULL;
	char err[1024], pwbuf[1024];
	char *argv = NULL, *env = NULL, *out_path = NULL, *err_path = NULL;
	size_t argv_len = 0, env_len = 0;
	uint64_t id;
	bf_time now;
	struct djob *j;
	int rc;

	if (proto_dec_submit(frame, len, &m, &a, err, sizeof err) < 0) {
		conn_error(c, PE_MALFORMED, "%s", err);
		goto out;
	}
	if (m.nodes > d->nnodes) {
		conn_error(c, PE_TOOBIG, "%u nodes asked for; the partition has %u", m.nodes, d->nnodes);
		goto out;
	}
	if (check_limits(c, &m, err, sizeof err) < 0) {
		conn_error(c, m.nodes > d->o.lim.max_nodes && d->o.lim.max_nodes ? PE_TOOBIG : PE_INVALID,
		           "%s", err);
		goto out;
	}
	if (m.script_len == 0) {
		conn_error(c, PE_INVALID, "the script is empty");
		goto out;
	}
	argv = join(m.argv, m.argc, &argv_len);
	env = join(m.env, m.envc, &env_len);
	if (!argv || !env) {
		conn_error(c, PE_INTERNAL, "out of memory");
		goto out;
	}
	if (!drive_spool_ok(d)) {
		conn_error(c, PE_INTERNAL, "the daemon takes no new jobs: its spool %s was removed or "
		           "replaced while it ran; an operator must restart it", d->spool.dir);
		goto out;
	}
	getpwuid_r(conn_uid(c), &pw, pwbuf, sizeof pwbuf, &pwp);
	now = server_now(d);
	if (store_begin(d->store) < 0 || store_next_id(d->store, &id) < 0) {
		conn_error(c, PE_INTERNAL, "the store failed: %s", store_error(d->store));
		goto out;
	}
	if (spool_script(d, id, conn_uid(c), conn_gid(c), m.script, m.script_len, err, sizeof err) < 0) {
		log_warnx("job %" PRIu64 ": %s", id, err);
		conn_error(c, PE_INTERNAL, "%s", err);
		goto out;
	}
	if ((m.out && !(out_path = jobs_expand_id(m.out, id))) ||
	    (m.err && !(err_path = jobs_expand_id(m.err, id)))) {
		conn_error(c, PE_INTERNAL, "out of memory");
		goto out;
	}
	rec = (struct store_job){
		.id = id, .seq = d->next_seq, .uid = conn_uid(c), .gid = conn_gid(c),
		.user = pwp ? pwp->pw_name : NULL, .name = m.name, .nodes = m.nodes,
		.estimate = m.estimate, .submit = now, .state = ST_QUEUED, .guarantee = BF_NEVER,
		.first_guarantee = BF_NEVER, .start = BF_NEVER, .end = BF_NEVER,
		.hold_end = BF_NEVER, .cwd = m.cwd,
		.out = out_path, .err = err_path, .argv = argv, .argv_len = argv_len, .env = env,
		.env_len = env_len,
	};
	if (!(j = jobs_add(d, &rec))) {
		conn_error(c, PE_INTERNAL, "out of memory");
		goto out;
	}
	if ((rc = sched_submit_as(d->sched, now, id, m.nodes, m.estimate, conn_uid(c))) < 0) {
		jobs_remove(d, j);
		conn_error(c, rc == SCHED_E_NOMEM ? PE_INTERNAL : PE_INVALID, "%s", sched_strerror(rc));
		goto out;
	}
	d->next_seq++;
	/* (An arrival joins the forecast as it is: see forecast.h.) */
	if (sched_job_info(d->sched, id, &info) == SCHED_OK)
		j->rec.guarantee = j->rec.first_guarantee = info.guarantee;
	drive_store(d, j, "submitted");
	conn_wait_commit(c, answer_submitted, id);
	drive_want_commit(d);
out:
	free(argv);
	free(env);
	free(out_path);
	free(err_path);
	proto_arena_free(&a);
}

/* ---- listing ---- */

/* A listing, encoded as it is made: `count` jobs in the frame, `total`
 * there were (a listing that does not fit one frame keeps its head: the
 * running jobs, then the queue in order, then the held, then the recently
 * ended). */
struct listing {
	struct conn *c;
	bool all;
	struct proto_buf b;
	uint32_t count, total;
	uint32_t queue_seen;	/* queued jobs visited (for the total, once full) */
};

/* A job did not fit the frame, or for the tests the listing holds the
 * few rows they asked for (test.list_rows: a short queue is cut too). */
static bool full(const struct listing *l)
{
	uint32_t rows = conn_daemon(l->c)->test.list_rows;

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
	if (!j || (!l->all && j->rec.uid != conn_uid(l->c)))
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

	if (!l->all && r->uid != conn_uid(l->c))
		return 0;
	add_row(l, r, BF_NEVER);
	return 0;
}

/* A read (list, info) waits for the pass's commit with its request kept
 * here: see conn_wait_durable. */
void handlers_wait_read(struct conn *c, void *m, int decoded, const char *err,
                        void (*answer)(struct conn *c))
{
	if (!m) {
		conn_error(c, PE_INTERNAL, "out of memory");
	} else if (decoded < 0) {
		free(m);
		conn_error(c, PE_MALFORMED, "%s", err);
	} else if (conn_set_ctx(c, m, free) < 0) {
		free(m);
		conn_error(c, PE_INTERNAL, "a second request on one connection");
	} else {
		conn_wait_durable(c, answer);
	}
}

static void wait_read(struct conn *c, const uint8_t *frame, size_t len,
                      void (*answer)(struct conn *c))
{
	struct proto_list *m = malloc(sizeof *m);
	char err[200] = "";

	handlers_wait_read(c, m, m ? proto_dec_list(frame, len, m, err, sizeof err) : -1, err,
	                   answer);
}

static void answer_list(struct conn *c)
{
	struct daemon *d = conn_daemon(c);
	const struct proto_list *m = conn_ctx(c);
	struct listing l = { .c = c };

	if (!forecast_ready(d) || drive_unsettled(d)) {
		conn_wait_turn(c, answer_list);	/* the next slice, then again */
		return;
	}
	l.all = m->all_users;
	proto_buf_init(&l.b);
	proto_jobs_begin(&l.b);
	/* Running jobs, then the queue in its order, then the held (out of
	 * the queue), then the recently ended. */
	for (uint32_t k = 0; k < d->njobs; k++) {
		struct djob *j = d->jobs[k];

		if (j->rec.state == ST_RUNNING && (l.all || j->rec.uid == conn_uid(c)))
			add_row(&l, &j->rec, BF_NEVER);
	}
	sched_foreach_queued(d->sched, add_queued, &l);
	for (uint32_t k = 0; k < d->njobs; k++) {
		struct djob *j = d->jobs[k];

		if (j->rec.held && j->rec.state == ST_QUEUED && (l.all || j->rec.uid == conn_uid(c)))
			add_row(&l, &j->rec, BF_NEVER);
	}
	if (store_load_final(d->store, FINAL_IN_LIST, l.all ? -1 : (int64_t)conn_uid(c), add_final,
	                     &l) < 0)
		log_warnx("listing ended jobs: %s", store_error(d->store));
	if (proto_jobs_end(&l.b, l.count, l.total) < 0)
		conn_error(c, PE_INTERNAL, "out of memory");
	else
		conn_reply(c, &l.b);
	proto_buf_free(&l.b);
}

struct one {
	struct conn *c;
	bool found;
	struct proto_buf *b;
	enum proto_err code;
};

static void reply_one(struct one *o, const struct store_job *r, bf_time predicted,
                      const char *pending)
{
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
	proto_enc_jobs(o->b, &(struct proto_jobs){ &pj, 1, 0 });
}

static int info_final(const struct store_job *r, void *arg)
{
	reply_one(arg, r, BF_NEVER, NULL);
	return 1;
}

static void h_list(struct conn *c, const uint8_t *frame, size_t len)
{
	wait_read(c, frame, len, answer_list);
}

static void answer_info(struct conn *c)
{
	struct daemon *d = conn_daemon(c);
	struct proto_list m = *(const struct proto_list *)conn_ctx(c);
	struct proto_buf b;
	struct one o = { .c = c, .b = &b, .code = PE_OK };
	struct djob *j;

	if ((j = jobs_get(d, m.job)) && j->rec.state == ST_QUEUED &&
	    (!forecast_ready(d) || drive_unsettled(d))) {
		conn_wait_turn(c, answer_info);	/* the next slice, then again */
		return;
	}
	proto_buf_init(&b);
	if (j) {
		struct sched_job_info info;
		struct store_job shown = j->rec;	/* a copy: see add_queued */
		char why[300];

		if (sched_job_info(d->sched, j->rec.id, &info) == SCHED_OK && info.state == JOB_QUEUED)
			shown.guarantee = info.guarantee;
		reply_one(&o, &shown, j->rec.state == ST_QUEUED ? forecast_of(d, j) : BF_NEVER,
		          pending_reason(d, j, shown.guarantee, why, sizeof why));
	} else if (store_get_job(d->store, m.job, info_final, &o) < 0) {
		o.code = PE_INTERNAL;
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

int handlers_final_owner(const struct store_job *r, void *arg)
{
	*(int64_t *)arg = r->uid;
	return 1;
}

/* bkill -s: pass a signal on to a running job (nothing to store: the job
 * goes on, or ends as any job does). */
static enum proto_err signal_one(struct conn *c, struct djob *j, int sig, const char *by)
{
	if (j->rec.state != ST_RUNNING || j->rec.kill_why || j->sup.pidfd < 0)
		return PE_INVALID;	/* queued, or being killed already */
	if (runner_signal(&j->sup, sig) < 0)
		return PE_INVALID;
	(void)c;
	log_job(LOG_NOTICE, j->rec.id, j->rec.user, "signal %d sent by %s", sig, by);
	return PE_OK;
}

static enum proto_err cancel_one(struct conn *c, uint64_t id, int sig, const char *by,
                                 bool *changed)
{
	struct daemon *d = conn_daemon(c);
	struct djob *j = jobs_get(d, id);
	bf_time now = server_now(d);
	int64_t owner = -1;
	char detail[64];

	if (!j) {
		if (store_get_job(d->store, id, handlers_final_owner, &owner) < 0 || owner < 0)
			return PE_NOJOB;
		return may_see(c, (uint32_t)owner) ? PE_DONE : PE_DENIED;
	}
	if (!may_see(c, j->rec.uid))
		return PE_DENIED;
	if (!store_state_live(j->rec.state))
		return PE_DONE;
	drive_announce_now(d, j);	/* what the job was told comes first */
	if (sig)
		return signal_one(c, j, sig, by);
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
		store_begin(d->store);
		store_log(d->store, id, now, j->rec.state, detail);
	} else {
		return PE_OK;	/* signalled already: nothing to store or wait for */
	}
	*changed = true;
	return PE_OK;
}

/* The next CANCEL_PER_TURN ids, then: more at the next turn (after this
 * one's commit, which logs them), or the answer (after the last commit). */
static void cancel_more(struct conn *c)
{
	struct cancel_result *r = conn_ctx(c);
	struct daemon *d = conn_daemon(c);
	uint32_t room = d->turn_cancels + CANCEL_EACH_TURN < CANCEL_PER_TURN ?
	                CANCEL_PER_TURN - d->turn_cancels : CANCEL_EACH_TURN;
	uint32_t end = r->n - r->next > room ? r->next + room : r->n;
	bool first = !r->started;

	log_cancelled(c, r);	/* (called after a commit, but the first time) */
	r->changed = false;
	for (uint32_t k = r->next; k < end; k++) {
		bool this_one = false;

		r->codes[k] = cancel_one(c, r->ids[k], r->signal, r->by, &this_one);
		r->done[k] = this_one;
		r->changed |= this_one;
	}
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

	if (proto_dec_cancel(frame, len, &m, &a, err, sizeof err) < 0) {
		conn_error(c, PE_MALFORMED, "%s", err);
		goto out;
	}
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
	memcpy(r->ids, m.ids, m.count * sizeof *r->ids);
	handlers_who(c, r->by, sizeof r->by);
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

	n = sched_profile_steps(d->sched, server_now(d), t, f, STEPS);
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
	struct proto_buf b;
	uint32_t n = 0;

	if (!held) {
		conn_error(c, PE_INTERNAL, "out of memory");
		return;
	}
	for (uint32_t k = 0; k < d->njobs; k++) {
		const struct store_job *r = &d->jobs[k]->rec;

		if (r->state == ST_RUNNING && r->node_list)
			held[n++] = (struct proto_holder){ r->id, r->uid, r->user, r->node_list };
	}
	proto_buf_init(&b);
	proto_enc_nodemap(&b, &(struct proto_nodemap){ d->partition, held, n });
	conn_reply(c, &b);
	proto_buf_free(&b);
	free(held);
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
	handler_fn fn;
} commands[] = {
	{ PT_SUBMIT, h_submit },
	{ PT_LIST, h_list },
	{ PT_INFO, h_info },
	{ PT_CANCEL, h_cancel },
	{ PT_PROFILE, h_profile },
	{ PT_NODES, h_nodes },
	{ PT_NODECTL, nodectl_request },
	{ PT_NODELIST, nodectl_list },
	{ PT_STATUS, nodectl_status },
	{ PT_HISTORY, history_request },
	{ PT_JOBCTL, jobctl_request },
};

void handle_request(struct conn *c, enum proto_type type, const uint8_t *frame, size_t len)
{
	for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
		if (commands[k].type == type) {
			commands[k].fn(c, frame, len);
			return;
		}
	}
	conn_error(c, PE_MALFORMED, "unknown request type %u", (unsigned)type);
}
