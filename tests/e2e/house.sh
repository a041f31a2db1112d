#!/bin/sh
# tools/house.py, the layering check of `make lint`, over small trees made
# here (a wings table, a few C files compiled to objects): files of one
# wing may call each other round a circle; a call or an include from a
# lower wing up to a higher one fails, and so does a table that loops, a
# private header (`_int.h`) included from another wing, and one struct
# name defined in two wings.  BIN is not used: this checks the tool's own
# build check, and needs only cc, nm and python3.
set -u
SUITE=house
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh

# tree NAME: a fresh tree under $tmp/NAME with wings util, a (on util)
# and b (on util and a); files are added by put, then built by house.
tree() {
	d=$tmp/$1
	mkdir -p "$d/lib/a" "$d/lib/b"
	printf 'util:\na: util\nb: util a\n' > "$d/wings"
	printf 'int util_x(void);\n' > "$d/lib/util.h"
	printf '#include "util.h"\nint util_x(void) { return 1; }\n' \
		> "$d/lib/util.c"
}
# put PATH TEXT: one file of the current tree.
put() {
	printf '%s\n' "$2" > "$d/$1"
}
# house: compiles every .c of the current tree and runs house.py on it.
house() {
	(cd "$d" && for c in lib/*.c lib/*/*.c; do
		mkdir -p "build/$(dirname "$c")"
		cc -std=c11 -Ilib -c "$c" -o "build/${c%.c}.o" || exit 3
	done && python3 "$root/tools/house.py" build wings)
}

# 1. Two files of one wing that call each other: allowed (libgit2's
#    files do), and so is a longer loop through a third.
tree inwing
put lib/a/one.c 'int a_two(void); int a_one(int n) { return n ? a_two() : 0; }'
put lib/a/two.c 'int a_three(void); int a_two(void) { return a_three(); }'
put lib/a/three.c 'int a_one(int); int a_three(void) { return a_one(0); }'
put lib/b/user.c 'int a_one(int); int b_user(void) { return a_one(1); }'
expect in-wing-circle 0 house
has in-wing-circle '0 breaches'
lacks in-wing-circle 'circle'

# 2. Two wings that call each other: a (lower) calls up into b.
tree wingcycle
put lib/a/one.c 'int b_up(void); int a_one(void) { return b_up(); }'
put lib/b/up.c 'int a_one(void); int b_up(void) { return a_one(); }'
expect wing-cycle 1 house
has wing-cycle 'lib/a/one.c calls b_up (lib/b/up.c): a may not reach up to b'
has wing-cycle 'circle between wings: a <-> b'
lacks wing-cycle 'lib/b/up.c calls'

#    One way only, the same two files pass.
put lib/a/one.c 'int a_one(void) { return 0; }'
expect wing-one-way 0 house

#    An include that reaches up fails as a call does.
put lib/b/b.h 'int b_up(void);'
put lib/a/one.c '#include "b/b.h"
int a_one(void) { return 0; }'
expect include-up 1 house
has include-up 'lib/a/one.c:1: includes b/b.h: a may not reach up to b'

#    A table that loops fails whatever the files do.
put lib/a/one.c 'int a_one(void) { return 0; }'
printf 'util:\na: util b\nb: util a\n' > "$d/wings"
expect table-loop 1 house
has table-loop 'wings: a reaches itself round a loop'

# 3. A private header of a included from b: refused even though b may
#    use a; from a's own files it is fine.
tree private
put lib/a/a_int.h 'int a_inner(void);'
put lib/a/inner.c '#include "a/a_int.h"
int a_inner(void) { return 2; }'
put lib/a/outer.c '#include "a/a_int.h"
int a_outer(void) { return a_inner(); }'
expect int-in-wing 0 house
put lib/b/user.c '#include "a/a_int.h"
int b_user(void) { return a_inner(); }'
expect int-other-wing 1 house
has int-other-wing 'lib/b/user.c:1: includes a/a_int.h, a header private to a'

#    A header only its own wing includes is private, so named _int.h;
#    once another wing includes it, it is public.
tree privname
put lib/a/inner.h 'int a_inner(void);'
put lib/a/inner.c '#include "a/inner.h"
int a_inner(void) { return 2; }'
expect int-unnamed 1 house
has int-unnamed 'lib/a/inner.h: only a includes it: a private header is named inner_int.h'
put lib/b/user.c '#include "a/inner.h"
int b_user(void) { return a_inner(); }'
expect int-public 0 house

# 4. One struct name defined in two wings.
tree structs
put lib/a/one.c 'struct scan {
	int n;
};
int a_one(struct scan *s) { return s->n; }'
put lib/b/two.c 'struct scan {
	long m;
};
long b_two(struct scan *s) { return s->m; }'
expect struct-twice 1 house
has struct-twice 'struct scan is also defined in'

#    Also when one of them is a function's own (indented, with its
#    variable on the same line) or a typedef: a debugger shows the bare
#    name either way.
tree structs-local
put lib/a/one.c 'struct frame {
	int n;
};
int a_one(struct frame *f) { return f->n; }'
put lib/b/two.c 'int b_two(void)
{
	struct frame { int indent; } stack[2] = { { 1 }, { 2 } };
	return stack[1].indent;
}'
expect struct-local 1 house
has struct-local 'lib/b/two.c:3: struct frame is also defined in lib/a/one.c:1'
put lib/b/two.c 'typedef struct frame {
	long m;
} frame_t;
long b_two(frame_t *f) { return f->m; }'
expect struct-typedef 1 house
has struct-typedef 'lib/b/two.c:1: struct frame is also defined in lib/a/one.c:1'

finish
