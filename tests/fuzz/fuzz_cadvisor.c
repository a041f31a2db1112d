/*
 * fuzz_cadvisor.c — libFuzzer entry: one input is a kubelet's cAdvisor
 * metrics page (Prometheus text format), parsed and every container's
 * counters looked up.
 */
#include <stdint.h>

#include "kube/cadvisor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpl_cadvisor *m = NULL;
	struct cpl_error err = { 0 };
	size_t i;

	if (cpl_cadvisor_parse(&m, (const char *)data, size, "fuzz",
			       &err) == 0) {
		for (i = 0; i < cpl_cadvisor_count(m); i++) {
			const struct cpl_cadvisor_counters *c =
				cpl_cadvisor_at(m, i);

			(void)cpl_cadvisor_find(m, c->namespace, c->pod,
						c->container);
		}
	}
	cpl_cadvisor_free(m);
	cpl_error_clear(&err);
	return 0;
}
