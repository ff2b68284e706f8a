/* What both files of the node side use (node_side.h): the clock, the
 * node's log, frames to the supervisor, signals to the whole job here, and
 * the environment every process of the job finds. */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include "chan.h"
#include "cgroup.h"
#include "node_side.h"
#include "procs.h"

int64_t node_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void node_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsyslog(prio, fmt, ap);
	va_end(ap);
}

void node_send(struct node_side *n, uint8_t type, uint32_t stream, const void *data, size_t len)
{
	if (chan_put(&n->out, type, stream, data, len) < 0)
		node_log(LOG_ERR, "job %" PRIu64 ": out of memory queueing a frame", n->j.id);
}

static void signal_one(struct node_side *n, int sig)
{
	struct procs_killed k = { .n = 0, .total = 0 };
	int fresh;

	if (n->cgfd >= 0 && cg_signal(n->cgfd, sig) == 0)
		return;
	if (n->job > 0)
		kill(-n->job, sig);
	procs_sweep(&n->sweep, sig, &k, &fresh);
}

/* SIGTERM is followed by SIGCONT, as on the first node (supervisor.c): a
 * stopped job runs its TERM handler at its limit or cancel. */
void node_signal_job(struct node_side *n, int sig)
{
	signal_one(n, sig);
	if (sig == SIGTERM)
		signal_one(n, SIGCONT);
}

/* What the job's processes find beyond the job's own variables: the way
 * to blaunch, and, unless the job set them itself, what makes Open MPI
 * and MPICH start their ranks through it on the job's nodes. */
const char **node_extra_env(struct node_side *n, char *store, size_t len)
{
	static const char *const mpi[][2] = {
		{ "OMPI_MCA_plm_rsh_agent", "blaunch" },
		{ "OMPI_MCA_orte_default_hostfile", "mpi_hosts" },
		{ "PRTE_MCA_plm_ssh_agent", "blaunch" },
		{ "PRTE_MCA_prte_default_hostfile", "mpi_hosts" },
		{ "HYDRA_LAUNCHER", "ssh" },
		{ "HYDRA_LAUNCHER_EXEC", "blaunch" },
		{ "HYDRA_HOST_FILE", "hostfile" },
	};
	size_t nmpi = sizeof mpi / sizeof *mpi, used = 0;
	const char **v = calloc(nmpi + 2, sizeof *v);
	uint32_t c = 0;

	if (!v)
		return NULL;
	v[c++] = store;
	used += (size_t)snprintf(store, len, "BSUB_LAUNCHER=%s", n->sock) + 1;
	for (size_t k = 0; k < nmpi && used < len; k++) {
		size_t nl = strlen(mpi[k][0]);
		bool set = false;
		const char *val = strcmp(mpi[k][1], "blaunch") == 0 ? n->blaunch :
		                  strcmp(mpi[k][1], "hostfile") == 0 ? n->hostfile :
		                  strcmp(mpi[k][1], "mpi_hosts") == 0 ? n->mpi_hosts : mpi[k][1];

		for (uint32_t e = 0; e < n->j.envc && !set; e++)
			set = strncmp(n->j.env[e], mpi[k][0], nl) == 0 && n->j.env[e][nl] == '=';
		if (set)
			continue;
		v[c++] = store + used;
		used += (size_t)snprintf(store + used, len - used, "%s=%s", mpi[k][0], val) + 1;
	}
	if (used > len) {
		free(v);
		return NULL;
	}
	return v;
}

