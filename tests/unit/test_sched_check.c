/* The checks behind replay --check: sched_check (the state after any
 * event) and sched_watch (the promises seen from event to event). Legal
 * schedules in either event order pass them; states that break an
 * invariant, made here through the core's internals (as a wrong pass
 * would leave them), make them fail, naming the jobs and times. */
#include <stdlib.h>
#include <string.h>
#include "sched.h"
#include "sched_internal.h"
#include "tap.h"

#define S(x) ((bf_time)(x) * BF_SEC)
#define MAXJ 16

struct t {
	struct sched *s;
	struct sched_watch *w;
	bf_time start[MAXJ];	/* -1 while not started */
	int failed;		/* checks that failed */
	char msg[400];		/* the first failure */
};

static void init(struct t *x, enum sched_policy p, uint32_t nodes)
{
	memset(x, 0, sizeof *x);
	for (int i = 0; i < MAXJ; i++)
		x->start[i] = -1;
	if (sched_new(&x->s, &(struct sched_params){ .policy = p, .nodes = nodes,
	                                              .compress_per_end = true }) != SCHED_OK ||
	    !(x->w = sched_watch_new()))
		abort();
}

static void fini(struct t *x)
{
	sched_watch_free(x->w);
	sched_free(x->s);
}

/* After an event or a pass, as replay --check does: the watch (it reads
 * the actions), the state, then the actions taken. */
static int after(struct t *x, bf_time now, bool pass)
{
	size_t n;
	const struct sched_action *a;
	char msg[400];
	int rc = sched_watch(x->w, x->s, now, pass, msg, sizeof msg);

	if (rc == 0)
		rc = sched_check(x->s, now, msg, sizeof msg);
	if (rc != 0 && !x->failed++)
		snprintf(x->msg, sizeof x->msg, "%s", msg);
	a = sched_actions(x->s, &n);
	for (size_t i = 0; i < n; i++)
		if (a[i].kind == SA_START && a[i].job < MAXJ)
			x->start[a[i].job] = a[i].t;
	sched_clear_actions(x->s);
	return rc;
}

static void pass(struct t *x, bf_time now)
{
	sched_run(x->s, now);
	after(x, now, true);
}

/* An arrival, a pass after it. */
static void submit(struct t *x, bf_time now, uint64_t id, uint32_t n, bf_time est)
{
	if (sched_submit(x->s, now, id, n, est) != SCHED_OK)
		abort();
	after(x, now, false);
	pass(x, now);
}

static void end(struct t *x, bf_time now, uint64_t id)
{
	if (sched_end(x->s, now, id, END_EXITED) != SCHED_OK)
		abort();
	after(x, now, false);
}

static struct job *job(struct t *x, uint64_t id)
{
	uint32_t slot = idmap_get(&x->s->ids, id);

	if (slot == IDMAP_NONE)
		abort();
	return &x->s->jobs[slot];
}

static bool says(const struct t *x, const char *a, const char *b)
{
	return x->failed && strstr(x->msg, a) && (!b || strstr(x->msg, b));
}

/* The CTC-SP2 instant of the issue, small: 40 nodes; jobs 1 and 2 (16
 * nodes each) reach their limit at 100, job 3 (5 nodes) runs to 1000.
 * Head 4 needs 26 nodes: its shadow is 100 with 9 nodes spare; job 5 (16
 * nodes, estimate 300) ends after it. With a pass between the two ends
 * (19 nodes free after the first, the head's shadow now), job 5 must not
 * start: it would take the head's nodes. */
static void two_ends_wide_head(bool pass_between)
{
	const char *how = pass_between ? "a pass between the ends" : "both ends, then a pass";
	struct t x;

	init(&x, SCHED_EASY, 40);
	submit(&x, S(0), 1, 16, S(100));
	submit(&x, S(0), 2, 16, S(100));
	submit(&x, S(0), 3, 5, S(1000));
	submit(&x, S(1), 4, 26, S(500));
	submit(&x, S(2), 5, 16, S(300));
	ok_eq(job(&x, 4)->resv, S(100), "%s: head 4 is promised 100", how);
	end(&x, S(100), 1);
	if (pass_between) {
		pass(&x, S(100));
		ok(x.start[5] == -1, "%s: 16 free of 19 but 9 spare at the shadow: job 5 waits",
		   how);
	}
	end(&x, S(100), 2);
	pass(&x, S(100));
	ok_eq(x.start[4], S(100), "%s: head 4 starts at its shadow", how);
	end(&x, S(600), 4);
	pass(&x, S(600));
	ok_eq(x.start[5], S(600), "%s: job 5 starts when 4 ends", how);
	ok_eq(x.failed, 0, "%s: every check held (%s)", how, x.msg);
	fini(&x);
}

