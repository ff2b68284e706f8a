/* Whole numbers in decimal: written without printf, for output that
 * formats many of them (node names, bq's table), and read strictly. */
#ifndef BF_DECIMAL_H
#define BF_DECIMAL_H
#include <stddef.h>
#include <stdint.h>

/* v in decimal, zero-padded to width (at most 24), at dst; no NUL is
 * written. Returns the length (at most 24). */
static inline size_t decimal_put(char *dst, uint64_t v, unsigned width)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width && n < sizeof tmp)
		tmp[n++] = '0';
	for (size_t i = 0; i < n; i++)
		dst[i] = tmp[n - 1 - i];
	return n;
}

/* A whole decimal number in [lo, hi] and nothing else: no blanks, no
 * sign, no overflow (strtoull alone takes all three). Returns 0, or -1
 * with *out untouched. */
int decimal_parse(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
/* The same into 32 bits. */
int decimal_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out);

#endif
