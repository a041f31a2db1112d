/*
 * fuzz_lint.c — libFuzzer entry: one input is linted as a YAML file and,
 * split at its first NUL-free half, as a Python file, through the whole
 * engine (parser, loaders, shscan, rules).  Built and run by `make fuzz`
 * with clang's -fsanitize=fuzzer,address,undefined; any crash, leak or UB
 * stops it.
 */
#include <stddef.h>
#include <stdint.h>

#include "run/engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpl_engine *e = cpl_engine_new();

	cpl_engine_add_buffer(e, "fuzz.yaml", (const char *)data, size, true);
	cpl_engine_add_buffer(e, "fuzz.py", (const char *)data, size, true);
	cpl_engine_run(e);
	cpl_engine_free(e);
	return 0;
}
