/* The daemon's life: set-up, the loop, a clean stop. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <event2/event.h>
#include "idmap.h"
#include "nodelist.h"
#include "proto.h"
#include "sched.h"
#include "sys/cgroup.h"
#include "sys/clock.h"
#include "sys/failpoint.h"
#include "sys/log.h"
#include "sys/spool.h"
#include "sys/store.h"
#include "sys/syncer.h"
#include "conn.h"
#include "contain.h"
#include "arrays.h"
#include "daemon.h"
#include "depend.h"
#include "drive.h"
#include "forecast.h"
#include "handlers.h"
#include "jobctl.h"
#include "jobs.h"
#include "nodectl.h"
#include "nodes.h"
#include "ratelimit.h"
#include "reload.h"
#include "reserve.h"
#include "restore.h"
#include "sd.h"
#include "server.h"
#include "submit.h"
#include "usage.h"

static int split_launch(struct daemon *d, const char *s)
{
	char *copy, *tok, *save;

	if (!s || !*s)
		return 0;
	if (!(copy = strdup(s)) || !(d->launch = calloc(strlen(s) / 2 + 2, sizeof *d->launch)))
		return -1;
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		d->launch[d->nlaunch++] = tok;	/* copy is owned through launch[0] */
	return 0;
}

/* mkdir -p for the directory part of path (or path itself). */
static int make_dirs(const char *path, bool whole, mode_t mode)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof buf)
		return -1;
	memcpy(buf, path, n + 1);
	if (!whole) {
		char *slash = strrchr(buf, '/');

		if (!slash)
			return 0;
		*slash = 0;
	}
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return buf[0] && mkdir(buf, mode) < 0 && errno != EEXIST ? -1 : 0;
}

/* execution: ssh: ssh's control sockets go in a directory of the daemon's
 * alone (anyone who could open one would run commands on the nodes as
 * root), and the key must be there. 0, or -1 with err. */
