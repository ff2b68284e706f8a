/* torture: crash-torture for the live daemon.
 *
 * One run: start backfilld (as the caller, normally root; --foreground, its
 * own temporary socket, database and spool, a small partition), drive a
 * storm of concurrent clients over the wire protocol (submissions, cancels,
 * listings, single-job queries), kill -9 the daemon at chosen moments,
 * restart it on the same state, and after K crashes stop submitting, wait
 * for every job to end, stop the daemon and judge what happened against
 * the invariants below. The clients are not processes: one poll loop here
 * keeps up to TORTURE_CLIENTS requests in flight, so every reply is seen
 * with its exact time and its exact (microsecond) guarantee.
 *
 * The jobs are this very program (argv[1] == "--job", run by a spooled
 * two-line script): each appends what happens to it to a file of its own
 * (start, a lock it could not take, SIGTERM, exit), takes an exclusive
 * flock per node of $BSUB_NODES for its whole life, and runs a planned
 * time: shorter than its limit, just under it, past it (ending on
 * SIGTERM) or past it ignoring SIGTERM (ending on SIGKILL).
 *
 * Invariants (numbered as in the report and the TAP output):
 *  1 every acknowledged job exists exactly once with its parameters;
 *  2 no id is reused (acknowledged twice, or stored under other parameters);
 *  3 no job starts later than the best guarantee ever shown to a client
 *    (plus TOL_START) unless the daemon announced the break with a true
 *    cause, or the guarantee fell while the daemon was down (or within
 *    AFTER_RESTART of its restart); also: a guarantee shown later than an
 *    earlier one without an announcement, and (conservative) a stored
 *    guarantee, read from the database after a crash, later than shown;
 *  4 no job ran twice (two start lines), none ran without the daemon
 *    knowing;
 *  5 no two jobs held a node at once (the flocks, and the daemon's own
 *    start/end/node records);
 *  6 no job was signalled before its limit unless it was cancelled;
 *  7 no process of this run is left once every job has ended and the
 *    daemon was stopped (found by an environment marker: the daemon's
 *    environment, which its supervisors inherit, and the jobs');
 *  8 every acknowledged job reached a final state; failed ones say why;
 *  9 the daemon never ended by itself (a storm whose daemon died ends as a
 *    crash would: it is started again).
 *
 * Environment: BF_BUILD (the build directory: BF_BUILD/backfilld),
 * TORTURE_CRASHES (default 50), TORTURE_SEED (default: from the clock;
 * printed), TORTURE_POLICY (conservative or easy), TORTURE_NODES (6),
 * TORTURE_CLIENTS (6), TORTURE_TAP=1 (TAP output for tests/run.sh),
 * TORTURE_KEEP=1 (keep the temporary directory even on success).
 * Exit status: 0 no violation, 1 violations, 2 the harness could not run.
 * The seed fixes every random choice (job sizes, times, crash modes and
 * moments); what the daemon does in between depends on timing, so a seed
 * reproduces the storm, not necessarily the same interleaving. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bf_time.h"
#include "nodelist.h"
#include "proto.h"
#include "sys/store.h"

#define MAX_SLOTS	16
#define GRACE		BF_SEC			/* --kill-grace 1 */
#define TOL_START	(BF_SEC / 2)		/* fork and exec on a loaded 2-core machine */
#define TOL_TERM	(BF_SEC / 50)		/* the daemon's timer against its own start */
#define TOL_MOVE	1000			/* a shown guarantee "moved" by more than 1 ms */
#define LOG_LAG		BF_SEC			/* a log line may reach us this late */
#define AFTER_RESTART	BF_SEC			/* a guarantee due this soon after a restart */
#define REQ_TIMEOUT	(10 * BF_SEC)
#define DRAIN_TIMEOUT	(150 * BF_SEC)		/* the final wait for every job to end */
#define MAX_EXAMPLES	6			/* evidence lines per invariant */

/* ---- small things ---- */

static bf_time now_rt(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (bf_time)ts.tv_sec * BF_SEC + ts.tv_nsec / 1000;
}

static bf_time now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (bf_time)ts.tv_sec * BF_SEC + ts.tv_nsec / 1000;
}

static void sleep_us(bf_time us)
{
	struct timespec ts = { (time_t)(us / BF_SEC), (long)(us % BF_SEC) * 1000 };

	while (us > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- the job: what the daemon runs (argv: --job MODE RUN_MS DIR) ---- */

static volatile sig_atomic_t job_term;
static struct timespec job_term_rt, job_term_mono;

/* Only async-signal-safe calls; the first SIGTERM's time is kept. */
static void job_on_term(int sig)
{
	(void)sig;
	if (!job_term) {
		clock_gettime(CLOCK_REALTIME, &job_term_rt);
		clock_gettime(CLOCK_MONOTONIC, &job_term_mono);
		job_term = 1;
	}
}

/* One line with one write(2) on an O_APPEND file: lines of two runs of the
 * same job never mix. */
static void jlog(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jlog(int fd, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0 && write(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1) < 0)
		_exit(120);
}

static bf_time ts_us(const struct timespec *ts)
{
	return (bf_time)ts->tv_sec * BF_SEC + ts->tv_nsec / 1000;
}

/* Take every node's lock, non-blocking: a lock held means another live
 * process (a job, whatever became of it) still has that node. The locks
 * go with the process, even on SIGKILL. */
static void job_lock_nodes(int fd, const char *dir, const char *id, const char *nodes)
{
	char *copy = strdup(nodes ? nodes : ""), *save = NULL, *name;

	if (!copy)
		_exit(121);
	for (name = strtok_r(copy, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
		char path[PATH_MAX], holder[96] = "";
		int lfd;
		ssize_t n;

		snprintf(path, sizeof path, "%s/locks/%s", dir, name);
		if ((lfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
			jlog(fd, "error %d %lld open %s: %s\n", (int)getpid(), (long long)now_rt(), path,
			     strerror(errno));
			continue;
		}
		if (flock(lfd, LOCK_EX | LOCK_NB) < 0) {
			n = pread(lfd, holder, sizeof holder - 1, 0);
			holder[n > 0 ? n : 0] = 0;
			holder[strcspn(holder, "\n")] = 0;
			jlog(fd, "lockfail %d %lld %s held-by: %s\n", (int)getpid(), (long long)now_rt(),
			     name, holder[0] ? holder : "?");
			close(lfd);
			continue;
		}
		n = snprintf(holder, sizeof holder, "job %s pid %d since %lld\n", id, (int)getpid(),
		             (long long)now_rt());
		if (ftruncate(lfd, 0) < 0 || pwrite(lfd, holder, (size_t)n, 0) < 0)
			jlog(fd, "error %d %lld writing %s\n", (int)getpid(), (long long)now_rt(), path);
		/* lfd stays open (and locked) until the process ends. */
	}
	free(copy);
}

static int job_main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = job_on_term };
	const char *id = getenv("BSUB_JOBID"), *nodes = getenv("BSUB_NODES"), *dir;
	char path[PATH_MAX];
	struct timespec t0, m0;
	bf_time deadline, m;
	int fd, mode;
	long long run_ms;

	if (argc != 5 || !id)
		return 125;
	mode = argv[2][0];
	run_ms = strtoll(argv[3], NULL, 10);
	dir = argv[4];
	clock_gettime(CLOCK_REALTIME, &t0);
	clock_gettime(CLOCK_MONOTONIC, &m0);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) < 0)
		return 124;
	snprintf(path, sizeof path, "%s/runs/%s.log", dir, id);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
		return 123;
	jlog(fd, "start %d %lld %s\n", (int)getpid(), (long long)ts_us(&t0), nodes ? nodes : "");
	job_lock_nodes(fd, dir, id, nodes);
	deadline = ts_us(&m0) + run_ms * 1000;
	for (bool logged = false; (m = now_mono()) < deadline;) {
		sleep_us(deadline - m < 20000 ? deadline - m : 20000);
		if (job_term && !logged) {
			logged = true;
			jlog(fd, "term %d %lld %lld\n", (int)getpid(), (long long)ts_us(&job_term_rt),
			     (long long)(ts_us(&job_term_mono) - ts_us(&m0)));
			if (mode != 'i') {
				jlog(fd, "exit %d %lld on-term\n", (int)getpid(), (long long)now_rt());
				_exit(143);
			}
		}
	}
	jlog(fd, "exit %d %lld end\n", (int)getpid(), (long long)now_rt());
	return 0;
}

/* ---- the harness's state ---- */

enum sub_state { SUB_SENDING, SUB_ACKED, SUB_UNKNOWN, SUB_REFUSED, SUB_NOTSENT };
enum op { OP_SUBMIT, OP_LIST, OP_INFO, OP_CANCEL };
enum src { SRC_SUBMITTED, SRC_LIST, SRC_INFO };
static const char *const src_names[] = { "PT_SUBMITTED", "PT_JOBS listing", "PT_INFO" };
static const char *const mode_names[] = { "short", "near-limit", "overrun", "ignores-TERM" };

struct gobs {			/* one guarantee shown to a client */
	bf_time sent, t, g;	/* the request's send time, the reply's arrival */
	uint8_t src;
};

struct sub {			/* one submission */
	uint32_t idx;
	char name[32];
	uint32_t nodes;
	bf_time est;
	int mode;		/* index into mode_names */
	int64_t run_ms;
	bool burst;
	enum sub_state state;
	bf_time t_sent, t_reply;
	int epoch;		/* daemon instance it was sent to */
	uint64_t id;		/* 0 until known */
	enum proto_start_kind ack_kind;
	bf_time ack_start;
	struct gobs *obs;
	uint32_t nobs, capobs;
	/* what the daemon last said about it */
	char dstate[16];
	bf_time dstart, dend, dsubmit;
	bool final, seen, has_exit;
	int32_t exit_status;
	char *node_list, *reason;
	unsigned reported;	/* bit per invariant already reported for this job */
};

struct slot {			/* one client request in flight */
	bool busy;
	int fd;
	enum op op;
	struct proto_buf req;
	size_t woff;
	uint8_t *in;
	size_t inlen, incap;
	bf_time t_sent, next_at;
	uint32_t sub;
	uint64_t id;
};

struct inst {			/* one daemon process */
	pid_t pid;
	int logfd;
	bf_time t_exec, t_ready, t_end;
	char line[4096];
	size_t linelen;
};

struct ann {			/* a broken guarantee the daemon announced */
	bf_time stamp, t_old, t_new;
	int inst;
	uint64_t job, seq;	/* seq: the daemon's log lines before it, all runs */
	bool legacy;		/* the old "to X s from now" form: no T_OLD */
	char cause[200];
	char line[480];
};

struct snap {			/* a queued job's stored guarantee after a crash */
	uint64_t id;
	bf_time g;
};

enum crash_mode { CM_RANDOM, CM_BURST, CM_BURST_START, CM_END, CM_N };
static const char *const crash_names[] = { "random", "burst", "burst-start", "job-end" };

struct crash {
	enum crash_mode mode;
	bf_time t_kill, t_ready, delay;
	uint32_t acks;		/* acknowledged during the storm before it */
	struct snap *snap;
	uint32_t nsnap, capsnap;
	bool snap_failed;
};

struct viol {
	int inv;		/* 1..9 */
	char *text;
};

struct runrec {			/* what a job's own file says */
	uint32_t starts, lockfails, terms;
	bf_time first_start, term_rt, term_elapsed;
	pid_t pids[4];
	bf_time start_t[4];
	char *evidence;		/* the lines about starts and locks, for the report */
};

