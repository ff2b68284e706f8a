/* The partition: node names, their order, and growing it on a reload. */
#ifndef BF_SERVE_NODES_H
#define BF_SERVE_NODES_H
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

struct daemon;

/* A node's index by its name, or -1. */
int64_t nodes_index(const struct daemon *d, const char *name);
/* The partition from --nodes / nodes: "N" (node001..) or a node list. */
int  nodes_init(struct daemon *d, const char *spec, char *err, size_t errlen);
/* Against the partition the database remembers: the same, or grown (then
 * recorded); fewer nodes is another partition's database. */
int  nodes_check_stored(struct daemon *d, char *err, size_t errlen);
/* The nodes an operator put in `state` (NA_DRAIN, NA_DOWN), compact and
 * malloc'ed ("" for none); NULL if memory ran out. */
char *nodes_in(const struct daemon *d, uint8_t state);
/* Grow the running partition to spec (a reload): the new nodes go to the
 * core and to the store's record (in the open transaction). Returns how
 * many were added, or -1 (err says why: a node missing from spec, no
 * memory); nothing changed then. */
int  nodes_grow(struct daemon *d, const char *spec, bf_time now, char *err, size_t errlen);

#endif
