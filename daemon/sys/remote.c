/* A cluster job's supervisor on the daemon's host: one ssh channel per
 * node, the job sent, signals passed on, blaunch's tasks routed, links
 * watched, the end collected. See remote.h; the node side is node.c. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "chan.h"
#include "proto.h"
#include "clock.h"
#include "procs.h"
#include "remote.h"
#include "sshmux.h"

#define BUF_MAX (1u << 20)	/* bytes waiting for a node before we stop reading others */
#define ERR_TAIL 400		/* what is kept of ssh's standard error */

/* One node of the job: its ssh client and channel. */
struct rnode {
	const char *name;
	pid_t ssh;			/* its ssh client, or -1 (a session on the master) */
	int pidfd, to, from, err;	/* ssh's stdin, stdout, stderr (ours) */
	int mux;			/* the session's control connection, or -1 */
	struct chan_buf in, out;
	char tail[ERR_TAIL];
	size_t tail_len;
	int64_t heard_at;
	bool ready, ended, lost;
};

/* A blaunch task: asked for by node `from` as its stream `s`, run by node
 * `to` as our stream `g`. */
struct route {
	uint32_t g, s, from, to;
};

struct remote {
	const struct runner_job *j;
	struct rnode *node;
	uint32_t n;
	struct route *route;
	uint32_t nroute, route_cap, next_g;
	int64_t ping_ms, end_by;	/* end_by: the deadline of the end, or -1 */
	bool ending;
	struct remote_result *r;
};

/* The daemon's signals, from the handler to the loop: an int each. */
static int sig_pipe[2] = { -1, -1 };

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	int v = sig == SIGTERM ? SIGTERM : sig == SIGUSR1 ? SIGKILL :
	        si->si_code == SI_QUEUE ? si->si_value.sival_int : 0;
	int e = errno;

	(void)ctx;
	if (v != 0 && write(sig_pipe[1], &v, sizeof v) < 0)
		v = 0;	/* (full: the loop has more than it can take) */
	errno = e;
}

static int64_t now_ms(void)
{
	return clock_monotonic() / 1000;
}

static void put(struct remote *R, uint32_t k, uint8_t type, uint32_t stream, const void *data,
                size_t len)
{
	if (!R->node[k].lost && chan_put(&R->node[k].out, type, stream, data, len) < 0)
		R->node[k].lost = true;	/* out of memory: cannot talk to it */
}

static void put_fields(struct remote *R, uint32_t k, uint8_t type, const struct chan_buf *f)
{
	put(R, k, type, 0, f->p, f->len);
}

/* ---- starting ---- */

/* ssh's destination for a node: the pattern with %n its name, %% a %. */
static char *destination(const char *pattern, const char *node)
{
	size_t len = 1;
	char *out, *o;

	for (const char *p = pattern; *p; p++)
		len += p[0] == '%' && p[1] == 'n' ? strlen(node) : 1;
	if (!(out = malloc(len)))
		return NULL;
	o = out;
	for (const char *p = pattern; *p; p++) {
		if (p[0] == '%' && p[1] == 'n') {
			o = stpcpy(o, node);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			*o++ = '%';
			p++;
		} else {
			*o++ = *p;
		}
	}
	*o = 0;
	return out;
}

/* The master's control socket for a destination: DIR and a hash of the
 * destination (short, whatever the names: a socket path is at most 107
 * bytes; the configuration check keeps DIR short enough). */
static void control_path(const struct runner_remote *rm, const char *dest, char *buf,
                         size_t len)
{
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */

	for (const unsigned char *c = (const unsigned char *)dest; *c; c++)
		h = (h ^ *c) * 1099511628211ull;
	snprintf(buf, len, "%s/%016llx", rm->control_dir, (unsigned long long)h);
}

/* The ssh command for one node: ours, then the destination and the node
 * command. Options given with -o win over the configuration file's. */
