/* backfilld: the command line. Without --replay it serves: the live daemon
 * on a Unix socket; with --replay FILE it replays a trace and reports. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <event2/event.h>
#include "decimal.h"
#include "duration.h"
#include "nodelist.h"
#include "paths.h"
#include "sched.h"
#include "sys/conf.h"
#include "sys/failpoint.h"
#include "sys/log.h"
#include "sys/node.h"
#include "sys/proctitle.h"
#include "sys/settings.h"
#include "serve/daemon.h"
#include "serve/sd.h"
#include "serve/server.h"
#include "whatif/replay.h"
#include "whatif/site.h"

#ifndef BACKFILLD_VERSION
#define BACKFILLD_VERSION "0.1"
#endif

static void usage(FILE *f)
{
	fprintf(f,
"usage: backfilld [--config FILE] [--socket PATH] [--db PATH] [--spool DIR]\n"
"                 [--nodes N|LIST] [--policy fcfs|easy|conservative|creasy] [--alpha A]\n"
"                 [--kill-grace TIME] [--launch PREFIX] [--foreground] [--cgroup DIR|none]\n"
"       backfilld --check-config [FILE]\n"
"       backfilld --node [--dir DIR] [--cgroup DIR|none] [--blaunch PATH]\n"
"       backfilld --replay FILE [--policy P[,P..]] [--estimates M[,M..]] [...]\n"
"       backfilld --characterize TRACE [--model-out FILE]\n"
"       backfilld --site MODEL --users N[,N..] --days D [--policy P[,P..]] [...]\n"
"       backfilld --help | --version\n"
"\n"
"Serve: run the batch scheduler on a Unix socket (bsub, bq, bkill talk to it).\n"
"  --config FILE     the configuration, backfilld.yaml(5) (default, as root: " SETTINGS_DEFAULT_FILE "\n"
"                    when it exists); a flag below wins over the file; SIGHUP re-reads it\n"
"  --check-config [FILE]  check the file (default: --config's, else the system's),\n"
"                    print every error as FILE:LINE:COLUMN, exit 0 if it is valid\n"
"  --socket PATH     listen here (root: /run/backfilld/backfilld.sock; others:\n"
"                    $XDG_RUNTIME_DIR/backfilld/backfilld.sock, else\n"
"                    /tmp/backfilld-UID/backfilld.sock)\n"
"  --db PATH         the SQLite state (root: /var/lib/backfilld/state.db; others:\n"
"                    $XDG_STATE_HOME/backfilld/state.db, else ~/.local/state/backfilld/state.db)\n"
"  --spool DIR       scripts and job records (root: /var/spool/backfilld; others:\n"
"                    the spool directory beside that state.db)\n"
"  --nodes N|LIST    the partition: N nodes named node001.., or a list such as\n"
"                    node[001-128] (default 16)\n"
"  --policy P        fcfs, easy (default), conservative or creasy backfilling\n"
"  --alpha A         creasy's weight of criticality, 0 to 1e9 (needed with creasy;\n"
"                    0 gives easy's order)\n"
"  --kill-grace TIME between SIGTERM and SIGKILL for a job at its limit (default 30 s;\n"
"                    a number is seconds, or 2m, 1m30s, ...)\n"
"  --launch PREFIX   run each script through this command; {node} stands for the\n"
"                    job's first node (e.g. \"/usr/bin/ssh {node}\")\n"
"  --foreground      stay in the foreground and log to standard error\n"
"  --cgroup DIR|none run each job in a cgroup under this cgroup2 directory (default:\n"
"                    the daemon's own, if delegated); none: process groups only\n"
"  --node            the node side of a cluster job, started over ssh on each of\n"
"                    its nodes (execution: ssh; backfilld(8), \"Cluster\")\n"
"\n"
"Exit status: 0 done, 1 failed (replay failed; the daemon could not start; an\n"
"invalid configuration),\n"
"2 usage error, 75 the daemon's store failed while serving. See backfilld(8).\n\n");
	replay_usage(f);
	fputc('\n', f);
	site_usage(f);
}

/* The grace: a plain number is seconds (never minutes, as a bare number
 * is in a time limit); otherwise the time-limit grammar (2m, 1m30s). */
static int parse_grace(const char *arg, bf_time *out)
{
	char err[200];
	uint32_t secs;

	if (arg[0] >= '0' && arg[0] <= '9' && strspn(arg, "0123456789") == strlen(arg)) {
		if (decimal_parse_u32(arg, 0, 7 * 86400, &secs) < 0) {
			fprintf(stderr, "backfilld: --kill-grace %s: at most a week (604800 s)\n", arg);
			return -1;
		}
		*out = (bf_time)secs * BF_SEC;
		return 0;
	}
	if (duration_parse(arg, out, err, sizeof err) < 0) {
		fprintf(stderr, "backfilld: --kill-grace %s: %s\n", arg, err);
		return -1;
	}
	if (*out > 7 * 86400 * BF_SEC) {
		fprintf(stderr, "backfilld: --kill-grace %s: at most a week\n", arg);
		return -1;
	}
	return 0;
}