struct ctx {
	/* settings */
	uint64_t seed, rng;
	uint32_t crashes, nodes, nslots;
	const char *policy;
	bool tap, keep;
	char build[PATH_MAX], self[PATH_MAX], dir[PATH_MAX];
	char sock[PATH_MAX + 32], db[PATH_MAX + 32], spool[PATH_MAX + 32], work[PATH_MAX + 32];
	char marker[96];	/* TORTURE_MARK=..., in the daemon's and every job's environment */
	char *script;
	FILE *logf;
	bf_time t0;
	/* state */
	struct sub *subs;
	uint32_t nsubs, capsubs;
	int32_t *by_id;		/* id -> submission index, -1 */
	bf_time *cancel_at;	/* id -> first cancel sent, 0 */
	uint64_t *ended_seq;	/* id -> its "ended:" log line's seq, 0 */
	uint64_t log_lines;	/* the daemon's, over all its runs */
	uint64_t idcap, max_id;
	struct slot slots[MAX_SLOTS];
	struct inst *insts;
	uint32_t ninsts, capinsts;
	struct ann *anns;
	uint32_t nanns, capanns;
	struct crash *crash;
	uint32_t ncrash;
	struct viol *viols;
	uint32_t nviols, capviols;
	char **notes;
	uint32_t nnotes, capnotes;
	struct runrec *runs;	/* by id */
	uint64_t nruns;
	/* crash trigger state of the current storm */
	bool burst_on, listing_only, submitting;
	uint32_t burst_left;
	bf_time kill_at;
	enum crash_mode cmode;
	/* counters */
	uint64_t n_connect_err[4];	/* EAGAIN, ECONNREFUSED, ENOENT, other */
	uint64_t n_ops[4], n_failed_ops, n_cancel_sent, n_refused, n_timeouts;
};

static struct ctx *g_ctx;		/* for the signal clean-up only */
static volatile sig_atomic_t g_abort;

static void cleanup_processes(struct ctx *C);

