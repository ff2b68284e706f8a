/* SVG line and bar charts (svg.h).
 *
 * Every format string is a literal (-Wformat=2): caller text goes through
 * xml_text, numbers through fixed formats. Input is checked in full before
 * the first byte is written, so a refused chart leaves the stream as it was. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "svg.h"

/* The plot area: the legend takes the right margin, tick labels the others. */
enum { W = 800, H = 480, X0 = 72, X1 = 620, Y0 = 44, MB = 56, MAXT = 24 };
/* An axis never spans more than this, so that its padding and step stay
 * finite; points beyond it are pinned to the plot's edge. */
#define LIM 1e300

/* Tableau 10: distinct hues that survive most colour-vision deficiencies.
 * Past ten series, lines repeat the colours dashed. */
static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};
#define NPAL (sizeof palette / sizeof palette[0])
#define DASH(k) ((k) / NPAL % 2 ? " stroke-dasharray=\"6 3\"" : "")

struct tick {
	double pos;		/* in axis units: log10(x) on a log axis */
	double val;		/* the value shown; for a decade, its exponent */
	bool decade, label;
};

struct axis {
	double lo, hi;		/* axis units */
	double p0, p1;		/* their pixels */
	double step, maxabs;	/* the shared label format of a linear axis */
	bool log;
	size_t nt;
	struct tick t[MAXT];
};

/* Length of the valid UTF-8 sequence at p, or 0. Overlongs, surrogates,
 * code points past U+10FFFF and U+FFFE/U+FFFF are refused as XML parsers
 * do. A NUL fails the continuation test, so nothing past the end is read. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n = *p < 0x80 ? 1 : *p < 0xc2 ? 0 : *p < 0xe0 ? 2 : *p < 0xf0 ? 3 : *p < 0xf5 ? 4 : 0;
	unsigned lo = *p == 0xe0 ? 0xa0 : *p == 0xf0 ? 0x90 : 0x80;
	unsigned hi = *p == 0xed ? 0x9f : *p == 0xf4 ? 0x8f : 0xbf;

	if (n < 2)
		return n;
	if (p[1] < lo || p[1] > hi || (n > 2 && (p[2] & 0xc0) != 0x80) ||
	    (n > 3 && (p[3] & 0xc0) != 0x80))
		return 0;
	return n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe ? 0 : n;
}

/* Text fit for element content and for a double-quoted attribute alike. */
static void xml_text(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		size_t n = utf8_len(p);
		const char *ent = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" :
				  *p == '"' ? "&quot;" : *p == '\'' ? "&apos;" : NULL;

		if (n == 0)
			fputs("\xef\xbf\xbd", out);	/* U+FFFD */
		else if (ent)
			fputs(ent, out);
		else if (*p >= 0x20 && *p != 0x7f)
			fwrite(p, 1, n, out);
		p += n ? n : 1;
	}
}

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
		int prec = step > 0 ? (int)(floor(log10(maxabs)) - floor(log10(step))) + 1 : 3;

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
	if (step > 0) {
		int d = (int)ceil(-log10(step / div) - 1e-9);

		snprintf(b, sz, "%.*f", d < 0 ? 0 : d > 15 ? 15 : d, v / div);
	} else {
		snprintf(b, sz, "%.4g", v / div);
	}
	tidy(b);
	len = strlen(b);
	if (suf && len + 1 < sz) {
		b[len] = suf;
		b[len + 1] = '\0';
	}
}

static void fmt_tick(char *b, size_t sz, const struct axis *a, const struct tick *t)
{
	if (t->decade && (t->val < -3 || t->val > 14))
		snprintf(b, sz, "1e%d", (int)t->val);
	else if (t->decade)
		fmt_num(b, sz, pow(10, t->val), 0, pow(10, t->val));
	else
		fmt_num(b, sz, t->val, a->step, a->log ? fabs(t->val) : a->maxabs);
}

/* The range an axis shows for data in [mn, mx] (mn > mx: no data), widened
 * so that a flat or vanishing range still gets a scale, and never padded
 * across zero when the data does not cross it. */
static void span(double mn, double mx, bool pad, bool from_zero, double *lo, double *hi)
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

/* Pinned to the plot: values past the axis (beyond LIM) stay in view. */
static double px(const struct axis *a, double v)
{
	double p = a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
	double mn = fmin(a->p0, a->p1), mx = fmax(a->p0, a->p1);

	return p < mn ? mn : p > mx ? mx : p;
}

