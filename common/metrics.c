/* Scheduling metrics, accumulated one finished job at a time.
 *
 * Pure code: no I/O, no clock. Inputs are bf_time microseconds; everything
 * accumulated and reported is in seconds, as double.
 *
 * Why double is good enough: a per-job figure (a wait, a response, a
 * runtime) is at most about 1e9 s (the core refuses durations beyond 100
 * years, ~3.2e9 s), and a trace has at most about 1e6 jobs. Converting one
 * microsecond count to double is exact (|t| < 2^53 us, ~285 years) and the
 * division to seconds rounds once. Each addition to a running sum rounds
 * with a relative error of at most 2^-53 (~1.1e-16), so a sum of n terms is
 * off by at most ~n * 1.1e-16 of its size: ~1e-10 relative for 1e6 jobs,
 * far below the precision any of these metrics is read at. Node-seconds
 * (nodes * runtime, up to ~1e15 per job) behave the same way. */
#include "metrics.h"

/* Microseconds to seconds: one rounding. */
static double to_seconds(bf_time t)
{
	return (double)t / (double)BF_SEC;
}

void metrics_init(struct metrics *m)
{
	*m = (struct metrics){ 0 };
	m->first_submit = BF_NEVER;
	m->last_end = -BF_NEVER;
}

/* max((w + r) / max(r, 10 s), 1). The ratio has no unit: dividing the exact
 * microsecond counts gives the same value as dividing seconds, with one
 * rounding instead of three. Computed in double so a sub-second job or a
 * huge wait neither truncates nor overflows. */
double metrics_bounded_slowdown(bf_time wait, bf_time run)
{
	bf_time denom = run > METRICS_BSLD_THRESHOLD ? run : METRICS_BSLD_THRESHOLD;
	double sld = ((double)wait + (double)run) / (double)denom;

	return sld > 1.0 ? sld : 1.0;
}

void metrics_add(struct metrics *m, bf_time submit, bf_time start, bf_time end,
                 uint32_t nodes, bool killed, bool backfilled)
{
	bf_time wait = start - submit;
	bf_time run = end - start;
	double w = to_seconds(wait);
	double r = to_seconds(run);

	m->jobs++;
	if (killed)
		m->killed++;
	if (backfilled)
		m->backfilled++;
	m->sum_wait += w;
	if (w > m->max_wait)
		m->max_wait = w;
	/* Response from the exact integer sum: one rounding, not two. */
	m->sum_response += to_seconds(wait + run);
	m->sum_bsld += metrics_bounded_slowdown(wait, run);
	m->node_seconds += (double)nodes * r;
	if (submit < m->first_submit)
		m->first_submit = submit;
	if (end > m->last_end)
		m->last_end = end;
}

void metrics_summarize(const struct metrics *m, uint32_t nodes, struct metrics_summary *out)
{
	*out = (struct metrics_summary){ 0 };
	out->jobs = m->jobs;
	out->killed = m->killed;
	out->backfilled = m->backfilled;
	if (m->jobs == 0)
		return;

	double n = (double)m->jobs;
	out->makespan = to_seconds(m->last_end - m->first_submit);
	/* An empty span (every job submitted, started and ended at one instant)
	 * or a machine of no nodes has no meaningful utilization: report 0. */
	if (out->makespan > 0.0 && nodes > 0)
		out->utilization = m->node_seconds / ((double)nodes * out->makespan);
	out->avg_wait = m->sum_wait / n;
	out->max_wait = m->max_wait;
	out->avg_response = m->sum_response / n;
	out->avg_bsld = m->sum_bsld / n;
}
