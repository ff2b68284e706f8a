/* A restart: everything the store holds comes back, and nothing that
 * might have run is ever run again.
 *
 * First the spool: the store remembers the spool's token, so a spool that
 * was removed or replaced is known (then the absence of a record proves
 * nothing); the highest id with a directory in the spool is committed as
 * handed out (a submission whose commit failed used it); and what
 * unacknowledged submissions and ended jobs left there is swept.
 *
 * Running jobs next, as the core wants them: for each one,
 *   - an end record: it ended while the daemon was down; its end is kept;
 *   - a supervisor (from its record in the spool or the one in the store)
 *     still alive: adopted on its nodes, watched, and killed on time;
 *   - a supervisor that is gone without an end record: lost;
 *   - a supervisor that holds the job's start lock but has not recorded
 *     itself yet (the daemon died just after the fork): waited for, then
 *     adopted;
 *   - nothing at all, in the same spool: the daemon stopped between the
 *     commit and the fork, so it never ran and goes back to the queue,
 *     promised its planned start. In another spool: lost, never re-run.
 * Then the nodes an operator drained or marked down (a job still on a node
 * down is killed, as it would have been). Then the queued jobs, in arrival order, each with its guarantee (the core
 * keeps every promise that still fits and says which it cannot); one whose
 * script is gone can never run and fails, saying why. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "nodelist.h"
#include "sched.h"
#include "sys/clock.h"
#include "sys/log.h"
#include "sys/runner.h"
#include "sys/spool.h"
#include "sys/store.h"
#include "arrays.h"
#include "contain.h"
#include "daemon.h"
#include "depend.h"
#include "drive.h"
#include "jobs.h"
#include "nodectl.h"
#include "nodes.h"
#include "restore.h"
#include "usage.h"

struct loading {
	struct daemon *d;
	bool failed;		/* a job could not be held: refuse to start */
};

