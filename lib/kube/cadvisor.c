/*
 * cadvisor.c — a one-pass reader of the Prometheus text format that keeps
 * only the container metrics live mode reads (CFS counters, CPU time,
 * threads), summed per (namespace, pod, container), and the node's CPUs.
 *
 * Invariant: each input byte is looked at a bounded number of times: a
 * line is skipped after its metric name unless it is one of the two
 * counters; label sets are hashed (FNV-1a, open addressing, load <= 1/2)
 * so summing is O(1) per sample.
 *
 * Ownership: the handle owns the entries and their strings.
 */
#include "kube/cadvisor.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The series read; every other metric is skipped unparsed. */
enum metric {
	M_NONE,
	M_THROTTLED,		/* container_cpu_cfs_throttled_periods_total */
	M_PERIODS,		/* container_cpu_cfs_periods_total */
	M_THREADS,		/* container_threads (gauge) */
	M_THREADS_MAX,		/* container_threads_max (gauge) */
	M_USAGE,		/* container_cpu_usage_seconds_total */
	M_MACHINE_CPUS,		/* machine_cpu_cores (the node's) */
};

static const struct {
	const char *name;
	enum metric id;
} metrics[] = {
	{ "container_cpu_cfs_throttled_periods_total", M_THROTTLED },
	{ "container_cpu_cfs_periods_total", M_PERIODS },
	{ "container_threads", M_THREADS },
	{ "container_threads_max", M_THREADS_MAX },
	{ "container_cpu_usage_seconds_total", M_USAGE },
	{ "machine_cpu_cores", M_MACHINE_CPUS },
};

/* One container's entry: its counters and the strings they borrow. */
struct entry {
	struct cpl_cadvisor_counters c;
	char *key;			/* ns \0 pod \0 container \0 */
	bool usage_total;		/* a cpu="total" usage series seen */
	size_t keylen;
	uint64_t hash;
};

struct cpl_cadvisor {
	struct entry *entries;
	size_t n, cap;
	size_t *slots;			/* index + 1; 0 is empty */
	size_t nslots;			/* a power of two */
	double machine_cpus;		/* machine_cpu_cores; 0 unknown */
};

/* A cursor over the input, for error positions. */
struct cursor {
	const char *p;
	const char *end;
	const char *line_start;
	int line;
	const char *origin;
	struct cpl_error *err;
};

/* Rebuilds the slot table with nslots (a power of two) slots. */
static void
rehash(struct cpl_cadvisor *m, size_t nslots)
{
	size_t i;

	free(m->slots);
	m->slots = cpl_xcalloc(nslots, sizeof(*m->slots));
	m->nslots = nslots;
	for (i = 0; i < m->n; i++) {
		size_t s = m->entries[i].hash & (nslots - 1);

		while (m->slots[s])
			s = (s + 1) & (nslots - 1);
		m->slots[s] = i + 1;
	}
}

/* The slot holding key, or the empty slot where it would go. */
static size_t
find_slot(const struct cpl_cadvisor *m, const char *key, size_t keylen,
	  uint64_t h)
{
	size_t s;

	for (s = h & (m->nslots - 1); m->slots[s];
	     s = (s + 1) & (m->nslots - 1)) {
		const struct entry *e = &m->entries[m->slots[s] - 1];

		if (e->hash == h && e->keylen == keylen &&
		    memcmp(e->key, key, keylen) == 0)
			break;
	}
	return s;
}

/* The entry for key, made when missing. */
static struct entry *
lookup(struct cpl_cadvisor *m, const char *key, size_t keylen)
{
	uint64_t h = cpl_hash(key, keylen);
	struct entry *e;
	size_t s;

	if (m->nslots == 0)
		rehash(m, 64);
	s = find_slot(m, key, keylen, h);
	if (m->slots[s])
		return &m->entries[m->slots[s] - 1];
	CPL_GROW(m->entries, m->cap, m->n + 1);
	e = &m->entries[m->n];
	memset(e, 0, sizeof(*e));
	e->key = cpl_xmalloc(keylen);
	memcpy(e->key, key, keylen);
	e->keylen = keylen;
	e->hash = h;
	e->c.namespace = e->key;
	e->c.pod = e->key + strlen(e->key) + 1;
	e->c.container = e->c.pod + strlen(e->c.pod) + 1;
	m->slots[s] = ++m->n;
	if (m->n * 2 > m->nslots)
		rehash(m, m->nslots * 2);
	return &m->entries[m->n - 1];
}

