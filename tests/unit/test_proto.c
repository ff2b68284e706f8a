/* The wire protocol: round trips, framing, strict decoding, mutations,
 * and the fuzzer's seed corpus through the fuzzer's own checks. */
#include <dirent.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include "proto.h"
/* Before anything named err is in scope: the oracle's locals would shadow it. */
#include "fuzz/proto_oracle.h"
#include "tap.h"

static char err[256];

static int frame_ok(const struct proto_buf *b, enum proto_type want)
{
	size_t n;
	enum proto_type t;

	return proto_frame(b->p, b->len, &n, &t, err, sizeof err) == 1 && n == b->len && t == want;
}

static void round_trips(void)
{
	struct proto_buf b;
	struct proto_arena a = { 0 };
	const char *argv[] = { "one", "two words", "" };
	const char *env[] = { "HOME=/root", "EMPTY=" };
	const uint8_t script[] = "#!/bin/sh\n\0binary is fine\n";
	struct proto_submit s = {
		.nodes = 64, .estimate = 7200 * BF_SEC, .name = "sim", .script = script,
		.script_len = sizeof script, .cwd = "/home/u", .out = "o.txt", .argv = argv,
		.argc = 3, .env = env, .envc = 2,
	}, s2;
	struct proto_list l = { .all_users = true }, l2;
	uint64_t ids[] = { 1, 5, UINT64_MAX };
	enum proto_err codes[] = { PE_OK, PE_DENIED, PE_NOJOB };
	struct proto_cancel c = { ids, 3, 0 }, c2;
	struct proto_cancelled cd = { ids, codes, 3 }, cd2;
	struct proto_job jobs[2] = {
		{ .id = 7, .uid = 1000, .user = "alice", .name = "a", .state = "running", .nodes = 4,
		  .estimate = 60 * BF_SEC, .submit = 1, .start = 2, .end = 3, .start_kind = PS_ACTUAL,
		  .has_exit = false, .node_list = "node[001-004]" },
		{ .id = 8, .uid = 0, .state = "queued", .nodes = 2, .estimate = 1, .submit = 5,
		  .start = 9, .end = 10, .start_kind = PS_PREDICTED },
	};
	struct proto_jobs js = { .jobs = jobs, .count = 2 }, js2;
	struct proto_step steps[] = { { 0, 10 }, { 100, -2 } };
	struct proto_steps st = { 16, steps, 2 }, st2;
	struct proto_submitted sd = { 42, 123456789, PS_GUARANTEED, 600 * BF_SEC, 0 }, sd2;
	struct proto_error e = { PE_TOOBIG, "64 nodes asked, the partition has 32" }, e2;

	proto_buf_init(&b);
	ok(proto_enc_submit(&b, &s) == 0 && frame_ok(&b, PT_SUBMIT), "submit encodes to one frame");
	ok(proto_dec_submit(b.p, b.len, &s2, &a, err, sizeof err) == 0, "submit decodes (%s)", err);
	ok(s2.nodes == 64 && s2.estimate == 7200 * BF_SEC && strcmp(s2.name, "sim") == 0 &&
	   s2.script_len == sizeof script && memcmp(s2.script, script, sizeof script) == 0 &&
	   strcmp(s2.cwd, "/home/u") == 0 && strcmp(s2.out, "o.txt") == 0 && s2.err == NULL,
	   "submit: every field back, the script byte for byte");
	ok(s2.argc == 3 && strcmp(s2.argv[1], "two words") == 0 && s2.argv[2][0] == 0 &&
	   s2.envc == 2 && strcmp(s2.env[1], "EMPTY=") == 0, "submit: arguments and environment in order");
	proto_arena_free(&a);

	ok(proto_enc_list(&b, PT_LIST, &l) == 0 && proto_dec_list(b.p, b.len, &l2, err, sizeof err) == 0 &&
	   l2.all_users && !l2.has_job, "list round trip");
	l = (struct proto_list){ .has_job = true, .job = 99 };
	ok(proto_enc_list(&b, PT_INFO, &l) == 0 && proto_dec_list(b.p, b.len, &l2, err, sizeof err) == 0 &&
	   l2.has_job && l2.job == 99, "info round trip");
	ok(proto_enc_list(&b, PT_LIST, &(struct proto_list){ .has_ended = true, .ended = 0 }) == 0 &&
	   proto_dec_list(b.p, b.len, &l2, err, sizeof err) == 0 && l2.has_ended && l2.ended == 0,
	   "list: ended 0 (none) is sent and read back");
	ok(proto_enc_list(&b, PT_LIST, &(struct proto_list){ 0 }) == 0 &&
	   proto_dec_list(b.p, b.len, &l2, err, sizeof err) == 0 && !l2.has_ended,
	   "list: without ended, the daemon's default");
	ok(proto_enc_list(&b, PT_LIST, &(struct proto_list){ .has_ended = true,
	                                                     .ended = PROTO_MAX_ENDED + 1 }) == 0 &&
	   proto_dec_list(b.p, b.len, &l2, err, sizeof err) < 0 && strstr(err, "'ended' must be"),
	   "list: ended past PROTO_MAX_ENDED is refused (%s)", err);
	proto_enc_list(&b, PT_INFO, &(struct proto_list){ 0 });
	ok(proto_dec_list(b.p, b.len, &l2, err, sizeof err) < 0, "info without a job id is refused");
	ok(proto_enc_cancel(&b, &c) == 0 && proto_dec_cancel(b.p, b.len, &c2, &a, err, sizeof err) == 0 &&
	   c2.count == 3 && c2.ids[2] == UINT64_MAX, "cancel round trip");
	proto_arena_free(&a);
	ok(proto_enc_cancelled(&b, &cd) == 0 &&
	   proto_dec_cancelled(b.p, b.len, &cd2, &a, err, sizeof err) == 0 && cd2.count == 3 &&
	   cd2.codes[1] == PE_DENIED && cd2.ids[1] == 5, "cancelled round trip");
	proto_arena_free(&a);
	ok(proto_enc_jobs(&b, &js) == 0 && proto_dec_jobs(b.p, b.len, &js2, &a, err, sizeof err) == 0,
	   "jobs round trip (%s)", err);
	ok(js2.count == 2 && js2.jobs[0].id == 7 && strcmp(js2.jobs[0].user, "alice") == 0 &&
	   strcmp(js2.jobs[0].node_list, "node[001-004]") == 0 && js2.jobs[0].start_kind == PS_ACTUAL &&
	   js2.jobs[1].user == NULL && js2.jobs[1].start_kind == PS_PREDICTED && js2.jobs[1].start == 9,
	   "jobs: fields and start kinds back");
	proto_arena_free(&a);
	js.total = 5000;
	ok(proto_enc_jobs(&b, &js) == 0 && proto_dec_jobs(b.p, b.len, &js2, &a, err, sizeof err) == 0 &&
	   js2.count == 2 && js2.total == 5000, "a cut listing says how many jobs there were");
	proto_arena_free(&a);
	js.total = 0;
	ok(proto_enc_steps(&b, &st) == 0 && proto_dec_steps(b.p, b.len, &st2, &a, err, sizeof err) == 0 &&
	   st2.nodes == 16 && st2.count == 2 && st2.steps[1].free == -2, "steps round trip");
	proto_arena_free(&a);
	ok(proto_enc_submitted(&b, &sd) == 0 &&
	   proto_dec_submitted(b.p, b.len, &sd2, err, sizeof err) == 0 && sd2.job == 42 &&
	   sd2.start == 123456789 && sd2.kind == PS_GUARANTEED && sd2.estimate == 600 * BF_SEC,
	   "submitted round trip, with the time limit taken");
	ok(proto_enc_error(&b, &e) == 0 && proto_dec_error(b.p, b.len, &e2, &a, err, sizeof err) == 0 &&
	   e2.code == PE_TOOBIG && strcmp(e2.message, e.message) == 0, "error round trip");
	proto_arena_free(&a);
	ok(proto_enc_profile(&b) == 0 && frame_ok(&b, PT_PROFILE) && b.len == PROTO_HEADER,
	   "profile request is a bare header");
	ok(proto_enc_nodes(&b) == 0 && frame_ok(&b, PT_NODES) && b.len == PROTO_HEADER,
	   "nodes request is a bare header");
	{
		struct proto_holder h[2] = { { 3, 1000, "alice", "n[01-04]" }, { 9, 7, NULL, "n05" } };
		struct proto_nodemap nm = { "n[01-10]", h, 2, NULL, NULL }, nm2;

		ok(proto_enc_nodemap(&b, &nm) == 0 &&
		   proto_dec_nodemap(b.p, b.len, &nm2, &a, err, sizeof err) == 0 &&
		   strcmp(nm2.nodes, "n[01-10]") == 0 && nm2.count == 2 && nm2.held[0].job == 3 &&
		   strcmp(nm2.held[0].user, "alice") == 0 && nm2.held[1].user == NULL &&
		   strcmp(nm2.held[1].nodes, "n05") == 0 && nm2.held[1].uid == 7 &&
		   !nm2.drained && !nm2.down, "nodemap round trip");
		proto_arena_free(&a);
		nm.drained = "n[04-05]";
		nm.down = "n09";
		ok(proto_enc_nodemap(&b, &nm) == 0 &&
		   proto_dec_nodemap(b.p, b.len, &nm2, &a, err, sizeof err) == 0 &&
		   strcmp(nm2.drained, "n[04-05]") == 0 && strcmp(nm2.down, "n09") == 0 &&
		   nm2.count == 2, "nodemap round trip with drained and down nodes");
		proto_arena_free(&a);
		{
			uint8_t *at = memmem(b.p, b.len, "n09", 3);

			if (at)
				at[1] = 0;	/* a NUL inside the text of "down" */
			ok(at && proto_dec_nodemap(b.p, b.len, &nm2, &a, err, sizeof err) < 0,
			   "nodemap: a NUL in the down nodes' text is refused (%s)", err);
			proto_arena_free(&a);
		}
	}
	{
		struct proto_nodectl nc = { PN_DRAIN, "n[01-04]", "fan" }, nc2;
		struct proto_node nd[2] = {
			{ "n01", PNS_DRAIN, 7, "fan", "root (uid 0)", 5000000, true },
			{ "n02", PNS_IDLE, 0, NULL, NULL, BF_NEVER, false },
		};
		struct proto_nodestates ns = { nd, 2 }, ns2;
		struct proto_kv kv[2] = { { "policy", "easy" }, { "nodes", "4: 4 idle" } };
		struct proto_statusinfo si = { kv, 2 }, si2;

		ok(proto_enc_nodectl(&b, &nc) == 0 &&
		   proto_dec_nodectl(b.p, b.len, &nc2, &a, err, sizeof err) == 0 &&
		   nc2.op == PN_DRAIN && strcmp(nc2.nodes, "n[01-04]") == 0 &&
		   strcmp(nc2.reason, "fan") == 0, "nodectl round trip");
		nc.op = (enum proto_nodeop)9;
		ok(proto_enc_nodectl(&b, &nc) == 0 &&
		   proto_dec_nodectl(b.p, b.len, &nc2, &a, err, sizeof err) < 0 &&
		   strstr(err, "unknown node operation 9"), "an unknown node operation is refused");
		ok(proto_enc_nodestates(&b, &ns) == 0 &&
		   proto_dec_nodestates(b.p, b.len, &ns2, &a, err, sizeof err) == 0 &&
		   ns2.count == 2 && strcmp(ns2.nodes[0].name, "n01") == 0 &&
		   ns2.nodes[0].state == PNS_DRAIN && ns2.nodes[0].job == 7 &&
		   strcmp(ns2.nodes[0].by, "root (uid 0)") == 0 && ns2.nodes[0].since == 5000000 &&
		   ns2.nodes[0].changed && ns2.nodes[1].state == PNS_IDLE && ns2.nodes[1].job == 0 &&
		   ns2.nodes[1].reason == NULL && ns2.nodes[1].since == BF_NEVER &&
		   !ns2.nodes[1].changed, "nodestates round trip");
		nd[1].state = (enum proto_node_state)4;
		ok(proto_enc_nodestates(&b, &ns) == 0 &&
		   proto_dec_nodestates(b.p, b.len, &ns2, &a, err, sizeof err) < 0 &&
		   strstr(err, "unknown node state 4"), "an unknown node state is refused");
		ok(proto_enc_statusinfo(&b, &si) == 0 &&
		   proto_dec_statusinfo(b.p, b.len, &si2, &a, err, sizeof err) == 0 && si2.count == 2 &&
		   strcmp(si2.items[1].key, "nodes") == 0 && strcmp(si2.items[1].value, "4: 4 idle") == 0,
		   "statusinfo round trip");
		ok(proto_enc_empty(&b, PT_STATUS) == 0 && b.len == PROTO_HEADER && b.p[5] == PT_STATUS,
		   "an empty request is its header");
		proto_arena_free(&a);
	}
	proto_buf_free(&b);
}

