/*
 * quantity.h — Kubernetes CPU quantities and Polyaxon CPU ranges.
 *
 * CPU amounts are kept as millicores (int64).  A quantity is a signed
 * decimal number ("2", "2.5", ".5", "1e3", "1E-1") with an optional
 * suffix: decimal SI (n u m k M G T P E), binary (Ki Mi Gi Ti Pi Ei) or an
 * exponent.  Like the API server's MilliValue(), fractions of a millicore
 * round up.  Polyaxon's simplified form "REQ..LIM" gives request and limit.
 * Pure functions, no allocation.
 */
#ifndef CPL_QUANTITY_H
#define CPL_QUANTITY_H

#include <stdint.h>

/*
 * Parses a CPU quantity into *millis.  On failure returns -1 and sets *why
 * to a static sentence naming the problem (never NULL then).
 */
int cpl_quantity_cpu(int64_t *millis, const char *text, const char **why);

/*
 * Parses "REQ..LIM" (either side may be empty: "..4", "2..") or a single
 * quantity (request = limit).  Absent sides are -1.  -1 and *why on error,
 * including a request above the limit.
 */
int cpl_quantity_range(int64_t *req, int64_t *lim, const char *text,
		       const char **why);

/* Formats millicores as Kubernetes would write it: "2", "500m", "2500m". */
void cpl_quantity_format(char *out, unsigned size, int64_t millis);

#endif
