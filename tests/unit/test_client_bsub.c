/* bsub's rules without a daemon: node counts, the command line, #BSUB
 * lines, merging, absolute paths, the environment, reading the script. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bsub_args.h"
#include "bsub_paths.h"
#include "bsub_wait.h"
#include "proto.h"
#include "tap.h"

static char err[2048];

#define MIN_US ((bf_time)60 * BF_SEC)

static int cmdline(struct bsub_opts *o, const char *const *words)
{
	static char *argv[64];
	int argc = 0;

	argv[argc++] = (char *)"bsub";
	for (; *words; words++)
		argv[argc++] = (char *)*words;
	argv[argc] = NULL;
	err[0] = 0;
	return bsub_parse_cmdline(argc, argv, o, err, sizeof err);
}

#define CMD(o, ...) cmdline(o, (const char *const[]){ __VA_ARGS__, NULL })

static int scan(struct bsub_opts *o, const char *text)
{
	err[0] = 0;
	return bsub_scan_script((const uint8_t *)text, strlen(text), "job.sh", o, err, sizeof err);
}

static int has(const char *needle)
{
	return strstr(err, needle) != NULL;
}

static int streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static void nodes(void)
{
	static const struct {
		const char *s;
		int rc;
		uint32_t v;
	} cases[] = {
		{ "1", 0, 1 }, { "64", 0, 64 }, { "007", 0, 7 }, { "4294967295", 0, 4294967295u },
		{ "4294967296", -1, 0 }, { "99999999999999999999999999", -1, 0 }, { "0", -1, 0 },
		{ "000", -1, 0 }, { "-1", -1, 0 }, { "+1", -1, 0 }, { "", -1, 0 }, { "1.5", -1, 0 },
		{ "4x", -1, 0 }, { " 4", -1, 0 }, { "4 ", -1, 0 }, { "0x10", -1, 0 }, { "1e3", -1, 0 },
	};

	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		uint32_t v = 12345;
		int rc = bsub_parse_nodes(cases[k].s, &v, err, sizeof err);

		ok(rc == cases[k].rc && (rc < 0 ? v == 12345 : v == cases[k].v),
		   "nodes '%s' -> %s", cases[k].s, cases[k].rc ? "rejected" : "accepted");
	}
	bsub_parse_nodes("0", &(uint32_t){ 0 }, err, sizeof err);
	ok(has("at least 1 node"), "0 nodes says at least 1 (%s)", err);
	bsub_parse_nodes("4294967296", &(uint32_t){ 0 }, err, sizeof err);
	ok(has("more than the 4294967295"), "overflow says the limit (%s)", err);
	bsub_parse_nodes("four", &(uint32_t){ 0 }, err, sizeof err);
	ok(has("'four'"), "junk is quoted (%s)", err);
}

static void command_line(void)
{
	struct bsub_opts o;
	char longname[PROTO_MAX_STRING + 2];

	ok(CMD(&o, "-n", "4", "-t", "2:00", "-J", "sim", "-o", "out.txt", "-e", "err.txt",
	       "-cwd", "run", "job.sh", "a", "b c") == 0, "a full command line parses (%s)", err);
	ok(o.has_nodes && o.nodes == 4 && o.has_time && o.estimate == 120 * MIN_US,
	   "-n and -t (2:00 is two hours)");
	ok(streq(o.name, "sim") && streq(o.out, "out.txt") && streq(o.err, "err.txt") &&
	   streq(o.cwd, "run"), "-J -o -e -cwd");
	ok(streq(o.script, "job.sh") && o.nargs == 2 && streq(o.args[0], "a") &&
	   streq(o.args[1], "b c"), "script and its arguments");
	ok(!o.socket && !o.help && !o.version, "nothing else set");
	bsub_opts_free(&o);

	ok(CMD(&o, "-W", "90s", "-n", "1") == 0 && o.estimate == 90 * BF_SEC && !o.script &&
	   o.nargs == 0, "-W is -t; no script means standard input");
	bsub_opts_free(&o);
	ok(CMD(&o, "-t", "45", "-n", "1") == 0 && o.estimate == 45 * MIN_US, "45 is minutes");
	bsub_opts_free(&o);
	ok(CMD(&o, "-t", "1h", "-W", "2h", "-n", "2", "-n", "3") == 0 && o.estimate == 120 * MIN_US &&
	   o.nodes == 3, "given twice, the later wins");
	bsub_opts_free(&o);
	ok(CMD(&o, "-J", "a", "-J", "b") == 0 && streq(o.name, "b"), "later -J wins (no leak)");
	bsub_opts_free(&o);
	ok(CMD(&o, "-n", "2", "-", "x", "y") == 0 && !o.script && o.nargs == 2 &&
	   streq(o.args[0], "x"), "'-' is standard input, with arguments");
	bsub_opts_free(&o);
	ok(CMD(&o, "-n", "2", "--", "-n", "8") == 0 && streq(o.script, "-n") && o.nargs == 1 &&
	   o.nodes == 2, "'--' ends the options: the next word is the script");
	bsub_opts_free(&o);
	ok(CMD(&o, "--") == 0 && !o.script, "'--' alone: standard input");
	bsub_opts_free(&o);
	ok(CMD(&o, "job.sh", "-n", "8") == 0 && !o.has_nodes && o.nargs == 2 &&
	   streq(o.args[0], "-n"), "options after the script belong to the script");
	bsub_opts_free(&o);
	ok(CMD(&o, "--socket", "/tmp/s", "-n", "1") == 0 && streq(o.socket, "/tmp/s"), "--socket PATH");
	bsub_opts_free(&o);
	ok(CMD(&o, "--socket=/tmp/t") == 0 && streq(o.socket, "/tmp/t"), "--socket=PATH");
	bsub_opts_free(&o);
	ok(CMD(&o, "--help", "-n", "zero") == 0 && o.help, "--help wins over what follows");
	bsub_opts_free(&o);
	ok(CMD(&o, "-h") == 0 && o.help, "-h");
	bsub_opts_free(&o);
	ok(CMD(&o, "--version") == 0 && o.version, "--version");
	bsub_opts_free(&o);
	ok(CMD(&o, "-V") == 0 && o.version, "-V");
	bsub_opts_free(&o);

	/* LSF options backfilld has no use for: warned about, as in #BSUB. */
	ok(CMD(&o, "-q", "normal", "-P", "proj", "-x", "-n", "2", "job.sh") == 0 && o.nodes == 2 &&
	   streq(o.script, "job.sh") && o.warnings &&
	   strstr(o.warnings, "-q 'normal' is not an option of backfilld's; ignored\n") &&
	   strstr(o.warnings, "-P 'proj' is not an option") && strstr(o.warnings, "-x is not an"),
	   "-q QUEUE, -P PROJECT, -x: warnings naming the option, ignored");
	bsub_opts_free(&o);

	/* Rejected. */
	ok(CMD(&o, "-Z", "job.sh") < 0 && has("unknown option '-Z'"), "unknown option (%s)", err);
	ok(CMD(&o, "-q") < 0 && has("option -q needs a value"), "LSF's -q without a value (%s)",
	   err);
	ok(CMD(&o, "--nodes", "4") < 0 && has("unknown option '--nodes'"), "no GNU long forms");
	ok(CMD(&o, "-n4", "job.sh") < 0 && has("-n 4"), "-n4 suggests -n 4 (%s)", err);
	ok(CMD(&o, "-t2:00") < 0 && has("-t 2:00"), "-t2:00 suggests -t 2:00 (%s)", err);
	ok(CMD(&o, "-n") < 0 && has("option -n needs a value"), "missing value (%s)", err);
	ok(CMD(&o, "-n", "4", "-cwd") < 0 && has("option -cwd needs a value"), "missing -cwd value");
	ok(CMD(&o, "--socket") < 0 && has("--socket needs a value"), "missing --socket value");
	ok(CMD(&o, "--socket=") < 0 && has("empty"), "empty --socket");
	ok(CMD(&o, "-n", "0") < 0 && has("-n: a job needs at least 1 node"), "-n 0 (%s)", err);
	ok(CMD(&o, "-n", "-3") < 0 && has("-n: "), "-n -3");
	ok(CMD(&o, "-n", "-t", "1") < 0 && has("'-t'"), "-n takes the next word, even -t");
	ok(CMD(&o, "-n", "1", "-t", "2:60") < 0 && has("-t: bad time limit '2:60'") &&
	   has("00 to 59") && has("1h30m"), "bad time says why and gives examples (%s)", err);
	ok(CMD(&o, "-t", "0") < 0 && has("more than 0"), "-t 0");
	ok(CMD(&o, "-W", "1.5") < 0 && has("-W: bad time limit"), "-W 1.5 (fraction without unit)");
	ok(CMD(&o, "-t", "") < 0 && has("empty"), "-t ''");
	ok(CMD(&o, "-J", "") < 0 && has("-J: the job name is empty"), "-J ''");
	ok(CMD(&o, "-J", "a\tb") < 0 && has("control character"), "-J with a tab");
	ok(CMD(&o, "-J", "a\nb") < 0 && has("control character"), "-J with a newline");
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = 0;
	ok(CMD(&o, "-J", longname) < 0 && has("longer than 4096"), "-J over 4096 bytes");
	longname[PROTO_MAX_STRING] = 0;
	ok(CMD(&o, "-J", longname) == 0 && strlen(o.name) == PROTO_MAX_STRING, "-J of 4096 bytes");
	bsub_opts_free(&o);
	ok(CMD(&o, "-o", "") < 0 && has("-o: the path is empty"), "-o ''");
	ok(CMD(&o, "-e", "") < 0 && has("-e: the path is empty"), "-e ''");
	ok(CMD(&o, "-cwd", "") < 0 && has("-cwd: the path is empty"), "-cwd ''");
	ok(CMD(&o, "-J", "ok", "-n", "x") < 0 && !o.name, "a failed parse leaves nothing to free");
}

