/* bctl: the operator's command of backfilld: nodes (list, drain, resume,
 * down, up), the daemon's status, and the job commands of bctl_jobs.c.
 * See bctl(8). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bctl_jobs.h"
#include "client.h"
#include "nodelist.h"
#include "proto.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: bctl [--socket PATH] COMMAND [ARGUMENT...]\n"
"       bctl --help | --version\n"
"\n"
"Administer backfilld (root and the admin_group; limit also a job's owner).\n"
"\n"
"  nodes [NODES]                 every node (or NODES): idle, busy, drain or\n"
"                                down, with its job, since when, by whom, why\n"
"  drain NODES --reason TEXT     NODES finish their jobs and take no new one\n"
"  resume NODES                  NODES drained or down are back in service\n"
"  down NODES --reason TEXT      NODES are lost: their jobs end as failed\n"
"  up NODES                      the same as resume\n"
"  status                        policy, nodes by state, jobs, configuration\n"
"%s"
"\n"
"NODES is a node list: node007, node[001-004,009], gpu1,gpu2.\n"
"\n"
"  --socket PATH   the daemon's socket (default: $BACKFILLD_SOCKET, else the\n"
"                  socket key of $BACKFILLD_CONFIG or /etc/backfilld/backfilld.yaml,\n"
"                  else /run/backfilld/backfilld.sock if it exists, else the\n"
"                  per-user default)\n"
"\n"
"Exit status: 0 done, 1 refused by the daemon, 2 usage error, 3 the daemon\n"
"could not be reached. See bctl(8).\n", bctl_jobs_usage);
}

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("bctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'bctl --help' for more information.\n", stderr);
	return CLIENT_EXIT_USAGE;
}

static const char *const state_names[] = { "idle", "busy", "drain", "down" };

/* Two nodes that show as one line: same state, job, reason, who, since. */
static bool same_line(const struct proto_node *a, const struct proto_node *b)
{
	return a->state == b->state && a->job == b->job && a->since == b->since &&
	       a->changed == b->changed &&
	       strcmp(a->reason ? a->reason : "", b->reason ? b->reason : "") == 0 &&
	       strcmp(a->by ? a->by : "", b->by ? b->by : "") == 0;
}

/* One line per run of alike nodes, in the daemon's (partition) order.
 * changes: a bctl drain/resume/down/up answer, which says what changed. */
static int print_nodes(const struct proto_nodestates *ns, bool changes)
{
	const char **names = calloc(ns->count ? ns->count : 1, sizeof *names);

	if (!names) {
		fprintf(stderr, "bctl: out of memory\n");
		return CLIENT_EXIT_UNREACHABLE;
	}
	if (!changes)
		printf("%-24s %-6s %-8s %-19s %-16s %s\n", "NODES", "STATE", "JOB", "SINCE", "BY",
		       "REASON");
	for (uint32_t i = 0; i < ns->count;) {
		const struct proto_node *n = &ns->nodes[i];
		uint32_t k = 0, w;
		char job[24] = "-", since[40] = "-", *list;
		int len;

		while (i + k < ns->count && same_line(n, &ns->nodes[i + k]))
			names[k] = ns->nodes[i + k].name, k++;
		len = nodelist_format(names, k, NULL, 0);
		if (len < 0 || !(list = malloc((size_t)len + 1))) {
			free(names);
			fprintf(stderr, "bctl: out of memory\n");
			return CLIENT_EXIT_UNREACHABLE;
		}
		nodelist_format(names, k, list, (size_t)len + 1);
		if (changes) {
			client_put_text(stdout, list, 0);
			printf(": %s%s\n", state_names[n->state],
			       n->changed ? "" : " (unchanged)");
		} else {
			if (n->job)
				snprintf(job, sizeof job, "%" PRIu64, n->job);
			if (n->since != BF_NEVER)
				client_format_time(n->since, since, sizeof since);
			w = (uint32_t)client_put_text(stdout, list, 0);
			printf("%*s %-6s %-8s %-19s ", w < 24 ? (int)(24 - w) : 0, "",
			       state_names[n->state], job, since);
			w = (uint32_t)client_put_text(stdout, n->by ? n->by : "-", 16);
			printf("%*s ", w < 16 ? (int)(16 - w) : 0, "");
			client_put_text(stdout, n->reason ? n->reason : "-", 0);
			putchar('\n');
		}
		free(list);
		i += k;
	}
	free(names);
	return CLIENT_EXIT_OK;
}

