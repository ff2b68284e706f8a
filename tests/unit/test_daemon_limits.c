/* The daemon under a denial-of-service attack (findings 4 and 5 of the
 * security review): an unprivileged user floods it with connections that
 * announce 4 MiB requests and stall, trickles a request byte by byte, and
 * holds idle connections; sixteen users fill every slot they may; and a
 * daemon with few file descriptors is filled. Throughout, the daemon's
 * memory stays bounded, root and another user are served, the attacker is
 * told PE_BUSY over its caps, and the log does not grow by a line per
 * refusal. Starts the real backfilld (from $BF_BUILD) as root on a
 * temporary socket and stops it by its pid; needs root (to be root and to
 * play other users), and skips otherwise.
 *
 * Nothing here passes or fails on a measured time: the waits are bounds
 * far above what the daemon's limits need (its request deadline is 5 s). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bf_time.h"
#include "sys/log.h"
#include "proto.h"
#include "tap.h"

#define FLOOD      1100		/* connections of the flood (the old cap was 1024) */
#define IDLE       100		/* idle connections the attacker then opens */
#define OTHER_UID  12345	/* another user, with no passwd entry */
#define SLOW_UID   12346	/* the slowloris */
#define FILL_UIDS  16		/* users that fill every slot but root's */
#define RSS_BOUND_MIB 150

static char dir[] = "/tmp/test_limits.XXXXXX";
static char sock[300], logpath[320];
static pid_t daemon_pid;
static uint8_t *flood_frame;	/* a 4 MiB submit's header, then zeros */
static const size_t flood_target = PROTO_HEADER + PROTO_MAX_PAYLOAD - 1;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A non-blocking connection to the daemon; -1 with errno (EAGAIN: its
 * backlog is full, try again). */
static int dial(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), e;

	if (fd < 0)
		return -1;
	memcpy(sun.sun_path, sock, strlen(sock) + 1);
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0)
		return fd;
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/* dial(), retrying a full backlog for up to 5 s. */
static int dial_wait(void)
{
	int64_t until = now_ms() + 5000;
	int fd;

	while ((fd = dial()) < 0 && errno == EAGAIN && now_ms() < until)
		usleep(2000);
	return fd;
}

enum outcome { O_CLOSED, O_BUSY_CONN, O_BUSY_MEM, O_OTHER };

/* What the daemon said on a connection that became readable: PE_BUSY
 * over a connection cap or over the memory budget, something else, or a
 * close without a word. Closes fd. */
