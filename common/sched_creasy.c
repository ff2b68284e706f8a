/* CREASY: EASY backfilling over the queue in priority order, as in
 * SCHEDULING.md ("Priority order"). The priority of a waiting job grows
 * with its wait, so the order is made anew at each pass, from `now`.
 *
 * A pass never sorts the whole queue. The first job by priority is found
 * by a walk that stops where no later job has waited long enough to pass
 * it (with alpha = 0, at once); a pass that starts many jobs from long
 * walks goes on by a heap of the queue. Backfilling orders only the jobs
 * that could start under the head's shadow, which one walk of the queue
 * picks out, as EASY's own backfilling walks it. With alpha = 0 the order
 * is by waiting time, ties by arrival: arrival order, so the pass starts
 * and reserves exactly what EASY's would (tests/unit/test_sched.c's
 * stress runs, and replays of real traces in tests/replay/creasy.sh).
 * Its table (creasy_policy) is EASY's but for the pass, the head a change
 * of policy promises, a job put first and the forecast's order. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "sched_internal.h"

#define PER_MINUTE (1.0 / ((double)BF_SEC * 60.0))
#define MAX_CRITICALITY 0.04

static inline double minutes_waited(const struct job *j, bf_time now)
{
	return (double)(now - j->submit) * PER_MINUTE;
}

/* CREASY's: at most alpha * MAX_CRITICALITY + minutes waited, also as
 * computed; or the caller's hook (sched_params.priority). */
static double priority(const struct sched *s, const struct job *j, bf_time now)
{
	double waited = minutes_waited(j, now), c, v;
	struct sched_job_info info;

	if (!s->prm.priority) {
		c = 0.05 * (waited + (double)j->estimate * PER_MINUTE) + 1.0;
		return s->prm.alpha * (MAX_CRITICALITY / (c * c)) + waited;
	}
	sched_fill_info(s, j, &info);
	v = s->prm.priority(&info, now, s->prm.priority_arg);
	/* (below the jobs put first, which rank at +infinity) */
	return isnan(v) ? -INFINITY : v < DBL_MAX ? v : DBL_MAX;
}

/* How much more than its minutes waited a job's priority can be: the
 * bound that lets a walk stop early (none for a hook). */
static double most_boost(const struct sched *s)
{
	return s->prm.priority ? INFINITY : s->prm.alpha * MAX_CRITICALITY;
}

/* a before b in CREASY's order */
static bool before(const struct prio_item *a, const struct prio_item *b)
{
	return a->key > b->key || (a->key == b->key && a->seq < b->seq);
}

/* A job put first (sched_top) comes before any priority: jobs put first
 * are the front of the queue, the last put first at its head, and keep
 * that order among them as EASY does (*rank: their place, counted along
 * the queue from its head). */
static struct prio_item item(const struct sched *s, uint32_t slot, bf_time now, uint64_t *rank)
{
	const struct job *j = &s->jobs[slot];

	if (j->flags & JF_TOP)
		return (struct prio_item){ .key = INFINITY, .seq = (*rank)++, .slot = slot };
	return (struct prio_item){ .key = priority(s, j, now), .seq = j->seq, .slot = slot };
}

/* A job that has not waited long enough to pass the best so far even
 * with the most criticality costs no priority; in submit order none after
 * it has either, so the walk ends there: the first is among the oldest
 * (with alpha = 0, the oldest, at once). */
static uint32_t first_walked(struct sched *s, bf_time now, uint64_t *walked)
{
	struct prio_item best = { .slot = NONE };
	double boost = most_boost(s);
	bool in_submit_order = s->submit_inversions == 0;
	uint64_t rank = 0;

	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next) {
		const struct job *j = &s->jobs[i];
		struct prio_item x;

		(*walked)++;
		if (!may_start(s, j))
			continue;
		if (best.slot != NONE && !(j->flags & JF_TOP) &&
		    minutes_waited(j, now) + boost < best.key) {
			if (in_submit_order)
				break;
			continue;
		}
		x = item(s, i, now, &rank);
		if (best.slot == NONE || before(&x, &best))
			best = x;
	}
	return best.slot;
}

/* The job CREASY puts first now among those that may start as far as
 * their users go; NONE if there is none. */
