/*
 * kubeexec.c — exec credential plugins (client.authentication.k8s.io v1
 * and v1beta1), as kubectl runs them: the exec block checked, the plugin
 * spawned with KUBERNETES_EXEC_INFO and exec.env in its environment, its
 * stdout read within a time and size limit, and its ExecCredential taken
 * for a token or a client certificate and key.  The time limit is its own
 * (60 s, or --request-timeout) and never past the run's (--live-timeout,
 * cpl_kubeconfig_set_deadline): when it runs out, the plugin and its
 * process group are killed and the error names its command only.
 *
 * Invariant: nothing the plugin prints is ever quoted in a message; its
 * output, its environment and the credential strings jansson held are
 * wiped before they are freed.  A token with a control character is
 * refused (CR LF in it would add request headers).  The plugin gets our terminal only as
 * interactiveMode allows, and our stderr only when the options say so.
 *
 * Ownership: replaces the handle's token, cert and key with the plugin's
 * (the handle frees and wipes them); counts runs in the handle.
 */
#include "kube/kubeconfig_int.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXEC_OUTPUT_MAX ((size_t)1 << 20)	/* an ExecCredential */
#define EXEC_TIMEOUT_MS 60000L
#define EXEC_V1 "client.authentication.k8s.io/v1"
#define EXEC_V1BETA1 "client.authentication.k8s.io/v1beta1"

/* ---- checking an exec block ---------------------------------------------- */

/* kubectl's validation of an exec block. */
int
cpl_kubeconfig_exec_check(const struct user *u, struct cpl_error *err)
{
	const struct exec_cfg *e = u->exec;
	const char *mode = e->interactive_mode;
	size_t i;

	if (e->command == NULL)
		return set_err_at(err, &e->pos, "command must be specified "
				  "for %s to use exec authentication plugin",
				  u->name);
	if (e->api_version == NULL)
		return set_err_at(err, &e->pos, "apiVersion must be "
				  "specified for %s to use exec "
				  "authentication plugin", u->name);
	if (!cpl_str_eq(e->api_version, EXEC_V1) &&
	    !cpl_str_eq(e->api_version, EXEC_V1BETA1))
		return set_err_at(err, &e->pos, "exec plugin for %s: "
				  "apiVersion \"%s\" is not supported (use %s "
				  "or %s)", u->name, e->api_version, EXEC_V1,
				  EXEC_V1BETA1);
	for (i = 0; i < e->nenv; i++)
		if (e->env[i].name == NULL)
			return set_err_at(err, &e->pos, "env variable name "
					  "must be specified for %s to use "
					  "exec authentication plugin",
					  u->name);
	if (mode == NULL && cpl_str_eq(e->api_version, EXEC_V1))
		return set_err_at(err, &e->pos, "interactiveMode must be "
				  "specified for %s to use exec "
				  "authentication plugin", u->name);
	if (mode && !cpl_str_eq(mode, "Never") &&
	    !cpl_str_eq(mode, "IfAvailable") && !cpl_str_eq(mode, "Always"))
		return set_err_at(err, &e->pos, "invalid interactiveMode for "
				  "%s: \"%s\"", u->name, mode);
	if (u->auth_provider)
		return set_err_at(err, &e->pos, "authProvider cannot be "
				  "provided in combination with an exec "
				  "plugin for %s", u->name);
	return 0;
}

/* ---- running a plugin ---------------------------------------------------- */

/* Whether the plugin gets our terminal (interactiveMode). */
static int
exec_interactive(bool *out, const struct user *u, struct cpl_error *err)
{
	const char *mode = u->exec->interactive_mode;
	bool tty = isatty(STDIN_FILENO) == 1;

	*out = false;
	if (cpl_str_eq(mode, "Never"))
		return 0;
	if (cpl_str_eq(mode, "Always") && !tty)
		return set_err_at(err, &u->exec->pos, "exec plugin for user "
				  "\"%s\" needs an interactive terminal "
				  "(interactiveMode: Always) and standard "
				  "input is not one", u->name);
	*out = tty;
	return 0;
}

/* Sets obj[key] = v, taking v; jansson fails only without memory. */
static void
jset(json_t *obj, const char *key, json_t *v)
{
	if (v == NULL || json_object_set_new(obj, key, v) < 0)
		abort();
}

