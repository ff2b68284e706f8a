/* bsub's command line and #BSUB lines; see bsub_args.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "errf.h"
#include "bsub_args.h"
#include "depexpr.h"
#include "duration.h"
#include "jobarray.h"
#include "proto.h"

/* Values are quoted in messages up to this many bytes. */
#define SHOW 60

static int shown(const char *s)
{
	size_t n = strlen(s);

	return n > SHOW ? SHOW : (int)n;
}

static const char *more(const char *s)
{
	return strlen(s) > SHOW ? "..." : "";
}

void bsub_opts_free(struct bsub_opts *o)
{
	free(o->name);
	free(o->out);
	free(o->err);
	free(o->cwd);
	free(o->depend);
	free(o->warnings);
	*o = (struct bsub_opts){ 0 };
}

void bsub_job_free(struct bsub_job *j)
{
	free(j->name);
	free(j->cwd);
	free(j->out);
	free(j->err);
	free(j->depend);
	*j = (struct bsub_job){ 0 };
}

int bsub_parse_nodes(const char *s, uint32_t *out, char *err, size_t errlen)
{
	uint64_t v = 0;

	if (!*s)
		return errf(err, errlen, "expected a number of nodes, got an empty value");
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return errf(err, errlen, "expected a whole number of nodes (1 or more), "
			            "not '%.*s%s'", shown(s), s, more(s));
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return errf(err, errlen, "%.*s%s nodes is more than the %u that can be asked for",
			            shown(s), s, more(s), UINT32_MAX);
	}
	if (v == 0)
		return errf(err, errlen, "a job needs at least 1 node, not 0");
	*out = (uint32_t)v;
	return 0;
}

/* ---- one option ---- */

enum opt_id { O_NODES, O_TIME, O_NAME, O_OUT, O_ERR, O_CWD, O_DEPEND };

static const struct {
	const char *flag;
	enum opt_id id;
} job_opts[] = {
	{ "-n", O_NODES }, { "-t", O_TIME }, { "-W", O_TIME }, { "-J", O_NAME },
	{ "-o", O_OUT }, { "-e", O_ERR }, { "-cwd", O_CWD }, { "-w", O_DEPEND },
};

static int find_opt(const char *w)
{
	for (size_t k = 0; k < sizeof job_opts / sizeof *job_opts; k++)
		if (strcmp(job_opts[k].flag, w) == 0)
			return (int)k;
	return -1;
}

static int set_string(char **slot, const char *v, char *err, size_t errlen)
{
	char *s = strdup(v);

	if (!s)
		return errf(err, errlen, "out of memory");
	free(*slot);
	*slot = s;
	return 0;
}

/* Set the option flag (job_opts[k]) to v; messages start with the flag. */
static int set_opt(struct bsub_opts *o, int k, const char *v, char *err, size_t errlen)
{
	const char *flag = job_opts[k].flag;
	char why[200];

	switch (job_opts[k].id) {
	case O_NODES:
		if (bsub_parse_nodes(v, &o->nodes, why, sizeof why) < 0)
			return errf(err, errlen, "%s: %s", flag, why);
		o->has_nodes = true;
		return 0;
	case O_TIME:
		if (duration_parse(v, &o->estimate, why, sizeof why) < 0)
			return errf(err, errlen, "%s: bad time limit '%.*s%s': %s (examples: 45 for "
			            "minutes, 2:00, 1:30:00, 90s, 2h, 1h30m, 1d)", flag, shown(v), v,
			            more(v), why);
		o->has_time = true;
		return 0;
	case O_NAME:
		if (!*v)
			return errf(err, errlen, "%s: the job name is empty", flag);
		if (strlen(v) > PROTO_MAX_STRING)
			return errf(err, errlen, "%s: the job name is longer than %u bytes", flag,
			            PROTO_MAX_STRING);
		for (const unsigned char *p = (const unsigned char *)v; *p; p++)
			if (*p < 0x20 || *p == 0x7f)
				return errf(err, errlen, "%s: the job name has a control character", flag);
		if (strchr(v, '[')) {
			/* An array, name[SPEC]%K: its mistakes said here, with a column. */
			struct jobarray a;
			size_t pos = 0;

			if (jobarray_parse(v, &a, why, sizeof why, &pos) < 0)
				return errf(err, errlen, "%s: at column %zu: %s", flag, pos + 1, why);
			jobarray_free(&a);
		}
		return set_string(&o->name, v, err, errlen);
	case O_DEPEND: {
		/* Checked here too, so a mistake is shown at once, with its
		 * column; the daemon checks it again and finds the jobs. */
		struct depexpr *e;
		size_t pos = 0;

		if (depexpr_parse(v, strlen(v), &e, why, sizeof why, &pos) < 0)
			return errf(err, errlen, "%s: at column %zu: %s", flag, pos + 1, why);
		depexpr_free(e);
		return set_string(&o->depend, v, err, errlen);
	}
	case O_OUT:
	case O_ERR:
	case O_CWD:
		if (!*v)
			return errf(err, errlen, "%s: the path is empty", flag);
		if (strlen(v) > PROTO_MAX_STRING)
			return errf(err, errlen, "%s: the path is longer than %u bytes", flag,
			            PROTO_MAX_STRING);
		return set_string(job_opts[k].id == O_OUT ? &o->out :
		                  job_opts[k].id == O_ERR ? &o->err : &o->cwd, v, err, errlen);
	}
	return errf(err, errlen, "internal error: option %s", flag);
}

