/* cgroup v2 containment; see cgroup.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include "cgroup.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* ---- small files of a cgroup (async-signal-safe where said) ---- */

/* Write a short string to a control file: 0 or -1. Async-signal-safe. */
static int put_file(int dirfd, const char *name, const char *s)
{
	size_t len = strlen(s);
	int fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* Read a control file (at most len - 1 bytes, NUL-terminated): its length
 * or -1. The files read here are a few lines long. */
static ssize_t get_file(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return got;
}

/* A decimal number without stdio, for signal handlers. */
static void fmt_u64(char *buf, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < (int)sizeof tmp);
	while (n)
		*buf++ = tmp[--n];
	*buf = 0;
}

int cg_signal(int cgfd, int sig)
{
	int saved = errno, fd, count = 0;
	char buf[4096];
	long pid = 0;
	bool digits = false;
	ssize_t n;

	/* cgroup.kill takes every process and every one being forked. */
	if (sig == SIGKILL && put_file(cgfd, "cgroup.kill", "1") == 0) {
		errno = saved;
		return 0;
	}
	if ((fd = openat(cgfd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
		errno = saved;
		return -1;
	}
	/* One pid a line; a line may straddle two reads. */
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] >= '0' && buf[i] <= '9' && pid < 100000000) {
				pid = pid * 10 + (buf[i] - '0');
				digits = true;
			} else {
				if (digits && pid > 0 && kill((pid_t)pid, sig) == 0)
					count++;
				pid = 0;
				digits = false;
			}
		}
	}
	if (digits && pid > 0 && kill((pid_t)pid, sig) == 0)
		count++;
	close(fd);
	errno = saved;
	return count;
}

int cg_join(int cgfd, pid_t pid)
{
	char num[24];

	fmt_u64(num, (uint64_t)(pid > 0 ? pid : 0));
	return put_file(cgfd, "cgroup.procs", num);
}

/* Is any process left in it (or below it)? From cgroup.events, else from
 * an empty cgroup.procs. */
static bool populated(int cgfd)
{
	char buf[512], *p;

	if (get_file(cgfd, "cgroup.events", buf, sizeof buf) >= 0 &&
	    (p = strstr(buf, "populated ")))
		return p[10] != '0';
	return get_file(cgfd, "cgroup.procs", buf, sizeof buf) != 0;
}

static void pause_ms(long ms)
{
	nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000 }, NULL);
}

int cg_drain(int cgfd, int timeout_ms)
{
	for (int waited = 0;; waited += 10) {
		if (!populated(cgfd))
			return 0;
		if (waited >= timeout_ms)
			return -1;
		/* Again each time: without cgroup.kill, a process forked
		 * between the read of cgroup.procs and the kills escapes one
		 * round, never all of them. */
		cg_signal(cgfd, SIGKILL);
		pause_ms(10);
	}
}

/* "KEY VALUE" in a flat-keyed file such as cpu.stat: VALUE or -1. */
static int64_t keyed(const char *buf, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		long long v;

		if (strncmp(p, key, k) == 0 && p[k] == ' ' && sscanf(p + k + 1, "%lld", &v) == 1 &&
		    v >= 0)
			return v;
	}
	return -1;
}

void cg_usage(int cgfd, int64_t *cpu_us, int64_t *mem_bytes)
{
	char buf[2048];
	long long v;

	*cpu_us = get_file(cgfd, "cpu.stat", buf, sizeof buf) > 0 ? keyed(buf, "usage_usec") : -1;
	*mem_bytes = get_file(cgfd, "memory.peak", buf, sizeof buf) > 0 &&
	             sscanf(buf, "%lld", &v) == 1 && v >= 0 ? v : -1;
}