/* Standard base64 of n bytes, padded; caller frees. */
static char *
b64_encode(const char *in, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz0123456789+/";
	struct cpl_buf b;
	size_t i;

	cpl_buf_init(&b, 0);
	for (i = 0; i + 2 < n; i += 3) {
		unsigned v = (unsigned)(unsigned char)in[i] << 16 |
			     (unsigned)(unsigned char)in[i + 1] << 8 |
			     (unsigned)(unsigned char)in[i + 2];

		cpl_buf_addc(&b, tab[v >> 18 & 63]);
		cpl_buf_addc(&b, tab[v >> 12 & 63]);
		cpl_buf_addc(&b, tab[v >> 6 & 63]);
		cpl_buf_addc(&b, tab[v & 63]);
	}
	if (n - i == 1) {
		unsigned v = (unsigned)(unsigned char)in[i] << 16;

		cpl_buf_addc(&b, tab[v >> 18 & 63]);
		cpl_buf_addc(&b, tab[v >> 12 & 63]);
		cpl_buf_adds(&b, "==");
	} else if (n - i == 2) {
		unsigned v = (unsigned)(unsigned char)in[i] << 16 |
			     (unsigned)(unsigned char)in[i + 1] << 8;

		cpl_buf_addc(&b, tab[v >> 18 & 63]);
		cpl_buf_addc(&b, tab[v >> 12 & 63]);
		cpl_buf_addc(&b, tab[v >> 6 & 63]);
		cpl_buf_addc(&b, '=');
	}
	return cpl_buf_detach(&b);
}

/* The KUBERNETES_EXEC_INFO document (an ExecCredential with a spec). */
static char *
exec_info(const struct cpl_kubeconfig *kc, bool interactive)
{
	const struct exec_cfg *e = kc->user->exec;
	const struct cluster *cl = kc->cl;
	json_t *root = json_object(), *spec = json_object(), *c;
	char *text;

	if (root == NULL || spec == NULL)
		abort();
	jset(root, "kind", json_string("ExecCredential"));
	jset(root, "apiVersion", json_string(e->api_version));
	jset(spec, "interactive", json_boolean(interactive));
	if (e->provide_cluster_info) {
		c = json_object();
		if (c == NULL)
			abort();
		jset(c, "server", json_string(kc->server));
		if (cl->tls_server_name)
			jset(c, "tls-server-name",
			     json_string(cl->tls_server_name));
		if (cl->insecure)
			jset(c, "insecure-skip-tls-verify", json_true());
		if (kc->info.ca) {
			char *b = b64_encode(kc->info.ca, kc->info.ca_len);

			jset(c, "certificate-authority-data", json_string(b));
			free(b);
		}
		if (cl->proxy_url)
			jset(c, "proxy-url", json_string(cl->proxy_url));
		if (cl->exec_config)
			jset(c, "config", json_incref(cl->exec_config));
		jset(spec, "cluster", c);
	}
	jset(root, "spec", spec);
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (text == NULL)
		abort();
	return text;
}

/* The plugin's environment: ours, then exec.env, then the exec info. */
static char **
exec_env(const struct cpl_kubeconfig *kc, const char *info)
{
	const struct exec_cfg *e = kc->user->exec;
	char *const *base = kc_env(kc);
	char **env;
	size_t n = 0, i, j, k = 0;

	while (base && base[n])
		n++;
	env = cpl_xcalloc(n + e->nenv + 2, sizeof(*env));
	for (i = 0; i < n; i++) {
		size_t len = strcspn(base[i], "=");
		bool replaced = len == strlen("KUBERNETES_EXEC_INFO") &&
			strncmp(base[i], "KUBERNETES_EXEC_INFO", len) == 0;

		for (j = 0; j < e->nenv && !replaced; j++)
			replaced = strlen(e->env[j].name) == len &&
				   strncmp(base[i], e->env[j].name, len) == 0;
		if (!replaced)
			env[k++] = cpl_xstrdup(base[i]);
	}
	for (j = 0; j < e->nenv; j++)
		env[k++] = cpl_xasprintf("%s=%s", e->env[j].name,
					 e->env[j].value ? e->env[j].value
							 : "");
	env[k++] = cpl_xasprintf("KUBERNETES_EXEC_INFO=%s", info);
	env[k] = NULL;
	return env;
}

/* Frees a NULL-terminated string array, wiping it. */
static void
strv_free_secret(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		secret_free_str(v[i]);
	free(v);
}

/*
 * text on one line, each run of white space made one space; NULL for
 * NULL or blank text.  (For the installHint: it comes from the
 * kubeconfig, not the plugin, so it may be shown.)
 */
