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

--- self_pid() -> the pid of this process (Linux's /proc), or nil
function H.self_pid()
  local f = io.open("/proc/self/stat", "r")
  local pid = f and f:read("l"):match("^(%d+)")
  if f then f:close() end
  return pid
end

--- cpu_wait(pid) -> seconds process 'pid' has spent ready to run but waiting for a CPU (the
-- most of its threads; Linux's /proc/PID/task/TID/schedstat), or nil when that is not known
function H.cpu_wait(pid)
  local core = require("konane").core
  local most
  for _, tid in ipairs(core.listdir("/proc/" .. pid .. "/task") or {}) do
    local f = io.open("/proc/" .. pid .. "/task/" .. tid .. "/schedstat", "r")
    local line = f and f:read("l")
    if f then f:close() end
    local wait = line and tonumber(line:match("^%d+%s+(%d+)"))
    if wait and (not most or wait / 1e9 > most) then most = wait / 1e9 end
  end
  return most
end

--- own_wait() -> seconds the calling thread has spent ready to run but waiting for a CPU
-- (/proc/thread-self/schedstat), 0 when not known: subtracted from a wall-clock figure, it
-- leaves the time this test could run.
function H.own_wait()
  local f = io.open("/proc/thread-self/schedstat", "r")
  local line = f and f:read("l")
  if f then f:close() end
  local wait = line and tonumber(line:match("^%d+%s+(%d+)"))
  return wait and wait / 1e9 or 0
end

-- The pids of process 'root' and of every process below it (by parent, as /proc says).
local function tree(root)
  local core = require("konane").core
  local kids = {}
  for _, name in ipairs(core.listdir("/proc") or {}) do
    local f = name:match("^%d+$") and io.open("/proc/" .. name .. "/stat", "r")
    local line = f and f:read("l")
    if f then f:close() end
    -- (the command in parentheses may hold anything: the parent follows the last ')')
    local ppid = line and line:match("%)%s+%S+%s+(%d+)[^)]*$")
    if ppid then
      kids[ppid] = kids[ppid] or {}
      table.insert(kids[ppid], name)
    end
  end
  local out, todo = {}, { tostring(root) }
  while #todo > 0 do
    local p = table.remove(todo)
    out[#out + 1] = p
    for _, c in ipairs(kids[p] or {}) do todo[#todo + 1] = c end
  end
  return out
end

--- patient_clock(pid [, whole_tree [, chain]]) -> clock(): seconds, as core.clock() counts them,
-- less the time process 'pid' (with 'whole_tree', it and every process below it: a tournament,
-- its workers, their engines) was kept waiting for a CPU. Each call looks (at most every 0.2 s)
-- at the most any one thread of them waited since the last look (with 'chain', what all of them
-- waited, for processes that wait on each other in turn: a referee, its worker, the engine the
-- worker waits for), never more than the time between looks; so the clock never goes back, and
-- it runs at wall speed while they sleep, are blocked, stopped or run. A process that starts and
-- ends between two looks is not seen. Without /proc (not Linux): wall time.
function H.patient_clock(pid, whole_tree, chain)
  local core = require("konane").core
  local last, counted = {}, 0
  local tlook = core.clock()
  local function look(first)
    local grew, seen = 0, {}
    for _, p in ipairs(whole_tree and tree(pid) or { tostring(pid) }) do
      for _, tid in ipairs(core.listdir("/proc/" .. p .. "/task") or {}) do
        local f = io.open("/proc/" .. p .. "/task/" .. tid .. "/schedstat", "r")
        local line = f and f:read("l")
        if f then f:close() end
        local w = line and tonumber(line:match("^%d+%s+(%d+)"))
        if w then
          w = w / 1e9
          seen[tid] = w
          -- (a thread first seen now started since the last look: all its waiting is new)
          local g = w - (last[tid] or (first and w or 0))
          if chain then grew = grew + g elseif g > grew then grew = g end
        end
      end
    end
    -- (the time after the reads: waiting while this walk was kept from a CPU is in them)
    local now = core.clock()
    last = seen
    counted = counted + math.min(grew, now - tlook)
    tlook = now
  end
  look(true)
  local high = -math.huge
  return function()
    if core.clock() - tlook >= 0.2 then look(false) end
    -- (a look may take off up to 0.2 s the calls since the last one have already counted)
    high = math.max(high, core.clock() - counted)
    return high
  end
end

--- patience(seconds, pid [, whole_tree]) -> expired(): a hang guard for a test waiting on
-- process 'pid' (with 'whole_tree', on it and every process below it). expired() is true once
-- 'seconds' have passed in which those processes were not kept waiting for a CPU
-- (patient_clock): a test run at nice 19 beside a benchmark at nice -10 gets well under 1% of
-- a core, and an engine then takes tens of seconds to start. A process that hangs (blocked,
-- or looping with any CPU at all) still ends the wait. Without /proc (not Linux): wall time.
function H.patience(seconds, pid, whole_tree)
  local clock = H.patient_clock(pid, whole_tree)
  local t0 = clock()
  return function() return clock() - t0 > seconds end
end

--- sh(cmd) -> everything 'cmd' (a shell command) wrote to its stdout
function H.sh(cmd)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  return out
end

--- dump_dom(file [, fragment]) -> the DOM of 'file' (an absolute path; 'fragment' such as
-- "#ply=3" appended to its address) after headless Chromium has run its scripts. A browser that
-- gives nothing within its time (a loaded machine, a sanitizer build beside it) is started once
-- more with twice the time: a page that never renders still fails.
function H.dump_dom(file, fragment)
  local path = H.sh("command -v chromium || command -v chromium-browser"):gsub("%s+$", "")
  assert(path ~= "", "chromium is not installed: run scripts/install-deps.sh --test")
  for _, seconds in ipairs { 90, 180 } do
    local profile = H.tmpdir()
    local dom = H.sh(("timeout %d %s --headless --no-sandbox --disable-gpu --disable-background-networking "
      .. "--disable-component-update --disable-sync --no-first-run --user-data-dir=%s "
      .. "--dump-dom 'file://%s%s' 2>/dev/null"):format(seconds, path, profile, file, fragment or ""))
    H.sh("rm -rf '" .. profile .. "'")
    if dom:find("</html>", 1, true) then return dom end
  end
  error("chromium gave no document for " .. file .. " (twice)")
end

return H
