/*
 * test_kubeconfig.c — kubectl's configuration rules: --kubeconfig,
 * KUBECONFIG merging, ~/.kube/config, relative paths, overrides, TLS
 * material from files and data, tokens, token files, exec plugins (v1 and
 * v1beta1, scripts written here that check KUBERNETES_EXEC_INFO), the
 * in-cluster service account, request timeouts, and the real kubeconfigs
 * in testdata/reference/k8s/kubeconfig.  No error may quote a secret.
 *
 * Each test gets a fresh temporary directory (removed afterwards) and an
 * explicit environment (opts.env), so the process environment and the
 * user's own kubeconfig never matter.
 */
#include <check.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/kubeconfig.h"

#define SHARED "testdata/reference/k8s/kubeconfig/"

static char *root;		/* the suite's directory, removed at the end
				 * even when a test fails */
static char *tmp;		/* this test's directory, inside root */

static void
suite_setup(void)
{
	char t[] = "/tmp/cpl-kubeconfig-XXXXXX";

	if (mkdtemp(t) == NULL) {
		perror("mkdtemp");
		exit(2);
	}
	root = cpl_xstrdup(t);
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

static void
suite_teardown(void)
{
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(root);
	root = NULL;
}

static void
setup(void)
{
	tmp = cpl_xasprintf("%s/XXXXXX", root);
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void
teardown(void)
{
	nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(tmp);
	tmp = NULL;
}

/* tmp/name; caller frees. */
static char *
at(const char *name)
{
	return cpl_xasprintf("%s/%s", tmp, name);
}

/* Writes tmp/name (making directories); returns the path (caller frees). */
static char *
put_mode(const char *name, const char *text, mode_t mode)
{
	char *path = at(name), *p;
	FILE *f;

	for (p = path + strlen(tmp) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
	return path;
}

static char *
put(const char *name, const char *text)
{
	return put_mode(name, text, 0600);
}

/* A NULL-terminated environment; NULL ends the arguments. */
static char **
envv(const char *first, ...)
{
	char **v = cpl_xcalloc(32, sizeof(*v));
	const char *s = first;
	size_t n = 0;
	va_list ap;

	va_start(ap, first);
	for (; s && n < 31; s = va_arg(ap, const char *))
		v[n++] = cpl_xstrdup(s);
	va_end(ap);
	return v;
}

static void
envv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The environment every test starts from: an empty HOME, our PATH. */
static char **
base_env(const char *extra1, const char *extra2, const char *extra3)
{
	char *home = cpl_xasprintf("HOME=%s/home", tmp);
	char *path = cpl_xasprintf("PATH=%s", getenv("PATH"));
	char **v;

	free(put("home/.keep", ""));
	v = envv(home, path, extra1, extra2, extra3, (char *)NULL);
	free(home);
	free(path);
	return v;
}

static struct cpl_kubeconfig *
load_ok(const struct cpl_kubeconfig_opts *o)
{
	struct cpl_kubeconfig *kc = NULL;
	struct cpl_error err = { 0 };
	char *msg;

	if (cpl_kubeconfig_load(&kc, o, &err) < 0) {
		msg = cpl_error_format(&err);
		ck_abort_msg("load failed: %s", msg);
	}
	ck_assert_ptr_nonnull(kc);
	return kc;
}

/* Loads expecting failure; returns the formatted error (caller frees). */
static char *
load_err(const struct cpl_kubeconfig_opts *o)
{
	struct cpl_kubeconfig *kc = NULL;
	struct cpl_error err = { 0 };
	char *msg;

	ck_assert_int_eq(cpl_kubeconfig_load(&kc, o, &err), -1);
	ck_assert_ptr_null(kc);
	msg = cpl_error_format(&err);
	cpl_error_clear(&err);
	return msg;
}

static char *
creds_err(struct cpl_kubeconfig *kc, bool refresh)
{
	struct cpl_error err = { 0 };
	char *msg;

	ck_assert_int_eq(cpl_kubeconfig_credentials(kc, refresh, &err), -1);
	msg = cpl_error_format(&err);
	cpl_error_clear(&err);
	return msg;
}

static void
creds_ok(struct cpl_kubeconfig *kc, bool refresh)
{
	struct cpl_error err = { 0 };
	char *msg;

	if (cpl_kubeconfig_credentials(kc, refresh, &err) < 0) {
		msg = cpl_error_format(&err);
		ck_abort_msg("credentials failed: %s", msg);
	}
}

/* Asserts a (not NUL-terminated) byte field equals s. */
#define ck_assert_bytes(p, n, s)					\
	do {								\
		ck_assert_ptr_nonnull(p);				\
		ck_assert_uint_eq((n), strlen(s));			\
		ck_assert(memcmp((p), (s), (n)) == 0);			\
	} while (0)

/* ---- where the configuration comes from ---------------------------------- */

static const char A_YAML[] =
	"apiVersion: v1\n"
	"kind: Config\n"
	"current-context: ctx-a\n"
	"clusters:\n"
	"- name: shared\n"
	"  cluster:\n"
	"    server: https://a.example:6443\n"
	"- name: only-a\n"
	"  cluster:\n"
	"    server: https://only-a.example\n"
	"contexts:\n"
	"- name: ctx-a\n"
	"  context:\n"
	"    cluster: shared\n"
	"    user: alice\n"
	"    namespace: team-a\n"
	"- name: shared-ctx\n"
	"  context: {cluster: shared, user: alice}\n"
	"users:\n"
	"- name: alice\n"
	"  user:\n"
	"    token: token-from-a\n";

static const char B_YAML[] =
	"current-context: ctx-b\n"
	"clusters:\n"
	"- name: shared\n"
	"  cluster:\n"
	"    server: https://b.example:6443\n"
	"- name: only-b\n"
	"  cluster:\n"
	"    server: https://only-b.example/prefix/\n"
	"contexts:\n"
	"- name: ctx-b\n"
	"  context: {cluster: only-b, user: bob}\n"
	"- name: shared-ctx\n"
	"  context: {cluster: only-b, user: bob}\n"
	"users:\n"
	"- name: alice\n"
	"  user:\n"
	"    token: token-from-b\n"
	"- name: bob\n"
	"  user:\n"
	"    username: bob\n"
	"    password: bobs-password\n";

START_TEST(kubeconfig_flag_reads_that_file_only)
{
	char *a = put("a.yaml", A_YAML), *b = put("b.yaml", B_YAML);
	char *kenv = cpl_xasprintf("KUBECONFIG=%s", a);
	char **env = base_env(kenv, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .kubeconfig = b, .env = env };
	struct cpl_kubeconfig *kc = load_ok(&o);
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(kc);
	const char *const *files;
	size_t n;
	char *msg, *want;

	ck_assert_str_eq(i->context, "ctx-b");
	ck_assert_str_eq(i->server, "https://only-b.example/prefix");
	ck_assert_str_eq(i->user, "bob");
	ck_assert_str_eq(i->username, "bob");
	ck_assert_str_eq(i->password, "bobs-password");
	ck_assert_ptr_null(i->token);
	ck_assert_str_eq(i->namespace, "default");
	files = cpl_kubeconfig_files(kc, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(files[0], b);
	cpl_kubeconfig_free(kc);

	/* A context that only KUBECONFIG's file defines is not seen. */
	o.context = "ctx-a";
	msg = load_err(&o);
	want = cpl_xasprintf("context \"ctx-a\" does not exist (in %s)", b);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	envv_free(env);
	free(kenv);
	free(a);
	free(b);
}
END_TEST

START_TEST(kubeconfig_flag_missing_file_is_an_error)
{
	char *missing = at("nope/config");
	char *a = put("a.yaml", A_YAML);
	char *kenv = cpl_xasprintf("KUBECONFIG=%s", a);
	char **env = base_env(kenv, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .kubeconfig = missing, .env = env };
	char *msg = load_err(&o), *want;

	want = cpl_xasprintf("%s: cannot read --kubeconfig: No such file or "
			     "directory", missing);
	ck_assert_str_eq(msg, want);
	free(want);
	free(msg);
	envv_free(env);
	free(kenv);
	free(a);
	free(missing);
}
END_TEST

START_TEST(kubeconfig_env_merges_first_wins)
{
	char *a = put("a.yaml", A_YAML), *b = put("b.yaml", B_YAML);
	char *ab = cpl_xasprintf("KUBECONFIG=%s:%s", a, b);
	char *ba = cpl_xasprintf("KUBECONFIG=%s:%s", b, a);
	char **env = base_env(ab, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .env = env };
	struct cpl_kubeconfig *kc = load_ok(&o);
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(kc);
	const char *const *files;
	size_t n;

	/* a first: its current-context, cluster and user win. */
	ck_assert_str_eq(i->context, "ctx-a");
	ck_assert_str_eq(i->server, "https://a.example:6443");
	ck_assert_str_eq(i->token, "token-from-a");
	ck_assert_str_eq(i->namespace, "team-a");
	files = cpl_kubeconfig_files(kc, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(files[0], a);
	ck_assert_str_eq(files[1], b);
	cpl_kubeconfig_free(kc);

	/* Entries only b defines are still found. */
	o.context = "ctx-b";
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert_str_eq(i->server, "https://only-b.example/prefix");
	ck_assert_str_eq(i->username, "bob");
	cpl_kubeconfig_free(kc);

	/* A context both define: a's wins as a whole. */
	o.context = "shared-ctx";
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert_str_eq(i->cluster, "shared");
	ck_assert_str_eq(i->server, "https://a.example:6443");
	ck_assert_str_eq(i->token, "token-from-a");
	cpl_kubeconfig_free(kc);
	envv_free(env);

	/* The other order: b's current-context, and b's alice. */
	env = base_env(ba, NULL, NULL);
	o.env = env;
	o.context = NULL;
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->context, "ctx-b");
	cpl_kubeconfig_free(kc);
	o.context = "ctx-a";
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert_str_eq(i->server, "https://b.example:6443");
	ck_assert_str_eq(i->token, "token-from-b");
	ck_assert_str_eq(i->namespace, "team-a");
	cpl_kubeconfig_free(kc);
	envv_free(env);
	free(ab);
	free(ba);
	free(a);
	free(b);
}
END_TEST

START_TEST(kubeconfig_env_skips_missing_and_duplicates)
{
	char *a = put("a.yaml", A_YAML), *b = put("b.yaml", B_YAML);
	char *missing = at("missing.yaml");
	char *list = cpl_xasprintf("KUBECONFIG=%s:%s::%s:%s:", missing, a, a,
				   b);
	char *only_missing = cpl_xasprintf("KUBECONFIG=%s", missing);
	char **env = base_env(list, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .env = env };
	struct cpl_kubeconfig *kc = load_ok(&o);
	const char *const *files;
	size_t n;
	char *msg, *want;

	files = cpl_kubeconfig_files(kc, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(files[0], a);
	ck_assert_str_eq(files[1], b);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->context, "ctx-a");
	cpl_kubeconfig_free(kc);
	envv_free(env);

	/* Only missing files, HOME has a config: KUBECONFIG still rules. */
	free(put("home/.kube/config", A_YAML));
	env = base_env(only_missing, NULL, NULL);
	o.env = env;
	msg = load_err(&o);
	want = cpl_xasprintf("no configuration: nothing found in "
			     "KUBECONFIG=%s, and not running in a cluster "
			     "(KUBERNETES_SERVICE_HOST and a service account "
			     "token are needed); use --kubeconfig or set "
			     "KUBECONFIG", missing);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	envv_free(env);
	free(list);
	free(only_missing);
	free(missing);
	free(a);
	free(b);
}
END_TEST

START_TEST(home_kube_config_is_the_default)
{
	char *cfg = put("home/.kube/config", A_YAML);
	char **env = base_env(NULL, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .env = env };
	struct cpl_kubeconfig *kc = load_ok(&o);
	const char *const *files;
	size_t n;

	files = cpl_kubeconfig_files(kc, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(files[0], cfg);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->context, "ctx-a");
	ck_assert(!cpl_kubeconfig_info(kc)->in_cluster);
	cpl_kubeconfig_free(kc);
	envv_free(env);
	free(cfg);
}
END_TEST

START_TEST(relative_paths_resolve_against_their_file)
{
	char *cfg = put("sub/dir/config",
			"current-context: c\n"
			"clusters:\n"
			"- name: k\n"
			"  cluster:\n"
			"    server: k.example:6443\n"
			"    certificate-authority: ca.pem\n"
			"contexts:\n"
			"- {name: c, context: {cluster: k, user: u}}\n"
			"users:\n"
			"- name: u\n"
			"  user:\n"
			"    client-certificate: certs/client.pem\n"
			"    client-key: ./certs/client-key.pem\n");
	char *other = put("other/config2",
			  "contexts:\n"
			  "- {name: c2, context: {cluster: k, user: u2}}\n"
			  "users:\n"
			  "- name: u2\n"
			  "  user: {tokenFile: tok}\n");
	char *ca = put("sub/dir/ca.pem", "CA-PEM\n");
	char *list = cpl_xasprintf("KUBECONFIG=%s:%s", cfg, other);
	char **env = base_env(list, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .env = env };
	const struct cpl_kubeconfig_info *i;
	struct cpl_kubeconfig *kc;
	struct cpl_buf rel;
	char *cwd = getcwd(NULL, 0), *p;

	free(put("sub/dir/certs/client.pem", "CERT-PEM\n"));
	free(put("sub/dir/certs/client-key.pem", "KEY-PEM\n"));
	free(put("other/tok", "  token-in-file\n\n"));
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert_bytes(i->ca, i->ca_len, "CA-PEM\n");
	ck_assert_str_eq(i->ca_origin, ca);
	ck_assert_bytes(i->cert, i->cert_len, "CERT-PEM\n");
	ck_assert_bytes(i->key, i->key_len, "KEY-PEM\n");
	/* no scheme: https, since TLS material is configured */
	ck_assert_str_eq(i->server, "https://k.example:6443");
	cpl_kubeconfig_free(kc);

	/* tokenFile of the second file: relative to that file. */
	o.context = "c2";
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->token, "token-in-file");
	cpl_kubeconfig_free(kc);

	/* The kubeconfig named by a path relative to the working directory:
	 * its references still resolve against its own directory. */
	cpl_buf_init(&rel, 0);
	for (p = cwd; *p; p++)
		if (*p == '/' && p[1])
			cpl_buf_adds(&rel, "../");
	cpl_buf_adds(&rel, cfg + 1);
	ck_assert_int_eq(access(cpl_buf_str(&rel), R_OK), 0);
	o.kubeconfig = cpl_buf_str(&rel);
	o.context = NULL;
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert_bytes(i->ca, i->ca_len, "CA-PEM\n");
	ck_assert_bytes(i->key, i->key_len, "KEY-PEM\n");
	cpl_kubeconfig_free(kc);
	cpl_buf_free(&rel);
	free(cwd);
	envv_free(env);
	free(list);
	free(cfg);
	free(other);
	free(ca);
}
END_TEST

START_TEST(overrides_and_namespace_default)
{
	char *a = put("a.yaml", A_YAML), *b = put("b.yaml", B_YAML);
	char *list = cpl_xasprintf("KUBECONFIG=%s:%s", a, b);
	char **env = base_env(list, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .env = env };
	const struct cpl_kubeconfig_info *i;
	struct cpl_kubeconfig *kc;
	char *msg, *want;

	/* --cluster and --user replace the context's choices. */
	o.cluster = "only-b";
	o.user = "bob";
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert_str_eq(i->context, "ctx-a");
	ck_assert_str_eq(i->cluster, "only-b");
	ck_assert_str_eq(i->server, "https://only-b.example/prefix");
	ck_assert_str_eq(i->user, "bob");
	ck_assert_str_eq(i->namespace, "team-a");
	cpl_kubeconfig_free(kc);

	/* -n wins over the context's namespace. */
	o.cluster = o.user = NULL;
	o.namespace = "ml";
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->namespace, "ml");
	cpl_kubeconfig_free(kc);

	/* A context without a namespace: "default". */
	o.namespace = NULL;
	o.context = "shared-ctx";
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->namespace, "default");
	cpl_kubeconfig_free(kc);

	/* Names that do not exist. */
	o.context = NULL;
	o.cluster = "nope";
	msg = load_err(&o);
	want = cpl_xasprintf("cluster \"nope\" does not exist (in "
			     "KUBECONFIG=%s:%s)", a, b);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	o.cluster = NULL;
	o.user = "nobody";
	msg = load_err(&o);
	want = cpl_xasprintf("user \"nobody\" does not exist (in "
			     "KUBECONFIG=%s:%s)", a, b);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	envv_free(env);
	free(list);
	free(a);
	free(b);
}
END_TEST

/* ---- TLS material and credentials ---------------------------------------- */

START_TEST(ca_and_client_cert_from_data_and_files)
{
	char *cfg = put("config",
			"current-context: data\n"
			"clusters:\n"
			"- name: data\n"
			"  cluster:\n"
			"    server: https://k.example\n"
			"    certificate-authority-data: Q0EtUEVNCg==\n"
			"- name: both\n"
			"  cluster:\n"
			"    server: https://k.example\n"
			"    certificate-authority: ca.pem\n"
			"    certificate-authority-data: Q0EtUEVNCg==\n"
			"- name: missing\n"
			"  cluster:\n"
			"    server: https://k.example\n"
			"    certificate-authority: missing-ca.pem\n"
			"contexts:\n"
			"- {name: data, context: {cluster: data, user: d}}\n"
			"- {name: both, context: {cluster: both, user: d}}\n"
			"- {name: missing, context: {cluster: missing}}\n"
			"- {name: nokey, context: {cluster: data, user: "
			"nokey}}\n"
			"- {name: twice, context: {cluster: data, user: "
			"twice}}\n"
			"users:\n"
			"- name: d\n"
			"  user:\n"
			"    client-certificate-data: Q0VSVC1QRU0K\n"
			"    client-key-data: S0VZLVBFTQo=\n"
			"- name: nokey\n"
			"  user:\n"
			"    client-certificate-data: Q0VSVC1QRU0K\n"
			"- name: twice\n"
			"  user:\n"
			"    client-certificate: c.pem\n"
			"    client-certificate-data: Q0VSVC1QRU0K\n"
			"    client-key-data: S0VZLVBFTQo=\n");
	char **env = base_env(NULL, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .kubeconfig = cfg, .env = env };
	const struct cpl_kubeconfig_info *i;
	struct cpl_kubeconfig *kc = load_ok(&o);
	char *msg, *want;

	i = cpl_kubeconfig_info(kc);
	ck_assert_bytes(i->ca, i->ca_len, "CA-PEM\n");
	ck_assert_str_eq(i->ca_origin, "certificate-authority-data");
	ck_assert_bytes(i->cert, i->cert_len, "CERT-PEM\n");
	ck_assert_bytes(i->key, i->key_len, "KEY-PEM\n");
	ck_assert(!i->insecure);
	cpl_kubeconfig_free(kc);

	/* --insecure-skip-tls-verify drops the CA. */
	o.insecure_skip_tls_verify = true;
	kc = load_ok(&o);
	ck_assert_ptr_null(cpl_kubeconfig_info(kc)->ca);
	ck_assert(cpl_kubeconfig_info(kc)->insecure);
	cpl_kubeconfig_free(kc);
	o.insecure_skip_tls_verify = false;

	o.context = "both";
	msg = load_err(&o);
	want = cpl_xasprintf("%s:7:3: certificate-authority-data and "
			     "certificate-authority are both specified for "
			     "both. certificate-authority-data will "
			     "override.", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);

	o.context = "missing";
	msg = load_err(&o);
	want = cpl_xasprintf("%s:15:28: unable to read certificate-authority "
			     "%s/missing-ca.pem for cluster \"missing\": "
			     "cannot read: No such file or directory", cfg,
			     tmp);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);

	o.context = "nokey";
	msg = load_err(&o);
	want = cpl_xasprintf("%s:27:3: client-key-data or client-key must "
			     "be specified for nokey to use the clientCert "
			     "authentication method.", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);

	o.context = "twice";
	msg = load_err(&o);
	want = cpl_xasprintf("%s:30:3: client-cert-data and client-cert are "
			     "both specified for twice. client-cert-data "
			     "will override.", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	envv_free(env);
	free(cfg);
}
END_TEST

START_TEST(token_token_file_and_basic_auth)
{
	char *cfg = put("config",
			"current-context: tok\n"
			"clusters:\n"
			"- {name: k, cluster: {server: http://k.example}}\n"
			"contexts:\n"
			"- {name: tok, context: {cluster: k, user: tok}}\n"
			"- {name: file, context: {cluster: k, user: file}}\n"
			"- {name: empty, context: {cluster: k, user: empty}}\n"
			"- {name: both, context: {cluster: k, user: both}}\n"
			"- {name: nouser, context: {cluster: k, user: ghost}}\n"
			"users:\n"
			"- name: tok\n"
			"  user: {token: SECRET-TOKEN-1, tokenFile: t1}\n"
			"- name: file\n"
			"  user: {tokenFile: t1}\n"
			"- name: empty\n"
			"  user: {tokenFile: t2}\n"
			"- name: both\n"
			"  user:\n"
			"    token: SECRET-TOKEN-1\n"
			"    username: admin\n"
			"    password: SECRET-PASS-2\n");
	char **env = base_env(NULL, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .kubeconfig = cfg, .env = env };
	struct cpl_kubeconfig *kc;
	char *msg, *want, *t1 = put("t1", "from-file-1\n");

	free(put("t2", " \n\t\n"));
	/* token wins over tokenFile */
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->token, "SECRET-TOKEN-1");
	ck_assert(!cpl_kubeconfig_info(kc)->exec);
	cpl_kubeconfig_free(kc);

	/* tokenFile: trimmed; re-read on refresh */
	o.context = "file";
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->token, "from-file-1");
	creds_ok(kc, false);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->token, "from-file-1");
	free(put("t1", "from-file-2"));
	creds_ok(kc, true);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->token, "from-file-2");
	cpl_kubeconfig_free(kc);

	o.context = "empty";
	msg = load_err(&o);
	want = cpl_xasprintf("%s:16:21: read empty token from file %s/t2",
			     cfg, tmp);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);

	o.context = "both";
	msg = load_err(&o);
	want = cpl_xasprintf("%s:17:3: more than one authentication method "
			     "found for both; found [token basicAuth], only "
			     "one is allowed", cfg);
	ck_assert_str_eq(msg, want);
	ck_assert_ptr_null(strstr(msg, "SECRET"));
	free(msg);
	free(want);

	/* A context whose user is not defined: no credentials, no user
	 * (kubectl does the same). */
	o.context = "nouser";
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->user, "");
	ck_assert_ptr_null(cpl_kubeconfig_info(kc)->token);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->server, "http://k.example");
	cpl_kubeconfig_free(kc);
	envv_free(env);
	free(cfg);
	free(t1);
}
END_TEST

