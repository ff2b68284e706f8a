/* bsub: submit a batch job to backfilld. See bsub(1). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bsub_args.h"
#include "bsub_paths.h"
#include "bsub_wait.h"
#include "client.h"
#include "duration.h"
#include "proto.h"
#include "where.h"

extern char **environ;

static void usage(FILE *f)
{
	fprintf(f,
"usage: bsub -n NODES [-t TIME] [-J NAME | -J 'NAME[SPEC]%%K'] [-w COND] [-o OUT]\n"
"            [-e ERR] [-cwd DIR] [-K] [--socket PATH]\n"
"            [SCRIPT [ARGS...] | COMMAND [ARGS...]]\n"
"       bsub --help | --version\n"
"\n"
"Submit SCRIPT (standard input if absent or -) to backfilld as a batch job\n"
"that holds NODES whole nodes for at most TIME. A word that names no file\n"
"here and has no '/' is a COMMAND: the command line is the job (bsub -n 1\n"
"-t 10 sleep 60). A single such word holding a blank or a shell character\n"
"(; & | < > $ ...) is run by /bin/sh -c (bsub -n 1 'echo hi; hostname').\n"
"\n"
"  -n NODES        number of nodes, a whole number from 1\n"
"  -t TIME         time limit: 45 (minutes), 2:00, 1:30:00, 90s, 2h, 1h30m, 1d\n"
"                  (default: the partition's default_limit, if it has one)\n"
"  -W TIME         the same as -t\n"
"  -J NAME         job name (default: the script's file name, or the command)\n"
"  -J 'NAME[SPEC]%%K'  a job array: an element per index of SPEC (1-100,\n"
"                  1-99:2, 3,5,8), each with $LSB_JOBINDEX; %%K: at most K\n"
"                  run at once (each after the one K before it ends)\n"
"  -w COND         start only once COND holds: done(ID), exit(ID[,CODE]),\n"
"                  ended(NAME), started(ID), \"ID[3]\" for an element; && || !\n"
"                  ( ); a name is one of your jobs; see bsub(1)\n"
"  -o OUT          standard output file (default: bsub-ID.out in the job's\n"
"                  directory); relative to the job's directory; %%J is the\n"
"                  job's id (-o out.%%J), %%I an array element's index;\n"
"                  also in -e\n"
"  -e ERR          standard error file (default: the -o file if given, else\n"
"                  bsub-ID.out); relative to the job's directory\n"
"  -cwd DIR        the job's working directory (default: the current one)\n"
"                  (-cwd, -o and -e are checked now, as you: refused if the\n"
"                  job could not enter or write them)\n"
"  -K              wait until the job ends, saying <<Waiting for dispatch ...>>,\n"
"                  <<Starting on NODES>> and <<Job is finished>> on stderr, and\n"
"                  exit with the job's exit code (128+N if signal N ended it;\n"
"                  126 if it never ran to its end: cancelled while pending,\n"
"                  not started, failed). Ctrl-C cancels the job and exits 130.\n"
"  --socket PATH   the daemon's socket (default: $BACKFILLD_SOCKET, else the\n"
"                  socket key of $BACKFILLD_CONFIG or /etc/backfilld/backfilld.yaml,\n"
"                  else /run/backfilld/backfilld.sock if it exists, else the\n"
"                  per-user default)\n"
"\n"
"  -B, -N          LSF's mail: refused (backfilld sends no mail), also in #BSUB\n"
"  -q QUEUE, -P PROJECT, -x, ...  other LSF options: a warning, ignored (as\n"
"                  in #BSUB; see bsub(1) for the list)\n"
"\n"
"Options may also be given in #BSUB lines at the top of the script, as in\n"
"'#BSUB -n 4 -t 1:00'; the command line wins. Options go before SCRIPT.\n"
"\n"
"Exit status: 0 submitted, 1 refused by the daemon, 2 usage error, 3 the\n"
"daemon could not be reached; with -K, once submitted, as said above (125:\n"
"the job's end cannot be learned). See bsub(1).\n");
}

static int usage_error(const char *msg)
{
	fprintf(stderr, "bsub: %s\nTry 'bsub --help' for more information.\n", msg);
	return CLIENT_EXIT_USAGE;
}

static void print_submitted(const struct proto_submitted *s, const struct bsub_job *j)
{
	char t[64], lim[64];

	/* The limit the daemon took (the site's default when -t was left out). */
	duration_format(s->estimate > 0 ? s->estimate : j->estimate, lim, sizeof lim);
	client_format_time(s->kind == PS_GUARANTEED ? client_ceil_second(s->start) : s->start, t,
	                   sizeof t);
	if (s->elements)
		printf("Job %" PRIu64 " submitted: an array of %" PRIu32 " element%s, %" PRIu32
		       " node%s for %s each, the first ", s->job, s->elements,
		       s->elements == 1 ? "" : "s", j->nodes, j->nodes == 1 ? "" : "s", lim);
	else
		printf("Job %" PRIu64 " submitted: %" PRIu32 " node%s for %s, ", s->job, j->nodes,
		       j->nodes == 1 ? "" : "s", lim);
	switch (s->kind) {
	case PS_GUARANTEED: printf("guaranteed to start by %s\n", t); break;
	case PS_PREDICTED: printf("predicted to start at %s (not guaranteed)\n", t); break;
	case PS_ACTUAL: printf("started at %s\n", t); break;
	default: printf("start not known yet\n"); break;
	}
}