static int ssh_argv(const struct runner_remote *rm, const char *dest, const char **argv,
                    char opt[][160])
{
	int64_t alive = rm->timeout_ms / 3000 > 0 ? rm->timeout_ms / 3000 : 1;
	int a = 0, o = 0;

	argv[a++] = rm->ssh;
	argv[a++] = "-F";
	argv[a++] = rm->config ? rm->config : "none";
	if (rm->key) {
		argv[a++] = "-i";
		argv[a++] = rm->key;
		argv[a++] = "-o";
		argv[a++] = "IdentitiesOnly=yes";
	}
	if (rm->known_hosts) {
		snprintf(opt[o], sizeof opt[o], "UserKnownHostsFile=%s", rm->known_hosts);
		argv[a++] = "-o";
		argv[a++] = opt[o++];
		argv[a++] = "-o";
		argv[a++] = "StrictHostKeyChecking=yes";
	}
	snprintf(opt[o], sizeof opt[o], "ControlPath=");
	control_path(rm, dest, opt[o] + 12, sizeof opt[o] - 12);
	argv[a++] = "-o";
	argv[a++] = opt[o++];
	snprintf(opt[o], sizeof opt[o], "ServerAliveInterval=%lld", (long long)alive);
	argv[a++] = "-o";
	argv[a++] = opt[o++];
	snprintf(opt[o], sizeof opt[o], "ConnectTimeout=%lld", (long long)(3 * alive));
	argv[a++] = "-o";
	argv[a++] = opt[o++];
	argv[a++] = "-o";
	argv[a++] = "ControlMaster=auto";
	argv[a++] = "-o";
	argv[a++] = "ControlPersist=600";
	argv[a++] = "-o";
	argv[a++] = "ServerAliveCountMax=3";
	argv[a++] = "-o";
	argv[a++] = "BatchMode=yes";
	argv[a++] = "-o";
	argv[a++] = "LogLevel=ERROR";
	argv[a++] = "-T";
	argv[a++] = "--";
	argv[a++] = dest;
	argv[a++] = rm->node_command;
	argv[a] = NULL;
	return a;
}

/* Fork `ssh DEST NODE_COMMAND` for node k with three pipes. 0 or -1. */
static int spawn(struct remote *R, uint32_t k)
{
	struct rnode *nd = &R->node[k];
	const char *argv[48];
	char opt[6][160];
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
	char *dest = destination(R->j->remote->destination, nd->name);

	char ctl[200], why[300];

	if (!dest || pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 ||
	    pipe2(err, O_CLOEXEC) < 0)
		goto fail;
	/* A session on the node's master, if one listens: no process here. */
	control_path(R->j->remote, dest, ctl, sizeof ctl);
	if ((nd->mux = sshmux_open(ctl, R->j->remote->node_command, in[0], out[1], err[1], why,
	                           sizeof why)) >= 0) {
		nd->ssh = -1;
		goto opened;
	}
	ssh_argv(R->j->remote, dest, argv, opt);
	if ((nd->ssh = fork()) < 0)
		goto fail;
	if (nd->ssh == 0) {
		sigset_t none;

		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
			_exit(255);
		syscall(SYS_close_range, 3U, ~0U, 0U);
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP)
				signal(s, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execv(argv[0], (char *const *)argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(255);
	}
	nd->pidfd = procs_pidfd(nd->ssh);
opened:
	free(dest);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	nd->to = in[1];
	nd->from = out[0];
	nd->err = err[0];
	fcntl(nd->to, F_SETFL, O_NONBLOCK);
	fcntl(nd->from, F_SETFL, O_NONBLOCK);
	fcntl(nd->err, F_SETFL, O_NONBLOCK);
	nd->heard_at = now_ms();
	return 0;
fail:
	snprintf(nd->tail, sizeof nd->tail, "cannot start ssh: %s", strerror(errno));
	nd->tail_len = strlen(nd->tail);
	free(dest);
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	return -1;
}

/* The spooled script, whole (it travels over the channel). */
static int read_script(const char *path, struct chan_buf *b)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return -1;
	while ((got = chan_fill(fd, b, PROTO_MAX_SCRIPT + 1)) > 0)
		;
	close(fd);
	return got == 0 ? 0 : -1;
}

