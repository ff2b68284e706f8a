/* Logging for the daemon: to stderr in the foreground (a supervisor like
 * systemd adds time stamps), to syslog when detached. */
#ifndef BF_LOG_H
#define BF_LOG_H
#include <stdbool.h>
#include <stdint.h>
#include "bf_time.h"

void log_init(bool to_syslog);
/* Does the log go to the journal (log_init found stderr to be its stream)? */
bool log_to_journal(void);
/* A start-up error, before the daemon serves: "backfilld: text" on stderr
 * as a command says it, or to the journal with LOG_ERR's priority when
 * stderr is the journal's stream (systemd shows a unit's failure to start
 * under journalctl -p err). log_init must have been called. */
void log_start_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* By syslog priority: an error the daemon stops for or an operator must act
 * on (a store that failed, a configuration refused), a warning, a note, and
 * detail for debugging (requests, passes) that is off unless log_level is
 * debug. */
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether log_debug's lines are kept: to skip work done only for them. */
bool log_debugging(void);
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* With ": strerror(errno)" appended. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line about one job: "job ID: text", the id first so that
 * `grep 'job 42:'` finds a job's whole life. Where the log keeps fields
 * (the journal) the job's id and owner go with it as JOB_ID and JOB_USER.
 * priority is syslog's (LOG_NOTICE for a job's events, LOG_WARNING for a
 * broken guarantee or a lost job). user may be NULL. */
void log_job(int priority, uint64_t job, const char *user, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same with more journal fields: "KEY=value" lines (see journal.h's
 * extra), for what the words round: a line shows a time as every line
 * does, "2026-11-28 16:10:43" in local time, and its field keeps the
 * microseconds since the epoch (GUARANTEE_FROM_US=1795836214566369). Off
 * the journal (stderr, syslog) the fields are dropped. */
void log_job_fields(int priority, uint64_t job, const char *user, const char *fields,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Lines less urgent than this syslog priority are left out (log_level in
 * backfilld.yaml: LOG_ERR, LOG_WARNING, LOG_INFO or LOG_DEBUG; default
 * LOG_INFO). */
void log_set_level(int max_priority);

/* Text for one line of the log, whatever it holds (a user's -o path, a
 * job name, a reason from a supervisor): every byte that could move a
 * terminal's cursor, end the line or start an escape sequence is written
 * as an escape, so that nobody can forge a line or paint over one. Every
 * line the functions above log goes through it (the journal's fields
 * too); it is public for its unit test.
 *
 *   \\  a backslash (so that an escape is never ambiguous)
 *   \n \r \t \e  newline, carriage return, tab, ESC
 *   \xHH  any other C0 control, DEL, and each byte that is not part of
 *         valid UTF-8 (an overlong form, a surrogate, a cut sequence)
 *   \uHHHH  a C1 control (U+0080..U+009F: 8-bit CSI is one), and the
 *         invisible characters that reorder or break a line on screen
 *         (U+061C, U+200E, U+200F, U+2028..U+202E, U+2066..U+2069)
 *
 * Everything else, valid UTF-8 included, is kept as it is. The result is
 * cut, at an escape's or a character's boundary, to fit outlen (always
 * NUL-terminated when outlen > 0); returns its length. Four times the
 * input's length plus one is always enough. */
size_t log_escape(const char *in, char *out, size_t outlen);

/* A budget of log lines for one kind of event that a client can cause at
 * will (a refused connection, a timeout): at most `burst` lines per
 * `window`, then the rest are only counted, and one line reports how many
 * were left out. The caller passes the time (monotonic), since only
 * daemon/sys/clock.c reads the clock. Initialise with LOG_RATE_INIT. */
struct log_rate {
	const char *what;	/* names the lines in the summary ("refused connections") */
	unsigned burst;		/* lines per window */
	bf_time window;
	bf_time start;		/* of the current window */
	unsigned lines;		/* logged in this window */
	unsigned long suppressed;	/* left out in this window */
	bool started;
};
#define LOG_RATE_INIT(what, burst, window) \
	((struct log_rate){ (what), (burst), (window), 0, 0, 0, false })

/* May a line of this kind be logged now? false: it is counted instead. A
 * window that is over is closed first (its summary logged). */
bool log_rate_allow(struct log_rate *r, bf_time now);
/* When the current window's summary is due (BF_NEVER: nothing left out). */
bf_time log_rate_due(const struct log_rate *r);
/* Log the summary of a window that is over, if lines were left out:
 * "N more <what> in the last S s were not logged". */
void log_rate_flush(struct log_rate *r, bf_time now);
/* The same whether the window is over or not (the daemon is stopping). */
void log_rate_end(struct log_rate *r, bf_time now);
/* log_info through the budget. */
void log_rate_info(struct log_rate *r, bf_time now, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
