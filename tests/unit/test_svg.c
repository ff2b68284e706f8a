/* SVG charts (daemon/whatif/svg.c): each document checked by a small XML
 * well-formedness checker, each series found by its data-name with its
 * points' raw values, escaping, refused input, degenerate data. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "../tap.h"
/* The build puts only common/ on the include path. */
#include "../../daemon/whatif/svg.h"

#include "../xml_check.h"

/* The tables below give series and axes by position: the fields added
 * since (error bars, the right axis) are zero there, as they should be. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* ---- rendering and reading back ------------------------------------------ */

static char *doc;
static size_t doclen;

static int line(const struct svg_axes *ax, const struct svg_series *s, size_t ns)
{
	FILE *f = open_memstream(&doc, &doclen);
	int rc;

	free(doc);
	doc = NULL;
	if (!f)
		return -2;
	rc = svg_line_chart(f, ax, s, ns);
	fclose(f);
	return rc;
}

static int bars(const struct svg_axes *ax, const char *const *cats, size_t ncat,
		const struct svg_bar_series *s, size_t ns)
{
	FILE *f = open_memstream(&doc, &doclen);
	int rc;

	free(doc);
	doc = NULL;
	if (!f)
		return -2;
	rc = svg_bar_chart(f, ax, cats, ncat, s, ns);
	fclose(f);
	return rc;
}

static void ok_wf(const char *what)
{
	if (!ok(doc && well_formed(doc), "%s: well-formed", what))
		printf("#   %s\n", xml_err ? xml_err : "no document");
}

static size_t count(const char *s, const char *end, const char *sub)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, sub)) && (!end || p < end); p += strlen(sub))
		n++;
	return n;
}

/* The series group named (escaped) ename: its start, and its end in *end. */
static const char *group(const char *ename, const char **end)
{
	char key[256];
	const char *g;

	snprintf(key, sizeof key, "<g class=\"series\" data-name=\"%s\"", ename);
	g = doc ? strstr(doc, key) : NULL;
	if (g && count(g + 1, NULL, key) != 0)
		return NULL;	/* not unique */
	*end = g ? strstr(g, "</g>") : NULL;
	return *end ? g : NULL;
}

/* The value of attribute attr in the element starting at e. */
static bool attr_is(const char *e, const char *attr, const char *want)
{
	char key[64];
	const char *v, *close = strchr(e, '>');

	snprintf(key, sizeof key, " %s=\"", attr);
	v = strstr(e, key);
	if (!v || v > close)
		return false;
	v += strlen(key);
	return strncmp(v, want, strlen(want)) == 0 && v[strlen(want)] == '"';
}

/* Series ename has exactly the finite points of (x, y), in order. */
static void ok_points(const char *ename, const double *x, const double *y, size_t n,
		      const char *what)
{
	const char *end, *g = group(ename, &end), *p;
	size_t want = 0, bad = 0;
	char b[64];

	for (size_t i = 0; i < n; i++)
		want += isfinite(y[i]) != 0;
	if (!ok(g != NULL, "%s: one series group data-name=\"%s\"", what, ename))
		return;
	ok_eq(count(g, end, "<circle "), want, "%s: %zu points", what, want);
	p = g;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(y[i]))
			continue;
		if (!(p = strstr(p, "<circle ")) || p > end)
			break;
		snprintf(b, sizeof b, "%.6g", x[i]);
		bad += !attr_is(p, "data-x", b);
		snprintf(b, sizeof b, "%.6g", y[i]);
		bad += !attr_is(p, "data-y", b);
		p++;
	}
	ok_eq(bad, 0, "%s: data-x / data-y are the raw values", what);
}

static size_t nticks(const char *cls)
{
	char key[64];

	snprintf(key, sizeof key, " class=\"%s\"", cls);
	return count(doc, NULL, key);
}

/* Does the content of some <text> element contain sub? */
static bool text_has(const char *sub)
{
	for (const char *p = doc; p && (p = strstr(p, "<text")); p++) {
		const char *c = strchr(p, '>'), *e = c ? strstr(c, "</text>") : NULL;
		const char *h = c ? strstr(c, sub) : NULL;

		if (h && h < e)
			return true;
	}
	return false;
}

static void ok_yticks(const char *what)
{
	size_t n = nticks("ytick");

	if (!ok(n >= 4 && n <= 8, "%s: 4 to 8 y ticks", what))
		printf("#   %zu ticks\n", n);
}

