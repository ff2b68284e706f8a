/* The listening socket and client connections: one request, one reply.
 *
 * Hostile input is bounded here (see "Limits" in backfilld(8)). A client
 * can make the daemon hold two things: a connection (a file descriptor, a
 * slot) and bytes (an unfinished request, an unread reply). Both are capped
 * per uid and in all, with a reserve that only root may use, so that one
 * user cannot lock out the others and nobody can lock out root; over a cap
 * the daemon refuses (PE_BUSY) instead of growing. A connection gets a few
 * seconds from its accept to deliver its whole request (trickled bytes do
 * not renew it) and a few more to take its reply; and what clients can
 * cause at will is logged through a rate limit, never a line each. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include "idmap.h"
#include "paths.h"
#include "proto.h"
#include "sys/clock.h"
#include "sys/log.h"
#include "conn.h"
#include "daemon.h"
#include "drive.h"
#include "sd.h"

/* Connections. 1024 is what the daemon held before; a uid other than root
 * gets 64 of them (bsub in a tight shell loop of a few dozen background
 * jobs still fits), and the last 1/16 (64) are root's alone: root always
 * gets in, and it takes 15 distinct uids at their cap to keep a 16th
 * out. */
#define MAX_CONNS        1024
#define UID_CONNS        64
/* Bytes held for clients: a request from the moment its header announces
 * its length, a reply until it is read. 16 MiB for a uid other than root
 * is four requests of the largest size at once (a real bsub sends a few
 * KiB); 64 MiB in all bounds the daemon's memory for clients whatever
 * they do, and the last 16 MiB of it are root's. */
#define MAX_HELD         ((uint64_t)64 << 20)
#define UID_HELD         ((uint64_t)16 << 20)
#define ROOT_HELD        ((uint64_t)16 << 20)
/* A reply this small is always sent (but charged), over the budget or
 * not: errors (at most 4 KiB of text) and short answers; 8 KiB a
 * connection is at most 8 MiB over the budget. The answers to stored
 * submissions and cancellations are always sent too: a change is never
 * left unacknowledged for want of memory. */
#define SMALL_REPLY      ((size_t)8 << 10)
/* From the accept to the whole request: a client sends its request at
 * once, and 4 MiB cross a Unix socket in milliseconds. */
#define REQUEST_TIMEOUT_S 5
/* From the reply's queueing to its last byte read. */
#define REPLY_TIMEOUT_S  10
/* Descriptors kept for everything else (store, spool, signals, pipes),
 * plus one per node for the supervisors' pidfds (a running job has at
 * least one node), counted up to MAX_NODE_FDS. */
#define FD_HEADROOM      128
#define MAX_NODE_FDS     4096
/* Log lines a kind of event that clients cause may take per minute. */
#define LOG_BURST        5
#define LOG_WINDOW       (60 * BF_SEC)
/* After running out of descriptors, accepting pauses this long. */
#define ACCEPT_PAUSE_MS  100

/* What one uid holds now. */
struct uid_use {
	uid_t uid;
	uint32_t conns;
	uint64_t held;
};

/* conn.c's limits and their bookkeeping; struct daemon points to it. */
struct conn_limits {
	uint32_t max_conns;	/* MAX_CONNS, less if the descriptor limit is low */
	uint32_t root_conns;	/* of them, root's reserve */
	uint32_t others;	/* open connections of uids other than root */
	uint64_t held, others_held;
	struct idmap uids;	/* uid -> index in use[] */
	struct uid_use *use;	/* one per uid holding anything; max_conns slots */
	uint32_t nuse;
	int spare_fd;		/* given up to accept (and refuse) when out of fds */
	struct event *log_ev;	/* logs the rate limits' summaries */
	struct event *resume_ev;	/* accepting again after a pause */
	struct log_rate refused, timeouts, accept_err;
};