/* ---- exec credential plugins --------------------------------------------- */

/* A v1 plugin that checks its input and answers with a counted token. */
static const char PLUGIN_V1[] =
	"#!/usr/bin/env python3\n"
	"import json, os, sys\n"
	"info = json.loads(os.environ['KUBERNETES_EXEC_INFO'])\n"
	"spec = info['spec']\n"
	"cluster = spec.get('cluster', {})\n"
	"ok = (info['kind'] == 'ExecCredential'\n"
	"      and info['apiVersion'] == 'client.authentication.k8s.io/v1'\n"
	"      and spec['interactive'] is False\n"
	"      and cluster.get('server') == 'https://k.example:6443'\n"
	"      and cluster.get('certificate-authority-data') == "
	"'Q0EtUEVNCg=='\n"
	"      and cluster.get('tls-server-name') == 'kube.internal'\n"
	"      and cluster.get('config') == {'arbitrary': 'config', 'n': 3,\n"
	"                                    'you': ['can', 'put']}\n"
	"      and os.environ.get('FOO') == 'bar'\n"
	"      and os.environ.get('INHERITED') == 'yes'\n"
	"      and sys.argv[1:] == ['arg1', 'arg2'])\n"
	"if not ok:\n"
	"    print('SECRET-PLUGIN-OUTPUT', json.dumps(info))\n"
	"    sys.exit(3)\n"
	"path = os.environ['COUNTER']\n"
	"n = int(open(path).read()) + 1 if os.path.exists(path) else 1\n"
	"open(path, 'w').write(str(n))\n"
	"print(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1',\n"
	"                  'kind': 'ExecCredential',\n"
	"                  'status': {'token': 'exec-token-%d' % n}}))\n";

