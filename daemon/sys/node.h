/* The node side: `backfilld --node`, the same binary as the daemon, started
 * per job on each of the job's nodes by the job's supervisor over ssh
 * (remote.h), as root, with the ssh channel as its standard input and
 * output. One node side holds one job on one node for as long as it runs:
 *
 *  - it makes the job's directory on the node (DIR/ID, root's, where DIR
 *    is --dir, default /run/backfilld/node), its cgroup (under --cgroup,
 *    default CGROUP2/backfilld-node; "none": the job's session and marked
 *    processes), and kills whatever an earlier job left on the node (a
 *    node runs one job at a time: anything else there is stale);
 *  - on the first node it writes the script it was sent and runs it as
 *    its owner (jobexec.h), with the job's environment, its nodes, and
 *    what makes MPI launchers use blaunch;
 *  - it serves blaunch on a socket in the job's directory, open to the
 *    job's owner only, and runs the tasks the supervisor sends it;
 *  - it enforces the job's time limit itself (TERM a second after the
 *    limit, KILL after the grace), so the limit holds when the daemon is
 *    down or the link is cut; it ends the job when the supervisor says so
 *    and when the link has been silent past the timeout it was given;
 *  - at the end it kills every process of the job on the node, reports
 *    what they used, removes the job's directory and cgroup, and exits.
 *
 * Its input is the channel alone (chan.h); what it is sent is checked and
 * bounded, though only the daemon's key can reach it (SECURITY.md). */
#ifndef BF_NODE_H
#define BF_NODE_H

/* argv: the node side's options (argv[0] is the program, then --node).
 * Returns the process's exit status. */
int node_main(int argc, char **argv);

#endif
