/* The daemon's use of cgroup.h: set up once, one cgroup per started job,
 * and a sweep of what a previous daemon's jobs left at a restart. */
#include <errno.h>
#include <syslog.h>
#include <inttypes.h>
#include <string.h>
#include "proto.h"
#include "sys/cgroup.h"
#include "sys/log.h"
#include "sys/runner.h"
#include "sys/store.h"
#include "contain.h"
#include "daemon.h"
#include "jobs.h"

void contain_init(struct daemon *d)
{
	char why[700], note[700];

	if (cg_setup(&d->cg, d->o.cgroup, why, sizeof why, note, sizeof note) < 0) {
		log_warnx("cgroup containment unavailable: %s; jobs are contained by process group "
		          "only", why);
		return;
	}
	log_info("jobs are contained in cgroups under %s/jobs (the daemon is in %s/daemon)",
	         d->cg.base, d->cg.base);
	if (note[0])
		log_info("%s", note);
}

int contain_job(struct daemon *d, uint64_t id, const char *user, struct runner_cgroup *rc)
{
	if (!cg_enabled(&d->cg))
		return -1;
	if ((rc->dir_fd = cg_job_create(&d->cg, id)) < 0) {
		log_job(LOG_WARNING, id, user, "cannot make its cgroup under %s/jobs: %s; it is "
		        "contained by its process group only", d->cg.base, strerror(errno));
		return -1;
	}
	rc->parent_fd = d->cg.jobs_fd;
	return 0;
}

/* Running jobs keep theirs (their supervisors hold them). */
static bool running(uint64_t id, void *arg)
{
	struct djob *j = jobs_get(arg, id);

	return j && j->rec.state == ST_RUNNING;
}

void contain_sweep(struct daemon *d)
{
	unsigned n = cg_sweep(&d->cg, running, d);

	if (n)
		log_info("removed %u cgroups of jobs that are no longer running (whatever was left "
		         "in them was killed)", n);
}

void contain_usage(struct daemon *d, struct djob *j)
{
	struct runner_usage u;

	if (runner_collect_usage(d->spool.status_dir, j->rec.id, &u) != 1)
		u = (struct runner_usage){ -1, -1, PU_NONE, PU_NONE };
	j->rec.cpu_us = u.cpu_us;
	j->rec.mem_kb = u.mem_kb;
	j->rec.cpu_src = u.cpu_src;
	j->rec.mem_src = u.mem_src;
}
