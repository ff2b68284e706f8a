/* The configuration reader: the shipped example, every key's valid forms
 * and defaults, every kind of error with its exact FILE:LINE:COLUMN, many
 * errors at once in position order, YAML syntax errors, and the size
 * bounds. Fixtures are written to a temporary directory and read through
 * conf_load, as the daemon will. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sys/conf.h"
#include "tap.h"

#define S   ((bf_time)BF_SEC)
#define MIN (60 * S)
#define H   (60 * MIN)
#define D   (24 * H)

static char dir[] = "/tmp/test_conf.XXXXXX";
static char path[512];
static int fixture_n;

static bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static int write_file(const char *p, const char *text, size_t len)
{
	FILE *f = fopen(p, "w");

	if (!f)
		return -1;
	if (fwrite(text, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* Write text to a new fixture (its name in `path`) and load it. */
static int load_len(const char *text, size_t len, struct conf *c, struct conf_errors *e)
{
	snprintf(path, sizeof path, "%s/f%d.yaml", dir, ++fixture_n);
	memset(e, 0, sizeof *e);
	if (conf_init(c) < 0 || write_file(path, text, len) < 0) {
		printf("# cannot set up %s\n", path);
		return -2;
	}
	return conf_load(c, path, e);
}

static int load(const char *text, struct conf *c, struct conf_errors *e)
{
	return load_len(text, strlen(text), c, e);
}

static void show_errors(const struct conf_errors *e)
{
	for (size_t i = 0; i < e->n; i++)
		printf("#   got: %s\n", e->v[i].text);
}

/* The file is valid: 0 errors. The caller checks c, then frees it. */
static bool valid(const char *text, struct conf *c, const char *what)
{
	struct conf_errors e;
	int rc = load(text, c, &e);

	if (!ok(rc == 0 && e.n == 0, "valid: %s", what)) {
		printf("#   rc %d\n", rc);
		show_errors(&e);
	}
	conf_errors_free(&e);
	return rc == 0;
}

/* The file gives exactly these messages, in this order; each is given
 * without "FILE:" ("3:1: unknown key 'x'"). NULL ends the list. */
__attribute__((sentinel))
static void errors(const char *text, const char *what, ...)
{
	struct conf_errors e;
	struct conf c;
	int rc = load(text, &c, &e);
	size_t n = 0, plen = strlen(path);
	bool same = true;
	const char *want;
	va_list ap;

	va_start(ap, what);
	while ((want = va_arg(ap, const char *)) != NULL) {
		const char *got = n < e.n ? e.v[n].text : NULL;

		if (!got || strncmp(got, path, plen) != 0 || got[plen] != ':' ||
		    strcmp(got + plen + 1, want) != 0) {
			if (same)
				printf("#   want [%zu]: %s\n", n, want);
			same = false;
		}
		n++;
	}
	va_end(ap);
	if (!ok(same && rc == (int)n && e.n == n, "%s", what)) {
		printf("#   rc %d, %zu messages, want %zu\n", rc, e.n, n);
		show_errors(&e);
	}
	conf_errors_free(&e);
	conf_free(&c);
}

/* One key's value is valid and gives this conf: checked by `check`. */
#define VALID(text, cond, what) do { \
	struct conf c_; \
	if (valid(text, &c_, what)) { \
		struct conf *c = &c_; \
		ok_eq((cond), 1, "  %s: value as read", what); \
	} \
	conf_free(&c_); \
} while (0)

