/* bkill: cancel backfilld jobs. See bkill(1). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "client.h"
#include "jobarray.h"
#include "proto.h"
#include "render.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: bkill [--socket PATH] [-s SIGNAL] [-u USER|all] [--] [ID... | 0]\n"
"       bkill --help | --version\n"
"\n"
"Cancel the jobs ID...: a queued job leaves the queue; a running job gets\n"
"SIGTERM, then SIGKILL after the site's grace time. Prints one line per job.\n"
"ID 0 is every unfinished job of yours. -u USER (root and the admin group;\n"
"'all': everyone) with 0 is every unfinished job of USER's; with IDs, those\n"
"of them that are USER's; alone, USER's most recently submitted unfinished\n"
"job, as in LSF. -s SIGNAL sends SIGNAL (TERM, KILL, USR1, STOP, CONT, ... or\n"
"a number) to each running job instead.\n"
"\n"
"  --              the end of the options\n"
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

/* A set of job ids, grown as needed, with a lookup by open addressing
 * (bkill 0 may name 100,000 jobs: no quadratic scans). */
struct idset {
	uint64_t *v;		/* in the order added */
	uint32_t n, cap;
	uint64_t *slot;		/* 0: empty */
	uint32_t nslots;	/* a power of two, at least twice n */
};

static bool idset_has(const struct idset *s, uint64_t id)
{
	if (!s->nslots)
		return false;
	for (uint32_t h = (uint32_t)(id * 0x9e3779b97f4a7c15ull >> 32) & (s->nslots - 1);;
	     h = (h + 1) & (s->nslots - 1)) {
		if (s->slot[h] == id)
			return true;
		if (!s->slot[h])
			return false;
	}
}

/* Add id unless there; -1 if memory ran out. */
static int idset_add(struct idset *s, uint64_t id)
{
	if (idset_has(s, id))
		return 0;
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 1024;
		uint64_t *v = realloc(s->v, cap * sizeof *v);

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	if (2 * (s->n + 1) > s->nslots) {
		uint32_t ns = s->nslots ? 2 * s->nslots : 2048;
		uint64_t *slot = calloc(ns, sizeof *slot);

		if (!slot)
			return -1;
		free(s->slot);
		s->slot = slot;
		s->nslots = ns;
		for (uint32_t k = 0; k < s->n; k++) {
			uint32_t h = (uint32_t)(s->v[k] * 0x9e3779b97f4a7c15ull >> 32) & (ns - 1);

			while (s->slot[h])
				h = (h + 1) & (ns - 1);
			s->slot[h] = s->v[k];
		}
	}
	s->v[s->n++] = id;
	for (uint32_t h = (uint32_t)(id * 0x9e3779b97f4a7c15ull >> 32) & (s->nslots - 1);;
	     h = (h + 1) & (s->nslots - 1))
		if (!s->slot[h]) {
			s->slot[h] = id;
			return 0;
		}
}

static void idset_free(struct idset *s)
{
	free(s->v);
	free(s->slot);
}

/* bkill 0 and bkill -u USER: every queued or running job of mine (or of
 * USER, or everyone's for "all") that is not in `done`, into `out`:
 * the waiting ones first, the newest first (none of them starts because
 * a job before it left), then the running ones. A listing that does not
 * hold every job shows the running ones and the head of the queue: then
 * the running ones wait while it shows waiting ones to cancel, or running
 * ones cancelled already and still ending (which hide the rest), so that
 * no waiting job it does not show starts on the nodes they free. 0, or
 * the exit code. */
