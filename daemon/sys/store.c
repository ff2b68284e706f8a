/* The SQLite store; see store.h. */
#include <sqlite3.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "store.h"

/* 2: jobs.hold_end (a running job's end of hold in the plan); a version 1
 * database gains the column at open.
 * 3: jobs.cpu_us, mem_kb, cpu_src, mem_src (what an ended job used, and
 * where each figure comes from); versions 1 and 2 gain them at open (NULL:
 * unknown, as for a job that ended before).
 * 4: the node_admin table (nodes drained or down by an operator; the
 * schema creates it in an older database, which has none) and
 * jobs.broken (the last announcement that the job's guarantee moved
 * later; NULL: none, as for every job of an older database), jobs.held
 * (a queued job held: bstop, bctl hold) and jobs.requeue (a running job to
 * queue again when it has ended: bctl requeue); 0 in an older database.
 * 5: jobs.queued (when a job last joined the queue, if not at its
 * submission: released, requeued; CREASY counts its wait from there);
 * NULL, at its submission, in an older database.
 * 6: jobs.umask (the submitter's, which the job runs with; NULL in an
 * older database: 022), the index of a user's ended jobs, and a job's
 * argv and env in a table of their own, job_args, written once at its
 * submission and removed at its end (only a start needs them): a row
 * rewritten when a guarantee moves no longer rewrites up to 4 MiB with it.
 * jobs.argv and jobs.env stay NULL (an older database's move at the
 * upgrade; an ended job's are dropped).
 * 7: jobs.depend (a job's dependency condition, bsub -w, as the daemon
 * keeps it) and jobs.depend_ids (the jobs each of its parts named when it
 * was submitted); NULL: none, as for every job of an older database. The
 * index of a user's jobs by name (bsub -w names a job by its name).
 * Job arrays: jobs.array_id and jobs.array_index (an element: its array's
 * id and its index; NULL otherwise), the arrays table (each array's name,
 * indices and cap), and the index of an array's elements. */
#define SCHEMA_VERSION "7"

static const char *const state_names[ST_NSTATES] = {
	"queued", "running", "done", "killed", "cancelled", "failed", "exit",
};

const char *store_state_name(enum store_state s)
{
	return (unsigned)s < ST_NSTATES ? state_names[s] : "?";
}

enum store_state store_state_of_exit(int wstatus)
{
	return WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 ? ST_DONE : ST_EXIT;
}

#define STR_(x) #x
#define STR(x) STR_(x)

/* What an ended job takes in the store, give or take a page's overhead:
 * its row (a fixed part and its strings) and its log. The same measure
 * as usage.c's for a job in memory (usage_ended). */
#define ENDED_COST "(256 + ifnull(length(user), 0) + ifnull(length(name), 0) + " \
	"ifnull(length(node_list), 0) + ifnull(length(cwd), 0) + ifnull(length(out), 0) + " \
	"ifnull(length(err), 0) + ifnull(length(reason), 0) + ifnull(length(broken), 0) + " \
	"ifnull(length(depend), 0) + ifnull(length(depend_ids), 0) + " \
	"ifnull(length(argv), 0) + ifnull(length(env), 0) + (SELECT ifnull(sum(40 + " \
	"ifnull(length(detail), 0)), 0) FROM job_log WHERE job_log.job = jobs.id))"

enum stmt {
	S_BEGIN, S_COMMIT, S_ROLLBACK, S_META_SET, S_META_GET, S_PUT, S_LOG, S_LIVE, S_ONE,
	S_FINAL, S_LOG_COUNT, S_PRUNE_LOG, S_PRUNE_JOBS, S_NODE_PUT, S_NODE_DEL, S_NODE_ALL,
	S_HISTORY, S_USAGE, S_USAGE_ONE, S_OLDEST, S_DEL_LOG, S_DEL_JOB, S_ARGS_PUT,
	S_ARGS_DEL, S_NAMED, S_ARRAY_PUT, S_ARRAY_ONE, S_ARRAY_COUNTS, S_ARRAY_DEL, S_ARGS_ONE,
	S_ELEMENTS, S_NSTMTS
};

/* Column order of the jobs table, shared by S_PUT and the loaders. */
#define JOB_COLUMNS "id, seq, uid, gid, user, name, nodes, estimate, submit, state, " \
	"guarantee, first_guarantee, start, end_time, exit_status, node_list, cwd, out, err, " \
	"argv, env, sup_pid, sup_start, kill_why, reason, hold_end, cpu_us, mem_kb, cpu_src, mem_src, " \
	"broken, held, requeue, queued, umask, depend, depend_ids, array_id, array_index"
/* The live jobs, with their arguments and environments from job_args. */
#define LIVE_COLUMNS "id, seq, uid, gid, user, name, nodes, estimate, submit, state, " \
	"guarantee, first_guarantee, start, end_time, exit_status, node_list, cwd, out, err, " \
	"job_args.argv, job_args.env, sup_pid, sup_start, kill_why, reason, hold_end, cpu_us, " \
	"mem_kb, cpu_src, mem_src, broken, held, requeue, queued, umask, depend, depend_ids, array_id, array_index"
/* The same for listings: argv and env (up to 4 MiB a job) are never sent
 * to a client, so a listing never reads them. */
