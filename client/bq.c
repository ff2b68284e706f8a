/* bq: list backfilld's jobs, one job in detail, or the free-node profile.
 * See bq(1). */
#include <ctype.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <time.h>
#include <unistd.h>
#include "bq_ended.h"
#include "bq_history.h"
#include "client.h"
#include "jobarray.h"
#include "proto.h"
#include "render.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: bq [-a | -u USER] [-A] [-w] [--ended N] [--json] [--socket PATH]\n"
"       bq ID... [--json] [--socket PATH]\n"
"       bq -l ID [-l ID]... [--json] [--socket PATH]\n"
"       bq -d [-a | -u USER] [-w] [--since WHEN] [--until WHEN] [--json] [--socket PATH]\n"
"       bq --swf [-u USER] [--since WHEN] [--until WHEN] [--socket PATH]\n"
"       bq --profile [--json] [--socket PATH]\n"
"       bq --nodes [--json] [--socket PATH]\n"
"       bq --help | --version\n"
"\n"
"Show backfilld's jobs: by default yours, one line each.\n"
"\n"
"  -a              all users' jobs (-u all: the same)\n"
"  -A              each element of a job array on its own line (ID[INDEX]),\n"
"                  not the array's one line\n"
"  -u USER         USER's jobs (a name or a uid)\n"
"  --ended N       the N most recently ended jobs after the unfinished ones,\n"
"                  0 to 1000 (default 100); bq -d lists ended jobs by time\n"
"  -w              wide: user and job names (with -d, exit statuses) are not cut\n"
"  ID...           those jobs, one line each (ID[INDEX], ID[1-5]: an array's\n"
"                  elements; bq ID of an array: each of its elements)\n"
"  -l ID           everything about job ID (more IDs: each in turn)\n"
"  -d              ended jobs (yours; -a, -u: others'), with exit status, run\n"
"                  and CPU time, in the order they ended\n"
"  --since WHEN    -d, --swf: ended at or after WHEN (YYYY-MM-DD, 'YYYY-MM-DD\n"
"                  HH:MM', or 2h, 1d: that long ago)\n"
"  --until WHEN    -d, --swf: ended before WHEN\n"
"  --swf           ended jobs (everyone's unless -u) in the Standard Workload\n"
"                  Format, for backfilld --replay\n"
"  --profile       free nodes over future time, as a chart\n"
"  --nodes         the partition's nodes: which job holds which, which are free,\n"
"                  drained or down\n"
"  --json          JSON instead of text (keys listed in bq(1))\n"
"  --socket PATH   the daemon's socket (default: $BACKFILLD_SOCKET, else the\n"
"                  socket key of $BACKFILLD_CONFIG or /etc/backfilld/backfilld.yaml,\n"
"                  else /run/backfilld/backfilld.sock if it exists, else the\n"
"                  per-user default)\n"
"\n"
"START and END: a plain time is actual; <= marks a time at the latest (a\n"
"conservative backfilling guarantee, or a running job's time limit); ~ marks\n"
"a prediction that is not a promise (EASY, FCFS).\n"
"\n"
"Exit status: 0 done, 1 refused by the daemon, 2 usage error, 3 the daemon\n"
"could not be reached. See bq(1).\n");
}

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("bq: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'bq --help' for more information.\n", stderr);
	return CLIENT_EXIT_USAGE;
}

enum mode { M_LIST, M_INFO, M_PROFILE, M_NODES, M_HISTORY };

/* bq -u USER: keep the jobs of USER (a name, or a uid in digits). */
static void only_user(struct proto_jobs *js, const char *user)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < js->count; k++)
		if (client_job_of(&js->jobs[k], user))
			js->jobs[n++] = js->jobs[k];
	js->count = n;
	js->total = 0;
}

/* One job reference, ID or an array's elements ID[SPEC] (jobarray.h),
 * each added as (id, index) (index 0: the job or array itself). 0, or -1
 * said as a usage error. */
