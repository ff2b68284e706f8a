/* Job containment with cgroup v2, where the daemon has a subtree it may
 * write (systemd's Delegate=yes, or --cgroup DIR); else process groups.
 *
 * Layout under the subtree BASE (the daemon's own cgroup, or --cgroup DIR):
 *   BASE/daemon   the daemon and the supervisors it forks (a leaf)
 *   BASE/jobs     the parent of the jobs' cgroups (no process of its own)
 *   BASE/jobs/ID  one job: every process it ever starts, setsid or not
 * cgroup v2 lets a cgroup hand controllers (memory, for memory.peak) to its
 * children only while it holds no process itself ("no internal
 * processes"), so the daemon first moves itself into BASE/daemon. A
 * restart finds the same layout (mkdir of an existing one is fine) with the
 * jobs of the previous daemon still in theirs: their supervisors kill and
 * account them through the descriptors they hold, and whatever is left in
 * a cgroup of a job that is no longer running is killed and removed.
 *
 * Every directory here is created by the daemon (root), 0700 under its
 * umask, and opened O_DIRECTORY|O_NOFOLLOW relative to a descriptor it
 * holds; a job's processes run as their owner and can create, rename or
 * move nothing in it (cgroupfs has no symbolic links at all).
 *
 * The supervisor (in BASE/daemon, never in the job's cgroup, so that a kill
 * of the job cannot take it along) signals the job's cgroup, waits until it
 * is empty, reads its CPU time and peak memory and removes it. */
#ifndef BF_CGROUP_H
#define BF_CGROUP_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct cg_tree {
	int base_fd;		/* BASE, or -1: process groups only */
	int jobs_fd;		/* BASE/jobs */
	bool memory;		/* job cgroups have the memory controller (memory.peak) */
	char base[512];		/* BASE, for messages */
};

/* Find and set up the subtree: `want` is NULL (the daemon's own cgroup,
 * from /proc/self/cgroup in the cgroup2 mount of /proc/self/mountinfo),
 * "none" (process groups only) or a directory on a cgroup2 file system.
 * Moves the calling process into BASE/daemon. 0 usable; -1 not, with why
 * (never fatal: the daemon then uses process groups). `note` says what
 * works only partly (no memory controller), or is "". */
int  cg_setup(struct cg_tree *t, const char *want, char *why, size_t whylen, char *note,
              size_t notelen);
void cg_close(struct cg_tree *t);
/* Where the cgroup2 file system is mounted (/proc/self/mountinfo): 0, or
 * -1 if none is. */
int  cg_mount_point(char *mnt, size_t len);
static inline bool cg_enabled(const struct cg_tree *t) { return t->base_fd >= 0; }

/* In the daemon: make BASE/jobs/ID (an empty leftover of the same id is
 * removed first) and open it: its descriptor, or -1 with errno. */
int  cg_job_create(const struct cg_tree *t, uint64_t id);
/* Kill whatever is left in BASE/jobs/ID and remove it (a job whose
 * supervisor is gone). Returns how many processes were signalled. */
int  cg_job_kill_remove(const struct cg_tree *t, uint64_t id);
/* At a restart: the same for every job cgroup whose id `keep` refuses (no
 * running job). Returns how many cgroups were removed. */
unsigned cg_sweep(const struct cg_tree *t, bool (*keep)(uint64_t id, void *arg), void *arg);

/* On a job cgroup's descriptor (the supervisor's). cg_signal is
 * async-signal-safe (the supervisor calls it from its signal handler):
 * SIGKILL through cgroup.kill (kernel 5.14 on), else, and for any other
 * signal, to each process cgroup.procs lists. Returns the processes
 * signalled one by one (0 after cgroup.kill), or -1 if the cgroup cannot
 * be read. */
int  cg_signal(int cgfd, int sig);
/* Move process `pid` (0: the caller) into the cgroup. 0 or -1. */
int  cg_join(int cgfd, pid_t pid);
/* SIGKILL everything, again and again, until the cgroup is empty or
 * timeout_ms passed: 0 empty, -1 not. */
int  cg_drain(int cgfd, int timeout_ms);
/* What the cgroup used: CPU time (cpu.stat usage_usec, µs) and peak memory
 * (memory.peak, bytes), each -1 where the kernel does not say. */
void cg_usage(int cgfd, int64_t *cpu_us, int64_t *mem_bytes);
/* Remove the (empty) cgroup `name` under `parent_fd`, retrying a short
 * while (the last process may take a moment to be released). 0 or -1. */
int  cg_remove(int parent_fd, const char *name);

#endif
