/* What every what-if plot shares (plot.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "metrics.h"
#include "plot.h"
#include "stats.h"

int plot_path_check(const char *opt, const char *path)
{
	size_t n = strlen(path);

	if (n > 4 && strcasecmp(path + n - 4, ".svg") == 0)
		return 0;
	fprintf(stderr, "backfilld: %s %s: the plot is SVG: name it FILE.svg (rsvg-convert "
	        "-o x.png x.svg makes a PNG of it)\n", opt, path);
	return -1;
}

const char *plot_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

const char *plot_metric_name(const char *metric, char *buf, size_t len)
{
	int tau = (int)(METRICS_BSLD_THRESHOLD / BF_SEC);

	if (strcmp(metric, "bsld") == 0)
		snprintf(buf, len, "average bounded slowdown, tau %d s", tau);
	else if (strcmp(metric, "bsld-p90") == 0)
		snprintf(buf, len, "90th percentile of bounded slowdown, tau %d s", tau);
	else if (strcmp(metric, "wait") == 0)
		snprintf(buf, len, "average wait time");
	else if (strcmp(metric, "wait-p90") == 0)
		snprintf(buf, len, "90th percentile of wait time");
	else if (strcmp(metric, "response") == 0)
		snprintf(buf, len, "average response time");
	else if (strcmp(metric, "utilization") == 0)
		snprintf(buf, len, "utilization");
	else
		snprintf(buf, len, "%s", metric);
	return buf;
}

const char *plot_metric_unit(const char *metric)
{
	if (strncmp(metric, "bsld", 4) == 0)
		return "";
	return strcmp(metric, "utilization") == 0 ? " (%)" : " (s)";
}

void plot_ci95(const double *v, size_t n, double *mean, double *lo, double *hi)
{
	double sd, half;

	stats_mean_sd(v, n, mean, &sd);
	*lo = *hi = NAN;
	if (n < 2 || !isfinite(sd) || !(sd > 0))
		return;
	half = stats_t975(n - 1 > 1000000 ? 1000000 : (unsigned)(n - 1)) * sd / sqrt((double)n);
	*lo = *mean - half;
	*hi = *mean + half;
}
