/* The configuration file: libyaml's event API over a file read whole into
 * memory (at most CONF_MAX_FILE bytes), a table of keys with one setter
 * each, and every problem collected as "FILE:LINE:COLUMN: message".
 *
 * Why the event API and not libyaml's document loader: events let us
 * refuse aliases before anything is built (no "billion laughs"), skip a
 * wrongly typed subtree without keeping it, and keep reporting the errors
 * found before a syntax error, which the loader would throw away. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>
#include "decimal.h"
#include "duration.h"
#include "nearest.h"
#include "nodelist.h"
#include "conf.h"

#define DEFAULT_NODES     16
#define PARTITION_MAX     63	/* bytes in a partition name, as a node name */
#define GROUP_MAX         32	/* bytes in a group name (shadow-utils' limit) */
#define KEY_SHOWN         64	/* bytes of an unknown key kept for its message */

struct pos {
	unsigned line, col;	/* 1-based */
};

/* A scalar as read: text owned, plain (unquoted) or not, where it starts.
 * ok is false for an item that was not a usable scalar (already reported,
 * or a nested collection, which only the nodes setter reports). */
struct scalar {
	char *text;
	size_t len;
	bool plain, ok, nested;
	struct pos at;
};

/* One value: a scalar, a sequence of scalars (nodes), or something only
 * reported (a mapping, or a value already found bad while reading). */
enum val_kind { V_SCALAR, V_SEQ, V_MAP, V_BAD };
struct val {
	enum val_kind kind;
	struct pos at;
	struct scalar s;
	struct scalar *items;
	size_t n, cap;
};

struct loader {
	struct conf *c;
	struct conf_errors *errs;
	const char *name;		/* FILE in messages */
	const char *data;		/* the whole text, for reader error positions */
	size_t len;
	yaml_parser_t parser;
	bool seen[CONF_NKEYS];
	struct pos key_at[CONF_NKEYS], val_at[CONF_NKEYS];
	bool syntax;			/* a syntax error ended the reading */
	bool nomem;
};

typedef int (*setter)(struct loader *l, enum conf_key k, const struct val *v);

/* ---- messages ---- */

/* Quoted user text for a message: at most 40 bytes, anything unprintable
 * as \xNN, so one message stays one short line whatever the file holds.
 * Returned by value so that two can appear in one printf. */
struct shown {
	char s[4 * 40 + 8];
};

static struct shown show(const char *text, size_t len)
{
	struct shown r;
	size_t o = 0;

	r.s[o++] = '\'';
	for (size_t i = 0; i < len && i < 40; i++) {
		unsigned char ch = (unsigned char)text[i];

		if (ch < 0x20 || ch == 0x7f || ch == '\\')
			o += (size_t)snprintf(r.s + o, sizeof r.s - o, "\\x%02x", ch);
		else
			r.s[o++] = (char)ch;
	}
	if (len > 40)
		o += (size_t)snprintf(r.s + o, sizeof r.s - o, "...");
	r.s[o++] = '\'';
	r.s[o] = 0;
	return r;
}

#define SHOW(sc) (show((sc)->text, (sc)->len).s)

/* Keep a message in position order (stable: equal positions keep the
 * order they were found in). Insertion is quadratic, but there are at
 * most CONF_MAX_ERRORS of them. */
static void add_error(struct conf_errors *e, struct pos at, char *text)
{
	size_t i;

	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 16;
		struct conf_error *v = realloc(e->v, cap * sizeof *v);

		if (!v) {
			free(text);
			e->nomem = true;
			return;
		}
		e->v = v;
		e->cap = cap;
	}
	for (i = e->n; i > 0; i--) {
		const struct conf_error *p = &e->v[i - 1];

		if (p->line < at.line || (p->line == at.line && p->column <= at.col))
			break;
		e->v[i] = *p;
	}
	e->v[i] = (struct conf_error){ at.line, at.col, text };
	e->n++;
}

static void vreport(struct conf_errors *errs, const char *name, struct pos at, const char *fmt,
                    va_list ap)
{
	char msg[512], *text;

	if (errs->n >= CONF_MAX_ERRORS) {
		errs->dropped++;
		return;
	}
	vsnprintf(msg, sizeof msg, fmt, ap);
	if ((at.line ? asprintf(&text, "%s:%u:%u: %s", name, at.line, at.col, msg)
	             : asprintf(&text, "%s: %s", name, msg)) < 0) {
		errs->nomem = true;
		return;
	}
	add_error(errs, at, text);
}

__attribute__((format(printf, 3, 4)))
static void report(struct loader *l, struct pos at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(l->errs, l->name, at, fmt, ap);
	va_end(ap);
}

void conf_error_add(struct conf_errors *errs, const char *name, unsigned line, unsigned column,
                    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(errs, name, (struct pos){ line, column }, fmt, ap);
	va_end(ap);
}

static struct pos mark_pos(yaml_mark_t m)
{
	return (struct pos){ (unsigned)m.line + 1, (unsigned)m.column + 1 };
}

/* Where byte `off` is, counted as libyaml counts (lines after \n, \r\n
 * or \r; columns in characters): libyaml gives only an offset for an
 * encoding error. */
static struct pos offset_pos(const char *data, size_t len, size_t off)
{
	struct pos p = { 1, 1 };

	for (size_t i = 0; i < off && i < len; i++) {
		unsigned char ch = (unsigned char)data[i];

		if (ch == '\n' || (ch == '\r' && (i + 1 >= len || data[i + 1] != '\n'))) {
			p.line++;
			p.col = 1;
		} else if ((ch & 0xc0) != 0x80 && ch != '\r') {
			p.col++;
		}
	}
	return p;
}

/* ---- events ---- */

static void syntax_error(struct loader *l)
{
	const yaml_parser_t *p = &l->parser;
	struct pos at;

	if (p->error == YAML_MEMORY_ERROR) {
		l->nomem = true;
		return;
	}
	at = p->error == YAML_READER_ERROR ? offset_pos(l->data, l->len, p->problem_offset)
	                                   : mark_pos(p->problem_mark);
	if (p->context)
		report(l, at, "syntax error: %s (%s)", p->problem ? p->problem : "invalid YAML",
		       p->context);
	else
		report(l, at, "syntax error: %s", p->problem ? p->problem : "invalid YAML");
	l->syntax = true;
}

