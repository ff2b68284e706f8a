/* The clients' transport and display helpers; see client.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "errf.h"
#include "client.h"
#include "paths.h"
#include "where.h"

int client_timeout_ms = CLIENT_TIMEOUT_MS;

/* ---- transport ---- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for `events` or the deadline passes: 1, or 0 on
 * timeout, or -1 on error (errno). */
static int wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ms();
		struct pollfd p = { .fd = fd, .events = events };
		int r;

		if (left <= 0)
			return 0;
		r = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

/* Write all of buf. 0; -1 with errno (ETIMEDOUT at the deadline). */
static int send_all(int fd, const uint8_t *buf, size_t len, int64_t deadline)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);
		int r;

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		if ((r = wait_fd(fd, POLLOUT, deadline)) <= 0) {
			if (r == 0)
				errno = ETIMEDOUT;
			return -1;
		}
	}
	return 0;
}

/* Read up to len bytes, stopping early only at the end of the stream.
 * Returns how many were read (< len: the peer closed), or -1 with errno
 * (ETIMEDOUT at the deadline). */
static ssize_t recv_all(int fd, uint8_t *buf, size_t len, int64_t deadline)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = recv(fd, buf + off, len - off, 0);
		int r;

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		if ((r = wait_fd(fd, POLLIN, deadline)) <= 0) {
			if (r == 0)
				errno = ETIMEDOUT;
			return -1;
		}
	}
	return (ssize_t)off;
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int seconds(int ms)
{
	return (ms + 999) / 1000;
}

/* Append "; PATH (SOURCE): REASON" (without "; " the first time) to the
 * list of what was tried, as far as it fits. */
static void tried_add(char *list, size_t len, const char *path, const char *src,
                      const char *src_file, const char *reason)
{
	size_t used = strlen(list);
	int n;

	if (used + 4 >= len)
		return;
	n = snprintf(list + used, len - used, "%s%s (%s%s%s): %s", used ? "; " : "", path, src,
	             src_file ? " in " : "", src_file ? src_file : "", reason);
	if (n < 0 || (size_t)n >= len - used)	/* cut: say so */
		memcpy(list + len - 4, "...", 4);
}

/* Found by the search (not --socket or BACKFILLD_SOCKET), the daemon at
 * w->c[k] may hide another that answers further down the list (a user's
 * own daemon behind the system one): said once a run, on standard error,
 * naming the one talked to and how to reach the other. */
static void say_others(const struct where *w, size_t k)
{
	static bool said;
	char why[512];

	if (said || w->c[k].src == WHERE_FLAG || w->c[k].src == WHERE_ENV)
		return;
	said = true;
	for (size_t o = k + 1; o < w->n; o++) {
		const struct where_cand *c = &w->c[o];

		if (c->private_dir && paths_private_dir(c->path, false, why, sizeof why) < 0)
			continue;
		if (!paths_answers(c->path))
			continue;
		fprintf(stderr, "%s: note: talking to backfilld at %s (%s); another answers at %s "
		        "(%s): --socket %s or %s=%s reaches it\n", program_invocation_short_name,
		        w->c[k].path, where_src_name(w->c[k].src), c->path, where_src_name(c->src),
		        c->path, PATHS_ENV_SOCKET, c->path);
	}
}

/* Connect to the first candidate of w that answers (where.h: an implicit
 * candidate with no socket file is passed over, anything else ends the
 * search). Returns the connected socket with *used set, or -1 with err
 * listing every path tried and why each failed. */
