/*
 * cli_numbers.c - the numbers of the command line: durations ("500us",
 * "1.5s"), counts, and a duration written back for people (see cli.h).
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* The decimal number at *s: digits, an optional fraction and exponent, as
 * mantissa * 10^exponent (digits past 18 significant ones are dropped).
 * Advances *s; -1 when there is no number. */
static int parse_decimal(const char **s, uint64_t *mantissa, int *exponent)
{
	const char *p = *s;
	uint64_t m = 0;
	int e = 0, digits = 0;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (m < 100000000000000000ull)
			m = m * 10 + (uint64_t)(*p - '0');
		else
			e++;
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (m < 100000000000000000ull) {
				m = m * 10 + (uint64_t)(*p - '0');
				e--;
			}
	if (digits == 0)
		return -1;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;
		int sign = *q == '-' ? -1 : 1, x = 0;
		q += *q == '-' || *q == '+';
		if (*q < '0' || *q > '9')
			return -1;
		for (; *q >= '0' && *q <= '9'; q++)
			x = x < 100000 ? x * 10 + (*q - '0') : x;
		e += sign * x;
		p = q;
	}
	*s = p;
	*mantissa = m;
	*exponent = e;
	return 0;
}

/* mantissa * factor * 10^exponent rounded to nearest into *out; -1 when
 * that is more than `max`. */
static int scale_decimal(uint64_t mantissa, uint64_t factor, int exponent, uint64_t max,
			 uint64_t *out)
{
	unsigned __int128 v = (unsigned __int128)mantissa * factor;
	for (; exponent > 0 && v && v <= max; exponent--)
		v *= 10;
	if (exponent < 0) {
		for (; exponent < -1 && v; exponent++)
			v /= 10;
		v = (v + 5) / 10; /* half up: the digits dropped before cannot change it */
	}
	if (v > max)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

int cli_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t factor;
		int exponent;
	} units[] = {{"", 1, 0},   {"ns", 1, 0}, {"us", 1, 3},
		     {"ms", 1, 6}, {"s", 1, 9},	 {"m", 60, 9}};
	uint64_t mantissa = 1;
	int exponent = 0;
	if (parse_decimal(&s, &mantissa, &exponent) < 0)
		return -1;
	/* A bare number is nanoseconds, as in uftrace; a bare fraction ("0.5")
	 * is nobody's nanoseconds: it must say its unit. */
	if (*s == '\0' && exponent < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(s, units[i].unit) == 0)
			return scale_decimal(mantissa, units[i].factor,
					     exponent + units[i].exponent, CLI_DURATION_MAX, ns) < 0
				   ? -2
				   : 0;
	return -1;
}

int cli_parse_count(const char *s, uint32_t *out)
{
	uint64_t v = 0;
	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

const char *cli_format_duration(uint64_t ns, char *buf, size_t len)
{
	static const char *units[] = {"ns", "us", "ms", " s"};
	double v = (double)ns;
	int u = 0;
	if (ns < 1000) {
		snprintf(buf, len, "%7llu ns", (unsigned long long)ns);
		return buf;
	}
	while (v >= 1000 && u < 3) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%7.3f %s", v, units[u]);
	return buf;
}
