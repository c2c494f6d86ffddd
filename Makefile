# konane: Makefile
#
#   make            build build/konane (host) and build/konane.so (module)
#   make run        build what is missing, then start the REPL
#   make test       every test (cmocka core tests + Lua tests); last line: N passed, N failed
#   make test-slow  the slow checks (full samples of the randomized comparisons; CI runs them)
#   make lint       luacheck (.luacheckrc) and cppcheck on src/, silent when clean
#   make asan       the same tests under AddressSanitizer + UBSan (build in build-asan/)
#   make tsan       the C tests that run threads under ThreadSanitizer (build-tsan/)
#   make bench      speed figures (scripts/bench/*.lua)
#   make install    PREFIX=/usr/local DESTDIR= (the tournament command is PREFIX/bin/
#                   konane-tournament, a copy of scripts/tournament.lua run by its #! line)
#
# From a checkout the module is build/konane.so: build/konane is the host
# program, so a build/konane/ directory cannot exist; Lua's all-in-one C
# loader finds luaopen_konane_core in build/konane.so for require "konane.core"
# (LUA_CPATH='build/?.so;;'). Installed, it is lib/lua/5.4/konane/core.so.

# ---- user settings ----
CC ?= cc
CFLAGS ?= -O2 -march=native -g
LDFLAGS ?=
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
LUA ?= lua5.4

# ---- required flags ----
WARN := -Wall -Wextra -Wshadow -Wundef -Wmissing-prototypes \
        -Wstrict-prototypes -Wwrite-strings
ALL_CFLAGS := -std=c11 $(WARN) $(CFLAGS) -fPIC -pthread

