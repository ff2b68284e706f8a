/* bench_daemon: the live daemon over its socket, end to end.
 *
 * Every daemon runs on its own temporary directory (socket, database,
 * spool) made with mkdtemp under $TMPDIR; all are kept (each daemon idle,
 * its blocker running) until the end of the run, see g_dmn. The
 * partition has 65 nodes; one "blocker" job holds 64 of them (a script that
 * records its pid and sleeps; estimate 1 h) and every other job asks 2 to 65
 * nodes (estimates 1 min - 4 h, a script that exits at once), so it queues
 * behind the blocker and never starts. The early-end test runs 1-node jobs
 * that exit at once on the 65th node. At the end of each daemon: the
 * queued jobs are cancelled (under EASY: the daemon is restarted on the same
 * database with --policy easy first, because cancelling many jobs under
 * conservative compresses the plan again and again), then the blocker with
 * build/bkill, and the daemon is stopped by its pid.
 *
 *  1. Durable submissions per second: K = 1, 4, 16, 64 client processes,
 *     each submitting its jobs back to back, one connection per request
 *     as bsub does; a fresh daemon for each K. The daemon logs no commit
 *     count: when perf works, its fdatasync calls (SQLite syncs its log
 *     once per commit under synchronous=FULL; a checkpoint adds two) and
 *     epoll_wait calls (event-loop wake-ups) are counted.
 *  2. Listing latency with 10,000 queued jobs: the PT_LIST (all users)
 *     round trip, the first after a change and repeated, and
 *     build/bq -a > /dev/null end to end; conservative, then EASY (the same
 *     jobs: the daemon restarted on the same database with --policy easy,
 *     the blocker found again under its supervisor).
 *  3. The pass with 10,000 queued: one more submission (pass + commit +
 *     reply), a bkill of the last and of the first queued job, an early end.
 *  Sections 2-4 also run a probe (PT_INFO of one job every 2 ms) while 16
 *  clients fill the queue, and around the cancels of the head: its longest
 *  round trip is the longest the loop was held.
 *  4. Memory with many live jobs in the database (BENCH_DAEMON_BIG,
 *     default 100,000, filled within BENCH_DAEMON_BUDGET seconds, default
 *     150: it stops sooner, and says so, if the measured rate says the next
 *     10,000 would not fit), then stop, restart and memory after.
 *
 * Usage: bench_daemon [BUILD]  (default "build": BUILD/backfilld, bq, bkill)
 * Environment: BENCH_DAEMON_BIG, BENCH_DAEMON_BUDGET (above), BENCH_PERF=0
 * (no perf), BENCH_DAEMON_ONLY (sections to run, e.g. "14"; default all).
 * Figures only: the exit status is 1 only if something broke (a daemon did
 * not start or stop, a request failed, a job did not end). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bf_time.h"
#include "proto.h"

#define NODES		65u		/* the partition */
#define BLOCK_NODES	64u		/* the blocker's share: one node stays free */
#define QUEUE_MIN	2u		/* queued jobs ask 2..NODES: none fits beside it */
#define BLOCK_EST	((bf_time)3600 * BF_SEC)
#define EST_MIN		((bf_time)60 * BF_SEC)
#define EST_SPAN	((bf_time)4 * 3600 * BF_SEC)
#define GRACE		"2"
#define IO_TIMEOUT_S	60
#define MAX_KIDS	64
#define MID_QUEUE	10000u
#define CANCEL_CHUNK	4096u		/* PROTO_MAX_LIST */

/* ---- small things ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int failures;

static void broke(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void broke(const char *fmt, ...)
{
	va_list ap;

	failures++;
	fflush(stdout);
	fputs("FAILED: ", stdout);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stats {
	size_t n;
	double med, p99, max;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static struct stats stats_of(double *v, size_t n)
{
	struct stats s = { .n = n };

	if (!n)
		return s;
	qsort(v, n, sizeof *v, cmp_double);
	s.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s.p99 = v[(size_t)((double)(n - 1) * 0.99)];
	s.max = v[n - 1];
	return s;
}

static uint64_t rnd_state = 0x5eedda7e;

static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* ---- the daemons started here, and clean-up on a signal ---- */

struct dmn {
	char dir[PATH_MAX], sock[PATH_MAX + 16], db[PATH_MAX + 16], spool[PATH_MAX + 16],
	     log[PATH_MAX + 16], pidfile[PATH_MAX + 16];
	volatile pid_t pid;
	char policy[16];		/* of the running daemon */
	uint64_t blocker;		/* its job id, 0 if none */
	volatile pid_t blocker_pid;	/* the job's process (group) */
	uint64_t *queued;		/* ids queued here, in submission order */
	size_t nq, capq;
};

/* Every daemon (and scratch directory) is kept until the end of the run:
 * removing a directory of thousands of files, or cancelling thousands of
 * jobs (the daemon then removes their spool entries), slows the creation
 * of new files on ext4 for a while after (freshly freed inodes are
 * skipped), which would slow the next daemon's submissions. */
#define MAX_DMN 8
static struct dmn *g_dmn[MAX_DMN];
static volatile int g_ndmn;
static volatile pid_t g_perf;
static volatile pid_t g_kids[MAX_KIDS];

/* Everything here is async-signal-safe: kill, waitpid, fork, execv. */
static void on_signal(int sig)
{
	const char *argv[MAX_DMN + 3];
	int st, n = 0;

	for (int k = 0; k < MAX_KIDS; k++)
		if (g_kids[k] > 0)
			kill(g_kids[k], SIGKILL);
	for (int k = 0; k < g_ndmn; k++) {
		if (g_dmn[k]->blocker_pid > 0) {
			kill(-g_dmn[k]->blocker_pid, SIGKILL);	/* its own process group */
			kill(g_dmn[k]->blocker_pid, SIGKILL);
		}
		if (g_dmn[k]->pid > 0)
			kill(g_dmn[k]->pid, SIGKILL);
	}
	if (g_perf > 0)
		kill(g_perf, SIGKILL);
	while (waitpid(-1, &st, 0) > 0 || errno == EINTR)
		;
	argv[n++] = "/bin/rm";
	argv[n++] = "-rf";
	for (int k = 0; k < g_ndmn; k++)
		if (g_dmn[k]->dir[0])
			argv[n++] = g_dmn[k]->dir;
	argv[n] = NULL;
	if (n > 2) {
		pid_t p = fork();

		if (p == 0) {
			execv(argv[0], (char *const *)argv);
			_exit(127);
		}
		if (p > 0)
			waitpid(p, &st, 0);
	}
	_exit(128 + sig);
}

