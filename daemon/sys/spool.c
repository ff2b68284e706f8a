/* The spool's layout and the job directories; see spool.h. Every path is
 * opened relative to a directory descriptor the daemon holds, with
 * O_NOFOLLOW: no name in the spool is ever resolved through a link. */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "log.h"
#include "spool.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define TREE_DEPTH 16	/* deeper leftovers are left for the operator */
#define SCRIPT_MODE 0500	/* read and run, by its owner (root, or a user
				 * daemon's uid) alone; see script_acl */

/* A POSIX access ACL, as the kernel takes it in the system.posix_acl_access
 * extended attribute (linux/posix_acl_xattr.h; no libacl needed): a version,
 * then entries of tag, permissions and id, little-endian, sorted by tag. */
#define ACL_XATTR "system.posix_acl_access"
#define ACL_VERSION 2
enum { ACL_USER_OBJ = 0x01, ACL_USER = 0x02, ACL_GROUP_OBJ = 0x04, ACL_MASK = 0x10,
       ACL_OTHER = 0x20 };
#define ACL_NO_ID 0xffffffffu
#define ACL_RX 5		/* read and execute */

static uint8_t *acl_entry(uint8_t *p, uint16_t tag, uint16_t perm, uint32_t id)
{
	uint16_t t = htole16(tag), m = htole16(perm);
	uint32_t i = htole32(id);

	memcpy(p, &t, 2);
	memcpy(p + 2, &m, 2);
	memcpy(p + 4, &i, 4);
	return p + 8;
}

/* The spooled script of a root daemon is root's, read-only, and its ACL
 * gives the job's owner alone read and execute: the job runs it by its
 * path (so $0 is a real one), as its owner, and others cannot read it;
 * its owner cannot write, grow, truncate, chmod, rename or replace it
 * (only a file's owner may change its mode or ACL, and the directory is
 * root's), so the spool holds no more of a user's than the protocol let
 * through (PROTO_MAX_SCRIPT a job). The kernel sets the mode bits from the
 * ACL: 0550, the group bits standing for the mask; the file's group,
 * root, gets nothing (group::---). 0, or -1 with errno (EOPNOTSUPP: the
 * file system has no ACLs; see spool_open). */
static int script_acl(int fd, uid_t uid)
{
	uint8_t buf[4 + 5 * 8], *p = buf;
	uint32_t v = htole32(ACL_VERSION);

	memcpy(p, &v, 4);
	p += 4;
	p = acl_entry(p, ACL_USER_OBJ, ACL_RX, ACL_NO_ID);
	p = acl_entry(p, ACL_USER, ACL_RX, (uint32_t)uid);
	p = acl_entry(p, ACL_GROUP_OBJ, 0, ACL_NO_ID);
	p = acl_entry(p, ACL_MASK, ACL_RX, ACL_NO_ID);
	p = acl_entry(p, ACL_OTHER, 0, ACL_NO_ID);
	return fsetxattr(fd, ACL_XATTR, buf, (size_t)(p - buf), 0);
}

/* The script's permissions, on its descriptor: root's 0500 plus the
 * owner's ACL entry (a root daemon, a job of another uid), or 0500 alone
 * (root's own job; a user daemon, whose jobs run as itself). */
static int script_perms(const struct spool *sp, int fd, uid_t uid)
{
	if (sp->root && fchown(fd, 0, 0) < 0)
		return -1;
	if (fchmod(fd, SCRIPT_MODE) < 0)
		return -1;
	return sp->root && uid != 0 ? script_acl(fd, uid) : 0;
}

/* Can the spool's file system keep a script's ACL? A probe file, made and
 * removed at start: a root daemon that cannot give each job's owner, and
 * no one else, its root-owned script refuses to start rather than hand
 * the script over (which would let its owner grow it without bound and
 * fill the spool) or open it to a group or to everyone. 0, or -1 with
 * errno. */
static int probe_acl(int dfd)
{
	int fd, rc, e;

	unlinkat(dfd, "acl.probe", 0);
	fd = openat(dfd, "acl.probe", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0500);
	if (fd < 0)
		return -1;
	rc = script_acl(fd, 65534);
	e = errno;
	close(fd);
	unlinkat(dfd, "acl.probe", 0);
	errno = e;
	return rc;
}

/* Make a directory under parent (or use the one there) and give it exactly
 * `mode` and, for a root daemon, root as its owner: a directory left by an
 * older layout, or loosened by hand, is tightened. Returns its descriptor. */
static int ensure_dir(int parent, const char *name, mode_t mode, bool root)
{
	struct stat st;
	int fd;

	if (mkdirat(parent, name, 0700) < 0 && errno != EEXIST)
		return -1;
	if ((fd = openat(parent, name, DIR_FLAGS)) < 0 || fstat(fd, &st) < 0)
		goto fail;
	if (root && (st.st_uid != 0 || st.st_gid != 0) && fchown(fd, 0, 0) < 0)
		goto fail;
	if ((st.st_mode & 07777) != mode && fchmod(fd, mode) < 0)
		goto fail;
	return fd;
fail:
	if (fd >= 0) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return -1;
}

