/* Failing with a reason (see errf.h): a message into the caller's buffer
 * and -1, so that a refusal says why in one line. */
#include <stdarg.h>
#include <stdio.h>
#include "errf.h"

int errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -1;
}
