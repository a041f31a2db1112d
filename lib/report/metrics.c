/*
 * metrics.c — Prometheus text of the audit (see metrics.h).
 *
 * Invariant: a family's HELP and TYPE come once, before its samples, and
 * samples with the same labels are one line (findings are counted):
 * Prometheus refuses a scrape with a duplicate series.
 */
#include "report/metrics.h"

#include <stdlib.h>
#include <string.h>

#include "model/rule.h"
#include "report/escape.h"

/* Appends v escaped for a label value. */
static void
label(struct cpl_buf *b, const char *name, const char *v, size_t n)
{
	struct cpl_buf e;
	size_t i;

	cpl_buf_init(&e, 0);
	cpl_escape(&e, v ? v : "", v ? n : 0, 0);
	cpl_buf_addf(b, "%s=\"", name);
	for (i = 0; i < e.len; i++) {
		if (e.data[i] == '\\' || e.data[i] == '"')
			cpl_buf_addc(b, '\\');
		if (e.data[i] == '\n')
			cpl_buf_adds(b, "\\n");
		else
			cpl_buf_addc(b, e.data[i]);
	}
	cpl_buf_addc(b, '"');
	cpl_buf_free(&e);
}

/* namespace, owner_kind and owner of a live object name. */
static void
owner_labels(struct cpl_buf *b, const char *object)
{
	const char *o = object ? object : "";
	const char *s1 = strchr(o, '/');
	const char *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
	const char *end;

	if (s1 == NULL) {
		label(b, "namespace", "", 0);
		cpl_buf_addc(b, ',');
		label(b, "owner_kind", "", 0);
		cpl_buf_addc(b, ',');
		label(b, "owner", o, strlen(o));
		return;
	}
	if (s2 == NULL) {
		label(b, "namespace", "", 0);
		cpl_buf_addc(b, ',');
		label(b, "owner_kind", o, (size_t)(s1 - o));
		cpl_buf_addc(b, ',');
		label(b, "owner", s1 + 1, strlen(s1 + 1));
		return;
	}
	end = strchr(s2 + 1, '/');
	if (end == NULL)
		end = s2 + 1 + strlen(s2 + 1);
	label(b, "namespace", s1 + 1, (size_t)(s2 - s1 - 1));
	cpl_buf_addc(b, ',');
	label(b, "owner_kind", o, (size_t)(s1 - o));
	cpl_buf_addc(b, ',');
	label(b, "owner", s2 + 1, (size_t)(end - s2 - 1));
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
family(struct cpl_buf *b, const char *name, const char *type,
       const char *help)
{
	cpl_buf_addf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
		     type);
}

