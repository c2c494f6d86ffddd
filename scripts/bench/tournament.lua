-- scripts/bench/tournament.lua: the speed-up of tournament workers on CPU-bound bots.
--
--   build/konane scripts/bench/tournament.lua [runs] [games]
--
-- Plays the same round robin (alphabeta:depth=10,hash_mb=1 against alphabeta:depth=9,hash_mb=1
-- on 8x8, 'games' games, default 48: enough that the last game, which one worker plays alone,
-- costs little) with --workers 1 (in this process) and --workers 2 (two worker processes),
-- 'runs' times each (default 3), and prints the median wall times and their ratio. The games are
-- the same in both cases (per-game seeds), so the ratio is the speed-up of the workers alone,
-- worker start-up included. On a two-core machine the target is at least 1.8. The hash table is
-- kept small so that the bots are CPU-bound; BENCH_TABLES=default plays the same games with the
-- bots' default tables (made once per bot and kept between moves) instead. For reference it
-- also times a plain CPU-bound loop run once and twice at the same time: on a machine busy with
-- other work that ratio is the most any parallel program could reach at that moment. A benchmark,
-- not a test: it prints figures and the command that made them.

local tournament = require "konane.tournament"
local core = require "konane.core"
local median = require("konane.stats").median

-- Throughput of quick games: random against random on 6x6, built-in bots in this process
-- (target: at least 5,000 games/s), without files, and with every file (the journal, written
-- in groups and fsync'ed at most every tournament.SYNC_EVERY seconds, results.json and
-- report.html) in a directory under /tmp, timed from the start of the run to its end.
local function throughput(n, out)
  local t0 = core.clock()
  local last
  local res = tournament.run { bots = { "random", "random:seed=2" }, rows = 6, cols = 6, games = n,
                               time = 10, progress = false, out = out,
                               on_game = function() last = core.clock() end }
  local t1 = core.clock()
  assert(res.games == n)
  -- games per second from start to end; the seconds the result files took after the last game
  return n / (t1 - t0), t1 - last
end
do
  local n = 10000
  local rates, files, after = {}, {}, {}
  for i = 1, 3 do
    rates[i] = throughput(n)
    local dir = os.tmpname()
    os.remove(dir)
    files[i], after[i] = throughput(n, dir)
    for _, f in ipairs { "games.pgn", "results.json", "tournament.cfg", "lock", "report.html" } do
      os.remove(dir .. "/" .. f)
    end
    os.remove(dir)
  end
  print(string.format("tournament throughput, random vs random 6x6, %d games in this process:", n))
  print(string.format("  no files: %.0f games/s (median of 3)", median(rates)))
  print(string.format("  with games.pgn, results.json and report.html, start to end: %.0f games/s (median of 3; target at least 5000)",
    median(files)))
  print(string.format("  of which results.json and report.html after the last game: %.2f s (median of 3)", median(after)))
end

local runs = tonumber(arg and arg[1]) or 3
local games = tonumber(arg and arg[2]) or 48


-- BENCH_TABLES=default: the bots keep their default tables (16 MB, kept between moves) instead
-- of hash_mb=1, to see whether the default tables still let two workers scale
local hash = os.getenv("BENCH_TABLES") == "default" and "" or ",hash_mb=1"
local bots = { "alphabeta:depth=10" .. hash, "alphabeta:depth=9" .. hash }

local function once(workers)
  local t0 = core.clock()
  local res = tournament.run { bots = bots, games = games,
                               time = 60, workers = workers, progress = false }
  local dt = core.clock() - t0
  assert(res.games == games, "not every game was played")
  return dt, res
end

-- the machine's own parallelism right now: one busy loop, then two at once
local function busy(copies)
  local exe = core.exe_path and core.exe_path() or "build/konane"
  local procs = {}
  local t0 = core.clock()
  for i = 1, copies do
    procs[i] = assert(core.spawn { exe, "-e", "local x = 0 for i = 1, 3e7 do x = x + i end" })
  end
  for _, p in ipairs(procs) do
    while p:read() do core.poll({ p }, 1) end
    p:wait(true)
  end
  return core.clock() - t0
end

local times = { [1] = {}, [2] = {} }
local raw = { [1] = {}, [2] = {} }
local signature
for _ = 1, runs do
  raw[1][#raw[1] + 1] = busy(1)
  raw[2][#raw[2] + 1] = busy(2)
  for _, w in ipairs { 1, 2 } do
    local dt, res = once(w)
    times[w][#times[w] + 1] = dt
    local sig = res.bots[1].name .. " " .. res.bots[1].wins .. "-" .. res.bots[1].losses
    -- (with default tables a bot's table carries over from game to game within a worker, so
    -- the moves, and the results, may differ with the number of workers)
    assert(hash == "" or signature == nil or signature == sig, "the workers changed the results")
    signature = sig
  end
end
local one, two = median(times[1]), median(times[2])
print(string.format("tournament of %d games, %s vs %s, 8x8 (%s)", games, bots[1], bots[2], signature))
print(string.format("  --workers 1: %.2f s (median of %d)", one, runs))
print(string.format("  --workers 2: %.2f s (median of %d)", two, runs))
print(string.format("  speed-up: %.2fx", one / two))
print(string.format("  reference: two busy loops at once vs one: %.2fx (2.00 on two idle cores)",
  2 * median(raw[1]) / median(raw[2])))
print(string.format("command: %sbuild/konane scripts/bench/tournament.lua %d %d",
  hash == "" and "BENCH_TABLES=default " or "", runs, games))
