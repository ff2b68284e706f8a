/* The node side (node.h): the job on this node, its channel to the job's
 * supervisor, its limit and its end. blaunch's socket and the tasks are
 * node_task.c's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include "chan.h"
#include "cgroup.h"
#include "jobexec.h"
#include "node.h"
#include "node_side.h"
#include "procs.h"
#include "proctitle.h"
#include "proto.h"

#define NODE_DIR_DEFAULT "/run/backfilld/node"
#define FIRST_FRAME_MS 60000	/* the job must come this soon after the start */

/* A frame of fields to the supervisor. */
static void send_fields(struct node_side *n, uint8_t type, const struct chan_buf *fields)
{
	node_send(n, type, 0, fields->p ? fields->p : (const uint8_t *)"", fields->len);
}

/* ---- the job, from its frame ---- */

/* Every repeated field of the job's frame, as an array (pointers into it). */
static const char **repeated(const struct chan_frame *f, const char *key, uint32_t *count)
{
	size_t pos = 0, kl;
	const char *k, *v, **out;
	uint32_t c = 0;

	while (chan_next_field(f, &pos, &k, &kl, &v))
		c += chan_key_is(k, kl, key);
	if (!(out = calloc((size_t)c + 1, sizeof *out)))
		return NULL;
	pos = 0;
	c = 0;
	while (chan_next_field(f, &pos, &k, &kl, &v))
		if (chan_key_is(k, kl, key))
			out[c++] = v;
	*count = c;
	return out;
}

static const char *need(const struct chan_frame *f, const char *key, const char **bad)
{
	const char *v = chan_get(f, key);

	if (!v && !*bad)
		*bad = key;
	return v;
}

/* The job, as the supervisor sent it (remote.c's send_job lists the
 * fields). NULL, or the name of the first field missing or wrong. */
static const char *take_job(struct node_side *n, const struct chan_frame *f)
{
	const char *bad = NULL;
	long long v, w;
	uint32_t na = 0, ne = 0, nn = 0;
	struct runner_job *j = &n->j;

	if (!(n->job_msg = malloc(f->len ? f->len : 1)))
		return "memory";
	memcpy(n->job_msg, f->data, f->len);
	f = &(struct chan_frame){ f->type, f->stream, n->job_msg, f->len };
	j->as_owner = getuid() == 0;
	if (!chan_get_num(f, "id", 1, INT64_MAX, &v))
		return "id";
	j->id = (uint64_t)v;
	if (!chan_get_num(f, "uid", 0, UINT32_MAX - 1, &v))
		return "uid";
	j->uid = (uid_t)v;
	if (!chan_get_num(f, "gid", 0, UINT32_MAX - 1, &v))
		return "gid";
	j->gid = (gid_t)v;
	if (chan_get_num(f, "umask", 0, 0777, &v)) {
		j->has_umask = true;
		j->umask = (mode_t)v;
	}
	j->user = chan_get(f, "user");
	j->name = chan_get(f, "name");
	if (chan_get_num(f, "array_id", 1, INT64_MAX, &v) &&
	    chan_get_num(f, "array_index", 1, UINT32_MAX, &w)) {
		j->array_id = (uint64_t)v;
		j->array_index = (uint32_t)w;
	}
	j->cwd = need(f, "cwd", &bad);
	j->out = need(f, "out", &bad);
	j->err = need(f, "err", &bad);
	n->node = need(f, "node", &bad);
	if (bad)
		return bad;
	if (!chan_get_num(f, "first", 0, 1, &v))
		return "first";
	n->first = v == 1;
	if (!chan_get_num(f, "term_in_ms", -1, INT64_MAX / 4, &n->term_in_ms))
		return "term_in_ms";
	if (!chan_get_num(f, "grace_ms", 0, INT64_MAX / 4, &n->grace_ms))
		return "grace_ms";
	if (!chan_get_num(f, "timeout_ms", 1000, 86400000, &n->timeout_ms))
		return "timeout_ms";
	if (!chan_get_num(f, "ping_ms", 100, 86400000, &n->ping_ms))
		return "ping_ms";
	j->argv = repeated(f, "arg", &na);
	j->env = repeated(f, "env", &ne);
	j->nodes = repeated(f, "nodes", &nn);
	if (!j->argv || !j->env || !j->nodes)
		return "memory";
	j->argc = na;
	j->envc = ne;
	j->nnodes = nn;
	if (nn == 0)
		return "nodes";
	for (uint32_t k = 0; k < nn; k++)
		if (strcmp(j->nodes[k], n->node) == 0)
			return NULL;
	return "node (not one of the job's nodes)";
}

