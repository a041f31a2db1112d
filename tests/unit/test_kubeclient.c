/*
 * test_kubeclient.c — the API client against the fake API server
 * (testdata/apiserver/server.py, started once for the suite over HTTPS on
 * loopback): token and client-certificate auth, GET equal to the fixture,
 * paging over 1,200 generated pods, CRD lists, cAdvisor metrics read
 * twice, and the exact error line for 401, 401 with an exec plugin,
 * 403, 404, 429, timeout, unreachable server and TLS failures; create
 * and update with 409 conflicts.  No error
 * text or log line may hold a token.
 *
 * The server records every request in requests.jsonl; tests read the
 * lines appended since they started.  The server and every temporary
 * directory are removed at the end; the server also exits by itself after
 * 180 s.
 */
#include <arpa/inet.h>
#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kube/cadvisor.h"
#include "kube/kubeclient.h"
#include "kube/kubeconfig.h"

#define FIXTURES "testdata/apiserver/fixtures/default/"

static char *srv_dir;		/* the server's directory */
static pid_t srv_pid = -1;
static long srv_port;
static char *srv_token;		/* its bearer token (a secret) */
static char **test_env;		/* HOME and PATH only */
static char *tmp;		/* this test's own directory */

/* ---- files --------------------------------------------------------------- */

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

static void
rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static char *
slurp(const char *path)
{
	struct cpl_error err = { 0 };
	char *data = NULL;
	size_t len;

	if (cpl_read_file(&data, &len, path, 1 << 20, &err) < 0) {
		cpl_error_clear(&err);
		return NULL;
	}
	return data;
}

/* Writes tmp/name; returns the path (caller frees). */
static char *
put_mode(const char *name, const char *text, mode_t mode)
{
	char *path = cpl_xasprintf("%s/%s", tmp, name);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
	return path;
}

/* A directory inside the server's, so that it goes with the server's
 * even when a failing test skips its teardown. */
