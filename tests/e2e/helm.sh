#!/bin/sh
# Helm charts through `helm template`: a stand-in helm on PATH prints a
# recorded output (testdata/helm/*.out, in helm's format) and records the
# arguments it was given.  Checks the arguments (the chart, --values
# before --set whatever their order on the command line), that findings
# land at template lines (the evaluator's exact map when it renders the
# same text, else the line that writes the key), that -v and JSON say how
# charts were rendered, and that a failing helm leaves the chart listed
# as not judged with helm's own message.
set -u
SUITE=helm
BIN=${BIN:?}
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/lib.sh"
unset CPULINT_HELM

mkdir -p "$tmp/bin"
cat > "$tmp/bin/helm" <<'SH'
#!/bin/sh
printf '%s\n' "$@" > "$HELM_ARGS"
if [ -n "${HELM_FAIL:-}" ]; then
	echo 'Error: template: finetune/templates/job.yaml:3:4: executing "x" at <.Values.x>: nil pointer' >&2
	exit 1
fi
cat "$HELM_RECORDED"
SH
chmod +x "$tmp/bin/helm"
export HELM_ARGS="$tmp/args"
PATH=$tmp/bin:$PATH
export PATH

# 1. a chart the built-in evaluator renders to the same text
cp -r "$root/testdata/kinds/helm-chart" "$tmp/ft"
printf 'train:\n  epochs: 3\n' > "$tmp/ft/extra.yaml"
cd "$tmp/ft" || exit 1
export HELM_RECORDED="$root/testdata/helm/finetune.out"
expect exact 1 "$BIN" --no-config --color never -v \
	--helm-set train.epochs=3 --helm-values extra.yaml .
check args-order test "$(cat "$HELM_ARGS")" = "template
chart
--values
extra.yaml
--set
train.epochs=3"
has exact-line 'chart/templates/_helpers.tpl:51:7: error: OMP_NUM_THREADS=8 x 4 ranks'
has exact-values 'note: chart/values.yaml:22:1: the value comes from here'
has exact-script 'note: chart/scripts/train.sh:4:32: 4 ranks'
has exact-verbose 'chart: read: Helm chart rendered with helm template'
lacks exact-builtin 'rendered without helm'
expect json 1 "$BIN" --no-config -o json .
has json-helm '"helm": "rendered with helm template"'

# 2. a chart outside the subset: helm renders it, key paths map it
cp -r "$root/testdata/kinds/helm-not-judged" "$tmp/nj"
cd "$tmp/nj" || exit 1
export HELM_RECORDED="$root/testdata/helm/ddp-train.out"
expect by-path 1 "$BIN" --no-config --color never .
has by-path-line 'chart/templates/job.yaml:13:11: warning: container "train" has no CPU request or limit'
lacks by-path-skipped 'not judged'

# 3. helm fails: listed as not judged with its message, the run goes on
HELM_FAIL=1 expect failing 0 "$BIN" --no-config --color never -v .
has failing-summary '1 document with containers not judged'
has failing-message 'helm template failed: Error: template: finetune/templates/job.yaml:3:4'

# 4. without helm on PATH (or with CPULINT_HELM=none) the same chart is
#    the evaluator's; CPULINT_HELM names another helm
cd "$tmp/ft" || exit 1
CPULINT_HELM=none expect no-helm 1 "$BIN" --no-config --color never -v .
has no-helm-verbose 'chart: read: Helm chart rendered without helm'
mv "$tmp/bin/helm" "$tmp/helm-elsewhere"
HELM_RECORDED="$root/testdata/helm/finetune.out" \
CPULINT_HELM="$tmp/helm-elsewhere" expect named-helm 1 "$BIN" --no-config -v .
has named-helm 'chart: read: Helm chart rendered with helm template'
mv "$tmp/helm-elsewhere" "$tmp/bin/helm"
PATH=/usr/bin:/bin expect builtin 1 "$BIN" --no-config --color never -v .
has builtin-verbose 'chart: read: Helm chart rendered without helm'
has builtin-line 'chart/templates/_helpers.tpl:51:7: error: OMP_NUM_THREADS=8 x 4 ranks'
# a walk from inside the chart spells its files as it does any other
cd "$tmp/ft/chart" || exit 1
PATH=/usr/bin:/bin expect inside 1 "$BIN" --no-config --color never .
has inside-line 'templates/_helpers.tpl:51:7: error: OMP_NUM_THREADS=8'
has inside-values 'note: values.yaml:22:1: the value comes from here'
lacks inside-dot './'
finish