/* A kubeconfig whose user u runs plugin COMMAND with API version VER. */
static char *
exec_config(const char *command, const char *version, const char *extra)
{
	char *text = cpl_xasprintf(
		"current-context: c\n"
		"clusters:\n"
		"- name: k\n"
		"  cluster:\n"
		"    server: https://k.example:6443\n"
		"    certificate-authority-data: Q0EtUEVNCg==\n"
		"    tls-server-name: kube.internal\n"
		"    extensions:\n"
		"    - name: other\n"
		"      extension: {x: 1}\n"
		"    - name: client.authentication.k8s.io/exec\n"
		"      extension:\n"
		"        arbitrary: config\n"
		"        n: 3\n"
		"        you: [can, put]\n"
		"contexts:\n"
		"- {name: c, context: {cluster: k, user: u}}\n"
		"users:\n"
		"- name: u\n"
		"  user:\n"
		"    exec:\n"
		"      command: %s\n"
		"      apiVersion: %s\n"
		"      args: [arg1, arg2]\n"
		"      env:\n"
		"      - {name: FOO, value: bar}\n"
		"      - {name: COUNTER, value: %s/count}\n"
		"%s",
		command, version, tmp, extra);
	char *path = put("cfg/config", text);

	free(text);
	return path;
}

START_TEST(exec_v1_token_and_exec_info)
{
	char *plugin = put_mode("cfg/bin/plugin", PLUGIN_V1, 0755);
	char *cfg = exec_config("./bin/plugin",
				"client.authentication.k8s.io/v1",
				"      provideClusterInfo: true\n"
				"      interactiveMode: Never\n");
	char **env = base_env("INHERITED=yes", "FOO=overridden", NULL);
	struct cpl_kubeconfig_opts o = { .kubeconfig = cfg, .env = env };
	struct cpl_kubeconfig *kc = load_ok(&o);
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(kc);

	/* The relative command resolved against the kubeconfig's dir. */
	ck_assert(i->exec);
	ck_assert_str_eq(i->exec_command, plugin);
	ck_assert_ptr_null(i->token);
	ck_assert_uint_eq(cpl_kubeconfig_exec_runs(kc), 0);
	creds_ok(kc, false);
	ck_assert_str_eq(i->token, "exec-token-1");
	ck_assert_uint_eq(cpl_kubeconfig_exec_runs(kc), 1);
	creds_ok(kc, false);	/* already have credentials */
	ck_assert_uint_eq(cpl_kubeconfig_exec_runs(kc), 1);
	creds_ok(kc, true);	/* after a 401 */
	ck_assert_str_eq(i->token, "exec-token-2");
	ck_assert_uint_eq(cpl_kubeconfig_exec_runs(kc), 2);
	cpl_kubeconfig_free(kc);
	envv_free(env);
	free(plugin);
	free(cfg);
}
END_TEST

