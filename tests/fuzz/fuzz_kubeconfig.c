/*
 * fuzz_kubeconfig.c — libFuzzer entry: one input is a kubeconfig file,
 * loaded and resolved as kubectl's rules say (contexts, clusters, users,
 * base64 data, auth conflicts, exec blocks — exec plugins are never run
 * here: loading does not run them).  The environment is empty and the
 * service-account directory absent, so nothing outside the input is read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kube/kubeconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static char *const env[] = { NULL };
	struct cpl_kubeconfig_opts o = { 0 };
	struct cpl_kubeconfig *kc = NULL;
	struct cpl_error err = { 0 };
	FILE *f;

	if (path[0] == '\0')
		snprintf(path, sizeof(path), "/tmp/fuzz-kubeconfig-%ld",
			 (long)getpid());
	if ((f = fopen(path, "wb")) == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	o.kubeconfig = path;
	o.env = env;
	o.serviceaccount_dir = "/nonexistent/serviceaccount";
	if (cpl_kubeconfig_load(&kc, &o, &err) == 0)
		(void)cpl_kubeconfig_info(kc);
	cpl_kubeconfig_free(kc);
	cpl_error_clear(&err);
	return 0;
}
