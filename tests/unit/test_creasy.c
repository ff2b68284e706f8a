/* CREASY on hand-built scenarios, each small enough to work out by hand:
 * the priority formula of SCHEDULING.md, the head taken by a job of
 * higher priority (and told), the wait term that lets every job reach the
 * head, jobs put first, caps, and alpha changed live. (The stress runs of
 * test_sched.c compare alpha 0 with EASY; tests/replay compare them on
 * real traces.) */
#include <math.h>
#include "sched.h"
#include "tap.h"
#include "sched_driver.h"

static void drv_creasy(struct drv *d, uint32_t nodes, double alpha, uint32_t cap)
{
	drv_init_params(d, &(struct sched_params){ .policy = SCHED_CREASY, .nodes = nodes,
	                                           .alpha = alpha, .max_running_per_user = cap });
}

static void submit_as(struct drv *d, bf_time t, uint64_t id, uint32_t n, bf_time est,
                      uint32_t user)
{
	if (sched_submit_as(d->s, t, id, n, est, user) != SCHED_OK)
		abort();
	run(d, t);
}

static void end(struct drv *d, bf_time t, uint64_t id)
{
	sched_end(d->s, t, id, END_EXITED);
	run(d, t);
}

/* A holds all 4 nodes for [0, 100). B (est 1000 s) arrives at 1, C (est
 * 60 s) at 2, each needing all 4. In minutes, at 2: B waited 1/60, its
 * response so far 1/60 + 16.67, criticality 0.04 / (0.05 * 16.68 + 1)^2
 * = 0.01189; C: 0.04 / 1.05^2 = 0.03628. C passes B when alpha * 0.02439
 * > 1/60: alpha > 0.683. At 100 (B waited 1.65, C 1.633 minutes): 0.010898
 * against 0.031234, C first when alpha > 0.8196. */
static void formula(double alpha, bool c_head_at_2, bool c_first_at_100)
{
	struct drv d;

	drv_creasy(&d, 4, alpha, 0);
	submit_as(&d, S(0), 1, 4, S(100), 0);
	submit_as(&d, S(1), 2, 4, S(1000), 0);
	ok_eq(guarantee(&d, 2), S(100), "alpha %g: B alone waiting is the head, promised 100",
	      alpha);
	submit_as(&d, S(2), 3, 4, S(60), 0);
	if (c_head_at_2) {
		ok_eq(guarantee(&d, 3), S(100), "alpha %g: C passes B at 2: it has the promise", alpha);
		ok(d.broken[2] == 1 && d.broken_why[2] == BROKEN_PRIORITY && d.broken_t[2] == BF_NEVER,
		   "alpha %g: B is told it lost its promise to a job of higher priority", alpha);
		ok_eq(guarantee(&d, 2), BF_NEVER, "alpha %g: B has no promise now", alpha);
	} else {
		ok_eq(guarantee(&d, 2), S(100), "alpha %g: B keeps its promise at 2", alpha);
		ok_eq(d.broken[2], 0, "alpha %g: B is told nothing", alpha);
	}
	end(&d, S(100), 1);
	if (c_first_at_100) {
		ok(d.start[3] == S(100) && d.start[2] == -1, "alpha %g: C starts first, at 100",
		   alpha);
		ok_eq(guarantee(&d, 2), S(160), "alpha %g: B is the head now, promised C's end",
		      alpha);
	} else {
		ok(d.start[2] == S(100) && d.start[3] == -1, "alpha %g: B starts first, at 100",
		   alpha);
		if (c_head_at_2)
			ok(d.broken[3] == 1 && d.broken_why[3] == BROKEN_PRIORITY &&
			   d.broken_t[3] == S(1100),
			   "alpha %g: C, promised 100, was passed by B: told its promise is now "
			   "1100, B's end", alpha);
	}
	ok_eq(d.checks_failed, 0, "alpha %g: invariants held", alpha);
	sched_free(d.s);
}

/* The wait term: criticality adds at most alpha * 0.04 minutes, so a job
 * that waited longer than that keeps the head from any newcomer. With
 * alpha 10 (up to 24 s), B waited 199 s when D (est 1 s) arrives. */