# Install missing system packages before asking pkg-config for flags.
NODEPS_GOALS := clean uninstall help
ifeq ($(filter-out $(NODEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
else
HAVE_DEPS := $(shell pkg-config --exists lua5.4 readline cmocka 2>/dev/null && command -v $(LUA) >/dev/null && echo yes)
ifneq ($(HAVE_DEPS),yes)
$(info konane: some system packages are missing; running scripts/install-deps.sh)
DEPS_STATUS := $(shell sh scripts/install-deps.sh >&2; echo $$?)
ifneq ($(DEPS_STATUS),0)
$(error scripts/install-deps.sh failed; install the packages it lists and retry)
endif
endif
# The test goals also need the test tools (headless chromium, xmllint, luacheck,
# cppcheck, luarocks, python3): a fresh machine gets them the same way.
ifneq ($(filter test test-slow lint asan tsan,$(MAKECMDGOALS)),)
HAVE_TEST_DEPS := $(shell for c in chromium xmllint luacheck cppcheck luarocks python3; do command -v $$c >/dev/null || exit 1; done && echo yes)
ifneq ($(HAVE_TEST_DEPS),yes)
$(info konane: some test tools are missing; running scripts/install-deps.sh --test)
TEST_DEPS_STATUS := $(shell sh scripts/install-deps.sh --test >&2; echo $$?)
ifneq ($(TEST_DEPS_STATUS),0)
$(error scripts/install-deps.sh --test failed; install the packages it lists and retry)
endif
endif
endif
endif

LUA_CFLAGS := $(shell pkg-config --cflags lua5.4 2>/dev/null)
LUA_LIBS := $(shell pkg-config --libs lua5.4 2>/dev/null)
RL_CFLAGS := $(shell pkg-config --cflags readline 2>/dev/null)
RL_LIBS := $(shell pkg-config --libs readline 2>/dev/null)
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

# Three kinds of objects: the core (plain C11, no Lua), the Lua binding
# (src/l*.c, Lua's flags) and the host program (main.c, repl.c: Lua's flags,
# readline's for repl.c only).
BIND_SRC := $(wildcard src/l*.c)
HOST_SRC := src/main.c src/repl.c
INIT_SRC := src/sbinit.c
CORE_SRC := $(filter-out $(BIND_SRC) $(HOST_SRC) $(INIT_SRC),$(wildcard src/*.c))
BIND_OBJ := $(BIND_SRC:src/%.c=$(BUILD)/obj/%.o)
HOST_OBJ := $(HOST_SRC:src/%.c=$(BUILD)/obj/%.o)
CORE_OBJ := $(CORE_SRC:src/%.c=$(BUILD)/obj/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
DEPS := $(wildcard $(BUILD)/obj/*.d $(BUILD)/tests/*.d)

HOST := $(BUILD)/konane
MODULE := $(BUILD)/konane.so
# A sandboxed player's init execs this small program (src/sbinit.c), found
# beside the module or the host program: installed beside both.
INIT := $(BUILD)/konane-sandbox-init
# The host's fallback library directory comes from PREFIX: this header is
# rewritten only when PREFIX changes, and main.o depends on it.
PREFIX_H := $(BUILD)/gen/prefix.h

.PHONY: all run test test-slow lint asan tsan bench install install-rock uninstall clean help FORCE

all: $(HOST) $(MODULE) $(INIT)

# -MMD -MP: each object depends on the headers it includes (the .d files)
DEPFLAGS = -MMD -MP

$(CORE_OBJ) $(BUILD)/obj/sbinit.o: $(BUILD)/obj/%.o: src/%.c Makefile | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BIND_OBJ): $(BUILD)/obj/%.o: src/%.c Makefile | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(LUA_CFLAGS) -c $< -o $@

$(BUILD)/obj/main.o: src/main.c $(PREFIX_H) Makefile | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(LUA_CFLAGS) -I$(BUILD)/gen -c $< -o $@

# readline's flags (they add -D_XOPEN_SOURCE=600) apply to repl.c only
$(BUILD)/obj/repl.o: src/repl.c Makefile | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(LUA_CFLAGS) $(RL_CFLAGS) -c $< -o $@

$(PREFIX_H): FORCE | $(BUILD)/gen
	@printf '/* generated by the Makefile from PREFIX */\n#define KONANE_LUADIR "%s"\n' \
	  '$(PREFIX)/share/lua/5.4' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

$(HOST): $(HOST_OBJ) $(BIND_OBJ) $(CORE_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -pthread -Wl,-E $^ -o $@ $(LUA_LIBS) $(RL_LIBS) -lm

$(MODULE): $(BIND_OBJ) $(CORE_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -pthread -shared $^ -o $@ -lm

$(INIT): $(BUILD)/obj/sbinit.o $(BUILD)/obj/sandbox.o
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@

# Tests link the core only; the pty test also needs forkpty from -lutil.
$(BUILD)/tests/test_repl_pty: TEST_LIBS := -lutil
$(BUILD)/tests/%: tests/%.c $(CORE_OBJ) | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(CMOCKA_CFLAGS) -Isrc $< $(CORE_OBJ) -o $@ \
	  $(LDFLAGS) $(CMOCKA_LIBS) -lm $(TEST_LIBS)

$(BUILD)/obj $(BUILD)/tests $(BUILD)/gen:
	mkdir -p $@

-include $(DEPS)

run: all
	$(HOST)

# The install test runs make again: it gets the same flags.
test: all $(TEST_BIN)
	@KONANE_CFLAGS='$(CFLAGS)' KONANE_LDFLAGS='$(LDFLAGS)' sh scripts/run-tests.sh $(BUILD)

# The slow checks: every Lua test file that reads KONANE_SLOW runs with its
# full sample (the reference move generator over 300+ positions, ...).
SLOW_LUA = $(shell grep -l KONANE_SLOW tests/lua/test_*.lua)
test-slow: all
	@KONANE_BUILD=$(BUILD) KONANE_SLOW=1 $(HOST) tests/lua/run.lua $(SLOW_LUA)

# Lint: luacheck (.luacheckrc) and cppcheck, both silent when clean. The
# suppressions are cppcheck false positives, one line each with the reason.
CPPCHECK_FLAGS := -q --std=c11 --enable=warning,portability --error-exitcode=1 \
  --suppress=wrongPrintfScanfArgNum:src/board.c \
  --suppress=negativeIndex:src/solve.c \
  --suppress=selfAssignment:src/tt.c \
  --suppress=ctuArrayIndex:src/wide_impl.h --suppress=toomanyconfigs
# board.c: set_err passes on its caller's format (checked at each call);
# solve.c: 'i' counts up from 0 (misread 'i >= FIRST_SHARED' test);
# tt.c: p[i] = p[i] through a volatile pointer touches each page on purpose;
# wide_impl.h: NW differs per instantiation (cross-file analysis mixes them).
lint:
	luacheck -q lua scripts examples tests
	cppcheck $(CPPCHECK_FLAGS) -Isrc $(LUA_CFLAGS) src/

# -march=native as in the normal build: the solver's vector counts (src/both8.h) run under the
# sanitizers too (its test also runs the scalar form and compares the two).
ASAN_FLAGS := -O1 -march=native -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -DKN_SELFCHECK
asan:
	$(MAKE) BUILD=build-asan CFLAGS="$(ASAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" test

# ThreadSanitizer over the C tests whose code runs threads (the search's
# helpers, the solver's shared table, the tables' atomic words): a plain or
# vector read of an entry another thread writes passes every other test.
# Build in build-tsan/; the Lua tests stay with make test and make asan.
TSAN_FLAGS := -O1 -march=native -g -fsanitize=thread -fno-omit-frame-pointer
TSAN_TESTS := test_search test_solve test_tt
tsan:
	$(MAKE) BUILD=build-tsan CFLAGS="$(TSAN_FLAGS)" LDFLAGS="-fsanitize=thread" \
	  $(TSAN_TESTS:%=build-tsan/tests/%)
	@TSAN_OPTIONS=exitcode=66 sh scripts/run-tests.sh build-tsan $(TSAN_TESTS)

bench: all
	@for f in scripts/bench/*.lua; do echo "== $$f"; $(HOST) $$f || exit 1; done

LUADIR := $(DESTDIR)$(PREFIX)/share/lua/5.4
install: all
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/lib/lua/5.4/konane" \
	  "$(DESTDIR)$(PREFIX)/share/man/man1" "$(DESTDIR)$(PREFIX)/share/konane"
	install -m 755 $(HOST) "$(DESTDIR)$(PREFIX)/bin/konane"
	install -m 755 $(MODULE) "$(DESTDIR)$(PREFIX)/lib/lua/5.4/konane/core.so"
	install -m 755 $(INIT) "$(DESTDIR)$(PREFIX)/bin/konane-sandbox-init"
	install -m 755 $(INIT) "$(DESTDIR)$(PREFIX)/lib/lua/5.4/konane/konane-sandbox-init"
	rm -rf "$(LUADIR)/konane"
	cd lua && find konane -type d -exec install -d "$(LUADIR)/{}" \; && \
	  find konane -type f -name '*.lua' -exec install -m 644 {} "$(LUADIR)/{}" \;
	install -m 644 docs/konane.1 "$(DESTDIR)$(PREFIX)/share/man/man1/konane.1"
	install -m 644 scripts/tournament.lua "$(DESTDIR)$(PREFIX)/share/konane/tournament.lua"
	install -m 644 scripts/report.lua scripts/annotate.lua scripts/solve.lua scripts/cgt.lua \
	  "$(DESTDIR)$(PREFIX)/share/konane/"
	# the installed command names its own host, so it runs without PREFIX/bin on the PATH
	sed '1s|^#!.*|#!$(PREFIX)/bin/konane|' scripts/tournament.lua >"$(DESTDIR)$(PREFIX)/bin/konane-tournament"
	chmod 755 "$(DESTDIR)$(PREFIX)/bin/konane-tournament"

# LuaRocks (scripts/konane-dev-1.rockspec): the same files into the rock's
# directories, which luarocks then deploys into its tree.
install-rock: all
	install -d "$(LIBDIR)/konane" "$(BINDIR)" "$(LUADIR)"
	install -m 755 $(MODULE) "$(LIBDIR)/konane/core.so"
	install -m 755 $(HOST) "$(BINDIR)/konane"
	install -m 755 $(INIT) "$(LIBDIR)/konane/konane-sandbox-init"
	install -m 755 $(INIT) "$(BINDIR)/konane-sandbox-init"
	cd lua && find konane -type d -exec install -d "$(LUADIR)/{}" \; && \
	  find konane -type f -name '*.lua' -exec install -m 644 {} "$(LUADIR)/{}" \;

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/konane" "$(DESTDIR)$(PREFIX)/bin/konane-tournament" \
	  "$(DESTDIR)$(PREFIX)/bin/konane-sandbox-init" \
	  "$(DESTDIR)$(PREFIX)/share/man/man1/konane.1"
	rm -rf "$(DESTDIR)$(PREFIX)/share/konane"
	rm -rf "$(DESTDIR)$(PREFIX)/lib/lua/5.4/konane" "$(DESTDIR)$(PREFIX)/share/lua/5.4/konane"

clean:
	rm -rf build build-asan build-tsan

help:
	@sed -n '3,12p' Makefile
