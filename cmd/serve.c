/*
 * serve.c — `kubectl-cpulint serve`: the admission webhooks (/validate;
 * /mutate with --mutate, live/mutate.h),
 * the audit's /metrics, /healthz and /readyz on one HTTPS port
 * (lib/http/httpd.h), the audit loop (lib/live/audit.h) unless --no-audit;
 * with --leader-elect, in the replica that holds the Lease only
 * (lib/live/lease.h).
 * The main thread only waits for signals: SIGTERM or SIGINT stop it
 * gracefully (not ready, no new connections, the requests under way
 * answered, at most 10 s), and every second (or on SIGHUP) the
 * certificate and key files are looked at and reloaded when they
 * changed.  docs/serve.md says how it is deployed.
 *
 * Ownership: struct serve owns the server and the audit; the handler
 * runs on the server's threads and reads only what is set before they
 * start, the audit under its lock, and atomic counters.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "http/httpd.h"
#include "kube/curlso.h"
#include "live/admit.h"
#include "live/audit.h"
#include "live/mutate.h"
#include "live/lease.h"
#include "report/admission.h"
#include "report/metrics.h"
#include "run/engine.h"
#include "util.h"

#define GRACE_MS 10000

struct serve {
	const struct options *o;
	struct cpl_audit *audit;	/* NULL with --no-audit or
					 * --leader-elect */
	struct cpl_leader *leader;	/* --leader-elect: runs the audit
					 * while it holds the Lease */
	atomic_bool ready;
	atomic_ulong allowed, denied, invalid;
};

/* Sets ans to a copy of text. */
static void
say_text(struct cpl_http_answer *ans, unsigned status, const char *text)
{
	ans->status = status;
	ans->content_type = "text/plain; charset=utf-8";
	ans->body = cpl_xstrdup(text);
	ans->len = strlen(text);
}

/* /validate, and with mutate /mutate (--mutate): the same review and
 * warnings, the latter with the JSONPatch of live/mutate.h and never a
 * denial (the validating webhook denies). */
static void
validate(struct serve *s, const struct cpl_http_request *rq,
	 struct cpl_http_answer *ans, bool mutate)
{
	struct cpl_admit a;
	struct cpl_mutation m = { 0 };
	struct cpl_admission out = { 0 };
	struct cpl_error err = { 0 };
	size_t nw = 0;
	bool denied = false;
	char *text;

	if (rq->too_large) {
		atomic_fetch_add(&s->invalid, 1);
		say_text(ans, 413, "request body too large for an "
			 "AdmissionReview\n");
		return;
	}
	if (rq->busy) {
		atomic_fetch_add(&s->invalid, 1);
		say_text(ans, 503, "too many request bodies held at once; "
			 "try again\n");
		return;
	}
	if (cpl_admit_review(&a, rq->body, rq->len, s->o->config,
			     &err) < 0) {
		atomic_fetch_add(&s->invalid, 1);
		text = cpl_xasprintf("%s\n", err.message);
		say_text(ans, 400, text);
		free(text);
		cpl_error_clear(&err);
		return;
	}
	out.uid = a.uid;
	out.what = a.what;
	out.skipped = a.skipped;
	out.deny_on = mutate ? CPL_SEV_OFF : s->o->deny_on;
	if (mutate) {
		cpl_mutate_plan(&m, &a, s->o->mutate_dry_run);
		out.patch = m.patch;
		if (m.refused)
			text = cpl_xasprintf("kubectl-cpulint: not mutated: "
					     "the patch failed its check: %s",
					     m.refused);
		else if (m.skipped)
			text = cpl_xasprintf("kubectl-cpulint: not mutated: "
					     "%s", m.skipped);
		else
			text = NULL;
		out.mutate_note = text;
	}
	if (a.e) {
		out.findings = cpl_engine_findings(a.e, &out.nfindings);
		out.errors = cpl_engine_errors(a.e, &out.nerrors);
	}
	ans->body = cpl_report_admission(&out, &denied, &nw);
	ans->len = strlen(ans->body);
	ans->status = 200;
	ans->content_type = "application/json";
	atomic_fetch_add(denied ? &s->denied : &s->allowed, 1);
	free((char *)out.mutate_note);
	cpl_mutate_clear(&m);
	cpl_admit_clear(&a);
}

/* What /metrics reads from the audit, under its lock. */
struct scrape {
	struct serve *s;
	char *text;
};

/* Every owner's findings and budgets in one array each: shallow copies,
 * valid while the audit's lock is held. */
static void
gather(struct cpl_metrics_in *m, struct cpl_finding **fs,
       struct cpl_budget_entry **bs, const struct cpl_audit_snapshot *snap)
{
	size_t nf = 0, nb = 0, i, j, n;