/* The next event, or -1 after a syntax error (reported) or no memory. */
static int next(struct loader *l, yaml_event_t *e)
{
	if (l->nomem)
		return -1;
	if (!yaml_parser_parse(&l->parser, e)) {
		syntax_error(l);
		return -1;
	}
	return 0;
}

/* Consume events until `depth` open collections are closed: a subtree we
 * only report (nothing in it is kept, aliases in it are never followed). */
static int skip(struct loader *l, unsigned depth)
{
	yaml_event_t e;

	while (depth > 0) {
		if (next(l, &e) < 0)
			return -1;
		if (e.type == YAML_SEQUENCE_START_EVENT || e.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (e.type == YAML_SEQUENCE_END_EVENT || e.type == YAML_MAPPING_END_EVENT)
			depth--;
		yaml_event_delete(&e);
	}
	return 0;
}

static bool has_control(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
	return false;
}

/* Copy a scalar event's text. Values are strings of at most
 * CONF_MAX_STRING bytes with no control characters (they end up in paths,
 * command lines and log lines) and no explicit tag (typing is by key).
 * Returns -1 only when memory ran out; a bad scalar gets ok = false. */
static int take_scalar(struct loader *l, const char *key, const yaml_event_t *e,
                       struct scalar *s)
{
	const char *text = (const char *)e->data.scalar.value;
	size_t len = e->data.scalar.length;

	*s = (struct scalar){ .plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE,
	                      .at = mark_pos(e->start_mark) };
	if (e->data.scalar.tag) {
		report(l, s->at, "%s: explicit tags (%s) are not supported", key,
		       show((const char *)e->data.scalar.tag, strlen((const char *)e->data.scalar.tag)).s);
		return 0;
	}
	if (len > CONF_MAX_STRING) {
		report(l, s->at, "%s: the value has %zu bytes, more than %d", key, len, CONF_MAX_STRING);
		return 0;
	}
	if (has_control(text, len)) {
		report(l, s->at, "%s: control characters are not allowed in %s", key,
		       show(text, len).s);
		return 0;
	}
	if (!(s->text = strndup(text, len)))
		return l->nomem = true, -1;
	s->len = len;
	s->ok = true;
	return 0;
}

static void val_free(struct val *v)
{
	free(v->s.text);
	for (size_t i = 0; i < v->n; i++)
		free(v->items[i].text);
	free(v->items);
	*v = (struct val){ 0 };
}

static int push_item(struct loader *l, struct val *v, const struct scalar *s)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		struct scalar *items = realloc(v->items, cap * sizeof *items);

		if (!items)
			return l->nomem = true, -1;
		v->items = items;
		v->cap = cap;
	}
	v->items[v->n++] = *s;
	return 0;
}

/* The items of a sequence, up to its end. Only scalars are kept; a
 * nested collection is skipped and left for the setter to report. More
 * than CONF_MAX_NODES + 1 items cannot be valid for any key (each names
 * at least one node), so the rest are dropped to bound memory; the
 * setter reports the excess. */
static int read_items(struct loader *l, const char *key, struct val *v)
{
	yaml_event_t e;
	struct scalar s;

	for (;;) {
		if (next(l, &e) < 0)
			return -1;
		s = (struct scalar){ .at = mark_pos(e.start_mark) };
		switch (e.type) {
		case YAML_SEQUENCE_END_EVENT:
			yaml_event_delete(&e);
			return 0;
		case YAML_SCALAR_EVENT:
			if (take_scalar(l, key, &e, &s) < 0)
				return yaml_event_delete(&e), -1;
			break;
		case YAML_ALIAS_EVENT:
			report(l, s.at, "%s: aliases are not supported", key);
			break;
		default:	/* a nested sequence or mapping */
			s.nested = true;
			if (skip(l, 1) < 0)
				return yaml_event_delete(&e), -1;
			break;
		}
		yaml_event_delete(&e);
		if (v->n > CONF_MAX_NODES) {
			free(s.text);
			continue;
		}
		if (push_item(l, v, &s) < 0)
			return free(s.text), -1;
	}
}

/* Read one value node whole. Returns -1 when reading must stop. */
static int read_value(struct loader *l, const char *key, struct val *v)
{
	yaml_event_t e;
	int rc = 0;

	*v = (struct val){ .kind = V_BAD };
	if (next(l, &e) < 0)
		return -1;
	v->at = mark_pos(e.start_mark);
	switch (e.type) {
	case YAML_SCALAR_EVENT:
		rc = take_scalar(l, key, &e, &v->s);
		if (v->s.ok)
			v->kind = V_SCALAR;
		break;
	case YAML_ALIAS_EVENT:
		report(l, v->at, "%s: aliases are not supported", key);
		break;
	case YAML_SEQUENCE_START_EVENT:
		if (e.data.sequence_start.tag)
			report(l, v->at, "%s: tags are not supported", key);
		else
			v->kind = V_SEQ;
		rc = read_items(l, key, v);
		break;
	case YAML_MAPPING_START_EVENT:
		if (e.data.mapping_start.tag)
			report(l, v->at, "%s: tags are not supported", key);
		else
			v->kind = V_MAP;
		rc = skip(l, 1);
		break;
	default:	/* the parser never gives anything else here */
		break;
	}
	yaml_event_delete(&e);
	return rc;
}

/* ---- value helpers ---- */

/* YAML's null: nothing, ~ or null, unquoted. */
static bool is_null(const struct scalar *s)
{
	return s->plain && (s->len == 0 || strcmp(s->text, "~") == 0 ||
	                    strcmp(s->text, "null") == 0 || strcmp(s->text, "Null") == 0 ||
	                    strcmp(s->text, "NULL") == 0);
}

static const char *kind_name(enum val_kind k)
{
	return k == V_SEQ ? "a list" : "a mapping";
}

/* The value's text if it is a non-null scalar; otherwise report that
 * `want` was expected and return NULL. A bad value (already reported)
 * gives NULL silently. */
static const char *want_scalar(struct loader *l, enum conf_key k, const struct val *v,
                               const char *want)
{
	if (v->kind == V_BAD)
		return NULL;
	if (v->kind != V_SCALAR) {
		report(l, v->at, "%s: expected %s, not %s", conf_key_name(k), want, kind_name(v->kind));
		return NULL;
	}
	if (is_null(&v->s)) {
		report(l, l->key_at[k], "%s: no value (expected %s)", conf_key_name(k), want);
		return NULL;
	}
	return v->s.text;
}

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

