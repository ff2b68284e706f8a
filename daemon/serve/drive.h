/* The scheduler driver: the pass, the group commit, starts, kills, timers. */
#ifndef BF_SERVE_DRIVE_H
#define BF_SERVE_DRIVE_H
#include "daemon.h"

int  drive_init(struct daemon *d);
/* Ask for the commit callback in this loop pass (a request changed state). */
void drive_want_commit(struct daemon *d);
/* Another turn at the next loop pass, after the loop has read the other
 * clients (drive_want_commit from inside a commit would run the commit
 * again at once): for work done a slice a turn. */
void drive_next_turn(struct daemon *d);
/* forecast_want, and the turns that finish the forecast it began: an
 * answer wants predictions; whether the ones shown are up to date. */
bool drive_want_forecast(struct daemon *d);
/* Announce the job's broken guarantee now if it still waits its turn:
 * before anything changes the job. */
void drive_announce_now(struct daemon *d, struct djob *j);
/* Jobs still wait for a place (a lost node took reservations back), or
 * broken guarantees to be told: an answer that shows guarantees waits for
 * the last slice, so none shows half a plan. */
/* The longest such an answer waits (a listing, bq -l, bsub's answer):
 * then it shows what there is. No ordinary user unsettles the plan (an
 * operator's move, a lost node, a switch of policy do), but an answer
 * waits for nothing without a bound. */
#define UNSETTLED_WAIT	((bf_time)2 * BF_SEC)
static inline bool drive_unsettled(const struct daemon *d)
{
	return sched_placing(d->sched) || d->announce_head < d->nannounce;
}
/* Run the pass, commit, then start jobs and answer waiting clients. */
void drive_commit(struct daemon *d);
/* Arm the timer for the core's next wake-up. */
void drive_arm_tick(struct daemon *d);
/* Terminate a job now, and kill it outright a little before the grace is
 * up or before gone_by (the end of its hold in the plan; BF_NEVER: none). */
void drive_kill(struct daemon *d, struct djob *j, bf_time gone_by);
/* A job whose supervisor died without a record: kill what it left. */
void drive_kill_orphans(struct daemon *d, struct djob *j, pid_t sup_pid, int64_t sup_start);
/* The final state of a job that ran, by why the daemon signalled it
 * (kill_why: 0 if it did not) and its wait status: killed at its limit,
 * cancelled, failed with a node; else done (exit 0) or exit (non-zero,
 * or a signal the daemon did not send). */
enum store_state drive_end_state(int kill_why, int wstatus);
/* The log's line of an ended job: "WHAT: state, exit N (or killed by
 * signal N), ran H:MM:SS[: reason]". */
void drive_log_end(const struct djob *j, const char *what);
/* Watch a started (or re-found) job's supervisor. */
int  drive_watch(struct daemon *d, struct djob *j);
/* Is the spool still there? Logs once when it is found gone. */
bool drive_spool_ok(struct daemon *d);
/* Arm ev for the monotonic time `due` (now, if past), unless nothing is
 * due or it is armed already; `what` names, in the warning if it cannot
 * be, the unlogged lines that wait (conn.c, ratelimit.c). */
void drive_timer_at(struct event *ev, bf_time due, const char *what);
/* The store failed while serving: refuse the waiting clients and exit 75
 * (a restart reloads what was committed). Returns only after a full disk,
 * once a turn: the reserve given back, the turn's rows written again in a
 * new transaction, which the caller goes on with (reserve.h). */
void drive_store_failed(struct daemon *d);
/* Put a job's row into the open transaction. */
int  drive_store(struct daemon *d, struct djob *j, const char *log_detail);

#endif