static int connect_where(const struct where *w, const struct where_cand **used, char *err,
                         size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int64_t ms = client_timeout_ms;
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
	char tried[2048] = "", why[512];
	int e = 0;

	if (w->config_note[0])
		tried_add(tried, sizeof tried, w->config, "config file", NULL, w->config_note);
	for (size_t k = 0; k < w->n; k++) {
		const struct where_cand *c = &w->c[k];
		const char *src = where_src_name(c->src);
		const char *file = c->src == WHERE_CONFIG ? w->config : NULL;
		size_t plen = strlen(c->path);
		int fd, r;

		e = 0;
		if (plen >= sizeof sa.sun_path) {
			snprintf(why, sizeof why, "the path is %zu bytes, and a Unix socket path can have "
			         "at most %zu (use a shorter one)", plen, sizeof sa.sun_path - 1);
			tried_add(tried, sizeof tried, c->path, src, file, why);
			break;
		}
		errno = 0;
		if (c->private_dir && paths_private_dir(c->path, false, why, sizeof why) < 0) {
			e = errno == ENOENT ? ENOENT : 0;
			tried_add(tried, sizeof tried, c->path, src, file, why);
			break;
		}
		memcpy(sa.sun_path, c->path, plen + 1);
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			return errf(err, errlen, "cannot create a socket: %s", strerror(errno));
		/* A Unix stream connect blocks only while the daemon's backlog
		 * is full, and gives up after the send timeout. */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
		while ((r = connect(fd, (const struct sockaddr *)&sa, sizeof sa)) < 0 && errno == EINTR)
			;
		if (r == 0) {
			*used = c;
			say_others(w, k);
			return fd;
		}
		e = errno;
		close(fd);
		if (e == EAGAIN || e == EWOULDBLOCK || e == EINPROGRESS || e == ETIMEDOUT)
			return errf(err, errlen, "backfilld at %s did not accept the connection "
			            "within %d s (is it overloaded or stopped?)", c->path,
			            seconds(client_timeout_ms));
		tried_add(tried, sizeof tried, c->path, src, file, strerror(e));
		if (!(e == ENOENT && c->may_skip))
			break;
	}
	return errf(err, errlen, "cannot reach backfilld: tried %s%s", tried,
	            e == ENOENT || e == ECONNREFUSED
	            ? " (is the daemon running? set BACKFILLD_SOCKET or --socket)" : "");
}

int client_request(const char *socket_opt, const struct proto_buf *req, uint8_t **reply,
                   size_t *reply_len, enum proto_type *type, char *err, size_t errlen)
{
	struct where w;

	*reply = NULL;
	*reply_len = 0;
	if (where_resolve(socket_opt, geteuid() == 0, &w, err, errlen) < 0)
		return -1;
	return client_request_at(&w, req, reply, reply_len, type, err, errlen);
}

int client_request_at(const struct where *w, const struct proto_buf *req, uint8_t **reply,
                      size_t *reply_len, enum proto_type *type, char *err, size_t errlen)
{
	return client_request_via(w, req, reply, reply_len, type, NULL, err, errlen);
}

int client_request_via(const struct where *w, const struct proto_buf *req, uint8_t **reply,
                       size_t *reply_len, enum proto_type *type, size_t *used, char *err,
                       size_t errlen)
{
	const struct where_cand *cand = NULL;
	const char *path;
	char why[256];
	uint8_t hdr[PROTO_HEADER], *buf = NULL;
	int64_t deadline = now_ms() + client_timeout_ms;
	int fd = -1, send_errno = 0;
	size_t flen = 0;
	ssize_t got;

	*reply = NULL;
	*reply_len = 0;
	if (!req || !req->p || req->len < PROTO_HEADER)
		return errf(err, errlen, "internal error: no request to send");
	if ((fd = connect_where(w, &cand, err, errlen)) < 0)
		return -1;
	path = cand->path;
	if (used)
		*used = (size_t)(cand - w->c);
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		int e = errno;

		close(fd);
		return errf(err, errlen, "cannot set up the socket: %s", strerror(e));
	}

	/* The daemon may refuse a request before reading all of it (too big),
	 * answer PT_ERROR and close: then sending fails, but its answer can
	 * still be read. */
	if (send_all(fd, req->p, req->len, deadline) < 0) {
		send_errno = errno;
		if (send_errno == ETIMEDOUT) {
			close(fd);
			return errf(err, errlen, "backfilld at %s did not take the request within %d s",
			            path, seconds(client_timeout_ms));
		}
	}

	got = recv_all(fd, hdr, PROTO_HEADER, deadline);
	if (got < 0)
		goto io_error;
	if (got < PROTO_HEADER) {
		close(fd);
		if (got == 0 && send_errno)
			return errf(err, errlen, "backfilld at %s closed the connection while the "
			            "request was sent (%s)", path, strerror(send_errno));
		if (got == 0)
			return errf(err, errlen, "backfilld at %s closed the connection without a reply",
			            path);
		return errf(err, errlen, "backfilld at %s closed the connection in the middle of "
		            "a reply", path);
	}
	if (proto_frame(hdr, PROTO_HEADER, &flen, type, why, sizeof why) < 0) {
		close(fd);
		return errf(err, errlen, "unreadable reply from backfilld at %s: %s", path, why);
	}
	flen = PROTO_HEADER + (size_t)rd32(hdr);	/* proto_frame checked the limit */
	if (!(buf = malloc(flen))) {
		close(fd);
		return errf(err, errlen, "out of memory for a %zu-byte reply", flen);
	}
	memcpy(buf, hdr, PROTO_HEADER);
	got = recv_all(fd, buf + PROTO_HEADER, flen - PROTO_HEADER, deadline);
	if (got < 0)
		goto io_error;
	close(fd);
	fd = -1;
	if ((size_t)got < flen - PROTO_HEADER) {
		free(buf);
		return errf(err, errlen, "backfilld at %s closed the connection in the middle of "
		            "a reply (%zu of %zu bytes)", path, PROTO_HEADER + (size_t)got, flen);
	}
	if (proto_frame(buf, flen, &flen, type, why, sizeof why) != 1) {
		free(buf);
		return errf(err, errlen, "unreadable reply from backfilld at %s: %s", path, why);
	}
	*reply = buf;
	*reply_len = flen;
	return 0;

