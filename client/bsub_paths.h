/* bsub's check, at submission, that the job can use its -cwd, -o and -e
 * paths, so a mistake is refused at once rather than failing the job at
 * its start, maybe hours later. */
#ifndef BSUB_PATHS_H
#define BSUB_PATHS_H

#include <stddef.h>

/* As the real user (access(2)): the working directory cwd (absolute)
 * exists, is a directory and can be searched; the file path (absolute,
 * or NULL: nothing to check) can be written: an existing one writable and
 * not a directory, a new one in an existing directory that can be
 * written and searched. A file name with % in it (%J, %I: made at the
 * start) has only its directory checked, and a directory with % in it is
 * not checked. `flag` names the option in the message (-cwd, -o, -e; "" for none).
 * 0, or -1 with a message naming the path and why. */
int bsub_check_cwd(const char *cwd, const char *flag, char *err, size_t errlen);
int bsub_check_file(const char *path, const char *flag, char *err, size_t errlen);

#endif
