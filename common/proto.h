/* The wire protocol between the clients (bsub, bq, bkill) and backfilld.
 * Pure encoding and decoding, shared by both sides; no I/O here.
 *
 * A frame is an 8-byte header and a payload:
 *   bytes 0-3  payload length, unsigned big-endian, at most PROTO_MAX_PAYLOAD
 *   byte  4    protocol version (PROTO_VERSION)
 *   byte  5    message type (enum proto_type)
 *   bytes 6-7  zero
 * The payload is a sequence of fields, each
 *   tag (1 byte), kind (1 byte), then
 *     PK_INT:    8 bytes, a signed 64-bit integer, big-endian
 *     PK_BYTES:  4-byte big-endian length, then that many bytes
 *     PK_GROUP:  4-byte big-endian length, then that many bytes of fields
 *                (one record of a list, e.g. one job in a listing)
 * A tag may repeat where the message says it is a list.
 *
 * Decoding is strict: a frame with another version, an oversized or
 * truncated frame, an unknown type, an unknown or repeated tag, a field of
 * the wrong kind, a string with a NUL byte or over its limit, or a missing
 * required field is an error with a message; the daemon answers it with
 * PT_ERROR and closes the connection. */
#ifndef BF_PROTO_H
#define BF_PROTO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

#define PROTO_VERSION      1
#define PROTO_HEADER       8
#define PROTO_MAX_PAYLOAD  (4u * 1024 * 1024)	/* a script, its arguments, environment */
#define PROTO_MAX_SCRIPT   (1u * 1024 * 1024)
#define PROTO_MAX_STRING   4096			/* names, paths, one argument */
#define PROTO_MAX_LIST     4096			/* arguments, environment entries, ids */
#define PROTO_MAX_RECORDS  (1u << 20)		/* jobs in a listing, profile steps */

enum proto_type {
	/* requests */
	PT_SUBMIT = 1,		/* struct proto_submit */
	PT_LIST = 2,		/* struct proto_list */
	PT_INFO = 3,		/* one job: struct proto_list with a job id */
	PT_CANCEL = 4,		/* struct proto_cancel */
	PT_PROFILE = 5,		/* free nodes over future time: no fields */
	PT_NODES = 6,		/* which job holds which node: no fields */
	PT_NODECTL = 7,		/* bctl drain/resume/down/up: struct proto_nodectl */
	PT_NODELIST = 8,	/* bctl nodes, each node's state: no fields */
	PT_JOBCTL = 9,		/* bctl hold/release, bstop/bresume: struct proto_jobctl */
	PT_STATUS = 10,		/* bctl status: no fields */
	PT_HISTORY = 11,	/* bq -d, bq --swf, ended jobs: struct proto_history */
	/* replies */
	PT_ERROR = 64,		/* struct proto_error */
	PT_SUBMITTED = 65,	/* struct proto_submitted */
	PT_JOBS = 66,		/* struct proto_jobs */
	PT_CANCELLED = 67,	/* struct proto_cancelled */
	PT_STEPS = 68,		/* struct proto_steps */
	PT_NODEMAP = 69,	/* struct proto_nodemap */
	PT_NODESTATES = 70,	/* struct proto_nodestates: to PT_NODECTL, PT_NODELIST */
	PT_JOBCTLED = 71,	/* struct proto_cancelled (a result per job): to PT_JOBCTL */
	PT_STATUSINFO = 72,	/* struct proto_statusinfo: to PT_STATUS */
};

/* Error codes in PT_ERROR and per job in PT_CANCELLED. */
enum proto_err {
	PE_OK = 0,
	PE_MALFORMED = 1,	/* the request could not be decoded */
	PE_VERSION = 2,		/* another protocol version */
	PE_INVALID = 3,		/* decoded, but a value is not acceptable */
	PE_TOOBIG = 4,		/* more nodes than the partition */
	PE_NOJOB = 5,		/* no such job */
	PE_DENIED = 6,		/* not your job */
	PE_INTERNAL = 7,	/* the daemon failed (out of memory, storage) */
	PE_DONE = 8,		/* cancel: the job had already ended */
	PE_BUSY = 9,		/* over a limit of connections or held bytes: try again */
};
#define PE_LAST PE_BUSY		/* the highest code there is */
const char *proto_err_name(enum proto_err e);

