/* The listening socket and client connections: one request, one reply.
 * Hostile input is bounded here: a frame's header is checked before its
 * body is read, the input buffer never holds more than one frame, a slow
 * client times out, and too many connections are refused. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include "clock.h"
#include "log.h"
#include "server.h"

#define MAX_CONNS     1024
#define IO_TIMEOUT_S  30

struct conn {
	struct daemon *d;
	struct bufferevent *bev;
	struct conn *prev, *next;
	uid_t uid;
	gid_t gid;
	bool replied;		/* one request per connection */
	bool in_handler;	/* read_cb frees it afterwards, not conn_reply */
	bool foreign;		/* another user reached a non-root daemon */
	bool waiting;		/* for the commit */
	void (*answer)(struct conn *c);
	uint64_t job;
	void *ctx;		/* a handler's state until the answer */
	void (*ctx_free)(void *ctx);
};

uid_t conn_uid(const struct conn *c) { return c->uid; }
gid_t conn_gid(const struct conn *c) { return c->gid; }
uint64_t conn_job(const struct conn *c) { return c->job; }
struct daemon *conn_daemon(const struct conn *c) { return c->d; }
void *conn_ctx(const struct conn *c) { return c->ctx; }

int conn_set_ctx(struct conn *c, void *ctx, void (*ctx_free)(void *ctx))
{
	if (c->ctx)
		return -1;
	c->ctx = ctx;
	c->ctx_free = ctx_free;
	return 0;
}

static void conn_free(struct conn *c)
{
	struct daemon *d = c->d;

	if (c->prev)
		c->prev->next = c->next;
	else
		d->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	d->nconns--;
	if (c->ctx)
		c->ctx_free(c->ctx);
	bufferevent_free(c->bev);
	free(c);
	if (d->stopping && d->nconns == 0)
		event_base_loopbreak(d->base);	/* the last answer is out */
}

static void write_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	/* The reply is out: done with this client. */
	if (c->replied && evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		conn_free(c);
}

void conn_reply(struct conn *c, const struct proto_buf *b)
{
	c->replied = true;
	c->waiting = false;
	bufferevent_disable(c->bev, EV_READ);
	if ((!b || b->failed || bufferevent_write(c->bev, b->p, b->len) < 0 ||
	     evbuffer_get_length(bufferevent_get_output(c->bev)) == 0) && !c->in_handler)
		conn_free(c);
}

void conn_error(struct conn *c, enum proto_err code, const char *fmt, ...)
{
	struct proto_buf b;
	char msg[PROTO_MAX_STRING];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	proto_buf_init(&b);
	proto_enc_error(&b, &(struct proto_error){ .code = code, .message = msg });
	conn_reply(c, &b);
	proto_buf_free(&b);
}

void conn_wait_commit(struct conn *c, void (*answer)(struct conn *c), uint64_t job)
{
	c->waiting = true;
	c->answer = answer;
	c->job = job;
	bufferevent_disable(c->bev, EV_READ);
}

void conn_answer_waiting(struct daemon *d, bool committed)
{
	struct conn *c = d->conns, *next;

	for (; c; c = next) {
		next = c->next;	/* answering may free c */
		if (!c->waiting)
			continue;
		c->waiting = false;
		if (committed)
			c->answer(c);
		else
			conn_error(c, PE_INTERNAL, "the daemon could not store the change");
	}
}

static void read_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t have = evbuffer_get_length(in), len;
	enum proto_type type;
	char err[200];
	uint8_t *p;
	int rc;

	if (c->replied || c->waiting || have < PROTO_HEADER)
		return;
	/* The header alone decides: a wrong version or an oversized frame is
	 * refused before its body is read. */
	p = evbuffer_pullup(in, PROTO_HEADER);
	rc = proto_frame(p, PROTO_HEADER, &len, &type, err, sizeof err);
	if (rc < 0) {
		c->in_handler = true;
		conn_error(c, p[4] != PROTO_VERSION ? PE_VERSION : PE_MALFORMED, "%s", err);
		c->in_handler = false;
		if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
			conn_free(c);
		return;
	}
	len = PROTO_HEADER + ((size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3]);
	type = (enum proto_type)p[5];
	if (have < len)
		return;
	c->in_handler = true;
	if (have > len)
		conn_error(c, PE_MALFORMED, "one request per connection");
	else if (!(p = evbuffer_pullup(in, (ssize_t)len)))
		conn_error(c, PE_INTERNAL, "out of memory");
	c->in_handler = false;
	if (c->replied) {
		if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
			conn_free(c);
		return;
	}
	c->in_handler = true;
	if (c->foreign)
		conn_error(c, PE_DENIED, "this backfilld runs as uid %u and serves only that user",
		           (unsigned)geteuid());
	else
		handle_request(c, type, p, len);
	c->in_handler = false;
	/* The handler replied, or the connection waits for the commit; the
	 * request's bytes are not needed after the handler returns. */
	evbuffer_drain(in, len);
	if (c->replied && evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		conn_free(c);
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	(void)bev;
	if (what & BEV_EVENT_TIMEOUT && !c->replied && !c->waiting)
		log_info("closing a connection that sent no whole request in %d s", IO_TIMEOUT_S);
	if (c->waiting) {
		/* The client left; its change is still committed with the rest. */
		c->waiting = false;
	}
	conn_free(c);
}

