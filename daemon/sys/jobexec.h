/* A job's process as its owner (see jobexec.c): the script, by the local
 * supervisor or the first node's node side, and a blaunch task, by a
 * node side. */
#ifndef BF_JOBEXEC_H
#define BF_JOBEXEC_H
#include <stdint.h>
#include "runner_job.h"

/* The job's script: its output files (opened as the owner), its
 * directory, its environment (j->env, then the job's BSUB_* and LSB_*
 * variables, then `extra`, NULL-terminated or NULL), exec'd through
 * j->launch if given, by /bin/sh if it has no #!. cgfd: the job's cgroup,
 * or -1. */
_Noreturn void jobexec_run(const struct runner_job *j, int cgfd, const char *const *extra,
                           int why);
/* A task: argv (NULL-terminated, argv[0] a path) in cwd with env (envc
 * entries, the caller's), the job's variables and `extra`, its standard
 * descriptors those of the caller (the node side's pipes). */
_Noreturn void jobexec_task(const struct runner_job *j, int cgfd, const char *const *argv,
                            const char *const *env, uint32_t envc, const char *const *extra,
                            const char *cwd, int why);

#endif
