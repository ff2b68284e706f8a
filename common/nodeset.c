/* Named-node allocation; see nodeset.h. */
#include <stdlib.h>
#include <string.h>
#include "nodeset.h"

static void set_free(struct nodeset *ns, uint32_t i)
{
	ns->free_bits[i / 64] |= 1ULL << (i % 64);
	ns->summary[i / 4096] |= 1ULL << ((i / 64) % 64);
	ns->nfree++;
}

static void clear_free(struct nodeset *ns, uint32_t i)
{
	uint32_t w = i / 64;

	ns->free_bits[w] &= ~(1ULL << (i % 64));
	if (!ns->free_bits[w])
		ns->summary[w / 64] &= ~(1ULL << (w % 64));
	ns->nfree--;
}

int nodeset_init(struct nodeset *ns, uint32_t n)
{
	memset(ns, 0, sizeof *ns);
	if (n == 0 || n > UINT32_MAX / 2)
		return -1;
	ns->n = n;
	ns->nwords = (n + 63) / 64;
	ns->free_bits = calloc(ns->nwords, sizeof *ns->free_bits);
	ns->summary = calloc((ns->nwords + 63) / 64, sizeof *ns->summary);
	ns->next = malloc((size_t)n * sizeof *ns->next);
	ns->owner = malloc((size_t)n * sizeof *ns->owner);
	ns->down = calloc(n, 1);
	if (!ns->free_bits || !ns->summary || !ns->next || !ns->owner || !ns->down) {
		nodeset_destroy(ns);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		ns->next[i] = NODESET_NONE;
		ns->owner[i] = NODESET_NONE;
		set_free(ns, i);
	}
	return 0;
}

/* Make an array hold `want` elements of `size` bytes, zeroing those past
 * `have`. On failure the array is as it was. */
static int resize(void **p, size_t have, size_t want, size_t size)
{
	void *q = realloc(*p, want * size);

	if (!q)
		return -1;
	memset((char *)q + have * size, 0, (want - have) * size);
	*p = q;
	return 0;
}

int nodeset_grow(struct nodeset *ns, uint32_t n)
{
	uint32_t nwords = (n + 63) / 64, nsum = (ns->nwords + 63) / 64;

	if (n < ns->n || n > UINT32_MAX / 2)
		return -1;
	/* Each array that grows is kept even if a later one fails: it is only
	 * larger, and ns->n still says how much of it is in use. */
	if (resize((void **)&ns->free_bits, ns->nwords, nwords, sizeof *ns->free_bits) < 0 ||
	    resize((void **)&ns->summary, nsum, (nwords + 63) / 64, sizeof *ns->summary) < 0 ||
	    resize((void **)&ns->next, ns->n, n, sizeof *ns->next) < 0 ||
	    resize((void **)&ns->owner, ns->n, n, sizeof *ns->owner) < 0 ||
	    resize((void **)&ns->down, ns->n, n, sizeof *ns->down) < 0)
		return -1;
	for (uint32_t i = ns->n; i < n; i++) {
		ns->next[i] = NODESET_NONE;
		ns->owner[i] = NODESET_NONE;
		set_free(ns, i);
	}
	ns->n = n;
	ns->nwords = nwords;
	return 0;
}

void nodeset_destroy(struct nodeset *ns)
{
	free(ns->free_bits);
	free(ns->summary);
	free(ns->next);
	free(ns->owner);
	free(ns->down);
	memset(ns, 0, sizeof *ns);
}

/* Give free node i to owner, appending it to the list *first ... *tail. */
static void take(struct nodeset *ns, uint32_t i, uint32_t owner, uint32_t *first, uint32_t *tail)
{
	clear_free(ns, i);
	ns->owner[i] = owner;
	ns->next[i] = NODESET_NONE;
	if (*tail == NODESET_NONE)
		*first = i;
	else
		ns->next[*tail] = i;
	*tail = i;
}

int nodeset_alloc(struct nodeset *ns, uint32_t count, uint32_t owner, uint32_t *first)
{
	uint32_t taken = 0, tail = NODESET_NONE;
	uint32_t nsum = (ns->nwords + 63) / 64;

	*first = NODESET_NONE;
	if (count > ns->nfree)
		return -1;
	/* Lowest free index first: walk the summary to non-empty words, and
	 * those words bit by bit. Each word visited yields at least one node. */
	for (uint32_t s = 0; s < nsum && taken < count; s++) {
		while (ns->summary[s] && taken < count) {
			uint32_t w = s * 64 + (uint32_t)__builtin_ctzll(ns->summary[s]);

			while (ns->free_bits[w] && taken < count) {
				take(ns, w * 64 + (uint32_t)__builtin_ctzll(ns->free_bits[w]), owner,
				     first, &tail);
				taken++;
			}
		}
	}
	return 0;
}

int nodeset_take(struct nodeset *ns, const uint32_t *nodes, uint32_t count, uint32_t owner,
                 uint32_t *first)
{
	uint32_t tail = NODESET_NONE;

	*first = NODESET_NONE;
	for (uint32_t k = 0; k < count; k++) {
		uint32_t i = nodes[k];

		/* A node listed twice is no longer free the second time. */
		if (i >= ns->n || !nodeset_is_free(ns, i)) {
			nodeset_release(ns, *first);
			*first = NODESET_NONE;
			return -1;
		}
		take(ns, i, owner, first, &tail);
	}
	return 0;
}

uint32_t nodeset_release(struct nodeset *ns, uint32_t first)
{
	uint32_t back = 0;

	for (uint32_t i = first, nx; i != NODESET_NONE; i = nx) {
		nx = ns->next[i];
		ns->next[i] = NODESET_NONE;
		ns->owner[i] = NODESET_NONE;
		if (!ns->down[i]) {
			set_free(ns, i);
			back++;
		}
	}
	return back;
}

uint32_t nodeset_set_down(struct nodeset *ns, uint32_t node)
{
	if (node >= ns->n || ns->down[node])
		return NODESET_NONE;
	ns->down[node] = 1;
	ns->ndown++;
	if (ns->owner[node] == NODESET_NONE)
		clear_free(ns, node);
	return ns->owner[node];
}

uint32_t nodeset_set_up(struct nodeset *ns, uint32_t node)
{
	if (node >= ns->n || !ns->down[node])
		return NODESET_NONE;
	ns->down[node] = 0;
	ns->ndown--;
	if (ns->owner[node] == NODESET_NONE)
		set_free(ns, node);
	return ns->owner[node];
}
