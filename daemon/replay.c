/* Replay: an SWF trace through the scheduler core under a virtual clock.
 * The clock jumps from event to event; the core is the same one the live
 * daemon drives. The input rules are stated in replay.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "replay.h"
#include "swf.h"

#define MAX_SHOWN_ERRORS 20
/* Times beyond this many seconds are not real (SKIP_BAD_TIME). */
#define MAX_SECONDS (BF_MAX_DURATION / BF_SEC)

struct rjob {
	bf_time submit, run, estimate;	/* run: cut at the estimate */
	bf_time start;
	int64_t size;			/* as read; checked against the machine later */
	uint32_t line;			/* input order */
	uint8_t skip;			/* enum replay_skip, or SKIP_NREASONS if simulated */
	bool killed, backfilled;
};

struct trace {
	struct rjob *jobs;
	struct swf_job *recs;		/* only with --jobs-out: every field, to write back */
	size_t n, cap;
	struct swf_header hdr;		/* a copy; text owned here */
	uint64_t malformed, reordered;
};

static int push_job(struct trace *tr, const struct swf_job *rec, bool keep_rec)
{
	struct rjob *j;

	if (tr->n == tr->cap) {
		size_t ncap = tr->cap ? tr->cap * 2 : 4096;
		struct rjob *nj = realloc(tr->jobs, ncap * sizeof *nj);

		if (!nj)
			return -1;
		tr->jobs = nj;
		if (keep_rec) {
			struct swf_job *nr = realloc(tr->recs, ncap * sizeof *nr);

			if (!nr)
				return -1;
			tr->recs = nr;
		}
		tr->cap = ncap;
	}
	if (keep_rec)
		tr->recs[tr->n] = *rec;
	j = &tr->jobs[tr->n];
	*j = (struct rjob){ .line = (uint32_t)tr->n, .start = BF_NEVER, .skip = SKIP_NREASONS };
	/* Size: requested processors, else allocated. */
	j->size = rec->f[SWF_REQPROCS] > 0 ? rec->f[SWF_REQPROCS] : rec->f[SWF_ALLOC];
	if (j->size <= 0)
		j->skip = SKIP_NO_SIZE;
	else if (rec->f[SWF_RUN] < 0)
		j->skip = SKIP_NO_RUNTIME;
	else if (rec->f[SWF_SUBMIT] < 0)
		j->skip = SKIP_BAD_SUBMIT;
	else if (rec->f[SWF_SUBMIT] > MAX_SECONDS || rec->f[SWF_RUN] > MAX_SECONDS ||
	         rec->f[SWF_REQTIME] > MAX_SECONDS)
		j->skip = SKIP_BAD_TIME;
	if (j->skip == SKIP_NREASONS) {
		bf_time run = rec->f[SWF_RUN] * BF_SEC;

		j->submit = rec->f[SWF_SUBMIT] * BF_SEC;
		/* Estimate: requested time, else the runtime itself. */
		j->estimate = rec->f[SWF_REQTIME] > 0 ? rec->f[SWF_REQTIME] * BF_SEC : run;
		j->killed = run > j->estimate;
		j->run = j->killed ? j->estimate : run;
	}
	tr->n++;
	return 0;
}

static void trace_free(struct trace *tr)
{
	free(tr->jobs);
	free(tr->recs);
	free(tr->hdr.text);
}

/* Read the whole trace. Malformed lines are errors (the first few shown),
 * or counted and skipped with lenient. Returns 0 or -1. */
