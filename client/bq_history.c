/* bq -d (ended jobs) and bq --swf (the same, in the Standard Workload
 * Format, for backfilld --replay). See bq(1), HISTORY. */
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bq_history.h"
#include "client.h"
#include "duration.h"
#include "render.h"
#include "swf.h"

int bq_parse_when(const char *s, bf_time now, bf_time *out)
{
	static const char *const formats[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S",
	                                       "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d" };
	char why[200];
	bf_time ago;

	for (size_t k = 0; k < sizeof formats / sizeof *formats; k++) {
		struct tm tm = { .tm_isdst = -1 };
		const char *end = strptime(s, formats[k], &tm);
		time_t t;

		if (end && !*end) {
			if ((t = mktime(&tm)) == (time_t)-1 || t < 0)
				return -1;
			*out = (bf_time)t * BF_SEC;
			return 0;
		}
	}
	if (duration_parse(s, &ago, why, sizeof why) == 0 && ago <= now) {
		*out = now - ago;	/* "2h": that long ago */
		return 0;
	}
	return -1;
}

/* Every page of the history into one array (the rows' strings live in
 * the replies, kept until the end). */
struct hist {
	struct proto_job *jobs;
	uint32_t n, cap;
	uint8_t **replies;
	struct proto_arena *arenas;
	uint32_t npages, pages_cap;
};

static void hist_free(struct hist *h)
{
	for (uint32_t k = 0; k < h->npages; k++) {
		free(h->replies[k]);
		proto_arena_free(&h->arenas[k]);
	}
	free(h->replies);
	free(h->arenas);
	free(h->jobs);
}

static int fetch(const struct bq_history_opts *o, struct hist *h)
{
	struct proto_history q = { .since = o->since, .until = o->until, .uid = o->uid,
	                           .after_end = BF_NEVER, .max = PROTO_HISTORY_PAGE };
	char err[512];

	for (;;) {
		struct proto_buf req;
		struct proto_jobs js;
		size_t len = 0;
		int rc;

		if (h->npages == h->pages_cap) {
			uint32_t cap = h->pages_cap ? 2 * h->pages_cap : 8;
			uint8_t **r = realloc(h->replies, cap * sizeof *r);
			struct proto_arena *a = r ? realloc(h->arenas, cap * sizeof *a) : NULL;

			if (r)
				h->replies = r;
			if (!r || !a)
				goto nomem;
			h->arenas = a;
			h->pages_cap = cap;
		}
		h->replies[h->npages] = NULL;
		h->arenas[h->npages] = (struct proto_arena){ 0 };
		proto_buf_init(&req);
		if (proto_enc_history(&req, &q) < 0) {
			proto_buf_free(&req);
			goto nomem;
		}
		rc = client_call("bq", o->socket, &req, PT_JOBS, &h->replies[h->npages], &len);
		proto_buf_free(&req);
		h->npages++;
		if (rc != 0)
			return rc;
		if (proto_dec_jobs(h->replies[h->npages - 1], len, &js, &h->arenas[h->npages - 1], err,
		                   sizeof err) < 0) {
			fprintf(stderr, "bq: unreadable reply from backfilld: %s\n", err);
			return CLIENT_EXIT_UNREACHABLE;
		}
		if (js.count == 0)
			return 0;
		if (h->n + js.count > h->cap) {
			uint32_t cap = h->cap ? h->cap : 1024;
			struct proto_job *nj;

			while (cap < h->n + js.count)
				cap *= 2;
			if (!(nj = realloc(h->jobs, cap * sizeof *nj)))
				goto nomem;
			h->jobs = nj;
			h->cap = cap;
		}
		memcpy(h->jobs + h->n, js.jobs, js.count * sizeof *js.jobs);
		h->n += js.count;
		/* The next page starts after this one's last job. */
		q.after_end = js.jobs[js.count - 1].end;
		q.after_id = js.jobs[js.count - 1].id;
	}
nomem:
	fprintf(stderr, "bq: out of memory\n");
	return CLIENT_EXIT_UNREACHABLE;
}

/* ---- the table ---- */

/* The widest text of a column (at least its heading's width). */
static size_t widest(const struct hist *h, size_t heading,
                     const char *(*text)(const struct proto_job *, char *, size_t))
{
	char buf[64];
	size_t w = heading;

	for (uint32_t k = 0; k < h->n; k++) {
		size_t t = client_text_width(text(&h->jobs[k], buf, sizeof buf), 0);

		if (t > w)
			w = t;
	}
	return w;
}

static const char *user_of(const struct proto_job *j, char *buf, size_t len)
{
	snprintf(buf, len, "%u", j->uid);
	return j->user && *j->user ? j->user : buf;
}

static const char *name_of(const struct proto_job *j, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return j->name && *j->name ? j->name : "-";
}

