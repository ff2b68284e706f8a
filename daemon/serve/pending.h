/* Why a queued job does not run yet, in words. */
#ifndef BF_SERVE_PENDING_H
#define BF_SERVE_PENDING_H
#include <stddef.h>
#include "bf_time.h"

struct daemon;
struct djob;

/* Why a queued (or held) job does not run yet, in words, into buf; NULL
 * for a job that is not queued. guarantee: the core's. */
const char *pending_reason(struct daemon *d, const struct djob *j, bf_time guarantee, char *buf,
                           size_t len);

#endif
