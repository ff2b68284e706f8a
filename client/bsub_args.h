/* bsub's command line and #BSUB lines, without the daemon: parsed here so
 * the rules can be tested alone.
 *
 * Job options (on the command line and in #BSUB lines), each followed by
 * its value as the next word:
 *   -n NODES   whole number >= 1        -J NAME   job name
 *   -t TIME    time limit (duration.h)  -o FILE   standard output
 *   -W TIME    the same as -t           -e FILE   standard error
 *   -cwd DIR   working directory        -K        wait for the job's end (no value)
 *   -w COND    start only once COND on other jobs holds (depexpr.h: LSF's
 *              done(ID), exit(), ended(), started(), names, && || ! ( ))
 * Command line only: --socket PATH (or --socket=PATH), -h/--help,
 * -V/--version, "--" (ends the options). The first word that is not an
 * option is the script ("-": standard input), and the words after it are
 * its arguments. Given twice, the later value wins.
 *
 * #BSUB lines are read at the top of the script: after an optional #! first
 * line, every line that is blank, a comment, or a #BSUB line, up to the
 * first other line. A #BSUB line is "#BSUB" (leading blanks allowed)
 * followed by a blank or the end of the line, then words separated by
 * blanks, where "..." and '...' quote (no escapes; adjacent parts join into
 * one word) and an unquoted word starting with '#' begins a comment. A
 * line starting with "#BSUB" followed by anything else is an error. Errors
 * read "SCRIPT:LINE: message". The command line wins over #BSUB. */
#ifndef BF_BSUB_ARGS_H
#define BF_BSUB_ARGS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

struct bsub_opts {
	/* Job options; not given: has_* false, strings NULL. Owned. */
	bool has_nodes, has_time;
	uint32_t nodes;
	bf_time estimate;
	char *name, *out, *err, *cwd;
	char *depend;		/* -w, as written (checked: depexpr_parse) */
	bool name_made;		/* name is bsub's own (a command's words), not -J's */
	bool wait;		/* -K: wait for the job to end (bsub_wait.h) */
	/* Command line only (pointers into argv). */
	const char *socket;
	const char *script;	/* NULL: standard input (also for "-") */
	char **args;		/* the script's arguments */
	uint32_t nargs;
	bool help, version;
	/* #BSUB scanning: the first #BSUB line after the scan stopped, which is
	 * ignored (0: none), for a warning. */
	unsigned late_line;
	/* #BSUB scanning: warnings, one per line ("job.sh:3: ..."), each
	 * ending in a newline; NULL if none. Owned. An unknown #BSUB option
	 * (and its value) is one, not an error; so is the first line of
	 * another scheduler's (#SBATCH, #PBS), which is not read. */
	char *warnings;
};

/* What is sent: every path absolute. */
struct bsub_job {
	uint32_t nodes;
	bf_time estimate;
	char *name;		/* NULL: none */
	char *cwd;
	char *out, *err;	/* NULL: the daemon's default */
	char *depend;		/* -w; NULL: none */
	bool array;		/* -J name[SPEC]%K: name is an array's spec, sent as one */
};

void bsub_opts_free(struct bsub_opts *o);
void bsub_job_free(struct bsub_job *j);

/* A node count: decimal digits only, 1 to UINT32_MAX. 0, or -1 with a
 * reason in err. */
int bsub_parse_nodes(const char *s, uint32_t *out, char *err, size_t errlen);

/* The command line (argv[0] is the program). 0, or -1 with a message in
 * err (a usage error; *o is then empty). *o is initialised here. With help
 * or version set, the rest may be unparsed. */
int bsub_parse_cmdline(int argc, char **argv, struct bsub_opts *o, char *err, size_t errlen);

/* The #BSUB lines of a script's content into *o (initialised here). label
 * names the script in messages ("job.sh:3: ..."). 0, or -1 with the
 * message in err (*o is then empty). */
int bsub_scan_script(const uint8_t *data, size_t len, const char *label, struct bsub_opts *o,
                     char *err, size_t errlen);

/* Give cmd every job option it lacks from script (which loses them); -K
 * in either sets it. */
void bsub_merge(struct bsub_opts *cmd, struct bsub_opts *script);

/* The job to send: -n and -t are required; the working directory is -cwd
 * made absolute against base (the current directory, absolute), else
 * base; -o and -e are made absolute against the working directory; -e
 * defaults to -o when only -o is given; the name defaults to the script's
 * file name. Checks the limits of the protocol. 0, or -1 with a message. */
int bsub_finish(const struct bsub_opts *o, const char *base, struct bsub_job *j,
                char *err, size_t errlen);

/* path made absolute against base (itself absolute) and tidied: repeated
 * slashes and "." parts are removed, as is a trailing slash; ".." is kept
 * (it may cross a symbolic link). malloc'ed; NULL if out of memory. */
char *bsub_abs_path(const char *base, const char *path);

/* The environment to send: the entries of envp that are NAME=value (a
 * non-empty name) and at most PROTO_MAX_STRING bytes, the first
 * PROTO_MAX_LIST of them. *out is malloc'ed (pointers into envp);
 * *dropped counts the entries left out for their size or number. 0 or -1
 * (out of memory). */
int bsub_env(char *const *envp, const char ***out, uint32_t *count, uint32_t *dropped);

/* Read the whole script (path NULL: standard input). At most
 * PROTO_MAX_SCRIPT bytes; empty is an error too. 0, or -1 with a message. */
int bsub_read_script(const char *path, uint8_t **data, size_t *len, char *err, size_t errlen);

/* The script's name in messages: its path, or "(stdin)". */
const char *bsub_script_label(const char *path);

/* A command line (words[0] a command, not a file) as a job script: "exec"
 * and each word single-quoted, so the job runs exactly those words. Its
 * default job name: the words joined by spaces, control characters as
 * '?'. Both malloc'ed; -1 if memory ran out. */
int bsub_wrap_command(char *const *words, uint32_t n, uint8_t **data, size_t *len, char **name);

/* Is word, the only word after the options, a shell command line, as in
 * bsub -n 1 'echo hi; hostname'? True when it holds a blank or one of
 * the shell's characters ; & | < > ( ) $ ` \ " ' * ? [ ] { } ~ # = and
 * newline. The caller first makes sure it names no file. */
bool bsub_is_shell_line(const char *word);

/* A shell command line as a job script: exec /bin/sh -c 'LINE' (quoted
 * as bsub_wrap_command quotes). Its default name: the line, control
 * characters as '?'. Both malloc'ed; -1 if memory ran out. */
int bsub_wrap_shell(const char *line, uint8_t **data, size_t *len, char **name);

#endif
