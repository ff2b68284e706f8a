/* xmlcheck FILE: exit 0 if FILE is a well-formed SVG document (one root
 * <svg>; see tests/xml_check.h), else print why and exit 1. For the
 * replay's shell tests, which need no XML package. */
#include <stdio.h>
#include <stdlib.h>
#include "../xml_check.h"

int main(int argc, char **argv)
{
	FILE *f;
	char *buf;
	long len;
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: xmlcheck FILE\n");
		return 2;
	}
	if (!(f = fopen(argv[1], "rb")) || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || !(buf = malloc((size_t)len + 1))) {
		perror(argv[1]);
		return 2;
	}
	n = fread(buf, 1, (size_t)len, f);
	buf[n] = '\0';
	fclose(f);
	if (n != (size_t)len || strlen(buf) != n) {
		fprintf(stderr, "%s: unreadable, or a NUL byte inside\n", argv[1]);
		return 1;
	}
	if (!well_formed(buf)) {
		fprintf(stderr, "%s: not well formed: %s\n", argv[1], xml_err);
		return 1;
	}
	free(buf);
	return 0;
}
