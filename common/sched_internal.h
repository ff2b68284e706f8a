/* Internals of the scheduler core, shared by sched*.c only. */
#ifndef BF_SCHED_INTERNAL_H
#define BF_SCHED_INTERNAL_H
#include "idmap.h"
#include "nodeset.h"
#include "profile.h"
#include "sched.h"
#include "sched_policy.h"
#include "xlog.h"

#define NONE UINT32_MAX

enum job_flag {
	JF_RESERVED = 1 << 0,	/* conservative: holds a reservation in the profile */
	JF_KILL_SENT = 1 << 1,
	JF_BACKFILLED = 1 << 2,
	JF_READY = 1 << 3,	/* on the ready list (reservation reached) */
	JF_EVICTED = 1 << 4,	/* conservative: waits for a place (see cons_replace) */
	JF_WAITED = 1 << 5,	/* conservative: due at a pass that could not start it */
	JF_MOVED = 1 << 6,	/* its resv changed since sched_drain_moved (on s->moved) */
	JF_TOP = 1 << 7,	/* put first (sched_top): CREASY puts it before any priority */
	/* Dependencies (sched_deps.c): */
	JF_DEPS = 1 << 8,	/* has predecessors it must start or end after */
	JF_PREDS = 1 << 9,	/* has successors waiting for it */
	JF_COND = 1 << 10,	/* waits for its driver's word (sched_dep_release) */
	JF_DEPMOVED = 1 << 11,	/* conservative: its earliest start moved earlier
				 * by a predecessor: the next compression searches
				 * it from there, whatever the freed log says */
	JF_MARK = 1 << 12,	/* a passing mark (check_deps: a job named twice) */
};

enum slot_state { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING };

/* With a cap per user (see sched_user.c), one record per user with jobs in
 * the system. Without a cap none is kept, and nothing here is looked at. */
struct user {
	uint32_t id;
	uint32_t running;	/* its jobs running now */
	uint32_t jobs;		/* its jobs in the system; the record goes at 0 */
	uint32_t next_free;
	/* Its jobs planned: capacity = the cap, each running hold and (under
	 * conservative) each reservation uses 1 over its interval. */
	struct profile plan;
};

/* A job's user, beside the job table (s->ju[slot]) rather than in it, so
 * the walks over queued jobs without a cap touch no more memory. */
struct job_user {
	uint32_t user;
	uint32_t uslot;		/* with a cap per user: its record in s->users */
};

/* Conservative: a run of queued jobs next to each other in the queue, all
 * alike (nodes, hold, reserved start, and user where a cap counts them),
 * that a compression pass found at their earliest one after another (see
 * sched_runs.c). Traces submit long runs of equal jobs, placed side by
 * side at one instant; once the first of a run is found at its earliest,
 * a pass passes the others by in one step. */
struct run {
	uint32_t first, last;	/* the members, along the queue; first links free runs */
	uint64_t settled;	/* every member settled at this epoch or later */
};

struct users {
	struct user *u;
	uint32_t len, size, free_head;
	struct idmap ids;	/* user id -> index in u */
};

/* A queued job in CREASY's order: higher key first, then arrival. */
struct prio_item {
	double key;
	uint64_t seq;
	uint32_t slot;
};

struct job {
	/* What a compression pass reads of every queued job, first and
	 * together (not aligned to a cache line: the larger job slowed EASY's
	 * replays by 9%). */
	bf_time resv;		/* queued: reserved/promised start, BF_NEVER if none */
	uint64_t settled;	/* conservative: epoch when its place was last found best */
	bf_time hold;		/* planned holding time: estimate + grace, >= 1 us */
	uint32_t nodes;
	uint32_t prev, next;	/* queue links; next also links free slots */
	uint8_t state;
	uint16_t flags;
	uint8_t why;		/* waiting for a place (JF_EVICTED): the cause told
				 * if its new place is later than promised */

	uint64_t id;
	uint64_t seq;		/* arrival order */
	bf_time submit, estimate;
	bf_time start;		/* running: actual start */
	bf_time kill_at;	/* running: when SA_KILL went out, BF_NEVER before */
	bf_time first_guarantee;
	uint32_t first_node;	/* running: head of its list in the node set */
	uint32_t heap;		/* running: index in the deadline heap, NONE if out */
};

