/* Per-user budgets of changes and log lines: see ratelimit.h. */
#include <stdio.h>
#include <stdlib.h>
#include <event2/event.h>
#include "idmap.h"
#include "proto.h"
#include "sys/clock.h"
#include "sys/conf.h"
#include "sys/log.h"
#include "conn.h"
#include "daemon.h"
#include "drive.h"
#include "peer.h"
#include "ratelimit.h"

/* ---- the table ---- */

int userrate_init(struct user_rates *t, uint32_t cap)
{
	*t = (struct user_rates){ .cap = cap };
	/* All of it at once, so that an entry never moves under its
	 * log_rate's pointer to its own text; calloc's pages cost nothing
	 * until used. */
	if (idmap_init(&t->map, cap) < 0)
		return -1;
	if (!(t->v = calloc(cap, sizeof *t->v))) {
		idmap_destroy(&t->map);
		return -1;
	}
	return 0;
}

void userrate_free(struct user_rates *t, bf_time now)
{
	for (uint32_t k = 0; k < t->n; k++)
		log_rate_end(&t->v[k].lines, now);	/* counted, not lost */
	idmap_destroy(&t->map);
	free(t->v);
	*t = (struct user_rates){ 0 };
}

/* Nothing to remember: its bucket is full, nothing is left to summarise,
 * and its minute of lines is over (dropping it sooner would give it a
 * new minute's lines). */
static bool idle(const struct user_rate *e, bf_time now)
{
	return e->full_at <= now && !e->lines.suppressed &&
	       (!e->lines.started || now - e->lines.start >= e->lines.window);
}

static void drop(struct user_rates *t, uint32_t k)
{
	idmap_del(&t->map, t->v[k].uid);
	if (k != --t->n) {
		t->v[k] = t->v[t->n];
		t->v[k].lines.what = t->v[k].what;
		idmap_del(&t->map, t->v[k].uid);
		idmap_put(&t->map, t->v[k].uid, k);	/* cannot fail: it was there */
	}
}

void userrate_sweep(struct user_rates *t, bf_time now)
{
	for (uint32_t k = 0; k < t->n;) {
		log_rate_flush(&t->v[k].lines, now);
		if (idle(&t->v[k], now))
			drop(t, k);	/* the last one moved to k: look at k again */
		else
			k++;
	}
}

bf_time userrate_due(const struct user_rates *t)
{
	bf_time due = BF_NEVER;

	for (uint32_t k = 0; k < t->n; k++) {
		bf_time d = log_rate_due(&t->v[k].lines);

		if (d < due)
			due = d;
	}
	return due;
}

/* uid's entry; a new one if create (NULL: no room even after dropping
 * the idle ones, or no memory). */
static struct user_rate *entry(struct user_rates *t, uid_t uid, bf_time now,
                               const struct user_budget *b, bool create)
{
	uint32_t k = idmap_get(&t->map, uid);
	struct user_rate *e;

	if (k != IDMAP_NONE) {
		t->v[k].lines.burst = b->lines;	/* a reload may have changed it */
		return &t->v[k];
	}
	if (!create)
		return NULL;
	if (t->n == t->cap)
		userrate_sweep(t, now);
	if (t->n == t->cap || idmap_put(&t->map, uid, t->n) < 0)
		return NULL;
	e = &t->v[t->n++];
	*e = (struct user_rate){ .uid = uid, .full_at = now };
	snprintf(e->what, sizeof e->what, "lines about the requests of uid %u", (unsigned)uid);
	e->lines = LOG_RATE_INIT(e->what, b->lines, USERRATE_WINDOW);
	return e;
}

int userrate_check(struct user_rates *t, uid_t uid, bf_time now, const struct user_budget *b,
                   bf_time *retry)
{
	struct user_rate *e = entry(t, uid, now, b, true);
	/* How far ahead full_at may be with one change still left. */
	bf_time slack = (bf_time)(b->burst ? b->burst - 1 : 0) * b->interval;

	if (!e)
		return -1;
	if (e->full_at - now <= slack) {
		e->refusing = e->told = false;
		return 0;
	}
	*retry = e->full_at - now - slack;
	e->refusing = true;
	return 1;
}

bool userrate_newly_refused(struct user_rates *t, uid_t uid)
{
	uint32_t k = idmap_get(&t->map, uid);

	if (k == IDMAP_NONE || !t->v[k].refusing || t->v[k].told)
		return false;
	t->v[k].told = true;
	return true;
}

void userrate_charge(struct user_rates *t, uid_t uid, bf_time now, const struct user_budget *b,
                     uint32_t n)
{
	struct user_rate *e = entry(t, uid, now, b, false);

	if (!e || !n)
		return;
	if (e->full_at < now)
		e->full_at = now;
	e->full_at += (bf_time)n * b->interval;
}

bool userrate_line(struct user_rates *t, uid_t uid, bf_time now, const struct user_budget *b)
{
	struct user_rate *e = entry(t, uid, now, b, true);

	return e && log_rate_allow(&e->lines, now);
}

/* ---- the daemon's table ---- */

/* struct daemon's `ratelimit`: made at the first request that needs it. */
struct ratelimit {
	struct user_rates t;
	struct event *ev;	/* logs the summaries when they are due */
	struct log_rate full;	/* refusals for want of room in the table */
};