static void bsub_lines(void)
{
	struct bsub_opts o;

	ok(scan(&o, "#!/bin/sh\n#BSUB -n 4\n#BSUB -t 1:00 -J 'my job'\necho hi\n") == 0 &&
	   o.nodes == 4 && o.estimate == 60 * MIN_US && streq(o.name, "my job") && !o.late_line,
	   "#! then #BSUB lines (%s)", err);
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB -n 2 -W 90s -o out -e err -cwd /data\n") == 0 && o.nodes == 2 &&
	   o.estimate == 90 * BF_SEC && streq(o.out, "out") && streq(o.err, "err") &&
	   streq(o.cwd, "/data"), "several options on one line, no #! line");
	bsub_opts_free(&o);
	ok(scan(&o, "#!/bin/bash\n\n# a comment\n#BSUB -n 3\n   \n#SBATCH -N 9\n#BSUB -t 5\nrun\n") == 0 &&
	   o.nodes == 3 && o.estimate == 5 * MIN_US, "blank lines and comments in between");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB -n 2\necho\n#BSUB -n 8\n#BSUB -t 1\n") == 0 && o.nodes == 2 &&
	   !o.has_time && o.late_line == 3, "scanning stops at the first command; line 3 noted");
	bsub_opts_free(&o);
	ok(scan(&o, "echo\n#BSUB -n 2\n") == 0 && !o.has_nodes && o.late_line == 2,
	   "a command first: no #BSUB options");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB -n 2\necho\n# comment\n#BSUBX\n") == 0 && o.late_line == 0,
	   "after the stop, only real #BSUB lines are noted, and none is an error");
	bsub_opts_free(&o);
	ok(scan(&o, "   #BSUB -n 3\n\t#BSUB\t-t\t2h\n") == 0 && o.nodes == 3 &&
	   o.estimate == 120 * MIN_US, "leading blanks and tabs");
	bsub_opts_free(&o);
	ok(scan(&o, "#!/bin/sh\r\n#BSUB -n 5\r\n#BSUB -J x\r\n") == 0 && o.nodes == 5 &&
	   streq(o.name, "x"), "CRLF line ends");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB -n 6") == 0 && o.nodes == 6, "no newline at the end");
	bsub_opts_free(&o);
	ok(scan(&o, "") == 0 && !o.has_nodes, "empty content");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB\n#BSUB   \n#BSUB -n 1\n") == 0 && o.nodes == 1, "#BSUB with no options");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB -n 2\n#BSUB -n 3\n") == 0 && o.nodes == 3, "the later #BSUB wins");
	bsub_opts_free(&o);
	ok(scan(&o, "# BSUB -n 4\n#bsub -n 4\n##BSUB -n 4\n") == 0 && !o.has_nodes,
	   "'# BSUB', '#bsub' and '##BSUB' are comments");
	bsub_opts_free(&o);
	ok(scan(&o, "#!/bin/sh\n#!/bin/sh\n#BSUB -n 2\n") == 0 && o.nodes == 2,
	   "a #! line after the first is a comment");
	bsub_opts_free(&o);

	/* Quotes and comments. */
	ok(scan(&o, "#BSUB -J \"two words\" -o '/tmp/a b'\n") == 0 && streq(o.name, "two words") &&
	   streq(o.out, "/tmp/a b"), "double and single quotes");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB -J a\"b c\"'d e'f\n") == 0 && streq(o.name, "ab cd ef"),
	   "quoted parts join into one word");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB -J \"it's\" -o 'say \"hi\"'\n") == 0 && streq(o.name, "it's") &&
	   streq(o.out, "say \"hi\""), "each quote holds the other");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB -n 4 # four nodes\n") == 0 && o.nodes == 4, "a trailing # comment");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB -J \"#1\" -o a#b\n") == 0 && streq(o.name, "#1") && streq(o.out, "a#b"),
	   "'#' inside a word or quoted is not a comment");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB -J '' \n") < 0 && has("job.sh:1: -J: the job name is empty"),
	   "empty quotes give an empty value (%s)", err);
	ok(scan(&o, "#!/bin/sh\n#BSUB -J \"open\n") < 0 && has("job.sh:2: unterminated \" quote"),
	   "unterminated double quote (%s)", err);
	ok(scan(&o, "#BSUB -J 'open\n") < 0 && has("job.sh:1: unterminated ' quote"),
	   "unterminated single quote");

	/* Errors, with the line. */
	ok(scan(&o, "#!/bin/sh\n#BSUB-n 4\n") < 0 &&
	   has("job.sh:2: '#BSUB' must be followed by a space"), "#BSUB-n (%s)", err);
	ok(scan(&o, "#BSUBX\n") < 0 && has("job.sh:1: '#BSUB'"), "#BSUBX");
	/* An option backfilld does not know: a warning naming the line, the
	 * rest of the script is read. */
	ok(scan(&o, "#BSUB -n 1\n#BSUB -q normal -x\n#BSUB -W 10\n") == 0 && o.nodes == 1 &&
	   o.has_time && o.warnings &&
	   strstr(o.warnings, "job.sh:2: #BSUB -q 'normal' is not an option of backfilld's; "
	          "ignored") && strstr(o.warnings, "job.sh:2: #BSUB -x is not an option"),
	   "unknown options (with a value or not): warnings, the rest is read (%s)",
	   o.warnings ? o.warnings : "none");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB --socket /tmp/s\n") == 0 && o.warnings &&
	   strstr(o.warnings, "#BSUB --socket '/tmp/s' is not an option"),
	   "--socket is not a #BSUB option");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB -h\n") == 0 && o.warnings && strstr(o.warnings, "#BSUB -h is not"),
	   "nor -h");
	bsub_opts_free(&o);
	ok(scan(&o, "#!/bin/sh\n#SBATCH -N 4\n#SBATCH -t 10\n#PBS -l nodes=2\n") == 0 &&
	   !o.has_nodes && o.warnings &&
	   streq(o.warnings, "job.sh:2: #SBATCH lines are not read: backfilld reads #BSUB lines "
	         "(#BSUB -n 4, #BSUB -W 1:00)\n"),
	   "#SBATCH lines: said once that they are not read (%s)", o.warnings ? o.warnings : "");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB 4\n") < 0 && has("job.sh:1: unexpected '4'"), "a stray word (%s)", err);
	ok(scan(&o, "#BSUB -n\n") < 0 && has("job.sh:1: option -n needs a value"), "no value");
	ok(scan(&o, "#BSUB -n # four\n") < 0 && has("option -n needs a value"),
	   "a comment is not a value");
	ok(scan(&o, "#BSUB -n zero\n") < 0 && has("job.sh:1: -n: ") && has("'zero'"),
	   "bad node count (%s)", err);
	ok(scan(&o, "#!/bin/sh\n\n#BSUB -n 2\n#BSUB -t 2:60\n") < 0 &&
	   has("job.sh:4: -t: bad time limit '2:60'"), "bad time limit on line 4 (%s)", err);
	ok(scan(&o, "#BSUB -W 1h30\n") < 0 && has("job.sh:1: -W: bad time limit"), "bad -W");
	ok(scan(&o, "#BSUB -J \"a\tb\"\n") < 0 && has("control character"), "tab in a quoted name");
	{
		static const char nul[] = "#BSUB -n 2\0 -n 3\n";

		ok(bsub_scan_script((const uint8_t *)nul, sizeof nul - 1, "job.sh", &o, err, sizeof err) < 0 &&
		   has("job.sh:1: NUL byte"), "NUL in a #BSUB line");
	}
	{
		static const char bin[] = "#BSUB -n 2\nprintf '\0\1'\n";

		ok(bsub_scan_script((const uint8_t *)bin, sizeof bin - 1, "job.sh", &o, err, sizeof err) == 0 &&
		   o.nodes == 2, "NUL after the #BSUB lines is fine");
		bsub_opts_free(&o);
	}
	err[0] = 0;
	ok(bsub_scan_script((const uint8_t *)"#BSUB -y\n", 9, bsub_script_label(NULL), &o, err,
	                    sizeof err) == 0 && o.warnings && strstr(o.warnings, "(stdin):1: "),
	   "standard input is '(stdin)'");
	bsub_opts_free(&o);
}

