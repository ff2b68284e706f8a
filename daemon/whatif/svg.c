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
#include "svg_axis.h"

/* The plot area: the legend takes the right margin, tick labels the others;
 * a right axis (X1R) takes some of the legend's room. */
enum { W = 800, H = 480, X0 = 72, X1 = 620, X1R = 580, Y0 = 44, MB = 56 };

/* Tableau 10: distinct hues that survive most colour-vision deficiencies.
 * Past ten series, lines repeat the colours dashed. */
static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};
#define NPAL (sizeof palette / sizeof palette[0])
#define DASH(k) ((k) / NPAL % 2 ? " stroke-dasharray=\"6 3\"" : "")

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

static void text_el(FILE *out, double x, double y, const char *attrs, const char *s)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	fputs(attrs, out);
	putc('>', out);
	xml_text(out, s);
	fputs("</text>\n", out);
}

/* An axis title turned on its side, centred at (x, y). */
static void side_label(FILE *out, const char *cls, double x, double y, const char *s)
{
	fprintf(out, "<text class=\"%s\" text-anchor=\"middle\" "
		"transform=\"translate(%.1f %.1f) rotate(-90)\">", cls, x, y);
	xml_text(out, s);
	fputs("</text>\n", out);
}

/* The document's start, the title, the grid with the ticks and labels of
 * the y axis (and of the right one, y2 not NULL) and of the x axis if
 * given (a bar chart labels its categories itself), the axis lines and
 * their titles. x1: the plot's right edge. */
static void frame(FILE *out, const struct svg_axes *ax, const struct svg_axis *xa,
		  const struct svg_axis *ya, const struct svg_axis *y2, double x1)
{
	char b[64];
	double ybot = ya->p0;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" version=\"1.1\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H, W, H, W, H);
	/* A long title gets smaller to fit the width: about 0.62 em a character. */
	if (ax->title) {
		double fs = fmax(9, fmin(14, (W - 16) / (0.62 * (double)strlen(ax->title) + 1)));

		fprintf(out, "<text x=\"%.1f\" y=\"26.0\" class=\"title\" text-anchor=\"middle\" "
			"font-size=\"%.1f\" font-weight=\"bold\">", W / 2.0, fs);
		xml_text(out, ax->title);
		fputs("</text>\n", out);
	}
	fputs("<g class=\"grid\" stroke=\"#e4e4e4\">\n", out);
	for (size_t i = 0; i < ya->nt; i++)
		fprintf(out, "<line x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
			X0, x1, svg_px(ya, ya->t[i].pos), svg_px(ya, ya->t[i].pos));
	for (size_t i = 0; xa && i < xa->nt; i++)
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\"/>\n",
			svg_px(xa, xa->t[i].pos), svg_px(xa, xa->t[i].pos), Y0, ybot);
	fputs("</g>\n<g font-size=\"11\" fill=\"#333\">\n", out);
	for (size_t i = 0; i < ya->nt; i++) {
		svg_tick_label(b, sizeof b, ya, &ya->t[i]);
		text_el(out, X0 - 6, svg_px(ya, ya->t[i].pos) + 4, " class=\"ytick\" text-anchor=\"end\"", b);
	}
	for (size_t i = 0; y2 && i < y2->nt; i++) {
		svg_tick_label(b, sizeof b, y2, &y2->t[i]);
		text_el(out, x1 + 6, svg_px(y2, y2->t[i].pos) + 4, " class=\"y2tick\" text-anchor=\"start\"", b);
	}
	for (size_t i = 0; xa && i < xa->nt; i++) {
		if (!xa->t[i].label)
			continue;
		svg_tick_label(b, sizeof b, xa, &xa->t[i]);
		text_el(out, svg_px(xa, xa->t[i].pos), ybot + 16, " class=\"xtick\" text-anchor=\"middle\"", b);
	}
	fprintf(out, "</g>\n<path d=\"M%d %d V%.1f H%.1f V%.1f\" fill=\"none\" stroke=\"#444\"/>\n",
		X0, Y0, ybot, x1, y2 ? (double)Y0 : ybot);
	if (ax->xlabel)
		text_el(out, (X0 + x1) / 2.0, H - 12, " class=\"xlabel\" text-anchor=\"middle\"", ax->xlabel);
	if (ax->ylabel)
		side_label(out, "ylabel", 18, (Y0 + ybot) / 2, ax->ylabel);
	if (y2 && ax->y2label)
		side_label(out, "y2label", x1 + 50, (Y0 + ybot) / 2, ax->y2label);
}

