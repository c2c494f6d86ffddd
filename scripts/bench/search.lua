-- scripts/bench/search.lua: the engine's speed and strength (make bench; issue 3).
--   solver:   6x6 brainking from the start (Black loses), 5x5 and 4x6 free, 5x6 free,
--             6x6 free; 6x7 and 7x7 free attempted under a time cap
--   search:   nodes per second and a node-count signature over 5 fixed 8x8 midgame
--             positions at a fixed depth (any change in the search shows in the signature)
--   mcts:     random-playout plies per second on 8x8
--   strength: alpha-beta at 100 ms a move against random play and a one-ply greedy mobility
--             player, colours alternating
-- Medians of BENCH_RUNS runs (default 3). BENCH_GAMES games per match (default 100),
-- BENCH_CAP seconds for the 6x7/7x7 attempts (default 60; 0 skips them). One core.
local konane = require "konane"
local clock = konane.core.clock

local RUNS = tonumber(os.getenv("BENCH_RUNS") or "3")
local GAMES = tonumber(os.getenv("BENCH_GAMES") or "100")
local CAP = tonumber(os.getenv("BENCH_CAP") or "60")
local ONLY = os.getenv("BENCH_ONLY") -- "solve", "search", "mcts" or "strength"

local median = require("konane.stats").median

local function part(name) return not ONLY or ONLY == name end

print(("command: BENCH_RUNS=%d BENCH_GAMES=%d BENCH_CAP=%g build/konane scripts/bench/search.lua")
  :format(RUNS, GAMES, CAP))

-- ---- solver ----
local function bench_solve(label, opts, want, runs, cap)
  local times, cpus, r = {}, {}, nil
  for _ = 1, runs do
    local g = konane.new(opts)
    local c0 = os.clock()
    r = g:solve { time = cap, hash_mb = cap and 256 or nil }
    cpus[#cpus + 1] = os.clock() - c0
    times[#times + 1] = r.time
    if r.win == nil then break end
  end
  if r.win == nil then
    print(("%-34s not solved within %g s (%d nodes)"):format(label, cap, r.nodes))
    return
  end
  if want ~= nil and r.win ~= want then
    error(("%s: solve says win=%s, want %s"):format(label, tostring(r.win), tostring(want)))
  end
  print(("%-34s %s%s: median %.4f s wall, %.4f s cpu, %d nodes, %.2f M nodes/s cpu (%d runs)")
    :format(label, r.win and "first player wins" or "first player loses",
            r.win and (" with " .. r.move) or "", median(times), median(cpus), r.nodes,
            r.nodes / math.max(median(cpus), 1e-9) / 1e6, #times))
end

if part("solve") then
  bench_solve("solve 6x6 brainking from the start", { rows = 6, cols = 6 }, false, RUNS)
  bench_solve("solve 4x6 free", { rows = 4, cols = 6, variant = "free" }, nil, RUNS)
  bench_solve("solve 5x5 free", { rows = 5, cols = 5, variant = "free" }, nil, RUNS)
  bench_solve("solve 5x6 free", { rows = 5, cols = 6, variant = "free" }, nil, RUNS)
  bench_solve("solve 6x6 free", { rows = 6, cols = 6, variant = "free" }, nil, RUNS)
  if CAP > 0 then
    bench_solve("solve 6x7 free (capped)", { rows = 6, cols = 7, variant = "free" }, nil, 1, CAP)
    bench_solve("solve 7x7 free (capped)", { rows = 7, cols = 7, variant = "free" }, nil, 1, CAP)
  end
end

-- ---- search ----
-- Five 8x8 brainking midgame positions (seeded random play, 12 to 28 plies).
local POSITIONS = {
  "xoxoxoxo/1xox1xox/1oxo1oxo/oxox3x/1o2xoxo/o2xoxox/xoxoxoxo/oxoxoxox b",
  "x1xoxoxo/1xo3ox/x3xoxo/o3oxox/2xo1oxo/o3oxox/xox1xoxo/oxoxoxox b",
  "xoxoxoxo/1xoxo2x/xoxox1xo/o3o3/3o1o2/1xox2ox/xoxoxo1o/oxoxox1x b",
  "x1x2oxo/oxox1xox/x1x3xo/3xox1x/5oxo/ox2o2x/xoxo1o1o/2o1oxox b",
  "x4o1o/1xo3ox/x6o/ox2ox1x/x2o3o/ox2o2x/xo1o1oxo/ox1x1xox b",
}
local DEPTH = 13

if part("search") then
  local rates, crates, signature, per = {}, {}, 0, {}
  for run = 1, RUNS do
    local nodes, time, c0 = 0, 0, os.clock()
    for i, fen in ipairs(POSITIONS) do
      local r = konane.new { fen = fen }:search { depth = DEPTH, table = konane.hashtable(16) }
      nodes, time = nodes + r.nodes, time + r.time
      if run == 1 then per[i] = ("%s %d"):format(r.move, r.nodes) end
    end
    if run > 1 and nodes ~= signature then error("search is not deterministic") end
    signature = nodes
    rates[#rates + 1] = nodes / time
    crates[#crates + 1] = nodes / (os.clock() - c0)
  end
  print(("search depth %d, 5 positions: signature %d nodes, median %.2f M nodes/s wall, %.2f cpu (%d runs)")
    :format(DEPTH, signature, median(rates) / 1e6, median(crates) / 1e6, RUNS))
  print("  per position (best move, nodes): " .. table.concat(per, ", "))
end

-- ---- mcts ----
if part("mcts") then
  local function bench_mcts(label, g)
    local rates, crates, r = {}, {}, nil
    for _ = 1, RUNS do
      local c0 = os.clock()
      r = g:mcts { playouts = 100000, seed = 1 }
      crates[#crates + 1] = r.plies / (os.clock() - c0)
      rates[#rates + 1] = r.plies / r.time
    end
    print(("mcts %s: %d playouts, %d plies, median %.2f M playout plies/s wall, %.2f cpu (%d runs), best %s")
      :format(label, r.playouts, r.plies, median(rates) / 1e6, median(crates) / 1e6, RUNS, r.move))
  end
  bench_mcts("8x8 brainking start", konane.new())
  bench_mcts("8x8 midgame (position 1)", konane.new { fen = POSITIONS[1] })
end

-- ---- strength ----
-- Games through konane.play with the built-in bots when they exist; otherwise a plain loop.
local function match(spec, opponent)
  local won, t0 = 0, clock()
  for i = 1, GAMES do
    local me = i % 2 == 1 and "black" or "white"
    local winner
    if konane.play and konane.bot then
      local a, o = konane.bot(spec), konane.bot(opponent .. ":seed=" .. i)
      local black, white = a, o
      if me == "white" then black, white = o, a end
      winner = konane.play(black, white, { seed = i }).winner
    else
      error("konane.play and konane.bot are needed for the strength matches")
    end
    if winner == me then won = won + 1 end
  end
  print(("%s vs %s: won %d of %d (colours alternating), %.0f s")
    :format(spec, opponent, won, GAMES, clock() - t0))
end

if part("strength") and GAMES > 0 then
  match("alphabeta:time=0.1", "random")
  match("alphabeta:time=0.1", "greedy")
end
