-- konane.tournament: round robin, gauntlet, Swiss and SPRT matches between bots; parallel,
-- resumable and shardable.
--
--   local tournament = require "konane.tournament"
--   local results = tournament.run { bots = { "greedy", "random" }, rows = 6, cols = 6,
--                                    games = 4, out = "t1" }
--
-- The schedule is a pure function of the settings: every game has a number, its two players and
-- colours, its opening and its own seed derived from the tournament seed, so the games played
-- (and the results) are the same whatever the number of workers, the shard, or the interruptions.
-- The directory 'out' holds tournament.cfg (the settings, as data), games.pgn (every game,
-- appended and put on disk as it ends: the journal a resumed run starts from) and results.json.
--
-- The package: settings (checking them), openings, schedule, game (one game), pool (playing a
-- queue of games, here or in worker processes) and worker (the worker process), journal
-- (games.pgn and its repair), cfg (tournament.cfg), results (standings, SPRT), report (text and
-- JSON), progress (the progress line), files (checked writes), json, util.

local cfg = require("konane.tournament.cfg")
local files = require("konane.tournament.files")
local game = require("konane.tournament.game")
local journal = require("konane.tournament.journal")
local openings = require("konane.tournament.openings")
local pool_mod = require("konane.tournament.pool")
local progress = require("konane.tournament.progress")
local report = require("konane.tournament.report")
local results = require("konane.tournament.results")
local schedule = require("konane.tournament.schedule")
local settings = require("konane.tournament.settings")
local util_now = require("konane.util").now

local M = {}

M.FORMATS, M.EVENT = settings.FORMATS, settings.EVENT
M.CONFIG_FILE, M.GAMES_FILE, M.RESULTS_FILE = "tournament.cfg", "games.pgn", "results.json"
-- The journal is fsync'ed at most this often (seconds): see konane.tournament.files.appender.
M.SYNC_EVERY = 0.1
-- Records of quick games in a row are written together, at most this many seconds after the
-- first of them ended (see Tournament:run).
M.GROUP = 0.02

M.settings = settings.check
M.compute = results.compute
M.report = report.text
M.results_json = report.json
M.terminal_progress = progress.terminal
M.in_shard = schedule.in_shard

local Tournament = {}
Tournament.__index = Tournament

-- The settings of the tournament saved in o.out, with the run options of 'o'.
local function load_saved(o)
  if not o.out then error("resume needs the tournament directory (out)", 0) end
  settings.check_keys(o, (function()
    local known = {}
    for _, k in ipairs(settings.KEYS) do known[k] = true end
    return known
  end)(), "the tournament settings")
  local path = o.out .. "/" .. M.CONFIG_FILE
  local text = files.read(path)
  if not text then error(o.out .. " holds no tournament to resume (no " .. M.CONFIG_FILE .. ")", 0) end
  local saved = cfg.decode(text, path)
  local ok, s = pcall(settings.from_saved, saved, o, o.out)
  if not ok then
    if s:find("differ", 1, true) then error(s, 0) end
    error(path .. ": " .. s, 0)
  end
  -- a hand-edited file must still describe openings that can be played
  for i, op in ipairs(s.openings_list) do
    local line = require("konane.tournament.json").line_of(saved.openings, i)
    s.openings_list[i] = openings.check(s, op, string.format("%s:%s opening %d", path,
      line and (line .. ":") or "", i))
  end
  return s
end

