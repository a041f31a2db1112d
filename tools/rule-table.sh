#!/bin/sh
# Prints the README's rule table from the registry (kubectl-cpulint
# --list-rules -o json), so the table is never kept by hand.
# tests/e2e/readme.sh fails when README.md and this output differ.
BIN=${BIN:-./kubectl-cpulint}
"$BIN" --list-rules -o json | python3 -c '
import json, sys
print("| id | name | default | fires when |")
print("| --- | --- | --- | --- |")
for r in json.load(sys.stdin):
    print("| [%s](rules/%s.md) | %s | %s | %s |" % (r["id"], r["id"], r["name"], r["severity"], r["summary"]))
'
