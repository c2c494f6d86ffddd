-- Tournament data that survives faults: full disks and file size limits, workers killed or
-- hung during a move, hostile or edited tournament.cfg files, junk in the journal.
local konane = require "konane"
local T = require "konane.tournament"
local cfg = require "konane.tournament.cfg"
local pgn = require "konane.pgn"
local core = konane.core

local HOSTILE = "tests/lua/fixtures/tournament_hostile_bot.lua"

local H = dofile("tests/lua/helpers.lua")
local sh_quote = H.sh_quote

local tmpdir, cleanup = H.tmpdir, H.cleanup

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local t = f:read("a")
  f:close()
  return t
end

local write = H.write

local run = H.run

local function cli(args, prefix)
  local argv = {}
  for _, a in ipairs(prefix or {}) do argv[#argv + 1] = a end
  argv[#argv + 1] = core.exe_path()
  argv[#argv + 1] = "scripts/tournament.lua"
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  return run(argv)
end

local function quiet(o)
  o.progress = false
  o.log = o.log or function() end
  return o
end

local function base(extra)
  local o = { bots = { "greedy", "random", "random:seed=7" }, rows = 6, cols = 6, games = 4, time = 5 }
  for k, v in pairs(extra or {}) do o[k] = v end
  return quiet(o)
end

local function summary(res)
  local out = {}
  for _, b in ipairs(res.bots) do
    out[#out + 1] = string.format("%s %d %d %d %.9f", b.name, b.games, b.wins, b.losses, b.elo)
  end
  return table.concat(out, "\n")
end

local function records_of(dir)
  local recs, err = pgn.read(read(dir .. "/games.pgn"))
  assert(not err, err)
  return recs
end

-- The command-line tournament every disk test plays, and its results.json from a plain run.
local function disk_args(dir, games)
  return { "--bot", "random", "--bot", "random:seed=3", "--size", "6x6", "--games", tostring(games),
           "--out", dir }
end
local reference = {}
local function reference_results(games)
  if not reference[games] then
    local dir = tmpdir()
    local code, out = cli(disk_args(dir, games))
    assert(code == 0, out)
    reference[games] = read(dir .. "/results.json")
  end
  return reference[games]
end

local tests = {}

tests["a file size limit (EFBIG) stops the run with status 1 naming the file; a resume loses nothing"] = function()
  local dir = tmpdir() .. "/t"
  -- SIGXFSZ ignored, so write() returns EFBIG instead of the signal killing the process
  local code, out = cli(disk_args(dir, 40), { "sh", "-c", 'ulimit -f 8; exec "$@"', "sh" })
  assert(code == 1, "exit " .. tostring(code) .. ": " .. out)
  assert(out:find("cannot write " .. dir .. "/games.pgn: File too large", 1, true), out)
  assert(out:find("--resume --out " .. dir, 1, true), out)
  assert(read(dir .. "/results.json") == nil, "no results.json after a failed write")
  local saved = #pgn.read(read(dir .. "/games.pgn"))
  assert(saved > 0 and saved < 40)
  local code2, out2 = cli { "--resume", "--out", dir }
  assert(code2 == 0, out2)
  assert(out2:find("moved 1 record to", 1, true) and out2:find("incomplete", 1, true), out2)
  assert(read(dir .. "/results.json") == reference_results(40))
  assert(#records_of(dir) == 40)
  cleanup()
end

-- Makes 'dir' a tmpfs of 'size'; false and the reason when mounting is not permitted.
local function mount_tmpfs(dir, size)
  local code, out = run { "mount", "-t", "tmpfs", "-o", "size=" .. size, "tmpfs", dir }
  if code ~= 0 then return false, out end
  return true
end

tests["a full disk (ENOSPC) stops the run with status 1; a resume with space loses nothing"] = function()
  local mnt = tmpdir()
  local ok, why = mount_tmpfs(mnt, "32k")
  if not ok then
    -- said loudly: the full-directory variant cannot run here; /dev/full gives the same ENOSPC
    io.stderr:write("\n*** NOTE: cannot mount a tmpfs here (" .. why:gsub("%s+$", "") ..
      "): the full-disk test writes the journal to /dev/full instead ***\n\n")
    local dir = mnt .. "/t"
    assert(os.execute("mkdir -p " .. sh_quote(dir) .. " && ln -s /dev/full " .. sh_quote(dir .. "/games.pgn")))
    local o = disk_args(dir, 40)
    local code, out = cli(o)
    assert(code == 1 and out:find("cannot write " .. dir .. "/games.pgn: No space left on device", 1, true), out)
    os.remove(dir .. "/games.pgn")
    local code2, out2 = cli { "--resume", "--out", dir }
    assert(code2 == 0, out2)
    assert(read(dir .. "/results.json") == reference_results(40))
    cleanup()
    return
  end
  local okr, err = pcall(function()
    local dir = mnt .. "/t"
    local code, out = cli(disk_args(dir, 100))
    assert(code == 1, "exit " .. tostring(code) .. ": " .. out)
    assert(out:find("cannot write " .. dir .. "/games.pgn: No space left on device", 1, true), out)
    assert(read(dir .. "/results.json") == nil)
    local journal = read(dir .. "/games.pgn")
    -- still full: the repair cannot write the .rejected file, so it changes nothing
    local code2, out2 = cli { "--resume", "--out", dir }
    assert(code2 == 1 and out2:find("No space left on device", 1, true), out2)
    assert(read(dir .. "/games.pgn") == journal, "the journal is untouched")
    assert(read(dir .. "/results.json") == nil)
    -- with space: every saved game is kept, the rest is played
    assert(run { "mount", "-o", "remount,size=4m", mnt } == 0)
    local code3, out3 = cli { "--resume", "--out", dir }
    assert(code3 == 0, out3)
    assert(read(dir .. "/results.json") == reference_results(100))
    assert(#records_of(dir) == 100)
  end)
  run { "umount", mnt }
  cleanup()
  assert(okr, err)
end

tests["a failed write of results.json or tournament.cfg keeps the old file and never says complete"] = function()
  local dir = tmpdir()
  local n = 0
  local res = T.run(base { out = dir, on_game = function()
    n = n + 1
    if n == 3 then error("interrupted!", 0) end
  end })
  assert(res.interrupted)
  local before = read(dir .. "/results.json")
  assert(before:find('"complete": false'))
  -- the temporary file of the next results.json is on a full device
  assert(os.execute("ln -s /dev/full " .. sh_quote(dir .. "/results.json.tmp")))
  local ok, err = pcall(T.run, base { out = dir, resume = true })
  assert(not ok and err:find("cannot write " .. dir .. "/results.json: No space left on device", 1, true), tostring(err))
  assert(read(dir .. "/results.json") == before, "the old results.json is kept")
  local again = T.run(base { out = dir, resume = true })
  assert(again.complete and read(dir .. "/results.json"):find('"complete": true'))
  -- tournament.cfg: nothing of the tournament is left behind
  local dir2 = tmpdir()
  assert(os.execute("ln -s /dev/full " .. sh_quote(dir2 .. "/tournament.cfg.tmp")))
  ok, err = pcall(T.run, base { out = dir2 })
  assert(not ok and err:find("cannot write " .. dir2 .. "/tournament.cfg: No space left on device", 1, true), tostring(err))
  assert(not read(dir2 .. "/tournament.cfg") and not read(dir2 .. "/games.pgn"))
  cleanup()
end

-- Kills with 'signal' every tournament worker of this process once each has used 'cpu'
-- seconds of CPU (so it is in the middle of a move), from a helper process.
local function kill_workers_mid_move(signal, cpu)
  local code = string.format([[
    local core = require "konane.core"
    local parent, signal, ticks = %d, %d, %d
    -- up to 45 s of wall time, under the tournament's 60 s hang limit: on a starved machine
    -- (make test at nice 19 beside other work) the workers take long to reach their CPU time
    local deadline = core.clock() + 45
    while core.clock() < deadline do
      local busy = {}
      for _, name in ipairs(core.listdir("/proc") or {}) do
        local f = name:match("^%%d+$") and io.open("/proc/" .. name .. "/stat")
        local line = f and f:read("l")
        if f then f:close() end
        local ppid, ut, st
        if line then ppid, ut, st = line:match("%%) %%S+ (%%d+)" .. (" %%S+"):rep(9) .. " (%%d+) (%%d+)") end
        local c = line and io.open("/proc/" .. name .. "/cmdline")
        local cmd = c and c:read("a") or ""
        if c then c:close() end
        -- (the name is split so that this helper's own command line does not hold it)
        if tonumber(ppid) == parent and cmd:find("tournament_" .. "worker.lua", 1, true) then
          busy[#busy + 1] = { pid = name, cpu = tonumber(ut) + tonumber(st) }
        end
      end
      local ready = #busy == 2
      for _, w in ipairs(busy) do if w.cpu < ticks then ready = false end end
      if ready then
        for _, w in ipairs(busy) do os.execute("kill -" .. signal .. " " .. w.pid) end
        return
      end
      core.poll({}, 0.05)
    end
  ]], tonumber(read("/proc/self/stat"):match("^(%d+)")), signal, math.floor(cpu * 100))
  return assert(core.spawn { core.exe_path(), "-e", code })
end

-- Checks a forfeit record: the side that failed is the side to move after every move of the
-- record (opening included), and that side is 'loser'.
local function check_forfeit(r, loser, termination, words)
  assert(r.termination == termination, r.termination .. ": " .. tostring(r.reason))
  assert(r.reason:find(words, 1, true), r.reason)
  assert(not r.reason:find("/", 1, true), "a path in the reason: " .. r.reason)
  local side = r.black == loser and "black" or "white"
  assert(r.forfeit == side, "charged to " .. tostring(r.forfeit) .. ", the failing player is " .. side)
  assert(r.winner ~= side)
  local g = pgn.replay(r)
  assert(g:turn() == side, "the side to move after the record's moves is " .. g:turn())
  assert(r.reason:find(loser, 1, true), "the reason names the player: " .. r.reason)
  assert(r.opening and #r.opening == 2 and table.concat(r.moves, " ", 1, 2) == table.concat(r.opening, " "))
end

-- a bot that thinks for its whole budget (60 s) in C: a worker playing it is mid-move
local SLOW = "mcts:time=60"

tests["a worker killed with SIGKILL during a move charges no one: the game is played again"] = function()
  local dir = tmpdir()
  -- any process of this user can kill a worker (an engine of another game too): who did is not
  -- known, so neither side is charged
  local logged = {}
  local helper = kill_workers_mid_move(9, 0.3)
  local res = T.run(quiet { bots = { "mcts:time=0.5", "greedy" }, rows = 6, cols = 6, games = 2, workers = 2,
                            time = 100, hang = 60, out = dir,
                            log = function(line) logged[#logged + 1] = line end })
  helper:wait(true)
  helper:close()
  assert(res.games == 2 and res.complete)
  for _, r in ipairs(records_of(dir)) do
    assert(r.termination == "normal", r.termination .. ": " .. tostring(r.reason))
  end
  local text = table.concat(logged, "\n")
  assert(text:find("killed by signal 9 during the game; no player is charged, the game is played again", 1, true), text)
  cleanup()
end

-- The Python interpreter itself (a pyenv shim is a bash script that took 1-5 s to start under load).
local function python3()
  local exe = H.sh("python3 -c 'import sys; print(sys.executable)' 2>/dev/null"):gsub("%s+$", "")
  return exe:match("^[%w/._+-]+$") and exe or "python3"
end

-- Plays a 6x6 tournament of tests/lua/fixtures/ugi_kills_worker.py ('how': "" kills its worker
-- after its first answer, "stop" stops it) against 'opponent' without the sandbox
-- (KONANE_NO_SANDBOX, in a process of its own): the run must stop naming the game and 'cause',
-- with no record for it (nobody lost it). Sandboxed (where the system allows it), the engine
-- cannot see its worker (its parent is outside its PID namespace): the games are played out.
-- The engine's start-up deadline is a limit, not a measure (300 s), and the hang limit's clock
-- (the pool's util.clock) counts only time the run's processes (the referee, its worker, the
-- engines, which wait on each other in turn) were not kept waiting for a CPU (H.patient_clock):
-- on a loaded machine an engine starved between its answer and the stop could otherwise keep
-- its worker waiting past the short limit, and the side to move would lose before the engine
-- stopped its worker (an engine's start no longer counts against the limit: 5f3e5e9).
local function engine_harms_its_worker(how, opponent, hang, cause)
  local spec = "ugi:" .. python3() .. " tests/lua/fixtures/ugi_kills_worker.py" .. how
  if core.sandbox() then
    local dir = tmpdir()
    local util = require "konane.tournament.util"
    local wall = util.clock
    util.clock = H.patient_clock(H.self_pid(), true, true)
    local ok, res = pcall(T.run, quiet { bots = { spec, "greedy" }, rows = 6, cols = 6, games = 2,
                                         workers = 1, time = 100, hang = 60, startup = 300, out = dir })
    util.clock = wall
    assert(ok, res)
    assert(res.games == 2 and res.complete)
    for _, r in ipairs(records_of(dir)) do
      assert(r.termination == "normal", r.termination .. ": " .. tostring(r.reason))
    end
  end
  local dir = tmpdir()
  local code, out = run { "env", "KONANE_NO_SANDBOX=1", core.exe_path(), "-e", string.format([[
    local T = require "konane.tournament"
    local H = dofile("tests/lua/helpers.lua")
    require("konane.tournament.util").clock = H.patient_clock(H.self_pid(), true, true)
    local ok, err = pcall(T.run, { bots = { %q, %q }, rows = 6, cols = 6, games = 2, workers = 1,
                                   time = 100, hang = %s, startup = 300, out = %q, progress = false,
                                   log = function() end })
    print(ok and "the run went on" or tostring(err))
  ]], spec, opponent, hang, dir) }
  assert(code == 0, out)
  local recs = pgn.read(read(dir .. "/games.pgn") or "")
  local reasons = {}
  for i, r in ipairs(recs) do reasons[i] = tostring(r.reason) end
  assert(not out:find("the run went on", 1, true), "the run goes on with a game that loses its worker every time: "
    .. table.concat(reasons, "; "))
  assert(out:find("lost its worker process three times", 1, true), out)
  assert(out:find(cause, 1, true), out)
  assert(out:find("no player is charged and no result is recorded", 1, true), out)
  assert(#recs == 0, "a result for the game whose worker died: " .. tostring(recs[1] and recs[1].reason))
  cleanup()
end

tests["an engine that kills its worker wins nothing: the game is played again, then the run stops"] = function()
  -- the kill comes while the opponent thinks (2 s a move)
  engine_harms_its_worker("", "mcts:time=2", 60, "killed by signal 9 during the game")
end

tests["an engine that stops its worker (SIGSTOP) wins nothing at the hang limit either"] = function()
  engine_harms_its_worker(" stop", "greedy", 2, "found stopped (SIGSTOP) at the hang limit")
end

tests["a starved worker is slow, not hung: no one loses at the hang limit"] = function()
  -- the tournament at nice 19 beside two busy loops, all on CPU 0: each worker gets about 0.7%
  -- of it, so a move of a few milliseconds takes a second of wall time; the hang limit (0.5 s)
  -- must count only the time the worker could run
  local loops = {}
  for i = 1, 2 do
    loops[i] = assert(core.spawn({ "taskset", "-c", "0", "sh", "-c", "while :; do :; done" }, { pgroup = true }))
  end
  local dir = tmpdir()
  local code, out = run { "taskset", "-c", "0", "nice", "-n", "19", core.exe_path(), "-e", ([[
    require("konane.tournament").run { bots = { "alphabeta:depth=5", "greedy" }, rows = 6, cols = 6,
      games = 4, workers = 2, time = 100, hang = 0.5, out = %q, progress = false }]]):format(dir) }
  for _, p in ipairs(loops) do p:kill() p:close() end
  assert(code == 0, out)
  local recs = records_of(dir)
  assert(#recs == 4, "four games: " .. #recs)
  for _, r in ipairs(recs) do
    assert(r.termination == "normal", r.termination .. ": " .. tostring(r.reason))
  end
  cleanup()
end

tests["a hung worker is stopped: the side to move loses on time and the tournament goes on"] = function()
  local dir = tmpdir()
  local res = T.run(quiet { bots = { SLOW, "greedy", "random" }, games = 2, workers = 2, time = 100,
                            hang = 1, out = dir })
  assert(res.games == 6 and res.complete)
  local forfeits = 0
  for _, r in ipairs(records_of(dir)) do
    if r.black == SLOW or r.white == SLOW then
      check_forfeit(r, SLOW, "time forfeit", "no move for")
      forfeits = forfeits + 1
    else
      assert(r.termination == "normal")
    end
  end
  assert(forfeits == 4)
  cleanup()
end

tests["with one worker, a bot stuck in a C call never hangs the tournament"] = function()
  local dir = tmpdir()
  local stuck = HOSTILE .. ":mode=stuck"
  local res = T.run(quiet { bots = { "greedy", stuck }, rows = 6, cols = 6, games = 2, workers = 1,
                            time = 0.1, hang = 1, out = dir })
  assert(res.games == 2 and res.complete)
  for _, r in ipairs(records_of(dir)) do
    check_forfeit(r, "tournament_hostile_bot:mode=stuck", "time forfeit", "")
    assert(#r.moves >= 3, "the hostile bot's legal moves are kept")
  end
  cleanup()
end

-- A finished tournament directory and its cfg as a table.
local function finished_dir()
  local dir = tmpdir()
  local full = T.run(base { out = dir })
  return dir, full
end

tests["tournament.cfg is data: code in it never runs, and a bad field is named with its line"] = function()
  local dir = finished_dir()
  local path = dir .. "/tournament.cfg"
  local good = read(path)
  local mark = dir .. "/PWNED"
  local hostile = {
    { 'return { games = 2, seed = (function() io.open("' .. mark .. '", "w"):close() return 1 end)() }', "expected a value" },
    { '{ games = os.execute("touch ' .. mark .. '") }', "older version" },
    { good:gsub('"games": 4', '"games": "4"'), 'games: an integer expected, got "4"' },
    { good:gsub('"games": 4', '"games": 3'), "games: must be even" },
    { good:gsub('"rows": 6', '"rows": 99'), "rows: must lie in 1..20" },
    { good:gsub('"seed": 1', '"seed": 1.5'), "seed: an integer expected" },
    { good:gsub('"time": 5', '"time": 1e308'), "time: a positive number of seconds expected" },
    { good:gsub('"format": "roundrobin"', '"format": "knockout"'), "format:" },
    { good:gsub('"version": 2', '"version": 2, "extra": true'), "extra: unknown field" },
    { good:gsub('"c4"', '"z9"', 1), "illegal move 'z9'" },
    { good:sub(1, #good // 2), "tournament.cfg:" },
    { good:gsub('"variant": "brainking"', '"variant": "nosuch"'), "nosuch" },
    { string.rep("[", 100000), "nested more than" },
    { good .. "x", "text after the value" },
    { good:gsub('"bots": %[', '"bots": [ 1, '), "bots[1]: an object {name, spec} expected" },
    { good:gsub('"name": "random"', '"name": 7'), "bots[2].name: a string expected, got 7" },
    { good:gsub('"version": 2', '"version": 2, "margin": -1'), "margin: a number of seconds from 0 expected" },
    { good:gsub('"version": 2', '"version": 2, "margin": "1"'), "margin: a number of seconds from 0 expected" },
  }
  for i, case in ipairs(hostile) do
    write(path, case[1])
    local ok, err = pcall(T.new, base { out = dir, resume = true })
    assert(not ok, "case " .. i .. " accepted")
    assert(err:find(case[2], 1, true), "case " .. i .. ": " .. err)
    assert(err:find(path, 1, true), "case " .. i .. " does not name the file: " .. err)
    assert(not read(mark), "case " .. i .. " ran code")
  end
  -- the line named is the line of the field
  local edited = good:gsub('"games": 4', '"games": 3')
  write(path, edited)
  local _, err = pcall(T.new, base { out = dir, resume = true })
  local line = 1
  for l in edited:gmatch("([^\n]*)\n") do
    if l:find('"games"', 1, true) then break end
    line = line + 1
  end
  assert(err:find(path .. ":" .. line .. ": games:", 1, true), err)
  write(path, good)
  assert(T.run(base { out = dir, resume = true }).complete)
  cleanup()
end

tests["a cfg that disagrees with the games played is refused, saying what differs"] = function()
  local dir, full = finished_dir()
  local path = dir .. "/tournament.cfg"
  local good = read(path)
  local journal = read(dir .. "/games.pgn")
  local function edit(change)
    local c = cfg.decode(good, path)
    change(c)
    c.version = nil
    write(path, cfg.encode(c))
  end
  local cases = {
    { function(c) c.seed = 2 end, "the seed differs" },
    { function(c) c.games = 2 end, "the number of games differs" },
    { function(c) c.bots[2].name = "other" c.bots[2].spec = "random:seed=11" end, "the bots differ" },
    { function(c) c.openings[1], c.openings[2] = c.openings[2], c.openings[1] end, "the openings differ" },
    -- what only the records' Settings tag shows
    { function(c) c.variant = "free" end, "the variant differs (brainking, the settings give free)" },
    { function(c) c.time = c.time / 2 end, "the time per move, the clock, the margin or a bot's spec differs" },
    { function(c) c.tc, c.time = "5+0.1", nil end, "the clock differs (none, the settings give 5+0.1)" },
    { function(c) c.margin = 0.5 end, "the time per move, the clock, the margin or a bot's spec differs" },
    { function(c) c.bots[2].spec = c.bots[2].spec .. ":seed=11" end, "a bot's spec differs" },
  }
  for i, case in ipairs(cases) do
    edit(case[1])
    local ok, err = pcall(T.run, quiet { out = dir, resume = true })
    assert(not ok and err:find(case[2], 1, true), "case " .. i .. ": " .. tostring(err))
    assert(read(dir .. "/games.pgn") == journal, "case " .. i .. ": the journal was changed")
    assert(not read(dir .. "/games.pgn.rejected"))
  end
  write(path, good)
  local again = T.run(base { out = dir, resume = true })
  assert(summary(again) == summary(full))
  cleanup()
end

tests["junk in the journal goes to games.pgn.rejected with counts; no valid record is dropped"] = function()
  local dir, full = finished_dir()
  local text = read(dir .. "/games.pgn")
  local recs = {}
  for r in text:gmatch("%[Event .-\n\n.-\n\n") do recs[#recs + 1] = r end
  assert(#recs == 12 and table.concat(recs) == text)
  local junk = { "a stray line at the start\n", "garbage after a complete record\n\n",
                 recs[3]:sub(1, 150) .. "\n", string.rep("\0", 32) }
  write(dir .. "/games.pgn", junk[1] .. recs[1] .. junk[2] .. recs[2] .. junk[3] ..
    table.concat(recs, "", 3) .. recs[5] .. junk[4])
  local said, played = {}, 0
  local res = T.run(base { out = dir, resume = true, log = function(m) said[#said + 1] = m end,
                           on_game = function() played = played + 1 end })
  assert(played == 0, "a valid record was dropped and its game replayed")
  assert(summary(res) == summary(full))
  assert(read(dir .. "/games.pgn") == table.concat(recs))
  local rejected = read(dir .. "/games.pgn.rejected")
  for i, j in ipairs(junk) do assert(rejected:find(j, 1, true), "junk " .. i .. " is not in the .rejected file") end
  assert(rejected:find(recs[5], 1, true), "the second copy of a game is kept in .rejected")
  assert(#said == 1 and said[1]:find("kept 12 game records, moved 5 records", 1, true), table.concat(said, "\n"))
  assert(said[1]:find("1 a second record of game", 1, true) and said[1]:find("1 incomplete", 1, true), said[1])
  cleanup()
end

tests["files are read up to their size: a link to a device never fills the memory"] = function()
  local files = require "konane.tournament.files"
  local dir = tmpdir()
  assert(os.execute("ln -s /dev/zero " .. dir .. "/games.pgn"))
  -- in a child with 1 GB of address space: reading to the end would fail there, not take the
  -- machine's memory (an ASan build cannot start under ulimit -v: there the sanitizer's own
  -- RSS limit stands in)
  local asan = (os.getenv("KONANE_CFLAGS") or ""):find("fsanitize=address", 1, true)
  local limit = asan and 'export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1000"; '
    or "ulimit -v 1000000; "
  local code, out = H.run { "sh", "-c", limit .. 'exec "$0" -e "$1"', konane.core.exe_path(),
    'local t, e = require("konane.tournament.files").read(' .. string.format("%q", dir .. "/games.pgn") ..
    ') io.write(tostring(t and #t), " ", tostring(e))' }
  assert(code == 0 and out == "0 nil", code .. ": " .. out)
  local text, err = files.read(dir)
  assert(text == nil and err:find("Is a directory", 1, true), tostring(err))
  write(dir .. "/empty", "")
  assert(files.read(dir .. "/empty") == "")
  write(dir .. "/some", "abc\0def")
  assert(files.read(dir .. "/some") == "abc\0def")
  cleanup()
end

tests["fuzzed tournament.cfg, JSON and journal texts give messages, never a crash"] = function()
  local json = require "konane.tournament.json"
  local journal = require "konane.tournament.journal"
  local dir = finished_dir()
  local good = read(dir .. "/tournament.cfg")
  local games = read(dir .. "/games.pgn")
  local state = 12345
  local function rnd(n)
    state = (state * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
    return (state >> 33) % n + 1
  end
  local bytes = { "{", "}", "[", "]", '"', ":", ",", "\\", "\n", " ", "0", "9", "-", "e", ".", "\0", "\255", "t", "n", "x" }
  local function mutate(text)
    for _ = 1, rnd(4) do
      local at = rnd(#text)
      local k = rnd(3)
      if k == 1 then
        text = text:sub(1, at - 1) .. text:sub(at + rnd(8))
      elseif k == 2 then
        text = text:sub(1, at - 1) .. bytes[rnd(#bytes)] .. text:sub(at)
      else
        text = text:sub(1, at - 1) .. text:sub(rnd(#text), rnd(#text)) .. text:sub(at)
      end
    end
    return text
  end
  local accepted = 0
  for _ = 1, 500 do
    local text = mutate(good)
    local ok, res = pcall(cfg.decode, text, "t.cfg")
    if ok then
      assert(type(res) == "table")
      accepted = accepted + 1
    else
      assert(type(res) == "string" and res:find("^t%.cfg"), tostring(res))
    end
    local v, err = json.decode(text, "x")
    assert(v ~= nil or (type(err) == "string" and err:find("^x:%d+: ")), tostring(err))
  end
  assert(accepted > 0 and accepted < 500, "mutations accepted: " .. accepted)
  for _ = 1, 60 do
    local text = mutate(games)
    for _, chunk in ipairs(journal.split(text)) do
      local r, why = journal.parse(chunk.text)
      assert(r or type(why) == "string")
    end
  end
  cleanup()
end

-- A process's state letter from /proc/PID/stat, or nil once it is gone.
local function proc_state(pid)
  local f = io.open("/proc/" .. pid .. "/stat", "r")
  local text = f and f:read("a")
  if f then f:close() end
  return text and text:match("%)%s+(%a)")
end

-- A tournament's workers are spawned in process groups of their own (pgroup); killed with
-- SIGKILL, the referee can sweep nothing, and a worker that only computes would play on until
-- its next write to the dead pipe (under load, minutes). They die with it now.
tests["a process spawned in its own group dies with a referee killed by SIGKILL"] = function()
  local referee = assert(core.spawn({ core.exe_path(), "-e", [[
    local core = require("konane").core
    local p = assert(core.spawn({ "sleep", "300" }, { pgroup = true }))
    io.stdout:write(p:pid(), "\n")
    io.stdout:flush()
    core.poll({}, 300)
  ]] }, { stderr = false }))
  local out, expired = "", H.patience(60, referee:pid(), true)
  while not out:find("\n") and not expired() do
    core.poll({ referee }, 0.1)
    out = out .. (referee:read() or "")
  end
  local child = assert(out:match("^(%d+)\n"), "no pid: " .. out)
  assert(proc_state(child) and proc_state(child) ~= "Z", "the child is not running")
  referee:kill(9)
  referee:wait(true)
  local t0 = core.clock()
  while proc_state(child) and proc_state(child) ~= "Z" and core.clock() - t0 < 10 do core.poll({}, 0.05) end
  local state = proc_state(child)
  assert(state == nil or state == "Z", "the group's process outlived its referee (state " .. tostring(state) .. ")")
end

return tests
