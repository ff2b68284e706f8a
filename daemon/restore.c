/* A restart: everything the store holds comes back.
 *
 * Running jobs first, as the core wants them: for each one, in the spool,
 *   - an end record: it ended while the daemon was down; its end is kept;
 *   - its supervisor's record, and that supervisor still alive: adopted on
 *     its nodes, watched, and killed on time (re-armed from its start);
 *   - a supervisor record but no supervisor and no end: lost (a machine
 *     restart, or someone killed the supervisor);
 *   - no record at all: the supervisor never got to fork the job (the
 *     daemon stopped between the commit and the fork), so it never ran and
 *     goes back to the queue, promised its planned start.
 * Then the queued jobs, in arrival order, each with its guarantee (the core
 * keeps every promise that still fits and says which it cannot). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "log.h"
#include "nodelist.h"
#include "server.h"

static int load_one(const struct store_job *r, void *arg)
{
	struct daemon *d = arg;

	if (r->seq >= d->next_seq)
		d->next_seq = r->seq + 1;
	return jobs_add(d, r) ? 0 : 1;
}

/* A running job's node list, back to the core's node indices. */
static uint32_t *node_indices(struct daemon *d, const char *list, uint32_t *count)
{
	struct nodelist nl;
	char err[200];
	uint32_t *idx;

	if (!list || nodelist_parse(list, &nl, err, sizeof err) < 0)
		return NULL;
	idx = malloc((nl.count ? nl.count : 1) * sizeof *idx);
	for (uint32_t k = 0; idx && k < nl.count; k++) {
		int64_t i = server_node_index(d, nl.names[k]);

		if (i < 0) {
			free(idx);
			idx = NULL;
			break;
		}
		idx[k] = (uint32_t)i;
	}
	*count = nl.count;
	nodelist_free(&nl);
	return idx;
}

static void finish(struct daemon *d, struct djob *j, enum store_state st, const char *why)
{
	j->rec.state = st;
	if (j->rec.end == BF_NEVER)
		j->rec.end = server_now(d);
	j->rec.sup_pid = j->rec.sup_start = 0;
	if (why && st == ST_FAILED)
		jobs_set_str(j, JS_REASON, why, strlen(why));
	drive_store(d, j, why);
}

static void restore_running(struct daemon *d, struct djob *j, bf_time now)
{
	char reason[512];
	int wstatus, rc;
	bf_time end;
	pid_t pid;
	int64_t ticks;
	uint32_t n = 0, *idx;

	rc = runner_collect(d->status_dir, j->rec.id, &wstatus, &end, reason, sizeof reason);
	if (rc == 1) {
		enum store_state st = reason[0] ? ST_FAILED :
		                      j->rec.kill_why == 1 + KILL_OVERRUN ? ST_KILLED :
		                      j->rec.kill_why == 1 + KILL_CANCELLED ? ST_CANCELLED :
		                      j->rec.kill_why ? ST_FAILED : ST_DONE;

		j->rec.end = end;
		j->rec.has_exit = true;
		j->rec.exit_status = wstatus;
		finish(d, j, st, reason[0] ? reason : "ended while the daemon was down");
		return;
	}
	if (runner_sup_read(d->status_dir, j->rec.id, &pid, &ticks) != 1) {
		/* Never forked: back to the queue, promised its planned start. */
		log_info("job %" PRIu64 ": never started before the daemon stopped; queued again",
		         j->rec.id);
		j->rec.state = ST_QUEUED;
		j->rec.guarantee = j->rec.start;
		j->rec.start = BF_NEVER;
		jobs_set_str(j, JS_NODES, NULL, 0);
		drive_store(d, j, "queued again: it never started");
		return;
	}
	if (runner_find(pid, ticks, &j->sup) != 1) {
		drive_kill_orphans(d, j, pid, ticks);
		finish(d, j, ST_FAILED, "lost: its supervisor ended without recording the job's end");
		return;
	}
	idx = node_indices(d, j->rec.node_list, &n);
	if (!idx || sched_restore_running(d->sched, now, j->rec.id, j->rec.submit, j->rec.estimate,
	                                  j->rec.start, idx, n) < 0) {
		/* Its nodes are not this partition's (or held twice): it cannot
		 * be accounted for, so it is stopped. */
		log_warnx("job %" PRIu64 ": its nodes (%s) do not fit the partition; killing it",
		          j->rec.id, j->rec.node_list ? j->rec.node_list : "?");
		runner_kill(&j->sup);
		j->rec.kill_why = 1 + KILL_NODE_FAILED;
		drive_watch(d, j);
		free(idx);
		return;
	}
	free(idx);
	j->rec.sup_pid = pid;
	j->rec.sup_start = ticks;
	if (drive_watch(d, j) < 0)
		log_warn("job %" PRIu64 ": cannot watch its supervisor", j->rec.id);
	/* A kill sent before the restart: send it again (the core re-arms
	 * the time limit itself from the start and the estimate). */
	if (j->rec.kill_why)
		drive_kill(d, j, BF_NEVER);
	log_info("job %" PRIu64 ": running, found again (supervisor %d)", j->rec.id, (int)pid);
}

int restore_state(struct daemon *d, char *err, size_t errlen)
{
	bf_time now = server_now(d);
	uint32_t running = 0, queued = 0, total;
	int rc;

	if (store_load_live(d->store, load_one, d) < 0) {
		snprintf(err, errlen, "loading jobs: %s", store_error(d->store));
		return -1;
	}
	total = d->njobs;
	for (uint32_t k = 0; k < total; k++)
		if (d->jobs[k]->rec.state == ST_RUNNING)
			restore_running(d, d->jobs[k], now);
	/* Queued jobs in arrival order: the table is in load order, which is
	 * seq order, and a job queued again keeps its place by seq. */
	for (uint32_t k = 0; k < total; k++) {
		struct djob *j = d->jobs[k];

		if (j->rec.state != ST_QUEUED)
			continue;
		rc = sched_restore_queued(d->sched, now, j->rec.id, j->rec.submit, j->rec.nodes,
		                          j->rec.estimate, j->rec.guarantee);
		if (rc < 0) {
			finish(d, j, ST_FAILED, sched_strerror(rc));
			continue;
		}
		queued++;
	}
	for (uint32_t k = 0; k < d->njobs; k++)
		running += d->jobs[k]->rec.state == ST_RUNNING;
	if (total)
		log_info("restored %u jobs: %u running, %u queued", total, running, queued);
	return 0;
}
