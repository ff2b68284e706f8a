/* bstop: hold your queued jobs. See bstop(1). */
#include "jobctl.h"

int main(int argc, char **argv)
{
	return jobctl_main("bstop", PJ_HOLD, argc, argv);
}
