/*
 * config.c — .cpulint.yaml: per-rule severity or off, path excludes, the
 * throttling threshold; found from a directory upwards or named.
 *
 * Invariant: a configuration is only changed by a file that loads
 * without error, key by key in document order; an unknown key, rule or
 * severity is an error with its line and column.  An unknown rule in an
 * `ignore` entry is only a warning: the entry silences nothing.
 */
#include "run/config_int.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/rule.h"
#include "text/yamldoc.h"

/* One entry of `ignore`: NULL fields match everything. */
struct ignore {
	const struct cpl_rule *rule;	/* NULL: unknown (warned) */
	char *kind;
	char *name;
	char *namespace;
	char *why;
};

struct cpl_config {
	enum cpl_severity *sev;	/* per rule, indexed like the registry */
	char **excludes;
	size_t nexcludes;
	char *config_dir;
	double throttle_threshold;
	struct ignore *ignores;
	size_t nignores;
	struct cpl_error *warnings;
	size_t nwarnings;
	struct stat *read;		/* the files loaded (read, whatever
					 * they held): inputs of the run */
	size_t nread;
};

struct cpl_config *
cpl_config_new(void)
{
	struct cpl_config *e = cpl_xcalloc(1, sizeof(*e));
	const struct cpl_rule *const *rules;
	size_t n, i;

	rules = cpl_rules_all(&n);
	e->sev = cpl_xcalloc(n + 1, sizeof(*e->sev));
	for (i = 0; i < n; i++)
		e->sev[i] = rules[i]->severity;
	e->throttle_threshold = 10.0;
	return e;
}

void
cpl_config_free(struct cpl_config *e)
{
	size_t i;

	if (e == NULL)
		return;
	free(e->sev);
	for (i = 0; i < e->nexcludes; i++)
		free(e->excludes[i]);
	free(e->excludes);
	free(e->config_dir);
	free(e->read);
	for (i = 0; i < e->nignores; i++) {
		free(e->ignores[i].kind);
		free(e->ignores[i].name);
		free(e->ignores[i].namespace);
		free(e->ignores[i].why);
	}
	free(e->ignores);
	for (i = 0; i < e->nwarnings; i++)
		cpl_error_clear(&e->warnings[i]);
	free(e->warnings);
	free(e);
}

enum cpl_severity
cpl_config_severity(const struct cpl_config *e, size_t rule)
{
	return e->sev[rule];
}

double
cpl_config_threshold(const struct cpl_config *e)
{
	return e->throttle_threshold;
}


static int
config_rules(struct cpl_config *e, const struct cpl_ynode *rules,
	     const char *path, struct cpl_error *err)
{
	const struct cpl_rule *const *all;
	size_t n, i, j;

	if (!cpl_ynode_is_map(rules)) {
		cpl_error_set(err, path, rules->line, rules->column,
			      "`rules` must map rule ids to a severity "
			      "(error, warning, note, off)");
		return -1;
	}
	all = cpl_rules_all(&n);
	for (i = 0; i < rules->count; i++) {
		const struct cpl_ynode *k = rules->pairs[i].key;
		const struct cpl_ynode *v = rules->pairs[i].value;
		const struct cpl_rule *r = cpl_ynode_str(k) ?
					   cpl_rule_find(k->value) : NULL;
		const char *s = v->kind == CPL_Y_SCALAR ? v->value : NULL;
		enum cpl_severity sev;

		if (r == NULL) {
			cpl_error_set(err, path, k->line, k->column,
				      "unknown rule \"%s\" (see --list-rules)",
				      k->kind == CPL_Y_SCALAR ? k->value : "?");
			return -1;
		}
		/* YAML 1.1 reads a bare `off` as false. */
		if (cpl_ynode_bool(v) == 0)
			s = "off";
		if (cpl_severity_parse(&sev, s) < 0) {
			cpl_error_set(err, path, v->line, v->column,
				      "invalid severity for %s (use error, "
				      "warning, note or off)", r->id);
			return -1;
		}
		for (j = 0; j < n; j++)
			if (all[j] == r)
				e->sev[j] = sev;
	}
	return 0;
}

