/* The live daemon: one process, one libevent loop. The scheduler core is
 * driven here with the wall clock and real process exits, exactly as the
 * replay drives it with a virtual clock.
 *
 * A request that changes state is handled in three steps: the handler
 * changes the core and writes the store (inside the open transaction);
 * the commit callback, run once per loop pass for all such requests,
 * runs the scheduling pass, commits (one fsync for the whole batch: group
 * commit), and only then answers the clients and starts the jobs the pass
 * chose. So nothing is acknowledged or started before it is durable. */
#ifndef BF_SERVER_H
#define BF_SERVER_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "sys/cgroup.h"
#include "forecast.h"
#include "idmap.h"
#include "proto.h"
#include "sys/runner.h"
#include "sched.h"
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
	char *owned[10];		/* user, name, cwd, out, err, argv, env, node_list,
					 * reason, broken (JS_*) */
	struct runner_proc sup;		/* pid 0 until it starts */
	struct event *sup_ev;		/* its supervisor's pidfd */
	struct event *grace_ev;		/* hard kill after the grace */
	bool start_pending;		/* chosen by the pass, supervisor not yet forked */
	uint32_t announce_at;		/* 1 + its broken guarantee still to announce
					 * in d->announce, or 0 (drive.c) */
	bool dirty;			/* row to write at the next commit */
	bool ended_counted;		/* its end is in its user's ended bytes (usage.c) */
	bool disk_held;			/* held for want of room in the spool (drive.c) */
	bool args_unstored;		/* its job_args row is not committed yet (submit.c) */
	uint64_t cost;			/* usage.c: its bytes while live */
	/* Its predicted start in the forecasts of each parity (forecast.c). */
	bf_time pred[2];
	uint64_t pred_round[2];
	struct daemon *daemon;		/* for the event callbacks */
};

/* A node an operator took out of service (bctl(8)); state NA_UP: in
 * service, no reason. Stored (store_node) while not NA_UP. */
enum node_admin_state { NA_UP = 0, NA_DRAIN = 1, NA_DOWN = 2 };
struct node_admin {
	uint8_t state;
	bf_time since;
	char *reason, *by;		/* owned */
};

struct conn;
struct conn_limits;
struct ratelimit;

struct daemon {
	struct serve_opts o;
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
	/* Smaller slices the tests ask for (BACKFILLD_TEST_*, server_init);
	 * 0: none. */
	struct {
		uint32_t place_slice, forecast_chunk, list_rows, announce_slice;
		uint32_t turn_gap_ms;	/* between the turns of sliced work */
		uint32_t checkpoint_pages;	/* a shorter log between checkpoints */
		uint32_t reserve_watch_s;	/* the disk reserve's watch, seconds */
		uint32_t no_tails;	/* no room held past the store's ends */
	} test;
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
};

/* ---- server.c ---- */
int  server_init(struct daemon *d, const struct serve_opts *o, char *err, size_t errlen);
int  server_run(struct daemon *d);
void server_free(struct daemon *d);
bf_time server_now(struct daemon *d);
/* ---- reload.c: SIGHUP ---- */
void reload_config(struct daemon *d);

/* ---- nodes.c: the partition ---- */
/* A node's index by its name, or -1. */
int64_t server_node_index(const struct daemon *d, const char *name);
/* The partition from --nodes / nodes: "N" (node001..) or a node list. */
int  nodes_init(struct daemon *d, const char *spec, char *err, size_t errlen);
/* Against the partition the database remembers: the same, or grown (then
 * recorded); fewer nodes is another partition's database. */
int  nodes_check_stored(struct daemon *d, char *err, size_t errlen);
/* The nodes an operator put in `state` (NA_DRAIN, NA_DOWN), compact and
 * malloc'ed ("" for none); NULL if memory ran out. */
char *nodes_in(const struct daemon *d, uint8_t state);
/* Grow the running partition to spec (a reload): the new nodes go to the
 * core and to the store's record (in the open transaction). Returns how
 * many were added, or -1 (err says why: a node missing from spec, no
 * memory); nothing changed then. */
int  nodes_grow(struct daemon *d, const char *spec, bf_time now, char *err, size_t errlen);

/* ---- jobs.c: the table of live jobs ---- */
struct djob *jobs_get(struct daemon *d, uint64_t id);
/* A new live job from its row (strings copied); NULL if memory ran out. */
struct djob *jobs_add(struct daemon *d, const struct store_job *rec);
void jobs_remove(struct daemon *d, struct djob *j);
/* Replace one owned string field (JS_*, as in owned[]). -1 on no memory. */
int  jobs_set_str(struct djob *j, int field, const char *v, size_t len);
enum { JS_USER, JS_NAME, JS_CWD, JS_OUT, JS_ERR, JS_ARGV, JS_ENV, JS_NODES, JS_REASON,
       JS_BROKEN, JS_NFIELDS };
