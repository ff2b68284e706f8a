/* Job id -> slot map; see idmap.h. */
#include <stdlib.h>
#include "idmap.h"

static uint32_t bucket(uint64_t id, uint32_t mask)
{
	/* Job ids are often consecutive: mix the bits before masking. */
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (uint32_t)id & mask;
}

static int alloc_table(struct idmap *m, uint32_t buckets)
{
	m->keys = malloc((size_t)buckets * sizeof *m->keys);
	m->vals = malloc((size_t)buckets * sizeof *m->vals);
	if (!m->keys || !m->vals) {
		free(m->keys);
		free(m->vals);
		m->keys = NULL;
		m->vals = NULL;
		return -1;
	}
	for (uint32_t i = 0; i < buckets; i++)
		m->vals[i] = IDMAP_NONE;
	m->mask = buckets - 1;
	m->count = 0;
	return 0;
}

int idmap_init(struct idmap *m, uint32_t expect)
{
	uint32_t b = 16;

	while (b < expect * 2 && b < (1U << 30))
		b *= 2;
	return alloc_table(m, b);
}

void idmap_destroy(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
}

static void place(struct idmap *m, uint64_t id, uint32_t val)
{
	uint32_t i = bucket(id, m->mask);

	while (m->vals[i] != IDMAP_NONE)
		i = (i + 1) & m->mask;
	m->keys[i] = id;
	m->vals[i] = val;
	m->count++;
}

static int grow(struct idmap *m)
{
	struct idmap old = *m;

	if (old.mask >= (1U << 30))
		return -1;
	if (alloc_table(m, (old.mask + 1) * 2) < 0) {
		*m = old;
		return -1;
	}
	for (uint32_t i = 0; i <= old.mask; i++)
		if (old.vals[i] != IDMAP_NONE)
			place(m, old.keys[i], old.vals[i]);
	idmap_destroy(&old);
	return 0;
}

int idmap_put(struct idmap *m, uint64_t id, uint32_t val)
{
	if (idmap_get(m, id) != IDMAP_NONE)
		return 1;
	/* Keep the load under 1/2 so probes stay short. */
	if ((m->count + 1) * 2 > m->mask + 1 && grow(m) < 0)
		return -1;
	place(m, id, val);
	return 0;
}

uint32_t idmap_get(const struct idmap *m, uint64_t id)
{
	uint32_t i = bucket(id, m->mask);

	while (m->vals[i] != IDMAP_NONE) {
		if (m->keys[i] == id)
			return m->vals[i];
		i = (i + 1) & m->mask;
	}
	return IDMAP_NONE;
}

uint32_t idmap_del(struct idmap *m, uint64_t id)
{
	uint32_t i = bucket(id, m->mask), val;

	while (m->vals[i] != IDMAP_NONE && m->keys[i] != id)
		i = (i + 1) & m->mask;
	if (m->vals[i] == IDMAP_NONE)
		return IDMAP_NONE;
	val = m->vals[i];
	m->vals[i] = IDMAP_NONE;
	m->count--;
	/* Backward shift: pull later members of the probe run into the hole
	 * when the hole lies between their home bucket and where they sit. */
	for (uint32_t j = (i + 1) & m->mask; m->vals[j] != IDMAP_NONE; j = (j + 1) & m->mask) {
		uint32_t home = bucket(m->keys[j], m->mask);

		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->vals[j] = IDMAP_NONE;
			i = j;
		}
	}
	return val;
}
