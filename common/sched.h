/* The scheduler core: a pure state machine shared by the live daemon and the
 * trace replay. It never reads a clock and never does I/O: every call takes
 * the current time, and everything it decides comes out as actions.
 *
 * Driving it (live and replay alike), at each instant `now`:
 *   1. report every job end at `now`        sched_end()
 *   2. report every arrival at `now`, in order  sched_submit()
 *      (and cancels, node changes, whenever they happen)
 *   3. run the scheduling pass              sched_run()
 *   4. act on sched_actions(), then sched_clear_actions()
 *   5. sleep until the next event or sched_next_wakeup(), then call
 *      sched_run() at that time even if nothing else happened.
 * `now` must never decrease between calls.
 *
 * Policies: FCFS, EASY and conservative backfilling, as stated in
 * SCHEDULING.md. Queue order is arrival (submission) order.
 *
 * Holding time: a job holds its nodes, in the plan, from its start until
 * start + estimate + kill_grace (the grace covers SIGTERM-to-exit time in the
 * live daemon; the replay uses 0), and at least one microsecond. Conservative
 * guarantees are computed with that holding time.
 *
 * Overruns of the plan. A job signalled with SA_KILL keeps its hold; if the
 * whole of it passed before the signal (no pass ran: the daemon was down),
 * it holds its nodes until now + kill_grace. A job still running when its
 * hold ends (at the end itself when the grace is positive, one microsecond
 * later with no grace, so a job that dies at its kill instant is not
 * overdue) keeps its nodes in the plan for as long again as it has overrun
 * its limit, at least a second; the plan is repaired as for a lost node and
 * every promise that moved later is announced with SA_BROKEN. A job that
 * will not die is re-planned O(log) times, not at every pass. When it ends,
 * the plan is compressed as for any early end.
 *
 * Late starts. A conservative job started by a pass that comes after its
 * reservation (a busy or suspended driver) keeps the end of its hold in
 * the plan when the delay fits in the grace: its limit is still start +
 * estimate, its grace is shorter by the delay, and no one else moves. A
 * longer delay gives it its whole hold from the late start, and the
 * reservations that overlaps are placed again and announced (BROKEN_LATE).
 *
 * A cap on running jobs per user (max_running_per_user, the "user job
 * limit"; 0, the default, is no cap and leaves every path exactly as
 * without it). Every job has a user (sched_submit_as; sched_submit is user
 * 0, and user 0 is capped like any other). Under a cap of c, no start
 * makes a user run more than c jobs; a queued job of a user who has c
 * running is not eligible: it keeps its place in the queue and becomes
 * eligible when one of them ends. Jobs of other users go ahead.
 *  - FCFS and EASY: when no job holds the head's promise, the head is
 *    the first eligible job in queue order (eligible jobs before it start
 *    while they fit, as from the head without a cap). Its shadow time is
 *    the first instant its nodes are free and its user has a place under
 *    the cap, as the running jobs' holds say. It keeps the head and that
 *    promise until it starts or leaves, even when a job before it becomes
 *    eligible again (that job may only backfill around it, under EASY's
 *    rules; FCFS starts it after the head): so a capped user's job ending
 *    never breaks a promise. Backfilling leaves the head's own user a
 *    place at the shadow: a job of that user starts ahead of it only if it
 *    ends by the shadow time or the user has two places free then. Only a
 *    lower cap (sched_set_user_cap) can take the head's user's place at
 *    the shadow: the promise then moves to the first instant the user has
 *    one, SA_BROKEN(BROKEN_USER_CAP).
 *  - Conservative: each user also has a plan, the number of its jobs as a
 *    step function of time (running holds and reservations, each counting
 *    one). A reservation is placed only where the job's nodes are free and
 *    its user has fewer than c jobs planned over its whole hold;
 *    compression moves a job earlier only where both allow. A due job
 *    whose user still runs c jobs (one overrunning its plan) waits as for
 *    nodes that are not free yet. A change of policy to conservative
 *    places the head's holder first (its shadow stays its guarantee),
 *    then the queue in order; without a cap the holder is the first. */
#ifndef BF_SCHED_H
#define BF_SCHED_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