struct conn {
	struct daemon *d;
	struct bufferevent *bev;
	struct event *deadline;	/* the request's, then the reply's */
	struct conn *prev, *next;
	uid_t uid;
	gid_t gid;
	bool trusted;		/* root, or the daemon's own uid: no per-uid caps */
	bool replied;		/* one request per connection */
	bool in_handler;	/* read_cb frees it afterwards, not conn_reply */
	bool foreign;		/* another user reached a non-root daemon */
	bool waiting;		/* for the commit */
	bool ack;		/* waiting to acknowledge a change (not a read) */
	bool committed;		/* the reply acknowledges a stored change */
	size_t frame_len;	/* from the header; 0 until it is read */
	uint64_t held;		/* bytes charged to the budgets */
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

void conn_drop_ctx(struct conn *c)
{
	c->ctx = NULL;
	c->ctx_free = NULL;
}

/* ---- what each uid holds ---- */

static struct uid_use *use_get(struct conn_limits *L, uid_t uid)
{
	uint32_t k = idmap_get(&L->uids, uid);

	return k == IDMAP_NONE ? NULL : &L->use[k];
}

/* The uid's record, made if it has none; NULL on no memory or no slot. */
static struct uid_use *use_add(struct conn_limits *L, uid_t uid)
{
	struct uid_use *u = use_get(L, uid);

	if (u)
		return u;
	if (L->nuse == L->max_conns || idmap_put(&L->uids, uid, L->nuse) < 0)
		return NULL;
	u = &L->use[L->nuse++];
	*u = (struct uid_use){ .uid = uid };
	return u;
}

/* Forget a uid that holds nothing any more: the last record takes its slot. */
static void use_drop(struct conn_limits *L, struct uid_use *u)
{
	uint32_t k = (uint32_t)(u - L->use);

	if (u->conns || u->held)
		return;
	idmap_del(&L->uids, u->uid);
	if (k != --L->nuse) {
		L->use[k] = L->use[L->nuse];
		/* Cannot fail: the map has one entry fewer than it had room for. */
		idmap_del(&L->uids, L->use[k].uid);
		idmap_put(&L->uids, L->use[k].uid, k);
	}
}

static bool is_trusted(uid_t uid)
{
	/* Root, and the user of a daemon that is not root (the one it serves). */
	return uid == 0 || uid == geteuid();
}

/* May a connection of this uid hold n more bytes? */
static bool held_fits(const struct conn_limits *L, const struct uid_use *u, bool trusted,
                      uint64_t n)
{
	/* Root's reserve is its own whatever the others hold: replies that
	 * acknowledge a stored change are sent over the caps (see conn_reply),
	 * so the others' total may pass theirs. */
	if (trusted)
		return L->held - L->others_held + n <= ROOT_HELD || L->held + n <= MAX_HELD;
	return L->held + n <= MAX_HELD && L->others_held + n <= MAX_HELD - ROOT_HELD &&
	       u->held + n <= UID_HELD;
}

static void held_add(struct conn *c, uint64_t n)
{
	struct conn_limits *L = c->d->limits;

	c->held += n;
	use_get(L, c->uid)->held += n;
	L->held += n;
	if (!c->trusted)
		L->others_held += n;
}

static void held_release(struct conn *c)
{
	struct conn_limits *L = c->d->limits;

	use_get(L, c->uid)->held -= c->held;
	L->held -= c->held;
	if (!c->trusted)
		L->others_held -= c->held;
	c->held = 0;
}

/* ---- rate-limited logs ---- */

static void log_cb(evutil_socket_t fd, short what, void *arg);

/* Have the summaries of suppressed lines logged when they are due. */
static void arm_log(struct daemon *d)
{
	struct conn_limits *L = d->limits;
	bf_time due = log_rate_due(&L->refused);

	if (log_rate_due(&L->timeouts) < due)
		due = log_rate_due(&L->timeouts);
	if (log_rate_due(&L->accept_err) < due)
		due = log_rate_due(&L->accept_err);
	drive_timer_at(L->log_ev, due, "refusals");
}

static void log_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	struct conn_limits *L = d->limits;
	bf_time now = clock_monotonic();

	(void)fd;
	(void)what;
	log_rate_flush(&L->refused, now);
	log_rate_flush(&L->timeouts, now);
	log_rate_flush(&L->accept_err, now);
	arm_log(d);
}

/* ---- connections ---- */

