-- Bots and konane.play: the bot interface, the built-in bots, the example bots, and every way a
-- bot can lose a game (issue: bots, variants and records).
local konane = require "konane"

local T = {}

-- Replaying a record must reach a finished game with the recorded winner.
local function check_record(rec)
  local g = konane.pgn.replay(rec)
  if rec.termination == "normal" then
    assert(g:over(), "a normally finished game is over")
    assert(g:winner() == rec.winner)
  end
  assert(rec.result == (rec.winner == "black" and "1-0" or "0-1"))
  return g
end

local function scripted(name, answers)
  local i = 0
  return { name = name, new_game = function() i = 0 end, choose = function(_, game)
    i = i + 1
    local a = answers[i]
    if type(a) == "function" then return a(game) end
    if a == nil then return game:moves()[1] end
    return a
  end }
end

T["konane.bot builds every built-in bot from a one-line spec"] = function()
  for _, spec in ipairs { "random", "random:seed=3", "greedy", "alphabeta:depth=2",
                          "alphabeta:depth=3,time=0.1", "mcts:time=0.05", "mcts:playouts=20,c=0.7",
                          "solver:time=0.1", "human" } do
    local b = konane.bot(spec)
    assert(type(b.choose) == "function" and type(b.name) == "string", spec)
  end
  local list = konane.bot and require("konane.bot").list()
  assert(#list == 6)
  for _, info in ipairs(list) do assert(info.description and info.description ~= "") end
end

T["a built-in bot's spec may name a weights file by its path (alphabeta:weights=dir/w.lua)"] = function()
  local H = dofile("tests/lua/helpers.lua")
  local dir = H.tmpdir()
  H.write(dir .. "/w.lua", "return { mobility = 100, movers = 77 }")
  for _, spec in ipairs { "alphabeta:depth=2,weights=" .. dir .. "/w.lua", "alphabeta:weights=" .. dir .. "/w.lua,depth=2" } do
    local head, opts, is_path = require("konane.bot").parse_spec(spec)
    assert(head == "alphabeta" and not is_path and opts.weights == dir .. "/w.lua" and opts.depth == 2, spec)
    local b = konane.bot(spec)
    assert(b.builtin, spec .. " should be the built-in alphabeta")
    local rec = konane.play(b, "random", { rows = 6, cols = 6, seed = 1 })
    assert(rec.termination == "normal", rec.reason)
  end
  -- a file bot named like a path with options stays a file bot
  local _, _, is_path = require("konane.bot").parse_spec(dir .. "/mybot.lua:depth=2")
  assert(is_path)
  local ok, err = pcall(konane.bot, "alphabeta:weights=" .. dir .. "/none.lua")
  assert(not ok and tostring(err):find("none.lua", 1, true) and tostring(err):find("weights", 1, true), tostring(err))
  -- a set the search would refuse is refused when the bot is made, not at every move
  for body, want in pairs { ["return { mobility = 100, bogus = 3 }"] = "unknown weight 'bogus'",
                            ["return { movers = 20000 }"] = "weight 'movers' must be a number",
                            ["return { mobility = 0/0 }"] = "weight 'mobility' must be a number",
                            ["return { tempo = 'x' }"] = "weight 'tempo' must be a number" } do
    H.write(dir .. "/bad.lua", body)
    local ok2, err2 = pcall(konane.bot, "alphabeta:weights=" .. dir .. "/bad.lua")
    assert(not ok2 and tostring(err2):find(want, 1, true), body .. ": " .. tostring(err2))
  end
  -- a file that does not load, raises or loops says why (named with its line, the whole message
  -- kept); only a file that runs and returns something else "does not return a table"
  for body, want in pairs { ["syntax error here("] = "bad.lua:1: ",
                            ["\nlocal x = os.time() return {}"] = "bad.lua:2: ",
                            ["local t = nil return t.x"] = "bad.lua:1: attempt to index",
                            ["while true do end"] = "runs too long",
                            -- it allocated 256 MB in the caller's process and was accepted
                            ["local s = 'x' for _ = 1, 28 do s = s .. s end return { movers = #s % 7 }"]
                              = "uses too much memory",
                            ["return 42"] = "does not return a table" } do
    H.write(dir .. "/bad.lua", body)
    local ok2, err2 = pcall(konane.bot, "alphabeta:weights=" .. dir .. "/bad.lua")
    err2 = tostring(err2)
    assert(not ok2 and err2:find(want, 1, true) and err2:find("^bad option weights for bot 'alphabeta' %("),
      body .. ": " .. err2)
    assert(want == "does not return a table" or not err2:find("does not return", 1, true), err2)
  end
  -- the limit holds during the call only: results and errors pass through, memory is normal after
  local call_limited = konane.core.call_limited
  local r = table.pack(call_limited(1 << 20, function(a, b) return a + b, "x" end, 2, 3))
  assert(r.n == 3 and r[1] == true and r[2] == 5 and r[3] == "x")
  r = table.pack(call_limited(1 << 20, error, "boom", 0))
  assert(r.n == 2 and r[1] == false and r[2] == "boom")
  assert(select(2, call_limited(1 << 20, string.rep, "x", 4 << 20)) == "not enough memory")
  assert(#("x"):rep(64 << 20) == 64 << 20)
  assert(konane.bot("alphabeta:movers=-10000,mobility=10000"))
  H.cleanup()
end

T["konane.bot rejects unknown bots, unknown options and bad values with clear errors"] = function()
  local cases = {
    { "nosuchbot", "unknown bot 'nosuchbot'" },
    { "alphabeta:dpth=3", "unknown option 'dpth' for bot 'alphabeta'" },
    { "alphabeta:depth=-1", "bad option depth=%-1" },
    { "mcts:time=fast", "bad option time=fast" },
    { "random:seed=x", "bad option seed=x" },
    { "no/such/file.lua", "cannot load bot 'no/such/file.lua'" },
    { 42, "bot table or spec string expected" },
    { {}, "no choose function" },
    { "bad name!", "bad bot spec" },
  }
  for _, case in ipairs(cases) do
    local ok, err = pcall(konane.bot, case[1])
    assert(not ok, "no error for " .. tostring(case[1]))
    assert(tostring(err):find(case[2]), "'" .. tostring(err) .. "' should say '" .. case[2] .. "'")
  end
end

T["a bot table is used as it is"] = function()
  local b = { name = "mine", choose = function(_, g) return g:moves()[1] end }
  assert(konane.bot(b) == b)
  local rec = konane.play(b, "random:seed=1", { seed = 2 })
  assert(rec.tags.Black == "mine" and rec.black == "mine")
  check_record(rec)
end

T["seeded games repeat move for move"] = function()
  for _, pair in ipairs { { "random", "random" }, { "greedy", "random" }, { "mcts:playouts=30", "greedy" } } do
    local a = konane.play(pair[1], pair[2], { seed = 11, rows = 6, cols = 6, comments = false })
    local b = konane.play(pair[1], pair[2], { seed = 11, rows = 6, cols = 6, comments = false })
    assert(table.concat(a.moves, " ") == table.concat(b.moves, " "), pair[1] .. " vs " .. pair[2])
    local c = konane.play(pair[1], pair[2], { seed = 12, rows = 6, cols = 6, comments = false })
    check_record(c)
  end
  local r1 = konane.play("random:seed=5", "random:seed=6")
  local r2 = konane.play("random:seed=5", "random:seed=6")
  assert(table.concat(r1.moves, " ") == table.concat(r2.moves, " "))
end

T["every built-in bot finishes seeded games with legal moves on several boards"] = function()
  local specs = { "random", "greedy", "alphabeta:depth=2", "alphabeta:time=0.02",
                  "mcts:playouts=40", "solver:time=0.02" }
  for i, spec in ipairs(specs) do
    for j, size in ipairs { { 6, 6 }, { 5, 7 } } do
      local rec = konane.play(spec, specs[(i % #specs) + 1],
        { seed = i * 10 + j, rows = size[1], cols = size[2], variant = "free" })
      assert(rec.termination == "normal", spec .. ": " .. tostring(rec.reason))
      check_record(rec)
    end
  end
end

T["greedy beats random most of the time and alphabeta beats greedy"] = function()
  local wins = 0
  for seed = 1, 10 do
    local rec = konane.play(seed % 2 == 0 and "greedy" or "random", seed % 2 == 0 and "random" or "greedy",
      { seed = seed, rows = 6, cols = 6 })
    local greedy_side = seed % 2 == 0 and "black" or "white"
    if rec.winner == greedy_side then wins = wins + 1 end
  end
  assert(wins >= 6, "greedy won only " .. wins .. " of 10 against random")
  local ab = 0
  for seed = 1, 4 do
    local black = seed % 2 == 0 and "alphabeta:depth=4" or "greedy"
    local white = seed % 2 == 0 and "greedy" or "alphabeta:depth=4"
    local rec = konane.play(black, white, { seed = seed, rows = 6, cols = 6 })
    if (rec.winner == "black") == (seed % 2 == 0) then ab = ab + 1 end
  end
  assert(ab >= 3, "alphabeta won only " .. ab .. " of 4 against greedy")
end

T["greedy reports its move in the search's units: 100 a move of mobility, a win as a win in 1"] = function()
  -- each of greedy's comments, checked against the mobility difference counted after the move
  local format = require("konane.repl.format")
  local about = require("konane.repl.match").about
  local wins = 0
  for seed = 1, 6 do
    local greedy_black = seed % 2 == 1
    local rec = konane.play(greedy_black and "greedy" or "random", greedy_black and "random" or "greedy",
      { seed = seed, rows = 6, cols = 6 })
    local g = konane.new { rows = 6, cols = 6 }
    for i, move in ipairs(rec.moves) do
      local me = g:turn()
      g:play(move)
      local c = rec.comments[i]
      assert(not c:find("inf"), c)
      if (i % 2 == 1) == greedy_black then
        local score = assert(math.tointeger(tonumber(c:match("score=(%-?%d+)"))), c)
        assert(c:find("depth=1", 1, true), c)
        if g:over() then
          wins = wins + 1
          assert(score == 29999 and c:find("win=true", 1, true) and c:find("plies=1", 1, true), c)
          assert(format.score(score) == "win in 1")
          assert(about({ score = score, depth = 1 }, 0):find("win in 1", 1, true))
        else
          assert(score == 100 * (g:nmoves(me) - g:nmoves()), c .. " after " .. move)
          assert(not c:find("win=", 1, true), c)
        end
      end
    end
  end
  assert(wins >= 1, "greedy won none of 6 games against random")
end

T["the solver plays a proven position perfectly"] = function()
  -- 4x4 with the centre pair removed: the second player (White) wins with perfect play
  for _, black in ipairs { "random", "greedy", "alphabeta:depth=3" } do
    local rec = konane.play(black, "solver:time=0.5", { variant = "odd_centre", rows = 4, cols = 4, seed = 1 })
    assert(rec.winner == "white", black .. " beat the solver on 4x4")
  end
end

T["an illegal move, an error, a bad answer or a resignation loses the game with its reason"] = function()
  local cases = {
    { scripted("illegal", { "a1-a9" }), "illegal move", "no such square" },
    { scripted("wrong", { "h8" }), "illegal move", "h8" },
    { { name = "raiser", choose = function() error("boom") end }, "error", "boom" },
    { { name = "nil", choose = function() end }, "bad answer", "nil" },
    { scripted("number", { 42 }), "bad answer", "number" },
    { scripted("table", { {} }), "bad answer", "table" },
    { scripted("resigner", { "resign" }), "resignation", "resigned" },
    { { name = "bad new_game", new_game = function() error("no thanks") end,
        choose = function(_, g) return g:moves()[1] end }, "error", "new_game: .*no thanks" },
  }
  for _, case in ipairs(cases) do
    for _, as_black in ipairs { true, false } do
      local black = as_black and case[1] or "random:seed=1"
      local white = as_black and "random:seed=1" or case[1]
      local rec = konane.play(black, white, { seed = 1 })
      local side = as_black and "black" or "white"
      local other = as_black and "white" or "black"
      assert(rec.winner == other, case[1].name .. " as " .. side .. " should lose")
      assert(rec.termination == case[2], case[1].name .. ": termination " .. tostring(rec.termination))
      assert(tostring(rec.reason):find(case[3]), case[1].name .. ": reason " .. tostring(rec.reason))
      local text = konane.pgn.write(rec)
      assert(text:find('[Termination "' .. case[2] .. '"]', 1, true))
      local back = assert(konane.pgn.read(text))[1]
      assert(back.winner == other and back.termination == case[2])
      check_record(rec)
    end
  end
end

T["g:clone(into) copies a game into an earlier clone; a built-in bot's copy never moves the referee"] = function()
  local g = konane.new { rows = 6, cols = 6 }
  for _ = 1, 3 do g:play(g:moves()[1]) end
  local v = g:clone()
  v:undo(); v:undo()
  assert(g:clone(v) == v and v == g and v:ply() == 3)
  assert(table.concat(v:history(), " ") == table.concat(g:history(), " "))
  v:play(v:moves()[1])
  assert(g:ply() == 3 and v:ply() == 4, "the copy is independent")
  local ok, err = pcall(g.clone, g, konane.new { rows = 4, cols = 4 })
  assert(not ok and tostring(err):find("a clone of this game expected", 1, true), tostring(err))
  -- a built-in bot that leaves moves played on its copy: the next copy is the real position
  local random = konane.bot("random:seed=3")
  local choose = random.choose
  random.choose = function(b, game, clock)
    local m = choose(b, game, clock)
    local mine = game:clone()
    game:play(game:moves()[1]) -- left on the copy
    assert(mine:ply() == game:ply() - 1)
    return m
  end
  local rec = konane.play(random, "greedy", { rows = 6, cols = 6, seed = 1 })
  assert(rec.termination == "normal", tostring(rec.reason))
  local replay = konane.pgn.replay(rec)
  assert(replay:over() and replay:ply() == #rec.moves)
end

T["a bot answering a table with a move field and a comment is accepted"] = function()
  local b = { name = "tabular", choose = function(_, g) return { move = g:moves()[1], score = 7 } end }
  local rec = konane.play(b, "greedy", { seed = 1 })
  assert(rec.termination == "normal")
  assert(rec.comments[1]:find("score=7"))
end

T["a bot that loops or overruns its time loses on time and the game goes on"] = function()
  local looper = { name = "looper", choose = function() while true do end end }
  -- the well-behaved side is not timed: a stall of the test's own process (a loaded machine)
  -- must not make it lose first
  local function untimed(spec)
    local b = konane.bot(spec)
    b.untimed = true
    return b
  end
  local rec = konane.play(untimed("greedy"), looper, { time = 0.1, seed = 1 })
  assert(rec.winner == "black" and rec.termination == "time forfeit", tostring(rec.reason))
  assert(#rec.moves == 1)
  local sleeper = { name = "slow", choose = function(_, g)
    local t = konane.core.clock()
    while konane.core.clock() - t < 0.05 do end
    return g:moves()[1]
  end }
  rec = konane.play(sleeper, untimed("random"), { game_time = 0.12, seed = 1 })
  assert(rec.winner == "white" and rec.termination == "time forfeit", tostring(rec.reason))
  assert(#rec.moves <= 4, "three moves of 0.05 s overdraw 0.12 s: " .. #rec.moves .. " moves")
  -- and konane still works afterwards
  assert(#konane.new():moves() == 4)
end

-- A bot whose first move spins for 'first' seconds of the referee's clock; later moves are quick.
local function slow_start(first)
  local n = 0
  return { name = "slow-start", choose = function(_, g)
    n = n + 1
    if n == 1 then
      local t = konane.core.clock()
      while konane.core.clock() - t < first do end
    end
    return g:moves()[1]
  end }
end

T["a move within its time plus the margin counts, and the clock pays the real time"] = function()
  -- 0.06 s against 0.01 s per move (+ the grace of 10.5 ms): a loss without a margin ...
  local rec = konane.play(slow_start(0.06), "greedy", { time = 0.01, seed = 1 })
  assert(rec.termination == "time forfeit" and rec.forfeit == "black", tostring(rec.reason))
  -- ... a move that counts with a margin of 30 s
  rec = konane.play(slow_start(0.06), "greedy", { time = 0.01, margin = 30, seed = 1 })
  assert(rec.termination == "normal", tostring(rec.reason))
  assert(#rec.moves > 2)
  -- a chess clock overdrawn within the margin: the game goes on, the clock shows the real time
  -- used (below zero), and the next moves get no time but the grace and the margin
  rec = konane.play(slow_start(0.06), "greedy", { tc = "0.05", margin = 30, seed = 1 })
  assert(rec.termination == "normal", tostring(rec.reason))
  assert(rec.clock.black < -0.009, tostring(rec.clock.black))
  assert(rec.times.black >= 0.06)
  -- the margin is checked like the other times
  for _, bad in ipairs { -1, "1", 0 / 0, 1e10 } do
    local ok, err = pcall(konane.play, "random", "random", { margin = bad })
    assert(not ok and tostring(err):find("bad option 'margin'", 1, true), tostring(err))
  end
end

T["the built-in bots give every search a time limit within the move's budget"] = function()
  -- The mechanism, not the machine: each search, solve or playout run a built-in bot starts is
  -- seen through a proxy of the game, and its time limit must be inside konane.bot.budget of the
  -- clock the referee passes (no wall-clock time is measured).
  local budget = require("konane.bot").budget
  assert(math.abs(budget({ time = 0.1 }) - 0.065) < 1e-12)
  -- a game clock: a reserve of 0.1 s and 2 ms for each of the 15 moves to go are kept back
  assert(math.abs(budget({ game_time = 0.6 }) - (0.6 - 0.1 - 0.03) / 15) < 1e-12)
  assert(budget({ time = 0.1 }, 0.02) == 0.02 and budget({ time = 0.001 }) == 0.001)
  assert(budget(nil) == nil and budget({}, 0.5) == 0.5)
  assert(math.abs(budget({ time = 0.1 }, nil, 0.9) - 0.085) < 1e-12)
  local shares = { alphabeta = require("konane.bots.alphabeta").SHARE }
  local function proxy(g, calls)
    return setmetatable({}, { __index = function(_, k)
      local f = g[k]
      if type(f) ~= "function" then return f end
      return function(_, opts, ...)
        if k == "search" or k == "solve" or k == "mcts" then calls[#calls + 1] = { k, opts } end
        return f(g, opts, ...)
      end
    end })
  end
  local clocks = {
    { time = 0.1, grace = 0.015, ply = 1 },                                       -- per move
    { time = 0.5, game_time = 0.5, increment = 0, opponent_time = 0.5, ply = 1 }, -- chess clock
  }
  for _, spec in ipairs { "alphabeta", "mcts", "solver", "alphabeta:time=5", "mcts:time=5", "solver:time=5" } do
    for ci, clock in ipairs(clocks) do
      local b = konane.bot(spec)
      local g = konane.new { rows = 5, cols = 5, variant = "centre_corner" }
      g:play(g:moves()[1])
      g:play(g:moves()[1])
      local calls = {}
      local move = b:choose(proxy(g:clone(), calls), clock)
      assert(g:legal(move), spec .. ": " .. tostring(move))
      assert(#calls > 0, spec .. " started no search")
      local cap = budget(clock.game_time and { time = clock.time } or clock, nil,
                         shares[spec:match("^%a+")])
      if clock.game_time then cap = math.min(cap, clock.game_time) end
      for _, c in ipairs(calls) do
        local what, opts = c[1], c[2]
        local limit = opts.time or opts.game_time
        assert(type(limit) == "number" and limit > 0 and limit <= cap + 1e-9,
          string.format("%s, clock %d: %s with time %s (budget %g)", spec, ci, what, tostring(limit), cap))
        if opts.game_time then assert(opts.game_time < clock.game_time) end
      end
    end
  end
end

T["konane.bot.budget keeps a reserve on a game clock: a bot over its limits by 5 ms a move lasts a long game"] = function()
  -- A bot that spends its whole budget and 5 ms more every move (its clock checks every few
  -- thousand nodes, the answer's way back) on 12x12 at 1 s a game, sudden death, for the
  -- longest game the board allows: the budget was 1/15 of the clock left, with nothing kept
  -- back, and such a bot lost on time at its 39th move (the solver bot lost every game there).
  local budget = require("konane.bot").budget
  local function pieces_game(n) -- a stand-in for a game with n pieces on the board
    return { count = function(_, side) return side == "black" and n // 2 or n - n // 2 end }
  end
  for _, tc in ipairs { { 1, 0, 12 }, { 1, 0, 10 }, { 0.5, 0, 8 }, { 0.2, 0.01, 10 } } do
    local left, inc, size = tc[1], tc[2], tc[3]
    local least = left
    local pieces = size * size - 2
    for _ = 1, (size * size - 2) // 2 do
      local t = budget({ time = left, game_time = left, increment = inc }, 1.0, nil, pieces_game(pieces))
      assert(t >= 0.001 and t <= left)
      left = left - t - 0.005
      if left < least then least = left end
      left = left + inc
      pieces = pieces - 2
    end
    assert(least > 0.02, string.format("%g+%g on %dx%d: the clock went down to %.3f s", tc[1], inc, size, size, least))
  end
  -- below the reserve the increment is only partly spent, so the clock climbs back
  local t = budget({ game_time = 0.05, increment = 0.01 }, 1.0)
  assert(t < 0.01 and t > 0.001, tostring(t))
end

-- A stand-in for game 'g' that calls on_call(name, opts) before each of its methods runs.
local function watched(g, on_call)
  return setmetatable({}, { __index = function(_, k)
    local f = g[k]
    if type(f) ~= "function" then return f end
    return function(_, opts, ...)
      on_call(k, opts)
      return f(g, opts, ...)
    end
  end })
end

T["the solver bot keeps its proof table between moves and bounds a short proof in nodes"] = function()
  -- A fresh 16 MB table for every solve cost 4-50 ms a move (page faults) past the move's limit;
  -- and the solve looks at the clock every 4096 nodes. Seen through a proxy of the game: the
  -- same table every move (cleared for a new board), and after the first solve a node bound.
  local calls = {}
  local function proxy(g)
    return watched(g, function(k, opts) if k == "solve" then calls[#calls + 1] = opts end end)
  end
  local b = konane.bot("solver")
  local g = konane.new { rows = 10, cols = 10 }
  for _ = 1, 12 do g:play(g:moves()[1]) end
  for _ = 1, 3 do
    local m = b:choose(proxy(g:clone()), { time = 0.1, game_time = 0.1, increment = 0.01, ply = g:ply() + 1 })
    g:play(m)
    g:play(g:moves()[1])
  end
  assert(#calls == 3)
  assert(calls[1].table and calls[1].table == calls[2].table and calls[2].table == calls[3].table,
    "the solve gets the bot's own table every move")
  assert(calls[1].hash_mb == nil)
  for i = 2, 3 do
    assert(math.type(calls[i].nodes) == "integer" and calls[i].nodes >= 256,
      "a later solve has a node bound: " .. tostring(calls[i].nodes))
  end
  -- a board of another size: the same table, cleared (its positions would not be this board's)
  local h = konane.new { rows = 6, cols = 6 }
  h:play(h:moves()[1]); h:play(h:moves()[1])
  local t = calls[1].table
  local cleared = false
  local mt = getmetatable(t)
  local clear = mt.__index.clear
  mt.__index.clear = function(self, ...) if self == t then cleared = true end return clear(self, ...) end
  local ok, err = pcall(b.choose, b, proxy(h:clone()), { time = 0.1, game_time = 0.1, increment = 0.01, ply = 3 })
  mt.__index.clear = clear
  assert(ok, tostring(err))
  assert(cleared and calls[4].table == t)
end

T["the solver bot counts how far its moves overran their budget for every move still to play"] = function()
  -- Its proof and search look at the clock every few thousand nodes (5-20 ms a move on 12x12
  -- under load): over UGI at 1 s a game it lost 2 of 6 games on time with 2 ms a move counted.
  -- A move that overruns by 50 ms (a clock that jumps while it searches) makes the next one plan
  -- with that overrun on each move to play; nothing of the wall clock is measured.
  local util = require("konane.util")
  local real_now, jump = util.now, 0
  util.now = function() return real_now() + jump end
  local limits = {}
  local function proxy(g)
    return watched(g, function(k, opts)
      if k == "solve" then limits[#limits + 1] = opts.time end
      if k == "search" then jump = jump + 0.05 end
    end)
  end
  local ok, err = pcall(function()
    local b = konane.bot("solver")
    local g = konane.new { rows = 10, cols = 10 }
    for _ = 1, 12 do g:play(g:moves()[1]) end
    local clock = { time = 1, game_time = 1, increment = 0, ply = 13 }
    b:choose(proxy(g:clone()), clock)
    b:choose(proxy(g:clone()), clock)
  end)
  util.now = real_now
  assert(ok, tostring(err))
  assert(#limits == 2 and limits[2] < limits[1] / 2,
    ("the second move's proof got %s s, the first %s s"):format(tostring(limits[2]), tostring(limits[1])))
end

T["the alphabeta bot keeps back three times how late its answers were, down to 0.7 x the limit, and starts at 0.7 x"] = function()
  -- fake clocks: each search seems to take 'took' seconds of wall time and 'cpu' of CPU time
  -- (no wall-clock time is measured)
  local ab = require("konane.bots.alphabeta")
  local real_clock, real_cpu = ab.clock, ab.cpu
  local now, took, cputime, cpu = 0, 0, 0, 0
  ab.clock = function() now = now + took; return now end
  ab.cpu = function() cputime = cputime + cpu; return cputime end
  local ok, err = pcall(function()
    local b = konane.bot("alphabeta")
    local g = konane.new { rows = 5, cols = 5, variant = "centre_corner" }
    g:play(g:moves()[1])
    g:play(g:moves()[1])
    local times = {}
    local proxy = setmetatable({}, { __index = function(_, k)
      local f = g[k]
      if type(f) ~= "function" then return f end
      return function(_, opts, ...)
        if k == "search" then times[#times + 1] = opts.time end
        return f(g, opts, ...)
      end
    end })
    local function move(t, c)
      took, cpu = t, c or t
      b:choose(proxy, { time = 0.1, grace = 0.015, ply = 3 })
    end
    local function near(i, v) assert(math.abs(times[i] - v) < 1e-9, i .. ": " .. times[i]) end
    local full = 0.1 * ab.SHARE - 0.005 -- the full share at 0.1 s (0.09 s)
    assert(full > 0.085 and full < 0.095, full)
    move(0.065) -- the first move, nothing measured yet: the floor, 0.7 x the limit - 5 ms
    move(full) -- on time, the CPU all its own: the next move keeps the full share
    move(full)
    near(1, 0.065)
    near(2, full)
    near(3, full)
    move(full + 0.005) -- 5 ms late: 15 ms kept back
    move(0)
    near(5, 0.1 - 0.005 - 0.015)
    move(0.3) -- very late: the other bots' share, 0.7 x the limit - 5 ms
    move(0)
    near(7, 0.065)
    for _ = 1, 80 do move(0) end -- answers on time again: back to the full share
    near(#times, full)
    move(full, full - 0.01) -- on time, but 10 ms off the CPU: 5 ms counted late
    move(0)
    near(#times, 0.1 - 0.005 - 0.015)
    -- two threads: CPU time up to twice the wall time; one core's worth is enough
    b = konane.bot("alphabeta:threads=2")
    move(0.065, 0.065) -- a new bot: its first move at the floor again
    near(#times, 0.065)
    for _ = 1, 3 do move(full, full) end
    near(#times, full)
    -- without a move's limit (here: the bot's own 1 s) the prior plays no part
    b = konane.bot("alphabeta")
    b:choose(proxy, { ply = 3 })
    near(#times, 1.0)
  end)
  ab.clock, ab.cpu = real_clock, real_cpu
  assert(ok, err)
end

T["with a game clock the alphabeta bot measures what a move costs beyond its own time and plans with it"] = function()
  -- a fake clock: each move seems to take 30 ms of the bot's wall time; the referee's clock
  -- takes 'cost' more (the way there and back)
  local ab = require("konane.bots.alphabeta")
  local real_clock = ab.clock
  local now = 0
  ab.clock = function() now = now + 0.03; return now end
  local ok, err = pcall(function()
    local b = konane.bot("alphabeta")
    local g = konane.new {}
    local seen = {}
    local proxy = setmetatable({}, { __index = function(_, k)
      if k == "search" then
        return function(_, o) seen[#seen + 1] = o; return g:search { depth = 1 } end
      end
      local f = g[k]
      if type(f) ~= "function" then return f end
      return function(_, ...) return f(g, ...) end
    end })
    local left, inc = 1, 0.01
    local function move(cost)
      b:choose(proxy, { game_time = left, increment = inc, time = math.huge })
      left = left - 0.03 - cost + inc
      g:play(g:moves()[1])
      g:play(g:moves()[1])
    end
    local function over(i) return seen[i].overhead end
    move(0.02)
    assert(over(1) == nil, "nothing measured before the first move")
    move(0.02)
    assert(math.abs(over(2) - 0.02) < 1e-9, over(2))
    for _ = 1, 4 do move(0.06) end
    assert(over(6) > 0.04 and over(6) < 0.06, over(6)) -- averaged towards the new cost
    for _ = 1, 12 do move(0) end
    assert(over(#seen) < 0.002, over(#seen))
    -- an undo in between (not the bot's next move): not measured
    local before = over(#seen)
    g:undo()
    b:choose(proxy, { game_time = left - 5, increment = inc, time = math.huge })
    assert(over(#seen) == before)
    -- the search's option needs a game clock
    local ok2, e2 = pcall(g.search, g, { depth = 1, overhead = 0.01 })
    assert(not ok2 and e2:find("option 'overhead' needs 'game_time'", 1, true), e2)
  end)
  ab.clock = real_clock
  assert(ok, err)
end

T["an opening is played first and recorded, and an illegal one raises"] = function()
  local rec = konane.play("greedy", "greedy", { opening = "1. d5 e5 2. b5-d5", seed = 1 })
  assert(rec.moves[1] == "d5" and rec.moves[2] == "e5" and rec.moves[3] == "b5-d5")
  check_record(rec)
  rec = konane.play("greedy", "greedy", { opening = { "E4", "e3" } })
  assert(rec.moves[1] == "e4" and rec.moves[2] == "e3")
  local ok, err = pcall(konane.play, "greedy", "greedy", { opening = "d5 d3" })
  assert(not ok and err:find("opening move 2 'd3' is illegal"), err)
  ok, err = pcall(konane.play, "greedy", "greedy", { time = -1 })
  assert(not ok and err:find("time"), err)
  for _, case in ipairs {
    { { tiem = 1 }, "unknown option 'tiem'" },
    { { seed = 1.5 }, "seed" },
    { { rows = 0 }, "rows" },
    { { variant = "nope" }, "unknown variant 'nope'" },
    { { fen = "xx/oo b" }, "rank 2" },
    { { on_move = 3 }, "on_move" },
  } do
    ok, err = pcall(konane.play, "greedy", "greedy", case[1])
    assert(not ok and err:find(case[2]) and not err:find("%.lua:%d+:"), err)
  end
  ok, err = pcall(konane.play, "greedy", "nosuch")
  assert(not ok and err:find("white bot: unknown bot 'nosuch'"), err)
end

T["new_game, done and on_move are called with the game's information"] = function()
  local seen = {}
  local b = {
    name = "watcher",
    new_game = function(_, info) seen.info = info end,
    choose = function(_, g, clock)
      seen.clock = seen.clock or clock
      return g:moves()[1]
    end,
    done = function(_, result) seen.result = result end,
  }
  local moves = 0
  local rec = konane.play(b, "random", { seed = 9, time = 5, rows = 6, cols = 6, tags = { Round = "3" },
    on_move = function(r, m) moves = moves + 1; assert(r.moves[#r.moves] == m) end })
  assert(seen.info.side == "black" and seen.info.opponent == "random" and seen.info.seed == 9)
  assert(seen.info.rows == 6 and seen.info.variant == "brainking")
  assert(seen.clock.time == 5 and seen.clock.ply == 1)
  assert(seen.result.record == rec and seen.result.won == (rec.winner == "black"))
  assert(moves == #rec.moves)
  assert(rec.tags.Round == "3" and konane.pgn.write(rec):find('[Round "3"]', 1, true))
end

T["the game given to choose is a copy the bot may change"] = function()
  local vandal = { name = "vandal", choose = function(_, g)
    local m = g:moves()[1]
    g:play(m)
    return m
  end }
  local rec = konane.play(vandal, "greedy", { seed = 1 })
  assert(rec.termination == "normal")
  check_record(rec)
end

T["the human bot reads moves, lists them on request and resigns at end of input"] = function()
  local lines = { "moves", "zz", "d5" }
  local out = {}
  assert(konane.bot("human").name == "human")
  local h = require("konane.bots.human").new {
    input = function() return table.remove(lines, 1) end,
    output = function(s) out[#out + 1] = s end,
  }
  local rec = konane.play(h, "greedy", { seed = 1 })
  local text = table.concat(out)
  assert(rec.moves[1] == "d5")
  assert(text:find("a8 d5 e4 h1") or text:find("h1"), "the legal moves were listed")
  assert(text:find("illegal move 'zz'"))
  assert(rec.termination == "resignation" and rec.winner == "white")
end

T["the example bots keep a reserve on a chess clock"] = function()
  -- They spent half of the time left (at most 0.2 s) a move, so a game clock ran down by halves
  -- and a long game lost on time (--tc 1+0 on 8x8: 20 of 24 games). The lua_eval example's
  -- search limit is seen through a proxy; the mcts example's deadline through a clock that
  -- advances 1 ms a reading (no wall time is measured).
  local clock = { time = 0.3, game_time = 0.3, increment = 0, opponent_time = 0.3, ply = 3 }
  local g = konane.new { rows = 6, cols = 6 }
  g:play(g:moves()[1])
  g:play(g:moves()[1])
  local limit
  local view = setmetatable({}, { __index = function(_, k)
    local f = g[k]
    if type(f) ~= "function" then return f end
    return function(_, opts, ...)
      if k == "search" then limit = opts.time end
      return f(g, opts, ...)
    end
  end })
  local eval_bot = dofile("examples/bots/lua_eval.lua").new {}
  assert(g:legal(eval_bot:choose(view, clock)))
  assert(limit and limit <= (0.3 - 0.1) / 20 + 1e-9, "lua_eval searched " .. tostring(limit) .. " s of 0.3 s")
  local core = konane.core
  local real, t = core.clock, 0
  core.clock = function() t = t + 0.001; return t end
  local ok, move, info = pcall(function()
    local mcts_bot = dofile("examples/bots/mcts.lua").new { seed = 1 }
    return mcts_bot:choose(g:clone(), clock)
  end)
  core.clock = real
  assert(ok, tostring(move))
  assert(g:legal(move) and info.playouts <= 12, "mcts spent " .. tostring(info and info.playouts) .. " ms of 0.3 s")
  -- in the reserve, with no increment: the least it may (1 ms)
  clock.game_time = 0.05
  limit = nil
  eval_bot:choose(view, clock)
  assert(limit == 0.001, tostring(limit))
end

T["the example bots play seeded games"] = function()
  local specs = { "examples/bots/greedy.lua", "examples/bots/mcts.lua:playouts=60,seed=1",
                  "examples/bots/lua_eval.lua:depth=2" }
  for i, spec in ipairs(specs) do
    for seed = 1, 2 do
      local rec = konane.play(spec, "random", { seed = seed, rows = 6, cols = 6 })
      assert(rec.termination == "normal", spec .. ": " .. tostring(rec.reason))
      check_record(rec)
      local rec2 = konane.play("greedy", spec, { seed = seed + i, rows = 6, cols = 6 })
      assert(rec2.termination == "normal", spec .. ": " .. tostring(rec2.reason))
    end
  end
  -- the greedy example in a dozen lines
  local n = 0
  for line in io.lines("examples/bots/greedy.lua") do
    if not line:match("^%s*%-%-") and line:match("%S") then n = n + 1 end
  end
  assert(n <= 14, "the greedy example has " .. n .. " lines of code")
end

return T
