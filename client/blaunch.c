/* blaunch: run a command on the nodes of the job it runs in, as LSF's
 * blaunch does, and as the remote shell (ssh's stand-in) that MPI
 * launchers call. See blaunch(1).
 *
 * Two modes. In a cluster job, the job's node side on this node serves a
 * launch socket, $BSUB_LAUNCHER: blaunch sends it one request (chan.h,
 * CHAN_REQUEST) and relays the tasks' input, output and exit statuses.
 * Otherwise the daemon runs every job on its own host and the node names
 * are labels: blaunch runs the command here, once per node, with
 * BLAUNCH_NODE naming it.
 *
 * blaunch's own failures exit 255, ssh's status for them, since it stands
 * where ssh would: a launcher that reads ssh's statuses reads ours. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "chan.h"
#include "client.h"

extern char **environ;

#define BL_FAIL         255		/* blaunch itself failed or refused */
#define BL_NOT_RUN      127		/* local mode: the command could not be run */
#define BL_MAX_TARGETS  100000u		/* tasks in one request (a partition's most) */
#define BL_MAX_FIELD    (64u * 1024)	/* one field of the request, "key=value" */
#define BL_MAX_ENV      (1024u * 1024)	/* the environment sent, in all */
#define BL_MAX_QUEUED   (1024u * 1024)	/* input waiting for the socket */
/* What is read from the socket and not yet acted on: room for more than
 * one whole frame, which the node side keeps to CHAN_MAX_DATA of payload
 * (a longer one is refused before it is all read). */
#define BL_MAX_IN       (4u * (CHAN_MAX_DATA + CHAN_HEADER))
#define BL_MAX_REASON   1024		/* of a CHAN_FAIL's text, shown */
#define BL_ALL_TASKS    0xffffffffu	/* CHAN_FAIL's stream: the whole request refused */
#define BL_SHOWN_NODES  32		/* of the job's nodes, named in a refusal */

/* What to run where, from the command line and the job's environment. */
struct plan {
	const char *job;	/* $BSUB_JOBID, digits */
	char **nodes;		/* the job's nodes ($BSUB_NODES), in order */
	size_t nnodes;
	char **targets;		/* where to run, in order (a node may repeat) */
	size_t ntargets;
	char **cmd;		/* the command's words: a NULL-ended tail of argv */
	int ncmd;
	bool shell;		/* /bin/sh -c the words joined (not -no-shell) */
	bool input;		/* our standard input goes to the task */
};

struct opts {
	const char *z;		/* -z's list, or NULL */
	bool no_shell, no_input;
	int first;		/* argv's first operand */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: blaunch [-z \"NODE ...\"] [-no-shell] [-n] COMMAND [ARG...]\n"
"       blaunch [-n] [-x] [-q] [-T] [-no-shell] NODE COMMAND [ARG...]\n"
"       blaunch --help | --version\n"
"\n"
"Inside a backfilld job, run COMMAND on the job's nodes: on each node of -z's\n"
"list, in that order, else on every node of the job ($BSUB_NODES). The second\n"
"form, the remote shell MPI launchers call, runs it on NODE alone (chosen\n"
"without -z when the first word is one of the job's nodes). As ssh does, the\n"
"words are joined with spaces and run by /bin/sh -c on the node. The tasks'\n"
"output and errors come here; standard input goes to the task when there is\n"
"one node (several get none).\n"
"\n"
"  -z \"NODE ...\"            the nodes: one quoted list, separated by spaces,\n"
"                           each one of the job's\n"
"  -no-shell, --no-shell    run COMMAND with its ARGs directly, not by /bin/sh -c\n"
"  -n                       no standard input for the task (as ssh -n)\n"
"  -x, -q, -T               ssh's flags that launchers pass: accepted, ignored\n"
"  --                       the end of the options\n"
"\n"
"Exit status: the command's (128+N if signal N killed it); with several nodes\n"
"the first that is not 0, in the order of the nodes; 255 if blaunch refused or\n"
"failed (not in a job, a node not the job's, ...). See blaunch(1).\n");
}

