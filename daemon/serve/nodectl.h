/* Nodes an operator drains or marks down, and bctl status. */
#ifndef BF_SERVE_NODECTL_H
#define BF_SERVE_NODECTL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

struct conn;
struct daemon;

void nodectl_request(struct conn *c, const uint8_t *frame, size_t len);	/* PT_NODECTL */
void nodectl_list(struct conn *c, const uint8_t *frame, size_t len);	/* PT_NODELIST */
void nodectl_status(struct conn *c, const uint8_t *frame, size_t len);	/* PT_STATUS */
/* At a restart, after the running jobs: the nodes the store says are
 * drained or down are so again in the core. */
void nodectl_restore(struct daemon *d, bf_time now);
void nodectl_free(struct daemon *d);
/* A node a cluster job's supervisor lost (ssh failed, or the link went
 * silent: `why`): marked down by backfilld, as bctl down would, with the
 * guarantees it moves repaired and announced. While restoring (the core
 * does not hold the nodes' states yet), only stored: nodectl_restore then
 * takes it out. Through d->hooks.node_lost from drive.c. */
void nodectl_lost(struct daemon *d, const char *node, const char *why, bool restoring);

#endif