static double data_px(const struct axis *a, double v)
{
	return px(a, a->log ? log10(v) : v);
}

static void add_tick(struct axis *a, double pos, double val, bool decade, bool label)
{
	if (a->nt < MAXT)
		a->t[a->nt++] = (struct tick){ pos, val, decade, label };
}

/* Ticks at multiples of 1, 2 or 5 x 10^k, as near six as the range allows,
 * the axis stretched to the outer ones. Some step always gives 4 to 8: the
 * candidates are at most 2.5x apart and range/step in [2.4, 6] does. */
static void lin_axis(struct axis *a, double lo, double hi)
{
	static const double mult[] = { 1, 2, 5 };
	double range = hi - lo, mag = pow(10, floor(log10(range)) - 1);
	double step = range / 5, first = lo / step, last = hi / step;
	int best = 0;

	for (int e = 0; e < 3; e++, mag *= 10)
		for (int m = 0; m < 3; m++) {
			double s = mult[m] * mag, f = floor(lo / s + 1e-9), l = ceil(hi / s - 1e-9);
			int c = (int)(l - f) + 1;

			if (c >= 4 && c <= 8 && (!best || abs(c - 6) < abs(best - 6)))
				best = c, step = s, first = f, last = l;
		}
	a->step = step;
	a->lo = first * step;
	a->hi = last * step;
	a->maxabs = fmax(fabs(a->lo), fabs(a->hi));
	for (double k = first; k <= last + 0.5; k++)
		add_tick(a, k * step, k * step, false, true);
}

/* Whole decades, every k-th so at most eight, and the data's own x values
 * when there are few (xs, nx), each labelled only where its label clears
 * the others (about 6.5 px a character at 11 px, and a gap of 8). */
static void log_axis(struct axis *a, double mn, double mx, const double *xs, size_t nx)
{
	int e0 = (int)floor(log10(mn)), e1 = (int)ceil(log10(mx)), k;

	if (e0 == e1)
		e0--, e1++;
	k = (e1 - e0 + 6) / 7;
	a->log = true;
	a->lo = e0;
	a->hi = e0 + k * ((e1 - e0 + k - 1) / k);
	for (int e = e0; e <= a->hi; e += k)
		add_tick(a, e, e, true, true);
	for (size_t i = 0; i < nx; i++) {
		bool dup = false;

		for (size_t j = 0; j < a->nt; j++)
			dup |= fabs(a->t[j].pos - log10(xs[i])) < 1e-9;
		if (!dup)
			add_tick(a, log10(xs[i]), xs[i], false, false);
	}
	for (size_t i = 0; i < a->nt; i++) {
		char b[64], c[64];
		bool room = true;

		fmt_tick(b, sizeof b, a, &a->t[i]);
		for (size_t j = 0; j < a->nt; j++) {
			fmt_tick(c, sizeof c, a, &a->t[j]);
			room &= !(a->t[j].label && fabs(px(a, a->t[j].pos) - px(a, a->t[i].pos)) <
				  3.3 * (double)(strlen(b) + strlen(c)) + 8);
		}
		a->t[i].label |= room;
	}
}

static void text_el(FILE *out, double x, double y, const char *attrs, const char *s)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	fputs(attrs, out);
	putc('>', out);
	xml_text(out, s);
	fputs("</text>\n", out);
}

/* The document's start, the title, the grid with the ticks and labels of
 * the y axis and of the x axis if given (a bar chart labels its categories
 * itself), the axis lines and their titles. */