static int usage_error(const char *what, const char *arg, const char *why)
{
	fprintf(stderr, "blaunch: %s%s%s\nTry 'blaunch --help' for more information.\n",
	        what, arg, why);
	return BL_FAIL;
}

static int no_memory(void)
{
	fprintf(stderr, "blaunch: out of memory\n");
	return BL_FAIL;
}

/* ---- what to run where ---- */

/* ssh's flags that launchers may put before NODE, alone or together
 * ("-xq"): -x, -q, -T (X11, quiet, no terminal) mean nothing here; -n is
 * "no input", as both ssh and LSF's blaunch read it. */
static bool ssh_flags(const char *a, bool *no_input)
{
	if (a[0] != '-' || !a[1])
		return false;
	for (const char *c = a + 1; *c; c++)
		if (!strchr("nxqT", *c))
			return false;
	if (strchr(a + 1, 'n'))
		*no_input = true;
	return true;
}

/* The options, up to the first operand (the command's own options are its
 * own). -1 to go on, with o->first; else the exit code (--help, --version,
 * a usage error). */
static int parse(int argc, char **argv, struct opts *o)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return fflush(stdout) == 0 ? 0 : BL_FAIL;
		}
		if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			printf("blaunch (backfilld) %s\n", BACKFILLD_VERSION);
			return fflush(stdout) == 0 ? 0 : BL_FAIL;
		}
		if (strcmp(a, "-z") == 0) {
			if (o->z)
				return usage_error("-z may be given once: one quoted list, as in ",
				                   "-z \"node1 node2\"", "");
			if (i + 1 >= argc)
				return usage_error("-z needs a list of nodes, as in ",
				                   "-z \"node1 node2\"", "");
			o->z = argv[++i];
		} else if (strcmp(a, "-no-shell") == 0 || strcmp(a, "--no-shell") == 0) {
			o->no_shell = true;
		} else if (!ssh_flags(a, &o->no_input)) {
			return usage_error("unknown option '", a, "'");
		}
	}
	o->first = i;
	return -1;
}

/* Split s (changed in place) at blanks into a new array *words: 0, or -1
 * (out of memory, or more than max words: *n is then max + 1). */
