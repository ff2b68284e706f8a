/* A session on an ssh ControlMaster, opened without an ssh client: the
 * job's supervisor speaks OpenSSH's multiplexing protocol (PROTOCOL.mux in
 * OpenSSH's sources, version 4) to the master's control socket itself,
 * handing it the three descriptors of the session's standard input,
 * output and error. A start then costs no process on the daemon's host
 * (an ssh client's start, its libraries and its configuration, was a third
 * of the CPU time of a one-node job's start). Where no master listens yet,
 * the caller runs ssh, which becomes one (ControlMaster=auto). */
#ifndef BF_SSHMUX_H
#define BF_SSHMUX_H
#include <stddef.h>

/* Open a session running `command` on the master at `path`, with in, out
 * and err as its standard descriptors (the master keeps its own copies).
 * The control connection, to watch for the session's end, or -1 with why
 * (no master, a refused session: the caller falls back to ssh). */
int sshmux_open(const char *path, const char *command, int in, int out, int err, char *why,
                size_t whylen);
/* What came on a session's control connection: 1 the session ended with
 * *exitval (ssh's exit status), 0 nothing final yet, -1 the master went
 * away without saying (the connection to the node is gone). */
int sshmux_poll(int fd, int *exitval);

#endif