static int add_refs(const char *s, uint64_t *ids, uint32_t *idxs, uint32_t *n, uint64_t *last,
                    bool *indexed)
{
	struct jobref r;
	char why[300];
	size_t pos = 0;

	if (jobref_parse(s, &r, why, sizeof why, &pos) < 0) {
		usage_error("'%s' is not a job ID (a whole number from 1, or ID[INDEX] for an array's "
		            "element): at column %zu: %s", s, pos + 1, why);
		return -1;
	}
	for (uint32_t k = 0; k < (r.count ? r.count : 1); k++) {
		if (*n == PROTO_MAX_LIST) {
			jobref_free(&r);
			usage_error("more than %u jobs at once", PROTO_MAX_LIST);
			return -1;
		}
		ids[*n] = r.id;
		idxs[(*n)++] = r.count ? r.index[k] : 0;
	}
	*indexed |= r.count > 0;
	*last = r.id;
	jobref_free(&r);
	return 0;
}

/* The elements of array `id`, a line each (a PT_LIST of that id). */
static int show_elements(const char *socket, uint64_t id, bool json)
{
	struct proto_buf req;
	struct proto_arena arena = { 0 };
	struct proto_jobs js;
	uint8_t *reply = NULL;
	size_t len = 0;
	char err[512];
	int rc;

	proto_buf_init(&req);
	if (proto_enc_list(&req, PT_LIST, &(struct proto_list){ .has_job = true, .job = id,
	                                                       .all_users = true }) < 0) {
		proto_buf_free(&req);
		fprintf(stderr, "bq: out of memory\n");
		return CLIENT_EXIT_UNREACHABLE;
	}
	rc = client_call("bq", socket, &req, PT_JOBS, &reply, &len);
	proto_buf_free(&req);
	if (rc == 0 && proto_dec_jobs(reply, len, &js, &arena, err, sizeof err) < 0) {
		fprintf(stderr, "bq: unreadable reply from backfilld: %s\n", err);
		rc = CLIENT_EXIT_UNREACHABLE;
	} else if (rc == 0 && json) {
		render_json(stdout, &js, false);
	} else if (rc == 0 && render_table(stdout, &js, true) < 0) {
		fprintf(stderr, "bq: out of memory for %u rows\n", js.count);
		rc = CLIENT_EXIT_UNREACHABLE;
	}
	free(reply);
	proto_arena_free(&arena);
	return rc;
}

/* bq ID... (a table of those jobs) and bq -l ID... (each in detail): one
 * request per job, in the order given. A job that is not there is said
 * on standard error (exit 1) and the others are shown. */