/* ---- frames and fields ---- */

/* An output buffer; every put is checked once, at proto_finish(). */
struct proto_buf {
	uint8_t *p;
	size_t len, cap;
	bool failed;		/* out of memory or over the limit */
};

void proto_buf_init(struct proto_buf *b);
void proto_buf_free(struct proto_buf *b);
void proto_start(struct proto_buf *b, enum proto_type type);
void proto_put_int(struct proto_buf *b, uint8_t tag, int64_t v);
void proto_put_bytes(struct proto_buf *b, uint8_t tag, const void *p, size_t n);
void proto_put_str(struct proto_buf *b, uint8_t tag, const char *s);	/* NULL: no field */
size_t proto_group_open(struct proto_buf *b, uint8_t tag);
void proto_group_close(struct proto_buf *b, size_t mark);
/* Patch the length in; -1 if anything failed or the payload is too big. */
int  proto_finish(struct proto_buf *b);

/* Is a whole frame at the start of buf? 1 (its size in *frame_len), 0 (not
 * yet: read more), -1 (never: bad header, err says why). Call it as soon
 * as PROTO_HEADER bytes are there, so an oversized frame is refused before
 * it is read. */
int  proto_frame(const uint8_t *buf, size_t avail, size_t *frame_len, enum proto_type *type,
                 char *err, size_t errlen);

/* ---- messages ---- */

struct proto_submit {
	uint32_t nodes;
	bf_time estimate;		/* > 0 */
	const char *name;		/* may be NULL */
	const uint8_t *script;		/* the script's content, spooled by the daemon */
	uint32_t script_len;
	const char *cwd;		/* absolute */
	const char *out, *err;		/* may be NULL: the daemon's default */
	const char **argv;		/* arguments after the script */
	uint32_t argc;
	const char **env;		/* "NAME=value" */
	uint32_t envc;
	/* The submitter's umask, which the job runs with (LSF and Slurm pass
	 * it on too); absent from an older client: the daemon's 022. */
	bool has_umask;
	uint32_t umask;			/* 0 to 0777 */
	/* bsub -w: the condition on other jobs it starts after, as written
	 * (the daemon parses it: depexpr.h); NULL: none. */
	const char *depend;
	/* bsub -J "name[SPEC]%K": a job array, as written (the daemon parses
	 * it: jobarray.h); name is then NULL. NULL: one job. */
	const char *array;
};

struct proto_list {
	bool all_users;
	bool has_job;
	uint64_t job;			/* PT_INFO */
	/* The client reads the forecast's time in the reply (forecast_at,
	 * forecast_stale of struct proto_jobs); a client that does not say
	 * so gets a reply without them, as it was before they came. */
	bool forecast;
	/* PT_LIST: each element of an array on its own line (bq -A), not
	 * the array's one line with its counts. PT_INFO: with index (> 0),
	 * the element of array `job` that has it (bq -l "ID[3]"); a PT_INFO
	 * of an array's id alone is the array's line. */
	bool elements;
	uint32_t index;
	/* PT_LIST: how many recently ended jobs follow the unfinished ones
	 * (bq --ended N), 0 to PROTO_MAX_ENDED; without has_ended the
	 * daemon's default, PROTO_DEFAULT_ENDED (an older client's). */
	bool has_ended;
	uint32_t ended;
};

/* Recently ended jobs in a listing: the newest ends first kept. A count,
 * not a time: the listing stays bounded whatever the rate of ends (bq -d
 * --since reads any span of them). */
#define PROTO_DEFAULT_ENDED 100
#define PROTO_MAX_ENDED     1000

struct proto_cancel {
	const uint64_t *ids;
	uint32_t count;
	/* bkill -s: send this signal (1 to 64) to each running job instead of
	 * cancelling it; 0: cancel. A queued job gets PE_INVALID. */
	int32_t signal;
};

struct proto_error {
	enum proto_err code;
	const char *message;
};

