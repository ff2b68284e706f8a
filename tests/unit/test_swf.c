/* SWF parsing, formatting and reading (plain and gzip). */
#include <fcntl.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "swf.h"
#include "../tap.h"

static char tmpdir[] = "/tmp/test_swf.XXXXXX";

static const char KTH_LINE[] =
	"   15   599850 192180   3477    4     -1    -1    4  53940    -1  1  12  12  -1 -1 -1 -1 -1";

/* Does s contain sub? (messages are checked by their key part) */
static int has(const char *s, const char *sub)
{
	return strstr(s, sub) != NULL;
}

static int parse(const char *line, struct swf_job *j, char *msg, size_t msglen)
{
	msg[0] = '\0';
	return swf_parse_line(line, strlen(line), j, msg, msglen);
}

/* An 18-field line with field `idx` (0-based) replaced by text. */
static void line_with(char *buf, size_t len, int idx, const char *text)
{
	size_t n = 0;
	int i;

	for (i = 0; i < SWF_FIELDS; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "",
				      i == idx ? text : "7");
}

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
}

static void write_gz(const char *path, const char *data, size_t len)
{
	gzFile g = gzopen(path, "wb");
	if (!g || gzwrite(g, data, (unsigned)len) != (int)len || gzclose(g) != Z_OK) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
}

static int same_job(const struct swf_job *a, const struct swf_job *b)
{
	return memcmp(a->f, b->f, sizeof a->f) == 0 && a->avg_cpu == b->avg_cpu;
}

static void test_parse_good(void)
{
	struct swf_job j;
	char msg[256], line[512];
	int i;

	ok_eq(parse(KTH_LINE, &j, msg, sizeof msg), 1, "a KTH job line parses");
	ok_eq(j.f[SWF_JOB], 15, "job number");
	ok_eq(j.f[SWF_SUBMIT], 599850, "submit time");
	ok_eq(j.f[SWF_WAIT], 192180, "wait time");
	ok_eq(j.f[SWF_RUN], 3477, "run time");
	ok_eq(j.f[SWF_ALLOC], 4, "allocated processors");
	ok(j.avg_cpu == -1.0 && j.f[SWF_AVGCPU] == -1, "field 6 -1 stays -1");
	ok_eq(j.f[SWF_REQPROCS], 4, "requested processors");
	ok_eq(j.f[SWF_REQTIME], 53940, "requested time");
	ok_eq(j.f[SWF_STATUS], 1, "status");
	ok_eq(j.f[SWF_USER], 12, "user");
	ok_eq(j.f[SWF_THINK], -1, "think time");

	ok_eq(parse("1 0 10 100 4 552.21 -1 4 200 -1 1 3 3 -1 -1 -1 -1 -1", &j, msg, sizeof msg),
	      1, "fractional field 6 parses");
	ok(j.avg_cpu == 552.21, "avg_cpu is 552.21 exactly as the compiler reads it");
	ok_eq(j.f[SWF_AVGCPU], 552, "f[SWF_AVGCPU] is the truncated value");
	ok_eq(parse("1 0 10 100 4 -2.75 -1 4 200 -1 1 3 3 -1 -1 -1 -1 -1", &j, msg, sizeof msg),
	      1, "negative fraction parses");
	ok(j.avg_cpu == -2.75 && j.f[SWF_AVGCPU] == -2, "-2.75 truncates to -2");
	ok_eq(parse("1 0 10 100 4 0.1 -1 4 200 -1 1 3 3 -1 -1 -1 -1 -1", &j, msg, sizeof msg),
	      1, "0.1 parses");
	ok(j.avg_cpu == 0.1, "0.1 is the nearest double");
	line_with(line, sizeof line, SWF_AVGCPU, "0.30000000000000000000000001");
	ok(parse(line, &j, msg, sizeof msg) == 1 && j.avg_cpu == 0.3,
	   "many digits in field 6 round correctly");
	line_with(line, sizeof line, SWF_AVGCPU, "123456789012345678.5");
	ok(parse(line, &j, msg, sizeof msg) == 1 && j.avg_cpu == 123456789012345678.5,
	   "large field 6 (slow path) parses");

	ok_eq(parse("-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1", &j, msg, sizeof msg),
	      1, "all -1 parses");
	for (i = 0; i < SWF_FIELDS && j.f[i] == -1; i++)
		;
	ok(i == SWF_FIELDS && j.avg_cpu == -1.0, "every field is -1");

	ok_eq(parse("\t1\t2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 +18  \r", &j, msg, sizeof msg),
	      1, "tabs, a '+' sign and a trailing CR are fine");
	ok(j.f[SWF_JOB] == 1 && j.f[SWF_THINK] == 18 && j.avg_cpu == 6.0, "their values");

	line_with(line, sizeof line, SWF_SUBMIT, "9223372036854775807");
	ok(parse(line, &j, msg, sizeof msg) == 1 && j.f[SWF_SUBMIT] == INT64_MAX, "INT64_MAX fits");
	line_with(line, sizeof line, SWF_SUBMIT, "-9223372036854775808");
	ok(parse(line, &j, msg, sizeof msg) == 1 && j.f[SWF_SUBMIT] == INT64_MIN, "INT64_MIN fits");
	line_with(line, sizeof line, SWF_SUBMIT, "0000000000000000000000042");
	ok(parse(line, &j, msg, sizeof msg) == 1 && j.f[SWF_SUBMIT] == 42, "leading zeros are fine");

	/* Pure: no newline needed, and a length shorter than the string counts. */
	ok_eq(swf_parse_line(KTH_LINE, 20, &j, msg, sizeof msg), -1,
	      "only len bytes are read");
}

