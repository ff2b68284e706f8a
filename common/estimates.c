/* Runtime estimate models (see estimates.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "estimates.h"
#include "stats.h"

int est_parse(const char *spec, struct est_model *m, char *err, size_t errlen)
{
	char *end;
	double v;

	*m = (struct est_model){ .kind = EST_TRACE, .param = 1, .cap = EST_DEFAULT_CAP };
	if (strcmp(spec, "trace") == 0)
		return 0;
	if (strcmp(spec, "exact") == 0) {
		m->kind = EST_EXACT;
		return 0;
	}
	if (strcmp(spec, "model") == 0) {
		m->kind = EST_MODEL;
		return 0;
	}
	if (strcmp(spec, "history") == 0) {
		m->kind = EST_HISTORY;
		return 0;
	}
	if (strncmp(spec, "f=", 2) == 0 || spec[0] == 'x') {
		const char *num = spec[0] == 'x' ? spec + 1 : spec + 2;

		/* Decimal digits and a point only (strtod alone would take hex,
		 * an exponent, "inf"). */
		v = *num && strspn(num, "0123456789.") == strlen(num) ? strtod(num, &end) : NAN;
		if (isnan(v) || *end || !isfinite(v)) {
			snprintf(err, errlen, "'%s': expected a number after '%s'", spec,
			         spec[0] == 'x' ? "x" : "f=");
			return -1;
		}
		if (spec[0] == 'x') {
			if (v <= 0 || v > 1000) {
				snprintf(err, errlen, "'%s': K must be above 0 and at most 1000", spec);
				return -1;
			}
			m->kind = EST_SCALED;
		} else {
			if (v < 1 || v > 1e6) {
				snprintf(err, errlen, "'%s': F must be from 1 to 1000000 (e is drawn in [r, F r])",
				         spec);
				return -1;
			}
			m->kind = EST_UNIFORM;
		}
		m->param = v;
		return 0;
	}
	snprintf(err, errlen, "unknown estimate model '%s' (trace, exact, f=F, xK, model or history)",
	         spec);
	return -1;
}

void est_name(const struct est_model *m, char *buf, size_t len)
{
	switch (m->kind) {
	case EST_TRACE:   snprintf(buf, len, "trace"); break;
	case EST_EXACT:   snprintf(buf, len, "exact"); break;
	case EST_UNIFORM: snprintf(buf, len, "f=%g", m->param); break;
	case EST_SCALED:  snprintf(buf, len, "x%g", m->param); break;
	case EST_MODEL:   snprintf(buf, len, "model"); break;
	case EST_HISTORY: snprintf(buf, len, "history"); break;
	}
}

bool est_uses_seed(const struct est_model *m)
{
	/* f=1: r + (1 - u) * 0 * r is r whatever u is. */
	return m->kind == EST_MODEL || (m->kind == EST_UNIFORM && m->param > 1.0);
}

/* SplitMix64's finaliser: a good mix of every input bit, cheap, and the
 * same everywhere (no library generator whose sequence could change). */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

double est_uniform(uint64_t seed, uint64_t key, uint32_t stream)
{
	uint64_t x = mix64(mix64(mix64(seed) ^ key) ^ stream);

	return (double)((x >> 11) + 1) * 0x1.0p-53;	/* (0, 1] */
}

/* Whole seconds, rounded up, within the core's bound. */
static bf_time ceil_sec(double sec)
{
	double c = ceil(sec);

	if (c >= (double)(BF_MAX_DURATION / BF_SEC))
		return BF_MAX_DURATION / BF_SEC * BF_SEC;
	return c <= 0 ? 0 : (bf_time)c * BF_SEC;
}