static char *
one_line(const char *text)
{
	struct cpl_buf b;
	bool space = false;

	cpl_buf_init(&b, 4096);
	for (; text && *text; text++) {
		if (*text == ' ' || *text == '\t' || *text == '\n' ||
		    *text == '\r') {
			space = b.len > 0;
			continue;
		}
		if (space)
			cpl_buf_addc(&b, ' ');
		cpl_buf_addc(&b, *text);
		space = false;
	}
	if (b.len == 0) {
		cpl_buf_free(&b);
		return NULL;
	}
	return cpl_buf_detach(&b);
}

/*
 * The file to run for command: command itself when it names a path, else
 * the first executable match in our PATH, as Go's exec.LookPath finds it
 * for kubectl.  NULL with *e_no set when there is none.
 */
static char *
find_executable(const char *command, int *e_no)
{
	const char *path = getenv("PATH"), *p;
	struct stat st;

	*e_no = ENOENT;
	if (strchr(command, '/')) {
		if (access(command, X_OK) == 0)
			return cpl_xstrdup(command);
		*e_no = errno;
		return NULL;
	}
	for (p = path; p && *p;) {
		size_t n = strcspn(p, ":");
		char *cand = n ? cpl_xasprintf("%.*s/%s", (int)n, p, command)
			       : cpl_xasprintf("./%s", command);

		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0)
			return cand;
		free(cand);
		p += n;
		if (*p == ':')
			p++;
	}
	return NULL;
}

/* Milliseconds on the monotonic clock. */
static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A plugin started by exec_start(), until exec_finish() reaps it. */
struct spawned {
	pid_t pid;
	int fd;			/* the read end of its stdout */
	long timeout;		/* ms it is given */
	long long deadline;	/* on now_ms()'s clock */
	bool by_deadline;	/* the run's --live-timeout set it */
};

/* How a plugin's run ended. */
enum ending {
	ENDED,			/* it exited or was killed by a signal */
	TIMED_OUT,		/* killed at the deadline */
	TOO_BIG,		/* killed: output over EXEC_OUTPUT_MAX */
};

/*
 * Starts the plugin with its stdout on a pipe (stdin and stderr on
 * /dev/null unless interactive or --exec-stderr), in its own process
 * group unless interactive.  Fills sp; returns 0, or -1 with err (nothing
 * left running, nothing left open).
 */
static int
exec_start(struct spawned *sp, const struct cpl_kubeconfig *kc,
	   bool interactive, struct cpl_error *err)
{
	const struct user *u = kc->user;
	const struct exec_cfg *e = u->exec;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char **argv = cpl_xcalloc(e->nargs + 2, sizeof(*argv));
	char *info = exec_info(kc, interactive);
	char **env = exec_env(kc, info);
	/* The run limit: the caller's, else --request-timeout (a plugin that
	 * hangs must not outlast the timeout the user asked for), else 60 s;
	 * never past the run's time limit (--live-timeout). */
	long long start = now_ms(), run_left = kc->deadline - start;
	int fds[2] = { -1, -1 };
	char *file = NULL;
	bool fa_ready = false, attr_ready = false;
	size_t i;
	int rc = -1, e_no;

	sp->pid = -1;
	sp->fd = -1;
	sp->timeout = kc->exec_timeout_ms > 0 ? kc->exec_timeout_ms :
		      kc->info.timeout_ms > 0 ? kc->info.timeout_ms :
		      EXEC_TIMEOUT_MS;
	sp->by_deadline = kc->deadline > 0 && run_left < sp->timeout;
	if (sp->by_deadline)	/* > 0: cpl_kubeconfig_exec_run() checked */
		sp->timeout = run_left > 0 ? (long)run_left : 1;
	sp->deadline = start + sp->timeout;
	argv[0] = e->command;
	for (i = 0; i < e->nargs; i++)
		argv[i + 1] = e->args[i];
	if (pipe2(fds, O_CLOEXEC) < 0) {
		set_err_at(err, &e->pos, "exec plugin for user \"%s\": cannot "
			   "create a pipe: %s", u->name, strerror(errno));
		goto out;
	}
	if (posix_spawn_file_actions_init(&fa) != 0)
		abort();
	fa_ready = true;
	if (posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO) ||
	    (!interactive &&
	     posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
					      O_RDONLY, 0)) ||
	    (!kc->exec_stderr &&
	     posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
					      O_WRONLY, 0)))
		abort();
	/* Its own process group, so a timeout kills the plugin and every
	 * child it started (a shell wrapper's curl, a cloud CLI's helpers).
	 * An interactive plugin stays in ours: a background group reading
	 * the terminal would be stopped by SIGTTIN. */
	if (posix_spawnattr_init(&attr) != 0)
		abort();
	attr_ready = true;
	if (!interactive &&
	    (posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP) != 0 ||
	     posix_spawnattr_setpgroup(&attr, 0) != 0))
		abort();
	file = find_executable(e->command, &e_no);
	if (file)
		e_no = posix_spawn(&sp->pid, file, &fa, &attr, argv, env);
	if (e_no != 0) {
		sp->pid = -1;
		if (e_no == ENOENT) {
			char *hint = one_line(e->install_hint);

			set_err_at(err, &e->pos, "exec plugin \"%s\" for user "
				   "\"%s\" not found: %s", e->command, u->name,
				   hint ? hint
					: "is it installed and in PATH?");
			free(hint);
		} else {
			set_err_at(err, &e->pos, "exec plugin \"%s\" for user "
				   "\"%s\" cannot be run: %s", e->command,
				   u->name, strerror(e_no));
		}
		goto out;
	}
	sp->fd = fds[0];
	fds[0] = -1;
	rc = 0;
