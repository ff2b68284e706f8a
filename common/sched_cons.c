/* Conservative backfilling, as in SCHEDULING.md: every job gets a
 * reservation when it arrives (its guaranteed start); when a hole opens the
 * plan is compressed (each queued job, in arrival order, re-anchored no
 * later than before), never re-planned from scratch.
 *
 * Bounding the search. A job whose place was the earliest possible when it
 * was last looked at ("settled" at some epoch) can move earlier only into a
 * window that contains an instant that gained free nodes since: otherwise
 * that window was free enough before. Every gain (an early end, a cancel, a
 * job moving out of its old place, a node back up) is logged with a new
 * epoch and the region it freed. A new place for a job reserved at r spans
 * [t, min(t + hold, r)), so it can use a freed region only if the region
 * starts before r, and then t lies before the region's end. So the job is
 * skipped when every region freed since it settled starts at or after r,
 * and otherwise its search stops at the latest end logged since, instead of
 * walking every hole up to its reservation: per job O(log) for the log plus
 * the holes before that end, not the holes of the whole plan. Likewise a
 * window [t, t + hold) must reach the earliest start logged since, so the
 * search starts at that start minus the hold, not at now.
 *
 * With a cap per user, a place must also leave the job's user below the cap
 * over the whole hold, in the user's own plan (see sched_user.c). That plan
 * changes only with the job intervals the node plan changes with (and a cap
 * raised logs all of the future), so every gain of room for a user is in
 * the freed log too, and the bound above holds for both plans together.
 *
 * The policy's table, cons_policy (see sched_policy.h), is at the end. */
#include <stdlib.h>
#include "sched_internal.h"

/* The earliest t in [from, before) where the job's nodes are free over
 * [t, min(t + hold, clip)) (see profile_anchor_before) and, with a cap, its
 * user has a free slot over the same window; BF_NEVER if there is none.
 * Each plan's own search gives the earliest start it allows from a given
 * instant, so alternating them climbs to the earliest both allow; each
 * round passes a breakpoint of one of them. */
bf_time cons_anchor(const struct sched *s, const struct job *j, bf_time from, bf_time before,
                    bf_time clip)
{
	bf_time t = profile_anchor_before(&s->prof, j->nodes, j->hold, from, before, clip);
	const struct profile *up;

	if (!user_cap(s) || t == BF_NEVER)
		return t;
	up = &user_of(s, j)->plan;
	for (;;) {
		bf_time u = profile_anchor_before(up, 1, j->hold, t, before, clip);

		if (u == t || u == BF_NEVER)
			return u;
		t = profile_anchor_before(&s->prof, j->nodes, j->hold, u, before, clip);
		if (t == u || t == BF_NEVER)
			return t;
	}
}

/* Log that the plan gained free nodes over [start, end) (its freed). */
static void cons_freed(struct sched *s, bf_time start, bf_time end)
{
	/* Freed while a pass is cut into slices: the jobs it passed already
	 * get another pass (a replay's passes are never open at an event). */
	if (s->pass_open)
		s->pass_moved = true;
	s->epoch++;
	xlog_add(&s->freed_start, s->epoch, start);
	xlog_add(&s->freed_end, s->epoch, end);
}

static void ready_push(struct sched *s, uint32_t slot)
{
	/* The ready array is as large as the job table: no allocation here. */
	if (!(s->jobs[slot].flags & JF_READY)) {
		s->jobs[slot].flags |= JF_READY;
		s->ready[s->ready_len++] = slot;
	}
}

static void ready_remove(struct sched *s, uint32_t slot)
{
	if (!(s->jobs[slot].flags & JF_READY))
		return;
	s->jobs[slot].flags &= ~JF_READY;
	for (uint32_t k = 0; k < s->ready_len; k++) {
		if (s->ready[k] == slot) {
			s->ready[k] = s->ready[--s->ready_len];
			return;
		}
	}
}

/* Reserve for a job that has no reservation, at the earliest from `from`
 * (>= now) where it fits, the caller knowing it fits nowhere before; false
 * if it cannot be placed at all (more nodes than are up). */
static bool place_from(struct sched *s, uint32_t slot, bf_time now, bf_time from)
{
	struct job *j = &s->jobs[slot];
	bf_time a, b = deps_bound(s, j);

	/* No earlier than its predecessors allow; none while one of them has
	 * no place (it is placed when that one is: compression places what
	 * has none, in queue order, predecessors first). */
	j->flags &= (uint16_t)~JF_DEPMOVED;
	if (b == BF_NEVER) {
		set_resv(s, j, BF_NEVER);
		j->flags &= (uint16_t)~(JF_EVICTED | JF_WAITED);
		s->need_compress = true;
		return false;
	}
	a = cons_anchor(s, j, b > from ? b : from, BF_NEVER, BF_NEVER);

	if (a == BF_NEVER) {
		set_resv(s, j, BF_NEVER);
		return false;
	}
	plan_reserve(s, j, a, j->hold);
	set_resv(s, j, a);
	j->settled = s->epoch;
	j->flags = (uint16_t)((j->flags | JF_RESERVED) & ~(JF_EVICTED | JF_WAITED));
	if (j->first_guarantee == BF_NEVER)
		j->first_guarantee = a;
	if (a <= now)
		ready_push(s, slot);
	else if (a < s->next_due)
		s->next_due = a;
	return true;
}