static int load_one(const struct store_job *r, void *arg)
{
	struct loading *l = arg;
	struct djob *j;

	if (r->seq >= l->d->next_seq)
		l->d->next_seq = r->seq + 1;
	if (r->seq < l->d->top_seq)
		l->d->top_seq = r->seq;
	l->failed = !(j = jobs_add(l->d, r));
	if (j)
		j->cost = usage_live_cost(r, usage_script_len(l->d, r->id));
	return l->failed;
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
		int64_t i = nodes_index(d, nl.names[k]);

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

/* What a job that is not restored held in the acknowledged plan: room the
 * first compression looks at (see sched_restore_freed). */
static void plan_freed(struct daemon *d, const struct djob *j)
{
	bf_time now = daemon_now(d), from = BF_NEVER, to = BF_NEVER;
	bf_time hold = j->rec.estimate + d->o.kill_grace;

	if (j->rec.state == ST_RUNNING) {
		from = now;
		to = j->rec.hold_end != BF_NEVER ? j->rec.hold_end :
		     j->rec.start != BF_NEVER ? j->rec.start + hold : BF_NEVER;
	} else if (j->rec.state == ST_QUEUED && j->rec.guarantee != BF_NEVER) {
		from = j->rec.guarantee > now ? j->rec.guarantee : now;
		to = j->rec.guarantee + hold;
	}
	if (from != BF_NEVER && to != BF_NEVER && to > from)
		sched_restore_freed(d->sched, from, to);
}

static void finish(struct daemon *d, struct djob *j, enum store_state st, const char *why)
{
	plan_freed(d, j);
	j->rec.state = st;
	if (j->rec.end == BF_NEVER)
		j->rec.end = daemon_now(d);
	j->rec.sup_pid = j->rec.sup_start = 0;
	if (why && st == ST_FAILED)
		jobs_set_str(j, JS_REASON, why, strlen(why));
	drive_store(d, j, why);
}

/* A node the supervisor lost while the daemon was down: stored down, and
 * out of the plan once nodectl_restore reads it. */
static void lost_node(const char *node, const char *why, void *arg)
{
	nodectl_lost(arg, node, why, true);
}

/* The job's end, if its supervisor recorded one: then it is stored. */
static bool collect_end(struct daemon *d, struct djob *j)
{
	char reason[512];
	int wstatus;
	bf_time end;
	enum store_state st;

	if (runner_collect(d->spool.status_dir, j->rec.id, &wstatus, &end, reason,
	                   sizeof reason) != 1)
		return false;
	/* A cluster job's node sides end it at its limit by themselves. */
	if (!j->rec.kill_why && runner_collect_at_limit(d->spool.status_dir, j->rec.id) == 2)
		j->rec.kill_why = 1 + KILL_OVERRUN;
	/* As a live end is (drive.c): the exit status the supervisor recorded
	 * tells done from exit. */
	st = reason[0] ? ST_FAILED : drive_end_state(j->rec.kill_why, wstatus);
	if (j->rec.requeue && !reason[0]) {
		/* bctl requeue: it ended while the daemon was down; it joins
		 * the queue with the queued jobs below. */
		plan_freed(d, j);
		jobs_requeue_reset(d, j, daemon_now(d));
		drive_store(d, j, "ended while the daemon was down; queued again (requeued)");
		runner_collect_down(d->spool.status_dir, j->rec.id, lost_node, d);
		return true;
	}
	j->rec.end = end;
	j->rec.has_exit = true;
	j->rec.exit_status = wstatus;
	contain_usage(d, j);
	finish(d, j, st, reason[0] ? reason : "ended while the daemon was down");
	drive_log_end(j, "ended while the daemon was down");
	runner_collect_down(d->spool.status_dir, j->rec.id, lost_node, d);
	return true;
}

/* A supervisor forked an instant before the daemon died holds the start
 * lock but may not have written its record yet. It does so at once, and it
 * has not started the job (it forks the job only after its record), so the
 * restart waits for the record as long as the lock is held: deciding
 * earlier could mark lost a job that is about to run. Said every 5 s. */
static int await_sup_record(struct daemon *d, uint64_t id, pid_t *pid, int64_t *ticks)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	bf_time said = clock_monotonic();

	for (;;) {
		if (runner_sup_read(d->spool.status_dir, id, pid, ticks) == 1)
			return 1;
		if (runner_intent(d->spool.status_dir, id) != 1)
			return runner_sup_read(d->spool.status_dir, id, pid, ticks) == 1;
		if (clock_monotonic() - said >= 5 * BF_SEC) {
			said = clock_monotonic();
			log_warnx("job %" PRIu64 ": waiting for its supervisor, which holds its start "
			          "lock but has not recorded itself yet", id);
		}
		nanosleep(&pause, NULL);
	}
}

/* Where a running job's supervisor is: 1 found (pid, ticks), 0 none was
 * ever forked, -1 its fate cannot be known (why says so). */
static int find_supervisor(struct daemon *d, struct djob *j, bool spool_replaced, pid_t *pid,
                           int64_t *ticks, const char **why)
{
	int intent;

	if (runner_sup_read(d->spool.status_dir, j->rec.id, pid, ticks) == 1)
		return 1;
	if (j->rec.sup_pid > 0) {	/* the store had it, the spool lost it */
		*pid = (pid_t)j->rec.sup_pid;
		*ticks = j->rec.sup_start;
		return 1;
	}
	if (spool_replaced) {
		/* Its records are gone: it may still run. Look for it. */
		if (runner_find_by_job(d->root ? (uid_t)j->rec.uid : getuid(), j->rec.id, pid, ticks))
			return 1;
		*why = "lost: the spool was replaced while the daemon was down; whether it ran is "
		       "unknown, so it is not run again";
		return -1;
	}
	intent = runner_intent(d->spool.status_dir, j->rec.id);
	if (intent == 0)
		return 0;
	if (intent == 1 && await_sup_record(d, j->rec.id, pid, ticks))
		return 1;
	if (intent == 1)	/* it let go of the lock without a record: it never forked the job */
		return 0;
	*why = "lost: its start lock cannot be read; whether it ran is unknown";
	return -1;
}