/* The findings, counted per label set. */
static void
findings(struct cpl_buf *b, const struct cpl_metrics_in *m)
{
	char **keys = cpl_xcalloc(m->nfindings + 1, sizeof(*keys));
	size_t n = 0, i, j;

	for (i = 0; i < m->nfindings; i++) {
		const struct cpl_finding *f = &m->findings[i];
		struct cpl_buf k;

		if (f->suppressed)
			continue;
		cpl_buf_init(&k, 0);
		owner_labels(&k, f->object);
		cpl_buf_addc(&k, ',');
		label(&k, "container", f->container,
		      f->container ? strlen(f->container) : 0);
		cpl_buf_addc(&k, ',');
		label(&k, "rule", f->rule->id, strlen(f->rule->id));
		cpl_buf_addc(&k, ',');
		label(&k, "severity", cpl_severity_name(f->severity),
		      strlen(cpl_severity_name(f->severity)));
		keys[n++] = cpl_buf_detach(&k);
	}
	qsort(keys, n, sizeof(*keys), cmp_str);
	family(b, "cpulint_findings", "gauge",
	       "Findings of kubectl-cpulint per owner and container.");
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && strcmp(keys[i], keys[j]) == 0; j++)
			;
		cpl_buf_addf(b, "cpulint_findings{%s} %zu\n", keys[i], j - i);
	}
	for (i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

/* Which figure of a budget entry a family shows. */
enum figure { F_CPUS, F_RANKS, F_THREADS, F_WORKERS, F_BUSY };

static bool
figure_of(double *v, const struct cpl_budget_entry *e, enum figure f)
{
	switch (f) {
	case F_CPUS:
		*v = e->cpu_limit >= 0 ? e->cpu_limit : e->cpu_request;
		return *v >= 0;
	case F_RANKS:
		*v = (double)e->ranks;
		return e->ranks > 0;
	case F_THREADS:
		*v = (double)e->threads;
		return e->threads >= 0;
	case F_WORKERS:
		*v = (double)e->workers;
		return e->workers >= 0;
	case F_BUSY:
		*v = (double)e->busy;
		return e->busy >= 0;
	}
	return false;
}

static void
budgets(struct cpl_buf *b, const struct cpl_metrics_in *m, const char *name,
	const char *help, enum figure f)
{
	char **keys = cpl_xcalloc(m->nbudgets + 1, sizeof(*keys));
	size_t n = 0, i;
	double v;

	for (i = 0; i < m->nbudgets; i++) {
		const struct cpl_budget_entry *e = &m->budgets[i];
		struct cpl_buf k;

		if (!figure_of(&v, e, f))
			continue;
		cpl_buf_init(&k, 0);
		owner_labels(&k, e->object);
		cpl_buf_addc(&k, ',');
		label(&k, "container", e->container,
		      e->container ? strlen(e->container) : 0);
		cpl_buf_addf(&k, "} %.17g", v);
		keys[n++] = cpl_buf_detach(&k);
	}
	qsort(keys, n, sizeof(*keys), cmp_str);
	family(b, name, "gauge", help);
	for (i = 0; i < n; i++) {
		/* One series per label set: the first figure wins. */
		size_t kl = (size_t)(strchr(keys[i], '}') - keys[i]);

		if (i > 0 && strncmp(keys[i], keys[i - 1], kl + 1) == 0)
			continue;
		cpl_buf_addf(b, "%s{%s\n", name, keys[i]);
	}
	for (i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

char *
cpl_report_metrics(const struct cpl_metrics_in *m)
{
	struct cpl_buf b;

	cpl_buf_init(&b, 0);
	findings(&b, m);
	budgets(&b, m, "cpulint_budget_cpus", "CPU budget of a training "
		"container: its CPU limit, else its request.", F_CPUS);
	budgets(&b, m, "cpulint_ranks", "Training processes (ranks) per "
		"container.", F_RANKS);
	budgets(&b, m, "cpulint_planned_threads", "Intra-op threads per "
		"rank, as the spec and code set them.", F_THREADS);
	budgets(&b, m, "cpulint_planned_workers", "DataLoader workers per "
		"rank, as the spec and code set them.", F_WORKERS);
	budgets(&b, m, "cpulint_busy_threads", "Ranks x (threads + "
		"workers): what competes for the budget.", F_BUSY);
	if (m->audit) {
		family(&b, "cpulint_audit_up", "gauge",
		       "1 when the audit's last read of the cluster (list or "
		       "watch) worked.");
		cpl_buf_addf(&b, "cpulint_audit_up %d\n", m->up ? 1 : 0);
		family(&b, "cpulint_last_audit_timestamp_seconds", "gauge",
		       "When the audit last read the cluster: a list, a watch "
		       "event or the end of a watch (Unix time).");
		cpl_buf_addf(&b, "cpulint_last_audit_timestamp_seconds "
			     "%.3f\n", m->last_time);
		family(&b, "cpulint_audit_duration_seconds", "gauge",
		       "How long the audit's last list of the Pods took.");
		cpl_buf_addf(&b, "cpulint_audit_duration_seconds %.3f\n",
			     m->last_duration);
		family(&b, "cpulint_audit_passes_total", "counter",
		       "Lists of the Pods done: the first, each resync, after "
		       "a 410 Gone or a failure.");
		cpl_buf_addf(&b, "cpulint_audit_passes_total %lu\n",
			     m->passes);
		family(&b, "cpulint_audit_failures_total", "counter",
		       "Lists and watches that could not read the cluster.");
		cpl_buf_addf(&b, "cpulint_audit_failures_total %lu\n",
			     m->failures);
		family(&b, "cpulint_audit_judgements_total", "counter",
		       "Owners judged: each when first listed and when one "
		       "of its Pods changed.");
		cpl_buf_addf(&b, "cpulint_audit_judgements_total %lu\n",
			     m->judgements);
		family(&b, "cpulint_audit_watch_events_total", "counter",
		       "Pod events received from the watch.");
		cpl_buf_addf(&b, "cpulint_audit_watch_events_total %lu\n",
			     m->events);
		family(&b, "cpulint_audit_relists_total", "counter",
		       "Lists made because a watch's resourceVersion was too "
		       "old (410 Gone).");
		cpl_buf_addf(&b, "cpulint_audit_relists_total %lu\n",
			     m->relists);
		family(&b, "cpulint_audit_owners", "gauge",
		       "Top owners of Pods the audit keeps a row for.");
		cpl_buf_addf(&b, "cpulint_audit_owners %zu\n", m->owners);
	}
	if (m->identity) {
		family(&b, "cpulint_audit_leader", "gauge",
		       "1 when this replica holds the Lease and runs the "
		       "audit, 0 when another does (--leader-elect).");
		cpl_buf_adds(&b, "cpulint_audit_leader{");
		label(&b, "identity", m->identity, strlen(m->identity));
		cpl_buf_addc(&b, ',');
		label(&b, "lease", m->lease ? m->lease : "",
		      m->lease ? strlen(m->lease) : 0);
		cpl_buf_addf(&b, "} %d\n", m->leader ? 1 : 0);
	}
	family(&b, "cpulint_admission_reviews_total", "counter",
	       "Admission reviews answered, by result.");
	cpl_buf_addf(&b, "cpulint_admission_reviews_total{result=\"allowed\"} "
		     "%lu\n", m->allowed);
	cpl_buf_addf(&b, "cpulint_admission_reviews_total{result=\"denied\"} "
		     "%lu\n", m->denied);
	cpl_buf_addf(&b, "cpulint_admission_reviews_total{result=\"invalid\"} "
		     "%lu\n", m->invalid);
	return cpl_buf_detach(&b);
}
