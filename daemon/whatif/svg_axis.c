/* The axes of the SVG charts (svg_axis.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "svg_axis.h"

/* An axis never spans more than this, so that its padding and step stay
 * finite; points beyond it are pinned to the plot's edge. */
#define LIM 1e300

/* "2.50" -> "2.5", "3.0" -> "3"; "1e+06" -> "1e6", "2e-05" -> "2e-5". */
static void tidy(char *b)
{
	char *e = strchr(b, 'e'), *d;

	if (!e && strchr(b, '.')) {
		for (d = b + strlen(b); d[-1] == '0'; d--)
			d[-1] = '\0';
		if (d[-1] == '.')
			d[-1] = '\0';
	}
	if (!e)
		return;
	d = e + 1 + (e[1] == '-');
	if (*d == '+')
		memmove(d, d + 1, strlen(d));
	while (d[0] == '0' && d[1])
		memmove(d, d + 1, strlen(d));
}

/* Decimals that show v exactly enough: 2.5 needs one more than 2. */
static int decimals(double step)
{
	int d = (int)ceil(-log10(step) - 1e-9);

	d = d < 0 ? 0 : d > 15 ? 15 : d;
	if (d < 15 && fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-6)
		d++;
	return d;
}

/* A tick label: plain digits, k/M/G/T for thousands up, an exponent only
 * for the very large or very small. On a linear axis (step > 0) all labels
 * share the unit of the largest and show as many decimals as the step
 * needs; otherwise (step 0) each label stands alone. */
static void fmt_num(char *b, size_t sz, double v, double step, double maxabs)
{
	double div = 1;
	char suf = 0;
	size_t len;

	if (step > 0 && fabs(v) < step * 1e-6)
		v = 0;	/* rounding noise, or a -0 */
	if (v != 0 && (maxabs >= 1e15 || maxabs < 1e-3)) {
		double e = floor(log10(step > 0 ? step : 1));
		int prec = step > 0 ? (int)(floor(log10(maxabs)) - e) + 1 +
		                      decimals(step / pow(10, e)) : 3;

		snprintf(b, sz, "%.*g", prec < 1 ? 1 : prec > 15 ? 15 : prec, v);
		tidy(b);
		return;
	}
	/* "1000" reads well among 0, 500, 1500; on a log axis "1k" beside "10k". */
	if (maxabs >= (step > 0 ? 1e4 : 1e3)) {
		int u = (int)floor(log10(maxabs) / 3);

		u = u < 1 ? 1 : u > 4 ? 4 : u;	/* rounding at 1e3 or 1e15 */
		div = pow(1000, u);
		suf = v != 0 ? "kMGT"[u - 1] : 0;
	}
	if (step > 0)
		snprintf(b, sz, "%.*f", decimals(step / div), v / div);
	else
		snprintf(b, sz, "%.4g", v / div);
	tidy(b);
	len = strlen(b);
	if (suf && len + 1 < sz) {
		b[len] = suf;
		b[len + 1] = '\0';
	}
}

void svg_tick_label(char *b, size_t sz, const struct svg_axis *a, const struct svg_tick *t)
{
	if (t->value) {
		snprintf(b, sz, "%.6g", t->val);	/* as the CSV has it */
		tidy(b);
	} else if (a->log && (t->pos < -3 || t->pos > 14)) {
		snprintf(b, sz, "1e%d", (int)t->pos);
	} else if (a->log) {
		fmt_num(b, sz, t->val, 0, t->val);
	} else {
		fmt_num(b, sz, t->val, a->step, a->maxabs);
	}
}

void svg_span(double mn, double mx, bool pad, bool from_zero, double *lo, double *hi)
{
	double dmin, dmax;

	if (!(mn <= mx))
		mn = 0, mx = 1;
	mn = fmax(mn, -LIM);
	mx = fmin(fmax(mx, mn), LIM);
	dmin = mn, dmax = mx;
	if (from_zero)
		mn = fmin(mn, 0), mx = fmax(mx, 0);
	/* Past 1e-290 the steps would be subnormal numbers, without precision. */
	if (mx - mn <= 1e-9 * fmax(fabs(mn), fabs(mx)) || mx - mn < 1e-290) {
		double c = (mn + mx) / 2, d = fabs(c) > 1e-290 ? fabs(c) * 0.1 : 1;

		mn = c - d, mx = c + d;
	} else if (pad) {
		double d = (mx - mn) * 0.05;

		mn -= d, mx += d;
	}
	*lo = mn < 0 && dmin >= 0 ? 0 : mn;
	*hi = mx > 0 && dmax <= 0 && dmin < 0 ? 0 : mx;
}

