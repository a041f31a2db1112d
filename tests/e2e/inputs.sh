#!/bin/sh
# Every file a run reads is an input, and no output replaces an input
# (issue 40, points 1, 2, 13, 18): --output-file and --write-baseline
# refuse, with one line and exit 2, writing nothing, the wrapper script
# a container runs, the Dockerfile whose ENTRYPOINT it runs, the
# .cpulint.yaml found or named, the --baseline read, and compare's --fix
# FILE: by any name (the same device and inode), a symbolic link too.  A
# baseline that is a FIFO is refused at once, one over 16 MiB too; a
# wrapper script too large to read is said, not skipped in silence.
set -u
BIN=${BIN:?}
SUITE=inputs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
T="timeout 20"

# unchanged NAME FILE COPY: FILE still holds COPY's bytes
unchanged() { cmp -s "$2" "$3" && ok || bad "$1: $2 was written over"; }

# 1. the wrapper script a container runs (read by the linker, not named)
cp -R testdata/kinds/wrapper-script-nested "$tmp/w"
cp "$tmp/w/scripts/train.sh" "$tmp/train.sh.orig"
cp "$tmp/w/scripts/launch_ddp.sh" "$tmp/launch.sh.orig"
expect wrapper-output 2 $T "$BIN" --no-config "$tmp/w/job.yaml" --output-file "$tmp/w/scripts/train.sh"
has wrapper-output "kubectl-cpulint: --output-file $tmp/w/scripts/train.sh is a file this run read: the report would replace it"
unchanged wrapper-output "$tmp/w/scripts/train.sh" "$tmp/train.sh.orig"
# the script that one hands over to, through a symbolic link, from a walk
ln -s "$tmp/w/scripts/launch_ddp.sh" "$tmp/link.txt"
expect wrapper-baseline 2 $T "$BIN" --no-config "$tmp/w" --write-baseline "$tmp/link.txt"
has wrapper-baseline "--write-baseline $tmp/link.txt is a file this run read: the baseline would replace it"
unchanged wrapper-baseline "$tmp/w/scripts/launch_ddp.sh" "$tmp/launch.sh.orig"
# plan reads them too
expect wrapper-plan 2 $T "$BIN" plan --no-config "$tmp/w/job.yaml" --output-file "$tmp/w/scripts/train.sh"
has wrapper-plan "--output-file $tmp/w/scripts/train.sh is a file this run read: the plan would replace it"
unchanged wrapper-plan "$tmp/w/scripts/train.sh" "$tmp/train.sh.orig"
# an output beside them is written as before
expect wrapper-elsewhere 1 $T "$BIN" --no-config "$tmp/w/job.yaml" --output-file "$tmp/w/report.txt"
check wrapper-elsewhere-written grep -q CPU202 "$tmp/w/report.txt"

# 2. the Dockerfile whose ENTRYPOINT a container with no command runs
cp -R testdata/kinds/dockerfile-entrypoint "$tmp/d"
cp "$tmp/d/Dockerfile" "$tmp/Dockerfile.orig"
expect dockerfile-output 2 $T "$BIN" --no-config "$tmp/d/k8s/job.yaml" --output-file "$tmp/d/Dockerfile"
has dockerfile-output "--output-file $tmp/d/Dockerfile is a file this run read"
unchanged dockerfile-output "$tmp/d/Dockerfile" "$tmp/Dockerfile.orig"

# 3. .cpulint.yaml, found or named
printf 'rules:\n  CPU102: off\n' > "$tmp/w/.cpulint.yaml"
cp "$tmp/w/.cpulint.yaml" "$tmp/config.orig"
expect config-found 2 $T "$BIN" "$tmp/w/job.yaml" --output-file "$tmp/w/.cpulint.yaml"
has config-found "--output-file $tmp/w/.cpulint.yaml is a file this run read"
unchanged config-found "$tmp/w/.cpulint.yaml" "$tmp/config.orig"
expect config-found-baseline 2 $T "$BIN" "$tmp/w/job.yaml" --write-baseline "$tmp/w/.cpulint.yaml"
unchanged config-found-baseline "$tmp/w/.cpulint.yaml" "$tmp/config.orig"
cp "$tmp/config.orig" "$tmp/named.yaml"
ln "$tmp/named.yaml" "$tmp/hardlink.yaml"
expect config-named 2 $T "$BIN" --config "$tmp/named.yaml" "$tmp/w/job.yaml" --output-file "$tmp/hardlink.yaml"
has config-named "--output-file $tmp/hardlink.yaml is $tmp/named.yaml, an input of this run"
unchanged config-named "$tmp/named.yaml" "$tmp/config.orig"
expect config-plan 2 $T "$BIN" plan --config "$tmp/named.yaml" "$tmp/w/job.yaml" --output-file "$tmp/named.yaml"
unchanged config-plan "$tmp/named.yaml" "$tmp/config.orig"
rm "$tmp/w/.cpulint.yaml"