/* A string field of an ignore entry (NULL when absent); -1 when it is
 * not a string. */
static int
ignore_field(char **out, const struct cpl_ynode *entry, const char *key,
	     const char *path, struct cpl_error *err)
{
	const struct cpl_ynode *v = cpl_ynode_get(entry, key);

	*out = NULL;
	if (v == NULL || cpl_ynode_is_null(v))
		return 0;
	if (!cpl_ynode_is_scalar(v)) {
		cpl_error_set(err, path, v->line, v->column,
			      "ignore: %s must be a string", key);
		return -1;
	}
	*out = cpl_xstrdup(v->value);
	return 0;
}

/* Reads one `ignore` entry into a (zeroed) ignore. */
static int
config_ignore(struct cpl_config *e, struct ignore *ig,
	      const struct cpl_ynode *n, const char *path,
	      struct cpl_error *err)
{
	static const char *const keys[] = { "rule", "kind", "name",
					    "namespace", "reason" };
	char *rule = NULL, *reason = NULL;
	size_t i, j;
	int rc = -1;

	if (!cpl_ynode_is_map(n)) {
		cpl_error_set(err, path, n->line, n->column, "an ignore entry "
			      "must be a mapping (rule, kind, name, "
			      "namespace, reason)");
		return -1;
	}
	for (i = 0; i < n->count; i++) {
		const char *k = cpl_ynode_str(n->pairs[i].key);

		for (j = 0; k && j < CPL_ARRAY_LEN(keys); j++)
			if (strcmp(k, keys[j]) == 0)
				break;
		if (k == NULL || j == CPL_ARRAY_LEN(keys)) {
			cpl_error_set(err, path, n->pairs[i].key->line,
				      n->pairs[i].key->column, "unknown ignore "
				      "key \"%s\" (expected rule, kind, name, "
				      "namespace, reason)", k ? k : "?");
			return -1;
		}
	}
	if (ignore_field(&rule, n, "rule", path, err) < 0 ||
	    ignore_field(&ig->kind, n, "kind", path, err) < 0 ||
	    ignore_field(&ig->name, n, "name", path, err) < 0 ||
	    ignore_field(&ig->namespace, n, "namespace", path, err) < 0 ||
	    ignore_field(&reason, n, "reason", path, err) < 0)
		goto out;
	if (rule == NULL) {
		cpl_error_set(err, path, n->line, n->column, "an ignore entry "
			      "needs a rule");
		goto out;
	}
	ig->rule = cpl_rule_find(rule);
	if (ig->rule == NULL) {
		const struct cpl_ynode *r = cpl_ynode_get(n, "rule");

		e->warnings = cpl_xrealloc(e->warnings, (e->nwarnings + 1) *
					   sizeof(*e->warnings));
		memset(&e->warnings[e->nwarnings], 0, sizeof(*e->warnings));
		cpl_error_set(&e->warnings[e->nwarnings++], path, r->line,
			      r->column, "unknown rule \"%s\" in ignore "
			      "(see --list-rules); it silences nothing",
			      rule);
	}
	ig->why = reason && *reason ? cpl_xstrdup(reason) :
		  cpl_xasprintf("ignored by %s:%d", strrchr(path, '/') ?
				strrchr(path, '/') + 1 : path, n->line);
	rc = 0;
out:
	free(rule);
	free(reason);
	return rc;
}

/* Drops the ignores and warnings past the first n of each. */
static void
drop_ignores(struct cpl_config *e, size_t n, size_t nwarnings)
{
	for (; e->nignores > n; e->nignores--) {
		struct ignore *ig = &e->ignores[e->nignores - 1];

		free(ig->kind);
		free(ig->name);
		free(ig->namespace);
		free(ig->why);
	}
	for (; e->nwarnings > nwarnings; e->nwarnings--)
		cpl_error_clear(&e->warnings[e->nwarnings - 1]);
}

