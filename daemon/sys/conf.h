/* The configuration file, /etc/backfilld/backfilld.yaml (backfilld.yaml(5)):
 * read, type-checked and validated in one go, every error collected.
 *
 * The file is one YAML mapping from the keys below to scalars (nodes may
 * also be a sequence). Reading never stops at the first problem: every
 * unknown key, key given twice, wrong type and impossible value is
 * reported, each as "FILE:LINE:COLUMN: message" (1-based, the column in
 * characters, as libyaml counts them), sorted by position, so an
 * administrator fixes the whole file in one round. A YAML syntax error
 * ends the reading (the rest cannot be trusted); what was found before it
 * is still reported, and the checks across keys (max_limit against
 * default_limit, max_nodes against the partition) are skipped.
 *
 * Every key has a flag in `set` saying the file gave it: the daemon lets
 * a command-line flag win over the file, and a key the file left out keeps
 * the default conf_init() gave it. conf.c is the only file that includes
 * <yaml.h>. */
#ifndef BF_CONF_H
#define BF_CONF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "bf_time.h"
#include "sched.h"

#define CONF_MAX_FILE    (1024 * 1024)	/* bytes in the file */
#define CONF_MAX_STRING  4096		/* bytes in one scalar */
#define CONF_MAX_NODES   100000u	/* nodes in the partition */
#define CONF_MAX_ERRORS  200		/* messages kept; the rest are counted */
#define CONF_MAX_PER_USER 1000000u	/* max_queued/running_per_user */
#define CONF_MAX_SIZE    ((uint64_t)1 << 40)	/* a size in bytes: 1 TiB */
/* The defaults of the limits on what one user makes the daemon hold
 * (backfilld.yaml(5), SECURITY.md): never unlimited. */
#define CONF_DEFAULT_QUEUED_PER_USER 10000u
#define CONF_DEFAULT_STORED_PER_USER ((uint64_t)64 << 20)
#define CONF_DEFAULT_ENDED_PER_USER  ((uint64_t)16 << 20)
#define CONF_DEFAULT_MIN_FREE_DISK   ((uint64_t)64 << 20)
#define CONF_MAX_GRACE   ((bf_time)7 * 86400 * BF_SEC)	/* as --kill-grace */
/* A user's budgets (ratelimit.h): changes at once, then one every
 * interval; log lines a minute about their requests. */
#define CONF_DEFAULT_CHANGES   20u
#define CONF_DEFAULT_CHANGE_INTERVAL BF_SEC
#define CONF_DEFAULT_LOG_LINES 30u
#define CONF_MAX_CHANGE_INTERVAL ((bf_time)3600 * BF_SEC)
#define CONF_SOCKET_MAX  107		/* bytes in a Unix socket path (sun_path - NUL) */

enum conf_key {
	CONF_K_PARTITION, CONF_K_NODES, CONF_K_POLICY, CONF_K_SOCKET, CONF_K_SOCKET_MODE,
	CONF_K_DATABASE, CONF_K_SPOOL, CONF_K_KILL_GRACE, CONF_K_DEFAULT_LIMIT,
	CONF_K_MAX_LIMIT, CONF_K_MAX_NODES, CONF_K_MAX_QUEUED_PER_USER,
	CONF_K_MAX_RUNNING_PER_USER, CONF_K_ADMIN_GROUP, CONF_K_LAUNCH, CONF_K_LOG_LEVEL,
	CONF_K_KEEP_ENDED, CONF_K_ALPHA, CONF_K_MAX_STORED_PER_USER,
	CONF_K_KEEP_ENDED_PER_USER, CONF_K_MIN_FREE_DISK, CONF_K_MAX_CHANGES_PER_USER,
	CONF_K_CHANGE_INTERVAL_PER_USER, CONF_K_MAX_LOG_LINES_PER_USER,
	CONF_K_EXECUTION, CONF_K_SSH_DESTINATION, CONF_K_SSH_KEY, CONF_K_SSH_CONFIG,
	CONF_K_SSH_KNOWN_HOSTS, CONF_K_SSH_CONTROL_DIR, CONF_K_NODE_COMMAND, CONF_K_NODE_TIMEOUT,
	CONF_NKEYS
};

/* Where jobs run: here (every node a label), or on their nodes over ssh. */
enum conf_execution { CONF_EXEC_LOCAL, CONF_EXEC_SSH };
#define CONF_DEFAULT_NODE_TIMEOUT ((bf_time)30 * BF_SEC)
#define CONF_MIN_NODE_TIMEOUT ((bf_time)3 * BF_SEC)
#define CONF_MAX_NODE_TIMEOUT ((bf_time)86400 * BF_SEC)