static void child_defaults(void)
{
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

/* ---- one request, one reply (what client_request does, written again) ---- */

static int io_all(int fd, void *p, size_t n, bool wr)
{
	size_t off = 0;

	while (off < n) {
		ssize_t r = wr ? write(fd, (char *)p + off, n - off) : read(fd, (char *)p + off, n - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		off += (size_t)r;
	}
	return 0;
}

/* Send one frame, read one frame (header included into *rep, malloc'ed). */
static int rpc(const char *sock, const struct proto_buf *req, uint8_t **rep, size_t *rlen,
               enum proto_type *type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { IO_TIMEOUT_S, 0 };
	uint8_t hdr[PROTO_HEADER];
	size_t plen;
	int fd, r;

	*rep = NULL;
	if (strlen(sock) >= sizeof sa.sun_path)
		return -1;
	strcpy(sa.sun_path, sock);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	while ((r = connect(fd, (struct sockaddr *)&sa, sizeof sa)) < 0 && errno == EINTR)
		;
	if (r < 0 || io_all(fd, req->p, req->len, true) < 0 || io_all(fd, hdr, sizeof hdr, false) < 0)
		goto fail;
	plen = (size_t)hdr[0] << 24 | (size_t)hdr[1] << 16 | (size_t)hdr[2] << 8 | hdr[3];
	if (hdr[4] != PROTO_VERSION || plen > PROTO_MAX_PAYLOAD || !(*rep = malloc(PROTO_HEADER + plen)))
		goto fail;
	memcpy(*rep, hdr, sizeof hdr);
	if (io_all(fd, *rep + PROTO_HEADER, plen, false) < 0)
		goto fail;
	close(fd);
	*rlen = PROTO_HEADER + plen;
	*type = (enum proto_type)hdr[5];
	return 0;
fail:
	close(fd);
	free(*rep);
	*rep = NULL;
	return -1;
}

static char g_cwd[PATH_MAX];		/* the jobs' working directory */
static const char *const job_env[] = {
	"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/root", "LANG=C.UTF-8", "USER=root",
	"SHELL=/bin/sh", "TERM=xterm", "LOGNAME=root",
};
static const char exit_script[] = "#!/bin/sh\nexit 0\n";

/* Submit; 0 with the id (and how its start is known), -1 on failure. */
static int submit(const char *sock, uint32_t nodes, bf_time est, const char *script, uint64_t *id,
                  enum proto_start_kind *kind)
{
	struct proto_buf b;
	struct proto_submitted m;
	struct proto_submit s = {
		.nodes = nodes, .estimate = est, .name = "bench", .script = (const uint8_t *)script,
		.script_len = (uint32_t)strlen(script), .cwd = g_cwd, .env = (const char **)job_env,
		.envc = sizeof job_env / sizeof *job_env,
	};
	uint8_t *rep = NULL;
	size_t len;
	enum proto_type type;
	char err[200];
	int rc = -1;

	proto_buf_init(&b);
	if (proto_enc_submit(&b, &s) == 0 && rpc(sock, &b, &rep, &len, &type) == 0 &&
	    type == PT_SUBMITTED && proto_dec_submitted(rep, len, &m, err, sizeof err) == 0) {
		*id = m.job;
		if (kind)
			*kind = m.kind;
		rc = 0;
	}
	free(rep);
	proto_buf_free(&b);
	return rc;
}

/* PT_LIST of all users: the round trip in seconds, or < 0; the job count
 * and the reply's size. */
/* Queued jobs with a predicted start in the last listing (EASY). */
static uint32_t g_predicted;

static double list_all(const char *sock, uint32_t *count, size_t *bytes)
{
	struct proto_buf b;
	struct proto_jobs m;
	struct proto_arena a = { 0 };
	uint8_t *rep = NULL;
	size_t len = 0;
	enum proto_type type;
	char err[200];
	double t0, t = -1;

	proto_buf_init(&b);
	if (proto_enc_list(&b, PT_LIST, &(struct proto_list){ .all_users = true }) == 0) {
		t0 = now_s();
		if (rpc(sock, &b, &rep, &len, &type) == 0) {
			t = now_s() - t0;
			if (type != PT_JOBS || proto_dec_jobs(rep, len, &m, &a, err, sizeof err) < 0)
				t = -1;
			else if (count)
				*count = m.count;
			g_predicted = 0;
			for (uint32_t k = 0; t >= 0 && k < m.count; k++)
				g_predicted += m.jobs[k].start_kind == PS_PREDICTED;
		}
	}
	if (bytes)
		*bytes = len;
	proto_arena_free(&a);
	free(rep);
	proto_buf_free(&b);
	return t;
}

/* A job's state ("queued", "running", "done", ...) into buf; -1 on failure. */
static int job_state(const char *sock, uint64_t id, char *buf, size_t n)
{
	struct proto_buf b;
	struct proto_jobs m;
	struct proto_arena a = { 0 };
	uint8_t *rep = NULL;
	size_t len;
	enum proto_type type;
	char err[200];
	int rc = -1;

	proto_buf_init(&b);
	if (proto_enc_list(&b, PT_INFO, &(struct proto_list){ .has_job = true, .job = id }) == 0 &&
	    rpc(sock, &b, &rep, &len, &type) == 0 && type == PT_JOBS &&
	    proto_dec_jobs(rep, len, &m, &a, err, sizeof err) == 0 && m.count == 1) {
		snprintf(buf, n, "%s", m.jobs[0].state);
		rc = 0;
	}
	proto_arena_free(&a);
	free(rep);
	proto_buf_free(&b);
	return rc;
}

/* Cancel ids; 0 if every one was cancelled, -1 otherwise. */
static int cancel(const char *sock, const uint64_t *ids, uint32_t n)
{
	struct proto_buf b;
	struct proto_cancelled m;
	struct proto_arena a = { 0 };
	uint8_t *rep = NULL;
	size_t len;
	enum proto_type type;
	char err[200];
	int rc = -1;

	proto_buf_init(&b);
	if (proto_enc_cancel(&b, &(struct proto_cancel){ ids, n, 0 }) == 0 &&
	    rpc(sock, &b, &rep, &len, &type) == 0 && type == PT_CANCELLED &&
	    proto_dec_cancelled(rep, len, &m, &a, err, sizeof err) == 0 && m.count == n) {
		rc = 0;
		for (uint32_t k = 0; k < n; k++)
			if (m.codes[k] != PE_OK)
				rc = -1;
	}
	proto_arena_free(&a);
	free(rep);
	proto_buf_free(&b);
	return rc;
}

static int ping(const char *sock)
{
	struct proto_buf b;
	uint8_t *rep = NULL;
	size_t len;
	enum proto_type type;
	int rc = -1;

	proto_buf_init(&b);
	if (proto_enc_profile(&b) == 0 && rpc(sock, &b, &rep, &len, &type) == 0 && type == PT_STEPS)
		rc = 0;
	free(rep);
	proto_buf_free(&b);
	return rc;
}

/* ---- programs ---- */

static char g_build[PATH_MAX];

/* Run BUILD/prog args... with stdout to /dev/null; its exit status or -1. */
static int run_prog(const char *prog, const char *const *args)
{
	char path[PATH_MAX + 32];
	const char *argv[16];
	int n = 0, st;
	pid_t pid;

	snprintf(path, sizeof path, "%s/%s", g_build, prog);
	argv[n++] = path;
	for (; *args && n < 15; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		child_defaults();
		if (fd >= 0)
			dup2(fd, 1);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- a daemon on a temporary directory ---- */


/* A new daemon's directory (nothing started yet), registered; NULL on failure. */
static struct dmn *dmn_new(void)
{
	const char *base = getenv("TMPDIR");
	struct dmn *d;

	if (g_ndmn == MAX_DMN || !(d = calloc(1, sizeof *d))) {
		broke("too many daemons");
		return NULL;
	}
	snprintf(d->dir, sizeof d->dir, "%s/bfd-bench.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(d->dir)) {
		broke("mkdtemp %s: %s", d->dir, strerror(errno));
		free(d);
		return NULL;
	}
	snprintf(d->sock, sizeof d->sock, "%s/s.sock", d->dir);
	snprintf(d->db, sizeof d->db, "%s/state.db", d->dir);
	snprintf(d->spool, sizeof d->spool, "%s/spool", d->dir);
	snprintf(d->log, sizeof d->log, "%s/daemon.log", d->dir);
	snprintf(d->pidfile, sizeof d->pidfile, "%s/blocker.pid", d->dir);
	snprintf(g_cwd, sizeof g_cwd, "%s", d->dir);
	g_dmn[g_ndmn] = d;
	g_ndmn = g_ndmn + 1;
	return d;
}

/* Start backfilld and wait until it answers; the time that took, or < 0. */
/* The last line of the daemon's log that holds `what` ("" if none). */
static void log_line(const struct dmn *d, const char *what, char *buf, size_t n)
{
	char line[512];
	FILE *f = fopen(d->log, "r");

	buf[0] = 0;
	while (f && fgets(line, sizeof line, f))
		if (strstr(line, what))
			snprintf(buf, n, "%s", strtok(line, "\n"));
	if (f)
		fclose(f);
}

static double dmn_start(struct dmn *d, const char *policy)
{
	char nodes[16];
	double t0 = now_s();
	pid_t pid;
	int st;

	snprintf(nodes, sizeof nodes, "%u", NODES);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		char path[PATH_MAX + 32], conf[PATH_MAX + 32];
		FILE *cf;
		int fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		int nul = open("/dev/null", O_RDWR);

		child_defaults();
		if (fd >= 0)
			dup2(fd, 2);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
		}
		/* 100,000 queued jobs of one user (root): over the default
		 * max_queued_per_user (10000), which the benchmark lifts. */
		snprintf(conf, sizeof conf, "%s/backfilld.yaml", d->dir);
		if (!(cf = fopen(conf, "w")) || fputs("max_queued_per_user: unlimited\n", cf) < 0 ||
		    fclose(cf) != 0)
			_exit(126);
		snprintf(path, sizeof path, "%s/backfilld", g_build);
		execl(path, path, "--foreground", "--config", conf, "--socket", d->sock, "--db", d->db,
		      "--spool", d->spool, "--nodes", nodes, "--policy", policy, "--kill-grace", GRACE,
		      (char *)NULL);
		_exit(127);
	}
	d->pid = pid;
	snprintf(d->policy, sizeof d->policy, "%s", policy);
	while (now_s() - t0 < 300) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			d->pid = 0;
			broke("backfilld (%s) exited at start-up; its log is %s", policy, d->log);
			return -1;
		}
		if (ping(d->sock) == 0)
			return now_s() - t0;
		sleep_s(0.001);
	}
	broke("backfilld did not answer within 300 s");
	return -1;
}

