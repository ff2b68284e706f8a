/* The job's supervisor (supervisor.c), entered in the child of
 * runner_start's fork and never left: the process that starts one job as
 * its owner, passes signals on to it, waits for it and records its end in
 * the spool (runner.h tells the whole of it). Its records there, each
 * STATUS_DIR/ID.KIND:
 *   sup     its identity ("pid P\nstart T\n"), synced before the job is
 *           forked (read by runner_sup_read)
 *   tmp     room for the end's record, allocated at its start
 *   status  the end ("wstatus W\nend E\n", then "usage ..." and
 *           "reason ..." lines), renamed from tmp once synced (read by
 *           runner_collect and runner_collect_usage)
 * (ID.start, the lock it holds for as long as it lives, is runner_start's.) */
#ifndef BF_SUPERVISOR_H
#define BF_SUPERVISOR_H
#include "runner_job.h"

/* Supervise job j. `intent` is the locked ID.start file (see
 * runner_start), whose lock the supervisor keeps until it exits; the
 * forwarded signals (SIGTERM, SIGUSR1, SIGUSR2) come blocked, and the
 * supervisor unblocks them once its handlers are in place. Ends with
 * _exit: 0 once the job's end is recorded, RUNNER_EXIT_UNSTARTED (no room
 * in the spool: runner.h), or 1 when it failed before the job ran (a
 * record says why, unless its descriptors could not be set up). */
_Noreturn void supervisor_main(const struct runner_job *j, int intent);

#endif
