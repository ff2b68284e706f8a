/* blaunch's cluster mode (client/blaunch.c) against a fake node side: a
 * Unix socket served by a forked child, which records every frame blaunch
 * sends and answers with canned frames (CHAN_OUT, CHAN_ERR, CHAN_EXIT,
 * CHAN_FAIL, broken ones), or echoes the task's input back, or closes.
 * blaunch runs as a program (BUILD/blaunch) with BSUB_LAUNCHER naming the
 * socket: the request's fields, its input frames, and blaunch's stdout,
 * stderr and exit status are checked. Also its refusals, a socket it may
 * not open (run as nobody), a launcher that is neither root nor the
 * caller, and a signal while the task runs. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "chan.h"
#include "tap.h"

#define NODES "node1 node2 node3"
#define MARK  "a value = with spaces; and 'quotes'"

static char tmpdir[] = "/tmp/test_blaunch.XXXXXX";
static char bindir[PATH_MAX];

static int write_full(int fd, const void *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, (const char *)buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

/* A whole file, malloc'ed and NUL-terminated (*len without the NUL); an
 * empty string if there is none. */
static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	char *buf;

	if (fd < 0 || fstat(fd, &st) < 0 || !(buf = malloc((size_t)st.st_size + 1))) {
		if (fd >= 0)
			close(fd);
		buf = calloc(1, 1);
		if (len)
			*len = 0;
		return buf;
	}
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

/* s on one line ('\n' shown as '|'), for a test's description. */
static const char *flat(const char *s)
{
	static char bufs[4][512];
	static int next;
	char *b = bufs[next++ % 4];
	size_t k;

	for (k = 0; s && s[k] && k < sizeof bufs[0] - 1; k++)
		b[k] = s[k] == '\n' ? '|' : s[k];
	b[k] = 0;
	return b;
}

/* ---- the fake node side ---- */

enum mode {
	M_REPLY,	/* after the request: the canned frames, then read to the end */
	M_ECHO,		/* each CHAN_IN back as CHAN_OUT; at its end, the canned frames */
	M_CLOSE,	/* close once the request is in */
	M_HOLD,		/* say nothing; read to the end */
	M_STALL,	/* take the request, then read nothing more (until killed) */
};

struct fake {
	char path[200], log[220], ready[220];
	int logfd;	/* opened by the test, so that a fake run as nobody can write it */
	pid_t pid;
};

static struct chan_buf canned;	/* what the fake answers with */
static int fake_n;

static void put(uint8_t type, uint32_t stream, const char *data)
{
	chan_put(&canned, type, stream, data, strlen(data));
}

static void put_status(uint32_t stream, int status)
{
	struct chan_buf f = { 0 };

	chan_field_num(&f, "status", status);
	chan_put(&canned, CHAN_EXIT, stream, f.p + f.off, chan_pending(&f));
	chan_buf_free(&f);
}

/* In the child: serve one connection as mode says, then write every frame
 * received to fk->log. Exits 0 once blaunch closed its end. */
static void serve(int lfd, const struct fake *fk, enum mode mode)
{
	struct chan_buf in = { 0 }, seen = { 0 }, echo = { 0 };
	struct chan_frame f;
	bool asked = false;
	int c, t = 0;

	alarm(30);
	signal(SIGPIPE, SIG_IGN);
	if ((c = accept(lfd, NULL, NULL)) < 0)
		_exit(2);
	while (t >= 0 && chan_fill(c, &in, SIZE_MAX) > 0) {
		while ((t = chan_take(&in, &f)) == 1) {
			chan_put(&seen, f.type, f.stream, f.data, f.len);
			if (f.type == CHAN_REQUEST && !asked) {
				asked = true;
				close(open(fk->ready, O_WRONLY | O_CREAT, 0600));
				if (mode == M_CLOSE)
					goto done;
				while (mode == M_STALL)
					pause();
				if (mode == M_REPLY)
					write_full(c, canned.p + canned.off, chan_pending(&canned));
			} else if (f.type == CHAN_IN && mode == M_ECHO) {
				chan_put(&echo, CHAN_OUT, 0, f.data, f.len);
				if (f.len == 0)		/* the end: no empty output frame */
					write_full(c, canned.p + canned.off, chan_pending(&canned));
				else
					chan_flush(c, &echo);
			}
		}
	}
done:
	if (write_full(fk->logfd, seen.p + seen.off, chan_pending(&seen)) < 0)
		_exit(3);
	close(c);
	_exit(0);
}

