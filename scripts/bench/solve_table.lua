-- scripts/bench/solve_table.lua: solves every board with at most MAX squares (default 42) from
-- the start, in the free and brainking variants (brainking where a corner or centre square holds
-- a piece of the first mover), rows <= columns (a board and its transpose are the same game).
--   build/konane scripts/bench/solve_table.lua [MAX [THREADS [HASH_MB]]]
-- (HASH_MB, default 1024, is the table of the biggest boards; a board of S squares gets at most
-- 2^(S-26) MB)
-- Prints one markdown table row per board as it is solved (smallest boards first): size,
-- variant, result for the first player, winning or best-try first move, nodes, wall time, CPU
-- time of the process (the honest figure on a shared machine), threads.
local konane = require "konane"
local MAX = tonumber(arg and arg[1] or "42")
local THREADS = tonumber(arg and arg[2] or "1")
local MB = tonumber(arg and arg[3] or "1024")
-- the table size for a board: MB for the big ones, less for small boards (a table is zeroed
-- when made, which would cost more than their whole solve)
local function table_mb(squares) return math.min(MB, 2 ^ math.max(0, squares - 26)) end

local boards = {}
for r = 1, 20 do
  for c = r, 20 do
    if r * c <= MAX then boards[#boards + 1] = { r, c } end
  end
end
table.sort(boards, function(a, b)
  if a[1] * a[2] ~= b[1] * b[2] then return a[1] * a[2] < b[1] * b[2] end
  return a[1] < b[1]
end)
print("| board | variant | first player | first move | nodes | wall (s) | cpu (s) | threads |")
print("|---|---|---|---|---:|---:|---:|---:|")
io.stdout:flush()
for _, rc in ipairs(boards) do
  for _, variant in ipairs { "free", "brainking" } do
    local ok, g = pcall(konane.new, { rows = rc[1], cols = rc[2], variant = variant })
    if ok then
      local c0 = os.clock()
      local r = g:solve { threads = THREADS, hash_mb = table_mb(rc[1] * rc[2]) }
      print(("| %dx%d | %s | %s | %s | %d | %.3f | %.3f | %d |"):format(rc[1], rc[2], variant,
        r.win and "wins" or "loses", r.move or "(none)", r.nodes, r.time, os.clock() - c0,
        THREADS))
    else
      print(("| %dx%d | %s | (not defined: no corner or centre piece of the first mover) | | | | | |")
        :format(rc[1], rc[2], variant))
    end
    io.stdout:flush()
  end
end
