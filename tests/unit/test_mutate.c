/*
 * test_mutate.c — the JSONPatch of `serve --mutate` (live/mutate.h): a
 * review judged, then planned: the thread variables the fixes add, in
 * the containers they name (env created with an add of /env, or entries
 * added at /env/-), a user's value (value or valueFrom) kept, init
 * containers, sidecars and non-training objects untouched, opt-out,
 * dry run, a PyTorchJob's templates and a Pod its operator made (judged
 * with the owner's ranks), JSON-pointer escaping, and the applier the
 * check uses refusing what is not an add at a path that resolves.  The
 * endpoint itself runs end to end in tests/e2e/serve-mutate.sh.
 */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "live/admit.h"
#include "live/mutate.h"
#include "util.h"

/* obj (JSON with ' for ") in an AdmissionReview of operation op. */
static char *
review_op(const char *obj, const char *op)
{
	char *s = cpl_xasprintf(
		"{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview',"
		"'request':{'uid':'u1','operation':'%s','namespace':'ml',"
		"'kind':{'group':'','version':'v1','kind':'Pod'},'object':%s}}",
		op, obj);
	char *p;

	for (p = s; *p; p++)
		if (*p == '\'')
			*p = '"';
	return s;
}

static char *
review(const char *obj)
{
	return review_op(obj, "CREATE");
}

/* The plan for obj; *out filled, the admit kept in *a for the caller to
 * clear. */
static void
plan(struct cpl_mutation *m, struct cpl_admit *a, const char *obj,
     bool dry_run)
{
	struct cpl_error err = { 0 };
	char *body = review(obj);

	ck_assert_int_eq(cpl_admit_review(a, body, strlen(body), NULL, &err),
			 0);
	ck_assert_ptr_nonnull(a->e);
	cpl_mutate_plan(m, a, dry_run);
	free(body);
}

/* The patch as JSON (the test's to decref); NULL when none. */
static json_t *
ops(const struct cpl_mutation *m)
{
	return m->patch ? json_loads(m->patch, 0, NULL) : NULL;
}

#define POD_HEAD "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'," \
	"'namespace':'ml'},'spec':{'restartPolicy':'Never',"
#define TRAIN "'name':'train','image':'pytorch/pytorch','command':" \
	"['torchrun','--nproc_per_node=1','train.py'],'resources':" \
	"{'limits':{'cpu':'4'}}"

START_TEST(env_created)
{
	struct cpl_mutation m;
	struct cpl_admit a;
	json_t *p, *op;
	char *s;

	plan(&m, &a, POD_HEAD "'containers':[{" TRAIN "},{'name':'side',"
	     "'image':'nginx'}]}}", false);
	ck_assert_ptr_null(m.refused);
	p = ops(&m);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(json_array_size(p), 2);
	op = json_array_get(p, 0);
	ck_assert_str_eq(json_string_value(json_object_get(op, "op")), "add");
	ck_assert_str_eq(json_string_value(json_object_get(op, "path")),
			 "/spec/containers/0/env");
	s = json_dumps(json_object_get(op, "value"), JSON_COMPACT);
	ck_assert_str_eq(s, "[{\"name\":\"OMP_NUM_THREADS\",\"value\":\"2\"},"
			 "{\"name\":\"MKL_NUM_THREADS\",\"value\":\"2\"}]");
	free(s);
	op = json_array_get(p, 1);
	ck_assert_str_eq(json_string_value(json_object_get(op, "path")),
			 "/metadata/annotations");
	ck_assert(strstr(json_string_value(json_object_get(json_object_get(op,
		  "value"), "cpulint.io/mutated")),
		  "container \"train\": OMP_NUM_THREADS=2, MKL_NUM_THREADS=2 "
		  "(CPU limit 4, 1 rank, CPU201") != NULL);
	json_decref(p);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
}
END_TEST

