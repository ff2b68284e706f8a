/* Jobs in cgroups (sys/cgroup.h), or process groups. */
#ifndef BF_SERVE_CONTAIN_H
#define BF_SERVE_CONTAIN_H
#include <stdint.h>

struct daemon;
struct djob;
struct runner_cgroup;

/* Find the cgroup subtree (--cgroup), or say once why there is none. */
void contain_init(struct daemon *d);
/* A job's cgroup before its start: 0 (rc filled), -1 (process group only;
 * logged). */
int  contain_job(struct daemon *d, uint64_t id, const char *user, struct runner_cgroup *rc);
/* At a restart: remove the cgroups of jobs that are not running. */
void contain_sweep(struct daemon *d);
/* An ended job's CPU time and peak memory from its supervisor's record. */
void contain_usage(struct daemon *d, struct djob *j);

#endif