static void test_parse_skip(void)
{
	struct swf_job j;
	char msg[64];

	ok_eq(parse("", &j, msg, sizeof msg), 0, "empty line is skipped");
	ok_eq(parse("   \t  ", &j, msg, sizeof msg), 0, "blank line is skipped");
	ok_eq(parse("\r", &j, msg, sizeof msg), 0, "a lone CR is a blank line");
	ok_eq(parse(";", &j, msg, sizeof msg), 0, "';' alone is a comment");
	ok_eq(parse("; MaxNodes: 100", &j, msg, sizeof msg), 0, "header line is a comment");
	ok_eq(parse("   ; indented 1 2 3", &j, msg, sizeof msg), 0, "indented comment");
	ok_eq(swf_parse_line("\n", 1, &j, msg, sizeof msg), 0, "a bare newline is blank");
}

static void expect_error(const char *line, size_t len, const char *want, const char *what)
{
	struct swf_job j;
	char msg[256] = "";
	int rc = swf_parse_line(line, len, &j, msg, sizeof msg);

	if (!ok(rc == -1 && strcmp(msg, want) == 0, "%s", what))
		printf("#   rc %d, msg '%s', want '%s'\n", rc, msg, want);
}

static void test_parse_errors(void)
{
	char line[8192];
	size_t n;

	expect_error("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", 41,
		     "expected 18 fields, found 17", "17 fields");
	expect_error("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19", 47,
		     "expected 18 fields, found 19", "19 fields");
	line_with(line, sizeof line, SWF_RUN, "abc");
	expect_error(line, strlen(line), "field 4 (run time): not a number: 'abc'", "letters");
	line_with(line, sizeof line, SWF_JOB, "12x");
	expect_error(line, strlen(line), "field 1 (job number): not a number: '12x'",
		     "digits then letters");
	line_with(line, sizeof line, SWF_STATUS, "-");
	expect_error(line, strlen(line), "field 11 (status): not a number: '-'", "a lone sign");
	line_with(line, sizeof line, SWF_USER, "--1");
	expect_error(line, strlen(line), "field 12 (user id): not a number: '--1'", "two signs");
	line_with(line, sizeof line, SWF_REQTIME, "3.5");
	expect_error(line, strlen(line), "field 9 (requested time): not an integer: '3.5'",
		     "fraction in an integer field");
	line_with(line, sizeof line, SWF_SUBMIT, "99999999999999999999");
	expect_error(line, strlen(line), "field 2 (submit time): out of range", "overflow");
	line_with(line, sizeof line, SWF_SUBMIT, "9223372036854775808");
	expect_error(line, strlen(line), "field 2 (submit time): out of range", "INT64_MAX + 1");
	line_with(line, sizeof line, SWF_SUBMIT, "-9223372036854775809");
	expect_error(line, strlen(line), "field 2 (submit time): out of range", "INT64_MIN - 1");
	line_with(line, sizeof line, SWF_THINK, "99999999999999999999x");
	expect_error(line, strlen(line), "field 18 (think time): not a number: '99999999999999999999x'",
		     "long digits then a letter is not a number");
	line_with(line, sizeof line, SWF_AVGCPU, "nan");
	expect_error(line, strlen(line), "field 6 (average CPU time): not a number: 'nan'", "nan");
	line_with(line, sizeof line, SWF_AVGCPU, "inf");
	expect_error(line, strlen(line), "field 6 (average CPU time): not a number: 'inf'", "inf");
	line_with(line, sizeof line, SWF_AVGCPU, "0x1p3");
	expect_error(line, strlen(line), "field 6 (average CPU time): not a number: '0x1p3'", "hex float");
	line_with(line, sizeof line, SWF_AVGCPU, "1e5");
	expect_error(line, strlen(line), "field 6 (average CPU time): not a number: '1e5'", "exponent");
	line_with(line, sizeof line, SWF_AVGCPU, "1.2.3");
	expect_error(line, strlen(line), "field 6 (average CPU time): not a number: '1.2.3'", "two dots");
	line_with(line, sizeof line, SWF_AVGCPU, ".");
	expect_error(line, strlen(line), "field 6 (average CPU time): not a number: '.'", "a lone dot");
	line_with(line, sizeof line, SWF_AVGCPU, "1,5");
	expect_error(line, strlen(line), "field 6 (average CPU time): not a number: '1,5'",
		     "decimal comma");
	line_with(line, sizeof line, SWF_AVGCPU, "99999999999999999999.5");
	expect_error(line, strlen(line), "field 6 (average CPU time): out of range",
		     "field 6 beyond int64");
	line_with(line, sizeof line, SWF_RUN, "\x01\xff");
	expect_error(line, strlen(line), "field 4 (run time): not a number: '\\x01\\xff'",
		     "control bytes are escaped in messages");
	line_with(line, sizeof line, SWF_RUN,
		  "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz");
	expect_error(line, strlen(line),
		     "field 4 (run time): not a number: 'abcdefghijklmnopqrstuvwxyzabcdef...'",
		     "long bad fields are cut in messages");

	line_with(line, sizeof line, -1, "");
	n = strlen(line);
	line[5] = '\0';
	expect_error(line, n, "embedded NUL byte at column 6", "NUL byte");

	memset(line, ' ', sizeof line);
	line_with(line, sizeof line, -1, "");
	line[strlen(line)] = ' ';
	{
		struct swf_job j;
		char msg[128];
		ok_eq(swf_parse_line(line, SWF_MAX_LINE, &j, msg, sizeof msg), 1,
		      "a line of exactly SWF_MAX_LINE bytes is fine");
		ok_eq(swf_parse_line(line, SWF_MAX_LINE + 1, &j, NULL, 0), -1,
		      "msg may be NULL");
	}
	expect_error(line, SWF_MAX_LINE + 1, "line longer than 4096 bytes", "over-long line");
}

