/* The scheduler driver: where the core's actions become supervisors,
 * signals, timers and rows, and where the commit cycle runs (see daemon.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>
#include <event2/event.h>
#include "duration.h"
#include "sched.h"
#include "sys/cgroup.h"
#include "sys/clock.h"
#include "sys/failpoint.h"
#include "sys/log.h"
#include "sys/runner.h"
#include "sys/spool.h"
#include "sys/store.h"
#include "sys/syncer.h"
#include "arrays.h"
#include "contain.h"
#include "daemon.h"
#include "drive.h"
#include "forecast.h"
#include "jobs.h"
#include "reserve.h"
#include "sd.h"
#include "usage.h"

static struct timeval tv_of(bf_time us)
{
	if (us < 0)
		us = 0;
	return (struct timeval){ .tv_sec = us / BF_SEC, .tv_usec = us % BF_SEC };
}

void drive_timer_at(struct event *ev, bf_time due, const char *what)
{
	bf_time now = clock_monotonic();
	struct timeval tv;

	if (due == BF_NEVER || evtimer_pending(ev, NULL))
		return;
	tv = tv_of(due > now ? due - now : 0);
	if (evtimer_add(ev, &tv) < 0)
		log_warnx("cannot arm a timer: the count of unlogged %s is kept for later", what);
}

/* The submissions for the next flush, taken (submit.c). */
static struct pending_sub *take_unsynced(struct daemon *d)
{
	struct pending_sub *batch = d->unsynced;

	d->unsynced = NULL;
	d->unsynced_tail = &d->unsynced;
	d->spool_dirty = false;
	return batch;
}

/* The submissions of the flush under way, taken (its end, or a failure). */
static struct pending_sub *take_syncing(struct daemon *d)
{
	struct pending_sub *batch = d->syncing;

	d->syncing = NULL;
	return batch;
}

/* A full disk: SQLite rolled the turn's transaction back, but every row it
 * held is still in memory (the jobs touched since the last commit, the
 * nodes an operator took out, the ids handed out, the stored policy and
 * grace): with the reserve given back, write them all again, in a new
 * transaction that the caller goes on with. The state changes' log lines
 * of that moment are lost (one says so), and the keep_ended removals of
 * that turn are done again later. 0, or -1 if even that failed. */
static int write_again(struct daemon *d)
{
	char grace[32];
	int rc = 0;

	reserve_release(d, store_error(d->store));
	store_rollback(d->store);
	if (store_begin(d->store) < 0 || store_raise_last_id(d->store, d->last_id) < 0)
		return -1;
	for (uint32_t k = 0; k < d->ntouched && rc == 0; k++) {
		struct djob *j = jobs_get(d, d->touched[k]);

		if (j)
			rc = store_put_job(d->store, &j->rec);
		if (j && rc == 0 && j->args_unstored && store_state_live(j->rec.state))
			rc = store_put_args(d->store, j->rec.id, j->rec.argv, j->rec.argv_len,
			                    j->rec.env, j->rec.env_len);
	}
	for (uint32_t k = 0; k < d->nnodes && rc == 0; k++) {
		const struct node_admin *a = d->nadmin ? &d->nadmin[k] : NULL;

		rc = a && a->state != NA_UP ?
		     store_put_node(d->store, &(struct store_node){ d->node_names[k], a->state,
		                                                    a->since, a->reason, a->by }) :
		     store_del_node(d->store, d->node_names[k]);
	}
	if (rc == 0 && d->partition)
		rc = store_meta_set(d->store, "partition", d->partition);
	snprintf(grace, sizeof grace, "%lld", (long long)d->o.kill_grace);
	if (rc == 0 && !d->grace_changed)
		rc = store_meta_set(d->store, "kill_grace_us", grace);
	if (rc == 0 && !d->policy_unstored)
		rc = store_meta_set(d->store, "policy",
		                    sched_policy_name(sched_get_params(d->sched)->policy));
	d->pruned_at = 0;
	d->over_budget = true;
	if (rc == 0)
		log_warnx("the disk was full: the last changes were written again (%u jobs), without "
		          "their log lines", d->ntouched);
	return rc;
}

/* A store that cannot write leaves memory ahead of the disk: stop, and let
 * the restart reload what is durable; unless it only lacked space, once a
 * turn (write_again). */
static void store_stop(struct daemon *d) __attribute__((noreturn));

void drive_store_failed(struct daemon *d)
{
	if (d->serving && store_full(d->store) && d->writes_again == 0) {
		d->writes_again++;
		if (write_again(d) == 0)
			return;
	}
	store_stop(d);
}

static void store_stop(struct daemon *d)
{
	if (!d->serving) {	/* still starting: nothing was promised yet */
		log_err("cannot start: the store failed: %s", store_error(d->store));
		exit(1);
	}
	log_err("the store failed: %s; stopping (a restart reloads what was committed)",
	          store_error(d->store));
	/* Submissions still waiting for a flush of the spool: refused too,
	 * their scripts removed (none of them is in the store). */
	d->hooks.admit(d, take_syncing(d), "the daemon could not store the change");
	d->hooks.admit(d, take_unsynced(d), "the daemon could not store the change");
	d->hooks.answer_waiting(d, false);
	d->hooks.flush_replies(d, 1000);	/* the refusals reach their clients */
	exit(75);
}

/* Remember a job the commit has to look at (start it, forget it). */
static void touch(struct daemon *d, uint64_t id)
{
	if (d->ntouched == d->touched_cap) {
		uint32_t cap = d->touched_cap ? d->touched_cap * 2 : 64;
		uint64_t *t = realloc(d->touched, cap * sizeof *t);

		if (!t) {
			log_err("out of memory tracking jobs; stopping");
			store_stop(d);
		}
		d->touched = t;
		d->touched_cap = cap;
	}
	d->touched[d->ntouched++] = id;
}

static void reap_later(struct daemon *d, uint64_t id);

