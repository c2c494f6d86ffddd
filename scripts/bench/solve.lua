-- scripts/bench/solve.lua: the solver's speed with 1 and more threads, in one run.
--   build/konane scripts/bench/solve.lua [BOARD...]
-- BOARD is RxC:variant (default: 6x6:brainking 6x6:free 5x6:free), optionally followed by
-- @MOVE,MOVE,... played from the start before the solve: a sub-position, as
-- 6x7:free@a6,b6,a4-a6,c5-a5 (P2 in docs/search.md) or 6x7:free@a6,b6,a4-a6,b4-b6 (P1), quick
-- proxies of 6x7 free. Knobs (environment):
-- BENCH_RUNS (default 5) runs per thread count, alternating 1, 2, 1, 2, ... so that both see
-- the same machine load; BENCH_THREADS (default "1,2"); BENCH_HASH_MB (default: g:solve's own
-- default, 16 MB, the size users get). A bigger table is slower here, not faster: each probe
-- waits on memory, and past the cache and the TLB's reach a random load costs 2-3 times as much
-- (193 ns at 16 MB, 440 ns at 256 MB on the development machine), far more than the nodes the
-- bigger table saves (docs/search.md, sixth session). Set BENCH_HASH_MB to compare sizes.
-- Prints per board and thread count the median wall time, the median process CPU time and the
-- median node count, then the speed-up of each thread count over one thread (median wall
-- times). The result (win, move) must be the same for every run and thread count.
local konane = require "konane"

local RUNS = tonumber(os.getenv("BENCH_RUNS") or "5")
local MB = os.getenv("BENCH_HASH_MB") -- unset: g:solve's default
if MB then
  local mb = tonumber(MB)
  if not mb or mb <= 0 then error(("BENCH_HASH_MB=%s: want a table size in MB (a positive number)"):format(MB), 0) end
  MB = mb
end
local THREADS = {}
for t in (os.getenv("BENCH_THREADS") or "1,2"):gmatch("%d+") do THREADS[#THREADS + 1] = tonumber(t) end

local median = require("konane.stats").median

local boards = { ... }
if #boards == 0 then boards = { "6x6:brainking", "6x6:free", "5x6:free" } end
print(("command: BENCH_RUNS=%d BENCH_THREADS=%s %sbuild/konane scripts/bench/solve.lua %s  (table: %s)")
  :format(RUNS, table.concat(THREADS, ","), MB and ("BENCH_HASH_MB=%g "):format(MB) or "",
    table.concat(boards, " "), MB and ("%g MB"):format(MB) or "g:solve's default"))
for _, spec in ipairs(boards) do
  local r, c, variant, line = spec:match("^(%d+)x(%d+):?(%a*)@?([%w,%-]*)$")
  if not r then error("bad board '" .. spec .. "' (want RxC:variant or RxC:variant@MOVE,MOVE,...)", 0) end
  local opts = { rows = tonumber(r), cols = tonumber(c), variant = variant ~= "" and variant or nil }
  local moves = {}
  for m in line:gmatch("[^,]+") do moves[#moves + 1] = m end
  local function position()
    local g = konane.new(opts)
    for i, m in ipairs(moves) do
      local ok, err = pcall(g.play, g, m)
      if not ok then error(("board '%s': move %d '%s': %s"):format(spec, i, m, tostring(err)), 0) end
    end
    return g
  end
  position() -- a bad move fails before any timing
  local wall, cpu, nodes, answer = {}, {}, {}, nil
  for _, t in ipairs(THREADS) do wall[t], cpu[t], nodes[t] = {}, {}, {} end
  for _ = 1, RUNS do
    for _, t in ipairs(THREADS) do
      local g = position()
      collectgarbage()
      local c0 = os.clock()
      local res = g:solve { hash_mb = MB, threads = t }
      local c1 = os.clock()
      local a = tostring(res.win) .. " " .. tostring(res.move)
      if answer and a ~= answer then error(spec .. ": threads disagree: " .. a .. " vs " .. answer) end
      answer = a
      table.insert(wall[t], res.time)
      table.insert(cpu[t], c1 - c0)
      table.insert(nodes[t], res.nodes)
    end
  end
  local base = median(wall[THREADS[1]])
  for _, t in ipairs(THREADS) do
    local w = median(wall[t])
    print(("%-14s threads %-2d  %s  median wall %.3f s  cpu %.3f s  nodes %.2f M  speed-up %.2fx")
      :format(spec, t, answer, w, median(cpu[t]), median(nodes[t]) / 1e6, base / w))
  end
end
