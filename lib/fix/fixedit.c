/*
 * fixedit.c — the edits a fix's requests make in a workload's source
 * (fix_int.h): insertions (env, /dev/shm, CPU fields, an annotation)
 * and replacements (a scalar, a count, a call's arguments, an input).
 *
 * The model keeps only where a container's mapping starts; when edits
 * are resolved the source is parsed once more (text/yamledit, held by
 * the resolver, resolve.c) and the container found by that position.  From there the
 * Pod spec (the mapping holding `containers:`, or Polyaxon's run or
 * replica holding `container:`) and a Polyaxonfile's simplified `env:`
 * are reached by walking up.  Invariant: an edit is only ever made where
 * the container's own mapping is found, so a position that names
 * something else (a legacy Polyaxon run, a TrainJob's trainer) gets no
 * edit rather than a wrong one; a TrainJob's trainer gets only its env
 * (its resources are resourcesPerNode, its volumes the runtime's).
 *
 * May include: model/ and text/.
 */
#include "fix/fix_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tinput.h"
#include "text/yamledit.h"

/* The mapping of container c: an item of containers/initContainers or
 * the value of a `container:` key; NULL otherwise. */
static const struct cpl_yenode *
container_node(const struct cpl_yedit *ed, const struct cpl_container *c)
{
	const struct cpl_yenode *n, *p;
	const char *key;

	if (ed == NULL || c->pos.line <= 0)
		return NULL;
	n = cpl_yedit_find(ed, c->pos.line, c->pos.column);
	if (!cpl_yedit_is_map(n))
		return NULL;
	if (cpl_str_eq(cpl_yedit_key_of(n), "container"))
		return n;
	p = cpl_yedit_parent(n);
	key = cpl_yedit_key_of(p);
	if (cpl_yedit_is_seq(p) && (cpl_str_eq(key, "containers") ||
				    cpl_str_eq(key, "initContainers")))
		return n;
	return NULL;
}

/* A TrainJob's spec.trainer when c was written there: its `env` is the
 * trainer's EnvVar list (Trainer v2 API), so the thread variables can go
 * in; resources (resourcesPerNode) and volumes cannot, so only
 * cpl_fixres_env asks for it. */
static const struct cpl_yenode *
trainer_node(const struct cpl_yedit *ed, const struct cpl_container *c)
{
	const struct cpl_yenode *n, *spec;

	if (ed == NULL || c->pos.line <= 0)
		return NULL;
	n = cpl_yedit_find(ed, c->pos.line, c->pos.column);
	if (!cpl_yedit_is_map(n) || !cpl_str_eq(cpl_yedit_key_of(n),
						 "trainer"))
		return NULL;
	spec = cpl_yedit_parent(n);
	if (!cpl_yedit_is_map(spec) || !cpl_str_eq(cpl_yedit_key_of(spec),
						    "spec") ||
	    cpl_yedit_get(spec, "runtimeRef") == NULL)
		return NULL;
	return n;
}

/* The mapping that holds the container's list (or key): the Pod spec. */
static const struct cpl_yenode *
pod_node(const struct cpl_yenode *cn)
{
	const struct cpl_yenode *p = cpl_yedit_parent(cn);

	return cpl_yedit_is_seq(p) ? cpl_yedit_parent(p) : p;
}

/* A Polyaxonfile's simplified env over the container: the nearest
 * mapping above it that holds both `run` (on the way up) and `env`. */
static const struct cpl_yenode *
simple_env(const struct cpl_yenode *cn, const struct cpl_yenode **layer)
{
	const struct cpl_yenode *n, *p, *env;

	for (n = cn; (p = cpl_yedit_parent(n)) != NULL; n = p) {
		if (!cpl_yedit_is_map(p) || cpl_yedit_get(p, "run") != n)
			continue;
		env = cpl_yedit_get(p, "env");
		if (cpl_yedit_is_map(env) || cpl_yedit_is_seq(env)) {
			*layer = p;
			return env;
		}
	}
	return NULL;
}