enum proto_start_kind {
	PS_NONE = 0,			/* no start known (e.g. cannot be placed now) */
	PS_ACTUAL = 1,			/* it started then */
	PS_GUARANTEED = 2,		/* it will start then at the latest */
	PS_PREDICTED = 3,		/* a prediction, not a promise */
};

struct proto_submitted {
	uint64_t job;
	bf_time start;
	enum proto_start_kind kind;
	bf_time estimate;		/* its time limit as taken (the site's default
					 * when none was asked); 0: not said */
	uint32_t elements;		/* a job array: its elements (job is the
					 * array's id, start its first's); else 0 */
};

/* Where a job's CPU time and peak memory come from. */
enum proto_usage_src {
	PU_NONE = 0,			/* unknown */
	PU_CGROUP = 1,			/* the job's cgroup: every process it ever had */
	PU_RUSAGE = 2,			/* getrusage of the processes that were waited
					 * for; memory: the largest single one */
};

/* One job as bq shows it. */
struct proto_job {
	uint64_t id;
	uint32_t uid;
	const char *user;		/* may be NULL: clients show the uid */
	const char *name;
	const char *state;		/* "queued", "running", "done", "killed", ... */
	uint32_t nodes;
	bf_time estimate, submit, start, end;	/* end: actual or expected */
	enum proto_start_kind start_kind;
	bool has_exit;
	int32_t exit_status;		/* as from waitpid */
	const char *node_list;		/* compact ("node[001-064]"); PT_INFO only */
	const char *cwd, *out, *err;	/* PT_INFO only, owner or root */
	const char *reason;		/* PT_INFO: why it failed, if it did */
	/* PT_INFO, owner or root, once it ended: what it used, each with
	 * its source (PU_NONE: unknown, and the value is not sent). */
	int64_t cpu_us, mem_kb;		/* CPU time (µs), peak memory (KiB) */
	enum proto_usage_src cpu_src, mem_src;
	/* Its guarantee moved later: the last announcement, in words (when,
	 * from, to, why); NULL if never. Public, as the guarantee is. */
	const char *broken;
	/* PT_HISTORY: the first start it was promised (conservative: at its
	 * submission), BF_NEVER if none. */
	bf_time first_guarantee;
	/* PT_INFO, a queued or held job: why it does not run yet, in words;
	 * else NULL. */
	const char *pending;
	/* PT_INFO: its dependency condition (bsub -w), as the daemon keeps
	 * it; NULL if none. */
	const char *depend;
	/* An array's element: the array's id and its index (0: none). */
	uint64_t array_id;
	uint32_t array_index;
	/* An array's own line (state "array"; name "name[SPEC]%K"): its
	 * elements by state, "N queued, N running, N done, ..." (every state
	 * with any, in bq(1)'s order); NULL for a job's line. */
	const char *array_counts;
};

struct proto_jobs {
	struct proto_job *jobs;
	uint32_t count;
	uint32_t total;			/* jobs there were, if more than count (the
					 * rest did not fit one frame); else 0 */
	/* To a request with `forecast`, under EASY and FCFS: when the
	 * forecast the predicted starts come from was made (BF_NEVER: none
	 * said), and whether the queue or the plan changed since (a job
	 * queued since has no prediction). */
	bf_time forecast_at;
	bool forecast_stale;
};

struct proto_cancelled {
	const uint64_t *ids;
	const enum proto_err *codes;	/* per id: PE_OK, PE_NOJOB, PE_DENIED, PE_DONE
					 * (the decoder takes any code to PE_LAST) */
	uint32_t count;
};

struct proto_step {
	bf_time t;
	int64_t free;
};

struct proto_steps {
	uint32_t nodes;			/* the partition */
	const struct proto_step *steps;
	uint32_t count;
};

/* The partition's nodes and who holds them (running jobs are public). */
struct proto_holder {
	uint64_t job;
	uint32_t uid;
	const char *user;		/* may be NULL */
	const char *nodes;		/* compact list */
};

struct proto_nodemap {
	const char *nodes;		/* every node of the partition, compact */
	const struct proto_holder *held;
	uint32_t count;
	/* Out of service (bctl drain, down): compact lists, NULL for none
	 * (the field is left out). A drained node may still run its job. */
	const char *drained, *down;
};