#define LIST_COLUMNS "id, seq, uid, gid, user, name, nodes, estimate, submit, state, " \
	"guarantee, first_guarantee, start, end_time, exit_status, node_list, cwd, out, err, " \
	"NULL, NULL, sup_pid, sup_start, kill_why, reason, hold_end, cpu_us, mem_kb, cpu_src, " \
	"mem_src, broken, held, requeue, queued, umask, depend, depend_ids, array_id, array_index"

static const char *const sql[S_NSTMTS] = {
	[S_BEGIN] = "BEGIN IMMEDIATE",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_META_SET] = "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
	[S_META_GET] = "SELECT value FROM meta WHERE key = ?1",
	[S_PUT] = "INSERT OR REPLACE INTO jobs (" JOB_COLUMNS ") VALUES "
	          "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
	          "?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, "
	          "?36, ?37, ?38, ?39)",
	/* A job's log holds at most STORE_LOG_MAX changes, and always its end:
	 * what a user can repeat on their own job (hold, release) cannot
	 * grow the store without bound. */
	[S_LOG] = "INSERT INTO job_log (job, t, state, detail) SELECT ?1, ?2, ?3, ?4 WHERE ?3 > 1 "
	          "OR (SELECT count(*) FROM job_log WHERE job = ?1) < " STR(STORE_LOG_MAX),
	[S_LIVE] = "SELECT " LIVE_COLUMNS " FROM jobs LEFT JOIN job_args ON job_args.job = jobs.id "
	           "WHERE state <= 1 ORDER BY seq",
	[S_ARGS_PUT] = "INSERT OR REPLACE INTO job_args (job, argv, env) VALUES (?1, ?2, ?3)",
	[S_ARGS_DEL] = "DELETE FROM job_args WHERE job = ?1",
	[S_NAMED] = "SELECT id FROM jobs WHERE uid = ?1 AND name = ?2 ORDER BY id DESC LIMIT 1",
	[S_ARRAY_PUT] = "INSERT OR REPLACE INTO arrays (id, name, spec, count, cap) "
	                "VALUES (?1, ?2, ?3, ?4, ?5)",
	[S_ARRAY_ONE] = "SELECT name, spec, count, cap FROM arrays WHERE id = ?1",
	[S_ARRAY_COUNTS] = "SELECT state, count(*) FROM jobs WHERE array_id = ?1 GROUP BY state",
	[S_ARRAY_DEL] = "DELETE FROM arrays WHERE id = ?1",
	[S_ARGS_ONE] = "SELECT argv, env FROM job_args WHERE job = ?1",
	[S_ELEMENTS] = "SELECT " LIST_COLUMNS " FROM jobs WHERE array_id = ?1 ORDER BY id",
	[S_ONE] = "SELECT " LIST_COLUMNS " FROM jobs WHERE id = ?1",
	[S_FINAL] = "SELECT " LIST_COLUMNS " FROM jobs WHERE state > 1 AND (?2 < 0 OR uid = ?2) "
	            "ORDER BY end_time DESC, id DESC LIMIT ?1",
	[S_LOG_COUNT] = "SELECT count(*) FROM job_log WHERE job = ?1",
	/* keep_ended: a batch of ended jobs (state > 1) whose end is before
	 * ?1, their log first. Ids are never reused whatever is removed: the
	 * next id is the meta counter's, not the table's maximum. */
	[S_PRUNE_LOG] = "DELETE FROM job_log WHERE job IN (SELECT id FROM jobs WHERE state > 1 AND "
	                "end_time < ?1 ORDER BY id LIMIT ?2)",
	[S_PRUNE_JOBS] = "DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE state > 1 AND "
	                 "end_time < ?1 ORDER BY id LIMIT ?2)",
	[S_NODE_PUT] = "INSERT OR REPLACE INTO node_admin (name, state, since, reason, by) "
	               "VALUES (?1, ?2, ?3, ?4, ?5)",
	[S_NODE_DEL] = "DELETE FROM node_admin WHERE name = ?1",
	[S_NODE_ALL] = "SELECT name, state, since, reason, by FROM node_admin ORDER BY name",
	/* Ended in [?1, ?2), of uid ?3 (or all, ?3 < 0), after the cursor
	 * (?4, ?5) in (end, id) order: one page of bq -d and bq --swf. */
	[S_HISTORY] = "SELECT " LIST_COLUMNS " FROM jobs WHERE state > 1 AND end_time >= ?1 AND "
	              "end_time < ?2 AND (?3 < 0 OR uid = ?3) AND (end_time > ?4 OR "
	              "(end_time = ?4 AND id > ?5)) ORDER BY end_time, id LIMIT ?6",
	[S_USAGE] = "SELECT uid, sum(" ENDED_COST ") FROM jobs WHERE state > 1 GROUP BY uid",
	[S_USAGE_ONE] = "SELECT ifnull(sum(" ENDED_COST "), 0) FROM jobs WHERE state > 1 AND uid = ?1",
	[S_OLDEST] = "SELECT id, " ENDED_COST " FROM jobs WHERE state > 1 AND uid = ?1 "
	             "ORDER BY end_time, id LIMIT 256",
	[S_DEL_LOG] = "DELETE FROM job_log WHERE job = ?1",
	[S_DEL_JOB] = "DELETE FROM jobs WHERE id = ?1",
};

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS jobs ("
	"  id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, uid INTEGER NOT NULL,"
	"  gid INTEGER NOT NULL, user TEXT, name TEXT, nodes INTEGER NOT NULL,"
	"  estimate INTEGER NOT NULL, submit INTEGER NOT NULL, state INTEGER NOT NULL,"
	"  guarantee INTEGER, first_guarantee INTEGER, start INTEGER, end_time INTEGER,"
	"  exit_status INTEGER, node_list TEXT, cwd TEXT, out TEXT, err TEXT,"
	"  argv BLOB, env BLOB, sup_pid INTEGER NOT NULL DEFAULT 0,"
	"  sup_start INTEGER NOT NULL DEFAULT 0, kill_why INTEGER NOT NULL DEFAULT 0,"
	"  reason TEXT, hold_end INTEGER, cpu_us INTEGER, mem_kb INTEGER, cpu_src INTEGER,"
	"  mem_src INTEGER, broken TEXT, held INTEGER NOT NULL DEFAULT 0,"
	"  requeue INTEGER NOT NULL DEFAULT 0, queued INTEGER, umask INTEGER, depend TEXT,"
	"  depend_ids TEXT, array_id INTEGER, array_index INTEGER);"
	"CREATE INDEX IF NOT EXISTS jobs_live ON jobs (state, seq);"
	"CREATE TABLE IF NOT EXISTS job_log ("
	"  job INTEGER NOT NULL, t INTEGER NOT NULL, state INTEGER NOT NULL, detail TEXT);"
	"CREATE INDEX IF NOT EXISTS job_log_job ON job_log (job);"
	/* Ended jobs only (a partial index): bq -d pages by (end, id), and
	 * the listing's recently ended are its last; queued jobs, which have
	 * no end, are never visited for either. */
	"CREATE INDEX IF NOT EXISTS jobs_ended ON jobs (end_time, id) WHERE state > 1;"
	/* A user's ended jobs, oldest first: those that go when the user's
	 * history is over keep_ended_per_user. */
	"CREATE INDEX IF NOT EXISTS jobs_ended_uid ON jobs (uid, end_time, id) WHERE state > 1;"
	"CREATE TABLE IF NOT EXISTS job_args (job INTEGER PRIMARY KEY, argv BLOB, env BLOB);"
	/* A user's jobs by name, the latest first: bsub -w's names. */
	"CREATE INDEX IF NOT EXISTS jobs_named ON jobs (uid, name, id);"
	/* Each array: its name, indices and cap. */
	"CREATE TABLE IF NOT EXISTS arrays (id INTEGER PRIMARY KEY, name TEXT, spec TEXT,"
	"  count INTEGER NOT NULL, cap INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS node_admin ("
	"  name TEXT PRIMARY KEY, state INTEGER NOT NULL, since INTEGER NOT NULL,"
	"  reason TEXT, by TEXT);";

struct store {
	sqlite3 *db;
	sqlite3_stmt *st[S_NSTMTS];
	bool in_txn;
	bool full;		/* the last failure was for want of disk space */
	char err[256];
};

static int fail(struct store *s, const char *what)
{
	snprintf(s->err, sizeof s->err, "%s: %s", what, sqlite3_errmsg(s->db));
	s->full = (sqlite3_extended_errcode(s->db) & 0xff) == SQLITE_FULL;
	/* SQLite may have rolled the whole transaction back (a full disk):
	 * then it is gone, and the next write must not run on its own. */
	if (s->in_txn && sqlite3_get_autocommit(s->db))
		s->in_txn = false;
	return -1;
}

bool store_full(const struct store *s)
{
	return s->full;
}

const char *store_error(const struct store *s)
{
	return s->err;
}

/* Run one prepared statement that returns no rows; reset it after. */
static int step_done(struct store *s, enum stmt k, const char *what)
{
	int rc = sqlite3_step(s->st[k]);

	sqlite3_reset(s->st[k]);
	sqlite3_clear_bindings(s->st[k]);
	return rc == SQLITE_DONE ? 0 : fail(s, what);
}

static int exec_pragma(struct store *s, const char *q, const char *want)
{
	sqlite3_stmt *st;
	int ok;

	if (sqlite3_prepare_v2(s->db, q, -1, &st, NULL) != SQLITE_OK)
		return fail(s, q);
	ok = sqlite3_step(st) == SQLITE_ROW &&
	     (!want || strcmp((const char *)sqlite3_column_text(st, 0), want) == 0);
	sqlite3_finalize(st);
	if (!ok)
		snprintf(s->err, sizeof s->err, "%s did not take effect", q);
	return ok ? 0 : -1;
}

/* An older schema brought up to this one, in one transaction (run before
 * the statements are prepared: they name the new columns). */
static int migrate(struct store *s)
{
	static const char v2[] = "ALTER TABLE jobs ADD COLUMN hold_end INTEGER; ";
	static const char v3[] = "ALTER TABLE jobs ADD COLUMN cpu_us INTEGER; "
		"ALTER TABLE jobs ADD COLUMN mem_kb INTEGER; "
		"ALTER TABLE jobs ADD COLUMN cpu_src INTEGER; "
		"ALTER TABLE jobs ADD COLUMN mem_src INTEGER; ";
	static const char v4[] = "ALTER TABLE jobs ADD COLUMN broken TEXT; "
		"ALTER TABLE jobs ADD COLUMN held INTEGER NOT NULL DEFAULT 0; "
		"ALTER TABLE jobs ADD COLUMN requeue INTEGER NOT NULL DEFAULT 0; ";
	static const char v5[] = "ALTER TABLE jobs ADD COLUMN queued INTEGER; ";
	static const char v6[] = "ALTER TABLE jobs ADD COLUMN umask INTEGER; "
		"INSERT OR REPLACE INTO job_args (job, argv, env) SELECT id, argv, env FROM jobs "
		"WHERE state <= 1; "
		"UPDATE jobs SET argv = NULL, env = NULL; ";
	static const char v7[] = "ALTER TABLE jobs ADD COLUMN depend TEXT; "
		"ALTER TABLE jobs ADD COLUMN depend_ids TEXT; "
		"ALTER TABLE jobs ADD COLUMN array_id INTEGER; "
		"ALTER TABLE jobs ADD COLUMN array_index INTEGER; ";
	char q[1400], what[64];
	sqlite3_stmt *st;
	int from = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = 'schema'", -1, &st,
	                       NULL) != SQLITE_OK)
		return fail(s, "reading the schema version");
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);

		from = v && v[0] >= '1' && v[0] <= '6' && !v[1] ? v[0] - '0' : 0;
	}
	sqlite3_finalize(st);
	if (!from)
		return 0;	/* new, current, or another version (refused at open) */
	/* Each step's columns, in one transaction with the new version (4's
	 * table came with the schema). */
	snprintf(q, sizeof q, "BEGIN IMMEDIATE; %s%s%s%s%s%sUPDATE meta SET value = '"
	         SCHEMA_VERSION "' WHERE key = 'schema'; COMMIT;", from == 1 ? v2 : "",
	         from <= 2 ? v3 : "", from <= 3 ? v4 : "", from <= 4 ? v5 : "", from <= 5 ? v6 : "",
	         v7);
	if (sqlite3_exec(s->db, q, NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(what, sizeof what, "upgrading the schema from version %d", from);
		fail(s, what);
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

struct store *store_open(const char *path, char *err, size_t errlen)
{
	struct store *s = calloc(1, sizeof *s);
	char ver[16];

	if (!s) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
		store_close(s);
		return NULL;
	}
	sqlite3_extended_result_codes(s->db, 1);
	/* SQLite quietly opens a file it cannot write read-only: say so now,
	 * not at the first commit. */
	if (sqlite3_db_readonly(s->db, "main") == 1) {
		snprintf(err, errlen, "%s: cannot be written (read-only file, file system or "
		         "immutable)", path);
		store_close(s);
		return NULL;
	}
	/* WAL + FULL: each commit is synced, so it survives a crash or power
	 * loss; readers never block the writer. Another process holding the
	 * database gets a clear error after a short wait, not a hang. */
	if (sqlite3_busy_timeout(s->db, 2000) != SQLITE_OK ||
	    exec_pragma(s, "PRAGMA journal_mode=WAL", "wal") < 0 ||
	    sqlite3_exec(s->db, "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;", NULL, NULL,
	                 NULL) != SQLITE_OK ||
	    exec_pragma(s, "PRAGMA synchronous", "2") < 0 ||
	    sqlite3_exec(s->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
		if (!s->err[0])
			fail(s, "setting up the database");
		snprintf(err, errlen, "%s: %s", path, s->err);
		store_close(s);
		return NULL;
	}
	/* An array's elements: an index of a column an older database has
	 * only once migrated. */
	if (migrate(s) < 0 ||
	    sqlite3_exec(s->db, "CREATE INDEX IF NOT EXISTS jobs_array ON jobs (array_id) "
	                 "WHERE array_id IS NOT NULL;", NULL, NULL, NULL) != SQLITE_OK) {
		if (!s->err[0])
			fail(s, "indexing the arrays' elements");
		snprintf(err, errlen, "%s: %s", path, s->err);
		store_close(s);
		return NULL;
	}
	for (int k = 0; k < S_NSTMTS; k++) {
		if (sqlite3_prepare_v3(s->db, sql[k], -1, SQLITE_PREPARE_PERSISTENT, &s->st[k],
		                       NULL) != SQLITE_OK) {
			fail(s, sql[k]);
			snprintf(err, errlen, "%s: %s", path, s->err);
			store_close(s);
			return NULL;
		}
	}
	switch (store_meta_get(s, "schema", ver, sizeof ver)) {
	case 0:
		if (store_begin(s) < 0 || store_meta_set(s, "schema", SCHEMA_VERSION) < 0 ||
		    store_commit(s) < 0)
			goto bad;
		break;
	case 1:
		if (strcmp(ver, SCHEMA_VERSION) != 0) {
			snprintf(s->err, sizeof s->err, "schema version %s, this backfilld uses %s",
			         ver, SCHEMA_VERSION);
			goto bad;
		}
		break;
	default:
		goto bad;
	}
	return s;
bad:
	snprintf(err, errlen, "%s: %s", path, s->err);
	store_close(s);
	return NULL;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	for (int k = 0; k < S_NSTMTS; k++)
		sqlite3_finalize(s->st[k]);
	sqlite3_close(s->db);
	free(s);
}

int store_begin(struct store *s)
{
	if (s->in_txn)
		return 0;
	if (step_done(s, S_BEGIN, "begin") < 0)
		return -1;
	s->in_txn = true;
	s->full = false;
	return 0;
}

int store_commit(struct store *s)
{
	if (!s->in_txn)
		return 0;
	if (step_done(s, S_COMMIT, "commit") < 0) {
		/* A failed COMMIT leaves the transaction open: undo it, so that
		 * nothing half-done is ever made durable later. */
		store_rollback(s);
		return -1;
	}
	s->in_txn = false;
	return 0;
}

void store_rollback(struct store *s)
{
	if (s->in_txn && sqlite3_get_autocommit(s->db) == 0)
		step_done(s, S_ROLLBACK, "rollback");
	s->in_txn = false;
}

bool store_in_txn(const struct store *s)
{
	return s->in_txn;
}

/* ---- checkpoints on another thread ---- */

struct store_ckpt {
	sqlite3 *db;		/* the checkpointer's own connection */
	int pages;
	void (*want)(void *arg);
	void *arg;
};

/* A log this many times the length that asks for a checkpoint is
 * checkpointed by the loop's own connection. */
#define WAL_BEHIND 10

/* After each commit of the loop's connection: the log's length in pages. */
static int wal_grew(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct store_ckpt *c = arg;

	if (pages >= WAL_BEHIND * c->pages) {
		/* The thread's checkpoints, run while commits go on, copy what
		 * the log held when each began; only one that finds nothing
		 * left lets the next transaction start the log over. Under a
		 * steady stream of commits that may never come: here, right
		 * after a commit and before the next, one can (as SQLite's own
		 * checkpoints did at every 1,000 pages). */
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		return SQLITE_OK;
	}
	if (pages >= c->pages)
		c->want(c->arg);
	return SQLITE_OK;
}

struct store_ckpt *store_ckpt_open(struct store *s, int pages, void (*want)(void *arg),
                                   void *arg, char *err, size_t errlen)
{
	const char *path = sqlite3_db_filename(s->db, "main");
	struct store_ckpt *c;

	if (!sqlite3_threadsafe() || !path || !*path) {
		snprintf(err, errlen, "this SQLite is not built for threads");
		return NULL;
	}
	if (!(c = calloc(1, sizeof *c))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	*c = (struct store_ckpt){ .pages = pages, .want = want, .arg = arg };
	/* A new connection opens the file lazily: until it has read it, it
	 * does not know it is in WAL mode, and a checkpoint does nothing. */
	if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL) !=
	    SQLITE_OK || sqlite3_exec(c->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, c->db ? sqlite3_errmsg(c->db) : "out of memory");
		sqlite3_close(c->db);
		free(c);
		return NULL;
	}
	/* The loop's connection no longer checkpoints as it commits (the
	 * hook replaces wal_autocheckpoint): it asks this one instead. */
	sqlite3_wal_hook(s->db, wal_grew, c);
	return c;
}

/* PASSIVE: as much of the log as no reader needs, never waiting for the
 * loop's connection, which goes on writing meanwhile. */
int store_checkpoint(void *ckpt)
{
	struct store_ckpt *c = ckpt;

	int rc = sqlite3_wal_checkpoint_v2(c->db, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);

	/* BUSY: another checkpoint (the loop's, see wal_grew) is under way. */
	return rc == SQLITE_OK || rc == SQLITE_BUSY ? 0 : -1;
}

const char *store_ckpt_error(const struct store_ckpt *c)
{
	return sqlite3_errmsg(c->db);
}

void store_ckpt_close(struct store *s, struct store_ckpt *c)
{
	if (!c)
		return;
	sqlite3_wal_autocheckpoint(s->db, 1000);	/* as SQLite's default */
	sqlite3_close(c->db);
	free(c);
}

static int need_txn(struct store *s)
{
	if (s->in_txn)
		return 0;
	snprintf(s->err, sizeof s->err, "write outside a transaction");
	return -1;
}

int store_meta_set(struct store *s, const char *key, const char *value)
{
	sqlite3_stmt *st = s->st[S_META_SET];

	if (need_txn(s) < 0)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	return step_done(s, S_META_SET, "meta");
}

int store_meta_get(struct store *s, const char *key, char *buf, size_t len)
{
	sqlite3_stmt *st = s->st[S_META_GET];
	int rc, found = 0;

	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
		found = 1;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail(s, "meta");
	return found;
}

/* The last id handed out (0 before the first). */
int store_last_id(struct store *s, uint64_t *id)
{
	char buf[32];
	unsigned long long last = 0;
	int rc = store_meta_get(s, "last_id", buf, sizeof buf);

	if (rc < 0)
		return -1;
	if (rc == 1 && sscanf(buf, "%llu", &last) != 1) {
		snprintf(s->err, sizeof s->err, "meta last_id is not a number: %s", buf);
		return -1;
	}
	*id = last;
	return 0;
}

static int last_id(struct store *s, uint64_t *last)
{
	*last = 0;
	return need_txn(s) < 0 ? -1 : store_last_id(s, last);
}

static int set_last_id(struct store *s, uint64_t id)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%" PRIu64, id);
	return store_meta_set(s, "last_id", buf);
}

