/* Standard Workload Format reading and writing; see swf.h for the contract.
 *
 * Numbers are parsed by hand: strict (sign and digits, nothing else), no
 * locale, no errno juggling. Field 6 may carry a decimal fraction; it is
 * converted exactly in the common case (at most 19 significant digits giving
 * a mantissa below 2^53 and at most 22 fraction digits: one correctly rounded
 * division) and otherwise by strtod_l in the "C" locale after the text has
 * been checked to be a plain decimal.
 *
 * The reader pulls large blocks through zlib (which passes plain files
 * through unchanged) into its own buffer and splits lines itself, so it sees
 * over-long lines and NUL bytes, and allocates nothing per line. */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "errf.h"
#include "swf.h"

#define READ_BUF     (256 * 1024)	/* must exceed SWF_MAX_LINE + 2 */
#define HEADER_MAX   (1024 * 1024)	/* header text kept, at most */
#define QUOTE_MAX    32		/* characters of a bad field shown in messages */

/* SWF documentation names, numbered from 1 in messages. */
static const char *const field_name[SWF_FIELDS] = {
	"job number", "submit time", "wait time", "run time",
	"allocated processors", "average CPU time", "used memory",
	"requested processors", "requested time", "requested memory",
	"status", "user id", "group id", "executable number", "queue number",
	"partition number", "preceding job", "think time",
};

/* Exact powers of ten as doubles (10^22 is the largest exact one). */
static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

#define TWO_POW_53 9007199254740992ULL
#define TWO_POW_63 9223372036854775808.0	/* exact as a double */

enum num_status { NUM_OK, NUM_NOT_NUMBER, NUM_FRACTION, NUM_RANGE };

static inline int is_blank(char c) { return c == ' ' || c == '\t'; }
static inline unsigned digit(char c) { return (unsigned)(unsigned char)c - '0'; }

/* A bad field for a message (errf_quote, blanks and quotes kept). out
 * needs 4 * QUOTE_MAX + 4 bytes. */
static void quote(char *out, const char *s, size_t n)
{
	errf_quote(out, s, n, QUOTE_MAX, ERRF_KEEP_BLANK | ERRF_KEEP_QUOTE);
}

/* [+-]? digits* ('.' digits*)? with at least one digit: a plain decimal. */
static int is_decimal(const char *s, size_t n)
{
	size_t i = 0, digits = 0;
	int dot = 0;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	for (; i < n; i++) {
		if (digit(s[i]) <= 9)
			digits++;
		else if (s[i] == '.' && !dot)
			dot = 1;
		else
			return 0;
	}
	return digits > 0;
}

/* A strict 64-bit integer: [+-]?[0-9]+ and nothing else. */
static enum num_status parse_int(const char *s, size_t n, int64_t *out)
{
	size_t i = 0, d0;
	int neg = 0;
	uint64_t v = 0, limit;

	if (i < n && (s[i] == '+' || s[i] == '-')) {
		neg = s[i] == '-';
		i++;
	}
	d0 = i;
	if (n - d0 <= 18) {
		/* Up to 18 digits cannot overflow: no checks in the loop. */
		for (; i < n; i++) {
			unsigned c = digit(s[i]);
			if (c > 9)
				break;
			v = v * 10 + c;
		}
	} else {
		limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
		for (; i < n; i++) {
			unsigned c = digit(s[i]);
			if (c > 9)
				break;
			if (v > (limit - c) / 10) {
				/* Too large: only the kind of text is still in question. */
				for (; i < n && digit(s[i]) <= 9; i++)
					;
				if (i == n)
					return NUM_RANGE;
				break;
			}
			v = v * 10 + c;
		}
	}
	if (i != n || i == d0)
		return is_decimal(s, n) ? NUM_FRACTION : NUM_NOT_NUMBER;
	if (!neg)
		*out = (int64_t)v;
	else if (v == (uint64_t)INT64_MAX + 1)
		*out = INT64_MIN;
	else
		*out = -(int64_t)v;
	return NUM_OK;
}

/* The rare inexact case: a checked plain decimal, converted in the "C"
 * locale whatever the process locale is. */