/* CREASY: EASY with the queue ordered by priority instead of arrival
 * (SCHEDULING.md, "Priority order"): alpha * criticality + minutes waited,
 * criticality = 0.04 / (0.05 * (minutes waited + estimate in minutes) +
 * 1)^2, ties in arrival order. The highest-priority job is the head, which
 * backfilling reserves for; a job that overtakes it takes its reservation
 * (the old head is told, BROKEN_PRIORITY). alpha = 0 orders by waiting time,
 * which is arrival order: EASY's schedule. New policies go at the end:
 * drivers store their names, not these numbers. */
enum sched_policy { SCHED_FCFS, SCHED_EASY, SCHED_CONSERVATIVE, SCHED_CREASY };

/* The largest CREASY alpha: criticality is at most 0.04, so this is
 * a boost of up to 4 * 10^7 minutes, far past any queue's waits. */
#define SCHED_MAX_ALPHA 1e9

static inline bool sched_alpha_ok(double alpha)
{
	return alpha >= 0 && alpha <= SCHED_MAX_ALPHA;	/* (false for a NaN) */
}
/* An alpha as written on a command line or in the configuration file: a
 * decimal number, the whole string, within the range above. 0 or -1. */
int sched_alpha_parse(const char *s, double *out);

const char *sched_policy_name(enum sched_policy p);
/* Returns 0 and sets *out, or -1 for an unknown name. */
int sched_policy_parse(const char *name, enum sched_policy *out);

enum sched_state { JOB_QUEUED, JOB_RUNNING };

/* Why a running job ended, as the driver reports it. */
enum sched_end_how {
	END_EXITED,		/* the job finished by itself */
	END_KILLED,		/* killed at its limit (overran its estimate) */
	END_CANCELLED,		/* cancelled by a user while running */
	END_NODE_FAILED,	/* killed because a node it held went down */
};

enum sched_error {
	SCHED_OK = 0,
	SCHED_E_NOMEM = -1,	/* out of memory: state unchanged */
	SCHED_E_INVAL = -2,	/* bad argument (0 nodes, bad estimate, ...) */
	SCHED_E_TOOBIG = -3,	/* more nodes than the partition has */
	SCHED_E_DUP = -4,	/* job id already in the system */
	SCHED_E_NOJOB = -5,	/* no such job (or not in the needed state) */
	SCHED_E_TIME = -6,	/* now is earlier than a previous call's now */
};
const char *sched_strerror(int err);

/* The largest partition: node indices and counts stay far from overflow. */
#define SCHED_MAX_NODES (UINT32_MAX / 4)

/* The live daemon's loop turn: sched_run() calls, each with a slice of
 * SCHED_LIVE_SLICE units of compression (compress_slice) or of
 * SCHED_LIVE_PLACES jobs placed again (place_slice), until there is no
 * more to do, SCHED_LIVE_CALLS calls were made, or SCHED_LIVE_TURN has
 * passed (the daemon reads the clock, the core does not). The count
 * bounds what a turn moves, which the daemon then stores (about 200 jobs
 * where every job moves); the time bounds a turn where a unit of work
 * costs ten times more (a step of a search takes 25 to 250 ns, by the
 * plan's memory), to a small slice past it. */
#define SCHED_LIVE_SLICE 512
#define SCHED_LIVE_PLACES 6
#define SCHED_LIVE_CALLS 8
#define SCHED_LIVE_TURN (BF_SEC / 200)	/* 5 ms */

struct sched_job_info;

