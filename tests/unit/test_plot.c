/* What every plot shares (daemon/whatif/plot.c): the .svg name check, the
 * trace's base name, the metrics' full names with bsld's tau, and the 95%
 * interval of the error bars. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "../tap.h"
#include "../../daemon/whatif/plot.h"

static void test_path(void)
{
	FILE *saved = stderr;
	int rc[5];

	ok_eq(plot_path_check("--plot", "a.svg"), 0, "a.svg is a plot's name");
	ok_eq(plot_path_check("--plot", "dir.png/A.SVG"), 0, "A.SVG: any case");
	/* The refusals say so on stderr: kept out of the TAP stream. */
	stderr = fopen("/dev/null", "w");
	rc[0] = plot_path_check("--plot", "x.png");
	rc[1] = plot_path_check("--plot", "x.svg.png");
	rc[2] = plot_path_check("--plot", ".svg");
	rc[3] = plot_path_check("--plot", "svg");
	rc[4] = plot_path_check("--plot", "x.svgz");
	if (stderr)
		fclose(stderr);
	stderr = saved;
	ok(rc[0] == -1 && rc[1] == -1 && rc[2] == -1 && rc[3] == -1 && rc[4] == -1,
	   "x.png, x.svg.png, .svg, svg, x.svgz: refused");
}

static void test_names(void)
{
	char b[96];

	ok(strcmp(plot_basename("traces/KTH.swf.gz"), "KTH.swf.gz") == 0 &&
	   strcmp(plot_basename("KTH.swf"), "KTH.swf") == 0 && strcmp(plot_basename("-"), "-") == 0,
	   "the base name of a trace");
	ok(strcmp(plot_metric_name("bsld", b, sizeof b), "average bounded slowdown, tau 10 s") == 0,
	   "bsld in full, with its tau (%s)", b);
	ok(strcmp(plot_metric_name("wait-p90", b, sizeof b), "90th percentile of wait time") == 0 &&
	   strcmp(plot_metric_unit("wait-p90"), " (s)") == 0, "wait-p90 in full, in seconds");
	ok(strcmp(plot_metric_unit("utilization"), " (%)") == 0 &&
	   strcmp(plot_metric_unit("bsld-p90"), "") == 0, "units: utilization in %%, bsld none");
}

static void test_ci(void)
{
	static const double v[] = { 1, 2, 3, 4 }, same[] = { 5, 5, 5 };
	double m, lo, hi;

	plot_ci95(v, 4, &m, &lo, &hi);
	/* sd = 1.29099, t(3) = 3.18245: half width 2.05431. */
	ok(fabs(m - 2.5) < 1e-12 && fabs(hi - m - 2.05431) < 1e-4 && fabs(m - lo - 2.05431) < 1e-4,
	   "the 95%% interval of 1, 2, 3, 4: 2.5 +- 2.054 (%g, %g)", lo, hi);
	plot_ci95(same, 3, &m, &lo, &hi);
	ok(m == 5 && isnan(lo) && isnan(hi), "no spread: no interval");
	plot_ci95(v, 1, &m, &lo, &hi);
	ok(m == 1 && isnan(lo) && isnan(hi), "one value: no interval");
}

int main(void)
{
	test_path();
	test_names();
	test_ci();
	return tap_done();
}
