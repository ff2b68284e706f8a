/* Time limits: parse the user's forms, format for listings; see duration.h.
 *
 * Integer arithmetic only. Numbers and sums saturate at UINT64_MAX rather
 * than wrap, so an absurdly long number reaches the "more than 100 years"
 * check instead of overflowing into a small value. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "errf.h"
#include "duration.h"

#define MINUTE ((uint64_t)60 * BF_SEC)
#define HOUR   ((uint64_t)60 * MINUTE)
#define DAY    ((uint64_t)24 * HOUR)

/* The units in the order they must appear. frac is the most fractional
 * digits: 10^frac divides the unit in microseconds, so a fraction is exact. */
static const struct unit {
	char c;
	int frac;
	uint64_t us;
} units[] = {
	{ 'd', 8, DAY },
	{ 'h', 8, HOUR },
	{ 'm', 7, MINUTE },
	{ 's', 6, (uint64_t)BF_SEC },
};
#define NUNITS ((int)(sizeof units / sizeof units[0]))

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* A character for a message: 'x', or \xNN if it does not print. */
static const char *show(char c, char *buf, size_t len)
{
	unsigned char u = (unsigned char)c;

	if (u > 0x20 && u < 0x7f && u != '\'' && u != '\\')
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "\\x%02x", u);
	return buf;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The digits at *p as a number (saturating); advances *p and counts them. */
static uint64_t number(const char **p, size_t *ndigits)
{
	uint64_t v = 0;
	size_t n = 0;

	for (; is_digit(**p); (*p)++, n++)
		v = sat_add(sat_mul(v, 10), (uint64_t)(**p - '0'));
	*ndigits = n;
	return v;
}

static int unit_index(char c)
{
	for (int i = 0; i < NUNITS; i++)
		if (units[i].c == c)
			return i;
	return -1;
}

/* Exactly two digits, 00 to 59, for the minutes or seconds of a clock. */
static int two_digits(const char **p, const char *what, uint64_t *v, char *err, size_t errlen)
{
	const char *s = *p;

	if (!is_digit(s[0]) || !is_digit(s[1]) || is_digit(s[2]))
		return errf(err, errlen, "%s after ':' must be exactly two digits, 00 to 59", what);
	*v = (uint64_t)(s[0] - '0') * 10 + (uint64_t)(s[1] - '0');
	if (*v > 59)
		return errf(err, errlen, "%s after ':' must be 00 to 59, not %c%c", what, s[0], s[1]);
	*p = s + 2;
	return 0;
}

/* H:MM or H:MM:SS. */
static int parse_clock(const char *s, uint64_t *total, char *err, size_t errlen)
{
	const char *p = s;
	uint64_t h, mm, ss = 0;
	size_t nd;
	char cb[8];
	int colons = 0;

	for (const char *q = s; *q; q++)
		colons += *q == ':';
	if (colons > 2)
		return errf(err, errlen, "too many ':' (use M, H:MM or H:MM:SS)");
	h = number(&p, &nd);
	if (nd == 0)
		return errf(err, errlen, "expected hours before ':' (use H:MM, as in 0:30)");
	if (*p != ':')
		return errf(err, errlen, "unexpected %s in H:MM time (a clock takes no units)",
			    show(*p, cb, sizeof cb));
	p++;
	if (two_digits(&p, "minutes", &mm, err, errlen) < 0)
		return -1;
	if (*p == ':') {
		p++;
		if (two_digits(&p, "seconds", &ss, err, errlen) < 0)
			return -1;
	}
	if (*p)
		return errf(err, errlen, "unexpected %s after H:MM%s (a clock takes no units or fractions)",
			    show(*p, cb, sizeof cb), colons == 2 ? ":SS" : "");
	*total = sat_add(sat_mul(h, HOUR), mm * MINUTE + ss * (uint64_t)BF_SEC);
	return 0;
}

