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
	char msg[1100];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!use_journal || journal_send(LOG_ERR, msg, false, 0, NULL) < 0)
		fprintf(stderr, "backfilld: %s\n", msg);
}

/* stderr has no priorities: the line says its own, as the clients do. */
static const char *level_word(int pri)
{
	return pri <= LOG_ERR ? "error: " : pri <= LOG_WARNING ? "warning: " :
	       pri >= LOG_DEBUG ? "debug: " : "";
}

/* One finished line to wherever the log goes. A line the journal refuses
 * (its socket's buffer full) goes through stderr, its stream, instead. */
static void emit(int pri, const char *line, bool has_job, uint64_t job, const char *user)
{
	if (use_journal && journal_send(pri, line, has_job, job, user) == 0)
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
	emit(pri, line, false, 0, NULL);
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

void log_job(int priority, uint64_t job, const char *user, const char *fmt, ...)
{
	char msg[1024], line[1100];
	va_list ap;

	if (priority > max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(line, sizeof line, "job %" PRIu64 ": %s", job, msg);
	emit(priority, line, true, job, user);	/* the user: a journal field only */
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
