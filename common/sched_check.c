/* The full invariant check behind replay --check and the tests. It costs
 * O(nodes + jobs), so the drivers call it only when asked; the cheap checks
 * made at every start are counted in s->violations and reported here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "errf.h"
#include "sched_internal.h"

/* An instant for a message, in seconds ("never" for BF_NEVER). A struct,
 * so that several fit in one call (each lives to the end of the call). */
struct secs {
	char s[40];
};

static struct secs secs(bf_time t)
{
	struct secs o;

	if (t == BF_NEVER)
		snprintf(o.s, sizeof o.s, "never");
	else if (t % BF_SEC == 0)
		snprintf(o.s, sizeof o.s, "%lld s", (long long)(t / BF_SEC));
	else
		snprintf(o.s, sizeof o.s, "%.6f s", (double)t / BF_SEC);
	return o;
}

static int check_nodes(const struct sched *s, char *buf, size_t len)
{
	const struct nodeset *ns = &s->ns;
	uint32_t nfree = 0, held = 0, down_idle = 0, running = 0;

	for (uint32_t i = 0; i < ns->n; i++) {
		bool f = nodeset_is_free(ns, i);

		nfree += f;
		down_idle += ns->down[i] && ns->owner[i] == NODESET_NONE;
		if (f && (ns->owner[i] != NODESET_NONE || ns->down[i]))
			return errf(buf, len, "node %u is free but held or down", i);
	}
	if (nfree != ns->nfree)
		return errf(buf, len, "free count %u, but %u nodes are free", ns->nfree, nfree);
	for (uint32_t slot = 0; slot < s->jobs_used; slot++) {
		const struct job *j = &s->jobs[slot];
		uint32_t k = 0;

		if (j->state != SLOT_RUNNING)
			continue;
		running++;
		for (uint32_t i = j->first_node; i != NODESET_NONE; i = ns->next[i], k++) {
			/* Each node has one owner, so a node on two lists shows
			 * up here as a wrong owner. */
			if (ns->owner[i] != slot)
				return errf(buf, len, "node %u is on job %llu's list but held by another",
				            i, (unsigned long long)j->id);
			if (k > j->nodes)
				break;
		}
		if (k != j->nodes)
			return errf(buf, len, "job %llu holds %u nodes, needs %u",
			            (unsigned long long)j->id, k, j->nodes);
		held += k;
	}
	if (running != s->nrunning)
		return errf(buf, len, "%u running jobs, counted %u", running, s->nrunning);
	if (held + nfree + down_idle != ns->n)
		return errf(buf, len, "held %u + free %u + down %u != %u nodes",
		            held, nfree, down_idle, ns->n);
	return 0;
}

/* The queue's count of jobs submitted after the next (CREASY's early
 * stop relies on it). */
static int check_queue(const struct sched *s, char *buf, size_t len)
{
	uint32_t inv = 0;

	for (uint32_t i = s->qhead; i != NONE && s->jobs[i].next != NONE; i = s->jobs[i].next)
		inv += s->jobs[i].submit > s->jobs[s->jobs[i].next].submit;
	if (inv != s->submit_inversions)
		return errf(buf, len, "queue: %u jobs submitted after the next, counted %u", inv,
		            s->submit_inversions);
	return 0;
}

