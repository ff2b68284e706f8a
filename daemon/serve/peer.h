/* Who is asking: the client at the other end of a connection, as the
 * socket reports it (SO_PEERCRED), and whether it is an admin. */
#ifndef BF_SERVE_PEER_H
#define BF_SERVE_PEER_H
#include <stdbool.h>
#include <stddef.h>

struct conn;

/* Root, or a member of the configured admin_group. */
bool peer_is_admin(const struct conn *c);
/* "alice (uid 1000)", for the log. */
void peer_who(const struct conn *c, char *buf, size_t len);

#endif