/* ---- the tests --------------------------------------------------------------- */

/* The checker itself: it must refuse what it is there to catch. */
static void test_checker(void)
{
	static const char *const bad[] = {
		"<svg><g></svg></g>", "<svg><g></svg>", "<svg a=b/>", "<svg a=\"1\" a=\"2\"/>",
		"<svg>a & b</svg>", "<svg a=\"<\"/>", "<svg/><svg/>", "<g/>", "text<svg/>",
		"<svg a=\"&bogus;\"/>", "<svg a=\"1\"b=\"2\"/>", "<svg>\x01</svg>", "<svg",
		"<svg a=\"1/>",
	};
	int refused = 0;

	ok(well_formed("<?xml version=\"1.0\"?>\n<svg a=\"&amp;&#38;&#x26;\" b='&lt;'>"
		       "<g><text>x &gt; y</text><!-- c --></g><rect/></svg>\n"),
	   "checker: accepts a well-formed document");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		refused += !well_formed(bad[i]);
	ok_eq(refused, sizeof bad / sizeof bad[0], "checker: refuses each malformed document");
}

static void test_basic(void)
{
	static const double x1[] = { 1, 2, 3, 4, 5 }, y1[] = { 10, 12.5, 9, 30, 21 };
	static const double x2[] = { 1, 3, 5 }, y2[] = { 1.234567891, 2, 100 };
	struct svg_series s[] = {
		{ "EASY", 5, x1, y1 },
		{ "conservative", 3, x2, y2 },
	};
	struct svg_axes ax = { "Slowdown vs estimates", "estimate factor F",
			       "bounded slowdown", false, true };
	char *first;

	ok_eq(line(&ax, s, 2), 0, "line chart: returns 0");
	ok_wf("line chart");
	ok(doc && strncmp(doc, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns="
			  "\"http://www.w3.org/2000/svg\" width=\"", 77) == 0,
	   "line chart: XML declaration, then the svg element");
	ok(doc && strstr(doc, "viewBox=\"0 0 800 480\""), "line chart: 800x480 viewBox");
	ok(doc && strstr(doc, ">Slowdown vs estimates</text>") &&
	   strstr(doc, ">estimate factor F</text>") && strstr(doc, ">bounded slowdown</text>"),
	   "line chart: title and axis labels");
	ok_points("EASY", x1, y1, 5, "EASY");
	ok_points("conservative", x2, y2, 3, "conservative");
	ok(doc && strstr(doc, "data-y=\"1.23457\""), "data-y printed with %%.6g");
	ok(doc && count(doc, NULL, ">EASY</text>") == 1 &&
	   count(doc, NULL, ">conservative</text>") == 1, "legend names each series once");
	ok(doc && strstr(doc, "#4e79a7") && strstr(doc, "#f28e2b"), "a colour per series");
	ok_yticks("line chart");
	ok(nticks("xtick") >= 4 && nticks("xtick") <= 8, "line chart: 4 to 8 x ticks");
	ok(doc && strstr(doc, "class=\"ytick\" text-anchor=\"end\">0</text>"),
	   "y_from_zero: the y axis starts at 0");

	/* Same input, same bytes. */
	first = doc ? strdup(doc) : NULL;
	line(&ax, s, 2);
	ok(first && doc && strcmp(first, doc) == 0, "output is deterministic");
	free(first);
}

static void test_gaps(void)
{
	static const double x[] = { 1, 2, 3, 4, 5, 6, 7 };
	static const double y[] = { 1, 2, NAN, 4, 5, NAN, 7 };
	struct svg_series s = { "gappy", 7, x, y };
	struct svg_axes ax = { NULL, "x", "y", false, false };
	const char *g, *end;

	ok_eq(line(&ax, &s, 1), 0, "NaN gaps: returns 0");
	ok_wf("NaN gaps");
	ok_points("gappy", x, y, 7, "NaN gaps");
	g = group("gappy", &end);
	/* Runs 1-2 and 4-5 are lines; 7 alone is a marker only. */
	ok(g && count(g, end, "<polyline") == 2, "NaN gaps: the line breaks at each gap");
	ok(doc && !strstr(doc, "class=\"title\""), "no title when it is NULL");
}

