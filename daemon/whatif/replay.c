/* Replay: an SWF trace through the scheduler core under a virtual clock.
 * The clock jumps from event to event; the core is the same one the live
 * daemon drives. The input rules are stated in replay.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "offered.h"
#include "preceding.h"
#include "swf.h"
#include "tq.h"
#include "sys/clock.h"
#include "progress.h"
#include "replay.h"

/* The trace's own fields, known only here. */

#define MAX_SHOWN_ERRORS 20
/* Times beyond this many seconds are not real (SKIP_BAD_TIME). */
#define MAX_SECONDS (BF_MAX_DURATION / BF_SEC)

struct rjob {
	bf_time submit, run, estimate;	/* run: cut at the kill limit */
	bf_time raw_run, trace_est;	/* as read: field 4, field 9 (<= 0: none) */
	bf_time limit;			/* history: where the job is killed */
	bf_time start;
	int64_t size;			/* as read; checked against the machine later */
	int64_t num;			/* field 1, to name the job in messages */
	uint32_t line;			/* input order */
	uint32_t user, exe;		/* fields 12 and 14; UINT32_MAX: unknown */
	uint32_t pred_line;		/* field 17: the preceding job's line, or
					 * PRECEDING_NONE / PRECEDING_UNKNOWN */
	bf_time think;			/* field 18 (unknown: 0); -1: beyond 100 years */
	uint8_t skip;			/* enum replay_skip, or SKIP_NREASONS if simulated */
	uint32_t nth;			/* per event: its place in the order of starts */
	bool killed, backfilled;
	bool extend;			/* history: its prediction runs out before its end */
};

struct trace {
	struct rjob *jobs;
	struct swf_job *recs;		/* only with --jobs-out: every field, to write back */
	int64_t *num, *want;		/* fields 1 and 17, while reading */
	size_t n, cap;
	bool names_pred;		/* some line's field 17 is > 0 */
	bool earlier_pred;		/* some line's field 17 names an earlier line */
	struct swf_header hdr;		/* a copy; text owned here */
	uint64_t malformed, reordered;
	const char *path;
};

static uint32_t id_field(int64_t v)
{
	return v >= 0 && v < UINT32_MAX ? (uint32_t)v : UINT32_MAX;
}

/* Room for one more job in every per-line array. 0 or -1. */
static int grow(struct trace *tr, bool keep_rec)
{
	size_t ncap = tr->cap ? tr->cap * 2 : 4096;
	struct rjob *nj;
	int64_t *nn, *nw;

	if (tr->n < tr->cap)
		return 0;
	/* Lines are numbered in 32 bits, and two values of them are taken. */
	if (ncap >= PRECEDING_UNKNOWN)
		return -1;
	if (!(nj = realloc(tr->jobs, ncap * sizeof *nj)))
		return -1;
	tr->jobs = nj;
	if (!(nn = realloc(tr->num, ncap * sizeof *nn)))
		return -1;
	tr->num = nn;
	if (!(nw = realloc(tr->want, ncap * sizeof *nw)))
		return -1;
	tr->want = nw;
	if (keep_rec) {
		struct swf_job *nr = realloc(tr->recs, ncap * sizeof *nr);

		if (!nr)
			return -1;
		tr->recs = nr;
	}
	tr->cap = ncap;
	return 0;
}

/* Field 18 in microseconds: unknown (negative) is no think time; -1
 * marks one beyond 100 years, which cannot be honoured. */
static bf_time think_time(int64_t v)
{
	if (v <= 0)
		return 0;
	return v > MAX_SECONDS ? -1 : v * BF_SEC;
}

static int push_job(struct trace *tr, const struct swf_job *rec, bool keep_rec)
{
	struct rjob *j;

	if (grow(tr, keep_rec) < 0)
		return -1;
	if (keep_rec)
		tr->recs[tr->n] = *rec;
	tr->num[tr->n] = rec->f[SWF_JOB];
	tr->want[tr->n] = rec->f[SWF_PRECEDING];
	tr->names_pred |= rec->f[SWF_PRECEDING] > 0;
	j = &tr->jobs[tr->n];
	*j = (struct rjob){ .line = (uint32_t)tr->n, .start = BF_NEVER, .skip = SKIP_NREASONS,
	                    .pred_line = PRECEDING_NONE, .think = think_time(rec->f[SWF_THINK]) };
	/* Size: requested processors, else allocated. */
	j->size = rec->f[SWF_REQPROCS] > 0 ? rec->f[SWF_REQPROCS] : rec->f[SWF_ALLOC];
	j->num = rec->f[SWF_JOB];
	if (j->size <= 0)
		j->skip = SKIP_NO_SIZE;
	else if (rec->f[SWF_RUN] < 0)
		j->skip = SKIP_NO_RUNTIME;
	else if (rec->f[SWF_SUBMIT] < 0)
		j->skip = SKIP_BAD_SUBMIT;
	else if (rec->f[SWF_SUBMIT] > MAX_SECONDS || rec->f[SWF_RUN] > MAX_SECONDS ||
	         rec->f[SWF_REQTIME] > MAX_SECONDS)
		j->skip = SKIP_BAD_TIME;
	j->user = id_field(rec->f[SWF_USER]);
	j->exe = id_field(rec->f[SWF_EXE]);
	if (j->skip == SKIP_NREASONS) {
		j->submit = rec->f[SWF_SUBMIT] * BF_SEC;
		j->raw_run = rec->f[SWF_RUN] * BF_SEC;
		j->trace_est = rec->f[SWF_REQTIME] > 0 ? rec->f[SWF_REQTIME] * BF_SEC : 0;
	}
	tr->n++;
	return 0;
}