static void merging(void)
{
	struct bsub_opts c, s;

	CMD(&c, "-n", "8", "-J", "cmd", "job.sh");
	scan(&s, "#BSUB -n 2 -t 1:00 -J script -o out -cwd /d\n");
	bsub_merge(&c, &s);
	ok(c.nodes == 8 && c.estimate == 60 * MIN_US && streq(c.name, "cmd") && streq(c.out, "out") &&
	   streq(c.cwd, "/d") && !c.err, "the command line wins; #BSUB fills the rest");
	ok(!s.out && !s.cwd && streq(s.name, "script"), "taken strings move, the rest stay");
	bsub_opts_free(&c);
	bsub_opts_free(&s);

	CMD(&c, "-t", "10");
	scan(&s, "#BSUB -W 2h -n 1\n");
	bsub_merge(&c, &s);
	ok(c.estimate == 10 * MIN_US && c.nodes == 1, "-t on the command line beats #BSUB -W");
	bsub_opts_free(&c);
	bsub_opts_free(&s);

	CMD(&c, "job.sh");
	scan(&s, "");
	bsub_merge(&c, &s);
	ok(!c.has_nodes && !c.has_time && !c.name && !c.wait, "nothing from nothing");
	bsub_opts_free(&c);
	bsub_opts_free(&s);

	CMD(&c, "-n", "1", "job.sh");
	scan(&s, "#BSUB -K -t 10\n");
	ok(s.wait && !s.warnings, "#BSUB -K is read, without a warning");
	bsub_merge(&c, &s);
	ok(c.wait && c.estimate == 10 * MIN_US, "#BSUB -K: bsub waits");
	bsub_opts_free(&c);
	bsub_opts_free(&s);
}

