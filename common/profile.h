/* The reservation profile: free nodes as a step function of future time.
 *
 * Representation: an ordered set of breakpoints, each carrying the change
 * (delta) of free nodes at that instant; free(t) = capacity + the sum of the
 * deltas at keys <= t. A reservation of n nodes over [t, t+d) is two point
 * updates (-n at t, +n at t+d), and a breakpoint whose delta returns to zero
 * is deleted, so the set holds at most two keys per job in the system.
 *
 * The set is a treap (randomised balanced BST, fixed-seed so runs are
 * deterministic) where every node also keeps, for its subtree, the sum of
 * deltas and the minimum and maximum prefix sum. That answers "first time
 * >= t with at least n free" and "first time in (s, s+d) with fewer than n
 * free" by one descent each, O(log B) for B breakpoints, instead of the
 * O(B) scan of the classic linked list of periods. anchor() skips the holes
 * too short for the job by whole subtrees, with a summary of each subtree's
 * lowest level (profile.c). Point updates (not range updates) keep it free
 * of lazy propagation.
 *
 * Nodes live in one array with a free list: no allocation per operation
 * once the array has grown to the working size. */
#ifndef BF_PROFILE_H
#define BF_PROFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

struct profile_node;
struct profile_level;

struct profile {
	struct profile_node *n;	/* n[0] is the nil sentinel */
	struct profile_level *lv;	/* a summary per node, for the anchor search */
	uint32_t cap;		/* allocated nodes */
	uint32_t used;		/* high-water mark of n[] */
	uint32_t free_head;	/* free list through .left */
	uint32_t root;
	uint32_t count;		/* live breakpoints */
	uint64_t rng;		/* treap priorities */
	int64_t capacity;	/* free nodes with nothing reserved */
	/* Steps the searches took (nodes looked at, summaries made), so a
	 * caller can measure its work in what it costs: behind a pointer,
	 * like the level summaries a search brings up to date, so the
	 * profile stays const to readers. */
	uint64_t *steps;
};

int     profile_init(struct profile *p, int64_t capacity);
void    profile_destroy(struct profile *p);
/* Nothing reserved any more; the memory is kept for what comes. */
void    profile_clear(struct profile *p);
/* An independent copy (for what-if planning). 0 or -1. */
int     profile_copy(struct profile *dst, const struct profile *src);

/* n more nodes, free at every instant (the partition grew): what was
 * free stays free, and every question after sees n more. */
static inline void profile_add_capacity(struct profile *p, int64_t n) { p->capacity += n; }

/* Subtract (reserve) or add back (release) n nodes over [t, t+d), d > 0.
 * Returns 0, or -1 if memory ran out (then the profile is unchanged). */
int     profile_reserve(struct profile *p, bf_time t, int64_t n, bf_time d);
int     profile_release(struct profile *p, bf_time t, int64_t n, bf_time d);

/* Make sure the next k new breakpoints need no allocation, so a caller can
 * release and re-reserve without a failure in between. 0 or -1. */
int     profile_prepare(struct profile *p, uint32_t k);

/* Free nodes at instant t. */
int64_t profile_free_at(const struct profile *p, bf_time t);
/* Earliest s >= from with free(s) >= n, or BF_NEVER. */
bf_time profile_first_fit(const struct profile *p, int64_t n, bf_time from);
/* Earliest t >= from with at least n free during all of [t, t+d);
 * BF_NEVER if n exceeds what the profile ever has free. */
bf_time profile_anchor(const struct profile *p, int64_t n, bf_time d, bf_time from);
/* The same, for a start t < before, where only [t, min(t+d, clip)) must
 * have n free; BF_NEVER if there is no such t. A job reserved at r can move
 * to t exactly when this finds t with before = clip = r: past r its own
 * reservation holds its nodes. So compression asks without touching the
 * profile (and may bound `before` further, see sched_cons.c). */
bf_time profile_anchor_before(const struct profile *p, int64_t n, bf_time d, bf_time from,
                              bf_time before, bf_time clip);
/* The search above is a short walk along the steps, then a search by
 * subtrees that skips every hole too short for the job whose low free
 * count is the lowest level of its subtree: O(log^2 B) for a search in a
 * full plan, however many holes it skips (see profile.c). For the tests:
 * the search by subtrees alone (_tree); and the references it is tested
 * against, the earlier search, a walk along the steps that jumps over
 * long stretches (_walk), and hole by hole, two descents a hole (_hops). */
bf_time profile_anchor_before_tree(const struct profile *p, int64_t n, bf_time d, bf_time from,
                                   bf_time before, bf_time clip);
bf_time profile_anchor_before_walk(const struct profile *p, int64_t n, bf_time d, bf_time from,
                                   bf_time before, bf_time clip);
bf_time profile_anchor_before_hops(const struct profile *p, int64_t n, bf_time d, bf_time from,
                                   bf_time before, bf_time clip);
/* The fewest nodes free at any instant of [from, until), from < until. */
int64_t profile_min_free(const struct profile *p, bf_time from, bf_time until);
/* Earliest t in [from, until) with fewer than n free, or BF_NEVER. */
bf_time profile_first_below(const struct profile *p, int64_t n, bf_time from, bf_time until);
/* The breakpoints in time order: *at = 0 first, then as this leaves it;
 * false after the last. No breakpoint has a zero delta. */
bool    profile_step(const struct profile *p, uint32_t *at, bf_time *key, int64_t *delta);
/* The first breakpoint strictly after t, or BF_NEVER: for walking the steps. */
bf_time profile_next_change(const struct profile *p, bf_time t);
/* The steps every search of this profile has taken so far. */
static inline uint64_t profile_steps(const struct profile *p) { return *p->steps; }
/* Number of breakpoints (for statistics and tests). */
static inline uint32_t profile_size(const struct profile *p) { return p->count; }

#endif
