/* OpenSSH's multiplexing protocol, the client's side of a passenger
 * session (see sshmux.h). Every message is a uint32 length, then a
 * uint32 type and its body, in SSH's big-endian wire format; a string is
 * a uint32 length and its bytes. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "sshmux.h"

#define MUX_VERSION           4
#define MUX_MSG_HELLO         0x00000001u
#define MUX_C_NEW_SESSION     0x10000002u
#define MUX_S_OK              0x80000001u
#define MUX_S_PERMISSION_DENIED 0x80000002u
#define MUX_S_FAILURE         0x80000003u
#define MUX_S_EXIT_MESSAGE    0x80000004u
#define MUX_S_SESSION_OPENED  0x80000006u
#define MUX_S_TTY_ALLOC_FAIL  0x80000008u

#define MSG_MAX   (256u * 1024)	/* a message from the master */
#define SETUP_MS  5000		/* the master answers a local socket at once */

struct msg {
	uint8_t *p;
	size_t len, cap;
};

static int put(struct msg *m, const void *data, size_t len)
{
	if (m->len + len > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		uint8_t *p;

		while (cap < m->len + len)
			cap *= 2;
		if (!(p = realloc(m->p, cap)))
			return -1;
		m->p = p;
		m->cap = cap;
	}
	memcpy(m->p + m->len, data, len);
	m->len += len;
	return 0;
}

static int put_u32(struct msg *m, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	return put(m, b, 4);
}

static int put_str(struct msg *m, const char *s)
{
	size_t len = strlen(s);

	return put_u32(m, (uint32_t)len) | put(m, s, len);
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Write all of buf, waiting at most SETUP_MS for room. */
static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN &&
		    poll(&(struct pollfd){ fd, POLLOUT, 0 }, 1, SETUP_MS) > 0)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Send one message: its length, then its bytes. */
static int send_msg(int fd, const struct msg *m)
{
	uint8_t len[4] = { (uint8_t)(m->len >> 24), (uint8_t)(m->len >> 16),
		           (uint8_t)(m->len >> 8), (uint8_t)m->len };

	return write_all(fd, len, 4) | write_all(fd, m->p, m->len);
}

/* Read exactly len bytes, waiting at most wait_ms for each part (-1: for
 * ever). 0, or -1 (end of file, error, timeout). */
static int read_all(int fd, uint8_t *buf, size_t len, int wait_ms)
{
	while (len) {
		ssize_t r = read(fd, buf, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN &&
		    poll(&(struct pollfd){ fd, POLLIN, 0 }, 1, wait_ms) > 0)
			continue;
		if (r <= 0)
			return -1;
		buf += r;
		len -= (size_t)r;
	}
	return 0;
}

/* One message from the master into *body (malloc'ed), its length in *len.
 * 0, or -1. */
static int recv_msg(int fd, uint8_t **body, size_t *len, int wait_ms)
{
	uint8_t h[4];

	*body = NULL;
	if (read_all(fd, h, 4, wait_ms) < 0)
		return -1;
	*len = get_u32(h);
	if (*len < 4 || *len > MSG_MAX || !(*body = malloc(*len)))
		return -1;
	if (read_all(fd, *body, *len, wait_ms) < 0) {
		free(*body);
		*body = NULL;
		return -1;
	}
	return 0;
}

/* One descriptor over the socket, with one byte of data, as the master
 * takes each of the session's three. */
static int send_fd(int sock, int fd)
{
	char byte = 0, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
		             .msg_controllen = sizeof ctl };
	struct cmsghdr *c;
	ssize_t n;

	memset(ctl, 0, sizeof ctl);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	while ((n = sendmsg(sock, &mh, 0)) < 0 && (errno == EINTR || (errno == EAGAIN &&
	       poll(&(struct pollfd){ sock, POLLOUT, 0 }, 1, SETUP_MS) > 0)))
		;
	return n == 1 ? 0 : -1;
}

static int connect_master(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof a.sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

int sshmux_open(const char *path, const char *command, int in, int out, int err, char *why,
                size_t whylen)
{
	struct msg m = { 0 };
	uint8_t *body = NULL;
	size_t len;
	int fd = connect_master(path);

	if (fd < 0) {
		snprintf(why, whylen, "no master at %s: %s", path, strerror(errno));
		return -1;
	}
	/* Hellos, both ways. */
	if (put_u32(&m, MUX_MSG_HELLO) | put_u32(&m, MUX_VERSION) || send_msg(fd, &m) < 0 ||
	    recv_msg(fd, &body, &len, SETUP_MS) < 0 || len < 8 ||
	    get_u32(body) != MUX_MSG_HELLO || get_u32(body + 4) != MUX_VERSION) {
		snprintf(why, whylen, "the master at %s does not speak mux version %d", path,
		         MUX_VERSION);
		goto fail;
	}
	free(body);
	body = NULL;
	/* The session: no tty, no X11, no agent, not a subsystem, no escape
	 * character, no terminal type, the command; then its descriptors. */
	m.len = 0;
	if (put_u32(&m, MUX_C_NEW_SESSION) | put_u32(&m, 1) | put_str(&m, "") | put_u32(&m, 0) |
	    put_u32(&m, 0) | put_u32(&m, 0) | put_u32(&m, 0) | put_u32(&m, 0xffffffffu) |
	    put_str(&m, "") | put_str(&m, command) || send_msg(fd, &m) < 0 ||
	    send_fd(fd, in) < 0 || send_fd(fd, out) < 0 || send_fd(fd, err) < 0 ||
	    recv_msg(fd, &body, &len, SETUP_MS) < 0 || len < 8) {
		snprintf(why, whylen, "the master at %s did not open a session", path);
		goto fail;
	}
	if (get_u32(body) != MUX_S_SESSION_OPENED) {
		uint32_t t = get_u32(body), rl = len >= 12 ? get_u32(body + 8) : 0;

		snprintf(why, whylen, "the master at %s refused a session%s%.*s", path,
		         t == MUX_S_PERMISSION_DENIED || t == MUX_S_FAILURE ? ": " : "",
		         rl <= len - 12 && rl < 200 ? (int)rl : 0, (const char *)body + 12);
		goto fail;
	}
	free(body);
	free(m.p);
	return fd;
fail:
	free(body);
	free(m.p);
	close(fd);
	return -1;
}

int sshmux_poll(int fd, int *exitval)
{
	uint8_t *body;
	size_t len;

	for (;;) {
		uint8_t h;
		ssize_t r = recv(fd, &h, 1, MSG_PEEK);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return 0;
		if (r <= 0)
			return -1;
		/* A message has begun: the rest follows at once (the master
		 * writes each whole). */
		if (recv_msg(fd, &body, &len, SETUP_MS) < 0)
			return -1;
		if (get_u32(body) == MUX_S_EXIT_MESSAGE && len >= 12) {
			*exitval = (int)get_u32(body + 8);
			free(body);
			return 1;
		}
		free(body);	/* MUX_S_OK, MUX_S_TTY_ALLOC_FAIL: nothing to do */
	}
}