static int split(char *s, char ***words, size_t *n, size_t max)
{
	char **w = NULL, *save = NULL;
	size_t cap = 0;

	*n = 0;
	for (char *t = strtok_r(s, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		if (*n == max) {
			*n = max + 1;
			free(w);
			return -1;
		}
		if (*n == cap) {
			char **more = realloc(w, (cap = cap ? 2 * cap : 16) * sizeof *w);

			if (!more) {
				free(w);
				return -1;
			}
			w = more;
		}
		w[(*n)++] = t;
	}
	*words = w;
	return 0;
}

static bool is_node(const struct plan *p, const char *name)
{
	for (size_t k = 0; k < p->nnodes; k++)
		if (strcmp(p->nodes[k], name) == 0)
			return true;
	return false;
}

/* The job from the environment the daemon gave it. -1 to go on, or the
 * exit code (said on stderr). *copy holds the node names (freed by the
 * caller). */
static int load_job(struct plan *p, char **copy)
{
	const char *id = getenv("BSUB_JOBID"), *nodes = getenv("BSUB_NODES");
	uint64_t n;

	if (!id || !*id) {
		fprintf(stderr, "blaunch: not inside a backfilld job (no BSUB_JOBID): blaunch runs "
		        "a command on the nodes of the job it runs in\n");
		return BL_FAIL;
	}
	if (client_parse_id(id, &n) < 0) {
		fprintf(stderr, "blaunch: not inside a backfilld job: BSUB_JOBID is not a job id\n");
		return BL_FAIL;
	}
	p->job = id;
	if (!nodes) {
		fprintf(stderr, "blaunch: job %s's nodes are unknown (no BSUB_NODES)\n", id);
		return BL_FAIL;
	}
	if (!(*copy = strdup(nodes)))
		return no_memory();
	if (split(*copy, &p->nodes, &p->nnodes, BL_MAX_TARGETS) < 0) {
		if (p->nnodes <= BL_MAX_TARGETS)
			return no_memory();
		fprintf(stderr, "blaunch: job %s has more than %u nodes in BSUB_NODES\n", id,
		        BL_MAX_TARGETS);
		return BL_FAIL;
	}
	if (p->nnodes == 0) {
		fprintf(stderr, "blaunch: job %s has no nodes (BSUB_NODES is empty)\n", id);
		return BL_FAIL;
	}
	return -1;
}

/* Can `word` be run as a command: a path, a shell word with blanks or
 * shell syntax, a shell builtin we know, or a program on PATH? When the
 * first of several operands is neither this nor one of the job's nodes, it
 * is taken for a node outside the job (refused), not for a command. */
static bool runnable(const char *word)
{
	static const char *const builtins[] = { "cd", "echo", "exec", "exit", "export", "printf",
		                                "read", "set", "test", "[", "true", "false", ":",
		                                ".", "eval", "trap", "wait", "ulimit", "umask" };
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(word, '/') || strpbrk(word, " \t;&|<>()$`\\\"'*?=\n"))
		return true;
	for (size_t k = 0; k < sizeof builtins / sizeof *builtins; k++)
		if (strcmp(word, builtins[k]) == 0)
			return true;
	for (const char *d = path ? path : "/usr/bin:/bin"; *d;) {
		size_t len = strcspn(d, ":");

		if (snprintf(buf, sizeof buf, "%.*s/%s", (int)len, len ? d : ".", word) <
		    (int)sizeof buf && access(buf, X_OK) == 0)
			return true;
		d += len + (d[len] == ':');
	}
	return false;
}

static int not_a_node(const struct plan *p, const char *name)
{
	size_t k;

	fprintf(stderr, "blaunch: node %s is not one of job %s's nodes (", name, p->job);
	for (k = 0; k < p->nnodes && k < BL_SHOWN_NODES; k++)
		fprintf(stderr, "%s%s", k ? " " : "", p->nodes[k]);
	if (k < p->nnodes)
		fprintf(stderr, " ... %zu in all", p->nnodes);
	fprintf(stderr, ")\n");
	return BL_FAIL;
}

/* The targets and the command: -z's nodes, NODE COMMAND (the remote-shell
 * form), or every node of the job. -1 to go on, or the exit code. *copy
 * holds -z's names (freed by the caller). */
static int resolve(struct plan *p, const struct opts *o, int argc, char **argv, char **copy)
{
	char **ops = argv + o->first;
	int nops = argc - o->first;

	if (o->z) {
		if (!(*copy = strdup(o->z)))
			return no_memory();
		if (split(*copy, &p->targets, &p->ntargets, BL_MAX_TARGETS) < 0) {
			if (p->ntargets <= BL_MAX_TARGETS)
				return no_memory();
			fprintf(stderr, "blaunch: -z names more than %u nodes\n", BL_MAX_TARGETS);
			return BL_FAIL;
		}
		if (p->ntargets == 0)
			return usage_error("-z names no node", "", "");
		for (size_t k = 0; k < p->ntargets; k++)
			if (!is_node(p, p->targets[k]))
				return not_a_node(p, p->targets[k]);
	} else if (nops >= 1 && is_node(p, ops[0])) {
		/* NODE COMMAND: what a launcher's "ssh NODE COMMAND" became.
		 * (A node alone is no command to run everywhere: refused below.) */
		if (!(p->targets = malloc(sizeof *p->targets)))
			return no_memory();
		p->targets[0] = ops[0];
		p->ntargets = 1;
		ops++;
		nops--;
	} else if (nops >= 2 && !runnable(ops[0])) {
		return not_a_node(p, ops[0]);	/* NODE COMMAND, NODE not the job's */
	} else {
		if (!(p->targets = malloc(p->nnodes * sizeof *p->targets)))
			return no_memory();
		memcpy(p->targets, p->nodes, p->nnodes * sizeof *p->targets);
		p->ntargets = p->nnodes;
	}
	if (nops == 0) {
		fprintf(stderr, "blaunch: no command to run%s%s\nTry 'blaunch --help' for more "
		        "information.\n", p->ntargets == 1 ? " on " : "",
		        p->ntargets == 1 ? p->targets[0] : "");
		return BL_FAIL;
	}
	p->cmd = ops;
	p->ncmd = nops;
	p->shell = !o->no_shell;
	p->input = p->ntargets == 1 && !o->no_input;
	return -1;
}

