/* Offered load (see offered.h). */
#include <math.h>
#include "offered.h"

double offered_load(double node_s, uint32_t nodes, bf_time span)
{
	if (span <= 0 || nodes == 0)
		return NAN;
	return node_s / ((double)nodes * ((double)span / BF_SEC));
}

int offered_factor(double node_s, uint32_t nodes, bf_time span, double target, double *factor,
                   double *reached)
{
	double span_s = (double)(span / BF_SEC), want_s, f;

	if (!(span_s >= 1) || !(node_s > 0) || nodes == 0 || !(target > 0))
		return -1;
	/* The whole span that comes nearest the target (at least a second). */
	want_s = nearbyint(node_s / ((double)nodes * target));
	if (want_s < 1)
		want_s = 1;
	f = span_s / want_s;
	/* The scaling rounds span_s / f as shape_scale does (llround); make
	 * sure that gives want_s back (a quotient a rounding away from a half
	 * could land a second off). */
	for (int i = 0; i < 4 && (double)llround(span_s / f) != want_s; i++)
		f = nextafter(f, (double)llround(span_s / f) > want_s ? INFINITY : 0);
	*factor = f;
	*reached = node_s / ((double)nodes * (double)llround(span_s / f));
	return 0;
}