/* -B and -N ask for mail, which backfilld does not send: refused, on the
 * command line and in #BSUB lines alike, so nobody waits for mail. */
static bool asks_mail(const char *a)
{
	return strcmp(a, "-B") == 0 || strcmp(a, "-N") == 0;
}

static int no_mail(const char *a, char *err, size_t errlen)
{
	return errf(err, errlen, "%s: backfilld sends no mail (no mail is configured); follow a "
	            "job with bq, or bq -l ID once it ended", a);
}

/* Append "text\n" to o->warnings. -1 if memory ran out. */
static int add_warning(struct bsub_opts *o, const char *text)
{
	size_t had = o->warnings ? strlen(o->warnings) : 0, n = strlen(text) + 1;
	char *w;

	if (had > 64 * 1024)
		return 0;	/* enough said */
	if (!(w = realloc(o->warnings, had + n + 1)))
		return -1;
	snprintf(w + had, n + 1, "%s\n", text);
	o->warnings = w;
	return 0;
}

/* Append "label:line: text\n" (line 0: "text\n") to o->warnings. -1 if
 * memory ran out. */
__attribute__((format(printf, 4, 5)))
static int warn(struct bsub_opts *o, const char *label, unsigned line, const char *fmt, ...)
{
	char text[600], all[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (line)
		snprintf(all, sizeof all, "%s:%u: %s", label, line, text);
	else
		snprintf(all, sizeof all, "%s", text);
	return add_warning(o, all);
}

/* LSF options with a value that backfilld has no use for (a queue, a
 * project, resources, a user group, ...): on the command line, as in
 * #BSUB lines, a warning and ignored, so LSF habits keep working. Any
 * other unknown option on the command line stays an error: there it is
 * more likely a typo than an LSF option. */
static bool lsf_valued(const char *w)
{
	static const char *const opts[] = { "-q", "-P", "-G", "-R", "-M", "-m", "-app", "-sla",
	                                    "-g", "-L", "-u", "-sp", "-Jd" };

	for (size_t k = 0; k < sizeof opts / sizeof *opts; k++)
		if (strcmp(w, opts[k]) == 0)
			return true;
	return false;
}

/* LSF flags without a value that change nothing here: -x (exclusive;
 * nodes are whole anyway), -r and -rn (rerunnable or not). */
static bool lsf_harmless_flag(const char *w)
{
	return strcmp(w, "-x") == 0 || strcmp(w, "-r") == 0 || strcmp(w, "-rn") == 0;
}

/* ---- the command line ---- */

static int parse_cmdline(int argc, char **argv, struct bsub_opts *o, char *err, size_t errlen)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int k;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			break;		/* the script, or "-" */
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			o->help = true;
			return 0;
		}
		if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			o->version = true;
			return 0;
		}
		if (strncmp(a, "--socket=", 9) == 0 || strcmp(a, "--socket") == 0) {
			const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);

			if (!v)
				return errf(err, errlen, "option --socket needs a value (a socket path)");
			if (!*v)
				return errf(err, errlen, "--socket: the path is empty");
			o->socket = v;
			continue;
		}
		if (asks_mail(a))
			return no_mail(a, err, errlen);
		if (strcmp(a, "-K") == 0) {
			o->wait = true;
			continue;
		}
		if (lsf_valued(a) && i + 1 >= argc)
			return errf(err, errlen, "option %s needs a value", a);
		if (lsf_harmless_flag(a) || lsf_valued(a)) {
			const char *v = lsf_valued(a) ? argv[++i] : NULL;

			if (warn(o, "", 0, "%s%s%.*s%s%s is not an option of backfilld's; ignored", a,
			         v ? " '" : "", v ? shown(v) : 0, v ? v : "", v ? more(v) : "",
			         v ? "'" : "") < 0)
				return errf(err, errlen, "out of memory");
			continue;
		}
		if ((k = find_opt(a)) < 0) {
			for (size_t j = 0; j < sizeof job_opts / sizeof *job_opts; j++) {
				size_t fl = strlen(job_opts[j].flag);

				if (strncmp(a, job_opts[j].flag, fl) == 0)
					return errf(err, errlen, "unknown option '%.*s%s' (write the "
					            "value as its own word: %s %.*s%s)", shown(a), a,
					            more(a), job_opts[j].flag, shown(a + fl), a + fl,
					            more(a + fl));
			}
			return errf(err, errlen, "unknown option '%.*s%s'", shown(a), a, more(a));
		}
		if (i + 1 >= argc)
			return errf(err, errlen, "option %s needs a value", a);
		if (set_opt(o, k, argv[++i], err, errlen) < 0)
			return -1;
	}
	if (i < argc) {
		o->script = strcmp(argv[i], "-") == 0 ? NULL : argv[i];
		o->args = argv + i + 1;
		o->nargs = (uint32_t)(argc - i - 1);
	}
	return 0;
}

