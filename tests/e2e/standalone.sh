#!/bin/sh
# The repository stands alone: no test, tool, fixture, Makefile or CI
# script reads the project machines' reference folder beside the checkout
# (tests read their copies in testdata/reference), and every copied file
# sits in a folder with a SOURCES.md and its licence.
set -u
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL standalone: $*"; fail=$((fail + 1)); }

# The patterns are spelled so that this file does not match them.
hits=$(grep -rnE '\.\./share[d]|/work/share[d]' tests testdata tools .ci \
	Makefile 2>/dev/null | head -5)
[ -z "$hits" ] && ok || bad "mentions the shared folder: $hits"

R=testdata/reference
[ -d "$R" ] && ok || bad "$R is missing"
for f in $(find "$R" -type f ! -name 'SOURCES.md' ! -name 'LICENSE*' \
	   ! -name README.md | sort); do
	d=$(dirname "$f")
	while [ "$d" != "$R" ] && [ ! -f "$d/SOURCES.md" ]; do
		d=$(dirname "$d")
	done
	if [ ! -f "$d/SOURCES.md" ]; then
		bad "$f: no SOURCES.md in its folder or above"
	elif ! ls "$d"/LICENSE* >/dev/null 2>&1; then
		bad "$f: no LICENSE* beside $d/SOURCES.md"
	else
		ok
	fi
done
for f in LICENSE NOTICE; do
	[ -s "$f" ] && ok || bad "$f is missing"
done
echo "standalone: $pass passed, $fail failed"
[ $fail -eq 0 ]