static void conn_free(struct conn *c)
{
	struct daemon *d = c->d;
	struct conn_limits *L = d->limits;
	struct uid_use *u = use_get(L, c->uid);

	if (c->prev)
		c->prev->next = c->next;
	else
		d->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	d->nconns--;
	held_release(c);
	u->conns--;
	if (!c->trusted)
		L->others--;
	use_drop(L, u);
	if (c->ctx)
		c->ctx_free(c->ctx);
	event_free(c->deadline);
	bufferevent_free(c->bev);
	free(c);
	if (d->stopping && d->nconns == 0)
		event_base_loopbreak(d->base);	/* the last answer is out */
}

/* (Re)start the connection's one deadline. */
static void arm_deadline(struct conn *c, int seconds)
{
	struct timeval tv = { seconds, 0 };

	/* Without it the connection is still closed by the client or at the
	 * daemon's stop; worth a line, not worth refusing the client. */
	if (evtimer_add(c->deadline, &tv) < 0)
		log_warnx("cannot arm a connection's deadline");
}

/* One PT_ERROR frame written straight to a socket that has nothing queued
 * (so a tiny frame fits its buffer), never blocking; whether it arrives
 * does not matter. */
static void send_error_now(int fd, enum proto_err code, const char *msg)
{
	struct proto_buf b;

	proto_buf_init(&b);
	if (proto_enc_error(&b, &(struct proto_error){ .code = code, .message = msg }) == 0 &&
	    send(fd, b.p, b.len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* The client left or its buffer is full: it sees the close. */
	}
	proto_buf_free(&b);
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
	struct conn_limits *L = c->d->limits;
	struct proto_buf busy;
	bool committed = c->committed;

	c->replied = true;
	c->waiting = false;
	c->committed = false;
	bufferevent_disable(c->bev, EV_READ);
	proto_buf_init(&busy);
	/* A big reply the client does not read would stay in memory: it is
	 * charged like a request, and one that does not fit is refused. */
	if (b && !b->failed && b->len > SMALL_REPLY && !committed &&
	    !held_fits(L, use_get(L, c->uid), c->trusted, b->len)) {
		char msg[200];

		snprintf(msg, sizeof msg, "busy: too many unread replies (a %zu-byte reply does not "
		         "fit the daemon's memory for clients); try again", b->len);
		log_rate_info(&L->refused, clock_monotonic(), "refused a %zu-byte reply to uid %u: "
		              "over the memory for clients", b->len, (unsigned)c->uid);
		arm_log(c->d);
		proto_enc_error(&busy, &(struct proto_error){ .code = PE_BUSY, .message = msg });
		b = &busy;
	}
	if (b && !b->failed)
		held_add(c, b->len);
	arm_deadline(c, REPLY_TIMEOUT_S);
	if ((!b || b->failed || bufferevent_write(c->bev, b->p, b->len) < 0 ||
	     evbuffer_get_length(bufferevent_get_output(c->bev)) == 0) && !c->in_handler)
		conn_free(c);
	proto_buf_free(&busy);
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

static void wait_commit(struct conn *c, void (*answer)(struct conn *c), uint64_t job, bool ack)
{
	c->waiting = true;
	c->ack = ack;
	c->answer = answer;
	c->job = job;
	bufferevent_disable(c->bev, EV_READ);
	/* The wait is the daemon's doing, not the client's. */
	evtimer_del(c->deadline);
}

void conn_park(struct conn *c, size_t bytes)
{
	bufferevent_disable(c->bev, EV_READ);
	/* As for a wait: the daemon's doing, not the client's. */
	evtimer_del(c->deadline);
	/* What the request keeps meanwhile counts as a request's bytes did
	 * (released before the handler ran): a slow flush cannot make many
	 * connections hold more than the budgets allow. */
	held_add(c, bytes);
}

void conn_unpark(struct conn *c)
{
	held_release(c);
}

void conn_wait_commit(struct conn *c, void (*answer)(struct conn *c), uint64_t job)
{
	wait_commit(c, answer, job, true);
}

void conn_wait_durable(struct conn *c, void (*answer)(struct conn *c))
{
	wait_commit(c, answer, 0, false);
	drive_want_commit(c->d);
}

void conn_wait_turn(struct conn *c, void (*answer)(struct conn *c))
{
	wait_commit(c, answer, c->job, c->ack);	/* (a submission's stays) */
}

void conn_answer_waiting(struct daemon *d, bool committed)
{
	struct conn *c = d->conns, *next;

	for (; c; c = next) {
		next = c->next;	/* answering may free c */
		if (!c->waiting)
			continue;
		c->waiting = false;
		c->committed = committed && c->ack;	/* a read's reply is charged */
		if (committed)
			c->answer(c);
		else
			conn_error(c, PE_INTERNAL, "the daemon could not store the change");
	}
}

/* read_cb answered: free the connection if the answer is already out. */
static void answered(struct conn *c)
{
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		conn_free(c);
}

/* The frame's header has arrived: refuse it, or charge its length and
 * read on up to its end. false: refused (c may be gone). */
static bool take_header(struct conn *c, const uint8_t *p)
{
	struct conn_limits *L = c->d->limits;
	enum proto_type type;
	char err[200];
	size_t len;

	/* The header alone decides: a wrong version or an oversized frame is
	 * refused before its body is read. */
	if (proto_frame(p, PROTO_HEADER, &len, &type, err, sizeof err) < 0) {
		c->in_handler = true;
		conn_error(c, p[4] != PROTO_VERSION ? PE_VERSION : PE_MALFORMED, "%s", err);
		c->in_handler = false;
		answered(c);
		return false;
	}
	len = PROTO_HEADER + ((size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3]);
	/* The frame and the one byte that would show a second request. */
	if (!held_fits(L, use_get(L, c->uid), c->trusted, len + 1)) {
		struct uid_use *u = use_get(L, c->uid);

		log_rate_info(&L->refused, clock_monotonic(), "refused a %zu-byte request of uid %u: "
		              "over the memory for unfinished requests", len, (unsigned)c->uid);
		arm_log(c->d);
		c->in_handler = true;
		conn_error(c, PE_BUSY, "busy: too many unfinished requests (uid %u holds %llu KiB, "
		           "the daemon %llu KiB); try again", (unsigned)c->uid,
		           (unsigned long long)(u->held >> 10), (unsigned long long)(L->held >> 10));
		c->in_handler = false;
		answered(c);
		return false;
	}
	held_add(c, len + 1);
	c->frame_len = len;
	bufferevent_setwatermark(c->bev, EV_READ, 0, len + 1);
	return true;
}

/* Did the client send more than its one frame? What was read is checked
 * by the caller; this looks at what waits in the socket. */
static bool more_pending(struct conn *c)
{
	uint8_t byte;

	return recv(bufferevent_getfd(c->bev), &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
}

static void read_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t have = evbuffer_get_length(in), len;
	enum proto_type type;
	uint8_t *p;

	if (c->replied || c->waiting)
		return;
	if (!c->frame_len) {
		if (have < PROTO_HEADER)
			return;
		if (!(p = evbuffer_pullup(in, PROTO_HEADER))) {
			c->in_handler = true;
			conn_error(c, PE_INTERNAL, "out of memory");
			c->in_handler = false;
			answered(c);
			return;
		}
		if (!take_header(c, p))
			return;
	}
	len = c->frame_len;
	if (have < len)
		return;
	p = evbuffer_pullup(in, (ssize_t)len);
	type = (enum proto_type)(p ? p[5] : 0);
	c->in_handler = true;
	if (have > len || more_pending(c))
		conn_error(c, PE_MALFORMED, "one request per connection");
	else if (!p)
		conn_error(c, PE_INTERNAL, "out of memory");
	c->in_handler = false;
	if (c->replied) {
		answered(c);
		return;
	}
	/* The request's bytes are freed once the handler returns (and its
	 * reply, if any, is charged instead). */
	held_release(c);
	c->in_handler = true;
	if (c->foreign)
		conn_error(c, PE_DENIED, "this backfilld runs as uid %u and serves only that user",
		           (unsigned)geteuid());
	else
		c->d->hooks.dispatch(c, type, p, len);
	c->in_handler = false;
	/* The handler replied, or the connection waits for the commit; the
	 * request's bytes are not needed after the handler returns. */
	evbuffer_drain(in, len);
	if (c->replied)
		answered(c);
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	(void)bev;
	(void)what;
	if (c->waiting) {
		/* The client left; its change is still committed with the rest. */
		c->waiting = false;
	}
	conn_free(c);
}

/* The connection's time is up: it sent no whole request in time, or did
 * not read its reply. */
static void deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	struct conn_limits *L = c->d->limits;
	bf_time now = clock_monotonic();

	(void)fd;
	(void)what;
	if (c->waiting)
		return;		/* not armed while waiting; never cut a commit short */
	if (!c->replied) {
		log_rate_info(&L->timeouts, now, "closing a connection of uid %u that sent no whole "
		              "request within %d s", (unsigned)c->uid, REQUEST_TIMEOUT_S);
		char msg[100];

		/* Nothing is queued yet: a short word to the client is cheap. */
		snprintf(msg, sizeof msg, "no whole request arrived within %d s", REQUEST_TIMEOUT_S);
		send_error_now(bufferevent_getfd(c->bev), PE_MALFORMED, msg);
	} else {
		log_rate_info(&L->timeouts, now, "closing a connection of uid %u that did not read its "
		              "reply within %d s", (unsigned)c->uid, REPLY_TIMEOUT_S);
	}
	arm_log(c->d);
	conn_free(c);
}

/* Refuse a connection just accepted: PE_BUSY and the reason, then close. */
static void refuse(struct daemon *d, int fd, uid_t uid, const char *why)
{
	send_error_now(fd, PE_BUSY, why);
	close(fd);
	log_rate_info(&d->limits->refused, clock_monotonic(), "refused a connection of uid %u: %s",
	              (unsigned)uid, why);
	arm_log(d);
}

/* Why a new connection of uid may not be taken, in buf; NULL: it may. */
static const char *over_cap(struct daemon *d, uid_t uid, bool trusted, char *buf, size_t len)
{
	struct conn_limits *L = d->limits;
	struct uid_use *u = use_get(L, uid);

	if (d->stopping)
		snprintf(buf, len, "busy: the daemon is stopping; try again when it is back");
	else if (d->nconns >= L->max_conns)
		snprintf(buf, len, "busy: the daemon has %u connections open, its limit; try again",
		         d->nconns);
	else if (!trusted && L->others >= L->max_conns - L->root_conns)
		snprintf(buf, len, "busy: %u connections are open, the limit for users other than "
		         "root; try again", L->others);
	else if (!trusted && u && u->conns >= UID_CONNS)
		snprintf(buf, len, "busy: uid %u already has %u connections open, the most one user "
		         "may; try again", (unsigned)uid, u->conns);
	else
		return NULL;
	return buf;
}

/* Watch an accepted connection, or refuse it over a cap. */
static void take_conn(struct daemon *d, int fd, const struct ucred *cred)
{
	struct conn_limits *L = d->limits;
	bool trusted = is_trusted(cred->uid);
	char why[200];
	struct uid_use *u;
	struct conn *c;

	if (over_cap(d, cred->uid, trusted, why, sizeof why)) {
		refuse(d, fd, cred->uid, why);
		return;
	}
	if (!(c = calloc(1, sizeof *c)) || !(u = use_add(L, cred->uid))) {
		free(c);
		refuse(d, fd, cred->uid, "busy: the daemon is out of memory; try again");
		return;
	}
	c->d = d;
	c->uid = cred->uid;
	c->gid = cred->gid;
	c->trusted = trusted;
	/* Not root: the socket is the owner's alone; refuse anyone else who
	 * reaches it anyway (a socket made accessible by hand). */
	c->foreign = !d->root && cred->uid != geteuid();
	c->bev = bufferevent_socket_new(d->base, fd, BEV_OPT_CLOSE_ON_FREE);
	c->deadline = evtimer_new(d->base, deadline_cb, c);
	if (!c->bev || !c->deadline) {
		if (c->bev)
			bufferevent_free(c->bev);	/* closes fd */
		else
			close(fd);
		if (c->deadline)
			event_free(c->deadline);
		free(c);
		use_drop(L, u);
		return;
	}
	c->next = d->conns;
	if (d->conns)
		d->conns->prev = c;
	d->conns = c;
	d->nconns++;
	u->conns++;
	if (!trusted)
		L->others++;
	bufferevent_setcb(c->bev, read_cb, write_cb, event_cb, c);
	/* Read the header alone first (bufferevent reads stop at the high
	 * watermark): nothing is buffered before its length is charged. */
	bufferevent_setwatermark(c->bev, EV_READ, 0, PROTO_HEADER);
	/* From the accept, not renewed by each byte: a client trickling its
	 * request cannot hold the connection. */
	arm_deadline(c, REQUEST_TIMEOUT_S);
	bufferevent_enable(c->bev, EV_READ);
}

/* Close the oldest connection of a user other than root that is not
 * waiting for a commit, to make room for root. false: there was none. */
static bool evict_one(struct daemon *d)
{
	struct conn *c = d->conns, *victim = NULL;

	for (; c; c = c->next)	/* newest first: the last match is the oldest */
		if (!c->trusted && !c->waiting)
			victim = c;
	if (!victim)
		return false;
	log_rate_info(&d->limits->refused, clock_monotonic(), "out of file descriptors: closing a "
	              "connection of uid %u to let root in", (unsigned)victim->uid);
	arm_log(d);
	conn_free(victim);
	return true;
}

static void resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;

	(void)fd;
	(void)what;
	if (!d->stopping && d->listen_ev && event_add(d->listen_ev, NULL) < 0)
		log_err("cannot watch the socket again: no new connections");
}