/* The job as node k's side takes it (node.c's take_job reads these). */
static int job_fields(const struct remote *R, uint32_t k, struct chan_buf *f)
{
	const struct runner_job *j = R->j;
	int64_t now = clock_realtime();
	long long term_in = j->term_at >= BF_NEVER ? -1 :
	                    j->term_at > now ? (j->term_at - now + 999) / 1000 : 0;
	int rc = 0;

	rc |= chan_field_num(f, "id", (long long)j->id);
	rc |= chan_field_num(f, "uid", j->uid);
	rc |= chan_field_num(f, "gid", j->gid);
	if (j->has_umask)
		rc |= chan_field_num(f, "umask", j->umask);
	if (j->user)
		rc |= chan_field(f, "user", j->user);
	if (j->name)
		rc |= chan_field(f, "name", j->name);
	if (j->array_id) {
		rc |= chan_field_num(f, "array_id", (long long)j->array_id);
		rc |= chan_field_num(f, "array_index", j->array_index);
	}
	rc |= chan_field(f, "cwd", j->cwd);
	rc |= chan_field(f, "out", j->out);
	rc |= chan_field(f, "err", j->err);
	rc |= chan_field(f, "node", R->node[k].name);
	rc |= chan_field_num(f, "first", k == 0);
	rc |= chan_field_num(f, "term_in_ms", term_in);
	rc |= chan_field_num(f, "grace_ms", j->grace / 1000);
	rc |= chan_field_num(f, "timeout_ms", j->remote->timeout_ms);
	rc |= chan_field_num(f, "ping_ms", R->ping_ms);
	for (uint32_t i = 0; i < j->nnodes; i++)
		rc |= chan_field(f, "nodes", j->nodes[i]);
	for (uint32_t i = 0; i < j->argc; i++)
		rc |= chan_field(f, "arg", j->argv[i]);
	for (uint32_t i = 0; i < j->envc; i++)
		rc |= chan_field(f, "env", j->env[i]);
	return rc ? -1 : 0;
}

/* ---- losing a node, ending ---- */

static void tell_all(struct remote *R, uint8_t type, const struct chan_buf *f)
{
	for (uint32_t k = 0; k < R->n; k++)
		if (!R->node[k].ended)
			put(R, k, type, 0, f ? f->p : NULL, f ? f->len : 0);
}

/* Every node ends the job (the script ended, or the job failed). */
static void end_all(struct remote *R)
{
	if (R->ending)
		return;
	R->ending = true;
	R->end_by = now_ms() + R->j->remote->timeout_ms + 10000;
	tell_all(R, CHAN_END, NULL);
}