static const char PLUGIN_V1BETA1_CERT[] =
	"#!/usr/bin/env python3\n"
	"import json, os, sys\n"
	"info = json.loads(os.environ['KUBERNETES_EXEC_INFO'])\n"
	"if (info['apiVersion'] != 'client.authentication.k8s.io/v1beta1'\n"
	"        or 'cluster' in info['spec']\n"
	"        or info['spec']['interactive'] is not False):\n"
	"    sys.exit(4)\n"
	"print(json.dumps({\n"
	"  'apiVersion': 'client.authentication.k8s.io/v1beta1',\n"
	"  'kind': 'ExecCredential',\n"
	"  'status': {'clientCertificateData': '-----BEGIN CERTIFICATE-----"
	"\\nC\\n-----END CERTIFICATE-----\\n',\n"
	"             'clientKeyData': '-----BEGIN PRIVATE KEY-----\\nK\\n"
	"-----END PRIVATE KEY-----\\n',\n"
	"             'expirationTimestamp': '2018-03-05T17:30:20-08:00'}}))\n";

START_TEST(exec_v1beta1_client_certificate)
{
	char *plugin = put_mode("cfg/plugin-cert", PLUGIN_V1BETA1_CERT, 0755);
	char *cfg = exec_config(plugin, "client.authentication.k8s.io/v1beta1",
				"");
	char **env = base_env(NULL, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .kubeconfig = cfg, .env = env };
	struct cpl_kubeconfig *kc = load_ok(&o);
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(kc);

	creds_ok(kc, false);
	ck_assert_ptr_null(i->token);
	ck_assert_bytes(i->cert, i->cert_len, "-----BEGIN CERTIFICATE-----\nC"
			"\n-----END CERTIFICATE-----\n");
	ck_assert_bytes(i->key, i->key_len, "-----BEGIN PRIVATE KEY-----\nK\n"
			"-----END PRIVATE KEY-----\n");
	cpl_kubeconfig_free(kc);
	envv_free(env);
	free(plugin);
	free(cfg);
}
END_TEST

/* Runs a plugin with body BODY and returns the credentials error. */
static char *
exec_failure(const char *body, const char *extra, long timeout_ms,
	     char **cfg_out)
{
	char *script = cpl_xasprintf("#!/usr/bin/env python3\n"
				     "import json, sys, time\n%s", body);
	char *plugin = put_mode("cfg/bad-plugin", script, 0755);
	char *cfg = exec_config(plugin, "client.authentication.k8s.io/v1",
				extra);
	char **env = base_env(NULL, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .kubeconfig = cfg, .env = env,
					 .exec_timeout_ms = timeout_ms };
	struct cpl_kubeconfig *kc = load_ok(&o);
	char *msg = creds_err(kc, false);

	ck_assert_ptr_null(cpl_kubeconfig_info(kc)->token);
	ck_assert_ptr_null(strstr(msg, "SECRET"));
	cpl_kubeconfig_free(kc);
	envv_free(env);
	free(plugin);
	free(script);
	*cfg_out = cfg;
	return msg;
}