io_error:
	{
		int e = errno;

		free(buf);
		close(fd);
		if (e == ETIMEDOUT)
			return errf(err, errlen, "no reply from backfilld at %s within %d s", path,
			            seconds(client_timeout_ms));
		return errf(err, errlen, "reading the reply from backfilld at %s: %s", path,
		            strerror(e));
	}
}

int client_job_info(const char *prog, const char *socket_opt, uint64_t id, struct proto_job *job,
                    struct proto_arena *a, uint8_t **reply)
{
	return client_element_info(prog, socket_opt, id, 0, job, a, reply);
}

int client_element_info(const char *prog, const char *socket_opt, uint64_t id, uint32_t index,
                        struct proto_job *job, struct proto_arena *a, uint8_t **reply)
{
	struct proto_buf req;
	struct proto_jobs js;
	size_t len = 0;
	char err[512];
	int rc;

	*reply = NULL;
	proto_buf_init(&req);
	if (proto_enc_list(&req, PT_INFO, &(struct proto_list){ .has_job = true, .job = id,
	                                                        .index = index }) < 0) {
		proto_buf_free(&req);
		fprintf(stderr, "%s: out of memory\n", prog);
		return CLIENT_EXIT_UNREACHABLE;
	}
	rc = client_call(prog, socket_opt, &req, PT_JOBS, reply, &len);
	proto_buf_free(&req);
	if (rc != 0)
		return rc;
	if (proto_dec_jobs(*reply, len, &js, a, err, sizeof err) < 0) {
		fprintf(stderr, "%s: unreadable reply from backfilld: %s\n", prog, err);
		return CLIENT_EXIT_UNREACHABLE;
	}
	if (js.count == 0 || (index ? js.jobs[0].array_id != id || js.jobs[0].array_index != index :
	                      js.jobs[0].id != id))
		return CLIENT_EXIT_NOJOB;
	*job = js.jobs[0];
	return 0;
}

int client_call(const char *prog, const char *socket_opt, const struct proto_buf *req,
                enum proto_type want, uint8_t **reply, size_t *reply_len)
{
	char err[2048];
	struct where w;

	*reply = NULL;
	*reply_len = 0;
	if (where_resolve(socket_opt, geteuid() == 0, &w, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return CLIENT_EXIT_UNREACHABLE;
	}
	return client_call_at(prog, &w, req, want, reply, reply_len, NULL);
}

int client_call_at(const char *prog, const struct where *w, const struct proto_buf *req,
                   enum proto_type want, uint8_t **reply, size_t *reply_len, size_t *used)
{
	char err[2048];
	enum proto_type type;

