/* A site sweep over seeds, summarized (see site_seeds.h): each setting's
 * figures as mean, spread and a confidence interval across its seeds, and
 * its gain over the first setting, paired by seed. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include "stats.h"
#include "jsonw.h"
#include "site_seeds.h"

enum { F_THROUGHPUT, F_SESSION, F_UTIL, F_RESPONSE, F_BSLD, NFIG };

static const char *const fig_key[NFIG] = {
	"throughput_jobs_per_hour", "session_length_jobs", "utilization", "response_avg_s",
	"bounded_slowdown_avg",
};

static double figure(const struct site_result *r, int f)
{
	const struct site_group *a = &r->all;

	switch (f) {
	case F_THROUGHPUT: return a->throughput;
	case F_SESSION: return a->session_length;
	case F_UTIL: return a->sum.utilization;
	case F_RESPONSE: return a->sum.avg_response;
	default: return a->sum.avg_bsld;
	}
}

/* Mean, sd and the interval of v[0..n): mean ± t * sd / sqrt(n), with
 * Student's t for n - 1 degrees of freedom (no interval for one value). */
struct spread {
	double mean, sd, lo, hi;
};

static struct spread spread_of(const double *v, size_t n)
{
	struct spread s;
	double half;

	stats_mean_sd(v, n, &s.mean, &s.sd);
	half = n >= 2 ? stats_t975((unsigned)(n - 1)) * s.sd / sqrt((double)n) : NAN;
	s.lo = s.mean - half;
	s.hi = s.mean + half;
	return s;
}

/* Setting k's figure f over its seeds; with base, the paired relative
 * differences to base's: res[k] / res[base] - 1 seed by seed. */
static struct spread over_seeds(const struct site_result *res, size_t nseeds, size_t k, int f,
                                const size_t *base, double *v)
{
	for (size_t d = 0; d < nseeds; d++) {
		double x = figure(&res[k * nseeds + d], f);

		if (base) {
			double b = figure(&res[*base * nseeds + d], f);

			x = b != 0 ? x / b - 1 : NAN;
		}
		v[d] = x;
	}
	return spread_of(v, nseeds);
}

/* The first setting with the same users as k: the one k is compared to
 * (settings go policy, then alpha, then users). */
static size_t base_of(const struct site_result *res, size_t nseeds, size_t k)
{
	size_t b = 0;

	while (res[b * nseeds].set.users != res[k * nseeds].set.users)
		b++;
	return b;
}

static const char *setting_name(const struct site_settings *s, char *buf, size_t len)
{
	if (s->policy == SCHED_CREASY)
		snprintf(buf, len, "creasy %g", s->alpha);
	else
		snprintf(buf, len, "%s", sched_policy_name(s->policy));
	return buf;
}

/* "12.34 ±0.56": the mean and the interval's half width. */
static const char *pm(const struct spread *s, double scale, int prec, char *buf, size_t len)
{
	if (isfinite(s->hi))
		snprintf(buf, len, "%.*f ±%.*f", prec, s->mean * scale, prec,
		         (s->hi - s->mean) * scale);
	else
		snprintf(buf, len, "%.*f", prec, s->mean * scale);
	return buf;
}