int drive_store(struct daemon *d, struct djob *j, const char *detail)
{
	/* Touched first: a full disk's write_again writes it too. */
	touch(d, j->rec.id);
	/* An ended job will never start again: its arguments and environment
	 * (up to 4 MiB) leave memory and the store (a job requeued is queued
	 * again before it is stored, so it keeps them). */
	if (!store_state_live(j->rec.state) && (j->rec.argv_len || j->rec.env_len)) {
		jobs_set_str(j, JS_ARGV, NULL, 0);
		jobs_set_str(j, JS_ENV, NULL, 0);
	}
	usage_ended(d, j);	/* (once, at its end) */
	if (j->rec.array_id && !store_state_live(j->rec.state) && !j->array_counted) {
		/* Its array's last: what they shared goes (its spooled
		 * script once this commit holds every end). */
		j->array_counted = true;
		if (arrays_element_ended(d, &j->rec)) {
			if (store_begin(d->store) < 0 || store_del_args(d->store, j->rec.array_id) < 0)
				drive_store_failed(d);
			reap_later(d, j->rec.array_id);
		}
	}
	if (store_begin(d->store) < 0 || store_put_job(d->store, &j->rec) < 0 ||
	    (!store_state_live(j->rec.state) && !j->rec.array_id &&
	     store_del_args(d->store, j->rec.id) < 0) ||
	    (detail && store_log(d->store, j->rec.id, daemon_now(d), j->rec.state, detail) < 0))
		drive_store_failed(d);
	j->dirty = false;
	return 0;
}

void drive_want_commit(struct daemon *d)
{
	event_active(d->commit_ev, EV_TIMEOUT, 0);
}

/* A failpoint for the crash tests: while the file BACKFILLD_TEST_COMMIT_HOLD
 * names exists, the loop's commits wait (retried every 20 ms) and the loop
 * goes on serving, as a commit starved by a storm of requests would. */
static bool commit_held(struct daemon *d)
{
	const char *path = failpoint_path(FP_COMMIT_HOLD);
	struct timeval retry = { 0, 20000 };

	if (!path || access(path, F_OK) < 0 || d->stopping)
		return false;
	event_add(d->commit_ev, &retry);
	return true;
}

static void commit_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	if (!commit_held(arg))
		drive_commit(arg);
}

static void tick_cb(evutil_socket_t fd, short what, void *arg);

/* keep_ended: how often old ended jobs are looked for; a tenth of the
 * time they are kept, from a second to a minute. */
static bf_time prune_every(const struct daemon *d)
{
	bf_time t = d->o.lim.keep_ended / 10;

	return t < BF_SEC ? BF_SEC : t > 60 * BF_SEC ? 60 * BF_SEC : t;
}

/* Wakes the loop for keep_ended when nothing else does: a tenth of
 * keep_ended, or once a minute while it is unset (a reload may set it). */
static void prune_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	struct timeval tv = { 60, 0 };

	(void)fd;
	(void)what;
	if (d->o.lim.keep_ended != BF_NEVER) {
		tv = tv_of(prune_every(d));
		if (daemon_now(d) >= d->pruned_at + prune_every(d))
			drive_want_commit(d);
	}
	event_add(d->prune_ev, &tv);
}

/* Ended jobs older than keep_ended leave the store (with their log), a
 * batch at a time, so a long backlog is removed over several passes
 * instead of in one long commit. */
#define PRUNE_BATCH 1000

static void prune_ended(struct daemon *d, bf_time now)
{
	int n;

	if (d->o.lim.keep_ended == BF_NEVER || now < d->pruned_at + prune_every(d) ||
	    now - d->o.lim.keep_ended < 0)
		return;
	d->pruned_at = now;
	if (store_begin(d->store) < 0 ||
	    (n = store_prune_ended(d->store, now - d->o.lim.keep_ended, PRUNE_BATCH)) < 0) {
		drive_store_failed(d);
		return;
	}
	d->pruned += (uint64_t)n;
	if (n == PRUNE_BATCH) {
		d->pruned_at = 0;	/* more at the next pass; said once it is all done */
		return;
	}
	if (d->pruned > 0)
		log_info("removed %" PRIu64 " ended job%s older than keep_ended from the store",
		         d->pruned, d->pruned == 1 ? "" : "s");
	d->pruned = 0;
}

static void next_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	drive_want_commit(arg);
}

void drive_next_turn(struct daemon *d)
{
	struct timeval gap = { 0, (suseconds_t)failpoint_num(FP_TURN_GAP_MS) * 1000 };

	if (d->next_ev)
		evtimer_add(d->next_ev, &gap);
}

bool drive_want_forecast(struct daemon *d)
{
	bool fresh = forecast_want(d);

	if (forecast_busy(d))
		drive_next_turn(d);	/* the rest of it, a slice a turn */
	return fresh;
}

int drive_init(struct daemon *d)
{
	struct timeval second = { 1, 0 };

	/* Three priorities, events default to the middle one (1); the commit
	 * runs at the lowest (2), after every connection that is ready in this
	 * loop pass: all their requests join the same commit. */
	d->commit_ev = event_new(d->base, -1, 0, commit_cb, d);
	d->prune_ev = evtimer_new(d->base, prune_cb, d);
	if (!d->prune_ev || event_add(d->prune_ev, &second) < 0)
		return -1;
	d->tick_ev = evtimer_new(d->base, tick_cb, d);
	d->next_ev = evtimer_new(d->base, next_cb, d);
	d->tick_at = BF_NEVER;
	if (!d->commit_ev || !d->tick_ev || !d->next_ev || event_priority_set(d->commit_ev, 2) < 0)
		return -1;
	return 0;
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;

	(void)fd;
	(void)what;
	d->tick_at = BF_NEVER;
	if (!commit_held(d))
		drive_commit(d);
}

void drive_arm_tick(struct daemon *d)
{
	bf_time t = sched_next_wakeup(d->sched), now;
	struct timeval tv;

	if (t == d->tick_at)
		return;
	evtimer_del(d->tick_ev);
	d->tick_at = t;
	if (t == BF_NEVER)
		return;
	now = daemon_now(d);
	tv = tv_of(t - now);
	evtimer_add(d->tick_ev, &tv);
}

static void grace_cb(evutil_socket_t fd, short what, void *arg)
{
	struct djob *j = arg;

	(void)fd;
	(void)what;
	if (j->sup.pidfd >= 0 && runner_kill(&j->sup) < 0)
		log_job(LOG_WARNING, j->rec.id, j->rec.user, "hard kill: %s", strerror(errno));
}

/* The hard kill goes out this much before the plan gives the job's nodes
 * away (a tenth of the grace, a second at most): a killed process takes a
 * moment to be gone. */
static bf_time exit_allowance(bf_time grace)
{
	return grace / 10 < BF_SEC ? grace / 10 : BF_SEC;
}

/* Signal a job the core wants ended; kill it outright when the grace is up
 * or, if that comes first, by the end of its hold in the plan (`gone_by`:
 * a limit signalled late keeps the end the plan gave it). */
