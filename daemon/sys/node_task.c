/* The node side's launch socket and tasks (node_side.h): blaunch connects
 * to the socket of its job on this node and asks for a command on some of
 * the job's nodes; each target becomes a stream, sent to the supervisor
 * (CHAN_LAUNCH), which checks it and hands it to the target's node side
 * (CHAN_TASK), which runs it here as the job's owner in the job's cgroup
 * and sends its output back the same way. Only the job's owner can open
 * the socket (it is theirs, mode 0600), only a process of the job may
 * use it, and only the job's nodes can be named. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>
#include "chan.h"
#include "cgroup.h"
#include "jobexec.h"
#include "node_side.h"
#include "procs.h"

#define STREAM_MASK 0xffffffu	/* a node side's own stream ids: 24 bits */
#define WHOLE 0xffffffffu	/* CHAN_FAIL for a whole request */
#define TASK_IN_MAX (4u << 20)	/* input held for one task */

int node_launch_listen(struct node_side *n)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(n->sock) >= sizeof a.sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(a.sun_path, n->sock, strlen(n->sock) + 1);
	unlink(n->sock);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return -1;
	/* Made in the job's directory, which only root can write: nothing
	 * there is the owner's to swap; then it is the owner's alone. */
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
	    (n->j.as_owner && chown(n->sock, n->j.uid, n->j.gid) < 0) || chmod(n->sock, 0600) < 0 ||
	    listen(fd, 16) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	n->listen_fd = fd;
	return 0;
}

/* ---- clients ---- */

static void client_put(struct node_client *c, uint8_t type, uint32_t stream, const void *data,
                       size_t len)
{
	if (chan_put(&c->out, type, stream, data, len) < 0)
		c->closing = true;
}

static void client_refuse(struct node_client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void client_refuse(struct node_client *c, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);	/* (cut to the buffer, NUL-terminated) */
	va_end(ap);
	client_put(c, CHAN_FAIL, WHOLE, msg, strlen(msg));
	c->closing = true;
}

static void client_drop(struct node_side *n, struct node_client *c)
{
	/* Tasks it asked for and that still run end with it (ssh's way). */
	for (uint32_t k = 0; k < c->n; k++)
		node_send(n, CHAN_TCLOSE, (c->first + k) & STREAM_MASK, NULL, 0);
	close(c->fd);
	chan_buf_free(&c->in);
	chan_buf_free(&c->out);
	*c = (struct node_client){ .fd = -1 };
}

/* Is the peer a process of this job: in its cgroup or, without one, in the
 * node side's session or carrying the job's marks? */
static bool of_the_job(const struct node_side *n, pid_t pid)
{
	char path[64], line[1024], want[48];
	pid_t sid;
	int64_t t;
	FILE *f;
	bool in = false;

	if (n->cgfd >= 0) {
		snprintf(path, sizeof path, "/proc/%d/cgroup", (int)pid);
		snprintf(want, sizeof want, "/jobs/%" PRIu64 "\n", n->j.id);
		if (!(f = fopen(path, "re")))
			return false;
		while (!in && fgets(line, sizeof line, f)) {
			size_t l = strlen(line), w = strlen(want);

			in = strncmp(line, "0::", 3) == 0 && l >= w && strcmp(line + l - w, want) == 0;
		}
		fclose(f);
		return in;
	}
	if (procs_stat(pid, &sid, &t, false, NULL) == 0 && sid == n->sweep.sid)
		return true;
	return procs_environ_has(pid, n->marks, 2);
}

