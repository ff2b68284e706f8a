/* The daemon's log (see log.h): one line per event, escaped, to stderr
 * (the journal's fields when systemd reads it) or to syslog. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include "journal.h"
#include "log.h"

/* The process's logging: where (made once at start-up) and how much
 * (log_level, which a reload may change). The journal is used when
 * systemd connected stderr to it (see journal.h), syslog when detached. */
static bool use_syslog, use_journal;
static int max_level = LOG_INFO;

void log_set_level(int max_priority)
{
	max_level = max_priority;
}

void log_init(bool to_syslog)
{
	use_syslog = to_syslog;
	use_journal = !to_syslog && journal_wanted();
	if (to_syslog)
		openlog("backfilld", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

bool log_to_journal(void)
{
	return use_journal;
}

void log_start_error(const char *fmt, ...)
{
	char msg[1100], line[4 * sizeof msg + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	log_escape(msg, line, sizeof line);	/* a path from the command line, say */
	if (!use_journal || journal_send(LOG_ERR, line, false, 0, NULL, NULL) < 0)
		fprintf(stderr, "backfilld: %s\n", line);
}

/* ---- escaping ---- */

/* The code point of the valid UTF-8 sequence at p (NUL-terminated) and
 * its length (2 to 4), or 0 if the bytes there are not one (overlong,
 * a surrogate, past U+10FFFF, cut short). p[0] >= 0x80. */
static size_t utf8_decode(const unsigned char *p, uint32_t *cp)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2, *cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, *cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, *cp = c & 0x07;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;		/* no overlong forms */
	else if (c == 0xed)
		hi = 0x9f;		/* no surrogates */
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;		/* nothing past U+10FFFF */
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t k = 1; k < n; k++) {
		if (p[k] < 0x80 || p[k] > 0xbf)
			return 0;	/* also a NUL: the sequence is cut */
		*cp = *cp << 6 | (p[k] & 0x3f);
	}
	return n;
}

/* Characters that change what a line looks like without being seen: C1
 * controls (U+009B is a CSI to a terminal that takes 8-bit controls),
 * the bidirectional marks, embeddings, overrides and isolates, and the
 * line and paragraph separators. */
static bool invisible(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t log_escape(const char *in, char *out, size_t outlen)
{
	const unsigned char *p = (const unsigned char *)(in ? in : "");
	size_t len = 0;

	if (outlen == 0)
		return 0;
	while (*p) {
		char esc[8];
		const char *piece = esc;
		size_t n = 1, w;
		uint32_t cp;

		if (*p >= 0x20 && *p < 0x7f && *p != '\\') {
			piece = (const char *)p;
			w = 1;
		} else if (*p == '\\' || *p == '\n' || *p == '\r' || *p == '\t' || *p == 0x1b) {
			esc[0] = '\\';
			esc[1] = *p == '\\' ? '\\' : *p == '\n' ? 'n' : *p == '\r' ? 'r' :
			         *p == '\t' ? 't' : 'e';
			w = 2;
		} else if (*p < 0x80 || !(n = utf8_decode(p, &cp))) {
			n = 1;
			w = (size_t)snprintf(esc, sizeof esc, "\\x%02x", *p);
		} else if (invisible(cp)) {
			w = (size_t)snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
		} else {
			piece = (const char *)p;
			w = n;
		}
		if (len + w >= outlen)
			break;		/* cut whole: never half an escape or a character */
		memcpy(out + len, piece, w);
		len += w;
		p += n;
	}
	out[len] = 0;
	return len;
}

/* stderr has no priorities: the line says its own, as the clients do. */
static const char *level_word(int pri)
{
	return pri <= LOG_ERR ? "error: " : pri <= LOG_WARNING ? "warning: " :
	       pri >= LOG_DEBUG ? "debug: " : "";
}

/* One finished line to wherever the log goes, escaped here, in the one
 * place every line passes (log_escape). A line the journal refuses (its
 * socket's buffer full) goes through stderr, its stream, instead. */
static void emit(int pri, const char *raw, bool has_job, uint64_t job, const char *raw_user,
                 const char *extra)
{
	char line[4 * 1100 + 1], user[4 * 300 + 1];

	log_escape(raw, line, sizeof line);
	if (raw_user)
		log_escape(raw_user, user, sizeof user);
	if (use_journal && journal_send(pri, line, has_job, job, raw_user ? user : NULL, extra) == 0)
		return;
	if (use_syslog)
		syslog(pri, "%s", line);
	else
		fprintf(stderr, "backfilld: %s%s\n", level_word(pri), line);
}

static void vlog(int pri, const char *fmt, va_list ap, const char *suffix)
{
	char msg[1024], line[1100];

	if (pri > max_level)
		return;
	vsnprintf(msg, sizeof msg, fmt, ap);
	snprintf(line, sizeof line, "%s%s%s", msg, suffix ? ": " : "", suffix ? suffix : "");
	emit(pri, line, false, 0, NULL, NULL);
}

void log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, fmt, ap, NULL);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap, NULL);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_DEBUG, fmt, ap, NULL);
	va_end(ap);
}

bool log_debugging(void)
{
	return max_level >= LOG_DEBUG;
}

void log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, fmt, ap, NULL);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	const char *e = strerror(errno);
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, fmt, ap, e);
	va_end(ap);
}

static void vlog_job(int priority, uint64_t job, const char *user, const char *fields,
                     const char *fmt, va_list ap)
{
	char msg[1024], line[1100];

	if (priority > max_level)
		return;
	vsnprintf(msg, sizeof msg, fmt, ap);
	snprintf(line, sizeof line, "job %" PRIu64 ": %s", job, msg);
	emit(priority, line, true, job, user, fields);	/* the user: a journal field only */
}

void log_job(int priority, uint64_t job, const char *user, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_job(priority, job, user, NULL, fmt, ap);
	va_end(ap);
}

void log_job_fields(int priority, uint64_t job, const char *user, const char *fields,
                    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_job(priority, job, user, fields, fmt, ap);
	va_end(ap);
}

/* ---- rate-limited lines ---- */

bool log_rate_allow(struct log_rate *r, bf_time now)
{
	if (!r->started || now - r->start >= r->window) {
		log_rate_flush(r, now);
		r->start = now;
		r->lines = 0;
		r->started = true;
	}
	if (r->lines < r->burst) {
		r->lines++;
		return true;
	}
	r->suppressed++;
	return false;
}

bf_time log_rate_due(const struct log_rate *r)
{
	return r->suppressed ? r->start + r->window : BF_NEVER;
}

void log_rate_flush(struct log_rate *r, bf_time now)
{
	if (now - r->start >= r->window)
		log_rate_end(r, now);
}

void log_rate_end(struct log_rate *r, bf_time now)
{
	if (!r->suppressed)
		return;
	log_info("%lu more %s in the last %lld s were not logged one by one", r->suppressed,
	         r->what, (long long)((now - r->start) / BF_SEC));
	r->suppressed = 0;
	/* The summary opens a new window: the next lines are logged again. */
	r->start = now;
	r->lines = 0;
}

void log_rate_info(struct log_rate *r, bf_time now, const char *fmt, ...)
{
	va_list ap;

	if (!log_rate_allow(r, now))
		return;
	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap, NULL);
	va_end(ap);
}