static void frame(FILE *out, const struct svg_axes *ax, const struct axis *xa,
		  const struct axis *ya)
{
	char b[64];
	double ybot = ya->p0;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" version=\"1.1\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H, W, H, W, H);
	if (ax->title)
		text_el(out, (X0 + X1) / 2.0, 26, " class=\"title\" text-anchor=\"middle\" "
			"font-size=\"16\" font-weight=\"bold\"", ax->title);
	fputs("<g class=\"grid\" stroke=\"#e4e4e4\">\n", out);
	for (size_t i = 0; i < ya->nt; i++)
		fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
			X0, X1, px(ya, ya->t[i].pos), px(ya, ya->t[i].pos));
	for (size_t i = 0; xa && i < xa->nt; i++)
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\"%s/>\n",
			px(xa, xa->t[i].pos), px(xa, xa->t[i].pos), Y0, ybot,
			xa->t[i].decade || !xa->log ? "" : " stroke-dasharray=\"2 3\"");
	fputs("</g>\n<g font-size=\"11\" fill=\"#333\">\n", out);
	for (size_t i = 0; i < ya->nt; i++) {
		fmt_tick(b, sizeof b, ya, &ya->t[i]);
		text_el(out, X0 - 6, px(ya, ya->t[i].pos) + 4, " class=\"ytick\" text-anchor=\"end\"", b);
	}
	for (size_t i = 0; xa && i < xa->nt; i++) {
		if (!xa->t[i].label)
			continue;
		fmt_tick(b, sizeof b, xa, &xa->t[i]);
		text_el(out, px(xa, xa->t[i].pos), ybot + 16, " class=\"xtick\" text-anchor=\"middle\"", b);
	}
	fprintf(out, "</g>\n<path d=\"M%d %d V%.1f H%d\" fill=\"none\" stroke=\"#444\"/>\n",
		X0, Y0, ybot, X1);
	if (ax->xlabel)
		text_el(out, (X0 + X1) / 2.0, H - 12, " class=\"xlabel\" text-anchor=\"middle\"", ax->xlabel);
	if (ax->ylabel) {
		fprintf(out, "<text class=\"ylabel\" text-anchor=\"middle\" "
			"transform=\"translate(18 %.1f) rotate(-90)\">", (Y0 + ybot) / 2);
		xml_text(out, ax->ylabel);
		fputs("</text>\n", out);
	}
}

static void series_open(FILE *out, const char *name, size_t k)
{
	fputs("<g class=\"series\" data-name=\"", out);
	xml_text(out, name);
	fprintf(out, "\" stroke=\"%s\" fill=\"%s\">\n", palette[k % NPAL], palette[k % NPAL]);
}

/* One legend row: a line and marker for a line chart, a box for bars. The
 * rows close up to fit the plot's height when there are many series. */
static void legend_item(FILE *out, size_t k, size_t ns, double ybot, const char *name, bool bar)
{
	double rh = fmin(18, (ybot - Y0) / (double)ns), y = Y0 + 8 + rh * (double)k;
	const char *c = palette[k % NPAL];

	if (bar)
		fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n",
			X1 + 16, y - 5, c);
	else
		fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2\"%s/><circle cx=\"%d\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
			X1 + 12, X1 + 34, y, y, c, DASH(k), X1 + 23, y, c);
	text_el(out, X1 + 40, y + 4, "", name);
}

int svg_line_chart(FILE *out, const struct svg_axes *ax, const struct svg_series *s, size_t ns)
{
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	double xs[9], lo, hi;
	size_t nx = 0, npts = 0;
	struct axis xa = { .p0 = X0, .p1 = X1 }, ya = { .p0 = H - MB, .p1 = Y0 };

	if (!out || !ax || !s || ns == 0)
		return -1;
	for (size_t k = 0; k < ns; k++) {
		if (s[k].n && (!s[k].x || !s[k].y))
			return -1;
		for (size_t i = 0; i < s[k].n; i++, npts++) {
			double x = s[k].x[i], y = s[k].y[i];
			bool seen = false;

			if (!isfinite(x) || (ax->logx && x <= 0))
				return -1;
			xmin = fmin(xmin, x), xmax = fmax(xmax, x);
			if (isfinite(y))
				ymin = fmin(ymin, y), ymax = fmax(ymax, y);
			for (size_t j = 0; j < nx; j++)
				seen |= xs[j] == x;
			if (!seen && nx < 9)
				xs[nx++] = x;
		}
	}
	if (npts == 0)
		return -1;
	if (ax->logx) {
		log_axis(&xa, xmin, xmax, xs, nx <= 8 ? nx : 0);
	} else {
		span(xmin, xmax, false, false, &lo, &hi);
		lin_axis(&xa, lo, hi);
	}
	span(ymin, ymax, true, ax->y_from_zero, &lo, &hi);
	lin_axis(&ya, lo, hi);

	frame(out, ax, &xa, &ya);
	for (size_t k = 0; k < ns; k++) {
		const double *x = s[k].x, *y = s[k].y;

		series_open(out, s[k].name, k);
		/* A polyline for each unbroken run of two points or more. */
		for (size_t i = 0; i < s[k].n; i++) {
			bool prev = i > 0 && isfinite(y[i - 1]), next = i + 1 < s[k].n && isfinite(y[i + 1]);

			if (!isfinite(y[i]) || (!prev && !next))
				continue;
			if (!prev)
				fprintf(out, "<polyline fill=\"none\" stroke-width=\"2\"%s points=\"", DASH(k));
			fprintf(out, "%.1f,%.1f", data_px(&xa, x[i]), px(&ya, y[i]));
			fputs(next ? " " : "\"/>\n", out);
		}
		/* A dense series (a time line) is its line: its markers stay, for
		 * the data they carry, but too small to hide it. */
		for (size_t i = 0; i < s[k].n; i++)
			if (isfinite(y[i]))
				fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" %s "
					"data-x=\"%.6g\" data-y=\"%.6g\"/>\n",
					data_px(&xa, x[i]), px(&ya, y[i]),
					s[k].n > 60 ? "r=\"0.8\"" : "r=\"3\" stroke=\"white\"", x[i], y[i]);
		fputs("</g>\n", out);
	}
	fputs("<g class=\"legend\">\n", out);
	for (size_t k = 0; k < ns; k++)
		legend_item(out, k, ns, ya.p0, s[k].name, false);
	fputs("</g>\n</svg>\n", out);
	return ferror(out) ? -1 : 0;
}

