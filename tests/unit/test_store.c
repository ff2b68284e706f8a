/* The SQLite store: jobs round trip, ids, transactions, crash durability. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sys/store.h"
#include "tap.h"

static char dir[] = "/tmp/test_store.XXXXXX";
static char path[300];

struct seen {
	int n;
	uint64_t ids[16];
	struct store_job last;
	char name[64], nodes[64], argv[64], depend[64];
	size_t argv_len;
};

static int collect(const struct store_job *j, void *arg)
{
	struct seen *s = arg;

	if (s->n < 16)
		s->ids[s->n] = j->id;
	s->n++;
	s->last = *j;
	snprintf(s->name, sizeof s->name, "%s", j->name ? j->name : "(null)");
	snprintf(s->nodes, sizeof s->nodes, "%s", j->node_list ? j->node_list : "(null)");
	s->argv_len = j->argv_len < sizeof s->argv ? j->argv_len : sizeof s->argv;
	if (s->argv_len)	/* a migrated row may have no argv at all (NULL) */
		memcpy(s->argv, j->argv, s->argv_len);
	snprintf(s->depend, sizeof s->depend, "%s|%s", j->depend ? j->depend : "(null)",
	         j->depend_ids ? j->depend_ids : "(null)");
	s->last.depend = s->last.depend_ids = NULL;
	s->last.name = s->last.node_list = s->last.user = s->last.cwd = NULL;
	s->last.out = s->last.err = s->last.argv = s->last.env = NULL;
	return 0;
}

static struct store_job job(uint64_t id, int64_t seq)
{
	static const char argv[] = "one\0two words\0";

	return (struct store_job){
		.id = id, .seq = seq, .uid = 1000, .gid = 100, .user = "alice", .name = "sim",
		.nodes = 4, .estimate = 60 * BF_SEC, .submit = 1000, .state = ST_QUEUED,
		.guarantee = 5000, .first_guarantee = 5000, .start = BF_NEVER, .end = BF_NEVER,
		.cwd = "/home/alice", .argv = argv, .argv_len = sizeof argv - 1, .queued = BF_NEVER,
	};
}

/* What a user's ended jobs take, removed oldest first; a job's log is
 * bounded; the umask round trips. */
static void budgets(struct store *st)
{
	struct seen s = { 0 };
	struct store_job j;
	int64_t before, after, freed = 0, logs;

	store_begin(st);
	for (int k = 0; k < 10; k++) {
		j = job(100 + (uint64_t)k, 100 + k);
		j.uid = 4242;
		j.state = ST_DONE;
		j.end = 10000 + k;
		j.cwd = "/a/path/of/some/length/to/count/for/the/ended/job";
		store_put_job(st, &j);
		store_log(st, j.id, 10000 + k, ST_DONE, "done, exit 0");
	}
	ok(store_commit(st) == 0, "ten ended jobs of uid 4242");
	before = store_ended_bytes(st, 4242);
	ok(before > 10 * 256 && before < 10 * 1024, "their bytes are measured: %lld",
	   (long long)before);
	ok(store_ended_bytes(st, 4343) == 0, "a user with none has 0");
	ok(store_begin(st) == 0 && (freed = store_prune_user(st, 4242, (uint64_t)before / 3)) > 0 &&
	   store_commit(st) == 0, "a third of them is asked for");
	after = store_ended_bytes(st, 4242);
	ok(after == before - freed && freed >= before / 3 && after > 0,
	   "  the bytes removed are what they took (%lld of %lld)", (long long)freed,
	   (long long)before);
	s = (struct seen){ 0 };
	ok(store_get_job(st, 100, collect, &s) == 0 && s.n == 0 &&
	   store_get_job(st, 109, collect, &s) == 0 && s.n == 1, "  the oldest went, the newest stays");
	ok(store_log_count(st, 100) == 0, "  with its log");

	/* A queued job's log holds STORE_LOG_MAX changes, and its end. */
	j = job(200, 200);
	store_begin(st);
	store_put_job(st, &j);
	for (int k = 0; k < 3 * STORE_LOG_MAX; k++)
		store_log(st, 200, k, ST_QUEUED, k % 2 ? "held" : "released");
	store_log(st, 200, 1000, ST_CANCELLED, "cancelled");
	j.umask = 077;
	j.has_umask = true;
	store_put_job(st, &j);
	store_commit(st);
	logs = store_log_count(st, 200);
	ok(logs == STORE_LOG_MAX + 1, "a job's log is bounded, and keeps its end (%lld)",
	   (long long)logs);
	s = (struct seen){ 0 };
	ok(store_get_job(st, 200, collect, &s) == 0 && s.n == 1 && s.last.has_umask &&
	   s.last.umask == 077, "the umask round trips");
	j = job(201, 201);
	s = (struct seen){ 0 };
	ok(store_begin(st) == 0 && store_put_job(st, &j) == 0 && store_commit(st) == 0 &&
	   store_get_job(st, 201, collect, &s) == 0 && !s.last.has_umask,
	   "none given: none stored (022 at the start)");
	store_begin(st);
	j.state = ST_CANCELLED;
	store_put_job(st, &j);
	j = job(200, 200);
	j.state = ST_CANCELLED;
	store_put_job(st, &j);
	store_commit(st);
}

