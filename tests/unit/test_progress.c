/* The progress line's time left (daemon/whatif/progress.c): said only
 * when it can be told, rounded up, in seconds, minutes or hours. */
#include <string.h>
#include "../tap.h"
#include "../../daemon/whatif/progress.h"

static const char *left(int64_t ms, uint64_t done, uint64_t total)
{
	static char buf[64];

	progress_left(buf, sizeof buf, ms, done, total);
	return buf;
}

int main(void)
{
	ok(strcmp(left(10000, 0, 100), "") == 0, "nothing done: no time left said");
	ok(strcmp(left(10000, 100, 100), "") == 0, "all done: none");
	ok(strcmp(left(400, 10, 100), "") == 0, "under half a second gone: none yet");
	ok(strcmp(left(2000, 50, 100), ", 2 s left") == 0 && strcmp(left(2100, 50, 100), ", 3 s left") == 0,
	   "half done in 2 s: 2 s more; in 2.1 s, 2.1 rounded up to 3 (%s)",
	   left(2000, 50, 100));
	ok(strcmp(left(10000, 10, 100), ", 1:30 left") == 0, "a tenth in 10 s: 1:30 (%s)",
	   left(10000, 10, 100));
	ok(strcmp(left(3600000, 1, 3), ", 2:00:00 left") == 0, "a third in an hour: 2:00:00 (%s)",
	   left(3600000, 1, 3));
	return tap_done();
}
