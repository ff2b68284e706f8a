/* A sweep's grid of settings (see grid.h): the cells, numbered, and the
 * figures of one cell's replay. */
#include <math.h>
#include <string.h>
#include "grid.h"

size_t grid_cells(const struct grid *g)
{
	return g->npolicy * g->nest * g->nload * g->nnodes * g->nseed;
}

int grid_dims(const struct grid *g)
{
	return (g->npolicy > 1) + (g->nest > 1) + (g->nload > 1) + (g->nnodes > 1);
}

struct grid_at grid_decode(const struct grid *g, size_t k)
{
	struct grid_at a;

	a.seed = k % g->nseed, k /= g->nseed;
	a.nodes = k % g->nnodes, k /= g->nnodes;
	a.load = k % g->nload, k /= g->nload;
	a.est = k % g->nest, k /= g->nest;
	a.policy = k % g->npolicy;
	return a;
}

void grid_cell(const struct grid *g, size_t k, const struct replay_settings *base,
               struct replay_settings *out)
{
	struct grid_at a = grid_decode(g, k);

	*out = *base;
	out->seed = g->seed[a.seed];
	out->nodes = g->nodes[a.nodes];
	out->shape.load = g->load_target ? 1.0 : g->load[a.load];
	out->shape.utilization = g->load_target ? g->load[a.load] : 0;
	out->est = g->est[a.est];
	out->policy = g->policy[a.policy];
}

size_t grid_source(const struct grid *g, size_t k)
{
	struct grid_at a = grid_decode(g, k);

	/* The seed is innermost: the setting's first seed is a.seed cells back. */
	return est_uses_seed(&g->est[a.est]) ? k : k - a.seed;
}

double cell_metric(const struct cell_row *r, const char *metric)
{
	if (strcmp(metric, "bsld") == 0)
		return r->bsld.avg;
	if (strcmp(metric, "wait") == 0)
		return r->wait.avg;
	if (strcmp(metric, "response") == 0)
		return r->response.avg;
	if (strcmp(metric, "utilization") == 0)
		return r->utilization * 100;
	if (strcmp(metric, "bsld-p90") == 0)
		return r->bsld.p90;
	if (strcmp(metric, "wait-p90") == 0)
		return r->wait.p90;
	return NAN;
}

int cell_metric_known(const char *metric)
{
	static const char *const names[] = { "bsld", "wait", "response", "utilization",
	                                     "bsld-p90", "wait-p90" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(metric, names[i]) == 0)
			return 1;
	return 0;
}
