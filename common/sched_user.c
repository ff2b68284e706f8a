/* The cap on running jobs per user (max_running_per_user; see sched.h).
 *
 * While a cap is set, each user with jobs in the system has a record: how
 * many of its jobs run, and its plan, a profile whose capacity is the cap
 * and where each running hold and each conservative reservation of the
 * user takes 1 over its interval (the same intervals the node plan holds,
 * mirrored by plan_reserve/plan_release). A place is good for the user when
 * its plan has a free slot over the whole hold; a user whose plan holds
 * more than the cap somewhere a reservation covers is repaired like a lost
 * node. Without a cap no record is kept at all: the paths of a scheduler
 * without one only test the cap, and a cap set later builds the records
 * from the jobs in the system.
 *
 * Each plan keeps room for two breakpoints per job of its user and a few
 * more (made when a job joins), so no change to a plan can fail: the
 * events stay all-or-nothing as the node plan's preparation makes them. */
#include <stdio.h>
#include <stdlib.h>
#include "errf.h"
#include "sched_internal.h"

int user_init(struct sched *s)
{
	s->users = (struct users){ .free_head = NONE };
	return idmap_init(&s->users.ids, 16);
}

/* Forget every record (the cap is lifted, or the scheduler goes). */
static void user_clear(struct sched *s)
{
	struct users *us = &s->users;

	for (uint32_t k = 0; k < us->len; k++) {
		if (us->u[k].jobs) {
			idmap_del(&us->ids, us->u[k].id);
			profile_destroy(&us->u[k].plan);
		}
	}
	free(us->u);
	us->u = NULL;
	us->len = us->size = 0;
	us->free_head = NONE;
}

void user_destroy(struct sched *s)
{
	user_clear(s);
	idmap_destroy(&s->users.ids);
}

/* A new, empty record for `id`, its plan sized for the cap; NONE if memory
 * ran out (nothing changed then). */
static uint32_t user_new(struct sched *s, uint32_t id)
{
	struct users *us = &s->users;
	uint32_t k;

	if (us->free_head == NONE && us->len == us->size) {
		uint32_t n = us->size ? us->size * 2 : 8;
		struct user *u = n > us->size ? realloc(us->u, (size_t)n * sizeof *u) : NULL;

		if (!u)
			return NONE;
		us->u = u;
		us->size = n;
	}
	k = us->free_head != NONE ? us->free_head : us->len;
	if (profile_init(&us->u[k].plan, user_cap(s)) < 0)
		return NONE;
	if (idmap_put(&us->ids, id, k) < 0) {
		profile_destroy(&us->u[k].plan);
		return NONE;
	}
	if (k == us->free_head)
		us->free_head = us->u[k].next_free;
	else
		us->len++;
	us->u[k].id = id;
	us->u[k].running = us->u[k].jobs = 0;
	us->u[k].next_free = NONE;
	return k;
}

int user_join(struct sched *s, uint32_t user, uint32_t *uslot)
{
	uint32_t k = idmap_get(&s->users.ids, user);
	struct user *u;

	if (k == IDMAP_NONE && (k = user_new(s, user)) == NONE)
		return -1;
	u = &s->users.u[k];
	/* At rest a plan has at most two breakpoints per job; a change adds
	 * two before it may merge any. */
	if (profile_prepare(&u->plan, 2 * (u->jobs + 1) + 4) < 0) {
		if (u->jobs == 0)
			user_leave(s, k);	/* the record was new: it goes */
		return -1;
	}
	u->jobs++;
	*uslot = k;
	return 0;
}

/* One job of the user leaves (a fresh record with none: it goes too). */
void user_leave(struct sched *s, uint32_t k)
{
	struct users *us = &s->users;
	struct user *u = &us->u[k];

	if (u->jobs > 1) {
		u->jobs--;
		return;
	}
	idmap_del(&us->ids, u->id);
	profile_destroy(&u->plan);
	u->jobs = 0;
	u->next_free = us->free_head;
	us->free_head = k;
}

void user_plan_add(struct sched *s, const struct job *j, bf_time t, bf_time d, int64_t n)
{
	struct profile *p = &user_of(s, j)->plan;

	/* Room was made when the job joined (user_join). */
	if (n < 0)
		profile_reserve(p, t, -n, d);
	else
		profile_release(p, t, n, d);
}

