/* Site-level simulation: simulated users drive the scheduler core under a
 * virtual clock (see site.h). The clock jumps from event to event, as in
 * the replay: job ends first at an instant, then the users who act then,
 * then a scheduling pass. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tq.h"
#include "sys/clock.h"
#include "jsonw.h"
#include "site.h"

/* Where a simulation gives up: the clock, in µs, far from overflow. */
#define SITE_MAX_TIME	((bf_time)10000 * 365 * SESSION_DAY)
/* The most jobs one batch may hold, whatever a model file says. */
#define MAX_WIDTH	10000
#define NO_SJOB		UINT32_MAX

static const char *const class_names[SITE_CLASSES] = {
	"day-weekday", "day-weekend", "night-weekday", "night-weekend",
};

const char *site_class_name(unsigned k)
{
	return k < SITE_CLASSES ? class_names[k] : "?";
}

struct suser {
	struct session_class c;
	unsigned cls;
	uint64_t rng;		/* its own draws: its behaviour is its own */
	/* The last job of its latest batch: its end is when the user reacts
	 * (the think time is measured from it, as in the trace; the batch's
	 * other jobs may still run). NO_SJOB while none. */
	uint32_t last_job;
	uint32_t size_left, model_size;	/* the run of one size under way, as the trace had it */
	bool new_session;	/* the next batch starts a session */
};

struct sjob {
	bf_time submit, start, run, est;
	uint32_t nodes, user;
	bool killed, backfilled;
};

struct sim {
	const struct site_model *m;
	struct sched *s;
	struct suser *u;
	struct sjob *jobs;
	size_t njobs, cap;
	struct tq wake, ends;
	bf_time horizon;
	uint32_t nodes;
	struct site_result *r;
};

static int nomem(void)
{
	fprintf(stderr, "backfilld: out of memory\n");
	return -1;
}

static int core_error(int rc, const char *what)
{
	fprintf(stderr, "backfilld: internal error: %s: %s\n", what, sched_strerror(rc));
	return -1;
}

static struct site_group *group_of(struct sim *sm, uint32_t user)
{
	return &sm->r->cls[sm->u[user].cls];
}

/* One job of the user's batch: the run of one size goes on, or a new run
 * (a size and its length) is drawn; the runtime and estimate are drawn
 * from the whole mix, or with a joint mix for the size as the trace had it
 * (a machine smaller than the trace's gets the job at its own size). */
static int submit_one(struct sim *sm, uint32_t user, bf_time now)
{
	struct suser *u = &sm->u[user];
	const struct model_job *mj;
	struct sjob *j;
	bf_time est;
	int rc;

	if (u->size_left == 0) {
		const struct model_run *run = &sm->m->runs[session_dist_draw(&sm->m->run_pick, &u->rng)];

		u->model_size = run->nodes;
		u->size_left = run->len;
	}
	u->size_left--;
	mj = model_draw_job(sm->m, sm->r->set.joint_mix ? u->model_size : 0, &u->rng);
	if (sm->njobs == sm->cap) {
		size_t cap = sm->cap ? 2 * sm->cap : 4096;
		struct sjob *nj;

		if (cap > UINT32_MAX) {
			fprintf(stderr, "backfilld: more than %u jobs in one simulation\n", UINT32_MAX / 2);
			return -1;
		}
		if (!(nj = realloc(sm->jobs, cap * sizeof *nj)))
			return nomem();
		sm->jobs = nj;
		sm->cap = cap;
	}
	j = &sm->jobs[sm->njobs];
	est = (mj->est > 0 && !sm->r->set.exact_estimates ? mj->est : mj->run > 0 ? mj->run : 1) *
	      BF_SEC;
	*j = (struct sjob){ .submit = now, .start = BF_NEVER, .run = mj->run * BF_SEC,
	                    .est = est, .user = user,
	                    .nodes = u->model_size < sm->nodes ? u->model_size : sm->nodes };
	j->killed = j->run > est;
	if (j->killed)
		j->run = est;
	if ((rc = sched_submit_as(sm->s, now, sm->njobs, j->nodes, est, user)) < 0)
		return core_error(rc, "a submission");
	sm->njobs++;
	u->last_job = (uint32_t)(sm->njobs - 1);
	sm->r->all.submitted++;
	group_of(sm, user)->submitted++;
	sm->r->events++;
	return 0;
}

