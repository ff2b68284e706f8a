/* Nodes an operator takes out of service and brings back (bctl drain,
 * resume, down, up), the node listing (bctl nodes) and the daemon's status
 * (bctl status). See bctl(8).
 *
 * A drained node finishes the job it runs and takes no new one; a node
 * marked down is lost: its job is killed and ends as failed. Either way the
 * core takes the node out of the plan (sched_node_drain, sched_node_down)
 * and says which guarantees moved. The state is stored (node_admin) in the
 * same transaction as the core's consequences, and answered and logged
 * once durable; a restart takes the nodes out again before it restores
 * the queue, so every stored guarantee is checked against them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "duration.h"
#include "nodelist.h"
#include "proto.h"
#include "sched.h"
#include "sys/log.h"
#include "sys/store.h"
#include "conn.h"
#include "daemon.h"
#include "drive.h"
#include "forecast.h"
#include "jobs.h"
#include "nodectl.h"
#include "nodes.h"
#include "peer.h"

static const char *const op_words[] = {
	[PN_DRAIN] = "drained", [PN_RESUME] = "resumed", [PN_DOWN] = "marked down",
	[PN_UP] = "marked up",
};

static const char *const state_words[] = { [NA_UP] = "up", [NA_DRAIN] = "drained",
	                                   [NA_DOWN] = "down" };

static void admin_clear(struct node_admin *a)
{
	free(a->reason);
	free(a->by);
	*a = (struct node_admin){ .state = NA_UP, .since = BF_NEVER };
}

void nodectl_free(struct daemon *d)
{
	for (uint32_t k = 0; d->nadmin && k < d->nnodes; k++)
		admin_clear(&d->nadmin[k]);
	free(d->nadmin);
	d->nadmin = NULL;
}

/* Take node k out (NA_DRAIN, NA_DOWN) or bring it back (NA_UP) in the core. */
static int core_apply(struct daemon *d, uint32_t k, uint8_t state, bf_time now)
{
	switch (state) {
	case NA_DRAIN: return sched_node_drain(d->sched, now, k);
	case NA_DOWN: return sched_node_down(d->sched, now, k);
	default: return sched_node_up(d->sched, now, k);
	}
}

/* ---- restart ---- */

struct restoring {
	struct daemon *d;
	bf_time now;
};

static int restore_one(const struct store_node *n, void *arg)
{
	struct restoring *r = arg;
	struct daemon *d = r->d;
	int64_t k = nodes_index(d, n->name);
	struct node_admin *a;
	int rc;

	if (k < 0 || (n->state != NA_DRAIN && n->state != NA_DOWN)) {
		log_warnx("node %s: stored as %d, but the partition has no such node or state; "
		          "ignored", n->name, n->state);
		return 0;
	}
	a = &d->nadmin[k];
	if ((rc = core_apply(d, (uint32_t)k, (uint8_t)n->state, r->now)) < 0) {
		log_warnx("node %s: taking it out of service again: %s", n->name, sched_strerror(rc));
		return 0;
	}
	admin_clear(a);
	a->state = (uint8_t)n->state;
	a->since = n->since;
	a->reason = n->reason ? strdup(n->reason) : NULL;
	a->by = n->by ? strdup(n->by) : NULL;
	log_info("node %s: %s since the last run (%s)", n->name, state_words[a->state],
	         n->reason ? n->reason : "no reason given");
	return 0;
}

void nodectl_restore(struct daemon *d, bf_time now)
{
	struct restoring r = { d, now };

	for (uint32_t k = 0; k < d->nnodes; k++)
		d->nadmin[k] = (struct node_admin){ .state = NA_UP, .since = BF_NEVER };
	if (store_load_nodes(d->store, restore_one, &r) < 0)
		log_warnx("loading the nodes' states: %s; every node is taken as up",
		          store_error(d->store));
}

/* bctl is the operator's: root and the admin group; others are told. */
static bool refused(struct conn *c)
{
	const struct serve_limits *L = &conn_daemon(c)->o.lim;

	if (peer_is_admin(c))
		return false;
	if (L->has_admin)
		conn_error(c, PE_DENIED, "bctl is for root and the members of the group %s "
		           "(admin_group)", L->admin_group);
	else
		conn_error(c, PE_DENIED, "bctl is for root (no admin_group is configured)");
	return true;
}

/* ---- the node listing ---- */

static struct proto_node node_of(struct daemon *d, uint32_t k)
{
	const struct node_admin *a = &d->nadmin[k];
	struct proto_node n = { .name = d->node_names[k], .since = BF_NEVER };
	bool busy = sched_node_job(d->sched, k, &n.job);

