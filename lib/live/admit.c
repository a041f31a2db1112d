/*
 * admit.c — AdmissionReview in, judged object out (see admit.h).
 *
 * Invariant: every field read from the review is checked for its JSON
 * type before use; whatever the body, the result is a filled struct or
 * one error line, never a crash.  Unreadable text never switches the
 * policy off: bytes that are not UTF-8 read as U+FFFD (as the API
 * server's own JSON encoder writes them), so does \u0000 (Go strings may
 * hold NUL, which jansson refuses: a 400 would admit the object), and
 * characters the YAML
 * loader refuses raw (DEL, C1 controls, U+FFFE, U+FFFF) are handed to
 * it as \u escapes, so such an annotation or name is judged like any
 * other and escaped wherever it is shown.
 */
#include "live/admit.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/kinds.h"
#include "run/engine.h"

/*
 * The containers of every Pod template in v (arrays named containers,
 * initContainers or ephemeralContainers, at any depth), counting on
 * from n and stopping past max.
 */
static size_t
count_containers(const json_t *v, size_t n, size_t max)
{
	const char *key;
	json_t *m;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, m) {
			if (n > max)
				break;
			if (json_is_array(m) &&
			    (strcmp(key, "containers") == 0 ||
			     strcmp(key, "initContainers") == 0 ||
			     strcmp(key, "ephemeralContainers") == 0))
				n += json_array_size(m);
			n = count_containers(m, n, max);
		}
	} else if (json_is_array(v)) {
		for (i = 0; i < json_array_size(v) && n <= max; i++)
			n = count_containers(json_array_get(v, i), n, max);
	}
	return n;
}

/* Length of the UTF-8 sequence at s (n bytes left), 0 when it is not
 * one (overlong, surrogate, past U+10FFFF, cut short). */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/*
 * body with every byte that is not part of UTF-8 replaced by U+FFFD, and
 * every \u0000 escape inside a JSON string by \ufffd; NULL when there is
 * neither.  Caller frees.
 */
static char *
utf8_fixed(const char *body, size_t len, size_t *outlen)
{
	const unsigned char *s = (const unsigned char *)body;
	struct cpl_buf b;
	size_t i = 0, k, start = 0;
	bool bad = false, str = false;

	cpl_buf_init(&b, len * 3 + 1);
	while (i < len) {
		if (s[i] == '"') {
			str = !str;
		} else if (str && s[i] == '\\' && i + 1 < len) {
			if (i + 5 < len && memcmp(s + i + 1, "u0000", 5) == 0) {
				bad = true;
				cpl_buf_add(&b, body + start, i - start);
				cpl_buf_add(&b, "\\ufffd", 6);
				start = i + 6;
			}
			i += 2;		/* an escape: \" does not end it */
			continue;
		}
		k = utf8_len(s + i, len - i);
		if (k > 0) {
			i += k;
			continue;
		}
		bad = true;
		cpl_buf_add(&b, body + start, i - start);
		cpl_buf_add(&b, "\xef\xbf\xbd", 3);
		start = ++i;
	}
	if (!bad) {
		cpl_buf_free(&b);
		return NULL;
	}
	cpl_buf_add(&b, body + start, len - start);
	*outlen = b.len;
	return cpl_buf_detach(&b);
}

/*
 * JSON text (UTF-8, controls below 0x20 already escaped, as json_dumps
 * writes it) with DEL, the C1 controls and U+FFFE/U+FFFF written as \u
 * escapes: YAML allows them only escaped.  Outside strings JSON is
 * ASCII, so each is inside a string.  Caller frees.
 */
static char *
yaml_safe(const char *text, size_t *outlen)
{
	const unsigned char *s = (const unsigned char *)text;
	struct cpl_buf b;
	size_t i, start = 0;
	unsigned cp;

	cpl_buf_init(&b, 0);
	for (i = 0; s[i]; i++) {
		size_t k;

		if (s[i] == 0x7f) {
			cp = 0x7f, k = 1;
		} else if (s[i] == 0xc2 && s[i + 1] >= 0x80 &&
			   s[i + 1] <= 0x9f) {
			cp = s[i + 1], k = 2;
		} else if (s[i] == 0xef && s[i + 1] == 0xbf &&
			   (s[i + 2] == 0xbe || s[i + 2] == 0xbf)) {
			cp = s[i + 2] == 0xbe ? 0xfffe : 0xffff;
			k = 3;
		} else {
			continue;
		}
		cpl_buf_add(&b, text + start, i - start);
		cpl_buf_addf(&b, "\\u%04x", cp);
		i += k - 1;
		start = i + 1;
	}
	cpl_buf_add(&b, text + start, i - start);
	*outlen = b.len;
	return cpl_buf_detach(&b);
}

