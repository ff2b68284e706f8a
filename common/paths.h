/* Where the daemon listens by default, so the daemon and the clients agree.
 * Root: /run/backfilld/backfilld.sock. Anyone else: the per-user runtime
 * directory ($XDG_RUNTIME_DIR/backfilld/backfilld.sock), or without one
 * var/backfilld.sock under the current directory. The clients look at
 * --socket, then $BACKFILLD_SOCKET, then this. */
#ifndef BF_PATHS_H
#define BF_PATHS_H
#include <stdbool.h>
#include <stddef.h>

#define PATHS_ENV_SOCKET "BACKFILLD_SOCKET"

/* The default socket path for a user (root or not); 0, or -1 if it does
 * not fit in len bytes or in a Unix socket address. */
int paths_default_socket(bool root, char *buf, size_t len);
/* The directory that holds the default state (database, spool) and the
 * socket when not root: the runtime dir for the socket, and for data
 * var/ under the current directory (root: /var/lib/backfilld and
 * /var/spool/backfilld). */
int paths_default_db(bool root, char *buf, size_t len);
int paths_default_spool(bool root, char *buf, size_t len);
/* The socket path a client should use: explicit (may be NULL), else
 * $BACKFILLD_SOCKET, else the default. */
int paths_client_socket(const char *explicit_path, bool root, char *buf, size_t len);

#endif