/* Fills err for a malformed sample at the cursor; returns -1. */
static int
bad(struct cursor *cur, const char *what)
{
	cpl_error_set(cur->err, cur->origin, cur->line,
		      (int)(cur->p - cur->line_start) + 1,
		      "malformed metrics sample: %s", what);
	return -1;
}

/* Skips spaces and tabs. */
static void
skip_blanks(struct cursor *cur)
{
	while (cur->p < cur->end && (*cur->p == ' ' || *cur->p == '\t'))
		cur->p++;
}

/* Reads a quoted label value (escapes \\ \" \n) into out. */
static int
read_value(struct cursor *cur, struct cpl_buf *out)
{
	cpl_buf_reset(out);
	if (cur->p >= cur->end || *cur->p != '"')
		return bad(cur, "expected '\"' to open a label value");
	cur->p++;
	while (cur->p < cur->end && *cur->p != '"' && *cur->p != '\n') {
		char ch = *cur->p++;

		if (ch == '\\') {
			if (cur->p >= cur->end || *cur->p == '\n')
				return bad(cur, "escape at the end of a line");
			ch = *cur->p++;
			if (ch == 'n') {
				ch = '\n';
			} else if (ch != '\\' && ch != '"') {
				cur->p -= 2;	/* point at the backslash */
				return bad(cur, "unknown escape in a label "
					   "value");
			}
		}
		cpl_buf_addc(out, ch);
	}
	if (cur->p >= cur->end || *cur->p != '"')
		return bad(cur, "unterminated label value");
	cur->p++;
	return 0;
}

/* A character of a label name (first: no digit). */
static bool
name_char(char ch, bool first)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       ch == '_' || (!first && ch >= '0' && ch <= '9');
}

/* The label buffers of one sample. */
struct labels {
	struct cpl_buf ns, pod, pod_name, container, container_name, cpu,
		       scratch;
	bool has_ns, has_pod, has_pod_name, has_container,
	     has_container_name, has_cpu;
};

/* Parses "{k="v",...}" keeping the labels we need. */
static int
read_labels(struct cursor *cur, struct labels *l)
{
	l->has_ns = l->has_pod = l->has_pod_name = false;
	l->has_container = l->has_container_name = l->has_cpu = false;
	cur->p++;	/* '{' */
	for (;;) {
		const char *name;
		size_t n;
		struct cpl_buf *dst;
		bool *flag;

		skip_blanks(cur);
		if (cur->p < cur->end && *cur->p == '}') {
			cur->p++;
			return 0;
		}
		name = cur->p;
		while (cur->p < cur->end && name_char(*cur->p, cur->p == name))
			cur->p++;
		n = (size_t)(cur->p - name);
		if (n == 0)
			return bad(cur, "expected a label name");
		skip_blanks(cur);
		if (cur->p >= cur->end || *cur->p != '=')
			return bad(cur, "expected '=' after a label name");
		cur->p++;
		skip_blanks(cur);
#define IS(s) (n == strlen(s) && memcmp(name, s, n) == 0)
		if (IS("namespace")) {
			dst = &l->ns, flag = &l->has_ns;
		} else if (IS("pod")) {
			dst = &l->pod, flag = &l->has_pod;
		} else if (IS("pod_name")) {
			dst = &l->pod_name, flag = &l->has_pod_name;
		} else if (IS("container")) {
			dst = &l->container, flag = &l->has_container;
		} else if (IS("container_name")) {
			dst = &l->container_name;
			flag = &l->has_container_name;
		} else if (IS("cpu")) {
			dst = &l->cpu, flag = &l->has_cpu;
		} else {
			dst = &l->scratch, flag = NULL;
		}
#undef IS
		if (read_value(cur, dst) < 0)
			return -1;
		if (flag)
			*flag = true;
		skip_blanks(cur);
		if (cur->p < cur->end && *cur->p == ',') {
			cur->p++;
			continue;
		}
		if (cur->p < cur->end && *cur->p == '}') {
			cur->p++;
			return 0;
		}
		return bad(cur, "expected ',' or '}' after a label");
	}
}

