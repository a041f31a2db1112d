/*
 * link.c — workload ↔ Python linking.  Until the Python scanner lands no
 * container has linked code, so nothing here can answer yes.
 */
#include "link.h"

bool
cpl_code_imports_torch(const struct cpl_code *code)
{
	(void)code;
	return false;
}