static int find_unfinished(const char *socket, const char *user, const struct idset *done,
                           struct idset *out, bool *complete)
{
	struct proto_buf req;
	struct proto_arena a = { 0 };
	struct proto_jobs js = { 0 };
	uint8_t *reply = NULL;
	size_t len = 0;
	char err[512];
	uint32_t before = out->n, ending = 0;
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
	/* Every unfinished job is shown if the listing is whole, or if it
	 * shows an ended job (those come after the unfinished ones). */
	*complete = rc == 0 && (js.total <= js.count || !js.count ||
	                        render_job_ended(&js.jobs[js.count - 1]));
	for (uint32_t k = 0; rc == 0 && k < js.count; k++)
		ending += !render_job_ended(&js.jobs[k]) && strcmp(js.jobs[k].state, "running") == 0 &&
		          idset_has(done, js.jobs[k].id);
	for (int running = 0; rc == 0 && running < 2; running++) {
		if (running && !*complete && (out->n > before || ending))
			break;	/* waiting jobs found, or some still ending: next round */
		for (uint32_t k = js.count; rc == 0 && k-- > 0;) {
			const struct proto_job *j = &js.jobs[k];

			if (render_job_ended(j) || (strcmp(j->state, "running") == 0) != running ||
			    idset_has(done, j->id))
				continue;
			if (user && strcmp(user, "all") != 0 && !client_job_of(j, user))
				continue;
			if (idset_add(out, j->id) < 0) {
				fprintf(stderr, "bkill: out of memory\n");
				rc = CLIENT_EXIT_UNREACHABLE;
			}
		}
	}
	proto_arena_free(&a);
	free(reply);
	return rc;
}

/* bkill -u USER ID...: keep the ids that are USER's unfinished jobs, asked
 * one by one as bq -l asks; say why each other one is left. 0, or the
 * exit code (refused if any was left, unreachable ends it). */
static int keep_users(const char *socket, const char *user, struct idset *ids)
{
	struct idset kept = { 0 };
	int rc = CLIENT_EXIT_OK;

	for (uint32_t k = 0; k < ids->n && rc != CLIENT_EXIT_UNREACHABLE; k++) {
		struct proto_arena a = { 0 };
		struct proto_job job;
		uint8_t *reply;
		int r = client_job_info("bkill", socket, ids->v[k], &job, &a, &reply);

		if (r == CLIENT_EXIT_NOJOB) {
			printf("Job %" PRIu64 ": no such job\n", ids->v[k]);
			r = CLIENT_EXIT_REFUSED;
		} else if (r == 0 && strcmp(user, "all") != 0 && !client_job_of(&job, user)) {
			printf("Job %" PRIu64 ": not %s's (-u %s); not cancelled\n", ids->v[k], user,
			       user);
			r = CLIENT_EXIT_REFUSED;
		} else if (r == 0 && idset_add(&kept, ids->v[k]) < 0) {
			fprintf(stderr, "bkill: out of memory\n");
			r = CLIENT_EXIT_UNREACHABLE;
		}
		if (r > rc)
			rc = r;
		proto_arena_free(&a);
		free(reply);
	}
	idset_free(ids);
	*ids = kept;
	return rc;
}

/* bkill -u USER alone: USER's unfinished job with the highest id (the
 * most recently submitted), into ids. 0, or the exit code. */
static int newest_of(const char *socket, const char *user, struct idset *ids)
{
	struct idset found = { 0 };
	bool complete;
	uint64_t newest = 0;
	int rc = find_unfinished(socket, user, &found, &found, &complete);

	if (rc == 0 && !complete) {
		/* The newest may be past what one listing holds: no guessing. */
		fprintf(stderr, "bkill: more jobs than one listing holds: which is %s's newest is not "
		        "known here; give its id (bkill -u %s ID), or 0 for all of them\n", user,
		        user);
		rc = CLIENT_EXIT_REFUSED;
	}
	for (uint32_t k = 0; rc == 0 && k < found.n; k++)
		if (found.v[k] > newest)
			newest = found.v[k];
	if (rc == 0 && newest && idset_add(ids, newest) < 0) {
		fprintf(stderr, "bkill: out of memory\n");
		rc = CLIENT_EXIT_UNREACHABLE;
	}
	idset_free(&found);
	return rc;
}

/* Rounds of bkill 0 at most: jobs submitted as fast as they are cancelled
 * do not keep it going for ever. */
#define MAX_ROUNDS 100
#define ROUND_WAIT_NS 100000000	/* 0.1 s */
#define MAX_WAITS 1200		/* 120 s for cancelled jobs to end (a kill grace) */