/* Each line's preceding job (field 17) as a line; the job numbers are
 * not needed after this. Returns 0 or -1 (memory). */
static int resolve_preceding(struct trace *tr)
{
	uint32_t *pred;
	int rc = 0;

	if (tr->names_pred) {
		if (!(pred = malloc(tr->n * sizeof *pred)) ||
		    preceding_resolve(tr->num, tr->want, tr->n, pred) < 0) {
			rc = -1;
		} else {
			for (size_t i = 0; i < tr->n; i++) {
				tr->jobs[i].pred_line = pred[i];
				tr->earlier_pred |= pred[i] < PRECEDING_UNKNOWN;
			}
		}
		free(pred);
	}
	free(tr->num);
	free(tr->want);
	tr->num = tr->want = NULL;
	return rc;
}

/* Read the whole trace. Malformed lines are errors (the first few shown),
 * or counted and skipped with lenient. Returns 0 or -1. */
static int read_trace(const char *path, bool lenient, bool keep, struct trace *tr)
{
	char err[512];
	struct swf_reader *r = swf_open(path, err, sizeof err);
	struct swf_job rec;
	int rc;

	if (!r) {
		fprintf(stderr, "backfilld: %s\n", err);
		return -1;
	}
	tr->path = path;
	while ((rc = swf_next(r, &rec, err, sizeof err)) != 0) {
		if (rc == -2) {
			fprintf(stderr, "backfilld: %s\n", err);
			swf_close(r);
			return -1;
		}
		if (rc == -1) {
			/* Its first job line is not one: a README, an image, not a
			 * trace with a bad line. One line says so. */
			if (tr->n == 0 && tr->malformed == 0 && !lenient) {
				fprintf(stderr, "backfilld: not an SWF trace: %s (an SWF line is 18 "
				        "numbers; comments start with ';')\n", err);
				swf_close(r);
				return -1;
			}
			if (!lenient && tr->malformed < MAX_SHOWN_ERRORS)
				fprintf(stderr, "%s\n", err);
			tr->malformed++;
			continue;
		}
		if (push_job(tr, &rec, keep) < 0) {
			fprintf(stderr, "backfilld: %s: out of memory after %zu jobs\n", path, tr->n);
			swf_close(r);
			return -1;
		}
	}
	if (resolve_preceding(tr) < 0) {
		fprintf(stderr, "backfilld: %s: out of memory after %zu jobs\n", path, tr->n);
		swf_close(r);
		return -1;
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
	if (tr->malformed && tr->n == 0) {
		fprintf(stderr, "backfilld: %s: not an SWF trace: none of its %llu lines that are not "
		        "comments is a job\n", path, (unsigned long long)tr->malformed);
		return -1;
	}
	if (tr->malformed && !lenient) {
		if (tr->malformed > MAX_SHOWN_ERRORS)
			fprintf(stderr, "backfilld: %s: ... and %llu more malformed lines\n", path,
			        (unsigned long long)(tr->malformed - MAX_SHOWN_ERRORS));
		fprintf(stderr, "backfilld: %s: %llu malformed lines; nothing simulated "
		        "(--lenient skips them)\n", path, (unsigned long long)tr->malformed);
		return -1;
	}
	return 0;
}

struct trace *replay_load(const char *path, bool lenient, bool keep_records)
{
	struct trace *tr = calloc(1, sizeof *tr);

	if (!tr) {
		fprintf(stderr, "backfilld: out of memory\n");
		return NULL;
	}
	if (read_trace(path, lenient, keep_records, tr) < 0) {
		replay_trace_free(tr);
		return NULL;
	}
	return tr;
}

void replay_trace_free(struct trace *tr)
{
	if (!tr)
		return;
	free(tr->jobs);
	free(tr->recs);
	free(tr->num);
	free(tr->want);
	free(tr->hdr.text);
	free(tr);
}

int64_t replay_unix_start(const struct trace *tr)
{
	return tr->hdr.unix_start;
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
static size_t select_jobs(const struct trace *tr, uint32_t nodes, struct replay_result *res,
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
		const struct rjob *j = &tr->jobs[i];
		uint8_t skip = j->skip;

		if (skip == SKIP_NREASONS && j->size > (int64_t)nodes)
			skip = SKIP_TOO_LARGE;
		if (skip != SKIP_NREASONS) {
			res->skipped[skip]++;
			continue;
		}
		if (j->submit < last) {
			res->reordered++;
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

/* The logged node-seconds of the kept jobs and the span of their submit
 * times (sj in arrival order). */
static double kept_work(const struct rjob *sim, const struct shape_job *sj, const bool *keep,
                        size_t n, bf_time *span)
{
	bf_time first = BF_NEVER, last = 0;
	double node_s = 0;

	for (size_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		node_s += (double)sim[i].size * ((double)sim[i].raw_run / BF_SEC);
		first = first == BF_NEVER ? sj[i].submit : first;
		last = sj[i].submit;
	}
	*span = first == BF_NEVER ? 0 : last - first;
	return node_s;
}

/* --utilization: the load factor that makes the kept jobs' offered load
 * the target (offered.h), applied as --load applies its own. */
static int to_target(const struct rjob *sim, struct shape_job *sj, const bool *keep, size_t n,
                     struct replay_result *res)
{
	bf_time span;
	double node_s = kept_work(sim, sj, keep, n, &span), f, reached;
	double target = res->shape.utilization;

	if (offered_factor(node_s, res->nodes, span, target, &f, &reached) < 0) {
		fprintf(stderr, "backfilld: --utilization %g: the jobs replayed %s, so no spacing of "
		        "their arrivals gives an offered load\n", target,
		        span < BF_SEC ? "all arrive within a second" : "ask for no work (no run time)");
		return -1;
	}
	if (!(f >= 0.01 && f <= 100)) {
		fprintf(stderr, "backfilld: --utilization %g: the jobs replayed offer a load of %.4g "
		        "on %" PRIu32 " nodes, and %g would take a load factor of %.4g, beyond --load's "
		        "0.01 to 100\n", target, offered_load(node_s, res->nodes, span), res->nodes,
		        target, f);
		return -1;
	}
	shape_scale(sj, n, keep, f);
	res->shape.load = f;
	return 0;
}

/* The shaping asked for (res->shape), on the selected jobs, in place; and
 * the offered load of what is left. */
static int shape(const struct trace *tr, struct rjob *sim, size_t *n, struct replay_result *res)
{
	struct shape_job *sj = malloc((*n ? *n : 1) * sizeof *sj);
	bool *keep = malloc((*n ? *n : 1) * sizeof *keep);
	struct shaping sh = res->shape;
	char err[300];
	size_t k = 0;
	int rc = -1;

	if (!sj || !keep) {
		fprintf(stderr, "backfilld: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < *n; i++)
		sj[i] = (struct shape_job){ .submit = sim[i].submit, .user = sim[i].user };
	if (sh.utilization > 0)
		sh.load = 1.0;	/* to_target finds it */
	if (shape_apply(&sh, tr->hdr.unix_start, sj, *n, keep, &res->shaped, err, sizeof err) < 0) {
		fprintf(stderr, "backfilld: %s\n", err);
		goto out;
	}
	if (sh.utilization > 0 && to_target(sim, sj, keep, *n, res) < 0)
		goto out;
	{
		bf_time span;
		double node_s = kept_work(sim, sj, keep, *n, &span);

		res->offered_load = offered_load(node_s, res->nodes, span);
	}
	for (size_t i = 0; i < *n; i++)
		if (keep[i]) {
			sim[k] = sim[i];
			sim[k++].submit = sj[i].submit;
		}
	*n = k;
	rc = 0;
out:
	free(sj);
	free(keep);
	return rc;
}

/* Each job's estimate and kill limit under the model. */
static void draw_estimates(const struct replay_settings *set, struct rjob *sim, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rjob *j = &sim[i];
		bf_time e = est_draw(&set->est, set->seed, j->line, j->raw_run, j->trace_est);

		/* History: e is the limit; the prediction comes at arrival. */
		j->limit = e;
		j->estimate = e;
		j->killed = j->raw_run > e;
		j->run = j->killed ? e : j->raw_run;
	}
}

/* A simulated job's place in a workflow, when dependencies are honoured. */
#define NO_JOB UINT32_MAX
struct dep {
	uint32_t pred;			/* the simulated job it waits for; NO_JOB: none */
	uint32_t first, next;		/* the jobs waiting for it: a list through next */
};

struct sim {
	struct progress prog;		/* jobs arrived of n, on a terminal */
	struct sched *s;
	struct rjob *jobs;
	size_t n;
	struct dep *dep;		/* NULL: no dependency honoured */
	struct tq ends;			/* job ends, each job at most once: by job,
					 * or per event by place in the order of
					 * starts (the job: started[]) */
	struct tq ext;			/* history: predictions running out */
	struct tq rel;			/* jobs released by their predecessor's end,
					 * at their effective submit time */
	uint64_t delayed;		/* released later than their own submit time */
	double delay_s;			/* by this much in all, in seconds */
	struct est_history *hist;	/* the history model only */
	bool check, per_event;
	struct sched_watch *watch;	/* --check: the promises seen */
	uint32_t *started;		/* per event: the jobs in the order they started */
	uint32_t nstarted;
	uint32_t *ending;		/* per event: the ends of one instant */
	uint64_t events, checks, extended, broken;
};

/* Here, not with the reports' names: --jobs-out names it too, and the
 * replay calls nothing of the reports. */
const char *replay_deps_name(enum replay_deps mode)
{
	switch (mode) {
	case DEPS_TRACE:	return "trace";
	case DEPS_NONE:		return "none";
	case DEPS_AUTO:		break;
	}
	return "auto";
}

/* Why job j's field 17 is not honoured, or DEP_NREASONS if it is;
 * where[] maps trace lines to simulated jobs. */
static enum replay_dep_ignored dep_verdict(const struct rjob *j, const uint32_t *where,
                                           enum replay_deps mode)
{
	if (j->pred_line == PRECEDING_UNKNOWN)
		return DEP_NOT_EARLIER;
	if (where[j->pred_line] == NO_JOB)
		return DEP_NOT_REPLAYED;
	if (j->think < 0)
		return DEP_BAD_THINK;
	return mode == DEPS_TRACE ? DEP_NREASONS : DEP_OFF;
}

/* Link every simulated job to the simulated job it waits for (sm->dep),
 * and count what field 17 did. sm->dep stays NULL when nothing is
 * honoured, so such a replay runs exactly as one of a trace without
 * workflows. Returns 0 or -1 (memory). */
static int link_deps(const struct trace *tr, const struct replay_settings *set, struct sim *sm,
                     struct replay_dep_counts *c)
{
	uint32_t *where;

	c->mode = set->deps != DEPS_AUTO ? set->deps : tr->earlier_pred ? DEPS_TRACE : DEPS_NONE;
	c->shown = tr->names_pred || set->deps != DEPS_AUTO;
	if (!tr->names_pred)
		return 0;
	where = malloc((tr->n ? tr->n : 1) * sizeof *where);
	sm->dep = malloc((sm->n ? sm->n : 1) * sizeof *sm->dep);
	if (!where || !sm->dep) {
		free(where);
		return -1;
	}
	for (size_t i = 0; i < tr->n; i++)
		where[i] = NO_JOB;
	for (size_t k = 0; k < sm->n; k++) {
		where[sm->jobs[k].line] = (uint32_t)k;
		sm->dep[k] = (struct dep){ NO_JOB, NO_JOB, NO_JOB };
	}
	for (size_t k = 0; k < sm->n; k++) {
		const struct rjob *j = &sm->jobs[k];
		enum replay_dep_ignored why;
		uint32_t p;

		if (j->pred_line == PRECEDING_NONE)
			continue;
		c->with_pred++;
		if ((why = dep_verdict(j, where, c->mode)) != DEP_NREASONS) {
			c->ignored[why]++;
			continue;
		}
		c->honoured++;
		p = where[j->pred_line];
		sm->dep[k].pred = p;
		sm->dep[k].next = sm->dep[p].first;
		sm->dep[p].first = (uint32_t)k;
	}
	free(where);
	if (!c->honoured) {
		free(sm->dep);
		sm->dep = NULL;
	}
	return 0;
}

/* The jobs a --check message names ("job K": the core knows a replayed
 * job by its place in arrival order), as the trace numbers them. */
static void name_jobs(const struct sim *sm, const char *msg)
{
	unsigned long long named[8];
	size_t nn = 0;

	for (const char *p = msg; (p = strstr(p, "job ")) && nn < 8;) {
		char *e;
		unsigned long long k;
		bool again = false;

		p += 4;
		k = strtoull(p, &e, 10);
		if (e == p || k >= sm->n)
			continue;
		for (size_t i = 0; i < nn; i++)
			again |= named[i] == k;
		if (again)
			continue;
		named[nn++] = k;
		fprintf(stderr, "backfilld: --check: job %llu is the trace's job %lld (submitted at "
		        "%lld s, %lld nodes, estimate %.0f s)\n", k, (long long)sm->jobs[k].num,
		        (long long)(sm->jobs[k].submit / BF_SEC), (long long)sm->jobs[k].size,
		        (double)sm->jobs[k].estimate / BF_SEC);
	}
}

/* --check, after an event or a pass: the promises seen so far (the
 * actions not yet taken among them), then every invariant of the core. */
static int check(struct sim *sm, bf_time now, const char *after, bool after_pass)
{
	char msg[400];

	if (!sm->check)
		return 0;
	sm->checks++;
	if (sched_watch(sm->watch, sm->s, now, after_pass, msg, sizeof msg) == 0 &&
	    sched_check(sm->s, now, msg, sizeof msg) == 0)
		return 0;
	fprintf(stderr, "backfilld: --check: at t=%.6f s, after %s: %s\n",
	        (double)now / BF_SEC, after, msg);
	name_jobs(sm, msg);
	return -1;
}

/* A job's end at t, in the order the queue pops equal times: by job, or
 * per event in the order the jobs started (as the literature's simulator
 * takes its ends of one instant). The queue's room was reserved. */
static void push_end(struct sim *sm, bf_time t, uint32_t id)
{
	tq_push(&sm->ends, t, sm->per_event ? sm->jobs[id].nth : id);
}

static uint32_t pop_end(struct sim *sm)
{
	uint32_t k = tq_pop(&sm->ends);

	return sm->per_event ? sm->started[k] : k;
}

/* Act on what the core decided: a started job ends after its (cut) run,
 * or, when its history prediction runs out first, is extended then. */
static int take_actions(struct sim *sm, bf_time now)
{
	size_t na;
	const struct sched_action *a = sched_actions(sm->s, &na);

	for (size_t i = 0; i < na; i++) {
		struct rjob *j = &sm->jobs[a[i].job];
		struct sched_job_info info;

		if (a[i].kind == SA_BROKEN) {
			sm->broken++;	/* an extended prediction overlapped a promise */
			continue;
		}
		/* Per event, a job started at this instant with no run (and
		 * so no estimate) reaches its limit at once: a pass between
		 * its start and its end, still to come at this instant,
		 * signals it. */
		if (a[i].kind == SA_KILL && j->start + j->run == now)
			continue;
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
		j->nth = sm->nstarted;
		sm->started[sm->nstarted++] = (uint32_t)a[i].job;
		j->extend = j->run > j->estimate;
		if (j->extend)
			tq_push(&sm->ext, now + j->estimate, (uint32_t)a[i].job);
		else
			push_end(sm, now + j->run, (uint32_t)a[i].job);
	}
	sched_clear_actions(sm->s);
	return 0;
}

/* After an event or a pass: checked (before its actions are taken: the
 * watch reads them), then acted on. */
static int settle(struct sim *sm, bf_time now, const char *after, bool after_pass)
{
	return check(sm, now, after, after_pass) < 0 || take_actions(sm, now) < 0 ? -1 : 0;
}

static int core_error(int rc, const char *what, size_t job)
{
	fprintf(stderr, "backfilld: internal error: %s of job %zu: %s\n", what, job, sched_strerror(rc));
	return -1;
}

/* A pass and what it decided; after every event with per_event. */
static int pass(struct sim *sm, bf_time now, size_t next)
{
	int rc;

	if ((rc = sched_run(sm->s, now)) < 0)
		return core_error(rc, "scheduling pass after", next);
	return settle(sm, now, "the scheduling pass", true);
}

/* A history prediction ran out with the job still running: it gets its
 * whole limit (as Tsafrir et al. extend a prediction that proved too
 * short). Before any end or pass of the instant, so the core never
 * signals it at the prediction. */
static int extend_event(struct sim *sm, bf_time now, uint32_t id)
{
	struct rjob *j = &sm->jobs[id];
	int rc;

	j->extend = false;
	if ((rc = sched_set_limit(sm->s, now, id, j->limit)) < 0)
		return core_error(rc, "extended prediction", id);
	j->estimate = j->limit;
	sm->extended++;
	push_end(sm, j->start + j->run, id);
	return settle(sm, now, "an extended prediction", false);
}

/* The jobs waiting for job id, which ended now: each is submitted after
 * its think time, but never before its own submit time. From then on its
 * submit time is that one: its wait and response count from it. The
 * queue's room was reserved, so the pushes cannot fail. */
static void release(struct sim *sm, bf_time now, uint32_t id)
{
	for (uint32_t d = sm->dep[id].first; d != NO_JOB; d = sm->dep[d].next) {
		struct rjob *j = &sm->jobs[d];
		bf_time at = now + j->think;

		if (at > j->submit) {
			sm->delayed++;
			sm->delay_s += (double)(at - j->submit) / BF_SEC;
			j->submit = at;
		}
		tq_push(&sm->rel, j->submit, d);
	}
}

static int end_event(struct sim *sm, bf_time now, uint32_t id)
{
	struct rjob *j = &sm->jobs[id];
	int rc;

	rc = sched_end(sm->s, now, id, j->killed ? END_KILLED : END_EXITED);
	if (rc < 0)
		return core_error(rc, "end", id);
	sm->events++;
	if (sm->dep)
		release(sm, now, id);
	if (sm->hist && est_history_record(sm->hist, now, j->user, j->exe, (uint32_t)j->size,
	                                   j->run) < 0) {
		fprintf(stderr, "backfilld: out of memory\n");
		return -1;
	}
	return settle(sm, now, "an end", false);
}

static int arrival(struct sim *sm, bf_time now, size_t k)
{
	struct rjob *j = &sm->jobs[k];
	int rc;

	if (sm->hist) {
		bf_time e = est_history_predict(sm->hist, now, j->user, j->exe, (uint32_t)j->size,
		                                j->limit);

		if (e < 0) {
			fprintf(stderr, "backfilld: out of memory\n");
			return -1;
		}
		j->estimate = e < j->limit ? e : j->limit;
	}
	rc = sched_submit(sm->s, now, k, (uint32_t)j->size, j->estimate);
	if (rc < 0)
		return core_error(rc, "arrival", k);
	sm->events++;
	return settle(sm, now, "an arrival", false);
}

/* The first job from next on that arrives at its own submit time: not
 * one that waits for its predecessor's end (release brings those). */
static size_t skip_waiting(const struct sim *sm, size_t next)
{
	while (sm->dep && next < sm->n && sm->dep[next].pred != NO_JOB)
		next++;
	return next;
}

/* Every arrival at now, in arrival order: by own submit time, file order
 * among equal ones (the order of sm->jobs), whether a job comes at its own
 * submit time or was released by an end (at this instant or before). */
static int arrivals(struct sim *sm, bf_time now, size_t *next)
{
	for (;;) {
		bool own, rel = sm->rel.len && sm->rel.t[0] == now;
		size_t k;

		*next = skip_waiting(sm, *next);
		own = *next < sm->n && sm->jobs[*next].submit == now;
		if (!own && !rel)
			return 0;
		k = own && (!rel || *next < sm->rel.id[0]) ? (*next)++ : tq_pop(&sm->rel);
		if (arrival(sm, now, k) < 0 || (sm->per_event && pass(sm, now, k) < 0))
			return -1;
	}
}

/* An instant per event, in the order of the literature's event-driven
 * simulator (pyss, as Mu'alem and Feitelson and Tsafrir et al. used it;
 * backfilld-whatif(7), EVENT ORDER):
 *  1. the jobs that reach their limit now (killed, or ending exactly at
 *     their estimate) give their nodes back before anything else: the
 *     plan, in estimates, counts them free from this instant on, and that
 *     simulator's plan is all it looks at;
 *  2. every arrival, in arrival order, a pass after each;
 *  3. every end, in the order the jobs started, a pass after each, and
 *     under conservative a compression with it, also for an end at the
 *     limit (whose nodes came back in 1: sched_compress_next);
 *  then the jobs its ends released (dependencies), and a last pass, for
 *  an instant that only the core asked to be woken at. */
static int instant_per_event(struct sim *sm, bf_time now, size_t *next)
{
	uint32_t n = 0;

	while (sm->ends.len && sm->ends.t[0] == now) {
		uint32_t id = pop_end(sm);
		const struct rjob *j = &sm->jobs[id];

		sm->ending[n++] = id;
		if (j->start + j->estimate == now && end_event(sm, now, id) < 0)
			return -1;
	}
	if (arrivals(sm, now, next) < 0)
		return -1;
	for (uint32_t k = 0; k < n; k++) {
		const struct rjob *j = &sm->jobs[sm->ending[k]];

		if (j->start + j->estimate == now)
			sched_compress_next(sm->s);
		else if (end_event(sm, now, sm->ending[k]) < 0)
			return -1;
		if (pass(sm, now, *next) < 0)
			return -1;
	}
	return arrivals(sm, now, next) < 0 || pass(sm, now, *next) < 0 ? -1 : 0;
}

static int simulate(struct sim *sm)
{
	size_t next = 0;
	unsigned turn = 0;

	while ((next = skip_waiting(sm, next)) < sm->n || sm->ends.len || sm->ext.len || sm->rel.len ||
	       sched_queue_len(sm->s)) {
		if ((turn++ & 255) == 0)
			progress_show(&sm->prog, next, sm->n);
		/* The next instant: an end, an arrival, or a time the core
		 * asked to be woken at (as the live daemon's timer would); a
		 * queued job can fall due after the last end. */
		bf_time now = sched_next_wakeup(sm->s);

		if (sm->ends.len && sm->ends.t[0] < now)
			now = sm->ends.t[0];
		if (sm->ext.len && sm->ext.t[0] < now)
			now = sm->ext.t[0];
		if (sm->rel.len && sm->rel.t[0] < now)
			now = sm->rel.t[0];
		if (next < sm->n && sm->jobs[next].submit < now)
			now = sm->jobs[next].submit;
		if (now == BF_NEVER) {
			fprintf(stderr, "backfilld: internal error: %u jobs queued, nothing to wait for\n",
			        sched_queue_len(sm->s));
			return -1;
		}
		/* Same instant: predictions extended, every end (which may
		 * release jobs that waited for it), then every arrival in
		 * arrival order. */
		while (sm->ext.len && sm->ext.t[0] == now)
			if (extend_event(sm, now, tq_pop(&sm->ext)) < 0)
				return -1;
		if (sm->per_event) {
			if (instant_per_event(sm, now, &next) < 0)
				return -1;
			continue;
		}
		while (sm->ends.len && sm->ends.t[0] == now)
			if (end_event(sm, now, pop_end(sm)) < 0)
				return -1;
		if (arrivals(sm, now, &next) < 0 || pass(sm, now, next) < 0)
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

/* ", alpha A" after creasy's name; "" for the others. */
static const char *policy_alpha(const struct replay_settings *set, char *buf, size_t len)
{
	if (set->policy != SCHED_CREASY)
		return "";
	snprintf(buf, len, ", alpha %g", set->alpha);
	return buf;
}

/* One SWF line per simulated job, in input order, with the simulated wait
 * and run time in fields 3 and 4 (and the estimate used in field 9). */
static int write_jobs(const char *path, const struct trace *tr, const struct replay_settings *set,
                      const struct rjob *sim, size_t n, const struct replay_result *res)
{
	FILE *f = fopen(path, "w");
	uint32_t *where = malloc((tr->n ? tr->n : 1) * sizeof *where);
	char line[SWF_MAX_LINE + 64], est[32], alpha[48];

	if (!f || !where || !tr->recs) {
		fprintf(stderr, "backfilld: %s: %s\n", path, strerror(errno ? errno : ENOMEM));
		if (f)
			fclose(f);
		free(where);
		return -1;
	}
	for (size_t i = 0; i < tr->n; i++)
		where[i] = UINT32_MAX;
	for (size_t k = 0; k < n; k++)
		where[sim[k].line] = (uint32_t)k;
	if (tr->hdr.text_len)
		fwrite(tr->hdr.text, 1, tr->hdr.text_len, f);
	est_name(&set->est, est, sizeof est);
	fprintf(f, "; backfilld: replay, policy %s%s, %u nodes (from %s), estimates %s, seed "
	        "%llu%s\n", sched_policy_name(set->policy), policy_alpha(set, alpha, sizeof alpha),
	        res->nodes, res->nodes_source, est,
	        (unsigned long long)set->seed, set->per_event ? ", per event" : "");
	fprintf(f, "; backfilld: field 2 = submit time (after --load), field 3 = simulated wait,"
	        " field 4 = simulated run time (cut at the limit for killed jobs)%s\n",
	        set->est.kind != EST_TRACE ? ", field 9 = the estimate the scheduler used" : "");
	if (res->deps.shown)
		fprintf(f, "; backfilld: dependencies %s (fields 17 and 18)%s\n",
		        replay_deps_name(res->deps.mode), res->deps.mode == DEPS_TRACE ?
		        ": field 2 is the effective submit time, its preceding job's end plus the "
		        "think time when that came after its own" : ": not honoured");
	for (size_t i = 0; i < tr->n; i++) {
		struct swf_job rec;
		const struct rjob *j;

		if (where[i] == UINT32_MAX)
			continue;
		j = &sim[where[i]];
		rec = tr->recs[i];
		/* Event times are whole seconds of the trace, so these divide. */
		rec.f[SWF_SUBMIT] = j->submit / BF_SEC;
		rec.f[SWF_WAIT] = (j->start - j->submit) / BF_SEC;
		rec.f[SWF_RUN] = j->run / BF_SEC;
		if (set->est.kind != EST_TRACE)
			rec.f[SWF_REQTIME] = (j->estimate + BF_SEC - 1) / BF_SEC;
		swf_format(&rec, line, sizeof line);
		fputs(line, f);
	}
	free(where);
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "backfilld: %s: write failed\n", path);
		return -1;
	}
	return 0;
}

static int pick_nodes(const struct trace *tr, uint32_t want, struct replay_result *res)
{
	if (tr->hdr.max_procs > 0 && tr->hdr.max_procs <= REPLAY_MAX_NODES)
		res->trace_nodes = (uint32_t)tr->hdr.max_procs;
	else if (tr->hdr.max_nodes > 0 && tr->hdr.max_nodes <= REPLAY_MAX_NODES)
		res->trace_nodes = (uint32_t)tr->hdr.max_nodes;
	if (want) {
		res->nodes = want;
		res->nodes_source = "--nodes";
	} else if (res->trace_nodes) {
		res->nodes = res->trace_nodes;
		res->nodes_source = tr->hdr.max_procs > 0 && tr->hdr.max_procs <= REPLAY_MAX_NODES ?
		                    "MaxProcs" : "MaxNodes";
	} else {
		fprintf(stderr, "backfilld: %s: the header gives no usable MaxProcs or MaxNodes; "
		        "give the machine size with --nodes N\n", tr->path);
		return -1;
	}
	return 0;
}

void replay_result_free(struct replay_result *res)
{
	bd_free(res->bd);
	res->bd = NULL;
}

/* The simulated jobs as the analysis sees them. */
static int keep_jobs(const struct sim *sm, struct replay_jobs *out)
{
	out->n = sm->n;
	out->j = malloc((sm->n ? sm->n : 1) * sizeof *out->j);
	if (!out->j)
		return -1;
	for (size_t k = 0; k < sm->n; k++) {
		const struct rjob *j = &sm->jobs[k];

		out->j[k] = (struct replay_job){ .submit = j->submit, .start = j->start,
			.run = j->run, .estimate = j->estimate, .logged_run = j->raw_run,
			.size = (uint32_t)j->size,
			.line = j->line, .killed = j->killed, .backfilled = j->backfilled };
	}
	return 0;
}

static int results(const struct trace *tr, const struct replay_opts *o, struct sim *sm,
                   struct replay_result *res, struct replay_jobs *jobs)
{
	struct metrics m;
	struct replay_jobs all;
	double acc = 0;
	uint64_t nacc = 0;

	metrics_init(&m);
	for (size_t k = 0; k < sm->n; k++) {
		const struct rjob *j = &sm->jobs[k];

		metrics_add(&m, j->submit, j->start, j->start + j->run, (uint32_t)j->size,
		            j->killed, j->backfilled);
		if (j->estimate > 0) {
			acc += (double)j->run / (double)j->estimate;
			nacc++;
		}
	}
	metrics_summarize(&m, res->nodes, &res->m);
	res->est_accuracy = nacc ? acc / (double)nacc : 0;
	if (keep_jobs(sm, &all) < 0 ||
	    !(res->bd = bd_compute(&all, res->nodes, tr->hdr.unix_start, &o->bd))) {
		free(all.j);
		fprintf(stderr, "backfilld: out of memory\n");
		return -1;
	}
	if (jobs)
		*jobs = all;
	else
		free(all.j);
	return 0;
}

int replay_cell(const struct trace *tr, const struct replay_opts *o,
                const struct replay_settings *set, struct replay_result *res,
                struct replay_jobs *jobs)
{
	struct sim sm = { .check = o->check, .per_event = set->per_event };
	struct sched_params prm = { .policy = set->policy, .compress_per_end = set->per_event,
	                            .alpha = set->alpha };
	bf_time t0 = clock_monotonic();
	int rc = -1, simulated;

	memset(res, 0, sizeof *res);
	if (jobs)
		*jobs = (struct replay_jobs){ 0 };
	res->trace = tr->path;
	res->policy = set->policy;
	res->alpha = set->alpha;
	res->per_event = set->per_event;
	res->est = set->est;
	res->seed = set->seed;
	res->shape = set->shape;
	if (!(res->shape.load > 0))
		res->shape.load = 1.0;
	if (pick_nodes(tr, set->nodes, res) < 0)
		return -1;
	res->jobs_read = tr->n + tr->malformed;
	res->skipped[SKIP_MALFORMED] = tr->malformed;
	sm.n = select_jobs(tr, res->nodes, res, &sm.jobs);
	prm.nodes = res->nodes;
	if (sm.n == SIZE_MAX) {
		fprintf(stderr, "backfilld: out of memory\n");
		goto out;
	}
	if (shape(tr, sm.jobs, &sm.n, res) < 0)
		goto out;
	draw_estimates(set, sm.jobs, sm.n);
	if ((set->est.kind == EST_HISTORY && !(sm.hist = est_history_new())) ||
	    link_deps(tr, set, &sm, &res->deps) < 0) {
		fprintf(stderr, "backfilld: out of memory\n");
		goto out;
	}
	/* Room for every job in each, so that no push fails. */
	if (tq_reserve(&sm.ends, sm.n) < 0 || tq_reserve(&sm.ext, sm.n) < 0 ||
	    (sm.dep && tq_reserve(&sm.rel, sm.n) < 0) ||
	    !(sm.started = malloc((sm.n ? sm.n : 1) * sizeof *sm.started)) ||
	    !(sm.ending = malloc((sm.n ? sm.n : 1) * sizeof *sm.ending)) ||
	    (sm.check && !(sm.watch = sched_watch_new()))) {
		fprintf(stderr, "backfilld: out of memory\n");
		goto out;
	}
	if (sched_new(&sm.s, &prm) < 0) {
		fprintf(stderr, "backfilld: cannot set up the scheduler for %u nodes\n", prm.nodes);
		goto out;
	}
	progress_start(&sm.prog, o->progress, "jobs");
	simulated = simulate(&sm);
	progress_end(&sm.prog, sm.n, sm.n, false);
	if (simulated < 0 || results(tr, o, &sm, res, jobs) < 0)
		goto out;
	res->events = sm.events;
	res->checks = sm.checks;
	res->extended = sm.extended;
	res->broken = sm.broken;
	res->deps.delayed = sm.delayed;
	res->deps.delay_avg = sm.delayed ? sm.delay_s / (double)sm.delayed : 0;
	res->stats = *sched_get_stats(sm.s);
	res->wall_seconds = (double)(clock_monotonic() - t0) / BF_SEC;
	res->events_per_second = res->wall_seconds > 0 ? (double)sm.events / res->wall_seconds : 0;
	rc = o->jobs_out ? write_jobs(o->jobs_out, tr, set, sm.jobs, sm.n, res) : 0;
out:
	if (rc < 0)
		replay_result_free(res);
	sched_free(sm.s);
	est_history_free(sm.hist);
	tq_free(&sm.ends);
	tq_free(&sm.ext);
	tq_free(&sm.rel);
	sched_watch_free(sm.watch);
	free(sm.started);
	free(sm.ending);
	free(sm.dep);
	free(sm.jobs);
	return rc;
}

int replay_run(const struct replay_opts *o, struct replay_result *res)
{
	struct trace *tr = replay_load(o->trace, o->lenient, o->jobs_out != NULL);
	int rc;

	if (!tr)
		return -1;
	rc = replay_cell(tr, o, &o->set, res, NULL);
	/* The report names the trace after the trace is freed. */
	res->trace = o->trace;
	replay_trace_free(tr);
	return rc;
}
