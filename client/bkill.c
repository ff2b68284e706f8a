/* bkill: cancel backfilld jobs. See bkill(1). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "client.h"
#include "proto.h"
#include "render.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: bkill [--socket PATH] [-s SIGNAL] [-u USER|all] ID... | 0\n"
"       bkill --help | --version\n"
"\n"
"Cancel the jobs ID...: a queued job leaves the queue; a running job gets\n"
"SIGTERM, then SIGKILL after the site's grace time. Prints one line per job.\n"
"ID 0 is every unfinished job of yours; -u USER every one of USER's (root\n"
"and the admin group; 'all': everyone's). -s SIGNAL sends SIGNAL (TERM, KILL,\n"
"USR1, STOP, CONT, ... or a number) to each running job instead.\n"
"\n"
"  --socket PATH   the daemon's socket (default: $BACKFILLD_SOCKET, else the\n"
"                  socket key of $BACKFILLD_CONFIG or /etc/backfilld/backfilld.yaml,\n"
"                  else /run/backfilld/backfilld.sock if it exists, else the\n"
"                  per-user default)\n"
"\n"
"Exit status: 0 every job cancelled, 1 some job not cancelled (or the daemon\n"
"refused), 2 usage error, 3 the daemon could not be reached. See bkill(1).\n");
}

static int usage_error(const char *what, const char *arg, const char *why)
{
	fprintf(stderr, "bkill: %s%s%s\nTry 'bkill --help' for more information.\n", what, arg, why);
	return CLIENT_EXIT_USAGE;
}

/* A signal as bkill -s takes it: KILL, SIGKILL, kill or 9. 0 if none. */
static int parse_signal(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (*s >= '0' && *s <= '9')
		return *end == 0 && n >= 1 && n <= 64 ? (int)n : 0;
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (int k = 1; k < 65; k++) {
		const char *name = client_signal_name(k);

		if (name && strcasecmp(name, s) == 0)
			return k;
	}
	return 0;
}

/* bkill 0 and bkill -u USER: add every queued or running job of mine (or
 * of USER, or everyone's for "all") to ids, after those already there.
 * 0, or the exit code. */
static int add_unfinished(const char *socket, const char *user, uint64_t *ids, uint32_t *n)
{
	struct proto_buf req;
	struct proto_arena a = { 0 };
	struct proto_jobs js;
	uint8_t *reply = NULL;
	size_t len = 0;
	char err[512];
	int rc;

	proto_buf_init(&req);
	if (proto_enc_list(&req, PT_LIST, &(struct proto_list){ .all_users = user != NULL }) < 0) {
		proto_buf_free(&req);
		fprintf(stderr, "bkill: out of memory\n");
		return CLIENT_EXIT_UNREACHABLE;
	}
	rc = client_call("bkill", socket, &req, PT_JOBS, &reply, &len);
	proto_buf_free(&req);
	if (rc == 0 && proto_dec_jobs(reply, len, &js, &a, err, sizeof err) < 0) {
		fprintf(stderr, "bkill: unreadable reply from backfilld: %s\n", err);
		rc = CLIENT_EXIT_UNREACHABLE;
	}
	for (uint32_t k = 0; rc == 0 && k < js.count; k++) {
		const struct proto_job *j = &js.jobs[k];
		bool seen = false;

		if (render_job_ended(j))
			continue;
		if (user && strcmp(user, "all") != 0 && !client_job_of(j, user))
			continue;
		for (uint32_t i = 0; i < *n && !seen; i++)
			seen = ids[i] == j->id;
		if (!seen && *n < PROTO_MAX_LIST)
			ids[(*n)++] = j->id;
	}
	proto_arena_free(&a);
	free(reply);
	return rc;
}

