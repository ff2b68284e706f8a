/* Why a queued job is not running yet, for bq -l (issue: LSF's pending
 * reasons). The first that applies, most specific first. */
#include <stdio.h>
#include "sched.h"
#include "sys/store.h"
#include "arrays.h"
#include "daemon.h"
#include "depend.h"
#include "depstate.h"
#include "pending.h"

const char *pending_reason(struct daemon *d, const struct djob *j, bf_time guarantee, char *buf,
                           size_t len)
{
	const struct sched_params *prm = sched_get_params(d->sched);
	struct sched_job_info info;
	const struct darray *arr;
	uint32_t out = 0, running = 0;

	if (j->rec.state != ST_QUEUED)
		return NULL;
	if (j->rec.held) {
		snprintf(buf, len, "held (bresume %llu releases it)", (unsigned long long)j->rec.id);
		return buf;
	}
	/* An element behind the cap of its array (an order edge the core
	 * still has, beside those of its condition). */
	arr = j->rec.array_id ? arrays_get(d, j->rec.array_id) : NULL;
	if (arr && arr->cap && sched_job_info(d->sched, j->rec.id, &info) == 0 &&
	    info.preds > (j->dep && j->dep->waiting ? j->dep->nids : 0)) {
		snprintf(buf, len, "at most %u element%s of its array run%s at once (%%%u): it "
		         "waits for an earlier one to end", arr->cap, arr->cap == 1 ? "" : "s",
		         arr->cap == 1 ? "s" : "", arr->cap);
		return buf;
	}
	if (j->dep && j->dep->waiting) {
		size_t n = (size_t)snprintf(buf, len, "waiting for its dependency: ");

		if (n < len)
			depend_pending(d, j, buf + n, len - n);
		return buf;
	}
	for (uint32_t k = 0; k < d->nnodes; k++)
		out += d->nadmin[k].state != NA_UP;
	if (out && j->rec.nodes > d->nnodes - out) {
		snprintf(buf, len, "nodes drained or down: %u of the partition's %u nodes are in "
		         "service, it needs %u", d->nnodes - out, d->nnodes, j->rec.nodes);
		return buf;
	}
	if (prm->max_running_per_user) {
		for (uint32_t k = 0; k < d->njobs; k++)
			running += d->jobs[k]->rec.state == ST_RUNNING &&
			           d->jobs[k]->rec.uid == j->rec.uid;
		if (running >= prm->max_running_per_user) {
			snprintf(buf, len, "over a user cap: its user runs %u job%s, the most at once "
			         "(max_running_per_user)", running, running == 1 ? "" : "s");
			return buf;
		}
	}
	if (prm->policy == SCHED_CONSERVATIVE && guarantee != BF_NEVER)
		snprintf(buf, len, "waiting for its guaranteed start");
	else if (guarantee != BF_NEVER)
		snprintf(buf, len, "waiting for nodes (first in the queue%s: its start is reserved)",
		         prm->policy == SCHED_CREASY ? " by priority" : "");
	else if (out)
		snprintf(buf, len, "waiting for nodes (%u drained or down)", out);
	else if (prm->policy == SCHED_CREASY)
		snprintf(buf, len, "waiting for nodes, behind jobs of higher priority (creasy: "
		         "criticality and time waited)");
	else
		snprintf(buf, len, "waiting for nodes, behind the jobs queued before it");
	return buf;
}