/* The places of the last few jobs placed at their earliest while the plan
 * lost no reservation: each bounds where a job at least as wide and as
 * long (of the same user, with a cap) can go (see sched_cons.c). */
#define PLACE_BOUNDS 8

struct place_bounds {
	struct place_bound {
		uint32_t nodes, user;
		bf_time hold, at;
	} e[PLACE_BOUNDS];
	uint32_t next, count;
};

/* The reservations a repair may take back, swept in time order (see
 * cons_repair). */
struct sweep {
	struct by_start {
		bf_time resv;
		uint32_t slot;
	} *by_resv;		/* reserved jobs by reservation start */
	uint32_t *pos;		/* queue position, by slot */
	uint32_t *heap;		/* max-heap by queue position */
	uint32_t n, next, len;
};

/* A repair under way, a slice a call with place_slice (cons_replace). */
struct repair {
	bool active;
	bool swept, walk;	/* the sweep is made; or walks instead (no memory) */
	uint8_t why;		/* the cause told to a job that moves later */
	bf_time from;		/* over capacity nowhere before, but for running jobs */
	struct sweep w;
};

/* A dependency: succ may start only after pred ends (SCHED_DEP_END) or
 * starts (SCHED_DEP_START). Each job's edges in and out are lists through
 * the pool, both ways, so any edge goes in O(1). cond: part of a condition
 * its driver evaluates (sched_dep_release drops those); otherwise an order
 * of its own (a job array's cap on elements at once), which holds until
 * the predecessor ends. */
struct dep_edge {
	uint32_t pred, succ;
	uint32_t prev_in, next_in;	/* succ's edges */
	uint32_t prev_out, next_out;	/* pred's edges (next_out links free edges) */
	uint8_t kind;
	bool cond;
};

struct deps {
	struct dep_edge *e;
	uint32_t len, cap, free_head;
	uint32_t live;		/* edges in use */
	uint32_t waiting;	/* queued jobs with JF_COND */
	uint32_t *in, *out;	/* per slot, its first edge (NONE); as large as the job table */
};

struct sched {
	struct sched_params prm;
	/* The policy's functions, as prm.policy names it (sched_policy.h). */
	const struct sched_policy_ops *pol;
	struct profile prof;	/* running holds (+ conservative reservations) */
	struct nodeset ns;
	struct idmap ids;

	struct job *jobs;
	struct job_user *ju;	/* per slot, as large as the job table */
	/* Conservative: per slot, the run the queued job is in (NONE: none);
	 * the runs, as many as slots, free ones linked from runs_free. */
	uint32_t *run_of;
	struct run *runs;
	uint32_t runs_free;
	uint32_t jobs_cap, jobs_used, free_slot;
	uint32_t qhead, qtail, qlen, nrunning;
	/* Queued jobs submitted after the job queued right after them: 0
	 * while the queue is in submit order, as arrivals keep it (a restore
	 * or bctl top may not), so that CREASY can stop looking for its head
	 * where no later job has waited long enough (sched_creasy.c). */
	uint32_t submit_inversions;
	uint64_t next_seq;

	/* Running jobs by their next deadline: start + estimate until they are
	 * signalled, then the end of their hold (see heap_key). */
	uint32_t *heap;
	uint32_t heap_len;

	uint32_t *ready;	/* conservative: queued jobs whose reservation is now */
	struct prio_item *order;	/* CREASY: a pass's queue by priority */
	uint32_t ready_len;
	/* Queued jobs whose resv changed since the driver last asked
	 * (sched_drain_moved), each once (JF_MOVED); as large as the job
	 * table, and if a slot freed and taken again would overfill it,
	 * moved_all says to look at every queued job instead. */
	uint32_t *moved;
	uint32_t moved_len;
	bool moved_all;
	/* Conservative: no reservation outside the ready list starts before
	 * this (it may be earlier than the true minimum, never later). */
	bf_time next_due;

	/* Conservative: regions of the plan that gained free nodes, by epoch,
	 * to bound each job's search in compression (see sched_cons.c). */
	uint64_t epoch;
	struct xlog freed_start;	/* smallest start logged since an epoch */
	struct xlog freed_end;		/* largest end logged since an epoch */
	/* The log's answers for the last epoch a pass asked about (see
	 * freed_since in sched_cons.c); valid while the epoch is the same. */
	struct freed_memo {
		uint64_t since, epoch;
		bf_time first, last;
	} freed_memo;
	/* The last jobs compression found at their earliest since anything
	 * was freed (at epoch settled_epoch). */
	struct place_bounds settled;
	uint64_t settled_epoch;

