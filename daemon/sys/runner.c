/* Job supervisors, from the daemon's side: starting one (the process
 * itself is supervisor.c's), watching, signalling and finding it again
 * after a restart, and reading what it recorded; see runner.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "proto.h"
#include "procs.h"
#include "runner.h"
#include "supervisor.h"

static int pidfd_signal(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

int64_t runner_start_ticks(pid_t pid)
{
	return procs_start_ticks(pid);
}

int runner_find_by_job(uid_t uid, uint64_t job, pid_t *sup_pid, int64_t *sup_start)
{
	DIR *dir = opendir("/proc");
	struct dirent *e;
	char marker[48];
	int found = 0;

	if (!dir)
		return 0;
	snprintf(marker, sizeof marker, "BSUB_JOBID=%" PRIu64, job);
	while (!found && (e = readdir(dir))) {
		char *end, path[300];
		long v = strtol(e->d_name, &end, 10);
		struct stat st, lst;
		pid_t sid, s2;
		int64_t t;

		if (*end || v <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld", v);
		if (stat(path, &st) < 0 || st.st_uid != uid ||
		    procs_stat((pid_t)v, &sid, &t, false, NULL) < 0 || sid <= 0 ||
		    !procs_environ_has((pid_t)v, (const char *const[]){ marker }, 1))
			continue;
		/* Its session's leader must be a live root process: the
		 * supervisor (the job's processes run as their owner). */
		snprintf(path, sizeof path, "/proc/%d", (int)sid);
		if (stat(path, &lst) == 0 && lst.st_uid == 0 &&
		    procs_stat(sid, &s2, &t, false, NULL) == 0 && s2 == sid) {
			*sup_pid = sid;
			*sup_start = t;
			found = 1;
		}
	}
	closedir(dir);
	return found;
}

int runner_kill_orphans(pid_t sup_pid, int64_t sup_start, uid_t uid, uint64_t job)
{
	struct procs_killed k = { .n = 0, .total = 0 };
	char marker[48];
	const char *const markers[] = { marker };
	struct procs_rule r = { sup_pid, sup_start, uid, markers, 1, PROCS_BOTH, 0 };
	pid_t s;
	int64_t t;

	/* The supervisor's pid is its session's id. While it exists (our own
	 * zombie included) it must be ours; once it is gone, no process can
	 * take that pid as long as a member of its session lives. A session
	 * made since under a recycled pid (or after a reboot) is told apart by
	 * the owner, the start time and, above all, the job's id in each
	 * process's environment. */
	if (procs_stat(sup_pid, &s, &t, true, NULL) == 0 && t != sup_start)
		return 0;
	snprintf(marker, sizeof marker, "BSUB_JOBID=%" PRIu64, job);
	for (int round = 0, fresh; round < 10; round++) {
		procs_sweep(&r, SIGKILL, &k, &fresh);
		if (fresh == 0)
			break;	/* else again: one may have forked meanwhile */
	}
	return k.total;
}

/* Where the intent to start a job is marked: a file its supervisor holds
 * locked for as long as it lives. */
static void intent_path(const char *dir, uint64_t id, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%" PRIu64 ".start", dir, id);
}

