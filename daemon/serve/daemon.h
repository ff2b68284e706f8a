/* The live daemon's context: struct daemon, which only daemon/serve/ sees
 * (and main.c, which holds the one instance), its options, and the live jobs and nodes it holds (struct djob,
 * struct node_admin). One process, one libevent loop. The scheduler core
 * is driven with the wall clock and real process exits, exactly as the
 * replay drives it with a virtual clock.
 *
 * A request that changes state is handled in three steps: the handler
 * changes the core and writes the store (inside the open transaction);
 * the commit callback, run once per loop pass for all such requests,
 * runs the scheduling pass, commits (one fsync for the whole batch: group
 * commit), and only then answers the clients and starts the jobs the pass
 * chose. So nothing is acknowledged or started before it is durable.
 *
 * Requests flow one way, down the floors of serve/: server (set-up, the
 * loop) -> handlers (the command table) -> one file per request kind
 * (submit, jobctl, history, nodectl) -> peer, conn (replies) -> drive (the
 * pass and the commit) -> forecast, usage, reserve, jobs, nodes -> sys/.
 * What the lower floors must reach above them (answer the clients after a
 * commit, admit submissions whose scripts are durable) goes through the
 * hooks server_init sets once (struct daemon_hooks); conn calls the
 * command table through one of them too. */
#ifndef BF_SERVE_DAEMON_H
#define BF_SERVE_DAEMON_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "idmap.h"
#include "proto.h"
#include "sched.h"
#include "sys/cgroup.h"
#include "sys/clock.h"
#include "sys/runner.h"
#include "sys/settings.h"
#include "sys/spool.h"
#include "sys/store.h"

struct event_base;
struct event;
struct bufferevent;

struct serve_opts {
	const char *socket, *db, *spool;
	const char *nodes;		/* "N" or a node list */
	enum sched_policy policy;
	double alpha;			/* creasy's */
	bf_time kill_grace;
	const char *launch;		/* command prefix, words split on blanks */
	bool foreground;
	const char *cgroup;		/* --cgroup: a cgroup2 directory, "none", or NULL: find it */
	/* ---- from the configuration file (settings.h) ---- */
	const struct runner_remote *remote;	/* execution: ssh (jobs on their nodes), or NULL */
	const char *config;		/* the file read, again on SIGHUP; NULL: none */
	unsigned flags;			/* enum settings_flag: what the command line gave */
	const char *partition_name;	/* "batch" */
	mode_t socket_mode;		/* 0: 0666 as root, else 0600 */
	struct serve_limits lim;	/* what a reload changes live */
};

/* A job the daemon holds in memory: queued or running (final jobs live in
 * the store only). Strings are owned. */
struct djob {
	struct store_job rec;		/* its row; the strings point into `owned` */
	char *owned[12];		/* user, name, cwd, out, err, argv, env, node_list,
					 * reason, broken, depend, depend_ids (JS_*) */
	struct runner_proc sup;		/* pid 0 until it starts */
	struct event *sup_ev;		/* its supervisor's pidfd */
	struct event *grace_ev;		/* hard kill after the grace */
	bool start_pending;		/* chosen by the pass, supervisor not yet forked */
	uint32_t announce_at;		/* 1 + its broken guarantee still to announce
					 * in d->announce, or 0 (drive.c) */
	bool dirty;			/* row to write at the next commit */
	bool ended_counted;		/* its end is in its user's ended bytes (usage.c) */
	bool array_counted;		/* an element's end is in its array's counts */
	bool disk_held;			/* held for want of room in the spool (drive.c) */
	bool args_unstored;		/* its job_args row is not committed yet (submit.c) */
	uint64_t cost;			/* usage.c: its bytes while live */
	/* Its predicted start in the forecasts of each parity (forecast.c). */
	bf_time pred[2];
	uint64_t pred_round[2];
	struct daemon *daemon;		/* for the event callbacks */
	struct djob_dep *dep;		/* its condition (bsub -w), loaded when it
					 * enters the core; NULL: none (depstate.h) */
};

/* A node an operator took out of service (bctl(8)); state NA_UP: in
 * service, no reason. Stored (store_node) while not NA_UP. */
enum node_admin_state { NA_UP = 0, NA_DRAIN = 1, NA_DOWN = 2 };
struct node_admin {
	uint8_t state;
	bf_time since;
	char *reason, *by;		/* owned */
};

