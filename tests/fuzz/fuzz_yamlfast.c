/*
 * fuzz_yamlfast.c — libFuzzer entry: one input is a YAML text, read by
 * the fast reader (lib/text/yamlfast.c) and by libyaml.  Whatever the
 * fast reader reads must be read exactly as libyaml reads it (the oracle
 * of tests/unit/yamlfast_diff.h); a difference aborts with it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../unit/yamlfast_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool read;
	char *diff = yamlfast_diff((const char *)data, size, &read);

	if (diff) {
		fprintf(stderr, "yamlfast differs from libyaml: %s\n", diff);
		abort();
	}
	return 0;
}