/* A job's record as PT_INFO gives it: state, started or not, exit status
 * (st < 0: none). */
static struct proto_job rec(const char *state, bool ran, int32_t st)
{
	return (struct proto_job){ .id = 7, .state = state, .start_kind = ran ? PS_ACTUAL : PS_NONE,
	                           .has_exit = st >= 0, .exit_status = st >= 0 ? st : 0 };
}

#define EXITED(c) ((c) << 8)

static void waiting(void)
{
	static const struct {
		const char *state;
		bool ran;
		int32_t st;
		enum bsub_phase phase;
		int code;
		const char *what;
	} cases[] = {
		{ "queued", false, -1, BW_PENDING, 0, NULL },
		{ "held", false, -1, BW_PENDING, 0, NULL },
		{ "running", true, -1, BW_RUNNING, 0, NULL },
		{ "done", true, EXITED(0), BW_ENDED, 0, "Job is finished" },
		{ "done", true, EXITED(3), BW_ENDED, 3, "Job is finished" },
		{ "exit", true, EXITED(3), BW_ENDED, 3, "Job is finished" },
		{ "done", true, SIGTERM, BW_ENDED, 143, "Job is finished" },
		{ "exit", true, SIGSEGV | 0x80, BW_ENDED, 139, "Job is finished" },
		{ "killed", true, SIGKILL, BW_ENDED, 137, "Job was killed at its time limit" },
		{ "killed", true, EXITED(0), BW_ENDED, 143, "Job was killed at its time limit" },
		{ "killed", true, EXITED(4), BW_ENDED, 4, "Job was killed at its time limit" },
		{ "cancelled", true, SIGTERM, BW_ENDED, 143, "Job was cancelled while running" },
		{ "cancelled", true, EXITED(0), BW_ENDED, 143, "Job was cancelled while running" },
		{ "cancelled", false, -1, BW_ENDED, 126, "Terminated while pending" },
		{ "failed", false, -1, BW_ENDED, 126, "Job failed" },
		{ "failed", true, EXITED(0), BW_ENDED, 126, "Job failed" },
		{ "done", true, -1, BW_ENDED, 125, "Job ended; its exit status is not known" },
		/* a newer daemon's states: live until the record has an exit status */
		{ "waiting", false, -1, BW_PENDING, 0, NULL },
		{ "suspended", true, -1, BW_RUNNING, 0, NULL },
		{ "timeout", true, EXITED(5), BW_ENDED, 5, "Job is finished" },
	};

	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		struct proto_job j = rec(cases[k].state, cases[k].ran, cases[k].st);
		enum bsub_phase ph = bsub_wait_phase(&j);
		struct bsub_end e = { 0 };

		if (ph == BW_ENDED)
			bsub_wait_end(&j, &e);
		ok(ph == cases[k].phase && (ph != BW_ENDED || (e.code == cases[k].code &&
		   streq(e.what, cases[k].what))), "%s, %s, status %d: phase %d, exit %d, <<%s>>",
		   cases[k].state, cases[k].ran ? "started" : "never started", (int)cases[k].st,
		   (int)ph, e.code, e.what ? e.what : "");
	}
	{
		struct proto_job j = rec("failed", false, -1);
		struct bsub_end e;

		j.reason = "cannot chdir to /gone";
		bsub_wait_end(&j, &e);
		ok(streq(e.detail, "cannot chdir to /gone"), "a failure says its reason");
	}
	{
		int ms = BSUB_WAIT_FIRST_MS, steps = 0, last = 0;

		while (ms < BSUB_WAIT_MAX_MS && steps < 100) {
			last = ms;
			ms = bsub_wait_backoff(ms, BSUB_WAIT_MAX_MS);
			steps++;
		}
		ok(ms == BSUB_WAIT_MAX_MS && last < ms && steps < 10 &&
		   bsub_wait_backoff(ms, BSUB_WAIT_MAX_MS) == BSUB_WAIT_MAX_MS,
		   "the interval grows from %d ms to %d ms in %d steps and stays there",
		   BSUB_WAIT_FIRST_MS, BSUB_WAIT_MAX_MS, steps);
		ok(bsub_wait_backoff(BSUB_WAIT_DOWN_MS, BSUB_WAIT_MAX_MS) == BSUB_WAIT_MAX_MS &&
		   bsub_wait_backoff(0, BSUB_WAIT_MAX_MS) == BSUB_WAIT_FIRST_MS,
		   "a longer interval comes back down to the cap; none starts at the first");
	}
}

