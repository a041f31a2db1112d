# kubectl-cpulint — GNU Makefile.
#
# One static library (lib/ + rules/ + generated rule docs) that the command
# and every test link.  New .c files under lib/, rules/ and tests/unit/ are
# picked up by wildcard, so adding a module never edits this file.
#
#   make            build ./kubectl-cpulint and its manual page
#   make check      unit tests (check) + golden and end-to-end tests
#   make asan       the whole suite under ASan+UBSan (separate build dir)
#   make tsan       the whole suite under ThreadSanitizer (build-tsan)
#   make valgrind   unit tests under valgrind
#   make lint       banned functions, cppcheck
#   make bench      benchmarks that print figures
#   make fuzz       libFuzzer over the whole engine (clang)
#   make lab        real PyTorch under real CFS quotas through the tool
#                   (tests/lab; make lab-smoke: a few seconds of it)
#   make dist       release tarballs for krew, linux-amd64 and (cross-built)
#                   linux-arm64, their krew manifest cpulint.yaml and
#                   SHA256SUMS (static libraries, needs only the C
#                   library; tools/install-deps.sh installs what it needs;
#                   DIST_ARCHES=amd64 for one)
#   make install PREFIX=/usr/local   (binary, kubectl completion hook,
#                   bash/zsh completion, manual page)
#   V=1 for loud builds, WERROR=1 (set by CI) for -Werror.

PREFIX  ?= /usr/local
BUILD   ?= build
CC      ?= cc
# make dist runs this make again with a cross compiler, a sysroot's
# pkg-config and NEED_PKGS without check (the unit-test framework).
PKG_CONFIG ?= pkg-config
PKGS    := yaml-0.1 libcurl jansson libgit2 libmicrohttpd
# Linked libraries: libcurl is not one of them.  Its headers are used, but
# lib/kube/curlso.c loads libcurl.so.4 with dlopen when live mode needs it,
# in every build (normal, asan, release).  Nor is libmicrohttpd: `serve`
# loads libmicrohttpd.so.12 the same way (lib/http/mhdso.c).
LINK_PKGS := yaml-0.1 jansson libgit2
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

# Which Debian package provides each pkg-config module.
pkg_yaml-0.1 := libyaml-dev
pkg_libcurl  := libcurl4-openssl-dev
pkg_jansson  := libjansson-dev
pkg_libgit2  := libgit2-dev
pkg_libmicrohttpd := libmicrohttpd-dev
pkg_check    := check

ifeq ($(filter clean install-deps help,$(MAKECMDGOALS)),)
NEED_PKGS ?= $(PKGS) check
missing := $(strip $(foreach p,$(NEED_PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) 2>/dev/null && echo y),,$(p))))
ifneq ($(missing),)
$(error missing libraries: $(missing); install with: apt-get install -y $(foreach p,$(missing),$(pkg_$(p))) pkg-config   (or run tools/install-deps.sh))
endif
endif

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wwrite-strings -Wformat=2 -Wno-format-nonliteral
CFLAGS  ?= -O2 -g
# SAN holds sanitizer flags (make asan sets it); kept apart from CFLAGS so
# a CFLAGS given on the command line does not drop the flags below.
SAN     ?=
# -ffile-prefix-map: no absolute path in the objects, so a release built
# in another checkout is the same bytes.
override CFLAGS += $(SAN) -std=c11 -D_GNU_SOURCE $(WARN) $(if $(WERROR),-Werror) -MMD -MP \
           -pthread -Ilib -Irules -I$(BUILD) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) \
           -ffile-prefix-map=$(CURDIR)=. -DCPL_VERSION='"$(VERSION)"'
