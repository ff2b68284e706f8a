/* Breakdowns, distributions and confidence of a replay (see breakdown.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "breakdown.h"
#include "civil.h"
#include "metrics.h"

const char *const bd_runtime_labels[BD_RUNTIME_CLASSES] = {
	"<30s", "30s-5m", "5m-1h", "1h-10h", ">=10h",
};
const char *const bd_size_labels[BD_SIZE_CLASSES] = {
	"1", "2-4", "5-16", "17-64", "65-256", "257-1024", ">1024",
};

int bd_runtime_class(bf_time run)
{
	static const bf_time upto[] = { 30 * BF_SEC, 300 * BF_SEC, 3600 * BF_SEC, 36000 * BF_SEC };
	int c = 0;

	while (c < 4 && run >= upto[c])
		c++;
	return c;
}

int bd_size_class(uint32_t size)
{
	int c = 0;

	for (uint64_t top = 1; c < BD_SIZE_CLASSES - 1 && size > top; top *= 4)
		c++;
	return c;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static int64_t month_number(bf_time t, int64_t unix_start)
{
	int64_t y;
	unsigned m;

	civil_month(floor_div(unix_start + t / BF_SEC, 86400), &y, &m);
	return y * 12 + (m - 1);
}

size_t bd_month_of(bf_time submit, int64_t unix_start, bf_time first_submit)
{
	if (unix_start < 0)
		return (size_t)((submit - first_submit) / (30 * 86400 * BF_SEC));
	return (size_t)(month_number(submit, unix_start) - month_number(first_submit, unix_start));
}

void bd_month_label(size_t idx, int64_t unix_start, bf_time first_submit, char *buf, size_t len)
{
	if (unix_start < 0) {
		snprintf(buf, len, "+%zud", idx * 30);
		return;
	}
	int64_t mn = month_number(first_submit, unix_start) + (int64_t)idx;

	snprintf(buf, len, "%04lld-%02d", (long long)(mn / 12), (int)(mn % 12) + 1);
}

void bd_month_bounds(size_t idx, int64_t unix_start, bf_time first_submit, bf_time *from,
                     bf_time *to)
{
	if (unix_start < 0) {
		*from = first_submit + (bf_time)idx * 30 * 86400 * BF_SEC;
		*to = *from + 30 * 86400 * BF_SEC;
		return;
	}
	int64_t mn = month_number(first_submit, unix_start) + (int64_t)idx;
	int64_t y = floor_div(mn, 12);
	unsigned m = (unsigned)(mn - y * 12) + 1;
	int64_t next_y = m == 12 ? y + 1 : y;
	unsigned next_m = m == 12 ? 1 : m + 1;

	*from = (civil_days(y, m, 1) * 86400 - unix_start) * BF_SEC;
	*to = (civil_days(next_y, next_m, 1) * 86400 - unix_start) * BF_SEC;
}

/* ---- groups --------------------------------------------------------------- */

struct scratch {
	double *w, *r, *b;	/* wait, response, bounded slowdown of a group */
};

static void dist_of(double *v, size_t n, struct bd_dist *d)
{
	static const double ps[3] = { 0.5, 0.9, 0.99 };
	double sum = 0, q[3];

	if (n == 0) {
		d->avg = d->median = d->p90 = d->p99 = NAN;
		return;
	}
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	d->avg = sum / (double)n;
	stats_percentiles(v, n, ps, q, 3);
	d->median = q[0];
	d->p90 = q[1];
	d->p99 = q[2];
}

/* The figures of the jobs for which in(job) holds. */
static void group_of(const struct replay_jobs *jobs, double span_node_s, struct scratch *sc,
                     bool (*in)(const struct replay_job *, const void *), const void *arg,
                     struct bd_group *g)
{
	size_t n = 0;
	double node_s = 0;

	for (size_t i = 0; i < jobs->n; i++) {
		const struct replay_job *j = &jobs->j[i];

		if (!in(j, arg))
			continue;
		g->killed += j->killed;
		g->backfilled += j->backfilled;
		node_s += (double)j->size * ((double)j->run / BF_SEC);
		sc->w[n] = (double)(j->start - j->submit) / BF_SEC;
		sc->r[n] = (double)(j->start - j->submit + j->run) / BF_SEC;
		sc->b[n] = metrics_bounded_slowdown(j->start - j->submit, j->run);
		n++;
	}
	g->jobs = n;
	g->load = span_node_s > 0 ? node_s / span_node_s : 0;
	dist_of(sc->w, n, &g->wait);
	dist_of(sc->r, n, &g->response);
	dist_of(sc->b, n, &g->bsld);
}

