/* The job's supervisor: the process runner_start forks for each job (see
 * runner.h for its life, supervisor.h for how it is entered). It runs in a
 * session of its own, starts the job as its owner, passes the daemon's
 * signals on to the whole job, waits for it, kills what it left behind and
 * records its end durably in the spool. Nothing here runs in the daemon. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "proto.h"
#include "cgroup.h"
#include "clock.h"
#include "failpoint.h"
#include "jobexec.h"
#include "proctitle.h"
#include "procs.h"
#include "remote.h"
#include "runner_job.h"
#include "supervisor.h"

/* Signal handlers can only reach file-scope state; these live in the
 * supervisor process alone (the daemon never touches them). */
static volatile pid_t sup_job;			/* the job's pid (its process group) */
static volatile sig_atomic_t sup_pending;	/* a signal asked for before the job existed */
static volatile sig_atomic_t sup_cg = -1;	/* the job's cgroup (a descriptor), or -1 */

/* Without a cgroup, a signal to the job's process group misses the job's
 * processes that left it (setpgid, setsid): each signal sent so is queued
 * here by the handler, and passed on to them by the supervisor's main
 * flow (sup_sweep_queued), which may read /proc where a handler may not.
 * The handlers block each other, so one writes the queue at a time. */
#define SWEEP_QUEUE 16
static volatile sig_atomic_t sweep_sig[SWEEP_QUEUE];
static volatile sig_atomic_t sweep_head;	/* the handlers' */
static sig_atomic_t sweep_tail;			/* the main flow's */

/* To the job's whole cgroup where there is one (the job is in it before
 * sup_job is set, and so is all it starts, whatever group or session),
 * else to its process group, and then to the rest of the job by a sweep.
 * Each process gets the signal once. Called with the forwarded signals
 * blocked (or from their handlers). */
static void sup_signal_one(int to)
{
	if (sup_cg >= 0 && cg_signal(sup_cg, to) == 0)
		return;
	kill(-sup_job, to);
	if (sweep_head - sweep_tail < SWEEP_QUEUE) {	/* (more: the end's sweep) */
		sweep_sig[sweep_head % SWEEP_QUEUE] = to;
		sweep_head = sweep_head + 1;
	}
}

/* SIGTERM is followed by SIGCONT: a job its owner stopped (bkill -s STOP)
 * runs its TERM handler at its limit or cancel, not only at the KILL. */
static void sup_signal_job(int to)
{
	sup_signal_one(to);
	if (to == SIGTERM)
		sup_signal_one(SIGCONT);
}

/* bkill -s: the daemon queues SIGUSR2 with the signal to pass on. */
static void sup_pass_on(int sig, siginfo_t *si, void *ctx)
{
	int to = si->si_code == SI_QUEUE ? si->si_value.sival_int : 0;

	(void)sig;
	(void)ctx;
	if (to > 0 && to < NSIG && sup_job > 0)
		sup_signal_job(to);
}

static void sup_forward(int sig)
{
	int to = sig == SIGUSR1 ? SIGKILL : SIGTERM;

	if (sup_job > 0)
		sup_signal_job(to);
	else
		sup_pending = to;
}

/* The host file, written by root in the job's directory, which is root's
 * and which its owner cannot write (see spool.h): nothing there can be a
 * link planted in advance, and O_EXCL|O_NOFOLLOW would refuse one anyway.
 * It stays root's (0644): the job only reads it. */
static int write_hostfile(const struct runner_job *j)
{
	int fd, bad = 0;
	FILE *f;

	if (unlink(j->hostfile) < 0 && errno != ENOENT)
		return -1;
	fd = open(j->hostfile, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || fchmod(fd, 0644) < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (uint32_t k = 0; k < j->nnodes; k++)
		fprintf(f, "%s\n", j->nodes[k]);
	bad = ferror(f);
	return (fclose(f) | bad) ? -1 : 0;
}

/* Room for the end's record (RECORD_ROOM bytes, far more than a record
 * takes), allocated in its temporary file when the supervisor starts: a
 * spool whose file system has filled up meanwhile still takes the end of
 * every job that ran (the record is written into blocks it already has,
 * then cut to its length). */
#define RECORD_ROOM 8192

static void record_room(const char *dir, uint64_t id)
{
	char tmp[4096];
	int fd;

	snprintf(tmp, sizeof tmp, "%s/%" PRIu64 ".tmp", dir, id);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) >= 0) {
		fallocate(fd, 0, 0, RECORD_ROOM);	/* (without it, as before) */
		close(fd);
	}
}