START_TEST(exec_failures_never_quote_the_plugin)
{
	static const struct {
		const char *body;
		const char *want;
		long timeout_ms;
	} cases[] = {
		{ "print('{\"status\": {\"token\": "
		  "\"SECRET-PLUGIN-OUTPUT\"}}')\n"
		  "sys.exit(3)\n",
		  "failed with exit code 3", 0 },
		{ "print('SECRET-PLUGIN-OUTPUT is not JSON')\n",
		  "did not print an ExecCredential JSON object", 0 },
		{ "print(json.dumps({'apiVersion': "
		  "'client.authentication.k8s.io/v1beta1', 'kind': "
		  "'ExecCredential', 'status': {'token': "
		  "'SECRET-PLUGIN-OUTPUT'}}))\n",
		  "is configured to use API version "
		  "client.authentication.k8s.io/v1, plugin returned version "
		  "client.authentication.k8s.io/v1beta1", 0 },
		{ "print(json.dumps({'apiVersion': "
		  "'client.authentication.k8s.io/v1', 'kind': "
		  "'ExecCredential'}))\n",
		  "didn't return a status field", 0 },
		{ "print(json.dumps({'apiVersion': "
		  "'client.authentication.k8s.io/v1', 'kind': "
		  "'ExecCredential', 'status': {'clientKeyData': "
		  "'SECRET-PLUGIN-OUTPUT'}}))\n",
		  "didn't return a token or cert/key pair", 0 },
		{ "time.sleep(10)\n", "did not finish within 300 ms and was killed",
		  300 },
		{ "sys.stdout.write('SECRET-PLUGIN-OUTPUT' * 100000)\n",
		  "printed more than 1048576 bytes", 0 },
		{ "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n",
		  "was killed by signal 15", 0 },
	};
	size_t k;

	for (k = 0; k < CPL_ARRAY_LEN(cases); k++) {
		char *cfg, *msg = exec_failure(cases[k].body,
					       "      interactiveMode: Never\n",
					       cases[k].timeout_ms, &cfg);
		char *want = cpl_xasprintf("%s:22:7: exec plugin \"%s/cfg/"
					   "bad-plugin\" for user \"u\" %s",
					   cfg, tmp, cases[k].want);

		ck_assert_str_eq(msg, want);
		free(msg);
		free(want);
		free(cfg);
	}
}
END_TEST

START_TEST(positions_outlive_the_kubeconfig_option)
{
	/* The --kubeconfig string may be gone when an error at a position
	 * in that file is made (an exec plugin runs later): the handle
	 * keeps its own copy of the name. */
	char *cfg = exec_config("cpl-no-such-plugin",
				"client.authentication.k8s.io/v1",
				"      interactiveMode: Never\n");
	char *copy = cpl_xstrdup(cfg);
	char **env = base_env(NULL, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .kubeconfig = copy, .env = env };
	struct cpl_kubeconfig *kc = load_ok(&o);
	char *msg, *want;

	memset(copy, 'X', strlen(copy));
	msg = creds_err(kc, false);
	want = cpl_xasprintf("%s:22:7: exec plugin \"cpl-no-such-plugin\" "
			     "for user \"u\" not found", cfg);
	ck_assert_msg(cpl_str_starts(msg, want), "%s", msg);
	free(msg);
	free(want);
	cpl_kubeconfig_free(kc);
	envv_free(env);
	free(copy);
	free(cfg);
}
END_TEST