int main(int argc, char **argv)
{
	const char *socket = NULL;
	uint64_t *ids = calloc(PROTO_MAX_LIST + 1, sizeof *ids);	/* at most that many */
	uint32_t n = 0;
	bool opts = true, every = false;
	int sig = 0;		/* -s: a signal to send instead of cancelling */
	const char *user = NULL;	/* -u USER: that user's unfinished jobs ("all": everyone's) */
	struct proto_buf req;
	struct proto_arena arena = { 0 };
	struct proto_cancelled cd;
	uint8_t *reply = NULL;
	size_t reply_len = 0;
	char err[512];
	int rc = CLIENT_EXIT_OK;

	if (!ids) {
		fprintf(stderr, "bkill: out of memory\n");
		return CLIENT_EXIT_UNREACHABLE;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		uint64_t id;
		bool seen = false;

		if (opts && strcmp(a, "--") == 0) {
			opts = false;
			continue;
		}
		if (opts && (strcmp(a, "--socket") == 0 || strncmp(a, "--socket=", 9) == 0)) {
			socket = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
			if (!socket)
				rc = usage_error("option --socket needs a value (a socket path)", "", "");
			else if (!*socket)
				rc = usage_error("--socket: the path is empty", "", "");
			if (rc)
				goto out;
			continue;
		}
		if (opts && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
			usage(stdout);
			rc = fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
			goto out;
		}
		if (opts && (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0)) {
			printf("bkill (backfilld) %s\n", BACKFILLD_VERSION);
			rc = fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
			goto out;
		}
		if (opts && strcmp(a, "-u") == 0) {
			if (i + 1 >= argc || !*argv[i + 1]) {
				rc = usage_error("option -u needs a user name, a uid or 'all'", "", "");
				goto out;
			}
			user = argv[++i];
			continue;
		}
		if (opts && strcmp(a, "-s") == 0) {
			if (i + 1 >= argc || (sig = parse_signal(argv[i + 1])) <= 0) {
				rc = usage_error("-s needs a signal: a name (TERM, KILL, USR1, STOP, "
				                 "CONT, ...) or a number from 1 to 64", "", "");
				goto out;
			}
			i++;
			continue;
		}
		if (opts && a[0] == '-' && !(a[1] >= '0' && a[1] <= '9')) {
			rc = usage_error("unknown option '", a, "'");
			goto out;
		}
		if (strcmp(a, "0") == 0) {
			every = true;	/* bkill 0: all of mine (with -u: of those users) */
			continue;
		}
		if (client_parse_id(a, &id) < 0) {
			rc = usage_error("'", a, "' is not a job ID (a whole number from 1)");
			goto out;
		}
		for (uint32_t k = 0; k < n && !seen; k++)
			seen = ids[k] == id;
		if (!seen && n == PROTO_MAX_LIST) {
			fprintf(stderr, "bkill: more than %u jobs at once\n", PROTO_MAX_LIST);
			rc = CLIENT_EXIT_USAGE;
			goto out;
		}
		if (!seen)
			ids[n++] = id;
	}
	if ((every || user) && (rc = add_unfinished(socket, user, ids, &n)) != 0)
		goto out;
	if (n == 0 && (every || user)) {
		printf("No unfinished job%s to cancel.\n", user ? "s of that user" : "s of yours");
		rc = fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
		goto out;
	}
	if (n == 0) {
		rc = usage_error("which jobs? Give one or more job IDs, as in bkill 42 (0: all of "
		                 "yours)", "", "");
		goto out;
	}

	proto_buf_init(&req);
	if (proto_enc_cancel(&req, &(struct proto_cancel){ ids, n, sig }) < 0) {
		proto_buf_free(&req);
		fprintf(stderr, "bkill: out of memory\n");
		rc = CLIENT_EXIT_UNREACHABLE;
		goto out;
	}
	rc = client_call("bkill", socket, &req, PT_CANCELLED, &reply, &reply_len);
	proto_buf_free(&req);
	if (rc != 0)
		goto out;
	if (proto_dec_cancelled(reply, reply_len, &cd, &arena, err, sizeof err) < 0) {
		fprintf(stderr, "bkill: unreadable reply from backfilld: %s\n", err);
		rc = CLIENT_EXIT_UNREACHABLE;
		goto out;
	}
	/* One line per job asked for, in the order given. */
	for (uint32_t k = 0; k < n; k++) {
		uint32_t r = 0;

		while (r < cd.count && cd.ids[r] != ids[k])
			r++;
		if (r == cd.count) {
			printf("Job %" PRIu64 ": no answer from backfilld\n", ids[k]);
			rc = CLIENT_EXIT_UNREACHABLE;
			continue;
		}
		if (sig && cd.codes[r] == PE_OK)
			printf("Job %" PRIu64 ": signal %s sent\n", ids[k], client_signal_name(sig) ?
			       client_signal_name(sig) : "");
		else if (sig && cd.codes[r] == PE_INVALID)
			printf("Job %" PRIu64 ": not running (a signal goes to a running job; bkill "
			       "without -s cancels it)\n", ids[k]);
		else
			printf("Job %" PRIu64 ": %s\n", ids[k], client_cancel_result(cd.codes[r]));
		if (cd.codes[r] != PE_OK && rc == CLIENT_EXIT_OK)
			rc = CLIENT_EXIT_REFUSED;
	}
	if (fflush(stdout) != 0 && rc == CLIENT_EXIT_OK)
		rc = CLIENT_EXIT_REFUSED;
out:
	proto_arena_free(&arena);
	free(reply);
	free(ids);
	return rc;
}
