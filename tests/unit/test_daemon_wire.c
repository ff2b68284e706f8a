/* The daemon against hostile clients: it answers with an error or closes,
 * never dies, never blocks the others. Starts the real backfilld (from
 * $BF_BUILD) on a temporary socket and stops it by its pid. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "proto.h"
#include "tap.h"

static char dir[] = "/tmp/test_wire.XXXXXX";
static char sock[300];
static pid_t daemon_pid;

static int dial(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (strlen(sock) >= sizeof sun.sun_path)
		return -1;
	memcpy(sun.sun_path, sock, strlen(sock) + 1);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Send bytes, read until the daemon closes (at most 5 s). Returns the
 * reply's type, 0 if closed without a reply, -1 on timeout or error. */
static int exchange(const void *data, size_t len, enum proto_err *code)
{
	uint8_t buf[65536];
	size_t got = 0;
	int fd = dial();
	struct pollfd p;
	enum proto_type type;
	size_t flen;
	char err[200];

	if (fd < 0)
		return -1;
	if (len && write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	shutdown(fd, SHUT_WR);
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (poll(&p, 1, 5000) == 1) {
		ssize_t n = read(fd, buf + got, sizeof buf - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got == 0)
		return 0;
	if (proto_frame(buf, got, &flen, &type, err, sizeof err) != 1)
		return -1;
	if (code && type == PT_ERROR) {
		struct proto_error e;
		struct proto_arena a = { 0 };

		*code = proto_dec_error(buf, flen, &e, &a, err, sizeof err) == 0 ? e.code : PE_OK;
		proto_arena_free(&a);
	}
	return (int)type;
}

static int list_works(void)
{
	struct proto_buf b;
	int t;

	proto_buf_init(&b);
	proto_enc_list(&b, PT_LIST, &(struct proto_list){ .all_users = true });
	t = exchange(b.p, b.len, NULL);
	proto_buf_free(&b);
	return t == PT_JOBS;
}

static int start_daemon(void)
{
	const char *build = getenv("BF_BUILD");
	char bin[512], db[320], spool[320], log[320];

	snprintf(bin, sizeof bin, "%s/backfilld", build ? build : "build");
	snprintf(sock, sizeof sock, "%s/s.sock", dir);
	snprintf(db, sizeof db, "%s/state.db", dir);
	snprintf(spool, sizeof spool, "%s/spool", dir);
	snprintf(log, sizeof log, "%s/daemon.log", dir);
	daemon_pid = fork();
	if (daemon_pid == 0) {
		if (!freopen(log, "w", stderr))
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

int main(void)
{
	uint8_t hdr[PROTO_HEADER] = { 0, 0, 0, 0, PROTO_VERSION, PT_LIST, 0, 0 };
	enum proto_err code = PE_OK;
	struct proto_buf b;
	int status, slow, held[200], nheld = 0, bad = 0;
	unsigned seed = 5;
	char cmd[400];

	if (!mkdtemp(dir))
		return 1;
	ok(start_daemon() == 0, "the daemon starts");
	ok(list_works(), "it answers a list");

	hdr[4] = 9;
	ok(exchange(hdr, sizeof hdr, &code) == PT_ERROR && code == PE_VERSION,
	   "another protocol version: an error reply");
	hdr[4] = PROTO_VERSION;
	hdr[0] = 0x40;
	ok(exchange(hdr, sizeof hdr, &code) == PT_ERROR && code == PE_MALFORMED,
	   "an oversized frame: refused from its header");
	hdr[0] = 0;
	hdr[5] = 99;
	ok(exchange(hdr, sizeof hdr, &code) == PT_ERROR && code == PE_MALFORMED,
	   "an unknown request type: an error reply");
	hdr[5] = PT_LIST;
	hdr[3] = 20;
	ok(exchange(hdr, sizeof hdr, NULL) == 0, "a truncated frame: closed, no reply");
	hdr[3] = 0;
	{
		uint8_t two[2 * PROTO_HEADER];

		memcpy(two, hdr, PROTO_HEADER);
		memcpy(two + PROTO_HEADER, hdr, PROTO_HEADER);
		ok(exchange(two, sizeof two, &code) == PT_ERROR && code == PE_MALFORMED,
		   "two requests on one connection: an error reply");
	}
	proto_buf_init(&b);
	proto_start(&b, PT_SUBMIT);
	proto_put_int(&b, 77, 1);
	proto_finish(&b);
	ok(exchange(b.p, b.len, &code) == PT_ERROR && code == PE_MALFORMED,
	   "a submit with an unknown field: an error reply");
	proto_buf_free(&b);
	ok(list_works(), "the daemon still serves");

	/* A slow client sits on half a header; 200 idle connections wait. */
	slow = dial();
	ok(slow >= 0 && write(slow, hdr, 3) == 3, "a slow client sends 3 bytes and waits");
	for (int k = 0; k < 200; k++)
		if ((held[nheld] = dial()) >= 0)
			nheld++;
	ok(nheld == 200 && list_works(), "with 200 idle connections open, others are served");
	for (int k = 0; k < nheld; k++)
		close(held[k]);
	close(slow);

	/* Random frames: valid headers with random bodies, and random bytes. */
	for (int round = 0; round < 2000; round++) {
		uint8_t junk[600];
		size_t n = 8 + (seed >> 8) % 500;
		int t;

		for (size_t k = 0; k < n; k++) {
			seed = seed * 1103515245 + 12345;
			junk[k] = (uint8_t)(seed >> 16);
		}
		if (round % 2) {
			uint32_t plen = (uint32_t)(n - PROTO_HEADER);

			junk[0] = (uint8_t)(plen >> 24);
			junk[1] = (uint8_t)(plen >> 16);
			junk[2] = (uint8_t)(plen >> 8);
			junk[3] = (uint8_t)plen;
			junk[4] = PROTO_VERSION;
			junk[5] = (uint8_t)(1 + round % 5);
			junk[6] = junk[7] = 0;
		}
		t = exchange(junk, n, NULL);
		bad += t < 0;
	}
	ok_eq(bad, 0, "2000 random frames: each answered or closed, none left hanging");
	ok(kill(daemon_pid, 0) == 0 && list_works(), "the daemon is alive and serving after all that");

	kill(daemon_pid, SIGTERM);
	waitpid(daemon_pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "it stops cleanly on SIGTERM");
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ok(system(cmd) == 0, "temporary directory removed");
	return tap_done();
}