out:
	if (fa_ready)
		posix_spawn_file_actions_destroy(&fa);
	if (attr_ready)
		posix_spawnattr_destroy(&attr);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	free(file);
	free(argv);
	strv_free_secret(env);
	secret_free_str(info);
	return rc;
}

/*
 * Reads the started plugin's stdout into out (capped) until it closes,
 * then waits for the plugin, both within sp's deadline; kills its group
 * (or it, when interactive) at the deadline or the cap.  Always reaps
 * the plugin and closes sp->fd; *status is its wait status when ENDED.
 */
static enum ending
exec_finish(struct cpl_buf *out, struct spawned *sp, bool interactive,
	    int *status)
{
	enum ending end = ENDED;

	*status = 0;
	for (;;) {
		struct pollfd pfd = { sp->fd, POLLIN, 0 };
		long long left = sp->deadline - now_ms();
		char chunk[4096];
		ssize_t r;
		int pr;

		if (left <= 0) {
			end = TIMED_OUT;
			break;
		}
		pr = poll(&pfd, 1, left > 1000 ? 1000 : (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			break;
		if (pr == 0)
			continue;
		r = read(sp->fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		cpl_buf_add(out, chunk, (size_t)r);
		explicit_bzero(chunk, sizeof(chunk));
		if (out->overflow) {
			end = TOO_BIG;
			break;
		}
	}
	/* Output is done; the plugin still gets only the time left. */
	while (end == ENDED) {
		pid_t w = waitpid(sp->pid, status, WNOHANG);

		if (w == sp->pid || (w < 0 && errno != EINTR))
			break;
		if (now_ms() >= sp->deadline) {
			end = TIMED_OUT;
			break;
		}
		if (w == 0)
			poll(NULL, 0, 10);
	}
	if (end != ENDED) {
		kill(interactive ? sp->pid : -sp->pid, SIGKILL);
		while (waitpid(sp->pid, status, 0) < 0 && errno == EINTR)
			;
	}
	close(sp->fd);
	sp->fd = -1;
	return end;
}

/*
 * Runs the plugin, collecting stdout into out (capped).  Returns 0 when it
 * exited 0; -1 with err (never quoting its output) otherwise.
 */
static int
exec_spawn(struct cpl_buf *out, const struct cpl_kubeconfig *kc,
	   bool interactive, struct cpl_error *err)
{
	const struct user *u = kc->user;
	const struct exec_cfg *e = u->exec;
	struct spawned sp;
	enum ending end;
	int status;

	if (exec_start(&sp, kc, interactive, err) < 0)
		return -1;
	end = exec_finish(out, &sp, interactive, &status);
	if (end == TIMED_OUT && sp.by_deadline) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "did not finish within the run's time limit of %g s "
			   "(--live-timeout) and was killed", e->command,
			   u->name, (double)kc->deadline_ms / 1000);
		return -1;
	}
	if (end == TIMED_OUT) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "did not finish within %ld ms and was killed",
			   e->command, u->name, sp.timeout);
		return -1;
	}
	if (end == TOO_BIG) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "printed more than %zu bytes", e->command, u->name,
			   EXEC_OUTPUT_MAX);
		return -1;
	}
	if (WIFSIGNALED(status)) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "was killed by signal %d", e->command, u->name,
			   WTERMSIG(status));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "failed with exit code %d", e->command, u->name,
			   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -1;
	}
	return 0;
}

/* ---- reading its answer -------------------------------------------------- */

/* A string member of status, or NULL; -1 when present but not a string. */
static int
status_str(const char **out, json_t *status, const char *key)
{
	json_t *v = json_object_get(status, key);

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	*out = json_string_value(v);
	if (**out == '\0')
		*out = NULL;
	return 0;
}