static void framing(void)
{
	uint8_t h[PROTO_HEADER] = { 0, 0, 0, 4, PROTO_VERSION, PT_LIST, 0, 0 };
	size_t n;
	enum proto_type t;

	ok_eq(proto_frame(h, 5, &n, &t, err, sizeof err), 0, "a partial header: read more");
	ok_eq(proto_frame(h, 8, &n, &t, err, sizeof err), 0, "header, payload not yet there: read more");
	h[4] = 9;
	ok(proto_frame(h, 8, &n, &t, err, sizeof err) < 0 && strstr(err, "version 9"),
	   "another version is refused, naming it (%s)", err);
	h[4] = PROTO_VERSION;
	h[0] = 0x7f;
	ok(proto_frame(h, 8, &n, &t, err, sizeof err) < 0 && strstr(err, "limit"),
	   "an oversized frame is refused from its header alone (%s)", err);
	h[0] = 0;
	h[7] = 1;
	ok(proto_frame(h, 8, &n, &t, err, sizeof err) < 0, "reserved bytes must be zero");
}

/* Build a SUBMIT frame by hand, field by field, to send what no encoder would. */
static int dec_raw(void (*fill)(struct proto_buf *))
{
	struct proto_buf b;
	struct proto_submit s;
	struct proto_arena a = { 0 };
	int rc;

	proto_buf_init(&b);
	proto_start(&b, PT_SUBMIT);
	fill(&b);
	proto_finish(&b);
	rc = proto_dec_submit(b.p, b.len, &s, &a, err, sizeof err);
	proto_arena_free(&a);
	proto_buf_free(&b);
	return rc;
}

