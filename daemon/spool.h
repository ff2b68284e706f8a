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
 *     script        the owner's, 0700, written by the daemon at submission
 *     hostfile      root's, 0644, written by the supervisor at the start
 *
 * The rule that makes this safe for a root daemon: root never opens a path
 * that a user can influence. Every directory on the way is root's and not
 * writable by anyone else, every file is created with O_EXCL|O_NOFOLLOW in
 * such a directory, and the one file the owner gets (the script) is handed
 * over with fchown on the open descriptor and never opened by root again.
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

/* Make (or tighten) the layout above and read or create the token. 0, or
 * -1 with the reason in err. */
int  spool_open(struct spool *sp, const char *dir, bool root, char *err, size_t errlen);
void spool_close(struct spool *sp);
/* Is the spool still the one opened (not removed, renamed or replaced)?
 * Once it is not, it stays gone for this daemon's life. */
bool spool_intact(struct spool *sp);

/* A new job's directory and script (the owner's, 0700). An existing
 * directory is refused. 0, or -1 with the reason in err. */
int  spool_job_create(struct spool *sp, uint64_t id, uid_t uid, gid_t gid, const uint8_t *script,
                      size_t len, char *err, size_t errlen);
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
