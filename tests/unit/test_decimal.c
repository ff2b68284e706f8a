/* Whole decimal numbers: written (decimal_put) and read strictly
 * (decimal_parse), which every numeric option and key goes through. */
#include <stdint.h>
#include <string.h>
#include "decimal.h"
#include "tap.h"

static void reads(const char *s, uint64_t lo, uint64_t hi, uint64_t want)
{
	uint64_t got = 7;

	ok(decimal_parse(s, lo, hi, &got) == 0 && got == want, "'%s' in [%llu, %llu] is %llu", s,
	   (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)want);
}

/* Refused, and *out untouched. */
static void refuses(const char *s, uint64_t lo, uint64_t hi)
{
	uint64_t got = 7;

	ok(decimal_parse(s, lo, hi, &got) == -1 && got == 7, "'%s' in [%llu, %llu] is refused", s,
	   (unsigned long long)lo, (unsigned long long)hi);
}

int main(void)
{
	char buf[32];

	reads("0", 0, 10, 0);
	reads("10", 0, 10, 10);
	reads("007", 0, 10, 7);
	reads("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
	refuses("11", 0, 10);
	refuses("0", 1, 10);
	refuses("18446744073709551616", 0, UINT64_MAX);
	refuses("99999999999999999999999", 0, UINT64_MAX);
	refuses("", 0, 10);
	refuses(" 1", 0, 10);
	refuses("1 ", 0, 10);
	refuses("+1", 0, 10);
	refuses("-1", 0, UINT64_MAX);
	refuses("1e3", 0, 10000);
	refuses("0x10", 0, 100);
	refuses("1.0", 0, 10);

	{
		uint32_t v = 7;

		ok(decimal_parse_u32("4294967295", 0, UINT32_MAX, &v) == 0 && v == UINT32_MAX,
		   "the largest 32-bit number is read into 32 bits");
		ok(decimal_parse_u32("4294967296", 0, UINT32_MAX, &v) == -1 && v == UINT32_MAX,
		   "one more is refused, the value untouched");
	}
	buf[decimal_put(buf, 42, 5)] = 0;
	ok(strcmp(buf, "00042") == 0, "42 padded to 5 is 00042 (%s)", buf);
	buf[decimal_put(buf, UINT64_MAX, 0)] = 0;
	ok(strcmp(buf, "18446744073709551615") == 0, "the largest is written whole (%s)", buf);
	return tap_done();
}
