/* bq's output; see render.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "client.h"
#include "decimal.h"
#include "duration.h"
#include "nodelist.h"
#include "render.h"

bool render_job_ended(const struct proto_job *j)
{
	if (j->has_exit)
		return true;
	/* (an array's line is live while its state is "array") */
	return !j->state || (strcmp(j->state, "queued") != 0 && strcmp(j->state, "running") != 0 &&
	                     strcmp(j->state, "held") != 0 && strcmp(j->state, "array") != 0);
}

enum render_end_kind render_end_kind(const struct proto_job *j)
{
	switch (j->start_kind) {
	case PS_ACTUAL:
		return render_job_ended(j) ? RE_ACTUAL : RE_GUARANTEED;
	case PS_GUARANTEED:
		return RE_GUARANTEED;
	case PS_PREDICTED:
		return RE_PREDICTED;
	default:
		return RE_NONE;
	}
}

/* ---- the table ---- */

enum { C_ID, C_USER, C_NAME, C_STATE, C_NODES, C_LIMIT, C_SUBMIT, C_START, C_END, NCOL };

static const char *const heads[NCOL] = {
	"JOBID", "USER", "NAME", "STATE", "NODES", "LIMIT", "SUBMITTED", "START", "END",
};
static const size_t caps[NCOL] = {
	[C_USER] = RENDER_USER_WIDTH, [C_NAME] = RENDER_NAME_WIDTH, [C_STATE] = RENDER_STATE_WIDTH,
};
static const bool right[NCOL] = { [C_ID] = true, [C_NODES] = true };
static bool wide;		/* bq -w: no column is cut, and SUBMITTED is shown */
static bf_time table_now;	/* whose year a table's dates leave out */

void render_set_wide(bool on)
{
	wide = on;
}

void render_set_now(bf_time now)
{
	table_now = now;
}

/* Only bq -w has SUBMITTED: without it, a line fits 100 columns. */
static bool shown(int c)
{
	return c != C_SUBMIT || wide;
}

/* The forecast's time (0 or BF_NEVER: not said) and freshness. */
static bf_time forecast_at;
static bool forecast_stale;

void render_set_forecast(bf_time at, bool stale)
{
	forecast_at = at > 0 && at < BF_NEVER ? at : 0;
	forecast_stale = stale;
}

/* Whether the daemon said anything of its forecast. */
static bool forecast_said(void)
{
	return forecast_at || forecast_stale;
}

/* "as of 2026-03-01 14:02:11" for a forecast that is not fresh, or "". */
static const char *as_of(char *buf, size_t len)
{
	char t[64];

	if (!forecast_stale || !forecast_at) {
		*buf = '\0';
		return buf;
	}
	client_format_time(forecast_at, t, sizeof t);
	snprintf(buf, len, " as of %s", t);
	return buf;
}

static size_t cap_of(int c)
{
	return wide ? 0 : caps[c];
}

/* The mark before a time: "<=" at the latest, " ~" predicted, "  " actual. */
static const char *mark(enum render_end_kind kind)
{
	switch (kind) {
	case RE_GUARANTEED: return "<=";
	case RE_PREDICTED: return " ~";
	default: return "  ";
	}
}

/* Decimal digits of v, NUL-terminated. */
static void put_u64(char *buf, uint64_t v)
{
	buf[decimal_put(buf, v, 0)] = '\0';
}

static void marked_time(char *buf, size_t len, enum render_end_kind kind, bf_time t)
{
	if (kind == RE_NONE) {
		snprintf(buf, len, "  -");
		return;
	}
	memcpy(buf, mark(kind), 2);
	client_format_time_short(kind == RE_GUARANTEED ? client_ceil_second(t) : t, table_now,
	                         buf + 2, len - 2);
}

static enum render_end_kind start_as_end_kind(enum proto_start_kind k)
{
	switch (k) {
	case PS_ACTUAL: return RE_ACTUAL;
	case PS_GUARANTEED: return RE_GUARANTEED;
	case PS_PREDICTED: return RE_PREDICTED;
	default: return RE_NONE;
	}
}

/* One line of the table, formatted once: the widths are known only after
 * every row, and formatting is most of what a listing of 10,000 jobs costs. */
