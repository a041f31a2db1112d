/*
 * admission.c — findings → AdmissionReview response (see admission.h).
 *
 * Invariant: every warning is escaped and at most
 * CPL_ADMISSION_ITEM_RUNES runes, and their runes add up to at most
 * CPL_ADMISSION_TOTAL_RUNES, the "N more" warning included.
 */
#include "report/admission.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "model/rule.h"
#include "report/escape.h"

#define ELLIPSIS "\xe2\x80\xa6"

size_t
cpl_report_runes(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

char *
cpl_report_admission_clip(const char *text, size_t max)
{
	struct cpl_buf b;
	size_t runes = 0, i, keep = 0;
	char *s;

	cpl_buf_init(&b, 0);
	cpl_escape_str(&b, text, 0);
	s = cpl_buf_detach(&b);
	if (s == NULL)
		return cpl_xstrdup("");
	if (cpl_report_runes(s) <= max)
		return s;
	/* Keep max - 1 runes, then the ellipsis. */
	for (i = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if (runes == max - 1) {
				keep = i;
				break;
			}
			runes++;
		}
	}
	s[keep] = '\0';
	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, s);
	cpl_buf_adds(&b, ELLIPSIS);
	free(s);
	return cpl_buf_detach(&b);
}

char *
cpl_report_base64(const char *text, size_t len)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *s = (const unsigned char *)text;
	struct cpl_buf b;
	unsigned long v;
	size_t i;

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, "");
	for (i = 0; i + 2 < len; i += 3) {
		v = (unsigned long)s[i] << 16 | (unsigned long)s[i + 1] << 8 |
		    s[i + 2];
		cpl_buf_addc(&b, abc[v >> 18 & 63]);
		cpl_buf_addc(&b, abc[v >> 12 & 63]);
		cpl_buf_addc(&b, abc[v >> 6 & 63]);
		cpl_buf_addc(&b, abc[v & 63]);
	}
	if (len - i == 1) {
		v = (unsigned long)s[i] << 16;
		cpl_buf_addc(&b, abc[v >> 18 & 63]);
		cpl_buf_addc(&b, abc[v >> 12 & 63]);
		cpl_buf_adds(&b, "==");
	} else if (len - i == 2) {
		v = (unsigned long)s[i] << 16 | (unsigned long)s[i + 1] << 8;
		cpl_buf_addc(&b, abc[v >> 18 & 63]);
		cpl_buf_addc(&b, abc[v >> 12 & 63]);
		cpl_buf_addc(&b, abc[v >> 6 & 63]);
		cpl_buf_addc(&b, '=');
	}
	return cpl_buf_detach(&b);
}

/* The findings to say, worst first (stable within a severity). */
static const struct cpl_finding **
ordered(const struct cpl_admission *a, size_t *n)
{
	const struct cpl_finding **v = cpl_xcalloc(a->nfindings + 1,
						    sizeof(*v));
	int sev;
	size_t i;

	*n = 0;
	for (sev = CPL_SEV_ERROR; sev >= CPL_SEV_NOTE; sev--)
		for (i = 0; i < a->nfindings; i++)
			if (!a->findings[i].suppressed &&
			    (int)a->findings[i].severity == sev)
				v[(*n)++] = &a->findings[i];
	return v;
}

/* One finding as a warning, before clipping: its rule, severity,
 * message (which names the container) and fix; caller frees. */
static char *
finding_text(const struct cpl_finding *f)
{
	return cpl_xasprintf("%s %s: %s%s%s", f->rule->id,
			     cpl_severity_name(f->severity), f->message,
			     f->fix ? " -- fix: " : "", f->fix ? f->fix : "");
}

/* Adds text to the warnings when its runes fit in *left; false if not. */
static bool
add_warning(json_t *w, const char *text, size_t *left)
{
	char *c = cpl_report_admission_clip(text, CPL_ADMISSION_ITEM_RUNES);
	size_t r = cpl_report_runes(c);
	bool ok = r <= *left;

	if (ok) {
		json_array_append_new(w, json_string(c));
		*left -= r;
	}
	free(c);
	return ok;
}

char *
cpl_report_admission(const struct cpl_admission *a, bool *denied,
		     size_t *nwarnings)
{
	/* Room kept for the last "N more" warning. */
	enum { MORE_RUNES = 96 };
	const struct cpl_finding **v;
	json_t *root, *resp, *w = json_array();
	size_t n, i, left = CPL_ADMISSION_TOTAL_RUNES - MORE_RUNES;
	size_t said = 0, deny_n = 0;
	bool full = false;
	const struct cpl_finding *first_denied = NULL;
	char *text, *out;

	v = ordered(a, &n);
	if (a->mutate_note)
		add_warning(w, a->mutate_note, &left);
	if (a->skipped) {
		text = cpl_xasprintf("kubectl-cpulint: not judged: %s",
				     a->skipped);
		add_warning(w, text, &left);
		free(text);
	}
	for (i = 0; i < a->nerrors; i++) {
		text = cpl_xasprintf("kubectl-cpulint: cannot judge it: %s",
				     a->errors[i].message ?
				     a->errors[i].message : "");
		add_warning(w, text, &left);
		free(text);
	}
	for (i = 0; i < n; i++) {
		if (a->deny_on != CPL_SEV_OFF && v[i]->severity >= a->deny_on) {
			if (first_denied == NULL)
				first_denied = v[i];
			deny_n++;
		}
		if (full)
			continue;	/* no room: the rest are counted */
		text = finding_text(v[i]);
		if (add_warning(w, text, &left))
			said++;
		else
			full = true;
		free(text);
	}
	if (said < n) {
		text = cpl_xasprintf("kubectl-cpulint: %zu more finding%s not "
				     "shown (kubectl cpulint -f FILE lists "
				     "all)", n - said, n - said == 1 ? "" :
				     "s");
		left += MORE_RUNES;
		add_warning(w, text, &left);
		free(text);
	}
	*denied = deny_n > 0;
	*nwarnings = json_array_size(w);
	resp = json_pack("{s:s,s:b}", "uid", a->uid, "allowed", !*denied);
	if (*denied) {
		char *one = finding_text(first_denied);
		char *msg = cpl_xasprintf("kubectl-cpulint: %s has %zu "
					  "finding%s at or above %s (--deny-on)"
					  "; first: %s", a->what ? a->what :
					  "the object", deny_n,
					  deny_n == 1 ? "" : "s",
					  cpl_severity_name(a->deny_on), one);
		char *clip = cpl_report_admission_clip(msg, 1024);

		json_object_set_new(resp, "status", json_pack(
			"{s:i,s:s,s:s}", "code", 403, "reason", "Forbidden",
			"message", clip));
		free(clip);
		free(msg);
		free(one);
	}
	if (json_array_size(w) > 0)
		json_object_set(resp, "warnings", w);
	if (a->patch && !*denied) {
		char *b64 = cpl_report_base64(a->patch, strlen(a->patch));

		json_object_set_new(resp, "patchType", json_string("JSONPatch"));
		json_object_set_new(resp, "patch", json_string(b64));
		free(b64);
	}
	root = json_pack("{s:s,s:s,s:o}", "apiVersion", "admission.k8s.io/v1",
			 "kind", "AdmissionReview", "response", resp);
	out = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(root);
	json_decref(w);
	free(v);
	return out;
}