/* Takes the token or certificate pair from a plugin's ExecCredential. */
static int
exec_parse(struct cpl_kubeconfig *kc, const struct cpl_buf *out,
	   struct cpl_error *err)
{
	const struct user *u = kc->user;
	const struct exec_cfg *e = u->exec;
	json_t *root, *status;
	const char *kind, *version, *token, *cert, *key;
	int rc = -1;

	root = json_loadb(cpl_buf_str(out), out->len, JSON_REJECT_DUPLICATES,
			  NULL);
	if (root == NULL || !json_is_object(root)) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "did not print an ExecCredential JSON object",
			   e->command, u->name);
		goto out;
	}
	kind = json_string_value(json_object_get(root, "kind"));
	version = json_string_value(json_object_get(root, "apiVersion"));
	if (!cpl_str_eq(kind, "ExecCredential")) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "printed an object that is not an ExecCredential",
			   e->command, u->name);
		goto out;
	}
	if (!cpl_str_eq(version, e->api_version)) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "is configured to use API version %s, plugin "
			   "returned version %s", e->command, u->name,
			   e->api_version, version ? version : "(none)");
		goto out;
	}
	status = json_object_get(root, "status");
	if (!json_is_object(status)) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "didn't return a status field", e->command,
			   u->name);
		goto out;
	}
	if (status_str(&token, status, "token") < 0 ||
	    status_str(&cert, status, "clientCertificateData") < 0 ||
	    status_str(&key, status, "clientKeyData") < 0) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "returned a status with a field that is not a "
			   "string", e->command, u->name);
		goto out;
	}
	if (!token && !(cert && key)) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "didn't return a token or cert/key pair",
			   e->command, u->name);
		goto out;
	}
	if (token && cpl_has_control(token, strlen(token))) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "returned a token that %s", e->command, u->name,
			   CTL_TOKEN);
		goto out;
	}
	if ((cert != NULL) != (key != NULL)) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "returned %s without %s", e->command, u->name,
			   cert ? "clientCertificateData" : "clientKeyData",
			   cert ? "clientKeyData" : "clientCertificateData");
		goto out;
	}
	secret_free_str(kc->token);
	kc->token = token ? cpl_xstrdup(token) : NULL;
	free(kc->cert);
	secret_free(kc->key, kc->key_len);
	kc->cert = kc->key = NULL;
	kc->cert_len = kc->key_len = 0;
	if (cert) {
		kc->cert = cpl_xstrdup(cert);
		kc->cert_len = strlen(cert);
		kc->key = cpl_xstrdup(key);
		kc->key_len = strlen(key);
	}
	rc = 0;
out:
	if (root) {
		/* Wipe the credential strings jansson holds. */
		json_t *st = json_object_get(root, "status");
		const char *k;
		json_t *v;

		json_object_foreach(st, k, v)
			if (json_is_string(v))
				explicit_bzero((char *)json_string_value(v),
					       json_string_length(v));
		json_decref(root);
	}
	return rc;
}

/* Runs the plugin once and takes its credentials. */
int
cpl_kubeconfig_exec_run(struct cpl_kubeconfig *kc, struct cpl_error *err)
{
	struct cpl_buf out;
	bool interactive;
	int rc = -1;

	cpl_buf_init(&out, EXEC_OUTPUT_MAX);
	if (exec_interactive(&interactive, kc->user, err) < 0)
		goto out;
	if (kc->deadline > 0 && now_ms() >= kc->deadline) {
		set_err_at(err, &kc->user->exec->pos, "exec plugin \"%s\" for "
			   "user \"%s\" was not run: the run's time limit of "
			   "%g s (--live-timeout) ran out",
			   kc->user->exec->command, kc->user->name,
			   (double)kc->deadline_ms / 1000);
		goto out;
	}
	kc->exec_runs++;
	if (exec_spawn(&out, kc, interactive, err) < 0 ||
	    exec_parse(kc, &out, err) < 0)
		goto out;
	rc = 0;
out:
	if (out.data)
		explicit_bzero(out.data, out.cap);
	cpl_buf_free(&out);
	cpl_kubeconfig_publish(kc);
	return rc;
}

/* ---- public -------------------------------------------------------------- */

void
cpl_kubeconfig_set_deadline(struct cpl_kubeconfig *kc, long long at_ms,
			    long total_ms)
{
	kc->deadline = at_ms;
	kc->deadline_ms = total_ms;
}

unsigned
cpl_kubeconfig_exec_runs(const struct cpl_kubeconfig *kc)
{
	return kc->exec_runs;
}
