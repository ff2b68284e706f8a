/* The journal backend of log.c. A service whose standard error systemd
 * connects to the journal gets JOURNAL_STREAM=DEVICE:INODE naming that
 * stream; when it names this process's stderr, lines go to the journal
 * directly (sd_journal_sendv) with their priority and structured fields
 * instead of as plain text on the stream. Anything else (a terminal, a
 * file, a redirected stderr in a unit that set JOURNAL_STREAM for another
 * descriptor) keeps stderr. */
#ifndef BF_JOURNAL_H
#define BF_JOURNAL_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Does JOURNAL_STREAM's value ("DEV:INO", both decimal) name this device
 * and inode? Anything malformed is false. */
bool journal_stream_matches(const char *env, dev_t dev, ino_t ino);
/* Is fd 2 the stream $JOURNAL_STREAM names? */
bool journal_is_stderr(void);
/* Should log.c use the journal: stderr is its stream and its socket is
 * there? (Without the socket sd_journal_send drops entries silently.) */
bool journal_wanted(void);

/* One entry's fields: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER=backfilld and,
 * for a line about a job, JOB_ID and JOB_USER (user may be NULL). Each
 * field is bounded: a message or user name longer than its buffer is cut.
 * The text is sent as given: log.c hands it over escaped (log_escape), so
 * MESSAGE and JOB_USER hold no control character a user put there.
 *
 * extra (may be NULL): more fields the daemon itself wrote, "KEY=value"
 * separated by newlines, at most JOURNAL_EXTRA of them (the rest are left
 * out). They keep what MESSAGE says in words exactly, for a script: a
 * line gives a time as a person reads it, its field the microseconds. */
#define JOURNAL_EXTRA 3
#define JOURNAL_FIELDS (5 + JOURNAL_EXTRA)
struct journal_entry {
	char message[1100], priority[16], job_id[32], job_user[300], extra[200];
	struct iovec iov[JOURNAL_FIELDS];
	int n;
};
void journal_fields(struct journal_entry *e, int priority, const char *msg, bool has_job,
                    uint64_t job, const char *user, const char *extra);
/* Send one entry: 0, or -1 (no journal there: the caller writes stderr). */
int  journal_send(int priority, const char *msg, bool has_job, uint64_t job, const char *user,
                  const char *extra);

#endif