static void
tmp_setup(void)
{
	tmp = cpl_xasprintf("%s/test-XXXXXX", srv_dir);
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void
tmp_teardown(void)
{
	rm_tree(tmp);
	free(tmp);
	tmp = NULL;
}

/* ---- the fake server ----------------------------------------------------- */

static void
die(const char *msg)
{
	fprintf(stderr, "test_kubeclient: %s\n", msg);
	if (srv_pid > 0)
		kill(srv_pid, SIGKILL);
	exit(2);
}

static void
server_start(void)
{
	char t[] = "/tmp/cpl-apiserver-XXXXXX";
	char *port_file, *log_file, *token_file, *text;
	int i, status;

	if (mkdtemp(t) == NULL)
		die("mkdtemp failed");
	srv_dir = cpl_xstrdup(t);
	port_file = cpl_xasprintf("%s/port", srv_dir);
	log_file = cpl_xasprintf("%s/server.log", srv_dir);
	token_file = cpl_xasprintf("%s/token", srv_dir);
	srv_pid = fork();
	if (srv_pid < 0)
		die("fork failed");
	if (srv_pid == 0) {
		int fd = open(log_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execlp("python3", "python3", "testdata/apiserver/server.py",
		       "--dir", srv_dir, "--timeout", "180",
		       "--generate-pods", "1200",
		       "--deny", "list:pods:restricted",
		       "--deny", "get:nodes/proxy::minikube",
		       "--too-many",
		       "/api/v1/namespaces/ml/configmaps/resnet-env=2",
		       "--too-many",
		       "/api/v1/namespaces/ml/configmaps/resnet-threads=10",
		       "--delay", "/api/v1/namespaces/ml/pods/slow=3",
		       "--token", "exec-good-token=exec-user",
		       (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 300; i++) {
		text = slurp(port_file);
		if (text && strchr(text, '\n')) {
			*strchr(text, '\n') = '\0';
			if (cpl_parse_long(&srv_port, text) == 0) {
				free(text);
				break;
			}
		}
		free(text);
		if (waitpid(srv_pid, &status, WNOHANG) == srv_pid) {
			srv_pid = -1;
			die("the fake API server exited at start (see its "
			    "server.log)");
		}
		usleep(100000);
	}
	if (i == 300)
		die("the fake API server did not start within 30 s");
	srv_token = slurp(token_file);
	if (srv_token == NULL || *srv_token == '\0')
		die("the fake API server wrote no token");
	{
		char *home = cpl_xasprintf("HOME=%s", srv_dir);
		char *path = cpl_xasprintf("PATH=%s", getenv("PATH"));

		test_env = cpl_xcalloc(3, sizeof(*test_env));
		test_env[0] = home;
		test_env[1] = path;
	}
	free(port_file);
	free(log_file);
	free(token_file);
}

static void
server_stop(void)
{
	int i, status;

	if (srv_pid > 0) {
		kill(srv_pid, SIGTERM);
		for (i = 0; i < 50; i++) {
			if (waitpid(srv_pid, &status, WNOHANG) == srv_pid)
				break;
			usleep(100000);
		}
		if (i == 50) {
			kill(srv_pid, SIGKILL);
			waitpid(srv_pid, &status, 0);
		}
		srv_pid = -1;
	}
	rm_tree(srv_dir);
	free(srv_dir);
	free(srv_token);
	if (test_env) {
		free(test_env[0]);
		free(test_env[1]);
		free(test_env);
	}
}

/* The size of the request log: what a test's own requests follow. */
static long
log_mark(void)
{
	char *path = cpl_xasprintf("%s/requests.jsonl", srv_dir);
	struct stat st;
	long n = stat(path, &st) == 0 ? (long)st.st_size : 0;

	free(path);
	return n;
}

/* The request records (events skipped) appended since mark. */
static json_t *
log_since(long mark)
{
	char *path = cpl_xasprintf("%s/requests.jsonl", srv_dir);
	char *text = slurp(path), *line, *nl;
	json_t *out = json_array();

	ck_assert_ptr_nonnull(text);
	for (line = text + mark; *line; line = nl + 1) {
		json_t *e;

		nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);	/* whole lines only */
		*nl = '\0';
		e = json_loads(line, 0, NULL);

		ck_assert_ptr_nonnull(e);
		if (json_object_get(e, "method"))
			json_array_append_new(out, e);
		else
			json_decref(e);
	}
	free(text);
	free(path);
	return out;
}

static const char *
entry_str(json_t *log, size_t i, const char *key)
{
	return json_string_value(json_object_get(json_array_get(log, i), key));
}

/* ---- clients ------------------------------------------------------------- */

/* Loads file (relative names are in the server's directory). */
static struct cpl_kubeconfig *
kc_load(const char *file, const char *context, const char *timeout)
{
	char *path = file[0] == '/' ? cpl_xstrdup(file)
				    : cpl_xasprintf("%s/%s", srv_dir, file);
	struct cpl_kubeconfig_opts o = { .kubeconfig = path, .env = test_env,
					 .context = context,
					 .request_timeout = timeout };
	struct cpl_kubeconfig *kc = NULL;
	struct cpl_error err = { 0 };

	if (cpl_kubeconfig_load(&kc, &o, &err) < 0)
		ck_abort_msg("kubeconfig: %s", cpl_error_format(&err));
	free(path);
	return kc;
}

static struct cpl_kubeclient *
client_new(struct cpl_kubeconfig *kc)
{
	struct cpl_kubeclient *c = NULL;
	struct cpl_error err = { 0 };

	if (cpl_kubeclient_new(&c, kc, &err) < 0)
		ck_abort_msg("client: %s", err.message);
	return c;
}

/* No secret the tests know of appears in text. */
static void
assert_clean(const char *text)
{
	static const char *const secrets[] = {
		"not-the-token", "exec-good-token", "exec-bad-token",
		"PRIVATE KEY", "Bearer",
	};
	size_t i;

	ck_assert_msg(strstr(text, srv_token) == NULL, "token in: %s", text);
	for (i = 0; i < CPL_ARRAY_LEN(secrets); i++)
		ck_assert_msg(strstr(text, secrets[i]) == NULL,
			      "secret %s in: %s", secrets[i], text);
}

/* Collects log-hook lines. */
struct lines {
	struct cpl_buf all;
	int n;
};

static void
on_log(void *ctx, const char *line)
{
	struct lines *l = ctx;

	cpl_buf_adds(&l->all, line);
	cpl_buf_addc(&l->all, '\n');
	l->n++;
}

/* GET expecting failure code rc; returns the error text. */
static char *
get_fails(struct cpl_kubeclient *c, const struct cpl_kube_ref *ref, int rc)
{
	struct cpl_error err = { 0 };
	json_t *obj = NULL;
	char *msg;

	ck_assert_int_eq(cpl_kubeclient_get(&obj, NULL, c, ref, &err), rc);
	ck_assert_ptr_null(obj);
	msg = cpl_error_format(&err);
	cpl_error_clear(&err);
	assert_clean(msg);
	return msg;
}

/* "; context "C", server https://127.0.0.1:PORT, request GET PATH" */
static char *
where(const char *context, const char *pathq)
{
	return cpl_xasprintf("; context \"%s\", server https://127.0.0.1:%ld, "
			     "request GET %s", context, srv_port, pathq);
}

/* ---- tests --------------------------------------------------------------- */

START_TEST(token_auth_get_equals_fixture)
{
	struct cpl_kubeconfig *kc = kc_load("kubeconfig-token", NULL, NULL);
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref ref = { "v1", "pods", "ml", "train-0", NULL };
	struct cpl_error err = { 0 };
	struct lines lines = { { 0 }, 0 };
	json_t *obj = NULL, *want, *fromraw, *log;
	char *raw = NULL, *url;
	long mark = log_mark();

	cpl_kubeclient_set_log(c, on_log, &lines);
	ck_assert_int_eq(cpl_kubeclient_get(&obj, &raw, c, &ref, &err), 0);
	want = json_load_file(FIXTURES "ml-pod-train-0.json", 0, NULL);
	ck_assert_ptr_nonnull(want);
	ck_assert(json_equal(obj, want));
	fromraw = json_loads(raw, 0, NULL);
	ck_assert(json_equal(fromraw, want));

	log = log_since(mark);
	ck_assert_uint_eq(json_array_size(log), 1);
	ck_assert_str_eq(entry_str(log, 0, "path"),
			 "/api/v1/namespaces/ml/pods/train-0");
	ck_assert_str_eq(entry_str(log, 0, "auth"), "token");
	ck_assert_str_eq(entry_str(log, 0, "user"), "cpl-tester");
	ck_assert_str_eq(entry_str(log, 0, "accept"), "application/json");
	ck_assert(cpl_str_starts(entry_str(log, 0, "user_agent"),
				 "kubectl-cpulint/"));

	/* The verbose hook: method, URL, status; never a header. */
	url = cpl_xasprintf("GET https://127.0.0.1:%ld/api/v1/namespaces/ml/"
			    "pods/train-0 200 in ", srv_port);
	ck_assert_int_eq(lines.n, 1);
	ck_assert(cpl_str_starts(cpl_buf_str(&lines.all), url));
	assert_clean(cpl_buf_str(&lines.all));
	free(url);
	cpl_buf_free(&lines.all);
	json_decref(log);
	json_decref(fromraw);
	json_decref(want);
	json_decref(obj);
	free(raw);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(client_certificate_auth)
{
	/* kubeconfig-cert names ca.crt, client.crt and client.key by
	 * relative paths; the context has no token. */
	struct cpl_kubeconfig *kc = kc_load("kubeconfig-cert", NULL, NULL);
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref ref = { "apps/v1", "deployments", "serving",
				    "tokenizer", NULL };
	struct cpl_error err = { 0 };
	json_t *obj = NULL, *log;
	long mark = log_mark();

	ck_assert_ptr_null(cpl_kubeconfig_info(kc)->token);
	ck_assert_int_eq(cpl_kubeclient_get(&obj, NULL, c, &ref, &err), 0);
	ck_assert_str_eq(json_string_value(json_object_get(obj, "kind")),
			 "Deployment");
	log = log_since(mark);
	ck_assert_uint_eq(json_array_size(log), 1);
	ck_assert_str_eq(entry_str(log, 0, "auth"), "cert");
	ck_assert_str_eq(entry_str(log, 0, "user"), "cpl-cert-user");
	json_decref(log);
	json_decref(obj);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(paging_over_all_namespaces)
{
	struct cpl_kubeconfig *kc = kc_load("kubeconfig", "fake-token", NULL);
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref all = { "v1", "pods", NULL, NULL, NULL };
	struct cpl_kube_ref gen_a = { "v1", "pods", "gen-a", NULL, NULL };
	struct cpl_kube_list_opts sel = { "app=gen,tier in (web,etl)", NULL,
					  0, NULL };
	struct cpl_error err = { 0 };
	json_t *items = NULL, *item, *log, *seen = json_object();
	long mark = log_mark();
	size_t i;
	int conn;

	ck_assert_int_eq(cpl_kubeclient_list(&items, c, &all, NULL, &err), 0);
	/* 1,200 generated pods and the fixture's 6 */
	ck_assert_uint_eq(json_array_size(items), 1206);
	json_array_foreach(items, i, item) {
		const char *ns = json_string_value(json_object_get(
			json_object_get(item, "metadata"), "namespace"));
		const char *name = json_string_value(json_object_get(
			json_object_get(item, "metadata"), "name"));
		char *key = cpl_xasprintf("%s/%s", ns, name);

		/* the server leaves TypeMeta out; the client fills it in */
		ck_assert_str_eq(json_string_value(json_object_get(item,
								   "kind")),
				 "Pod");
		ck_assert_str_eq(json_string_value(json_object_get(
			item, "apiVersion")), "v1");
		ck_assert_ptr_null(json_object_get(seen, key));
		json_object_set_new(seen, key, json_true());
		free(key);
	}
	log = log_since(mark);
	ck_assert_uint_eq(json_array_size(log), 3);
	conn = (int)json_integer_value(json_object_get(json_array_get(log, 0),
						       "conn"));
	for (i = 0; i < 3; i++) {
		json_t *params = json_object_get(json_array_get(log, i),
						 "params");

		ck_assert_str_eq(entry_str(log, i, "path"), "/api/v1/pods");
		ck_assert_str_eq(json_string_value(json_array_get(
			json_object_get(params, "limit"), 0)), "500");
		ck_assert((json_object_get(params, "continue") != NULL) ==
			  (i > 0));
		/* one connection, reused */
		ck_assert_int_eq(json_integer_value(json_object_get(
			json_array_get(log, i), "conn")), conn);
	}
	json_decref(log);
	json_decref(items);

	/* set-based selector, and a namespaced list with a small page */
	ck_assert_int_eq(cpl_kubeclient_list(&items, c, &all, &sel, &err), 0);
	ck_assert_uint_eq(json_array_size(items), 800);
	json_array_foreach(items, i, item) {
		const char *tier = json_string_value(json_object_get(
			json_object_get(json_object_get(item, "metadata"),
					"labels"), "tier"));

		ck_assert(cpl_str_eq(tier, "web") || cpl_str_eq(tier, "etl"));
	}
	json_decref(items);
	sel.label_selector = NULL;
	sel.limit = 150;
	mark = log_mark();
	ck_assert_int_eq(cpl_kubeclient_list(&items, c, &gen_a, &sel, &err),
			 0);
	ck_assert_uint_eq(json_array_size(items), 400);
	log = log_since(mark);
	ck_assert_uint_eq(json_array_size(log), 3);
	ck_assert_str_eq(entry_str(log, 0, "query"), "limit=150");
	json_decref(log);
	json_decref(items);
	json_decref(seen);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(custom_resources_and_cluster_scope)
{
	struct cpl_kubeconfig *kc = kc_load("kubeconfig", NULL, NULL);
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref jobs = { "kubeflow.org/v1", "pytorchjobs", "ml",
				     NULL, NULL };
	struct cpl_kube_ref nodes = { "v1", "nodes", NULL, NULL, NULL };
	struct cpl_kube_ref disco = { "kubeflow.org/v1", NULL, NULL, NULL,
				      NULL };
	struct cpl_error err = { 0 };
	json_t *items = NULL, *obj = NULL;

	ck_assert_int_eq(cpl_kubeclient_list(&items, c, &jobs, NULL, &err), 0);
	ck_assert_uint_eq(json_array_size(items), 1);
	ck_assert_str_eq(json_string_value(json_object_get(
		json_array_get(items, 0), "kind")), "PyTorchJob");
	ck_assert_str_eq(json_string_value(json_object_get(
		json_array_get(items, 0), "apiVersion")), "kubeflow.org/v1");
	json_decref(items);
	ck_assert_int_eq(cpl_kubeclient_list(&items, c, &nodes, NULL, &err),
			 0);
	ck_assert_uint_eq(json_array_size(items), 2);
	json_decref(items);
	ck_assert_int_eq(cpl_kubeclient_get(&obj, NULL, c, &disco, &err), 0);
	ck_assert_str_eq(json_string_value(json_object_get(obj, "kind")),
			 "APIResourceList");
	json_decref(obj);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(cadvisor_metrics_sampled_twice)
{
	struct cpl_kubeconfig *kc = kc_load("kubeconfig", NULL, NULL);
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref ref = { "v1", "nodes", NULL, "gpu-node-1",
				    "proxy/metrics/cadvisor" };
	struct cpl_error err = { 0 };
	struct cpl_cadvisor *m1 = NULL, *m2 = NULL;
	const struct cpl_cadvisor_counters *a, *b;
	char *body = NULL;
	size_t len;
	long mark = log_mark();
	json_t *log;

	ck_assert_int_eq(cpl_kubeclient_get_raw(&body, &len, c, &ref, &err), 0);
	ck_assert_uint_eq(strlen(body), len);
	ck_assert_int_eq(cpl_cadvisor_parse(&m1, body, len, "first", &err), 0);
	free(body);
	ck_assert_int_eq(cpl_kubeclient_get_raw(&body, &len, c, &ref, &err), 0);
	ck_assert_int_eq(cpl_cadvisor_parse(&m2, body, len, "second", &err),
			 0);
	free(body);
	a = cpl_cadvisor_find(m1, "ml", "train-0", "pytorch");
	b = cpl_cadvisor_find(m2, "ml", "train-0", "pytorch");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	/* the counters advance by 6000 periods, 42% throttled */
	ck_assert_double_eq(b->periods - a->periods, 6000);
	ck_assert_double_eq(b->throttled_periods - a->throttled_periods, 2520);
	/* train-1 runs on the other node */
	ck_assert_ptr_null(cpl_cadvisor_find(m2, "ml", "train-1", "pytorch"));
	log = log_since(mark);
	ck_assert_str_eq(entry_str(log, 0, "path"),
			 "/api/v1/nodes/gpu-node-1/proxy/metrics/cadvisor");
	ck_assert_str_eq(entry_str(log, 0, "accept"), "text/plain, */*");
	json_decref(log);
	cpl_cadvisor_free(m1);
	cpl_cadvisor_free(m2);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(unauthorized_401)
{
	struct cpl_kubeconfig *kc = kc_load("kubeconfig", "fake-bad-token",
					    NULL);
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref ref = { "v1", "pods", "ml", "train-0", NULL };
	char *msg = get_fails(c, &ref, CPL_KUBE_FAILED);
	char *w = where("fake-bad-token", "/api/v1/namespaces/ml/pods/train-0");
	char *want = cpl_xasprintf("unauthorized: the server rejected the "
				   "credentials of user \"bad-token-user\"%s",
				   w);

	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(w);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

static const char EXEC_PLUGIN[] =
	"#!/usr/bin/env python3\n"
	"import json, os, time\n"
	"if os.environ['MODE'] == 'hang':\n"
	"    time.sleep(60)\n"
	"p = os.environ['COUNTER']\n"
	"n = int(open(p).read()) + 1 if os.path.exists(p) else 1\n"
	"open(p, 'w').write(str(n))\n"
	"good = os.environ['MODE'] == 'flaky' and n > 1\n"
	"print(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1',\n"
	"                  'kind': 'ExecCredential', 'status': {'token':\n"
	"                  'exec-good-token' if good else\n"
	"                  'exec-bad-token'}}))\n";

/* A kubeconfig in tmp whose user runs EXEC_PLUGIN in mode. */
static struct cpl_kubeconfig *
exec_kubeconfig(const char *mode)
{
	char *plugin = put_mode("plugin", EXEC_PLUGIN, 0755);
	char *text = cpl_xasprintf(
		"current-context: c\n"
		"clusters:\n"
		"- name: fake\n"
		"  cluster:\n"
		"    server: https://127.0.0.1:%ld\n"
		"    certificate-authority: %s/ca.crt\n"
		"contexts:\n"
		"- {name: c, context: {cluster: fake, user: u, namespace: "
		"ml}}\n"
		"users:\n"
		"- name: u\n"
		"  user:\n"
		"    exec:\n"
		"      apiVersion: client.authentication.k8s.io/v1\n"
		"      command: ./plugin\n"
		"      interactiveMode: Never\n"
		"      env:\n"
		"      - {name: COUNTER, value: %s/count}\n"
		"      - {name: MODE, value: %s}\n",
		srv_port, srv_dir, tmp, mode);
	char *cfg = put_mode("config", text, 0600);
	struct cpl_kubeconfig *kc = kc_load(cfg, NULL, NULL);

	free(plugin);
	free(text);
	free(cfg);
	return kc;
}

START_TEST(unauthorized_401_reruns_exec_plugin_once)
{
	struct cpl_kubeconfig *kc = exec_kubeconfig("flaky");
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref pod = { "v1", "pods", "ml", "train-1", NULL };
	struct cpl_error err = { 0 };
	json_t *obj = NULL, *log;
	long mark = log_mark();
	char *msg, *w, *want, *count;

	/* first token rejected, plugin run again, second accepted */
	ck_assert_int_eq(cpl_kubeclient_get(&obj, NULL, c, &pod, &err), 0);
	ck_assert_uint_eq(cpl_kubeconfig_exec_runs(kc), 2);
	json_decref(obj);
	log = log_since(mark);
	ck_assert_uint_eq(json_array_size(log), 2);
	ck_assert_str_eq(entry_str(log, 0, "auth"), "bad-token");
	ck_assert_int_eq(json_integer_value(json_object_get(
		json_array_get(log, 0), "status")), 401);
	ck_assert_str_eq(entry_str(log, 1, "auth"), "token");
	ck_assert_str_eq(entry_str(log, 1, "user"), "exec-user");
	json_decref(log);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);

	/* a plugin that never gets it right: one re-run, then the error */
	count = cpl_xasprintf("%s/count", tmp);
	ck_assert_int_eq(unlink(count), 0);
	free(count);
	kc = exec_kubeconfig("bad");
	c = client_new(kc);
	msg = get_fails(c, &pod, CPL_KUBE_FAILED);
	ck_assert_uint_eq(cpl_kubeconfig_exec_runs(kc), 2);
	w = cpl_xasprintf("; context \"c\", server https://127.0.0.1:%ld, "
			  "request GET /api/v1/namespaces/ml/pods/train-1",
			  srv_port);
	want = cpl_xasprintf("unauthorized: the server rejected the "
			     "credentials of user \"u\" (the exec plugin was "
			     "run again and its new credentials were rejected "
			     "too)%s", w);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(w);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(forbidden_403)
{
	struct cpl_kubeconfig *kc = kc_load("kubeconfig", NULL, NULL);
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref pods = { "v1", "pods", "restricted", NULL, NULL };
	struct cpl_kube_ref proxy = { "v1", "nodes", NULL, "minikube",
				      "proxy/metrics/cadvisor" };
	struct cpl_error err = { 0 };
	json_t *items = NULL;
	char *body = NULL, *msg, *w, *want;
	size_t len;

	ck_assert_int_eq(cpl_kubeclient_list(&items, c, &pods, NULL, &err),
			 CPL_KUBE_FORBIDDEN);
	ck_assert_ptr_null(items);
	msg = cpl_error_format(&err);
	w = where("fake-token", "/api/v1/namespaces/restricted/pods?limit=500");
	want = cpl_xasprintf("forbidden: cannot list pods in namespace "
			     "\"restricted\" (RBAC: User \"cpl-tester\" cannot "
			     "list resource \"pods\" in API group \"\" in the "
			     "namespace \"restricted\")%s", w);
	ck_assert_str_eq(msg, want);
	assert_clean(msg);
	free(msg);
	free(want);
	free(w);

	ck_assert_int_eq(cpl_kubeclient_get_raw(&body, &len, c, &proxy, &err),
			 CPL_KUBE_FORBIDDEN);
	ck_assert_ptr_null(body);
	msg = cpl_error_format(&err);
	w = where("fake-token",
		  "/api/v1/nodes/minikube/proxy/metrics/cadvisor");
	want = cpl_xasprintf("forbidden: cannot get nodes/proxy \"minikube\" "
			     "(RBAC: User \"cpl-tester\" cannot get resource "
			     "\"nodes/proxy\" in API group \"\" at the cluster "
			     "scope)%s", w);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(w);
	cpl_error_clear(&err);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(not_found_404)
{
	struct cpl_kubeconfig *kc = kc_load("kubeconfig", NULL, NULL);
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref pod = { "v1", "pods", "ml", "train-9", NULL };
	struct cpl_kube_ref job = { "kubeflow.org/v1", "pytorchjobs", "ml",
				    "gone", NULL };
	struct cpl_kube_ref crd = { "kubeflow.org/v1", "xgboostjobs", "ml",
				    "x", NULL };
	char *msg, *w, *want;

	msg = get_fails(c, &pod, CPL_KUBE_NOT_FOUND);
	w = where("fake-token", "/api/v1/namespaces/ml/pods/train-9");
	want = cpl_xasprintf("not found: pods \"train-9\" in namespace "
			     "\"ml\"%s", w);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(w);

	msg = get_fails(c, &job, CPL_KUBE_NOT_FOUND);
	w = where("fake-token", "/apis/kubeflow.org/v1/namespaces/ml/"
		  "pytorchjobs/gone");
	want = cpl_xasprintf("not found: pytorchjobs.kubeflow.org \"gone\" in "
			     "namespace \"ml\"%s", w);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(w);

	msg = get_fails(c, &crd, CPL_KUBE_NOT_FOUND);
	w = where("fake-token", "/apis/kubeflow.org/v1/namespaces/ml/"
		  "xgboostjobs/x");
	want = cpl_xasprintf("not found: the server does not serve xgboostjobs "
			     "in kubeflow.org/v1 (is its CRD installed?)%s",
			     w);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(w);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(too_many_requests_429)
{
	struct cpl_kubeconfig *kc = kc_load("kubeconfig", NULL, NULL);
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref busy = { "v1", "configmaps", "ml", "resnet-env",
				     NULL };
	struct cpl_kube_ref swamped = { "v1", "configmaps", "ml",
					"resnet-threads", NULL };
	struct cpl_error err = { 0 };
	json_t *obj = NULL, *log;
	long mark = log_mark();
	char *msg, *w, *want;
	size_t i;

	/* two 429s, then the answer; Retry-After (1 s) honoured */
	ck_assert_int_eq(cpl_kubeclient_get(&obj, NULL, c, &busy, &err), 0);
	ck_assert_str_eq(json_string_value(json_object_get(
		json_object_get(obj, "data"), "OMP_NUM_THREADS")), "16");
	json_decref(obj);
	log = log_since(mark);
	ck_assert_uint_eq(json_array_size(log), 3);
	for (i = 1; i < 3; i++) {
		double gap = json_real_value(json_object_get(
			json_array_get(log, i), "time")) -
			json_real_value(json_object_get(
				json_array_get(log, i - 1), "time"));

		ck_assert_msg(gap >= 0.9, "retried after %.3f s", gap);
	}
	json_decref(log);

	/* at most 3 retries */
	mark = log_mark();
	msg = get_fails(c, &swamped, CPL_KUBE_FAILED);
	w = where("fake-token", "/api/v1/namespaces/ml/configmaps/"
		  "resnet-threads");
	want = cpl_xasprintf("too many requests: the server still answered "
			     "429 after 3 retries%s", w);
	ck_assert_str_eq(msg, want);
	log = log_since(mark);
	ck_assert_uint_eq(json_array_size(log), 4);
	json_decref(log);
	free(msg);
	free(want);
	free(w);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(timeout)
{
	struct cpl_kubeconfig *kc = kc_load("kubeconfig", NULL, "1");
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref slow = { "v1", "pods", "ml", "slow", NULL };
	struct cpl_kube_ref pod = { "v1", "pods", "ml", "train-0", NULL };
	struct cpl_error err = { 0 };
	json_t *obj = NULL;
	char *msg = get_fails(c, &slow, CPL_KUBE_FAILED);
	char *w = where("fake-token", "/api/v1/namespaces/ml/pods/slow");
	char *want = cpl_xasprintf("timeout: connected, but no answer within "
				   "1s (--request-timeout)%s", w);

	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);

	/* No --request-timeout: the run's time limit bounds the request,
	 * and a server that connected is not "cannot connect within 30s";
	 * neither on a connection reused from an earlier request (which
	 * has no connect time of its own). */
	kc = kc_load("kubeconfig", NULL, NULL);
	c = client_new(kc);
	cpl_kubeclient_set_deadline(c, 1500);
	msg = get_fails(c, &slow, CPL_KUBE_FAILED);
	want = cpl_xasprintf("timeout: connected, but no answer before the "
			     "run's time limit of 1.5s (--live-timeout) ran "
			     "out%s", w);
	ck_assert_str_eq(msg, want);
	free(msg);
	cpl_kubeclient_set_deadline(c, 1500);
	ck_assert_int_eq(cpl_kubeclient_get(&obj, NULL, c, &pod, &err), 0);
	json_decref(obj);
	msg = get_fails(c, &slow, CPL_KUBE_FAILED);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(w);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

/* A kubeconfig in tmp for https://127.0.0.1:port, token auth. */
static struct cpl_kubeconfig *
port_kubeconfig(long port, const char *request_timeout)
{
	char *text = cpl_xasprintf("current-context: dead\n"
				   "clusters:\n"
				   "- name: dead\n"
				   "  cluster:\n"
				   "    server: https://127.0.0.1:%ld\n"
				   "    certificate-authority: %s/ca.crt\n"
				   "contexts: [{name: dead, context: {cluster: "
				   "dead, user: u}}]\n"
				   "users: [{name: u, user: {token: %s}}]\n",
				   port, srv_dir, srv_token);
	char *cfg = put_mode("config", text, 0600);
	struct cpl_kubeconfig *kc = kc_load(cfg, NULL, request_timeout);

	free(text);
	free(cfg);
	return kc;
}

/* A loopback listener with a backlog of n that never accepts; its port. */
static int
listener(int n, long *port)
{
	struct sockaddr_in sa = { 0 };
	socklen_t salen = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, n), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &salen), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

START_TEST(timeouts_tell_connect_from_answer)
{
	struct cpl_kube_ref ref = { "v1", "pods", "ml", "train-0", NULL };
	struct sockaddr_in sa = { 0 };
	struct cpl_kubeconfig *kc;
	struct cpl_kubeclient *c;
	char *msg, *want;
	long port;
	int fd, filler;

	/* The kernel completes the TCP handshake (the listener's queue
	 * has room) but nobody speaks TLS: connected, no handshake. */
	fd = listener(8, &port);
	kc = port_kubeconfig(port, "1");
	c = client_new(kc);
	msg = get_fails(c, &ref, CPL_KUBE_FAILED);
	want = cpl_xasprintf("timeout: connected, but the TLS handshake did "
			     "not finish within 1s (--request-timeout); "
			     "context \"dead\", server https://127.0.0.1:%ld, "
			     "request GET /api/v1/namespaces/ml/pods/train-0",
			     port);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
	close(fd);

	/* A full accept queue: Linux drops the SYN, the connect waits. */
	fd = listener(0, &port);
	filler = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((unsigned short)port);
	ck_assert_int_eq(connect(filler, (struct sockaddr *)&sa,
				 sizeof(sa)), 0);
	kc = port_kubeconfig(port, "1");
	c = client_new(kc);
	msg = get_fails(c, &ref, CPL_KUBE_FAILED);
	want = cpl_xasprintf("timeout: cannot connect within 1s "
			     "(--request-timeout); context \"dead\", server "
			     "https://127.0.0.1:%ld, request GET /api/v1/"
			     "namespaces/ml/pods/train-0", port);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
	kc = port_kubeconfig(port, NULL);
	c = client_new(kc);
	cpl_kubeclient_set_deadline(c, 1000);
	msg = get_fails(c, &ref, CPL_KUBE_FAILED);
	want = cpl_xasprintf("timeout: cannot connect before the run's time "
			     "limit of 1s (--live-timeout) ran out; context "
			     "\"dead\", server https://127.0.0.1:%ld, request "
			     "GET /api/v1/namespaces/ml/pods/train-0", port);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
	close(filler);
	close(fd);
}
END_TEST

START_TEST(exec_plugin_within_the_run_time_limit)
{
	/* A plugin that hangs gets what is left of the run's time limit
	 * (not its own 60 s), is killed, and the error names it. */
	struct cpl_kubeconfig *kc = exec_kubeconfig("hang");
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref pod = { "v1", "pods", "ml", "train-1", NULL };
	char *msg, *want;

	cpl_kubeclient_set_deadline(c, 1000);
	msg = get_fails(c, &pod, CPL_KUBE_FAILED);
	want = cpl_xasprintf("exec plugin \"%s/plugin\" for user \"u\" did "
			     "not finish within the run's time limit of 1 s "
			     "(--live-timeout) and was killed", tmp);
	ck_assert_msg(strstr(msg, want) != NULL, "%s", msg);
	ck_assert_uint_eq(cpl_kubeconfig_exec_runs(kc), 1);
	free(msg);
	free(want);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
	/* Nothing left: the plugin is not run at all. */
	kc = exec_kubeconfig("hang");
	c = client_new(kc);
	cpl_kubeclient_set_deadline(c, 1);
	usleep(5000);
	msg = get_fails(c, &pod, CPL_KUBE_FAILED);
	ck_assert_msg(strstr(msg, "was not run: the run's time limit of "
			     "0.001 s (--live-timeout) ran out") != NULL,
		      "%s", msg);
	ck_assert_uint_eq(cpl_kubeconfig_exec_runs(kc), 0);
	free(msg);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(unreachable_server)
{
	struct sockaddr_in sa = { 0 };
	socklen_t salen = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct cpl_kube_ref ref = { "v1", "pods", "ml", "train-0", NULL };
	struct cpl_kubeconfig *kc;
	struct cpl_kubeclient *c;
	char *text, *cfg, *msg, *want;
	long port;

	/* a port that was free a moment ago: nothing listens there */
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &salen), 0);
	port = ntohs(sa.sin_port);
	close(fd);
	text = cpl_xasprintf("current-context: dead\n"
			     "clusters:\n"
			     "- name: dead\n"
			     "  cluster:\n"
			     "    server: https://127.0.0.1:%ld\n"
			     "    certificate-authority: %s/ca.crt\n"
			     "contexts: [{name: dead, context: {cluster: dead, "
			     "user: u}}]\n"
			     "users: [{name: u, user: {token: %s}}]\n",
			     port, srv_dir, srv_token);
	cfg = put_mode("config", text, 0600);
	kc = kc_load(cfg, NULL, NULL);
	c = client_new(kc);
	msg = get_fails(c, &ref, CPL_KUBE_FAILED);
	want = cpl_xasprintf("cannot connect: Connection refused; context "
			     "\"dead\", server https://127.0.0.1:%ld, request "
			     "GET /api/v1/namespaces/ml/pods/train-0", port);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(text);
	free(cfg);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(tls_verification)
{
	struct cpl_kube_ref ref = { "v1", "pods", "ml", "train-0", NULL };
	struct cpl_kubeconfig *kc;
	struct cpl_kubeclient *c;
	struct cpl_error err = { 0 };
	json_t *obj = NULL;
	char *msg, *w, *want, *text, *cfg;

	/* a CA that did not sign the server's certificate */
	kc = kc_load("kubeconfig", "fake-wrong-ca", NULL);
	c = client_new(kc);
	msg = get_fails(c, &ref, CPL_KUBE_FAILED);
	w = where("fake-wrong-ca", "/api/v1/namespaces/ml/pods/train-0");
	want = cpl_xasprintf("TLS: certificate signed by unknown authority "
			     "(trusted CA: certificate-authority-data of "
			     "cluster \"fake-wrong-ca\")%s", w);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(w);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);

	/* https://localhost: the certificate names 127.0.0.1 and
	 * kube.fake.test only; tls-server-name makes it verify */
	kc = kc_load("kubeconfig", "fake-tls-name", NULL);
	c = client_new(kc);
	ck_assert_int_eq(cpl_kubeclient_get(&obj, NULL, c, &ref, &err), 0);
	json_decref(obj);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
	text = cpl_xasprintf("current-context: c\n"
			     "clusters:\n"
			     "- name: k\n"
			     "  cluster:\n"
			     "    server: https://localhost:%ld\n"
			     "    certificate-authority: %s/ca.crt\n"
			     "contexts: [{name: c, context: {cluster: k}}]\n",
			     srv_port, srv_dir);
	cfg = put_mode("config", text, 0600);
	kc = kc_load(cfg, NULL, NULL);
	c = client_new(kc);
	msg = get_fails(c, &ref, CPL_KUBE_FAILED);
	want = cpl_xasprintf("TLS: the server certificate is not valid for "
			     "\"localhost\" (tls-server-name sets another name "
			     "to verify); context \"c\", server "
			     "https://localhost:%ld, request GET "
			     "/api/v1/namespaces/ml/pods/train-0", srv_port);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(text);
	free(cfg);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);

	/* insecure-skip-tls-verify, when the kubeconfig says so */
	text = cpl_xasprintf("current-context: c\n"
			     "clusters:\n"
			     "- name: k\n"
			     "  cluster:\n"
			     "    server: https://localhost:%ld\n"
			     "    insecure-skip-tls-verify: true\n"
			     "contexts: [{name: c, context: {cluster: k, "
			     "user: u}}]\n"
			     "users: [{name: u, user: {tokenFile: "
			     "%s/token}}]\n",
			     srv_port, srv_dir);
	cfg = put_mode("config", text, 0600);
	kc = kc_load(cfg, NULL, NULL);
	c = client_new(kc);
	ck_assert_int_eq(cpl_kubeclient_get(&obj, NULL, c, &ref, &err), 0);
	json_decref(obj);
	free(text);
	free(cfg);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(request_paths)
{
	struct cpl_kube_ref a = { "v1", "pods", "ml", "train-0", NULL };
	struct cpl_kube_ref b = { "apps/v1", "deployments", NULL, NULL, NULL };
	struct cpl_kube_ref d = { "v1", "nodes", NULL, "n 1",
				  "proxy/metrics/cadvisor" };
	struct cpl_kube_ref e = { "trainer.kubeflow.org/v1alpha1", NULL, NULL,
				  NULL, NULL };
	char *p;

	p = cpl_kubeclient_path(&a);
	ck_assert_str_eq(p, "/api/v1/namespaces/ml/pods/train-0");
	free(p);
	p = cpl_kubeclient_path(&b);
	ck_assert_str_eq(p, "/apis/apps/v1/deployments");
	free(p);
	p = cpl_kubeclient_path(&d);
	ck_assert_str_eq(p, "/api/v1/nodes/n%201/proxy/metrics/cadvisor");
	free(p);
	p = cpl_kubeclient_path(&e);
	ck_assert_str_eq(p, "/apis/trainer.kubeflow.org/v1alpha1");
	free(p);
}
END_TEST

/* Watch events counted by type; batches ended (type NULL). */
struct seen_events {
	int added, bookmarks, other, batches;
};

static void
count_event(void *ctx, const char *type, json_t *obj)
{
	struct seen_events *se = ctx;

	if (type == NULL)
		se->batches++;
	else if (strcmp(type, "ADDED") == 0 && json_is_object(obj))
		se->added++;
	else if (strcmp(type, "BOOKMARK") == 0)
		se->bookmarks++;
	else
		se->other++;
}

static bool
stop_now(void *ctx)
{
	(void)ctx;
	return true;
}

/* Create and update with the resourceVersion read (kubewrite.c): a
 * second create and a stale update are conflicts, and the handle is as
 * GET wants it after a write. */
START_TEST(write_with_optimistic_concurrency)
{
	struct cpl_kubeconfig *kc = kc_load("kubeconfig", "fake-token", NULL);
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref coll = { "coordination.k8s.io/v1", "leases",
				     "cpulint-system", NULL, NULL };
	struct cpl_kube_ref one = { "coordination.k8s.io/v1", "leases",
				    "cpulint-system", "unit", NULL };
	struct cpl_error err = { 0 };
	json_t *lease = json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:i}}",
				  "apiVersion", "coordination.k8s.io/v1",
				  "kind", "Lease", "metadata", "name", "unit",
				  "spec", "holderIdentity", "a",
				  "leaseDurationSeconds", 15);
	json_t *out = NULL, *stale, *got = NULL;
	char *rv1;

	ck_assert_int_eq(cpl_kubeclient_create(&out, c, &coll, lease, &err),
			 0);
	rv1 = cpl_xstrdup(json_string_value(json_object_get(json_object_get(
		out, "metadata"), "resourceVersion")));
	ck_assert_int_eq(cpl_kubeclient_create(&got, c, &coll, lease, &err),
			 CPL_KUBE_CONFLICT);
	ck_assert_ptr_nonnull(strstr(err.message, "conflict: cannot create"));
	ck_assert_ptr_nonnull(strstr(err.message, "already exists"));
	cpl_error_clear(&err);
	stale = json_deep_copy(out);
	json_object_set_new(json_object_get(out, "spec"), "holderIdentity",
			    json_string("b"));
	ck_assert_int_eq(cpl_kubeclient_update(&got, c, &one, out, &err), 0);
	ck_assert_str_ne(json_string_value(json_object_get(json_object_get(
		got, "metadata"), "resourceVersion")), rv1);
	json_decref(got);
	got = NULL;
	/* From the version read before: refused, as the API server does. */
	ck_assert_int_eq(cpl_kubeclient_update(&got, c, &one, stale, &err),
			 CPL_KUBE_CONFLICT);
	ck_assert_ptr_null(got);
	ck_assert_ptr_nonnull(strstr(err.message, "conflict: cannot update"));
	ck_assert_ptr_nonnull(strstr(err.message,
				     "the object has been modified"));
	ck_assert_ptr_null(strstr(err.message, srv_token));
	cpl_error_clear(&err);
	/* A GET after the writes is a GET. */
	ck_assert_int_eq(cpl_kubeclient_get(&got, NULL, c, &one, &err), 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
		got, "spec"), "holderIdentity")), "b");
	json_decref(got);
	json_decref(stale);
	json_decref(out);
	json_decref(lease);
	free(rv1);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

START_TEST(watch_events_gone_and_bounded)
{
	struct cpl_kubeconfig *kc = kc_load("kubeconfig", "fake-token", NULL);
	struct cpl_kubeclient *c = client_new(kc);
	struct cpl_kube_ref ml = { "v1", "pods", "ml", NULL, NULL };
	struct cpl_kube_ref one = { "v1", "pods", "ml", "train-0", NULL };
	char *rv = NULL, *last = NULL;
	struct cpl_kube_list_opts lo = { .resource_version = &rv };
	struct cpl_kube_watch_opts wo = { 0 };
	struct seen_events se = { 0 };
	struct cpl_error err = { 0 };
	json_t *items = NULL, *obj = NULL;
	size_t n;

	/* The list hands out its resourceVersion. */
	ck_assert_int_eq(cpl_kubeclient_list(&items, c, &ml, &lo, &err), 0);
	ck_assert_ptr_nonnull(rv);
	n = json_array_size(items);
	ck_assert_uint_gt(n, 0);
	json_decref(items);

	/* From "0": what exists, ADDED, in one batch at least; then the
	 * server ends the watch after timeoutSeconds. */
	wo.resource_version = "0";
	wo.timeout_s = 1;
	wo.last_rv = &last;
	ck_assert_int_eq(cpl_kubeclient_watch(c, &ml, &wo, count_event, &se,
					      &err), 0);
	ck_assert_int_eq(se.added, (int)n);
	ck_assert_int_eq(se.other, 0);
	ck_assert_int_ge(se.batches, 1);
	ck_assert_ptr_nonnull(last);
	/* The handle is as GET wants it after a watch. */
	ck_assert_int_eq(cpl_kubeclient_get(&obj, NULL, c, &one, &err), 0);
	json_decref(obj);

	/* An event longer than the line buffer ends the watch: an error
	 * naming the bound and the request, never a credential. */
	wo.max_event = 64;
	ck_assert_int_eq(cpl_kubeclient_watch(c, &ml, &wo, count_event, &se,
					      &err), CPL_KUBE_FAILED);
	ck_assert_ptr_nonnull(strstr(err.message, "more than 64 bytes"));
	ck_assert_ptr_nonnull(strstr(err.message, "watch=1"));
	assert_clean(err.message);
	cpl_error_clear(&err);
	wo.max_event = 0;

	/* Stopped by its caller. */
	wo.stop = stop_now;
	wo.resource_version = rv;
	ck_assert_int_eq(cpl_kubeclient_watch(c, &ml, &wo, count_event, &se,
					      &err), CPL_KUBE_STOPPED);
	wo.stop = NULL;

	/* History compacted to now (the server's SIGUSR1): an older
	 * resourceVersion is gone, 410. */
	ck_assert_int_eq(kill(srv_pid, SIGUSR1), 0);
	usleep(300000);
	wo.resource_version = "1";
	ck_assert_int_eq(cpl_kubeclient_watch(c, &ml, &wo, count_event, &se,
					      &err), CPL_KUBE_GONE);
	ck_assert_int_eq(cpl_kubeclient_get(&obj, NULL, c, &one, &err), 0);
	json_decref(obj);
	free(rv);
	free(last);
	cpl_kubeclient_free(c);
	cpl_kubeconfig_free(kc);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("kubeclient");
	TCase *tc = tcase_create("fake-apiserver");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, server_start, server_stop);
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, token_auth_get_equals_fixture);
	tcase_add_test(tc, client_certificate_auth);
	tcase_add_test(tc, paging_over_all_namespaces);
	tcase_add_test(tc, custom_resources_and_cluster_scope);
	tcase_add_test(tc, cadvisor_metrics_sampled_twice);
	tcase_add_test(tc, unauthorized_401);
	tcase_add_test(tc, unauthorized_401_reruns_exec_plugin_once);
	tcase_add_test(tc, forbidden_403);
	tcase_add_test(tc, not_found_404);
	tcase_add_test(tc, too_many_requests_429);
	tcase_add_test(tc, timeout);
	tcase_add_test(tc, timeouts_tell_connect_from_answer);
	tcase_add_test(tc, exec_plugin_within_the_run_time_limit);
	tcase_add_test(tc, unreachable_server);
	tcase_add_test(tc, tls_verification);
	tcase_add_test(tc, request_paths);
	tcase_add_test(tc, watch_events_gone_and_bounded);
	tcase_add_test(tc, write_with_optimistic_concurrency);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