/* The end, durably: a temporary file synced and renamed, then the
 * directory synced, so a crash leaves either no record or a whole one.
 * 0, or -1 (errno) if it could not be written. */
static int record_once(const char *dir, uint64_t id, int wstatus, bf_time end,
                       const char *reason, const struct runner_usage *u, const char *down)
{
	char tmp[4096], final[4096], buf[RECORD_ROOM];
	int fd, n, len;

	snprintf(tmp, sizeof tmp, "%s/%" PRIu64 ".tmp", dir, id);
	snprintf(final, sizeof final, "%s/%" PRIu64 ".status", dir, id);
	len = snprintf(buf, sizeof buf, "wstatus %d\nend %lld\n", wstatus, (long long)end);
	/* Before the reason, which is the last line and may hold anything:
	 * the nodes a cluster job lost ("down NODE WHY" lines), its usage. */
	if (down && *down)
		len += snprintf(buf + len, sizeof buf - (size_t)len, "%s", down);
	if (u)
		len += snprintf(buf + len, sizeof buf - (size_t)len, "usage %lld %lld %d %d\n",
		                (long long)u->cpu_us, (long long)u->mem_kb, u->cpu_src, u->mem_src);
	if (reason && *reason)
		len += snprintf(buf + len, sizeof buf - (size_t)len, "reason %.1000s\n", reason);
	/* Into the room allocated at the start (no O_TRUNC: its blocks are
	 * kept), then cut to the record's length. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	n = (int)pwrite(fd, buf, (size_t)len, 0);
	if (n != len || ftruncate(fd, len) < 0 || fsync(fd) < 0) {
		if (n >= 0 && n != len)
			errno = ENOSPC;
		close(fd);
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, final) < 0)
		return -1;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(fd);
		close(fd);
	}
	return 0;
}

/* A record that found no room (a full disk, no room allocated) is tried
 * again each second for a minute: the daemon gives its disk reserve back
 * within seconds (reserve.h), and a job that ran must not be called lost
 * for want of a few bytes. */
static void record_down(const char *dir, uint64_t id, int wstatus, bf_time end,
                        const char *reason, const struct runner_usage *u, const char *down)
{
	for (int tries = 0; record_once(dir, id, wstatus, end, reason, u, down) < 0 &&
	                    (errno == ENOSPC || errno == EDQUOT) && tries < 60; tries++)
		sleep(1);
}

static void record(const char *dir, uint64_t id, int wstatus, bf_time end, const char *reason,
                   const struct runner_usage *u)
{
	record_down(dir, id, wstatus, end, reason, u, NULL);
}

/* A cluster job (remote.h): run on its nodes, its end recorded with the
 * nodes it lost. */
static _Noreturn void supervise_remote(const struct runner_job *j)
{
	static struct remote_result r;
	char down[RUNNER_MAX_DOWN * 360];
	size_t len = 0;
	sigset_t fwd, old;
	int pending;

	sigemptyset(&fwd);
	sigaddset(&fwd, SIGTERM);
	sigaddset(&fwd, SIGUSR1);
	sigaddset(&fwd, SIGUSR2);
	sigprocmask(SIG_BLOCK, &fwd, &old);
	pending = sup_pending;
	remote_run(j, pending, &r);
	down[0] = 0;
	if (r.at_limit)		/* (the daemon was not there to say so) */
		len += (size_t)snprintf(down, sizeof down, "limit 1\n");
	for (int k = 0; k < r.ndown && len < sizeof down; k++)
		len += (size_t)snprintf(down + len, sizeof down - len, "down %.79s %.255s\n",
		                        r.down[k], r.down_why[k]);
	record_down(j->status_dir, j->id, r.wstatus, clock_realtime(), r.reason, &r.usage, down);
	_exit(0);
}

/* A job not started after all: its identity and end's room go (the start
 * lock stays the supervisor's until it exits). */
static void unstarted(const char *dir, uint64_t id)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/%" PRIu64 ".sup", dir, id);
	unlink(path);
	snprintf(path, sizeof path, "%s/%" PRIu64 ".tmp", dir, id);
	unlink(path);
}