/* The user acts: outside its window it sleeps until the next (a new
 * session then); inside, it submits a batch. */
static int wake_event(struct sim *sm, uint32_t user, bf_time now)
{
	struct suser *u = &sm->u[user];
	bf_time next = session_next_active(&u->c, now);
	uint32_t width;

	if (next != now) {
		u->new_session = true;
		if (next < sm->horizon && tq_push(&sm->wake, next, user) < 0)
			return nomem();
		return 0;
	}
	if (u->new_session) {
		u->new_session = false;
		sm->r->all.sessions++;
		group_of(sm, user)->sessions++;
	}
	width = (uint32_t)session_dist_draw(&sm->m->width, &u->rng);
	for (uint32_t k = 0; k < width && k < MAX_WIDTH; k++)
		if (submit_one(sm, user, now) < 0)
			return -1;
	return 0;
}

/* The batch's last job ended with response R minutes: the user goes on
 * after a think time with probability 0.8 / (0.05 R + 1), or takes a
 * break and starts a new session. */
static int batch_done(struct sim *sm, uint32_t user, bf_time now, bf_time response)
{
	struct suser *u = &sm->u[user];
	bool new_session;
	int64_t gap = session_next_gap(&sm->m->think, &sm->m->brk,
	                               (double)response / (60.0 * BF_SEC), &u->rng, &new_session);
	/* At least a second: a model of zero gaps and zero runtimes would
	 * otherwise hold the clock at one instant. */
	bf_time next = now + (gap > 0 ? gap : 1) * BF_SEC;

	u->new_session |= new_session;
	if (next < sm->horizon && tq_push(&sm->wake, next, user) < 0)
		return nomem();
	return 0;
}

static int end_event(struct sim *sm, uint32_t id, bf_time now)
{
	struct sjob *j = &sm->jobs[id];
	struct suser *u = &sm->u[j->user];
	int rc;

	if ((rc = sched_end(sm->s, now, id, j->killed ? END_KILLED : END_EXITED)) < 0)
		return core_error(rc, "an end");
	sm->r->events++;
	metrics_add(&sm->r->all.m, j->submit, j->start, now, j->nodes, j->killed, j->backfilled);
	metrics_add(&group_of(sm, j->user)->m, j->submit, j->start, now, j->nodes, j->killed,
	            j->backfilled);
	if (now < sm->horizon) {
		sm->r->all.jobs_done++;
		group_of(sm, j->user)->jobs_done++;
	}
	if (u->last_job == id) {
		u->last_job = NO_SJOB;
		return batch_done(sm, j->user, now, now - j->submit);
	}
	return 0;
}

static int take_actions(struct sim *sm, bf_time now)
{
	size_t na;
	const struct sched_action *a = sched_actions(sm->s, &na);

	for (size_t i = 0; i < na; i++) {
		struct sjob *j = &sm->jobs[a[i].job];
		struct sched_job_info info;

		if (a[i].kind == SA_BROKEN)
			continue;	/* a head's promise taken (creasy): nothing to do */
		if (a[i].kind == SA_KILL && j->start + j->run == now)
			continue;	/* killed at its estimate: its end is now */
		if (a[i].kind != SA_START) {
			fprintf(stderr, "backfilld: internal error: unexpected action %d\n", a[i].kind);
			return -1;
		}
		sched_job_info(sm->s, a[i].job, &info);
		j->start = now;
		j->backfilled = info.backfilled;
		if (tq_push(&sm->ends, now + j->run, (uint32_t)a[i].job) < 0)
			return nomem();
	}
	sched_clear_actions(sm->s);
	return 0;
}

