/* Per-user limits on what the daemon holds; see usage.h. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include "idmap.h"
#include "sys/log.h"
#include "sys/store.h"
#include "daemon.h"
#include "reserve.h"
#include "usage.h"

static uint64_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

uint64_t usage_live_cost(const struct store_job *r, uint64_t script_len)
{
	return 256 + slen(r->user) + slen(r->name) + slen(r->cwd) + slen(r->out) + slen(r->err) +
	       slen(r->depend) + slen(r->depend_ids) + r->argv_len + r->env_len + script_len;
}

uint64_t usage_script_len(const struct daemon *d, uint64_t id)
{
	struct stat st;
	char name[48];

	snprintf(name, sizeof name, "%" PRIu64 "/script", id);
	if (d->spool.jobs_fd < 0 || fstatat(d->spool.jobs_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	return (uint64_t)st.st_size;
}

static void mib(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= (1u << 20))
		snprintf(buf, len, "%.1f MiB", (double)bytes / (1u << 20));
	else
		snprintf(buf, len, "%" PRIu64 " bytes", bytes);
}

/* Below min_free_disk on the store's or the spool's file system. */
static int disk_low(const struct daemon *d, char *err, size_t errlen)
{
	const char *path[2] = { d->o.db, d->spool.dir }, *what[2] = { "store", "spool" };
	unsigned long long avail;
	uint64_t min = d->o.lim.min_free_disk;
	char a[32], b[32];

	/* (A file system whose free space cannot be told refuses nothing.) */
	for (int k = 0; k < 2; k++) {
		if (!min || !reserve_free(d, k, false, &avail) || avail >= min)
			continue;
		mib(avail, a, sizeof a);
		mib(min, b, sizeof b);
		snprintf(err, errlen, "the daemon's disk is nearly full: %s free for its %s (%s), "
		         "under min_free_disk %s; only root may submit until space is freed", a,
		         what[k], path[k], b);
		return -1;
	}
	return 0;
}

int usage_admit(const struct daemon *d, uid_t uid, uint64_t cost, char *err, size_t errlen)
{
	uint64_t held = 0, max = d->o.lim.max_stored_per_user;
	char a[32], b[32], c[32];

	if (reserve_refuse(d, err, errlen) < 0)
		return -1;	/* root's too: the reserve is in use */
	if (uid == 0)
		return 0;	/* root's reserve: no per-user limit */
	if (disk_low(d, err, errlen) < 0)
		return -1;
	if (!max)
		return 0;
	for (uint32_t k = 0; k < d->njobs; k++)
		if (d->jobs[k]->rec.uid == uid && store_state_live(d->jobs[k]->rec.state))
			held += d->jobs[k]->cost;
	if (held + cost <= max)
		return 0;
	mib(held, a, sizeof a);
	mib(cost, b, sizeof b);
	mib(max, c, sizeof c);
	snprintf(err, errlen, "your queued and running jobs hold %s and this one %s: more than "
	         "max_stored_per_user %s (scripts, arguments and environments); submit again when "
	         "some have ended", a, b, c);
	return -1;
}

/* ---- ended jobs ---- */

/* An ended job's bytes in the store, as the store measures them
 * (store.c, ENDED_COST), with a typical log. */
static uint64_t ended_cost(const struct store_job *r)
{
	return 256 + slen(r->user) + slen(r->name) + slen(r->node_list) + slen(r->cwd) +
	       slen(r->out) + slen(r->err) + slen(r->reason) + slen(r->broken) + slen(r->depend) +
	       slen(r->depend_ids) + 4 * (40 + 64);
}

static struct ended_use *slot(struct daemon *d, uint32_t uid)
{
	uint32_t k = idmap_get(&d->ended_uids, uid);
	struct ended_use *e;

	if (k != IDMAP_NONE)
		return &d->ended[k];
	if (d->nended == d->ended_cap) {
		uint32_t cap = d->ended_cap ? 2 * d->ended_cap : 64;

		if (!(e = realloc(d->ended, cap * sizeof *e)))
			return NULL;
		d->ended = e;
		d->ended_cap = cap;
	}
	if (idmap_put(&d->ended_uids, uid, d->nended) != 0)
		return NULL;
	d->ended[d->nended] = (struct ended_use){ .uid = uid };
	return &d->ended[d->nended++];
}

static int load_one(uint32_t uid, uint64_t bytes, void *arg)
{
	struct daemon *d = arg;
	struct ended_use *e = slot(d, uid);

	if (!e)
		return 1;
	e->bytes = bytes;
	return 0;
}

int usage_load(struct daemon *d)
{
	if (idmap_init(&d->ended_uids, 64) < 0)
		return -1;
	if (store_ended_usage(d->store, load_one, d) < 0)
		return -1;
	d->over_budget = true;	/* a lowered keep_ended_per_user applies at once */
	return 0;
}

void usage_ended(struct daemon *d, struct djob *j)
{
	struct ended_use *e;

	if (j->ended_counted || store_state_live(j->rec.state))
		return;
	j->ended_counted = true;
	if ((e = slot(d, j->rec.uid))) {
		e->bytes += ended_cost(&j->rec);
		if (d->o.lim.keep_ended_per_user && e->bytes > d->o.lim.keep_ended_per_user)
			d->over_budget = true;
	}
}

int usage_prune(struct daemon *d)
{
	uint64_t max = d->o.lim.keep_ended_per_user;

	if (!d->over_budget || !max)
		return 0;
	d->over_budget = false;
	for (uint32_t k = 0; k < d->nended; k++) {
		struct ended_use *e = &d->ended[k];
		int64_t freed, now_bytes;
		uint64_t removed = 0;

		if (e->bytes <= max)
			continue;
		/* The estimate says over: ask the store, which knows the logs. */
		if ((now_bytes = store_ended_bytes(d->store, e->uid)) < 0)
			return -1;
		e->bytes = (uint64_t)now_bytes;
		if (e->bytes <= max)
			continue;
		/* Down to seven eighths of the budget, so that the next ends do
		 * not each cost a removal. A batch a commit; more next time. */
		if ((freed = store_prune_user(d->store, e->uid, e->bytes - max + max / 8)) < 0)
			return -1;
		removed = (uint64_t)freed;
		e->bytes = removed > e->bytes ? 0 : e->bytes - removed;
		if (e->bytes > max)
			d->over_budget = true;
		log_info("uid %u: removed %" PRIu64 " bytes of its oldest ended jobs from the store "
		         "(keep_ended_per_user %" PRIu64 ")", (unsigned)e->uid, removed, max);
	}
	return 0;
}

void usage_free(struct daemon *d)
{
	idmap_destroy(&d->ended_uids);
	free(d->ended);
	d->ended = NULL;
	d->nended = d->ended_cap = 0;
}
