/* The table of live jobs (queued and running) and their fields. */
#ifndef BF_SERVE_JOBS_H
#define BF_SERVE_JOBS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

struct daemon;
struct djob;
struct proto_job;
struct store_job;

struct djob *jobs_get(struct daemon *d, uint64_t id);
/* A new live job from its row (strings copied); NULL if memory ran out. */
struct djob *jobs_add(struct daemon *d, const struct store_job *rec);
void jobs_remove(struct daemon *d, struct djob *j);
/* Replace one owned string field (JS_*, as in owned[]). -1 on no memory. */
int  jobs_set_str(struct djob *j, int field, const char *v, size_t len);
enum { JS_USER, JS_NAME, JS_CWD, JS_OUT, JS_ERR, JS_ARGV, JS_ENV, JS_NODES, JS_REASON,
       JS_BROKEN, JS_DEPEND, JS_DEPIDS, JS_NFIELDS };
/* Fill a protocol record for bq; `detail` adds the owner-only fields. */
void jobs_to_proto(const struct store_job *r, bool detail, bf_time predicted,
                   struct proto_job *out);
/* A job that ran is queued again (bctl requeue, once it has ended): its
 * run forgotten (fields and the supervisor's record), a new place in
 * arrival order. The caller gives it to the core and stores it. */
void jobs_requeue_reset(struct daemon *d, struct djob *j, bf_time now);
/* An -o or -e path with LSF's %J (the job id; an array's for its
 * elements), %I (the element's index; 0 for a job that is none) and %%
 * (a %) replaced (jobarray_subst); malloc'ed, NULL for NULL or no memory. */
char *jobs_expand_id(const char *tmpl, uint64_t id, uint32_t index);
/* Where a job's output goes: its -o, or bsub-ID.out in its working
 * directory (formatted into buf); its errors go there too unless -e. */
const char *jobs_out_path(const struct store_job *r, char *buf, size_t len);
/* The compact list of a running job's nodes from the core; NULL on no memory. */
char *jobs_node_list(struct daemon *d, uint64_t id);

/* A local time as bq prints it, rounded up to the second (a guarantee
 * is never shown earlier than the truth): for the log. */
const char *jobs_local_time(bf_time t, char *buf, size_t len);

#endif
