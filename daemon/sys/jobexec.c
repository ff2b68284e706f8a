/* A job's process as its owner: the script (jobexec_run) and, on a
 * cluster, each task blaunch starts on the job's nodes (jobexec_task).
 * Both run in the child of a fork by root (the local supervisor,
 * supervisor.c, or the node side, node.c) and never return: they join the
 * job's cgroup while still root, set every signal to its default, take a
 * process group of their own, become the owner (see become_owner), then
 * set up and exec. What fails before the exec is written to the pipe
 * `why` (close-on-exec: empty once the exec succeeded) and to fd 2, and
 * the process exits 127. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cgroup.h"
#include "failpoint.h"
#include "jobexec.h"

#define ENV_MAX 4096

/* End the job's child before it became the job: the reason goes to the
 * supervisor through the close-on-exec pipe `why` (so it is known even when
 * the output files could not be opened) and to fd 2; exit status 127, as a
 * shell gives for a command it cannot run. */
_Noreturn static void child_fail(int why, const char *what, const char *arg)
{
	char msg[512];
	int n = snprintf(msg, sizeof msg, "%s%s%s: %s", what, arg ? " " : "", arg ? arg : "",
	                 strerror(errno));

	if (n > 0 && write(why, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1) < 0)
		n = 0;
	dprintf(2, "backfilld: job could not start: %s\n", msg);
	_exit(127);
}

/* An output file, opened as the owner. O_NONBLOCK first: a FIFO with no
 * reader (ENXIO) fails the job at once instead of holding it, unstarted,
 * forever; then cleared, so the job writes as to any file. */
static int open_output(const char *path, int fd)
{
	int o = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOCTTY | O_NONBLOCK, 0666);
	int fl;

	if (o < 0)
		return -1;
	if ((fl = fcntl(o, F_GETFL)) < 0 || fcntl(o, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		close(o);
		return -1;
	}
	if (o != fd) {
		if (dup2(o, fd) < 0)
			return -1;
		close(o);
	}
	return 0;
}

/* The nodes' names separated by spaces, each followed by `each` (LSF's
 * LSB_MCPU_HOSTS gives every host a slot count: " 1"). */
static char *join_nodes(const struct runner_job *j, const char *each)
{
	size_t len = 1;
	char *s, *p;

	for (uint32_t k = 0; k < j->nnodes; k++)
		len += strlen(j->nodes[k]) + strlen(each) + 1;
	if (!(s = malloc(len)))
		return NULL;
	p = s;
	*p = 0;
	for (uint32_t k = 0; k < j->nnodes; k++)
		p += sprintf(p, "%s%s%s", k ? " " : "", j->nodes[k], each);
	return s;
}

/* What every job finds in its environment, replacing any of these the
 * submission carried: the BSUB_* variables and, for LSF users' scripts and
 * the MPI launchers that read them, the LSB_* ones (one slot a node). */
static bool ours(const char *entry)
{
	return strncmp(entry, "BSUB_", 5) == 0 || strncmp(entry, "LSB_", 4) == 0;
}

/* Every signal's disposition back to the default and none blocked: the
 * job gets nothing of the daemon's or the supervisor's (which ignore
 * SIGPIPE, SIGXFSZ, SIGINT, SIGHUP; an ignored signal stays ignored
 * across exec, handlers do not). */
static void default_signals(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;

	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);	/* (libc's own refuse: EINVAL) */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Become the job's owner without ever being attachable by the owner while
 * this process still holds the daemon's memory (a fork of it: every
 * queued job's environment and arguments) and before it opens a path of
 * the owner's choosing (which the owner can make block: a FIFO, a FUSE
 * file system). The kernel's rules (kernel/cred.c commit_creds,
 * kernel/ptrace.c __ptrace_may_access, which also guards /proc/PID/mem
 * and environ):
 *
 * - a process of the owner's may attach only if its uid equals the
 *   target's real, effective AND saved uid (and its gid all three gids),
 *   and then only if the target is dumpable (SUID_DUMP_USER); else it
 *   needs CAP_SYS_PTRACE;
 * - commit_creds resets dumpable to fs.suid_dumpable whenever the
 *   effective or file-system uid or gid changes, or the permitted
 *   capabilities are not a subset of the old ones; with suid_dumpable=1
 *   a plain setuid() leaves the process dumpable and fully the owner's.
 *
 * Hence: groups; setresgid(g,g,g) (still uid 0: no one may attach);
 * setresuid(u,u,0): the saved uid 0 keeps the owner out whatever
 * dumpable is; PR_SET_DUMPABLE 0; then setresuid(u,u,u): only the saved
 * uid changes, the effective and file-system ones do not, and the
 * capabilities dropped are a subset, so the kernel does not reset
 * dumpable: the owner still cannot attach. The exec sets dumpable anew
 * for the job's own image (which holds nothing of the daemon's). */