int cg_remove(int parent_fd, const char *name)
{
	for (int k = 0; k < 100; k++) {
		if (unlinkat(parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		pause_ms(10);
	}
	return -1;
}

/* ---- the daemon's side ---- */

/* A directory of the tree, made if needed and opened without following a
 * link; it must be the daemon's own (not one another user was handed). */
static int own_dir(int at, const char *name, char *why, size_t whylen, const char *base)
{
	struct stat st;
	int fd;

	if (mkdirat(at, name, 0700) < 0 && errno != EEXIST) {
		snprintf(why, whylen, "cannot create %s/%s: %s", base, name, strerror(errno));
		return -1;
	}
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		snprintf(why, whylen, "%s/%s: %s", base, name,
		         fd < 0 ? strerror(errno) : "not owned by the daemon's user");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Octal escapes of /proc/self/mountinfo (\040 for a space) undone in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

int cg_mount_point(char *mnt, size_t len)
{
	char line[4096], field[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	mnt[0] = 0;
	while (f && fgets(line, sizeof line, f)) {
		char *sep = strstr(line, " - cgroup2 "), *p = line;

		if (!sep)
			continue;
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ...: the fifth field. */
		for (int k = 0; k < 4 && p; k++)
			p = strchr(p + 1, ' ');
		if (p && sscanf(p + 1, "%4095s", field) == 1) {
			unescape(field);
			if (strlen(field) < len)
				snprintf(mnt, len, "%s", field);
			break;
		}
	}
	if (f)
		fclose(f);
	return mnt[0] ? 0 : -1;
}

/* The daemon's own cgroup v2 directory. 0, or -1 with why. */
static int discover(char *path, size_t len, bool *in_leaf, char *why, size_t whylen)
{
	char line[4096], mnt[2048] = "", own[2048] = "";
	FILE *f;
	size_t l;

	if (cg_mount_point(mnt, sizeof mnt) < 0) {
		snprintf(why, whylen, "no cgroup2 file system is mounted");
		return -1;
	}
	if (!(f = fopen("/proc/self/cgroup", "re"))) {
		snprintf(why, whylen, "/proc/self/cgroup: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "0::", 3) == 0 && sscanf(line + 3, "%2047[^\n]", own) == 1)
			break;
	fclose(f);
	if (own[0] != '/') {
		snprintf(why, whylen, "the daemon is in no cgroup2 group (/proc/self/cgroup)");
		return -1;
	}
	/* The root of the hierarchy is the whole machine's, never one that
	 * was handed to the daemon: only an explicit --cgroup uses it. */
	if (strcmp(own, "/") == 0) {
		snprintf(why, whylen, "the daemon runs in the root of the cgroup2 hierarchy at %s, "
		         "not in a delegated subtree (give --cgroup DIR)", mnt);
		return -1;
	}
	/* A daemon already in BASE/daemon (a unit with DelegateSubgroup=daemon,
	 * or one started again from there) uses BASE. */
	l = strlen(own);
	*in_leaf = l > 7 && strcmp(own + l - 7, "/daemon") == 0;
	if (*in_leaf)
		own[l - 7] = 0;
	if ((size_t)snprintf(path, len, "%s%s", strcmp(mnt, "/") == 0 ? "" : mnt, own) >= len) {
		snprintf(why, whylen, "the daemon's cgroup path is too long");
		return -1;
	}
	return 0;
}

/* Hand the memory controller down to the jobs' cgroups, where it is
 * available: BASE and BASE/jobs both enable it. */
static bool enable_memory(struct cg_tree *t, char *note, size_t notelen)
{
	char buf[1024], *p;
	bool there;

	there = get_file(t->base_fd, "cgroup.controllers", buf, sizeof buf) >= 0 &&
	        (p = strstr(buf, "memory")) && (p == buf || p[-1] == ' ') &&
	        (p[6] == 0 || p[6] == ' ' || p[6] == '\n');
	if (!there) {
		snprintf(note, notelen, "the memory controller is not available in %s (bound to "
		         "cgroup v1, or not delegated): peak memory comes from the job's largest "
		         "process (rusage)", t->base);
		return false;
	}
	if (put_file(t->base_fd, "cgroup.subtree_control", "+memory") < 0 ||
	    put_file(t->jobs_fd, "cgroup.subtree_control", "+memory") < 0) {
		snprintf(note, notelen, "cannot enable the memory controller under %s (%s): peak "
		         "memory comes from the job's largest process (rusage)", t->base,
		         strerror(errno));
		return false;
	}
	return true;
}

int cg_setup(struct cg_tree *t, const char *want, char *why, size_t whylen, char *note,
             size_t notelen)
{
	struct statfs sfs;
	bool in_leaf = false;
	int dfd = -1;

	t->base_fd = t->jobs_fd = -1;
	t->memory = false;
	note[0] = 0;
	if (want && strcmp(want, "none") == 0) {
		snprintf(why, whylen, "disabled with --cgroup none");
		return -1;
	}
	if (want) {
		if (snprintf(t->base, sizeof t->base, "%s", want) >= (int)sizeof t->base) {
			snprintf(why, whylen, "--cgroup %s: the path is too long", want);
			return -1;
		}
	} else if (discover(t->base, sizeof t->base, &in_leaf, why, whylen) < 0) {
		return -1;
	}
	t->base_fd = open(t->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->base_fd < 0 || fstatfs(t->base_fd, &sfs) < 0 ||
	    (unsigned long)sfs.f_type != CGROUP2_SUPER_MAGIC) {
		snprintf(why, whylen, "%s: %s", t->base,
		         t->base_fd < 0 ? strerror(errno) : "not a cgroup2 directory");
		goto fail;
	}
	if ((dfd = own_dir(t->base_fd, "daemon", why, whylen, t->base)) < 0)
		goto fail;
	/* Into the leaf first: BASE must hold no process to hand controllers
	 * down. The supervisors the daemon forks stay there with it. */
	if (cg_join(dfd, getpid()) < 0) {
		snprintf(why, whylen, "cannot move the daemon into %s/daemon: %s", t->base,
		         strerror(errno));
		goto fail;
	}
	close(dfd);
	dfd = -1;
	if ((t->jobs_fd = own_dir(t->base_fd, "jobs", why, whylen, t->base)) < 0)
		goto fail;
	/* A controller enabled in BASE keeps any process out of BASE itself,
	 * and systemd (before DelegateSubgroup=, 254) starts the daemon again
	 * right there: a restart would fail while jobs run. So only a BASE
	 * named by --cgroup, or one the daemon started below, gets it. */
	if (want || in_leaf)
		t->memory = enable_memory(t, note, notelen);
	else
		snprintf(note, notelen, "the memory controller is left off in %s: systemd starts the "
		         "daemon again in that cgroup, which a controller there would forbid (give "
		         "the unit DelegateSubgroup=daemon, systemd 254 and later): peak memory comes "
		         "from the job's largest process (rusage)", t->base);
	return 0;
fail:
	if (dfd >= 0)
		close(dfd);
	cg_close(t);
	return -1;
}

void cg_close(struct cg_tree *t)
{
	if (t->jobs_fd >= 0)
		close(t->jobs_fd);
	if (t->base_fd >= 0)
		close(t->base_fd);
	t->base_fd = t->jobs_fd = -1;
}

int cg_job_create(const struct cg_tree *t, uint64_t id)
{
	char name[24];
	int fd;

	fmt_u64(name, id);
	/* Ids are never reused: one that exists is the empty cgroup of a
	 * start the daemon did not live to fork (the job was queued again).
	 * rmdir removes only an empty cgroup. */
	if (mkdirat(t->jobs_fd, name, 0700) < 0) {
		if (errno != EEXIST || cg_remove(t->jobs_fd, name) < 0 ||
		    mkdirat(t->jobs_fd, name, 0700) < 0)
			return -1;
	}
	fd = openat(t->jobs_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

int cg_job_kill_remove(const struct cg_tree *t, uint64_t id)
{
	char name[24], buf[8192];
	ssize_t len;
	int fd, n = 0;

	if (!cg_enabled(t))
		return 0;
	fmt_u64(name, id);
	if ((fd = openat(t->jobs_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return 0;
	/* How many there were, for the log: one pid a line. */
	if ((len = get_file(fd, "cgroup.procs", buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < len; i++)
			n += buf[i] == '\n';
	cg_signal(fd, SIGKILL);
	cg_drain(fd, 2000);
	close(fd);
	cg_remove(t->jobs_fd, name);
	return n;
}

unsigned cg_sweep(const struct cg_tree *t, bool (*keep)(uint64_t id, void *arg), void *arg)
{
	struct dirent *e;
	unsigned removed = 0;
	int fd;
	DIR *dir;

	if (!cg_enabled(t) || (fd = dup(t->jobs_fd)) < 0)
		return 0;
	if (!(dir = fdopendir(fd))) {
		close(fd);
		return 0;
	}
	while ((e = readdir(dir))) {
		char *end;
		unsigned long long id = strtoull(e->d_name, &end, 10);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end || keep(id, arg))
			continue;
		cg_job_kill_remove(t, id);
		removed++;
	}
	closedir(dir);
	return removed;
}
