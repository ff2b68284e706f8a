/* Writes the seed corpus of fuzz_proto.c (tests/fuzz/proto-corpus) with the
 * real encoders, so the seeds follow the protocol when it changes:
 *
 *   cc -std=c11 -D_GNU_SOURCE -Icommon tests/fuzz/mkseeds_proto.c \
 *       common/proto.c common/errf.c -o /tmp/mkseeds_proto
 *   rm -rf tests/fuzz/proto-corpus && /tmp/mkseeds_proto tests/fuzz/proto-corpus
 *
 * Names say what tests/unit/test_proto.c expects of each file: ok-* decode
 * with the decoder of their type (or, for a request without fields, pass
 * proto_frame()), bad-* are refused by the header or the decoder, short-*
 * are not a whole frame. sel-* are the fuzzer's other input form: a first
 * byte that picks the type, then a bare payload. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "proto.h"

static const char *dir;

static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "wb")) || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
		fprintf(stderr, "mkseeds_proto: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void put_buf(const char *name, const struct proto_buf *b)
{
	if (b->failed) {
		fprintf(stderr, "mkseeds_proto: %s: encoding failed\n", name);
		exit(1);
	}
	put(name, b->p, b->len);
}

/* The payload of b after a selector byte: data[0] % 13 is the index of
 * the type in proto_oracle.h's ORACLE_TYPES. */
static void put_sel(const char *name, unsigned index, const struct proto_buf *b)
{
	uint8_t *p = malloc(b->len);

	if (!p)
		exit(1);
	p[0] = (uint8_t)(13 + index);
	memcpy(p + 1, b->p + PROTO_HEADER, b->len - PROTO_HEADER);
	put(name, p, 1 + b->len - PROTO_HEADER);
	free(p);
}

/* A frame made field by field, for what no encoder writes. */
static void raw_start(struct proto_buf *b, enum proto_type t)
{
	proto_start(b, t);
}

static void raw_put(const char *name, struct proto_buf *b)
{
	if (proto_finish(b) != 0)
		exit(1);
	put_buf(name, b);
}

static void submit_base(struct proto_buf *b)
{
	proto_put_int(b, 1, 2);
	proto_put_int(b, 2, 60 * BF_SEC);
	proto_put_bytes(b, 4, "#!/bin/sh\n", 10);
	proto_put_str(b, 5, "/home/u");
}

