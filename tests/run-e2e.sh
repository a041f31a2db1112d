#!/bin/sh
# Runs every end-to-end test script (tests/e2e/*.sh) with BIN set to the
# built binary and MAN to its manual page; each prints its own "N passed,
# N failed" line.  Fails when any script fails.
BIN=${BIN:-kubectl-cpulint}
MAN=${MAN:-build/kubectl-cpulint.1}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
case $MAN in /*) ;; *) MAN=$(pwd)/$MAN ;; esac
export BIN MAN
rc=0
for t in tests/e2e/*.sh tests/live/kubectl-faithful.sh; do
	sh "$t" || { echo "FAILED: $t"; rc=1; }
done
exit $rc
