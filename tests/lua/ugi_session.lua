-- A scripted UGI session with an engine process, for the tests: send lines, read lines with a
-- generous deadline (a guard against a hang, never a measure of speed).
local konane = require "konane"
local core = konane.core
local H = dofile("tests/lua/helpers.lua")

local M = {}

-- The command that serves 'spec' with this host: `konane --ugi SPEC`, with the test's module
-- paths (the host given by KONANE_BUILD, else build/konane).
function M.engine_argv(spec)
  local exe = (os.getenv("KONANE_BUILD") or "build") .. "/konane"
  return { exe, "-e", string.format("package.path=%q package.cpath=%q", package.path, package.cpath),
           "--ugi", spec }
end

local Session = {}
Session.__index = Session

function M.start(argv)
  local p = assert(core.spawn(argv, { stdin = true, session = true, stderr = false }))
  return setmetatable({ p = p, buf = "", lines = {} }, Session)
end

function Session:send(...)
  for _, line in ipairs { ... } do assert(self.p:write(line .. "\n")) end
end

-- The next line (nil at end of output); raises when the engine has had 'wait' seconds (default
-- 30) to run without sending one: time it spent waiting for a CPU does not count (H.patience),
-- and what it sent before is read first, so a starved test never mistakes slowness for a hang.
function Session:line(wait)
  local expired = H.patience(wait or 30, self.p:pid())
  while true do
    local a = self.buf:find("\n", 1, true)
    if a then
      local line = self.buf:sub(1, a - 1)
      self.buf = self.buf:sub(a + 1)
      self.lines[#self.lines + 1] = line
      return line
    end
    core.poll({ self.p }, 0.05)
    local chunk = self.p:read()
    if chunk == nil then return nil end
    self.buf = self.buf .. chunk
    if not self.buf:find("\n", 1, true) and expired() then
      error("no line from the engine (so far: " .. table.concat(self.lines, " | ") .. ")", 2)
    end
  end
end

-- Lines up to and including the first for which pred(line) is true (a string: equality).
function Session:upto(pred)
  if type(pred) == "string" then
    local want = pred
    pred = function(l) return l == want end
  end
  local got = {}
  while true do
    local l = self:line()
    if l == nil then error("the engine ended before the expected line; got: " .. table.concat(got, " | "), 2) end
    got[#got + 1] = l
    if pred(l) then return got, l end
  end
end

-- The bestmove word after the info lines of a go.
function Session:bestmove()
  local got, last = self:upto(function(l) return l:match("^bestmove ") ~= nil end)
  return last:match("^bestmove (%S+)$"), got
end

function Session:close()
  self.p:close()
end

-- How the engine ended ("exit", code), or nil when it has had 30 s to run and still runs.
function Session:wait_exit()
  local expired = H.patience(30, self.p:pid())
  repeat
    local how, code = self.p:wait()
    if how then return how, code end
    core.poll({}, 0.05)
  until expired()
  return nil
end

return M
