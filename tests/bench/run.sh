#!/bin/sh
# make bench: prints, from one run, each row of issue 11's table (the
# figure, the floor or peer measured in the same run, the ratio, whether
# the goal is met) and a Markdown copy of it for the README's Performance
# section.  Benchmarks are not tests: this asserts nothing about time and
# make check never runs it.  tests/bench/bench.py does the measuring
# (its header lists the variables: BENCH_QUICK=1, BENCH_ROWS, ...);
# tests/bench/gen-monorepo.py writes the synthetic monorepo.
#
#   BIN          the dev binary (default ./kubectl-cpulint)
#   RELEASE_BIN  the release binary, measured too in the pre-commit row
#   FLOORS       where make bench built yaml-parse-floor and noop-*
set -e
BIN=${BIN:-kubectl-cpulint}
FLOORS=${FLOORS:-build/bench}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
export BIN FLOORS RELEASE_BIN
command -v rg >/dev/null 2>&1 ||
	echo "bench: ripgrep (rg) is not installed: row 1's floor is libyaml" \
	     "alone (tools/install-deps.sh installs it)"
command -v kubectl >/dev/null 2>&1 ||
	echo "bench: kubectl is not installed: row 4 has no peer"
exec python3 tests/bench/bench.py
