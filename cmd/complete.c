/*
 * complete.c — shell completion, in the format kubectl and cobra's shell
 * scripts read: one candidate per line (a tab, then a description, is
 * allowed), then ":DIRECTIVE" (a bit set: 1 error, 2 no space after the
 * word, 4 no file names, 8 only files with the extensions given as
 * candidates, 16 only directories).
 *
 * kubectl (1.26 and later) runs `kubectl_complete-cpulint ARGS... WORD`
 * for `kubectl cpulint ARGS... WORD<TAB>`; that name is a link to this
 * program, and main() sends it here.  The bash and zsh scripts of
 * completion/ run `kubectl-cpulint __complete ARGS... WORD` instead.
 *
 * What is offered comes from the flag table (flags and what their values
 * are), the rule registry (--explain), the reporters (-o) and, for live
 * targets (pod/NAME, TYPE NAME, -n NS), the cluster the words already
 * typed point at, read with the live client under a short timeout.
 * Nothing is ever printed on stderr: a failed lookup offers nothing.
 * A name that cannot be shown as it is (report/escape.h) is not offered.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "live/live.h"
#include "model/rule.h"
#include "report/escape.h"
#include "report/report.h"
#include "util.h"

/* cobra's ShellCompDirective bits. */
enum {
	DIR_DEFAULT = 0,	/* the shell may offer file names */
	DIR_NOSPACE = 2,
	DIR_NOFILE = 4,
};

/* What the words typed before the cursor say. */
struct typed {
	struct cpl_live_opts lo;	/* -n, --context, --kubeconfig ... */
	const char *first;		/* the first positional, or NULL */
	size_t npositional;
	const struct cli_flag *pending;	/* the last word is this flag, and
					 * the cursor is on its value */
};

/* Whether a name from the cluster or the disk may be offered: one that
 * is not shown as it is (a control character, a C1 control, a byte that
 * is not UTF-8: report/escape.h) would break the line format or drive
 * the terminal, and escaped it would complete another word, so it is
 * left out. */
static bool
offerable(const char *s)
{
	return cpl_escape_plain(s, strlen(s));
}

/* Prints prefix + candidate (and desc, when not NULL) if it starts with
 * cur, the word under the cursor, and can be shown as it is. */
static void
offer(const char *cur, const char *prefix, const char *candidate,
      const char *desc)
{
	size_t np = strlen(prefix), nc = strlen(cur);

	if (!offerable(prefix) || !offerable(candidate))
		return;
	if (nc <= np ? strncmp(prefix, cur, nc) != 0 :
	    strncmp(cur, prefix, np) != 0 ||
	    strncmp(cur + np, candidate, nc - np) != 0)
		return;
	if (desc)
		printf("%s%s\t%s\n", prefix, candidate, desc);
	else
		printf("%s%s\n", prefix, candidate);
}

/* Records a flag's value when it matters for completion. */
static void
take_value(struct typed *t, const struct cli_flag *f, const char *v)
{
	switch (f->id) {
	case OPT_KUBECONFIG:
		t->lo.kube.kubeconfig = v;
		break;
	case OPT_CONTEXT:
		t->lo.kube.context = v;
		break;
	case OPT_CLUSTER:
		t->lo.kube.cluster = v;
		break;
	case OPT_USER:
		t->lo.kube.user = v;
		break;
	case 'n':
		t->lo.kube.namespace = v;
		break;
	case OPT_REQUEST_TIMEOUT:
		t->lo.kube.request_timeout = v;
		break;
	default:
		break;
	}
}

/* Records a flag without a value. */
static void
take_switch(struct typed *t, const struct cli_flag *f)
{
	if (f->id == 'A')
		t->lo.all_namespaces = true;
	else if (f->id == OPT_INSECURE)
		t->lo.kube.insecure_skip_tls_verify = true;
}

