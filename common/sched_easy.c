/* FCFS and EASY (aggressive) backfilling, as in SCHEDULING.md, and their
 * tables (fcfs_policy, easy_policy): FCFS is EASY's pass without its
 * third step, backfilling. CREASY (sched_creasy.c) shares the rest.
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
void easy_promise_head(struct sched *s, struct job *head, bf_time shadow, bf_time now)
{
	if (head->first_guarantee == BF_NEVER)
		head->first_guarantee = shadow;
	if (s->has_last_head && s->last_head == head->id && shadow > s->last_shadow) {
		if (s->hold_extended || s->ns.ndown) {
			s->st.broken++;
			head->first_guarantee = shadow;
			sched_emit(s, SA_BROKEN, s->hold_extended ? s->extend_why : s->out_why,
			           head->id, shadow);
		} else if (s->last_shadow >= now) {
			/* (a promise already in the past: the head waits for a
			 * job that is late to die, told once its hold is over) */
			sched_violation(s, "head job %llu: shadow time moved later, %lld -> %lld",
			                (unsigned long long)head->id, (long long)s->last_shadow,
			                (long long)shadow);
		}
	}
	set_resv(s, head, shadow);
	s->has_last_head = true;
	s->last_head = head->id;
	s->last_shadow = shadow;
}

/* The job promised the head's shadow at the last pass, if it still waits;
 * NONE if there is none. Without a cap it is always the first queued job
 * (it loses the promise when it starts or leaves). */
static uint32_t holder(const struct sched *s)
{
	uint32_t slot;

	if (!s->has_last_head)
		return NONE;
	slot = idmap_get(&s->ids, s->last_head);
	return slot != IDMAP_NONE && s->jobs[slot].state == SLOT_QUEUED ? slot : NONE;
}

/* The shadow under a cap: the first instant the head's nodes are free and
 * its user has a free place. Here both plans hold running jobs only, so
 * neither ever has less free later: the later of the two firsts is it. */
bf_time easy_capped_shadow(const struct sched *s, const struct job *head, bf_time now,
                           int64_t *extra)
{
	bf_time shadow = easy_shadow(s, head, now, extra), u;

	if (!user_cap(s) || shadow == BF_NEVER)
		return shadow;
	u = profile_first_fit(&user_of(s, head)->plan, 1, now);
	if (u > shadow) {
		shadow = u;
		*extra = u == BF_NEVER ? 0 : profile_free_at(&s->prof, u) - head->nodes;
	}
	return shadow;
}

/* Backfilling under a cap (see sched.h): a job of the head's user that
 * still runs at the shadow time must leave the user a place then. */
bool easy_spares_head(const struct sched *s, const struct job *head, const struct job *j,
                      bf_time shadow, bool ends_in_time)
{
	return job_uslot(s, j) != job_uslot(s, head) || ends_in_time ||
	       profile_free_at(&user_of(s, head)->plan, shadow) >= 2;
}

bool easy_may_backfill(const struct sched *s, const struct job *j, bf_time shadow, int64_t extra,
                       uint32_t freen, bf_time now)
{
	/* Ending by the shadow: the head's nodes are back by then. */
	return j->nodes <= freen && may_start(s, j) &&
	       (now + j->hold <= shadow || (int64_t)j->nodes <= extra);
}

bool easy_backfill(struct sched *s, const struct job *head, uint32_t slot, bf_time shadow,
                   int64_t *extra, uint32_t *freen, bf_time now)
{
	struct job *j = &s->jobs[slot];
	bool in_time = now + j->hold <= shadow;

	if (!easy_may_backfill(s, j, shadow, *extra, *freen, now))
		return false;
	if (user_cap(s) && !easy_spares_head(s, head, j, shadow, in_time))
		return false;
	if (!in_time)
		*extra -= j->nodes;
	sched_start_job(s, slot, now);
	*freen -= j->nodes;
	return true;
}

void easy_check_head(struct sched *s, const struct job *head, bf_time shadow)
{
	if (shadow != BF_NEVER && profile_free_at(&s->prof, shadow) < (int64_t)head->nodes)
		sched_violation(s, "head job %llu: backfilling took its nodes at %lld",
		                (unsigned long long)head->id, (long long)shadow);
}