/* ---- the job's directory on this node ---- */

/* DIR (and its parent, for the default /run/backfilld/node): root's, not
 * writable by anyone else, no symbolic link. 0, or -1 with why. */
static int own_dir(const char *path, char *why, size_t len)
{
	struct stat st;

	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		snprintf(why, len, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		snprintf(why, len, "%s must be a directory of the node side's user that no one else "
		         "may write", path);
		return -1;
	}
	return 0;
}

/* What an earlier job left on this node: its node side (if it lives on),
 * every process it marked or that is in its session, its cgroup, its
 * directory. Returns the processes killed. */
static int kill_stale(struct node_side *n, const char *name)
{
	char path[1200], buf[256], idm[48], hostm[800];
	const char *marks[] = { idm, hostm };
	long long pid = 0, start = -1, uid = -1;
	struct procs_killed k = { .n = 0, .total = 0 };
	uint64_t id = strtoull(name, NULL, 10);
	int fd, fresh, killed = 0;
	ssize_t len;

	snprintf(path, sizeof path, "%s/%s/side", n->dir, name);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		if ((len = read(fd, buf, sizeof buf - 1)) > 0) {
			buf[len] = 0;
			sscanf(buf, "pid %lld\nstart %lld\nuid %lld", &pid, &start, &uid);
		}
		close(fd);
	}
	if (pid > 0 && start >= 0 && procs_start_ticks((pid_t)pid) == start)
		killed += kill((pid_t)pid, SIGKILL) == 0;
	if (uid >= 0) {
		snprintf(idm, sizeof idm, "BSUB_JOBID=%" PRIu64, id);
		snprintf(hostm, sizeof hostm, "BSUB_HOSTFILE=%s/%s/hostfile", n->dir, name);
		struct procs_rule r = { (pid_t)pid, start, (uid_t)uid, marks, 2, PROCS_EITHER, 0 };

		for (int round = 0; round < 20; round++) {
			procs_sweep(&r, SIGKILL, &k, &fresh);
			if (fresh == 0)
				break;
		}
		killed += k.total;
	}
	killed += cg_job_kill_remove(&n->cg, id);
	snprintf(path, sizeof path, "%s/%s", n->dir, name);
	for (const char *f = "script\0hostfile\0mpi_hosts\0launch.sock\0side\0"; *f;
	     f += strlen(f) + 1) {
		char file[1300];

		snprintf(file, sizeof file, "%s/%s", path, f);
		unlink(file);
	}
	rmdir(path);
	return killed;
}

static void sweep_stale(struct node_side *n)
{
	DIR *d = opendir(n->dir);
	struct dirent *e;
	char mine[32];

	snprintf(mine, sizeof mine, "%" PRIu64, n->j.id);
	while (d && (e = readdir(d))) {
		int killed;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || strcmp(e->d_name, mine) == 0 ||
		    strspn(e->d_name, "0123456789") != strlen(e->d_name))
			continue;
		if ((killed = kill_stale(n, e->d_name)) > 0)
			node_log(LOG_WARNING, "node %s: job %s was left here (a node runs one job at "
			         "a time); killed %d of its processes before job %" PRIu64 " starts",
			         n->node, e->d_name, killed, n->j.id);
	}
	if (d)
		closedir(d);
}

static bool keep_mine(uint64_t id, void *arg)
{
	return id == ((struct node_side *)arg)->j.id;
}

/* A file in the job's directory, root's (which the owner cannot write: no
 * link can be planted), created afresh, then given to `uid` (or kept
 * root's if uid is -1) with mode `mode`. 0 or -1. */
