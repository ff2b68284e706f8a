/* client_request() against a fake daemon (a Unix socket served by a forked
 * child that answers one connection with a canned frame), its failures,
 * and bsub, bq and bkill run as programs against the same fake: what they
 * send, print and exit with. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "client.h"
#include "proto.h"
#include "tap.h"

#define HOUR ((bf_time)3600 * BF_SEC)
/* 2026-11-21 14:00:00 UTC */
#define T0 ((bf_time)1795269600 * BF_SEC)

static char err[2048];
static char tmpdir[] = "/tmp/test_client_request.XXXXXX";
static char bindir[PATH_MAX];

/* s on one line ('\n' shown as '|'), for a test's description. */
static const char *flat(const char *s)
{
	static char bufs[4][4096];
	static int next;
	char *b = bufs[next++ % 4];
	size_t k;

	for (k = 0; s[k] && k < sizeof bufs[0] - 1; k++)
		b[k] = s[k] == '\n' ? '|' : s[k];
	b[k] = 0;
	return b;
}

/* ---- the fake daemon ---- */

enum fake_mode {
	F_REPLY,	/* read the request, send the reply */
	F_EARLY,	/* read the header only, send the reply, close */
	F_CLOSE,	/* read the request, close without a reply */
	F_HALF,		/* read the request, send half the reply, close */
	F_SILENT,	/* read the request, say nothing until killed */
};

struct fake {
	char path[160], reqfile[200];
	pid_t pid;
	enum fake_mode mode;
};

static int fake_n;