	switch (a->state) {
	case NA_DRAIN: n.state = PNS_DRAIN; break;
	case NA_DOWN: n.state = PNS_DOWN; break;
	default: n.state = busy ? PNS_BUSY : PNS_IDLE; break;
	}
	if (a->state != NA_UP) {
		n.reason = a->reason;
		n.by = a->by;
		n.since = a->since;
	} else if (busy) {
		/* A busy node is busy since its job started: what an operator
		 * asks of it ("how long has it been running?"). */
		const struct djob *j = jobs_get(d, n.job);

		if (j && j->rec.start != BF_NEVER && j->rec.start != 0)
			n.since = j->rec.start;
	}
	return n;
}

/* Nodes k where pick[k] (all of them if pick is NULL), changed[k] marked. */
static void reply_nodes(struct conn *c, const uint32_t *pick, uint32_t npick,
                        const char *changed)
{
	struct daemon *d = conn_daemon(c);
	uint32_t n = pick ? npick : d->nnodes;
	struct proto_node *v = calloc(n ? n : 1, sizeof *v);
	struct proto_buf b;

	if (!v) {
		conn_error(c, PE_INTERNAL, "out of memory");
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		v[i] = node_of(d, pick ? pick[i] : i);
		v[i].changed = changed && changed[i];
	}
	proto_buf_init(&b);
	if (proto_enc_nodestates(&b, &(struct proto_nodestates){ v, n }) < 0)
		conn_error(c, PE_INTERNAL, "the node list does not fit one reply");
	else
		conn_reply(c, &b);
	proto_buf_free(&b);
	free(v);
}

static void answer_list(struct conn *c)
{
	reply_nodes(c, NULL, 0, NULL);
}

void nodectl_list(struct conn *c, const uint8_t *frame, size_t len)
{
	(void)frame;
	if (len != PROTO_HEADER)
		conn_error(c, PE_MALFORMED, "a node list request has no fields");
	else if (!refused(c))
		conn_wait_durable(c, answer_list);
}

/* ---- drain, resume, down, up ---- */

struct nodectl_result {
	enum proto_nodeop op;
	uint32_t n;
	uint32_t *idx;		/* the nodes asked for, each once, in the order given */
	char *changed;		/* per node: this request changed it */
	uint64_t *killed;	/* per node: the job a down killed, or 0 */
	char by[300];
	char *reason;
};

static void result_free(void *p)
{
	struct nodectl_result *r = p;

	free(r->idx);
	free(r->changed);
	free(r->killed);
	free(r->reason);
	free(r);
}

/* Once durable: one log line per node changed, then the reply. */
static void answer_ctl(struct conn *c)
{
	struct nodectl_result *r = conn_ctx(c);
	struct daemon *d = conn_daemon(c);

	for (uint32_t i = 0; i < r->n; i++) {
		const char *name = d->node_names[r->idx[i]];
		char job[64] = "";

		if (!r->changed[i])
			continue;
		if (r->killed[i])
			snprintf(job, sizeof job, "; its job %" PRIu64 " is killed and ends as failed",
			         r->killed[i]);
		if (r->op == PN_DOWN)
			log_warnx("node %s: lost: marked down by %s: %s%s", name, r->by, r->reason, job);
		else if (r->op == PN_DRAIN)
			log_info("node %s: drained by %s: %s%s", name, r->by, r->reason,
			         sched_node_job(d->sched, r->idx[i], &(uint64_t){ 0 }) ?
			         "; its job finishes first" : "");
		else
			log_info("node %s: back in service (%s by %s)", name, op_words[r->op], r->by);
	}
	reply_nodes(c, r->idx, r->n, r->changed);
}

/* A reason goes to the log and to bctl nodes: one line of printable text. */
static const char *bad_reason(const char *s)
{
	if (!s || !*s)
		return "give a reason (--reason TEXT): it is shown in bctl nodes and the log";
	if (strlen(s) > 256)
		return "the reason is over 256 bytes";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return "the reason has a control character (one line of text, please)";
	return NULL;
}

/* Change node k as op says, in the core and the store. Returns 1 if it
 * changed, 0 if it already was so, -1 if the core failed (logged). */
