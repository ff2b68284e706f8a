/* Dependencies between jobs (bsub -w); see depend.h.
 *
 * A waiting job keeps its condition parsed (struct djob_dep: the tree, and
 * the jobs each atom named at the submission, with what is known of those
 * that ended: an ended job's fate never changes). The daemon keeps, for
 * each job that waiting jobs name, the list of those jobs (an index from
 * the predecessor's id), so a start or an end looks only at the jobs that
 * wait on it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/wait.h>
#include "depexpr.h"
#include "idmap.h"
#include "sched.h"
#include "sys/log.h"
#include "sys/store.h"
#include "arrays.h"
#include "daemon.h"
#include "depend.h"
#include "depstate.h"
#include "drive.h"
#include "forecast.h"
#include "jobs.h"

/* The jobs that wait on one job, by the predecessor's id. A list can hold
 * ids of jobs that went since (skipped when read); it goes when its job
 * ends. */
struct depidx {
	struct idmap map;		/* predecessor id -> index in lists */
	struct waiters {
		uint64_t *ids;
		uint32_t n, cap;
	} *lists;
	uint32_t nlists, cap, free_head;
};

/* ---- the index ---- */

static struct depidx *index_of(struct daemon *d)
{
	if (!d->depidx && (d->depidx = calloc(1, sizeof *d->depidx))) {
		if (idmap_init(&d->depidx->map, 64) < 0) {
			free(d->depidx);
			d->depidx = NULL;
		}
		if (d->depidx)
			d->depidx->free_head = UINT32_MAX;
	}
	return d->depidx;
}

static int index_add(struct daemon *d, uint64_t pred, uint64_t waiter)
{
	struct depidx *x = index_of(d);
	struct waiters *w;
	uint32_t k;

	if (!x)
		return -1;
	if ((k = idmap_get(&x->map, pred)) == IDMAP_NONE) {
		if (x->free_head != UINT32_MAX) {
			k = x->free_head;
			x->free_head = (uint32_t)x->lists[k].cap;
			x->lists[k] = (struct waiters){ 0 };
		} else {
			if (x->nlists == x->cap) {
				uint32_t cap = x->cap ? 2 * x->cap : 64;
				struct waiters *l = realloc(x->lists, cap * sizeof *l);

				if (!l)
					return -1;
				x->lists = l;
				x->cap = cap;
			}
			k = x->nlists++;
			x->lists[k] = (struct waiters){ 0 };
		}
		if (idmap_put(&x->map, pred, k) < 0)
			return -1;
	}
	w = &x->lists[k];
	if (w->n && w->ids[w->n - 1] == waiter)
		return 0;	/* (named twice by one condition) */
	if (w->n == w->cap) {
		uint32_t cap = w->cap ? 2 * w->cap : 4;
		uint64_t *ids = realloc(w->ids, cap * sizeof *ids);

		if (!ids)
			return -1;
		w->ids = ids;
		w->cap = cap;
	}
	w->ids[w->n++] = waiter;
	return 0;
}

/* The waiters of pred, taken out of the index (the caller frees ids). */
static struct waiters index_take(struct daemon *d, uint64_t pred)
{
	struct depidx *x = d->depidx;
	struct waiters w = { 0 };
	uint32_t k;

	if (!x || (k = idmap_del(&x->map, pred)) == IDMAP_NONE)
		return w;
	w = x->lists[k];
	x->lists[k] = (struct waiters){ .cap = x->free_head };	/* (cap links free ones) */
	x->free_head = k;
	return w;
}

/* ---- a job's facts ---- */

static struct dep_fact fact_of_rec(const struct store_job *r)
{
	bool ended = !store_state_live(r->state);
	bool exited = r->has_exit && WIFEXITED(r->exit_status);
	struct dep_fact f = { .started = r->start != BF_NEVER || ended, .ended = ended };

	f.done = r->state == ST_DONE && exited && WEXITSTATUS(r->exit_status) == 0;
	f.exit_code = ended && !f.done && exited ? WEXITSTATUS(r->exit_status) : -1;
	return f;
}

static int visit_fact(const struct store_job *r, void *arg)
{
	*(struct dep_fact *)arg = fact_of_rec(r);
	return 1;
}

/* What one named job has done: from memory while it is there, else from
 * the store (once: an ended job's facts are kept). A job gone from the
 * store (pruned, long ended) ended in a way no longer known. */
static struct dep_fact fact_of(struct daemon *d, struct djob_dep *dd, uint32_t k)
{
	struct djob *j = jobs_get(d, dd->ids[k]);
	struct dep_fact f = { .started = true, .ended = true, .exit_code = -1 };