/* Reads the words before the cursor. */
static void
read_words(struct typed *t, int n, char **w)
{
	bool flags_done = false;
	int i;

	for (i = 0; i < n; i++) {
		const char *a = w[i];
		const struct cli_flag *f;

		t->pending = NULL;
		if (flags_done || a[0] != '-' || a[1] == '\0') {
			if (t->npositional++ == 0)
				t->first = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			flags_done = true;
		} else if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');

			f = cpl_cli_flag_long(a + 2, eq ? (size_t)(eq - a - 2) :
					      strlen(a + 2));
			if (f == NULL)
				continue;
			if (f->arg == NULL)
				take_switch(t, f);
			else if (eq)
				take_value(t, f, eq + 1);
			else if (i + 1 < n)
				take_value(t, f, w[++i]);
			else
				t->pending = f;
		} else {
			for (a++; *a; a++) {
				f = cpl_cli_flag_short(*a);
				if (f == NULL)
					break;
				if (f->arg == NULL) {
					take_switch(t, f);
					continue;
				}
				if (a[1])
					take_value(t, f, a[1] == '=' ? a + 2 :
						   a + 1);
				else if (i + 1 < n)
					take_value(t, f, w[++i]);
				else
					t->pending = f;
				break;
			}
		}
	}
}

/* Offers the names of the objects of type in the cluster. */
static int
offer_names(const struct typed *t, const char *cur, const char *prefix,
	    const char *type)
{
	struct cpl_error err = { 0 };
	char **names = NULL;
	size_t n = 0, i;

	if (cpl_live_names(&names, &n, type, &t->lo, &err) == 0)
		for (i = 0; i < n; i++)
			offer(cur, prefix, names[i], NULL);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	cpl_error_clear(&err);
	return DIR_NOFILE;
}

/* Offers the values of flag f (after prefix, e.g. "--output="). */
static int
offer_values(const struct typed *t, const struct cli_flag *f,
	     const char *cur, const char *prefix)
{
	static const char *const severities[] = { "error", "warning", "note",
						  "none" };
	static const char *const colors[] = { "auto", "always", "never" };
	const struct cpl_rule *const *rules;
	const struct cpl_reporter *rep;
	size_t i, n;

	switch (f->value) {
	case CLI_FORMAT:
		for (i = 0; (rep = cpl_reporter_at(i)) != NULL; i++)
			offer(cur, prefix, rep->name, NULL);
		break;
	case CLI_RULE:
		rules = cpl_rules_all(&n);
		for (i = 0; i < n; i++)
			offer(cur, prefix, rules[i]->id, rules[i]->name);
		/* names too, once the word is begun in lower case */
		for (i = 0; i < n && strlen(cur) > strlen(prefix); i++)
			offer(cur, prefix, rules[i]->name, rules[i]->id);
		break;
	case CLI_SEVERITY:
		for (i = 0; i < CPL_ARRAY_LEN(severities); i++)
			offer(cur, prefix, severities[i], NULL);
		break;
	case CLI_COLOR:
		for (i = 0; i < CPL_ARRAY_LEN(colors); i++)
			offer(cur, prefix, colors[i], NULL);
		break;
	case CLI_NAMESPACE:
		return offer_names(t, cur, prefix, "namespace");
	case CLI_FILE:
		return DIR_DEFAULT;
	case CLI_NONE:
	case CLI_TEXT:
		break;
	}
	return DIR_NOFILE;
}

/* The first line of a flag's help, for the candidate's description. */
static char *
first_line(const char *help)
{
	return cpl_xstrndup(help, strcspn(help, "\n"));
}

/* Offers the flags: long ones, and short ones unless cur is "--...". */
static int
offer_flags(const char *cur)
{
	size_t n, i;
	const struct cli_flag *f = cpl_cli_flags(&n);

	for (i = 0; i < n; i++) {
		char *desc = first_line(f[i].help);
		char shortname[3] = { '-', f[i].letter, '\0' };

		if (f[i].letter && cur[1] != '-')
			offer(cur, "", shortname, desc);
		offer(cur, "--", f[i].name, desc);
		free(desc);
	}
	return DIR_NOFILE;
}