static void base(struct proto_buf *b)
{
	proto_put_int(b, 1, 4);
	proto_put_int(b, 2, BF_SEC);
	proto_put_bytes(b, 4, "x", 1);
	proto_put_str(b, 5, "/tmp");
}
static void f_ok(struct proto_buf *b) { base(b); }
static void f_unknown(struct proto_buf *b) { base(b); proto_put_int(b, 77, 1); }
static void f_kind(struct proto_buf *b) { base(b); proto_put_int(b, 3, 1); }
static void f_twice(struct proto_buf *b) { base(b); proto_put_int(b, 1, 4); }
static void f_missing(struct proto_buf *b) { proto_put_int(b, 1, 4); proto_put_int(b, 2, 1); }
static void f_nul(struct proto_buf *b) { base(b); proto_put_bytes(b, 3, "a\0b", 3); }
static void f_relative(struct proto_buf *b)
{
	proto_put_int(b, 1, 4);
	proto_put_int(b, 2, BF_SEC);
	proto_put_bytes(b, 4, "x", 1);
	proto_put_str(b, 5, "tmp");
}
static void f_zero_time(struct proto_buf *b)
{
	proto_put_int(b, 1, 4);
	proto_put_int(b, 2, 0);
	proto_put_bytes(b, 4, "x", 1);
	proto_put_str(b, 5, "/tmp");
}
static void f_zero_nodes(struct proto_buf *b)
{
	proto_put_int(b, 1, 0);
	proto_put_int(b, 2, 1);
	proto_put_bytes(b, 4, "x", 1);
	proto_put_str(b, 5, "/tmp");
}
static void f_env(struct proto_buf *b) { base(b); proto_put_str(b, 9, "NOEQUALS"); }
static void f_long(struct proto_buf *b)
{
	char *s = malloc(PROTO_MAX_STRING + 2);

	memset(s, 'a', PROTO_MAX_STRING + 1);
	s[PROTO_MAX_STRING + 1] = 0;
	base(b);
	proto_put_str(b, 3, s);
	free(s);
}
static void f_many(struct proto_buf *b)
{
	base(b);
	for (int k = 0; k <= PROTO_MAX_LIST; k++)
		proto_put_str(b, 8, "a");
}
static void f_script(struct proto_buf *b)
{
	uint8_t *big = calloc(1, PROTO_MAX_SCRIPT + 1);

	proto_put_int(b, 1, 4);
	proto_put_int(b, 2, 1);
	proto_put_bytes(b, 4, big, PROTO_MAX_SCRIPT + 1);
	proto_put_str(b, 5, "/tmp");
	free(big);
}
static void f_truncated(struct proto_buf *b) { base(b); proto_put_int(b, 3, 1); b->len -= 12; }