int store_next_id(struct store *s, uint64_t *id)
{
	uint64_t last;

	if (last_id(s, &last) < 0 || set_last_id(s, last + 1) < 0)
		return -1;
	*id = last + 1;
	return 0;
}

int store_raise_last_id(struct store *s, uint64_t id)
{
	uint64_t last;

	if (last_id(s, &last) < 0)
		return -1;
	return id <= last ? 0 : set_last_id(s, id);
}

/* BF_NEVER is stored as NULL, so "unknown" reads as unknown in SQL too. */
static void bind_time(sqlite3_stmt *st, int col, bf_time t)
{
	if (t == BF_NEVER)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, t);
}

static void bind_str(sqlite3_stmt *st, int col, const char *v)
{
	if (v)
		sqlite3_bind_text(st, col, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, col);
}

int store_put_job(struct store *s, const struct store_job *j)
{
	sqlite3_stmt *st = s->st[S_PUT];

	if (need_txn(s) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)j->id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)j->seq);
	sqlite3_bind_int64(st, 3, j->uid);
	sqlite3_bind_int64(st, 4, j->gid);
	bind_str(st, 5, j->user);
	bind_str(st, 6, j->name);
	sqlite3_bind_int64(st, 7, j->nodes);
	sqlite3_bind_int64(st, 8, j->estimate);
	sqlite3_bind_int64(st, 9, j->submit);
	sqlite3_bind_int(st, 10, j->state);
	bind_time(st, 11, j->guarantee);
	bind_time(st, 12, j->first_guarantee);
	bind_time(st, 13, j->start);
	bind_time(st, 14, j->end);
	if (j->has_exit)
		sqlite3_bind_int(st, 15, j->exit_status);
	else
		sqlite3_bind_null(st, 15);
	bind_str(st, 16, j->node_list);
	bind_str(st, 17, j->cwd);
	bind_str(st, 18, j->out);
	bind_str(st, 19, j->err);
	/* (20, 21: argv and env are in job_args: store_put_args.) */
	sqlite3_bind_int64(st, 22, j->sup_pid);
	sqlite3_bind_int64(st, 23, j->sup_start);
	sqlite3_bind_int(st, 24, j->kill_why);
	bind_str(st, 25, j->reason);
	bind_time(st, 26, j->hold_end);
	/* Unknown usage is NULL (a source of 0, or no figure). */
	if (j->cpu_src > 0 && j->cpu_us >= 0) {
		sqlite3_bind_int64(st, 27, j->cpu_us);
		sqlite3_bind_int(st, 29, j->cpu_src);
	}
	if (j->mem_src > 0 && j->mem_kb >= 0) {
		sqlite3_bind_int64(st, 28, j->mem_kb);
		sqlite3_bind_int(st, 30, j->mem_src);
	}
	bind_str(st, 31, j->broken);
	sqlite3_bind_int(st, 32, j->held);
	sqlite3_bind_int(st, 33, j->requeue);
	bind_time(st, 34, j->queued);
	if (j->has_umask)
		sqlite3_bind_int(st, 35, j->umask & 0777);
	bind_str(st, 36, j->depend);
	bind_str(st, 37, j->depend_ids);
	if (j->array_id) {
		sqlite3_bind_int64(st, 38, (sqlite3_int64)j->array_id);
		sqlite3_bind_int64(st, 39, j->array_index);
	}
	return step_done(s, S_PUT, "storing a job");
}

