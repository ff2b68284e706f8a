/* A restart: the plan, the jobs and the nodes as the store has them. */
#ifndef BF_SERVE_RESTORE_H
#define BF_SERVE_RESTORE_H
#include <stddef.h>

struct daemon;

int  restore_state(struct daemon *d, char *err, size_t errlen);

#endif
