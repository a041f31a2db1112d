/*
 * kfp.c — Kubeflow Pipelines v2 pipeline specs (the IR YAML the KFP SDK
 * compiles, "# PIPELINE DEFINITION": components, deploymentSpec,
 * pipelineInfo, root; no apiVersion or kind).  Each executor of
 * deploymentSpec.executors that runs a container is one workload: a step
 * that runs to completion and trains only on evidence (a launcher, Python
 * that trains, or GPUs with a command that runs Python), as Argo and
 * Tekton steps do.  A lightweight component's function source, which KFP
 * writes to a module and runs, is the container's inline Python.
 *
 * Resources are KFP's: cpuLimit / cpuRequest (a number of CPUs, SDK 2.0
 * to 2.6) and resourceCpuLimit / resourceCpuRequest (a quantity string,
 * later SDKs, or a pipeline parameter: unknown); accelerator.count or
 * accelerator.resourceCount is the GPU count.  The Kubernetes platform
 * spec (the second document, kfp-kubernetes) may mount an emptyDir at
 * /dev/shm for an executor: emptyDirMounts with mountPath /dev/shm.
 *
 * Ownership: workloads go to out; nothing is kept.
 */
#include "load/loader.h"

#include <stdlib.h>
#include <string.h>

#include "text/quantity.h"

bool
cpl_kfp_detect(const struct cpl_ynode *doc)
{
	const struct cpl_ynode *ds = cpl_ynode_get(doc, "deploymentSpec");

	return cpl_ynode_is_map(doc) && cpl_ynode_get(doc, "kind") == NULL &&
	       cpl_ynode_is_map(cpl_ynode_get(ds, "executors")) &&
	       (cpl_ynode_get(doc, "pipelineInfo") != NULL ||
		cpl_ynode_get(doc, "root") != NULL);
}

/* One of KFP's CPU fields at key of res into *out and *pos: a number of
 * CPUs or a quantity; a pipeline parameter is unknown. */
static int
kfp_cpu(int64_t *out, struct cpl_pos *pos, const struct cpl_ynode *res,
	const char *key, const char *path, struct cpl_error *err)
{
	const struct cpl_ynode *n = cpl_ynode_get(res, key);
	const char *why;

	if (cpl_loader_absent(n))
		return 0;
	*pos = cpl_loader_pos(path, n);
	if (!cpl_ynode_is_scalar(n))
		return cpl_loader_fail(err, path, n, "%s must be a number or "
				       "a quantity", key);
	if (strstr(n->value, "{{") != NULL) {
		*out = CPL_CPU_UNKNOWN;
		return 0;
	}
	if (cpl_quantity_cpu(out, n->value, &why) < 0)
		return cpl_loader_fail(err, path, n, "invalid CPU quantity "
				       "\"%s\": %s", n->value, why);
	return 0;
}

/* The GPUs of an accelerator mapping: count or resourceCount; 1 when a
 * parameter sets it. */
static long
kfp_gpus(const struct cpl_ynode *acc)
{
	static const char *const keys[] = { "resourceCount", "count" };
	size_t k;
	long v;

	for (k = 0; k < CPL_ARRAY_LEN(keys); k++) {
		const struct cpl_ynode *n = cpl_ynode_get(acc, keys[k]);

		if (!cpl_ynode_is_scalar(n))
			continue;
		if (cpl_parse_long(&v, n->value) == 0)
			return v > 0 ? v : 0;
		return 1;	/* a parameter: at least one */
	}
	return 0;
}

/* Whether the platform spec mounts a memory emptyDir at /dev/shm for
 * executor name. */
static bool
kfp_shm(const struct cpl_ystream *s, const char *name)
{
	size_t d, i;

	for (d = 1; d < cpl_ystream_count(s); d++) {
		const struct cpl_ynode *ex = cpl_ynode_path(
			cpl_ystream_doc(s, d), "platforms", "kubernetes",
			"deploymentSpec", "executors", name, NULL);
		const struct cpl_ynode *m = cpl_ynode_get(ex, "emptyDirMounts");

		if (!cpl_ynode_is_seq(m))
			continue;
		for (i = 0; i < m->count; i++) {
			const char *at = cpl_ynode_gets(m->items[i],
							"mountPath");

			if (at && (strcmp(at, "/dev/shm") == 0 ||
				   strcmp(at, "/dev/shm/") == 0))
				return true;
		}
	}
	return false;
}

/* One executor (key name, value ex) with a container: one workload. */
static int
load_executor(struct cpl_wlist *out, const struct cpl_ystream *s,
	      const struct cpl_ynode *doc, const char *name,
	      const struct cpl_ynode *ex, const char *path,
	      struct cpl_error *err)
{
	const struct cpl_ynode *cn = cpl_ynode_get(ex, "container");
	const struct cpl_ynode *res = cpl_ynode_get(cn, "resources");
	const char *pipeline = cpl_ynode_gets(cpl_ynode_get(doc,
							    "pipelineInfo"),
					      "name");
	struct cpl_workload *w;
	struct cpl_container *c;
	int rc;

	if (!cpl_ynode_is_map(cn))
		return 0;	/* an importer or a DAG: no container */
	w = cpl_workload_new(CPL_SRC_MANIFEST, path);
	w->kind = cpl_xstrdup("PipelineSpec");
	w->name = cpl_xstrdup(pipeline ? pipeline : "");
	w->replica = cpl_xstrdup(name);
	w->replicas = 1;
	w->pos = cpl_loader_pos(path, ex);
	w->run_to_completion = true;
	w->by_evidence = true;
	w->note = "a Kubeflow Pipelines executor: a step, training on "
		  "evidence";
	c = cpl_workload_add_container(w);
	c->name = cpl_xstrdup(name);
	c->role = CPL_CROLE_MAIN;
	c->pos.file = w->file;
	rc = cpl_manifest_kfp_container(c, s, cn, path, err);
	if (rc == 0 && cpl_ynode_is_map(res)) {
		c->resources_pos = cpl_loader_pos(path, cpl_ynode_key(cn,
							"resources"));
		rc = kfp_cpu(&c->cpu_limit, &c->limit_pos, res, "cpuLimit",
			     path, err);
		if (rc == 0)
			rc = kfp_cpu(&c->cpu_limit, &c->limit_pos, res,
				     "resourceCpuLimit", path, err);
		if (rc == 0)
			rc = kfp_cpu(&c->cpu_request, &c->request_pos, res,
				     "cpuRequest", path, err);
		if (rc == 0)
			rc = kfp_cpu(&c->cpu_request, &c->request_pos, res,
				     "resourceCpuRequest", path, err);
		c->gpus = kfp_gpus(cpl_ynode_get(res, "accelerator"));
	}
	c->shm = kfp_shm(s, name);
	if (c->shm)
		c->shm_bytes = -1;
	return cpl_loader_finish(out, w, rc);
}

int
cpl_kfp_load(struct cpl_wlist *out, const struct cpl_ystream *s,
	     const struct cpl_ynode *doc, const char *path,
	     struct cpl_error *err)
{
	const struct cpl_ynode *exs = cpl_ynode_path(doc, "deploymentSpec",
						     "executors", NULL);
	size_t i;
	int rc = 0;

	for (i = 0; i < exs->count; i++) {
		const char *name = cpl_ynode_str(exs->pairs[i].key);

		if (name != NULL &&
		    load_executor(out, s, doc, name, exs->pairs[i].value,
				  path, err) < 0)
			rc = -1;
	}
	return rc;
}
