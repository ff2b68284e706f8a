/* Runs of alike queued jobs, for conservative compression (struct run).
 *
 * Why a pass may pass a run by. A pass visits the queue in order; when it
 * finds a job j at its earliest (no earlier place), it keeps j's shape and
 * place among the bounds of the epoch (sched_cons.c, cons_search). The
 * next job k, alike (as many nodes, as long a hold, the same user where a
 * cap counts users) and reserved at the same instant, is then either
 * settled at this epoch already, or nothing freed since it settled starts
 * before its start, or the bound from j says no window of its shape fits
 * before j's place, which is k's own: k cannot move either, whichever test
 * decides it, and what its visit leaves behind is what j's left (its own
 * settled epoch aside, which the run keeps for all its members at once,
 * and the bound, which k's shape and place do not change). So the rest of
 * the run is passed by in one step, and a pass costs one visit a run.
 *
 * A run stays a run while its members stay alike and next to each other:
 * every change of a member (its start, its hold, its reservation, leaving
 * the queue) makes it leave the run first, and nothing is ever inserted
 * between two jobs of the queue (jobs join at the tail, or at the head).
 * A pass makes runs as it goes, one job at a time (run_join). */
#include "errf.h"
#include "sched_internal.h"

void runs_init_slots(struct sched *s, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++) {
		s->run_of[i] = NONE;
		s->runs[i].first = i + 1 < to ? i + 1 : s->runs_free;
	}
	if (from < to)
		s->runs_free = from;
}

/* The member's settled epoch as its run had it (see job_settled). */
static void fold(struct sched *s, uint32_t slot)
{
	struct job *j = &s->jobs[slot];

	j->settled = job_settled(s, j);
	s->run_of[slot] = NONE;
}

static void run_free(struct sched *s, uint32_t r)
{
	s->runs[r].first = s->runs_free;
	s->runs_free = r;
}

void run_leave(struct sched *s, uint32_t slot)
{
	uint32_t r = s->run_of[slot];
	struct run *run = &s->runs[r];

	if (slot == run->first) {
		run->first = s->jobs[slot].next;
	} else if (slot == run->last) {
		run->last = s->jobs[slot].prev;
	} else {
		/* From the middle: the members after it leave too (rare: a
		 * cancel, or a limit changed; a pass makes them a run again). */
		for (uint32_t i = s->jobs[slot].next;; i = s->jobs[i].next) {
			fold(s, i);
			if (i == run->last)
				break;
		}
		run->last = s->jobs[slot].prev;
	}
	fold(s, slot);
	if (run->first == run->last) {	/* one left: no run */
		fold(s, run->first);
		run_free(s, r);
	}
}

void runs_clear(struct sched *s)
{
	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next) {
		uint32_t r = s->run_of[i];

		if (r != NONE && s->runs[r].last == i) {
			fold(s, i);
			run_free(s, r);
		} else if (r != NONE) {
			fold(s, i);
		}
	}
}

bool runs_alike(const struct sched *s, const struct job *a, const struct job *b)
{
	/* (a job after its predecessors is placed by them, not by its
	 * shape: it is in no run) */
	return a->resv == b->resv && a->nodes == b->nodes && a->hold == b->hold &&
	       (a->flags & JF_RESERVED) && (b->flags & JF_RESERVED) &&
	       !((a->flags | b->flags) & (JF_DEPS | JF_DEPMOVED)) &&
	       (!user_cap(s) || job_user(s, a) == job_user(s, b));
}

void run_join(struct sched *s, uint32_t prev, uint32_t slot)
{
	uint32_t r = s->run_of[prev];

	if (s->run_of[slot] != NONE)
		return;		/* the first of a run of its own: left as two */
	if (r == NONE) {
		r = s->runs_free;	/* there are as many runs as slots */
		s->runs_free = s->runs[r].first;
		s->runs[r] = (struct run){ .first = prev, .last = prev, .settled = 0 };
		s->run_of[prev] = r;
	} else if (s->runs[r].last != prev) {
		return;
	}
	/* Found at this epoch, its own settled epoch is the latest yet: the
	 * run's older one says nothing more of it. */
	s->runs[r].last = slot;
	s->run_of[slot] = r;
}

/* Each run: members next to each other, alike, at least two, each naming
 * it; no job outside the queue in one. */
int runs_check(const struct sched *s, char *buf, size_t len)
{
	uint32_t open = NONE, members = 0;
	const struct job *before = NULL;

	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next) {
		uint32_t r = s->run_of[i];

		if (open == NONE && r != NONE) {
			if (s->runs[r].first != i)
				return errf(buf, len, "job %llu is in a run that starts elsewhere",
				            (unsigned long long)s->jobs[i].id);
			open = r;
			members = 0;
		} else if (open != NONE) {
			if (r != open)
				return errf(buf, len, "job %llu breaks a run before its last member",
				            (unsigned long long)s->jobs[i].id);
			if (!runs_alike(s, before, &s->jobs[i]))
				return errf(buf, len, "job %llu is in a run of jobs unlike it",
				            (unsigned long long)s->jobs[i].id);
		}
		if (open != NONE) {
			members++;
			if (s->runs[open].last == i) {
				if (members < 2)
					return errf(buf, len, "a run of one job (%llu)",
					            (unsigned long long)s->jobs[i].id);
				open = NONE;
			}
		}
		before = &s->jobs[i];
	}
	if (open != NONE)
		return errf(buf, len, "a run goes past the end of the queue");
	for (uint32_t i = 0; i < s->jobs_used; i++)
		if (s->jobs[i].state != SLOT_QUEUED && s->run_of[i] != NONE)
			return errf(buf, len, "job slot %u is in a run but not queued", i);
	return 0;
}
