#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include "log.h"

/* The one setting of the process's logging, made once at start-up. */
static bool use_syslog;

void log_init(bool to_syslog)
{
	use_syslog = to_syslog;
	if (to_syslog)
		openlog("backfilld", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

static void vlog(int pri, const char *fmt, va_list ap, const char *suffix)
{
	char msg[1024];

	vsnprintf(msg, sizeof msg, fmt, ap);
	if (use_syslog)
		syslog(pri, "%s%s%s", msg, suffix ? ": " : "", suffix ? suffix : "");
	else
		fprintf(stderr, "backfilld: %s%s%s%s\n", pri == LOG_WARNING ? "warning: " : "", msg,
		        suffix ? ": " : "", suffix ? suffix : "");
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap, NULL);
	va_end(ap);
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
