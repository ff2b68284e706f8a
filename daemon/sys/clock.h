/* The only place the daemon reads a clock. The scheduler core never does:
 * it is handed the time. */
#ifndef BF_CLOCK_H
#define BF_CLOCK_H
#include "bf_time.h"

/* Monotonic time in microseconds, for measuring how long something took. */
bf_time clock_monotonic(void);
/* Wall-clock time in microseconds since the epoch: the scheduler's "now"
 * in the live daemon, and what the job records keep. */
bf_time clock_realtime(void);

#endif