static int print_status(const struct proto_statusinfo *si)
{
	for (uint32_t k = 0; k < si->count; k++) {
		size_t w = client_put_text(stdout, si->items[k].key, 0);

		printf(":%*s ", w < 14 ? (int)(14 - w) : 0, "");
		client_put_text(stdout, si->items[k].value, 0);
		putchar('\n');
	}
	return CLIENT_EXIT_OK;
}

/* bctl nodes LIST: keep only the nodes LIST names, in the daemon's order
 * (the daemon sends every node; the listing is small). A name that is no
 * node of the partition is an error, not an empty line: a typo must not
 * read as "nothing there". */
static int keep_only(struct proto_nodestates *ns, const struct nodelist *want,
                     struct proto_node **copy)
{
	uint32_t kept = 0;

	for (uint32_t w = 0; w < want->count; w++) {
		uint32_t k = 0;

		while (k < ns->count && strcmp(ns->nodes[k].name, want->names[w]) != 0)
			k++;
		if (k == ns->count) {
			fprintf(stderr, "bctl: nodes: no node named %s in the partition\n",
			        want->names[w]);
			return CLIENT_EXIT_REFUSED;
		}
	}
	if (!(*copy = calloc(want->count ? want->count : 1, sizeof **copy))) {
		fprintf(stderr, "bctl: out of memory\n");
		return CLIENT_EXIT_UNREACHABLE;
	}
	for (uint32_t k = 0; k < ns->count; k++)
		for (uint32_t w = 0; w < want->count; w++)
			if (strcmp(ns->nodes[k].name, want->names[w]) == 0) {
				(*copy)[kept++] = ns->nodes[k];
				break;
			}
	ns->nodes = *copy;
	ns->count = kept;
	return CLIENT_EXIT_OK;
}

/* Send req, expect want, print the answer (the nodes in only, if not
 * NULL). */
static int exchange(const char *socket, struct proto_buf *req, enum proto_type want,
                    bool changes, const struct nodelist *only)
{
	struct proto_arena a = { 0 };
	struct proto_nodestates ns;
	struct proto_statusinfo si;
	struct proto_node *copy = NULL;
	uint8_t *reply = NULL;
	size_t reply_len = 0;
	char err[512];
	int rc = client_call("bctl", socket, req, want, &reply, &reply_len);

	if (rc != 0)
		goto out;
	if (want == PT_NODESTATES ?
	    proto_dec_nodestates(reply, reply_len, &ns, &a, err, sizeof err) :
	    proto_dec_statusinfo(reply, reply_len, &si, &a, err, sizeof err)) {
		fprintf(stderr, "bctl: unreadable reply from backfilld: %s\n", err);
		rc = CLIENT_EXIT_UNREACHABLE;
		goto out;
	}
	if (want == PT_NODESTATES && only && (rc = keep_only(&ns, only, &copy)) != CLIENT_EXIT_OK)
		goto out;
	rc = want == PT_NODESTATES ? print_nodes(&ns, changes) : print_status(&si);
	if (fflush(stdout) != 0 && rc == CLIENT_EXIT_OK)
		rc = CLIENT_EXIT_REFUSED;
out:
	free(copy);
	proto_arena_free(&a);
	free(reply);
	return rc;
}

static const struct {
	const char *name;
	enum proto_nodeop op;
	bool needs_reason;
} node_ops[] = {
	{ "drain", PN_DRAIN, true }, { "resume", PN_RESUME, false },
	{ "down", PN_DOWN, true }, { "up", PN_UP, false },
};