START_TEST(env_appended_and_escaped)
{
	struct cpl_mutation m;
	struct cpl_admit a;
	json_t *p;
	char *s;

	plan(&m, &a, "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p',"
	     "'annotations':{'a/b~c':'x'}},'spec':{'containers':[{" TRAIN
	     ",'env':[{'name':'A','value':'b'}]}]}}", false);
	p = ops(&m);
	ck_assert_ptr_nonnull(p);
	s = json_dumps(p, JSON_COMPACT);
	ck_assert_str_eq(s, "[{\"op\":\"add\",\"path\":\"/spec/containers/0/"
			 "env/-\",\"value\":{\"name\":\"OMP_NUM_THREADS\","
			 "\"value\":\"2\"}},{\"op\":\"add\",\"path\":\"/spec/"
			 "containers/0/env/-\",\"value\":{\"name\":"
			 "\"MKL_NUM_THREADS\",\"value\":\"2\"}},{\"op\":\"add\","
			 "\"path\":\"/metadata/annotations/cpulint.io~1mutated"
			 "\",\"value\":\"container \\\"train\\\": "
			 "OMP_NUM_THREADS=2, MKL_NUM_THREADS=2 (CPU limit 4, 1 "
			 "rank, CPU201 thread-env-missing)\"}]");
	free(s);
	json_decref(p);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
}
END_TEST

START_TEST(note_replaced)
{
	struct cpl_mutation m;
	struct cpl_admit a;

	/* An object copied from one mutated before, its env dropped: the
	 * note is replaced, not refused. */
	plan(&m, &a, "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p',"
	     "'annotations':{'cpulint.io/mutated':'old'}},'spec':{"
	     "'containers':[{" TRAIN "}]}}", false);
	ck_assert_ptr_null(m.refused);
	ck_assert_ptr_nonnull(m.patch);
	ck_assert(strstr(m.patch, "\"path\":\"/metadata/annotations/"
			 "cpulint.io~1mutated\"") != NULL);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
}
END_TEST

START_TEST(user_values_kept)
{
	static const char *const objs[] = {
		/* a value */
		POD_HEAD "'containers':[{" TRAIN ",'env':[{'name':"
		"'OMP_NUM_THREADS','value':'8'}]}]}}",
		/* valueFrom */
		POD_HEAD "'containers':[{" TRAIN ",'env':[{'name':"
		"'OMP_NUM_THREADS','valueFrom':{'fieldRef':{'fieldPath':"
		"'metadata.name'}}}]}]}}",
		/* envFrom: the ConfigMap may set it */
		POD_HEAD "'containers':[{" TRAIN ",'envFrom':[{'configMapRef':"
		"{'name':'c'}}]}]}}",
		/* not training: nginx */
		POD_HEAD "'containers':[{'name':'web','image':'nginx',"
		"'resources':{'limits':{'cpu':'4'}}}]}}",
	};
	struct cpl_mutation m;
	struct cpl_admit a;
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(objs); i++) {
		plan(&m, &a, objs[i], false);
		ck_assert_msg(m.patch == NULL, "%zu: %s", i, m.patch);
		ck_assert_uint_eq(m.nsets, 0);
		cpl_mutate_clear(&m);
		cpl_admit_clear(&a);
	}
}
END_TEST

START_TEST(no_limit)
{
	struct cpl_mutation m;
	struct cpl_admit a;

	/* No CPU budget: the fix's 1, and the note says why. */
	plan(&m, &a, POD_HEAD "'containers':[{'name':'train','image':"
	     "'pytorch/pytorch','command':['torchrun','--nproc_per_node=1',"
	     "'train.py']}]}}", false);
	ck_assert_uint_eq(m.nsets, 2);
	ck_assert_str_eq(m.sets[0].value, "1");
	ck_assert_msg(strstr(m.note, "(no CPU limit, 1 rank, CPU201") != NULL,
		      "%s", m.note);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
}
END_TEST

START_TEST(mkl_kept)
{
	struct cpl_mutation m;
	struct cpl_admit a;

	/* MKL set by the user, OMP not: only OMP is added. */
	plan(&m, &a, POD_HEAD "'containers':[{" TRAIN ",'env':[{'name':"
	     "'MKL_NUM_THREADS','value':'2'}]}]}}", false);
	ck_assert_uint_eq(m.nsets, 1);
	ck_assert_str_eq(m.sets[0].name, "OMP_NUM_THREADS");
	ck_assert_str_eq(m.sets[0].value, "2");
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
}
END_TEST

