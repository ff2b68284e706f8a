/* bq --ended N: how many recently ended jobs a listing shows. */
#ifndef BQ_ENDED_H
#define BQ_ENDED_H

#include <stdint.h>

/* Parse N: decimal digits only, 0 to PROTO_MAX_ENDED. 0, or -1 (an
 * empty value, a sign, a blank, anything else, or too many). */
int bq_parse_ended(const char *s, uint32_t *out);

#endif
