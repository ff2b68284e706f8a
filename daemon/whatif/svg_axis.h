/* The axes of the SVG charts (svg.c): their range, their ticks and the
 * labels of the ticks. Internal to svg.c.
 *
 * An axis maps axis units (log10 of the value on a log axis) to pixels.
 * Its range is the data's, padded a little, never stretched to round
 * bounds; a handful of distinct data values (a sweep's) are the ticks
 * themselves, else ticks go at round values inside the range. */
#ifndef BF_SVG_AXIS_H
#define BF_SVG_AXIS_H
#include <stdbool.h>
#include <stddef.h>

enum { SVG_MAXT = 24 };	/* ticks an axis holds */
/* At most this many distinct values are ticked one by one. */
enum { SVG_VALUE_TICKS = 12 };

struct svg_tick {
	double pos;		/* in axis units: log10(x) on a log axis */
	double val;		/* the value shown */
	bool value;		/* a data value: labelled as %.6g has it */
	bool label;		/* labelled (there is room for it) */
};

struct svg_axis {
	double lo, hi;		/* axis units */
	double p0, p1;		/* their pixels */
	double step, maxabs;	/* the shared label format of round ticks */
	bool log;
	size_t nt;
	struct svg_tick t[SVG_MAXT];
};

/* The range for data in [mn, mx] (mn > mx: no data), widened so that a
 * flat or vanishing range still gets a scale, padded by 5% when pad, and
 * never padded across zero when the data does not cross it; from_zero
 * takes 0 in. */
void svg_span(double mn, double mx, bool pad, bool from_zero, double *lo, double *hi);

/* Round ticks (1, 2, 2.5 or 5 x 10^k, 4 to 8 of them) over [lo, hi]: when
 * stretch, the axis grows to the outer ticks (bars from 0), else it stays
 * [lo, hi] with the ticks inside. */
void svg_lin_axis(struct svg_axis *a, double lo, double hi, bool stretch);

/* An x axis for the data values xs[0..nx) (all > 0 when logx): trimmed to
 * them; with at most SVG_VALUE_TICKS distinct values each one is a tick
 * and nothing else is, else round ticks (whole decades on a log axis).
 * Labels that would overlap a labelled neighbour are left out. */
void svg_x_axis(struct svg_axis *a, const double *xs, size_t nx, bool logx);

/* Pixel of an axis position, pinned to the plot; of a data value. */
double svg_px(const struct svg_axis *a, double pos);
double svg_data_px(const struct svg_axis *a, double v);

/* The label of tick t. */
void svg_tick_label(char *b, size_t sz, const struct svg_axis *a, const struct svg_tick *t);

#endif
