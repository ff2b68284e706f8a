/* What every what-if plot shares (backfilld-whatif(7), PLOTS): the file it
 * goes to, the words of its title, and the interval of its error bars. */
#ifndef BF_PLOT_H
#define BF_PLOT_H
#include <stddef.h>

/* 0 when path names an SVG file (it ends in .svg, in any case); else -1
 * after a one-line message naming the option: the plots are SVG only, and
 * a plot.png would be an SVG under a PNG's name. */
int plot_path_check(const char *opt, const char *path);

/* The last component of a path: "traces/x.swf" -> "x.swf". */
const char *plot_basename(const char *path);

/* A metric of --plot-metric by its full name, for titles and axes:
 * "average bounded slowdown, tau 10 s", "average wait time"; and its unit
 * as an axis gives it: " (s)", " (%)" or "". */
const char *plot_metric_name(const char *metric, char *buf, size_t len);
const char *plot_metric_unit(const char *metric);

/* The mean of v[0..n) and its 95% confidence interval, Student t with
 * n - 1 degrees of freedom: mean +- t sd / sqrt(n). lo and hi are NaN
 * when there is no spread (n < 2, or every value the same). */
void plot_ci95(const double *v, size_t n, double *mean, double *lo, double *hi);

#endif
