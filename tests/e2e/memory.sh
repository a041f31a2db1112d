#!/bin/sh
# Memory that -j shares: eight 12 MB YAML files in a directory, linted at
# -j 1 and at -j 8.  Parsing a file takes several times its size at the
# peak; the pipeline admits a file to a thread only while the files being
# parsed stay under CPL_ENGINE_PARSE_BUDGET (32 MiB, engine.h), so at
# -j 8 two of these are parsed at once, not eight.  Asserted: the peak
# resident memory at -j 8 is under 3 times that at -j 1 (two parses at
# once: about 2; it was 3 to 6 times before the budget), and the reports
# are the same.  (Under 2.5 times while every text was held to the end of
# the read, a base both runs shared: 252 and 467 MiB; since a file that
# holds no workload lets its text go once loaded, 172 and 416 MiB.)  Memory, not time: the figures do not depend on the machine's
# speed or load.  make bench prints the absolute figures.  Then inline
# programs: memory that grows with their number, not with number x lines.
set -u
BIN=${BIN:?}
SUITE=memory
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh

python3 - "$tmp/d" <<'PY'
import os, sys
d = sys.argv[1]
os.makedirs(d)
# One ConfigMap of many short keys: a large tree for its size, and
# nothing else kept after it is read (no workloads), so the peak is the
# parsing's.
lines = "".join("  key%07d: value%07d\n" % (i, i) for i in range(12 << 20 >> 5))
for f in range(8):
    open(os.path.join(d, "cm%d.yaml" % f), "w").write(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm%d}\ndata:\n"
        % f + lines)
PY

# peak JOBS: the peak resident set (KiB) of a run at -j JOBS.
peak() {
	python3 - "$BIN" "$1" "$tmp/d" "$tmp/out$1" <<'PY'
import resource, subprocess, sys
with open(sys.argv[4], "w") as out:
    subprocess.run([sys.argv[1], "--no-config", "-j", sys.argv[2],
                    "-o", "json", sys.argv[3]], stdout=out,
                   stderr=subprocess.STDOUT)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
one=$(peak 1)
eight=$(peak 8)
echo "memory: 8 x 12 MB at -j 1: $((one / 1024)) MiB, at -j 8: $((eight / 1024)) MiB"
check "-j 8 took $eight KiB, -j 1 $one KiB (more than 3 times)" \
	[ $((eight * 10)) -lt $((one * 30)) ]
check "the same report at -j 1 and -j 8" cmp -s "$tmp/out1" "$tmp/out8"

# Inline programs: 1,000 and 2,000 Pods of one file, each running a
# python -c program, each laid at its lines of the file.  Memory grows
# with the programs, not with programs x lines: the doubled file peaks
# under 2.5 times the single one (it was 3.75 times, and 1 GB at 2,000).
python3 - "$tmp" <<'PY'
import json, sys
prog = ("import os\nimport torch\nfrom torch.utils.data import DataLoader\n"
        "torch.set_num_threads(8)\n"
        "d = DataLoader(None, num_workers=os.cpu_count())\n")
for n in (1000, 2000):
    with open("%s/inline%d.yaml" % (sys.argv[1], n), "w") as f:
        for i in range(n):
            f.write("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\n"
                    "spec:\n  restartPolicy: Never\n  containers:\n"
                    "  - name: t\n    image: pytorch\n"
                    "    command: [python, -c, %s]\n"
                    "    resources: {limits: {cpu: '4'}}\n"
                    % (i, json.dumps(prog)))
PY
# rss FILE: the peak resident set (KiB) of a run over FILE at -j 1.
rss() {
	python3 - "$BIN" "$1" <<'PY'
import resource, subprocess, sys
subprocess.run([sys.argv[1], "--no-config", "-j", "1", "-o", "json",
                sys.argv[2]], stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
small=$(rss "$tmp/inline1000.yaml")
large=$(rss "$tmp/inline2000.yaml")
echo "memory: 1,000 inline programs: $((small / 1024)) MiB, 2,000: $((large / 1024)) MiB"
check "2,000 inline programs took $large KiB, 1,000 $small KiB (more than 2.5 times)" \
	[ $((large * 10)) -lt $((small * 25)) ]
finish
