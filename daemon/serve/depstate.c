/* A waiting job's condition in memory (see depstate.h). */
#include <stdlib.h>
#include <string.h>
#include "depexpr.h"
#include "depstate.h"

void depstate_free(struct djob_dep *dd)
{
	if (!dd)
		return;
	depexpr_free(dd->expr);
	free(dd->first);
	free(dd->ids);
	free(dd->fact);
	free(dd->known);
	free(dd);
}

/* "12,13;;15": each atom's ids, atoms apart by ';'. */
static int parse_ids(struct djob_dep *dd, const char *s)
{
	uint32_t a = 0, cap = 0;

	dd->first[0] = 0;
	for (const char *p = s; *p; ) {
		char *end;
		uint64_t id;

		if (*p == ';') {
			if (++a >= dd->natoms)
				return -1;
			dd->first[a] = dd->nids;
			p++;
			continue;
		}
		if (*p == ',')
			p++;
		id = strtoull(p, &end, 10);
		if (end == p || id == 0 || dd->nids >= DEPEND_MAX_JOBS)
			return -1;
		if (dd->nids == cap) {
			uint64_t *ids = realloc(dd->ids, (cap = cap ? 2 * cap : 8) * sizeof *ids);

			if (!ids)
				return -1;
			dd->ids = ids;
		}
		dd->ids[dd->nids++] = id;
		p = end;
	}
	if (a + 1 != dd->natoms)
		return -1;
	dd->first[dd->natoms] = dd->nids;
	return 0;
}

/* A kept condition back in memory (a restart, a release, a submission). */
struct djob_dep *depstate_load(const char *text, const char *ids)
{
	struct djob_dep *dd = calloc(1, sizeof *dd);

	if (!dd || !text || !ids ||
	    depexpr_parse(text, strlen(text), &dd->expr, NULL, 0, NULL) < 0)
		goto fail;
	dd->natoms = (uint32_t)depexpr_natoms(dd->expr);
	if (!(dd->first = calloc(dd->natoms + 1, sizeof *dd->first)) || parse_ids(dd, ids) < 0 ||
	    !(dd->fact = calloc(dd->nids + 1, sizeof *dd->fact)) ||
	    !(dd->known = calloc(dd->nids + 1, sizeof *dd->known)))
		goto fail;
	return dd;
fail:
	depstate_free(dd);
	return NULL;
}