	for (i = 0; i < snap->nengines; i++) {
		(void)cpl_engine_findings(snap->engines[i], &n);
		nf += n;
		(void)cpl_engine_budgets(snap->engines[i], &n);
		nb += n;
	}
	*fs = cpl_xcalloc(nf + 1, sizeof(**fs));
	*bs = cpl_xcalloc(nb + 1, sizeof(**bs));
	for (i = 0; i < snap->nengines; i++) {
		const struct cpl_finding *f =
			cpl_engine_findings(snap->engines[i], &n);
		const struct cpl_budget_entry *b;

		for (j = 0; j < n; j++)
			(*fs)[m->nfindings++] = f[j];
		b = cpl_engine_budgets(snap->engines[i], &n);
		for (j = 0; j < n; j++)
			(*bs)[m->nbudgets++] = b[j];
	}
	m->findings = *fs;
	m->budgets = *bs;
}

static void
render(void *ctx, const struct cpl_audit_snapshot *snap)
{
	struct scrape *sc = ctx;
	struct cpl_metrics_in m = { 0 };
	struct cpl_finding *fs = NULL;
	struct cpl_budget_entry *bs = NULL;

	m.audit = sc->s->audit != NULL;
	if (sc->s->leader) {
		/* Audit series from the Lease's holder alone. */
		m.audit = m.leader = snap != NULL;
		m.identity = cpl_leader_identity(sc->s->leader);
		m.lease = cpl_leader_lease(sc->s->leader);
	}
	if (snap) {
		gather(&m, &fs, &bs, snap);
		m.up = snap->ok;
		m.last_time = snap->last_time;
		m.last_duration = snap->last_duration;
		m.passes = snap->passes;
		m.failures = snap->failures;
		m.judgements = snap->judgements;
		m.events = snap->events;
		m.relists = snap->relists;
		m.owners = snap->owners;
	}
	m.allowed = atomic_load(&sc->s->allowed);
	m.denied = atomic_load(&sc->s->denied);
	m.invalid = atomic_load(&sc->s->invalid);
	sc->text = cpl_report_metrics(&m);
	free(fs);
	free(bs);
}

static void
metrics(struct serve *s, struct cpl_http_answer *ans)
{
	struct scrape sc = { s, NULL };

	if (s->leader)
		cpl_leader_with(s->leader, render, &sc);
	else if (s->audit)
		cpl_audit_with(s->audit, render, &sc);
	else
		render(&sc, NULL);
	ans->status = 200;
	ans->content_type = "text/plain; version=0.0.4; charset=utf-8";
	ans->body = sc.text;
	ans->len = strlen(sc.text);
}

static void
handle(void *ctx, const struct cpl_http_request *rq,
       struct cpl_http_answer *ans)
{
	struct serve *s = ctx;
	bool get = strcmp(rq->method, "GET") == 0 ||
		   strcmp(rq->method, "HEAD") == 0;

	if (strcmp(rq->url, "/validate") == 0) {
		if (strcmp(rq->method, "POST") != 0)
			say_text(ans, 405, "POST an AdmissionReview\n");
		else
			validate(s, rq, ans, false);
	} else if (strcmp(rq->url, "/mutate") == 0 && s->o->mutate) {
		if (strcmp(rq->method, "POST") != 0)
			say_text(ans, 405, "POST an AdmissionReview\n");
		else
			validate(s, rq, ans, true);
	} else if (strcmp(rq->url, "/metrics") == 0 && get) {
		metrics(s, ans);
	} else if (strcmp(rq->url, "/healthz") == 0 && get) {
		say_text(ans, 200, "ok\n");
	} else if (strcmp(rq->url, "/readyz") == 0 && get) {
		if (atomic_load(&s->ready))
			say_text(ans, 200, "ok\n");
		else
			say_text(ans, 503, "shutting down\n");
	} else if (strcmp(rq->url, "/metrics") == 0 ||
		   strcmp(rq->url, "/healthz") == 0 ||
		   strcmp(rq->url, "/readyz") == 0) {
		say_text(ans, 405, "GET only\n");
	} else {
		say_text(ans, 404, "not found: /validate, /metrics, "
			 "/healthz, /readyz\n");
	}
}

/* Says err (with its file, when it has one) and clears it. */
static void
say_error(struct cpl_error *err)
{
	char *line = cpl_error_format(err);

	cpl_cli_say("kubectl-cpulint serve: error: %s", line);
	free(line);
	cpl_error_clear(err);
}

/* Says when this replica takes or loses the Lease, and why the Lease
 * cannot be read or written (once per reason). */
