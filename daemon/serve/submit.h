/* Submissions, answered once their scripts are durable. */
#ifndef BF_SERVE_SUBMIT_H
#define BF_SERVE_SUBMIT_H
#include <stddef.h>
#include <stdint.h>

struct conn;
struct daemon;
struct pending_sub;

struct pending_sub;
void submit_request(struct conn *c, const uint8_t *frame, size_t len);
/* Submissions whose scripts are durable now: into the core and the store
 * (acknowledged after the next commit); or, with `fail` (the flush
 * failed: they may not be), refused with it and their scripts removed.
 * The list is freed. */
void submit_admit(struct daemon *d, struct pending_sub *list, const char *fail);
/* The job ids of a list of submissions (malloc'ed, n set), or NULL. */
uint64_t *submit_ids(const struct pending_sub *list, size_t *n);
/* Free a list of submissions never admitted (the daemon exits). */
void submit_drop(struct pending_sub *list);

#endif
