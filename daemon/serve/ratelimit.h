/* Per-user budgets for what an ordinary user can ask for again and again
 * at no cost of their own: changes to their jobs (bstop, bresume, a
 * shorter limit, bkill -s), each a row in the store and a line in the
 * log, and the log lines their requests cause. Root and the admins have
 * no budget. See "Limits" in backfilld(8) and backfilld.yaml(5).
 *
 * Changes: a token bucket per uid, kept as the time it is full again
 * (the "generic cell rate algorithm"): max_changes_per_user at once, then
 * one more every change_interval_per_user. A request is let in while at
 * least one change is left and is then charged every job it changed, so
 * a request for many jobs at once is not cut in half but the user waits
 * longer before the next: over any stretch of time T a user gets at most
 * burst + T / interval changes, plus one request's worth.
 *
 * Log lines: at most max_log_lines_per_user a minute about one uid's
 * requests (log.h's struct log_rate, one per uid); the rest are counted
 * and one line a minute says how many were left out.
 *
 * The table is bounded: an entry lives while its bucket refills or its
 * minute of lines is open, and is dropped once idle; at most
 * USERRATE_MAX uids are tracked at once (a uid is a real account acting
 * now: only root can take on many), and one more is refused, not grown
 * for. The pure part (struct user_rates) takes the time from its caller
 * and is unit-tested; the daemon's part below it keeps one table and a
 * timer for the summaries. */
#ifndef BF_RATELIMIT_H
#define BF_RATELIMIT_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "bf_time.h"
#include "idmap.h"
#include "sys/log.h"

#define USERRATE_MAX    4096		/* uids tracked at once */
#define USERRATE_WINDOW (60 * BF_SEC)	/* of the log-line budget */

/* One uid's budgets. */
struct user_rate {
	uid_t uid;
	bf_time full_at;	/* when its bucket of changes is full again */
	bool refusing;		/* its last check was a refusal */
	bool told;		/* and that run of refusals was logged */
	struct log_rate lines;	/* its budget of log lines; .what is `what` */
	char what[64];
};

struct user_rates {
	struct idmap map;	/* uid -> index in v */
	struct user_rate *v;	/* n used of cap, allocated at init */
	uint32_t n, cap;
};

/* The budgets' sizes: the live settings (serve_limits). */
struct user_budget {
	uint32_t burst;		/* changes at once */
	bf_time interval;	/* one more change each */
	uint32_t lines;		/* log lines a minute */
};

/* 0, or -1 (no memory). cap: uids at once (USERRATE_MAX in the daemon). */
int  userrate_init(struct user_rates *t, uint32_t cap);
/* Log the summaries still due, then free. */
void userrate_free(struct user_rates *t, bf_time now);
/* May uid change a job now? 0: yes; 1: no, over its budget, and *retry
 * says how long until it may; -1: no room in the table for another uid
 * (every tracked uid is busy): refuse and let it try again later. */
int  userrate_check(struct user_rates *t, uid_t uid, bf_time now, const struct user_budget *b,
                    bf_time *retry);
/* Charge uid n changes made now (after userrate_check let it in). */
void userrate_charge(struct user_rates *t, uid_t uid, bf_time now, const struct user_budget *b,
                     uint32_t n);
/* Was the uid refused by its last check (and is that news: true once
 * per run of refusals, for one log line)? */
bool userrate_newly_refused(struct user_rates *t, uid_t uid);
/* May a line about uid's request be logged now? false: it is counted. A
 * uid the table has no room for gets no lines. */
bool userrate_line(struct user_rates *t, uid_t uid, bf_time now, const struct user_budget *b);
/* When the next summary is due (BF_NEVER: none). */
bf_time userrate_due(const struct user_rates *t);
/* Log the summaries due and drop the entries that are idle. */
void userrate_sweep(struct user_rates *t, bf_time now);

/* ---- the daemon's table (daemon.h) ---- */
struct conn;
struct daemon;
/* `admin`: the caller's peer_is_admin(c), asked once per request
 * (it may look the user's groups up). */
/* May the connection's user ask for a change now? Root and the admins
 * always may. false: the request was answered already (PE_BUSY, saying
 * when to try again); the caller must not touch c again. */
bool ratelimit_may_change(struct conn *c, bool admin);
/* Charge n changes made for the connection's user (none for admins). */
void ratelimit_charge(struct conn *c, bool admin, uint32_t n);
/* May a line about this connection's request be logged now? Always for
 * root and the admins. */
bool ratelimit_log_ok(struct conn *c, bool admin);
/* At the stop: the summaries still due, then the table and its timer. */
void ratelimit_free(struct daemon *d);

#endif
