/* The scheduler core: job table, queue, events and actions. The policies
 * sit behind a table of functions each (struct sched_policy_ops, see
 * sched_policy.h), in sched_easy.c (FCFS, EASY), sched_creasy.c (CREASY)
 * and sched_cons.c (conservative); this file reaches them through s->pol
 * and names none of them but in the table below. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_internal.h"

/* Every policy, by its number in enum sched_policy: one entry a policy. */
static const struct sched_policy_ops *const policies[] = {
	[SCHED_FCFS] = &fcfs_policy, [SCHED_EASY] = &easy_policy,
	[SCHED_CONSERVATIVE] = &cons_policy, [SCHED_CREASY] = &creasy_policy,
};

const struct sched_policy_ops *sched_policy_ops(enum sched_policy p)
{
	return (unsigned)p < sizeof policies / sizeof *policies ? policies[p] : NULL;
}

const char *sched_policy_name(enum sched_policy p)
{
	const struct sched_policy_ops *pol = sched_policy_ops(p);

	return pol ? pol->name : "?";
}

int sched_policy_parse(const char *name, enum sched_policy *out)
{
	for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
		if (policies[i] && strcmp(name, policies[i]->name) == 0) {
			*out = (enum sched_policy)i;
			return 0;
		}
	}
	return -1;
}

const char *sched_strerror(int err)
{
	switch (err) {
	case SCHED_OK: return "ok";
	case SCHED_E_NOMEM: return "out of memory";
	case SCHED_E_INVAL: return "invalid argument";
	case SCHED_E_TOOBIG: return "more nodes than the partition has";
	case SCHED_E_DUP: return "job id already in use";
	case SCHED_E_NOJOB: return "no such job";
	case SCHED_E_TIME: return "time went backwards";
	}
	return "unknown error";
}

void sched_violation(struct sched *s, const char *fmt, ...)
{
	va_list ap;

	if (s->violations++ == 0) {
		va_start(ap, fmt);
		vsnprintf(s->violation, sizeof s->violation, fmt, ap);
		va_end(ap);
	}
}

int sched_new(struct sched **out, const struct sched_params *prm)
{
	const struct sched_policy_ops *pol = sched_policy_ops(prm->policy);
	struct sched *s;

	*out = NULL;
	if (prm->nodes == 0 || prm->nodes > SCHED_MAX_NODES || prm->kill_grace < 0 ||
	    prm->kill_grace > BF_MAX_DURATION || !pol || !sched_alpha_ok(prm->alpha))
		return SCHED_E_INVAL;
	s = calloc(1, sizeof *s);
	if (!s)
		return SCHED_E_NOMEM;
	s->prm = *prm;
	s->pol = pol;
	s->qhead = s->qtail = s->free_slot = s->pass_cursor = s->place_cursor = NONE;
	s->runs_free = NONE;
	s->deps.free_head = NONE;
	s->next_due = BF_NEVER;
	s->last_pass = BF_NEVER;
	s->now = INT64_MIN;
	xlog_init(&s->freed_start, false);
	xlog_init(&s->freed_end, true);
	s->freed_memo.epoch = UINT64_MAX;	/* nothing asked yet */
	s->down_since = malloc((size_t)prm->nodes * sizeof *s->down_since);
	if (!s->down_since || profile_init(&s->prof, prm->nodes) < 0 ||
	    nodeset_init(&s->ns, prm->nodes) < 0 || idmap_init(&s->ids, 1024) < 0 ||
	    user_init(s) < 0) {
		sched_free(s);
		return SCHED_E_NOMEM;
	}
	for (uint32_t i = 0; i < prm->nodes; i++)
		s->down_since[i] = BF_NEVER;
	*out = s;
	return SCHED_OK;
}

void sched_free(struct sched *s)
{
	if (!s)
		return;
	user_destroy(s);
	deps_destroy(s);
	if (s->pol->destroy)
		s->pol->destroy(s);
	profile_destroy(&s->prof);
	nodeset_destroy(&s->ns);
	idmap_destroy(&s->ids);
	free(s->jobs);
	free(s->ju);
	free(s->heap);
	free(s->ready);
	free(s->order);
	free(s->moved);
	free(s->run_of);
	free(s->runs);
	free(s->down_since);
	free(s->acts);
	xlog_destroy(&s->freed_start);
	xlog_destroy(&s->freed_end);
	free(s);
}

/* ---- time and memory ---- */

