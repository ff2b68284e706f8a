/* Sweeps: a grid's parallel run (see sweep.h; the grid in grid.c, the
 * output in sweep_out.c).
 *
 * Why processes, not threads: each cell is a whole replay that allocates
 * freely and may print errors; a worker process that fails (or is killed
 * by the OOM killer) takes no other cell with it, and the trace read once
 * by the parent is shared copy-on-write. Workers take the next cell from a
 * counter in shared memory, so long cells (conservative) and short ones
 * balance themselves. */
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "progress.h"
#include "sweep.h"
#include "sweep_out.h"

static void fill_row(struct cell_row *row, const struct replay_settings *set,
                     const struct replay_result *r)
{
	row->set = *set;
	row->nodes = r->nodes;
	row->jobs = r->m.jobs;
	row->skipped = 0;
	for (int i = 0; i < SKIP_NREASONS; i++)
		row->skipped += r->skipped[i];
	row->killed = r->m.killed;
	row->backfilled = r->m.backfilled;
	row->extended = r->extended;
	row->load = r->shape.load;
	row->offered_load = r->offered_load;
	row->utilization = r->m.utilization;
	row->est_accuracy = r->est_accuracy;
	row->wall_s = r->wall_seconds;
	row->wait = r->bd->all.wait;
	row->response = r->bd->all.response;
	row->bsld = r->bd->all.bsld;
	row->ci_wait = r->bd->ci_wait;
	row->ci_bsld = r->bd->ci_bsld;
	row->deps = r->deps;
}

static int run_cell(const struct trace *tr, const struct replay_opts *o,
                    const struct sweep_cells *c, size_t k, struct cell_row *row)
{
	struct replay_settings set;
	struct replay_result r;
	struct replay_opts quiet = *o;

	quiet.jobs_out = NULL;	/* one file would be written by every cell */
	c->settings(c->arg, k, &o->set, &set);
	row->same_as = k;
	row->replayed = true;
	if (replay_cell(tr, &quiet, &set, &r, NULL) < 0) {
		row->set = set;
		row->state = -1;
		return -1;
	}
	fill_row(row, &set, &r);
	replay_result_free(&r);
	row->state = 1;
	return 0;
}

struct shared {
	size_t next, done;	/* atomics */
	size_t n;		/* cells: the mapping's size */
	struct cell_row rows[];
};

/* Cells whose source is another are left for the parent to fill. */
static void worker(const struct trace *tr, const struct replay_opts *o,
                   const struct sweep_cells *c, struct shared *sh)
{
	for (;;) {
		size_t k = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED);

		if (k >= c->n)
			break;
		if (c->source(c->arg, k) == k)
			(void)run_cell(tr, o, c, k, &sh->rows[k]);
		__atomic_fetch_add(&sh->done, 1, __ATOMIC_RELEASE);
	}
	fflush(stderr);
	_exit(0);
}

static unsigned workers_for(const struct sweep_opts *so, size_t n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned p = so->parallel ? so->parallel : (unsigned)(cpus > 0 ? cpus : 1);

	return p > n ? (unsigned)n : p;
}

/* Every cell, by `par` worker processes; the rows in sh. */
static int run_all(const struct trace *tr, const struct replay_opts *o,
                   const struct sweep_cells *c, const struct sweep_opts *so, struct shared *sh)
{
	size_t n = c->n, runs = 0;
	unsigned par, live = 0;
	struct progress bar;
	int rc = 0;

	for (size_t k = 0; k < n; k++)
		runs += c->source(c->arg, k) == k;
	par = workers_for(so, runs);
	if (par > 256)
		par = 256;
	fflush(NULL);
	for (unsigned w = 0; w < par; w++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "backfilld: cannot start a sweep worker: %s\n", strerror(errno));
			break;
		}
		if (pid == 0)
			worker(tr, o, c, sh);
		live++;
	}
	if (live == 0)
		return -1;
	progress_start(&bar, so->progress, "cells");
	for (unsigned left = live; left > 0;) {
		int status;
		pid_t pid = waitpid(-1, &status, so->progress ? WNOHANG : 0);

		if (pid < 0 && errno != EINTR)
			break;
		if (pid > 0) {
			left--;
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
				fprintf(stderr, "backfilld: a sweep worker died (%s %d)\n",
				        WIFSIGNALED(status) ? "signal" : "status",
				        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
				rc = -1;
			}
			continue;
		}
		if (so->progress) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };

			progress_show(&bar, __atomic_load_n(&sh->done, __ATOMIC_ACQUIRE), n);
			nanosleep(&ts, NULL);
		}
	}
	progress_end(&bar, __atomic_load_n(&sh->done, __ATOMIC_ACQUIRE), n, true);
	return rc;
}

