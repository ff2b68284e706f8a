/* SIGHUP: read the configuration file again and apply what can change
 * while jobs run. An invalid file changes nothing (every error is logged);
 * a command-line flag still wins over the file, as at the start.
 *
 * Live: the limits, the admin group and the log level at once; the kill
 * grace for jobs submitted from now on (a planned hold never grows under a
 * job); added nodes at once; a new policy at the next pass, where every
 * guarantee it drops is announced as broken (drive.c). The rest (socket,
 * database, spool, socket mode, partition name, launch) is read at the
 * start only: a change is reported and waits for a restart. */
#include <stdio.h>
#include <string.h>
#include "duration.h"
#include "sched.h"
#include "sys/conf.h"
#include "sys/log.h"
#include "sys/settings.h"
#include "daemon.h"
#include "drive.h"
#include "forecast.h"
#include "nodes.h"
#include "reload.h"

/* A start-only string setting that the file now gives another value. */
static void restart_only(const char *key, const char *running, const char *in_file)
{
	if (in_file && (!running || strcmp(running, in_file) != 0))
		log_warnx("reload: %s changed to %s: it takes effect at the next restart", key,
		          in_file);
}

/* The cluster's keys (execution: ssh) are read at the start only: each
 * changed one is said. The running values are the file's or their
 * defaults (main.c), so only a key the file gives can differ. */
static void apply_cluster_keys(struct daemon *d, const struct conf *c)
{
	const struct runner_remote *r = d->o.remote;
	bool ssh = c->execution == CONF_EXEC_SSH;

	if (ssh != (r != NULL))
		log_warnx("reload: execution changed to %s: it takes effect at the next restart "
		          "(running jobs keep where they run)", ssh ? "ssh" : "local");
	if (!r || !ssh)
		return;
	restart_only("ssh_destination", r->destination, c->ssh_destination);
	restart_only("ssh_key", r->key, c->ssh_key);
	restart_only("ssh_config", r->config ? r->config : "none",
	             c->set[CONF_K_SSH_CONFIG] ? (c->ssh_config ? c->ssh_config : "none") : NULL);
	restart_only("ssh_known_hosts", r->known_hosts, c->ssh_known_hosts);
	restart_only("ssh_control_dir", r->control_dir, c->ssh_control_dir);
	restart_only("node_command", r->node_command, c->node_command);
	if (c->set[CONF_K_NODE_TIMEOUT] && c->node_timeout / 1000 != r->timeout_ms)
		log_warnx("reload: node_timeout changed: it takes effect at the next restart");
}

static void apply_start_only(struct daemon *d, const struct conf *c)
{
	unsigned f = d->o.flags;

	if (!(f & SF_SOCKET))
		restart_only("socket", d->o.socket, c->socket);
	if (!(f & SF_DB))
		restart_only("database", d->o.db, c->database);
	if (!(f & SF_SPOOL))
		restart_only("spool", d->o.spool, c->spool);
	if (!(f & SF_LAUNCH))
		restart_only("launch", d->o.launch, c->launch);
	restart_only("partition", d->o.partition_name, c->partition);
	apply_cluster_keys(d, c);
	if (c->set[CONF_K_SOCKET_MODE] && c->socket_mode != d->o.socket_mode)
		log_warnx("reload: socket_mode changed to %04o: it takes effect at the next restart",
		          (unsigned)c->socket_mode);
}

static void apply_grace(struct daemon *d, bf_time grace)
{
	char a[64], b[64];

	if (grace == d->o.kill_grace || sched_set_kill_grace(d->sched, grace) < 0)
		return;
	duration_format(d->o.kill_grace, a, sizeof a);
	duration_format(grace, b, sizeof b);
	log_info("reload: kill_grace %s -> %s, for jobs submitted from now on", a, b);
	d->o.kill_grace = grace;
	d->grace_changed = true;	/* stored at the next pass (the core has it already) */
	drive_want_commit(d);
}

/* A lower cap re-plans what it must and announces every guarantee that
 * moves later (BROKEN_USER_CAP); a higher one only compresses. Running
 * jobs are never stopped by it. */
static uint32_t apply_user_cap(struct daemon *d, uint32_t cap)
{
	int rc;

	if (cap == d->o.lim.max_running_per_user)
		return cap;
	if ((rc = sched_set_user_cap(d->sched, daemon_now(d), cap)) < 0) {
		log_warnx("reload: max_running_per_user: %s; it stays %u", sched_strerror(rc),
		          d->o.lim.max_running_per_user);
		return d->o.lim.max_running_per_user;
	}
	log_info("reload: max_running_per_user %u -> %u (0: none)", d->o.lim.max_running_per_user,
	         cap);
	forecast_stale(d);
	drive_want_commit(d);
	return cap;
}

static void apply_nodes(struct daemon *d, const char *spec)
{
	char err[512];
	uint32_t before = d->nnodes;
	int added = nodes_grow(d, spec, daemon_now(d), err, sizeof err);

	if (added < 0) {
		log_warnx("reload: nodes: %s; the partition stays %s", err, d->partition);
		return;
	}
	if (added > 0) {
		log_info("reload: %d node%s added: the partition is %s (%u nodes, was %u)", added,
		         added == 1 ? "" : "s", d->partition, d->nnodes, before);
		forecast_stale(d);
		drive_want_commit(d);
	}
}

void reload_config(struct daemon *d)
{
	struct conf c;
	uint32_t cap;
	int n;

	if (!d->o.config) {
		log_info("SIGHUP: no configuration file to re-read (the daemon started without one; "
		         "see --config)");
		return;
	}
	log_info("SIGHUP: reading %s", d->o.config);
	if ((n = settings_read_logged(d->o.config, &c)) != 0) {
		if (n > 0)
			log_err("reload: %s has %d error%s; the running configuration stays",
			          d->o.config, n, n == 1 ? "" : "s");
		else
			log_err("reload: out of memory reading %s; the running configuration stays",
			          d->o.config);
		conf_free(&c);
		return;
	}
	cap = apply_user_cap(d, c.max_running_per_user);
	settings_limits(&c, &d->o.lim);
	d->o.lim.max_running_per_user = cap;
	log_set_level(d->o.lim.log_level);
	if (!(d->o.flags & SF_GRACE))
		apply_grace(d, c.kill_grace);
	if (!(d->o.flags & SF_NODES))
		apply_nodes(d, c.nodes);
	if (!(d->o.flags & SF_POLICY) && c.policy != d->o.policy) {
		log_info("reload: policy %s -> %s at the next pass", sched_policy_name(d->o.policy),
		         sched_policy_name(c.policy));
		d->o.policy = c.policy;
		d->policy_changed = true;
		drive_want_commit(d);
	}
	if (!(d->o.flags & SF_ALPHA) && c.set[CONF_K_ALPHA] && c.alpha != d->o.alpha) {
		if (sched_set_alpha(d->sched, daemon_now(d), c.alpha) == SCHED_OK) {
			log_info("reload: alpha %g -> %g from the next pass", d->o.alpha, c.alpha);
			d->o.alpha = c.alpha;
			forecast_stale(d);	/* the order of the predictions changes */
			drive_want_commit(d);
		} else {
			log_warnx("reload: alpha %g not taken", c.alpha);
		}
	}
	apply_start_only(d, &c);
	log_info("reload: %s applied", d->o.config);
	conf_free(&c);
}
