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
