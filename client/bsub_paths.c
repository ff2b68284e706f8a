/* bsub's -cwd, -o and -e checks; see bsub_paths.h. access(2) uses the
 * real uid, the user's own, who the job will run as. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bsub_paths.h"
#include "errf.h"

int bsub_check_cwd(const char *cwd, const char *flag, char *err, size_t errlen)
{
	struct stat st;

	if (stat(cwd, &st) < 0)
		return errf(err, errlen, "%s%sworking directory %s: %s", flag, *flag ? ": " : "", cwd,
		            strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return errf(err, errlen, "%s%sworking directory %s: %s", flag, *flag ? ": " : "", cwd,
		            strerror(ENOTDIR));
	if (access(cwd, X_OK) < 0)
		return errf(err, errlen, "%s%sworking directory %s: you cannot enter it: %s",
		            flag, *flag ? ": " : "", cwd, strerror(errno));
	return 0;
}

/* The directory part of an absolute path, malloc'ed ("/" for "/x"). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash && slash != path ? (size_t)(slash - path) : 1;
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, path, n);
		d[n] = '\0';
	}
	return d;
}

static int check_dir(const char *dir, const char *path, const char *flag, char *err,
                     size_t errlen)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return errf(err, errlen, "%s %s: its directory %s: %s", flag, path, dir,
		            strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return errf(err, errlen, "%s %s: %s is not a directory", flag, path, dir);
	if (access(dir, W_OK | X_OK) < 0)
		return errf(err, errlen, "%s %s: you cannot create a file in %s: %s", flag, path,
		            dir, strerror(errno));
	return 0;
}

int bsub_check_file(const char *path, const char *flag, char *err, size_t errlen)
{
	const char *base;
	char *dir;
	struct stat st;
	int rc;

	if (!path)
		return 0;
	if (!(dir = dir_of(path)))
		return errf(err, errlen, "out of memory");
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strchr(dir, '%')) {
		rc = 0;		/* made at the start: nothing to look at yet */
	} else if (strchr(base, '%') || (stat(path, &st) < 0 && errno == ENOENT)) {
		rc = check_dir(dir, path, flag, err, errlen);	/* to be created */
	} else if (stat(path, &st) < 0) {
		rc = errf(err, errlen, "%s %s: %s", flag, path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		rc = errf(err, errlen, "%s %s: %s", flag, path, strerror(EISDIR));
	} else if (access(path, W_OK) < 0) {
		rc = errf(err, errlen, "%s %s: you cannot write it: %s", flag, path, strerror(errno));
	} else {
		rc = 0;
	}
	free(dir);
	return rc;
}