/* The supervisor's identity, synced before the job is forked: after a
 * crash, a job with no such record provably never started. A supervisor
 * that cannot write it does not start the job. */
static int record_sup(const char *dir, uint64_t id)
{
	char path[4096];
	int fd, bad;

	snprintf(path, sizeof path, "%s/%" PRIu64 ".sup", dir, id);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	bad = dprintf(fd, "pid %d\nstart %lld\n", (int)getpid(),
	              (long long)procs_start_ticks(getpid())) < 0;
	if ((fsync(fd) | close(fd)) < 0 || bad)
		return -1;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	bad = fsync(fd);
	close(fd);
	return bad;
}

/* The end of the job's cgroup: whatever is left in it is killed (the
 * job's own process is gone: what remains had no business to stay), and
 * once it is empty its usage is read (into u, if given) and it goes. The
 * forwarding of signals stops first: the descriptor closes here. A
 * process that will not die in 10 s (stuck in the kernel) leaves the
 * cgroup to the daemon's sweep at its next start. */
static void sup_cgroup_end(const struct runner_job *j, struct runner_usage *u)
{
	sigset_t fwd, old;
	int64_t cpu, mem;
	char name[24];
	int cg = sup_cg;

	if (cg < 0)
		return;
	sigemptyset(&fwd);
	sigaddset(&fwd, SIGTERM);
	sigaddset(&fwd, SIGUSR1);
	sigaddset(&fwd, SIGUSR2);
	sigprocmask(SIG_BLOCK, &fwd, &old);
	sup_cg = -1;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (cg_drain(cg, 10000) == 0 && u) {
		cg_usage(cg, &cpu, &mem);
		if (cpu >= 0) {
			u->cpu_us = cpu;
			u->cpu_src = PU_CGROUP;
		}
		if (mem >= 0) {
			u->mem_kb = (mem + 1023) / 1024;
			u->mem_src = PU_CGROUP;
		}
	}
	close(cg);
	snprintf(name, sizeof name, "%" PRIu64, j->id);
	cg_remove(5, name);
	close(5);
}

/* The job's processes, without a cgroup: those of its owner started since
 * the supervisor that are in its session (which only the job's processes
 * can be) or that carry the job's id and host file in their environment
 * (the job's, in this spool: another daemon's job of the same id has
 * another host file). A process that made a session of its own and
 * dropped these escapes; a cgroup holds even that one. */
struct sup_sweep {
	char id[48], hostfile[4200];
	const char *markers[2];
	struct procs_rule rule;
};

static void sup_sweep_init(struct sup_sweep *w, const struct runner_job *j)
{
	snprintf(w->id, sizeof w->id, "BSUB_JOBID=%" PRIu64, j->id);
	snprintf(w->hostfile, sizeof w->hostfile, "BSUB_HOSTFILE=%s", j->hostfile);
	w->markers[0] = w->id;
	w->markers[1] = w->hostfile;
	w->rule = (struct procs_rule){ getpid(), procs_start_ticks(getpid()),
	                               j->as_owner ? j->uid : getuid(), w->markers, 2, PROCS_EITHER, 0 };
}

/* The signals the handlers sent to the job's process group, passed on to
 * the rest of the job, in their order: its group has had each once
 * already (a second SIGTERM or USR1 would be a second request). */
static void sup_sweep_queued(const struct sup_sweep *w)
{
	struct procs_killed k = { .n = 0, .total = 0 };
	struct procs_rule rule = w->rule;
	int fresh;

	rule.skip_pgrp = sup_job;

	while (sweep_tail != sweep_head) {
		int sig = sweep_sig[sweep_tail % SWEEP_QUEUE];

		sweep_tail++;
		procs_sweep(&rule, sig, &k, &fresh);
	}
}

