/* The file system's slow work, off the event loop: a flush of new jobs'
 * scripts and directory entries (fsync each, spool_jobs_sync) before they
 * become durable, and a checkpoint of the store's write-ahead log. Either
 * can take tens of milliseconds under load (80 ms seen with 100,000 jobs
 * queued), and in the loop every client waited for it. One thread does both; the loop asks, goes on serving, and
 * hears of the end by an event (`done`, in the loop).
 *
 * The thread calls nothing of the daemon's but the two jobs it is given,
 * with every signal blocked: the loop's handlers, the forks of job
 * supervisors and libevent stay the main thread's. A supervisor forked
 * while the thread is inside SQLite or an fsync never uses either; what it
 * does use (malloc, stdio, the NSS lookups of initgroups) glibc keeps
 * usable in the child of a fork, which POSIX alone does not promise. */
#ifndef BF_SYNCER_H
#define BF_SYNCER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <event2/event.h>

struct syncer;

enum syncer_work { SYNC_SPOOL = 1u, SYNC_CHECKPOINT = 2u };

/* In the loop, once per finished piece of work: `what` is one of
 * enum syncer_work, `err` the errno of a failed flush (0: done) or the
 * checkpoint's result (0 or -1). */
typedef void (*syncer_done_fn)(void *arg, unsigned what, int err);

/* The thread, or NULL (errno set; the caller does the work itself). The
 * checkpoint (optional: NULL) is run on the thread as given. */
struct syncer *syncer_new(struct event_base *base, syncer_done_fn done, void *arg,
                          int (*checkpoint)(void *ctx), void *ctx);
/* Finish what was asked, then stop the thread; no `done` after this. */
void syncer_free(struct syncer *s);

/* Ask for the jobs ids[0..n) in the jobs directory fd to be made durable
 * (spool_jobs_sync: each script and directory, then fd); true: asked, and
 * ids (malloc'ed) is the syncer's to free; false: one is under way (ids
 * stay the caller's, who asks again after its `done`). What was written
 * there before the call is durable when `done` comes. */
bool syncer_spool(struct syncer *s, int fd, uint64_t *ids, size_t n);
/* Wait in the loop for the flush under way, if any (a stopping daemon):
 * its `done` is called from here, not later. */
void syncer_spool_wait(struct syncer *s);

/* Ask for a checkpoint unless one is asked or under way. */
void syncer_checkpoint(struct syncer *s);

#endif
