-- scripts/bench/startup.lua: how fast the host starts and how little the idle REPL holds.
--
--   build/konane scripts/bench/startup.lua [runs]
--
-- 1. Start-up time of `build/konane -e ''`: the wall time from fork to the child's exit, started
--    directly (konane.core.spawn, no shell), median over 'runs' (default 51) starts. The same for
--    /bin/true shows what fork+exec+wait alone costs on this machine.
-- 2. Idle memory of the REPL: `build/konane -i` with a pipe as stdin starts the REPL (the Konane
--    commands loaded, an 8x8 game in g) and is asked for its own VmRSS and VmHWM from /proc.
-- A benchmark, not a test: it prints figures and the commands that made them.

local core = require "konane.core"

local runs = tonumber(arg and arg[1]) or 51
local host = core.exe_path and core.exe_path() or (arg and arg[-1]) or "build/konane"

local median = require("konane.stats").median

-- Seconds from spawning argv to its exit.
local function run_once(argv)
  if core.spawn then
    local t0 = core.clock()
    local p = assert(core.spawn(argv))
    local how, code = p:wait(true)
    local dt = core.clock() - t0
    p:close()
    if how ~= "exit" or code ~= 0 then error(table.concat(argv, " ") .. " failed: " .. tostring(how)) end
    return dt
  end
  -- Without core.spawn: through the shell (its own start is then counted too).
  local t0 = core.clock()
  local ok = os.execute(table.concat(argv, " ") .. " >/dev/null 2>&1")
  local dt = core.clock() - t0
  if not ok then error(table.concat(argv, " ") .. " failed") end
  return dt
end

local function median_time(argv)
  run_once(argv)  -- warm the page cache
  local t = {}
  for i = 1, runs do t[i] = run_once(argv) end
  return median(t) * 1000
end

local host_ms = median_time { host, "-e", "" }
local true_ms = median_time { "/bin/true" }
print(string.format("start-up: %s -e '' runs in %.2f ms from fork to exit (median of %d; /bin/true: %.2f ms)%s",
  host, host_ms, runs, true_ms, core.spawn and "" or " [through /bin/sh]"))

local probe = "for l in io.lines('/proc/self/status') do if l:match('^Vm[RH][SW]') then print(l) end end"
local p = io.popen(string.format("echo \"%s\" | %s -i 2>&1", probe, host))
local text = p:read("a")
p:close()
local rss = text:match("VmRSS:%s*(%d+)")
local hwm = text:match("VmHWM:%s*(%d+)")
if rss then
  print(string.format("idle REPL: VmRSS %.1f MiB, peak VmHWM %.1f MiB (konane.repl loaded, an 8x8 game in g)",
    tonumber(rss) / 1024, tonumber(hwm or rss) / 1024))
else
  print("idle REPL: could not read /proc/self/status: " .. text)
end
print(string.format("command: %s scripts/bench/startup.lua %d   (spawns `%s -e ''`; pipes a /proc probe to `%s -i`)",
  host, runs, host, host))