/* One or more <number>[.<fraction>]<unit>, units in the order d h m s. */
static int parse_units(const char *s, uint64_t *total, const char *noun, char *err, size_t errlen)
{
	const char *p = s;
	int last = -1, parts = 0;
	bool fraction = false;
	char cb[8];

	*total = 0;
	while (*p) {
		const char *num = p;
		uint64_t v, f = 0;
		size_t nd, fd = 0;
		int u;

		if (!is_digit(*p)) {
			if (*p == '.')
				return errf(err, errlen, "a fraction needs a digit before the '.' (0.5h, not .5h)");
			if (unit_index(*p) >= 0)
				return errf(err, errlen, "unit '%c' needs a number before it (as in 2%c)", *p, *p);
			return errf(err, errlen, "unexpected %s in %s", show(*p, cb, sizeof cb), noun);
		}
		v = number(&p, &nd);
		if (*p == '.') {
			p++;
			if (!is_digit(*p))
				return errf(err, errlen, "a fraction needs a digit after the '.' (1.5h, not 1.h)");
			f = number(&p, &fd);
		}
		if (!*p) {
			if (fd)
				return errf(err, errlen, "a fraction needs a unit (as in 1.5h); plain numbers are whole minutes");
			return errf(err, errlen, "the number %.*s at the end needs a unit (d, h, m or s)",
				    (int)(nd < 20 ? nd : 20), num);
		}
		u = unit_index(*p);
		if (u < 0)
			return errf(err, errlen, "unknown unit %s (use d, h, m or s)", show(*p, cb, sizeof cb));
		if (u == last)
			return errf(err, errlen, "unit '%c' given twice", units[u].c);
		if (u < last)
			return errf(err, errlen, "units must go from largest to smallest: d, h, m, s ('%c' after '%c')",
				    units[u].c, units[last].c);
		if (fd && parts)
			return errf(err, errlen, "a fraction is allowed only on a single unit (1.5h, not 1h0.5m)");
		if (fraction)
			return errf(err, errlen, "a fraction is allowed only on a single unit (1.5h, not 1.5h30m)");
		if (fd > (size_t)units[u].frac)
			return errf(err, errlen, "at most %d digits after the '.' with unit '%c' (the limit is in microseconds)",
				    units[u].frac, units[u].c);
		p++;
		*total = sat_add(*total, sat_mul(v, units[u].us));
		if (fd) {
			uint64_t scale = 1;

			for (size_t i = 0; i < fd; i++)
				scale *= 10;
			/* f < 10^fd, so f * (us / 10^fd) < us: no overflow, and exact. */
			*total = sat_add(*total, f * (units[u].us / scale));
			fraction = true;
		}
		last = u;
		parts++;
	}
	return 0;
}

int duration_parse_as(const char *s, bf_time *out, const char *noun, char *err, size_t errlen)
{
	uint64_t total = 0;
	size_t len;
	char cb[8];
	bool digits_only = true;

	if (!s || !*s)
		return errf(err, errlen, "empty %s", noun);
	len = strnlen(s, DURATION_MAX_LEN + 1);
	if (len > DURATION_MAX_LEN)
		return errf(err, errlen, "%s longer than %d characters", noun, DURATION_MAX_LEN);
	for (size_t i = 0; i < len; i++) {
		if (is_space(s[i]))
			return errf(err, errlen, "space in %s (write it as one word, as in 1h30m)", noun);
		digits_only &= is_digit(s[i]);
	}
	if (s[0] == '+' || s[0] == '-')
		return errf(err, errlen, "a %s takes no sign %s", noun, show(s[0], cb, sizeof cb));
	if (strchr(s, ':')) {
		if (parse_clock(s, &total, err, errlen) < 0)
			return -1;
	} else if (digits_only) {
		size_t nd;

		total = sat_mul(number(&s, &nd), MINUTE);
	} else if (parse_units(s, &total, noun, err, errlen) < 0) {
		return -1;
	}
	if (total == 0)
		return errf(err, errlen, "a %s must be more than 0", noun);
	if (total > (uint64_t)BF_MAX_DURATION)
		return errf(err, errlen, "a %s of more than 100 years (36600d) is not accepted", noun);
	*out = (bf_time)total;
	return 0;
}

int duration_parse(const char *s, bf_time *out, char *err, size_t errlen)
{
	return duration_parse_as(s, out, "time limit", err, errlen);
}

int duration_format(bf_time us, char *buf, size_t len)
{
	uint64_t mag = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
	const char *sign = us < 0 ? "-" : "";
	uint64_t sec = mag / (uint64_t)BF_SEC, days = sec / 86400;
	unsigned sub = (unsigned)(mag % (uint64_t)BF_SEC);
	unsigned h = (unsigned)(sec % 86400 / 3600), m = (unsigned)(sec % 3600 / 60);
	unsigned s = (unsigned)(sec % 60);
	char frac[16] = "";

	if (sub % 1000 == 0 && sub)
		snprintf(frac, sizeof frac, ".%03u", sub / 1000);
	else if (sub)
		snprintf(frac, sizeof frac, ".%06u", sub);
	if (days)
		return snprintf(buf, len, "%s%" PRIu64 "d %02u:%02u:%02u%s", sign, days, h, m, s, frac);
	return snprintf(buf, len, "%s%u:%02u:%02u%s", sign, h, m, s, frac);
}