static void pinning(void)
{
	struct where w = { .n = 3 }, p;

	snprintf(w.c[0].path, sizeof w.c[0].path, "/etc.sock");
	snprintf(w.c[1].path, sizeof w.c[1].path, "/run/b.sock");
	snprintf(w.c[2].path, sizeof w.c[2].path, "/tmp/u.sock");
	w.c[1].may_skip = true;
	snprintf(w.warning, sizeof w.warning, "broken file");
	bsub_wait_pin(&w, 1, &p);
	ok(p.n == 1 && streq(p.c[0].path, "/run/b.sock") && !p.c[0].may_skip && !p.warning[0],
	   "waiting asks only the daemon that took the job, even while its socket is gone");
}

static void abs_paths(void)
{
	static const struct {
		const char *base, *path, *want;
	} cases[] = {
		{ "/home/u", "x", "/home/u/x" },
		{ "/home/u/", "./x/", "/home/u/x" },
		{ "/", "x", "/x" },
		{ "/a", "/", "/" },
		{ "/", ".", "/" },
		{ "/a", ".", "/a" },
		{ "/a", "..", "/a/.." },
		{ "/a", "b//c/./d", "/a/b/c/d" },
		{ "/a", "/abs//p/", "/abs/p" },
		{ "/a//b/", "c", "/a/b/c" },
		{ "/a", ".hidden", "/a/.hidden" },
		{ "/a", "...", "/a/..." },
	};

	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char *p = bsub_abs_path(cases[k].base, cases[k].path);

		ok(streq(p, cases[k].want), "abs('%s', '%s') = '%s' (got '%s')", cases[k].base,
		   cases[k].path, cases[k].want, p ? p : "(null)");
		free(p);
	}
}