/* The string member name of o, or NULL. */
static const char *
str_of(const json_t *o, const char *name)
{
	return json_string_value(json_object_get(o, name));
}

static int
bad(struct cpl_error *err, const char *why)
{
	cpl_error_set(err, NULL, 0, 0, "malformed AdmissionReview: %s", why);
	return -1;
}

/*
 * A Pod whose controller is a Kubeflow v1 job (a kind with replica_specs
 * in the kinds table, kinds.h), put inside an object of
 * its owner's kind as its only replica (the type its operator labels it
 * with, capitalised as the job writes it; Worker when unlabelled), with
 * nprocPerNode from the PET_NPROC_PER_NODE the operator set on its
 * containers: so the kinds table judges it with its owner's ranks and
 * launcher, as live mode does.  NULL (not wrapped) for any other object;
 * *pointer says where the Pod spec is in the result.  Caller frees both.
 */
static json_t *
owner_wrap(const json_t *obj, char **pointer)
{
	const json_t *meta = json_object_get(obj, "metadata");
	const json_t *refs = json_object_get(meta, "ownerReferences");
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *r, *c, *e, *owner = NULL;
	const struct cpl_kind *k = NULL;
	const char *type, *nproc = NULL;
	json_t *tmpl, *out;
	char rtype[64];
	size_t i, j;

	if (!cpl_str_eq(str_of(obj, "kind"), "Pod") || !json_is_object(spec))
		return NULL;
	json_array_foreach(refs, i, r)
		if (json_is_true(json_object_get(r, "controller")))
			owner = r;
	if (owner != NULL && str_of(owner, "apiVersion") != NULL)
		k = cpl_kinds_find(str_of(owner, "apiVersion"),
				   str_of(owner, "kind"));
	if (k == NULL || k->kind == NULL || k->replica_specs == NULL)
		return NULL;
	type = json_string_value(json_object_get(json_object_get(meta,
		"labels"), "training.kubeflow.org/replica-type"));
	if (type == NULL || *type == '\0' || strlen(type) >= sizeof(rtype) ||
	    strchr(type, '/') || strchr(type, '~'))
		type = "worker";
	snprintf(rtype, sizeof(rtype), "%s", type);
	rtype[0] = (char)(rtype[0] >= 'a' && rtype[0] <= 'z' ?
			  rtype[0] - 'a' + 'A' : rtype[0]);
	json_array_foreach(json_object_get(spec, "containers"), i, c)
		json_array_foreach(json_object_get(c, "env"), j, e)
			if (cpl_str_eq(str_of(e, "name"),
				       "PET_NPROC_PER_NODE") &&
			    str_of(e, "value") && nproc == NULL)
				nproc = str_of(e, "value");
	tmpl = json_pack("{s:{s:O*,s:O*},s:O}", "metadata", "labels",
			 json_object_get(meta, "labels"), "annotations",
			 json_object_get(meta, "annotations"), "spec", spec);
	out = json_pack("{s:s,s:s,s:O*,s:{s:{s:{s:o}}}}", "apiVersion",
			str_of(owner, "apiVersion"), "kind", k->kind,
			"metadata", meta, "spec", k->replica_specs, rtype,
			"template", tmpl);
	if (out == NULL)
		return NULL;
	if (nproc)
		json_object_set_new(json_object_get(out, "spec"),
				    "nprocPerNode", json_string(nproc));
	*pointer = cpl_xasprintf("/spec/%s/%s/template/spec",
				 k->replica_specs, rtype);
	return out;
}