int svg_bar_chart(FILE *out, const struct svg_axes *ax, const char *const *cats, size_t ncat,
		  const struct svg_bar_series *series, size_t ns)
{
	double ymin = INFINITY, ymax = -INFINITY, lo, hi, band, bw, base;
	size_t maxlen = 0, every = 1;
	bool rotate;
	struct axis ya = { .p1 = Y0 };

	if (!out || !ax || !cats || ncat == 0 || !series || ns == 0)
		return -1;
	for (size_t k = 0; k < ns; k++) {
		if (!series[k].y)
			return -1;
		for (size_t i = 0; i < ncat; i++)
			if (isfinite(series[k].y[i]))
				ymin = fmin(ymin, series[k].y[i]), ymax = fmax(ymax, series[k].y[i]);
	}
	for (size_t i = 0; i < ncat; i++)
		if (cats[i] && strlen(cats[i]) > maxlen)
			maxlen = strlen(cats[i]);
	/* Labels side by side when they fit, else at 45 degrees, about 14 px
	 * apart; then only every k-th if that is still too close. The plot
	 * gives up height for the slanted labels, up to 16 characters' worth. */
	band = (double)(X1 - X0) / (double)ncat;
	rotate = band < 6.5 * (double)maxlen + 6;
	if (rotate)
		every = (size_t)ceil(14 / band);
	ya.p0 = H - MB - (rotate ? 4.6 * (double)(maxlen < 16 ? maxlen : 16) : 0);
	span(ymin, ymax, true, ax->y_from_zero, &lo, &hi);
	lin_axis(&ya, lo, hi);
	base = px(&ya, fmin(fmax(0, ya.lo), ya.hi));
	bw = band * 0.8 / (double)ns;

	frame(out, ax, NULL, &ya);
	fputs("<g font-size=\"11\" fill=\"#333\">\n", out);
	for (size_t i = 0; i < ncat; i += every) {
		double x = X0 + band * ((double)i + 0.5) + (rotate ? 4 : 0), y = ya.p0 + 16;

		fprintf(out, "<text class=\"cat\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
			"transform=\"rotate(%d %.1f %.1f)\">", x, y, rotate ? "end" : "middle",
			rotate ? -45 : 0, x, y);
		xml_text(out, cats[i]);
		fputs("</text>\n", out);
	}
	fputs("</g>\n", out);
	for (size_t k = 0; k < ns; k++) {
		series_open(out, series[k].name, k);
		for (size_t i = 0; i < ncat; i++) {
			double v = series[k].y[i], top = px(&ya, v);

			if (!isfinite(v))
				continue;
			fputs("<rect class=\"bar\" data-cat=\"", out);
			xml_text(out, cats[i]);
			fprintf(out, "\" data-y=\"%.6g\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" stroke=\"none\"/>\n", v,
				X0 + band * ((double)i + 0.1) + bw * (double)k,
				fmin(top, base), bw > 3 ? bw - 1 : bw, fabs(top - base));
		}
		fputs("</g>\n", out);
	}
	fputs("<g class=\"legend\">\n", out);
	for (size_t k = 0; k < ns; k++)
		legend_item(out, k, ns, ya.p0, series[k].name, true);
	fputs("</g>\n</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
