/* The node side's state, shared by its files: node.c (the job on this
 * node: its set-up, its script on the first node, the channel to the
 * job's supervisor, the limit, the end) and node_task.c (the launch
 * socket blaunch connects to, and the tasks run here for blaunch), both
 * over node_side.c (what both use). One node side is one process, one
 * job, one node; see node.h. */
#ifndef BF_NODE_SIDE_H
#define BF_NODE_SIDE_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "chan.h"
#include "cgroup.h"
#include "procs.h"
#include "runner_job.h"

#define NODE_MAX_CLIENTS 64	/* blaunch connections at once */
#define NODE_MAX_TASKS   256	/* tasks running here at once */
#define NODE_MAX_TARGETS 100000	/* nodes in one blaunch request (a partition's most) */
#define NODE_MAX_FANOUT (256u << 20)	/* bytes of one request's frames, all targets */
#define NODE_BUF_MAX (1u << 20)	/* bytes waiting for a peer before we stop reading */

/* A blaunch connection on the launch socket. */
struct node_client {
	int fd;
	struct chan_buf in, out;
	uint32_t first;		/* its local streams: first .. first + n - 1 */
	uint32_t n;		/* targets in its request (0: none yet) */
	uint32_t open;		/* targets not yet ended */
	bool asked;		/* its request came */
	bool closing;		/* to be closed once out is written */
};

/* A task run here for blaunch (stream g: the supervisor's). */
struct node_task {
	uint32_t g;
	pid_t pid;
	int pidfd, in, out, err, why;
	struct chan_buf inbuf;	/* input waiting to be written to it */
	bool in_eof;		/* its input ends once inbuf is written */
	bool exited;
	int wstatus;
	char reason[512];
	size_t reason_len;
};

struct node_side {
	/* From the command line. */
	char dir[256];		/* where jobs' directories are (default /run/backfilld/node) */
	const char *cgroup_want;	/* --cgroup: NULL (ours), a directory or "none" */
	const char *blaunch;	/* blaunch's path on this node (MPI's remote shell) */

	/* The job, from its CHAN_JOB frame (strings point into job_msg). */
	uint8_t *job_msg;
	struct runner_job j;
	const char *node;	/* this node's name */
	bool first;		/* the script runs here */
	long long term_in_ms, grace_ms, timeout_ms, ping_ms;
	char jobdir[300], script[400], hostfile[400], mpi_hosts[400], sock[400], side[400];

	struct cg_tree cg;
	int cgfd;		/* the job's cgroup here, or -1 */
	struct procs_rule sweep;	/* the job's processes here, without one */
	char mark_id[48], mark_hostfile[450];
	const char *marks[2];

	/* The channel: stdin and stdout, as ssh gives them. */
	struct chan_buf in, out;
	bool in_eof;
	int64_t heard_at;	/* when the supervisor was last heard (ms, monotonic) */
	int64_t pinged_at;

	pid_t job;		/* the script's process (first node), 0 none, -1 ended */
	int job_fd, job_why;
	char reason[512];
	size_t reason_len;
	int64_t started_at, term_at, kill_at;	/* ms, monotonic; -1 never */
	bool termed;
	bool at_limit;		/* the node side's own limit signalled the job */

	int listen_fd;
	struct node_client client[NODE_MAX_CLIENTS];
	struct node_task task[NODE_MAX_TASKS];
	uint32_t ntask, next_stream;
	int64_t cpu_us, mem_kb;	/* what tasks and the script used, without a cgroup */
};

/* node_side.c, below both node.c and node_task.c */
int64_t node_now_ms(void);
/* A message to the node's log (syslog, daemon facility). */
void node_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A frame to the supervisor (queued; written by the loop). */
void node_send(struct node_side *n, uint8_t type, uint32_t stream, const void *data, size_t len);
/* A signal to every process of the job here: script, tasks, and all they
 * started. */
void node_signal_job(struct node_side *n, int sig);

/* What the job's processes find beyond the job's own variables
 * (BSUB_LAUNCHER, and the MPI launchers' settings): a NULL-terminated
 * array to free, its strings in store; NULL if store is too small. */
const char **node_extra_env(struct node_side *n, char *store, size_t len);

/* node_task.c */
int  node_launch_listen(struct node_side *n);
void node_accept(struct node_side *n);
void node_client_io(struct node_side *n, struct node_client *c, short revents);
void node_task_start(struct node_side *n, const struct chan_frame *f);
void node_task_input(struct node_side *n, const struct chan_frame *f);
void node_task_close(struct node_side *n, uint32_t g);
void node_task_io(struct node_side *n, struct node_task *t, int which, short revents);
/* A frame for a blaunch client (CHAN_OUT, ERR, EXIT, FAIL on its stream). */
void node_to_client(struct node_side *n, const struct chan_frame *f);
void node_tasks_end(struct node_side *n);

#endif