static enum num_status parse_decimal_slow(const char *s, size_t n, double *out)
{
	char tmp[SWF_MAX_LINE + 1];
	locale_t c_locale;
	char *end;
	double v;

	if (n > SWF_MAX_LINE)
		return NUM_RANGE;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c_locale == (locale_t)0)
		return NUM_NOT_NUMBER;
	/* Overflow gives an infinity, which the caller rejects; underflow
	 * (a tiny fraction) gives about 0, which is fine: errno is not needed. */
	v = strtod_l(tmp, &end, c_locale);
	freelocale(c_locale);
	if (end != tmp + n)
		return NUM_NOT_NUMBER;
	*out = v;
	return NUM_OK;
}

/* A plain decimal, [+-]? digits* ('.' digits*)?, to the nearest double;
 * the value must truncate to an int64_t. */
static enum num_status parse_decimal(const char *s, size_t n, double *out)
{
	size_t i = 0;
	int neg = 0, dot = 0, inexact = 0;
	unsigned sig = 0, frac = 0, digits = 0;
	uint64_t m = 0;
	double v;

	if (i < n && (s[i] == '+' || s[i] == '-')) {
		neg = s[i] == '-';
		i++;
	}
	for (; i < n; i++) {
		unsigned c = digit(s[i]);
		if (c <= 9) {
			digits++;
			if (m == 0 && c == 0) {
				/* A leading zero: only its place counts. */
				if (dot)
					frac++;
			} else if (sig < 19) {
				m = m * 10 + c;
				sig++;
				if (dot)
					frac++;
			} else {
				inexact = 1;	/* more digits than fit: keep checking syntax */
			}
		} else if (s[i] == '.' && !dot) {
			dot = 1;
		} else {
			return NUM_NOT_NUMBER;
		}
	}
	if (digits == 0)
		return NUM_NOT_NUMBER;
	if (!inexact && m <= TWO_POW_53 && frac <= 22) {
		/* Both operands exact, so the one division rounds correctly. */
		v = (double)m / pow10_exact[frac];
		if (neg)
			v = -v;
	} else {
		enum num_status st = parse_decimal_slow(s, n, &v);
		if (st != NUM_OK)
			return st;
	}
	if (!(v < TWO_POW_63 && v > -TWO_POW_63))
		return NUM_RANGE;
	*out = v;
	return NUM_OK;
}

int swf_parse_line(const char *line, size_t len, struct swf_job *job, char *msg, size_t msglen)
{
	const char *p, *end, *tok[SWF_FIELDS];
	size_t tlen[SWF_FIELDS], n = 0;
	char shown[4 * QUOTE_MAX + 4];
	const char *nul;
	int i;

	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len > SWF_MAX_LINE)
		return errf(msg, msglen, "line longer than %d bytes", SWF_MAX_LINE);
	nul = memchr(line, '\0', len);
	if (nul)
		return errf(msg, msglen, "embedded NUL byte at column %zu",
			    (size_t)(nul - line) + 1);

	p = line;
	end = line + len;
	while (p < end && is_blank(*p))
		p++;
	if (p == end || *p == ';')
		return 0;

	while (p < end) {
		const char *s = p;
		while (p < end && !is_blank(*p))
			p++;
		if (n < SWF_FIELDS) {
			tok[n] = s;
			tlen[n] = (size_t)(p - s);
		}
		n++;
		while (p < end && is_blank(*p))
			p++;
	}
	if (n != SWF_FIELDS)
		return errf(msg, msglen, "expected %d fields, found %zu", SWF_FIELDS, n);

	for (i = 0; i < SWF_FIELDS; i++) {
		enum num_status st;
		if (i == SWF_AVGCPU) {
			st = parse_decimal(tok[i], tlen[i], &job->avg_cpu);
			if (st == NUM_OK)
				job->f[i] = (int64_t)job->avg_cpu;	/* truncation */
		} else {
			st = parse_int(tok[i], tlen[i], &job->f[i]);
		}
		if (st == NUM_OK)
			continue;
		if (st == NUM_RANGE)
			return errf(msg, msglen, "field %d (%s): out of range",
				    i + 1, field_name[i]);
		quote(shown, tok[i], tlen[i]);
		return errf(msg, msglen, "field %d (%s): not %s: '%s'", i + 1,
			    field_name[i],
			    st == NUM_FRACTION ? "an integer" : "a number", shown);
	}
	return 1;
}

