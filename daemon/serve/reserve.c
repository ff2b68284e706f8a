/* The disk reserve; see reserve.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <event2/event.h>
#include "sys/failpoint.h"
#include "sys/log.h"
#include "daemon.h"
#include "reserve.h"

/* Allocate the reserve in fd: 0, or -1 (errno). posix_fallocate would
 * write zeros where the file system cannot allocate; fallocate(2) either
 * reserves the blocks or says it cannot. */
static int take(int fd)
{
	return fallocate(fd, 0, 0, RESERVE_BYTES);
}

static int open_reserve(int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;

	/* (In the operator's directory or the spool's root, which only root
	 * writes; a symbolic link is refused by O_NOFOLLOW, and here anything
	 * but a plain file of ours with one name: a hard link planted there
	 * would be truncated.) */
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	                st.st_uid != geteuid() || fchmod(fd, 0600) < 0)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* (Asked of the paths themselves, so that a daemon without a reserve
 * file still knows.) */
bool reserve_free(const struct daemon *d, int k, bool root, unsigned long long *bytes)
{
	struct statvfs v;

	if ((k == 0 ? statvfs(d->o.db, &v) : fstatvfs(d->spool.top_fd, &v)) < 0)
		return false;
	*bytes = (unsigned long long)(root ? v.f_bfree : v.f_bavail) * v.f_frsize;
	return true;
}

/* Room held past the end of the database and of its write-ahead log
 * (fallocate with FALLOC_FL_KEEP_SIZE: the blocks are the file's, its size
 * unchanged), so that SQLite's next writes land in blocks the daemon has
 * already: whatever fills the file system meanwhile, and however fast,
 * cannot take them. Topped up at every look while there is room; SQLite
 * never shortens either file while it runs (no VACUUM, PASSIVE
 * checkpoints), so the room stays until it is written into. */
static void hold_tail(const char *db, const char *suffix)
{
	char path[4200];
	struct stat st;
	int fd;

	snprintf(path, sizeof path, "%s%s", db, suffix);
	if ((fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		fallocate(fd, FALLOC_FL_KEEP_SIZE, st.st_size, TAIL_BYTES);	/* (or as before) */
	close(fd);
}

static void hold_tails(const struct daemon *d)
{
	if (failpoint_num(FP_NO_TAILS))
		return;
	hold_tail(d->o.db, "");
	hold_tail(d->o.db, "-wal");
}

static void give_back(struct daemon *d)
{
	for (int k = 0; k < 2; k++)
		if (d->reserve_fd[k] >= 0)
			ftruncate(d->reserve_fd[k], 0);
}

void reserve_release(struct daemon *d, const char *why)
{
	bool was = d->disk_full;

	give_back(d);
	d->disk_full = true;
	if (!was)
		log_err("the disk is full (%s): the reserve is given back to the daemon's own "
		        "writes, and no job is submitted until space is freed; running jobs go on",
		        why);
}

/* Every 2 s: give the reserve back when the disk is nearly full; take it
 * again, and submissions, once there is room for both. */
static void watch_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	unsigned long long room;
	char why[128];

	(void)fd;
	(void)what;
	hold_tails(d);
	for (int k = 0; k < 2 && !d->disk_full; k++) {
		if (reserve_free(d, k, true, &room) && room < RESERVE_LOW) {
			snprintf(why, sizeof why, "%llu KiB left for root on the %s's file system",
			         room >> 10, k == 0 ? "store" : "spool");
			reserve_release(d, why);
		}
	}
	if (d->disk_full) {
		bool roomy = true;

		for (int k = 0; k < 2; k++)
			if (!reserve_free(d, k, false, &room) ||
			    room < (unsigned long long)RESERVE_BYTES + d->o.lim.min_free_disk)
				roomy = false;
		if (roomy) {
			for (int k = 0; k < 2; k++)
				if (d->reserve_fd[k] >= 0 && take(d->reserve_fd[k]) < 0)
					roomy = false;
			if (roomy) {
				d->disk_full = false;
				log_info("space is free again: the disk reserve is back and submissions "
				         "are taken");
				d->hooks.space_back(d);
			} else {
				give_back(d);
			}
		}
	}
}

void reserve_open(struct daemon *d)
{
	struct timeval every = { failpoint_or(FP_RESERVE_WATCH_S, 2), 0 };
	char path[4200];
	struct stat db, sp;

	d->reserve_fd[0] = d->reserve_fd[1] = -1;
	snprintf(path, sizeof path, "%s.reserve", d->o.db);
	d->reserve_fd[0] = open_reserve(AT_FDCWD, path);
	/* The spool needs one of its own only on another file system. */
	if (stat(d->o.db, &db) < 0 || fstat(d->spool.top_fd, &sp) < 0 || db.st_dev != sp.st_dev)
		d->reserve_fd[1] = open_reserve(d->spool.top_fd, "reserve");
	for (int k = 0; k < 2; k++) {
		if (d->reserve_fd[k] >= 0 && take(d->reserve_fd[k]) < 0) {
			log_warn("no disk reserve on the %s's file system: a full disk there may stop "
			         "the daemon", k == 0 ? "store" : "spool");
			close(d->reserve_fd[k]);
			d->reserve_fd[k] = -1;
		}
	}
	hold_tails(d);
	if ((d->reserve_ev = event_new(d->base, -1, EV_PERSIST, watch_cb, d)))
		event_add(d->reserve_ev, &every);
}

void reserve_close(struct daemon *d)
{
	if (d->reserve_ev)
		event_free(d->reserve_ev);
	d->reserve_ev = NULL;
	for (int k = 0; k < 2; k++)
		if (d->reserve_fd[k] >= 0)
			close(d->reserve_fd[k]);
	d->reserve_fd[0] = d->reserve_fd[1] = -1;
}

int reserve_refuse(const struct daemon *d, char *err, size_t errlen)
{
	if (!d->disk_full)
		return 0;
	snprintf(err, errlen, "the daemon's disk is full: it takes no new job until space is "
	         "freed on the file systems of %s and %s (its running jobs go on)", d->o.db,
	         d->spool.dir);
	return -1;
}