void node_accept(struct node_side *n)
{
	struct ucred cr;
	socklen_t cl = sizeof cr;
	struct node_client *c = NULL;
	int fd = accept4(n->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	for (int k = 0; k < NODE_MAX_CLIENTS && !c; k++)
		if (n->client[k].fd < 0)
			c = &n->client[k];
	if (!c) {
		close(fd);	/* too many at once: blaunch sees the close and says so */
		node_log(LOG_WARNING, "job %" PRIu64 ": more than %d blaunch connections at once; "
		         "one refused", n->j.id, NODE_MAX_CLIENTS);
		return;
	}
	*c = (struct node_client){ .fd = fd };
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0)
		client_refuse(c, "cannot tell who is asking");
	else if (cr.uid != (n->j.as_owner ? n->j.uid : getuid()))
		client_refuse(c, "job %" PRIu64 " is not yours", n->j.id);
	else if (!of_the_job(n, cr.pid))
		client_refuse(c, "only a process of job %" PRIu64 " may launch on its nodes", n->j.id);
}

static bool job_node(const struct node_side *n, const char *name)
{
	for (uint32_t k = 0; k < n->j.nnodes; k++)
		if (strcmp(n->j.nodes[k], name) == 0)
			return true;
	return false;
}

/* The fields of a request that go with each of its targets. */
static const char *passed_on(const char *k, size_t kl)
{
	static const char *const keys[] = { "arg", "env", "cwd", "shell" };

	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (chan_key_is(k, kl, keys[i]))
			return keys[i];
	return NULL;
}

/* A request: each of its nodes, once checked, becomes a stream and a
 * CHAN_LAUNCH to the supervisor with the request's other fields. */
static void client_request(struct node_side *n, struct node_client *c, const struct chan_frame *f)
{
	struct chan_buf rest = { 0 };
	size_t pos = 0, kl;
	const char *k, *v, *key;
	uint32_t targets = 0, args = 0, sent = 0;

	if (c->asked) {
		client_refuse(c, "one request a connection");
		return;
	}
	c->asked = true;
	while (chan_next_field(f, &pos, &k, &kl, &v)) {
		if (chan_key_is(k, kl, "node")) {
			if (!job_node(n, v)) {
				client_refuse(c, "node %s is not one of job %" PRIu64 "'s nodes", v,
				              n->j.id);
				chan_buf_free(&rest);
				return;
			}
			targets++;
		} else if ((key = passed_on(k, kl))) {
			args += strcmp(key, "arg") == 0;
			if (chan_field(&rest, key, v) < 0) {
				client_refuse(c, "out of memory");
				chan_buf_free(&rest);
				return;
			}
		}
	}
	/* Each target's frame carries the command and environment again. */
	if ((uint64_t)targets * (rest.len + 128) > NODE_MAX_FANOUT) {
		client_refuse(c, "%u nodes with %zu bytes of command and environment each is over "
		              "%u MiB: give fewer nodes or a smaller environment", targets, rest.len,
		              NODE_MAX_FANOUT >> 20);
		chan_buf_free(&rest);
		return;
	}
	if (targets == 0 || targets > NODE_MAX_TARGETS || args == 0) {
		client_refuse(c, targets == 0 ? "no node named" : args == 0 ? "no command given" :
		              "too many nodes in one request");
		chan_buf_free(&rest);
		return;
	}
	if (n->next_stream == 0 || n->next_stream + targets > STREAM_MASK)
		n->next_stream = 1;
	c->first = n->next_stream;
	c->n = c->open = targets;
	n->next_stream += targets;
	pos = 0;
	while (chan_next_field(f, &pos, &k, &kl, &v)) {
		struct chan_buf one = { 0 };

		if (!chan_key_is(k, kl, "node"))
			continue;
		if (chan_field(&one, "node", v) < 0 || chan_append(&one, rest.p, rest.len) < 0) {
			client_refuse(c, "out of memory");
			chan_buf_free(&one);
			break;
		}
		node_send(n, CHAN_LAUNCH, c->first + sent, one.p, one.len);
		/* Several targets get no input (blaunch(1)): it ends at once. */
		if (targets > 1)
			node_send(n, CHAN_TIN, c->first + sent, NULL, 0);
		sent++;
		chan_buf_free(&one);
	}
	chan_buf_free(&rest);
}