static int show_ids(const char *socket, const uint64_t *ids, const uint32_t *idxs, uint32_t n,
                    bool detail, bool json)
{
	struct proto_job *rows = calloc(n, sizeof *rows);
	struct proto_arena *arenas = calloc(n, sizeof *arenas);
	uint8_t **replies = calloc(n, sizeof *replies);
	uint32_t got = 0;
	int rc = CLIENT_EXIT_OK;

	if (!rows || !arenas || !replies) {
		fprintf(stderr, "bq: out of memory\n");
		rc = CLIENT_EXIT_UNREACHABLE;
		goto out;
	}
	for (uint32_t k = 0; k < n; k++) {
		int r = client_element_info("bq", socket, ids[k], idxs[k], &rows[got], &arenas[k],
		                            &replies[k]);

		if (r == CLIENT_EXIT_NOJOB && idxs[k]) {
			fprintf(stderr, "bq: job %" PRIu64 "[%" PRIu32 "]: no such job\n", ids[k],
			        idxs[k]);
			r = CLIENT_EXIT_REFUSED;
		} else if (r == CLIENT_EXIT_NOJOB) {
			fprintf(stderr, "bq: job %" PRIu64 ": no such job\n", ids[k]);
			r = CLIENT_EXIT_REFUSED;
		} else if (r == 0) {
			got++;
		}
		if (r > rc)
			rc = r;		/* unreachable (3) outranks refused (1) */
		if (r == CLIENT_EXIT_UNREACHABLE)
			break;
	}
	if (got == 1 && n == 1 && !detail && rows[0].array_counts) {
		/* bq ID of an array: its elements, a line each. */
		rc = show_elements(socket, ids[0], json);
	} else if (got == 0 && rc == CLIENT_EXIT_UNREACHABLE) {
		/* nothing to show */
	} else if (json) {
		render_json(stdout, &(struct proto_jobs){ .jobs = rows, .count = got, .total = 0 }, false);
	} else if (detail) {
		for (uint32_t k = 0; k < got; k++) {
			if (k)
				putchar('\n');
			render_info(stdout, &rows[k], client_wall_now());
		}
	} else if (got && render_table(stdout, &(struct proto_jobs){ .jobs = rows, .count = got, .total = 0 }, true) < 0) {
		fprintf(stderr, "bq: out of memory for %u rows\n", got);
		rc = CLIENT_EXIT_UNREACHABLE;
	}
	if (fflush(stdout) != 0 && rc == 0) {
		fprintf(stderr, "bq: cannot write the output\n");
		rc = CLIENT_EXIT_REFUSED;
	}
out:
	for (uint32_t k = 0; replies && arenas && k < n; k++) {
		free(replies[k]);
		proto_arena_free(&arenas[k]);
	}
	free(replies);
	free(arenas);
	free(rows);
	return rc;
}

