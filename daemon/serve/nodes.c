/* The partition's nodes: their names, the lookup by name, the partition
 * the database remembers, and growing it (a reload, or a start with more
 * nodes). A node's index is its place in node_names, which only grows at
 * the end: the core's indices stay valid while the daemon runs, and after
 * a restart jobs are matched to nodes by name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nodelist.h"
#include "sched.h"
#include "sys/log.h"
#include "sys/store.h"
#include "daemon.h"
#include "nodes.h"

/* "N" names node001..nodeN, numbered with at least 3 digits (node999,
 * node1000): the names of N are the first names of any larger count, so
 * a partition given as a count grows by raising it. (A database made by
 * an older backfilld, which numbered 1000 or more nodes with as many
 * digits as N has, keeps its width: d->node_digits.) Anything else is a
 * node list. The names are owned one by one. */
static int parse_spec(const struct daemon *d, const char *spec, struct nodelist *out, char *err,
                      size_t errlen)
{
	struct nodelist nl = { 0 };
	char *end;
	unsigned long n;

	if (spec[0] >= '0' && spec[0] <= '9' && (n = strtoul(spec, &end, 10), *end == 0)) {
		if (n == 0 || n > NODELIST_MAX) {
			snprintf(err, errlen, "nodes %s: from 1 to %u nodes", spec, NODELIST_MAX);
			return -1;
		}
		if (!(nl.names = calloc(n, sizeof *nl.names)))
			goto nomem;
		nl.count = (uint32_t)n;
		for (unsigned long k = 0; k < n; k++)
			if (asprintf(&nl.names[k], "node%0*lu", d->node_digits > 3 ?
			             (int)d->node_digits : 3, k + 1) < 0) {
				nl.names[k] = NULL;
				goto nomem;
			}
	} else if (nodelist_parse(spec, &nl, err, errlen) < 0) {
		char msg[300];

		snprintf(msg, sizeof msg, "%s", err);
		snprintf(err, errlen, "nodes %s: %s", spec, msg);
		return -1;
	} else {
		/* nodelist's names share one allocation: copy them to own each. */
		uint32_t count = nl.count;
		char **own = calloc(count, sizeof *own);

		for (uint32_t k = 0; own && k < count; k++)
			if (!(own[k] = strdup(nl.names[k]))) {
				while (k--)
					free(own[k]);
				free(own);
				own = NULL;
			}
		nodelist_free(&nl);	/* zeroes nl */
		if (!own)
			goto nomem;
		nl.names = own;
		nl.count = count;
	}
	*out = nl;
	return 0;
nomem:
	for (uint32_t k = 0; nl.names && k < nl.count; k++)
		free(nl.names[k]);
	free(nl.names);
	snprintf(err, errlen, "out of memory");
	return -1;
}

static void free_names(char **names, uint32_t n)
{
	for (uint32_t k = 0; names && k < n; k++)
		free(names[k]);
	free(names);
}

/* The sort behind nodes_index (qsort has no context argument; the
 * names are passed through this pointer during the sort only). */
static char **sort_names;

static int by_name(const void *a, const void *b)
{
	return strcmp(sort_names[*(const uint32_t *)a], sort_names[*(const uint32_t *)b]);
}

