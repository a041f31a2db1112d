/* test_gotmpl.c — the Go-template subset Helm charts use: output byte
 * for byte as helm template writes it, where each line came from, what
 * lies outside the subset, and errors with their place. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "text/gotmpl.h"

static const char *values =
	"image:\n"
	"  repository: reg.example.com/train\n"
	"  tag: \"\"\n"
	"workers: 4\n"
	"ratio: 0.50\n"
	"enabled: yes\n"
	"env:\n"
	"  OMP_NUM_THREADS: \"2\"\n"
	"  B_VAR: x\n"
	"resources:\n"
	"  requests:\n"
	"    cpu: 4\n"
	"  limits:\n"
	"    nvidia.com/gpu: 1\n"
	"    cpu: \"8\"\n"
	"args: [\"--epochs\", \"3\", \"-\", \"a: b\"]\n"
	"empty: {}\n"
	"version: 1.2.3\n"
	"when: 2024-01-02\n";

static const char *helpers =
	"{{/* names */}}\n"
	"{{- define \"c.name\" -}}\n"
	"{{- default .Chart.Name .Values.nameOverride | trunc 63 | "
	"trimSuffix \"-\" }}\n"
	"{{- end }}\n"
	"{{- define \"c.container\" -}}\n"
	"- name: {{ include \"c.name\" . }}\n"
	"  image: \"{{ .Values.image.repository }}:"
	"{{ .Values.image.tag | default .Chart.AppVersion }}\"\n"
	"{{- end }}\n";

static const char *files_text;

static int
files(void *ctx, const char *name, char **text, size_t *len)
{
	(void)ctx;
	if (strcmp(name, "scripts/run.sh") != 0)
		return -1;
	*text = strdup(files_text);
	*len = strlen(files_text);
	return 0;
}

static struct cpl_gotmpl *
chart(void)
{
	struct cpl_gotmpl *g = cpl_gotmpl_new();
	struct cpl_error err = { 0 };

	ck_assert_int_eq(cpl_gotmpl_values(g, "c/values.yaml", values,
					   strlen(values), &err), 0);
	cpl_gotmpl_builtin(g, "Chart", "Name", "trainer");
	cpl_gotmpl_builtin(g, "Chart", "AppVersion", "1.2");
	ck_assert_int_eq(cpl_gotmpl_add(g, "c/templates/_helpers.tpl",
					helpers, strlen(helpers), &err), 0);
	files_text = "#!/bin/sh\nexec python train.py\n";
	cpl_gotmpl_files(g, files, NULL);
	return g;
}

/* Renders t; returns the rc, out's text in *text (static until the next
 * call's g is freed by the caller). */
static int
render(struct cpl_gotmpl *g, const char *t, struct cpl_gotmpl_out *out,
       struct cpl_error *err)
{
	int rc = cpl_gotmpl_add(g, "c/templates/t.yaml", t, strlen(t), err);

	if (rc != 0)
		return rc;
	return cpl_gotmpl_render(g, "c/templates/t.yaml", out, err);
}

static void
expect(const char *t, const char *want)
{
	struct cpl_gotmpl *g = chart();
	struct cpl_gotmpl_out out;
	struct cpl_error err = { 0 };
	int rc = render(g, t, &out, &err);

	ck_assert_msg(rc == 0, "rc %d: %s:%d:%d: %s", rc,
		      err.path ? err.path : "", err.line, err.column,
		      err.message ? err.message : "");
	ck_assert_str_eq(out.text, want);
	cpl_gotmpl_free(g);
}

START_TEST(lookups_and_functions)
{
	expect("a: {{ .Values.workers }}\nb: {{ .Values.workers | quote }}\n",
	       "a: 4\nb: \"4\"\n");
	/* Helm reads numbers as float64: 0.50 prints as 0.5 */
	expect("r: {{ .Values.ratio }}\n", "r: 0.5\n");
	/* a version is a string (a date, an exponent: not modelled) */
	expect("v: {{ .Values.version }}\n", "v: 1.2.3\n");
	/* YAML 1.1: yes is true */
	expect("{{ if .Values.enabled }}on{{ else }}off{{ end }}\n", "on\n");
	expect("i: {{ .Values.image.tag | default .Chart.AppVersion }}\n",
	       "i: 1.2\n");
	expect("m: {{ .Values.missing }}|\n", "m: |\n");
	expect("n: {{ .Release.Name }}-{{ .Chart.Name }}\n",
	       "n: release-name-trainer\n");
	expect("p: {{ printf \"%s-%d\" .Chart.Name .Values.workers }}\n",
	       "p: trainer-4\n");
	expect("{{- $n := .Values.workers }}\nw: {{ $n }}\n", "\nw: 4\n");
}
END_TEST