struct row {
	char id[40], uid[24], nodes[24], limit[40], submit[48], start[56], end[56], state[24];
	const char *text[NCOL];
	unsigned short width[NCOL];
};

static void fill_row(struct row *r, const struct proto_job *j)
{
	if (j->array_id)	/* an element: its array's id and its index */
		snprintf(r->id, sizeof r->id, "%" PRIu64 "[%" PRIu32 "]", j->array_id, j->array_index);
	else
		put_u64(r->id, j->id);
	put_u64(r->uid, j->uid);
	put_u64(r->nodes, j->nodes);
	duration_format(j->estimate, r->limit, sizeof r->limit);
	client_format_time_short(j->submit, table_now, r->submit, sizeof r->submit);
	marked_time(r->start, sizeof r->start, start_as_end_kind(j->start_kind), j->start);
	marked_time(r->end, sizeof r->end, render_end_kind(j), j->end);
	r->text[C_ID] = r->id;
	r->text[C_USER] = j->user && *j->user ? j->user : r->uid;
	r->text[C_NAME] = j->name && *j->name ? j->name : "-";
	r->text[C_STATE] = j->state && *j->state ? j->state : "?";
	if (j->broken && j->start_kind != PS_ACTUAL) {
		/* Its guarantee moved later: said in the listing, bq -l says why. */
		snprintf(r->state, sizeof r->state, "%.20s!", r->text[C_STATE]);
		r->text[C_STATE] = r->state;
	}
	r->text[C_NODES] = r->nodes;
	r->text[C_LIMIT] = r->limit;
	r->text[C_SUBMIT] = r->submit;
	r->text[C_START] = r->start;
	r->text[C_END] = r->end;
	for (int c = 0; c < NCOL; c++)
		r->width[c] = (unsigned short)client_text_width(r->text[c], cap_of(c));
}

static void pad(FILE *f, size_t n)
{
	static const char spaces[] = "                                ";

	while (n >= sizeof spaces - 1) {
		fwrite(spaces, 1, sizeof spaces - 1, f);
		n -= sizeof spaces - 1;
	}
	fwrite(spaces, 1, n, f);
}

/* A table line is built in memory and written with one fwrite: a write
 * per cell and per pad was the largest cost left in bq -a. Cells that are
 * not plain printable ASCII within their cap go through client_put_text,
 * which makes them safe for a terminal. */
struct line {
	char buf[512];
	size_t len;
};

static void line_flush(FILE *f, struct line *l)
{
	fwrite(l->buf, 1, l->len, f);
	l->len = 0;
}

static void line_pad(FILE *f, struct line *l, size_t n)
{
	if (n > sizeof l->buf - l->len) {
		line_flush(f, l);
		if (n > sizeof l->buf) {
			pad(f, n);
			return;
		}
	}
	memset(l->buf + l->len, ' ', n);
	l->len += n;
}

