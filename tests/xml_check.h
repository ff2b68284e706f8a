/* A small XML well-formedness checker for the SVG the replay writes:
 * elements balanced and nested, one root <svg>, attributes quoted and
 * unique, no raw '<' or '&' in text or values but entities. Used by
 * tests/unit/test_svg.c and tests/tools/xmlcheck.c (the shell tests'). */
#ifndef BF_XML_CHECK_H
#define BF_XML_CHECK_H
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static const char *xml_err;

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == ':' || c == '.';
}

static bool space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/* An entity at p ("&amp;", "&#65;", ...): its length, or 0. */
static size_t entity(const char *p)
{
	static const char *const named[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
	size_t n = 2;

	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		if (strncmp(p, named[i], strlen(named[i])) == 0)
			return strlen(named[i]);
	if (p[1] != '#')
		return 0;
	if (p[2] == 'x')
		n++;
	while ((p[n] >= '0' && p[n] <= '9') || (p[2] == 'x' && strchr("abcdefABCDEF", p[n]) && p[n]))
		n++;
	return p[n] == ';' && n > (p[2] == 'x' ? 3u : 2u) ? n + 1 : 0;
}

/* Character data up to the next '<' or the quote q: no raw '&', no '<'
 * inside an attribute, no control characters. */
static const char *chars(const char *p, char q)
{
	while (*p && *p != q && (q || *p != '<')) {
		if (*p == '<')
			return xml_err = "raw < in attribute", NULL;
		if ((unsigned char)*p < 0x20 && !space(*p))
			return xml_err = "control character", NULL;
		if (*p == '&') {
			size_t n = entity(p);

			if (!n)
				return xml_err = "raw &", NULL;
			p += n;
		} else {
			p++;
		}
	}
	return p;
}

static const char *name(const char *p, size_t *len)
{
	const char *s = p;

	if (!name_char(*p) || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.')
		return xml_err = "bad name", NULL;
	while (name_char(*p))
		p++;
	*len = (size_t)(p - s);
	return p;
}

/* Well-formed, with exactly one root element named svg. */
static bool well_formed(const char *doc)
{
	const char *stack[64], *p = doc;
	size_t stacklen[64], depth = 0, roots = 0, n;

	xml_err = NULL;
	if (strncmp(p, "<?xml ", 6) == 0) {
		p = strstr(p, "?>");
		if (!p)
			return xml_err = "unterminated declaration", false;
		p += 2;
	}
	while (*p) {
		if (*p != '<') {
			const char *s = p;

			if (!(p = chars(p, 0)))
				return false;
			for (; depth == 0 && s < p; s++)
				if (!space(*s))
					return xml_err = "text outside the root", false;
			continue;
		}
		if (strncmp(p, "<!--", 4) == 0) {
			if (!(p = strstr(p + 4, "-->")))
				return xml_err = "unterminated comment", false;
			p += 3;
		} else if (p[1] == '/') {
			const char *s = p + 2;

			if (!(p = name(s, &n)))
				return false;
			if (depth == 0 || n != stacklen[depth - 1] || strncmp(s, stack[depth - 1], n))
				return xml_err = "mismatched end tag", false;
			depth--;
			while (space(*p))
				p++;
			if (*p++ != '>')
				return xml_err = "bad end tag", false;
		} else {
			const char *s = p + 1, *attr[32];
			size_t alen[32], na = 0;

			if (!(p = name(s, &n)))
				return false;
			if (depth == 0 && (roots++ || n != 3 || strncmp(s, "svg", 3)))
				return xml_err = "not one root svg", false;
			if (depth == 64)
				return xml_err = "too deep", false;
			stack[depth] = s, stacklen[depth++] = n;
			for (;;) {
				const char *a;
				size_t al;

				if (!space(*p) && *p != '>' && *p != '/')
					return xml_err = "no space before attribute", false;
				while (space(*p))
					p++;
				if (*p == '>' || (p[0] == '/' && p[1] == '>'))
					break;
				a = p;
				if (!(p = name(p, &al)))
					return false;
				for (size_t i = 0; i < na; i++)
					if (alen[i] == al && strncmp(attr[i], a, al) == 0)
						return xml_err = "duplicate attribute", false;
				if (na == 32)
					return xml_err = "too many attributes", false;
				attr[na] = a, alen[na++] = al;
				if (*p++ != '=' || (*p != '"' && *p != '\''))
					return xml_err = "attribute not =\"quoted\"", false;
				if (!(p = chars(p + 1, *p)))
					return false;
				if (!*p++)
					return xml_err = "unterminated attribute", false;
			}
			if (*p == '/') {
				depth--;
				p++;
			}
			p++;
		}
	}
	if (depth)
		return xml_err = "unclosed element", false;
	if (roots != 1)
		return xml_err = "no root", false;
	return true;
}

#endif
