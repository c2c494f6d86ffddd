-- konane.tournament.pool: plays a queue of games, here or in worker processes.
--
-- pool.new(s, finished, log) -> pool; pool:play(queue, stop) plays the games of 'queue' (schedule
-- order) and calls finished(g, record, text) as each one ends; stop() is asked before each game
-- is handed out (an SPRT match stops once decided). pool:close() ends the workers.
--
-- Built-in bots are trusted code and play in this process when s.workers is 1: nothing else
-- reaches the speed of a tournament of quick bots. Otherwise (several workers, or a bot that is
-- not built in) each game goes to a worker process (konane.tournament.worker), in its own
-- process group. A worker that stays silent longer than the hang limit (s.hang, default
-- max(30, 3 x time + 10, 2 x startup + 10) s) while it runs (a CPU busy for half of it) or is
-- blocked is killed, and the side to move loses
-- that game with every move played so far and the reason (a bot stuck in a C call). While an
-- engine starts (the worker says so: "wait SECONDS", its handshake deadlines) the limit grows by
-- that much, since the worker itself ends a start that overruns (a handshake failure, charged
-- to that engine); a worker silent even past that is killed and charges no one. A worker
-- that dies during a game (a crash, kill -9), or is found stopped (SIGSTOP) at the hang limit,
-- charges no one: any process of this user can signal it, an engine of this or another game
-- included, so who caused it is not known; the game is played again, and a game whose worker
-- dies three times stops the tournament with the causes (no result is recorded for it). A new
-- worker takes the place of a dead one and the tournament goes on. A worker that dies before it
-- is ready (a broken installation) stops the tournament with its message.

local game = require("konane.tournament.game")
local journal = require("konane.tournament.journal")
local protocol = require("konane.tournament.worker")
local settings = require("konane.tournament.settings")
local util = require("konane.tournament.util")

