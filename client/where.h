/* Which socket a client tries, in order (the rule is in bq(1), ENVIRONMENT):
 *
 *   1. --socket PATH                                  only this one
 *   2. $BACKFILLD_SOCKET                              only this one
 *   3. the socket key of the configuration file       ($BACKFILLD_CONFIG,
 *      else /etc/backfilld/backfilld.yaml)
 *   4. the system path, /run/backfilld/backfilld.sock
 *   5. the per-user default (paths_default_socket)    not for root (= 4)
 *
 * A path the user gave (1, 2) is final: a bsub meant for a test daemon must
 * never land in the production queue because the test socket was gone.
 * Among the implicit ones (3-5), a candidate with no socket file at all is
 * passed over for the next; one that exists but does not answer ends the
 * search (the daemon that should be there is down: say so, do not guess).
 *
 * The configuration file is read with the daemon's own reader (conf_load),
 * so a client and the daemon never disagree on what the file says. A file
 * with errors does not make the clients unusable: its socket key is used
 * if that key itself was valid (the reader keeps every valid key, and the
 * daemon is most likely still running with it), otherwise the search goes
 * on to 4 and 5; either way a warning names the file and its first error.
 * A missing /etc/backfilld/backfilld.yaml is normal (a development
 * machine) and is not warned about; a missing $BACKFILLD_CONFIG is. */
#ifndef BF_WHERE_H
#define BF_WHERE_H
#include <stdbool.h>
#include <stddef.h>
#include "paths.h"

enum where_src { WHERE_FLAG, WHERE_ENV, WHERE_CONFIG, WHERE_SYSTEM, WHERE_USER };

struct where_cand {
	char path[PATHS_MAX];
	enum where_src src;
	bool may_skip;		/* no socket file there: go on to the next */
	bool private_dir;	/* its directory must be the user's own (paths_private_dir) */
};

struct where {
	struct where_cand c[3];
	size_t n;
	/* The configuration file consulted ("" when 1 or 2 decided), and why
	 * it gave no socket ("" when it gave one): the first entry of the
	 * list of what was tried. */
	char config[PATHS_MAX];
	char config_note[256];
	/* A broken or unreadable configuration file, for the caller to show
	 * ("" if none): one line, the file's first error included. */
	char warning[1024];
};

/* The candidates for this user (root: the effective uid is 0). Returns 0,
 * or -1 with err if memory ran out or no candidate could be formed. */
int where_resolve(const char *socket_opt, bool root, struct where *w, char *err, size_t errlen);

/* Where a candidate came from, for messages: "--socket",
 * "BACKFILLD_SOCKET", "socket key", "system path", "per-user default". */
const char *where_src_name(enum where_src s);

#endif