/* "<blanks>;<blanks>Key:" at the start of line: the text after the colon. */
static const char *header_value(const char *p, const char *end, const char *key)
{
	size_t klen = strlen(key);

	while (p < end && is_blank(*p))
		p++;
	if (p == end || *p != ';')
		return NULL;
	p++;
	while (p < end && is_blank(*p))
		p++;
	if ((size_t)(end - p) <= klen || memcmp(p, key, klen) != 0 || p[klen] != ':')
		return NULL;
	return p + klen + 1;
}

void swf_parse_header(const char *line, size_t len, struct swf_header *h)
{
	static const char *const keys[] = { "MaxNodes", "MaxProcs", "UnixStartTime" };
	const char *end = line + len, *p = NULL;
	int64_t *dst[3];
	size_t k, d0;
	int neg = 0;
	uint64_t v = 0, limit;

	dst[0] = &h->max_nodes;
	dst[1] = &h->max_procs;
	dst[2] = &h->unix_start;
	for (k = 0; k < 3; k++) {
		p = header_value(line, end, keys[k]);
		if (p)
			break;
	}
	if (!p)
		return;
	while (p < end && is_blank(*p))
		p++;
	if (p < end && (*p == '+' || *p == '-')) {
		neg = *p == '-';
		p++;
	}
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (d0 = 0; p < end && digit(*p) <= 9; p++, d0++) {
		unsigned c = digit(*p);
		if (v > (limit - c) / 10)
			return;		/* out of range: leave the field alone */
		v = v * 10 + c;
	}
	if (d0 == 0)
		return;			/* not a number: leave the field alone */
	if (!neg)
		*dst[k] = (int64_t)v;
	else if (v == (uint64_t)INT64_MAX + 1)
		*dst[k] = INT64_MIN;
	else
		*dst[k] = -(int64_t)v;
}

/* Decimal digits of v at p; returns the count (at most 20). */
static size_t put_i64(char *p, int64_t v)
{
	char tmp[20];
	size_t n = 0, i;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	i = 0;
	if (v < 0)
		p[i++] = '-';
	while (n)
		p[i++] = tmp[--n];
	return i;
}

/* Does the printed text read back (by our own parser) as exactly v? */
static int reads_back(const char *s, int n, double v)
{
	double back;

	if (n <= 0 || memchr(s, 'e', (size_t)n))
		return 0;
	return parse_decimal(s, (size_t)n, &back) == NUM_OK && back == v;
}

#define AVGCPU_MAX 400	/* longest field 6 text: see put_fraction */

/* A value with a fraction (so |v| < 2^52) as a plain decimal; the caller
 * has switched this thread to the "C" locale for printf's decimal point. */
static size_t put_fraction(char *out, double v)
{
	char e[40], cand[AVGCPU_MAX];
	const char *x;
	int n, i, best, prec, exp10;

	/* "%.17g" needs no exponent at the large end, but small values would
	 * get one from "%g". The shortest text that reads back exactly wins
	 * (the first of equals). */
	best = 0;
	for (i = 0; i < 3; i++) {
		n = i == 0 ? snprintf(cand, sizeof cand, "%.2f", v)
			   : snprintf(cand, sizeof cand, "%.*g", i == 1 ? 15 : 17, v);
		if ((best == 0 || n < best) && reads_back(cand, n, v)) {
			memcpy(out, cand, (size_t)n + 1);
			best = n;
		}
	}
	if (best > 0)
		return (size_t)best;
	/* A tiny value: fixed notation with 17 significant digits, which is
	 * always enough; 10^-324 < |v| so prec <= 340. */
	snprintf(e, sizeof e, "%.16e", v);
	/* "%.16e" always writes "e", a sign and two or three digits. */
	x = strchr(e, 'e');
	exp10 = 0;
	if (x) {
		int sign = x[1] == '-' ? -1 : 1;
		for (x += 2; digit(*x) <= 9; x++)
			exp10 = exp10 * 10 + (int)digit(*x);
		exp10 *= sign;
	}
	prec = 16 - exp10;
	if (prec < 17)
		prec = 17;
	if (prec > 345)
		prec = 345;
	n = snprintf(out, AVGCPU_MAX, "%.*f", prec, v);
	while (n > 1 && out[n - 1] == '0' && out[n - 2] != '.')
		n--;		/* trailing zeros add nothing */
	out[n] = '\0';
	return (size_t)n;
}

