/* The daemon under systemd (sd-daemon, libsystemd): readiness, status,
 * stopping and the watchdog through $NOTIFY_SOCKET, and the listening
 * socket from socket activation. Without systemd every call is harmless:
 * sd_notify does nothing when NOTIFY_SOCKET is unset, and without
 * LISTEN_FDS the daemon binds its socket itself (conn.c).
 *
 * What systemd is told (systemd/backfilld.service is Type=notify):
 *   READY=1      once the socket listens and the restore is committed, just
 *                before the event loop runs: a client that connects then is
 *                answered;
 *   STATUS=      "R running, Q queued, F of N nodes free", sent after a
 *                commit when it changed (a string compare per commit);
 *   WATCHDOG=1   every half WATCHDOG_USEC, from a timer of the event loop
 *                only, so a loop that hangs stops the pings;
 *   STOPPING=1   when a stop begins (SIGTERM, SIGINT). */
#ifndef BF_SD_H
#define BF_SD_H
#include <stdbool.h>
#include <stddef.h>

struct daemon;

/* Is a service manager waiting for this process's readiness (NOTIFY_SOCKET
 * set)? Then the daemon never detaches: the manager follows its main pid,
 * and a forked child's notifications would be refused (NotifyAccess=main). */
bool sysd_managed(void);
/* Set up (d->base exists): the state, and the watchdog timer if the
 * manager asks for one. 0, or -1 with the reason in err. */
int  sysd_init(struct daemon *d, char *err, size_t errlen);
/* The listening socket systemd passed: 1 (in *fd, made non-blocking), 0
 * (none passed: bind one), -1 refused with the reason in err (not exactly
 * one descriptor, not a listening Unix stream socket, or bound elsewhere
 * than --socket, where the clients look). */
int  sysd_listen_fd(struct daemon *d, int *fd, char *err, size_t errlen);
/* Is the listening socket systemd's? Its file belongs to backfilld.socket:
 * the daemon neither sets its mode nor removes it at exit. */
bool sysd_socket_inherited(const struct daemon *d);
void sysd_ready(struct daemon *d);
/* After a commit: STATUS= if it changed (after READY, until the stop). */
void sysd_status(struct daemon *d);
void sysd_stopping(struct daemon *d);
void sysd_free(struct daemon *d);

#endif