local M = {}
-- A game played here in less than this many seconds is quick (see finished's 'quick').
M.QUICK = 0.005
local Pool = {}
Pool.__index = Pool

local function core() return require("konane").core end

-- Is 'p' a built-in bot (trusted, fit to play in this process)?
local function builtin(p)
  if p.bot then return true end
  local bot = require("konane.bot")
  local ok, head, _, is_path = pcall(bot.parse_spec, p.spec)
  if not ok or is_path then return false end
  for _, name in ipairs(bot.BUILTIN) do if name == head then return true end end
  return false
end

function M.new(s, finished, log)
  local here, own = s.workers <= 1, false
  for _, p in ipairs(s.players) do
    if not builtin(p) then here, own = false, true end
  end
  -- players in processes of their own (engines, bot files) without namespaces: said once
  local c = core()
  local boxed, why = true, nil
  if own and c.sandbox then boxed, why = c.sandbox() end
  if not boxed and log then
    log("warning: players in processes of their own run without a sandbox here (" .. tostring(why) ..
        "): they can signal and read every process of this user (docs/bots.md)")
  end
  return setmetatable({ s = s, finished = finished, log = log, here = here, workers = {}, counter = 0,
                        hang = s.hang or math.max(30, 3 * settings.longest_move(s) + 10,
                                                  2 * (s.startup or 0) + 10) }, Pool)
end

-- The command that runs a worker: this Lua interpreter (the konane host, or lua5.4 with the
-- module) and lua/konane/tournament_worker.lua, found on package.path.
local function worker_command()
  local c = core()
  local exe = c.exe_path and c.exe_path()
  if not exe then
    local lo = 0
    while _G.arg and _G.arg[lo - 1] do lo = lo - 1 end
    exe = _G.arg and _G.arg[lo] or "konane"
  end
  local script = package.searchpath("konane.tournament_worker", package.path)
  if not script then error("cannot find konane/tournament_worker.lua on package.path", 0) end
  return exe, script
end

function Pool:start_worker()
  if not self.exe then
    self.exe, self.script = worker_command()
    self.settings_text = protocol.settings_for_worker(self.s)
  end
  local proc, err = core().spawn({ self.exe, self.script, package.path, package.cpath },
                                 { pgroup = true, stdin = true })
  if not proc then error("cannot start a worker: " .. tostring(err), 0) end
  self.counter = self.counter + 1
  local addr = tonumber((tostring({}):match("0x(%x+)")), 16) or 0
  local nonce = string.format("%x", util.mix(os.time() + self.counter, math.floor(util.clock() * 1e9) ~ addr))
  local w = { proc = proc, buf = "", other = "", mark = protocol.MARK .. nonce .. " ", moves = {},
              last = util.clock() }
  proc:write(nonce .. "\n" .. "settings " .. #self.settings_text .. "\n" .. self.settings_text)
  self.workers[#self.workers + 1] = w
  return w
end

-- Ends what a dead or killed worker's players left behind (konane.ugi.player.sweep).
local function sweep()
  local c = core()
  if c.kill_strays then c.kill_strays() end
end

function Pool:drop(w)
  w.proc:kill()
  w.proc:close()
  sweep()
  for k, x in ipairs(self.workers) do
    if x == w then table.remove(self.workers, k) break end
  end
end

function Pool:close()
  for k = #self.workers, 1, -1 do
    self.workers[k].proc:kill()
    self.workers[k].proc:close()
    self.workers[k] = nil
  end
  sweep()
end

-- A record text from a worker, checked: it must be a complete record of game 'g'.
function Pool:received(g, text)
  local r, why = journal.parse(text)
  why = why or (r.id ~= g.id and ("game " .. r.id .. " instead of " .. g.id)) or journal.mismatch(self.s, r, g, 0)
  if why then error("a worker sent a bad record for game " .. g.id .. ": " .. why, 0) end
  self.finished(g, r, text)
end

-- The state letter of worker 'w''s process and the CPU seconds of all its threads (Linux's
-- /proc/PID/stat, in USER_HZ = 100 ticks a second); nil elsewhere.
local function proc_stat(w)
  local f = io.open("/proc/" .. tostring(w.proc:pid()) .. "/stat", "r")
  local line = f and f:read("l")
  if f then f:close() end
  -- (the command in parentheses may hold anything: the fields follow the last ')')
  local rest = line and line:match("%)%s+([^)]*)$")
  if not rest then return nil end
  local fields = {}
  for x in rest:gmatch("%S+") do fields[#fields + 1] = x end
  local ut, st = tonumber(fields[12]), tonumber(fields[13])
  return fields[1], ut and st and (ut + st) / 100 or 0
end

-- Worker 'w' has been silent past the hang limit 'hang': "stopped" (SIGSTOP, a tracer), "hung"
-- (it kept a CPU busy for half the limit since its last output, a loop in C, or it is blocked),
-- or nil: ready to run but given little CPU, it is only starved (the referee at nice 19 beside
-- other work runs at well under 1% of a core) and waits on; its side to move is not to blame.
-- Without /proc: "hung".
local function hang_state(w, hang)
  local state, cpu = proc_stat(w)
  if state == "T" or state == "t" then return "stopped" end
  if state == "R" and cpu - w.cpu_last < hang / 2 then return nil end
  return "hung"
end

-- Game 'g' lost its worker for a reason no player can be charged with ('why'): it goes back to
-- 'requeued' to be played again, at most three times in all; then the tournament stops with every
-- cause, and no result for the game (--resume plays it again).
function Pool:again(g, requeued, why)
  g.retries = (g.retries or 0) + 1
  g.causes = g.causes or {}
  g.causes[#g.causes + 1] = why
  if g.retries > 2 then
    local s = self.s
    error(string.format("game %d (%s against %s) lost its worker process three times (%s); no player "
      .. "is charged and no result is recorded for it: find what kills the workers (an engine that "
      .. "signals other processes, the system's out-of-memory killer), then --resume plays it again",
      g.id, s.players[g.black].name, s.players[g.white].name, table.concat(g.causes, "; ")), 0)
  end
  self.log(string.format("game %d: %s; no player is charged, the game is played again", g.id, why))
  requeued[#requeued + 1] = g
end

-- The game of worker 'w' ended without a record: the side to move loses.
function Pool:lost(w, termination, why)
  local g = w.game
  w.game = nil
  local record = game.forfeit(self.s, g, w.moves, termination, why)
  self.finished(g, record, nil)
end

function Pool:play(queue, stop)
  local s = self.s
  if self.here then
    -- how long the last game of each pairing took: the journal may gather the record of a
    -- quick game only while the next game is expected to be quick too
    local took = {}
    local function pair(g) return g.black * 65536 + g.white end
    for i, g in ipairs(queue) do
      if stop() then return end
      local t0 = util.clock()
      local record = game.play(s, g)
      local dt = util.clock() - t0
      took[pair(g)] = dt
      local nxt = queue[i + 1]
      self.finished(g, record, nil, dt < M.QUICK and nxt ~= nil and (took[pair(nxt)] or 1) < M.QUICK)
    end
    return
  end
  local requeued = {}
  local qi = 1
  while true do
    if stop() then return end
    -- bot tables exist only in this process: their games are played here
    while qi <= #queue and (s.players[queue[qi].black].bot or s.players[queue[qi].white].bot) do
      self.finished(queue[qi], game.play(s, queue[qi]), nil)
      qi = qi + 1
    end
    local busy = 0
    for _, w in ipairs(self.workers) do if w.game then busy = busy + 1 end end
    local pending = #requeued + (#queue - qi + 1)
    while #self.workers < s.workers and #self.workers < busy + pending do self:start_worker() end
    local waiting = {}
    for _, w in ipairs(self.workers) do
      if not w.game and w.ready then
        local g = table.remove(requeued, 1)
        if not g and qi <= #queue and not (s.players[queue[qi].black].bot or s.players[queue[qi].white].bot) then
          g = queue[qi]
          qi = qi + 1
        end
        if g then
          local text = protocol.game_for_worker(g)
          w.game, w.started, w.moves, w.last, w.allow = g, nil, {}, util.clock(), nil
          w.cpu_last = select(2, proc_stat(w)) or 0
          w.proc:write("game " .. #text .. "\n" .. text) -- a dead worker shows at EOF below
        end
      end
      waiting[#waiting + 1] = w.proc
    end
    busy = 0
    for _, w in ipairs(self.workers) do if w.game then busy = busy + 1 end end
    if busy == 0 and #requeued == 0 and qi > #queue then return end
    core().poll(waiting, 0.25)
    local now = util.clock()
    for _, w in ipairs({ table.unpack(self.workers) }) do
      local chunk = w.proc:read()
      if chunk and #chunk > 0 then
        w.last, w.cpu_last = now, select(2, proc_stat(w)) or 0
        for _, text in ipairs(protocol.consume(w, chunk)) do
          local g = w.game
          w.game = nil
          if g and w.started == g.id then self:received(g, text) end
        end
      end
      local limit = self.hang + (w.allow or 0)
      local hang = chunk ~= nil and w.game and now - w.last > limit and hang_state(w, limit)
      if chunk == nil then
        -- end of output: the worker process is gone
        local how, code = w.proc:wait(true)
        local why = how == "signal" and ("the worker process was killed by signal " .. tostring(code))
          or ("the worker process exited with status " .. tostring(code))
        local tail = w.other:gsub("%s+$", "")
        self:drop(w)
        if not w.ready then
          error("a worker failed before playing (" .. why .. ")" .. (tail ~= "" and (":\n" .. tail) or ""), 0)
        end
        local g = w.game
        w.game = nil
        if g then
          -- what the worker printed may hold host paths: it goes to the log, not the record
          if tail ~= "" then self.log(string.format("game %d: %s; its last output:\n%s", g.id, why, tail:sub(-300))) end
          self:again(g, requeued, why .. (w.started == g.id and " during the game" or " before the game began"))
        end
      elseif hang then
        self:drop(w)
        if w.started == w.game.id and hang == "hung" and not w.allow then
          self:lost(w, "time forfeit", string.format("no move for %.0f s (the hang limit): the worker was killed", now - w.last))
        else
          -- silent before the game began, or held stopped by a signal: no player is at fault
          local g = w.game
          w.game = nil
          self:again(g, requeued, hang == "stopped" and "the worker process was found stopped (SIGSTOP) at the hang limit"
            or w.allow and "the worker process was silent past an engine's start-up deadlines"
            or "the worker process was silent before the game began")
        end
      end
    end
  end
end

return M