static void strict(void)
{
	ok_eq(dec_raw(f_ok), 0, "a minimal submit decodes");
	ok(dec_raw(f_unknown) < 0 && strstr(err, "unknown field"), "unknown field refused (%s)", err);
	ok(dec_raw(f_kind) < 0 && strstr(err, "wrong kind"), "wrong kind refused (%s)", err);
	ok(dec_raw(f_twice) < 0 && strstr(err, "twice"), "a repeated scalar refused (%s)", err);
	ok(dec_raw(f_missing) < 0 && strstr(err, "missing"), "missing required field refused (%s)", err);
	ok(dec_raw(f_nul) < 0 && strstr(err, "NUL"), "a NUL in a string refused (%s)", err);
	ok(dec_raw(f_relative) < 0 && strstr(err, "absolute"), "relative cwd refused (%s)", err);
	ok(dec_raw(f_zero_time) < 0 && strstr(err, "time limit"), "zero time limit refused (%s)", err);
	ok(dec_raw(f_zero_nodes) < 0 && strstr(err, "nodes"), "zero nodes refused (%s)", err);
	ok(dec_raw(f_env) < 0 && strstr(err, "NAME=value"), "env without = refused (%s)", err);
	ok(dec_raw(f_long) < 0 && strstr(err, "over"), "over-long string refused (%s)", err);
	ok(dec_raw(f_many) < 0 && strstr(err, "more than"), "too many arguments refused (%s)", err);
	ok(dec_raw(f_script) < 0 && strstr(err, "over"), "over-long script refused (%s)", err);
	ok(dec_raw(f_truncated) < 0, "a truncated field refused (%s)", err);
}