/* Field 6 as text (out holds AVGCPU_MAX bytes); returns its length. */
static size_t put_avgcpu(char *out, double v)
{
	locale_t c_locale, old = (locale_t)0;
	size_t n;

	if (!isfinite(v))
		return put_i64(out, -1);	/* NaN or infinite: unknown */
	if (v < TWO_POW_63 && v > -TWO_POW_63 && (double)(int64_t)v == v)
		return put_i64(out, (int64_t)v);
	if (!(v < TWO_POW_63 && v > -TWO_POW_63))
		/* Integral, too large for field 6 to parse; shown all the same. */
		return (size_t)snprintf(out, AVGCPU_MAX, "%.0f", v);
	/* printf's decimal point follows LC_NUMERIC: use "C" for this thread
	 * only, for the time of the call. (glibc hands out its static "C"
	 * object here, so this costs no allocation.) */
	c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c_locale != (locale_t)0)
		old = uselocale(c_locale);
	n = put_fraction(out, v);
	if (c_locale != (locale_t)0) {
		uselocale(old);
		freelocale(c_locale);
	}
	return n;
}

int swf_format(const struct swf_job *job, char *buf, size_t len)
{
	char line[SWF_FIELDS * 22 + AVGCPU_MAX + 2];
	size_t n = 0, copy;
	int i;

	for (i = 0; i < SWF_FIELDS; i++) {
		if (i)
			line[n++] = ' ';
		if (i == SWF_AVGCPU)
			n += put_avgcpu(line + n, job->avg_cpu);
		else
			n += put_i64(line + n, job->f[i]);
	}
	line[n++] = '\n';
	if (buf && len) {
		copy = n < len ? n : len - 1;
		memcpy(buf, line, copy);
		buf[copy] = '\0';
	}
	return (int)n;
}

/* ---- the reader ---- */

/* Input is read with read() and, when it starts with the gzip magic, run
 * through inflate() here rather than zlib's gzread(): gzread reports a
 * truncated stream only sometimes (when the cut lands where its buffers end
 * it returns a clean end of file), and a silently shortened trace loses
 * jobs. Here a file that ends inside a compressed member is always an
 * error. Concatenated members (as `cat a.gz b.gz` makes) are read on. */
#define IN_BUF (128 * 1024)

enum input_mode { MODE_UNKNOWN, MODE_PLAIN, MODE_GZIP };

struct swf_reader {
	int fd;
	enum input_mode mode;
	z_stream zs;		/* MODE_GZIP; next_in/avail_in also serve MODE_PLAIN */
	int zs_ready;		/* inflateInit2 done */
	int in_member;		/* inside a gzip member: its end is still due */
	unsigned long members;	/* gzip members read to their end */
	int fresh;		/* a new member begun, nothing inflated from it yet */
	int in_eof;		/* read() returned 0 */
	unsigned char *in;	/* IN_BUF bytes of raw input */
	char *name;		/* the path, for messages */
	char *buf;		/* READ_BUF bytes; unread data is buf[start, end) */
	size_t start, end;
	unsigned long lineno;
	int eof;		/* the input is exhausted */
	int skip;		/* discarding the rest of an over-long line */
	int failed;		/* an I/O error happened: repeat ioerr */
	char ioerr[512];
	struct swf_header hdr;
	size_t text_cap;
};

struct swf_reader *swf_open(const char *path, char *err, size_t errlen)
{
	struct swf_reader *r;
	struct stat st;