int64_t nodes_index(const struct daemon *d, const char *name)
{
	uint32_t lo = 0, hi = d->nnodes;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(d->node_names[d->node_sorted[mid]], name);

		if (c == 0)
			return d->node_sorted[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The compact form of names[0..n), malloc'ed; NULL if memory ran out. */
static char *describe(char *const *names, uint32_t n)
{
	int len = nodelist_format((const char *const *)names, n, NULL, 0);
	char *desc;

	if (len < 0 || !(desc = malloc((size_t)len + 1)))
		return NULL;
	nodelist_format((const char *const *)names, n, desc, (size_t)len + 1);
	return desc;
}

char *nodes_in(const struct daemon *d, uint8_t state)
{
	char **names = malloc((d->nnodes ? d->nnodes : 1) * sizeof *names);
	uint32_t n = 0;
	char *out;

	if (!names)
		return NULL;
	for (uint32_t k = 0; k < d->nnodes; k++)
		if (d->nadmin && d->nadmin[k].state == state)
			names[n++] = d->node_names[k];
	out = describe(names, n);
	free(names);
	return out;
}

/* A partition about to replace the daemon's: its names, their sorted
 * index and its description. Made first, so that taking it cannot fail. */
struct next_partition {
	char **names;
	uint32_t n, *sorted;
	char *desc;
	struct node_admin *admin;
};

/* -1 if memory ran out (names untouched: still the caller's). */
static int prepare(struct next_partition *p, char **names, uint32_t n, char *err, size_t errlen)
{
	p->names = names;
	p->n = n;
	p->sorted = malloc(n * sizeof *p->sorted);
	p->desc = describe(names, n);
	p->admin = calloc(n, sizeof *p->admin);
	if (!p->sorted || !p->desc || !p->admin) {
		free(p->sorted);
		free(p->desc);
		free(p->admin);
		p->sorted = NULL;
		p->desc = NULL;
		p->admin = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t k = 0; k < n; k++)
		p->sorted[k] = k;
	sort_names = names;
	qsort(p->sorted, n, sizeof *p->sorted, by_name);
	sort_names = NULL;
	return 0;
}

/* The names' strings move with the array (the old array is only the
 * array: a grown partition's names array holds the same strings). */
static void install(struct daemon *d, struct next_partition *p)
{
	if (d->nadmin)
		memcpy(p->admin, d->nadmin, d->nnodes * sizeof *p->admin);	/* it only grows */
	free(d->node_names);
	free(d->node_sorted);
	free(d->partition);
	free(d->nadmin);
	d->node_names = p->names;
	d->node_sorted = p->sorted;
	d->partition = p->desc;
	d->nadmin = p->admin;
	d->nnodes = p->n;
}

int nodes_init(struct daemon *d, const char *spec, char *err, size_t errlen)
{
	struct nodelist nl;

	struct next_partition p;

	if (parse_spec(d, spec, &nl, err, errlen) < 0)
		return -1;
	if (prepare(&p, nl.names, nl.count, err, errlen) < 0) {
		free_names(nl.names, nl.count);
		return -1;
	}
	install(d, &p);
	return 0;
}

/* The names of `spec` that the partition lacks, in spec's order, into
 * *extra (owned). -1 (err says which) if the partition has a node that
 * spec does not: nodes are added while the daemon runs, never removed. */
static int added_names(const struct daemon *d, const char *what, struct nodelist *nl,
                       char ***extra, uint32_t *nextra, char *err, size_t errlen)
{
	uint32_t kept = 0, n = 0;
	char **v = calloc(nl->count ? nl->count : 1, sizeof *v);

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t k = 0; k < nl->count; k++) {
		if (nodes_index(d, nl->names[k]) >= 0) {
			kept++;
			free(nl->names[k]);
		} else {
			v[n++] = nl->names[k];
		}
		nl->names[k] = NULL;
	}
	if (kept < d->nnodes) {
		free_names(v, n);
		snprintf(err, errlen, "%s has %u of the partition's %u nodes: a partition grows, "
		         "it never loses nodes (drain a node instead)", what, kept, d->nnodes);
		return -1;
	}
	*extra = v;
	*nextra = n;
	return 0;
}

/* The digits of an older backfilld's count naming (node0001 to node1000:
 * 4), if every name is "node" and that many digits, more than 3; else 0. */
static unsigned legacy_digits(const struct nodelist *nl)
{
	size_t w = 0;

	for (uint32_t k = 0; k < nl->count; k++) {
		const char *s = nl->names[k];
		size_t digits = strlen(s) - 4;

		if (strncmp(s, "node", 4) != 0 || strlen(s) <= 4 ||
		    strspn(s + 4, "0123456789") != digits || (w && digits != w))
			return 0;
		w = digits;
	}
	return w > 3 && w < 10 ? (unsigned)w : 0;
}

/* The stored partition against the configured one. The same: fine. The
 * configured one has every stored node and more: it grew, and the store
 * now says so. Anything else is another partition's database. */
int nodes_check_stored(struct daemon *d, char *err, size_t errlen)
{
	struct nodelist stored_nl = { 0 };
	char stored[65536];
	uint32_t missing = 0;
	const char *first_missing = NULL;

	switch (store_meta_get(d->store, "partition", stored, sizeof stored)) {
	case 1:
		break;
	case 0:
		goto record;
	default:
		snprintf(err, errlen, "%s", store_error(d->store));
		return -1;
	}
	if (strcmp(stored, d->partition) == 0)
		return 0;
	if (nodelist_parse(stored, &stored_nl, err, errlen) < 0) {
		char msg[300];

		snprintf(msg, sizeof msg, "%s", err);
		snprintf(err, errlen, "the database %s names its partition %s, which does not read: "
		         "%s", d->o.db, stored, msg);
		return -1;
	}
	for (uint32_t k = 0; k < stored_nl.count; k++)
		if (nodes_index(d, stored_nl.names[k]) < 0 && missing++ == 0)
			first_missing = stored_nl.names[k];
	/* A count, and a database an older backfilld named with more digits:
	 * the same count names the same nodes as then. */
	if (missing && !d->node_digits && d->o.nodes &&
	    strspn(d->o.nodes, "0123456789") == strlen(d->o.nodes) &&
	    (d->node_digits = legacy_digits(&stored_nl)) != 0) {
		nodelist_free(&stored_nl);
		log_info("the database numbers its nodes with %u digits, as an older backfilld did: "
		         "kept", d->node_digits);
		if (nodes_init(d, d->o.nodes, err, errlen) < 0)
			return -1;
		return nodes_check_stored(d, err, errlen);
	}
	if (missing) {
		snprintf(err, errlen, "the database %s belongs to the partition %s; %u of its nodes "
		         "(%s%s) are not in %s: give them all (a partition may grow), or another "
		         "database", d->o.db, stored, missing, first_missing, missing > 1 ? ", ..." : "",
		         d->partition);
		nodelist_free(&stored_nl);
		return -1;
	}
	if (stored_nl.count == d->nnodes)
		log_info("the partition's nodes are listed in another order: %s (was %s)",
		         d->partition, stored);
	else
		log_info("the partition grew from %s (%u nodes) to %s (%u nodes)", stored,
		         stored_nl.count, d->partition, d->nnodes);
	nodelist_free(&stored_nl);
record:
	if (store_begin(d->store) == 0 && store_meta_set(d->store, "partition", d->partition) == 0 &&
	    store_commit(d->store) == 0)
		return 0;
	snprintf(err, errlen, "%s", store_error(d->store));
	return -1;
}

int nodes_grow(struct daemon *d, const char *spec, bf_time now, char *err, size_t errlen)
{
	struct nodelist nl;
	struct next_partition p = { 0 };
	char **extra = NULL, **all;
	uint32_t nextra = 0, old = d->nnodes;
	int rc = SCHED_E_NOMEM;

	if (parse_spec(d, spec, &nl, err, errlen) < 0)
		return -1;
	rc = added_names(d, spec, &nl, &extra, &nextra, err, errlen);
	free(nl.names);		/* every name moved to extra or was freed */
	if (rc < 0)
		return -1;
	if (nextra == 0) {
		free(extra);
		return 0;
	}
	if (!(all = malloc((old + nextra) * sizeof *all))) {
		free_names(extra, nextra);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(all, d->node_names, old * sizeof *all);
	memcpy(all + old, extra, nextra * sizeof *all);
	free(extra);
	if (prepare(&p, all, old + nextra, err, errlen) < 0 ||
	    (rc = sched_add_nodes(d->sched, now, nextra)) < 0) {
		if (p.desc) {
			free(p.sorted);
			free(p.desc);
			free(p.admin);
			snprintf(err, errlen, "adding %u nodes: %s", nextra, sched_strerror(rc));
		}
		for (uint32_t k = old; k < old + nextra; k++)
			free(all[k]);
		free(all);
		return -1;
	}
	install(d, &p);
	if (store_begin(d->store) < 0 || store_meta_set(d->store, "partition", d->partition) < 0) {
		snprintf(err, errlen, "%s", store_error(d->store));
		return -1;
	}
	return (int)nextra;
}