static enum outcome outcome_of(int fd, char *msg, size_t msglen)
{
	uint8_t buf[8192];
	size_t got = 0, flen;
	enum proto_type type;
	enum outcome o = O_OTHER;
	char err[200];
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (got < sizeof buf && poll(&p, 1, 1000) == 1) {
		ssize_t n = read(fd, buf + got, sizeof buf - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (msg && msglen)
		msg[0] = 0;
	if (got == 0)
		return O_CLOSED;
	if (proto_frame(buf, got, &flen, &type, err, sizeof err) == 1 && type == PT_ERROR) {
		struct proto_error e;
		struct proto_arena a = { 0 };

		if (proto_dec_error(buf, flen, &e, &a, err, sizeof err) == 0 && e.code == PE_BUSY)
			o = e.message && strstr(e.message, "connections") ? O_BUSY_CONN : O_BUSY_MEM;
		if (msg && msglen && e.message)
			snprintf(msg, msglen, "%s", e.message);
		proto_arena_free(&a);
	}
	return o;
}

static int start_daemon(rlim_t nofile)
{
	const char *build = getenv("BF_BUILD");
	char bin[512], db[320], spool[320];

	snprintf(bin, sizeof bin, "%s/backfilld", build ? build : "build");
	snprintf(sock, sizeof sock, "%s/s.sock", dir);
	snprintf(db, sizeof db, "%s/state.db", dir);
	snprintf(spool, sizeof spool, "%s/spool", dir);
	snprintf(logpath, sizeof logpath, "%s/daemon.log", dir);
	daemon_pid = fork();
	if (daemon_pid == 0) {
		struct rlimit rl = { nofile, nofile };

		if ((nofile && setrlimit(RLIMIT_NOFILE, &rl) < 0) || !freopen(logpath, "a", stderr))
			_exit(126);
		execl(bin, "backfilld", "--foreground", "--socket", sock, "--db", db, "--spool", spool,
		      "--nodes", "4", (char *)NULL);
		_exit(127);
	}
	for (int k = 0; k < 100; k++) {
		int fd = dial();

		if (fd >= 0) {
			close(fd);
			return 0;
		}
		usleep(100000);
	}
	return -1;
}

static int stop_daemon(void)
{
	int status;

	kill(daemon_pid, SIGTERM);
	if (waitpid(daemon_pid, &status, 0) != daemon_pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A figure from /proc/PID/status in KiB ("VmRSS:", "VmHWM:"); -1 if none. */
static long proc_kib(pid_t pid, const char *key)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, strlen(key)) == 0)
			v = strtol(line + strlen(key), NULL, 10);
	fclose(f);
	return v;
}

static int log_lines(void)
{
	FILE *f = fopen(logpath, "r");
	int n = 0, ch;

	if (!f)
		return -1;
	while ((ch = getc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

static int log_count(const char *what)
{
	FILE *f = fopen(logpath, "r");
	char line[2048];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

/* Drop to uid and gid for good (as setpriv --clear-groups does). */
static int become(uid_t uid, gid_t gid)
{
	return setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0 ? -1 : 0;
}

/* Run the real bq as uid (0: root, as we are), with its standard error's
 * first line in msg. Its exit status (124: it hung and was killed). */
static int bq_as(uid_t uid, gid_t gid, char *msg, size_t msglen)
{
	const char *build = getenv("BF_BUILD");
	char bin[512];
	int pfd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	snprintf(bin, sizeof bin, "%s/bq", build ? build : "build");
	msg[0] = 0;
	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null < 0 || dup2(null, 1) < 0 || dup2(pfd[1], 2) < 0 ||
		    (uid && become(uid, gid) < 0) || setenv("BACKFILLD_SOCKET", sock, 1) < 0)
			_exit(126);
		alarm(20);	/* a client the daemon never answers: dies, counted as hung */
		execl(bin, "bq", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	/* Unbuffered stderr comes in pieces ("bq: ", then the reason). */
	while (got < msglen - 1 && (n = read(pfd[0], msg + got, msglen - 1 - got)) > 0)
		got += (size_t)n;
	msg[got] = 0;
	msg[strcspn(msg, "\n")] = 0;
	close(pfd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 124;
}

/* ---- the rate limit, alone ---- */

static void test_log_rate(void)
{
	struct log_rate r = LOG_RATE_INIT("test events", 5, 60 * BF_SEC);
	char path[340], line[512];
	int saved = dup(2), fd, lines = 0, summary = 0;
	FILE *f;

	snprintf(path, sizeof path, "%s/rate.log", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (saved < 0 || fd < 0 || dup2(fd, 2) < 0) {
		ok(0, "log_rate: stderr redirected");
		return;
	}
	log_init(false);
	for (int k = 0; k < 1000; k++)
		log_rate_info(&r, (bf_time)k * 1000, "event %d", k);	/* 1000 in 1 s */
	ok(log_rate_due(&r) == 60 * BF_SEC, "log_rate: the summary is due when the minute is over");
	log_rate_flush(&r, 30 * BF_SEC);	/* too early: nothing */
	log_rate_flush(&r, 61 * BF_SEC);
	log_rate_info(&r, 62 * BF_SEC, "event after");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	if (!(f = fopen(path, "r"))) {
		ok(0, "log_rate: its output read back");
		return;
	}
	while (fgets(line, sizeof line, f)) {
		lines++;
		summary += strstr(line, "995 more test events") != NULL;
	}
	fclose(f);
	ok_eq(lines, 7, "log_rate: 1000 events in a second log 5 lines, one summary, then one more");
	ok_eq(summary, 1, "log_rate: the summary says 995 were left out");
}

/* ---- the attacker, as nobody ---- */

struct att {
	int fd;
	size_t sent;
	int state;		/* 0 to connect, 1 sending, 2 all sent (stalling), 3 over */
};

/* Open FLOOD connections, each sending the header of a 4 MiB request and
 * all of its body but one byte, then stalling. Reports how each ended. */
static void flood(FILE *out)
{
	static struct att a[FLOOD];
	static struct pollfd p[FLOOD];
	static int idx[FLOOD];
	int counts[4] = { 0 }, held = 0, left = FLOOD;
	int64_t until = now_ms() + 20000;
	char msg[300], busy_conn_msg[300] = "", busy_mem_msg[300] = "";

	for (int k = 0; k < FLOOD; k++)
		a[k] = (struct att){ .fd = -1 };
	while (left > 0 && now_ms() < until) {
		int np = 0;

		for (int k = 0; k < FLOOD; k++) {
			if (a[k].state == 0) {
				if ((a[k].fd = dial()) >= 0)
					a[k].state = 1;
				else if (errno != EAGAIN) {
					a[k].state = 3;	/* refused outright: counted as closed */
					counts[O_CLOSED]++;
					left--;
				}
			}
			if (a[k].state == 1 || a[k].state == 2) {
				p[np] = (struct pollfd){ .fd = a[k].fd,
				                         .events = POLLIN | (a[k].state == 1 ? POLLOUT : 0) };
				idx[np++] = k;
			}
		}
		if (np == 0) {
			usleep(1000);
			continue;
		}
		if (poll(p, (nfds_t)np, 50) <= 0)
			continue;
		for (int j = 0; j < np; j++) {
			struct att *t = &a[idx[j]];
			enum outcome o;

			if (p[j].revents & (POLLIN | POLLHUP | POLLERR)) {
				o = outcome_of(t->fd, msg, sizeof msg);
				counts[o]++;
				if (o == O_BUSY_CONN)
					snprintf(busy_conn_msg, sizeof busy_conn_msg, "%s", msg);
				if (o == O_BUSY_MEM)
					snprintf(busy_mem_msg, sizeof busy_mem_msg, "%s", msg);
				if (t->state == 1)
					left--;
				else
					held--;
				t->state = 3;
			} else if (p[j].revents & POLLOUT) {
				ssize_t n = send(t->fd, flood_frame + t->sent, flood_target - t->sent,
				                 MSG_DONTWAIT | MSG_NOSIGNAL);

				if (n > 0 && (t->sent += (size_t)n) == flood_target) {
					t->state = 2;	/* stalls here, one byte short */
					held++;
					left--;
				}
			}
		}
	}
	fprintf(out, "flood held=%d closed=%d busy_conn=%d busy_mem=%d other=%d unfinished=%d\n",
	        held, counts[O_CLOSED], counts[O_BUSY_CONN], counts[O_BUSY_MEM], counts[O_OTHER],
	        left);
	fprintf(out, "msg %s\nmsg %s\n", busy_conn_msg, busy_mem_msg);
	fflush(out);
	/* The held connections stay open until the process exits. */
}

/* Open IDLE idle connections; see how many the daemon refuses; run bq as
 * ourselves while they are held; then wait (at most 15 s) for the daemon
 * to close the ones it took. */
static void idle(FILE *out, int go)
{
	static int fds[IDLE];
	int busy = 0, accepted = 0, closed = 0, rc;
	int64_t until;
	char msg[512], c;

	for (int k = 0; k < IDLE; k++)
		fds[k] = dial_wait();
	/* The refusals come back at once; once the daemon has refused the
	 * surplus, it has taken the rest. At most 3 s. */
	until = now_ms() + 3000;
	while (busy < IDLE - 64 && now_ms() < until) {
		for (int k = 0; k < IDLE; k++) {
			struct pollfd p = { .fd = fds[k], .events = POLLIN };

			if (fds[k] >= 0 && poll(&p, 1, 0) == 1) {
				busy += outcome_of(fds[k], NULL, 0) == O_BUSY_CONN;
				fds[k] = -1;
			}
		}
		usleep(10000);
	}
	for (int k = 0; k < IDLE; k++)
		accepted += fds[k] >= 0;
	rc = bq_as(0, 0, msg, sizeof msg);	/* already nobody: no change of uid */
	fprintf(out, "idle accepted=%d busy=%d bq=%d\nmsg %s\n", accepted, busy, rc, msg);
	fflush(out);
	if (read(go, &c, 1) != 1)
		return;
	until = now_ms() + 15000;
	while (closed < accepted && now_ms() < until) {
		for (int k = 0; k < IDLE; k++) {
			struct pollfd p = { .fd = fds[k], .events = POLLIN };

			if (fds[k] >= 0 && poll(&p, 1, 0) == 1) {
				close(fds[k]);
				fds[k] = -1;
				closed++;
			}
		}
		usleep(50000);
	}
	fprintf(out, "idle closed=%d\n", closed);
	fflush(out);
}

static void attacker(int res, int go)
{
	struct rlimit rl = { 4096, 4096 };
	struct passwd *pw = getpwnam("nobody");
	struct group *gr = getgrnam("nogroup");
	FILE *out = fdopen(res, "w");
	char c;

	if (!out || !pw || setrlimit(RLIMIT_NOFILE, &rl) < 0 ||
	    become(pw->pw_uid, gr ? gr->gr_gid : pw->pw_gid) < 0)
		_exit(1);
	flood(out);
	if (read(go, &c, 1) != 1)
		_exit(1);
	idle(out, go);
	_exit(0);
}

/* A PT_LIST of 18 bytes sent one byte every half second (9 s in all):
 * reports how many bytes went out before the daemon cut it off. */
static void slowloris(int res)
{
	static const uint8_t req[18] = { 0, 0, 0, 10, PROTO_VERSION, PT_LIST, 0, 0,
	                                 1, 1, 0, 0, 0, 0, 0, 0, 0, 1 };
	char msg[300] = "";
	int fd, sent = 0, cut = 0;
	FILE *out = fdopen(res, "w");

	if (!out || become(SLOW_UID, SLOW_UID) < 0 || (fd = dial_wait()) < 0)
		_exit(1);
	while (sent < (int)sizeof req) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 500) == 1) {
			cut = 1;
			outcome_of(fd, msg, sizeof msg);
			break;
		}
		if (send(fd, req + sent, 1, MSG_NOSIGNAL) != 1) {
			cut = 1;
			outcome_of(fd, msg, sizeof msg);
			break;
		}
		sent++;
	}
	fprintf(out, "slow sent=%d cut=%d\nmsg %s\n", sent, cut, msg);
	fclose(out);
	_exit(0);
}

static pid_t spawn(void (*fn)(int res, int go), int *res, int *go)
{
	int r[2], g[2];
	pid_t pid;

	if (pipe(r) < 0 || pipe(g) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(r[0]);
		close(g[1]);
		fn(r[1], g[0]);
		_exit(0);
	}
	close(r[1]);
	close(g[0]);
	*res = r[0];
	*go = g[1];
	return pid;
}

static void slow_entry(int res, int go)
{
	(void)go;
	slowloris(res);
}

/* A line from a child, without its newline; "" at the end. */
static char *line_from(FILE *f, char *buf, size_t len)
{
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

static void ok_served(const char *who, uid_t uid, const char *when)
{
	char msg[512];
	int rc = bq_as(uid, uid, msg, sizeof msg);

	if (!ok(rc == 0, "%s is served %s", who, when))
		printf("#   bq exited %d: %s\n", rc, msg);
}

/* ---- phase 1: one unprivileged attacker ---- */

static void attack_by_nobody(void)
{
	int res, go, slow_res, slow_go, held, closed, busy_conn, busy_mem, other, unfinished;
	int accepted, busy, bq_rc, idle_closed = -1, slow_sent = 0, slow_cut = 0, lines0;
	char line[512], m1[512], m2[512];
	long rss, hwm;
	pid_t att, slow;
	FILE *in, *sin;

	lines0 = log_lines();
	slow = spawn(slow_entry, &slow_res, &slow_go);
	att = spawn(attacker, &res, &go);
	if (att < 0 || slow < 0 || !(in = fdopen(res, "r")) || !(sin = fdopen(slow_res, "r"))) {
		ok(0, "the attackers start");
		return;
	}
	if (sscanf(line_from(in, line, sizeof line), "flood held=%d closed=%d busy_conn=%d "
	           "busy_mem=%d other=%d unfinished=%d", &held, &closed, &busy_conn, &busy_mem,
	           &other, &unfinished) != 6) {
		ok(0, "the flood ran (got \"%s\")", line);
		return;
	}
	line_from(in, m1, sizeof m1);
	line_from(in, m2, sizeof m2);
	rss = proc_kib(daemon_pid, "VmRSS:");
	hwm = proc_kib(daemon_pid, "VmHWM:");
	printf("# flood of %d connections by nobody, each announcing a 4 MiB request: %d held "
	       "(all but one byte sent), %d PE_BUSY over the connection caps, %d PE_BUSY over the "
	       "memory budget, %d closed without a word, %d other, %d never got through\n",
	       FLOOD, held, busy_conn, busy_mem, closed, other, unfinished);
	printf("#   busy replies: \"%s\", \"%s\"\n", m1 + 4, m2 + 4);
	printf("# daemon RSS during attack: %ld MiB (peak %ld MiB)\n", rss / 1024, hwm / 1024);
	ok(rss > 0 && rss / 1024 < RSS_BOUND_MIB,
	   "the daemon's RSS during the flood stays under %d MiB", RSS_BOUND_MIB);
	ok(hwm > 0 && hwm / 1024 < RSS_BOUND_MIB,
	   "its peak RSS (VmHWM) stays under %d MiB too", RSS_BOUND_MIB);
	ok(held <= 4, "at most 4 requests of 4 MiB held for one uid (16 MiB)");
	ok(busy_conn + busy_mem >= FLOOD - 64,
	   "the attacker is told PE_BUSY over its caps (%d of %d)", busy_conn + busy_mem, FLOOD);
	ok(busy_mem > 0, "requests over the memory budget are refused from their header");
	ok(kill(daemon_pid, 0) == 0, "the daemon is alive");
	ok_served("root", 0, "during the flood");
	ok_served("another user (uid 12345)", OTHER_UID, "during the flood");

	if (write(go, "g", 1) != 1 ||
	    sscanf(line_from(in, line, sizeof line), "idle accepted=%d busy=%d bq=%d", &accepted,
	           &busy, &bq_rc) != 3) {
		ok(0, "the idle phase ran (got \"%s\")", line);
		return;
	}
	line_from(in, m1, sizeof m1);
	printf("# %d idle connections by nobody: %d taken, %d PE_BUSY; nobody's own bq: exit %d, "
	       "\"%s\"\n", IDLE, accepted, busy, bq_rc, m1 + 4);
	ok(accepted <= 64 && busy >= IDLE - 64, "one uid gets at most 64 connections; the rest "
	   "are told PE_BUSY");
	ok(bq_rc == 1 && strstr(m1, "busy"), "nobody's bq over its cap prints the busy reply");
	ok_served("root", 0, "with nobody's connections at its cap");
	ok_served("another user (uid 12345)", OTHER_UID, "with nobody's connections at its cap");
	if (write(go, "g", 1) != 1 ||
	    sscanf(line_from(in, line, sizeof line), "idle closed=%d", &idle_closed) != 1)
		idle_closed = -1;
	ok(idle_closed == accepted, "the daemon closes idle connections well before the old "
	   "30 s (%d of %d within 15 s)", idle_closed, accepted);
	waitpid(att, NULL, 0);
	fclose(in);
	close(go);

	if (sscanf(line_from(sin, line, sizeof line), "slow sent=%d cut=%d", &slow_sent,
	           &slow_cut) != 2)
		slow_sent = -1;
	line_from(sin, m1, sizeof m1);
	printf("# slowloris (1 byte every 0.5 s of an 18-byte request): cut off after %d bytes, "
	       "\"%s\"\n", slow_sent, m1 + 4);
	ok(slow_cut && slow_sent >= 0 && slow_sent < 18,
	   "a client trickling its request is cut off before it is done");
	waitpid(slow, NULL, 0);
	fclose(sin);
	close(slow_go);

	printf("# daemon log: %d lines during the attack (%d refusals and timeouts logged one by "
	       "one)\n", log_lines() - lines0, log_count("refused a ") + log_count("closing a "));
	ok(log_lines() - lines0 < 40, "the log does not grow by a line per refused or timed-out "
	   "connection (%d lines for over %d refusals)", log_lines() - lines0, FLOOD);
	ok(log_count("closing a connection") <= 5, "timeouts are rate-limited in the log");
}

/* ---- phase 2: sixteen users fill every slot they may ---- */

/* A connection as uid: SO_PEERCRED records the effective uid at
 * connect(), so root can play many users from one process. */
static int dial_as(uid_t uid)
{
	int fd;

	if (setegid(uid) < 0 || seteuid(uid) < 0)
		return -1;
	fd = dial_wait();
	if (seteuid(0) < 0 || setegid(0) < 0)
		abort();	/* cannot go on as another user */
	return fd;
}

static void fill_all_slots(void)
{
	static int fds[FILL_UIDS * 64];
	int n = 0, busy = 0;
	char msg[512];
	int rc;

	for (int u = 0; u < FILL_UIDS; u++)
		for (int k = 0; k < 64; k++)
			fds[n++] = dial_as((uid_t)(20001 + u));
	/* root's bq connects after all of them: once it is answered, the
	 * daemon has taken or refused every one. */
	ok_served("root", 0, "with 16 users holding 64 connections each");
	for (int k = 0; k < n; k++) {
		struct pollfd p = { .fd = fds[k], .events = POLLIN };

		if (fds[k] >= 0 && poll(&p, 1, 0) == 1) {
			busy += outcome_of(fds[k], NULL, 0) == O_BUSY_CONN;
			fds[k] = -1;
		}
	}
	rc = bq_as(OTHER_UID, OTHER_UID, msg, sizeof msg);
	printf("# %d users x 64 idle connections: %d refused (PE_BUSY), %d held; a 17th user: "
	       "exit %d, \"%s\"\n", FILL_UIDS, busy, n - busy, rc, msg);
	ok(n - busy <= 1024 - 64, "users other than root hold at most 960 connections in all");
	ok(rc == 1 && strstr(msg, "busy"), "a 17th user is told the daemon is busy (not left "
	   "hanging)");
	ok_served("root", 0, "again, with every other slot taken");
	for (int k = 0; k < n; k++)
		if (fds[k] >= 0)
			close(fds[k]);
}

/* ---- phase 3: a daemon with few file descriptors ---- */

static void few_fds(void)
{
	static int fds[3 * 64];
	int n = 0;

	ok(stop_daemon() == 0, "the daemon stops cleanly after the attacks");
	ok(log_count("were not logged one by one") >= 1, "the refusals left out of the log are "
	   "counted in a summary line (at the latest at the stop)");
	ok(start_daemon(160) == 0, "the daemon starts with RLIMIT_NOFILE 160");
	/* More than the descriptors it has: the old daemon ran out, spun on
	 * its listening socket and never took root's connection. */
	for (int u = 0; u < 3; u++)
		for (int k = 0; k < 64; k++)
			fds[n++] = dial_as((uid_t)(20001 + u));
	ok_served("root", 0, "by a daemon with few descriptors, with 3 users at their caps");
	ok(kill(daemon_pid, 0) == 0, "that daemon is alive");
	for (int k = 0; k < n; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	printf("# with 160 descriptors: \"%s\" logged: %d\n", "at most", log_count("at most"));
}

int main(void)
{
	struct rlimit rl = { 8192, 8192 };
	char cmd[400];

	if (geteuid() != 0) {
		printf("ok 1 - # SKIP needs root (to be root and play other users)\n1..1\n");
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);
	/* The temporary directory must be reachable by the other users. */
	if (!mkdtemp(dir) || chmod(dir, 0711) < 0 || setrlimit(RLIMIT_NOFILE, &rl) < 0 ||
	    !(flood_frame = calloc(1, flood_target)))
		return 1;
	flood_frame[0] = (uint8_t)(PROTO_MAX_PAYLOAD >> 24);
	flood_frame[1] = (uint8_t)(PROTO_MAX_PAYLOAD >> 16);
	flood_frame[2] = (uint8_t)(PROTO_MAX_PAYLOAD >> 8);
	flood_frame[3] = (uint8_t)PROTO_MAX_PAYLOAD;
	flood_frame[4] = PROTO_VERSION;
	flood_frame[5] = PT_SUBMIT;

	test_log_rate();
	if (!ok(start_daemon(0) == 0, "the daemon starts (as root)"))
		return tap_done();
	ok_served("root", 0, "before the attack");
	attack_by_nobody();
	fill_all_slots();
	few_fds();
	ok(stop_daemon() == 0, "it stops cleanly on SIGTERM");
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ok(system(cmd) == 0, "temporary directory removed");
	return tap_done();
}
