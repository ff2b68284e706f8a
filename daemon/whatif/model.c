/* A site's workload model: characterized from a trace, written, read back
 * (see model.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "sched.h"
#include "swf.h"
#include "model.h"

#define MODEL_MAGIC	"backfilld-site-model 1"
#define MAX_SECONDS	((int64_t)100 * 365 * 24 * 3600)
#define MAX_COUNT	((uint64_t)1 << 40)
#define MAX_LINES	2000000u

struct tjob {
	int64_t submit, end, run, est;
	uint32_t user, nodes;
};

static int by_user_submit(const void *a, const void *b)
{
	const struct tjob *x = a, *y = b;

	if (x->user != y->user)
		return x->user < y->user ? -1 : 1;
	return (x->submit > y->submit) - (x->submit < y->submit);
}

/* Runtimes and estimates to three significant digits: the joint
 * distribution within 0.5%, in a file of a few thousand lines. */
static int64_t round3(int64_t v)
{
	int64_t scale = 1;

	while (v / scale >= 1000)
		scale *= 10;
	return (v + scale / 2) / scale * scale;
}

static int by_job(const void *a, const void *b)
{
	const struct model_job *x = a, *y = b;

	if (x->nodes != y->nodes)
		return x->nodes < y->nodes ? -1 : 1;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return (x->est > y->est) - (x->est < y->est);
}

static int by_run(const void *a, const void *b)
{
	const struct model_run *x = a, *y = b;

	if (x->nodes != y->nodes)
		return x->nodes < y->nodes ? -1 : 1;
	return (x->len > y->len) - (x->len < y->len);
}

/* Sort and merge equal entries, then the cumulative counts. */
static int jobs_finish(struct site_model *m)
{
	size_t o = 0;

	qsort(m->jobs, m->njobs, sizeof *m->jobs, by_job);
	for (size_t i = 0; i < m->njobs; i++) {
		if (o && by_job(&m->jobs[o - 1], &m->jobs[i]) == 0)
			m->jobs[o - 1].count += m->jobs[i].count;
		else
			m->jobs[o++] = m->jobs[i];
	}
	m->njobs = o;
	free(m->cum);
	if (!(m->cum = malloc((o ? o : 1) * sizeof *m->cum)))
		return -1;
	for (size_t i = 0; i < o; i++)
		m->cum[i] = (i ? m->cum[i - 1] : 0) + m->jobs[i].count;
	return 0;
}

static int runs_finish(struct site_model *m)
{
	size_t o = 0;

	qsort(m->runs, m->nruns, sizeof *m->runs, by_run);
	for (size_t i = 0; i < m->nruns; i++) {
		if (o && by_run(&m->runs[o - 1], &m->runs[i]) == 0)
			m->runs[o - 1].count += m->runs[i].count;
		else
			m->runs[o++] = m->runs[i];
	}
	m->nruns = o;
	session_dist_free(&m->run_pick);
	for (size_t i = 0; i < o; i++)
		if (session_dist_add(&m->run_pick, (int64_t)i, m->runs[i].count) < 0)
			return -1;
	return 0;
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return 0;
	*cap = *cap ? 2 * *cap : 1024;
	if (!(q = realloc(*p, *cap * size)))
		return -1;
	*p = q;
	return 0;
}

static int add_job(struct site_model *m, size_t *cap, uint32_t nodes, int64_t run, int64_t est,
                   uint64_t count)
{
	if (grow((void **)&m->jobs, cap, m->njobs, sizeof *m->jobs) < 0)
		return -1;
	m->jobs[m->njobs++] = (struct model_job){ nodes, run, est, count };
	return 0;
}

static int add_run(struct site_model *m, size_t *cap, uint32_t nodes, uint32_t len, uint64_t count)
{
	if (grow((void **)&m->runs, cap, m->nruns, sizeof *m->runs) < 0)
		return -1;
	m->runs[m->nruns++] = (struct model_run){ nodes, len, count };
	return 0;
}