/* Fill a protocol record for bq; `detail` adds the owner-only fields. */
void jobs_to_proto(const struct store_job *r, bool detail, bf_time predicted,
                   struct proto_job *out);
/* A job that ran is queued again (bctl requeue, once it has ended): its
 * run forgotten (fields and the supervisor's record), a new place in
 * arrival order. The caller gives it to the core and stores it. */
void jobs_requeue_reset(struct daemon *d, struct djob *j, bf_time now);
/* An -o or -e path with LSF's %J (the job id), %I (the array index: 0,
 * there are no arrays) and %% (a %) replaced; malloc'ed, NULL for NULL or
 * no memory. */
char *jobs_expand_id(const char *tmpl, uint64_t id);
/* Where a job's output goes: its -o, or bsub-ID.out in its working
 * directory (formatted into buf); its errors go there too unless -e. */
const char *jobs_out_path(const struct store_job *r, char *buf, size_t len);
/* The compact list of a running job's nodes from the core; NULL on no memory. */
char *jobs_node_list(struct daemon *d, uint64_t id);

/* ---- drive.c: the scheduler driver ---- */
int  drive_init(struct daemon *d);
/* Ask for the commit callback in this loop pass (a request changed state). */
void drive_want_commit(struct daemon *d);
/* Another turn at the next loop pass, after the loop has read the other
 * clients (drive_want_commit from inside a commit would run the commit
 * again at once): for work done a slice a turn. */
void drive_next_turn(struct daemon *d);
/* Announce the job's broken guarantee now if it still waits its turn:
 * before anything changes the job. */
void drive_announce_now(struct daemon *d, struct djob *j);
/* Jobs still wait for a place (a lost node took reservations back), or
 * broken guarantees to be told: an answer that shows guarantees waits for
 * the last slice, so none shows half a plan. */
/* The longest such an answer waits (a listing, bq -l, bsub's answer):
 * then it shows what there is. No ordinary user unsettles the plan (an
 * operator's move, a lost node, a switch of policy do), but an answer
 * waits for nothing without a bound. */
#define UNSETTLED_WAIT	((bf_time)2 * BF_SEC)
static inline bool drive_unsettled(const struct daemon *d)
{
	return sched_placing(d->sched) || d->announce_head < d->nannounce;
}
/* Run the pass, commit, then start jobs and answer waiting clients. */
void drive_commit(struct daemon *d);
/* Arm the timer for the core's next wake-up. */
void drive_arm_tick(struct daemon *d);
/* Terminate a job now, and kill it outright a little before the grace is
 * up or before gone_by (the end of its hold in the plan; BF_NEVER: none). */
void drive_kill(struct daemon *d, struct djob *j, bf_time gone_by);
/* A job whose supervisor died without a record: kill what it left. */
void drive_kill_orphans(struct daemon *d, struct djob *j, pid_t sup_pid, int64_t sup_start);
/* Watch a started (or re-found) job's supervisor. */
int  drive_watch(struct daemon *d, struct djob *j);
/* Is the spool still there? Logs once when it is found gone. */
bool drive_spool_ok(struct daemon *d);
/* Arm ev for the monotonic time `due` (now, if past), unless nothing is
 * due or it is armed already; `what` names, in the warning if it cannot
 * be, the unlogged lines that wait (conn.c, ratelimit.c). */
void drive_timer_at(struct event *ev, bf_time due, const char *what);
/* The store failed while serving: refuse the waiting clients and exit 75
 * (a restart reloads what was committed). Returns only after a full disk,
 * once a turn: the reserve given back, the turn's rows written again in a
 * new transaction, which the caller goes on with (reserve.h). */
void drive_store_failed(struct daemon *d);
/* Put a job's row into the open transaction. */
int  drive_store(struct daemon *d, struct djob *j, const char *log_detail);

/* ---- conn.c: the listening socket and connections ---- */
int  conn_listen(struct daemon *d, char *err, size_t errlen);
void conn_close_all(struct daemon *d);
/* Write what is queued for every client now, for at most timeout_ms (the
 * daemon is about to exit and its event loop will not run again). */
void conn_flush_all(struct daemon *d, int timeout_ms);
/* No new connections (a stop): the open ones finish; the loop ends when the
 * last one closes. */