/* The sample value, then an optional integer timestamp, then the end. */
static int
read_number(struct cursor *cur, double *v)
{
	char tmp[64];
	const char *start;
	size_t n;
	char *end;

	skip_blanks(cur);
	start = cur->p;
	while (cur->p < cur->end && *cur->p != ' ' && *cur->p != '\t' &&
	       *cur->p != '\n' && *cur->p != '\r')
		cur->p++;
	n = (size_t)(cur->p - start);
	if (n == 0 || n >= sizeof(tmp)) {
		cur->p = start;
		return bad(cur, "expected a number");
	}
	memcpy(tmp, start, n);
	tmp[n] = '\0';
	errno = 0;
	*v = strtod(tmp, &end);
	if (*end != '\0' || end == tmp) {
		cur->p = start;
		return bad(cur, "expected a number");
	}
	skip_blanks(cur);
	if (cur->p < cur->end && *cur->p != '\n' && *cur->p != '\r') {
		/* a timestamp: an integer in milliseconds */
		start = cur->p;
		if (*cur->p == '-' || *cur->p == '+')
			cur->p++;
		while (cur->p < cur->end && *cur->p >= '0' && *cur->p <= '9')
			cur->p++;
		if (cur->p == start) {
			return bad(cur, "expected a timestamp or the end of "
				   "the line");
		}
		skip_blanks(cur);
	}
	if (cur->p < cur->end && *cur->p == '\r')
		cur->p++;
	if (cur->p < cur->end && *cur->p != '\n')
		return bad(cur, "unexpected text after the sample");
	return 0;
}

/*
 * Adds one sample of metric id to its container.  CPU usage comes as one
 * cpu="total" series (kubelets since 1.x), or per CPU on old cAdvisors
 * with per-CPU accounting: the total wins when both are there.
 */
static void
add_sample(struct cpl_cadvisor *m, struct labels *l, enum metric id,
	   double v)
{
	const struct cpl_buf *pod = l->has_pod ? &l->pod : &l->pod_name;
	const struct cpl_buf *ctr = l->has_container ? &l->container
			: l->has_container_name ? &l->container_name : NULL;
	struct cpl_buf key;
	struct entry *e;

	static const unsigned bad_bit[] = {
		[M_THROTTLED] = CPL_CADVISOR_BAD_THROTTLED,
		[M_PERIODS] = CPL_CADVISOR_BAD_PERIODS,
		[M_THREADS] = CPL_CADVISOR_BAD_THREADS,
		[M_THREADS_MAX] = CPL_CADVISOR_BAD_THREADS_MAX,
		[M_USAGE] = CPL_CADVISOR_BAD_CPU,
	};

	if (id == M_MACHINE_CPUS) {	/* one per node, no pod labels */
		if (isfinite(v) && v >= 1)
			m->machine_cpus = v;
		return;
	}
	if (!l->has_ns || !(l->has_pod || l->has_pod_name) ||
	    cpl_buf_str(pod)[0] == '\0')
		return;
	cpl_buf_init(&key, 0);
	cpl_buf_add(&key, cpl_buf_str(&l->ns),
		    strlen(cpl_buf_str(&l->ns)) + 1);
	cpl_buf_add(&key, cpl_buf_str(pod), strlen(cpl_buf_str(pod)) + 1);
	cpl_buf_adds(&key, ctr ? cpl_buf_str(ctr) : "");
	cpl_buf_addc(&key, '\0');
	e = lookup(m, key.data, key.len);
	cpl_buf_free(&key);
	if (!isfinite(v) || v < 0) {
		/* Left out of the sum, and the metric is not to be trusted
		 * for this container. */
		e->c.bad |= bad_bit[id];
		return;
	}
	switch (id) {
	case M_THROTTLED:
		e->c.throttled_periods += v;
		e->c.has_throttled = true;
		break;
	case M_PERIODS:
		e->c.periods += v;
		e->c.has_periods = true;
		break;
	case M_THREADS:
		e->c.threads += v;
		e->c.has_threads = true;
		break;
	case M_THREADS_MAX:
		if (!e->c.has_threads_max || v < e->c.threads_max)
			e->c.threads_max = v;
		e->c.has_threads_max = true;
		break;
	case M_USAGE:
		if (!l->has_cpu || strcmp(cpl_buf_str(&l->cpu), "total") == 0) {
			if (!e->usage_total)
				e->c.cpu_seconds = 0;
			e->usage_total = true;
			e->c.cpu_seconds += v;
		} else if (!e->usage_total) {
			e->c.cpu_seconds += v;
		}
		e->c.has_cpu_seconds = true;
		break;
	case M_NONE:
	case M_MACHINE_CPUS:
		break;
	}
}

