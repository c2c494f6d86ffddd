-- scripts/bench/nps.lua DEPTH RUNS [WEIGHTS...]: the search's nodes per cpu second at a fixed
-- depth over the 254 positions of 6 seeded self-play games (8x8 brainking, a 16 MB table kept
-- between them), for the default weights ("default") and each weights file. The node count is
-- the correctness check of a speed change: it must not move. To compare two builds, alternate
-- them in one shell loop (`for r in 1 2 3; do A/build/konane ...; B/build/konane ...; done`)
-- and take medians. EXP=N passes `experiment = N` to g:search.
local konane = require "konane"
local depth = tonumber(arg[1] or "8")
local runs = tonumber(arg[2] or "3")
local sets = {}
for i = 3, #arg do sets[#sets + 1] = arg[i] end
if #sets == 0 then sets = { "default" } end
local rng = require("konane.bot").rng(5)
local positions = {}
for _ = 1, 6 do
  local g = konane.new { rows = 8, cols = 8 }
  while g:phase() ~= "jump" do local ms = g:moves(); g:play(ms[rng(#ms)]) end
  for _ = 1, 4 do if not g:over() then local ms = g:moves(); g:play(ms[rng(#ms)]) end end
  while not g:over() do
    positions[#positions + 1] = g:fen()
    g:play(g:search { depth = 3 }.move)
  end
end
local function load(s)
  if s == "default" then return nil end
  return dofile(s)
end
local res = {}
for _ = 1, runs do
  for _, s in ipairs(sets) do
    local w = load(s)
    local nodes, t = 0, konane.hashtable(16)
    local c0 = os.clock()
    for _, fen in ipairs(positions) do
      local g = konane.new { fen = fen, variant = "free" }
      local x = g:search { depth = depth, weights = w, table = t, experiment = tonumber(os.getenv("EXP") or "0") }
      nodes = nodes + x.nodes
    end
    local cpu = os.clock() - c0
    res[s] = res[s] or {}
    table.insert(res[s], { cpu = cpu, nodes = nodes })
  end
end
for _, s in ipairs(sets) do
  local cs = {}
  for _, x in ipairs(res[s]) do cs[#cs + 1] = x.cpu end
  table.sort(cs)
  local med = cs[(#cs + 1) // 2]
  print(("%-40s %d positions depth %d: %d nodes, median cpu %.3f s, %.3f M nodes/s"):format(
    s, #positions, depth, res[s][1].nodes, med, res[s][1].nodes / med / 1e6))
end
