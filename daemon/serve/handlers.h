/* The command table: one request to its handler. conn.c calls it through
 * d->hooks.dispatch, which server_init sets (daemon.h), and knows no
 * command. */
#ifndef BF_SERVE_HANDLERS_H
#define BF_SERVE_HANDLERS_H
#include <stddef.h>
#include <stdint.h>
#include "proto.h"

struct conn;

void handle_request(struct conn *c, enum proto_type type, const uint8_t *frame, size_t len);

#endif