START_TEST(init_untouched)
{
	struct cpl_mutation m;
	struct cpl_admit a;
	size_t i;

	plan(&m, &a, POD_HEAD "'initContainers':[{" TRAIN "}],'containers':"
	     "[{'name':'t2','image':'pytorch/pytorch','command':['torchrun',"
	     "'--nproc_per_node=2','train.py'],'resources':{'limits':"
	     "{'cpu':'8'}}},{" TRAIN "}]}}", false);
	ck_assert_ptr_null(m.refused);
	/* torchrun sets 1 for its 2 ranks: only the second container. */
	ck_assert_uint_eq(m.nsets, 2);
	for (i = 0; i < m.nsets; i++)
		ck_assert_str_eq(m.sets[i].pointer, "/spec/containers/1");
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
}
END_TEST

START_TEST(opt_out_and_dry_run)
{
	struct cpl_mutation m;
	struct cpl_admit a;
	json_t *p;

	plan(&m, &a, "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p',"
	     "'annotations':{'cpulint.io/mutate':'false'}},'spec':"
	     "{'containers':[{" TRAIN "}]}}", false);
	ck_assert_ptr_null(m.patch);
	ck_assert_ptr_nonnull(m.skipped);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
	plan(&m, &a, POD_HEAD "'containers':[{" TRAIN "}]}}", true);
	p = ops(&m);
	ck_assert_uint_eq(json_array_size(p), 1);
	ck_assert_str_eq(json_string_value(json_object_get(
		json_array_get(p, 0), "path")), "/metadata/annotations");
	ck_assert(strstr(m.note, "dry run (--mutate-dry-run), would set: "
			 "container \"train\": OMP_NUM_THREADS=2") == m.note);
	json_decref(p);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
}
END_TEST

START_TEST(update_untouched)
{
	struct cpl_error err = { 0 };
	struct cpl_mutation m;
	struct cpl_admit a;
	char *body = review_op(POD_HEAD "'containers':[{" TRAIN "}]}}",
			       "UPDATE");

	ck_assert_int_eq(cpl_admit_review(&a, body, strlen(body), NULL, &err),
			 0);
	ck_assert_ptr_nonnull(a.e);
	cpl_mutate_plan(&m, &a, false);
	ck_assert_ptr_null(m.patch);
	ck_assert_uint_eq(m.nsets, 0);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
	free(body);
}
END_TEST

START_TEST(pytorchjob_templates)
{
	struct cpl_mutation m;
	struct cpl_admit a;

	plan(&m, &a, "{'apiVersion':'kubeflow.org/v1','kind':'PyTorchJob',"
	     "'metadata':{'name':'j','namespace':'ml'},'spec':{"
	     "'nprocPerNode':'1','pytorchReplicaSpecs':{'Worker':{"
	     "'replicas':2,'template':{'spec':{'containers':[{'name':"
	     "'pytorch','image':'pytorch/pytorch','command':['python',"
	     "'train.py'],'resources':{'limits':{'cpu':'6'}}}]}}}}}}", false);
	ck_assert_ptr_null(m.refused);
	ck_assert_uint_eq(m.nsets, 2);
	ck_assert_str_eq(m.sets[0].pointer, "/spec/pytorchReplicaSpecs/"
			 "Worker/template/spec/containers/0");
	ck_assert_str_eq(m.sets[0].value, "3");
	ck_assert(m.sets[0].env_absent);
	ck_assert(strstr(m.patch, "\"path\":\"/spec/pytorchReplicaSpecs/"
			 "Worker/template/spec/containers/0/env\"") != NULL);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
}
END_TEST