/* Reserve for a job that has no reservation, from `now`. */
static bool place(struct sched *s, uint32_t slot, bf_time now)
{
	return place_from(s, slot, now, now);
}

/* A job without a reservation joins the plan: at once, or while jobs
 * before it wait for a place (see cons_replace), after them; why: the
 * cause told if that is later than it was promised (a new job has no
 * promise yet). Room was prepared by the caller. */
static void cons_arrive(struct sched *s, uint32_t slot, bf_time now, enum sched_broken_why why)
{
	if (!s->placing) {
		place(s, slot, now);
		return;
	}
	s->jobs[slot].flags |= JF_EVICTED;
	s->jobs[slot].why = (uint8_t)why;
	if (s->qtail != slot)
		s->place_cursor = s->qhead;	/* not at the tail: it may be behind */
}

/* A reserved job's place is settled for this pass: due now, or note when. */
static void settle(struct sched *s, uint32_t slot, bf_time now, bf_time *due)
{
	if (s->jobs[slot].resv <= now)
		ready_push(s, slot);
	else if (s->jobs[slot].resv < *due)
		*due = s->jobs[slot].resv;
}

/* A queued job back after a restart, in arrival order after the running
 * jobs and the jobs before it: it keeps its promised start if that is still
 * ahead and its nodes are free there, as they were when it was promised;
 * otherwise it is placed from now, and told if that is later than promised
 * (a promise that passed while the daemon was down is kept by starting
 * now). Room was prepared by the caller. */
static void cons_restore(struct sched *s, uint32_t slot, bf_time now, bf_time promised)
{
	struct job *j = &s->jobs[slot];
	bool nodes_fit = promised != BF_NEVER && promised >= now &&
		promised >= deps_bound(s, j) &&
		profile_first_below(&s->prof, j->nodes, promised, promised + j->hold) == BF_NEVER;
	bf_time late;

	if (nodes_fit && (!user_cap(s) || user_fits(s, j, promised))) {
		j->first_guarantee = promised;
		plan_reserve(s, j, promised, j->hold);
		set_resv(s, j, promised);
		j->settled = 0;		/* not known to be the earliest: compression looks */
		/* (where the driver says the acknowledged plan had room that
		 * this one has not: sched_restore_freed) */
		j->flags |= JF_RESERVED;
		if (promised <= now)
			ready_push(s, slot);
		else if (promised < s->next_due)
			s->next_due = promised;
	} else {
		j->first_guarantee = promised;
		place(s, slot, now);
		s->st.replans++;
		late = promised > now ? promised : now;
		if (j->resv > late) {
			s->st.broken++;
			/* The plan was rebuilt as it was acknowledged (running
			 * holds and promises as stored), so what no longer fits
			 * is what came due while the driver was not running. */
			sched_emit(s, SA_BROKEN, nodes_fit ? BROKEN_USER_CAP : BROKEN_LATE,
			           j->id, j->resv);
		}
		if (j->resv > promised || promised == BF_NEVER)
			j->first_guarantee = j->resv;	/* the promise from now on */
	}
	s->need_compress = true;	/* the restored plan may have room to close */
}

/* Forget what was freed at epochs <= oldest: no job settled before. */
static void freed_forget(struct sched *s, uint64_t oldest)
{
	xlog_forget(&s->freed_start, oldest);
	xlog_forget(&s->freed_end, oldest);
	s->freed_memo.epoch = UINT64_MAX;	/* its answers may have changed */
}

/* What the freed log says since epoch `since`: the earliest start and the
 * latest end logged after it (INT64_MIN: none). A pass asks about runs of
 * jobs that settled at one epoch: the last answer is kept while nothing
 * new was logged. */
static void freed_since(struct sched *s, uint64_t since)
{
	struct freed_memo *m = &s->freed_memo;

	if (m->since == since && m->epoch == s->epoch)
		return;
	m->since = since;
	m->epoch = s->epoch;
	/* (INT64_MIN where an entry was lost: search from `lo`) */
	m->first = xlog_after(&s->freed_start, since, BF_NEVER, INT64_MIN);
	m->last = xlog_after(&s->freed_end, since, INT64_MIN, BF_NEVER);
}

/* The earliest start in [lo, hi) the job can move to, where only regions
 * freed since it settled can have made room: a window reaching no such
 * region does not fit (see the top of this file), so the search starts
 * where a window first reaches one (the earliest start logged minus the
 * hold) and ends where the last one ends. */
static bf_time search_between(const struct sched *s, const struct job *j, bf_time lo,
                              bf_time hi, bool *searched)
{
	bf_time first = s->freed_memo.first, last = s->freed_memo.last;

	if (first > lo && first - lo > j->hold)
		lo = first - j->hold;
	if (last != INT64_MIN && last < hi)
		hi = last;
	if (lo >= hi || last == INT64_MIN)
		return BF_NEVER;
	*searched = true;
	return cons_anchor(s, j, lo, hi, j->resv);
}

static void bounds_add(struct place_bounds *b, const struct sched *s, const struct job *j)
{
	struct place_bound *last = &b->e[(b->next + PLACE_BOUNDS - 1) % PLACE_BOUNDS];

	/* A job like the last one, placed no earlier: it replaces that one
	 * (in a run of equal jobs, each bounds the next). */
	if (b->count && last->nodes == j->nodes && last->hold == j->hold && last->at <= j->resv &&
	    last->user == job_user(s, j)) {
		last->at = j->resv;
		return;
	}
	b->e[b->next] = (struct place_bound){ .nodes = j->nodes, .user = job_user(s, j),
		.hold = j->hold, .at = j->resv };
	b->next = (b->next + 1) % PLACE_BOUNDS;
	b->count += b->count < PLACE_BOUNDS;
}