	if (dd->known[k])
		return dd->fact[k];
	if (j)
		f = fact_of_rec(&j->rec);
	else if (store_get_job(d->store, dd->ids[k], visit_fact, &f) < 0)
		f = (struct dep_fact){ .exit_code = -1 };	/* not known now: waits */
	if (f.ended) {
		dd->fact[k] = f;
		dd->known[k] = true;
	}
	return f;
}

/* ---- evaluation ---- */

struct eval_ctx {
	struct daemon *d;
	struct djob_dep *dd;
	struct dep_fact *scratch;
};

static enum dep_value atom_value(const struct dep_atom *a, size_t i, void *arg)
{
	struct eval_ctx *c = arg;
	struct djob_dep *dd = c->dd;
	uint32_t n = 0;

	for (uint32_t k = dd->first[i]; k < dd->first[i + 1]; k++)
		c->scratch[n++] = fact_of(c->d, dd, k);
	return dep_atom_value(a, c->scratch, n);
}

static enum dep_value evaluate(struct daemon *d, struct djob_dep *dd)
{
	struct eval_ctx c = { d, dd, malloc((dd->nids ? dd->nids : 1) * sizeof *c.scratch) };
	enum dep_value v;

	if (!c.scratch)
		return DEP_UNKNOWN;	/* (looked at again at the next change) */
	v = depexpr_eval(dd->expr, atom_value, &c);
	free(c.scratch);
	return v;
}

/* ---- resolving a new condition ---- */

struct found {
	uint64_t *ids;
	uint32_t n, cap;
};

static int found_add(struct found *f, uint64_t id)
{
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? 2 * f->cap : 16;
		uint64_t *ids = realloc(f->ids, cap * sizeof *ids);

		if (!ids)
			return -1;
		f->ids = ids;
		f->cap = cap;
	}
	f->ids[f->n++] = id;
	return 0;
}

static int visit_exists(const struct store_job *r, void *arg)
{
	(void)r;
	*(bool *)arg = true;
	return 1;
}

/* What add_array reads of a job that may be an array's first element. */
struct row_of {
	bool found;
	uint64_t array_id;
	uint32_t count;
};

static int visit_job(const struct store_job *r, void *arg)
{
	struct row_of *o = arg;

	o->found = true;
	o->array_id = r->array_id;
	return 1;
}

static int visit_count(const struct store_array *a, void *arg)
{
	((struct row_of *)arg)->count = a->count;
	return 0;
}

/* Array `id`'s elements: every one (index < 0), or the one with index;
 * 1 if id is an array's (its elements added), 0 if it is none, -1. */
static int add_array(struct daemon *d, uint64_t id, int64_t index, struct found *f, char *err,
                     size_t errlen)
{
	struct darray *a = arrays_get(d, id);
	struct row_of o = { 0 };
	uint64_t element;

	if (a) {
		o.count = a->count;
	} else {
		if (store_get_job(d->store, id, visit_job, &o) < 0)
			goto failed;
		if (!o.found || o.array_id != id)
			return 0;
		if (store_get_array(d->store, id, visit_count, &o) < 0)
			goto failed;
	}
	if (index >= 0) {
		if (!(element = arrays_find_element(d, id, (uint32_t)index))) {
			snprintf(err, errlen, "-w: array %" PRIu64 " has no element %" PRId64, id, index);
			return -1;
		}
		return found_add(f, element) < 0 ? -1 : 1;
	}
	for (uint32_t k = 0; k < o.count && k < DEPEND_MAX_JOBS + 1; k++)
		if (found_add(f, id + k) < 0)
			return -1;
	return 1;
failed:
	snprintf(err, errlen, "-w: the daemon could not read job %" PRIu64 ": %s", id,
	         store_error(d->store));
	return -1;
}

/* A job by its id: an array's every element (or one, ID[3]), else the
 * job itself. */
static int add_id(struct daemon *d, uint64_t id, int64_t index, struct found *f, char *err,
                  size_t errlen)
{
	bool exists = false;
	int rc = add_array(d, id, index, f, err, errlen);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (index >= 0) {
		snprintf(err, errlen, "-w: %" PRIu64 "[%" PRId64 "]: job %" PRIu64 " is no array", id,
		         index, id);
		return -1;
	}
	if (!jobs_get(d, id) && (store_get_job(d->store, id, visit_exists, &exists) < 0 || !exists)) {
		snprintf(err, errlen, "-w: there is no job %" PRIu64, id);
		return -1;
	}
	return found_add(f, id);
}