static void test_logx(void)
{
	static const double x[] = { 1, 2, 5, 10, 100, 1000, 1e6 };
	static const double y[] = { 5, 4, 3, 2.5, 2, 1.5, 1 };
	static const double x2[] = { 0.5, 2, 8 }, y2[] = { 1, 2, 3 };
	struct svg_series s = { "F", 7, x, y }, s2 = { "few", 3, x2, y2 };
	struct svg_axes ax = { "log", "estimate factor F", "bsld", true, false };
	static const double bad0[] = { 1, 0 }, badneg[] = { -1, 2 };

	ok_eq(line(&ax, &s, 1), 0, "log x: returns 0");
	ok_wf("log x");
	ok_points("F", x, y, 7, "log x");
	ok(doc && strstr(doc, "class=\"xtick\" text-anchor=\"middle\">1000</text>") &&
	   strstr(doc, "class=\"xtick\" text-anchor=\"middle\">1e6</text>") && !text_has("e+"),
	   "log x: the data's values are the ticks, as %%.6g prints them (1000, 1e6)");
	ok_eq(nticks("xtick"), 7, "log x: 7 values, 7 ticks, all with room for a label");

	ok_eq(line(&ax, &s2, 1), 0, "log x, few values: returns 0");
	ok_wf("log x, few values");
	ok(doc && strstr(doc, ">0.5</text>") && strstr(doc, ">2</text>") &&
	   strstr(doc, ">8</text>") && nticks("xtick") == 3,
	   "log x, few values: the data's x values are the ticks, and nothing else");
	{
		static const double f[] = { 1, 2, 4, 11, 31, 101, 301 };
		static const double fy[] = { 9, 8, 7, 6, 5, 4, 3 };
		static const char *const want[] = { "1", "2", "4", "11", "31", "101", "301" };
		struct svg_series sf = { "F", 7, f, fy };
		const char *p;
		size_t good = 0;

		line(&ax, &sf, 1);
		p = doc;
		for (size_t i = 0; i < 7 && p && (p = strstr(p, "class=\"xtick\"")); i++, p++) {
			const char *v = strchr(p, '>') + 1;

			good += strncmp(v, want[i], strlen(want[i])) == 0 && v[strlen(want[i])] == '<';
		}
		ok(good == 7 && nticks("xtick") == 7,
		   "log x, a sweep's F: ticked 1, 2, 4, 11, 31, 101, 301 and nothing else");
		ok(!text_has(">10<") && !strstr(doc, ">100</text>"), "log x, a sweep's F: no decade ticks");
	}

	s.x = bad0;
	s.n = 2;
	ok_eq(line(&ax, &s, 1), -1, "log x with x = 0: -1");
	ok_eq(doclen, 0, "log x with x = 0: nothing written");
	s.x = badneg;
	ok_eq(line(&ax, &s, 1), -1, "log x with x < 0: -1");
	ok_eq(doclen, 0, "log x with x < 0: nothing written");
	ax.logx = false;
	ok_eq(line(&ax, &s, 1), 0, "a negative x on a linear axis is fine");
	ok_wf("negative x, linear");
}

static void test_escaping(void)
{
	static const double x[] = { 1, 2 }, y[] = { 3, 4 };
	struct svg_series s[] = {
		{ "a<b & \"c\"", 2, x, y },
		{ "it's\x01\x1f\x7f ok>", 2, x, y },
		{ "bad \xff\xc0\x80 utf8 \xe2\x82", 2, x, y },
		{ "\xc2\xb5s \xe2\x89\xa4 1", 2, x, y },
		{ NULL, 2, x, y },
	};
	struct svg_axes ax = { "<title> & \"more\"\n", "x & y", "<y>", false, false };
	static const char *const cats[] = { "a&b", "<c>", "\"q\"" };
	double v[] = { 1, 2, 3 };
	struct svg_bar_series bs = { "a<b & \"c\"", v };

	ok_eq(line(&ax, s, 5), 0, "escaping: returns 0");
	ok_wf("escaping");
	ok_points("a&lt;b &amp; &quot;c&quot;", x, y, 2, "escaped name");
	ok(doc && strstr(doc, ">a&lt;b &amp; &quot;c&quot;</text>"), "escaped legend text");
	ok(doc && strstr(doc, "data-name=\"it&apos;s ok&gt;\""),
	   "apostrophe and > escaped, control characters dropped");
	ok(doc && strstr(doc, "data-name=\"bad \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd utf8 "
			 "\xef\xbf\xbd\xef\xbf\xbd\""), "invalid UTF-8 bytes become U+FFFD");
	ok(doc && strstr(doc, "data-name=\"\xc2\xb5s \xe2\x89\xa4 1\""), "valid UTF-8 kept");
	ok(doc && strstr(doc, "data-name=\"\""), "a NULL name is empty");
	ok(doc && strstr(doc, ">&lt;title&gt; &amp; &quot;more&quot;</text>"),
	   "title escaped, newline dropped");

	ok_eq(bars(&ax, cats, 3, &bs, 1), 0, "bar escaping: returns 0");
	ok_wf("bar escaping");
	ok(doc && strstr(doc, "data-cat=\"a&amp;b\"") && strstr(doc, "data-cat=\"&lt;c&gt;\"") &&
	   strstr(doc, "data-cat=\"&quot;q&quot;\""), "category names escaped");
	ok(doc && strstr(doc, "data-name=\"a&lt;b &amp; &quot;c&quot;\""), "bar series escaped");
}