/* EASY and FCFS with a cap per user, or with a holder that is not the
 * first queued job (the cap was lifted while jobs before it were capped).
 * As easy_pass, with only eligible jobs started, and the head's promise
 * kept by its holder while it waits (see sched.h). */
static void capped_pass(struct sched *s, bf_time now, bool backfill)
{
	uint32_t hslot = holder(s), freen;
	struct job *head;
	bf_time shadow;
	int64_t extra;

	/* 1. The holder starts if it fits (its user may be at the cap for
	 * a while yet: jobs that end by its shadow); with no holder, eligible
	 * jobs start in queue order while they fit, and the first that does
	 * not is the head. Jobs before a holder that waits only backfill. */
	if (hslot != NONE && s->jobs[hslot].nodes <= s->ns.nfree &&
	    may_start(s, &s->jobs[hslot])) {
		sched_start_job(s, hslot, now);
		hslot = NONE;
	}
	for (uint32_t i = s->qhead, nx; hslot == NONE && i != NONE; i = nx) {
		nx = s->jobs[i].next;
		if (!may_start(s, &s->jobs[i]))
			continue;
		if (s->jobs[i].nodes > s->ns.nfree)
			hslot = i;
		else
			sched_start_job(s, i, now);
	}
	if (hslot == NONE)
		return;
	/* 2. The head's shadow time and the extra nodes. */
	head = &s->jobs[hslot];
	shadow = easy_capped_shadow(s, head, now, &extra);
	easy_promise_head(s, head, shadow, now);
	if (!backfill)
		return;
	/* 3. Backfill every other eligible job in queue order. */
	freen = s->ns.nfree;
	for (uint32_t i = s->qhead, nx; i != NONE && freen > 0; i = nx) {
		nx = s->jobs[i].next;
		if (i != hslot)
			easy_backfill(s, head, i, shadow, &extra, &freen, now);
	}
	easy_check_head(s, head, shadow);
}

/* A lower cap (sched_set_user_cap): the head keeps its place, but if its
 * user now has no place under the cap at its shadow, its promise moves to
 * the first instant it has one, and that is told. Room for an
 * announcement was made by the caller. */
void easy_cap_lowered(struct sched *s, bf_time now)
{
	uint32_t slot = holder(s);
	struct job *j;
	bf_time shadow, was;
	int64_t extra;

	if (slot == NONE)
		return;
	j = &s->jobs[slot];
	was = j->resv;
	shadow = easy_capped_shadow(s, j, now, &extra);
	/* A promise that passed is kept by a start now. */
	if (was == BF_NEVER || shadow <= (was > now ? was : now))
		return;
	set_resv(s, j, shadow);
	j->first_guarantee = shadow;
	s->last_shadow = shadow;
	s->st.replans++;
	s->st.broken++;
	sched_emit(s, SA_BROKEN, BROKEN_USER_CAP, j->id, shadow);
}

/* FCFS's pass (no backfill) and EASY's. */
static void pass(struct sched *s, bf_time now, bool backfill)
{
	struct job *head;
	bf_time shadow;
	int64_t extra;
	uint32_t freen;

	if (user_cap(s) || deps_any(s) || (s->has_last_head && s->qhead != NONE &&
	                    s->jobs[s->qhead].id != s->last_head)) {
		capped_pass(s, now, backfill);
		return;
	}
	/* 1. Start jobs from the head while they fit. */
	while ((head = qfirst(s)) && head->nodes <= s->ns.nfree)
		sched_start_job(s, s->qhead, now);
	if (!head)
		return;
	/* 2. The head's shadow time and the extra nodes. */
	shadow = easy_shadow(s, head, now, &extra);
	easy_promise_head(s, head, shadow, now);
	if (!backfill)
		return;
	/* 3. Backfill in queue order: jobs that end by the shadow time, or
	 * that fit in the extra nodes (which they then use up). */
	freen = s->ns.nfree;
	for (uint32_t i = head->next, nx; i != NONE && freen > 0; i = nx) {
		nx = s->jobs[i].next;
		easy_backfill(s, head, i, shadow, &extra, &freen, now);
	}
	/* The backfilled jobs must leave the head its nodes at the shadow. */
	easy_check_head(s, head, shadow);
}