static void lose(struct remote *R, uint32_t k, const char *what)
{
	struct rnode *nd = &R->node[k];
	struct remote_result *r = R->r;
	char why[256], tail[ERR_TAIL];
	size_t len = nd->tail_len;

	if (nd->lost || nd->ended)
		return;
	nd->lost = true;
	/* ssh's last line says the most ("Connection refused", "Host key
	 * verification failed", "Timeout, server not responding"). */
	while (len > 0 && (nd->tail[len - 1] == '\n' || nd->tail[len - 1] == '\r'))
		len--;
	snprintf(tail, sizeof tail, "%.*s", (int)len, nd->tail);
	{
		char *nl = strrchr(tail, '\n');
		const char *last = nl ? nl + 1 : tail;

		for (char *c = tail; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = ' ';
		snprintf(why, sizeof why, "%.100s%s%.150s", what, *last ? ": " : "", last);
	}
	if (r->ndown < RUNNER_MAX_DOWN) {
		snprintf(r->down[r->ndown], sizeof r->down[0], "%s", nd->name);
		snprintf(r->down_why[r->ndown], sizeof r->down_why[0], "%s", why);
		r->ndown++;
	}
	if (nd->ssh > 0)
		kill(nd->ssh, SIGKILL);
	if (nd->mux >= 0) {	/* the master closes the session with it */
		close(nd->mux);
		nd->mux = -1;
	}
	if (!R->ending) {
		snprintf(r->reason, sizeof r->reason, "node %s lost: %s", nd->name, why);
		r->wstatus = 255 << 8;
		end_all(R);
	}
}

/* ---- routing blaunch's tasks ---- */

static struct route *route_by_g(struct remote *R, uint32_t g)
{
	for (uint32_t i = 0; i < R->nroute; i++)
		if (R->route[i].g == g)
			return &R->route[i];
	return NULL;
}

static struct route *route_by_s(struct remote *R, uint32_t from, uint32_t s)
{
	for (uint32_t i = 0; i < R->nroute; i++)
		if (R->route[i].from == from && R->route[i].s == s)
			return &R->route[i];
	return NULL;
}

static void route_drop(struct remote *R, struct route *rt)
{
	*rt = R->route[--R->nroute];
}

static void launch(struct remote *R, uint32_t from, const struct chan_frame *f)
{
	const char *target = chan_get(f, "node");
	uint32_t to = R->n;
	static const char *const no = "is not one of the job's nodes";
	char msg[300];

	for (uint32_t k = 0; target && k < R->n; k++)
		if (strcmp(R->node[k].name, target) == 0)
			to = k;
	if (to == R->n || route_by_s(R, from, f->stream)) {
		snprintf(msg, sizeof msg, "node %s %s", target ? target : "(none)",
		         to == R->n ? no : "was asked for twice on one stream");
		put(R, from, CHAN_FAIL, f->stream, msg, strlen(msg));
		return;
	}
	if (R->node[to].lost || R->ending) {
		snprintf(msg, sizeof msg, "node %s is %s", target, R->ending ? "ending the job" :
		         "lost");
		put(R, from, CHAN_FAIL, f->stream, msg, strlen(msg));
		return;
	}
	if (R->nroute == R->route_cap) {
		uint32_t cap = R->route_cap ? 2 * R->route_cap : 64;
		struct route *v = realloc(R->route, cap * sizeof *v);

		if (!v) {
			put(R, from, CHAN_FAIL, f->stream, "out of memory", 13);
			return;
		}
		R->route = v;
		R->route_cap = cap;
	}
	if (++R->next_g == 0)
		R->next_g = 1;
	R->route[R->nroute++] = (struct route){ R->next_g, f->stream, from, to };
	put(R, to, CHAN_TASK, R->next_g, f->data, f->len);
}

/* A frame about a task, from node k. */
static void task_frame(struct remote *R, uint32_t k, const struct chan_frame *f)
{
	static const uint8_t back[128] = { [CHAN_TOUT] = CHAN_OUT, [CHAN_TERR] = CHAN_ERR,
		                           [CHAN_TEXIT] = CHAN_EXIT, [CHAN_TFAIL] = CHAN_FAIL };
	struct route *rt;

	switch (f->type) {
	case CHAN_LAUNCH:
		launch(R, k, f);
		return;
	case CHAN_TIN:
	case CHAN_TCLOSE:
		if (!(rt = route_by_s(R, k, f->stream)))
			return;
		put(R, rt->to, f->type == CHAN_TIN ? CHAN_IN : CHAN_CLOSE, rt->g, f->data, f->len);
		if (f->type == CHAN_TCLOSE)
			route_drop(R, rt);
		return;
	default:	/* the task's output and end, from the node that runs it */
		if (!(rt = route_by_g(R, f->stream)) || rt->to != k)
			return;
		put(R, rt->from, back[f->type], rt->s, f->data, f->len);
		if (f->type == CHAN_TEXIT || f->type == CHAN_TFAIL)
			route_drop(R, rt);
	}
}

/* ---- the channel ---- */

static void on_frame(struct remote *R, uint32_t k, const struct chan_frame *f)
{
	struct rnode *nd = &R->node[k];
	struct remote_result *r = R->r;
	long long v;

	nd->heard_at = now_ms();
	switch (f->type) {
	case CHAN_PING:
		break;
	case CHAN_READY:
		nd->ready = true;
		break;
	case CHAN_DONE:
		/* The script's end (first node), or a node that could not hold
		 * the job: the job is over either way. */
		if (!R->ending) {
			const char *why = chan_get(f, "reason");

			r->wstatus = chan_get_num(f, "status", INT32_MIN, INT32_MAX, &v) ? (int)v :
			             255 << 8;
			snprintf(r->reason, sizeof r->reason, "%s", why ? why : "");
			r->at_limit = chan_get_num(f, "at_limit", 1, 1, &v);
			end_all(R);
		}
		break;
	case CHAN_USAGE:
		if (chan_get_num(f, "cpu_us", 0, INT64_MAX, &v)) {
			r->usage.cpu_us = (r->usage.cpu_us > 0 ? r->usage.cpu_us : 0) + v;
			if (chan_get_num(f, "cpu_src", PU_CGROUP, PU_RUSAGE, &v) &&
			    (r->usage.cpu_src == PU_NONE || v == PU_RUSAGE))
				r->usage.cpu_src = (int)v;
		}
		if (chan_get_num(f, "mem_kb", 0, INT64_MAX, &v) && v > r->usage.mem_kb) {
			r->usage.mem_kb = v;
			if (chan_get_num(f, "mem_src", PU_CGROUP, PU_RUSAGE, &v))
				r->usage.mem_src = (int)v;
		}
		nd->ended = true;
		break;
	case CHAN_LAUNCH:
	case CHAN_TIN:
	case CHAN_TCLOSE:
	case CHAN_TOUT:
	case CHAN_TERR:
	case CHAN_TEXIT:
	case CHAN_TFAIL:
		task_frame(R, k, f);
		break;
	default:
		break;	/* (a newer node side's: not ours to act on) */
	}
}

static void read_node(struct remote *R, uint32_t k)
{
	struct rnode *nd = &R->node[k];
	struct chan_frame f;
	ssize_t got = chan_fill(nd->from, &nd->in, CHAN_MAX_FRAME + CHAN_HEADER);
	int rc;

	while ((rc = chan_take(&nd->in, &f)) == 1)
		on_frame(R, k, &f);
	if (rc < 0)
		lose(R, k, "its node side sent a malformed frame");
	else if (got == 0 || (got < 0 && errno != EAGAIN)) {
		close(nd->from);
		nd->from = -1;
	}
}

static void read_err(struct rnode *nd)
{
	char buf[512];
	ssize_t got = read(nd->err, buf, sizeof buf);

	if (got <= 0) {
		if (got == 0 || errno != EAGAIN) {
			close(nd->err);
			nd->err = -1;
		}
		return;
	}
	/* Keep the tail: the last lines say why a connection failed. */
	if ((size_t)got >= sizeof nd->tail) {
		memcpy(nd->tail, buf + got - (sizeof nd->tail - 1), sizeof nd->tail - 1);
		nd->tail_len = sizeof nd->tail - 1;
	} else {
		if (nd->tail_len + (size_t)got > sizeof nd->tail - 1) {
			size_t drop = nd->tail_len + (size_t)got - (sizeof nd->tail - 1);

			memmove(nd->tail, nd->tail + drop, nd->tail_len - drop);
			nd->tail_len -= drop;
		}
		memcpy(nd->tail + nd->tail_len, buf, (size_t)got);
		nd->tail_len += (size_t)got;
	}
}

/* How long a link that ended may take to deliver what its node side said
 * before it went: the session's exit status can come over the master's
 * control socket before the master has written the last frames into our
 * pipe, and on a loaded machine that takes more than a moment. */
#define LAST_WORD_MS	5000

/* The node side's link ended (its ssh client exited, or its session on
 * the master did): fine after its last word; else the node is lost. st is
 * a wait status, or -1: the master went away without a word. */
static void link_ended(struct remote *R, uint32_t k, int st)
{
	struct rnode *nd = &R->node[k];
	int64_t until = now_ms() + LAST_WORD_MS;
	char what[80];

	/* What it said before it went, up to the pipe's end (its writer, the
	 * ssh client or the master, has closed it or will at once). */
	while (nd->from >= 0) {
		int64_t left = until - now_ms();

		read_node(R, k);
		if (nd->from >= 0 && (left <= 0 ||
		    poll(&(struct pollfd){ nd->from, POLLIN, 0 }, 1, (int)left) <= 0))
			break;
	}
	while (nd->err >= 0 && poll(&(struct pollfd){ nd->err, POLLIN, 0 }, 1, 0) > 0)
		read_err(nd);
	if (nd->ended)
		return;
	/* Told to end (CHAN_END), it ended as it should: its usage frame
	 * did not come through before the link closed (a loaded machine),
	 * but the node is not lost for that. */
	if (R->ending && st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		nd->ended = true;
		return;
	}
	if (st == -1)
		snprintf(what, sizeof what, "the connection to it failed (its ssh master ended)");
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 255)
		snprintf(what, sizeof what, "ssh failed");
	else if (WIFEXITED(st))
		snprintf(what, sizeof what, "its node side ended (exit %d) before the job did",
		         WEXITSTATUS(st));
	else
		snprintf(what, sizeof what, "ssh was killed by signal %d", WTERMSIG(st));
	lose(R, k, what);
}