void user_started(struct sched *s, const struct job *j, bool by_pass)
{
	struct user *u = user_of(s, j);

	if (++u->running > user_cap(s) && by_pass)
		sched_violation(s, "job %llu: started with %u jobs of user %u running, cap %u",
		                (unsigned long long)j->id, u->running - 1, u->id, user_cap(s));
}

void user_ended(struct sched *s, const struct job *j)
{
	user_of(s, j)->running--;
}

bool user_fits(const struct sched *s, const struct job *j, bf_time t)
{
	return profile_first_below(&user_of(s, j)->plan, 1, t, t + j->hold) == BF_NEVER;
}

/* The latest arrival of user k whose reservation covers t, or NONE; and
 * in *next the first start after t of a reservation of k (BF_NEVER). */
static uint32_t latest_covering(const struct sched *s, uint32_t k, bf_time t, bf_time *next)
{
	*next = BF_NEVER;
	for (uint32_t i = s->qtail; i != NONE; i = s->jobs[i].prev) {
		const struct job *j = &s->jobs[i];

		if (job_uslot(s, j) != k || !(j->flags & JF_RESERVED))
			continue;
		if (j->resv <= t && t < j->resv + j->hold)
			return i;
		if (j->resv > t && j->resv < *next)
			*next = j->resv;
	}
	return NONE;
}

bool user_evict(struct sched *s, enum sched_broken_why why)
{
	bool evicted = false;

	for (uint32_t k = 0; k < s->users.len; k++) {
		struct profile *p = &s->users.u[k].plan;
		bf_time from = s->now;

		if (!s->users.u[k].jobs)
			continue;
		for (;;) {
			bf_time t = profile_first_below(p, 0, from, BF_NEVER), next;
			uint32_t i;

			if (t == BF_NEVER)
				break;
			i = latest_covering(s, k, t, &next);
			if (i == NONE) {
				/* Only running jobs there (above a lowered
				 * cap): they end on their own. A reservation
				 * may begin as one of them ends, with no
				 * breakpoint between: look there too. */
				from = profile_next_change(p, t);
				from = next < from ? next : from;
				continue;
			}
			cons_evict(s, i, why);
			evicted = true;
		}
	}
	return evicted;
}

/* Records and plans for every job in the system, for a first cap. All or
 * nothing: on a failure every record goes again. */
static int user_build(struct sched *s)
{
	for (uint32_t slot = 0; slot < s->jobs_used; slot++) {
		struct job *j = &s->jobs[slot];

		if (j->state == SLOT_FREE)
			continue;
		if (user_join(s, s->ju[slot].user, &s->ju[slot].uslot) < 0) {
			user_clear(s);
			return SCHED_E_NOMEM;
		}
	}
	for (uint32_t slot = 0; slot < s->jobs_used; slot++) {
		struct job *j = &s->jobs[slot];

		if (j->state == SLOT_RUNNING) {
			user_plan_add(s, j, j->start, j->hold, -1);
			user_of(s, j)->running++;
		} else if (j->state == SLOT_QUEUED && (j->flags & JF_RESERVED)) {
			user_plan_add(s, j, j->resv, j->hold, -1);
		}
	}
	return SCHED_OK;
}

int sched_set_user_cap(struct sched *s, bf_time now, uint32_t cap)
{
	uint32_t old = user_cap(s);
	int rc;

	if ((rc = sched_advance(s, now)) < 0)
		return rc;
	if (cap == old)
		return SCHED_OK;
	/* The repair may place every queued job again: room first. */
	if (sched_need_actions(s, s->qlen + 1) < 0 ||
	    profile_prepare(&s->prof, 4 * s->qlen + 2) < 0)
		return SCHED_E_NOMEM;
	/* Runs of alike jobs were made with the users counted or not: made
	 * anew under the new cap (see runs_alike). */
	runs_clear(s);
	s->prm.max_running_per_user = cap;
	if (old == 0 && (rc = user_build(s)) < 0) {
		s->prm.max_running_per_user = 0;
		return rc;
	}
	if (cap == 0)
		user_clear(s);
	for (uint32_t k = 0; cap && old && k < s->users.len; k++)
		if (s->users.u[k].jobs)
			profile_add_capacity(&s->users.u[k].plan, (int64_t)cap - old);
	s->dirty = true;
	if (cap != 0 && (old == 0 || cap < old)) {
		/* Only what the cap moves: what a hold that grew overlaps is
		 * repaired at the next pass, with its own cause. */
		if (s->pol->cap_lowered)
			s->pol->cap_lowered(s, now);
		return SCHED_OK;
	}
	/* More room for every user from now on: compress into it. */
	s->need_compress = true;
	if (s->pol->freed)
		s->pol->freed(s, now, BF_NEVER);
	return SCHED_OK;
}

