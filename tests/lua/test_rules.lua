-- test_rules.lua: the core against an independent, plainly written move
-- generator (this file only), the numbers of rules.md, and a table of
-- malformed input with the error each must give.
local konane = require "konane"

-- ------------------------------------------------------------------
-- The slow reference: a board is {rows=, cols=, cell[r][f] = "x"|"o"|nil,
-- turn = "x"|"o"}, read from position text by its own parser.

local function parse(fen)
  local ranks, side = fen:match("^(%S+) ([bw])$")
  assert(ranks, "reference parser: bad text " .. fen)
  local rows = {}
  for rank in (ranks .. "/"):gmatch("([^/]*)/") do
    local row = {}
    for run, ch in rank:gmatch("(%d*)(%D?)") do
      if run ~= "" then for _ = 1, tonumber(run) do row[#row + 1] = false end end
      if ch == "." then row[#row + 1] = false
      elseif ch ~= "" then row[#row + 1] = ch end
    end
    rows[#rows + 1] = row
  end
  local b = { rows = #rows, cols = #rows[1], cell = {}, turn = side == "b" and "x" or "o" }
  for i, row in ipairs(rows) do
    local r = #rows - i -- 0-based rank, rows[1] is the top
    b.cell[r] = {}
    for f = 1, #row do b.cell[r][f - 1] = row[f] or nil end
  end
  return b
end

local function name(f, r) return string.char(97 + f) .. (r + 1) end

local function empties(b)
  local n, hole = 0, nil
  for r = 0, b.rows - 1 do
    for f = 0, b.cols - 1 do
      if not b.cell[r][f] then n = n + 1; hole = { f, r } end
    end
  end
  return n, hole
end

-- Legal moves of b under the "free" variant, as canonical strings.
local function slow_moves(b)
  local me = b.turn
  local enemy = me == "x" and "o" or "x"
  local out = {}
  local n, hole = empties(b)
  if n == 0 then
    for r = 0, b.rows - 1 do
      for f = 0, b.cols - 1 do
        if b.cell[r][f] == me then out[#out + 1] = name(f, r) end
      end
    end
  elseif n == 1 then
    for _, d in ipairs { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } } do
      local f, r = hole[1] + d[1], hole[2] + d[2]
      if b.cell[r] and b.cell[r][f] == me then out[#out + 1] = name(f, r) end
    end
  else
    for r = 0, b.rows - 1 do
      for f = 0, b.cols - 1 do
        if b.cell[r][f] == me then
          for _, d in ipairs { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } } do
            local k = 1
            while true do
              local of, orr = f + (2 * k - 1) * d[1], r + (2 * k - 1) * d[2]
              local lf, lr = f + 2 * k * d[1], r + 2 * k * d[2]
              if lf < 0 or lr < 0 or lf >= b.cols or lr >= b.rows then break end
              if b.cell[orr][of] ~= enemy or b.cell[lr][lf] then break end
              out[#out + 1] = name(f, r) .. "-" .. name(lf, lr)
              k = k + 1
            end
          end
        end
      end
    end
  end
  return out
end

local function slow_play(b, m)
  local c = { rows = b.rows, cols = b.cols, cell = {}, turn = b.turn == "x" and "o" or "x" }
  for r = 0, b.rows - 1 do
    c.cell[r] = {}
    for f = 0, b.cols - 1 do c.cell[r][f] = b.cell[r][f] end
  end
  local f1, r1, f2, r2 = m:match("^(%a)(%d+)%-?(%a?)(%d*)$")
  local ff, rr = f1:byte() - 97, tonumber(r1) - 1
  if f2 == "" then
    c.cell[rr][ff] = nil
    return c
  end
  local tf, tr = f2:byte() - 97, tonumber(r2) - 1
  local df = tf > ff and 1 or tf < ff and -1 or 0
  local dr = tr > rr and 1 or tr < rr and -1 or 0
  local piece = c.cell[rr][ff]
  c.cell[rr][ff] = nil
  local f, r = ff, rr
  while f ~= tf or r ~= tr do
    c.cell[r + dr][f + df] = nil
    f, r = f + 2 * df, r + 2 * dr
  end
  c.cell[tr][tf] = piece
  return c
end

local function slow_perft(b, d)
  local moves = slow_moves(b)
  if d == 1 then return #moves end
  local n = 0
  for _, m in ipairs(moves) do n = n + slow_perft(slow_play(b, m), d - 1) end
  return n
end

-- Canonical order: origin square index, then landing square index.
local function sort_canonical(list, cols)
  local function key(m)
    local f1, r1, f2, r2 = m:match("^(%a)(%d+)%-?(%a?)(%d*)$")
    local from = (tonumber(r1) - 1) * cols + (f1:byte() - 97)
    local to = f2 == "" and from or (tonumber(r2) - 1) * cols + (f2:byte() - 97)
    return from * 1000 + to
  end
  table.sort(list, function(a, c) return key(a) < key(c) end)
  return list
end

local T = {}

-- KONANE_SLOW=1 (make test-slow) checks 40 positions per shape; make test checks 6.
local SLOW = os.getenv("KONANE_SLOW") == "1"

T["the core agrees with a slow reference generator on moves and perft(1..3) of random positions"] = function()
  local shapes = { { 1, 1 }, { 1, 8 }, { 2, 6 }, { 5, 7 }, { 6, 6 }, { 8, 8 },
    { 10, 10 }, { 13, 20 }, { 20, 20 } }
  local per_shape = SLOW and 40 or 6
  local seed = 2026
  local function rand(n) -- a tiny LCG so the positions never change
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n + 1
  end
  local checked, deep = 0, 0
  for _, shape in ipairs(shapes) do
    for i = 1, per_shape do
      local g = konane.new { rows = shape[1], cols = shape[2], variant = "free" }
      local plies = rand(shape[1] * shape[2] // 2 + 3) - 1
      for _ = 1, plies do
        if g:over() then break end
        local ms = g:moves()
        g:play(ms[rand(#ms)])
      end
      local b = parse(g:fen())
      local want = sort_canonical(slow_moves(b), b.cols)
      local got = g:moves()
      assert(table.concat(got, " ") == table.concat(want, " "),
        ("moves differ at %s:\n core %s\n slow %s"):format(g:fen(),
          table.concat(got, " "), table.concat(want, " ")))
      -- the slow perft(3) of a 400-square board costs seconds: on the two
      -- big boards only every fourth position goes to depth 3
      local maxd = (shape[1] * shape[2] > 100 and i % 4 ~= 0) and 2 or 3
      for d = 1, maxd do
        local a, c = g:perft(d), slow_perft(b, d)
        assert(a == c, ("perft(%d) of %s: core %d, slow %d"):format(d, g:fen(), a, c))
      end
      checked = checked + 1
      if maxd == 3 then deep = deep + 1 end
    end
  end
  local want = SLOW and 300 or 40
  assert(checked >= want and deep >= want, checked .. " " .. deep)
end

T["perft from the 8x8 and 6x6 brainking starts matches rules.md"] = function()
  local want8 = { 4, 12, 28, 172, 892, 7124, 52044 }
  local want6 = { 4, 12, 28, 156, 668, 4192, 22676 }
  local g8, g6 = konane.new(), konane.new { rows = 6, cols = 6 }
  for d = 1, 7 do
    assert(g8:perft(d) == want8[d], "8x8 depth " .. d)
    assert(g6:perft(d) == want6[d], "6x6 depth " .. d)
  end
  assert(g8:perft(0) == 1)
  -- and the slow reference agrees at small depths (with the brainking masks
  -- applied by hand: the first removal from a8, h1, d5, e4 only)
  local b = parse(g8:fen())
  local n = 0
  for _, m in ipairs { "a8", "h1", "d5", "e4" } do n = n + slow_perft(slow_play(b, m), 3) end
  assert(n == 172)
end

T["make and unmake restore the position over long random games"] = function()
  local seed = 7
  local function rand(n)
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n + 1
  end
  for _, size in ipairs { 6, 8, 12, 20 } do
    for _ = 1, 5 do
      local g = konane.new { rows = size, cols = size, variant = "free" }
      local fens = { g:fen() }
      while not g:over() do
        local ms = g:moves()
        g:play(ms[rand(#ms)])
        fens[#fens + 1] = g:fen()
      end
      assert(#g:history() == #fens - 1)
      for i = #fens - 1, 1, -1 do
        assert(g:undo())
        assert(g:fen() == fens[i], "undo did not restore ply " .. i)
      end
      assert(g:undo() == nil, "undo at the start gives nil")
    end
  end
end

T["symmetric positions have equal perft"] = function()
  for _, size in ipairs { 6, 7, 8 } do
    local g = konane.new { rows = size, cols = size, variant = "free" }
    for i = 1, 12 do
      if g:over() then break end
      local ms = g:moves()
      g:play(ms[(i * 7) % #ms + 1])
    end
    local want = g:perft(3)
    local syms = g:symmetries()
    assert(#syms == (size % 2 == 1 and 8 or 4))
    for _, fen in ipairs(syms) do
      assert(konane.new { fen = fen, variant = "free" }:perft(3) == want, fen)
    end
  end
end

-- ------------------------------------------------------------------
-- Malformed input: each case and the error it must give.

local BAD_POSITIONS = {
  { "", "empty rank" },
  { "xoxo/oxo/xoxo/oxox b", "rank 2 from the top has 3 squares" },
  { "oxox/xoxo b", "White piece on a light square" },
  { "xoxo/oxox/xoxo/xxox b", "Black piece on a dark square" },
  { "xoxo/oxox/xoxo/oxox", "missing side to move" },
  { "xoxo/oxox/xoxo/oxox B", "side to move must be" },
  { "xoxo/oxox/xoxo/oxox b w", "unexpected text after" },
  { "xoxo/oxoz/xoxo/oxox b", "unexpected character 'z'" },
  { "xoxo//xoxo/oxox b", "empty rank 2" },
  { "21 b", "longer than 20" },
  { "0xox b", "cannot start with 0" },
  { "xoxo/oxox/xoxo/oxox\0 b", "unexpected byte" },
  { ("x1/"):rep(21) .. "x1 b", "more than 20 ranks" },
  { "xoxo-oxox b", "unexpected character '-'" },
  { "/xoxo b", "empty rank 1" },
  { "xoxo/ b", "empty rank 2" },
}

local BAD_MOVES = { -- after d5 e5 on 8x8 brainking, Black to move
  { "e5-e9", "no such square e9" },
  { "i1", "no such square i1" },
  { "c5-e5", "not your piece" },
  { "f5-d5", "nothing to jump on e5" },
  { "d7-d4", "even number of squares" },
  { "d7-c6", "not a straight jump" },
  { "d5", "jump phase" },
  { "d7-d5-d3", "landing square d3 is not empty" },
  { "b7-d5", "not a straight jump" },
  { "zz", "expected a square" },
  { "d7-", "at character 4, found the end of the text" },
  { "d7+d5", "unexpected character '+'" },
  { "", "empty move" },
  { "d7-d5 x", "unexpected text after the move" },
  { "d7-d7", "not a straight jump" },
  { "a0-a2", "no such square" },
  { "d6-d4", "not your piece" },
}

T["malformed position texts give the error that names what is wrong"] = function()
  for _, case in ipairs(BAD_POSITIONS) do
    local ok, err = pcall(konane.new, { fen = case[1] })
    assert(not ok, "accepted: " .. case[1])
    assert(tostring(err):find(case[2], 1, true),
      ("%q: got %q, want %q"):format(case[1], tostring(err), case[2]))
  end
end

T["illegal moves raise an error naming the move and the reason"] = function()
  local g = konane.new()
  g:play("d5")
  g:play("e5")
  local before = g:fen()
  for _, case in ipairs(BAD_MOVES) do
    local ok, err = pcall(g.play, g, case[1])
    assert(not ok, "accepted: " .. case[1])
    assert(tostring(err):find("illegal move '" .. case[1] .. "'", 1, true), err)
    assert(tostring(err):find(case[2], 1, true),
      ("%q: got %q, want %q"):format(case[1], tostring(err), case[2]))
    local m, why = g:legal(case[1])
    assert(m == nil and why == err)
  end
  assert(g:fen() == before)
  assert(#BAD_POSITIONS + #BAD_MOVES >= 30)
end

T["variant lookup and registration reject bad input clearly"] = function()
  local ok, err = pcall(konane.register_variant, { description = "no name" })
  assert(not ok and err:find("needs a 'name' string"), err)
  ok, err = pcall(konane.register_variant, 42)
  assert(not ok and err:find("must be a table"), err)
  ok, err = pcall(konane.variant, "../etc")
  assert(not ok and err:find("bad variant name '../etc'", 1, true), err)
  -- the name is quoted, an empty one too, and a value that is no name says its type
  ok, err = pcall(konane.new, { variant = "" })
  assert(not ok and err:find("bad variant name '' (letters, digits", 1, true), err)
  ok, err = pcall(konane.variant, 42)
  assert(not ok and err:find("a name or a variant table expected, got number", 1, true), err)
  konane.register_variant { name = "test_reg", first_removal = function() return { "d5" } end }
  assert(table.concat(konane.new { variant = "test_reg" }:moves(), " ") == "d5")
  local names = {}
  for _, v in ipairs(konane.variants()) do names[v.name] = true end
  assert(names.test_reg and names.brainking and names.free)
  local list, msg = konane.core.listdir("/no/such/dir")
  assert(list == nil and msg:find("/no/such/dir", 1, true), msg)
end

T["konane.square and parse_square name only squares some board has, both ways"] = function()
  -- every square of the largest board, both ways, against the notation of docs/rules.md
  local files = "abcdefghijklmnopqrst"
  for f = 0, konane.MAX_SIDE - 1 do
    for r = 0, konane.MAX_SIDE - 1 do
      local sq = files:sub(f + 1, f + 1) .. (r + 1)
      assert(konane.square(f, r) == sq, sq)
      local pf, pr = konane.parse_square(sq:upper())
      assert(pf == f and pr == r, sq)
    end
  end
  -- rank 0 and files or ranks past MAX_SIDE are no square: nil and a message, not a number
  -- ("a0" gave rank -1, "z9" file 25)
  for _, s in ipairs { "a0", "a00", "z9", "u1", "a21", "t99" } do
    local f, msg = konane.parse_square(s)
    assert(f == nil and type(msg) == "string" and msg:find(s, 1, true)
      and msg:find("no square of any board"), s .. ": " .. tostring(f) .. " " .. tostring(msg))
  end
  -- and square() refuses what no board has: square(26, 0) was "1", square(-1, 3) "4"
  for _, fr in ipairs { { -1, 3 }, { 26, 0 }, { 20, 0 }, { 0, 20 }, { 1.5, 0 }, { 0, -1 }, { "3", 4 }, { 3 } } do
    local ok, err = pcall(konane.square, fr[1], fr[2])
    assert(not ok and err:find("bad argument #%d to 'square'"), tostring(fr[1]) .. "," .. tostring(fr[2])
      .. ": " .. tostring(err))
  end
  -- a variant's slip is reported at its own line, not as a strange square name
  local ok, err = pcall(konane.new, { variant = { name = "slip",
    first_removal = function(b) return { b.square(-1, 2) } end } })
  assert(not ok and err:find("variant 'slip'") and err:find("'square'"), err)
end

T["huge input is echoed shortened in the error"] = function()
  local g = konane.new()
  local ok, err = pcall(g.play, g, ("d5"):rep(100000))
  assert(not ok and #err < 200 and err:find("d5d5...'", 1, true), err)
  ok, err = pcall(konane.new, { fen = ("x"):rep(100000) .. " b" })
  assert(not ok and #err < 300 and err:find("longer than 20 squares"), err)
end

T["a byte 0x00 never cuts a name short, and new's errors point at the caller"] = function()
  local g = konane.new()
  local ok, err = pcall(g.at, g, "a1\0junk")
  assert(not ok and err:find("0x00"), err)
  assert(g:at("a1") == "white")
  local m, why = g:legal("d5\0")
  assert(m == nil and why:find("unexpected byte 0x00 at character 3", 1, true), why)
  -- the position of an error is the caller's line, never a file of the library
  local line = debug.getinfo(1, "l").currentline + 1
  ok, err = pcall(function() local g2 = konane.new { variant = "nope" }; return g2 end)
  assert(not ok and err:find("unknown variant 'nope'", 1, true), err)
  assert(err:find(":" .. line .. ": unknown variant", 1, true) and not err:find("init.lua"), err)
end

T["removals outside the variant's squares are refused with the allowed list"] = function()
  local g = konane.new()
  local ok, err = pcall(g.play, g, "c8")
  assert(not ok and err:find("c8 may not be removed first %(allowed: h1, e4, d5, a8%)"), err)
  ok, err = pcall(g.play, g, "a1")
  assert(not ok and err:find("not your piece"), err)
  g:play("d5")
  ok, err = pcall(g.play, g, "f5")
  assert(not ok and err:find("not your piece"), err)
  ok, err = pcall(g.play, g, "d3")
  assert(not ok and err:find("not your piece"), err)
  ok, err = pcall(g.play, g, "b6")
  assert(not ok and err:find("allowed: d4, c5, e5, d6"), err)
  ok, err = pcall(g.play, g, "c5-e5")
  assert(not ok and err:find("removal phase"), err)
end

T["a finished game refuses moves and names the winner"] = function()
  local g = konane.new { fen = "x3/4/4/4 w" }
  assert(g:over() and g:winner() == "black" and #g:moves() == 0)
  local ok, err = pcall(g.play, g, "c4-a4")
  assert(not ok and err:find("game is over"), err)
  g = konane.new { fen = "xo2/4/4/4 b" }
  assert(not g:over() and g:winner() == nil)
  assert(g:play("a4-c4") == "a4-c4")
  assert(g:over() and g:winner() == "black" and g:turn() == "white")
end

T["wrong argument types name the argument"] = function()
  local g = konane.new()
  local cases = {
    { function() g:play({}) end, "bad argument #1 to 'play'" },
    { function() g:perft("x") end, "bad argument #1 to 'perft'" },
    { function() g:perft(-1) end, "depth must be between" },
    { function() konane.new("x") end, "bad argument #1 to 'new'" },
    { function() konane.new { rows = "x" } end, "bad option 'rows'" },
    { function() konane.new { rows = 21 } end, "out of range" },
    { function() konane.new { rows = 0 } end, "out of range" },
    { function() konane.new { colour = 1 } end, "unknown option 'colour'" },
    { function() konane.new { fen = 5 } end, "bad option 'fen'" },
    { function() konane.new { variant = "nope" } end, "unknown variant 'nope'" },
    { function() g:at("z9") end, "bad argument #1 to 'at'" },
    { function() g:count("red") end, "bad argument #1 to 'count' ('black' or 'white' expected, got 'red')" },
    { function() konane.core.Game.fen(42) end, "konane.Game expected" },
  }
  for _, c in ipairs(cases) do
    local ok, err = pcall(c[1])
    assert(not ok and tostring(err):find(c[2], 1, true), tostring(err) .. " / want " .. c[2])
  end
end

T["a variant naming a bad square is rejected when the game is created"] = function()
  local function variant(first, second)
    return { name = "test", first_removal = function() return first end,
      second_removal = second and function() return second end or nil }
  end
  local ok, err = pcall(konane.new, { variant = variant { "z9" } })
  assert(not ok and err:find("variant 'test'") and err:find("no such square z9"), err)
  ok, err = pcall(konane.new, { variant = variant { "a1" } })
  assert(not ok and err:find("a1 does not hold a Black piece"), err)
  ok, err = pcall(konane.new, { variant = variant({ "d5" }, { "d4", "d6" }) })
  assert(ok, err)
  ok, err = pcall(konane.new, { variant = variant({ "d5" }, { "c4" }) })
  assert(not ok and err:find("c4 does not hold a White piece"), err)
  ok, err = pcall(konane.new, { variant = { name = "x", first_removal = 3 } })
  assert(not ok and err:find("first_removal must be a function"), err)
  ok, err = pcall(konane.new, { variant = { name = "x", first_removal = function() return 3 end } })
  assert(not ok and err:find("must return a list of squares"), err)
  -- a custom second rule is what the core uses
  local g = konane.new { variant = variant({ "d5" }, { "d4", "h8" }) }
  g:play("d5")
  assert(table.concat(g:moves(), " ") == "d4 h8")
end

T["moves come in canonical order and every notation is accepted"] = function()
  local g = konane.new()
  assert(table.concat(g:moves(), " ") == "h1 e4 d5 a8")
  assert(g:play("D5") == "d5")
  assert(g:play("e5") == "e5")
  assert(table.concat(g:moves(), " ") == "d3-d5 b5-d5 d7-d5")
  assert(g:play("d7d5") == "d7-d5")
  assert(g:undo() == "d7-d5")
  assert(g:play("D7-D5") == "d7-d5")
  assert(table.concat(g:history(), " ") == "d5 e5 d7-d5" and g:ply() == 3 and g:last() == "d7-d5")
  assert(g:turn() == "white" and g:phase() == "jump")
end

T["a clone is independent and equal until one of them moves"] = function()
  local g = konane.new()
  g:play("a8")
  local c = g:clone()
  assert(c == g and c:fen() == g:fen() and c:variant() == "brainking")
  c:play("b8")
  assert(c ~= g and g:ply() == 1 and c:ply() == 2)
  assert(table.concat(c:history(), " ") == "a8 b8")
  c = nil -- luacheck: ignore 311 (drop the clone before collecting)
  collectgarbage()
  assert(g:fen():find("^1oxoxoxo"))
end

T["the board is drawn with its coordinates, side to move and last move"] = function()
  local g = konane.new { rows = 4, cols = 4, variant = "free" }
  g:play("a4")
  local s = tostring(g)
  assert(s:find("  4[.]o x o 4", 1, true), s)
  assert(s:find("    a b c d", 1, true), s)
  assert(s:find("White (o) to move, second removal, last a4 (Black), ply 1", 1, true), s)
  assert(select(2, s:gsub("\n", "")) == 6)
end

T["the module loads in stock lua5.4 from a checkout"] = function()
  local build = os.getenv("KONANE_BUILD") or "build"
  local preload = ""
  if build:find("asan") then
    local p = io.popen("cc -print-file-name=libasan.so"):read("l")
    preload = "LD_PRELOAD=" .. p .. " ASAN_OPTIONS=detect_leaks=0 "
  end
  local cmd = preload .. "LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='" .. build
    .. "/?.so;;' lua5.4 -e 'print(require(\"konane\").new():perft(5))' 2>&1"
  local out = io.popen(cmd):read("a")
  assert(out == "892\n", out)
end

return T