int bsub_parse_cmdline(int argc, char **argv, struct bsub_opts *o, char *err, size_t errlen)
{
	*o = (struct bsub_opts){ 0 };
	if (parse_cmdline(argc, argv, o, err, errlen) < 0) {
		bsub_opts_free(o);
		return -1;
	}
	return 0;
}

/* ---- #BSUB lines ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Split [s, s+len) into words (see bsub_args.h) into buf (at least 2 *
 * len + 2 bytes), pointers in words[] (at least len + 1). */
static int split_words(const char *s, size_t len, char *buf, char **words, size_t *nwords,
                       char *err, size_t errlen)
{
	size_t p = 0, n = 0;
	char *out = buf;

	for (;;) {
		while (p < len && is_blank(s[p]))
			p++;
		if (p == len || s[p] == '#')
			break;
		words[n++] = out;
		while (p < len && !is_blank(s[p])) {
			if (s[p] == '"' || s[p] == '\'') {
				char q = s[p];
				const char *end = memchr(s + p + 1, q, len - p - 1);

				if (!end)
					return errf(err, errlen, "unterminated %c quote", q);
				memcpy(out, s + p + 1, (size_t)(end - (s + p + 1)));
				out += end - (s + p + 1);
				p = (size_t)(end - s) + 1;
			} else {
				*out++ = s[p++];
			}
		}
		*out++ = '\0';
	}
	*nwords = n;
	return 0;
}

/* LSF options that take no value: an unknown one of these does not take
 * the next word with it. */
static bool lsf_flag(const char *w)
{
	static const char *const flags[] = { "-B", "-N", "-x", "-r", "-rn", "-I", "-Ip",
	                                     "-Is", "-H", "-ul", "-hl", "-Ne", "-IS", "-ISp",
	                                     "-ISs", "-IX" };

	for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
		if (strcmp(w, flags[k]) == 0)
			return true;
	return false;
}

/* The options of one #BSUB line (the text after "#BSUB"). An option
 * backfilld does not know is a warning (with its value, if a word not
 * starting with '-' follows), so that a script written for LSF runs. */
