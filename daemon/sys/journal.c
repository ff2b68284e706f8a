/* The journal backend of log.c: see journal.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
/* No CODE_FILE=, CODE_LINE=: they would always name journal_send. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#include <unistd.h>
#include "journal.h"

/* Where sd_journal_send writes (fixed in libsystemd). */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

/* A whole decimal number up to `end` (':' or the string's end), nothing
 * else: strtoull alone would take blanks, a sign and an overflow. */
static bool parse_dec(const char *s, char stop, unsigned long long *out, const char **next)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || *end != stop)
		return false;
	*next = end;
	return true;
}

bool journal_stream_matches(const char *env, dev_t dev, ino_t ino)
{
	unsigned long long d, i;
	const char *p;

	if (!env || !parse_dec(env, ':', &d, &p) || !parse_dec(p + 1, '\0', &i, &p))
		return false;
	return d == (unsigned long long)dev && i == (unsigned long long)ino;
}

bool journal_is_stderr(void)
{
	struct stat st;

	return fstat(2, &st) == 0 && journal_stream_matches(getenv("JOURNAL_STREAM"), st.st_dev,
	                                                    st.st_ino);
}

bool journal_wanted(void)
{
	return journal_is_stderr() && access(JOURNAL_SOCKET, F_OK) == 0;
}

static void field(struct journal_entry *e, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void field(struct journal_entry *e, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	e->iov[e->n].iov_base = buf;
	e->iov[e->n].iov_len = w < 0 ? 0 : (size_t)w < len ? (size_t)w : len - 1;
	e->n++;
}

/* Each "KEY=value" line of extra as one field, pointing into e->extra. */
static void extra_fields(struct journal_entry *e, const char *extra)
{
	int last = e->n + JOURNAL_EXTRA;
	size_t len;
	char *p;

	snprintf(e->extra, sizeof e->extra, "%s", extra);
	for (p = e->extra; *p && e->n < last; p += len + (p[len] == '\n')) {
		len = strcspn(p, "\n");
		if (len == 0)
			continue;
		e->iov[e->n].iov_base = p;
		e->iov[e->n].iov_len = len;
		e->n++;
	}
}

void journal_fields(struct journal_entry *e, int priority, const char *msg, bool has_job,
                    uint64_t job, const char *user, const char *extra)
{
	static char ident[] = "SYSLOG_IDENTIFIER=backfilld";

	e->n = 0;
	field(e, e->message, sizeof e->message, "MESSAGE=%s", msg);
	field(e, e->priority, sizeof e->priority, "PRIORITY=%d", priority & 7);
	e->iov[e->n].iov_base = ident;
	e->iov[e->n].iov_len = sizeof ident - 1;
	e->n++;
	if (has_job)
		field(e, e->job_id, sizeof e->job_id, "JOB_ID=%" PRIu64, job);
	if (has_job && user)
		field(e, e->job_user, sizeof e->job_user, "JOB_USER=%s", user);
	if (extra)
		extra_fields(e, extra);
}

int journal_send(int priority, const char *msg, bool has_job, uint64_t job, const char *user,
                 const char *extra)
{
	struct journal_entry e;

	journal_fields(&e, priority, msg, has_job, job, user, extra);
	return sd_journal_sendv(e.iov, e.n) < 0 ? -1 : 0;
}