/* The same instant with the head wider than the machine's free nodes
 * ever get before 1000 (job 4: 40 nodes), and three jobs behind it that
 * end by the shadow: after one end the 16-node ones fit, after both the
 * 26-node one (as in CTC-SP2: 4531 and 4548, or 4515). Either is legal
 * EASY; the checks hold in both. */
static void two_ends_narrow_jobs(bool pass_between)
{
	const char *how = pass_between ? "a pass between the ends" : "both ends, then a pass";
	struct t x;

	init(&x, SCHED_EASY, 40);
	submit(&x, S(0), 1, 16, S(100));
	submit(&x, S(0), 2, 16, S(100));
	submit(&x, S(0), 3, 5, S(1000));
	submit(&x, S(1), 4, 40, S(500));
	submit(&x, S(2), 5, 26, S(500));
	submit(&x, S(3), 6, 16, S(500));
	submit(&x, S(4), 7, 16, S(500));
	end(&x, S(100), 1);
	if (pass_between)
		pass(&x, S(100));
	end(&x, S(100), 2);
	pass(&x, S(100));
	if (pass_between)
		ok(x.start[6] == S(100) && x.start[7] == S(100) && x.start[5] == -1,
		   "%s: 16-node jobs 6 and 7 start, 26-node job 5 waits", how);
	else
		ok(x.start[5] == S(100) && x.start[6] == -1 && x.start[7] == -1,
		   "%s: 26-node job 5 starts, 6 and 7 wait", how);
	ok_eq(job(&x, 4)->resv, S(1000), "%s: head 4 keeps its shadow, 1000", how);
	ok_eq(x.failed, 0, "%s: every check held (%s)", how, x.msg);
	fini(&x);
}

/* A backfill that takes the head's nodes at its shadow: job 5 started
 * by hand after the first end, as a wrong pass would. */
static void head_nodes_taken(void)
{
	struct t x;

	init(&x, SCHED_EASY, 40);
	submit(&x, S(0), 1, 16, S(100));
	submit(&x, S(0), 2, 16, S(100));
	submit(&x, S(0), 3, 5, S(1000));
	submit(&x, S(1), 4, 26, S(500));
	submit(&x, S(2), 5, 16, S(300));
	end(&x, S(100), 1);
	pass(&x, S(100));
	ok_eq(x.failed, 0, "taken: no check failed before (%s)", x.msg);
	sched_start_job(x.s, idmap_get(&x.s->ids, 5), S(100));
	after(&x, S(100), true);
	ok(says(&x, "head job 4 (26 nodes) promised 100 s: 19 nodes free then",
	        "job 5, backfilled at 100 s (16 nodes until 400 s), delays it"),
	   "taken: the check names the head, its shadow and the job that delays it (%s)", x.msg);
	fini(&x);
}

/* The head's promise moved later with no cause told. */
static void head_promise_later(void)
{
	struct t x;
	struct job *h;

	init(&x, SCHED_EASY, 40);
	submit(&x, S(0), 1, 16, S(100));
	submit(&x, S(0), 2, 24, S(200));
	submit(&x, S(1), 3, 16, S(500));
	ok_eq(job(&x, 3)->resv, S(100), "later: head 3 is promised 100");
	h = job(&x, 3);
	set_resv(x.s, h, S(200));
	x.s->last_shadow = S(200);
	after(&x, S(50), false);
	ok(says(&x, "job 3: promised start moved later, 100 s -> 200 s, with no cause told", NULL),
	   "later: the watch names the job and both promises (%s)", x.msg);
	x.failed = 0;
	ok(sched_check(x.s, S(50), x.msg, sizeof x.msg) != 0 &&
	   strstr(x.msg, "head job 3: promised 200 s, later than its promise 100 s"),
	   "later: so does the check of the state (%s)", x.msg);
	fini(&x);
}

/* A promise moved later for a cause told (a running job's limit raised)
 * is the job's new promise: nothing fails. */
