/*
 * config.c — .cpulint.yaml: per-rule severity or off, path excludes, the
 * throttling threshold; found from a directory upwards or named.
 *
 * Invariant: a configuration is only changed by a file that loads
 * without error, key by key in document order; an unknown key, rule or
 * severity is an error with its line and column.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rule.h"
#include "text/yamldoc.h"

struct cpl_config {
	enum cpl_severity *sev;	/* per rule, indexed like the registry */
	char **excludes;
	size_t nexcludes;
	char *config_dir;
	double throttle_threshold;
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

int
cpl_config_load(struct cpl_config *e, const char *path,
		struct cpl_error *err)
{
	struct cpl_ystream *s = NULL;
	const struct cpl_ynode *doc, *n;
	char *text = NULL, *slash;
	size_t len, i;
	int rc = -1;

	if (cpl_read_file(&text, &len, path, 1 << 20, err) < 0)
		goto out;
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
		    strcmp(key, "throttle-threshold") != 0)) {
			cpl_error_set(err, path, k->line, k->column,
				      "unknown configuration key \"%s\" "
				      "(expected rules, exclude, "
				      "throttle-threshold)", key ? key : "?");
			goto out;
		}
	}
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
	cpl_ystream_free(s);
	free(text);
	return rc;
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