static void waiting_wins(void)
{
	struct drv d;

	drv_creasy(&d, 4, 10, 0);
	submit_as(&d, S(0), 1, 4, S(1000), 0);
	submit_as(&d, S(1), 2, 4, S(1000), 0);
	submit_as(&d, S(200), 3, 4, S(1), 0);
	ok(guarantee(&d, 2) == S(1000) && d.broken[2] == 0,
	   "waited 199 s, more than alpha 10 can add (24 s): B keeps the head from a 1 s job");
	ok_eq(guarantee(&d, 3), BF_NEVER, "the newcomer has no promise");
	/* A newcomer within reach: E (est 1 s) right after F (est 4 h) arrived. */
	end(&d, S(1000), 1);
	end(&d, S(1010), 2);	/* B ended early; D runs [1010, 1011) */
	submit_as(&d, S(1010), 4, 4, S(4 * 3600), 0);
	submit_as(&d, S(1010) + 1, 5, 4, S(1), 0);
	ok(guarantee(&d, 5) == S(1011) && d.broken[4] == 1 && d.broken_why[4] == BROKEN_PRIORITY,
	   "a 1 s job arriving right after a 4 h one passes it (and it is told)");
	ok_eq(d.checks_failed, 0, "waiting wins: invariants held");
	sched_free(d.s);
}

/* Backfilling goes by priority too: with one node free until the head's
 * shadow, the job of higher priority of two that both fit takes it. */
static void backfill_by_priority(double alpha, uint64_t first)
{
	struct drv d;

	drv_creasy(&d, 4, alpha, 0);
	submit_as(&d, S(0), 1, 3, S(100), 0);	/* one node free */
	submit_as(&d, S(1), 2, 4, S(100), 0);	/* the head: shadow 100 */
	sched_submit_as(d.s, S(2), 3, 2, S(50), 0);	/* too wide to backfill */
	sched_submit_as(d.s, S(2), 4, 1, S(90), 0);	/* each ends by 100 */
	sched_submit_as(d.s, S(2), 5, 1, S(5), 0);
	run(&d, S(2));
	ok(d.start[first] == S(2) && d.start[first == 4 ? 5 : 4] == -1,
	   "alpha %g: job %llu takes the free node (%s)", alpha, (unsigned long long)first,
	   first == 4 ? "the older" : "the more critical");
	ok_eq(d.checks_failed, 0, "alpha %g: backfilling: invariants held", alpha);
	sched_free(d.s);
}

/* A job put first (bctl top) comes before any priority. */
static void put_first(void)
{
	struct drv d;

	drv_creasy(&d, 4, 1000, 0);
	submit_as(&d, S(0), 1, 4, S(100), 0);
	submit_as(&d, S(1), 2, 4, S(10), 0);	/* the most critical: the head */
	submit_as(&d, S(2), 3, 4, S(5000), 0);
	ok_eq(guarantee(&d, 2), S(100), "top: the short job is the head");
	sched_top(d.s, S(3), 3);
	run(&d, S(3));
	ok(guarantee(&d, 3) == S(100) && d.broken[2] == 1 && d.broken_why[2] == BROKEN_TOP,
	   "top: the job put first is the head; the old head is told why");
	end(&d, S(100), 1);
	ok(d.start[3] == S(100) && d.start[2] == -1, "top: it starts first");
	ok_eq(d.checks_failed, 0, "top: invariants held");
	sched_free(d.s);
}

/* After a restart: the job put first is restored first and marked
 * (sched_restore_top), and still comes before the most critical job. */
