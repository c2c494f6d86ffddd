-- Helpers shared by the Lua test files: shell quoting, temporary directories removed at the
-- end of a file, whole-file reads and writes. Load with dofile("tests/lua/helpers.lua"): each
-- test file gets its own list of directories to remove.
local H = {}

--- sh_quote(s) -> s as one word for /bin/sh
function H.sh_quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local made = {}

--- tmpdir() -> the path of a fresh empty directory, removed by cleanup()
function H.tmpdir()
  local p = os.tmpname()
  os.remove(p)
  assert(os.execute("mkdir -p " .. H.sh_quote(p)))
  made[#made + 1] = p
  return p
end

--- cleanup(): removes every directory tmpdir() made
function H.cleanup()
  for _, p in ipairs(made) do os.execute("rm -rf " .. H.sh_quote(p)) end
  made = {}
end

--- read(path) -> the file's whole text (raises when it cannot be read)
function H.read(path)
  local f = assert(io.open(path, "rb"))
  local t = f:read("a")
  f:close()
  return t
end

--- write(path, text): replaces the file's text (raises when it cannot be written)
function H.write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

--- run(argv [, opts]) -> exit code, combined output
-- Runs the command (a list, no shell) through konane.core.spawn (with its options, e.g. a
-- memory limit) and collects what it prints.
function H.run(argv, opts)
  local core = require("konane").core
  local p = assert(core.spawn(argv, opts))
  local out = {}
  while true do
    core.poll({ p }, 1)
    local s = p:read()
    if s == nil then break end
    out[#out + 1] = s
  end
  local _, code = p:wait(true)
  return code, table.concat(out)
end

return H