int main(int argc, char **argv)
{
	static const uint8_t script[] = "#!/bin/sh\necho \"$@\"\n\0binary tail\n";
	const char *args[] = { "one", "two words", "" };
	const char *env[] = { "HOME=/home/u", "EMPTY=" };
	struct proto_submit s = {
		.nodes = 4, .estimate = 3600 * BF_SEC, .name = "sixteen-byte-nam", .script = script,
		.script_len = sizeof script, .cwd = "/home/u", .out = "o.txt", .err = "e.txt",
		.argv = args, .argc = 3, .env = env, .envc = 2, .has_umask = true, .umask = 077,
	};
	struct proto_submit smin = {
		.nodes = 1, .estimate = 1, .script = (const uint8_t *)"x", .script_len = 1, .cwd = "/",
	};
	uint64_t ids[] = { 1, 42, UINT64_MAX };
	enum proto_err codes[] = { PE_OK, PE_DENIED, PE_DONE };
	struct proto_job jobs[3] = {
		{ .id = 7, .uid = 1000, .user = "alice", .name = "sim", .state = "running",
		  .nodes = 4, .estimate = 60 * BF_SEC, .submit = 1000, .start = 2000, .end = 62000,
		  .start_kind = PS_ACTUAL, .node_list = "node[001-004]" },
		{ .id = 8, .uid = 0, .state = "queued", .nodes = 2, .estimate = 1, .submit = 5,
		  .start = 9, .end = 10, .start_kind = PS_GUARANTEED },
		{ .id = 9, .uid = 4294967295u, .user = "bob", .name = "x", .state = "failed",
		  .nodes = 1, .estimate = 2, .submit = 3, .start = 4, .end = 5,
		  .start_kind = PS_ACTUAL, .has_exit = true, .exit_status = 256,
		  .node_list = "node007", .cwd = "/home/bob", .out = "bsub-9.out", .err = "e",
		  .reason = "exec failed: No such file or directory", .cpu_us = 1500000,
		  .cpu_src = PU_CGROUP, .mem_kb = 40960, .mem_src = PU_RUSAGE },
	};
	struct proto_step steps[] = { { 0, 10 }, { 1000000, -2 }, { 2000000, 16 } };
	struct proto_holder held[] = { { 3, 1000, "alice", "node[001-004]" }, { 9, 7, NULL, "node005" } };
	struct proto_buf b;

	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds_proto DIR\n");
		return 2;
	}
	dir = argv[1];
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "mkseeds_proto: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	proto_buf_init(&b);

	/* ---- valid frames of every type, and their payloads with a selector ---- */
	proto_enc_submit(&b, &s);
	put_buf("ok-submit-full", &b);
	put_sel("sel-submit", 0, &b);
	proto_enc_submit(&b, &smin);
	put_buf("ok-submit-min", &b);
	{
		/* Strings at the limit, and over the arena's small-piece size. */
		static char at_limit[PROTO_MAX_STRING + 2], long_arg[1500];
		const char *one[] = { long_arg };
		struct proto_submit big = smin;

		memset(at_limit, 'n', PROTO_MAX_STRING + 1);
		memset(long_arg, 'a', sizeof long_arg - 1);
		big.argv = one;
		big.argc = 1;
		at_limit[PROTO_MAX_STRING] = '\0';
		big.name = at_limit;
		proto_enc_submit(&b, &big);
		put_buf("ok-submit-long", &b);
		at_limit[PROTO_MAX_STRING] = 'n';
		proto_enc_submit(&b, &big);
		put_buf("bad-submit-over-limit", &b);
	}
	proto_enc_list(&b, PT_LIST, &(struct proto_list){ 0 });
	put_buf("ok-list", &b);
	proto_enc_list(&b, PT_LIST, &(struct proto_list){ .all_users = true });
	put_buf("ok-list-all", &b);
	put_sel("sel-list", 1, &b);
	proto_enc_list(&b, PT_LIST, &(struct proto_list){ .all_users = true, .forecast = true });
	put_buf("ok-list-forecast", &b);
	proto_enc_list(&b, PT_INFO, &(struct proto_list){ .has_job = true, .job = 42 });
	put_buf("ok-info", &b);
	put_sel("sel-info", 2, &b);
	proto_enc_cancel(&b, &(struct proto_cancel){ ids, 3, 0 });
	put_buf("ok-cancel", &b);
	put_sel("sel-cancel", 3, &b);
	proto_enc_profile(&b);
	put_buf("ok-profile", &b);
	proto_enc_nodes(&b);
	put_buf("ok-nodes", &b);
	proto_enc_error(&b, &(struct proto_error){ PE_TOOBIG, "8 nodes asked for; the partition has 4" });
	put_buf("ok-error", &b);
	put_sel("sel-error", 6, &b);
	proto_enc_error(&b, &(struct proto_error){ PE_INTERNAL, NULL });
	put_buf("ok-error-nomsg", &b);
	proto_enc_submitted(&b, &(struct proto_submitted){ 42, 1700000000000000, PS_GUARANTEED,
	                                                   600000000 });
	put_buf("ok-submitted", &b);
	put_sel("sel-submitted", 7, &b);
	proto_enc_jobs(&b, &(struct proto_jobs){ .jobs = jobs, .count = 3, .total = 0 });
	put_buf("ok-jobs", &b);
	put_sel("sel-jobs", 8, &b);
	proto_enc_jobs(&b, &(struct proto_jobs){ .jobs = jobs, .count = 1, .total = 5000 });
	put_buf("ok-jobs-cut", &b);
	proto_enc_jobs(&b, &(struct proto_jobs){ .jobs = NULL, .count = 0, .total = 0 });
	put_buf("ok-jobs-empty", &b);
	proto_enc_jobs(&b, &(struct proto_jobs){ .jobs = jobs, .count = 3, .forecast_at =
	                                         1700000000000000, .forecast_stale = true });
	put_buf("ok-jobs-forecast", &b);
	proto_enc_cancelled(&b, &(struct proto_cancelled){ ids, codes, 3 });
	put_buf("ok-cancelled", &b);
	put_sel("sel-cancelled", 9, &b);
	proto_enc_steps(&b, &(struct proto_steps){ 16, steps, 3 });
	put_buf("ok-steps", &b);
	put_sel("sel-steps", 10, &b);
	proto_enc_nodemap(&b, &(struct proto_nodemap){ "node[001-016]", held, 2, "node[003-004]",
	                                                "node009" });
	put_buf("ok-nodemap", &b);
	put_sel("sel-nodemap", 11, &b);

	/* ---- malformed ---- */
	proto_enc_submit(&b, &s);
	put("short-submit-cut", b.p, b.len - 5);	/* the reader waits for the rest */
	put("short-header", b.p, 5);
	{
		/* A whole frame followed by more bytes: only the first is read. */
		uint8_t two[64];
		size_t n;

		proto_enc_profile(&b);
		n = b.len;
		memcpy(two, b.p, n);
		proto_enc_nodes(&b);
		memcpy(two + n, b.p, b.len);
		put("ok-profile-then-more", two, n + b.len);
	}
	proto_enc_list(&b, PT_LIST, &(struct proto_list){ .all_users = true });
	b.p[4] = 2;
	put_buf("bad-version", &b);
	b.p[4] = PROTO_VERSION;
	b.p[7] = 1;
	put_buf("bad-reserved", &b);
	{
		uint8_t big[PROTO_HEADER + 10] = { 0x00, 0x40, 0x00, 0x01, PROTO_VERSION, PT_SUBMIT };

		put("bad-oversized", big, sizeof big);	/* 4 MiB + 1 */
	}
	raw_start(&b, PT_SUBMIT);
	submit_base(&b);
	proto_put_int(&b, 3, 1);
	b.len -= 3;			/* the last field is cut; the length says so */
	raw_put("bad-submit-truncated", &b);
	raw_start(&b, PT_SUBMIT);
	submit_base(&b);
	proto_put_int(&b, 1, 2);
	raw_put("bad-submit-repeated", &b);
	raw_start(&b, PT_SUBMIT);
	submit_base(&b);
	proto_put_str(&b, 3, "name");
	b.p[b.len - 9] = 1;		/* the name's kind: int */
	raw_put("bad-submit-kind", &b);
	raw_start(&b, PT_SUBMIT);
	submit_base(&b);
	proto_put_bytes(&b, 3, "a\0b", 3);
	raw_put("bad-submit-nul", &b);
	raw_start(&b, PT_SUBMIT);
	submit_base(&b);
	proto_put_int(&b, 77, 1);
	raw_put("bad-submit-unknown-tag", &b);
	raw_start(&b, PT_SUBMIT);
	proto_put_int(&b, 1, 2);
	proto_put_int(&b, 2, 60 * BF_SEC);
	proto_put_bytes(&b, 4, "#!/bin/sh\n", 10);
	raw_put("bad-submit-missing", &b);
	raw_start(&b, PT_SUBMIT);
	proto_put_int(&b, 1, 2);
	proto_put_int(&b, 2, 60 * BF_SEC);
	proto_put_bytes(&b, 4, "#!/bin/sh\n", 10);
	proto_put_str(&b, 5, "relative");
	raw_put("bad-submit-relative", &b);
	raw_start(&b, PT_SUBMIT);
	submit_base(&b);
	proto_put_str(&b, 9, "=x");
	raw_put("bad-submit-env", &b);
	raw_start(&b, PT_INFO);
	proto_put_int(&b, 1, 1);
	raw_put("bad-info-nojob", &b);
	raw_start(&b, PT_LIST);
	proto_put_int(&b, 1, 2);
	raw_put("bad-list-all", &b);
	proto_enc_submitted(&b, &(struct proto_submitted){ 1, 2, PS_NONE, 0 });
	b.p[b.len - 1] = 7;		/* start kind 7 */
	put_buf("bad-submitted-kind", &b);
	raw_start(&b, PT_JOBS);
	{
		size_t g = proto_group_open(&b, 1);

		proto_put_int(&b, 1, 1);
		proto_put_int(&b, 2, 0);
		proto_put_str(&b, 5, "queued");
		proto_put_int(&b, 6, 1);
		proto_put_int(&b, 7, 1);
		proto_put_int(&b, 8, 1);
		proto_group_close(&b, g);
		b.p[g - 1] += 1;	/* the group claims a byte past the payload */
	}
	raw_put("bad-jobs-group", &b);
	raw_start(&b, PT_CANCELLED);
	{
		size_t g = proto_group_open(&b, 1);

		proto_put_int(&b, 1, 1);
		proto_put_int(&b, 2, 200);
		proto_group_close(&b, g);
	}
	raw_put("bad-cancelled-code", &b);
	raw_start(&b, PT_STEPS);
	proto_put_int(&b, 1, 0);
	raw_put("bad-steps-nodes", &b);
	raw_start(&b, PT_NODEMAP);
	{
		size_t g = proto_group_open(&b, 2);

		proto_put_int(&b, 1, 1);
		proto_put_int(&b, 2, 1);
		proto_group_close(&b, g);
	}
	proto_put_str(&b, 1, "n[1-2]");
	raw_put("bad-nodemap-holder", &b);	/* a holder without its nodes */
	proto_enc_cancel(&b, &(struct proto_cancel){ ids, 1, 0 });
	b.p[5] = PT_JOBS;		/* a request's body under a reply's type */
	put_buf("bad-wrong-type", &b);

	proto_buf_free(&b);
	return 0;
}
