/* The reservation profile as an augmented treap; see profile.h for why. */
#include <stdlib.h>
#include <string.h>
#include "profile.h"

/* Sentinels for empty subtrees: large enough to never win a min/max, small
 * enough that adding a real prefix sum cannot overflow. */
#define PINF ((int64_t)INT64_MAX / 4)
#define NINF (-PINF)

struct profile_node {
	bf_time key;
	int64_t delta;		/* change of free nodes at key */
	int64_t sum;		/* sum of delta over the subtree */
	int64_t minp, maxp;	/* min / max prefix sum inside the subtree, in key order */
	uint32_t left, right;
	uint32_t prio;
	/* The breakpoints in key order, a ring through the sentinel n[0]
	 * (n[0].next is the first, n[0].prev the last): the anchor search
	 * steps along it instead of descending from the root at each step. */
	uint32_t prev, next;
};

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static uint32_t next_prio(struct profile *p)
{
	/* xorshift64*: fixed seed, so every run builds the same tree. */
	p->rng ^= p->rng >> 12;
	p->rng ^= p->rng << 25;
	p->rng ^= p->rng >> 27;
	return (uint32_t)((p->rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static void pull(struct profile_node *n, uint32_t i)
{
	struct profile_node *x = &n[i], *l = &n[x->left], *r = &n[x->right];
	int64_t here = l->sum + x->delta;	/* prefix up to and including x */

	x->sum = here + r->sum;
	x->minp = min64(min64(l->minp, here), here + r->minp);
	x->maxp = max64(max64(l->maxp, here), here + r->maxp);
}

int profile_init(struct profile *p, int64_t capacity)
{
	memset(p, 0, sizeof *p);
	p->cap = 64;
	p->n = calloc(p->cap, sizeof *p->n);
	if (!p->n)
		return -1;
	/* The nil sentinel: empty sum, and extremes that never win. Adding its
	 * minp/maxp to a prefix stays in range because |prefix| << PINF. */
	p->n[0].minp = PINF;
	p->n[0].maxp = NINF;
	p->used = 1;
	p->rng = 0x9E3779B97F4A7C15ULL;
	p->capacity = capacity;
	return 0;
}

void profile_destroy(struct profile *p)
{
	free(p->n);
	memset(p, 0, sizeof *p);
}

/* A fresh node, or 0 if memory ran out. The array may move. */
static uint32_t node_new(struct profile *p, bf_time key, int64_t delta)
{
	uint32_t i;

	if (p->free_head) {
		i = p->free_head;
		p->free_head = p->n[i].left;
	} else {
		if (p->used == p->cap) {
			uint32_t ncap = p->cap * 2;
			struct profile_node *nn;

			if (ncap <= p->cap || ncap > UINT32_MAX / 2)
				return 0;
			nn = realloc(p->n, (size_t)ncap * sizeof *nn);
			if (!nn)
				return 0;
			p->n = nn;
			p->cap = ncap;
		}
		i = p->used++;
	}
	p->n[i] = (struct profile_node){ .key = key, .delta = delta, .prio = next_prio(p) };
	pull(p->n, i);
	return i;
}

static void node_free(struct profile *p, uint32_t i)
{
	p->n[i].left = p->free_head;
	p->free_head = i;
}

/* Split subtree t into keys < key (*l) and keys >= key (*r). */
static void split(struct profile_node *n, uint32_t t, bf_time key, uint32_t *l, uint32_t *r)
{
	if (!t) {
		*l = *r = 0;
	} else if (n[t].key < key) {
		split(n, n[t].right, key, &n[t].right, r);
		pull(n, t);
		*l = t;
	} else {
		split(n, n[t].left, key, l, &n[t].left);
		pull(n, t);
		*r = t;
	}
}

/* Join two subtrees where every key of a precedes every key of b. */
static uint32_t merge(struct profile_node *n, uint32_t a, uint32_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (n[a].prio > n[b].prio) {
		n[a].right = merge(n, n[a].right, b);
		pull(n, a);
		return a;
	}
	n[b].left = merge(n, a, n[b].left);
	pull(n, b);
	return b;
}

static uint32_t insert(struct profile_node *n, uint32_t t, uint32_t x)
{
	if (!t)
		return x;
	if (n[x].prio > n[t].prio) {
		split(n, t, n[x].key, &n[x].left, &n[x].right);
		pull(n, x);
		return x;
	}
	if (n[x].key < n[t].key)
		n[t].left = insert(n, n[t].left, x);
	else
		n[t].right = insert(n, n[t].right, x);
	pull(n, t);
	return t;
}

/* Add d to the delta of the existing key; a delta that reaches zero removes
 * the breakpoint (it no longer changes anything). */
static uint32_t adjust(struct profile *p, uint32_t t, bf_time key, int64_t d)
{
	struct profile_node *n = p->n;

	if (n[t].key == key) {
		n[t].delta += d;
		if (n[t].delta == 0) {
			uint32_t m = merge(n, n[t].left, n[t].right);

			n[n[t].prev].next = n[t].next;
			n[n[t].next].prev = n[t].prev;
			node_free(p, t);
			p->count--;
			return m;
		}
		pull(n, t);
		return t;
	}
	if (key < n[t].key)
		n[t].left = adjust(p, n[t].left, key, d);
	else
		n[t].right = adjust(p, n[t].right, key, d);
	pull(n, t);
	return t;
}


int profile_prepare(struct profile *p, uint32_t k)
{
	while (p->cap - 1 - p->count < k) {
		uint32_t ncap = p->cap * 2;
		struct profile_node *nn;

		if (ncap <= p->cap || ncap > UINT32_MAX / 2)
			return -1;
		nn = realloc(p->n, (size_t)ncap * sizeof *nn);
		if (!nn)
			return -1;
		p->n = nn;
		p->cap = ncap;
	}
	return 0;
}

static bool has_key(const struct profile *p, bf_time key)
{
	uint32_t i = p->root;

	while (i && p->n[i].key != key)
		i = key < p->n[i].key ? p->n[i].left : p->n[i].right;
	return i != 0;
}

/* Add d to the free-node change at key; room must have been reserved. */
static void add_point(struct profile *p, bf_time key, int64_t d)
{
	if (has_key(p, key)) {
		p->root = adjust(p, p->root, key, d);
	} else {
		uint32_t x = node_new(p, key, d);	/* cannot fail: room reserved */
		uint32_t before = 0, after = 0;	/* 0: the ring's ends */

		for (uint32_t i = p->root; i;) {
			if (p->n[i].key < key) {
				before = i;
				i = p->n[i].right;
			} else {
				after = i;
				i = p->n[i].left;
			}
		}
		p->n[x].prev = before;
		p->n[x].next = after;
		p->n[before].next = x;
		p->n[after].prev = x;
		p->root = insert(p->n, p->root, x);
		p->count++;
	}
}

static int change(struct profile *p, bf_time t, int64_t n, bf_time d)
{
	if (n == 0)
		return 0;
	if (d <= 0 || profile_prepare(p, 2) < 0)
		return -1;
	add_point(p, t, n);
	add_point(p, t + d, -n);
	return 0;
}

int profile_reserve(struct profile *p, bf_time t, int64_t n, bf_time d)
{
	return change(p, t, -n, d);
}

int profile_release(struct profile *p, bf_time t, int64_t n, bf_time d)
{
	return change(p, t, n, d);
}

/* The prefix at t (deltas at keys <= t) and the first breakpoint after t. */
static int64_t locate(const struct profile *p, bf_time t, uint32_t *after)
{
	const struct profile_node *n = p->n;
	int64_t acc = 0;
	uint32_t i = p->root;

	*after = 0;
	while (i) {
		if (n[i].key <= t) {
			acc += n[n[i].left].sum + n[i].delta;
			i = n[i].right;
		} else {
			*after = i;
			i = n[i].left;
		}
	}
	return acc;
}

int64_t profile_free_at(const struct profile *p, bf_time t)
{
	uint32_t after;

	return p->capacity + locate(p, t, &after);
}

/* First key of subtree i (every key eligible) whose prefix, counting acc
 * for everything before the subtree, satisfies the test; BF_NEVER if none.
 * `ge` selects prefix >= target (using maxp) or prefix < target (minp).
 * The subtree test at the top means that once we go down, the answer is
 * there: one path, O(depth). */
static bf_time first_in(const struct profile_node *n, uint32_t i, int64_t acc,
                        int64_t target, bool ge)
{
	while (i) {
		uint32_t l = n[i].left;
		int64_t here;

		if (ge ? acc + n[i].maxp < target : acc + n[i].minp >= target)
			return BF_NEVER;
		if (l && (ge ? acc + n[l].maxp >= target : acc + n[l].minp < target)) {
			i = l;
			continue;
		}
		here = acc + n[l].sum + n[i].delta;
		if (ge ? here >= target : here < target)
			return n[i].key;
		acc = here;
		i = n[i].right;
	}
	return BF_NEVER;
}

/* The first instant t >= from whose free count passes the test: `from`
 * itself, or a later key. Walks the path towards `from`; at its bottom acc
 * is the prefix at `from` (tested before any later key, as order wants);
 * every subtree hanging off the path to the right is wholly after `from`,
 * and the first of those that passes the subtree test holds the answer. */
static bf_time first_from(const struct profile_node *n, uint32_t i, int64_t acc,
                          bf_time from, int64_t target, bool ge)
{
	while (i) {
		const struct profile_node *x = &n[i];
		bf_time r;
		int64_t here;

		if (x->key <= from) {
			acc += n[x->left].sum + x->delta;
			i = x->right;
			continue;
		}
		r = first_from(n, x->left, acc, from, target, ge);
		if (r != BF_NEVER)
			return r;
		here = acc + n[x->left].sum + x->delta;
		if (ge ? here >= target : here < target)
			return x->key;
		return first_in(n, x->right, here, target, ge);
	}
	return (ge ? acc >= target : acc < target) ? from : BF_NEVER;
}

bf_time profile_first_fit(const struct profile *p, int64_t n, bf_time from)
{
	return first_from(p->n, p->root, 0, from, n - p->capacity, true);
}

bf_time profile_first_below(const struct profile *p, int64_t n, bf_time from, bf_time until)
{
	bf_time k;

	if (from >= until)
		return BF_NEVER;
	k = first_from(p->n, p->root, 0, from, n - p->capacity, false);
	return k < until ? k : BF_NEVER;
}

/* The anchor search as a walk along the breakpoints in time order: the
 * free count is carried from one to the next (one addition a step, not a
 * descent from the root), a run with n free starts where the count rises
 * to n and fails where it falls below, and the first run that lasts the
 * window is the answer. A walk that stays in one state for more than
 * WALK_STEPS breakpoints (a long stretch without n free, or a long window
 * crossing many small changes) jumps to the end of that stretch with one
 * descent, so no search costs more than the hop-by-hop one
 * (profile_anchor_before_hops, kept as the tests' reference). */
#define WALK_STEPS 64

bf_time profile_anchor_before(const struct profile *p, int64_t n, bf_time d, bf_time from,
                              bf_time before, bf_time clip)
{
	const struct profile_node *nd = p->n;
	int64_t target = n - p->capacity, acc;
	uint32_t i, steps = 0;
	bf_time t = from, run;
	bool good;

	if (n <= 0)
		return from < before ? from : BF_NEVER;
	if (n > p->capacity)
		return BF_NEVER;
	acc = locate(p, t, &i);
	good = acc >= target;
	run = t;
	for (;;) {
		bf_time k = i ? nd[i].key : BF_NEVER;

		if (good) {
			bf_time end = run + d < clip ? run + d : clip;

			if (run >= before)
				return BF_NEVER;
			if (k >= end)
				return run;
			if (++steps > WALK_STEPS) {
				/* The first fall below n inside the window, at once. */
				bf_time fall = profile_first_below(p, n, k, end);

				if (fall == BF_NEVER)
					return run;
				acc = locate(p, fall, &i);
				good = false;
				steps = 0;
				continue;
			}
			acc += nd[i].delta;
			i = nd[i].next;
			if (acc < target) {
				good = false;
				steps = 0;
			}
		} else {
			if (k >= before)
				return BF_NEVER;
			if (++steps > WALK_STEPS) {
				/* The next instant with n free, at once. */
				bf_time rise = profile_first_fit(p, n, k);

				if (rise >= before)
					return BF_NEVER;
				acc = locate(p, rise, &i);
				good = true;
				run = rise;
				steps = 0;
				continue;
			}
			acc += nd[i].delta;
			i = nd[i].next;
			if (acc >= target) {
				good = true;
				run = k;
				steps = 0;
			}
		}
	}
}

bf_time profile_anchor_before_hops(const struct profile *p, int64_t n, bf_time d, bf_time from,
                                   bf_time before, bf_time clip)
{
	bf_time t = from;

	if (n <= 0)
		return from < before ? from : BF_NEVER;
	if (n > p->capacity)
		return BF_NEVER;
	for (;;) {
		/* Earliest instant with n free, then the first drop below n
		 * inside [s, s + d) (cut at clip); if there is none, s is the
		 * anchor, else resume the search from the drop. Each round
		 * passes at least one breakpoint, so the loop ends. */
		bf_time s = profile_first_fit(p, n, t), k;

		if (s >= before || s >= BF_NEVER)
			return BF_NEVER;
		k = profile_first_below(p, n, s, s + d < clip ? s + d : clip);
		if (k == BF_NEVER)
			return s;
		t = k;
	}
}

bf_time profile_anchor(const struct profile *p, int64_t n, bf_time d, bf_time from)
{
	return profile_anchor_before(p, n, d, from, BF_NEVER, BF_NEVER);
}

bf_time profile_next_change(const struct profile *p, bf_time t)
{
	bf_time best = BF_NEVER;
	uint32_t i = p->root;

	while (i) {
		if (p->n[i].key > t) {
			best = p->n[i].key;
			i = p->n[i].left;
		} else {
			i = p->n[i].right;
		}
	}
	return best;
}

int profile_copy(struct profile *dst, const struct profile *src)
{
	*dst = *src;
	dst->n = malloc((size_t)src->cap * sizeof *dst->n);
	if (!dst->n)
		return -1;
	memcpy(dst->n, src->n, (size_t)src->used * sizeof *dst->n);
	return 0;
}