void drive_kill(struct daemon *d, struct djob *j, bf_time gone_by)
{
	bf_time now = daemon_now(d), at = now + d->o.kill_grace;
	struct timeval tv;

	if (gone_by < at)
		at = gone_by;
	at -= exit_allowance(d->o.kill_grace);
	tv = tv_of(at > now ? at - now : 0);

	if (j->sup.pidfd < 0)
		return;		/* not started yet: done when it is */
	if (runner_terminate(&j->sup) < 0)
		log_job(LOG_WARNING, j->rec.id, j->rec.user, "terminate: %s", strerror(errno));
	if (!j->grace_ev)
		j->grace_ev = evtimer_new(d->base, grace_cb, j);
	if (j->grace_ev)
		evtimer_add(j->grace_ev, &tv);
}

static const char *const broken_words[] = {
	[BROKEN_NODE_LOST] = "nodes lost",
	[BROKEN_OVERRUN] = "a killed job still holds its nodes past its grace",
	[BROKEN_LATE] = "the daemon was not running when a job was due (stopped, killed or "
	                "suspended)",
	[BROKEN_POLICY] = "the policy changed",
	[BROKEN_USER_CAP] = "its user may not run that many jobs at once (max_running_per_user)",
	[BROKEN_NODE_DRAINED] = "nodes drained",
	[BROKEN_LIMIT] = "a time limit was raised (bctl limit)",
	[BROKEN_TOP] = "an admin put another job first (bctl top)",
	[BROKEN_PRIORITY] = "a job of higher priority came first (creasy)",
	[BROKEN_DEPENDENCY] = "a job it depends on was moved later",
};

static const char *const kill_words[] = {
	[KILL_OVERRUN] = "time limit reached", [KILL_CANCELLED] = "cancelled",
	[KILL_NODE_FAILED] = "a node failed",
};

/* A time for the log in words, as every line and bq give one (local,
 * "2026-11-28 16:10:43"), or "none"; the exact value goes in a journal
 * field (us_field). */
static const char *log_time(bf_time t, char *buf, size_t len)
{
	if (t == BF_NEVER)
		snprintf(buf, len, "none");
	else
		jobs_local_time(t, buf, len);
	return buf;
}

/* "KEY=microseconds\n" appended to a journal field list, or nothing for
 * BF_NEVER (the field is absent: there is no such time). */
static void us_field(char *buf, size_t len, const char *key, bf_time t)
{
	size_t have = strlen(buf);

	if (t != BF_NEVER && have < len)
		snprintf(buf + have, len - have, "%s=%lld\n", key, (long long)t);
}

/* The announcement in words for bq (kept after the job starts). */
static void broken_words_for_bq(struct djob *j, const struct sched_action *a, bf_time t,
                                const char *cause)
{
	char at[40], from[40], to[40], words[400];
	bool out = a->why == BROKEN_NODE_LOST || a->why == BROKEN_NODE_DRAINED;

	snprintf(words, sizeof words, "at %s: start moved from %s to %s (%s)",
	         jobs_local_time(t - t % BF_SEC, at, sizeof at),
	         j->rec.guarantee == BF_NEVER ? "none" :
	         jobs_local_time(j->rec.guarantee, from, sizeof from),
	         a->t != BF_NEVER ? jobs_local_time(a->t, to, sizeof to) :
	         out ? "none until nodes return" : "none", cause);
	if (jobs_set_str(j, JS_BROKEN, words, strlen(words)) < 0)
		log_job(LOG_WARNING, j->rec.id, j->rec.user,
		        "out of memory keeping the announcement for bq");
}

/* A promise moved later (at `at`): told in the log with the old and the
 * new start and the true cause, stored with the job. */
static void guarantee_broken(struct daemon *d, struct djob *j, const struct sched_action *a,
                             bf_time at)
{
	const char *cause = a->why < sizeof broken_words / sizeof *broken_words ?
	                    broken_words[a->why] : "?";
	char was[40], now[40], detail[300], fields[120] = "";

	if (j->rec.guarantee == BF_NEVER && a->t == BF_NEVER)
		return;	/* none acknowledged, none now: nothing to tell (a restart
			 * after a crash placed it for the switch it then made) */
	us_field(fields, sizeof fields, "GUARANTEE_FROM_US", j->rec.guarantee);
	us_field(fields, sizeof fields, "GUARANTEE_TO_US", a->t);
	log_job_fields(LOG_WARNING, j->rec.id, j->rec.user, fields,
	               "guarantee broken: start moved later from %s to %s (%s)",
	               log_time(j->rec.guarantee, was, sizeof was), log_time(a->t, now, sizeof now),
	               cause);
	snprintf(detail, sizeof detail, "guarantee broken: from %s to %s: %s", was, now, cause);
	broken_words_for_bq(j, a, at, cause);
	j->rec.guarantee = a->t;
	j->rec.first_guarantee = a->t;
	drive_store(d, j, detail);
}

/* A start later than the job's guarantee by more than a pass's ordinary
 * latency: only a daemon that was not running when the job was due does
 * that (the core keeps every promise it is given the chance to). Said. */
#define LATE_START_SAID BF_SEC

static void late_start(const struct djob *j, bf_time now)
{
	char was[40], fields[60] = "";

	us_field(fields, sizeof fields, "GUARANTEE_US", j->rec.guarantee);
	if (j->rec.guarantee != BF_NEVER && now - j->rec.guarantee > LATE_START_SAID)
		log_job_fields(LOG_WARNING, j->rec.id, j->rec.user, fields,
		               "started %.3f s after its guaranteed start %s: %s",
		               (double)(now - j->rec.guarantee) / BF_SEC,
		               log_time(j->rec.guarantee, was, sizeof was), broken_words[BROKEN_LATE]);
}

/* Broken guarantees announced a turn: a log line, a row and a history
 * entry each, about 15 us, and the commit that makes them durable. With
 * 100,000 to tell, 256 a turn held the loop 29 ms at the 99th percentile
 * (listings meanwhile), 128 a turn 20 ms, in as long in all (2.4 s). */
#define ANNOUNCE_PER_TURN 128

/* The announcement waits its turn (announce_some); false if there is no
 * memory to keep it (the caller announces it now). */
static bool announce_later(struct daemon *d, struct djob *j, const struct sched_action *a,
                           bf_time now)
{
	drive_announce_now(d, j);	/* an earlier one of the job's first */
	if (d->nannounce == d->announce_cap) {
		uint32_t cap = d->announce_cap ? 2 * d->announce_cap : 256;
		struct announcement *n = cap > d->announce_cap ?
		                         realloc(d->announce, cap * sizeof *n) : NULL;

		if (!n)
			return false;
		d->announce = n;
		d->announce_cap = cap;
	}
	d->announce[d->nannounce] = (struct announcement){ .a = *a, .at = now };
	j->announce_at = ++d->nannounce;
	return true;
}

