/* Reading the configuration for the daemon: conf.c's checks plus what only
 * the running system can tell; see settings.h. */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include "log.h"
#include "settings.h"

static const int syslog_level[] = {
	[CONF_LOG_ERROR] = LOG_ERR, [CONF_LOG_WARNING] = LOG_WARNING,
	[CONF_LOG_INFO] = LOG_INFO, [CONF_LOG_DEBUG] = LOG_DEBUG,
};

/* A group's gid by name: 0 and *gid, or the getgrnam_r error (ENOENT
 * for no such group). */
static int group_gid(const char *name, gid_t *gid)
{
	struct group gr, *found = NULL;
	char buf[16384];
	int rc = getgrnam_r(name, &gr, buf, sizeof buf, &found);

	if (found)
		*gid = gr.gr_gid;
	return found ? 0 : rc ? rc : ENOENT;
}

/* The admin group must exist now: a typo would otherwise leave the
 * operators without their rights, silently. Returns the errors added. */
static int check_admin_group(const char *path, const struct conf *c, struct conf_errors *errs)
{
	gid_t gid;
	int rc;

	if (!c->set[CONF_K_ADMIN_GROUP] || !c->admin_group)
		return 0;
	if ((rc = group_gid(c->admin_group, &gid)) == 0)
		return 0;
	if (rc == ENOENT)
		conf_error_add(errs, path, c->line[CONF_K_ADMIN_GROUP],
		               c->column[CONF_K_ADMIN_GROUP], "admin_group: no group named %s",
		               c->admin_group);
	else
		conf_error_add(errs, path, c->line[CONF_K_ADMIN_GROUP],
		               c->column[CONF_K_ADMIN_GROUP],
		               "admin_group: cannot look up the group %s: %s", c->admin_group,
		               strerror(rc));
	return 1;
}

/* conf.c's checks and the system's, every error at once. */
static int read_file(const char *path, struct conf *c, struct conf_errors *errs)
{
	int n;

	if (conf_init(c) < 0)
		return -1;
	n = conf_load(c, path, errs);
	if (n >= 0)
		n += check_admin_group(path, c, errs);
	return errs->nomem ? -1 : n;
}

int settings_read(const char *path, struct conf *c, FILE *errf)
{
	struct conf_errors errs = { 0 };
	int n = read_file(path, c, &errs);

	conf_errors_print(&errs, errf);
	conf_errors_free(&errs);
	return n;
}

int settings_read_logged(const char *path, struct conf *c)
{
	struct conf_errors errs = { 0 };
	int n = read_file(path, c, &errs);

	for (size_t i = 0; i < errs.n; i++)
		log_err("%s", errs.v[i].text);
	if (errs.dropped)
		log_err("%s: ... and %zu more errors", path, errs.dropped);
	conf_errors_free(&errs);
	return n;
}

void settings_limits(const struct conf *c, struct serve_limits *lim)
{
	gid_t gid;

	*lim = (struct serve_limits){
		.default_limit = c->default_limit,
		.max_limit = c->max_limit,
		.max_nodes = c->max_nodes,
		.max_queued_per_user = c->max_queued_per_user,
		.max_running_per_user = c->max_running_per_user,
		.log_level = syslog_level[c->log_level <= CONF_LOG_DEBUG ? c->log_level : CONF_LOG_INFO],
		.keep_ended = c->keep_ended,
		.max_stored_per_user = c->max_stored_per_user,
		.keep_ended_per_user = c->keep_ended_per_user,
		.min_free_disk = c->min_free_disk,
		.max_changes_per_user = c->max_changes_per_user,
		.change_interval_per_user = c->change_interval_per_user,
		.max_log_lines_per_user = c->max_log_lines_per_user,
	};
	/* Checked by settings_read; a group removed since is no group. */
	if (c->admin_group && group_gid(c->admin_group, &gid) == 0) {
		lim->has_admin = true;
		lim->admin_gid = gid;
		snprintf(lim->admin_group, sizeof lim->admin_group, "%s", c->admin_group);
	}
}