static int read_full(int fd, void *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t r = read(fd, (char *)buf + off, len - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		off += (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t r = write(fd, (const char *)buf + off, len - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		off += (size_t)r;
	}
	return 0;
}

static void child_serve(int lfd, const struct fake *fk, const uint8_t *reply, size_t len)
{
	uint8_t hdr[PROTO_HEADER], *body = NULL;
	uint32_t n;
	int c, fd;

	alarm(20);
	signal(SIGPIPE, SIG_IGN);
	if ((c = accept(lfd, NULL, NULL)) < 0 || read_full(c, hdr, sizeof hdr) < 0)
		_exit(2);
	n = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	if (fk->mode == F_EARLY) {
		write_full(c, reply, len);
		close(c);
		_exit(0);
	}
	if (n > PROTO_MAX_PAYLOAD || !(body = malloc((size_t)n + sizeof hdr)))
		_exit(3);
	memcpy(body, hdr, sizeof hdr);
	if (read_full(c, body + sizeof hdr, n) < 0)
		_exit(4);
	if ((fd = open(fk->reqfile, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 ||
	    write_full(fd, body, n + sizeof hdr) < 0 || close(fd) < 0)
		_exit(5);
	switch (fk->mode) {
	case F_REPLY: write_full(c, reply, len); break;
	case F_HALF: write_full(c, reply, len / 2); break;
	case F_SILENT: pause(); break;
	default: break;
	}
	close(c);
	_exit(0);
}

static int set_sun(struct sockaddr_un *sa, const char *path)
{
	size_t n = strlen(path);

	if (n >= sizeof sa->sun_path)
		return -1;
	memcpy(sa->sun_path, path, n + 1);
	return 0;
}

static int fake_start(struct fake *fk, enum fake_mode mode, const struct proto_buf *reply)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int lfd;

	fk->mode = mode;
	fake_n++;
	snprintf(fk->path, sizeof fk->path, "%s/s%d.sock", tmpdir, fake_n);
	snprintf(fk->reqfile, sizeof fk->reqfile, "%s/req%d", tmpdir, fake_n);
	if (set_sun(&sa, fk->path) < 0 || (lfd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 4) < 0)
		return -1;
	fflush(stdout);
	fk->pid = fork();
	if (fk->pid == 0)
		child_serve(lfd, fk, reply ? reply->p : NULL, reply ? reply->len : 0);
	close(lfd);
	return fk->pid < 0 ? -1 : 0;
}

/* Wait for the fake; its exit status (0 when it served as told). */
static int fake_end(struct fake *fk)
{
	int st = -1;

	if (fk->mode == F_SILENT)
		kill(fk->pid, SIGTERM);
	waitpid(fk->pid, &st, 0);
	unlink(fk->path);
	if (fk->mode == F_SILENT)
		return WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM ? 0 : 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The request the fake received (malloc'ed), or NULL. */
static uint8_t *fake_request(struct fake *fk, size_t *len)
{
	struct stat st;
	uint8_t *buf = NULL;
	int fd = open(fk->reqfile, O_RDONLY);

	*len = 0;
	if (fd >= 0 && fstat(fd, &st) == 0 && (buf = malloc((size_t)st.st_size + 1)) &&
	    read_full(fd, buf, (size_t)st.st_size) == 0)
		*len = (size_t)st.st_size;
	if (fd >= 0)
		close(fd);
	unlink(fk->reqfile);
	return buf;
}

/* ---- canned frames ---- */

static struct proto_buf reply_buf;

static const struct proto_buf *submitted(uint64_t job, bf_time start, enum proto_start_kind k)
{
	proto_enc_submitted(&reply_buf, &(struct proto_submitted){ job, start, k, 0, 0 });
	return &reply_buf;
}

static const struct proto_buf *error_reply(enum proto_err code, const char *msg)
{
	proto_enc_error(&reply_buf, &(struct proto_error){ code, msg });
	return &reply_buf;
}

static struct proto_job jobs[] = {
	{ .id = 7, .uid = 1000, .user = "alice", .name = "sim", .state = "running", .nodes = 64,
	  .estimate = 2 * HOUR, .submit = T0, .start = T0 + 60 * BF_SEC,
	  .end = T0 + 60 * BF_SEC + 2 * HOUR, .start_kind = PS_ACTUAL, .node_list = "node[001-064]",
	  .cwd = "/home/alice", .out = "/home/alice/bsub-7.out", .err = "/home/alice/bsub-7.out" },
	{ .id = 8, .uid = 1000, .user = "alice", .name = "post", .state = "queued", .nodes = 4,
	  .estimate = HOUR, .submit = T0 + BF_SEC, .start = T0 + 3 * HOUR, .end = T0 + 4 * HOUR,
	  .start_kind = PS_PREDICTED },
};

static const struct proto_buf *jobs_reply(uint32_t n)
{
	proto_enc_jobs(&reply_buf, &(struct proto_jobs){ .jobs = jobs, .count = n, .total = 0 });
	return &reply_buf;
}

static struct proto_buf req_buf;

static const struct proto_buf *submit_request(size_t script_len, uint32_t envc)
{
	static uint8_t *script;
	static const char **env;
	static char *entry;

	free(script);
	free(env);
	free(entry);
	script = malloc(script_len);
	env = calloc(envc + 1, sizeof *env);
	entry = malloc(4001);
	memset(script, '#', script_len);
	memset(entry, 'v', 4000);
	memcpy(entry, "BIG=", 4);
	entry[4000] = 0;
	for (uint32_t k = 0; k < envc; k++)
		env[k] = entry;
	proto_enc_submit(&req_buf, &(struct proto_submit){
		.nodes = 3, .estimate = HOUR, .name = "t", .script = script,
		.script_len = (uint32_t)script_len, .cwd = "/tmp", .env = env, .envc = envc });
	return &req_buf;
}

/* ---- client_request ---- */

static void transport(void)
{
	struct fake fk;
	uint8_t *reply, *req;
	size_t len, reqlen;
	enum proto_type type;
	struct proto_submitted sd;
	struct proto_submit sm;
	struct proto_arena a = { 0 };
	char path[300], want[600];
	int rc;

	/* A whole exchange. */
	fake_start(&fk, F_REPLY, submitted(42, T0, PS_GUARANTEED));
	rc = client_request(fk.path, submit_request(100, 2), &reply, &len, &type, err, sizeof err);
	ok(rc == 0 && type == PT_SUBMITTED, "a reply comes back (%s)", rc ? err : "ok");
	ok(rc == 0 && proto_dec_submitted(reply, len, &sd, err, sizeof err) == 0 && sd.job == 42 &&
	   sd.start == T0 && sd.kind == PS_GUARANTEED, "and decodes: job 42, guaranteed, the time");
	free(reply);
	ok(fake_end(&fk) == 0, "the fake got one whole frame");
	req = fake_request(&fk, &reqlen);
	ok(req && proto_dec_submit(req, reqlen, &sm, &a, err, sizeof err) == 0 && sm.nodes == 3 &&
	   sm.script_len == 100 && sm.envc == 2, "the fake decoded the request");
	proto_arena_free(&a);
	free(req);

	/* Where the socket is. */
	fake_start(&fk, F_REPLY, submitted(43, T0, PS_PREDICTED));
	setenv("BACKFILLD_SOCKET", fk.path, 1);
	rc = client_request(NULL, submit_request(10, 0), &reply, &len, &type, err, sizeof err);
	ok(rc == 0 && type == PT_SUBMITTED, "$BACKFILLD_SOCKET is used without --socket");
	free(reply);
	fake_end(&fk);
	free(fake_request(&fk, &reqlen));
	fake_start(&fk, F_REPLY, submitted(44, T0, PS_NONE));
	setenv("BACKFILLD_SOCKET", "/nonexistent/backfilld.sock", 1);
	rc = client_request(fk.path, submit_request(10, 0), &reply, &len, &type, err, sizeof err);
	ok(rc == 0, "--socket wins over $BACKFILLD_SOCKET");
	free(reply);
	fake_end(&fk);
	free(fake_request(&fk, &reqlen));
	rc = client_request(NULL, submit_request(10, 0), &reply, &len, &type, err, sizeof err);
	ok(rc < 0 && strstr(err, "/nonexistent/backfilld.sock"), "$BACKFILLD_SOCKET is the one tried");
	unsetenv("BACKFILLD_SOCKET");

	/* Not reached. */
	snprintf(path, sizeof path, "%s/nothing.sock", tmpdir);
	rc = client_request(path, submit_request(10, 0), &reply, &len, &type, err, sizeof err);
	snprintf(want, sizeof want, "cannot reach backfilld: tried %s (--socket): No such file or "
	         "directory (is the daemon running? set BACKFILLD_SOCKET or --socket)", path);
	ok(rc < 0 && reply == NULL && strcmp(err, want) == 0, "no socket: the documented message");
	if (strcmp(err, want) != 0)
		printf("#   got  %s\n#   want %s\n", err, want);
	{
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		snprintf(path, sizeof path, "%s/dead.sock", tmpdir);
		set_sun(&sa, path);
		bind(fd, (struct sockaddr *)&sa, sizeof sa);
		close(fd);
		rc = client_request(path, submit_request(10, 0), &reply, &len, &type, err, sizeof err);
		ok(rc < 0 && strstr(err, "Connection refused (is the daemon running?"),
		   "a stale socket: refused (%s)", err);
		unlink(path);
	}
	memset(path, 'p', 200);
	path[0] = '/';
	path[200] = 0;
	rc = client_request(path, submit_request(10, 0), &reply, &len, &type, err, sizeof err);
	ok(rc < 0 && strstr(err, "the path is 200 bytes") && strstr(err, "at most 107"),
	   "a path too long for sun_path is refused, not cut (%s)", err);
	rc = client_request(NULL, NULL, &reply, &len, &type, err, sizeof err);
	ok(rc < 0, "no request, no call");

	/* Bad replies. */
	{
		struct proto_buf bad;

		proto_buf_init(&bad);
		proto_enc_submitted(&bad, &(struct proto_submitted){ 1, 2, PS_NONE, 0, 0 });
		bad.p[4] = 9;
		fake_start(&fk, F_REPLY, &bad);
		rc = client_request(fk.path, submit_request(10, 0), &reply, &len, &type, err, sizeof err);
		ok(rc < 0 && strstr(err, "unreadable reply from backfilld at") &&
		   strstr(err, "protocol version 9"), "another version (%s)", err);
		fake_end(&fk);
		free(fake_request(&fk, &reqlen));

		bad.p[4] = PROTO_VERSION;
		bad.p[0] = 0x01;	/* 16 MiB + */
		fake_start(&fk, F_REPLY, &bad);
		rc = client_request(fk.path, submit_request(10, 0), &reply, &len, &type, err, sizeof err);
		ok(rc < 0 && strstr(err, "over the 4194304-byte limit"), "an oversized reply (%s)", err);
		fake_end(&fk);
		free(fake_request(&fk, &reqlen));
		proto_buf_free(&bad);
	}
	fake_start(&fk, F_CLOSE, NULL);
	rc = client_request(fk.path, submit_request(10, 0), &reply, &len, &type, err, sizeof err);
	ok(rc < 0 && strstr(err, "closed the connection without a reply"), "no reply (%s)", err);
	fake_end(&fk);
	free(fake_request(&fk, &reqlen));
	fake_start(&fk, F_HALF, jobs_reply(2));
	rc = client_request(fk.path, submit_request(10, 0), &reply, &len, &type, err, sizeof err);
	ok(rc < 0 && strstr(err, "in the middle of a reply"), "half a reply (%s)", err);
	fake_end(&fk);
	free(fake_request(&fk, &reqlen));
	{
		struct timespec t0, t1;

		client_timeout_ms = 300;
		fake_start(&fk, F_SILENT, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = client_request(fk.path, submit_request(10, 0), &reply, &len, &type, err, sizeof err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		snprintf(want, sizeof want, "no reply from backfilld at %s within 1 s", fk.path);
		ok(rc < 0 && strcmp(err, want) == 0, "a silent daemon times out (%s)", err);
		ok(t1.tv_sec - t0.tv_sec < 5, "after the timeout, not later");
		ok(fake_end(&fk) == 0, "the silent fake was still waiting");
		free(fake_request(&fk, &reqlen));
		client_timeout_ms = CLIENT_TIMEOUT_MS;
	}

	/* Big requests: written in pieces; refused early, the answer still arrives. */
	fake_start(&fk, F_REPLY, submitted(45, T0, PS_GUARANTEED));
	rc = client_request(fk.path, submit_request(PROTO_MAX_SCRIPT, 700), &reply, &len, &type,
	                    err, sizeof err);
	ok(rc == 0 && type == PT_SUBMITTED && req_buf.len > 3u * 1024 * 1024,
	   "a %zu-byte request goes through (%s)", req_buf.len, rc ? err : "ok");
	free(reply);
	fake_end(&fk);
	req = fake_request(&fk, &reqlen);
	ok(req && reqlen == req_buf.len && memcmp(req, req_buf.p, reqlen) == 0,
	   "the fake got it byte for byte");
	free(req);
	fake_start(&fk, F_EARLY, error_reply(PE_INVALID, "refused at the header"));
	rc = client_request(fk.path, submit_request(PROTO_MAX_SCRIPT, 700), &reply, &len, &type,
	                    err, sizeof err);
	ok(rc == 0 && type == PT_ERROR, "an answer before the whole request was read still counts (%s)",
	   rc ? err : "ok");
	free(reply);
	ok(fake_end(&fk) == 0, "early fake done");
}

/* client_call: the checks every client makes, with stderr captured. */
static char *capture_path;

static int call(const struct fake *fk, enum proto_type want, char *msg, size_t msglen)
{
	uint8_t *reply = NULL;
	size_t len;
	int saved = dup(2), fd = open(capture_path, O_RDWR | O_CREAT | O_TRUNC, 0600), rc;
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	rc = client_call("prog", fk->path, submit_request(10, 0), want, &reply, &len);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, msg, msglen - 1, 0);
	msg[n > 0 ? n : 0] = 0;
	close(fd);
	ok((rc == 0) == (reply != NULL), "a reply exactly when 0 is returned");
	free(reply);
	return rc;
}

static void calls(void)
{
	struct fake fk;
	char msg[1024], path[300];
	size_t l;
	int rc;

	snprintf(path, sizeof path, "%s/stderr", tmpdir);
	capture_path = path;
	fake_start(&fk, F_REPLY, submitted(1, T0, PS_NONE));
	rc = call(&fk, PT_SUBMITTED, msg, sizeof msg);
	ok(rc == 0 && msg[0] == 0, "the expected type: 0, silent");
	fake_end(&fk);
	free(fake_request(&fk, &l));
	fake_start(&fk, F_REPLY, error_reply(PE_TOOBIG, "64 nodes asked, the partition has 32"));
	rc = call(&fk, PT_SUBMITTED, msg, sizeof msg);
	ok(rc == CLIENT_EXIT_REFUSED &&
	   strcmp(msg, "prog: 64 nodes asked, the partition has 32\n") == 0,
	   "PT_ERROR: exit 1 and its message (%s)", flat(msg));
	fake_end(&fk);
	free(fake_request(&fk, &l));
	fake_start(&fk, F_REPLY, error_reply(PE_DENIED, NULL));
	rc = call(&fk, PT_SUBMITTED, msg, sizeof msg);
	ok(rc == CLIENT_EXIT_REFUSED &&
	   strcmp(msg, "prog: permission denied\n") == 0, "PT_ERROR without a message: the code's name");
	fake_end(&fk);
	free(fake_request(&fk, &l));
	fake_start(&fk, F_REPLY, error_reply(PE_INVALID, "bad\x1b[2Jthing"));
	rc = call(&fk, PT_SUBMITTED, msg, sizeof msg);
	ok(rc == CLIENT_EXIT_REFUSED &&
	   strcmp(msg, "prog: bad?[2Jthing\n") == 0, "the daemon's message is made safe to print");
	fake_end(&fk);
	free(fake_request(&fk, &l));
	fake_start(&fk, F_REPLY, jobs_reply(1));
	rc = call(&fk, PT_SUBMITTED, msg, sizeof msg);
	ok(rc == CLIENT_EXIT_UNREACHABLE &&
	   strstr(msg, "unexpected reply from backfilld (message type 66, expected 65)"),
	   "another type: exit 3 (%s)", flat(msg));
	fake_end(&fk);
	free(fake_request(&fk, &l));
	{
		struct proto_buf bad;

		proto_buf_init(&bad);
		proto_start(&bad, PT_ERROR);
		proto_put_int(&bad, 9, 1);	/* unknown field */
		proto_finish(&bad);
		fake_start(&fk, F_REPLY, &bad);
		rc = call(&fk, PT_SUBMITTED, msg, sizeof msg);
		ok(rc == CLIENT_EXIT_UNREACHABLE &&
		   strstr(msg, "unreadable error reply"), "a malformed PT_ERROR: exit 3 (%s)", flat(msg));
		fake_end(&fk);
		free(fake_request(&fk, &l));
		proto_buf_free(&bad);
	}
	snprintf(fk.path, sizeof fk.path, "%s/none.sock", tmpdir);
	rc = call(&fk, PT_SUBMITTED, msg, sizeof msg);
	ok(rc == CLIENT_EXIT_UNREACHABLE &&
	   strncmp(msg, "prog: cannot reach backfilld: tried ", 36) == 0, "not reached: exit 3");
	unlink(path);
}

/* ---- the programs ---- */

struct result {
	int status;
	char out[8192], err[4096];
};

static void slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = 0;
	if (fd >= 0)
		close(fd);
	unlink(path);
}

/* Run build/PROG with args (NULL-terminated), stdin from `input` (NULL:
 * /dev/null), in directory cwd (NULL: here). */
static void run(struct result *r, const char *input, const char *cwd, const char *prog, ...)
{
	char exe[PATH_MAX + 16], o[300], e[300], in[300];
	const char *argv[64];
	int argc = 0, st = -1;
	va_list ap;
	pid_t pid;

	snprintf(exe, sizeof exe, "%s/%s", bindir, prog);
	snprintf(o, sizeof o, "%s/out", tmpdir);
	snprintf(e, sizeof e, "%s/err", tmpdir);
	snprintf(in, sizeof in, "%s/in", tmpdir);
	if (input) {
		int fd = open(in, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		write_full(fd, input, strlen(input));
		close(fd);
	}
	argv[argc++] = prog;
	va_start(ap, prog);
	while (argc < 63 && (argv[argc] = va_arg(ap, const char *)) != NULL)
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int i = open(input ? in : "/dev/null", O_RDONLY);
		int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(i, 0);
		dup2(fo, 1);
		dup2(fe, 2);
		if (cwd && chdir(cwd) < 0)
			_exit(120);
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	slurp(o, r->out, sizeof r->out);
	slurp(e, r->err, sizeof r->err);
	unlink(in);
}

#define RUN(r, input, cwd, ...) run(r, input, cwd, __VA_ARGS__, (const char *)NULL)

static void write_text(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);

	write_full(fd, s, strlen(s));
	close(fd);
}

static int streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static void prog_bsub(void)
{
	struct fake fk;
	struct result r;
	struct proto_submit m;
	struct proto_arena a = { 0 };
	char script[300], jobdir[300], want[600], sock[200];
	uint8_t *req;
	size_t len;
	bool mark = false;
	static const char text[] = "#!/bin/sh\n#BSUB -J fromscript\n#BSUB -n 9 -o ignored\necho hi\n";

	snprintf(script, sizeof script, "%s/job.sh", tmpdir);
	snprintf(jobdir, sizeof jobdir, "%s/work", tmpdir);
	mkdir(jobdir, 0700);
	write_text(script, text);
	setenv("BF_TEST_MARK", "yes", 1);

	fake_start(&fk, F_REPLY, submitted(42, T0 + 3 * HOUR + 5 * BF_SEC, PS_GUARANTEED));
	RUN(&r, NULL, NULL, "bsub", "--socket", fk.path, "-n", "2", "-t", "1:30", "-cwd", jobdir,
	    "-o", "out.log", script, "arg1", "arg two");
	ok(r.status == 0, "bsub: exit 0 (%s)", flat(r.err));
	ok(streq(r.out, "Job 42 submitted: 2 nodes for 1:30:00, guaranteed to start by "
	                "2026-11-21 17:00:05\n"), "bsub: the guaranteed line (%s)", flat(r.out));
	fake_end(&fk);
	req = fake_request(&fk, &len);
	ok(req && proto_dec_submit(req, len, &m, &a, err, sizeof err) == 0, "bsub sent a PT_SUBMIT");
	if (req && m.cwd) {
		snprintf(want, sizeof want, "%s/out.log", jobdir);
		ok(m.nodes == 2 && m.estimate == 90 * 60 * BF_SEC && streq(m.name, "fromscript"),
		   "command line -n wins over #BSUB, #BSUB -J fills in");
		ok(streq(m.cwd, jobdir) && streq(m.out, want) && streq(m.err, want),
		   "cwd absolute; -o against it, and -e follows -o (%s %s)", m.cwd, m.out);
		ok(m.script_len == sizeof text - 1 && memcmp(m.script, text, m.script_len) == 0,
		   "the script's content, whole");
		ok(m.argc == 2 && streq(m.argv[0], "arg1") && streq(m.argv[1], "arg two"),
		   "the script's arguments");
		for (uint32_t k = 0; k < m.envc; k++)
			mark |= streq(m.env[k], "BF_TEST_MARK=yes");
		ok(mark && m.envc > 1, "the environment is sent (%u entries)", m.envc);
	}
	proto_arena_free(&a);
	free(req);

	fake_start(&fk, F_REPLY, submitted(43, T0, PS_PREDICTED));
	setenv("BACKFILLD_SOCKET", fk.path, 1);
	RUN(&r, "#BSUB -n 1 -W 90s\nhostname\n", tmpdir, "bsub");
	unsetenv("BACKFILLD_SOCKET");
	ok(r.status == 0 && streq(r.out, "Job 43 submitted: 1 node for 0:01:30, predicted to start "
	                                 "at 2026-11-21 14:00:00 (not guaranteed)\n"),
	   "bsub < script: the predicted line, $BACKFILLD_SOCKET (%s%s)", flat(r.out), flat(r.err));
	fake_end(&fk);
	req = fake_request(&fk, &len);
	ok(req && proto_dec_submit(req, len, &m, &a, err, sizeof err) == 0 && !m.name && !m.out &&
	   !m.err && streq(m.cwd, tmpdir) && m.argc == 0,
	   "from stdin: no name, the daemon's default output, cwd the current directory");
	proto_arena_free(&a);
	free(req);

	fake_start(&fk, F_REPLY, submitted(44, 0, PS_NONE));
	RUN(&r, "echo\n", NULL, "bsub", "--socket", fk.path, "-n", "3", "-t", "2h", "-");
	ok(r.status == 0 && streq(r.out, "Job 44 submitted: 3 nodes for 2:00:00, start not known yet\n"),
	   "bsub: start not known (%s)", flat(r.out));
	fake_end(&fk);
	free(fake_request(&fk, &len));

	fake_start(&fk, F_REPLY, error_reply(PE_TOOBIG, "64 nodes asked, the partition has 32"));
	RUN(&r, NULL, NULL, "bsub", "--socket", fk.path, "-n", "64", "-t", "1", script);
	ok(r.status == 1 && streq(r.err, "bsub: 64 nodes asked, the partition has 32\n") && !r.out[0],
	   "bsub refused: exit 1, the daemon's message (%s)", flat(r.err));
	fake_end(&fk);
	free(fake_request(&fk, &len));

	snprintf(sock, sizeof sock, "%s/gone.sock", tmpdir);
	RUN(&r, NULL, NULL, "bsub", "--socket", sock, "-n", "1", "-t", "1", script);
	ok(r.status == 3 && strstr(r.err, "bsub: cannot reach backfilld: tried ") &&
	   strstr(r.err, "(is the daemon running? set BACKFILLD_SOCKET or --socket)"),
	   "bsub, no daemon: exit 3 (%s)", flat(r.err));

	/* Usage errors: exit 2, and the daemon is never asked. */
	write_text(script, "#!/bin/sh\n#BSUB -n 2\n#BSUB -n two\necho\n");
	RUN(&r, NULL, NULL, "bsub", "--socket", sock, "-t", "1", script);
	snprintf(want, sizeof want, "bsub: %s:3: -n: ", script);
	ok(r.status == 2 && strncmp(r.err, want, strlen(want)) == 0, "bad #BSUB line: exit 2 (%s)", flat(r.err));
	write_text(script, "#!/bin/sh\n#BSUB -n 2\necho\n");
	RUN(&r, NULL, NULL, "bsub", "--socket", sock, script);
	/* No -t is no usage error: the daemon applies its default_limit. */
	ok(r.status == 3 && strstr(r.err, "cannot reach backfilld"),
	   "no -t: the request is sent (no daemon here: exit 3) (%s)", flat(r.err));
	RUN(&r, NULL, NULL, "bsub", "--socket", sock, "-n", "0", "-t", "1", script);
	ok(r.status == 2 && strstr(r.err, "-n: a job needs at least 1 node") &&
	   strstr(r.err, "Try 'bsub --help'"), "-n 0: exit 2 (%s)", flat(r.err));
	RUN(&r, NULL, NULL, "bsub", "--socket", sock, "-n", "1", "-t", "1", "-cwd", "/nonexistent/d",
	    script);
	ok(r.status == 2 && strstr(r.err, "working directory /nonexistent/d: No such file"),
	   "a missing -cwd: exit 2 (%s)", flat(r.err));
	RUN(&r, NULL, NULL, "bsub", "--socket", sock, "-n", "1", "-t", "1", "-cwd", script, script);
	ok(r.status == 2 && strstr(r.err, "Not a directory"), "-cwd a file: exit 2 (%s)", flat(r.err));
	snprintf(want, sizeof want, "%s/missing.sh", tmpdir);
	RUN(&r, NULL, NULL, "bsub", "--socket", sock, "-n", "1", "-t", "1", want);
	ok(r.status == 2 && strstr(r.err, "cannot read the script") && strstr(r.err, "No such file"),
	   "an unreadable script: exit 2 (%s)", flat(r.err));
	RUN(&r, "", NULL, "bsub", "--socket", sock, "-n", "1", "-t", "1");
	ok(r.status == 2 && strstr(r.err, "the script (stdin) is empty"), "an empty script: exit 2");
	RUN(&r, NULL, NULL, "bsub", "--help");
	ok(r.status == 0 && strncmp(r.out, "usage: bsub -n NODES [-t TIME]", 30) == 0, "bsub --help");
	RUN(&r, NULL, NULL, "bsub", "--version");
	ok(r.status == 0 && strncmp(r.out, "bsub (backfilld) ", 17) == 0, "bsub --version");
	unlink(script);
	rmdir(jobdir);
	unsetenv("BF_TEST_MARK");
}

static void prog_bq(void)
{
	struct fake fk;
	struct result r;
	struct proto_list l;
	uint8_t *req;
	size_t len;
	char sock[200];

	fake_start(&fk, F_REPLY, jobs_reply(2));
	RUN(&r, NULL, NULL, "bq", "--socket", fk.path);
	/* The dates leave out the year of now: this one, or whole in another. */
	if (!ok(r.status == 0 && strncmp(r.out, "JOBID  USER   NAME  STATE    NODES  LIMIT    START", 50) == 0 &&
	   ((strstr(r.out, "    7  alice  sim   running     64  2:00:00    Nov 21 14:01:00  <=Nov 21 16:01:00\n") &&
	     strstr(r.out, " ~Nov 21 17:00:00   ~Nov 21 18:00:00\n")) ||
	    (strstr(r.out, "    7  alice  sim   running     64  2:00:00    2026-11-21 14:01:00  <=2026-11-21 16:01:00\n") &&
	     strstr(r.out, " ~2026-11-21 17:00:00   ~2026-11-21 18:00:00\n"))) &&
	   strstr(r.out, "\n\n<= at the latest") && strstr(r.out, "~ predicted, not guaranteed\n"),
	   "bq: the table and its legend"))
		printf("#   %s\n#   %s\n", flat(r.out), flat(r.err));
	fake_end(&fk);
	req = fake_request(&fk, &len);
	ok(req && len >= PROTO_HEADER && req[5] == PT_LIST &&
	   proto_dec_list(req, len, &l, err, sizeof err) == 0 && !l.all_users && !l.has_job,
	   "bq sends PT_LIST for the caller's jobs");
	free(req);

	fake_start(&fk, F_REPLY, jobs_reply(0));
	RUN(&r, NULL, NULL, "bq", "-a", "--socket=x", "--socket", fk.path);
	ok(r.status == 0 && streq(r.out, "No jobs.\n"), "bq -a, no jobs (%s)", flat(r.out));
	fake_end(&fk);
	req = fake_request(&fk, &len);
	ok(req && proto_dec_list(req, len, &l, err, sizeof err) == 0 && l.all_users,
	   "bq -a asks for all users; the last --socket wins");
	free(req);

	fake_start(&fk, F_REPLY, jobs_reply(0));
	RUN(&r, NULL, NULL, "bq", "--ended", "1000", "--socket", fk.path);
	fake_end(&fk);
	req = fake_request(&fk, &len);
	ok(r.status == 0 && req && proto_dec_list(req, len, &l, err, sizeof err) == 0 &&
	   l.has_ended && l.ended == 1000, "bq --ended 1000 asks for 1000 ended jobs");
	free(req);
	RUN(&r, NULL, NULL, "bq", "--ended", "1001", "--socket", "/nonexistent");
	ok(r.status == 2 && strstr(r.err, "--ended: '1001' is not a number of jobs from 0 to 1000"),
	   "bq --ended 1001: usage error (%s)", flat(r.err));
	RUN(&r, NULL, NULL, "bq", "--ended=-1", "--socket", "/nonexistent");
	ok(r.status == 2 && strstr(r.err, "'-1' is not a number"), "bq --ended=-1: usage error");
	RUN(&r, NULL, NULL, "bq", "--ended", "5", "-d", "--socket", "/nonexistent");
	ok(r.status == 2 && strstr(r.err, "--ended goes with a listing"),
	   "bq --ended -d: usage error (%s)", flat(r.err));

	fake_start(&fk, F_REPLY, jobs_reply(1));
	RUN(&r, NULL, NULL, "bq", "--socket", fk.path, "-l", "7");
	ok(r.status == 0 && strstr(r.out, "Job:               7\n") &&
	   strstr(r.out, "Node list:         node[001-064]\n"), "bq -l 7 (%s)", flat(r.err));
	fake_end(&fk);
	req = fake_request(&fk, &len);
	ok(req && req[5] == PT_INFO && proto_dec_list(req, len, &l, err, sizeof err) == 0 &&
	   l.has_job && l.job == 7, "bq -l sends PT_INFO for job 7");
	free(req);

	fake_start(&fk, F_REPLY, jobs_reply(1));
	RUN(&r, NULL, NULL, "bq", "--json", "--socket", fk.path, "-l", "7");
	ok(r.status == 0 && strncmp(r.out, "{\"id\":7,\"uid\":1000,\"user\":\"alice\"", 33) == 0 &&
	   strstr(r.out, "\"start_kind\":\"actual\""), "bq -l 7 --json: one object");
	fake_end(&fk);
	free(fake_request(&fk, &len));

	fake_start(&fk, F_REPLY, jobs_reply(1));
	RUN(&r, NULL, NULL, "bq", "--socket", fk.path, "-l", "8");
	ok(r.status == 3 && strstr(r.err, "answered with job 7 for job 8"), "bq -l: the wrong job is exit 3");
	fake_end(&fk);
	free(fake_request(&fk, &len));

	fake_start(&fk, F_REPLY, jobs_reply(2));
	RUN(&r, NULL, NULL, "bq", "--json", "--socket", fk.path);
	ok(r.status == 0 && strncmp(r.out, "[\n {\"id\":7,", 11) == 0 && strstr(r.out, "\n]\n"),
	   "bq --json: an array");
	fake_end(&fk);
	free(fake_request(&fk, &len));

	fake_start(&fk, F_REPLY, error_reply(PE_NOJOB, "no job 99"));
	RUN(&r, NULL, NULL, "bq", "--socket", fk.path, "-l", "99");
	ok(r.status == 1 && streq(r.err, "bq: no job 99\n"), "bq -l 99, refused: exit 1 (%s)", flat(r.err));
	fake_end(&fk);
	free(fake_request(&fk, &len));

	{
		struct proto_step steps[] = { { 0, 5 }, { T0 * 2, 16 } };

		proto_enc_steps(&reply_buf, &(struct proto_steps){ 16, steps, 2 });
		fake_start(&fk, F_REPLY, &reply_buf);
		RUN(&r, NULL, NULL, "bq", "--profile", "--socket", fk.path);
		ok(r.status == 0 && strstr(r.out, "  now   ") && strstr(r.out, "free now: 5 of 16\n") &&
		   strstr(r.out, "|" "#############" "                           |"),
		   "bq --profile (%s%s)", flat(r.out), flat(r.err));
		fake_end(&fk);
		req = fake_request(&fk, &len);
		ok(req && len == PROTO_HEADER && req[5] == PT_PROFILE, "bq --profile sends PT_PROFILE");
		free(req);
		proto_enc_steps(&reply_buf, &(struct proto_steps){ 16, steps, 2 });
		fake_start(&fk, F_REPLY, &reply_buf);
		RUN(&r, NULL, NULL, "bq", "--profile", "--json", "--socket", fk.path);
		ok(r.status == 0 && strncmp(r.out, "{\"nodes\":16,", 12) == 0 &&
		   strstr(r.out, "\"free_now\":5,"), "bq --profile --json");
		fake_end(&fk);
		free(fake_request(&fk, &len));
	}

	fake_start(&fk, F_REPLY, submitted(1, 1, PS_NONE));
	RUN(&r, NULL, NULL, "bq", "--socket", fk.path);
	ok(r.status == 3 && strstr(r.err, "unexpected reply"), "bq given a PT_SUBMITTED: exit 3");
	fake_end(&fk);
	free(fake_request(&fk, &len));
	{
		struct proto_buf bad;

		proto_buf_init(&bad);
		proto_start(&bad, PT_JOBS);
		proto_put_int(&bad, 1, 5);	/* a job must be a group */
		proto_finish(&bad);
		fake_start(&fk, F_REPLY, &bad);
		RUN(&r, NULL, NULL, "bq", "--socket", fk.path);
		ok(r.status == 3 && strstr(r.err, "bq: unreadable reply from backfilld: "),
		   "bq, a malformed PT_JOBS: exit 3 (%s)", flat(r.err));
		fake_end(&fk);
		free(fake_request(&fk, &len));
		proto_buf_free(&bad);
	}

	snprintf(sock, sizeof sock, "%s/gone.sock", tmpdir);
	RUN(&r, NULL, NULL, "bq", "--socket", sock);
	ok(r.status == 3, "bq, no daemon: exit 3");
	RUN(&r, NULL, NULL, "bq", "--socket", sock, "-l");
	ok(r.status == 2 && strstr(r.err, "-l needs a job ID"), "bq -l without an ID: exit 2");
	RUN(&r, NULL, NULL, "bq", "--socket", sock, "-l", "x7");
	ok(r.status == 2, "bq -l x7: exit 2");
	RUN(&r, NULL, NULL, "bq", "--socket", sock, "-l", "0");
	ok(r.status == 2, "bq -l 0: exit 2");
	RUN(&r, NULL, NULL, "bq", "--socket", sock, "-x");
	ok(r.status == 2 && strstr(r.err, "unknown option '-x'"), "bq -x: exit 2");
	RUN(&r, NULL, NULL, "bq", "--socket", sock, "42", "x");
	ok(r.status == 2 && strstr(r.err, "'x' (not a job ID"), "bq 42 x: exit 2 (%s)", flat(r.err));
	RUN(&r, NULL, NULL, "bq", "--socket", sock, "--profile", "-l", "3");
	ok(r.status == 2, "--profile with -l: exit 2");
	RUN(&r, NULL, NULL, "bq", "--socket", sock, "-a", "-l", "3");
	ok(r.status == 2, "-a with -l: exit 2");
	RUN(&r, NULL, NULL, "bq", "--socket");
	ok(r.status == 2, "--socket without a value: exit 2");
	RUN(&r, NULL, NULL, "bq", "--help");
	ok(r.status == 0 && strncmp(r.out, "usage: bq", 9) == 0, "bq --help");
	RUN(&r, NULL, NULL, "bq", "-V");
	ok(r.status == 0 && strncmp(r.out, "bq (backfilld) ", 15) == 0, "bq -V");
}

static void prog_bkill(void)
{
	struct fake fk;
	struct result r;
	struct proto_cancel c;
	struct proto_arena a = { 0 };
	uint64_t ids[] = { 41, 42, 43, 44 };
	enum proto_err codes[] = { PE_OK, PE_NOJOB, PE_DENIED, PE_DONE };
	uint8_t *req;
	size_t len;
	char sock[200];

	proto_enc_cancelled(&reply_buf, &(struct proto_cancelled){ ids, codes, 4 });
	fake_start(&fk, F_REPLY, &reply_buf);
	RUN(&r, NULL, NULL, "bkill", "--socket", fk.path, "41", "42", "43", "41", "44");
	ok(r.status == 1 && streq(r.out, "Job 41: cancelled\nJob 42: no such job\nJob 43: not your job\n"
	                                 "Job 44: already ended\n"),
	   "bkill: a line per job, exit 1 when one was not cancelled (%s)", flat(r.out));
	fake_end(&fk);
	req = fake_request(&fk, &len);
	ok(req && proto_dec_cancel(req, len, &c, &a, err, sizeof err) == 0 && c.count == 4 &&
	   c.ids[0] == 41 && c.ids[3] == 44, "one PT_CANCEL with every id, repeats dropped");
	proto_arena_free(&a);
	free(req);

	proto_enc_cancelled(&reply_buf, &(struct proto_cancelled){ ids, codes, 1 });
	fake_start(&fk, F_REPLY, &reply_buf);
	RUN(&r, NULL, NULL, "bkill", "--socket", fk.path, "41");
	ok(r.status == 0 && streq(r.out, "Job 41: cancelled\n"), "bkill 41: exit 0");
	fake_end(&fk);
	free(fake_request(&fk, &len));

	proto_enc_cancelled(&reply_buf, &(struct proto_cancelled){ ids, codes, 1 });
	fake_start(&fk, F_REPLY, &reply_buf);
	RUN(&r, NULL, NULL, "bkill", "--socket", fk.path, "41", "50");
	ok(r.status == 3 && strstr(r.out, "Job 50: no answer from backfilld"),
	   "an id missing from the reply: exit 3");
	fake_end(&fk);
	free(fake_request(&fk, &len));

	fake_start(&fk, F_REPLY, error_reply(PE_INTERNAL, "the store failed"));
	RUN(&r, NULL, NULL, "bkill", "--socket", fk.path, "41");
	ok(r.status == 1 && streq(r.err, "bkill: the store failed\n"), "bkill refused: exit 1");
	fake_end(&fk);
	free(fake_request(&fk, &len));

	snprintf(sock, sizeof sock, "%s/gone.sock", tmpdir);
	RUN(&r, NULL, NULL, "bkill", "--socket", sock, "41");
	ok(r.status == 3 && strstr(r.err, "cannot reach backfilld"), "bkill, no daemon: exit 3");
	RUN(&r, NULL, NULL, "bkill", "--socket", sock);
	ok(r.status == 2 && strstr(r.err, "which jobs?"), "bkill without ids: exit 2");
	RUN(&r, NULL, NULL, "bkill", "--socket", sock, "0");
	ok(r.status == 3 && strstr(r.err, "cannot reach backfilld"),
	   "bkill 0 asks the daemon for your jobs (none here: exit 3)");
	RUN(&r, NULL, NULL, "bkill", "--socket", sock, "-u");
	ok(r.status == 2 && strstr(r.err, "-u needs a user"), "bkill -u without a user: exit 2");
	RUN(&r, NULL, NULL, "bkill", "--socket", sock, "-5");
	ok(r.status == 2 && strstr(r.err, "'-5' is not a job ID"), "bkill -5: exit 2 (%s)", flat(r.err));
	RUN(&r, NULL, NULL, "bkill", "--socket", sock, "12", "x");
	ok(r.status == 2 && !r.out[0], "bkill 12 x: exit 2, nothing cancelled");
	RUN(&r, NULL, NULL, "bkill", "--socket", sock, "99999999999999999999");
	ok(r.status == 2, "bkill, an id over 64 bits: exit 2");
	RUN(&r, NULL, NULL, "bkill", "-q", "1");
	ok(r.status == 2 && strstr(r.err, "unknown option '-q'"), "bkill -q: exit 2");
	RUN(&r, NULL, NULL, "bkill", "--help");
	ok(r.status == 0 && strncmp(r.out, "usage: bkill", 12) == 0, "bkill --help");
	RUN(&r, NULL, NULL, "bkill", "--version");
	ok(r.status == 0 && strncmp(r.out, "bkill (backfilld) ", 18) == 0, "bkill --version");
}

int main(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	char *slash;

	signal(SIGPIPE, SIG_IGN);
	client_set_tz("UTC");
	unsetenv("BACKFILLD_SOCKET");
	proto_buf_init(&reply_buf);
	proto_buf_init(&req_buf);
	if (!mkdtemp(tmpdir)) {
		ok(0, "a temporary directory");
		return tap_done();
	}
	/* The programs are beside the tests' directory: BUILD/tests/.. */
	self[n > 0 ? n : 0] = 0;
	if ((slash = strrchr(self, '/')))
		*slash = 0;
	if ((slash = strrchr(self, '/')))
		*slash = 0;
	snprintf(bindir, sizeof bindir, "%s", self);

	transport();
	calls();
	prog_bsub();
	prog_bq();
	prog_bkill();

	rmdir(tmpdir);
	proto_buf_free(&reply_buf);
	proto_buf_free(&req_buf);
	return tap_done();
}