static void remember(struct spool *sp, int k, int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0) {
		sp->dev[k] = st.st_dev;
		sp->ino[k] = st.st_ino;
	}
}

/* Write all of buf; -1 on error. */
static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The token file "id" in a spool directory: 1 read into tok (hex digits,
 * NUL-terminated), 0 absent or not a token, -1 unreadable. */
static int read_token(int dfd, char tok[SPOOL_TOKEN_LEN + 1])
{
	char buf[SPOOL_TOKEN_LEN + 2];
	ssize_t n;
	int fd = openat(dfd, "id", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < SPOOL_TOKEN_LEN)
		return 0;
	memcpy(tok, buf, SPOOL_TOKEN_LEN);
	tok[SPOOL_TOKEN_LEN] = 0;
	return strspn(tok, "0123456789abcdef") == SPOOL_TOKEN_LEN;
}

/* Write the token as "id" in a spool directory, whole or not at all. */
static int write_token(int dfd, const char *tok)
{
	char line[SPOOL_TOKEN_LEN + 1];
	int fd;

	memcpy(line, tok, SPOOL_TOKEN_LEN);
	line[SPOOL_TOKEN_LEN] = '\n';
	unlinkat(dfd, "id.tmp", 0);
	fd = openat(dfd, "id.tmp", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, line, sizeof line) < 0 || fsync(fd) < 0 || close(fd) < 0 ||
	    renameat(dfd, "id.tmp", dfd, "id") < 0 || fsync(dfd) < 0)
		return -1;
	return 0;
}

/* The spool's token: read it, or make one (an unreadable one is replaced:
 * the spool then counts as new). */
static int load_token(struct spool *sp)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t raw[SPOOL_TOKEN_LEN / 2];
	int rc = read_token(sp->top_fd, sp->token);

	if (rc != 0)
		return rc > 0 ? 0 : -1;
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		return -1;
	for (size_t k = 0; k < sizeof raw; k++) {
		sp->token[2 * k] = hex[raw[k] >> 4];
		sp->token[2 * k + 1] = hex[raw[k] & 15];
	}
	sp->token[SPOOL_TOKEN_LEN] = 0;
	return write_token(sp->top_fd, sp->token);
}

/* The token's copy in status/: missing or different means the status
 * directory is not the one the records were written to. Then it is
 * written, so the next start sees the directory as this one. */
static int status_token(struct spool *sp)
{
	char tok[SPOOL_TOKEN_LEN + 1];
	int rc = read_token(sp->status_fd, tok);

	if (rc < 0)
		return -1;
	if (rc == 1 && strcmp(tok, sp->token) == 0)
		return 0;
	sp->status_new = true;
	return write_token(sp->status_fd, sp->token);
}

int spool_open(struct spool *sp, const char *dir, bool root, char *err, size_t errlen)
{
	const char *what = dir;

	memset(sp, 0, sizeof *sp);
	sp->top_fd = sp->status_fd = sp->jobs_fd = -1;
	sp->root = root;
	snprintf(sp->dir, sizeof sp->dir, "%s", dir);
	snprintf(sp->status_dir, sizeof sp->status_dir, "%s/status", dir);
	snprintf(sp->jobs_dir, sizeof sp->jobs_dir, "%s/jobs", dir);
	if ((sp->top_fd = ensure_dir(AT_FDCWD, dir, 0711, root)) < 0)
		goto fail;
	what = sp->status_dir;
	if ((sp->status_fd = ensure_dir(sp->top_fd, "status", 0700, root)) < 0)
		goto fail;
	what = sp->jobs_dir;
	if ((sp->jobs_fd = ensure_dir(sp->top_fd, "jobs", 0711, root)) < 0)
		goto fail;
	remember(sp, 0, sp->top_fd);
	remember(sp, 1, sp->status_fd);
	remember(sp, 2, sp->jobs_fd);
	what = "its token";
	if (load_token(sp) < 0 || status_token(sp) < 0)
		goto fail;
	what = "an access ACL on a job's script";
	if (root && probe_acl(sp->jobs_fd) < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "the spool %s: %s: %s%s", dir, what,
	         errno == ELOOP ? "a symbolic link (refused)" : strerror(errno),
	         errno == EOPNOTSUPP ? " (a root daemon keeps each job's script root's, readable "
	         "by the job's owner alone through a POSIX ACL: put the spool on a file system "
	         "with ACLs, or mount it with them)" : "");
	spool_close(sp);
	return -1;
}

