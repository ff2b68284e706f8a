/* bstop: hold your queued jobs. See bstop(1). */
#include "jobop.h"

int main(int argc, char **argv)
{
	return jobop_main("bstop", PJ_HOLD, argc, argv);
}
