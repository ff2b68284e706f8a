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
	/* The breakpoints in key order, a ring through the sentinel n[0]
	 * (n[0].next is the first, n[0].prev the last): the walk steps along
	 * it instead of descending from the root at each step. */
	uint32_t prev, next;
	uint32_t prio;
	/* The level summary (lv[] at the same index) is brought up to date
	 * only when a search reads it (levels_fix): an update marks the nodes
	 * it pulls, and every ancestor of a marked node is marked too, so a
	 * clean node has a clean subtree (for each of the two marks). Updates
	 * then cost what they did without the summary, and the nodes that
	 * every descent and the walk read stay in one cache line. */
	uint8_t stale;		/* STALE_BOUNDS | STALE_LEVELS */
};

/* A subtree's first and last key (bounds_fix) are brought up to date apart
 * from its levels (levels_fix): most subtrees a search reads are decided
 * by their bounds and prefix sums alone, and the levels cost more. */
#define STALE_BOUNDS	1u
#define STALE_LEVELS	2u

/* A subtree's first and last key, and its lowest levels: the LEVELS
 * smallest distinct prefix sums in it (a level's keys: those where the
 * prefix is at most that value). A job of n nodes sees its holes where the
 * free count is below n, which in a full plan are the few lowest levels.
 * For each level, of its keys: the first and the last, the key after the
 * last (BF_NEVER: it is the subtree's last key, so its step runs on past
 * the subtree), and the longest gap between two of them p, q (q minus the
 * key after p). `above` is the next larger prefix sum after the levels
 * kept (PINF: none): when n is at most that, the levels kept are all that
 * is below n. */
#define LEVELS 8

struct level {
	int64_t v;
	bf_time first, last, next, gap;
};

struct profile_level {
	bf_time kmin, kmax;
	int64_t above;
	uint32_t count;		/* levels kept, 1 .. LEVELS */
	struct level lev[LEVELS];
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
	x->stale = STALE_BOUNDS | STALE_LEVELS;
}

/* The same after a change of a delta only: the keys, and so every
 * subtree's first and last, are as they were. */
static void pull_delta(struct profile_node *n, uint32_t i)
{
	uint8_t bounds = n[i].stale & STALE_BOUNDS;

	pull(n, i);
	n[i].stale = (uint8_t)(STALE_LEVELS | bounds);
}

/* A child's level at value v (prefix sums shifted by `shift`): its
 * largest level at most v, or NULL. k is where the last call stopped: the
 * values asked for only grow. */
static const struct level *level_at(const struct profile_level *c, uint32_t *k, int64_t shift,
                                    int64_t v)
{
	while (*k < c->count && c->lev[*k].v + shift <= v)
		(*k)++;
	return *k ? &c->lev[*k - 1] : NULL;
}

/* Bring the level summary of a stale subtree i up to date (see struct
 * profile_node). A level of the subtree is one of its children's or its
 * own key's: a value v is kept if each child keeps every level it has up
 * to v (v below the child's `above`), so that its keys there are known.
 * Returns the summaries made. */