/* SIGTERM, wait; the time it took to exit, or < 0. */
static double dmn_stop(struct dmn *d)
{
	double t0 = now_s();
	int st;

	if (d->pid <= 0)
		return 0;
	kill(d->pid, SIGTERM);
	while (now_s() - t0 < 60) {
		pid_t r = waitpid(d->pid, &st, WNOHANG);

		if (r == d->pid) {
			d->pid = 0;
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
				broke("backfilld exited with status %d after SIGTERM", st);
			return now_s() - t0;
		}
		sleep_s(0.002);
	}
	broke("backfilld did not stop within 60 s of SIGTERM: killed");
	kill(d->pid, SIGKILL);
	waitpid(d->pid, &st, 0);
	d->pid = 0;
	return -1;
}

static long vm_kib(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':')
			v = strtol(line + kl + 1, NULL, 10);
	fclose(f);
	return v;
}

static double mib(long kib)
{
	return (double)kib / 1024.0;
}

/* The blocker: 64 nodes for an hour; it records its pid, then sleeps. */
static int blocker_start(struct dmn *d)
{
	char script[4 * PATH_MAX], buf[64];
	enum proto_start_kind kind = PS_NONE;
	double t0;
	int fd;
	ssize_t n;

	snprintf(script, sizeof script, "#!/bin/sh\necho $$ > '%s.tmp' && mv '%s.tmp' '%s'\n"
	         "exec sleep 3600\n", d->pidfile, d->pidfile, d->pidfile);
	if (submit(d->sock, BLOCK_NODES, BLOCK_EST, script, &d->blocker, &kind) < 0 ||
	    kind != PS_ACTUAL) {
		broke("the blocker job was not started at once");
		return -1;
	}
	for (t0 = now_s(); now_s() - t0 < 20; sleep_s(0.002)) {
		if ((fd = open(d->pidfile, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			d->blocker_pid = (pid_t)strtol(buf, NULL, 10);
			return 0;
		}
	}
	broke("the blocker job did not start running within 20 s");
	return -1;
}

/* Is pid still the blocker's process ("sleep 3600")? Checked before any
 * kill outside the signal handler, so a recycled pid is never hit. */
static bool blocker_alive(pid_t pid)
{
	char path[64], buf[64];
	ssize_t n;
	int fd;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	n = read(fd, buf, sizeof buf);
	close(fd);
	return n == 11 && memcmp(buf, "sleep\0003600", 11) == 0;
}

/* Wait until a job has ended (any final state); 0, or -1 after `limit` s. */
static int wait_final(const char *sock, uint64_t id, double limit, double poll)
{
	char st[64];
	double t0 = now_s();

	while (now_s() - t0 < limit) {
		if (job_state(sock, id, st, sizeof st) == 0 && strcmp(st, "queued") != 0 &&
		    strcmp(st, "running") != 0)
			return 0;
		sleep_s(poll);
	}
	return -1;
}

/* Cancel the blocker with build/bkill and wait until it has ended. */
static int blocker_end(struct dmn *d)
{
	char id[32];
	const char *args[] = { "--socket", d->sock, id, NULL };
	int rc;

	if (!d->blocker)
		return 0;
	snprintf(id, sizeof id, "%" PRIu64, d->blocker);
	rc = run_prog("bkill", args);
	if (rc != 0)
		broke("bkill %s exited with %d", id, rc);
	if (wait_final(d->sock, d->blocker, 30, 0.01) < 0) {
		broke("the blocker job %s did not end within 30 s of bkill: killing it", id);
		rc = -1;
	}
	if (blocker_alive(d->blocker_pid)) {
		sleep_s(0.2);
		if (blocker_alive(d->blocker_pid)) {
			broke("the blocker's process %d is still there: killing it", (int)d->blocker_pid);
			kill(-d->blocker_pid, SIGKILL);
			rc = -1;
		}
	}
	d->blocker = 0;
	d->blocker_pid = 0;
	return rc == 0 ? 0 : -1;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static long long du_bytes;

static int du_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)flag;
	(void)ftw;
	du_bytes += (long long)st->st_blocks * 512;
	return 0;
}

static double du_mib(const char *path)
{
	du_bytes = 0;
	nftw(path, du_one, 64, FTW_PHYS);
	return (double)du_bytes / (1024.0 * 1024.0);
}

static double file_mib(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (double)st.st_size / (1024.0 * 1024.0) : 0;
}

/* Cancel queued jobs, newest first, CANCEL_CHUNK per request; the time
 * it took, or < 0. */
static double cancel_queued(struct dmn *d)
{
	double t0 = now_s();

	while (d->nq > 0) {
		size_t start = d->nq > CANCEL_CHUNK ? d->nq - CANCEL_CHUNK : 0;
		uint64_t ids[CANCEL_CHUNK];
		uint32_t n = 0;

		for (size_t k = d->nq; k-- > start;)
			ids[n++] = d->queued[k];
		if (cancel(d->sock, ids, n) < 0) {
			broke("cancelling %u queued jobs failed", n);
			return -1;
		}
		d->nq = start;
	}
	return now_s() - t0;
}

/* The end of a daemon: its queued jobs cancelled (under EASY, see the top
 * of the file), the blocker cancelled with bkill and ended, the daemon
 * stopped, the directory removed. Whatever fails, the blocker's process is
 * killed by its pid if it is still there. */
static void dmn_finish(struct dmn *d)
{
	if (d->pid > 0 && d->nq > 0 && strcmp(d->policy, "easy") != 0 &&
	    (dmn_stop(d) < 0 || dmn_start(d, "easy") < 0))
		d->nq = 0;
	if (d->pid > 0) {
		cancel_queued(d);
		blocker_end(d);
		dmn_stop(d);
	}
	if (blocker_alive(d->blocker_pid)) {
		broke("the blocker's process %d is still there: killing it", (int)d->blocker_pid);
		kill(-d->blocker_pid, SIGKILL);
		kill(d->blocker_pid, SIGKILL);
	}
	d->blocker_pid = 0;
	d->nq = 0;
	free(d->queued);
	d->queued = NULL;
	nftw(d->dir, rm_one, 64, FTW_DEPTH | FTW_PHYS);
	d->dir[0] = 0;
}

static int note_queued(struct dmn *d, uint64_t id)
{
	if (d->nq == d->capq) {
		size_t cap = d->capq ? 2 * d->capq : 1024;
		uint64_t *q = realloc(d->queued, cap * sizeof *q);

		if (!q)
			return -1;
		d->queued = q;
		d->capq = cap;
	}
	d->queued[d->nq++] = id;
	return 0;
}

/* ---- counting from outside: perf on the daemon's system calls ---- */

struct sysc {
	long commits, wakeups;		/* -1: not counted */
};

static char g_perf_out[PATH_MAX + 16];

static pid_t perf_start(struct dmn *d)
{
	const char *e = getenv("BENCH_PERF");
	char pid[16];
	pid_t p;

	if (e && strcmp(e, "0") == 0)
		return 0;
	snprintf(g_perf_out, sizeof g_perf_out, "%s/perf.out", d->dir);
	snprintf(pid, sizeof pid, "%d", (int)d->pid);
	unlink(g_perf_out);
	if ((p = fork()) < 0)
		return 0;
	if (p == 0) {
		int nul = open("/dev/null", O_RDWR);

		child_defaults();
		if (nul >= 0) {
			dup2(nul, 1);
			dup2(nul, 2);
		}
		execlp("perf", "perf", "stat", "-x", ",", "-o", g_perf_out, "-e",
		       "syscalls:sys_enter_fdatasync,syscalls:sys_enter_epoll_wait",
		       "-p", pid, (char *)NULL);
		_exit(127);
	}
	g_perf = p;
	sleep_s(0.3);	/* let it attach */
	return p;
}

static void perf_stop(pid_t p, struct sysc *c)
{
	char line[512];
	FILE *f;
	int st;

	c->commits = c->wakeups = -1;
	if (p <= 0)
		return;
	kill(p, SIGINT);
	waitpid(p, &st, 0);
	g_perf = 0;
	if (!(f = fopen(g_perf_out, "r")))
		return;
	while (fgets(line, sizeof line, f)) {
		char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
		long v;

		if (!c2 || line[0] < '0' || line[0] > '9')
			continue;
		v = strtol(line, NULL, 10);
		if (strncmp(c2 + 1, "syscalls:sys_enter_fdatasync,", 29) == 0)
			c->commits = v;
		else if (strncmp(c2 + 1, "syscalls:sys_enter_epoll_wait,", 30) == 0)
			c->wakeups = v;
	}
	fclose(f);
}

/* ---- K concurrent submitters ---- */

struct shared {
	int done[MAX_KIDS], failed[MAX_KIDS];
	float lat[];			/* K * M */
};

struct burst {
	size_t submitted, failed;
	double wall, rate;
	struct stats lat;		/* seconds */
	bool capped;
};

/* K processes submit M queued jobs each, released at once; each stops at
 * cap_s. The ids go to d->queued, in id (= queue) order. */
static int burst(struct dmn *d, int K, int M, double cap_s, struct burst *out)
{
	size_t n_all = (size_t)K * (size_t)M;
	size_t sz = sizeof(struct shared) + n_all * sizeof(float);
	struct shared *sh = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t *ids = mmap(NULL, n_all * sizeof *ids, PROT_READ | PROT_WRITE,
	                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t *v = NULL;
	double *lat = NULL, t0;
	size_t nlat = 0, nid = 0;
	int gate[2], st, started = 0;

	memset(out, 0, sizeof *out);
	if (sh == MAP_FAILED || ids == MAP_FAILED || K > MAX_KIDS || pipe(gate) < 0) {
		broke("cannot set up %d clients", K);
		return -1;
	}
	memset(sh, 0, sizeof *sh);
	rnd(&rnd_state);	/* another stream of jobs for every burst */
	for (int k = 0; k < K; k++) {
		pid_t p = fork();

		if (p < 0) {
			broke("fork: %s", strerror(errno));
			break;
		}
		if (p == 0) {
			uint64_t seed = rnd_state ^ (0x9e3779b97f4a7c15ull * (uint64_t)(k + 1));
			double deadline;
			char c;

			child_defaults();
			close(gate[1]);
			while (read(gate[0], &c, 1) < 0 && errno == EINTR)
				;
			deadline = now_s() + cap_s;
			for (int j = 0; j < M && now_s() < deadline; j++) {
				uint32_t nodes = QUEUE_MIN + (uint32_t)(rnd(&seed) % (NODES - QUEUE_MIN + 1));
				bf_time est = EST_MIN + (bf_time)(rnd(&seed) % (uint64_t)EST_SPAN);
				double a = now_s();
				uint64_t id;

				if (submit(d->sock, nodes, est, exit_script, &id, NULL) < 0) {
					sh->failed[k]++;
					break;
				}
				sh->lat[(size_t)k * (size_t)M + (size_t)j] = (float)(now_s() - a);
				ids[(size_t)k * (size_t)M + (size_t)j] = id;
				sh->done[k]++;
			}
			_exit(sh->failed[k] ? 1 : 0);
		}
		g_kids[k] = p;
		started++;
	}
	close(gate[0]);
	t0 = now_s();
	close(gate[1]);		/* everybody goes */
	for (int k = 0; k < started; k++) {
		while (waitpid(g_kids[k], &st, 0) < 0 && errno == EINTR)
			;
		g_kids[k] = 0;
	}
	out->wall = now_s() - t0;
	lat = malloc((n_all + 1) * sizeof *lat);
	v = malloc((n_all + 1) * sizeof *v);
	for (int k = 0; k < started; k++) {
		out->submitted += (size_t)sh->done[k];
		out->failed += (size_t)sh->failed[k];
		if (sh->done[k] < M && !sh->failed[k])
			out->capped = true;
		for (int j = 0; j < sh->done[k]; j++) {
			if (lat)
				lat[nlat++] = sh->lat[(size_t)k * (size_t)M + (size_t)j];
			if (v)
				v[nid++] = ids[(size_t)k * (size_t)M + (size_t)j];
		}
	}
	if (v) {
		qsort(v, nid, sizeof *v, cmp_u64);
		for (size_t k = 0; k < nid; k++)
			note_queued(d, v[k]);
	}
	out->lat = stats_of(lat, nlat);
	out->rate = out->wall > 0 ? (double)out->submitted / out->wall : 0;
	free(lat);
	free(v);
	munmap(sh, sz);
	munmap(ids, n_all * sizeof *ids);
	if (out->failed || started < K) {
		broke("%zu of %d clients had a submission fail", out->failed, K);
		return -1;
	}
	return 0;
}

/* ---- the loop-stall probe ---- */

/* A client that asks the state of one job (PT_INFO, as bq -l ID) every
 * PROBE_GAP_S while something else loads the daemon: the longest round
 * trip it sees is the longest the daemon's loop was held (a request is
 * answered in the turn after it arrives), plus one small request. */
#define PROBE_GAP_S	0.002
#define PROBE_MAX	400000

struct probe_shm {
	volatile int stop;
	uint32_t n;
	float lat[PROBE_MAX];
};

struct probe {
	pid_t pid;
	struct probe_shm *sh;
};

static int probe_start(struct probe *p, const char *sock, uint64_t id)
{
	p->sh = mmap(NULL, sizeof *p->sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->sh == MAP_FAILED) {
		p->sh = NULL;
		return -1;
	}
	p->sh->stop = 0;
	p->sh->n = 0;
	if ((p->pid = fork()) < 0) {
		munmap(p->sh, sizeof *p->sh);
		p->sh = NULL;
		return -1;
	}
	if (p->pid == 0) {
		char st[64];

		child_defaults();
		while (!p->sh->stop && p->sh->n < PROBE_MAX) {
			double a = now_s();

			if (job_state(sock, id, st, sizeof st) < 0)
				_exit(1);
			p->sh->lat[p->sh->n++] = (float)(now_s() - a);
			sleep_s(PROBE_GAP_S);
		}
		_exit(0);
	}
	return 0;
}

/* Stop the probe and print what it saw, on one line after `label`. */
static void probe_report(struct probe *p, const char *label)
{
	double *v;
	struct stats st;
	uint32_t over = 0;
	int status;

	if (!p->sh)
		return;
	p->sh->stop = 1;
	while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		broke("the probe's request failed (%s)", label);
	v = malloc((p->sh->n + 1) * sizeof *v);
	for (uint32_t k = 0; v && k < p->sh->n; k++) {
		v[k] = p->sh->lat[k];
		over += v[k] > 0.020;
	}
	if (v && p->sh->n) {
		st = stats_of(v, p->sh->n);
		printf("    loop stall, %s: longest %.1f ms, p99 %.1f ms; %u of %u probes over 20 ms\n",
		       label, st.max * 1e3, st.p99 * 1e3, over, p->sh->n);
	}
	free(v);
	munmap(p->sh, sizeof *p->sh);
	p->sh = NULL;
}

/* ---- the sections ---- */

static void fmt_ms(char *buf, size_t n, double s)
{
	snprintf(buf, n, "%.2f", s * 1e3);
}

static void fmt_count(char *buf, size_t n, long v)
{
	if (v >= 0)
		snprintf(buf, n, "%ld", v);
	else
		snprintf(buf, n, "n/a");
}

/* What creating one job's spool entry (a directory and a small file, as
 * the daemon does for each submission) costs on this file system. */
static void calibrate_fs(void)
{
	struct dmn *d = dmn_new();
	char path[PATH_MAX + 64];
	const int n = 2000;
	double t0;
	int fd;

	if (!d)
		return;
	t0 = now_s();
	for (int k = 0; k < n; k++) {
		snprintf(path, sizeof path, "%s/%d", d->dir, k);
		if (mkdir(path, 0700) < 0)
			return;
		snprintf(path, sizeof path, "%s/%d/script", d->dir, k);
		if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700)) < 0)
			return;
		if (write(fd, exit_script, sizeof exit_script - 1) < 0) {}
		close(fd);
	}
	printf("This file system (under %s): a directory and a small file, as the daemon spools\n"
	       "each job: %.0f us each (%d made; no sync).\n\n",
	       getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (now_s() - t0) * 1e6 / n, n);
}