/* The trace's usable jobs: a size, a runtime and a user. */
static int read_jobs(const char *path, struct tjob **out, size_t *n, int64_t *machine)
{
	char err[512];
	struct swf_reader *r = swf_open(path, err, sizeof err);
	struct swf_job rec;
	size_t cap = 0;
	uint32_t largest = 0;
	uint64_t records = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!r) {
		fprintf(stderr, "backfilld: %s\n", err);
		return -1;
	}
	while ((rc = swf_next(r, &rec, err, sizeof err)) != 0) {
		const int64_t *f = rec.f;
		int64_t size = f[SWF_ALLOC] > 0 ? f[SWF_ALLOC] : f[SWF_REQPROCS];

		records += rc > 0;
		if (rc < 0) {
			/* At the first job line: not a trace at all (replay.c says the same). */
			fprintf(stderr, "%s%s\n", rc == -1 && !records ? "backfilld: not an SWF trace: " :
			        "", err);
			swf_close(r);
			free(*out);
			return -1;
		}
		if (size <= 0 || size > SCHED_MAX_NODES || f[SWF_RUN] < 0 || f[SWF_SUBMIT] < 0 ||
		    f[SWF_USER] < 0 || f[SWF_RUN] > MAX_SECONDS || f[SWF_SUBMIT] > MAX_SECONDS ||
		    f[SWF_WAIT] > MAX_SECONDS || f[SWF_REQTIME] > MAX_SECONDS || f[SWF_USER] > UINT32_MAX)
			continue;
		if (grow((void **)out, &cap, *n, sizeof **out) < 0) {
			fprintf(stderr, "backfilld: %s: out of memory\n", path);
			swf_close(r);
			free(*out);
			return -1;
		}
		(*out)[(*n)++] = (struct tjob){
			.submit = f[SWF_SUBMIT], .run = f[SWF_RUN],
			.end = f[SWF_SUBMIT] + (f[SWF_WAIT] > 0 ? f[SWF_WAIT] : 0) + f[SWF_RUN],
			.est = f[SWF_REQTIME] > 0 ? f[SWF_REQTIME] : -1,
			.user = (uint32_t)f[SWF_USER], .nodes = (uint32_t)size,
		};
		if ((uint32_t)size > largest)
			largest = (uint32_t)size;
	}
	*machine = swf_get_header(r)->max_procs > 0 ? swf_get_header(r)->max_procs :
	           swf_get_header(r)->max_nodes > 0 ? swf_get_header(r)->max_nodes : largest;
	swf_close(r);
	if (*n == 0) {
		fprintf(stderr, "backfilld: %s: no job with a size, a runtime and a user\n", path);
		return -1;
	}
	return 0;
}

/* One user's jobs, in submit order. The think time before a job is, as
 * Zilber et al. and Shmueli and Feitelson define it, the time from the end
 * of the user's previous job to its submission: a job submitted before
 * that end (a negative think time) joins the previous job's batch; up to
 * 20 minutes, it starts the next batch of the session; longer, it is a
 * break and starts a new session. Breaks longer than 8 hours (a user away
 * for days or months) are left out of the break distribution, as the
 * paper filters them, rather than counted at 8 hours. */
static int user_jobs(struct site_model *m, const struct tjob *j, size_t n, size_t *rcap)
{
	uint32_t width = 1, run_len = 1;

	m->trace_sessions++;
	for (size_t i = 1; i <= n; i++) {
		int64_t gap = i < n ? j[i].submit - j[i - 1].end : -1;

		if (i == n || j[i].nodes != j[i - 1].nodes) {
			if (add_run(m, rcap, j[i - 1].nodes, run_len, 1) < 0)
				return -1;
			run_len = 0;
		}
		if (i == n || gap >= 0) {
			if (session_dist_add(&m->width, width, 1) < 0)
				return -1;
			m->trace_batches++;
			width = 0;
		}
		if (i == n)
			break;
		if (gap >= 0 && gap * BF_SEC <= SESSION_THINK_MAX) {
			if (session_dist_add(&m->think, gap, 1) < 0)
				return -1;
		} else if (gap >= 0) {
			if (gap * BF_SEC <= SESSION_BREAK_MAX) {
				if (session_dist_add(&m->brk, gap, 1) < 0)
					return -1;
			} else {
				m->trace_long_breaks++;
			}
			m->trace_sessions++;
		}
		width++;
		run_len++;
	}
	return 0;
}

/* One trace's users and jobs into the model. */
static int characterize_one(const char *trace, struct site_model *m, size_t *jcap, size_t *rcap)
{
	struct tjob *j;
	size_t n;
	int64_t machine;

	if (read_jobs(trace, &j, &n, &machine) < 0)
		return -1;
	if (machine > 0 && (uint64_t)machine > m->nodes)
		m->nodes = machine > MODEL_MAX_NODES ? MODEL_MAX_NODES : (uint32_t)machine;
	m->trace_jobs += n;
	qsort(j, n, sizeof *j, by_user_submit);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && j[b].user == j[a].user; b++)
			;
		m->trace_users++;
		if (user_jobs(m, j + a, b - a, rcap) < 0)
			goto nomem;
	}
	for (size_t i = 0; i < n; i++)
		if (add_job(m, jcap, j[i].nodes, round3(j[i].run),
		            j[i].est > 0 ? round3(j[i].est) : -1, 1) < 0)
			goto nomem;
	free(j);
	return 0;