	if (!path) {
		errf(err, errlen, "no trace path given");
		return NULL;
	}
	r = calloc(1, sizeof *r);
	if (!r)
		goto nomem;
	r->fd = -1;
	r->hdr.max_nodes = r->hdr.max_procs = r->hdr.unix_start = -1;
	r->name = strdup(strcmp(path, "-") == 0 ? "<stdin>" : path);
	r->buf = malloc(READ_BUF);
	r->in = malloc(IN_BUF);
	r->text_cap = 256;
	r->hdr.text = malloc(r->text_cap);
	if (!r->name || !r->buf || !r->in || !r->hdr.text)
		goto nomem;
	r->hdr.text[0] = '\0';

	if (strcmp(path, "-") == 0)
		r->fd = fcntl(0, F_DUPFD_CLOEXEC, 0);	/* closing ours leaves fd 0 open */
	else
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		errf(err, errlen, "%s: %s", r->name, strerror(errno));
		goto out;
	}
	if (fstat(r->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		errf(err, errlen, "%s: %s", r->name, strerror(EISDIR));
		goto out;
	}
	return r;

nomem:
	errf(err, errlen, "%s: out of memory", r && r->name ? r->name : path);
out:
	swf_close(r);
	return NULL;
}

/* Record an I/O error; from now on swf_next returns -2 with it. */
static int io_error(struct swf_reader *r, const char *what, char *err, size_t errlen)
{
	snprintf(r->ioerr, sizeof r->ioerr, "%s: read error after line %lu: %s",
		 r->name, r->lineno, what);
	r->failed = 1;
	errf(err, errlen, "%s", r->ioerr);
	return -2;
}

/* More raw input after what is left in zs.next_in. 0, or -2. */
static int read_more(struct swf_reader *r, char *err, size_t errlen)
{
	ssize_t n;

	if (r->zs.avail_in && r->zs.next_in != r->in)
		memmove(r->in, r->zs.next_in, r->zs.avail_in);
	r->zs.next_in = r->in;
	do
		n = read(r->fd, r->in + r->zs.avail_in, IN_BUF - r->zs.avail_in);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return io_error(r, strerror(errno), err, errlen);
	if (n == 0)
		r->in_eof = 1;
	r->zs.avail_in += (uInt)n;
	return 0;
}

/* Decide plain or gzip from the first two bytes. 0, or -2. */
static int pick_mode(struct swf_reader *r, char *err, size_t errlen)
{
	while (r->zs.avail_in < 2 && !r->in_eof)
		if (read_more(r, err, errlen) < 0)
			return -2;
	if (r->zs.avail_in >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b) {
		if (inflateInit2(&r->zs, 15 + 16) != Z_OK)	/* gzip wrapper only */
			return io_error(r, "out of memory", err, errlen);
		r->zs_ready = 1;
		r->in_member = 1;
		r->mode = MODE_GZIP;
	} else {
		r->mode = MODE_PLAIN;
	}
	return 0;
}

/* Move the unread bytes to the front and add at least one more, unless the
 * input is exhausted (then eof is set). Returns 0 or -2. */
static int fill(struct swf_reader *r, char *err, size_t errlen)
{
	size_t before;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->mode == MODE_UNKNOWN && pick_mode(r, err, errlen) < 0)
		return -2;
	before = r->end;
	while (r->end == before && r->end < READ_BUF) {
		if (r->zs.avail_in == 0) {
			if (r->in_eof) {
				if (r->in_member)
					return io_error(r, "unexpected end of compressed data "
							"(truncated file?)", err, errlen);
				r->eof = 1;
				return 0;
			}
			if (read_more(r, err, errlen) < 0)
				return -2;
			continue;
		}
		if (r->mode == MODE_PLAIN) {
			size_t n = r->zs.avail_in < READ_BUF - r->end ? r->zs.avail_in
								     : READ_BUF - r->end;

			memcpy(r->buf + r->end, r->zs.next_in, n);
			r->zs.next_in += n;
			r->zs.avail_in -= (uInt)n;
			r->end += n;
			continue;
		}
		if (!r->in_member) {
			/* Another member follows the one that ended. */
			inflateReset(&r->zs);
			r->in_member = 1;
			r->fresh = 1;
		}
		r->zs.next_out = (unsigned char *)r->buf + r->end;
		r->zs.avail_out = (uInt)(READ_BUF - r->end);
		switch (inflate(&r->zs, Z_NO_FLUSH)) {
		case Z_STREAM_END:
			r->in_member = 0;
			r->members++;
			r->fresh = 0;
			break;
		case Z_OK:
			r->fresh = 0;
			break;
		case Z_BUF_ERROR:	/* no progress: it needs more input */
			break;
		case Z_MEM_ERROR:
			return io_error(r, "out of memory", err, errlen);
		default:
			if (r->fresh)
				return io_error(r, "data after the end of the compressed trace",
						err, errlen);
			return io_error(r, r->zs.msg ? r->zs.msg : "corrupt compressed data",
					err, errlen);
		}
		r->end = READ_BUF - r->zs.avail_out;
	}
	return 0;
}

