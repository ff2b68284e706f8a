/* A map from 64-bit job ids to 32-bit slots: open addressing, linear probing,
 * backward-shift deletion (no tombstones, so it never degrades). */
#ifndef BF_IDMAP_H
#define BF_IDMAP_H
#include <stdint.h>

#define IDMAP_NONE UINT32_MAX

struct idmap {
	uint64_t *keys;
	uint32_t *vals;		/* IDMAP_NONE marks an empty bucket */
	uint32_t mask;		/* buckets - 1, a power of two minus one */
	uint32_t count;
};

int      idmap_init(struct idmap *m, uint32_t expect);
void     idmap_destroy(struct idmap *m);
/* Returns 0, 1 if the id is already present (unchanged), -1 on no memory. */
int      idmap_put(struct idmap *m, uint64_t id, uint32_t val);
uint32_t idmap_get(const struct idmap *m, uint64_t id);
/* Returns the removed value or IDMAP_NONE. */
uint32_t idmap_del(struct idmap *m, uint64_t id);

#endif