static int check_plan(const struct sched *s, bf_time now, char *buf, size_t len)
{
	int64_t plan_free = profile_free_at(&s->prof, now), due = 0, overdue = 0;

	for (uint32_t slot = 0; slot < s->jobs_used; slot++) {
		const struct job *j = &s->jobs[slot];

		if (j->state == SLOT_RUNNING && j->start + j->hold <= now) {
			for (uint32_t i = j->first_node; i != NODESET_NONE; i = s->ns.next[i])
				overdue += !s->ns.down[i];
		} else if (j->state == SLOT_QUEUED) {
			if (j->submit > now)
				return errf(buf, len, "job %llu queued before it arrived",
				            (unsigned long long)j->id);
			if ((j->flags & JF_RESERVED) && j->resv <= now)
				due += j->nodes;
			if (s->pol->reserves && j->resv > j->first_guarantee)
				return errf(buf, len, "job %llu: guarantee %s later than first %s",
				            (unsigned long long)j->id, secs(j->resv).s,
				            secs(j->first_guarantee).s);
		}
	}
	/* The plan counts as free now what the node set has free, less what
	 * due jobs reserved, plus what jobs past their planned end still hold. */
	if (plan_free != (int64_t)s->ns.nfree - due + overdue)
		return errf(buf, len, "plan says %lld free now, node set %u (due %lld, overdue %lld)",
		            (long long)plan_free, s->ns.nfree, (long long)due, (long long)overdue);
	/* (A repair under way takes back what is over capacity, a slice a
	 * call: see cons_repair.) */
	if (profile_first_below(&s->prof, 0, now, BF_NEVER) != BF_NEVER && s->ns.ndown == 0 &&
	    !s->repair.active)
		return errf(buf, len, "plan has fewer than 0 free nodes at %lld",
		            (long long)profile_first_below(&s->prof, 0, now, BF_NEVER));
	return 0;
}

/* Each interval the plan holds: the running jobs' holds, the nodes down
 * (to the end of time), and with `reserved` the queued jobs' reservations. */
static void plan_holds(const struct sched *s, bool reserved,
                       void (*hold)(void *arg, bf_time t, int64_t n, bf_time d), void *arg)
{
	for (uint32_t slot = 0; slot < s->jobs_used; slot++) {
		const struct job *j = &s->jobs[slot];

		if (j->state == SLOT_RUNNING)
			hold(arg, j->start, j->nodes, j->hold);
		else if (j->state == SLOT_QUEUED && reserved && (j->flags & JF_RESERVED))
			hold(arg, j->resv, j->nodes, j->hold);
	}
	for (uint32_t i = 0; i < s->ns.n; i++)
		if (s->down_since[i] != BF_NEVER)
			hold(arg, s->down_since[i], 1, BF_NEVER - s->down_since[i]);
}

static void reserve_hold(void *p, bf_time t, int64_t n, bf_time d)
{
	profile_reserve(p, t, n, d);
}

void plan_fill(const struct sched *s, struct profile *p, bool reserved)
{
	plan_holds(s, reserved, reserve_hold, p);
}

struct step {
	bf_time key;
	int64_t delta;
};

struct steps {
	struct step *v;
	size_t m;
};

static int by_key(const void *a, const void *b)
{
	bf_time x = ((const struct step *)a)->key, y = ((const struct step *)b)->key;

	return (x > y) - (x < y);
}

static void step_hold(void *arg, bf_time t, int64_t n, bf_time d)
{
	struct steps *st = arg;

	st->v[st->m++] = (struct step){ t, -n };
	st->v[st->m++] = (struct step){ t + d, n };
}

/* The plan holds what the jobs and nodes say it holds (plan_holds), no
 * more: their steps, sorted and summed by instant, are the plan's
 * breakpoints, one for one (a plan keeps no step of zero). O(B log B) with
 * a sort, not a plan built anew. */
static int check_plan_whole(const struct sched *s, char *buf, size_t len)
{
	struct steps all = { .v = malloc((2 * (size_t)s->jobs_used + 2 * s->ns.n + 1) *
	                                 sizeof *all.v), .m = 0 };
	struct step *v = all.v;
	size_t m, k = 0;
	uint32_t at = 0;
	int rc = 0;

	if (!v)
		return 0;	/* no memory to check with: nothing found */
	plan_holds(s, true, step_hold, &all);
	m = all.m;
	qsort(v, m, sizeof *v, by_key);
	for (size_t q = 0; q < m;) {	/* summed by instant, zeros dropped */
		struct step st = v[q++];

		while (q < m && v[q].key == st.key)
			st.delta += v[q++].delta;
		if (st.delta)
			v[k++] = st;
	}
	for (size_t q = 0; rc == 0 && q <= k; q++) {
		bf_time key = BF_NEVER, t = q < k ? v[q].key : BF_NEVER;
		int64_t delta = 0;
		bool more = profile_step(&s->prof, &at, &key, &delta);

		if (!more && q == k)
			break;
		if (!more || q == k || key != v[q].key || delta != v[q].delta)
			rc = errf(buf, len, "plan has %lld free at %lld, its jobs and nodes hold "
			          "otherwise", (long long)profile_free_at(&s->prof, key < t ? key : t),
			          (long long)(key < t ? key : t));
	}
	free(v);
	return rc;
}

