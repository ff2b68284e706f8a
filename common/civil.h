/* Civil dates (proleptic Gregorian, UTC) as day counts since 1970-01-01
 * and back, without a library call that reads TZ. One copy for the
 * shaping's dates (--from, --to) and the breakdown's calendar months. */
#ifndef BF_CIVIL_H
#define BF_CIVIL_H
#include <stdint.h>

/* Days since 1970-01-01 of year y, month m (1..12), day d (1..31). */
int64_t civil_days(int64_t y, unsigned m, unsigned d);
/* The year and month (1..12) of day z since 1970-01-01. */
void civil_month(int64_t z, int64_t *y, unsigned *m);

#endif