int sched_advance(struct sched *s, bf_time now)
{
	if (now < s->now)
		return SCHED_E_TIME;
	if (now < 0 || now >= BF_NEVER)
		return SCHED_E_INVAL;
	s->now = now;
	return SCHED_OK;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > UINT32_MAX / 2)
			return -1;
		n *= 2;
	}
	q = realloc(*p, (size_t)n * size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

/* One more job slot. The heap and the ready list hold at most one entry
 * per slot, so they grow with the table and never need to grow later. */
static int grow_job_table(struct sched *s)
{
	uint32_t cap = s->jobs_cap, hcap = s->jobs_cap, rcap = s->jobs_cap, ucap = s->jobs_cap,
	         mcap = s->jobs_cap, ocap = s->jobs_cap, runcap = s->jobs_cap, pcap = s->jobs_cap;

	if (grow((void **)&s->jobs, &cap, s->jobs_used + 1, sizeof *s->jobs) < 0 ||
	    grow((void **)&s->ju, &ucap, cap, sizeof *s->ju) < 0 ||
	    grow((void **)&s->heap, &hcap, cap, sizeof *s->heap) < 0 ||
	    grow((void **)&s->ready, &rcap, cap, sizeof *s->ready) < 0 ||
	    grow((void **)&s->moved, &mcap, cap, sizeof *s->moved) < 0 ||
	    grow((void **)&s->run_of, &ocap, cap, sizeof *s->run_of) < 0 ||
	    grow((void **)&s->runs, &runcap, cap, sizeof *s->runs) < 0 ||
	    grow((void **)&s->order, &pcap, cap, sizeof *s->order) < 0 ||
	    (cap > s->jobs_cap && deps_grow_slots(s, cap) < 0))
		return -1;	/* the larger arrays that did grow are kept */
	/* (the new slots' runs are added once, when the table is larger) */
	runs_init_slots(s, s->jobs_cap, cap);
	s->jobs_cap = cap;
	return 0;
}

/* Room for k more actions, so a pass never fails halfway. */
int sched_need_actions(struct sched *s, size_t k)
{
	uint32_t cap = (uint32_t)s->acts_cap;

	if (s->nacts + k > UINT32_MAX / 2)
		return -1;
	if (grow((void **)&s->acts, &cap, (uint32_t)(s->nacts + k), sizeof *s->acts) < 0)
		return -1;
	s->acts_cap = cap;
	return 0;
}

void sched_emit(struct sched *s, enum sched_action_kind kind, uint8_t why, uint64_t job, bf_time t)
{
	/* Room was made by sched_need_actions() before the event began. */
	s->acts[s->nacts++] = (struct sched_action){ .kind = kind, .why = why, .job = job, .t = t };
}

const struct sched_action *sched_actions(const struct sched *s, size_t *count)
{
	*count = s->nacts;
	return s->acts;
}

void sched_clear_actions(struct sched *s)
{
	s->nacts = 0;
}

/* ---- the deadline heap of running jobs ---- */

/* Before SA_KILL: its limit, start + estimate. After: the end of its hold,
 * when a job still running has overrun its plan; but never the instant of
 * the kill itself, so that a job killed with no grace may end then. */
static bf_time heap_key(const struct sched *s, uint32_t slot)
{
	const struct job *j = &s->jobs[slot];
	bf_time end;

	if (!(j->flags & JF_KILL_SENT))
		return j->start + j->estimate;
	end = j->start + j->hold;
	return end > j->kill_at ? end : j->kill_at + 1;
}

static bool heap_less(const struct sched *s, uint32_t a, uint32_t b)
{
	bf_time ka = heap_key(s, a), kb = heap_key(s, b);

	return ka < kb || (ka == kb && s->jobs[a].seq < s->jobs[b].seq);
}

static void heap_set(struct sched *s, uint32_t i, uint32_t slot)
{
	s->heap[i] = slot;
	s->jobs[slot].heap = i;
}

static void heap_up(struct sched *s, uint32_t i)
{
	uint32_t x = s->heap[i];

	while (i > 0 && heap_less(s, x, s->heap[(i - 1) / 2])) {
		heap_set(s, i, s->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(s, i, x);
}

static void heap_down(struct sched *s, uint32_t i)
{
	uint32_t x = s->heap[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= s->heap_len)
			break;
		if (c + 1 < s->heap_len && heap_less(s, s->heap[c + 1], s->heap[c]))
			c++;
		if (!heap_less(s, s->heap[c], x))
			break;
		heap_set(s, i, s->heap[c]);
		i = c;
	}
	heap_set(s, i, x);
}

static void heap_remove(struct sched *s, uint32_t slot)
{
	uint32_t i = s->jobs[slot].heap, last;

	if (i == NONE)
		return;
	s->jobs[slot].heap = NONE;
	last = s->heap[--s->heap_len];
	if (i == s->heap_len)
		return;
	heap_set(s, i, last);
	heap_up(s, i);
	heap_down(s, s->jobs[last].heap);
}

/* ---- queue ---- */

/* 1 if a, queued right before b, was submitted after it (see
 * struct sched's submit_inversions). */
static inline uint32_t inverted(const struct sched *s, uint32_t a, uint32_t b)
{
	return a != NONE && b != NONE && s->jobs[a].submit > s->jobs[b].submit;
}

static void queue_append(struct sched *s, uint32_t slot)
{
	struct job *j = &s->jobs[slot];

	s->submit_inversions += inverted(s, s->qtail, slot);

	j->prev = s->qtail;
	j->next = NONE;
	if (s->qtail == NONE)
		s->qhead = slot;
	else
		s->jobs[s->qtail].next = slot;
	s->qtail = slot;
	if (++s->qlen > s->st.max_queue)
		s->st.max_queue = s->qlen;
}

static void queue_prepend(struct sched *s, uint32_t slot)
{
	struct job *j = &s->jobs[slot];

	s->submit_inversions += inverted(s, slot, s->qhead);
	j->prev = NONE;
	j->next = s->qhead;
	if (s->qhead == NONE)
		s->qtail = slot;
	else
		s->jobs[s->qhead].prev = slot;
	s->qhead = slot;
	s->qlen++;
}

static void queue_remove(struct sched *s, uint32_t slot)
{
	struct job *j = &s->jobs[slot];

	run_changes(s, slot);
	if (s->pass_cursor == slot)
		s->pass_cursor = j->next;	/* a sliced pass goes on with the next */
	if (s->place_cursor == slot)
		s->place_cursor = j->next;	/* and so does placing */
	s->submit_inversions += inverted(s, j->prev, j->next);
	s->submit_inversions -= inverted(s, j->prev, slot) + inverted(s, slot, j->next);
	if (j->prev == NONE)
		s->qhead = j->next;
	else
		s->jobs[j->prev].next = j->next;
	if (j->next == NONE)
		s->qtail = j->prev;
	else
		s->jobs[j->next].prev = j->prev;
	j->prev = j->next = NONE;
	s->qlen--;
}

static void slot_free(struct sched *s, uint32_t slot)
{
	if (s->jobs[slot].flags & (JF_DEPS | JF_PREDS | JF_COND))
		deps_leave(s, slot);
	if (user_cap(s))
		user_leave(s, s->ju[slot].uslot);
	idmap_del(&s->ids, s->jobs[slot].id);
	s->jobs[slot].state = SLOT_FREE;
	s->jobs[slot].next = s->free_slot;
	s->free_slot = slot;
}

static uint32_t lookup(const struct sched *s, uint64_t id, enum slot_state want)
{
	uint32_t slot = idmap_get(&s->ids, id);

	return slot != IDMAP_NONE && s->jobs[slot].state == want ? slot : NONE;
}

/* ---- events ---- */

/* The checks every new job passes, before anything changes. */
static int check_new(const struct sched *s, uint64_t id, uint32_t nodes, bf_time estimate)
{
	if (nodes == 0 || estimate < 0 || estimate > BF_MAX_DURATION)
		return SCHED_E_INVAL;
	if (nodes > s->prm.nodes)
		return SCHED_E_TOOBIG;
	if (idmap_get(&s->ids, id) != IDMAP_NONE)
		return SCHED_E_DUP;
	return SCHED_OK;
}

/* A slot for a checked job, not yet queued or running; room is made for
 * its reservation or hold in the plan. */
static int new_job(struct sched *s, uint64_t id, uint32_t nodes, bf_time estimate,
                   bf_time submit, uint32_t user, uint32_t *out)
{
	uint32_t slot, uslot = NONE;
	struct job *j;

	if ((s->free_slot == NONE && grow_job_table(s) < 0) || profile_prepare(&s->prof, 4) < 0 ||
	    (user_cap(s) && user_join(s, user, &uslot) < 0))
		return SCHED_E_NOMEM;
	if (s->free_slot != NONE) {
		slot = s->free_slot;
		s->free_slot = s->jobs[slot].next;
	} else {
		slot = s->jobs_used++;
	}
	if (idmap_put(&s->ids, id, slot) < 0) {
		s->jobs[slot].state = SLOT_FREE;
		s->jobs[slot].next = s->free_slot;
		s->free_slot = slot;
		if (uslot != NONE)
			user_leave(s, uslot);
		return SCHED_E_NOMEM;
	}
	j = &s->jobs[slot];
	*j = (struct job){
		.id = id, .seq = s->next_seq++, .submit = submit, .estimate = estimate,
		.hold = estimate + s->prm.kill_grace, .start = BF_NEVER, .kill_at = BF_NEVER,
		.resv = BF_NEVER,
		.first_guarantee = BF_NEVER, .nodes = nodes, .first_node = NODESET_NONE,
		.heap = NONE, .state = SLOT_QUEUED,
	};
	s->ju[slot] = (struct job_user){ .user = user, .uslot = uslot };
	deps_init_slot(s, slot);
	if (j->hold < 1)
		j->hold = 1;	/* a job needs its nodes at least for an instant */
	*out = slot;
	return SCHED_OK;
}

int sched_submit(struct sched *s, bf_time now, uint64_t id, uint32_t nodes, bf_time estimate)
{
	return sched_submit_as(s, now, id, nodes, estimate, 0);
}

int sched_submit_as(struct sched *s, bf_time now, uint64_t id, uint32_t nodes, bf_time estimate,
                    uint32_t user)
{
	struct sched_new_job nj = { .id = id, .nodes = nodes, .estimate = estimate, .user = user };

	return sched_submit_job(s, now, &nj);
}

/* The dependencies of a new job, checked before anything changes: each
 * predecessor in the system, none twice; *n: the edges to make. */
static int check_deps(struct sched *s, const struct sched_new_job *nj, uint32_t *n)
{
	int rc = SCHED_OK;

	*n = 0;
	if (nj->ndeps > SCHED_MAX_DEPS || (nj->ndeps && !nj->deps))
		return SCHED_E_INVAL;
	for (uint32_t k = 0; k < nj->ndeps && rc == SCHED_OK; k++) {
		uint32_t p = idmap_get(&s->ids, nj->deps[k].job);

		if (p == IDMAP_NONE)
			rc = SCHED_E_NOJOB;
		else if (nj->deps[k].kind > SCHED_DEP_START || (s->jobs[p].flags & JF_MARK))
			rc = SCHED_E_INVAL;
		else if (!(nj->deps[k].kind == SCHED_DEP_START && s->jobs[p].state == SLOT_RUNNING))
			(*n)++;
		if (p != IDMAP_NONE)
			s->jobs[p].flags |= JF_MARK;	/* (a mark: seen once) */
	}
	for (uint32_t k = 0; k < nj->ndeps; k++) {
		uint32_t p = idmap_get(&s->ids, nj->deps[k].job);

		if (p != IDMAP_NONE)
			s->jobs[p].flags &= (uint16_t)~JF_MARK;
	}
	if (rc == SCHED_OK && deps_room(s, *n) < 0)
		rc = SCHED_E_NOMEM;
	return rc;
}

/* The new job's edges and wait, before its policy places it. */
static void add_deps(struct sched *s, uint32_t slot, const struct sched_new_job *nj)
{
	for (uint32_t k = 0; k < nj->ndeps; k++) {
		uint32_t p = idmap_get(&s->ids, nj->deps[k].job);

		if (!(nj->deps[k].kind == SCHED_DEP_START && s->jobs[p].state == SLOT_RUNNING))
			deps_add(s, p, slot, nj->deps[k].kind, nj->deps[k].cond);
	}
	if (nj->waiting) {
		s->jobs[slot].flags |= JF_COND;
		s->deps.waiting++;
	}
}

/* What every new job (submitted or restored) is checked for first:
 * time, its fields, its dependencies. */
static int check_arrival(struct sched *s, bf_time now, const struct sched_new_job *nj)
{
	uint32_t n;
	int rc;

	if ((rc = sched_advance(s, now)) < 0 ||
	    (rc = check_new(s, nj->id, nj->nodes, nj->estimate)) < 0 ||
	    (rc = check_deps(s, nj, &n)) < 0)
		return rc;
	return SCHED_OK;
}

int sched_submit_job(struct sched *s, bf_time now, const struct sched_new_job *nj)
{
	uint32_t slot;
	int rc;

	if ((rc = check_arrival(s, now, nj)) < 0)
		return rc;
	/* Ends come before arrivals: a hole opened at this instant is closed
	 * before the newcomer joins the queue and looks for its place. */
	if (s->need_compress && s->pol->compress && (rc = s->pol->compress(s, now)) < 0)
		return rc;
	if ((rc = new_job(s, nj->id, nj->nodes, nj->estimate, now, nj->user, &slot)) < 0)
		return rc;
	queue_append(s, slot);
	add_deps(s, slot, nj);
	s->dirty = true;
	if (s->pol->arrive)
		s->pol->arrive(s, slot, now);
	return SCHED_OK;
}

int sched_restore_queued_job(struct sched *s, bf_time now, const struct sched_new_job *nj)
{
	uint32_t slot;
	int rc;

	if ((rc = check_arrival(s, now, nj)) < 0)
		return rc;
	if (nj->submit < 0 || nj->submit > now)
		return SCHED_E_INVAL;
	if (sched_need_actions(s, 1) < 0 ||
	    (rc = new_job(s, nj->id, nj->nodes, nj->estimate, nj->submit, nj->user, &slot)) < 0)
		return rc < 0 ? rc : SCHED_E_NOMEM;
	queue_append(s, slot);
	add_deps(s, slot, nj);
	s->dirty = true;
	if (s->pol->restore)
		s->pol->restore(s, slot, now, nj->guarantee);
	return SCHED_OK;
}

int sched_dep_release(struct sched *s, bf_time now, uint64_t id)
{
	uint32_t slot = lookup(s, id, SLOT_QUEUED);
	int rc;

	if ((rc = sched_advance(s, now)) < 0)
		return rc;
	if (slot == NONE)
		return SCHED_E_NOJOB;
	deps_release(s, slot);
	s->dirty = true;
	return SCHED_OK;
}

static void heap_push(struct sched *s, uint32_t slot)
{
	heap_set(s, s->heap_len++, slot);
	heap_up(s, s->heap_len - 1);
}

/* A running job keeps its nodes in the plan until `until` (if that is
 * later than its hold's end). Nodes of it that went down have a "down"
 * reservation from the old end (or from when they went down, if that was
 * after it) on, which now starts at `until`. The
 * caller prepared profile room for 2 + 2 * ndown points; the next pass
 * repairs what the longer hold overlaps (see sched_run). */
static void extend_hold(struct sched *s, uint32_t slot, bf_time until,
                        enum sched_broken_why why)
{
	struct job *j = &s->jobs[slot];
	bf_time end = j->start + j->hold;

	if (until > BF_NEVER - 1)
		until = BF_NEVER - 1;
	if (until <= end)
		return;
	for (uint32_t i = j->first_node; s->ns.ndown && i != NODESET_NONE; i = s->ns.next[i]) {
		bf_time since = s->down_since[i];

		if (s->ns.down[i] && since >= end && since < until) {
			profile_release(&s->prof, since, 1, BF_NEVER - since);
			profile_reserve(&s->prof, until, 1, BF_NEVER - until);
			s->down_since[i] = until;
		}
	}
	plan_reserve(s, j, end, until - end);
	j->hold = until - j->start;
	/* A job that will not die is what the announcement names when a
	 * late pass coincides with it. */
	if (!s->hold_extended || why == BROKEN_OVERRUN)
		s->extend_why = (uint8_t)why;
	s->hold_extended = true;
	s->dirty = true;
	s->st.hold_extensions++;
}

/* SA_KILL, with the end of the job's hold: from now on the heap watches
 * that. A job signalled late by less than the grace (a pass a moment after
 * its limit) keeps the end the plan gave it; one whose whole grace passed
 * unsignalled (the daemon was down) gets the grace from now, and what that
 * overlaps is repaired (the room for it is the caller's, as for
 * extend_hold). */
static void signal_job(struct sched *s, uint32_t slot, enum sched_kill_why why, bf_time now)
{
	struct job *j = &s->jobs[slot];

	heap_remove(s, slot);
	j->flags |= JF_KILL_SENT;
	j->kill_at = now;
	if (j->start + j->hold <= now)	/* no pass while its hold ran out */
		extend_hold(s, slot, now + s->prm.kill_grace, BROKEN_LATE);
	sched_emit(s, SA_KILL, (uint8_t)why, j->id, j->start + j->hold);
	heap_push(s, slot);
}

/* A signalled job still holds its nodes at the end of its hold: keep them
 * in the plan for as long again as it has overrun its limit, a second at
 * least, so one that will not die costs O(log) re-plans. */
static void overrun(struct sched *s, uint32_t slot, bf_time now)
{
	struct job *j = &s->jobs[slot];
	bf_time over = now - (j->start + j->estimate);

	heap_remove(s, slot);
	extend_hold(s, slot, now + (over > BF_SEC ? over : BF_SEC), BROKEN_OVERRUN);
	heap_push(s, slot);
}

int sched_restore_running(struct sched *s, bf_time now, uint64_t id, bf_time submit,
                          bf_time estimate, bf_time start, bf_time hold_end,
                          const uint32_t *nodes, uint32_t count)
{
	return sched_restore_running_as(s, now, id, submit, estimate, start, hold_end, nodes,
	                                count, 0);
}

int sched_restore_running_as(struct sched *s, bf_time now, uint64_t id, bf_time submit,
                             bf_time estimate, bf_time start, bf_time hold_end,
                             const uint32_t *nodes, uint32_t count, uint32_t user)
{
	struct job *j;
	uint32_t slot, first;
	int rc;

	if ((rc = sched_advance(s, now)) < 0 || (rc = check_new(s, id, count, estimate)) < 0)
		return rc;
	if (submit < 0 || start < submit || start > now ||
	    (hold_end != BF_NEVER && (hold_end <= start || hold_end - start < estimate)))
		return SCHED_E_INVAL;
	if ((rc = new_job(s, id, count, estimate, submit, user, &slot)) < 0)
		return rc;
	if (hold_end != BF_NEVER)
		s->jobs[slot].hold = hold_end - start;	/* as the plan had it */
	if (nodeset_take(&s->ns, nodes, count, slot, &first) < 0) {
		slot_free(s, slot);	/* a node out of range, down, held or twice */
		return SCHED_E_INVAL;
	}
	j = &s->jobs[slot];
	j->first_node = first;
	j->start = start;
	j->state = SLOT_RUNNING;
	plan_reserve(s, j, start, j->hold);
	if (user_cap(s))
		user_started(s, j, false);	/* counted even past the cap: it runs */
	heap_push(s, slot);	/* a limit passed while we were down: killed at the next pass */
	s->nrunning++;
	s->dirty = true;
	return SCHED_OK;
}

int sched_restore_queued(struct sched *s, bf_time now, uint64_t id, bf_time submit,
                         uint32_t nodes, bf_time estimate, bf_time guarantee)
{
	return sched_restore_queued_as(s, now, id, submit, nodes, estimate, guarantee, 0);
}

int sched_restore_queued_as(struct sched *s, bf_time now, uint64_t id, bf_time submit,
                            uint32_t nodes, bf_time estimate, bf_time guarantee, uint32_t user)
{
	struct sched_new_job nj = { .id = id, .nodes = nodes, .estimate = estimate, .user = user,
		.submit = submit, .guarantee = guarantee };

	return sched_restore_queued_job(s, now, &nj);
}

/* A job's nodes that went down while it held them have a "down" reservation
 * from its planned end on; now that the job is gone, it starts now. */
static void move_down_reservations(struct sched *s, struct job *j, bf_time now)
{
	for (uint32_t i = j->first_node; i != NODESET_NONE; i = s->ns.next[i]) {
		if (s->ns.down[i] && s->down_since[i] > now) {
			profile_release(&s->prof, s->down_since[i], 1, BF_NEVER - s->down_since[i]);
			profile_reserve(&s->prof, now, 1, BF_NEVER - now);
			s->down_since[i] = now;
		}
	}
}

int sched_end(struct sched *s, bf_time now, uint64_t id, enum sched_end_how how)
{
	uint32_t slot = lookup(s, id, SLOT_RUNNING);
	struct job *j;
	int rc;

	if ((rc = sched_advance(s, now)) < 0)
		return rc;
	if (slot == NONE)
		return SCHED_E_NOJOB;
	if ((unsigned)how > END_NODE_FAILED)
		return SCHED_E_INVAL;
	if (profile_prepare(&s->prof, 4 * s->ns.ndown + 2) < 0)
		return SCHED_E_NOMEM;
	j = &s->jobs[slot];
	if (s->ns.ndown)
		move_down_reservations(s, j, now);
	plan_release(s, j, j->start, j->hold);
	if (user_cap(s))
		user_ended(s, j);
	nodeset_release(&s->ns, j->first_node);
	heap_remove(s, slot);
	/* Freed before its planned end: conservative compresses the plan
	 * (an end at it, with compress_per_end: sched_compress_next). */
	if (now < j->start + j->hold) {
		s->need_compress = true;
		if (s->pol->freed)
			s->pol->freed(s, now, j->start + j->hold);
	}
	s->nrunning--;
	s->st.ended++;
	slot_free(s, slot);
	s->dirty = true;
	return SCHED_OK;
}

void sched_compress_next(struct sched *s)
{
	if (!s->prm.compress_per_end || !s->pol->compress)
		return;
	s->need_compress = true;	/* a pass, for what earlier ones left */
	s->dirty = true;
}

int sched_cancel(struct sched *s, bf_time now, uint64_t id)
{
	uint32_t slot = idmap_get(&s->ids, id);
	struct job *j;
	int rc;

	if ((rc = sched_advance(s, now)) < 0)
		return rc;
	if (slot == IDMAP_NONE)
		return SCHED_E_NOJOB;
	j = &s->jobs[slot];
	if (j->state == SLOT_RUNNING) {
		if (sched_need_actions(s, 1) < 0 || profile_prepare(&s->prof, 2 * s->ns.ndown + 2) < 0)
			return SCHED_E_NOMEM;
		if (!(j->flags & JF_KILL_SENT))
			signal_job(s, slot, KILL_CANCELLED, now);
		return 1;
	}
	if (profile_prepare(&s->prof, 2) < 0 || deps_room(s, deps_bypass_room(s, slot)) < 0)
		return SCHED_E_NOMEM;
	if (s->pol->forget)
		s->pol->forget(s, slot);
	if (s->has_last_head && s->last_head == j->id)
		s->has_last_head = false;
	queue_remove(s, slot);
	s->st.cancelled_queued++;
	slot_free(s, slot);
	s->dirty = true;
	return SCHED_OK;
}

/* Take a node out of the plan (down, or drained: lose = false leaves its
 * job running); a node already out is only signalled for, if lost. */
static int node_out(struct sched *s, bf_time now, uint32_t node, bool lose)
{
	uint8_t why = lose ? BROKEN_NODE_LOST : BROKEN_NODE_DRAINED;
	uint32_t owner;
	bf_time from;
	int rc;

	if ((rc = sched_advance(s, now)) < 0)
		return rc;
	if (node >= s->prm.nodes)
		return SCHED_E_INVAL;
	if (s->ns.down[node]) {
		owner = s->ns.owner[node];
		if (!lose || owner == NODESET_NONE || (s->jobs[owner].flags & JF_KILL_SENT))
			return SCHED_OK;
		if (sched_need_actions(s, 1) < 0 || profile_prepare(&s->prof, 2 * s->ns.ndown + 2) < 0)
			return SCHED_E_NOMEM;
		s->out_why = why;
		signal_job(s, owner, KILL_NODE_FAILED, now);
		s->dirty = true;
		return SCHED_OK;
	}
	/* The repair may move every queued reservation: room for all first. */
	if (profile_prepare(&s->prof, 4 * s->qlen + 2 * s->ns.ndown + 6) < 0 ||
	    sched_need_actions(s, 1 + s->qlen) < 0)
		return SCHED_E_NOMEM;
	s->out_why = why;
	owner = nodeset_set_down(&s->ns, node);
	/* The node is gone for good (until it is up again): a reservation to
	 * the end of time, from now, or from the holding job's planned end. */
	from = owner == NODESET_NONE ? now : s->jobs[owner].start + s->jobs[owner].hold;
	if (from < now)
		from = now;
	profile_reserve(&s->prof, from, 1, BF_NEVER - from);
	s->down_since[node] = from;
	if (lose && owner != NODESET_NONE && !(s->jobs[owner].flags & JF_KILL_SENT))
		signal_job(s, owner, KILL_NODE_FAILED, now);
	s->dirty = true;
	if (s->pol->repair)
		return s->pol->repair(s, now, why);
	return SCHED_OK;
}

int sched_node_down(struct sched *s, bf_time now, uint32_t node)
{
	return node_out(s, now, node, true);
}

int sched_node_drain(struct sched *s, bf_time now, uint32_t node)
{
	return node_out(s, now, node, false);
}

/* A queued job's new limit (see sched_set_limit). */
static void limit_queued(struct sched *s, uint32_t slot, bf_time now, bf_time estimate)
{
	struct job *j = &s->jobs[slot];
	bf_time was = j->resv;

	if (s->pol->forget)
		s->pol->forget(s, slot);
	j->hold += estimate - j->estimate;
	j->estimate = estimate;
	if (j->hold < 1)
		j->hold = 1;
	if (s->pol->limit_changed)
		s->pol->limit_changed(s, slot, now, was);
}

/* A running job's new limit (see sched_set_limit). */
static int limit_running(struct sched *s, uint32_t slot, bf_time now, bf_time estimate)
{
	struct job *j = &s->jobs[slot];
	bf_time end = j->start + j->hold, hold;

	if (j->flags & JF_KILL_SENT)
		return SCHED_E_INVAL;	/* on its way out */
	if (j->start + estimate < now)
		estimate = now - j->start;	/* passed: signalled at the next pass */
	hold = j->hold + (estimate - j->estimate);
	if (hold < 1)
		hold = 1;
	heap_remove(s, slot);
	if (j->start + hold < end) {
		/* Nodes that went down under it are out from its new end. */
		for (uint32_t i = j->first_node; s->ns.ndown && i != NODESET_NONE; i = s->ns.next[i]) {
			if (s->ns.down[i] && s->down_since[i] == end) {
				profile_release(&s->prof, end, 1, BF_NEVER - end);
				profile_reserve(&s->prof, j->start + hold, 1, BF_NEVER - (j->start + hold));
				s->down_since[i] = j->start + hold;
			}
		}
		plan_release(s, j, j->start + hold, end - (j->start + hold));
		j->hold = hold;
		s->need_compress = true;
		if (s->pol->freed)
			s->pol->freed(s, j->start + hold, end);
	} else if (j->start + hold > end) {
		extend_hold(s, slot, j->start + hold, BROKEN_LIMIT);
	}
	j->estimate = estimate;
	heap_push(s, slot);
	if (s->hold_extended && s->pol->repair)
		return s->pol->repair(s, now, BROKEN_LIMIT);
	return SCHED_OK;
}

int sched_set_limit(struct sched *s, bf_time now, uint64_t id, bf_time estimate)
{
	uint32_t slot = idmap_get(&s->ids, id);
	int rc;

	if ((rc = sched_advance(s, now)) < 0)
		return rc;
	if (slot == IDMAP_NONE)
		return SCHED_E_NOJOB;
	if (estimate <= 0 || estimate > BF_MAX_DURATION)
		return SCHED_E_INVAL;
	/* Room to place it again, or to repair what a longer hold overlaps. */
	if (profile_prepare(&s->prof, 4 * s->qlen + 4 * s->ns.ndown + 8) < 0 ||
	    sched_need_actions(s, 1 + s->qlen) < 0)
		return SCHED_E_NOMEM;
	s->dirty = true;
	if (s->jobs[slot].state == SLOT_RUNNING)
		return limit_running(s, slot, now, estimate);
	limit_queued(s, slot, now, estimate);
	return SCHED_OK;
}

int sched_restore_top(struct sched *s, uint64_t id)
{
	uint32_t slot = lookup(s, id, SLOT_QUEUED);

	if (slot == NONE)
		return SCHED_E_NOJOB;
	s->jobs[slot].flags |= JF_TOP;
	s->dirty = true;
	return SCHED_OK;
}

int sched_top(struct sched *s, bf_time now, uint64_t id)
{
	uint32_t slot = lookup(s, id, SLOT_QUEUED);
	bool moved;
	int rc;

	if ((rc = sched_advance(s, now)) < 0)
		return rc;
	if (slot == NONE)
		return SCHED_E_NOJOB;
	if (s->jobs[slot].flags & JF_DEPS)
		return SCHED_E_INVAL;	/* before its predecessors (see sched.h) */
	if (s->qhead == slot && (s->jobs[slot].flags & JF_TOP))
		return SCHED_OK;
	if (profile_prepare(&s->prof, 4 * s->qlen + 2 * s->ns.ndown + 6) < 0 ||
	    sched_need_actions(s, 1 + s->qlen) < 0)
		return SCHED_E_NOMEM;
	s->jobs[slot].flags |= JF_TOP;
	/* First in the queue already: the queue does not change, but a
	 * policy that orders it otherwise (CREASY) may change its mind. */
	moved = s->qhead != slot;
	if (moved) {
		queue_remove(s, slot);
		queue_prepend(s, slot);
		s->dirty = true;
	}
	if (s->pol->top)
		s->pol->top(s, slot, now, moved);
	return SCHED_OK;
}

int sched_node_up(struct sched *s, bf_time now, uint32_t node)
{
	int rc;

	if ((rc = sched_advance(s, now)) < 0)
		return rc;
	if (node >= s->prm.nodes)
		return SCHED_E_INVAL;
	if (!s->ns.down[node])
		return SCHED_OK;
	if (profile_prepare(&s->prof, 2) < 0)
		return SCHED_E_NOMEM;
	profile_release(&s->prof, s->down_since[node], 1, BF_NEVER - s->down_since[node]);
	s->down_since[node] = BF_NEVER;
	nodeset_set_up(&s->ns, node);
	s->need_compress = true;
	if (s->pol->freed)
		s->pol->freed(s, now, BF_NEVER);
	s->dirty = true;
	return SCHED_OK;
}

void sched_start_job(struct sched *s, uint32_t slot, bf_time now)
{
	struct job *j = &s->jobs[slot];
	uint32_t first;

	if (nodeset_alloc(&s->ns, j->nodes, slot, &first) < 0) {
		/* Callers check free nodes first; never start on too few. */
		sched_violation(s, "job %llu: started with %u nodes free, needs %u",
		                (unsigned long long)j->id, s->ns.nfree, j->nodes);
		return;
	}
	if (s->qhead != slot) {
		j->flags |= JF_BACKFILLED;
		s->st.backfilled++;
	}
	if (now < j->submit)
		sched_violation(s, "job %llu started before it arrived", (unsigned long long)j->id);
	if (dep_blocked(j))
		sched_violation(s, "job %llu started before its dependencies allowed",
		                (unsigned long long)j->id);
	/* A due job that a pass could not start (a killed job ended after
	 * its hold but before the pass that would have found it overdue)
	 * starts late: that is a broken promise, and it is said. A start at a
	 * pass that merely comes late (a busy driver) is not. */
	if ((j->flags & JF_WAITED) && now > j->first_guarantee) {
		s->st.broken++;
		j->first_guarantee = now;
		sched_emit(s, SA_BROKEN, BROKEN_OVERRUN, j->id, now);
	}
	/* Late against its promise is a fault of the core only if a pass
	 * ran since the promise fell due; a driver that passes late (a
	 * suspended daemon) is told by its clock, not here. */
	if (s->pol->reserves && now > j->first_guarantee &&
	    s->last_pass != BF_NEVER && s->last_pass >= j->first_guarantee)
		sched_violation(s, "job %llu started at %lld, after its guarantee %lld",
		                (unsigned long long)j->id, (long long)now, (long long)j->first_guarantee);
	queue_remove(s, slot);
	if (s->has_last_head && s->last_head == j->id)
		s->has_last_head = false;
	if (j->flags & JF_RESERVED) {
		/* Its reservation becomes its hold (moved if it starts late:
		 * only a job overrunning its plan can make it wait). */
		if (j->resv != now) {
			bf_time planned_end = j->resv + j->hold;

			if (s->ns.ndown == 0 && !(j->flags & JF_WAITED) && j->resv > now)
				sched_violation(s, "job %llu started at %lld, reserved at %lld",
				                (unsigned long long)j->id, (long long)now, (long long)j->resv);
			plan_release(s, j, j->resv, j->hold);
			if (planned_end - now >= j->estimate && planned_end - now >= 1) {
				/* The delay fits in the grace: the plan's end stays. */
				j->hold = planned_end - now;
			} else {
				/* Its whole hold from now: what that overlaps is
				 * placed again after the pass. */
				s->extend_why = BROKEN_LATE;
				s->hold_extended = true;
				s->st.hold_extensions++;
			}
			plan_reserve(s, j, now, j->hold);
		}
		j->flags &= ~JF_RESERVED;
	} else {
		plan_reserve(s, j, now, j->hold);
	}
	if (user_cap(s))
		user_started(s, j, true);
	j->first_node = first;
	j->start = now;
	j->state = SLOT_RUNNING;
	j->flags &= (uint16_t)~JF_DEPMOVED;
	if (j->flags & JF_PREDS)
		deps_started(s, slot);
	j->heap = NONE;
	heap_push(s, slot);
	s->nrunning++;
	s->st.started++;
	sched_emit(s, SA_START, 0, j->id, now);
}

static int run_pass(struct sched *s, bf_time now)
{
	int rc;

	if ((rc = sched_advance(s, now)) < 0)
		return rc;
	/* Room for a start or kill per job, a broken promise per queued job,
	 * longer holds and the reservations they move, before anything
	 * changes. */
	if (sched_need_actions(s, 2 * (size_t)s->qlen + s->nrunning + 1) < 0 ||
	    profile_prepare(&s->prof, 6 * s->qlen + 2 * s->heap_len + 2 * s->ns.ndown + 4) < 0)
		return SCHED_E_NOMEM;
	while (s->heap_len && heap_key(s, s->heap[0]) <= now) {
		uint32_t slot = s->heap[0];

		if (s->jobs[slot].flags & JF_KILL_SENT) {
			overrun(s, slot, now);
		} else {
			s->st.kills_sent++;
			signal_job(s, slot, KILL_OVERRUN, now);
		}
		if (s->heap[0] == slot && heap_key(s, slot) <= now)
			break;	/* at the end of time: a hold cannot grow further */
	}
	/* Conservative: what a longer hold now overlaps is placed again, and
	 * told (EASY and FCFS: promise_head tells the head). */
	if (s->hold_extended && s->pol->repair &&
	    (rc = s->pol->repair(s, now, (enum sched_broken_why)s->extend_why)) < 0)
		return rc;
	/* Conservative: a reservation can fall due at an instant no event
	 * marks (a later job that moved up in a compression can leave an
	 * earlier one anchored at the moved job's old end); sched_next_wakeup()
	 * names that instant. */
	if (!s->dirty && !s->compress_more && !s->placing && s->next_due > now) {
		s->hold_extended = false;
		return SCHED_OK;
	}
	s->dirty = false;
	if ((rc = s->pol->pass(s, now)) < 0)
		return rc;
	s->hold_extended = false;
	return SCHED_OK;
}

int sched_run(struct sched *s, bf_time now)
{
	int rc = run_pass(s, now);

	if (rc == SCHED_OK)
		s->last_pass = now;
	return rc;
}

bf_time sched_next_wakeup(const struct sched *s)
{
	bf_time t = s->heap_len ? heap_key(s, s->heap[0]) : BF_NEVER;

	if (s->dirty || s->compress_more || s->placing)
		return s->now;	/* an event came in without a pass after it, or
				 * a compression or placing goes on */
	return s->next_due < t ? s->next_due : t;
}

/* ---- queries ---- */

void sched_fill_info(const struct sched *s, const struct job *j, struct sched_job_info *o)
{
	*o = (struct sched_job_info){
		.id = j->id, .nodes = j->nodes, .user = job_user(s, j),
		.state = j->state == SLOT_RUNNING ? JOB_RUNNING : JOB_QUEUED,
		.submit = j->submit, .estimate = j->estimate,
		.start = j->state == SLOT_RUNNING ? j->start : BF_NEVER,
		.hold_end = j->state == SLOT_RUNNING ? j->start + j->hold : BF_NEVER,
		.guarantee = j->state == SLOT_QUEUED ? j->resv : BF_NEVER,
		.first_guarantee = j->first_guarantee,
		.backfilled = j->flags & JF_BACKFILLED,
		.kill_sent = j->flags & JF_KILL_SENT,
		.waiting = j->flags & JF_COND,
	};
	for (uint32_t k = s->deps.in[j - s->jobs]; k != NONE; k = s->deps.e[k].next_in)
		o->preds++;
}

bool sched_placing(const struct sched *s)
{
	return s->placing;
}

int sched_job_info(const struct sched *s, uint64_t id, struct sched_job_info *out)
{
	uint32_t slot = idmap_get(&s->ids, id);

	if (slot == IDMAP_NONE)
		return SCHED_E_NOJOB;
	sched_fill_info(s, &s->jobs[slot], out);
	return SCHED_OK;
}

uint32_t sched_job_nodes(const struct sched *s, uint64_t id, uint32_t *out, uint32_t cap)
{
	uint32_t slot = lookup(s, id, SLOT_RUNNING), k = 0;

	if (slot == NONE)
		return 0;
	for (uint32_t i = s->jobs[slot].first_node; i != NODESET_NONE; i = s->ns.next[i], k++)
		if (k < cap)
			out[k] = i;
	return k;
}

void sched_foreach_running(const struct sched *s,
                           int (*visit)(const struct sched_job_info *, void *), void *arg)
{
	struct sched_job_info info;

	for (uint32_t slot = 0; slot < s->jobs_used; slot++) {
		if (s->jobs[slot].state != SLOT_RUNNING)
			continue;
		sched_fill_info(s, &s->jobs[slot], &info);
		if (visit(&info, arg))
			break;
	}
}

void sched_foreach_queued(const struct sched *s,
                          int (*visit)(const struct sched_job_info *, void *), void *arg)
{
	struct sched_job_info info;

	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next) {
		sched_fill_info(s, &s->jobs[i], &info);
		if (visit(&info, arg))
			break;
	}
}

void sched_drain_moved(struct sched *s, int (*visit)(const struct sched_job_info *, void *),
                       void *arg)
{
	struct sched_job_info info;

	for (uint32_t k = 0; k < s->moved_len; k++) {
		struct job *j = &s->jobs[s->moved[k]];

		/* (A slot freed and taken again: its new job was not noted.) */
		if (!(j->flags & JF_MOVED))
			continue;
		j->flags &= (uint16_t)~JF_MOVED;
		if (j->state == SLOT_QUEUED && !s->moved_all) {
			sched_fill_info(s, j, &info);
			visit(&info, arg);
		}
	}
	if (s->moved_all) {
		for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next) {
			s->jobs[i].flags &= (uint16_t)~JF_MOVED;
			sched_fill_info(s, &s->jobs[i], &info);
			visit(&info, arg);
		}
	}
	s->moved_len = 0;
	s->moved_all = false;
}