int runner_start(const struct runner_job *j, struct runner_proc *p, char *err, size_t errlen)
{
	char path[4096];
	sigset_t fwd, old;
	pid_t pid;
	int intent;

	/* The lock is taken before the fork and inherited: from the first
	 * instant the supervisor exists, runner_intent() sees it, even before
	 * it has written its record. */
	intent_path(j->status_dir, j->id, path, sizeof path);
	intent = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (intent < 0 || flock(intent, LOCK_EX | LOCK_NB) < 0) {
		snprintf(err, errlen, "cannot mark the start in %s: %s", path, strerror(errno));
		if (intent >= 0)
			close(intent);
		return -1;
	}
	/* A terminate or kill may come as soon as the pid is known: keep the
	 * signals the supervisor forwards pending until its handlers are in
	 * place (their default action would end it without a record). */
	sigemptyset(&fwd);
	sigaddset(&fwd, SIGTERM);
	sigaddset(&fwd, SIGUSR1);
	sigaddset(&fwd, SIGUSR2);
	sigprocmask(SIG_BLOCK, &fwd, &old);
	pid = fork();
	if (pid == 0)
		supervisor_main(j, intent);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(intent);	/* the supervisor's copy keeps the lock */
	if (pid < 0) {
		snprintf(err, errlen, "cannot start a supervisor: %s", strerror(errno));
		unlink(path);
		return -1;
	}
	p->pid = pid;
	p->start_ticks = runner_start_ticks(pid);
	p->pidfd = procs_pidfd(pid);
	if (p->pidfd < 0 || p->start_ticks < 0) {
		snprintf(err, errlen, "cannot watch the supervisor: %s", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (p->pidfd >= 0)
			close(p->pidfd);
		return -1;
	}
	return 0;
}

int runner_intent(const char *dir, uint64_t id)
{
	char path[4096];
	int fd, held;

	intent_path(dir, id, path, sizeof path);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -1;
	held = flock(fd, LOCK_EX | LOCK_NB) < 0 ? (errno == EWOULDBLOCK ? 1 : -1) : 0;
	close(fd);	/* and with it the lock, if it was free */
	return held;
}

int runner_find(pid_t pid, int64_t start_ticks, struct runner_proc *p)
{
	p->pid = pid;
	p->start_ticks = start_ticks;
	p->pidfd = -1;
	if (pid <= 0 || runner_start_ticks(pid) != start_ticks)
		return 0;
	p->pidfd = procs_pidfd(pid);
	/* Check again now that the pidfd pins the process down. */
	if (p->pidfd < 0 || runner_start_ticks(pid) != start_ticks) {
		if (p->pidfd >= 0)
			close(p->pidfd);
		p->pidfd = -1;
		return 0;
	}
	return 1;
}

int runner_terminate(const struct runner_proc *p)
{
	return pidfd_signal(p->pidfd, SIGTERM);
}

int runner_kill(const struct runner_proc *p)
{
	return pidfd_signal(p->pidfd, SIGUSR1);
}

/* Does the supervisor catch SIGUSR2 (/proc/PID/status, SigCgt)? One
 * started by a backfilld before bkill -s would die of it. */
static bool catches_usr2(pid_t pid)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof line, f))
		found = sscanf(line, "SigCgt: %llx", &mask) == 1;
	fclose(f);
	return found && (mask >> (SIGUSR2 - 1) & 1);
}

/* SIGUSR2 queued with a value for the supervisor: a signal to pass on
 * (> 0), or a cluster job's new limit (< 0: runner_set_limit). -1 (EINVAL)
 * for a supervisor too old to catch it. */
static int queue_usr2(const struct runner_proc *p, int value)
{
	siginfo_t si;

	if (!catches_usr2(p->pid)) {
		errno = EINVAL;
		return -1;
	}
	memset(&si, 0, sizeof si);
	si.si_signo = SIGUSR2;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = value;
	return (int)syscall(SYS_pidfd_send_signal, p->pidfd, SIGUSR2, &si, 0);
}

int runner_signal(const struct runner_proc *p, int sig)
{
	if (sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return -1;
	}
	return queue_usr2(p, sig);
}

int runner_set_limit(const struct runner_proc *p, int64_t seconds)
{
	/* Negative: a limit, not a signal (an older supervisor ignores it);
	 * INT32_MIN: none. */
	return queue_usr2(p, seconds < 0 ? INT32_MIN : seconds >= INT32_MAX - 1 ? INT32_MIN + 1 :
	                     (int)(-1 - seconds));
}

int runner_reap(struct runner_proc *p)
{
	int st = -1;
	pid_t r;

	while ((r = waitpid(p->pid, &st, WNOHANG)) < 0 && errno == EINTR)
		;
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
	return r == p->pid ? st : -1;
}

/* A small record the supervisor wrote: 1 read (NUL-terminated in buf),
 * 0 absent, -1 unreadable. */
static int read_record(const char *dir, uint64_t id, const char *kind, char *buf, size_t len)
{
	char path[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "%s/%" PRIu64 ".%s", dir, id, kind);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 1;
}