/* The word after the options is a command, not a script, when no file of
 * that name is here and it has no '/' (as in bsub -n 1 sleep 60); a
 * missing ./job.sh is still a script that cannot be read. */
static bool is_command(const char *word)
{
	struct stat st;

	return word && !strchr(word, '/') && stat(word, &st) < 0 && errno == ENOENT;
}

/* The only word after the options is a line for /bin/sh -c, as LSF runs
 * bsub 'echo hi; hostname', when it names no file (a script of that
 * name keeps being read, #BSUB lines and all) and holds a blank or a
 * shell character; '/' may be in it (cd /tmp && make). */
static bool is_shell_line(const char *word, uint32_t nargs)
{
	struct stat st;

	return word && nargs == 0 && bsub_is_shell_line(word) && stat(word, &st) < 0 &&
	       errno == ENOENT;
}

/* The umask the job runs with, as LSF and Slurm pass it on: a user whose
 * umask is 077 gets output only they can read. (umask(2) only sets it:
 * set it back at once; bsub is single-threaded.) */
static uint32_t current_umask(void)
{
	mode_t m = umask(022);

	umask(m);
	return (uint32_t)m & 0777;
}

/* Send the job (req, encoded) to the daemon, say what it answered and,
 * with -K, wait for the job's end at that same daemon. bsub's exit status. */
static int send_job(const struct bsub_opts *cmd, const struct proto_buf *req,
                    const struct bsub_job *job)
{
	struct proto_submitted sd;
	struct where at, pinned;
	uint8_t *reply = NULL;
	size_t len = 0, used = 0;
	char err[2048];
	bool flushed;
	int rc;

	if (where_resolve(cmd->socket, geteuid() == 0, &at, err, sizeof err) < 0) {
		fprintf(stderr, "bsub: %s\n", err);
		return CLIENT_EXIT_UNREACHABLE;
	}
	/* From the submission on: a Ctrl-C while it is on its way cancels
	 * the job as soon as it has an id, and leaves nothing behind. */
	if (cmd->wait)
		bsub_wait_arm();
	if ((rc = client_call_at("bsub", &at, req, PT_SUBMITTED, &reply, &len, &used)) != 0)
		return rc;
	if (proto_dec_submitted(reply, len, &sd, err, sizeof err) < 0) {
		fprintf(stderr, "bsub: unreadable reply from backfilld: %s (the job may have been "
		        "submitted: check with bq)\n", err);
		free(reply);
		return CLIENT_EXIT_UNREACHABLE;
	}
	free(reply);
	print_submitted(&sd, job);
	flushed = fflush(stdout) == 0;
	if (!cmd->wait)
		return flushed ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
	/* With -K the job's end is the answer, even if that line was lost. */
	bsub_wait_pin(&at, used, &pinned);
	return bsub_wait(&pinned, sd.job);
}

