-- scripts/bench/perft.lua: move generator speed (make bench).
-- perft from the 8x8 brainking start at depth 11, a 10x10 position, and a
-- random game driven from Lua with g:moves() and g:play(). Medians of
-- several runs; one core.
local konane = require "konane"
local clock = konane.core.clock

local RUNS = tonumber(os.getenv("BENCH_RUNS") or "5")

local median = require("konane.stats").median

local function bench_perft(label, g, depth, want)
  local rates, leaves = {}, 0
  for _ = 1, RUNS do
    local t0 = clock()
    leaves = g:perft(depth)
    local dt = clock() - t0
    rates[#rates + 1] = leaves / dt
  end
  if want and leaves ~= want then error(("%s: perft(%d) = %d, want %d"):format(label, depth, leaves, want)) end
  print(("%-44s perft(%d) = %d leaves, median %.0f M leaves/s (%d runs)")
    :format(label, depth, leaves, median(rates) / 1e6, RUNS))
end

print("command: build/konane scripts/bench/perft.lua   (BENCH_RUNS=" .. RUNS .. ")")
bench_perft("8x8 brainking start", konane.new(), 11, 552955020)

-- 10x10: the brainking start after ten fixed plies
local g10 = konane.new { rows = 10, cols = 10 }
for m in ("a10 a9 c10-a10 a7-a9 e10-c10 b8-b10 d9-b9 a5-a7 g10-e10 a3-a5"):gmatch("%S+") do
  g10:play(m)
end
bench_perft("10x10 brainking after a10 a9 ... a3-a5", g10, 8, 525046381)

-- a random game from Lua: g:moves() and g:play() only
local start = konane.new()
local rates = {}
local seed = 1
for _ = 1, RUNS do
  local plies, t0 = 0, clock()
  for _ = 1, 4000 do
    local g = start:clone()
    while true do
      local ms = g:moves()
      local n = #ms
      if n == 0 then break end
      seed = (seed * 1103515245 + 12345) % 2147483648
      g:play(ms[seed % n + 1])
      plies = plies + 1
    end
  end
  rates[#rates + 1] = plies / (clock() - t0)
end
print(("%-44s median %.2f M plies/s (%d runs of 4000 games)")
  :format("random 8x8 games from Lua (moves+play)", median(rates) / 1e6, RUNS))
