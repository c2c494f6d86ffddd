-- The REPL's Lua side (lua/konane/repl/): pretty-printer, typed moves, completion, board
-- drawing and the commands, with their output captured. The terminal side (readline, Ctrl-C,
-- history) is tested through a pseudo-terminal in tests/test_repl_pty.c.
local konane = require "konane"
local repl = require "konane.repl"
local draw = require "konane.draw"

-- Run fn with print and io.write captured; returns the text written.
local function capture(fn, ...)
  local out = {}
  local old_print, old_write = print, io.write
  print = function(...)
    local n = select("#", ...)
    local parts = {}
    for i = 1, n do parts[i] = tostring((select(i, ...))) end
    out[#out + 1] = table.concat(parts, "\t") .. "\n"
  end
  io.write = function(...)
    for i = 1, select("#", ...) do out[#out + 1] = tostring((select(i, ...))) end
    return io.stdout
  end
  local ok, err = pcall(fn, ...)
  print, io.write = old_print, old_write
  if not ok then error(err, 0) end
  return table.concat(out)
end

-- Run fn with the global game g set to 'game' (restored afterwards), output captured.
local function with_game(game, fn)
  local old = rawget(_G, "g")
  rawset(_G, "g", game)
  local ok, res = pcall(capture, fn)
  rawset(_G, "g", old)
  if not ok then error(res, 0) end
  return res
end

local function has(text, want)
  if not text:find(want, 1, true) then
    error(string.format("expected to find %q in:\n%s", want, text), 2)
  end
end

local function lacks(text, unwanted)
  if text:find(unwanted, 1, true) then
    error(string.format("did not expect %q in:\n%s", unwanted, text), 2)
  end
end

-- The function a user calls for command 'name' (errors become one plain line).
local function cmd(name) return repl.commands[name].call end
local S = repl.session

-- The message of an error raised by fn (plain REPL errors are tables with __tostring).
local function error_of(fn, ...)
  local ok, err = pcall(fn, ...)
  assert(not ok, "expected an error")
  return tostring(err)
end

local function contains(list, item)
  for _, v in ipairs(list) do if v == item then return true end end
  return false
end

return {
  ["format quotes strings with readable escapes"] = function()
    assert(repl.format("a\nb\t\"c\"\\", { color = false }) == [["a\nb\t\"c\"\\"]])
    assert(repl.format("\0\1", { color = false }) == [["\000\001"]])
  end,

  ["format shows integers, floats and special numbers as Lua does"] = function()
    assert(repl.format(3, { color = false }) == "3")
    assert(repl.format(3.0, { color = false }) == "3.0")
    assert(repl.format(0.1, { color = false }) == "0.1")
    assert(repl.format(math.huge, { color = false }) == "inf")
    assert(repl.format(-math.huge, { color = false }) == "-inf")
    assert(repl.format(0 / 0, { color = false }) == "nan")
    assert(repl.format(nil, { color = false }) == "nil")
    assert(repl.format(true, { color = false }) == "true")
  end,

  ["format lists the array part first, then the other keys sorted"] = function()
    local s = repl.format({ 10, 20, b = 2, a = 1, [5] = "five", ["not id"] = true }, { color = false })
    assert(s == '{10, 20, [5] = "five", a = 1, b = 2, ["not id"] = true}', s)
  end,

  ["format marks cycles and stops at four levels of nesting"] = function()
    local t = { name = "loop" }
    t.self = t
    local s = repl.format(t, { color = false })
    assert(s:find("<cycle: table:", 1, true), s)
    local deep = { { { { { 1 } } } } }
    s = repl.format(deep, { color = false })
    assert(s == "{{{{{...}}}}}", s)
  end,

  ["format shows at most 100 entries of a table and says how many more"] = function()
    local t = {}
    for i = 1, 250 do t[i] = i end
    local s = repl.format(t, { color = false })
    has(s, "... (150 more)")
    lacks(s, "101,")
  end,

  ["format spreads a long table over lines that fit 78 columns"] = function()
    local t = {}
    for i = 1, 60 do t[i] = "move" .. i end
    local s = repl.format(t, { color = false })
    assert(s:sub(1, 2) == "{\n", s)
    for line in s:gmatch("[^\n]+") do assert(#line <= 78, line) end
    local nested = { first = { 1, 2, 3 }, second = { x = string.rep("y", 80) } }
    s = repl.format(nested, { color = false })
    has(s, "\n  first = {1, 2, 3},\n")
  end,

  ["format shows a game inside a table as a short tag"] = function()
    local s = repl.format({ konane.new { rows = 6, cols = 6 } }, { color = false })
    assert(s == "{<game 6x6 brainking, ply 0>}", s)
  end,

  ["format survives a __tostring that raises or returns a non-string"] = function()
    local bad = setmetatable({}, { __tostring = function() error("no") end })
    assert(repl.format(bad, { color = false }):match("^table: 0x"))
    local odd = setmetatable({}, { __tostring = function() return {} end })
    assert(repl.format({ odd }, { color = false }):match("^{table: 0x"))
  end,

  ["format colours only when asked"] = function()
    has(repl.format({ "a", 1 }, { color = true }), "\27[32m\"a\"")
    lacks(repl.format({ "a", 1 }, { color = false }), "\27[")
  end,

  ["show draws a game given alone and sets _"] = function()
    local g = konane.new()
    local out = capture(repl.show, g)
    has(out, "    a b c d e f g h\n")
    has(out, "  8 x o x o x o x o 8\n")
    has(out, "Black (x) to move")
    assert(rawget(_G, "_") == g)
    out = capture(repl.show, 1, "two", nil)
    assert(out == '1\t"two"\tnil\n', out)
    rawset(_G, "_", nil)
  end,

  ["draw shows coordinates, the turn, the phase and the last move, marked"] = function()
    local g = konane.new()
    g:play("d5")
    g:play("e5")
    g:play("b5-d5")
    S.flip = false
    local s = repl.draw(g, { color = false })
    has(s, "  5 o[.].[x]. x o x 5")  -- origin b5 and landing d5 of the last move
    has(s, "White (o) to move, jump, last b5-d5 (Black), ply 3")
    lacks(s, "\27[")
    local c = repl.draw(g, { color = true })
    has(c, "\27[7m\27[1;31mx")  -- the landing square in reverse video, no brackets
    lacks(c, "]")
  end,

  ["draw says who won when the game is over"] = function()
    local g = konane.new { fen = "o1o/3/3 b" }
    local s = repl.draw(g, { color = false })
    has(s, "Game over: White wins (Black has no legal move)")
  end,

  ["draw handles the widest board"] = function()
    local g = konane.new { rows = 20, cols = 20 }
    S.flip = false
    local s = repl.draw(g, { color = false })
    has(s, " 20 x o")
    has(s, "    a b c d e f g h i j k l m n o p q r s t")
  end,

  ["one drawing: print(g), g:draw(), board() and the human bot draw the same text"] = function()
    local g = konane.new()
    g:play("d5")
    g:play("e5")
    local expected = draw.board(g)
    assert(tostring(g) == expected)
    assert(g:draw() == expected)
    S.flip = false
    local out = with_game(g, cmd("board"))
    assert(out == expected .. "\n", out)
    local written = {}
    local bot = require("konane.bots.human").new {
      input = function() return "b5-d5" end,
      output = function(text) written[#written + 1] = text end,
    }
    assert(bot:choose(g:clone()) == "b5-d5")
    local text = table.concat(written)
    has(text, expected .. "\n")
    lacks(text, "remove")            -- no internal phase names
    local _, n = text:gsub("last e5", "")
    assert(n == 1, "the last move is said once:\n" .. text)
  end,

  ["flip draws the board from White's side"] = function()
    local g = konane.new()
    g:play("d5")
    local s = draw.board(g, { flip = true })
    local lines = {}
    for line in s:gmatch("[^\n]+") do lines[#lines + 1] = line end
    assert(lines[1] == "    h g f e d c b a", lines[1])
    assert(lines[2] == "  1 x o x o x o x o 1", lines[2])
    assert(lines[5] == "  4 o x o x o x o x 4", lines[5])
    assert(lines[6] == "  5 x o x o[.]o x o 5", lines[6])
    S.flip = false
    local out = with_game(g, cmd("flip"))
    has(out, "    h g f e d c b a")
    assert(S.flip == true)
    with_game(g, cmd("flip"))
    assert(S.flip == false)
  end,

  ["vs as White draws the board from White's side"] = function()
    local g = konane.new()
    local out = with_game(g, function() cmd("vs")("random:seed=3", "white") end)
    has(out, "You play White against random")
    has(out, "    h g f e d c b a")
    assert(g:ply() == 1 and g:turn() == "white")
    with_game(g, function() cmd("vs")(false) end)
    S.flip = false
  end,

  ["a typed move becomes a call that plays it"] = function()
    for _, line in ipairs { "d5", "f5-d5", "F5-B5", "f5b5", "f5-d5-b5", "  e4  ", "t20", "d5;" } do
      local code = repl.rewrite(line)
      assert(code and code:find("typed_move", 1, true), line)
    end
  end,

  ["Lua stays Lua: assignments, calls and names with values"] = function()
    for _, line in ipairs { "x = 1", "print(1)", "g:moves()", "a", "ab5", "d5 = 3", "5", "f5 - d5 + 1", "" } do
      assert(repl.rewrite(line) == nil, line)
    end
    rawset(_G, "d5", 42)
    assert(repl.rewrite("d5") == nil, "d5 is a global with a value here")
    rawset(_G, "d5", nil)
  end,

  ["a bare command name calls the command"] = function()
    local old = rawget(_G, "board")
    rawset(_G, "board", cmd("board"))
    assert(repl.rewrite("board") == "board()")
    rawset(_G, "board", function() end)
    assert(repl.rewrite("board") == nil, "a user's own 'board' is left alone")
    rawset(_G, "board", old)
  end,

  ["completion offers methods reached through __index after a colon"] = function()
    local old = rawget(_G, "g")
    rawset(_G, "g", konane.new())
    local c = repl.complete("g:mo", "g:mo", 0)
    rawset(_G, "g", old)
    -- g:mo names one method, so Tab completes it at once
    assert(#c == 1 and c[1] == "g:moves(", table.concat(c, " "))
    rawset(_G, "g", konane.new())
    c = repl.complete("g:c", "g:c", 0)
    rawset(_G, "g", old)
    assert(contains(c, "g:clone(") and contains(c, "g:count(") and contains(c, "g:cols("),
      table.concat(c, " "))
    for _, s in ipairs(c) do assert(s:sub(1, 3) == "g:c", s) end
  end,

  ["completion offers fields, globals and keywords"] = function()
    local old = rawget(_G, "konane")
    rawset(_G, "konane", konane)
    local c = repl.complete("konane.ne", "konane.ne", 0)
    rawset(_G, "konane", old)
    assert(contains(c, "konane.new("), table.concat(c, " "))
    assert(contains(repl.complete("string.fo", "string.fo", 0), "string.format("))
    assert(contains(repl.complete("pri", "pri", 0), "print("))
    assert(contains(repl.complete("whi", "whi", 0), "while"))
    local all = repl.complete("math.", "math.", 0)
    assert(contains(all, "math.pi") and contains(all, "math.floor("))
  end,

  ["completion of an unknown or odd prefix gives nothing and never raises"] = function()
    assert(#repl.complete("nope.x", "nope.x", 0) == 0)
    assert(#repl.complete("math.pi.x", "math.pi.x", 0) == 0)
    assert(#repl.complete("a..b", "a..b", 0) == 0)
    local trap = setmetatable({}, { __index = function() error("boom") end })
    rawset(_G, "trap_for_completion", trap)
    assert(#repl.complete("trap_for_completion.x", "", 0) == 0)
    rawset(_G, "trap_for_completion", nil)
  end,

  ["new accepts sizes, a variant name, a position text and options"] = function()
    local old = rawget(_G, "g")
    local out = capture(cmd("new"), 6)
    assert(rawget(_G, "g"):rows() == 6 and rawget(_G, "g"):cols() == 6)
    has(out, "    a b c d e f\n")
    capture(cmd("new"), 6, 8)
    assert(rawget(_G, "g"):rows() == 6 and rawget(_G, "g"):cols() == 8)
    capture(cmd("new"), "10x12")
    assert(rawget(_G, "g"):rows() == 10 and rawget(_G, "g"):cols() == 12)
    capture(cmd("new"), "xoxo/oxox/xoxo/oxox b")
    assert(rawget(_G, "g"):fen() == "xoxo/oxox/xoxo/oxox b")
    capture(cmd("new"), { rows = 4, cols = 6 })
    assert(rawget(_G, "g"):cols() == 6)
    capture(cmd("new"))
    assert(rawget(_G, "g"):rows() == 8 and rawget(_G, "g"):variant() == "brainking")
    assert(not pcall(cmd("new"), 99))
    rawset(_G, "g", old)
  end,

  ["play shows the board; an illegal move says why and changes nothing"] = function()
    local g = konane.new()
    local out = with_game(g, function() cmd("play")("d5") end)
    has(out, "  5 o x o[.]o x o x 5")
    has(out, "last d5 (Black)")
    local msg = error_of(with_game, g, function() repl.typed_move("e5-e9") end)
    has(msg, "illegal move 'e5-e9'")
    lacks(msg, "repl.lua")  -- a user's mistake, not a bug: no position, no traceback
    assert(g:ply() == 1)
  end,

  ["commands without a game say how to start one"] = function()
    local msg = error_of(with_game, nil, cmd("board"))
    has(msg, "no game: type new()")
  end,

  ["undo takes moves back and says when there is nothing to undo"] = function()
    local g = konane.new()
    g:play("d5")
    g:play("e5")
    local out = with_game(g, function() cmd("undo")() end)
    has(out, "undone: e5")
    assert(g:ply() == 1)
    with_game(g, function() cmd("undo")(5) end)
    assert(g:ply() == 0)
    out = with_game(g, function() cmd("undo")() end)
    has(out, "nothing to undo")
  end,

  ["moves and history list what they should"] = function()
    local g = konane.new()
    local out = with_game(g, cmd("moves"))
    has(out, "4 legal moves for Black:")
    has(out, "h1, e4, d5, a8")
    g:play("d5")
    g:play("e5")
    g:play("b5-d5")
    out = with_game(g, cmd("history"))
    assert(out == "1. d5 e5 2. b5-d5\n", out)
  end,

  ["perft prints the counts of rules.md"] = function()
    local g = konane.new()
    local out = with_game(g, function() cmd("perft")(5) end)
    has(out, "perft( 5) =            892")
    out = with_game(konane.new { rows = 6, cols = 6 }, function() cmd("perft")(4) end)
    has(out, "perft( 4) =            156")
  end,

  ["pgn saves the game and open reads it back"] = function()
    local g = konane.new { rows = 6, cols = 6 }
    g:play("c4")
    g:play("c3")
    local out = with_game(g, cmd("pgn"))
    has(out, '[Board "6x6"]')
    has(out, "1. c4 c3 *")
    local path = os.tmpname()
    out = with_game(g, function() cmd("pgn")(path) end)
    has(out, "saved 2 moves to ")
    local old = rawget(_G, "g")
    out = capture(cmd("open"), path)
    local back = rawget(_G, "g")
    rawset(_G, "g", old)
    os.remove(path)
    has(out, "game 1 of 1")
    assert(back:fen() == g:fen() and back:ply() == 2)
    local msg = error_of(cmd("open"), path)  -- removed now
    has(msg, "No such file")
  end,

  ["help lists every command on one line, and details one"] = function()
    local out = capture(cmd("help"))
    for _, name in ipairs(repl.order) do
      has(out, "\n  " .. repl.commands[name].usage)
    end
    out = capture(cmd("help"), "vs")
    has(out, "vs(bot, side)")
    has(out, "two bots play")
    out = capture(cmd("help"), cmd("perft"))
    has(out, "perft(depth)")
    out = capture(cmd("help"), "nonsense")
    has(out, "no command \"nonsense\"")
  end,

  ["vs makes a bot answer the moves typed"] = function()
    local g = konane.new()
    local out = with_game(g, function()
      cmd("vs")("random:seed=7")
      repl.typed_move("d5")
    end)
    has(out, "You play Black against random")
    has(out, "(White) plays")
    assert(g:ply() == 2 and g:turn() == "black")
    -- undo takes back the bot's reply and the move, so it is Black's turn again
    with_game(g, function() cmd("undo")() end)
    assert(g:ply() == 0, g:ply())
    with_game(g, function() cmd("vs")(false) end)
  end,

  ["vs with two bots plays the game out"] = function()
    local g = konane.new { rows = 4, cols = 4, variant = "free" }
    local out = with_game(g, function() cmd("vs")("random:seed=1", "random:seed=2") end)
    assert(g:over(), "the game should be over")
    has(out, "Game over:")
  end,

  ["hint and go use the engine without changing the game for hint"] = function()
    local g = konane.new { rows = 6, cols = 6 }
    if not g.search then return end
    local out = with_game(g, function() cmd("hint")(0.05) end)
    has(out, "hint: ")
    assert(g:ply() == 0)
    out = with_game(g, function() cmd("go")(0.05) end)
    has(out, "engine plays ")
    assert(g:ply() == 1)
  end,

  ["solve gives the known result of a small board"] = function()
    -- 4x4 with the corner pair removed and Black to jump: a second-player (White) win.
    local g = konane.new { rows = 4, cols = 4, variant = "free" }
    if not g.solve then return end
    g:play("a4")
    g:play("b4")
    local out = with_game(g, function() cmd("solve")(10) end)
    has(out, "Black to move loses")
  end,

  ["a mistake in a command is one line naming the call, without a traceback"] = function()
    local msg = error_of(cmd("new"), 30)
    assert(msg == "new(30): rows must be 1..20", msg)
    msg = error_of(cmd("new"), { rowz = 3 })
    assert(not msg:find("\n") and not msg:find("%.lua:%d"), msg)
    has(msg, "new({rowz = 3}): unknown option 'rowz'")
    msg = error_of(with_game, konane.new(), function() cmd("seek")("x") end)
    has(msg, 'seek("x"): ply must be a whole number')
    msg = error_of(cmd("undo"), 0)
    has(msg, "undo(0): n must be a whole number of moves")
    -- a file that cannot be written is named once
    for _, c in ipairs { "svg", "pgn" } do
      msg = error_of(with_game, konane.new(), function() cmd(c)("/nonexistent-dir/x") end)
      has(msg, "cannot write /nonexistent-dir/x: No such file")
      assert(select(2, msg:gsub("/nonexistent%-dir/x", "")) == 1, msg)
    end
  end,

  ["a misspelt bot in vs() keeps the finished game"] = function()
    local g = konane.new { fen = "o1o/3/3 b" }  -- over: Black has no move
    for _, spec in ipairs { "alphabta", "greedy:dept=3" } do
      local msg = error_of(with_game, g, function() cmd("vs")(spec) end)
      has(msg, "vs(\"" .. spec .. "\"): ")
      lacks(msg, "\n")
    end
    has(error_of(with_game, g, function() cmd("vs")("random", "purple") end), "unknown bot 'purple'")
    has(error_of(with_game, g, function() cmd("vs")("random", "black", { tc = "1", nope = 1 }) end),
      "unknown option 'nope'")
    -- with_game restores g afterwards; check the game each call saw was kept
    local seen
    with_game(g, function()
      pcall(cmd("vs"), "alphabta")
      seen = rawget(_G, "g")
    end)
    assert(seen == g and g:over(), "the finished game was replaced")
  end,

  ["after a vs() game ends, undo() takes back the move and the reply and the bot plays on"] = function()
    -- Black to move on a 1x5 strip: b1-d1 wins at once (White is left without a piece)
    local g = konane.new { fen = "1xo2 b" }
    with_game(g, function() cmd("vs")("greedy", "white") end)
    assert(g:ply() == 1 and g:over(), "greedy (Black) should have won: " .. g:fen())
    local out = with_game(g, function() cmd("undo")() end)
    has(out, "undone: ")
    assert(g:ply() == 0 and g:turn() == "black", g:fen())
    assert(repl.session.opponent and repl.session.opponent.game == g, "the opponent was dropped")
    with_game(g, function() cmd("vs")(false) end)

    -- the usual case: the user (Black) moves, the bot replies, the game ends with the reply
    g = konane.new { rows = 4, cols = 4, variant = "free" }
    with_game(g, function() cmd("vs")("random:seed=5", "black") end)
    while not g:over() do
      local m = g:moves()[1]
      with_game(g, function() repl.typed_move(m) end)
    end
    local before = g:ply()
    local last_by_bot = g:turn() == "black"  -- Black (the user) is to move and has none
    with_game(g, function() cmd("undo")() end)
    assert(g:turn() == "black", "the user's turn again")
    assert(g:ply() == before - (last_by_bot and 2 or 1), before .. " -> " .. g:ply())
    -- the bot answers the next move as before
    local ply = g:ply()
    with_game(g, function() repl.typed_move(g:moves()[1]) end)
    assert(g:over() or g:ply() == ply + 2, "the bot did not answer")
    with_game(g, function() cmd("vs")(false) end)
  end,

  ["scores read as moves of mobility, proved results as a win or loss in n plies"] = function()
    local format = require "konane.repl.format"
    assert(format.score(140) == "+1.4", format.score(140))
    assert(format.score(-30) == "-0.3")
    assert(format.score(0) == "0.0")
    assert(format.score(29997) == "win in 3")
    assert(format.score(-29996) == "loss in 4")
    assert(format.score(-30000) == "lost")
    assert(format.score(math.huge) == "win" and format.score(-math.huge) == "loss")
  end,

  ["vs() shows the engine's score and depth with its move"] = function()
    local g = konane.new { rows = 6, cols = 6 }
    if not g.search then return end
    local out = with_game(g, function()
      cmd("vs")("alphabeta:depth=3")
      repl.typed_move("c4")
    end)
    assert(out:find("alphabeta:depth=3 %(White%) plays %a%d  %([-+]?%d+%.%d, depth 3, %d+%.%d%d s%)") or
      out:find("alphabeta:depth=3 %(White%) plays %a%d  %(%a+ in %d+, depth 3"), out)
    with_game(g, function() cmd("vs")(false) end)
  end,

  ["pgn() after vs() names both players; a file bot by its name, its path in a tag"] = function()
    local g = konane.new { rows = 4, cols = 4, variant = "free" }
    local out = with_game(g, function()
      cmd("vs")("examples/bots/greedy.lua", "random:seed=1")
      cmd("pgn")()
    end)
    has(out, '[Black "greedy-example"]')
    has(out, '[White "random:seed=1"]')
    has(out, '[BlackFile "examples/bots/greedy.lua"]')
    g = konane.new()
    out = with_game(g, function()
      cmd("vs")("random:seed=2")
      repl.typed_move("d5")
      cmd("pgn")()
    end)
    has(out, '[White "random:seed=2"]')
    has(out, '[Black "' .. (os.getenv("USER") or "you") .. '"]')
    with_game(g, function() cmd("vs")(false) end)
  end,

  ["back, forward and seek step through a game; a new move drops the later ones"] = function()
    local g = konane.new()
    for _, m in ipairs { "d5", "e5", "b5-d5", "e3-e5" } do g:play(m) end
    with_game(g, function() cmd("back")() end)
    assert(g:ply() == 3)
    with_game(g, function() cmd("back")(2) end)
    assert(g:ply() == 1)
    local out = with_game(g, cmd("history"))
    has(out, "1. d5\nahead: 1... e5 2. b5-d5 e3-e5")
    with_game(g, function() cmd("forward")() end)
    assert(g:ply() == 2 and g:last() == "e5")
    with_game(g, function() cmd("seek")(-1) end)
    assert(g:ply() == 4 and g:last() == "e3-e5")
    with_game(g, function() cmd("seek")(0) end)
    assert(g:ply() == 0)
    has(error_of(with_game, g, function() cmd("seek")(5) end), "the game has 4 plies")
    -- a float with a whole value counts as that number (seek(1e3) is 1000); 2.5 is refused
    has(error_of(with_game, g, function() cmd("seek")(1e3) end), "seek(1000.0): the game has 4 plies")
    has(error_of(with_game, g, function() cmd("seek")(2.5) end), "ply must be a whole number")
    with_game(g, function() cmd("seek")(3.0) end)
    assert(g:ply() == 3)
    with_game(g, function() cmd("back")(1.0) end)
    assert(g:ply() == 2)
    has(error_of(with_game, g, function() cmd("hint")(1e7) end), "seconds must be a number above 0, at most 1000000")
    with_game(g, function() cmd("seek")(2) end)
    -- the same move as the line keeps the rest; another drops it
    with_game(g, function() repl.typed_move("b5-d5") end)
    with_game(g, function() cmd("forward")() end)
    assert(g:ply() == 4, "the line was kept")
    with_game(g, function() cmd("seek")(2) end)
    local other_move
    for _, m in ipairs(g:moves()) do if m ~= "b5-d5" then other_move = m break end end
    with_game(g, function() repl.typed_move(other_move) end)
    out = with_game(g, function() cmd("forward")() end)
    has(out, "already at the end")
    assert(g:ply() == 3 and g:last() == other_move)
  end,

  ["moves() on a finished game says who won once"] = function()
    local g = konane.new { fen = "o1o/3/3 b" }
    local out = with_game(g, cmd("moves"))
    assert(out == "White wins: Black has no legal move.\n", out)
  end,

  ["open() of a game the file does not have says how many it has"] = function()
    local path = os.tmpname()
    local g = konane.new { rows = 4, cols = 4 }
    with_game(g, function() cmd("pgn")(path) end)
    local msg = error_of(cmd("open"), path, 5)
    has(msg, "has 1 game; there is no game 5")
    os.remove(path)
  end,

  ["open() of a record with an illegal move names the file, the line and the move once"] = function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write('[Event "x"]\n\n1. d5 z9 *\n')
    f:close()
    local msg = error_of(cmd("open"), path)
    os.remove(path)
    assert(msg == path .. ":3: illegal move 2 'z9': no such square z9 on this 8x8 board", msg)
  end,

  ["a time control reads as seconds+increment"] = function()
    local clock = require "konane.repl.clock"
    local b, i = clock.parse("300+2")
    assert(b == 300 and i == 2)
    b, i = clock.parse("90")
    assert(b == 90 and i == 0)
    for _, bad in ipairs { "abc", "0+1", "-5", "300+", "+2", "", {} } do
      assert(not pcall(clock.parse, bad), bad)
    end
  end,

  ["vs() with a clock: your time runs at the prompt, on the status line; out of time loses"] = function()
    local t = 0
    local real_now = S.now
    S.now = function() return t end  -- a clock the test moves by hand
    local g = konane.new()
    local ok, err = pcall(function()
      local out = with_game(g, function() cmd("vs")("random:seed=4", "black", { tc = "10+1" }) end)
      has(out, "You play Black against random:seed=4, clock 10+1.")
      has(out, "ply 0, Black 0:10, White 0:10")
      t = 3
      out = with_game(g, function() repl.typed_move("d5") end)
      -- Black: 10 - 3 + 1; White answered at once: 10 + 1
      has(out, ", Black 8.0 s, White 0:11")
      t = 30
      out = with_game(g, function() repl.typed_move(g:moves()[1]) end)
      has(out, "Black's time ran out, White wins on time.")
      lacks(out, "(White) plays")  -- the game is over: no reply
      local msg = error_of(with_game, g, function() repl.typed_move(g:moves()[1]) end)
      has(msg, "the game is over (Black's time ran out, White wins on time)")
      out = with_game(g, cmd("pgn"))
      has(out, '[Result "0-1"]')
      has(out, '[Termination "time forfeit"]')
      out = with_game(g, function() cmd("undo")() end)
      has(out, "the clock is off")
      with_game(g, function() repl.typed_move(g:moves()[1]) end)
      assert(g:ply() == 4, "the game goes on after undo: " .. g:ply())
    end)
    S.now = real_now
    with_game(g, function() cmd("vs")(false) end)
    assert(ok, err)
  end,

  ["vs() rejects a bad time control before changing anything"] = function()
    local g = konane.new { fen = "o1o/3/3 b" }
    local msg = error_of(with_game, g, function() cmd("vs")("random", "black", { tc = "fast" }) end)
    has(msg, "bad time control 'fast'")
  end,

  ["in a vs() game a move is never played for the bot; go() lets the bot move"] = function()
    local g = konane.new()
    with_game(g, function()
      cmd("vs")("random:seed=9")
      repl.typed_move("d5")
      cmd("back")()
    end)
    assert(g:ply() == 1 and g:turn() == "white")
    local msg = error_of(with_game, g, function() repl.typed_move(g:moves()[1]) end)
    has(msg, "it is random:seed=9's turn (White): go() lets it move")
    -- go(seconds) then is refused, not silently run with the bot's own time
    msg = error_of(with_game, g, function() cmd("go")(0.2) end)
    has(msg, "it is random:seed=9's turn: it thinks with its own settings")
    assert(g:ply() == 1, "nothing played")
    local out = with_game(g, function() cmd("go")() end)
    has(out, "random:seed=9 (White) plays")
    assert(g:ply() == 2 and g:turn() == "black")
    with_game(g, function() cmd("vs")(false) end)
  end,

  ["konane.<Tab> offers the parts loaded on first use"] = function()
    local old = rawget(_G, "konane")
    rawset(_G, "konane", konane)
    local c = repl.complete("konane.", "konane.", 0)
    rawset(_G, "konane", old)
    for _, want in ipairs { "konane.pgn", "konane.tournament", "konane.draw", "konane.stats", "konane.new(" } do
      assert(contains(c, want), want .. " not in: " .. table.concat(c, " "))
    end
    assert(not contains(c, "konane.init") and not contains(c, "konane.tournament_worker"))
  end,

  ["analyze interrupted keeps the best line found so far"] = function()
    local Game = konane.core.Game
    local real = Game.search
    if not real then return end
    Game.search = function(_, limits)
      limits.info { depth = 7, score = 120, nodes = 5000, time = 0.5, pv = { "d5", "e5" }, move = "d5" }
      error("interrupted!", 0)
    end
    local ok, out = pcall(with_game, konane.new(), function() cmd("analyze")() end)
    Game.search = real
    assert(ok, out)
    has(out, "interrupted; best: d5  (+1.2, depth 7")
    has(out, "line: d5 e5")
  end,

  ["start installs the commands and a game without replacing user globals"] = function()
    local saved = {}
    for _, name in ipairs(repl.order) do saved[name] = rawget(_G, name) end
    local old_g, old_konane, old_exit = rawget(_G, "g"), rawget(_G, "konane"), rawget(_G, "exit")
    local mine = function() end
    rawset(_G, "go", mine)
    rawset(_G, "g", nil)
    local banner = repl.start { tty = false, color = false }
    has(banner, "vs()")
    has(banner, "help()")
    assert(rawget(_G, "go") == mine, "a user's go is kept")
    assert(rawget(_G, "board") == cmd("board"))
    assert(getmetatable(rawget(_G, "g")).__name == "konane.Game")
    for _, name in ipairs(repl.order) do rawset(_G, name, saved[name]) end
    rawset(_G, "g", old_g)
    rawset(_G, "konane", old_konane)
    rawset(_G, "exit", old_exit)
  end,
}
