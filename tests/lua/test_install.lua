-- test_install.lua: make install honours PREFIX and DESTDIR, the installed
-- host finds its Lua library from anywhere, make uninstall removes it all.
local T = {}

local build = os.getenv("KONANE_BUILD") or "build"

-- make runs again with the flags of the build under test: a PREFIX change
-- rebuilds the host's main.o, which must match the other objects (asan).
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local MAKE = ("make -s BUILD=%s CFLAGS=%s LDFLAGS=%s"):format(build,
  q(os.getenv("KONANE_CFLAGS") or "-O2 -march=native -g"), q(os.getenv("KONANE_LDFLAGS") or ""))

local function sh(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local out = p:read("a")
  local ok, _, code = p:close()
  return out, ok and 0 or code
end

local function tmpdir()
  local d = sh("mktemp -d"):gsub("%s+$", "")
  assert(d:match("^/"), d)
  return d
end

T["make install to a PREFIX gives a host that finds its library"] = function()
  local prefix = tmpdir()
  local out, code = sh(("%s install PREFIX=%s"):format(MAKE, prefix))
  assert(code == 0, out)
  out = sh(("cd / && %s/bin/konane -e 'print(require(\"konane\").new():perft(4), package.searchpath(\"konane\", package.path))'")
    :format(prefix))
  assert(out == ("172\t%s/share/lua/5.4/konane/init.lua\n"):format(prefix), out)
  for _, f in ipairs { "/lib/lua/5.4/konane/core.so", "/share/lua/5.4/konane/variants/brainking.lua" } do
    assert(sh("test -f " .. prefix .. f .. " && echo yes") == "yes\n", f)
  end
  -- the user's scripts run from the installation (solve.lua and cgt.lua were not installed)
  for _, name in ipairs { "tournament", "report", "annotate", "solve", "cgt" } do
    out, code = sh(("cd / && %s/bin/konane %s/share/konane/%s.lua --help"):format(prefix, prefix, name))
    assert(code == 0 and out:lower():find("usage:", 1, true), name .. ".lua: " .. out)
  end
  -- a copy of the host away from its tree falls back on the PREFIX compiled
  -- in: the install rebuilt the host for this PREFIX
  local away = tmpdir()
  sh(("mkdir %s/bin && cp %s/bin/konane %s/bin/"):format(away, prefix, away))
  out = sh(("cd / && %s/bin/konane -e 'print(package.searchpath(\"konane\", package.path))'"):format(away))
  assert(out == ("%s/share/lua/5.4/konane/init.lua\n"):format(prefix), out)
  sh("rm -rf " .. away)
  out, code = sh(("make -s uninstall PREFIX=%s"):format(prefix))
  assert(code == 0, out)
  assert(sh("find " .. prefix .. " -type f | wc -l") == "0\n")
  sh("rm -rf " .. prefix)
end

T["make install honours DESTDIR"] = function()
  local dest = tmpdir()
  local out, code = sh(("%s install DESTDIR=%s PREFIX=/opt/kn"):format(MAKE, dest))
  assert(code == 0, out)
  assert(sh("test -x " .. dest .. "/opt/kn/bin/konane && echo yes") == "yes\n")
  assert(sh("test -f " .. dest .. "/opt/kn/share/lua/5.4/konane/init.lua && echo yes") == "yes\n")
  sh(("make -s uninstall DESTDIR=%s PREFIX=/opt/kn"):format(dest))
  assert(sh("find " .. dest .. " -type f | wc -l") == "0\n")
  sh("rm -rf " .. dest)
end

return T
