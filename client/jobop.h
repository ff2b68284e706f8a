/* Hold and release queued jobs: bstop and bresume (a job's owner, or an
 * admin) and bctl hold and release (admins). One request, a line per job. */
#ifndef BF_JOBOP_H
#define BF_JOBOP_H
#include <stdbool.h>
#include "bf_time.h"
#include "proto.h"

/* The job ids in args[0..nargs) (usage errors are PROG's), sent as op
 * (PJ_LIMIT: with limit); admin: bctl's (refused unless the caller is an
 * admin). Prints one line per job ("Job 12: held") and returns the exit
 * code (enum client_exit). */
int jobop_run(const char *prog, const char *socket, enum proto_jobop op, bool admin,
               bf_time limit, int nargs, char **args);

/* The whole of bstop (PJ_HOLD) and bresume (PJ_RELEASE): options, then
 * jobop_run. */
int jobop_main(const char *prog, enum proto_jobop op, int argc, char **argv);

#endif
