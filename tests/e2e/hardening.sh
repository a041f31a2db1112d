#!/bin/sh
# Hostile and huge inputs, each a regression test for a defect once found:
# YAML merge-key bombs (in a linted file and in .cpulint.yaml), duplicate
# keys, FIFOs wherever a file is read, huge counts that once overflowed.
# Timeouts turn a hang into a failure instead of a stuck suite.
set -u
BIN=${BIN:?}
SUITE=hardening
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
T="timeout 20"

# A 1 KB merge bomb: 10 merges of the level below, 15 levels deep.
bomb() {
	echo "a0: &a0 {k0: 0}"
	i=1
	while [ $i -le 15 ]; do
		p=$((i - 1))
		printf 'a%d: &a%d {<<: [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d], k%d: %d}\n' \
			$i $i $p $p $p $p $p $p $p $p $p $p $i $i
		i=$((i + 1))
	done
}
mkdir -p "$tmp/b"
{ printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata:\n'
  bomb | sed 's/^/  /'; } > "$tmp/b/bomb.yaml"
cp testdata/example/polyaxonfile.yaml "$tmp/b/polyaxonfile.yaml"
expect merge-bomb-file 1 $T "$BIN" --no-config "$tmp/b"
has merge-bomb-file "CPU202"
{ bomb; echo "rules: {CPU102: off}"; } > "$tmp/b/.cpulint.yaml"
expect merge-bomb-config 2 $T "$BIN" "$tmp/b/polyaxonfile.yaml"
has merge-bomb-config ".cpulint.yaml:1:1: error: unknown configuration key"

# Duplicate keys: the last value wins (as PyYAML), with a warning.
rm -f "$tmp/b/.cpulint.yaml"
cat > "$tmp/b/dup.yaml" <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: dup}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: train
        image: pytorch/pytorch
        command: [torchrun, --nproc_per_node, "2", train.py]
        env:
        - {name: OMP_NUM_THREADS, value: "8"}
        resources:
          limits: {cpu: "16"}
          limits: {cpu: "4"}
YAML
expect duplicate-key 1 $T "$BIN" --no-config "$tmp/b/dup.yaml"
has duplicate-key "dup.yaml:16:11: warning: duplicate key \"limits\" (the last value is used)"
has duplicate-key "16 threads on a budget of 4 CPUs"

# Huge counts: saturating arithmetic reports them, never wraps to "fine".
huge=9223372036854775807
job() {	# name omp nproc
cat <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: train
        image: pytorch/pytorch
        command: [torchrun, --nproc_per_node, "$3", train.py]
        env:
        - {name: OMP_NUM_THREADS, value: "$2"}
        resources:
          limits: {cpu: "4"}
YAML
}
job huge-omp $huge 2 > "$tmp/b/huge1.yaml"
expect huge-omp 1 $T "$BIN" --no-config "$tmp/b/huge1.yaml"
has huge-omp "CPU202"
has huge-omp "= $huge threads"
lacks huge-omp "= -"
job huge-ranks 2 $huge > "$tmp/b/huge2.yaml"
expect huge-ranks 1 $T "$BIN" --no-config "$tmp/b/huge2.yaml"
has huge-ranks "CPU401"
lacks huge-ranks "= -"
job huge-both $huge $huge > "$tmp/b/huge3.yaml"
expect huge-both 1 $T "$BIN" --no-config "$tmp/b/huge3.yaml"
has huge-both "CPU202"
lacks huge-both "= -"

# A List whose items name no kind: an error at the item, never a silent
# "no findings"; a typed PodList implies its items' kind and apiVersion.
cat > "$tmp/b/list.yaml" <<'YAML'
apiVersion: v1
kind: List
items:
- metadata: {name: a}
  spec:
    restartPolicy: Never
    containers:
    - {name: t, image: x, command: [torchrun, --nproc_per_node, "4", t.py], env: [{name: OMP_NUM_THREADS, value: "8"}], resources: {limits: {cpu: "2"}}}
YAML
expect list-untyped-items 2 $T "$BIN" --no-config "$tmp/b/list.yaml"
has list-untyped-items "list.yaml:4:3: error: list item without kind or apiVersion"
sed 's/^kind: List/kind: PodList/' "$tmp/b/list.yaml" > "$tmp/b/podlist.yaml"
expect podlist-items 1 $T "$BIN" --no-config "$tmp/b/podlist.yaml"
has podlist-items "CPU202"

# FIFOs: refused at once wherever a file is read, never waited on.
mkfifo "$tmp/fifo.yaml"
expect fifo-path 2 $T "$BIN" --no-config "$tmp/fifo.yaml"
has fifo-path "fifo.yaml: error: not a regular file (a FIFO)"
expect fifo-config 2 $T "$BIN" --config "$tmp/fifo.yaml" testdata/example
has fifo-config "not a regular file (a FIFO)"
mkdir -p "$tmp/c"
cp testdata/example/polyaxonfile.yaml "$tmp/c/"
mkfifo "$tmp/c/.cpulint.yaml"
expect fifo-dotconfig 2 $T "$BIN" "$tmp/c/polyaxonfile.yaml"
has fifo-dotconfig "not a regular file (a FIFO)"
expect fifo-kubeconfig 2 $T "$BIN" --kubeconfig "$tmp/fifo.yaml" pod/x
has fifo-kubeconfig "not a regular file (a FIFO)"

finish
