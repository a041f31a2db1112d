/*
 * fuzz_apijson.c — libFuzzer entry: one input is a JSON body as the API
 * server would send it (an object, or a list of them), decoded the way
 * live mode decodes it: jansson, then each object re-read as a YAML
 * document by the manifest loader, then the rules over the workloads;
 * and as a Pod of a live list: its owner reference, its grouping key
 * and its containers' start times (lib/live/livepods.c), where no optional
 * field may be assumed present.
 */
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "live/livepods_int.h"
#include "load/loader.h"
#include "run/engine.h"
#include "text/yamldoc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *body = json_loadb((const char *)data, size, 0, NULL);
	struct cpl_engine *e;
	struct cpl_ystream *s = NULL;
	struct cpl_wlist wl = { 0 };
	struct cpl_error err = { 0 };
	struct cpl_livepods lp = CPL_LIVEPODS_INIT;
	char owner[] = "job/fuzz/owner";
	struct cpl_liveowner o = { .object = owner };
	char *text;
	size_t i;

	if (body == NULL)
		return 0;
	text = json_dumps(body, JSON_COMPACT);
	(void)cpl_livepods_owner_ref(body);
	free(cpl_livepods_key(&o, body));
	e = cpl_engine_new();
	if (text != NULL &&
	    cpl_yaml_parse(&s, "pod/fuzz", text, strlen(text), &err) == 0 &&
	    cpl_ystream_count(s) > 0)
		(void)cpl_manifest_load(&wl, s, cpl_ystream_doc(s, 0), NULL,
					&err);
	if (wl.count > 0) {
		/* The Pod's record, with its containers' start times. */
		size_t g = cpl_livepods_add_group(&lp, NULL, &o, "fuzz",
						  wl.items[0]);

		cpl_livepods_add_pod(&lp, g, "fuzz",
			json_string_value(json_object_get(json_object_get(
				body, "spec"), "nodeName")),
			json_object_get(json_object_get(body, "status"),
					"containerStatuses"));
		cpl_livepods_finish(&lp);
	}
	json_decref(body);
	for (i = 0; i < wl.count; i++) {
		wl.items[i]->source = CPL_SRC_LIVE;
		cpl_engine_add_workload(e, wl.items[i]);
	}
	wl.count = 0;		/* the engine took the workloads */
	cpl_wlist_free(&wl);
	cpl_engine_run(e);
	cpl_engine_free(e);
	cpl_livepods_free(&lp);
	cpl_ystream_free(s);
	cpl_error_clear(&err);
	free(text);
	return 0;
}