void spool_close(struct spool *sp)
{
	int *fds[] = { &sp->top_fd, &sp->status_fd, &sp->jobs_fd };

	for (size_t k = 0; k < 3; k++) {
		if (*fds[k] >= 0)
			close(*fds[k]);
		*fds[k] = -1;
	}
}

bool spool_intact(struct spool *sp)
{
	const char *paths[3] = { sp->dir, sp->status_dir, sp->jobs_dir };
	const int fds[3] = { sp->top_fd, sp->status_fd, sp->jobs_fd };
	struct stat st;

	for (int k = 0; k < 3 && !sp->gone; k++) {
		/* Removed (no links left), or something else under its name. */
		if (fstat(fds[k], &st) < 0 || st.st_nlink == 0 ||
		    lstat(paths[k], &st) < 0 || st.st_dev != sp->dev[k] || st.st_ino != sp->ino[k])
			sp->gone = true;
	}
	return !sp->gone;
}

int spool_job_create(struct spool *sp, uint64_t id, uid_t uid, const uint8_t *script, size_t len,
                     char *err, size_t errlen)
{
	char name[24];
	int dfd = -1, fd = -1, e;

	snprintf(name, sizeof name, "%" PRIu64, id);
	if (mkdirat(sp->jobs_fd, name, 0700) < 0) {
		if (errno == EEXIST)
			snprintf(err, errlen, "job %" PRIu64 ": %s/%s exists already; it is never reused "
			         "(a restart sweeps what an unacknowledged submission left)", id,
			         sp->jobs_dir, name);
		else
			snprintf(err, errlen, "cannot spool the script in %s/%s: %s", sp->jobs_dir, name,
			         strerror(errno));
		return -1;
	}
	/* Written, then made read-only and given to its owner to read and run
	 * (script_perms): the owner never holds it writable. Made durable
	 * later, with the batch it joins (spool_jobs_sync). */
	if ((dfd = openat(sp->jobs_fd, name, DIR_FLAGS)) < 0 ||
	    (fd = openat(dfd, "script", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	                 SCRIPT_MODE)) < 0 ||
	    write_all(fd, script, len) < 0 || script_perms(sp, fd, uid) < 0 || close(fd) < 0 ||
	    (fd = -1, fchmod(dfd, 0711) < 0))
		goto fail;
	close(dfd);
	return 0;
fail:
	e = errno;
	snprintf(err, errlen, "cannot spool the script in %s/%s: %s", sp->jobs_dir, name, strerror(e));
	if (fd >= 0)
		close(fd);
	if (dfd >= 0) {
		unlinkat(dfd, "script", 0);
		close(dfd);
	}
	unlinkat(sp->jobs_fd, name, AT_REMOVEDIR);
	return -1;
}

