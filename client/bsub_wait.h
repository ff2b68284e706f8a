/* bsub -K: wait for a submitted job to end, say so as LSF does, and exit
 * with what the job's end gives (bsub(1), WAITING).
 *
 * The waiting works from one job id and the state its record shows
 * (PT_INFO), asked at an interval that starts short and backs off, so
 * that a waiting bsub costs the daemon one small request every two
 * seconds at most. It asks only the daemon that took the job (a restart
 * keeps every job; another daemon's job of the same id is another job),
 * and keeps asking while that daemon cannot be reached, as LSF does.
 *
 * Lines on standard error, LSF's words where LSF has them:
 *   <<Waiting for dispatch ...>>      at once (again if it is requeued)
 *   <<Starting on NODES>>             once it has started
 *   <<Job is finished>>               it ended by itself (any exit status)
 *   <<Job was killed at its time limit>>, <<Job was cancelled while
 *   running>>, <<Terminated while pending>>, <<Job failed: REASON>>,
 *   <<Job ended; its exit status is not known>>
 *
 * The exit status (bsub_wait_end): the job's exit code; 128 + N for a job
 * that died of signal N (as shells say it); BSUB_EXIT_NOT_RUN when it
 * never ran to an end of its own; BSUB_EXIT_UNKNOWN when its end cannot
 * be learned; BSUB_EXIT_INTERRUPTED after Ctrl-C, which cancels it. */
#ifndef BF_BSUB_WAIT_H
#define BF_BSUB_WAIT_H
#include <stdint.h>
#include "proto.h"
#include "where.h"

/* LSF's code for a job terminated while pending; here also one that could
 * not be started or failed (lost with a node or its supervisor). */
#define BSUB_EXIT_NOT_RUN 126
/* Its end cannot be learned: the daemon no longer has its record, refuses
 * to say, or recorded no exit status. (The job's own codes can be any of
 * 0-255, so no code is free of them; 125 is the one docker run and
 * git bisect give their own failures.) */
#define BSUB_EXIT_UNKNOWN 125
/* Ctrl-C: 128 + SIGINT, as shells report an interrupted command. */
#define BSUB_EXIT_INTERRUPTED 130

/* The first interval between two questions, and the longest while the
 * daemon answers and while it does not (a failed connection costs the
 * daemon nothing; a busy one is given room). */
#define BSUB_WAIT_FIRST_MS 100
#define BSUB_WAIT_MAX_MS   2000
#define BSUB_WAIT_DOWN_MS  5000

enum bsub_phase {
	BW_PENDING,		/* queued or held: not started (again) yet */
	BW_RUNNING,		/* started, not ended */
	BW_ENDED,
};

/* Where the job is, by its state: "queued" and "held" are pending,
 * "running" is running, "done", "exit", "killed", "cancelled" and
 * "failed" have ended. A state this bsub does not know (a newer daemon's)
 * has ended only if the record has an exit status; until then it is
 * running if it started, else pending: a new state of a live job must
 * not end the wait. */
enum bsub_phase bsub_wait_phase(const struct proto_job *j);

struct bsub_end {
	int code;		/* bsub's exit status */
	const char *what;	/* the line's words, without << >> */
	const char *detail;	/* said after the words, ": DETAIL" (into the
				 * job's record), or NULL */
};

/* How an ended job ended (see the top of this file). The code comes from
 * the record's exit status, never from the state's name, so that a job
 * that exited 3 gives 3 whether its state is "done" or "exit". A job that
 * the scheduler ended (its time limit, a cancel) but that exited 0, having
 * caught the SIGTERM, gives 143 (128 + SIGTERM), as if that SIGTERM had
 * ended it: a script must not take it for a success. */
void bsub_wait_end(const struct proto_job *j, struct bsub_end *e);

/* The interval after ms: half as long again, at most cap. */
int bsub_wait_backoff(int ms, int cap);

/* The candidates of w cut to the one that answered (its index used):
 * the daemon that took the job, asked alone from now on, and even when
 * its socket file is gone for a moment (a restart). */
void bsub_wait_pin(const struct where *w, size_t used, struct where *out);

/* From now on Ctrl-C (SIGINT) asks bsub_wait to cancel the job and stop;
 * a second Ctrl-C ends bsub at once. Left alone when SIGINT is ignored
 * (nohup, a background job of a shell without job control). */
void bsub_wait_arm(void);

/* Wait for job id at the daemon w (pinned) to end; print LSF's lines on
 * standard error. Returns bsub's exit status. */
int bsub_wait(const struct where *w, uint64_t id);

#endif
