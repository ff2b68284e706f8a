/* A submission, in two steps, so that the loop never waits for the disk:
 *
 * 1. submit_request, at once: the request is checked, its job gets an id
 *    and its script goes into the spool; the connection waits, its
 *    request kept (struct pending_sub), on d->unsynced.
 * 2. submit_admit, once its script and directory are synced, with the
 *    rest of its batch (drive.c; on the syncer's thread, or in the loop
 *    where there is none): the job enters the core
 *    and the store, and is acknowledged after the commit, as any change.
 *
 * Between the two the job is nowhere but in the spool: no listing shows
 * it, no commit holds it, so a commit never waits for a flush, and a
 * crash forgets it as a submission never acknowledged (the restart sweeps
 * its directory from the spool, after raising the stored last id past it:
 * an id is never given twice). The id is stored with the job. */
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "duration.h"
#include "jobarray.h"
#include "proto.h"
#include "sched.h"
#include "sys/clock.h"
#include "sys/log.h"
#include "sys/spool.h"
#include "sys/store.h"
#include "arrays.h"
#include "conn.h"
#include "daemon.h"
#include "depend.h"
#include "drive.h"
#include "forecast.h"
#include "jobs.h"
#include "submit.h"
#include "usage.h"

struct pending_sub {
	struct pending_sub *next;
	struct conn *c;			/* NULL once the client has left */
	struct proto_submit m;		/* its strings in `a` */
	struct proto_arena a;
	uint64_t id;
	uid_t uid;
	gid_t gid;
	char *user, *argv, *env, *out_path, *err_path;
	char *dep_text, *dep_ids;	/* -w: as kept with the job (depend.h) */
	struct jobarray arr;		/* -J "name[1-100]%10": an array (arr.is_array) */
	char *spec;			/* its indices written back: "[1-100]%10" */
	size_t argv_len, env_len;
	uint64_t cost;			/* usage.h: its bytes once live */
};

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

/* What the job will hold once admitted (usage_live_cost's measure, before
 * the strings are joined: each argument and entry with its NUL). */
static uint64_t request_cost(const struct proto_submit *m)
{
	struct store_job r = { .name = m->name, .cwd = m->cwd, .out = m->out, .err = m->err };

	for (uint32_t k = 0; k < m->argc; k++)
		r.argv_len += strlen(m->argv[k]) + 1;
	for (uint32_t k = 0; k < m->envc; k++)
		r.env_len += strlen(m->env[k]) + 1;
	return usage_live_cost(&r, m->script_len) + 64;	/* (the user's name) */
}

static void pending_free(struct pending_sub *p)
{
	free(p->user);
	free(p->argv);
	free(p->env);
	free(p->out_path);
	free(p->err_path);
	free(p->dep_text);
	free(p->dep_ids);
	jobarray_free(&p->arr);
	free(p->spec);
	proto_arena_free(&p->a);
	free(p);
}

/* The connection's context: it goes first if the client leaves; the
 * submission goes on without it, as a change the client did not wait for. */
static void pending_detach(void *ctx)
{
	((struct pending_sub *)ctx)->c = NULL;
}