/* The latest place, before `limit`, of a job no wider nor longer than j
 * (of its user, with a cap); `from` if none is later. The latest first:
 * in a run of equal jobs it is the neighbour. */
static bf_time bounds_from(const struct place_bounds *b, const struct sched *s,
                           const struct job *j, bf_time from, bf_time limit)
{
	for (uint32_t k = 0, i = b->next; k < b->count && from < limit; k++) {
		const struct place_bound *m;

		i = (i + PLACE_BOUNDS - 1) % PLACE_BOUNDS;
		m = &b->e[i];
		if (m->nodes <= j->nodes && m->hold <= j->hold && m->at <= limit && m->at > from &&
		    (!user_cap(s) || m->user == job_user(s, j)))
			from = m->at;
	}
	return from;
}

static void remember_settled(struct sched *s, const struct job *j)
{
	if (s->settled_epoch != s->epoch) {
		s->settled_epoch = s->epoch;	/* something was freed: the rest say nothing */
		s->settled.count = 0;
	}
	bounds_add(&s->settled, s, j);
}

static void forget_settled(struct sched *s)
{
	s->settled.count = 0;
}

/* Where a reserved job could move to now, BF_NEVER if nowhere earlier;
 * *searched unless no region freed since it settled could be of use.
 *
 * A job found at its earliest (`settled`, reserved at r'), if nothing
 * was freed since, says more about a job at least as wide and as long
 * (and of the same user, with a cap) reserved at r >= r': every window of
 * the first job's shape starting before r' and clipped at r' lacks its
 * nodes, and this job's windows starting there hold those (longer, and
 * clipped at r >= r'), so only starts from r' on are searched. The last
 * few such jobs are kept: the latest r' of those that bound this job is
 * where its search starts. Traces submit long runs of equal jobs, which a
 * pass visits one after another: most of a run is then skipped, or
 * searched only between its neighbour's place and its own. */
static bf_time cons_search(struct sched *s, const struct job *j, bf_time now, bool *searched)
{
	bf_time from = now;

	*searched = false;
	if (j->flags & (JF_DEPS | JF_DEPMOVED)) {
		/* Never before its predecessors allow; where that moved
		 * earlier, all the way from there (the freed log knows nothing
		 * of it). */
		bf_time b = deps_bound(s, j);

		if (b >= j->resv)
			return BF_NEVER;
		if (b > from)
			from = b;
		if (j->flags & JF_DEPMOVED) {
			*searched = true;
			return cons_anchor(s, j, from, j->resv, j->resv);
		}
	}
	if (s->prm.compress_unbounded) {
		*searched = true;
		return cons_anchor(s, j, from, j->resv, j->resv);
	}
	/* The tests that need no more than the job and the log first: most
	 * jobs a pass looks at end here. */
	if (job_settled(s, j) >= s->epoch)
		return BF_NEVER;	/* (the common case in a run of equal jobs) */
	freed_since(s, job_settled(s, j));
	if (s->freed_memo.first >= j->resv)
		return BF_NEVER;
	if (s->settled_epoch == s->epoch)
		from = bounds_from(&s->settled, s, j, from, j->resv);
	return search_between(s, j, from, j->resv, searched);
}

/* Compression in arrival order: a whole pass, or with compress_slice the
 * next slice of one; *done when the pass has seen every queued job. What
 * the pass gathers (a job moved, the earliest due, the oldest epoch a job
 * settled at) is kept in the scheduler between slices. A slice is counted
 * in units of work, so that it takes about as long whether its jobs are
 * skipped, searched or moved (a move is a search, four profile changes and
 * the log, each a descent of a larger plan), and however long the searches
 * take: a search costs by the steps it took too (a dense plan, after a
 * lost node took a third of the reservations back, took 3,000 steps a
 * search where 300 are usual, and slices four times as long). */
#define SLICE_SKIP	1
#define SLICE_SEARCH	4
#define SLICE_STEPS	40	/* steps of a search per unit (25-80 ns a step) */
#define SLICE_MOVE	16

static inline void spend(uint32_t *budget, uint64_t units)
{
	*budget -= *budget < units ? *budget : (uint32_t)units;
}

/* Job i just moved from `was` to its earliest place: the jobs right after
 * it alike (reserved at `was` as it was, as wide and as long) go there
 * too as far as it has room for them, in one change of the plan. Each
 * would find that place by its own search: nothing before it fits (the
 * plan before it only lost room since the first searched, its own old
 * place lying past the clip of every window that starts earlier), and it
 * fits there exactly while as many more nodes are free over the window,
 * which a job moved there takes. Without a cap only (a user's plan would
 * have to have room too). Returns the last job moved. */
