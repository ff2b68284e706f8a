/* A small pretty-printing JSON writer for reports (see jsonw.h).
 * Every format string is a literal (-Wformat=2). */
#include <inttypes.h>
#include <math.h>
#include "jsonw.h"

/* A JSON string: quote and backslash escaped, control characters (< 0x20)
 * as \u00XX, everything else (UTF-8 or not) passed through byte for byte.
 * NULL becomes null. */
void json_string(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	putc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			putc('\\', out);
			putc(*p, out);
		} else if (*p < 0x20) {
			fprintf(out, "\\u%04x", (unsigned)*p);
		} else {
			putc(*p, out);
		}
	}
	putc('"', out);
}

void jw_indent(struct jw *w)
{
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* Starts a member: the comma after the previous one, a new line, the key.
 * Keys are fixed identifiers, so they need no escaping. */
void jw_key(struct jw *w, const char *key)
{
	fputs(w->first ? "\n" : ",\n", w->out);
	w->first = false;
	jw_indent(w);
	if (!key)
		return;
	putc('"', w->out);
	fputs(key, w->out);
	fputs("\": ", w->out);
}

void jw_open(struct jw *w)
{
	putc('{', w->out);
	w->depth++;
	w->first = true;
}

void jw_close(struct jw *w)
{
	w->depth--;
	putc('\n', w->out);
	jw_indent(w);
	putc('}', w->out);
	w->first = false;
}

void jw_open_array(struct jw *w)
{
	putc('[', w->out);
	w->depth++;
	w->first = true;
}

void jw_close_array(struct jw *w)
{
	w->depth--;
	putc('\n', w->out);
	jw_indent(w);
	putc(']', w->out);
	w->first = false;
}

void jw_bool(struct jw *w, const char *key, bool val)
{
	jw_key(w, key);
	fputs(val ? "true" : "false", w->out);
}

void jw_str(struct jw *w, const char *key, const char *val)
{
	jw_key(w, key);
	json_string(w->out, val);
}

void jw_u64(struct jw *w, const char *key, uint64_t val)
{
	jw_key(w, key);
	fprintf(w->out, "%" PRIu64, val);
}

/* Seconds and ratios, to the microsecond. JSON has no NaN or infinity
 * (say, events per second of a replay too fast to time): null instead. */
void jw_f64(struct jw *w, const char *key, double val)
{
	jw_key(w, key);
	if (isfinite(val))
		fprintf(w->out, "%.6f", val);
	else
		fputs("null", w->out);
}