/* A record's room (supervisor.c's RECORD_ROOM). */
#define RECORD_MAX 8192

int runner_collect(const char *dir, uint64_t id, int *wstatus, bf_time *end, char *reason,
                   size_t reason_len)
{
	char buf[RECORD_MAX];
	const char *r;
	long long e;
	int rc = read_record(dir, id, "status", buf, sizeof buf);

	if (rc <= 0)
		return rc;
	if (sscanf(buf, "wstatus %d\nend %lld\n", wstatus, &e) != 2)
		return -1;
	*end = e;
	if (reason_len) {
		r = strstr(buf, "\nreason ");
		snprintf(reason, reason_len, "%.*s", r ? (int)strcspn(r + 8, "\n") : 0,
		         r ? r + 8 : "");
	}
	return 1;
}

int runner_collect_down(const char *dir, uint64_t id,
                        void (*each)(const char *node, const char *why, void *arg), void *arg)
{
	char buf[RECORD_MAX];
	int rc = read_record(dir, id, "status", buf, sizeof buf), n = 0;

	if (rc <= 0)
		return rc;
	/* "down NODE WHY" lines, before the usage and the reason. */
	for (char *line = strchr(buf, '\n'); line && n < RUNNER_MAX_DOWN; line = strchr(line, '\n')) {
		char *node, *why, *end;

		line++;
		if (strncmp(line, "down ", 5) != 0)
			continue;
		node = line + 5;
		if (!(why = strchr(node, ' ')) || !(end = strchr(why, '\n')))
			break;
		*why++ = 0;
		*end = 0;
		each(node, why, arg);
		n++;
		line = end;
	}
	return 1;
}

int runner_collect_at_limit(const char *dir, uint64_t id)
{
	char buf[RECORD_MAX];
	int rc = read_record(dir, id, "status", buf, sizeof buf);
	const char *r;

	if (rc <= 0)
		return rc;
	/* Before the reason, the only free text: the first match is ours. */
	r = strstr(buf, "\nreason ");
	return strstr(buf, "\nlimit 1\n") && (!r || strstr(buf, "\nlimit 1\n") < r) ? 2 : 1;
}

int runner_collect_usage(const char *dir, uint64_t id, struct runner_usage *u)
{
	char buf[RECORD_MAX];
	const char *p;
	long long cpu, mem;
	int cs, ms, rc = read_record(dir, id, "status", buf, sizeof buf);

	*u = (struct runner_usage){ -1, -1, PU_NONE, PU_NONE };
	if (rc <= 0)
		return rc;
	/* The usage line comes before the reason, the only free text (one
	 * line), so the first match is the supervisor's own. Anything out of
	 * range reads as unknown. */
	if (!(p = strstr(buf, "\nusage ")))
		return 1;
	if (sscanf(p + 7, "%lld %lld %d %d", &cpu, &mem, &cs, &ms) != 4)
		return -1;
	if (cpu >= 0 && cs >= PU_CGROUP && cs <= PU_RUSAGE) {
		u->cpu_us = cpu;
		u->cpu_src = cs;
	}
	if (mem >= 0 && ms >= PU_CGROUP && ms <= PU_RUSAGE) {
		u->mem_kb = mem;
		u->mem_src = ms;
	}
	return 1;
}

int runner_sup_read(const char *dir, uint64_t id, pid_t *pid, int64_t *start_ticks)
{
	char buf[128];
	long long t;
	int p, rc = read_record(dir, id, "sup", buf, sizeof buf);

	if (rc <= 0)
		return rc;
	if (sscanf(buf, "pid %d\nstart %lld\n", &p, &t) != 2)
		return -1;
	*pid = p;
	*start_ticks = t;
	return 1;
}

void runner_forget(const char *dir, uint64_t id)
{
	static const char *const kinds[] = { "status", "sup", "tmp", "start" };
	char path[4096];

	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		snprintf(path, sizeof path, "%s/%" PRIu64 ".%s", dir, id, kinds[k]);
		unlink(path);
	}
}