/* Whether a list holds an item whose key is value. */
static bool
has_item(const struct cpl_yenode *seq, const char *key, const char *value)
{
	size_t i;

	for (i = 0; i < cpl_yedit_count(seq); i++)
		if (cpl_str_eq(cpl_yedit_str(cpl_yedit_get(
			cpl_yedit_item(seq, i), key)), value))
			return true;
	return false;
}

/* Says on the finding why it carries no edit (the fix sentence stays). */
static void
no_edit(struct cpl_finding *f, const char *why)
{
	char *s;

	if (f->fix && strstr(f->fix, "(No automatic edit: "))
		return;		/* one reason is enough */
	s = cpl_xasprintf("%s (No automatic edit: %s.)", f->fix ? f->fix : "",
			  why);
	free(f->fix);
	f->fix = s;
}

/*
 * Whether an edit at node n would change another node too: n, or a
 * collection holding it, is anchored and read again through an alias.
 * Then the finding gets no edit and its fix says why.
 */
static bool
shared(struct cpl_fixres *r, struct cpl_finding *f, const char *file,
       const struct cpl_yenode *n)
{
	size_t len = 0;
	const char *a = cpl_yedit_shared(cpl_fixres_yedit(r, file), n, &len);
	char *why;

	if (a == NULL)
		return false;
	why = cpl_xasprintf("the value is inside &%.*s, which another place "
			    "reads (*%.*s); give that place its own copy "
			    "first", (int)len, a, (int)len, a);
	no_edit(f, why);
	free(why);
	return true;
}

/* shared() for the YAML node holding byte off of file (a count inside
 * a command, a value after its anchor); false for Python. */
static bool
shared_at(struct cpl_fixres *r, struct cpl_finding *f, const char *file,
	  size_t off)
{
	const struct cpl_yedit *ed = cpl_fixres_yedit(r, file);

	return ed != NULL && shared(r, f, file, cpl_yedit_at(ed, off));
}

/*
 * Whether mapping m takes fields from a merge key (<<: *base) and lacks
 * key: the base may hold key, and a key added to m would hide it.  Then
 * the finding gets no edit and its fix says why.
 */
static bool
merged(struct cpl_finding *f, const struct cpl_yenode *m, const char *key)
{
	char *why;

	if (cpl_yedit_get(m, "<<") == NULL || cpl_yedit_get(m, key) != NULL)
		return false;
	why = cpl_xasprintf("the mapping takes its fields from a merge key "
			    "(<<), which may hold %s; write %s in it first",
			    key, key);
	no_edit(f, why);
	free(why);
	return true;
}

/* Moves the insertions onto the finding as edits of file. */
static void
add_edits(struct cpl_finding *f, const char *file, struct cpl_yedit_out *o)
{
	struct cpl_pos pos;
	size_t i;

	for (i = 0; i < o->n; i++) {
		pos.file = file;
		pos.line = o->v[i].line;
		pos.column = o->v[i].column;
		cpl_finding_add_edit(f, &pos, pos.line, pos.column,
				     o->v[i].text);
	}
}