static char *slurp(const char *p, size_t *len)
{
	FILE *f = fopen(p, "r");
	char *buf = malloc(64 * 1024);

	*len = 0;
	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	*len = fread(buf, 1, 64 * 1024 - 1, f);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

/* ---- the shipped example ---- */

static void example_file(void)
{
	const char *top = getenv("BF_TOP");
	char p[600];
	struct conf c;
	struct conf_errors e = { 0 };
	char *text, *all;
	size_t len;
	int rc;

	snprintf(p, sizeof p, "%s/etc/backfilld.yaml", top ? top : ".");
	if (conf_init(&c) < 0)
		return;
	rc = conf_load(&c, p, &e);
	if (!ok(rc == 0, "etc/backfilld.yaml is valid"))
		show_errors(&e);
	ok(streq(c.partition, "batch") && streq(c.nodes, "node[001-016]") && c.nnodes == 16 &&
	   c.policy == SCHED_EASY, "  example: partition batch, node[001-016], easy");
	ok(streq(c.socket, "/run/backfilld/backfilld.sock") &&
	   streq(c.database, "/var/lib/backfilld/state.db") &&
	   streq(c.spool, "/var/spool/backfilld") && c.socket_mode == 0666,
	   "  example: the root default paths, socket mode 0666");
	ok(c.kill_grace == 30 * S && c.default_limit == 0 && c.max_limit == 0 && c.max_nodes == 0 &&
	   c.max_queued_per_user == 10000 && c.max_running_per_user == 0 && !c.admin_group &&
	   !c.launch && c.log_level == CONF_LOG_INFO && c.keep_ended == BF_NEVER &&
	   c.max_stored_per_user == 64u << 20 && c.keep_ended_per_user == 16u << 20 &&
	   c.min_free_disk == 64u << 20,
	   "  example: today's daemon (grace 30 s, the default per-user bounds, info, keep forever)");
	ok(c.set[CONF_K_NODES] && c.set[CONF_K_KEEP_ENDED] && !c.set[CONF_K_LAUNCH] &&
	   !c.set[CONF_K_ADMIN_GROUP], "  example: set flags follow the file");
	conf_errors_free(&e);
	conf_free(&c);

	/* Every key the example shows commented out is valid as written. */
	text = slurp(p, &len);
	if (!ok(text != NULL, "the example can be read"))
		return;
	all = malloc(len + 1);
	if (all) {
		size_t o = 0;

		for (size_t i = 0; i < len; i++) {
			/* "#key: value" at the start of a line loses its '#'. */
			if (text[i] == '#' && (i == 0 || text[i - 1] == '\n') && i + 1 < len &&
			    text[i + 1] >= 'a' && text[i + 1] <= 'z')
				continue;
			all[o++] = text[i];
		}
		all[o] = 0;
		if (valid(all, &c, "the example with every commented key enabled")) {
			ok(c.default_limit == H && c.max_limit == 7 * D && c.max_nodes == 16 &&
			   streq(c.admin_group, "hpcadmin") && streq(c.launch, "/usr/bin/ssh {node}"),
			   "  every key set: default 1:00, max 7d, max_nodes 16, admin group, launch");
			for (int k = 0; k < CONF_NKEYS; k++)
				if (!c.set[k])
					ok(0, "  key %s is in the example", conf_key_name((enum conf_key)k));
		}
		conf_free(&c);
	}
	free(all);
	free(text);
}

/* ---- defaults and empty files ---- */

static bool defaults(const struct conf *c)
{
	for (int k = 0; k < CONF_NKEYS; k++)
		if (c->set[k])
			return false;
	return streq(c->partition, "batch") && streq(c->nodes, "16") && c->nnodes == 16 &&
	       c->policy == SCHED_EASY && !c->socket && !c->database && !c->spool &&
	       c->socket_mode == 0666 && c->kill_grace == 30 * S && c->default_limit == 0 &&
	       c->max_limit == 0 && c->max_nodes == 0 &&
	       c->max_queued_per_user == CONF_DEFAULT_QUEUED_PER_USER &&
	       c->max_running_per_user == 0 && !c->admin_group && !c->launch &&
	       c->log_level == CONF_LOG_INFO && c->keep_ended == BF_NEVER &&
	       c->max_stored_per_user == CONF_DEFAULT_STORED_PER_USER &&
	       c->keep_ended_per_user == CONF_DEFAULT_ENDED_PER_USER &&
	       c->min_free_disk == CONF_DEFAULT_MIN_FREE_DISK &&
	       c->max_changes_per_user == 20 && c->change_interval_per_user == BF_SEC &&
	       c->max_log_lines_per_user == 30;
}

static void empty_files(void)
{
	struct conf init;

	if (conf_init(&init) == 0)
		ok(defaults(&init), "conf_init: the documented defaults, nothing set");
	conf_free(&init);
	VALID("", defaults(c), "an empty file: all defaults");
	VALID("# only a comment\n\n   # another\n", defaults(c), "only comments");
	VALID("---\n", defaults(c), "an empty document");
	VALID("---\n...\n", defaults(c), "an empty document with its end");
	VALID("~\n", defaults(c), "a null document");
	VALID("{}\n", defaults(c), "an empty mapping");
	VALID("\xef\xbb\xbfpolicy: fcfs\n", c->policy == SCHED_FCFS, "a UTF-8 byte order mark");
	VALID("policy: fcfs", c->policy == SCHED_FCFS, "no newline at the end");
	VALID("policy: fcfs\r\nlog_level: debug\r\n", c->log_level == CONF_LOG_DEBUG,
	      "CRLF line ends");
	VALID("{policy: conservative, nodes: 4}\n",
	      c->policy == SCHED_CONSERVATIVE && c->nnodes == 4, "a flow mapping");
	VALID("\"policy\": fcfs\n", c->policy == SCHED_FCFS, "a quoted key");
	VALID("policy: fcfs\nlog_level: debug\n",
	      c->set[CONF_K_POLICY] && c->line[CONF_K_POLICY] == 1 && c->set[CONF_K_LOG_LEVEL] &&
	      c->line[CONF_K_LOG_LEVEL] == 2 && !c->set[CONF_K_NODES],
	      "set flags and lines of the keys given");
}

/* ---- every key's valid forms ---- */

static void valid_scalars(void)
{
	VALID("partition: batch\n", streq(c->partition, "batch"), "partition: batch");
	VALID("partition: gpu-2.long_x\n", streq(c->partition, "gpu-2.long_x"),
	      "partition: letters, digits, . _ -");
	VALID("partition: 'quoted'\n", streq(c->partition, "quoted"), "partition: quoted");
	VALID("policy: fcfs\n", c->policy == SCHED_FCFS, "policy: fcfs");
	VALID("policy: easy\n", c->policy == SCHED_EASY, "policy: easy");
	VALID("policy: \"conservative\"\n", c->policy == SCHED_CONSERVATIVE, "policy: conservative");
	VALID("policy: creasy\nalpha: 250\n", c->policy == SCHED_CREASY && c->alpha == 250 &&
	      c->set[CONF_K_ALPHA], "policy: creasy, alpha: 250");
	VALID("alpha: 0.5\npolicy: creasy\n", c->alpha == 0.5, "alpha before policy, a fraction");
	VALID("alpha: 1e9\n", c->alpha == 1e9 && c->policy == SCHED_EASY,
	      "alpha without creasy is kept for a later switch");
	VALID("socket: /tmp/b.sock\ndatabase: /srv/db\nspool: /srv/spool dir\n",
	      streq(c->socket, "/tmp/b.sock") && streq(c->database, "/srv/db") &&
	      streq(c->spool, "/srv/spool dir"), "socket, database, spool: absolute paths");
	VALID("socket_mode: 0600\n", c->socket_mode == 0600, "socket_mode: 0600 unquoted");
	VALID("socket_mode: \"0777\"\n", c->socket_mode == 0777, "socket_mode: \"0777\"");
	VALID("socket_mode: '0660'\n", c->socket_mode == 0660, "socket_mode: '0660'");
	VALID("kill_grace: 0\n", c->kill_grace == 0 && c->set[CONF_K_KILL_GRACE], "kill_grace: 0");
	VALID("kill_grace: 0s\n", c->kill_grace == 0, "kill_grace: 0s");
	VALID("kill_grace: 0:00\n", c->kill_grace == 0, "kill_grace: 0:00");
	VALID("kill_grace: 0m0s\n", c->kill_grace == 0, "kill_grace: 0m0s");
	VALID("kill_grace: 45s\n", c->kill_grace == 45 * S, "kill_grace: 45s");
	VALID("kill_grace: 1m30s\n", c->kill_grace == 90 * S, "kill_grace: 1m30s");
	VALID("kill_grace: 0:00:05\n", c->kill_grace == 5 * S, "kill_grace: 0:00:05");
	VALID("kill_grace: 1.5s\n", c->kill_grace == 1500000, "kill_grace: 1.5s");
	VALID("kill_grace: 7d\n", c->kill_grace == 7 * D, "kill_grace: 7d (the most)");
	VALID("default_limit: 90\n", c->default_limit == 90 * MIN, "default_limit: 90 is minutes");
	VALID("default_limit: 2:00\n", c->default_limit == 2 * H, "default_limit: 2:00");
	VALID("default_limit: '1h30m'\n", c->default_limit == 90 * MIN, "default_limit: 1h30m");
	VALID("max_limit: 0:00:30\n", c->max_limit == 30 * S, "max_limit: 0:00:30");
	VALID("default_limit: 1:00\nmax_limit: 60\n", c->default_limit == H && c->max_limit == H,
	      "max_limit equal to default_limit");
	VALID("max_limit: 1d\ndefault_limit: 2h\n", c->max_limit == D && c->default_limit == 2 * H,
	      "max_limit before default_limit in the file");
	VALID("max_nodes: 1\n", c->max_nodes == 1, "max_nodes: 1");
	VALID("max_nodes: 16\n", c->max_nodes == 16, "max_nodes: the default partition's 16");
	VALID("nodes: 100\nmax_nodes: 100\n", c->max_nodes == 100, "max_nodes: the whole partition");
	VALID("max_nodes: 64\nnodes: n[1-64]\n", c->max_nodes == 64, "max_nodes before nodes");
	VALID("max_queued_per_user: 1\nmax_running_per_user: 1000000\n",
	      c->max_queued_per_user == 1 && c->max_running_per_user == 1000000,
	      "per-user limits: 1 and 1000000");
	VALID("max_stored_per_user: 1\nkeep_ended_per_user: 512K\nmin_free_disk: 2GiB\n",
	      c->max_stored_per_user == 1 && c->keep_ended_per_user == 512u << 10 &&
	      c->min_free_disk == (uint64_t)2 << 30, "sizes: bytes, K, GiB");
	VALID("max_stored_per_user: 1T\n", c->max_stored_per_user == (uint64_t)1 << 40,
	      "a size of 1T, the most");
	VALID("max_queued_per_user: unlimited\nmax_running_per_user: \"unlimited\"\n",
	      c->max_queued_per_user == 0 && c->max_running_per_user == 0 &&
	      c->set[CONF_K_MAX_QUEUED_PER_USER], "per-user limits: unlimited");
	VALID("admin_group: wheel\n", streq(c->admin_group, "wheel"), "admin_group: wheel");
	VALID("admin_group: _hpc-admins.x\n", streq(c->admin_group, "_hpc-admins.x"),
	      "admin_group: _ . - in a name");
	VALID("admin_group: smb$\n", streq(c->admin_group, "smb$"), "admin_group: a final $");
	VALID("admin_group: nosuchgroup_zz\n", streq(c->admin_group, "nosuchgroup_zz"),
	      "admin_group: need not exist (checked by the daemon)");
	VALID("launch: /usr/bin/ssh {node}\n", streq(c->launch, "/usr/bin/ssh {node}"),
	      "launch: a command with {node}");
	VALID("log_level: error\n", c->log_level == CONF_LOG_ERROR, "log_level: error");
	VALID("log_level: warning\n", c->log_level == CONF_LOG_WARNING, "log_level: warning");
	VALID("log_level: info\n", c->log_level == CONF_LOG_INFO, "log_level: info");
	VALID("log_level: debug\n", c->log_level == CONF_LOG_DEBUG, "log_level: debug");
	VALID("keep_ended: forever\n", c->keep_ended == BF_NEVER && c->set[CONF_K_KEEP_ENDED],
	      "keep_ended: forever");
	VALID("keep_ended: 30d\n", c->keep_ended == 30 * D, "keep_ended: 30d");
	VALID("max_changes_per_user: 1\nchange_interval_per_user: 0.5s\n"
	      "max_log_lines_per_user: 1000000\n",
	      c->max_changes_per_user == 1 && c->change_interval_per_user == BF_SEC / 2 &&
	      c->max_log_lines_per_user == 1000000, "a user's budgets: the smallest and largest");
	VALID("change_interval_per_user: 1h\n", c->change_interval_per_user == H,
	      "change_interval_per_user: an hour at most");
	VALID("keep_ended: 12:00\n", c->keep_ended == 12 * H, "keep_ended: 12:00");
	VALID("policy: fcfs   # a comment after the value\n", c->policy == SCHED_FCFS,
	      "a comment after a value");
}

static void valid_nodes(void)
{
	VALID("nodes: 8\n", streq(c->nodes, "8") && c->nnodes == 8, "nodes: 8 (node001..node008)");
	VALID("nodes: 016\n", streq(c->nodes, "16") && c->nnodes == 16, "nodes: 016 is 16");
	VALID("nodes: 1\n", c->nnodes == 1, "nodes: 1");
	VALID("nodes: 100000\n", c->nnodes == 100000, "nodes: 100000 (the most)");
	VALID("nodes: node[001-128]\n", streq(c->nodes, "node[001-128]") && c->nnodes == 128,
	      "nodes: node[001-128]");
	VALID("nodes: node01,node02,gpu7\n", streq(c->nodes, "node[01-02],gpu7") && c->nnodes == 3,
	      "nodes: a comma list, kept canonical");
	VALID("nodes: \"login\"\n", streq(c->nodes, "login") && c->nnodes == 1,
	      "nodes: one quoted name");
	VALID("nodes: [a, \"b[1-3]\"]\n", streq(c->nodes, "a,b[1-3]") && c->nnodes == 4,
	      "nodes: a flow list of names and ranges");
	VALID("nodes:\n  - node[001-064]\n  - gpu[01-04]\n  - bigmem1\n",
	      streq(c->nodes, "node[001-064],gpu[01-04],bigmem1") && c->nnodes == 69,
	      "nodes: a block list");
	VALID("nodes:\n- n1\n- n2\n- n3\n", streq(c->nodes, "n[1-3]") && c->nnodes == 3,
	      "nodes: single names in a list compact to a range");
	VALID("nodes:\n  - n[1-60000]\n  - m[1-40000]\n", c->nnodes == 100000,
	      "nodes: 100000 over two items (the most)");
}

/* ---- errors, one kind at a time ---- */

static void key_errors(void)
{
	errors("polcy: easy\n", "an unknown key", "1:1: unknown key 'polcy' (did you mean policy?)", NULL);
	errors("polciy: easy\n", "two edits from a key: still suggested",
	       "1:1: unknown key 'polciy' (did you mean policy?)", NULL);
	errors("kill_gracee: 30\nzz: 1\nlogs: x\n", "a far word suggests nothing; a short one only within one edit",
	       "1:1: unknown key 'kill_gracee' (did you mean kill_grace?)", "2:1: unknown key 'zz'",
	       "3:1: unknown key 'logs'", NULL);
	errors("policy: easy\nPolicy: fcfs\n", "keys are case-sensitive",
	       "2:1: unknown key 'Policy' (did you mean policy?)", NULL);
	errors("policy: easy\nnodes: 4\npolicy: fcfs\n", "a key given twice",
	       "3:1: policy is given twice (first at line 1, column 1)", NULL);
	errors("policy: easy\npolicy: nonsense\n", "a repeated key's value is not used",
	       "2:1: policy is given twice (first at line 1, column 1)", NULL);
	errors("{nodes: 4, nodes: 5}\n", "a key given twice in a flow mapping",
	       "1:12: nodes is given twice (first at line 1, column 2)", NULL);
	errors("[a]: 1\n", "a list as a key", "1:1: a key must be a name, not a list", NULL);
	errors("? {a: 1}\n: 2\npolicy: fcfs\n", "a mapping as a key",
	       "1:3: a key must be a name, not a mapping", NULL);
	errors("- policy\n- easy\n", "a top-level list",
	       "1:1: the top level must be a mapping of keys to values (key: value lines), "
	       "not a list", NULL);
	errors("hello\n", "a top-level scalar",
	       "1:1: the top level must be a mapping of keys to values (key: value lines), "
	       "not a single value", NULL);
	errors("policy: easy\n---\npolicy: fcfs\n", "two documents",
	       "2:1: a second document: the file must hold one", NULL);
	errors("partition: &p batch\npolicy: *p\n", "an alias",
	       "2:9: policy: aliases are not supported", NULL);
	errors("nodes: [a, *x]\n", "an alias in a list",
	       "1:12: nodes: aliases are not supported", NULL);
	errors("partition: !!str batch\n", "an explicit tag",
	       "1:12: partition: explicit tags ('tag:yaml.org,2002:str') are not supported", NULL);
	errors("nodes: !!seq [a]\n", "a tag on a list",
	       "1:8: nodes: tags are not supported", NULL);
	errors("partition: \"a\\tb\"\n", "a control character",
	       "1:12: partition: control characters are not allowed in 'a\\x09b'", NULL);
	errors("launch: \"/bin/x\\0y\"\n", "a NUL byte",
	       "1:9: launch: control characters are not allowed in '/bin/x\\x00y'", NULL);
}

static void type_errors(void)
{
	errors("policy: [easy]\n", "policy: a list",
	       "1:9: policy: expected fcfs, easy, conservative or creasy, not a list", NULL);
	errors("partition: {a: 1}\n", "partition: a mapping",
	       "1:12: partition: expected a name, not a mapping", NULL);
	errors("nodes: {a: 1}\n", "nodes: a mapping",
	       "1:8: nodes: expected a node count, a node list or a list of them, not a mapping",
	       NULL);
	errors("kill_grace:\n", "kill_grace: no value",
	       "1:1: kill_grace: no value (expected a time such as 30s)", NULL);
	errors("socket: ~\n", "socket: null",
	       "1:1: socket: no value (expected an absolute path)", NULL);
	errors("nodes: null\n", "nodes: null",
	       "1:1: nodes: no value (expected a node count, a node list or a list of them)", NULL);
	errors("max_nodes: \"8\"\n", "max_nodes: a quoted number",
	       "1:12: max_nodes: expected a whole number, not the quoted string '8'", NULL);
	errors("max_queued_per_user: '5'\n", "max_queued_per_user: a quoted number",
	       "1:22: max_queued_per_user: expected a whole number, not the quoted string '5'",
	       NULL);
	errors("max_nodes: 2.5\n", "max_nodes: a fraction",
	       "1:12: max_nodes: expected a whole number from 1 to 100000, not '2.5'", NULL);
	errors("log_level: [info, debug]\n", "log_level: a list",
	       "1:12: log_level: expected error, warning, info or debug, not a list", NULL);
	errors("keep_ended: {}\n", "keep_ended: a mapping",
	       "1:13: keep_ended: expected a time such as 30d, or forever, not a mapping", NULL);
	errors("launch: [/bin/ssh, x]\n", "launch: a list",
	       "1:9: launch: expected a command such as \"/usr/bin/ssh {node}\", not a list", NULL);
	errors("max_limit:\n  - 1:00\n", "max_limit: a block list",
	       "2:3: max_limit: expected a time such as 2:00, not a list", NULL);
}

static void value_errors(void)
{
	errors("max_changes_per_user: 0\n", "max_changes_per_user: 0",
	       "1:23: max_changes_per_user: expected a whole number from 1 to 1000000, not '0'",
	       NULL);
	errors("max_log_lines_per_user: unlimited\n", "max_log_lines_per_user: never unlimited",
	       "1:25: max_log_lines_per_user: expected a whole number from 1 to 1000000, not "
	       "'unlimited'", NULL);
	errors("change_interval_per_user: 61m\n", "change_interval_per_user: over an hour",
	       "1:27: change_interval_per_user: '61m' is more than an hour", NULL);
	errors("partition: 1st\n", "partition: starts with a digit",
	       "1:12: partition: '1st' is not a name: 1 to 63 letters, digits, '.', '_' or '-', "
	       "starting with a letter", NULL);
	errors("partition: a b\n", "partition: a space",
	       "1:12: partition: 'a b' is not a name: 1 to 63 letters, digits, '.', '_' or '-', "
	       "starting with a letter", NULL);
	errors("policy: backfill\n", "policy: unknown",
	       "1:9: policy: unknown policy 'backfill' (fcfs, easy, conservative or creasy)", NULL);
	errors("policy: creasy\n", "policy: creasy without alpha",
	       "1:9: policy creasy needs alpha, its weight of criticality (alpha: 0 gives easy's "
	       "order)", NULL);
	errors("alpha: -1\nalpha2: x\n", "alpha: negative, and an unknown key",
	       "1:8: alpha: '-1' is not a number from 0 to 1e9", "2:1: unknown key 'alpha2' (did you mean alpha?)", NULL);
	errors("alpha: 2e9\n", "alpha: too large", "1:8: alpha: '2e9' is not a number from 0 to 1e9",
	       NULL);
	errors("alpha: \"5\"\n", "alpha: quoted",
	       "1:8: alpha: expected a number, not the quoted string '5'", NULL);
	errors("alpha: nan\n", "alpha: nan", "1:8: alpha: 'nan' is not a number from 0 to 1e9",
	       NULL);
	errors("alpha: [1]\n", "alpha: a list", "1:8: alpha: expected a number from 0 to 1e9, "
	       "not a list", NULL);
	errors("policy: EASY\n", "policy: case-sensitive",
	       "1:9: policy: unknown policy 'EASY' (fcfs, easy, conservative or creasy)", NULL);
	errors("socket: run/b.sock\n", "socket: relative",
	       "1:9: socket: 'run/b.sock' is not an absolute path (it must start with /)", NULL);
	errors("database: state.db\nspool: ./spool\n", "database and spool: relative",
	       "1:11: database: 'state.db' is not an absolute path (it must start with /)",
	       "2:8: spool: './spool' is not an absolute path (it must start with /)", NULL);
	errors("socket_mode: 666\n", "socket_mode: no leading 0",
	       "1:14: socket_mode: expected four octal digits starting with 0, such as \"0666\", "
	       "not '666'", NULL);
	errors("socket_mode: \"0o666\"\n", "socket_mode: 0o666",
	       "1:14: socket_mode: expected four octal digits starting with 0, such as \"0666\", "
	       "not '0o666'", NULL);
	errors("socket_mode: 0689\n", "socket_mode: not octal",
	       "1:14: socket_mode: expected four octal digits starting with 0, such as \"0666\", "
	       "not '0689'", NULL);
	errors("socket_mode: \"0444\"\n", "socket_mode: the owner cannot write",
	       "1:14: socket_mode: '0444' takes reading or writing from the daemon itself: "
	       "from 0600 to 0777", NULL);
	errors("kill_grace: -5s\n", "kill_grace: negative", "1:13: kill_grace: '-5s' is negative",
	       NULL);
	errors("kill_grace: 30\n", "kill_grace: a bare number",
	       "1:13: kill_grace: a bare number '30' is ambiguous: write a unit, as in 30s "
	       "(seconds) or 30m (minutes)", NULL);
	errors("kill_grace: 8d\n", "kill_grace: more than a week",
	       "1:13: kill_grace: '8d' is more than a week", NULL);
	errors("kill_grace: 30x\n", "kill_grace: not a time",
	       "1:13: kill_grace: '30x': unknown unit 'x' (use d, h, m or s); a duration looks like 30s, 5m, 1h30m, 1d or 0:30", NULL);
	errors("kill_grace: 30 seconds\n", "kill_grace: in words, a duration, not a time limit",
	       "1:13: kill_grace: '30 seconds': space in duration (write it as one word, as in 1h30m); a duration looks like 30s, 5m, 1h30m, 1d or 0:30",
	       NULL);
	errors("default_limit: 0\n", "default_limit: 0",
	       "1:16: default_limit: '0': a time limit must be more than 0", NULL);
	errors("default_limit: -1:00\n", "default_limit: negative",
	       "1:16: default_limit: '-1:00' is negative", NULL);
	errors("max_limit: 2:60\n", "max_limit: bad minutes",
	       "1:12: max_limit: '2:60': minutes after ':' must be 00 to 59, not 60", NULL);
	errors("default_limit: 2:00\nmax_limit: 1:00\n", "a maximum below the default",
	       "2:12: max_limit 1:00:00 is below default_limit 2:00:00 (line 1)", NULL);
	errors("max_limit: 30m\ndefault_limit: 1h\n", "a maximum below the default, max first",
	       "1:12: max_limit 0:30:00 is below default_limit 1:00:00 (line 2)", NULL);
	errors("default_limit: 2:00\nmax_limit: 1:0\n", "no comparison when max_limit is bad",
	       "2:12: max_limit: '1:0': minutes after ':' must be exactly two digits, 00 to 59", NULL);
	errors("max_nodes: 0\n", "max_nodes: 0",
	       "1:12: max_nodes: expected a whole number from 1 to 100000, not '0'", NULL);
	errors("max_nodes: -3\n", "max_nodes: negative",
	       "1:12: max_nodes: expected a whole number from 1 to 100000, not '-3'", NULL);
	errors("max_nodes: 17\n", "max_nodes: above the default partition",
	       "1:12: max_nodes 17 is more than the partition's 16 nodes", NULL);
	errors("nodes: n[1-8]\nmax_nodes: 9\n", "max_nodes: above the partition",
	       "2:12: max_nodes 9 is more than the partition's 8 nodes", NULL);
	errors("max_nodes: 9\nnodes: n[1-8]\n", "max_nodes: above a partition given later",
	       "1:12: max_nodes 9 is more than the partition's 8 nodes", NULL);
	errors("nodes: 0\nmax_nodes: 9\n", "max_nodes: no comparison with a bad partition",
	       "1:8: nodes: '0': the partition needs from 1 to 100000 nodes", NULL);
	errors("min_free_disk: 0\n", "min_free_disk: 0",
	       "1:16: min_free_disk: expected a size from 1 byte to 1T, such as 64M (a whole number "
	       "with K, M, G or T, powers of 1024), not '0'", NULL);
	errors("max_stored_per_user: 2T\n", "max_stored_per_user: over 1T",
	       "1:22: max_stored_per_user: expected a size from 1 byte to 1T, such as 64M (a whole "
	       "number with K, M, G or T, powers of 1024), not '2T'", NULL);
	errors("keep_ended_per_user: 16 M\n", "keep_ended_per_user: a blank before the unit",
	       "1:22: keep_ended_per_user: expected a size from 1 byte to 1T, such as 64M (a whole "
	       "number with K, M, G or T, powers of 1024), not '16 M'", NULL);
	errors("keep_ended_per_user: unlimited\n", "keep_ended_per_user: never unlimited",
	       "1:22: keep_ended_per_user: expected a size from 1 byte to 1T, such as 64M (a whole "
	       "number with K, M, G or T, powers of 1024), not 'unlimited'", NULL);
	errors("max_queued_per_user: 0\n", "max_queued_per_user: 0",
	       "1:22: max_queued_per_user: 0 would allow no jobs at all; write unlimited for no "
	       "limit", NULL);
	errors("max_running_per_user: -1\n", "max_running_per_user: negative",
	       "1:23: max_running_per_user: expected a whole number from 1 to 1000000, not '-1'",
	       NULL);
	errors("max_running_per_user: 1000001\n", "max_running_per_user: too many",
	       "1:23: max_running_per_user: expected a whole number from 1 to 1000000, not "
	       "'1000001'", NULL);
	errors("max_queued_per_user: infinite\n", "max_queued_per_user: a word",
	       "1:22: max_queued_per_user: expected a whole number from 1 to 1000000, not "
	       "'infinite'", NULL);
	errors("admin_group: 1admins\n", "admin_group: starts with a digit",
	       "1:14: admin_group: '1admins' is not a group name: 1 to 32 letters, digits, '.', "
	       "'_' or '-' (a final '$' allowed), not starting with a digit or '-'", NULL);
	errors("admin_group: a:b\n", "admin_group: a colon",
	       "1:14: admin_group: 'a:b' is not a group name: 1 to 32 letters, digits, '.', "
	       "'_' or '-' (a final '$' allowed), not starting with a digit or '-'", NULL);
	errors("admin_group: abcdefghijklmnopqrstuvwxyzabcdefg\n", "admin_group: 33 bytes",
	       "1:14: admin_group: 'abcdefghijklmnopqrstuvwxyzabcdefg' is not a group name: 1 "
	       "to 32 letters, digits, '.', '_' or '-' (a final '$' allowed), not starting with "
	       "a digit or '-'", NULL);
	errors("launch: ssh {node}\n", "launch: relative",
	       "1:9: launch: the command 'ssh {node}' must start with an absolute path", NULL);
	errors("log_level: verbose\n", "log_level: unknown",
	       "1:12: log_level: unknown level 'verbose' (error, warning, info or debug)", NULL);
	errors("keep_ended: never\n", "keep_ended: a word",
	       "1:13: keep_ended: 'never': unexpected 'n' in duration; a duration looks like 30s, 5m, 1h30m, 1d or 0:30", NULL);
	errors("keep_ended: 0s\n", "keep_ended: zero",
	       "1:13: keep_ended: '0s': a duration must be more than 0; a duration looks like 30s, 5m, 1h30m, 1d or 0:30", NULL);
}

static void node_errors(void)
{
	errors("nodes: 0\n", "nodes: 0", "1:8: nodes: '0': the partition needs from 1 to 100000 nodes",
	       NULL);
	errors("nodes: 100001\n", "nodes: a count over the bound",
	       "1:8: nodes: '100001': the partition needs from 1 to 100000 nodes", NULL);
	errors("nodes: []\n", "nodes: an empty list",
	       "1:8: nodes: the list is empty; the partition needs at least one node", NULL);
	errors("nodes: \"\"\n", "nodes: an empty string",
	       "1:8: nodes: an empty item names no node", NULL);
	errors("nodes: a,b,a\n", "nodes: a duplicate in one list",
	       "1:8: nodes: 'a,b,a': node 'a' is listed twice", NULL);
	errors("nodes: n[1-3,2]\n", "nodes: a duplicate in one range",
	       "1:8: nodes: 'n[1-3,2]': node 'n2' is listed twice", NULL);
	errors("nodes:\n  - n[1-3]\n  - m1\n  - n2\n", "nodes: a duplicate across items",
	       "4:5: nodes: node 'n2' is listed twice (first at line 2, column 5)", NULL);
	errors("nodes: [a, b, c, b, a, d, a]\n", "nodes: each repeating item reported once",
	       "1:18: nodes: node 'b' is listed twice (first at line 1, column 12)",
	       "1:21: nodes: node 'a' is listed twice (first at line 1, column 9)",
	       "1:27: nodes: node 'a' is listed twice (first at line 1, column 9)", NULL);
	errors("nodes:\n  - x[1-5]\n  - 'x[4-9]'\n", "nodes: overlapping ranges, first repeat named",
	       "3:5: nodes: node 'x4' is listed twice (first at line 2, column 5)", NULL);
	errors("nodes: node[5-3]\n", "nodes: a backward range",
	       "1:8: nodes: 'node[5-3]': range '5-3' goes backwards", NULL);
	errors("nodes:\n  - ok1\n  - bad[\n  - ''\n  - [x]\n", "nodes: every bad item",
	       "3:5: nodes: 'bad[': missing ']'",
	       "4:5: nodes: an empty item names no node",
	       "5:5: nodes: an item must be a node name or range such as node[001-016], not a "
	       "nested list or mapping", NULL);
	errors("nodes: n[1-100001]\n", "nodes: a range over the bound",
	       "1:8: nodes: more than 100000 nodes in the partition", NULL);
	errors("nodes:\n  - n[1-60000]\n  - m[1-40001]\n", "nodes: items over the bound together",
	       "3:5: nodes: more than 100000 nodes in the partition", NULL);
	errors("nodes: [\"16\"]\n", "nodes: one all-digit name would read as a count",
	       "1:9: nodes: a single node named '16' would read as a count of nodes; write nodes: "
	       "16 for node001.., or name the node otherwise", NULL);
}

/* ---- syntax errors, and several errors at once ---- */

static void syntax_errors(void)
{
	/* libyaml reads "easy nodes" as one value before it finds the ':'. */
	errors("policy: easy\n  nodes: 4\n", "a mapping value where none may be",
	       "1:9: policy: unknown policy 'easy nodes' (fcfs, easy, conservative or creasy)",
	       "2:8: syntax error: mapping values are not allowed in this context", NULL);
	errors("nodes: [a, b\npolicy: easy\n", "an unclosed flow list",
	       "2:7: syntax error: did not find expected ',' or ']' (while parsing a flow sequence)",
	       NULL);
	errors("policy: 'easy\n", "an unclosed quote",
	       "2:1: syntax error: found unexpected end of stream (while scanning a quoted scalar)",
	       NULL);
	errors("\tpolicy: easy\n", "a tab as indentation",
	       "1:1: syntax error: found character that cannot start any token (while scanning "
	       "for the next token)", NULL);
	errors("policy: easy\npartition: b\xff\n", "bad UTF-8, its position counted in characters",
	       "2:13: syntax error: invalid leading UTF-8 octet", NULL);
	errors("partition: \xc3\xa9t\xc3\xa9\npolicy: x\xff\n", "bad UTF-8 after multibyte text",
	       "2:10: syntax error: invalid leading UTF-8 octet", NULL);
	errors("polcy: easy\nmax_nodes: 0\nnodes: [a\n", "errors before a syntax error are kept",
	       "1:1: unknown key 'polcy' (did you mean policy?)",
	       "2:12: max_nodes: expected a whole number from 1 to 100000, not '0'",
	       "4:1: syntax error: did not find expected ',' or ']' (while parsing a flow sequence)",
	       NULL);
	errors("default_limit: 2:00\nmax_limit: 1:00\nbogus: [\n",
	       "after a syntax error: no cross-key checks, the key still reported",
	       "3:1: unknown key 'bogus'",
	       "4:1: syntax error: did not find expected node content (while parsing a flow node)",
	       NULL);
}

static void many_errors(void)
{
	errors("# a file with many mistakes\n"
	       "partition: 9lives\n"
	       "nodes:\n"
	       "  - n[1-4]\n"
	       "  - n3\n"
	       "policy: easy\n"
	       "max_limit: 1h\n"
	       "polcy: fcfs\n"
	       "default_limit: 2h\n"
	       "kill_grace: -1s\n"
	       "policy: fcfs\n"
	       "socket_mode: 0400\n"
	       "max_nodes: 99\n"
	       "log_level: loud\n",
	       "every error of a file together, in order",
	       "2:12: partition: '9lives' is not a name: 1 to 63 letters, digits, '.', '_' or '-', "
	       "starting with a letter",
	       "5:5: nodes: node 'n3' is listed twice (first at line 4, column 5)",
	       "7:12: max_limit 1:00:00 is below default_limit 2:00:00 (line 9)",
	       "8:1: unknown key 'polcy' (did you mean policy?)",
	       "10:13: kill_grace: '-1s' is negative",
	       "11:1: policy is given twice (first at line 6, column 1)",
	       "12:14: socket_mode: '0400' takes reading or writing from the daemon itself: from "
	       "0600 to 0777",
	       "14:12: log_level: unknown level 'loud' (error, warning, info or debug)", NULL);
}

/* The EXAMPLE and ERRORS sections of backfilld.yaml(5), as printed there. */
static void man_page(void)
{
	VALID("# A 128-node partition with conservative backfilling.\n"
	      "partition: compute\n"
	      "nodes:\n"
	      "  - node[001-120]\n"
	      "  - gpu[01-08]\n"
	      "policy: conservative\n"
	      "socket: /run/backfilld/backfilld.sock\n"
	      "socket_mode: \"0660\"\n"
	      "database: /var/lib/backfilld/state.db\n"
	      "spool: /var/spool/backfilld\n"
	      "kill_grace: 1m\n"
	      "default_limit: 1:00\n"
	      "max_limit: 2d\n"
	      "max_nodes: 64\n"
	      "max_queued_per_user: 500\n"
	      "max_running_per_user: unlimited\n"
	      "admin_group: hpcadmin\n"
	      "launch: /usr/bin/ssh {node}\n"
	      "log_level: info\n"
	      "keep_ended: 90d\n",
	      c->nnodes == 128 && streq(c->nodes, "node[001-120],gpu[01-08]") &&
	      c->policy == SCHED_CONSERVATIVE && c->socket_mode == 0660 &&
	      c->kill_grace == MIN && c->default_limit == H && c->max_limit == 2 * D &&
	      c->max_nodes == 64 && c->max_queued_per_user == 500 && c->keep_ended == 90 * D,
	      "the man page's EXAMPLE");
	errors("# x\n"
	       "partition: batch\n"
	       "policy: easyy\n"
	       "socket_mode: \"0666\"\n"
	       "nodes:\n"
	       "  - n[1-4]\n"
	       "  - n3\n"
	       "default_limit: 2h\n"
	       "max_limit: 1:00\n"
	       "log_level: info\n"
	       "polcy: fcfs\n"
	       "kill_grace: -5s\n",
	       "the man page's ERRORS example",
	       "3:9: policy: unknown policy 'easyy' (fcfs, easy, conservative or creasy)",
	       "7:5: nodes: node 'n3' is listed twice (first at line 6, column 5)",
	       "9:12: max_limit 1:00:00 is below default_limit 2:00:00 (line 8)",
	       "11:1: unknown key 'polcy' (did you mean policy?)",
	       "12:13: kill_grace: '-5s' is negative", NULL);
}

/* ---- bounds and files ---- */

static void bounds(void)
{
	size_t big = CONF_MAX_FILE + 1;
	char *text = malloc(big + 1);
	struct conf_errors e;
	struct conf cf;
	int rc;

	if (!ok(text != NULL, "memory for the size tests"))
		return;
	/* Exactly 1 MiB (a long comment) is fine; one byte more is not. */
	memset(text, ' ', big);
	text[0] = '#';
	text[CONF_MAX_FILE - 1] = '\n';
	text[CONF_MAX_FILE] = 0;
	rc = load_len(text, CONF_MAX_FILE, &cf, &e);
	ok(rc == 0, "a file of exactly 1 MiB is read");
	conf_errors_free(&e);
	conf_free(&cf);
	text[CONF_MAX_FILE] = '\n';
	text[big] = 0;
	errors(text, "a file over 1 MiB", "1:1: the file is larger than 1 MiB (1048576 bytes)", NULL);

	/* A string of 4096 bytes is kept; 4097 is refused. */
	memcpy(text, "launch: /", 9);
	memset(text + 9, 'x', 4095);
	strcpy(text + 9 + 4095, "\n");
	VALID(text, c->launch && strlen(c->launch) == 4096, "a 4096-byte string");
	memcpy(text, "launch: /", 9);
	memset(text + 9, 'x', 4096);
	strcpy(text + 9 + 4096, "\n");
	errors(text, "a 4097-byte string", "1:9: launch: the value has 4097 bytes, more than 4096",
	       NULL);

	/* A socket path of 107 bytes fits sun_path; 108 does not. */
	strcpy(text, "socket: /");
	memset(text + 9, 's', 106);
	strcpy(text + 9 + 106, "\n");
	VALID(text, c->socket && strlen(c->socket) == 107, "socket: a 107-byte path");
	strcpy(text, "socket: /");
	memset(text + 9, 's', 107);
	strcpy(text + 9 + 107, "\n");
	errors(text, "socket: a 108-byte path",
	       "1:9: socket: the path has 108 bytes; a Unix socket path has at most 107", NULL);

	/* Too many errors: the first CONF_MAX_ERRORS are kept, the rest counted. */
	text[0] = 0;
	for (int i = 0; i < 300; i++)
		sprintf(text + strlen(text), "k%d: 1\n", i);
	rc = load(text, &cf, &e);
	ok(rc == 300 && e.n == CONF_MAX_ERRORS && e.dropped == 100 &&
	   strstr(e.v[0].text, ":1:1: unknown key 'k0'") &&
	   strstr(e.v[CONF_MAX_ERRORS - 1].text, ":200:1: unknown key 'k199'"),
	   "300 errors: 200 kept in order, 100 counted");
	conf_errors_free(&e);
	conf_free(&cf);

	/* A deep nest of an unknown key's value is skipped, not recursed into. */
	memset(text, '[', 100000);
	memcpy(text, "deep: ", 6);
	memset(text + 100000, ']', 100000 - 6);
	strcpy(text + 200000 - 6, "\npolicy: fcfs\n");
	errors(text, "a deeply nested value is skipped", "1:1: unknown key 'deep'", NULL);

	/* Long unknown keys are cut in the message (YAML allows 1024 characters). */
	memset(text, 'k', 1000);
	strcpy(text + 1000, ": 1\n");
	errors(text, "a 1000-byte key",
	       "1:1: unknown key 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...'", NULL);
	free(text);
}

static void files(void)
{
	struct conf_errors e = { 0 };
	struct conf c;
	char p[600], *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	snprintf(p, sizeof p, "%s/missing.yaml", dir);
	if (conf_init(&c) < 0)
		return;
	rc = conf_load(&c, p, &e);
	ok(rc == 1 && e.n == 1 && e.v[0].line == 0 && strstr(e.v[0].text, "/missing.yaml: cannot "
	   "open: No such file or directory"), "a missing file: FILE: cannot open: ...");
	conf_errors_free(&e);
	rc = conf_load(&c, dir, &e);
	ok(rc == 1 && e.n == 1 && strstr(e.v[0].text, ": cannot read: not a regular file"),
	   "a directory: not a regular file");

	/* conf_errors_print: one line each, then the count of dropped ones. */
	e.dropped = 7;
	f = open_memstream(&buf, &len);
	if (f) {
		conf_errors_print(&e, f);
		fclose(f);
		ok(buf && strstr(buf, ": cannot read: not a regular file\n... and 7 more errors\n"),
		   "conf_errors_print: the messages, then the dropped count");
	}
	free(buf);
	conf_errors_free(&e);
	conf_free(&c);

	/* The in-memory entry point names the text as told. */
	memset(&e, 0, sizeof e);
	if (conf_init(&c) == 0) {
		rc = conf_load_buffer(&c, "inline", "nodes: 3\npolicy: fcfs\nx: 1\n", 27, &e);
		ok(rc == 1 && e.n == 1 && streq(e.v[0].text, "inline:3:1: unknown key 'x'") &&
		   c.nnodes == 3 && c.policy == SCHED_FCFS, "conf_load_buffer");
	}
	conf_errors_free(&e);
	conf_free(&c);
	ok(streq(conf_key_name(CONF_K_MAX_RUNNING_PER_USER), "max_running_per_user") &&
	   streq(conf_log_level_name(CONF_LOG_WARNING), "warning") &&
	   streq(conf_key_name(CONF_NKEYS), "?"), "key and level names");
}

/* execution: ssh and the keys of a cluster (backfilld(8), "Cluster"). */
static void cluster_keys(void)
{
	VALID("policy: easy\n", c->execution == CONF_EXEC_LOCAL && !c->ssh_destination &&
	      !c->ssh_key && !c->ssh_config && c->node_timeout == 30 * BF_SEC,
	      "cluster: local by default, node_timeout 30 s");
	VALID("execution: ssh\nssh_destination: root@%n.cluster\nssh_key: /etc/k\n"
	      "ssh_config: /etc/c\nssh_known_hosts: /etc/kh\nssh_control_dir: /run/x\n"
	      "node_command: /opt/bf/backfilld --node --cgroup none\nnode_timeout: 2m\n",
	      c->execution == CONF_EXEC_SSH && streq(c->ssh_destination, "root@%n.cluster") &&
	      streq(c->ssh_key, "/etc/k") && streq(c->ssh_config, "/etc/c") &&
	      streq(c->ssh_known_hosts, "/etc/kh") && streq(c->ssh_control_dir, "/run/x") &&
	      streq(c->node_command, "/opt/bf/backfilld --node --cgroup none") &&
	      c->node_timeout == 120 * BF_SEC, "cluster: every key");
	VALID("ssh_config: none\n", !c->ssh_config && c->set[CONF_K_SSH_CONFIG],
	      "cluster: ssh_config none");
	VALID("node_timeout: 3s\n", c->node_timeout == 3 * BF_SEC, "cluster: node_timeout 3s");
	errors("execution: remote\n", "execution: unknown",
	       "1:12: execution: 'remote' is neither local (jobs run on this host) nor ssh (on "
	       "their nodes, over ssh)", NULL);
	errors("ssh_key: id_ed25519\n", "ssh_key: relative",
	       "1:10: ssh_key: 'id_ed25519' is not an absolute path without blanks", NULL);
	errors("ssh_destination: \"-oProxyCommand=x %n\"\n", "ssh_destination: an option",
	       "1:18: ssh_destination: '-oProxyCommand=x %n' must be one word, not starting with "
	       "'-' (%n stands for the node's name)", NULL);
	errors("node_command: backfilld --node\n", "node_command: relative",
	       "1:15: node_command: the command 'backfilld --node' must start with an absolute "
	       "path", NULL);
	errors("node_timeout: 30\n", "node_timeout: no unit",
	       "1:15: node_timeout: a bare number '30' is ambiguous: write a unit, as in 30s", NULL);
	errors("node_timeout: 2s\n", "node_timeout: too short",
	       "1:15: node_timeout: '2s' is not between 3 seconds and a day", NULL);
	errors("execution: ssh\nlaunch: /usr/bin/ssh {node}\n", "launch with execution: ssh",
	       "2:9: launch: not with execution: ssh (line 1), which runs each job on its nodes "
	       "itself", NULL);
}

int main(void)
{
	char cmd[600];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	example_file();
	empty_files();
	valid_scalars();
	valid_nodes();
	cluster_keys();
	key_errors();
	type_errors();
	value_errors();
	node_errors();
	syntax_errors();
	many_errors();
	man_page();
	bounds();
	files();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
