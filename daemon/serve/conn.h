/* The listening socket and the connections: bytes, frames, limits, replies. */
#ifndef BF_SERVE_CONN_H
#define BF_SERVE_CONN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "proto.h"

struct conn;
struct daemon;

int  conn_listen(struct daemon *d, char *err, size_t errlen);
void conn_close_all(struct daemon *d);
/* Write what is queued for every client now, for at most timeout_ms (the
 * daemon is about to exit and its event loop will not run again). */
void conn_flush_all(struct daemon *d, int timeout_ms);
/* No new connections (a stop): the open ones finish; the loop ends when the
 * last one closes. */
void conn_stop_listening(struct daemon *d);
/* Reply and close; a NULL frame answers nothing. */
void conn_reply(struct conn *c, const struct proto_buf *b);
void conn_error(struct conn *c, enum proto_err code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Hold the reply until the next commit; then build it with the callback. */
void conn_wait_commit(struct conn *c, void (*answer)(struct conn *c), uint64_t job);
/* Hold a read's reply until the pass's commit, then build it: a client is
 * shown only what a restart would restore (a guarantee the core moved in
 * this pass, a job not yet acknowledged), never a state that a kill -9
 * before the commit would take back. */
void conn_wait_durable(struct conn *c, void (*answer)(struct conn *c));
/* The same, answered at the next commit that something else brings (a
 * read that waits for work the loop does a slice per turn: asking for a
 * commit at once, from inside one, would run it again before the loop
 * reads any other client). */
void conn_wait_turn(struct conn *c, void (*answer)(struct conn *c));
/* A read request decoded into m (malloc'ed; decoded: the decoder's 0 or
 * -1, with err): kept as the connection's context and answered after
 * the pass's commit (conn_wait_durable), or refused. m NULL: no memory. */
void conn_wait_read(struct conn *c, void *m, int decoded, const char *err,
                    void (*answer)(struct conn *c));
/* Answer every connection that waited for this commit (or fail them). */
void conn_answer_waiting(struct daemon *d, bool committed);
uid_t conn_uid(const struct conn *c);
gid_t conn_gid(const struct conn *c);
uint64_t conn_job(const struct conn *c);
struct daemon *conn_daemon(const struct conn *c);
void *conn_ctx(const struct conn *c);
int  conn_set_ctx(struct conn *c, void *ctx, void (*ctx_free)(void *ctx));
/* Forget the context without freeing it (its owner takes it back). */
void conn_drop_ctx(struct conn *c);
/* The request is taken and its answer comes later than the next commit (a
 * submission whose script is being flushed, submit.c): no reading, and no
 * deadline while it waits; the `bytes` it keeps meanwhile are charged to
 * the client's budgets until conn_unpark. */
void conn_park(struct conn *c, size_t bytes);
void conn_unpark(struct conn *c);

#endif