nomem:
	free(j);
	fprintf(stderr, "backfilld: %s: out of memory\n", trace);
	return -1;
}

/* "a.swf.gz + b.swf.gz": the traces' base names, cut with "..." if long. */
static void name_sources(struct site_model *m, const char *const *traces, size_t ntraces)
{
	size_t len = 0;

	for (size_t i = 0; i < ntraces; i++) {
		const char *base = strrchr(traces[i], '/');
		int w = snprintf(m->source + len, sizeof m->source - len, "%s%s", i ? " + " : "",
		                 base ? base + 1 : traces[i]);

		if (w < 0 || (size_t)w >= sizeof m->source - len) {
			memcpy(m->source + sizeof m->source - 4, "...", 4);
			return;
		}
		len += (size_t)w;
	}
}

int model_characterize(const char *const *traces, size_t ntraces, struct site_model *m)
{
	size_t jcap = 0, rcap = 0;

	memset(m, 0, sizeof *m);
	name_sources(m, traces, ntraces);
	/* Users of different traces are different users: each trace's are
	 * taken on their own, and every distribution pools them all. */
	for (size_t t = 0; t < ntraces; t++)
		if (characterize_one(traces[t], m, &jcap, &rcap) < 0)
			goto fail;
	if (!m->nodes)
		m->nodes = 1;
	if (jobs_finish(m) < 0 || runs_finish(m) < 0) {
		fprintf(stderr, "backfilld: out of memory\n");
		goto fail;
	}
	return 0;
fail:
	model_free(m);
	return -1;
}

/* A distribution's values with their counts, merged and in order. */
static int write_dist(FILE *out, const char *key, const struct session_dist *d)
{
	struct session_dist s;

	if (session_dist_sorted(d, &s) < 0)
		return -1;
	for (size_t i = 0; i < s.n; i++)
		fprintf(out, "%s %" PRId64 " %" PRIu64 "\n", key, s.v[i],
		        s.cum[i] - (i ? s.cum[i - 1] : 0));
	session_dist_free(&s);
	return 0;
}

int model_write(const struct site_model *m, FILE *out)
{
	fprintf(out, "# backfilld site model (backfilld --characterize; backfilld(8), "
	        "SITE SIMULATION)\n%s\nsource %s\nnodes %" PRIu32 "\n", MODEL_MAGIC, m->source,
	        m->nodes);
	if (write_dist(out, "think", &m->think) < 0 || write_dist(out, "break", &m->brk) < 0 ||
	    write_dist(out, "width", &m->width) < 0)
		return -1;
	for (size_t i = 0; i < m->nruns; i++)
		fprintf(out, "run %" PRIu32 " %" PRIu32 " %" PRIu64 "\n", m->runs[i].nodes,
		        m->runs[i].len, m->runs[i].count);
	for (size_t i = 0; i < m->njobs; i++)
		fprintf(out, "job %" PRIu32 " %" PRId64 " %" PRId64 " %" PRIu64 "\n", m->jobs[i].nodes,
		        m->jobs[i].run, m->jobs[i].est, m->jobs[i].count);
	return ferror(out) ? -1 : 0;
}

/* A distribution's count, mean, median and 90th percentile, each with its
 * unit, then what it is (gloss, may be NULL) on a line of its own. */
static void dist_line(FILE *out, const char *what, const struct session_dist *d, double unit,
                      const char *u, const char *gloss)
{
	if (!d->n)
		fprintf(out, "%-22s none\n", what);
	else
		fprintf(out, "%-22s %" PRIu64 ", mean %.1f %s, median %.1f %s, p90 %.1f %s\n", what,
		        session_dist_total(d), session_dist_mean(d) / unit, u,
		        (double)session_dist_quantile(d, 0.5) / unit, u,
		        (double)session_dist_quantile(d, 0.9) / unit, u);
	if (gloss)
		fprintf(out, "%-22s (%s)\n", "", gloss);
}

