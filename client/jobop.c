/* Job operations from the clients (see jobop.h): bstop, bresume and bctl's
 * hold, release, limit, top and requeue send one PT_JOBCTL request and print
 * a line per job. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "client.h"
#include "jobop.h"

static const char *result(enum proto_jobop op, enum proto_err code)
{
	if (op == PJ_REQUEUE) {
		switch (code) {
		case PE_OK: return "being terminated, to queue again";
		case PE_INVALID: return "not requeued: it is not running, or is being killed";
		default: break;
		}
	}
	if (op == PJ_TOP) {
		switch (code) {
		case PE_OK: return "first in the queue";
		case PE_INVALID: return "not moved: it is not queued (running or held), or it waits for "
		                        "jobs it depends on (it cannot go before them)";
		default: break;
		}
	}
	if (op == PJ_LIMIT) {
		switch (code) {
		case PE_OK: return "time limit changed";
		case PE_DENIED: return "not changed: a user may only shorten the limit of a job of "
		                       "theirs (an admin may change any)";
		case PE_INVALID: return "not changed: it is being killed";
		default: break;
		}
	}
	switch (code) {
	case PE_OK: return op == PJ_HOLD ? "held" : "released: queued again";
	case PE_NOJOB: return "no such job";
	case PE_DENIED: return "not your job";
	case PE_DONE: return "already ended";
	case PE_INVALID: return op == PJ_HOLD ? "not held: it is running, or held already" :
	                        "not released: it is not held";
	case PE_TOOBIG: return "not released: more nodes than the partition has in service";
	default: return proto_err_name(code);
	}
}

int jobop_run(const char *prog, const char *socket, enum proto_jobop op, bool admin,
               bf_time limit, int nargs, char **args)
{
	uint64_t *ids = calloc((size_t)nargs + 1, sizeof *ids);
	struct proto_arena a = { 0 };
	struct proto_cancelled res;
	struct proto_buf req;
	uint8_t *reply = NULL;
	size_t len = 0;
	uint32_t n = 0;
	char err[512];
	int rc = CLIENT_EXIT_OK;

	if (!ids) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return CLIENT_EXIT_UNREACHABLE;
	}
	for (int i = 0; i < nargs; i++) {
		uint64_t id;
		bool seen = false;

		if (client_parse_id(args[i], &id) < 0) {
			fprintf(stderr, "%s: '%s' is not a job ID (a whole number from 1)\n"
			        "Try '%s --help' for more information.\n", prog, args[i], prog);
			free(ids);
			return CLIENT_EXIT_USAGE;
		}
		for (uint32_t k = 0; k < n && !seen; k++)
			seen = ids[k] == id;
		if (!seen && n == PROTO_MAX_LIST) {
			fprintf(stderr, "%s: more than %u jobs at once\n", prog, PROTO_MAX_LIST);
			free(ids);
			return CLIENT_EXIT_USAGE;
		}
		if (!seen)
			ids[n++] = id;
	}
	if (n == 0) {
		fprintf(stderr, "%s: which jobs? Give one or more job IDs\n"
		        "Try '%s --help' for more information.\n", prog, prog);
		free(ids);
		return CLIENT_EXIT_USAGE;
	}
	proto_buf_init(&req);
	if (proto_enc_jobctl(&req, &(struct proto_jobctl){ .op = op, .admin = admin, .limit = limit,
	                                                  .ids = ids, .count = n }) < 0)
		rc = CLIENT_EXIT_UNREACHABLE;
	else
		rc = client_call(prog, socket, &req, PT_JOBCTLED, &reply, &len);
	proto_buf_free(&req);
	if (rc == 0 && proto_dec_jobctled(reply, len, &res, &a, err, sizeof err) < 0) {
		fprintf(stderr, "%s: unreadable reply from backfilld: %s\n", prog, err);
		rc = CLIENT_EXIT_UNREACHABLE;
	}
	for (uint32_t k = 0, answered = rc == 0; answered && k < n; k++) {
		uint32_t r = 0;

		while (r < res.count && res.ids[r] != ids[k])
			r++;
		printf("Job %" PRIu64 ": %s\n", ids[k], r < res.count ? result(op, res.codes[r]) :
		       "no answer from backfilld");
		if (op == PJ_HOLD && !admin && r < res.count && res.codes[r] == PE_INVALID)
			printf("  (bstop holds a queued job; a running one is suspended with "
			       "bkill -s STOP %" PRIu64 " and resumed with bkill -s CONT %" PRIu64
			       ": it keeps its nodes, and its time limit runs on)\n", ids[k], ids[k]);
		if (r == res.count || res.codes[r] != PE_OK)
			rc = CLIENT_EXIT_REFUSED;
	}
	if (fflush(stdout) != 0 && rc == CLIENT_EXIT_OK)
		rc = CLIENT_EXIT_REFUSED;
	proto_arena_free(&a);
	free(reply);
	free(ids);
	return rc;
}

static void usage(FILE *f, const char *prog, enum proto_jobop op)
{
	fprintf(f,
"usage: %s [--socket PATH] ID...\n"
"       %s --help | --version\n"
"\n", prog, prog);
	if (op == PJ_HOLD)
		fprintf(f,
"Hold your queued jobs ID...: each leaves the queue (and the plan) and waits,\n"
"held, until bresume releases it. A running job is not held: suspend it with\n"
"bkill -s STOP ID (it keeps its nodes and its time limit runs on), resume it\n"
"with bkill -s CONT ID.\n");
	else
		fprintf(f,
"Release your held jobs ID...: each queues again as a new arrival, behind the\n"
"jobs waiting now, with a new guarantee (conservative backfilling).\n");
	fprintf(f,
"\n"
"  --socket PATH   the daemon's socket (default: as bq finds it)\n"
"\n"
"Exit status: 0 every job done, 1 some job not (or the daemon refused), 2\n"
"usage error, 3 the daemon could not be reached. See bstop(1).\n");
}

int jobop_main(const char *prog, enum proto_jobop op, int argc, char **argv)
{
	const char *socket = NULL;
	int i = 1;

	for (; i < argc && argv[i][0] == '-' && !(argv[i][1] >= '0' && argv[i][1] <= '9'); i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--socket") == 0 || strncmp(a, "--socket=", 9) == 0) {
			socket = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
			if (!socket || !*socket) {
				fprintf(stderr, "%s: --socket needs a socket path\n", prog);
				return CLIENT_EXIT_USAGE;
			}
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout, prog, op);
			return fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
		} else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			printf("%s (backfilld) %s\n", prog, BACKFILLD_VERSION);
			return fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
		} else {
			fprintf(stderr, "%s: unknown option '%s'\nTry '%s --help' for more "
			        "information.\n", prog, a, prog);
			return CLIENT_EXIT_USAGE;
		}
	}
	return jobop_run(prog, socket, op, false, 0, argc - i, argv + i);
}
