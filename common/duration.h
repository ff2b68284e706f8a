/* Time limits as users type them (bsub -t) and as listings show them.
 *
 * The grammar that duration_parse() accepts:
 *
 *   A time limit is one word in one of three forms. It has no sign and no
 *   spaces, must be more than 0 and at most 100 years (36600 days), and is
 *   at most DURATION_MAX_LEN characters long. Numbers are decimal digits;
 *   leading zeros are fine (007 is 7).
 *
 *   M          Minutes: 90 is one and a half hours.
 *
 *   H:MM       Hours and minutes, as LSF's -W: 2:00 is two hours, 0:30 is
 *              30 minutes. MM is exactly two digits, 00 to 59; H is any
 *              number (36:00 is a day and a half).
 *
 *   H:MM:SS    Hours, minutes and seconds: 0:00:30 is 30 seconds. MM and SS
 *              are exactly two digits, 00 to 59.
 *
 *   Units      One or more parts, each a number followed by a unit:
 *              d (days), h (hours), m (minutes), s (seconds), lower case.
 *              Examples: 90s, 45m, 2h, 1h30m, 1d12h, 1d2h3m4s.
 *              Each unit appears at most once, and in the order d, h, m, s
 *              (1h1h and 30m1h are errors). A part's number may exceed
 *              the next unit's size (1h90m is 2h30m).
 *              A time with a single part may have a decimal fraction, with
 *              a digit on both sides of the point: 1.5h, 0.25d, 0.5s. The
 *              fraction has at most 6 digits with s, 7 with m, 8 with h or
 *              d, which keeps every value an exact number of microseconds
 *              (no rounding anywhere). 1h0.5m and 1.5h30m are errors.
 *
 *   Anything else is an error, for example "", " 5", "+5", "2:0", "2:60",
 *   "1:2:3:4", "1:30s", "h", "5x", "1h30" (a number needs a unit once a
 *   unit was used), "1.5" (a fraction needs a unit), ".5h", "0", "0:00".
 *
 * duration_format() writes the form listings use (not a parse input):
 * H:MM:SS below a day, "Dd HH:MM:SS" from a day on; a sub-second rest is
 * shown as .mmm if it is a whole number of milliseconds, else as .uuuuuu. */
#ifndef BF_DURATION_H
#define BF_DURATION_H
#include <stddef.h>
#include "bf_time.h"

#define DURATION_MAX_LEN 64	/* characters in a time limit */

/* Parse a time limit (grammar above). Returns 0 with *out in microseconds,
 * or -1 with a one-line reason in err (which does not repeat the input;
 * err may be NULL) and *out left alone. Numbers too large for any
 * arithmetic give the same "more than 100 years" reason as a large total. */
int duration_parse(const char *s, bf_time *out, char *err, size_t errlen);
/* The same, with the reasons naming the value as noun ("duration" for a
 * grace or a timeout in backfilld.yaml, which is no time limit). */
int duration_parse_as(const char *s, bf_time *out, const char *noun, char *err, size_t errlen);

/* Write us for a listing: 0:00:01.500, 1:30:00, 2d 03:04:05, -0:05:00.
 * Negative values get a leading "-". Like snprintf: returns the length the
 * full text needs, writes at most len bytes, always NUL-terminated when
 * len > 0 (buf may be NULL when len is 0). */
int duration_format(bf_time us, char *buf, size_t len);

#endif
