-- The opening variants centre_corner, traditional and odd_centre, and the example variants.
local konane = require "konane"

local T = {}

local function sorted(list)
  local t = {}
  for i, v in ipairs(list) do t[i] = v end
  table.sort(t)
  return table.concat(t, " ")
end

local function is_edge(game, square)
  local f, r = konane.parse_square(square)
  return f == 0 or r == 0 or f == game:cols() - 1 or r == game:rows() - 1
end

T["konane.variants lists the three extra variants with descriptions"] = function()
  local found = {}
  for _, v in ipairs(konane.variants()) do found[v.name] = v.description end
  for _, name in ipairs { "centre_corner", "traditional", "odd_centre", "brainking", "free" } do
    assert(found[name] and #found[name] > 10, name .. " is listed with a description")
  end
end

T["centre_corner: corners and centre of the first mover on any size"] = function()
  local cases = {
    { 8, 8, "black", "a8 d5 e4 h1" },
    { 6, 6, "black", "a6 c4 d3 f1" },
    { 4, 4, "black", "a4 b3 c2 d1" },
    { 5, 5, "white", "a1 a5 c3 e1 e5" },   -- odd board: White holds the corners and the centre
    { 7, 7, "white", "a1 a7 d4 g1 g7" },
    { 5, 6, "black", "d3 f1 f5" },
    { 6, 5, "black", "a6 c4 e6" },
    { 1, 1, "white", "a1" },
  }
  for _, c in ipairs(cases) do
    local g = konane.new { variant = "centre_corner", rows = c[1], cols = c[2] }
    assert(g:turn() == c[3], c[1] .. "x" .. c[2] .. " starts with " .. g:turn())
    assert(g:phase() == "remove1")
    assert(sorted(g:moves()) == c[4], c[1] .. "x" .. c[2] .. ": " .. sorted(g:moves()))
  end
  -- the second removal is next to the hole, by the other side
  local g = konane.new { variant = "centre_corner", rows = 5, cols = 5 }
  g:play("c3")
  assert(g:turn() == "black" and sorted(g:moves()) == "b3 c2 c4 d3")
  g = konane.new { variant = "centre_corner", rows = 5, cols = 5 }
  g:play("a1")
  assert(sorted(g:moves()) == "a2 b1")
end

T["traditional: no removal on the edge"] = function()
  for _, size in ipairs { { 4, 4 }, { 5, 5 }, { 6, 6 }, { 8, 8 }, { 5, 7 }, { 10, 10 } } do
    local g = konane.new { variant = "traditional", rows = size[1], cols = size[2] }
    assert(g:turn() == "black")
    local firsts = g:moves()
    assert(#firsts > 0)
    for _, m in ipairs(firsts) do
      assert(not is_edge(g, m), m .. " is on the edge")
      g:play(m)
      for _, m2 in ipairs(g:moves()) do
        assert(not is_edge(g, m2), m .. " then " .. m2 .. " is on the edge")
      end
      g:undo()
    end
  end
  local g = konane.new { variant = "traditional" }
  assert(#g:moves() == 18)
  -- 3x3: only White has an inner piece, so White starts; the second removal falls back to the edge
  g = konane.new { variant = "traditional", rows = 3, cols = 3 }
  assert(g:turn() == "white" and sorted(g:moves()) == "b2")
  g:play("b2")
  assert(sorted(g:moves()) == "a2 b1 b3 c2")
  local ok, err = pcall(konane.new, { variant = "traditional", rows = 2, cols = 8 })
  assert(not ok and err:find("off the edge"), err)
end

T["odd_centre: the centre pair is already empty, the centre's owner jumps first"] = function()
  local g = konane.new { variant = "odd_centre", rows = 5, cols = 5 }
  assert(g:fen() == "oxoxo/xo1ox/ox1xo/xoxox/oxoxo w", g:fen())
  assert(g:phase() == "jump" and g:turn() == "white")
  assert(not g:at("c3") and not g:at("c4"), "c3 and c4 are empty")
  assert(sorted(g:moves()) == "a3-c3 c1-c3 e3-c3", sorted(g:moves()))
  g = konane.new { variant = "odd_centre" }
  assert(g:rows() == 7 and g:cols() == 7)
  assert(not g:at("d4") and not g:at("d5") and g:phase() == "jump" and g:turn() == "white")
  for _, size in ipairs { { 4, 4 }, { 6, 6 }, { 8, 8 }, { 5, 6 }, { 6, 5 }, { 1, 2 } } do
    g = konane.new { variant = "odd_centre", rows = size[1], cols = size[2] }
    local empty = 0
    for r = 0, size[1] - 1 do
      for f = 0, size[2] - 1 do
        if not g:at(konane.square(f, r)) then empty = empty + 1 end
      end
    end
    assert(empty == 2 and g:turn() == "black", size[1] .. "x" .. size[2])
  end
  local ok, err = pcall(konane.new, { variant = "odd_centre", rows = 1, cols = 1 })
  assert(not ok and err:find("centre pair"), err)
end

T["odd_centre agrees with the known results: 4x4 and 6x6 second player, 5x5 first"] = function()
  for _, case in ipairs { { 4, "white" }, { 5, "white" }, { 6, "white" } } do
    local g = konane.new { variant = "odd_centre", rows = case[1], cols = case[1] }
    local r = g:solve { time = 20 }
    assert(r.win ~= nil, case[1] .. "x" .. case[1] .. " not solved in time")
    local winner = r.win and g:turn() or (g:turn() == "black" and "white" or "black")
    assert(winner == case[2], case[1] .. "x" .. case[1] .. " won by " .. winner)
  end
end

T["docs/rules.md's known results with a corner pair removed: the corner's owner jumps first"] = function()
  -- 4x4: Black's corner d1 and White's c1 or d2 removed, Black jumps first: White wins. 5x5:
  -- the corners are White's: a1 and Black's a2 or b1 removed, White jumps first and wins; with
  -- Black to jump first after the same pair, Black loses.
  local function without(n, pair, side)
    local ranks = {}
    for r = n, 1, -1 do
      local row = {}
      for c = 1, n do
        local sq = string.char(96 + c) .. r
        row[#row + 1] = (sq == pair[1] or sq == pair[2]) and "." or ((c + r) % 2 == 0 and "o" or "x")
      end
      ranks[#ranks + 1] = table.concat(row)
    end
    return table.concat(ranks, "/") .. " " .. side
  end
  for _, case in ipairs { { 4, { "d1", "c1" }, "b" }, { 4, { "d1", "d2" }, "b" }, { 5, { "a1", "a2" }, "w" },
                          { 5, { "a1", "b1" }, "w" }, { 5, { "a1", "a2" }, "b" }, { 5, { "e5", "d5" }, "b" } } do
    local n, pair, side = case[1], case[2], case[3]
    local g = konane.new { fen = without(n, pair, side), variant = "free" }
    local r = g:solve {}
    local winner = r.win and g:turn() or (g:turn() == "black" and "white" or "black")
    assert(winner == "white", n .. "x" .. n .. " without " .. pair[1] .. " " .. pair[2] .. ", " .. side
      .. " to move: " .. winner .. " wins")
  end
end

T["every variant plays whole games on several boards and records replay"] = function()
  local seed = 0
  for _, name in ipairs { "centre_corner", "traditional", "odd_centre" } do
    for _, size in ipairs { { 4, 4 }, { 5, 5 }, { 6, 6 }, { 7, 5 }, { 8, 8 } } do
      seed = seed + 1
      local rec = konane.play("random", "greedy", { variant = name, rows = size[1], cols = size[2], seed = seed })
      assert(rec.termination == "normal" and rec.variant == name)
      local back = assert(konane.pgn.read(konane.pgn.write(rec)))[1]
      assert(back.variant == name and back.rows == size[1] and back.cols == size[2])
      local g = konane.pgn.replay(back)
      assert(g:over() and g:winner() == rec.winner)
    end
  end
end

T["the example variants load, validate and play"] = function()
  local knight = dofile("examples/variants/knight.lua")
  local g = konane.new { variant = knight }
  assert(sorted(g:moves()) == "a8 d5 e4 h1")
  g:play("d5")
  assert(sorted(g:moves()) == "b4 b6 c3 c7 e3 e7 f4 f6", sorted(g:moves()))
  local pair = dofile("examples/variants/corner_pair.lua")
  g = konane.new { variant = pair, rows = 6, cols = 6 }
  assert(not g:at("a6") and not g:at("b6") and g:phase() == "jump")
  -- a variant table works without registering it (registering would change konane.variants()
  -- for the other test files run in the same process)
  local rec = konane.play("greedy", "random", { variant = knight, seed = 4 })
  assert(rec.variant == "knight" and rec.termination == "normal")
  local replay = konane.new { variant = knight }
  for _, m in ipairs(rec.moves) do replay:play(m) end
  assert(replay:over() and replay:winner() == rec.winner)
end

T["a variant naming a square without the mover's piece is rejected when the game is made"] = function()
  local bad = { name = "bad", first_removal = function() return { "a1" } end }  -- a1 is White's
  local ok, err = pcall(konane.new, { variant = bad })
  assert(not ok and err:find("a1"), err)
  local off = { name = "off", first_removal = function() return { "z9" } end }
  ok, err = pcall(konane.new, { variant = off })
  assert(not ok and err:find("z9"), err)
end

return T