void node_client_io(struct node_side *n, struct node_client *c, short revents)
{
	struct chan_frame f;
	int rc;

	if (c->fd < 0)
		return;
	if (chan_flush(c->fd, &c->out) < 0) {
		client_drop(n, c);
		return;
	}
	if (c->closing && !chan_pending(&c->out)) {
		client_drop(n, c);
		return;
	}
	if (!(revents & (POLLIN | POLLHUP | POLLERR)) || c->closing)
		return;
	if (chan_fill(c->fd, &c->in, 2 * CHAN_MAX_DATA + CHAN_MAX_FRAME) <= 0 && errno != EAGAIN) {
		client_drop(n, c);
		return;
	}
	while ((rc = chan_take(&c->in, &f)) == 1 && !c->closing) {
		if (f.type == CHAN_REQUEST)
			client_request(n, c, &f);
		else if (f.type == CHAN_IN && c->asked && c->n == 1)
			node_send(n, CHAN_TIN, c->first, f.data, f.len);
		else if (f.type != CHAN_IN)
			client_refuse(c, "unexpected frame of type %d", f.type);
	}
	if (rc < 0)
		client_refuse(c, "malformed frame");
}

void node_to_client(struct node_side *n, const struct chan_frame *f)
{
	for (int k = 0; k < NODE_MAX_CLIENTS; k++) {
		struct node_client *c = &n->client[k];

		if (c->fd < 0 || f->stream < c->first || f->stream >= c->first + c->n)
			continue;
		client_put(c, f->type, f->stream - c->first, f->data, f->len);
		if ((f->type == CHAN_EXIT || f->type == CHAN_FAIL) && c->open > 0 && --c->open == 0)
			c->closing = true;
		return;
	}
}

/* ---- tasks ---- */

static struct node_task *task_of(struct node_side *n, uint32_t g)
{
	for (uint32_t k = 0; k < n->ntask; k++)
		if (n->task[k].g == g)
			return &n->task[k];
	return NULL;
}

static void task_fail(struct node_side *n, uint32_t g, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void task_fail(struct node_side *n, uint32_t g, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);	/* (cut to the buffer, NUL-terminated) */
	va_end(ap);
	node_send(n, CHAN_TFAIL, g, msg, strlen(msg));
}

/* `name` found in the PATH of env (a task run without a shell), or NULL. */
static char *find_program(const char *name, const char *const *env, uint32_t envc)
{
	const char *path = "/usr/local/bin:/usr/bin:/bin";
	char *out = NULL;

	if (strchr(name, '/'))
		return strdup(name);
	for (uint32_t k = 0; k < envc; k++)
		if (strncmp(env[k], "PATH=", 5) == 0)
			path = env[k] + 5;
	while (*path && !out) {
		size_t len = strcspn(path, ":");

		if (asprintf(&out, "%.*s/%s", (int)len, len ? path : ".", name) < 0)
			return NULL;
		if (access(out, X_OK) < 0) {
			free(out);
			out = NULL;
		}
		path += len + (path[len] == ':');
	}
	return out;
}

/* The task's command: its words joined and given to /bin/sh -c (as ssh
 * does: launchers send "VAR=x; export VAR; orted ..."), or its words as
 * they are with shell=0. NULL-terminated; *joined and *prog to free. */
static const char **task_argv(const char *const *args, uint32_t na, bool shell,
                              const char *const *env, uint32_t envc, char **joined, char **prog)
{
	const char **argv = calloc((size_t)na + 4, sizeof *argv);
	size_t len = 1;

	*joined = *prog = NULL;
	if (!argv)
		return NULL;
	if (!shell) {
		if (!(*prog = find_program(args[0], env, envc))) {
			free(argv);
			return NULL;
		}
		argv[0] = *prog;
		for (uint32_t k = 1; k < na; k++)
			argv[k] = args[k];
		return argv;
	}
	for (uint32_t k = 0; k < na; k++)
		len += strlen(args[k]) + 1;
	if (!(*joined = malloc(len))) {
		free(argv);
		return NULL;
	}
	(*joined)[0] = 0;
	for (uint32_t k = 0; k < na; k++) {
		if (k)
			strcat(*joined, " ");
		strcat(*joined, args[k]);
	}
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = *joined;
	return argv;
}