int site_seeds_text(FILE *out, const struct site_model *m, const struct site_result *res,
                    size_t nsettings, size_t nseeds)
{
	double *v = malloc(nseeds * sizeof *v);
	char name[48], c[5][40], gain[40];

	if (!v)
		return -1;
	fprintf(out, "site           model of %s\n", m->source);
	fprintf(out, "runs           %zu settings x %zu seeds (%" PRIu64 "..%" PRIu64 "), %" PRIu32
	        " nodes, %" PRIu32 " days\n", nsettings, nseeds, res[0].set.seed,
	        res[nseeds - 1].set.seed, res[0].nodes, res[0].set.days);
	fprintf(out, "jobs           runtime and estimate drawn %s, estimates %s\n",
	        res[0].set.joint_mix ? "for the size (joint)" : "whatever the size (independent)",
	        res[0].set.exact_estimates ? "exact" : "the trace's");
	fprintf(out, "figures        mean ±half width of the 95%% interval across seeds (Student's "
	        "t);\n               gain: throughput against the first line of the same users, "
	        "paired by seed\n\n");
	fprintf(out, "%-14s %5s %14s %12s %11s %14s %12s %16s\n", "policy", "users", "jobs/h",
	        "jobs/session", "util %", "response s", "bsld", "gain");
	for (size_t k = 0; k < nsettings; k++) {
		const struct site_result *r = &res[k * nseeds];
		size_t b = base_of(res, nseeds, k);
		struct spread s[NFIG], g;

		for (int f = 0; f < NFIG; f++)
			s[f] = over_seeds(res, nseeds, k, f, NULL, v);
		if (b != k) {
			g = over_seeds(res, nseeds, k, F_THROUGHPUT, &b, v);
			if (isfinite(g.hi))
				snprintf(gain, sizeof gain, "%+.1f%% ±%.1f", 100 * g.mean,
				         100 * (g.hi - g.mean));
			else
				snprintf(gain, sizeof gain, "%+.1f%%", 100 * g.mean);
		} else {
			snprintf(gain, sizeof gain, "-");
		}
		fprintf(out, "%-14s %5" PRIu32 " %14s %12s %11s %14s %12s %16s\n",
		        setting_name(&r->set, name, sizeof name), r->set.users,
		        pm(&s[F_THROUGHPUT], 1, 2, c[0], sizeof c[0]),
		        pm(&s[F_SESSION], 1, 2, c[1], sizeof c[1]),
		        pm(&s[F_UTIL], 100, 1, c[2], sizeof c[2]),
		        pm(&s[F_RESPONSE], 1, 0, c[3], sizeof c[3]),
		        pm(&s[F_BSLD], 1, 1, c[4], sizeof c[4]), gain);
	}
	free(v);
	return ferror(out) ? -1 : 0;
}

static void json_spread(struct jw *w, const char *key, const struct spread *s)
{
	jw_key(w, key);
	jw_open(w);
	jw_f64(w, "mean", s->mean);
	jw_f64(w, "sd", s->sd);
	jw_f64(w, "ci95_lo", s->lo);
	jw_f64(w, "ci95_hi", s->hi);
	jw_close(w);
}

int site_seeds_json(FILE *out, const struct site_model *m, const struct site_result *res,
                    size_t nsettings, size_t nseeds)
{
	struct jw w = { .out = out, .depth = 0, .first = true };
	double *v = malloc(nseeds * sizeof *v);

	if (!v)
		return -1;
	jw_open(&w);
	jw_str(&w, "model", m->source);
	jw_u64(&w, "nodes", res[0].nodes);
	jw_u64(&w, "days", res[0].set.days);
	jw_str(&w, "job_mix", res[0].set.joint_mix ? "joint" : "independent");
	jw_str(&w, "estimates", res[0].set.exact_estimates ? "exact" : "trace");
	jw_u64(&w, "seed_from", res[0].set.seed);
	jw_u64(&w, "seeds", nseeds);
	jw_key(&w, "settings");
	jw_open_array(&w);
	for (size_t k = 0; k < nsettings; k++) {
		const struct site_result *r = &res[k * nseeds];
		size_t b = base_of(res, nseeds, k);

		jw_open(&w);
		jw_str(&w, "policy", sched_policy_name(r->set.policy));
		if (r->set.policy == SCHED_CREASY)
			jw_f64(&w, "alpha", r->set.alpha);
		jw_u64(&w, "users", r->set.users);
		for (int f = 0; f < NFIG; f++) {
			struct spread s = over_seeds(res, nseeds, k, f, NULL, v);

			json_spread(&w, fig_key[f], &s);
		}
		if (b != k) {
			struct spread g = over_seeds(res, nseeds, k, F_THROUGHPUT, &b, v);

			json_spread(&w, "throughput_gain_vs_first", &g);
		}
		jw_close(&w);
	}
	jw_close_array(&w);
	jw_close(&w);
	putc('\n', out);
	free(v);
	return ferror(out) ? -1 : 0;
}
