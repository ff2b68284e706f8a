/* libFuzzer target for common/swf.c: the line parser, the header parser,
 * the formatter and the file reader (plain and gzip).
 *
 * Every check failure calls abort(), so libFuzzer reports it as a crash
 * with the input saved. What is checked, per input:
 *
 *  - each line (split at '\n', copied to a heap block of exactly its length
 *    so that AddressSanitizer sees any over-read) through swf_parse_line,
 *    with and without a trailing '\n' and with msg == NULL, all agreeing;
 *  - swf_parse_line against an independent oracle built on strtoll/strtod
 *    (same return code; same values, bit for bit apart from -0.0);
 *  - swf_parse_header against an independent oracle;
 *  - every parsed job through swf_format: the text parses back to the same
 *    job, formatting is idempotent, and the output respects the buffer size
 *    like snprintf (exact-size heap buffers, truncation, len == 0, NULL);
 *  - swf_format on a job made of the input's first raw bytes (NaN,
 *    infinities, subnormals, huge values in field 6);
 *  - the whole input written to a file (a memfd) and read with swf_open /
 *    swf_next: "path:LINE:" prefixes with LINE == swf_lineno(), -2 sticky,
 *    0 sticky, and for a plain file the exact sequence of results and the
 *    header the line-by-line model predicts; swf_close frees everything
 *    (LeakSanitizer) and closes the file (descriptor check).
 *
 * The first line of an input may switch on a file mode: it starts with '#'
 * followed by flag letters: 'p' puts nearly 256 KiB of comment lines in
 * front of the input (so its lines straddle the reader's buffer boundary),
 * 'z' gzip-compresses the file (the reader must then still match the
 * model), 'c' gzip-compresses and cuts the end off (the reader must give a
 * prefix of the model's results, then -2). Any other input is written as
 * it is; input that starts with the gzip magic is then decompressed by the
 * reader, and only the model-free checks apply. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include "swf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define READ_BUF_GUESS (256 * 1024)	/* swf.c's READ_BUF, for padding */
#define HEADER_MAX     (1024 * 1024)	/* swf.c's header text limit */
#define MSG_LEN        256		/* what swf_next gives swf_parse_line */
#define TWO_POW_63     9223372036854775808.0

#define CHECK(cond) do { if (!(cond)) check_failed(#cond, __LINE__); } while (0)