static void test_header(void)
{
	struct swf_header h = { -1, -1, -1, NULL, 0 };
	const char *l;

	l = "; MaxNodes: 338 (batch partition; 512 total)";
	swf_parse_header(l, strlen(l), &h);
	ok_eq(h.max_nodes, 338, "MaxNodes with trailing text");
	ok(h.max_procs == -1 && h.unix_start == -1, "others untouched");
	l = "; MaxProcs: 338";
	swf_parse_header(l, strlen(l), &h);
	ok_eq(h.max_procs, 338, "MaxProcs");
	l = "; UnixStartTime: 835823160";
	swf_parse_header(l, strlen(l), &h);
	ok_eq(h.unix_start, 835823160, "UnixStartTime");
	l = "; MaxNodes: 70  (dual)";
	swf_parse_header(l, strlen(l), &h);
	ok_eq(h.max_nodes, 70, "MaxNodes with extra spaces");
	l = ";MaxNodes:12";
	swf_parse_header(l, strlen(l), &h);
	ok_eq(h.max_nodes, 12, "no spaces at all");
	l = "; MaxNodes: abc";
	swf_parse_header(l, strlen(l), &h);
	ok_eq(h.max_nodes, 12, "a non-numeric value leaves the field alone");
	l = "; MaxNodes: 99999999999999999999";
	swf_parse_header(l, strlen(l), &h);
	ok_eq(h.max_nodes, 12, "an out-of-range value leaves the field alone");
	l = "; maxnodes: 5";
	swf_parse_header(l, strlen(l), &h);
	l = "; MaxNodesX: 5";
	swf_parse_header(l, strlen(l), &h);
	l = "; Note: MaxNodes: 5";
	swf_parse_header(l, strlen(l), &h);
	l = "MaxNodes: 5";
	swf_parse_header(l, strlen(l), &h);
	ok_eq(h.max_nodes, 12, "other spellings and places are not the key");
	l = "; MaxNodes: 77";
	swf_parse_header(l, 12, &h);
	ok_eq(h.max_nodes, 12, "only len bytes are read");
	ok(h.text == NULL && h.text_len == 0, "text is not touched");
}

