/* The sd-daemon glue: see sd.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <event2/event.h>
#include <systemd/sd-daemon.h>
#include "sched.h"
#include "sys/log.h"
#include "daemon.h"
#include "sd.h"

struct sysd {
	struct event *watchdog_ev;
	bool inherited;		/* the listening socket came from systemd */
	bool ready;		/* READY=1 sent: STATUS= updates from now on */
	bool warned;		/* a notification failed (logged once) */
	char status[128];	/* the last STATUS= sent */
};

bool sysd_managed(void)
{
	const char *s = getenv("NOTIFY_SOCKET");

	return s && *s;
}

/* One notification. A failure (the manager gone, a full socket buffer) is
 * logged once and otherwise ignored: serving matters more than telling. */
static void notify(struct daemon *d, const char *text)
{
	int r = sd_notify(0, text);

	if (r < 0 && d->sysd && !d->sysd->warned) {
		d->sysd->warned = true;
		errno = -r;
		log_warn("notifying the service manager (NOTIFY_SOCKET)");
	}
}

static void watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	notify(arg, "WATCHDOG=1");
}

int sysd_init(struct daemon *d, char *err, size_t errlen)
{
	uint64_t usec = 0;
	int r;

	if (!(d->sysd = calloc(1, sizeof *d->sysd))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* WATCHDOG_USEC (and WATCHDOG_PID, if set, naming this process): the
	 * unit's WatchdogSec=. Pinged at half the interval, the usual margin. */
	r = sd_watchdog_enabled(0, &usec);
	if (r < 0) {
		snprintf(err, errlen, "WATCHDOG_USEC or WATCHDOG_PID is malformed: %s", strerror(-r));
		return -1;
	}
	if (r > 0) {
		struct timeval half = { (time_t)(usec / 2 / 1000000), (suseconds_t)(usec / 2 % 1000000) };

		d->sysd->watchdog_ev = event_new(d->base, -1, EV_PERSIST, watchdog_cb, d);
		if (!d->sysd->watchdog_ev || event_add(d->sysd->watchdog_ev, &half) < 0) {
			snprintf(err, errlen, "cannot arm the watchdog timer");
			return -1;
		}
		/* The restore before the loop runs may take a while: it starts
		 * with a full interval. */
		notify(d, "WATCHDOG=1");
		log_info("watchdog: a ping every %llu ms", (unsigned long long)(usec / 2000));
	}
	return 0;
}

int sysd_listen_fd(struct daemon *d, int *fd, char *err, size_t errlen)
{
	struct sockaddr_un sun;
	socklen_t len = sizeof sun;
	int n, flags;

	/* Unset LISTEN_*: nothing the daemon starts takes them for its own. */
	n = sd_listen_fds(1);
	if (n < 0) {
		snprintf(err, errlen, "socket activation (LISTEN_FDS, LISTEN_PID): %s", strerror(-n));
		return -1;
	}
	if (n == 0)
		return 0;
	if (n != 1) {
		snprintf(err, errlen, "socket activation passed %d descriptors; backfilld takes "
		         "exactly one, a Unix stream socket (one ListenStream= in backfilld.socket)", n);
		return -1;
	}
	*fd = SD_LISTEN_FDS_START;
	if (sd_is_socket_unix(*fd, SOCK_STREAM, 1, NULL, 0) <= 0) {
		snprintf(err, errlen, "socket activation passed descriptor %d, which is not a "
		         "listening Unix stream socket (ListenStream=PATH in backfilld.socket)", *fd);
		return -1;
	}
	/* Clients look for the socket at --socket (the default path, or the
	 * one configured): a socket bound anywhere else would never be found. */
	if (sd_is_socket_unix(*fd, SOCK_STREAM, 1, d->o.socket, 0) <= 0) {
		memset(&sun, 0, sizeof sun);
		if (getsockname(*fd, (struct sockaddr *)&sun, &len) < 0 || len <= sizeof(sa_family_t))
			sun.sun_path[0] = 0;
		sun.sun_path[sizeof sun.sun_path - 1] = 0;
		snprintf(err, errlen, "socket activation passed a socket bound to '%s', not to %s "
		         "where the clients look: make ListenStream= and --socket the same",
		         sun.sun_path[0] ? sun.sun_path : "(unnamed or abstract)", d->o.socket);
		return -1;
	}
	/* The accept loop needs a non-blocking socket; sd_listen_fds has made
	 * it close-on-exec (the supervisors close it anyway). */
	flags = fcntl(*fd, F_GETFL);
	if (flags < 0 || fcntl(*fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		snprintf(err, errlen, "socket activation: descriptor %d: %s", *fd, strerror(errno));
		return -1;
	}
	d->sysd->inherited = true;
	log_info("using the socket systemd passed (socket activation)");
	return 1;
}

bool sysd_socket_inherited(const struct daemon *d)
{
	return d->sysd && d->sysd->inherited;
}

static void format_status(struct daemon *d, char *buf, size_t len)
{
	snprintf(buf, len, "%u running, %u queued, %u of %u nodes free",
	         sched_running_len(d->sched), sched_queue_len(d->sched),
	         sched_free_nodes(d->sched), d->nnodes);
}

void sysd_ready(struct daemon *d)
{
	char msg[160];

	if (!d->sysd)
		return;
	format_status(d, d->sysd->status, sizeof d->sysd->status);
	snprintf(msg, sizeof msg, "READY=1\nSTATUS=%s", d->sysd->status);
	notify(d, msg);
	d->sysd->ready = true;
}

void sysd_status(struct daemon *d)
{
	char now[sizeof d->sysd->status], msg[160];

	if (!d->sysd || !d->sysd->ready || d->stopping)
		return;
	format_status(d, now, sizeof now);
	if (strcmp(now, d->sysd->status) == 0)
		return;
	memcpy(d->sysd->status, now, sizeof now);
	snprintf(msg, sizeof msg, "STATUS=%s", now);
	notify(d, msg);
}

void sysd_stopping(struct daemon *d)
{
	char msg[160];
	uint32_t running = sched_running_len(d->sched);

	if (!d->sysd)
		return;
	/* The running jobs go on under their supervisors (KillMode=process). */
	snprintf(msg, sizeof msg, "STOPPING=1\nSTATUS=stopping; %u running, left to their "
	         "supervisors", running);
	notify(d, msg);
}

void sysd_free(struct daemon *d)
{
	if (!d->sysd)
		return;
	if (d->sysd->watchdog_ev)
		event_free(d->sysd->watchdog_ev);
	free(d->sysd);
	d->sysd = NULL;
}
