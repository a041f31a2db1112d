#!/bin/sh
# Runs every end-to-end test script tests/e2e/*.sh with BIN set to the
# built binary; each script prints its own "N passed, N failed" line.
BIN=${BIN:-$(pwd)/${BUILD:-build}/../kubectl-cpulint}
echo "e2e: none yet"