static int
config_ignores(struct cpl_config *e, const struct cpl_ynode *list,
	       const char *path, struct cpl_error *err)
{
	size_t i;

	if (!cpl_ynode_is_seq(list)) {
		cpl_error_set(err, path, list->line, list->column,
			      "`ignore` must be a list of {rule, kind, name, "
			      "namespace, reason}");
		return -1;
	}
	for (i = 0; i < list->count; i++) {
		struct ignore ig = { 0 };

		if (config_ignore(e, &ig, list->items[i], path, err) < 0) {
			free(ig.kind);
			free(ig.name);
			free(ig.namespace);
			return -1;
		}
		e->ignores = cpl_xrealloc(e->ignores, (e->nignores + 1) *
					  sizeof(*e->ignores));
		e->ignores[e->nignores++] = ig;
	}
	return 0;
}

/* A field pattern matches a value: absent patterns match everything, an
 * absent value only "*". */
static bool
field_matches(const char *pattern, const char *value, int flags)
{
	if (pattern == NULL)
		return true;
	return fnmatch(pattern, value ? value : "", flags) == 0;
}

bool
cpl_config_ignored(const struct cpl_config *e, const char *rule_id,
		   const char *kind, const char *name, const char *namespace,
		   const char **why)
{
	size_t i;

	for (i = 0; i < e->nignores; i++) {
		const struct ignore *ig = &e->ignores[i];

		if (ig->rule == NULL || strcmp(ig->rule->id, rule_id) != 0 ||
		    !field_matches(ig->kind, kind, FNM_CASEFOLD) ||
		    !field_matches(ig->name, name, 0) ||
		    !field_matches(ig->namespace, namespace, 0))
			continue;
		*why = ig->why;
		return true;
	}
	return false;
}

const struct cpl_error *
cpl_config_warnings(const struct cpl_config *e, size_t *n)
{
	*n = e->nwarnings;
	return e->warnings;
}

int
cpl_config_load(struct cpl_config *e, const char *path,
		struct cpl_error *err)
{
	struct cpl_ystream *s = NULL;
	const struct cpl_ynode *doc, *n;
	char *text = NULL, *slash;
	size_t len, i, nignores = e->nignores, nwarnings = e->nwarnings;
	int rc = -1;

