/* A job's processes as /proc shows them, for the two sides of running a
 * job: the daemon (runner.c: finding a supervisor again, killing what a
 * lost one left behind) and the supervisor (supervisor.c: passing a
 * signal on to the processes that left the job's group, killing what is
 * left at the end). Linux only: pidfds, /proc/PID/stat and environ. */
#ifndef BF_PROCS_H
#define BF_PROCS_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A pidfd for pid (pidfd_open), or -1. */
int procs_pidfd(pid_t pid);
/* A process's session, start time (clock ticks since boot) and, if pgrp
 * is not NULL, process group: 0, or -1 if it is gone, unreadable or (unless
 * zombie_ok) a zombie. */
int procs_stat(pid_t pid, pid_t *session, int64_t *start, bool zombie_ok, pid_t *pgrp);
/* A process's start time, zombie or not, or -1. */
int64_t procs_start_ticks(pid_t pid);
/* Does the process's environment hold every one of the n entries? */
bool procs_environ_has(pid_t pid, const char *const *entry, int n);

/* Processes signalled by one run of sweeps (runner_kill_orphans, a
 * supervisor's), so that each counts once while it takes a moment to
 * die. */
struct procs_killed {
	pid_t pid[1024];
	int n, total;
};

/* Which of a job's processes a sweep takes: all of them run as `uid` and
 * started no earlier than `since` (the supervisor's start), and are not
 * the session's leader `sid` (the supervisor). Then either
 * - BOTH: in the session `sid` and carrying every marker (a lost
 *   supervisor's: its session id may have been given to another since);
 * - EITHER: in the session (a live supervisor's: only the job's processes
 *   can be in it), or carrying every marker (one that made a session of
 *   its own and kept its environment). */
enum procs_match { PROCS_BOTH, PROCS_EITHER };

struct procs_rule {
	pid_t sid;
	int64_t since;
	uid_t uid;
	const char *const *marker;
	int nmarker;
	enum procs_match match;
	pid_t skip_pgrp;	/* > 0: not this process group (signalled already) */
};

/* One sweep of /proc: sig to every live process the rule takes; how many
 * it took, and in *fresh how many of them k had not counted yet. */
int procs_sweep(const struct procs_rule *r, int sig, struct procs_killed *k, int *fresh);

#endif
