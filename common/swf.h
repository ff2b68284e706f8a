/* Standard Workload Format: reading (plain or gzip, transparently) and
 * writing job lines. One job per line, 18 whitespace-separated numeric
 * fields, -1 for unknown; lines starting with ';' are header comments.
 *
 * The parser is syntactic: it checks the field count, that every field is a
 * number (an integer; field 6, average CPU time, may have a fraction) and
 * that it fits in 64 bits. What the values mean (a negative run time, a job
 * larger than the machine) is the replay's business. Every malformed line is
 * reported as "file:line: message" and reading can go on past it. */
#ifndef BF_SWF_H
#define BF_SWF_H
#include <stddef.h>
#include <stdint.h>

#define SWF_FIELDS    18
#define SWF_MAX_LINE  4096	/* longer lines are malformed, not truncated */

/* Field indices (0-based; the SWF documentation numbers them from 1). */
enum swf_field {
	SWF_JOB, SWF_SUBMIT, SWF_WAIT, SWF_RUN, SWF_ALLOC, SWF_AVGCPU, SWF_USEDMEM,
	SWF_REQPROCS, SWF_REQTIME, SWF_REQMEM, SWF_STATUS, SWF_USER, SWF_GROUP,
	SWF_EXE, SWF_QUEUE, SWF_PARTITION, SWF_PRECEDING, SWF_THINK,
};

struct swf_job {
	int64_t f[SWF_FIELDS];	/* f[SWF_AVGCPU] holds field 6 truncated */
	double avg_cpu;		/* field 6, the only fractional one; swf_format
				 * writes field 6 from here, not from f[] */
};

struct swf_header {
	int64_t max_nodes;	/* "; MaxNodes:", -1 if absent */
	int64_t max_procs;	/* "; MaxProcs:", -1 if absent */
	int64_t unix_start;	/* "; UnixStartTime:", -1 if absent */
	char *text;		/* header lines seen, '\n'-terminated, up to 1 MiB */
	size_t text_len;
};

/* Pure parsing of one line (no trailing newline needed).
 * Returns 1 for a job (in *job), 0 for a comment or blank line, -1 for a
 * malformed line with the reason (no file:line prefix) in msg. */
int  swf_parse_line(const char *line, size_t len, struct swf_job *job, char *msg, size_t msglen);
/* If line is a header comment naming MaxNodes/MaxProcs/UnixStartTime, store
 * the value in h. Other comments are ignored. */
void swf_parse_header(const char *line, size_t len, struct swf_header *h);
/* Format a job as one SWF line with '\n'; returns its length (as snprintf). */
int  swf_format(const struct swf_job *job, char *buf, size_t len);

struct swf_reader;
/* Open a trace ("-" is standard input). Returns NULL with the reason in err. */
struct swf_reader *swf_open(const char *path, char *err, size_t errlen);
/* Read the next job. Returns 1 (a job), 0 (end of file), -1 (a malformed
 * line: err has "file:line: reason", *job may be partly filled; call again
 * to go on), -2 (I/O or decompression error: err has "file: read error after
 * line N: reason"; stop). */
int  swf_next(struct swf_reader *r, struct swf_job *job, char *err, size_t errlen);
/* Header lines read so far (comment lines after the first job are added
 * as they are read, so all of them once swf_next has returned 0). */
const struct swf_header *swf_get_header(const struct swf_reader *r);
/* 1-based number of the line last read. */
unsigned long swf_lineno(const struct swf_reader *r);
void swf_close(struct swf_reader *r);

#endif