static int bsub_line(const char *s, size_t len, struct bsub_opts *o, const char *label,
                     unsigned line, char *err, size_t errlen)
{
	char *buf = malloc(2 * len + 2);
	char **words = malloc((len + 1) * sizeof *words);
	size_t n = 0;
	int rc = 0;

	if (!buf || !words) {
		rc = errf(err, errlen, "out of memory");
		goto out;
	}
	if (split_words(s, len, buf, words, &n, err, errlen) < 0) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *w = words[i];
		int k = find_opt(w);

		if (k >= 0) {
			if (i + 1 >= n)
				rc = errf(err, errlen, "option %s needs a value", w);
			else
				rc = set_opt(o, k, words[++i], err, errlen);
		} else if (asks_mail(w)) {
			rc = no_mail(w, err, errlen);
		} else if (strcmp(w, "-K") == 0) {
			o->wait = true;
		} else if (w[0] == '-') {
			const char *v = i + 1 < n && words[i + 1][0] != '-' && !lsf_flag(w) ?
			                words[++i] : NULL;

			if (warn(o, label, line, "#BSUB %.*s%s%s%.*s%s%s is not an option of "
			         "backfilld's; ignored (#BSUB lines take -n, -t, -W, -J, -w, -o, -e, "
			         "-cwd and -K)", shown(w), w, more(w), v ? " '" : "", v ? shown(v) : 0,
			         v ? v : "", v ? more(v) : "", v ? "'" : "") < 0)
				rc = errf(err, errlen, "out of memory");
		} else {
			rc = errf(err, errlen, "unexpected '%.*s%s' (expected an option, as in "
			          "#BSUB -n 4)", shown(w), w, more(w));
		}
	}
out:
	free(buf);
	free(words);
	return rc;
}

/* Does the line (blanks skipped) start with "#BSUB"? 1 followed by a
 * blank or the end, 2 followed by something else, 0 not at all. */
static int bsub_prefix(const char *s, size_t len)
{
	if (len < 5 || memcmp(s, "#BSUB", 5) != 0)
		return 0;
	return len == 5 || is_blank(s[5]) ? 1 : 2;
}

/* A directive line of another batch system: its name, or NULL. */
static const char *foreign_prefix(const char *s, size_t len)
{
	static const char *const names[] = { "#SBATCH", "#PBS", "#$", "#COBALT" };

	for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
		size_t n = strlen(names[k]);

		if (len > n && memcmp(s, names[k], n) == 0 && is_blank(s[n]))
			return names[k];
	}
	return NULL;
}

int bsub_scan_script(const uint8_t *data, size_t len, const char *label, struct bsub_opts *o,
                     char *err, size_t errlen)
{
	const char *s = (const char *)data;
	size_t pos = 0;
	unsigned line = 0;
	bool stopped = false, foreign = false;
	const char *other;
	char why[512];

	*o = (struct bsub_opts){ 0 };
	while (pos < len) {
		const char *nl = memchr(s + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - s) : len, b = pos, e = end;

		pos = end + 1;
		line++;
		if (e > b && s[e - 1] == '\r')
			e--;
		if (line == 1 && e - b >= 2 && s[b] == '#' && s[b + 1] == '!')
			continue;
		while (b < e && is_blank(s[b]))
			b++;
		if (stopped) {
			if (bsub_prefix(s + b, e - b) == 1) {
				o->late_line = line;
				break;
			}
			continue;
		}
		if (b == e)
			continue;
		switch (bsub_prefix(s + b, e - b)) {
		case 1:
			if (memchr(s + b, '\0', e - b)) {
				bsub_opts_free(o);
				return errf(err, errlen, "%s:%u: NUL byte in a #BSUB line", label, line);
			}
			if (bsub_line(s + b + 5, e - b - 5, o, label, line, why, sizeof why) < 0) {
				bsub_opts_free(o);
				return errf(err, errlen, "%s:%u: %s", label, line, why);
			}
			break;
		case 2:
			bsub_opts_free(o);
			return errf(err, errlen, "%s:%u: '#BSUB' must be followed by a space "
			            "(as in #BSUB -n 4)", label, line);
		default:
			if (s[b] != '#') {
				stopped = true;
			} else if (!foreign && (other = foreign_prefix(s + b, e - b))) {
				foreign = true;
				if (warn(o, label, line, "%s lines are not read: backfilld reads #BSUB "
				         "lines (#BSUB -n 4, #BSUB -W 1:00)", other) < 0) {
					bsub_opts_free(o);
					return errf(err, errlen, "out of memory");
				}
			}
		}
	}
	return 0;
}

static void take(char **dst, char **src)
{
	if (!*dst) {
		*dst = *src;
		*src = NULL;
	}
}

void bsub_merge(struct bsub_opts *cmd, struct bsub_opts *script)
{
	if (!cmd->has_nodes && script->has_nodes) {
		cmd->has_nodes = true;
		cmd->nodes = script->nodes;
	}
	/* -K has no value to override: given in either place, bsub waits. */
	cmd->wait = cmd->wait || script->wait;
	if (!cmd->has_time && script->has_time) {
		cmd->has_time = true;
		cmd->estimate = script->estimate;
	}
	take(&cmd->name, &script->name);
	take(&cmd->out, &script->out);
	take(&cmd->err, &script->err);
	take(&cmd->cwd, &script->cwd);
}