static int simulate(struct sim *sm)
{
	while (sm->wake.len || sm->ends.len || sched_queue_len(sm->s)) {
		bf_time now = sched_next_wakeup(sm->s);
		int rc;

		if (tq_first(&sm->ends) < now)
			now = tq_first(&sm->ends);
		if (tq_first(&sm->wake) < now)
			now = tq_first(&sm->wake);
		if (now == BF_NEVER) {
			fprintf(stderr, "backfilld: internal error: jobs queued, nothing to wait for\n");
			return -1;
		}
		if (now > SITE_MAX_TIME) {
			fprintf(stderr, "backfilld: the simulated clock passed 10,000 years: the "
			        "model's jobs are too long for %u nodes\n", sm->nodes);
			return -1;
		}
		while (tq_first(&sm->ends) == now)
			if (end_event(sm, tq_pop(&sm->ends), now) < 0)
				return -1;
		while (tq_first(&sm->wake) == now)
			if (wake_event(sm, tq_pop(&sm->wake), now) < 0)
				return -1;
		if ((rc = sched_run(sm->s, now)) < 0)
			return core_error(rc, "a scheduling pass");
		if (take_actions(sm, now) < 0)
			return -1;
	}
	return 0;
}

static void finish_group(struct site_group *g, uint32_t nodes, uint32_t days)
{
	g->throughput = (double)g->jobs_done / (24.0 * days);
	g->session_length = g->sessions ? (double)g->submitted / (double)g->sessions : 0;
	metrics_summarize(&g->m, nodes, &g->sum);
}

static int write_jobs(FILE *out, const struct sim *sm)
{
	fprintf(out, "; backfilld: site simulation of %s, %s, %" PRIu32 " users, %" PRIu32
	        " days, seed %" PRIu64 "\n; MaxProcs: %" PRIu32 "\n", sm->m->source,
	        sched_policy_name(sm->r->set.policy), sm->r->set.users, sm->r->set.days,
	        sm->r->set.seed, sm->nodes);
	for (size_t i = 0; i < sm->njobs; i++) {
		const struct sjob *j = &sm->jobs[i];

		fprintf(out, "%zu %" PRId64 " %" PRId64 " %" PRId64 " %" PRIu32 " -1 -1 %" PRIu32
		        " %" PRId64 " -1 %d %" PRIu32 " -1 -1 -1 -1 -1 -1\n", i + 1,
		        (int64_t)(j->submit / BF_SEC), (int64_t)((j->start - j->submit) / BF_SEC),
		        (int64_t)(j->run / BF_SEC), j->nodes, j->nodes, (int64_t)(j->est / BF_SEC),
		        j->killed ? 0 : 1, j->user + 1);
	}
	return ferror(out) ? -1 : 0;
}