struct sched_params {
	enum sched_policy policy;
	uint32_t nodes;		/* partition size, 1 .. SCHED_MAX_NODES */
	bf_time kill_grace;	/* >= 0 */
	/* For tests: conservative compression searches every hole before a
	 * job's reservation instead of only up to the end of the regions freed
	 * since it settled. Same schedule, slower; the reference to check the
	 * bound against. */
	bool compress_unbounded;
	/* For tests: a repair finds each reservation to take back by a walk
	 * from the queue's tail, not by its sweep in time order, and places
	 * each job it took back from now, without the bounds the jobs placed
	 * before it give. Same plan. */
	bool repair_reference;
	/* The event order of the literature's simulators (pyss and those built
	 * on it; replay --per-event): conservative compresses after every end,
	 * and each compression is one pass in arrival order, not settled. The
	 * driver runs a pass after every single event. An end before its
	 * planned end asks for the compression itself; one exactly at it
	 * gives its nodes back only, and the driver asks for its compression
	 * with sched_compress_next() when that end's turn comes (see there). */
	bool compress_per_end;
	/* Passes of a settled compression per call (sched_run, an arrival);
	 * 0: until settled, as a replay wants. The live daemon gives 1: the
	 * rest follow one a call, sched_next_wakeup() asking for them at once,
	 * so clients are served between passes (a fixed point can take dozens
	 * of passes of the whole queue). Every pass leaves a whole plan, with
	 * guarantees only earlier; with no event in between, the passes are
	 * the same as in one call. */
	uint32_t compress_passes;
	/* Work one call of compression does at most (0: a whole pass), in
	 * units: a job visited 1, searched 4 more and one a 40 steps of the
	 * search, moved 16 more. A pass over
	 * a deep queue is cut into slices, one a call, between which the
	 * daemon serves clients. A slice leaves a whole plan, as a pass does:
	 * the jobs it reached have moved (only earlier), the others keep their
	 * places; the next call goes on where it stopped. The live daemon
	 * gives SCHED_LIVE_SLICE and compress_passes = 1. */
	uint32_t compress_slice;
	/* Conservative: jobs one call places at most of those waiting for a
	 * place (0: all at once). A lost node, a longer hold, a lower cap or
	 * a job moved to the front can take back many reservations, each
	 * placed again by a search of the whole plan: with a slice they are
	 * placed in queue order over several calls (see sched_placing). The
	 * live daemon gives SCHED_LIVE_PLACES. */
	uint32_t place_slice;
	/* Jobs one user may have running at once; 0: no cap. Changed live
	 * with sched_set_user_cap(). */
	uint32_t max_running_per_user;
	/* CREASY's weight of criticality, 0 .. SCHED_MAX_ALPHA (read by that
	 * policy only; changed live with sched_set_alpha()). */
	double alpha;
	/* The priority hook of EASY in priority order (SCHED_CREASY's pass),
	 * for other EASY-family policies: a queued job's priority at `now`,
	 * higher first, ties in arrival order (jobs put first still come
	 * first); NULL: CREASY's, from alpha. It must depend on the job and
	 * now alone: a pass calls it for many jobs in no fixed order (and
	 * without CREASY's bound, for every queued job). NaN counts as the
	 * lowest. */
	double (*priority)(const struct sched_job_info *job, bf_time now, void *arg);
	void *priority_arg;
};

enum sched_action_kind {
	/* Start job: its nodes are sched_job_nodes(); t = now. */
	SA_START,
	/* Job reached start + estimate: signal it now; when it has exited the
	 * driver reports sched_end(END_KILLED). Also for END_NODE_FAILED (a
	 * node it holds went down) and for cancelling a running job. t: the
	 * end of its hold, when the plan gives its nodes to other jobs (the
	 * live driver kills it outright a little before, or after the grace
	 * if that comes first). */
	SA_KILL,
	/* A promise moved later: t is the job's new, later guaranteed start,
	 * or BF_NEVER if it cannot be placed with the nodes that are up (it is
	 * placed again when nodes return). why: enum sched_broken_why.
	 * Conservative: any queued job; EASY and FCFS: the head (its shadow
	 * time). Only a lost node, a job overrunning its plan, a pass that
	 * came late, or a change of policy (see sched_broken_why) does this. */
	SA_BROKEN,
};

enum sched_kill_why { KILL_OVERRUN, KILL_CANCELLED, KILL_NODE_FAILED };
/* Why a promise moved later: a node was lost; a killed job kept its nodes
 * past its hold; the driver's pass came late (the daemon was stopped,
 * killed or suspended when a job was due to start or to be signalled,
 * and the plan had to make room for that delay); the policy changed
 * to one that promises that job nothing (sched_set_policy; t = BF_NEVER);
 * or the cap on running jobs per user was lowered (sched_set_user_cap),
 * also while the daemon was down (sched_restore_queued_as); or an operator
 * drained a node (sched_node_drain), raised a time limit
 * (sched_set_limit) or put a job first (sched_top); or, under CREASY, a
 * job of higher priority became the head (t = BF_NEVER); or a job it
 * depends on was moved later (BROKEN_DEPENDENCY: its own cause was told
 * to it).
 * New reasons go at the end: drivers store and print these numbers. */
enum sched_broken_why { BROKEN_NODE_LOST, BROKEN_OVERRUN, BROKEN_LATE, BROKEN_POLICY,
                        BROKEN_USER_CAP, BROKEN_NODE_DRAINED, BROKEN_LIMIT, BROKEN_TOP,
                        BROKEN_PRIORITY, BROKEN_DEPENDENCY };

