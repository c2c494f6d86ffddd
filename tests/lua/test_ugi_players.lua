-- Players in processes of their own: bot files and external UGI engines, hostile ones included.
-- Whatever they do, the referee's game, the other player and the record survive, and the
-- player that failed loses with the reason recorded.
local H = dofile("tests/lua/helpers.lua")
local konane = require "konane"

local T = {}

local F = "tests/lua/fixtures/"
local ENGINE = "ugi:sh " .. F .. "ugi_engine.sh "
-- The time a move of the games that must end normally: none of their bots searches, so this is
-- only a limit, wide enough that a starved machine (2.25 s for a move at load 7) is not a forfeit.
local MOVE_LIMIT = 20
local pgn = require "konane.pgn"

-- A test run beside a busy benchmark can get a few percent of a core: a Python engine then took
-- over 10 s (the default) to answer its handshake. The deadline guards against a hang here; it
-- is no measure of speed (a test of the handshake deadline sets its own).
require("konane.ugi.player").defaults.startup = 300

-- Checks that 'rec' is a whole record that replays, and that konane still works.
local function whole(rec)
  assert(rec.winner and rec.result and rec.termination, "incomplete record")
  local g = konane.pgn.replay(rec)
  assert(g:ply() == #rec.moves)
  assert(#konane.new():moves() == 4)
  return rec
end

local function loses(rec, side, termination, reason)
  whole(rec)
  local other = side == "black" and "white" or "black"
  assert(rec.winner == other, side .. " should have lost: " .. tostring(rec.reason))
  assert(rec.forfeit == side, "forfeit " .. tostring(rec.forfeit))
  assert(rec.termination == termination, "termination " .. tostring(rec.termination) .. ": " .. tostring(rec.reason))
  assert(rec.reason:find("^" .. side .. " %("), rec.reason)
  if reason then assert(rec.reason:find(reason, 1, true), "reason '" .. rec.reason .. "' should say '" .. reason .. "'") end
  assert(not rec.reason:find("/work/", 1, true) and not rec.reason:find("/[^%s]*%.lua:%d+:"), "a host path in " .. rec.reason)
end

T["a bot file plays whole games in its own process, named by its file"] = function()
  local rec = whole(konane.play(F .. "ugi_lockdown.lua", "random", { rows = 6, cols = 6, seed = 1, time = MOVE_LIMIT }))
  assert(rec.termination == "normal", rec.reason)
  assert(rec.black == "locked" and rec.tags.Black == "locked")
  assert(rec.comments[1]:find("checked=0", 1, true) or rec.comments[1], rec.comments[1])
end

T["a hostile bot cannot plant positions in the referee's prototype cache"] = function()
  local before = konane.play("random:seed=5", "random:seed=6", { rows = 6, cols = 6, seed = 9 })
  -- what the planter did to its own process only spoils its own answers
  local rec = whole(konane.play(F .. "ugi_plant_cache.lua", "greedy", { rows = 6, cols = 6, seed = 2, time = MOVE_LIMIT }))
  assert(rec.black == "planter" and rec.moves[1] ~= "a1", rec.reason)
  -- the referee's start positions and later games are untouched
  assert(konane.new():fen() == "xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox b")
  assert(konane.new { rows = 6, cols = 6 }:fen() == "xoxoxo/oxoxox/xoxoxo/oxoxox/xoxoxo/oxoxox b")
  local after = konane.play("random:seed=5", "random:seed=6", { rows = 6, cols = 6, seed = 9 })
  assert(table.concat(after.moves, " ") == table.concat(before.moves, " "))
end

T["the prototype cache cannot be forged with a variant's text in this process either"] = function()
  local bk = konane.variant("brainking")
  local evil = setmetatable({ name = "evil", start = function() return "xoxoxo/oxoxox/xoxoxo/oxoxox/xoxoxo/oxoxo. b" end },
    { __tostring = function() return tostring(bk) end })
  pcall(konane.new, { variant = evil, rows = 6, cols = 6 })
  assert(konane.new { rows = 6, cols = 6 }:fen() == "xoxoxo/oxoxox/xoxoxo/oxoxox/xoxoxo/oxoxox b")
end

T["a catastrophic pattern match loses on time and the game goes on"] = function()
  local rec = konane.play(F .. "ugi_catastrophic.lua", "random", { rows = 6, cols = 6, seed = 1, time = 0.5 })
  loses(rec, "black", "time forfeit", "no bestmove")
  assert(#rec.moves == 2, #rec.moves)
  -- the next game with the same bot file gets a fresh process
  rec = konane.play("random", F .. "ugi_catastrophic.lua", { rows = 6, cols = 6, seed = 1, time = 0.5 })
  loses(rec, "white", "time forfeit")
end

T["a tournament with one worker goes on past a player stuck in one C call"] = function()
  local dir = os.tmpname()
  os.remove(dir)
  local res = konane.tournament.run { bots = { F .. "ugi_catastrophic.lua", "random" }, rows = 6, cols = 6,
                                      games = 2, time = 0.5, workers = 1, out = dir, progress = false }
  assert(res.complete and res.games == 2)
  for _, r in ipairs(konane.pgn.read_file(dir .. "/games.pgn")) do
    assert(r.termination == "time forfeit" and r.reason:find("catastrophic", 1, true), tostring(r.reason))
  end
  os.execute("rm -rf '" .. dir .. "'")
end

T["memory bombs fail inside their own address-space limit"] = function()
  -- (the table bomb catches its memory errors and runs to its deadline; the others end on
  -- their first refused allocation, which fresh pages on a loaded machine can delay)
  local sanitizer = (os.getenv("KONANE_CFLAGS") or ""):find("fsanitize", 1, true)
  for mode, time in pairs { hash = 10, table = 1, string = 20, kept = 20 } do
    local b = konane.bot(F .. "ugi_memory.lua:mode=" .. mode, { memory = 64 * 1024 * 1024 })
    local rec = konane.play(b, "random", { rows = 6, cols = 6, seed = 1, time = time })
    whole(rec)
    -- (in a sanitizer build the budget goes to the sanitizer's allocator, which never sees a
    -- table's anonymous mapping (src/tt.c maps tables of 2 MB and more): there the hash bomb,
    -- whose depth-2 search touches little of its 5000 MB, may play on; RLIMIT_AS stops it in
    -- every other build)
    assert((sanitizer and mode == "hash") or (rec.winner == "white" and rec.forfeit == "black"),
      mode .. ": " .. tostring(rec.reason))
    -- (the string bomb ends as an error; in a sanitizer build, whose allocator refuses
    -- everything once over budget, its process may die instead: a loss all the same)
    -- (a sanitizer build cannot set RLIMIT_AS: a table's anonymous mapping is then refused by
    -- the sanitizer's RSS limit, which ends the process instead of failing the allocation)
    if mode == "hash" and not (os.getenv("KONANE_CFLAGS") or ""):find("fsanitize", 1, true) then
      assert(rec.termination == "error" and rec.reason:find("not enough memory"), mode .. ": " .. rec.reason)
    end
  end
end

T["a player process inherits no descriptor but its pipes, and runs under its limits"] = function()
  local extra = assert(io.open(os.tmpname(), "w")) -- not close-on-exec: must not be inherited
  local p = assert(konane.core.spawn({ "sh", "-c", "ls /proc/self/fd; ulimit -t; ulimit -v; echo \"$ASAN_OPTIONS\"" },
    { stdin = true, session = true, stderr = false, memory = 96 * 1024 * 1024, cpu = 7 }))
  local out = ""
  while true do
    konane.core.poll({ p }, 5)
    local s = p:read()
    if not s then break end
    out = out .. s
  end
  p:close()
  extra:close()
  local words = {}
  for w in out:gmatch("%S+") do words[#words + 1] = w end
  -- ls itself opens its directory as descriptor 3; a sanitizer build (its shadow memory needs
  -- terabytes of address space) gives the budget to its allocator instead of RLIMIT_AS
  local text = table.concat(words, " ")
  assert(text:find("^0 1 2 3 7 98304") or text:find("^0 1 2 3 7 unlimited .*max_allocation_size_mb=96"), out)
end

T["each player draws from its own generator: a bot reseeding math.random changes no other game"] = function()
  local function game()
    return table.concat(konane.play("random", "random", { rows = 6, cols = 6, seed = 11 }).moves, " ")
  end
  local alone = game()
  math.randomseed(123)
  whole(konane.play(F .. "ugi_random_abuse.lua", "random", { rows = 6, cols = 6, seed = 11, time = MOVE_LIMIT }))
  assert(game() == alone)
  -- and the referee's own math.random was never touched by the bot
  math.randomseed(5)
  local a = math.random(1000000)
  math.randomseed(5)
  whole(konane.play(F .. "ugi_random_abuse.lua", "random", { rows = 6, cols = 6, seed = 3, time = MOVE_LIMIT }))
  assert(math.random(1000000) ~= nil and a == (function() math.randomseed(5) return math.random(1000000) end)())
end

T["an engine that crashes, hangs, floods its output or answers nonsense loses with the reason"] = function()
  -- (only the hang gets a short time: the others answer at once, and a loaded machine must not
  -- turn their failure into a time forfeit; the flood's output cap, not the clock, must end it.
  -- The other side is not timed: a stall of the test's own process must not make it lose.)
  local cases = {
    { "crash", "crash", "exited with status 3", 60 },
    -- its output held open by what it started: no end of file, the process itself is looked at
    { "forkexit", "crash", "exited with status 3", 60 },
    { "hang", "time forfeit", "no bestmove within", 0.3 },
    { "garbage", "malformed output", "bytes of output", 60 },
    { "illegal", "illegal move", "z9", 60 },
    { "badline", "malformed output", "malformed bestmove", 60 },
    { "closeout", "crash", "closed its output", 60 },
    { "hugeline", "malformed output", "a line longer than", 60 },
  }
  local other = konane.bot("random")
  other.untimed = true
  for _, c in ipairs(cases) do
    local rec = konane.play(ENGINE .. c[1], other, { rows = 6, cols = 6, seed = 1, time = c[4] })
    loses(rec, "black", c[2], c[3])
    assert(#rec.moves == 0)
    rec = konane.play(other, ENGINE .. c[1], { rows = 6, cols = 6, seed = 1, time = c[4], opening = "c4 c3" })
    loses(rec, "white", c[2], c[3])
    assert(rec.opening[1] == "c4" and #rec.moves == 3, "the opening and the moves are in the record")
  end
end

T["engines that cut their last line, say only their id, flood options or send binary lose with the reason"] = function()
  local other = konane.bot("random")
  other.untimed = true
  local cases = {
    -- a move without its newline is no answer: the engine's exit is what the referee sees
    { "noeol", "crash", "exited with status 0 while bestmove was awaited", 0 },
    { "idonly", "handshake failure", "exited with status 0 while ugiok was awaited", 0 },
    { "options", "handshake failure", "more than 1048576 bytes of output while waiting for ugiok", 0 },
    -- random bytes are a line like any other: ignored; the move after them is played
    { "binary", "illegal move", "c4", 2 },
  }
  for _, c in ipairs(cases) do
    local rec = konane.play(ENGINE .. c[1], other, { rows = 6, cols = 6, seed = 1, time = 60 })
    loses(rec, "black", c[2], c[3])
    assert(#rec.moves == c[4], c[1] .. ": " .. #rec.moves .. " moves")
    assert(not pgn.write(rec):gsub("\n", ""):find("%c"), c[1] .. ": a raw control byte in the record")
  end
end

T["a write to a process that does not read its input gives up at its timeout"] = function()
  local core = konane.core
  local text = string.rep("x", 4 << 20) -- more than any pipe holds
  -- a child that never ends on its own: a 'sleep 30' could end before a starved test run (make
  -- test at nice 19 beside a benchmark at nice -10) came to the write, which then met a closed
  -- pipe ("Broken pipe"); in a session of its own, it is killed if this process dies first
  local p = assert(core.spawn({ "sleep", "1000000" }, { stdin = true, session = true }))
  local ok, err = p:write(text, 0.2)
  local how, code = p:wait()
  assert(how == nil, "the child ended during the write: " .. tostring(how) .. " " .. tostring(code))
  assert(ok == nil and err == "the process does not read its input", tostring(err))
  p:kill()
  p:wait(true)
end

T["control bytes an engine sends never reach the record raw"] = function()
  local rec = konane.play(ENGINE .. "ctrl", "random", { rows = 6, cols = 6, seed = 1, time = 1 })
  loses(rec, "black", "illegal move", "c4")
  assert(not rec.reason:find("%c"), "a raw control byte in: " .. rec.reason)
  assert(rec.reason:find("\\x1b", 1, true), rec.reason)
  local text = konane.pgn.write(rec)
  assert(not text:gsub("\n", ""):find("%c"), "a raw control byte in the record")
  -- nor a byte that is not UTF-8 (the record and the report page are UTF-8)
  rec = konane.play(ENGINE .. "notutf8", "random", { rows = 6, cols = 6, seed = 1, time = 1 })
  loses(rec, "black", "illegal move", "c4")
  assert(utf8.len(rec.reason) and rec.reason:find("c4\\xff\\xfe", 1, true), rec.reason)
  assert(utf8.len(konane.pgn.write(rec)), "the record is not UTF-8")
end

T["a bot file's comments reach the record: its figures as k=v, a string as it is"] = function()
  local dir = H.tmpdir()
  local path = dir .. "/commenter.lua"
  H.write(path, [[return { name = "commenter", choose = function(_, g)
    if g:ply() % 4 == 0 then return g:moves()[1], "hello\tworld" end
    if g:ply() % 6 == 2 then return g:moves()[1] end
    return g:moves()[1], { score = 35, depth = 6 } end }]])
  local rec = konane.play(path, "random", { rows = 4, cols = 4, seed = 1, time = 5 })
  assert(rec.comments[1]:match("^%d%.%d%d%ds hello world$"), rec.comments[1])
  -- a move without a comment has the referee's time only, as an in-process bot's move
  assert(rec.comments[3]:match("^%d%.%d%d%ds$"), rec.comments[3])
  assert(rec.comments[7]:find("depth=6 score=35", 1, true), rec.comments[7])
  H.cleanup()
end

T["an engine answering for a stale position or closing its input loses, and the game goes on"] = function()
  -- c4 opens a 6x6 game; asked again later, the same answer is illegal there
  local rec = konane.play(ENGINE .. "stale", "random", { rows = 6, cols = 6, seed = 1, time = 1 })
  loses(rec, "black", "illegal move", "c4")
  assert(#rec.moves == 2 and rec.moves[1] == "c4")
  -- after closing its input it cannot be asked for the next move
  rec = konane.play(ENGINE .. "closein", "random", { rows = 6, cols = 6, seed = 1, time = 1 })
  whole(rec)
  assert(rec.winner == "white" and rec.forfeit == "black" and #rec.moves == 2, rec.reason)
  assert(rec.termination == "crash" or rec.termination == "time forfeit", rec.termination .. ": " .. rec.reason)
  -- a tournament goes on past all of them
  local res = konane.tournament.run { bots = { ENGINE .. "stale", "random" }, rows = 6, cols = 6, games = 2,
                                      time = 1, progress = false }
  assert(res.games == 2)
end

T["what an engine says when nobody asked is not taken for its next answer"] = function()
  -- a second bestmove after each move was read as the answer for the next position (a legal one
  -- was played without a word), and query answers after a move as its claim at the end
  local other = konane.bot("greedy")
  other.untimed = true
  local function game(mode)
    local b = { ugi = { "python3", F .. "ugi_chatty.py", mode }, name = "chatty", options = { strategy = "greedy" } }
    local rec = whole(konane.play(b, other, { rows = 6, cols = 6, seed = 3, time = 60 }))
    return rec, table.concat(rec.moves, " ")
  end
  local want, moves = game("plain")
  assert(want.termination == "normal" and #want.moves > 10, want.reason)
  -- twice each: the second game gets the engine from the pool, with what it said after its last
  -- move of the first
  for _, mode in ipairs { "double", "double", "responses", "responses" } do
    local rec, got = game(mode)
    assert(got == moves, mode .. ": " .. got .. " instead of " .. moves .. " (" .. tostring(rec.reason) .. ")")
    assert(rec.termination == "normal" and rec.result == want.result, mode .. ": " .. tostring(rec.reason))
  end
end

T["an error raised by a bot in this process is recorded with its file and line, without host paths"] = function()
  -- the position of the bot's own code is where its author looks (its file's name, no directory);
  -- a path anywhere in the message, at its very start too, is cut to its file name
  local b = { name = "thrower", choose = function()
    error("cannot open /home/someone/secret/book.dat: no such file")
  end }
  local rec = whole(konane.play(b, "random", { rows = 6, cols = 6, seed = 1 }))
  assert(rec.forfeit == "black" and rec.termination == "error", rec.reason)
  assert(rec.reason:find("^black %(thrower%): test_ugi_players%.lua:%d+: cannot open book%.dat: no such file$"), rec.reason)
  b.choose = function() error("/home/someone/secret/book.dat: no such file", 0) end
  rec = whole(konane.play(b, "random", { rows = 6, cols = 6, seed = 1 }))
  assert(rec.reason == "black (thrower): book.dat: no such file", rec.reason)
  b.choose = function() local t = nil; return t.x end
  rec = whole(konane.play(b, "random", { rows = 6, cols = 6, seed = 1 }))
  assert(rec.reason:find("^black %(thrower%): test_ugi_players%.lua:%d+: attempt to index a nil value"), rec.reason)
  assert(not rec.reason:find("/", 1, true), rec.reason)
  -- an error value whose __tostring never returns: the bot's own code, stopped at its deadline
  b.choose = function() error(setmetatable({}, { __tostring = function() while true do end end })) end
  rec = whole(konane.play(b, "random", { rows = 6, cols = 6, seed = 1, time = 0.3 }))
  assert(rec.termination == "time forfeit" and rec.forfeit == "black", rec.reason)
end

T["a bot file fails as the same bot in the referee's process: its file and line, new_game, a huge answer"] = function()
  local faulty = dofile(F .. "ugi_faulty.lua")
  for _, case in ipairs {
    { "runtime", "error", "ugi_faulty%.lua:12: attempt to index a nil value %(local 't'%)" },
    { "newgame", "error", "new_game.*ugi_faulty%.lua:8: attempt to index a nil value" },
    { "huge", "bad answer", "answered a string of 600000 bytes, not a move" },
  } do
    for _, where in ipairs { "file", "process" } do
      local b = where == "file" and (F .. "ugi_faulty.lua:mode=" .. case[1]) or faulty.new { mode = case[1] }
      local rec = whole(konane.play(b, "random", { rows = 6, cols = 6, seed = 1, time = MOVE_LIMIT }))
      local what = case[1] .. " (" .. where .. ")"
      assert(rec.forfeit == "black" and rec.termination == case[2], what .. ": " .. tostring(rec.termination) .. ": " .. rec.reason)
      assert(rec.reason:find(case[3]), what .. ": " .. rec.reason)
      assert(not rec.reason:find("/", 1, true), what .. ": " .. rec.reason)
    end
  end
end

T["an engine that never finishes the handshake loses by handshake failure"] = function()
  local b = konane.bot(ENGINE .. "silent", { startup = 0.3 })
  local rec = konane.play(b, "random", { rows = 6, cols = 6, seed = 1 })
  loses(rec, "black", "handshake failure", "ugiok")
  -- before its handshake an engine goes by its command without directories: no host path
  -- reaches the record
  assert(not rec.reason:find("fixtures/", 1, true) and rec.black:find("ugi_engine.sh", 1, true)
         and not rec.black:find("/", 1, true), rec.black .. " / " .. rec.reason)
  rec = konane.play("ugi:/nonexistent/engine", "random", { rows = 6, cols = 6 })
  loses(rec, "black", "handshake failure", "cannot")
  assert(not rec.reason:find("/nonexistent", 1, true) and not pgn.write(rec):find("/nonexistent", 1, true),
    rec.reason)
end

T["an engine claiming a false result at the end loses by false claim"] = function()
  local liar = { ugi = { "python3", F .. "ugi_liar.py" }, name = "liar", options = { strategy = "random" } }
  local rec = konane.play(liar, "random", { rows = 6, cols = 6, seed = 4, time = MOVE_LIMIT })
  whole(rec)
  assert(rec.termination == "false claim", rec.termination .. ": " .. tostring(rec.reason))
  assert(rec.reason:find("liar", 1, true) and rec.reason:find("claimed", 1, true), rec.reason)
  -- the honest example agrees with the referee
  rec = konane.play({ ugi = "python3 examples/ugi/konane_bot.py", name = "py" }, "random",
    { rows = 6, cols = 6, seed = 4, time = MOVE_LIMIT })
  assert(rec.termination == "normal", rec.reason)
end

T["a dead or hung engine is restarted for the next game"] = function()
  -- the hang engine is killed at its deadline; the same spec then plays a normal game of the
  -- Python example: processes are not shared across specs, and a failed one is never reused
  for _ = 1, 2 do
    local rec = konane.play(ENGINE .. "hang", "random", { rows = 6, cols = 6, time = 0.2 })
    loses(rec, "black", "time forfeit")
  end
  local py = "ugi:python3 examples/ugi/konane_bot.py"
  for seed = 1, 2 do
    local rec = konane.play(py, "random", { rows = 6, cols = 6, seed = seed, time = MOVE_LIMIT })
    assert(rec.termination == "normal", rec.reason)
  end
end

-- Is process 'pid' still there (running, or a zombie nobody reaped)?
-- Is process 'pid' alive (a zombie waiting for its parent to reap it is not)?
local function exists(pid)
  local f = io.open("/proc/" .. pid .. "/stat", "r")
  if not f then return false end
  local stat = f:read("a") or ""
  f:close()
  return stat:match("%)%s+(%a)") ~= "Z"
end

-- The pids the escape fixture wrote to 'pidfile'.
local function pids_in(pidfile)
  local pids = {}
  for p in H.read(pidfile):gmatch("%d+") do pids[#pids + 1] = p end
  return pids
end

-- The pid of a living process the escape fixture left for 'pidfile' (its command line holds
-- "escaped" and the pidfile: the pids in the file are those of the engine's PID namespace when
-- it has one of its own), or nil.
local function escaped(pidfile)
  local mark = "\0escaped\0" .. pidfile .. "\0"
  for _, name in ipairs(konane.core.listdir("/proc") or {}) do
    if name:match("^%d+$") then
      local f = io.open("/proc/" .. name .. "/cmdline", "rb")
      local text = f and f:read("a")
      if f then f:close() end
      if text and text:find(mark, 1, true) and exists(name) then return name end
    end
  end
end

-- Asserts that nothing the escape fixture left for 'pidfile' is alive. It is killed before
-- konane.play returns; the wait only guards against a loaded machine (a sanitizer build, a
-- starved test run: a killed process needs a CPU to end, and one at nice 19 beside a benchmark
-- can wait seconds for it), it measures nothing: 2 s in which the process could run.
local function assert_gone(pidfile, what)
  local p = escaped(pidfile)
  if not p then return end
  local expired = H.patience(2, p)
  while escaped(pidfile) and not expired() do konane.core.poll({}, 0.01) end
  p = escaped(pidfile)
  assert(not p, what .. "process " .. tostring(p) .. " outlived its game")
end

T["processes a player leaves behind (double fork, setsid, nested) end with its game"] = function()
  if not io.open("/proc/self/stat", "r") then return end -- the check reads /proc (Linux)
  local pidfile = H.tmpdir() .. "/pids"
  H.write(pidfile, "")
  local spec = "ugi:python3 " .. F .. "ugi_escape.py " .. pidfile .. " 3"
  local rec = whole(konane.play(spec, "random", { rows = 6, cols = 6, seed = 2, time = MOVE_LIMIT }))
  assert(rec.termination == "normal", rec.reason)
  local pids = pids_in(pidfile)
  assert(#pids == 3, "escaped processes: " .. #pids)
  assert_gone(pidfile, "")
  -- the player itself stays in the pool for the next game, and plays it
  rec = whole(konane.play(spec, "random", { rows = 6, cols = 6, seed = 3, time = MOVE_LIMIT }))
  assert(rec.termination == "normal", rec.reason)
  H.cleanup()
end

T["a child a living engine moves to its own session ends with the game"] = function()
  if not io.open("/proc/self/stat", "r") then return end -- the check reads /proc (Linux)
  local pidfile = H.tmpdir() .. "/pids"
  H.write(pidfile, "")
  local spec = "ugi:python3 " .. F .. "ugi_escape.py " .. pidfile .. " 2 single"
  local rec = whole(konane.play(spec, "random", { rows = 6, cols = 6, seed = 2, time = MOVE_LIMIT }))
  assert(rec.termination == "normal", rec.reason)
  local pids = pids_in(pidfile)
  assert(#pids == 2, "escaped processes: " .. #pids)
  assert_gone(pidfile, "")
  H.cleanup()
end

T["a pooled engine that leaves a process behind in every game: each ends with its game"] = function()
  if not io.open("/proc/self/stat", "r") then return end -- the check reads /proc (Linux)
  local pidfile = H.tmpdir() .. "/pids"
  H.write(pidfile, "")
  local spec = "ugi:python3 " .. F .. "ugi_escape.py " .. pidfile .. " 1 pergame"
  local seen = 0
  for game = 1, 3 do
    local rec = whole(konane.play(spec, "random", { rows = 6, cols = 6, seed = game, time = MOVE_LIMIT }))
    assert(rec.termination == "normal", rec.reason)
    local pids = pids_in(pidfile)
    assert(#pids > seen, "game " .. game .. " left no process (the fixture did not fork)")
    seen = #pids
    assert_gone(pidfile, "game " .. game .. ": ")
  end
  H.cleanup()
end

-- The log's cap counts what this process writes: a log kept from earlier runs that is already
-- over 1 MB leaves a new engine its own megabyte (it had no room at all: its first line to
-- stderr failed, and an engine that stops on a failed write lost every game).
T["an engine's stderr log already over its cap still takes the new engine's lines"] = function()
  local dir = H.tmpdir()
  local log = dir .. "/engine.err"
  H.write(log, string.rep("earlier run\n", 150000)) -- 1.8 MB
  local spec = { ugi = { "sh", "-c", "echo started >&2 || exit 3; exec python3 examples/ugi/konane_bot.py" },
                 name = "chatty", log = log }
  local rec = whole(konane.play(spec, "random", { rows = 6, cols = 6, seed = 1, time = MOVE_LIMIT }))
  assert(rec.termination == "normal", rec.reason)
  assert(H.read(log):sub(-8) == "started\n")
  H.cleanup()
end

-- The log takes a megabyte of what a process writes to stderr and drops the rest with a line
-- saying so; no other file the engine writes is limited (the cap was a file size limit in the
-- engine's process: its 2 MB file failed, and the engine with it).
T["an engine's stderr past the log's cap is dropped, and its other files are not limited"] = function()
  local dir = H.tmpdir()
  local log = dir .. "/engine.err"
  local script = "head -c 2000000 /dev/zero > " .. dir .. "/big || exit 3; "
    .. "head -c 1500000 /dev/zero | tr '\\0' x >&2 || exit 4; echo after >&2 || exit 5; "
    .. "exec python3 examples/ugi/konane_bot.py"
  local spec = { ugi = { "sh", "-c", script }, name = "loud", log = log }
  local rec = whole(konane.play(spec, "random", { rows = 6, cols = 6, seed = 1, time = MOVE_LIMIT }))
  assert(rec.termination == "normal", rec.reason)
  local f = assert(io.open(dir .. "/big", "rb"))
  assert(f:seek("end") == 2000000, "the engine's own file was cut")
  f:close()
  require("konane.ugi.player").close_all() -- the engine waits in the pool: end it
  local text
  -- the copier (a thread of this process) writes its last line once the pipe closes, a moment
  -- after: 5 s in which it could run
  local expired = H.patience(5, H.self_pid())
  repeat
    text = H.read(log)
    if text:find("dropped", 1, true) then break end
    konane.core.poll({}, 0.05)
  until expired()
  assert(text:sub(1, 1048576) == string.rep("x", 1048576), "the first megabyte is kept")
  assert(text:find("\n%[konane: 451430 more bytes of stderr dropped, past the log's 1 MB%]\n$"), text:sub(1048577))
  H.cleanup()
end

-- A process manager's SIGTERM (timeout(1), systemd, kill) to a tournament stops it as Ctrl-C does:
-- it says how to resume (status 130), every saved game is whole, and what its engines left
-- behind is ended (SIGTERM's default action would have left the escaped processes running).
T["a tournament stopped by SIGTERM ends what its engines left behind and says how to resume"] = function()
  if not io.open("/proc/self/stat", "r") then return end -- the check reads /proc (Linux)
  for _, workers in ipairs { "1", "2" } do
    local dir = H.tmpdir()
    local pidfile = dir .. "/pids"
    H.write(pidfile, "")
    local spec = "ugi:python3 " .. F .. "ugi_escape.py " .. pidfile .. " 2 pergame"
    local p = assert(konane.core.spawn({ konane.core.exe_path(), "scripts/tournament.lua", "--bot", spec,
      "--bot", "random", "--size", "6x6", "--games", "400", "--workers", workers,
      "--time", tostring(MOVE_LIMIT), "--out", dir .. "/t" }, {}))
    -- (60 s in which the tournament, its workers and engines could run: a starved test run
    -- waits longer, a hung one fails)
    local out, expired = {}, H.patience(60, p:pid(), true)
    local function saved()
      local f = io.open(dir .. "/t/games.pgn", "rb")
      local text = f and f:read("a") or ""
      if f then f:close() end
      return text:find("[Event ", 1, true)
    end
    repeat -- until a game is saved and the engine's escaped processes of a game are running
      konane.core.poll({ p }, 0.05)
      out[#out + 1] = p:read()
    until (saved() and #pids_in(pidfile) >= 4) or expired()
    assert(saved() and #pids_in(pidfile) >= 4, "no game played: " .. table.concat(out))
    p:kill(15)
    local how, code
    expired = H.patience(60, p:pid(), true)
    repeat
      konane.core.poll({ p }, 0.05)
      local text = p:read()
      out[#out + 1] = text
      how, code = p:wait()
    until how or expired()
    out = table.concat(out)
    assert(how == "exit" and code == 130, "workers " .. workers .. ": " .. tostring(how) .. " " ..
      tostring(code) .. "\n" .. out)
    assert(out:find("--resume", 1, true), out)
    assert(pgn.read(H.read(dir .. "/t/games.pgn")))
    assert_gone(pidfile, "workers " .. workers .. ": ")
    p:close()
  end
  H.cleanup()
end

T["a chess clock: the game time runs down, increments are added, and running out loses"] = function()
  -- the margin keeps a loaded machine from ending the game on time (a Python engine stalled for
  -- a second lost it): each clock must be exactly its base, plus its increments, minus the time
  -- its side used, whatever the machine did
  local rec = whole(konane.play("alphabeta", "ugi:python3 examples/ugi/konane_bot.py",
    { rows = 6, cols = 6, seed = 1, tc = "1+0.02", margin = 60 }))
  assert(rec.termination == "normal", rec.reason)
  assert(rec.tags.TimeControl == "1+0.02")
  local nb = (#rec.moves + 1) // 2
  for side, n in pairs { black = nb, white = #rec.moves - nb } do
    assert(rec.times[side] > 0, side)
    local want = 1 + 0.02 * n - rec.times[side]
    assert(math.abs(rec.clock[side] - want) < 1e-9, side .. ": " .. rec.clock[side] .. " ~= " .. want)
  end
  -- the slow side spins 0.05 s a move: its third move overdraws 0.12 s. Its opponent is not
  -- timed (a stall of the test's own process must not make it lose first).
  local opponent = konane.bot("random")
  opponent.untimed = true
  local slow = { name = "slow", choose = function(_, g, clock)
    assert(clock.game_time and clock.increment == 0)
    local t = konane.core.clock()
    while konane.core.clock() - t < 0.05 do end
    return g:moves()[1]
  end }
  rec = konane.play(slow, opponent, { tc = "0.12", seed = 1 })
  loses(rec, "black", "time forfeit")
  assert(#rec.moves <= 4, "three moves of 0.05 s overdraw 0.12 s: " .. #rec.moves .. " moves")
  local ok, err = pcall(konane.play, "random", "random", { tc = "fast" })
  assert(not ok and err:find("time control"), err)
end

T["move comments are capped"] = function()
  local chatty = { name = "chatty", choose = function(_, g) return g:moves()[1], string.rep(" ", 40000) .. "x" end }
  local rec = konane.play(chatty, "random", { rows = 4, cols = 4, seed = 1 })
  assert(#rec.comments[1] <= require("konane.play").COMMENT_MAX, #rec.comments[1])
end

T["konane.bot accepts ugi:CMD and {ugi = ...}, and rejects bad ones clearly"] = function()
  local b = konane.bot("ugi:python3 examples/ugi/konane_bot.py")
  assert(b.ugi and b.name == "ugi:python3 konane_bot.py", b.name) -- no directories in a name
  b = konane.bot { ugi = { "python3", "examples/ugi/konane_bot.py" }, name = "py", options = { strategy = "random" } }
  assert(b.name == "py")
  for _, bad in ipairs { { "ugi:" }, { { ugi = {} } }, { { ugi = { 1 } } }, { { ugi = "x", colour = 1 } },
                         { "random", { memroy = 1 } }, { "ugi:'x" } } do
    local ok, err = pcall(konane.bot, table.unpack(bad))
    assert(not ok and type(err) == "string", tostring(bad[1]))
  end
  local ok, err = pcall(konane.bot, "/nonexistent/bot.lua")
  assert(not ok and err:find("cannot load bot"), err)
end

return T
