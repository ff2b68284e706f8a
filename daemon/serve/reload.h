/* SIGHUP: read the configuration file again and apply what may change live. */
#ifndef BF_SERVE_RELOAD_H
#define BF_SERVE_RELOAD_H

struct daemon;

void reload_config(struct daemon *d);

#endif
