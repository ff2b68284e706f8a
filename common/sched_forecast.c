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
	bf_time from;		/* FCFS: no later job starts before */
	uint64_t last_id;	/* the last job planned, if any */
	uint64_t last_seq;
	bool any;
};

struct sched_forecast *sched_forecast_new(const struct sched *s, bf_time now)
{
	struct sched_forecast *f = calloc(1, sizeof *f);

	if (!f)
		return NULL;
	if (s->prm.policy != SCHED_CONSERVATIVE && profile_copy(&f->what_if, &s->prof) < 0) {
		free(f);
		return NULL;
	}
	f->from = now;
	return f;
}

void sched_forecast_free(struct sched_forecast *f)
{
	if (!f)
		return;
	profile_destroy(&f->what_if);
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

int sched_forecast_step(const struct sched *s, struct sched_forecast *f, bf_time now,
                        uint32_t max, void (*out)(uint64_t id, bf_time t, void *arg), void *arg)
{
	uint32_t i;

	if (!next_slot(s, f, &i))
		return SCHED_E_NOJOB;
	for (; i != NONE && max > 0; i = s->jobs[i].next, max--) {
		const struct job *j = &s->jobs[i];
		bf_time t = j->resv;	/* conservative: its guarantee */

		if (s->prm.policy != SCHED_CONSERVATIVE) {
			/* Planned in a later slice: from that slice's now. */
			bf_time from = f->from > now ? f->from : now;

			if (profile_prepare(&f->what_if, 2) < 0)
				return SCHED_E_NOMEM;
			t = profile_anchor(&f->what_if, j->nodes, j->hold, from);
			if (t != BF_NEVER)
				profile_reserve(&f->what_if, t, j->nodes, j->hold);
			if (s->prm.policy == SCHED_FCFS && t != BF_NEVER)
				f->from = t;
		}
		out(j->id, t, arg);
		f->any = true;
		f->last_id = j->id;
		f->last_seq = j->seq;
	}
	return i == NONE ? 1 : 0;
}

struct into_array {
	bf_time *out;
	size_t k, cap;
};

static void put(uint64_t id, bf_time t, void *arg)
{
	struct into_array *a = arg;

	(void)id;
	if (a->k < a->cap)
		a->out[a->k] = t;
	a->k++;
}

size_t sched_predict(const struct sched *s, bf_time now, bf_time *out, size_t cap)
{
	struct into_array a = { .out = out, .cap = cap };
	struct sched_forecast *f = sched_forecast_new(s, now);

	if (!f || sched_forecast_step(s, f, now, UINT32_MAX, put, &a) < 0) {
		for (a.k = 0; a.k < cap && a.k < s->qlen; a.k++)
			out[a.k] = BF_NEVER;
		a.k = s->qlen;
	}
	sched_forecast_free(f);
	return a.k;
}