struct sched_action {
	enum sched_action_kind kind;
	uint8_t why;		/* SA_KILL: sched_kill_why; SA_BROKEN: sched_broken_why */
	uint64_t job;
	bf_time t;
};

/* A read-only view of one job in the system. */
struct sched_job_info {
	uint64_t id;
	uint32_t nodes;
	uint32_t user;		/* as given to sched_submit_as (sched_submit: 0) */
	enum sched_state state;
	bf_time submit, estimate;
	bf_time start;		/* running: actual start; else BF_NEVER */
	/* Running: when the plan gives its nodes to others (start + estimate
	 * + grace, unless a late start or a late kill moved it). A driver
	 * that persists the plan keeps this, for sched_restore_running(). */
	bf_time hold_end;
	/* Queued: the start the core promises (conservative: every job; EASY and
	 * FCFS: the head job's shadow time) or BF_NEVER when there is none. */
	bf_time guarantee;
	bf_time first_guarantee;	/* the first promise made; BF_NEVER if none */
	bool backfilled;	/* started while an earlier arrival still waited */
	bool kill_sent;
	/* Queued: it waits for jobs it depends on to start or end (preds: how
	 * many), or for its driver's word (waiting; sched_dep_release). */
	uint32_t preds;
	bool waiting;
};

/* Counters the core keeps for reports and --check. compressions counts the
 * calls that compressed (with compress_passes, each part of a settling). */
struct sched_stats {
	uint64_t started, backfilled, ended, cancelled_queued;
	uint64_t compressions, reanchors, kills_sent, broken;
	uint64_t max_queue;
	uint64_t hold_extensions;	/* a signalled job kept its nodes past its hold */
	/* Queued jobs placed again by a repair (a lost node, a longer hold)
	 * or a restore, and those whose guarantee a change of policy changed:
	 * with compressions and broken, every way a queued job's guarantee
	 * changes other than its own arrival. A driver that persists
	 * guarantees re-reads them all when the sum moves. */
	uint64_t replans;
	/* Compression: queued jobs looked at, and those of them searched for
	 * an earlier place (the others could not move: see sched_cons.c);
	 * reanchors counts those that moved. */
	uint64_t compress_visits, compress_searches;
};

struct sched;

int  sched_new(struct sched **out, const struct sched_params *params);
void sched_free(struct sched *s);

/* A job arrives. Conservative: it gets its reservation at once.
 * sched_submit is sched_submit_as with user 0. */
int  sched_submit(struct sched *s, bf_time now, uint64_t id, uint32_t nodes, bf_time estimate);
int  sched_submit_as(struct sched *s, bf_time now, uint64_t id, uint32_t nodes,
                     bf_time estimate, uint32_t user);
/* Dependencies. A job may depend on jobs in the system (queued or
 * running): it starts only after each has ended (SCHED_DEP_END) or
 * started (SCHED_DEP_START). The core knows nothing of conditions (done,
 * exit, ||, !): a driver that evaluates one gives the core every job the
 * condition names that has not decided it yet, each with cond set, and
 * `waiting`: the job starts only once the driver says the condition is
 * met (sched_dep_release, which also drops the cond edges: an || met
 * early lets it start while other jobs it named still run), and the
 * driver cancels it if it can never be met. An edge without cond is an
 * order of its own (a job array's cap on elements at once: the k-th
 * element after the element k before it), which holds until that job
 * ends or starts, and which a release leaves.
 *
 * Conservative: a job is placed no earlier than the latest end (start)
 * its predecessors can have in the plan: a running one's hold, a queued
 * one's reservation plus its hold. So every step of a chain has a
 * guaranteed start. When a predecessor moves earlier or ends early, the
 * next compression moves its successors earlier; a predecessor placed
 * later (a lost node, a longer hold, a limit) takes its successors'
 * places back with it, and each that lands later than promised is told,
 * SA_BROKEN(BROKEN_DEPENDENCY). A job waiting for its driver's word keeps
 * its place: if that comes due first (the word comes at the instant its
 * predecessors end), it starts when the word comes, late by as much.
 * EASY, FCFS and CREASY pass over a job that may not start yet, as over a
 * job of a user at the cap: it is never the head, and nothing waits for
 * it; a forecast plans it after the ends of its predecessors.
 *
 * Predecessors come before their successors in the queue: a job can
 * depend only on jobs submitted before it, and sched_top refuses a job
 * that waits (SCHED_E_INVAL). */