static int set_string(struct loader *l, char **field, const char *v)
{
	char *copy = strdup(v);

	if (!copy)
		return l->nomem = true, -1;
	free(*field);
	*field = copy;
	return 0;
}

static void mark_set(struct loader *l, enum conf_key k)
{
	l->c->set[k] = true;
	l->c->line[k] = l->val_at[k].line;
	l->c->column[k] = l->val_at[k].col;
}

/* ---- setters, one per key ---- */

/* A name that is safe in logs, paths and node lists: a letter, then
 * letters, digits, '.', '_' or '-'. */
static bool is_identifier(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n >= 1 && n <= max &&
	       ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static int set_partition(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "a name");

	if (!s)
		return 0;
	if (!is_identifier(s, PARTITION_MAX)) {
		report(l, v->at, "partition: %s is not a name: 1 to %d letters, digits, '.', '_' "
		       "or '-', starting with a letter", SHOW(&v->s), PARTITION_MAX);
		return 0;
	}
	if (set_string(l, &l->c->partition, s) < 0)
		return -1;
	mark_set(l, k);
	return 0;
}

static int set_policy(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "fcfs, easy, conservative or creasy");

	if (!s)
		return 0;
	if (sched_policy_parse(s, &l->c->policy) < 0) {
		report(l, v->at, "policy: unknown policy %s (fcfs, easy, conservative or creasy)",
		       SHOW(&v->s));
		return 0;
	}
	mark_set(l, k);
	return 0;
}

/* creasy's weight of criticality: a plain number, 0 to 1e9. */
static int set_alpha(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "a number from 0 to 1e9");
	double a;

	if (!s)
		return 0;
	if (!v->s.plain) {
		report(l, v->at, "alpha: expected a number, not the quoted string %s", SHOW(&v->s));
		return 0;
	}
	if (sched_alpha_parse(s, &a) < 0) {
		report(l, v->at, "alpha: %s is not a number from 0 to 1e9", SHOW(&v->s));
		return 0;
	}
	l->c->alpha = a;
	mark_set(l, k);
	return 0;
}

/* socket, database, spool: absolute, because a relative path would
 * depend on where the daemon happened to be started. */
static int set_path(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "an absolute path");
	char **field = k == CONF_K_SOCKET ? &l->c->socket
	             : k == CONF_K_DATABASE ? &l->c->database : &l->c->spool;

	if (!s)
		return 0;
	if (s[0] != '/') {
		report(l, v->at, "%s: %s is not an absolute path (it must start with /)",
		       conf_key_name(k), SHOW(&v->s));
		return 0;
	}
	if (k == CONF_K_SOCKET && v->s.len > CONF_SOCKET_MAX) {
		report(l, v->at, "socket: the path has %zu bytes; a Unix socket path has at most %d",
		       v->s.len, CONF_SOCKET_MAX);
		return 0;
	}
	if (set_string(l, field, s) < 0)
		return -1;
	mark_set(l, k);
	return 0;
}

/* Four octal digits with a leading 0, as chmod takes them ("0666", quoted
 * or not). A bare 666 is refused: it reads as decimal to anyone who does
 * not know YAML 1.1's octal rule. The owner (the daemon) must keep read
 * and write, so the range is 0600 to 0777. */
static int set_socket_mode(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "an octal mode such as \"0666\"");
	unsigned long mode;

	if (!s)
		return 0;
	if (v->s.len != 4 || s[0] != '0' || strspn(s, "01234567") != 4) {
		report(l, v->at, "socket_mode: expected four octal digits starting with 0, such as "
		       "\"0666\", not %s", SHOW(&v->s));
		return 0;
	}
	mode = strtoul(s, NULL, 8);
	if (mode < 0600) {
		report(l, v->at, "socket_mode: %s takes reading or writing from the daemon itself: "
		       "from 0600 to 0777", SHOW(&v->s));
		return 0;
	}
	l->c->socket_mode = (mode_t)mode;
	mark_set(l, k);
	return 0;
}

/* A time as bsub -t takes it; a leading '-' gets its own message, since
 * "not negative" is clearer than the grammar's complaint. Only the two
 * limits are time limits; any other key's error calls its value a
 * duration and shows what one looks like (an operator who wrote
 * "kill_grace: 30 seconds" was told of a "time limit" and no form). */
static int parse_time(struct loader *l, enum conf_key k, const struct val *v, bf_time *out)
{
	bool limit = k == CONF_K_DEFAULT_LIMIT || k == CONF_K_MAX_LIMIT;
	char why[200];

	if (v->s.text[0] == '-') {
		report(l, v->at, "%s: %s is negative", conf_key_name(k), SHOW(&v->s));
		return -1;
	}
	if (duration_parse_as(v->s.text, out, limit ? "time limit" : "duration", why,
	                      sizeof why) < 0) {
		report(l, v->at, "%s: %s: %s%s", conf_key_name(k), SHOW(&v->s), why,
		       limit ? "" : "; a duration looks like 30s, 5m, 1h30m, 1d or 0:30");
		return -1;
	}
	return 0;
}

/* A zero time, which the time-limit grammar refuses but a grace allows:
 * some digits, all 0, in a form that is valid once they are not zero
 * (0s, 0:00, 0m0s all qualify; "0x" or "" do not). */
static bool is_zero_time(const char *s)
{
	char buf[DURATION_MAX_LEN + 1];
	size_t n = strlen(s);
	bf_time t;

	if (n > DURATION_MAX_LEN || !strpbrk(s, "0123456789") || strpbrk(s, "123456789"))
		return false;
	memcpy(buf, s, n + 1);
	for (char *p = buf; *p; p++)
		if (*p == '0')
			*p = '1';
	return duration_parse(buf, &t, NULL, 0) == 0;
}

/* The grace: a time, 0 allowed, at most a week (as --kill-grace). A bare
 * number other than 0 is refused: --kill-grace reads it as seconds and
 * bsub -t as minutes, and guessing wrong would be silent. */
static int set_kill_grace(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "a time such as 30s");
	bf_time t = 0;

	if (!s)
		return 0;
	if (all_digits(s) && !is_zero_time(s)) {
		report(l, v->at, "kill_grace: a bare number %s is ambiguous: write a unit, as in "
		       "%ss (seconds) or %sm (minutes)", SHOW(&v->s), s, s);
		return 0;
	}
	if (!is_zero_time(s) && parse_time(l, k, v, &t) < 0)
		return 0;
	if (t > CONF_MAX_GRACE) {
		report(l, v->at, "kill_grace: %s is more than a week", SHOW(&v->s));
		return 0;
	}
	l->c->kill_grace = t;
	mark_set(l, k);
	return 0;
}