/* 1. Durable submissions per second against the number of clients. */
#define TP_FMT "%7s %6s %9s %7s %7s %7s %7s %7s %8s %8s %8s  %s\n"
static void section_throughput(void)
{
	static const int Ks[] = { 1, 4, 16, 64 };
	static const int Ms[] = { 1000, 500, 250, 100 };
	bool capped = false;

	printf("== 1. Durable submissions over the socket (conservative, every job queued) ==\n"
	       "K client processes submit back to back, one connection per request (as bsub);\n"
	       "a fresh daemon per K. p50/p99/max: one submission's round trip. commits: the\n"
	       "daemon's fdatasync calls, one per commit of its store (and two per checkpoint;\n"
	       "its commit count is not in its log: counted with perf); wakeups: its\n"
	       "epoll_wait calls.\n");
	printf(TP_FMT, "clients", "jobs", "submitted", "wall_s", "jobs/s", "p50 ms", "p99 ms",
	       "max ms", "commits", "jobs/cmt", "wakeups", "target");
	printf(TP_FMT, "", "each", "", "", "", "", "", "", "", "", "", "");
	for (size_t i = 0; i < sizeof Ks / sizeof *Ks; i++) {
		struct dmn *d;
		struct burst b;
		struct sysc c;
		char k[24], m[24], sub[32], wall[32], rate[32], p50[32], p99[32], mx[32], cm[32],
		     jpc[32], wk[32];
		pid_t perf;

		if (!(d = dmn_new()))
			return;
		if (dmn_start(d, "conservative") < 0 || blocker_start(d) < 0)
			return;
		perf = perf_start(d);
		burst(d, Ks[i], Ms[i], 20, &b);
		perf_stop(perf, &c);
		snprintf(k, sizeof k, "%d", Ks[i]);
		snprintf(m, sizeof m, "%d", Ms[i]);
		snprintf(sub, sizeof sub, "%zu%s", b.submitted, b.capped ? "*" : "");
		capped |= b.capped;
		snprintf(wall, sizeof wall, "%.3f", b.wall);
		snprintf(rate, sizeof rate, "%.0f", b.rate);
		fmt_ms(p50, sizeof p50, b.lat.med);
		fmt_ms(p99, sizeof p99, b.lat.p99);
		fmt_ms(mx, sizeof mx, b.lat.max);
		fmt_count(cm, sizeof cm, c.commits);
		fmt_count(wk, sizeof wk, c.wakeups);
		if (c.commits > 0)
			snprintf(jpc, sizeof jpc, "%.2f", (double)b.submitted / (double)c.commits);
		else
			snprintf(jpc, sizeof jpc, "n/a");
		printf(TP_FMT, k, m, sub, wall, rate, p50, p99, mx, cm, jpc, wk, ">= 5,000/s");
	}
	if (capped)
		printf("(* stopped at the 20 s cap before all its jobs were in)\n");
	printf("\n");
}