/* Which metric the line starts with. */
static enum metric
metric_of(const char *p, const char *end, size_t *len)
{
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(metrics); i++) {
		size_t n = strlen(metrics[i].name);

		if ((size_t)(end - p) > n &&
		    memcmp(p, metrics[i].name, n) == 0 &&
		    (p[n] == '{' || p[n] == ' ' || p[n] == '\t')) {
			*len = n;
			return metrics[i].id;
		}
	}
	return M_NONE;
}

int
cpl_cadvisor_parse(struct cpl_cadvisor **out, const char *text, size_t len,
		   const char *origin, struct cpl_error *err)
{
	struct cpl_cadvisor *m = cpl_xcalloc(1, sizeof(*m));
	struct cursor cur = { text, text + len, text, 1, origin, err };
	struct labels l;
	int rc = -1;

	*out = NULL;
	memset(&l, 0, sizeof(l));
	while (cur.p < cur.end) {
		const char *nl = memchr(cur.p, '\n', (size_t)(cur.end - cur.p));
		const char *eol = nl ? nl : cur.end;
		enum metric id;
		size_t n = 0;
		double v;

		cur.line_start = cur.p;
		skip_blanks(&cur);
		id = metric_of(cur.p, eol, &n);
		if (id != M_NONE) {
			cur.p += n;
			skip_blanks(&cur);
			if (cur.p < eol && *cur.p == '{') {
				if (read_labels(&cur, &l) < 0)
					goto out;
			} else {
				l.has_ns = l.has_pod = l.has_pod_name = false;
				l.has_container = l.has_container_name = false;
				l.has_cpu = false;
			}
			if (read_number(&cur, &v) < 0)
				goto out;
			add_sample(m, &l, id, v);
		}
		cur.p = nl ? nl + 1 : cur.end;
		cur.line++;
	}
	*out = m;
	m = NULL;
	rc = 0;
out:
	cpl_buf_free(&l.ns);
	cpl_buf_free(&l.pod);
	cpl_buf_free(&l.pod_name);
	cpl_buf_free(&l.container);
	cpl_buf_free(&l.container_name);
	cpl_buf_free(&l.cpu);
	cpl_buf_free(&l.scratch);
	cpl_cadvisor_free(m);
	return rc;
}

void
cpl_cadvisor_free(struct cpl_cadvisor *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++)
		free(m->entries[i].key);
	free(m->entries);
	free(m->slots);
	free(m);
}

const struct cpl_cadvisor_counters *
cpl_cadvisor_find(const struct cpl_cadvisor *m, const char *namespace,
		  const char *pod, const char *container)
{
	const struct cpl_cadvisor_counters *found = NULL;
	struct cpl_buf key;
	size_t s;

	if (m->nslots == 0)
		return NULL;
	cpl_buf_init(&key, 0);
	cpl_buf_add(&key, namespace, strlen(namespace) + 1);
	cpl_buf_add(&key, pod, strlen(pod) + 1);
	cpl_buf_add(&key, container, strlen(container) + 1);
	s = find_slot(m, key.data, key.len, cpl_hash(key.data, key.len));
	if (m->slots[s])
		found = &m->entries[m->slots[s] - 1].c;
	cpl_buf_free(&key);
	return found;
}

double
cpl_cadvisor_machine_cpus(const struct cpl_cadvisor *m)
{
	return m->machine_cpus;
}

size_t
cpl_cadvisor_count(const struct cpl_cadvisor *m)
{
	return m->n;
}

const struct cpl_cadvisor_counters *
cpl_cadvisor_at(const struct cpl_cadvisor *m, size_t i)
{
	return i < m->n ? &m->entries[i].c : NULL;
}