static uint32_t creasy_first(struct sched *s, bf_time now)
{
	uint64_t walked = 0;

	return first_walked(s, now, &walked);
}

/* A max-heap of items in CREASY's order (the best at [0]). */
static void heap_sift(struct prio_item *h, uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		struct prio_item t;

		if (l < n && before(&h[l], &h[m]))
			m = l;
		if (r < n && before(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i], h[i] = h[m], h[m] = t;
		i = m;
	}
}

static void heap_make(struct prio_item *h, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		heap_sift(h, n, i);
}

/* The best of the heap's *n, taken out. */
static uint32_t heap_pop(struct prio_item *h, uint32_t *n)
{
	uint32_t slot = h[0].slot;

	h[0] = h[--*n];
	heap_sift(h, *n, 0);
	return slot;
}

/* The promise of the last head goes to the new one: the old head, still
 * waiting, is told it lost it. */
static void head_overtaken(struct sched *s, const struct job *head)
{
	uint32_t old;

	if (!s->has_last_head || s->last_head == head->id)
		return;
	old = idmap_get(&s->ids, s->last_head);
	if (old != IDMAP_NONE && s->jobs[old].state == SLOT_QUEUED &&
	    s->jobs[old].resv != BF_NEVER) {
		set_resv(s, &s->jobs[old], BF_NEVER);
		s->jobs[old].first_guarantee = BF_NEVER;	/* a new promise will be its first */
		s->st.replans++;
		s->st.broken++;
		/* (its user at the cap: another job is the head meanwhile) */
		sched_emit(s, SA_BROKEN, user_eligible(s, &s->jobs[old]) ? BROKEN_PRIORITY :
		           BROKEN_USER_CAP, s->last_head, BF_NEVER);
	}
	s->has_last_head = false;
}

/* Why the promised head may find its shadow later when it is next the
 * head: a job other than it started first (one of higher priority, or any
 * while its user is at the cap, when it is no candidate at all), or a
 * running job kept its nodes longer while a pass found no head to tell.
 * Kept until the head is known: a pass may end without one. */
static void note_passed(struct sched *s, uint8_t why)
{
	if (!s->head_passed || why != BROKEN_PRIORITY)
		s->head_passed_why = why;
	s->head_passed = true;
}

static uint8_t passed_why(const struct sched *s)
{
	uint32_t slot = idmap_get(&s->ids, s->last_head);

	return slot != IDMAP_NONE && !user_eligible(s, &s->jobs[slot]) ? BROKEN_USER_CAP :
	       BROKEN_PRIORITY;
}

/* The first job by priority starts (step 1 of a pass). */
static void start_first(struct sched *s, uint32_t slot, bf_time now)
{
	if (s->has_last_head && s->jobs[slot].id != s->last_head)
		note_passed(s, passed_why(s));
	sched_start_job(s, slot, now);
}

/* The rest of step 1 from a heap of every queued job that may start as far
 * as its user goes: the same jobs in the same order as first-by-first
 * (a start only makes jobs of its user wait), in O(Q + starts log Q). The
 * head, or NONE. */
static uint32_t start_by_heap(struct sched *s, bf_time now)
{
	uint32_t n = 0;
	uint64_t rank = 0;

	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next)
		if (may_start(s, &s->jobs[i]))
			s->order[n++] = item(s, i, now, &rank);
	heap_make(s->order, n);
	while (n) {
		uint32_t slot = heap_pop(s->order, &n);

		if (!may_start(s, &s->jobs[slot]))
			continue;
		if (s->jobs[slot].nodes > s->ns.nfree)
			return slot;
		start_first(s, slot, now);
	}
	return NONE;
}

