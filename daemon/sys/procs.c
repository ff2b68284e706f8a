/* A job's processes in /proc: see procs.h. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <signal.h>
#include <unistd.h>
#include "procs.h"

int procs_pidfd(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* A process's session and start time (clock ticks since boot) from
 * /proc/PID/stat: 0, or -1 if it is gone, a zombie or unreadable. Our own
 * zombie child still counts where the caller says so (zombie_ok). */
int procs_stat(pid_t pid, pid_t *session, int64_t *start, bool zombie_ok, pid_t *pgrp)
{
	char path[64], buf[1024], *p;
	long long ticks = -1, sid = -1, pg = -1;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* The command name is in parentheses and may hold anything: count the
	 * fields after its last ')'. The session is field 6 and the start
	 * time field 22; after the name come fields 3 onwards. */
	if (!(p = strrchr(buf, ')')))
		return -1;
	p++;
	for (int field = 3; field <= 22 && p; field++) {
		p += strspn(p, " ");
		if (field == 3 && !zombie_ok && (*p == 'Z' || *p == 'X'))
			return -1;
		if (field == 5 && sscanf(p, "%lld", &pg) != 1)
			return -1;
		if (field == 6 && sscanf(p, "%lld", &sid) != 1)
			return -1;
		if (field == 22 && sscanf(p, "%lld", &ticks) != 1)
			return -1;
		p = strchr(p, ' ');
	}
	if (ticks < 0 || sid < 0)
		return -1;
	*session = (pid_t)sid;
	if (pgrp)
		*pgrp = (pid_t)pg;
	*start = ticks;
	return 0;
}

int64_t procs_start_ticks(pid_t pid)
{
	pid_t sid;
	int64_t ticks;

	return procs_stat(pid, &sid, &ticks, true, NULL) == 0 ? ticks : -1;
}

static bool killed_before(const struct procs_killed *k, pid_t pid)
{
	for (int i = 0; i < k->n; i++)
		if (k->pid[i] == pid)
			return true;
	return false;
}

/* Does the process's environment hold every one of `n` entries (e.g.
 * "BSUB_JOBID=12")? Every job process inherits its job's; an unrelated
 * process would have to carry that very id. (The first 4 MiB are read: an
 * environment is at most a few MiB.) */
bool procs_environ_has(pid_t pid, const char *const *entry, int n)
{
	size_t cap = 0, len = 0;
	char path[64], *buf = NULL;
	int found = 0;
	ssize_t got = 1;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	while (got > 0 && cap < ((size_t)4 << 20)) {
		char *nb;

		if (len == cap) {
			if (!(nb = realloc(buf, cap ? 2 * cap : 65536)))
				break;
			buf = nb;
			cap = cap ? 2 * cap : 65536;
		}
		if ((got = read(fd, buf + len, cap - len)) > 0)
			len += (size_t)got;
	}
	close(fd);
	for (int k = 0; k < n; k++) {
		size_t want = strlen(entry[k]) + 1;
		bool here = false;

		for (size_t i = 0; buf && i < len && !here;) {
			size_t e = strnlen(buf + i, len - i);	/* one entry, NUL-terminated */

			here = e + 1 == want && memcmp(buf + i, entry[k], e) == 0;
			i += e + 1;
		}
		found += here;
	}
	free(buf);
	return found == n;
}

/* The rule (procs.h) for one process. */
static bool sweep_takes(const struct procs_rule *r, pid_t pid)
{
	char path[64];
	struct stat st;
	pid_t s, pg;
	int64_t t;

	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	if (pid == r->sid || stat(path, &st) < 0 || st.st_uid != r->uid ||
	    procs_stat(pid, &s, &t, false, &pg) < 0 || t < r->since ||
	    (r->skip_pgrp > 0 && pg == r->skip_pgrp))
		return false;
	if (r->match == PROCS_EITHER && s == r->sid)
		return true;
	if (r->match == PROCS_BOTH && s != r->sid)
		return false;
	return procs_environ_has(pid, r->marker, r->nmarker);
}

/* One sweep of /proc: `sig` to every live process the rule takes. Returns
 * how many it took (each counted in k once, however many sweeps take it
 * while it takes a moment to die); *fresh, how many were new. */
int procs_sweep(const struct procs_rule *r, int sig, struct procs_killed *k, int *fresh)
{
	DIR *dir = opendir("/proc");
	struct dirent *e;
	int taken = 0;

	*fresh = 0;
	if (!dir)
		return 0;
	while ((e = readdir(dir))) {
		char *end;
		long v = strtol(e->d_name, &end, 10);

		if (*end || v <= 0 || !sweep_takes(r, (pid_t)v) || kill((pid_t)v, sig) < 0)
			continue;
		taken++;
		if (killed_before(k, (pid_t)v))
			continue;
		(*fresh)++;
		k->total++;
		if (k->n < (int)(sizeof k->pid / sizeof *k->pid))
			k->pid[k->n++] = (pid_t)v;
	}
	closedir(dir);
	return taken;
}
