/* A small pretty-printing JSON writer for the replay's reports: two spaces
 * per level, one member per line. Keys are fixed identifiers (no escaping);
 * strings are escaped; numbers that are not finite are written as null. */
#ifndef BF_JSONW_H
#define BF_JSONW_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct jw {
	FILE *out;
	int depth;
	bool first;	/* no member written yet at this level */
};

/* A JSON string: quote and backslash escaped, control characters (< 0x20)
 * as \u00XX, everything else passed through byte for byte; NULL is null. */
void json_string(FILE *out, const char *s);
void jw_indent(struct jw *w);
/* Starts a member (the comma after the previous one, a new line, the key);
 * NULL for an element of an array. */
void jw_key(struct jw *w, const char *key);
void jw_open(struct jw *w);	/* { */
void jw_close(struct jw *w);	/* } */
void jw_open_array(struct jw *w);
void jw_close_array(struct jw *w);
void jw_str(struct jw *w, const char *key, const char *val);
void jw_u64(struct jw *w, const char *key, uint64_t val);
void jw_f64(struct jw *w, const char *key, double val);
void jw_bool(struct jw *w, const char *key, bool val);

#endif