static int creasy_pass(struct sched *s, bf_time now)
{
	uint32_t head, freen, kept = 0;
	uint64_t rank = 0, walked = 0;
	struct job *h;
	bf_time shadow;
	int64_t extra;

	/* 1. Start the first job by priority while it fits; the first that
	 * does not is the head. Each first is a walk that usually ends
	 * early; when the walks of a pass that starts many jobs have cost a
	 * whole queue, the rest go by a heap of the whole queue instead. */
	while ((head = first_walked(s, now, &walked)) != NONE &&
	       s->jobs[head].nodes <= s->ns.nfree) {
		start_first(s, head, now);
		if (walked > s->qlen) {
			head = start_by_heap(s, now);
			break;
		}
	}
	if (head == NONE) {
		if (s->has_last_head && s->hold_extended)
			note_passed(s, s->extend_why);
		return SCHED_OK;
	}
	/* 2. The head's shadow time and extra nodes; it takes the promise.
	 * A head still promised but passed by jobs that started before it
	 * may have lost the nodes it was promised: its promise moves later,
	 * and it is told. */
	h = &s->jobs[head];
	head_overtaken(s, h);
	shadow = easy_capped_shadow(s, h, now, &extra);
	if (s->head_passed && s->has_last_head && s->last_head == h->id &&
	    shadow > s->last_shadow) {
		set_resv(s, h, shadow);
		promise_broken(s, h, s->head_passed_why);
		s->last_shadow = shadow;
	}
	s->head_passed = false;
	easy_promise_head(s, h, shadow, now);
	/* 3. Backfill the rest in priority order, as EASY does in arrival
	 * order. Free nodes and extra nodes only shrink as jobs start, so a
	 * job that cannot start now will not later in the pass: only the
	 * others are ordered, in a heap (a pass usually starts few). */
	freen = s->ns.nfree;
	for (uint32_t i = s->qhead; i != NONE && freen > 0; i = s->jobs[i].next)
		if (i != head && easy_may_backfill(s, &s->jobs[i], shadow, extra, freen, now))
			s->order[kept++] = item(s, i, now, &rank);
	heap_make(s->order, kept);
	while (kept && freen > 0)
		easy_backfill(s, h, heap_pop(s->order, &kept), shadow, &extra, &freen, now);
	easy_check_head(s, h, shadow);
	return SCHED_OK;
}

static int by_priority(const void *pa, const void *pb)
{
	const struct prio_item *a = pa, *b = pb;

	return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

/* The queued jobs in CREASY's order at now (its forecast's order): out
 * has room for the queue; returns how many. */
static size_t creasy_snapshot(const struct sched *s, bf_time now, struct queue_snap *out)
{
	struct prio_item *it = malloc((s->qlen ? s->qlen : 1) * sizeof *it);
	uint64_t rank = 0;
	size_t n = 0;

	if (!it) {	/* (then queue order: still every job, a prediction) */
		for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next)
			out[n++] = (struct queue_snap){ i, s->jobs[i].seq };
		return n;
	}
	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next)
		it[n++] = item(s, i, now, &rank);
	qsort(it, n, sizeof *it, by_priority);
	for (size_t k = 0; k < n; k++)
		out[k] = (struct queue_snap){ it[k].slot, s->jobs[it[k].slot].seq };
	free(it);
	return n;
}

int sched_alpha_parse(const char *s, double *out)
{
	char *end;
	double a;

	errno = 0;
	a = strtod(s, &end);
	if (end == s || *end || errno || !sched_alpha_ok(a))
		return -1;
	*out = a;
	return 0;
}

int sched_set_alpha(struct sched *s, bf_time now, double alpha)
{
	int rc;

	if ((rc = sched_advance(s, now)) < 0)
		return rc;
	if (!sched_alpha_ok(alpha))
		return SCHED_E_INVAL;
	if (alpha != s->prm.alpha) {
		s->prm.alpha = alpha;
		s->dirty = true;	/* the order may change at the next pass */
	}
	return SCHED_OK;
}

/* A job put first comes before any priority: it takes the head's promise
 * from the next pass, also if it was first in the queue already (there
 * the queue does not change, but where priority orders it, being put
 * first does). */
static void creasy_top(struct sched *s, uint32_t slot, bf_time now, bool moved)
{
	(void)now;
	(void)moved;
	easy_top_takes_promise(s, slot);
	s->dirty = true;
}

/* The policy becomes CREASY: the head promised is the first by priority. */
static void creasy_adopt(struct sched *s, bf_time now, const struct sched_policy_ops *from)
{
	uint32_t slot = creasy_first(s, now);

	easy_adopt(s, now, slot == NONE ? NULL : &s->jobs[slot], from);
}

const struct sched_policy_ops creasy_policy = {
	.name = "creasy",
	.pass = creasy_pass,
	.top = creasy_top,
	.cap_lowered = easy_cap_lowered,
	.order = creasy_snapshot,
	.adopt = creasy_adopt,
};
