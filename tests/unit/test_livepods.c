/* test_livepods.c — the grouping key of live Pods (what may differ between
 * Pods of one group and what may not) and the naming of groups. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "live/livepods_int.h"

/* A Pod of ReplicaSet web-abc, named name, on node, with cpu, env. */
static json_t *
pod(const char *name, const char *node, const char *cpu, const char *rank)
{
	json_t *p = json_pack(
		"{s:s,s:s,s:{s:s,s:s,s:s,s:{s:s,s:s,s:s},s:{s:s},s:[{s:s,s:s,"
		"s:b}]},s:{s:s,s:s,s:[{s:s,s:[{s:s,s:s}],s:{s:{s:s}},"
		"s:[{s:s,s:s}]}],s:[{s:s,s:{}}]},s:{s:s}}",
		"apiVersion", "v1", "kind", "Pod",
		"metadata", "name", name, "namespace", "ml", "uid", name,
		"labels", "app", name,
		"training.kubeflow.org/replica-index", name,
		"training.kubeflow.org/replica-type", "worker",
		"annotations", "note", name,
		"ownerReferences", "kind", "ReplicaSet", "name", "web-abc",
		"controller", 1,
		"spec", "nodeName", node, "hostname", name,
		"containers", "name", "app",
		"env", "name", "RANK", "value", rank,
		"resources", "limits", "cpu", cpu,
		"volumeMounts", "name", "kube-api-access-x", "mountPath",
		"/var/run/secrets",
		"volumes", "name", "kube-api-access-x", "projected",
		"status", "phase", name);

	ck_assert_ptr_nonnull(p);
	return p;
}

START_TEST(key_ignores_what_differs_per_pod)
{
	char owner[] = "deployment/ml/web";
	struct cpl_liveowner o = { .object = owner };
	json_t *a = pod("web-abc-1", "n1", "4", "0");
	json_t *b = pod("web-abc-2", "n2", "4", "1");
	json_t *c = pod("web-abc-3", "n1", "2", "0");
	char *ka, *kb, *kc;

	/* A StatefulSet's claim and a DaemonSet's node affinity. */
	json_object_set_new(json_object_get(a, "spec"), "affinity",
			    json_pack("{s:s}", "node", "n1"));
	json_object_set_new(json_object_get(b, "spec"), "affinity",
			    json_pack("{s:s}", "node", "n2"));
	json_array_append_new(json_object_get(json_object_get(a, "spec"),
					      "volumes"),
			      json_pack("{s:s,s:{s:s}}", "name", "data",
					"persistentVolumeClaim", "claimName",
					"data-web-abc-1"));
	json_array_append_new(json_object_get(json_object_get(b, "spec"),
					      "volumes"),
			      json_pack("{s:s,s:{s:s}}", "name", "data",
					"persistentVolumeClaim", "claimName",
					"data-web-abc-2"));
	ka = cpl_livepods_key(&o, a);
	kb = cpl_livepods_key(&o, b);
	kc = cpl_livepods_key(&o, c);

	/* Names, node, host, affinity, uid, rank, status, claims,
	 * service-account volume names, other labels and annotations:
	 * the same group. */
	ck_assert_str_eq(ka, kb);
	/* Another CPU limit: another group. */
	ck_assert_str_ne(ka, kc);
	ck_assert(strncmp(ka, "deployment/ml/web\n", 18) == 0);
	/* Without an owner there is no key: never merged. */
	ck_assert_ptr_null(cpl_livepods_key(NULL, a));
	free(ka);
	free(kb);
	free(kc);
	json_decref(a);
	json_decref(b);
	json_decref(c);
}
END_TEST

START_TEST(key_keeps_what_the_rules_read)
{
	char owner[] = "deployment/ml/web";
	struct cpl_liveowner o = { .object = owner };
	json_t *a = pod("web-abc-1", "n1", "4", "0");
	json_t *b = pod("web-abc-2", "n1", "4", "0");
	char *ka, *kb;

	/* An ignore-check annotation, an operator label, a rank that is
	 * not a number: each makes the spec another one. */
	json_object_set_new(json_object_get(json_object_get(b, "metadata"),
					    "annotations"),
			    "ignore-check.cpulint.io/CPU101",
			    json_string("ok"));
	ka = cpl_livepods_key(&o, a);
	kb = cpl_livepods_key(&o, b);
	ck_assert_str_ne(ka, kb);
	free(kb);
	json_decref(b);
	b = pod("web-abc-2", "n1", "4", "0");
	json_object_set_new(json_object_get(json_object_get(b, "metadata"),
					    "labels"),
			    "training.kubeflow.org/replica-type",
			    json_string("master"));
	kb = cpl_livepods_key(&o, b);
	ck_assert_str_ne(ka, kb);
	free(kb);
	json_decref(b);
	b = pod("web-abc-2", "n1", "4", "$(X)");
	kb = cpl_livepods_key(&o, b);
	ck_assert_str_ne(ka, kb);
	free(ka);
	free(kb);
	json_decref(a);
	json_decref(b);
}
END_TEST