static int put_file(const char *path, const void *data, size_t len, uid_t uid, gid_t gid,
                    mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t w = write(fd, (const char *)data + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	if ((uid != (uid_t)-1 && fchown(fd, uid, gid) < 0) || fchmod(fd, mode) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* The host file (one node a line, LSF's LSB_DJOB_HOSTFILE) and Open MPI's
 * (one slot a node: without slots=, Open MPI gives a node as many as it
 * has cores, and a job has a node, not a core). */
static int write_hostfiles(struct node_side *n)
{
	size_t len = 0;
	char *s;
	int rc;

	for (uint32_t k = 0; k < n->j.nnodes; k++)
		len += strlen(n->j.nodes[k]) + 10;
	if (!(s = malloc(len + 1)))
		return -1;
	len = 0;
	for (uint32_t k = 0; k < n->j.nnodes; k++)
		len += (size_t)sprintf(s + len, "%s\n", n->j.nodes[k]);
	rc = put_file(n->hostfile, s, len, (uid_t)-1, 0, 0644);
	len = 0;
	for (uint32_t k = 0; k < n->j.nnodes; k++)
		len += (size_t)sprintf(s + len, "%s slots=1\n", n->j.nodes[k]);
	if (rc == 0)
		rc = put_file(n->mpi_hosts, s, len, (uid_t)-1, 0, 0644);
	free(s);
	return rc;
}

/* The job's directory and files, its cgroup, the sweep's rule. 0, or -1
 * with why (the job cannot be held here). */
static int set_up(struct node_side *n, const struct chan_frame *script, char *why, size_t len)
{
	char cgwhy[512], note[512], parent[600];
	char *slash;

	snprintf(parent, sizeof parent, "%s", n->dir);
	if ((slash = strrchr(parent, '/')) && slash != parent && strcmp(n->dir, NODE_DIR_DEFAULT) == 0) {
		*slash = 0;
		if (own_dir(parent, why, len) < 0)
			return -1;
	}
	if (own_dir(n->dir, why, len) < 0)
		return -1;
	snprintf(n->jobdir, sizeof n->jobdir, "%s/%" PRIu64, n->dir, n->j.id);
	snprintf(n->script, sizeof n->script, "%s/script", n->jobdir);
	snprintf(n->hostfile, sizeof n->hostfile, "%s/hostfile", n->jobdir);
	snprintf(n->mpi_hosts, sizeof n->mpi_hosts, "%s/mpi_hosts", n->jobdir);
	snprintf(n->sock, sizeof n->sock, "%s/launch.sock", n->jobdir);
	snprintf(n->side, sizeof n->side, "%s/side", n->jobdir);
	n->j.script = n->script;
	n->j.hostfile = n->hostfile;

	/* The cgroup first: the sweep of stale jobs kills theirs too. */
	if (cg_setup(&n->cg, n->cgroup_want, cgwhy, sizeof cgwhy, note, sizeof note) < 0) {
		n->cg.base_fd = n->cg.jobs_fd = -1;
		if (strcmp(n->cgroup_want, "none") != 0)
			node_log(LOG_WARNING, "job %" PRIu64 ": no cgroup (%s): its processes are "
			         "contained by its session and marks", n->j.id, cgwhy);
	}
	sweep_stale(n);
	if (cg_enabled(&n->cg)) {
		cg_sweep(&n->cg, keep_mine, n);
		if ((n->cgfd = cg_job_create(&n->cg, n->j.id)) < 0)
			node_log(LOG_WARNING, "job %" PRIu64 ": no cgroup in %s/jobs (%s): its "
			         "processes are swept instead", n->j.id, n->cg.base, strerror(errno));
	}
	if (mkdir(n->jobdir, 0755) < 0 && errno != EEXIST) {
		snprintf(why, len, "cannot create %s: %s", n->jobdir, strerror(errno));
		return -1;
	}
	unlink(n->script);
	unlink(n->hostfile);
	unlink(n->mpi_hosts);
	unlink(n->side);
	if (write_hostfiles(n) < 0) {
		snprintf(why, len, "cannot write %s: %s", n->hostfile, strerror(errno));
		return -1;
	}
	/* The script is the owner's to read and run, and no one else's. */
	if (script && put_file(n->script, script->data, script->len, n->j.as_owner ? n->j.uid :
	                       (uid_t)-1, n->j.gid, 0700) < 0) {
		snprintf(why, len, "cannot write %s: %s", n->script, strerror(errno));
		return -1;
	}
	snprintf(n->mark_id, sizeof n->mark_id, "BSUB_JOBID=%" PRIu64, n->j.id);
	snprintf(n->mark_hostfile, sizeof n->mark_hostfile, "BSUB_HOSTFILE=%s", n->hostfile);
	n->marks[0] = n->mark_id;
	n->marks[1] = n->mark_hostfile;
	n->sweep = (struct procs_rule){ getpid(), procs_start_ticks(getpid()),
	                                n->j.as_owner ? n->j.uid : getuid(), n->marks, 2,
	                                PROCS_EITHER, 0 };
	{
		char side[128];
		int l = snprintf(side, sizeof side, "pid %d\nstart %lld\nuid %u\n", (int)getpid(),
		                 (long long)procs_start_ticks(getpid()), (unsigned)n->sweep.uid);

		if (put_file(n->side, side, (size_t)l, (uid_t)-1, 0, 0644) < 0) {
			snprintf(why, len, "cannot write %s: %s", n->side, strerror(errno));
			return -1;
		}
	}
	if (node_launch_listen(n) < 0) {
		snprintf(why, len, "cannot open the launch socket %s: %s", n->sock, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- the script (first node) ---- */

/* The job's owner must be the same user here: the name the daemon knows
 * has the same uid on this node (the nodes share users and groups). */
static int check_owner(struct node_side *n, char *why, size_t len)
{
	struct passwd *pw;

	if (!n->j.as_owner || !n->j.user || !*n->j.user)
		return 0;
	errno = 0;
	if (!(pw = getpwnam(n->j.user))) {
		snprintf(why, len, "the job's user %s is unknown on node %s", n->j.user, n->node);
		return -1;
	}
	if (pw->pw_uid != n->j.uid) {
		snprintf(why, len, "the job's user %s is uid %u on node %s, not %u as where it was "
		         "submitted", n->j.user, (unsigned)pw->pw_uid, n->node, (unsigned)n->j.uid);
		return -1;
	}
	return 0;
}

static int start_script(struct node_side *n, char *why, size_t len)
{
	char store[8192];
	const char **extra = node_extra_env(n, store, sizeof store);
	int p[2];
	pid_t pid;

	if (!extra || pipe2(p, O_CLOEXEC) < 0) {
		snprintf(why, len, "cannot start the job: %s", strerror(errno));
		free(extra);
		return -1;
	}
	if ((pid = fork()) < 0) {
		snprintf(why, len, "cannot start the job: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		free(extra);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		close(STDOUT_FILENO);	/* the channel is not the job's */
		jobexec_run(&n->j, n->cgfd, extra, p[1]);
	}
	free(extra);
	close(p[1]);
	setpgid(pid, pid);	/* as the child does: whoever runs first */
	if (n->cgfd >= 0)
		cg_join(n->cgfd, pid);
	n->job = pid;
	n->job_fd = procs_pidfd(pid);
	n->job_why = p[0];
	return 0;
}

/* The script ended: its status, and why it could not start if it could
 * not, to the supervisor. */
static void script_ended(struct node_side *n)
{
	struct chan_buf f = { 0 };
	int st = 0;
	pid_t r;

	while ((r = waitpid(n->job, &st, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r != n->job)
		return;
	if (n->job_why >= 0) {
		ssize_t got;

		while (n->reason_len < sizeof n->reason - 1 &&
		       (got = read(n->job_why, n->reason + n->reason_len,
		                   sizeof n->reason - 1 - n->reason_len)) > 0)
			n->reason_len += (size_t)got;
		close(n->job_why);
		n->job_why = -1;
	}
	n->reason[n->reason_len] = 0;
	for (char *c = n->reason; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	/* Whatever it left behind in its group goes now; the rest of the
	 * job's processes (tasks, other nodes) go at the end. */
	kill(-n->job, SIGKILL);
	if (n->job_fd >= 0)
		close(n->job_fd);
	n->job_fd = -1;
	n->job = -1;
	chan_field_num(&f, "status", st);
	if (n->at_limit)
		chan_field_num(&f, "at_limit", 1);
	if (n->reason_len) {
		char r2[700];

		snprintf(r2, sizeof r2, "on node %s: %s", n->node, n->reason);
		chan_field(&f, "reason", r2);
	}
	send_fields(n, CHAN_DONE, &f);
	chan_buf_free(&f);
}

/* ---- the end ---- */

/* Kill every process of the job here until none is left, read what they
 * used, report it, remove the job's files: the node side's last act. */
static _Noreturn void finish(struct node_side *n, const char *why)
{
	struct chan_buf f = { 0 };
	int64_t cpu = -1, mem = -1;
	int cpu_src = PU_NONE, mem_src = PU_NONE;
	struct procs_killed k = { .n = 0, .total = 0 };
	int fresh;

	if (why)
		node_log(LOG_WARNING, "job %" PRIu64 " on node %s: %s: every process of it here is "
		         "killed", n->j.id, n->node ? n->node : "?", why);
	if (n->listen_fd >= 0) {
		close(n->listen_fd);
		n->listen_fd = -1;
		unlink(n->sock);
	}
	if (n->job > 0)
		kill(-n->job, SIGKILL);
	node_tasks_end(n);
	if (n->cgfd >= 0) {
		cg_signal(n->cgfd, SIGKILL);
		if (cg_drain(n->cgfd, 10000) == 0) {
			cg_usage(n->cgfd, &cpu, &mem);
			cpu_src = cpu >= 0 ? PU_CGROUP : PU_NONE;
			mem_src = mem >= 0 ? PU_CGROUP : PU_NONE;
			mem = mem >= 0 ? (mem + 1023) / 1024 : -1;
		}
	}
	for (int round = 0; round < 200; round++) {
		if (procs_sweep(&n->sweep, SIGKILL, &k, &fresh) == 0)
			break;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	if (n->job > 0)
		waitpid(n->job, NULL, 0);
	if (cpu_src == PU_NONE) {
		struct rusage ru;

		if (getrusage(RUSAGE_CHILDREN, &ru) == 0) {
			cpu = ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
			      ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
			mem = ru.ru_maxrss;
			cpu_src = mem_src = PU_RUSAGE;
		}
	}
	if (n->cgfd >= 0) {
		char name[24];

		close(n->cgfd);
		snprintf(name, sizeof name, "%" PRIu64, n->j.id);
		cg_remove(n->cg.jobs_fd, name);
	}
	if (n->jobdir[0]) {
		unlink(n->script);
		unlink(n->hostfile);
		unlink(n->mpi_hosts);
		unlink(n->side);
		rmdir(n->jobdir);
	}
	chan_field_num(&f, "cpu_us", cpu);
	chan_field_num(&f, "mem_kb", mem);
	chan_field_num(&f, "cpu_src", cpu_src);
	chan_field_num(&f, "mem_src", mem_src);
	send_fields(n, CHAN_USAGE, &f);
	chan_buf_free(&f);
	/* The last word, written whole if the channel still takes it. */
	fcntl(STDOUT_FILENO, F_SETFL, fcntl(STDOUT_FILENO, F_GETFL) & ~O_NONBLOCK);
	chan_flush(STDOUT_FILENO, &n->out);
	_exit(0);
}

/* ---- the channel ---- */

/* The limit, from now: TERM a second after it (the daemon's own TERM,
 * when it is up, comes first, and the job does not get two), KILL after
 * the grace. */
static void set_limit(struct node_side *n, long long term_in_ms)
{
	int64_t now = node_now_ms();

	n->term_at = n->kill_at = -1;
	if (term_in_ms < 0)
		return;
	if (!n->termed)
		n->term_at = now + term_in_ms + 1000;
	n->kill_at = now + term_in_ms + n->grace_ms + 1000;
}

static void on_frame(struct node_side *n, const struct chan_frame *f)
{
	long long sig, ms;

	n->heard_at = node_now_ms();
	switch (f->type) {
	case CHAN_PING:
		break;
	case CHAN_SIGNAL:
		if (chan_get_num(f, "sig", 1, NSIG - 1, &sig)) {
			if (sig == SIGTERM)
				n->termed = true;
			node_signal_job(n, (int)sig);
		}
		break;
	case CHAN_LIMIT:
		if (chan_get_num(f, "term_in_ms", -1, INT64_MAX / 4, &ms))
			set_limit(n, ms);
		break;
	case CHAN_END:
		finish(n, NULL);
	case CHAN_TASK:
		node_task_start(n, f);
		break;
	case CHAN_IN:
		node_task_input(n, f);
		break;
	case CHAN_CLOSE:
		node_task_close(n, f->stream);
		break;
	case CHAN_OUT:
	case CHAN_ERR:
	case CHAN_EXIT:
	case CHAN_FAIL:
		node_to_client(n, f);
		break;
	default:
		node_log(LOG_WARNING, "job %" PRIu64 ": a frame of unknown type %d from the "
		         "supervisor, ignored", n->j.id, f->type);
	}
}

/* The frames already read (the first ones may have come with the job). */
static void take_frames(struct node_side *n)
{
	struct chan_frame f;
	int rc;

	while ((rc = chan_take(&n->in, &f)) == 1)
		on_frame(n, &f);
	if (rc < 0)
		finish(n, "the supervisor sent a malformed frame");
}

static void read_channel(struct node_side *n)
{
	ssize_t r = chan_fill(STDIN_FILENO, &n->in, CHAN_MAX_FRAME + CHAN_HEADER);

	take_frames(n);
	if (r == 0)
		finish(n, "the link to the job's supervisor closed");
	if (r < 0 && errno != EAGAIN)
		finish(n, "the link to the job's supervisor failed");
}

/* Wait (at most FIRST_FRAME_MS) for one whole frame on the channel. 1, or
 * 0 with the channel closed, timed out or broken. */
static int first_frame(struct node_side *n, struct chan_frame *f)
{
	int64_t until = node_now_ms() + FIRST_FRAME_MS;

	for (;;) {
		int rc = chan_take(&n->in, f);
		int64_t left = until - node_now_ms();

		if (rc != 0)
			return rc == 1;
		if (left <= 0 || poll(&(struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN }, 1,
		                      (int)left) <= 0)
			return 0;
		if (chan_fill(STDIN_FILENO, &n->in, CHAN_MAX_FRAME + CHAN_HEADER) <= 0 &&
		    errno != EAGAIN)
			return 0;
	}
}

/* ---- the loop ---- */

static void on_timers(struct node_side *n, int64_t now)
{
	if (now - n->heard_at > n->timeout_ms) {
		char why[128];

		snprintf(why, sizeof why, "the job's supervisor has not been heard for %lld ms",
		         (long long)(now - n->heard_at));
		finish(n, why);
	}
	if (now - n->pinged_at >= n->ping_ms) {
		node_send(n, CHAN_PING, 0, NULL, 0);
		n->pinged_at = now;
	}
	if (n->term_at >= 0 && now >= n->term_at) {
		n->term_at = -1;
		if (!n->termed) {
			node_log(LOG_NOTICE, "job %" PRIu64 " on node %s: past its time limit: SIGTERM "
			         "(the node side's own limit)", n->j.id, n->node);
			n->termed = true;
			n->at_limit = true;
			node_signal_job(n, SIGTERM);
		}
	}
	if (n->kill_at >= 0 && now >= n->kill_at) {
		n->kill_at = -1;
		node_log(LOG_NOTICE, "job %" PRIu64 " on node %s: past its time limit and grace: "
		         "SIGKILL", n->j.id, n->node);
		n->at_limit = true;
		node_signal_job(n, SIGKILL);
	}
}

static int next_wait(const struct node_side *n, int64_t now)
{
	int64_t due = n->heard_at + n->timeout_ms + 1;

	if (n->pinged_at + n->ping_ms < due)
		due = n->pinged_at + n->ping_ms;
	if (n->term_at >= 0 && n->term_at < due)
		due = n->term_at;
	if (n->kill_at >= 0 && n->kill_at < due)
		due = n->kill_at;
	return due <= now ? 0 : due - now > 60000 ? 60000 : (int)(due - now);
}

enum { W_IN, W_OUT, W_JOB, W_WHY, W_LISTEN, W_FIXED };

static _Noreturn void loop(struct node_side *n)
{
	/* The channel, the script, the socket; then 1 a client, 4 a task. */
	struct pollfd p[W_FIXED + NODE_MAX_CLIENTS + 4 * NODE_MAX_TASKS];
	struct { short kind; short which; void *ptr; } who[sizeof p / sizeof *p];

	take_frames(n);
	for (;;) {
		int64_t now = node_now_ms();
		nfds_t np = W_FIXED;
		bool room = chan_pending(&n->out) < NODE_BUF_MAX;

		on_timers(n, now);
		if (chan_flush(STDOUT_FILENO, &n->out) < 0)
			finish(n, "the link to the job's supervisor failed");
		p[W_IN] = (struct pollfd){ STDIN_FILENO, POLLIN, 0 };
		p[W_OUT] = (struct pollfd){ STDOUT_FILENO, chan_pending(&n->out) ? POLLOUT : 0, 0 };
		p[W_JOB] = (struct pollfd){ n->job > 0 ? n->job_fd : -1, POLLIN, 0 };
		p[W_WHY] = (struct pollfd){ n->job_why, POLLIN, 0 };
		p[W_LISTEN] = (struct pollfd){ n->listen_fd, POLLIN, 0 };
		for (int c = 0; c < NODE_MAX_CLIENTS; c++) {
			struct node_client *cl = &n->client[c];

			if (cl->fd < 0)
				continue;
			who[np].kind = 1;
			who[np].ptr = cl;
			p[np++] = (struct pollfd){ cl->fd, (short)((room && !cl->closing ? POLLIN : 0) |
			                                          (chan_pending(&cl->out) ? POLLOUT : 0)), 0 };
		}
		for (uint32_t t = 0; t < n->ntask; t++) {
			struct node_task *tk = &n->task[t];
			int fds[4] = { tk->pidfd, tk->out, tk->err, tk->in };
			short ev[4] = { POLLIN, room ? POLLIN : 0, room ? POLLIN : 0,
			                chan_pending(&tk->inbuf) || tk->in_eof ? POLLOUT : 0 };

			for (int w = 0; w < 4; w++) {
				if (fds[w] < 0 || (w == 0 && tk->exited))
					continue;
				who[np].kind = 2;
				who[np].which = (short)w;
				who[np].ptr = tk;
				p[np++] = (struct pollfd){ fds[w], ev[w], 0 };
			}
		}
		if (poll(p, np, next_wait(n, now)) < 0 && errno != EINTR)
			finish(n, "poll failed");
		if (p[W_IN].revents)
			read_channel(n);
		if (p[W_WHY].revents && n->job_why >= 0) {
			ssize_t got = read(n->job_why, n->reason + n->reason_len,
			                   sizeof n->reason - 1 - n->reason_len);

			if (got > 0)
				n->reason_len += (size_t)got;
			if (got <= 0 || n->reason_len == sizeof n->reason - 1) {
				close(n->job_why);
				n->job_why = -1;
			}
		}
		if (p[W_JOB].revents && n->job > 0)
			script_ended(n);
		if (p[W_LISTEN].revents)
			node_accept(n);
		/* The tasks and clients polled may have gone meanwhile (a frame
		 * on the channel closed one): each handler checks its own. */
		for (nfds_t k = W_FIXED; k < np; k++) {
			if (!p[k].revents)
				continue;
			if (who[k].kind == 1)
				node_client_io(n, who[k].ptr, p[k].revents);
			else
				node_task_io(n, who[k].ptr, who[k].which, p[k].revents);
		}
	}
}

/* ---- main ---- */

static void usage_error(const char *msg)
{
	fprintf(stderr, "backfilld --node: %s\n"
	        "usage: backfilld --node [--dir DIR] [--cgroup DIR|none] [--blaunch PATH]\n", msg);
}

static int parse_args(struct node_side *n, int argc, char **argv)
{
	enum { O_NODE = 256, O_DIR, O_CGROUP, O_BLAUNCH };
	static const struct option opts[] = {
		{ "node", no_argument, NULL, O_NODE },
		{ "dir", required_argument, NULL, O_DIR },
		{ "cgroup", required_argument, NULL, O_CGROUP },
		{ "blaunch", required_argument, NULL, O_BLAUNCH },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case O_NODE:
			break;
		case O_DIR:
			if (optarg[0] != '/' || strlen(optarg) >= 256) {
				usage_error("--dir: give an absolute path under 256 bytes");
				return -1;
			}
			snprintf(n->dir, sizeof n->dir, "%s", optarg);
			break;
		case O_CGROUP:
			n->cgroup_want = optarg;
			break;
		case O_BLAUNCH:
			n->blaunch = optarg;
			break;
		default:
			usage_error("unknown option");
			return -1;
		}
	}
	if (optind < argc) {
		usage_error("no operands are taken");
		return -1;
	}
	return 0;
}

/* The default cgroup: CGROUP2/backfilld-node; either it or the one
 * --cgroup names is made if need be (its parent must exist). */
static void default_cgroup(struct node_side *n, char *buf, size_t len)
{
	char mnt[512];

	if (n->cgroup_want && strcmp(n->cgroup_want, "none") != 0)
		mkdir(n->cgroup_want, 0755);
	if (n->cgroup_want)
		return;
	/* Never the node side's own cgroup (sshd's session's): none at all
	 * rather than that. */
	n->cgroup_want = "none";
	if (cg_mount_point(mnt, sizeof mnt) < 0)
		return;
	snprintf(buf, len, "%s/backfilld-node", mnt);
	if (mkdir(buf, 0755) == 0 || errno == EEXIST)
		n->cgroup_want = buf;
	else
		node_log(LOG_WARNING, "cannot create %s (%s): jobs on this node are contained by "
		         "their sessions and marks, not a cgroup", buf, strerror(errno));
}

/* The job could not be held here: said to the supervisor as the script's
 * failure (first node) or in its place, then the end as usual. */
static _Noreturn void refuse(struct node_side *n, const char *why)
{
	struct chan_buf f = { 0 };
	char r[700];

	snprintf(r, sizeof r, "on node %s: %s", n->node ? n->node : "?", why);
	chan_field_num(&f, "status", 127 << 8);
	chan_field(&f, "reason", r);
	send_fields(n, CHAN_DONE, &f);
	chan_buf_free(&f);
	finish(n, why);
}

int node_main(int argc, char **argv)
{
	static struct node_side side;	/* large: tables of clients and tasks */
	struct node_side *n = &side;
	struct chan_frame f, s;
	char why[700], cgbuf[600], title[64];
	const char *bad;

	*n = (struct node_side){ .cgfd = -1, .job_fd = -1, .job_why = -1, .listen_fd = -1,
	                         .term_at = -1, .kill_at = -1, .blaunch = "blaunch" };
	n->cg.base_fd = n->cg.jobs_fd = -1;
	for (int c = 0; c < NODE_MAX_CLIENTS; c++)
		n->client[c].fd = -1;
	snprintf(n->dir, sizeof n->dir, "%s", NODE_DIR_DEFAULT);
	openlog("backfilld-node", LOG_PID, LOG_DAEMON);
	if (parse_args(n, argc, argv) < 0)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	umask(022);
	if (getsid(0) != getpid())
		setsid();
	if (!first_frame(n, &f) || f.type != CHAN_JOB) {
		node_log(LOG_WARNING, "no job came on the channel: nothing done");
		return 1;
	}
	if ((bad = take_job(n, &f))) {
		node_log(LOG_ERR, "the job sent is malformed (%s): nothing done", bad);
		return 1;
	}
	snprintf(title, sizeof title, "backfilld: node side of job %" PRIu64, n->j.id);
	proctitle_set(title, "bfd-node");
	fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
	fcntl(STDOUT_FILENO, F_SETFL, fcntl(STDOUT_FILENO, F_GETFL) | O_NONBLOCK);
	n->heard_at = n->pinged_at = n->started_at = node_now_ms();
	set_limit(n, n->term_in_ms);
	if (n->first && (!first_frame(n, &s) || s.type != CHAN_SCRIPT)) {
		node_log(LOG_ERR, "job %" PRIu64 ": the script did not come", n->j.id);
		return 1;
	}
	default_cgroup(n, cgbuf, sizeof cgbuf);
	if (set_up(n, n->first ? &s : NULL, why, sizeof why) < 0)
		refuse(n, why);
	if (check_owner(n, why, sizeof why) < 0)
		refuse(n, why);
	if (n->first && start_script(n, why, sizeof why) < 0)
		refuse(n, why);
	{
		struct chan_buf r = { 0 };

		chan_field_num(&r, "pid", getpid());
		chan_field(&r, "cgroup", n->cgfd >= 0 ? n->cg.base : "none");
		send_fields(n, CHAN_READY, &r);
		chan_buf_free(&r);
	}
	loop(n);
}