START_TEST(trimming_and_control)
{
	expect("a:\n  {{- if .Values.workers }}\n  b: 1\n  {{- end }}\n",
	       "a:\n  b: 1\n");
	expect("x: {{- \" y\" -}} \n  z\n", "x: yz\n");
	/* a comment ends at its own close, whatever it holds: kueue's
	 * chart writes a usage line with an action (and a quote) in one */
	expect("{{/*\nUsage:\n  {{- if include \"x\" . }}\n*/}}\na: 1\n",
	       "\na: 1\n");
	expect("a: 1\n{{- /* \"}} -}} */ -}}\nb: 2\n", "a: 1b: 2\n");
	expect("{{- with .Values.image }}\nrepo: {{ .repository }}\n"
	       "{{- end }}\n", "\nrepo: reg.example.com/train\n");
	expect("{{- with .Values.empty }}\nhas\n{{- else }}\nnone\n"
	       "{{- end }}\n", "\nnone\n");
	/* a map ranges in key order */
	expect("env:\n{{- range $k, $v := .Values.env }}\n- name: {{ $k }}\n"
	       "  value: {{ $v | quote }}\n{{- end }}\n",
	       "env:\n- name: B_VAR\n  value: \"x\"\n"
	       "- name: OMP_NUM_THREADS\n  value: \"2\"\n");
	expect("{{- range .Values.args }}[{{ . }}]{{ end }}\n",
	       "[--epochs][3][-][a: b]\n");
	expect("{{ if and .Values.workers (not .Values.missing) }}y{{ end }}"
	       "\n", "y\n");
	expect("{{ if eq .Values.image.repository \"x\" }}y{{ else if "
	       ".Values.workers }}w{{ else }}n{{ end }}\n", "w\n");
}
END_TEST

START_TEST(to_yaml_as_helm_writes_it)
{
	/* keys sorted, a list in a map not indented, strings quoted when
	 * plain would read as another type or is not allowed */
	expect("resources:\n  {{- toYaml .Values.resources | nindent 2 }}\n",
	       "resources:\n  limits:\n    cpu: \"8\"\n"
	       "    nvidia.com/gpu: 1\n  requests:\n    cpu: 4\n");
	expect("args:\n{{ toYaml .Values.args | indent 2 }}\n",
	       "args:\n  - --epochs\n  - \"3\"\n  - '-'\n  - 'a: b'\n");
	expect("e: {{ toYaml .Values.empty }}\n", "e: {}\n");
}
END_TEST

START_TEST(include_and_files)
{
	expect("containers:\n  {{- include \"c.container\" . | nindent 2 }}\n",
	       "containers:\n  - name: trainer\n"
	       "    image: \"reg.example.com/train:1.2\"\n");
	expect("run.sh: |\n  {{- .Files.Get \"scripts/run.sh\" | nindent 2 }}"
	       "\n", "run.sh: |\n  #!/bin/sh\n  exec python train.py\n  \n");
	expect("x: {{ .Files.Get \"absent\" | quote }}\n", "x: \"\"\n");
}
END_TEST

START_TEST(line_map)
{
	struct cpl_gotmpl *g = chart();
	struct cpl_gotmpl_out out;
	struct cpl_error err = { 0 };
	const char *t = "kind: Pod\nspec:\n  containers:\n"
			"  {{- include \"c.container\" . | nindent 2 }}\n"
			"  resources:\n"
			"    {{- toYaml .Values.resources | nindent 4 }}\n";

	ck_assert_int_eq(render(g, t, &out, &err), 0);
	ck_assert_int_eq((int)out.nlines, 12);
	/* literal text: its own line and column */
	ck_assert_str_eq(out.lines[1].file, "c/templates/t.yaml");
	ck_assert_int_eq(out.lines[1].line, 2);
	ck_assert(out.lines[1].literal);
	/* "- name: trainer" is the helper's line 6 */
	ck_assert_str_eq(out.lines[3].file, "c/templates/_helpers.tpl");
	ck_assert_int_eq(out.lines[3].line, 6);
	ck_assert_int_eq(out.lines[3].column, 1);
	ck_assert_int_eq(out.lines[3].out_column, 3);
	/* the image line reads values.yaml's repository (line 2) */
	ck_assert_int_eq(out.lines[4].line, 7);
	ck_assert_str_eq(out.lines[4].vfile, "c/values.yaml");
	ck_assert_int_eq(out.lines[4].vline, 2);
	/* toYaml's "cpu: \"8\"" is the action's line, values line 15 */
	ck_assert_int_eq(out.lines[7].line, 6);
	ck_assert_str_eq(out.lines[7].file, "c/templates/t.yaml");
	ck_assert_int_eq(out.lines[7].vline, 15);
	ck_assert_int_eq(out.lines[10].vline, 12);
	cpl_gotmpl_free(g);
}
END_TEST