/* sched_check: each user's running count and plan agree with its jobs
 * (the plan rebuilt from them, compared at every breakpoint of either),
 * and no reservation lies where its user's plan is above the cap. */
int user_check(const struct sched *s, char *buf, size_t len)
{
	const struct users *us = &s->users;
	uint32_t *running = calloc(us->len + 1, sizeof *running);
	struct profile *fresh = calloc(us->len + 1, sizeof *fresh);
	int rc = 0;

	if (!running || !fresh) {
		free(running);
		free(fresh);
		return 0;	/* no memory to check with: nothing found */
	}
	for (uint32_t k = 0; k < us->len; k++)
		if (us->u[k].jobs && profile_init(&fresh[k], user_cap(s)) < 0)
			rc = errf(buf, len, "no memory to check the plan of user %u", us->u[k].id);
	for (uint32_t slot = 0; rc == 0 && slot < s->jobs_used; slot++) {
		const struct job *j = &s->jobs[slot];
		uint32_t k = s->ju[slot].uslot, user = s->ju[slot].user;

		if (j->state == SLOT_FREE)
			continue;
		if (k >= us->len || us->u[k].jobs == 0 || us->u[k].id != user) {
			rc = errf(buf, len, "job %llu: no record of its user %u",
			          (unsigned long long)j->id, user);
		} else if (j->state == SLOT_RUNNING) {
			running[k]++;
			profile_reserve(&fresh[k], j->start, 1, j->hold);
		} else if (j->flags & JF_RESERVED) {
			profile_reserve(&fresh[k], j->resv, 1, j->hold);
		}
	}
	for (uint32_t k = 0; rc == 0 && k < us->len; k++) {
		const struct profile *p = &us->u[k].plan;

		if (!us->u[k].jobs)
			continue;
		if (running[k] != us->u[k].running)
			rc = errf(buf, len, "user %u: %u jobs running, counted %u", us->u[k].id,
			          running[k], us->u[k].running);
		for (bf_time t = INT64_MIN; rc == 0 && t < BF_NEVER;) {
			bf_time a = profile_next_change(p, t), b = profile_next_change(&fresh[k], t);

			t = a < b ? a : b;
			if (t < BF_NEVER && profile_free_at(p, t) != profile_free_at(&fresh[k], t))
				rc = errf(buf, len, "user %u: plan has %lld free at %lld, its jobs %lld",
				          us->u[k].id, (long long)profile_free_at(p, t), (long long)t,
				          (long long)profile_free_at(&fresh[k], t));
		}
	}
	for (uint32_t i = s->qhead; rc == 0 && i != NONE; i = s->jobs[i].next) {
		const struct job *j = &s->jobs[i];
		/* From now: a job due but waiting for its user's job that
		 * overran (JF_WAITED) shares the past with that job's longer
		 * hold, which nobody can use any more. */
		bf_time from = j->resv > s->now ? j->resv : s->now;

		if ((j->flags & JF_RESERVED) && from < j->resv + j->hold &&
		    profile_first_below(&user_of(s, j)->plan, 0, from, j->resv + j->hold) != BF_NEVER)
			rc = errf(buf, len, "job %llu reserved at %lld where user %u is above the cap %u",
			          (unsigned long long)j->id, (long long)j->resv, job_user(s, j),
			          user_cap(s));
	}
	for (uint32_t k = 0; k < us->len; k++)
		if (us->u[k].jobs)
			profile_destroy(&fresh[k]);
	free(running);
	free(fresh);
	return rc;
}
