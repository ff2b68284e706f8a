/* SVG charts: standalone SVG 1.1 documents (about 800x480) that a browser
 * shows as they are, written with libc and libm only.
 *
 * For tests and scripts that read them back, each series is a
 * <g class="series" data-name="NAME"> holding its lines and markers; every
 * line-chart point is a <circle data-x=".." data-y=".."> and every bar a
 * <rect class="bar" data-cat=".." data-y="..">, raw values as %.6g; an
 * error bar is a <path class="errbar" data-lo=".." data-hi="..">. Tick
 * labels are <text class="xtick">, <text class="ytick"> (the right axis:
 * <text class="y2tick">), category labels <text class="cat">; the axis
 * titles <text class="xlabel">, "ylabel", "y2label"; the title
 * <text class="title">.
 *
 * The x axis of a line chart spans the data, a little padded; when it has
 * at most 12 distinct x values, they are its ticks, labelled as %.6g
 * prints them (a sweep's F = 1, 2, 4, 11 are ticked 1, 2, 4, 11). A y axis
 * spans the data and its error bars, padded, with 4 to 8 round ticks
 * inside (from 0 with y_from_zero; a bar chart's grows to round ticks). Caller text is XML-escaped; control characters are
 * dropped and invalid UTF-8 bytes become U+FFFD.
 *
 * Numbers are printed as the C locale has them: a program that sets
 * LC_NUMERIC to another locale must not call these.
 *
 * Both writers return 0, or -1 with nothing written on bad input (below),
 * or -1 after writing if the stream reports an error. */
#ifndef BF_SVG_H
#define BF_SVG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A series of points for a line chart. x and y have n values; NaN y values
 * are gaps (the line breaks there). An infinite y is a gap too: it has no
 * place on the chart. lo and hi (NULL: none) give each point an error bar
 * from lo[i] to hi[i], drawn where both are finite and lo[i] < hi[i]. A
 * series with right set is drawn against a second y axis on the right. */
struct svg_series {
	const char *name;	/* legend text (escaped on output); NULL: "" */
	size_t n;
	const double *x, *y;
	const double *lo, *hi;
	bool right;
};

struct svg_axes {
	const char *title;	/* chart title, may be NULL */
	const char *xlabel;	/* with its unit, e.g. "estimate factor F"; may be NULL */
	const char *ylabel;	/* e.g. "bounded slowdown"; may be NULL */
	bool logx;		/* logarithmic x axis (all x must be > 0) */
	bool y_from_zero;	/* y axis starts at 0 (else at the data's minimum, padded) */
	const char *y2label;	/* the right axis' title, when a series is on it */
	bool y2_from_zero;	/* the right axis starts at 0 */
};

/* A line chart with markers, one colour per series, a legend. Bad input:
 * out or ax NULL, no series, every series with n == 0, a series with
 * n > 0 and x or y NULL, a non-finite x, logx with an x <= 0. Values
 * beyond +-1e300 are pinned to the edge of the plot. */
int svg_line_chart(FILE *out, const struct svg_axes *ax, const struct svg_series *s, size_t ns);

/* A grouped bar chart: ncat categories along x (cats[i] labels, e.g. "1996-03",
 * NULL: ""), one bar per series in each category (series[k].y has ncat
 * values; NaN or infinite = no bar). Bars rise from 0, or from the bottom
 * of the axis when 0 is below it. Bad input: out, ax or cats NULL,
 * ncat == 0, ns == 0, series or a series' y NULL. */
struct svg_bar_series {
	const char *name;
	const double *y;
	const double *lo, *hi;	/* error bars as in svg_series; NULL: none */
};
int svg_bar_chart(FILE *out, const struct svg_axes *ax, const char *const *cats, size_t ncat,
		  const struct svg_bar_series *series, size_t ns);

#endif
