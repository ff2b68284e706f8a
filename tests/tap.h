/* Minimal TAP producer for unit tests: ok() lines counted by tests/run.sh. */
#ifndef BF_TAP_H
#define BF_TAP_H
#include <stdio.h>
#include <stdarg.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3), unused))
static int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

/* Compare two integers and show both on failure. */
#define ok_eq(got, want, ...) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (!ok(g_ == w_, __VA_ARGS__)) \
		printf("#   got %lld, want %lld  (%s:%d)\n", g_, w_, __FILE__, __LINE__); \
} while (0)

/* A check that cannot run here: counted as skipped, with the reason. */
__attribute__((unused))
static void tap_skip(const char *what, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_n, what, why);
	fflush(stdout);
}

__attribute__((unused))
static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
#endif
