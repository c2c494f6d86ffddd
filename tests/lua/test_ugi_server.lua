-- konane --ugi: the engine side of UGI, driven as scripted sessions over pipes.
local konane = require "konane"
local S = dofile("tests/lua/ugi_session.lua")

local T = {}

local function engine(spec)
  return S.start(S.engine_argv(spec or "alphabeta:depth=2"))
end

-- The engine still answers isready, then ends at quit; then it is closed.
local function ready_then_quit(e)
  e:send("isready")
  assert(e:line() == "readyok")
  e:send("quit")
  assert(e:wait_exit() == "exit")
  e:close()
end

-- An alphabeta engine after its handshake, searching 'position' with go infinite (its first
-- iteration reported).
local function searching(position)
  local e = engine("alphabeta")
  e:send("ugi")
  e:upto("ugiok")
  e:send(position, "go infinite")
  assert(e:line():match("^info depth 1 "))
  return e
end

-- After what a test sent (bad commands), the engine still answers isready; then it is closed.
local function answers_and_closes(e)
  e:send("isready")
  assert(e:line() == "readyok")
  e:close()
end

T["the handshake names the engine and announces its options, then ugiok"] = function()
  local e = engine("alphabeta")
  e:send("ugi")
  local got = e:upto("ugiok")
  local text = table.concat(got, "\n")
  assert(got[1] == "id name alphabeta", got[1])
  assert(got[2]:match("^id author "), got[2])
  for _, want in ipairs { "option name hash type spin", "option name variant type combo default brainking",
                          "var free", "option name rows type spin", "option name cols type spin",
                          "option name depth type string", "option name time type string" } do
    assert(text:find(want, 1, true), "missing '" .. want .. "' in\n" .. text)
  end
  ready_then_quit(e)
end

