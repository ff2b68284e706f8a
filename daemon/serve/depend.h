/* Dependencies between jobs (bsub -w): a job's condition on other jobs,
 * parsed and resolved at its submission, kept with it (store: depend,
 * depend_ids), evaluated whenever a job it names starts or ends.
 *
 * Each part of a condition names jobs: an id one job, a name every live
 * job of the submitter's with that name (or, if none is live, the one
 * submitted last), resolved once, at the submission: a job submitted later
 * with the same name does not join. While the condition is undecided the
 * job waits, and the core plans it after the jobs it names (see sched.h:
 * under conservative every step of a chain is guaranteed a start). When
 * it is met the job may start; when it can never be met (done(12) and 12
 * ended in exit) the job is cancelled, saying why, which its own
 * dependents then see. */
#ifndef BF_SERVE_DEPEND_H
#define BF_SERVE_DEPEND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

struct daemon;
struct djob;

/* A condition as submitted: parsed, and each part's jobs found. On
 * success *text and *ids are the forms kept with the job (malloc'ed).
 * -1 with a message for the client in err (a syntax error says its
 * column). */
int  depend_resolve(struct daemon *d, uint32_t uid, const char *cond, char **text, char **ids,
                    char *err, size_t errlen);
/* A queued job enters the core: submitted (or released from a hold) now,
 * or restored, waiting since `since`, with its guarantee; with its
 * condition if it has one (rec.depend), its predecessors as they are
 * now. Returns 0 (entered; a condition met already leaves it free to
 * start), 1 when the condition can never be met (it did not enter; the
 * condition, each part marked, in err), or a negative sched_error. */
enum depend_enter { DEPEND_SUBMIT, DEPEND_RESTORE };
int  depend_enter(struct daemon *d, struct djob *j, bf_time now, enum depend_enter how,
                  bf_time since, bf_time guarantee, char *err, size_t errlen);
/* Whether a condition in its kept forms can never be met already: 1 with
 * it, each part marked, in err (an array's, asked once for all its
 * elements before any is made); else 0. */
int  depend_already_never(struct daemon *d, const char *text, const char *ids, char *err,
                          size_t errlen);
/* A job whose condition can never be met (depend_enter said 1, or it
 * was decided so): cancelled, saying why, in the core if it was there. */
void depend_never(struct daemon *d, struct djob *j, bf_time now);
/* A job started or ended (touched this turn): evaluate the jobs waiting
 * on it; met, they may start (sched_dep_release); never met, they are
 * cancelled, and so on down their own dependents. Returns how many were
 * released or cancelled. */
uint32_t depend_changed(struct daemon *d, uint64_t id, bf_time now);
/* Why a waiting job waits, in words, for bq -l's pending reason:
 * "its dependency: done(12) [met] && ended(sweep) [waiting]". 0, or -1
 * if it has no condition or none is undecided. */
int  depend_pending(struct daemon *d, const struct djob *j, char *buf, size_t len);
/* The job leaves memory (ended, or the daemon stops). */
void depend_forget(struct daemon *d, struct djob *j);
void depend_free_all(struct daemon *d);

#endif