void model_summary(const struct site_model *m, FILE *out)
{
	struct session_dist size = { 0 }, run = { 0 }, len = { 0 };
	uint64_t jobs = m->njobs ? m->cum[m->njobs - 1] : 0;

	fprintf(out, "%-22s %s (%" PRIu32 " nodes)\n", "model of", m->source, m->nodes);
	if (m->trace_jobs)
		fprintf(out, "%-22s %" PRIu64 " jobs of %" PRIu64 " users, %" PRIu64 " sessions "
		        "(%.2f jobs each), %" PRIu64 " batches\n", "trace", m->trace_jobs,
		        m->trace_users, m->trace_sessions,
		        (double)m->trace_jobs / (double)m->trace_sessions, m->trace_batches);
	if (m->trace_long_breaks)
		fprintf(out, "%-22s %" PRIu64 " breaks over 8 h, left out of the breaks below\n", "",
		        m->trace_long_breaks);
	dist_line(out, "think times", &m->think, 60, "min",
	          "from the end of a user's job to its next submission, up to 20 min: "
	          "the session goes on");
	dist_line(out, "breaks", &m->brk, 3600, "h",
	          "a longer gap, up to 8 h: a new session");
	dist_line(out, "batch widths", &m->width, 1, "jobs",
	          "jobs submitted before the previous one ended, taken together");
	for (size_t i = 0; i < m->nruns; i++)
		if (session_dist_add(&len, m->runs[i].len, m->runs[i].count) < 0)
			break;
	dist_line(out, "runs of one size", &len, 1, "jobs",
	          "jobs of one size one after another, by one user");
	for (size_t i = 0; i < m->njobs; i++)
		if (session_dist_add(&size, m->jobs[i].nodes, m->jobs[i].count) < 0 ||
		    session_dist_add(&run, m->jobs[i].run, m->jobs[i].count) < 0)
			break;
	fprintf(out, "%-22s %" PRIu64 " (%zu distinct)\n", "jobs", jobs, m->njobs);
	dist_line(out, "job sizes", &size, 1, "nodes", NULL);
	dist_line(out, "runtimes", &run, 60, "min", NULL);
	session_dist_free(&size);
	session_dist_free(&run);
	session_dist_free(&len);
}

/* ---- reading ---- */

struct reader {
	const char *path;
	unsigned line, errors;
	size_t jcap, rcap;
};