void drive_announce_now(struct daemon *d, struct djob *j)
{
	uint32_t k = j->announce_at;

	if (!k)
		return;
	j->announce_at = 0;
	guarantee_broken(d, j, &d->announce[k - 1].a, d->announce[k - 1].at);
}

/* The next ANNOUNCE_PER_TURN, in the order the core broke them; all that
 * are left when the daemon stops. */
static void announce_some(struct daemon *d)
{
	uint32_t slice = failpoint_or(FP_ANNOUNCE_SLICE, ANNOUNCE_PER_TURN);

	if (d->stopping)
		slice = UINT32_MAX;
	if (d->announce_head == 0 && d->nannounce > 0) {
		d->announce_turn = d->turns;
		d->announce_since = clock_monotonic();
	}
	for (uint32_t k = 0; k < slice && d->announce_head < d->nannounce; k++) {
		uint32_t i = d->announce_head++;
		struct djob *j = jobs_get(d, d->announce[i].a.job);

		if (j && j->announce_at == i + 1)	/* (else announced already) */
			drive_announce_now(d, j);
	}
	if (d->announce_head < d->nannounce) {
		drive_next_turn(d);
		return;
	}
	if (d->nannounce > 0 && d->turns > d->announce_turn)
		log_info("announced %" PRIu32 " broken guarantees in %" PRIu64 " loop turns "
		         "(%.1f ms), clients answered between them", d->nannounce,
		         d->turns - d->announce_turn + 1,
		         (double)(clock_monotonic() - d->announce_since) / 1e3);
	d->announce_head = d->nannounce = 0;
	if (d->policy_unstored) {
		const char *p = sched_policy_name(sched_get_params(d->sched)->policy);

		d->policy_unstored = false;
		if (store_begin(d->store) < 0 || store_meta_set(d->store, "policy", p) < 0)
			drive_store_failed(d);
	}
}

static void take_actions(struct daemon *d, bf_time now)
{
	size_t n;
	const struct sched_action *a = sched_actions(d->sched, &n);
	struct sched_job_info info;
	char detail[160];

	/* A pass that did something may change every prediction; one that
	 * did nothing (most passes a read asks for) keeps them. */
	if (n > 0)
		forecast_stale(d);

	for (size_t k = 0; k < n; k++) {
		struct djob *j = jobs_get(d, a[k].job);

		if (!j)
			continue;
		switch (a[k].kind) {
		case SA_START:
			drive_announce_now(d, j);
			late_start(j, now);
			j->rec.state = ST_RUNNING;
			j->rec.start = now;
			j->rec.guarantee = BF_NEVER;
			/* Where its hold ends in the plan (a late start may
			 * keep the planned end): a restart rebuilds it. */
			j->rec.hold_end = sched_job_info(d->sched, j->rec.id, &info) == SCHED_OK ?
			                  info.hold_end : BF_NEVER;
			free(j->owned[JS_NODES]);
			j->owned[JS_NODES] = jobs_node_list(d, j->rec.id);
			j->rec.node_list = j->owned[JS_NODES];
			j->start_pending = true;
			snprintf(detail, sizeof detail, "started on %s",
			         j->rec.node_list ? j->rec.node_list : "?");
			drive_store(d, j, detail);
			break;
		case SA_KILL:
			/* (bctl requeue ends a job as a cancel does: said as what it is) */
			log_job(LOG_NOTICE, j->rec.id, j->rec.user, "%s: terminating it",
			        j->rec.requeue && a[k].why == KILL_CANCELLED ? "to be queued again" :
			        kill_words[a[k].why < 3 ? a[k].why : 0]);
			j->rec.kill_why = 1 + a[k].why;
			j->rec.hold_end = a[k].t;
			drive_store(d, j, kill_words[a[k].why < 3 ? a[k].why : 0]);
			drive_kill(d, j, a[k].t);
			break;
		case SA_BROKEN:
			if (!announce_later(d, j, &a[k], now))	/* (the turn's time: 100,000 at once) */
				guarantee_broken(d, j, &a[k], now);
			break;
		}
	}
	sched_clear_actions(d->sched);
}

/* The plan moved queued jobs earlier (compression): keep the store's
 * guarantees equal to the core's, so a restart restores these. */
static int sync_guarantee(const struct sched_job_info *i, void *arg)
{
	struct daemon *d = arg;
	struct djob *j = jobs_get(d, i->id);

	/* One that waits to be announced broken: announced first if the
	 * core has moved it on since (else the announcement says it all). */
	if (j && j->announce_at && d->announce[j->announce_at - 1].a.t == i->guarantee)
		return 0;
	if (j)
		drive_announce_now(d, j);
	if (j && j->rec.guarantee != i->guarantee) {
		j->rec.guarantee = i->guarantee;
		if (j->rec.first_guarantee == BF_NEVER)
			j->rec.first_guarantee = i->guarantee;
		drive_store(d, j, NULL);
	}
	return 0;
}

/* Only the jobs whose guarantee the core changed: a slice of compression
 * moves a few hundred of 100,000 queued. */
static void sync_guarantees(struct daemon *d)
{
	sched_drain_moved(d->sched, sync_guarantee, d);
}

/* Split a NUL-separated blob into an array (pointers into the blob). */
static const char **split_blob(const char *blob, size_t len, uint32_t *count)
{
	uint32_t n = 0, k = 0;
	const char **v;

	for (size_t i = 0; i < len; i++)
		n += blob[i] == 0;
	if (!(v = calloc(n + 1, sizeof *v)))
		return NULL;
	for (size_t i = 0; i < len && k < n; i += strlen(blob + i) + 1)
		v[k++] = blob + i;
	*count = k;
	return v;
}

static void job_failed(struct daemon *d, struct djob *j, const char *why);

bool drive_spool_ok(struct daemon *d)
{
	bool was_intact = !d->spool.gone;

	if (spool_intact(&d->spool))
		return true;
	if (was_intact)
		log_err("the spool %s was removed or replaced while the daemon ran: it takes no new "
		          "jobs, starts none, and a job whose end it cannot read is marked lost "
		          "(never run again); restart it once the spool is in order", d->spool.dir);
	return false;
}

