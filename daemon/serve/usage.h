/* What each user makes the daemon hold, against the per-user limits of
 * backfilld.yaml(5) (SECURITY.md lists them all):
 *
 * - live jobs (queued and running): their scripts, arguments,
 *   environments and strings, in memory, the store and the spool, at most
 *   max_stored_per_user bytes a user (and max_queued_per_user jobs
 *   waiting); root is not limited;
 * - ended jobs: their rows and logs in the store, at most
 *   keep_ended_per_user bytes a user, the oldest removed first;
 * - free disk: below min_free_disk on the store's or the spool's file
 *   system only root may submit, so what is left is root's.
 *
 * Figures are in bytes, as the store and memory hold them, give or take
 * a row's overhead (the store's own pages are not counted). */
#ifndef BF_USAGE_H
#define BF_USAGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "sys/store.h"

struct daemon;
struct djob;

/* A live job's bytes: its row's strings and blobs, and its script. */
uint64_t usage_live_cost(const struct store_job *rec, uint64_t script_len);
/* The script's length as spooled (0 if it cannot be told), for a job
 * restored at start. */
uint64_t usage_script_len(const struct daemon *d, uint64_t id);

/* May uid add a live job of `cost` bytes? 0, or -1 with the reason the
 * client is told in err (naming the limit). */
int usage_admit(const struct daemon *d, uid_t uid, uint64_t cost, char *err, size_t errlen);

/* The ended jobs' bytes per user: read from the store at start (0 or -1);
 * a job's end adds its row (once: usage_ended); the commit removes the
 * oldest ended jobs of users over keep_ended_per_user (usage_prune, in
 * the open transaction; -1 if the store failed). */
int  usage_load(struct daemon *d);
void usage_ended(struct daemon *d, struct djob *j);
int  usage_prune(struct daemon *d);
void usage_free(struct daemon *d);

#endif