	if (cpl_read_file(&text, &len, path, 1 << 20, err) < 0)
		goto out;
	e->read = cpl_xrealloc(e->read, (e->nread + 1) * sizeof(*e->read));
	if (stat(path, &e->read[e->nread]) == 0)
		e->nread++;
	if (cpl_yaml_parse(&s, path, text, len, err) < 0)
		goto out;
	doc = cpl_ystream_doc(s, 0);
	if (doc == NULL) {
		rc = 0;
		goto out;
	}
	if (!cpl_ynode_is_map(doc)) {
		cpl_error_set(err, path, doc->line, doc->column,
			      "configuration must be a mapping");
		goto out;
	}
	for (i = 0; i < doc->count; i++) {
		const struct cpl_ynode *k = doc->pairs[i].key;
		const char *key = cpl_ynode_str(k);

		if (key == NULL || (strcmp(key, "rules") != 0 &&
		    strcmp(key, "exclude") != 0 &&
		    strcmp(key, "ignore") != 0 &&
		    strcmp(key, "throttle-threshold") != 0)) {
			cpl_error_set(err, path, k->line, k->column,
				      "unknown configuration key \"%s\" "
				      "(expected rules, exclude, ignore, "
				      "throttle-threshold)", key ? key : "?");
			goto out;
		}
	}
	if ((n = cpl_ynode_get(doc, "ignore")) && !cpl_ynode_is_null(n) &&
	    config_ignores(e, n, path, err) < 0)
		goto out;
	if ((n = cpl_ynode_get(doc, "rules")) && !cpl_ynode_is_null(n) &&
	    config_rules(e, n, path, err) < 0)
		goto out;
	if ((n = cpl_ynode_get(doc, "exclude")) && !cpl_ynode_is_null(n)) {
		if (!cpl_ynode_is_seq(n)) {
			cpl_error_set(err, path, n->line, n->column,
				      "`exclude` must be a list of patterns");
			goto out;
		}
		for (i = 0; i < n->count; i++) {
			const char *p = cpl_ynode_str(n->items[i]);

			if (p == NULL) {
				cpl_error_set(err, path, n->items[i]->line,
					      n->items[i]->column,
					      "exclude pattern must be a "
					      "string");
				goto out;
			}
			e->excludes = cpl_xrealloc(e->excludes,
				(e->nexcludes + 1) * sizeof(*e->excludes));
			e->excludes[e->nexcludes++] = cpl_xstrdup(p);
		}
	}
	if ((n = cpl_ynode_get(doc, "throttle-threshold")) != NULL) {
		const char *v = cpl_ynode_str(n);
		char *end = NULL;
		double d = v ? strtod(v, &end) : -1;

		if (v == NULL || *end != '\0' || d <= 0 || d > 100) {
			cpl_error_set(err, path, n->line, n->column,
				      "throttle-threshold must be a percentage"
				      " between 0 and 100");
			goto out;
		}
		e->throttle_threshold = d;
	}
	free(e->config_dir);
	slash = strrchr(path, '/');
	e->config_dir = slash ? cpl_xstrndup(path, (size_t)(slash - path))
			      : cpl_xstrdup(".");
	rc = 0;
out:
	if (rc < 0)	/* a file with an error adds no ignore, no warning */
		drop_ignores(e, nignores, nwarnings);
	cpl_ystream_free(s);
	free(text);
	return rc;
}

bool
cpl_config_read_file(const struct cpl_config *e, const struct stat *st)
{
	size_t i;

	for (i = 0; i < e->nread; i++)
		if (e->read[i].st_dev == st->st_dev &&
		    e->read[i].st_ino == st->st_ino)
			return true;
	return false;
}

int
cpl_config_find(struct cpl_config *e, const char *dir,
		struct cpl_error *err)
{
	char *d = realpath(dir, NULL);
	int rc = 0;

	while (d != NULL) {
		char *cfg = cpl_xasprintf("%s/.cpulint.yaml", d);
		char *git = cpl_xasprintf("%s/.git", d);
		char *slash;
		bool stop = access(git, F_OK) == 0;

		if (access(cfg, F_OK) == 0) {
			rc = cpl_config_load(e, cfg, err) < 0 ? -1 : 1;
			stop = true;
		}
		free(cfg);
		free(git);
		slash = strrchr(d, '/');
		if (stop || slash == NULL || slash == d) {
			free(d);
			break;
		}
		*slash = '\0';
	}
	return rc;
}

/* A path matches an exclude pattern: a glob (where * crosses /) matched
 * against the path relative to the config's directory or the path as
 * given, or a directory prefix when the pattern ends in '/'. */
bool
cpl_config_excluded(const struct cpl_config *e, const char *path)
{
	const char *rel = path;
	size_t i, n;

	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	if (e->config_dir && strcmp(e->config_dir, ".") != 0) {
		n = strlen(e->config_dir);
		if (strncmp(path, e->config_dir, n) == 0 && path[n] == '/')
			rel = path + n + 1;
	}
	for (i = 0; i < e->nexcludes; i++) {
		const char *p = e->excludes[i];

		n = strlen(p);
		if (n && p[n - 1] == '/' &&
		    (strncmp(rel, p, n) == 0 || strstr(rel, p) != NULL))
			return true;
		if (fnmatch(p, rel, 0) == 0)
			return true;
		if (strchr(p, '/') == NULL) {
			const char *base = strrchr(rel, '/');

			if (fnmatch(p, base ? base + 1 : rel, 0) == 0)
				return true;
		}
	}
	return false;
}