static void ssh_ended(struct remote *R, uint32_t k)
{
	struct rnode *nd = &R->node[k];
	int st = 0;

	if (waitpid(nd->ssh, &st, WNOHANG) != nd->ssh)
		return;
	nd->ssh = -1;
	close(nd->pidfd);
	nd->pidfd = -1;
	link_ended(R, k, st);
}

static void mux_said(struct remote *R, uint32_t k)
{
	struct rnode *nd = &R->node[k];
	int exitval = 0, rc = sshmux_poll(nd->mux, &exitval);

	if (rc == 0)
		return;
	close(nd->mux);
	nd->mux = -1;
	link_ended(R, k, rc == 1 ? (exitval & 0xff) << 8 : -1);
}

/* ---- the loop ---- */

static void on_daemon_signal(struct remote *R, int v)
{
	struct chan_buf f = { 0 };

	if (v > 0) {
		chan_field_num(&f, "sig", v);
		tell_all(R, CHAN_SIGNAL, &f);
	} else if (v < 0) {
		/* A new limit, -1 - the seconds from now to it (runner_set_limit);
		 * INT32_MIN: none. */
		chan_field_num(&f, "term_in_ms", v == INT32_MIN ? -1 : (-(long long)v - 1) * 1000);
		tell_all(R, CHAN_LIMIT, &f);
	}
	chan_buf_free(&f);
}

