-- test_cgt.lua: konane.cgt from Lua: values of positions and games, the
-- arithmetic and comparison metamethods, the notation, regions (their sum
-- is the whole, on random late games), the outcome against the solver for
-- both sides to move, and scripts/cgt.lua.
local konane = require "konane"
local cgt = require "konane.cgt"

local T = {}

local function eq(a, b, what)
  if a ~= b then
    error(("%s: got %s, want %s"):format(what or "value", tostring(a), tostring(b)), 2)
  end
end

local function raises(fn, pattern)
  local ok, err = pcall(fn)
  if ok then error("no error raised", 2) end
  if pattern and not tostring(err):find(pattern) then
    error(("error '%s' does not match '%s'"):format(tostring(err), pattern), 2)
  end
end

T["cgt-tools examples: ..ox is 1, .ox. is *, .ox./o..x/.... is +-1"] = function()
  eq(tostring(cgt.value("..ox")), "1")
  eq(tostring(cgt.value(".ox.")), "*")
  eq(tostring(cgt.value(".ox./o..x/....")), "+-1")
  eq(cgt.value(".ox./o..x/...."), cgt.parse("{1|-1}"))
end

T["any placement is accepted, the side to move is ignored"] = function()
  -- a Black piece on a dark square: the core's position text refuses it
  assert(not pcall(konane.new, { fen = "xo.. b" }))
  eq(tostring(cgt.value("xo..")), "1")
  eq(cgt.value("xo.. w"), cgt.value("xo.. b"))
  raises(function() cgt.value("xq..") end, "unexpected character 'q' at character 2")
  raises(function() cgt.value(42) end, "game or position text expected")
end

T["the value of a game is the value of its position"] = function()
  local g = konane.new { fen = "x.x.x.x./8/..xo..../..ox..../8/8/8/8 w" }
  eq(cgt.value(g), cgt.value(g:fen()))
  -- a Black piece on a dark square is fine here: the value only sees pieces
  eq(tostring(cgt.value("8/8/8/3xo3/8/8/8/8")), "*")
end

