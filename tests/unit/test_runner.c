/* Job supervisors with real processes. Every wait is bounded. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "proto.h"
#include "sys/runner.h"
#include "tap.h"

static char dir[] = "/tmp/test_runner.XXXXXX";
static char status_dir[300], out[300], errf[300], hosts[300], script[300];
static const char *const nodes[] = { "n01", "n02" };
static const char *const env[] = { "PATH=/usr/bin:/bin", "BSUB_JOBID=forged", "KEEP=yes",
                                   "LSB_JOBID=forged" };

static void write_script(const char *body, mode_t mode)
{
	FILE *f = fopen(script, "w");

	fputs(body, f);
	fclose(f);
	chmod(script, mode);
}

static struct runner_job job(uint64_t id)
{
	return (struct runner_job){
		.id = id, .uid = getuid(), .gid = getgid(), .script = script,
		.env = env, .envc = 4, .cwd = dir, .out = out, .err = errf, .nodes = nodes,
		.nnodes = 2, .hostfile = hosts, .status_dir = status_dir,
	};
}

/* Wait for the supervisor to end (at most 10 s); 1 if it did. */
static int wait_end(struct runner_proc *p, int ms)
{
	struct pollfd pfd = { .fd = p->pidfd, .events = POLLIN };
	int n = poll(&pfd, 1, ms);

	if (n == 1)
		runner_reap(p);
	return n == 1;
}

static int file_has(const char *path, const char *text)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	return strstr(buf, text) != NULL;
}

static int run_to_end_job(const struct runner_job *j, int *ws)
{
	struct runner_proc p;
	char err[256];
	bf_time end;

	if (runner_start(j, &p, err, sizeof err) < 0 || !wait_end(&p, 10000))
		return -1;
	return runner_collect(status_dir, j->id, ws, &end, NULL, 0);
}

static int run_to_end(uint64_t id, int *ws)
{
	struct runner_job j = job(id);

	return run_to_end_job(&j, ws);
}

/* Is the process gone (or a zombie) within `ms`? */
static int gone_within(pid_t pid, int ms)
{
	for (int k = 0; pid > 0 && k <= ms / 20; k++) {
		char path[64], state = 0;
		FILE *f;

		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		if (!(f = fopen(path, "r")))
			return 1;
		if (fscanf(f, "%*d %*s %c", &state) != 1)
			state = 0;
		fclose(f);
		if (state == 'Z')
			return 1;
		usleep(20000);
	}
	return 0;
}

/* A pid the job wrote to a file in dir, or 0. */
static pid_t pid_in(const char *name)
{
	char path[400];
	FILE *f;
	int pid = 0;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	for (int k = 0; k < 100 && !(f = fopen(path, "r")); k++)
		usleep(20000);
	if (!f)
		return 0;
	for (int k = 0; k < 100 && fscanf(f, "%d", &pid) != 1; k++) {
		usleep(20000);
		rewind(f);
	}
	fclose(f);
	return pid;
}

/* A signal mask from /proc/PID/status as the job wrote it: "SigIgn:" etc. */
static int mask_in(const char *path, const char *field, unsigned long long *mask)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof line, f))
		found = strncmp(line, field, strlen(field)) == 0 &&
		        sscanf(line + strlen(field), "%llx", mask) == 1;
	fclose(f);
	return found;
}

/* A job without a cgroup whose children leave its process group: one by
 * setpgid(0,0), one by setsid, both keeping its environment; and a process
 * of the same uid that claims another spool's job of the same id. At the
 * job's end (`how` 0), or at a terminate (1) or kill (2), the supervisor
 * sweeps the job's two and leaves the other alone. */