/* Fork the supervisor of a job the pass started (after the commit). */
static void start_job(struct daemon *d, struct djob *j)
{
	char script[700], hosts[700], out[4200], err[300], ename[600];
	/* An array's elements share its spooled script and arguments. */
	struct darray *a = j->rec.array_id ? arrays_get(d, j->rec.array_id) : NULL;
	uint64_t dir = j->rec.array_id ? j->rec.array_id : j->rec.id;
	uint32_t n = sched_job_nodes(d->sched, j->rec.id, NULL, 0), *idx = NULL, k;
	const char **names = NULL, **argv = NULL, **env = NULL, **launch = NULL;
	struct runner_job rj;
	struct runner_cgroup cg;
	bool started;

	j->start_pending = false;
	snprintf(script, sizeof script, "%s/%" PRIu64 "/script", d->spool.jobs_dir, dir);
	if (j->rec.array_id)
		snprintf(hosts, sizeof hosts, "%s/%" PRIu64 "/hostfile.%" PRIu64, d->spool.jobs_dir,
		         dir, j->rec.id);
	else
		snprintf(hosts, sizeof hosts, "%s/%" PRIu64 "/hostfile", d->spool.jobs_dir, dir);
	idx = malloc((n ? n : 1) * sizeof *idx);
	names = malloc((n ? n : 1) * sizeof *names);
	launch = calloc(d->nlaunch + 1, sizeof *launch);
	rj = (struct runner_job){
		.id = j->rec.id, .uid = j->rec.uid, .gid = j->rec.gid, .as_owner = d->root,
		.user = j->rec.user, .name = j->rec.name, .script = script, .cwd = j->rec.cwd,
		.out = jobs_out_path(&j->rec, out, sizeof out),
		.hostfile = hosts, .status_dir = d->spool.status_dir, .nnodes = n,
		.has_umask = j->rec.has_umask, .umask = (mode_t)j->rec.umask,
		.array_id = j->rec.array_id, .array_index = j->rec.array_index,
	};
	rj.err = j->rec.err ? j->rec.err : rj.out;
	if (j->rec.array_id)
		rj.name = arrays_element_name(&j->rec, ename, sizeof ename);
	if (j->rec.array_id && !a) {
		job_failed(d, j, "not started: its array's arguments are not known");
		goto out;
	}
	if (!drive_spool_ok(d)) {
		job_failed(d, j, "not started: the spool was removed before it could start");
		goto out;
	}
	argv = split_blob(a ? a->argv : j->rec.argv ? j->rec.argv : "",
	                  a ? a->argv_len : j->rec.argv_len, &rj.argc);
	env = split_blob(a ? a->env : j->rec.env ? j->rec.env : "", a ? a->env_len : j->rec.env_len,
	                 &rj.envc);
	if (!idx || !names || !launch || !argv || !env) {
		job_failed(d, j, "out of memory starting the job");
		goto out;
	}
	sched_job_nodes(d->sched, j->rec.id, idx, n);
	for (k = 0; k < n; k++)
		names[k] = d->node_names[idx[k]];
	/* The launch prefix runs the script on the first node: {node} in it
	 * stands for that node's name. */
	for (k = 0; k < d->nlaunch; k++)
		launch[k] = strcmp(d->launch[k], "{node}") == 0 && n ? names[0] : d->launch[k];
	rj.nodes = names;
	rj.argv = argv;
	rj.env = env;
	rj.launch = d->nlaunch ? launch : NULL;
	rj.nlaunch = d->nlaunch;
	/* On a cluster the job runs on its nodes, contained there by their
	 * node sides, which enforce its limit too. */
	rj.remote = d->o.remote;
	rj.term_at = j->rec.start != BF_NEVER ? j->rec.start + j->rec.estimate : BF_NEVER;
	rj.grace = d->o.kill_grace;
	rj.cgroup = !rj.remote && contain_job(d, j->rec.id, j->rec.user, &cg) == 0 ? &cg : NULL;
	started = runner_start(&rj, &j->sup, err, sizeof err) == 0;
	if (rj.cgroup)
		close(cg.dir_fd);	/* the supervisor has its own */
	if (!started) {
		cg_job_kill_remove(&d->cg, j->rec.id);	/* made for nothing */
		job_failed(d, j, err);
		goto out;
	}
	j->rec.sup_pid = j->sup.pid;
	j->rec.sup_start = j->sup.start_ticks;
	j->dirty = true;	/* the spool's record has it already: no commit needed now */
	touch(d, j->rec.id);
	log_job(LOG_NOTICE, j->rec.id, j->rec.user, "started on %s (%u node%s)",
	        j->rec.node_list ? j->rec.node_list : "?", n, n == 1 ? "" : "s");
	if (drive_watch(d, j) < 0)
		log_job(LOG_WARNING, j->rec.id, j->rec.user, "cannot watch its supervisor: %s",
		        strerror(errno));
	if (j->rec.kill_why)
		drive_kill(d, j, BF_NEVER);	/* cancelled while it was being started */
out:
	free(idx);
	free(names);
	free(argv);
	free(env);
	free(launch);
}

/* A job that will not run after all: end it in the core and the store. */
static void job_failed(struct daemon *d, struct djob *j, const char *why)
{
	bf_time now = daemon_now(d);

	log_job(LOG_WARNING, j->rec.id, j->rec.user, "failed: %s", why);
	forecast_stale(d);
	if (sched_end(d->sched, now, j->rec.id, END_EXITED) < 0)
		sched_cancel(d->sched, now, j->rec.id);
	j->rec.state = ST_FAILED;
	j->rec.end = now;
	jobs_set_str(j, JS_REASON, why, strlen(why));
	drive_store(d, j, why);
	drive_want_commit(d);
}

void drive_kill_orphans(struct daemon *d, struct djob *j, pid_t sup_pid, int64_t sup_start)
{
	int n = runner_kill_orphans(sup_pid, sup_start, d->root ? (uid_t)j->rec.uid : getuid(),
	                            j->rec.id);

	n += cg_job_kill_remove(&d->cg, j->rec.id);	/* all of them, where it has a cgroup */

	if (n > 0)
		log_job(LOG_WARNING, j->rec.id, j->rec.user,
		        "its supervisor is gone; killed %d process%s it left running", n,
		        n == 1 ? "" : "es");
}

enum store_state drive_end_state(int kill_why, int wstatus)
{
	switch (kill_why) {
	case 0: return store_state_of_exit(wstatus);
	case 1 + KILL_OVERRUN: return ST_KILLED;
	case 1 + KILL_CANCELLED: return ST_CANCELLED;
	default: return ST_FAILED;	/* its node failed (or a kill this daemon does not know) */
	}
}