static int apply(struct daemon *d, struct nodectl_result *r, uint32_t i, bf_time now)
{
	uint32_t k = r->idx[i];
	struct node_admin *a = &d->nadmin[k];
	uint8_t want = r->op == PN_DRAIN ? NA_DRAIN : r->op == PN_DOWN ? NA_DOWN : NA_UP;
	uint64_t job = 0;
	bool busy = sched_node_job(d->sched, k, &job);
	char *reason = NULL, *by = NULL;
	int rc;

	/* Draining a node that is down leaves it down: it is out already. */
	if (a->state == want || (want == NA_DRAIN && a->state == NA_DOWN))
		return 0;
	if (want != NA_UP && (!(reason = strdup(r->reason)) || !(by = strdup(r->by)))) {
		free(reason);
		return -1;
	}
	if ((rc = core_apply(d, k, want, now)) < 0) {
		log_warnx("node %s: %s: %s", d->node_names[k], op_words[r->op], sched_strerror(rc));
		free(reason);
		free(by);
		return -1;
	}
	admin_clear(a);
	a->state = want;
	if (want != NA_UP) {
		a->since = now;
		a->reason = reason;
		a->by = by;
	}
	if (store_begin(d->store) < 0 ||
	    (want == NA_UP ? store_del_node(d->store, d->node_names[k]) :
	     store_put_node(d->store, &(struct store_node){ d->node_names[k], want, now, reason,
	                                                    by })) < 0)
		drive_store_failed(d);
	if (want == NA_DOWN && busy) {
		struct djob *j = jobs_get(d, job);
		char why[600];

		r->killed[i] = job;
		snprintf(why, sizeof why, "node %s was marked down by %s: %s", d->node_names[k],
		         r->by, r->reason);
		if (j && !j->rec.reason && jobs_set_str(j, JS_REASON, why, strlen(why)) == 0)
			drive_store(d, j, why);
	}
	forecast_stale(d);
	return 1;
}