void
cpl_fixres_env(struct cpl_fixres *r, struct cpl_finding *f,
		     const struct cpl_container *c, const char *const *names,
		     size_t n, const char *value)
{
	const struct cpl_yedit *ed = cpl_fixres_yedit(r, c->pos.file);
	const struct cpl_yenode *cn = container_node(ed, c), *env, *into;
	struct cpl_yval *pairs = NULL, *entries = NULL, *items = NULL;
	struct cpl_yval top, list;
	struct cpl_yedit_out out = { 0 };
	size_t i;

	if (cn == NULL)
		cn = trainer_node(ed, c);
	if (cn == NULL || n == 0 || shared(r, f, c->pos.file, cn))
		return;
	pairs = cpl_xcalloc(n, sizeof(*pairs));
	entries = cpl_xcalloc(2 * n, sizeof(*entries));
	items = cpl_xcalloc(n, sizeof(*items));
	for (i = 0; i < n; i++) {
		pairs[i] = (struct cpl_yval){ .kind = CPL_YV_SCALAR,
			.key = names[i], .text = value, .quote = true };
		entries[2 * i] = (struct cpl_yval){ .kind = CPL_YV_SCALAR,
			.key = "name", .text = names[i] };
		entries[2 * i + 1] = (struct cpl_yval){ .kind = CPL_YV_SCALAR,
			.key = "value", .text = value, .quote = true };
		items[i] = (struct cpl_yval){ .kind = CPL_YV_MAP,
			.kids = &entries[2 * i], .nkids = 2 };
	}
	into = cn;
	env = simple_env(cn, &into);
	if (env == NULL)
		into = cn;
	if (merged(f, into, "env"))
		goto out;
	if (env != NULL && cpl_yedit_is_map(env)) {
		list = (struct cpl_yval){ .kind = CPL_YV_MAP, .key = "env",
			.kids = pairs, .nkids = n };
	} else {
		list = (struct cpl_yval){ .kind = CPL_YV_SEQ, .key = "env",
			.kids = items, .nkids = n };
	}
	top = (struct cpl_yval){ .kind = CPL_YV_MAP, .kids = &list,
		.nkids = 1 };
	if (cpl_yedit_merge(ed, into, &top, &out) == 0)
		add_edits(f, c->pos.file, &out);
out:
	cpl_yedit_out_free(&out);
	free(pairs);
	free(entries);
	free(items);
}

void
cpl_fixres_shm(struct cpl_fixres *r, struct cpl_finding *f,
		     const struct cpl_container *c, const char *size)
{
	const struct cpl_yedit *ed = cpl_fixres_yedit(r, c->pos.file);
	const struct cpl_yenode *cn = container_node(ed, c), *pod;
	const struct cpl_yval dir[] = {
		{ .kind = CPL_YV_SCALAR, .key = "medium", .text = "Memory" },
		{ .kind = CPL_YV_SCALAR, .key = "sizeLimit", .text = size },
	};
	const struct cpl_yval vol[] = {
		{ .kind = CPL_YV_SCALAR, .key = "name", .text = "dshm" },
		{ .kind = CPL_YV_MAP, .key = "emptyDir", .kids = dir,
		  .nkids = 2 },
	};
	const struct cpl_yval mnt[] = {
		{ .kind = CPL_YV_SCALAR, .key = "name", .text = "dshm" },
		{ .kind = CPL_YV_SCALAR, .key = "mountPath",
		  .text = "/dev/shm" },
	};
	const struct cpl_yval vitem = { .kind = CPL_YV_MAP, .kids = vol,
					.nkids = 2 };
	const struct cpl_yval mitem = { .kind = CPL_YV_MAP, .kids = mnt,
					.nkids = 2 };
	const struct cpl_yval vlist = { .kind = CPL_YV_SEQ, .key = "volumes",
					.kids = &vitem, .nkids = 1 };
	const struct cpl_yval mlist = { .kind = CPL_YV_SEQ,
					.key = "volumeMounts",
					.kids = &mitem, .nkids = 1 };
	const struct cpl_yval vtop = { .kind = CPL_YV_MAP, .kids = &vlist,
				       .nkids = 1 };
	const struct cpl_yval mtop = { .kind = CPL_YV_MAP, .kids = &mlist,
				       .nkids = 1 };
	struct cpl_yedit_out out = { 0 };

	if (cn == NULL || (pod = pod_node(cn)) == NULL ||
	    !cpl_yedit_is_map(pod) || size == NULL ||
	    shared(r, f, c->pos.file, cn) ||
	    shared(r, f, c->pos.file, pod) ||
	    merged(f, cn, "volumeMounts") || merged(f, pod, "volumes") ||
	    has_item(cpl_yedit_get(pod, "volumes"), "name", "dshm") ||
	    has_item(cpl_yedit_get(cn, "volumeMounts"), "mountPath",
		     "/dev/shm"))
		return;
	/* The container first: both may land on one offset (a last
	 * container in block style), and its lines go inside. */
	if (cpl_yedit_merge(ed, cn, &mtop, &out) == 0 &&
	    cpl_yedit_merge(ed, pod, &vtop, &out) == 0)
		add_edits(f, c->pos.file, &out);
	cpl_yedit_out_free(&out);
}

