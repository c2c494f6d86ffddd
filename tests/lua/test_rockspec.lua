-- test_rockspec.lua: `luarocks make scripts/konane-dev-1.rockspec` from the checkout installs the
-- module and the host into a tree; stock lua5.4 with that tree's paths requires konane, and the
-- host in the tree's bin/ finds its library (issue 10). Needs luarocks (install-deps.sh --test).
local T = {}

local build = os.getenv("KONANE_BUILD") or "build"

local function sh(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local out = p:read("a")
  local ok, _, code = p:close()
  return out, ok and 0 or code
end

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

T["luarocks make installs a tree that stock lua5.4 and the host both use"] = function()
  local _, has = sh("command -v luarocks")
  assert(has == 0, "luarocks is missing: run scripts/install-deps.sh --test")
  local tree = sh("mktemp -d"):gsub("%s+$", "")
  assert(tree:match("^/"), tree)
  -- the Makefile reuses the build under test (same BUILD and flags: nothing is recompiled)
  local env = ("BUILD=%s CFLAGS=%s LDFLAGS=%s"):format(q(build),
    q(os.getenv("KONANE_CFLAGS") or "-O2 -march=native -g"), q(os.getenv("KONANE_LDFLAGS") or ""))
  local out, code = sh(("%s luarocks --lua-version 5.4 make --tree %s scripts/konane-dev-1.rockspec")
    :format(env, q(tree)))
  assert(code == 0, out)
  local share, lib = tree .. "/share/lua/5.4", tree .. "/lib/lua/5.4"
  local preload = "" -- a sanitizer build's module needs its runtime in stock lua5.4
  if build:find("asan") then
    preload = "LD_PRELOAD=" .. io.popen("cc -print-file-name=libasan.so"):read("l")
      .. " ASAN_OPTIONS=detect_leaks=0 "
  end
  out = sh(("cd / && %sLUA_PATH=%s LUA_CPATH=%s lua5.4 -e %s"):format(preload,
    q(share .. "/?.lua;" .. share .. "/?/init.lua;;"), q(lib .. "/?.so;;"),
    q('local k = require "konane"; print(k.new():perft(4), package.searchpath("konane.core", package.cpath))')))
  assert(out == ("172\t%s/konane/core.so\n"):format(lib), out)
  out = sh(("cd / && %s/bin/konane -e %s"):format(q(tree),
    q('print(require("konane").new():perft(3), package.searchpath("konane", package.path))')))
  assert(out == ("28\t%s/konane/init.lua\n"):format(share), out)
  sh("rm -rf " .. q(tree))
end

return T