enum sched_dep_kind { SCHED_DEP_END = 0, SCHED_DEP_START = 1 };
struct sched_dep {
	uint64_t job;
	uint8_t kind;		/* enum sched_dep_kind */
	bool cond;
};
#define SCHED_MAX_DEPS 100000	/* edges of one job */

/* A job arriving or restored with what sched_submit_as and
 * sched_restore_queued_as take, and its dependencies. SCHED_E_NOJOB if
 * a predecessor is not in the system (a START one that runs already is
 * passed over: it has started), SCHED_E_INVAL for more than
 * SCHED_MAX_DEPS or a job named twice. */
struct sched_new_job {
	uint64_t id;
	uint32_t nodes;
	bf_time estimate;
	uint32_t user;
	const struct sched_dep *deps;
	uint32_t ndeps;
	bool waiting;
	bf_time submit, guarantee;	/* restore only */
};
int  sched_submit_job(struct sched *s, bf_time now, const struct sched_new_job *nj);
int  sched_restore_queued_job(struct sched *s, bf_time now, const struct sched_new_job *nj);
/* The driver's word: a waiting job's condition is met. Its cond edges
 * go; it may start once its other predecessors allow (conservative: the
 * next compression may move it earlier). SCHED_E_NOJOB unless queued. */
int  sched_dep_release(struct sched *s, bf_time now, uint64_t id);
/* A running job ended. */
int  sched_end(struct sched *s, bf_time now, uint64_t id, enum sched_end_how how);
/* With compress_per_end: the next pass compresses (conservative; nothing
 * else under the other policies), as after an end before its planned end.
 * The literature's simulator plans in estimates: a job that ends exactly
 * at its planned end is gone from its plan from the first event of that
 * instant, yet its end compresses in its own turn, after the arrivals of
 * the instant. The replay (--per-event) gives such an end's nodes back
 * first (sched_end) and calls this at its turn. */
void sched_compress_next(struct sched *s);
/* Cancel: a queued job leaves at once (returns 0); for a running job an
 * SA_KILL(KILL_CANCELLED) is emitted and the driver reports its end later
 * (returns 1). */
int  sched_cancel(struct sched *s, bf_time now, uint64_t id);
/* A node goes down or comes back. Jobs on a lost node get SA_KILL; queued
 * guarantees that no longer fit are moved later with SA_BROKEN. */
int  sched_node_down(struct sched *s, bf_time now, uint32_t node);
int  sched_node_up(struct sched *s, bf_time now, uint32_t node);
/* An operator drains a node: it takes no new job, and the job it runs
 * finishes (it is not signalled). In the plan the node is out from the end
 * of that job's hold (now if idle), exactly as for sched_node_down, and
 * guarantees that no longer fit are moved later with SA_BROKEN
 * (BROKEN_NODE_DRAINED). sched_node_up brings it back. A drained node that
 * then goes down (sched_node_down) has its job signalled; a node down is
 * already out, and draining it changes nothing. */
int  sched_node_drain(struct sched *s, bf_time now, uint32_t node);
/* Restart: rebuild what a previous run left, before any other event, all
 * at the same `now`: first every running job, adopted on exactly the nodes
 * it holds with its real start and the end of its hold in the plan as
 * sched_job_info() last gave it (BF_NEVER: start + estimate + grace; a
 * limit that passed meanwhile is signalled at the next pass); then every queued job in arrival order with its
 * submit time and the start promised to it (BF_NEVER if none). Conservative
 * keeps each promise that still fits and emits SA_BROKEN for one that does
 * not (one that passed while the daemon was down counts as kept if the job
 * can start now). SCHED_E_INVAL for a bad node list or times. */
int  sched_restore_running(struct sched *s, bf_time now, uint64_t id, bf_time submit,
                           bf_time estimate, bf_time start, bf_time hold_end,
                           const uint32_t *nodes, uint32_t count);
int  sched_restore_queued(struct sched *s, bf_time now, uint64_t id, bf_time submit,
                          uint32_t nodes, bf_time estimate, bf_time guarantee);
/* The same, with the job's user (the calls above: user 0). A restored
 * running job counts towards its user's cap even past it (the cap may have
 * been lowered meanwhile: running jobs are never stopped for it); under
 * conservative a promise that fits the nodes but no longer the cap is
 * placed again and announced with BROKEN_USER_CAP. */
