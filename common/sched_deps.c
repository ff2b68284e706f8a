/* Dependencies between jobs (see sched.h): edges from a predecessor to a
 * successor, in a pool, each job's edges in and out in lists both ways.
 * Without any dependency nothing here is looked at: the per-job cost is
 * a flag test where a job is placed or searched. */
#include <stdio.h>
#include <stdlib.h>
#include "sched_internal.h"

int deps_grow_slots(struct sched *s, uint32_t cap)
{
	uint32_t *in = realloc(s->deps.in, (size_t)cap * sizeof *in), *out;

	if (!in)
		return -1;
	s->deps.in = in;
	if (!(out = realloc(s->deps.out, (size_t)cap * sizeof *out)))
		return -1;
	s->deps.out = out;
	return 0;
}

void deps_destroy(struct sched *s)
{
	free(s->deps.e);
	free(s->deps.in);
	free(s->deps.out);
	s->deps = (struct deps){ .free_head = NONE };
}

void deps_init_slot(struct sched *s, uint32_t slot)
{
	s->deps.in[slot] = s->deps.out[slot] = NONE;
}

int deps_room(struct sched *s, uint32_t n)
{
	struct deps *d = &s->deps;
	uint32_t spare = d->cap - d->len, k = d->free_head;
	struct dep_edge *e;
	size_t cap;

	/* (the free list is short unless many edges went: count it only
	 * while it could make the difference) */
	while (k != NONE && spare < n) {
		spare++;
		k = d->e[k].next_out;
	}
	if (spare >= n)
		return 0;
	if (n > UINT32_MAX / 4 - d->cap)
		return -1;
	cap = d->cap ? d->cap : 16;
	while (cap - d->len < n)
		cap *= 2;
	if (cap > UINT32_MAX / 2 || !(e = realloc(d->e, cap * sizeof *e)))
		return -1;
	d->e = e;
	d->cap = (uint32_t)cap;
	return 0;
}

void deps_add(struct sched *s, uint32_t pred, uint32_t succ, uint8_t kind, bool cond)
{
	struct deps *d = &s->deps;
	uint32_t k;

	/* Room was made (deps_room). */
	if (d->free_head != NONE) {
		k = d->free_head;
		d->free_head = d->e[k].next_out;
	} else {
		k = d->len++;
	}
	d->e[k] = (struct dep_edge){
		.pred = pred, .succ = succ, .kind = kind, .cond = cond,
		.prev_in = NONE, .next_in = d->in[succ], .prev_out = NONE, .next_out = d->out[pred],
	};
	if (d->in[succ] != NONE)
		d->e[d->in[succ]].prev_in = k;
	d->in[succ] = k;
	if (d->out[pred] != NONE)
		d->e[d->out[pred]].prev_out = k;
	d->out[pred] = k;
	d->live++;
	s->jobs[succ].flags |= JF_DEPS;
	s->jobs[pred].flags |= JF_PREDS;
	run_changes(s, succ);	/* (a job with predecessors is in no run) */
}

/* The successor's earliest start may be earlier now: conservative
 * searches it again from there at the next compression. */
static void succ_earlier(struct sched *s, uint32_t succ)
{
	struct job *j = &s->jobs[succ];

	if (!s->pol->reserves || j->state != SLOT_QUEUED)
		return;
	j->flags |= JF_DEPMOVED;
	s->need_compress = true;
}

static void edge_remove(struct sched *s, uint32_t k)
{
	struct deps *d = &s->deps;
	struct dep_edge *e = &d->e[k];

	if (e->prev_in != NONE)
		d->e[e->prev_in].next_in = e->next_in;
	else
		d->in[e->succ] = e->next_in;
	if (e->next_in != NONE)
		d->e[e->next_in].prev_in = e->prev_in;
	if (e->prev_out != NONE)
		d->e[e->prev_out].next_out = e->next_out;
	else
		d->out[e->pred] = e->next_out;
	if (e->next_out != NONE)
		d->e[e->next_out].prev_out = e->prev_out;
	if (d->in[e->succ] == NONE)
		s->jobs[e->succ].flags &= (uint16_t)~JF_DEPS;
	if (d->out[e->pred] == NONE)
		s->jobs[e->pred].flags &= (uint16_t)~JF_PREDS;
	succ_earlier(s, e->succ);
	e->next_out = d->free_head;
	d->free_head = k;
	d->live--;
}