int store_put_args(struct store *s, uint64_t id, const char *argv, size_t argv_len,
                   const char *env, size_t env_len)
{
	sqlite3_stmt *st = s->st[S_ARGS_PUT];

	if (need_txn(s) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
	sqlite3_bind_blob(st, 2, argv ? argv : "", (int)argv_len, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, env ? env : "", (int)env_len, SQLITE_STATIC);
	return step_done(s, S_ARGS_PUT, "storing a job's arguments");
}

int store_del_args(struct store *s, uint64_t id)
{
	if (need_txn(s) < 0)
		return -1;
	sqlite3_bind_int64(s->st[S_ARGS_DEL], 1, (sqlite3_int64)id);
	return step_done(s, S_ARGS_DEL, "removing a job's arguments");
}

int store_log(struct store *s, uint64_t id, bf_time t, enum store_state state, const char *detail)
{
	sqlite3_stmt *st = s->st[S_LOG];

	if (need_txn(s) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
	sqlite3_bind_int64(st, 2, t);
	sqlite3_bind_int(st, 3, state);
	bind_str(st, 4, detail);
	return step_done(s, S_LOG, "logging a state change");
}

int store_prune_ended(struct store *s, bf_time before, uint32_t max)
{
	int n;

	if (need_txn(s) < 0)
		return -1;
	for (int k = S_PRUNE_LOG; k <= S_PRUNE_JOBS; k++) {
		sqlite3_bind_int64(s->st[k], 1, before);
		sqlite3_bind_int64(s->st[k], 2, max);
		if (step_done(s, k, "removing ended jobs (keep_ended)") < 0)
			return -1;
	}
	n = sqlite3_changes(s->db);	/* of the last statement: the jobs */
	return n;
}

static bf_time col_time(sqlite3_stmt *st, int c)
{
	return sqlite3_column_type(st, c) == SQLITE_NULL ? BF_NEVER : sqlite3_column_int64(st, c);
}

static const char *col_str(sqlite3_stmt *st, int c)
{
	return (const char *)sqlite3_column_text(st, c);	/* NULL for NULL */
}

static void read_job(sqlite3_stmt *st, struct store_job *j)
{
	int state = sqlite3_column_int(st, 9);

	*j = (struct store_job){
		.id = (uint64_t)sqlite3_column_int64(st, 0),
		.seq = (int64_t)sqlite3_column_int64(st, 1),
		.uid = (uint32_t)sqlite3_column_int64(st, 2),
		.gid = (uint32_t)sqlite3_column_int64(st, 3),
		.user = col_str(st, 4), .name = col_str(st, 5),
		.nodes = (uint32_t)sqlite3_column_int64(st, 6),
		.estimate = sqlite3_column_int64(st, 7), .submit = sqlite3_column_int64(st, 8),
		.state = state >= 0 && state < ST_NSTATES ? (enum store_state)state : ST_FAILED,
		.guarantee = col_time(st, 10), .first_guarantee = col_time(st, 11),
		.start = col_time(st, 12), .end = col_time(st, 13),
		.has_exit = sqlite3_column_type(st, 14) != SQLITE_NULL,
		.exit_status = sqlite3_column_int(st, 14),
		.node_list = col_str(st, 15), .cwd = col_str(st, 16), .out = col_str(st, 17),
		.err = col_str(st, 18),
		.argv = sqlite3_column_blob(st, 19), .argv_len = (size_t)sqlite3_column_bytes(st, 19),
		.env = sqlite3_column_blob(st, 20), .env_len = (size_t)sqlite3_column_bytes(st, 20),
		.sup_pid = sqlite3_column_int64(st, 21), .sup_start = sqlite3_column_int64(st, 22),
		.kill_why = sqlite3_column_int(st, 23), .reason = col_str(st, 24),
		.hold_end = col_time(st, 25),
		.cpu_us = sqlite3_column_type(st, 26) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 26),
		.mem_kb = sqlite3_column_type(st, 27) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 27),
		.cpu_src = sqlite3_column_int(st, 28), .mem_src = sqlite3_column_int(st, 29),
		.broken = col_str(st, 30), .held = sqlite3_column_int(st, 31) != 0,
		.requeue = sqlite3_column_int(st, 32) != 0, .queued = col_time(st, 33),
		.has_umask = sqlite3_column_type(st, 34) != SQLITE_NULL,
		.umask = (uint16_t)(sqlite3_column_int(st, 34) & 0777),
		.depend = col_str(st, 35), .depend_ids = col_str(st, 36),
		.array_id = (uint64_t)sqlite3_column_int64(st, 37),
		.array_index = (uint32_t)sqlite3_column_int64(st, 38),
	};
	/* A figure and its source together, or neither. */
	if (j->cpu_us < 0 || j->cpu_src <= 0) {
		j->cpu_us = -1;
		j->cpu_src = 0;
	}
	if (j->mem_kb < 0 || j->mem_src <= 0) {
		j->mem_kb = -1;
		j->mem_src = 0;
	}
}