int  sched_restore_running_as(struct sched *s, bf_time now, uint64_t id, bf_time submit,
                              bf_time estimate, bf_time start, bf_time hold_end,
                              const uint32_t *nodes, uint32_t count, uint32_t user);
int  sched_restore_queued_as(struct sched *s, bf_time now, uint64_t id, bf_time submit,
                             uint32_t nodes, bf_time estimate, bf_time guarantee,
                             uint32_t user);
/* A restored queued job that an operator had put first (sched_top) before
 * the restart: it keeps that mark (CREASY orders it before any priority).
 * Its place is where the restores put it: restore the jobs put first
 * first, the latest of them first. SCHED_E_NOJOB if it is not queued. */
int  sched_restore_top(struct sched *s, uint64_t id);
/* An operator's reload, at `now` like any event (report the instant's ends
 * first), followed by a pass as usual.
 *
 * sched_set_policy: from the next pass on, schedule by policy p, exactly as
 * a scheduler created with p would from the same running jobs, plan and
 * queue. p already the policy: nothing changes. SCHED_E_INVAL for an
 * unknown policy; SCHED_E_NOMEM leaves the state unchanged.
 *  - To conservative: every queued job, in queue order, is placed as if it
 *    arrived now in that order; that is its guarantee from now on (and its
 *    first_guarantee if it had none).
 *  - From conservative: every reservation is dropped. The head is promised
 *    its shadow time, which is never later than its reservation: that had
 *    the head's nodes free over its whole hold with every other
 *    reservation in the plan, and the shadow is the first instant they are
 *    free with the running jobs only. Every other job that had a guarantee
 *    loses it: SA_BROKEN(BROKEN_POLICY, t = BF_NEVER), and its
 *    first_guarantee is BF_NEVER again.
 *  - EASY and FCFS promise the head the same shadow time.
 * So a change of policy never moves the head's promise later by itself:
 * with the running jobs only, free nodes never fall after now, and the
 * shadow is the earliest start at all. One that the plan moved since the
 * last pass (a hold that grew, a lost node, a promise that passed unkept)
 * is announced at the change, with that cause. As everywhere, a promise
 * that passed counts as kept when the job may start now. Each queued job
 * whose guarantee changes counts in st.replans, each announcement in
 * st.broken.
 *
 * sched_add_nodes: the partition grows by `count` nodes, indices
 * prm.nodes .. prm.nodes + count - 1 (sched_get_params() shows the new
 * size), up and free from now; jobs that were too large may be submitted.
 * Conservative compresses the plan before the next arrival or pass, so
 * guarantees only move earlier; EASY and FCFS may start jobs at the next
 * pass. count 0: nothing changes. SCHED_E_INVAL past SCHED_MAX_NODES;
 * SCHED_E_NOMEM leaves the state unchanged. (Nodes are never removed: a
 * node that goes away is a node down.) */
int  sched_set_policy(struct sched *s, bf_time now, enum sched_policy p);
int  sched_add_nodes(struct sched *s, bf_time now, uint32_t count);
/* sched_set_user_cap: at most `cap` running jobs per user from now on (0:
 * no cap); sched_get_params() shows it. Same cap: nothing changes.
 * Running jobs are never stopped for it: a user above a lower cap starts
 * nothing until below it.
 *  - Lower (or a first cap): conservative takes back, per user, the
 *    reservations of the latest arrivals wherever the user's plan holds
 *    more than `cap` jobs, and places them again in arrival order; each
 *    that lands later than promised is announced, SA_BROKEN
 *    (BROKEN_USER_CAP). EASY and FCFS: a head whose user has no place
 *    under the new cap at its shadow is promised the first instant it
 *    has one, and told (BROKEN_USER_CAP).
 *  - Higher (or 0): conservative compresses before the next arrival or
 *    pass, so guarantees only move earlier; nobody is told.
 * As for a change of policy, each job placed again counts in st.replans,
 * each announcement in st.broken. SCHED_E_NOMEM leaves the state
 * unchanged. */
int  sched_set_user_cap(struct sched *s, bf_time now, uint32_t cap);
/* sched_set_alpha: CREASY's alpha from the next pass on (any policy keeps
 * it for when CREASY is chosen). SCHED_E_INVAL outside 0 ..
 * SCHED_MAX_ALPHA or not a number. */