enum conf_log_level { CONF_LOG_ERROR, CONF_LOG_WARNING, CONF_LOG_INFO, CONF_LOG_DEBUG };

/* Strings are owned (conf_free). 0 in a limit means "none" (see each). */
struct conf {
	bool set[CONF_NKEYS];		/* the file gave this key */
	unsigned line[CONF_NKEYS];	/* where the value is (1-based), for */
	unsigned column[CONF_NKEYS];	/* later messages */

	char *partition;		/* default "batch" */
	char *nodes;			/* as --nodes takes it: "16" (node001..node016)
					 * or a canonical node list (node[001-128]) */
	uint32_t nnodes;		/* how many that is */
	enum sched_policy policy;	/* default easy */
	double alpha;			/* creasy's; needed with it */
	char *socket, *database, *spool;/* NULL: the daemon's default for the user */
	mode_t socket_mode;		/* default 0666 (the daemon: 0600 unless root) */
	bf_time kill_grace;		/* >= 0, default 30 s */
	bf_time default_limit;		/* 0: none (bsub must give -t) */
	bf_time max_limit;		/* 0: none (the core's 100 years) */
	uint32_t max_nodes;		/* 0: the partition size */
	uint32_t max_queued_per_user;	/* 0: unlimited (the file says "unlimited");
					 * default CONF_DEFAULT_QUEUED_PER_USER */
	uint32_t max_running_per_user;	/* 0: unlimited */
	char *admin_group;		/* NULL: none (only root administers) */
	char *launch;			/* NULL: run scripts directly */
	enum conf_log_level log_level;	/* default info */
	bf_time keep_ended;		/* BF_NEVER ("forever", the default) or > 0 */
	/* Bytes (each > 0, at most CONF_MAX_SIZE; defaults CONF_DEFAULT_*):
	 * what one user's queued and running jobs may take (their scripts,
	 * arguments, environments and paths); what one user's ended jobs may
	 * take in the store before the oldest go; the free space below which
	 * users other than root may not submit. */
	uint64_t max_stored_per_user, keep_ended_per_user, min_free_disk;
	/* A user's budgets (never unlimited): see the defaults above. */
	uint32_t max_changes_per_user;	/* 1 .. CONF_MAX_PER_USER */
	bf_time change_interval_per_user;	/* > 0, at most an hour */
	uint32_t max_log_lines_per_user;	/* 1 .. CONF_MAX_PER_USER */
	/* A cluster (execution: ssh; backfilld(8), "Cluster"). Paths are
	 * absolute; NULL takes the default of backfilld.yaml(5). */
	enum conf_execution execution;	/* default local */
	char *ssh_destination;		/* default "%n" */
	char *ssh_key, *ssh_known_hosts, *ssh_control_dir;
	char *ssh_config;		/* NULL: none (no ssh_config is read) */
	char *node_command;		/* default "/usr/sbin/backfilld --node" */
	bf_time node_timeout;		/* CONF_MIN .. CONF_MAX_NODE_TIMEOUT, default 30 s */
};

/* One message, "FILE:LINE:COLUMN: text"; line and column are 0 for an
 * error that is about the file as a whole (it cannot be opened). */
struct conf_error {
	unsigned line, column;
	char *text;
};

/* The messages of one reading, sorted by position. */
struct conf_errors {
	struct conf_error *v;
	size_t n, cap;
	size_t dropped;			/* past CONF_MAX_ERRORS, counted only */
	bool nomem;			/* some message could not be kept */
};

/* The defaults (documented in backfilld.yaml(5)), nothing set. Returns 0,
 * or -1 if memory ran out (then conf_free is still safe). */
int  conf_init(struct conf *c);
void conf_free(struct conf *c);

/* Read and validate a file into c (which conf_init prepared); errors go
 * to errs (zero it first; free with conf_errors_free). Returns the number
 * of errors (0: c is complete and valid), or -1 if memory ran out. On
 * errors c holds what was valid, which the daemon must not use. */
int  conf_load(struct conf *c, const char *path, struct conf_errors *errs);
/* The same for text already in memory; `name` is the FILE of messages. */
int  conf_load_buffer(struct conf *c, const char *name, const char *data, size_t len,
                      struct conf_errors *errs);
void conf_errors_free(struct conf_errors *errs);
/* One more message, "name:LINE:COLUMN: text", in its place among the
 * others (for checks made after conf_load, such as whether a group
 * exists). Counted as dropped past CONF_MAX_ERRORS. */
void conf_error_add(struct conf_errors *errs, const char *name, unsigned line, unsigned column,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Every message on its own line, with a last line counting the dropped. */
void conf_errors_print(const struct conf_errors *errs, FILE *f);

const char *conf_key_name(enum conf_key k);
const char *conf_log_level_name(enum conf_log_level l);

#endif