/* Step through a query's rows, handing each job to visit. */
static int visit_rows(struct store *s, enum stmt k, store_visit visit, void *arg)
{
	sqlite3_stmt *st = s->st[k];
	struct store_job j;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		read_job(st, &j);
		if (visit(&j, arg))
			break;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail(s, "reading jobs");
}

int store_load_live(struct store *s, store_visit visit, void *arg)
{
	return visit_rows(s, S_LIVE, visit, arg);
}

int store_get_job(struct store *s, uint64_t id, store_visit visit, void *arg)
{
	sqlite3_bind_int64(s->st[S_ONE], 1, (sqlite3_int64)id);
	return visit_rows(s, S_ONE, visit, arg);
}

int store_put_array(struct store *s, const struct store_array *a)
{
	sqlite3_stmt *st = s->st[S_ARRAY_PUT];

	if (need_txn(s) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)a->id);
	bind_str(st, 2, a->name);
	bind_str(st, 3, a->spec);
	sqlite3_bind_int64(st, 4, a->count);
	sqlite3_bind_int64(st, 5, a->cap);
	return step_done(s, S_ARRAY_PUT, "storing a job array");
}

int store_get_array(struct store *s, uint64_t id,
                    int (*visit)(const struct store_array *a, void *arg), void *arg)
{
	sqlite3_stmt *st = s->st[S_ARRAY_ONE];
	int rc;

	sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_array a = {
			.id = id, .name = col_str(st, 0), .spec = col_str(st, 1),
			.count = (uint32_t)sqlite3_column_int64(st, 2),
			.cap = (uint32_t)sqlite3_column_int64(st, 3),
		};

		for (int k = 0; k < ST_NSTATES; k++)
			a.ended[k] = 0;
		visit(&a, arg);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : fail(s, "reading a job array");
}