static void series_open(FILE *out, const char *name, size_t k)
{
	fputs("<g class=\"series\" data-name=\"", out);
	xml_text(out, name);
	fprintf(out, "\" stroke=\"%s\" fill=\"%s\">\n", palette[k % NPAL], palette[k % NPAL]);
}

/* One legend row at lx: a line and marker for a line chart, a box for
 * bars. The rows close up to fit the plot's height when there are many. */
static void legend_item(FILE *out, double lx, size_t k, size_t ns, double ybot, const char *name,
			bool bar)
{
	double rh = fmin(18, (ybot - Y0) / (double)ns), y = Y0 + 8 + rh * (double)k;
	const char *c = palette[k % NPAL];

	if (bar)
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n",
			lx + 4, y - 5, c);
	else
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2\"%s/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
			lx, lx + 22, y, y, c, DASH(k), lx + 11, y, c);
	text_el(out, lx + 28, y + 4, "", name);
}

/* An error bar from lo to hi at x, with caps half wide; none unless both
 * are finite and lo < hi. stroke: NULL for the series' colour. */
static void errbar(FILE *out, const struct svg_axis *ya, double x, double lo, double hi,
		   double half, const char *stroke)
{
	double a, b;

	if (!isfinite(lo) || !isfinite(hi) || !(lo < hi))
		return;
	a = svg_px(ya, lo), b = svg_px(ya, hi);
	fprintf(out, "<path class=\"errbar\" data-lo=\"%.6g\" data-hi=\"%.6g\" fill=\"none\" "
		"stroke-width=\"1.5\"%s%s%s d=\"M%.1f %.1f V%.1f M%.1f %.1f H%.1f M%.1f %.1f H%.1f\"/>\n",
		lo, hi, stroke ? " stroke=\"" : "", stroke ? stroke : "", stroke ? "\"" : "",
		x, a, b, x - half, a, x + half, x - half, b, x + half);
}

/* Widen [*mn, *mx] by the finite values v[0..n) (v NULL: none). */
static void extend(const double *v, size_t n, double *mn, double *mx)
{
	for (size_t i = 0; v && i < n; i++)
		if (isfinite(v[i]))
			*mn = fmin(*mn, v[i]), *mx = fmax(*mx, v[i]);
}