static bool all_ended(const struct remote *R)
{
	for (uint32_t k = 0; k < R->n; k++)
		if (!R->node[k].ended && !R->node[k].lost)
			return false;
	return true;
}

static void on_time(struct remote *R, int64_t now, int64_t *pinged)
{
	for (uint32_t k = 0; k < R->n; k++) {
		struct rnode *nd = &R->node[k];

		if (nd->lost || nd->ended)
			continue;
		if (now - nd->heard_at > R->j->remote->timeout_ms)
			lose(R, k, R->node[k].ready ? "the link was silent past node_timeout" :
			     "no answer within node_timeout");
		else if (R->ending && R->end_by >= 0 && now > R->end_by)
			lose(R, k, "it did not end the job in time");
	}
	if (now - *pinged >= R->ping_ms) {
		tell_all(R, CHAN_PING, NULL);
		*pinged = now;
	}
}

static void loop(struct remote *R)
{
	struct pollfd *p = calloc((size_t)R->n * 4 + 1, sizeof *p);
	int64_t pinged = now_ms();
	sigset_t none;

	sigemptyset(&none);
	if (!p) {
		snprintf(R->r->reason, sizeof R->r->reason, "out of memory");
		return;
	}
	while (!all_ended(R)) {
		size_t backlog = 0;
		int64_t now = now_ms();

		on_time(R, now, &pinged);
		for (uint32_t k = 0; k < R->n; k++) {
			struct rnode *nd = &R->node[k];

			if (nd->to >= 0 && chan_flush(nd->to, &nd->out) < 0) {
				close(nd->to);
				nd->to = -1;
			}
			backlog = chan_pending(&nd->out) > backlog ? chan_pending(&nd->out) : backlog;
		}
		for (uint32_t k = 0; k < R->n; k++) {
			struct rnode *nd = &R->node[k];

			p[4 * k] = (struct pollfd){ backlog < BUF_MAX ? nd->from : -1, POLLIN, 0 };
			p[4 * k + 1] = (struct pollfd){ chan_pending(&nd->out) ? nd->to : -1, POLLOUT, 0 };
			p[4 * k + 2] = (struct pollfd){ nd->err, POLLIN, 0 };
			p[4 * k + 3] = (struct pollfd){ nd->mux >= 0 ? nd->mux : nd->pidfd, POLLIN, 0 };
		}
		p[4 * R->n] = (struct pollfd){ sig_pipe[0], POLLIN, 0 };
		if (ppoll(p, (nfds_t)R->n * 4 + 1, &(struct timespec){ 0, 200000000 }, &none) < 0 &&
		    errno != EINTR)
			break;
		if (p[4 * R->n].revents) {
			int v;

			while (read(sig_pipe[0], &v, sizeof v) == (ssize_t)sizeof v)
				on_daemon_signal(R, v);
		}
		for (uint32_t k = 0; k < R->n; k++) {
			if (p[4 * k].revents && R->node[k].from >= 0)
				read_node(R, k);
			if (p[4 * k + 2].revents && R->node[k].err >= 0)
				read_err(&R->node[k]);
			if (p[4 * k + 3].revents && R->node[k].mux >= 0)
				mux_said(R, k);
			else if (p[4 * k + 3].revents && R->node[k].ssh > 0)
				ssh_ended(R, k);
		}
	}
	free(p);
}