	bf_time *down_since;	/* per node: start of its "down" reservation, or BF_NEVER */
	uint8_t out_why;	/* the last node taken out: BROKEN_NODE_LOST or _DRAINED */

	struct sched_action *acts;
	size_t nacts, acts_cap;

	bf_time now;
	bf_time last_pass;	/* when sched_run last ran (BF_NEVER before the first) */
	bool dirty;		/* something happened since the last pass */
	bool need_compress;	/* conservative: a hole opened */
	bool compress_more;	/* a compression stopped before it settled */
	/* A pass cut into slices (sched_params.compress_slice): the job it
	 * goes on with (NONE: the next pass starts at the head), and what the
	 * pass has gathered so far. queue_remove moves the cursor on. */
	uint32_t pass_cursor;
	bool pass_open, pass_moved;
	bf_time pass_due;
	uint64_t pass_oldest;
	/* Conservative: jobs wait for a place (JF_EVICTED: their reservation
	 * was taken back, or they arrived meanwhile), placed in queue order
	 * from place_cursor, with place_slice a slice a call. */
	bool placing;
	uint32_t place_cursor;
	struct repair repair;	/* taken back first, then placed (placing) */
	bool hold_extended;	/* a running job's hold grew since the last pass */
	uint8_t extend_why;	/* why (sched_broken_why), for the announcements */

	/* EASY/FCFS: the head job's shadow at the last pass, to check it never
	 * moves later while that job stays at the head. */
	bool has_last_head;
	uint64_t last_head;
	bf_time last_shadow;
	/* CREASY: jobs started before the promised head since it was last
	 * promised (a pass can end with no head: its user at the cap), and
	 * the cause to tell if its shadow moved later for that. */
	bool head_passed;
	uint8_t head_passed_why;

	struct users users;	/* empty while prm.max_running_per_user is 0 */
	struct deps deps;	/* sched_deps.c */

	struct sched_stats st;
	uint64_t violations;
	char violation[200];	/* the first one */
};

static inline struct job *qfirst(struct sched *s)
{
	return s->qhead == NONE ? NULL : &s->jobs[s->qhead];
}

/* sched_user.c: the cap on running jobs per user. Each is called only
 * while a cap is set (the inline wrappers below check), so the paths
 * without one cost a test of the cap and nothing else. */
int  user_init(struct sched *s);
void user_destroy(struct sched *s);
/* A job of `user` joins the system: its record, with room in its plan
 * for every interval its jobs can hold, so no change to a plan fails. */
int  user_join(struct sched *s, uint32_t user, uint32_t *uslot);
void user_leave(struct sched *s, uint32_t uslot);
/* Add n to the user's free slots over [t, t + d) (n = -1: one more job). */
void user_plan_add(struct sched *s, const struct job *j, bf_time t, bf_time d, int64_t n);
/* A job of the user runs: started by a pass (a start may not take its
 * user past the cap), or restored (it counts even past it). */
void user_started(struct sched *s, const struct job *j, bool by_pass);
void user_ended(struct sched *s, const struct job *j);
/* The plan of the job's user has a free slot over [t, t + hold). */
bool user_fits(const struct sched *s, const struct job *j, bf_time t);
/* Conservative: reservations that put a user above the cap, taken back
 * (flagged JF_EVICTED) for cons_repair to place again; true if any. */
bool user_evict(struct sched *s, enum sched_broken_why why);
int  user_check(const struct sched *s, char *buf, size_t len);

static inline uint32_t user_cap(const struct sched *s)
{
	return s->prm.max_running_per_user;
}

static inline uint32_t job_user(const struct sched *s, const struct job *j)
{
	return s->ju[j - s->jobs].user;
}

/* The record of a job's user (only with a cap). */
static inline uint32_t job_uslot(const struct sched *s, const struct job *j)
{
	return s->ju[j - s->jobs].uslot;
}

static inline struct user *user_of(const struct sched *s, const struct job *j)
{
	return &s->users.u[job_uslot(s, j)];
}

/* A job that may start now as far as its user goes. */
static inline bool user_eligible(const struct sched *s, const struct job *j)
{
	return !user_cap(s) || user_of(s, j)->running < user_cap(s);
}

