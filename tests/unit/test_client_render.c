/* The clients' display: times, exit statuses, terminal text, JSON strings,
 * job ids, and bq's table, detail, JSON and profile chart. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include "client.h"
#include "render.h"
#include "tap.h"

static char *out;
static size_t outlen;

static FILE *mem(void)
{
	free(out);
	out = NULL;
	return open_memstream(&out, &outlen);
}

/* Show the output as TAP comments. */
static void dump(void)
{
	for (char *p = out; p && *p;) {
		char *e = strchr(p, '\n');

		printf("#   %.*s\n", (int)(e ? e - p : (long)strlen(p)), p);
		p = e ? e + 1 : p + strlen(p);
	}
}

static int has(const char *needle)
{
	return out && strstr(out, needle) != NULL;
}

#define HOUR ((bf_time)3600 * BF_SEC)
/* 2026-11-21 14:00:00 UTC */
#define T0 ((bf_time)1795269600 * BF_SEC)

/* The hand-made format agrees with strftime's, in zones with daylight
 * saving and odd offsets, over centuries and around transitions. */
static void same_as_strftime(void)
{
	static const char *const zones[] = {
		/* POSIX rules need no tzdata; the named zones fall back to UTC
		 * where tzdata is not installed */
		"UTC", "CET-1CEST,M3.5.0,M10.5.0/3", "NST+3:30NDT,M3.2.0,M11.1.0", "XYZ+3:17:29",
		"Europe/Berlin", "Asia/Kathmandu", "Australia/Lord_Howe",
	};
	unsigned seed = 12345, bad = 0, n = 0;
	char b[64], want[64];

	for (size_t z = 0; z < sizeof zones / sizeof *zones; z++) {
		client_set_tz(zones[z]);
		for (int k = 0; k < 20000; k++) {
			struct tm tm;
			time_t s;

			seed = seed * 1103515245u + 12345u;
			/* 1900-2100, and every 15 minutes of 2026 */
			s = k % 2 ? (time_t)((int64_t)(seed % 6311390400u) - 2208988800) :
			            (time_t)(1767225600 + (int64_t)(k / 2) * 900 + seed % 3);
			localtime_r(&s, &tm);
			strftime(want, sizeof want, "%Y-%m-%d %H:%M:%S", &tm);
			client_format_time((bf_time)s * BF_SEC, b, sizeof b);
			n++;
			if (strcmp(b, want) != 0 && bad++ < 3)
				printf("#   %s %lld: %s, strftime %s\n", zones[z], (long long)s, b, want);
		}
	}
	ok(bad == 0, "%u of %u times differ from strftime's in seven zones", bad, n);
	client_set_tz("UTC");
	client_format_time((bf_time)253402300800 * BF_SEC, b, sizeof b);
	ok(strcmp(b, "10000-01-01 00:00:00") == 0, "a five-digit year (%s)", b);
}

static void times(void)
{
	char b[64];

	client_set_tz("UTC");
	client_format_time(0, b, sizeof b);
	ok(strcmp(b, "1970-01-01 00:00:00") == 0, "the epoch (%s)", b);
	client_format_time(T0 + BF_SEC * 3 / 2, b, sizeof b);
	ok(strcmp(b, "2026-11-21 14:00:01") == 0, "whole seconds, rounded down (%s)", b);
	client_format_time(-1, b, sizeof b);
	ok(strcmp(b, "1969-12-31 23:59:59") == 0, "before the epoch rounds down too (%s)", b);
	client_format_time(BF_NEVER, b, sizeof b);
	ok(strcmp(b, "?") == 0, "'never' cannot be shown (%s)", b);
	client_set_tz("XYZ-2");
	client_format_time(0, b, sizeof b);
	ok(strcmp(b, "1970-01-01 02:00:00") == 0, "local time (%s)", b);
	client_format_iso(0, b, sizeof b);
	ok(strcmp(b, "1970-01-01T00:00:00Z") == 0, "ISO 8601 is UTC (%s)", b);
	client_format_iso(T0 + 999999, b, sizeof b);
	ok(strcmp(b, "2026-11-21T14:00:00Z") == 0, "ISO 8601, whole seconds (%s)", b);
	client_set_tz("UTC");
	ok(client_format_time(T0, NULL, 0) == 19, "like snprintf: the length needed");
	client_format_time(T0, b, 11);
	ok(strcmp(b, "2026-11-21") == 0, "cut to the buffer, terminated (%s)", b);
	same_as_strftime();

	client_format_seconds(7200 * BF_SEC, b, sizeof b);
	ok(strcmp(b, "7200") == 0, "seconds: 7200");
	client_format_seconds(BF_SEC / 2, b, sizeof b);
	ok(strcmp(b, "0.5") == 0, "seconds: 0.5");
	client_format_seconds(BF_SEC + 1, b, sizeof b);
	ok(strcmp(b, "1.000001") == 0, "seconds: 1.000001");
	client_format_seconds(0, b, sizeof b);
	ok(strcmp(b, "0") == 0, "seconds: 0");
	client_format_seconds(-BF_SEC * 3 / 2, b, sizeof b);
	ok(strcmp(b, "-1.5") == 0, "seconds: -1.5");
}