/* The policy becomes one of the EASY family (sched_set_policy): the plan
 * holds the running jobs only (the old policy's drop took out any
 * reservations). The head is promised its shadow time now, as the next
 * pass would promise it; every other job that had a guarantee (only
 * conservative gives one) loses it, and is told. Room for an
 * announcement per queued job was made by the caller. `head`: the job the
 * policy puts first (EASY and FCFS: the first queued; CREASY: the first
 * by priority), NULL if none. */
void easy_adopt(struct sched *s, bf_time now, struct job *head,
                const struct sched_policy_ops *from)
{
	bf_time shadow, was;
	int64_t extra;

	s->has_last_head = false;
	s->head_passed = false;
	/* Under a cap the head is the first eligible job (see sched.h); with
	 * none eligible, nobody is promised anything. */
	while (head && !may_start(s, head))
		head = head->next == NONE ? NULL : &s->jobs[head->next];
	if (head) {
		was = head->resv;
		shadow = easy_shadow(s, head, now, &extra);
		set_resv(s, head, shadow);
		if (shadow != was)
			s->st.replans++;
		/* A promise that passed is kept by a start now. Conservative
		 * (a policy that repairs) repaired its plan for every lost
		 * node already: then only a hold that grew since the last
		 * pass can move the head. */
		if (was != BF_NEVER && shadow > (was > now ? was : now))
			reload_moved(s, head, was, !from->repair);
		else if (was == BF_NEVER || head->first_guarantee == BF_NEVER)
			head->first_guarantee = shadow;
		s->has_last_head = true;
		s->last_head = head->id;
		s->last_shadow = shadow;
	}
	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next) {
		struct job *j = &s->jobs[i];

		if (j == head || j->resv == BF_NEVER)
			continue;
		set_resv(s, j, BF_NEVER);
		j->first_guarantee = BF_NEVER;	/* a new promise will be its first */
		s->st.replans++;
		s->st.broken++;
		sched_emit(s, SA_BROKEN, BROKEN_POLICY, j->id, BF_NEVER);
	}
}

/* EASY, FCFS, CREASY: the job put first takes the head's promise from the
 * job that had it, which is told. Room for the action was made. */
void easy_top_takes_promise(struct sched *s, uint32_t slot)
{
	uint32_t old;

	if (!s->has_last_head)
		return;
	old = idmap_get(&s->ids, s->last_head);
	if (old != IDMAP_NONE && old != slot && s->jobs[old].resv != BF_NEVER) {
		set_resv(s, &s->jobs[old], BF_NEVER);
		s->jobs[old].first_guarantee = BF_NEVER;
		s->st.broken++;
		sched_emit(s, SA_BROKEN, BROKEN_TOP, s->last_head, BF_NEVER);
	}
	s->has_last_head = false;
}

/* EASY and FCFS: a job put first is the head from the next pass (first
 * already, it is the head now: nothing changes). */
static void easy_top(struct sched *s, uint32_t slot, bf_time now, bool moved)
{
	(void)now;
	if (moved)
		easy_top_takes_promise(s, slot);
}

/* EASY and FCFS: the head is the first queued job. */
static void easy_adopt_first(struct sched *s, bf_time now, const struct sched_policy_ops *from)
{
	easy_adopt(s, now, qfirst(s), from);
}

static int fcfs_pass(struct sched *s, bf_time now)
{
	pass(s, now, false);
	return SCHED_OK;
}

static int easy_pass(struct sched *s, bf_time now)
{
	pass(s, now, true);
	return SCHED_OK;
}

/* They plan the running jobs only and promise only the head: every event
 * of the queue is for their next pass, none for a hook. */
const struct sched_policy_ops fcfs_policy = {
	.name = "fcfs",
	.keeps_order = true,
	.pass = fcfs_pass,
	.top = easy_top,
	.cap_lowered = easy_cap_lowered,
	.adopt = easy_adopt_first,
};

const struct sched_policy_ops easy_policy = {
	.name = "easy",
	.pass = easy_pass,
	.top = easy_top,
	.cap_lowered = easy_cap_lowered,
	.adopt = easy_adopt_first,
};