START_TEST(job_kinds)
{
	static const struct {
		const char *obj, *pointer, *value;
	} cases[] = {
		{ "{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':"
		  "'j'},'spec':{'template':{'spec':{'restartPolicy':'Never',"
		  "'containers':[{" TRAIN "}]}}}}",
		  "/spec/template/spec/containers/0", "2" },
		{ "{'apiVersion':'jobset.x-k8s.io/v1alpha2','kind':'JobSet',"
		  "'metadata':{'name':'js'},'spec':{'replicatedJobs':[{'name':"
		  "'w','replicas':2,'template':{'spec':{'template':{'spec':{"
		  "'restartPolicy':'Never','containers':[{'name':'t','image':"
		  "'pytorch/pytorch','command':['torchrun','--nproc_per_node=1',"
		  "'train.py'],'resources':{'limits':{'cpu':'6'}}}]}}}}}]}}",
		  "/spec/replicatedJobs/0/template/spec/template/spec/"
		  "containers/0", "3" },
	};
	struct cpl_mutation m;
	struct cpl_admit a;
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(cases); i++) {
		plan(&m, &a, cases[i].obj, false);
		ck_assert_ptr_null(m.refused);
		ck_assert_uint_eq(m.nsets, 2);
		ck_assert_str_eq(m.sets[0].pointer, cases[i].pointer);
		ck_assert_str_eq(m.sets[0].value, cases[i].value);
		cpl_mutate_clear(&m);
		cpl_admit_clear(&a);
	}
}
END_TEST

START_TEST(operator_pod)
{
	struct cpl_mutation m;
	struct cpl_admit a;

	/* The operator's Pod: python train.py is trained by the owner's
	 * kind, with its PET_NPROC_PER_NODE ranks (2 on 4 CPUs). */
	plan(&m, &a, "{'apiVersion':'v1','kind':'Pod','metadata':{'name':"
	     "'j-worker-0','labels':{'training.kubeflow.org/replica-type':"
	     "'worker'},'ownerReferences':[{'apiVersion':'kubeflow.org/v1',"
	     "'kind':'PyTorchJob','name':'j','uid':'1','controller':true}]},"
	     "'spec':{'containers':[{'name':'pytorch','image':"
	     "'pytorch/pytorch','command':['python','train.py'],'env':[{"
	     "'name':'PET_NPROC_PER_NODE','value':'1'}],'resources':"
	     "{'limits':{'cpu':'4'}}}]}}", false);
	ck_assert_str_eq(a.wrapped, "/spec/pytorchReplicaSpecs/Worker/"
			 "template/spec");
	ck_assert_ptr_null(m.refused);
	ck_assert_uint_eq(m.nsets, 2);
	ck_assert_str_eq(m.sets[0].pointer, "/spec/containers/0");
	ck_assert_str_eq(m.sets[0].value, "2");
	ck_assert(!m.sets[0].env_absent);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
	/* The same Pod without its owner is not judged to train. */
	plan(&m, &a, "{'apiVersion':'v1','kind':'Pod','metadata':{'name':"
	     "'x'},'spec':{'containers':[{'name':'pytorch','image':"
	     "'pytorch/pytorch','command':['python','train.py'],'resources':"
	     "{'limits':{'cpu':'4'}}}]}}", false);
	ck_assert_ptr_null(a.wrapped);
	ck_assert_uint_eq(m.nsets, 0);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
}
END_TEST

START_TEST(apply_refuses)
{
	static const char *const bad[] = {
		"{}",
		"[{\"op\":\"remove\",\"path\":\"/a\"}]",
		"[{\"op\":\"replace\",\"path\":\"/a\",\"value\":1}]",
		"[{\"op\":\"add\",\"path\":\"/x/y\",\"value\":1}]",
		"[{\"op\":\"add\",\"path\":\"/a/~2\",\"value\":1}]",
		"[{\"op\":\"add\",\"path\":\"/l/5\",\"value\":1}]",
		"[{\"op\":\"add\",\"path\":\"/l/01\",\"value\":1}]",
		"[{\"op\":\"add\",\"path\":\"a\",\"value\":1}]",
		"[{\"op\":\"add\",\"path\":\"/a\"}]",
	};
	json_t *obj = json_loads("{\"a\":{\"b/c\":{}},\"l\":[1]}", 0, NULL);
	json_t *r;
	char *why, *s;
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(bad); i++) {
		r = cpl_mutate_apply(obj, bad[i], &why);
		ck_assert_msg(r == NULL, "%s applied", bad[i]);
		ck_assert_ptr_nonnull(why);
		free(why);
	}
	r = cpl_mutate_apply(obj, "[{\"op\":\"add\",\"path\":\"/a/b~1c/~0\","
			     "\"value\":1},{\"op\":\"add\",\"path\":\"/l/-\","
			     "\"value\":2},{\"op\":\"add\",\"path\":\"/l/0\","
			     "\"value\":0}]", &why);
	ck_assert_ptr_nonnull(r);
	s = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
	ck_assert_str_eq(s, "{\"a\":{\"b/c\":{\"~\":1}},\"l\":[0,1,2]}");
	free(s);
	json_decref(r);
	json_decref(obj);
}
END_TEST