bf_time est_draw(const struct est_model *m, uint64_t seed, uint64_t key, bf_time run,
                 bf_time trace_est)
{
	double r = (double)run / BF_SEC, u;

	switch (m->kind) {
	case EST_TRACE:
	case EST_HISTORY:
		return trace_est > 0 ? trace_est : run;
	case EST_EXACT:
		return run;
	case EST_UNIFORM:
		/* u is in (0, 1]; 1 - u in [0, 1), so F = 1 is exact. */
		return ceil_sec(r + (1.0 - est_uniform(seed, key, 0)) * (m->param - 1.0) * r);
	case EST_SCALED:
		/* To the microsecond first: K = 1.1 times 50 s is 55.000000000000007 s
		 * in binary, which must not round up to 56 s. */
		return trace_est > 0 ? ceil_sec(nearbyint((double)trace_est * m->param) / BF_SEC) : run;
	case EST_MODEL:
		if (est_uniform(seed, key, 1) <= 0.1)	/* the job will be killed */
			return (bf_time)floor(0.99 * r) * BF_SEC;
		u = est_uniform(seed, key, 2);
		r /= u;
		if (run < 90 * BF_SEC)
			r *= 10;
		/* The cap is the longest limit a user could ask for; a job that
		 * really ran longer was allowed to, so it is never cut below r. */
		{
			bf_time e = ceil_sec(r), cap = m->cap > run ? m->cap : run;

			return e < cap ? e : cap;
		}
	}
	return run;
}

/* ---- history ------------------------------------------------------------- */

struct hkey {
	uint32_t user, exe, size;
	bool used;
	bf_time last;		/* when its last run ended */
	struct stats_run runs;
};

struct est_history {
	struct hkey *slot;
	size_t cap, len;	/* open addressing, cap a power of two */
	struct stats_run all;	/* the whole workload's */
};

struct est_history *est_history_new(void)
{
	struct est_history *h = calloc(1, sizeof *h);

	if (!h)
		return NULL;
	h->cap = 1024;
	h->slot = calloc(h->cap, sizeof *h->slot);
	if (!h->slot) {
		free(h);
		return NULL;
	}
	return h;
}

void est_history_free(struct est_history *h)
{
	if (!h)
		return;
	free(h->slot);
	free(h);
}

static size_t hkey_hash(uint32_t user, uint32_t exe, uint32_t size)
{
	return (size_t)mix64(((uint64_t)user << 32 | exe) ^ mix64(size));
}

static struct hkey *find(struct est_history *h, uint32_t user, uint32_t exe, uint32_t size)
{
	size_t i = hkey_hash(user, exe, size) & (h->cap - 1);

	while (h->slot[i].used && !(h->slot[i].user == user && h->slot[i].exe == exe &&
	                            h->slot[i].size == size))
		i = (i + 1) & (h->cap - 1);
	return &h->slot[i];
}

static int grow(struct est_history *h)
{
	struct est_history n = { .cap = h->cap * 2, .all = h->all };

	n.slot = calloc(n.cap, sizeof *n.slot);
	if (!n.slot)
		return -1;
	for (size_t i = 0; i < h->cap; i++)
		if (h->slot[i].used)
			*find(&n, h->slot[i].user, h->slot[i].exe, h->slot[i].size) = h->slot[i];
	n.len = h->len;
	free(h->slot);
	*h = n;
	return 0;
}

static bf_time predict(const struct stats_run *r)
{
	bf_time e = ceil_sec(r->mean + EST_HISTORY_SDS * stats_run_sd(r));

	return e < BF_SEC ? BF_SEC : e;
}

bf_time est_history_predict(struct est_history *h, bf_time now, uint32_t user, uint32_t exe,
                            uint32_t size, bf_time fallback)
{
	struct hkey *k = find(h, user, exe, size);

	if (k->used && k->runs.n > 0 && now - k->last <= EST_HISTORY_FORGET)
		return predict(&k->runs);
	if (h->all.n > 0)
		return predict(&h->all);
	return fallback;
}

int est_history_record(struct est_history *h, bf_time now, uint32_t user, uint32_t exe,
                       uint32_t size, bf_time run)
{
	struct hkey *k;

	if (2 * (h->len + 1) > h->cap && grow(h) < 0)
		return -1;
	k = find(h, user, exe, size);
	if (!k->used) {
		*k = (struct hkey){ .user = user, .exe = exe, .size = size, .used = true };
		h->len++;
	} else if (now - k->last > EST_HISTORY_FORGET) {
		k->runs = (struct stats_run){ 0 };	/* a week unused: forgotten */
	}
	k->last = now;
	stats_run_add(&k->runs, (double)run / BF_SEC);
	stats_run_add(&h->all, (double)run / BF_SEC);
	return 0;
}