static void statuses(void)
{
	char b[128];

	client_exit_status(0, b, sizeof b);
	ok(strcmp(b, "exit code 0") == 0, "%s", b);
	client_exit_status(3 << 8, b, sizeof b);
	ok(strcmp(b, "exit code 3") == 0, "%s", b);
	client_exit_status(127 << 8, b, sizeof b);
	ok(strcmp(b, "exit code 127") == 0, "%s", b);
	client_exit_status(SIGKILL, b, sizeof b);
	ok(strcmp(b, "killed by signal 9 (SIGKILL)") == 0, "%s", b);
	client_exit_status(SIGTERM, b, sizeof b);
	ok(strcmp(b, "killed by signal 15 (SIGTERM)") == 0, "%s", b);
	client_exit_status(SIGSEGV | 0x80, b, sizeof b);
	ok(strcmp(b, "killed by signal 11 (SIGSEGV), core dumped") == 0, "%s", b);
	client_exit_status(64, b, sizeof b);
	ok(strcmp(b, "killed by signal 64") == 0, "a signal without a name: %s", b);
	client_exit_status(0x137f, b, sizeof b);
	ok(strcmp(b, "wait status 0x137f") == 0, "a stop status: %s", b);
	ok(client_signal_name(SIGHUP) && strcmp(client_signal_name(SIGHUP), "HUP") == 0 &&
	   client_signal_name(0) == NULL, "signal names");
}

static const char *text(const char *s, size_t width)
{
	FILE *f = mem();

	client_put_text(f, s, width);
	fclose(f);
	return out;
}

static const char *json(const char *s)
{
	FILE *f = mem();

	client_put_json_str(f, s);
	fclose(f);
	return out;
}

static void texts(void)
{
	ok(strcmp(text("abc", 0), "abc") == 0, "plain text");
	ok(strcmp(text("abcdef", 4), "abc+") == 0, "cut to 4: abc+");
	ok(strcmp(text("abcd", 4), "abcd") == 0, "exactly 4 is not cut");
	ok(strcmp(text("a\tb\x1b[31m", 0), "a?b?[31m") == 0, "control characters become '?'");
	ok(strcmp(text("x\x7fy", 0), "x?y") == 0, "DEL becomes '?'");
	ok(strcmp(text("\xff\xfe", 0), "??") == 0, "invalid bytes become '?'");
	ok(strcmp(text("h\xc3\xa9llo", 3), "h\xc3\xa9+") == 0, "UTF-8 is cut by characters, not bytes");
	ok(strcmp(text("\xc2\x85", 0), "?") == 0, "C1 controls become '?'");
	ok(strcmp(text("\xc0\xaf", 0), "??") == 0, "overlong forms are invalid");
	ok(strcmp(text("\xed\xa0\x80", 0), "???") == 0, "surrogates are invalid");
	ok(strcmp(text("\xe2\x82", 0), "??") == 0, "a truncated sequence is invalid");
	ok(strcmp(text("\xf0\x9f\x98\x80!", 0), "\xf0\x9f\x98\x80!") == 0, "4-byte UTF-8 kept");
	ok(strcmp(text(NULL, 0), "") == 0, "NULL is empty");
	ok(client_text_width("h\xc3\xa9llo", 0) == 5 && client_text_width("abcdef", 4) == 4 &&
	   client_text_width("", 3) == 0, "widths count characters");

	json("a\"b\\c\n\x01\t");
	ok(strcmp(out, "\"a\\\"b\\\\c\\n\\u0001\\t\"") == 0, "JSON escapes: %s", out);
	ok(strcmp(json(NULL), "null") == 0, "JSON null");
	ok(strcmp(json("\xff"), "\"\\ufffd\"") == 0, "invalid UTF-8 is U+FFFD in JSON");
	ok(strcmp(json("\xc3\xa9/\x7f"), "\"\xc3\xa9/\x7f\"") == 0, "valid UTF-8, '/' and DEL kept");
	ok(strcmp(json("\r\b\f"), "\"\\r\\b\\f\"") == 0, "short escapes");
}

