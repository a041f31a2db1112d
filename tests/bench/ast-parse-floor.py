#!/usr/bin/env python3
"""ast-parse-floor.py — the peer of make bench's Python-heavy row (issue
28): CPython's own parser, ast.parse, over every .py file under DIR, each
read once; nothing else.  Prints the number of files parsed (a file
CPython cannot parse counts, as the tool reads it too).

    python3 tests/bench/ast-parse-floor.py DIR
"""

import ast
import os
import sys


def main():
    n = 0
    for d, _, names in os.walk(sys.argv[1]):
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            with open(os.path.join(d, name), "rb") as f:
                text = f.read()
            try:
                ast.parse(text)
            except (SyntaxError, ValueError):
                pass
            n += 1
    print(n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
