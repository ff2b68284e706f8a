/* The daemon's durable state in SQLite: every job with every field, each
 * state change, the node allocation (a running job's node list) and the
 * plan (each queued job's guarantee). The only code that touches SQLite.
 *
 * Durability: WAL journal with synchronous=FULL, so a COMMIT returns only
 * once it is on disk. The daemon batches the changes of all requests that
 * arrive together into one transaction (group commit: store_begin, many
 * puts, store_commit) and answers them after the commit. */
#ifndef BF_STORE_H
#define BF_STORE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

/* The numbers are stored: a new state goes at the end, and every final
 * state is above ST_RUNNING (the queries read "state > 1" as ended).
 *
 * ST_EXIT came later: a database of an older daemon keeps its jobs that
 * exited non-zero as ST_DONE (their exit_status tells); they are not
 * rewritten, so that an export of the past (bq --swf) does not change
 * under its reader. An older daemon reads ST_EXIT, unknown to it, as
 * ST_FAILED. */
enum store_state {
	ST_QUEUED = 0,
	ST_RUNNING = 1,
	ST_DONE = 2,		/* exited by itself with 0 */
	ST_KILLED = 3,		/* killed at its time limit */
	ST_CANCELLED = 4,	/* cancelled, queued or running */
	ST_FAILED = 5,		/* could not be started, or lost with a node */
	ST_EXIT = 6,		/* exited by itself non-zero, or a signal the
				 * daemon did not send ended it (LSF's EXIT) */
};
#define ST_NSTATES 7
const char *store_state_name(enum store_state s);
/* Queued and running jobs are live; the rest are final. */
static inline bool store_state_live(enum store_state s) { return s <= ST_RUNNING; }
/* How a job that ended by itself ends, by its wait status: ST_DONE for an
 * exit with 0, else ST_EXIT (an exit code, or a signal of its own or of
 * anyone but the daemon). */
enum store_state store_state_of_exit(int wstatus);

/* One job. Strings may be NULL; times are BF_NEVER when unknown. */
struct store_job {
	uint64_t id;
	/* The order of the queue: arrival (from 0 up), or below 0 for a job
	 * an operator put first (bctl top; the latest lowest), so that the
	 * order survives a restart. */
	int64_t seq;
	uint32_t uid, gid;
	const char *user, *name;
	uint32_t nodes;
	bf_time estimate, submit;
	bf_time queued;		/* when it last joined the queue if not at its
				 * submission (released, requeued); else BF_NEVER */
	enum store_state state;
	bf_time guarantee, first_guarantee;	/* queued: the promised start */
	bf_time start, end;
	bool has_exit;
	int32_t exit_status;	/* as waitpid reports it */
	const char *node_list;	/* compact form, from its start on */
	const char *cwd, *out, *err;
	const char *argv;	/* arguments, each NUL-terminated, back to back */
	size_t argv_len;
	const char *env;	/* NAME=value entries, the same way */
	size_t env_len;
	int64_t sup_pid, sup_start;	/* its supervisor (pid and start time), 0 if none */
	int kill_why;		/* 0, or 1 + enum sched_kill_why once a kill was sent */
	const char *reason;	/* why it failed, if it did */
	bf_time hold_end;	/* running: when the plan gives its nodes away */
	/* Once ended: CPU time (µs) and peak memory (KiB), -1 unknown, each
	 * with its source (enum proto_usage_src: 0 unknown, 1 the job's
	 * cgroup, 2 rusage; see runner.h). */
	int64_t cpu_us, mem_kb;
	int cpu_src, mem_src;
	/* Its guarantee moved later: when, from, to and why, as the last
	 * announcement said it (bq -l); NULL if never. */
	const char *broken;
	bool held;		/* queued, but held (bstop, bctl hold): not in the plan */
	bool requeue;		/* running: queued again once it has ended (bctl requeue) */
	/* The submitter's umask, the job's; unknown (an older client or
	 * database): 022. */
	bool has_umask;
	uint16_t umask;
	/* bsub -w: its condition as the daemon keeps it (depexpr_format) and
	 * the jobs each of its parts named at its submission (depend.c's
	 * form); NULL: none. */
	const char *depend, *depend_ids;
	/* A job array's element: its array's id (the id of its first
	 * element) and its index; 0 for a job that is none. */
	uint64_t array_id;
	uint32_t array_index;
};

/* A job array (bsub -J "name[1-100]%10"): its name, its indices as
 * written back compactly (jobarray_format_spec), how many, and the cap
 * on elements running at once (0: none). Its elements are jobs with ids
 * id, id + 1, .., id + count - 1, in the order of their indices. */
struct store_array {
	uint64_t id;
	const char *name, *spec;
	uint32_t count, cap;
	uint32_t ended[7];	/* (filled by the caller, not stored) */
};

struct store;

/* Open (creating if needed) the database at path. NULL with err on failure. */
struct store *store_open(const char *path, char *err, size_t errlen);
void store_close(struct store *st);
/* The last error, for logs; whether it was for want of disk space (the
 * transaction is gone then: SQLite rolls it back). */
const char *store_error(const struct store *st);
bool store_full(const struct store *st);

/* Transactions. Every write must be inside one. 0 or -1. */
int  store_begin(struct store *st);
int  store_commit(struct store *st);
void store_rollback(struct store *st);
bool store_in_txn(const struct store *st);

/* Checkpoints of the write-ahead log on another thread (syncer.h): from
 * store_ckpt_open on, the store's commits no longer copy the log into the
 * database themselves (which held the loop up to 65 ms); once the log
 * holds `pages` pages after a commit, `want` is called, and the caller has
 * store_checkpoint(ckpt) run on its thread, on a connection of its own.
 * NULL with err if there can be none (the store checkpoints as before).
 * store_ckpt_close (the thread stopped first) gives the store back its
 * own checkpoints. */