/* Order edges through a job that leaves without starting: P before it
 * and it before B become P before B (a job array's cap holds when one of
 * its elements is cancelled while it waits). */
static uint32_t order_count(const struct sched *s, uint32_t k, bool in)
{
	uint32_t n = 0;

	for (; k != NONE; k = in ? s->deps.e[k].next_in : s->deps.e[k].next_out)
		n += !s->deps.e[k].cond;
	return n;
}

uint32_t deps_bypass_room(const struct sched *s, uint32_t slot)
{
	if (!s->deps.in || s->jobs[slot].state != SLOT_QUEUED)
		return 0;
	return order_count(s, s->deps.in[slot], true) * order_count(s, s->deps.out[slot], false);
}

static bool has_edge(const struct sched *s, uint32_t pred, uint32_t succ)
{
	for (uint32_t k = s->deps.in[succ]; k != NONE; k = s->deps.e[k].next_in)
		if (s->deps.e[k].pred == pred)
			return true;
	return false;
}

static void bypass(struct sched *s, uint32_t slot)
{
	for (uint32_t o = s->deps.out[slot]; o != NONE; o = s->deps.e[o].next_out) {
		if (s->deps.e[o].cond)
			continue;
		for (uint32_t i = s->deps.in[slot]; i != NONE; i = s->deps.e[i].next_in) {
			const struct dep_edge *e = &s->deps.e[i];
			uint32_t succ = s->deps.e[o].succ;

			if (!e->cond && e->pred != succ && !has_edge(s, e->pred, succ))
				deps_add(s, e->pred, succ, e->kind, false);
		}
	}
}

void deps_leave(struct sched *s, uint32_t slot)
{
	struct job *j = &s->jobs[slot];

	if (j->state == SLOT_QUEUED && deps_bypass_room(s, slot))
		bypass(s, slot);	/* (room made by the caller: sched_cancel) */
	while (s->deps.in && s->deps.in[slot] != NONE)
		edge_remove(s, s->deps.in[slot]);
	while (s->deps.out && s->deps.out[slot] != NONE)
		edge_remove(s, s->deps.out[slot]);
	if (j->flags & JF_COND)
		s->deps.waiting--;
	j->flags &= (uint16_t)~(JF_COND | JF_DEPMOVED);
}

void deps_started(struct sched *s, uint32_t slot)
{
	for (uint32_t k = s->deps.out[slot], nx; k != NONE; k = nx) {
		nx = s->deps.e[k].next_out;
		if (s->deps.e[k].kind == SCHED_DEP_START)
			edge_remove(s, k);
	}
}

void deps_release(struct sched *s, uint32_t slot)
{
	struct job *j = &s->jobs[slot];

	for (uint32_t k = s->deps.in[slot], nx; k != NONE; k = nx) {
		nx = s->deps.e[k].next_in;
		if (s->deps.e[k].cond)
			edge_remove(s, k);
	}
	if (j->flags & JF_COND) {
		s->deps.waiting--;
		j->flags &= (uint16_t)~JF_COND;
		succ_earlier(s, slot);
	}
}

/* The latest instant one edge lets its successor start: for a running
 * predecessor the end of its hold (a START edge went at its start); for
 * a queued one its reservation, plus its hold for an END edge; BF_NEVER
 * for a queued one that has no place (conservative) or promise. */
static bf_time edge_bound(const struct sched *s, const struct dep_edge *e)
{
	const struct job *p = &s->jobs[e->pred];

	if (p->state == SLOT_RUNNING)
		return p->start + p->hold;
	if (p->resv == BF_NEVER || (s->pol->reserves && !(p->flags & JF_RESERVED)))
		return BF_NEVER;
	return e->kind == SCHED_DEP_START ? p->resv : p->resv + p->hold;
}