static bool in_all(const struct replay_job *j, const void *arg)
{
	(void)j, (void)arg;
	return true;
}

static bool in_runtime(const struct replay_job *j, const void *arg)
{
	return bd_runtime_class(j->run) == *(const int *)arg;
}

static bool in_size(const struct replay_job *j, const void *arg)
{
	return bd_size_class(j->size) == *(const int *)arg;
}

/* Each job's month is worked out once (a calendar month costs a date
 * conversion), and a month's group picks its jobs from that. */
struct month_arg {
	size_t idx;
	const struct replay_job *base;
	const uint32_t *month;
};

static bool in_month(const struct replay_job *j, const void *arg)
{
	const struct month_arg *a = arg;

	return a->month[j - a->base] == a->idx;
}

/* Each month's own offered load: the work its jobs brought (their logged
 * node-seconds) over the machine's node-seconds in the month. Not the
 * month's share of the whole replay's work, which shrinks every month as
 * the trace grows longer. The first and last months count only within the
 * span of submissions [first, last]: the log covers no more of them, and
 * so the months' lengths add up to that span, and the whole workload's
 * offered load (offered.h: the same span) is their length-weighted mean. */
static void month_loads(const struct replay_jobs *jobs, uint32_t nodes, int64_t unix_start,
                        bf_time first, bf_time last, const uint32_t *month,
                        struct breakdown *bd)
{
	for (size_t m = 0; m < bd->nmonth; m++)
		bd->month[m].load = 0;	/* group_of gave the share of the span */
	for (size_t i = 0; i < jobs->n; i++)
		bd->month[month[i]].load += (double)jobs->j[i].size *
		                            ((double)jobs->j[i].logged_run / BF_SEC);
	for (size_t m = 0; m < bd->nmonth; m++) {
		bf_time from, to;

		bd_month_bounds(m, unix_start, first, &from, &to);
		from = from > first ? from : first;
		to = to < last ? to : last;
		bd->month[m].load = to > from && nodes > 0 ?
		                    bd->month[m].load / ((double)nodes * ((double)(to - from) / BF_SEC)) :
		                    NAN;
	}
}

/* ---- batch means ------------------------------------------------------------ */

struct ended {
	bf_time end;
	size_t i;
};

static int by_end(const void *a, const void *b)
{
	const struct ended *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->i < y->i ? -1 : 1;
}

static int batch_means(const struct replay_jobs *jobs, struct breakdown *bd, struct scratch *sc)
{
	struct ended *order = malloc((jobs->n ? jobs->n : 1) * sizeof *order);

	if (!order)
		return -1;
	for (size_t i = 0; i < jobs->n; i++)
		order[i] = (struct ended){ jobs->j[i].start + jobs->j[i].run, i };
	/* Completed jobs in the order they completed, as batch means samples a
	 * running system. */
	qsort(order, jobs->n, sizeof *order, by_end);
	for (size_t k = 0; k < jobs->n; k++) {
		const struct replay_job *j = &jobs->j[order[k].i];

		sc->w[k] = (double)(j->start - j->submit) / BF_SEC;
		sc->r[k] = (double)(j->start - j->submit + j->run) / BF_SEC;
		sc->b[k] = metrics_bounded_slowdown(j->start - j->submit, j->run);
	}
	free(order);
	stats_batch_means(sc->w, jobs->n, bd->batch, bd->warmup, &bd->ci_wait);
	stats_batch_means(sc->r, jobs->n, bd->batch, bd->warmup, &bd->ci_response);
	stats_batch_means(sc->b, jobs->n, bd->batch, bd->warmup, &bd->ci_bsld);
	return 0;
}

