/* What ps shows for a process of the daemon's: a job's supervisor is
 * "backfilld: job 12", not a copy of the daemon's command line. */
#ifndef BF_PROCTITLE_H
#define BF_PROCTITLE_H

/* Once, first thing in main: remember where the command line (and the
 * environment right after it) lie, and move the environment elsewhere so
 * that the title may use its room. */
void proctitle_init(int argc, char **argv);

/* Set the title (ps's args) and the short name (ps's comm, 15 bytes).
 * Where the command line's room is too short for the title, the short
 * name is the title. Without proctitle_init (tests): nothing. */
void proctitle_set(const char *title, const char *comm);

#endif