static int task_fork(struct node_side *n, struct node_task *t, const char *const *argv,
                     const char *const *env, uint32_t envc, const char *cwd)
{
	char store[8192];
	const char **extra = node_extra_env(n, store, sizeof store);
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 }, why[2] = { -1, -1 };
	int rc = -1;

	if (!extra || pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 ||
	    pipe2(err, O_CLOEXEC) < 0 || pipe2(why, O_CLOEXEC) < 0)
		goto out;
	if ((t->pid = fork()) < 0)
		goto out;
	if (t->pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
			_exit(127);
		jobexec_task(&n->j, n->cgfd, argv, env, envc, extra, cwd, why[1]);
	}
	setpgid(t->pid, t->pid);
	if (n->cgfd >= 0)
		cg_join(n->cgfd, t->pid);
	t->pidfd = procs_pidfd(t->pid);
	t->in = in[1];
	t->out = out[0];
	t->err = err[0];
	t->why = why[0];
	in[1] = out[0] = err[0] = why[0] = -1;
	fcntl(t->in, F_SETFL, O_NONBLOCK);
	fcntl(t->out, F_SETFL, O_NONBLOCK);
	fcntl(t->err, F_SETFL, O_NONBLOCK);
	rc = 0;
out:
	for (int k = 0; k < 2; k++) {
		if (in[k] >= 0)
			close(in[k]);
		if (out[k] >= 0)
			close(out[k]);
		if (err[k] >= 0)
			close(err[k]);
		if (why[k] >= 0)
			close(why[k]);
	}
	free(extra);
	return rc;
}

void node_task_start(struct node_side *n, const struct chan_frame *f)
{
	uint32_t na = 0, ne = 0;
	const char **args = NULL, **env = NULL, **argv = NULL;
	const char *cwd = chan_get(f, "cwd"), *shell = chan_get(f, "shell");
	char *joined = NULL, *prog = NULL;
	struct node_task *t;
	size_t pos = 0, kl;
	const char *k, *v;

	if (task_of(n, f->stream)) {
		task_fail(n, f->stream, "stream %u is in use", f->stream);
		return;
	}
	if (n->ntask == NODE_MAX_TASKS) {
		task_fail(n, f->stream, "node %s runs %d tasks of this job already", n->node,
		          NODE_MAX_TASKS);
		return;
	}
	while (chan_next_field(f, &pos, &k, &kl, &v)) {
		na += chan_key_is(k, kl, "arg");
		ne += chan_key_is(k, kl, "env");
	}
	args = calloc((size_t)na + 1, sizeof *args);
	env = calloc((size_t)ne + 1, sizeof *env);
	if (!args || !env)
		goto nomem;
	na = ne = 0;
	pos = 0;
	while (chan_next_field(f, &pos, &k, &kl, &v)) {
		if (chan_key_is(k, kl, "arg"))
			args[na++] = v;
		else if (chan_key_is(k, kl, "env"))
			env[ne++] = v;
	}
	if (na == 0) {
		task_fail(n, f->stream, "no command");
		goto done;
	}
	if (!(argv = task_argv(args, na, !shell || strcmp(shell, "0") != 0, env, ne, &joined,
	                       &prog))) {
		task_fail(n, f->stream, "%s: command not found on node %s", args[0], n->node);
		goto done;
	}
	t = &n->task[n->ntask];
	*t = (struct node_task){ .g = f->stream, .pidfd = -1, .in = -1, .out = -1, .err = -1,
	                         .why = -1 };
	if (task_fork(n, t, argv, env, ne, cwd && *cwd ? cwd : n->j.cwd) < 0) {
		task_fail(n, f->stream, "cannot start it on node %s: %s", n->node, strerror(errno));
		goto done;
	}
	n->ntask++;
	goto done;
nomem:
	task_fail(n, f->stream, "out of memory on node %s", n->node);
done:
	free(args);
	free(env);
	free(argv);
	free(joined);
	free(prog);
}