/* accept() failed for want of descriptors (or memory). The pending client
 * stays in the backlog and the socket stays readable: without care the
 * loop would spin. Give up the spare descriptor to accept the client,
 * let it in if it is root (closing another user's connection) or refuse
 * it, then take the spare back; if even that fails, pause accepting. */
static void out_of_fds(struct daemon *d, int lfd, int err)
{
	struct conn_limits *L = d->limits;
	struct timeval pause = { 0, ACCEPT_PAUSE_MS * 1000 };
	struct ucred cred;
	socklen_t clen = sizeof cred;
	int fd;

	if (log_rate_allow(&L->accept_err, clock_monotonic())) {
		errno = err;	/* the summary the check may log can change it */
		log_warn("accepting a connection");
	}
	arm_log(d);
	if (L->spare_fd >= 0) {
		close(L->spare_fd);
		L->spare_fd = -1;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd >= 0) {
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0)
			close(fd);
		else if (is_trusted(cred.uid) && evict_one(d))
			take_conn(d, fd, &cred);	/* the victim's descriptor is the spare's */
		else
			refuse(d, fd, cred.uid, "busy: the daemon is out of file descriptors; try again");
	}
	L->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (L->spare_fd < 0 && d->listen_ev) {
		event_del(d->listen_ev);
		if (evtimer_add(L->resume_ev, &pause) < 0)
			event_add(d->listen_ev, NULL);	/* spinning beats deafness */
	}
}