static int read_trace(const struct replay_opts *o, struct trace *tr)
{
	char err[512];
	struct swf_reader *r = swf_open(o->trace, err, sizeof err);
	struct swf_job rec;
	int rc;

	if (!r) {
		fprintf(stderr, "backfilld: %s\n", err);
		return -1;
	}
	while ((rc = swf_next(r, &rec, err, sizeof err)) != 0) {
		if (rc == -2) {
			fprintf(stderr, "backfilld: %s\n", err);
			swf_close(r);
			return -1;
		}
		if (rc == -1) {
			if (!o->lenient && tr->malformed < MAX_SHOWN_ERRORS)
				fprintf(stderr, "%s\n", err);
			tr->malformed++;
			continue;
		}
		if (push_job(tr, &rec, o->jobs_out != NULL) < 0) {
			fprintf(stderr, "backfilld: %s: out of memory after %zu jobs\n", o->trace, tr->n);
			swf_close(r);
			return -1;
		}
	}
	tr->hdr = *swf_get_header(r);
	tr->hdr.text = NULL;
	if (swf_get_header(r)->text_len) {
		tr->hdr.text = malloc(tr->hdr.text_len);
		if (tr->hdr.text)
			memcpy(tr->hdr.text, swf_get_header(r)->text, tr->hdr.text_len);
		else
			tr->hdr.text_len = 0;
	}
	swf_close(r);
	if (tr->malformed && !o->lenient) {
		if (tr->malformed > MAX_SHOWN_ERRORS)
			fprintf(stderr, "backfilld: %s: ... and %llu more malformed lines\n", o->trace,
			        (unsigned long long)(tr->malformed - MAX_SHOWN_ERRORS));
		fprintf(stderr, "backfilld: %s: %llu malformed lines; nothing simulated "
		        "(--lenient skips them)\n", o->trace, (unsigned long long)tr->malformed);
		return -1;
	}
	return 0;
}

