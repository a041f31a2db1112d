/* test_pywork.c — workloads declared in Python (run/pywork.c): what each
 * framework's declaration becomes, what is left not judged, and the code
 * each workload is given. */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "model/workload.h"
#include "run/pywork_int.h"

/* Reads text as file "flow.py" into l (zeroed first). */
static void
load(struct cpl_wlist *l, const char *text)
{
	memset(l, 0, sizeof(*l));
	ck_assert_int_eq(cpl_pywork_load(l, "flow.py", text, strlen(text)),
			 0);
}

/* The workload of l named name (replica: its replica, or NULL). */
static const struct cpl_workload *
find(const struct cpl_wlist *l, const char *name, const char *replica)
{
	size_t i;

	for (i = 0; i < l->count; i++)
		if (strcmp(l->items[i]->name, name) == 0 &&
		    (replica == NULL ||
		     (l->items[i]->replica &&
		      strcmp(l->items[i]->replica, replica) == 0)))
			return l->items[i];
	ck_abort_msg("no workload %s", name);
	return NULL;
}

/* Line n (from 1) of c's code, copied into buf. */
static const char *
code_line(const struct cpl_container *c, int n, char *buf, size_t size)
{
	const char *p = c->script_py, *nl;
	size_t len;

	for (; n > 1 && p != NULL; n--) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	ck_assert_ptr_nonnull(p);
	nl = strchr(p, '\n');
	len = nl ? (size_t)(nl - p) : strlen(p);
	if (len >= size)
		len = size - 1;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return buf;
}

/* Whether line is blanked (spaces only, not empty). */
static bool
is_blank(const char *line)
{
	return line[0] != '\0' && strspn(line, " ") == strlen(line);
}

START_TEST(flyte_elastic)
{
	struct cpl_wlist l;
	const struct cpl_workload *w;
	const struct cpl_container *c;
	const struct cpl_env *e;

	load(&l,
	     "from flytekit import Resources, task\n"
	     "from flytekitplugins.kfpytorch import Elastic\n"
	     "@task(task_config=Elastic(nnodes=1, nproc_per_node=4),\n"
	     "      requests=Resources(cpu=\"2500m\", gpu=\"1\"),\n"
	     "      environment={\"OMP_NUM_THREADS\": \"2\"})\n"
	     "def train():\n"
	     "    pass\n");
	ck_assert_uint_eq(l.count, 1);
	w = find(&l, "train", NULL);
	c = &w->containers[0];
	ck_assert_str_eq(w->kind, "Flyte Elastic task");
	ck_assert(w->py_declared && w->platform_cpu && c->run_container);
	/* flytepropeller: the missing limit takes the request. */
	ck_assert_int_eq(c->cpu_request, 2500);
	ck_assert_int_eq(c->cpu_limit, 2500);
	ck_assert_int_eq(c->limit_pos.line, 4);
	ck_assert_int_eq(c->gpus, 1);
	ck_assert_int_eq(c->launch.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(c->launch.nproc.text, "4");
	ck_assert(c->shm);	/* increase_shared_mem defaults to True */
	e = cpl_container_env(c, "OMP_NUM_THREADS");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->value, "2");
	/* At the value, which a fix replaces. */
	ck_assert_int_eq(e->pos.line, 5);
	ck_assert_int_eq(e->pos.column, 39);
	cpl_wlist_free(&l);
}
END_TEST

START_TEST(flyte_plain_and_pytorch)
{
	struct cpl_wlist l;
	const struct cpl_container *c;

	load(&l,
	     "import flytekit\n"
	     "from flytekitplugins.kfpytorch import PyTorch\n"
	     "@flytekit.task\n"
	     "def prep():\n"
	     "    pass\n"
	     "@flytekit.task(task_config=PyTorch(num_workers=2,\n"
	     "               increase_shared_mem=False),\n"
	     "               limits=flytekit.Resources(cpu=\"4\"))\n"
	     "def fit():\n"
	     "    pass\n"
	     "@flytekit.workflow\n"
	     "def wf():\n"
	     "    fit()\n");
	ck_assert_uint_eq(l.count, 2);
	c = &find(&l, "prep", NULL)->containers[0];
	ck_assert_int_eq(c->cpu_request, CPL_CPU_ABSENT);
	ck_assert(!c->run_container && find(&l, "prep", NULL)->by_evidence);
	c = &find(&l, "fit", NULL)->containers[0];
	ck_assert(c->run_container && !c->shm);
	ck_assert_int_eq(c->cpu_limit, 4000);
	ck_assert_int_eq(c->launch.launcher, CPL_LAUNCH_NONE);
	cpl_wlist_free(&l);
}
END_TEST