int store_array_counts(struct store *s, uint64_t id, uint32_t counts[ST_NSTATES])
{
	sqlite3_stmt *st = s->st[S_ARRAY_COUNTS];
	int rc;

	for (int k = 0; k < ST_NSTATES; k++)
		counts[k] = 0;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int state = sqlite3_column_int(st, 0);

		if (state >= 0 && state < ST_NSTATES)
			counts[state] = (uint32_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : fail(s, "counting an array's elements");
}

int store_load_elements(struct store *s, uint64_t id, store_visit visit, void *arg)
{
	sqlite3_bind_int64(s->st[S_ELEMENTS], 1, (sqlite3_int64)id);
	return visit_rows(s, S_ELEMENTS, visit, arg);
}

int store_get_args(struct store *s, uint64_t id,
                   int (*visit)(const char *argv, size_t argv_len, const char *env,
                                size_t env_len, void *arg), void *arg)
{
	sqlite3_stmt *st = s->st[S_ARGS_ONE];
	int rc;

	sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		rc = visit(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0),
		           sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1), arg) < 0 ?
		     -2 : SQLITE_ROW;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc == -2)
		return -1;
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : fail(s, "reading a job's arguments");
}

int store_find_named(struct store *s, uint32_t uid, const char *name, uint64_t *id)
{
	sqlite3_stmt *st = s->st[S_NAMED];
	int rc;

	sqlite3_bind_int64(st, 1, uid);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : fail(s, "finding a job by its name");
}