static uint32_t move_alike(struct sched *s, uint32_t i, bf_time was, bf_time now,
                           uint32_t *budget)
{
	struct job *j = &s->jobs[i];
	bf_time a = j->resv, until = a + j->hold < was ? a + j->hold : was;
	bf_time from = a + j->hold > was ? a + j->hold : was;
	int64_t room = INT64_MAX;	/* asked of the plan if a job alike follows */
	uint32_t m = 0, last = i;

	for (uint32_t k = j->next; k != NONE && room >= j->nodes; k = s->jobs[k].next) {
		const struct job *x = &s->jobs[k];

		if (x->resv != was || x->nodes != j->nodes || x->hold != j->hold ||
		    !(x->flags & JF_RESERVED) || (x->flags & (JF_DEPS | JF_DEPMOVED)))
			break;
		if (room == INT64_MAX && (room = profile_min_free(&s->prof, a, until)) < j->nodes)
			break;
		room -= j->nodes;
		m++;
		last = k;
	}
	if (m == 0 || profile_prepare(&s->prof, 4) < 0)
		return i;
	spend(budget, SLICE_MOVE + m);
	profile_release(&s->prof, was, (int64_t)m * j->nodes, j->hold);
	profile_reserve(&s->prof, a, (int64_t)m * j->nodes, j->hold);
	cons_freed(s, from, was + j->hold);
	for (uint32_t k = j->next, prev = i;; prev = k, k = s->jobs[k].next) {
		struct job *x = &s->jobs[k];

		set_resv(s, x, a);
		x->settled = s->epoch;
		run_join(s, prev, k);	/* alike, next to each other, at their earliest */
		settle(s, k, now, &s->pass_due);
		s->st.reanchors++;
		s->st.compress_visits++;
		if (k == last)
			break;
	}
	if (a < s->next_due && a > now)
		s->next_due = a;
	remember_settled(s, &s->jobs[last]);	/* for the next, which did not fit */
	return last;
}

static int compress_pass(struct sched *s, bf_time now, bool *done)
{
	uint32_t budget = s->prm.compress_slice ? s->prm.compress_slice : UINT32_MAX;

	if (!s->pass_open) {
		s->pass_open = true;
		s->pass_cursor = s->qhead;
		s->pass_due = BF_NEVER;
		s->pass_moved = false;
		s->pass_oldest = s->epoch;
	}
	*done = false;
	for (uint32_t i = s->pass_cursor, alike = NONE; i != NONE; i = s->jobs[i].next) {
		struct job *j = &s->jobs[i];
		bf_time a = BF_NEVER, was = BF_NEVER;

		if (budget == 0) {
			s->pass_cursor = i;	/* the next slice starts here */
			return SCHED_OK;
		}
		spend(&budget, SLICE_SKIP);
		if (!(j->flags & JF_RESERVED)) {
			bf_time promised = j->resv;	/* one it still has (its limit changed) */

			if (profile_prepare(&s->prof, 2) < 0) {
				s->pass_cursor = i;
				return SCHED_E_NOMEM;
			}
			if (place(s, i, now))	/* unplaced: nodes may be back */
				settle(s, i, now, &s->pass_due);
			if (promised != BF_NEVER && promised >= now && j->resv > promised)
				promise_broken(s, j, j->why);
			alike = NONE;
			continue;
		}
		/* Re-anchor from now. The earliest start before the current
		 * reservation is found without releasing it (see
		 * profile_anchor_before), so a job that cannot move, the common
		 * case, costs searches only and no change to the profile; and
		 * the search stops where the regions freed since the job settled
		 * end (see the top of this file). */
		if (j->resv > now) {
			bool searched;
			uint64_t steps = profile_steps(&s->prof);

			a = cons_search(s, j, now, &searched);
			s->st.compress_visits++;
			if (searched) {
				s->st.compress_searches++;
				spend(&budget, SLICE_SEARCH +
				      (profile_steps(&s->prof) - steps) / SLICE_STEPS);
			}
			if (a != BF_NEVER) {
				/* What its old place frees beyond its new one. */
				bf_time from = a + j->hold > j->resv ? a + j->hold : j->resv;

				was = j->resv;
				/* A release can re-create two breakpoints that had
				 * merged with neighbours, and the reserve adds two. */
				if (profile_prepare(&s->prof, 4) < 0) {
					s->pass_cursor = i;
					return SCHED_E_NOMEM;
				}
				spend(&budget, SLICE_MOVE);
				plan_release(s, j, j->resv, j->hold);
				plan_reserve(s, j, a, j->hold);
				cons_freed(s, from, j->resv + j->hold);
				s->st.reanchors++;
				set_resv(s, j, a);
				s->pass_moved = true;
			}
			j->settled = s->epoch;
			/* (a job placed by its predecessors bounds no other) */
			if (!(j->flags & JF_DEPS))
				remember_settled(s, j);
			j->flags &= (uint16_t)~JF_DEPMOVED;
		}
		if (job_settled(s, j) < s->pass_oldest)
			s->pass_oldest = job_settled(s, j);
		settle(s, i, now, &s->pass_due);
		/* Between slices a job moved up may come due before the pass
		 * ends: the wakeup must not wait for the end of the pass. */
		if (s->jobs[i].resv < s->next_due && s->jobs[i].resv > now)
			s->next_due = s->jobs[i].resv;
		/* A job found at its earliest: the rest of its run with it, or
		 * it joins the run of the job before it (see sched_runs.c); a job
		 * moved: the jobs alike after it with it, where they fit. */
		if (j->resv <= now || s->prm.compress_unbounded || (j->flags & JF_DEPS)) {
			alike = NONE;
		} else if (a != BF_NEVER) {
			/* and the jobs alike after it with it */
			i = alike = user_cap(s) ? i : move_alike(s, i, was, now, &budget);
		} else if (s->run_of[i] != NONE && s->runs[s->run_of[i]].first == i) {
			struct run *r = &s->runs[s->run_of[i]];

			r->settled = s->epoch;
			i = alike = r->last;	/* the loop goes on after it */
		} else {
			if (alike != NONE && j->prev == alike && runs_alike(s, &s->jobs[alike], j))
				run_join(s, alike, i);
			alike = i;
		}
	}
	s->pass_open = false;
	s->pass_cursor = NONE;
	*done = true;
	return SCHED_OK;
}