static void ids(void)
{
	static const struct {
		const char *s;
		int rc;
		uint64_t v;
	} cases[] = {
		{ "1", 0, 1 }, { "42", 0, 42 }, { "0042", 0, 42 },
		{ "18446744073709551615", 0, UINT64_MAX }, { "18446744073709551616", -1, 0 },
		{ "0", -1, 0 }, { "-1", -1, 0 }, { "+1", -1, 0 }, { "", -1, 0 }, { "1a", -1, 0 },
		{ " 1", -1, 0 }, { "1.0", -1, 0 },
	};

	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		uint64_t v = 7;
		int rc = client_parse_id(cases[k].s, &v);

		ok(rc == cases[k].rc && (rc ? v == 7 : v == cases[k].v), "job id '%s' %s",
		   cases[k].s, cases[k].rc ? "rejected" : "accepted");
	}
	ok(strcmp(client_cancel_result(PE_OK), "cancelled") == 0 &&
	   strcmp(client_cancel_result(PE_NOJOB), "no such job") == 0 &&
	   strcmp(client_cancel_result(PE_DENIED), "not your job") == 0 &&
	   strcmp(client_cancel_result(PE_DONE), "already ended") == 0, "bkill's words");
}

static struct proto_job jobs[] = {
	{ .id = 7, .uid = 1000, .user = "alice", .name = "sim", .state = "running", .nodes = 64,
	  .estimate = 2 * HOUR, .submit = T0, .start = T0 + 60 * BF_SEC, .end = T0 + 60 * BF_SEC + 2 * HOUR,
	  .start_kind = PS_ACTUAL, .node_list = "node[001-064]", .cwd = "/home/alice",
	  .out = "/home/alice/bsub-7.out", .err = "/home/alice/bsub-7.out" },
	{ .id = 12, .uid = 1001, .user = NULL, .name = "a-very-long-job-name-that-goes-on",
	  .state = "queued", .nodes = 4, .estimate = HOUR / 2, .submit = T0 + 5 * BF_SEC,
	  .start = T0 + 3 * HOUR, .end = T0 + 3 * HOUR + HOUR / 2, .start_kind = PS_GUARANTEED },
	{ .id = 1234, .uid = 1002, .user = "bob", .name = NULL, .state = "queued", .nodes = 128,
	  .estimate = 36 * HOUR, .submit = T0 + 10 * BF_SEC, .start = T0 + 4 * HOUR,
	  .end = T0 + 40 * HOUR, .start_kind = PS_PREDICTED },
	{ .id = 3, .uid = 1000, .user = "alice", .name = "bad\tname", .state = "killed", .nodes = 1,
	  .estimate = 60 * BF_SEC, .submit = T0 - HOUR, .start = T0 - HOUR, .end = T0 - HOUR + 60 * BF_SEC,
	  .start_kind = PS_ACTUAL, .has_exit = true, .exit_status = SIGKILL },
	{ .id = 4, .uid = 1000, .user = "alice", .name = "never", .state = "cancelled", .nodes = 2,
	  .estimate = 60 * BF_SEC, .submit = T0 - HOUR, .start_kind = PS_NONE },
};
#define NJOBS (sizeof jobs / sizeof *jobs)

static size_t col(const char *line, const char *word)
{
	const char *p = strstr(line, word);

	return p ? (size_t)(p - line) : (size_t)-1;
}

