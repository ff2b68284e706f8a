/* bsub -K: waiting for a job's end; see bsub_wait.h. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include "bsub_wait.h"
#include "client.h"

/* ---- reading a record ---- */

static bool state_is(const struct proto_job *j, const char *s)
{
	return j->state && strcmp(j->state, s) == 0;
}

static bool started(const struct proto_job *j)
{
	return j->start_kind == PS_ACTUAL;
}

enum bsub_phase bsub_wait_phase(const struct proto_job *j)
{
	static const char *const ended[] = { "done", "exit", "killed", "cancelled", "failed" };

	for (size_t k = 0; k < sizeof ended / sizeof *ended; k++)
		if (state_is(j, ended[k]))
			return BW_ENDED;
	if (state_is(j, "queued") || state_is(j, "held"))
		return BW_PENDING;
	if (state_is(j, "running"))
		return BW_RUNNING;
	if (j->has_exit)
		return BW_ENDED;
	return started(j) ? BW_RUNNING : BW_PENDING;
}

/* The exit status of a wait status, as a shell gives it; -1 if it is
 * neither an exit nor a signal. */
static int shell_code(int32_t status)
{
	int st = (int)status;

	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

void bsub_wait_end(const struct proto_job *j, struct bsub_end *e)
{
	bool by_scheduler = state_is(j, "killed") || state_is(j, "cancelled");
	int code = j->has_exit ? shell_code(j->exit_status) : -1;

	*e = (struct bsub_end){ .code = BSUB_EXIT_NOT_RUN };
	if (state_is(j, "failed")) {
		e->what = "Job failed";
		e->detail = j->reason && *j->reason ? j->reason : NULL;
	} else if (!started(j)) {
		e->what = state_is(j, "cancelled") ? "Terminated while pending" :
		          "Job ended without starting";
	} else if (code < 0) {
		e->code = BSUB_EXIT_UNKNOWN;
		e->what = "Job ended; its exit status is not known";
	} else {
		/* (signals beyond 127 do not exist; the code fits 0-255) */
		e->code = by_scheduler && code == 0 ? 128 + SIGTERM : code;
		e->what = state_is(j, "killed") ? "Job was killed at its time limit" :
		          state_is(j, "cancelled") ? "Job was cancelled while running" :
		          "Job is finished";
	}
}

int bsub_wait_backoff(int ms, int cap)
{
	int next = ms + ms / 2;

	if (next < BSUB_WAIT_FIRST_MS)
		next = BSUB_WAIT_FIRST_MS;
	return next > cap ? cap : next;
}

void bsub_wait_pin(const struct where *w, size_t used, struct where *out)
{
	*out = *w;
	out->c[0] = w->c[used < w->n ? used : 0];
	out->c[0].may_skip = false;
	out->n = 1;
	out->config_note[0] = '\0';
	out->warning[0] = '\0';		/* said once, at the submission */
}

/* ---- Ctrl-C ---- */

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

void bsub_wait_arm(void)
{
	struct sigaction sa, old;

	/* An ignored SIGINT is the caller's choice (nohup, "bsub -K &" from a
	 * script): Ctrl-C at the terminal is not meant for this bsub. */
	if (sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	/* Once: a second Ctrl-C, while the cancel is on its way to a daemon
	 * that does not answer, ends bsub at once. */
	sa.sa_flags = SA_RESTART | SA_RESETHAND;
	sigaction(SIGINT, &sa, NULL);
}

/* Sleep ms, or less if Ctrl-C comes. SIGINT is blocked from the check to
 * the sleep, which unblocks it, so that one arriving in between is not
 * slept through. */
static void nap(int ms)
{
	sigset_t block, old;
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (!interrupted)
		pselect(0, NULL, NULL, NULL, &ts, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* ---- asking the daemon ---- */

enum answer {
	A_JOB,			/* its record is in *j */
	A_NOJOB,		/* the daemon does not know it (any more) */
	A_DOWN,			/* no answer now, or "busy": ask again later */
	A_REFUSED,		/* an answer that will not change: stop */
};

/* One question to the daemon: job id. err says why for A_DOWN and
 * A_REFUSED. *reply and *a hold the record's strings: the caller frees
 * both whatever the answer. */
static enum answer ask(const struct where *w, uint64_t id, struct proto_job *j,
                       struct proto_arena *a, uint8_t **reply, char *err, size_t errlen)
{
	struct proto_buf req;
	struct proto_jobs js;
	struct proto_error pe;
	enum proto_type type;
	size_t len = 0;
	int rc;

	*reply = NULL;
	proto_buf_init(&req);
	if (proto_enc_list(&req, PT_INFO, &(struct proto_list){ .has_job = true, .job = id }) < 0) {
		proto_buf_free(&req);
		snprintf(err, errlen, "out of memory");
		return A_DOWN;
	}
	rc = client_request_at(w, &req, reply, &len, &type, err, errlen);
	proto_buf_free(&req);
	if (rc < 0)
		return A_DOWN;
	if (type == PT_ERROR) {
		if (proto_dec_error(*reply, len, &pe, a, err, errlen) < 0)
			return A_REFUSED;
		snprintf(err, errlen, "%s", pe.message && *pe.message ? pe.message :
		         proto_err_name(pe.code));
		/* Busy and internal errors (a full disk, a store being
		 * replaced) pass; the others would be the same next time. */
		return pe.code == PE_NOJOB ? A_NOJOB :
		       pe.code == PE_BUSY || pe.code == PE_INTERNAL ? A_DOWN : A_REFUSED;
	}
	if (type != PT_JOBS) {
		snprintf(err, errlen, "unexpected reply (message type %u)", (unsigned)type);
		return A_REFUSED;
	}
	if (proto_dec_jobs(*reply, len, &js, a, err, errlen) < 0)
		return A_REFUSED;
	if (js.count == 0 || js.jobs[0].id != id)
		return A_NOJOB;
	*j = js.jobs[0];
	return A_JOB;
}

/* ---- saying it ---- */

/* "<<WHAT>>" or "<<WHAT: DETAIL>>" on standard error, the detail made
 * safe for a terminal. */
static void say(const char *what, const char *detail)
{
	fprintf(stderr, "<<%s", what);
	if (detail) {
		fputs(": ", stderr);
		client_put_text(stderr, detail, 0);
	}
	fputs(">>\n", stderr);
}

static void say_start(const struct proto_job *j)
{
	fputs("<<Starting on ", stderr);
	client_put_text(stderr, j->node_list && *j->node_list ? j->node_list : "its nodes", 0);
	fputs(">>\n", stderr);
}

/* Show the progress from *shown (the phase said last) to where j is;
 * returns bsub's exit status once the job has ended, else -1. */
static int progress(const struct proto_job *j, enum bsub_phase *shown)
{
	enum bsub_phase now = bsub_wait_phase(j);
	struct bsub_end e;

	if (now == BW_PENDING && *shown == BW_RUNNING)
		say("Job was requeued; waiting for dispatch ...", NULL);
	/* A job that started and ended between two questions started too. */
	if (now != BW_PENDING && *shown == BW_PENDING && started(j))
		say_start(j);
	*shown = now;
	if (now != BW_ENDED)
		return -1;
	bsub_wait_end(j, &e);
	say(e.what, e.detail);
	return e.code;
}

/* Cancel job id at w, as bkill would: the daemon's code for it, or -1
 * with err when there is none (not reached, refused, unreadable). */
static int cancel_one(const struct where *w, uint64_t id, char *err, size_t errlen)
{
	struct proto_buf req;
	struct proto_cancelled cd;
	struct proto_error pe;
	struct proto_arena a = { 0 };
	enum proto_type type;
	uint8_t *reply = NULL;
	size_t len = 0;
	int code = -1;

	proto_buf_init(&req);
	if (proto_enc_cancel(&req, &(struct proto_cancel){ .ids = &id, .count = 1 }) < 0)
		snprintf(err, errlen, "out of memory");
	else if (client_request_at(w, &req, &reply, &len, &type, err, errlen) < 0)
		;	/* err says why */
	else if (type == PT_ERROR && proto_dec_error(reply, len, &pe, &a, err, errlen) == 0)
		snprintf(err, errlen, "%s", pe.message && *pe.message ? pe.message :
		         proto_err_name(pe.code));
	else if (type == PT_CANCELLED && proto_dec_cancelled(reply, len, &cd, &a, err,
	                                                      errlen) == 0 && cd.count == 1)
		code = (int)cd.codes[0];
	else
		snprintf(err, errlen, "unreadable reply from backfilld");
	proto_buf_free(&req);
	proto_arena_free(&a);
	free(reply);
	return code;
}

/* Ctrl-C: cancel the job, say how that went, and stop at once (a running
 * job's end, after its grace, is the daemon's business). */
static int interrupt(const struct where *w, uint64_t id)
{
	char err[2048] = "";
	int code;

	fprintf(stderr, "bsub: interrupted: cancelling job %" PRIu64 "\n", id);
	code = cancel_one(w, id, err, sizeof err);
	if (code == PE_OK)
		fprintf(stderr, "bsub: job %" PRIu64 " cancelled\n", id);
	else if (code == PE_DONE)
		fprintf(stderr, "bsub: job %" PRIu64 " had ended already (bq -l %" PRIu64 ")\n", id,
		        id);
	else
		fprintf(stderr, "bsub: job %" PRIu64 " was not cancelled: %s; it may still run "
		        "(bkill %" PRIu64 ")\n", id,
		        code < 0 ? err : client_cancel_result((enum proto_err)code), id);
	return BSUB_EXIT_INTERRUPTED;
}

/* The daemon went quiet or came back: said once each way. */
static void say_down(bool *down, bool now_down, uint64_t id, const char *why)
{
	if (now_down && !*down)
		fprintf(stderr, "bsub: %s; still waiting for job %" PRIu64 " (a restart of the "
		        "daemon keeps it)\n", why, id);
	else if (!now_down && *down)
		fprintf(stderr, "bsub: backfilld answers again; waiting for job %" PRIu64 "\n", id);
	*down = now_down;
}

int bsub_wait(const struct where *w, uint64_t id)
{
	enum bsub_phase shown = BW_PENDING;
	bool down = false;
	int ms = BSUB_WAIT_FIRST_MS;

	say("Waiting for dispatch ...", NULL);
	for (;;) {
		struct proto_arena a = { 0 };
		struct proto_job j;
		uint8_t *reply = NULL;
		char err[2048] = "";
		enum bsub_phase was = shown;
		enum answer r;
		int rc = -1;

		if (interrupted)
			return interrupt(w, id);
		r = ask(w, id, &j, &a, &reply, err, sizeof err);
		say_down(&down, r == A_DOWN, id, err);
		if (r == A_JOB)
			rc = progress(&j, &shown);
		else if (r == A_NOJOB)
			fprintf(stderr, "bsub: backfilld no longer knows job %" PRIu64 " (its record "
			        "was removed): its end is not known\n", id);
		else if (r == A_REFUSED)
			fprintf(stderr, "bsub: backfilld does not say how job %" PRIu64 " is: %s\n",
			        id, err);
		proto_arena_free(&a);
		free(reply);
		if (rc >= 0)
			return rc;
		if (r == A_NOJOB || r == A_REFUSED)
			return BSUB_EXIT_UNKNOWN;
		/* A change (it started, it was requeued) may come with another
		 * soon: ask soon again, then less and less often. */
		ms = shown != was ? BSUB_WAIT_FIRST_MS : ms;
		nap(ms);
		ms = bsub_wait_backoff(ms, r == A_DOWN ? BSUB_WAIT_DOWN_MS : BSUB_WAIT_MAX_MS);
	}
}