static void finishing(void)
{
	struct bsub_opts o;
	struct bsub_job j;
	char big[PROTO_MAX_STRING + 8];

	CMD(&o, "job.sh");
	ok(bsub_finish(&o, "/home/u", &j, err, sizeof err) < 0 &&
	   has("missing -n NODES"), "both missing: -n is asked for (%s)", err);
	bsub_opts_free(&o);
	CMD(&o, "-t", "1");
	ok(bsub_finish(&o, "/home/u", &j, err, sizeof err) < 0 && has("missing -n NODES") &&
	   has("#BSUB"), "-n missing (%s)", err);
	bsub_opts_free(&o);
	CMD(&o, "-n", "1");
	ok(bsub_finish(&o, "/home/u", &j, err, sizeof err) == 0 && j.estimate == 0,
	   "-t missing: no limit sent, for the daemon's default_limit (%s)", err);
	bsub_job_free(&j);
	bsub_opts_free(&o);

	CMD(&o, "-n", "2", "-t", "1", "dir/job.sh");
	ok(bsub_finish(&o, "/home/u", &j, err, sizeof err) == 0 && j.nodes == 2 &&
	   j.estimate == MIN_US && streq(j.cwd, "/home/u") && !j.out && !j.err &&
	   streq(j.name, "job.sh"), "defaults: cwd is the current directory, name the script's");
	bsub_job_free(&j);
	bsub_opts_free(&o);

	CMD(&o, "-n", "2", "-t", "1", "-cwd", "run/./a", "-o", "out.txt");
	ok(bsub_finish(&o, "/home/u", &j, err, sizeof err) == 0 && streq(j.cwd, "/home/u/run/a") &&
	   streq(j.out, "/home/u/run/a/out.txt") && streq(j.err, "/home/u/run/a/out.txt") && !j.name,
	   "relative -cwd; -o against it; -e follows -o; stdin has no name");
	bsub_job_free(&j);
	bsub_opts_free(&o);

	CMD(&o, "-n", "2", "-t", "1", "-cwd", "/scratch", "-e", "e.log", "-J", "n", "x.sh");
	ok(bsub_finish(&o, "/home/u", &j, err, sizeof err) == 0 && streq(j.cwd, "/scratch") &&
	   !j.out && streq(j.err, "/scratch/e.log") && streq(j.name, "n"),
	   "absolute -cwd; -e alone; -J beats the script name");
	bsub_job_free(&j);
	bsub_opts_free(&o);

	CMD(&o, "-n", "2", "-t", "1", "-o", "/abs/o", "-e", "../e", "-cwd", "w");
	ok(bsub_finish(&o, "/h", &j, err, sizeof err) == 0 && streq(j.out, "/abs/o") &&
	   streq(j.err, "/h/w/../e"), "absolute -o kept; '..' kept");
	bsub_job_free(&j);
	bsub_opts_free(&o);

	CMD(&o, "-n", "2", "-t", "1", "dir/");
	ok(bsub_finish(&o, "/h", &j, err, sizeof err) == 0 && !j.name, "no file name, no name");
	bsub_job_free(&j);
	bsub_opts_free(&o);

	CMD(&o, "-n", "2", "-t", "1", "we\tird.sh");
	ok(bsub_finish(&o, "/h", &j, err, sizeof err) == 0 && streq(j.name, "we?ird.sh"),
	   "control characters in the default name become '?'");
	bsub_job_free(&j);
	bsub_opts_free(&o);

	CMD(&o, "-n", "1", "-t", "1");
	ok(bsub_finish(&o, "relative", &j, err, sizeof err) < 0 && has("absolute"),
	   "the base must be absolute");
	bsub_opts_free(&o);

	memset(big, 'd', sizeof big);
	big[PROTO_MAX_STRING - 2] = 0;	/* 4094 bytes: fine alone, too long under /home/u */
	CMD(&o, "-n", "1", "-t", "1", "-cwd", big);
	ok(bsub_finish(&o, "/home/u", &j, err, sizeof err) < 0 &&
	   has("working directory, made absolute, is longer than 4096"), "long cwd (%s)", err);
	bsub_opts_free(&o);
	CMD(&o, "-n", "1", "-t", "1", "-cwd", "/x", "-o", big);
	ok(bsub_finish(&o, "/home/u", &j, err, sizeof err) < 0 && has("output file"),
	   "long output path (%s)", err);
	bsub_opts_free(&o);
	big[PROTO_MAX_STRING - 2] = 'd';
	big[PROTO_MAX_STRING + 1] = 0;
	CMD(&o, "-n", "1", "-t", "1", "job.sh", "ok", big);
	ok(bsub_finish(&o, "/home/u", &j, err, sizeof err) < 0 &&
	   has("script argument 2 is longer than 4096"), "long argument (%s)", err);
	bsub_opts_free(&o);
	{
		static char *many[PROTO_MAX_LIST + 8];

		for (size_t k = 0; k < sizeof many / sizeof *many; k++)
			many[k] = (char *)"a";
		CMD(&o, "-n", "1", "-t", "1");
		o.args = many;
		o.nargs = PROTO_MAX_LIST + 1;
		ok(bsub_finish(&o, "/h", &j, err, sizeof err) < 0 && has("4097 script arguments"),
		   "too many arguments (%s)", err);
		o.nargs = PROTO_MAX_LIST;
		ok(bsub_finish(&o, "/h", &j, err, sizeof err) == 0, "4096 arguments are fine");
		bsub_job_free(&j);
		bsub_opts_free(&o);
	}
}

