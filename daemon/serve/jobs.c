/* The daemon's table of live jobs, and how a job is shown to clients. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <event2/event.h>
#include "idmap.h"
#include "jobarray.h"
#include "nodelist.h"
#include "proto.h"
#include "sched.h"
#include "sys/runner.h"
#include "sys/store.h"
#include "daemon.h"
#include "depstate.h"
#include "jobs.h"

_Static_assert(JS_NFIELDS <= sizeof ((struct djob *)0)->owned / sizeof (char *),
               "struct djob has a string for each JS_ field");

struct djob *jobs_get(struct daemon *d, uint64_t id)
{
	uint32_t k = idmap_get(&d->ids, id);

	return k == IDMAP_NONE ? NULL : d->jobs[k];
}

/* Point the row's string fields at the owned copies. */
static void relink(struct djob *j)
{
	j->rec.user = j->owned[JS_USER];
	j->rec.name = j->owned[JS_NAME];
	j->rec.cwd = j->owned[JS_CWD];
	j->rec.out = j->owned[JS_OUT];
	j->rec.err = j->owned[JS_ERR];
	j->rec.argv = j->owned[JS_ARGV];
	j->rec.env = j->owned[JS_ENV];
	j->rec.node_list = j->owned[JS_NODES];
	j->rec.reason = j->owned[JS_REASON];
	j->rec.broken = j->owned[JS_BROKEN];
	j->rec.depend = j->owned[JS_DEPEND];
	j->rec.depend_ids = j->owned[JS_DEPIDS];
}

int jobs_set_str(struct djob *j, int field, const char *v, size_t len)
{
	char *copy = NULL;

	if (v) {
		if (!(copy = malloc(len + 1)))
			return -1;
		memcpy(copy, v, len);
		copy[len] = 0;
	}
	free(j->owned[field]);
	j->owned[field] = copy;
	if (field == JS_ARGV)
		j->rec.argv_len = v ? len : 0;
	if (field == JS_ENV)
		j->rec.env_len = v ? len : 0;
	relink(j);
	return 0;
}

static size_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

struct djob *jobs_add(struct daemon *d, const struct store_job *rec)
{
	struct djob *j = calloc(1, sizeof *j);
	uint32_t k;

	if (!j)
		return NULL;
	j->rec = *rec;
	if (jobs_set_str(j, JS_USER, rec->user, slen(rec->user)) < 0 ||
	    jobs_set_str(j, JS_NAME, rec->name, slen(rec->name)) < 0 ||
	    jobs_set_str(j, JS_CWD, rec->cwd, slen(rec->cwd)) < 0 ||
	    jobs_set_str(j, JS_OUT, rec->out, slen(rec->out)) < 0 ||
	    jobs_set_str(j, JS_ERR, rec->err, slen(rec->err)) < 0 ||
	    jobs_set_str(j, JS_ARGV, rec->argv, rec->argv_len) < 0 ||
	    jobs_set_str(j, JS_ENV, rec->env, rec->env_len) < 0 ||
	    jobs_set_str(j, JS_NODES, rec->node_list, slen(rec->node_list)) < 0 ||
	    jobs_set_str(j, JS_REASON, rec->reason, slen(rec->reason)) < 0 ||
	    jobs_set_str(j, JS_BROKEN, rec->broken, slen(rec->broken)) < 0 ||
	    jobs_set_str(j, JS_DEPEND, rec->depend, slen(rec->depend)) < 0 ||
	    jobs_set_str(j, JS_DEPIDS, rec->depend_ids, slen(rec->depend_ids)) < 0)
		goto nomem;
	if (d->njobs == d->jobs_cap) {
		uint32_t cap = d->jobs_cap ? d->jobs_cap * 2 : 256;
		struct djob **nj = realloc(d->jobs, cap * sizeof *nj);

		if (!nj)
			goto nomem;
		d->jobs = nj;
		d->jobs_cap = cap;
	}
	k = d->njobs;
	if (idmap_put(&d->ids, rec->id, k) != 0)
		goto nomem;
	d->jobs[d->njobs++] = j;
	j->sup.pidfd = -1;
	return j;
nomem:
	for (int f = 0; f < JS_NFIELDS; f++)
		free(j->owned[f]);
	free(j);
	return NULL;
}

void jobs_remove(struct daemon *d, struct djob *j)
{
	uint32_t k = idmap_del(&d->ids, j->rec.id);

	if (k == IDMAP_NONE)
		return;
	/* Keep the array dense: the last job takes the hole. */
	if (k != d->njobs - 1) {
		d->jobs[k] = d->jobs[d->njobs - 1];
		idmap_del(&d->ids, d->jobs[k]->rec.id);
		idmap_put(&d->ids, d->jobs[k]->rec.id, k);
	}
	d->njobs--;
	if (j->sup_ev)
		event_free(j->sup_ev);
	if (j->grace_ev)
		event_free(j->grace_ev);
	for (int f = 0; f < JS_NFIELDS; f++)
		free(j->owned[f]);
	depstate_free(j->dep);
	free(j);
}