int store_load_final(struct store *s, uint32_t limit, int64_t uid, store_visit visit, void *arg)
{
	sqlite3_bind_int64(s->st[S_FINAL], 1, limit);
	sqlite3_bind_int64(s->st[S_FINAL], 2, uid);
	return visit_rows(s, S_FINAL, visit, arg);
}

int store_load_history(struct store *s, bf_time since, bf_time until, int64_t uid,
                       bf_time after_end, uint64_t after_id, uint32_t max, store_visit visit,
                       void *arg)
{
	sqlite3_stmt *st = s->st[S_HISTORY];

	sqlite3_bind_int64(st, 1, since == BF_NEVER ? INT64_MIN : since);
	sqlite3_bind_int64(st, 2, until);	/* BF_NEVER: after every end */
	sqlite3_bind_int64(st, 3, uid);
	sqlite3_bind_int64(st, 4, after_end == BF_NEVER ? INT64_MIN : after_end);
	sqlite3_bind_int64(st, 5, after_end == BF_NEVER ? 0 : (sqlite3_int64)after_id);
	sqlite3_bind_int64(st, 6, max);
	return visit_rows(s, S_HISTORY, visit, arg);
}

int64_t store_log_count(struct store *s, uint64_t id)
{
	sqlite3_stmt *st = s->st[S_LOG_COUNT];
	int64_t n = -1;

	sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return n;
}

