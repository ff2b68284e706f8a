/* bctl's job commands (hold, release, requeue, limit, top), apart from its
 * node and status commands (client/bctl.c) so each stays small. */
#ifndef BF_BCTL_JOBS_H
#define BF_BCTL_JOBS_H

/* Run `bctl CMD ARGS...` if CMD is a job command: argv[0] is CMD, and
 * socket_opt is bctl's --socket (or NULL). Returns the exit code (enum
 * client_exit), or -1 if CMD is not a job command. */
int bctl_jobs(const char *socket_opt, int argc, char **argv);

/* The job commands' lines for bctl --help. */
extern const char bctl_jobs_usage[];

#endif