void nodectl_lost(struct daemon *d, const char *node, const char *why, bool restoring)
{
	int64_t k = nodes_index(d, node);
	bf_time now = daemon_now(d);
	uint32_t idx;
	char changed = 0, reason[300];
	uint64_t killed = 0;
	struct nodectl_result r = { .op = PN_DOWN, .n = 1, .idx = &idx, .changed = &changed,
	                            .killed = &killed, .reason = reason };

	if (k < 0) {
		log_warnx("a job's supervisor lost node %s, which is not in the partition: ignored",
		          node);
		return;
	}
	idx = (uint32_t)k;
	if (d->nadmin[k].state == NA_DOWN)
		return;
	snprintf(reason, sizeof reason, "lost: %s", why);
	for (char *c = reason; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	snprintf(r.by, sizeof r.by, "backfilld");
	if (restoring) {
		if (store_begin(d->store) < 0 ||
		    store_put_node(d->store, &(struct store_node){ node, NA_DOWN, now, reason,
		                                                   r.by }) < 0)
			drive_store_failed(d);
	} else if (apply(d, &r, 0, now) != 1) {
		return;
	}
	log_warnx("node %s: %s; marked down by backfilld (bctl up brings it back)", node, reason);
}

/* The nodes of list as indices, each once; NULL with err if one is not
 * in the partition. */
static uint32_t *indices(struct daemon *d, const char *list, uint32_t *n, char *err,
                         size_t errlen)
{
	struct nodelist nl;
	uint32_t *v, count = 0;
	char *seen;

	if (nodelist_parse(list, &nl, err, errlen) < 0)
		return NULL;
	v = calloc(nl.count ? nl.count : 1, sizeof *v);
	seen = calloc(d->nnodes ? d->nnodes : 1, 1);
	for (uint32_t i = 0; v && seen && i < nl.count; i++) {
		int64_t k = nodes_index(d, nl.names[i]);

		if (k < 0) {
			snprintf(err, errlen, "no node %s in the partition %s", nl.names[i],
			         d->partition);
			free(v);
			v = NULL;
		} else if (!seen[k]) {
			seen[k] = 1;
			v[count++] = (uint32_t)k;
		}
	}
	if (!seen && v) {
		free(v);
		v = NULL;
		snprintf(err, errlen, "out of memory");
	}
	free(seen);
	nodelist_free(&nl);
	*n = count;
	return v;
}

void nodectl_request(struct conn *c, const uint8_t *frame, size_t len)
{
	struct daemon *d = conn_daemon(c);
	struct proto_nodectl m;
	struct proto_arena a = { 0 };
	struct nodectl_result *r = NULL;
	bool changed = false;
	const char *bad;
	char err[400];

	if (proto_dec_nodectl(frame, len, &m, &a, err, sizeof err) < 0) {
		conn_error(c, PE_MALFORMED, "%s", err);
		goto out;
	}
	if (refused(c))
		goto out;
	if ((m.op == PN_DRAIN || m.op == PN_DOWN) && (bad = bad_reason(m.reason))) {
		conn_error(c, PE_INVALID, "%s", bad);
		goto out;
	}
	if (!(r = calloc(1, sizeof *r)) ||
	    (m.reason && !(r->reason = strdup(m.reason)))) {
		if (r)
			result_free(r);
		conn_error(c, PE_INTERNAL, "out of memory");
		goto out;
	}
	r->op = m.op;
	if (!(r->idx = indices(d, m.nodes, &r->n, err, sizeof err))) {
		result_free(r);
		conn_error(c, strstr(err, "memory") ? PE_INTERNAL : PE_INVALID, "%s", err);
		goto out;
	}
	if (!(r->changed = calloc(r->n ? r->n : 1, 1)) ||
	    !(r->killed = calloc(r->n ? r->n : 1, sizeof *r->killed)) ||
	    conn_set_ctx(c, r, result_free) < 0) {
		result_free(r);
		conn_error(c, PE_INTERNAL, "out of memory");
		goto out;
	}
	peer_who(c, r->by, sizeof r->by);
	for (uint32_t i = 0; i < r->n; i++) {
		int rc = apply(d, r, i, daemon_now(d));

		if (rc < 0) {
			/* What changed so far stays, and is answered; the rest
			 * is not. */
			conn_error(c, PE_INTERNAL, "node %s: out of memory; %u of the nodes before "
			           "it were changed", d->node_names[r->idx[i]], i);
			if (changed)
				drive_want_commit(d);
			goto out;
		}
		r->changed[i] = (char)rc;
		changed |= rc > 0;
	}
	if (changed) {
		conn_wait_commit(c, answer_ctl, 0);
		drive_want_commit(d);
	} else {
		conn_wait_durable(c, answer_ctl);
	}
out:
	proto_arena_free(&a);
}

/* ---- status ---- */

static const char *held_text(uint32_t held, char *buf, size_t len)
{
	if (!held)
		return "";
	snprintf(buf, len, ", %u held", held);
	return buf;
}

static void answer_status(struct conn *c)
{
	struct daemon *d = conn_daemon(c);
	const struct serve_limits *L = &d->o.lim;
	uint32_t count[4] = { 0 }, held = 0;
	char v[8][300], lim[5][24], held_buf[40], per_running[24];
	struct proto_kv items[8];
	struct proto_buf b;
	uint32_t n = 0;

	for (uint32_t k = 0; k < d->nnodes; k++)
		count[node_of(d, k).state]++;
#define ITEM(key, ...) (snprintf(v[n], sizeof v[n], __VA_ARGS__), \
	                items[n] = (struct proto_kv){ key, v[n] }, n++)
	ITEM("partition", "%s: %s", d->o.partition_name ? d->o.partition_name : "batch",
	     d->partition);
	if (sched_get_params(d->sched)->policy == SCHED_CREASY)
		ITEM("policy", "creasy, alpha %g", sched_get_params(d->sched)->alpha);
	else
		ITEM("policy", "%s", sched_policy_name(sched_get_params(d->sched)->policy));
	ITEM("nodes", "%u: %u idle, %u busy, %u drained, %u down", d->nnodes, count[PNS_IDLE],
	     count[PNS_BUSY], count[PNS_DRAIN], count[PNS_DOWN]);
	for (uint32_t k = 0; k < d->njobs; k++)
		held += d->jobs[k]->rec.held && d->jobs[k]->rec.state == ST_QUEUED;
	ITEM("jobs", "%u running, %u queued%s", sched_running_len(d->sched),
	     sched_queue_len(d->sched), held_text(held, held_buf, sizeof held_buf));
	duration_format(d->o.kill_grace, lim[0], sizeof lim[0]);
	ITEM("kill grace", "%s", lim[0]);
	if (L->default_limit)
		duration_format(L->default_limit, lim[1], sizeof lim[1]);
	if (L->max_limit)
		duration_format(L->max_limit, lim[2], sizeof lim[2]);
	snprintf(lim[3], sizeof lim[3], "%u", L->max_nodes);
	snprintf(lim[4], sizeof lim[4], "%u", L->max_queued_per_user);
	snprintf(per_running, sizeof per_running, "%u", L->max_running_per_user);
	/* A limit that is not set says so in words: "0: none" read as a
	 * limit of 0. No default limit is "none" (bsub must give -t), not
	 * unlimited. */
	ITEM("limits", "default %s, max %s, max nodes %s, per user %s queued, %s running",
	     L->default_limit ? lim[1] : "none", L->max_limit ? lim[2] : "unlimited",
	     L->max_nodes ? lim[3] : "unlimited", L->max_queued_per_user ? lim[4] : "unlimited",
	     L->max_running_per_user ? per_running : "unlimited");
	ITEM("configuration", "%s", d->o.config ? d->o.config : "none (command line only)");
	ITEM("database", "%s", d->o.db);
#undef ITEM
	proto_buf_init(&b);
	proto_enc_statusinfo(&b, &(struct proto_statusinfo){ items, n });
	conn_reply(c, &b);
	proto_buf_free(&b);
}

void nodectl_status(struct conn *c, const uint8_t *frame, size_t len)
{
	(void)frame;
	if (len != PROTO_HEADER)
		conn_error(c, PE_MALFORMED, "a status request has no fields");
	else if (!refused(c))
		conn_wait_durable(c, answer_status);
}