/* Compression is settled: passes in arrival order until one moves no job
 * (one pass only with compress_per_end, as the literature's simulators do).
 * A single pass is not a fixed point: a later job that moves up frees its
 * old place, which an earlier job already visited could use. The bounded
 * search of each pass looks only where something was freed since a job
 * settled, so a pass after the first costs little where nothing moved.
 * With compress_passes or compress_slice, a call does only so much and
 * leaves compress_more set: the next call goes on. */
static int cons_compress(struct sched *s, bf_time now)
{
	uint32_t passes = 0;
	bool done;
	int rc;

	/* Jobs waiting for a place come first (the compression would place
	 * them in its own order): need_compress stays for after them. */
	if (s->placing)
		return SCHED_OK;
	/* Counted at every call, a settling's continuations too: the daemon
	 * looks for moved promises to store when this count changes. */
	s->st.compressions++;
	do {
		if ((rc = compress_pass(s, now, &done)) < 0) {
			/* The rest keep their places; keep what is known of due. */
			s->next_due = s->pass_due < s->next_due ? s->pass_due : s->next_due;
			return rc;
		}
		if (!done) {
			s->compress_more = true;	/* need_compress stays */
			return SCHED_OK;
		}
		passes++;
	} while (s->pass_moved && !s->prm.compress_per_end &&
	         (!s->prm.compress_passes || passes < s->prm.compress_passes));
	s->next_due = s->pass_due;	/* a whole pass saw every queued job */
	s->compress_more = s->pass_moved && !s->prm.compress_per_end;
	if (s->compress_more)
		return SCHED_OK;	/* need_compress stays: the next call goes on */
	s->need_compress = false;
	freed_forget(s, s->pass_oldest);
	return SCHED_OK;
}

/* Collect the jobs whose reservation has come (when a job ended exactly as
 * planned, nothing was compressed, yet the next one is due). */
static void collect_due(struct sched *s, bf_time now)
{
	bf_time due = BF_NEVER;

	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next)
		if ((s->jobs[i].flags & (JF_RESERVED | JF_READY)) == JF_RESERVED)
			settle(s, i, now, &due);
	s->next_due = due;
}

/* Start the due jobs that can start. */
static void start_due(struct sched *s, bf_time now)
{
	uint32_t k = 0;

	if (s->next_due <= now)
		collect_due(s, now);
	/* Start due jobs in arrival order (insertion sort: the list is short). */
	for (uint32_t a = 1; a < s->ready_len; a++) {
		uint32_t x = s->ready[a], b = a;

		for (; b > 0 && s->jobs[s->ready[b - 1]].seq > s->jobs[x].seq; b--)
			s->ready[b] = s->ready[b - 1];
		s->ready[b] = x;
	}
	for (uint32_t r = 0; r < s->ready_len; r++) {
		uint32_t slot = s->ready[r];

		/* A job overrunning its plan may still hold nodes (or a
		 * place under its user's cap) the plan counted free: then the
		 * due job waits for them. */
		if (s->jobs[slot].nodes <= s->ns.nfree && may_start(s, &s->jobs[slot])) {
			s->jobs[slot].flags &= ~JF_READY;
			sched_start_job(s, slot, now);
		} else {
			s->jobs[slot].flags |= JF_WAITED;
			s->ready[k++] = slot;
		}
	}
	s->ready_len = k;
}

/* A queued job's reservation leaves the plan (its forget). */
static void cons_forget(struct sched *s, uint32_t slot)
{
	struct job *j = &s->jobs[slot];

	run_changes(s, slot);
	ready_remove(s, slot);
	if (j->flags & JF_RESERVED) {
		plan_release(s, j, j->resv, j->hold);
		j->flags &= ~JF_RESERVED;
		s->need_compress = true;
		cons_freed(s, j->resv, j->resv + j->hold);
	}
}

/* Take back a job's reservation, for cons_replace to place it again (resv
 * keeps the promise to compare); why: the cause told if it moves later. */
void cons_evict(struct sched *s, uint32_t slot, enum sched_broken_why why)
{
	cons_forget(s, slot);
	s->jobs[slot].flags |= JF_EVICTED;
	s->jobs[slot].why = (uint8_t)why;
	s->placing = true;
	s->place_cursor = s->qhead;
	if (s->jobs[slot].flags & JF_PREDS)
		deps_evict_succs(s, slot);	/* placed again after it */
}

/* The reservations a repair may take back, swept in time order: the
 * earliest instant over capacity only moves later as reservations leave,
 * so the jobs reserved by then join a heap by queue position, and the one
 * on top that still covers the instant is the latest in the queue that
 * does (jobs whose reservation ended before it never cover a later one). */
static int by_resv(const void *a, const void *b)
{
	bf_time x = ((const struct by_start *)a)->resv, y = ((const struct by_start *)b)->resv;

	return x < y ? -1 : x > y;
}