static void become_owner(const struct runner_job *j, int why)
{
	if ((j->user ? initgroups(j->user, j->gid) : setgroups(1, &j->gid)) < 0)
		child_fail(why, "setting groups for", j->user);
	if (setresgid(j->gid, j->gid, j->gid) < 0 || setresuid(j->uid, j->uid, 0) < 0)
		child_fail(why, "becoming the job's owner", NULL);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		child_fail(why, "making the job's process not dumpable", NULL);
	if (setresuid(j->uid, j->uid, j->uid) < 0)
		child_fail(why, "becoming the job's owner", NULL);
	if (j->uid != 0 && setuid(0) == 0)
		child_fail(why, "dropping root", NULL);
	if (j->uid != 0 && prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0) {
		errno = EPERM;
		child_fail(why, "keeping the job's process not dumpable", NULL);
	}
}

/* Why an output file could not be opened; a FIFO nobody reads says so
 * (ENXIO, which a socket or a missing device also give). */
_Noreturn static void output_failed(int why, const char *path)
{
	struct stat st;
	int e = errno;

	if (e == ENXIO && stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
		char msg[512];
		int n = snprintf(msg, sizeof msg, "opening %s: a FIFO with no reader (refused rather "
		                 "than waited for)", path);

		if (n > 0 && write(why, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1) < 0)
			n = 0;
		dprintf(2, "backfilld: job could not start: %s\n", msg);
		_exit(127);
	}
	errno = e;
	child_fail(why, "opening", path);
}

/* The environment of a job's process: `base` without any BSUB_* or LSB_*
 * entry, then ours (what every job finds: its id, name, nodes and host
 * file, in LSF's names too), then `extra` (NULL-terminated, may be NULL).
 * NULL if memory ran out. */
static char **job_env(const struct runner_job *j, const char *const *base, uint32_t nbase,
                      const char *const *extra)
{
	uint32_t ne = 0, nextra = 0;
	char **envp, *nodes, *slots;
	bool bad = false;

	while (extra && extra[nextra])
		nextra++;
	envp = calloc((size_t)(nbase < ENV_MAX ? nbase : ENV_MAX) + nextra + 13, sizeof *envp);
	nodes = join_nodes(j, "");
	slots = join_nodes(j, " 1");
	if (!envp || !nodes || !slots) {
		free(envp);
		free(nodes);
		free(slots);
		return NULL;
	}
	for (uint32_t k = 0; k < nbase && k < ENV_MAX; k++)
		if (!ours(base[k]))
			envp[ne++] = (char *)base[k];
	/* An array's element: LSF's LSB_JOBID is the array's, and its index
	 * LSB_JOBINDEX (0 for a job that is no element, as LSF sets it). */
	bad |= asprintf(&envp[ne++], "LSB_JOBID=%" PRIu64, j->array_id ? j->array_id : j->id) < 0;
	bad |= asprintf(&envp[ne++], "LSB_JOBINDEX=%" PRIu32, j->array_index) < 0;
	/* A job has a name unless its script came from standard input: then
	 * the name batch systems give such jobs, not a spool path. */
	bad |= asprintf(&envp[ne++], "LSB_JOBNAME=%s", j->name && *j->name ? j->name : "STDIN") < 0;
	bad |= asprintf(&envp[ne++], "LSB_HOSTS=%s", nodes) < 0;
	bad |= asprintf(&envp[ne++], "LSB_MCPU_HOSTS=%s", slots) < 0;
	bad |= asprintf(&envp[ne++], "LSB_DJOB_HOSTFILE=%s", j->hostfile) < 0;
	bad |= asprintf(&envp[ne++], "LSB_DJOB_NUMPROC=%u", j->nnodes) < 0;
	bad |= asprintf(&envp[ne++], "BSUB_JOBID=%" PRIu64, j->id) < 0;
	bad |= asprintf(&envp[ne++], "BSUB_NNODES=%u", j->nnodes) < 0;
	bad |= asprintf(&envp[ne++], "BSUB_NODES=%s", nodes) < 0;
	bad |= asprintf(&envp[ne++], "BSUB_HOSTFILE=%s", j->hostfile) < 0;
	for (uint32_t k = 0; k < nextra; k++)
		envp[ne++] = (char *)extra[k];
	free(nodes);
	free(slots);
	return bad ? NULL : envp;
}

