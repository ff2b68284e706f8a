/* The clients' socket candidates; see where.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sys/conf.h"
#include "errf.h"
#include "where.h"

const char *where_src_name(enum where_src s)
{
	switch (s) {
	case WHERE_FLAG: return "--socket";
	case WHERE_ENV: return PATHS_ENV_SOCKET;
	case WHERE_CONFIG: return "socket key";
	case WHERE_SYSTEM: return "system path";
	case WHERE_USER: return "per-user default";
	}
	return "?";
}

/* A message into a fixed buffer, cut if it must be (a path in it may be
 * up to PATHS_MAX bytes; the message stays one bounded line). */
__attribute__((format(printf, 3, 4)))
static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* Append a candidate, unless the same path is already there (root's
 * per-user default is the system path; a configuration file usually
 * names the system path too). */
static void add(struct where *w, const char *path, enum where_src src, bool may_skip,
                bool private_dir)
{
	struct where_cand *c;

	for (size_t k = 0; k < w->n; k++)
		if (strcmp(w->c[k].path, path) == 0)
			return;
	if (w->n == sizeof w->c / sizeof *w->c)
		return;
	c = &w->c[w->n++];
	snprintf(c->path, sizeof c->path, "%s", path);
	c->src = src;
	c->may_skip = may_skip;
	c->private_dir = private_dir;
}

/* Read the configuration file's socket key with the daemon's reader.
 * Returns 0, or -1 if memory ran out. */
static int from_config(struct where *w, bool named)
{
	struct conf c;
	struct conf_errors e = { 0 };
	struct stat st;
	const char *first;
	int nerr;

	if (!named && stat(w->config, &st) < 0 && errno == ENOENT) {
		snprintf(w->config_note, sizeof w->config_note, "%s", strerror(ENOENT));
		return 0;
	}
	if (conf_init(&c) < 0 || (nerr = conf_load(&c, w->config, &e)) < 0) {
		conf_free(&c);
		conf_errors_free(&e);
		return -1;
	}
	/* conf_load keeps every key that was valid, even when others were
	 * not: a valid socket key is still the best guess (where.h). */
	if (c.set[CONF_K_SOCKET] && c.socket)
		add(w, c.socket, WHERE_CONFIG, true, false);
	else
		snprintf(w->config_note, sizeof w->config_note, "%s",
		         nerr == 0 ? "no socket key" : e.n && e.v[0].line == 0 ? "cannot be read"
		                                      : "no valid socket key");
	if (nerr > 0) {
		first = e.n ? e.v[0].text : "(the messages were lost: out of memory)";
		if (e.n && e.v[0].line == 0)	/* about the whole file: "FILE: cannot open: ..." */
			say(w->warning, sizeof w->warning, "%s%s; %s", named ? PATHS_ENV_CONFIG
			         " names " : "", first, "the default sockets are tried");
		else
			say(w->warning, sizeof w->warning, "%s has %d error%s (the first: %s); %s",
			         w->config, nerr, nerr == 1 ? "" : "s", first,
			         c.set[CONF_K_SOCKET] ? "its socket key is used"
			                              : "the default sockets are tried");
	}
	conf_free(&c);
	conf_errors_free(&e);
	return 0;
}

int where_resolve(const char *socket_opt, bool root, struct where *w, char *err, size_t errlen)
{
	const char *env = getenv(PATHS_ENV_SOCKET), *cfg = getenv(PATHS_ENV_CONFIG);
	char user[PATHS_MAX];

	memset(w, 0, sizeof *w);
	if (socket_opt && *socket_opt) {
		add(w, socket_opt, WHERE_FLAG, false, false);
		return 0;
	}
	if (env && *env) {
		add(w, env, WHERE_ENV, false, false);
		return 0;
	}
	if ((size_t)snprintf(w->config, sizeof w->config, "%s", cfg && *cfg ? cfg : PATHS_CONFIG)
	    >= sizeof w->config)
		say(w->warning, sizeof w->warning, "%s is too long; the default sockets are "
		         "tried", PATHS_ENV_CONFIG);
	else if (from_config(w, cfg && *cfg) < 0)
		return errf(err, errlen, "out of memory reading %s", w->config);
	add(w, PATHS_SYSTEM_SOCKET, WHERE_SYSTEM, true, false);
	/* Root's own default is the system path; anyone else's may be in
	 * /tmp, where another user could have made the directory first. */
	if (!root && paths_default_socket(false, user, sizeof user) == 0)
		add(w, user, WHERE_USER, false, true);
	return 0;
}
