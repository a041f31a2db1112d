/*
 * config_int.h — the lint configuration (.cpulint.yaml):
 *
 *   rules:                 per rule (id or name): error, warning, note, off
 *     CPU102: off
 *   exclude:               globs against paths relative to the file
 *     - vendor/
 *   throttle-threshold: 10 percent of CFS periods (CPU501)
 *   ignore:                per-object ignores: rule (id or name) required,
 *     - rule: CPU102       kind (any case), name and namespace globs and a
 *       kind: Deployment   reason optional; an absent field matches all
 *       name: "tok-*"
 *
 * An unknown rule in `rules` is an error; in `ignore` it is a warning
 * (the entry silences nothing), kept with its position.
 *
 * Ownership: the caller owns the handle (cpl_config_free).
 */
#ifndef CPL_CONFIG_H
#define CPL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "model/finding.h"
#include "util.h"

struct cpl_config;
struct stat;

/* Defaults: every rule at its own severity, no excludes, 10%. */
struct cpl_config *cpl_config_new(void);
void cpl_config_free(struct cpl_config *c);	/* NULL-safe */

/* Loads path; -1 with err (file, line, column) on any problem. */
int cpl_config_load(struct cpl_config *c, const char *path,
		    struct cpl_error *err);
/* Loads the .cpulint.yaml of dir or its parents, stopping at the first
 * directory that holds .git: 1 when one was loaded, 0 none, -1 error. */
int cpl_config_find(struct cpl_config *c, const char *dir,
		    struct cpl_error *err);

/* The severity of rule (its index in cpl_rules_all()). */
enum cpl_severity cpl_config_severity(const struct cpl_config *c,
				      size_t rule);
/* Whether path is excluded (a glob where * crosses '/', matched against
 * the path relative to the file's directory or as given; a pattern
 * without '/' also against the base name; "dir/" a directory). */
bool cpl_config_excluded(const struct cpl_config *c, const char *path);
/*
 * Whether a configured ignore silences rule_id for the object kind/name/
 * namespace (each may be NULL: only a pattern-less field, or "*", matches
 * it).  *why (borrowed) is the entry's reason, else "ignored by
 * BASENAME:LINE" (the configuration file's base name and line).
 */
bool cpl_config_ignored(const struct cpl_config *c, const char *rule_id,
			const char *kind, const char *name,
			const char *namespace, const char **why);
/* Whether st (a stat() of a file) is a configuration file this read. */
bool cpl_config_read_file(const struct cpl_config *c, const struct stat *st);
/* Warnings of the loads so far (unknown rules in `ignore`); borrowed. */
const struct cpl_error *cpl_config_warnings(const struct cpl_config *c,
					    size_t *n);
/* The throttling threshold in percent. */
double cpl_config_threshold(const struct cpl_config *c);

#endif
