/* FCFS and EASY (aggressive) backfilling, as in SCHEDULING.md.
 *
 * The profile holds only the running jobs here, so the shadow time, "walk
 * the running jobs in order of expected end until enough nodes would be
 * free", is the profile's first instant with the head's nodes free: one
 * O(log) descent instead of a sort or a walk. */
#include "sched_internal.h"

bf_time easy_shadow(const struct sched *s, const struct job *head, bf_time now, int64_t *extra)
{
	bf_time shadow = profile_first_fit(&s->prof, head->nodes, now);

	/* Free at the shadow counts every job ending at or before it,
	 * including all of those ending at that very instant. */
	*extra = shadow == BF_NEVER ? 0 : profile_free_at(&s->prof, shadow) - head->nodes;
	return shadow;
}

/* Promise the head its shadow time. The promise made to the same head at
 * the previous pass may move later only when a running job keeps its
 * nodes past its hold or a node is lost, and then the head is told;
 * backfilling never moves it. */
static void promise_head(struct sched *s, struct job *head, bf_time shadow, bf_time now)
{
	if (head->first_guarantee == BF_NEVER)
		head->first_guarantee = shadow;
	if (s->has_last_head && s->last_head == head->id && shadow > s->last_shadow) {
		if (s->hold_extended || s->ns.ndown) {
			s->st.broken++;
			head->first_guarantee = shadow;
			sched_emit(s, SA_BROKEN, s->hold_extended ? s->extend_why : BROKEN_NODE_LOST,
			           head->id, shadow);
		} else if (s->last_shadow >= now) {
			/* (a promise already in the past: the head waits for a
			 * job that is late to die, told once its hold is over) */
			sched_violation(s, "head job %llu: shadow time moved later, %lld -> %lld",
			                (unsigned long long)head->id, (long long)s->last_shadow,
			                (long long)shadow);
		}
	}
	head->resv = shadow;
	s->has_last_head = true;
	s->last_head = head->id;
	s->last_shadow = shadow;
}

void easy_pass(struct sched *s, bf_time now, bool backfill)
{
	struct job *head;
	bf_time shadow;
	int64_t extra;
	uint32_t freen;

	/* 1. Start jobs from the head while they fit. */
	while ((head = qfirst(s)) && head->nodes <= s->ns.nfree)
		sched_start_job(s, s->qhead, now);
	if (!head)
		return;
	/* 2. The head's shadow time and the extra nodes. */
	shadow = easy_shadow(s, head, now, &extra);
	promise_head(s, head, shadow, now);
	if (!backfill)
		return;
	/* 3. Backfill in queue order: jobs that end by the shadow time, or
	 * that fit in the extra nodes (which they then use up). */
	freen = s->ns.nfree;
	for (uint32_t i = head->next, nx; i != NONE && freen > 0; i = nx) {
		struct job *j = &s->jobs[i];

		nx = j->next;
		if (j->nodes > freen)
			continue;
		if (now + j->hold <= shadow) {
			/* ends in time: the head's nodes are back by then */
		} else if ((int64_t)j->nodes <= extra) {
			extra -= j->nodes;
		} else {
			continue;
		}
		sched_start_job(s, i, now);
		freen -= j->nodes;
	}
	/* The backfilled jobs must leave the head its nodes at the shadow. */
	if (shadow != BF_NEVER && profile_free_at(&s->prof, shadow) < (int64_t)head->nodes)
		sched_violation(s, "head job %llu: backfilling took its nodes at %lld",
		                (unsigned long long)head->id, (long long)shadow);
}

/* The policy becomes EASY or FCFS (sched_set_policy): the plan holds the
 * running jobs only (cons_drop took out any reservations). The head is
 * promised its shadow time now, as the next pass would promise it; every
 * other job that had a guarantee (only conservative gives one) loses it,
 * and is told. Room for an announcement per queued job was made by the
 * caller. */
void easy_adopt(struct sched *s, bf_time now, bool from_conservative)
{
	struct job *head = qfirst(s);
	bf_time shadow, was;
	int64_t extra;

	s->has_last_head = false;
	if (!head)
		return;
	was = head->resv;
	shadow = easy_shadow(s, head, now, &extra);
	head->resv = shadow;
	if (shadow != was)
		s->st.replans++;
	/* A promise that passed is kept by a start now. Conservative
	 * repaired its plan for every lost node already: then only a hold
	 * that grew since the last pass can move the head. */
	if (was != BF_NEVER && shadow > (was > now ? was : now))
		reload_moved(s, head, was, !from_conservative);
	else if (was == BF_NEVER || head->first_guarantee == BF_NEVER)
		head->first_guarantee = shadow;
	s->has_last_head = true;
	s->last_head = head->id;
	s->last_shadow = shadow;
	for (uint32_t i = head->next; i != NONE; i = s->jobs[i].next) {
		struct job *j = &s->jobs[i];

		if (j->resv == BF_NEVER)
			continue;
		j->resv = BF_NEVER;
		j->first_guarantee = BF_NEVER;	/* a new promise will be its first */
		s->st.replans++;
		s->st.broken++;
		sched_emit(s, SA_BROKEN, BROKEN_POLICY, j->id, BF_NEVER);
	}
}