void conn_stop_listening(struct daemon *d);
/* Reply and close; a NULL frame answers nothing. */
void conn_reply(struct conn *c, const struct proto_buf *b);
void conn_error(struct conn *c, enum proto_err code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Hold the reply until the next commit; then build it with the callback. */
void conn_wait_commit(struct conn *c, void (*answer)(struct conn *c), uint64_t job);
/* Hold a read's reply until the pass's commit, then build it: a client is
 * shown only what a restart would restore (a guarantee the core moved in
 * this pass, a job not yet acknowledged), never a state that a kill -9
 * before the commit would take back. */
void conn_wait_durable(struct conn *c, void (*answer)(struct conn *c));
/* The same, answered at the next commit that something else brings (a
 * read that waits for work the loop does a slice per turn: asking for a
 * commit at once, from inside one, would run it again before the loop
 * reads any other client). */
void conn_wait_turn(struct conn *c, void (*answer)(struct conn *c));
/* Answer every connection that waited for this commit (or fail them). */
void conn_answer_waiting(struct daemon *d, bool committed);
uid_t conn_uid(const struct conn *c);
gid_t conn_gid(const struct conn *c);
uint64_t conn_job(const struct conn *c);
struct daemon *conn_daemon(const struct conn *c);
void *conn_ctx(const struct conn *c);
int  conn_set_ctx(struct conn *c, void *ctx, void (*ctx_free)(void *ctx));
/* Forget the context without freeing it (its owner takes it back). */
void conn_drop_ctx(struct conn *c);
/* The request is taken and its answer comes later than the next commit (a
 * submission whose script is being flushed, submit.c): no reading, and no
 * deadline while it waits; the `bytes` it keeps meanwhile are charged to
 * the client's budgets until conn_unpark. */
void conn_park(struct conn *c, size_t bytes);
void conn_unpark(struct conn *c);

/* ---- submit.c: submissions, answered once their scripts are durable ---- */
struct pending_sub;
void submit_request(struct conn *c, const uint8_t *frame, size_t len);
/* Submissions whose scripts are durable now: into the core and the store
 * (acknowledged after the next commit); or, with `fail` (the flush
 * failed: they may not be), refused with it and their scripts removed.
 * The list is freed. */
void submit_admit(struct daemon *d, struct pending_sub *list, const char *fail);
/* The job ids of a list of submissions (malloc'ed, n set), or NULL. */
uint64_t *submit_ids(const struct pending_sub *list, size_t *n);
/* Free a list of submissions never admitted (the daemon exits). */
void submit_drop(struct pending_sub *list);

/* ---- handlers.c ---- */
void handle_request(struct conn *c, enum proto_type type, const uint8_t *frame, size_t len);
/* Root, or a member of the configured admin_group. */
bool handlers_is_admin(const struct conn *c);
/* A local time as bq prints it, rounded up to the second. */
const char *handlers_human_time(bf_time t, char *buf, size_t len);
/* "alice (uid 1000)", for the log. */
void handlers_who(const struct conn *c, char *buf, size_t len);

/* A read request decoded into m (malloc'ed; decoded: the decoder's 0 or
 * -1, with err): kept as the connection's context and answered after
 * the pass's commit (conn_wait_durable), or refused. m NULL: no memory. */
void handlers_wait_read(struct conn *c, void *m, int decoded, const char *err,
                        void (*answer)(struct conn *c));
/* A store_visit that puts the job's owner into *(int64_t *)arg. */
int handlers_final_owner(const struct store_job *r, void *arg);

/* ---- pending.c ---- */
/* Why a queued (or held) job does not run yet, in words, into buf; NULL
 * for a job that is not queued. guarantee: the core's. */
const char *pending_reason(struct daemon *d, const struct djob *j, bf_time guarantee, char *buf,
                           size_t len);

/* ---- jobctl.c: hold and release (PT_JOBCTL) ---- */
void jobctl_request(struct conn *c, const uint8_t *frame, size_t len);
/* Space is free again: release the jobs held for want of it. */
void jobctl_release_disk_held(struct daemon *d);

/* ---- history.c: ended jobs from the store (PT_HISTORY) ---- */
void history_request(struct conn *c, const uint8_t *frame, size_t len);

/* ---- nodectl.c: nodes an operator drains or marks down, bctl status ---- */
void nodectl_request(struct conn *c, const uint8_t *frame, size_t len);	/* PT_NODECTL */
void nodectl_list(struct conn *c, const uint8_t *frame, size_t len);	/* PT_NODELIST */
void nodectl_status(struct conn *c, const uint8_t *frame, size_t len);	/* PT_STATUS */
/* At a restart, after the running jobs: the nodes the store says are
 * drained or down are so again in the core. */
void nodectl_restore(struct daemon *d, bf_time now);
void nodectl_free(struct daemon *d);

/* ---- contain.c: jobs in cgroups (cgroup.h), or process groups ---- */
/* Find the cgroup subtree (--cgroup), or say once why there is none. */
void contain_init(struct daemon *d);
/* A job's cgroup before its start: 0 (rc filled), -1 (process group only;
 * logged). */
int  contain_job(struct daemon *d, uint64_t id, const char *user, struct runner_cgroup *rc);
/* At a restart: remove the cgroups of jobs that are not running. */
void contain_sweep(struct daemon *d);
/* An ended job's CPU time and peak memory from its supervisor's record. */
void contain_usage(struct daemon *d, struct djob *j);

/* ---- restore.c ---- */
int  restore_state(struct daemon *d, char *err, size_t errlen);

#endif