int main(int argc, char **argv)
{
	struct bsub_opts cmd, scr = { 0 };
	struct bsub_job job = { 0 };
	struct proto_buf req;
	struct proto_submit m;
	char err[1024], *cwd;
	uint8_t *script = NULL;
	size_t script_len = 0;
	const char **env = NULL;
	uint32_t envc = 0, dropped = 0;
	int rc;
	bool line;

	if (bsub_parse_cmdline(argc, argv, &cmd, err, sizeof err) < 0)
		return usage_error(err);
	if (cmd.help) {
		usage(stdout);
		return fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
	}
	if (cmd.version) {
		printf("bsub (backfilld) %s\n", BACKFILLD_VERSION);
		return fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
	}
	if (!cmd.script && isatty(STDIN_FILENO))
		fprintf(stderr, "bsub: reading the job script from standard input "
		        "(end it with Ctrl-D)\n");
	line = is_shell_line(cmd.script, cmd.nargs);
	if (line || is_command(cmd.script)) {
		/* bsub -n 1 'echo hi; hostname': the shell runs the line;
		 * bsub -n 1 -t 10 sleep 60: the command line is the job. */
		char **words = cmd.args - 1, *name = NULL;

		if ((line ? bsub_wrap_shell(cmd.script, &script, &script_len, &name) :
		     bsub_wrap_command(words, cmd.nargs + 1, &script, &script_len, &name)) < 0) {
			fprintf(stderr, "bsub: out of memory\n");
			rc = CLIENT_EXIT_USAGE;
			goto out;
		}
		if (!cmd.name) {
			cmd.name = name;
			cmd.name_made = true;	/* (the line or the words: never an array) */
		} else
			free(name);
		cmd.args = NULL;
		cmd.nargs = 0;
	} else if (bsub_read_script(cmd.script, &script, &script_len, err, sizeof err) < 0) {
		fprintf(stderr, "bsub: %s\n", err);
		rc = CLIENT_EXIT_USAGE;
		goto out;
	}
	if (bsub_scan_script(script, script_len, bsub_script_label(cmd.script), &scr, err,
	                     sizeof err) < 0) {
		fprintf(stderr, "bsub: %s\n", err);
		rc = CLIENT_EXIT_USAGE;
		goto out;
	}
	for (const char *w = cmd.warnings, *nl; w && *w; w = nl + 1) {
		nl = strchr(w, '\n');
		fprintf(stderr, "bsub: warning: %.*s\n", (int)(nl - w), w);
	}
	for (const char *w = scr.warnings, *nl; w && *w; w = nl + 1) {
		nl = strchr(w, '\n');
		fprintf(stderr, "bsub: warning: %.*s\n", (int)(nl - w), w);
	}
	if (scr.late_line)
		fprintf(stderr, "bsub: warning: %s:%u: #BSUB line after the first command is "
		        "ignored (#BSUB lines go at the top of the script)\n",
		        bsub_script_label(cmd.script), scr.late_line);
	bsub_merge(&cmd, &scr);
	if (!(cwd = getcwd(NULL, 0))) {
		fprintf(stderr, "bsub: cannot get the current directory: %s\n", strerror(errno));
		rc = CLIENT_EXIT_USAGE;
		goto out;
	}
	rc = bsub_finish(&cmd, cwd, &job, err, sizeof err);
	free(cwd);
	if (rc < 0) {
		rc = usage_error(err);
		goto out;
	}
	/* As the user the job runs as: refused now, not failed at its start. */
	if (bsub_check_cwd(job.cwd, cmd.cwd ? "-cwd" : "", err, sizeof err) < 0 ||
	    bsub_check_file(job.out, "-o", err, sizeof err) < 0 ||
	    (cmd.err && bsub_check_file(job.err, "-e", err, sizeof err) < 0)) {
		fprintf(stderr, "bsub: %s\n", err);
		rc = CLIENT_EXIT_USAGE;
		goto out;
	}
	if (bsub_env(environ, &env, &envc, &dropped) < 0) {
		fprintf(stderr, "bsub: out of memory\n");
		rc = CLIENT_EXIT_USAGE;
		goto out;
	}
	if (dropped)
		fprintf(stderr, "bsub: warning: %" PRIu32 " environment variable%s not passed to the "
		        "job (over %u bytes each, or over %u in all)\n", dropped,
		        dropped == 1 ? "" : "s", PROTO_MAX_STRING, PROTO_MAX_LIST);

	m = (struct proto_submit){
		.nodes = job.nodes, .estimate = job.estimate,
		.name = job.array ? NULL : job.name, .array = job.array ? job.name : NULL,
		.script = script, .script_len = (uint32_t)script_len, .cwd = job.cwd,
		.out = job.out, .err = job.err, .argv = (const char **)cmd.args, .argc = cmd.nargs,
		.env = env, .envc = envc, .has_umask = true, .umask = current_umask(),
		.depend = job.depend,
	};
	proto_buf_init(&req);
	if (proto_enc_submit(&req, &m) < 0) {
		fprintf(stderr, "bsub: the job is too big to send: the script, its arguments and "
		        "the environment together must fit in %u bytes\n", PROTO_MAX_PAYLOAD);
		proto_buf_free(&req);
		rc = CLIENT_EXIT_USAGE;
		goto out;
	}
	rc = send_job(&cmd, &req, &job);
	proto_buf_free(&req);
out:
	free(env);
	free(script);
	bsub_job_free(&job);
	bsub_opts_free(&scr);
	bsub_opts_free(&cmd);
	return rc;
}