int store_ended_usage(struct store *s, int (*visit)(uint32_t uid, uint64_t bytes, void *arg),
                      void *arg)
{
	sqlite3_stmt *st = s->st[S_USAGE];
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (visit((uint32_t)sqlite3_column_int64(st, 0),
		          (uint64_t)sqlite3_column_int64(st, 1), arg) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : fail(s, "measuring the ended jobs");
}

int64_t store_ended_bytes(struct store *s, uint32_t uid)
{
	sqlite3_stmt *st = s->st[S_USAGE_ONE];
	int64_t n = -1;

	sqlite3_bind_int64(st, 1, uid);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	else
		fail(s, "measuring a user's ended jobs");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return n;
}

int64_t store_prune_user(struct store *s, uint32_t uid, uint64_t want)
{
	sqlite3_stmt *st = s->st[S_OLDEST];
	uint64_t ids[256], freed = 0;
	int n = 0, rc;

	if (need_txn(s) < 0)
		return -1;
	/* The oldest first, a batch of ids, then removed: the query's
	 * cursor is done before the rows go. */
	sqlite3_bind_int64(st, 1, uid);
	while (freed < want && n < 256 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids[n++] = (uint64_t)sqlite3_column_int64(st, 0);
		freed += (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	for (int k = 0; k < n; k++) {
		sqlite3_bind_int64(s->st[S_DEL_LOG], 1, (sqlite3_int64)ids[k]);
		sqlite3_bind_int64(s->st[S_DEL_JOB], 1, (sqlite3_int64)ids[k]);
		if (step_done(s, S_DEL_LOG, "removing a user's oldest ended jobs") < 0 ||
		    step_done(s, S_DEL_JOB, "removing a user's oldest ended jobs") < 0)
			return -1;
	}
	return (int64_t)freed;
}

int store_put_node(struct store *s, const struct store_node *n)
{
	sqlite3_stmt *st = s->st[S_NODE_PUT];

	if (need_txn(s) < 0)
		return -1;
	sqlite3_bind_text(st, 1, n->name, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, n->state);
	sqlite3_bind_int64(st, 3, n->since);
	sqlite3_bind_text(st, 4, n->reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, n->by, -1, SQLITE_STATIC);
	return step_done(s, S_NODE_PUT, "storing a node's state");
}

int store_del_node(struct store *s, const char *name)
{
	if (need_txn(s) < 0)
		return -1;
	sqlite3_bind_text(s->st[S_NODE_DEL], 1, name, -1, SQLITE_STATIC);
	return step_done(s, S_NODE_DEL, "removing a node's state");
}

int store_load_nodes(struct store *s, int (*visit)(const struct store_node *n, void *arg),
                     void *arg)
{
	sqlite3_stmt *st = s->st[S_NODE_ALL];
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_node n = {
			.name = (const char *)sqlite3_column_text(st, 0),
			.state = sqlite3_column_int(st, 1),
			.since = sqlite3_column_int64(st, 2),
			.reason = (const char *)sqlite3_column_text(st, 3),
			.by = (const char *)sqlite3_column_text(st, 4),
		};

		if (n.name && visit(&n, arg) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : fail(s, "loading the nodes' states");
}

/* See store.h. */
int store_job_owner(const struct store_job *r, void *arg)
{
	*(int64_t *)arg = r->uid;
	return 1;
}