static uint32_t levels_fix(struct profile_node *n, struct profile_level *lv, uint32_t i)
{
	struct profile_node *x = &n[i];
	struct profile_level *y = &lv[i], *ll, *rl;
	int64_t here, limit, v = NINF;	/* the last level kept */
	uint32_t ka = 0, kc = 0;	/* the children's levels at most v */
	uint32_t made = 1;

	if (n[x->left].stale & STALE_LEVELS)
		made += levels_fix(n, lv, x->left);
	if (n[x->right].stale & STALE_LEVELS)
		made += levels_fix(n, lv, x->right);
	ll = &lv[x->left];
	rl = &lv[x->right];
	here = n[x->left].sum + x->delta;
	y->kmin = x->left ? ll->kmin : x->key;
	y->kmax = x->right ? rl->kmax : x->key;
	/* Values past a child's `above` are not known level by level. */
	limit = min64(x->left ? ll->above : PINF, x->right ? here + rl->above : PINF);
	y->count = 0;
	for (;;) {
		/* The next distinct value of the three sources after v. */
		int64_t nv = PINF;
		const struct level *a, *c;
		struct level *o;
		bool in_x, seen = false;
		bf_time next = BF_NEVER;

		if (x->left && ka < ll->count)
			nv = min64(nv, ll->lev[ka].v);
		if (here > v)
			nv = min64(nv, here);
		if (x->right && kc < rl->count)
			nv = min64(nv, here + rl->lev[kc].v);
		if (nv >= limit || y->count == LEVELS) {
			y->above = min64(nv, limit);
			break;
		}
		v = nv;
		a = x->left ? level_at(ll, &ka, 0, v) : NULL;
		c = x->right ? level_at(rl, &kc, here, v) : NULL;
		in_x = here <= v;
		o = &y->lev[y->count++];
		o->v = v;
		o->gap = 0;
		/* The level's keys in the three parts, in key order. */
		if (a) {
			o->first = a->first;
			o->gap = a->gap;
			o->last = a->last;
			next = a->next == BF_NEVER ? x->key : a->next;
			seen = true;
		}
		if (in_x) {
			if (seen)
				o->gap = max64(o->gap, x->key - next);
			else
				o->first = x->key;
			o->last = x->key;
			next = x->right ? rl->kmin : BF_NEVER;
			seen = true;
		}
		if (c) {
			if (seen) {
				o->gap = max64(max64(o->gap, c->first - next), c->gap);
			} else {
				o->first = c->first;
				o->gap = c->gap;
			}
			o->last = c->last;
			next = c->next;
		}
		o->next = next;
	}
	if (y->above >= PINF / 2)
		y->above = PINF;
	x->stale = 0;
	return made;
}

/* Only the first and last key of a stale subtree i; the nodes made. */
static uint32_t bounds_fix(struct profile_node *n, struct profile_level *lv, uint32_t i)
{
	struct profile_node *x = &n[i];
	uint32_t made = 1;

	if (n[x->left].stale & STALE_BOUNDS)
		made += bounds_fix(n, lv, x->left);
	if (n[x->right].stale & STALE_BOUNDS)
		made += bounds_fix(n, lv, x->right);
	lv[i].kmin = x->left ? lv[x->left].kmin : x->key;
	lv[i].kmax = x->right ? lv[x->right].kmax : x->key;
	x->stale &= (uint8_t)~STALE_BOUNDS;
	return made;
}

int profile_init(struct profile *p, int64_t capacity)
{
	memset(p, 0, sizeof *p);
	p->cap = 64;
	p->n = calloc(p->cap, sizeof *p->n);
	p->lv = calloc(p->cap, sizeof *p->lv);
	p->steps = calloc(1, sizeof *p->steps);
	if (!p->n || !p->lv || !p->steps) {
		free(p->n);
		free(p->lv);
		free(p->steps);
		return -1;
	}
	/* The nil sentinel: empty sum, and extremes that never win. Adding its
	 * minp/maxp to a prefix stays in range because |prefix| << PINF. */
	p->n[0].minp = PINF;
	p->n[0].maxp = NINF;
	p->lv[0].above = PINF;
	p->used = 1;
	p->rng = 0x9E3779B97F4A7C15ULL;
	p->capacity = capacity;
	return 0;
}

void profile_clear(struct profile *p)
{
	p->n[0].next = p->n[0].prev = 0;
	p->used = 1;
	p->free_head = 0;
	p->root = 0;
	p->count = 0;
}

void profile_destroy(struct profile *p)
{
	free(p->n);
	free(p->lv);
	free(p->steps);
	memset(p, 0, sizeof *p);
}

/* Twice the room, in both arrays; 0 or -1 (then cap is unchanged, and an
 * array that did grow is only larger than it needs to be). */
static int grow(struct profile *p)
{
	uint32_t ncap = p->cap * 2;
	struct profile_node *nn;
	struct profile_level *nl;

	if (ncap <= p->cap || ncap > UINT32_MAX / 2)
		return -1;
	nn = realloc(p->n, (size_t)ncap * sizeof *nn);
	if (!nn)
		return -1;
	p->n = nn;
	nl = realloc(p->lv, (size_t)ncap * sizeof *nl);
	if (!nl)
		return -1;
	p->lv = nl;
	p->cap = ncap;
	return 0;
}

