/* What an operator's reload changes in a live scheduler: the policy, and
 * the size of the partition (see sched.h). Both are rare, so they may
 * visit every queued job; neither costs the ordinary paths anything. */
#include <stdlib.h>
#include "sched_internal.h"

/* A promise moved later by a change of policy, told with its cause. The
 * policy itself moves no promise it keeps (see sched.h): the plan changed
 * since the last pass, by a hold that grew, a lost node (EASY and FCFS
 * only: conservative repairs at once), or a promise that passed before a
 * pass could keep it. Anything else is a fault of the core: still told,
 * and counted as a violation. */
void reload_moved(struct sched *s, struct job *j, bf_time was, bool node_lost_counts)
{
	uint8_t why = BROKEN_POLICY;

	if (s->hold_extended)
		why = s->extend_why;
	else if (node_lost_counts && s->ns.ndown)
		why = s->out_why;
	else if (was < s->now)
		why = BROKEN_LATE;
	else
		sched_violation(s, "job %llu: a change of policy moved its promise later, %lld -> %lld",
		                (unsigned long long)j->id, (long long)was, (long long)j->resv);
	promise_broken(s, j, why);
}

int sched_set_policy(struct sched *s, bf_time now, enum sched_policy p)
{
	const struct sched_policy_ops *from = s->pol, *to = sched_policy_ops(p);
	int rc;

	if ((rc = sched_advance(s, now)) < 0)
		return rc;
	if (!to)
		return SCHED_E_INVAL;
	if (to == from)
		return SCHED_OK;
	/* An announcement per queued job at most, and to conservative a
	 * reservation each: room for all of them first, so nothing fails
	 * halfway. (Leaving conservative, the plan is made anew without the
	 * reservations: see cons_drop.) */
	if (sched_need_actions(s, s->qlen) < 0 ||
	    (to->adopt_room && to->adopt_room(s) < 0) ||
	    (from->drop_room && from->drop_room(s) < 0))
		return SCHED_E_NOMEM;
	if (from->drop)
		from->drop(s);
	s->prm.policy = p;
	s->pol = to;
	to->adopt(s, now, from);
	s->dirty = true;
	return SCHED_OK;
}

int sched_add_nodes(struct sched *s, bf_time now, uint32_t count)
{
	uint32_t n = s->prm.nodes;
	bf_time *down_since;
	int rc;

	if ((rc = sched_advance(s, now)) < 0)
		return rc;
	if (count > SCHED_MAX_NODES - n)
		return SCHED_E_INVAL;
	if (count == 0)
		return SCHED_OK;
	/* A larger array is harmless if the node set cannot grow after it. */
	down_since = realloc(s->down_since, (size_t)(n + count) * sizeof *down_since);
	if (!down_since)
		return SCHED_E_NOMEM;
	s->down_since = down_since;
	if (nodeset_grow(&s->ns, n + count) < 0)
		return SCHED_E_NOMEM;
	for (uint32_t i = n; i < n + count; i++)
		down_since[i] = BF_NEVER;
	/* Free from now on; before now nobody asks the plan. */
	profile_add_capacity(&s->prof, count);
	s->prm.nodes = n + count;
	/* As for a node back up: conservative compresses into [now, forever)
	 * before the next arrival or pass; EASY and FCFS look at the next. */
	s->need_compress = true;
	if (s->pol->freed)
		s->pol->freed(s, now, BF_NEVER);
	s->dirty = true;
	return SCHED_OK;
}