struct djob_dep;
struct depidx;
struct darrays;
struct sched_forecast;
/* The forecast's state (forecast.c, forecast.h): predicted starts under
 * EASY and FCFS, made a slice per turn. */
struct forecast {
	struct sched_forecast *run;	/* being made, or the last made (for arrivals) */
	uint64_t round;			/* the number of `run` (1, 2, ...) */
	uint64_t shown;			/* the last complete: what answers show (0: none) */
	bool complete;			/* run is at the queue's tail */
	/* Changes to the queue or the plan (forecast_stale), counted: a
	 * forecast is out of date when the count moved since it began. */
	uint64_t changes, run_changes, shown_changes;
	bf_time began;			/* when run began (server time) */
	bf_time shown_at;		/* and the one shown */
	bf_time done;			/* when run first reached the tail */
	bf_time began_mono, took;	/* how long the last complete one took */
	uint64_t stepped;		/* the loop turn it last planned in */
};

struct conn;
struct conn_limits;
struct ratelimit;
struct pending_sub;	/* submit.c's: a submission whose script is being flushed */

/* The calls that run up the floors, set once by server_init: the drive
 * and the reserve reach what stands above them only through these. */
struct daemon_hooks {
	/* One whole request, to the command table (handlers.c): conn.c
	 * knows no command. */
	void (*dispatch)(struct conn *c, enum proto_type type, const uint8_t *frame, size_t len);
	/* After a commit (committed: durable; false: the store failed),
	 * answer every connection that waited for it (conn.c). */
	void (*answer_waiting)(struct daemon *d, bool committed);
	/* Write what is queued for every client now, for at most
	 * timeout_ms: the daemon is about to exit (conn.c). */
	void (*flush_replies)(struct daemon *d, int timeout_ms);
	/* Submissions whose scripts are durable now, or refused with
	 * `fail`; the list is freed (submit.c). */
	void (*admit)(struct daemon *d, struct pending_sub *list, const char *fail);
	/* The job ids of a list of submissions (malloc'ed, n set), or NULL
	 * (submit.c): what the spool's flush must make durable. */
	uint64_t *(*submission_ids)(const struct pending_sub *list, size_t *n);
	/* Space is free again: release the jobs held for want of it
	 * (jobctl.c; called by the reserve's watch). */
	void (*space_back)(struct daemon *d);
	/* A cluster job's supervisor found one of its nodes lost (ssh
	 * failed, or the link went silent): mark it down, repairing the
	 * guarantees it moves (nodectl.c). */
	void (*node_lost)(struct daemon *d, const char *node, const char *why, bool restoring);
	/* A job started or ended: the jobs waiting on it are looked at
	 * (depend.c); returns how many were released or cancelled. */
	uint32_t (*deps_changed)(struct daemon *d, uint64_t id, bf_time now);
};

struct daemon {
	struct serve_opts o;
	struct daemon_hooks hooks;
	bool root;
	struct event_base *base;
	int listen_fd;
	struct event *listen_ev, *tick_ev, *commit_ev, *sig_ev[3];
	struct event *next_ev;		/* brings another turn (drive_next_turn) */
	bf_time tick_at;
	struct sched *sched;
	struct store *store;
	struct spool spool;

	struct idmap ids;		/* job id -> index in jobs[] */
	struct djob **jobs;
	uint32_t njobs, jobs_cap;
	int64_t next_seq;		/* the next arrival's place (store_job.seq) */
	int64_t top_seq;		/* the last place put first (<= 0) */
	unsigned node_digits;		/* a count's node names: 0 (3 at least), or an
					 * older database's width (nodes.c) */

	char **node_names;		/* index -> name */
	char *partition;		/* all of them, compact (node[001-128]) */
	uint32_t *node_sorted;		/* indices sorted by name, for lookups */
	struct node_admin *nadmin;	/* per node: drained or down by an operator */
	uint32_t nnodes;
	const char **launch;		/* split --launch */
	uint32_t nlaunch;

