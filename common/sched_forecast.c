/* Predicted starts for the queued jobs (see sched.h). EASY and FCFS promise
 * nothing past the head; the prediction plans every queued job in queue
 * order on a copy of the running holds, as if each ran for its whole
 * estimate (FCFS keeps the order). A long queue is planned a slice at a
 * time: the copy and the last job planned are kept between slices, and
 * the jobs that arrive meanwhile join at the tail, planned after the
 * others exactly as a plan made at once would place them. */
#include <stdlib.h>
#include "sched_internal.h"

struct sched_forecast {
	struct profile what_if;
	bf_time from;		/* keeps_order (FCFS): no later job starts before */
	uint64_t last_id;	/* the last job planned, if any */
	uint64_t last_seq;
	bool any;
	/* A policy with an order of its own (the order hook; CREASY): the
	 * queue in that order when the forecast was made, planned
	 * first (a job that left meanwhile is passed over); then, as for the
	 * others, the jobs after the queue's tail of then. */
	struct queue_snap *order;
	size_t norder, pos;
	bool has_tail;
	uint64_t tail_id, tail_seq;
	/* The predicted starts of jobs that others depend on, by slot (seq:
	 * the job the slot held), for their successors: a job is planned
	 * after its predecessors' predicted ends. */
	struct fc_pred {
		uint64_t seq;
		bf_time t;
	} *pred;
	uint32_t pred_cap;
};

struct sched_forecast *sched_forecast_new(const struct sched *s, bf_time now)
{
	struct sched_forecast *f = calloc(1, sizeof *f);

	if (!f)
		return NULL;
	if (!s->pol->reserves && profile_copy(&f->what_if, &s->prof) < 0) {
		free(f);
		return NULL;
	}
	f->from = now;
	if (s->pol->order && s->qlen) {
		if (!(f->order = malloc(s->qlen * sizeof *f->order))) {
			sched_forecast_free(f);
			return NULL;
		}
		f->norder = s->pol->order(s, now, f->order);
		f->has_tail = true;
		f->tail_id = s->jobs[s->qtail].id;
		f->tail_seq = s->jobs[s->qtail].seq;
	}
	return f;
}

void sched_forecast_free(struct sched_forecast *f)
{
	if (!f)
		return;
	profile_destroy(&f->what_if);
	free(f->pred);
	free(f->order);
	free(f);
}

/* The job after the last one planned, NONE at the tail; false if that one
 * left the queue (or its slot went to another job). */
static bool next_slot(const struct sched *s, const struct sched_forecast *f, uint32_t *slot)
{
	uint32_t i;

	if (!f->any) {
		*slot = s->qhead;
		return true;
	}
	i = idmap_get(&s->ids, f->last_id);
	if (i == IDMAP_NONE || s->jobs[i].state != SLOT_QUEUED || s->jobs[i].seq != f->last_seq)
		return false;
	*slot = s->jobs[i].next;
	return true;
}

/* The earliest start a job's predecessors allow in this forecast: a
 * running one's hold, a queued one's predicted start (plus its hold for an
 * END edge); BF_NEVER if one was not planned (yet, or with no start). */
static bf_time pred_bound(const struct sched *s, const struct sched_forecast *f,
                          const struct job *j)
{
	bf_time b = INT64_MIN;

	for (uint32_t k = s->deps.in[j - s->jobs]; k != NONE; k = s->deps.e[k].next_in) {
		const struct dep_edge *e = &s->deps.e[k];
		const struct job *p = &s->jobs[e->pred];
		bf_time t;

		if (p->state == SLOT_RUNNING) {
			t = p->start + p->hold;
		} else {
			if (e->pred >= f->pred_cap || f->pred[e->pred].seq != p->seq ||
			    f->pred[e->pred].t == BF_NEVER)
				return BF_NEVER;
			t = f->pred[e->pred].t + (e->kind == SCHED_DEP_END ? p->hold : 0);
		}
		if (t > b)
			b = t;
	}
	return b;
}

/* Keep a job's predicted start for its successors. */
static int keep_pred(const struct sched *s, struct sched_forecast *f, const struct job *j,
                     bf_time t)
{
	uint32_t slot = (uint32_t)(j - s->jobs);

	if (slot >= f->pred_cap) {
		uint32_t cap = s->jobs_cap;
		struct fc_pred *p = realloc(f->pred, (size_t)cap * sizeof *p);

		if (!p)
			return SCHED_E_NOMEM;
		for (uint32_t k = f->pred_cap; k < cap; k++)
			p[k] = (struct fc_pred){ .seq = UINT64_MAX, .t = BF_NEVER };
		f->pred = p;
		f->pred_cap = cap;
	}
	f->pred[slot] = (struct fc_pred){ .seq = j->seq, .t = t };
	return 0;
}