static void die(struct ctx *C, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(struct ctx *C, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs(C && C->tap ? "not ok 1 - the torture ran: " : "torture: fatal: ", stdout);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	if (C) {
		cleanup_processes(C);
		printf("%sthe temporary directory is kept: %s\n", C->tap ? "# " : "", C->dir);
		if (C->tap)
			puts("1..1");
	}
	exit(2);
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		die(g_ctx, "allocation overflow");
	if (!(p = realloc(p, n && size ? n * size : 1)))
		die(g_ctx, "out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *c;

	if (!s)
		return NULL;
	if (!(c = strdup(s)))
		die(g_ctx, "out of memory");
	return c;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die(g_ctx, "out of memory");
	return s;
}

/* Room for one more element in a growing array. */
#define GROW(arr, n, cap)                                                      \
	do {                                                                   \
		if ((n) == (cap)) {                                            \
			(cap) = (cap) ? 2 * (cap) : 16;                        \
			(arr) = xrealloc((arr), (cap), sizeof *(arr));         \
		}                                                              \
	} while (0)

/* splitmix64: every random choice of the run comes from the seed. */
static uint64_t rnd64(struct ctx *C)
{
	uint64_t z = (C->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd(struct ctx *C, uint64_t n)
{
	return n ? rnd64(C) % n : 0;
}

static double rndf(struct ctx *C)
{
	return (double)(rnd64(C) >> 11) / 9007199254740992.0;
}

/* Seconds since the epoch with 6 decimals, as the daemon's announcements. */
static const char *tfmt(bf_time t, char *buf, size_t len)
{
	if (t == BF_NEVER)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%lld.%06lld", (long long)(t / BF_SEC), (long long)(t % BF_SEC));
	return buf;
}

/* Seconds since the run began, for humans. */
static double rel(const struct ctx *C, bf_time t)
{
	return (double)(t - C->t0) / BF_SEC;
}

static void viol(struct ctx *C, int inv, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void viol(struct ctx *C, int inv, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die(C, "out of memory");
	va_end(ap);
	GROW(C->viols, C->nviols, C->capviols);
	C->viols[C->nviols++] = (struct viol){ inv, s };
	if (C->logf)
		fprintf(C->logf, "[%+.6f] VIOLATION %d: %s\n", rel(C, now_rt()), inv, s);
}

static void note(struct ctx *C, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ctx *C, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die(C, "out of memory");
	va_end(ap);
	GROW(C->notes, C->nnotes, C->capnotes);
	C->notes[C->nnotes++] = s;
}

/* Output: TAP mode prefixes everything but the ok lines with "# ". */
static void say(const struct ctx *C, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct ctx *C, const char *fmt, ...)
{
	va_list ap;

	if (C->tap)
		fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* ---- ids ---- */

static void id_room(struct ctx *C, uint64_t id)
{
	uint64_t old = C->idcap, cap = old ? old : 256;

	if (id < old)
		return;
	if (id > 100000000)
		die(C, "job id %" PRIu64 " out of any plausible range", id);
	while (cap <= id)
		cap *= 2;
	C->by_id = xrealloc(C->by_id, cap, sizeof *C->by_id);
	C->cancel_at = xrealloc(C->cancel_at, cap, sizeof *C->cancel_at);
	C->ended_seq = xrealloc(C->ended_seq, cap, sizeof *C->ended_seq);
	for (uint64_t k = old; k < cap; k++) {
		C->by_id[k] = -1;
		C->cancel_at[k] = 0;
		C->ended_seq[k] = 0;
	}
	C->idcap = cap;
}

/* by_id holds TOMB for an id already reported as not ours (a phantom, or
 * a second id of one submission): it is never judged again. */
#define TOMB INT32_MAX

static bool tomb(const struct ctx *C, uint64_t id)
{
	return id < C->idcap && C->by_id[id] == TOMB;
}

static struct sub *sub_of(struct ctx *C, uint64_t id)
{
	return id < C->idcap && C->by_id[id] >= 0 && C->by_id[id] != TOMB ? &C->subs[C->by_id[id]]
	                                                                   : NULL;
}

/* Our submissions are named "tt-INDEX": a job's name says which it is. */
static int64_t name_index(const struct ctx *C, const char *name)
{
	unsigned long long k;
	int n = 0;

	if (!name || sscanf(name, "tt-%llu%n", &k, &n) != 1 || name[n] || k >= C->nsubs)
		return -1;
	return (int64_t)k;
}

static void add_obs(struct sub *s, bf_time sent, bf_time t, bf_time g, enum src src)
{
	GROW(s->obs, s->nobs, s->capobs);
	s->obs[s->nobs++] = (struct gobs){ sent, t, g, (uint8_t)src };
}

/* ---- what the daemon says about a job ---- */

static bool state_final(const char *st)
{
	return st && (strcmp(st, "done") == 0 || strcmp(st, "exit") == 0 ||
	              strcmp(st, "killed") == 0 || strcmp(st, "cancelled") == 0 ||
	              strcmp(st, "failed") == 0);
}

/* The parameters the job was submitted with, against a record. */
static void check_params(struct ctx *C, struct sub *s, const struct proto_job *pj, bool detail)
{
	char why[600] = "", out[PATH_MAX + 64];
	size_t w = 0;

#define MISMATCH(...) (w += (size_t)snprintf(why + w, w < sizeof why ? sizeof why - w : 0, __VA_ARGS__))
	if (pj->nodes != s->nodes)
		MISMATCH(" nodes %u (submitted %u)", pj->nodes, s->nodes);
	if (pj->estimate != s->est)
		MISMATCH(" estimate %lld us (submitted %lld)", (long long)pj->estimate, (long long)s->est);
	if (!pj->name || strcmp(pj->name, s->name) != 0)
		MISMATCH(" name %s (submitted %s)", pj->name ? pj->name : "(none)", s->name);
	if (pj->uid != (uint32_t)geteuid())
		MISMATCH(" uid %u", pj->uid);
	if (s->state == SUB_ACKED && (pj->submit < s->t_sent - 2000 || pj->submit > s->t_reply + 2000))
		MISMATCH(" submit time %.6f outside the request's round trip [%.6f, %.6f]",
		         rel(C, pj->submit), rel(C, s->t_sent), rel(C, s->t_reply));
	if (detail) {
		snprintf(out, sizeof out, "%s/bsub-%" PRIu64 ".out", C->work, pj->id);
		if (!pj->cwd || strcmp(pj->cwd, C->work) != 0)
			MISMATCH(" cwd %s", pj->cwd ? pj->cwd : "(none)");
		if (!pj->out || strcmp(pj->out, out) != 0)
			MISMATCH(" output %s (expected %s)", pj->out ? pj->out : "(none)", out);
	}
#undef MISMATCH
	if (w && !(s->reported & 1u << 1)) {
		s->reported |= 1u << 1;
		viol(C, s->state == SUB_ACKED ? 2 : 1,
		     "job %" PRIu64 " (submission %s, %s at %+.3f s) is stored with other parameters:%s",
		     pj->id, s->name, s->state == SUB_ACKED ? "acknowledged" : "unacknowledged",
		     rel(C, s->t_sent), why);
	}
}

/* One job record from a listing or PT_INFO, received at t. */
static void observe_job(struct ctx *C, const struct proto_job *pj, bool detail, bf_time sent,
                        bf_time t)
{
	struct sub *s = sub_of(C, pj->id);
	int64_t k = name_index(C, pj->name);

	if (pj->id == 0 || tomb(C, pj->id))
		return;
	id_room(C, pj->id);
	if (pj->id > C->max_id)
		C->max_id = pj->id;
	if (!s) {
		if (k < 0) {
			viol(C, 1, "job %" PRIu64 " (name %s) exists but no client of this run submitted it",
			     pj->id, pj->name ? pj->name : "(none)");
			C->by_id[pj->id] = TOMB;	/* reported; never looked up again */
			return;
		}
		s = &C->subs[k];
		if (s->id && s->id != pj->id) {
			if (!(s->reported & 1u << 2))
				viol(C, 2, "submission %s (%s as job %" PRIu64 ") also exists as job %" PRIu64,
				     s->name, s->state == SUB_ACKED ? "acknowledged" : "seen", s->id, pj->id);
			s->reported |= 1u << 2;
			C->by_id[pj->id] = TOMB;
			return;
		}
		s->id = pj->id;
		C->by_id[pj->id] = (int32_t)k;
	} else if (k != (int64_t)s->idx) {
		if (!(s->reported & 1u << 2))
			viol(C, 2, "job %" PRIu64 " was acknowledged to submission %s but is stored as %s",
			     pj->id, s->name, pj->name ? pj->name : "(no name)");
		s->reported |= 1u << 2;
		return;
	}
	check_params(C, s, pj, detail);
	s->seen = true;
	snprintf(s->dstate, sizeof s->dstate, "%s", pj->state ? pj->state : "?");
	if (pj->start_kind == PS_ACTUAL)
		s->dstart = pj->start;
	if (pj->start_kind == PS_GUARANTEED && pj->state && strcmp(pj->state, "queued") == 0)
		add_obs(s, sent, t, pj->start, detail ? SRC_INFO : SRC_LIST);
	if (state_final(pj->state)) {
		s->final = true;
		s->dend = pj->end;
		s->has_exit = pj->has_exit;
		s->exit_status = pj->exit_status;
	}
	if (detail) {
		free(s->node_list);
		free(s->reason);
		s->node_list = xstrdup(pj->node_list);
		s->reason = xstrdup(pj->reason);
	}
	s->dsubmit = pj->submit;
}

/* A listing's records: one id twice in one listing is a violation too. */
static void observe_jobs(struct ctx *C, const struct proto_jobs *m, bool detail, bf_time sent,
                         bf_time t)
{
	for (uint32_t a = 0; a < m->count; a++) {
		for (uint32_t b = a + 1; b < m->count && !detail; b++)
			if (m->jobs[a].id == m->jobs[b].id)
				viol(C, 1, "job %" PRIu64 " appears twice in one listing (at %+.3f s)",
				     m->jobs[a].id, rel(C, t));
		observe_job(C, &m->jobs[a], detail, sent, t);
	}
}

/* ---- the daemon ---- */

/* One log line, stamped with the time it reached us; an announcement of a
 * broken guarantee is parsed. Forms: the agreed one,
 *   job ID: guarantee broken: start moved later from T_OLD to T_NEW (CAUSE)
 *   (or ": CAUSE"), T as a local "YYYY-MM-DD HH:MM:SS" rounded up to the
 *   second (today's daemon: the exact value is in the journal only), as
 *   seconds.micro (before), or "none";
 * and the old one, kept so today's daemon can be judged:
 *   job ID: its guaranteed start moved later, to X s from now (CAUSE). */
static bool parse_t(const char *s, bf_time *t, const char **end)
{
	char *e;
	long long sec;
	bf_time us = 0;
	int digits = 0;

	struct tm tm;

	if (strncmp(s, "none", 4) == 0) {
		*t = BF_NEVER;
		*end = s + 4;
		return true;
	}
	memset(&tm, 0, sizeof tm);
	if (strlen(s) >= 19 && s[4] == '-' && (e = strptime(s, "%Y-%m-%d %H:%M:%S", &tm))) {
		time_t secs;

		tm.tm_isdst = -1;	/* the daemon's localtime_r, undone */
		if ((secs = mktime(&tm)) == (time_t)-1)
			return false;
		*t = (bf_time)secs * BF_SEC;
		*end = e;
		return true;
	}
	errno = 0;
	sec = strtoll(s, &e, 10);
	if (e == s || errno)
		return false;
	if (*e == '.')
		for (e++; *e >= '0' && *e <= '9'; e++)
			if (digits++ < 6)
				us = us * 10 + (*e - '0');
	while (digits++ < 6)
		us *= 10;
	*t = (bf_time)sec * BF_SEC + us;
	*end = e;
	return true;
}

static void take_cause(const char *p, char *cause, size_t len)
{
	size_t n;

	if (strncmp(p, " (", 2) == 0) {
		p += 2;
		n = strlen(p);
		if (n && p[n - 1] == ')')
			n--;
	} else if (strncmp(p, ": ", 2) == 0) {
		p += 2;
		n = strlen(p);
	} else {
		n = strlen(p);
	}
	snprintf(cause, len, "%.*s", (int)n, p);
}

static void parse_ann(struct ctx *C, const char *line, bf_time stamp)
{
	static const char now_form[] = ": guarantee broken: start moved later from ";
	static const char old_form[] = ": its guaranteed start moved later, to ";
	struct ann a = { .stamp = stamp, .inst = (int)C->ninsts - 1, .seq = C->log_lines };
	const char *p, *q;
	unsigned long long id;
	int n;

	for (p = strstr(line, "job "); p; p = strstr(p + 1, "job ")) {
		if (sscanf(p, "job %llu%n", &id, &n) != 1)
			continue;
		q = p + n;
		if (strncmp(q, now_form, sizeof now_form - 1) == 0) {
			q += sizeof now_form - 1;
			if (!parse_t(q, &a.t_old, &q) || strncmp(q, " to ", 4) != 0 ||
			    !parse_t(q + 4, &a.t_new, &q))
				break;
		} else if (strncmp(q, old_form, sizeof old_form - 1) == 0) {
			double sec;
			int m = 0;

			q += sizeof old_form - 1;
			a.legacy = true;
			a.t_old = BF_NEVER;
			if (strncmp(q, "none", 4) == 0) {
				a.t_new = BF_NEVER;
				q = strchr(q, '(') ? strchr(q, '(') - 1 : q + strlen(q);
			} else if (sscanf(q, "%lf s from now%n", &sec, &m) == 1 && m > 0) {
				a.t_new = stamp + (bf_time)(sec * BF_SEC);
				q += m;
			} else {
				break;
			}
		} else {
			continue;
		}
		a.job = id;
		take_cause(q, a.cause, sizeof a.cause);
		snprintf(a.line, sizeof a.line, "%.479s", line);
		GROW(C->anns, C->nanns, C->capanns);
		C->anns[C->nanns++] = a;
		return;
	}
	if (strstr(line, "guarantee") && strstr(line, "later"))
		note(C, "a log line about a later guarantee that the harness could not parse: %s", line);
}

/* "job ID: ended: ...": when the daemon saw the job's supervisor end, as
 * near as the log tells (its nodes were held until then; the pipe keeps
 * the order of the daemon's lines). */
static void parse_end(struct ctx *C, const char *line)
{
	static const char form[] = ": ended: ";
	unsigned long long id;
	const char *p;
	int n;

	for (p = strstr(line, "job "); p; p = strstr(p + 1, "job "))
		if (sscanf(p, "job %llu%n", &id, &n) == 1 && strncmp(p + n, form, sizeof form - 1) == 0) {
			id_room(C, id);
			if (!C->ended_seq[id])
				C->ended_seq[id] = C->log_lines;
			return;
		}
}

/* Read what the daemon logged (non-blocking); stamp, keep and parse it. */
static void log_read(struct ctx *C, struct inst *in)
{
	char buf[4096];
	ssize_t n;

	while (in->logfd >= 0) {
		n = read(in->logfd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(in->logfd);
			in->logfd = -1;
			return;
		}
		for (ssize_t k = 0; k < n; k++) {
			if (buf[k] != '\n' && in->linelen < sizeof in->line - 1) {
				in->line[in->linelen++] = buf[k];
				continue;
			}
			if (buf[k] != '\n')
				continue;	/* a very long line: the rest is dropped */
			in->line[in->linelen] = 0;
			fprintf(C->logf, "[%+.6f d%u] %s\n", rel(C, now_rt()), C->ninsts - 1, in->line);
			C->log_lines++;
			parse_ann(C, in->line, now_rt());
			parse_end(C, in->line);
			in->linelen = 0;
		}
	}
}

static struct inst *cur(struct ctx *C)
{
	return C->ninsts ? &C->insts[C->ninsts - 1] : NULL;
}

/* A blocking request with a deadline, for checks (not the storm). 0 with
 * the reply (malloc'ed), -1 if the daemon did not answer. */
static int rpc(struct ctx *C, const struct proto_buf *req, uint8_t **rep, size_t *rlen,
               enum proto_type *type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { 5, 0 };
	uint8_t hdr[PROTO_HEADER];
	size_t plen, off;
	int fd;

	*rep = NULL;
	memcpy(sa.sun_path, C->sock, strlen(C->sock) + 1);	/* its length was checked */
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		goto fail;
	for (off = 0; off < req->len;) {
		ssize_t n = write(fd, req->p + off, req->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		off += (size_t)n;
	}
	for (off = 0; off < PROTO_HEADER;) {
		ssize_t n = read(fd, hdr + off, PROTO_HEADER - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		off += (size_t)n;
	}
	plen = (size_t)hdr[0] << 24 | (size_t)hdr[1] << 16 | (size_t)hdr[2] << 8 | hdr[3];
	if (plen > PROTO_MAX_PAYLOAD)
		goto fail;
	*rep = xrealloc(NULL, PROTO_HEADER + plen, 1);
	memcpy(*rep, hdr, PROTO_HEADER);
	for (off = 0; off < plen;) {
		ssize_t n = read(fd, *rep + PROTO_HEADER + off, plen - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		off += (size_t)n;
	}
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

/* PT_LIST (all users) or PT_INFO for one job, observed; -1 if no answer,
 * 0 answered (jobs observed), 1 PT_ERROR (its code in *code). */
static int query(struct ctx *C, uint64_t id, enum proto_err *code)
{
	struct proto_buf b;
	struct proto_list l = { .all_users = true, .has_job = id != 0, .job = id };
	struct proto_arena a = { 0 };
	struct proto_jobs m;
	struct proto_error e;
	uint8_t *rep = NULL;
	size_t len = 0;
	enum proto_type type;
	char err[200];
	int rc = -1;
	bf_time sent;

	proto_buf_init(&b);
	if (proto_enc_list(&b, id ? PT_INFO : PT_LIST, &l) < 0)
		die(C, "encoding a listing");
	sent = now_rt();
	if (rpc(C, &b, &rep, &len, &type) == 0) {
		if (type == PT_JOBS && proto_dec_jobs(rep, len, &m, &a, err, sizeof err) == 0) {
			observe_jobs(C, &m, id != 0, sent, now_rt());
			rc = 0;
		} else if (type == PT_ERROR && proto_dec_error(rep, len, &e, &a, err, sizeof err) == 0) {
			*code = e.code;
			rc = 1;
		}
	}
	proto_arena_free(&a);
	free(rep);
	proto_buf_free(&b);
	return rc;
}

static void start_daemon(struct ctx *C)
{
	char bin[PATH_MAX + 16], grace[16];
	int p[2], tries = 0;
	struct inst *in;
	pid_t pid;

	snprintf(bin, sizeof bin, "%s/backfilld", C->build);
	snprintf(grace, sizeof grace, "%lld", (long long)(GRACE / BF_SEC));
again:
	if (pipe2(p, O_CLOEXEC) < 0)
		die(C, "pipe: %s", strerror(errno));
	GROW(C->insts, C->ninsts, C->capinsts);
	in = &C->insts[C->ninsts++];
	*in = (struct inst){ .logfd = p[0], .t_exec = now_rt() };
	if ((pid = fork()) < 0)
		die(C, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* Its own session: a terminal's ^C reaches the harness, which
		 * stops it; the environment carries the run's marker, which
		 * every supervisor it forks keeps. */
		char nodes[16];
		const char *argv[] = { bin, "--foreground", "--socket", C->sock, "--db", C->db,
		                       "--spool", C->spool, "--nodes", nodes, "--policy", C->policy,
		                       "--kill-grace", grace, NULL };
		const char *envp[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C",
		                       "TORTURE_ROLE=daemon", C->marker, NULL };
		int null = open("/dev/null", O_RDONLY);

		snprintf(nodes, sizeof nodes, "%u", C->nodes);
		setsid();
		if (null < 0 || dup2(null, 0) < 0 || dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
			_exit(126);
		execve(bin, (char *const *)argv, (char *const *)envp);
		_exit(127);
	}
	close(p[1]);
	in->pid = pid;
	if (fcntl(in->logfd, F_SETFL, O_NONBLOCK) < 0)
		die(C, "fcntl: %s", strerror(errno));
	/* Ready when it answers a listing (10 s at most). */
	for (int k = 0; k < 2000; k++) {
		enum proto_err code;
		int st;

		log_read(C, in);
		if (query(C, 0, &code) == 0) {
			in->t_ready = now_rt();
			return;
		}
		if (waitpid(pid, &st, WNOHANG) == pid) {
			in->pid = 0;
			in->t_end = now_rt();
			while (in->logfd >= 0)
				log_read(C, in);
			/* A supervisor forked just before the crash holds the
			 * state's lock until it closes its inherited fds:
			 * a moment. */
			if (++tries < 20) {
				note(C, "a restart was refused (exit status %d), tried again", WEXITSTATUS(st));
				sleep_us(50000);
				goto again;
			}
			die(C, "the daemon did not start (status %d); its log: %s/daemon.log", st, C->dir);
		}
		sleep_us(5000);
	}
	die(C, "the daemon did not answer within 10 s; its log: %s/daemon.log", C->dir);
}

/* Read the log until its pipe closes (a forked supervisor may hold the
 * write end for a moment), at most 300 ms. */
static void log_drain(struct ctx *C, struct inst *in)
{
	bf_time until = now_rt() + 300000;

	while (in->logfd >= 0 && now_rt() < until) {
		struct pollfd pf = { in->logfd, POLLIN, 0 };

		if (poll(&pf, 1, 20) > 0)
			log_read(C, in);
	}
	if (in->logfd >= 0) {
		close(in->logfd);
		in->logfd = -1;
	}
}

/* The daemon ended without our kill: a failure of its own. */
static void died(struct ctx *C, struct inst *in, int st)
{
	viol(C, 9, "daemon %u (pid %d) ended by itself at %+.3f s (noticed then) with %s %d; see the "
	     "lines tagged d%u in daemon.log", (unsigned)(in - C->insts), (int)in->pid, rel(C, now_rt()),
	     WIFSIGNALED(st) ? "signal" : "exit status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
	     (unsigned)(in - C->insts));
	in->pid = 0;
}

/* Stop the daemon we started: SIGKILL (a crash) or SIGTERM (a clean stop). */
static void stop_daemon(struct ctx *C, int sig)
{
	struct inst *in = cur(C);
	int st;

	if (!in)
		return;
	if (in->pid <= 0) {	/* it ended by itself: already reported */
		log_drain(C, in);
		return;
	}
	in->t_end = now_rt();
	if (waitpid(in->pid, &st, WNOHANG) == in->pid) {
		died(C, in, st);
		log_drain(C, in);
		return;
	}
	if (kill(in->pid, sig) < 0)
		die(C, "kill %d: %s", (int)in->pid, strerror(errno));
	for (int k = 0; sig != SIGKILL && k < 1500; k++) {
		log_read(C, in);
		if (waitpid(in->pid, &st, WNOHANG) == in->pid) {
			in->pid = 0;
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
				viol(C, 9, "the daemon's clean stop (SIGTERM) ended with status %d", st);
			break;
		}
		sleep_us(10000);
	}
	if (in->pid > 0) {
		if (sig != SIGKILL) {
			viol(C, 7, "the daemon (pid %d) did not stop within 15 s of SIGTERM", (int)in->pid);
			kill(in->pid, SIGKILL);
		}
		while (waitpid(in->pid, &st, 0) < 0 && errno == EINTR)
			;
		in->pid = 0;
	}
	log_drain(C, in);
}

/* ---- the storm: requests in flight ---- */

static void slot_close(struct slot *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->busy = false;
	s->inlen = 0;
}

/* The request failed before a whole reply came. */
static void slot_fail(struct ctx *C, struct slot *s)
{
	if (s->op == OP_SUBMIT) {
		struct sub *u = &C->subs[s->sub];

		/* A frame not wholly written cannot have been taken. */
		u->state = s->woff == s->req.len ? SUB_UNKNOWN : SUB_NOTSENT;
		u->t_reply = now_rt();
	}
	C->n_failed_ops++;
	slot_close(s);
}

static struct sub *new_sub(struct ctx *C, bool burst)
{
	struct sub *s;
	double r = rndf(C);

	GROW(C->subs, C->nsubs, C->capsubs);
	s = &C->subs[C->nsubs];
	*s = (struct sub){ .idx = C->nsubs, .dstart = BF_NEVER, .dend = BF_NEVER, .burst = burst };
	C->nsubs++;
	snprintf(s->name, sizeof s->name, "tt-%u", s->idx);
	if (burst) {
		/* Small and short: they start at once where nodes are free. */
		s->nodes = 1 + (uint32_t)rnd(C, 2);
		s->est = (bf_time)(1000 + rnd(C, 2000)) * 1000;
	} else {
		s->nodes = rnd(C, 2) ? 1 : 1 + (uint32_t)rnd(C, C->nodes);
		s->est = (bf_time)(1000 + rnd(C, 5001)) * 1000;	/* 1-6 s, to the ms */
	}
	s->mode = r < 0.50 ? 0 : r < 0.70 ? 1 : r < 0.85 ? 2 : 3;
	if (burst && s->mode > 1 && rnd(C, 2))
		s->mode = 0;
	switch (s->mode) {
	case 0:		/* ends well before its limit, sometimes at once */
		s->run_ms = (int64_t)(rndf(C) * 0.8 * (double)s->est / 1000);
		break;
	case 1:		/* ends within the last 10% of its limit */
		s->run_ms = (int64_t)((0.9 + 0.08 * rndf(C)) * (double)s->est / 1000);
		break;
	default:	/* runs past its limit (and its grace: would end by itself) */
		s->run_ms = s->est / 1000 + GRACE / 1000 + 2000 + (int64_t)rnd(C, 1000);
		break;
	}
	return s;
}

static void encode_submit(struct ctx *C, struct slot *sl, struct sub *s)
{
	char run[32], mode[2] = { "sn" "oi"[s->mode], 0 };
	const char *argv[] = { mode, run, C->dir };
	const char *env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "HOME=/root",
	                      C->marker };
	struct proto_submit m = {
		.nodes = s->nodes, .estimate = s->est, .name = s->name,
		.script = (const uint8_t *)C->script, .script_len = (uint32_t)strlen(C->script),
		.cwd = C->work, .argv = argv, .argc = 3, .env = env, .envc = 4,
	};

	snprintf(run, sizeof run, "%lld", (long long)s->run_ms);
	if (proto_enc_submit(&sl->req, &m) < 0)
		die(C, "encoding a submission");
}

/* A live job we know of, at random (0 if none). */
static uint64_t pick_live(struct ctx *C, bool running_only)
{
	uint64_t ids[64];
	uint32_t n = 0;

	for (uint32_t k = C->nsubs; k-- > 0 && n < 64;) {
		struct sub *s = &C->subs[k];

		if (s->id && !s->final && (!running_only || s->dstart != BF_NEVER))
			ids[n++] = s->id;
	}
	return n ? ids[rnd(C, n)] : 0;
}

static uint32_t live_count(const struct ctx *C)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < C->nsubs; k++) {
		const struct sub *s = &C->subs[k];

		n += s->state == SUB_SENDING || (s->state == SUB_ACKED && !s->final);
	}
	return n;
}

static void slot_start(struct ctx *C, struct slot *sl, enum op op, bool burst)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sub *s = NULL;

	sl->op = op;
	sl->id = 0;
	switch (op) {
	case OP_SUBMIT:
		s = new_sub(C, burst);
		sl->sub = s->idx;
		encode_submit(C, sl, s);
		break;
	case OP_LIST:
		proto_enc_list(&sl->req, PT_LIST, &(struct proto_list){ .all_users = true });
		break;
	case OP_INFO:
		sl->id = rnd(C, 4) ? pick_live(C, false) : 1 + rnd(C, C->max_id + 2);
		if (!sl->id)
			sl->id = 1 + rnd(C, C->max_id + 1);
		proto_enc_list(&sl->req, PT_INFO, &(struct proto_list){ .has_job = true, .job = sl->id });
		break;
	case OP_CANCEL:
		/* Mostly a live job (queued or running), sometimes any id. */
		sl->id = rnd(C, 5) ? pick_live(C, rnd(C, 2)) : 1 + rnd(C, C->max_id + 3);
		if (!sl->id)
			sl->id = 1 + rnd(C, C->max_id + 1);
		proto_enc_cancel(&sl->req, &(struct proto_cancel){ &sl->id, 1, 0 });
		break;
	}
	if (sl->req.failed)
		die(C, "encoding a request");
	C->n_ops[op]++;
	sl->t_sent = now_rt();
	sl->woff = 0;
	sl->inlen = 0;
	memcpy(sa.sun_path, C->sock, strlen(C->sock) + 1);	/* its length was checked */
	if (s) {
		s->t_sent = sl->t_sent;
		s->state = SUB_SENDING;
		s->epoch = (int)C->ninsts - 1;
	}
	sl->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (sl->fd < 0)
		die(C, "socket: %s", strerror(errno));
	sl->busy = true;
	if (connect(sl->fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		/* Not sent at all: no daemon, or its backlog is full. */
		C->n_connect_err[errno == EAGAIN ? 0 : errno == ECONNREFUSED ? 1 : errno == ENOENT ? 2 : 3]++;
		slot_fail(C, sl);
		return;
	}
	if (op == OP_CANCEL) {
		id_room(C, sl->id);
		if (!C->cancel_at[sl->id])
			C->cancel_at[sl->id] = sl->t_sent;
		C->n_cancel_sent++;
	}
}

static void on_reply(struct ctx *C, struct slot *sl, bf_time t)
{
	struct proto_arena a = { 0 };
	enum proto_type type = (enum proto_type)sl->in[5];
	struct proto_submitted m;
	struct proto_jobs j;
	struct proto_error e;
	char err[300];

	if (sl->op == OP_SUBMIT) {
		struct sub *s = &C->subs[sl->sub], *o;

		s->t_reply = t;
		if (type == PT_SUBMITTED && proto_dec_submitted(sl->in, sl->inlen, &m, err, sizeof err) == 0) {
			s->state = SUB_ACKED;
			fprintf(C->logf, "[%+.6f] ack %s -> job %" PRIu64 " (%s %.6f; sent %+.6f)\n", rel(C, t),
			        s->name, m.job, m.kind == PS_ACTUAL ? "started" : m.kind == PS_GUARANTEED ?
			        "guaranteed" : m.kind == PS_PREDICTED ? "predicted" : "no start",
			        m.start == BF_NEVER ? 0.0 : rel(C, m.start), rel(C, s->t_sent));
			s->ack_kind = m.kind;
			s->ack_start = m.start;
			id_room(C, m.job);
			if (m.job > C->max_id)
				C->max_id = m.job;
			o = sub_of(C, m.job);
			if (tomb(C, m.job) || (o && o != s)) {
				viol(C, 2, "id %" PRIu64 " acknowledged to submission %s at %+.3f s, but it "
				     "already belonged to %s", m.job, s->name, rel(C, t),
				     o ? o->name : "a job seen before");
			} else if (s->id && s->id != m.job) {
				viol(C, 2, "submission %s acknowledged as job %" PRIu64 " but already seen as "
				     "job %" PRIu64, s->name, m.job, s->id);
			} else {
				s->id = m.job;
				C->by_id[m.job] = (int32_t)s->idx;
			}
			if (m.kind == PS_GUARANTEED)
				add_obs(s, s->t_sent, t, m.start, SRC_SUBMITTED);
			if (m.kind == PS_ACTUAL) {
				s->dstart = m.start;
				if (C->cmode == CM_BURST_START && C->burst_on && s->burst && !C->kill_at)
					C->kill_at = t + (bf_time)rnd(C, 3000);
			}
		} else if (type == PT_ERROR && proto_dec_error(sl->in, sl->inlen, &e, &a, err, sizeof err) == 0) {
			s->state = SUB_REFUSED;
			C->n_refused++;
			note(C, "submission %s refused: %s", s->name, e.message ? e.message : "?");
		} else {
			s->state = SUB_UNKNOWN;
			note(C, "submission %s: an unexpected reply (type %d)", s->name, (int)type);
		}
	} else if ((sl->op == OP_LIST || sl->op == OP_INFO) && type == PT_JOBS) {
		if (proto_dec_jobs(sl->in, sl->inlen, &j, &a, err, sizeof err) == 0)
			observe_jobs(C, &j, sl->op == OP_INFO, sl->t_sent, t);
		else
			note(C, "an undecodable listing: %s", err);
	} else if (sl->op == OP_INFO && type == PT_ERROR &&
	           proto_dec_error(sl->in, sl->inlen, &e, &a, err, sizeof err) == 0) {
		struct sub *s = sub_of(C, sl->id);

		if (e.code == PE_NOJOB && s && s->state == SUB_ACKED &&
		    !(s->reported & 1u << 1)) {
			s->reported |= 1u << 1;
			viol(C, 1, "job %" PRIu64 " (submission %s, acknowledged at %+.3f s) is missing: "
			     "PT_INFO at %+.3f s answered \"%s\"", sl->id, s->name, rel(C, s->t_reply),
			     rel(C, t), e.message ? e.message : "no such job");
		}
	}
	proto_arena_free(&a);
	slot_close(sl);
}

/* Move every request on; handle the log. At most timeout_ms in poll. */
static void pump(struct ctx *C, int timeout_ms)
{
	struct pollfd pf[MAX_SLOTS + 1];
	struct slot *who[MAX_SLOTS + 1];
	struct inst *in = cur(C);
	nfds_t n = 0;
	bf_time t;

	if (in && in->logfd >= 0) {
		pf[n] = (struct pollfd){ in->logfd, POLLIN, 0 };
		who[n++] = NULL;
	}
	for (uint32_t k = 0; k < C->nslots; k++) {
		struct slot *sl = &C->slots[k];

		if (!sl->busy)
			continue;
		pf[n] = (struct pollfd){ sl->fd, sl->woff < sl->req.len ? POLLOUT : POLLIN, 0 };
		who[n++] = sl;
	}
	if (poll(pf, n, timeout_ms) < 0 && errno != EINTR)
		die(C, "poll: %s", strerror(errno));
	t = now_rt();
	for (nfds_t k = 0; k < n; k++) {
		struct slot *sl = who[k];
		ssize_t r;

		if (!sl) {
			if (pf[k].revents)
				log_read(C, in);
			continue;
		}
		if (!pf[k].revents) {
			if (t - sl->t_sent > REQ_TIMEOUT) {
				C->n_timeouts++;
				note(C, "a request (op %d) had no answer within %lld s", (int)sl->op,
				     (long long)(REQ_TIMEOUT / BF_SEC));
				slot_fail(C, sl);
			}
			continue;
		}
		if (sl->woff < sl->req.len) {
			r = write(sl->fd, sl->req.p + sl->woff, sl->req.len - sl->woff);
			if (r > 0)
				sl->woff += (size_t)r;
			else if (r < 0 && errno != EAGAIN && errno != EINTR)
				slot_fail(C, sl);
			continue;
		}
		if (sl->inlen == sl->incap) {
			sl->incap = sl->incap ? 2 * sl->incap : 4096;
			sl->in = xrealloc(sl->in, sl->incap, 1);
		}
		r = read(sl->fd, sl->in + sl->inlen, sl->incap - sl->inlen);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0) {
			slot_fail(C, sl);
			continue;
		}
		sl->inlen += (size_t)r;
		if (sl->inlen >= PROTO_HEADER) {
			size_t plen = (size_t)sl->in[0] << 24 | (size_t)sl->in[1] << 16 |
			              (size_t)sl->in[2] << 8 | sl->in[3];

			if (plen > PROTO_MAX_PAYLOAD)
				slot_fail(C, sl);
			else if (sl->inlen >= PROTO_HEADER + plen)
				on_reply(C, sl, t);
		}
	}
}

static bool any_busy(const struct ctx *C)
{
	for (uint32_t k = 0; k < C->nslots; k++)
		if (C->slots[k].busy)
			return true;
	return false;
}

/* What an idle client does next. */
static enum op pick_op(struct ctx *C)
{
	double r = rndf(C);

	if (C->listing_only)
		return r < 0.8 ? OP_LIST : OP_INFO;
	if (r < 0.45)	/* a submission, unless enough jobs are live already */
		return C->submitting && live_count(C) < 3 * C->nodes ? OP_SUBMIT :
		       rnd(C, 2) ? OP_LIST : OP_INFO;
	if (r < 0.58)
		return OP_CANCEL;
	if (r < 0.85)
		return OP_LIST;
	return OP_INFO;
}

/* When some running job will end by itself next (its start plus its
 * planned run), at least `after` from now; BF_NEVER if none is known. */
static bf_time next_end(struct ctx *C, bf_time after)
{
	bf_time best = BF_NEVER;

	for (uint32_t k = 0; k < C->nsubs; k++) {
		struct sub *s = &C->subs[k];
		bf_time e;

		if (!s->id || s->final || s->dstart == BF_NEVER)
			continue;
		e = s->mode <= 1 ? s->dstart + s->run_ms * 1000 : s->dstart + s->est;
		if (e >= after && e < best)
			best = e;
	}
	return best;
}

/* One storm until the crash: returns when the daemon is to be killed.
 * `len` is how long it runs before the crash's trigger is armed. */
static void storm(struct ctx *C, enum crash_mode mode, bf_time len)
{
	bf_time t0 = now_rt(), t, burst_sent = 0, next_alive = 0;

	C->cmode = mode;
	C->burst_on = false;
	C->listing_only = false;
	C->kill_at = 0;
	C->burst_left = 0;
	for (;;) {
		t = now_rt();
		if (g_abort)
			die(C, "interrupted");
		if (t >= t0 + len) {
			switch (mode) {
			case CM_RANDOM:
				C->kill_at = t;
				break;
			case CM_BURST:
			case CM_BURST_START:
				if (!C->burst_on) {
					C->burst_on = true;
					C->burst_left = C->nslots;
				}
				if (!C->burst_left && !burst_sent) {
					bool written = true;

					for (uint32_t k = 0; k < C->nslots; k++)
						if (C->slots[k].busy && C->slots[k].op == OP_SUBMIT &&
						    C->slots[k].woff < C->slots[k].req.len)
							written = false;
					if (written) {
						burst_sent = t;
						if (mode == CM_BURST && !C->kill_at)
							C->kill_at = t + (bf_time)rnd(C, 8000);
					}
				}
				if (mode == CM_BURST_START && burst_sent && !C->kill_at &&
				    t > burst_sent + BF_SEC)
					C->kill_at = t;	/* no job started: crash anyway */
				break;
			case CM_END:
				if (!C->kill_at) {
					bf_time e = next_end(C, t + 50000);

					C->kill_at = e != BF_NEVER && e < t + 3 * BF_SEC ?
					             e - 5000 + (bf_time)rnd(C, 30000) : t;
				}
				/* Listings all around the end: one may share the
				 * loop pass that compresses the plan. */
				C->listing_only = C->kill_at - t < 300000;
				break;
			default:
				break;
			}
		}
		if (C->kill_at && t >= C->kill_at)
			return;
		if (t >= next_alive) {
			int st;

			next_alive = t + 50000;
			if (cur(C)->pid > 0 && waitpid(cur(C)->pid, &st, WNOHANG) == cur(C)->pid) {
				died(C, cur(C), st);
				return;	/* restarted as after a crash */
			}
		}
		for (uint32_t k = 0; k < C->nslots; k++) {
			struct slot *sl = &C->slots[k];

			if (sl->busy)
				continue;
			if (C->burst_on && C->burst_left) {
				C->burst_left--;
				slot_start(C, sl, OP_SUBMIT, true);
			} else if (t >= sl->next_at) {
				slot_start(C, sl, pick_op(C), false);
				sl->next_at = t + (bf_time)rnd(C, 40000);
			}
		}
		pump(C, 2);
	}
}

/* ---- crashes ---- */

static int snap_one(const struct store_job *r, void *arg)
{
	struct crash *cr = arg;

	if (r->state == ST_QUEUED) {
		GROW(cr->snap, cr->nsnap, cr->capsnap);
		cr->snap[cr->nsnap++] = (struct snap){ r->id, r->guarantee };
	}
	return 0;
}

/* The queued jobs' guarantees as the restart will read them. */
static void snapshot_store(struct ctx *C, struct crash *cr)
{
	char err[300];
	struct store *st = store_open(C->db, err, sizeof err);

	if (!st || store_load_live(st, snap_one, cr) < 0) {
		cr->snap_failed = true;
		note(C, "reading the store after crash %u: %s", C->ncrash, st ? store_error(st) : err);
	}
	if (st)
		store_close(st);
}

/* The checks after a restart: every acknowledged job that was live is
 * still there with its parameters; a listing has each id once. */
static void check_restart(struct ctx *C)
{
	enum proto_err code;
	int rc;

	if (query(C, 0, &code) != 0)
		note(C, "the listing after restart %u failed", C->ninsts - 1);
	for (uint32_t k = 0; k < C->nsubs; k++) {
		struct sub *s = &C->subs[k];

		if (s->state != SUB_ACKED || s->final || !s->id)
			continue;
		rc = query(C, s->id, &code);
		if (rc == 1 && code == PE_NOJOB && !(s->reported & 1u << 1)) {
			s->reported |= 1u << 1;
			viol(C, 1, "job %" PRIu64 " (submission %s, acknowledged at %+.3f s) is missing after "
			     "restart %u", s->id, s->name, rel(C, s->t_reply), C->ninsts - 1);
		} else if (rc != 0) {
			note(C, "PT_INFO %" PRIu64 " after restart %u: no answer (%d)", s->id,
			     C->ninsts - 1, rc);
		}
	}
}

static void crash_once(struct ctx *C, uint32_t k)
{
	struct crash *cr = &C->crash[k];
	double r = rndf(C);
	bf_time len, t_end;
	uint64_t acks0 = 0, acks1 = 0;

	cr->mode = (enum crash_mode)rnd(C, CM_N);
	len = 300000 + (bf_time)rnd(C, 2000000);
	/* Mostly at once (a supervisor may not have recorded itself yet),
	 * sometimes after deadlines fell while the daemon was down. */
	cr->delay = r < 0.55 || cr->mode == CM_BURST_START ? 0 : r < 0.8 ? (bf_time)rnd(C, 300000) :
	            BF_SEC + (bf_time)rnd(C, 1500000);
	for (uint32_t i = 0; i < C->nsubs; i++)
		acks0 += C->subs[i].state == SUB_ACKED;
	storm(C, cr->mode, len);
	cr->t_kill = now_rt();
	stop_daemon(C, SIGKILL);
	C->ncrash = k + 1;
	/* Replies already in the sockets are read; then every request ends. */
	for (t_end = now_rt() + BF_SEC; any_busy(C) && now_rt() < t_end;)
		pump(C, 10);
	for (uint32_t i = 0; i < C->nslots; i++)
		if (C->slots[i].busy)
			slot_fail(C, &C->slots[i]);
	for (uint32_t i = 0; i < C->nsubs; i++)
		acks1 += C->subs[i].state == SUB_ACKED;
	cr->acks = (uint32_t)(acks1 - acks0);
	if (strcmp(C->policy, "conservative") == 0)
		snapshot_store(C, cr);
	fprintf(C->logf, "[%+.6f] ==== crash %u (%s): killed; restart in %.3f s\n", rel(C, cr->t_kill),
	        k + 1, crash_names[cr->mode], (double)cr->delay / BF_SEC);
	sleep_us(cr->delay - (now_rt() - cr->t_kill));
	start_daemon(C);
	cr->t_ready = cur(C)->t_ready;
	check_restart(C);
}

/* ---- the end: every job ends ---- */

static void drain(struct ctx *C)
{
	bf_time until = now_rt() + DRAIN_TIMEOUT, last_list = 0;
	uint32_t live = 1;
	enum proto_err code;

	C->submitting = false;
	C->burst_on = false;
	C->kill_at = 0;
	while (live && now_rt() < until) {
		if (g_abort)
			die(C, "interrupted");
		/* Listings go on (they watch the guarantees); no new jobs. */
		for (uint32_t k = 0; k < C->nslots; k++) {
			struct slot *sl = &C->slots[k];

			if (!sl->busy && now_rt() >= sl->next_at) {
				slot_start(C, sl, rnd(C, 3) ? OP_LIST : OP_INFO, false);
				sl->next_at = now_rt() + 50000 + (bf_time)rnd(C, 100000);
			}
		}
		pump(C, 10);
		if (now_rt() - last_list < 500000)
			continue;
		last_list = now_rt();
		live = 0;
		for (uint32_t k = 0; k < C->nsubs; k++) {
			struct sub *s = &C->subs[k];

			if (!s->id || s->final || sub_of(C, s->id) != s)
				continue;
			if (query(C, s->id, &code) == 1 && code == PE_NOJOB)
				continue;	/* reported as missing already, if acknowledged */
			live += !s->final;
		}
	}
	while (any_busy(C))
		pump(C, 10);
	if (live) {
		uint64_t ids[4096];
		uint32_t n = 0;

		for (uint32_t k = 0; k < C->nsubs && n < 4096; k++) {
			struct sub *s = &C->subs[k];

			if (s->id && !s->final && s->seen) {
				ids[n++] = s->id;
				s->reported |= 1u << 8;
				viol(C, 8, "job %" PRIu64 " (%s) was still %s %lld s after the storm ended",
				     s->id, s->name, s->dstate, (long long)(DRAIN_TIMEOUT / BF_SEC));
			}
		}
		/* Cancel them so that nothing is left behind. */
		if (n) {
			struct proto_buf b;
			uint8_t *rep = NULL;
			size_t len;
			enum proto_type type;

			proto_buf_init(&b);
			if (proto_enc_cancel(&b, &(struct proto_cancel){ ids, n, 0 }) == 0)
				rpc(C, &b, &rep, &len, &type);
			free(rep);
			proto_buf_free(&b);
			sleep_us(3 * GRACE);
		}
	}
}

/* Every id the daemon ever gave, to the first gap past the highest known:
 * unacknowledged submissions that exist are found by name. */
static void final_scan(struct ctx *C)
{
	enum proto_err code;
	uint32_t misses = 0;

	for (uint64_t id = 1; misses < 10; id++) {
		int rc = query(C, id, &code);

		if (rc < 0)
			die(C, "the daemon stopped answering during the final scan");
		misses = rc == 1 && code == PE_NOJOB && id > C->max_id ? misses + 1 : 0;
		if (rc == 1 && code == PE_NOJOB) {
			struct sub *s = sub_of(C, id);

			if (s && s->state == SUB_ACKED &&
			    !(s->reported & 1u << 1)) {
				s->reported |= 1u << 1;
				viol(C, 1, "job %" PRIu64 " (submission %s, acknowledged at %+.3f s) is missing "
				     "at the end", id, s->name, rel(C, s->t_reply));
			}
		}
	}
}

/* ---- processes of this run ---- */

/* The value of NAME=... in a process's environment, or "" (buf). -1 if
 * it does not carry the run's marker (or is gone, or a zombie). */
static int proc_marked(struct ctx *C, pid_t pid, char *jobid, size_t len, char *role, size_t rlen)
{
	static char buf[1 << 20];
	char path[64];
	ssize_t n, got = 0;
	bool marked = false;
	int fd;

	jobid[0] = role[0] = 0;
	snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while ((n = read(fd, buf + got, sizeof buf - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	for (ssize_t i = 0; i < got; i += (ssize_t)strlen(buf + i) + 1) {
		if (strcmp(buf + i, C->marker) == 0)
			marked = true;
		else if (strncmp(buf + i, "BSUB_JOBID=", 11) == 0)
			snprintf(jobid, len, "%s", buf + i + 11);
		else if (strncmp(buf + i, "TORTURE_ROLE=", 13) == 0)
			snprintf(role, rlen, "%s", buf + i + 13);
	}
	return marked ? 0 : -1;
}

static void proc_desc(pid_t pid, char *out, size_t len)
{
	char path[64], buf[256] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		for (ssize_t k = 0; k < n - 1; k++)
			if (!buf[k])
				buf[k] = ' ';
		buf[n > 0 ? n : 0] = 0;
	}
	snprintf(out, len, "%s", buf[0] ? buf : "?");
}

/* Every live process of this run (not us); with report, each is a
 * violation. Returns how many there are; kill: SIGKILL each, by pid. */
static int scan_processes(struct ctx *C, bool report, bool kill_them)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int found = 0;

	if (!d)
		die(C, "/proc: %s", strerror(errno));
	while ((e = readdir(d))) {
		char *end, jobid[32], role[32], desc[300];
		long v = strtol(e->d_name, &end, 10);

		if (*end || v <= 0 || (pid_t)v == getpid())
			continue;
		if (proc_marked(C, (pid_t)v, jobid, sizeof jobid, role, sizeof role) < 0)
			continue;
		found++;
		if (report) {
			proc_desc((pid_t)v, desc, sizeof desc);
			viol(C, 7, "pid %ld is still there after every job ended and the daemon stopped: %s%s "
			     "(%s)", v, jobid[0] ? "a process of job " : role[0] ? "a supervisor (the daemon's "
			     "fork)" : "a process of this run", jobid, desc);
		}
		if (kill_them)
			kill((pid_t)v, SIGKILL);
	}
	closedir(d);
	return found;
}

/* On the way out whatever happened: our daemon, then what carries our
 * marker (supervisors and jobs), each by its pid. */
static void cleanup_processes(struct ctx *C)
{
	struct inst *in = cur(C);

	if (in && in->pid > 0) {
		kill(in->pid, SIGKILL);
		waitpid(in->pid, NULL, 0);
		in->pid = 0;
	}
	for (int k = 0; k < 5 && scan_processes(C, false, true); k++)
		sleep_us(100000);
}

static void on_signal(int sig)
{
	(void)sig;
	g_abort = 1;
}

/* ---- judging ---- */

static void read_runs(struct ctx *C)
{
	char path[PATH_MAX + 64];

	C->nruns = C->idcap;
	C->runs = xrealloc(NULL, C->nruns ? C->nruns : 1, sizeof *C->runs);
	memset(C->runs, 0, (C->nruns ? C->nruns : 1) * sizeof *C->runs);
	for (uint64_t id = 1; id < C->nruns; id++) {
		struct runrec *r = &C->runs[id];
		char line[600], ev[1200] = "";
		size_t evn = 0;
		FILE *f;

		snprintf(path, sizeof path, "%s/runs/%" PRIu64 ".log", C->dir, id);
		if (!(f = fopen(path, "re")))
			continue;
		while (fgets(line, sizeof line, f)) {
			int pid = 0;
			long long t = 0, el = 0;

			line[strcspn(line, "\n")] = 0;
			if (sscanf(line, "start %d %lld", &pid, &t) == 2) {
				if (r->starts < 4) {
					r->pids[r->starts] = pid;
					r->start_t[r->starts] = t;
				}
				if (!r->starts)
					r->first_start = t;
				r->starts++;
			} else if (strncmp(line, "lockfail", 8) == 0) {
				r->lockfails++;
			} else if (sscanf(line, "term %d %lld %lld", &pid, &t, &el) == 3) {
				if (!r->terms) {
					r->term_rt = t;
					r->term_elapsed = el;
				}
				r->terms++;
			}
			if (strncmp(line, "start", 5) == 0 || strncmp(line, "lockfail", 8) == 0 ||
			    strncmp(line, "error", 5) == 0)
				evn += (size_t)snprintf(ev + evn, evn < sizeof ev ? sizeof ev - evn : 0,
				                        "%s%s", evn ? " | " : "", line);
		}
		fclose(f);
		r->evidence = xstrdup(ev);
	}
}

/* Was the daemon down (or just back) at instant t? Which crash, or -1. */
static int down_at(const struct ctx *C, bf_time t)
{
	for (uint32_t k = 0; k < C->ncrash; k++)
		if (t >= C->crash[k].t_kill - TOL_START && t <= C->crash[k].t_ready + AFTER_RESTART)
			return (int)k;
	return -1;
}

/* The crashes between two instants, for evidence: " [crash 3: killed
 * +5.838 s, answering again +5.891 s]". */
static const char *crashes_between(const struct ctx *C, bf_time a, bf_time b, char *buf, size_t len)
{
	size_t w = 0;

	buf[0] = 0;
	for (uint32_t k = 0; k < C->ncrash && w < len; k++)
		if (C->crash[k].t_kill >= a && C->crash[k].t_kill <= b)
			w += (size_t)snprintf(buf + w, len - w, " [crash %u (%s): killed %+.3f s, answering "
			                      "again %+.3f s]", k + 1, crash_names[C->crash[k].mode],
			                      rel(C, C->crash[k].t_kill), rel(C, C->crash[k].t_ready));
	return buf;
}

/* Did some job hold its nodes past its limit and grace when `a` was
 * announced (so "a killed job still holds its nodes past its grace" was
 * true)? A job
 * holds them until its supervisor is gone and the daemon has seen that:
 * past the end its supervisor recorded (dend), which is stamped before the
 * supervisor has cleaned up and exited. So a job whose "ended" line came
 * after the announcement (the same pipe: the daemon logged the end later)
 * still held them when announced. */
static const struct sub *overdue_at(const struct ctx *C, const struct ann *a)
{
	bf_time t = a->stamp;

	for (uint32_t k = 0; k < C->nsubs; k++) {
		const struct sub *s = &C->subs[k];
		bf_time due = s->dstart + s->est + GRACE;
		uint64_t seen;

		if (s->dstart == BF_NEVER || s->dend == BF_NEVER)
			continue;
		if (s->dend > due && t >= due - TOL_START && t <= s->dend + TOL_START)
			return s;
		seen = s->id < C->idcap ? C->ended_seq[s->id] : 0;
		if (seen > a->seq && t >= due - TOL_START)
			return s;
	}
	return NULL;
}

/* Judge an announced cause: 1 true, 0 false, -1 not judged. why says so. */
static int judge_cause(const struct ctx *C, const struct ann *a, char *why, size_t len)
{
	const struct sub *o;

	if (strstr(a->cause, "node") && strstr(a->cause, "lost")) {
		snprintf(why, len, "FALSE: no node was lost in this run");
		return 0;
	}
	if (strstr(a->cause, "still holds")) {
		if ((o = overdue_at(C, a))) {
			snprintf(why, len, "true: job %" PRIu64 " held its nodes past its limit + grace "
			         "(%+.3f s): its supervisor recorded its end at %+.3f s, the daemon logged "
			         "it after this", o->id, rel(C, o->dstart + o->est + GRACE), rel(C, o->dend));
			return 1;
		}
		snprintf(why, len, "FALSE: no job held its nodes past its limit + grace then (no job can "
		         "outlive SIGKILL; none overran while the daemon was down)");
		return 0;
	}
	if (strstr(a->cause, "not running") || strstr(a->cause, "was down") ||
	    strstr(a->cause, "stopped") || strstr(a->cause, "restart")) {
		if (a->inst >= 1 && a->stamp <= C->insts[a->inst].t_ready + GRACE + 5 * BF_SEC) {
			snprintf(why, len, "true: logged %.3f s after restart %d",
			         (double)(a->stamp - C->insts[a->inst].t_ready) / BF_SEC, a->inst);
			return 1;
		}
		snprintf(why, len, "doubtful: logged %.3f s after the daemon's start, not just after a "
		         "restart", a->inst >= 0 ? (double)(a->stamp - C->insts[a->inst].t_ready) / BF_SEC : 0.0);
		return -1;
	}
	snprintf(why, len, "not judged: unknown cause");
	return -1;
}

/* The evidence behind an invariant-3 report, into the run's log: every
 * guarantee shown and every announcement of the job, with the instants
 * the walk compared (a report the log alone cannot explain is a harness
 * question as much as a daemon's). */
static void trace_walk(struct ctx *C, const struct sub *s, bf_time start, bf_time end)
{
	char b1[32], b2[32];

	if (!C->logf)
		return;
	fprintf(C->logf, "  walk of job %" PRIu64 ": start %s, end %s (%+.6f), final %d, state %s, "
	        "cancel sent %+.6f\n", s->id, tfmt(start, b1, sizeof b1), tfmt(end, b2, sizeof b2),
	        end == BF_NEVER ? 0.0 : rel(C, end), s->final, s->dstate,
	        s->id < C->idcap && C->cancel_at[s->id] ? rel(C, C->cancel_at[s->id]) : 0.0);
	for (uint32_t o = 0; o < s->nobs; o++)
		fprintf(C->logf, "    shown %s by %s sent %+.6f arrived %+.6f\n",
		        tfmt(s->obs[o].g, b1, sizeof b1), src_names[s->obs[o].src],
		        rel(C, s->obs[o].sent), rel(C, s->obs[o].t));
	for (uint32_t a = 0; a < C->nanns; a++)
		if (C->anns[a].job == s->id)
			fprintf(C->logf, "    announced #%u at %+.6f: %s -> %s\n", a,
			        rel(C, C->anns[a].stamp), tfmt(C->anns[a].t_old, b1, sizeof b1),
			        tfmt(C->anns[a].t_new, b2, sizeof b2));
}

/* Invariant 3 for one job: walk what clients were shown and what the
 * daemon announced, in time order, up to its start (or its end, if it
 * never started). P is the promise in force: the best shown, or the new
 * start an announcement gave. */
static void judge_guarantee(struct ctx *C, struct sub *s, bf_time start)
{
	bf_time P = BF_NEVER, tP = 0, end;
	uint8_t srcP = 0;
	bool P_ann = false;
	uint32_t oi = 0, ai = 0;
	char b1[32], b2[32], b3[32], cb[400];

	/* (A job cancelled while queued has no end the listings give: 0.) */
	end = start != BF_NEVER ? start : s->final && s->dend > 0 ? s->dend : BF_NEVER;
	for (;;) {
		const struct gobs *o = oi < s->nobs ? &s->obs[oi] : NULL;
		const struct ann *a = NULL;

		while (ai < C->nanns && C->anns[ai].job != s->id)
			ai++;
		if (ai < C->nanns)
			a = &C->anns[ai];
		if (!o && !a)
			break;
		/* In the order they reached us. A reply can overtake the log
		 * line of an announcement the daemon made before it: that is
		 * looked for below, where a later guarantee is shown. */
		if (a && (!o || a->stamp <= o->t)) {
			ai++;
			/* An announcement made after the job started cannot
			 * excuse its start. The stamp is when the line reached
			 * us through the log pipe, which a loaded machine delays
			 * (a restart's announcements and the first pass's starts
			 * come out together): up to a second is allowed. */
			if (end != BF_NEVER && a->stamp > end + LOG_LAG)
				continue;
			/* A time in words is rounded up to the second. */
			if (!a->legacy && P != BF_NEVER && a->t_old > P + TOL_MOVE + BF_SEC)
				note(C, "job %" PRIu64 ": the announcement says from %s, but a client had been "
				     "shown %s (%s at %+.3f s): %s", s->id, tfmt(a->t_old, b1, sizeof b1),
				     tfmt(P, b2, sizeof b2), src_names[srcP], rel(C, tP), a->line);
			/* The old form gives the new start to the ms, from now. */
			P = a->t_new == BF_NEVER ? BF_NEVER : a->t_new + (a->legacy ? 50000 : 0);
			tP = a->stamp;
			P_ann = true;
			continue;
		}
		oi++;
		if (a && o->g > P + TOL_MOVE && a->stamp <= o->t + LOG_LAG &&
		    (a->t_new == BF_NEVER || a->t_new + TOL_MOVE >= o->g)) {
			/* The announcement of this move, still in the pipe when
			 * the reply came: it counts from here. */
			ai++;
			P = a->t_new;
			tP = o->t;
			P_ann = true;
			if (P != BF_NEVER && o->g < P) {
				P = o->g;
				srcP = o->src;
				P_ann = false;
			}
			continue;
		}
		if (P == BF_NEVER || o->g < P || (o->g > P + TOL_MOVE && down_at(C, P) >= 0)) {
			/* Better; or the old promise fell while the daemon was
			 * down, and the restart made a new one. */
			P = o->g;
			tP = o->t;
			srcP = o->src;
			P_ann = false;
		} else if (o->g > P + TOL_MOVE && o->sent > tP && !(s->reported & 1u << 3)) {
			/* (A request sent before the better answer arrived may
			 * have been answered before the plan improved.) */
			s->reported |= 1u << 3;
			viol(C, 3, "job %" PRIu64 ": guaranteed %s (%s at %+.3f s), later shown %s, %.3f s "
			     "later (%s at %+.3f s), with no announcement%s", s->id, tfmt(P, b1, sizeof b1),
			     P_ann ? "announced" : src_names[srcP], rel(C, tP), tfmt(o->g, b2, sizeof b2),
			     (double)(o->g - P) / BF_SEC, src_names[o->src], rel(C, o->t),
			     crashes_between(C, tP, o->t, cb, sizeof cb));
			trace_walk(C, s, start, end);
		}
	}
	if (P == BF_NEVER || end == BF_NEVER || end <= P + TOL_START || (s->reported & 1u << 4))
		return;
	if (down_at(C, P) >= 0)
		return;	/* it fell while the daemon was down, or just back */
	s->reported |= 1u << 4;
	viol(C, 3, "job %" PRIu64 " %s %s (%+.3f s), %.3f s after its guarantee %s (%s at %+.3f s)%s%s",
	     s->id, start != BF_NEVER ? "started at" : "never started; it ended as", start != BF_NEVER ?
	     tfmt(end, b3, sizeof b3) : s->dstate, rel(C, end), (double)(end - P) / BF_SEC,
	     tfmt(P, b1, sizeof b1), P_ann ? "announced" : src_names[srcP], rel(C, tP),
	     P_ann ? "" : ", no announcement", crashes_between(C, tP, end, cb, sizeof cb));
	trace_walk(C, s, start, end);
}

/* How much earlier than its limit a job got SIGTERM (<= 0: not early). */
static bf_time term_early(const struct ctx *C, const struct sub *s, const struct runrec *r)
{
	(void)C;
	if (s->dstart != BF_NEVER)
		return s->dstart + s->est - TOL_TERM - r->term_rt;
	return s->est - TOL_START - r->term_elapsed;
}

static void judge(struct ctx *C)
{
	char b1[32], b2[32], why[300];

	read_runs(C);
	for (uint32_t k = 0; k < C->nsubs; k++) {
		struct sub *s = &C->subs[k];
		struct runrec *r;
		bf_time start;

		if (!s->id || sub_of(C, s->id) != s)
			continue;
		r = s->id < C->nruns ? &C->runs[s->id] : NULL;
		/* 4: one run at most, and only if the daemon started it. */
		if (r && r->starts > 1)
			viol(C, 4, "job %" PRIu64 " (%s, %s) ran %u times; daemon says %s, started %s: %s", s->id,
			     s->name, mode_names[s->mode], r->starts, s->dstate, tfmt(s->dstart, b1, sizeof b1), r->evidence);
		else if (r && r->starts && s->dstart == BF_NEVER)
			viol(C, 4, "job %" PRIu64 " (%s) ran, but the daemon says %s and never started it: %s",
			     s->id, s->name, s->dstate, r->evidence);
		/* 5: a node lock held by another process. */
		if (r && r->lockfails)
			viol(C, 5, "job %" PRIu64 " (%s, nodes %s) found %u of its nodes held: %s", s->id,
			     s->name, s->node_list ? s->node_list : "?", r->lockfails, r->evidence);
		/* 6: SIGTERM before the limit, not cancelled. The limit counts
		 * from the start the daemon recorded (the one its plan holds);
		 * the job's own start comes after the durable record of it and
		 * the fork, which on a loaded machine took up to a third of a
		 * second: where the daemon's start is known it is the measure,
		 * else the job's own with the start's tolerance. */
		if (r && r->terms && term_early(C, s, r) > 0 &&
		    !(s->id < C->idcap && C->cancel_at[s->id] && C->cancel_at[s->id] <= r->term_rt + 50000))
			viol(C, 6, "job %" PRIu64 " (%s, %s, limit %.3f s) got SIGTERM %.3f s after its own start, "
			     "%.3f s after the daemon's (%.3f s early), never cancelled", s->id, s->name,
			     mode_names[s->mode], (double)s->est / BF_SEC, (double)r->term_elapsed / BF_SEC,
			     s->dstart != BF_NEVER ? (double)(r->term_rt - s->dstart) / BF_SEC : -1.0,
			     (double)term_early(C, s, r) / BF_SEC);
		/* 3: started by the best guarantee shown. */
		start = s->dstart;
		if (r && r->starts && (start == BF_NEVER || r->first_start < start))
			start = r->first_start;
		judge_guarantee(C, s, start);
		/* 8: final, and a failure says why. */
		if (s->state == SUB_ACKED && !s->final && !(s->reported & 1u << 8))
			viol(C, 8, "job %" PRIu64 " (%s) never reached a final state (last seen %s)", s->id,
			     s->name, s->dstate[0] ? s->dstate : "never");
		if (s->final && strcmp(s->dstate, "failed") == 0) {
			if (!s->reason || !s->reason[0])
				viol(C, 8, "job %" PRIu64 " (%s) failed without a reason", s->id, s->name);
			else
				note(C, "job %" PRIu64 " failed: %s (ran %u time(s))", s->id, s->reason,
				     r ? r->starts : 0);
		}
	}
	/* 4: a job that ran but is none of ours. */
	for (uint64_t id = 1; id < C->nruns; id++)
		if (C->runs[id].starts && !sub_of(C, id))
			viol(C, 4, "job %" PRIu64 " ran, but it is not a job the daemon acknowledged to us or "
			     "holds: %s", id, C->runs[id].evidence);
	/* 3, cause: every announcement judged. */
	for (uint32_t k = 0; k < C->nanns; k++) {
		const struct ann *a = &C->anns[k];

		if (judge_cause(C, a, why, sizeof why) == 0)
			viol(C, 3, "job %" PRIu64 ": guarantee break announced at %+.3f s with a false cause "
			     "(%s) -- %s: \"%s\"", a->job, rel(C, a->stamp), a->cause, why, a->line);
	}
	/* 3, store: after a crash, a queued job's stored guarantee is no
	 * later than what clients were last promised before the crash. */
	for (uint32_t c = 0; c < C->ncrash; c++) {
		const struct crash *cr = &C->crash[c];

		for (uint32_t i = 0; i < cr->nsnap; i++) {
			struct sub *s = sub_of(C, cr->snap[i].id);
			bf_time P = BF_NEVER, tP = 0;

			if (!s || (s->reported & 1u << 5))
				continue;
			for (uint32_t o = 0; o < s->nobs && s->obs[o].t <= cr->t_kill; o++)
				if (s->obs[o].g < P) {
					P = s->obs[o].g;
					tP = s->obs[o].t;
				}
			for (uint32_t a = 0; a < C->nanns; a++)
				if (C->anns[a].job == s->id && C->anns[a].stamp <= cr->t_kill &&
				    C->anns[a].stamp >= tP)
					P = BF_NEVER;	/* announced since: judged above */
			if (P != BF_NEVER && P > cr->t_kill && cr->snap[i].g > P + TOL_MOVE) {
				s->reported |= 1u << 5;
				viol(C, 3, "job %" PRIu64 ": after crash %u the store held guarantee %s, %.3f s "
				     "later than the %s shown at %+.3f s (a restart would rebuild the later one)",
				     s->id, c + 1, tfmt(cr->snap[i].g, b1, sizeof b1),
				     cr->snap[i].g == BF_NEVER ? 0.0 : (double)(cr->snap[i].g - P) / BF_SEC,
				     tfmt(P, b2, sizeof b2), rel(C, tP));
			}
		}
	}
}

/* 5, second view: the daemon's own records (start, end, nodes) never
 * overlap on a node. */
struct span {
	bf_time a, b;
	uint64_t id;
};

static int by_start(const void *x, const void *y)
{
	const struct span *p = x, *q = y;

	return p->a < q->a ? -1 : p->a > q->a;
}

static void judge_spans(struct ctx *C)
{
	struct span **per = xrealloc(NULL, C->nodes, sizeof *per);
	uint32_t *n = xrealloc(NULL, C->nodes, sizeof *n), *cap = xrealloc(NULL, C->nodes, sizeof *cap);
	char err[200];

	for (uint32_t k = 0; k < C->nodes; k++) {
		per[k] = NULL;
		n[k] = cap[k] = 0;
	}
	for (uint32_t k = 0; k < C->nsubs; k++) {
		struct sub *s = &C->subs[k];
		struct nodelist nl;

		if (!s->id || sub_of(C, s->id) != s || !s->node_list || s->dstart == BF_NEVER ||
		    s->dend == BF_NEVER || nodelist_parse(s->node_list, &nl, err, sizeof err) < 0)
			continue;
		for (uint32_t i = 0; i < nl.count; i++) {
			unsigned v;

			if (sscanf(nl.names[i], "node%u", &v) != 1 || v < 1 || v > C->nodes)
				continue;
			GROW(per[v - 1], n[v - 1], cap[v - 1]);
			per[v - 1][n[v - 1]++] = (struct span){ s->dstart, s->dend, s->id };
		}
		nodelist_free(&nl);
	}
	for (uint32_t k = 0; k < C->nodes; k++) {
		qsort(per[k], n[k], sizeof *per[k], by_start);
		for (uint32_t i = 1; i < n[k]; i++)
			for (uint32_t j = 0; j < i; j++)
				if (per[k][i].a < per[k][j].b - 1000)
					viol(C, 5, "node%03u: job %" PRIu64 " [%+.3f, %+.3f] and job %" PRIu64
					     " [%+.3f, %+.3f] overlap in the daemon's records", k + 1,
					     per[k][j].id, rel(C, per[k][j].a), rel(C, per[k][j].b),
					     per[k][i].id, rel(C, per[k][i].a), rel(C, per[k][i].b));
		free(per[k]);
	}
	free(per);
	free(n);
	free(cap);
}

/* ---- set-up and report ---- */

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	return remove(p) < 0 && errno != ENOENT ? -1 : 0;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long x;

	if (!v || !*v)
		return def;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end) {
		fprintf(stderr, "torture: %s=%s is not a number\n", name, v);
		exit(2);
	}
	return x;
}

static void setup(struct ctx *C)
{
	const char *b = getenv("BF_BUILD"), *tmp = getenv("TMPDIR");
	char path[PATH_MAX + 64];
	ssize_t n;

	C->crashes = (uint32_t)env_u64("TORTURE_CRASHES", 50);
	C->seed = env_u64("TORTURE_SEED", (uint64_t)now_rt() % 1000000000);
	C->rng = C->seed;
	C->nodes = (uint32_t)env_u64("TORTURE_NODES", 6);
	C->nslots = (uint32_t)env_u64("TORTURE_CLIENTS", 6);
	C->policy = getenv("TORTURE_POLICY") && *getenv("TORTURE_POLICY") ? getenv("TORTURE_POLICY")
	                                                                  : "conservative";
	C->tap = env_u64("TORTURE_TAP", 0) != 0;
	C->keep = env_u64("TORTURE_KEEP", 0) != 0;
	if (strcmp(C->policy, "conservative") != 0 && strcmp(C->policy, "easy") != 0) {
		fprintf(stderr, "torture: TORTURE_POLICY must be conservative or easy\n");
		exit(2);
	}
	if (C->nodes < 1 || C->nodes > 999 || C->nslots < 1 || C->nslots > MAX_SLOTS) {
		fprintf(stderr, "torture: TORTURE_NODES 1..999, TORTURE_CLIENTS 1..%d\n", MAX_SLOTS);
		exit(2);
	}
	if (!realpath(b && *b ? b : "build", C->build))
		die(NULL, "BF_BUILD %s: %s", b ? b : "build", strerror(errno));
	if ((n = readlink("/proc/self/exe", C->self, sizeof C->self - 1)) < 0)
		die(NULL, "/proc/self/exe: %s", strerror(errno));
	C->self[n] = 0;
	snprintf(C->dir, sizeof C->dir, "%s/bf-torture.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(C->dir))
		die(NULL, "mkdtemp %s: %s", C->dir, strerror(errno));
	/* The jobs' directories are reached by whoever the jobs run as. */
	if (chmod(C->dir, 0755) < 0)
		die(C, "chmod %s: %s", C->dir, strerror(errno));
	snprintf(C->sock, sizeof C->sock, "%s/s.sock", C->dir);
	if (strlen(C->sock) >= sizeof ((struct sockaddr_un *)0)->sun_path)
		die(C, "the socket path %s is too long for a Unix socket (set TMPDIR)", C->sock);
	snprintf(C->db, sizeof C->db, "%s/state.db", C->dir);
	snprintf(C->spool, sizeof C->spool, "%s/spool", C->dir);
	snprintf(C->work, sizeof C->work, "%s/work", C->dir);
	for (int k = 0; k < 3; k++) {
		snprintf(path, sizeof path, "%s/%s", C->dir, (const char *[]){ "work", "runs", "locks" }[k]);
		if (mkdir(path, 0777) < 0 || chmod(path, 0777) < 0)
			die(C, "mkdir %s: %s", path, strerror(errno));
	}
	snprintf(path, sizeof path, "%s/daemon.log", C->dir);
	if (!(C->logf = fopen(path, "we")))
		die(C, "%s: %s", path, strerror(errno));
	setvbuf(C->logf, NULL, _IOLBF, 0);
	snprintf(C->marker, sizeof C->marker, "TORTURE_MARK=%d-%" PRIu64 "-%lld", (int)getpid(), C->seed,
	         (long long)now_rt());
	C->script = xasprintf("#!/bin/sh\nexec '%s' --job \"$@\"\n", C->self);
	for (uint32_t k = 0; k < MAX_SLOTS; k++) {
		C->slots[k].fd = -1;
		proto_buf_init(&C->slots[k].req);
	}
	C->crash = xrealloc(NULL, C->crashes ? C->crashes : 1, sizeof *C->crash);
	memset(C->crash, 0, (C->crashes ? C->crashes : 1) * sizeof *C->crash);
	id_room(C, 1);
}

static const char *const inv_names[10] = {
	"",
	"every acknowledged job exists exactly once, with the parameters it was submitted with",
	"no id is reused (acknowledged twice, or stored with other parameters)",
	"no job starts later than its best guarantee shown, unless announced with a true cause",
	"no job ran twice",
	"no two jobs held a node at the same time",
	"no job got SIGTERM before its limit unless cancelled",
	"no process is left behind once every job ended and the daemon stopped",
	"every acknowledged job reached a final state; failures say why",
	"the daemon never ended by itself (only by the harness's kill -9 or SIGTERM)",
};

static void report(struct ctx *C, bf_time t_start, bf_time t_storm_end)
{
	uint32_t counts[10] = { 0 }, acked = 0, unknown = 0, unknown_exist = 0, notsent = 0, ran = 0,
	         twice = 0, modes[CM_N] = { 0 }, runs_total = 0, nsub = 0;
	bf_time t_end = now_rt();

	for (uint32_t k = 0; k < C->nviols; k++)
		counts[C->viols[k].inv]++;
	for (uint32_t k = 0; k < C->nsubs; k++) {
		const struct sub *s = &C->subs[k];

		nsub += s->state != SUB_NOTSENT;
		acked += s->state == SUB_ACKED;
		unknown += s->state == SUB_UNKNOWN;
		unknown_exist += s->state == SUB_UNKNOWN && s->id;
		notsent += s->state == SUB_NOTSENT;
	}
	for (uint64_t id = 1; id < C->nruns; id++) {
		ran += C->runs[id].starts > 0;
		twice += C->runs[id].starts > 1;
		runs_total += C->runs[id].starts;
	}
	for (uint32_t k = 0; k < C->ncrash; k++)
		modes[C->crash[k].mode]++;

	say(C, "announcements of broken guarantees: %u", C->nanns);
	for (uint32_t k = 0; k < C->nanns && k < 40; k++) {
		char why[300];

		judge_cause(C, &C->anns[k], why, sizeof why);
		say(C, "  [%+.3f s, daemon %d] job %" PRIu64 ": cause \"%s\" -- %s", rel(C, C->anns[k].stamp),
		    C->anns[k].inst, C->anns[k].job, C->anns[k].cause, why);
	}
	if (C->nnotes) {
		say(C, "notes (not failures; %u):", C->nnotes);
		for (uint32_t k = 0; k < C->nnotes && k < 25; k++)
			say(C, "  %s", C->notes[k]);
		if (C->nnotes > 25)
			say(C, "  ... %u more in %s/daemon.log's run", C->nnotes - 25, C->dir);
	}
	for (int inv = 1; inv <= 9; inv++) {
		uint32_t shown = 0;

		if (C->tap)
			printf("%s %d - invariant %d: %s\n", counts[inv] ? "not ok" : "ok", inv, inv,
			       inv_names[inv]);
		else
			printf("invariant %d: %s: %s\n", inv, counts[inv] ? "VIOLATED" : "held", inv_names[inv]);
		for (uint32_t k = 0; k < C->nviols && shown < MAX_EXAMPLES; k++)
			if (C->viols[k].inv == inv) {
				shown++;
				say(C, "  %s", C->viols[k].text);
			}
		if (counts[inv] > shown)
			say(C, "  ... %u violations in all (every one in %s/daemon.log)", counts[inv], C->dir);
	}
	if (C->tap)
		puts("1..9");
	say(C, "---- summary (seed %" PRIu64 ", policy %s, %u nodes, %u clients) ----", C->seed, C->policy,
	    C->nodes, C->nslots);
	say(C, "crashes: %u (random %u, burst %u, burst-start %u, job-end %u); %.1f s in all, %.2f s "
	    "per crash; drain %.1f s", C->ncrash, modes[CM_RANDOM], modes[CM_BURST],
	    modes[CM_BURST_START], modes[CM_END], (double)(t_end - t_start) / BF_SEC,
	    C->ncrash ? (double)(t_storm_end - t_start) / BF_SEC / C->ncrash : 0.0,
	    (double)(t_end - t_storm_end) / BF_SEC);
	say(C, "jobs: %u submissions sent, %u acknowledged, %u unknown (reply lost in a crash; %u of "
	    "them exist), %u refused, %u not sent (no daemon); %u ran (%u runs), %u ran twice",
	    nsub, acked, unknown, unknown_exist, (unsigned)C->n_refused, notsent, ran, runs_total, twice);
	say(C, "requests: %" PRIu64 " submit, %" PRIu64 " list, %" PRIu64 " info, %" PRIu64
	    " cancel; %" PRIu64 " failed (cut by a crash, or not connected: %" PRIu64 " backlog full, %"
	    PRIu64 " refused, %" PRIu64 " no socket, %" PRIu64 " other), %" PRIu64 " timed out",
	    C->n_ops[OP_SUBMIT], C->n_ops[OP_LIST], C->n_ops[OP_INFO], C->n_ops[OP_CANCEL],
	    C->n_failed_ops, C->n_connect_err[0], C->n_connect_err[1], C->n_connect_err[2],
	    C->n_connect_err[3], C->n_timeouts);
	say(C, "violations: 1:%u 2:%u 3:%u 4:%u 5:%u 6:%u 7:%u 8:%u 9:%u -> %s", counts[1], counts[2],
	    counts[3], counts[4], counts[5], counts[6], counts[7], counts[8], counts[9],
	    C->nviols ? "FAILED" : "passed");
	if (C->nviols)
		say(C, "reproduce the storm: TORTURE_SEED=%" PRIu64 " TORTURE_CRASHES=%u TORTURE_POLICY=%s "
		    "make torture (timing varies; the plan is the same)", C->seed, C->crashes, C->policy);
}

int main(int argc, char **argv)
{
	static struct ctx ctx;
	struct ctx *C = &ctx;
	struct sigaction sa = { .sa_handler = on_signal };
	bf_time t_start, t_storm_end;
	int rc;

	if (argc >= 2 && strcmp(argv[1], "--job") == 0)
		return job_main(argc, argv);
	if (argc != 1) {
		fprintf(stderr, "usage: torture (settings in the environment: see tests/torture/torture.c)\n");
		return 2;
	}
	g_ctx = C;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	setup(C);
	C->t0 = t_start = now_rt();
	say(C, "torture: seed %" PRIu64 ", policy %s, %u nodes, %u clients, %u crashes; state in %s",
	    C->seed, C->policy, C->nodes, C->nslots, C->crashes, C->dir);
	start_daemon(C);
	C->submitting = true;
	for (uint32_t k = 0; k < C->crashes; k++)
		crash_once(C, k);
	/* A last storm without a crash, then every job ends. */
	storm(C, CM_RANDOM, 500000 + (bf_time)rnd(C, 1000000));
	t_storm_end = now_rt();
	drain(C);
	final_scan(C);
	stop_daemon(C, SIGTERM);
	/* What is left once the daemon is gone (a dying process gets a moment). */
	sleep_us(500000);
	scan_processes(C, true, true);
	judge(C);
	judge_spans(C);
	report(C, t_start, t_storm_end);
	cleanup_processes(C);
	fclose(C->logf);
	rc = C->nviols ? 1 : 0;
	if (rc || C->keep)
		say(C, "the run's files (daemon.log: the daemon's stamped log and every violation; runs/: "
		    "each job's own record) are kept in %s", C->dir);
	else if (nftw(C->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		say(C, "could not remove %s: %s", C->dir, strerror(errno));
	return rc;
}
