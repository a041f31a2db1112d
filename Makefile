# kubectl-cpulint — GNU Makefile.
#
# One static library (lib/ + rules/ + generated rule docs) that the command
# and every test link.  New .c files under lib/, rules/ and tests/unit/ are
# picked up by wildcard, so adding a module never edits this file.
#
#   make            build ./kubectl-cpulint and its manual page
#   make check      unit tests (check) + golden and end-to-end tests
#   make asan       the whole suite under ASan+UBSan (separate build dir)
#   make valgrind   unit tests under valgrind
#   make lint       banned functions, cppcheck
#   make bench      benchmarks that print figures
#   make fuzz       libFuzzer over the whole engine (clang)
#   make dist       release tarball for krew
#   make install PREFIX=/usr/local   (binary, kubectl completion hook,
#                   bash/zsh completion, manual page)
#   V=1 for loud builds, WERROR=1 (set by CI) for -Werror.

PREFIX  ?= /usr/local
BUILD   ?= build
CC      ?= cc
PKGS    := yaml-0.1 libcurl jansson libgit2
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

# Which Debian package provides each pkg-config module.
pkg_yaml-0.1 := libyaml-dev
pkg_libcurl  := libcurl4-openssl-dev
pkg_jansson  := libjansson-dev
pkg_libgit2  := libgit2-dev
pkg_check    := check

ifeq ($(filter clean install-deps help,$(MAKECMDGOALS)),)
missing := $(strip $(foreach p,$(PKGS) check,$(if $(shell pkg-config --exists $(p) 2>/dev/null && echo y),,$(p))))
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
override CFLAGS += $(SAN) -std=c11 -D_GNU_SOURCE $(WARN) $(if $(WERROR),-Werror) -MMD -MP \
           -Ilib -Irules -I$(BUILD) $(shell pkg-config --cflags $(PKGS) 2>/dev/null) \
           -DCPL_VERSION='"$(VERSION)"'
override LDFLAGS += $(SAN)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC   := $(sort $(wildcard lib/*.c) $(wildcard lib/*/*.c) $(wildcard rules/*.c))
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
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
BIN       := kubectl-cpulint
MAN       := $(BUILD)/kubectl-cpulint.1

.PHONY: all check unit e2e asan valgrind lint bench install uninstall clean \
        install-deps help fuzz dist
all: $(BIN) $(MAN)

CMD_OBJ   := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard cmd/*.c)))

$(BIN): $(CMD_OBJ) $(BUILD)/libcpulint.a
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libcpulint.a: $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# Rule documentation (rules/ID.md) embedded for --explain and SARIF help.
$(BUILD)/ruledocs.c: $(RULE_MD) tools/embed-docs.sh
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)sh tools/embed-docs.sh $(RULE_MD) > $@.tmp && mv $@.tmp $@

$(BUILD)/ruledocs.o: $(BUILD)/ruledocs.c
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# The manual page, written from the flag table (cmd/flags.c) and the rule
# registry by tools/genman.c, so it cannot drift from --help.
$(BUILD)/genman: tools/genman.c $(BUILD)/cmd/flags.o $(BUILD)/libcpulint.a
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -Icmd $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(MAN): $(BUILD)/genman
	@echo "  GEN     $@"
	$(Q)./$(BUILD)/genman > $@.tmp && mv $@.tmp $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libcpulint.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS) $(CHECK_LIBS)

$(BUILD)/bench/%: tests/bench/%.c $(BUILD)/libcpulint.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS)

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
	    SAN="-fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
	    BIN=build-asan/kubectl-cpulint check

valgrind: $(UNIT_BIN)
	$(Q)for t in $(UNIT_BIN); do CK_FORK=no valgrind -q --error-exitcode=3 \
	    --leak-check=full --errors-for-leak-kinds=definite $$t || exit 1; done

lint:
	$(Q)sh tools/lint.sh

bench: $(BIN) $(BENCH_BIN)
	$(Q)BUILD=$(BUILD) sh tests/bench/run.sh $(BENCH_BIN)

# Fuzzing (clang + libFuzzer): FUZZ_SECONDS per run, seeded from testdata.
FUZZ_SECONDS ?= 60
fuzz:
	$(Q)$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang \
	    CFLAGS="-O1 -g" SAN="-fsanitize=fuzzer-no-link,address,undefined" \
	    build-fuzz/libcpulint.a
	$(Q)clang -O1 -g -fsanitize=fuzzer,address,undefined -Ilib -Irules \
	    -Ibuild-fuzz -o build-fuzz/fuzz_lint tests/fuzz/fuzz_lint.c \
	    build-fuzz/libcpulint.a $(LDLIBS)
	$(Q)mkdir -p build-fuzz/corpus && \
	    find testdata -name '*.yaml' -size -64k -exec cp {} build-fuzz/corpus/ \;
	$(Q)./build-fuzz/fuzz_lint -max_total_time=$(FUZZ_SECONDS) \
	    -max_len=65536 build-fuzz/corpus

# A release tarball for krew (tools/krew-manifest.sh renders the manifest).
dist: $(BIN)
	$(Q)rm -rf $(BUILD)/dist && mkdir -p $(BUILD)/dist
	$(Q)cp $(BIN) $(BUILD)/dist/ && strip $(BUILD)/dist/$(BIN)
	$(Q)tar -C $(BUILD)/dist -czf kubectl-cpulint-v$(VERSION)-linux-amd64.tar.gz $(BIN)
	@echo "  DIST    kubectl-cpulint-v$(VERSION)-linux-amd64.tar.gz"

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
	rm -rf build build-asan build-fuzz $(BIN)

-include $(shell find $(BUILD) build-asan -name '*.d' 2>/dev/null)