/* Arrival order: by submit time, file order among equals. */
static int by_submit(const void *a, const void *b)
{
	const struct rjob *x = a, *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Keep the simulated jobs, in arrival order; count the skipped ones. */
static size_t select_jobs(struct trace *tr, uint32_t nodes, struct replay_result *res,
                          struct rjob **out)
{
	struct rjob *sim = malloc((tr->n ? tr->n : 1) * sizeof *sim);
	size_t k = 0;
	bf_time last = INT64_MIN;
	bool sorted = true;

	*out = NULL;
	if (!sim)
		return SIZE_MAX;
	for (size_t i = 0; i < tr->n; i++) {
		struct rjob *j = &tr->jobs[i];

		if (j->skip == SKIP_NREASONS && j->size > (int64_t)nodes)
			j->skip = SKIP_TOO_LARGE;
		if (j->skip != SKIP_NREASONS) {
			res->skipped[j->skip]++;
			continue;
		}
		if (j->submit < last) {
			tr->reordered++;
			sorted = false;
		}
		last = j->submit;
		sim[k++] = *j;
	}
	if (!sorted)
		qsort(sim, k, sizeof *sim, by_submit);
	*out = sim;
	return k;
}

/* Ends pending in the simulation: a binary min-heap of (end time, job). */
struct ends {
	bf_time *t;
	uint32_t *job;
	size_t len;
};

static void ends_push(struct ends *h, bf_time t, uint32_t job)
{
	size_t i = h->len++;

	while (i > 0 && (h->t[(i - 1) / 2] > t || (h->t[(i - 1) / 2] == t && h->job[(i - 1) / 2] > job))) {
		h->t[i] = h->t[(i - 1) / 2];
		h->job[i] = h->job[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->t[i] = t;
	h->job[i] = job;
}

static uint32_t ends_pop(struct ends *h)
{
	uint32_t top = h->job[0], x = h->job[--h->len];
	bf_time t = h->t[h->len];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->len)
			break;
		if (c + 1 < h->len && (h->t[c + 1] < h->t[c] ||
		                       (h->t[c + 1] == h->t[c] && h->job[c + 1] < h->job[c])))
			c++;
		if (h->t[c] > t || (h->t[c] == t && h->job[c] > x))
			break;
		h->t[i] = h->t[c];
		h->job[i] = h->job[c];
		i = c;
	}
	h->t[i] = t;
	h->job[i] = x;
	return top;
}

struct sim {
	struct sched *s;
	struct rjob *jobs;
	size_t n;
	struct ends ends;
	bool check;
	uint64_t events, checks;
};

static int check(struct sim *sm, bf_time now, const char *after)
{
	char msg[300];

	if (!sm->check)
		return 0;
	sm->checks++;
	if (sched_check(sm->s, now, msg, sizeof msg) == 0)
		return 0;
	fprintf(stderr, "backfilld: --check: at t=%.6f s, after %s: %s\n",
	        (double)now / BF_SEC, after, msg);
	return -1;
}

/* Act on what the core decided: a started job ends after its (cut) run. */
static int take_actions(struct sim *sm, bf_time now)
{
	size_t na;
	const struct sched_action *a = sched_actions(sm->s, &na);

	for (size_t i = 0; i < na; i++) {
		struct rjob *j = &sm->jobs[a[i].job];
		struct sched_job_info info;

		if (a[i].kind != SA_START) {
			/* Simulated jobs end at their estimate at the latest, before
			 * any deadline fires, and no node ever goes down. */
			fprintf(stderr, "backfilld: internal error: unexpected action %d for job %llu\n",
			        a[i].kind, (unsigned long long)a[i].job);
			return -1;
		}
		sched_job_info(sm->s, a[i].job, &info);
		j->start = now;
		j->backfilled = info.backfilled;
		ends_push(&sm->ends, now + j->run, (uint32_t)a[i].job);
	}
	sched_clear_actions(sm->s);
	return 0;
}

static int core_error(int rc, const char *what, size_t job)
{
	fprintf(stderr, "backfilld: internal error: %s of job %zu: %s\n", what, job, sched_strerror(rc));
	return -1;
}

static int simulate(struct sim *sm)
{
	size_t next = 0;
	int rc;

	while (next < sm->n || sm->ends.len || sched_queue_len(sm->s)) {
		/* The next instant: an end, an arrival, or a time the core
		 * asked to be woken at (as the live daemon's timer would); a
		 * queued job can fall due after the last end. */
		bf_time now = sched_next_wakeup(sm->s);

		if (sm->ends.len && sm->ends.t[0] < now)
			now = sm->ends.t[0];
		if (next < sm->n && sm->jobs[next].submit < now)
			now = sm->jobs[next].submit;
		if (now == BF_NEVER) {
			fprintf(stderr, "backfilld: internal error: %u jobs queued, nothing to wait for\n",
			        sched_queue_len(sm->s));
			return -1;
		}
		/* Same instant: every end first, then every arrival in order. */
		while (sm->ends.len && sm->ends.t[0] == now) {
			uint32_t id = ends_pop(&sm->ends);

			rc = sched_end(sm->s, now, id, sm->jobs[id].killed ? END_KILLED : END_EXITED);
			if (rc < 0)
				return core_error(rc, "end", id);
			sm->events++;
			if (check(sm, now, "an end") < 0)
				return -1;
		}
		for (; next < sm->n && sm->jobs[next].submit == now; next++) {
			rc = sched_submit(sm->s, now, next, (uint32_t)sm->jobs[next].size,
			                  sm->jobs[next].estimate);
			if (rc < 0)
				return core_error(rc, "arrival", next);
			sm->events++;
			if (check(sm, now, "an arrival") < 0)
				return -1;
		}
		if ((rc = sched_run(sm->s, now)) < 0)
			return core_error(rc, "scheduling pass after", next);
		if (take_actions(sm, now) < 0 || check(sm, now, "the scheduling pass") < 0)
			return -1;
	}
	for (size_t k = 0; k < sm->n; k++) {
		if (sm->jobs[k].start == BF_NEVER) {
			fprintf(stderr, "backfilld: internal error: job on line %u never started\n",
			        sm->jobs[k].line + 1);
			return -1;
		}
	}
	return 0;
}

/* One SWF line per simulated job, in input order, with the simulated wait
 * and run time in fields 3 and 4. */
static int write_jobs(const struct replay_opts *o, const struct trace *tr,
                      const struct sim *sm, const struct replay_result *res)
{
	FILE *f = fopen(o->jobs_out, "w");
	uint32_t *where = malloc((tr->n ? tr->n : 1) * sizeof *where);
	char line[SWF_MAX_LINE + 64];

	if (!f || !where) {
		fprintf(stderr, "backfilld: %s: %s\n", o->jobs_out, strerror(errno ? errno : ENOMEM));
		if (f)
			fclose(f);
		free(where);
		return -1;
	}
	for (size_t i = 0; i < tr->n; i++)
		where[i] = UINT32_MAX;
	for (size_t k = 0; k < sm->n; k++)
		where[sm->jobs[k].line] = (uint32_t)k;
	if (tr->hdr.text_len)
		fwrite(tr->hdr.text, 1, tr->hdr.text_len, f);
	fprintf(f, "; backfilld: replay, policy %s, %u nodes (from %s)\n",
	        sched_policy_name(o->policy), res->nodes, res->nodes_source);
	fprintf(f, "; backfilld: field 3 = simulated wait, field 4 = simulated run time"
	        " (cut at the estimate for killed jobs)\n");
	for (size_t i = 0; i < tr->n; i++) {
		struct swf_job rec;
		const struct rjob *j;

		if (where[i] == UINT32_MAX)
			continue;
		j = &sm->jobs[where[i]];
		rec = tr->recs[i];
		/* Event times are whole seconds of the trace, so these divide. */
		rec.f[SWF_WAIT] = (j->start - j->submit) / BF_SEC;
		rec.f[SWF_RUN] = j->run / BF_SEC;
		swf_format(&rec, line, sizeof line);
		fputs(line, f);
	}
	free(where);
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "backfilld: %s: write failed\n", o->jobs_out);
		return -1;
	}
	return 0;
}