static bool all_digits(const char *s)
{
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* The jobs one atom names, appended to f; -1 with the reason in err. */
static int resolve_atom(struct daemon *d, uint32_t uid, const struct dep_atom *a, struct found *f,
                        char *err, size_t errlen)
{
	uint32_t before = f->n;
	int rc;
	uint64_t id;

	if (!a->by_name)
		return add_id(d, a->id, a->index, f, err, errlen);
	/* Every live job of the user's with that name (with the index: those
	 * elements of its arrays), in id order; or, if none is live, the
	 * latest submitted (the highest id; it has ended). */
	for (uint32_t k = 0; k < d->njobs; k++) {
		const struct store_job *r = &d->jobs[k]->rec;

		if (r->uid == uid && r->name && strcmp(r->name, a->name) == 0 &&
		    (a->index < 0 || (r->array_id && r->array_index == a->index)) &&
		    found_add(f, r->id) < 0)
			return -1;
	}
	if (f->n > before)
		return 0;
	rc = store_find_named(d->store, uid, a->name, &id);
	/* done("12[3]"): a quoted id, as LSF's users write an element's
	 * condition, when the user has no job of that name. */
	if (rc == 0 && all_digits(a->name)) {
		uint64_t n = strtoull(a->name, NULL, 10);

		if (n > 0 && n < INT64_MAX)
			return add_id(d, n, a->index, f, err, errlen);
	}
	if (a->index >= 0) {
		snprintf(err, errlen, "-w: %s[%" PRId64 "]: you have no live array named %s with "
		         "that element", a->name, a->index, a->name);
		return -1;
	}
	if (rc <= 0) {
		snprintf(err, errlen, rc < 0 ? "-w: the daemon could not look up the name %s" :
		         "-w: you have no job named %s", a->name);
		return -1;
	}
	return found_add(f, id);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int depend_resolve(struct daemon *d, uint32_t uid, const char *cond, char **text, char **ids,
                   char *err, size_t errlen)
{
	struct depexpr *e = NULL;
	struct found f = { 0 };
	char msg[600];
	size_t pos = 0, n, len = 0;
	int rc = -1;

	*text = *ids = NULL;
	if (depexpr_parse(cond, strlen(cond), &e, msg, sizeof msg, &pos) < 0) {
		snprintf(err, errlen, "-w: at column %zu: %s", pos + 1, msg);
		return -1;
	}
	n = depexpr_natoms(e);
	if (!(*text = malloc(DEPEXPR_MAX_LEN + 1)))
		goto nomem;
	depexpr_format(e, *text, DEPEXPR_MAX_LEN + 1);
	for (size_t i = 0; i < n; i++) {
		uint32_t from = f.n;

		if (resolve_atom(d, uid, depexpr_atom(e, i), &f, msg, sizeof msg) < 0) {
			/* (msg: "-w: ..."; said at the condition's column) */
			snprintf(err, errlen, "-w: at column %zu: %s", depexpr_atom(e, i)->pos + 1,
			         strncmp(msg, "-w: ", 4) == 0 ? msg + 4 : msg);
			goto out;
		}
		qsort(f.ids + from, f.n - from, sizeof *f.ids, cmp_u64);
		if (f.n > DEPEND_MAX_JOBS) {
			snprintf(err, errlen, "-w: the condition names more than %u jobs",
			         DEPEND_MAX_JOBS);
			goto out;
		}
		if (found_add(&f, 0) < 0)	/* (0: the end of an atom's ids) */
			goto nomem;
	}
	if (!(*ids = malloc((size_t)f.n * 21 + 1)))
		goto nomem;
	for (uint32_t k = 0; k < f.n; k++) {
		if (f.ids[k] == 0) {
			if (k + 1 < f.n)
				(*ids)[len++] = ';';
			continue;
		}
		len += (size_t)sprintf(*ids + len, "%s%" PRIu64,
		                       k > 0 && f.ids[k - 1] != 0 ? "," : "", f.ids[k]);
	}
	(*ids)[len] = 0;
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	if (rc < 0) {
		free(*text);
		free(*ids);
		*text = *ids = NULL;
	}
	depexpr_free(e);
	free(f.ids);
	return rc;
}

/* ---- entering the core ---- */

static int visit_started(const struct store_job *r, void *arg)
{
	*(bool *)arg = r->start != BF_NEVER;
	return 1;
}

/* An ended element (gone from memory) that had started. */
static bool element_ran(struct daemon *d, uint64_t id)
{
	bool ran = true;	/* (unknown: as if it ran, so the walk ends) */

	store_get_job(d->store, id, visit_started, &ran);
	return ran;
}

/* In the core now (a restore puts jobs back one by one: a live job may
 * not be there yet). */
static bool in_core(struct daemon *d, uint64_t id)
{
	struct sched_job_info info;

	return sched_job_info(d->sched, id, &info) == SCHED_OK;
}

/* The element an element of a capped array follows: the one cap before
 * it, or, past those cancelled before they started, the nearest before
 * that is in the core; 0 if none (the lane's elements start in order,
 * so one that ran and ended has none live before it). */
static uint64_t lane_before(struct daemon *d, const struct darray *a, uint64_t id)
{
	for (uint64_t p = id; p - a->id >= a->cap; ) {
		const struct djob *pj;

		p -= a->cap;
		pj = jobs_get(d, p);
		if (in_core(d, p))
			return p;
		if (pj && pj->rec.start != BF_NEVER)
			return 0;	/* (ran: in memory until its end is durable) */
		if (!pj && element_ran(d, p))
			return 0;
	}
	return 0;
}

/* The edges of a job: for a waiting one, each job its condition names
 * that is in the core, once, an END edge if any atom is about its end,
 * else a START edge; for an element of an array with a cap of K, an
 * order edge after the element K before it (while that one is in the
 * core): so at most K run at once, and the plan says when each may. */
static int make_edges(struct daemon *d, const struct djob *j, struct djob_dep *dd,
                      struct sched_dep **out, uint32_t *n)
{
	struct sched_dep *e = malloc(((dd ? dd->nids : 0) + 1) * sizeof *e);
	struct darray *a = j->rec.array_id ? arrays_get(d, j->rec.array_id) : NULL;
	uint32_t m = 0;

	if (!e)
		return -1;
	if (a && a->cap) {
		/* The lane's last to enter (a released element goes behind the
		 * others of its lane), else the nearest before it. */
		uint64_t last = a->lane_last[(j->rec.id - a->id) % a->cap];
		uint64_t p = last && last != j->rec.id && in_core(d, last) ? last :
		             lane_before(d, a, j->rec.id);

		if (p)
			e[m++] = (struct sched_dep){ .job = p, .kind = SCHED_DEP_END };
	}
	for (uint32_t i = 0; dd && i < dd->natoms; i++) {
		uint8_t kind = depexpr_atom(dd->expr, i)->kind == DEP_STARTED ? SCHED_DEP_START :
		               SCHED_DEP_END;

		for (uint32_t k = dd->first[i]; k < dd->first[i + 1]; k++) {
			uint32_t x = 0;

			if (!in_core(d, dd->ids[k]))
				continue;	/* ended, or not in the core */
			while (x < m && e[x].job != dd->ids[k])
				x++;
			if (x == m)
				e[m++] = (struct sched_dep){ .job = dd->ids[k], .kind = kind,
				                             .cond = true };
			else if (kind == SCHED_DEP_END)
				e[x].kind = SCHED_DEP_END;	/* (an order edge stays one) */
		}
	}
	*out = e;
	*n = m;
	return 0;
}

int depend_enter(struct daemon *d, struct djob *j, bf_time now, enum depend_enter how,
                 bf_time since, bf_time guarantee, char *err, size_t errlen)
{
	struct sched_new_job nj = {
		.id = j->rec.id, .nodes = j->rec.nodes, .estimate = j->rec.estimate,
		.user = j->rec.uid, .submit = how == DEPEND_RESTORE ? since : now,
		.guarantee = guarantee,
	};
	struct sched_dep *edges = NULL;
	enum dep_value v = DEP_TRUE;
	int rc;

	if (nj.submit > now)
		nj.submit = now;
	if (j->rec.depend && !j->dep && !(j->dep = depstate_load(j->rec.depend, j->rec.depend_ids)))
		return SCHED_E_NOMEM;
	if (j->dep && (v = evaluate(d, j->dep)) == DEP_FALSE) {
		depend_pending(d, j, err, errlen);
		return 1;
	}
	if (make_edges(d, j, v == DEP_UNKNOWN ? j->dep : NULL, &edges, &nj.ndeps) < 0)
		return SCHED_E_NOMEM;
	nj.deps = edges;
	if (v == DEP_UNKNOWN) {
		nj.waiting = true;
		for (uint32_t k = 0; k < j->dep->nids; k++)
			if (!j->dep->known[k] && index_add(d, j->dep->ids[k], j->rec.id) < 0) {
				free(edges);
				return SCHED_E_NOMEM;
			}
	}
	if (j->dep)
		j->dep->waiting = v == DEP_UNKNOWN;
	rc = how == DEPEND_RESTORE ? sched_restore_queued_job(d->sched, now, &nj) :
	     sched_submit_job(d->sched, now, &nj);
	if (rc == 0 && j->rec.array_id) {
		struct darray *a = arrays_get(d, j->rec.array_id);

		if (a && a->cap)
			a->lane_last[(j->rec.id - a->id) % a->cap] = j->rec.id;
	}
	free(edges);
	return rc;
}

int depend_already_never(struct daemon *d, const char *text, const char *ids, char *err,
                         size_t errlen)
{
	struct djob j = { .dep = text ? depstate_load(text, ids) : NULL };
	int never;

	if (!j.dep)
		return 0;	/* (none, or no memory: each element will say) */
	never = evaluate(d, j.dep) == DEP_FALSE;
	if (never)
		depend_pending(d, &j, err, errlen);
	depstate_free(j.dep);
	return never;
}

/* ---- changes ---- */

void depend_never(struct daemon *d, struct djob *j, bf_time now)
{
	char why[DEPEXPR_MARKED_MAX + 64], detail[DEPEXPR_MARKED_MAX + 128];

	j->dep->waiting = false;
	snprintf(why, sizeof why, "its dependency can never be met: ");
	depend_pending(d, j, why + strlen(why), sizeof why - strlen(why));
	if (!j->rec.held)
		sched_cancel(d->sched, now, j->rec.id);
	forecast_stale(d);
	j->rec.held = false;
	j->rec.state = ST_CANCELLED;
	j->rec.end = now;
	j->rec.guarantee = BF_NEVER;
	jobs_set_str(j, JS_REASON, why, strlen(why));
	log_job(LOG_NOTICE, j->rec.id, j->rec.user, "cancelled: %s", why);
	snprintf(detail, sizeof detail, "cancelled: %s", why);
	drive_store(d, j, detail);
}

static void met(struct daemon *d, struct djob *j, bf_time now)
{
	j->dep->waiting = false;
	if (!j->rec.held)
		sched_dep_release(d->sched, now, j->rec.id);
	forecast_stale(d);
	log_job(LOG_INFO, j->rec.id, j->rec.user, "its dependency is met");
	drive_store(d, j, "its dependency is met");
}

uint32_t depend_changed(struct daemon *d, uint64_t id, bf_time now)
{
	struct found work = { 0 };
	uint32_t changed = 0;

	if (!d->depidx || idmap_get(&d->depidx->map, id) == IDMAP_NONE)
		return 0;
	if (found_add(&work, id) < 0)
		return 0;
	/* A cancel ends a job others may wait on: theirs next, not by
	 * recursion (a chain can be long). */
	while (work.n > 0) {
		uint64_t pred = work.ids[--work.n];
		struct djob *p = jobs_get(d, pred);
		bool ended = !p || !store_state_live(p->rec.state);
		struct waiters w;

		if (!d->depidx || idmap_get(&d->depidx->map, pred) == IDMAP_NONE)
			continue;
		/* (a started job's list stays: its end comes) */
		w = ended ? index_take(d, pred) : d->depidx->lists[idmap_get(&d->depidx->map, pred)];
		for (uint32_t k = 0; k < w.n; k++) {
			struct djob *j = jobs_get(d, w.ids[k]);
			enum dep_value v;

			if (!j || !j->dep || !j->dep->waiting || j->rec.state != ST_QUEUED)
				continue;
			if ((v = evaluate(d, j->dep)) == DEP_TRUE) {
				met(d, j, now);
				changed++;
			} else if (v == DEP_FALSE) {
				depend_never(d, j, now);
				changed++;
				if (found_add(&work, j->rec.id) < 0)
					break;
			}
		}
		if (ended)
			free(w.ids);
	}
	free(work.ids);
	return changed;
}

int depend_pending(struct daemon *d, const struct djob *j, char *buf, size_t len)
{
	struct eval_ctx c = { d, j->dep, NULL };

	if (len)
		buf[0] = 0;
	if (!j->dep)
		return -1;
	if (!(c.scratch = malloc((j->dep->nids ? j->dep->nids : 1) * sizeof *c.scratch)))
		return -1;
	depexpr_format_marked(j->dep->expr, atom_value, &c, buf, len);
	free(c.scratch);
	return 0;
}

void depend_free_all(struct daemon *d)
{
	struct depidx *x = d->depidx;

	if (!x)
		return;
	for (uint32_t k = 0; k < x->nlists; k++)
		free(x->lists[k].ids);	/* (NULL in a free one) */
	idmap_destroy(&x->map);
	free(x->lists);
	free(x);
	d->depidx = NULL;
}