static void test_bad_input(void)
{
	static const double x[] = { 1, 2 }, y[] = { 3, 4 };
	static const double xnan[] = { 1, NAN }, xinf[] = { INFINITY, 1 };
	struct svg_series s = { "s", 2, x, y }, empty[] = { { "e", 0, NULL, NULL },
							  { "f", 0, x, y } };
	struct svg_axes ax = { "t", "x", "y", false, false };
	static const char *const cats[] = { "a", "b" };
	struct svg_bar_series bs = { "b", y }, bnull = { "n", NULL };
	FILE *f;

	ok_eq(line(&ax, &s, 0), -1, "no series: -1");
	ok_eq(doclen, 0, "no series: nothing written");
	ok_eq(line(&ax, NULL, 1), -1, "series NULL: -1");
	ok_eq(doclen, 0, "series NULL: nothing written");
	ok_eq(line(NULL, &s, 1), -1, "axes NULL: -1");
	ok_eq(doclen, 0, "axes NULL: nothing written");
	ok_eq(line(&ax, empty, 2), -1, "only empty series: -1");
	ok_eq(doclen, 0, "only empty series: nothing written");
	s.x = xnan;
	ok_eq(line(&ax, &s, 1), -1, "NaN x: -1");
	ok_eq(doclen, 0, "NaN x: nothing written");
	s.x = xinf;
	ok_eq(line(&ax, &s, 1), -1, "infinite x: -1");
	ok_eq(doclen, 0, "infinite x: nothing written");
	s.x = NULL;
	ok_eq(line(&ax, &s, 1), -1, "x NULL with n > 0: -1");
	ok_eq(doclen, 0, "x NULL: nothing written");
	ok_eq(svg_line_chart(NULL, &ax, &s, 1), -1, "stream NULL: -1");

	ok_eq(bars(&ax, cats, 0, &bs, 1), -1, "bars: no category: -1");
	ok_eq(doclen, 0, "bars: no category: nothing written");
	ok_eq(bars(&ax, cats, 2, &bs, 0), -1, "bars: no series: -1");
	ok_eq(doclen, 0, "bars: no series: nothing written");
	ok_eq(bars(&ax, NULL, 2, &bs, 1), -1, "bars: categories NULL: -1");
	ok_eq(doclen, 0, "bars: categories NULL: nothing written");
	ok_eq(bars(&ax, cats, 2, &bnull, 1), -1, "bars: y NULL: -1");
	ok_eq(doclen, 0, "bars: y NULL: nothing written");
	ok_eq(bars(NULL, cats, 2, &bs, 1), -1, "bars: axes NULL: -1");
	ok_eq(doclen, 0, "bars: axes NULL: nothing written");

	/* A failing stream: the chart is written, the error reported. */
	f = fopen("/dev/full", "w");
	if (f) {
		setvbuf(f, NULL, _IONBF, 0);
		s.x = x;
		ok_eq(svg_line_chart(f, &ax, &s, 1), -1, "write error: -1");
		fclose(f);
	} else {
		tap_skip("write error: -1", "no /dev/full");
	}
}