static int sweep_init(struct sweep *w, const struct sched *s)
{
	uint32_t k = 0;

	w->by_resv = malloc((size_t)s->qlen * sizeof *w->by_resv + 1);
	w->heap = malloc((size_t)s->qlen * sizeof *w->heap + 1);
	w->pos = malloc((size_t)s->jobs_cap * sizeof *w->pos);
	if (!w->by_resv || !w->heap || !w->pos)
		return -1;
	w->n = w->next = w->len = 0;
	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next, k++) {
		w->pos[i] = k;
		if (s->jobs[i].flags & JF_RESERVED)
			w->by_resv[w->n++] = (struct by_start){ s->jobs[i].resv, i };
	}
	qsort(w->by_resv, w->n, sizeof *w->by_resv, by_resv);
	return 0;
}

static void sweep_free(struct sweep *w)
{
	free(w->by_resv);
	free(w->heap);
	free(w->pos);
}

static void heap_up(struct sweep *w, uint32_t k)
{
	while (k > 0 && w->pos[w->heap[(k - 1) / 2]] < w->pos[w->heap[k]]) {
		uint32_t p = (k - 1) / 2, x = w->heap[p];

		w->heap[p] = w->heap[k];
		w->heap[k] = x;
		k = p;
	}
}

static void heap_pop(struct sweep *w)
{
	uint32_t k = 0;

	w->heap[0] = w->heap[--w->len];
	for (;;) {
		uint32_t l = 2 * k + 1, r = l + 1, m = k, x;

		if (l < w->len && w->pos[w->heap[l]] > w->pos[w->heap[m]])
			m = l;
		if (r < w->len && w->pos[w->heap[r]] > w->pos[w->heap[m]])
			m = r;
		if (m == k)
			return;
		x = w->heap[m];
		w->heap[m] = w->heap[k];
		w->heap[k] = x;
		k = m;
	}
}

/* The latest job in the queue whose reservation covers t, NONE if none;
 * t no earlier than at the previous call. */
static uint32_t sweep_at(struct sweep *w, const struct sched *s, bf_time t)
{
	while (w->next < w->n && w->by_resv[w->next].resv <= t) {
		w->heap[w->len++] = w->by_resv[w->next++].slot;
		heap_up(w, w->len - 1);
	}
	while (w->len > 0) {
		const struct job *j = &s->jobs[w->heap[0]];

		if ((j->flags & JF_RESERVED) && t < j->resv + j->hold)
			return w->heap[0];
		heap_pop(w);	/* taken back, or over before t */
	}
	return NONE;
}

/* The same by a walk from the tail (when the sweep has no memory). */
static uint32_t latest_covering(const struct sched *s, bf_time t)
{
	uint32_t i;

	for (i = s->qtail; i != NONE; i = s->jobs[i].prev) {
		const struct job *j = &s->jobs[i];

		if ((j->flags & JF_RESERVED) && j->resv <= t && t < j->resv + j->hold)
			break;
	}
	return i;
}

static void cons_replace(struct sched *s, bf_time now);
static void cons_repair_stop(struct sched *s);

/* A node was lost, or a running job keeps its nodes longer than planned:
 * where the plan now needs more nodes than exist, take back the
 * reservations of the latest arrivals that cover that instant (earlier
 * arrivals keep theirs), then place those jobs again in arrival order
 * (cons_replace). A job placed later than promised gets SA_BROKEN. With a
 * cap per user, the same where a user's plan holds more jobs than the cap
 * (a longer hold, a lower cap). With place_slice the repair too goes a
 * slice a call (a lost node in a full plan of 100,000 jobs takes back tens
 * of thousands); meanwhile sched_placing() says so, and a repair asked
 * for again starts over from now, keeping the first cause. */
static int cons_repair(struct sched *s, bf_time now, enum sched_broken_why why)
{
	struct repair *r = &s->repair;

	if (r->active) {
		why = (enum sched_broken_why)r->why;
		sweep_free(&r->w);
	}
	*r = (struct repair){ .active = true, .why = (uint8_t)why, .from = now };
	s->placing = true;
	/* A running predecessor's longer hold: its successors placed before
	 * its new end are placed again (each after its predecessors). */
	deps_evict_early(s);
	cons_replace(s, now);
	return SCHED_OK;
}

/* (also its destroy: a repair's sweep is the only memory it keeps) */
static void cons_repair_stop(struct sched *s)
{
	if (s->repair.active)
		sweep_free(&s->repair.w);
	s->repair = (struct repair){ .active = false };
}

/* Evictions per call of a sliced repair, per job placed a call: about as
 * long as a slice of placing (an eviction is a release and a step of the
 * sweep, a placing a search of the plan). */
#define REPAIR_PER_PLACE 8

/* Go on with the repair under way; true when it is over. Between calls
 * the plan only gains room (nothing is placed or started while placing,
 * and a new repair starts over), so the instants over capacity only move
 * later, as the sweep wants. */
