/* bf_dgram: a Unix datagram listener for tests/daemon/systemd.sh, standing
 * in for systemd's NOTIFY_SOCKET and the journal's socket.
 *
 *   bf_dgram SOCKET OUT SECONDS [PROBE]
 *	Bind SOCKET and append every datagram to OUT, each after a line
 *	"-- pid N" (the sender, from SCM_CREDENTIALS), for SECONDS at most
 *	(then it exits by itself). With PROBE: when a datagram holds the line
 *	READY=1, stop the sender (SIGSTOP), connect to the Unix stream socket
 *	PROBE, write "probe: connected" or "probe: failed: REASON", and let
 *	the sender go on (SIGCONT): whether the daemon was serving at the
 *	moment it said it was ready, not some moment later.
 *   bf_dgram --send SOCKET TEXT
 *	Send TEXT as one datagram (to wake a datagram socket up).
 *
 * Exit status 0, or 1 with a message. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "bf_dgram: %s: %s\n", what, strerror(errno));
	return 1;
}

static int address(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun->sun_path) {
		fprintf(stderr, "bf_dgram: %s: path too long\n", path);
		return -1;
	}
	strcpy(sun->sun_path, path);
	return 0;
}

static void put(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void probe(int out, const char *path, pid_t sender)
{
	struct sockaddr_un sun;
	char line[300];
	int fd;

	if (address(path, &sun) < 0)
		return;
	if (sender > 0)
		kill(sender, SIGSTOP);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0)
		snprintf(line, sizeof line, "probe: connected\n");
	else
		snprintf(line, sizeof line, "probe: failed: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
	if (sender > 0)
		kill(sender, SIGCONT);
	put(out, line, strlen(line));
}

static int send_one(const char *path, const char *text)
{
	struct sockaddr_un sun;
	int fd;

	if (address(path, &sun) < 0)
		return 1;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sendto(fd, text, strlen(text), 0, (struct sockaddr *)&sun, sizeof sun) < 0)
		return fail(path);
	close(fd);
	return 0;
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	static char buf[65536 + 1];
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	struct sockaddr_un sun;
	struct stat st;
	long long until;
	char *end;
	long secs;
	int fd, out, on = 1;

	if (argc == 4 && strcmp(argv[1], "--send") == 0)
		return send_one(argv[2], argv[3]);
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: bf_dgram SOCKET OUT SECONDS [PROBE] | --send SOCKET TEXT\n");
		return 1;
	}
	secs = strtol(argv[3], &end, 10);
	if (*end || secs < 1 || secs > 3600) {
		fprintf(stderr, "bf_dgram: SECONDS: from 1 to 3600\n");
		return 1;
	}
	if (address(argv[1], &sun) < 0)
		return 1;
	if (lstat(argv[1], &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) < 0 ||
	    bind(fd, (struct sockaddr *)&sun, sizeof sun) < 0)
		return fail(argv[1]);
	out = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (out < 0)
		return fail(argv[2]);
	until = now_ms() + secs * 1000;
	for (long long left; (left = until - now_ms()) > 0;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct iovec iov = { buf, sizeof buf - 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space,
		                    .msg_controllen = sizeof ctl.space };
		struct cmsghdr *c;
		pid_t sender = 0;
		char head[64];
		ssize_t n;

		if (poll(&p, 1, (int)left) <= 0)
			continue;
		n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
		if (n < 0)
			continue;
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
				struct ucred u;

				memcpy(&u, CMSG_DATA(c), sizeof u);
				sender = u.pid;
			} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				/* Not expected; never keep a descriptor sent to us. */
				int *fds = (int *)CMSG_DATA(c);

				for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++)
					close(fds[k]);
			}
		buf[n] = 0;
		snprintf(head, sizeof head, "-- pid %d\n", (int)sender);
		put(out, head, strlen(head));
		put(out, buf, (size_t)n);
		if (n == 0 || buf[n - 1] != '\n')
			put(out, "\n", 1);
		if (argc == 5 && (strncmp(buf, "READY=1\n", 8) == 0 || strcmp(buf, "READY=1") == 0 ||
		                  strstr(buf, "\nREADY=1\n") || (n >= 8 && strcmp(buf + n - 8, "\nREADY=1") == 0)))
			probe(out, argv[4], sender);
	}
	return 0;
}