/* The stored number of job id's state, read past the store (-1: none). */
static int raw_state(uint64_t id)
{
	sqlite3 *db;
	sqlite3_stmt *q;
	int state = -1;

	if (sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT state FROM jobs WHERE id = ?1", -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
		if (sqlite3_step(q) == SQLITE_ROW)
			state = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
	}
	sqlite3_close(db);
	return state;
}

/* exit (LSF's EXIT): named, told from done by the wait status, stored as
 * 6 and listed with the ended jobs; a row an older daemon stored as done
 * with a non-zero status stays done. */
static void exit_states(struct store *st)
{
	struct seen s = { 0 };
	struct store_job j;

	ok(strcmp(store_state_name(ST_EXIT), "exit") == 0 &&
	   strcmp(store_state_name(ST_DONE), "done") == 0 &&
	   strcmp(store_state_name(ST_FAILED), "failed") == 0 &&
	   strcmp(store_state_name((enum store_state)ST_NSTATES), "?") == 0,
	   "state names: exit after the six there were");
	ok(store_state_of_exit(0) == ST_DONE && store_state_of_exit(3 << 8) == ST_EXIT &&
	   store_state_of_exit(255 << 8) == ST_EXIT && store_state_of_exit(SIGSEGV) == ST_EXIT &&
	   store_state_of_exit(SIGKILL | 0x80) == ST_EXIT,
	   "exit 0 is done; exit 3, exit 255, SIGSEGV, SIGKILL with a core are exit");
	ok(!store_state_live(ST_EXIT), "exit is final");

	j = job(40, 40);
	j.state = ST_EXIT;
	j.start = 2000;
	j.end = 3000;
	j.has_exit = true;
	j.exit_status = 3 << 8;
	ok(store_begin(st) == 0 && store_put_job(st, &j) == 0 &&
	   store_log(st, 40, 3000, ST_EXIT, "exit, exit 3") == 0 && store_commit(st) == 0,
	   "an exit job is stored");
	ok_eq(raw_state(40), 6, "as state 6");
	ok(store_get_job(st, 40, collect, &s) == 0 && s.n == 1 && s.last.state == ST_EXIT &&
	   s.last.exit_status == 3 << 8, "and read back as exit, with its status");
	s = (struct seen){ 0 };
	ok(store_load_history(st, 3000, 3001, -1, BF_NEVER, 0, 10, collect, &s) == 0 && s.n == 1 &&
	   s.ids[0] == 40, "bq -d's query lists it with the ended jobs");
	s = (struct seen){ 0 };
	ok(store_get_job(st, 1, collect, &s) == 0 && s.n == 1 && s.last.state == ST_DONE &&
	   s.last.exit_status == 256, "an older row, done with exit 1, is not rewritten");
	store_begin(st);
	store_prune_ended(st, 3001, 100);
	store_commit(st);
	s = (struct seen){ 0 };
	ok(store_get_job(st, 40, collect, &s) == 0 && s.n == 0, "keep_ended prunes it as any ended job");
}

/* A database as an older backfilld left it: schema version `v` (1: no
 * hold_end; 2: no usage columns; 3: no node_admin table; 4: no queued),
 * with one running job. */