static void put_first_restored(void)
{
	struct drv d;
	uint32_t nodes[4] = { 0, 1, 2, 3 };

	drv_creasy(&d, 4, 1000, 0);
	ok_eq(sched_restore_running(d.s, S(3), 1, S(0), S(100), S(0), S(100), nodes, 4), SCHED_OK,
	      "top restored: the running job");
	ok_eq(sched_restore_queued(d.s, S(3), 3, S(2), 4, S(5000), BF_NEVER), SCHED_OK,
	      "top restored: the job put first, first");
	ok_eq(sched_restore_queued(d.s, S(3), 2, S(1), 4, S(10), BF_NEVER), SCHED_OK,
	      "top restored: then the short job");
	ok_eq(sched_restore_top(d.s, 3), SCHED_OK, "top restored: marked");
	ok_eq(sched_restore_top(d.s, 9), SCHED_E_NOJOB, "top restored: no such queued job");
	run(&d, S(3));
	ok_eq(guarantee(&d, 3), S(100), "top restored: the job put first is the head");
	end(&d, S(100), 1);
	ok(d.start[3] == S(100) && d.start[2] == -1, "top restored: it starts first");
	ok_eq(d.checks_failed, 0, "top restored: invariants held");
	sched_free(d.s);
}

/* The job at the front of the queue (the oldest) put first: under CREASY
 * that is a change, since priority orders the queue. */
static void put_first_the_front(void)
{
	struct drv d;

	drv_creasy(&d, 4, 1000, 0);
	submit_as(&d, S(0), 1, 4, S(100), 0);
	submit_as(&d, S(1), 2, 4, S(5000), 0);	/* the front of the queue */
	submit_as(&d, S(2), 3, 4, S(10), 0);	/* the most critical: the head */
	ok_eq(guarantee(&d, 3), S(100), "top front: the short job is the head");
	ok_eq(sched_top(d.s, S(3), 2), SCHED_OK, "top front: the oldest job put first");
	run(&d, S(3));
	ok(guarantee(&d, 2) == S(100) && d.broken[3] == 1 && d.broken_why[3] == BROKEN_TOP,
	   "top front: it takes the head; the short job is told why");
	ok_eq(sched_top(d.s, S(4), 2), SCHED_OK, "top front: put first again: nothing changes");
	run(&d, S(4));
	ok(guarantee(&d, 2) == S(100) && d.broken[3] == 1, "top front: nobody else told");
	ok_eq(d.checks_failed, 0, "top front: invariants held");
	sched_free(d.s);
}

/* With a cap on running jobs per user, the first by priority whose user
 * may run one more: user 7's short job waits while 7 is at the cap. */
static void capped(void)
{
	struct drv d;

	drv_creasy(&d, 4, 1000, 1);
	submit_as(&d, S(0), 1, 2, S(100), 7);
	submit_as(&d, S(1), 2, 2, S(10), 7);	/* most critical, but 7 is at the cap */
	submit_as(&d, S(1), 3, 2, S(5000), 8);
	ok(d.start[3] == S(1) && d.start[2] == -1,
	   "cap: the other user's job takes the free nodes");
	end(&d, S(50), 1);
	ok_eq(d.start[2], S(50), "cap: the short job starts once its user may run one");
	ok_eq(d.checks_failed, 0, "cap: invariants held");
	sched_free(d.s);
}

/* alpha changed live, from the next pass on; bad values refused. */
static void alpha_live(void)
{
	struct drv d;

	drv_creasy(&d, 4, 0, 0);
	submit_as(&d, S(0), 1, 4, S(100), 0);
	submit_as(&d, S(1), 2, 4, S(1000), 0);
	submit_as(&d, S(2), 3, 4, S(60), 0);
	ok_eq(guarantee(&d, 2), S(100), "alpha 0: the older job is the head");
	ok_eq(sched_set_alpha(d.s, S(3), -1), SCHED_E_INVAL, "alpha -1 refused");
	ok_eq(sched_set_alpha(d.s, S(3), NAN), SCHED_E_INVAL, "alpha NaN refused");
	ok_eq(sched_set_alpha(d.s, S(3), 2e9), SCHED_E_INVAL, "alpha 2e9 refused");
	ok_eq(sched_set_alpha(d.s, S(3), 100), SCHED_OK, "alpha 100 taken");
	run(&d, S(3));
	ok(guarantee(&d, 3) == S(100) && d.broken_why[2] == BROKEN_PRIORITY,
	   "alpha 100 from the next pass: the short job is the head");
	ok_eq(sched_get_params(d.s)->alpha, 100.0, "the parameters say alpha 100");
	sched_free(d.s);
	ok(sched_policy_parse("creasy", &(enum sched_policy){ 0 }) == 0 &&
	   strcmp(sched_policy_name(SCHED_CREASY), "creasy") == 0, "the policy's name is creasy");
	ok(sched_new(&d.s, &(struct sched_params){ .policy = SCHED_CREASY, .nodes = 4,
	                                           .alpha = -0.5 }) == SCHED_E_INVAL,
	   "a scheduler with alpha -0.5 is refused");
}