/* default_limit, max_limit: times as bsub -t takes them, more than 0. */
static int set_limit(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "a time such as 2:00");
	bf_time t;

	if (!s || parse_time(l, k, v, &t) < 0)
		return 0;
	*(k == CONF_K_DEFAULT_LIMIT ? &l->c->default_limit : &l->c->max_limit) = t;
	mark_set(l, k);
	return 0;
}

/* Numbers must be unquoted: "8" is a string in YAML, and a strict reader
 * says so rather than guess. */
static int want_number(struct loader *l, enum conf_key k, const struct val *v, uint32_t lo,
                       uint32_t hi, uint32_t *out)
{
	if (!v->s.plain) {
		report(l, v->at, "%s: expected a whole number, not the quoted string %s",
		       conf_key_name(k), SHOW(&v->s));
		return -1;
	}
	if (decimal_parse_u32(v->s.text, lo, hi, out) < 0) {
		report(l, v->at, "%s: expected a whole number from %u to %u, not %s",
		       conf_key_name(k), lo, hi, SHOW(&v->s));
		return -1;
	}
	return 0;
}

static int set_max_nodes(struct loader *l, enum conf_key k, const struct val *v)
{
	uint32_t n;

	if (!want_scalar(l, k, v, "a whole number") || want_number(l, k, v, 1, CONF_MAX_NODES, &n) < 0)
		return 0;
	l->c->max_nodes = n;
	mark_set(l, k);
	return 0;
}

/* A positive number or "unlimited". 0 is refused rather than taken as
 * "unlimited": read literally it would mean "no jobs at all". */
static int set_per_user(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "a whole number or unlimited");
	uint32_t n = 0;

	if (!s)
		return 0;
	if (strcmp(s, "0") == 0 && v->s.plain) {
		report(l, v->at, "%s: 0 would allow no jobs at all; write unlimited for no limit",
		       conf_key_name(k));
		return 0;
	}
	if (strcmp(s, "unlimited") != 0 && want_number(l, k, v, 1, CONF_MAX_PER_USER, &n) < 0)
		return 0;
	*(k == CONF_K_MAX_QUEUED_PER_USER ? &l->c->max_queued_per_user
	                                  : &l->c->max_running_per_user) = n;
	mark_set(l, k);
	return 0;
}

/* A user's budget (ratelimit.h): a positive number. Neither 0 nor
 * "unlimited": each change and each line costs the daemon disk. */
static int set_budget(struct loader *l, enum conf_key k, const struct val *v)
{
	uint32_t n;

	if (!want_scalar(l, k, v, "a whole number") ||
	    want_number(l, k, v, 1, CONF_MAX_PER_USER, &n) < 0)
		return 0;
	*(k == CONF_K_MAX_CHANGES_PER_USER ? &l->c->max_changes_per_user
	                                   : &l->c->max_log_lines_per_user) = n;
	mark_set(l, k);
	return 0;
}

static int set_change_interval(struct loader *l, enum conf_key k, const struct val *v)
{
	bf_time t;

	if (!want_scalar(l, k, v, "a time such as 1s or 0.5s") || parse_time(l, k, v, &t) < 0)
		return 0;
	if (t > CONF_MAX_CHANGE_INTERVAL) {
		report(l, v->at, "%s: %s is more than an hour", conf_key_name(k), SHOW(&v->s));
		return 0;
	}
	l->c->change_interval_per_user = t;
	mark_set(l, k);
	return 0;
}

/* A group name as useradd/groupadd accept it; whether it exists is for
 * the daemon to check when it starts (the file may be written on another
 * machine, or before the directory service is up). */
static int set_admin_group(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "a group name");
	size_t n;

	if (!s)
		return 0;
	n = strlen(s);
	if (n == 0 || n > GROUP_MAX || s[0] == '-' || (s[0] >= '0' && s[0] <= '9') ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
	    n - (s[n - 1] == '$')) {
		report(l, v->at, "admin_group: %s is not a group name: 1 to %d letters, digits, '.', "
		       "'_' or '-' (a final '$' allowed), not starting with a digit or '-'",
		       SHOW(&v->s), GROUP_MAX);
		return 0;
	}
	if (set_string(l, &l->c->admin_group, s) < 0)
		return -1;
	mark_set(l, k);
	return 0;
}

/* As --launch: a command prefix whose first word is an absolute path. */
static int set_launch(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "a command such as \"/usr/bin/ssh {node}\"");

	if (!s)
		return 0;
	if (s[0] != '/') {
		report(l, v->at, "launch: the command %s must start with an absolute path",
		       SHOW(&v->s));
		return 0;
	}
	if (set_string(l, &l->c->launch, s) < 0)
		return -1;
	mark_set(l, k);
	return 0;
}

/* ---- a cluster ---- */

static int set_execution(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "local or ssh");

	if (!s)
		return 0;
	if (strcmp(s, "local") != 0 && strcmp(s, "ssh") != 0) {
		report(l, v->at, "execution: %s is neither local (jobs run on this host) nor ssh "
		       "(on their nodes, over ssh)", SHOW(&v->s));
		return 0;
	}
	l->c->execution = strcmp(s, "ssh") == 0 ? CONF_EXEC_SSH : CONF_EXEC_LOCAL;
	mark_set(l, k);
	return 0;
}

/* ssh_key, ssh_known_hosts, ssh_control_dir, and ssh_config (which may be
 * "none"): absolute paths. */
static int set_ssh_path(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "an absolute path");
	char **field = k == CONF_K_SSH_KEY ? &l->c->ssh_key :
	               k == CONF_K_SSH_KNOWN_HOSTS ? &l->c->ssh_known_hosts :
	               k == CONF_K_SSH_CONFIG ? &l->c->ssh_config : &l->c->ssh_control_dir;

	if (!s)
		return 0;
	if (k == CONF_K_SSH_CONFIG && strcmp(s, "none") == 0) {
		mark_set(l, k);
		return 0;
	}
	if (s[0] != '/' || strpbrk(s, " \t")) {
		report(l, v->at, "%s: %s is not an absolute path without blanks", conf_key_name(k),
		       SHOW(&v->s));
		return 0;
	}
	/* ControlPath is DIR/ and 40 hex digits, within a socket path. */
	if (k == CONF_K_SSH_CONTROL_DIR && v->s.len > CONF_SOCKET_MAX - 41) {
		report(l, v->at, "ssh_control_dir: the path has %zu bytes; ssh's sockets there need "
		       "it under %d", v->s.len, CONF_SOCKET_MAX - 41);
		return 0;
	}
	if (set_string(l, field, s) < 0)
		return -1;
	mark_set(l, k);
	return 0;
}