/* A running job past the end of its hold (killed, late to die): it holds
 * nodes the plan counts free, so a job due may wait for it. */
static bool any_overdue(const struct sched *s, bf_time now)
{
	for (uint32_t slot = 0; slot < s->jobs_used; slot++)
		if (s->jobs[slot].state == SLOT_RUNNING &&
		    s->jobs[slot].start + s->jobs[slot].hold <= now)
			return true;
	return false;
}

/* The job holding nodes at t that started last, backfilled (NULL: none):
 * the one that took the head's nodes, when they are short at its shadow. */
static const struct job *backfilled_at(const struct sched *s, bf_time t)
{
	const struct job *last = NULL;

	for (uint32_t slot = 0; slot < s->jobs_used; slot++) {
		const struct job *j = &s->jobs[slot];

		if (j->state == SLOT_RUNNING && (j->flags & JF_BACKFILLED) && j->start <= t &&
		    t < j->start + j->hold && (!last || j->start > last->start))
			last = j;
	}
	return last;
}

/* EASY, FCFS, CREASY: the job promised the head's shadow, while it waits,
 * has that promise, never later than the first made to it (but for a
 * cause told: it is then its first), and its nodes are free in the plan
 * (the running jobs' holds) at it: no job backfilled ahead of it holds
 * them then. A cause that moves the promise and is told at the next pass
 * (a hold grew, a node out, jobs passed it by priority) defers the check
 * of its nodes to that pass. */
static int check_head(const struct sched *s, bf_time now, char *buf, size_t len)
{
	const struct job *h, *b;
	uint32_t slot;
	bf_time at;
	int64_t f;

	if (s->pol->reserves || !s->has_last_head ||
	    (slot = idmap_get(&s->ids, s->last_head)) == IDMAP_NONE ||
	    s->jobs[slot].state != SLOT_QUEUED)
		return 0;
	h = &s->jobs[slot];
	if (h->resv != s->last_shadow)
		return errf(buf, len, "head job %llu: promised %s, its pass said %s",
		            (unsigned long long)h->id, secs(h->resv).s, secs(s->last_shadow).s);
	if (h->resv == BF_NEVER)
		return 0;
	if (h->first_guarantee != BF_NEVER && h->first_guarantee >= now &&
	    h->resv > h->first_guarantee)
		return errf(buf, len, "head job %llu: promised %s, later than its promise %s "
		            "with no cause told", (unsigned long long)h->id, secs(h->resv).s,
		            secs(h->first_guarantee).s);
	if (s->hold_extended || s->ns.ndown || s->head_passed)
		return 0;
	at = h->resv > now ? h->resv : now;
	if ((f = profile_free_at(&s->prof, at)) >= (int64_t)h->nodes)
		return 0;
	if ((b = backfilled_at(s, at)))
		return errf(buf, len, "head job %llu (%u nodes) promised %s: %lld nodes free then; "
		            "job %llu, backfilled at %s (%u nodes until %s), delays it",
		            (unsigned long long)h->id, h->nodes, secs(h->resv).s, (long long)f,
		            (unsigned long long)b->id, secs(b->start).s, b->nodes,
		            secs(b->start + b->hold).s);
	return errf(buf, len, "head job %llu (%u nodes) promised %s: %lld nodes free then",
	            (unsigned long long)h->id, h->nodes, secs(h->resv).s, (long long)f);
}

/* Conservative: after a pass (none since the last event, and not one
 * half made while jobs wait for a place), no job whose reservation has
 * come is still queued, unless it may not start yet (its driver's word,
 * a predecessor, its user's cap) or waits for nodes a job late to die
 * still holds. */
static int check_due(const struct sched *s, bf_time now, char *buf, size_t len)
{
	if (!s->pol->reserves || s->last_pass != now || s->dirty || s->placing)
		return 0;
	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next) {
		const struct job *j = &s->jobs[i];

		if (!(j->flags & JF_RESERVED) || j->resv > now || !may_start(s, j))
			continue;
		if ((j->flags & JF_WAITED) && any_overdue(s, now))
			continue;
		return errf(buf, len, "job %llu: reserved at %s, still queued after the pass at %s",
		            (unsigned long long)j->id, secs(j->resv).s, secs(now).s);
	}
	return 0;
}

