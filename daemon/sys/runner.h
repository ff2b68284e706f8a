/* Running jobs: one supervisor process per job, which outlives the daemon.
 *
 * The daemon forks a supervisor; it starts its own session, forks the job
 * into a process group of its own, running as the job's owner in its
 * working directory with its output files and environment, waits for it,
 * kills what is left in the job's process group, and records the job's
 * exit status and end time durably in the spool (written to a temporary
 * file, synced, renamed) before it exits. The daemon watches supervisors
 * through pidfds, which work for a process that is no longer its child, so
 * after a restart it finds them again by pid and start time (a recycled
 * pid has another start time) and reads what ended meanwhile from the
 * spool.
 *
 * Signals go to the supervisor, which passes them on to the job's group:
 * runner_terminate() (SIGTERM to the job) and runner_kill() (SIGKILL).
 *
 * Given a cgroup (cgroup.h), the job's process joins it before it execs,
 * so everything the job starts is in it, setsid or not; the supervisor
 * stays outside, passes each signal on to the whole cgroup as well, and at
 * the end kills what is left there, waits until it is empty, reads its CPU
 * time and peak memory and removes it. Without one, the supervisor sweeps
 * /proc for the job's processes that left its group: those of its owner,
 * started since the supervisor, in the supervisor's session or carrying
 * the job's BSUB_JOBID and BSUB_HOSTFILE; each signal the group gets goes
 * to them too, and at the end they are killed until none is left.
 *
 * The job's process becomes its owner in an order that never lets the
 * owner attach to it (see become_owner in supervisor.c), gets every signal
 * at its default, and opens its output files without blocking on a FIFO.
 *
 * The daemon's side is runner.c; the supervisor process is supervisor.c;
 * what both read of /proc (start times, environments, sweeps) is procs.c. */
#ifndef BF_RUNNER_H
#define BF_RUNNER_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "bf_time.h"
#include "runner_job.h"

/* A supervisor's identity: pid and start time (clock ticks since boot, as
 * in /proc/PID/stat), so a recycled pid is not mistaken for it. */
struct runner_proc {
	pid_t pid;
	int64_t start_ticks;
	int pidfd;		/* readable once the supervisor has exited */
};

/* Start a job's supervisor. 0, or -1 with the reason in err. */
int  runner_start(const struct runner_job *j, struct runner_proc *p, char *err, size_t errlen);
/* Is a supervisor of this job alive (it holds the lock on the job's
 * ID.start, taken before the fork)? 1 yes, 0 no (none was ever forked, or
 * it has exited), -1 cannot tell. Unlike its ID.sup record, this is true
 * from the first instant of the supervisor's life. */
int  runner_intent(const char *status_dir, uint64_t id);
/* Find a supervisor again after a restart: 1 alive (pidfd opened), 0 gone. */
int  runner_find(pid_t pid, int64_t start_ticks, struct runner_proc *p);
/* Ask the supervisor to send SIGTERM / SIGKILL to the job's process group. */
int  runner_terminate(const struct runner_proc *p);
int  runner_kill(const struct runner_proc *p);
/* bkill -s: the supervisor passes `sig` on to the whole job. -1 (EINVAL)
 * for a bad signal or a supervisor too old to pass one on. */
int  runner_signal(const struct runner_proc *p, int sig);
/* bctl limit of a running cluster job: its node sides' own limit moves
 * to `seconds` from now (-1: none). -1 (EINVAL) for a supervisor too old
 * to take it. A local job's supervisor ignores it (the daemon enforces
 * the limit). */
int  runner_set_limit(const struct runner_proc *p, int64_t seconds);
/* After the pidfd turned readable: reap the supervisor if it is our child
 * and close the pidfd. */
/* Collect the exited supervisor: its wait status, or -1 if unknown (not
 * our child: adopted after a restart). */
int  runner_reap(struct runner_proc *p);
/* What the supervisor recorded: 1 (wait status, end time and, if the job
 * could not start, why: reason is "" otherwise), 0 (no record: the
 * supervisor died without one), -1 (unreadable record). */
int  runner_collect(const char *status_dir, uint64_t id, int *wstatus, bf_time *end,
                    char *reason, size_t reason_len);
/* What the job used, from the same record: 1 (u filled; a record of an
 * older daemon has no usage: both sources 0), 0 none, -1 unreadable. */
int  runner_collect_usage(const char *status_dir, uint64_t id, struct runner_usage *u);
/* The identity a supervisor recorded when it began (before it forked the
 * job): 1 found, 0 none (the job never started), -1 unreadable. */
int  runner_sup_read(const char *status_dir, uint64_t id, pid_t *pid, int64_t *start_ticks);
/* Did a cluster job's node side end it at its time limit by itself (the
 * daemon was down or unreachable then)? 2 yes, 1 no, 0 no record, -1
 * unreadable. */
int  runner_collect_at_limit(const char *status_dir, uint64_t id);
/* The nodes a cluster job's supervisor recorded as lost: each(node, why)
 * for each (at most RUNNER_MAX_DOWN). 1, 0 (no record), -1 unreadable. */
int  runner_collect_down(const char *status_dir, uint64_t id,
                         void (*each)(const char *node, const char *why, void *arg), void *arg);
/* Remove a job's records once the daemon has stored the end durably. */
void runner_forget(const char *status_dir, uint64_t id);
/* The job processes a lost supervisor left behind: SIGKILL to every process
 * still in its session (the job and all it started, unless one made a
 * session of its own) that runs as `uid`, started after the supervisor and
 * has BSUB_JOBID=job in its environment (a process that dropped it, or
 * its whole environment, escapes). Call it before reaping a supervisor
 * that was the daemon's child. Returns how many processes were signalled. */
int  runner_kill_orphans(pid_t sup_pid, int64_t sup_start, uid_t uid, uint64_t job);
/* A running job's supervisor found through the job's processes, when no
 * record of it is left (its spool records were removed): a process of
 * `uid` with BSUB_JOBID=job in its environment whose session leader is a
 * live root process. 1 found (pid and start time), 0 not. */
int  runner_find_by_job(uid_t uid, uint64_t job, pid_t *sup_pid, int64_t *sup_start);
/* A process's start time from /proc, or -1. */
int64_t runner_start_ticks(pid_t pid);

#endif