START_TEST(flyte_not_fixed)
{
	struct cpl_wlist l;

	load(&l,
	     "import os\n"
	     "from flytekit import Resources, task\n"
	     "if os.getenv(\"SANDBOX\"):\n"
	     "    cpu = \"500m\"\n"
	     "else:\n"
	     "    cpu = \"1\"\n"
	     "@task(requests=Resources(cpu=cpu))\n"
	     "def train():\n"
	     "    pass\n"
	     "@task(requests=make_resources())\n"
	     "def other():\n"
	     "    pass\n"
	     "@task(task_config=config_from_elsewhere)\n"
	     "def third():\n"
	     "    pass\n"
	     "@task(task_config=SlurmFunction(script=\"x\"))\n"
	     "def on_slurm():\n"
	     "    pass\n");
	ck_assert_uint_eq(l.count, 0);
	ck_assert_uint_eq(l.nskipped, 3);	/* Slurm's is no workload */
	ck_assert(l.skipped[0].containers);
	ck_assert_int_eq(l.skipped[0].line, 7);
	ck_assert_ptr_nonnull(strstr(l.skipped[0].why, "does not fix"));
	cpl_wlist_free(&l);
	/* Set twice at module level, in code order (flytesnacks'
	 * ray_example.py): the decorator reads the one before it. */
	load(&l,
	     "from flytekit import Resources, task\n"
	     "res = Resources(cpu=\"2\")\n"
	     "@task(requests=res)\n"
	     "def a():\n"
	     "    pass\n"
	     "res = Resources(cpu=\"8\")\n"
	     "@task(requests=res)\n"
	     "def b():\n"
	     "    pass\n");
	ck_assert_uint_eq(l.count, 2);
	ck_assert_int_eq(find(&l, "a", NULL)->containers[0].cpu_request, 2000);
	ck_assert_int_eq(find(&l, "b", NULL)->containers[0].cpu_request, 8000);
	cpl_wlist_free(&l);
}
END_TEST

/* A pod template may set what the task does not: CPU (so a task with
 * none is not judged), env and /dev/shm (unknown, never missing). */
START_TEST(flyte_pod_template)
{
	struct cpl_wlist l;
	const struct cpl_workload *w;

	load(&l,
	     "from flytekit import PodTemplate, Resources, task\n"
	     "@task(pod_template=PodTemplate(primary_container_name=\"p\"))\n"
	     "def a():\n"
	     "    pass\n"
	     "@task(pod_template_name=\"gpu\", requests=Resources(cpu=\"2\"))\n"
	     "def b():\n"
	     "    pass\n");
	ck_assert_uint_eq(l.count, 1);
	ck_assert_uint_eq(l.nskipped, 1);
	w = find(&l, "b", NULL);
	ck_assert_int_eq(w->containers[0].cpu_limit, 2000);
	ck_assert(w->containers[0].env_from && w->platform_shm);
	cpl_wlist_free(&l);
}
END_TEST

START_TEST(imports_only)
{
	struct cpl_wlist l;

	load(&l, "import ray\nimport ray.train\nfrom flytekit import task\n"
		 "from kfp import dsl\nprint(task, dsl)\n");
	ck_assert_uint_eq(l.count, 0);
	ck_assert_uint_eq(l.nskipped, 0);
	cpl_wlist_free(&l);
	load(&l, "import torch\n@task(requests=Resources(cpu=\"1\"))\n"
		 "def f():\n    pass\n");
	ck_assert_uint_eq(l.count, 0);	/* no framework imported */
	ck_assert(!cpl_pywork_screen("import torch\n", 13));
	cpl_wlist_free(&l);
}
END_TEST