START_TEST(exec_not_found_and_bad_configuration)
{
	char *cfg = exec_config("cpl-no-such-plugin",
				"client.authentication.k8s.io/v1",
				"      interactiveMode: Never\n"
				"      installHint: |\n"
				"        cpl-no-such-plugin is needed.\n"
				"\n"
				"        Install it with:  "
				"apt-get install x\n");
	char **env = base_env(NULL, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .kubeconfig = cfg, .env = env };
	struct cpl_kubeconfig *kc = load_ok(&o);
	char *msg = creds_err(kc, false), *want;

	want = cpl_xasprintf("%s:22:7: exec plugin \"cpl-no-such-plugin\" for "
			     "user \"u\" not found: cpl-no-such-plugin is "
			     "needed. Install it with: apt-get install x",
			     cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	cpl_kubeconfig_free(kc);
	free(cfg);

	/* No hint; and a file that is there but not executable. */
	cfg = exec_config("cpl-no-such-plugin",
			  "client.authentication.k8s.io/v1",
			  "      interactiveMode: Never\n");
	o.kubeconfig = cfg;
	kc = load_ok(&o);
	msg = creds_err(kc, false);
	want = cpl_xasprintf("%s:22:7: exec plugin \"cpl-no-such-plugin\" for "
			     "user \"u\" not found: is it installed and in "
			     "PATH?", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	cpl_kubeconfig_free(kc);
	free(cfg);
	free(put_mode("cfg/not-executable", "#!/bin/sh\n", 0644));
	cfg = exec_config("./not-executable",
			  "client.authentication.k8s.io/v1",
			  "      interactiveMode: Never\n");
	o.kubeconfig = cfg;
	kc = load_ok(&o);
	msg = creds_err(kc, false);	/* no x bit: even root cannot */
	want = cpl_xasprintf("%s:22:7: exec plugin \"%s/cfg/not-executable\" "
			     "for user \"u\" cannot be run: Permission denied",
			     cfg, tmp);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	cpl_kubeconfig_free(kc);
	free(cfg);

	/* An env entry without a name (appended to exec.env). */
	cfg = exec_config("p", "client.authentication.k8s.io/v1",
			  "      - {value: x}\n"
			  "      interactiveMode: Never\n");
	o.kubeconfig = cfg;
	msg = load_err(&o);
	want = cpl_xasprintf("%s:22:7: env variable name must be specified "
			     "for u to use exec authentication plugin", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(cfg);

	/* v1 requires interactiveMode; v1alpha1 is gone. */
	cfg = exec_config("p", "client.authentication.k8s.io/v1", "");
	o.kubeconfig = cfg;
	msg = load_err(&o);
	want = cpl_xasprintf("%s:22:7: interactiveMode must be specified for "
			     "u to use exec authentication plugin", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(cfg);
	cfg = exec_config("p", "client.authentication.k8s.io/v1alpha1", "");
	o.kubeconfig = cfg;
	msg = load_err(&o);
	want = cpl_xasprintf("%s:22:7: exec plugin for u: apiVersion "
			     "\"client.authentication.k8s.io/v1alpha1\" is not "
			     "supported (use client.authentication.k8s.io/v1 "
			     "or client.authentication.k8s.io/v1beta1)", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(cfg);
	cfg = exec_config("p", "client.authentication.k8s.io/v1",
			  "      interactiveMode: Sometimes\n");
	o.kubeconfig = cfg;
	msg = load_err(&o);
	want = cpl_xasprintf("%s:22:7: invalid interactiveMode for u: "
			     "\"Sometimes\"", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(cfg);
	/* Always needs a terminal, and a test has none. */
	cfg = exec_config("p", "client.authentication.k8s.io/v1",
			  "      interactiveMode: Always\n");
	o.kubeconfig = cfg;
	kc = load_ok(&o);
	if (!isatty(0)) {
		msg = creds_err(kc, false);
		want = cpl_xasprintf("%s:22:7: exec plugin for user \"u\" "
				     "needs an interactive terminal "
				     "(interactiveMode: Always) and standard "
				     "input is not one", cfg);
		ck_assert_str_eq(msg, want);
		ck_assert_uint_eq(cpl_kubeconfig_exec_runs(kc), 0);
		free(msg);
		free(want);
	}
	cpl_kubeconfig_free(kc);
	free(cfg);
	envv_free(env);
}
END_TEST

/* ---- in-cluster ---------------------------------------------------------- */

START_TEST(in_cluster_service_account)
{
	char *sa = at("sa");
	char **env = base_env("KUBERNETES_SERVICE_HOST=10.96.0.1",
			      "KUBERNETES_SERVICE_PORT=443", NULL);
	struct cpl_kubeconfig_opts o = { .env = env,
					 .serviceaccount_dir = sa };
	const struct cpl_kubeconfig_info *i;
	struct cpl_kubeconfig *kc;
	char *msg;

	/* No token file yet: in-cluster is not possible. */
	msg = load_err(&o);
	ck_assert(cpl_str_starts(msg, "no configuration: nothing found in "));
	free(msg);

	free(put("sa/token", "  sa-token-1\n"));
	free(put("sa/ca.crt", "SA-CA\n"));
	free(put("sa/namespace", "from-file\n"));
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert(i->in_cluster);
	ck_assert_str_eq(i->context, "");
	ck_assert_str_eq(i->server, "https://10.96.0.1:443");
	ck_assert_str_eq(i->token, "sa-token-1");
	ck_assert_bytes(i->ca, i->ca_len, "SA-CA\n");
	ck_assert_str_eq(i->namespace, "from-file");
	/* projected tokens rotate: a refresh re-reads the file */
	free(put("sa/token", "sa-token-2"));
	creds_ok(kc, true);
	ck_assert_str_eq(i->token, "sa-token-2");
	cpl_kubeconfig_free(kc);

	o.namespace = "ml";
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->namespace, "ml");
	cpl_kubeconfig_free(kc);
	envv_free(env);

	env = base_env("KUBERNETES_SERVICE_HOST=fd00::1",
		       "KUBERNETES_SERVICE_PORT=6443", "POD_NAMESPACE=env-ns");
	o.env = env;
	o.namespace = NULL;
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->server,
			 "https://[fd00::1]:6443");
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->namespace, "env-ns");
	cpl_kubeconfig_free(kc);

	/* A kubeconfig, when there is one, comes first. */
	free(put("home/.kube/config", A_YAML));
	kc = load_ok(&o);
	ck_assert(!cpl_kubeconfig_info(kc)->in_cluster);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->context, "ctx-a");
	cpl_kubeconfig_free(kc);
	envv_free(env);
	free(sa);
}
END_TEST

/* ---- control characters in credentials ----------------------------------- */

/* The message of a load that fails, with none of the secret in it. */
static char *
load_err_secret(const struct cpl_kubeconfig_opts *o)
{
	char *msg = load_err(o);

	ck_assert_msg(strstr(msg, "SECRET") == NULL, "%s", msg);
	ck_assert_msg(strstr(msg, "X-Evil") == NULL, "%s", msg);
	ck_assert_msg(strchr(msg, '\r') == NULL && strchr(msg, '\n') == NULL &&
		      strchr(msg, '\x01') == NULL, "%s", msg);
	return msg;
}

START_TEST(control_characters_in_credentials)
{
	/* A CR LF inside a bearer token would end the Authorization header
	 * and add others: a token file, an inline token, an oidc id-token,
	 * an exec plugin's token and a service account token with one are
	 * refused, with one error naming where it came from, never the
	 * token; so are credential paths with one. */
	char *cfg = put("config",
		"current-context: file\n"
		"clusters:\n"
		"- {name: k, cluster: {server: https://k.example}}\n"
		"- name: ca\n"
		"  cluster: {server: https://k.example, "
		"certificate-authority: \"ca\\x01.pem\"}\n"
		"contexts:\n"
		"- {name: file, context: {cluster: k, user: file}}\n"
		"- {name: inline, context: {cluster: k, user: inline}}\n"
		"- {name: oidc, context: {cluster: k, user: oidc}}\n"
		"- {name: path, context: {cluster: k, user: path}}\n"
		"- {name: cert, context: {cluster: k, user: cert}}\n"
		"- {name: ca, context: {cluster: ca}}\n"
		"users:\n"
		"- name: file\n"
		"  user: {tokenFile: t1}\n"
		"- name: inline\n"
		"  user: {token: \"SECRET-1\\r\\nX-Evil: 1\"}\n"
		"- name: oidc\n"
		"  user:\n"
		"    auth-provider:\n"
		"      name: oidc\n"
		"      config: {id-token: \"SECRET-2\\nX-Evil: 1\"}\n"
		"- name: path\n"
		"  user: {tokenFile: \"t1\\nX-Evil\"}\n"
		"- name: cert\n"
		"  user: {client-certificate: \"c\\rX-Evil\", "
		"client-key: k.pem}\n");
	char **env = base_env(NULL, NULL, NULL);
	struct cpl_kubeconfig_opts o = { .kubeconfig = cfg, .env = env };
	struct cpl_kubeconfig *kc;
	char *msg, *want, *t1;

	t1 = put("t1", "SECRET-3\r\nX-Evil: injected\r\n");
	msg = load_err_secret(&o);
	want = cpl_xasprintf("%s:15:21: token file %s: holds a control "
			     "character (a line break or another byte below "
			     "0x20, or DEL), which would end its request "
			     "header and add others; it is not sent", cfg, t1);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	/* A NUL byte, a tab or a DEL inside are refused too; around the
	 * token, white space is trimmed as before. */
	free(put("t1", "SECRET-3\tX-Evil"));
	free(load_err_secret(&o));
	free(put("t1", "SECRET-3\x7fX-Evil"));
	free(load_err_secret(&o));
	/* Read again after a 401 (a rotated file): refused then too. */
	free(put("t1", "\t good-token \r\n"));
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->token, "good-token");
	free(put("t1", "SECRET-4\nX-Evil: 1\n"));
	msg = creds_err(kc, true);
	ck_assert_ptr_null(strstr(msg, "SECRET"));
	ck_assert_ptr_nonnull(strstr(msg, "holds a control character"));
	free(msg);
	cpl_kubeconfig_free(kc);

	o.context = "inline";
	msg = load_err_secret(&o);
	want = cpl_xasprintf("%s:16:3: user \"inline\": its token holds a "
			     "control character (a line break or another "
			     "byte below 0x20, or DEL), which would end its "
			     "request header and add others; it is not sent",
			     cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);

	o.context = "oidc";
	msg = load_err_secret(&o);
	ck_assert_ptr_nonnull(strstr(msg, "user \"oidc\": the id-token of its "
				     "oidc auth-provider holds a control "
				     "character"));
	free(msg);

	o.context = "path";
	msg = load_err_secret(&o);
	want = cpl_xasprintf("%s:24:21: user \"path\": the tokenFile path "
			     "holds a control character (a line break or "
			     "another byte below 0x20, or DEL); it is not "
			     "read", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);

	o.context = "cert";
	msg = load_err_secret(&o);
	ck_assert_ptr_nonnull(strstr(msg, "user \"cert\": the client-cert "
				     "path holds a control character"));
	free(msg);

	o.context = "ca";
	msg = load_err_secret(&o);
	ck_assert_ptr_nonnull(strstr(msg, "cluster \"ca\": the "
				     "certificate-authority path holds a "
				     "control character"));
	free(msg);
	envv_free(env);
	free(cfg);
	free(t1);
}
END_TEST

START_TEST(control_characters_in_plugin_and_service_account_tokens)
{
	char *sa = at("sa");
	char **env = base_env("KUBERNETES_SERVICE_HOST=10.96.0.1",
			      "KUBERNETES_SERVICE_PORT=443", NULL);
	struct cpl_kubeconfig_opts o = { .env = env,
					 .serviceaccount_dir = sa };
	char *cfg, *msg, *want;

	free(put("sa/token", "SECRET-5\r\nX-Evil: 1\n"));
	msg = load_err_secret(&o);
	want = cpl_xasprintf("token file %s/token: holds a control character "
			     "(a line break or another byte below 0x20, or "
			     "DEL), which would end its request header and "
			     "add others; it is not sent", sa);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	envv_free(env);
	free(sa);

	msg = exec_failure("print(json.dumps({'apiVersion': "
			   "'client.authentication.k8s.io/v1', 'kind': "
			   "'ExecCredential', 'status': {'token': "
			   "'SECRET-PLUGIN-OUTPUT\\r\\nX-Evil: 1'}}))\n",
			   "      interactiveMode: Never\n", 0, &cfg);
	want = cpl_xasprintf("%s:22:7: exec plugin \"%s/cfg/bad-plugin\" for "
			     "user \"u\" returned a token that holds a "
			     "control character (a line break or another "
			     "byte below 0x20, or DEL), which would end its "
			     "request header and add others; it is not sent",
			     cfg, tmp);
	ck_assert_str_eq(msg, want);
	ck_assert_ptr_null(strstr(msg, "X-Evil"));
	free(msg);
	free(want);
	free(cfg);
}
END_TEST

/* ---- real kubeconfigs ---------------------------------------------------- */

/* Loads a file from testdata/reference/k8s/kubeconfig with options. */
static struct cpl_kubeconfig_opts
shared_opts(const char *name, char **env)
{
	struct cpl_kubeconfig_opts o = { .env = env };

	o.kubeconfig = name;
	return o;
}

START_TEST(real_dupe_context_and_empty_user)
{
	char **env = base_env(NULL, NULL, NULL);
	struct cpl_kubeconfig_opts o = shared_opts(
		SHARED "kubernetes-client-javascript-kubeconfig-"
		"dupe-context.yaml",
		env);
	const struct cpl_kubeconfig_info *i;
	struct cpl_kubeconfig *kc;
	char *msg;

	msg = load_err(&o);
	ck_assert_str_eq(msg, SHARED "kubernetes-client-javascript-kubeconfig-"
			 "dupe-context.yaml:14:18: current-context "
			 "\"context2\" is not defined in any kubeconfig file "
			 "(" SHARED "kubernetes-client-javascript-kubeconfig-"
			 "dupe-context.yaml)");
	free(msg);
	o.context = "context1";
	msg = load_err(&o);
	ck_assert_str_eq(msg, SHARED "kubernetes-client-javascript-kubeconfig-"
			 "dupe-context.yaml:9:3: context \"context1\": "
			 "cluster \"cluster1\" is not defined");
	free(msg);

	o = shared_opts(SHARED
			"kubernetes-client-javascript-empty-user-"
			"kubeconfig.yaml",
			env);
	msg = load_err(&o);
	ck_assert_str_eq(msg, SHARED "kubernetes-client-javascript-empty-user-"
			 "kubeconfig.yaml:7:3: cluster \"cluster2\": "
			 "specifying a root certificates file with the "
			 "insecure flag is not allowed");
	free(msg);
	o.insecure_skip_tls_verify = true;
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert_str_eq(i->context, "context2");
	ck_assert_str_eq(i->server, "http://example2.com");
	ck_assert_str_eq(i->user, "");
	ck_assert(i->insecure);
	ck_assert_ptr_null(i->ca);
	cpl_kubeconfig_free(kc);
	o.insecure_skip_tls_verify = false;
	o.context = "context1";
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert_str_eq(i->user, "user1");	/* defined, but empty */
	ck_assert_ptr_null(i->token);
	ck_assert_ptr_null(i->cert);
	ck_assert_bytes(i->ca, i->ca_len, "CADATA");
	ck_assert_str_eq(i->server, "http://example.com");
	cpl_kubeconfig_free(kc);
	envv_free(env);
}
END_TEST

START_TEST(real_proxy_url_and_tls_server_name)
{
	char **env = base_env(NULL, NULL, NULL);
	struct cpl_kubeconfig_opts o = shared_opts(
		SHARED "kubernetes-client-javascript-kubeconfig-proxy-url.yaml",
		env);
	const struct cpl_kubeconfig_info *i;
	struct cpl_kubeconfig *kc;
	char *msg;

	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	/* socks5 is resolved by the proxy in Go: socks5h for libcurl */
	ck_assert_str_eq(i->proxy_url, "socks5h://example:1187");
	ck_assert_str_eq(i->server, "http://example1.com");
	ck_assert_bytes(i->cert, i->cert_len, "]SER_CADATA");
	ck_assert_bytes(i->ca, i->ca_len, "CADAT@");
	cpl_kubeconfig_free(kc);
	o.context = "contextB";
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->proxy_url,
			 "http://example:9443");
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->server,
			 "https://example2.com");
	cpl_kubeconfig_free(kc);
	o.context = "contextG";
	kc = load_ok(&o);
	ck_assert_ptr_null(cpl_kubeconfig_info(kc)->proxy_url);
	cpl_kubeconfig_free(kc);
	o.context = "contextD";
	msg = load_err(&o);
	ck_assert_str_eq(msg, SHARED "kubernetes-client-javascript-kubeconfig-"
			 "proxy-url.yaml:18:7: cluster \"clusterD\": server "
			 "\"htto://exampleerror.com\" is not an http:// or "
			 "https:// URL");
	free(msg);
	o.context = "contextE";
	msg = load_err(&o);
	ck_assert_str_eq(msg, SHARED "kubernetes-client-javascript-kubeconfig-"
			 "proxy-url.yaml:23:7: cluster \"clusterE\": "
			 "specifying a root certificates file with the "
			 "insecure flag is not allowed");
	free(msg);

	o = shared_opts(SHARED
			"kubernetes-client-javascript-tls-server-name-"
			"kubeconfig.yaml", env);
	msg = load_err(&o);
	ck_assert(strstr(msg, ":3:3: cluster \"cluster\": specifying a root "
			 "certificates file") != NULL);
	free(msg);
	o.insecure_skip_tls_verify = true;
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert_str_eq(i->tls_server_name, "kube.example2.com");
	ck_assert_bytes(i->cert, i->cert_len, "USER_CADATA");
	ck_assert_bytes(i->key, i->key_len, "USER_CKDATA");
	cpl_kubeconfig_free(kc);
	envv_free(env);
}
END_TEST