/* The exit column, never cut: "0", "3", "SIGTERM", "SIGSEGV+core"; bq -d -w
 * says it in words ("killed by signal 15 (SIGTERM)"). */
static const char *exit_of(const struct proto_job *j, char *buf, size_t len)
{
	snprintf(buf, len, "-");
	if (j->has_exit)
		client_exit_short(j->exit_status, buf, len);
	return buf;
}

static const char *exit_words_of(const struct proto_job *j, char *buf, size_t len)
{
	snprintf(buf, len, "-");
	if (j->has_exit)
		client_exit_status(j->exit_status, buf, len);
	return buf;
}

/* A column of text, cut to its width (with '+') unless wide, then padded. */
static void column(const char *s, size_t width, bool wide)
{
	size_t w = client_put_text(stdout, s, wide ? 0 : width);

	printf("%*s  ", (int)(width > w ? width - w : 0), "");
}

/* A duration to the nearest whole second: 0:00:03, 12:00:00. */
static void whole_seconds(bf_time d, char *buf, size_t len)
{
	duration_format((d + BF_SEC / 2) / BF_SEC * BF_SEC, buf, len);
}

/* The cells of one row that are not cut, formatted once. */
struct hrow {
	char start[32], end[32], run[32], cpu[32];
};

static void fill_hrow(struct hrow *r, const struct proto_job *j, bf_time now)
{
	snprintf(r->start, sizeof r->start, "-");
	snprintf(r->run, sizeof r->run, "-");
	snprintf(r->cpu, sizeof r->cpu, "-");
	if (j->start_kind == PS_ACTUAL) {
		client_format_time_short(j->start, now, r->start, sizeof r->start);
		whole_seconds(j->end - j->start, r->run, sizeof r->run);
	}
	client_format_time_short(j->end, now, r->end, sizeof r->end);
	if (j->cpu_src != PU_NONE)
		whole_seconds(j->cpu_us, r->cpu, sizeof r->cpu);
}

static size_t max_len(size_t w, const char *s)
{
	size_t n = strlen(s);

	return n > w ? n : w;
}

/* JOBID USER NAME STATE EXIT NODES END RUN CPU: a line fits 100 columns
 * (user and name cut at bq's caps). bq -d -w cuts nothing and adds START. */
static void print_table(const struct hist *h, bool wide)
{
	size_t wu = wide ? widest(h, 4, user_of) : RENDER_USER_WIDTH;
	size_t wn = wide ? widest(h, 4, name_of) : RENDER_NAME_WIDTH;
	const char *(*exit_text)(const struct proto_job *, char *, size_t) =
		wide ? exit_words_of : exit_of;
	size_t we = widest(h, 4, exit_text), ws = 5, wend = 3, wr = 3, wc = 3;
	bf_time now = client_wall_now();
	struct hrow *rows = h->n ? calloc(h->n, sizeof *rows) : NULL;
	char buf[64];

	if (h->n && !rows) {
		fprintf(stderr, "bq: out of memory\n");
		return;
	}
	for (uint32_t k = 0; k < h->n; k++) {
		fill_hrow(&rows[k], &h->jobs[k], now);
		ws = max_len(ws, rows[k].start);
		wend = max_len(wend, rows[k].end);
		wr = max_len(wr, rows[k].run);
		wc = max_len(wc, rows[k].cpu);
	}
	printf("%6s  %-*s  %-*s  %-9s  %-*s  %5s  ", "JOBID", (int)wu, "USER", (int)wn, "NAME",
	       "STATE", (int)we, "EXIT", "NODES");
	if (wide)
		printf("%-*s  ", (int)ws, "START");
	printf("%-*s  %*s  %*s\n", (int)wend, "END", (int)wr, "RUN", (int)wc, "CPU");
	for (uint32_t k = 0; k < h->n; k++) {
		const struct proto_job *j = &h->jobs[k];

		printf("%6" PRIu64 "  ", j->id);
		column(user_of(j, buf, sizeof buf), wu, wide);
		column(name_of(j, buf, sizeof buf), wn, wide);
		printf("%-9s  ", j->state ? j->state : "?");
		column(exit_text(j, buf, sizeof buf), we, true);
		printf("%5u  ", j->nodes);
		if (wide)
			printf("%-*s  ", (int)ws, rows[k].start);
		printf("%-*s  %*s  %*s\n", (int)wend, rows[k].end, (int)wr, rows[k].run, (int)wc,
		       rows[k].cpu);
	}
	free(rows);
}

/* ---- SWF ---- */