/* One accepted connection; false when there was none to accept. */
static bool accept_one(struct daemon *d, int lfd)
{
	struct ucred cred;
	socklen_t clen = sizeof cred;
	int fd;

	fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			out_of_fds(d, lfd, errno);
			return false;
		}
		int e = errno;

		if (e != EAGAIN && e != EINTR && e != ECONNABORTED &&
		    log_rate_allow(&d->limits->accept_err, clock_monotonic())) {
			errno = e;
			log_warn("accept");
		}
		arm_log(d);
		return e == EINTR || e == ECONNABORTED;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
		close(fd);
		return true;
	}
	take_conn(d, fd, &cred);
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

/* How many connections the descriptor limit allows: raise the soft limit
 * (to what the caps need, no more: jobs inherit it) if it is too low. */
static uint32_t fd_cap(struct daemon *d)
{
	rlim_t other = FD_HEADROOM + (d->nnodes < MAX_NODE_FDS ? d->nnodes : MAX_NODE_FDS);
	rlim_t want = MAX_CONNS + other;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return MAX_CONNS;	/* cannot happen; out_of_fds copes anyway */
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		struct rlimit up = { rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ?
		                     rl.rlim_max : want, rl.rlim_max };

		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			rl.rlim_cur = up.rlim_cur;
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return MAX_CONNS;
	want = rl.rlim_cur > other + 16 ? rl.rlim_cur - other : 16;
	log_warnx("only %llu file descriptors (RLIMIT_NOFILE): at most %u connections instead "
	          "of %u", (unsigned long long)rl.rlim_cur, (unsigned)want, MAX_CONNS);
	return (uint32_t)want;
}