#define ROW_FMT "%-13s %-48s %4s %9s %9s  %s\n"

static void row(const char *pol, const char *what, size_t n, double med, double max,
                const char *target)
{
	char ns[16], a[24], b[24];

	snprintf(ns, sizeof ns, "%zu", n);
	fmt_ms(a, sizeof a, med);
	fmt_ms(b, sizeof b, max);
	printf(ROW_FMT, pol, what, ns, a, b, target);
}

static void row_stats(const char *pol, const char *what, double *v, size_t n, const char *target)
{
	struct stats s = stats_of(v, n);

	row(pol, what, s.n, s.med, s.max, target);
}

/* The early end: a 1-node job that exits at once, on the free node. Times
 * submit -> reply (its start is decided in that pass; the supervisor is
 * forked before the reply) and reply -> its final state seen, polling
 * PT_INFO every 0.2 ms (the shell's run and the supervisor's record are
 * in that figure: compare with the empty queue). */
static void early_end(struct dmn *d, const char *pol, const char *label, int n)
{
	double sub[16], end[16];
	int k, ok = 0;
	char what[80];

	for (k = 0; k < n && k < 16; k++) {
		enum proto_start_kind kind = PS_NONE;
		uint64_t id;
		double t0 = now_s(), t1;

		if (submit(d->sock, 1, EST_MIN, exit_script, &id, &kind) < 0) {
			broke("%s: submitting the early-end job failed", pol);
			return;
		}
		t1 = now_s();
		if (kind != PS_ACTUAL) {
			broke("%s: the 1-node job did not start at once (start kind %d)", pol, (int)kind);
			wait_final(d->sock, id, 30, 0.01);
			return;
		}
		if (wait_final(d->sock, id, 30, 0.0002) < 0) {
			broke("%s: the 1-node job %" PRIu64 " did not end within 30 s", pol, id);
			return;
		}
		sub[ok] = t1 - t0;
		end[ok++] = now_s() - t1;
	}
	snprintf(what, sizeof what, "early end, %s: submit -> started", label);
	row_stats(pol, what, sub, (size_t)ok, "");
	snprintf(what, sizeof what, "early end, %s: started -> end seen", label);
	row_stats(pol, what, end, (size_t)ok, "");
}