int  sched_set_alpha(struct sched *s, bf_time now, double alpha);
/* A job's time limit becomes `estimate` (an operator's bctl limit, or its
 * owner shortening it). Its hold keeps its grace (estimate + what its
 * hold had past its old limit).
 *  - Queued: conservative places it again from now; a shorter limit finds
 *    its old place or an earlier one (that place still fits it), and what
 *    it leaves is compressed into; a longer one may land later, and the
 *    job is told (SA_BROKEN, BROKEN_LIMIT). EASY and FCFS plan with it
 *    from the next pass.
 *  - Running: it is signalled at start + estimate (at the next pass if
 *    that has passed: the limit is then the time it has run). Shorter:
 *    its hold ends earlier and the plan compresses. Longer: its hold grows
 *    and, as for a job that overruns, every promise it now overlaps is
 *    placed again and announced (BROKEN_LIMIT).
 * SCHED_E_NOJOB for no such job, SCHED_E_INVAL for a bad estimate or a
 * job already signalled; SCHED_E_NOMEM leaves the state unchanged. */
int  sched_set_limit(struct sched *s, bf_time now, uint64_t id, bf_time estimate);
/* An operator puts a queued job first in the queue (bctl top).
 *  - Conservative: the plan is made again in the new queue order, the job
 *    first: it gets the earliest start the running jobs allow, and every
 *    other queued job is placed after it in order; each that lands later
 *    than promised is told (SA_BROKEN, BROKEN_TOP), the others may move
 *    earlier.
 *  - EASY and FCFS: it is the head from the next pass, promised its
 *    shadow time; the head before it loses its promise and is told
 *    (SA_BROKEN, BROKEN_TOP, t = BF_NEVER).
 * Already first: nothing changes. SCHED_E_NOJOB if it is not queued;
 * SCHED_E_NOMEM leaves the state unchanged. */
int  sched_top(struct sched *s, bf_time now, uint64_t id);
/* The scheduling pass: compress if needed, start what can start, signal
 * jobs at their limit. Cheap when nothing changed. */
int  sched_run(struct sched *s, bf_time now);
/* When the core wants sched_run() called even if no event comes (a kill
 * deadline, a reservation falling due at an instant no end marks; `now` of
 * the last event if no pass followed it), or BF_NEVER. */
bf_time sched_next_wakeup(const struct sched *s);

/* Actions produced since the last clear, in order. */
const struct sched_action *sched_actions(const struct sched *s, size_t *count);
void sched_clear_actions(struct sched *s);

/* The queued jobs whose guaranteed or promised start (info.guarantee)
 * changed since the last call, each once, in no set order: what a driver
 * that keeps a copy of the guarantees must look at, instead of every
 * queued job after every pass. */
void sched_drain_moved(struct sched *s, int (*visit)(const struct sched_job_info *, void *),
                       void *arg);

/* Queries. */
/* Conservative with place_slice: some queued jobs wait for their place (a
 * repair or a move to the front took their reservations back, or they
 * arrived meanwhile); each sched_run() places the next slice. Until then
 * their guarantees are not known (sched_job_info gives the old promise,
 * or BF_NEVER for a new job), and a reader that wants a whole plan waits. */
bool sched_placing(const struct sched *s);
int  sched_job_info(const struct sched *s, uint64_t id, struct sched_job_info *out);
/* A running job's nodes (ascending indices); returns the count and writes
 * at most `cap` of them. */
uint32_t sched_job_nodes(const struct sched *s, uint64_t id, uint32_t *out, uint32_t cap);
/* Visit running jobs (in no particular order); stop early if visit returns
 * non-zero. */
void sched_foreach_running(const struct sched *s,
                           int (*visit)(const struct sched_job_info *, void *), void *arg);
/* Visit queued jobs in queue order; stop early if visit returns non-zero. */
void sched_foreach_queued(const struct sched *s,
                          int (*visit)(const struct sched_job_info *, void *), void *arg);
/* Predicted start of every queued job in queue order, assuming each job
 * runs for its full estimate (conservative: the guarantees): EASY and FCFS
 * plan the queue in order on a copy of the running holds, CREASY in its
 * order of priority at now. Written to out[i]
 * for the i-th queued job, the first cap of them; returns the queue
 * length. A search and a reservation per job: for a long queue, the same
 * in slices with sched_forecast_*. */