/* ssh_destination (%n the node's name) and node_command (an absolute
 * path first): one line of text each, ssh's to interpret. */
static int set_ssh_word(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, k == CONF_K_SSH_DESTINATION ? "a destination such as "
	                            "\"root@%n.cluster\"" : "a command such as \"/usr/sbin/backfilld "
	                            "--node\"");

	if (!s)
		return 0;
	if (k == CONF_K_SSH_DESTINATION && (!*s || strpbrk(s, " \t") || s[0] == '-')) {
		report(l, v->at, "ssh_destination: %s must be one word, not starting with '-' (%%n "
		       "stands for the node's name)", SHOW(&v->s));
		return 0;
	}
	if (k == CONF_K_NODE_COMMAND && s[0] != '/') {
		report(l, v->at, "node_command: the command %s must start with an absolute path",
		       SHOW(&v->s));
		return 0;
	}
	if (set_string(l, k == CONF_K_SSH_DESTINATION ? &l->c->ssh_destination :
	               &l->c->node_command, s) < 0)
		return -1;
	mark_set(l, k);
	return 0;
}

static int set_node_timeout(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "a time such as 30s");
	bf_time t;

	if (!s)
		return 0;
	if (all_digits(s)) {
		report(l, v->at, "node_timeout: a bare number %s is ambiguous: write a unit, as in "
		       "%ss", SHOW(&v->s), s);
		return 0;
	}
	if (parse_time(l, k, v, &t) < 0)
		return 0;
	if (t < CONF_MIN_NODE_TIMEOUT || t > CONF_MAX_NODE_TIMEOUT) {
		report(l, v->at, "node_timeout: %s is not between 3 seconds and a day", SHOW(&v->s));
		return 0;
	}
	l->c->node_timeout = t;
	mark_set(l, k);
	return 0;
}

static const char *const level_names[] = { "error", "warning", "info", "debug" };

static int set_log_level(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "error, warning, info or debug");

	if (!s)
		return 0;
	for (size_t i = 0; i < sizeof level_names / sizeof *level_names; i++) {
		if (strcmp(s, level_names[i]) == 0) {
			l->c->log_level = (enum conf_log_level)i;
			mark_set(l, k);
			return 0;
		}
	}
	report(l, v->at, "log_level: unknown level %s (error, warning, info or debug)", SHOW(&v->s));
	return 0;
}

static int set_keep_ended(struct loader *l, enum conf_key k, const struct val *v)
{
	const char *s = want_scalar(l, k, v, "a time such as 30d, or forever");
	bf_time t = BF_NEVER;

	if (!s)
		return 0;
	if (strcmp(s, "forever") != 0 && parse_time(l, k, v, &t) < 0)
		return 0;
	l->c->keep_ended = t;
	mark_set(l, k);
	return 0;
}

/* A size in bytes: a whole number with an optional unit, K, M, G or T
 * (powers of 1024; KiB, MiB... too), more than 0, at most CONF_MAX_SIZE. */
static int set_size(struct loader *l, enum conf_key k, const struct val *v)
{
	static const char *const units[] = { "", "K", "M", "G", "T" };
	const char *s = want_scalar(l, k, v, "a size such as 64M");
	char digits[32];
	uint64_t n = 0;
	size_t nd;
	int shift = -1;

	if (!s)
		return 0;
	nd = strspn(s, "0123456789");
	for (int u = 0; u < 5 && nd > 0 && nd < sizeof digits; u++)
		if (strcmp(s + nd, units[u]) == 0 ||
		    (u > 0 && s[nd] == units[u][0] && strcmp(s + nd + 1, "iB") == 0))
			shift = 10 * u;
	if (shift >= 0) {
		memcpy(digits, s, nd);
		digits[nd] = 0;
	}
	if (shift < 0 || decimal_parse(digits, 1, CONF_MAX_SIZE >> shift, &n) < 0) {
		report(l, v->at, "%s: expected a size from 1 byte to 1T, such as 64M (a whole number "
		       "with K, M, G or T, powers of 1024), not %s", conf_key_name(k), SHOW(&v->s));
		return 0;
	}
	n <<= shift;
	*(k == CONF_K_MAX_STORED_PER_USER ? &l->c->max_stored_per_user :
	  k == CONF_K_KEEP_ENDED_PER_USER ? &l->c->keep_ended_per_user : &l->c->min_free_disk) = n;
	mark_set(l, k);
	return 0;
}

/* ---- nodes ---- */

/* A name and where it came from, for the check across list items. */
struct named {
	const char *name;
	uint32_t item, order;
};

