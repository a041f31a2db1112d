#!/bin/sh
# Static checks: no banned string functions (STYLE.md), then cppcheck.
set -e
banned=$(grep -nE '\b(sprintf|strcpy|strcat|gets|atoi|strtok)\s*\(' \
	cmd/*.c lib/*.c lib/*.h lib/*/*.c lib/*/*.h rules/*.c rules/*.h || true)
if [ -n "$banned" ]; then
	echo "banned functions (use cpl_buf / strtol with checks):"
	echo "$banned"
	exit 1
fi
if command -v cppcheck >/dev/null 2>&1; then
	cppcheck --quiet --error-exitcode=1 --std=c11 --inline-suppr \
		--enable=warning,portability --suppress=varFuncNullUB -Ilib -Irules cmd lib rules
fi
echo "lint: clean"
