/* Who is asking (see peer.h): identity comes from the socket
 * (SO_PEERCRED, conn.c), never from what the client says. */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <unistd.h>
#include "conn.h"
#include "daemon.h"
#include "peer.h"

/* Root, or a member of admin_group (backfilld.yaml(5)): the primary group
 * the socket reports, or a supplementary one of the user's. A daemon a
 * user runs (make run) serves that user alone, who is its operator. */
bool peer_is_admin(const struct conn *c)
{
	const struct daemon *d = conn_daemon(c);
	const struct serve_limits *L = &d->o.lim;
	struct passwd pw, *pwp = NULL;
	char buf[4096];
	gid_t groups[256];
	int n = 256;

	if (conn_uid(c) == 0 || (!d->root && conn_uid(c) == geteuid()))
		return true;
	if (!L->has_admin)
		return false;
	if (conn_gid(c) == L->admin_gid)
		return true;
	if (getpwuid_r(conn_uid(c), &pw, buf, sizeof buf, &pwp) != 0 || !pwp ||
	    getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) < 0)
		return false;	/* more than 256 groups: only the first count */
	for (int k = 0; k < n; k++)
		if (groups[k] == L->admin_gid)
			return true;
	return false;
}

/* Who is on the other end, for the log: "alice (uid 1000)". */
void peer_who(const struct conn *c, char *buf, size_t len)
{
	struct passwd pw, *pwp = NULL;
	char pwbuf[1024];

	getpwuid_r(conn_uid(c), &pw, pwbuf, sizeof pwbuf, &pwp);
	snprintf(buf, len, "%s (uid %u)", pwp ? pwp->pw_name : "?", (unsigned)conn_uid(c));
}