static int pick_nodes(const struct replay_opts *o, const struct trace *tr, struct replay_result *res)
{
	if (o->nodes) {
		res->nodes = o->nodes;
		res->nodes_source = "--nodes";
	} else if (tr->hdr.max_procs > 0 && tr->hdr.max_procs <= REPLAY_MAX_NODES) {
		res->nodes = (uint32_t)tr->hdr.max_procs;
		res->nodes_source = "MaxProcs";
	} else if (tr->hdr.max_nodes > 0 && tr->hdr.max_nodes <= REPLAY_MAX_NODES) {
		res->nodes = (uint32_t)tr->hdr.max_nodes;
		res->nodes_source = "MaxNodes";
	} else {
		fprintf(stderr, "backfilld: %s: the header gives no usable MaxProcs or MaxNodes; "
		        "give the machine size with --nodes N\n", o->trace);
		return -1;
	}
	return 0;
}

int replay_run(const struct replay_opts *o, struct replay_result *res)
{
	struct trace tr = { 0 };
	struct sim sm = { .check = o->check };
	struct sched_params prm = { .policy = o->policy };
	bf_time t0 = clock_monotonic();
	int rc = -1;

	memset(res, 0, sizeof *res);
	res->trace = o->trace;
	res->policy = o->policy;
	if (read_trace(o, &tr) < 0 || pick_nodes(o, &tr, res) < 0)
		goto out;
	res->jobs_read = tr.n + tr.malformed;
	res->skipped[SKIP_MALFORMED] = tr.malformed;
	sm.n = select_jobs(&tr, res->nodes, res, &sm.jobs);
	res->reordered = tr.reordered;
	prm.nodes = res->nodes;
	if (sm.n == SIZE_MAX) {
		fprintf(stderr, "backfilld: out of memory\n");
		goto out;
	}
	sm.ends.t = malloc((sm.n ? sm.n : 1) * sizeof *sm.ends.t);
	sm.ends.job = malloc((sm.n ? sm.n : 1) * sizeof *sm.ends.job);
	if (!sm.ends.t || !sm.ends.job) {
		fprintf(stderr, "backfilld: out of memory\n");
		goto out;
	}
	if (sched_new(&sm.s, &prm) < 0) {
		fprintf(stderr, "backfilld: cannot set up the scheduler for %u nodes\n", prm.nodes);
		goto out;
	}
	if (simulate(&sm) < 0)
		goto out;
	{
		struct metrics m;

		metrics_init(&m);
		for (size_t k = 0; k < sm.n; k++) {
			const struct rjob *j = &sm.jobs[k];

			metrics_add(&m, j->submit, j->start, j->start + j->run, (uint32_t)j->size,
			            j->killed, j->backfilled);
		}
		metrics_summarize(&m, res->nodes, &res->m);
	}
	res->events = sm.events;
	res->checks = sm.checks;
	res->stats = *sched_get_stats(sm.s);
	res->wall_seconds = (double)(clock_monotonic() - t0) / BF_SEC;
	res->events_per_second = res->wall_seconds > 0 ? (double)sm.events / res->wall_seconds : 0;
	rc = o->jobs_out ? write_jobs(o, &tr, &sm, res) : 0;
out:
	sched_free(sm.s);
	free(sm.ends.t);
	free(sm.ends.job);
	free(sm.jobs);
	trace_free(&tr);
	return rc;
}