static void restore_running(struct daemon *d, struct djob *j, bf_time now, bool spool_replaced)
{
	const char *why = NULL;
	pid_t pid;
	int64_t ticks;
	uint32_t n = 0, *idx;
	int rc;

	if (collect_end(d, j))
		return;
	rc = find_supervisor(d, j, spool_replaced, &pid, &ticks, &why);
	if (rc == 0) {
		/* Never forked: back to the queue, promised its planned start. */
		log_job(LOG_NOTICE, j->rec.id, j->rec.user,
		        "never started before the daemon stopped; queued again");
		j->rec.state = ST_QUEUED;
		j->rec.guarantee = j->rec.start;
		j->rec.start = j->rec.hold_end = BF_NEVER;
		jobs_set_str(j, JS_NODES, NULL, 0);
		drive_store(d, j, "queued again: it never started");
		return;
	}
	if (rc < 0) {
		log_job(LOG_WARNING, j->rec.id, j->rec.user, "%s", why);
		finish(d, j, ST_FAILED, why);
		return;
	}
	if (runner_find(pid, ticks, &j->sup) != 1) {
		if (collect_end(d, j))	/* it ended a moment ago */
			return;
		drive_kill_orphans(d, j, pid, ticks);
		finish(d, j, ST_FAILED, "lost: its supervisor ended without recording the job's end");
		return;
	}
	idx = node_indices(d, j->rec.node_list, &n);
	/* Its hold as the plan had it (a start late by less than the grace
	 * kept the plan's end): the queued jobs' promises fit as they did. */
	if (!idx || sched_restore_running_as(d->sched, now, j->rec.id, j->rec.submit,
	                                     j->rec.estimate, j->rec.start, j->rec.hold_end, idx, n,
	                                     j->rec.uid) < 0) {
		/* Its nodes are not this partition's (or held twice): it cannot
		 * be accounted for, so it is stopped. */
		log_job(LOG_WARNING, j->rec.id, j->rec.user,
		        "its nodes (%s) do not fit the partition; killing it",
		        j->rec.node_list ? j->rec.node_list : "?");
		runner_kill(&j->sup);
		j->rec.kill_why = 1 + KILL_NODE_FAILED;
		drive_watch(d, j);
		free(idx);
		return;
	}
	free(idx);
	if (j->rec.sup_pid != pid || j->rec.sup_start != ticks) {
		j->rec.sup_pid = pid;
		j->rec.sup_start = ticks;
		drive_store(d, j, NULL);
	}
	if (drive_watch(d, j) < 0)
		log_job(LOG_WARNING, j->rec.id, j->rec.user, "cannot watch its supervisor: %s",
		        strerror(errno));
	/* A kill sent before the restart: send it again (the core re-arms
	 * the time limit itself from the start and the estimate). */
	if (j->rec.kill_why)
		drive_kill(d, j, BF_NEVER);
	log_job(LOG_NOTICE, j->rec.id, j->rec.user, "running, found again (supervisor %d)",
	        (int)pid);
}

static bool is_live(uint64_t id, void *arg)
{
	/* (an array's directory: while any element of it lives) */
	return jobs_get(arg, id) != NULL || arrays_get(arg, id) != NULL;
}

/* ---- job arrays: what their live elements share, back in memory ---- */

struct array_load {
	struct store_array row;
	char *name, *spec;
	bool found;
	char *argv, *env;
	size_t argv_len, env_len;
	uint32_t *index;
	uint64_t first;
	bool args, bad;
};

static int visit_array(const struct store_array *a, void *arg)
{
	struct array_load *l = arg;

	l->row = *a;
	l->name = a->name ? strdup(a->name) : NULL;
	l->spec = a->spec ? strdup(a->spec) : NULL;
	l->found = true;
	return 0;
}

static int visit_args(const char *argv, size_t argv_len, const char *env, size_t env_len,
                      void *arg)
{
	struct array_load *l = arg;

	if (!(l->argv = malloc(argv_len + 1)) || !(l->env = malloc(env_len + 1)))
		return -1;
	memcpy(l->argv, argv ? argv : "", argv ? argv_len : 0);
	memcpy(l->env, env ? env : "", env ? env_len : 0);
	l->argv_len = argv ? argv_len : 0;
	l->env_len = env ? env_len : 0;
	l->args = true;
	return 0;
}