double svg_px(const struct svg_axis *a, double pos)
{
	double p = a->p0 + (pos - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
	double mn = fmin(a->p0, a->p1), mx = fmax(a->p0, a->p1);

	return p < mn ? mn : p > mx ? mx : p;
}

double svg_data_px(const struct svg_axis *a, double v)
{
	return svg_px(a, a->log ? log10(v) : v);
}

static void add_tick(struct svg_axis *a, double pos, double val, bool value)
{
	if (a->nt < SVG_MAXT)
		a->t[a->nt++] = (struct svg_tick){ pos, val, value, true };
}

/* Steps 1, 2, 2.5 and 5 x 10^k are at most 2x apart, so one of them puts
 * range/step in [4, 8): 4 to 8 ticks inside the range, as near 6 as can
 * be. Stretched, the axis then grows to the outer ticks around it. */
void svg_lin_axis(struct svg_axis *a, double lo, double hi, bool stretch)
{
	static const double mult[] = { 1, 2, 2.5, 5 };
	double range = hi - lo, mag = pow(10, floor(log10(range)) - 1);
	double step = range / 5, first = ceil(lo / step), last = floor(hi / step);
	int best = 0;

	for (int e = 0; e < 3; e++, mag *= 10)
		for (int m = 0; m < 4; m++) {
			double s = mult[m] * mag, f, l;
			int c;

			f = stretch ? floor(lo / s + 1e-9) : ceil(lo / s - 1e-9);
			l = stretch ? ceil(hi / s - 1e-9) : floor(hi / s + 1e-9);
			c = (int)(l - f) + 1;
			if (c >= 4 && c <= 8 && (!best || abs(c - 6) < abs(best - 6)))
				best = c, step = s, first = f, last = l;
		}
	a->step = step;
	a->lo = stretch ? first * step : lo;
	a->hi = stretch ? last * step : hi;
	a->maxabs = fmax(fabs(a->lo), fabs(a->hi));
	for (double k = first; k <= last + 0.5; k++)
		add_tick(a, k * step, k * step, false);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Each tick labelled if its label clears the last labelled one (about
 * 6.5 px a character at 11 px, and a gap of 8); the ticks are in order. */
static void make_room(struct svg_axis *a)
{
	char b[64], c[64];
	size_t last = SIZE_MAX;

	for (size_t i = 0; i < a->nt; i++) {
		svg_tick_label(b, sizeof b, a, &a->t[i]);
		a->t[i].label = true;
		if (last != SIZE_MAX) {
			svg_tick_label(c, sizeof c, a, &a->t[last]);
			a->t[i].label = fabs(svg_px(a, a->t[i].pos) - svg_px(a, a->t[last].pos)) >=
			                3.3 * (double)(strlen(b) + strlen(c)) + 8;
		}
		if (a->t[i].label)
			last = i;
	}
}

void svg_x_axis(struct svg_axis *a, const double *xs, size_t nx, bool logx)
{
	double v[SVG_VALUE_TICKS + 1], mn = INFINITY, mx = -INFINITY, lo, hi;
	size_t nv = 0;

	for (size_t i = 0; i < nx; i++) {
		bool seen = false;

		mn = fmin(mn, xs[i]), mx = fmax(mx, xs[i]);
		for (size_t j = 0; j < nv; j++)
			seen |= v[j] == xs[i];
		if (!seen && nv <= SVG_VALUE_TICKS)
			v[nv++] = xs[i];
	}
	a->log = logx;
	a->nt = 0;
	if (logx) {
		/* A twentieth of the span each side; a single value gets a decade. */
		double d = log10(mx) - log10(mn) < 1e-9 ? 0.5 : (log10(mx) - log10(mn)) * 0.05;

		lo = log10(mn) - d, hi = log10(mx) + d;
	} else {
		svg_span(mn, mx, true, false, &lo, &hi);
	}
	a->lo = lo, a->hi = hi;
	if (nv <= SVG_VALUE_TICKS) {
		qsort(v, nv, sizeof *v, cmp_double);
		for (size_t i = 0; i < nv; i++)
			add_tick(a, logx ? log10(v[i]) : v[i], v[i], true);
	} else if (logx) {
		int e0 = (int)ceil(lo), e1 = (int)floor(hi), k = (e1 - e0 + 8) / 8;

		for (int e = e0; e <= e1; e += k)
			add_tick(a, e, pow(10, e), false);
		if (a->nt < 2) {	/* within a decade: its ends */
			a->nt = 0;
			add_tick(a, log10(mn), mn, true);
			add_tick(a, log10(mx), mx, true);
		}
	} else {
		svg_lin_axis(a, lo, hi, false);
	}
	make_room(a);
}
