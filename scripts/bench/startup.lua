-- scripts/bench/startup.lua: how fast the host starts and how little the idle REPL holds.
--
--   build/konane scripts/bench/startup.lua [runs]
--
-- 1. Start-up time of `build/konane -e ''`: the median wall time over 'runs' (default 41) starts,
--    each timed by `sh -c` around a loop of 10 starts, minus the same loop of `/bin/true`, so
--    the time of the shell and of fork/exec of a trivial program is not counted.
-- 2. Idle memory of the REPL: `build/konane -i` fed from a pipe starts the REPL (the Konane
--    commands loaded, an 8x8 game in g) and prints its own VmRSS and VmHWM from /proc.
-- A benchmark, not a test: it prints figures and the commands that made them.

local core = require "konane.core"

local runs = tonumber(arg and arg[1]) or 41
local host = (arg and arg[-1]) or "build/konane"
if not host:find("/") then host = "build/konane" end

local function median(list)
  table.sort(list)
  local n = #list
  if n % 2 == 1 then return list[(n + 1) // 2] end
  return (list[n // 2] + list[n // 2 + 1]) / 2
end

local function time_loop(cmd, times)
  local script = string.format("i=0; while [ $i -lt %d ]; do %s; i=$((i+1)); done", times, cmd)
  local t0 = core.clock()
  local ok = os.execute("sh -c '" .. script .. "' >/dev/null 2>&1")
  local dt = core.clock() - t0
  if not ok then error("failed: " .. cmd) end
  return dt / times
end

local quoted = string.format("%s -e \"\"", host)
time_loop(quoted, 5)  -- warm the page cache
local host_times, base_times = {}, {}
for i = 1, runs do
  host_times[i] = time_loop(quoted, 10)
  base_times[i] = time_loop("/bin/true", 10)
end
local host_ms = median(host_times) * 1000
local base_ms = median(base_times) * 1000
print(string.format("start-up: %s -e '' takes %.2f ms (median of %d x 10 starts; %.2f ms with the "
  .. "shell's fork+exec, which takes %.2f ms for /bin/true)", host, host_ms - base_ms, runs, host_ms, base_ms))

local probe = [[for l in io.lines('/proc/self/status') do if l:match('^Vm[RH][SW]') then print(l) end end]]
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
print(string.format("commands: %s scripts/bench/startup.lua %d   (runs `%s` and `echo <probe> | %s -i`)",
  host, runs, quoted, host))