/* The daemon's signals go to the pipe the loop reads; the one that came
 * before (pending) is passed on first. */
static int catch_signals(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	sigfillset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	return 0;
}

void remote_run(const struct runner_job *j, int pending, struct remote_result *r)
{
	struct remote R = { .j = j, .n = j->nnodes, .r = r, .end_by = -1 };
	struct chan_buf script = { 0 };

	*r = (struct remote_result){ .wstatus = 255 << 8,
	                             .usage = { -1, -1, PU_NONE, PU_NONE } };
	R.ping_ms = j->remote->timeout_ms / 3 > 100 ? j->remote->timeout_ms / 3 : 100;
	if (catch_signals() < 0 || !(R.node = calloc(R.n ? R.n : 1, sizeof *R.node))) {
		snprintf(r->reason, sizeof r->reason, "cannot start: %s", strerror(errno));
		return;
	}
	if (read_script(j->script, &script) < 0) {
		snprintf(r->reason, sizeof r->reason, "cannot read the spooled script %s: %s",
		         j->script, strerror(errno));
		free(R.node);
		return;
	}
	for (uint32_t k = 0; k < R.n; k++) {
		struct chan_buf f = { 0 };

		R.node[k] = (struct rnode){ .name = j->nodes[k], .ssh = -1, .pidfd = -1, .to = -1,
		                            .from = -1, .err = -1, .mux = -1, .heard_at = now_ms() };
		if (spawn(&R, k) < 0) {
			lose(&R, k, "cannot reach it");
			continue;
		}
		if (job_fields(&R, k, &f) < 0) {
			lose(&R, k, "out of memory");
		} else {
			put_fields(&R, k, CHAN_JOB, &f);
			if (k == 0)
				put(&R, k, CHAN_SCRIPT, 0, script.p + script.off, chan_pending(&script));
		}
		chan_buf_free(&f);
	}
	chan_buf_free(&script);
	if (pending)
		on_daemon_signal(&R, pending);
	loop(&R);
	for (uint32_t k = 0; k < R.n; k++) {
		struct rnode *nd = &R.node[k];

		if (nd->to >= 0)
			close(nd->to);	/* EOF: the node side, if it lives, ends */
		/* Each ssh ends with its node side; one that does not within
		 * 5 s is ended here. */
		if (nd->pidfd >= 0 && poll(&(struct pollfd){ nd->pidfd, POLLIN, 0 }, 1, 5000) <= 0)
			kill(nd->ssh, SIGKILL);
		if (nd->ssh > 0)
			waitpid(nd->ssh, NULL, 0);
		for (int *fd = &nd->pidfd; fd; fd = fd == &nd->pidfd ? &nd->from :
		                                     fd == &nd->from ? &nd->err :
		                                     fd == &nd->err ? &nd->mux : NULL)
			if (*fd >= 0)
				close(*fd);
		chan_buf_free(&nd->in);
		chan_buf_free(&nd->out);
	}
	free(R.node);
	free(R.route);
}