/* A task's wait status as a shell reports it. */
static int code_of(int w)
{
	if (WIFEXITED(w))
		return WEXITSTATUS(w);
	if (WIFSIGNALED(w))
		return 128 + WTERMSIG(w);
	return BL_FAIL;
}

/* One target: its code; several: the first that is not 0, in target order. */
static int result(const int *codes, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (codes[k] != 0)
			return codes[k];
	return 0;
}

/* Catch SIGINT, SIGTERM and SIGHUP with h, or add them to set (h NULL);
 * one this process was started ignoring stays ignored (nohup, a
 * background job of a shell without job control). 0 or -1 (said). */
static int take_signals(void (*h)(int), sigset_t *set)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	for (size_t k = 0; k < sizeof sigs / sizeof *sigs; k++) {
		struct sigaction was, sa = { .sa_handler = h };

		if (sigaction(sigs[k], NULL, &was) < 0 ||
		    (was.sa_handler != SIG_IGN &&
		     (set ? sigaddset(set, sigs[k]) : sigaction(sigs[k], &sa, NULL)) < 0)) {
			fprintf(stderr, "blaunch: setting up signals: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* ---- cluster mode: the node side's launch socket ---- */

struct relay {
	const struct plan *p;
	int fd;
	struct chan_buf out, in;	/* to and from the socket */
	bool reading;			/* standard input is still read */
	bool wr_dead;			/* the socket no longer takes what we write */
	int *codes;			/* each target's, once ended */
	bool *ended;
	size_t left;			/* targets not ended yet */
};

/* The node side kills the tasks when the socket closes: leaving is all. */
static void leave(int sig)
{
	_exit(128 + sig);
}

/* One field of the request, within BL_MAX_FIELD; what names it in the
 * refusal. 0 or -1 (said on stderr). */
static int field(struct chan_buf *b, const char *key, const char *value, const char *what)
{
	if (strlen(key) + 1 + strlen(value) > BL_MAX_FIELD) {
		fprintf(stderr, "blaunch: %s is over %u KiB, more than a launch request takes\n",
		        what, BL_MAX_FIELD / 1024);
		return -1;
	}
	if (chan_field(b, key, value) < 0) {
		no_memory();
		return -1;
	}
	return 0;
}

/* Our environment, as the task's: it runs as if started here. An entry
 * without '=' is no variable, and is left out. */
static int put_env(struct chan_buf *b)
{
	size_t total = 0;

	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		char what[128];

		if (!eq)
			continue;
		total += strlen(*e) + 1;
		if (total > BL_MAX_ENV) {
			fprintf(stderr, "blaunch: the environment is over %u MiB in all, more than a "
			        "launch request takes (unset some variables)\n", BL_MAX_ENV >> 20);
			return -1;
		}
		snprintf(what, sizeof what, "the environment variable %.*s",
		         (int)(eq - *e > 64 ? 64 : eq - *e), *e);
		if (field(b, "env", *e, what) < 0)
			return -1;
	}
	return 0;
}

/* The whole request, queued on r->out: CHAN_REQUEST, then, for one target
 * that takes no input, the input's end. 0 or -1 (said on stderr). */
static int request(struct relay *r)
{
	const struct plan *p = r->p;
	struct chan_buf f = { 0 };
	char *cwd = getcwd(NULL, 0);
	char what[64];
	int rc = -1;

	if (!cwd) {
		fprintf(stderr, "blaunch: cannot tell the current directory, where the task would "
		        "run: %s\n", strerror(errno));
		return -1;
	}
	for (size_t k = 0; k < p->ntargets; k++)
		if (field(&f, "node", p->targets[k], "a node name") < 0)
			goto out;
	for (int k = 0; k < p->ncmd; k++) {
		snprintf(what, sizeof what, "word %d of the command", k + 1);
		if (field(&f, "arg", p->cmd[k], what) < 0)
			goto out;
	}
	if (put_env(&f) < 0 || field(&f, "cwd", cwd, "the current directory's path") < 0 ||
	    field(&f, "shell", p->shell ? "1" : "0", "shell") < 0)
		goto out;
	if (chan_put(&r->out, CHAN_REQUEST, 0, f.p + f.off, chan_pending(&f)) < 0 ||
	    (p->ntargets == 1 && !p->input && chan_put(&r->out, CHAN_IN, 0, NULL, 0) < 0)) {
		fprintf(stderr, "blaunch: the request is too large (over %u MiB) or out of memory\n",
		        CHAN_MAX_FRAME >> 20);
		goto out;
	}
	rc = 0;
out:
	chan_buf_free(&f);
	free(cwd);
	return rc;
}

/* Connect to the launch socket, and make sure it is the node side's: it
 * gets our whole environment. The fd (non-blocking), or -1 (said). */
static int dial(const char *path, const char *job)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cr;
	socklen_t crlen = sizeof cr;
	int fd = -1, fl;

	if (strlen(path) >= sizeof sa.sun_path) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) < 0 ||
	    (fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		goto fail;
	if (cr.uid != 0 && cr.uid != getuid()) {
		fprintf(stderr, "blaunch: job %s's launcher at %s is run by uid %u, neither root nor "
		        "you: not the job's node side; nothing sent\n", job, path, (unsigned)cr.uid);
		close(fd);
		return -1;
	}
	return fd;
fail:
	fprintf(stderr, "blaunch: cannot reach job %s's launcher at %s: %s\n", job, path,
	        strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static bool out_gone[3];	/* fd 1 or 2 no longer written */

/* All of data to fd (1 or 2), waiting while a non-blocking fd is full. A
 * reader that went away (EPIPE) is no error: the tasks run on and their
 * output is dropped, as with ssh. */
static void emit(int fd, const uint8_t *data, size_t len)
{
	while (len > 0 && !out_gone[fd]) {
		ssize_t n = write(fd, data, len);

		if (n > 0) {
			data += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pf = { .fd = fd, .events = POLLOUT };

			if (poll(&pf, 1, -1) >= 0 || errno == EINTR)
				continue;
		}
		if (n == 0)
			errno = EIO;
		if (errno != EPIPE && fd == 1)
			fprintf(stderr, "blaunch: writing the standard output: %s (the rest is "
			        "dropped)\n", strerror(errno));
		out_gone[fd] = true;
	}
}

/* A reason the node side gave, on stderr as text a terminal shows
 * harmlessly (no control characters), bounded. */
static void say_reason(const char *node, const uint8_t *data, size_t len)
{
	char text[BL_MAX_REASON + 1];
	size_t k;

	for (k = 0; k < len && k < BL_MAX_REASON && data[k]; k++)
		text[k] = (char)data[k];
	while (k > 0 && text[k - 1] == '\n')
		k--;
	text[k] = 0;
	fputs("blaunch: ", stderr);
	if (node)
		fprintf(stderr, "%s: ", node);
	client_put_text(stderr, k ? text : "(no reason given)", 0);
	fputc('\n', stderr);
}

static int broken(const struct relay *r, const char *what)
{
	fprintf(stderr, "blaunch: job %s's launcher sent %s\n", r->p->job, what);
	return BL_FAIL;
}

static void end_task(struct relay *r, uint32_t k, int code)
{
	if (r->ended[k])
		return;		/* the first word on a task holds */
	r->ended[k] = true;
	r->codes[k] = code;
	r->left--;
}

/* Act on one frame from the node side: -1 to go on, or the exit code. */
static int on_frame(struct relay *r, const struct chan_frame *f)
{
	long long w;

	if (f->len > CHAN_MAX_DATA)
		return broken(r, "a frame too long");
	if (f->type == CHAN_FAIL && f->stream == BL_ALL_TASKS) {
		say_reason(NULL, f->data, f->len);
		return BL_FAIL;
	}
	switch (f->type) {
	case CHAN_OUT: case CHAN_ERR: case CHAN_EXIT: case CHAN_FAIL:
		break;
	default:
		return -1;	/* a newer node side may say more: not ours to act on */
	}
	if (f->stream >= r->p->ntargets)
		return broken(r, "a frame for no task of ours");
	if (f->type == CHAN_OUT || f->type == CHAN_ERR) {
		emit(f->type == CHAN_OUT ? 1 : 2, f->data, f->len);
	} else if (f->type == CHAN_FAIL) {
		if (!r->ended[f->stream])
			say_reason(r->p->targets[f->stream], f->data, f->len);
		end_task(r, f->stream, BL_FAIL);
	} else if (chan_get_num(f, "status", 0, 0xffff, &w)) {
		end_task(r, f->stream, code_of((int)w));
	} else {
		if (!r->ended[f->stream])
			fprintf(stderr, "blaunch: %s: the task ended without a readable exit status\n",
			        r->p->targets[f->stream]);
		end_task(r, f->stream, BL_FAIL);
	}
	return -1;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Read what the node side sent and act on each whole frame: -1 to go on,
 * or the exit code. */
static int receive(struct relay *r)
{
	struct chan_frame f;
	ssize_t n = chan_fill(r->fd, &r->in, BL_MAX_IN);
	int t;

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return -1;
	if (n <= 0) {
		fprintf(stderr, "blaunch: job %s's launcher closed the connection%s%s%s\n", r->p->job,
		        n < 0 ? " (" : "", n < 0 ? strerror(errno) : "", n < 0 ? ")" : "");
		return BL_FAIL;
	}
	while ((t = chan_take(&r->in, &f)) == 1) {
		int rc = on_frame(r, &f);

		if (rc >= 0)
			return rc;
		if (r->left == 0)
			return result(r->codes, r->p->ntargets);
	}
	/* A frame still coming may be no longer than one we would take. */
	if (t < 0 || (chan_pending(&r->in) >= 4 &&
	              be32(r->in.p + r->in.off) > 5 + CHAN_MAX_DATA))
		return broken(r, "a broken frame");
	return -1;
}

/* Standard input to the socket, one CHAN_IN a read; an empty one at its
 * end. 0, or -1 (out of memory). */
static int read_input(struct relay *r)
{
	static uint8_t buf[CHAN_MAX_DATA];
	ssize_t n = read(0, buf, sizeof buf);

	if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n < 0 && errno != EBADF)	/* (EBADF: no stdin at all, an empty one) */
		fprintf(stderr, "blaunch: reading the standard input: %s (the task's input ends "
		        "there)\n", strerror(errno));
	if (n <= 0)
		r->reading = false;
	if (chan_put(&r->out, CHAN_IN, 0, buf, n > 0 ? (size_t)n : 0) < 0) {
		no_memory();
		return -1;
	}
	return 0;
}

/* Until every target has ended: the request and our input out, frames
 * in. The exit code. */
static int pump(struct relay *r)
{
	while (r->left > 0) {
		struct pollfd pf[2] = { { .fd = r->fd, .events = POLLIN }, { .fd = 0, .events = POLLIN } };
		nfds_t nf = 1;
		int rc;

		if (!r->wr_dead && chan_pending(&r->out))
			pf[0].events |= POLLOUT;
		/* Input waits while much is queued: the task reads slowly. */
		if (r->reading && !r->wr_dead && chan_pending(&r->out) <= BL_MAX_QUEUED)
			nf = 2;
		if (poll(pf, nf, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "blaunch: poll: %s\n", strerror(errno));
			return BL_FAIL;
		}
		if (nf == 2 && pf[1].revents && read_input(r) < 0)
			return BL_FAIL;
		if ((pf[0].revents & POLLOUT) && chan_flush(r->fd, &r->out) < 0) {
			/* The node side stopped reading: what it says (a
			 * refusal, statuses) may still come, so read on. */
			r->wr_dead = true;
			r->reading = false;
			chan_buf_free(&r->out);
		}
		if ((pf[0].revents & (POLLIN | POLLHUP | POLLERR)) && (rc = receive(r)) >= 0)
			return rc;
	}
	return result(r->codes, r->p->ntargets);
}

static int cluster(const struct plan *p, const char *path)
{
	struct relay r = { .p = p, .fd = -1, .reading = p->input, .left = p->ntargets };
	int rc = BL_FAIL;

	r.codes = calloc(p->ntargets, sizeof *r.codes);
	r.ended = calloc(p->ntargets, sizeof *r.ended);
	if (!r.codes || !r.ended)
		rc = no_memory();
	else if (take_signals(leave, NULL) == 0 && request(&r) == 0 &&
	         (r.fd = dial(path, p->job)) >= 0)
		rc = pump(&r);
	if (r.fd >= 0)
		close(r.fd);
	chan_buf_free(&r.out);
	chan_buf_free(&r.in);
	free(r.codes);
	free(r.ended);
	return rc;
}

/* ---- local mode: the node names are labels; run here ---- */

/* The words joined with single spaces, as ssh gives them to the shell. */
static char *join(char **w, int n)
{
	size_t len = 1, at = 0;
	char *s;

	for (int k = 0; k < n; k++)
		len += strlen(w[k]) + 1;
	if (!(s = malloc(len)))
		return NULL;
	for (int k = 0; k < n; k++) {
		size_t l = strlen(w[k]);

		if (k)
			s[at++] = ' ';
		memcpy(s + at, w[k], l);
		at += l;
	}
	s[at] = 0;
	return s;
}

/* In the child: become the task on node. Never returns. */
static void task(const struct plan *p, const char *node, const char *line, const sigset_t *mask,
                 const struct sigaction *pipe_was)
{
	const char *what = "setting up";

	if (sigaction(SIGPIPE, pipe_was, NULL) < 0 || sigprocmask(SIG_SETMASK, mask, NULL) < 0 ||
	    setenv("BLAUNCH_NODE", node, 1) < 0)
		goto fail;
	if (!p->input) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		what = "opening /dev/null";
		if (fd < 0 || dup2(fd, 0) < 0)
			goto fail;
		if (fd != 0)
			close(fd);
	}
	what = p->shell ? "running /bin/sh" : "running";
	if (p->shell)
		execl("/bin/sh", "sh", "-c", line, (char *)NULL);
	else
		execvp(p->cmd[0], p->cmd);
fail:
	fprintf(stderr, "blaunch: %s: %s%s%s: %s\n", node, what, p->shell ? "" : " ",
	        p->shell ? "" : p->cmd[0], strerror(errno));
	_exit(BL_NOT_RUN);
}

/* Reap what ended. The number of targets that did. */
static size_t reap(pid_t *pids, int *codes, size_t n, size_t left)
{
	size_t done = 0;
	pid_t pid;
	int st;

	while (done < left && (pid = waitpid(-1, &st, WNOHANG)) != 0) {
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			/* No child left that we know of (ECHILD): nothing more
			 * will come, so the rest count as failed. */
			for (size_t k = 0; k < n; k++)
				if (pids[k] > 0) {
					pids[k] = 0;
					codes[k] = BL_FAIL;
					done++;
				}
			break;
		}
		for (size_t k = 0; k < n; k++)
			if (pids[k] == pid) {
				pids[k] = 0;	/* reaped: its pid may be reused */
				codes[k] = code_of(st);
				done++;
				break;
			}
	}
	return done;
}

/* Every task forked, then waited for; SIGINT, SIGTERM and SIGHUP passed
 * on. Signals are taken synchronously (sigwaitinfo): a pid is signalled
 * only before it is reaped, never once it may be another process's. */
static int local(const struct plan *p, const struct sigaction *pipe_was)
{
	pid_t *pids = calloc(p->ntargets, sizeof *pids);
	int *codes = calloc(p->ntargets, sizeof *codes);
	char *line = p->shell ? join(p->cmd, p->ncmd) : NULL;
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t set, was;
	size_t left = 0;
	int rc = BL_FAIL;

	if (!pids || !codes || (p->shell && !line)) {
		rc = no_memory();
		goto out;
	}
	/* Children inherited with SIGCHLD ignored would be reaped unseen. */
	if (sigemptyset(&set) < 0 || sigaddset(&set, SIGCHLD) < 0 || take_signals(NULL, &set) < 0)
		goto out;
	if (sigaction(SIGCHLD, &dfl, NULL) < 0 || sigprocmask(SIG_BLOCK, &set, &was) < 0) {
		fprintf(stderr, "blaunch: setting up signals: %s\n", strerror(errno));
		goto out;
	}
	for (size_t k = 0; k < p->ntargets; k++) {
		pids[k] = fork();
		if (pids[k] == 0)
			task(p, p->targets[k], line, &was, pipe_was);
		if (pids[k] > 0) {
			left++;
			continue;
		}
		fprintf(stderr, "blaunch: %s: cannot start the task: %s\n", p->targets[k],
		        strerror(errno));
		pids[k] = 0;
		codes[k] = BL_FAIL;
	}
	while (left > 0) {
		siginfo_t si;
		int s = sigwaitinfo(&set, &si);

		if (s < 0 && errno == EINTR)
			continue;
		if (s < 0) {
			fprintf(stderr, "blaunch: waiting for the tasks: %s\n", strerror(errno));
			goto out;
		}
		if (s == SIGCHLD) {
			left -= reap(pids, codes, p->ntargets, left);
			continue;
		}
		for (size_t k = 0; k < p->ntargets; k++)
			if (pids[k] > 0)
				kill(pids[k], s);	/* (ESRCH: it is ending anyway) */
	}
	rc = result(codes, p->ntargets);
out:
	free(line);
	free(codes);
	free(pids);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct plan p = { 0 };
	struct sigaction ign = { .sa_handler = SIG_IGN }, pipe_was;
	char *nodes = NULL, *zlist = NULL;
	const char *launcher = getenv("BSUB_LAUNCHER");
	int rc;

	/* A reader gone is seen as EPIPE (the socket, our stdout); the local
	 * tasks get back the disposition we were given. */
	if (sigaction(SIGPIPE, &ign, &pipe_was) < 0) {
		fprintf(stderr, "blaunch: ignoring SIGPIPE: %s\n", strerror(errno));
		return BL_FAIL;
	}
	if ((rc = parse(argc, argv, &o)) < 0 && (rc = load_job(&p, &nodes)) < 0 &&
	    (rc = resolve(&p, &o, argc, argv, &zlist)) < 0)
		rc = launcher && *launcher ? cluster(&p, launcher) : local(&p, &pipe_was);
	free(p.targets);
	free(p.nodes);
	free(zlist);
	free(nodes);
	return rc;
}
