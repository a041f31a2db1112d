#!/bin/sh
# Static checks: no banned string functions (STYLE.md), no stderr write in
# cmd/ around cpl_cli_say (values escaped), the layering of the wings, then
# cppcheck over every wing of lib/, cmd/ and rules/.  jansson's iteration macros are
# spelled out for cppcheck in tools/cppcheck/jansson.cfg.
set -e
banned=$(grep -nE '\b(sprintf|strcpy|strcat|gets|atoi|strtok)\s*\(' \
	cmd/*.c lib/*.c lib/*.h lib/*/*.c lib/*/*.h rules/*.c rules/*.h \
	tools/genman.c || true)
if [ -n "$banned" ]; then
	echo "banned functions (use cpl_buf / strtol with checks):"
	echo "$banned"
	exit 1
fi
# Standard error: cmd/ writes its lines through cpl_cli_say (cmd/say.c),
# which escapes every value (report/escape.h); a direct write could print a
# file or object name raw, and a CI runner reads stderr for commands.
raw=$(grep -nE '\b(v?fprintf|fputs|fputc|putc|fwrite)\s*\([^;]*\bstderr\b|\bperror\s*\(|STDERR_FILENO' \
	$(ls cmd/*.c | grep -v '^cmd/say\.c$') || true)
if [ -n "$raw" ]; then
	echo "stderr written around cpl_cli_say (cmd/say.c escapes values):"
	echo "$raw"
	exit 1
fi
# Layering: each wing includes only the wings below it (lib/*/README.md).
allowed() {
	case $1 in
	text)   echo "util.h text/" ;;
	python) echo "util.h text/ python/" ;;
	shell)  echo "util.h text/ shell/" ;;
	git)    echo "util.h git/" ;;
	kube)   echo "util.h text/ kube/" ;;
	http)   echo "util.h http/" ;;
	load)   echo "util.h workload.h text/ shell/ load/" ;;
	report) echo "util.h finding.h rule.h report/" ;;
	plan)   echo "util.h budget.h plan/" ;;
	esac
}
bad=""
for f in lib/*/*.[ch]; do
	wing=$(basename "$(dirname "$f")")
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		ok=no
		for a in $(allowed "$wing"); do
			case $inc in "$a"*) ok=yes ;; esac
		done
		[ $ok = yes ] || bad="$bad
$f includes $inc"
	done
done
for f in lib/*.[ch] rules/*.[ch]; do
	if grep -q '^#include "report/' "$f"; then
		bad="$bad
$f includes report/ (only cmd/ may)"
	fi
done
if [ -n "$bad" ]; then
	echo "layering: a wing includes a higher one:$bad"
	exit 1
fi
# Circles: files that call each other (from the objects' symbols); none
# may come in beyond those tools/circles.allow lists.
if ! python3 tools/circles.py "${BUILD:-build}" tools/circles.allow \
    > "${BUILD:-build}/circles.txt"; then
	grep 'NEW\|no object' "${BUILD:-build}/circles.txt"
	echo "circles: a new circle between files (tools/circles.py)"
	exit 1
fi
if ! command -v cppcheck >/dev/null 2>&1; then
	echo "lint: cppcheck is not installed (apt-get install -y cppcheck)"
	exit 1
fi
cppcheck --quiet --error-exitcode=1 --std=c11 --inline-suppr \
	--enable=warning,portability --suppress=varFuncNullUB \
	--library=tools/cppcheck/jansson.cfg -Ilib -Irules -Icmd cmd lib rules \
	tools/genman.c
echo "lint: clean"
