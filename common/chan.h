/* The frames of a cluster job's channels (backfilld(8), "Cluster"):
 *   - the ssh channel between a job's supervisor, on the daemon's host,
 *     and the job's node side on each of its nodes (daemon/sys/remote.c,
 *     daemon/sys/node*.c);
 *   - a node side's launch socket, through which blaunch (client/blaunch.c)
 *     asks it to run a task on the job's nodes.
 *
 * A frame is
 *   bytes 0-3  length of the rest (5 + payload), unsigned big-endian, at
 *              least 5 and at most CHAN_MAX_FRAME
 *   byte  4    type (one letter: CHAN_* below)
 *   bytes 5-8  stream, unsigned big-endian (0: the job itself; else one
 *              task of blaunch's)
 *   bytes 9-   payload
 * A payload of fields is a run of NUL-terminated "key=value" strings (a
 * key may repeat: one per argument, environment entry or node); data
 * (a script, a task's output) is raw bytes. Pure: no I/O here but in
 * chan_fill and chan_flush, which read and write a descriptor. */
#ifndef BF_CHAN_H
#define BF_CHAN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CHAN_HEADER    9u
#define CHAN_MAX_FRAME (16u * 1024 * 1024)	/* a job: its script, arguments, environment */
#define CHAN_MAX_DATA  (64u * 1024)		/* one frame of a task's input or output */

/* Supervisor -> node side (stream 0 unless said). */
#define CHAN_JOB      'J'	/* fields: the job (node.c lists them) */
#define CHAN_SCRIPT   'S'	/* data: the script (first node only) */
#define CHAN_SIGNAL   'K'	/* fields: sig=N, to every process of the job */
#define CHAN_END      'E'	/* end the job here: kill what is left, report, exit */
#define CHAN_LIMIT    'M'	/* fields: term_in_ms=N: the limit moved (bctl limit) */
#define CHAN_PING     'P'	/* the link is alive (also node side -> supervisor) */
#define CHAN_TASK     'T'	/* stream g: fields: a task to run here (blaunch) */
#define CHAN_IN       'I'	/* stream g: data for the task's input; empty: its end */
#define CHAN_CLOSE    'C'	/* stream g: whoever asked is gone: kill the task */
#define CHAN_OUT      'O'	/* stream s: a task's output, for blaunch's stdout */
#define CHAN_ERR      'R'	/* stream s: ... for blaunch's stderr */
#define CHAN_EXIT     'X'	/* stream s: fields: status=W (a wait status) */
#define CHAN_FAIL     'F'	/* stream s: data: why the task did not run */
/* Node side -> supervisor. */
#define CHAN_READY    'A'	/* fields: the node side holds the job (pid=, cgroup=) */
#define CHAN_DONE     'D'	/* fields: status=W, reason=: the script ended (first node) */
#define CHAN_USAGE    'U'	/* fields: cpu_us=, mem_kb=, sources: the node side's last word */
#define CHAN_LAUNCH   'L'	/* stream s: fields: a task blaunch asks for, node=TARGET */
#define CHAN_TIN      'i'	/* stream s: blaunch's input for the task */
#define CHAN_TCLOSE   'c'	/* stream s: blaunch went away */
#define CHAN_TOUT     'o'	/* stream g: the task's output */
#define CHAN_TERR     'r'	/* stream g: the task's standard error */
#define CHAN_TEXIT    'x'	/* stream g: fields: status=W */
#define CHAN_TFAIL    'f'	/* stream g: data: why the task did not run */
/* blaunch -> node side, on the launch socket: a request (fields: node=,
 * arg=, env=, cwd=, shell=0|1), then CHAN_IN data for the task's input.
 * The node side answers with CHAN_OUT, CHAN_ERR, CHAN_EXIT and CHAN_FAIL,
 * their stream the index of the node in the request. */
#define CHAN_REQUEST  'Q'

/* A growing buffer of bytes: data at p[off, len). */
struct chan_buf {
	uint8_t *p;
	size_t off, len, cap;
};

struct chan_frame {
	uint8_t type;
	uint32_t stream;
	const uint8_t *data;
	size_t len;
};

void   chan_buf_free(struct chan_buf *b);
size_t chan_pending(const struct chan_buf *b);
/* Append a frame. 0, or -1 (out of memory, or a payload over the cap). */
int    chan_put(struct chan_buf *b, uint8_t type, uint32_t stream, const void *data, size_t len);
/* The next whole frame at the front: 1 (f points into b until the next
 * call that changes b), 0 (more bytes needed), -1 (a length out of
 * bounds: the peer is broken or hostile). */
int    chan_take(struct chan_buf *b, struct chan_frame *f);

/* Append raw bytes (a payload built elsewhere). 0 or -1. */
int    chan_append(struct chan_buf *b, const void *data, size_t len);
/* Fields: append "key=value" (value may be NULL: "key="), or a number. */
int    chan_field(struct chan_buf *payload, const char *key, const char *value);
int    chan_field_num(struct chan_buf *payload, const char *key, long long v);
/* Iterate a frame's fields: *pos starts at 0; each call gives the next
 * key (len in *klen) and value (NUL-terminated); false at the end or at
 * a field that is not NUL-terminated or has no '='. */
bool   chan_next_field(const struct chan_frame *f, size_t *pos, const char **key, size_t *klen,
                       const char **value);
bool   chan_key_is(const char *key, size_t klen, const char *want);
/* The first value of key, or NULL. */
const char *chan_get(const struct chan_frame *f, const char *want);
/* A number field: true with *v if present, whole and within [lo, hi]. */
bool   chan_get_num(const struct chan_frame *f, const char *want, long long lo, long long hi,
                    long long *v);

/* Read what fd has into b, up to `most` bytes buffered: >0 bytes read, 0
 * end of file, -1 error (EAGAIN: nothing now). */
ssize_t chan_fill(int fd, struct chan_buf *b, size_t most);
/* Write what b holds to fd: 0 all written or it would block (the rest
 * stays), -1 error. */
int    chan_flush(int fd, struct chan_buf *b);

#endif
