-- konane.ugi.player: a player in another process, spoken to in UGI over pipes (the referee's side).
--
-- An external engine (`ugi:CMD`, konane.bot{ugi = {...}}) and a bot file (run as
-- `konane --ugi FILE` in a process of its own) are both players of this kind. The referee
-- (konane.play) asks them for moves through the bot interface (new_game, choose, done, plus
-- claim for the result check) and checks everything they answer itself.
--
-- Each engine process is started with OS limits (konane.core.spawn: address space from the
-- memory budget, CPU time, its own process group, no descriptors but its pipes, stderr to
-- /dev/null or a capped log) and kept alive from one game to the next in a pool; an engine that
-- fails (crash, hang, nonsense) is killed, its group with it, and the next game starts a new one.
-- Every read has a deadline: a move's is the referee's time for it plus a grace.

local M = {}

-- Idle engine processes by their key (command, limits, options), reused for the next game.
local pool = {}

M.defaults = {
  startup = 10,               -- seconds for the handshake (ugi ... ugiok, isready ... readyok)
  time = 10,                  -- seconds per move when the game has no time limit
  query = 5,                  -- seconds for a query answer
  memory = 256 * 1024 * 1024, -- bytes of address space for a bot file's process
  cpu = 3600,                 -- CPU seconds of one process (it is restarted after that)
  grace = 0.05,               -- seconds tolerated past a deadline before the kill
  write = 5,                  -- seconds a command may wait for an engine to read its input
  max_output = 1 << 20,       -- bytes of other output tolerated while waiting for one answer
  alive = 0.5,                -- seconds between looks at the process while an answer is awaited
}

local MAX_LINE = 65536

-- Paths every player process sees read-only (sandboxed only: a bind mount in its own mount
-- namespace; konane.core.spawn's readonly option). A tournament worker puts the tournament's
-- output directory here, so no engine can write games.pgn, results.json or files beside them.
M.readonly = {}

-- Paths every player process may write (sandboxed only: it sees every other file read-only,
-- but for a private /var/tmp and /dev/shm). From KONANE_SANDBOX_WRITABLE, a list of directories
-- separated by ':', for engines that keep files (a book, a log of their own).
M.writable = {}
for dir in (os.getenv("KONANE_SANDBOX_WRITABLE") or ""):gmatch("[^:]+") do
  M.writable[#M.writable + 1] = dir
end

-- Players keep the machine's network (sandboxed only: else a network namespace of their own,
-- with a loopback interface only): for an engine that plays through a server. From
-- KONANE_SANDBOX_NETWORK (set and not empty).
M.network = (os.getenv("KONANE_SANDBOX_NETWORK") or "") ~= ""

local function core()
  return require("konane").core
end

-- A player failure: kind is "time", "crash", "handshake", "malformed" or "error".
local ERR_MT = { __tostring = function(e) return e.message end }
local function fail(kind, message)
  error(setmetatable({ kind = kind, message = message }, ERR_MT), 0)
end
M.is_failure = function(e) return getmetatable(e) == ERR_MT end
--- failure(kind, message) -> a failure object (what a player's calls raise)
M.failure = function(kind, message) return setmetatable({ kind = kind, message = message }, ERR_MT) end

-- ---------------------------------------------------------------------------------------------
-- One engine process

local Conn = {}
Conn.__index = Conn

local function shown(s)
  s = tostring(s):gsub("[%c]", " ")
  if #s > 80 then s = s:sub(1, 80) .. "..." end
  return s
end

-- Seconds between two full sweeps at the end of games (see sweep).
M.SWEEP_EVERY = 1
local last_sweep, started = -math.huge, false
local live = setmetatable({}, { __mode = "k" }) -- connections with a running process

-- Has the process 'pid' a child (Linux's /proc/PID/task/PID/children: one small read)? True
-- when it cannot tell, so that a doubt always sweeps.
local function children(pid)
  local f = io.open(string.format("/proc/%d/task/%d/children", pid, pid), "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

local function has_child(pid)
  local text = children(pid)
  return not text or text:find("%d") ~= nil
end

-- May the process 'proc' have left something behind? A sandboxed one (its pid is its
-- namespace's init, whose first child is the engine): when its init has another child (an
-- orphan it adopted) or the engine has one.
local function may_leave(proc)
  if not proc:sandboxed() then return has_child(proc:pid()) end
  local text = children(proc:pid())
  if not text then return true end
  local engine, other = text:match("^%s*(%d+)%s*(%d*)")
  if not engine then return false end -- the engine has ended: its init ends everything
  return other ~= "" or has_child(tonumber(engine))
end

--- sweep([now]): ends every process a player left behind outside its process group (a child
-- that double-forked and called setsid; core.kill_strays, which reads all of /proc: about half
-- a millisecond). konane.play calls it after each game with a player in its own process. It
-- sweeps when a player process started since the last sweep, when a living player has a child
-- (one it may have moved to a session of its own: checked cheaply, player by player), or when
-- M.SWEEP_EVERY seconds have passed; so a process that a player kept from game to game leaves
-- by a double fork (its parent gone, itself re-parented to the referee) lives at most that long
-- after its game. With 'now' (a player's process was killed here) it sweeps at once.
function M.sweep(now)
  local c = core()
  if not c.kill_strays then return end
  local t = c.clock()
  if not now and not started and t - last_sweep < M.SWEEP_EVERY then
    local child = false
    for conn in pairs(live) do
      if conn.proc and may_leave(conn.proc) then child = true break end
    end
    if not child then return end
  end
  last_sweep, started = t, false
  c.kill_strays()
end

-- Kills the engine's process group, forgets the process and ends what it left behind.
function Conn:kill()
  if self.proc then
    self.proc:kill()
    self.proc:close()
    self.proc = nil
    live[self] = nil
    M.sweep(true)
  end
  self.dead = true
end

-- How the process ended, for a message ("exited with status 1", "killed by signal 9").
function Conn:exit_text()
  local p = self.proc
  if not p then return "gone" end
  local how, code
  for _ = 1, 20 do
    how, code = p:wait()
    if how then break end
    core().poll({}, 0.005)
  end
  if how == "exit" then return "exited with status " .. code end
  if how == "signal" then
    local names = { [9] = "SIGKILL", [11] = "SIGSEGV", [6] = "SIGABRT", [24] = "SIGXCPU", [15] = "SIGTERM" }
    return "killed by signal " .. code .. (names[code] and " (" .. names[code] .. ")" or "")
  end
  return "closed its output"
end

-- Sends 'text' to the engine; an engine that does not read its input (its pipe stays full)
-- loses on time after M.defaults.write seconds instead of hanging the referee.
function Conn:send(text)
  if self.dead then fail("crash", "the engine is not running") end
  local ok, err = self.proc:write(text, M.defaults.write)
  if not ok then
    if err == "the process does not read its input" then
      self:kill()
      fail("time", string.format("the engine does not read its input (a command waited %g s)", M.defaults.write))
    end
    local how = self:exit_text()
    self:kill()
    fail("crash", "the engine " .. how .. " (" .. tostring(err) .. ")")
  end
end

-- The next line before 'deadline' (seconds on core.clock), or a failure: 'what' says what was
-- awaited, for the messages.
function Conn:line(deadline, what)
  local c = core()
  while true do
    local a = self.buf:find("\n", self.scan, true)
    if a then
      local line = self.buf:sub(self.start, a - 1)
      self.start, self.scan = a + 1, a + 1
      if self.start > 4096 then
        self.buf = self.buf:sub(self.start)
        self.start, self.scan = 1, 1
      end
      self.seen = self.seen + #line + 1
      if self.seen > M.defaults.max_output then
        self:kill()
        fail("malformed", string.format("more than %d bytes of output while waiting for %s",
          M.defaults.max_output, what))
      end
      if line:byte(-1) == 13 then line = line:sub(1, -2) end
      if line:find("%S") then self.last_line = line end
      return line
    end
    self.scan = #self.buf + 1
    if #self.buf - self.start > MAX_LINE then
      self:kill()
      fail("malformed", "a line longer than " .. MAX_LINE .. " bytes while waiting for " .. what)
    end
    local now = c.clock()
    if now >= deadline then
      self:kill()
      fail("time", "no " .. what .. " within " .. string.format("%.3f", deadline - self.since) .. " s"
        .. self:said())
    end
    local ready = c.poll({ self.proc }, math.min(deadline - now, M.defaults.alive)) > 0
    local chunk = self.proc:read()
    -- an engine that died while a process it started holds its output open gives no end of
    -- file: it is seen by looking at the process itself (without this, a time forfeit at the
    -- deadline, which with a game clock can be minutes away)
    if chunk == nil or (not ready and chunk == "" and self.proc:wait()) then
      local how = self:exit_text()
      self:kill()
      fail("crash", "the engine " .. how .. " while " .. what .. " was awaited" ..
        (self.last_error and ("; it said: " .. self.last_error) or ""))
    end
    if chunk ~= "" then self.buf = self.buf .. chunk end
  end
end

-- Throws away what the engine said while it was asked nothing: a second bestmove, query
-- responses after its move, lines left over from its last game. Read later they would pass for
-- the answer to the next question, about another position (a stale move that happens to be
-- legal there would be played without a word). What arrives after the next command is sent
-- cannot be told apart from its answer; what is here before it can. A readyok still due is
-- counted, not lost.
function Conn:discard()
  if self.dead or not self.proc then return end
  local chunk = self.proc:read() -- nil at the end of its output: the next read reports it
  local text = self.buf:sub(self.start) .. (chunk or "")
  if (self.ready_pending or 0) > 0 then
    for line in text:gmatch("([^\n]*)\n") do
      if line:match("^readyok\r?$") and self.ready_pending > 0 then
        self.ready_pending = self.ready_pending - 1
      end
    end
  end
  self.buf, self.start, self.scan = "", 1, 1
end

-- What the engine sent while an answer was awaited, for a time forfeit's message: an answer
-- it never ended with a newline (CR alone ends no line) or the last line it did send (an
-- answer the referee did not take: `BESTMOVE d5`, a BOM before it); "" when it sent nothing.
function Conn:said()
  local clip = require("konane.util").clip
  local function visible(s) -- control bytes and a BOM as \xNN, as the docs quote
    s = s:gsub("%c", function(ch) return ("\\x%02X"):format(ch:byte()) end)
    s = s:gsub("\239\187\191", "\\xEF\\xBB\\xBF")
    return clip(s, 100)
  end
  local pending = self.buf:sub(self.start)
  if pending:find("%S") then
    -- its end: where an answer would be
    return "; its output ends without a newline: '" .. visible(clip(pending, 80, true)) .. "'"
  elseif self.last_line then
    return "; the last line it sent: '" .. visible(self.last_line) .. "'"
  end
  return ""
end

-- Starts waiting for an answer (resets the per-answer output count and the last line seen).
function Conn:expect(seconds)
  self.seen = 0
  self.last_line = nil
  self.since = core().clock()
  return self.since + seconds
end

-- Starts the engine and does the handshake. Returns the connection or raises a failure.
local function start(def)
  local c = core()
  local proc, err = c.spawn(def.argv, { stdin = true, sandbox = true, stderr = def.log or false,
                                        memory = def.memory, cpu = def.cpu,
                                        readonly = #M.readonly > 0 and M.readonly or nil,
                                        writable = #M.writable > 0 and M.writable or nil,
                                        network = M.network or nil })
  if not proc then fail("handshake", "cannot start the engine: " .. shown(err)) end
  if not proc:sandboxed() then started = true end -- the end of its first game sweeps
  local conn = setmetatable({ proc = proc, buf = "", start = 1, scan = 1, seen = 0, key = def.key,
                              options = {}, settings = {}, cpu = def.cpu }, Conn)
  live[conn] = true
  local ok, e = pcall(function()
    conn:send("ugi\n")
    local deadline = conn:expect(def.startup)
    while true do
      local line = conn:line(deadline, "ugiok")
      if line == "ugiok" then break end
      local name = line:match("^id name (.+)$")
      if name then conn.id_name = name end
      local opt = line:match("^option name (.-) type ")
      if opt then conn.options[opt:lower()] = true end
      local msg = line:match("^info string error: (.*)$")
      if msg then conn.last_error = shown(msg) end
    end
    for k, v in pairs(def.options or {}) do
      conn:send("setoption name " .. k .. " value " .. tostring(v) .. "\n")
    end
    conn:send("isready\n")
    deadline = conn:expect(def.startup)
    while true do
      local line = conn:line(deadline, "readyok")
      if line == "readyok" then break end
      local msg = line:match("^info string error: (.*)$")
      if msg then conn.last_error = shown(msg) end
    end
    if conn.last_error then fail("error", conn.last_error) end
  end)
  if not ok then
    conn:kill()
    if M.is_failure(e) then fail("handshake", "handshake failed: " .. e.message) end
    error(e, 0)
  end
  return conn
end

-- An idle engine for 'def' from the pool, or a new one.
local function acquire(def)
  local idle = pool[def.key]
  while idle and #idle > 0 do
    local conn = table.remove(idle)
    if conn.proc and not conn.proc:wait() then return conn end
    conn:kill()
  end
  return start(def)
end

-- CPU seconds a process has used (Linux /proc; nil elsewhere). Clock ticks are 100 a second
-- on every Linux this runs on.
local function cpu_used(pid)
  local f = io.open("/proc/" .. tostring(pid) .. "/stat", "r")
  if not f then return nil end
  local text = f:read("l") or ""
  f:close()
  local rest = text:match("%) (.*)$")
  if not rest then return nil end
  local fields = {}
  for w in rest:gmatch("%S+") do fields[#fields + 1] = w end
  -- after the command: state is field 3 of stat, utime and stime are fields 14 and 15
  local ut, st = tonumber(fields[12]), tonumber(fields[13])
  return ut and st and (ut + st) / 100 or nil
end
M.cpu_used = cpu_used

-- The pid of the engine itself: a sandboxed process's pid is its namespace's init, whose first
-- child is the engine (Linux /proc; the init's own pid when it cannot tell).
local function engine_pid(proc)
  local pid = proc:pid()
  if not proc:sandboxed() then return pid end
  return tonumber((children(pid) or ""):match("%d+")) or pid
end

local function release(conn)
  if conn.dead or not conn.proc then return end
  -- a process past half its CPU budget is retired between games, never in the middle of one
  local used = conn.cpu and cpu_used(engine_pid(conn.proc))
  if used and used > conn.cpu / 2 then conn:kill(); return end
  local idle = pool[conn.key]
  if not idle then idle = {}; pool[conn.key] = idle end
  if #idle >= 16 then conn:kill(); return end
  idle[#idle + 1] = conn
end

--- close_all()
-- Stops every idle engine of the pool (they also stop when this process ends: their input
-- closes).
function M.close_all()
  for key, idle in pairs(pool) do
    for _, conn in ipairs(idle) do conn:kill() end
    pool[key] = nil
  end
end

-- ---------------------------------------------------------------------------------------------
-- The player (a bot for konane.play)

local function ms(seconds)
  return string.format("%d", math.max(0, math.floor(seconds * 1000 + 0.5)))
end

-- The go line for 'clock' (seconds) and the side to move.
local function go_line(clock, side, default_time)
  local parts = { "go" }
  if clock.game_time then
    local mine, theirs = clock.game_time, clock.opponent_time or clock.game_time
    local inc = clock.increment or 0
    local p1, p2 = mine, theirs
    if side == "white" then p1, p2 = theirs, mine end
    parts[#parts + 1] = "p1time " .. ms(p1) .. " p2time " .. ms(p2) .. " p1inc " .. ms(inc) ..
                        " p2inc " .. ms(inc)
    if clock.time and clock.time < clock.game_time then
      parts[#parts + 1] = "movetime " .. ms(clock.time)
    end
  else
    local t = clock.time
    if not t or t == math.huge then t = default_time end
    parts[#parts + 1] = "movetime " .. ms(t)
  end
  return table.concat(parts, " ")
end

-- The info words of an info line as a comment table {depth=, score=, nodes=, ...}, or nil
-- when it has no figure but the time.
local function info_table(line)
  local t = {}
  local words = {}
  for w in line:gmatch("%S+") do words[#words + 1] = w end
  local i = 2
  while i <= #words do
    local w = words[i]
    if w == "score" and (words[i + 1] == "cp" or words[i + 1] == "mate") then
      t[words[i + 1] == "cp" and "score" or "mate"] = math.tointeger(tonumber(words[i + 2]))
      i = i + 3
    elseif w == "pv" or w == "string" then
      break
    elseif (w == "depth" or w == "nodes" or w == "nps" or w == "time" or w == "seldepth")
        and tonumber(words[i + 1]) then
      t[w] = math.tointeger(tonumber(words[i + 1])) or tonumber(words[i + 1])
      i = i + 2
    else
      i = i + 1
    end
  end
  -- the time alone is no comment: the referee records the time it measured, and a bot file
  -- that said nothing (its server always sends time and pv) must not get "time=0"
  for k in pairs(t) do if k ~= "time" then return t end end
  return nil
end

--- new(def) -> bot
-- A player for the engine of 'def': argv (the command, a list of strings), name, options
-- (setoption NAME VALUE pairs sent after the handshake), memory (bytes of address space),
-- cpu (CPU seconds per process), log (a file for its stderr; each process may add 1 MB; default none),
-- startup (handshake seconds), time (seconds per move when the game sets none), fallback_name
-- (the name until the engine says its own: id name).
function M.new(def)
  local d = {}
  for k, v in pairs(M.defaults) do d[k] = v end
  for k, v in pairs(def) do d[k] = v end
  if type(d.argv) ~= "table" or #d.argv == 0 then error("a UGI player needs a command", 2) end
  local keyparts = { table.concat(d.argv, "\0"), tostring(d.memory), tostring(d.cpu), tostring(d.log) }
  local opt_names = {}
  for k in pairs(d.options or {}) do opt_names[#opt_names + 1] = tostring(k) end
  table.sort(opt_names)
  for _, k in ipairs(opt_names) do keyparts[#keyparts + 1] = k .. "=" .. tostring(d.options[k]) end
  d.key = table.concat(keyparts, "\1")

  local fallback = d.fallback_name or d.argv[#d.argv]
  local self = { name = d.name or fallback, ugi = true, def = d }
  local conn, start_cmd, start_seen

  local function ensure()
    if conn and not conn.dead then return conn end
    conn = acquire(d)
    return conn
  end

  -- Reads the readyok lines still due (from new_game) before 'what'.
  local function settle(c, deadline, what)
    while (c.ready_pending or 0) > 0 do
      local line = c:line(deadline, "readyok before " .. what)
      if line == "readyok" then c.ready_pending = c.ready_pending - 1 end
      local msg = line:match("^info string error: (.*)$")
      if msg then c.last_error = shown(msg) end
    end
  end

  function self.new_game(_, info)
    if conn and conn.dead then conn = nil end
    ensure()
    -- unnamed: the engine's own name (id name), unless someone renamed the player meanwhile
    if self.name == fallback and conn.id_name then self.name = shown(conn.id_name) end
    local want = { variant = info.variant, rows = info.rows, cols = info.cols, seed = info.seed }
    local out = {}
    for _, k in ipairs { "variant", "rows", "cols", "seed" } do
      local v = want[k]
      if v ~= nil and conn.settings[k] ~= v and (k ~= "seed" or conn.options.seed) then
        out[#out + 1] = "setoption name " .. k .. " value " .. tostring(v) .. "\n"
        conn.settings[k] = v
      end
    end
    start_seen = nil
    conn:discard()
    out[#out + 1] = "uginewgame\nisready\n"
    conn.ready_pending = (conn.ready_pending or 0) + 1
    conn:send(table.concat(out))
    -- readyok before the game starts: what the engine does for a new game (clearing or making
    -- its tables) is never charged to its first move
    settle(conn, conn:expect(d.startup), "the game")
  end

  local function position(game)
    local moves = game:history()
    if #moves == 0 then return start_cmd .. "\n" end
    return start_cmd .. " moves " .. table.concat(moves, " ") .. "\n"
  end

  -- The start of 'game' as a position command: startpos for the start of its variant and size
  -- (which the engine knows from its options), else its position text.
  local function start_of(game)
    local fen = game:start_fen()
    if fen ~= start_seen then
      local ok, plain = pcall(require("konane").new, { variant = game:variant(), rows = game:rows(),
                                                       cols = game:cols() })
      start_cmd = (ok and plain:start_fen() == fen) and "position startpos" or ("position fen " .. fen)
      start_seen = fen
    end
  end

  function self.choose(_, game, clock)
    clock = clock or {}
    local c = ensure()
    start_of(game)
    c.last_error = nil
    c:discard()
    c:send(position(game) .. go_line(clock, game:turn(), d.time) .. "\n")
    local limit = clock.time
    if clock.game_time and (not limit or clock.game_time < limit) then limit = clock.game_time end
    if not limit or limit == math.huge then limit = d.time end
    local deadline = c:expect(limit + (clock.grace or d.grace))
    settle(c, deadline, "bestmove")
    local info, said
    while true do
      local line = c:line(deadline, "bestmove")
      local w1, w2, rest = line:match("^(%S+)%s*(%S*)%s*(.-)%s*$")
      if w1 == "bestmove" then
        if w2 == "" or (rest ~= "" and not rest:match("^ponder %S+$")) then
          c:kill()
          fail("malformed", "malformed bestmove line '" .. shown(line) .. "'")
        end
        if (w2 == "0000" or w2 == "(none)") and c.last_error then
          local bad = c.last_error:match("^bad answer: (.*)$")
          if bad then fail("bad", bad) end
          fail("error", c.last_error)
        end
        -- the move's comment: the engine's figures, else what it said (info string)
        return w2, info or said
      elseif w1 == "info" then
        local msg = line:match("^info string error: (.*)$")
        if msg then c.last_error = shown(msg)
        elseif w2 == "string" then said = (line:match("^info string%s+(.-)%s*$") or ""):gsub("%c", " "):sub(1, 2000)
        else info = info_table(line) or info end
      end
    end
  end

  --- claim_ask(game): sends the final position of 'game' and the two queries (claim reads the
  -- answers; asking both players first lets them answer at the same time).
  local asked
  function self.claim_ask(_, game)
    local c = ensure()
    start_of(game)
    c:discard()
    c:send(position(game) .. "query gameover\nquery result\n")
    asked = true
  end

  --- claim(game) -> gameover (boolean), result ("p1win", "p2win", "draw", "none")
  -- What the engine says about the final position of 'game'.
  function self.claim(me, game)
    if not asked then self.claim_ask(me, game) end
    asked = nil
    local c = ensure()
    local deadline = c:expect(d.query)
    settle(c, deadline, "a query response")
    local answers = {}
    while #answers < 2 do
      local line = c:line(deadline, "a query response")
      local r = line:match("^response (%S+)$")
      if r then answers[#answers + 1] = r
      elseif line:match("^response") then
        c:kill()
        fail("malformed", "malformed response '" .. shown(line) .. "'")
      end
    end
    return answers[1] == "true", answers[2]
  end

  function self.done()
    if conn then
      local cn = conn
      conn = nil
      release(cn)
    end
  end

  --- close(): stops this player's engine (when it is not back in the pool).
  function self.close()
    if conn then conn:kill(); conn = nil end
  end

  return self
end

--- command(text) -> argv
-- Splits a command line ("python3 my bot.py" -> {"python3", "my", "bot.py"}); double or single
-- quotes keep spaces inside one argument.
function M.command(text)
  local argv, cur, quote, have = {}, {}, nil, false
  for ch in text:gmatch(".") do
    if quote then
      if ch == quote then quote = nil else cur[#cur + 1] = ch end
    elseif ch == '"' or ch == "'" then
      quote, have = ch, true
    elseif ch:match("%s") then
      if have or #cur > 0 then argv[#argv + 1] = table.concat(cur); cur, have = {}, false end
    else
      cur[#cur + 1] = ch
    end
  end
  if quote then error("unbalanced quote in the command '" .. text .. "'", 2) end
  if have or #cur > 0 then argv[#argv + 1] = table.concat(cur) end
  return argv
end

return M