/* The configuration in force: the file (if any) under the command line's
 * flags. Lives as long as the daemon: serve_opts points into it. */
static struct conf config;

/* Read the file --config names, or as root the system's if it exists,
 * and take from it what no flag gave. Returns 0, or 1 (reported) if it is
 * invalid. */
static int apply_config(struct serve_opts *so, bool root)
{
	int n;

	/* The system's file names root's paths: a daemon run by a user (make
	 * run) keeps its own unless it is named. (A relative path stays
	 * valid: detaching keeps the directory.) */
	if (!so->config && access(SETTINGS_DEFAULT_FILE, F_OK) == 0) {
		if (root)
			so->config = SETTINGS_DEFAULT_FILE;
		else
			fprintf(stderr, "backfilld: not reading %s: it is the system daemon's (run as "
			        "root); --config names it\n", SETTINGS_DEFAULT_FILE);
	}
	if (!so->config) {
		if (conf_init(&config) < 0) {
			log_start_error("out of memory");
			return 1;
		}
		settings_limits(&config, &so->lim);
		so->partition_name = config.partition;
		return 0;
	}
	/* Under systemd each error reaches the journal as one. */
	n = log_to_journal() ? settings_read_logged(so->config, &config) :
	                       settings_read(so->config, &config, stderr);
	if (n != 0) {
		if (n > 0)
			log_start_error("%s: %d error%s; not starting", so->config, n,
			                n == 1 ? "" : "s");
		else
			log_start_error("out of memory reading %s", so->config);
		return 1;
	}
	/* Absolute, for bctl status and the log (a symbolic link is kept as
	 * such: a reload reads where it points then). */
	if (so->config[0] != '/') {
		static char whole[PATH_MAX];
		char cwd[PATH_MAX];

		if (getcwd(cwd, sizeof cwd) &&
		    snprintf(whole, sizeof whole, "%s/%s", cwd, so->config) < (int)sizeof whole)
			so->config = whole;
	}
	if (!(so->flags & SF_SOCKET) && config.socket)
		so->socket = config.socket;
	if (!(so->flags & SF_DB) && config.database)
		so->db = config.database;
	if (!(so->flags & SF_SPOOL) && config.spool)
		so->spool = config.spool;
	if (!(so->flags & SF_NODES) && config.set[CONF_K_NODES])
		so->nodes = config.nodes;
	if (!(so->flags & SF_POLICY) && config.set[CONF_K_POLICY])
		so->policy = config.policy;
	if (!(so->flags & SF_ALPHA) && config.set[CONF_K_ALPHA]) {
		so->alpha = config.alpha;
		so->flags |= SF_ALPHA_FILE;
	}
	if (!(so->flags & SF_GRACE) && config.set[CONF_K_KILL_GRACE])
		so->kill_grace = config.kill_grace;
	if (!(so->flags & SF_LAUNCH) && config.launch)
		so->launch = config.launch;
	if (config.set[CONF_K_SOCKET_MODE])
		so->socket_mode = config.socket_mode;
	so->partition_name = config.partition;
	settings_limits(&config, &so->lim);
	if (config.execution == CONF_EXEC_SSH) {
		static struct runner_remote remote;

		if (so->launch) {
			log_start_error("--launch: not with execution: ssh, which runs each job on its "
			                "nodes itself");
			return 1;
		}
		remote = (struct runner_remote){
			.ssh = "/usr/bin/ssh",
			.destination = config.ssh_destination ? config.ssh_destination : "%n",
			.key = config.ssh_key ? config.ssh_key : "/etc/backfilld/ssh/id_ed25519",
			.config = config.ssh_config,
			.known_hosts = config.ssh_known_hosts ? config.ssh_known_hosts :
			               "/etc/backfilld/ssh/known_hosts",
			.node_command = config.node_command ? config.node_command :
			                "/usr/sbin/backfilld --node",
			.control_dir = config.ssh_control_dir ? config.ssh_control_dir :
			               "/run/backfilld/ssh",
			.timeout_ms = config.node_timeout / 1000,
		};
		so->remote = &remote;
	}
	return 0;
}