char *jobs_node_list(struct daemon *d, uint64_t id)
{
	uint32_t n = sched_job_nodes(d->sched, id, NULL, 0), *idx;
	const char **names;
	char *out = NULL;
	int len;

	if (n == 0 || !(idx = malloc(n * sizeof *idx)))
		return NULL;
	names = malloc(n * sizeof *names);
	if (names) {
		sched_job_nodes(d->sched, id, idx, n);
		for (uint32_t k = 0; k < n; k++)
			names[k] = d->node_names[idx[k]];
		len = nodelist_format(names, n, NULL, 0);
		if (len >= 0 && (out = malloc((size_t)len + 1)))
			nodelist_format(names, n, out, (size_t)len + 1);
	}
	free(names);
	free(idx);
	return out;
}

void jobs_requeue_reset(struct daemon *d, struct djob *j, bf_time now)
{
	runner_forget(d->spool.status_dir, j->rec.id);	/* the last run's record */
	j->rec.state = ST_QUEUED;
	j->rec.requeue = false;
	j->rec.seq = d->next_seq++;	/* behind every job queued now */
	j->rec.queued = now;		/* and waiting from now (CREASY) */
	j->rec.start = j->rec.end = j->rec.hold_end = BF_NEVER;
	j->rec.guarantee = j->rec.first_guarantee = BF_NEVER;
	j->rec.has_exit = false;
	j->rec.exit_status = 0;
	j->rec.sup_pid = j->rec.sup_start = 0;
	j->rec.kill_why = 0;
	j->rec.cpu_us = j->rec.mem_kb = -1;
	j->rec.cpu_src = j->rec.mem_src = 0;
	jobs_set_str(j, JS_NODES, NULL, 0);
	jobs_set_str(j, JS_REASON, NULL, 0);
}

char *jobs_expand_id(const char *tmpl, uint64_t id, uint32_t index)
{
	/* (each "%J", two bytes, becomes at most twenty) */
	size_t cap = tmpl ? strlen(tmpl) * 10 + 32 : 0;
	char *out;

	if (!tmpl || !(out = malloc(cap)))
		return NULL;
	if (jobarray_subst(tmpl, id, index, out, cap) < 0) {
		free(out);
		return NULL;
	}
	return out;
}

const char *jobs_out_path(const struct store_job *r, char *buf, size_t len)
{
	if (r->out)
		return r->out;
	snprintf(buf, len, "%s/bsub-%" PRIu64 ".out", r->cwd ? r->cwd : ".", r->id);
	return buf;
}

void jobs_to_proto(const struct store_job *r, bool detail, bf_time predicted,
                   struct proto_job *o)
{
	*o = (struct proto_job){
		.id = r->id, .uid = r->uid, .user = r->user, .name = r->name,
		.state = r->held && r->state == ST_QUEUED ? "held" : store_state_name(r->state),
		.nodes = r->nodes, .estimate = r->estimate,
		.submit = r->submit, .has_exit = r->has_exit, .exit_status = r->exit_status,
		/* A listing says only that the guarantee moved (bq's mark);
		 * bq -l has the words. */
		.broken = r->broken && !detail ? "" : r->broken, .first_guarantee = BF_NEVER,
		.array_id = r->array_id, .array_index = r->array_index,
	};
	if (r->start != BF_NEVER) {
		o->start_kind = PS_ACTUAL;
		o->start = r->start;
		o->end = r->end != BF_NEVER ? r->end : r->start + r->estimate;
	} else if (r->state == ST_QUEUED && r->guarantee != BF_NEVER) {
		o->start_kind = PS_GUARANTEED;
		o->start = r->guarantee;
		o->end = r->guarantee + r->estimate;
	} else if (r->state == ST_QUEUED && predicted != BF_NEVER) {
		o->start_kind = PS_PREDICTED;
		o->start = predicted;
		o->end = predicted + r->estimate;
	}
	if (detail) {
		o->node_list = r->node_list;
		o->cwd = r->cwd;
		o->out = r->out;
		o->err = r->err;
		o->reason = r->reason;
		o->depend = r->depend;
		o->cpu_us = r->cpu_us;
		o->cpu_src = (enum proto_usage_src)r->cpu_src;
		o->mem_kb = r->mem_kb;
		o->mem_src = (enum proto_usage_src)r->mem_src;
	}
}

/* A local time for the log, as bq prints it (a guarantee rounded up, as
 * clients round it: never earlier than the truth). */
const char *jobs_local_time(bf_time t, char *buf, size_t len)
{
	time_t secs = (time_t)((t + BF_SEC - 1) / BF_SEC);
	struct tm tm;

	if (!localtime_r(&secs, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "%lld", (long long)secs);
	return buf;
}