static int check_remote(const struct runner_remote *rm, char *err, size_t errlen)
{
	struct stat st;

	if (make_dirs(rm->control_dir, true, 0700) < 0 || lstat(rm->control_dir, &st) < 0) {
		snprintf(err, errlen, "ssh_control_dir %s: %s", rm->control_dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		snprintf(err, errlen, "ssh_control_dir %s must be a directory of the daemon's user "
		         "that no one else may open (mode 0700)", rm->control_dir);
		return -1;
	}
	if (rm->key && access(rm->key, R_OK) < 0) {
		snprintf(err, errlen, "ssh_key %s: %s (backfilld(8), \"Cluster\", says how to make "
		         "it)", rm->key, strerror(errno));
		return -1;
	}
	if (access(rm->ssh, X_OK) < 0) {
		snprintf(err, errlen, "execution: ssh needs %s: %s (Debian's openssh-client)",
		         rm->ssh, strerror(errno));
		return -1;
	}
	return 0;
}

/* The database and its WAL and shared-memory files hold every job's
 * environment and arguments: its owner's alone, whatever the umask was
 * when they were made, also for a state that an older version left
 * readable. The database is made here (empty) so SQLite never creates it
 * with its default mode; SQLite gives the WAL and SHM the database's. */
static int private_state(const char *db, char *err, size_t errlen)
{
	static const char *const suffix[] = { "", "-wal", "-shm", ".lock" };
	char path[600];

	for (size_t k = 0; k < sizeof suffix / sizeof *suffix; k++) {
		int fd;

		snprintf(path, sizeof path, "%s%s", db, suffix[k]);
		fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | (k == 0 ? O_CREAT : 0), 0600);
		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0 || fchmod(fd, 0600) < 0) {
			snprintf(err, errlen, "%s: %s", path, errno == ELOOP ?
			         "a symbolic link (refused)" : strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/* A supervisor forked an instant before a daemon was killed still holds
 * that daemon's descriptors, its locks' among them, until it closes them
 * (at once, but a loaded machine may take a moment): a restart waits up
 * to 3 s for them before it says another daemon is there. */
static int lock_patiently(int fd)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };

	for (int tries = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; tries++) {
		if (errno != EWOULDBLOCK || tries == 60)
			return -1;
		nanosleep(&pause, NULL);
	}
	return 0;
}

/* One daemon per database and spool: two would plan the same nodes twice.
 * The locks (flock, held by the open files) last as long as the process. */
static int lock_state(struct daemon *d, char *err, size_t errlen)
{
	char path[600];
	const char *what[2] = { d->o.db, d->o.spool };

	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof path, k ? "%s/lock" : "%s.lock", what[k]);
		d->lock_fd[k] = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (d->lock_fd[k] < 0 || lock_patiently(d->lock_fd[k]) < 0) {
			snprintf(err, errlen, errno == EWOULDBLOCK ?
			         "%s: another backfilld is using it" : "%s: %s", what[k],
			         strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void stop_now(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(((struct daemon *)arg)->base);
}

static void stop_cb(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;
	struct timeval drain = { 2, 0 };

	(void)what;
	if (d->stopping)
		return;
	log_info("stopping on signal %d after %llu commits: running jobs go on under their "
	         "supervisors and are found again at the next start", (int)sig,
	         (unsigned long long)d->commits);
	d->stopping = true;
	sysd_stopping(d);
	conn_stop_listening(d);
	drive_commit(d);	/* commit and answer what was waiting for it */
	/* Let the answers reach their clients; a silent client gets 2 s. */
	if (d->nconns == 0 || event_base_once(d->base, -1, EV_TIMEOUT, stop_now, d, &drain) < 0)
		event_base_loopbreak(d->base);
}

static void hup_cb(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	reload_config(arg);
}

static const char *stored_us(bf_time t, char *buf, size_t len)
{
	snprintf(buf, len, "%lld", (long long)t);
	return buf;
}

/* The plan in the store was made under the policy stored with it: restore
 * under that one and switch at the first pass, so that every guarantee the
 * configured policy drops is announced (drive.c), never lost silently. */
static int stored_policy(struct daemon *d, enum sched_policy *restore_as, char *err,
                         size_t errlen)
{
	char stored[32];
	enum sched_policy was;

	switch (store_meta_get(d->store, "policy", stored, sizeof stored)) {
	case 1:
		if (sched_policy_parse(stored, &was) == 0 && was != d->o.policy) {
			log_info("the policy changes from %s (the stored plan's) to %s at the first "
			         "pass", stored, sched_policy_name(d->o.policy));
			*restore_as = was;
			d->policy_changed = true;
		}
		return 0;
	case 0:	/* a database from before the policy was stored: take it as is */
		if (store_begin(d->store) == 0 &&
		    store_meta_set(d->store, "policy", sched_policy_name(d->o.policy)) == 0)
			return 0;
		/* fall through */
	default:
		snprintf(err, errlen, "%s", store_error(d->store));
		return -1;
	}
}

/* The same for the kill grace: the stored plan's holds were made with the
 * stored one, so the restore uses it (no hold grows under a job, and no
 * promise moves for it) and the configured one applies to the jobs
 * submitted from then on (drive.c, after the restore). */
static int stored_grace(struct daemon *d, bf_time *restore_with, char *err, size_t errlen)
{
	char stored[32], *end;
	long long us;

	switch (store_meta_get(d->store, "kill_grace_us", stored, sizeof stored)) {
	case 1:
		errno = 0;
		us = strtoll(stored, &end, 10);
		if (!errno && !*end && us >= 0 && us <= BF_MAX_DURATION && us != d->o.kill_grace) {
			*restore_with = us;
			d->grace_changed = true;
		}
		return 0;
	case 0:
		if (store_begin(d->store) == 0 &&
		    store_meta_set(d->store, "kill_grace_us", stored_us(d->o.kill_grace, stored,
		                                                        sizeof stored)) == 0)
			return 0;
		/* fall through */
	default:
		snprintf(err, errlen, "%s", store_error(d->store));
		return -1;
	}
}

/* A test's forecast slice is at most the forecast's own (failpoint.c,
 * which cannot see forecast.h, keeps the number). */
_Static_assert(FAILPOINT_FORECAST_MAX == FORECAST_CHUNK, "FP_FORECAST_SLICE's largest");

int server_init(struct daemon *d, const struct serve_opts *o, char *err, size_t errlen)
{
	/* One slice of a compression pass per loop turn: clients are answered
	 * between the passes of a long settling, and between the slices of a
	 * pass over a deep queue; the same for placing again what a lost node
	 * took back (see sched.h). */
	struct sched_params prm = { .policy = o->policy, .alpha = o->alpha,
	                            .kill_grace = o->kill_grace,
	                            .compress_passes = 1, .compress_slice = SCHED_LIVE_SLICE,
	                            .place_slice = SCHED_LIVE_PLACES };
	static const int stops[] = { SIGTERM, SIGINT };
	char alpha[48];

	memset(d, 0, sizeof *d);
	d->unsynced_tail = &d->unsynced;
	d->o = *o;
	/* The calls up the floors, the only ones (daemon.h). */
	d->hooks = (struct daemon_hooks){
		.dispatch = handle_request,
		.answer_waiting = conn_answer_waiting,
		.flush_replies = conn_flush_all,
		.admit = submit_admit,
		.submission_ids = submit_ids,
		.space_back = jobctl_release_disk_held,
		.node_lost = nodectl_lost,
		.deps_changed = depend_changed,
	};
	d->spool.top_fd = d->spool.status_fd = d->spool.jobs_fd = -1;
	d->lock_fd[0] = d->lock_fd[1] = -1;
	d->reserve_fd[0] = d->reserve_fd[1] = -1;
	d->cg.base_fd = d->cg.jobs_fd = -1;
	d->root = geteuid() == 0;
	d->listen_fd = -1;
	if (nodes_init(d, o->nodes, err, errlen) < 0)
		return -1;
	if (split_launch(d, o->launch) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (make_dirs(o->db, false, 0700) < 0 || make_dirs(o->socket, false, 0755) < 0 ||
	    make_dirs(o->spool, false, 0755) < 0) {
		snprintf(err, errlen, "creating the directories for %s, %s, %s: %s", o->db, o->socket,
		         o->spool, strerror(errno));
		return -1;
	}
	if (o->remote && check_remote(o->remote, err, errlen) < 0)
		return -1;
	/* From here on, whatever the daemon creates is its own unless it says
	 * otherwise (jobs get the usual 022 back; see supervisor.c). */
	umask(077);
	if (spool_open(&d->spool, o->spool, d->root, err, errlen) < 0 ||
	    private_state(o->db, err, errlen) < 0)
		return -1;
	if (lock_state(d, err, errlen) < 0)
		return -1;
	if (!(d->store = store_open(o->db, err, errlen)) || nodes_check_stored(d, err, errlen) < 0)
		return -1;
	prm.nodes = d->nnodes;
	prm.max_running_per_user = o->lim.max_running_per_user;
	if (stored_policy(d, &prm.policy, err, errlen) < 0 ||
	    stored_grace(d, &prm.kill_grace, err, errlen) < 0)
		return -1;
	/* A test's slices (failpoint.h): the places, one call a turn. */
	d->turn_calls = failpoint_num(FP_PLACE_SLICE) ? 1 : SCHED_LIVE_CALLS;
	prm.place_slice = failpoint_or(FP_PLACE_SLICE, prm.place_slice);
	if (sched_new(&d->sched, &prm) != SCHED_OK || idmap_init(&d->ids, 1024) < 0 ||
	    !(d->base = event_base_new()) || event_base_priority_init(d->base, 3) < 0 ||
	    drive_init(d) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (sysd_init(d, err, errlen) < 0)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	/* A file size limit makes a write fail (EFBIG) instead of killing the
	 * daemon: the store then fails cleanly. */
	signal(SIGXFSZ, SIG_IGN);
	for (int k = 0; k < 2; k++) {
		d->sig_ev[k] = evsignal_new(d->base, stops[k], stop_cb, d);
		if (!d->sig_ev[k] || event_add(d->sig_ev[k], NULL) < 0)
			return -1;
	}
	d->sig_ev[2] = evsignal_new(d->base, SIGHUP, hup_cb, d);
	if (!d->sig_ev[2] || event_add(d->sig_ev[2], NULL) < 0)
		return -1;
	/* What the restore changed is committed before the daemon listens: a
	 * store that cannot write (read-only, full) stops it here, with 1. */
	contain_init(d);	/* before the restore, which sweeps the jobs' cgroups */
	/* Each user's ended jobs as stored, before the restore ends more. */
	if (usage_load(d) < 0) {
		snprintf(err, errlen, "%s: %s", o->db, store_error(d->store));
		return -1;
	}
	if (restore_state(d, err, errlen) < 0)
		return -1;
	if (store_commit(d->store) < 0 || store_last_id(d->store, &d->last_id) < 0) {
		snprintf(err, errlen, "%s: %s", o->db, store_error(d->store));
		return -1;
	}
	if (conn_listen(d, err, errlen) < 0)
		return -1;
	reserve_open(d);
	d->serving = true;
	snprintf(alpha, sizeof alpha, " (alpha %g)", o->alpha);
	log_info("listening on %s: %u nodes, %s%s, kill grace %lld s", o->socket, d->nnodes,
	         sched_policy_name(o->policy), o->policy == SCHED_CREASY ? alpha : "",
	         (long long)(o->kill_grace / BF_SEC));
	if (o->remote)
		log_info("execution: ssh: jobs run on their nodes, reached as %s by %s (node_timeout "
		         "%lld s)", o->remote->destination, o->remote->node_command,
		         (long long)(o->remote->timeout_ms / 1000));
	if (!d->root)
		log_info("not running as root: every job runs as uid %u, whoever submits it",
		         (unsigned)geteuid());
	drive_commit(d);	/* the first pass: what the restore left due */
	return 0;
}

int server_run(struct daemon *d)
{
	sysd_ready(d);	/* listening, restored, committed: the loop runs next */
	return event_base_dispatch(d->base) < 0 ? -1 : 0;
}

void server_free(struct daemon *d)
{
	cg_close(&d->cg);
	conn_close_all(d);
	ratelimit_free(d);	/* its summaries still due are logged */
	syncer_free(d->syncer);	/* (the stop waited for its last flush) */
	store_ckpt_close(d->store, d->ckpt);
	submit_drop(d->syncing);	/* (a store that failed: never admitted) */
	submit_drop(d->unsynced);
	while (d->njobs)
		jobs_remove(d, d->jobs[d->njobs - 1]);
	depend_free_all(d);
	arrays_free_all(d);
	usage_free(d);
	reserve_close(d);
	for (int k = 0; k < 3; k++)
		if (d->sig_ev[k])
			event_free(d->sig_ev[k]);
	if (d->tick_ev)
		event_free(d->tick_ev);
	if (d->commit_ev)
		event_free(d->commit_ev);
	if (d->next_ev)
		event_free(d->next_ev);
	free(d->reap);
	free(d->announce);
	if (d->prune_ev)
		event_free(d->prune_ev);
	forecast_free(d);
	sysd_free(d);	/* after conn_close_all, which asks whose the socket is */
	if (d->base)
		event_base_free(d->base);
	if (d->store)
		store_close(d->store);
	sched_free(d->sched);
	idmap_destroy(&d->ids);
	for (uint32_t k = 0; k < d->nnodes; k++)
		free(d->node_names[k]);
	free(d->node_names);
	free(d->node_sorted);
	free(d->partition);
	nodectl_free(d);
	free(d->touched);
	if (d->launch)
		free((char *)d->launch[0]);
	free(d->launch);
	free(d->jobs);
	spool_close(&d->spool);
	for (int k = 0; k < 2; k++)
		if (d->lock_fd[k] >= 0)
			close(d->lock_fd[k]);
}
