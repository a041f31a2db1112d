#!/bin/sh
# Directory walks: one rule set for the plain walk and the git walk (a
# repository and a plain copy of it give the same files), Helm charts and
# other templates met in a walk (skipped with a -v line) or named (an
# error), Polyaxonfiles with {{ x }} inside strings still linted.
set -u
SUITE=walk
BIN=${BIN:?}
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/lib.sh"
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/xdg GIT_CONFIG_NOSYSTEM=1
export CPULINT_HELM=none	# the built-in evaluator, helm installed or not
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
mkdir -p "$HOME" "$XDG_CONFIG_HOME"

bad_yaml() { cat "$root/testdata/example/polyaxonfile.yaml"; }
bad_py() {
cat <<'PY'
import os
from multiprocessing import Pool

pool = Pool(os.cpu_count())
PY
}
# The files each finding names, one per line, sorted.
files_of() { printf '%s\n' "$1" | sed -n 's/^\([^: ]*\):[0-9]*:[0-9]*: .*/\1/p' | sort -u; }

# 1. the same files from a git walk, a plain walk and the index
r=$tmp/repo
mkdir -p "$r" && cd "$r" || exit 1
git init -q .
for d in ok ok/deep .hid venv __pycache__ node_modules site-packages \
	 sub/venv sub/.cache my_venv; do
	mkdir -p "$d"
	bad_yaml > "$d/p.yaml"
	bad_py > "$d/x.py"
done
bad_yaml > .hidden.yaml
bad_py > .hidden.py
bad_yaml > top.yaml
bad_py > top.py
git add -A && git commit -qm files
expect git-walk 1 "$BIN" --no-config .
git_files=$(files_of "$out")
expect git-staged 1 "$BIN" --no-config --staged .
staged_files=$(files_of "$out")
mkdir "$tmp/copy" && git archive HEAD | tar -x -C "$tmp/copy"
cd "$tmp/copy" || exit 1
check copy-is-plain test ! -e .git
expect plain-walk 1 "$BIN" --no-config .
plain_files=$(files_of "$out")
want='my_venv/p.yaml
my_venv/x.py
ok/deep/p.yaml
ok/deep/x.py
ok/p.yaml
ok/x.py
top.py
top.yaml'
check "git walk lists: $git_files" test "$git_files" = "$want"
check "plain walk lists: $plain_files" test "$plain_files" = "$want"
check "staged walk lists: $staged_files" test "$staged_files" = "$want"
# A hidden or vendored directory named on the command line is walked.
expect named-hidden 1 "$BIN" --no-config .hid
has named-hidden ".hid/p.yaml:23:14: error:"
expect named-venv-file 1 "$BIN" --no-config venv/x.py
has named-venv-file "venv/x.py:4:"
# Excluding a directory by a glob prunes it in both walks.
printf 'exclude:\n  - "**/deep"\n' > .cpulint.yaml
expect plain-exclude 1 "$BIN" .
lacks plain-exclude "ok/deep/"
cp .cpulint.yaml "$r/" && cd "$r" || exit 1
expect git-exclude 1 "$BIN" .
lacks git-exclude "ok/deep/"
cd "$root"

# 2. Helm charts met in a walk are rendered (tests/e2e/helm.sh); this one
#    has a subchart, which the built-in evaluator does not render, so it
#    is listed as not judged with the command (its subchart with it, not
#    on its own); other templates met in a walk are skipped (-v says so),
#    in a plain directory and in a repository; named, an error
helm_repo() {
	mkdir -p "$1/chart/templates/sub" "$1/chart/charts/db/templates" \
		 "$1/jobs" "$1/kust"
	cd "$1" || exit 1
	printf 'apiVersion: v2\nname: app\nversion: 0.1.0\n' > chart/Chart.yaml
	printf 'apiVersion: v2\nname: db\nversion: 0.1.0\n' > chart/charts/db/Chart.yaml
	printf 'name: app\nworkers: 8\n' > chart/values.yaml
	cat > chart/templates/deployment.yaml <<'TPL'
{{- if .Values.enabled }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "app.fullname" . }}
spec:
  template:
    spec:
      containers:
      - name: app
        resources:
          {{- toYaml .Values.resources | nindent 10 }}
{{- end }}
TPL
	cat > chart/templates/sub/pod.yaml <<'TPL'
apiVersion: v1
kind: Pod
metadata:
  name: {{ .Values.name }}
spec:
  containers: [{name: x, image: y}]
TPL
	cp chart/templates/sub/pod.yaml chart/charts/db/templates/pod.yaml
	# A template outside any chart (parses: {{ }} reads as a mapping).
	cp chart/templates/sub/pod.yaml kust/pod.yaml
	# A Polyaxonfile whose templates are all inside strings still lints.
	{ bad_yaml; printf '    command2: python train.py --lr={{ lr }}\n'; } \
		| sed 's/^    command2:/    workingDir:/' > jobs/polyaxonfile.yaml
	cat > jobs/block.yaml <<'YAML'