/* Keep a header comment: its text (within HEADER_MAX) and known keys. */
static int add_header(struct swf_reader *r, const char *line, size_t len,
		      char *err, size_t errlen)
{
	struct swf_header *h = &r->hdr;
	size_t need;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	swf_parse_header(line, len, h);
	need = h->text_len + len + 2;		/* '\n' and the final NUL */
	if (need > HEADER_MAX)
		return 0;
	if (need > r->text_cap) {
		size_t cap = r->text_cap;
		char *t;
		while (cap < need)
			cap *= 2;
		t = realloc(h->text, cap);
		if (!t) {
			snprintf(r->ioerr, sizeof r->ioerr, "%s:%lu: out of memory",
				 r->name, r->lineno);
			r->failed = 1;
			errf(err, errlen, "%s", r->ioerr);
			return -2;
		}
		h->text = t;
		r->text_cap = cap;
	}
	memcpy(h->text + h->text_len, line, len);
	h->text_len += len;
	h->text[h->text_len++] = '\n';
	h->text[h->text_len] = '\0';
	return 0;
}

int swf_next(struct swf_reader *r, struct swf_job *job, char *err, size_t errlen)
{
	char msg[256];

	if (r->failed) {
		errf(err, errlen, "%s", r->ioerr);
		return -2;
	}
	for (;;) {
		char *line = r->buf + r->start;
		char *nl = memchr(line, '\n', r->end - r->start);
		size_t len;
		int rc;

		if (r->skip) {
			/* The tail of an over-long line, already reported. */
			if (nl) {
				r->start = (size_t)(nl - r->buf) + 1;
				r->skip = 0;
			} else {
				r->start = r->end;
				if (r->eof)
					r->skip = 0;
				else if (fill(r, err, errlen) < 0)
					return -2;
			}
			continue;
		}
		if (nl) {
			len = (size_t)(nl - line);
			r->start += len + 1;
		} else if (r->eof) {
			if (r->start == r->end)
				return 0;
			len = r->end - r->start;	/* last line, no newline */
			r->start = r->end;
		} else if (r->end - r->start > SWF_MAX_LINE + 1) {
			/* No newline within the limit (+1 for a '\r'): report now,
			 * drop the rest of the line on the next call. */
			r->lineno++;
			r->start = r->end;
			r->skip = 1;
			return errf(err, errlen, "%s:%lu: line longer than %d bytes",
				    r->name, r->lineno, SWF_MAX_LINE);
		} else {
			if (fill(r, err, errlen) < 0)
				return -2;
			continue;
		}

		r->lineno++;
		rc = swf_parse_line(line, len, job, msg, sizeof msg);
		if (rc == 1)
			return 1;
		if (rc < 0)
			return errf(err, errlen, "%s:%lu: %s", r->name, r->lineno, msg);
		while (len > 0 && is_blank(*line)) {
			line++;
			len--;
		}
		if (len > 0 && *line == ';' && add_header(r, line, len, err, errlen) < 0)
			return -2;
	}
}

const struct swf_header *swf_get_header(const struct swf_reader *r)
{
	return &r->hdr;
}

unsigned long swf_lineno(const struct swf_reader *r)
{
	return r->lineno;
}

void swf_close(struct swf_reader *r)
{
	if (!r)
		return;
	if (r->zs_ready)
		inflateEnd(&r->zs);
	if (r->fd >= 0)
		close(r->fd);
	free(r->in);
	free(r->hdr.text);
	free(r->buf);
	free(r->name);
	free(r);
}