static void escapees(uint64_t id, int how)
{
	static const char *const names[] = { "at its end", "at a terminate", "at a kill" };
	char body[1200], host_env[400], other[400];
	struct runner_job j = job(id);
	struct runner_proc p;
	pid_t pg, ss, stranger;
	char err[256];
	int ws;
	bf_time end;

	snprintf(body, sizeof body,
	         "#!/bin/sh\ncd %s\nrm -f pg.pid ss.pid\n"
	         "sh -c 'echo $$ >pg.pid.t; mv pg.pid.t pg.pid; exec perl -e \"setpgrp(0, 0); exec qw(sleep 60)\"' &\n"
	         "setsid sh -c 'echo $$ >ss.pid.t; mv ss.pid.t ss.pid; exec sleep 60' &\n"
	         "while [ ! -f pg.pid ] || [ ! -f ss.pid ]; do sleep 0.05; done\n"
	         "%s\n", dir, how ? "sleep 60" : "exit 0");
	write_script(body, 0755);
	/* Another spool's job of the same id, of the same uid: not this one. */
	snprintf(host_env, sizeof host_env, "BSUB_HOSTFILE=%s.other", hosts);
	snprintf(other, sizeof other, "BSUB_JOBID=%llu", (unsigned long long)id);
	if ((stranger = fork()) == 0) {
		setsid();
		execle("/bin/sleep", "sleep", "60", (char *)NULL, (char *const[]){ other, host_env, NULL });
		_exit(127);
	}
	usleep(50000);
	for (int k = 0; k < 2; k++) {	/* (a previous case's) */
		char path[400];

		snprintf(path, sizeof path, "%s/%s.pid", dir, k ? "ss" : "pg");
		unlink(path);
	}
	if (runner_start(&j, &p, err, sizeof err) < 0) {
		ok(0, "escapees: a supervisor starts (%s)", err);
		return;
	}
	pg = pid_in("pg.pid");
	ss = pid_in("ss.pid");
	usleep(100000);	/* both have exec'd sleep */
	if (how == 1)
		runner_terminate(&p);
	else if (how == 2)
		runner_kill(&p);
	ok(wait_end(&p, 10000) && runner_collect(status_dir, id, &ws, &end, NULL, 0) == 1,
	   "escapees %s: the job ends (its children pids %d, %d)", names[how], (int)pg, (int)ss);
	ok(pg > 0 && ss > 0 && gone_within(pg, 2000) && gone_within(ss, 2000),
	   "escapees %s: its setpgid(0,0) child and its setsid child are killed, without a cgroup",
	   names[how]);
	ok(!gone_within(stranger, 0), "escapees %s: a process claiming another spool's job %llu "
	   "lives", names[how], (unsigned long long)id);
	kill(stranger, SIGKILL);
	waitpid(stranger, NULL, 0);
	if (pg > 0)
		kill(pg, SIGKILL);
	if (ss > 0)
		kill(ss, SIGKILL);
	runner_forget(status_dir, id);
}

/* The sweep of a lost supervisor's session, on a session made here: a
 * leader (standing in for the supervisor), a member that is job 77's (its
 * environment says so) and one that is not. */
static void orphans(void)
{
	int pfd[2];
	pid_t leader, member[2] = { 0, 0 };

	if (pipe(pfd) < 0 || (leader = fork()) < 0)
		return;
	if (leader == 0) {
		static const char *const envs[2][2] = { { "BSUB_JOBID=77", NULL },
		                                        { "BSUB_JOBID=770", NULL } };

		setsid();
		signal(SIGCHLD, SIG_IGN);	/* its members are reaped at once */
		for (int k = 0; k < 2; k++) {
			pid_t m = fork();

			if (m == 0) {
				execle("/bin/sleep", "sleep", "60", (char *)NULL, envs[k]);
				_exit(127);
			}
			if (write(pfd[1], &m, sizeof m) < 0)
				_exit(1);
		}
		pause();
		_exit(0);
	}
	if (read(pfd[0], &member[0], sizeof member[0]) < 0 ||
	    read(pfd[0], &member[1], sizeof member[1]) < 0)
		return;
	close(pfd[0]);
	close(pfd[1]);
	usleep(200000);	/* both have exec'd sleep */
	ok_eq(runner_kill_orphans(leader, runner_start_ticks(leader) + 1, getuid(), 77), 0,
	      "orphans: a leader with another start time is someone else's: nothing killed");
	ok(kill(member[0], 0) == 0, "orphans: its members live");
	ok_eq(runner_kill_orphans(leader, runner_start_ticks(leader), getuid() + 1, 77), 0,
	      "orphans: processes of another uid are left alone");
	ok_eq(runner_kill_orphans(leader, runner_start_ticks(leader), getuid(), 77), 1,
	      "orphans: with the supervisor's identity, job 77's process is killed");
	for (int i = 0; i < 100 && kill(member[0], 0) == 0; i++)
		usleep(20000);
	ok(kill(member[0], 0) < 0, "orphans: it is gone");
	ok(kill(member[1], 0) == 0 && kill(leader, 0) == 0,
	   "orphans: a process without BSUB_JOBID=77 (it has 770) and the leader are not touched");
	kill(member[1], SIGKILL);
	kill(leader, SIGKILL);
	waitpid(leader, NULL, 0);
}

