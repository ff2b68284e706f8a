/* bkill: cancel backfilld jobs. See bkill(1). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "client.h"
#include "proto.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: bkill [--socket PATH] ID...\n"
"       bkill --help | --version\n"
"\n"
"Cancel the jobs ID...: a queued job leaves the queue; a running job gets\n"
"SIGTERM, then SIGKILL after the site's grace time. Prints one line per job.\n"
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

int main(int argc, char **argv)
{
	const char *socket = NULL;
	uint64_t *ids = calloc((size_t)argc + 1, sizeof *ids);
	uint32_t n = 0;
	bool opts = true;
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
		if (opts && a[0] == '-' && !(a[1] >= '0' && a[1] <= '9')) {
			rc = usage_error("unknown option '", a, "'");
			goto out;
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
	if (n == 0) {
		rc = usage_error("which jobs? Give one or more job IDs, as in bkill 42", "", "");
		goto out;
	}

	proto_buf_init(&req);
	if (proto_enc_cancel(&req, &(struct proto_cancel){ ids, n }) < 0) {
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