int svg_line_chart(FILE *out, const struct svg_axes *ax, const struct svg_series *s, size_t ns)
{
	double ymin[2] = { INFINITY, INFINITY }, ymax[2] = { -INFINITY, -INFINITY }, lo, hi, x1;
	double *xs;
	size_t npts = 0, nbar[2] = { 0, 0 };	/* series with error bars; drawn so far */
	bool right = false;
	struct svg_axis xa = { .p0 = X0 }, ya[2] = { { .p0 = H - MB, .p1 = Y0 },
						     { .p0 = H - MB, .p1 = Y0 } };

	if (!out || !ax || !s || ns == 0)
		return -1;
	for (size_t k = 0; k < ns; k++) {
		if (s[k].n && (!s[k].x || !s[k].y))
			return -1;
		for (size_t i = 0; i < s[k].n; i++, npts++)
			if (!isfinite(s[k].x[i]) || (ax->logx && s[k].x[i] <= 0))
				return -1;
		extend(s[k].y, s[k].n, &ymin[s[k].right], &ymax[s[k].right]);
		extend(s[k].lo, s[k].n, &ymin[s[k].right], &ymax[s[k].right]);
		extend(s[k].hi, s[k].n, &ymin[s[k].right], &ymax[s[k].right]);
		right |= s[k].right && s[k].n > 0;
	}
	if (npts == 0 || !(xs = malloc(npts * sizeof *xs)))
		return -1;
	npts = 0;
	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < s[k].n; i++)
			xs[npts++] = s[k].x[i];
	for (size_t k = 0; k < ns; k++)
		nbar[0] += s[k].lo && s[k].hi;
	x1 = right ? X1R : X1;
	xa.p1 = x1;
	svg_x_axis(&xa, xs, npts, ax->logx);
	free(xs);
	for (int r = 0; r < 2; r++) {
		svg_span(ymin[r], ymax[r], true, r ? ax->y2_from_zero : ax->y_from_zero, &lo, &hi);
		svg_lin_axis(&ya[r], lo, hi, false);
	}

	frame(out, ax, &xa, &ya[0], right ? &ya[1] : NULL, x1);
	for (size_t k = 0; k < ns; k++) {
		const double *x = s[k].x, *y = s[k].y;
		const struct svg_axis *yk = &ya[s[k].right];

		series_open(out, s[k].name, k);
		/* A polyline for each unbroken run of two points or more. */
		for (size_t i = 0; i < s[k].n; i++) {
			bool prev = i > 0 && isfinite(y[i - 1]), next = i + 1 < s[k].n && isfinite(y[i + 1]);

			if (!isfinite(y[i]) || (!prev && !next))
				continue;
			if (!prev)
				fprintf(out, "<polyline fill=\"none\" stroke-width=\"2\"%s points=\"", DASH(k));
			fprintf(out, "%.1f,%.1f", svg_data_px(&xa, x[i]), svg_px(yk, y[i]));
			fputs(next ? " " : "\"/>\n", out);
		}
		/* Bars of several series at one x stand a little apart. */
		for (size_t i = 0; s[k].lo && s[k].hi && i < s[k].n; i++)
			errbar(out, yk, svg_data_px(&xa, x[i]) + 3 * ((double)nbar[1] - (nbar[0] - 1) / 2.0),
			       s[k].lo[i], s[k].hi[i], 4, NULL);
		nbar[1] += s[k].lo && s[k].hi;
		/* A dense series (a time line) is its line: its markers stay, for
		 * the data they carry, but too small to hide it. */
		for (size_t i = 0; i < s[k].n; i++)
			if (isfinite(y[i]))
				fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" %s "
					"data-x=\"%.6g\" data-y=\"%.6g\"/>\n",
					svg_data_px(&xa, x[i]), svg_px(yk, y[i]),
					s[k].n > 60 ? "r=\"0.8\"" : "r=\"3\" stroke=\"white\"", x[i], y[i]);
		fputs("</g>\n", out);
	}
	fputs("<g class=\"legend\">\n", out);
	for (size_t k = 0; k < ns; k++)
		legend_item(out, x1 + (right ? 64 : 12), k, ns, ya[0].p0, s[k].name, false);
	fputs("</g>\n</svg>\n", out);
	return ferror(out) ? -1 : 0;
}

int svg_bar_chart(FILE *out, const struct svg_axes *ax, const char *const *cats, size_t ncat,
		  const struct svg_bar_series *series, size_t ns)
{
	double ymin = INFINITY, ymax = -INFINITY, lo, hi, band, bw, base;
	size_t maxlen = 0, every = 1;
	bool rotate;
	struct svg_axis ya = { .p1 = Y0 };

	if (!out || !ax || !cats || ncat == 0 || !series || ns == 0)
		return -1;
	for (size_t k = 0; k < ns; k++) {
		if (!series[k].y)
			return -1;
		extend(series[k].y, ncat, &ymin, &ymax);
		extend(series[k].lo, ncat, &ymin, &ymax);
		extend(series[k].hi, ncat, &ymin, &ymax);
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
	svg_span(ymin, ymax, true, ax->y_from_zero, &lo, &hi);
	svg_lin_axis(&ya, lo, hi, true);
	base = svg_px(&ya, fmin(fmax(0, ya.lo), ya.hi));
	bw = band * 0.8 / (double)ns;

	frame(out, ax, NULL, &ya, NULL, X1);
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
			double v = series[k].y[i], top = svg_px(&ya, v);
			double left = X0 + band * ((double)i + 0.1) + bw * (double)k;

			if (!isfinite(v))
				continue;
			fputs("<rect class=\"bar\" data-cat=\"", out);
			xml_text(out, cats[i]);
			fprintf(out, "\" data-y=\"%.6g\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" stroke=\"none\"/>\n", v, left,
				fmin(top, base), bw > 3 ? bw - 1 : bw, fabs(top - base));
			if (series[k].lo && series[k].hi)
				errbar(out, &ya, left + bw / 2, series[k].lo[i], series[k].hi[i],
				       fmin(6, bw / 4), "#222");
		}
		fputs("</g>\n", out);
	}
	fputs("<g class=\"legend\">\n", out);
	for (size_t k = 0; k < ns; k++)
		legend_item(out, X1 + 12, k, ns, ya.p0, series[k].name, true);
	fputs("</g>\n</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
