/* What bsub, bq and bkill share: one request and one reply over the
 * daemon's Unix socket, the exit codes, and how times and text are shown.
 *
 * The protocol is common/proto.h; this is only its transport. A client
 * connects, sends ONE request frame, reads ONE reply frame and closes. The
 * daemon knows the caller from the socket (SO_PEERCRED): no identity is
 * sent. */
#ifndef BF_CLIENT_H
#define BF_CLIENT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "bf_time.h"
#include "proto.h"

#ifndef BACKFILLD_VERSION
#define BACKFILLD_VERSION "0.1"
#endif

/* The exit codes of all three clients (documented in their man pages). */
enum client_exit {
	CLIENT_EXIT_OK = 0,		/* done */
	CLIENT_EXIT_REFUSED = 1,	/* the daemon refused (bkill: a job not cancelled) */
	CLIENT_EXIT_USAGE = 2,		/* bad option, argument, #BSUB line or script */
	CLIENT_EXIT_UNREACHABLE = 3,	/* no daemon, or an unreadable answer */
};

/* The whole exchange (connect, send, receive) must end within this. */
#define CLIENT_TIMEOUT_MS 30000
/* The timeout in use; tests lower it. */
extern int client_timeout_ms;

struct where;

/* Send one request frame (req, already proto_finish()ed) to the daemon
 * found as where.h says (socket_opt: --socket, or NULL) and read one reply
 * frame. Returns 0
 * with the whole reply frame (header included) in *reply (malloc'ed; the
 * caller frees it), its size in *reply_len and its type in *type; or -1
 * with a one-line reason in err and *reply NULL. The reply is only framed
 * here (proto_frame: version, length at most PROTO_HEADER +
 * PROTO_MAX_PAYLOAD); decode it with the proto_dec_* of its type. */
int client_request(const char *socket_opt, const struct proto_buf *req, uint8_t **reply,
                   size_t *reply_len, enum proto_type *type, char *err, size_t errlen);
/* The same with the candidates already resolved (where_resolve). When
 * none answers, err lists every path tried, in order, with why each
 * failed: "cannot reach backfilld: tried /tmp/x.sock (--socket):
 * Connection refused (is the daemon running? ...)". */
int client_request_at(const struct where *w, const struct proto_buf *req, uint8_t **reply,
                      size_t *reply_len, enum proto_type *type, char *err, size_t errlen);
/* The same, saying which candidate answered: its index in w->c, in *used
 * (set only on success). A client that must keep talking to the same
 * daemon (bsub -K) asks that one alone afterwards. */
int client_request_via(const struct where *w, const struct proto_buf *req, uint8_t **reply,
                       size_t *reply_len, enum proto_type *type, size_t *used, char *err,
                       size_t errlen);

/* client_request() and the reply's first check, as every client needs it:
 * a warning about a broken configuration file goes to stderr as
 * "PROG: warning: ..."; on failure it prints "PROG: reason" to stderr and returns the exit code
 * (CLIENT_EXIT_UNREACHABLE: not reached, or the reply is unreadable or of
 * another type than want; CLIENT_EXIT_REFUSED: PT_ERROR, whose message is
 * printed). On success returns 0 with the reply as client_request gives it. */
int client_call(const char *prog, const char *socket_opt, const struct proto_buf *req,
                enum proto_type want, uint8_t **reply, size_t *reply_len);
/* client_call with the candidates already resolved (where_resolve; the
 * caller says a failure of that), and which one answered in *used (may be
 * NULL), as client_request_via. */
int client_call_at(const char *prog, const struct where *w, const struct proto_buf *req,
                   enum proto_type want, uint8_t **reply, size_t *reply_len, size_t *used);
/* One job, as bq -l asks for it (PT_INFO): 0 with *job, whose strings are in
 * *reply and *a (the caller frees both, also on failure); CLIENT_EXIT_NOJOB
 * when the reply holds no such job (nothing printed); else client_call's
 * exit code (said on stderr). */
#define CLIENT_EXIT_NOJOB (-1)
/* The same for element `index` of array `id` ("ID[3]"; index 0: the job
 * id itself, which for an array is its own line). */
int client_element_info(const char *prog, const char *socket_opt, uint64_t id, uint32_t index,
                        struct proto_job *job, struct proto_arena *a, uint8_t **reply);
int client_job_info(const char *prog, const char *socket_opt, uint64_t id, struct proto_job *job,
                    struct proto_arena *a, uint8_t **reply);

/* ---- showing things ---- */

/* Local time, "YYYY-MM-DD HH:MM:SS" (whole seconds, rounded down).
 * Like snprintf. A time that cannot be shown is written as "?". */
int client_format_time(bf_time t, char *buf, size_t len);
/* The wall clock's now. */
bf_time client_wall_now(void);
/* The same in a table's short form: "Nov 28 19:58:03" in the year of now
 * (local), else the whole "YYYY-MM-DD HH:MM:SS". */
int client_format_time_short(bf_time t, bf_time now, char *buf, size_t len);
/* Set TZ (NULL: unset it) for the times formatted from now on; 0 or -1.
 * (client_format_time caches local times of the zone in force.) */
int client_set_tz(const char *tz);
/* A bound shown to the second ("at the latest": a guaranteed start, an end
 * by the time limit) is rounded up, so it is never earlier than the truth. */
static inline bf_time client_ceil_second(bf_time t)
{
	return t % BF_SEC == 0 || t == BF_NEVER ? t : t + (BF_SEC - (t % BF_SEC + BF_SEC) % BF_SEC);
}
/* UTC, ISO 8601: "YYYY-MM-DDTHH:MM:SSZ" (whole seconds, rounded down). */
int client_format_iso(bf_time t, char *buf, size_t len);
/* Seconds as a JSON number, exact: 7200, 0.5, 1.000001. */
int client_format_seconds(bf_time us, char *buf, size_t len);

/* A wait status (as from waitpid) in words: "exit code 3",
 * "killed by signal 9 (SIGKILL)", "killed by signal 11 (SIGSEGV), core dumped". */
int client_exit_status(int32_t status, char *buf, size_t len);
/* The same for a column that is never cut: "3", "SIGKILL", "SIGSEGV+core",
 * "signal 40". */
int client_exit_short(int32_t status, char *buf, size_t len);
/* A signal's name without "SIG" ("TERM"), or NULL. */
const char *client_signal_name(int sig);

/* Text for a terminal: control characters and bytes that are not UTF-8
 * become '?'. With width > 0, at most width characters are written and a
 * longer text is cut to width - 1 characters followed by '+'. Returns the
 * characters written (client_text_width: that would be written). */
size_t client_put_text(FILE *f, const char *s, size_t width);
size_t client_text_width(const char *s, size_t width);

/* A JSON string literal for s (escaped; bytes that are not UTF-8 become
 * U+FFFD), or null for NULL. */
void client_put_json_str(FILE *f, const char *s);

/* A job id as users type it: a whole decimal number from 1 to UINT64_MAX,
 * digits only. 0 or -1. */
int client_parse_id(const char *s, uint64_t *out);

/* Is the job USER's (bq -u, bkill -u): its user name, or its uid in
 * digits, is USER. */
bool client_job_of(const struct proto_job *j, const char *user);
/* -u's argument names someone: "all", a user this system knows, or a
 * uid (a number). A typo is then a usage error, not "no jobs". */
bool client_user_known(const char *user);

/* What bkill says for one job: "cancelled", "no such job", ... */
const char *client_cancel_result(enum proto_err code);

#endif