T["a bot's odd figures (NaN, huge, strings) never keep the engine from answering bestmove"] = function()
  local H = dofile("tests/lua/helpers.lua")
  local path = H.tmpdir() .. "/nan.lua"
  H.write(path, [[return { name = "nan", choose = function(_, g, clock)
    clock.info { depth = 0/0, score = 1e308, nodes = "many", pv = { "d5", 7 } }
    return g:moves()[1], { depth = 0/0, score = 0/0, nodes = 1e308 } end }]])
  local e = engine(path)
  e:send("position startpos")
  e:send("go movetime 1000")
  local got = e:upto(function(l) return l:match("^bestmove") end)
  assert(got[#got]:match("^bestmove [a-h]%d$"), table.concat(got, "\n"))
  for _, l in ipairs(got) do
    assert(not l:find("nan", 1, true) and not l:find("e+", 1, true), "not an integer in: " .. l)
  end
  e:send("quit")
  e:wait_exit()
  e:close()
  H.cleanup()
end

T["alphabeta with a weights set or file keeps searching after setoption (the file is read before the lockdown)"] = function()
  local H = dofile("tests/lua/helpers.lua")
  local path = H.tmpdir() .. "/w.lua"
  H.write(path, "return { mobility = 100, movers = 77 }")
  for _, spec in ipairs { "alphabeta:weights=tuned", "alphabeta:weights=" .. path } do
    local e = engine(spec)
    -- every setoption makes the bot again: it used to need the file then, and failed
    e:send("ugi", "setoption name hash value 8", "setoption name rows value 6", "isready")
    local got = e:upto("readyok")
    assert(not table.concat(got, "\n"):find("error", 1, true), spec .. ": " .. table.concat(got, " | "))
    e:send("position startpos moves c4 c3", "go depth 3")
    local move, lines = e:bestmove()
    assert(move and move ~= "0000", spec .. ": " .. table.concat(lines, " | "))
    assert(lines[#lines - 1]:match("^info depth 3 "), spec .. ": " .. table.concat(lines, " | "))
    e:send("quit")
    e:wait_exit()
    e:close()
  end
  local code, out = H.run(S.engine_argv("alphabeta:weights=" .. H.tmpdir() .. "/none.lua"))
  assert(code == 2 and out:find("none.lua", 1, true), tostring(code) .. " " .. tostring(out))
  H.cleanup()
end

T["the UGI session shown in docs/bots.md answers as shown"] = function()
  local f = assert(io.open("docs/bots.md"))
  local doc = f:read("a")
  f:close()
  local block = assert(doc:match("\n    %$ build/konane %-%-ugi alphabeta:time=1\n(.-)\n\n"), "the session block")
  local sent, shown = {}, {}
  for l in block:gmatch("[^\n]+") do
    l = l:gsub("^    ", "")
    local w = l:match("^(%S+)")
    if w == "ugi" or w == "position" or w == "go" or w == "query" or w == "isready" then
      sent[#sent + 1] = l
    elseif w == "response" or w == "bestmove" or w == "ugiok" then
      shown[#shown + 1] = l
    end
  end
  assert(#sent >= 4 and #shown >= 3, block)
  local e = engine("alphabeta:time=1")
  local got = {}
  for _, l in ipairs(sent) do
    e:send(l)
    local w = l:match("^(%S+)")
    if w == "ugi" then got[#got + 1] = select(2, e:upto("ugiok")) end
    if w == "go" then got[#got + 1] = "bestmove " .. e:bestmove() end
    if w == "query" then got[#got + 1] = e:line() end
  end
  e:send("quit")
  e:wait_exit()
  e:close()
  for i, want in ipairs(shown) do
    if want:match("^bestmove") then
      local g = konane.new()
      g:play("d5")
      assert(g:legal(got[i]:match("^bestmove (%S+)")), got[i])
    else
      assert(got[i] == want, "docs/bots.md shows '" .. want .. "', the engine says '" .. tostring(got[i]) .. "'")
    end
  end
end

T["mcts over UGI: go infinite searches until stop, reading its input meanwhile"] = function()
  local e = engine("mcts")
  e:send("ugi", "setoption name rows value 6", "setoption name cols value 6", "isready")
  e:upto("readyok")
  e:send("position startpos moves c4 c3", "go infinite", "isready")
  -- readyok while the search runs: before its info line, which comes when the search ends (it
  -- used to search a fixed second deaf to its input, then print the info, then readyok)
  for _ = 1, 2 do
    local got = e:upto(function(l) return l == "readyok" or l:match("^info ") or l:match("^bestmove") end)
    assert(got[#got] == "readyok", "the search ended before stop: " .. table.concat(got, " | "))
    e:send("isready")
  end
  e:send("stop")
  local move = e:bestmove()
  assert(move ~= "0000", move)
  local g = konane.new { rows = 6 }
  g:play("c4"); g:play("c3")
  assert(g:legal(move), move)
  e:send("quit")
  e:wait_exit()
  e:close()
end

T["a bad bot on the command line exits with status 2 and says what is wrong"] = function()
  local H = dofile("tests/lua/helpers.lua")
  local cases = {
    { "nosuchbot", "unknown bot 'nosuchbot'" },
    { "random:bogus=1", "unknown option 'bogus' for bot 'random'" },
    { "alphabeta:depth=x", "bad option depth=x" },
    { "/nonexistent/bot.lua", "cannot read '/nonexistent/bot.lua'" },
    { "human", "cannot be served over UGI" },
    { H.tmpdir() .. "/dir.lua", "Is a directory" },
  }
  assert(os.execute("mkdir -p " .. cases[#cases][1]))
  for _, c in ipairs(cases) do
    local code, out = H.run(S.engine_argv(c[1]))
    assert(code == 2, c[1] .. ": exit " .. tostring(code) .. ": " .. out)
    assert(out:find("konane --ugi: ", 1, true) and out:find(c[2], 1, true), c[1] .. ": " .. out)
  end
  H.cleanup()
end

T["position then query answers whose turn it is, whether the game is over and its result"] = function()
  local e = engine()
  e:send("ugi")
  e:upto("ugiok")
  e:send("position startpos", "query p1turn", "query gameover", "query result")
  assert(e:line() == "response true")
  assert(e:line() == "response false")
  assert(e:line() == "response none")
  e:send("position startpos moves d5 d4", "query p1turn")
  assert(e:line() == "response true")
  e:send("position startpos moves d5", "query p1turn")
  assert(e:line() == "response false")
  -- a finished 4x4 game: Black to move without a move, White won
  local g = konane.new { rows = 4, cols = 4 }
  while not g:over() do g:play(g:moves()[1]) end
  e:send("setoption name rows value 4", "setoption name cols value 4",
         "position startpos moves " .. table.concat(g:history(), " "),
         "query gameover", "query result", "query p1turn")
  assert(e:line() == "response true")
  assert(e:line() == (g:winner() == "black" and "response p1win" or "response p2win"))
  assert(e:line() == (g:turn() == "black" and "response true" or "response false"))
  -- the same position as text
  e:send("position fen " .. g:fen(), "query gameover")
  assert(e:line() == "response true")
  e:close()
end

T["go answers a legal move in canonical notation with info lines"] = function()
  local e = engine()
  e:send("ugi", "setoption name rows value 6", "setoption name cols value 6", "isready")
  e:upto("readyok")
  e:send("uginewgame", "position startpos moves C4", "go depth 3")
  local move, got = e:bestmove()
  local g = konane.new { rows = 6, cols = 6 }
  g:play("c4")
  assert(g:legal(move) == move, "not a canonical legal move: " .. tostring(move))
  assert(got[#got - 1]:match("^info depth %d+ score cp %-?%d+ nodes %d+ nps %d+ time %d+ pv "), got[#got - 1])
  -- a clock
  e:send("position startpos", "go p1time 1000 p2time 1000 p1inc 10 p2inc 10")
  move = e:bestmove()
  assert(konane.new { rows = 6, cols = 6 }:legal(move) == move)
  e:send("go movetime 20")
  assert(e:bestmove())
  e:send("go nodes 50")
  assert(e:bestmove())
  e:close()
end

T["greedy's win on the spot is a mate in 1 in its info line, its other moves a score in cp"] = function()
  local e = engine("greedy")
  e:send("ugi", "setoption name rows value 6", "setoption name cols value 6", "isready")
  e:upto("readyok")
  -- Black's a6-c6 leaves White without a move
  e:send("position fen xo4/6/6/6/6/6 b", "go depth 1")
  local move, got = e:bestmove()
  assert(move == "a6-c6", tostring(move))
  assert(got[#got - 1]:match("^info depth 1 score mate 1 time %d+ pv a6%-c6$"), got[#got - 1])
  -- Black's first jump: the mobility difference after it, 100 a move
  e:send("position startpos moves c4 c3", "go depth 1")
  move, got = e:bestmove()
  local cp = tonumber(got[#got - 1]:match("^info depth 1 score cp (%-?%d+) time"))
  local g = konane.new { rows = 6, cols = 6 }
  g:play("c4"); g:play("c3"); g:play(move)
  assert(cp == 100 * (g:nmoves("black") - g:nmoves()), got[#got - 1] .. " after " .. move)
  e:close()
end

T["every go mode gives info lines before its bestmove, for every kind of bot"] = function()
  -- short clocks: the test is about the info lines, and 20 searches of 5 bots add up
  local modes = { "go movetime 20", "go depth 2", "go nodes 200", "go p1time 300 p2time 300 p1inc 10 p2inc 10",
                  "go p1time 300 p2time 300", "go infinite" }
  for _, spec in ipairs { "alphabeta", "random", "greedy", "mcts", "tests/lua/fixtures/ugi_lockdown.lua" } do
    local e = engine(spec)
    e:send("ugi", "setoption name rows value 6", "setoption name cols value 6", "isready")
    e:upto("readyok")
    -- the start (one removal: nothing to search) and a position in the middle of a game
    for _, pos in ipairs { "position startpos", "position startpos moves c4 c3 a4-c4 c1-c3" } do
      for _, go in ipairs(modes) do
        e:send(pos, go)
        if go == "go infinite" then e:send("stop") end
        local move, got = e:bestmove()
        assert(move and move ~= "0000", spec .. ", " .. go .. ": " .. table.concat(got, " | "))
        local info = got[#got - 1] or ""
        assert(info:match("^info .*time %d+") and info:find(" pv " .. move, 1, true),
          spec .. ", " .. pos .. ", " .. go .. ": " .. table.concat(got, " | "))
      end
    end
    e:close()
  end
end

T["a piped command file is served whole, and a refused option keeps the old value"] = function()
  -- the input ends (and quit comes) while the first search runs: every command before is answered
  local e = engine("alphabeta")
  e:send("ugi", "setoption name threads value 0", "isready", "position startpos", "go depth 3",
         "position startpos moves d5 e5", "go nodes 1000", "isready", "quit")
  e.p:close_input()
  local lines = {}
  while true do
    local l = e:line()
    if not l then break end
    lines[#lines + 1] = l
  end
  local text = table.concat(lines, "\n")
  assert(text:find("info string error: setoption threads", 1, true), text)
  local _, bestmoves = text:gsub("\nbestmove ", "")
  local _, readys = text:gsub("readyok", "")
  assert(bestmoves == 2 and readys == 2, text)
  assert(text:match("bestmove (%S+)$") == "b5-d5" or konane.new():legal(text:match("bestmove (%S+)$")) == nil, text)
  assert(e:wait_exit() == "exit")
  e:close()
end

T["commands that arrive during a search keep their order: a stop or quit after a queued go infinite ends it"] = function()
  -- each script is one write: it all arrives while the depth-2 search runs, and the input stays
  -- open (a runner's pipe); a stop or quit read then belongs to the go infinite queued before it
  for _, last in ipairs { "stop", "quit" } do
    local e = engine("alphabeta")
    e:send("ugi")
    e:upto("ugiok")
    e:send("position startpos moves d5 e5\ngo depth 2\ngo infinite\n" .. last .. "\nisready")
    local g = konane.new()
    g:play("d5")
    g:play("e5")
    local move, got = e:bestmove()
    assert(got[#got - 1]:match("^info depth 2 "), "the depth-2 search ran whole: " .. table.concat(got, " | "))
    assert(g:legal(move) == move, move)
    local move2 = e:bestmove() -- the go infinite, ended by the stop or quit after it
    assert(g:legal(move2) == move2, move2)
    if last == "stop" then
      assert(e:line() == "readyok", "readyok comes after the bestmoves")
      e:send("quit")
    end
    assert(e:wait_exit() == "exit", "the engine ends at quit")
    e:close()
  end
end

T["a second go infinite during go infinite: each stop ends one search, in order"] = function()
  -- the first stop came after the queued go infinite, so it waited behind it, and the running
  -- search, which only a stop ends, never ended: no bestmove, and a quit waited too
  local e = searching("position startpos moves d5 e5")
  e:send("go infinite", "stop")
  local g = konane.new()
  g:play("d5")
  g:play("e5")
  local move = e:bestmove()
  assert(g:legal(move) == move, tostring(move))
  e:send("stop")
  move = e:bestmove()
  assert(g:legal(move) == move, tostring(move))
  ready_then_quit(e)
end

T["malformed and illegal commands get an error line and the engine keeps going"] = function()
  local e = engine()
  e:send("ugi")
  e:upto("ugiok")
  local bad = { "bogus", "go depth x", "go sideways", "setoption name", "setoption name nosuch value 3",
                "setoption name rows value 99", "query", "query weather", "position", "position middle",
                "position fen", "position fen xoxo/oxoq b", "position startpos moves", string.rep("z", 5000) }
  for _, line in ipairs(bad) do
    e:send(line)
    if line:match("^go") then
      local move, got = e:bestmove()
      assert(move == "0000" and got[1]:match("^info string error: "), line .. ": " .. table.concat(got, " | "))
    elseif line == "position startpos moves" then
      e:send("query p1turn")
      assert(e:line() == "response true", "an empty move list is the start position")
    else
      local l = e:line()
      assert(l:match("^info string error: ") and #l < 400, line:sub(1, 40) .. " -> " .. l)
    end
  end
  answers_and_closes(e)
end

T["control bytes of a bad command are echoed as \\xNN, never raw into the runner's input"] = function()
  local e = engine()
  local cases = { { "seto\0ption name x", "'seto\\x00ption'" }, { "posit\27[2Jion", "'posit\\x1b[2Jion'" },
                  { "position \0fen x", "'\\x00fen'" }, { "go depth \0012", "\\x01" },
                  { "query \127", "\\x7f" } }
  for _, c in ipairs(cases) do
    e:send(c[1])
    local l
    if c[1]:match("^go") then l = select(2, e:bestmove()) else l = { e:line() } end
    local text = table.concat(l, "\n")
    assert(text:find("info string error: ", 1, true) and text:find(c[2], 1, true), c[2] .. " -> " .. text)
    for _, line in ipairs(l) do
      assert(not line:find("[%z\1-\31\127]"), "a raw control byte in: " .. line:gsub("%c", "?"))
    end
  end
  answers_and_closes(e)
end

T["a command file from another editor is served: a byte order mark before ugi, CRLF line ends"] = function()
  local e = engine()
  e:send("\239\187\191ugi\r", "isready\r", "position startpos moves d5 e5\r", "query p1turn\r")
  local got = e:upto("ugiok")
  assert(not table.concat(got, "\n"):find("error"), table.concat(got, "\n"))
  assert(e:line() == "readyok")
  assert(e:line() == "response true")
  -- anywhere else the mark is no white space
  e:send("\239\187\191isready")
  assert(e:line():match("^info string error: unknown command"))
  e:close()
end

T["an error line cut at 300 bytes stays UTF-8: the cut never splits a character"] = function()
  local H = dofile("tests/lua/helpers.lua")
  -- 'é' is two bytes: with or without a leading 'a', one of the two messages has a first half
  -- as its 300th byte, whatever the prefix before it
  for _, lead in ipairs { "", "a" } do
    local path = H.tmpdir() .. "/long_error.lua"
    H.write(path, ([[return { name = "long", choose = function() error("%s" .. string.rep("\195\169", 400)) end }]]):format(lead))
    local e = engine(path)
    e:send("position startpos", "go depth 1")
    local _, got = e:bestmove()
    local text = table.concat(got, "\n")
    local line = text:match("info string error: [^\n]*")
    assert(line and line:find("long_error.lua:1: " .. lead, 1, true), text)
    assert(line:sub(-3) == "...", line:sub(-12))
    assert(utf8.len(line), "not UTF-8: " .. line:sub(-12):gsub("[\128-\255]", "?"))
    e:close()
  end
  -- an answer that is no move is echoed cut to 40 bytes, between characters too (a cut one
  -- was shown as \xc3)
  for _, lead in ipairs { "", "a" } do
    local path = H.tmpdir() .. "/long_answer.lua"
    H.write(path, ([[return { name = "long", choose = function() return "%s" .. string.rep("\195\169", 30) end }]]):format(lead))
    local e = engine(path)
    e:send("position startpos", "go depth 1")
    local _, got = e:bestmove()
    local line = table.concat(got, "\n"):match("info string error: [^\n]*")
    assert(line and line:find("not a legal move", 1, true), table.concat(got, "\n"))
    assert(utf8.len(line) and not line:find("\\x", 1, true), "a cut character: " .. line)
    e:close()
  end
end

T["a line too long is refused once, as a whole: no piece of it runs as a command"] = function()
  local e = engine()
  e:send("ugi")
  e:upto("ugiok")
  -- over twice the limit, so it arrives in pieces: each piece after the first was taken for a
  -- line of its own (another error, or a command: here it would be 'go depth 1 ...')
  e:send(string.rep("go depth 1 ", 300000), "isready")
  local l = e:line()
  assert(l:match("^info string error: line too long"), l)
  l = e:line()
  assert(l == "readyok", "a piece of the long line was served: " .. l:sub(1, 80))
  e:send("position startpos moves d5", "query p1turn")
  assert(e:line() == "response false")
  e:close()
end

T["after a bad position, go and query answer an error, never the old position's move"] = function()
  local e = engine()
  e:send("ugi")
  e:upto("ugiok")
  e:send("position startpos moves d5 d4", "go depth 1")
  assert(e:bestmove() ~= "0000")
  e:send("position startpos moves d5 zz", "go depth 1")
  local move, got = e:bestmove()
  assert(move == "0000", "a move from the stale position: " .. tostring(move))
  assert(table.concat(got, "\n"):find("move 2 'zz' is illegal", 1, true), table.concat(got, "\n"))
  e:send("query p1turn")
  assert(e:line():match("^info string error: query p1turn: no valid position"))
  e:send("position startpos moves d5 a1", "go depth 1")  -- a1 is not next to the hole
  assert(e:bestmove() == "0000")
  e:send("position startpos moves d5 d4", "go depth 1")
  assert(e:bestmove() ~= "0000")
  e:close()
end

T["stop during go infinite answers promptly with a move, and isready is answered during it"] = function()
  -- the search is running (its first iterations are reported) ...
  local e = searching("position startpos")
  e:send("isready")
  local before = e:upto("readyok")
  for _, l in ipairs(before) do assert(not l:match("^bestmove"), "bestmove before stop") end
  e:send("stop")
  local move, got = e:bestmove()
  for i = 1, #got - 1 do assert(not got[i]:match("^bestmove"), "two bestmoves") end
  assert(konane.new():legal(move) == move, tostring(move))
  -- and it goes on serving
  e:send("position startpos moves " .. move, "query p1turn")
  assert(e:line() == "response false")
  e:send("quit")
  assert(e:wait_exit() == "exit")
  e:close()
end

T["quit during a search ends the engine"] = function()
  local e = engine("mcts")
  e:send("ugi")
  e:upto("ugiok")
  e:send("position startpos", "go infinite", "isready")
  e:upto("readyok")
  e:send("quit")
  assert(e:wait_exit() == "exit")
  e:close()
end

T["a bot file is served in a locked-down state: no io, os, package, debug or bytecode"] = function()
  local e = engine("tests/lua/fixtures/ugi_lockdown.lua")
  e:send("ugi")
  local got = e:upto("ugiok")
  assert(got[1] == "id name locked", got[1])
  e:send("isready")
  local lines = e:upto("readyok")
  assert(#lines == 1, "the bot reported: " .. table.concat(lines, " | "))
  e:send("position startpos", "go movetime 100")
  local move = e:bestmove()
  assert(move == konane.new():moves()[1], move)
  e:close()
end

T["a bot file that fails to load reports it at isready and answers go with an error"] = function()
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write("error('broken on purpose')")
  f:close()
  local e = engine(path)
  e:send("ugi")
  e:upto("ugiok")
  e:send("isready")
  local l = e:line()
  assert(l:match("^info string error: the bot cannot start: .*broken on purpose"), l)
  assert(not l:find(path, 1, true), "the error shows the host's path: " .. l)
  assert(e:line() == "readyok")
  e:send("position startpos", "go depth 1")
  assert(e:bestmove() == "0000")
  e:close()
  os.remove(path)
end

T["a stop in a bot written in Lua ends its search with a legal move"] = function()
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write("return { name = 'thinker', choose = function(_, g) local x = 0 while true do x = x + 1 end end }")
  f:close()
  local e = engine(path)
  e:send("ugi")
  e:upto("ugiok")
  e:send("position startpos", "go infinite", "isready")
  e:upto("readyok")
  e:send("stop")
  local move = e:bestmove()
  assert(konane.new():legal(move) == move, move)
  e:close()
  os.remove(path)
end

T["the stop option ends search, solve and mcts with their result so far"] = function()
  local g = konane.new()
  local calls = 0
  local r = g:search { time = 1e6, stop = function() calls = calls + 1; return calls >= 3 end }
  assert(calls == 3 and r.stopped == true and g:legal(r.move) == r.move)
  calls = 0
  r = g:mcts { time = 1e6, stop = function() calls = calls + 1; return calls >= 3 end }
  assert(calls == 3 and g:legal(r.move) == r.move)
  calls = 0
  r = g:solve { time = 1e6, stop = function() calls = calls + 1; return calls >= 3 end }
  assert(calls == 3 and r.win == nil)
  local ok, err = pcall(g.search, g, { time = 1e6, stop = function() error("stop raised") end })
  assert(not ok and err:find("stop raised"), err)
  ok, err = pcall(g.search, g, { depth = 1, stop = 3 })
  assert(not ok and err:find("'stop' must be a function"), err)
  assert(g:ply() == 0)
end

T["every built-in bot serves moves over UGI, seeded or not"] = function()
  for _, spec in ipairs { "random", "greedy", "alphabeta:depth=2", "mcts:playouts=50", "solver:time=0.05" } do
    local e = engine(spec)
    e:send("ugi", "setoption name rows value 6", "setoption name cols value 6", "uginewgame",
           "position startpos moves c4", "go movetime 50")
    local move, got = e:bestmove()
    local g = konane.new { rows = 6, cols = 6 }
    g:play("c4")
    assert(g:legal(move) == move, spec .. ": " .. table.concat(got, " | "))
    for _, l in ipairs(got) do assert(not l:find("error"), spec .. ": " .. l) end
    e:close()
  end
end

return T