/* Random byte flips, truncations and extensions of valid frames: decoding
 * either works or fails with a message; never a crash (ASan watches). */
static void mutations(void)
{
	struct proto_buf b;
	struct proto_arena a = { 0 };
	const char *argv[] = { "x", "y" };
	struct proto_submit s = { .nodes = 3, .estimate = 9, .script = (const uint8_t *)"ab",
	                          .script_len = 2, .cwd = "/", .argv = argv, .argc = 2 };
	struct proto_job jobs[3] = { { .id = 1, .state = "q" }, { .id = 2, .state = "r" },
	                             { .id = 3, .state = "d", .node_list = "n[1-2]" } };
	uint8_t *buf = malloc(4096);
	unsigned seed = 3;
	int decoded = 0, refused = 0, silent = 0;

	proto_buf_init(&b);
	for (int round = 0; round < 40000; round++) {
		size_t len;
		int rc;

		if (round % 2)
			proto_enc_submit(&b, &s);
		else
			proto_enc_jobs(&b, &(struct proto_jobs){ .jobs = jobs, .count = 3, .total = 0 });
		len = b.len;
		memcpy(buf, b.p, len);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245 + 12345;
			buf[PROTO_HEADER + (seed >> 8) % (len - PROTO_HEADER)] = (uint8_t)(seed >> 16);
		}
		seed = seed * 1103515245 + 12345;
		if ((seed >> 8) % 3 == 0)
			len -= (seed >> 12) % (len - PROTO_HEADER);	/* truncate */
		err[0] = 0;
		if (round % 2) {
			struct proto_submit m;

			rc = proto_dec_submit(buf, len, &m, &a, err, sizeof err);
		} else {
			struct proto_jobs m;

			rc = proto_dec_jobs(buf, len, &m, &a, err, sizeof err);
		}
		proto_arena_free(&a);
		if (rc == 0)
			decoded++;
		else if (err[0])
			refused++;
		else
			silent++;
	}
	ok(decoded + refused == 40000, "40000 mutated frames: %d decoded, %d refused", decoded, refused);
	ok_eq(silent, 0, "every refusal says why");
	proto_buf_free(&b);
	free(buf);
}