void node_task_input(struct node_side *n, const struct chan_frame *f)
{
	struct node_task *t = task_of(n, f->stream);

	if (!t || t->in < 0 || t->in_eof)
		return;
	if (f->len == 0)
		t->in_eof = true;
	else if (chan_pending(&t->inbuf) + f->len > TASK_IN_MAX ||
	         chan_append(&t->inbuf, f->data, f->len) < 0)
		node_log(LOG_WARNING, "job %" PRIu64 ": a task's input is over %u bytes ahead of it: "
		         "some was dropped", n->j.id, TASK_IN_MAX);
}

void node_task_close(struct node_side *n, uint32_t g)
{
	struct node_task *t = task_of(n, g);

	if (t && !t->exited && t->pid > 0)
		kill(-t->pid, SIGKILL);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* A task whose process has exited and whose output is all read: its
 * status (or why it could not run) goes, and its slot. */
static void task_done(struct node_side *n, struct node_task *t)
{
	ssize_t got;

	if (!t->exited || t->out >= 0 || t->err >= 0)
		return;
	while (t->why >= 0 && t->reason_len < sizeof t->reason - 1 &&
	       (got = read(t->why, t->reason + t->reason_len,
	                   sizeof t->reason - 1 - t->reason_len)) > 0)
		t->reason_len += (size_t)got;
	if (t->reason_len) {
		t->reason[t->reason_len] = 0;
		task_fail(n, t->g, "on node %s: %s", n->node, t->reason);
	} else {
		struct chan_buf f = { 0 };

		chan_field_num(&f, "status", t->wstatus);
		node_send(n, CHAN_TEXIT, t->g, f.p, f.len);
		chan_buf_free(&f);
	}
	close_fd(&t->why);
	close_fd(&t->in);
	close_fd(&t->pidfd);
	chan_buf_free(&t->inbuf);
	*t = n->task[--n->ntask];
}

void node_task_io(struct node_side *n, struct node_task *t, int which, short revents)
{
	char buf[CHAN_MAX_DATA];
	ssize_t got;
	int *fd;

	/* (The slot may hold another task since the poll: a frame ended
	 * one; it is then polled anew next time round.) */
	if (t < n->task || t >= n->task + n->ntask)
		return;
	switch (which) {
	case 0:
		if (waitpid(t->pid, &t->wstatus, WNOHANG) == t->pid)
			t->exited = true;
		break;
	case 1:
	case 2:
		fd = which == 1 ? &t->out : &t->err;
		if (*fd < 0)
			break;
		got = read(*fd, buf, sizeof buf);
		if (got > 0)
			node_send(n, which == 1 ? CHAN_TOUT : CHAN_TERR, t->g, buf, (size_t)got);
		else if (got == 0 || errno != EAGAIN)
			close_fd(fd);
		break;
	case 3:
		if (chan_flush(t->in, &t->inbuf) < 0 || (revents & (POLLERR | POLLHUP)))
			close_fd(&t->in);
		else if (t->in_eof && !chan_pending(&t->inbuf))
			close_fd(&t->in);
		break;
	}
	task_done(n, t);
}

void node_tasks_end(struct node_side *n)
{
	for (uint32_t k = 0; k < n->ntask; k++) {
		struct node_task *t = &n->task[k];

		if (!t->exited && t->pid > 0)
			kill(-t->pid, SIGKILL);
		close_fd(&t->in);
		close_fd(&t->out);
		close_fd(&t->err);
		close_fd(&t->why);
		close_fd(&t->pidfd);
	}
}