START_TEST(limits)
{
	struct cpl_mutation m;
	struct cpl_admit a;
	struct cpl_buf b;
	char *obj, *pad;
	size_t i;

	/* Annotations already near the API server's 256 KiB: refused. */
	pad = cpl_xcalloc(262100 + 1, 1);
	memset(pad, 'x', 262100);
	obj = cpl_xasprintf("{'apiVersion':'v1','kind':'Pod','metadata':{"
			    "'name':'p','annotations':{'pad':'%s'}},'spec':{"
			    "'containers':[{" TRAIN "}]}}", pad);
	plan(&m, &a, obj, false);
	ck_assert_ptr_null(m.patch);
	ck_assert(strstr(m.refused, "annotations would pass") != NULL);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
	free(obj);
	free(pad);
	/* 120 training containers: the note counts what it cannot say. */
	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, POD_HEAD "'containers':[");
	for (i = 0; i < 120; i++)
		cpl_buf_addf(&b, "%s{'name':'t%zu','image':'pytorch/pytorch',"
			     "'command':['torchrun','--nproc_per_node=1',"
			     "'train.py'],'resources':{'limits':{'cpu':'4'}}}",
			     i ? "," : "", i);
	cpl_buf_adds(&b, "]}}");
	plan(&m, &a, b.data, false);
	ck_assert_ptr_null(m.refused);
	ck_assert_uint_eq(m.nsets, 240);
	ck_assert_uint_lt(strlen(m.note), 4096 + 256);
	ck_assert(strstr(m.note, "more containers") != NULL);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
	cpl_buf_free(&b);
}
END_TEST

START_TEST(replicas_why)
{
	struct cpl_mutation m;
	struct cpl_admit a;

	/* Master and Worker: one container name, two budgets. */
	plan(&m, &a, "{'apiVersion':'kubeflow.org/v1','kind':'PyTorchJob',"
	     "'metadata':{'name':'j'},'spec':{'pytorchReplicaSpecs':{"
	     "'Master':{'replicas':1,'template':{'spec':{'containers':[{"
	     "'name':'pytorch','image':'pytorch/pytorch','command':['python',"
	     "'train.py'],'resources':{'limits':{'cpu':'2'}}}]}}},"
	     "'Worker':{'replicas':2,'template':{'spec':{'containers':[{"
	     "'name':'pytorch','image':'pytorch/pytorch','command':['python',"
	     "'train.py'],'resources':{'limits':{'cpu':'8'}}}]}}}}}}", false);
	ck_assert_uint_eq(m.nsets, 4);
	ck_assert(strstr(m.sets[0].pointer, "/Master/") != NULL);
	ck_assert_str_eq(m.sets[0].value, "1");
	ck_assert(strstr(m.sets[0].why, "[Master] CPU limit 2") != NULL);
	ck_assert(strstr(m.sets[2].pointer, "/Worker/") != NULL);
	ck_assert_str_eq(m.sets[2].value, "4");
	ck_assert(strstr(m.sets[2].why, "[Worker] CPU limit 8") != NULL);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
}
END_TEST

static Suite *
mutate_suite(void)
{
	Suite *s = suite_create("mutate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, env_created);
	tcase_add_test(tc, env_appended_and_escaped);
	tcase_add_test(tc, note_replaced);
	tcase_add_test(tc, user_values_kept);
	tcase_add_test(tc, no_limit);
	tcase_add_test(tc, mkl_kept);
	tcase_add_test(tc, init_untouched);
	tcase_add_test(tc, opt_out_and_dry_run);
	tcase_add_test(tc, update_untouched);
	tcase_add_test(tc, pytorchjob_templates);
	tcase_add_test(tc, job_kinds);
	tcase_add_test(tc, operator_pod);
	tcase_add_test(tc, apply_refuses);
	tcase_add_test(tc, limits);
	tcase_add_test(tc, replicas_why);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(mutate_suite)
