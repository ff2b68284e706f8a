/* The node set: which of the partition's nodes are up, free, and held by
 * which job. Allocation is real: a job gets named nodes (indices 0..N-1,
 * named by the driver), lowest free index first, so allocations are
 * deterministic and mostly contiguous.
 *
 * Free nodes are a two-level bitmap (a summary bit per 64-bit word) so an
 * allocation costs O(N/4096 + n) even on a 100,000-node partition. A job's
 * nodes are a singly linked list threaded through next[], ascending, so
 * neither allocation nor release allocates memory. */
#ifndef BF_NODESET_H
#define BF_NODESET_H
#include <stdbool.h>
#include <stdint.h>

#define NODESET_NONE UINT32_MAX

struct nodeset {
	uint32_t n;		/* nodes in the partition */
	uint32_t nfree;		/* up and not held */
	uint32_t ndown;		/* marked down (held or not) */
	uint32_t nwords;
	uint64_t *free_bits;	/* bit set: node is up and not held */
	uint64_t *summary;	/* bit w set: free_bits[w] != 0 */
	uint32_t *next;		/* next node of the same job, or NODESET_NONE */
	uint32_t *owner;	/* holding job's handle, or NODESET_NONE */
	uint8_t  *down;
};

int  nodeset_init(struct nodeset *ns, uint32_t n);
/* Grow the partition to n nodes (n >= ns->n): the new ones, indices ns->n
 * .. n - 1, are up and free. Returns -1 if memory ran out; then the set is
 * unchanged but for spare room. */
int  nodeset_grow(struct nodeset *ns, uint32_t n);
void nodeset_destroy(struct nodeset *ns);

/* Take `count` free nodes for job `owner`; *first gets the head of the
 * job's list. Returns -1 (nothing taken) if fewer than count are free. */
int  nodeset_alloc(struct nodeset *ns, uint32_t count, uint32_t owner, uint32_t *first);
/* Take exactly the given nodes (a job adopted after a restart), linked in
 * the order given. Returns -1, taking none, if one is out of range, down,
 * held, or listed twice. */
int  nodeset_take(struct nodeset *ns, const uint32_t *nodes, uint32_t count, uint32_t owner,
                  uint32_t *first);
/* Return a job's nodes; nodes marked down stay out of the free set.
 * Returns how many nodes went back to the free set. */
uint32_t nodeset_release(struct nodeset *ns, uint32_t first);
/* Mark a node down / up. Returns the node's owner (NODESET_NONE if idle);
 * a held node stays on its job's list until the job releases it. */
uint32_t nodeset_set_down(struct nodeset *ns, uint32_t node);
uint32_t nodeset_set_up(struct nodeset *ns, uint32_t node);

static inline bool nodeset_is_free(const struct nodeset *ns, uint32_t i)
{
	return (ns->free_bits[i / 64] >> (i % 64)) & 1;
}

#endif