/* bctl drain|resume|down|up NODES [--reason TEXT] */
static int node_command(const char *socket, int k, int argc, char **argv)
{
	const char *nodes = NULL, *reason = NULL, *cmd = node_ops[k].name;
	struct proto_buf req;
	struct nodelist nl;
	char err[300];
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--reason") == 0 || strcmp(a, "-r") == 0) {
			if (i + 1 == argc)
				return usage_error("%s: %s needs a value (why, in a few words)", cmd, a);
			reason = argv[++i];
		} else if (strncmp(a, "--reason=", 9) == 0) {
			reason = a + 9;
		} else if (a[0] == '-') {
			return usage_error("%s: unknown option '%s'", cmd, a);
		} else if (nodes) {
			return usage_error("%s: one node list, as in node[001-004],gpu7 (got '%s' "
			                   "and '%s')", cmd, nodes, a);
		} else {
			nodes = a;
		}
	}
	if (!nodes)
		return usage_error("%s: which nodes? As in bctl %s node[001-004]%s", cmd, cmd,
		                   node_ops[k].needs_reason ? " --reason 'disk failing'" : "");
	if (nodelist_parse(nodes, &nl, err, sizeof err) < 0)
		return usage_error("%s: %s: %s", cmd, nodes, err);
	nodelist_free(&nl);
	if (node_ops[k].needs_reason && (!reason || !*reason))
		return usage_error("%s: give a reason, as in --reason 'disk failing' (it is "
		                   "shown in bctl nodes and the log)", cmd);
	if (!node_ops[k].needs_reason && reason)
		return usage_error("%s takes no reason", cmd);
	proto_buf_init(&req);
	if (proto_enc_nodectl(&req, &(struct proto_nodectl){ node_ops[k].op, nodes, reason }) < 0) {
		proto_buf_free(&req);
		return usage_error("%s: the request is too large", cmd);
	}
	rc = exchange(socket, &req, PT_NODESTATES, true, NULL);
	proto_buf_free(&req);
	return rc;
}

/* bctl status: no arguments; bctl nodes [NODES]: a node list as drain
 * takes it (node[1-4]) narrows the listing. */
static int query(const char *socket, enum proto_type type, enum proto_type want, int argc,
                 char **argv)
{
	struct nodelist nl = { NULL, 0 };
	struct proto_buf req;
	char err[256];
	int rc;

	if (type == PT_NODELIST && argc == 2) {
		if (nodelist_parse(argv[1], &nl, err, sizeof err) < 0)
			return usage_error("nodes: %s: %s", argv[1], err);
	} else if (argc > 1) {
		return usage_error(type == PT_NODELIST ? "%s takes one node list at most (got '%s')" :
		                   "%s takes no arguments (got '%s')", argv[0], argv[argc - 1]);
	}
	proto_buf_init(&req);
	proto_enc_empty(&req, type);
	rc = exchange(socket, &req, want, false, argc == 2 ? &nl : NULL);
	proto_buf_free(&req);
	nodelist_free(&nl);
	return rc;
}

int main(int argc, char **argv)
{
	const char *socket = NULL;
	int i = 1, rc;

	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--socket") == 0 || strncmp(a, "--socket=", 9) == 0) {
			socket = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
			if (!socket)
				return usage_error("option --socket needs a value (a socket path)");
			if (!*socket)
				return usage_error("--socket: the path is empty");
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
		} else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			printf("bctl (backfilld) %s\n", BACKFILLD_VERSION);
			return fflush(stdout) == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_REFUSED;
		} else {
			return usage_error("unknown option '%s'", a);
		}
	}
	if (i == argc)
		return usage_error("which command? nodes, drain, resume, down, up, status%s",
		                   bctl_jobs_usage[0] ? ", or a job command" : "");
	argc -= i;
	argv += i;
	if (strcmp(argv[0], "nodes") == 0)
		return query(socket, PT_NODELIST, PT_NODESTATES, argc, argv);
	if (strcmp(argv[0], "status") == 0)
		return query(socket, PT_STATUS, PT_STATUSINFO, argc, argv);
	for (int k = 0; k < (int)(sizeof node_ops / sizeof *node_ops); k++)
		if (strcmp(argv[0], node_ops[k].name) == 0)
			return node_command(socket, k, argc, argv);
	if ((rc = bctl_jobs(socket, argc, argv)) >= 0)
		return rc;
	return usage_error("unknown command '%s'", argv[0]);
}
