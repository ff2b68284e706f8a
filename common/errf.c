/* Failing with a reason (see errf.h): a message into the caller's buffer
 * and -1, so that a refusal says why in one line. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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

const char *errf_quote(char *out, const char *s, size_t n, size_t max, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	for (i = 0; i < n && i < max; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c > 0x20 || (c == 0x20 && (flags & ERRF_KEEP_BLANK))) && c < 0x7f && c != '\\' &&
		    (c != '\'' || (flags & ERRF_KEEP_QUOTE))) {
			out[o++] = (char)c;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	if (i < n) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}