START_TEST(kfp_tasks)
{
	struct cpl_wlist l;
	const struct cpl_workload *w;
	const struct cpl_container *c;
	char buf[128];

	load(&l,
	     "from kfp import dsl\n"
	     "@dsl.component\n"
	     "def train(n: int):\n"
	     "    import torch\n"
	     "@dsl.component\n"
	     "def unused():\n"
	     "    pass\n"
	     "@dsl.pipeline\n"
	     "def pipe(cpu: str):\n"
	     "    t = train(n=1)\n"
	     "    t.set_cpu_request(\"1\").set_cpu_limit(\"2\")\n"
	     "    t.set_accelerator_limit(2)\n"
	     "    t.set_env_variable(\"OMP_NUM_THREADS\", \"1\")\n"
	     "    train(n=2).set_cpu_limit(cpu)\n");
	ck_assert_uint_eq(l.count, 1);
	ck_assert_uint_eq(l.nskipped, 1);	/* a pipeline parameter */
	w = find(&l, "pipe", "t");
	c = &w->containers[0];
	ck_assert_str_eq(c->name, "train");
	ck_assert_int_eq(c->cpu_request, 1000);
	ck_assert_int_eq(c->cpu_limit, 2000);
	ck_assert_int_eq(c->gpus, 2);
	ck_assert_str_eq(cpl_container_env(c, "OMP_NUM_THREADS")->value,
			 "1");
	/* The component's lines alone: the import of kfp is not its. */
	ck_assert_str_eq(code_line(c, 4, buf, sizeof(buf)),
			 "    import torch");
	ck_assert(is_blank(code_line(c, 1, buf, sizeof(buf))));
	ck_assert(is_blank(code_line(c, 10, buf, sizeof(buf))));
	cpl_wlist_free(&l);
}
END_TEST

START_TEST(kfp_helper)
{
	struct cpl_wlist l;
	const struct cpl_container *c;

	load(&l,
	     "from kfp import dsl, kubernetes\n"
	     "from myorg.kfp_utils import configure\n"
	     "@dsl.component\n"
	     "def train():\n"
	     "    pass\n"
	     "def gpu_step(task, n):\n"
	     "    task.set_cpu_limit(\"8\")\n"
	     "    kubernetes.empty_dir_mount(task, volume_name=\"s\",\n"
	     "                               mount_path=\"/dev/shm\")\n"
	     "@dsl.pipeline\n"
	     "def pipe():\n"
	     "    a = train()\n"
	     "    gpu_step(a, 1)\n"
	     "    b = train()\n"
	     "    configure(b)\n");
	ck_assert_uint_eq(l.count, 1);
	c = &find(&l, "pipe", "a")->containers[0];
	ck_assert_int_eq(c->cpu_limit, 8000);
	ck_assert(c->shm);
	ck_assert_uint_eq(l.nskipped, 1);	/* b: an imported helper */
	ck_assert(!c->env_from);
	cpl_wlist_free(&l);
	load(&l,
	     "from kfp import dsl, kubernetes\n"
	     "@dsl.component\n"
	     "def train():\n"
	     "    pass\n"
	     "@dsl.pipeline\n"
	     "def pipe():\n"
	     "    a = train().set_cpu_limit(\"4\")\n"
	     "    kubernetes.use_config_map_as_env(a, config_map_name=\"t\",\n"
	     "        config_map_key_to_env={\"omp\": \"OMP_NUM_THREADS\"})\n");
	ck_assert_uint_eq(l.count, 1);
	ck_assert(find(&l, "pipe", "a")->containers[0].env_from);
	cpl_wlist_free(&l);
}
END_TEST

