/* common/paths.c: every default is absolute whatever the environment says,
 * and paths_private_dir() takes only a directory that is the user's own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "paths.h"
#include "tap.h"

static char buf[PATHS_MAX], why[512];
static char tmpdir[] = "/tmp/test_paths.XXXXXX";

static int streq(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return 1;
	printf("#   got  %s\n#   want %s\n", a, b);
	return 0;
}

static void defaults(void)
{
	char want[PATHS_MAX], longdir[200];

	ok(paths_default_socket(true, buf, sizeof buf) == 0 && streq(buf, PATHS_SYSTEM_SOCKET),
	   "root's socket is the system path");
	ok(paths_default_db(true, buf, sizeof buf) == 0 && streq(buf, "/var/lib/backfilld/state.db"),
	   "root's database");
	ok(paths_default_spool(true, buf, sizeof buf) == 0 && streq(buf, "/var/spool/backfilld"),
	   "root's spool");

	setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
	ok(paths_default_socket(false, buf, sizeof buf) == 0 &&
	   streq(buf, "/run/user/1000/backfilld/backfilld.sock"), "a user's socket: $XDG_RUNTIME_DIR");
	snprintf(want, sizeof want, "/tmp/backfilld-%lu/backfilld.sock", (unsigned long)geteuid());
	setenv("XDG_RUNTIME_DIR", "run/relative", 1);
	ok(paths_default_socket(false, buf, sizeof buf) == 0 && streq(buf, want),
	   "a relative $XDG_RUNTIME_DIR is ignored: /tmp/backfilld-UID");
	unsetenv("XDG_RUNTIME_DIR");
	ok(paths_default_socket(false, buf, sizeof buf) == 0 && streq(buf, want),
	   "no $XDG_RUNTIME_DIR: /tmp/backfilld-UID");
	memset(longdir, 'r', sizeof longdir - 1);
	longdir[0] = '/';
	longdir[sizeof longdir - 1] = 0;
	setenv("XDG_RUNTIME_DIR", longdir, 1);
	ok(paths_default_socket(false, buf, sizeof buf) == 0 && streq(buf, want),
	   "an $XDG_RUNTIME_DIR too long for a socket address: /tmp/backfilld-UID");
	unsetenv("XDG_RUNTIME_DIR");
	ok(paths_default_socket(false, buf, 10) < 0, "a buffer too small: -1, not a cut path");

	setenv("XDG_STATE_HOME", "/srv/state", 1);
	setenv("HOME", "/home/u", 1);
	ok(paths_default_db(false, buf, sizeof buf) == 0 && streq(buf, "/srv/state/backfilld/state.db"),
	   "a user's database: $XDG_STATE_HOME/backfilld");
	ok(paths_default_spool(false, buf, sizeof buf) == 0 && streq(buf, "/srv/state/backfilld/spool"),
	   "a user's spool beside it");
	setenv("XDG_STATE_HOME", "state", 1);
	ok(paths_default_db(false, buf, sizeof buf) == 0 &&
	   streq(buf, "/home/u/.local/state/backfilld/state.db"),
	   "a relative $XDG_STATE_HOME is ignored: $HOME/.local/state/backfilld");
	unsetenv("XDG_STATE_HOME");
	setenv("HOME", "relative/home", 1);
	ok(paths_default_spool(false, buf, sizeof buf) == 0 && buf[0] == '/' &&
	   strstr(buf, "/.local/state/backfilld/spool"),
	   "a relative $HOME: the password database's home (%s)", buf);
	unsetenv("HOME");
	ok(paths_default_db(false, buf, sizeof buf) == 0 && buf[0] == '/',
	   "no $HOME: still absolute (%s)", buf);
}

static void private_dirs(void)
{
	char dir[300], sock[340], link[300];

	snprintf(dir, sizeof dir, "%s/mine", tmpdir);
	snprintf(sock, sizeof sock, "%s/s.sock", dir);
	ok(paths_private_dir(sock, false, why, sizeof why) < 0 && strstr(why, "No such file"),
	   "missing, not created: refused (%s)", why);
	why[0] = 0;
	ok(paths_private_dir(sock, true, why, sizeof why) == 0, "created (%s)", why);
	{
		struct stat st;

		ok(lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700 &&
		   st.st_uid == geteuid(), "with mode 0700, ours");
	}
	ok(paths_private_dir(sock, true, why, sizeof why) == 0, "an existing one of ours: taken");
	chmod(dir, 0755);
	ok(paths_private_dir(sock, false, why, sizeof why) == 0, "0755 is fine: only we write there");
	chmod(dir, 0777);
	ok(paths_private_dir(sock, false, why, sizeof why) < 0 && strstr(why, "writable by others"),
	   "writable by others: refused (%s)", why);
	chmod(dir, 0770);
	ok(paths_private_dir(sock, false, why, sizeof why) < 0, "writable by the group: refused");
	chmod(dir, 0700);

	snprintf(link, sizeof link, "%s/link", tmpdir);
	snprintf(sock, sizeof sock, "%s/s.sock", link);
	ok(symlink(dir, link) == 0 && paths_private_dir(sock, true, why, sizeof why) < 0 &&
	   strstr(why, "symbolic link"), "a symbolic link to our own directory: refused (%s)", why);
	unlink(link);

	if (geteuid() == 0) {
		snprintf(sock, sizeof sock, "%s/s.sock", dir);
		ok(chown(dir, 65534, 65534) == 0 && paths_private_dir(sock, false, why, sizeof why) < 0 &&
		   strstr(why, "belongs to uid 65534, not to you"), "another user's: refused (%s)", why);
	} else {
		ok(1, "another user's: refused # SKIP needs root to give a directory away");
	}
	ok(paths_private_dir("s.sock", false, why, sizeof why) < 0, "no directory part: refused");
	rmdir(dir);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		ok(0, "a temporary directory");
		return tap_done();
	}
	defaults();
	private_dirs();
	rmdir(tmpdir);
	return tap_done();
}