static int limits_init(struct daemon *d)
{
	struct conn_limits *L = calloc(1, sizeof *L);

	if (!L)
		return -1;
	d->limits = L;
	L->spare_fd = -1;
	L->max_conns = fd_cap(d);
	L->root_conns = L->max_conns / 16 ? L->max_conns / 16 : 1;
	L->refused = LOG_RATE_INIT("refusals (over a limit of connections or memory)", LOG_BURST,
	                           LOG_WINDOW);
	L->timeouts = LOG_RATE_INIT("connections closed at their deadline", LOG_BURST, LOG_WINDOW);
	L->accept_err = LOG_RATE_INIT("failures to accept a connection", LOG_BURST, LOG_WINDOW);
	if (idmap_init(&L->uids, L->max_conns) < 0 ||
	    !(L->use = calloc(L->max_conns, sizeof *L->use)) ||
	    !(L->log_ev = evtimer_new(d->base, log_cb, d)) ||
	    !(L->resume_ev = evtimer_new(d->base, resume_cb, d)))
		return -1;
	/* Without it an exhausted daemon pauses accepting instead of refusing. */
	L->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return 0;
}

static void limits_free(struct daemon *d)
{
	struct conn_limits *L = d->limits;

	if (!L)
		return;
	if (L->log_ev) {
		/* What was left out is counted, not lost. */
		bf_time now = clock_monotonic();

		log_rate_end(&L->refused, now);
		log_rate_end(&L->timeouts, now);
		log_rate_end(&L->accept_err, now);
		event_free(L->log_ev);
	}
	if (L->resume_ev)
		event_free(L->resume_ev);
	if (L->spare_fd >= 0)
		close(L->spare_fd);
	idmap_destroy(&L->uids);
	free(L->use);
	free(L);
	d->limits = NULL;
}

