/* A job array's own line for bq; see arrayline.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "proto.h"
#include "sys/store.h"
#include "arrayline.h"
#include "arrays.h"
#include "daemon.h"
#include "jobs.h"

/* "80 queued, 10 running, 10 done": each state with any, queued (and
 * held) first, then running, then the ends in bq(1)'s order. */
static void counts_text(const uint32_t live[ST_NSTATES], uint32_t held,
                        const uint32_t ended[ST_NSTATES], char *buf, size_t len)
{
	static const enum store_state order[] = { ST_QUEUED, ST_RUNNING, ST_DONE, ST_EXIT,
	                                          ST_KILLED, ST_CANCELLED, ST_FAILED };
	size_t n = 0;

	buf[0] = 0;
	for (size_t k = 0; k < sizeof order / sizeof *order && n < len; k++) {
		uint32_t c = live[order[k]] + ended[order[k]];

		if (c)
			n += (size_t)snprintf(buf + n, len - n, "%s%u %s", n ? ", " : "", c,
			                      store_state_name(order[k]));
		if (order[k] == ST_QUEUED && held && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%u held", n ? ", " : "", held);
	}
}

static void name_text(const char *name, const char *spec, char *buf, size_t len)
{
	snprintf(buf, len, "%.511s%.80s", name ? name : "", spec ? spec : "");
}

void arrayline_live(struct daemon *d, const struct darray *a, struct proto_job *pj,
                    struct arrayline_buf *b)
{
	uint32_t live[ST_NSTATES] = { 0 }, held = 0;
	const struct store_job *first = NULL;
	bf_time start = BF_NEVER;
	enum proto_start_kind kind = PS_NONE;

	for (uint32_t k = 0; k < a->count; k++) {
		struct djob *j = jobs_get(d, a->id + k);

		if (!j || !store_state_live(j->rec.state))
			continue;
		if (!first)
			first = &j->rec;
		if (j->rec.held)
			held++;
		else
			live[j->rec.state]++;
		if (j->rec.start != BF_NEVER && (kind != PS_ACTUAL || j->rec.start < start)) {
			kind = PS_ACTUAL;
			start = j->rec.start;
		} else if (kind != PS_ACTUAL && j->rec.guarantee != BF_NEVER &&
		           j->rec.guarantee < start) {
			kind = PS_GUARANTEED;
			start = j->rec.guarantee;
		}
	}
	counts_text(live, held, a->ended, b->counts, sizeof b->counts);
	name_text(a->name, a->spec, b->name, sizeof b->name);
	*pj = (struct proto_job){ .id = a->id, .uid = a->uid, .name = b->name, .state = "array",
	                          .array_counts = b->counts, .start_kind = kind,
	                          .start = kind == PS_NONE ? 0 : start,
	                          .first_guarantee = BF_NEVER };
	if (first) {
		snprintf(b->user, sizeof b->user, "%s", first->user ? first->user : "");
		pj->user = first->user ? b->user : NULL;
		pj->nodes = first->nodes;
		pj->estimate = first->estimate;
		pj->submit = first->submit;
		if (kind != PS_NONE)
			pj->end = start + first->estimate;
	}
}

struct stored {
	struct proto_job *pj;
	struct arrayline_buf *b;
	bool found;
};

static int visit_row(const struct store_array *a, void *arg)
{
	struct stored *s = arg;

	name_text(a->name, a->spec, s->b->name, sizeof s->b->name);
	s->found = true;
	return 0;
}

static int visit_first(const struct store_job *r, void *arg)
{
	struct stored *s = arg;

	snprintf(s->b->user, sizeof s->b->user, "%s", r->user ? r->user : "");
	s->pj->user = r->user ? s->b->user : NULL;
	s->pj->uid = r->uid;
	s->pj->nodes = r->nodes;
	s->pj->estimate = r->estimate;
	s->pj->submit = r->submit;
	s->pj->start = r->start;
	return 1;
}

int arrayline_stored(struct daemon *d, uint64_t id, struct proto_job *pj,
                     struct arrayline_buf *b)
{
	uint32_t counts[ST_NSTATES], none[ST_NSTATES] = { 0 };
	struct stored s = { pj, b, false };
	bool all_done;

	*pj = (struct proto_job){ .id = id, .name = b->name, .first_guarantee = BF_NEVER,
	                          .start = BF_NEVER };
	if (store_get_array(d->store, id, visit_row, &s) < 0 ||
	    store_array_counts(d->store, id, counts) < 0 ||
	    (s.found && store_get_job(d->store, id, visit_first, &s) < 0))
		return -1;
	if (!s.found)
		return 0;
	counts_text(none, 0, counts, b->counts, sizeof b->counts);
	all_done = true;
	for (int k = 0; k < ST_NSTATES; k++)
		all_done &= k == ST_DONE || counts[k] == 0;
	pj->array_counts = b->counts;
	/* Started if any element did (bsub -K tells an array that never
	 * ran from one that did); the first's start, or its submission. */
	if (counts[ST_DONE] + counts[ST_EXIT] + counts[ST_KILLED] > 0 || pj->start != BF_NEVER) {
		pj->start_kind = PS_ACTUAL;
		if (pj->start == BF_NEVER || pj->start == 0)
			pj->start = pj->submit;
	} else {
		pj->start = 0;
	}
	pj->state = all_done ? "done" : "exit";
	pj->has_exit = true;
	pj->exit_status = all_done ? 0 : W_EXITCODE(1, 0);
	return 1;
}