static void test_degenerate(void)
{
	static const double one_x[] = { 3 }, one_y[] = { 7 };
	static const double x[] = { 1, 2, 3, 4 };
	static const double flat[] = { 5, 5, 5, 5 }, zeros[] = { 0, 0, 0, 0 };
	static const double huge[] = { 1e300, -1e300, DBL_MAX, -DBL_MAX };
	static const double big[] = { 1e6, 1.5e6, 2e6, 2.5e6 };
	static const double tiny[] = { 1e-300, 2e-300, 3e-300, 5e-324 };
	static const double nans[] = { NAN, NAN, INFINITY, -INFINITY };
	static const double close[] = { 1, 1 + 1e-12, 1 - 1e-12, 1 };
	static const double hx[] = { -1e308, 0, 1e308, DBL_MAX }, hy[] = { 1, 2, 3, 4 };
	struct svg_axes ax = { "degenerate", "x", "y", false, false };
	struct {
		const char *what;
		const double *x, *y;
		size_t n;
		bool from_zero, logx;
	} c[] = {
		{ "single point", one_x, one_y, 1, false, false },
		{ "single point, log x", one_x, one_y, 1, false, true },
		{ "single point, from zero", one_x, one_y, 1, true, false },
		{ "all y equal", x, flat, 4, false, false },
		{ "all y zero", x, zeros, 4, false, false },
		{ "all y zero, from zero", x, zeros, 4, true, false },
		{ "huge values", x, huge, 4, false, false },
		{ "millions", x, big, 4, true, false },
		{ "tiny values", x, tiny, 4, false, false },
		{ "tiny values, from zero", x, tiny, 4, true, false },
		{ "no finite y", x, nans, 4, false, false },
		{ "nearly equal y", x, close, 4, false, false },
		{ "huge x", hx, hy, 4, false, false },
		{ "huge x, log x", flat, hy, 4, false, true },
		{ "x from 1e-300 to 1e300, log x", huge, hy, 2, false, true },
	};
	static const double wide[] = { 1e-300, 1e300 };

	c[14].x = wide;
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct svg_series s = { c[i].what, c[i].n, c[i].x, c[i].y };
		struct svg_series two[] = { s, { "empty", 0, NULL, NULL } };

		ax.y_from_zero = c[i].from_zero;
		ax.logx = c[i].logx;
		ok_eq(line(&ax, two, 2), 0, "%s: returns 0", c[i].what);
		ok_wf(c[i].what);
		ok_points(c[i].what, c[i].x, c[i].y, c[i].n, c[i].what);
		ok_yticks(c[i].what);
		ok(doc && !strstr(doc, "nan") && !strstr(doc, "inf\""),
		   "%s: no nan or inf in coordinates", c[i].what);
	}
	ax.y_from_zero = false;
	ax.logx = false;
	{
		static const double negy[] = { -50, -20, -10, -5 };
		struct svg_series s = { "neg", 4, x, negy };
		const char *p = NULL;
		bool above = false;

		ok_eq(line(&ax, &s, 1), 0, "all y negative: returns 0");
		for (p = doc; p && (p = strstr(p, "class=\"ytick\"")); p++)
			above |= strchr(p, '>')[1] != '-' && strchr(p, '>')[1] != '0';
		ok(doc && !above, "all y negative: padded, not past 0");
	}
	ax.y_from_zero = true;
	{
		struct svg_series s = { "m", 4, x, big };

		line(&ax, &s, 1);
		ok(doc && strstr(doc, ">2.5M</text>") && !text_has("e+"),
		   "millions labelled with M, no exponent");
	}
}

