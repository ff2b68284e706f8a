/* The daemon's clocks (see clock.h): the wall clock for the core and the
 * monotonic one for timers and durations, read here and nowhere else. */
#include <time.h>
#include "clock.h"

bf_time clock_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (bf_time)ts.tv_sec * BF_SEC + ts.tv_nsec / 1000;
}

bf_time clock_realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (bf_time)ts.tv_sec * BF_SEC + ts.tv_nsec / 1000;
}