START_TEST(key_of_owner_refs_with_optional_fields_left_out)
{
	/* ownerReferences[].controller is optional (absent: not the
	 * controller), and a server may leave out an entry's kind or the
	 * Pod's own kind: each is read as absent, never dereferenced. */
	char owner[] = "replicaset/ml/web-abc";
	struct cpl_liveowner o = { .object = owner };
	json_t *a = pod("web-abc-1", "n1", "4", "0");
	json_t *b = pod("web-abc-2", "n1", "4", "0");
	json_t *ref_a = json_array_get(json_object_get(json_object_get(a,
		"metadata"), "ownerReferences"), 0);
	json_t *ref_b = json_array_get(json_object_get(json_object_get(b,
		"metadata"), "ownerReferences"), 0);
	char *ka, *kb;

	json_object_del(ref_a, "controller");
	json_object_set_new(ref_b, "controller", json_false());
	ka = cpl_livepods_key(&o, a);
	kb = cpl_livepods_key(&o, b);
	ck_assert_ptr_nonnull(ka);
	/* Absent and false are the same: one group. */
	ck_assert_str_eq(ka, kb);
	ck_assert_ptr_eq(cpl_livepods_owner_ref(a), ref_a);
	free(kb);
	/* ... and neither is the controller true. */
	json_object_set_new(ref_b, "controller", json_true());
	kb = cpl_livepods_key(&o, b);
	ck_assert_str_ne(ka, kb);
	free(ka);
	free(kb);
	/* No kind in the reference, none on the Pod, an entry that is not
	 * an object: still a key. */
	json_object_del(ref_a, "kind");
	json_object_del(a, "kind");
	json_array_append_new(json_object_get(json_object_get(a, "metadata"),
					      "ownerReferences"),
			      json_string("junk"));
	ka = cpl_livepods_key(&o, a);
	ck_assert_ptr_nonnull(ka);
	free(ka);
	json_decref(a);
	json_decref(b);
}
END_TEST

START_TEST(groups_named_after_owner)
{
	struct cpl_livepods lp = CPL_LIVEPODS_INIT;
	char owner[] = "deployment/ml/web";
	struct cpl_liveowner o = { .object = owner };
	struct cpl_workload *w1 = cpl_workload_new(CPL_SRC_LIVE, NULL);
	struct cpl_workload *w2 = cpl_workload_new(CPL_SRC_LIVE, NULL);
	struct cpl_workload *w3 = cpl_workload_new(CPL_SRC_LIVE, NULL);
	size_t g1, g2, g3;

	w1->object = cpl_xstrdup("pod/ml/web-2");
	w2->object = cpl_xstrdup("pod/ml/solo");
	w3->object = cpl_xstrdup("pod/ml/web-9");
	g1 = cpl_livepods_add_group(&lp, cpl_xstrdup("k1"), &o, "ml", w1);
	g2 = cpl_livepods_add_group(&lp, NULL, NULL, "ml", w2);
	ck_assert_int_eq(cpl_livepods_find(&lp, "k1"), (long)g1);
	ck_assert_int_eq(cpl_livepods_find(&lp, "k2"), -1);
	cpl_livepods_add_pod(&lp, g1, "web-2", "n1", NULL);
	cpl_livepods_add_pod(&lp, g1, "web-1", "n1", NULL);
	cpl_livepods_add_pod(&lp, g2, "solo", NULL, NULL);
	cpl_livepods_finish(&lp);
	ck_assert_str_eq(w1->object, "deployment/ml/web");
	ck_assert_uint_eq(w1->pods, 2);
	ck_assert_str_eq(w2->object, "pod/ml/solo");
	ck_assert_uint_eq(w2->pods, 0);
	ck_assert_ptr_eq(lp.pods[0].node, lp.pods[1].node);
	/* A second spec of the same owner: groups say their first Pod. */
	g3 = cpl_livepods_add_group(&lp, cpl_xstrdup("k3"), &o, "ml", w3);
	cpl_livepods_add_pod(&lp, g3, "web-9", "n2", NULL);
	cpl_livepods_add_pod(&lp, g3, "web-8", "n2", NULL);
	cpl_livepods_finish(&lp);
	ck_assert_str_eq(w1->object, "deployment/ml/web/web-1");
	ck_assert_str_eq(w3->object, "deployment/ml/web/web-8");
	cpl_livepods_free(&lp);
	cpl_livepods_free(NULL);
	cpl_workload_free(w1);
	cpl_workload_free(w2);
	cpl_workload_free(w3);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("livepods");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, key_ignores_what_differs_per_pod);
	tcase_add_test(tc, key_keeps_what_the_rules_read);
	tcase_add_test(tc, key_of_owner_refs_with_optional_fields_left_out);
	tcase_add_test(tc, groups_named_after_owner);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
