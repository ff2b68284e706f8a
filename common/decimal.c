/* Whole numbers in decimal (see decimal.h): written digit by digit into the
 * caller's buffer, and read strictly (digits only, no sign or blank, no
 * overflow, within the caller's bounds). */
#include <errno.h>
#include <stdlib.h>
#include "decimal.h"

int decimal_parse(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int decimal_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t v;

	if (decimal_parse(s, lo, hi, &v) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}