static void roundtrip(const char *line, const char *want, const char *what)
{
	struct swf_job a, b;
	char msg[128], out[1024];
	int n;

	if (!ok(parse(line, &a, msg, sizeof msg) == 1, "%s: parses", what)) {
		printf("#   %s\n", msg);
		return;
	}
	n = swf_format(&a, out, sizeof out);
	ok_eq(n, strlen(out), "%s: length returned", what);
	if (want && !ok(strcmp(out, want) == 0, "%s: formatted text", what))
		printf("#   got  '%s'#   want '%s'", out, want);
	ok(swf_parse_line(out, (size_t)n, &b, msg, sizeof msg) == 1 && same_job(&a, &b),
	   "%s: format then parse gives the same job", what);
}

static void roundtrip_value(double v)
{
	struct swf_job a, b;
	char msg[128], out[1024];
	int n, i;

	for (i = 0; i < SWF_FIELDS; i++)
		a.f[i] = i;
	a.avg_cpu = v;
	a.f[SWF_AVGCPU] = (int64_t)v;
	n = swf_format(&a, out, sizeof out);
	if (!ok(n > 0 && (size_t)n < sizeof out &&
		swf_parse_line(out, (size_t)n, &b, msg, sizeof msg) == 1 && same_job(&a, &b),
		"avg_cpu %.17g survives format and parse", v))
		printf("#   '%s' %s\n", out, msg);
}

static void test_format(void)
{
	struct swf_job j;
	char msg[64], small[8];

	roundtrip("1 0 10 100 4 552.21 -1 4 200 -1 1 3 3 -1 -1 -1 -1 -1",
		  "1 0 10 100 4 552.21 -1 4 200 -1 1 3 3 -1 -1 -1 -1 -1\n", "552.21");
	roundtrip("7 8 9 10 11 142.00 -1 4 200 -1 1 3 3 -1 -1 -1 -1 -1",
		  "7 8 9 10 11 142 -1 4 200 -1 1 3 3 -1 -1 -1 -1 -1\n", "142.00 prints 142");
	roundtrip(KTH_LINE, "15 599850 192180 3477 4 -1 -1 4 53940 -1 1 12 12 -1 -1 -1 -1 -1\n",
		  "KTH line");
	roundtrip("-9223372036854775808 9223372036854775807 0 0 0 0.5 0 0 0 0 0 0 0 0 0 0 0 0",
		  "-9223372036854775808 9223372036854775807 0 0 0 0.5 0 0 0 0 0 0 0 0 0 0 0 0\n",
		  "extremes");
	roundtrip_value(0.1);
	roundtrip_value(1.0 / 3.0);
	roundtrip_value(-2.675);
	roundtrip_value(123456.789);
	roundtrip_value(4503599627370495.5);
	roundtrip_value(1e-7);
	roundtrip_value(4.9406564584124654e-324);

	ok_eq(parse(KTH_LINE, &j, msg, sizeof msg), 1, "parse for a short buffer");
	ok_eq(swf_format(&j, small, sizeof small), 64, "short buffer: full length returned");
	ok(strcmp(small, "15 5998") == 0, "short buffer: cut and terminated");
	ok_eq(swf_format(&j, NULL, 0), 64, "NULL buffer: length only");
}

/* Under a locale whose decimal point is not '.', nothing changes. */
static void test_locale(void)
{
	static const char *const names[] = {
		"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "de_DE", "fr_FR",
	};
	const char *line = "1 0 10 100 4 552.21 -1 4 200 -1 1 3 3 -1 -1 -1 -1 -1";
	struct swf_job j, k;
	char msg[128], out[256];
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (setlocale(LC_NUMERIC, names[i]) &&
		    strcmp(localeconv()->decimal_point, ".") != 0)
			break;
	if (i == sizeof names / sizeof names[0]) {
		setlocale(LC_NUMERIC, "C");
		printf("# skip locale test: no locale with a decimal comma installed\n");
		return;
	}
	ok(parse(line, &j, msg, sizeof msg) == 1 && j.avg_cpu == 552.21,
	   "%s: 552.21 parses", names[i]);
	j.avg_cpu = 1.0 / 3.0;
	swf_format(&j, out, sizeof out);
	ok(strstr(out, " 0.33333333333333331 ") != NULL &&
	   swf_parse_line(out, strlen(out), &k, msg, sizeof msg) == 1 && k.avg_cpu == j.avg_cpu,
	   "%s: 1/3 formats with a '.' and reads back", names[i]);
	setlocale(LC_NUMERIC, "C");
}