/* sched_deps.c: dependencies between jobs (see sched.h). */
/* A job waits for predecessors or for its driver's word. */
static inline bool dep_blocked(const struct job *j)
{
	return (j->flags & (JF_DEPS | JF_COND)) != 0;
}

/* A job that may start now, as far as its user and its dependencies go. */
static inline bool may_start(const struct sched *s, const struct job *j)
{
	return !dep_blocked(j) && user_eligible(s, j);
}

/* Jobs wait on one another: the EASY family's passes then take the path
 * that passes over jobs that may not start (as under a cap). */
static inline bool deps_any(const struct sched *s)
{
	return s->deps.live || s->deps.waiting;
}

int  deps_grow_slots(struct sched *s, uint32_t cap);
void deps_destroy(struct sched *s);
void deps_init_slot(struct sched *s, uint32_t slot);
/* Room for n more edges; 0 or -1. */
int  deps_room(struct sched *s, uint32_t n);
void deps_add(struct sched *s, uint32_t pred, uint32_t succ, uint8_t kind, bool cond);
/* The job leaves the system (ended, cancelled): every edge in and out
 * goes; its successors may move earlier. */
void deps_leave(struct sched *s, uint32_t slot);
/* The edges deps_leave adds when a queued job leaves: its order
 * predecessors become its order successors'; room for them first. */
uint32_t deps_bypass_room(const struct sched *s, uint32_t slot);
/* The job started: the edges of successors that waited for its start go. */
void deps_started(struct sched *s, uint32_t slot);
/* Its driver's word: the edges of its condition go, and its wait. */
void deps_release(struct sched *s, uint32_t slot);
/* The earliest start its predecessors allow (conservative: by their
 * reservations and holds); INT64_MIN if none constrains it, BF_NEVER if
 * one has no place yet. */
bf_time deps_bound(const struct sched *s, const struct job *j);
/* Conservative: the successors of a job whose place is taken back are
 * taken back too (its new place may be later). */
void deps_evict_succs(struct sched *s, uint32_t slot);
/* Conservative: take back every reservation that now starts before its
 * predecessors allow (a hold grew); true if any. */
bool deps_evict_early(struct sched *s);
int  deps_check(const struct sched *s, char *buf, size_t len);

/* sched_runs.c: runs of alike queued jobs (see struct run). */
void runs_init_slots(struct sched *s, uint32_t from, uint32_t to);
/* The job leaves its run: it changes, or leaves the queue (called while it
 * is still in the queue); the jobs after it in the run leave it too if it
 * was in the middle. */
void run_leave(struct sched *s, uint32_t slot);
/* Every run ends (the plan is made again, or the policy changes). */
void runs_clear(struct sched *s);
/* The job at `slot`, found at its earliest by a pass right after `prev`
 * (the job before it, alike, found so at the same epoch), joins prev's
 * run (or the two make one). */
void run_join(struct sched *s, uint32_t prev, uint32_t slot);
bool runs_alike(const struct sched *s, const struct job *a, const struct job *b);
int  runs_check(const struct sched *s, char *buf, size_t len);

static inline void run_changes(struct sched *s, uint32_t slot)
{
	if (s->run_of[slot] != NONE)
		run_leave(s, slot);
}

/* The epoch the job last settled at: its own, or its run's if later. */
static inline uint64_t job_settled(const struct sched *s, const struct job *j)
{
	uint32_t r = s->run_of[j - s->jobs];

	return r == NONE || j->settled >= s->runs[r].settled ? j->settled : s->runs[r].settled;
}

/* A queued job's reserved or promised start changes: every change goes
 * through here, so the driver hears of it (sched_drain_moved). */
void deps_earlier(struct sched *s, uint32_t slot);

static inline void set_resv(struct sched *s, struct job *j, bf_time t)
{
	if (t != j->resv)
		run_changes(s, (uint32_t)(j - s->jobs));
	if (t < j->resv && (j->flags & JF_PREDS))
		deps_earlier(s, (uint32_t)(j - s->jobs));
	j->resv = t;
	if (j->flags & JF_MOVED)
		return;
	j->flags |= JF_MOVED;
	if (s->moved_len < s->jobs_cap)
		s->moved[s->moved_len++] = (uint32_t)(j - s->jobs);
	else
		s->moved_all = true;
}

