/* The daemon's settings: the configuration file (conf.c) merged with the
 * command line, where a flag always wins over the file. Used at start-up
 * and again on SIGHUP, so a reload keeps what the command line set.
 *
 * What a reload can change without a restart is in struct serve_limits
 * (plus the kill grace, the policy and added nodes, which drive the core
 * and are applied by server.c); the rest (paths, socket mode, partition
 * name, launch prefix) take effect at the next start, and a reload that
 * changes them says so. */
#ifndef BF_SETTINGS_H
#define BF_SETTINGS_H
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "paths.h"
#include "conf.h"

/* The system's configuration file: read when it exists and no --config
 * names another (backfilld.yaml(5)). */
#define SETTINGS_DEFAULT_FILE PATHS_CONFIG	/* the clients read its socket key too */

/* Limits and policies a reload changes live; 0 means "none" throughout. */
struct serve_limits {
	bf_time default_limit;		/* a submission without -t gets this */
	bf_time max_limit;		/* longest -t accepted */
	uint32_t max_nodes;		/* widest job accepted */
	uint32_t max_queued_per_user;	/* a user's jobs waiting at once */
	uint32_t max_running_per_user;	/* the core holds a user's jobs beyond it */
	bool has_admin;
	gid_t admin_gid;		/* members may list, inspect and cancel every job */
	char admin_group[64];
	int log_level;			/* a syslog priority: LOG_ERR .. LOG_DEBUG */
	bf_time keep_ended;		/* ended jobs older than this leave the store; BF_NEVER: kept */
	/* Bytes, each > 0 (struct conf): a user's live jobs; a user's ended
	 * jobs kept in the store; free disk below which only root submits. */
	uint64_t max_stored_per_user, keep_ended_per_user, min_free_disk;
	/* A user's budgets (ratelimit.h; 0: conf.h's default, never none). */
	uint32_t max_changes_per_user;	/* changes to their jobs at once */
	bf_time change_interval_per_user;	/* then one more each */
	uint32_t max_log_lines_per_user;	/* a minute, about their requests */
};

/* Which serve options the command line gave (they win over the file). */
enum settings_flag {
	SF_SOCKET = 1u << 0, SF_DB = 1u << 1, SF_SPOOL = 1u << 2, SF_NODES = 1u << 3,
	SF_POLICY = 1u << 4, SF_GRACE = 1u << 5, SF_LAUNCH = 1u << 6, SF_ALPHA = 1u << 7,
	SF_ALPHA_FILE = 1u << 8,	/* not a flag: the file gave alpha */
};

/* Read and check a configuration file, including what only the running
 * system can tell (the admin group exists). Every problem is printed to
 * errf as FILE:LINE:COLUMN: message. Returns 0, or the number of errors,
 * or -1 when memory ran out. c is conf_init'ed here; conf_free it. */
int settings_read(const char *path, struct conf *c, FILE *errf);

/* The same, with each message logged as a warning (a reload). */
int settings_read_logged(const char *path, struct conf *c);

/* The live limits the file sets. */
void settings_limits(const struct conf *c, struct serve_limits *lim);

#endif