static void environment(void)
{
	char *longv = malloc(PROTO_MAX_STRING + 2), *edge = malloc(PROTO_MAX_STRING + 1);
	char *envp[8];
	const char **v;
	uint32_t n, dropped;
	static char *many[PROTO_MAX_LIST + 11];

	memset(longv, 'v', PROTO_MAX_STRING + 1);
	memcpy(longv, "L=", 2);
	longv[PROTO_MAX_STRING + 1] = 0;	/* 4097 bytes */
	memset(edge, 'v', PROTO_MAX_STRING);
	memcpy(edge, "E=", 2);
	edge[PROTO_MAX_STRING] = 0;		/* 4096 bytes */
	envp[0] = (char *)"A=1";
	envp[1] = (char *)"NOEQUALS";
	envp[2] = (char *)"=bad";
	envp[3] = (char *)"B=";
	envp[4] = longv;
	envp[5] = edge;
	envp[6] = (char *)"C=x=y";
	envp[7] = NULL;
	ok(bsub_env(envp, &v, &n, &dropped) == 0 && n == 4 && dropped == 1, "env: %u kept, %u dropped",
	   n, dropped);
	ok(n == 4 && streq(v[0], "A=1") && streq(v[1], "B=") && v[2] == edge && streq(v[3], "C=x=y"),
	   "NAME=value kept in order; no '=', an empty name and over 4096 bytes are not");
	free(v);
	for (size_t k = 0; k < PROTO_MAX_LIST + 10; k++)
		many[k] = (char *)"X=1";
	many[PROTO_MAX_LIST + 10] = NULL;
	ok(bsub_env(many, &v, &n, &dropped) == 0 && n == PROTO_MAX_LIST && dropped == 10,
	   "at most 4096 entries");
	free(v);
	ok(bsub_env(NULL, &v, &n, &dropped) == 0 && n == 0, "no environment");
	free(v);
	free(longv);
	free(edge);
}

static int write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t w = fd < 0 ? -1 : write(fd, data, len);

	if (fd >= 0)
		close(fd);
	return w == (ssize_t)len ? 0 : -1;
}

static void reading(void)
{
	char dir[] = "/tmp/test_client_bsub.XXXXXX", path[256];
	uint8_t *data, *big = calloc(1, PROTO_MAX_SCRIPT + 1);
	size_t len;

	if (!mkdtemp(dir) || !big) {
		ok(0, "temporary directory");
		return;
	}
	snprintf(path, sizeof path, "%s/job.sh", dir);
	write_file(path, "#!/bin/sh\necho hi\n", 18);
	ok(bsub_read_script(path, &data, &len, err, sizeof err) == 0 && len == 18 &&
	   memcmp(data, "#!/bin/sh\n", 10) == 0, "a script is read whole");
	free(data);
	write_file(path, "", 0);
	ok(bsub_read_script(path, &data, &len, err, sizeof err) < 0 && has("is empty") &&
	   has("job.sh"), "an empty script is refused (%s)", err);
	memset(big, '#', PROTO_MAX_SCRIPT);
	write_file(path, big, PROTO_MAX_SCRIPT);
	ok(bsub_read_script(path, &data, &len, err, sizeof err) == 0 && len == PROTO_MAX_SCRIPT,
	   "exactly 1 MiB is fine");
	free(data);
	write_file(path, big, PROTO_MAX_SCRIPT + 1);
	ok(bsub_read_script(path, &data, &len, err, sizeof err) < 0 && has("larger than 1048576"),
	   "1 MiB + 1 is refused (%s)", err);
	ok(bsub_read_script(dir, &data, &len, err, sizeof err) < 0 && has("Is a directory"),
	   "a directory is refused (%s)", err);
	unlink(path);
	ok(bsub_read_script(path, &data, &len, err, sizeof err) < 0 &&
	   has("No such file or directory") && has(path), "a missing file (%s)", err);
	rmdir(dir);
	free(big);
}

/* What bsub sends decodes to what it was given. */
static void request(void)
{
	struct bsub_opts o;
	struct bsub_job j;
	struct proto_buf b;
	struct proto_submit m, d;
	struct proto_arena a = { 0 };
	const char *env[] = { "HOME=/home/u" };
	static const char script[] = "#!/bin/sh\n#BSUB -n 3\nsrun x\n";

	CMD(&o, "-t", "1h", "-o", "o", "job.sh", "arg");
	{
		struct bsub_opts s;

		scan(&s, script);
		bsub_merge(&o, &s);
		bsub_opts_free(&s);
	}
	bsub_finish(&o, "/home/u", &j, err, sizeof err);
	m = (struct proto_submit){
		.nodes = j.nodes, .estimate = j.estimate, .name = j.name,
		.script = (const uint8_t *)script, .script_len = sizeof script - 1, .cwd = j.cwd,
		.out = j.out, .err = j.err, .argv = (const char **)o.args, .argc = o.nargs,
		.env = env, .envc = 1,
	};
	proto_buf_init(&b);
	ok(proto_enc_submit(&b, &m) == 0 &&
	   proto_dec_submit(b.p, b.len, &d, &a, err, sizeof err) == 0, "the request encodes and decodes");
	ok(d.nodes == 3 && d.estimate == 60 * MIN_US && streq(d.name, "job.sh") &&
	   streq(d.cwd, "/home/u") && streq(d.out, "/home/u/o") && streq(d.err, "/home/u/o") &&
	   d.argc == 1 && streq(d.argv[0], "arg") && d.envc == 1 && d.script_len == sizeof script - 1,
	   "the daemon sees the merged, absolute job");
	proto_arena_free(&a);
	proto_buf_free(&b);
	bsub_job_free(&j);
	bsub_opts_free(&o);
}