/* A job's interval in the plans: its nodes, and its user's slot. */
static inline void plan_reserve(struct sched *s, const struct job *j, bf_time t, bf_time d)
{
	profile_reserve(&s->prof, t, j->nodes, d);
	if (user_cap(s))
		user_plan_add(s, j, t, d, -1);
}

static inline void plan_release(struct sched *s, const struct job *j, bf_time t, bf_time d)
{
	profile_release(&s->prof, t, j->nodes, d);
	if (user_cap(s))
		user_plan_add(s, j, t, d, 1);
}

/* sched.c */
void sched_start_job(struct sched *s, uint32_t slot, bf_time now);
void sched_fill_info(const struct sched *s, const struct job *j, struct sched_job_info *o);
void sched_emit(struct sched *s, enum sched_action_kind kind, uint8_t why, uint64_t job, bf_time t);

/* A queued job's promise moved later, to its resv: counted, told with the
 * cause, and its promise from now on. Room for the action was made. */
static inline void promise_broken(struct sched *s, struct job *j, uint8_t why)
{
	s->st.broken++;
	j->first_guarantee = j->resv;
	sched_emit(s, SA_BROKEN, why, j->id, j->resv);
}
void sched_violation(struct sched *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every event: `now` may not go back. SCHED_OK or an error. */
int  sched_advance(struct sched *s, bf_time now);
/* Room for k more actions, so an event never fails halfway. 0 or -1. */
int  sched_need_actions(struct sched *s, size_t k);

/* sched_reload.c: a promise that a change of policy moves later. */
void reload_moved(struct sched *s, struct job *j, bf_time was, bool node_lost_counts);

/* sched_easy.c: FCFS and EASY, and what CREASY shares of them. */
bf_time easy_shadow(const struct sched *s, const struct job *head, bf_time now, int64_t *extra);
/* The policy becomes one of the EASY family (its adopt): `head` (NULL:
 * none) is promised its shadow, every other job loses its promise. */
void easy_adopt(struct sched *s, bf_time now, struct job *head,
                const struct sched_policy_ops *from);
void easy_cap_lowered(struct sched *s, bf_time now);
/* The job put first takes the head's promise (their top). */
void easy_top_takes_promise(struct sched *s, uint32_t slot);
/* Shared with CREASY: the head's shadow (under a cap too), its promise,
 * and whether a job may backfill as far as the head's user goes. */
bf_time easy_capped_shadow(const struct sched *s, const struct job *head, bf_time now,
                           int64_t *extra);
void easy_promise_head(struct sched *s, struct job *head, bf_time shadow, bf_time now);
bool easy_spares_head(const struct sched *s, const struct job *head, const struct job *j,
                      bf_time shadow, bool ends_in_time);
/* Whether a queued job fits EASY's backfilling under the head's shadow as
 * far as nodes go (free, and ending by the shadow or within the extra
 * nodes) and its user may run one more; the head's user's place aside. */
bool easy_may_backfill(const struct sched *s, const struct job *j, bf_time shadow, int64_t extra,
                       uint32_t freen, bf_time now);
/* EASY's backfilling of one queued job under the head's shadow: it starts
 * if it fits the free nodes and ends by the shadow (ending then is
 * allowed) or fits in the extra nodes, which it then uses up, and, under
 * a cap, leaves the head's user a place; true if it started. */
bool easy_backfill(struct sched *s, const struct job *head, uint32_t slot, bf_time shadow,
                   int64_t *extra, uint32_t *freen, bf_time now);
/* After backfilling: the head must still have its nodes at its shadow. */
void easy_check_head(struct sched *s, const struct job *head, bf_time shadow);

/* A queued job in the order a forecast plans the queue (the policy's
 * order hook): its slot, and its arrival, to tell whether the slot still
 * holds it. */
struct queue_snap {
	uint32_t slot;
	uint64_t seq;
};

/* sched_cons.c: conservative backfilling. */
bf_time cons_anchor(const struct sched *s, const struct job *j, bf_time from, bf_time before,
                    bf_time clip);
/* Take back a job's reservation for a repair to place it again. */
void cons_evict(struct sched *s, uint32_t slot, enum sched_broken_why why);
/* sched_check.c: the node plan filled in anew, in an empty plan p with
 * room for it, from what it holds: the running holds, the nodes down, and
 * with `reserved` the queued jobs' reservations. */
void plan_fill(const struct sched *s, struct profile *p, bool reserved);

#endif
