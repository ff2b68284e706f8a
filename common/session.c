/* The users of a site-level simulation (see session.h). */
#include <stdlib.h>
#include <string.h>
#include "session.h"

double session_continue_p(double minutes)
{
	if (!(minutes > 0))
		minutes = 0;
	return 0.8 / (0.05 * minutes + 1.0);
}

/* The window of day d (0 is the first Monday): its start and end. */
static void window(const struct session_class *c, int64_t d, bf_time *start, bf_time *end)
{
	bf_time base = c->night ? SESSION_DAY_START + SESSION_DAY_LEN : SESSION_DAY_START;
	bf_time len = c->night ? SESSION_DAY - SESSION_DAY_LEN : SESSION_DAY_LEN;

	*start = d * SESSION_DAY + base + (bf_time)c->shift * 60 * BF_SEC;
	*end = *start + len;
}

static bool on_day(const struct session_class *c, int64_t d)
{
	int64_t wd = ((d % 7) + 7) % 7;	/* 0 Monday .. 6 Sunday */

	return c->weekend ? wd >= 5 : wd < 5;
}

/* The window that holds t, or else the next one. Windows are at most a
 * day long and start within a day of their day's midnight, so it starts
 * no earlier than the day before t's and within a week after it. */
static void window_at(const struct session_class *c, bf_time t, bf_time *s, bf_time *e)
{
	int64_t d0 = (t >= 0 ? t : t - SESSION_DAY + 1) / SESSION_DAY;

	for (int64_t d = d0 - 1; d <= d0 + 8; d++) {
		if (!on_day(c, d))
			continue;
		window(c, d, s, e);
		if (*e > t)
			return;
	}
	*s = *e = BF_NEVER;	/* not reached: every class has a window each week */
}

bf_time session_next_active(const struct session_class *c, bf_time t)
{
	bf_time s, e;

	window_at(c, t, &s, &e);
	return s > t ? s : t;
}

bf_time session_window_end(const struct session_class *c, bf_time t)
{
	bf_time s, e;

	window_at(c, t, &s, &e);
	return s <= t ? e : t;	/* not active: the window ends at once */
}

struct session_class session_draw_class(uint64_t *rng)
{
	struct session_class c;

	c.night = session_uniform(rng) >= SESSION_DAY_SHARE;
	c.weekend = session_uniform(rng) >= SESSION_WEEKDAY_SHARE;
	c.shift = (int)(session_rand(rng) % (2 * SESSION_MAX_SHIFT_MIN + 1)) - SESSION_MAX_SHIFT_MIN;
	return c;
}

int session_dist_add(struct session_dist *d, int64_t v, uint64_t count)
{
	if (count == 0)
		return 0;
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		int64_t *nv = realloc(d->v, cap * sizeof *nv);
		uint64_t *nc;

		if (!nv)
			return -1;
		d->v = nv;
		if (!(nc = realloc(d->cum, cap * sizeof *nc)))
			return -1;
		d->cum = nc;
		d->cap = cap;
	}
	d->v[d->n] = v;
	d->cum[d->n] = (d->n ? d->cum[d->n - 1] : 0) + count;
	d->n++;
	return 0;
}

uint64_t session_dist_total(const struct session_dist *d)
{
	return d->n ? d->cum[d->n - 1] : 0;
}

int64_t session_dist_draw(const struct session_dist *d, uint64_t *rng)
{
	uint64_t total = session_dist_total(d), x;
	size_t lo = 0, hi = d->n - 1;

	/* (the modulo's bias is below 2^-40 for any real trace's counts) */
	x = session_rand(rng) % total;
	while (lo < hi) {	/* the first i with cum[i] > x */
		size_t mid = lo + (hi - lo) / 2;

		if (d->cum[mid] > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return d->v[lo];
}

double session_dist_mean(const struct session_dist *d)
{
	double sum = 0;

	for (size_t i = 0; i < d->n; i++)
		sum += (double)d->v[i] * (double)(d->cum[i] - (i ? d->cum[i - 1] : 0));
	return d->n ? sum / (double)session_dist_total(d) : 0;
}

struct vc {
	int64_t v;
	uint64_t c;
};

static int by_value(const void *a, const void *b)
{
	const struct vc *x = a, *y = b;

	return (x->v > y->v) - (x->v < y->v);
}

int session_dist_sorted(const struct session_dist *d, struct session_dist *out)
{
	struct vc *s;
	int rc = 0;

	memset(out, 0, sizeof *out);
	if (!d->n)
		return 0;
	if (!(s = malloc(d->n * sizeof *s)))
		return -1;
	for (size_t i = 0; i < d->n; i++)
		s[i] = (struct vc){ d->v[i], d->cum[i] - (i ? d->cum[i - 1] : 0) };
	qsort(s, d->n, sizeof *s, by_value);
	for (size_t i = 0, j; i < d->n && rc == 0; i = j) {
		uint64_t c = 0;

		for (j = i; j < d->n && s[j].v == s[i].v; j++)
			c += s[j].c;
		rc = session_dist_add(out, s[i].v, c);
	}
	free(s);
	if (rc < 0)
		session_dist_free(out);
	return rc;
}

int64_t session_dist_quantile(const struct session_dist *d, double q)
{
	struct session_dist s;
	uint64_t want;
	size_t i = 0;
	int64_t out;

	if (!d->n || session_dist_sorted(d, &s) < 0)
		return 0;
	want = (uint64_t)(q * (double)(session_dist_total(&s) - 1));
	while (i + 1 < s.n && s.cum[i] <= want)
		i++;
	out = s.v[i];
	session_dist_free(&s);
	return out;
}

int64_t session_next_gap(const struct session_dist *think, const struct session_dist *brk,
                         double minutes, uint64_t *rng, bool *new_session)
{
	*new_session = !(session_uniform(rng) < session_continue_p(minutes));
	if (!*new_session)
		return think->n ? session_dist_draw(think, rng) : 60;
	return brk->n ? session_dist_draw(brk, rng) : 3600;
}

void session_dist_free(struct session_dist *d)
{
	free(d->v);
	free(d->cum);
	memset(d, 0, sizeof *d);
}