/* ---- the seed corpus of tests/fuzz/fuzz_proto.c ---- */

static jmp_buf oracle_jmp;

static void oracle_bail(void)
{
	longjmp(oracle_jmp, 1);
}

/* proto_oracle_input(), or -1 if one of its checks failed. */
static int run_seed(const uint8_t *data, size_t size)
{
	volatile int outcome = -1;

	oracle_fail_hook = oracle_bail;
	if (setjmp(oracle_jmp) == 0)
		outcome = proto_oracle_input(data, size);
	oracle_fail_hook = NULL;
	return outcome;
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every file of tests/fuzz/proto-corpus through proto_oracle_input(), the
 * checks the fuzzer runs, with plain cc: the seeds must stay what their
 * names say (ok-, sel-: decoded; bad-: refused; short-: not a whole frame)
 * and cover every decoder, so a protocol change that breaks them shows here
 * and not only under clang. A failed check longjmps back (leaking what it
 * held: this is a failing test). */
static void corpus(void)
{
	const char *top = getenv("BF_TOP");
	char dir[4096], path[8192];
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	unsigned decoded_types = 0;	/* bit: index in ORACLE_TYPES */

	snprintf(dir, sizeof dir, "%s/tests/fuzz/proto-corpus", top ? top : ".");
	if (!ok((d = opendir(dir)) != NULL, "the fuzzer's seed corpus is there (%s)", dir))
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof *names);
			if (!names)
				abort();
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, by_name);
	ok(n >= 20, "%zu seeds", n);
	for (size_t k = 0; k < n; k++) {
		const char *name = names[k];
		uint8_t *data = NULL;
		size_t size = 0;
		FILE *f;
		int outcome;
		bool want_ok;

		snprintf(path, sizeof path, "%s/%s", dir, name);
		if ((f = fopen(path, "rb")) != NULL) {
			data = malloc(PROTO_HEADER + PROTO_MAX_PAYLOAD + 1);
			if (!data)
				abort();
			size = fread(data, 1, PROTO_HEADER + PROTO_MAX_PAYLOAD + 1, f);
			fclose(f);
		}
		if (!ok(data != NULL, "seed %s readable", name))
			continue;
		outcome = run_seed(data, size);
		want_ok = strncmp(name, "ok-", 3) == 0 || strncmp(name, "sel-", 4) == 0;
		if (outcome == OR_DECODED) {
			int type = oracle_input_type(data, size);

			for (unsigned i = 0; i < 12; i++)
				if ((int)ORACLE_TYPES[i] == type)
					decoded_types |= 1u << i;
		}
		if (outcome < 0)
			ok(0, "seed %s passes the fuzzer's checks (see stderr)", name);
		else if (want_ok)
			ok(outcome == OR_DECODED || outcome == OR_NODECODER,
			   "seed %s is a frame that decodes (outcome %d)", name, outcome);
		else if (strncmp(name, "bad-", 4) == 0)
			ok(outcome == OR_HEADER || outcome == OR_REFUSED,
			   "seed %s is refused (outcome %d)", name, outcome);
		else
			ok(outcome == OR_SHORT, "seed %s is not a whole frame (outcome %d)", name,
			   outcome);
		free(data);
	}
	/* Everything but the two field-less requests, which have no decoder. */
	ok_eq(decoded_types, 0xfffu & ~(1u << 4 | 1u << 5),
	      "the seeds decode with every decoder, PT_LIST and PT_INFO both");
	for (size_t k = 0; k < n; k++)
		free(names[k]);
	free(names);
}