struct store_ckpt;
struct store_ckpt *store_ckpt_open(struct store *st, int pages, void (*want)(void *arg),
                                   void *arg, char *err, size_t errlen);
int  store_checkpoint(void *ckpt);
const char *store_ckpt_error(const struct store_ckpt *c);
void store_ckpt_close(struct store *st, struct store_ckpt *c);

/* Settings the daemon keeps: a key to a number or a text. */
int  store_meta_set(struct store *st, const char *key, const char *value);
/* Copies the value into buf (at most len - 1 bytes). 1 found, 0 absent, -1 error. */
int  store_meta_get(struct store *st, const char *key, char *buf, size_t len);

/* The next job id (ids are never reused, even after a crash: the counter
 * is part of the transaction that stores the job). */
int  store_next_id(struct store *st, uint64_t *id);
/* Never hand out an id at or below `id` (one a failed commit handed out
 * and the spool remembers, or one the daemon handed out itself and now
 * stores with its job). */
int  store_raise_last_id(struct store *st, uint64_t id);
/* The last id handed out, as committed (0: none yet). */
int  store_last_id(struct store *st, uint64_t *id);
/* Insert or replace a job's whole row, but for its argv and env: those
 * are stored once, with store_put_args (at its submission), and removed
 * with store_del_args (at its end); store_load_live gives them back. */
int  store_put_job(struct store *st, const struct store_job *j);
int  store_put_args(struct store *st, uint64_t id, const char *argv, size_t argv_len,
                    const char *env, size_t env_len);
int  store_del_args(struct store *st, uint64_t id);
/* Record a state change (the jobs row holds only the latest). A job keeps
 * at most STORE_LOG_MAX of them, and its end whatever came before. */
#define STORE_LOG_MAX 64
int  store_log(struct store *st, uint64_t id, bf_time t, enum store_state state, const char *detail);

/* Visit jobs: the live ones in arrival order (for a restart); or one by id;
 * or the most recent `limit` final ones (of one uid, or all for uid < 0).
 * The struct and its strings are
 * valid only during the call; visit returns non-zero to stop. 0 or -1. */
typedef int (*store_visit)(const struct store_job *j, void *arg);
int  store_load_live(struct store *st, store_visit visit, void *arg);
int  store_get_job(struct store *st, uint64_t id, store_visit visit, void *arg);
/* A store_visit that puts the job's owner (its uid) into *(int64_t *)arg. */
int  store_job_owner(const struct store_job *j, void *arg);
/* An array's row (in a transaction); read back (1 found, 0 none, -1
 * error); its elements' counts by state; its elements in id order. */
int  store_put_array(struct store *st, const struct store_array *a);
int  store_get_array(struct store *st, uint64_t id,
                     int (*visit)(const struct store_array *a, void *arg), void *arg);
int  store_array_counts(struct store *st, uint64_t id, uint32_t counts[ST_NSTATES]);
int  store_load_elements(struct store *st, uint64_t id, store_visit visit, void *arg);
/* A job's arguments and environment (job_args): 1 visited, 0 none, -1
 * error (or visit's -1). */
int  store_get_args(struct store *st, uint64_t id,
                    int (*visit)(const char *argv, size_t argv_len, const char *env,
                                 size_t env_len, void *arg), void *arg);
/* The latest job of uid named `name`: 1 with its id, 0 none, -1 error. */
int  store_find_named(struct store *st, uint32_t uid, const char *name, uint64_t *id);
int  store_load_final(struct store *st, uint32_t limit, int64_t uid, store_visit visit, void *arg);
/* Ended jobs, ended in [since, until) (BF_NEVER: unbounded), of one uid
 * (or all: uid < 0), in (end, id) order after (after_end, after_id)
 * (after_end BF_NEVER: from the first), at most max. 0 or -1. */
int  store_load_history(struct store *st, bf_time since, bf_time until, int64_t uid,
                        bf_time after_end, uint64_t after_id, uint32_t max, store_visit visit,
                        void *arg);
/* How many state changes a job has logged (for tests and bq -l). */
int64_t store_log_count(struct store *st, uint64_t id);
/* keep_ended: remove at most max ended jobs whose end is before `before`,
 * with their log, in the open transaction (begun if none). Returns how
 * many jobs went, or -1. */
int  store_prune_ended(struct store *s, bf_time before, uint32_t max);

/* The ended jobs' bytes in the store (their rows and logs), of every user
 * (visit gets each uid and its total; 0 or -1), or of one (-1 on error). */
int  store_ended_usage(struct store *st, int (*visit)(uint32_t uid, uint64_t bytes, void *arg),
                       void *arg);
int64_t store_ended_bytes(struct store *st, uint32_t uid);
/* Remove the oldest ended jobs of uid (with their logs), at least `want`
 * bytes of them if it has that many, in the open transaction (begun if
 * none). Returns the bytes removed, or -1. */
int64_t store_prune_user(struct store *st, uint32_t uid, uint64_t want);

/* A node an operator took out of service (drained or down, bctl(8)); a
 * node in service has no row. state: 1 drained, 2 down. */
struct store_node {
	const char *name;
	int state;
	bf_time since;
	const char *reason, *by;	/* may be NULL */
};
/* Insert or replace its row; remove it (back in service). In a transaction. */
int  store_put_node(struct store *st, const struct store_node *n);
int  store_del_node(struct store *st, const char *name);
/* Visit every row, by name; visit returns non-zero to stop. 0 or -1. */
int  store_load_nodes(struct store *st, int (*visit)(const struct store_node *n, void *arg),
                      void *arg);

#endif