static void
say_leader(struct cpl_leader *l, bool *held)
{
	char *why;
	bool now;

	if (l == NULL)
		return;
	now = cpl_leader_held(l);
	if (now != *held)
		cpl_cli_say("kubectl-cpulint serve: %s the Lease %s: %s",
			    now ? "holds" : "no longer holds",
			    cpl_leader_lease(l),
			    now ? "auditing" : "audit stopped");
	*held = now;
	why = cpl_leader_error(l);
	if (why)
		cpl_cli_say("kubectl-cpulint serve: error: leader election: "
			    "%s", why);
	free(why);
}

/* Waits for signals; reloads the pair every second and on SIGHUP. */
static void
wait_loop(struct cpl_httpd *h, struct cpl_leader *l, const sigset_t *set)
{
	struct timespec tick = { 1, 0 };
	struct cpl_error err = { 0 };
	bool held = false;
	int sig, rc;

	for (;;) {
		say_leader(l, &held);
		sig = sigtimedwait(set, NULL, &tick);
		if (sig == SIGTERM || sig == SIGINT) {
			cpl_cli_say("kubectl-cpulint serve: %s: stopping "
				    "(requests under way are answered)",
				    sig == SIGTERM ? "SIGTERM" : "SIGINT");
			return;
		}
		rc = cpl_httpd_reload(h, &err);
		if (rc > 0)
			cpl_cli_say("kubectl-cpulint serve: certificate and "
				    "key reloaded");
		if (rc < 0)
			say_error(&err);
	}
}

int
cpl_cli_serve(struct options *o)
{
	struct serve s = { .o = o };
	struct cpl_httpd_opts ho = { 0 };
	struct cpl_audit_opts ao = { 0 };
	struct cpl_httpd *h = NULL;
	struct cpl_error err = { 0 };
	const struct cpl_curlso *cu;
	sigset_t set;
	int status = EXIT_TROUBLE;

	if (o->tls_cert == NULL || o->tls_key == NULL) {
		cpl_cli_say("kubectl-cpulint serve: --tls-cert-file and "
			    "--tls-private-key-file are required (the API "
			    "server calls webhooks over HTTPS only; "
			    "deploy/make-cert.sh makes a pair)");
		return EXIT_TROUBLE;
	}
	/* A missing or invalid --config refuses to start: each review
	 * would otherwise fail on it. */
	if (o->config) {
		struct cpl_engine *e = cpl_engine_new();
		int rc = cpl_engine_load_config(e, o->config, &err);

		cpl_engine_free(e);
		if (rc < 0) {
			say_error(&err);
			return EXIT_TROUBLE;
		}
	}
	/* Signals are waited for here, never delivered to the threads. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	atomic_store(&s.ready, true);
	if (!o->no_audit) {
		if (cpl_curlso_load(&cu, &err) < 0)
			goto fail;
		ao.live = o->lo;
		/* nodes/proxy also allows exec: read only when asked. */
		ao.live.no_cadvisor = !o->node_proxy;
		if (ao.live.kube.namespace == NULL)
			ao.live.all_namespaces = true;
		ao.interval_s = o->audit_interval;
		if (o->leader_elect) {
			struct cpl_lease_opts lo = { 0 };

			lo.duration_s = o->lease_duration;
			if (cpl_leader_start(&s.leader, &lo, &ao, &err) < 0)
				goto fail;
		} else if (cpl_audit_start(&s.audit, &ao, &err) < 0) {
			goto fail;
		}
	}
	ho.listen = o->listen ? o->listen : "0.0.0.0:8443";
	ho.cert_file = o->tls_cert;
	ho.key_file = o->tls_key;
	ho.handler = handle;
	ho.ctx = &s;
	if (cpl_httpd_start(&h, &ho, &err) < 0)
		goto fail;
	cpl_cli_say("kubectl-cpulint serve: listening on port %u (/validate, "
		    "%s/metrics, /healthz, /readyz)%s", cpl_httpd_port(h),
		    !o->mutate ? "" : o->mutate_dry_run ?
		    "/mutate (dry run), " : "/mutate, ",
		    s.leader ? "; audit while holding the Lease" :
		    s.audit ? "" : "; audit off (--no-audit)");
	if (s.leader)
		cpl_cli_say("kubectl-cpulint serve: leader election on Lease "
			    "%s as %s", cpl_leader_lease(s.leader),
			    cpl_leader_identity(s.leader));
	wait_loop(h, s.leader, &set);
	atomic_store(&s.ready, false);
	cpl_httpd_stop(h, GRACE_MS);
	cpl_audit_stop(s.audit);
	cpl_leader_stop(s.leader);
	return EXIT_CLEAN;
fail:
	say_error(&err);
	cpl_audit_stop(s.audit);
	cpl_leader_stop(s.leader);
	return status;
}
