/* The id map against a plain array, with deletions (backward shift) and
 * growth, over ids that collide in the low bits. */
#include <stdlib.h>
#include "idmap.h"
#include "tap.h"

int main(void)
{
	enum { IDS = 20000 };
	struct idmap m;
	uint32_t *model = malloc(IDS * sizeof *model);
	unsigned seed = 99;
	int bad = 0, ops = 0;

	ok_eq(idmap_init(&m, 4), 0, "init small, to force growth");
	for (int i = 0; i < IDS; i++)
		model[i] = IDMAP_NONE;
	for (int step = 0; step < 200000; step++) {
		uint64_t k;
		uint32_t i;

		seed = seed * 1103515245 + 12345;
		i = (seed >> 8) % IDS;
		k = (uint64_t)i << 32;	/* the low 32 bits all equal */
		switch ((seed >> 4) % 3) {
		case 0:
			bad += idmap_put(&m, k, (uint32_t)step) != (model[i] == IDMAP_NONE ? 0 : 1);
			if (model[i] == IDMAP_NONE)
				model[i] = (uint32_t)step;
			break;
		case 1:
			bad += idmap_del(&m, k) != model[i];
			model[i] = IDMAP_NONE;
			break;
		default:
			bad += idmap_get(&m, k) != model[i];
		}
		ops++;
	}
	for (uint32_t i = 0; i < IDS; i++)
		bad += idmap_get(&m, (uint64_t)i << 32) != model[i];
	ok(ops == 200000, "200000 random puts, deletes and gets");
	ok_eq(bad, 0, "every answer matches the model, and so does the final content");
	ok_eq(idmap_put(&m, UINT64_MAX, 1), 0, "the largest id works");
	ok_eq(idmap_get(&m, UINT64_MAX), 1, "and is found");
	idmap_destroy(&m);
	free(model);
	return tap_done();
}
