-- Tournaments: schedules, determinism across workers, journal and resume, SPRT, shards, hostile
-- bots and the command line. Small boards and quick bots keep every test well under a second or
-- two.
local konane = require "konane"
local T = require "konane.tournament"
local stats = require "konane.stats"
local pgn = require "konane.pgn"
local core = konane.core

local HOSTILE = "tests/lua/fixtures/tournament_hostile_bot.lua"

local H = dofile("tests/lua/helpers.lua")
local sh_quote = H.sh_quote

local tmpdir, cleanup = H.tmpdir, H.cleanup

local read = H.read

local write = H.write

local function sleep(s) core.poll({}, s) end

-- Runs the command line; returns exit code and the combined output.
local function cli(args)
  local argv = { core.exe_path(), "scripts/tournament.lua" }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  return H.run(argv)
end

local function quiet(o)
  o.progress = false
  o.log = o.log or function() end
  return o
end

local function base(extra)
  local o = { bots = { "greedy", "random", "random:seed=7" }, rows = 6, cols = 6, games = 2,
              time = 5 }
  for k, v in pairs(extra or {}) do o[k] = v end
  return quiet(o)
end

-- The per-bot lines of a result, to compare two runs.
local function summary(res)
  local out = {}
  for _, b in ipairs(res.bots) do
    out[#out + 1] = string.format("%s %d %d %d %.9f %.9f", b.name, b.games, b.wins, b.losses, b.elo,
      b.elo_error or -1)
  end
  return table.concat(out, "\n")
end

local function records_of(dir)
  local recs, err = pgn.read(read(dir .. "/games.pgn"))
  assert(not err, err)
  return recs
end