static int by_name(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Each item whose names repeat an earlier item's is reported once, at
 * the item, naming its first repeated name and where that was first
 * listed. (nodelist_parse already refused repeats inside one item.)
 * Returns the number of items reported, or -1 on no memory. */
static int report_repeats(struct loader *l, const struct scalar *items, uint32_t nitems,
                          const char *const *all, const uint32_t *item_of, uint32_t total)
{
	struct named *v = malloc((size_t)total * sizeof *v);
	struct named *first = calloc(nitems, sizeof *first);	/* per item: earliest repeat */
	int reported = 0;

	if (!v || !first) {
		free(v);
		free(first);
		return l->nomem = true, -1;
	}
	for (uint32_t i = 0; i < total; i++)
		v[i] = (struct named){ all[i], item_of[i], i };
	qsort(v, total, sizeof *v, by_name);
	for (uint32_t i = 1; i < total; i++) {
		uint32_t g = i;

		while (g > 0 && strcmp(v[g - 1].name, v[i].name) == 0)
			g--;	/* v[g]: the first listing of this name */
		if (g == i)
			continue;
		if (!first[v[i].item].name || v[i].order < first[v[i].item].order)
			first[v[i].item] = (struct named){ v[i].name, v[g].item, v[i].order };
	}
	for (uint32_t it = 0; it < nitems; it++) {
		if (!first[it].name)
			continue;
		report(l, items[it].at, "nodes: node %s is listed twice (first at line %u, column %u)",
		       show(first[it].name, strlen(first[it].name)).s, items[first[it].item].at.line,
		       items[first[it].item].at.col);
		reported++;
	}
	free(v);
	free(first);
	return reported;
}

/* The partition from its expanded lists: checked for repeats, then kept
 * in the canonical compact form (what --nodes takes). */
static int keep_nodes(struct loader *l, const struct scalar *items, uint32_t nitems,
                      const struct nodelist *lists, uint32_t total)
{
	const char **all = malloc((size_t)total * sizeof *all);
	uint32_t *item_of = malloc((size_t)total * sizeof *item_of);
	char *spec = NULL;
	int len, bad = 0;

	if (!all || !item_of) {
		l->nomem = true;
		goto out;
	}
	for (uint32_t it = 0, k = 0; it < nitems; it++)
		for (uint32_t j = 0; j < lists[it].count; j++, k++) {
			all[k] = lists[it].names[j];
			item_of[k] = it;
		}
	if (nitems > 1 && (bad = report_repeats(l, items, nitems, all, item_of, total)) != 0)
		goto out;
	if (total == 1 && all_digits(all[0])) {
		/* The daemon reads an all-digit --nodes as a count. */
		report(l, items[0].at, "nodes: a single node named %s would read as a count of "
		       "nodes; write nodes: %s for node001.., or name the node otherwise",
		       show(all[0], strlen(all[0])).s, all[0]);
		goto out;
	}
	len = nodelist_format(all, total, NULL, 0);
	if (len < 0 || !(spec = malloc((size_t)len + 1))) {
		l->nomem = true;
		goto out;
	}
	nodelist_format(all, total, spec, (size_t)len + 1);
	free(l->c->nodes);
	l->c->nodes = spec;
	l->c->nnodes = total;
	mark_set(l, CONF_K_NODES);
out:
	free(all);
	free(item_of);
	return l->nomem ? -1 : 0;
}

/* One item of a list: a node list expression (node[001-016], a,b). */
static int expand_item(struct loader *l, const struct scalar *s, struct nodelist *out)
{
	char why[300];

	if (!s->ok) {
		if (s->nested)
			report(l, s->at, "nodes: an item must be a node name or range such as "
			       "node[001-016], not a nested list or mapping");
		return -1;
	}
	if (is_null(s) || s->len == 0) {
		report(l, s->at, "nodes: an empty item names no node");
		return -1;
	}
	if (nodelist_parse(s->text, out, why, sizeof why) < 0) {
		report(l, s->at, "nodes: %s: %s", SHOW(s), why);
		return -1;
	}
	return 0;
}

static int nodes_from_items(struct loader *l, const struct scalar *items, uint32_t nitems)
{
	struct nodelist *lists = calloc(nitems, sizeof *lists);
	uint64_t total = 0;
	bool bad = false;
	int rc = 0;

	if (!lists)
		return l->nomem = true, -1;
	for (uint32_t it = 0; it < nitems; it++) {
		if (expand_item(l, &items[it], &lists[it]) < 0) {
			bad = true;
			continue;
		}
		total += lists[it].count;
		if (total > CONF_MAX_NODES) {
			report(l, items[it].at, "nodes: more than %u nodes in the partition",
			       CONF_MAX_NODES);
			bad = true;
			break;
		}
	}
	if (!bad)
		rc = keep_nodes(l, items, nitems, lists, (uint32_t)total);
	for (uint32_t it = 0; it < nitems; it++)
		nodelist_free(&lists[it]);
	free(lists);
	return rc;
}

/* nodes: a count N (node001..nodeN, as --nodes N), one node list string,
 * or a YAML list of names and ranges. */
static int set_nodes(struct loader *l, enum conf_key k, const struct val *v)
{
	uint32_t n;
	char spec[16];

	if (v->kind == V_SEQ) {
		if (v->n == 0) {
			report(l, v->at, "nodes: the list is empty; the partition needs at least one node");
			return 0;
		}
		return nodes_from_items(l, v->items, (uint32_t)v->n);
	}
	if (!want_scalar(l, k, v, "a node count, a node list or a list of them"))
		return 0;
	if (!(v->s.plain && all_digits(v->s.text)))
		return nodes_from_items(l, &v->s, 1);
	if (decimal_parse_u32(v->s.text, 0, CONF_MAX_NODES, &n) < 0 || n == 0) {
		report(l, v->at, "nodes: %s: the partition needs from 1 to %u nodes", SHOW(&v->s),
		       CONF_MAX_NODES);
		return 0;
	}
	snprintf(spec, sizeof spec, "%u", n);
	if (set_string(l, &l->c->nodes, spec) < 0)
		return -1;
	l->c->nnodes = n;
	mark_set(l, k);
	return 0;
}

/* ---- the key table ---- */

static const struct {
	const char *name;
	setter set;
} keys[CONF_NKEYS] = {
	[CONF_K_PARTITION] = { "partition", set_partition },
	[CONF_K_NODES] = { "nodes", set_nodes },
	[CONF_K_POLICY] = { "policy", set_policy },
	[CONF_K_SOCKET] = { "socket", set_path },
	[CONF_K_SOCKET_MODE] = { "socket_mode", set_socket_mode },
	[CONF_K_DATABASE] = { "database", set_path },
	[CONF_K_SPOOL] = { "spool", set_path },
	[CONF_K_KILL_GRACE] = { "kill_grace", set_kill_grace },
	[CONF_K_DEFAULT_LIMIT] = { "default_limit", set_limit },
	[CONF_K_MAX_LIMIT] = { "max_limit", set_limit },
	[CONF_K_MAX_NODES] = { "max_nodes", set_max_nodes },
	[CONF_K_MAX_QUEUED_PER_USER] = { "max_queued_per_user", set_per_user },
	[CONF_K_MAX_RUNNING_PER_USER] = { "max_running_per_user", set_per_user },
	[CONF_K_ADMIN_GROUP] = { "admin_group", set_admin_group },
	[CONF_K_LAUNCH] = { "launch", set_launch },
	[CONF_K_LOG_LEVEL] = { "log_level", set_log_level },
	[CONF_K_KEEP_ENDED] = { "keep_ended", set_keep_ended },
	[CONF_K_ALPHA] = { "alpha", set_alpha },
	[CONF_K_MAX_STORED_PER_USER] = { "max_stored_per_user", set_size },
	[CONF_K_KEEP_ENDED_PER_USER] = { "keep_ended_per_user", set_size },
	[CONF_K_MIN_FREE_DISK] = { "min_free_disk", set_size },
	[CONF_K_MAX_CHANGES_PER_USER] = { "max_changes_per_user", set_budget },
	[CONF_K_CHANGE_INTERVAL_PER_USER] = { "change_interval_per_user", set_change_interval },
	[CONF_K_MAX_LOG_LINES_PER_USER] = { "max_log_lines_per_user", set_budget },
	[CONF_K_EXECUTION] = { "execution", set_execution },
	[CONF_K_SSH_DESTINATION] = { "ssh_destination", set_ssh_word },
	[CONF_K_SSH_KEY] = { "ssh_key", set_ssh_path },
	[CONF_K_SSH_CONFIG] = { "ssh_config", set_ssh_path },
	[CONF_K_SSH_KNOWN_HOSTS] = { "ssh_known_hosts", set_ssh_path },
	[CONF_K_SSH_CONTROL_DIR] = { "ssh_control_dir", set_ssh_path },
	[CONF_K_NODE_COMMAND] = { "node_command", set_ssh_word },
	[CONF_K_NODE_TIMEOUT] = { "node_timeout", set_node_timeout },
};

const char *conf_key_name(enum conf_key k)
{
	return (unsigned)k < CONF_NKEYS ? keys[k].name : "?";
}

const char *conf_log_level_name(enum conf_log_level lv)
{
	return (unsigned)lv < sizeof level_names / sizeof *level_names ? level_names[lv] : "?";
}

static int find_key(const char *name, size_t len)
{
	for (int k = 0; k < CONF_NKEYS; k++)
		if (strlen(keys[k].name) == len && memcmp(keys[k].name, name, len) == 0)
			return k;
	return -1;
}

/* The known key a misspelled one was most likely meant to be, or NULL. */
static const char *nearest_key(const char *name, size_t len)
{
	const char *names[CONF_NKEYS];

	for (int k = 0; k < CONF_NKEYS; k++)
		names[k] = keys[k].name;
	return nearest_name(name, len, names, CONF_NKEYS);
}

/* ---- the document ---- */

/* One key and its value. The value is read even when the key is unknown
 * or repeated, both to find the next key and to report its own errors;
 * the key's own error comes first, so a syntax error in the value cannot
 * hide it. */
static int read_pair(struct loader *l, const char *key, size_t keylen, struct pos at)
{
	int k = find_key(key, keylen);
	bool use = false;
	struct val v;
	int rc = 0;

	if (k < 0) {
		const char *near = nearest_key(key, keylen);

		if (near)
			report(l, at, "unknown key %s (did you mean %s?)", show(key, keylen).s, near);
		else
			report(l, at, "unknown key %s", show(key, keylen).s);
	} else if (l->seen[k]) {
		report(l, at, "%s is given twice (first at line %u, column %u)", keys[k].name,
		       l->key_at[k].line, l->key_at[k].col);
	} else {
		l->seen[k] = true;
		l->key_at[k] = at;
		use = true;
	}
	if (read_value(l, key, &v) < 0) {
		val_free(&v);
		return -1;
	}
	if (use) {
		l->val_at[k] = v.at;
		rc = keys[k].set(l, (enum conf_key)k, &v);
	}
	val_free(&v);
	return rc;
}

/* A key that is not a scalar: reported, then it and its value skipped. */
static int bad_key(struct loader *l, const yaml_event_t *e)
{
	struct val v;
	int rc;

	report(l, mark_pos(e->start_mark), "a key must be a name, not %s",
	       e->type == YAML_SEQUENCE_START_EVENT ? "a list"
	       : e->type == YAML_MAPPING_START_EVENT ? "a mapping" : "an alias");
	if (e->type != YAML_ALIAS_EVENT && skip(l, 1) < 0)
		return -1;
	rc = read_value(l, "value", &v);
	val_free(&v);
	return rc;
}

static int read_mapping(struct loader *l)
{
	yaml_event_t e;
	char key[KEY_SHOWN + 1];
	size_t keylen;
	struct pos at;
	int rc;

	for (;;) {
		if (next(l, &e) < 0)
			return -1;
		if (e.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&e);
			return 0;
		}
		if (e.type != YAML_SCALAR_EVENT) {
			rc = bad_key(l, &e);
			yaml_event_delete(&e);
			if (rc < 0)
				return -1;
			continue;
		}
		/* Only a prefix is kept: longer than any key, it is unknown anyway. */
		keylen = e.data.scalar.length < KEY_SHOWN ? e.data.scalar.length : KEY_SHOWN;
		memcpy(key, e.data.scalar.value, keylen);
		key[keylen] = 0;
		at = mark_pos(e.start_mark);
		yaml_event_delete(&e);
		if (read_pair(l, key, keylen, at) < 0)
			return -1;
	}
}