void
cpl_fixres_cpu(struct cpl_fixres *r, struct cpl_finding *f,
		     const struct cpl_container *c, const char *request,
		     const char *limit)
{
	const struct cpl_yedit *ed = cpl_fixres_yedit(r, c->pos.file);
	const struct cpl_yenode *cn = container_node(ed, c);
	const struct cpl_yval req = { .kind = CPL_YV_SCALAR, .key = "cpu",
				      .text = request, .quote = true };
	const struct cpl_yval lim = { .kind = CPL_YV_SCALAR, .key = "cpu",
				      .text = limit, .quote = true };
	struct cpl_yval kinds[2], res, top;
	struct cpl_yedit_out out = { 0 };
	size_t n = 0;

	if (cn == NULL || shared(r, f, c->pos.file, cn) ||
	    merged(f, cn, "resources"))
		return;
	if (request)
		kinds[n++] = (struct cpl_yval){ .kind = CPL_YV_MAP,
			.key = "requests", .kids = &req, .nkids = 1 };
	if (limit)
		kinds[n++] = (struct cpl_yval){ .kind = CPL_YV_MAP,
			.key = "limits", .kids = &lim, .nkids = 1 };
	if (n == 0)
		return;
	res = (struct cpl_yval){ .kind = CPL_YV_MAP, .key = "resources",
		.kids = kinds, .nkids = n };
	top = (struct cpl_yval){ .kind = CPL_YV_MAP, .kids = &res,
		.nkids = 1 };
	if (cpl_yedit_merge(ed, cn, &top, &out) == 0)
		add_edits(f, c->pos.file, &out);
	cpl_yedit_out_free(&out);
}

void
cpl_fixres_limit(struct cpl_fixres *r, struct cpl_finding *f,
		       const struct cpl_container *c, const char *limit)
{
	const struct cpl_yedit *ed = cpl_fixres_yedit(r, c->request_pos.file);
	const struct cpl_yenode *v, *in;
	const struct cpl_yval cpu = { .kind = CPL_YV_SCALAR, .key = "cpu",
				      .text = limit, .quote = true };
	struct cpl_yval pair, top;
	struct cpl_yedit_out out = { 0 };
	const char *text;
	char *range;

	if (ed == NULL || c->request_pos.line <= 0 || limit == NULL)
		return;
	v = cpl_yedit_find(ed, c->request_pos.line, c->request_pos.column);
	in = cpl_yedit_parent(v);
	if (v == NULL || !cpl_yedit_is_map(in) ||
	    shared(r, f, c->request_pos.file, v))
		return;
	if (cpl_str_eq(cpl_yedit_key_of(v), "cpu") &&
	    cpl_str_eq(cpl_yedit_key_of(in), "requests")) {
		/* resources: {requests: {cpu: R}} gets limits: {cpu: R} */
		pair = (struct cpl_yval){ .kind = CPL_YV_MAP, .key = "limits",
			.kids = &cpu, .nkids = 1 };
		in = cpl_yedit_parent(in);
	} else if (cpl_str_eq(cpl_yedit_key_of(v), "requests") &&
		   cpl_str_eq(cpl_yedit_key_of(in), "cpu")) {
		/* legacy Polyaxon: cpu: {requests: R} gets limits: R */
		pair = (struct cpl_yval){ .kind = CPL_YV_SCALAR,
			.key = "limits", .text = limit };
	} else if (cpl_str_eq(cpl_yedit_key_of(v), "cpu") &&
		   (text = cpl_yedit_str(v)) != NULL &&
		   cpl_str_ends(text, "..") && strlen(text) > 2) {
		/* Polyaxon's range "R.." (request only) becomes "R..L" */
		range = cpl_xasprintf("\"%s%s\"", text, limit);
		cpl_fixres_scalar(r, f, &c->request_pos, range);
		free(range);
		return;
	} else {
		return;
	}
	top = (struct cpl_yval){ .kind = CPL_YV_MAP, .kids = &pair,
		.nkids = 1 };
	if (cpl_yedit_is_map(in) && cpl_yedit_merge(ed, in, &top, &out) == 0)
		add_edits(f, c->request_pos.file, &out);
	cpl_yedit_out_free(&out);
}