/* One job record with the given usage fields (tag, value pairs). */
static int dec_usage(const int64_t *kv, size_t n, struct proto_jobs *js, struct proto_arena *a)
{
	struct proto_buf b;
	size_t g;
	int rc;

	proto_buf_init(&b);
	proto_start(&b, PT_JOBS);
	g = proto_group_open(&b, 1);
	proto_put_int(&b, 1, 3);
	proto_put_int(&b, 2, 0);
	proto_put_str(&b, 5, "done");
	proto_put_int(&b, 6, 1);
	proto_put_int(&b, 7, 1);
	proto_put_int(&b, 8, 1);
	for (size_t k = 0; k + 1 < n; k += 2)
		proto_put_int(&b, (uint8_t)kv[k], kv[k + 1]);
	proto_group_close(&b, g);
	rc = proto_finish(&b) == 0 ? proto_dec_jobs(b.p, b.len, js, a, err, sizeof err) : -2;
	proto_buf_free(&b);
	return rc;
}

/* What an ended job used: both figures with their sources round trip; an
 * unknown one is not sent; a figure without its source, a source without
 * a figure, an unknown source or a negative figure is refused. */
static void usage(void)
{
	struct proto_job j = { .id = 3, .state = "done", .cpu_us = 1234567, .cpu_src = PU_CGROUP,
	                       .mem_kb = 2048, .mem_src = PU_RUSAGE };
	struct proto_jobs js = { .jobs = &j, .count = 1 }, js2;
	struct proto_arena a = { 0 };
	struct proto_buf b;
	static const int64_t cpu_only[] = { 18, 5 }, src_only[] = { 21, 1 },
		bad_src[] = { 18, 5, 19, 3 }, negative[] = { 20, -1, 21, 2 },
		both[] = { 18, 0, 19, 2, 20, 9, 21, 1 };

	proto_buf_init(&b);
	ok(proto_enc_jobs(&b, &js) == 0 && proto_dec_jobs(b.p, b.len, &js2, &a, err, sizeof err) == 0 &&
	   js2.jobs[0].cpu_us == 1234567 && js2.jobs[0].cpu_src == PU_CGROUP &&
	   js2.jobs[0].mem_kb == 2048 && js2.jobs[0].mem_src == PU_RUSAGE,
	   "usage: CPU time and peak memory round trip with their sources");
	proto_arena_free(&a);
	j.mem_src = PU_NONE;
	ok(proto_enc_jobs(&b, &js) == 0 && proto_dec_jobs(b.p, b.len, &js2, &a, err, sizeof err) == 0 &&
	   js2.jobs[0].mem_src == PU_NONE && js2.jobs[0].mem_kb == -1 && js2.jobs[0].cpu_us == 1234567,
	   "usage: a figure without a source is not sent, and decodes as unknown (-1)");
	proto_arena_free(&a);
	proto_buf_free(&b);
	ok(dec_usage(both, 8, &js2, &a) == 0 && js2.jobs[0].cpu_us == 0 && js2.jobs[0].mem_kb == 9,
	   "usage: a well-formed record decodes");
	proto_arena_free(&a);
	ok(dec_usage(cpu_only, 2, &js2, &a) == -1, "usage: a CPU time without its source is refused (%s)",
	   err);
	proto_arena_free(&a);
	ok(dec_usage(src_only, 2, &js2, &a) == -1, "usage: a source without its figure is refused (%s)",
	   err);
	proto_arena_free(&a);
	ok(dec_usage(bad_src, 4, &js2, &a) == -1, "usage: an unknown source is refused (%s)", err);
	proto_arena_free(&a);
	ok(dec_usage(negative, 4, &js2, &a) == -1, "usage: a negative figure is refused (%s)", err);
	proto_arena_free(&a);
}