static void check_failed(const char *what, int line)
{
	fprintf(stderr, "fuzz_swf.c:%d: check failed: %s\n", line, what);
	abort();
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

/* ---- growable byte buffer ---- */

struct bytes {
	char *p;
	size_t len, cap;
};

static void bytes_add(struct bytes *b, const void *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *t;
		while (cap < b->len + n + 1)
			cap *= 2;
		t = realloc(b->p, cap);
		if (!t)
			abort();
		b->p = t;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* ---- the model: what swf_next should return for a plain file ---- */

struct result {
	unsigned long lineno;
	int rc;			/* 1 or -1 */
	struct swf_job job;
	char msg[MSG_LEN];
};

struct model {
	struct result *res;
	size_t nres, cap;
	unsigned long lines;
	struct swf_header hdr;	/* keys and text, as swf_next keeps them */
	struct bytes text;
};

static void model_add(struct model *m, unsigned long lineno, int rc,
		      const struct swf_job *job, const char *msg)
{
	struct result *r;

	if (m->nres == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct result *t = realloc(m->res, cap * sizeof *t);
		if (!t)
			abort();
		m->res = t;
		m->cap = cap;
	}
	r = &m->res[m->nres++];
	memset(r, 0, sizeof *r);
	r->lineno = lineno;
	r->rc = rc;
	if (rc == 1)
		r->job = *job;
	else
		snprintf(r->msg, sizeof r->msg, "%s", msg);
}

/* ---- independent oracles ---- */

/* Field 1..18 except 6: [+-]?[0-9]+ fitting int64_t. 1 ok, 0 bad. */
static int oracle_int(const char *s, size_t n, int64_t *out)
{
	char tmp[SWF_MAX_LINE + 1];
	size_t i = 0;
	long long v;
	char *end;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	if (i == n)
		return 0;
	for (; i < n; i++)
		if (!is_digit(s[i]))
			return 0;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	v = strtoll(tmp, &end, 10);
	if (errno == ERANGE || end != tmp + n)
		return 0;
	*out = (int64_t)v;
	return 1;
}

/* Field 6: [+-]? digits* ('.' digits*)?, at least one digit, the nearest
 * double strictly inside (-2^63, 2^63). */
static int oracle_decimal(const char *s, size_t n, double *out)
{
	char tmp[SWF_MAX_LINE + 1];
	size_t i = 0, digits = 0;
	int dot = 0;
	double v;
	char *end;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	for (; i < n; i++) {
		if (is_digit(s[i]))
			digits++;
		else if (s[i] == '.' && !dot)
			dot = 1;
		else
			return 0;
	}
	if (!digits)
		return 0;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	v = strtod(tmp, &end);	/* the fuzzer runs in the "C" locale */
	if (end != tmp + n)
		return 0;
	if (!(v < TWO_POW_63 && v > -TWO_POW_63))
		return 0;
	*out = v;
	return 1;
}

/* What swf_parse_line should return for line[0, n), and the job. */
static int oracle_line(const char *line, size_t n, struct swf_job *job)
{
	const char *p, *end, *tok[SWF_FIELDS];
	size_t tlen[SWF_FIELDS], cnt = 0;
	int i;

	if (n > 0 && line[n - 1] == '\n')
		n--;
	if (n > 0 && line[n - 1] == '\r')
		n--;
	if (n > SWF_MAX_LINE || memchr(line, '\0', n))
		return -1;
	p = line;
	end = line + n;
	while (p < end && is_blank(*p))
		p++;
	if (p == end || *p == ';')
		return 0;
	while (p < end) {
		const char *s = p;
		while (p < end && !is_blank(*p))
			p++;
		if (cnt < SWF_FIELDS) {
			tok[cnt] = s;
			tlen[cnt] = (size_t)(p - s);
		}
		cnt++;
		while (p < end && is_blank(*p))
			p++;
	}
	if (cnt != SWF_FIELDS)
		return -1;
	for (i = 0; i < SWF_FIELDS; i++) {
		if (i == SWF_AVGCPU) {
			if (!oracle_decimal(tok[i], tlen[i], &job->avg_cpu))
				return -1;
			job->f[i] = (int64_t)job->avg_cpu;
		} else if (!oracle_int(tok[i], tlen[i], &job->f[i])) {
			return -1;
		}
	}
	return 1;
}

/* What swf_parse_header should do to h for line[0, n). */
static void oracle_header(const char *line, size_t n, struct swf_header *h)
{
	static const char *const keys[] = { "MaxNodes", "MaxProcs", "UnixStartTime" };
	int64_t *dst[3] = { &h->max_nodes, &h->max_procs, &h->unix_start };
	char tmp[32];
	size_t i = 0, k, klen, d0, nd;
	long long v;

	while (i < n && is_blank(line[i]))
		i++;
	if (i == n || line[i] != ';')
		return;
	i++;
	while (i < n && is_blank(line[i]))
		i++;
	for (k = 0; k < 3; k++) {
		klen = strlen(keys[k]);
		if (n - i > klen && memcmp(line + i, keys[k], klen) == 0 &&
		    line[i + klen] == ':')
			break;
	}
	if (k == 3)
		return;
	i += klen + 1;
	while (i < n && is_blank(line[i]))
		i++;
	d0 = i;
	if (i < n && (line[i] == '+' || line[i] == '-'))
		i++;
	nd = 0;
	while (i < n && is_digit(line[i])) {
		i++;
		nd++;
	}
	if (nd == 0)
		return;
	if (i - d0 >= sizeof tmp) {
		/* Many digits: out of range unless they are mostly leading zeros. */
		size_t j = d0 + (line[d0] == '+' || line[d0] == '-');
		size_t keep = 0;
		while (j < i - 1 && line[j] == '0')
			j++;
		if (i - j >= 20)
			return;
		if (line[d0] == '-')
			tmp[keep++] = '-';
		memcpy(tmp + keep, line + j, i - j);
		tmp[keep + (i - j)] = '\0';
	} else {
		memcpy(tmp, line + d0, i - d0);
		tmp[i - d0] = '\0';
	}
	errno = 0;
	v = strtoll(tmp, NULL, 10);
	if (errno == ERANGE)
		return;
	*dst[k] = (int64_t)v;
}

/* ---- comparisons ---- */

/* All fields; field 6 through avg_cpu (== so that -0.0 equals 0.0). */
static int same_job(const struct swf_job *a, const struct swf_job *b)
{
	int i;

	for (i = 0; i < SWF_FIELDS; i++)
		if (i != SWF_AVGCPU && a->f[i] != b->f[i])
			return 0;
	return a->avg_cpu == b->avg_cpu;
}

/* The same, also requiring the f[] copy of field 6 and the sign of 0. */
static int same_parse(const struct swf_job *a, const struct swf_job *b)
{
	return same_job(a, b) && a->f[SWF_AVGCPU] == b->f[SWF_AVGCPU] &&
	       !signbit(a->avg_cpu) == !signbit(b->avg_cpu);
}

/* ---- swf_format ---- */

/* Format job and check the snprintf contract; returns the text (malloc'd,
 * NUL-terminated) and its length in *np. param varies buffer sizes. */
static char *format_checked(const struct swf_job *job, int *np, unsigned param)
{
	size_t sizes[8], i, ns = 0;
	char guard[4] = { 'G', 'G', 'G', 'G' };
	char *full;
	int n, r;

	n = swf_format(job, NULL, 0);
	CHECK(n > 0 && n < 4096);
	full = xmalloc((size_t)n + 1);
	r = swf_format(job, full, (size_t)n + 1);
	CHECK(r == n);
	CHECK(full[n] == '\0');
	CHECK(memchr(full, '\0', (size_t)n) == NULL);
	CHECK(full[n - 1] == '\n');
	CHECK(memchr(full, '\n', (size_t)n - 1) == NULL);

	/* len == 0 with a buffer: nothing written. */
	r = swf_format(job, guard, 0);
	CHECK(r == n && guard[0] == 'G');

	/* Short and exact buffers, each an exact-size heap block. */
	sizes[ns++] = 1;
	sizes[ns++] = 2;
	sizes[ns++] = (size_t)n / 2 + 1;
	sizes[ns++] = (size_t)n - 1;
	sizes[ns++] = (size_t)n;		/* all but the '\n' */
	sizes[ns++] = (size_t)n + 2;
	sizes[ns++] = 1 + param % ((unsigned)n + 1);
	for (i = 0; i < ns; i++) {
		size_t len = sizes[i], copy;
		char *b = xmalloc(len);
		if (len == 0) {
			free(b);
			continue;
		}
		memset(b, 'X', len);
		r = swf_format(job, b, len);
		CHECK(r == n);
		copy = (size_t)n < len ? (size_t)n : len - 1;
		CHECK(memcmp(b, full, copy) == 0);
		CHECK(b[copy] == '\0');
		free(b);
	}
	*np = n;
	return full;
}

/* A job from the line parser: the text must parse back to the same job,
 * and formatting that must give the same text. */
static void check_roundtrip(const struct swf_job *job, unsigned param)
{
	struct swf_job back;
	char msg[MSG_LEN];
	char *text, *text2;
	int n, n2, rc;

	text = format_checked(job, &n, param);
	memset(&back, 0x5a, sizeof back);
	rc = swf_parse_line(text, (size_t)n, &back, msg, sizeof msg);
	if (rc != 1 || !same_job(job, &back)) {
		fprintf(stderr, "round trip failed (rc %d): %s", rc, text);
		abort();
	}
	CHECK(back.f[SWF_AVGCPU] == (int64_t)back.avg_cpu);
	text2 = format_checked(&back, &n2, param);
	CHECK(n2 == n && memcmp(text, text2, (size_t)n) == 0);
	free(text2);
	free(text);
}

/* A job of raw bytes: field 6 may be anything. Finite values inside
 * (-2^63, 2^63) must round-trip, NaN and infinities are written as -1,
 * larger integral values are written but do not parse. */
static void check_raw_format(const uint8_t *data, size_t size, unsigned param)
{
	struct swf_job job, back;
	char msg[MSG_LEN];
	char *text;
	double v;
	int n, rc;

	if (size < sizeof job)
		return;
	memcpy(&job, data, sizeof job);
	v = job.avg_cpu;
	text = format_checked(&job, &n, param);
	rc = swf_parse_line(text, (size_t)n, &back, msg, sizeof msg);
	if (!isfinite(v)) {
		job.avg_cpu = -1;
		CHECK(rc == 1 && same_job(&job, &back));
	} else if (v < TWO_POW_63 && v > -TWO_POW_63) {
		if (rc != 1 || !same_job(&job, &back)) {
			fprintf(stderr, "raw round trip failed (rc %d, %a): %s", rc, v, text);
			abort();
		}
	} else {
		CHECK(rc == -1 && strstr(msg, "field 6") != NULL);
	}
	free(text);
}

/* ---- one line ---- */

static void check_line(const char *src, size_t n, struct model *m, struct swf_header *all,
		       unsigned param, int deep)
{
	struct swf_job job, job2, job3, want;
	struct swf_header h1, h2;
	char msg[MSG_LEN], msg2[MSG_LEN];
	char *line, *nl;
	int rc, rc2, rc3, orc;
	size_t i;

	m->lines++;
	/* Exact-size copies, so that reading past the length is caught. */
	line = xmalloc(n);
	memcpy(line, src, n);

	memset(&job, 0x5a, sizeof job);
	msg[0] = '\0';
	rc = swf_parse_line(line, n, &job, msg, sizeof msg);
	CHECK(rc == 1 || rc == 0 || rc == -1);
	if (rc == -1) {
		CHECK(msg[0] != '\0');
		CHECK(memchr(msg, '\0', sizeof msg) != NULL);
		model_add(m, m->lines, -1, NULL, msg);
	} else if (rc == 1) {
		CHECK(job.f[SWF_AVGCPU] == (int64_t)job.avg_cpu);
		model_add(m, m->lines, 1, &job, NULL);
	} else {
		/* A comment or blank line: swf_next keeps comments as headers. */
		const char *p = line;
		size_t len = n;
		while (len > 0 && is_blank(*p)) {
			p++;
			len--;
		}
		if (len > 0 && *p == ';') {
			if (p[len - 1] == '\r')
				len--;
			swf_parse_header(p, len, &m->hdr);
			if (m->text.len + len + 2 <= HEADER_MAX) {
				bytes_add(&m->text, p, len);
				bytes_add(&m->text, "\n", 1);
			}
		}
	}

	/* Both header parsers on every line, from the same start. */
	h1.max_nodes = h1.max_procs = h1.unix_start = -7;
	h1.text = NULL;
	h1.text_len = 0;
	h2 = h1;
	swf_parse_header(line, n, &h1);
	oracle_header(line, n, &h2);
	CHECK(h1.max_nodes == h2.max_nodes && h1.max_procs == h2.max_procs &&
	      h1.unix_start == h2.unix_start);
	CHECK(h1.text == NULL && h1.text_len == 0);
	swf_parse_header(line, n, all);

	if (!deep) {
		free(line);
		return;
	}

	/* The independent oracle. */
	memset(&want, 0, sizeof want);
	orc = oracle_line(line, n, &want);
	if (orc != rc || (rc == 1 && !same_parse(&job, &want))) {
		fprintf(stderr, "parser and oracle disagree: rc %d, oracle %d, msg '%s'\n",
			rc, orc, rc == -1 ? msg : "");
		for (i = 0; rc == 1 && i < SWF_FIELDS; i++)
			fprintf(stderr, "  field %zu: %lld %lld\n", i + 1,
				(long long)job.f[i], (long long)want.f[i]);
		if (rc == 1)
			fprintf(stderr, "  avg_cpu %a %a\n", job.avg_cpu, want.avg_cpu);
		abort();
	}

	/* A trailing '\n' changes nothing; neither does msg == NULL. */
	nl = xmalloc(n + 1);
	memcpy(nl, line, n);
	nl[n] = '\n';
	memset(&job2, 0x33, sizeof job2);
	msg2[0] = '\0';
	rc2 = swf_parse_line(nl, n + 1, &job2, msg2, sizeof msg2);
	CHECK(rc2 == rc);
	if (rc == 1)
		CHECK(same_parse(&job, &job2));
	if (rc == -1)
		CHECK(strcmp(msg, msg2) == 0);
	free(nl);
	rc3 = swf_parse_line(line, n, &job3, NULL, 0);
	CHECK(rc3 == rc);
	/* A tiny message buffer is cut, snprintf-like. */
	if (rc == -1) {
		char small[2] = { 'Q', 'Q' };
		rc3 = swf_parse_line(line, n, &job3, small, 1);
		CHECK(rc3 == -1 && small[0] == '\0' && small[1] == 'Q');
	}

	if (rc == 1)
		check_roundtrip(&job, param);
	free(line);
}

/* ---- the file ---- */

static int file_fd = -1;
static char file_path[64];

static void file_setup(void)
{
	int fd;

	if (file_fd >= 0)
		return;
	fd = memfd_create("fuzz_swf", MFD_CLOEXEC);
	if (fd >= 0) {
		int probe;
		snprintf(file_path, sizeof file_path, "/proc/self/fd/%d", fd);
		probe = open(file_path, O_RDONLY | O_CLOEXEC);
		if (probe >= 0) {
			close(probe);
			file_fd = fd;
			return;
		}
		close(fd);
	}
	/* No memfd or no /proc: a file of our own under /tmp. */
	snprintf(file_path, sizeof file_path, "/tmp/fuzz_swf.%ld.swf", (long)getpid());
	file_fd = open(file_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (file_fd < 0) {
		perror(file_path);
		abort();
	}
}

static void file_write(const char *p, size_t n)
{
	off_t off = 0;

	if (ftruncate(file_fd, 0) != 0)
		abort();
	while (n > 0) {
		ssize_t w = pwrite(file_fd, p, n, off);
		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			abort();
		}
		p += w;
		n -= (size_t)w;
		off += w;
	}
}

/* The lowest free descriptor: swf_close must give back what swf_open took. */
static int lowest_free_fd(void)
{
	int fd = dup(file_fd);

	if (fd < 0)
		abort();
	close(fd);
	return fd;
}

static void gzip_bytes(const char *p, size_t n, struct bytes *out, int level)
{
	z_stream zs;
	unsigned char chunk[16384];
	int ret;

	memset(&zs, 0, sizeof zs);
	if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	zs.next_in = (unsigned char *)(uintptr_t)p;
	zs.avail_in = (uInt)n;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof chunk;
		ret = deflate(&zs, Z_FINISH);
		if (ret == Z_STREAM_ERROR)
			abort();
		bytes_add(out, chunk, sizeof chunk - zs.avail_out);
	} while (ret != Z_STREAM_END);
	deflateEnd(&zs);
}

enum expect { EXPECT_NONE, EXPECT_ALL, EXPECT_PREFIX };

/* "path:LINE: " */
static void check_line_prefix(const char *err, unsigned long lineno)
{
	char want[128];
	int w = snprintf(want, sizeof want, "%s:%lu: ", file_path, lineno);

	if (strncmp(err, want, (size_t)w) != 0 || err[w] == '\0') {
		fprintf(stderr, "bad error prefix (want '%s'): '%s'\n", want, err);
		abort();
	}
}

static void read_file_checked(const struct model *m, enum expect ex, unsigned param)
{
	struct swf_reader *r;
	struct swf_job job;
	char err[512], err2[512], want[128];
	size_t k = 0;
	unsigned long lineno, last = 0;
	int rc, fd0;

	fd0 = lowest_free_fd();
	err[0] = '\0';
	r = swf_open(file_path, err, sizeof err);
	if (!r) {
		fprintf(stderr, "swf_open failed: %s\n", err);
		abort();
	}
	CHECK(swf_lineno(r) == 0);
	for (;;) {
		memset(&job, 0x5a, sizeof job);
		err[0] = '\0';
		rc = swf_next(r, &job, err, sizeof err);
		lineno = swf_lineno(r);
		CHECK(lineno >= last);
		last = lineno;
		if (rc == 1) {
			if (ex != EXPECT_NONE) {
				CHECK(k < m->nres);
				CHECK(m->res[k].rc == 1 && m->res[k].lineno == lineno);
				CHECK(same_parse(&job, &m->res[k].job));
				k++;
			} else {
				CHECK(job.f[SWF_AVGCPU] == (int64_t)job.avg_cpu);
				check_roundtrip(&job, param);
			}
		} else if (rc == -1) {
			check_line_prefix(err, lineno);
			if (ex != EXPECT_NONE) {
				size_t w;
				CHECK(k < m->nres);
				CHECK(m->res[k].rc == -1 && m->res[k].lineno == lineno);
				w = (size_t)snprintf(want, sizeof want, "%s:%lu: ", file_path, lineno);
				if (strcmp(err + w, m->res[k].msg) != 0) {
					fprintf(stderr, "reader '%s', model '%s'\n", err, m->res[k].msg);
					abort();
				}
				k++;
			}
		} else if (rc == -2) {
			int w = snprintf(want, sizeof want, "%s: read error after line %lu: ",
					 file_path, lineno);
			if (strncmp(err, want, (size_t)w) != 0 || err[w] == '\0') {
				fprintf(stderr, "bad I/O error (want '%s'): '%s'\n", want, err);
				abort();
			}
			CHECK(ex != EXPECT_ALL);
			if (ex == EXPECT_PREFIX)
				CHECK(strstr(err, "unexpected end of compressed data") != NULL);
			/* Sticky. */
			rc = swf_next(r, &job, err2, sizeof err2);
			CHECK(rc == -2 && strcmp(err, err2) == 0);
			CHECK(swf_lineno(r) == lineno);
			break;
		} else {
			CHECK(rc == 0);
			CHECK(ex != EXPECT_PREFIX);
			if (ex == EXPECT_ALL) {
				const struct swf_header *h = swf_get_header(r);
				CHECK(k == m->nres);
				CHECK(lineno == m->lines);
				CHECK(h->max_nodes == m->hdr.max_nodes);
				CHECK(h->max_procs == m->hdr.max_procs);
				CHECK(h->unix_start == m->hdr.unix_start);
				CHECK(h->text_len == m->text.len);
				CHECK(h->text_len == 0 ||
				      memcmp(h->text, m->text.p, h->text_len) == 0);
			}
			/* Sticky. */
			rc = swf_next(r, &job, err2, sizeof err2);
			CHECK(rc == 0 && swf_lineno(r) == lineno);
			break;
		}
	}
	{
		const struct swf_header *h = swf_get_header(r);
		CHECK(h->text != NULL);
		CHECK(h->text[h->text_len] == '\0' && strlen(h->text) == h->text_len);
		CHECK(h->text_len < HEADER_MAX);
		CHECK(h->text_len == 0 || h->text[h->text_len - 1] == '\n');
	}
	swf_close(r);
	CHECK(lowest_free_fd() == fd0);
}

/* ---- once: the error paths of swf_open ---- */

static void check_open_errors(void)
{
	static int done;
	char err[256];
	int fd0;

	if (done)
		return;
	done = 1;
	fd0 = lowest_free_fd();
	err[0] = '\0';
	CHECK(swf_open(NULL, err, sizeof err) == NULL && err[0] != '\0');
	CHECK(swf_open("/", err, sizeof err) == NULL && strncmp(err, "/: ", 3) == 0);
	CHECK(swf_open("/nonexistent/fuzz_swf", err, sizeof err) == NULL &&
	      strncmp(err, "/nonexistent/fuzz_swf: ", 23) == 0);
	CHECK(swf_open("/", NULL, 0) == NULL);
	swf_close(NULL);
	CHECK(lowest_free_fd() == fd0);
}

/* ---- the entry point ---- */

static unsigned hash_bytes(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static void add_padding(struct bytes *b, size_t total)
{
	char line[4000];

	memset(line, 'p', sizeof line);
	line[0] = ';';
	while (total > 0) {
		size_t l = total < sizeof line ? total : sizeof line;
		if (l == 1) {
			bytes_add(b, "\n", 1);
		} else {
			bytes_add(b, line, l - 1);
			bytes_add(b, "\n", 1);
		}
		total -= l;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct bytes content = { 0 }, file = { 0 };
	struct model m;
	struct swf_header all;
	const char *first_end;
	size_t first_len, i, start, pad_len = 0;
	int pad = 0, gz = 0, cut = 0;
	unsigned param;
	enum expect ex;

	file_setup();
	check_open_errors();

	first_end = size ? memchr(text, '\n', size) : NULL;
	first_len = first_end ? (size_t)(first_end - text) : size;
	param = hash_bytes(data, first_len);
	if (first_len > 0 && text[0] == '#') {
		for (i = 1; i < first_len && i < 8; i++) {
			if (text[i] == 'p')
				pad = 1;
			else if (text[i] == 'z')
				gz = 1;
			else if (text[i] == 'c')
				cut = gz = 1;
			else
				break;
		}
	}

	/* The text the reader should see. */
	if (pad) {
		/* The reader's first buffer ends within 2 bytes of the end of
		 * the input's second line (so a line of 4096 bytes and a '\r'
		 * can end exactly there), or at one of offsets 0..8399. */
		if (param & 0x10000) {
			const char *nl2 = first_end ? memchr(first_end + 1, '\n',
					size - first_len - 1) : NULL;
			size_t b = nl2 ? (size_t)(nl2 - text) : size;
			pad_len = READ_BUF_GUESS - (b + 2) + param % 5;
		} else {
			pad_len = READ_BUF_GUESS - 8400 + param % 8400;
		}
		add_padding(&content, pad_len);
	}
	bytes_add(&content, text, size);

	/* Line by line, and the model of the reader. */
	memset(&m, 0, sizeof m);
	m.hdr.max_nodes = m.hdr.max_procs = m.hdr.unix_start = -1;
	all.max_nodes = all.max_procs = all.unix_start = -1;
	all.text = NULL;
	all.text_len = 0;
	bytes_add(&m.text, "", 0);
	for (start = 0; start < content.len;) {
		const char *nl = memchr(content.p + start, '\n', content.len - start);
		size_t end = nl ? (size_t)(nl - content.p) : content.len;
		check_line(content.p + start, end - start, &m, &all, param + (unsigned)start,
			   start >= pad_len);
		start = end + 1;
	}
	check_raw_format(data, size, param);

	/* The file. */
	if (gz) {
		gzip_bytes(content.p, content.len, &file, (int)(param % 10));
		if (cut) {
			/* Keep at least the two magic bytes; often cut only a bit
			 * of the trailer. */
			size_t room = file.len - 2;
			size_t c = param & 1 ? 1 + (param >> 1) % 16 : 1 + (param >> 1) % room;
			if (c > room)
				c = room;
			file.len -= c;
		}
		file_write(file.p, file.len);
		ex = cut ? EXPECT_PREFIX : EXPECT_ALL;
	} else {
		file_write(content.p, content.len);
		ex = content.len >= 2 && (unsigned char)content.p[0] == 0x1f &&
		     (unsigned char)content.p[1] == 0x8b ? EXPECT_NONE : EXPECT_ALL;
	}
	read_file_checked(&m, ex, param);

	free(m.res);
	free(m.text.p);
	free(content.p);
	free(file.p);
	return 0;
}