int sched_check(const struct sched *s, bf_time now, char *buf, size_t len)
{
	if (s->violations)
		return errf(buf, len, "%s (%llu violations)", s->violation,
		            (unsigned long long)s->violations);
	if (s->pol != sched_policy_ops(s->prm.policy))
		return errf(buf, len, "policy %s run by the functions of %s",
		            sched_policy_name(s->prm.policy), s->pol->name);
	if (check_nodes(s, buf, len) < 0 || check_plan(s, now, buf, len) < 0 ||
	    check_queue(s, buf, len) < 0 || check_head(s, now, buf, len) < 0 ||
	    check_due(s, now, buf, len) < 0 ||
	    check_plan_whole(s, buf, len) < 0 ||
	    (user_cap(s) && user_check(s, buf, len) < 0) || runs_check(s, buf, len) < 0 ||
	    deps_check(s, buf, len) < 0)
		return -1;
	return 0;
}

/* ---- the watch: promises seen (sched.h) ---- */

struct sched_watch {
	bf_time *promise;	/* by id: the last seen, BF_NEVER if none */
	size_t cap;
};

struct sched_watch *sched_watch_new(void)
{
	return calloc(1, sizeof(struct sched_watch));
}

void sched_watch_free(struct sched_watch *w)
{
	if (w)
		free(w->promise);
	free(w);
}

/* The slot of id in the table, grown to hold it; NULL if it is not
 * watched (too large, or no memory). */
static bf_time *seen(struct sched_watch *w, uint64_t id)
{
	if (id >= SCHED_WATCH_MAX_ID)
		return NULL;
	if (id >= w->cap) {
		size_t ncap = w->cap ? w->cap : 64;
		bf_time *np;

		while (ncap <= id)
			ncap *= 2;
		if (!(np = realloc(w->promise, ncap * sizeof *np)))
			return NULL;
		for (size_t i = w->cap; i < ncap; i++)
			np[i] = BF_NEVER;
		w->promise = np;
		w->cap = ncap;
	}
	return &w->promise[id];
}

int sched_watch(struct sched_watch *w, const struct sched *s, bf_time now, bool after_pass,
                char *buf, size_t len)
{
	bool late = any_overdue(s, now) || s->ns.ndown;
	const struct sched_action *a = s->acts;
	bf_time *p;

	/* Told first: a broken promise is the job's new one; a start keeps
	 * the last. */
	for (size_t i = 0; i < s->nacts; i++) {
		if (!(p = seen(w, a[i].job)))
			continue;
		if (a[i].kind == SA_BROKEN) {
			*p = a[i].t;
		} else if (a[i].kind == SA_START) {
			if (*p != BF_NEVER && a[i].t > *p)
				return errf(buf, len, "job %llu started at %s, after its promised start %s",
				            (unsigned long long)a[i].job, secs(a[i].t).s, secs(*p).s);
			*p = BF_NEVER;
		}
	}
	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next) {
		const struct job *j = &s->jobs[i];
		bf_time was;

		if (!(p = seen(w, j->id)))
			continue;
		was = *p;
		*p = j->resv;
		/* (A promise already past, of a head that waits for a job
		 * late to die: its new one is told when that job's hold is
		 * over.) */
		if (was != BF_NEVER && j->resv > was && !(late && was < now))
			return errf(buf, len, "job %llu: promised start moved later, %s -> %s, with "
			            "no cause told", (unsigned long long)j->id, secs(was).s,
			            secs(j->resv).s);
		if (j->resv != BF_NEVER && (j->resv < now || (after_pass && j->resv == now)) &&
		    may_start(s, j) && !late && !s->placing)
			return errf(buf, len, "job %llu: promised start %s has come (now %s), still "
			            "queued%s", (unsigned long long)j->id, secs(j->resv).s, secs(now).s,
			            after_pass ? " after the pass" : "");
	}
	return 0;
}
