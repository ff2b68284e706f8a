/* bresume: release your held jobs. See bstop(1). */
#include "jobop.h"

int main(int argc, char **argv)
{
	return jobop_main("bresume", PJ_RELEASE, argc, argv);
}