/* A command line as the job: exactly its words, whatever they hold. */
static void wrapping(void)
{
	char *words[] = { "printf", "%s|", "it's", "$HOME", "a\tb", NULL };
	uint8_t *data = NULL;
	size_t len = 0;
	char *name = NULL;
	struct bsub_opts o;
	int rc;

	ok(bsub_wrap_command(words, 5, &data, &len, &name) == 0 && data && name,
	   "a command line is wrapped");
	ok(data && len > 0 && memcmp(data, "#!/bin/sh\n", 10) == 0 &&
	   memmem(data, len, "exec 'printf' '%s|' 'it'\\''s' '$HOME' 'a\tb'\n", 41),
	   "as exec and each word single-quoted (a quote as '\\'')");
	ok(name && streq(name, "printf %s| it's $HOME a?b"),
	   "its default name: the words, a control character as '?' (%s)", name ? name : "");
	free(data);
	free(name);
	data = NULL;
	name = NULL;
	ok(bsub_is_shell_line("echo hi; hostname") && bsub_is_shell_line("cd /tmp && make") &&
	   bsub_is_shell_line("a|b") && bsub_is_shell_line("x=1") && bsub_is_shell_line("echo $HOME"),
	   "a word with a blank or a shell character is a shell line");
	ok(!bsub_is_shell_line("hostname") && !bsub_is_shell_line("./job.sh") &&
	   !bsub_is_shell_line("job-1.sh") && !bsub_is_shell_line(NULL),
	   "a plain program or script name is not");
	/* (wrapped first: the message's argument reads the new name) */
	rc = bsub_wrap_shell("echo 'hi'; hostname", &data, &len, &name);
	ok(rc == 0 && data && name &&
	   memmem(data, len, "exec '/bin/sh' '-c' 'echo '\\''hi'\\''; hostname'\n", 48) &&
	   streq(name, "echo 'hi'; hostname"),
	   "a shell line is run by /bin/sh -c, quoted; its name is the line (%s)", name ? name : "");
	free(data);
	free(name);
	ok(CMD(&o, "-n", "1", "-B", "job.sh") < 0 && has("-B: backfilld sends no mail"),
	   "-B is refused: no mail is configured");
	ok(CMD(&o, "-N", "job.sh") < 0 && has("-N: backfilld sends no mail"), "so is -N");
	ok(scan(&o, "#BSUB -x -r -n 2\n") == 0 && o.nodes == 2 && o.warnings &&
	   strstr(o.warnings, "#BSUB -x is not") && strstr(o.warnings, "#BSUB -r is not"),
	   "LSF flags without a value do not swallow the next option");
	bsub_opts_free(&o);	/* (a scan starts from an empty *o) */
	ok(scan(&o, "#BSUB -n 2\n#BSUB -N\n") < 0 && has("-N: backfilld sends no mail"),
	   "#BSUB -N is refused as -N is");
	bsub_opts_free(&o);
	ok(scan(&o, "#BSUB -x\n#BSUB -B\n") < 0 && has("-B: backfilld sends no mail") && !o.warnings,
	   "a refusal after a warning leaves nothing behind");
	bsub_opts_free(&o);
}

/* -cwd, -o and -e checked at submission (as root here: what access(2)
 * refuses to a user is in tests/daemon/lsf.sh). */
static void paths(void)
{
	ok(bsub_check_cwd("/", "-cwd", err, sizeof err) == 0, "-cwd /");
	ok(bsub_check_cwd("/nonexistent/d", "-cwd", err, sizeof err) < 0 &&
	   has("-cwd: working directory /nonexistent/d: No such file"), "-cwd missing (%s)", err);
	ok(bsub_check_cwd("/dev/null", "", err, sizeof err) < 0 &&
	   has("working directory /dev/null: Not a directory") && err[0] == 'w',
	   "the current directory not one, no flag (%s)", err);
	ok(bsub_check_file(NULL, "-o", err, sizeof err) == 0, "no -o: nothing to check");
	ok(bsub_check_file("/dev/null", "-o", err, sizeof err) == 0, "an existing writable file");
	ok(bsub_check_file("/tmp/bsub-paths-new.out", "-o", err, sizeof err) == 0,
	   "a new file in a writable directory");
	ok(bsub_check_file("/nonexistent/d/out", "-o", err, sizeof err) < 0 &&
	   has("-o /nonexistent/d/out: its directory /nonexistent/d: No such file"),
	   "a new file in a missing directory (%s)", err);
	ok(bsub_check_file("/nonexistent/out.%J", "-e", err, sizeof err) < 0 &&
	   has("-e /nonexistent/out.%J: its directory /nonexistent: No such file"),
	   "%%J in the name: its directory is still checked (%s)", err);
	ok(bsub_check_file("/dev/null/out", "-o", err, sizeof err) < 0 &&
	   has("-o /dev/null/out: Not a directory"), "a directory that is a file (%s)", err);
	ok(bsub_check_file("/tmp", "-o", err, sizeof err) < 0 && has("-o /tmp: Is a directory"),
	   "-o a directory (%s)", err);
	ok(bsub_check_file("/nonexistent/%J/out", "-o", err, sizeof err) == 0,
	   "a directory with %% in it is made at the start: not checked");
}

int main(void)
{
	wrapping();
	nodes();
	command_line();
	bsub_lines();
	merging();
	waiting();
	pinning();
	abs_paths();
	finishing();
	environment();
	reading();
	request();
	paths();
	return tap_done();
}
