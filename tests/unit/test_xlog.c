/* xlog against a brute-force scan of everything logged. */
#include <stdlib.h>
#include "tap.h"
#include "xlog.h"

static void against_model(bool want_max)
{
	enum { N = 3000 };
	struct xlog x;
	int64_t vals[N];
	uint64_t forgotten = 0;
	unsigned seed = 7;
	int bad = 0, asked = 0;

	xlog_init(&x, want_max);
	for (uint64_t e = 1; e <= N; e++) {
		seed = seed * 1103515245 + 12345;
		vals[e - 1] = (int64_t)((seed >> 8) % 1000) - 500;
		xlog_add(&x, e, vals[e - 1]);
		if (e % 97 == 0) {
			forgotten = e - 50;	/* as compression does: the oldest settled */
			xlog_forget(&x, forgotten);
		}
		for (uint64_t since = forgotten; since <= e; since += 1 + (seed >> 20) % 7) {
			int64_t want = -9999;

			for (uint64_t k = since + 1; k <= e; k++)
				if (want == -9999 || (want_max ? vals[k - 1] > want : vals[k - 1] < want))
					want = vals[k - 1];
			bad += xlog_after(&x, since, -9999, 12345) != want;
			asked++;
		}
	}
	ok(asked > 10000, "%s: %d questions asked", want_max ? "max" : "min", asked);
	ok_eq(bad, 0, "%s: every answer matches a scan of the log", want_max ? "max" : "min");
	ok(x.len - x.head < 200, "%s: only entries that can still answer are kept (%u)",
	   want_max ? "max" : "min", x.len - x.head);
	xlog_destroy(&x);
}

int main(void)
{
	struct xlog x;

	xlog_init(&x, true);
	ok_eq(xlog_after(&x, 0, -1, -2), -1, "empty log: none");
	xlog_add(&x, 1, 10);
	xlog_add(&x, 2, 5);
	ok_eq(xlog_after(&x, 0, -1, -2), 10, "max after 0");
	ok_eq(xlog_after(&x, 1, -1, -2), 5, "max after 1");
	ok_eq(xlog_after(&x, 2, -1, -2), -1, "nothing after the last epoch");
	x.lost = 2;	/* as if the entry at epoch 2 could not be stored */
	ok_eq(xlog_after(&x, 1, -1, -2), -2, "a lost entry makes earlier questions unknown");
	ok_eq(xlog_after(&x, 2, -1, -2), -1, "but not later ones");
	xlog_destroy(&x);
	against_model(true);
	against_model(false);
	return tap_done();
}