START_TEST(real_client_certs_and_basic_auth)
{
	char **env = base_env(NULL, NULL, NULL);
	struct cpl_kubeconfig_opts o = shared_opts(
		SHARED "kubernetes-client-javascript-kubeconfig.yaml", env);
	const struct cpl_kubeconfig_info *i;
	struct cpl_kubeconfig *kc;

	o.context = "context1";
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert_bytes(i->cert, i->cert_len, "USER_CADATA");
	ck_assert_bytes(i->key, i->key_len, "USER_CKDATA");
	ck_assert_str_eq(i->proxy_url, "socks5h://localhost:1181");
	ck_assert_str_eq(i->namespace, "default");
	cpl_kubeconfig_free(kc);
	o.context = "passwd";
	o.insecure_skip_tls_verify = true;
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert_str_eq(i->username, "foo");
	ck_assert_str_eq(i->password, "bar");
	cpl_kubeconfig_free(kc);
	o.context = NULL;	/* context2: namespace2 */
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->namespace, "namespace2");
	ck_assert_bytes(cpl_kubeconfig_info(kc)->cert,
			cpl_kubeconfig_info(kc)->cert_len, "USER2_CADATA");
	cpl_kubeconfig_free(kc);

	o = shared_opts(SHARED "kubernetes-client-javascript-kubeconfig-2.yaml",
			env);
	o.user = "userC";
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert_str_eq(i->user, "userC");
	ck_assert_str_eq(i->username, "foo");
	ck_assert_ptr_null(i->cert);
	cpl_kubeconfig_free(kc);
	envv_free(env);
}
END_TEST

