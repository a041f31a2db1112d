/*
 * link.h — joins workloads to the Python they run: from a container's
 * command to its entry script in the repository and the local modules it
 * imports, each file scanned once however many workloads link it.
 */
#ifndef CPL_LINK_H
#define CPL_LINK_H

#include <stdbool.h>

#include "workload.h"

/* Whether the linked code imports torch (false for NULL). */
bool cpl_code_imports_torch(const struct cpl_code *code);

#endif