int
cpl_admit_review(struct cpl_admit *a, const char *body, size_t len,
		 const char *config, struct cpl_error *err)
{
	json_error_t jerr;
	json_t *root = NULL, *rq, *obj, *kind, *meta, *wrapped;
	const char *s, *name, *ns;
	char *text = NULL, *fixed, *safe;
	size_t tlen;
	int rc = -1;

	memset(a, 0, sizeof(*a));
	fixed = utf8_fixed(body, len, &tlen);
	root = json_loadb(fixed ? fixed : body, fixed ? tlen : len,
			  JSON_REJECT_DUPLICATES, &jerr);
	free(fixed);
	if (root == NULL) {
		cpl_error_set(err, NULL, 0, 0, "malformed AdmissionReview: "
			      "not JSON: %s at line %d, column %d", jerr.text,
			      jerr.line, jerr.column);
		goto out;
	}
	if (!json_is_object(root)) {
		bad(err, "not a JSON object");
		goto out;
	}
	s = str_of(root, "apiVersion");
	if (s == NULL || strcmp(s, "admission.k8s.io/v1") != 0) {
		bad(err, "apiVersion is not admission.k8s.io/v1 (configure "
		    "the webhook with admissionReviewVersions: [v1])");
		goto out;
	}
	s = str_of(root, "kind");
	if (s == NULL || strcmp(s, "AdmissionReview") != 0) {
		bad(err, "kind is not AdmissionReview");
		goto out;
	}
	rq = json_object_get(root, "request");
	if (!json_is_object(rq)) {
		bad(err, "no request object");
		goto out;
	}
	s = str_of(rq, "uid");
	if (s == NULL || *s == '\0' || strlen(s) > 256) {
		bad(err, "request.uid is not a string of 1 to 256 "
		    "characters");
		goto out;
	}
	a->uid = cpl_xstrdup(s);
	s = str_of(rq, "operation");
	if (s == NULL) {
		bad(err, "request.operation is not a string");
		goto out;
	}
	a->operation = cpl_xstrdup(s);
	kind = json_object_get(rq, "kind");
	obj = json_object_get(rq, "object");
	meta = json_object_get(obj, "metadata");
	name = str_of(rq, "name");
	if (name == NULL || *name == '\0')
		name = str_of(meta, "name");
	if (name == NULL || *name == '\0')
		name = str_of(meta, "generateName");
	ns = str_of(rq, "namespace");
	a->what = cpl_xasprintf("%s %s%s%s", str_of(kind, "kind") ?
				str_of(kind, "kind") : "object",
				ns && *ns ? ns : "", ns && *ns ? "/" : "",
				name ? name : "(unnamed)");
	rc = 0;
	if (strcmp(a->operation, "CREATE") != 0 &&
	    strcmp(a->operation, "UPDATE") != 0) {
		a->skipped = cpl_xasprintf("%s is not judged", a->operation);
		goto out;
	}
	if (!json_is_object(obj)) {
		a->skipped = cpl_xstrdup("the review holds no object");
		goto out;
	}
	wrapped = owner_wrap(obj, &a->wrapped);
	text = json_dumps(wrapped ? wrapped : obj,
			  JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(wrapped);
	if (text == NULL) {
		a->skipped = cpl_xstrdup("the object cannot be written out");
		goto out;
	}
	if (count_containers(obj, 0, CPL_ADMIT_MAX_CONTAINERS) >
	    CPL_ADMIT_MAX_CONTAINERS) {
		a->skipped = cpl_xasprintf("the object has more than %d "
					   "containers, the most judged per "
					   "review (lint its manifest with "
					   "kubectl-cpulint)",
					   CPL_ADMIT_MAX_CONTAINERS);
		goto out;
	}
	tlen = strlen(text);
	if (tlen > CPL_ADMIT_MAX_OBJECT) {
		a->skipped = cpl_xasprintf("the object is %zu bytes, over the "
					   "%zu judged per review", tlen,
					   CPL_ADMIT_MAX_OBJECT);
		goto out;
	}
	safe = yaml_safe(text, &tlen);
	free(text);
	text = safe;
	a->e = cpl_engine_new();
	cpl_engine_set_jobs(a->e, 1);
	if (config && cpl_engine_load_config(a->e, config, err) < 0) {
		cpl_engine_add_error(a->e, err);
		cpl_error_clear(err);
	}
	cpl_engine_add_buffer(a->e, CPL_ADMIT_PATH, text, tlen, true);
	cpl_engine_run(a->e);
	/* One object: its edits are /mutate's patch (mutate.c). */
	cpl_engine_resolve_fixes(a->e);
	a->object = json_incref(obj);
	a->text = text;
	a->tlen = tlen;
	text = NULL;
out:
	if (rc < 0)
		cpl_admit_clear(a);
	free(text);
	json_decref(root);
	return rc;
}

void
cpl_admit_clear(struct cpl_admit *a)
{
	if (a == NULL)
		return;
	free(a->uid);
	free(a->operation);
	free(a->what);
	free(a->skipped);
	cpl_engine_free(a->e);
	json_decref(a->object);
	free(a->text);
	free(a->wrapped);
	memset(a, 0, sizeof(*a));
}