/* The job's process, and a task's, while still root: into the job's
 * cgroup first, before anything of the user's runs (all it ever starts is
 * born there), every signal at its default, a process group of its own,
 * standard input from /dev/null (the script's; a task keeps the pipe it
 * was given), then its owner. */
static void enter_job(const struct runner_job *j, int cgfd, bool null_stdin, int why)
{
	int devnull;

	if (cgfd >= 0 && cg_join(cgfd, 0) < 0)
		child_fail(why, "joining the job's cgroup", NULL);
	default_signals();
	setpgid(0, 0);
	if (null_stdin && (devnull = open("/dev/null", O_RDONLY)) >= 0 && devnull != 0) {
		dup2(devnull, 0);
		close(devnull);
	}
	if (j->as_owner)
		become_owner(j, why);
}

_Noreturn void jobexec_run(const struct runner_job *j, int cgfd, const char *const *extra, int why)
{
	char **envp, **argv;
	uint32_t na = 0;

	enter_job(j, cgfd, true, why);
	/* (Here, where the owner tries to attach, a test holds it.) */
	failpoint_delay(FP_CHILD_DELAY_MS);
	/* The daemon's own umask is 077; a job gets its submitter's, or the
	 * usual one when that is unknown. */
	umask(j->has_umask ? j->umask & 0777 : 022);
	/* The files are opened as the owner: the owner's permissions apply. */
	if (open_output(j->err, 2) < 0)
		output_failed(why, j->err);
	if (open_output(j->out, 1) < 0)
		output_failed(why, j->out);
	if (chdir(j->cwd) < 0)
		child_fail(why, "changing to", j->cwd);

	envp = job_env(j, j->env, j->envc, extra);
	argv = calloc((size_t)j->nlaunch + j->argc + 3, sizeof *argv);
	if (!envp || !argv)
		child_fail(why, "setting up", "(out of memory)");
	for (uint32_t k = 0; k < j->nlaunch; k++)
		argv[na++] = (char *)j->launch[k];
	argv[na++] = (char *)j->script;
	for (uint32_t k = 0; k < j->argc; k++)
		argv[na++] = (char *)j->argv[k];
	execve(argv[0], argv, envp);
	if (errno == ENOEXEC && j->nlaunch == 0) {
		/* A script without #!: run it with the shell, as LSF does. */
		memmove(argv + 1, argv, (na + 1) * sizeof *argv);
		argv[0] = "/bin/sh";
		execve(argv[0], argv, envp);
	}
	child_fail(why, "running", argv[0]);
}

_Noreturn void jobexec_task(const struct runner_job *j, int cgfd, const char *const *argv,
                            const char *const *env, uint32_t envc, const char *const *extra,
                            const char *cwd, int why)
{
	char **envp;

	enter_job(j, cgfd, false, why);
	umask(j->has_umask ? j->umask & 0777 : 022);
	if (chdir(cwd) < 0)
		child_fail(why, "changing to", cwd);
	if (!(envp = job_env(j, env, envc, extra)))
		child_fail(why, "setting up", "(out of memory)");
	execve(argv[0], (char *const *)argv, envp);
	child_fail(why, "running", argv[0]);
}