/* The document's top: a mapping, or nothing at all (null: all defaults). */
static int read_root(struct loader *l)
{
	yaml_event_t e;
	struct scalar s = { 0 };
	int rc = 0;

	if (next(l, &e) < 0)
		return -1;
	if (e.type == YAML_MAPPING_START_EVENT) {
		yaml_event_delete(&e);
		return read_mapping(l);
	}
	if (e.type == YAML_SCALAR_EVENT) {
		s.plain = e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		s.text = (char *)e.data.scalar.value;
		s.len = e.data.scalar.length;
		if (!e.data.scalar.tag && is_null(&s)) {
			yaml_event_delete(&e);
			return 0;
		}
	}
	report(l, mark_pos(e.start_mark), "the top level must be a mapping of keys to values "
	       "(key: value lines), not %s", e.type == YAML_SCALAR_EVENT ? "a single value"
	       : e.type == YAML_SEQUENCE_START_EVENT ? "a list" : "an alias");
	if (e.type == YAML_SEQUENCE_START_EVENT)
		rc = skip(l, 1);
	yaml_event_delete(&e);
	return rc;
}

/* Stream start, at most one document, stream end. */
static int read_stream(struct loader *l)
{
	yaml_event_t e;
	yaml_event_type_t t;

	if (next(l, &e) < 0)
		return -1;
	yaml_event_delete(&e);	/* STREAM-START */
	if (next(l, &e) < 0)
		return -1;
	t = e.type;
	yaml_event_delete(&e);
	if (t == YAML_STREAM_END_EVENT)
		return 0;	/* empty, or only comments: all defaults */
	if (read_root(l) < 0 || next(l, &e) < 0)
		return -1;
	yaml_event_delete(&e);	/* DOCUMENT-END */
	if (next(l, &e) < 0)
		return -1;
	if (e.type == YAML_DOCUMENT_START_EVENT)
		report(l, mark_pos(e.start_mark), "a second document: the file must hold one");
	yaml_event_delete(&e);
	return 0;
}