static uid_t nobody_uid = 65534;
static gid_t nobody_gid = 65534;

static void become_nobody(void)
{
	if (setgroups(0, NULL) < 0 || setresgid(nobody_gid, nobody_gid, nobody_gid) < 0 ||
	    setresuid(nobody_uid, nobody_uid, nobody_uid) < 0)
		_exit(126);
}

/* Start a fake on a new socket. as_nobody: it listens as nobody (its
 * credentials, which blaunch sees, are then nobody's). */
static int fake_start(struct fake *fk, enum mode mode, bool as_nobody)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int lfd, ready[2];
	char b;

	fake_n++;
	snprintf(fk->path, sizeof fk->path, "%s/s%d.sock", tmpdir, fake_n);
	snprintf(fk->log, sizeof fk->log, "%s/log%d", tmpdir, fake_n);
	snprintf(fk->ready, sizeof fk->ready, "%s/ready%d", tmpdir, fake_n);
	memcpy(sa.sun_path, fk->path, strlen(fk->path) + 1);
	if ((fk->logfd = open(fk->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0 ||
	    (lfd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || pipe(ready) < 0)
		return -1;
	fflush(stdout);
	if ((fk->pid = fork()) == 0) {
		/* listen() fixes the credentials a client sees. */
		if (as_nobody)
			become_nobody();
		if (listen(lfd, 4) < 0)
			_exit(4);
		close(ready[0]);
		write_full(ready[1], "r", 1);
		close(ready[1]);
		serve(lfd, fk, mode);
	}
	close(lfd);
	close(fk->logfd);
	close(ready[1]);
	b = 0;
	while (read(ready[0], &b, 1) < 0 && errno == EINTR)
		;
	close(ready[0]);
	return fk->pid > 0 && b == 'r' ? 0 : -1;
}

/* Wait for the fake (kill it first if blaunch never came): its status, 0
 * when it served to the end. */
static int fake_end(struct fake *fk, bool kill_it)
{
	int st = -1;

	if (kill_it)
		kill(fk->pid, SIGKILL);
	waitpid(fk->pid, &st, 0);
	unlink(fk->path);
	unlink(fk->ready);
	if (kill_it)
		unlink(fk->log);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* What the fake received. */
struct seen {
	int frames, requests, others;
	char nodes[256], args[1024], cwd[PATH_MAX], shell[8];
	bool mark;		/* env had BLT_MARK=MARK */
	size_t envs;
	char *input;		/* the CHAN_IN data, concatenated */
	size_t input_len;
	int in_frames, in_ends, in_over;	/* CHAN_IN frames, empty ones, ones over the cap */
	bool end_last;		/* the empty CHAN_IN came last */
};

static void append(char *dst, size_t cap, const char *sep, const char *s)
{
	size_t l = strlen(dst);

	snprintf(dst + l, cap - l, "%s%s", l ? sep : "", s);
}

static void read_log(const struct fake *fk, struct seen *s)
{
	struct chan_buf b = { 0 };
	struct chan_frame f;
	size_t len, pos, kl;
	char *raw = slurp(fk->log, &len);
	const char *k, *v;

	memset(s, 0, sizeof *s);
	s->input = calloc(1, len + 1);
	b.p = (uint8_t *)raw;
	b.len = b.cap = len;
	unlink(fk->log);
	while (chan_take(&b, &f) == 1) {
		s->frames++;
		if (f.type == CHAN_IN) {
			s->in_frames++;
			s->in_ends += f.len == 0;
			s->in_over += f.len > CHAN_MAX_DATA;
			s->end_last = f.len == 0;
			memcpy(s->input + s->input_len, f.data, f.len);
			s->input_len += f.len;
			continue;
		}
		if (f.type != CHAN_REQUEST || f.stream != 0) {
			s->others++;
			continue;
		}
		s->requests++;
		for (pos = 0; chan_next_field(&f, &pos, &k, &kl, &v);) {
			if (chan_key_is(k, kl, "node"))
				append(s->nodes, sizeof s->nodes, " ", v);
			else if (chan_key_is(k, kl, "arg"))
				append(s->args, sizeof s->args, "|", v);
			else if (chan_key_is(k, kl, "cwd"))
				snprintf(s->cwd, sizeof s->cwd, "%s", v);
			else if (chan_key_is(k, kl, "shell"))
				snprintf(s->shell, sizeof s->shell, "%s", v);
			else if (chan_key_is(k, kl, "env")) {
				s->envs++;
				s->mark |= strcmp(v, "BLT_MARK=" MARK) == 0;
			}
		}
	}
	free(raw);
}

/* ---- blaunch, run ---- */

struct how {
	const char *launcher;	/* BSUB_LAUNCHER (NULL: unset) */
	const char *input;	/* standard input (NULL: /dev/null) */
	size_t input_len;	/* (0: strlen(input)) */
	bool no_job;		/* BSUB_JOBID unset */
	bool as_nobody;
	bool stdout_closed;	/* a pipe no one reads */
	bool big_env;		/* 20 more variables of 60 KiB */
	int sig;		/* sent once the fake has the request */
	const char *ready;	/* (the fake's ready file) */
	int settle_ms;		/* before the signal: then stdin's offset is taken */
};

struct result {
	int status;		/* exit code, or 1000 + signal */
	char *out, *err;
	size_t out_len;
	long long stdin_pos;	/* how far blaunch had read its stdin (with settle_ms) */
};

/* The offset of pid's fd 0 (a file): how much of it was read; -1 if unknown. */
static long long stdin_pos(pid_t pid)
{
	char path[64], text[512], *pos;
	int fd;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/fdinfo/0", (int)pid);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	n = read(fd, text, sizeof text - 1);	/* (a /proc file: its size says 0) */
	close(fd);
	text[n > 0 ? n : 0] = 0;
	return (pos = strstr(text, "pos:")) ? strtoll(pos + 4, NULL, 10) : -1;
}

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
}

static void child_env(const struct how *h)
{
	static char big[60 * 1024];

	setenv("BSUB_NODES", NODES, 1);
	setenv("BLT_MARK", MARK, 1);
	if (h->no_job)
		unsetenv("BSUB_JOBID");
	else
		setenv("BSUB_JOBID", "12", 1);
	if (h->launcher)
		setenv("BSUB_LAUNCHER", h->launcher, 1);
	else
		unsetenv("BSUB_LAUNCHER");
	if (h->big_env) {
		memset(big, 'x', sizeof big - 1);
		for (int k = 0; k < 20; k++) {
			char name[32];

			snprintf(name, sizeof name, "BLT_BIG%d", k);
			setenv(name, big, 1);
		}
	}
}

/* Run BUILD/blaunch with args (NULL-ended) in tmpdir. */
static void run(struct result *r, const struct how *h, ...)
{
	char exe[PATH_MAX + 16], o[300], e[300], in[300];
	const char *argv[64];
	int argc = 0, st = -1, closed[2] = { -1, -1 };
	va_list ap;
	pid_t pid;

	snprintf(exe, sizeof exe, "%s/blaunch", bindir);
	snprintf(o, sizeof o, "%s/out", tmpdir);
	snprintf(e, sizeof e, "%s/err", tmpdir);
	snprintf(in, sizeof in, "%s/in", tmpdir);
	if (h->input) {
		int fd = open(in, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		write_full(fd, h->input, h->input_len ? h->input_len : strlen(h->input));
		close(fd);
	}
	argv[argc++] = "blaunch";
	va_start(ap, h);
	while (argc < 63 && (argv[argc] = va_arg(ap, const char *)) != NULL)
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	if (h->stdout_closed && pipe(closed) == 0)
		close(closed[0]);	/* no reader, ever: blaunch gets EPIPE */
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int i = open(h->input ? in : "/dev/null", O_RDONLY);
		int fo = h->stdout_closed ? closed[1] : open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (i < 0 || fo < 0 || fe < 0 || dup2(i, 0) < 0 || dup2(fo, 1) < 0 ||
		    dup2(fe, 2) < 0 || chdir(tmpdir) < 0)
			_exit(120);
		child_env(h);
		if (h->as_nobody)
			become_nobody();
		/* blaunch keeps a signal it was started with ignored (as under
		 * nohup); a test run in the background by a shell has SIGINT
		 * ignored: each starts from the default here. */
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		alarm(30);	/* (kept across exec: a hung blaunch is killed) */
		execv(exe, (char *const *)argv);
		_exit(121);
	}
	if (closed[1] >= 0)
		close(closed[1]);
	if (h->sig && pid > 0) {
		for (int k = 0; k < 1000 && access(h->ready, F_OK) < 0; k++)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		if (h->settle_ms) {
			nanosleep(&(struct timespec){ h->settle_ms / 1000,
			                              h->settle_ms % 1000 * 1000000L }, NULL);
			r->stdin_pos = stdin_pos(pid);
		}
		kill(pid, h->sig);
	}
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
	r->out = slurp(o, &r->out_len);
	r->err = slurp(e, NULL);
	unlink(o);
	unlink(e);
	unlink(in);
}

#define RUN(r, h, ...) run(r, h, __VA_ARGS__, (const char *)NULL)

static bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static bool has(const char *s, const char *part)
{
	return s && strstr(s, part) != NULL;
}

/* ---- the cases ---- */

/* One task, the remote-shell form: the request, stdin through, output back. */
static void one_task(void)
{
	struct fake fk;
	struct result r;
	struct seen s;
	const char *input = "hello\nworld\n";

	chan_buf_free(&canned);
	put(CHAN_ERR, 0, "warn\n");
	put('Z', 0, "a frame of a kind blaunch does not know");
	put_status(0, 3 << 8);
	if (fake_start(&fk, M_ECHO, false) < 0) {
		ok(0, "a fake node side");
		return;
	}
	RUN(&r, &(struct how){ .launcher = fk.path, .input = input }, "-x", "-q", "node2",
	    "A=b; export A; echo $A", "arg2");
	ok_eq(fake_end(&fk, false), 0, "the fake served to the end (blaunch closed the socket)");
	read_log(&fk, &s);
	ok(s.requests == 1 && streq(s.nodes, "node2") && streq(s.args, "A=b; export A; echo $A|arg2") &&
	   streq(s.shell, "1"),
	   "blaunch -x -q node2 'A=b; ...' arg2: one request, node=node2, the words as arg= "
	   "each, shell=1 (%s / %s / %s)", s.nodes, s.args, s.shell);
	ok(s.mark && s.envs > 3, "env=: the environment, with the variable the test set (%zu entries)",
	   s.envs);
	ok(streq(s.cwd, tmpdir), "cwd= the directory blaunch ran in (%s)", s.cwd);
	ok(s.input_len == strlen(input) && memcmp(s.input, input, s.input_len) == 0 &&
	   s.in_ends == 1 && s.end_last && s.others == 0,
	   "its standard input came as CHAN_IN on stream 0, then one empty CHAN_IN (%d frames)",
	   s.in_frames);
	ok(streq(r.out, input) && streq(r.err, "warn\n"),
	   "CHAN_OUT to stdout, CHAN_ERR to stderr; an unknown frame ignored (out '%s', err '%s')",
	   flat(r.out), flat(r.err));
	ok_eq(r.status, 3, "the task's exit code 3 is blaunch's");
	free(s.input);
	result_free(&r);
}

/* -z with two nodes, -no-shell: both in order, no input read. */
static void two_tasks(void)
{
	struct fake fk;
	struct result r;
	struct seen s;

	chan_buf_free(&canned);
	put(CHAN_OUT, 1, "one\n");
	put(CHAN_OUT, 0, "three\n");
	put_status(1, 0);
	put(CHAN_ERR, 0, "e3\n");
	put_status(0, 5 << 8);
	if (fake_start(&fk, M_REPLY, false) < 0) {
		ok(0, "a fake node side");
		return;
	}
	RUN(&r, &(struct how){ .launcher = fk.path, .input = "not for them\n" }, "-z",
	    "node3 node1", "-no-shell", "cmd", "a b", "$c");
	ok_eq(fake_end(&fk, false), 0, "the fake served to the end");
	read_log(&fk, &s);
	ok(streq(s.nodes, "node3 node1") && streq(s.args, "cmd|a b|$c") && streq(s.shell, "0"),
	   "-z \"node3 node1\" -no-shell: node=node3, node=node1 in that order, shell=0 (%s / %s / %s)",
	   s.nodes, s.args, s.shell);
	ok(s.in_frames == 0 && s.others == 0, "several targets: standard input is not read, no CHAN_IN");
	ok(streq(r.out, "one\nthree\n") && streq(r.err, "e3\n"), "both tasks' output, as it came");
	ok_eq(r.status, 5, "the one non-zero exit code");
	free(s.input);
	result_free(&r);
}

/* Every node by default; the first non-zero code in target order. */
static void statuses(void)
{
	struct fake fk;
	struct result r;
	struct seen s;

	chan_buf_free(&canned);
	put_status(2, 2 << 8);
	put_status(1, 9);		/* killed by SIGKILL */
	put_status(0, 0);
	if (fake_start(&fk, M_REPLY, false) < 0) {
		ok(0, "a fake node side");
		return;
	}
	RUN(&r, &(struct how){ .launcher = fk.path }, "true");
	fake_end(&fk, false);
	read_log(&fk, &s);
	ok(streq(s.nodes, NODES), "no -z, one operand: every node of BSUB_NODES, in order (%s)",
	   s.nodes);
	ok_eq(r.status, 137, "codes 0, killed by 9, 2 (arriving last first): the first non-zero in "
	      "node order, 128+9");
	free(s.input);
	result_free(&r);

	chan_buf_free(&canned);
	put_status(0, 15);
	fake_start(&fk, M_REPLY, false);
	RUN(&r, &(struct how){ .launcher = fk.path }, "-n", "node1", "sleep 9");
	fake_end(&fk, false);
	read_log(&fk, &s);
	ok_eq(r.status, 143, "one task killed by SIGTERM: 143, as a shell says");
	ok(s.in_frames == 1 && s.in_ends == 1, "-n: no input, only its end (one empty CHAN_IN)");
	free(s.input);
	result_free(&r);

	chan_buf_free(&canned);
	chan_put(&canned, CHAN_EXIT, 0, "status=x", 9);
	fake_start(&fk, M_REPLY, false);
	RUN(&r, &(struct how){ .launcher = fk.path }, "node1", "true");
	fake_end(&fk, false);
	read_log(&fk, &s);
	ok(r.status == 255 && has(r.err, "node1: the task ended without a readable exit status"),
	   "a CHAN_EXIT without a readable status: 255, said (%s)", flat(r.err));
	free(s.input);
	result_free(&r);
}

static void failures(void)
{
	struct fake fk;
	struct result r;
	struct seen s;

	chan_buf_free(&canned);
	put_status(0, 0);
	put(CHAN_FAIL, 1, "cannot run it here: \033]0;owned\007no such node side\n");
	if (fake_start(&fk, M_REPLY, false) < 0) {
		ok(0, "a fake node side");
		return;
	}
	RUN(&r, &(struct how){ .launcher = fk.path }, "-z", "node1 node2", "true");
	fake_end(&fk, false);
	read_log(&fk, &s);
	ok(r.status == 255 && has(r.err, "blaunch: node2: cannot run it here: ?]0;owned?no such node side\n"),
	   "CHAN_FAIL for the second task: 'blaunch: node2: REASON', control characters shown as "
	   "'?', 255 (%s)", flat(r.err));
	free(s.input);
	result_free(&r);

	chan_buf_free(&canned);
	put(CHAN_FAIL, 0xffffffffu, "job 12 is ending");
	fake_start(&fk, M_REPLY, false);
	RUN(&r, &(struct how){ .launcher = fk.path, .input = "x" }, "node1", "cat");
	fake_end(&fk, false);
	read_log(&fk, &s);
	ok(r.status == 255 && streq(r.err, "blaunch: job 12 is ending\n"),
	   "CHAN_FAIL on stream 0xffffffff: the whole request refused, said, 255 (%s)", flat(r.err));
	free(s.input);
	result_free(&r);

	fake_start(&fk, M_CLOSE, false);
	RUN(&r, &(struct how){ .launcher = fk.path }, "node1", "true");
	fake_end(&fk, false);
	read_log(&fk, &s);
	ok(s.requests == 1 && r.status == 255 &&
	   streq(r.err, "blaunch: job 12's launcher closed the connection\n"),
	   "the node side closes before the task ended: said, 255 (%s)", flat(r.err));
	free(s.input);
	result_free(&r);

	chan_buf_free(&canned);
	put(CHAN_OUT, 7, "for no one");
	fake_start(&fk, M_REPLY, false);
	RUN(&r, &(struct how){ .launcher = fk.path }, "node1", "true");
	fake_end(&fk, false);
	read_log(&fk, &s);
	ok(r.status == 255 && has(r.err, "launcher sent a frame for no task of ours"),
	   "a frame on a stream that is no task: 255 (%s)", flat(r.err));
	free(s.input);
	result_free(&r);

	chan_buf_free(&canned);
	chan_put(&canned, CHAN_OUT, 0, NULL, 0);
	canned.p[canned.off] = 0x7f;	/* a length of about 2 GiB */
	fake_start(&fk, M_REPLY, false);
	RUN(&r, &(struct how){ .launcher = fk.path }, "node1", "true");
	fake_end(&fk, false);
	read_log(&fk, &s);
	ok(r.status == 255 && has(r.err, "launcher sent a broken frame"),
	   "a frame whose length is out of bounds: 255, nothing more read (%s)", flat(r.err));
	free(s.input);
	result_free(&r);

	chan_buf_free(&canned);
	{
		static char big[CHAN_MAX_DATA + 1];

		chan_put(&canned, CHAN_OUT, 0, big, sizeof big);
	}
	fake_start(&fk, M_REPLY, false);
	RUN(&r, &(struct how){ .launcher = fk.path }, "node1", "true");
	fake_end(&fk, false);
	read_log(&fk, &s);
	ok(r.status == 255 && has(r.err, "launcher sent a broken frame") && r.out_len == 0,
	   "an output frame over CHAN_MAX_DATA: refused before it is read whole (%s)", flat(r.err));
	free(s.input);
	result_free(&r);
}

/* Megabytes each way: every byte, in frames within the cap. */
static void big_data(void)
{
	size_t n = 3 * 1024 * 1024 + 7;
	char *data = malloc(n);
	struct fake fk;
	struct result r;
	struct seen s;

	for (size_t k = 0; k < n; k++)
		data[k] = (char)(k * 7919 % 251);	/* NULs too */
	chan_buf_free(&canned);
	put_status(0, 0);
	fake_start(&fk, M_ECHO, false);
	RUN(&r, &(struct how){ .launcher = fk.path, .input = data, .input_len = n }, "node3", "cat");
	ok_eq(fake_end(&fk, false), 0, "3 MiB through: the fake served to the end");
	read_log(&fk, &s);
	ok(s.input_len == n && memcmp(s.input, data, n) == 0 && s.in_over == 0 && s.in_ends == 1 &&
	   s.end_last, "every byte of stdin reached the node side, in CHAN_IN frames of at most "
	   "%u bytes (%d frames)", CHAN_MAX_DATA, s.in_frames);
	ok(r.status == 0 && r.out_len == n && memcmp(r.out, data, n) == 0,
	   "and every byte of the output came back to stdout (%zu bytes, status %d)", r.out_len,
	   r.status);
	free(s.input);
	result_free(&r);

	/* A node side that stops reading: blaunch reads no more than its bound
	 * (1 MiB queued, one read, what the socket holds), then waits. */
	{
		size_t big = 10 * 1024 * 1024;
		char *lots = calloc(1, big);

		fake_start(&fk, M_STALL, false);
		RUN(&r, &(struct how){ .launcher = fk.path, .input = lots, .input_len = big,
		                       .sig = SIGTERM, .ready = fk.ready, .settle_ms = 500 },
		    "node1", "cat");
		fake_end(&fk, true);
		ok(r.stdin_pos > 1024 * 1024 && r.stdin_pos < 3 * 1024 * 1024 && r.status == 143,
		   "a node side that reads no input: blaunch stops reading its stdin past 1 MiB "
		   "queued (read %lld of 10 MiB), and leaves on SIGTERM (%d)", r.stdin_pos, r.status);
		result_free(&r);
		free(lots);
	}

	/* A reader of stdout gone: the output is dropped, the rest goes on. */
	chan_buf_free(&canned);
	for (int k = 0; k < 4; k++)
		chan_put(&canned, CHAN_OUT, 0, data, 60000);
	put(CHAN_ERR, 0, "after\n");
	put_status(0, 0);
	fake_start(&fk, M_REPLY, false);
	RUN(&r, &(struct how){ .launcher = fk.path, .stdout_closed = true }, "node1", "true");
	fake_end(&fk, false);
	read_log(&fk, &s);
	ok(r.status == 0 && streq(r.err, "after\n"),
	   "stdout closed (EPIPE): ignored, stderr still written, the task's 0 (%s, %d)", flat(r.err),
	   r.status);
	free(s.input);
	result_free(&r);
	free(data);
}

static void refusals(void)
{
	struct result r;
	char missing[300];
	struct fake fk;
	struct seen s;

	snprintf(missing, sizeof missing, "%s/no-such.sock", tmpdir);
	RUN(&r, &(struct how){ .launcher = missing, .no_job = true }, "node1", "true");
	ok(r.status == 255 && has(r.err, "blaunch: not inside a backfilld job (no BSUB_JOBID)"),
	   "no BSUB_JOBID: refused, 255 (%s)", flat(r.err));
	result_free(&r);
	RUN(&r, &(struct how){ .launcher = missing }, "-z", "node1 node9", "true");
	ok(r.status == 255 &&
	   streq(r.err, "blaunch: node node9 is not one of job 12's nodes (node1 node2 node3)\n"),
	   "-z with a node not the job's: refused before anything, 255 (%s)", flat(r.err));
	result_free(&r);
	RUN(&r, &(struct how){ .launcher = missing }, "-z", "node1");
	ok(r.status == 255 && has(r.err, "blaunch: no command to run"), "no command: 255 (%s)",
	   flat(r.err));
	result_free(&r);
	RUN(&r, &(struct how){ .launcher = missing }, "node1");
	ok(r.status == 255 && has(r.err, "blaunch: no command to run on node1"),
	   "a node alone: no command, 255 (%s)", flat(r.err));
	result_free(&r);
	RUN(&r, &(struct how){ .launcher = missing }, "-o", "x", "node1", "true");
	ok(r.status == 255 && has(r.err, "blaunch: unknown option '-o'"),
	   "an ssh option blaunch does not take: a usage error, 255 (%s)", flat(r.err));
	result_free(&r);
	RUN(&r, &(struct how){ .launcher = missing }, "node1", "true");
	ok(r.status == 255 && has(r.err, "blaunch: cannot reach job 12's launcher at ") &&
	   has(r.err, "no-such.sock: No such file or directory"),
	   "no socket there: 'cannot reach job 12's launcher at PATH: REASON', 255 (%s)", flat(r.err));
	result_free(&r);

	{
		char *word = malloc(70 * 1024);

		memset(word, 'w', 70 * 1024 - 1);
		word[70 * 1024 - 1] = 0;
		RUN(&r, &(struct how){ .launcher = missing }, "node1", "echo", word);
		ok(r.status == 255 && has(r.err, "word 2 of the command is over 64 KiB"),
		   "a word over 64 KiB: refused before connecting, 255 (%s)", flat(r.err));
		result_free(&r);
		free(word);
	}
	RUN(&r, &(struct how){ .launcher = missing, .big_env = true }, "node1", "true");
	ok(r.status == 255 && has(r.err, "the environment is over 1 MiB in all"),
	   "an environment over 1 MiB: refused, 255 (%s)", flat(r.err));
	result_free(&r);

	if (geteuid() != 0) {
		tap_skip("a socket blaunch may not open (as nobody)", "not root");
		tap_skip("a launcher that is neither root nor the caller", "not root");
		return;
	}
	/* 0600 and root's, as the node side makes it; blaunch runs as nobody. */
	chmod(tmpdir, 0711);
	fake_start(&fk, M_HOLD, false);
	chmod(fk.path, 0600);
	RUN(&r, &(struct how){ .launcher = fk.path, .as_nobody = true }, "node1", "true");
	ok(r.status == 255 && has(r.err, "blaunch: cannot reach job 12's launcher at ") &&
	   has(r.err, ": Permission denied"),
	   "a socket blaunch may not open (0600, root's; run as nobody): said, 255 (%s)", flat(r.err));
	fake_end(&fk, true);
	result_free(&r);
	chmod(tmpdir, 0700);

	fake_start(&fk, M_HOLD, true);
	RUN(&r, &(struct how){ .launcher = fk.path }, "node1", "true");
	fake_end(&fk, false);
	read_log(&fk, &s);
	ok(r.status == 255 && has(r.err, "is run by uid 65534, neither root nor you") &&
	   s.frames == 0,
	   "a launcher run by someone else (nobody): refused, nothing sent to it (%d frames; %s)",
	   s.frames, flat(r.err));
	free(s.input);
	result_free(&r);
}

static void signals(void)
{
	static const struct { int sig, code; const char *name; } cases[] = {
		{ SIGTERM, 143, "SIGTERM" }, { SIGINT, 130, "SIGINT" }, { SIGHUP, 129, "SIGHUP" },
	};

	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		struct fake fk;
		struct result r;
		struct seen s;

		fake_start(&fk, M_HOLD, false);
		RUN(&r, &(struct how){ .launcher = fk.path, .sig = cases[k].sig, .ready = fk.ready },
		    "node1", "sleep 100");
		ok_eq(fake_end(&fk, false), 0, "%s while the task runs: the node side sees the socket "
		      "close", cases[k].name);
		read_log(&fk, &s);
		ok(r.status == cases[k].code && s.requests == 1,
		   "and blaunch exits %d (status %d, %d requests; %s)", cases[k].code, r.status,
		   s.requests, flat(r.err));
		free(s.input);
		result_free(&r);
	}
}

static void help(void)
{
	struct result r;

	RUN(&r, &(struct how){ .no_job = true }, "--help");
	ok(r.status == 0 && has(r.out, "usage: blaunch") && has(r.out, "-no-shell"),
	   "--help, outside a job too: the usage, 0");
	result_free(&r);
	RUN(&r, &(struct how){ .no_job = true }, "--version");
	ok(r.status == 0 && has(r.out, "blaunch (backfilld) "), "--version: 0 (%s)", flat(r.out));
	result_free(&r);
}

int main(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	struct passwd *pw = getpwnam("nobody");
	struct group *gr = getgrnam("nogroup");
	char *slash;

	signal(SIGPIPE, SIG_IGN);
	if (pw) {
		nobody_uid = pw->pw_uid;
		nobody_gid = gr ? gr->gr_gid : pw->pw_gid;
	}
	if (!mkdtemp(tmpdir)) {
		ok(0, "a temporary directory");
		return tap_done();
	}
	/* blaunch is beside the tests' directory: BUILD/tests/.. */
	self[n > 0 ? n : 0] = 0;
	if ((slash = strrchr(self, '/')))
		*slash = 0;
	if ((slash = strrchr(self, '/')))
		*slash = 0;
	snprintf(bindir, sizeof bindir, "%s", self);

	help();
	one_task();
	two_tasks();
	statuses();
	failures();
	big_data();
	refusals();
	signals();

	chan_buf_free(&canned);
	rmdir(tmpdir);
	return tap_done();
}