	*reply = NULL;
	*reply_len = 0;
	/* A broken configuration file is the administrator's to fix; the
	 * user still gets an answer, and a line saying why it may be wrong. */
	if (w->warning[0]) {
		fprintf(stderr, "%s: warning: ", prog);
		client_put_text(stderr, w->warning, 0);
		fputc('\n', stderr);
	}
	if (client_request_via(w, req, reply, reply_len, &type, used, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return CLIENT_EXIT_UNREACHABLE;
	}
	if (type == PT_ERROR) {
		struct proto_error e;
		struct proto_arena a = { 0 };
		int rc = CLIENT_EXIT_REFUSED;

		if (proto_dec_error(*reply, *reply_len, &e, &a, err, sizeof err) < 0) {
			fprintf(stderr, "%s: unreadable error reply from backfilld: %s\n", prog, err);
			rc = CLIENT_EXIT_UNREACHABLE;
		} else {
			fprintf(stderr, "%s: ", prog);
			client_put_text(stderr, e.message && *e.message ? e.message
			                                                : proto_err_name(e.code), 0);
			fputc('\n', stderr);
		}
		proto_arena_free(&a);
		free(*reply);
		*reply = NULL;
		*reply_len = 0;
		return rc;
	}
	if (type != want) {
		fprintf(stderr, "%s: unexpected reply from backfilld (message type %u, expected %u)\n",
		        prog, (unsigned)type, (unsigned)want);
		free(*reply);
		*reply = NULL;
		*reply_len = 0;
		return CLIENT_EXIT_UNREACHABLE;
	}
	return 0;
}

/* ---- times ---- */

/* Whole seconds, rounded down (also for times before the epoch). */
static int to_time_t(bf_time t, time_t *out)
{
	bf_time s = t / BF_SEC - (t % BF_SEC < 0);

	if (t >= BF_NEVER || s > (bf_time)INT32_MAX * 1000 || s < -(bf_time)INT32_MAX * 1000)
		return -1;
	*out = (time_t)s;
	return 0;
}

/* Two digits of v (0-99) at p. */
static void put2(char *p, int v)
{
	p[0] = (char)('0' + v / 10);
	p[1] = (char)('0' + v % 10);
}

/* localtime_r through a small cache of quarter hours: every UTC offset
 * is a multiple of 15 minutes and changes at a whole quarter hour (UTC),
 * so within a quarter hour of UTC the local time is the quarter's start
 * plus the seconds since, in the same hour. bq -a converts two or three
 * times a row, most near those of the row before. The cache is for the
 * zone in force at the first call: client_set_tz changes it. */
#define QUARTER 900
#define QUARTERS 64

static struct quarter {
	bool set;
	time_t start;
	struct tm tm;
} quarters[QUARTERS];

int client_set_tz(const char *tz)
{
	int rc = tz ? setenv("TZ", tz, 1) : unsetenv("TZ");

	tzset();
	memset(quarters, 0, sizeof quarters);
	return rc;
}

static bool local_time(time_t s, struct tm *tm)
{
	time_t start = s - ((s % QUARTER) + QUARTER) % QUARTER;
	struct quarter *q = &quarters[(uint64_t)(start / QUARTER) % QUARTERS];
	int since = (int)(s - start);

	if (!q->set || q->start != start) {
		if (!localtime_r(&start, &q->tm)) {
			q->set = false;
			return false;
		}
		q->set = q->tm.tm_sec == 0 && q->tm.tm_min % 15 == 0;
		q->start = start;
		if (!q->set)	/* an offset that is not whole quarters (before 1900) */
			return localtime_r(&s, tm) != NULL;
	}
	*tm = q->tm;
	tm->tm_min += since / 60;
	tm->tm_sec = since % 60;
	return true;
}

/* "YYYY-MM-DD HH:MM:SS" by hand: bq -a formats two or three times a row,
 * and strftime was a fifth of the listing's cost. */
int client_format_time(bf_time t, char *buf, size_t len)
{
	struct tm tm;
	time_t s;
	char tmp[20];
	int y;

	if (to_time_t(t, &s) < 0 || !local_time(s, &tm))
		return snprintf(buf, len, "?");
	y = tm.tm_year + 1900;
	if (y < 0 || y > 9999)
		return snprintf(buf, len, "%d-%02d-%02d %02d:%02d:%02d", y, tm.tm_mon + 1,
		                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	put2(tmp, y / 100);
	put2(tmp + 2, y % 100);
	tmp[4] = '-';
	put2(tmp + 5, tm.tm_mon + 1);
	tmp[7] = '-';
	put2(tmp + 8, tm.tm_mday);
	tmp[10] = ' ';
	put2(tmp + 11, tm.tm_hour);
	tmp[13] = ':';
	put2(tmp + 14, tm.tm_min);
	tmp[16] = ':';
	put2(tmp + 17, tm.tm_sec);
	tmp[19] = '\0';
	if (len) {
		size_t n = len - 1 < sizeof tmp - 1 ? len - 1 : sizeof tmp - 1;

		memcpy(buf, tmp, n);
		buf[n] = '\0';
	}
	return (int)sizeof tmp - 1;
}

bf_time client_wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (bf_time)ts.tv_sec * BF_SEC + ts.tv_nsec / 1000;
}

int client_format_time_short(bf_time t, bf_time now, char *buf, size_t len)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
	                                    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm, tn;
	time_t s, n;

