/*
 * quantity.c — exact CPU quantity parsing.
 *
 * The number is read as digits into an integer mantissa with a decimal
 * exponent, then scaled to millicores with ceiling rounding; anything that
 * would overflow int64 millicores is rejected rather than wrapped.
 */
#include "text/quantity.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

#define MAX_MILLIS ((int64_t)1 << 62)

struct suffix {
	const char *text;
	int base;	/* 10 or 2 */
	int exp;	/* power of base */
};

static const struct suffix suffixes[] = {
	{ "Ki", 2, 10 }, { "Mi", 2, 20 }, { "Gi", 2, 30 }, { "Ti", 2, 40 },
	{ "Pi", 2, 50 }, { "Ei", 2, 60 },
	{ "n", 10, -9 }, { "u", 10, -6 }, { "m", 10, -3 }, { "k", 10, 3 },
	{ "M", 10, 6 }, { "G", 10, 9 }, { "T", 10, 12 }, { "P", 10, 15 },
	{ "E", 10, 18 },
};

/* Multiplies *v by m unless the result passes MAX_MILLIS. */
static bool
mul_ok(int64_t *v, int64_t m)
{
	if (*v != 0 && m > MAX_MILLIS / *v)
		return false;
	*v *= m;
	return true;
}

int
cpl_quantity_cpu(int64_t *millis, const char *text, const char **why)
{
	const char *p = text;
	int64_t mant = 0;
	int dexp = 0, bexp = 0, digits = 0, sig = 0;
	bool neg = false, frac = false;
	size_t i;

	*why = NULL;
	if (text == NULL || *text == '\0') {
		*why = "empty CPU quantity";
		return -1;
	}
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	for (; *p; p++) {
		if (*p == '.' && !frac) {
			frac = true;
			continue;
		}
		if (!isdigit((unsigned char)*p))
			break;
		digits++;
		if (mant == 0 && *p == '0') {
			if (frac)
				dexp--;
			continue;
		}
		/* Keep 18 significant digits; beyond that, only magnitude. */
		if (sig < 18) {
			mant = mant * 10 + (*p - '0');
			sig++;
			if (frac)
				dexp--;
		} else if (!frac) {
			dexp++;
		}
	}
	if (digits == 0) {
		*why = "CPU quantity has no digits (expected e.g. 500m, 2, 2.5)";
		return -1;
	}
	if (*p == 'e' || *p == 'E') {
		/* "E" alone is the exa suffix; "E" followed by a number is an
		 * exponent. */
		const char *q = p + 1;
		long e = 0;
		bool eneg = false;

		if (*q == '+' || *q == '-')
			eneg = *q++ == '-';
		if (isdigit((unsigned char)*q)) {
			while (isdigit((unsigned char)*q)) {
				if (e < 10000)
					e = e * 10 + (*q - '0');
				q++;
			}
			dexp += (int)(eneg ? -e : e);
			p = q;
		}
	}
	if (*p) {
		for (i = 0; i < CPL_ARRAY_LEN(suffixes); i++) {
			if (strcmp(p, suffixes[i].text) == 0)
				break;
		}
		if (i == CPL_ARRAY_LEN(suffixes)) {
			*why = "unknown suffix in CPU quantity (use m for "
			       "millicores: 500m)";
			return -1;
		}
		if (suffixes[i].base == 10)
			dexp += suffixes[i].exp;
		else
			bexp = suffixes[i].exp;
	}
	if (neg && mant != 0) {
		*why = "CPU quantity is negative";
		return -1;
	}
	/* millicores = mant * 10^(dexp+3) * 2^bexp, rounded up. */
	dexp += 3;
	if (mant == 0) {
		*millis = 0;
		return 0;
	}
	if (dexp > 40 || bexp > 62) {
		*why = "CPU quantity is too large";
		return -1;
	}
	for (; bexp > 0; bexp--)
		if (!mul_ok(&mant, 2)) {
			*why = "CPU quantity is too large";
			return -1;
		}
	if (dexp >= 0) {
		for (; dexp > 0; dexp--)
			if (!mul_ok(&mant, 10)) {
				*why = "CPU quantity is too large";
				return -1;
			}
		*millis = mant;
		return 0;
	}
	{
		bool rem = false;

		for (; dexp < 0 && mant; dexp++) {
			rem = rem || mant % 10 != 0;
			mant /= 10;
		}
		if (dexp < 0)	/* ran out of digits: a tiny positive amount */
			rem = true, mant = 0;
		*millis = mant + (rem ? 1 : 0);
	}
	return 0;
}

int
cpl_quantity_range(int64_t *req, int64_t *lim, const char *text,
		   const char **why)
{
	const char *dots = text ? strstr(text, "..") : NULL;
	char left[64];
	size_t n;

	*req = *lim = -1;
	*why = NULL;
	if (text == NULL) {
		*why = "empty CPU range";
		return -1;
	}
	if (dots == NULL) {
		if (cpl_quantity_cpu(req, text, why) < 0)
			return -1;
		*lim = *req;
		return 0;
	}
	n = (size_t)(dots - text);
	if (n >= sizeof(left)) {
		*why = "CPU range is too long";
		return -1;
	}
	memcpy(left, text, n);
	left[n] = '\0';
	if (n > 0 && cpl_quantity_cpu(req, left, why) < 0)
		return -1;
	if (dots[2] != '\0' && cpl_quantity_cpu(lim, dots + 2, why) < 0)
		return -1;
	if (n == 0 && dots[2] == '\0') {
		*why = "CPU range has neither request nor limit";
		return -1;
	}
	if (*req >= 0 && *lim >= 0 && *req > *lim) {
		*why = "CPU range request is above its limit";
		return -1;
	}
	return 0;
}

void
cpl_quantity_format(char *out, unsigned size, int64_t millis)
{
	if (millis % 1000 == 0)
		snprintf(out, size, "%lld", (long long)(millis / 1000));
	else
		snprintf(out, size, "%lldm", (long long)millis);
}