START_TEST(real_exec_and_auth_provider_samples)
{
	char **env = base_env(NULL, NULL, NULL);
	struct cpl_kubeconfig_opts o = shared_opts(
		SHARED "k8s-docs-kubeconfig-exec-plugin-v1.yaml", env);
	const struct cpl_kubeconfig_info *i;
	struct cpl_kubeconfig *kc;
	char *msg;

	msg = load_err(&o);
	ck_assert_str_eq(msg, SHARED "k8s-docs-kubeconfig-exec-plugin-v1.yaml"
			 ":57:28: unable to read certificate-authority "
			 "/etc/kubernetes/ca.pem for cluster \"my-cluster\": "
			 "cannot read: No such file or directory");
	free(msg);
	o.insecure_skip_tls_verify = true;
	kc = load_ok(&o);
	i = cpl_kubeconfig_info(kc);
	ck_assert(i->exec);
	ck_assert_str_eq(i->exec_command, "example-client-go-exec-plugin");
	msg = creds_err(kc, false);
	ck_assert_str_eq(msg, SHARED "k8s-docs-kubeconfig-exec-plugin-v1.yaml"
			 ":8:7: exec plugin \"example-client-go-exec-plugin\" "
			 "for user \"my-user\" not found: "
			 "example-client-go-exec-plugin is required to "
			 "authenticate to the current cluster. It can be "
			 "installed: On macOS: brew install "
			 "example-client-go-exec-plugin On Ubuntu: apt-get "
			 "install example-client-go-exec-plugin On Fedora: "
			 "dnf install example-client-go-exec-plugin ...");
	free(msg);
	cpl_kubeconfig_free(kc);

	o = shared_opts(SHARED
			"kubernetes-client-c-config_with_exec_provider_"
			"sample.yaml",
			env);
	msg = load_err(&o);
	ck_assert_str_eq(msg, SHARED "kubernetes-client-c-config_with_exec_"
			 "provider_sample.yaml:3:3: no server found for "
			 "cluster \"kubernetes\"");
	free(msg);

	o = shared_opts(SHARED
			"kubernetes-client-c-config_with_auth_provider_"
			"sample.yaml",
			env);
	msg = load_err(&o);
	ck_assert_str_eq(msg, SHARED "kubernetes-client-c-config_with_auth_"
			 "provider_sample.yaml:25:7: user \"theone\": the "
			 "oidc auth-provider has no id-token; log in again "
			 "or use an exec plugin (kubelogin)");
	free(msg);
	o.context = "kubernetes-admin@kubernetes";
	kc = load_ok(&o);
	ck_assert_str_eq(cpl_kubeconfig_info(kc)->server,
			 "https://host:6443");
	ck_assert_ptr_null(cpl_kubeconfig_info(kc)->ca);
	cpl_kubeconfig_free(kc);
	envv_free(env);
}
END_TEST

/* ---- parsing details ----------------------------------------------------- */

START_TEST(request_timeouts)
{
	static const struct {
		const char *text;
		long ms;
	} ok[] = {
		{ "0", 0 }, { "5", 5000 }, { "30s", 30000 }, { "1m", 60000 },
		{ "1m30s", 90000 }, { "1.5s", 1500 }, { "500ms", 500 },
		{ "2h", 7200000 }, { "1us", 1 }, { "1\xc2\xb5s", 1 },
		{ "0s", 0 }, { "+3s", 3000 },
	};
	static const char *const bad[] = {
		"", "-1", "-1s", "abc", "1x", "s", "1m-5s", "5 s", "1.s5",
	};
	size_t k;
	long ms;
	char **env = base_env(NULL, NULL, NULL);
	char *cfg = put("config", A_YAML), *msg;
	struct cpl_kubeconfig_opts o = { .kubeconfig = cfg, .env = env,
					 .request_timeout = "90s" };
	struct cpl_kubeconfig *kc;

	for (k = 0; k < CPL_ARRAY_LEN(ok); k++) {
		ms = -7;
		ck_assert_msg(cpl_kubeconfig_parse_timeout(&ms,
							   ok[k].text) == 0,
			      "%s", ok[k].text);
		ck_assert_int_eq(ms, ok[k].ms);
	}
	for (k = 0; k < CPL_ARRAY_LEN(bad); k++)
		ck_assert_msg(cpl_kubeconfig_parse_timeout(&ms, bad[k]) == -1,
			      "\"%s\" accepted", bad[k]);
	kc = load_ok(&o);
	ck_assert_int_eq(cpl_kubeconfig_info(kc)->timeout_ms, 90000);
	cpl_kubeconfig_free(kc);
	o.request_timeout = "soon";
	msg = load_err(&o);
	ck_assert_str_eq(msg, "invalid --request-timeout \"soon\": must be a "
			 "whole number of seconds or a number with a unit "
			 "(e.g. 1s | 2m | 3h)");
	free(msg);
	envv_free(env);
	free(cfg);
}
END_TEST

START_TEST(bad_files_name_line_and_column)
{
	char **env = base_env(NULL, NULL, NULL);
	char *cfg = at("config");	/* rewritten by each case */
	struct cpl_kubeconfig_opts o = { .kubeconfig = cfg, .env = env };
	char *msg, *want;

	free(put("config", "clusters: 5\n"));
	msg = load_err(&o);
	want = cpl_xasprintf("%s:1:11: clusters must be a list", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);

	free(put("config", "users:\n- name: u\n  user:\n"
		 "    client-key-data: S0VZ*SECRET-KEY-DATA\n"));
	msg = load_err(&o);
	want = cpl_xasprintf("%s:4:22: client-key-data: illegal base64 data "
			     "at input byte 4", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);

	/* A YAML syntax error: the parser's position. */
	free(put("config", "clusters:\n- name: c\n  cluster: {server: [x\n"));
	msg = load_err(&o);
	want = cpl_xasprintf("%s:4:", cfg);
	ck_assert_msg(cpl_str_starts(msg, want), "%s", msg);
	free(msg);
	free(want);

	free(put("config",
		 "current-context: c\n"
		 "clusters:\n"
		 "- name: k\n"
		 "  cluster:\n"
		 "    server: https://k.example\n"
		 "    proxy-url: ftp://user:SECRET-PROXY-3@proxy:21\n"
		 "contexts: [{name: c, context: {cluster: k}}]\n"));
	msg = load_err(&o);
	want = cpl_xasprintf("%s:6:16: invalid proxy-url for cluster \"k\": "
			     "unsupported scheme \"ftp\", must be http, https, "
			     "or socks5", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);

	/* An empty file is an empty configuration, not a syntax error. */
	free(put("config", ""));
	msg = load_err(&o);
	want = cpl_xasprintf("no context: current-context is not set in %s "
			     "and --context was not given", cfg);
	ck_assert_str_eq(msg, want);
	free(msg);
	free(want);
	free(cfg);
	envv_free(env);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("kubeconfig");
	TCase *tc = tcase_create("kubeconfig");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, suite_setup, suite_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, kubeconfig_flag_reads_that_file_only);
	tcase_add_test(tc, kubeconfig_flag_missing_file_is_an_error);
	tcase_add_test(tc, kubeconfig_env_merges_first_wins);
	tcase_add_test(tc, kubeconfig_env_skips_missing_and_duplicates);
	tcase_add_test(tc, home_kube_config_is_the_default);
	tcase_add_test(tc, relative_paths_resolve_against_their_file);
	tcase_add_test(tc, overrides_and_namespace_default);
	tcase_add_test(tc, ca_and_client_cert_from_data_and_files);
	tcase_add_test(tc, token_token_file_and_basic_auth);
	tcase_add_test(tc, exec_v1_token_and_exec_info);
	tcase_add_test(tc, exec_v1beta1_client_certificate);
	tcase_add_test(tc, exec_failures_never_quote_the_plugin);
	tcase_add_test(tc, exec_not_found_and_bad_configuration);
	tcase_add_test(tc, positions_outlive_the_kubeconfig_option);
	tcase_add_test(tc, in_cluster_service_account);
	tcase_add_test(tc, control_characters_in_credentials);
	tcase_add_test(tc,
		       control_characters_in_plugin_and_service_account_tokens);
	tcase_add_test(tc, real_dupe_context_and_empty_user);
	tcase_add_test(tc, real_proxy_url_and_tls_server_name);
	tcase_add_test(tc, real_client_certs_and_basic_auth);
	tcase_add_test(tc, real_exec_and_auth_provider_samples);
	tcase_add_test(tc, request_timeouts);
	tcase_add_test(tc, bad_files_name_line_and_column);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
