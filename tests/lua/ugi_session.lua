-- A scripted UGI session with an engine process, for the tests: send lines, read lines with a
-- generous deadline (a guard against a hang, never a measure of speed).
local konane = require "konane"
local core = konane.core

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

-- The next line (nil at end of output); raises after 'wait' seconds (default 30) without one.
function Session:line(wait)
  local deadline = core.clock() + (wait or 30)
  while true do
    local a = self.buf:find("\n", 1, true)
    if a then
      local line = self.buf:sub(1, a - 1)
      self.buf = self.buf:sub(a + 1)
      self.lines[#self.lines + 1] = line
      return line
    end
    if core.clock() > deadline then error("no line from the engine (so far: " .. table.concat(self.lines, " | ") .. ")", 2) end
    core.poll({ self.p }, 0.05)
    local chunk = self.p:read()
    if chunk == nil then return nil end
    self.buf = self.buf .. chunk
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

function Session:wait_exit()
  for _ = 1, 600 do
    local how, code = self.p:wait()
    if how then return how, code end
    core.poll({}, 0.05)
  end
  return nil
end

return M