/* One job's script and its directory entries, synced; 0 or an errno. */
static int sync_job(int jobs_fd, uint64_t id)
{
	char name[24];
	int dfd, fd, e = 0;

	snprintf(name, sizeof name, "%" PRIu64, id);
	if ((dfd = openat(jobs_fd, name, DIR_FLAGS)) < 0)
		return errno;
	if ((fd = openat(dfd, "script", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0 ||
	    fsync(fd) < 0 || fsync(dfd) < 0)
		e = errno;
	if (fd >= 0)
		close(fd);
	close(dfd);
	return e;
}

int spool_jobs_sync(int jobs_fd, const uint64_t *ids, size_t n)
{
	int e = 0;

	for (size_t k = 0; k < n && !e; k++)
		e = sync_job(jobs_fd, ids[k]);
	if (!e && fsync(jobs_fd) < 0)
		e = errno;
	return e;
}

bool spool_job_take_script(struct spool *sp, uint64_t id, uid_t uid)
{
	char path[48];
	struct stat st;
	int fd;
	bool ok;

	/* Already root's (made so, or the job is root's): nothing to take. */
	snprintf(path, sizeof path, "%" PRIu64 "/script", id);
	if (!sp->root || fstatat(sp->jobs_fd, path, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_uid == 0)
		return true;
	/* The owner's (an older version handed it over). Only a plain file
	 * of the job's owner with no other name is taken back: a hard link
	 * made to someone else's file while the directory was the owner's
	 * must not become root's. (O_NONBLOCK: nothing here can be a FIFO,
	 * but an open must never wait.) */
	fd = openat(sp->jobs_fd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == uid && st.st_nlink == 1 &&
	     script_perms(sp, fd, uid) == 0;
	close(fd);
	if (!ok)
		log_warnx("%s/%s: an older version's script (its owner's) could not be taken "
		          "back; it stays as it is", sp->jobs_dir, path);
	return ok;
}

bool spool_job_has_script(struct spool *sp, uint64_t id)
{
	char path[48];
	struct stat st;

	snprintf(path, sizeof path, "%" PRIu64 "/script", id);
	return fstatat(sp->jobs_fd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* A stream over a held directory, from its start, that leaves dfd open
 * (closedir closes the duplicate; the two share the read position). */
static DIR *dir_stream(int dfd)
{
	int dup_fd = dup(dfd);
	DIR *dir;

	if (dup_fd < 0)
		return NULL;
	if (lseek(dup_fd, 0, SEEK_SET) < 0 || !(dir = fdopendir(dup_fd))) {
		close(dup_fd);
		return NULL;
	}
	return dir;
}

/* Remove everything in the directory dfd, never following a link. A
 * directory met on the way is made root's and private first, so its old
 * owner (a layout where job directories were the users') cannot add to
 * it meanwhile. */
static void remove_tree(struct spool *sp, int dfd, int depth)
{
	DIR *dir = dir_stream(dfd);
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		int sub;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dfd, e->d_name, 0) == 0 || (errno != EISDIR && errno != EPERM) ||
		    depth >= TREE_DEPTH)
			continue;
		if ((sub = openat(dfd, e->d_name, DIR_FLAGS)) < 0)
			continue;
		if (!sp->root || fchown(sub, 0, 0) == 0)
			fchmod(sub, 0700);
		remove_tree(sp, sub, depth + 1);
		close(sub);
		unlinkat(dfd, e->d_name, AT_REMOVEDIR);
	}
	closedir(dir);
}

void spool_job_remove(struct spool *sp, uint64_t id)
{
	char name[24];
	int dfd;

	snprintf(name, sizeof name, "%" PRIu64, id);
	if ((dfd = openat(sp->jobs_fd, name, DIR_FLAGS)) < 0) {
		if (errno == ENOTDIR || errno == ELOOP)
			unlinkat(sp->jobs_fd, name, 0);	/* not a directory: just the name */
		return;
	}
	if (!sp->root || fchown(dfd, 0, 0) == 0)
		fchmod(dfd, 0700);
	remove_tree(sp, dfd, 0);
	close(dfd);
	if (unlinkat(sp->jobs_fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		log_warn("removing %s/%s", sp->jobs_dir, name);
}

/* A job id from a spool name: "123" or, with a suffix allowed, "123.sup". */
static bool name_id(const char *name, bool suffix, uint64_t *id)
{
	char *end;

	if (name[0] < '1' || name[0] > '9')
		return false;
	errno = 0;
	*id = strtoull(name, &end, 10);
	return errno == 0 && (*end == 0 || (suffix && *end == '.'));
}

/* Visit the names in one of the spool's directories. */
static void each_name(int dfd, void (*fn)(const char *name, void *arg), void *arg)
{
	DIR *dir = dir_stream(dfd);
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.')
			fn(e->d_name, arg);
	closedir(dir);
}

static void note_max(const char *name, void *arg)
{
	uint64_t id, *max = arg;

	if (name_id(name, false, &id) && id > *max)
		*max = id;
}

uint64_t spool_max_id(struct spool *sp)
{
	uint64_t max = 0;

	each_name(sp->jobs_fd, note_max, &max);
	return max;
}

struct sweep {
	struct spool *sp;
	bool (*keep)(uint64_t id, void *arg);
	void *arg;
	unsigned removed;
};

static void sweep_job(const char *name, void *arg)
{
	struct sweep *w = arg;
	struct stat st;
	uint64_t id;
	int dfd;

	if (!name_id(name, false, &id)) {
		log_warnx("%s/%s: not a job's directory; left alone", w->sp->jobs_dir, name);
		return;
	}
	if (!w->keep(id, w->arg)) {
		spool_job_remove(w->sp, id);
		w->removed++;
		return;
	}
	/* A live job's directory from an older layout (the owner's): root's
	 * from now on, so its owner cannot plant anything in it. One stat
	 * tells the usual case (already right) at a restart with many jobs. */
	if (fstatat(w->sp->jobs_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	    (!w->sp->root || (st.st_uid == 0 && st.st_gid == 0)) && (st.st_mode & 07777) == 0711)
		return;
	if ((dfd = openat(w->sp->jobs_fd, name, DIR_FLAGS)) >= 0) {
		if (w->sp->root)
			fchown(dfd, 0, 0);
		fchmod(dfd, 0711);
		close(dfd);
	}
}

static void sweep_record(const char *name, void *arg)
{
	struct sweep *w = arg;
	uint64_t id;

	if (name_id(name, true, &id) && !w->keep(id, w->arg))
		unlinkat(w->sp->status_fd, name, 0);
}

unsigned spool_sweep(struct spool *sp, bool (*keep)(uint64_t id, void *arg), void *arg)
{
	struct sweep w = { sp, keep, arg, 0 };

	each_name(sp->jobs_fd, sweep_job, &w);
	each_name(sp->status_fd, sweep_record, &w);
	return w.removed;
}