/* One accepted connection; false when there was none to accept. */
static bool accept_one(struct daemon *d, int lfd)
{
	struct timeval tmo = { IO_TIMEOUT_S, 0 };
	struct ucred cred;
	socklen_t clen = sizeof cred;
	struct conn *c;
	int fd;

	fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_warn("accept");
		return errno == EINTR || errno == ECONNABORTED;
	}
	if (d->nconns >= MAX_CONNS || d->stopping) {
		close(fd);	/* the client sees the connection closed */
		return true;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0 ||
	    !(c = calloc(1, sizeof *c))) {
		close(fd);
		return true;
	}
	c->d = d;
	c->uid = cred.uid;
	c->gid = cred.gid;
	/* Not root: the socket is the owner's alone; refuse anyone else who
	 * reaches it anyway (a socket made accessible by hand). */
	c->foreign = !d->root && cred.uid != geteuid();
	c->bev = bufferevent_socket_new(d->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev) {
		close(fd);
		free(c);
		return true;
	}
	c->next = d->conns;
	if (d->conns)
		d->conns->prev = c;
	d->conns = c;
	d->nconns++;
	bufferevent_setcb(c->bev, read_cb, write_cb, event_cb, c);
	/* Never buffer more than one whole frame from a client. */
	bufferevent_setwatermark(c->bev, EV_READ, 0, PROTO_HEADER + PROTO_MAX_PAYLOAD + 1);
	bufferevent_set_timeouts(c->bev, &tmo, &tmo);
	bufferevent_enable(c->bev, EV_READ);
	return true;
}

static void accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	(void)what;
	/* Everyone waiting now, so that their requests are read in the same
	 * loop pass and share one commit (a burst, bounded per pass). */
	for (int k = 0; k < 256 && accept_one(arg, lfd); k++)
		;
}

int conn_listen(struct daemon *d, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(d->o.socket) >= sizeof sun.sun_path) {
		snprintf(err, errlen, "%s: socket path too long", d->o.socket);
		return -1;
	}
	strcpy(sun.sun_path, d->o.socket);
	/* A socket file left by a daemon that died: remove it, unless a
	 * daemon still answers on it. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0) {
		close(fd);
		snprintf(err, errlen, "%s: another backfilld is listening there", d->o.socket);
		return -1;
	}
	if (fd >= 0)
		close(fd);
	/* Only a socket is ever removed: a mistyped --socket must not delete
	 * the database or anything else that happens to be there. */
	if (lstat(d->o.socket, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s exists and is not a socket", d->o.socket);
			return -1;
		}
		unlink(d->o.socket);
	}
	/* Root runs each job as its submitter: anyone may submit. A daemon
	 * that is not root runs every job as itself: only its own user may. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof sun) < 0 ||
	    chmod(d->o.socket, d->root ? 0666 : 0600) < 0 || listen(fd, 128) < 0) {
		snprintf(err, errlen, "%s: %s", d->o.socket, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	d->listen_fd = fd;
	d->listen_ev = event_new(d->base, fd, EV_READ | EV_PERSIST, accept_cb, d);
	if (!d->listen_ev || event_add(d->listen_ev, NULL) < 0) {
		snprintf(err, errlen, "cannot watch the socket");
		return -1;
	}
	return 0;
}

void conn_stop_listening(struct daemon *d)
{
	if (d->listen_ev)
		event_del(d->listen_ev);
}

void conn_flush_all(struct daemon *d, int timeout_ms)
{
	bf_time until = clock_monotonic() + (bf_time)timeout_ms * 1000;

	for (struct conn *c = d->conns; c; c = c->next) {
		struct evbuffer *out = bufferevent_get_output(c->bev);
		int fd = bufferevent_getfd(c->bev);

		/* A bufferevent keeps its output's front for itself (frozen):
		 * the loop that would drain it is over. */
		evbuffer_unfreeze(out, 1);
		while (fd >= 0 && evbuffer_get_length(out) > 0) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };
			bf_time left = until - clock_monotonic();

			if (left <= 0)
				return;
			if (evbuffer_write(out, fd) < 0 && errno != EAGAIN && errno != EINTR)
				break;	/* that client is gone */
			if (evbuffer_get_length(out) > 0)
				poll(&p, 1, (int)(left / 1000) + 1);
		}
	}
}

void conn_close_all(struct daemon *d)
{
	while (d->conns)
		conn_free(d->conns);
	if (d->listen_ev) {
		event_free(d->listen_ev);
		d->listen_ev = NULL;
	}
	if (d->listen_fd >= 0) {
		close(d->listen_fd);
		unlink(d->o.socket);
		d->listen_fd = -1;
	}
}
