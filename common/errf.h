/* Failing with a reason: format a message into the caller's buffer (none
 * when it is NULL or empty) and return -1. One helper for every module
 * that reports why it refused something. */
#ifndef BF_ERRF_H
#define BF_ERRF_H
#include <stddef.h>

int errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
