/* Time in backfilld: a signed 64-bit count of microseconds.
 *
 * One fine unit everywhere in the core so the live daemon can run sub-second
 * jobs exactly and the replay (whole seconds) loses nothing. 2^63 us is about
 * 292,000 years, so sums of times and durations we accept never overflow. */
#ifndef BF_TIME_H
#define BF_TIME_H
#include <stdint.h>

typedef int64_t bf_time;

#define BF_USEC         ((bf_time)1)
#define BF_SEC          ((bf_time)1000000)
/* "Never": larger than any real time, yet BF_NEVER + a duration cannot overflow. */
#define BF_NEVER        ((bf_time)INT64_MAX / 4)
/* The longest estimate (and grace) the core accepts: 100 years. */
#define BF_MAX_DURATION ((bf_time)100 * 366 * 86400 * BF_SEC)

#endif
