-- test_install.lua: make install honours PREFIX and DESTDIR, the installed
-- host finds its Lua library from anywhere, make uninstall removes it all.
local T = {}

local build = os.getenv("KONANE_BUILD") or "build"

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
  local out, code = sh(("make -s install BUILD=%s PREFIX=%s"):format(build, prefix))
  assert(code == 0, out)
  out = sh(("cd / && %s/bin/konane -e 'print(require(\"konane\").new():perft(4), package.searchpath(\"konane\", package.path))'")
    :format(prefix))
  assert(out == ("172\t%s/share/lua/5.4/konane/init.lua\n"):format(prefix), out)
  for _, f in ipairs { "/lib/lua/5.4/konane/core.so", "/share/lua/5.4/konane/variants/brainking.lua" } do
    assert(sh("test -f " .. prefix .. f .. " && echo yes") == "yes\n", f)
  end
  out, code = sh(("make -s uninstall PREFIX=%s"):format(prefix))
  assert(code == 0, out)
  assert(sh("find " .. prefix .. " -type f | wc -l") == "0\n")
  sh("rm -rf " .. prefix)
end

T["make install honours DESTDIR"] = function()
  local dest = tmpdir()
  local out, code = sh(("make -s install BUILD=%s DESTDIR=%s PREFIX=/opt/kn"):format(build, dest))
  assert(code == 0, out)
  assert(sh("test -x " .. dest .. "/opt/kn/bin/konane && echo yes") == "yes\n")
  assert(sh("test -f " .. dest .. "/opt/kn/share/lua/5.4/konane/init.lua && echo yes") == "yes\n")
  sh(("make -s uninstall DESTDIR=%s PREFIX=/opt/kn"):format(dest))
  assert(sh("find " .. dest .. " -type f | wc -l") == "0\n")
  sh("rm -rf " .. dest)
end

return T