version: 1.1
kind: component
inputs: [{name: w, type: int, value: 8}]
run:
  kind: job
  container:
    image: pytorch/pytorch
    command: ["/bin/bash", "-c"]
    args:
    - |
      {{ globals.run_artifacts_path }}/setup.sh
      torchrun --nproc_per_node=4 train.py --workers={{ w }}
    env: [{name: OMP_NUM_THREADS, value: "8"}]
    resources: {requests: {cpu: 4}, limits: {cpu: 4}}
YAML
}
for kind in plain git; do
	d=$tmp/helm-$kind
	helm_repo "$d"
	if [ $kind = git ]; then git init -q . && git add -A && git commit -qm c; fi
	expect "helm-$kind" 1 "$BIN" --no-config -v .
	has "helm-$kind-lints" "jobs/polyaxonfile.yaml:23:14: error: OMP_NUM_THREADS=8"
	has "helm-$kind-block" "jobs/block.yaml:"
	has "helm-$kind-note" "kubectl-cpulint: skipped Helm chart chart (chart/Chart.yaml:1): not judged (it holds containers): a chart with subcharts or dependencies (outside the template subset the tool evaluates without helm); render it with helm template chart | kubectl cpulint -f -"
	lacks "helm-$kind-subchart" "chart/charts/db/templates"
	has "helm-$kind-loose" "kubectl-cpulint: kust/pod.yaml: skipped: a template ({{ ... }} outside a string at line 4)"
	lacks "helm-$kind-no-error" "error: a template"
	lacks "helm-$kind-no-parse-error" "deployment.yaml"
	check "helm-$kind-one-line" test "$(printf '%s\n' "$err" | grep -c 'skipped Helm chart')" = 1
	expect "helm-$kind-quiet" 1 "$BIN" --no-config .
	lacks "helm-$kind-quiet" "skipped"
	# Named on the command line, a template is an error.
	expect "helm-$kind-named" 2 "$BIN" --no-config chart/templates/deployment.yaml jobs/polyaxonfile.yaml
	has "helm-$kind-named" "chart/templates/deployment.yaml:1:1: error: a template ({{ ... }} outside a string), not YAML to lint"
	has "helm-$kind-named-others" "jobs/polyaxonfile.yaml:23:14"
	expect "helm-$kind-named-parsed" 2 "$BIN" --no-config kust/pod.yaml
	has "helm-$kind-named-parsed" "kust/pod.yaml:4:9: error: a template"
	# pre-commit names every YAML file: --ignore-unknown skips as a walk does.
	expect "helm-$kind-ignore-unknown" 1 "$BIN" --no-config --ignore-unknown -v chart/templates/deployment.yaml chart/templates/sub/pod.yaml kust/pod.yaml jobs/polyaxonfile.yaml
	has "helm-$kind-ignore-unknown" "skipped Helm chart chart (chart/Chart.yaml:1)"
	lacks "helm-$kind-ignore-unknown" "error: a template"
	# A walk started inside the chart's templates still knows the chart.
	expect "helm-$kind-inside" 0 "$BIN" --no-config -v chart/templates
	has "helm-$kind-inside" "skipped Helm chart chart (chart/Chart.yaml:1)"
	cd "$root"
done

# 3. a broken Polyaxonfile whose templates are inside strings stays an
#    error in a walk (it is not a template)
d=$tmp/broken && mkdir -p "$d" && cd "$d" || exit 1
{ bad_yaml; printf '    args2: ["--lr={{ lr }}", [\n'; } > polyaxonfile.yaml
expect broken-plx 2 "$BIN" --no-config -v .
has broken-plx "polyaxonfile.yaml:34:1: error:"
lacks broken-plx "skipped"
cd "$root"

# 4. the linker is spared a stat for what a plain walk listed as missing,
#    and still finds what the walk listed but did not walk: a module that
#    is a link, one in a hidden directory through a link, a package
#    through a linked directory, and a missing module next to them
d=$tmp/links/app && mkdir -p "$d/real" "$d/.hid" "$d/.lnk" && cd "$d" || exit 1
sed 's|shared/train.py|train.py|' "$root/testdata/groups/team-a/job.yaml" > job.yaml
printf 'import torch\nimport missing_mod\nfrom helpers import make\nfrom hidden_mod import W\nimport linkdir.m\nif __name__ == "__main__":\n    make(W, linkdir.m.N)\n' > train.py
printf 'import os\nfrom torch.utils.data import DataLoader\ndef make(w, n):\n    return DataLoader([], num_workers=os.cpu_count())\n' > real/helpers.py
ln -s real/helpers.py helpers.py
printf 'W = 2\n' > .hid/hm.py && ln -s .hid/hm.py hidden_mod.py
printf 'import torch\ntorch.set_num_threads(16)\nN = 1\n' > .lnk/m.py && ln -s .lnk linkdir
cd "$tmp/links"
expect links-linked 1 "$BIN" --no-config --color never .
has links-linked "app/real/helpers.py:4:39: warning: os.cpu_count() sizes num_workers"
has links-linked "app/job.yaml:11:9: warning: DataLoader workers"
# torch.set_num_threads(16) in the linked directory's module: 16 + 1 > 4
has links-linked "app/job.yaml:19:18: error: 1 rank x (16 intra-op threads"
cd "$root"

finish
