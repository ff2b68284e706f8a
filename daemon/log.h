/* Logging for the daemon: to stderr in the foreground (a supervisor like
 * systemd adds time stamps), to syslog when detached. */
#ifndef BF_LOG_H
#define BF_LOG_H
#include <stdbool.h>

void log_init(bool to_syslog);
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* With ": strerror(errno)" appended. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
