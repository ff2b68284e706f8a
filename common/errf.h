/* Failing with a reason: format a message into the caller's buffer (none
 * when it is NULL or empty) and return -1. One helper for every module
 * that reports why it refused something. */
#ifndef BF_ERRF_H
#define BF_ERRF_H
#include <stddef.h>

int errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Input bytes for a message (what a parser refused): at most max of them,
 * a byte that does not print as \xNN (a backslash too, and a blank and a
 * single quote unless flags keep them), "..." when cut. out needs
 * 4 * max + 4 bytes. Returns out. */
enum { ERRF_KEEP_BLANK = 1, ERRF_KEEP_QUOTE = 2 };
const char *errf_quote(char *out, const char *s, size_t n, size_t max, unsigned flags);

#endif