/* 2 and 3 on one daemon with about MID_QUEUE jobs queued. */
static void measure_queue(struct dmn *d, const char *pol)
{
	struct probe pr = { 0 };
	double cancel_t[10], first_t[10], rep_t[20], v[10];
	bool easy = strcmp(pol, "easy") == 0;
	char what[96], id[32];
	uint32_t count = 0;
	size_t bytes = 0, nrep = 0;

	/* 2. Listing: each round makes a change (a bkill of the last queued
	 * job), then lists three times: the first listing after the change,
	 * then two repeats of an unchanged state. */
	for (int n = 0; n < 10; n++) {
		double t0 = now_s();

		if (cancel(d->sock, &d->queued[d->nq - 1], 1) < 0) {
			broke("%s: cancelling the last queued job failed", pol);
			return;
		}
		cancel_t[n] = now_s() - t0;
		d->nq--;
		for (int r = 0; r < 3; r++) {
			double t = list_all(d->sock, &count, &bytes);

			if (t < 0) {
				broke("%s: PT_LIST failed", pol);
				return;
			}
			if (r == 0)
				first_t[n] = t;
			else
				rep_t[nrep++] = t;
		}
	}
	snprintf(what, sizeof what, "PT_LIST all users, first after a change%s", easy ? " [b]" : "");
	row_stats(pol, what, first_t, 10, "< 20 ms");
	snprintf(what, sizeof what, "PT_LIST all users, repeated (%u jobs, %.1f MB)", count,
	         (double)bytes / 1e6);
	row_stats(pol, what, rep_t, nrep, "< 20 ms");
	for (int n = 0; n < 5; n++) {
		const char *args[] = { "-a", "--socket", d->sock, NULL };
		double t0 = now_s();
		int rc = run_prog("bq", args);

		v[n] = now_s() - t0;
		if (rc != 0) {
			broke("%s: bq -a exited with %d", pol, rc);
			return;
		}
	}
	row_stats(pol, "build/bq -a > /dev/null, repeated [c]", v, 5, "< 20 ms");

	/* 3. The pass. */
	for (int n = 0; n < 10; n++) {
		uint64_t seed = 0xabcdefull + (uint64_t)n, jid;
		uint32_t nodes = QUEUE_MIN + (uint32_t)(rnd(&seed) % (NODES - QUEUE_MIN + 1));
		bf_time est = EST_MIN + (bf_time)(rnd(&seed) % (uint64_t)EST_SPAN);
		double t0 = now_s();

		if (submit(d->sock, nodes, est, exit_script, &jid, NULL) < 0) {
			broke("%s: a submission failed", pol);
			return;
		}
		v[n] = now_s() - t0;
		note_queued(d, jid);
	}
	row_stats(pol, easy ? "submit one more (pass + commit + reply) [b]" :
	          "submit one more (pass + commit + reply)", v, 10, "");
	row_stats(pol, "bkill the last queued job (PT_CANCEL)", cancel_t, 10, "");
	snprintf(what, sizeof what, "%zu queued", d->nq);
	early_end(d, pol, what, 5);
	if (!easy && probe_start(&pr, d->sock, d->blocker) < 0)
		broke("cannot start the probe");
	for (int n = 0; n < 5; n++) {
		double t0 = now_s();

		if (cancel(d->sock, &d->queued[0], 1) < 0) {
			broke("%s: cancelling the first queued job failed", pol);
			probe_report(&pr, "until it broke off");
			return;
		}
		v[n] = now_s() - t0;
		memmove(d->queued, d->queued + 1, (d->nq - 1) * sizeof *d->queued);
		d->nq--;
	}
	row_stats(pol, easy ? "bkill the first queued job (PT_CANCEL)" :
	          "bkill the first queued job (PT_CANCEL) [a]", v, 5, "");
	{
		const char *args[] = { "--socket", d->sock, id, NULL };
		double t0;
		int rc;

		snprintf(id, sizeof id, "%" PRIu64, d->queued[0]);
		t0 = now_s();
		rc = run_prog("bkill", args);
		v[0] = now_s() - t0;
		if (rc != 0) {
			broke("%s: bkill %s exited with %d", pol, id, rc);
			probe_report(&pr, "until it broke off");
			return;
		}
		memmove(d->queued, d->queued + 1, (d->nq - 1) * sizeof *d->queued);
		d->nq--;
		row(pol, "build/bkill ID (the first queued; whole command)", 1, v[0], v[0], "");
	}
	if (!easy) {
		/* The compressions those cancels started go on in slices. */
		sleep_s(3);
		probe_report(&pr, "6 cancels of the head and 3 s after (conservative)");
	}
	printf("%-13s %-48s %4s %9.1f %9.1f\n", pol, "daemon VmRSS, VmHWM (MiB)", "",
	       mib(vm_kib(d->pid, "VmRSS")), mib(vm_kib(d->pid, "VmHWM")));
}

