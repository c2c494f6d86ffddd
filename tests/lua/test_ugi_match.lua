-- Complete matches between `konane --ugi` engines run the way game-agnostic UGI match runners
-- (cutegames) run them, trusting the engines for the rules; and the Python example engine in a
-- tournament of the konane referee.
local konane = require "konane"

-- A test run beside a busy benchmark can get a few percent of a core: a Python engine then took
-- over 10 s (the default) to answer its handshake. The deadline guards against a hang here; it
-- is no measure of speed (a test of the handshake deadline sets its own).
require("konane.ugi.player").defaults.startup = 300
local core = konane.core
local S = dofile("tests/lua/ugi_session.lua")

local T = {}

-- What a runner does with one engine at the start (shared guide ugi.md): ugi, wait for ugiok,
-- send the options, isready, wait for readyok.
local function open_engine(spec, options)
  local e = S.start(S.engine_argv(spec))
  e:send("ugi")
  local _, last = e:upto("ugiok")
  assert(last == "ugiok")
  for k, v in pairs(options) do e:send("setoption name " .. k .. " value " .. v) end
  e:send("isready")
  e:upto("readyok")
  return e
end

local function ask(e, what)
  e:send("query " .. what)
  local l = e:line()
  return assert(l and l:match("^response (%S+)$"), "no response to query " .. what .. ": " .. tostring(l))
end

-- One game the runner's way: before each move it resends the whole game, asks p1turn and
-- gameover, then go; it appends the two-word bestmove without checking it. At the end it asks
-- both engines gameover and result. Returns the moves and the agreed result.
local function runner_game(p1, p2, start)
  start = start or "startpos"
  for _, e in ipairs { p1, p2 } do e:send("uginewgame", "isready"); e:upto("readyok") end
  local moves = {}
  for _ = 1, 400 do
    local pos = "position " .. start .. (#moves > 0 and (" moves " .. table.concat(moves, " ")) or "")
    p1:send(pos)
    local turn = ask(p1, "p1turn")
    if ask(p1, "gameover") == "true" then break end
    local e = turn == "true" and p1 or p2
    if e ~= p1 then e:send(pos) end
    e:send("go p1time 60000 p2time 60000 p1inc 0 p2inc 0")
    local _, last = e:upto(function(l) return l:match("^bestmove ") ~= nil end)
    local words = {}
    for w in last:gmatch("%S+") do words[#words + 1] = w end
    assert(#words == 2, "bestmove line of two words expected: " .. last)
    moves[#moves + 1] = words[2]
  end
  local results = {}
  for i, e in ipairs { p1, p2 } do
    e:send("position " .. start .. " moves " .. table.concat(moves, " "))
    assert(ask(e, "gameover") == "true")
    results[i] = ask(e, "result")
  end
  assert(results[1] == results[2], "the engines disagree: " .. results[1] .. " / " .. results[2])
  return moves, results[1]
end

T["a runner trusting the engines plays complete matches between konane --ugi engines"] = function()
  local opts = { rows = 6, cols = 6 }
  local a = open_engine("alphabeta:depth=2", opts)
  local b = open_engine("random", { rows = 6, cols = 6, seed = 3 })
  local score = { a = 0, b = 0 }
  for game = 1, 4 do
    local p1, p2 = a, b
    if game % 2 == 0 then p1, p2 = b, a end
    local moves, result = runner_game(p1, p2)
    -- the referee's rules agree with what the engines played and claimed
    local g = konane.new { rows = 6, cols = 6 }
    for i, m in ipairs(moves) do
      assert(g:legal(m) == m, "move " .. i .. " '" .. m .. "' is not canonical and legal")
      g:play(m)
    end
    assert(g:over())
    assert(result == (g:winner() == "black" and "p1win" or "p2win"))
    local winner_is_p1 = result == "p1win"
    local a_won = (p1 == a) == winner_is_p1
    score[a_won and "a" or "b"] = score[a_won and "a" or "b"] + 1
  end
  assert(score.a + score.b == 4)
  -- from an opening given as a position (position fen OPENING moves ...), as runners do with
  -- an openings book
  local g0 = konane.new { rows = 6, cols = 6 }
  for _, m in ipairs { "c4", "c3", "a4-c4" } do g0:play(m) end
  local moves, result = runner_game(b, a, "fen " .. g0:fen())
  local g = konane.new { fen = g0:fen() }
  assert(g:turn() == "white")
  for i, m in ipairs(moves) do
    assert(g:legal(m) == m, "move " .. i .. " '" .. m .. "' is not canonical and legal")
    g:play(m)
  end
  assert(g:over() and result == (g:winner() == "black" and "p1win" or "p2win"))
  for _, e in ipairs { a, b } do e:send("quit"); assert(e:wait_exit() == "exit"); e:close() end
end

T["the Python example engine plays a tournament of the konane referee"] = function()
  local dir = os.tmpname()
  os.remove(dir)
  -- an external engine plays in a worker process even with one worker: startup = 300 is its
  -- handshake's hang guard there (the 10 s default failed a landing's make test run beside a
  -- two-worker benchmark, where python3 alone took 10-13 s to start)
  local res = konane.tournament.run { bots = { "ugi:python3 examples/ugi/konane_bot.py", "random" },
                                      rows = 6, cols = 6, games = 4, time = 2, out = dir,
                                      workers = 1, startup = 300, progress = false }
  assert(res.complete and res.games == 4, "games " .. tostring(res.games))
  for _, r in ipairs(konane.pgn.read_file(dir .. "/games.pgn")) do
    assert(r.termination == "normal", tostring(r.reason))
    assert((r.black .. r.white):find("konane_bot.py", 1, true), r.black .. " - " .. r.white)
  end
  os.execute("rm -rf '" .. dir .. "'")
  assert(core.clock())
end

return T