/* The rules between keys, once every key is known. Each is reported at
 * the key that breaks it, and only when both values were valid. */
static void cross_check(struct loader *l)
{
	const struct conf *c = l->c;
	char a[64], b[64];

	if (c->set[CONF_K_DEFAULT_LIMIT] && c->set[CONF_K_MAX_LIMIT] &&
	    c->max_limit < c->default_limit) {
		duration_format(c->max_limit, a, sizeof a);
		duration_format(c->default_limit, b, sizeof b);
		report(l, l->val_at[CONF_K_MAX_LIMIT], "max_limit %s is below default_limit %s "
		       "(line %u)", a, b, l->key_at[CONF_K_DEFAULT_LIMIT].line);
	}
	if (c->set[CONF_K_POLICY] && c->policy == SCHED_CREASY && !l->seen[CONF_K_ALPHA])
		report(l, l->val_at[CONF_K_POLICY], "policy creasy needs alpha, its weight of "
		       "criticality (alpha: 0 gives easy's order)");
	if (c->set[CONF_K_MAX_NODES] && (c->set[CONF_K_NODES] || !l->seen[CONF_K_NODES]) &&
	    c->max_nodes > c->nnodes)
		report(l, l->val_at[CONF_K_MAX_NODES], "max_nodes %u is more than the partition's "
		       "%u nodes", c->max_nodes, c->nnodes);
	if (c->execution == CONF_EXEC_SSH && c->launch)
		report(l, l->val_at[CONF_K_LAUNCH], "launch: not with execution: ssh (line %u), "
		       "which runs each job on its nodes itself", l->key_at[CONF_K_EXECUTION].line);
}

/* ---- entry points ---- */

int conf_init(struct conf *c)
{
	*c = (struct conf){
		.policy = SCHED_EASY,
		.socket_mode = 0666,
		.kill_grace = 30 * BF_SEC,
		.log_level = CONF_LOG_INFO,
		.keep_ended = BF_NEVER,
		.nnodes = DEFAULT_NODES,
		.max_queued_per_user = CONF_DEFAULT_QUEUED_PER_USER,
		.max_stored_per_user = CONF_DEFAULT_STORED_PER_USER,
		.keep_ended_per_user = CONF_DEFAULT_ENDED_PER_USER,
		.min_free_disk = CONF_DEFAULT_MIN_FREE_DISK,
		.max_changes_per_user = CONF_DEFAULT_CHANGES,
		.change_interval_per_user = CONF_DEFAULT_CHANGE_INTERVAL,
		.max_log_lines_per_user = CONF_DEFAULT_LOG_LINES,
		.node_timeout = CONF_DEFAULT_NODE_TIMEOUT,
	};
	c->partition = strdup("batch");
	c->nodes = strdup("16");
	return c->partition && c->nodes ? 0 : -1;
}

void conf_free(struct conf *c)
{
	free(c->partition);
	free(c->nodes);
	free(c->socket);
	free(c->database);
	free(c->spool);
	free(c->admin_group);
	free(c->launch);
	free(c->ssh_destination);
	free(c->ssh_key);
	free(c->ssh_known_hosts);
	free(c->ssh_control_dir);
	free(c->ssh_config);
	free(c->node_command);
	*c = (struct conf){ 0 };
}

static int finish(struct loader *l)
{
	if (l->nomem || l->errs->nomem)
		return -1;
	return (int)(l->errs->n + l->errs->dropped);
}

int conf_load_buffer(struct conf *c, const char *name, const char *data, size_t len,
                     struct conf_errors *errs)
{
	struct loader l = { .c = c, .errs = errs, .name = name, .data = data, .len = len };

	if (len > CONF_MAX_FILE) {
		report(&l, (struct pos){ 1, 1 }, "the file is larger than 1 MiB (%d bytes)",
		       CONF_MAX_FILE);
		return finish(&l);
	}
	if (!yaml_parser_initialize(&l.parser))
		return -1;
	yaml_parser_set_input_string(&l.parser, (const unsigned char *)data, len);
	if (read_stream(&l) == 0 && !l.syntax)
		cross_check(&l);
	yaml_parser_delete(&l.parser);
	return finish(&l);
}

/* Read at most CONF_MAX_FILE + 1 bytes: one more than allowed is enough
 * to know the file is too large, and memory stays bounded. */
static ssize_t read_all(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	return (ssize_t)n;
}

int conf_load(struct conf *c, const char *path, struct conf_errors *errs)
{
	struct loader l = { .c = c, .errs = errs, .name = path };
	struct stat st;
	char *buf;
	ssize_t n;
	int fd, rc;

	/* O_NONBLOCK: a FIFO must not hang the start; it is refused below. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		report(&l, (struct pos){ 0, 0 }, "cannot open: %s", strerror(errno));
		return finish(&l);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		report(&l, (struct pos){ 0, 0 }, "cannot read: %s",
		       fstat(fd, &st) < 0 ? strerror(errno) : "not a regular file");
		close(fd);
		return finish(&l);
	}
	if (!(buf = malloc(CONF_MAX_FILE + 1))) {
		close(fd);
		return -1;
	}
	n = read_all(fd, buf, CONF_MAX_FILE + 1);
	if (n < 0)
		report(&l, (struct pos){ 0, 0 }, "cannot read: %s", strerror(errno));
	close(fd);
	rc = n < 0 ? finish(&l) : conf_load_buffer(c, path, buf, (size_t)n, errs);
	free(buf);
	return rc;
}

void conf_errors_free(struct conf_errors *errs)
{
	for (size_t i = 0; i < errs->n; i++)
		free(errs->v[i].text);
	free(errs->v);
	*errs = (struct conf_errors){ 0 };
}

void conf_errors_print(const struct conf_errors *errs, FILE *f)
{
	for (size_t i = 0; i < errs->n; i++)
		fprintf(f, "%s\n", errs->v[i].text);
	if (errs->dropped)
		fprintf(f, "... and %zu more errors\n", errs->dropped);
	if (errs->nomem)
		fprintf(f, "... and more errors (out of memory keeping them)\n");
}