	struct conn *conns;		/* all open connections */
	uint32_t nconns;
	/* ---- conn.c's limits (what clients can make the daemon hold) ----
	 * Connections per uid and in all (with root's reserve), the bytes of
	 * unfinished requests and unread replies per uid and in all, and the
	 * rate-limited logs of refusals and timeouts: a struct of conn.c's,
	 * made by conn_listen, freed by conn_close_all. */
	struct conn_limits *limits;
	/* ratelimit.h: each user's budgets of changes and of log lines;
	 * made at the first request that needs it, freed by server_free. */
	struct ratelimit *ratelimit;
	bf_time last_now;
	struct forecast fc;		/* predicted starts (EASY/FCFS) */
	uint64_t turns;			/* loop turns that committed (drive_commit) */
	/* Placing again what a lost node (a longer hold, a move to the
	 * front) took back, slices over turns: since which turn and when, and
	 * the core's replans at the last turn before, for the log line at
	 * the end. */
	uint64_t placing_turn, placing_replans;
	bf_time placing_since;
	uint32_t turn_calls;		/* sched_run calls a turn at most (drive_commit) */
	/* Broken guarantees still to announce, a slice a turn from
	 * announce[announce_head] on (drive.c, announce_some): a switch of
	 * policy with 100,000 queued breaks as many, each a log line, a row
	 * and a history entry. A job's own comes out before anything else
	 * changes the job (drive_announce_now). */
	struct announcement {
		struct sched_action a;
		bf_time at;		/* when the core broke it */
	} *announce;
	uint32_t announce_head, nannounce, announce_cap;
	uint64_t announce_turn;		/* the turn the first of them was told */
	bf_time announce_since;		/* and when (monotonic) */
	bool policy_unstored;		/* switched; stored once all is announced */
	uint32_t turn_cancels;		/* jobs cancelled since the last commit */
	/* Jobs stored or started in this pass: what the commit must look at
	 * (not every live job). */
	uint64_t *touched;
	uint32_t ntouched, touched_cap;
	/* Ended jobs whose spool and status files are still to remove, a few
	 * a turn (drive.c, reap_some): from reap[reap_head] on. */
	uint64_t *reap;
	uint32_t reap_head, nreap, reap_cap;
	bool stopping;
	bool spool_dirty;		/* scripts written since the last flush began */
	/* Submissions whose scripts are written (submit.c): those for the
	 * next flush of the spool, and those the flush under way makes
	 * durable; admitted when it ends (drive.c). */
	struct pending_sub *unsynced, **unsynced_tail, *syncing;
	/* The last job id handed out (submit.c): stored with the job when it
	 * is admitted, not before, so a submission costs no commit of its own
	 * while its script is flushed; the restore raises the stored one past
	 * every id the spool shows, so none is handed out twice. */
	uint64_t last_id;
	/* syncer.h: the flushes and the store's checkpoints off the loop,
	 * made at the first submission (after a detach, which keeps no
	 * thread); NULL: in the loop, as a fallback. */
	struct syncer *syncer;
	struct store_ckpt *ckpt;
	bool syncer_tried;
	bool serving;			/* set up: a failed store now means exit 75 */
	int lock_fd[2];			/* held: this daemon's database and spool */
	uint64_t commits;		/* durable commits, reported at the stop */
	struct cg_tree cg;		/* cgroup.h: the jobs' cgroups, or process groups only */
	bool policy_changed;		/* a reload changed o.policy: the next pass switches */
	bool grace_changed;		/* restored with the stored grace: the next pass sets o's */
	struct event *prune_ev;		/* keep_ended: a pass now and then, idle or not */
	bf_time pruned_at;		/* the last removal of old ended jobs */
	uint64_t pruned;		/* removed by the batches of this backlog so far */
	struct sysd *sysd;		/* sd.c: systemd's socket, readiness, watchdog */
	/* usage.c: each user's ended jobs' bytes in the store (uid to a slot
	 * of ended_bytes); over_budget: some user may be over
	 * keep_ended_per_user, for the next commit to look at. */
	struct idmap ended_uids;
	struct ended_use { uint32_t uid; uint64_t bytes; } *ended;
	uint32_t nended, ended_cap;
	bool over_budget;
	/* reserve.c: the disk reserve's files (store's, spool's; -1 none);
	 * full: given back, and no submission until space returns. */
	int reserve_fd[2];
	bool disk_full;
	struct event *reserve_ev;
	int writes_again;		/* drive.c: a turn written again after a full disk */
	struct depidx *depidx;		/* depend.c: who waits on whom (bsub -w) */
	struct darrays *arrays;		/* arrays.c: the live job arrays */
};

/* The wall clock for the core, never going back: a wall clock stepped
 * back (NTP) waits here until it catches up (the core refuses time going
 * backwards). */
static inline bf_time daemon_now(struct daemon *d)
{
	bf_time t = clock_realtime();

	if (t < d->last_now)
		t = d->last_now;
	d->last_now = t;
	return t;
}

#endif