int site_run(const struct site_model *m, const struct site_settings *set, struct site_result *r,
             FILE *jobs_out)
{
	struct sim sm = { .m = m, .r = r, .nodes = set->nodes ? set->nodes : m->nodes,
	                  .horizon = (bf_time)set->days * SESSION_DAY };
	struct sched_params prm = { .policy = set->policy, .nodes = sm.nodes, .alpha = set->alpha };
	bf_time t0 = clock_monotonic();
	int rc = -1;

	memset(r, 0, sizeof *r);
	r->set = *set;
	r->nodes = sm.nodes;
	metrics_init(&r->all.m);
	for (unsigned k = 0; k < SITE_CLASSES; k++)
		metrics_init(&r->cls[k].m);
	if (!(sm.u = calloc(set->users ? set->users : 1, sizeof *sm.u)))
		return nomem();
	if (sched_new(&sm.s, &prm) < 0) {
		fprintf(stderr, "backfilld: cannot set up the scheduler for %u nodes\n", sm.nodes);
		goto out;
	}
	for (uint32_t i = 0; i < set->users; i++) {
		struct suser *u = &sm.u[i];
		uint64_t st = set->seed ^ (0x5851F42D4C957F2DULL * (i + 1));

		u->rng = session_rand(&st);
		u->c = session_draw_class(&u->rng);
		u->cls = (u->c.night ? 2u : 0u) + (u->c.weekend ? 1u : 0u);
		u->new_session = true;
		u->last_job = NO_SJOB;
		r->all.users++;
		r->cls[u->cls].users++;
		/* Each starts at its own time in the first day (then waits for
		 * its window), not all at once. */
		if (tq_push(&sm.wake, (bf_time)(session_uniform(&u->rng) * (double)SESSION_DAY),
		            i) < 0) {
			nomem();
			goto out;
		}
	}
	if (simulate(&sm) < 0)
		goto out;
	if (jobs_out && write_jobs(jobs_out, &sm) < 0) {
		fprintf(stderr, "backfilld: cannot write the jobs\n");
		goto out;
	}
	finish_group(&r->all, sm.nodes, set->days);
	for (unsigned k = 0; k < SITE_CLASSES; k++)
		finish_group(&r->cls[k], sm.nodes, set->days);
	r->wall_seconds = (double)(clock_monotonic() - t0) / BF_SEC;
	rc = 0;
out:
	sched_free(sm.s);
	tq_free(&sm.wake);
	tq_free(&sm.ends);
	free(sm.u);
	free(sm.jobs);
	return rc;
}

/* ---- reports ---- */

static const char *policy_text(const struct site_settings *s, char *buf, size_t len)
{
	if (s->policy == SCHED_CREASY)
		snprintf(buf, len, "creasy (alpha %g)", s->alpha);
	else
		snprintf(buf, len, "%s", sched_policy_name(s->policy));
	return buf;
}

void site_report_text(FILE *out, const struct site_model *m, const struct site_result *r)
{
	const struct site_group *a = &r->all;
	char pol[64];

	fprintf(out, "%-14s model of %s\n", "site", m->source);
	fprintf(out, "%-14s %s\n", "policy", policy_text(&r->set, pol, sizeof pol));
	fprintf(out, "%-14s %" PRIu32 "\n", "nodes", r->nodes);
	fprintf(out, "%-14s runtime and estimate drawn %s, estimates %s\n", "jobs",
	        r->set.joint_mix ? "for the size (joint)" : "whatever the size (independent)",
	        r->set.exact_estimates ? "exact" : "the trace's");
	fprintf(out, "%-14s %" PRIu32 " for %" PRIu32 " days, seed %" PRIu64 "\n", "users",
	        r->set.users, r->set.days, r->set.seed);
	fprintf(out, "%-14s %.2f jobs per hour (%" PRIu64 " jobs ended in the %" PRIu32 " days)\n",
	        "throughput", a->throughput, a->jobs_done, r->set.days);
	fprintf(out, "%-14s %" PRIu64 ", %.2f jobs each\n", "sessions", a->sessions,
	        a->session_length);
	fprintf(out, "%-14s %.1f%%\n", "utilization", 100 * a->sum.utilization);
	fprintf(out, "%-14s avg %.1f s, max %.0f s\n", "wait", a->sum.avg_wait, a->sum.max_wait);
	fprintf(out, "%-14s avg %.1f s\n", "response", a->sum.avg_response);
	fprintf(out, "%-14s avg %.2f\n", "bounded sld", a->sum.avg_bsld);
	fprintf(out, "%-14s %" PRIu64 " (at their estimate)\n", "killed", a->sum.killed);
	fprintf(out, "\n%-14s %6s %10s %8s %10s %10s %8s\n", "class", "users", "jobs/h", "jobs/ses",
	        "wait s", "response s", "bsld");
	for (unsigned k = 0; k < SITE_CLASSES; k++) {
		const struct site_group *g = &r->cls[k];

		fprintf(out, "%-14s %6" PRIu32 " %10.2f %8.2f %10.1f %10.1f %8.2f\n",
		        site_class_name(k), g->users, g->throughput, g->session_length,
		        g->sum.avg_wait, g->sum.avg_response, g->sum.avg_bsld);
	}
	fprintf(out, "\n%-14s %" PRIu64 " in %.3f s\n", "events", r->events, r->wall_seconds);
}