/* Read every job; fill jobs (up to max) and count malformed lines. */
static long read_all(const char *path, struct swf_job *jobs, long max, long *bad,
		     struct swf_header *hdr_out)
{
	char err[512];
	struct swf_reader *r = swf_open(path, err, sizeof err);
	struct swf_job j;
	long n = 0;
	int rc;

	*bad = 0;
	if (!r) {
		printf("# %s\n", err);
		return -1;
	}
	while ((rc = swf_next(r, &j, err, sizeof err)) != 0) {
		if (rc == -2) {
			printf("# %s\n", err);
			n = -2;
			break;
		}
		if (rc == -1) {
			++*bad;
			continue;
		}
		if (n < max)
			jobs[n] = j;
		n++;
	}
	if (hdr_out) {
		*hdr_out = *swf_get_header(r);
		hdr_out->text = NULL;	/* freed by swf_close */
	}
	swf_close(r);
	return n;
}

static const char SAMPLE[] =
	"; Version: 2.2\n"
	"; MaxNodes: 64 (sample)\n"
	"; MaxProcs: 128\n"
	";\n"
	"1 0 5 100 4 99.50 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"\n"
	"2 10 0 50 1 -1 -1 1 60 -1 0 2 2 -1 -1 -1 -1 -1\r\n"
	"; UnixStartTime: 835823160\n"
	"3 20 -1 3600 64 142.00 -1 64 7200 -1 5 3 3 -1 -1 -1 -1 -1\n";

static void test_reader_plain_gz(void)
{
	char plain[512], gz[512], err[512];
	struct swf_job a[8], b[8];
	struct swf_header h;
	struct swf_reader *r;
	struct swf_job j;
	long bad = 0, na, nb;

	path_in(plain, sizeof plain, "sample.swf");
	path_in(gz, sizeof gz, "sample.swf.gz");
	write_file(plain, SAMPLE, sizeof SAMPLE - 1);
	write_gz(gz, SAMPLE, sizeof SAMPLE - 1);

	na = read_all(plain, a, 8, &bad, &h);
	ok_eq(na, 3, "plain file: 3 jobs");
	ok_eq(bad, 0, "plain file: no malformed lines");
	ok(h.max_nodes == 64 && h.max_procs == 128 && h.unix_start == 835823160,
	   "plain file: header values, including one after the jobs");
	nb = read_all(gz, b, 8, &bad, NULL);
	ok_eq(nb, 3, "gzip file: 3 jobs");
	ok(na == nb && same_job(&a[0], &b[0]) && same_job(&a[1], &b[1]) && same_job(&a[2], &b[2]),
	   "gzip and plain give identical jobs");
	ok(a[0].avg_cpu == 99.5 && a[1].f[SWF_STATUS] == 0 && a[2].f[SWF_ALLOC] == 64,
	   "job values");

	r = swf_open(plain, err, sizeof err);
	ok(r != NULL, "open again");
	if (!r)
		return;
	ok_eq(swf_next(r, &j, err, sizeof err), 1, "first job");
	ok_eq(swf_lineno(r), 5, "first job is on line 5");
	ok(strcmp(swf_get_header(r)->text,
		  "; Version: 2.2\n; MaxNodes: 64 (sample)\n; MaxProcs: 128\n;\n") == 0,
	   "header text before the first job");
	ok_eq(swf_get_header(r)->text_len, 57, "header text length");
	ok_eq(swf_next(r, &j, err, sizeof err), 1, "second job");
	ok_eq(swf_lineno(r), 7, "second job is on line 7 (blank line 6 counted)");
	ok_eq(swf_next(r, &j, err, sizeof err), 1, "third job");
	ok_eq(swf_next(r, &j, err, sizeof err), 0, "end of file");
	ok_eq(swf_next(r, &j, err, sizeof err), 0, "end of file again");
	ok(has(swf_get_header(r)->text, "; UnixStartTime: 835823160\n"),
	   "header lines after jobs are kept too");
	swf_close(r);
	swf_close(NULL);
}