static bool repair_step(struct sched *s)
{
	struct repair *r = &s->repair;
	uint32_t budget = s->prm.place_slice ? REPAIR_PER_PLACE * s->prm.place_slice : UINT32_MAX;

	for (;;) {
		bf_time t = profile_first_below(&s->prof, 0, r->from, BF_NEVER);
		uint32_t i;

		if (t == BF_NEVER)
			break;
		if (budget == 0)
			return false;
		if (!r->swept && !r->walk) {
			r->walk = s->prm.repair_reference || sweep_init(&r->w, s) < 0;
			r->swept = !r->walk;
		}
		i = r->swept ? sweep_at(&r->w, s, t) : latest_covering(s, t);
		if (i == NONE) {
			/* Only running jobs there: they end on their own. */
			r->from = profile_next_change(&s->prof, t);
			continue;
		}
		cons_evict(s, i, (enum sched_broken_why)r->why);
		if (!r->walk)
			budget--;	/* (the walk has no memory to go on with) */
	}
	if (user_cap(s))
		user_evict(s, (enum sched_broken_why)r->why);
	cons_repair_stop(s);
	return true;
}

/* Place the jobs waiting for a place (cons_evict, and what arrived
 * meanwhile: cons_arrive), in queue order, once a repair under way is
 * over; one placed later than promised gets SA_BROKEN with its cause.
 * With place_slice, a call places that many and the next goes on from the
 * job after (each is placed by a search of the whole plan). Until all are
 * placed, sched_placing() says so, compression and starts wait, and a job
 * that arrives waits behind them: each is placed as in one call, in the
 * same order, only the instant may be later. Room was prepared by the
 * caller.
 *
 * Jobs placed by one call bound the next the same way as in compression
 * (the plan only gains reservations meanwhile): where a job found no room
 * before its place, none is found for one at least as wide and as long. */
static void cons_replace(struct sched *s, bf_time now)
{
	struct place_bounds placed = { .count = 0 };
	bool bound = !user_cap(s) && !s->prm.repair_reference;
	uint32_t budget = s->prm.place_slice ? s->prm.place_slice : UINT32_MAX, i;

	if (s->repair.active && !repair_step(s))
		return;		/* placing stays set */
	for (i = s->place_cursor; i != NONE; i = s->jobs[i].next) {
		struct job *j = &s->jobs[i];
		bf_time promised;

		if (!(j->flags & JF_EVICTED))
			continue;
		if (budget == 0)
			break;
		budget--;
		promised = j->resv;
		if (place_from(s, i, now, bound ? bounds_from(&placed, s, j, now, BF_NEVER) : now) &&
		    bound && !(j->flags & JF_DEPS))
			bounds_add(&placed, s, j);
		s->st.replans++;	/* earlier or later: its guarantee changed */
		if (j->resv > promised)
			promise_broken(s, j, j->why);
	}
	s->place_cursor = i;
	s->placing = i != NONE;
}

/* One queued job placed as if it arrived now (cons_adopt). */
static void adopt_one(struct sched *s, uint32_t slot, bf_time now)
{
	struct job *j = &s->jobs[slot];
	bf_time was = j->resv;	/* EASY and FCFS: the head's shadow */

	j->flags &= (uint16_t)~(JF_READY | JF_RESERVED | JF_EVICTED | JF_WAITED);
	place(s, slot, now);
	if (j->resv != was)
		s->st.replans++;
	/* A promise that passed is kept by a place now. */
	if (was != BF_NEVER && j->resv > (was > now ? was : now))
		reload_moved(s, j, was, true);
	else if (was == BF_NEVER || j->resv > j->first_guarantee)
		j->first_guarantee = j->resv;	/* the promise from now on */
}

/* Whether a queued job other than `first` holds a promise. */
static bool promise_besides(const struct sched *s, uint32_t first)
{
	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next)
		if (i != first && s->jobs[i].resv != BF_NEVER)
			return true;
	return false;
}

/* The policy becomes conservative (sched_set_policy): the plan holds the
 * running jobs only, and every queued job is placed in queue order as if
 * it arrived now (under a cap, the holder of the head's promise first).
 * Placed so, each job sits at the earliest start the jobs placed before
 * it leave, and the jobs after it only take more: the plan is
 * already compressed, and every job is settled. Room for a reservation
 * and an announcement per queued job was made by the caller.
 *
 * Under EASY and FCFS only the head holds a promise: the holder is placed
 * at once, and the others, with none to keep, are placed as a repair
 * places what it took back (cons_replace: in queue order, with
 * place_slice a slice a call; with 100,000 queued, a second and more). */
static void cons_adopt(struct sched *s, bf_time now, const struct sched_policy_ops *from)
{
	/* Under a cap the job promised the head's shadow need not be the
	 * first queued (see sched.h): it is placed first, where its shadow
	 * still is, so its promise holds. Without a cap it is the first. */
	uint32_t first = s->has_last_head ? idmap_get(&s->ids, s->last_head) : IDMAP_NONE;

	(void)from;	/* (what it promised is in each job's resv) */
	if (first != IDMAP_NONE && s->jobs[first].state != SLOT_QUEUED)
		first = IDMAP_NONE;
	s->ready_len = 0;
	s->next_due = BF_NEVER;
	s->need_compress = s->compress_more = s->pass_open = s->placing = false;
	s->pass_cursor = s->place_cursor = NONE;
	cons_repair_stop(s);
	s->has_last_head = false;
	runs_clear(s);
	forget_settled(s);
	/* Nobody will ask about regions freed before every job settled. */
	freed_forget(s, s->epoch);
	if (first != IDMAP_NONE)
		adopt_one(s, first, now);
	if (promise_besides(s, first)) {
		/* (not made by EASY or FCFS): each kept or told, one by one */
		for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next)
			if (i != first)
				adopt_one(s, i, now);
		return;
	}
	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next) {
		struct job *j = &s->jobs[i];

		if (i == first)
			continue;
		j->flags = (uint16_t)((j->flags & ~(JF_READY | JF_RESERVED | JF_WAITED)) | JF_EVICTED);
		j->why = BROKEN_POLICY;	/* (none is told: none had a promise) */
	}
	s->placing = true;
	s->place_cursor = s->qhead;
	cons_replace(s, now);
}