-- M.new(settings) -> tournament. Settings (all optional except bots):
--   bots     list of bot specs ("greedy", "alphabeta:depth=4", "path/bot.lua") or bot tables
--   format   "roundrobin" (default), "gauntlet" (the first bot against each other) or "swiss"
--   games    games per pairing and cycle (even, default 2: one opening, both colours; with
--            sprt, the most games of the match, default 1000)
--   rounds   round robin / gauntlet: times the schedule repeats (default 1); Swiss: rounds
--            (default ceil(log2(#bots)))
--   variant, rows, cols   the board (default: the variant's)
--   time     seconds per move (default 1)
--   tc       "BASE+INC": a chess clock per side
--   margin   seconds a move may take past its limit (on top of the referee's grace) and still
--            count, like cutechess-cli's timemargin (default 0)
--   openings nil (every pair of removals), "random:K" (K random plies per opening), a file
--            path, or a list of move strings
--   workers  games played at once in separate processes (default 1: built-in bots play in this
--            process, other bots in one worker process)
--   seed     the tournament seed (default 1)
--   out      directory for tournament.cfg, games.pgn and results.json (nil: no files)
--   resume   continue the tournament saved in 'out'
--   sprt     {elo0=, elo1=, alpha=, beta=}: a two-bot match stopped by the SPRT
--   shard    {I, N}: play only the I-th of N parts of the schedule
--   event    the Event tag of the records (default "konane tournament")
--   hang     seconds a worker may stay silent during a game (default max(30, 3 x time + 10,
--            2 x startup + 10))
--   startup  seconds an engine in a process of its own (ugi:CMD, a bot file) may take to start
--            and answer its handshake (default 10, konane.ugi.player's)
--   progress function(p) called after each game, or false; default: a line on a terminal
--   on_game  function(game, summary, text) called after each game
--   log      function(message) for warnings (default: stderr)
-- An unknown key raises "unknown option 'KEY'".
function M.new(o)
  if type(o) ~= "table" then error("tournament settings must be a table", 0) end
  local s
  if o.resume then
    s = load_saved(o)
  else
    s = settings.check(o)
    if s.out and (files.exists(s.out .. "/" .. M.CONFIG_FILE) or files.exists(s.out .. "/" .. M.GAMES_FILE)) then
      error(s.out .. " already holds a tournament: resume it, or choose another directory", 0)
    end
    s.openings_list = openings.resolve(s, (s.games // 2) * s.rounds)
  end
  local t = setmetatable({ s = s }, Tournament)
  t.log = o.log or function(msg) io.stderr:write(msg, "\n") end
  return t
end

-- The scheduled games known so far (all of them, except for Swiss rounds not yet paired).
function Tournament:schedule()
  local s = self.s
  if not self.games then
    if s.format == "swiss" then
      self.games, self.swiss = {}, schedule.new_swiss()
    else
      self.games = schedule.fixed(s)
    end
  end
  return self.games
end

-- Total number of games this run (or shard) will play when it is not stopped early.
function Tournament:total()
  local s = self.s
  if s.format == "swiss" then return schedule.swiss_total(s) end
  local n = 0
  for _, g in ipairs(self:schedule()) do if schedule.in_shard(s, g) then n = n + 1 end end
  return n
end

-- Makes the tournament directory, locks it for this process (a second process would play the
-- same games again) and, for a new tournament, writes tournament.cfg.
function Tournament:open_dir()
  local s = self.s
  files.mkdir(s.out)
  local c = require("konane").core
  if c.lock then
    local lf = io.open(s.out .. "/lock", "a")
    if lf then
      if not c.lock(lf) then
        lf:close()
        error(s.out .. " is in use by another tournament process", 0)
      end
      self.lock_file = lf -- held until run() returns (or the process ends)
    end
  end
  if not s.resume then
    if files.exists(s.out .. "/" .. M.CONFIG_FILE) or files.exists(s.out .. "/" .. M.GAMES_FILE) then
      error(s.out .. " already holds a tournament: resume it, or choose another directory", 0)
    end
    files.write_atomic(s.out .. "/" .. M.CONFIG_FILE, cfg.encode(settings.saved(s)))
  end
end

function Tournament:unlock()
  if self.lock_file then
    self.lock_file:close()
    self.lock_file = nil
  end
end

-- The records of games.pgn (repaired first, see konane.tournament.journal), by game number.
function Tournament:read_journal()
  local s = self.s
  local swiss = s.format == "swiss"
  local total = swiss and schedule.swiss_total(s) or #self.games
  local path = s.out .. "/" .. M.GAMES_FILE
  local records, said = journal.load(s, path, function(id)
    if swiss then -- Swiss: checked once its round is paired
      if id <= total then return false end
      return nil
    end
    return self.games[id]
  end, total)
  if said then self.log(said) end
  return records
end

-- An iterator over the batches of games to play: the whole schedule, or one Swiss round at a
-- time (paired from the results so far). Yields the number of the batch's first game.
function Tournament:batches(done)
  local s, games = self.s, self.games
  local first = s.format ~= "swiss" and 1 or nil
  return function()
    if first then
      local f = first
      first = nil
      return f
    end
    if s.format == "swiss" and self.swiss.round < s.rounds then
      return schedule.swiss_round(s, games, done, self.swiss)
    end
  end
end

-- Has the SPRT decided (no more games are needed)?
local function sprt_decided(s, games, done)
  if not s.sprt then return false end
  local st = results.sprt_state(s, games, done)
  return st.status == "H0" or st.status == "H1"
end

-- Runs the tournament (or continues it) and returns the results table (see results.compute)
-- with 'complete' (every scheduled game played), 'interrupted', 'scheduled' and for SPRT 'sprt'.
-- Raises on a failed write ("cannot write PATH: reason") without writing results.json.
function Tournament:run()
  local s, games = self.s, self:schedule()
  local done = {} -- summaries of the finished games, by number
  if s.out then self:open_dir() end
  local ok, err = pcall(function()
    local saved = s.resume and s.out and self:read_journal() or {}
    local out = s.out and files.appender(s.out .. "/" .. M.GAMES_FILE, M.SYNC_EVERY)
    -- the report's games, gathered as they end (the report then neither reads nor replays them)
    self.report_games = s.out and require("konane.report").collector() or nil
    local track = progress.new(s, self:total(), s.progress, s.sprt and function()
      local st = results.sprt_state(s, games, done)
      return string.format("LLR %.2f [%.2f, %.2f]", st.llr, st.lower, st.upper)
    end)
    -- Group commit: the records of games that end in quick succession are written to the
    -- journal together (one write() for up to M.GROUP seconds of games: on a machine where a
    -- system call is dear, one per game of a quick bot costs as much as the game). A game is
    -- counted (progress, on_game) only once its record is written, so a kill -9 never loses a
    -- game that was counted; it loses at most the records still gathered, which a resume plays
    -- again with the same seeds and results.
    local pending, texts, first_at = {}, {}, nil
    local function commit()
      if #pending == 0 then return end
      if out then out:append(table.concat(texts)) end -- in the kernel before it counts
      local list = pending
      pending, texts, first_at = {}, {}, nil
      for _, p in ipairs(list) do
        track:game(p[1], p[2], true, true)
        if s.on_game then s.on_game(p[1], p[2], p[3]) end
      end
      track:draw()
    end
    -- finished(g, record, text, quick): game 'g' ended; 'quick' says another quick game follows
    -- at once (its record may wait for the group), else everything gathered is written now
    local function finished(g, record, text, quick)
      if not text and (out or s.on_game) then text = game.text(record) end
      if self.report_games then self.report_games:add(record, g.id) end
      local r = game.summary(record)
      done[g.id] = r
      pending[#pending + 1] = { g, r, text }
      texts[#texts + 1] = text
      local now = util_now()
      first_at = first_at or now
      if not quick or now - first_at >= M.GROUP or #pending >= 256 then commit() end
    end
    local pool = pool_mod.new(s, finished, self.log)
    local okp, perr = pcall(function()
      track:draw()
      for first in self:batches(done) do
        local queue = {}
        for id = first, #games do
          local g, r = games[id], saved[id]
          if r then -- played before: counted, not played again
            if s.format == "swiss" then journal.check_pending(s, r, g, s.out .. "/" .. M.GAMES_FILE) end
            done[id] = game.summary(r)
            if self.report_games then self.report_games:add(r, id) end
            track:game(g, done[id], false, schedule.in_shard(s, g))
          elseif schedule.in_shard(s, g) then
            queue[#queue + 1] = g
          end
        end
        pool:play(queue, function() return sprt_decided(s, games, done) end)
      end
    end)
    pool:close()
    local okc, cerr = pcall(commit) -- whatever ended the run, what was gathered is written
    if okp and not okc then okp, perr = false, cerr end
    track:finish()
    if out then out:close() end
    if not okp then error(perr, 0) end
  end)
  local interrupted = not ok and tostring(err):find("interrupted!", 1, true) ~= nil
  if not ok and not interrupted then
    self:unlock()
    error(err, 0)
  end
  local res = self:results(done, interrupted)
  if s.out then
    local okw, werr = pcall(M.write_results, s.out, res, self.report_games)
    if not okw then
      self:unlock()
      error(werr, 0)
    end
  end
  self:unlock()
  return res
end

-- The results of the games in 'done': SPRT counts the decided prefix only.
function Tournament:results(done, interrupted)
  local s, games = self.s, self.games
  local counted, sprt = done, nil
  if s.sprt then
    sprt = results.sprt_state(s, games, done)
    counted = {}
    for id = 1, sprt.games do counted[id] = done[id] end
    local extra = 0
    for id in pairs(done) do if id > sprt.games then extra = extra + 1 end end
    sprt.uncounted = extra
  end
  local res = results.compute(s, games, counted, self.swiss)
  res.sprt = sprt
  res.scheduled = self:total()
  res.shard = s.shard and s.shard[2] > 1 and s.shard or nil
  res.interrupted = interrupted
  local n = 0
  for id in pairs(done) do if schedule.in_shard(s, games[id]) then n = n + 1 end end
  res.complete = not interrupted and (n >= res.scheduled or (sprt and (sprt.status == "H0" or sprt.status == "H1")) or false)
  if self.swiss then res.byes, res.bye_rounds = self.swiss.byes, self.swiss.bye_rounds end
  res.out = s.out
  return res
end

-- Writes every file made from the results into directory 'dir': results.json, then
-- report.html (konane.report; from the games gathered in 'games', a report collector, else
-- from games.pgn). Raises "cannot write PATH: reason" on a failed write.
function M.write_results(dir, res, games)
  files.write_atomic(dir .. "/" .. M.RESULTS_FILE, report.json(res))
  require("konane.report").save(dir, { games = games })
end

-- M.run(settings) -> results: new + run.
function M.run(o)
  return M.new(o):run()
end

M.merge = require("konane.tournament.merge")(M)

return M