START_TEST(metaflow_steps)
{
	struct cpl_wlist l;
	const struct cpl_container *c;

	load(&l,
	     "from metaflow import FlowSpec, step, kubernetes, resources\n"
	     "class F(FlowSpec):\n"
	     "    @step\n"
	     "    def start(self):\n"
	     "        self.next(self.a)\n"
	     "    @kubernetes\n"
	     "    @step\n"
	     "    def a(self):\n"
	     "        self.next(self.b)\n"
	     "    @resources(cpu=8, gpu=1)\n"
	     "    @kubernetes(cpu=2, shared_memory=1024, qos=\"guaranteed\")\n"
	     "    @step\n"
	     "    def b(self):\n"
	     "        self.next(self.end)\n"
	     "    @step\n"
	     "    def end(self):\n"
	     "        pass\n");
	ck_assert_uint_eq(l.count, 2);
	c = &find(&l, "F", "a")->containers[0];
	ck_assert_int_eq(c->cpu_request, 1000);	/* @kubernetes's default */
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_ABSENT);
	c = &find(&l, "F", "b")->containers[0];
	ck_assert_int_eq(c->cpu_request, 8000);	/* the larger wins */
	ck_assert_int_eq(c->cpu_limit, 8000);	/* guaranteed */
	ck_assert_int_eq(c->gpus, 1);
	ck_assert(c->shm);
	ck_assert_int_eq(c->shm_bytes, 1024 * 1024 * 1024);
	ck_assert(!c->not_training);
	cpl_wlist_free(&l);
	/* outerbounds/metaflow-ray: the step's Pods are Ray's nodes. */
	load(&l,
	     "from metaflow import FlowSpec, step, kubernetes, metaflow_ray\n"
	     "class F(FlowSpec):\n"
	     "    @kubernetes(cpu=4)\n"
	     "    @metaflow_ray\n"
	     "    @step\n"
	     "    def tune(self):\n"
	     "        pass\n");
	ck_assert_uint_eq(l.count, 1);
	ck_assert(find(&l, "F", "tune")->containers[0].not_training);
	cpl_wlist_free(&l);
}
END_TEST

START_TEST(ray_trainer)
{
	struct cpl_wlist l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	load(&l,
	     "from ray.train import ScalingConfig\n"
	     "from ray.train.torch import TorchTrainer\n"
	     "def loop(cfg):\n"
	     "    pass\n"
	     "def other(cfg):\n"
	     "    pass\n"
	     "sc = ScalingConfig(num_workers=3, use_gpu=True,\n"
	     "                   resources_per_worker={\"CPU\": 6, \"GPU\": 2})\n"
	     "TorchTrainer(loop, scaling_config=sc).fit()\n"
	     "TorchTrainer(train_loop_per_worker=other).fit()\n");
	ck_assert_uint_eq(l.count, 2);
	w = find(&l, "loop", NULL);
	c = &w->containers[0];
	ck_assert_int_eq(w->replicas, 3);
	ck_assert_int_eq(c->cpu_limit, 6000);
	ck_assert_int_eq(c->cpu_request, 6000);
	ck_assert_int_eq(c->gpus, 2);
	ck_assert_str_eq(cpl_container_env(c, "OMP_NUM_THREADS")->value,
			 "6");
	/* Ray writes it: no place in the file for a fix to edit (the CPU
	 * count is the worker's budget, not a thread count). */
	ck_assert_int_eq(cpl_container_env(c, "OMP_NUM_THREADS")->pos.line,
			 0);
	c = &find(&l, "other", NULL)->containers[0];
	ck_assert_int_eq(c->cpu_limit, 1000);	/* Ray Train's default */
	ck_assert_str_eq(cpl_container_env(c, "OMP_NUM_THREADS")->value,
			 "1");
	cpl_wlist_free(&l);
}
END_TEST

START_TEST(zenml_steps)
{
	struct cpl_wlist l;
	const struct cpl_container *c;

	load(&l,
	     "from zenml import step, pipeline\n"
	     "from zenml.config import ResourceSettings\n"
	     "@step(settings={\"orchestrator\": {}, \"resources\":\n"
	     "      ResourceSettings(cpu_count=2.5, gpu_count=1)})\n"
	     "def train():\n"
	     "    pass\n"
	     "@step(settings={\"docker\": {}})\n"
	     "def load():\n"
	     "    pass\n"
	     "@pipeline\n"
	     "def p():\n"
	     "    train()\n");
	ck_assert_uint_eq(l.count, 1);
	c = &find(&l, "train", NULL)->containers[0];
	ck_assert_int_eq(c->cpu_request, 2500);
	ck_assert_int_eq(c->gpus, 1);
	cpl_wlist_free(&l);
}
END_TEST