static void head_promise_told(void)
{
	struct t x;

	init(&x, SCHED_EASY, 40);
	submit(&x, S(0), 1, 16, S(100));
	submit(&x, S(0), 2, 24, S(200));
	submit(&x, S(1), 3, 16, S(500));
	if (sched_set_limit(x.s, S(50), 1, S(300)) != SCHED_OK)
		abort();
	after(&x, S(50), false);
	pass(&x, S(50));
	ok_eq(job(&x, 3)->resv, S(200), "told: head 3's promise moved to 200");
	end(&x, S(200), 2);
	pass(&x, S(200));
	ok_eq(x.start[3], S(200), "told: head 3 starts at its new promise");
	ok_eq(x.failed, 0, "told: every check held (%s)", x.msg);
	fini(&x);
}

/* Conservative: the driver missed the wakeup at job 2's reservation
 * (100): the promise passes with the job queued, and the late start is
 * after it. The core does not count a start that a late driver made late
 * (its clock tells that): only the watch sees it. */
static void start_after_reservation(void)
{
	struct t x;

	init(&x, SCHED_CONSERVATIVE, 2);
	submit(&x, S(0), 1, 2, S(100));
	submit(&x, S(1), 2, 1, S(50));
	ok_eq(job(&x, 2)->resv, S(100), "late: job 2 is reserved at 100");
	end(&x, S(100), 1);
	ok_eq(x.failed, 0, "late: due at the end's instant, before its pass: fine (%s)", x.msg);
	if (sched_submit(x.s, S(150), 3, 1, S(10)) != SCHED_OK)
		abort();
	after(&x, S(150), false);
	ok(says(&x, "job 2: promised start 100 s has come (now 150 s), still queued", NULL),
	   "late: the watch sees the reservation pass (%s)", x.msg);
	x.failed = 0;
	pass(&x, S(150));
	ok_eq(x.start[2], S(150), "late: job 2 starts at 150");
	ok(says(&x, "job 2 started at 150 s, after its promised start 100 s", NULL),
	   "late: the watch names the start after the reservation (%s)", x.msg);
	fini(&x);
}

/* Conservative: a pass at job 2's reservation that leaves it queued (the
 * pass is made by hand: the end, then the pass's marks only). */
static void due_left_queued(void)
{
	struct t x;

	init(&x, SCHED_CONSERVATIVE, 2);
	submit(&x, S(0), 1, 2, S(100));
	submit(&x, S(1), 2, 1, S(50));
	end(&x, S(100), 1);
	x.s->last_pass = S(100);
	x.s->dirty = false;
	ok(sched_check(x.s, S(100), x.msg, sizeof x.msg) != 0 &&
	   strstr(x.msg, "job 2: reserved at 100 s, still queued after the pass at 100 s"),
	   "due: the check names the job left queued (%s)", x.msg);
	ok(sched_watch(x.w, x.s, S(100), true, x.msg, sizeof x.msg) != 0 &&
	   strstr(x.msg, "job 2: promised start 100 s has come (now 100 s), still queued after "
	          "the pass"), "due: so does the watch (%s)", x.msg);
	fini(&x);
}

/* Conservative: a reservation moved later with no cause told (a wrong
 * compression). */
static void reservation_later(void)
{
	struct t x;
	struct job *j;

	init(&x, SCHED_CONSERVATIVE, 2);
	submit(&x, S(0), 1, 2, S(100));
	submit(&x, S(1), 2, 1, S(50));
	j = job(&x, 2);
	plan_release(x.s, j, j->resv, j->hold);
	plan_reserve(x.s, j, S(120), j->hold);
	set_resv(x.s, j, S(120));
	after(&x, S(10), false);
	ok(says(&x, "job 2: promised start moved later, 100 s -> 120 s, with no cause told", NULL),
	   "reservation later: the watch names it (%s)", x.msg);
	ok(sched_check(x.s, S(10), x.msg, sizeof x.msg) != 0 &&
	   strstr(x.msg, "job 2: guarantee 120 s later than first 100 s"),
	   "reservation later: so does the check of the state (%s)", x.msg);
	fini(&x);
}

int main(void)
{
	two_ends_wide_head(true);
	two_ends_wide_head(false);
	two_ends_narrow_jobs(true);
	two_ends_narrow_jobs(false);
	head_nodes_taken();
	head_promise_later();
	head_promise_told();
	start_after_reservation();
	due_left_queued();
	reservation_later();
	return tap_done();
}