size_t sched_profile_steps(const struct sched *s, bf_time now, bf_time *t, int64_t *free_nodes,
                           size_t cap)
{
	size_t k = 0;

	for (bf_time at = now; k < cap && at < BF_NEVER; at = profile_next_change(&s->prof, at)) {
		int64_t f = profile_free_at(&s->prof, at);

		if (k && free_nodes[k - 1] == f)
			continue;	/* a breakpoint that changes nothing visible */
		t[k] = at;
		free_nodes[k++] = f;
	}
	return k;
}

bool sched_node_job(const struct sched *s, uint32_t node, uint64_t *job)
{
	if (node >= s->prm.nodes || s->ns.owner[node] == NODESET_NONE)
		return false;
	*job = s->jobs[s->ns.owner[node]].id;
	return true;
}

uint32_t sched_free_nodes(const struct sched *s) { return s->ns.nfree; }
uint32_t sched_queue_len(const struct sched *s) { return s->qlen; }
uint32_t sched_running_len(const struct sched *s) { return s->nrunning; }
const struct sched_stats *sched_get_stats(const struct sched *s) { return &s->st; }
const struct sched_params *sched_get_params(const struct sched *s) { return &s->prm; }

int sched_set_kill_grace(struct sched *s, bf_time kill_grace)
{
	if (kill_grace < 0 || kill_grace > BF_MAX_DURATION)
		return SCHED_E_INVAL;
	s->prm.kill_grace = kill_grace;	/* new jobs' holds; the grace of a late kill */
	return SCHED_OK;
}

int sched_restore_freed(struct sched *s, bf_time from, bf_time to)
{
	if (from < 0 || to <= from)
		return SCHED_E_INVAL;
	if (s->pol->freed) {
		s->pol->freed(s, from, to);
		s->need_compress = true;
	}
	return SCHED_OK;
}