size_t sched_predict(const struct sched *s, bf_time now, bf_time *out, size_t cap);
/* sched_predict in slices: a forecast keeps its copy of the plan and the
 * last job it planned. Each step plans up to max more jobs in queue order
 * (CREASY: in its order at the forecast's making, then the jobs that
 * arrived since) from `now` on (never before the previous ones for FCFS), calling out for
 * each; it returns 1 at the queue's tail, 0 if jobs remain. Stepped again
 * later, it plans the jobs that joined the tail since, where a forecast
 * made at once would place them. Any other change to the queue or the
 * plan leaves it out of date: the caller makes a new one (a step notices
 * only that the last job planned left: SCHED_E_NOJOB). SCHED_E_NOMEM. */
struct sched_forecast;
struct sched_forecast *sched_forecast_new(const struct sched *s, bf_time now);
int sched_forecast_step(const struct sched *s, struct sched_forecast *f, bf_time now,
                        uint32_t max, void (*out)(uint64_t id, bf_time t, void *arg), void *arg);
/* After SCHED_E_NOJOB: the forecast goes on from the first job that
 * arrived after the one that left (a step over the jobs queued behind
 * it): one out of date, which a caller would rather finish than make
 * anew, as the queue keeps changing. Returns 0. */
int sched_forecast_resume(const struct sched *s, struct sched_forecast *f);
void sched_forecast_free(struct sched_forecast *f);
/* The plan as steps from now on: at t[i] the plan has free[i] nodes free
 * (conservative: after every reservation; EASY/FCFS: after the running
 * jobs). At most cap steps; returns how many were written. */
size_t sched_profile_steps(const struct sched *s, bf_time now, bf_time *t, int64_t *free_nodes,
                           size_t cap);
/* The running job on a node: true with its id in *job, or false (idle,
 * out of range). */
bool sched_node_job(const struct sched *s, uint32_t node, uint64_t *job);
uint32_t sched_free_nodes(const struct sched *s);
uint32_t sched_queue_len(const struct sched *s);
uint32_t sched_running_len(const struct sched *s);
const struct sched_stats *sched_get_stats(const struct sched *s);
const struct sched_params *sched_get_params(const struct sched *s);
/* The grace for jobs submitted from now on (a reload): a queued or
 * running job keeps the hold it was planned with, so no promise moves. */
int  sched_set_kill_grace(struct sched *s, bf_time kill_grace);
/* Restore: the acknowledged plan had [from, to) held by a job that is not
 * restored (it ended, failed or was lost while the driver was down). The
 * first compression looks for room there, and only there: a restored
 * plan is compressed at the cost of what changed, not of the whole plan.
 * Conservative only (a no-op otherwise); SCHED_E_INVAL for an empty span. */
int  sched_restore_freed(struct sched *s, bf_time from, bf_time to);

/* Full consistency check (O(nodes + jobs); with a cap per user, O(jobs
 * log jobs) more): nodes held once, free counts agree with the profile,
 * guarantees kept; each user's running count and plan agree with its jobs,
 * and no reservation puts a user above the cap. Returns 0, or -1 with a message
 * in buf. The cheap per-start checks run always; violations are counted. */
int  sched_check(const struct sched *s, bf_time now, char *buf, size_t len);

/* What only a history shows, for a driver that checks after every event
 * (replay --check, the tests): the promises it saw, job by job. A queued
 * job's promise (info.guarantee: conservative's guarantee, the EASY
 * family's head's shadow) never moves later unless an SA_BROKEN told it;
 * no job starts after its promise; and no promise comes (before now, or
 * at now after a pass) with the job still queued, but for a job that may
 * not start yet or a cause to be told (a job late to die, a node out).
 * sched_watch() takes every action not yet cleared, so call it once after
 * each event and each pass, before sched_clear_actions(). Job ids index
 * its table: ids below SCHED_WATCH_MAX_ID are watched (a replay's and a
 * test's are small). Returns 0, or -1 with a message in buf (out of
 * memory: 0, nothing watched). */
#define SCHED_WATCH_MAX_ID (1u << 26)
struct sched_watch;
struct sched_watch *sched_watch_new(void);
void sched_watch_free(struct sched_watch *w);
int  sched_watch(struct sched_watch *w, const struct sched *s, bf_time now, bool after_pass,
                 char *buf, size_t len);

#endif