static int by_submit(const void *a, const void *b)
{
	const struct proto_job *x = a, *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Seconds, to the nearest. */
static int64_t secs(bf_time us)
{
	return (us + BF_SEC / 2) / BF_SEC;
}

/* The SWF's status (field 11): 1 completed, 0 failed, 5 cancelled. Only
 * done (exit 0) completed; exit (non-zero, or a signal of its own),
 * killed at the limit and failed are the standard's failures. A job an
 * older daemon stored as done keeps 1 whatever its exit status. */
static int64_t swf_status(const char *state)
{
	if (state && strcmp(state, "done") == 0)
		return 1;
	if (state && strcmp(state, "cancelled") == 0)
		return 5;
	return 0;
}

static void print_swf(struct hist *h, uint32_t nodes)
{
	int64_t t0;
	char line[SWF_MAX_LINE];

	if (h->n)
		qsort(h->jobs, h->n, sizeof *h->jobs, by_submit);
	t0 = h->n ? h->jobs[0].submit / BF_SEC : 0;	/* whole seconds: the zero */
	printf("; Version: 2.2\n; Computer: backfilld partition\n");
	printf("; Note: exported by bq --swf from backfilld's store; times are seconds, rounded\n");
	printf("; UnixStartTime: %" PRId64 "\n; MaxNodes: %u\n; MaxProcs: %u\n", t0, nodes, nodes);
	printf("; Note: a job's first guaranteed start (conservative) follows it as\n"
	       ";   \"; Guarantee: JOB SECONDS\" (seconds after UnixStartTime)\n");
	for (uint32_t k = 0; k < h->n; k++) {
		const struct proto_job *j = &h->jobs[k];
		struct swf_job r;
		bool ran = j->start_kind == PS_ACTUAL;

		for (int f = 0; f < SWF_FIELDS; f++)
			r.f[f] = -1;
		r.avg_cpu = -1;
		r.f[SWF_JOB] = (int64_t)j->id;
		r.f[SWF_SUBMIT] = secs(j->submit - t0 * BF_SEC);
		if (ran) {
			r.f[SWF_WAIT] = secs(j->start - t0 * BF_SEC) - r.f[SWF_SUBMIT];
			r.f[SWF_RUN] = secs(j->end - j->start);
			r.f[SWF_ALLOC] = j->nodes;
		}
		if (j->cpu_src != PU_NONE && j->nodes) {
			r.avg_cpu = (double)j->cpu_us / BF_SEC / j->nodes;
			r.f[SWF_AVGCPU] = (int64_t)r.avg_cpu;
		}
		if (j->mem_src != PU_NONE)
			r.f[SWF_USEDMEM] = j->mem_kb;
		r.f[SWF_REQPROCS] = j->nodes;
		r.f[SWF_REQTIME] = (j->estimate + BF_SEC - 1) / BF_SEC;
		r.f[SWF_STATUS] = swf_status(j->state);
		r.f[SWF_USER] = j->uid;
		swf_format(&r, line, sizeof line);
		fputs(line, stdout);
		if (j->first_guarantee != BF_NEVER)
			printf("; Guarantee: %" PRIu64 " %" PRId64 "\n", j->id,
			       secs(j->first_guarantee - t0 * BF_SEC));
	}
}

/* The partition's size, for the SWF header. */
static int partition_nodes(const char *socket, uint32_t *nodes)
{
	struct proto_buf req;
	struct proto_arena a = { 0 };
	struct proto_steps st;
	uint8_t *reply = NULL;
	size_t len = 0;
	char err[512];
	int rc;

	proto_buf_init(&req);
	proto_enc_profile(&req);
	rc = client_call("bq", socket, &req, PT_STEPS, &reply, &len);
	proto_buf_free(&req);
	if (rc == 0 && proto_dec_steps(reply, len, &st, &a, err, sizeof err) < 0) {
		fprintf(stderr, "bq: unreadable reply from backfilld: %s\n", err);
		rc = CLIENT_EXIT_UNREACHABLE;
	}
	if (rc == 0)
		*nodes = st.nodes;
	proto_arena_free(&a);
	free(reply);
	return rc;
}

int bq_history(const struct bq_history_opts *o)
{
	struct hist h = { 0 };
	uint32_t nodes = 0;
	int rc;

	if (o->swf && (rc = partition_nodes(o->socket, &nodes)) != 0)
		return rc;
	if ((rc = fetch(o, &h)) != 0)
		goto out;
	if (o->swf)
		print_swf(&h, nodes);
	else if (o->json)
		render_json(stdout, &(struct proto_jobs){ .jobs = h.jobs, .count = h.n, .total = 0 }, false);
	else if (h.n == 0)
		printf("No ended jobs%s.\n", o->since != BF_NEVER || o->until != BF_NEVER ?
		       " in that time" : "");
	else
		print_table(&h, o->wide);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "bq: cannot write the output\n");
		rc = CLIENT_EXIT_REFUSED;
	}
out:
	hist_free(&h);
	return rc;
}
