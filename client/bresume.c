/* bresume: release your held jobs. See bstop(1). */
#include "jobctl.h"

int main(int argc, char **argv)
{
	return jobctl_main("bresume", PJ_RELEASE, argc, argv);
}
