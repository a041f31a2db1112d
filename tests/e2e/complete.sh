#!/bin/sh
# Completion, the manual page and `make install`, for real: the files are
# installed into a temporary prefix, whose bin is put on PATH; the real
# kubectl completes `kubectl cpulint …` through kubectl_complete-cpulint
# (flags, formats, rule ids, and names read from the fake API server);
# the bash and zsh scripts complete the bare command; groff and man render
# the page, which lists every flag of --help and every rule.  Also the
# live side of TYPE NAME and of clean streams (a cluster error prints
# nothing on stdout), through kubectl.
set -u
BIN=${BIN:?}
MAN=${MAN:-build/kubectl-cpulint.1}
SUITE=complete
root=$(pwd)
tmp=$(mktemp -d)
. tests/lib.sh
. tests/live/apiserver.sh
trap 'apiserver_stop; rm -rf "$tmp"' EXIT

case $MAN in /*) ;; *) MAN=$root/$MAN ;; esac
# make install, without rebuilding what the suite was given
make --no-print-directory -s -o "$BIN" -o "$MAN" install \
	DESTDIR="$tmp/inst" PREFIX=/usr BIN="$BIN" MAN="$MAN" >"$tmp/install" 2>&1 ||
	{ bad "make install"; cat "$tmp/install"; }
P=$tmp/inst/usr
check installed-bin [ -x "$P/bin/kubectl-cpulint" ]
check installed-hook [ -L "$P/bin/kubectl_complete-cpulint" ]
check installed-hook-target [ "$(readlink "$P/bin/kubectl_complete-cpulint")" = kubectl-cpulint ]
check installed-man [ -f "$P/share/man/man1/kubectl-cpulint.1" ]
check installed-bash [ -f "$P/share/bash-completion/completions/kubectl-cpulint" ]
check installed-zsh [ -f "$P/share/zsh/site-functions/_kubectl-cpulint" ]
mkdir -p "$tmp/home"
export PATH="$P/bin:$PATH" HOME="$tmp/home"
unset KUBECONFIG

# The manual page renders without warnings and cannot drift: every flag
# of --help and every rule of the registry is in it.
page=$P/share/man/man1/kubectl-cpulint.1
if groff -man -Tutf8 -ww -z "$page" 2>"$tmp/groff" && [ ! -s "$tmp/groff" ]
then ok; else bad "groff warns:"; head -5 "$tmp/groff"; fi
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man -P cat -l "$page" 2>/dev/null | col -b > "$tmp/man.txt"
else
	groff -man -Tascii "$page" | col -b > "$tmp/man.txt"
fi
grep -q "^NAME" "$tmp/man.txt" && ok || bad "the page does not render"
for flag in $(kubectl-cpulint --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	grep -qF -- "$flag" "$tmp/man.txt" && ok || bad "manual lacks $flag"
done
for id in $(kubectl-cpulint --list-rules | cut -d' ' -f1); do
	grep -q "^ *$id " "$tmp/man.txt" && ok || bad "manual lacks rule $id"
done

# kubectl's plugin completion, offline parts.
kc() { kubectl __complete cpulint "$@" 2>/dev/null; }
all=$(kc "")
has kubectl-types "pod/"
has kubectl-types2 "pytorchjob/"
has kubectl-types3 "mpijob/"
has kubectl-types-nospace ":2"
all=$(kc --out)
has kubectl-flags "--output	the format: text (default), json, sarif"
has kubectl-flags2 "--output-file"
lacks kubectl-flags3 "--staged"
all=$(kc -o "")
has kubectl-formats "sarif"
has kubectl-formats-nofile ":4"
all=$(kc --output=j)
has kubectl-output-eq "--output=json"
all=$(kc --explain CPU40)
has kubectl-rules "CPU401	cpu-oversubscribed"
has kubectl-rules2 "CPU403	nproc-auto-on-cpu"
lacks kubectl-rules3 "CPU101"
all=$(kc --explain cpu-ov)
has kubectl-rule-names "cpu-oversubscribed	CPU401"
all=$(kc --fail-on "")
has kubectl-fail-on "warning"
all=$(kc -f "")
has kubectl-files ":0"

# Names from the cluster the command line points at.
apiserver_start || { bad "the fake API server"; finish; }
K=$APISERVER_DIR/kubeconfig
# Live words from a directory that holds none of the same name: a path
# that exists wins over a resource type ("deploy" is also the repository's
# deploy/ folder).
mkdir -p "$tmp/cwd" && cd "$tmp/cwd" || exit 1
all=$(kc --kubeconfig "$K" -n ml pod/)
has names-slash "pod/train-0"
has names-slash2 "pod/train-1"
all=$(kc --kubeconfig "$K" -n ml pod/train-1)
has names-prefix "pod/train-1"
lacks names-prefix2 "pod/train-0"
all=$(kc --kubeconfig "$K" -n serving deploy "")
has names-type-name "tokenizer"
all=$(kc -n ml --kubeconfig "$K" pytorchjob/)
has names-pytorchjob "pytorchjob/resnet"
all=$(kc --kubeconfig "$K" -n "")
has namespaces "serving"
has namespaces2 "ml"
grep -q '"path": "/api/v1/namespaces/ml/pods"' "$APISERVER_DIR/requests.jsonl" &&
	ok || bad "pods not listed in namespace ml"
# an unreachable cluster: nothing offered, nothing on stderr, quickly
expect names-down 0 timeout 20 kubectl_complete-cpulint \
	--kubeconfig "$tmp/nothere" pod/
check names-down-quiet [ -z "$err" ]
check names-down-directive [ "$out" = ":4" ]

# The bare command's bash script.
bashc() {
	bash -c '. "$1"; shift
COMP_LINE=$1 COMP_POINT=${#1}
COMP_WORDS=($1); [[ $1 == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
w=${COMP_WORDS[COMP_CWORD]}; COMP_WORDS[COMP_CWORD]=${w##*=}	# as bash splits
_kubectl_cpulint; printf "%s\n" "${COMPREPLY[@]}"' bash \
	"$P/share/bash-completion/completions/kubectl-cpulint" "$1"
}
all=$(bashc "kubectl-cpulint -o ")
has bash-formats "github"
all=$(bashc "kubectl-cpulint --explain CPU30")
has bash-rules "CPU305"
lacks bash-rules2 "CPU401"
all=$(bashc "kubectl-cpulint --kubeconfig $K -n ml pod/tr")
has bash-names "pod/train-0"
all=$(bashc "kubectl-cpulint --fail-on=er")
has bash-eq "error"
lacks bash-eq2 "--fail-on=error"

# The bare command's zsh script (the completion system's functions are
# stubbed: they print what they were given).
if command -v zsh >/dev/null 2>&1; then
	zshc() {
		zsh -f -c '_describe() { print -l -- "${(@P)4}"; }
_files() { print FILES; }
compdef() { :; }
. "$1"
words=(${=2}); [[ $2 == *" " ]] && words+=("")
CURRENT=${#words}
_kubectl-cpulint' zsh "$P/share/zsh/site-functions/_kubectl-cpulint" "$1"
	}
	all=$(zshc "kubectl-cpulint -o ")
	has zsh-formats "sarif"
	all=$(zshc "kubectl-cpulint --explain CPU40")
	has zsh-rules "CPU401:cpu-oversubscribed"
	all=$(zshc "kubectl-cpulint --kubeconfig $K -n ml pod/")
	has zsh-names "pod/train-1"
	all=$(zshc "kubectl-cpulint --config ")
	has zsh-files "FILES"
else
	bad "zsh is not installed (tools/install-deps.sh installs it)"
fi

# kubectl get -o yaml (a List) piped in.
all=$(kubectl get pods -n ml -o yaml --kubeconfig "$K" | kubectl cpulint -f - 2>&1)
has kubectl-get-stdin "<stdin>:"
has kubectl-get-stdin2 "busy threads on a budget of 8 CPUs (container \"pytorch\")"

# TYPE NAME through kubectl, and a cluster error leaves stdout empty.
expect type-name 1 kubectl cpulint pod train-0 -n ml --kubeconfig "$K"
has type-name "pod/ml/train-0[pytorch]: error:"
expect type-names 1 kubectl cpulint pod train-0 train-1 -n ml --kubeconfig "$K"
has type-names "pod/ml/train-1[pytorch]: error:"
expect type-deploy 1 kubectl cpulint deploy tokenizer -n serving --kubeconfig "$K" -v
has type-deploy "owned by Deployment/serving/tokenizer"
has type-deploy-finding "[CPU204 thread-count-from-host]"
expect type-alone 1 kubectl cpulint pods -n ml --kubeconfig "$K"
has type-alone "pod/ml/train-1[pytorch]"
expect type-alone-deploy 2 kubectl cpulint deploy -n ml --kubeconfig "$K"
has type-alone-deploy "only pods can be listed; name the deployment"
expect cluster-error 2 kubectl cpulint pod/train-0 -n ml --kubeconfig "$K" --context fake-bad-token
check cluster-error-stdout [ -z "$out" ]
has cluster-error "unauthorized"
expect cluster-error-sarif 2 kubectl cpulint -o sarif --output-file "$tmp/c.sarif" pod/train-0 --kubeconfig "$K" --context fake-bad-token
check cluster-error-no-file [ ! -e "$tmp/c.sarif" ]
finish
