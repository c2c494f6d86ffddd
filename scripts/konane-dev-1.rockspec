-- LuaRocks: `luarocks make scripts/konane-dev-1.rockspec` from a checkout builds with the
-- Makefile and installs the module konane (Lua library and konane.core) and the konane host.
rockspec_format = "3.0"
package = "konane"
version = "dev-1"
source = {
  url = "git+file:///dev/null", -- not fetched: luarocks make builds the checkout it runs in
}
description = {
  summary = "Konane (Hawaiian checkers): rules, search, bots, tournaments and a REPL",
  detailed = [[
A C rules and search core scripted in Lua 5.4: the module `konane` (with `konane.core` in C)
and the readline REPL host program `konane`.]],
}
dependencies = { "lua >= 5.4, < 5.5" }
external_dependencies = {
  READLINE = { header = "readline/readline.h" },
}
build = {
  type = "make",
  build_target = "all",
  build_variables = { LUA = "$(LUA)" },
  install_target = "install-rock",
  install_variables = { LUADIR = "$(LUADIR)", LIBDIR = "$(LIBDIR)", BINDIR = "$(BINDIR)" },
}