static void test_reader_malformed(void)
{
	char path[512], err[512];
	char *data, *p;
	struct swf_reader *r;
	struct swf_job j;
	const size_t huge = 600000;	/* longer than the reader's buffer */
	int rc;

	data = malloc(huge + 16384);
	if (!data) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	p = data;
	p += sprintf(p, "; MaxNodes: 8\n");						/* 1 */
	p += sprintf(p, "1 0 1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n");		/* 2 */
	p += sprintf(p, "this is not a job\n");						/* 3 */
	p += sprintf(p, "2 0 1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n");		/* 4 */
	p += sprintf(p, "3 0 1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1\n");		/* 5 */
	memset(p, '1', 5000);								/* 6 */
	p += 5000;
	*p++ = '\n';
	p += sprintf(p, "4 0 1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n");		/* 7 */
	memset(p, '9', huge);								/* 8 */
	p += huge;
	*p++ = '\n';
	p += sprintf(p, "5 0 1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n");		/* 9 */
	p += sprintf(p, "6 0 1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n");		/* 10 */
	memcpy(p, "7 ", 3);		/* "7 ", then a NUL byte */		/* 11 */
	p += sprintf(p + 3, "0 1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n") + 3;
	p += sprintf(p, "8 0 1 1 1 -1 -1 1 1 -1 1 1 3.5 -1 -1 -1 -1 -1\n");		/* 12 */
	p += sprintf(p, "9 0 1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1");		/* 13 */
	path_in(path, sizeof path, "bad.swf");
	write_file(path, data, (size_t)(p - data));
	free(data);

	r = swf_open(path, err, sizeof err);
	ok(r != NULL, "open the malformed file");
	if (!r)
		return;
#define NEXT_JOB(id, line) do { \
	rc = swf_next(r, &j, err, sizeof err); \
	ok(rc == 1 && j.f[SWF_JOB] == (id) && swf_lineno(r) == (line), \
	   "job %d on line %d", (id), (line)); \
} while (0)
#define NEXT_BAD(line, why) do { \
	char want_[600]; \
	rc = swf_next(r, &j, err, sizeof err); \
	snprintf(want_, sizeof want_, "%s:%d: %s", path, (line), (why)); \
	if (!ok(rc == -1 && strcmp(err, want_) == 0 && swf_lineno(r) == (line), \
		"malformed line %d reported", (line))) \
		printf("#   rc %d, err '%s', want '%s'\n", rc, err, want_); \
} while (0)
	NEXT_JOB(1, 2);
	NEXT_BAD(3, "expected 18 fields, found 5");
	NEXT_JOB(2, 4);
	NEXT_BAD(5, "expected 18 fields, found 17");
	NEXT_BAD(6, "line longer than 4096 bytes");
	NEXT_JOB(4, 7);
	NEXT_BAD(8, "line longer than 4096 bytes");
	NEXT_JOB(5, 9);
	NEXT_JOB(6, 10);
	NEXT_BAD(11, "embedded NUL byte at column 3");
	NEXT_BAD(12, "field 13 (group id): not an integer: '3.5'");
	NEXT_JOB(9, 13);
	rc = swf_next(r, &j, err, sizeof err);
	ok_eq(rc, 0, "then the end of file");
	ok_eq(swf_get_header(r)->max_nodes, 8, "header of the malformed file");
#undef NEXT_JOB
#undef NEXT_BAD
	swf_close(r);
}

static void test_reader_edges(void)
{
	char path[512], err[512];
	struct swf_job jobs[4];
	struct swf_header h;
	struct swf_reader *r;
	struct swf_job j;
	long bad, n;
	const char *last = "1 0 1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n"
			   "2 0 1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 77";

	path_in(path, sizeof path, "nonl.swf");
	write_file(path, last, strlen(last));
	n = read_all(path, jobs, 4, &bad, NULL);
	ok(n == 2 && bad == 0 && jobs[1].f[SWF_THINK] == 77, "last line without newline is read");
	path_in(path, sizeof path, "nonl.swf.gz");
	write_gz(path, last, strlen(last));
	n = read_all(path, jobs, 4, &bad, NULL);
	ok(n == 2 && bad == 0 && jobs[1].f[SWF_THINK] == 77, "same, gzipped");

	path_in(path, sizeof path, "empty.swf");
	write_file(path, "", 0);
	r = swf_open(path, err, sizeof err);
	ok(r != NULL, "open an empty file");
	if (r) {
		const struct swf_header *eh = swf_get_header(r);
		ok_eq(swf_next(r, &j, err, sizeof err), 0, "empty file: end at once");
		ok(eh->max_nodes == -1 && eh->max_procs == -1 && eh->unix_start == -1,
		   "no header: every value -1");
		ok(eh->text && eh->text[0] == '\0' && eh->text_len == 0, "no header: empty text");
		ok_eq(swf_lineno(r), 0, "empty file: line 0");
		swf_close(r);
	}

	path_in(path, sizeof path, "only-comments.swf");
	write_file(path, "; a\n;b\n\n", 8);
	n = read_all(path, jobs, 4, &bad, &h);
	ok(n == 0 && bad == 0, "comments only: no jobs, nothing malformed");

	path_in(path, sizeof path, "does-not-exist.swf");
	err[0] = '\0';
	r = swf_open(path, err, sizeof err);
	ok(r == NULL, "nonexistent file: NULL");
	ok(has(err, path) && has(err, "No such file"), "nonexistent file: message '%s'", err);
	err[0] = '\0';
	r = swf_open(tmpdir, err, sizeof err);
	ok(r == NULL && has(err, "directory"), "a directory is refused: '%s'", err);
	if (r)
		swf_close(r);
}

