/* Default paths; see paths.h. Reads the environment and the password
 * database; paths_private_dir() alone touches the file system. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "errf.h"
#include "paths.h"

static int put(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s%s", a, b);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* An environment variable only if it holds an absolute path: a relative
 * one would make the default depend on the current directory. */
static const char *abs_env(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] == '/' ? v : NULL;
}

static bool fits_socket(const char *path)
{
	struct sockaddr_un sun;

	return strlen(path) < sizeof sun.sun_path;
}

int paths_default_socket(bool root, char *buf, size_t len)
{
	const char *rt = abs_env("XDG_RUNTIME_DIR");
	char tmp[64];

	if (root)
		return put(buf, len, PATHS_SYSTEM_SOCKET, "");
	if (rt && put(buf, len, rt, "/backfilld/backfilld.sock") == 0 && fits_socket(buf))
		return 0;
	/* No per-user runtime directory (a cron job, su, a container): a
	 * directory of our own in /tmp, checked by paths_private_dir() before
	 * anyone trusts it, as tmux does with /tmp/tmux-UID. */
	snprintf(tmp, sizeof tmp, "/tmp/backfilld-%lu", (unsigned long)geteuid());
	return put(buf, len, tmp, "/backfilld.sock");
}

/* The directory that holds a non-root user's state: STATE/backfilld. */
static int state_dir(char *buf, size_t len)
{
	const char *xdg = abs_env("XDG_STATE_HOME"), *home = abs_env("HOME");
	const struct passwd *pw;

	if (xdg)
		return put(buf, len, xdg, "/backfilld");
	if (!home && (pw = getpwuid(geteuid())) && pw->pw_dir && pw->pw_dir[0] == '/')
		home = pw->pw_dir;
	if (!home)
		return -1;
	return put(buf, len, home, "/.local/state/backfilld");
}

static int default_state(bool root, const char *root_path, const char *leaf, char *buf,
                         size_t len)
{
	char dir[PATHS_MAX];

	if (root)
		return put(buf, len, root_path, "");
	if (state_dir(dir, sizeof dir) < 0)
		return -1;
	return put(buf, len, dir, leaf);
}

int paths_default_db(bool root, char *buf, size_t len)
{
	return default_state(root, "/var/lib/backfilld/state.db", "/state.db", buf, len);
}

int paths_default_spool(bool root, char *buf, size_t len)
{
	return default_state(root, "/var/spool/backfilld", "/spool", buf, len);
}

int paths_private_dir(const char *path, bool create, char *err, size_t errlen)
{
	char dir[PATHS_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;
	size_t n;

	if (!slash || slash == path)
		return errf(err, errlen, "%s: not in a directory of its own", path);
	n = (size_t)(slash - path);
	if (n >= sizeof dir)
		return errf(err, errlen, "%s: the path is too long", path);
	memcpy(dir, path, n);
	dir[n] = 0;
	if (create && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return errf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
	/* lstat: a symbolic link planted in /tmp is refused, not followed. */
	if (lstat(dir, &st) < 0) {
		int e = errno;

		errf(err, errlen, "%s: %s", dir, strerror(e));
		errno = e;	/* the client tells "nothing there" from a refusal */
		return -1;
	}
	if (S_ISLNK(st.st_mode))
		return errf(err, errlen, "%s is a symbolic link (refused)", dir);
	if (!S_ISDIR(st.st_mode))
		return errf(err, errlen, "%s is not a directory", dir);
	if (st.st_uid != geteuid())
		return errf(err, errlen, "%s belongs to uid %lu, not to you (refused)", dir,
		            (unsigned long)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return errf(err, errlen, "%s is writable by others (mode %04o; refused)", dir,
		            (unsigned)(st.st_mode & 07777));
	return 0;
}

bool paths_answers(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;
	bool r;

	if (strlen(path) >= sizeof sa.sun_path)
		return false;
	strcpy(sa.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
		return false;
	r = connect(fd, (const struct sockaddr *)&sa, sizeof sa) == 0 || errno == EAGAIN;
	close(fd);
	return r;
}