/* Room for cons_drop's plan (what runs and the nodes down); 0 or -1. */
static int cons_drop_room(struct sched *s)
{
	return profile_prepare(&s->prof, 2 * (s->nrunning + s->ns.n));
}

/* The policy stops being conservative: every reservation leaves the plan,
 * which then holds the running jobs only, as EASY and FCFS keep it. Each
 * job's resv still names its guarantee, for the caller to compare. */
static void cons_drop(struct sched *s)
{
	/* With 100,000 queued, the plan filled in anew with the running jobs
	 * takes a millisecond where releasing each reservation took 30 to 40
	 * (the policy that follows makes no reservation). The caller made
	 * room for them (cons_drop_room). */
	profile_clear(&s->prof);
	plan_fill(s, &s->prof, false);
	runs_clear(s);
	forget_settled(s);
	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next) {
		struct job *j = &s->jobs[i];

		if ((j->flags & JF_RESERVED) && user_cap(s))
			user_plan_add(s, j, j->resv, j->hold, 1);
		j->flags &= (uint16_t)~(JF_READY | JF_RESERVED | JF_EVICTED | JF_WAITED);
	}
	s->ready_len = 0;
	s->next_due = BF_NEVER;
	s->need_compress = s->compress_more = s->pass_open = s->placing = false;
	s->pass_cursor = s->place_cursor = NONE;
	cons_repair_stop(s);
}

/* Room for cons_adopt: a reservation per queued job. */
static int cons_adopt_room(struct sched *s)
{
	return profile_prepare(&s->prof, 2 * s->qlen + 2);
}

/* A job joins the tail of the queue: it is placed at once. */
static void cons_new_job(struct sched *s, uint32_t slot, bf_time now)
{
	cons_arrive(s, slot, now, BROKEN_LATE);	/* (no promise to break) */
}

/* A queued job's new limit, its reservation taken back (cons_forget). */
static void cons_limit_changed(struct sched *s, uint32_t slot, bf_time now, bf_time was)
{
	struct job *j = &s->jobs[slot];

	/* Placed again from now, in arrival order with the others: the
	 * compression places it (unreserved) where its turn comes, moves the
	 * others up into what it left, and tells it if that is later than
	 * promised (compress_pass), also a compression cut into slices that
	 * goes on after this call. One the compression did not place (no
	 * memory, or jobs wait for a place) is placed as an arrival. */
	j->why = BROKEN_LIMIT;
	s->st.replans++;
	/* Its successors follow it wherever it lands. */
	if (j->flags & JF_PREDS)
		deps_evict_succs(s, slot);
	if (s->need_compress)
		(void)cons_compress(s, now);
	if ((j->flags & JF_RESERVED) || (s->compress_more && !s->placing))
		return;
	cons_arrive(s, slot, now, BROKEN_LIMIT);
	if (!s->placing && was != BF_NEVER && j->resv > was && was >= now)
		promise_broken(s, j, BROKEN_LIMIT);
}

/* The pass: place, compress, start what is due. */
static int cons_pass(struct sched *s, bf_time now)
{
	int rc;

	/* While jobs wait for a place the plan is half made: the
	 * next slice, and nothing else until the last (then the
	 * compression and the starts, in the same call). */
	if (s->placing && (cons_replace(s, now), s->placing))
		return SCHED_OK;
	if (s->need_compress && (rc = cons_compress(s, now)) < 0)
		return rc;
	s->hold_extended = false;
	start_due(s, now);
	/* A start late by more than the grace took more of the plan
	 * than it had (see sched_start_job). */
	if (s->hold_extended && (rc = cons_repair(s, now, BROKEN_LATE)) < 0)
		return rc;
	return SCHED_OK;
}

/* A job put first: the plan is made again in the new queue order. */
static void cons_top(struct sched *s, uint32_t slot, bf_time now, bool moved)
{
	(void)slot;
	if (!moved)
		return;		/* first already: nothing changes */
	/* Every reservation taken back (each keeps its promise in
	 * resv, to compare), then placed again in the new order. */
	for (uint32_t i = s->qhead; i != NONE; i = s->jobs[i].next)
		cons_evict(s, i, BROKEN_TOP);
	cons_replace(s, now);
}

/* A lower cap: what puts a user above it is placed again. */
static void cons_cap_lowered(struct sched *s, bf_time now)
{
	if (user_evict(s, BROKEN_USER_CAP))
		cons_replace(s, now);
}

const struct sched_policy_ops cons_policy = {
	.name = "conservative",
	.reserves = true,
	.pass = cons_pass,
	.compress = cons_compress,
	.arrive = cons_new_job,
	.restore = cons_restore,
	.freed = cons_freed,
	.forget = cons_forget,
	.limit_changed = cons_limit_changed,
	.repair = cons_repair,
	.top = cons_top,
	.cap_lowered = cons_cap_lowered,
	.destroy = cons_repair_stop,
	.drop_room = cons_drop_room,
	.drop = cons_drop,
	.adopt_room = cons_adopt_room,
	.adopt = cons_adopt,
};