	if (to_time_t(t, &s) < 0 || !local_time(s, &tm) || to_time_t(now, &n) < 0 ||
	    !local_time(n, &tn) || tm.tm_year != tn.tm_year || tm.tm_mon < 0 || tm.tm_mon > 11)
		return client_format_time(t, buf, len);
	return snprintf(buf, len, "%s %2d %02d:%02d:%02d", months[tm.tm_mon], tm.tm_mday, tm.tm_hour,
	                tm.tm_min, tm.tm_sec);
}

int client_format_iso(bf_time t, char *buf, size_t len)
{
	struct tm tm;
	time_t s;
	char tmp[64];

	if (to_time_t(t, &s) < 0 || !gmtime_r(&s, &tm) ||
	    strftime(tmp, sizeof tmp, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return snprintf(buf, len, "?");
	return snprintf(buf, len, "%s", tmp);
}

int client_format_seconds(bf_time us, char *buf, size_t len)
{
	uint64_t mag = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
	unsigned frac = (unsigned)(mag % (uint64_t)BF_SEC);
	char digits[8];
	int n;

	if (!frac)
		return snprintf(buf, len, "%s%" PRIu64, us < 0 ? "-" : "", mag / (uint64_t)BF_SEC);
	snprintf(digits, sizeof digits, "%06u", frac);
	for (n = 6; n > 0 && digits[n - 1] == '0'; n--)
		;
	return snprintf(buf, len, "%s%" PRIu64 ".%.*s", us < 0 ? "-" : "", mag / (uint64_t)BF_SEC,
	                n, digits);
}

/* ---- exit statuses ---- */

const char *client_signal_name(int sig)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
		{ SIGHUP, "HUP" }, { SIGINT, "INT" }, { SIGQUIT, "QUIT" }, { SIGILL, "ILL" },
		{ SIGTRAP, "TRAP" }, { SIGABRT, "ABRT" }, { SIGBUS, "BUS" }, { SIGFPE, "FPE" },
		{ SIGKILL, "KILL" }, { SIGUSR1, "USR1" }, { SIGSEGV, "SEGV" }, { SIGUSR2, "USR2" },
		{ SIGPIPE, "PIPE" }, { SIGALRM, "ALRM" }, { SIGTERM, "TERM" }, { SIGCHLD, "CHLD" },
		{ SIGCONT, "CONT" }, { SIGSTOP, "STOP" }, { SIGTSTP, "TSTP" }, { SIGTTIN, "TTIN" },
		{ SIGTTOU, "TTOU" }, { SIGURG, "URG" }, { SIGXCPU, "XCPU" }, { SIGXFSZ, "XFSZ" },
		{ SIGVTALRM, "VTALRM" }, { SIGPROF, "PROF" }, { SIGWINCH, "WINCH" }, { SIGIO, "IO" },
		{ SIGSYS, "SYS" },
	};

	for (size_t k = 0; k < sizeof names / sizeof *names; k++)
		if (names[k].sig == sig)
			return names[k].name;
	return NULL;
}

int client_exit_status(int32_t status, char *buf, size_t len)
{
	int st = (int)status;

	if (WIFEXITED(st))
		return snprintf(buf, len, "exit code %d", WEXITSTATUS(st));
	if (WIFSIGNALED(st)) {
		const char *name = client_signal_name(WTERMSIG(st));
		const char *core = WCOREDUMP(st) ? ", core dumped" : "";

		if (name)
			return snprintf(buf, len, "killed by signal %d (SIG%s)%s", WTERMSIG(st), name,
			                core);
		return snprintf(buf, len, "killed by signal %d%s", WTERMSIG(st), core);
	}
	return snprintf(buf, len, "wait status 0x%x", (unsigned)st);
}

int client_exit_short(int32_t status, char *buf, size_t len)
{
	int st = (int)status;

	if (WIFEXITED(st))
		return snprintf(buf, len, "%d", WEXITSTATUS(st));
	if (WIFSIGNALED(st)) {
		const char *name = client_signal_name(WTERMSIG(st));
		const char *core = WCOREDUMP(st) ? "+core" : "";

		if (name)
			return snprintf(buf, len, "SIG%s%s", name, core);
		return snprintf(buf, len, "signal %d%s", WTERMSIG(st), core);
	}
	return snprintf(buf, len, "0x%x", (unsigned)st);
}

/* ---- text ---- */

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0 if the bytes
 * there are not one. p is NUL-terminated. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;		/* no surrogates */
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t k = 2; k < n; k++)
		if (p[k] < 0x80 || p[k] > 0xbf)
			return 0;
	return n;
}