/* Once durable (the answer comes after the commit). */
static void log_submitted(const struct djob *j, const struct proto_submitted *m)
{
	char lim[64], when[64] = "";

	duration_format(j->rec.estimate, lim, sizeof lim);
	/* Rounded as bsub prints it: up for a guarantee, down for the rest. */
	if (m->kind != PS_NONE)
		jobs_local_time(m->kind == PS_GUARANTEED ? m->start : m->start - m->start % BF_SEC,
		                    when, sizeof when);
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
	struct proto_submitted m = { .job = conn_job(c), .start = BF_NEVER, .kind = PS_NONE,
	                             .estimate = j ? j->rec.estimate : 0 };
	struct sched_job_info info;
	struct proto_buf b;
	bf_time *since = conn_ctx(c);	/* (the submission's is gone by now) */

	if (drive_unsettled(d)) {
		/* Its place, or the places of jobs before it, are still being
		 * found, or guarantees broken still being told: the answer
		 * names its guarantee, so it waits for the last slice, up to
		 * UNSETTLED_WAIT from its first wait (then it says what there
		 * is; without memory to time the wait, at once). */
		if (!since && (since = malloc(sizeof *since))) {
			*since = clock_monotonic();
			if (conn_set_ctx(c, since, free) < 0) {
				free(since);
				since = NULL;
			}
		}
		if (since && clock_monotonic() - *since < UNSETTLED_WAIT) {
			conn_wait_turn(c, answer_submitted);
			return;
		}
	}
	if (j && j->rec.array_id == j->rec.id && arrays_get(d, j->rec.id))
		m.elements = arrays_get(d, j->rec.id)->count;
	if (j && j->rec.start != BF_NEVER) {
		m.kind = PS_ACTUAL;
		m.start = j->rec.start;
	} else if (j && sched_job_info(d->sched, j->rec.id, &info) == SCHED_OK &&
	           info.guarantee != BF_NEVER) {
		m.kind = PS_GUARANTEED;
		m.start = info.guarantee;
	} else if (j && (drive_want_forecast(d), (m.start = forecast_of(d, j)) != BF_NEVER)) {
		/* (From the last complete forecast, if it has the job: one
		 * being made is not waited for.) */
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
 * limit gets default_limit. -1 with the reason in err. Asked at the
 * request and again at the admission: a reload may change the limits
 * between, and the jobs admitted meanwhile count for the user's cap. */
static int check_limits(struct daemon *d, uid_t uid, struct proto_submit *m, uint32_t count,
                        uint64_t cost, char *err, size_t errlen)
{
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
			queued += d->jobs[k]->rec.state == ST_QUEUED && d->jobs[k]->rec.uid == uid;
		if (queued >= L->max_queued_per_user ||
		    count > L->max_queued_per_user - queued) {
			snprintf(err, errlen, count > 1 ?
			         "you have %u jobs waiting, and %u more would be over the most this "
			         "partition takes from one user (max_queued_per_user %u)" :
			         "you have %u jobs waiting, the most this partition takes "
			         "from one user (max_queued_per_user); submit again when some have "
			         "started", queued, count, L->max_queued_per_user);
			return -1;
		}
	}
	return usage_admit(d, uid, cost, err, errlen);
}

/* The spool was removed or replaced under the daemon: true, with what
 * the client is told in err. */
static bool spool_gone(struct daemon *d, char *err, size_t errlen)
{
	if (drive_spool_ok(d))
		return false;
	snprintf(err, errlen, "the daemon takes no new jobs: its spool %s was removed or replaced "
	         "while it ran; an operator must restart it", d->spool.dir);
	return true;
}

static enum proto_err limits_code(const struct daemon *d, const struct proto_submit *m)
{
	return m->nodes > d->o.lim.max_nodes && d->o.lim.max_nodes ? PE_TOOBIG : PE_INVALID;
}

/* A condition already false, each part marked in err, said as the
 * refusal: the prefix goes before it, in place (cut to fit). */
static void never_met(char *err, size_t len)
{
	static const char said[] = "-w: the condition can never be met: ";
	size_t n = strnlen(err, len - sizeof said);

	memmove(err + sizeof said - 1, err, n);
	memcpy(err, said, sizeof said - 1);
	err[sizeof said - 1 + n] = 0;
}

static uint32_t count_of(const struct pending_sub *p)
{
	return p->arr.is_array ? p->arr.count : 1;
}

/* -J "name[SPEC]%K": an array. Its name is the part before '['; its
 * indices are kept written back compactly. 0, or -1 with the reason. */
static int array_request(struct pending_sub *p, char *err, size_t errlen)
{
	char why[300];
	size_t pos = 0;
	int n;

	if (!p->m.array)
		return 0;
	if (jobarray_parse(p->m.array, &p->arr, why, sizeof why, &pos) < 0) {
		snprintf(err, errlen, "-J: at column %zu: %s", pos + 1, why);
		return -1;
	}
	if (!p->arr.is_array) {
		snprintf(err, errlen, "-J: '%s' is no array (name[SPEC])", p->m.array);
		return -1;
	}
	if (p->arr.count > ARRAYS_MAX_ELEMENTS) {
		snprintf(err, errlen, "-J: an array of %u elements; this daemon takes at most %u",
		         p->arr.count, ARRAYS_MAX_ELEMENTS);
		return -1;
	}
	n = jobarray_format_spec(p->arr.index, p->arr.count, p->arr.cap, NULL, 0);
	if (n < 0 || !(p->spec = malloc((size_t)n + 1))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	jobarray_format_spec(p->arr.index, p->arr.count, p->arr.cap, p->spec, (size_t)n + 1);
	p->m.name = p->arr.name[0] ? p->arr.name : NULL;
	return 0;
}

/* Its elements into the core and the store, one job each, and the array
 * once (its row, and the arguments every element shares). */
static void admit_array(struct daemon *d, struct pending_sub *p, bf_time now)
{
	struct conn *c = p->c;
	struct darray *a;
	char err[1024], first[160];
	int rc = 0;

	if (depend_already_never(d, p->dep_text, p->dep_ids, err, sizeof err)) {
		never_met(err, sizeof err);
		spool_job_remove(&d->spool, p->id);
		if (c)
			conn_error(c, PE_INVALID, "%s", err);
		return;
	}
	if (!(a = arrays_add(d, p->id, p->uid, p->m.name, p->spec, p->arr.index, p->arr.count,
	                     p->arr.cap, p->argv, p->argv_len, p->env, p->env_len))) {
		spool_job_remove(&d->spool, p->id);
		if (c)
			conn_error(c, PE_INTERNAL, "out of memory");
		return;
	}
	snprintf(first, sizeof first, "submitted: an array of %u elements %s", p->arr.count,
	         p->spec);
	if (c)
		conn_wait_commit(c, answer_submitted, p->id);
	if (store_begin(d->store) < 0 || store_raise_last_id(d->store, p->id + p->arr.count - 1) < 0 ||
	    store_put_array(d->store, &(struct store_array){ .id = p->id, .name = p->m.name,
	                    .spec = p->spec, .count = p->arr.count, .cap = p->arr.cap }) < 0 ||
	    store_put_args(d->store, p->id, p->argv, p->argv_len, p->env, p->env_len) < 0)
		drive_store_failed(d);
	for (uint32_t k = 0; k < p->arr.count; k++) {
		uint64_t id = p->id + k;
		struct store_job rec = {
			.id = id, .seq = d->next_seq, .uid = p->uid, .gid = p->gid,
			.user = p->user, .name = p->m.name, .nodes = p->m.nodes,
			.estimate = p->m.estimate, .submit = now, .queued = BF_NEVER,
			.state = ST_QUEUED, .guarantee = BF_NEVER, .first_guarantee = BF_NEVER,
			.start = BF_NEVER, .end = BF_NEVER, .hold_end = BF_NEVER, .cwd = p->m.cwd,
			.has_umask = p->m.has_umask, .umask = (uint16_t)p->m.umask,
			.depend = p->dep_text, .depend_ids = p->dep_ids,
			.array_id = p->id, .array_index = p->arr.index[k],
		};
		struct sched_job_info info;
		char *out = jobs_expand_id(p->m.out, p->id, p->arr.index[k]);
		char *errp = jobs_expand_id(p->m.err, p->id, p->arr.index[k]);
		struct djob *j;

		rec.out = out;
		rec.err = errp;
		j = (!p->m.out || out) && (!p->m.err || errp) ? jobs_add(d, &rec) : NULL;
		free(out);
		free(errp);
		if (!j) {
			log_job(LOG_WARNING, id, p->user, "out of memory: element %u of array %" PRIu64
			        " and those after it not submitted", p->arr.index[k], p->id);
			break;
		}
		arrays_element_live(a);
		if ((rc = depend_enter(d, j, now, DEPEND_SUBMIT, now, BF_NEVER, err,
		                       sizeof err)) != 0) {
			/* (the condition is the same for every element: the first
			 * said it, before any was stored) */
			const char *why = rc == 1 ? "its dependency can never be met" :
			                  sched_strerror(rc);

			j->rec.state = ST_CANCELLED;
			j->rec.end = now;
			jobs_set_str(j, JS_REASON, why, strlen(why));
			drive_store(d, j, "cancelled at its submission");
			continue;
		}
		d->next_seq++;
		if (sched_job_info(d->sched, id, &info) == SCHED_OK)
			j->rec.guarantee = j->rec.first_guarantee = info.guarantee;
		/* The submission is logged once, with the array's first element:
		 * a log row an element was two thirds of what it cost (10,000 of
		 * them took 0.4 s, 0.15 s without). */
		drive_store(d, j, k == 0 ? first : NULL);
	}
}

void submit_request(struct conn *c, const uint8_t *frame, size_t len)
{
	struct daemon *d = conn_daemon(c);
	struct pending_sub *p = calloc(1, sizeof *p);
	struct passwd pw, *pwp = NULL;
	char err[1024], pwbuf[1024];

	if (!p) {
		conn_error(c, PE_INTERNAL, "out of memory");
		return;
	}
	if (proto_dec_submit(frame, len, &p->m, &p->a, err, sizeof err) < 0) {
		conn_error(c, PE_MALFORMED, "%s", err);
		goto fail;
	}
	if (p->m.nodes > d->nnodes) {
		conn_error(c, PE_TOOBIG, "%u nodes asked for; the partition has %u", p->m.nodes,
		           d->nnodes);
		goto fail;
	}
	if (array_request(p, err, sizeof err) < 0) {
		conn_error(c, PE_INVALID, "%s", err);
		goto fail;
	}
	/* (an element costs its row and its strings; the arguments are shared) */
	p->cost = request_cost(&p->m) + (uint64_t)(count_of(p) - 1) * (512 + p->m.script_len / 64);
	if (check_limits(d, conn_uid(c), &p->m, count_of(p), p->cost, err, sizeof err) < 0) {
		conn_error(c, limits_code(d, &p->m), "%s", err);
		goto fail;
	}
	if (p->m.script_len == 0) {
		conn_error(c, PE_INVALID, "the script is empty");
		goto fail;
	}
	p->uid = conn_uid(c);
	p->gid = conn_gid(c);
	getpwuid_r(p->uid, &pw, pwbuf, sizeof pwbuf, &pwp);
	p->argv = join(p->m.argv, p->m.argc, &p->argv_len);
	p->env = join(p->m.env, p->m.envc, &p->env_len);
	if (!p->argv || !p->env || (pwp && !(p->user = strdup(pwp->pw_name)))) {
		conn_error(c, PE_INTERNAL, "out of memory");
		goto fail;
	}
	if (spool_gone(d, err, sizeof err)) {
		conn_error(c, PE_INTERNAL, "%s", err);
		goto fail;
	}
	/* Its condition's jobs are found now, as they are when it is asked
	 * for (the admission, once its script is durable, evaluates it). */
	if (p->m.depend && depend_resolve(d, p->uid, p->m.depend, &p->dep_text, &p->dep_ids, err,
	                                  sizeof err) < 0) {
		conn_error(c, PE_INVALID, "%s", err);
		goto fail;
	}
	/* An array takes an id for each element, in index order. */
	p->id = d->last_id + 1;
	d->last_id += count_of(p);
	if ((p->m.out && !(p->out_path = jobs_expand_id(p->m.out, p->id, 0))) ||
	    (p->m.err && !(p->err_path = jobs_expand_id(p->m.err, p->id, 0)))) {
		conn_error(c, PE_INTERNAL, "out of memory");
		goto fail;
	}
	/* The script, made durable with the rest of the batch on the syncer's
	 * thread (drive.c, spool_jobs_sync). */
	if (spool_job_create(&d->spool, p->id, p->uid, p->m.script, p->m.script_len, err,
	                     sizeof err) < 0) {
		log_job(LOG_WARNING, p->id, p->user, "%s", err);
		conn_error(c, PE_INTERNAL, "%s", err);
		goto fail;
	}
	d->spool_dirty = true;
	p->m.script = NULL;	/* (in the request's buffer, which goes now) */
	p->c = c;
	conn_set_ctx(c, p, pending_detach);	/* (a submission has none before) */
	conn_park(c, 2 * len);	/* its strings, and argv and env joined */
	*d->unsynced_tail = p;
	d->unsynced_tail = &p->next;
	drive_want_commit(d);
	return;
fail:
	pending_free(p);
}

/* One submission whose script is durable: into the core and the store;
 * or refused with `fail` (the flush failed), its script removed. */
static void admit_one(struct daemon *d, struct pending_sub *p, bf_time now, const char *fail)
{
	struct conn *c = p->c;
	struct store_job rec;
	struct sched_job_info info;
	char err[1024];
	struct djob *j;
	int rc;

	if (c) {
		conn_drop_ctx(c);
		conn_unpark(c);
	}
	if (fail || spool_gone(d, err, sizeof err)) {
		rc = PE_INTERNAL;
		goto refused;
	}
	if (check_limits(d, p->uid, &p->m, count_of(p), p->cost, err, sizeof err) < 0) {
		rc = limits_code(d, &p->m);
		goto refused;
	}
	if (p->arr.is_array) {
		admit_array(d, p, now);
		return;
	}
	rec = (struct store_job){
		.id = p->id, .seq = d->next_seq, .uid = p->uid, .gid = p->gid,
		.user = p->user, .name = p->m.name, .nodes = p->m.nodes,
		.estimate = p->m.estimate, .submit = now, .queued = BF_NEVER, .state = ST_QUEUED,
		.guarantee = BF_NEVER,
		.first_guarantee = BF_NEVER, .start = BF_NEVER, .end = BF_NEVER,
		.hold_end = BF_NEVER, .cwd = p->m.cwd,
		.out = p->out_path, .err = p->err_path, .argv = p->argv, .argv_len = p->argv_len,
		.env = p->env, .env_len = p->env_len,
		.has_umask = p->m.has_umask, .umask = (uint16_t)p->m.umask,
		.depend = p->dep_text, .depend_ids = p->dep_ids,
	};
	if (!(j = jobs_add(d, &rec))) {
		snprintf(err, sizeof err, "out of memory");
		rc = PE_INTERNAL;
		goto refused;
	}
	if ((rc = depend_enter(d, j, now, DEPEND_SUBMIT, now, BF_NEVER, err, sizeof err)) != 0) {
		jobs_remove(d, j);
		if (rc == 1) {
			never_met(err, sizeof err);
		} else {
			snprintf(err, sizeof err, "%s", sched_strerror(rc));
		}
		rc = rc == SCHED_E_NOMEM ? PE_INTERNAL : PE_INVALID;
		goto refused;
	}
	j->cost = p->cost;
	d->next_seq++;
	/* Waiting from here: a store that fails below tells it so. */
	if (c)
		conn_wait_commit(c, answer_submitted, p->id);
	if (store_begin(d->store) < 0 || store_raise_last_id(d->store, p->id + count_of(p) - 1) < 0)
		drive_store_failed(d);
	/* (An arrival joins the forecast as it is: see forecast.h.) */
	if (sched_job_info(d->sched, p->id, &info) == SCHED_OK)
		j->rec.guarantee = j->rec.first_guarantee = info.guarantee;
	drive_store(d, j, "submitted");
	/* Its arguments and environment, once (write_again writes them again
	 * while args_unstored). */
	j->args_unstored = true;
	if (store_put_args(d->store, p->id, p->argv, p->argv_len, p->env, p->env_len) < 0)
		drive_store_failed(d);
	return;
refused:
	spool_job_remove(&d->spool, p->id);
	if (c)
		conn_error(c, (enum proto_err)rc, "%s", fail ? fail : err);
}

void submit_admit(struct daemon *d, struct pending_sub *list, const char *fail)
{
	bf_time now = daemon_now(d);

	for (struct pending_sub *p = list, *next; p; p = next) {
		next = p->next;
		admit_one(d, p, now, fail);
		pending_free(p);
	}
	drive_want_commit(d);
}

uint64_t *submit_ids(const struct pending_sub *list, size_t *n)
{
	size_t k = 0;
	uint64_t *ids;

	for (const struct pending_sub *p = list; p; p = p->next)
		k++;
	if (!(ids = malloc((k ? k : 1) * sizeof *ids)))
		return NULL;
	*n = k;
	k = 0;
	for (const struct pending_sub *p = list; p; p = p->next)
		ids[k++] = p->id;
	return ids;
}

void submit_drop(struct pending_sub *list)
{
	for (struct pending_sub *p = list, *next; p; p = next) {
		next = p->next;
		pending_free(p);
	}
}
