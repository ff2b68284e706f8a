/* A job as the runner starts it (struct runner_job), and what its
 * supervisor records of it: the daemon's side (runner.c, runner.h) and the
 * supervisor process (supervisor.c) both read these, and neither calls
 * the other through them: runner.c forks and enters supervisor_main. */
#ifndef BF_RUNNER_JOB_H
#define BF_RUNNER_JOB_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A job's cgroup: its directory and the one above it (to remove it),
 * descriptors the daemon holds; the supervisor keeps copies. */
struct runner_cgroup {
	int dir_fd, parent_fd;
};

/* What a job used, as its supervisor recorded it: CPU time (µs) and peak
 * memory (KiB), -1 when unknown, each with its source (enum
 * proto_usage_src): PU_CGROUP, every process the job ever had, from its
 * cgroup (cpu.stat, memory.peak); PU_RUSAGE, from the supervisor's
 * getrusage(RUSAGE_CHILDREN): the CPU time of the job's processes that were
 * waited for (not those that left their parent), the peak of the largest
 * single one of them. */
struct runner_usage {
	int64_t cpu_us, mem_kb;
	int cpu_src, mem_src;
};

/* How a cluster reaches its nodes (execution: ssh in backfilld.yaml(5)):
 * the job's supervisor runs `ssh DEST NODE_COMMAND` for each of its
 * nodes (remote.h). */
struct runner_remote {
	const char *ssh;		/* the ssh client's path */
	const char *destination;	/* ssh's destination, %n the node's name */
	const char *key;		/* -i: the daemon's key, or NULL */
	const char *config;		/* -F: an ssh_config, or NULL (none) */
	const char *known_hosts;	/* UserKnownHostsFile, or NULL (ssh's own) */
	const char *node_command;	/* what ssh asks the node to run */
	const char *control_dir;	/* ControlPath's directory (root's, 0700) */
	int64_t timeout_ms;		/* a node silent this long is lost */
};

struct runner_job {
	uint64_t id;
	uid_t uid;
	gid_t gid;
	bool as_owner;		/* switch to uid/gid and the owner's groups */
	const char *user;	/* for supplementary groups; may be NULL */
	const char *name;	/* the job's name (LSB_JOBNAME); may be NULL */
	/* An array's element: the array's id (LSB_JOBID, as LSF gives an
	 * element) and its index (LSB_JOBINDEX); 0 for a job that is none. */
	uint64_t array_id;
	uint32_t array_index;
	const char *script;	/* path of the spooled script */
	const char *const *argv;	/* arguments after the script */
	uint32_t argc;
	const char *const *env;	/* NAME=value, the job's base environment */
	uint32_t envc;
	const char *cwd;
	const char *out, *err;	/* absolute paths, appended to */
	/* The submitter's umask, applied before the output files are made;
	 * has_umask false (unknown: an older client or record): 022. */
	bool has_umask;
	mode_t umask;
	const char *const *nodes;	/* its nodes' names */
	uint32_t nnodes;
	const char *hostfile;	/* where to write one node per line */
	const char *const *launch;	/* command prefix (a site's remote shell), or NULL */
	uint32_t nlaunch;
	const char *status_dir;	/* where the supervisor records the end */
	const struct runner_cgroup *cgroup;	/* NULL: its process group and sweeps */
	/* A cluster's job: run on its nodes over ssh (NULL: here). The node
	 * sides enforce the limit themselves: TERM at term_at (wall clock,
	 * BF_NEVER none; moved with runner_set_limit), KILL `grace` later. */
	const struct runner_remote *remote;
	int64_t term_at, grace;
};

/* A supervisor's exit status when it never forked the job for want of
 * room in the spool (its identity or the host file could not be written):
 * no record, and the daemon queues the job again instead of calling it
 * lost (drive.c). */
#define RUNNER_EXIT_UNSTARTED 3

/* The most nodes a supervisor's record names as lost (a "down NODE WHY"
 * line each; see supervisor.h): the record must fit its room. A job that
 * loses more names the first ones; the others are found again by the
 * next job sent to them. */
#define RUNNER_MAX_DOWN 16

#endif