static void table(void)
{
	struct proto_jobs js = { .jobs = jobs, .count = NJOBS, .total = 0 };
	FILE *f = mem();
	char *lines[16], *save, *l;
	int n = 0;
	size_t start_col;
	bool aligned = true;

	client_set_tz("UTC");
	render_set_now(T0);
	render_table(f, &js, true);
	fclose(f);
	dump();
	ok(has("JOBID  USER   NAME"), "the header starts JOBID USER NAME");
	for (l = strtok_r(out, "\n", &save); l && n < 16; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	ok(n == 7, "header, 5 jobs and the legend (the blank line before it dropped here): %d", n);
	if (n < 7)
		return;
	start_col = col(lines[0], "START");
	ok(col(lines[0], "STATE") < col(lines[0], "NODES") &&
	   col(lines[0], "NODES") < col(lines[0], "LIMIT") &&
	   col(lines[0], "LIMIT") < start_col && start_col < col(lines[0], "END") &&
	   col(lines[0], "SUBMITTED") == (size_t)-1,
	   "columns in order: ... STATE NODES LIMIT START END (SUBMITTED only with -w)");
	ok(strncmp(lines[1], "    7  alice", 12) == 0, "ids right-aligned: '%.12s'", lines[1]);
	ok(strstr(lines[1], "running       64  2:00:00      ") != NULL,
	   "running job: nodes, limit");
	ok(col(lines[1], "  Nov 21 14:01:00") == start_col,
	   "actual start without a mark, aligned, without the year of now");
	ok(strstr(lines[1], "<=Nov 21 16:01:00") != NULL, "a running job ends <= its limit");
	ok(strstr(lines[2], "1001") && strstr(lines[2], "a-very-long-+") &&
	   !strstr(lines[2], "name-that"), "no user name: the uid; a long name cut with '+'");
	ok(col(lines[2], "<=Nov 21 17:00:00") == start_col, "guaranteed start marked <=, aligned");
	ok(col(lines[3], " ~Nov 21 18:00:00") == start_col && strstr(lines[3], " ~Nov 23 06:00:00"),
	   "predicted start and end marked ~");
	ok(strstr(lines[3], "1d 12:00:00") != NULL, "a 36 h limit as 1d 12:00:00");
	ok(strstr(lines[3], "bob    -    ") != NULL || strstr(lines[3], "bob   -") != NULL,
	   "no name: '-'");
	ok(strstr(lines[4], "bad?name") && strstr(lines[4], "killed") &&
	   strstr(lines[4], "  Nov 21 13:01:00") && !strstr(lines[4], "<=Nov 21 13:01"),
	   "an ended job: actual end, control characters shown as '?'");
	ok(col(lines[5], "  -") == start_col && lines[5][strlen(lines[5]) - 1] == '-',
	   "never started: '-' for START and END");
	for (int k = 1; k <= 5; k++)
		aligned &= lines[k][strlen(lines[k]) - 1] != ' ';
	ok(aligned, "no trailing blanks");
	ok(strstr(lines[6], "<= at the latest") && strstr(lines[6], "~ predicted, not guaranteed"),
	   "legend: %s", lines[6]);

	/* bq -w: SUBMITTED, names whole; the year shown only when not now's. */
	{
		struct proto_job o = jobs[1];
		struct proto_jobs one = { .jobs = &o, .count = 1, .total = 0 };

		render_set_wide(true);
		f = mem();
		render_table(f, &js, true);
		fclose(f);
		ok(has("SUBMITTED") && has("a-very-long-job-name-that") && has("  Nov 21 14:00:00  "),
		   "bq -w: SUBMITTED, whole names");
		render_set_wide(false);
		o.start = T0 + 60 * 24 * HOUR;	/* 2027-01-20 */
		o.end = o.start + HOUR / 2;
		f = mem();
		render_table(f, &one, true);
		fclose(f);
		ok(has("<=2027-01-20 14:00:00  <=2027-01-20 14:30:00"), "a date of another year: whole");
		render_set_now(o.start);
		f = mem();
		render_table(f, &js, true);
		fclose(f);
		ok(has("  2026-11-21 14:01:00  "), "seen from another year, this year's dates are whole");
		render_set_now(T0);
	}
	/* Every line within 100 columns: the longest user and name, a 6-digit
	 * id, a limit of days, a guaranteed start and end, a cancelled job. */
	{
		struct proto_job w[2] = { jobs[1], jobs[4] };
		struct proto_jobs two = { .jobs = w, .count = 2, .total = 0 };
		size_t longest = 0;

		w[0].id = 999999;
		w[0].user = "a-very-long-user-name";
		w[0].name = "a-very-long-job-name-indeed-longer-than-any-cap";
		w[0].broken = "moved";
		w[0].estimate = 9 * 24 * HOUR + 99 * 60 * BF_SEC;
		w[1].state = "cancelled";
		f = mem();
		render_table(f, &two, true);
		fclose(f);
		for (l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (strlen(l) > longest)
				longest = strlen(l);
		ok(longest <= 100, "the widest line fits 100 columns (%zu)", longest);
	}

	js.count = 1;
	f = mem();
	render_table(f, &js, false);
	fclose(f);
	ok(has("<= at the latest") && !has("~ predicted"), "the legend names only the marks used");
	js.jobs = &jobs[3];
	f = mem();
	render_table(f, &js, false);
	fclose(f);
	ok(!has("<=") && !has("~"), "no marks, no legend");
	js.count = 0;
	f = mem();
	render_table(f, &js, false);
	fclose(f);
	ok(has("No jobs of yours (bq -a lists everyone's).\n"), "no jobs of yours");
	f = mem();
	render_table(f, &js, true);
	fclose(f);
	ok(strcmp(out, "No jobs.\n") == 0, "no jobs at all");

	/* A queued job whose guarantee moved later: marked, with a legend;
	 * bq -l tells when and why. */
	{
		struct proto_job b = jobs[1];

		b.broken = "at 2026-11-21 14:30:00: start moved from 2026-11-21 17:00:00 to "
		           "2026-11-21 18:00:00 (nodes drained)";
		f = mem();
		render_table(f, &(struct proto_jobs){ .jobs = &b, .count = 1, .total = 0 }, true);
		fclose(f);
		ok(has("queued!") && has("! its guarantee moved later (bq -l ID says when and why)"),
		   "a broken guarantee is marked in the listing, with a legend");
		f = mem();
		render_info(f, &b, 0);
		fclose(f);
		ok(has("Guarantee broken:  at 2026-11-21 14:30:00: start moved from 2026-11-21 17:00:00 "
		       "to 2026-11-21 18:00:00 (nodes drained)\n"), "bq -l says when, from, to and why");
	}
}

static void info(void)
{
	FILE *f = mem();

	render_info(f, &jobs[0], T0 + 11 * 60 * BF_SEC + 1499);
	fclose(f);
	dump();
	ok(strncmp(out, "Job:               7\nName:              sim\nUser:              alice\n"
	           "UID:               1000\nState:             running\nNodes:             64\n"
	           "Node list:         node[001-064]\nTime limit:        2:00:00\n"
	           "Submitted:         2026-11-21 14:00:00\n", 241) == 0, "the first keys, aligned");
	ok(has("Start:             2026-11-21 14:01:00 (started)\n"), "actual start");
	ok(has("End:               2026-11-21 16:01:00 at the latest (its time limit)\n"), "running: end");
	ok(has("Waited:            0:01:00\n") && has("Run time:          0:10:00.001 so far\n"),
	   "waited and run time so far, to the millisecond");
	ok(!has("CPU time") && !has("Max memory"), "a running job shows no usage yet");
	ok(has("Exit status:       -\n") && has("Working directory: /home/alice\n") &&
	   has("Output:            /home/alice/bsub-7.out\nError:             /home/alice/bsub-7.out\n"),
	   "no exit yet; cwd, out, err");

	f = mem();
	render_info(f, &jobs[3], T0);
	fclose(f);
	ok(has("Name:              bad?name\n") && has("Exit status:       killed by signal 9 (SIGKILL)\n") &&
	   has("End:               2026-11-21 13:01:00 (ended)\n") && has("Run time:          0:01:00\n"),
	   "ended job: exit status decoded, actual end, run time");
	ok(has("Signal:            SIGKILL (9)\n") && !has("Exit code:"),
	   "and the signal that ended it, by name and number");
	ok(has("User:              alice\n") && has("Node list:         -\n") &&
	   has("Working directory: -\n"), "absent values are '-'");
	ok(has("CPU time:          -\n") && has("Max memory:        -\n"),
	   "an ended job's unknown usage is '-'");
	{
		struct proto_job u = jobs[3];
		struct proto_jobs uj = { .jobs = &u, .count = 1, .total = 0 };

		u.cpu_us = 1500400;
		u.cpu_src = PU_CGROUP;
		u.mem_kb = 40960;
		u.mem_src = PU_RUSAGE;
		f = mem();
		render_info(f, &u, T0);
		fclose(f);
		ok(has("CPU time:          1.500 s (all its processes, from its cgroup)\n") &&
		   has("Max memory:        40.0 MiB (its largest process)\n"),
		   "an ended job's CPU time and peak memory, each with where it comes from");
		f = mem();
		render_json(f, &uj, true);
		fclose(f);
		ok(has(",\"cpu_us\":1500400,\"cpu_source\":\"cgroup\",\"max_memory_kb\":40960,"
		       "\"memory_source\":\"rusage\","), "the same in JSON");
	}
	f = mem();
	render_info(f, &jobs[1], T0);
	fclose(f);
	ok(has("User:              1001\n") &&
	   has("Start:             2026-11-21 17:00:00 at the latest (guaranteed)\n") &&
	   has("End:               2026-11-21 17:30:00 at the latest (guaranteed start + time limit)\n") &&
	   has("Waited:            -\n"), "guaranteed start");
	f = mem();
	render_info(f, &jobs[2], T0);
	fclose(f);
	ok(has("Start:             ~2026-11-21 18:00:00 (predicted, not guaranteed)\n") &&
	   has("Name:              -\n"), "predicted start");
	f = mem();
	render_info(f, &jobs[4], T0);
	fclose(f);
	ok(has("Start:             never started\n") && has("End:               -\n"),
	   "cancelled before it started");
	{
		struct proto_job q = { .id = 9, .state = "queued", .start_kind = PS_NONE };

		f = mem();
		render_info(f, &q, T0);
		fclose(f);
		ok(has("Start:             not known yet\n") && has("End:               not known yet\n"),
		   "queued without a start");
	}
	{
		/* A guarantee between two seconds is shown at the later one:
		 * never earlier than the truth. */
		struct proto_job g = jobs[1];
		struct proto_jobs one = { .jobs = &g, .count = 1, .total = 0 };

		g.start = T0 + 3 * HOUR + 1;
		g.end = g.start + 30 * 60 * BF_SEC;
		f = mem();
		render_info(f, &g, T0);
		fclose(f);
		ok(has("Start:             2026-11-21 17:00:01 at the latest (guaranteed)\n") &&
		   has("End:               2026-11-21 17:30:01 at the latest"),
		   "bq -l: a guarantee 1 us past a second is shown rounded up");
		f = mem();
		render_table(f, &one, true);
		fclose(f);
		ok(has("<=Nov 21 17:00:01  <=Nov 21 17:30:01"), "bq: rounded up in the table too");
		ok(client_ceil_second(T0) == T0 && client_ceil_second(T0 + 1) == T0 + BF_SEC &&
		   client_ceil_second(T0 + BF_SEC - 1) == T0 + BF_SEC && client_ceil_second(-1) == 0 &&
		   client_ceil_second(BF_NEVER) == BF_NEVER, "client_ceil_second: whole seconds stay, "
		   "the rest go up");
	}
}

static void json_out(void)
{
	struct proto_jobs js = { .jobs = &jobs[3], .count = 1, .total = 0 };
	FILE *f = mem();
	const char *want3 =
		"{\"id\":3,\"uid\":1000,\"user\":\"alice\",\"name\":\"bad\\tname\",\"state\":\"killed\","
		"\"ended\":true,\"nodes\":1,\"estimate_s\":60,\"estimate_us\":60000000,"
		"\"submit\":\"2026-11-21T13:00:00Z\",\"submit_us\":1795266000000000,"
		"\"start\":\"2026-11-21T13:00:00Z\",\"start_us\":1795266000000000,\"start_kind\":\"actual\","
		"\"end\":\"2026-11-21T13:01:00Z\",\"end_us\":1795266060000000,\"end_kind\":\"actual\","
		"\"exit_status\":9,\"exit_code\":null,\"exit_signal\":9,"
		"\"node_list\":null,\"cwd\":null,\"out\":null,\"err\":null,\"reason\":null,"
		"\"guarantee_broken\":null,\"pending_reason\":null,"
		"\"cpu_us\":null,\"cpu_source\":null,\"max_memory_kb\":null,\"memory_source\":null,"
		"\"exit_signal_name\":\"SIGKILL\",\"depend\":null,\"array_id\":null,\"array_index\":null,\"array_counts\":null}";
	char want[2048];

	render_json(f, &js, true);
	fclose(f);
	snprintf(want, sizeof want, "%s\n", want3);
	ok(strcmp(out, want) == 0, "one job as one object");
	if (strcmp(out, want) != 0)
		printf("#   got  %s#   want %s", out, want);

	js = (struct proto_jobs){ .jobs = jobs, .count = NJOBS, .total = 0 };
	f = mem();
	render_json(f, &js, false);
	fclose(f);
	ok(strncmp(out, "[\n {\"id\":7,", 11) == 0 && has("},\n {\"id\":12,") &&
	   has("\"end_us\":null,\"end_kind\":null") && out[strlen(out) - 2] == ']',
	   "an array, one object per line");
	ok(has("\"user\":null,\"name\":\"a-very-long-job-name-that-goes-on\"") &&
	   has("\"start_kind\":\"guaranteed\"") && has("\"start_kind\":\"predicted\"") &&
	   has("\"end_kind\":\"predicted\"") && has("\"estimate_s\":1800,") &&
	   has("\"start\":null,\"start_us\":null,\"start_kind\":null"),
	   "nulls, start kinds, names in full");
	ok(has("\"state\":\"running\",\"ended\":false") && has("\"end_kind\":\"guaranteed\"") &&
	   has("\"node_list\":\"node[001-064]\""), "running job");
	js.count = 0;
	f = mem();
	render_json(f, &js, false);
	fclose(f);
	ok(strcmp(out, "[]\n") == 0, "no jobs: []");
	{
		struct proto_job e = { .id = 5, .state = "done", .has_exit = true, .exit_status = 2 << 8,
		                       .estimate = BF_SEC / 4 };

		js = (struct proto_jobs){ .jobs = &e, .count = 1, .total = 0 };
		f = mem();
		render_json(f, &js, true);
		fclose(f);
		ok(has("\"exit_status\":512,\"exit_code\":2,\"exit_signal\":null,") &&
		   has(",\"exit_signal_name\":null,\"depend\":null,\"array_id\":null,\"array_index\":null,\"array_counts\":null}") &&
		   has("\"estimate_s\":0.25,"), "exit code, fractional estimate");
	}
}

/* exit (LSF's EXIT): a job that exited non-zero or that a signal of its
 * own ended, shown apart from done everywhere, with its code or signal. */
static void exit_state(void)
{
	struct proto_job e[] = {
		{ .id = 21, .uid = 1000, .user = "alice", .name = "ok", .state = "done", .nodes = 1,
		  .estimate = 60 * BF_SEC, .submit = T0, .start = T0, .end = T0 + BF_SEC,
		  .start_kind = PS_ACTUAL, .has_exit = true, .exit_status = 0 },
		{ .id = 22, .uid = 1000, .user = "alice", .name = "three", .state = "exit", .nodes = 1,
		  .estimate = 60 * BF_SEC, .submit = T0, .start = T0, .end = T0 + BF_SEC,
		  .start_kind = PS_ACTUAL, .has_exit = true, .exit_status = 3 << 8 },
		{ .id = 23, .uid = 1000, .user = "alice", .name = "segv", .state = "exit", .nodes = 1,
		  .estimate = 60 * BF_SEC, .submit = T0, .start = T0, .end = T0 + BF_SEC,
		  .start_kind = PS_ACTUAL, .has_exit = true, .exit_status = SIGSEGV | 0x80 },
		{ .id = 24, .uid = 1000, .user = "alice", .name = "odd", .state = "exit", .nodes = 1,
		  .estimate = 60 * BF_SEC, .submit = T0, .start = T0, .end = T0 + BF_SEC,
		  .start_kind = PS_ACTUAL, .has_exit = true, .exit_status = 64 },
	};
	struct proto_jobs js = { .jobs = e, .count = 4, .total = 0 };
	FILE *f;

	ok(render_job_ended(&e[1]) && render_end_kind(&e[1]) == RE_ACTUAL, "exit is ended");
	f = mem();
	render_table(f, &js, true);
	fclose(f);
	ok(has(" done ") && has("three  exit ") && has("segv   exit "),
	   "the listing shows exit apart from done");
	f = mem();
	render_info(f, &e[1], T0);
	fclose(f);
	ok(has("State:             exit\n") && has("Exit status:       exit code 3\n") &&
	   has("Exit code:         3\n") && !has("Signal:"), "bq -l: exit, exit code 3");
	f = mem();
	render_info(f, &e[2], T0);
	fclose(f);
	ok(has("Exit status:       killed by signal 11 (SIGSEGV), core dumped\n") &&
	   has("Signal:            SIGSEGV (11)\n") && !has("Exit code:"),
	   "bq -l: a signal of its own, by name and number");
	f = mem();
	render_info(f, &e[3], T0);
	fclose(f);
	ok(has("Signal:            64\n"), "a signal without a name: its number");
	f = mem();
	render_info(f, &e[0], T0);
	fclose(f);
	ok(has("State:             done\n") && has("Exit code:         0\n"), "bq -l: done, exit code 0");
	f = mem();
	render_json(f, &js, false);
	fclose(f);
	ok(has("\"id\":22,\"uid\":1000,\"user\":\"alice\",\"name\":\"three\",\"state\":\"exit\","
	       "\"ended\":true") &&
	   has("\"exit_status\":768,\"exit_code\":3,\"exit_signal\":null,"),
	   "JSON: state exit, exit code 3");
	ok(has("\"state\":\"exit\"") &&
	   has("\"exit_status\":139,\"exit_code\":null,\"exit_signal\":11,") &&
	   has("\"exit_signal_name\":\"SIGSEGV\",\"depend\":null,\"array_id\":null,\"array_index\":null,\"array_counts\":null}") &&
	   has("\"exit_status\":64,\"exit_code\":null,\"exit_signal\":64,") &&
	   has("\"memory_source\":null,\"exit_signal_name\":null,\"depend\":null,\"array_id\":null,\"array_index\":null,\"array_counts\":null}\n]"),
	   "JSON: a signal, named where it has a name");
}

static void profile(void)
{
	struct proto_step steps[40] = {
		{ T0 - 10 * BF_SEC, 12 }, { T0 + HOUR, 64 }, { T0 + 26 * HOUR + 1, 128 },
		{ T0 + 27 * HOUR, -3 }, { T0 + 28 * HOUR, 1 }, { T0 + 29 * HOUR, 127 },
	};
	struct proto_steps st = { 128, steps, 6 };
	FILE *f = mem();
	char bar[64];

	render_profile(f, &st, T0);
	fclose(f);
	dump();
	ok(has("TIME                 FROM NOW      FREE  free nodes of 128, 40 columns = all\n"),
	   "a header with the partition size");
	memset(bar, '#', 4);
	memset(bar + 4, ' ', 36);
	bar[40] = 0;
	ok(has("2026-11-21 14:00:00  now             12  |") && has(bar),
	   "the current step is 'now'; 12 of 128 is 4 of 40 columns");
	ok(has("2026-11-21 15:00:00  +1:00:00        64  |####################                    |"),
	   "half free is half the bar");
	ok(has("2026-11-22 16:00:00  +1d 02:00:00   128  |########################################|"),
	   "all free is the whole bar; the offset in whole seconds");
	ok(has("   -3  |                                        |"), "negative free: an empty bar");
	ok(has("    1  |#                                       |"), "1 free: never an empty bar");
	ok(has("  127  |#######################################"" |"), "127 of 128: never a full bar");
	ok(has("free now: 12 of 128\n"), "free now");

	for (int k = 0; k < 40; k++)
		steps[k] = (struct proto_step){ T0 + k * HOUR, k };
	st.count = 40;
	f = mem();
	render_profile(f, &st, T0 + 2 * HOUR + 1);
	fclose(f);
	ok(has("... 8 more steps (bq --profile --json lists them all)\n") &&
	   has("free now: 2 of 128\n") && !has("  now              1  |"),
	   "history is skipped, 30 steps are shown, the rest counted");
	st.count = 0;
	f = mem();
	render_profile(f, &st, T0);
	fclose(f);
	ok(has("free now: ? of 128"), "no steps");

	steps[0] = (struct proto_step){ T0, 3 };
	steps[1] = (struct proto_step){ T0 + BF_SEC, 4 };
	st.count = 2;
	f = mem();
	render_profile_json(f, &st, T0);
	fclose(f);
	ok(strcmp(out, "{\"nodes\":128,\"now\":\"2026-11-21T14:00:00Z\",\"now_us\":1795269600000000,"
	               "\"free_now\":3,\"steps\":[{\"time\":\"2026-11-21T14:00:00Z\",\"time_us\":"
	               "1795269600000000,\"free\":3},{\"time\":\"2026-11-21T14:00:01Z\",\"time_us\":"
	               "1795269601000000,\"free\":4}]}\n") == 0, "profile JSON: %s", out);
	st.count = 0;
	f = mem();
	render_profile_json(f, &st, T0);
	fclose(f);
	ok(has("\"free_now\":null,\"steps\":[]}"), "profile JSON without steps");
}

static void ended(void)
{
	struct proto_job j = { .state = "running", .start_kind = PS_ACTUAL };

	ok(!render_job_ended(&j) && render_end_kind(&j) == RE_GUARANTEED, "running: end at the latest");
	j.has_exit = true;
	ok(render_job_ended(&j) && render_end_kind(&j) == RE_ACTUAL, "an exit status means ended");
	j = (struct proto_job){ .state = "lost", .start_kind = PS_ACTUAL };
	ok(render_job_ended(&j), "any state but queued or running is ended");
	j = (struct proto_job){ .state = "queued", .start_kind = PS_NONE };
	ok(!render_job_ended(&j) && render_end_kind(&j) == RE_NONE, "queued, no start");
}

int main(void)
{
	times();
	statuses();
	texts();
	ids();
	table();
	info();
	json_out();
	profile();
	ended();
	exit_state();
	free(out);
	return tap_done();
}