int main(int argc, char **argv)
{
	enum mode mode = M_LIST;
	bool all = false, json = false, elements = false, indexed = false;
	const char *socket = NULL;
	static uint64_t ids[PROTO_MAX_LIST];
	static uint32_t idxs[PROTO_MAX_LIST];

	/* A listing of 10,000 jobs is a few MB, read once: from the heap in
	 * one piece, not a mapping per large block grown, copied and unmapped
	 * (a tenth of bq -a). */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	mallopt(M_TOP_PAD, 8 << 20);
	const char *user = NULL;	/* -u: one user's jobs ("all": everyone's) */
	struct bq_history_opts hist = { .since = BF_NEVER, .until = BF_NEVER, .uid = -1 };
	bool since_until = false, has_ended = false;
	uint32_t nids = 0, ended = 0;
	uint64_t id = 0;
	struct proto_buf req;
	struct proto_arena arena = { 0 };
	uint8_t *reply = NULL;
	size_t reply_len = 0;
	char err[512];
	int rc, enc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-a") == 0) {
			all = true;
		} else if (strcmp(a, "-A") == 0) {
			elements = true;
		} else if (strcmp(a, "-d") == 0 || strcmp(a, "--swf") == 0) {
			if (mode != M_LIST && mode != M_HISTORY)
				return usage_error("%s does not go with -l, --profile or --nodes", a);
			mode = M_HISTORY;
			hist.swf |= a[1] == '-';
		} else if (strcmp(a, "--since") == 0 || strcmp(a, "--until") == 0) {
			bf_time *t = a[2] == 's' ? &hist.since : &hist.until;

			if (i + 1 >= argc || bq_parse_when(argv[i + 1], client_wall_now(), t) < 0)
				return usage_error("%s needs a time: YYYY-MM-DD, 'YYYY-MM-DD HH:MM[:SS]', or "
				                   "a duration before now (2h, 1d)%s%s%s", a,
				                   i + 1 < argc ? ", not '" : "",
				                   i + 1 < argc ? argv[i + 1] : "", i + 1 < argc ? "'" : "");
			i++;
			since_until = true;
		} else if (strcmp(a, "--ended") == 0 || strncmp(a, "--ended=", 8) == 0) {
			const char *v = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);

			if (!v)
				return usage_error("option --ended needs a number of jobs (0 to %u)",
				                   PROTO_MAX_ENDED);
			if (bq_parse_ended(v, &ended) < 0)
				return usage_error("--ended: '%.60s' is not a number of jobs from 0 to %u",
				                   v, PROTO_MAX_ENDED);
			has_ended = true;
		} else if (strcmp(a, "-w") == 0) {
			render_set_wide(true);
			hist.wide = true;
		} else if (strcmp(a, "-u") == 0) {
			if (i + 1 >= argc || !*argv[i + 1])
				return usage_error("option -u needs a user name, a uid or 'all'");
			user = argv[++i];
			all = true;
		} else if (strcmp(a, "--json") == 0) {
			json = true;
		} else if (strcmp(a, "--profile") == 0 || strcmp(a, "--nodes") == 0) {
			if (mode != M_LIST)
				return usage_error("%s: -l, --profile and --nodes do not go together", a);
			mode = a[2] == 'p' ? M_PROFILE : M_NODES;
		} else if (strcmp(a, "-l") == 0) {
			if (mode != M_LIST && mode != M_INFO)
				return usage_error("%s: -l, --profile and --nodes do not go together", a);
			if (i + 1 >= argc)
				return usage_error("option %s needs a job ID", a);
			if (add_refs(argv[++i], ids, idxs, &nids, &id, &indexed) < 0)
				return CLIENT_EXIT_USAGE;
			mode = M_INFO;
		} else if (strcmp(a, "--socket") == 0 || strncmp(a, "--socket=", 9) == 0) {
			socket = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
			if (!socket)
				return usage_error("option %s needs a value (a socket path)", a);
			if (!*socket)
				return usage_error("%s: the path is empty", "--socket");
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
		} else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			printf("bq (backfilld) %s\n", BACKFILLD_VERSION);
			return fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
		} else if (a[0] == '-') {
			return usage_error("unknown option '%s'", a);
		} else if (isdigit((unsigned char)a[0])) {
			if (mode != M_LIST && mode != M_INFO)
				return usage_error("job IDs do not go with --profile or --nodes");
			if (add_refs(a, ids, idxs, &nids, &id, &indexed) < 0)
				return CLIENT_EXIT_USAGE;
		} else {
			return usage_error("unexpected argument '%s' (not a job ID: a whole number "
			                   "from 1)", a);
		}
	}
	if (has_ended && (mode != M_LIST || nids))
		return usage_error("--ended goes with a listing (bq, bq -a, bq -u USER), not with "
		                   "job IDs, -l, -d, --swf, --profile or --nodes");
	if (since_until && mode != M_HISTORY)
		return usage_error("--since and --until go with -d or --swf (ended jobs)");
	if (mode == M_HISTORY) {
		if (nids)
			return usage_error("-d and --swf take no job IDs (bq -l ID shows one)");
		if (hist.swf && (json || hist.wide))
			return usage_error("--swf writes SWF: %s does not go with it",
			                   json ? "--json" : "-w");
		hist.socket = socket;
		hist.json = json;
		if (user && strcmp(user, "all") != 0) {
			struct passwd *pw = getpwnam(user);
			uint64_t uid;

			if (pw)
				hist.uid = pw->pw_uid;
			else if (client_parse_id(user, &uid) == 0 && uid <= UINT32_MAX)
				hist.uid = (int64_t)uid;
			else if (strcmp(user, "0") == 0)
				hist.uid = 0;
			else
				return usage_error("-u: no user '%s' here (a name, a uid or 'all')", user);
		} else if (!all && !hist.swf) {
			hist.uid = getuid();	/* yours, as the listing */
		}
		return bq_history(&hist);
	}
	if (all && (mode != M_LIST || nids))
		return usage_error("%s: -a and -u list users' jobs; they do not go with job IDs, "
		                   "-l, --profile or --nodes", user ? "-u" : "-a");
	if (elements && (mode != M_LIST || nids))
		return usage_error("-A lists arrays' elements: it goes with a listing, not with "
		                   "job IDs (bq -l \"ID[INDEX]\" shows one element)");
	if (nids > 1 || (nids == 1 && mode == M_LIST) || indexed)
		return show_ids(socket, ids, idxs, nids, mode == M_INFO, json);

	proto_buf_init(&req);
	if (mode == M_PROFILE)
		enc = proto_enc_profile(&req);
	else if (mode == M_NODES)
		enc = proto_enc_nodes(&req);
	else
		enc = proto_enc_list(&req, mode == M_INFO ? PT_INFO : PT_LIST,
		                     &(struct proto_list){ .all_users = all, .has_job = mode == M_INFO,
		                                           .job = id, .forecast = true,
		                                           .elements = elements,
		                                           .has_ended = has_ended,
		                                           .ended = ended });
	if (enc < 0) {
		proto_buf_free(&req);
		fprintf(stderr, "bq: out of memory\n");
		return CLIENT_EXIT_UNREACHABLE;
	}
	rc = client_call("bq", socket, &req,
	                 mode == M_PROFILE ? PT_STEPS : mode == M_NODES ? PT_NODEMAP : PT_JOBS,
	                 &reply, &reply_len);
	proto_buf_free(&req);
	if (rc != 0)
		return rc;

	if (mode == M_NODES) {
		struct proto_nodemap nm;

		if (proto_dec_nodemap(reply, reply_len, &nm, &arena, err, sizeof err) < 0 ||
		    render_nodes(stdout, &nm, json) < 0)
			goto unreadable;
	} else if (mode == M_PROFILE) {
		struct proto_steps st;

		if (proto_dec_steps(reply, reply_len, &st, &arena, err, sizeof err) < 0)
			goto unreadable;
		if (json)
			render_profile_json(stdout, &st, client_wall_now());
		else
			render_profile(stdout, &st, client_wall_now());
	} else {
		struct proto_jobs js;

		if (proto_dec_jobs(reply, reply_len, &js, &arena, err, sizeof err) < 0)
			goto unreadable;
		render_set_forecast(js.forecast_at, js.forecast_stale);
		if (user && strcmp(user, "all") != 0)
			only_user(&js, user);
		if (mode == M_INFO && js.count == 0) {
			fprintf(stderr, "bq: job %" PRIu64 ": no such job\n", id);
			rc = CLIENT_EXIT_REFUSED;
		} else if (mode == M_INFO && js.jobs[0].id != id) {
			fprintf(stderr, "bq: backfilld answered with job %" PRIu64 " for job %" PRIu64
			        "\n", js.jobs[0].id, id);
			rc = CLIENT_EXIT_UNREACHABLE;
		} else if (json) {
			render_json(stdout, &js, mode == M_INFO);
			if (js.total > js.count)
				fprintf(stderr, "bq: showing %u of %u jobs (the rest did not fit one "
				        "answer)\n", js.count, js.total);
		} else if (mode == M_INFO) {
			render_info(stdout, &js.jobs[0], client_wall_now());
		} else {
			if (render_table(stdout, &js, all) < 0) {
				fprintf(stderr, "bq: out of memory for %u rows\n", js.count);
				rc = CLIENT_EXIT_UNREACHABLE;
			}
			if (js.total > js.count)
				fprintf(stderr, "bq: showing %u of %u jobs (the rest did not fit one "
				        "answer)\n", js.count, js.total);
		}
	}
	if (fflush(stdout) != 0 && rc == 0) {
		fprintf(stderr, "bq: cannot write the output\n");
		rc = CLIENT_EXIT_REFUSED;
	}
	proto_arena_free(&arena);
	free(reply);
	return rc;

unreadable:
	fprintf(stderr, "bq: unreadable reply from backfilld: %s\n", err);
	proto_arena_free(&arena);
	free(reply);
	return CLIENT_EXIT_UNREACHABLE;
}