/* At the job's end, without a cgroup: SIGKILL to every process of the job
 * that is left, again until none is (one may fork while it is swept),
 * for 2 s at most: a process stuck in the kernel, or forking faster than
 * the sweeps, is left behind. */
static void sup_sweep_end(const struct sup_sweep *w)
{
	struct procs_killed k = { .n = 0, .total = 0 };
	int fresh;

	for (int round = 0; round < 200; round++) {
		if (procs_sweep(&w->rule, SIGKILL, &k, &fresh) == 0)
			break;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
}

/* Wait for the job's process, passing on meanwhile each signal forwarded
 * to its group to the rest of the job (sup_sweep_queued). The forwarded
 * signals are blocked but while ppoll waits on the job's pidfd, so none
 * comes between the look at the queue and the wait. */
static void sup_wait(pid_t job, int *wstatus, const struct sup_sweep *w)
{
	int pfd = procs_pidfd(job);
	sigset_t fwd, old;
	pid_t r;

	sigemptyset(&fwd);
	sigaddset(&fwd, SIGTERM);
	sigaddset(&fwd, SIGUSR1);
	sigaddset(&fwd, SIGUSR2);
	sigprocmask(SIG_BLOCK, &fwd, &old);
	for (;;) {
		sup_sweep_queued(w);
		if ((r = waitpid(job, wstatus, pfd >= 0 ? WNOHANG : 0)) == job ||
		    (r < 0 && errno != EINTR))
			break;
		if (pfd >= 0) {
			ppoll(&(struct pollfd){ .fd = pfd, .events = POLLIN }, 1, NULL, &old);
		} else {
			/* (No pidfd: a blocking wait, which a signal interrupts;
			 * one that comes just before it waits for the end.) */
			sigprocmask(SIG_SETMASK, &old, NULL);
			r = waitpid(job, wstatus, 0);
			sigprocmask(SIG_BLOCK, &fwd, NULL);
			if (r == job || (r < 0 && errno != EINTR))
				break;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pfd >= 0)
		close(pfd);
}

/* The usage of the job's processes that were waited for: all its CPU
 * time, and the largest one's peak (ru_maxrss is in KiB on Linux). */
static void rusage_of_children(struct runner_usage *u)
{
	struct rusage ru;

	*u = (struct runner_usage){ -1, -1, PU_NONE, PU_NONE };
	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return;
	u->cpu_us = ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
	            ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
	u->mem_kb = ru.ru_maxrss;
	u->cpu_src = u->mem_src = PU_RUSAGE;
}

/* ps shows "backfilld: job 12" (comm: "bfd-job 12"), not the daemon's
 * command line. */
static void name_supervisor(uint64_t id)
{
	char title[64], comm[16];

	snprintf(title, sizeof title, "backfilld: job %" PRIu64, id);
	snprintf(comm, sizeof comm, "bfd-job %" PRIu64, id);
	proctitle_set(title, comm);
}

/* The supervisor. `intent` is the locked ID.start file (see
 * runner_start): it holds the lock for as long as it lives. Never returns. */
_Noreturn void supervisor_main(const struct runner_job *j, int intent)
{
	struct sigaction sa = { .sa_handler = sup_forward };
	struct sup_sweep sweep;
	sigset_t none, fwd, old;
	int devnull, wstatus = 0, why[2], cgd = -1, cgp = -1, hostfile;
	struct runner_usage usage;
	char reason[512] = "";
	ssize_t n, got = 0;
	pid_t job;

	name_supervisor(j->id);
	/* The intent's lock moves to fd 3, the job's cgroup and its parent to
	 * 4 and 5, kept open (but not across the job's exec) while every
	 * other descriptor of the daemon's goes. The cgroup's are set aside
	 * first, out of the way of the moves. */
	if (j->cgroup && ((cgd = fcntl(j->cgroup->dir_fd, F_DUPFD_CLOEXEC, 64)) < 0 ||
	                  (cgp = fcntl(j->cgroup->parent_fd, F_DUPFD_CLOEXEC, 64)) < 0))
		_exit(1);
	if (intent != 3 && dup2(intent, 3) < 0)
		_exit(1);
	fcntl(3, F_SETFD, FD_CLOEXEC);
	if (j->cgroup) {
		if (dup2(cgd, 4) < 0 || dup2(cgp, 5) < 0)
			_exit(1);
		fcntl(4, F_SETFD, FD_CLOEXEC);
		fcntl(5, F_SETFD, FD_CLOEXEC);
		sup_cg = 4;
	}
	setsid();
	sup_sweep_init(&sweep, j);
	/* The handlers block one another: sup_signal_job's queue has one
	 * writer at a time. */
	sigemptyset(&fwd);
	sigaddset(&fwd, SIGTERM);
	sigaddset(&fwd, SIGUSR1);
	sigaddset(&fwd, SIGUSR2);
	sa.sa_mask = fwd;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = sup_pass_on;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Nothing of the daemon's: no sockets, no database, no terminal. */
	if ((devnull = open("/dev/null", O_RDWR)) >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		if (devnull > 2)
			close(devnull);
	}
	syscall(SYS_close_range, j->cgroup ? 6U : 4U, ~0U, 0U);
	/* (A test widens here the window where a daemon that dies leaves a
	 * live supervisor the spool does not show yet.) */
	failpoint_delay(FP_SUP_DELAY_MS);
	record_room(j->status_dir, j->id);
	hostfile = -1;
	if (j->remote) {
		if (record_sup(j->status_dir, j->id) < 0) {
			unstarted(j->status_dir, j->id);
			_exit(RUNNER_EXIT_UNSTARTED);
		}
		supervise_remote(j);
	}
	if (record_sup(j->status_dir, j->id) < 0 ||
	    ((hostfile = write_hostfile(j)) < 0 && (errno == ENOSPC || errno == EDQUOT))) {
		/* No room in the spool: the job is not started, and no record
		 * says otherwise (a restart finds no identity and the lock
		 * free: never forked). The daemon queues it again. */
		sup_cgroup_end(j, NULL);
		unstarted(j->status_dir, j->id);
		_exit(RUNNER_EXIT_UNSTARTED);
	}
	if (hostfile < 0) {
		sup_cgroup_end(j, NULL);
		record(j->status_dir, j->id, 127 << 8, clock_realtime(), "cannot write the host file",
		       NULL);
		_exit(1);
	}
	/* The signals passed on are blocked across the fork: the child gets
	 * them pending, not run by the supervisor's handlers it inherits
	 * (which would swallow a cancel that comes at once), and takes them
	 * with their default action once default_signals unblocks them. */
	sigprocmask(SIG_BLOCK, &fwd, &old);
	if (pipe2(why, O_CLOEXEC) < 0 || (job = fork()) < 0) {
		n = errno;
		sup_cgroup_end(j, NULL);
		record(j->status_dir, j->id, 127 << 8, clock_realtime(), strerror((int)n), NULL);
		_exit(1);
	}
	if (job == 0) {
		close(why[0]);
		close(3);	/* the start lock is the supervisor's alone */
		if (j->cgroup)
			close(5);	/* the job needs its own cgroup only */
		jobexec_run(j, sup_cg, NULL, why[1]);
	}
	close(why[1]);
	setpgid(job, job);	/* as the child does: whoever runs first */
	if (sup_cg >= 0)
		cg_join(sup_cg, job);	/* likewise: in it before any signal goes */
	sup_job = job;
	if (sup_pending)
		sup_signal_job(sup_pending);
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* Until exec closes the pipe: empty, or why the job could not start. */
	while ((n = read(why[0], reason + got, sizeof reason - 1 - (size_t)got)) != 0) {
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (got += n) == (ssize_t)sizeof reason - 1)
			break;
	}
	reason[got] = 0;
	for (char *c = reason; *c; c++)
		if (*c == '\n')
			*c = ' ';
	close(why[0]);
	sup_wait(job, &wstatus, &sweep);
	rusage_of_children(&usage);
	/* The job is its leader's process group: what it left behind goes;
	 * and all of its cgroup, or without one, all the sweep finds. */
	kill(-job, SIGKILL);
	if (sup_cg < 0)
		sup_sweep_end(&sweep);
	sup_cgroup_end(j, &usage);
	record(j->status_dir, j->id, wstatus, clock_realtime(), reason, &usage);
	_exit(0);
}