static int visit_element(const struct store_job *r, void *arg)
{
	struct array_load *l = arg;

	if (r->id < l->first || r->id - l->first >= l->row.count)
		l->bad = true;
	else
		l->index[r->id - l->first] = r->array_index;
	return 0;
}

/* One array of a live element: its row, its arguments, each element's
 * index, and how many ended in each state. NULL if any is missing. */
static struct darray *load_array(struct daemon *d, uint64_t id, uint32_t uid)
{
	struct array_load l = { .first = id };
	uint32_t counts[ST_NSTATES];
	struct darray *a = NULL;

	if (store_get_array(d->store, id, visit_array, &l) != 1 || !l.found ||
	    l.row.count == 0 || l.row.count > ARRAYS_MAX_ELEMENTS ||
	    store_get_args(d->store, id, visit_args, &l) != 1 ||
	    !(l.index = calloc(l.row.count, sizeof *l.index)) ||
	    store_load_elements(d->store, id, visit_element, &l) < 0 || l.bad ||
	    store_array_counts(d->store, id, counts) < 0)
		goto out;
	if ((a = arrays_add(d, id, uid, l.name, l.spec, l.index, l.row.count, l.row.cap, l.argv,
	                    l.argv_len, l.env, l.env_len)))
		for (int k = 0; k < ST_NSTATES; k++)
			a->ended[k] = store_state_live((enum store_state)k) ? 0 : counts[k];
out:
	free(l.name);
	free(l.spec);
	free(l.argv);
	free(l.env);
	free(l.index);
	return a;
}

static void restore_arrays(struct daemon *d)
{
	for (uint32_t k = 0; k < d->njobs; k++) {
		struct djob *j = d->jobs[k];
		struct darray *a;

		if (!j->rec.array_id)
			continue;
		if (!(a = arrays_get(d, j->rec.array_id)) &&
		    !(a = load_array(d, j->rec.array_id, j->rec.uid))) {
			log_job(LOG_WARNING, j->rec.id, j->rec.user, "its array %" PRIu64 " could not be "
			        "read back: %s", j->rec.array_id, store_error(d->store));
			continue;	/* (it fails at its start, saying so) */
		}
		arrays_element_live(a);
	}
}

/* The spool against the store: is it the same one, ids it used, and a
 * sweep of what it holds for no live job. The commit comes before the
 * sweep, so an id is never forgotten. Returns -1 if the store fails. */
static int restore_spool(struct daemon *d, bool *replaced, char *err, size_t errlen)
{
	char known[SPOOL_TOKEN_LEN + 8];
	unsigned swept;
	int rc = store_meta_get(d->store, "spool", known, sizeof known);

	/* Another token, or a status directory made anew under the same
	 * top: either way the records of what ran are not the ones this
	 * database's jobs left. */
	*replaced = rc == 1 && (strcmp(known, d->spool.token) != 0 || d->spool.status_new);
	if (*replaced)
		log_err("the spool %s is not the one this database used (it was removed or "
		          "replaced): a job whose fate it cannot show is marked lost, never run again",
		          d->spool.dir);
	/* The ids first, on their own: they must be durable before the
	 * sweep removes the directories that show them. The token goes with
	 * the restore's own changes (committed by server_init), so a crash in
	 * between finds the spool judged the same way again. */
	if (rc < 0 || store_begin(d->store) < 0 ||
	    store_raise_last_id(d->store, spool_max_id(&d->spool)) < 0 ||
	    store_commit(d->store) < 0 || store_begin(d->store) < 0 ||
	    store_meta_set(d->store, "spool", d->spool.token) < 0) {
		snprintf(err, errlen, "%s: %s", d->o.db, store_error(d->store));
		return -1;
	}
	if ((swept = spool_sweep(&d->spool, is_live, d)) > 0)
		log_info("removed %u job directories that no live job owns (submissions never "
		         "acknowledged, or jobs that ended)", swept);
	/* Scripts an older version handed to their owners become root's and
	 * read-only (spool.h); those made since are left as they are. */
	for (uint32_t k = 0; k < d->njobs; k++)
		spool_job_take_script(&d->spool, d->jobs[k]->rec.id, (uid_t)d->jobs[k]->rec.uid);
	return 0;
}