# 4. the baseline read: no report over it (writing the baseline again
# over the one read is its documented refresh)
"$BIN" --no-config "$tmp/w" --write-baseline "$tmp/base.json" >/dev/null 2>&1
cp "$tmp/base.json" "$tmp/base.orig"
expect baseline-output 2 $T "$BIN" --no-config "$tmp/w" --baseline "$tmp/base.json" --output-file "$tmp/base.json"
has baseline-output "--output-file $tmp/base.json is $tmp/base.json, an input of this run"
unchanged baseline-output "$tmp/base.json" "$tmp/base.orig"
expect baseline-refresh 0 $T "$BIN" --no-config "$tmp/w" --baseline "$tmp/base.json" --write-baseline "$tmp/base.json"
has baseline-refresh "wrote 2 findings to the baseline"

# 5. a baseline that is a FIFO is refused at once; one over 16 MiB too
mkfifo "$tmp/fifo.json"
expect baseline-fifo 2 $T "$BIN" --no-config "$tmp/w" --baseline "$tmp/fifo.json"
has baseline-fifo "kubectl-cpulint: --baseline $tmp/fifo.json: not a regular file (a FIFO)"
python3 -c 'import sys; sys.stdout.write("{\"version\": 1, \"findings\": [" + ",".join(["{\"fingerprint\": \"%064d\"}" % i for i in range(230000)]) + "]}")' > "$tmp/big.json"
expect baseline-big 2 $T "$BIN" --no-config "$tmp/w" --baseline "$tmp/big.json"
has baseline-big "--baseline $tmp/big.json: file is too large"
check baseline-big-no-report [ -z "$out" ]

# 6. a wrapper script too large to read is said, not skipped in silence
cp -R testdata/kinds/wrapper-script-nested "$tmp/big"
{ cat "$tmp/big/scripts/train.sh"; python3 -c 'print("# padding\n" * 120000)'; } > "$tmp/big/scripts/t" && mv "$tmp/big/scripts/t" "$tmp/big/scripts/train.sh"
expect script-big 0 $T "$BIN" --no-config "$tmp/big/job.yaml"
has script-big "scripts/train.sh: warning: larger than 1048576 bytes: not read for the command it runs"
expect script-big-v 0 $T "$BIN" --no-config -v "$tmp/big/job.yaml"
has script-big-v "not read: larger than 1048576 bytes"

# 8. a kustomization that lists a complete manifest (every container
# names its image) as a patch does not hide it from a whole-tree run: it
# is judged; a real patch (a container without an image) is still
# skipped, as docs/inputs.md says
cp -R testdata/kinds/kustomize-patch "$tmp/k"
cat > "$tmp/k/train.yaml" <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: hidden}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: train
        image: registry.example.com/train:1
        command: ["torchrun", "--nproc_per_node", "4", "train.py"]
        env: [{name: OMP_NUM_THREADS, value: "8"}]
        resources: {limits: {cpu: "4", nvidia.com/gpu: 4}}
YAML
printf 'resources: []\npatchesStrategicMerge:\n  - train.yaml\n' > "$tmp/k/kustomization.yaml"
expect kustomize-real 1 $T "$BIN" --no-config "$tmp/k"
has kustomize-real "train.yaml:12:"
has kustomize-real "OMP_NUM_THREADS=8 x 4 ranks"
expect kustomize-patch-v 1 $T "$BIN" --no-config -v "$tmp/k"
has kustomize-patch-v "env-patch.yaml"
has kustomize-patch-v "a kustomize patch of"
lacks kustomize-patch-v "train.yaml: a kustomize patch"

# 7. serve with a missing or invalid --config refuses to start (exit 2,
# one line), rather than failing every review on it
CPL_CERT_SANS="IP:127.0.0.1,DNS:localhost" sh deploy/make-cert.sh "$tmp/cert" >/dev/null 2>&1 || bad "make-cert.sh failed"
S="--no-audit --listen 127.0.0.1:0 --tls-cert-file $tmp/cert/tls.crt --tls-private-key-file $tmp/cert/tls.key"
expect serve-config-missing 2 timeout 5 "$BIN" serve $S --config "$tmp/none.yaml"
has serve-config-missing "kubectl-cpulint serve: error: $tmp/none.yaml: cannot read"
lacks serve-config-missing "listening"
printf 'rules: {CPU999: off}\n' > "$tmp/bad-config.yaml"
expect serve-config-invalid 2 timeout 5 "$BIN" serve $S --config "$tmp/bad-config.yaml"
has serve-config-invalid "kubectl-cpulint serve: error: $tmp/bad-config.yaml:1:"
check serve-config-one-line [ "$(printf '%s\n' "$err" | grep -c .)" = 1 ]

finish
