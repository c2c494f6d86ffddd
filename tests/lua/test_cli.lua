-- test_cli.lua: every command line a user types, as a user would mistype it: the program
-- itself and the scripts. A bad option exits with status 2, names the option on stderr and
-- prints nothing else; --help exits 0 with the usage on standard output.
local H = dofile("tests/lua/helpers.lua")

local build = os.getenv("KONANE_BUILD") or "build"
local host = build .. "/konane"

-- The commands: the argument list before the options under test.
local COMMANDS = {
  { host },
  { host, "scripts/tournament.lua" },
  { host, "scripts/solve.lua" },
  { host, "scripts/annotate.lua" },
  { host, "scripts/report.lua" },
  { host, "scripts/cgt.lua" },
  { host, "scripts/tune.lua" },
  { host, "scripts/ugi_shim.lua" },
}

-- Run 'base' followed by 'extra' with stdin from /dev/null, stdout and stderr apart.
-- Returns the exit code, stdout and stderr.
local dir
local function run(base, extra)
  dir = dir or H.tmpdir()
  local parts = {}
  for _, a in ipairs(base) do parts[#parts + 1] = H.sh_quote(a) end
  for _, a in ipairs(extra) do parts[#parts + 1] = H.sh_quote(a) end
  local cmd = ("%s </dev/null >%s/out 2>%s/err"):format(table.concat(parts, " "), dir, dir)
  local code = H.run { "sh", "-c", cmd }
  return code, H.read(dir .. "/out"), H.read(dir .. "/err")
end

local function name(base) return base[2] or "konane" end

local T = {}

T["a bad option exits with status 2 and says which option"] = function()
  for _, base in ipairs(COMMANDS) do
    for _, bad in ipairs { "--no-such-option", "-Z" } do
      local code, out, err = run(base, { bad })
      assert(code == 2, ("%s %s: exit %s, want 2 (%s)"):format(name(base), bad, code, err))
      assert(err:find(bad, 1, true), ("%s %s: the message does not name it: %s")
        :format(name(base), bad, err))
      assert(out == "", ("%s %s: printed on stdout: %s"):format(name(base), bad, out))
      assert(not err:find("stack traceback", 1, true) and not err:find("%.lua:%d+:"),
        ("%s %s: a traceback or a Lua position: %s"):format(name(base), bad, err))
    end
  end
end

T["--help exits 0 with the usage on standard output"] = function()
  for _, base in ipairs(COMMANDS) do
    local code, out, err = run(base, { "--help" })
    assert(code == 0, ("%s --help: exit %s (%s)"):format(name(base), code, err))
    assert(out:lower():find("usage:", 1, true), ("%s --help: no usage on stdout"):format(name(base)))
    assert(err == "", ("%s --help: printed on stderr: %s"):format(name(base), err))
  end
end

T["konane: an option missing its argument exits with status 2; --version prints the version"] = function()
  for _, args in ipairs { { "-e" }, { "-l" }, { "--ugi" }, { "--ugi", "random", "extra" } } do
    local code, _, err = run({ host }, args)
    assert(code == 2, ("konane %s: exit %s, want 2"):format(table.concat(args, " "), code))
    assert(err:find("^konane: "), "the message names the program, not its directory: " .. err)
  end
  local code, out = run({ host }, { "--version" })
  assert(code == 0 and out:find("^konane %d"), out)
  -- an error in the program run (not in the command line) is still status 1
  code = run({ host }, { "-e", "error('x')" })
  assert(code == 1, "an error in -e: exit " .. tostring(code))
end

-- each test removes its temporary directory, failed or not
for k, fn in pairs(T) do
  T[k] = function()
    local ok, err = pcall(fn)
    H.cleanup()
    dir = nil
    if not ok then error(err, 0) end
  end
end

return T