-- The games of a tournament directory not ended by the rules, one line each (for a message).
local function forfeits_of(dir)
  local out = {}
  for _, r in ipairs(records_of(dir)) do
    if r.termination ~= "normal" then out[#out + 1] = r.tags.Game .. " " .. r.termination .. ": " .. tostring(r.reason) end
  end
  return #out .. " games not ended by the rules\n" .. table.concat(out, "\n")
end

local tests = {}

tests["a round robin plays every pair on every opening with both colours"] = function()
  local dir = tmpdir()
  local res = T.run(base { out = dir, games = 4 })
  assert(res.games == 12 and res.complete, "12 games expected, got " .. res.games)
  local recs = records_of(dir)
  assert(#recs == 12)
  -- group by pair and opening: each (pair, opening) has one game with each colour
  local seen = {}
  for _, r in ipairs(recs) do
    local opening = r.moves[1] .. " " .. r.moves[2]
    local key = (r.black < r.white and (r.black .. "|" .. r.white) or (r.white .. "|" .. r.black)) ..
      "|" .. opening
    seen[key] = seen[key] or {}
    assert(not seen[key][r.black], "same colours twice on " .. key)
    seen[key][r.black] = true
  end
  local n = 0
  for _, v in pairs(seen) do
    n = n + 1
    local c = 0
    for _ in pairs(v) do c = c + 1 end
    assert(c == 2, "an opening was not played with both colours")
  end
  assert(n == 6, "3 pairs x 2 openings expected, got " .. n)
  for _, b in ipairs(res.bots) do assert(b.games == 8 and b.wins + b.losses == 8) end
  cleanup()
end

tests["results are the same with one worker and with two worker processes"] = function()
  local a = T.run(base { games = 4 })
  local dir = tmpdir()
  local b = T.run(base { games = 4, workers = 2, out = dir })
  assert(summary(a) == summary(b), summary(a) .. "\n--\n" .. summary(b))
  -- and the same seed gives the same games again
  local c = T.run(base { games = 4 })
  assert(summary(a) == summary(c))
  cleanup()
end

tests["a different seed plays different games"] = function()
  local a = T.new(base { games = 4, seed = 1 })
  local b = T.new(base { games = 4, seed = 2 })
  local ga, gb = a:schedule(), b:schedule()
  assert(#ga == #gb)
  assert(ga[1].seed ~= gb[1].seed)
end

tests["a gauntlet pairs the first bot with each other bot only"] = function()
  local dir = tmpdir()
  local res = T.run(base { format = "gauntlet", out = dir,
                           bots = { "greedy", "random", "random:seed=3", "random:seed=4" } })
  assert(res.games == 6)
  for _, r in ipairs(records_of(dir)) do
    assert(r.black == "greedy" or r.white == "greedy", r.black .. " - " .. r.white)
  end
  local json = read(dir .. "/results.json")
  assert(json:find('"games": 6'))
  cleanup()
end

tests["a Swiss tournament pairs by score, gives byes and avoids rematches"] = function()
  local bots = { "greedy", "random", "random:seed=4", "alphabeta:depth=1", "alphabeta:depth=2" }
  local dir = tmpdir()
  -- margin: on a loaded machine a stalled move must not become a forfeit in one run only
  local res = T.run(quiet { bots = bots, format = "swiss", rounds = 3, rows = 6, cols = 6,
                            games = 2, margin = 60, out = dir })
  -- 5 players: 2 boards a round, 2 games each, 3 rounds
  assert(res.games == 12 and res.complete, "12 games expected, got " .. res.games)
  local byes = 0
  for _, n in pairs(res.byes) do byes = byes + n end
  assert(byes == 3)
  for _, n in pairs(res.byes) do assert(n == 1, "a player got two byes") end
  local met = {}
  for _, r in ipairs(records_of(dir)) do
    local round = tonumber(r.tags.Round:match("^(%d+)"))
    local key = r.black < r.white and (r.black .. "|" .. r.white) or (r.white .. "|" .. r.black)
    if met[key] and met[key] ~= round then error("rematch of " .. key) end
    met[key] = round
  end
  local two = T.run(quiet { bots = bots, format = "swiss", rounds = 3, rows = 6, cols = 6,
                            games = 2, margin = 60, workers = 2 })
  assert(summary(res) == summary(two), summary(res) .. "\n---\n" .. summary(two) .. "\n" ..
    forfeits_of(dir) .. "\n" .. tostring(two.forfeits and require("konane.tournament.json").encode(two.forfeits)))
  cleanup()
end

tests["an interrupted Swiss tournament resumes to the results of an uninterrupted one"] = function()
  local bots = { "greedy", "random", "random:seed=4", "alphabeta:depth=1", "alphabeta:depth=2" }
  local function settings(extra)
    local o = quiet { bots = bots, format = "swiss", rounds = 3, rows = 6, cols = 6, games = 2, margin = 60 }
    for k, v in pairs(extra or {}) do o[k] = v end
    return o
  end
  local full = T.run(settings())
  local dir = tmpdir()
  -- Ctrl-C raises "interrupted!" wherever Lua is: here after the 6th game (round 2)
  local n = 0
  local res = T.run(settings { out = dir, on_game = function()
    n = n + 1
    if n == 6 then error("interrupted!", 0) end
  end })
  assert(res.interrupted and not res.complete and res.games == 6)
  assert(read(dir .. "/results.json"):find('"complete": false'))
  local played = 0
  local again = T.run(settings { out = dir, resume = true, on_game = function() played = played + 1 end })
  assert(played == 6, "6 games left, played " .. played)
  assert(again.complete and summary(again) == summary(full))
  cleanup()
end

tests["SPRT accepts H1 for a clearly stronger bot and stops"] = function()
  local dir = tmpdir()
  local res = T.run(quiet { bots = { "greedy", "random" }, rows = 6, cols = 6, games = 200,
                            sprt = { elo0 = 0, elo1 = 100, alpha = 0.05, beta = 0.05 }, out = dir })
  local s = res.sprt
  assert(s.status == "H1", "H1 expected, got " .. tostring(s.status))
  assert(s.games < 200 and res.games == s.games)
  -- the LLR is the binomial one over the counted games
  local t = stats.sprt { elo0 = 0, elo1 = 100 }
  assert(math.abs(s.llr - t.llr(s.wins, s.losses)) < 1e-12)
  assert(s.llr >= t.upper and t.llr(s.wins - 1, s.losses) < t.upper)
  -- swapped: the weaker bot first, H0
  local res2 = T.run(quiet { bots = { "random", "greedy" }, rows = 6, cols = 6, games = 200,
                             sprt = { elo0 = 0, elo1 = 100 } })
  assert(res2.sprt.status == "H0")
  assert(read(dir .. "/results.json"):find('"status": "H1"'))
  cleanup()
end

tests["an SPRT match needs two bots and no shards"] = function()
  local ok, err = pcall(T.new, base { sprt = { elo0 = 0, elo1 = 10 } })
  assert(not ok and err:find("exactly two bots"))
  ok, err = pcall(T.new, quiet { bots = { "greedy", "random" }, sprt = {}, shard = { 1, 2 } })
  assert(not ok and err:find("sharded"))
end

-- A finished 12-game run in a fresh directory, for damaging its journal: the uninterrupted
-- run's results, the directory, games.pgn's text and where each of its records starts.
local function finished_run()
  local full = T.run(base { games = 4 })
  local dir = tmpdir()
  T.run(base { games = 4, out = dir })
  local text = read(dir .. "/games.pgn")
  local starts = {}
  for pos in text:gmatch("()%[Event ") do starts[#starts + 1] = pos end
  assert(#starts == 12)
  return full, dir, text, starts
end

tests["a corrupt or truncated last record is dropped and replayed on resume"] = function()
  local full, dir, text, starts = finished_run()
  -- keep 9 records, then cut the 10th in its movetext
  local cut = text:sub(1, starts[10] - 1) .. text:sub(starts[10], starts[10] + 300)
  write(dir .. "/games.pgn", cut)
  local warnings = {}
  local res = T.run(base { games = 4, out = dir, resume = true,
                           log = function(m) warnings[#warnings + 1] = m end })
  assert(#warnings == 1 and warnings[1]:find("incomplete"), table.concat(warnings, "\n"))
  assert(summary(res) == summary(full))
  assert(#records_of(dir) == 12)
  assert(read(dir .. "/games.pgn.rejected"):sub(1, 7) == "[Event ")
  -- garbage (a power cut leaves zeros) after complete records
  write(dir .. "/games.pgn", read(dir .. "/games.pgn") .. string.rep("\0", 64))
  local again = T.run(base { games = 4, out = dir, resume = true })
  assert(summary(again) == summary(full) and #records_of(dir) == 12)
  cleanup()
end

tests["a record cut after its tags and run into the next is rejected on resume; both games are played again"] = function()
  local full, dir, text, starts = finished_run()
  -- record 5 cut at the end of its tag pairs (no newline), the next record right after it:
  -- "[Settings ...][Event ...": read as one game, record 6 under record 5's tags overridden
  local r5 = text:sub(starts[5], starts[6] - 1)
  local tags5 = r5:sub(1, r5:find("\n\n", 1, true) - 1)
  write(dir .. "/games.pgn", text:sub(1, starts[5] - 1) .. tags5 .. text:sub(starts[6]))
  local said = {}
  local res = T.run(base { games = 4, out = dir, resume = true, log = function(m) said[#said + 1] = m end })
  assert(summary(res) == summary(full))
  -- every game once in the journal (before: game 5's tags stayed, glued to game 6, and game 5
  -- was played again: two [Game "5"] in games.pgn)
  local seen = {}
  for n in read(dir .. "/games.pgn"):gmatch('%[Game "(%d+)"%]') do
    assert(not seen[n], "game " .. n .. " twice in games.pgn")
    seen[n] = true
  end
  assert(#records_of(dir) == 12)
  assert(read(dir .. "/games.pgn.rejected"):find(tags5, 1, true))
  assert(#said == 1 and said[1]:find("a second time in one game"), table.concat(said, "\n"))
  cleanup()
end

tests["resume never plays a game twice; a game the settings do not schedule stops it"] = function()
  local dir = tmpdir()
  local full = T.run(base { games = 4, out = dir })
  local text = read(dir .. "/games.pgn")
  local first = text:sub(1, text:find("%[Event ", 2) - 1)
  -- a second copy of game 1: moved to games.pgn.rejected, counted once
  write(dir .. "/games.pgn", text .. first)
  local played, said = 0, {}
  local res = T.run(base { games = 4, out = dir, resume = true, on_game = function() played = played + 1 end,
                           log = function(m) said[#said + 1] = m end })
  assert(played == 0, "no game should be replayed")
  assert(summary(res) == summary(full))
  assert(#records_of(dir) == 12)
  assert(read(dir .. "/games.pgn.rejected") == first)
  assert(#said == 1 and said[1]:find("kept 12 game records, moved 1 record") and said[1]:find("second record of game 1"),
    table.concat(said, "\n"))
  -- a record of a game this schedule does not have: the settings do not describe the games
  local foreign = first:gsub('%[Game "1"%]', '[Game "999"]')
  write(dir .. "/games.pgn", text .. foreign)
  local ok, err = pcall(T.run, base { games = 4, out = dir, resume = true })
  assert(not ok and err:find("game 999") and err:find("number of games differs"), tostring(err))
  assert(read(dir .. "/games.pgn") == text .. foreign, "nothing is changed")
  cleanup()
end

tests["resume refuses changed settings and a directory without a tournament"] = function()
  local dir = tmpdir()
  T.run(base { out = dir })
  local ok, err = pcall(T.new, base { out = dir, resume = true, games = 6 })
  assert(not ok and err:find("differs"), err)
  ok, err = pcall(T.new, base { out = dir })
  assert(not ok and err:find("already holds a tournament"), err)
  ok, err = pcall(T.new, { out = tmpdir(), resume = true })
  assert(not ok and err:find("no tournament"), err)
  cleanup()
end

tests["a margin lets a slow move count, is saved, and must agree on resume"] = function()
  -- a bot table whose first move of each game spins 0.06 s: 0.01 s per move loses it on time ...
  local function slow_first()
    local first
    return { name = "slow-first", new_game = function() first = true end, choose = function(_, g)
      if first then
        local t = core.clock()
        while core.clock() - t < 0.06 do end
        first = false
      end
      return g:moves()[1]
    end }
  end
  local function run(extra)
    local o = quiet { bots = { slow_first(), "greedy" }, rows = 6, cols = 6, games = 2, time = 0.01 }
    for k, v in pairs(extra) do o[k] = v end
    return T.run(o)
  end
  local res = run {}
  assert(res.forfeits["time forfeit"] == 2, "without a margin the slow first moves lose")
  -- ... and count with a margin of 30 s
  res = run { margin = 30 }
  assert(res.complete and not res.forfeits["time forfeit"], "with a margin they count")
  -- the margin is saved with the tournament and in the results
  local dir = tmpdir()
  T.run(base { out = dir .. "/t", margin = 30 })
  assert(read(dir .. "/t/tournament.cfg"):find('"margin": 30', 1, true))
  assert(read(dir .. "/t/results.json"):find('"margin": 30', 1, true))
  -- resuming with another margin is refused; with the same one (or none given) it is not
  local ok, err = pcall(T.new, base { out = dir .. "/t", resume = true, margin = 0 })
  assert(not ok and err:find("margin 0 differs from the saved tournament (30)", 1, true), err)
  assert(T.new(base { out = dir .. "/t", resume = true, margin = 30 }).s.margin == 30)
  assert(T.new(base { out = dir .. "/t", resume = true }).s.margin == 30)
  -- a tournament saved without a margin has a margin of 0
  T.run(base { out = dir .. "/u" })
  assert(not read(dir .. "/u/tournament.cfg"):find("margin", 1, true))
  assert(T.new(base { out = dir .. "/u", resume = true, margin = 0 }))
  ok, err = pcall(T.new, base { out = dir .. "/u", resume = true, margin = 1 })
  assert(not ok and err:find("margin 1 differs", 1, true), err)
  for _, bad in ipairs { -1, "1", 0 / 0, 1e7 } do
    ok, err = pcall(T.new, base { margin = bad })
    assert(not ok and err:find("margin must be a number of seconds", 1, true), tostring(err))
  end
  cleanup()
end

tests["a tournament killed with SIGKILL resumes to the results of an uninterrupted run"] = function()
  local dir = tmpdir()
  -- --margin 60: a move stalled on a loaded machine must not become a forfeit in one run only
  local args = { core.exe_path(), "scripts/tournament.lua", "--bot", "greedy", "--bot", "random",
                 "--bot", "alphabeta:depth=1", "--size", "6x6", "--games", "20", "--margin", "60", "--out", dir }
  local p = assert(core.spawn(args, { pgroup = true }))
  -- wait for some games (20 s in which the tournament could run: a starved test run waits
  -- longer), then kill -9 in the middle of the run
  local expired = H.patience(20, p:pid(), true)
  local n = 0
  while not expired() do
    sleep(0.01)
    local f = io.open(dir .. "/games.pgn", "rb")
    if f then
      local text = f:read("a")
      f:close()
      n = select(2, text:gsub("%[Event ", ""))
      if n >= 5 then break end
    end
    p:read()
  end
  p:kill(9)
  p:close()
  assert(n >= 5, "the tournament did not start")
  local code, out = cli { "--resume", "--out", dir, "--workers", "2" }
  assert(code == 0, out)
  local ref = tmpdir()
  local code2, out2 = cli { "--bot", "greedy", "--bot", "random", "--bot", "alphabeta:depth=1",
                            "--size", "6x6", "--games", "20", "--margin", "60", "--out", ref }
  assert(code2 == 0, out2)
  assert(read(dir .. "/results.json") == read(ref .. "/results.json"),
    "resumed: " .. forfeits_of(dir) .. "\nuninterrupted: " .. forfeits_of(ref))
  assert(#records_of(dir) == 60)
  cleanup()
end

tests["a tournament directory is used by one process at a time"] = function()
  local dir = tmpdir()
  T.run(base { out = dir })
  -- hold the lock as a running tournament would, from another process
  local code = string.format("local c = require 'konane.core'; local f = io.open(%q, 'a'); " ..
    "assert(c.lock(f)); print('locked'); io.stdout:flush(); io.read('l')", dir .. "/lock")
  local p = assert(core.spawn({ core.exe_path(), "-e", code }, { stdin = true }))
  local out = ""
  while not out:find("locked") do
    core.poll({ p }, 1)
    out = out .. (p:read() or error("helper died: " .. out))
  end
  local ok, err = pcall(T.run, base { out = dir, resume = true })
  p:kill()
  p:close()
  assert(not ok and err:find("in use"), tostring(err))
  -- once the holder is gone (killed), the lock is free again
  local again = T.run(base { out = dir, resume = true })
  assert(again.complete)
  cleanup()
end

tests["hostile bots forfeit their games and the tournament goes on"] = function()
  local dir = tmpdir()
  local res = T.run(quiet { bots = { "greedy", HOSTILE .. ":mode=loop", HOSTILE .. ":mode=raise",
                                     HOSTILE .. ":mode=nonsense" },
                            rows = 6, cols = 6, time = 0.1, out = dir, workers = 2 })
  assert(res.games == 12 and res.complete)
  for _, b in ipairs(res.bots) do
    if b.name:find("hostile") then
      -- against each other one of the pair wins; against greedy they always lose
      local vs = res.wins[1][b.index]
      assert(vs == 2, b.name .. " should lose both games against greedy")
    end
  end
  assert(res.forfeits["time forfeit"] and res.forfeits["error"] and res.forfeits["bad answer"])
  local reasons = {}
  for _, r in ipairs(records_of(dir)) do
    if r.termination ~= "normal" then
      reasons[r.termination] = r.reason
      -- the side that failed, the opening, and no host path in the names or the reason
      local side = r.winner == "black" and "white" or "black"
      assert(r.forfeit == side and r[side]:find("hostile"), tostring(r.forfeit))
      assert(r.opening and #r.opening == 2)
      assert(not (r.reason .. r.black .. r.white):find("/", 1, true), r.reason)
    end
  end
  assert(reasons["error"]:find("on purpose"), reasons["error"])
  cleanup()
end

-- The worker processes of this process (children running tournament_worker.lua).
local function my_workers()
  local f = assert(io.open("/proc/self/stat"))
  local me = f:read("l"):match("^(%d+)")
  f:close()
  local out = {}
  for _, name in ipairs(core.listdir("/proc") or {}) do
    if name:match("^%d+$") then
      local st = io.open("/proc/" .. name .. "/stat")
      local line = st and st:read("l")
      if st then st:close() end
      -- the command may hold spaces and parentheses: the ppid follows the last ')'
      local ppid = line and line:match("%) %S+ (%d+)")
      if ppid == me then out[#out + 1] = tonumber(name) end
    end
  end
  return out
end

tests["a worker process killed during a game is replaced and the game played again"] = function()
  local dir = tmpdir()
  local killed = false
  local res = T.run(quiet { bots = { "alphabeta:depth=5", "alphabeta:depth=4" }, games = 8,
                            workers = 2, out = dir, on_game = function()
    if not killed then
      killed = true
      for _, pid in ipairs(my_workers()) do os.execute("kill -9 " .. pid) end
    end
  end })
  assert(killed)
  assert(res.games == 8 and res.complete, "every game is played: " .. res.games)
  -- no player is charged with a worker's death
  for _, r in ipairs(records_of(dir)) do
    assert(r.termination == "normal", r.termination .. ": " .. tostring(r.reason))
  end
  cleanup()
end

tests["shards together play the whole schedule and merge to the full results"] = function()
  local full = T.run(base { games = 4 })
  local dirs = {}
  for i = 1, 3 do
    dirs[i] = tmpdir()
    local r = T.run(base { games = 4, shard = { i, 3 }, out = dirs[i] })
    assert(r.games > 0 and r.games < 12)
  end
  local out = tmpdir() .. "/merged"
  local merged = T.merge(dirs, out)
  assert(merged.games == 12 and merged.complete)
  assert(summary(merged) == summary(full))
  assert(#records_of(out) == 12)
  local part = T.merge({ dirs[1], dirs[2] })
  assert(not part.complete and part.missing > 0)
  cleanup()
end

-- A copy of tournament directory 'dir' whose first record is changed by 'edit' (a function of
-- the record's text).
local function edited_copy(dir, edit)
  local copy = tmpdir()
  write(copy .. "/tournament.cfg", read(dir .. "/tournament.cfg"))
  local text = read(dir .. "/games.pgn")
  local first = text:match("^%[Event .-\n\n.-\n\n")
  write(copy .. "/games.pgn", edit(first) .. text:sub(#first + 1))
  return copy
end

local FLIP = { ["1-0"] = "0-1", ["0-1"] = "1-0" }

tests["a record whose result contradicts its moves is never counted; two different records of a game stop a merge"] = function()
  local full = T.run(base { games = 4 })
  local dirs = {}
  for i = 1, 2 do
    dirs[i] = tmpdir()
    T.run(base { games = 4, shard = { i, 2 }, out = dirs[i] })
  end
  -- the winner swapped, tag and movetext alike: the moves say the other side won
  local flipped = edited_copy(dirs[1], function(r)
    local res = r:match('%[Result "(%d%-%d)"%]')
    local a, b = r:find('[Result "' .. res .. '"]', 1, true)
    r = r:sub(1, a - 1) .. '[Result "' .. FLIP[res] .. '"]' .. r:sub(b + 1)
    return r:sub(1, -6) .. FLIP[res] .. "\n\n"
  end)
  local said = {}
  local merged = T.merge({ flipped, dirs[2] }, nil, function(m) said[#said + 1] = m end)
  assert(merged.missing == 1, merged.missing)
  assert(summary(merged) ~= summary(full), summary(merged))
  assert(#said == 1 and said[1]:match("games%.pgn:1: skipped a record: [^\n]-a result that contradicts its moves"),
    table.concat(said, "\n"))
  -- a resume moves it to .rejected and plays the game again: the results are the full run's
  local played = 0
  local res = T.run(base { games = 4, shard = { 1, 2 }, out = flipped, resume = true,
                           on_game = function() played = played + 1 end, log = function() end })
  assert(played == 1)
  assert(read(flipped .. "/games.pgn.rejected"):find("[Game \"", 1, true))
  assert(res.games == T.merge({ dirs[1] }).games)
  assert(summary(T.merge({ flipped, dirs[2] })) == summary(full))
  -- a valid record that tells another game (a forfeit of the loser): the merge names both
  local forfeit = edited_copy(dirs[1], function(r)
    local loser = r:find('[Result "1-0"]', 1, true) and "white" or "black"
    return (r:gsub('%[Termination "normal"%]', '[Termination "time forfeit"]')
             :gsub('%[Reason "[^"]*"%]', '[Reason "' .. loser .. ' (x): took too long"]')
             :gsub('%[Game ', '[Forfeit "' .. loser .. '"]\n[Game ', 1))
  end)
  assert(#T.merge({ forfeit }).bots > 0)
  for _, order in ipairs { { dirs[1], forfeit, dirs[2] }, { forfeit, dirs[1], dirs[2] } } do
    local ok, err = pcall(T.merge, order, tmpdir() .. "/m")
    assert(not ok and err:find("1 game is recorded differently in two directories", 1, true), tostring(err))
    assert(err:find("games.pgn:1 says", 1, true) and err:find("won (time forfeit)", 1, true), err)
  end
  cleanup()
end

tests["openings come from a file of moves or positions, checked line by line"] = function()
  local dir = tmpdir()
  local file = dir .. "/openings.txt"
  local g = konane.new { rows = 6, cols = 6 }
  g:play("a6")
  g:play("b6")
  write(file, "# three openings\n c4 c3\n\n1. a6 b6 2. a4-a6\n" .. g:fen() .. " a4-a6 b4-b6\n")
  local res = T.run(base { openings = file, games = 6, out = dir .. "/t" })
  assert(res.games == 18)
  local seen = {}
  for _, r in ipairs(records_of(dir .. "/t")) do
    local key = (r.fen and "fen " or "") .. table.concat(r.moves, " ", 1, 2)
    seen[key] = (seen[key] or 0) + 1
  end
  assert(seen["c4 c3"] == 6 and seen["a6 b6"] == 6 and seen["fen a4-a6 b4-b6"] == 6)
  -- the same from an editor that starts the file with a byte order mark and ends lines with
  -- CRLF, as moves and as PGN (whose "[" the mark hid: it was read as lines of moves)
  local pgn_text = konane.pgn.write(konane.pgn.read("[Board \"6x6\"]\n\n1. c4 c3 *\n")[1])
  for _, text in ipairs { "# two\r\n c4 c3\r\n1. a6 b6 2. a4-a6\r\n", pgn_text } do
    write(file, "\239\187\191" .. text:gsub("\r?\n", "\r\n"))
    local t = T.new(base { openings = file })
    local first = t.s.openings_list[1].moves
    assert(table.concat(first, " ") == "c4 c3", table.concat(first, " "))
  end
  write(file, "c4 c3\nc4 z9\n")
  local ok, err = pcall(T.new, base { openings = file })
  assert(not ok and err:find("openings.txt:2:") and err:find("z9"), err)
  -- random openings: sampled with the seed, the same each time
  local a = T.new(base { openings = "random:4" })
  local b = T.new(base { openings = "random:4" })
  assert(#a.s.openings_list[1].moves == 4)
  assert(table.concat(a.s.openings_list[1].moves, " ") == table.concat(b.s.openings_list[1].moves, " "))
  cleanup()
end

tests["results.json has the games and per bot the name, games, wins, losses, score and Elo"] = function()
  local dir = tmpdir()
  T.run(base { out = dir })
  local json = read(dir .. "/results.json")
  assert(json:find('"games": 6'))
  for _, key in ipairs { "name", "games", "wins", "losses", "score", "elo", "elo_error" } do
    assert(json:find('"' .. key .. '": '), key)
  end
  cleanup()
end

tests["a bot file under a path that is not UTF-8: results.json and tournament.cfg stay UTF-8, resume matches"] = function()
  local json = require "konane.tournament.json"
  local odd = "b\255\195(\237\160\128"  -- a lone 0xff, a cut 'é', an encoded surrogate
  assert(utf8.len(json.quote(odd)) and json.decode(json.quote(odd)) == odd)
  assert(json.decode('"\\udcff"') == "\255" and json.decode('"\\udc41"') == nil)
  local dir = tmpdir()
  local sub = dir .. "/" .. odd
  assert(os.execute("mkdir " .. sh_quote(sub)))
  write(sub .. "/g.lua", read("examples/bots/greedy.lua"))
  local o = base { out = dir .. "/t", bots = { sub .. "/g.lua", "random" }, games = 2,
                   on_game = function() error("interrupted!", 0) end }
  assert(T.run(o).games == 1)
  for _, f in ipairs { "results.json", "tournament.cfg" } do
    local text = read(dir .. "/t/" .. f)
    assert(utf8.len(text), f .. " is not UTF-8")
    assert(text:find("\\udcff", 1, true), f)
  end
  local played = 0
  o.resume, o.on_game = true, function() played = played + 1 end
  assert(T.run(o).complete and played == 1, "games played on resume: " .. played)
  cleanup()
end

tests["on a terminal a progress line counts the games, and it is erased at the end"] = function()
  -- script(1) runs the command on a pseudo-terminal; without it there is nothing to check
  if not os.execute("command -v script >/dev/null 2>&1") then return end
  local dir = tmpdir()
  local cmd = string.format("%s scripts/tournament.lua --bot greedy --bot random --size 6x6 " ..
    "--games 4 --out %s/t", sh_quote(core.exe_path()), sh_quote(dir))
  local code, text = H.run { "script", "-qfec", cmd, "/dev/null" }
  assert(code == 0, text)
  assert(text:find("4/4 games", 1, true) and text:find("games/s", 1, true), text)
  assert(text:find("\r\27%[K"), "the progress line is erased")
  assert(text:find("Rank"), text)
  cleanup()
end

tests["the command line rejects bad options with exit status 2"] = function()
  local cases = {
    { { "--bot", "greedy" }, "at least two" },
    { { "--bot", "greedy", "--bot", "nosuchbot" }, "unknown bot" },
    { { "--bot", "greedy", "--bot", "random", "--games", "3" }, "even" },
    { { "--bot", "greedy", "--bot", "random", "--games", "x" }, "positive integer" },
    { { "--bot", "greedy", "--bot", "random", "--format", "knockout" }, "roundrobin" },
    { { "--bot", "greedy", "--bot", "random", "--size", "0x9" }, "RxC" },
    { { "--bot", "greedy", "--bot", "random", "--time", "-1" }, "positive number" },
    { { "--bot", "greedy", "--bot", "random", "--sprt", "elo0=5,elo1=1" }, "elo1" },
    { { "--bot", "greedy", "--bot", "random", "--sprt", "gamma=1" }, "elo0=" },
    { { "--bot", "greedy", "--bot", "random", "--shard", "3/2" }, "I/N" },
    { { "--bot", "greedy", "--bot", "random", "--variant", "nosuch" }, "nosuch" },
    { { "--frobnicate" }, "unknown option" },
    { { "--resume" }, "--out" },
    { { "--bot", "greedy", "--bot", "random", "--time", "1e308" }, "at most 1000000" },
    { { "--bot", "greedy", "--bot", "random", "--time", "nan" }, "positive number" },
    { { "--bot", "greedy", "--bot", "random", "--out=--help" }, "looks like an option" },
    { { "--bot", "greedy", "--bot", "random", "--out", "-x" }, "looks like an option" },
    { { "--bot", "greedy", "--bot", "random", "--games", "99999999" }, "at most" },
    { { "--bot", "greedy", "--bot", "random", "--workers", "100000" }, "at most" },
    { { "--bot", "greedy", "--bot", "random", "--openings", "random:100000" }, "at most" },
    { { "--bot", "greedy", "--bot", "random", "--openings", "random:-1" }, "K must be a whole number of plies" },
    { { "--bot", "greedy", "--bot", "random", "--startup", "nan" }, "--startup expects a positive number" },
    { { "--bot", "greedy", "--bot", "random", "--openings", "/nonexistent/openings.txt" }, "openings" },
    { { "--bot", "greedy", "--bot", "random", "--tc", "fast" }, "--tc: bad time control 'fast'" },
    { { "--bot", "greedy", "--bot", "random", "--tc", "1e99+0" }, "--tc:" },
    { { "--bot", "greedy", "--bot", "random", "--margin", "-0.1" }, "--margin expects a number of seconds" },
    { { "--bot", "greedy", "--bot", "random", "--margin", "soon" }, "--margin expects a number of seconds" },
  }
  local before = table.concat(core.listdir(".") or {}, "\n")
  for _, c in ipairs(cases) do
    local code, out = cli(c[1])
    assert(code == 2, table.concat(c[1], " ") .. ": exit " .. tostring(code) .. "\n" .. out)
    assert(out:find(c[2], 1, true), table.concat(c[1], " ") .. ": " .. out)
    assert(not out:find("%.lua:%d+:"), "a Lua position in: " .. out)
  end
  -- nothing was created: no directory named after a bad value, no default tournament-DATE
  assert(table.concat(core.listdir(".") or {}, "\n") == before, "a bad option created a file")
end

tests["a bot file that is a directory is refused at the start with exit status 2"] = function()
  local dir = tmpdir()
  assert(os.execute("mkdir -p " .. sh_quote(dir .. "/bots/dir.lua")))
  local code, out = cli { "--bot", dir .. "/bots/dir.lua", "--bot", "random", "--size", "4x4", "--out", dir .. "/t" }
  assert(code == 2 and out:find("Is a directory", 1, true), out)
  assert(not core.listdir(dir .. "/t"), "nothing is created")
  cleanup()
end

tests["a bot named with control bytes or over 200 bytes: clean records and files, and --resume works"] = function()
  local dir = tmpdir()
  -- a file name may hold any byte but '/' and NUL, and may be 255 bytes long
  local esc = dir .. "/esc\27[31mred\1\255.lua"
  local long = dir .. "/" .. ("b"):rep(240) .. ".lua"
  local bot = "return { choose = function(self, game) return game:moves()[1] end }\n"
  write(esc, bot)
  write(long, bot)
  local code, out = cli { "--bot", esc, "--bot", long, "--bot", "random", "--size", "4x4", "--games", "2",
                          "--out", dir .. "/t" }
  assert(code == 0, out)
  -- no raw control byte reaches the terminal, the records or the JSON files, and the name is
  -- UTF-8 (the JSON files also keep the spec, a path, byte for byte: it must open the file again)
  assert(not out:find("[%z\1-\9\11-\31\127]"), "a raw control byte in the output")
  assert(out:find("esc\\x1b[31mred\\x01\\xff", 1, true), out)
  for _, f in ipairs { "games.pgn", "results.json", "tournament.cfg", "report.html" } do
    local text = read(dir .. "/t/" .. f)
    assert(not text:find("[%z\1-\9\11-\31\127]"), "a raw control byte in " .. f)
    if f == "games.pgn" or f == "report.html" then assert(utf8.len(text), f .. " is not UTF-8") end
  end
  assert(#records_of(dir .. "/t") == 6)
  -- the saved names are taken back: tournament.cfg refused a name over 200 bytes
  code, out = cli { "--resume", "--out", dir .. "/t" }
  assert(code == 0 and not out:find("longer than"), out)
  assert(#records_of(dir .. "/t") == 6)
  cleanup()
end

tests["a bad openings file is reported as FILE:LINE by the command line"] = function()
  local dir = tmpdir()
  write(dir .. "/op.txt", "c4 c3\n\nc4 z9\n")
  local code, out = cli { "--bot", "greedy", "--bot", "random", "--size", "6x6", "--openings",
                          dir .. "/op.txt", "--out", dir .. "/t" }
  assert(code == 2, out)
  assert(out:find(dir .. "/op.txt:3: move 2", 1, true) and out:find("z9", 1, true), out)
  assert(not core.listdir(dir .. "/t"), "nothing is created")
  cleanup()
end

tests["--help documents every option"] = function()
  local code, out = cli { "--help" }
  assert(code == 0)
  for _, o in ipairs { "--bot", "--games", "--format", "--rounds", "--variant", "--size", "--time",
                       "--openings", "--workers", "--seed", "--out", "--resume", "--sprt", "--tc", "--margin", "ugi:",
                       "--shard", "--merge", "--startup" } do
    assert(out:find(o, 1, true), o)
  end
end

tests["the command line prints the standings and writes the files"] = function()
  local dir = tmpdir()
  local code, out = cli { "--bot", "greedy", "--bot", "random", "--bot", "random:seed=9",
                          "--size", "6x6", "--out", dir .. "/t", "--workers", "2" }
  assert(code == 0, out)
  assert(out:find("Rank") and out:find("Elo") and out:find("Crosstable") and out:find("superiority"), out)
  assert(not out:find("games/s"), "no progress line when not on a terminal")
  local code2, out2 = cli { "--merge", dir .. "/t" }
  assert(code2 == 0 and out2:find("6 of 6 games"), out2)
  cleanup()
end

tests["the API refuses a bot file that is not there before any game"] = function()
  for _, spec in ipairs { "sh some/file.sh", "/nonexistent/bot.lua:depth=3" } do
    local ok, err = pcall(T.new, base { bots = { spec, "random" } })
    assert(not ok and err:find("bot 1: cannot load bot", 1, true), tostring(err))
  end
end

tests["a UGI engine whose program is not there is refused before any game"] = function()
  -- it played every game as a handshake failure and exited 0
  for spec, want in pairs { ["ugi:/nonexistent/engine --x"] = "cannot run '/nonexistent/engine': no such file",
                            ["ugi:no-such-konane-engine"] = "'no-such-konane-engine': no such program on PATH" } do
    local ok, err = pcall(T.new, base { bots = { "random", spec } })
    assert(not ok and err:find("bot 2: " .. spec, 1, true) and err:find(want, 1, true), tostring(err))
  end
  local dir = tmpdir()
  local code, out = cli { "--bot", "ugi:/nonexistent/engine", "--bot", "random", "--out", dir .. "/t" }
  assert(code == 2 and out:find("no such file", 1, true) and not io.open(dir .. "/t/games.pgn"), out)
  -- a program found along PATH, or by its path, passes
  assert(T.settings { bots = { "ugi:python3 examples/ugi/konane_bot.py", "ugi:/bin/sh -c x" } })
  cleanup()
end

tests["an --out that names a file exits 2 before anything is printed"] = function()
  -- it printed the header, then failed to make the directory with exit 1
  local dir = tmpdir()
  local file = dir .. "/a-file"
  H.write(file, "keep me\n")
  local code, out = cli { "--bot", "random", "--bot", "greedy", "--size", "4x4", "--out", file }
  assert(code == 2 and out:find("--out " .. file .. ": a file, not a directory", 1, true), out)
  assert(not out:find("Round robin", 1, true) and H.read(file) == "keep me\n", out)
  code, out = cli { "--bot", "random", "--bot", "greedy", "--size", "4x4", "--games", "2", "--out", dir }
  assert(code == 0, out)
  cleanup()
end

tests["a misspelt setting raises unknown option"] = function()
  local ok, err = pcall(T.settings, { bots = { "greedy", "random" }, gmaes = 4 })
  assert(not ok and err:find("unknown option 'gmaes'", 1, true), tostring(err))
  ok, err = pcall(T.new, { bots = { "greedy", "random" }, wrokers = 2 })
  assert(not ok and err:find("unknown option 'wrokers'", 1, true), tostring(err))
  ok, err = pcall(T.new, { bots = { "greedy", "random" }, out = "x", resume = true, sede = 2 })
  assert(not ok and err:find("unknown option 'sede'", 1, true), tostring(err))
end

tests["the resume hint is the command as typed, konane-tournament when run from the PATH"] = function()
  local dir = tmpdir()
  -- results.json cannot be written: the run stops with the hint
  local function failing(sub)
    assert(os.execute("mkdir -p " .. sh_quote(dir .. "/" .. sub) .. " && ln -s /dev/full " ..
      sh_quote(dir .. "/" .. sub .. "/results.json.tmp")))
    return dir .. "/" .. sub
  end
  local out1 = failing("a")
  local code, out = cli { "--bot", "greedy", "--bot", "random", "--size", "6x6", "--out", out1 }
  assert(code == 1 and out:find("cannot write " .. out1 .. "/results.json", 1, true), out)
  assert(out:find("\n  " .. core.exe_path() .. " scripts/tournament.lua --resume --out " .. out1, 1, true), out)
  -- installed: konane-tournament on the PATH runs the script through its #! line
  local bin = dir .. "/bin"
  assert(os.execute(string.format("mkdir -p %s && ln -s %s %s/konane && ln -s %s/scripts/tournament.lua %s/konane-tournament",
    sh_quote(bin), sh_quote(core.exe_path()), sh_quote(bin), sh_quote(os.getenv("PWD") or "."), sh_quote(bin))))
  local out2 = failing("b")
  local p = assert(core.spawn { "env", "PATH=" .. bin .. ":" .. (os.getenv("PATH") or ""), "konane-tournament",
                                "--bot", "greedy", "--bot", "random", "--size", "6x6", "--out", out2 })
  local text = {}
  while true do
    core.poll({ p }, 1)
    local s = p:read()
    if s == nil then break end
    text[#text + 1] = s
  end
  local _, code2 = p:wait(true)
  text = table.concat(text)
  assert(code2 == 1 and text:find("\n  konane-tournament --resume --out " .. out2, 1, true), text)
  cleanup()
end

tests["--startup sets the handshake deadline of an engine played in a worker process"] = function()
  local dir = tmpdir()
  -- an engine that takes 1 s to start: 0.3 s is too short
  local slow = "ugi:sh -c 'sleep 1; exec \"$0\" --ugi random' " .. core.exe_path()
  local code, out = cli { "--bot", slow, "--bot", "random", "--size", "6x6", "--games", "2",
                          "--startup", "0.3", "--margin", "60", "--out", dir .. "/a" }
  assert(code == 0, out)
  local recs = records_of(dir .. "/a")
  assert(#recs == 2, out)
  for _, r in ipairs(recs) do
    assert(r.termination == "handshake failure" and r.reason:find("handshake failed: no %a+ within 0%.300 s"),
      tostring(r.termination) .. ": " .. tostring(r.reason))
  end
  assert(not read(dir .. "/a/tournament.cfg"):find("startup", 1, true), "a run option, not saved")
  -- a longer deadline lets the slow engine play (300 s: a hang guard on a loaded machine)
  code, out = cli { "--bot", slow, "--bot", "random", "--size", "6x6", "--games", "2", "--margin", "60",
                    "--startup", "300", "--out", dir .. "/b" }
  assert(code == 0, out)
  for _, r in ipairs(records_of(dir .. "/b")) do assert(r.termination == "normal", tostring(r.reason)) end
  code, out = cli { "--bot", "greedy", "--bot", "random", "--startup", "0", "--out", dir .. "/c" }
  assert(code == 2 and out:find("--startup expects a positive number of seconds", 1, true), out)
  local ok, err = pcall(T.settings, { bots = { "greedy", "random" }, startup = -1 })
  assert(not ok and err:find("startup must be a positive number", 1, true), tostring(err))
  cleanup()
end

tests["the command line takes a chess clock and a UGI engine (the Python example)"] = function()
  local dir = tmpdir()
  -- a loaded machine must not fail this test: --startup 300 is a hang guard for the handshake (a
  -- landing's make test beside a two-worker benchmark gets a few percent of a core, and python3
  -- alone took 10-13 s to start then), and --margin 60 keeps a stalled move from a time forfeit
  -- (the clock still pays the real time; the margin is saved and a resume takes it back)
  local code, out = cli { "--bot", "ugi:python3 examples/ugi/konane_bot.py", "--bot", "greedy", "--size", "6x6",
                          "--games", "4", "--tc", "5+0.1", "--margin", "60", "--startup", "300",
                          "--out", dir .. "/t" }
  assert(code == 0, out)
  assert(out:find("clock 5+0.1", 1, true), out)
  local recs = records_of(dir .. "/t")
  assert(#recs == 4)
  for _, r in ipairs(recs) do
    assert(r.tags.TimeControl == "5+0.1", tostring(r.tags.TimeControl))
    assert(r.black == "ugi:python3 konane_bot.py" or r.white == "ugi:python3 konane_bot.py", r.black .. " " .. r.white)
    assert(r.termination == "normal", tostring(r.reason))
  end
  local cfg_text = read(dir .. "/t/tournament.cfg")
  assert(cfg_text:find('"tc": "5+0.1"', 1, true) and not cfg_text:find('"time"', 1, true), cfg_text)
  assert(cfg_text:find('"margin": 60', 1, true), cfg_text)
  -- the clock is part of the saved settings: resuming takes it back
  local code2, out2 = cli { "--resume", "--out", dir .. "/t", "--startup", "300" }
  assert(code2 == 0 and out2:find("clock 5+0.1", 1, true), out2)
  cleanup()
end

return tests