static void section_queue(void)
{
	struct dmn *d;
	struct burst b;
	struct probe pr = { 0 };
	char line[512];
	double t;

	printf("== 2-3. With %u jobs queued (conservative, then EASY on the same jobs) ==\n"
	       "65 nodes: a 64-node job runs throughout; the queue asks 2-65 nodes each, so\n"
	       "nothing else starts (the early-end jobs use the 65th node). Round trips as\n"
	       "seen by a client, in ms.\n", MID_QUEUE);
	printf(ROW_FMT, "policy", "what", "n", "median ms", "max ms", "target");
	if (!(d = dmn_new()))
		return;
	if (dmn_start(d, "conservative") < 0 || blocker_start(d) < 0)
		goto out;
	early_end(d, "conservative", "empty queue", 5);
	if (probe_start(&pr, d->sock, d->blocker) < 0)
		broke("cannot start the probe");
	if (burst(d, 16, (int)(MID_QUEUE / 16), 120, &b) < 0)
		goto out;
	printf("%-13s filling: %zu submissions by 16 clients in %.2f s: %.0f/s\n", "conservative",
	       b.submitted, b.wall, b.rate);
	probe_report(&pr, "while 16 clients fill the queue to 10,000 (conservative)");
	measure_queue(d, "conservative");
	if (dmn_stop(d) < 0)
		goto out;
	if ((t = dmn_start(d, "easy")) < 0)
		goto out;
	printf("%-13s restarted on the same database with --policy easy: answering after "
	       "%.0f ms\n", "easy", t * 1e3);
	measure_queue(d, "easy");
	log_line(d, "announced ", line, sizeof line);
	printf("    (its log: %s)\n", line[0] ? strstr(line, "announced") : "no announcement");
	printf("[a] conservative: a cancel at the head lets every later job move up\n"
	       "    (compression); the guarantees that moved are rewritten in that commit.\n"
	       "[b] easy: the predicted starts of the whole queue are planned a few ms per\n"
	       "    loop turn after a change and then shared (an arrival is added at once):\n"
	       "    the first listing after a change waits for them.\n"
	       "[c] bq after a change pays as the first PT_LIST does; repeated, it pays its own\n"
	       "    decoding and rendering of every row.\n");
out:
	probe_report(&pr, "until it broke off");	/* a probe left running */
	printf("\n");
}

/* 4. Memory with many live jobs, stop and restart. */
/* The last line of the daemon's log that holds `what`, into buf ("" if
 * none). */

/* Conservative at depth, each event with the probe on: a cancel of the
 * head (its compression goes on in slices; 3 s of it are watched), then a
 * node lost (its repair and placing again go on in slices: watched until
 * the daemon logs that they are over, at most 60 s). -1 if it broke. */
static int depth_events(struct dmn *d)
{
	const char *args[] = { "--socket", d->sock, "down", "node065", "--reason", "bench", NULL };
	struct probe pr = { 0 };
	char line[600], placed[512];
	double t0;

	if (probe_start(&pr, d->sock, d->blocker) < 0)
		broke("cannot start the probe");
	t0 = now_s();
	if (cancel(d->sock, &d->queued[0], 1) < 0) {
		broke("cancelling the head with %zu queued failed", d->nq);
		probe_report(&pr, "until it broke off");
		return -1;
	}
	printf("bkill the first queued job (PT_CANCEL) with %zu queued: %.1f ms\n", d->nq,
	       (now_s() - t0) * 1e3);
	memmove(d->queued, d->queued + 1, (d->nq - 1) * sizeof *d->queued);
	d->nq--;
	sleep_s(3);
	snprintf(line, sizeof line, "the cancel of the head with %zu queued and 3 s after", d->nq);
	probe_report(&pr, line);
	if (geteuid() != 0) {
		printf("(node down: not measured, bctl is for root)\n");
		return 0;
	}
	if (probe_start(&pr, d->sock, d->blocker) < 0)
		broke("cannot start the probe");
	t0 = now_s();
	if (run_prog("bctl", args) != 0) {
		broke("bctl down node065 failed");
		probe_report(&pr, "until it broke off");
		return -1;
	}
	printf("bctl down node065 (idle) with %zu queued: answered after %.1f ms\n", d->nq,
	       (now_s() - t0) * 1e3);
	do {
		sleep_s(0.1);
		log_line(d, "placed again: ", placed, sizeof placed);
	} while (!placed[0] && now_s() - t0 < 60);
	snprintf(line, sizeof line, "node down with %zu queued, until placed again", d->nq);
	probe_report(&pr, line);
	printf("  (its log: %s)\n", placed[0] ? strstr(placed, "placed again") : "not over in 60 s");
	return 0;
}