override LDFLAGS += $(SAN)
# The allocator of the command (and the release binary): jemalloc when it
# is installed, glibc's malloc otherwise or with MALLOC=libc.  libyaml and
# the scanners make small blocks by the million; on a large tree jemalloc
# takes about 15% less CPU than glibc's malloc for the same output (make
# bench; README, Performance), and with cmd/malloc_conf.c's settings
# (huge pages, one arena) about 30% less again.  Sanitizer builds and the
# unit tests (which make valgrind runs) keep the C library's, which those
# tools interpose.
MALLOC  ?= $(if $(shell $(PKG_CONFIG) --exists jemalloc 2>/dev/null && echo y),jemalloc,libc)
ALLOC_PKG  := $(if $(SAN),,$(filter jemalloc,$(MALLOC)))
ALLOC_LIBS := $(if $(ALLOC_PKG),$(shell $(PKG_CONFIG) --libs $(ALLOC_PKG)))
# -ldl: dlopen is in libc from glibc 2.34 on, in libdl before.
# -pthread: files are read and parsed on a few threads (lib/run/pipeline.c).
LDLIBS  += $(shell $(PKG_CONFIG) --libs $(LINK_PKGS) 2>/dev/null) -lm -ldl -pthread
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# lib/git/gss_stub.c goes into the release binary only (see make dist).
GSS_STUB  := lib/git/gss_stub.c
# lib/release/unwind_stub.c too, when it links jemalloc.
UNWIND_STUB := lib/release/unwind_stub.c
LIB_SRC   := $(filter-out $(GSS_STUB) $(UNWIND_STUB),$(sort $(wildcard lib/*.c) $(wildcard lib/*/*.c) $(wildcard rules/*.c)))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/ruledocs.o
# ar keeps one member per file name: two sources with one base name would
# silently replace each other in the archive.
dup_src   := $(shell printf '%s\n' $(notdir $(LIB_SRC)) | sort | uniq -d)
ifneq ($(dup_src),)
$(error two library sources share a file name: $(dup_src))
endif
RULE_MD   := $(sort $(wildcard rules/CPU*.md))
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# make bench's tools: measure (runs a command, prints time and peak
# memory) and the floors: libyaml alone over the tree's YAML, and a process
# that does nothing (static, dynamic, dynamic with the dev binary's
# libraries).
BENCH_FLOORS := $(addprefix $(BUILD)/bench/,measure yaml-parse-floor \
                noop-static noop-dynamic noop-libs)
BIN       := kubectl-cpulint
MAN       := $(BUILD)/kubectl-cpulint.1

.PHONY: all check unit e2e asan tsan valgrind lint bench install uninstall clean \
        install-deps help fuzz dist lab lab-smoke
all: $(BIN) $(MAN)

CMD_OBJ   := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard cmd/*.c)))

$(BIN): $(CMD_OBJ) $(BUILD)/libcpulint.a
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(ALLOC_LIBS)

$(BUILD)/libcpulint.a: $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# The sources that compile VERSION in (-DCPL_VERSION) rebuild when it
# changes.
$(addprefix $(BUILD)/,$(addsuffix .o,lib/kube/kubeclient lib/kube/prometheus \
	cmd/kubectl-cpulint cmd/run)): VERSION

# Rule documentation (rules/ID.md) embedded for --explain and SARIF help.
$(BUILD)/ruledocs.c: $(RULE_MD) tools/embed-docs.sh
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)sh tools/embed-docs.sh $(RULE_MD) > $@.tmp && mv $@.tmp $@

$(BUILD)/ruledocs.o: $(BUILD)/ruledocs.c
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# The manual page, written from the flag table (cmd/flags.c) and the rule
# registry by tools/genman.c, so it cannot drift from --help.  The table
# names the subcommands' functions: genman links cmd/ but its main.
$(BUILD)/genman: tools/genman.c $(filter-out $(BUILD)/cmd/main.o,\
	$(CMD_OBJ)) $(BUILD)/libcpulint.a VERSION
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -Icmd $(LDFLAGS) -o $@ $(filter-out VERSION,$^) \
	    $(LDLIBS)

$(MAN): $(BUILD)/genman
	@echo "  GEN     $@"
	$(Q)./$(BUILD)/genman > $@.tmp && mv $@.tmp $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libcpulint.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS) $(CHECK_LIBS)

$(BUILD)/bench/yaml-parse-floor: tools/yaml-parse-floor.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) -O2 -std=c11 $(WARN) $(if $(WERROR),-Werror) -o $@ $< \
	    $(shell pkg-config --cflags --libs yaml-0.1)

$(BUILD)/bench/measure: tests/bench/measure.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (static)"
	$(Q)$(CC) -O2 -std=c11 -D_GNU_SOURCE $(WARN) $(if $(WERROR),-Werror) \
	    -static -o $@ $<

$(BUILD)/bench/noop-static: tests/bench/noop.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (static)"
	$(Q)$(CC) -O2 -static -o $@ $<

$(BUILD)/bench/noop-dynamic: tests/bench/noop.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (dynamic)"
	$(Q)$(CC) -O2 -o $@ $<

# Linked like the dev binary (--no-as-needed: every library is loaded even
# though nothing in it is called).
$(BUILD)/bench/noop-libs: tests/bench/noop.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (the dev binary's libraries)"
	$(Q)$(CC) -O2 -o $@ $< -Wl,--no-as-needed $(LDLIBS) $(ALLOC_LIBS)

# unit-NAME builds and runs one unit test (tests/unit/test_NAME.c).
unit-%: $(BUILD)/tests/test_%
	$(Q)CK_FORK=$${CK_FORK:-yes} ./$<

unit: $(UNIT_BIN)
	$(Q)sh tests/run-unit.sh $(UNIT_BIN)

e2e: $(BIN) $(MAN)
	$(Q)BIN=$(BIN) MAN=$(MAN) sh tests/run-e2e.sh

check: unit e2e

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer.
asan:
	$(Q)ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=1} \
	    UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1} \
	    $(MAKE) --no-print-directory BUILD=build-asan CFLAGS="-O1 -g" \
	    SAN="-fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -DCPL_FREE_AT_EXIT" \
	    BIN=build-asan/kubectl-cpulint check

# The whole suite under ThreadSanitizer: files are parsed on threads
# (lib/run/pipeline.c); any data race fails the run.
tsan:
	$(Q)TSAN_OPTIONS=$${TSAN_OPTIONS:-halt_on_error=1} \
	    $(MAKE) --no-print-directory BUILD=build-tsan CFLAGS="-O1 -g" \
	    SAN="-fno-omit-frame-pointer -fsanitize=thread -DCPL_FREE_AT_EXIT" \
	    BIN=build-tsan/kubectl-cpulint check

valgrind: $(UNIT_BIN)
	$(Q)for t in $(UNIT_BIN); do CK_FORK=no valgrind -q --error-exitcode=3 \
	    --leak-check=full --errors-for-leak-kinds=definite $$t || exit 1; done

lint: $(BIN)
	$(Q)BUILD=$(BUILD) sh tools/lint.sh

# Prints figures and asserts nothing (tests/bench/run.sh; BENCH_QUICK=1
# for a small run).  The release binary is measured too when it builds.
bench: $(BIN) $(BENCH_FLOORS)
	$(Q)$(MAKE) --no-print-directory $(DIST_BIN) >/dev/null 2>&1 || \
	    echo "bench: no release binary ($(DIST_BIN) does not build here)"
	$(Q)BIN=$(BIN) RELEASE_BIN=$(DIST_BIN) FLOORS=$(BUILD)/bench \
	    sh tests/bench/run.sh

# The lab (tests/lab/README.md): real PyTorch under real CFS quotas,
# measured by a real Prometheus, through the binary end to end; prints
# the table and issue 34's checks.  Not part of check (it takes most of
# an hour at its defaults; LAB_SECONDS, LAB_REPEATS, LAB_BUDGETS and
# LAB_WORKLOADS shorten it).  lab-smoke: one workload, three settings,
# a few seconds each (exit 77, with a SKIP line, where it cannot run).
lab: $(BIN)
	$(Q)BIN=$(CURDIR)/$(BIN) python3 tests/lab/lab.py

lab-smoke: $(BIN)
	$(Q)BIN=$(CURDIR)/$(BIN) LAB_SMOKE=1 python3 tests/lab/lab.py

# Fuzzing (clang + libFuzzer): each target in tests/fuzz/fuzz_NAME.c runs
# FUZZ_SECONDS, seeded from testdata; any crash, leak or undefined
# behaviour stops it (-fno-sanitize-recover=all) and fails the target.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= lint fix kubeconfig apijson cadvisor yamlfast
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
fuzz_seeds_lint       = find testdata -name '*.yaml' -size -64k
fuzz_seeds_fix        = find testdata/fix testdata/edits -type f ! -name 'expected*' -size -64k
fuzz_seeds_kubeconfig = grep -rlE --include='*.yaml' --include='*kubeconfig*' '^kind: Config' testdata tests
fuzz_seeds_apijson    = find testdata/apiserver/fixtures -name '*.json' -size -64k
fuzz_seeds_cadvisor   = find tests/fuzz/seeds/cadvisor -type f
fuzz_seeds_yamlfast   = find testdata -name '*.y*ml' -size -64k
fuzz:
	$(Q)$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang \
	    CFLAGS="-O1 -g" SAN="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
	    build-fuzz/libcpulint.a
	$(Q)for t in $(FUZZ_TARGETS); do \
	    echo "== fuzz $$t ($(FUZZ_SECONDS) s)"; \
	    clang -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) -Ilib -Irules \
	        -Ibuild-fuzz -o build-fuzz/fuzz_$$t tests/fuzz/fuzz_$$t.c \
	        build-fuzz/libcpulint.a $(LDLIBS) || exit 1; \
	    mkdir -p build-fuzz/corpus-$$t; \
	    case $$t in \
	    lint) $(fuzz_seeds_lint) ;; \
	    fix) $(fuzz_seeds_fix) ;; \
	    kubeconfig) $(fuzz_seeds_kubeconfig) ;; \
	    apijson) $(fuzz_seeds_apijson) ;; \
	    cadvisor) $(fuzz_seeds_cadvisor) ;; \
	    yamlfast) $(fuzz_seeds_yamlfast) ;; \
	    esac | while read -r f; do cp "$$f" build-fuzz/corpus-$$t/; done; \
	    ./build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
	        -max_len=65536 -print_final_stats=1 build-fuzz/corpus-$$t \
	        2>build-fuzz/fuzz_$$t.log || { tail -40 build-fuzz/fuzz_$$t.log; exit 1; }; \
	    grep -E '^stat::number_of_executed_units|^Done' build-fuzz/fuzz_$$t.log; \
	done
	$(Q)$(MAKE) --no-print-directory $(BIN) >/dev/null
	$(Q)seed=$$(date +%s); echo "== fix property ($${FIXPROP_N:-3000} files, seed $$seed)"; \
	    BIN=$(BIN) FIXPROP_N=$${FIXPROP_N:-3000} FIXPROP_SEED=$$seed \
	    sh tests/e2e/fixprop.sh

# The release binary: the same objects, with libyaml, jansson, libgit2 and
# what libgit2 needs (pkg-config --static; libssh2's own needs too, which
# libgit2.pc does not list) and jemalloc (unless MALLOC=libc) linked
# statically and the C library dynamically (jemalloc's malloc then serves
# the whole process, libc's own calls too: glibc supports replacing
# malloc by interposition), plus the GSSAPI stubs Debian's libgit2.a references (see
# lib/git/gss_stub.c) and the unwinder's jemalloc references (see
# lib/release/unwind_stub.c).  libcurl is loaded at run time, as in every build.
# The system libraries pkg-config names stay dynamic: they are libc's.
SYS_LIBS    := -lm -ldl -lpthread -lrt -pthread
STATIC_LIBS  = $(filter-out $(SYS_LIBS),$(shell $(PKG_CONFIG) --static --libs-only-l $(LINK_PKGS) libssh2 $(ALLOC_PKG)))
DIST_BIN    := $(BUILD)/release/$(BIN)
# The release is built for each of DIST_ARCHES (Debian's names): natively
# for this machine's, with Debian's cross compiler (TRIPLET-gcc) against
# a sysroot of that architecture's packages (tools/cross-sysroot.sh, in
# build-ARCH/sysroot) for the others, each in its own build-ARCH.
DIST_ARCHES ?= amd64 arm64
HOST_ARCH   := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
triplet_amd64 := x86_64-linux-gnu
triplet_arm64 := aarch64-linux-gnu
dist_tar     = kubectl-cpulint-v$(VERSION)-linux-$(1).tar.gz
dist_bin     = $(if $(filter $(HOST_ARCH),$(1)),$(DIST_BIN),build-$(1)/release/$(BIN))
dist_strip   = $(if $(filter $(HOST_ARCH),$(1)),strip,$(triplet_$(1))-strip)
dist_sysroot = $(if $(filter $(HOST_ARCH),$(1)),,build-$(1)/sysroot)
# Where a release's tarballs are downloaded from (the manifest's uri).
DIST_URL    ?= https://github.com/kubectl-cpulint/kubectl-cpulint/releases/download/v$(VERSION)
# What each tarball holds (kubectl_complete-cpulint: completion/).
DIST_FILES  := $(sort $(BIN) kubectl_complete-cpulint kubectl-cpulint.1 \
               LICENSE NOTICE THIRD-PARTY-LICENSES \
               completion/kubectl-cpulint.bash completion/_kubectl-cpulint)
DIST_EPOCH   = $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null),0)

$(BUILD)/release/gss_stub.o: $(GSS_STUB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/release/unwind_stub.o: $(UNWIND_STUB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

DIST_STUBS := $(BUILD)/release/gss_stub.o \
              $(if $(ALLOC_PKG),$(BUILD)/release/unwind_stub.o)

$(DIST_BIN): $(CMD_OBJ) $(BUILD)/libcpulint.a $(DIST_STUBS)
	$(Q)for l in $(STATIC_LIBS); do a=$$($(CC) -print-file-name=lib$${l#-l}.a); \
	    [ -f "$$a" ] || { echo "make dist: lib$${l#-l}.a is missing;" \
	    "run tools/install-deps.sh" >&2; exit 1; }; done
	@echo "  LD      $@ (static libraries)"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) $(BUILD)/libcpulint.a \
	    $(DIST_STUBS) -Wl,-Bstatic $(STATIC_LIBS) \
	    -Wl,-Bdynamic -Wl,--as-needed -lm -ldl -lpthread -lrt \
	    -Wl,-Map=$@.map

# A foreign architecture's release binary: this make again, in
# build-ARCH, with the cross compiler and the sysroot's pkg-config.  The
# sysroot's library folder comes first (-L): Debian's cross compiler
# searches its own /usr/TRIPLET/lib before the sysroot, and its libc.so
# would bring in that toolchain's libc_nonshared.a, a file no sysroot
# package owns (tools/third-party-licenses.sh refuses it).
# libmicrohttpd is only its header there (serve loads the library at run
# time), found in the sysroot's /usr/include: its .pc would want GnuTLS's
# and their own .pc files in the sysroot too.
CROSS_PKGS := $(filter-out libmicrohttpd,$(PKGS))
.PHONY: FORCE
FORCE:
.PRECIOUS: build-%/release/$(BIN)
build-%/release/$(BIN): FORCE
	$(Q)command -v $(triplet_$*)-gcc >/dev/null 2>&1 || { echo "make dist:" \
	    "no $(triplet_$*)-gcc for linux-$*; run tools/install-deps.sh," \
	    "or make dist DIST_ARCHES=$(HOST_ARCH)" >&2; exit 1; }
	$(Q)sh tools/cross-sysroot.sh $* build-$*/sysroot
	$(Q)$(MAKE) --no-print-directory BUILD=build-$* \
	    PKGS='$(CROSS_PKGS)' NEED_PKGS='$(CROSS_PKGS)' \
	    CC='$(triplet_$*)-gcc --sysroot=$(CURDIR)/build-$*/sysroot' \
	    LDFLAGS='-L$(CURDIR)/build-$*/sysroot/usr/lib/$(triplet_$*)' \
	    PKG_CONFIG='env PKG_CONFIG_LIBDIR=$(CURDIR)/build-$*/sysroot/usr/lib/$(triplet_$*)/pkgconfig:$(CURDIR)/build-$*/sysroot/usr/share/pkgconfig PKG_CONFIG_SYSROOT_DIR=$(CURDIR)/build-$*/sysroot pkg-config' \
	    $@

# One release tarball: kubectl-cpulint-vVERSION-linux-ARCH.tar.gz.
.SECONDEXPANSION:
dist-tar-%: $$(call dist_bin,$$*) $(MAN)
	$(Q)rm -rf $(BUILD)/dist-$* && mkdir -p $(BUILD)/dist-$*/completion
	$(Q)install -m 0755 $(call dist_bin,$*) $(BUILD)/dist-$*/$(BIN)
	$(Q)$(call dist_strip,$*) $(BUILD)/dist-$*/$(BIN)
	$(Q)install -m 0755 completion/kubectl_complete-cpulint $(BUILD)/dist-$*/
	$(Q)install -m 0644 LICENSE NOTICE $(MAN) $(BUILD)/dist-$*/
	$(Q)install -m 0644 completion/kubectl-cpulint.bash \
	    completion/_kubectl-cpulint $(BUILD)/dist-$*/completion/
	$(Q)sh tools/third-party-licenses.sh $(call dist_bin,$*).map \
	    $(call dist_sysroot,$*) > $(BUILD)/dist-$*/THIRD-PARTY-LICENSES
	$(Q)chmod 0644 $(BUILD)/dist-$*/THIRD-PARTY-LICENSES
	$(Q)tar -C $(BUILD)/dist-$* --sort=name --owner=0 --group=0 --numeric-owner \
	    --mtime=@$(DIST_EPOCH) --format=gnu -cf - $(DIST_FILES) | \
	    gzip -9 -n > $(call dist_tar,$*).tmp && mv $(call dist_tar,$*).tmp $(call dist_tar,$*)
	@echo "  DIST    $(call dist_tar,$*)"

# The tarballs, their krew manifest (tools/krew-manifest.sh) and their
# sums, beside them: what a release publishes.
dist: $(addprefix dist-tar-,$(DIST_ARCHES))
	$(Q)sh tools/krew-manifest.sh $(foreach a,$(DIST_ARCHES),\
	    $(call dist_tar,$(a)) $(DIST_URL)/$(call dist_tar,$(a))) > cpulint.yaml.tmp
	$(Q)mv cpulint.yaml.tmp cpulint.yaml
	$(Q)sha256sum $(foreach a,$(DIST_ARCHES),$(call dist_tar,$(a))) > SHA256SUMS.tmp
	$(Q)mv SHA256SUMS.tmp SHA256SUMS
	@echo "  DIST    cpulint.yaml SHA256SUMS"

# kubectl_complete-cpulint is the hook kubectl (1.26+) runs to complete
# `kubectl cpulint ...`: a link to the binary, which answers under that name.
install: $(BIN) $(MAN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	    $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/kubectl-cpulint
	ln -sf kubectl-cpulint $(DESTDIR)$(PREFIX)/bin/kubectl_complete-cpulint
	install -m 0644 $(MAN) $(DESTDIR)$(PREFIX)/share/man/man1/kubectl-cpulint.1
	install -m 0644 completion/kubectl-cpulint.bash \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/kubectl-cpulint
	install -m 0644 completion/_kubectl-cpulint \
	    $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_kubectl-cpulint

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/kubectl-cpulint \
	    $(DESTDIR)$(PREFIX)/bin/kubectl_complete-cpulint \
	    $(DESTDIR)$(PREFIX)/share/man/man1/kubectl-cpulint.1 \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/kubectl-cpulint \
	    $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_kubectl-cpulint

install-deps:
	sh tools/install-deps.sh

help:
	@sed -n 's/^#   //p' Makefile

clean:
	rm -rf build build-asan build-tsan build-fuzz build-arm64 $(BIN)

-include $(shell find $(BUILD) build-asan build-tsan -name sysroot -prune -o -name '*.d' -type f -print 2>/dev/null)