/*
 * Offers the files and directories beside cur that a lint would read
 * (YAML, JSON, Python; directories with a slash), for the case where
 * resource types are offered too and the shell would not list files.
 */
static void
offer_files(const char *cur)
{
	const char *slash = strrchr(cur, '/');
	char *dir = slash ? cpl_xstrndup(cur, (size_t)(slash - cur + 1)) :
			    cpl_xstrdup("");
	const char *base = slash ? slash + 1 : cur;
	DIR *d = opendir(*dir ? dir : ".");
	struct dirent *de;

	while (d && (de = readdir(d)) != NULL) {
		char *path;
		struct stat st;

		if (de->d_name[0] == '.' ||
		    strncmp(de->d_name, base, strlen(base)) != 0 ||
		    !offerable(dir) || !offerable(de->d_name))
			continue;
		path = cpl_xasprintf("%s%s", dir, de->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			printf("%s/\n", path);
		else if (cpl_str_ends(path, ".yaml") ||
			 cpl_str_ends(path, ".yml") ||
			 cpl_str_ends(path, ".json") ||
			 cpl_str_ends(path, ".py"))
			printf("%s\n", path);
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
}

/* Offers what a positional word may be: TYPE/NAME, a NAME, a path. */
static int
offer_positional(const struct typed *t, const char *cur)
{
	const char *slash = strchr(cur, '/');
	struct stat st;
	bool any = false;
	const char *label;
	size_t i;

	if (slash) {
		char *type = cpl_xstrndup(cur, (size_t)(slash - cur));
		char *prefix = cpl_xasprintf("%s/", type);
		int dir = DIR_DEFAULT;

		if (cpl_live_is_type(type) && stat(type, &st) != 0)
			dir = offer_names(t, cur, prefix, type);
		free(prefix);
		free(type);
		return dir;
	}
	/* kubectl's TYPE NAME...: after a type come its names. */
	if (t->first && strchr(t->first, '/') == NULL &&
	    cpl_live_is_type(t->first) && stat(t->first, &st) != 0)
		return offer_names(t, cur, "", t->first);
	if (t->npositional > 0)
		return DIR_DEFAULT;
	for (i = 0; (label = cpl_live_type_label(i)) != NULL; i++)
		any |= strncmp(label, cur, strlen(cur)) == 0;
	if (!any)
		return DIR_DEFAULT;
	for (i = 0; (label = cpl_live_type_label(i)) != NULL; i++) {
		char *word = cpl_xasprintf("%s/", label);

		offer(cur, "", word, NULL);
		free(word);
	}
	offer_files(cur);
	return DIR_NOSPACE;
}

int
cpl_cli_complete(int nwords, char **words)
{
	struct typed t = { 0 };
	const char *cur = nwords > 0 ? words[nwords - 1] : "";
	const struct cli_flag *f;
	int dir;

	read_words(&t, nwords > 0 ? nwords - 1 : 0, words);
	if (t.pending) {
		dir = offer_values(&t, t.pending, cur, "");
	} else if (cur[0] == '-' && cur[1] == '-' && strchr(cur, '=')) {
		const char *eq = strchr(cur, '=');
		char *prefix = cpl_xstrndup(cur, (size_t)(eq - cur + 1));

		f = cpl_cli_flag_long(cur + 2, (size_t)(eq - cur - 2));
		dir = f && f->arg ? offer_values(&t, f, cur, prefix) :
		      DIR_NOFILE;
		free(prefix);
	} else if (cur[0] == '-' && cur[1] != '-' && cur[1] && cur[2] &&
		   (f = cpl_cli_flag_short(cur[1])) != NULL && f->arg) {
		char prefix[4] = { '-', cur[1], cur[2] == '=' ? '=' : '\0',
				   '\0' };

		dir = offer_values(&t, f, cur, prefix);
	} else if (cur[0] == '-') {
		dir = offer_flags(cur);
	} else {
		dir = offer_positional(&t, cur);
	}
	printf(":%d\n", dir);
	return fflush(stdout) == 0 ? 0 : 1;
}