/* ---- replacements ----------------------------------------------------- */

static bool is_word(char c);

/* Adds the edit replacing bytes [from, to) of src with text. */
static void
replace_bytes(struct cpl_finding *f, struct cpl_fixsrc *src,
	      const char *file, size_t from, size_t to, const char *text)
{
	struct cpl_pos a = cpl_fixsrc_pos(src, file, from);
	struct cpl_pos b = cpl_fixsrc_pos(src, file, to);

	cpl_finding_add_edit(f, &a, b.line, b.column, text);
}

/*
 * The replacement text in the quoting of the scalar it replaces: a
 * double-quoted simple value ("4", as the rules write it) becomes '4'
 * after a single-quoted one, and 4 after a plain number (so an integer
 * stays an integer; a plain string such as 500m keeps the quotes, so it
 * stays a string).  NULL: use text as it is.
 */
static char *
restyle(char first, bool plain_number, const char *text)
{
	size_t n = strlen(text), i;
	bool number = n > 2;

	if (n < 3 || text[0] != '"' || text[n - 1] != '"')
		return NULL;
	for (i = 1; i + 1 < n; i++) {
		char c = text[i];

		if (!is_word(c) && c != '-' && c != ':' && c != '/')
			return NULL;
		if (!((c >= '0' && c <= '9') || (c == '.' && i > 1)))
			number = false;
	}
	if (first == '\'')
		return cpl_xasprintf("'%.*s'", (int)(n - 2), text + 1);
	if (first != '"' && number && plain_number)
		return cpl_xstrndup(text + 1, n - 2);
	return NULL;
}

/* Whether [s, e) is a number written plain (digits, one dot). */
static bool
plain_number(const char *s, const char *e)
{
	bool digit = false;

	if (s < e && (*s == '-' || *s == '+'))
		s++;
	for (; s < e; s++) {
		if (*s >= '0' && *s <= '9')
			digit = true;
		else if (*s != '.')
			return false;
	}
	return digit;
}

void
cpl_fixres_scalar(struct cpl_fixres *r, struct cpl_finding *f,
			 const struct cpl_pos *pos, const char *text)
{
	char *styled;
	struct cpl_fixsrc *src = pos ? cpl_fixres_src(r, pos->file) :
				   NULL;
	const char *p, *end, *start;
	long off;

	if (src == NULL || pos->line <= 0 || pos->column <= 0)
		return;
	off = cpl_fixsrc_offset(src, pos->line, pos->column);
	if (off < 0 || shared_at(r, f, pos->file, (size_t)off))
		return;
	p = src->text + off;
	end = src->text + src->len;
	/* An anchor or a tag stays. */
	while (p < end && (*p == '&' || *p == '!')) {
		while (p < end && !strchr(" \t\r\n", *p))
			p++;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
	}
	start = p;
	if (p < end && (*p == '|' || *p == '>')) {
		/* A block scalar is replaced whole by a flow one. */
		const struct cpl_yedit *ed = cpl_fixres_yedit(r, pos->file);
		const struct cpl_yenode *n = cpl_yedit_find(ed, pos->line,
							    pos->column);
		size_t e = cpl_yedit_end(n);

		if (cpl_yedit_str(n) == NULL || e <= (size_t)(p - src->text))
			return;
		while (e > (size_t)(p - src->text) &&
		       strchr(" \t\r\n", src->text[e - 1]))
			e--;
		p = src->text + e;
	} else if (p < end && (*p == '"' || *p == '\'')) {
		char q = *p++;

		while (p < end && *p != '\n') {
			if (q == '"' && *p == '\\' && p + 1 < end) {
				p += 2;
				continue;
			}
			if (*p == q) {
				if (q == '\'' && p + 1 < end && p[1] == '\'') {
					p += 2;
					continue;
				}
				break;
			}
			p++;
		}
		if (p >= end || *p != q)
			return;
		p++;
		/* A quoted key ("name": ...) is no value to replace. */
		for (end = p; end < src->text + src->len &&
		     (*end == ' ' || *end == '\t'); end++)
			;
		if (end < src->text + src->len && *end == ':')
			return;
	} else {
		while (p < end && *p != '\n' && *p != ',' && *p != ']' &&
		       *p != '}' && !(*p == '#' && p[-1] == ' '))
			p++;
		while (p > start && (p[-1] == ' ' || p[-1] == '\t' ||
				     p[-1] == '\r'))
			p--;
		/* A key (`name: X` where a value was looked for, as for an
		 * env value the Downward API computes) is no value. */
		if (p == start || p[-1] == ':' ||
		    memmem(start, (size_t)(p - start), ": ", 2) != NULL)
			return;
	}
	styled = restyle(*start, plain_number(start, p), text);
	replace_bytes(f, src, pos->file, (size_t)(start - src->text),
		      (size_t)(p - src->text), styled ? styled : text);
	free(styled);
}