/* Hold and release queued jobs (bstop, bresume; bctl hold, release). */
enum proto_jobop {
	PJ_HOLD = 1,			/* a queued job leaves the queue, kept */
	PJ_RELEASE = 2,			/* a held job queues again */
	PJ_LIMIT = 3,			/* a new time limit (owners: shorter only) */
	PJ_TOP = 4,			/* first in the queue (admins) */
	PJ_REQUEUE = 5,			/* a running job ended and queued again (admins) */
};
#define PJ_LAST PJ_REQUEUE

struct proto_jobctl {
	enum proto_jobop op;
	bool admin;			/* from bctl: refused unless the caller is an admin */
	bf_time limit;			/* PJ_LIMIT: > 0 */
	const uint64_t *ids;
	uint32_t count;
};

/* Ended jobs from the store (bq -d, bq --swf), in the order of their end
 * (then id), one page at a time: a page starts after the cursor (the
 * last job of the previous one). Another user's jobs are shown with
 * their public fields. */
struct proto_history {
	bf_time since, until;		/* ended in [since, until); BF_NEVER: no bound */
	int64_t uid;			/* one user's (>= 0), or everyone's (-1) */
	bf_time after_end;		/* the cursor: BF_NEVER for the first page */
	uint64_t after_id;
	uint32_t max;			/* jobs in this page, 1 to PROTO_HISTORY_PAGE */
};
#define PROTO_HISTORY_PAGE 2000

/* An operator's change to nodes (bctl(8)). */
enum proto_nodeop {
	PN_DRAIN = 1,			/* finish the job it runs, take no new one */
	PN_RESUME = 2,			/* back in service (drained or down) */
	PN_DOWN = 3,			/* lost: its job ends as failed */
	PN_UP = 4,			/* the same as PN_RESUME */
};
#define PN_LAST PN_UP

struct proto_nodectl {
	enum proto_nodeop op;
	const char *nodes;		/* a node list: "node[001-004],gpu7" */
	const char *reason;		/* PN_DRAIN and PN_DOWN: required */
};

enum proto_node_state {
	PNS_IDLE = 0,			/* up, no job */
	PNS_BUSY = 1,			/* up, running a job */
	PNS_DRAIN = 2,			/* drained: its job (if any) finishes, no new one */
	PNS_DOWN = 3,			/* down: out of service */
};
#define PNS_LAST PNS_DOWN

/* One node as bctl nodes shows it. */
struct proto_node {
	const char *name;
	enum proto_node_state state;
	uint64_t job;			/* the job running on it, 0 if none */
	const char *reason, *by;	/* drained or down: why, and who said so */
	bf_time since;			/* drained or down: since when; else BF_NEVER */
	bool changed;			/* PT_NODECTL: this request changed it */
};

struct proto_nodestates {
	const struct proto_node *nodes;
	uint32_t count;
};

/* bctl status: named values, in the daemon's order ("policy",
 * "nodes", ...), shown as they come. */
struct proto_kv {
	const char *key, *value;
};

struct proto_statusinfo {
	const struct proto_kv *items;
	uint32_t count;
};

/* Encoders write one whole frame into b (which they reset first);
 * 0 or -1 (no memory, or over PROTO_MAX_PAYLOAD). */
int proto_enc_submit(struct proto_buf *b, const struct proto_submit *m);
int proto_enc_list(struct proto_buf *b, enum proto_type type, const struct proto_list *m);
int proto_enc_cancel(struct proto_buf *b, const struct proto_cancel *m);
int proto_enc_profile(struct proto_buf *b);
int proto_enc_error(struct proto_buf *b, const struct proto_error *m);
int proto_enc_submitted(struct proto_buf *b, const struct proto_submitted *m);
int proto_enc_jobs(struct proto_buf *b, const struct proto_jobs *m);
/* The same a job at a time, for a listing made as it is encoded: add
 * returns false, and adds nothing, when the job would take the frame past
 * PROTO_MAX_PAYLOAD (or memory ran out); end writes how many there were
 * if more than were added. */