static void bad(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	if (r->errors++ < 20) {
		fprintf(stderr, "%s:%u: ", r->path, r->line);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
}

/* n whole numbers after the key, each in [lo[i], hi[i]]. */
static bool numbers(struct reader *r, char *rest, int n, int64_t *v, const int64_t *lo,
                    const int64_t *hi, const char *key)
{
	for (int i = 0; i < n; i++) {
		char *tok = strtok(i ? NULL : rest, " \t"), *end;

		if (!tok) {
			bad(r, "%s: too few numbers", key);
			return false;
		}
		errno = 0;
		v[i] = strtoll(tok, &end, 10);
		if (*end || errno || v[i] < lo[i] || v[i] > hi[i]) {
			bad(r, "%s: a number out of range or not a whole number", key);
			return false;
		}
	}
	if (strtok(NULL, " \t")) {
		bad(r, "%s: too many numbers", key);
		return false;
	}
	return true;
}

#define NOT_A_MODEL "not a site model; make one with --characterize TRACE --model-out FILE " \
	"(its first line is \"" MODEL_MAGIC "\")"

static int read_line(struct reader *r, struct site_model *m, char *s, bool *magic)
{
	/* think times up to 20 min; breaks from there to 8 h (model.h) */
	static const int64_t lot[] = { 0, 1 }, hit[] = { SESSION_THINK_MAX / BF_SEC, MAX_COUNT };
	static const int64_t lob[] = { SESSION_THINK_MAX / BF_SEC + 1, 1 },
	                     hib[] = { SESSION_BREAK_MAX / BF_SEC, MAX_COUNT };
	static const int64_t low[] = { 1, 1 }, hiw[] = { UINT32_MAX, MAX_COUNT };
	static const int64_t lor[] = { 1, 1, 1 }, hir[] = { SCHED_MAX_NODES, UINT32_MAX, MAX_COUNT };
	static const int64_t loj[] = { 1, 0, -1, 1 },
	                     hij[] = { SCHED_MAX_NODES, MAX_SECONDS, MAX_SECONDS, MAX_COUNT };
	char *key;
	int64_t v[4];

	s[strcspn(s, "#\r\n")] = '\0';
	key = strtok(s, " \t");
	if (!key)
		return 0;
	if (!*magic) {
		if (strcmp(key, "backfilld-site-model") != 0 || strcmp(strtok(NULL, " \t") ?
		    : "", "1") != 0 || strtok(NULL, " \t")) {
			bad(r, "%s", NOT_A_MODEL);
			return -1;
		}
		*magic = true;
		return 0;
	}
	if (strcmp(key, "source") == 0) {
		char *t = strtok(NULL, "");

		snprintf(m->source, sizeof m->source, "%s", t ? t : "");
	} else if (strcmp(key, "nodes") == 0) {
		static const int64_t lo[] = { 1 }, hi[] = { MODEL_MAX_NODES };

		if (numbers(r, strtok(NULL, ""), 1, v, lo, hi, key))
			m->nodes = (uint32_t)v[0];
	} else if (strcmp(key, "think") == 0 || strcmp(key, "break") == 0) {
		bool think = *key == 't';

		if (numbers(r, strtok(NULL, ""), 2, v, think ? lot : lob, think ? hit : hib, key) &&
		    session_dist_add(think ? &m->think : &m->brk, v[0], (uint64_t)v[1]) < 0)
			return -2;
	} else if (strcmp(key, "width") == 0) {
		if (numbers(r, strtok(NULL, ""), 2, v, low, hiw, key) &&
		    session_dist_add(&m->width, v[0], (uint64_t)v[1]) < 0)
			return -2;
	} else if (strcmp(key, "run") == 0) {
		if (numbers(r, strtok(NULL, ""), 3, v, lor, hir, key) &&
		    add_run(m, &r->rcap, (uint32_t)v[0], (uint32_t)v[1], (uint64_t)v[2]) < 0)
			return -2;
	} else if (strcmp(key, "job") == 0) {
		if (numbers(r, strtok(NULL, ""), 4, v, loj, hij, key) &&
		    add_job(m, &r->jcap, (uint32_t)v[0], v[1], v[2] > 0 ? v[2] : -1,
		            (uint64_t)v[3]) < 0)
			return -2;
	} else {
		bad(r, "unknown key '%s' (source, nodes, think, break, width, run, job)", key);
	}
	return 0;
}

int model_read(const char *path, struct site_model *m)
{
	struct reader r = { .path = path };
	FILE *f = fopen(path, "r");
	char line[512];
	bool magic = false;
	int rc = 0;

	memset(m, 0, sizeof *m);
	if (!f) {
		fprintf(stderr, "backfilld: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof line, f)) {
		r.line++;
		if (!strchr(line, '\n') && !feof(f)) {	/* (a trace, gzipped, is one) */
			bad(&r, "%s", magic ? "a line longer than 510 characters" : NOT_A_MODEL);
			break;
		}
		if (r.line > MAX_LINES) {
			bad(&r, "%s", "more than 2000000 lines");
			break;
		}
		rc = read_line(&r, m, line, &magic);
	}
	if (ferror(f))
		fprintf(stderr, "backfilld: %s: read error\n", path), r.errors++;
	fclose(f);
	if (rc == -2) {
		fprintf(stderr, "backfilld: %s: out of memory\n", path);
		model_free(m);
		return -1;
	}
	r.line++;
	if (!r.errors && !magic)
		bad(&r, "%s", "empty: not a backfilld site model");
	if (!r.errors && (!m->nodes || !m->width.n || !m->nruns || !m->njobs))
		bad(&r, "%s", "incomplete: it needs nodes, and at least one width, run and job line");
	if (!r.errors && (jobs_finish(m) < 0 || runs_finish(m) < 0)) {
		fprintf(stderr, "backfilld: %s: out of memory\n", path);
		r.errors++;
	}
	if (r.errors) {
		model_free(m);
		return -1;
	}
	return 0;
}

void model_free(struct site_model *m)
{
	session_dist_free(&m->think);
	session_dist_free(&m->brk);
	session_dist_free(&m->width);
	session_dist_free(&m->run_pick);
	free(m->runs);
	free(m->jobs);
	free(m->cum);
	memset(m, 0, sizeof *m);
}

const struct model_job *model_draw_job(const struct site_model *m, uint32_t nodes, uint64_t *rng)
{
	size_t lo = 0, hi = m->njobs, a, b;
	uint64_t base, x;

	while (lo < hi) {	/* the first job of at least `nodes` */
		size_t mid = lo + (hi - lo) / 2;

		if (m->jobs[mid].nodes < nodes)
			lo = mid + 1;
		else
			hi = mid;
	}
	a = lo;
	for (b = a; b < m->njobs && m->jobs[b].nodes == nodes; b++)
		;
	if (a == b) {	/* none of that size: any */
		a = 0;
		b = m->njobs;
	}
	base = a ? m->cum[a - 1] : 0;
	x = base + session_rand(rng) % (m->cum[b - 1] - base);
	lo = a;
	hi = b - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->cum[mid] > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return &m->jobs[lo];
}