struct breakdown *bd_compute(const struct replay_jobs *jobs, uint32_t nodes, int64_t unix_start,
                             const struct bd_opts *o)
{
	struct breakdown *bd = calloc(1, sizeof *bd);
	struct scratch sc;
	size_t n = jobs->n ? jobs->n : 1;
	bf_time first = BF_NEVER, last = -BF_NEVER, last_submit = -BF_NEVER;
	double span_node_s;

	if (!bd)
		return NULL;
	sc.w = malloc(n * sizeof *sc.w);
	sc.r = malloc(n * sizeof *sc.r);
	sc.b = malloc(n * sizeof *sc.b);
	if (!sc.w || !sc.r || !sc.b)
		goto fail;
	for (size_t i = 0; i < jobs->n; i++) {
		const struct replay_job *j = &jobs->j[i];

		first = j->submit < first ? j->submit : first;
		last = j->start + j->run > last ? j->start + j->run : last;
		last_submit = j->submit > last_submit ? j->submit : last_submit;
	}
	span_node_s = jobs->n ? (double)nodes * ((double)(last - first) / BF_SEC) : 0;
	snprintf(bd->all.label, sizeof bd->all.label, "all");
	group_of(jobs, span_node_s, &sc, in_all, NULL, &bd->all);
	for (int c = 0; c < BD_RUNTIME_CLASSES; c++) {
		snprintf(bd->runtime[c].label, sizeof bd->runtime[c].label, "%s", bd_runtime_labels[c]);
		group_of(jobs, span_node_s, &sc, in_runtime, &c, &bd->runtime[c]);
	}
	for (int c = 0; c < BD_SIZE_CLASSES; c++) {
		snprintf(bd->size[c].label, sizeof bd->size[c].label, "%s", bd_size_labels[c]);
		group_of(jobs, span_node_s, &sc, in_size, &c, &bd->size[c]);
	}
	bd->calendar = unix_start >= 0;
	if (jobs->n) {
		uint32_t *month = malloc(jobs->n * sizeof *month);
		struct month_arg ma = { .base = jobs->j, .month = month };

		if (!month)
			goto fail;
		for (size_t i = 0; i < jobs->n; i++) {
			month[i] = (uint32_t)bd_month_of(jobs->j[i].submit, unix_start, first);
			bd->nmonth = month[i] + 1 > bd->nmonth ? month[i] + 1 : bd->nmonth;
		}
		bd->month = calloc(bd->nmonth, sizeof *bd->month);
		if (!bd->month) {
			free(month);
			goto fail;
		}
		/* One pass per month: months are few (a trace of years has tens). */
		for (ma.idx = 0; ma.idx < bd->nmonth; ma.idx++) {
			struct bd_group *g = &bd->month[ma.idx];

			bd_month_label(ma.idx, unix_start, first, g->label, sizeof g->label);
			group_of(jobs, span_node_s, &sc, in_month, &ma, g);
		}
		month_loads(jobs, nodes, unix_start, first, last_submit, month, bd);
		free(month);
	}
	bd->batch = o->batch ? o->batch : (uint32_t)(jobs->n / 32 > 10 ? jobs->n / 32 : 10);
	bd->warmup = o->warmup;
	if (batch_means(jobs, bd, &sc) < 0)
		goto fail;
	free(sc.w);
	free(sc.r);
	free(sc.b);
	return bd;
fail:
	free(sc.w);
	free(sc.r);
	free(sc.b);
	bd_free(bd);
	return NULL;
}

void bd_free(struct breakdown *bd)
{
	if (!bd)
		return;
	free(bd->month);
	free(bd);
}

/* ---- over time ---------------------------------------------------------------- */

/* Adds the overlap of [a, b) with each bin, times weight, to acc. */
static void spread(double *acc, size_t bins, bf_time t0, bf_time width, bf_time a, bf_time b,
                   double weight)
{
	if (b <= a)
		return;
	size_t i = (size_t)((a - t0) / width), k = (size_t)((b - 1 - t0) / width);

	for (; i <= k && i < bins; i++) {
		bf_time lo = t0 + (bf_time)i * width, hi = lo + width;
		bf_time x = a > lo ? a : lo, y = b < hi ? b : hi;

		acc[i] += weight * (double)(y - x) / (double)width;
	}
}

int bd_timeline(const struct replay_jobs *jobs, uint32_t nodes, size_t bins, double *util,
                double *queue, bf_time *t0, bf_time *width)
{
	bf_time first = BF_NEVER, last = -BF_NEVER;

	if (jobs->n == 0 || bins == 0 || nodes == 0)
		return -1;
	for (size_t i = 0; i < jobs->n; i++) {
		const struct replay_job *j = &jobs->j[i];

		first = j->submit < first ? j->submit : first;
		last = j->start + j->run > last ? j->start + j->run : last;
	}
	*t0 = first;
	*width = (last - first + (bf_time)bins - 1) / (bf_time)bins;
	if (*width <= 0)
		*width = 1;
	memset(util, 0, bins * sizeof *util);
	memset(queue, 0, bins * sizeof *queue);
	for (size_t i = 0; i < jobs->n; i++) {
		const struct replay_job *j = &jobs->j[i];

		spread(util, bins, first, *width, j->start, j->start + j->run,
		       (double)j->size / nodes);
		spread(queue, bins, first, *width, j->submit, j->start, 1.0);
	}
	return 0;
}