void drive_log_end(const struct djob *j, const char *what)
{
	char ran[64] = "?", why[600] = "";
	int w = j->rec.exit_status;
	/* A job killed at its limit or cancelled ended as asked, and one that
	 * exited non-zero is its owner's matter: a notice. A failure is the
	 * daemon's or a node's: a warning. */
	int prio = j->rec.state == ST_FAILED ? LOG_WARNING : LOG_NOTICE;

	if (j->rec.start != BF_NEVER && j->rec.end >= j->rec.start)
		duration_format(j->rec.end - j->rec.start, ran, sizeof ran);
	if (j->rec.reason)
		snprintf(why, sizeof why, ": %s", j->rec.reason);
	if (WIFSIGNALED(w))
		log_job(prio, j->rec.id, j->rec.user, "%s: %s, killed by signal %d, ran %s%s", what,
		        store_state_name(j->rec.state), WTERMSIG(w), ran, why);
	else
		log_job(prio, j->rec.id, j->rec.user, "%s: %s, exit %d, ran %s%s", what,
		        store_state_name(j->rec.state), WEXITSTATUS(w), ran, why);
}

/* bctl requeue: the run the operator ended is over; the job queues again
 * (see jobs_requeue_reset). */
static void requeue(struct daemon *d, struct djob *j, bf_time now, enum sched_end_how how,
                    int wstatus)
{
	struct sched_job_info info;
	char st[64];
	int rc;

	if ((rc = sched_end(d->sched, now, j->rec.id, how)) < 0)
		log_job(LOG_WARNING, j->rec.id, j->rec.user, "end: %s", sched_strerror(rc));
	if (WIFSIGNALED(wstatus))
		snprintf(st, sizeof st, "killed by signal %d", WTERMSIG(wstatus));
	else
		snprintf(st, sizeof st, "exit %d", WEXITSTATUS(wstatus));
	jobs_requeue_reset(d, j, now);
	if ((rc = sched_submit_as(d->sched, now, j->rec.id, j->rec.nodes, j->rec.estimate,
	                          j->rec.uid)) < 0) {
		job_failed(d, j, "requeued, but it could not be queued again");
		return;
	}
	if (sched_job_info(d->sched, j->rec.id, &info) == SCHED_OK)
		j->rec.guarantee = j->rec.first_guarantee = info.guarantee;
	log_job(LOG_NOTICE, j->rec.id, j->rec.user, "ended (%s) and queued again (bctl requeue)",
	        st);
	drive_store(d, j, "queued again (requeued)");
	drive_want_commit(d);
}

/* Its supervisor found no room in the spool and never forked it: not
 * lost, but queued again, held until the disk has room (reserve.c then
 * releases it), so that the next pass does not start it into the same
 * full disk. (After a restart meanwhile it stays held: bresume.) */
static void not_started(struct daemon *d, struct djob *j, bf_time now)
{
	const char *why = "not started: no room in the spool; held until space returns, then "
	                  "queued again";
	int rc;

	if ((rc = sched_end(d->sched, now, j->rec.id, END_EXITED)) < 0)
		log_job(LOG_WARNING, j->rec.id, j->rec.user, "end: %s", sched_strerror(rc));
	jobs_requeue_reset(d, j, now);
	j->rec.held = true;
	j->disk_held = true;
	reserve_release(d, "a job's supervisor found no room in the spool");
	log_job(LOG_WARNING, j->rec.id, j->rec.user, "%s", why);
	drive_store(d, j, why);
	drive_want_commit(d);
}

/* A node a cluster job's supervisor recorded as lost: down. */
static void lost_node(const char *node, const char *why, void *arg)
{
	struct daemon *d = arg;

	d->hooks.node_lost(d, node, why, false);
}

/* The supervisor ended: the job is over. */
static void sup_cb(evutil_socket_t fd, short what, void *arg)
{
	struct djob *j = arg;
	struct daemon *d = j->daemon;
	char reason[512] = "", detail[600];
	int wstatus = 0, rc, sup_status;
	bf_time end = BF_NEVER, now;
	enum sched_end_how how = END_EXITED;
	bool recorded;

	(void)fd;
	(void)what;
	event_free(j->sup_ev);
	j->sup_ev = NULL;
	if (j->grace_ev)
		evtimer_del(j->grace_ev);
	rc = runner_collect(d->spool.status_dir, j->rec.id, &wstatus, &end, reason, sizeof reason);
	recorded = rc == 1;
	if (rc != 1)	/* before the reap: the zombie keeps its pid ours */
		drive_kill_orphans(d, j, j->sup.pid, j->sup.start_ticks);
	sup_status = runner_reap(&j->sup);
	now = daemon_now(d);
	if (rc == 0 && !j->rec.kill_why && sup_status >= 0 && WIFEXITED(sup_status) &&
	    WEXITSTATUS(sup_status) == RUNNER_EXIT_UNSTARTED) {
		forecast_stale(d);
		not_started(d, j, now);
		return;
	}
	/* A cluster job's node sides end it at its limit by themselves (the
	 * daemon was down then, or its TERM had not reached them yet). */
	if (!j->rec.kill_why && recorded &&
	    runner_collect_at_limit(d->spool.status_dir, j->rec.id) == 2)
		j->rec.kill_why = 1 + KILL_OVERRUN;
	switch (j->rec.kill_why) {
	case 1 + KILL_OVERRUN: how = END_KILLED; break;
	case 1 + KILL_CANCELLED: how = END_CANCELLED; break;
	case 1 + KILL_NODE_FAILED: how = END_NODE_FAILED; break;
	default: break;
	}
	j->rec.state = drive_end_state(j->rec.kill_why, wstatus);
	if (rc != 1) {
		/* Its fate is unknown: it may have run to the end. Lost, said so,
		 * and never run again. */
		snprintf(reason, sizeof reason, "%s", !drive_spool_ok(d) ?
		         "lost: the spool was removed while it ran; its end and exit status are unknown" :
		         rc == 0 ? "lost: its supervisor ended without recording the job's end" :
		         "lost: its supervisor's record is unreadable");
		j->rec.state = ST_FAILED;
	} else if (reason[0]) {
		j->rec.state = ST_FAILED;	/* it could not start */
	}
	forecast_stale(d);	/* the plan changes */
	if (j->rec.requeue && recorded && !reason[0]) {
		requeue(d, j, now, how, wstatus);
		/* (its nodes are free now: one it lost while ending goes down) */
		runner_collect_down(d->spool.status_dir, j->rec.id, lost_node, d);
		return;
	}
	if ((rc = sched_end(d->sched, now, j->rec.id, how)) < 0)
		log_job(LOG_WARNING, j->rec.id, j->rec.user, "end: %s", sched_strerror(rc));
	if (recorded)	/* its nodes are free: those it lost go down */
		runner_collect_down(d->spool.status_dir, j->rec.id, lost_node, d);
	j->rec.end = end != BF_NEVER ? end : now;
	j->rec.has_exit = true;
	j->rec.exit_status = wstatus;
	contain_usage(d, j);
	j->rec.sup_pid = j->rec.sup_start = 0;
	if (reason[0])
		jobs_set_str(j, JS_REASON, reason, strlen(reason));
	if (WIFSIGNALED(wstatus))
		snprintf(detail, sizeof detail, "%s, killed by signal %d%s%s",
		         store_state_name(j->rec.state), WTERMSIG(wstatus), reason[0] ? ": " : "", reason);
	else
		snprintf(detail, sizeof detail, "%s, exit %d%s%s", store_state_name(j->rec.state),
		         WEXITSTATUS(wstatus), reason[0] ? ": " : "", reason);
	drive_store(d, j, detail);
	drive_log_end(j, "ended");
	drive_want_commit(d);
}