static int by_seq(const void *a, const void *b)
{
	int64_t x = (*(struct djob *const *)a)->rec.seq, y = (*(struct djob *const *)b)->rec.seq;

	return x < y ? -1 : x > y;
}

int restore_state(struct daemon *d, char *err, size_t errlen)
{
	bf_time now = daemon_now(d);
	uint32_t running = 0, queued = 0, held = 0, total, nq = 0;
	struct djob **order;
	bool replaced;
	int rc;

	struct loading l = { d, false };

	/* All of them or none: the sweep below removes what no loaded job
	 * owns, and a job left out would never run, or run twice. */
	if (store_load_live(d->store, load_one, &l) < 0 || l.failed) {
		snprintf(err, errlen, "loading jobs: %s",
		         l.failed ? "out of memory" : store_error(d->store));
		return -1;
	}
	restore_arrays(d);
	if (restore_spool(d, &replaced, err, errlen) < 0)
		return -1;
	total = d->njobs;
	for (uint32_t k = 0; k < total; k++)
		if (d->jobs[k]->rec.state == ST_RUNNING)
			restore_running(d, d->jobs[k], now, replaced);
	nodectl_restore(d, now);
	/* Queued jobs in the queue's order, seq's (the jobs put first, then
	 * arrival): the table is in load order, which is seq order, but for a
	 * job requeued above (it ended while the daemon was down), which
	 * joined behind them all. */
	if (!(order = malloc((total ? total : 1) * sizeof *order))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t k = 0; k < total; k++)
		if (d->jobs[k]->rec.state == ST_QUEUED)
			order[nq++] = d->jobs[k];
	qsort(order, nq, sizeof *order, by_seq);
	for (uint32_t k = 0; k < nq; k++) {
		struct djob *j = order[k];
		char why[1024];
		bf_time since;

		if (!spool_job_has_script(&d->spool, j->rec.array_id ? j->rec.array_id : j->rec.id)) {
			finish(d, j, ST_FAILED, "its spooled script is gone (the spool was removed or "
			       "replaced); it cannot run");
			continue;
		}
		if (j->rec.held) {
			held++;		/* not in the plan until released */
			continue;
		}
		/* Waiting since it last joined the queue, as the core had it
		 * (a released or requeued job: then, not at its submission; one
		 * requeued above joined a moment after `now`). */
		since = j->rec.queued != BF_NEVER && j->rec.queued > j->rec.submit ? j->rec.queued :
		        j->rec.submit;
		rc = depend_enter(d, j, now, DEPEND_RESTORE, since < now ? since : now,
		                  j->rec.guarantee, why, sizeof why);
		if (rc == 1) {
			/* (what it waited on ended while the daemon was down) */
			depend_never(d, j, now);
			continue;
		}
		/* Put first before the restart: first again (restored in seq
		 * order), and marked so (CREASY keeps it before any priority). */
		if (rc >= 0 && j->rec.seq < 0)
			rc = sched_restore_top(d->sched, j->rec.id);
		if (rc < 0) {
			finish(d, j, ST_FAILED, sched_strerror(rc));
			continue;
		}
		queued++;
	}
	free(order);
	for (uint32_t k = 0; k < d->njobs; k++)
		running += d->jobs[k]->rec.state == ST_RUNNING;
	/* Now that the running jobs are known: what else is in a job's cgroup
	 * belongs to none (an ended job's straggler, a start that never
	 * forked). */
	contain_sweep(d);
	if (total)
		log_info("restored %u jobs: %u running, %u queued, %u held", total, running, queued,
		         held);
	return 0;
}