static int old_database(const char *file, int v)
{
	char q[2000];
	sqlite3 *db;
	int rc;

	snprintf(q, sizeof q,
	         "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	         "CREATE TABLE jobs (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL,"
	         " uid INTEGER NOT NULL, gid INTEGER NOT NULL, user TEXT, name TEXT,"
	         " nodes INTEGER NOT NULL, estimate INTEGER NOT NULL, submit INTEGER NOT NULL,"
	         " state INTEGER NOT NULL, guarantee INTEGER, first_guarantee INTEGER,"
	         " start INTEGER, end_time INTEGER, exit_status INTEGER, node_list TEXT, cwd TEXT,"
	         " out TEXT, err TEXT, argv BLOB, env BLOB, sup_pid INTEGER NOT NULL DEFAULT 0,"
	         " sup_start INTEGER NOT NULL DEFAULT 0, kill_why INTEGER NOT NULL DEFAULT 0,"
	         " reason TEXT%s%s%s);%s"
	         "CREATE TABLE job_log (job INTEGER NOT NULL, t INTEGER NOT NULL,"
	         " state INTEGER NOT NULL, detail TEXT);"
	         "INSERT INTO meta VALUES ('schema', '%d');"
	         "INSERT INTO jobs (id, seq, uid, gid, nodes, estimate, submit, state, start%s)"
	         " VALUES (7, 7, 1000, 100, 2, 60000000, 1000, 1, 2000%s);",
	         v >= 2 ? ", hold_end INTEGER" : "",
	         v >= 3 ? ", cpu_us INTEGER, mem_kb INTEGER, cpu_src INTEGER, mem_src INTEGER" : "",
	         v >= 4 ? ", broken TEXT, held INTEGER NOT NULL DEFAULT 0,"
	                  " requeue INTEGER NOT NULL DEFAULT 0" : "",
	         v >= 4 ? "CREATE TABLE node_admin (name TEXT PRIMARY KEY, state INTEGER NOT NULL,"
	                  " since INTEGER NOT NULL, reason TEXT, by TEXT);" : "",
	         v, v >= 2 ? ", hold_end" : "",
	         v >= 2 ? ", 62000000" : "");
	if (sqlite3_open(file, &db) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(db, q, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

static int collect_node(const struct store_node *n, void *arg)
{
	struct store_node *last = arg;

	*last = *n;
	last->name = n->name && strcmp(n->name, "node007") == 0 ? "node007" : "?";
	last->reason = n->reason && strcmp(n->reason, "fan") == 0 ? "fan" : "?";
	last->by = NULL;
	return 0;
}

/* Older databases come up to version 5: their job is intact, its usage
 * unknown, queued at its submission, a usage can be stored, and so can a
 * node's state. */
static void migrations(void)
{
	for (int v = 1; v <= 4; v++) {
		struct store_node node = { 0 };
		char file[400], err[300], buf[16];
		struct seen s = { 0 };
		struct store *st;
		struct store_job j;

		snprintf(file, sizeof file, "%s/v%d.db", dir, v);
		ok(old_database(file, v) == 0, "a version %d database", v);
		st = store_open(file, err, sizeof err);
		ok(st && store_meta_get(st, "schema", buf, sizeof buf) == 1 && strcmp(buf, "7") == 0,
		   "version %d is upgraded to 7 (%s)", v, st ? buf : err);
		ok(st && store_load_live(st, collect, &s) == 0 && s.n == 1 && s.ids[0] == 7 &&
		   s.last.state == ST_RUNNING && s.last.start == 2000 &&
		   s.last.hold_end == (v == 1 ? BF_NEVER : 62000000) && s.last.cpu_us == -1 &&
		   s.last.cpu_src == 0 && s.last.mem_kb == -1 && s.last.mem_src == 0 &&
		   s.last.queued == BF_NEVER,
		   "version %d: its running job is intact, its usage unknown, queued at submission", v);
		j = s.last;
		j.state = ST_DONE;
		j.cpu_us = 1500000;
		j.cpu_src = 2;
		j.mem_kb = 2048;
		j.mem_src = 2;
		s = (struct seen){ 0 };
		ok(st && store_begin(st) == 0 && store_put_job(st, &j) == 0 && store_commit(st) == 0 &&
		   store_get_job(st, 7, collect, &s) == 0 && s.n == 1 && s.last.cpu_us == 1500000 &&
		   s.last.mem_kb == 2048 && s.last.cpu_src == 2 && s.last.mem_src == 2,
		   "version %d: an ended job's usage is stored after the upgrade", v);
		ok(st && store_begin(st) == 0 &&
		   store_put_node(st, &(struct store_node){ "node007", 1, 5000, "fan", "root" }) == 0 &&
		   store_commit(st) == 0 && store_load_nodes(st, collect_node, &node) == 0 &&
		   strcmp(node.name, "node007") == 0 && node.state == 1 && node.since == 5000 &&
		   strcmp(node.reason, "fan") == 0, "version %d: a drained node is stored", v);
		node = (struct store_node){ 0 };
		ok(st && store_begin(st) == 0 && store_del_node(st, "node007") == 0 &&
		   store_commit(st) == 0 && store_load_nodes(st, collect_node, &node) == 0 &&
		   node.name == NULL, "version %d: a resumed node's row is gone", v);
		store_close(st);
		for (const char *suffix = ""; suffix; suffix = strcmp(suffix, "") == 0 ? "-wal" :
		                                            strcmp(suffix, "-wal") == 0 ? "-shm" : NULL) {
			char victim[420];

			snprintf(victim, sizeof victim, "%s%s", file, suffix);
			unlink(victim);
		}
	}
}

int main(void)
{
	char err[300], buf[400];
	struct store *st;
	struct seen s = { 0 };
	uint64_t id1 = 0, id2 = 0;
	struct store_job j;
	pid_t pid;
	int status;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/state.db", dir);
	st = store_open(path, err, sizeof err);
	ok(st != NULL, "a new database is created (%s)", st ? "" : err);
	ok(store_meta_get(st, "schema", buf, sizeof buf) == 1 && strcmp(buf, "7") == 0,
	   "the schema version is recorded");
	j = job(1, 1);
	ok(store_put_job(st, &j) < 0 && strstr(store_error(st), "outside"),
	   "a write outside a transaction is refused");

	ok(store_begin(st) == 0 && store_next_id(st, &id1) == 0 && store_next_id(st, &id2) == 0 &&
	   id1 == 1 && id2 == 2, "ids count up from 1");
	j = job(id1, 1);
	ok_eq(store_put_job(st, &j), 0, "job 1 stored");
	j = job(id2, 2);
	j.name = NULL;
	j.queued = 4000;	/* released at 4000 */
	ok(store_put_job(st, &j) == 0 && store_log(st, id2, 1000, ST_QUEUED, "submitted") == 0 &&
	   store_put_args(st, id2, j.argv, j.argv_len, "A=1", 4) == 0,
	   "job 2 stored, its arrival logged, its arguments stored once");
	ok_eq(store_commit(st), 0, "commit");
	ok(store_load_live(st, collect, &s) == 0 && s.n == 2 && s.ids[0] == 1 && s.ids[1] == 2,
	   "live jobs load in arrival order");
	ok(strcmp(s.name, "(null)") == 0 && s.last.guarantee == 5000 && s.last.start == BF_NEVER &&
	   !s.last.has_exit, "NULL name, guarantee, unknown start read back");
	ok(s.last.queued == 4000, "when it last joined the queue read back");
	{
		/* bsub -w: the condition and its jobs, and a job found by name */
		struct seen d = { 0 };
		uint64_t named = 0;

		j = job(id2, 2);
		j.name = "post";
		j.depend = "done(1) && ended(prep)";
		j.depend_ids = "1;1";
		ok(store_begin(st) == 0 && store_put_job(st, &j) == 0 && store_commit(st) == 0 &&
		   store_get_job(st, id2, collect, &d) == 0 &&
		   strcmp(d.depend, "done(1) && ended(prep)|1;1") == 0,
		   "a condition and its jobs read back");
		ok(store_find_named(st, j.uid, "post", &named) == 1 && named == id2 &&
		   store_find_named(st, j.uid, "nothing", &named) == 0 &&
		   store_find_named(st, j.uid + 1, "post", &named) == 0,
		   "the latest job of a user by name; none of another user's");
	}
	/* bctl top: job 2 put first, a place below every arrival's. */
	j = job(id2, -1);
	memset(&s, 0, sizeof s);
	ok(store_begin(st) == 0 && store_put_job(st, &j) == 0 && store_commit(st) == 0 &&
	   store_load_live(st, collect, &s) == 0 && s.n == 2 && s.ids[0] == 2 && s.ids[1] == 1 &&
	   s.last.seq == 1, "a job put first (seq -1) loads before the arrivals");
	j = job(id2, 2);
	store_begin(st);
	store_put_job(st, &j);
	store_commit(st);

	/* Job 1 runs and ends; job 2 is rolled back mid-change. */
	j = job(id1, 1);
	j.state = ST_RUNNING;
	j.start = 6000;
	j.node_list = "node[001-004]";
	j.guarantee = BF_NEVER;
	store_begin(st);
	store_put_job(st, &j);
	store_log(st, id1, 6000, ST_RUNNING, NULL);
	store_commit(st);
	j.state = ST_DONE;
	j.end = 9000;
	j.has_exit = true;
	j.exit_status = 256;
	store_begin(st);
	store_put_job(st, &j);
	store_log(st, id1, 9000, ST_DONE, "exit 1");
	store_commit(st);
	store_begin(st);
	j = job(id2, 2);
	j.state = ST_CANCELLED;
	store_put_job(st, &j);
	store_rollback(st);
	s = (struct seen){ 0 };
	ok(store_load_live(st, collect, &s) == 0 && s.n == 1 && s.ids[0] == 2 &&
	   s.last.state == ST_QUEUED, "a rolled-back change leaves nothing; job 1 is no longer live");
	s = (struct seen){ 0 };
	ok(store_get_job(st, id1, collect, &s) == 0 && s.n == 1 && s.last.state == ST_DONE &&
	   s.last.has_exit && s.last.exit_status == 256 && s.last.end == 9000 &&
	   strcmp(s.nodes, "node[001-004]") == 0, "job 1: exit status, end and nodes kept");
	ok(s.argv_len == 0, "a listing reads no arguments (job 1 by id)");
	s = (struct seen){ 0 };
	ok(store_load_live(st, collect, &s) == 0 && s.n == 1 && s.argv_len == 14 &&
	   memcmp(s.argv, "one\0two words\0", 14) == 0 && s.last.env_len == 4,
	   "a live job's arguments, with their NUL separators, kept for its start, however "
	   "often its row is written again");
	ok(store_begin(st) == 0 && store_del_args(st, id2) == 0 && store_commit(st) == 0 &&
	   (s = (struct seen){ 0 }, store_load_live(st, collect, &s)) == 0 && s.n == 1 &&
	   s.argv_len == 0, "removed at its end, they are gone");
	ok_eq(store_log_count(st, id1), 2, "job 1's state changes are logged");
	s = (struct seen){ 0 };
	ok(store_load_final(st, 10, -1, collect, &s) == 0 && s.n == 1 && s.ids[0] == 1,
	   "final jobs are listed apart");
	s = (struct seen){ 0 };
	ok(store_load_final(st, 10, 1000, collect, &s) == 0 && s.n == 1 &&
	   store_load_final(st, 10, 1001, collect, &s) == 0 && s.n == 1,
	   "and by owner: uid 1000 has one, uid 1001 none");
	store_close(st);

	/* A daemon killed with -9: what was committed is there, what was not
	 * is not. The child commits job 3, starts job 4, and dies. */
	pid = fork();
	if (pid == 0) {
		struct store *c = store_open(path, err, sizeof err);
		uint64_t id;
		struct store_job k;

		if (!c || store_begin(c) < 0 || store_next_id(c, &id) < 0)
			_exit(2);
		k = job(id, 3);
		if (store_put_job(c, &k) < 0 || store_commit(c) < 0)
			_exit(3);
		store_begin(c);
		store_next_id(c, &id);
		k = job(id, 4);
		store_put_job(c, &k);
		_exit(0);	/* no commit, no close */
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child committed one job and died");
	st = store_open(path, err, sizeof err);
	s = (struct seen){ 0 };
	ok(st && store_load_live(st, collect, &s) == 0 && s.n == 2 && s.ids[1] == 3,
	   "after the crash: the committed job is there, the uncommitted one is not");
	ok(store_begin(st) == 0 && store_next_id(st, &id1) == 0 && id1 == 4,
	   "ids go on from the last committed one (%llu)", (unsigned long long)id1);
	store_rollback(st);

	/* Usage: a figure with its source, or unknown (-1) without one. */
	j = job(30, 30);
	j.state = ST_DONE;
	j.cpu_us = 990000;
	j.cpu_src = 1;
	j.mem_kb = 0;
	j.mem_src = 0;
	s = (struct seen){ 0 };
	ok(store_begin(st) == 0 && store_put_job(st, &j) == 0 && store_commit(st) == 0 &&
	   store_get_job(st, 30, collect, &s) == 0 && s.n == 1 && s.last.cpu_us == 990000 &&
	   s.last.cpu_src == 1 && s.last.mem_kb == -1 && s.last.mem_src == 0,
	   "a job's CPU time and its source round trip; a usage without a source is unknown");
	budgets(st);
	exit_states(st);
	migrations();

	/* A database from another schema version is refused. */
	store_begin(st);
	store_meta_set(st, "schema", "99");
	store_commit(st);
	store_close(st);
	ok(store_open(path, err, sizeof err) == NULL && strstr(err, "schema version 99"),
	   "another schema version is refused: %s", err);
	snprintf(buf, sizeof buf, "%s/nodir/x.db", dir);
	ok(store_open(buf, err, sizeof err) == NULL && strstr(err, "x.db"),
	   "an unopenable path is refused naming it: %s", err);

	for (const char *suffix = ""; suffix; suffix = strcmp(suffix, "") == 0 ? "-wal" :
	                                            strcmp(suffix, "-wal") == 0 ? "-shm" : NULL) {
		snprintf(buf, sizeof buf, "%s%s", path, suffix);
		unlink(buf);
	}
	ok(rmdir(dir) == 0, "temporary directory removed");
	return tap_done();
}