T["notation: parse and tostring round trip"] = function()
  for _, s in ipairs { "0", "-3", "3/4", "-1/2", "*", "*3", "^", "v", "^^", "v3", "^*",
    "1*", "-1/2^", "+-1", "{3|1}", "{1|0}", "{2||1|0}", "+-{2|1}", "{1,{1|0}|-1}" } do
    eq(tostring(cgt.parse(s)), s, s)
  end
  eq(tostring(cgt.parse("{0|*}")), "^")
  eq(tostring(cgt.parse("{1,*|0,-1}")), "+-1")
  local v, err = cgt.parse("{1|")
  eq(v, nil)
  assert(err:find("character"), err)
  -- a byte 0x00 is an error, not the end of the text; a huge text is not repeated whole
  v, err = cgt.parse("{0\0|}")
  assert(v == nil and err:find("unexpected byte 0x00 at character 3", 1, true), err)
  v, err = cgt.parse(("1"):rep(100000))
  assert(v == nil and #err < 200 and err:find("number too large"), err)
  local ok, e2 = pcall(cgt.value, "xo\0")
  assert(not ok and e2:find("byte 0x00"), e2)
  ok = pcall(cgt.value, { 1 })
  assert(not ok)
end

T["arithmetic and comparison metamethods"] = function()
  local up, star = cgt.parse("^"), cgt.parse("*")
  eq(tostring(up + up), "^^")
  eq(tostring(up - up), "0")
  eq(tostring(-up), "v")
  eq(tostring(up + star), "^*")
  eq(tostring(cgt.parse("1/2") + 1), "3/2")
  eq(tostring(up + "*"), "^*")
  assert(cgt.parse("0") < up)
  assert(up <= up and up == cgt.parse("{0|*}"))
  assert(not (up < star) and not (star < up) and up:fuzzy(star))
  assert(cgt.parse("1/4") > up)
  assert(cgt.parse("+-1") ~= cgt.parse("+-2"))
  eq(up:compare(star), "||")
  eq(cgt.parse("1"):compare(0), ">")
  raises(function() return up + "junk" end, "bad game 'junk'")
  raises(function() return up + 0.1 end, "dyadic")
end

T["outcome, numbers, mean, temperature, options"] = function()
  local pm = cgt.parse("+-1")
  eq(pm:outcome(), "N")
  eq(cgt.parse("^"):outcome(), "L")
  eq(cgt.parse("-1/2"):outcome(), "R")
  eq(cgt.parse("0"):outcome(), "P")
  assert(cgt.parse("3/4"):is_number() and not pm:is_number())
  eq(cgt.parse("3/4"):number(), 0.75)
  eq(cgt.parse("-2"):number(), -2)
  eq(math.type(cgt.parse("-2"):number()), "integer")
  eq(cgt.parse("*5"):nimber(), 5)
  eq(pm:mean(), 0)
  eq(pm:temperature(), 1)
  local g = cgt.parse("{2||1|0}")
  eq(g:mean(), 1.25)
  eq(g:temperature(), 0.75)
  eq(cgt.parse("3"):temperature(), -1)
  eq(#g:left(), 1)
  eq(tostring(g:left()[1]), "2")
  eq(tostring(g:right()[1]), "{1|0}")
  local x, n, m = cgt.parse("-1/2^*3"):uptimal()
  eq(x, -0.5); eq(n, 1); eq(m, 3)
  assert(cgt.parse("^*"):is_infinitesimal() and not pm:is_infinitesimal())
  eq(cgt.make({ 0 }, { "*" }), cgt.parse("^"))
  assert(pm:wins("black") and pm:wins("white"))
end

T["g:regions splits a board and the values add up"] = function()
  local g = konane.new { fen = "x.x.x.x./8/..xo..../..ox..../8/8/8/o.o....x b" }
  local texts, values = g:regions()
  assert(#texts >= 2, "expected a split board")
  local sum = cgt.sum(values)
  eq(sum, cgt.value(g))
  for i, t in ipairs(texts) do
    assert(t:find(" b$"), t)
    eq(values[i], cgt.value(t), t)
  end
  local list = cgt.regions(g)
  eq(#list, #texts)
  eq(list[1].position, texts[1])
end

-- Random late games on 6x6 and 8x8: the regions' values add up to the
-- whole, and the sum's outcome matches the solver for both sides to move.
T["late games: regions sum to the whole and the outcome matches the solver"] = function()
  local seed = 7
  local function rand(n)
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n + 1
  end
  local checked = 0
  for k = 1, 40 do
    local size = k % 2 == 0 and 8 or 6
    local g = konane.new { rows = size, cols = size, variant = "free" }
    while true do
      local moves = g:moves()
      if #moves == 0 then break end
      g:play(moves[rand(#moves)])
      if g:count("black") + g:count("white") <= (size == 8 and 14 or 12) then break end
    end
    if not g:over() then
      local _, values = g:regions()
      local v = cgt.value(g)
      eq(cgt.sum(values), v, g:fen())
      for _, turn in ipairs { "black", "white" } do
        local fen = g:fen():gsub("[bw]$", turn == "black" and "b" or "w")
        local h = konane.new { fen = fen }
        local r = h:solve()
        local winner = r.win and turn or (turn == "black" and "white" or "black")
        eq(cgt.winner(v, turn), winner, fen)
      end
      checked = checked + 1
    end
  end
  assert(checked >= 25, "too few late positions: " .. checked)
end

T["cgt.solve: region values give the solver's result with fewer nodes"] = function()
  local g = konane.new { fen = "x.x.x.x./8/..xo..../..ox..../8/8/8/ox.....x b" }
  for _, turn in ipairs { "b", "w" } do
    local h = konane.new { fen = g:fen():gsub("[bw]$", turn) }
    local r = cgt.solve(h, { compare = true, hash_mb = 1 })
    eq(r.win, r.plain_win, h:fen())
    eq(r.win, h:solve().win, h:fen())
    assert(r.decided >= 1 and r.nodes <= r.plain_nodes, h:fen())
  end
  raises(function() cgt.solve(g, { max_pices = 3 }) end, "unknown option 'max_pices'")
end

T["make, sum and winner name a bad argument; winner refuses an unknown side"] = function()
  eq(cgt.make({ "1", 0, 0.5, cgt.parse("*") }, { "2" }), cgt.parse("3/2"))
  eq(cgt.make({ "*" }, {}), cgt.parse("0"))
  -- the option's side and place, not a count of the core's stack slots ('#5 to cgt_make')
  raises(function() return cgt.make({ 0, {} }, {}) end,
    "^bad argument #1 to 'make' %(option 2: game value, integer or game text expected, got table%)")
  raises(function() return cgt.make({}, { 1, 0 / 0 }) end,
    "^bad argument #2 to 'make' %(option 2: not a dyadic rational")
  raises(function() return cgt.make({}, { "zz" }) end, "^bad argument #2 to 'make' %(option 1: bad game 'zz'")
  raises(function() return cgt.make("x", {}) end, "^bad argument #1 to 'make' %(list of options expected, got string%)")
  raises(function() return cgt.sum(nil) end, "^bad argument #1 to 'sum' %(list of values expected, got nil%)")
  eq(cgt.winner(cgt.parse("*"), "white"), "white")
  eq(cgt.winner(cgt.parse("1"), "white"), "black")
  -- a side that is neither was read as White moving first: '*' gave "white" for "Black"
  raises(function() return cgt.winner(cgt.parse("*"), "Black") end,
    "^bad argument #2 to 'winner' %('black' or 'white' expected, got 'Black'%)")
  raises(function() return cgt.winner(cgt.parse("*"), nil) end, "got nil")
end

T["describe: the REPL's text names regions, sum and winner"] = function()
  local g = konane.new { fen = "x.x.x.x./8/..xo..../..ox..../8/8/8/o.o....x w" }
  local text, sum = cgt.describe(g)
  assert(text:find("region 1"), text)
  assert(text:find("sum: " .. tostring(sum), 1, true), text)
  assert(text:find("White to move: %a+ wins"), text)
  -- in the opening removals the side to move has moves no value counts: no winner is claimed
  local start = konane.new { rows = 4, cols = 4 }
  for _, moves in ipairs { {}, { "d1" } } do
    for _, m in ipairs(moves) do start:play(m) end
    text = cgt.describe(start)
    assert(not text:find("to move: %a+ wins"), text)
    assert(text:find("opening removals", 1, true), text)
  end
end

-- The REPL: cgt() prints regions, values and the outcome; analyze() mentions a split board.
local function repl_output(game, name, ...)
  local repl = require "konane.repl"
  local out = {}
  local old_print, old_g = print, rawget(_G, "g")
  print = function(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    out[#out + 1] = table.concat(parts, "\t")
  end
  rawset(_G, "g", game)
  local ok, err = pcall(repl.commands[name].call, ...)
  print = old_print
  rawset(_G, "g", old_g)
  if not ok then error(err, 0) end
  return table.concat(out, "\n")
end

T["REPL: cgt() and analyze() on a split board"] = function()
  local g = konane.new { fen = "x.x.x.x./8/..xo..../..ox..../8/8/8/ox.....x b" }
  local out = repl_output(g, "cgt")
  assert(out:find("region 1:", 1, true) and out:find("sum: ", 1, true), out)
  assert(out:find("Black to move: %a+ wins"), out)
  out = repl_output(g, "analyze", 0.05)
  assert(out:find("the board has split into %d+ regions"), out)
  out = repl_output(konane.new(), "analyze", 0.05)
  assert(not out:find("split"), out)
  local ok, err = pcall(repl_output, konane.new { fen = "..oxo/xoxox/oxoxo/xoxox/oxoxo b" }, "cgt", 10)
  assert(not ok and tostring(err):find("budget"), tostring(err))
end

T["placements enumerate a small board"] = function()
  local n = 0
  for p in cgt.placements(1, 3) do
    n = n + 1
    assert(#p == 3)
  end
  eq(n, 27)
  raises(function() cgt.placements(4, 4) end, "1 to 13 squares")
end

T["budget option and unknown options"] = function()
  raises(function() cgt.value("..oxo/oxoxo/xoxox/oxoxo/xoxox", { budget = 50 }) end, "budget")
  raises(function() cgt.value("..ox", { bugdet = 5 }) end, "unknown option 'bugdet'")
  eq(tostring(cgt.value("..ox", { budget = 5 })), "1")
  -- errors name the call made, not the core's function ('konane.core.cgt_value'), and point at
  -- the caller's line
  local caller = assert(load("local f, x, o = ...\nlocal v = f(x, o)\nreturn v", "=mine"))
  for _, c in ipairs { { cgt.value, "xo.", { budget = -1 }, "^mine:2: bad argument #2 to 'value' %(option 'budget'" },
                       { cgt.regions, "xo.", { budget = "x" }, "^mine:2: bad argument #2 to 'regions' %(option 'budget'" },
                       { cgt.solve, "xo.", nil, "^mine:2: bad argument #1 to 'solve' %(konane.Game expected" },
                       { cgt.value, "xo.", { bogus = 1 }, "^mine:2: cgt.value: unknown option 'bogus'" } } do
    local ok, msg = pcall(caller, c[1], c[2], c[3])
    assert(not ok and tostring(msg):find(c[4]) and not tostring(msg):find("konane.core"), tostring(msg))
  end
end

T["scripts/cgt.lua prints regions and tables"] = function()
  local build = os.getenv("KONANE_BUILD") or "build"
  local out = io.popen(build .. "/konane scripts/cgt.lua '.ox./o..x/....' 2>&1"):read("a")
  assert(out:find("region 1%s+%+%-1"), out)
  assert(out:find("sum%s+%+%-1%s+N"), out)
  out = io.popen(build .. "/konane scripts/cgt.lua --table 1x4 2>&1"):read("a")
  local lines = 0
  for _ in out:gmatch("[^\n]+") do lines = lines + 1 end
  eq(lines, 81)
  assert(out:find("\n%.%.ox\t1\tL\n"), out)
  assert(out:find("\n%.ox%.\t%*\tN\n"), out)
  local p = io.popen(build .. "/konane scripts/cgt.lua 'x?' 2>&1; echo rc=$?")
  out = p:read("a")
  p:close()
  assert(out:find("bad position") and out:find("rc=2"), out)
end

return T