START_TEST(value_functions)
{
	/* shaped like MLBatch's PyTorchJob generator */
	expect("{{- if gt ( int .Values.workers ) 0 }}gpus{{ end }}\n",
	       "gpus\n");
	expect("r: {{ sub .Values.workers 1 }} {{ add 1 2 3 }}\n",
	       "r: 3 6\n");
	expect("{{ len .Values.image.repository }} {{ len .Values.args }}\n",
	       "21 4\n");
	expect("{{ if eq (regexMatch \"^[a-z]([-a-z0-9]*[a-z0-9])?$\" "
	       "\"my-job\") false }}bad{{ else }}ok{{ end }}\n", "ok\n");
	expect("{{ $k := split \"/\" \"example.com/team\" }}{{ $k._0 }} "
	       "{{ $k._1 }}\n", "example.com team\n");
	expect("{{ kindIs \"float64\" .Values.workers }} "
	       "{{ kindIs \"string\" .Values.image.tag }}\n", "true true\n");
	expect("{{ $d := dict \"a\" .Values.workers }}{{ $d.a }} "
	       "{{ hasKey $d \"a\" }}\n", "4 true\n");
	expect("{{ range append .Values.args \"x\" }}{{ . }},{{ end }}\n",
	       "--epochs,3,-,a: b,x,\n");
}
END_TEST

static void
expect_rc(const char *t, int want, int line, int col, const char *words)
{
	struct cpl_gotmpl *g = chart();
	struct cpl_gotmpl_out out;
	struct cpl_error err = { 0 };
	int rc = render(g, t, &out, &err);

	ck_assert_msg(rc == want, "rc %d for %s", rc, t);
	ck_assert_str_eq(err.path, "c/templates/t.yaml");
	ck_assert_int_eq(err.line, line);
	ck_assert_msg(err.column == col, "%s: col %d", t, err.column);
	ck_assert_msg(strstr(err.message, words) != NULL, "%s", err.message);
	cpl_error_clear(&err);
	cpl_gotmpl_free(g);
}

START_TEST(outside_the_subset)
{
	expect_rc("a: 1\nb: {{ tpl .Values.x . }}\n", 1, 2, 7,
		  "function \"tpl\"");
	expect_rc("{{ lookup \"v1\" \"Pod\" \"\" \"\" }}\n", 1, 1, 4,
		  "function \"lookup\"");
	expect_rc("x: {{ .Capabilities.KubeVersion }}\n", 1, 1, 7,
		  ".Capabilities");
	expect_rc("x: {{ .Values.env }}\n", 1, 1, 7, "toYaml");
	expect_rc("x: {{ .Values.when }}\n", 1, 1, 7, "does not model");
	expect_rc("{{ range .Values.args }}{{ break }}{{ end }}\n", 1, 1, 28,
		  "break");
}
END_TEST

START_TEST(errors_with_place)
{
	expect_rc("a:\n  {{- if .Values.workers }}\n  b: 1\n", -1, 2, 7,
		  "if with no {{ end }}");
	expect_rc("a: {{ .Values.workers\nb: 2\n", -1, 1, 4, "unclosed");
	expect_rc("a: {{ .Values.nope.deeper }}\n", -1, 1, 7,
		  "nil pointer");
	expect_rc("a: {{ required \"set image\" .Values.nope }}\n", -1, 1, 7,
		  "set image");
	expect_rc("a: {{ include \"absent\" . }}\n", -1, 1, 7,
		  "no template");
	/* a named template sees only its own variables */
	expect_rc("{{ define \"v\" }}{{ $w }}{{ end }}{{ $w := 1 }}"
		  "{{ include \"v\" . }}\n", -1, 1, 20, "undefined variable");
	/* values are float64 in Helm: comparing one with an int fails */
	expect_rc("{{ if gt .Values.workers 2 }}x{{ end }}\n", -1, 1, 7,
		  "incompatible types");
	expect_rc("{{ fail \"no GPUs\" }}\n", -1, 1, 4, "no GPUs");
}
END_TEST

START_TEST(set_values)
{
	struct cpl_gotmpl *g = chart();
	struct cpl_gotmpl_out out;
	struct cpl_error err = { 0 };

	ck_assert_int_eq(cpl_gotmpl_set(g, "workers=1000000,image.tag=v2",
					 &err), 0);
	ck_assert_int_eq(render(g, "w: {{ .Values.workers }} "
				"{{ .Values.image.tag }} "
				"{{ .Values.image.repository }}\n", &out,
				&err), 0);
	ck_assert_str_eq(out.text, "w: 1000000 v2 reg.example.com/train\n");
	ck_assert_int_eq(cpl_gotmpl_set(g, "a[0]=1", &err), -1);
	cpl_error_clear(&err);
	cpl_gotmpl_free(g);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("gotmpl");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, lookups_and_functions);
	tcase_add_test(tc, trimming_and_control);
	tcase_add_test(tc, to_yaml_as_helm_writes_it);
	tcase_add_test(tc, include_and_files);
	tcase_add_test(tc, line_map);
	tcase_add_test(tc, value_functions);
	tcase_add_test(tc, outside_the_subset);
	tcase_add_test(tc, errors_with_place);
	tcase_add_test(tc, set_values);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
