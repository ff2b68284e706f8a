/* bq --ended N; see bq_ended.h. */
#include "bq_ended.h"
#include "proto.h"

int bq_parse_ended(const char *s, uint32_t *out)
{
	uint32_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		/* Digit by digit, stopping past the bound: no overflow. */
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint32_t)(*s - '0');
		if (v > PROTO_MAX_ENDED)
			return -1;
	}
	*out = v;
	return 0;
}
