/* The offered load of a workload, and the load factor that makes it a
 * target (--utilization).
 *
 * "Load 0.85" in the literature (Feitelson's workload studies, the
 * Parallel Workloads Archive, Lublin and Feitelson's model) is the offered
 * load of the trace as scaled: the work its jobs ask for over what the
 * machine can give while they arrive,
 *
 *     sum(size * runtime) / (nodes * (last submit - first submit)),
 *
 * a property of the workload alone, whatever a scheduler then achieves
 * (the achieved utilization stays below it when the machine saturates).
 * Runtimes are the logged ones (SWF field 4): a job cut at its estimate
 * still offered its work, and so every estimate model (and both sides of
 * a comparison) sees the same scaled trace.
 *
 * Scaling divides every gap from the first submit by a factor f, rounded
 * to whole seconds (shaping.h), so the span becomes round(span / f): the
 * offered load can only take the values W / (N * S) for whole seconds S.
 * The factor here is the one that lands on the whole S nearest the target,
 * so the load reached is the target to within half a second of span.
 *
 * Pure: no I/O, no clock, no allocation. */
#ifndef BF_OFFERED_H
#define BF_OFFERED_H
#include <stdint.h>
#include "bf_time.h"

/* node_s / (nodes * span): NaN when span <= 0 or nodes == 0. */
double offered_load(double node_s, uint32_t nodes, bf_time span);

/* The factor f that scales a span (whole seconds, > 0) of node_s
 * node-seconds on `nodes` nodes to the offered load `target`, and the load
 * it reaches (*reached). Returns 0, or -1 when no factor can (span or work
 * 0, target <= 0). */
int offered_factor(double node_s, uint32_t nodes, bf_time span, double target, double *factor,
                   double *reached);

#endif