/* One character of s for a terminal: its bytes, or "?" (control
 * characters, C1 controls, invalid bytes). Advances *p. */
static size_t next_char(const unsigned char **p, const char **out)
{
	const unsigned char *s = *p;
	size_t n = utf8_len(s);

	if (n == 0 || s[0] < 0x20 || s[0] == 0x7f || (s[0] == 0xc2 && s[1] < 0xa0)) {
		*p = s + (n ? n : 1);
		*out = "?";
		return 1;
	}
	*p = s + n;
	*out = (const char *)s;
	return n;
}

static size_t put_or_count(FILE *f, const char *s, size_t width)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t total = 0, cols = 0, len = 0;

	/* The common case, printable ASCII that fits: as it is, in one write
	 * (a listing of thousands of rows is mostly this). */
	while (p[len] >= 0x20 && p[len] < 0x7f)
		len++;
	if (!p[len] && (!width || len <= width)) {
		if (f)
			fwrite(p, 1, len, f);
		return len;
	}

	for (const unsigned char *q = p; *q;) {
		const char *c;

		next_char(&q, &c);
		total++;
	}
	while (*p) {
		const char *c;
		size_t n;

		if (width && total > width && cols == width - 1) {
			if (f)
				fputc('+', f);
			return width;
		}
		n = next_char(&p, &c);
		if (f)
			fwrite(c, 1, n, f);
		cols++;
	}
	return cols;
}

size_t client_put_text(FILE *f, const char *s, size_t width)
{
	return put_or_count(f, s, width);
}

size_t client_text_width(const char *s, size_t width)
{
	return put_or_count(NULL, s, width);
}

void client_put_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*p) {
		size_t n = utf8_len(p);

		if (n == 0) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fwrite(p, 1, n, f);
		}
		p += n;
	}
	fputc('"', f);
}

/* ---- ids, results ---- */

int client_parse_id(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -1;
	for (const char *p = s; *p; p++) {
		unsigned d;

		if (*p < '0' || *p > '9')
			return -1;
		d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (v == 0)
		return -1;
	*out = v;
	return 0;
}

const char *client_cancel_result(enum proto_err code)
{
	switch (code) {
	case PE_OK: return "cancelled";
	case PE_NOJOB: return "no such job";
	case PE_DENIED: return "not your job";
	case PE_DONE: return "already ended";
	case PE_BUSY: return "the daemon is busy; try again";
	default: return proto_err_name(code);
	}
}

bool client_user_known(const char *user)
{
	uint64_t uid;

	return strcmp(user, "all") == 0 || getpwnam(user) || strcmp(user, "0") == 0 ||
	       (client_parse_id(user, &uid) == 0 && uid <= UINT32_MAX);
}

bool client_job_of(const struct proto_job *j, const char *user)
{
	char uid[16];

	snprintf(uid, sizeof uid, "%u", j->uid);
	return (j->user && strcmp(j->user, user) == 0) || strcmp(uid, user) == 0;
}
