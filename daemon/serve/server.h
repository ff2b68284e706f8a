/* The daemon's life: set up, serve until stopped, free. */
#ifndef BF_SERVE_SERVER_H
#define BF_SERVE_SERVER_H
#include <stddef.h>

struct daemon;
struct serve_opts;

int  server_init(struct daemon *d, const struct serve_opts *o, char *err, size_t errlen);
int  server_run(struct daemon *d);
void server_free(struct daemon *d);

#endif