static bool
is_word(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

bool
cpl_fixres_count(struct cpl_fixres *r, struct cpl_finding *f,
			const struct cpl_pos *pos, long from, long to)
{
	struct cpl_fixsrc *src = pos && pos->file ?
		cpl_fixres_src(r, pos->file) : NULL;
	long off, v;
	size_t i, j;
	char num[24], *text;

	if (src == NULL ||
	    (off = cpl_fixsrc_offset(src, pos->line, pos->column)) < 0)
		return false;
	for (i = (size_t)off; i < src->len && src->text[i] != '\n'; i++) {
		if (src->text[i] < '0' || src->text[i] > '9' ||
		    (i > 0 && is_word(src->text[i - 1]) &&
		     !(i >= 2 && src->text[i - 1] != '_' &&
		       src->text[i - 2] == '-')))
			continue;
		for (j = i; j < src->len && src->text[j] >= '0' &&
		     src->text[j] <= '9' && j - i < sizeof(num) - 1; j++)
			num[j - i] = src->text[j];
		num[j - i] = '\0';
		if (j < src->len && is_word(src->text[j]))
			return false;
		if (cpl_parse_long(&v, num) < 0 || v != from ||
		    shared_at(r, f, pos->file, i))
			return false;
		text = cpl_xasprintf("%ld", to);
		replace_bytes(f, src, pos->file, i, j, text);
		free(text);
		return true;
	}
	return false;
}

bool
cpl_fixres_input(struct cpl_fixres *r, struct cpl_finding *f,
			const struct cpl_tinput *in, long to)
{
	struct cpl_fixsrc *src = cpl_fixres_src(r, in->at.file);
	char *text;

	if (src == NULL || in->end > src->len ||
	    shared_at(r, f, in->at.file, in->start))
		return false;
	text = cpl_xasprintf("%ld", to);
	replace_bytes(f, src, in->at.file, in->start, in->end, text);
	free(text);
	return true;
}

bool
cpl_fixres_args(struct cpl_fixres *r, struct cpl_finding *f,
		       const struct cpl_pos *pos, const char *text)
{
	struct cpl_fixsrc *src = pos && pos->file ?
		cpl_fixres_src(r, pos->file) : NULL;
	long off;
	size_t i, open;
	int depth = 0;
	char q = 0;

	if (src == NULL ||
	    (off = cpl_fixsrc_offset(src, pos->line, pos->column)) < 0)
		return false;
	for (i = (size_t)off; i < src->len && (is_word(src->text[i]) ||
					       src->text[i] == ' '); i++)
		;
	if (i >= src->len || src->text[i] != '(')
		return false;
	open = i;
	for (; i < src->len; i++) {
		char ch = src->text[i];

		if (q) {
			if (ch == '\\')
				i++;
			else if (ch == q)
				q = 0;
		} else if (ch == '"' || ch == '\'') {
			q = ch;
		} else if (ch == '#') {
			return false;
		} else if (ch == '(') {
			depth++;
		} else if (ch == ')' && --depth == 0) {
			replace_bytes(f, src, pos->file, open + 1, i, text);
			return true;
		}
	}
	return false;
}

void
cpl_finding_drop_edits(struct cpl_finding *f, size_t keep)
{
	while (f->nedits > keep) {
		f->nedits--;
		free(f->edits[f->nedits].file);
		free(f->edits[f->nedits].text);
	}
}

bool
cpl_fixres_env_count(struct cpl_fixres *r, struct cpl_finding *f,
			    const struct cpl_pos *pos, long from, long to)
{
	struct cpl_fixsrc *src = pos && pos->file ?
		cpl_fixres_src(r, pos->file) : NULL;
	long off;
	size_t i, content, had = f->nedits;
	char q[32];

	if (src == NULL ||
	    (off = cpl_fixsrc_offset(src, pos->line, pos->column)) < 0)
		return false;
	i = (size_t)off;
	if (shared_at(r, f, pos->file, i))
		return false;
	/* An anchor or a tag before the value (replace_scalar keeps it). */
	while (i < src->len && (src->text[i] == '&' || src->text[i] == '!')) {
		while (i < src->len && !strchr(" \t\r\n", src->text[i]))
			i++;
		while (i < src->len && (src->text[i] == ' ' ||
					src->text[i] == '\t'))
			i++;
	}
	content = i;
	if (i < src->len && (src->text[i] == '|' || src->text[i] == '>'))
		goto whole;
	if (i < src->len && (src->text[i] == '"' || src->text[i] == '\''))
		i++;
	while (i < src->len && src->text[i] >= '0' && src->text[i] <= '9')
		i++;
	if (i < src->len && (src->text[i] == '"' || src->text[i] == '\''))
		i++;
	/* A scalar that is only the number: replaced whole and quoted, as
	 * CPU202 and CPU203 replace it, so equal edits dedupe. */
	if (i > content &&
	    (i >= src->len || strchr(" \t\r\n,]}#", src->text[i])))
		goto whole;
	return cpl_fixres_count(r, f, pos, from, to);
whole:
	snprintf(q, sizeof(q), "\"%ld\"", to);
	cpl_fixres_scalar(r, f, pos, q);
	return f->nedits > had;
}

void
cpl_fixres_annotation(struct cpl_fixres *r, struct cpl_finding *f,
			 const struct cpl_workload *w, const char *key,
			 const char *value, const struct cpl_pos *at)
{
	const struct cpl_yedit *ed = cpl_fixres_yedit(r, w->file);
	const struct cpl_yenode *into = NULL, *cn;
	struct cpl_yedit_out out = { 0 };
	const char *outer = "metadata";
	char *quoted;
	size_t i;

	if (ed == NULL || w->pos.line <= 0)
		return;
	if (at != NULL && at->line > 0) {
		quoted = cpl_xasprintf("\"%s\"", value);
		cpl_fixres_scalar(r, f, at, quoted);
		free(quoted);
		return;
	}
	if (w->source == CPL_SRC_POLYAXON) {
		/* Polyaxon's place: the environment of the run or replica
		 * that holds the run container. */
		for (i = 0; i < w->ncontainers && into == NULL; i++) {
			if (!w->containers[i].run_container)
				continue;
			cn = container_node(ed, &w->containers[i]);
			if (cn != NULL &&
			    cpl_str_eq(cpl_yedit_key_of(cn), "container"))
				into = cpl_yedit_parent(cn);
		}
		outer = "environment";
	} else {
		into = cpl_yedit_find(ed, w->pos.line, w->pos.column);
		if (cpl_yedit_get(into, "kind") == NULL)
			into = NULL;
	}
	if (!cpl_yedit_is_map(into) || shared(r, f, w->file, into) ||
	    merged(f, into, outer))
		return;
	{
		const struct cpl_yval pair = { .kind = CPL_YV_SCALAR,
			.key = key, .text = value, .quote = true };
		const struct cpl_yval ann = { .kind = CPL_YV_MAP,
			.key = "annotations", .kids = &pair, .nkids = 1 };
		const struct cpl_yval md = { .kind = CPL_YV_MAP,
			.key = outer, .kids = &ann, .nkids = 1 };
		const struct cpl_yval top = { .kind = CPL_YV_MAP,
			.kids = &md, .nkids = 1 };

		if (cpl_yedit_merge(ed, into, &top, &out) == 0)
			add_edits(f, w->file, &out);
	}
	cpl_yedit_out_free(&out);
}
