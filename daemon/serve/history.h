/* Ended jobs from the store (PT_HISTORY). */
#ifndef BF_SERVE_HISTORY_H
#define BF_SERVE_HISTORY_H
#include <stddef.h>
#include <stdint.h>

struct conn;

void history_request(struct conn *c, const uint8_t *frame, size_t len);

#endif
