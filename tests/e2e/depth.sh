#!/bin/sh
# Deep input, generated: no file, however nested, exhausts the stack.
# Python run by a Pod (so its values are resolved): 200,000 prefix
# operators (- + ~ not) in a thread setting and a DataLoader's
# num_workers, a 200,000-deep chain of ** and of conditionals; brackets
# and f-strings nested past CPython's own limits (one error at the line
# and column, as CPython gives); 150 parentheses (Python, but past the
# resolver's bound: the value is unknown, so no CPU305) beside 60 (read).
# A shell command of 100,000 launchers run by launchers.  YAML: an alias
# inside the node it names, in a manifest and in a kubeconfig (a cycle a
# walk never left).  Run under ASan too (make asan), whose frames are
# larger.  Timeouts turn a hang into a failure.
set -u
BIN=${BIN:?}
SUITE=depth
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
T="timeout 120"

# case NAME PYTHON-TEXT: a directory with a Pod that runs train.py.
case_py() {
	mkdir -p "$tmp/$1"
	cat > "$tmp/$1/pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: t
    image: pytorch
    command: [torchrun, --nproc_per_node, "2", train.py]
    env: [{name: OMP_NUM_THREADS, value: "1"}]
    resources: {limits: {cpu: "4"}}
YAML
	printf '%s' "$2" > "$tmp/$1/train.py"
}

# rep TEXT N: TEXT N times.
rep() {
	python3 -c 'import sys; sys.stdout.write(sys.argv[1] * int(sys.argv[2]))' \
		"$1" "$2"
}

H='import torch
from torch.utils.data import DataLoader
'
for op in - + '~' 'not '; do
	case_py prefix "$H
torch.set_num_threads($(rep "$op" 200000)8)
d = DataLoader(ds, num_workers=$(rep "$op" 200000)2)
"
	expect "prefix $op" 0 $T "$BIN" --no-config "$tmp/prefix"
	lacks "prefix $op" "CPU305"
done
case_py chains "$H
x = 1$(rep ' ** 1' 200000)
y = $(rep '1 if True else ' 200000)8
torch.set_num_threads(x)
torch.set_num_threads(y)
"
expect chains 0 $T "$BIN" --no-config "$tmp/chains"

# Brackets: 200 nested are Python, the 201st is CPython's error.
case_py brackets "$H
torch.set_num_threads($(rep '(' 200000)8$(rep ')' 200000))
"
expect brackets 2 $T "$BIN" --no-config "$tmp/brackets"
has brackets "train.py:4:222: error: too many nested parentheses"
case_py fstrings "$H
s = $(rep 'f"{' 100000)1$(rep '}"' 100000)
"
expect fstrings 2 $T "$BIN" --no-config "$tmp/fstrings"
has fstrings "train.py:4:456: error: too many nested f-strings"

# 60 parentheses are read (8 threads x 2 ranks over 4 CPUs); 150 are
# past the resolver's bound, so the value is unknown and nothing fires.
case_py paren60 "$H
torch.set_num_threads($(rep '(' 60)8$(rep ')' 60))
"
expect paren60 1 $T "$BIN" --no-config "$tmp/paren60"
has paren60 "CPU305"
case_py paren150 "$H
torch.set_num_threads($(rep '(' 150)8$(rep ')' 150))
"
expect paren150 0 $T "$BIN" --no-config "$tmp/paren150"
lacks paren150 "CPU305"

# Launchers run by launchers, 100,000 deep.
mkdir -p "$tmp/launch"
{
	printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n'
	printf '  containers:\n  - name: t\n    image: pytorch\n'
	printf '    command: [sh, -c, "torchrun%s t.py"]\n' \
		"$(rep ' --no-python python -m torch.distributed.run' 100000)"
	printf '    resources: {limits: {cpu: "4"}}\n'
} > "$tmp/launch/pod.yaml"
expect launch 1 $T "$BIN" --no-config "$tmp/launch/pod.yaml"
has launch "CPU201"

# An alias inside the node it names.
cat > "$tmp/alias.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: &c
  - name: t
    image: pytorch
    command: [torchrun, --nproc_per_node, "2", t.py]
    sidecars: *c
YAML
expect alias 2 $T "$BIN" --no-config "$tmp/alias.yaml"
has alias "alias.yaml:9:15: error: alias *c is inside the node it names"
cat > "$tmp/kubeconfig" <<'YAML'
apiVersion: v1
kind: Config
current-context: c
contexts:
- name: c
  context: {cluster: k, user: u}
clusters:
- name: k
  cluster:
    server: https://127.0.0.1:1
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: &e {a: *e}
users:
- name: u
  user: {token: t}
YAML
expect kubeconfig-alias 2 $T "$BIN" --kubeconfig "$tmp/kubeconfig" \
	--request-timeout 2s pod/x
has kubeconfig-alias "kubeconfig:13:25: error: alias *e is inside the node it names"
finish