int drive_watch(struct daemon *d, struct djob *j)
{
	j->daemon = d;
	j->sup_ev = event_new(d->base, j->sup.pidfd, EV_READ, sup_cb, j);
	return j->sup_ev && event_add(j->sup_ev, NULL) == 0 ? 0 : -1;
}

/* Files of ended jobs removed a turn: a job's spool directory and status
 * files are a dozen file-system calls (~250 us), and one bkill can end
 * 4,096 jobs. Removing them later is safe: ids are never used again, and
 * a restart sweeps whatever a stop left behind. */
#define REAP_PER_TURN 32

static void remove_files(struct daemon *d, uint64_t id)
{
	runner_forget(d->spool.status_dir, id);
	/* (an array's directory holds its script while any element lives) */
	if (!arrays_get(d, id))
		spool_job_remove(&d->spool, id);
}

static void reap_later(struct daemon *d, uint64_t id)
{
	if (d->nreap == d->reap_cap && d->reap_head > 0) {
		/* Those done leave the front (ends that outpace the removals
		 * would otherwise grow the list for ever). */
		memmove(d->reap, d->reap + d->reap_head,
		        (d->nreap - d->reap_head) * sizeof *d->reap);
		d->nreap -= d->reap_head;
		d->reap_head = 0;
	}
	if (d->nreap == d->reap_cap) {
		uint32_t cap = d->reap_cap ? 2 * d->reap_cap : 256;
		uint64_t *r = realloc(d->reap, cap * sizeof *r);

		if (!r) {	/* no room to remember it: now, then */
			remove_files(d, id);
			return;
		}
		d->reap = r;
		d->reap_cap = cap;
	}
	d->reap[d->nreap++] = id;
}

static void reap_some(struct daemon *d)
{
	for (uint32_t k = 0; k < REAP_PER_TURN && d->reap_head < d->nreap; k++)
		remove_files(d, d->reap[d->reap_head++]);
	if (d->reap_head < d->nreap)
		drive_next_turn(d);
}

/* What a turn's passes did, for log_level debug. */
static void debug_slices(struct daemon *d, const struct sched_stats *was, uint32_t calls,
                         bf_time took)
{
	const struct sched_stats *st = sched_get_stats(d->sched);

	log_debug("pass: %u call%s in %.3f ms; %" PRIu64 " started (%" PRIu64 " backfilled), "
	          "%" PRIu64 " moved earlier, %" PRIu64 " broken; %u queued",
	          calls, calls == 1 ? "" : "s", (double)took / 1000.0, st->started - was->started,
	          st->backfilled - was->backfilled, st->reanchors - was->reanchors,
	          st->broken - was->broken, sched_queue_len(d->sched));
}

/* The core's passes for this turn: slices of its work (a settling
 * compression, placing again) until none is left, the turn made
 * turn_calls of them, or SCHED_LIVE_TURN has passed (see sched.h). */
static void run_slices(struct daemon *d, bf_time now)
{
	bf_time t0 = clock_monotonic();
	struct sched_stats before = *sched_get_stats(d->sched);
	uint32_t k;
	int rc;

	for (k = 1;; k++) {
		if ((rc = sched_run(d->sched, now)) < 0) {
			log_err("scheduling pass: %s", sched_strerror(rc));
			return;
		}
		if (k >= d->turn_calls || sched_next_wakeup(d->sched) > now ||
		    clock_monotonic() - t0 >= SCHED_LIVE_TURN)
			break;
	}
	if (log_debugging())
		debug_slices(d, &before, k, clock_monotonic() - t0);
}

/* Say how long placing again took, once it is over (it began at an
 * event before this turn: the turn's pass placed the next slice). */
static void note_placing(struct daemon *d, bf_time now)
{
	const struct sched_stats *st = sched_get_stats(d->sched);

	if (sched_placing(d->sched)) {
		if (!d->placing_turn) {
			d->placing_turn = d->turns;
			d->placing_since = now;
		}
		return;
	}
	if (d->placing_turn) {
		log_info("placed again: %" PRIu64 " queued jobs in %" PRIu64 " loop turns (%.1f ms), "
		         "clients answered between them", st->replans - d->placing_replans,
		         d->turns - d->placing_turn + 1, (double)(now - d->placing_since) / 1e3);
		d->placing_turn = 0;
	}
	d->placing_replans = st->replans;	/* (replans are counted from here) */
}

/* ---- the spool's flushes (submit.c, syncer.h) ---- */

/* The write-ahead log is checkpointed on the syncer's thread once a
 * commit leaves it this long (SQLite's own default, 4 MiB of pages). */
#define CHECKPOINT_PAGES 1000

/* A batch's flush is done: its jobs are admitted, or refused if it failed
 * (their scripts may not be on disk: an acknowledged job would be lost in
 * a crash). */
static void flushed(struct daemon *d, struct pending_sub *batch, int err)
{
	char why[300];

	if (!err) {
		d->hooks.admit(d, batch, NULL);	/* (and asks for a commit) */
		return;
	}
	log_err("syncing the spool: %s; the submissions it held are refused", strerror(err));
	snprintf(why, sizeof why, "the daemon could not make the script durable (syncing its "
	         "spool: %s); submit again", strerror(err));
	d->hooks.admit(d, batch, why);
}

static void synced(void *arg, unsigned what, int err)
{
	struct daemon *d = arg;

	if (what == SYNC_CHECKPOINT) {
		if (err)
			log_warnx("checkpointing the store: %s", store_ckpt_error(d->ckpt));
		return;
	}
	flushed(d, take_syncing(d), err);
}

static void want_checkpoint(void *arg)
{
	struct daemon *d = arg;

	if (d->syncer)
		syncer_checkpoint(d->syncer);
}

/* The thread, at the first flush: not before, as a detach keeps none. */
static struct syncer *syncer_of(struct daemon *d)
{
	char err[300];

