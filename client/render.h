/* How bq shows what the daemon sends: the job table, one job in detail,
 * JSON, and the free-node profile. Output only; no I/O but the FILE. */
#ifndef BF_RENDER_H
#define BF_RENDER_H
#include <stdbool.h>
#include <stdio.h>
#include "bf_time.h"
#include "proto.h"

/* Column caps in the table (longer values are cut, ending in '+'). */
#define RENDER_USER_WIDTH  8
#define RENDER_NAME_WIDTH  13
#define RENDER_STATE_WIDTH 10
/* The profile chart: bar width, and at most this many steps. */
#define RENDER_BAR_WIDTH   40
#define RENDER_MAX_STEPS   30

/* How a job's end is known. */
enum render_end_kind {
	RE_NONE,		/* not known */
	RE_ACTUAL,		/* it ended then */
	RE_GUARANTEED,		/* by then at the latest (running, or a guaranteed start) */
	RE_PREDICTED,		/* an estimate */
};

/* Has the job ended? Its state is not "queued" or "running", or it has an
 * exit status. */
bool render_job_ended(const struct proto_job *j);
enum render_end_kind render_end_kind(const struct proto_job *j);

/* The default listing: a header, one aligned line per job, and a legend
 * for the marks used; "No jobs." when there are none. -1: out of memory
 * (nothing written). */
int  render_table(FILE *f, const struct proto_jobs *js, bool all_users);
/* bq -w: from now on the table cuts no column (user and job names whole)
 * and shows SUBMITTED. Without it a line fits 100 columns. */
void render_set_wide(bool on);
/* The now whose year the table's dates leave out ("Nov 28 19:58:03"); the
 * wall clock at the first table if never set. */
void render_set_now(bf_time now);
/* The forecast the predicted starts come from (struct proto_jobs): when
 * it was made and whether the queue changed since. From now on the table,
 * bq -l and JSON say so: the table and bq -l only when it is not fresh
 * ("predicted as of ..."); JSON for every job (null but for the queued),
 * when the daemon said (not under conservative, not an older daemon). */
void render_set_forecast(bf_time at, bool stale);
/* bq -l: one "Key: value" per line. now: for a running job's run time. */
void render_info(FILE *f, const struct proto_job *j, bf_time now);
/* JSON: an array of job objects, or (single) the first job as one object. */
void render_json(FILE *f, const struct proto_jobs *js, bool single);
/* bq --profile, as a chart and as JSON. */
void render_profile(FILE *f, const struct proto_steps *st, bf_time now);
void render_profile_json(FILE *f, const struct proto_steps *st, bf_time now);
/* The nodes: runs of adjacent nodes in the same state, compact; or JSON,
 * one object per node. Returns -1 if the map does not parse. */
int  render_nodes(FILE *f, const struct proto_nodemap *m, bool json);

#endif