/* --check-config: every error, and nothing else done. */
static int check_config(const char *path)
{
	struct conf c;
	int n;

	if (!path && access(SETTINGS_DEFAULT_FILE, F_OK) < 0) {
		fprintf(stderr, "backfilld: no configuration file: %s does not exist (name one: "
		        "--check-config FILE)\n", SETTINGS_DEFAULT_FILE);
		return 1;
	}
	if (!path)
		path = SETTINGS_DEFAULT_FILE;
	n = settings_read(path, &c, stderr);
	conf_free(&c);
	if (n == 0) {
		printf("%s: valid\n", path);
		return 0;
	}
	if (n > 0)
		fprintf(stderr, "backfilld: %s: %d error%s\n", path, n, n == 1 ? "" : "s");
	else
		fprintf(stderr, "backfilld: out of memory reading %s\n", path);
	return 1;
}

/* Serve until stopped. Start-up errors are reported before detaching. */
static int serve(struct serve_opts *so)
{
	static struct daemon d;	/* large; lives as long as the process */
	char err[1024], sock[512], db[512], spool[512];
	bool root = geteuid() == 0;
	int rc;

	log_init(false);	/* where start-up errors go (the journal, or stderr) */
	if (apply_config(so, root) != 0)
		return 1;
	if (so->policy == SCHED_CREASY && !(so->flags & (SF_ALPHA | SF_ALPHA_FILE))) {
		log_start_error("policy creasy needs its alpha (--alpha A, or alpha: in the "
		                "configuration file; 0 gives easy's order)");
		return 2;
	}
	if (!so->socket && paths_default_socket(root, sock, sizeof sock) == 0) {
		so->socket = sock;
		/* Not root: the default may be in /tmp, where another user could
		 * have made the directory first (paths.h). */
		if (!root && paths_private_dir(sock, true, err, sizeof err) < 0) {
			log_start_error("the default socket %s: %s", sock, err);
			return 1;
		}
	}
	if (!so->db && paths_default_db(root, db, sizeof db) == 0)
		so->db = db;
	if (!so->spool && paths_default_spool(root, spool, sizeof spool) == 0)
		so->spool = spool;
	if (!so->socket || !so->db || !so->spool) {
		log_start_error("no absolute default path (is $HOME set?) or it does not fit; give "
		                "--socket, --db, --spool");
		return 1;
	}
	log_set_level(so->lim.log_level);
	if (server_init(&d, so, err, sizeof err) < 0) {
		log_start_error("%s", err);
		server_free(&d);
		return 1;
	}
	/* Under a service manager that waits for READY=1 (NOTIFY_SOCKET: the
	 * unit is Type=notify) the daemon stays the main process, detach or not. */
	if (!so->foreground && !sysd_managed()) {
		/* Detach now that start-up worked; keep the working directory so
		 * relative paths given on the command line stay valid. */
		if (daemon(1, 0) < 0 || event_reinit(d.base) < 0) {
			fprintf(stderr, "backfilld: cannot detach: %s\n", strerror(errno));
			return 1;
		}
		log_init(true);
	}
	rc = server_run(&d);
	server_free(&d);
	return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	enum { O_SOCKET = 256, O_DB, O_SPOOL, O_GRACE, O_LAUNCH, O_FOREGROUND, O_CONFIG,
	       O_CHECK_CONFIG, O_CGROUP, O_ALPHA };
	static const struct option longopts[] = {
		{ "replay", required_argument, NULL, 'r' },
		{ "policy", required_argument, NULL, 'p' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "jobs-out", required_argument, NULL, 'o' },
		{ "check", no_argument, NULL, 'c' },
		{ "lenient", no_argument, NULL, 'l' },
		{ "socket", required_argument, NULL, O_SOCKET },
		{ "db", required_argument, NULL, O_DB },
		{ "spool", required_argument, NULL, O_SPOOL },
		{ "kill-grace", required_argument, NULL, O_GRACE },
		{ "launch", required_argument, NULL, O_LAUNCH },
		{ "foreground", no_argument, NULL, O_FOREGROUND },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "check-config", no_argument, NULL, O_CHECK_CONFIG },
		{ "cgroup", required_argument, NULL, O_CGROUP },
		{ "alpha", required_argument, NULL, O_ALPHA },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct serve_opts so = { .policy = SCHED_EASY, .kill_grace = 30 * BF_SEC, .nodes = "16" };
	const char *nodes = NULL, *replay_only = NULL;
	bool checking = false;
	int c;

	/* The tests' knobs, read once, before any fork or thread (failpoint.h). */
	failpoint_init();
	/* Replay mode has its own command line (replay_cli.c). */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--replay") == 0 || strncmp(argv[i], "--replay=", 9) == 0)
			return replay_main(argc, argv);
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--site") == 0 || strncmp(argv[i], "--site=", 7) == 0 ||
		    strcmp(argv[i], "--characterize") == 0 ||
		    strncmp(argv[i], "--characterize=", 15) == 0)
			return site_main(argc, argv);
	/* The node side, on a cluster node, started over ssh (node.h): first
	 * on its command line, and nothing of the daemon's is read. */
	if (argc > 1 && strcmp(argv[1], "--node") == 0) {
		proctitle_init(argc, argv);
		return node_main(argc, argv);
	}
	proctitle_init(argc, argv);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':	/* handled above */
			break;
		case 'p':
			if (sched_policy_parse(optarg, &so.policy) < 0) {
				fprintf(stderr, "backfilld: --policy: unknown policy '%s' "
				        "(fcfs, easy, conservative or creasy)\n", optarg);
				return 2;
			}
			so.flags |= SF_POLICY;
			break;
		case 'n':
			nodes = optarg;
			break;
		case 'f':
			replay_only = "--format";
			break;
		case 'o':
			replay_only = "--jobs-out";
			break;
		case 'c':
			replay_only = "--check";
			break;
		case 'l':
			replay_only = "--lenient";
			break;
		case O_SOCKET:
			so.socket = optarg;
			so.flags |= SF_SOCKET;
			break;
		case O_DB:
			so.db = optarg;
			so.flags |= SF_DB;
			break;
		case O_SPOOL:
			so.spool = optarg;
			so.flags |= SF_SPOOL;
			break;
		case O_GRACE:
			if (parse_grace(optarg, &so.kill_grace) < 0)
				return 2;
			so.flags |= SF_GRACE;
			break;
		case O_LAUNCH:
			if (optarg[0] != '/') {
				fprintf(stderr, "backfilld: --launch: the command must be an absolute path\n");
				return 2;
			}
			so.launch = optarg;
			so.flags |= SF_LAUNCH;
			break;
		case O_FOREGROUND:
			so.foreground = true;
			break;
		case O_CGROUP:
			if (strcmp(optarg, "none") != 0 && optarg[0] != '/') {
				fprintf(stderr, "backfilld: --cgroup: an absolute directory, or none\n");
				return 2;
			}
			so.cgroup = optarg;
			break;
		case O_ALPHA:
			if (sched_alpha_parse(optarg, &so.alpha) < 0) {
				fprintf(stderr, "backfilld: --alpha %s: expected a number from 0 to 1e9\n",
				        optarg);
				return 2;
			}
			so.flags |= SF_ALPHA;
			break;
		case O_CONFIG:
			so.config = optarg;
			break;
		case O_CHECK_CONFIG:
			checking = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("backfilld %s\n", BACKFILLD_VERSION);
			return 0;
		case ':':
			/* optopt is the option's val: name it as it was typed. */
			for (const struct option *lo = longopts; lo->name; lo++)
				if (lo->val == optopt)
					fprintf(stderr, "backfilld: option --%s needs a value\n", lo->name);
			fprintf(stderr, "Try 'backfilld --help' for more information.\n");
			return 2;
		default:
			fprintf(stderr, "backfilld: unknown option '%s'\nTry 'backfilld --help' for more "
			        "information.\n", argv[optind - 1]);
			return 2;
		}
	}
	if (checking) {
		/* --check-config [FILE]: the file may follow as an argument. */
		if (optind < argc - 1 || (optind < argc && so.config)) {
			fprintf(stderr, "backfilld: --check-config takes one file\n");
			return 2;
		}
		return check_config(optind < argc ? argv[optind] : so.config);
	}
	if (optind < argc) {
		fprintf(stderr, "backfilld: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (replay_only) {
		fprintf(stderr, "backfilld: %s goes with --replay\n", replay_only);
		return 2;
	}
	if (nodes) {
		struct nodelist nl;
		char err[300];
		uint32_t n;

		/* A partition: a count, or a node list (checked here, so
		 * a bad one is a usage error as in replay mode). */
		if (nodes[0] >= '0' && nodes[0] <= '9' &&
		    strspn(nodes, "0123456789") == strlen(nodes)) {
			if (decimal_parse_u32(nodes, 1, NODELIST_MAX, &n) < 0) {
				fprintf(stderr, "backfilld: --nodes %s: from 1 to %u nodes\n",
				        nodes, NODELIST_MAX);
				return 2;
			}
		} else if (nodelist_parse(nodes, &nl, err, sizeof err) < 0) {
			fprintf(stderr, "backfilld: --nodes %s: %s\n", nodes, err);
			return 2;
		} else {
			nodelist_free(&nl);
		}
		so.nodes = nodes;
		so.flags |= SF_NODES;
	}
	return serve(&so);
}