static void test_reader_gz_errors(void)
{
	char path[512], err[512];
	static char data[200000];
	struct swf_reader *r;
	struct swf_job j;
	size_t n = 0;
	long jobs = 0;
	int rc, i, fd;
	off_t size;

	/* Random-looking numbers compress poorly: the file is big enough to cut. */
	for (i = 0; n + 100 < sizeof data; i++)
		n += (size_t)sprintf(data + n, "%d %u 1 %u 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n",
				     i, (unsigned)i * 2654435761u, (unsigned)i * 40503u);
	path_in(path, sizeof path, "cut.swf.gz");
	write_gz(path, data, n);
	fd = open(path, O_RDWR);
	size = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
	ok(fd >= 0 && size > 1000 && ftruncate(fd, size / 2) == 0, "truncate a gzip file");
	if (fd >= 0)
		close(fd);
	r = swf_open(path, err, sizeof err);
	if (!ok(r != NULL, "open the truncated gzip file"))
		return;
	while ((rc = swf_next(r, &j, err, sizeof err)) == 1)
		jobs++;
	ok(rc == -2 && jobs > 0 && jobs < i, "truncated gzip: -2 after %ld jobs", jobs);
	ok(has(err, path) && has(err, "unexpected end"), "truncated gzip: message '%s'", err);
	ok_eq(swf_next(r, &j, err, sizeof err), -2, "the error sticks");
	swf_close(r);

	/* Corrupt the middle of a gzip file: the data check (CRC or inflate) fails. */
	write_gz(path, data, n);
	fd = open(path, O_RDWR);
	if (fd >= 0) {
		char junk[64];
		memset(junk, 0x55, sizeof junk);
		ok(pwrite(fd, junk, sizeof junk, size / 2) == (ssize_t)sizeof junk,
		   "corrupt a gzip file");
		close(fd);
	}
	r = swf_open(path, err, sizeof err);
	if (!ok(r != NULL, "open the corrupt gzip file"))
		return;
	while ((rc = swf_next(r, &j, err, sizeof err)) == 1 || rc == -1)
		;
	ok(rc == -2, "corrupt gzip: -2 ('%s')", err);
	swf_close(r);
}

static void test_header_limit(void)
{
	char path[512];
	char *data, *p;
	struct swf_header h;
	struct swf_job j;
	long bad, n;
	int i;

	data = malloc(2200000);
	if (!data) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	p = data;
	for (i = 0; i < 20000; i++)
		p += sprintf(p, "; %05d %090d\n", i, 0);
	p += sprintf(p, "; MaxProcs: 4242\n1 0 1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n");
	path_in(path, sizeof path, "bigheader.swf");
	write_file(path, data, (size_t)(p - data));
	free(data);
	n = read_all(path, &j, 1, &bad, &h);
	ok(n == 1 && bad == 0, "2 MB of header then a job");
	ok(h.text_len <= 1024 * 1024 && h.text_len > 1000000, "header text stops near 1 MiB (%zu)",
	   h.text_len);
	ok_eq(h.max_procs, 4242, "keys past the text limit are still read");
}

static void test_stdin(void)
{
	char path[512], err[512];
	struct swf_reader *r;
	struct swf_job j;
	int fd, saved;
	long n = 0;

	path_in(path, sizeof path, "sample.swf.gz");
	saved = dup(0);
	fd = open(path, O_RDONLY);
	if (!ok(saved >= 0 && fd >= 0 && dup2(fd, 0) == 0, "gzip file on standard input"))
		return;
	close(fd);
	r = swf_open("-", err, sizeof err);
	ok(r != NULL, "open '-'");
	if (r) {
		while (swf_next(r, &j, err, sizeof err) == 1)
			n++;
		ok_eq(n, 3, "3 jobs from standard input");
		swf_close(r);
	}
	ok(fcntl(0, F_GETFD) != -1, "fd 0 still open after swf_close");
	dup2(saved, 0);
	close(saved);
}

