#!/bin/sh
# The examples in rules/ID.md run as tests: each page's bad example
# fires its rule and its good example does not (tests/ruledocs.py says
# how a page's blocks become a case).  A page whose example drifts from
# the rule fails here, so the docs cannot say what the rule no longer
# does.
set -u
BIN=${BIN:?}
python3 tests/ruledocs.py "$BIN" rules