int main(void)
{
	struct runner_job j;
	struct runner_proc p, q;
	char err[256], pidfile[300], reason[512];
	int ws = -1;
	bf_time end = 0;

	if (!mkdtemp(dir))
		return 1;
	orphans();
	chmod(dir, 0777);	/* a second user writes its output here */
	snprintf(status_dir, sizeof status_dir, "%s/status", dir);
	mkdir(status_dir, 0700);
	snprintf(out, sizeof out, "%s/job.out", dir);
	snprintf(errf, sizeof errf, "%s/job.err", dir);
	snprintf(hosts, sizeof hosts, "%s/hosts", dir);
	snprintf(script, sizeof script, "%s/job.sh", dir);
	snprintf(pidfile, sizeof pidfile, "%s/bg.pid", dir);

	write_script("#!/bin/sh\necho \"id=$BSUB_JOBID n=$BSUB_NNODES nodes=$BSUB_NODES keep=$KEEP\"\n"
	             "echo \"lsb=$LSB_JOBID name=$LSB_JOBNAME hosts=$LSB_HOSTS mcpu=$LSB_MCPU_HOSTS "
	             "np=$LSB_DJOB_NUMPROC\"\n[ \"$LSB_DJOB_HOSTFILE\" = \"$BSUB_HOSTFILE\" ] && echo same\n"
	             "cat \"$BSUB_HOSTFILE\"\necho arg=$1 >&2\npwd\nexit 3\n", 0755);
	j = job(7);
	j.name = "sim";
	j.argv = (const char *const[]){ "first" };
	j.argc = 1;
	ok(runner_start(&j, &p, err, sizeof err) == 0, "a supervisor starts (%s)", err);
	ok(p.start_ticks > 0, "its start time is known");
	ok(wait_end(&p, 10000), "and ends when the job does");
	ok(runner_collect(status_dir, 7, &ws, &end, NULL, 0) == 1 && WIFEXITED(ws) && WEXITSTATUS(ws) == 3,
	   "the job's exit status 3 is recorded");
	ok(end > 0, "with its end time");
	{
		struct runner_usage u;
		int rc = runner_collect_usage(status_dir, 7, &u);

		/* No cgroup here: the supervisor's rusage of the job, said so. */
		ok(rc == 1 && u.cpu_src == PU_RUSAGE &&
		   u.mem_src == PU_RUSAGE && u.cpu_us >= 0 && u.mem_kb > 0,
		   "its CPU time (%lld us) and peak memory (%lld KiB) are recorded, from rusage",
		   (long long)u.cpu_us, (long long)u.mem_kb);
	}
	ok(file_has(out, "id=7 n=2 nodes=n01 n02 keep=yes"),
	   "BSUB_JOBID, BSUB_NNODES, BSUB_NODES set (a forged BSUB_JOBID dropped), environment kept");
	ok(file_has(out, "lsb=7 name=sim hosts=n01 n02 mcpu=n01 1 n02 1 np=2\nsame\n"),
	   "LSB_JOBID, LSB_JOBNAME, LSB_HOSTS, LSB_MCPU_HOSTS, LSB_DJOB_NUMPROC, "
	   "LSB_DJOB_HOSTFILE set as LSF sets them (a forged LSB_JOBID dropped)");
	ok(file_has(out, "n01\nn02\n"), "BSUB_HOSTFILE lists one node per line");
	ok(file_has(out, dir), "the job runs in its working directory");
	ok(file_has(errf, "arg=first"), "arguments reach the script; stderr goes to its file");
	runner_forget(status_dir, 7);
	ok(runner_collect(status_dir, 7, &ws, &end, NULL, 0) == 0, "a forgotten record is gone");

	write_script("echo no shebang\n", 0755);
	ok(run_to_end(8, &ws) == 1 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0 &&
	   file_has(out, "no shebang"), "a script without #! runs under /bin/sh");

	write_script("#!/bin/sh\nsleep 30\n", 0755);
	j = job(9);
	runner_start(&j, &p, err, sizeof err);
	usleep(200000);
	ok_eq(runner_terminate(&p), 0, "terminate is sent");
	ok(wait_end(&p, 10000) && runner_collect(status_dir, 9, &ws, &end, NULL, 0) == 1 &&
	   WIFSIGNALED(ws) && WTERMSIG(ws) == SIGTERM, "the job dies of SIGTERM");

	write_script("#!/bin/sh\ntrap '' TERM\nsleep 30 &\nwait\nsleep 30\n", 0755);
	j = job(10);
	runner_start(&j, &p, err, sizeof err);
	usleep(200000);
	runner_terminate(&p);
	ok(!wait_end(&p, 500), "a job that ignores SIGTERM keeps running");
	ok_eq(runner_kill(&p), 0, "kill is sent");
	ok(wait_end(&p, 10000) && runner_collect(status_dir, 10, &ws, &end, NULL, 0) == 1 &&
	   WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL, "the job dies of SIGKILL");

	{
		char body[600];
		FILE *f;
		int bg = 0, gone = 0;

		snprintf(body, sizeof body, "#!/bin/sh\nsleep 30 &\necho $! > %s\nexit 0\n", pidfile);
		write_script(body, 0755);
		ok(run_to_end(11, &ws) == 1 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
		   "a job leaving a background process exits 0");
		if ((f = fopen(pidfile, "r"))) {
			if (fscanf(f, "%d", &bg) != 1)
				bg = 0;
			fclose(f);
		}
		for (int k = 0; k < 100 && bg > 0 && !gone; k++) {
			gone = runner_start_ticks(bg) < 0 || (kill(bg, 0) < 0 && errno == ESRCH);
			if (!gone) {
				char path[64], state = 0;

				snprintf(path, sizeof path, "/proc/%d/stat", bg);
				if ((f = fopen(path, "r"))) {
					if (fscanf(f, "%*d %*s %c", &state) != 1)
						state = 0;
					fclose(f);
				}
				gone = state == 'Z';
			}
			usleep(20000);
		}
		ok(bg > 0 && gone, "what it left in its process group is killed");
	}

	write_script("#!/bin/sh\nsleep 30\n", 0755);
	j = job(12);
	runner_start(&j, &p, err, sizeof err);
	ok_eq(runner_find(p.pid, p.start_ticks, &q), 1, "after a restart the supervisor is found");
	ok_eq(runner_find(p.pid, p.start_ticks + 1, &(struct runner_proc){ 0 }), 0,
	      "a pid with another start time is not it");
	runner_kill(&q);
	ok(wait_end(&q, 10000), "the found supervisor's end is seen through its pidfd");
	close(p.pidfd);
	runner_reap(&p);
	ok(runner_collect(status_dir, 12, &ws, &end, NULL, 0) == 1 && WTERMSIG(ws) == SIGKILL,
	   "and its record read");

	j = job(13);
	j.cwd = "/nonexistent/dir";
	ok(runner_start(&j, &p, err, sizeof err) == 0 && wait_end(&p, 10000) &&
	   runner_collect(status_dir, 13, &ws, &end, reason, sizeof reason) == 1 &&
	   WEXITSTATUS(ws) == 127 && file_has(errf, "could not start: changing to /nonexistent/dir"),
	   "a job that cannot start ends with 127 and says why in its error file");
	ok(strstr(reason, "changing to /nonexistent/dir: No such file") != NULL,
	   "and the supervisor records why (%s)", reason);
	j = job(15);
	j.out = "/nonexistent/out.txt";
	ok(runner_start(&j, &p, err, sizeof err) == 0 && wait_end(&p, 10000) &&
	   runner_collect(status_dir, 15, &ws, &end, reason, sizeof reason) == 1 &&
	   WEXITSTATUS(ws) == 127 && strstr(reason, "opening /nonexistent/out.txt"),
	   "an output file that cannot be opened: the reason is still recorded (%s)", reason);

	/* The job gets every signal at its default, none blocked: the daemon
	 * ignores SIGXFSZ and SIGPIPE. The masks are read by the job's own
	 * process after exec, which keeps them: a grep the shell forks would
	 * see the shell's while it blocks every signal across its vfork
	 * (dash does), a race that failed one run in twenty. */
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	{
		unsigned long long ign = ~0ull, blk = ~0ull;
		bool good;

		write_script("#!/bin/sh\nexec grep '^Sig' /proc/self/status\n", 0755);
		good = run_to_end(16, &ws) == 1 && WEXITSTATUS(ws) == 0 &&
		       mask_in(out, "SigIgn:", &ign) && mask_in(out, "SigBlk:", &blk) &&
		       !(ign >> (SIGXFSZ - 1) & 1) && !(ign >> (SIGPIPE - 1) & 1) && blk == 0;
		ok(good,
		   "the job ignores neither SIGXFSZ nor SIGPIPE, and blocks nothing (SigIgn %llx, "
		   "SigBlk %llx)", ign, blk);
		runner_forget(status_dir, 16);
	}
	/* -o naming a FIFO nobody reads: the job fails at once, saying so. */
	{
		char fifo[300];

		snprintf(fifo, sizeof fifo, "%s/fifo", dir);
		mkfifo(fifo, 0666);
		write_script("#!/bin/sh\necho ran\n", 0755);
		j = job(17);
		j.out = fifo;
		ok(runner_start(&j, &p, err, sizeof err) == 0 && wait_end(&p, 10000) &&
		   runner_collect(status_dir, 17, &ws, &end, reason, sizeof reason) == 1 &&
		   WEXITSTATUS(ws) == 127 && strstr(reason, "a FIFO with no reader"),
		   "-o naming a FIFO with no reader: the job fails at once (%s)", reason);
		unlink(fifo);
		runner_forget(status_dir, 17);
	}
	/* The submitter's umask for the files the job makes; 022 unknown. */
	{
		char f1[300], f2[300];
		struct stat st1 = { 0 }, st2 = { 0 };
		bool good;

		snprintf(f1, sizeof f1, "%s/u077.out", dir);
		snprintf(f2, sizeof f2, "%s/udef.out", dir);
		write_script("#!/bin/sh\ntouch \"$1\"\n", 0755);
		j = job(18);
		j.has_umask = true;
		j.umask = 077;
		j.out = f1;
		j.argv = (const char *const[]){ f1 };
		j.argc = 1;
		run_to_end_job(&j, &ws);
		j = job(19);
		j.out = f2;
		run_to_end_job(&j, &ws);
		good = stat(f1, &st1) == 0 && (st1.st_mode & 0777) == 0600 && stat(f2, &st2) == 0 &&
		       (st2.st_mode & 0777) == 0644;
		ok(good, "the job's files are made under its submitter's umask "
		   "(077: %o), or 022 when it is unknown (%o)", st1.st_mode & 0777, st2.st_mode & 0777);
		runner_forget(status_dir, 18);
		runner_forget(status_dir, 19);
	}
	escapees(20, 0);
	escapees(21, 1);
	escapees(22, 2);

	if (getuid() == 0) {
		char uidout[300];

		snprintf(uidout, sizeof uidout, "%s/nobody.out", dir);
		write_script("#!/bin/sh\nid -u\nid -g\n", 0755);
		j = job(14);
		j.as_owner = true;
		j.uid = 65534;
		j.gid = 65534;
		j.user = "nobody";
		j.out = uidout;
		j.err = uidout;	/* a file nobody may write, as its owner would */
		ok(runner_start(&j, &p, err, sizeof err) == 0 && wait_end(&p, 10000) &&
		   runner_collect(status_dir, 14, &ws, &end, NULL, 0) == 1 && WEXITSTATUS(ws) == 0 &&
		   file_has(uidout, "65534\n65534"), "as root, the job runs as its owner (nobody)");
		unlink(uidout);
	} else {
		printf("# skip: running as another user needs root\n");
	}

	{
		char cmd[400];

		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		ok(system(cmd) == 0, "temporary directory removed");
	}
	return tap_done();
}