static void test_real_trace(const char *dir, const char *name, long want_jobs,
			    int64_t want_nodes, int64_t want_procs)
{
	char path[4096];
	struct swf_header h;
	struct swf_job j;
	long bad, n;

	snprintf(path, sizeof path, "%s/%s", dir ? dir : "(BF_TRACES not set)", name);
	if (!dir || access(path, R_OK) != 0) {
		char why[4200];

		snprintf(why, sizeof why, "%s is not here (the large traces are in ../shared/traces "
		         "beside the checkout)", path);
		tap_skip(name, why);
		return;
	}
	n = read_all(path, &j, 1, &bad, &h);
	ok_eq(n, want_jobs, "%s: job count", name);
	ok_eq(bad, 0, "%s: no malformed lines", name);
	ok_eq(h.max_nodes, want_nodes, "%s: MaxNodes", name);
	ok_eq(h.max_procs, want_procs, "%s: MaxProcs", name);
}

/* A gzip trace cut anywhere (inside the data, at the 256 KiB buffer
 * boundaries that once read as a clean end, inside the trailer) is an
 * error, never a shorter trace; concatenated members read as one trace. */
static void test_reader_truncation(void)
{
	enum { JOBS = 3000 };
	char path[512], err[512];
	char *text = malloc(JOBS * 96), *gz = NULL;
	size_t len = 0, gzlen = 0;
	FILE *f;
	long bad, n, cuts = 0, caught = 0;
	static const long tail_cuts[] = { 1, 2, 4, 7, 8, 9, 12, 100, 1000, 30000 };

	for (int k = 0; k < JOBS; k++)
		len += (size_t)snprintf(text + len, 96,
		                        "%d %d -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n",
		                        k + 1, k * 10);
	path_in(path, sizeof path, "cut.swf.gz");
	write_gz(path, text, len);
	f = fopen(path, "rb");
	gz = malloc(len + 1024);
	gzlen = fread(gz, 1, len + 1024, f);
	fclose(f);
	for (size_t t = 0; t < sizeof tail_cuts / sizeof *tail_cuts; t++) {
		if ((size_t)tail_cuts[t] >= gzlen)
			continue;
		write_file(path, gz, gzlen - (size_t)tail_cuts[t]);
		n = read_all(path, NULL, 0, &bad, NULL);
		cuts++;
		caught += n == -2;
	}
	ok(cuts >= 8 && caught == cuts, "a gzip trace cut short is an error at every cut (%ld of %ld)",
	   caught, cuts);
	write_file(path, gz, gzlen);
	ok_eq(read_all(path, NULL, 0, &bad, NULL), JOBS, "the whole file reads every job");

	/* Two members, as cat a.gz b.gz makes. */
	f = fopen(path, "wb");
	fwrite(gz, 1, gzlen, f);
	fwrite(gz, 1, gzlen, f);
	fclose(f);
	ok_eq(read_all(path, NULL, 0, &bad, NULL), 2 * JOBS, "concatenated gzip members read on");
	f = fopen(path, "ab");
	fwrite("garbage", 1, 7, f);
	fclose(f);
	ok_eq(read_all(path, NULL, 0, &bad, NULL), -2, "data after the last member is an error");
	(void)err;
	free(text);
	free(gz);
}

static void remove_tmpdir(void)
{
	static const char *const names[] = {
		"sample.swf", "sample.swf.gz", "bad.swf", "nonl.swf", "nonl.swf.gz",
		"empty.swf", "only-comments.swf", "cut.swf.gz", "bigheader.swf",
	};
	char path[512];
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		path_in(path, sizeof path, names[i]);
		unlink(path);
	}
	ok(rmdir(tmpdir) == 0, "temporary directory removed");
}

int main(void)
{
	const char *traces = getenv("BF_TRACES"), *own = getenv("BF_OWN_TRACES");

	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp failed\n");
		return 1;
	}
	test_parse_good();
	test_parse_skip();
	test_parse_errors();
	test_header();
	test_format();
	test_locale();
	test_reader_plain_gz();
	test_reader_malformed();
	test_reader_edges();
	test_reader_gz_errors();
	test_reader_truncation();
	test_header_limit();
	test_stdin();
	/* KTH and NASA come with the project; CTC is ../shared's. */
	test_real_trace(own && *own ? own : NULL, "KTH-SP2-1996-2.1-cln.swf.gz", 28476, 100, 100);
	test_real_trace(own && *own ? own : NULL, "NASA-iPSC-1993-3.1-cln.swf.gz", 18239, 128, 128);
	test_real_trace(traces && *traces ? traces : NULL, "CTC-SP2-1996-3.1-cln.swf.gz", 77222, 338,
	                338);
	remove_tmpdir();
	return tap_done();
}