static void test_bars(void)
{
	static const char *const cats[] = { "1996-01", "1996-02", "1996-03" };
	double a[] = { 10, 20, 30 }, b[] = { 5, NAN, 40 }, neg[] = { -3, 2, NAN };
	struct svg_bar_series s[] = { { "fcfs", a }, { "easy", b } }, sn = { "neg", neg };
	struct svg_axes ax = { "Monthly wait", "month", "average wait (s)", false, true };
	const char *g, *end, *p;
	static const char *many[120];
	static char names[120][16];
	double vals[120], flat[3] = { 7, 7, 7 }, nans[3] = { NAN, NAN, NAN };
	struct svg_bar_series ms = { "many", vals };

	ok_eq(bars(&ax, cats, 3, s, 2), 0, "bars: returns 0");
	ok_wf("bars");
	g = group("fcfs", &end);
	ok(g && count(g, end, "<rect class=\"bar\"") == 3, "bars: fcfs has 3 bars");
	p = g ? strstr(g, "<rect class=\"bar\"") : NULL;
	ok(p && attr_is(p, "data-cat", "1996-01") && attr_is(p, "data-y", "10"),
	   "bars: first bar's category and value");
	g = group("easy", &end);
	ok(g && count(g, end, "<rect class=\"bar\"") == 2, "bars: NaN is no bar");
	p = g ? strstr(g, "<rect class=\"bar\"") : NULL;
	p = p ? strstr(p + 1, "<rect class=\"bar\"") : NULL;
	ok(p && attr_is(p, "data-cat", "1996-03") && attr_is(p, "data-y", "40"),
	   "bars: the bar after the gap is 1996-03");
	ok_eq(nticks("cat"), 3, "bars: every category labelled when they fit");
	ok(doc && !strstr(doc, "rotate(-45"), "bars: labels not rotated when they fit");
	ok_yticks("bars");

	ok_eq(bars(&ax, cats, 3, &sn, 1), 0, "bars with a negative value: returns 0");
	ok_wf("bars with a negative value");
	ok_yticks("bars with a negative value");
	ok(doc && strstr(doc, "data-y=\"-3\""), "bars: the negative bar is there");

	ok_eq(bars(&ax, cats, 3, &(struct svg_bar_series){ "flat", flat }, 1), 0,
	      "bars, all equal: returns 0");
	ok_wf("bars, all equal");
	ax.y_from_zero = false;
	ok_eq(bars(&ax, cats, 3, &(struct svg_bar_series){ "nans", nans }, 1), 0,
	      "bars, no value: returns 0");
	ok_wf("bars, no value");
	ok_eq(count(doc, NULL, "<rect class=\"bar\""), 0, "bars, no value: no bar");

	for (int i = 0; i < 120; i++) {
		snprintf(names[i], sizeof names[i], "%d-%02d", 1990 + i / 12, i % 12 + 1);
		many[i] = names[i];
		vals[i] = 100.0 + i * 3;
	}
	ok_eq(bars(&ax, many, 120, &ms, 1), 0, "120 categories: returns 0");
	ok_wf("120 categories");
	ok_eq(count(doc, NULL, "<rect class=\"bar\""), 120, "120 categories: 120 bars");
	ok(nticks("cat") >= 10 && nticks("cat") <= 45, "120 categories: labels thinned");
	ok(doc && strstr(doc, "rotate(-45"), "120 categories: labels rotated");
	ok_yticks("120 categories");
}

/* Many ranges: the nice-tick rule always gives 4 to 8 ticks. */
static void test_tick_counts(void)
{
	static const double x[] = { 0, 1 };
	struct svg_axes ax = { NULL, NULL, NULL, false, false };
	int good = 0, total = 0;

	for (double lo = -1000; lo <= 1000; lo += 137.5)
		for (double w = 1e-6; w < 1e9; w *= 3.7) {
			double y[] = { lo, lo + w };
			struct svg_series s = { "r", 2, x, y };
			size_t n;

			ax.y_from_zero = total % 2;
			total++;
			if (line(&ax, &s, 1) != 0 || !well_formed(doc))
				continue;
			n = nticks("ytick");
			good += n >= 4 && n <= 8;
		}
	ok_eq(good, total, "%d ranges: each well-formed with 4 to 8 y ticks", total);
}

/* Error bars: one <path class="errbar"> for each point with lo < hi, both
 * finite; their ends in data-lo and data-hi; the y axis takes them in. */
static void test_errbars(void)
{
	static const double x[] = { 1, 2, 3, 4 }, y[] = { 10, 20, 30, 40 };
	static const double lo[] = { 8, 20, NAN, 35 }, hi[] = { 12, 20, 31, 90 };
	struct svg_series s = { .name = "m", .n = 4, .x = x, .y = y, .lo = lo, .hi = hi };
	struct svg_axes ax = { .title = "t", .xlabel = "x", .ylabel = "y" };
	static const char *const cats[] = { "A", "B" };
	static const double by[] = { 5, 7 }, blo[] = { 4, 7 }, bhi[] = { 6, 7 };
	struct svg_bar_series bs = { .name = "b", .y = by, .lo = blo, .hi = bhi };
	const char *p;
	bool top = false;

	ok_eq(line(&ax, &s, 1), 0, "error bars: returns 0");
	ok_wf("error bars");
	ok_eq(count(doc, NULL, "class=\"errbar\""), 2,
	      "error bars: one per point with lo < hi, none where lo = hi or one is NaN");
	ok(doc && strstr(doc, "data-lo=\"8\" data-hi=\"12\"") && strstr(doc, "data-lo=\"35\" data-hi=\"90\""),
	   "error bars: their ends as data-lo, data-hi");
	for (p = doc; p && (p = strstr(p, "class=\"ytick\"")); p++)
		top |= atof(strchr(p, '>') + 1) >= 80;
	ok(top, "error bars: the y axis reaches the highest bar's end (90)");
	ok_eq(bars(&ax, cats, 2, &bs, 1), 0, "bar error bars: returns 0");
	ok_wf("bar error bars");
	ok_eq(count(doc, NULL, "class=\"errbar\""), 1, "bar error bars: one where there is a spread");
}