/* The live settings; a daemon set up without them (a test's) gets the
 * defaults, never no budget. */
static void budget(const struct daemon *d, struct user_budget *b)
{
	const struct serve_limits *L = &d->o.lim;

	*b = (struct user_budget){
		L->max_changes_per_user ? L->max_changes_per_user : CONF_DEFAULT_CHANGES,
		L->change_interval_per_user > 0 ? L->change_interval_per_user :
		                                  CONF_DEFAULT_CHANGE_INTERVAL,
		L->max_log_lines_per_user ? L->max_log_lines_per_user : CONF_DEFAULT_LOG_LINES,
	};
}

static void sweep_cb(evutil_socket_t fd, short what, void *arg);

static struct ratelimit *get(struct daemon *d)
{
	struct ratelimit *R = d->ratelimit;

	if (R)
		return R;
	if (!(R = calloc(1, sizeof *R)))
		return NULL;
	if (userrate_init(&R->t, USERRATE_MAX) < 0) {
		free(R);
		return NULL;
	}
	if (!(R->ev = evtimer_new(d->base, sweep_cb, d))) {
		userrate_free(&R->t, clock_monotonic());
		free(R);
		return NULL;
	}
	R->full = LOG_RATE_INIT("refusals for a full table of users' budgets", 5, USERRATE_WINDOW);
	return d->ratelimit = R;
}

/* Have the summaries logged when they are due (conn.c does the same for
 * its refusals). */
static void arm(struct daemon *d)
{
	struct ratelimit *R = d->ratelimit;
	bf_time due = userrate_due(&R->t);

	if (log_rate_due(&R->full) < due)
		due = log_rate_due(&R->full);
	drive_timer_at(R->ev, due, "lines");
}

static void sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	bf_time now = clock_monotonic();

	(void)fd;
	(void)what;
	userrate_sweep(&d->ratelimit->t, now);
	log_rate_flush(&d->ratelimit->full, now);
	arm(d);
}

/* A time for a person: "3 s", "0.25 s", rounded up to the millisecond. */
static const char *seconds(bf_time t, char *buf, size_t len)
{
	long long ms = (long long)((t + BF_SEC / 1000 - 1) / (BF_SEC / 1000));

	if (ms % 1000 == 0)
		snprintf(buf, len, "%lld s", ms / 1000);
	else
		snprintf(buf, len, "%lld.%03lld s", ms / 1000, ms % 1000);
	return buf;
}

bool ratelimit_may_change(struct conn *c, bool admin)
{
	struct daemon *d = conn_daemon(c);
	struct ratelimit *R;
	struct user_budget b;
	bf_time now = clock_monotonic(), retry = 0;
	char each[32], wait[32], who[300];
	int rc;

	if (admin)
		return true;
	if (!(R = get(d))) {
		conn_error(c, PE_BUSY, "busy: the daemon is out of memory; try again");
		return false;
	}
	budget(d, &b);
	if ((rc = userrate_check(&R->t, conn_uid(c), now, &b, &retry)) == 0)
		return true;
	if (rc < 0) {
		if (log_rate_allow(&R->full, now))
			log_warnx("refused a change asked by uid %u: %u users are changing jobs at "
			          "once, the most the daemon keeps budgets for", (unsigned)conn_uid(c),
			          USERRATE_MAX);
		arm(d);
		conn_error(c, PE_BUSY, "busy: too many users are changing jobs at once; try again "
		           "in a minute");
		return false;
	}
	seconds(b.interval, each, sizeof each);
	seconds(retry, wait, sizeof wait);
	if (userrate_newly_refused(&R->t, conn_uid(c)) && ratelimit_log_ok(c, false)) {
		peer_who(c, who, sizeof who);
		log_info("%s is over the budget of %u changes at once, then one every %s: its "
		         "changes are refused for %s", who, b.burst, each, wait);
	}
	conn_error(c, PE_BUSY, "busy: you changed jobs too often (at most %u changes at once, "
	           "then one every %s: max_changes_per_user and change_interval_per_user in "
	           "backfilld.yaml); try again in %s", b.burst, each, wait);
	return false;
}

void ratelimit_charge(struct conn *c, bool admin, uint32_t n)
{
	struct daemon *d = conn_daemon(c);
	struct user_budget b;

	if (!n || !d->ratelimit || admin)
		return;
	budget(d, &b);
	userrate_charge(&d->ratelimit->t, conn_uid(c), clock_monotonic(), &b, n);
}

bool ratelimit_log_ok(struct conn *c, bool admin)
{
	struct daemon *d = conn_daemon(c);
	struct ratelimit *R;
	struct user_budget b;

	if (admin)
		return true;
	if (!(R = get(d)))
		return false;
	budget(d, &b);
	if (userrate_line(&R->t, conn_uid(c), clock_monotonic(), &b))
		return true;
	arm(d);
	return false;
}

void ratelimit_free(struct daemon *d)
{
	struct ratelimit *R = d->ratelimit;
	bf_time now = clock_monotonic();

	if (!R)
		return;
	log_rate_end(&R->full, now);
	userrate_free(&R->t, now);
	event_free(R->ev);
	free(R);
	d->ratelimit = NULL;
}
