# konane: Makefile
#
#   make            build build/konane (host) and build/konane.so (module)
#   make run        build what is missing, then start the REPL
#   make test       every test (cmocka core tests + Lua tests); last line: N passed, N failed
#   make asan       the same tests under AddressSanitizer + UBSan (build in build-asan/)
#   make bench      speed figures (scripts/bench/*.lua)
#   make install    PREFIX=/usr/local DESTDIR= (the tournament command goes to
#                   PREFIX/share/konane/tournament.lua: konane PREFIX/share/konane/tournament.lua ...)
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
endif

LUA_CFLAGS := $(shell pkg-config --cflags lua5.4 2>/dev/null)
LUA_LIBS := $(shell pkg-config --libs lua5.4 2>/dev/null)
RL_CFLAGS := $(shell pkg-config --cflags readline 2>/dev/null)
RL_LIBS := $(shell pkg-config --libs readline 2>/dev/null)
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

BIND_SRC := $(wildcard src/l*.c)
BIND_OBJ := $(BIND_SRC:src/%.c=$(BUILD)/obj/%.o)
CORE_SRC := $(filter-out $(BIND_SRC) src/repl.c,$(wildcard src/*.c))
CORE_OBJ := $(CORE_SRC:src/%.c=$(BUILD)/obj/%.o)
HEADERS := $(wildcard src/*.h)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_TOOLS_SRC := $(wildcard tests/tool_*.c)
TEST_TOOLS := $(TEST_TOOLS_SRC:tests/%.c=$(BUILD)/tests/%)

HOST := $(BUILD)/konane
MODULE := $(BUILD)/konane.so

.PHONY: all run test asan bench install uninstall clean help check-examples

all: $(HOST) $(MODULE)

$(BUILD)/obj/%.o: src/%.c $(HEADERS) | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BIND_OBJ): $(BUILD)/obj/%.o: src/%.c $(HEADERS) | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) $(LUA_CFLAGS) -c $< -o $@

# readline's flags (they add -D_XOPEN_SOURCE=600) apply to repl.c only
$(BUILD)/obj/repl.o: src/repl.c $(HEADERS) | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) $(LUA_CFLAGS) $(RL_CFLAGS) \
	  -DKONANE_LUADIR='"$(PREFIX)/share/lua/5.4"' \
	  -DKONANE_CDIR='"$(PREFIX)/lib/lua/5.4"' -c $< -o $@

$(HOST): $(BUILD)/obj/repl.o $(BIND_OBJ) $(CORE_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -Wl,-E $^ -o $@ $(LUA_LIBS) $(RL_LIBS) -lm -pthread

$(MODULE): $(BIND_OBJ) $(CORE_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared $^ -o $@ -pthread

$(BUILD)/tests/%: tests/%.c $(CORE_OBJ) $(HEADERS) | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -Isrc $< $(CORE_OBJ) -o $@ \
	  $(LDFLAGS) $(CMOCKA_LIBS) -lm -lutil -pthread

$(BUILD)/obj $(BUILD)/tests:
	mkdir -p $@

run: all
	$(HOST)

test: all $(TEST_BIN) $(TEST_TOOLS)
	@sh scripts/run-tests.sh $(BUILD)

ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
asan:
	$(MAKE) BUILD=build-asan CFLAGS="$(ASAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" test

bench: all
	@for f in scripts/bench/*.lua; do echo "== $$f"; $(HOST) $$f || exit 1; done

install: all
	mkdir -p "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/lib/lua/5.4/konane" \
	  "$(DESTDIR)$(PREFIX)/share/lua/5.4" "$(DESTDIR)$(PREFIX)/share/man/man1"
	cp $(HOST) "$(DESTDIR)$(PREFIX)/bin/konane"
	cp $(MODULE) "$(DESTDIR)$(PREFIX)/lib/lua/5.4/konane/core.so"
	rm -rf "$(DESTDIR)$(PREFIX)/share/lua/5.4/konane"
	cp -R lua/konane "$(DESTDIR)$(PREFIX)/share/lua/5.4/konane"
	cp docs/konane.1 "$(DESTDIR)$(PREFIX)/share/man/man1/konane.1"
	mkdir -p "$(DESTDIR)$(PREFIX)/share/konane"
	cp scripts/tournament.lua "$(DESTDIR)$(PREFIX)/share/konane/tournament.lua"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/konane" "$(DESTDIR)$(PREFIX)/share/man/man1/konane.1"
	rm -rf "$(DESTDIR)$(PREFIX)/share/konane"
	rm -rf "$(DESTDIR)$(PREFIX)/lib/lua/5.4/konane" "$(DESTDIR)$(PREFIX)/share/lua/5.4/konane"

clean:
	rm -rf build build-asan

help:
	@sed -n '3,10p' Makefile
