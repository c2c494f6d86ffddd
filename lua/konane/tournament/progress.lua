-- konane.tournament.progress: the running count of a tournament and its progress line.
--
-- progress.new(s, total, display) -> tracker; tracker:game(g, summary) counts a finished game
-- (a game of the journal too: played = false), tracker:draw() calls display{done, total, rate,
-- eta, leader} at most ten times a second (and always for the last game), tracker:finish()
-- tells the display to clear its line. The default display (terminal()) is one line on stderr,
-- redrawn in place, only when stderr is a terminal; it is never wider than the terminal.

local util = require("konane.tournament.util")

local M = {}
local Tracker = {}
Tracker.__index = Tracker

local function core() return require("konane").core end

local function fmt_duration(sec)
  if sec ~= sec or sec == math.huge then return "?" end
  sec = math.floor(sec + 0.5)
  local h, m, x = sec // 3600, sec // 60 % 60, sec % 60
  if h > 0 then return string.format("%d:%02d:%02d", h, m, x) end
  return string.format("%d:%02d", m, x)
end

-- terminal() -> display function, or nil when stderr is not a terminal.
function M.terminal()
  local c = core()
  if not (c.isatty and c.isatty(2)) then return nil end
  local shown = false
  return function(p)
    if p.done_all then
      if shown then io.stderr:write("\r\27[K") io.stderr:flush() end
      return
    end
    -- never wider than the terminal: a wrapped line could not be redrawn in place
    local cols = (c.term_columns and c.term_columns(2)) or tonumber(os.getenv("COLUMNS")) or 80
    local line = string.format("%d/%d games  %.1f games/s  ETA %s  %s", p.done, p.total,
      p.rate, fmt_duration(p.eta), p.leader and (p.leader:find("^LLR") and p.leader or ("leader: " .. p.leader)) or "")
    if #line > cols - 1 then line = line:sub(1, cols - 1) end
    io.stderr:write("\r" .. line .. "\27[K")
    io.stderr:flush()
    shown = true
  end
end

-- new(s, total, display, leader) -> tracker. display: a function, false (none) or nil (the
-- terminal line); leader(): an optional text replacing the leader by score (the SPRT's LLR).
function M.new(s, total, display, leader)
  if display == nil then display = M.terminal() end
  local tally = {}
  for i = 1, #s.players do tally[i] = { w = 0, n = 0 } end
  return setmetatable({ s = s, total = total, display = display or nil, leader = leader,
                        tally = tally, done = 0, played = 0, t0 = util.clock(),
                        last_draw = -math.huge }, Tracker)
end

-- game(g, summary, played, counted): counts a finished game (for the leader); 'played': played
-- by this run (for the rate); 'counted': part of this run's share (for done / total).
function Tracker:game(g, r, played, counted)
  local t = self.tally
  local w = r.winner == "black" and g.black or g.white
  t[g.black].n, t[g.white].n = t[g.black].n + 1, t[g.white].n + 1
  t[w].w = t[w].w + 1
  if played then self.played = self.played + 1 end
  if counted then self.done = self.done + 1 end
end

function Tracker:draw()
  if not self.display then return end
  local now = util.clock()
  -- at most ten redraws a second, and always the last one
  if now - self.last_draw < 0.1 and self.done < self.total then return end
  self.last_draw = now
  local elapsed = now - self.t0
  local rate = elapsed > 0 and self.played / elapsed or 0
  local best, best_score
  for i, x in ipairs(self.tally) do
    local sc = x.n > 0 and x.w / x.n or -1
    if not best_score or sc > best_score then best, best_score = i, sc end
  end
  local leader = best and best_score >= 0 and
    string.format("%s %.0f%%", self.s.players[best].name, 100 * best_score) or nil
  if self.leader then leader = self.leader() end
  self.display {
    done = self.done, total = self.total, rate = rate,
    eta = rate > 0 and (self.total - self.done) / rate or math.huge, leader = leader,
  }
end

function Tracker:finish()
  if self.display then self.display { done_all = true } end
end

return M