static void section_big(void)
{
	const char *e = getenv("BENCH_DAEMON_BIG"), *bu = getenv("BENCH_DAEMON_BUDGET");
	size_t want = e && *e ? strtoul(e, NULL, 10) : 100000;
	double budget = bu && *bu ? strtod(bu, NULL) : 150, t, elapsed = 0;
	const size_t chunk = 10000;
	struct dmn *d;
	struct burst b;
	struct probe pr = { 0 };
	uint32_t count = 0;
	size_t bytes = 0;
	double v[3];
	char line[512], wal[PATH_MAX + 32];
	long rss0;
	bool cut = false;
	FILE *f;

	if (want < chunk)
		want = chunk;
	printf("== 4. The daemon with up to %zu live jobs in its database (conservative, all\n"
	       "queued behind the running job; 16 clients submit, %zu at a time; filling\n"
	       "budget %.0f s) ==\n", want, chunk, budget);
	if (!(d = dmn_new()))
		return;
	if (dmn_start(d, "conservative") < 0 || blocker_start(d) < 0)
		goto out;
	rss0 = vm_kib(d->pid, "VmRSS");
	printf("%-16s %8s %8s %8s %8s %10s %10s\n", "jobs queued", "wall_s", "jobs/s", "p50 ms",
	       "p99 ms", "VmRSS MiB", "VmHWM MiB");
	printf("%-16s %8s %8s %8s %8s %10.1f %10.1f\n", "0", "", "", "", "", mib(rss0),
	       mib(vm_kib(d->pid, "VmHWM")));
	if (probe_start(&pr, d->sock, d->blocker) < 0)
		broke("cannot start the probe");
	while (d->nq < want) {
		size_t left = want - d->nq, n = left < chunk ? left : chunk;

		if (burst(d, 16, (int)((n + 15) / 16), budget - elapsed + 10, &b) < 0)
			goto out;
		elapsed += b.wall;
		snprintf(line, sizeof line, "%zu-%zu", d->nq - b.submitted, d->nq);
		printf("%-16s %8.2f %8.0f %8.2f %8.2f %10.1f %10.1f\n", line, b.wall, b.rate,
		       b.lat.med * 1e3, b.lat.p99 * 1e3, mib(vm_kib(d->pid, "VmRSS")),
		       mib(vm_kib(d->pid, "VmHWM")));
		if (d->nq < want && b.rate > 0 && elapsed + (double)chunk / b.rate > budget) {
			printf("stopped at %zu jobs: the next %zu would pass the %.0f s budget at %.0f/s; "
			       "the %zu left would take at least %.0f s more at that rate (it falls as "
			       "the queue grows)\n", d->nq, chunk, budget, b.rate, want - d->nq,
			       (double)(want - d->nq) / b.rate);
			break;
		}
	}
	snprintf(line, sizeof line, "while 16 clients fill the queue to %zu (conservative)", d->nq);
	probe_report(&pr, line);
	{
		long rss = vm_kib(d->pid, "VmRSS");
		double per = d->nq ? (double)(rss - rss0) / (double)d->nq : 0;

		printf("filled %zu jobs in %.1f s (%.0f/s overall); VmRSS %.1f MiB, VmHWM %.1f MiB: "
		       "%.2f KiB per queued job", d->nq, elapsed, (double)d->nq / elapsed, mib(rss),
		       mib(vm_kib(d->pid, "VmHWM")), per);
		if (d->nq < want)
			printf(", so about %.0f MiB at %zu (extrapolated)", mib(rss0) +
			       per * (double)want / 1024.0, want);
		printf("\n");
	}
	snprintf(wal, sizeof wal, "%s-wal", d->db);
	printf("on disk: database %.1f MiB + WAL %.1f MiB; spool %.1f MiB\n", file_mib(d->db),
	       file_mib(wal), du_mib(d->spool));
	for (int k = 0; k < 3; k++)
		if ((v[k] = list_all(d->sock, &count, &bytes)) < 0) {
			broke("PT_LIST with %zu queued failed", d->nq);
			goto out;
		}
	{
		struct stats s = stats_of(v, 3);

		cut = count < d->nq + 1;
		printf("PT_LIST all users: %.1f ms median, %.1f ms max of 3; the reply holds %u of "
		       "the %zu jobs (%.1f MB)%s\n", s.med * 1e3, s.max * 1e3, count, d->nq + 1,
		       (double)bytes / 1e6, count < d->nq + 1 ? " [d]" : "");
	}
	if (depth_events(d) < 0)
		goto out;
	if ((t = dmn_stop(d)) < 0)
		goto out;
	printf("stop (SIGTERM to exit): %.0f ms\n", t * 1e3);
	if ((t = dmn_start(d, "conservative")) < 0)
		goto out;
	printf("restart on the same database: answering after %.0f ms; VmRSS %.1f MiB, VmHWM "
	       "%.1f MiB\n", t * 1e3, mib(vm_kib(d->pid, "VmRSS")), mib(vm_kib(d->pid, "VmHWM")));
	if ((f = fopen(d->log, "r"))) {
		char last[512] = "";

		while (fgets(line, sizeof line, f))
			if (strstr(line, "restored "))
				snprintf(last, sizeof last, "%s", line);
		fclose(f);
		if (last[0])
			printf("  (its log: %s)\n", strtok(last, "\n"));
	}
	if ((v[0] = list_all(d->sock, &count, &bytes)) < 0) {
		broke("PT_LIST after the restart failed");
		goto out;
	}
	printf("first PT_LIST after the restart: %.1f ms; VmRSS after it %.1f MiB\n", v[0] * 1e3,
	       mib(vm_kib(d->pid, "VmRSS")));
	{
		size_t nq = d->nq;

		if (dmn_stop(d) < 0 || dmn_start(d, "easy") < 0)
			goto out;
		/* EASY predicts every queued job's start, a slice per loop turn.
		 * First a change that waits for a pass (the policy switch, which
		 * announces and stores every guarantee it drops, is over by then). */
		t = now_s();
		if (cancel(d->sock, &d->queued[d->nq - 1], 1) < 0) {
			broke("a cancel under EASY failed");
			goto out;
		}
		d->nq--;
		printf("restarted under EASY (%zu guarantees dropped, each announced and stored): a "
		       "cancel, %.0f ms\n", nq, (now_s() - t) * 1e3);
		if (probe_start(&pr, d->sock, d->blocker) < 0)
			broke("cannot start the probe");
		for (int k = 0; k < 3; k++)
			if ((v[k] = list_all(d->sock, &count, &bytes)) < 0) {
				broke("PT_LIST under EASY failed");
				goto out;
			}
		printf("then PT_LIST all users %.1f ms (the first: every start predicted anew), then "
		       "%.1f, %.1f ms; %u predicted starts in the reply of %u jobs\n", v[0] * 1e3,
		       v[1] * 1e3, v[2] * 1e3, g_predicted, count);
		snprintf(line, sizeof line, "3 listings under EASY with %zu queued", d->nq);
		probe_report(&pr, line);
		log_line(d, "announced ", line, sizeof line);
		printf("  (its log: %s)\n", line[0] ? strstr(line, "announced") : "no announcement");
		if ((t = cancel_queued(d)) < 0)
			goto out;
		printf("clean-up, restarted under EASY: cancelling the %zu queued jobs, newest first, "
		       "%u per request: %.2f s\n", nq, CANCEL_CHUNK, t);
	}
	if (cut)
		printf("[d] a listing that does not fit one frame (%u MiB) holds the jobs that fit "
		       "(running, then queued in order) and says how many there were.\n",
		       PROTO_MAX_PAYLOAD >> 20);
out:
	probe_report(&pr, "until it broke off");	/* a probe left running */
	printf("\n");
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	char path[PATH_MAX], prog[PATH_MAX + 32];
	const char *progs[] = { "backfilld", "bq", "bkill", "bctl" };
	const char *only = getenv("BENCH_DAEMON_ONLY");
	double t0 = now_s();

	if (!realpath(argc > 1 ? argv[1] : "build", path)) {
		fprintf(stderr, "bench_daemon: %s: %s\n", argc > 1 ? argv[1] : "build", strerror(errno));
		return 1;
	}
	memcpy(g_build, path, sizeof g_build);
	for (size_t k = 0; k < sizeof progs / sizeof *progs; k++) {
		snprintf(prog, sizeof prog, "%s/%s", g_build, progs[k]);
		if (access(prog, X_OK) < 0) {
			fprintf(stderr, "bench_daemon: %s is missing: build first\n", prog);
			return 1;
		}
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);

	printf("The live daemon (%s/backfilld, %s), kill grace %s s, each on its own temporary\n"
	       "socket, database and spool. Wall-clock times seen by the clients, on a machine\n"
	       "shared with whatever else runs; targets for reference only.\n\n", g_build,
	       geteuid() == 0 ? "as root" : "not root", GRACE);
	calibrate_fs();
	if (!only || strchr(only, '1'))
		section_throughput();
	if (!only || strchr(only, '2') || strchr(only, '3'))
		section_queue();
	if (!only || strchr(only, '4'))
		section_big();
	{
		double t1 = now_s();
		int n = 0;

		for (int k = 0; k < g_ndmn; k++) {
			n += g_dmn[k]->policy[0] != 0;	/* a daemon, not a scratch directory */
			dmn_finish(g_dmn[k]);	/* kept registered: the directory is gone */
		}
		printf("clean-up of the %d daemons (their queues cancelled under EASY, the running\n"
		       "jobs with bkill, the daemons stopped, the directories removed): %.1f s\n",
		       n, now_s() - t1);
	}
	printf("bench_daemon took %.1f s\n", now_s() - t0);
	return failures ? 1 : 0;
}
