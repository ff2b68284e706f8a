/* The spool: what the daemon keeps on disk beside the database.
 *
 *   SPOOL/          root's, 0711: traversable (a job reaches its own files
 *                   by path), not listable, writable by root alone
 *   SPOOL/id        a random token; the database remembers it, so a spool
 *                   that was removed or replaced is recognised at start
 *   SPOOL/status/   root's, 0700: the supervisors' records (ID.sup, ID.start,
 *                   ID.status), and a copy of the token (status/id): a
 *                   status directory removed and made again is recognised
 *   SPOOL/jobs/     root's, 0711
 *   SPOOL/jobs/ID/  root's, 0711: the job's owner cannot create, rename or
 *                   remove anything in it
 *     script        root's, read-only (0500), written by the daemon at
 *                   submission; a root daemon's gives the job's owner
 *                   alone read and execute through a POSIX ACL (0550+)
 *     hostfile      root's, 0644, written by the supervisor at the start
 *
 * The rule that makes this safe for a root daemon: root never opens a path
 * that a user can influence. Every directory on the way is root's and not
 * writable by anyone else, every file is created with O_EXCL|O_NOFOLLOW in
 * such a directory, and no file there is ever the user's: the owner can
 * read and run its script but not write, grow, truncate, chmod, rename or
 * replace it, so what the spool holds of a user's is bounded by what the
 * protocol takes (PROTO_MAX_SCRIPT a job). A script an older version
 * handed to its owner (the owner's, 0700) is taken back at start
 * (spool_job_take_script).
 * A job directory that already exists is refused, never adopted; what an
 * unacknowledged submission left behind is swept at the next start. */
#ifndef BF_SPOOL_H
#define BF_SPOOL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SPOOL_TOKEN_LEN 32	/* hex digits */

struct spool {
	char dir[512], status_dir[600], jobs_dir[600];
	int top_fd, status_fd, jobs_fd;	/* the directories, held open */
	dev_t dev[3];
	ino_t ino[3];			/* top, status, jobs: what "intact" means */
	char token[SPOOL_TOKEN_LEN + 1];
	bool status_new;		/* status/ lacked the token: made anew (or
					 * by an older version) */
	bool root;			/* chown to owners; tighten what is there */
	bool gone;			/* found removed or replaced: no new work */
};

/* Make (or tighten) the layout above and read or create the token. A root
 * daemon's spool must take POSIX ACLs (a probe): without them it is
 * refused. 0, or -1 with the reason in err. */
int  spool_open(struct spool *sp, const char *dir, bool root, char *err, size_t errlen);
void spool_close(struct spool *sp);
/* Is the spool still the one opened (not removed, renamed or replaced)?
 * Once it is not, it stays gone for this daemon's life. */
bool spool_intact(struct spool *sp);

/* A new job's directory and script (root's, readable and executable by
 * the job's owner `uid` alone). An existing directory is refused. Not yet
 * durable: see spool_jobs_sync. 0, or -1 with the reason in err. */
int  spool_job_create(struct spool *sp, uint64_t id, uid_t uid, const uint8_t *script, size_t len,
                      char *err, size_t errlen);
/* Make new jobs durable: each one's script and directory synced, then the
 * jobs directory (jobs_fd, spool.jobs_fd) that names them. Per job, not
 * the whole file system: what other users write there is not waited for.
 * Safe on another thread (it touches nothing but jobs_fd). 0, or the
 * errno of the first failure. */
int  spool_jobs_sync(int jobs_fd, const uint64_t *ids, size_t n);
/* At start, for a live job of `uid`: a script an older version made (the
 * owner's, writable) becomes root's, read-only, with the owner's ACL; one
 * already root's is left as it is. False if an old one could not be
 * taken back (logged; the job still runs it). */
bool spool_job_take_script(struct spool *sp, uint64_t id, uid_t uid);
/* Does the job's script exist? (A queued job without one can never run.) */
bool spool_job_has_script(struct spool *sp, uint64_t id);
/* Remove a job's directory and what is in it (no link is followed). */
void spool_job_remove(struct spool *sp, uint64_t id);

/* The highest job id that has a directory in the spool (0 if none): an id
 * handed out but never committed still has one, so ids above it are safe
 * to hand out again. */
uint64_t spool_max_id(struct spool *sp);
/* Remove every job directory and status record whose id `keep` says no
 * to (leftovers of submissions never acknowledged, of ended jobs). Returns
 * how many job directories were removed. */
unsigned spool_sweep(struct spool *sp, bool (*keep)(uint64_t id, void *arg), void *arg);

#endif