/* The cells not replayed: their source's figures, their own settings, and
 * no time of their own. */
static void fill_copies(const struct replay_opts *o, const struct sweep_cells *c,
                        struct cell_row *rows)
{
	for (size_t k = 0; k < c->n; k++) {
		size_t src = c->source(c->arg, k);
		struct replay_settings set;

		if (src == k || rows[src].state != 1)
			continue;
		c->settings(c->arg, k, &o->set, &set);
		rows[k] = rows[src];
		rows[k].set = set;
		rows[k].replayed = false;
		rows[k].same_as = src;
		rows[k].wall_s = 0;
	}
}

struct cell_row *sweep_rows(const struct trace *tr, const struct replay_opts *o,
                            const struct sweep_cells *c, const struct sweep_opts *so,
                            size_t first, size_t count)
{
	size_t bytes = sizeof(struct shared) + c->n * sizeof(struct cell_row);
	struct shared *sh;
	int rc;

	sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		fprintf(stderr, "backfilld: out of memory for %zu sweep cells\n", c->n);
		return NULL;
	}
	sh->n = c->n;
	if (count == 1) {
		rc = run_cell(tr, o, c, first, &sh->rows[first]);
	} else {
		rc = run_all(tr, o, c, so, sh);
		fill_copies(o, c, sh->rows);
	}
	for (size_t k = first; k < first + count; k++)
		if (sh->rows[k].state != 1) {
			struct replay_settings set;
			char est[32];

			c->settings(c->arg, k, &o->set, &set);
			est_name(&set.est, est, sizeof est);
			fprintf(stderr, "backfilld: sweep cell %zu (%s, estimates %s, seed %llu) did not "
			        "finish\n", k, sched_policy_name(set.policy), est,
			        (unsigned long long)set.seed);
			rc = -1;
		}
	if (rc < 0) {
		munmap(sh, bytes);
		return NULL;
	}
	/* The mapping stays whole; the rows asked for are handed out. */
	if (first > 0)
		memmove(sh->rows, sh->rows + first, count * sizeof sh->rows[0]);
	return sh->rows;
}

void sweep_rows_free(struct cell_row *rows)
{
	struct shared *sh;

	if (!rows)
		return;
	sh = (struct shared *)((char *)rows - offsetof(struct shared, rows));
	munmap(sh, sizeof *sh + sh->n * sizeof sh->rows[0]);
}

/* A grid as sweep cells. */
static void grid_settings(const void *arg, size_t k, const struct replay_settings *base,
                          struct replay_settings *out)
{
	grid_cell(arg, k, base, out);
}

static size_t grid_src(const void *arg, size_t k)
{
	return grid_source(arg, k);
}

int sweep_run(const struct trace *tr, const struct replay_opts *o, const struct grid *g,
              const struct sweep_opts *so, FILE *out)
{
	struct sweep_cells c = { grid_cells(g), grid_settings, grid_src, g };
	size_t first = 0, count = c.n;
	struct cell_row *rows;
	int rc;

	if (so->cell >= 0) {
		if ((size_t)so->cell >= c.n) {
			fprintf(stderr, "backfilld: --cell %ld: the grid has %zu cells (0 to %zu)\n",
			        so->cell, c.n, c.n - 1);
			return -1;
		}
		first = (size_t)so->cell;
		count = 1;
	}
	if (!(rows = sweep_rows(tr, o, &c, so, first, count)))
		return -1;
	rc = sweep_print(out, o, g, &(struct sweep_plot){ so->plot, so->metric }, rows, first, count);
	sweep_rows_free(rows);
	return rc;
}
