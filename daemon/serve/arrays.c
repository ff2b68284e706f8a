/* Job arrays in memory; see arrays.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "idmap.h"
#include "proto.h"
#include "sys/store.h"
#include "arrays.h"
#include "daemon.h"
#include "jobs.h"

struct darrays {
	struct idmap map;		/* array id -> index in a */
	struct darray **a;
	uint32_t n, cap;
};

static struct darrays *registry(struct daemon *d)
{
	if (!d->arrays && (d->arrays = calloc(1, sizeof *d->arrays)) &&
	    idmap_init(&d->arrays->map, 16) < 0) {
		free(d->arrays);
		d->arrays = NULL;
	}
	return d->arrays;
}

struct darray *arrays_get(struct daemon *d, uint64_t id)
{
	uint32_t k;

	if (!d->arrays || (k = idmap_get(&d->arrays->map, id)) == IDMAP_NONE)
		return NULL;
	return d->arrays->a[k];
}

static void array_free(struct darray *a)
{
	if (!a)
		return;
	free(a->name);
	free(a->spec);
	free(a->index);
	free(a->argv);
	free(a->env);
	free(a->lane_last);
	free(a);
}

static char *copy(const char *s, size_t len)
{
	char *c = malloc(len + 1);

	if (c) {
		memcpy(c, s ? s : "", s ? len : 0);
		c[s ? len : 0] = 0;
	}
	return c;
}

struct darray *arrays_add(struct daemon *d, uint64_t id, uint32_t uid, const char *name,
                          const char *spec, const uint32_t *index, uint32_t count, uint32_t cap,
                          const char *argv, size_t argv_len, const char *env, size_t env_len)
{
	struct darrays *r = registry(d);
	struct darray *a = calloc(1, sizeof *a);

	if (!r || !a)
		goto fail;
	*a = (struct darray){ .id = id, .uid = uid, .count = count, .cap = cap,
	                      .argv_len = argv ? argv_len : 0, .env_len = env ? env_len : 0 };
	a->name = copy(name, name ? strlen(name) : 0);
	a->spec = copy(spec, spec ? strlen(spec) : 0);
	a->index = malloc((count ? count : 1) * sizeof *a->index);
	a->argv = copy(argv, a->argv_len);
	a->env = copy(env, a->env_len);
	if (cap)
		a->lane_last = calloc(cap < count ? cap : count, sizeof *a->lane_last);
	if (!a->name || !a->spec || !a->index || !a->argv || !a->env || (cap && !a->lane_last))
		goto fail;
	memcpy(a->index, index, count * sizeof *index);
	if (r->n == r->cap) {
		uint32_t c = r->cap ? 2 * r->cap : 16;
		struct darray **na = realloc(r->a, c * sizeof *na);

		if (!na)
			goto fail;
		r->a = na;
		r->cap = c;
	}
	if (idmap_put(&r->map, id, r->n) < 0)
		goto fail;
	r->a[r->n++] = a;
	return a;
fail:
	array_free(a);
	return NULL;
}

void arrays_element_live(struct darray *a)
{
	a->live++;
}

static void array_remove(struct daemon *d, struct darray *a)
{
	struct darrays *r = d->arrays;
	uint32_t k = idmap_del(&r->map, a->id);

	if (k == IDMAP_NONE)
		return;
	if (k != r->n - 1) {	/* the last takes the hole */
		r->a[k] = r->a[r->n - 1];
		idmap_del(&r->map, r->a[k]->id);
		idmap_put(&r->map, r->a[k]->id, k);
	}
	r->n--;
	array_free(a);
}

bool arrays_element_ended(struct daemon *d, const struct store_job *r)
{
	struct darray *a = arrays_get(d, r->array_id);

	if (!a)
		return false;
	if ((unsigned)r->state < ST_NSTATES)
		a->ended[r->state]++;
	if (a->live && --a->live == 0) {
		array_remove(d, a);
		return true;
	}
	return false;
}

uint64_t arrays_element_id(const struct darray *a, uint32_t index)
{
	uint32_t lo = 0, hi = a->count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a->index[mid] < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->count && a->index[lo] == index ? a->id + lo : 0;
}

struct find_index {
	uint32_t index;
	uint64_t id;
};

static int visit_index(const struct store_job *r, void *arg)
{
	struct find_index *f = arg;

	if (r->array_index != f->index)
		return 0;
	f->id = r->id;
	return 1;
}

uint64_t arrays_find_element(struct daemon *d, uint64_t id, uint32_t index)
{
	struct darray *a = arrays_get(d, id);
	struct find_index f = { index, 0 };

	if (a)
		return arrays_element_id(a, index);
	store_load_elements(d->store, id, visit_index, &f);
	return f.id;
}

int arrays_each_live(struct daemon *d, const struct darray *a,
                     int (*fn)(uint64_t id, void *arg), void *arg)
{
	uint64_t id = a->id;
	int got = PE_DONE;

	/* (a goes with the last element's end: only its id is read after) */
	for (uint32_t k = 0, n = a->count; k < n && arrays_get(d, id); k++) {
		int e;

		if (!jobs_get(d, id + k))
			continue;
		e = fn(id + k, arg);
		if (e == PE_OK || got == PE_DONE)
			got = e;
	}
	return got;
}

const char *arrays_element_name(const struct store_job *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s[%u]", r->name ? r->name : "", r->array_index);
	return buf;
}

void arrays_foreach(struct daemon *d, int (*visit)(struct darray *a, void *arg), void *arg)
{
	for (uint32_t k = 0; d->arrays && k < d->arrays->n; k++)
		if (visit(d->arrays->a[k], arg))
			return;
}

void arrays_free_all(struct daemon *d)
{
	if (!d->arrays)
		return;
	for (uint32_t k = 0; k < d->arrays->n; k++)
		array_free(d->arrays->a[k]);
	idmap_destroy(&d->arrays->map);
	free(d->arrays->a);
	free(d->arrays);
	d->arrays = NULL;
}
