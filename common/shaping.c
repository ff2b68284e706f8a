/* Workload shaping (see shaping.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "civil.h"
#include "shaping.h"

/* n decimal digits at s, nothing else: their value, or -1. */
static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int shape_when_parse(const char *s, struct shape_when *w, char *err, size_t errlen)
{
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	*w = (struct shape_when){ .set = true };
	if (s[0] == '+') {
		size_t nd = strspn(s + 1, "0123456789.");
		const char *unit = s + 1 + nd;
		double v;

		/* Decimal digits only: strtod would also take hex and exponents. */
		if (nd == 0 || (unit[0] && unit[1]) || !strchr("dhms", unit[0]))
			goto bad;
		v = strtod(s + 1, NULL);
		v *= unit[0] == 'd' ? 86400 : unit[0] == 'h' ? 3600 : unit[0] == 'm' ? 60 : 1;
		if (!isfinite(v) || v > 1e10)
			goto bad;
		w->sec = (int64_t)v;
		return 0;
	}
	{
		/* YYYY-MM-DD[THH:MM[:SS]], each field its exact digits. */
		size_t len = strlen(s);
		int y = digits(s, 4), mo, d, h = 0, mi = 0, sec = 0;

		if (len < 10 || y < 1970 || s[4] != '-' || s[7] != '-')
			goto bad;
		mo = digits(s + 5, 2);
		d = digits(s + 8, 2);
		if (len > 10) {
			if ((s[10] != 'T' && s[10] != ' ') || (len != 16 && len != 19) || s[13] != ':' ||
			    (h = digits(s + 11, 2)) < 0 || (mi = digits(s + 14, 2)) < 0)
				goto bad;
			if (len == 19 && (s[16] != ':' || (sec = digits(s + 17, 2)) < 0))
				goto bad;
		}
		if (mo < 1 || mo > 12 || d < 1 ||
		    d > mdays[mo - 1] + (mo == 2 && leap(y)) || h > 23 || mi > 59 || sec > 59)
			goto bad;
		w->absolute = true;
		w->sec = civil_days(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec;
		return 0;
	}
bad:
	snprintf(err, errlen, "'%s': expected a date YYYY-MM-DD[THH:MM[:SS]] (UTC) or an offset "
	         "from the trace's start such as +30d, +12h, +90m, +3600", s);
	return -1;
}

static bool excluded(const struct shaping *sh, uint32_t user)
{
	for (size_t i = 0; i < sh->nexclude; i++)
		if (sh->exclude[i] == user)
			return true;
	return false;
}

static int by_user_then_index(const void *a, const void *b, void *arg)
{
	const struct shape_job *jobs = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (jobs[x].user != jobs[y].user)
		return jobs[x].user < jobs[y].user ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* A flurry: any hour in which one user submitted at least `flurry` of the
 * kept jobs; every job of such an hour goes. With each user's jobs in
 * arrival order, a window [i, k] of `flurry` jobs within an hour marks them
 * all, and every window is looked at once. */
static int remove_flurries(const struct shaping *sh, const struct shape_job *jobs, size_t n,
                           bool *keep, struct shaping_counts *out)
{
	size_t *idx = malloc((n ? n : 1) * sizeof *idx), m = 0;

	if (!idx)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (keep[i] && jobs[i].user != UINT32_MAX)
			idx[m++] = i;
	qsort_r(idx, m, sizeof *idx, by_user_then_index, (void *)jobs);
	bool *mark = calloc(m ? m : 1, sizeof *mark);
	if (!mark) {
		free(idx);
		return -1;
	}
	for (size_t a = 0; a < m;) {
		size_t b = a;
		bool user_flurried = false;

		while (b < m && jobs[idx[b]].user == jobs[idx[a]].user)
			b++;
		for (size_t i = a; i + sh->flurry <= b; i++) {
			size_t k = i + sh->flurry - 1;

			if (jobs[idx[k]].submit - jobs[idx[i]].submit < 3600 * BF_SEC) {
				for (size_t q = i; q <= k; q++)
					mark[q] = true;
				user_flurried = true;
			}
		}
		out->flurry_users += user_flurried;
		a = b;
	}
	for (size_t q = 0; q < m; q++)
		if (mark[q]) {
			keep[idx[q]] = false;
			out->flurry_jobs++;
		}
	free(mark);
	free(idx);
	return 0;
}

int shape_apply(const struct shaping *sh, int64_t unix_start, struct shape_job *jobs, size_t n,
                bool *keep, struct shaping_counts *out, char *err, size_t errlen)
{
	int64_t from = INT64_MIN, to = INT64_MAX;

	*out = (struct shaping_counts){ .window_from = INT64_MIN, .window_to = INT64_MAX };
	for (size_t i = 0; i < n; i++)
		keep[i] = true;
	for (size_t i = 0; sh->nexclude && i < n; i++)
		if (excluded(sh, jobs[i].user)) {
			keep[i] = false;
			out->users_excluded++;
		}
	if (sh->flurry && remove_flurries(sh, jobs, n, keep, out) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int k = 0; k < 2; k++) {
		const struct shape_when *w = k ? &sh->to : &sh->from;
		int64_t *dst = k ? &to : &from;

		if (!w->set)
			continue;
		if (w->absolute && unix_start < 0) {
			snprintf(err, errlen, "--%s with a date needs the trace's UnixStartTime header; "
			         "give an offset such as +30d instead", k ? "to" : "from");
			return -1;
		}
		*dst = w->absolute ? w->sec - unix_start : w->sec;
	}
	out->window_from = from;
	out->window_to = to;
	for (size_t i = 0; i < n; i++) {
		int64_t sec = jobs[i].submit / BF_SEC;

		if (!keep[i])
			continue;
		if (sec < from) {
			keep[i] = false;
			out->before_window++;
		} else if (sec >= to) {
			keep[i] = false;
			out->after_window++;
		}
	}
	if (sh->load != 1.0 && sh->load > 0)
		shape_scale(jobs, n, keep, sh->load);
	return 0;
}

/* Load: gaps between arrivals divided by the factor, measured from the
 * first kept arrival, whole seconds as in the trace. */
void shape_scale(struct shape_job *jobs, size_t n, const bool *keep, double load)
{
	bf_time first = BF_NEVER;

	for (size_t i = 0; i < n; i++)
		if (keep[i] && first == BF_NEVER)
			first = jobs[i].submit;
	for (size_t i = 0; i < n; i++)
		if (keep[i]) {
			double gap = (double)(jobs[i].submit - first) / BF_SEC / load;

			jobs[i].submit = first + (bf_time)llround(gap) * BF_SEC;
		}
}