static void json_group(struct jw *w, const struct site_group *g)
{
	jw_u64(w, "users", g->users);
	jw_f64(w, "throughput_jobs_per_hour", g->throughput);
	jw_f64(w, "session_length_jobs", g->session_length);
	jw_u64(w, "sessions", g->sessions);
	jw_u64(w, "jobs_submitted", g->submitted);
	jw_u64(w, "jobs_ended_in_time", g->jobs_done);
	jw_u64(w, "killed", g->sum.killed);
	jw_f64(w, "utilization", g->sum.utilization);
	jw_f64(w, "wait_avg_s", g->sum.avg_wait);
	jw_f64(w, "wait_max_s", g->sum.max_wait);
	jw_f64(w, "response_avg_s", g->sum.avg_response);
	jw_f64(w, "bounded_slowdown_avg", g->sum.avg_bsld);
}

void site_report_json(FILE *out, const struct site_model *m, const struct site_result *r)
{
	struct jw w = { .out = out, .depth = 0, .first = true };

	jw_open(&w);
	jw_str(&w, "model", m->source);
	jw_str(&w, "policy", sched_policy_name(r->set.policy));
	if (r->set.policy == SCHED_CREASY)
		jw_f64(&w, "alpha", r->set.alpha);
	jw_u64(&w, "nodes", r->nodes);
	jw_str(&w, "job_mix", r->set.joint_mix ? "joint" : "independent");
	jw_str(&w, "estimates", r->set.exact_estimates ? "exact" : "trace");
	jw_u64(&w, "days", r->set.days);
	jw_u64(&w, "seed", r->set.seed);
	json_group(&w, &r->all);
	jw_key(&w, "classes");
	jw_open(&w);
	for (unsigned k = 0; k < SITE_CLASSES; k++) {
		jw_key(&w, site_class_name(k));
		jw_open(&w);
		json_group(&w, &r->cls[k]);
		jw_close(&w);
	}
	jw_close(&w);
	jw_u64(&w, "events", r->events);
	jw_f64(&w, "wall_s", r->wall_seconds);
	jw_close(&w);
	putc('\n', out);
}

void site_report_csv(FILE *out, const struct site_result *r, bool header)
{
	const struct site_group *a = &r->all;

	if (header)
		fputs("users,days,policy,alpha,seed,nodes,throughput_jobs_per_hour,"
		      "session_length_jobs,sessions,jobs_submitted,utilization,wait_avg_s,"
		      "response_avg_s,bounded_slowdown_avg,job_mix,estimates\n", out);
	fprintf(out, "%" PRIu32 ",%" PRIu32 ",%s,%g,%" PRIu64 ",%" PRIu32 ",%.4f,%.4f,%" PRIu64
	        ",%" PRIu64 ",%.4f,%.2f,%.2f,%.4f,%s,%s\n", r->set.users, r->set.days,
	        sched_policy_name(r->set.policy), r->set.policy == SCHED_CREASY ? r->set.alpha : 0,
	        r->set.seed, r->nodes, a->throughput, a->session_length, a->sessions, a->submitted,
	        a->sum.utilization, a->sum.avg_wait, a->sum.avg_response, a->sum.avg_bsld,
	        r->set.joint_mix ? "joint" : "independent", r->set.exact_estimates ? "exact" : "trace");
}
