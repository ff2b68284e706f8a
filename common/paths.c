/* Default paths; see paths.h. Reads the environment, nothing else. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/un.h>
#include "paths.h"

static int put(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s%s", a, b);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int paths_default_socket(bool root, char *buf, size_t len)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	struct sockaddr_un sun;
	int rc;

	if (root)
		rc = put(buf, len, "/run/backfilld/backfilld.sock", "");
	else if (rt && rt[0] == '/')
		rc = put(buf, len, rt, "/backfilld/backfilld.sock");
	else
		rc = put(buf, len, "var/backfilld.sock", "");
	return rc < 0 || sizeof sun.sun_path <= (size_t)snprintf(NULL, 0, "%s", buf) ? -1 : 0;
}

int paths_default_db(bool root, char *buf, size_t len)
{
	return put(buf, len, root ? "/var/lib/backfilld/state.db" : "var/state.db", "");
}

int paths_default_spool(bool root, char *buf, size_t len)
{
	return put(buf, len, root ? "/var/spool/backfilld" : "var/spool", "");
}

int paths_client_socket(const char *explicit_path, bool root, char *buf, size_t len)
{
	const char *env = getenv(PATHS_ENV_SOCKET);

	if (explicit_path && *explicit_path)
		return put(buf, len, explicit_path, "");
	if (env && *env)
		return put(buf, len, env, "");
	return paths_default_socket(root, buf, len);
}