bf_time deps_bound(const struct sched *s, const struct job *j)
{
	bf_time b = INT64_MIN;

	if (!(j->flags & JF_DEPS))
		return b;
	for (uint32_t k = s->deps.in[j - s->jobs]; k != NONE; k = s->deps.e[k].next_in) {
		bf_time t = edge_bound(s, &s->deps.e[k]);

		if (t == BF_NEVER)
			return BF_NEVER;
		if (t > b)
			b = t;
	}
	return b;
}

/* A job's place moved earlier: its successors' bounds may have too. */
void deps_earlier(struct sched *s, uint32_t slot)
{
	for (uint32_t k = s->deps.out[slot]; k != NONE; k = s->deps.e[k].next_out)
		succ_earlier(s, s->deps.e[k].succ);
}

void deps_evict_succs(struct sched *s, uint32_t slot)
{
	/* (cons_evict takes each successor's own successors back in turn;
	 * one taken back already is passed over, so a job reached twice
	 * costs nothing more) */
	for (uint32_t k = s->deps.out[slot]; k != NONE; k = s->deps.e[k].next_out) {
		uint32_t succ = s->deps.e[k].succ;

		if (s->jobs[succ].state == SLOT_QUEUED && (s->jobs[succ].flags & JF_RESERVED))
			cons_evict(s, succ, BROKEN_DEPENDENCY);
	}
}

bool deps_evict_early(struct sched *s)
{
	bool any = false;

	if (!s->deps.live)
		return false;
	/* In queue order: a predecessor comes before its successors, so one
	 * taken back takes its successors with it before they are looked at. */
	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next) {
		const struct job *j = &s->jobs[i];

		if ((j->flags & (JF_DEPS | JF_RESERVED)) == (JF_DEPS | JF_RESERVED) &&
		    j->resv < deps_bound(s, j)) {
			cons_evict(s, i, BROKEN_DEPENDENCY);
			any = true;
		}
	}
	return any;
}

int deps_check(const struct sched *s, char *buf, size_t len)
{
	uint32_t live = 0, waiting = 0;

	for (uint32_t i = 0; i < s->jobs_used; i++) {
		const struct job *j = &s->jobs[i];

		if (j->state == SLOT_FREE)
			continue;
		waiting += (j->flags & JF_COND) != 0;
		if (((j->flags & JF_DEPS) != 0) != (s->deps.in[i] != NONE) ||
		    ((j->flags & JF_PREDS) != 0) != (s->deps.out[i] != NONE)) {
			snprintf(buf, len, "job %llu: dependency flags disagree with its edges",
			         (unsigned long long)j->id);
			return -1;
		}
		for (uint32_t k = s->deps.in[i]; k != NONE; k = s->deps.e[k].next_in) {
			const struct dep_edge *e = &s->deps.e[k];

			live++;
			if (e->succ != i || s->jobs[e->pred].state == SLOT_FREE ||
			    (e->kind == SCHED_DEP_START && s->jobs[e->pred].state != SLOT_QUEUED) ||
			    j->state != SLOT_QUEUED) {
				snprintf(buf, len, "job %llu: a dependency edge is stale",
				         (unsigned long long)j->id);
				return -1;
			}
		}
		if (s->pol->reserves && j->state == SLOT_QUEUED && (j->flags & JF_RESERVED) &&
		    j->resv < deps_bound(s, j)) {
			snprintf(buf, len, "job %llu: reserved at %lld, before its predecessors allow %lld",
			         (unsigned long long)j->id, (long long)j->resv,
			         (long long)deps_bound(s, j));
			return -1;
		}
	}
	if (live != s->deps.live || waiting != s->deps.waiting) {
		snprintf(buf, len, "dependency counts: %u edges, %u waiting; counted %u, %u",
		         s->deps.live, s->deps.waiting, live, waiting);
		return -1;
	}
	return 0;
}
