/*
 * launch.c — releasing a struct cpl_launch (launch.h), and reading what a
 * launcher's own config file adds to its command line (accelerate launch
 * --config_file: the keys that decide how many processes start and who
 * sets their threads).
 *
 * May include shell/launch.h, text/ and util.h.
 */
#include "shell/launch.h"

#include <stdlib.h>
#include <string.h>

#include "text/yamldoc.h"
#include "util.h"

/* Frees one config word and zeroes it. */
static void
word_clear(struct cpl_word *w)
{
	free(w->text);
	memset(w, 0, sizeof(*w));
}

void
cpl_launch_clear(struct cpl_launch *l)
{
	size_t i;

	free(l->launcher_word.text);
	free(l->nproc.text);
	free(l->script.text);
	free(l->wrapper.text);
	for (i = 0; i < CPL_LOPT_COUNT; i++)
		free(l->opt[i].text);
	word_clear(&l->cfg.nproc);
	word_clear(&l->cfg.machines);
	word_clear(&l->cfg.dtype);
	word_clear(&l->cfg.env);
	cpl_words_free(l->args, l->nargs);
	cpl_envs_free(l->exports, l->nexports);
	for (i = 0; i < l->nhostcounts; i++) {
		free(l->hostcounts[i].expr.text);
		free(l->hostcounts[i].sizes);
	}
	free(l->hostcounts);
	for (i = 0; i < l->npins; i++)
		free(l->pins[i].list.text);
	free(l->pins);
	memset(l, 0, sizeof(*l));
}

/* The scalar at key of map as a positioned word; nothing when absent. */
static void
cfg_word(struct cpl_word *out, const struct cpl_ynode *map, const char *key,
	 const char *path)
{
	const struct cpl_ynode *v = cpl_ynode_get(map, key);
	const char *s = cpl_ynode_str(v);

	word_clear(out);
	if (s == NULL)
		return;
	out->text = cpl_xstrdup(s);
	out->pos.file = path;
	out->pos.line = v->line;
	out->pos.column = v->column;
}

int
cpl_launch_read_config(struct cpl_launch *l, const char *path,
		       const char *text, size_t len)
{
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };
	const struct cpl_ynode *doc;
	int rc = -1;

	if (cpl_yaml_parse(&s, path, text, len, &err) < 0)
		goto out;
	doc = cpl_ystream_count(s) > 0 ? cpl_ystream_doc(s, 0) : NULL;
	/* A file found by its name alone may be another program's config:
	 * accelerate's always says where and how it runs. */
	if (!cpl_ynode_is_map(doc) ||
	    (cpl_ynode_get(doc, "compute_environment") == NULL &&
	     cpl_ynode_get(doc, "distributed_type") == NULL))
		goto out;
	cfg_word(&l->cfg.nproc, doc, "num_processes", path);
	cfg_word(&l->cfg.machines, doc, "num_machines", path);
	cfg_word(&l->cfg.dtype, doc, "distributed_type", path);
	cfg_word(&l->cfg.env, doc, "compute_environment", path);
	l->cfg.use_cpu = cpl_ynode_bool(cpl_ynode_get(doc, "use_cpu")) == 1;
	l->cfg.read = true;
	rc = 0;
out:
	cpl_error_clear(&err);
	cpl_ystream_free(s);
	return rc;
}
