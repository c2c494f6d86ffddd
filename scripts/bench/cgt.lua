-- scripts/bench/cgt.lua: the solver with and without region values (konane.cgt.solve), in one
-- run, on late 8x8 positions.
--   build/konane scripts/bench/cgt.lua
-- Knobs (environment): BENCH_POSITIONS (default 30) positions, BENCH_PIECES (default 20) the
-- most pieces, BENCH_SEED (default 1). The positions come from seeded games in which each side
-- mostly plays the move leaving it the most replies against the fewest for the opponent. Each
-- position is solved for the side to move with a fresh 4 MB table twice: the plain solver and
-- the solver consulting region values. The region table is kept from one position to the next
-- (as in a long analysis); "cold" is the first pass over the positions, "warm" a second one.
-- Prints total and median nodes and times; the results must agree.
local konane = require "konane"
local cgt = require "konane.cgt"

local N = tonumber(os.getenv("BENCH_POSITIONS") or "30")
local PIECES = tonumber(os.getenv("BENCH_PIECES") or "20")
local seed = tonumber(os.getenv("BENCH_SEED") or "1")

local function rand(n)
  seed = (seed * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
  return (seed >> 33) % n + 1
end

local median = require("konane.stats").median

local positions = {}
while #positions < N do
  local g = konane.new { rows = 8, cols = 8, variant = "free" }
  while not g:over() and g:count("black") + g:count("white") > PIECES do
    local moves = g:moves()
    local pick = moves[rand(#moves)]
    if rand(10) <= 8 then
      local best
      for _, m in ipairs(moves) do
        local h = g:clone()
        h:play(m)
        local s = h:nmoves(g:turn()) - 2 * h:nmoves() + rand(2)
        if not best or s > best then best, pick = s, m end
      end
    end
    g:play(pick)
  end
  if not g:over() then positions[#positions + 1] = g:fen() end
end

print(("command: BENCH_POSITIONS=%d BENCH_PIECES=%d BENCH_SEED=%s build/konane scripts/bench/cgt.lua")
  :format(N, PIECES, os.getenv("BENCH_SEED") or "1"))
for _, pass in ipairs { "cold", "warm" } do
  local pn, pt, cn, ct, calls, decided = {}, {}, {}, {}, 0, 0
  for i, fen in ipairs(positions) do
    local g = konane.new { fen = fen }
    local r = cgt.solve(g, { compare = true, hash_mb = 4 })
    if r.win ~= r.plain_win then error("results differ on " .. fen) end
    pn[i], pt[i], cn[i], ct[i] = r.plain_nodes, r.plain_time, r.nodes, r.time
    calls, decided = calls + r.calls, decided + r.decided
  end
  local function sum(t) local s = 0 for _, x in ipairs(t) do s = s + x end return s end
  print(("%s: %d positions, plain solver %d nodes %.3f s (median %.0f nodes %.4f s); with region values %d nodes %.3f s (median %.0f nodes %.4f s); %d consultations, %d decided")
    :format(pass, #positions, sum(pn), sum(pt), median(pn), median(pt), sum(cn), sum(ct), median(cn),
      median(ct), calls, decided))
end
local s = cgt.stats()
print(("region table: %d regions, %d look-ups, %d hits"):format(s.regions, s.lookups, s.hits))