/* The priority hook: the narrowest job first (ties in arrival order). */
static double narrowest(const struct sched_job_info *j, bf_time now, void *arg)
{
	int *calls = arg;

	(void)now;
	(*calls)++;
	return j->state == JOB_QUEUED ? -(double)j->nodes : NAN;
}

static void hook(void)
{
	struct drv d;
	int calls = 0;

	drv_init_params(&d, &(struct sched_params){ .policy = SCHED_CREASY, .nodes = 4,
	                                            .priority = narrowest, .priority_arg = &calls });
	submit_as(&d, S(0), 1, 4, S(100), 0);
	submit_as(&d, S(1), 2, 3, S(100), 0);
	submit_as(&d, S(2), 3, 1, S(100), 0);
	submit_as(&d, S(3), 4, 2, S(100), 0);
	submit_as(&d, S(4), 5, 2, S(100), 0);
	ok(guarantee(&d, 3) == S(100) && calls > 0, "hook: the narrowest job is the head");
	end(&d, S(100), 1);
	ok(d.start[3] == S(100) && d.start[4] == S(100) && d.start[5] == -1 && d.start[2] == -1,
	   "hook: at 100 the 1-node job and the first 2-node job start, by priority");
	ok_eq(guarantee(&d, 5), S(200), "hook: the other 2-node job is the head now");
	ok_eq(d.checks_failed, 0, "hook: invariants held");
	sched_free(d.s);
}

static void note(uint64_t id, bf_time t, void *arg)
{
	bf_time *by_id = arg;

	by_id[id] = t;
}

/* Predictions plan the queue in CREASY's order at the time they are made;
 * in slices, with an arrival between them, as at once. */
static void predictions(double alpha, bf_time b_at, bf_time c_at)
{
	struct drv d;
	bf_time pred[3] = { 0 }, sliced[8] = { 0 };
	struct sched_forecast *f;
	int rc;

	drv_creasy(&d, 4, alpha, 0);
	submit_as(&d, S(0), 1, 4, S(100), 0);
	submit_as(&d, S(1), 2, 4, S(1000), 0);
	submit_as(&d, S(2), 3, 4, S(60), 0);
	ok(sched_predict(d.s, S(3), pred, 3) == 2 && pred[0] == b_at && pred[1] == c_at,
	   "alpha %g: predictions in queue order: B at %lld, C at %lld", alpha,
	   (long long)(pred[0] / BF_SEC), (long long)(pred[1] / BF_SEC));
	f = sched_forecast_new(d.s, S(3));
	rc = sched_forecast_step(d.s, f, S(3), 1, note, sliced);
	submit_as(&d, S(3), 4, 1, S(10), 0);	/* fits nowhere before 100 */
	while (rc == 0)
		rc = sched_forecast_step(d.s, f, S(3), 1, note, sliced);
	ok(rc == 1 && sliced[2] == b_at && sliced[3] == c_at && sliced[4] >= S(100),
	   "alpha %g: in slices of one with an arrival between: the same, the newcomer after",
	   alpha);
	sched_forecast_free(f);
	sched_free(d.s);
}

int main(void)
{
	formula(0, false, false);
	formula(0.6, false, false);
	formula(0.8, true, false);
	formula(0.84, true, true);
	waiting_wins();
	backfill_by_priority(0, 4);
	backfill_by_priority(10, 5);
	put_first();
	put_first_restored();
	put_first_the_front();
	hook();
	capped();
	alpha_live();
	predictions(0, S(100), S(1100));
	predictions(1000, S(160), S(100));
	return tap_done();
}