static void line_text(FILE *f, struct line *l, const char *s, size_t cap)
{
	size_t n = 0;

	while (s[n] >= 0x20 && s[n] < 0x7f)
		n++;
	if (s[n] || (cap && n > cap) || n > sizeof l->buf - l->len) {
		line_flush(f, l);
		client_put_text(f, s, cap);
		return;
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

static void put_row(FILE *f, const char *const *text, const unsigned short *w,
                    const size_t *width)
{
	struct line l = { .len = 0 };

	for (int c = 0; c < NCOL; c++) {
		if (!shown(c))
			continue;
		if (c)
			line_pad(f, &l, 2);
		if (right[c])
			line_pad(f, &l, width[c] - w[c]);
		line_text(f, &l, text[c], cap_of(c));
		if (!right[c] && c < NCOL - 1)
			line_pad(f, &l, width[c] - w[c]);
	}
	line_pad(f, &l, 1);
	l.buf[l.len - 1] = '\n';
	line_flush(f, &l);
}

int render_table(FILE *f, const struct proto_jobs *js, bool all_users)
{
	size_t width[NCOL];
	unsigned short head_w[NCOL];
	bool guaranteed = false, predicted = false, broken = false;
	struct row *rows;
	char when[96];

	if (js->count == 0) {
		fputs(all_users ? "No jobs.\n" : "No jobs of yours (bq -a lists everyone's).\n", f);
		return 0;
	}
	if (!table_now)
		table_now = client_wall_now();
	for (int c = 0; c < NCOL; c++)
		width[c] = head_w[c] = (unsigned short)strlen(heads[c]);
	for (uint32_t k = 0; k < js->count; k++) {
		const struct proto_job *j = &js->jobs[k];

		guaranteed |= j->start_kind == PS_GUARANTEED || render_end_kind(j) == RE_GUARANTEED;
		predicted |= j->start_kind == PS_PREDICTED;
		broken |= j->broken && j->start_kind != PS_ACTUAL;
	}
	rows = malloc((size_t)js->count * sizeof *rows);
	if (!rows)
		return -1;
	for (uint32_t k = 0; k < js->count; k++) {
		fill_row(&rows[k], &js->jobs[k]);
		for (int c = 0; c < NCOL; c++)
			if (rows[k].width[c] > width[c])
				width[c] = rows[k].width[c];
	}
	put_row(f, heads, head_w, width);
	for (uint32_t k = 0; k < js->count; k++)
		put_row(f, rows[k].text, rows[k].width, width);
	free(rows);
	/* An array is one line; its elements by state follow the table. */
	for (uint32_t k = 0, first = 1; k < js->count; k++) {
		const struct proto_job *j = &js->jobs[k];

		if (!j->array_counts)
			continue;
		if (first)
			fputc('\n', f);
		first = 0;
		fprintf(f, "Array %" PRIu64 ": ", j->id);
		client_put_text(f, j->array_counts, 0);
		fputs(" (bq -A: each element)\n", f);
	}
	if (guaranteed || predicted) {
		fputc('\n', f);
		if (guaranteed)
			fputs("<= at the latest (guaranteed start; end at the time limit)", f);
		if (guaranteed && predicted)
			fputs("   ", f);
		if (predicted)
			fprintf(f, "~ predicted%s, not guaranteed", as_of(when, sizeof when));
		fputc('\n', f);
	}
	if (predicted && forecast_stale)
		fputs("(the queue has changed since: a newer forecast is being made)\n", f);
	if (broken)
		fputs("! its guarantee moved later (bq -l ID says when and why)\n", f);
	return 0;
}

/* ---- one job ---- */

#define KEY_WIDTH 19

static void key(FILE *f, const char *k)
{
	fprintf(f, "%s:", k);
	pad(f, KEY_WIDTH - strlen(k) - 1);
}

static void kv_text(FILE *f, const char *k, const char *v)
{
	key(f, k);
	client_put_text(f, v && *v ? v : "-", 0);
	fputc('\n', f);
}

__attribute__((format(printf, 3, 4)))
static void kv(FILE *f, const char *k, const char *fmt, ...)
{
	va_list ap;

	key(f, k);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

/* A measured time to the millisecond (rounded): 0:00:02.953, not .952580. */
static bf_time to_ms(bf_time d)
{
	bf_time ms = BF_SEC / 1000;

	return d >= 0 ? (d + ms / 2) / ms * ms : -((-d + ms / 2) / ms * ms);
}

/* What an ended job used, and where each figure comes from (the cgroup
 * sees every process the job had; rusage only those that were waited
 * for, and for memory the largest single one). */
static void usage_lines(FILE *f, const struct proto_job *j)
{
	if (j->cpu_src == PU_NONE)
		kv(f, "CPU time", "%s", "-");
	else
		kv(f, "CPU time", "%lld.%03lld s (%s)", (long long)(j->cpu_us / 1000000),
		   (long long)(j->cpu_us % 1000000 / 1000),
		   j->cpu_src == PU_CGROUP ? "all its processes, from its cgroup" :
		   "its processes that were waited for");
	if (j->mem_src == PU_NONE)
		kv(f, "Max memory", "%s", "-");
	else
		kv(f, "Max memory", "%.1f MiB (%s)", (double)j->mem_kb / 1024,
		   j->mem_src == PU_CGROUP ? "peak of its cgroup" : "its largest process");
}

/* The exit code, or the signal by name and number, each on a line of its
 * own (what a script reads, and what tells an exit job's cause: the
 * Exit status line says it in words). A stop status has neither. */
static void exit_lines(FILE *f, int32_t status)
{
	int st = (int)status;
	const char *name;

	if (WIFEXITED(st)) {
		kv(f, "Exit code", "%d", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		name = client_signal_name(WTERMSIG(st));
		if (name)
			kv(f, "Signal", "SIG%s (%d)", name, WTERMSIG(st));
		else
			kv(f, "Signal", "%d", WTERMSIG(st));
	}
}

/* An array's own lines: its elements by state, what each asks for, and
 * the earliest start of one. */
static void array_info(FILE *f, const struct proto_job *j, const char *uid)
{
	char a[64];

	kv(f, "Job", "%" PRIu64 " (an array)", j->id);
	kv_text(f, "Name", j->name);
	kv_text(f, "User", j->user && *j->user ? j->user : uid);
	kv(f, "UID", "%" PRIu32, j->uid);
	kv_text(f, "State", j->state);
	kv_text(f, "Elements", j->array_counts);
	kv(f, "Nodes", "%" PRIu32 " each", j->nodes);
	duration_format(j->estimate, a, sizeof a);
	kv(f, "Time limit", "%s each", a);
	client_format_time(j->submit, a, sizeof a);
	kv(f, "Submitted", "%s", a);
	if (j->start_kind != PS_NONE) {
		client_format_time(j->start_kind == PS_GUARANTEED ? client_ceil_second(j->start) :
		                   j->start, a, sizeof a);
		kv(f, "First start", "%s%s", a, j->start_kind == PS_GUARANTEED ?
		   " at the latest (guaranteed)" : j->start_kind == PS_PREDICTED ? " (predicted)" :
		   " (started)");
	}
	kv(f, "Elements shown by", "bq -A, or bq -l \"%" PRIu64 "[INDEX]\"", j->id);
}

void render_info(FILE *f, const struct proto_job *j, bf_time now)
{
	char a[64], b[96], uid[16];
	bool ended = render_job_ended(j);

	snprintf(uid, sizeof uid, "%" PRIu32, j->uid);
	if (j->array_counts) {
		array_info(f, j, uid);
		return;
	}
	if (j->array_id)
		kv(f, "Job", "%" PRIu64 "[%" PRIu32 "] (job id %" PRIu64 ")", j->array_id,
		   j->array_index, j->id);
	else
		kv(f, "Job", "%" PRIu64, j->id);
	kv_text(f, "Name", j->name);
	kv_text(f, "User", j->user && *j->user ? j->user : uid);
	kv(f, "UID", "%" PRIu32, j->uid);
	kv_text(f, "State", j->state);
	kv(f, "Nodes", "%" PRIu32, j->nodes);
	kv_text(f, "Node list", j->node_list);
	duration_format(j->estimate, a, sizeof a);
	kv(f, "Time limit", "%s", a);
	client_format_time(j->submit, a, sizeof a);
	kv(f, "Submitted", "%s", a);

	client_format_time(j->start_kind == PS_GUARANTEED ? client_ceil_second(j->start) : j->start, a,
	                   sizeof a);
	switch (j->start_kind) {
	case PS_ACTUAL: kv(f, "Start", "%s (started)", a); break;
	case PS_GUARANTEED: kv(f, "Start", "%s at the latest (guaranteed)", a); break;
	case PS_PREDICTED:
		kv(f, "Start", "~%s (predicted%s, not guaranteed)", a, as_of(b, sizeof b));
		break;
	default: kv(f, "Start", "%s", ended ? "never started" : "not known yet"); break;
	}
	client_format_time(render_end_kind(j) == RE_GUARANTEED ? client_ceil_second(j->end) : j->end, a,
	                   sizeof a);
	switch (render_end_kind(j)) {
	case RE_ACTUAL: kv(f, "End", "%s (ended)", a); break;
	case RE_GUARANTEED:
		kv(f, "End", "%s at the latest (%s)", a,
		   j->start_kind == PS_ACTUAL ? "its time limit" : "guaranteed start + time limit");
		break;
	case RE_PREDICTED: kv(f, "End", "~%s (predicted, not guaranteed)", a); break;
	default: kv(f, "End", "%s", ended ? "-" : "not known yet"); break;
	}
	if (j->start_kind == PS_ACTUAL) {
		duration_format(to_ms(j->start - j->submit), a, sizeof a);
		duration_format(to_ms((ended ? j->end : now) - j->start), b, sizeof b);
		kv(f, "Waited", "%s", a);
		kv(f, "Run time", "%s%s", b, ended ? "" : " so far");
	} else {
		kv(f, "Waited", "%s", "-");
		kv(f, "Run time", "%s", "-");
	}
	if (j->has_exit) {
		client_exit_status(j->exit_status, a, sizeof a);
		kv(f, "Exit status", "%s", a);
		exit_lines(f, j->exit_status);
	} else {
		kv(f, "Exit status", "%s", "-");
	}
	kv_text(f, "Working directory", j->cwd);
	kv_text(f, "Output", j->out);
	kv_text(f, "Error", j->err);
	if (j->reason)
		kv_text(f, "Reason", j->reason);
	if (j->depend)
		kv_text(f, "Dependency", j->depend);
	if (j->pending)
		kv_text(f, "Pending reason", j->pending);
	if (j->broken && *j->broken)
		kv_text(f, "Guarantee broken", j->broken);
	if (ended)
		usage_lines(f, j);
}

/* ---- JSON ---- */

static void json_time(FILE *f, const char *k, bool known, bf_time t)
{
	char b[64];

	if (!known) {
		fprintf(f, ",\"%s\":null,\"%s_us\":null", k, k);
		return;
	}
	client_format_iso(t, b, sizeof b);
	fprintf(f, ",\"%s\":\"%s\",\"%s_us\":%" PRId64, k, b, k, t);
}

/* "exit_signal_name": "SIGSEGV" for a job a signal ended (as bq -l's
 * Signal line names it), else null; null too for a signal without a name. */
static void json_signal_name(FILE *f, const struct proto_job *j)
{
	int st = (int)j->exit_status;
	const char *name = j->has_exit && WIFSIGNALED(st) ? client_signal_name(WTERMSIG(st)) : NULL;

	if (name)
		fprintf(f, ",\"exit_signal_name\":\"SIG%s\"", name);
	else
		fputs(",\"exit_signal_name\":null", f);
}

static void json_job(FILE *f, const struct proto_job *j)
{
	static const char *const start_kinds[] = {
		[PS_NONE] = NULL, [PS_ACTUAL] = "actual", [PS_GUARANTEED] = "guaranteed",
		[PS_PREDICTED] = "predicted",
	};
	static const char *const end_kinds[] = {
		[RE_NONE] = NULL, [RE_ACTUAL] = "actual", [RE_GUARANTEED] = "guaranteed",
		[RE_PREDICTED] = "predicted",
	};
	enum render_end_kind ek = render_end_kind(j);
	char b[64];
	int st = (int)j->exit_status;

	fprintf(f, "{\"id\":%" PRIu64 ",\"uid\":%" PRIu32 ",\"user\":", j->id, j->uid);
	client_put_json_str(f, j->user);
	fputs(",\"name\":", f);
	client_put_json_str(f, j->name);
	fputs(",\"state\":", f);
	client_put_json_str(f, j->state);
	fprintf(f, ",\"ended\":%s,\"nodes\":%" PRIu32, render_job_ended(j) ? "true" : "false",
	        j->nodes);
	client_format_seconds(j->estimate, b, sizeof b);
	fprintf(f, ",\"estimate_s\":%s,\"estimate_us\":%" PRId64, b, j->estimate);
	json_time(f, "submit", true, j->submit);
	json_time(f, "start", j->start_kind != PS_NONE, j->start);
	fputs(",\"start_kind\":", f);
	client_put_json_str(f, (unsigned)j->start_kind <= PS_PREDICTED ? start_kinds[j->start_kind]
	                                                              : NULL);
	json_time(f, "end", ek != RE_NONE, j->end);
	fputs(",\"end_kind\":", f);
	client_put_json_str(f, end_kinds[ek]);
	if (j->has_exit) {
		fprintf(f, ",\"exit_status\":%" PRId32, j->exit_status);
		if (WIFEXITED(st))
			fprintf(f, ",\"exit_code\":%d,\"exit_signal\":null", WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			fprintf(f, ",\"exit_code\":null,\"exit_signal\":%d", WTERMSIG(st));
		else
			fputs(",\"exit_code\":null,\"exit_signal\":null", f);
	} else {
		fputs(",\"exit_status\":null,\"exit_code\":null,\"exit_signal\":null", f);
	}
	fputs(",\"node_list\":", f);
	client_put_json_str(f, j->node_list);
	fputs(",\"cwd\":", f);
	client_put_json_str(f, j->cwd);
	fputs(",\"out\":", f);
	client_put_json_str(f, j->out);
	fputs(",\"err\":", f);
	client_put_json_str(f, j->err);
	fputs(",\"reason\":", f);
	client_put_json_str(f, j->reason);
	fputs(",\"guarantee_broken\":", f);
	client_put_json_str(f, j->broken);
	fputs(",\"pending_reason\":", f);
	client_put_json_str(f, j->pending);
	if (j->cpu_src != PU_NONE)
		fprintf(f, ",\"cpu_us\":%" PRId64 ",\"cpu_source\":\"%s\"", j->cpu_us,
		        j->cpu_src == PU_CGROUP ? "cgroup" : "rusage");
	else
		fputs(",\"cpu_us\":null,\"cpu_source\":null", f);
	if (j->mem_src != PU_NONE)
		fprintf(f, ",\"max_memory_kb\":%" PRId64 ",\"memory_source\":\"%s\"", j->mem_kb,
		        j->mem_src == PU_CGROUP ? "cgroup" : "rusage");
	else
		fputs(",\"max_memory_kb\":null,\"memory_source\":null", f);
	/* A queued job's prediction: from the forecast made then, and
	 * whether the queue changed since (only when the daemon said). */
	if (forecast_said() && j->state && strcmp(j->state, "queued") == 0) {
		json_time(f, "predicted_as_of", forecast_at != 0, forecast_at);
		fprintf(f, ",\"prediction_fresh\":%s", forecast_stale ? "false" : "true");
	} else if (forecast_said()) {
		json_time(f, "predicted_as_of", false, 0);
		fputs(",\"prediction_fresh\":null", f);
	}
	/* Last: bq(1) promises new keys at the end, the order kept. */
	json_signal_name(f, j);
	fputs(",\"depend\":", f);
	client_put_json_str(f, j->depend);
	if (j->array_id)
		fprintf(f, ",\"array_id\":%" PRIu64 ",\"array_index\":%" PRIu32, j->array_id,
		        j->array_index);
	else
		fputs(",\"array_id\":null,\"array_index\":null", f);
	fputs(",\"array_counts\":", f);
	client_put_json_str(f, j->array_counts);
	fputc('}', f);
}

void render_json(FILE *f, const struct proto_jobs *js, bool single)
{
	if (single) {
		if (js->count)
			json_job(f, &js->jobs[0]);
		else
			fputs("null", f);
		fputc('\n', f);
		return;
	}
	fputc('[', f);
	for (uint32_t k = 0; k < js->count; k++) {
		fputs(k ? ",\n " : "\n ", f);
		json_job(f, &js->jobs[k]);
	}
	fputs(js->count ? "\n]\n" : "]\n", f);
}

/* ---- the profile ---- */

/* The step in force now: the last one at or before now, else the first. */
static uint32_t current_step(const struct proto_steps *st, bf_time now)
{
	uint32_t cur = 0;

	for (uint32_t k = 0; k < st->count && st->steps[k].t <= now; k++)
		cur = k;
	return cur;
}

static size_t bar_len(int64_t free, uint32_t nodes)
{
	int64_t n;

	if (free <= 0 || nodes == 0)
		return 0;
	if (free >= (int64_t)nodes)
		return RENDER_BAR_WIDTH;
	n = (free * 2 * RENDER_BAR_WIDTH + nodes) / (2 * (int64_t)nodes);
	if (n < 1)
		n = 1;		/* some free: never an empty bar */
	if (n > RENDER_BAR_WIDTH - 1)
		n = RENDER_BAR_WIDTH - 1;	/* some busy: never a full one */
	return (size_t)n;
}

static void from_now(char *buf, size_t len, bf_time t, bf_time now)
{
	bf_time d = t - now;

	if (d <= 0) {
		snprintf(buf, len, "now");
		return;
	}
	d = (d + BF_SEC / 2) / BF_SEC * BF_SEC;
	buf[0] = '+';
	duration_format(d, buf + 1, len - 1);
}

void render_profile(FILE *f, const struct proto_steps *st, bf_time now)
{
	uint32_t cur = current_step(st, now), shown, k;
	size_t wfrom = strlen("FROM NOW"), wfree = strlen("FREE");
	char b[64];

	if (st->count == 0) {
		fprintf(f, "No profile steps from the daemon.\nfree now: ? of %" PRIu32 "\n", st->nodes);
		return;
	}
	shown = st->count - cur < RENDER_MAX_STEPS ? st->count - cur : RENDER_MAX_STEPS;
	for (k = cur; k < cur + shown; k++) {
		size_t w;

		from_now(b, sizeof b, st->steps[k].t, now);
		if ((w = strlen(b)) > wfrom)
			wfrom = w;
		w = (size_t)snprintf(b, sizeof b, "%" PRId64, st->steps[k].free);
		if (w > wfree)
			wfree = w;
	}
	fprintf(f, "%-19s  %-*s  %*s  free nodes of %" PRIu32 ", %d columns = all\n", "TIME",
	        (int)wfrom, "FROM NOW", (int)wfree, "FREE", st->nodes, RENDER_BAR_WIDTH);
	for (k = cur; k < cur + shown; k++) {
		const struct proto_step *s = &st->steps[k];
		size_t n = bar_len(s->free, st->nodes);

		client_format_time(s->t > now ? s->t : now, b, sizeof b);
		fprintf(f, "%-19s  ", b);
		from_now(b, sizeof b, s->t, now);
		fprintf(f, "%-*s  %*" PRId64 "  |", (int)wfrom, b, (int)wfree, s->free);
		for (size_t i = 0; i < RENDER_BAR_WIDTH; i++)
			fputc(i < n ? '#' : ' ', f);
		fputs("|\n", f);
	}
	if (st->count - cur > shown)
		fprintf(f, "... %" PRIu32 " more steps (bq --profile --json lists them all)\n",
		        st->count - cur - shown);
	fprintf(f, "free now: %" PRId64 " of %" PRIu32 "\n", st->steps[cur].free, st->nodes);
}

void render_profile_json(FILE *f, const struct proto_steps *st, bf_time now)
{
	char b[64];

	fprintf(f, "{\"nodes\":%" PRIu32, st->nodes);
	client_format_iso(now, b, sizeof b);
	fprintf(f, ",\"now\":\"%s\",\"now_us\":%" PRId64, b, now);
	if (st->count)
		fprintf(f, ",\"free_now\":%" PRId64, st->steps[current_step(st, now)].free);
	else
		fputs(",\"free_now\":null", f);
	fputs(",\"steps\":[", f);
	for (uint32_t k = 0; k < st->count; k++) {
		client_format_iso(st->steps[k].t, b, sizeof b);
		fprintf(f, "%s{\"time\":\"%s\",\"time_us\":%" PRId64 ",\"free\":%" PRId64 "}",
		        k ? "," : "", b, st->steps[k].t, st->steps[k].free);
	}
	fputs("]}\n", f);
}

/* ---- nodes ---- */

/* bsearch over partition indices sorted by name (qsort has no context:
 * the names are passed in this pointer for the duration of the sort). */
static char **node_sort_names;

static int node_by_name(const void *a, const void *b)
{
	return strcmp(node_sort_names[*(const uint32_t *)a], node_sort_names[*(const uint32_t *)b]);
}

static int64_t node_find(char **names, const uint32_t *sorted, uint32_t n, const char *name)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(names[sorted[mid]], name);

		if (c == 0)
			return sorted[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Mark the nodes of `list` (a compact node list, may be NULL) as `state`
 * in admin[]; -1 if it does not read. */
static int mark_nodes(const char *list, char **names, const uint32_t *sorted, uint32_t n,
                      uint8_t *admin, uint8_t state)
{
	struct nodelist part;
	char err[256];

	if (!list || !*list)
		return 0;
	if (nodelist_parse(list, &part, err, sizeof err) < 0)
		return -1;
	for (uint32_t k = 0; k < part.count; k++) {
		int64_t i = node_find(names, sorted, n, part.names[k]);

		if (i >= 0)
			admin[i] = state;
	}
	nodelist_free(&part);
	return 0;
}

enum { NODE_UP, NODE_DRAIN, NODE_DOWN };
static const char *const node_state_words[] = { "free", "drain", "down" };

/* A node's state as listed: drain or down whatever it runs, else busy or free. */
static const char *node_state(int32_t owner, uint8_t admin)
{
	return admin != NODE_UP ? node_state_words[admin] : owner >= 0 ? "busy" : "free";
}

int render_nodes(FILE *f, const struct proto_nodemap *m, bool json)
{
	struct nodelist all = { 0 }, part;
	uint32_t *sorted = NULL, count[4] = { 0 };	/* busy, free, drain, down */
	int32_t *owner = NULL;
	uint8_t *admin = NULL;
	char err[256];
	int rc = -1;

	if (nodelist_parse(m->nodes, &all, err, sizeof err) < 0 ||
	    !(sorted = malloc(all.count * sizeof *sorted)) ||
	    !(owner = malloc(all.count * sizeof *owner)) || !(admin = calloc(all.count, 1)))
		goto out;
	for (uint32_t k = 0; k < all.count; k++) {
		sorted[k] = k;
		owner[k] = -1;
	}
	node_sort_names = all.names;
	qsort(sorted, all.count, sizeof *sorted, node_by_name);
	node_sort_names = NULL;
	for (uint32_t h = 0; h < m->count; h++) {
		if (nodelist_parse(m->held[h].nodes, &part, err, sizeof err) < 0)
			goto out;
		for (uint32_t k = 0; k < part.count; k++) {
			int64_t i = node_find(all.names, sorted, all.count, part.names[k]);

			if (i >= 0 && owner[i] < 0)
				owner[i] = (int32_t)h;
		}
		nodelist_free(&part);
	}
	if (mark_nodes(m->drained, all.names, sorted, all.count, admin, NODE_DRAIN) < 0 ||
	    mark_nodes(m->down, all.names, sorted, all.count, admin, NODE_DOWN) < 0)
		goto out;
	for (uint32_t k = 0; k < all.count; k++)
		count[admin[k] != NODE_UP ? 1 + admin[k] : owner[k] >= 0 ? 0 : 1]++;
	if (json) {
		fputs("[\n", f);
		for (uint32_t k = 0; k < all.count; k++) {
			fputs(" {\"name\":", f);
			client_put_json_str(f, all.names[k]);
			fprintf(f, ",\"state\":\"%s\"", node_state(owner[k], admin[k]));
			if (owner[k] >= 0) {
				fprintf(f, ",\"job\":%" PRIu64 ",\"uid\":%u,\"user\":",
				        m->held[owner[k]].job, (unsigned)m->held[owner[k]].uid);
				client_put_json_str(f, m->held[owner[k]].user);
			} else {
				fputs(",\"job\":null,\"uid\":null,\"user\":null", f);
			}
			fprintf(f, "}%s\n", k + 1 < all.count ? "," : "");
		}
		fputs("]\n", f);
	} else {
		fprintf(f, "%-24s %-5s %8s  %s\n", "NODES", "STATE", "JOB", "USER");
		for (uint32_t k = 0; k < all.count;) {
			uint32_t e = k + 1;
			char run[25];
			int len;

			while (e < all.count && owner[e] == owner[k] && admin[e] == admin[k])
				e++;
			len = nodelist_format((const char *const *)all.names + k, e - k, run, sizeof run);
			if (len >= (int)sizeof run)
				strcpy(run + sizeof run - 2, "+");
			if (owner[k] >= 0) {
				const struct proto_holder *h = &m->held[owner[k]];

				fprintf(f, "%-24s %-5s %8" PRIu64 "  ", run, node_state(owner[k], admin[k]),
				        h->job);
				if (h->user)
					client_put_text(f, h->user, 16);
				else
					fprintf(f, "%u", (unsigned)h->uid);
				fputc('\n', f);
			} else {
				fprintf(f, "%-24s %-5s %8s  %s\n", run, node_state(-1, admin[k]), "-", "-");
			}
			k = e;
		}
		fprintf(f, "\n%u nodes: %u busy, %u free", all.count, count[0], count[1]);
		if (count[2])
			fprintf(f, ", %u drained", count[2]);
		if (count[3])
			fprintf(f, ", %u down", count[3]);
		fputc('\n', f);
	}
	rc = 0;
out:
	free(sorted);
	free(owner);
	free(admin);
	nodelist_free(&all);
	return rc;
}