/* A listing encoded a job at a time fills one frame and no more: the jobs
 * that fit, in order, and how many there were. */
static void listing_that_fills_a_frame(void)
{
	static char name[2001];
	struct proto_buf b;
	struct proto_jobs js2;
	struct proto_arena a = { 0 };
	char msg[200] = "";
	uint32_t added = 0, refused = 0;

	memset(name, 'n', sizeof name - 1);
	proto_buf_init(&b);
	proto_jobs_begin(&b);
	for (uint64_t id = 1; id <= 5000; id++) {
		struct proto_job j = { .id = id, .user = "alice", .name = name, .state = "queued",
		                       .nodes = 2, .estimate = 60, .submit = 1 };

		if (proto_jobs_add(&b, &j))
			added += refused == 0;	/* (none after one was refused) */
		else
			refused++;
	}
	ok(added > 1000 && added < 5000 && refused == 5000 - added,
	   "jobs a time: %u jobs of 2 KB fit a frame, the %u after are refused", added, refused);
	ok(proto_jobs_end(&b, added, 5000) == 0 && b.len <= PROTO_HEADER + PROTO_MAX_PAYLOAD &&
	   proto_dec_jobs(b.p, b.len, &js2, &a, msg, sizeof msg) == 0,
	   "the frame is whole, within the limit, and decodes (%s)", msg);
	ok(js2.count == added && js2.total == 5000 && js2.jobs[added - 1].id == added &&
	   strlen(js2.jobs[added - 1].name) == sizeof name - 1,
	   "the first %u jobs in order, the last whole, and the total of 5000", added);
	proto_arena_free(&a);
	proto_jobs_begin(&b);
	ok(proto_jobs_add(&b, &(struct proto_job){ .id = 9, .state = "queued" }) &&
	   proto_jobs_end(&b, 1, 1) == 0 && proto_dec_jobs(b.p, b.len, &js2, &a, msg, sizeof msg) == 0 &&
	   js2.count == 1 && js2.total == 0, "all fit: no total is sent");
	proto_arena_free(&a);
	proto_buf_free(&b);
}

int main(void)
{
	round_trips();
	listing_that_fills_a_frame();
	usage();
	framing();
	strict();
	mutations();
	corpus();
	return tap_done();
}