/* A fresh node, or 0 if memory ran out. The arrays may move. */
static uint32_t node_new(struct profile *p, bf_time key, int64_t delta)
{
	uint32_t i;

	if (p->free_head) {
		i = p->free_head;
		p->free_head = p->n[i].left;
	} else {
		if (p->used == p->cap && grow(p) < 0)
			return 0;
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
	while (p->cap - 1 - p->count < k)
		if (grow(p) < 0)
			return -1;
	return 0;
}

static bool has_key(const struct profile *p, bf_time key)
{
	uint32_t i = p->root;

	while (i && p->n[i].key != key)
		i = key < p->n[i].key ? p->n[i].left : p->n[i].right;
	return i != 0;
}

/* Add d to the free-node change at key, the way adjust/insert would
 * (the same tree), by walking from the root once: the path is kept to
 * bring the sums up to date on the way back, and the ring's neighbours of
 * a new key are the last nodes the walk passed on either side. A tree
 * deeper than the path's room (no treap of any size in memory is, but
 * the priorities are only random) takes the recursive way. */
#define PATH_DEPTH 160

static void add_point_deep(struct profile *p, bf_time key, int64_t d)
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

/* Point the link that led to `old` (the parent's child, or the root) at `to`. */
static void relink_child(struct profile *p, const uint32_t *path, uint32_t depth, uint32_t old,
                         uint32_t to)
{
	struct profile_node *parent;

	if (depth == 0) {
		p->root = to;
		return;
	}
	parent = &p->n[path[depth - 1]];
	if (parent->left == old)
		parent->left = to;
	else
		parent->right = to;
}

/* Add d to the free-node change at key; room must have been reserved. */
static void add_point(struct profile *p, bf_time key, int64_t d)
{
	uint32_t path[PATH_DEPTH], depth = 0, i = p->root, before = 0, after = 0;
	struct profile_node *n = p->n;

	while (i && n[i].key != key) {
		if (depth == PATH_DEPTH) {
			add_point_deep(p, key, d);
			return;
		}
		path[depth++] = i;
		if (n[i].key < key) {
			before = i;
			i = n[i].right;
		} else {
			after = i;
			i = n[i].left;
		}
	}
	if (i) {
		n[i].delta += d;
		if (n[i].delta == 0) {	/* it no longer changes anything */
			relink_child(p, path, depth, i, merge(n, n[i].left, n[i].right));
			n[n[i].prev].next = n[i].next;
			n[n[i].next].prev = n[i].prev;
			node_free(p, i);
			p->count--;
		} else {
			/* Only a delta changed: no first or last key moved. */
			pull_delta(n, i);
			while (depth > 0)
				pull_delta(n, path[--depth]);
			return;
		}
	} else {
		uint32_t x = node_new(p, key, d), k = 0;	/* cannot fail: room reserved */

		n = p->n;
		n[x].prev = before;
		n[x].next = after;
		n[before].next = x;
		n[after].prev = x;
		/* It goes where the walk first met a lower priority (insert). */
		while (k < depth && n[x].prio <= n[path[k]].prio)
			k++;
		if (k < depth) {
			split(n, path[k], key, &n[x].left, &n[x].right);
			pull(n, x);
			relink_child(p, path, k, path[k], x);
			depth = k;
		} else if (depth == 0) {
			p->root = x;
		} else if (key < n[path[depth - 1]].key) {
			n[path[depth - 1]].left = x;
		} else {
			n[path[depth - 1]].right = x;
		}
		p->count++;
	}
	while (depth > 0)
		pull(n, path[--depth]);
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

/* The least prefix at a key of subtree i in (lo, hi), acc the prefix before
 * the subtree; PINF if it has none there. A subtree wholly inside answers
 * from its summary, so this follows the two paths to lo and hi. */
static int64_t min_between(const struct profile_node *n, uint32_t i, int64_t acc, bf_time lo,
                           bf_time hi, bool lo_in, bool hi_in)
{
	while (i) {
		const struct profile_node *x = &n[i];
		int64_t here, m;

		if (lo_in && hi_in)
			return acc + x->minp;
		here = acc + n[x->left].sum + x->delta;
		if (x->key <= lo) {
			acc = here;
			i = x->right;
		} else if (x->key >= hi) {
			i = x->left;
		} else {
			m = min64(min_between(n, x->left, acc, lo, hi, lo_in, true), here);
			return min64(m, min_between(n, x->right, here, lo, hi, true, hi_in));
		}
	}
	return PINF;
}

int64_t profile_min_free(const struct profile *p, bf_time from, bf_time until)
{
	uint32_t after;
	int64_t at = locate(p, from, &after);

	return p->capacity + min64(at, min_between(p->n, p->root, 0, from, until, false, false));
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

/* The walk from a state: acc the prefix before key i (the next step),
 * good whether the count there is at least n, and if so run the start of
 * the current run. */
static bf_time walk_from(const struct profile *p, int64_t n, bf_time d, bf_time before,
                         bf_time clip, int64_t acc, uint32_t i, bool good, bf_time run)
{
	const struct profile_node *nd = p->n;
	int64_t target = n - p->capacity;
	uint32_t steps = 0;

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

bf_time profile_anchor_before_walk(const struct profile *p, int64_t n, bf_time d, bf_time from,
                                   bf_time before, bf_time clip)
{
	int64_t acc;
	uint32_t i;

	if (n <= 0)
		return from < before ? from : BF_NEVER;
	if (n > p->capacity)
		return BF_NEVER;
	acc = locate(p, from, &i);
	return walk_from(p, n, d, before, clip, acc, i, acc >= n - p->capacity, from);
}

/* The anchor search by subtrees. The steps after `from` are visited in
 * key order as whole subtrees where the subtree's summary answers, one key
 * at a time only where it does not. A search carries the current run:
 * where the free count last rose to n (or none). A subtree where all is
 * free enough extends the run, one where nothing is ends it. Otherwise,
 * when the keys below n are exactly the keys of some level kept (n at most
 * the next level), the first of them ends the carried run, their longest
 * gap says whether a run inside is long enough (then the answer is inside:
 * go down), and if not, the run after the last of them is carried on. So
 * a search costs a descent along `from` and one per subtree that holds
 * the answer, whatever the number of short holes skipped: O(log^2 B).
 * Where more levels are below n than are kept, the highest kept still
 * bounds every run between its first and last key by its longest gap: if
 * that is short, only the keys before and after are searched (by their
 * own subtrees, whose levels are fewer); otherwise the search goes down,
 * key by key at worst, as the walk would. */
#define SHORT_WALK 64

struct anchor_q {
	struct profile_node *n;	/* only `stale` is written, by levels_fix */
	struct profile_level *lv;
	int64_t target;		/* n - capacity: good where the prefix is >= this */
	bf_time d, before, clip;
	bf_time run;		/* start of the current run, if has_run */
	bool has_run, done;
	bf_time answer;
	uint64_t steps;		/* nodes looked at, summaries made (profile_steps) */
};

/* A level summary costs about this many steps of a search to make. */
#define LEVEL_FIX_STEPS 4

static inline bf_time run_end(const struct anchor_q *q) { return q->run + q->d < q->clip ? q->run + q->d : q->clip; }

static void q_found(struct anchor_q *q, bf_time t) { q->answer = t; q->done = true; }

/* The step starting at key k is good or not. */
static void q_key(struct anchor_q *q, bf_time k, bool good)
{
	if (q->has_run) {
		if (k >= run_end(q)) {
			q_found(q, q->run);
			return;
		}
		q->has_run = good;
	} else if (good) {
		if (k >= q->before) {
			q->done = true;	/* no run can start before `before` */
			return;
		}
		q->has_run = true;
		q->run = k;
	}
}

static void q_scan(struct anchor_q *q, uint32_t i, int64_t acc);
static void q_from(struct anchor_q *q, uint32_t i, int64_t acc, bf_time from);

/* The keys of subtree i before `bound`, in order (all after `from`). */
static void q_lead(struct anchor_q *q, uint32_t i, int64_t acc, bf_time bound)
{
	while (i && !q->done) {
		const struct profile_node *x = &q->n[i];
		int64_t at;

		q->steps++;
		if (x->key >= bound) {
			i = x->left;
			continue;
		}
		q_scan(q, x->left, acc);
		if (q->done)
			return;
		at = acc + q->n[x->left].sum + x->delta;
		q_key(q, x->key, at >= q->target);
		acc = at;
		i = x->right;
	}
}

/* Subtree i, all of whose keys are after `from`; acc: the prefix before it. */
static void q_scan(struct anchor_q *q, uint32_t i, int64_t acc)
{
	const struct profile_node *x;
	const struct profile_level *y;
	int64_t at;

	if (!i || q->done)
		return;
	x = &q->n[i];
	y = &q->lv[i];
	q->steps++;
	if (x->stale & STALE_BOUNDS)
		q->steps += bounds_fix(q->n, q->lv, i);
	if (q->has_run && y->kmin >= run_end(q)) {
		q_found(q, q->run);
		return;
	}
	if (!q->has_run && y->kmin >= q->before) {
		q->done = true;	/* no run can start before `before` */
		return;
	}
	if (acc + x->minp >= q->target) {	/* all good: the run goes on */
		q_key(q, y->kmin, true);
		return;
	}
	if (acc + x->maxp < q->target) {	/* all bad: the run ends */
		q->has_run = false;
		return;
	}
	if (y->kmax < q->before && y->kmax < q->clip) {
		/* The highest level kept that is below n: its keys are below n. */
		int64_t theta = q->target - acc;
		uint32_t k = 0;
		const struct level *l;

		if (x->stale & STALE_LEVELS)
			q->steps += LEVEL_FIX_STEPS * levels_fix(q->n, q->lv, i);
		while (k + 1 < y->count && y->lev[k + 1].v < theta)
			k++;
		l = &y->lev[k];
		if (k + 1 < y->count || theta <= y->above) {
			/* And they are all that is: every run inside ends before
			 * clip, so a run inside must last d. */
			bf_time lead = q->has_run ? q->run : y->kmin;

			if (l->first > lead && l->first >= (lead + q->d < q->clip ? lead + q->d : q->clip)) {
				q_found(q, lead);
				return;
			}
			if (l->gap < q->d) {
				q->has_run = l->next != BF_NEVER;
				q->run = l->next;
				return;
			}
			/* A run inside is long enough: the answer is in this subtree. */
		} else if (l->gap < q->d) {
			/* Higher levels are below n too, but no gap between this
			 * level's keys lasts d: neither does a run between its first
			 * and last key, so only the keys before the first and after
			 * the last are searched, each part by its own subtrees'
			 * summaries. */
			q_lead(q, i, acc, l->first);
			if (q->done)
				return;
			q_key(q, l->first, false);
			if (!q->done)
				q_from(q, i, acc, l->last);
			return;
		}
	}
	q_scan(q, x->left, acc);
	if (q->done)
		return;
	at = acc + q->n[x->left].sum + x->delta;
	q_key(q, x->key, at >= q->target);
	q_scan(q, x->right, at);
}

/* The keys after `from` in subtree i, in order; acc: the prefix before i. */
static void q_from(struct anchor_q *q, uint32_t i, int64_t acc, bf_time from)
{
	while (i && !q->done) {
		const struct profile_node *x = &q->n[i];
		int64_t at = acc + q->n[x->left].sum + x->delta;

		q->steps++;
		if (x->key <= from) {
			acc = at;
			i = x->right;
			continue;
		}
		q_from(q, x->left, acc, from);
		if (q->done)
			return;
		q_key(q, x->key, at >= q->target);
		q_scan(q, x->right, at);
		return;
	}
}

/* The search by subtrees for the keys after `after`, with the state of a
 * walk up to there. */
static bf_time anchor_tree(const struct profile *p, struct anchor_q *q, bf_time after)
{
	q_from(q, p->root, 0, after);
	if (!q->done && q->has_run)
		return q->run;	/* the last step is free enough, and lasts */
	return q->answer;
}

bf_time profile_anchor_before(const struct profile *p, int64_t n, bf_time d, bf_time from,
                              bf_time before, bf_time clip)
{
	/* The search brings stale level summaries up to date: a cache, so
	 * the profile is const to callers. */
	struct profile_node *nd = p->n;
	struct anchor_q q = { .n = nd, .lv = p->lv, .target = n - p->capacity, .d = d,
	                      .before = before, .clip = clip, .answer = BF_NEVER };
	int64_t acc;
	uint32_t i;
	bf_time answer;

	if (n <= 0)
		return from < before ? from : BF_NEVER;
	if (n > p->capacity || from >= before)
		return BF_NEVER;
	acc = locate(p, from, &i);
	q.has_run = acc >= q.target;
	q.run = from;
	/* Most answers are a few steps away: step along the ring first (one
	 * addition a step), and search by subtrees only past SHORT_WALK. */
	for (int steps = 0; steps < SHORT_WALK && i; steps++) {
		acc += nd[i].delta;
		q_key(&q, nd[i].key, acc >= q.target);
		if (q.done) {
			*p->steps += (uint64_t)steps + 1;
			return q.answer;
		}
		i = nd[i].next;
	}
	*p->steps += SHORT_WALK;
	if (!i)
		return q.has_run ? q.run : BF_NEVER;	/* the last step lasts */
	/* Keys are whole microseconds: the keys after key - 1 are those from key on. */
	answer = anchor_tree(p, &q, nd[i].key - 1);
	*p->steps += q.steps;
	return answer;
}

bf_time profile_anchor_before_tree(const struct profile *p, int64_t n, bf_time d, bf_time from,
                                   bf_time before, bf_time clip)
{
	struct anchor_q q = { .n = p->n, .lv = p->lv, .target = n - p->capacity, .d = d,
	                      .before = before, .clip = clip, .answer = BF_NEVER };
	uint32_t i;

	if (n <= 0)
		return from < before ? from : BF_NEVER;
	if (n > p->capacity || from >= before)
		return BF_NEVER;
	q.has_run = locate(p, from, &i) >= q.target;
	q.run = from;
	return anchor_tree(p, &q, from);
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

bool profile_step(const struct profile *p, uint32_t *at, bf_time *key, int64_t *delta)
{
	uint32_t i = p->n[*at].next;

	if (!i)
		return false;
	*at = i;
	*key = p->n[i].key;
	*delta = p->n[i].delta;
	return true;
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

/* Bottom-up: each node's sums after its children's. */
static void pull_all(struct profile_node *n, uint32_t i)
{
	if (!i)
		return;
	pull_all(n, n[i].left);
	pull_all(n, n[i].right);
	pull(n, i);
}

/* The live breakpoints only, renumbered in key order: a plan that once
 * held many more (a deep conservative queue, before a switch to EASY) is
 * copied at its present size. The tree is rebuilt with the same
 * priorities in one sweep (each key in order goes under the nearest
 * earlier key of higher priority, taking the lower ones as its left
 * subtree), and its level summaries are left to be made when read. */
int profile_copy(struct profile *dst, const struct profile *src)
{
	uint32_t cap = 64, k = 0, *stack;
	uint32_t sp = 0;

	while (cap < src->count + 1 + 64)
		cap *= 2;
	*dst = *src;
	dst->cap = cap;
	dst->n = calloc(cap, sizeof *dst->n);
	dst->lv = calloc(cap, sizeof *dst->lv);
	dst->steps = calloc(1, sizeof *dst->steps);
	stack = malloc((size_t)(src->count + 1) * sizeof *stack);
	if (!dst->n || !dst->lv || !dst->steps || !stack) {
		free(dst->n);
		free(dst->lv);
		free(dst->steps);
		free(stack);
		dst->n = NULL;
		dst->lv = NULL;
		dst->steps = NULL;
		return -1;
	}
	dst->n[0] = src->n[0];
	dst->lv[0] = src->lv[0];
	for (uint32_t i = src->n[0].next; i; i = src->n[i].next) {
		struct profile_node *x = &dst->n[++k];
		uint32_t last = 0;

		*x = (struct profile_node){ .key = src->n[i].key, .delta = src->n[i].delta,
		                            .prio = src->n[i].prio, .prev = k - 1 };
		dst->n[k - 1].next = k;
		while (sp && dst->n[stack[sp - 1]].prio < x->prio)
			last = stack[--sp];
		x->left = last;
		if (sp)
			dst->n[stack[sp - 1]].right = k;
		stack[sp++] = k;
	}
	dst->n[k].next = 0;
	dst->n[0].prev = k;
	dst->n[0].next = k ? 1 : 0;
	dst->root = sp ? stack[0] : 0;
	dst->used = k + 1;
	dst->free_head = 0;
	dst->count = k;
	free(stack);
	pull_all(dst->n, dst->root);
	return 0;
}