/* One job's prediction (conservative: its guarantee). 0 or SCHED_E_NOMEM. */
static int plan(const struct sched *s, struct sched_forecast *f, const struct job *j, bf_time now,
                void (*out)(uint64_t id, bf_time t, void *arg), void *arg)
{
	bf_time t = j->resv;

	if (!s->pol->reserves) {
		/* Planned in a later slice: from that slice's now. */
		bf_time from = f->from > now ? f->from : now, b = INT64_MIN;

		if (profile_prepare(&f->what_if, 2) < 0)
			return SCHED_E_NOMEM;
		if (j->flags & JF_DEPS)
			b = pred_bound(s, f, j);
		t = b == BF_NEVER ? BF_NEVER :
		    profile_anchor(&f->what_if, j->nodes, j->hold, b > from ? b : from);
		if (t != BF_NEVER)
			profile_reserve(&f->what_if, t, j->nodes, j->hold);
		if (s->pol->keeps_order && t != BF_NEVER)
			f->from = t;
		if ((j->flags & JF_PREDS) && keep_pred(s, f, j, t) < 0)
			return SCHED_E_NOMEM;
	}
	out(j->id, t, arg);
	return 0;
}

/* The policy's snapshot (CREASY's), up to max more of it; then the forecast goes on
 * after the queue's tail of then. */
static int step_snapshot(const struct sched *s, struct sched_forecast *f, bf_time now,
                         uint32_t *max, void (*out)(uint64_t id, bf_time t, void *arg), void *arg)
{
	for (; f->pos < f->norder && *max > 0; f->pos++) {
		const struct queue_snap *o = &f->order[f->pos];
		const struct job *j = &s->jobs[o->slot];

		if (j->state != SLOT_QUEUED || j->seq != o->seq)
			continue;	/* left the queue since */
		if (plan(s, f, j, now, out, arg) < 0)
			return SCHED_E_NOMEM;
		(*max)--;
	}
	if (f->pos == f->norder && f->has_tail) {
		f->any = true;
		f->last_id = f->tail_id;
		f->last_seq = f->tail_seq;
		f->has_tail = false;
	}
	return 0;
}

int sched_forecast_resume(const struct sched *s, struct sched_forecast *f)
{
	uint32_t i, first = NONE;

	if (!f->any || next_slot(s, f, &i))
		return 0;	/* it did not leave */
	/* The queue behind it holds the jobs that arrived after it (a job put
	 * first went to the front), latest last: walk them back from the tail. */
	for (i = s->qtail; i != NONE && s->jobs[i].seq > f->last_seq; i = s->jobs[i].prev)
		first = i;
	if (first == NONE) {
		/* None: the next step is at the tail, after the last job queued. */
		if (s->qtail == NONE) {
			f->any = false;
			return 0;
		}
		first = s->qtail;
		f->last_id = s->jobs[first].id;
		f->last_seq = s->jobs[first].seq;
		return 0;
	}
	/* Resume before `first`: as if its predecessor had been planned last. */
	if (s->jobs[first].prev == NONE) {
		f->any = false;	/* (from the head: every job is behind it) */
		return 0;
	}
	f->last_id = s->jobs[s->jobs[first].prev].id;
	f->last_seq = s->jobs[s->jobs[first].prev].seq;
	return 0;
}

int sched_forecast_step(const struct sched *s, struct sched_forecast *f, bf_time now,
                        uint32_t max, void (*out)(uint64_t id, bf_time t, void *arg), void *arg)
{
	uint32_t i;

	if (f->pos < f->norder && step_snapshot(s, f, now, &max, out, arg) < 0)
		return SCHED_E_NOMEM;
	if (f->pos < f->norder)
		return 0;
	if (!next_slot(s, f, &i))
		return SCHED_E_NOJOB;
	for (; i != NONE && max > 0; i = s->jobs[i].next, max--) {
		const struct job *j = &s->jobs[i];

		if (plan(s, f, j, now, out, arg) < 0)
			return SCHED_E_NOMEM;
		f->any = true;
		f->last_id = j->id;
		f->last_seq = j->seq;
	}
	return i == NONE ? 1 : 0;
}

struct into_array {
	const struct sched *s;
	bf_time *out;
	size_t cap;
	uint32_t *at;		/* a queued job's place in the queue, by slot */
};

static void put(uint64_t id, bf_time t, void *arg)
{
	struct into_array *a = arg;
	uint32_t k = a->at[idmap_get(&a->s->ids, id)];

	if (k < a->cap)
		a->out[k] = t;
}

size_t sched_predict(const struct sched *s, bf_time now, bf_time *out, size_t cap)
{
	struct into_array a = { .s = s, .out = out, .cap = cap };
	struct sched_forecast *f = NULL;
	uint32_t k = 0;

	/* (CREASY plans in its own order: each answer goes to its job's place) */
	if ((a.at = malloc((s->jobs_used ? s->jobs_used : 1) * sizeof *a.at)))
		for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next)
			a.at[i] = k++;
	if (!a.at || !(f = sched_forecast_new(s, now)) ||
	    sched_forecast_step(s, f, now, UINT32_MAX, put, &a) < 0) {
		for (k = 0; k < cap && k < s->qlen; k++)
			out[k] = BF_NEVER;
	}
	sched_forecast_free(f);
	free(a.at);
	return s->qlen;
}
