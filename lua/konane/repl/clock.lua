-- konane.repl.clock: the chess clock of a vs() game with a time control.
--
-- Each side has its time left; a move is charged to its side and earns the increment (Fischer).
-- The side to move's time runs from when it was last started (the board shown to you, or the
-- bot asked), so the time you spend at the prompt counts, whatever you type meanwhile.

local M = {}
M.__index = M

--- parse(tc) -> base seconds, increment seconds
-- The referee's own reading of a time control (konane.play.parse_tc): "300+2" (5 minutes, 2 s
-- a move) or "300" (no increment). Raises a plain-worded error on anything else.
function M.parse(tc)
  if type(tc) ~= "string" and type(tc) ~= "number" then
    error("tc must be a string such as \"300+2\"", 0)
  end
  return require("konane.play").parse_tc(tc)
end

--- new(tc, now) -> clock
-- 'now' is the function giving the time in seconds (the session's clock).
function M.new(tc, now)
  local base, inc = M.parse(tc)
  return setmetatable({ left = { black = base, white = base }, increment = inc, now = now,
    running = nil, since = nil, flagged_side = nil }, M)
end

--- start(side): the time of 'side' runs from now (the other side's is stopped).
function M:start(side)
  self.running, self.since = side, self.now()
end

--- stop(side) -> seconds spent
-- Charges the time since start to 'side' and adds the increment; notes a flag fall.
function M:stop(side)
  local spent = 0
  if self.running == side and self.since then spent = self.now() - self.since end
  self.running, self.since = nil, nil
  self.left[side] = self.left[side] - spent
  if self.left[side] < 0 then
    self.flagged_side = self.flagged_side or side
  else
    self.left[side] = self.left[side] + self.increment
  end
  return spent
end

--- for_bot(side, ply) -> the clock table a bot's choose() gets, as konane.play gives it:
-- {time=, game_time=, increment=, opponent_time=, ply=}
function M:for_bot(side, ply)
  local left = math.max(self.left[side], 0.001)
  local other = side == "black" and "white" or "black"
  return { time = left, game_time = left, increment = self.increment,
    opponent_time = math.max(self.left[other], 0), ply = ply }
end

--- flagged() -> the side whose time ran out, or nil
function M:flagged()
  return self.flagged_side
end

local function mmss(t)
  if t < 0 then t = 0 end
  if t < 10 then return string.format("%.1f s", t) end
  t = math.floor(t + 0.5)
  return string.format("%d:%02d", t // 60, t % 60)
end
M.mmss = mmss

--- text() -> "Black 4:58, White 5:00" (the running side's time as of now)
function M:text()
  local parts = {}
  for _, side in ipairs { "black", "white" } do
    local t = self.left[side]
    if self.running == side and self.since then t = t - (self.now() - self.since) end
    parts[#parts + 1] = (side == "black" and "Black " or "White ") .. mmss(t)
  end
  return table.concat(parts, ", ")
end

return M
