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
# The layering (tools/wings): each wing includes and calls only itself and
# the wings below it, its private headers (_int.h) stay inside it, no
# struct name is defined in two wings (tools/house.py, from the includes
# and the objects' symbols).  Files of one wing may call each other.
if ! python3 tools/house.py "${BUILD:-build}" tools/wings \
    > "${BUILD:-build}/house.txt"; then
	grep -v ' 0 breaches' "${BUILD:-build}/house.txt"
	echo "house: a wing reaches up (tools/wings, docs/CONTRIBUTING.md)"
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