/* A second y axis on the right, for the series that ask for it. */
static void test_right_axis(void)
{
	static const double x[] = { 0, 1, 2, 3 }, u[] = { 10, 50, 90, 100 }, q[] = { 0, 400, 1200, 3 };
	struct svg_series s[] = { { .name = "util", .n = 4, .x = x, .y = u },
				  { .name = "queue", .n = 4, .x = x, .y = q, .right = true } };
	struct svg_axes ax = { .title = "t", .xlabel = "days", .ylabel = "utilization (%)",
			       .y_from_zero = true, .y2label = "jobs waiting", .y2_from_zero = true };
	const char *p;
	bool big_left = false, big_right = false;

	ok_eq(line(&ax, s, 2), 0, "right axis: returns 0");
	ok_wf("right axis");
	ok(doc && strstr(doc, "class=\"ylabel\"") && strstr(doc, ">utilization (%)</text>") &&
	   strstr(doc, "class=\"y2label\"") && strstr(doc, ">jobs waiting</text>"),
	   "right axis: each axis has its title");
	ok(nticks("y2tick") >= 4 && nticks("y2tick") <= 8, "right axis: 4 to 8 ticks of its own");
	for (p = doc; p && (p = strstr(p, "class=\"ytick\"")); p++)
		big_left |= atof(strchr(p, '>') + 1) > 200;
	for (p = doc; p && (p = strstr(p, "class=\"y2tick\"")); p++)
		big_right |= atof(strchr(p, '>') + 1) >= 1000;
	ok(!big_left && big_right, "right axis: the queue's scale is on the right, not the left");
	s[1].right = false;
	line(&ax, s, 2);
	ok_eq(nticks("y2tick"), 0, "no series on the right: no right axis");
}

/* A linear x axis with a few values: they are its ticks, the axis trimmed
 * to them; many values: round ticks inside the data's range. */
static void test_value_ticks(void)
{
	static const double x[] = { 0.8, 1, 1.25 }, y[] = { 1, 2, 3 };
	double mx[30], my[30];
	struct svg_series s = { .name = "l", .n = 3, .x = x, .y = y };
	struct svg_axes ax = { .xlabel = "load" };
	const char *p;
	bool outside = false;

	ok_eq(line(&ax, &s, 1), 0, "linear value ticks: returns 0");
	ok(nticks("xtick") == 3 && text_has(">0.8<") && text_has(">1.25<") && !text_has(">0<"),
	   "linear value ticks: 0.8, 1, 1.25 and no 0");
	for (int i = 0; i < 30; i++)
		mx[i] = 100 + 7 * i, my[i] = i;
	s = (struct svg_series){ .name = "many", .n = 30, .x = mx, .y = my };
	ok_eq(line(&ax, &s, 1), 0, "30 x values: returns 0");
	for (p = doc; p && (p = strstr(p, "class=\"xtick\"")); p++)
		outside |= atof(strchr(p, '>') + 1) < 90 || atof(strchr(p, '>') + 1) > 315;
	ok(nticks("xtick") >= 4 && nticks("xtick") <= 8 && !outside,
	   "30 x values: 4 to 8 round ticks within the data (100 to 303)");
}

int main(void)
{
	test_checker();
	test_basic();
	test_gaps();
	test_logx();
	test_escaping();
	test_bad_input();
	test_degenerate();
	test_bars();
	test_tick_counts();
	test_errbars();
	test_right_axis();
	test_value_ticks();
	free(doc);
	return tap_done();
}