/* ---- the job ---- */

char *bsub_abs_path(const char *base, const char *path)
{
	size_t bl = path[0] == '/' ? 0 : strlen(base), pl = strlen(path);
	char *tmp = malloc(bl + pl + 2), *out = malloc(bl + pl + 2);
	char *p, *o = out;

	if (!tmp || !out) {
		free(tmp);
		free(out);
		return NULL;
	}
	snprintf(tmp, bl + pl + 2, "%s/%s", bl ? base : "", path);
	/* Copy part by part, dropping empty and "." parts. */
	for (p = tmp; *p;) {
		char *q;
		size_t n;

		while (*p == '/')
			p++;
		q = p;
		while (*q && *q != '/')
			q++;
		n = (size_t)(q - p);
		if (n && !(n == 1 && p[0] == '.')) {
			*o++ = '/';
			memcpy(o, p, n);
			o += n;
		}
		p = q;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	free(tmp);
	return out;
}

static char *default_name(const char *script)
{
	const char *b = strrchr(script, '/');
	char *s;

	b = b ? b + 1 : script;
	if (!*b || strlen(b) > PROTO_MAX_STRING || !(s = strdup(b)))
		return NULL;
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

int bsub_finish(const struct bsub_opts *o, const char *base, struct bsub_job *j,
                char *err, size_t errlen)
{
	*j = (struct bsub_job){ 0 };
	/* Without -t the daemon applies its default_limit, or says there is
	 * none (backfilld.yaml(5)). */
	if (!o->has_nodes)
		return errf(err, errlen, "missing -n NODES: give the number of nodes, as in -n 4, "
		            "on the command line or in a #BSUB line");
	if (!base || base[0] != '/')
		return errf(err, errlen, "the current directory is not an absolute path");
	if (o->nargs > PROTO_MAX_LIST)
		return errf(err, errlen, "%u script arguments; at most %u can be sent", o->nargs,
		            PROTO_MAX_LIST);
	for (uint32_t k = 0; k < o->nargs; k++)
		if (strlen(o->args[k]) > PROTO_MAX_STRING)
			return errf(err, errlen, "script argument %u is longer than %u bytes", k + 1,
			            PROTO_MAX_STRING);
	j->nodes = o->nodes;
	j->estimate = o->estimate;
	j->cwd = bsub_abs_path(base, o->cwd ? o->cwd : ".");
	if (o->out)
		j->out = j->cwd ? bsub_abs_path(j->cwd, o->out) : NULL;
	if (o->err)
		j->err = j->cwd ? bsub_abs_path(j->cwd, o->err) : NULL;
	else if (o->out && j->out)
		j->err = strdup(j->out);
	if (o->name)
		j->name = strdup(o->name);
	if (o->name)
		j->array = !o->name_made && strchr(o->name, '[');	/* (checked: set_opt) */
	else if (o->script)
		j->name = default_name(o->script);
	if (o->depend)
		j->depend = strdup(o->depend);
	if (!j->cwd || (o->out && !j->out) || ((o->out || o->err) && !j->err) ||
	    (o->name && !j->name) || (o->depend && !j->depend)) {
		bsub_job_free(j);
		return errf(err, errlen, "out of memory");
	}
	if (strlen(j->cwd) > PROTO_MAX_STRING || (j->out && strlen(j->out) > PROTO_MAX_STRING) ||
	    (j->err && strlen(j->err) > PROTO_MAX_STRING)) {
		const char *what = strlen(j->cwd) > PROTO_MAX_STRING ? "working directory" :
		                   j->out && strlen(j->out) > PROTO_MAX_STRING ? "output file"
		                                                               : "error file";

		bsub_job_free(j);
		return errf(err, errlen, "the %s, made absolute, is longer than %u bytes", what,
		            PROTO_MAX_STRING);
	}
	return 0;
}

int bsub_env(char *const *envp, const char ***out, uint32_t *count, uint32_t *dropped)
{
	size_t n = 0;
	const char **v;

	*out = NULL;
	*count = 0;
	*dropped = 0;
	while (envp && envp[n])
		n++;
	if (!(v = malloc((n ? n : 1) * sizeof *v)))
		return -1;
	for (size_t k = 0; k < n; k++) {
		const char *e = envp[k], *eq = strchr(e, '=');

		if (!eq || eq == e)
			continue;
		if (strlen(e) > PROTO_MAX_STRING || *count >= PROTO_MAX_LIST) {
			(*dropped)++;
			continue;
		}
		v[(*count)++] = e;
	}
	*out = v;
	return 0;
}

int bsub_wrap_command(char *const *words, uint32_t n, uint8_t **data, size_t *len, char **name)
{
	static const char head[] = "#!/bin/sh\n# a command line, submitted by bsub\nexec";
	size_t sl = sizeof head, nl = 1;
	char *sc, *nm, *p, *q;

	for (uint32_t k = 0; k < n; k++) {
		for (const char *c = words[k]; *c; c++)
			sl += *c == '\'' ? 4 : 1;
		sl += 3;
		nl += strlen(words[k]) + 1;
	}
	sl += 1;
	if (!(sc = malloc(sl)) || !(nm = malloc(nl))) {
		free(sc);
		return -1;
	}
	memcpy(sc, head, sizeof head - 1);
	p = sc + sizeof head - 1;
	q = nm;
	for (uint32_t k = 0; k < n; k++) {
		/* Each word in single quotes; a quote in it as '\''. */
		*p++ = ' ';
		*p++ = '\'';
		for (const char *c = words[k]; *c; c++) {
			if (*c == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *c;
			}
		}
		*p++ = '\'';
		if (k)
			*q++ = ' ';
		for (const unsigned char *c = (const unsigned char *)words[k]; *c; c++)
			*q++ = *c < 0x20 || *c == 0x7f ? '?' : (char)*c;
	}
	*p++ = '\n';
	*q = 0;
	if (q - nm > PROTO_MAX_STRING)
		nm[PROTO_MAX_STRING] = 0;
	*data = (uint8_t *)sc;
	*len = (size_t)(p - sc);
	*name = nm;
	return 0;
}

bool bsub_is_shell_line(const char *word)
{
	/* Characters that mean something to sh: a word holding one cannot
	 * be a program's name, so LSF's users mean a line for the shell. */
	return word && word[strcspn(word, " \t\n;&|<>()$`\\\"'*?[]{}~#=")] != '\0';
}

int bsub_wrap_shell(const char *line, uint8_t **data, size_t *len, char **name)
{
	static const char sh[] = "/bin/sh -c ";
	char *words[] = { "/bin/sh", "-c", (char *)line, NULL };
	char *nm;

	if (bsub_wrap_command(words, 3, data, len, &nm) < 0)
		return -1;
	/* The name is the line the user typed, without the shell in front. */
	memmove(nm, nm + sizeof sh - 1, strlen(nm + sizeof sh - 1) + 1);
	*name = nm;
	return 0;
}

const char *bsub_script_label(const char *path)
{
	return path ? path : "(stdin)";
}

int bsub_read_script(const char *path, uint8_t **data, size_t *len, char *err, size_t errlen)
{
	const char *label = bsub_script_label(path);
	size_t cap = 64 * 1024, n = 0;
	uint8_t *buf;
	struct stat st;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : 0;

	*data = NULL;
	*len = 0;
	if (fd < 0)
		return errf(err, errlen, "cannot read the script %s: %s", label, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (path)
			close(fd);
		return errf(err, errlen, "cannot read the script %s: %s", label, strerror(EISDIR));
	}
	if (!(buf = malloc(cap))) {
		if (path)
			close(fd);
		return errf(err, errlen, "out of memory");
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			uint8_t *nb;

			if (cap > PROTO_MAX_SCRIPT)
				break;
			cap *= 2;
			if (!(nb = realloc(buf, cap))) {
				free(buf);
				if (path)
					close(fd);
				return errf(err, errlen, "out of memory");
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r == 0)
			break;
		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			if (path)
				close(fd);
			return errf(err, errlen, "cannot read the script %s: %s", label, strerror(e));
		}
		n += (size_t)r;
	}
	if (path)
		close(fd);
	if (n > PROTO_MAX_SCRIPT) {
		free(buf);
		return errf(err, errlen, "the script %s is larger than %u bytes (1 MiB), the most "
		            "bsub sends", label, PROTO_MAX_SCRIPT);
	}
	if (n == 0) {
		free(buf);
		return errf(err, errlen, "the script %s is empty", label);
	}
	*data = buf;
	*len = n;
	return 0;
}