	if (d->syncer_tried)
		return d->syncer;
	d->syncer_tried = true;
	if (!(d->ckpt = store_ckpt_open(d->store,
	                                (int)failpoint_or(FP_CHECKPOINT_PAGES, CHECKPOINT_PAGES),
	                                want_checkpoint, d, err, sizeof err)))
		log_warnx("checkpoints of the store stay in the loop: %s", err);
	if (!(d->syncer = syncer_new(d->base, synced, d, d->ckpt ? store_checkpoint : NULL,
	                             d->ckpt))) {
		log_warn("flushing the spool in the loop: no thread for it");
		store_ckpt_close(d->store, d->ckpt);
		d->ckpt = NULL;
	}
	return d->syncer;
}

/* The scripts written since the last flush began go into the next, on
 * the syncer's thread, while the loop serves on: their jobs are admitted
 * when it ends (synced). One flush a batch, syncing each of its jobs'
 * scripts and directories (spool_jobs_sync), not the spool's whole file
 * system: another user writing a lot there (syncfs would wait for all of
 * it) does not slow anyone's submission. A stopping daemon (or one
 * without the thread) flushes in the loop and admits them now, before the
 * pass and the commit. */
static void flush_spool(struct daemon *d)
{
	struct pending_sub *batch;
	struct syncer *s;
	uint64_t *ids;
	size_t n = 0;
	int e;

	if (!d->spool_dirty && !d->syncing)
		return;
	if (!d->stopping && (s = syncer_of(d))) {
		if (!d->spool_dirty)
			return;
		if (!(ids = d->hooks.submission_ids(d->unsynced, &n))) {
			flushed(d, take_unsynced(d), ENOMEM);
			return;
		}
		if (syncer_spool(s, d->spool.jobs_fd, ids, n))
			d->syncing = take_unsynced(d);
		else
			free(ids);	/* one is under way: asked again after it */
		return;
	}
	if (d->syncer)
		syncer_spool_wait(d->syncer);	/* admits the flush under way's */
	if (!d->spool_dirty)
		return;
	ids = d->hooks.submission_ids(d->unsynced, &n);
	batch = take_unsynced(d);
	e = ids ? spool_jobs_sync(d->spool.jobs_fd, ids, n) : ENOMEM;
	free(ids);
	flushed(d, batch, e);
}

/* Jobs that started or ended this turn (touched): the jobs waiting on
 * them are looked at (depend.c), and released or cancelled. Returns how
 * many were. */
static uint32_t deps_turn(struct daemon *d, bf_time now)
{
	uint32_t n = 0;

	if (!d->depidx)
		return 0;	/* (nothing waits on anything) */
	/* (a cancel touches the job cancelled: the count grows meanwhile) */
	for (uint32_t k = 0; k < d->ntouched; k++) {
		struct djob *j = jobs_get(d, d->touched[k]);

		if (j && j->rec.state != ST_QUEUED)
			n += d->hooks.deps_changed(d, j->rec.id, now);
	}
	return n;
}

void drive_commit(struct daemon *d)
{
	bf_time now = daemon_now(d);
	int rc;

	d->turns++;
	d->writes_again = 0;
	if (d->grace_changed) {
		/* The restore used the stored plan's grace; from now on the
		 * configured one, for new jobs. */
		char s[32];

		d->grace_changed = false;
		snprintf(s, sizeof s, "%lld", (long long)d->o.kill_grace);
		if (sched_set_kill_grace(d->sched, d->o.kill_grace) == 0 &&
		    (store_begin(d->store) < 0 || store_meta_set(d->store, "kill_grace_us", s) < 0))
			drive_store_failed(d);
	}
	if (d->policy_changed) {
		/* A reload changed the policy: the guarantees it drops come
		 * out as SA_BROKEN (BROKEN_POLICY), announced below. */
		d->policy_changed = false;
		forecast_stale(d);
		if ((rc = sched_set_policy(d->sched, now, d->o.policy)) < 0) {
			log_warnx("switching to %s: %s; trying again at the next pass",
			          sched_policy_name(d->o.policy), sched_strerror(rc));
			d->policy_changed = true;
		} else {
			/* Stored once every guarantee it broke is announced
			 * (announce_some): a restart after a crash before then
			 * switches again from the stored policy, and tells them. */
			d->policy_unstored = true;
			log_info("the policy is now %s", sched_policy_name(d->o.policy));
		}
	}
	flush_spool(d);
	/* Ends before the pass: what they release may start in it. */
	deps_turn(d, now);
	run_slices(d, now);
	note_placing(d, now);
	take_actions(d, now);
	/* Starts after it (started()): what they release, at the next turn. */
	if (deps_turn(d, now))
		drive_next_turn(d);
	sync_guarantees(d);
	announce_some(d);
	prune_ended(d, now);
	if (d->over_budget && (store_begin(d->store) < 0 || usage_prune(d) < 0))
		drive_store_failed(d);
	if (forecast_turn(d))
		drive_next_turn(d);
	if (store_in_txn(d->store)) {
		for (uint32_t k = 0; k < d->ntouched; k++) {
			struct djob *j = jobs_get(d, d->touched[k]);

			if (j && j->dirty)
				drive_store(d, j, NULL);
		}
		/* (A full disk: written again once, then committed again; a
		 * second failure stops the daemon.) */
		while (store_commit(d->store) < 0)
			drive_store_failed(d);
		d->commits++;
		for (uint32_t k = 0; k < d->ntouched; k++) {
			struct djob *j = jobs_get(d, d->touched[k]);

			if (j)
				j->args_unstored = false;	/* (durable now) */
		}
	}
	d->turn_cancels = 0;	/* (handlers.c: the next slices go in the next commit) */
	/* Durable now: answer, start what the pass chose, forget the ended.
	 * Only the jobs this pass touched can need the last two. (Answers
	 * first: a submission's log line comes before its start's.) */
	d->hooks.answer_waiting(d, true);
	for (uint32_t k = 0; k < d->ntouched; k++) {
		struct djob *j = jobs_get(d, d->touched[k]);

		if (j && j->start_pending)
			start_job(d, j);
	}
	/* Ended jobs leave memory once their end is durable (a job that failed
	 * to start just now is in a new transaction: the next commit keeps it
	 * touched). */
	if (!store_in_txn(d->store)) {
		uint32_t n = d->ntouched;

		d->ntouched = 0;
		for (uint32_t k = 0; k < n; k++) {
			struct djob *j = jobs_get(d, d->touched[k]);

			if (j && !store_state_live(j->rec.state)) {
				reap_later(d, j->rec.id);
				jobs_remove(d, j);
			} else if (j && j->dirty) {
				touch(d, j->rec.id);	/* its supervisor's pid, next commit */
			}
		}
	}
	reap_some(d);
	drive_arm_tick(d);
	sysd_status(d);	/* systemd's STATUS=, if the counts changed */
}