void proto_jobs_begin(struct proto_buf *b);
bool proto_jobs_add(struct proto_buf *b, const struct proto_job *j);
int  proto_jobs_end(struct proto_buf *b, uint32_t count, uint32_t total);
/* The same with the forecast's fields: those of `tail` but its jobs. */
int  proto_jobs_finish(struct proto_buf *b, const struct proto_jobs *tail);
int proto_enc_cancelled(struct proto_buf *b, const struct proto_cancelled *m);
int proto_enc_steps(struct proto_buf *b, const struct proto_steps *m);
int proto_enc_nodes(struct proto_buf *b);
int proto_enc_nodemap(struct proto_buf *b, const struct proto_nodemap *m);
int proto_enc_history(struct proto_buf *b, const struct proto_history *m);
int proto_enc_jobctl(struct proto_buf *b, const struct proto_jobctl *m);
int proto_enc_jobctled(struct proto_buf *b, const struct proto_cancelled *m);
/* A request with no fields (PT_NODELIST, PT_STATUS, ...). */
int proto_enc_empty(struct proto_buf *b, enum proto_type type);
int proto_enc_nodectl(struct proto_buf *b, const struct proto_nodectl *m);
int proto_enc_nodestates(struct proto_buf *b, const struct proto_nodestates *m);
int proto_enc_statusinfo(struct proto_buf *b, const struct proto_statusinfo *m);

/* Decoders read the payload of a frame that proto_frame() accepted, into
 * *m, whose strings and arrays point into the frame or into `arena`
 * (freed with proto_arena_free). 0, or -1 with the reason in err. */
struct proto_arena {
	void **blocks;
	size_t n, cap;
	char *chunk;		/* small allocations are carved from here */
	size_t chunk_left;
};
void proto_arena_free(struct proto_arena *a);

int proto_dec_submit(const uint8_t *frame, size_t len, struct proto_submit *m,
                     struct proto_arena *a, char *err, size_t errlen);
int proto_dec_list(const uint8_t *frame, size_t len, struct proto_list *m, char *err, size_t errlen);
int proto_dec_cancel(const uint8_t *frame, size_t len, struct proto_cancel *m,
                     struct proto_arena *a, char *err, size_t errlen);
int proto_dec_error(const uint8_t *frame, size_t len, struct proto_error *m,
                    struct proto_arena *a, char *err, size_t errlen);
int proto_dec_submitted(const uint8_t *frame, size_t len, struct proto_submitted *m,
                        char *err, size_t errlen);
int proto_dec_jobs(const uint8_t *frame, size_t len, struct proto_jobs *m,
                   struct proto_arena *a, char *err, size_t errlen);
int proto_dec_cancelled(const uint8_t *frame, size_t len, struct proto_cancelled *m,
                        struct proto_arena *a, char *err, size_t errlen);
int proto_dec_steps(const uint8_t *frame, size_t len, struct proto_steps *m,
                    struct proto_arena *a, char *err, size_t errlen);
int proto_dec_nodemap(const uint8_t *frame, size_t len, struct proto_nodemap *m,
                      struct proto_arena *a, char *err, size_t errlen);
int proto_dec_jobctl(const uint8_t *frame, size_t len, struct proto_jobctl *m,
                     struct proto_arena *a, char *err, size_t errlen);
int proto_dec_jobctled(const uint8_t *frame, size_t len, struct proto_cancelled *m,
                       struct proto_arena *a, char *err, size_t errlen);
int proto_dec_history(const uint8_t *frame, size_t len, struct proto_history *m, char *err,
                      size_t errlen);
int proto_dec_nodectl(const uint8_t *frame, size_t len, struct proto_nodectl *m,
                      struct proto_arena *a, char *err, size_t errlen);
int proto_dec_nodestates(const uint8_t *frame, size_t len, struct proto_nodestates *m,
                         struct proto_arena *a, char *err, size_t errlen);
int proto_dec_statusinfo(const uint8_t *frame, size_t len, struct proto_statusinfo *m,
                         struct proto_arena *a, char *err, size_t errlen);

#endif
