-- scripts/bench/tournament.lua: the speed-up of tournament workers on CPU-bound bots.
--
--   build/konane scripts/bench/tournament.lua [runs] [games]
--
-- Plays the same round robin (alphabeta:depth=8 against alphabeta:depth=7 on 8x8, 'games'
-- games, default 8) with --workers 1 (in this process) and --workers 2 (two worker processes),
-- 'runs' times each (default 3), and prints the median wall times and their ratio. The games are
-- the same in both cases (per-game seeds), so the ratio is the speed-up of the workers alone,
-- worker start-up included. On a two-core machine the target is at least 1.8. A benchmark, not
-- a test: it prints figures and the command that made them.

local tournament = require "konane.tournament"
local core = require "konane.core"

local runs = tonumber(arg and arg[1]) or 3
local games = tonumber(arg and arg[2]) or 8

local function median(list)
  table.sort(list)
  local n = #list
  if n % 2 == 1 then return list[(n + 1) // 2] end
  return (list[n // 2] + list[n // 2 + 1]) / 2
end

local function once(workers)
  local t0 = core.clock()
  local res = tournament.run { bots = { "alphabeta:depth=8", "alphabeta:depth=7" }, games = games,
                               time = 60, workers = workers, progress = false }
  local dt = core.clock() - t0
  assert(res.games == games, "not every game was played")
  return dt, res
end

local times = { [1] = {}, [2] = {} }
local signature
for _ = 1, runs do
  for _, w in ipairs { 1, 2 } do
    local dt, res = once(w)
    times[w][#times[w] + 1] = dt
    local sig = res.bots[1].name .. " " .. res.bots[1].wins .. "-" .. res.bots[1].losses
    assert(signature == nil or signature == sig, "the workers changed the results")
    signature = sig
  end
end
local one, two = median(times[1]), median(times[2])
print(string.format("tournament of %d games, alphabeta:depth=8 vs alphabeta:depth=7, 8x8 (%s)", games, signature))
print(string.format("  --workers 1: %.2f s (median of %d)", one, runs))
print(string.format("  --workers 2: %.2f s (median of %d)", two, runs))
print(string.format("  speed-up: %.2fx", one / two))
print(string.format("command: build/konane scripts/bench/tournament.lua %d %d", runs, games))
