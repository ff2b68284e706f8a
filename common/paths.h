/* Where things are by default, so the daemon and the clients agree. Every
 * default is an absolute path: a client run from any directory finds the
 * daemon that `make run` started elsewhere.
 *
 *   socket  root: /run/backfilld/backfilld.sock (PATHS_SYSTEM_SOCKET)
 *           others: $XDG_RUNTIME_DIR/backfilld/backfilld.sock when that
 *           variable is an absolute path, else /tmp/backfilld-UID/backfilld.sock
 *   db      root: /var/lib/backfilld/state.db
 *           others: STATE/backfilld/state.db
 *   spool   root: /var/spool/backfilld
 *           others: STATE/backfilld/spool
 * where STATE is $XDG_STATE_HOME if absolute, else $HOME/.local/state
 * ($HOME if absolute, else the home directory in the password database).
 *
 * The directory of a non-root user's default socket may sit in a place
 * anyone can write (/tmp): before the daemon listens there or a client
 * sends a job to it, paths_private_dir() checks that it is the user's own.
 *
 * How the clients choose among the candidates (--socket, BACKFILLD_SOCKET,
 * the configuration file, these defaults) is client/where.h. */
#ifndef BF_PATHS_H
#define BF_PATHS_H
#include <stdbool.h>
#include <stddef.h>

#define PATHS_ENV_SOCKET    "BACKFILLD_SOCKET"
#define PATHS_ENV_CONFIG    "BACKFILLD_CONFIG"
#define PATHS_SYSTEM_SOCKET "/run/backfilld/backfilld.sock"
#define PATHS_CONFIG        "/etc/backfilld/backfilld.yaml"
#define PATHS_MAX           4096	/* bytes in any path handled here, NUL included */

/* The default socket for root or another user (the effective uid): 0, or
 * -1 if no absolute default fits in len bytes and in a Unix socket
 * address. */
int paths_default_socket(bool root, char *buf, size_t len);
/* The default database and spool: 0, or -1 if no absolute default can be
 * formed (no usable $XDG_STATE_HOME, $HOME or home directory) or it does
 * not fit in len bytes. */
int paths_default_db(bool root, char *buf, size_t len);
int paths_default_spool(bool root, char *buf, size_t len);

/* The directory that holds path (its last '/' and what follows cut off)
 * must be a real directory (not a symbolic link) owned by the effective
 * uid and writable by nobody else; with create, it is made with mode 0700
 * first if missing (its parent must exist). 0, or -1 with the reason in
 * err ("/tmp/backfilld-1000 belongs to uid 0, not to you"); errno is
 * ENOENT only when the directory does not exist. */
int paths_private_dir(const char *path, bool create, char *err, size_t errlen);
/* Whether a daemon answers on the Unix socket at path: a connection taken
 * at once, or a backlog full (EAGAIN). Never waits. */
bool paths_answers(const char *path);

#endif
