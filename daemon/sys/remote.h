/* A cluster job's supervisor, on the daemon's host (execution: ssh): the
 * supervisor process (supervisor.c) calls remote_run instead of forking
 * the job, and records what it returns as it records a local job's end.
 *
 * remote_run opens a session running NODE_COMMAND on each of the job's
 * nodes: on the node's ssh ControlMaster directly when one listens
 * (sshmux.h: no handshake and no process here), else by running `ssh DEST
 * NODE_COMMAND`, which becomes the node's master (ControlMaster=auto, kept
 * ten minutes after its last session). It sends each node side the job
 * (and the first node its script), and then:
 *  - passes the daemon's signals on to every node (TERM, KILL, bkill -s)
 *    and a changed limit (runner_set_limit);
 *  - routes blaunch's tasks: a node side asks (CHAN_LAUNCH), remote_run
 *    checks that the target is one of the job's nodes and hands it to
 *    that node's side, and routes its input and output between the two;
 *  - pings every node and watches each link: a node whose ssh ends or
 *    fails, or that is silent past the timeout, is lost: the job fails
 *    with the reason, the node is named in the record (the daemon marks
 *    it down), and every other node ends the job;
 *  - when the script ends on the first node, tells every node to end the
 *    job, collects what each used, and returns.
 * It never returns before every node side has ended or been given up. */
#ifndef BF_REMOTE_H
#define BF_REMOTE_H
#include "runner_job.h"

struct remote_result {
	int wstatus;			/* the script's, or 255 << 8 if it never ended */
	char reason[512];		/* why it failed, or "" */
	struct runner_usage usage;	/* CPU summed over the nodes, the largest peak */
	char down[RUNNER_MAX_DOWN][80];		/* the nodes lost, with ndown */
	char down_why[RUNNER_MAX_DOWN][256];
	int ndown;
	bool at_limit;			/* a node side's own limit ended it */
};

/* Run job j on its nodes. Called with SIGTERM, SIGUSR1 and SIGUSR2
 * blocked; `pending` is a signal the daemon asked for before (0: none). */
void remote_run(const struct runner_job *j, int pending, struct remote_result *r);

#endif