/* A step's ResourceSettings without cpu_count takes the file's
 * @pipeline settings (ZenML merges them); with neither, the run
 * configuration may set one (platform_cpu). */
START_TEST(zenml_pipeline_settings)
{
	struct cpl_wlist l;
	const struct cpl_workload *w;

	load(&l,
	     "from zenml import step, pipeline\n"
	     "from zenml.config import ResourceSettings\n"
	     "@step(settings={\"resources\": ResourceSettings(gpu_count=1)})\n"
	     "def train():\n"
	     "    pass\n"
	     "@pipeline(settings={\"resources\":\n"
	     "          ResourceSettings(cpu_count=3, memory=\"1GB\")})\n"
	     "def p():\n"
	     "    train()\n");
	ck_assert_uint_eq(l.count, 1);
	w = find(&l, "train", NULL);
	ck_assert_int_eq(w->containers[0].cpu_request, 3000);
	ck_assert_int_eq(w->containers[0].request_pos.line, 7);
	ck_assert(!w->platform_cpu);
	cpl_wlist_free(&l);
	load(&l,
	     "from zenml import step\n"
	     "from zenml.config import ResourceSettings\n"
	     "@step(settings={\"resources\": ResourceSettings(gpu_count=1)})\n"
	     "def train():\n"
	     "    pass\n");
	w = find(&l, "train", NULL);
	ck_assert_int_eq(w->containers[0].cpu_request, CPL_CPU_ABSENT);
	ck_assert(w->platform_cpu);
	cpl_wlist_free(&l);
}
END_TEST

/* A task's code keeps the module and what its function reaches; the
 * other tasks and the helpers only they call are blanked. */
START_TEST(code_reach)
{
	struct cpl_wlist l;
	const struct cpl_container *c;
	char buf[128];

	load(&l,
	     "import torch\n"
	     "from flytekit import task\n"
	     "def fit_epoch(m):\n"
	     "    m.sum().backward()\n"
	     "def fmt(x):\n"
	     "    return str(x)\n"
	     "@task\n"
	     "def train():\n"
	     "    fit_epoch(torch.nn.Linear(2, 2))\n"
	     "@task\n"
	     "def report():\n"
	     "    return fmt(1)\n");
	ck_assert_uint_eq(l.count, 2);
	c = &find(&l, "report", NULL)->containers[0];
	ck_assert_str_eq(code_line(c, 1, buf, sizeof(buf)), "import torch");
	ck_assert(is_blank(code_line(c, 4, buf, sizeof(buf))));
	ck_assert_str_eq(code_line(c, 6, buf, sizeof(buf)),
			 "    return str(x)");
	ck_assert(is_blank(code_line(c, 9, buf, sizeof(buf))));
	c = &find(&l, "train", NULL)->containers[0];
	ck_assert_str_eq(code_line(c, 4, buf, sizeof(buf)),
			 "    m.sum().backward()");
	ck_assert(is_blank(code_line(c, 12, buf, sizeof(buf))));
	cpl_wlist_free(&l);
}
END_TEST

static Suite *
pywork_suite(void)
{
	Suite *s = suite_create("pywork");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, flyte_elastic);
	tcase_add_test(tc, flyte_plain_and_pytorch);
	tcase_add_test(tc, flyte_not_fixed);
	tcase_add_test(tc, flyte_pod_template);
	tcase_add_test(tc, imports_only);
	tcase_add_test(tc, kfp_tasks);
	tcase_add_test(tc, kfp_helper);
	tcase_add_test(tc, metaflow_steps);
	tcase_add_test(tc, ray_trainer);
	tcase_add_test(tc, zenml_steps);
	tcase_add_test(tc, zenml_pipeline_settings);
	tcase_add_test(tc, code_reach);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(pywork_suite)