/* One request for ids[0..n) (at most PROTO_MAX_LIST), one line per job in
 * the order given. 0, or the exit code. */
static int cancel_some(const char *socket, const uint64_t *ids, uint32_t n, int sig)
{
	struct proto_buf req;
	struct proto_arena arena = { 0 };
	struct proto_cancelled cd;
	uint8_t *reply = NULL;
	size_t reply_len = 0;
	char err[512];
	int rc;

	proto_buf_init(&req);
	if (proto_enc_cancel(&req, &(struct proto_cancel){ ids, n, sig }) < 0) {
		proto_buf_free(&req);
		fprintf(stderr, "bkill: out of memory\n");
		return CLIENT_EXIT_UNREACHABLE;
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
	/* The reply answers in the order asked: look it up by position,
	 * else by a scan (a reply in another order is still read right). */
	for (uint32_t k = 0; k < n; k++) {
		uint32_t r = k < cd.count && cd.ids[k] == ids[k] ? k : 0;

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
out:
	proto_arena_free(&arena);
	free(reply);
	return rc;
}

/* Send every id of `s` from `from` on, PROTO_MAX_LIST a request; the
 * worst exit code (unreachable ends it). */
static int cancel_all_of(const char *socket, const struct idset *s, uint32_t from, int sig)
{
	int rc = CLIENT_EXIT_OK;

	for (uint32_t k = from; k < s->n; k += PROTO_MAX_LIST) {
		uint32_t m = s->n - k < PROTO_MAX_LIST ? s->n - k : PROTO_MAX_LIST;
		int r = cancel_some(socket, s->v + k, m, sig);

		if (r == CLIENT_EXIT_UNREACHABLE)
			return r;
		if (r != CLIENT_EXIT_OK)
			rc = r;
	}
	return rc;
}

/* The elements "ID[SPEC]" names, found by their indices and added by
 * their own ids; 0, or an exit code (said). */
static int add_elements(const char *socket, const char *s, struct idset *ids, bool *missing)
{
	struct jobref r;
	char why[300];
	size_t pos = 0;
	int rc = 0;

	if (jobref_parse(s, &r, why, sizeof why, &pos) < 0) {
		fprintf(stderr, "bkill: '%s' is not a job ID: at column %zu: %s\n", s, pos + 1, why);
		return CLIENT_EXIT_USAGE;
	}
	for (uint32_t k = 0; k < r.count && rc == 0; k++) {
		struct proto_arena a = { 0 };
		struct proto_job job;
		uint8_t *reply = NULL;
		int e = client_element_info("bkill", socket, r.id, r.index[k], &job, &a, &reply);

		/* (an element that is not there is said, by the daemon's answer
		 * or here, and the others are still cancelled) */
		if (e == CLIENT_EXIT_NOJOB)
			printf("Job %" PRIu64 "[%" PRIu32 "]: no such job\n", r.id, r.index[k]);
		if (e == CLIENT_EXIT_NOJOB || e == CLIENT_EXIT_REFUSED)
			*missing = true;
		else if (e != 0)
			rc = e;
		else if (ids->n == PROTO_MAX_LIST && !idset_has(ids, job.id))
			rc = (fprintf(stderr, "bkill: more than %u jobs at once\n", PROTO_MAX_LIST),
			      CLIENT_EXIT_USAGE);
		else if (idset_add(ids, job.id) < 0)
			rc = (fprintf(stderr, "bkill: out of memory\n"), CLIENT_EXIT_UNREACHABLE);
		free(reply);
		proto_arena_free(&a);
	}
	jobref_free(&r);
	return rc;
}

int main(int argc, char **argv)
{
	const char *socket = NULL;
	struct idset ids = { 0 };	/* asked for, in the order given or found */
	bool opts = true, every = false, missing = false;
	int sig = 0;		/* -s: a signal to send instead of cancelling */
	const char *user = NULL;	/* -u USER: that user's unfinished jobs ("all": everyone's) */
	bool finished = false;	/* bkill 0: a listing showed nothing new */
	int rc = CLIENT_EXIT_OK;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		uint64_t id;

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
			if (!client_user_known(user)) {
				rc = usage_error("-u: no user '", user, "' here (a name, a uid or 'all')");
				goto out;
			}
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
		if (strchr(a, '[')) {
			/* "ID[SPEC]": those elements of array ID, each by its own id. */
			if ((rc = add_elements(socket, a, &ids, &missing)) != 0)
				goto out;
			continue;
		}
		if (client_parse_id(a, &id) < 0) {
			rc = usage_error("'", a, "' is not a job ID (a whole number from 1, or "
			                 "ID[INDEX] for an array's elements)");
			goto out;
		}
		if (!idset_has(&ids, id) && ids.n == PROTO_MAX_LIST) {
			fprintf(stderr, "bkill: more than %u jobs at once (bkill 0 or -u cancels "
			        "any number)\n", PROTO_MAX_LIST);
			rc = CLIENT_EXIT_USAGE;
			goto out;
		}
		if (idset_add(&ids, id) < 0) {
			fprintf(stderr, "bkill: out of memory\n");
			rc = CLIENT_EXIT_UNREACHABLE;
			goto out;
		}
	}
	if (ids.n == 0 && !every && !user && !missing) {
		rc = usage_error("which jobs? Give one or more job IDs, as in bkill 42 (0: all of "
		                 "yours)", "", "");
		goto out;
	}
	if (user && ids.n)
		rc = keep_users(socket, user, &ids);	/* -u USER ID...: USER's only */
	else if (user && !every)
		rc = newest_of(socket, user, &ids);	/* -u USER alone: the newest */
	if (ids.n && rc != CLIENT_EXIT_UNREACHABLE) {
		int r = cancel_all_of(socket, &ids, 0, sig);

		if (r != CLIENT_EXIT_OK)
			rc = r;
	}
	/* bkill 0 (with -u: USER's): in rounds, until a listing shows no
	 * unfinished job not asked for yet (jobs past what one listing holds,
	 * or that started meanwhile, come in a later round). Each round asks
	 * for new jobs only, so it ends. */
	for (int round = 0, waits = 0; every && rc != CLIENT_EXIT_UNREACHABLE &&
	     round < MAX_ROUNDS && waits < MAX_WAITS; round++) {
		uint32_t from = ids.n;
		bool complete;
		int r = find_unfinished(socket, user, &ids, &ids, &complete);

		if (r != CLIENT_EXIT_OK) {
			rc = r;
			break;
		}
		if (ids.n == from && complete) {
			finished = true;
			break;
		}
		if (ids.n == from) {
			/* A listing cut short shows only jobs asked already, still
			 * ending (within the site's kill grace): the rest come once
			 * they have. Waiting is no round. */
			nanosleep(&(struct timespec){ 0, ROUND_WAIT_NS }, NULL);
			waits++;
			round--;
			continue;
		}
		if ((r = cancel_all_of(socket, &ids, from, sig)) != CLIENT_EXIT_OK)
			rc = r;
	}
	if (every && !finished && rc == CLIENT_EXIT_OK) {
		fprintf(stderr, "bkill: still finding unfinished jobs after %d rounds, or jobs "
		        "cancelled still ending after %d s (are jobs being submitted as fast?); "
		        "run it again\n", MAX_ROUNDS, MAX_WAITS / 10);
		rc = CLIENT_EXIT_REFUSED;
	}
	if (missing && rc == CLIENT_EXIT_OK)
		rc = CLIENT_EXIT_REFUSED;	/* (an element named is not there: said) */
	if (ids.n == 0 && rc == CLIENT_EXIT_OK)
		printf("No unfinished jobs of %s to cancel.\n", !user ? "yours" :
		       strcmp(user, "all") == 0 ? "anyone" : "that user");
	if (fflush(stdout) != 0 && rc == CLIENT_EXIT_OK)
		rc = CLIENT_EXIT_REFUSED;
out:
	idset_free(&ids);
	return rc;
}
