/* The disk reserve: room held back on the store's and the spool's file
 * systems, so that a full disk does not stop the daemon (SECURITY.md).
 *
 * The store's own writes have room held for them past the ends of the
 * database and of its write-ahead log (TAIL_BYTES each, topped up every
 * 2 s), which nothing else can take. For the rest, at the start the daemon
 * allocates RESERVE_BYTES in a file beside its database (DB.reserve) and,
 * when the spool is on another file system, in the spool (spool/reserve). A watch every 2 s compares what root may still
 * write there with RESERVE_LOW; below it, or as soon as a write of the
 * store failed for want of space, the reserve files are emptied: the
 * daemon's own writes (the turn's commit, written again; the supervisors'
 * records of jobs that end) get their room back. The daemon is then
 * "full": it refuses every submission, root's too, saying why, and runs
 * on with the jobs it has. Once min_free_disk plus the reserve is free
 * again, it takes its reserve back and takes submissions: nothing has to
 * be restarted. */
#ifndef BF_RESERVE_H
#define BF_RESERVE_H
#include <stdbool.h>
#include <stddef.h>

#define RESERVE_BYTES ((long long)16 << 20)
#define TAIL_BYTES    ((long long)8 << 20)	/* past the database's and its log's ends */
#define RESERVE_LOW   ((unsigned long long)4 << 20)

struct daemon;

/* Make or take the reserve files and start the watch. Never fails: a
 * reserve that cannot be had (a full disk at the start, a file system
 * without fallocate) is logged, and the daemon runs without it. */
void reserve_open(struct daemon *d);
void reserve_close(struct daemon *d);
/* A write failed for want of space (why: the store's error): give the
 * reserve back and refuse submissions until space returns. */
void reserve_release(struct daemon *d, const char *why);
/* What root (root) or an ordinary user may still write on the store's
 * (k 0) or the spool's (k 1) file system; false if it cannot be told. */
bool reserve_free(const struct daemon *d, int k, bool root, unsigned long long *bytes);
/* Full: no submission is taken; 0, or -1 with the client's message. */
int  reserve_refuse(const struct daemon *d, char *err, size_t errlen);

#endif