/* The clients try the system socket before a user's own (where.h): a
 * daemon started elsewhere while the system one answers is one its user's
 * bq would not find. Said once, at the start. */
static void warn_if_hidden(const struct daemon *d)
{
	if (strcmp(d->o.socket, PATHS_SYSTEM_SOCKET) == 0 || !paths_answers(PATHS_SYSTEM_SOCKET))
		return;
	log_warnx("the system backfilld answers at %s, and bsub, bq and bkill try it before this "
	          "daemon: to reach this one, give them --socket %s or set %s=%s",
	          PATHS_SYSTEM_SOCKET, d->o.socket, PATHS_ENV_SOCKET, d->o.socket);
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
	/* systemd's socket (socket activation) is bound and listening, with
	 * backfilld.socket's mode: neither probed, replaced nor chmodded. */
	switch (sysd_listen_fd(d, &fd, err, errlen)) {
	case -1:
		return -1;
	case 1:
		goto watch;
	}
	warn_if_hidden(d);
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
	    chmod(d->o.socket, d->o.socket_mode ? d->o.socket_mode : d->root ? 0666 : 0600) < 0 || listen(fd, 128) < 0) {
		snprintf(err, errlen, "%s: %s", d->o.socket, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
watch:
	d->listen_fd = fd;
	if (limits_init(d) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
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
	if (d->limits && d->limits->resume_ev)
		event_del(d->limits->resume_ev);	/* a pause must not end in listening */
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
		if (!sysd_socket_inherited(d))	/* else backfilld.socket's, kept */
			unlink(d->o.socket);
		d->listen_fd = -1;
	}
	limits_free(d);
}

/* A read (list, info) waits for the pass's commit with its request kept
 * here: see conn_wait_durable. */
void conn_wait_read(struct conn *c, void *m, int decoded, const char *err,
                        void (*answer)(struct conn *c))
{
	if (!m) {
		conn_error(c, PE_INTERNAL, "out of memory");
	} else if (decoded < 0) {
		free(m);
		conn_error(c, PE_MALFORMED, "%s", err);
	} else if (conn_set_ctx(c, m, free) < 0) {
		free(m);
		conn_error(c, PE_INTERNAL, "a second request on one connection");
	} else {
		conn_wait_durable(c, answer);
	}
}
