/* Hold, release, limit, top and requeue (PT_JOBCTL). */
#ifndef BF_SERVE_JOBCTL_H
#define BF_SERVE_JOBCTL_H
#include <stddef.h>
#include <stdint.h>

struct conn;
struct daemon;

void jobctl_request(struct conn *c, const uint8_t *frame, size_t len);
/* Space is free again: release the jobs held for want of it. */
void jobctl_release_disk_held(struct daemon *d);

#endif
