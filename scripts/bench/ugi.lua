-- scripts/bench/ugi.lua: the cost of playing through UGI and processes of their own.
--
--   build/konane scripts/bench/ugi.lua [games]
--
-- 1. The UGI round trip: `position ...` + `go depth 1` to a `konane --ugi alphabeta` engine on a
--    6x6 position, until its bestmove line is read; the median of 2,000 (target: under 0.2 ms).
-- 2. Tournament throughput with process-isolated bot files: two random bots written in Lua, each
--    in its own `konane --ugi FILE` process, on 6x6 with two worker processes ('games' games,
--    default 2,000; target: at least 300 games/s). Player processes live from game to game.
-- 3. The same games of the built-in random bots in the referee's process, one worker (target:
--    at least 5,000 games/s).
-- A benchmark, not a test: it prints figures (medians where it repeats) and what made them.

local konane = require "konane"
local core = konane.core

local games = tonumber(arg and arg[1]) or 2000

local median = require("konane.stats").median

-- 1. round trip
local function round_trip(n)
  local exe = core.exe_path()
  local p = assert(core.spawn({ exe, "-e", string.format("package.path=%q package.cpath=%q",
    package.path, package.cpath), "--ugi", "alphabeta" }, { stdin = true, session = true, stderr = false }))
  local buf = ""
  local function line()
    while true do
      local a = buf:find("\n", 1, true)
      if a then
        local l = buf:sub(1, a - 1)
        buf = buf:sub(a + 1)
        return l
      end
      core.poll({ p }, 5)
      local chunk = p:read()
      if chunk == nil then error("the engine ended") end
      buf = buf .. chunk
    end
  end
  local function upto(prefix)
    while true do
      local l = line()
      if l:sub(1, #prefix) == prefix then return l end
    end
  end
  p:write("ugi\nsetoption name rows value 6\nsetoption name cols value 6\nisready\n")
  upto("readyok")
  local cmd = "position startpos moves c4 c3\ngo depth 1\n"
  local times = {}
  for i = 1, n do
    local t0 = core.clock()
    p:write(cmd)
    upto("bestmove")
    times[i] = core.clock() - t0
  end
  p:write("quit\n")
  p:close()
  return median(times)
end

-- A random bot file (its own generator; no math.random).
local function random_file()
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write([[
return { name = "random-file", new_game = function(self, info)
  local s = info.seed or 1
  self.pick = function(n) s = (s * 6364136223846793005 + 1442695040888963407); return (s >> 33) % n + 1 end
end, choose = function(self, g)
  local m = g:moves()
  return m[self.pick(#m)]
end }
]])
  f:close()
  return path
end

local function rate(bots, n, workers)
  local dir = os.tmpname()
  os.remove(dir)
  local t0 = core.clock()
  local res = konane.tournament.run { bots = bots, rows = 6, cols = 6, games = n, time = 10,
                                      workers = workers, progress = false, out = dir }
  local t = core.clock() - t0
  os.execute("rm -rf '" .. dir .. "'")
  assert(res.games == n, "games played: " .. tostring(res.games))
  return n / t
end

print(string.format("UGI round trip (position + go depth 1, 6x6, konane --ugi alphabeta): median %.3f ms of 2000",
  round_trip(2000) * 1000))
local a, b = random_file(), random_file()
local iso = {}
for i = 1, 3 do iso[i] = rate({ a, b }, games, 2) end
print(string.format("process-isolated bot files, random vs random 6x6, 2 workers, %d games: median %.0f games/s of 3",
  games, median(iso)))
os.remove(a)
os.remove(b)
local inproc = {}
for i = 1, 3 do inproc[i] = rate({ "random", "random:seed=2" }, games * 5, 1) end
print(string.format("built-in bots in the referee, random vs random 6x6, 1 worker, %d games: median %.0f games/s of 3",
  games * 5, median(inproc)))
