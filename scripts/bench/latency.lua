-- scripts/bench/latency.lua: how late the alphabeta engine's answer arrives after its search's
-- time limit, in process (g:search with a time limit) and over UGI (a `konane --ugi alphabeta`
-- process, timed from `go` to `bestmove` by the referee's own player). Positions come from
-- games of random and searched moves (seeded). Prints the median, 90th and 99th percentile and
-- the largest lateness in milliseconds, and how many answers came past the limit and past the
-- limit + the referee's default grace (10 ms + 5%). Over UGI the engine's own rule applies: on a
-- loaded machine it keeps time back (negative lateness). Timing-sensitive: run it alone (a quiet machine) for
-- figures to report.
--
--   build/konane scripts/bench/latency.lua [MOVES] [LIMIT]
--
-- MOVES searched positions per mode (default 300), LIMIT the move's limit in seconds (default
-- 0.1): the in-process search gets the alphabeta bot's budget of it, the UGI engine `go
-- movetime LIMIT` (and spends the same budget).
local konane = require "konane"
local clock = konane.core.clock

local MOVES = tonumber(arg[1] or "300")
local LIMIT = tonumber(arg[2] or "0.1")
if not MOVES or MOVES < 1 or not LIMIT or LIMIT <= 0 then
  io.stderr:write("usage: konane scripts/bench/latency.lua [MOVES] [LIMIT]\n")
  os.exit(2)
end
local SHARE = require("konane.bots.alphabeta").SHARE
local BUDGET = require("konane.bot").budget({ time = LIMIT }, nil, SHARE)

-- Plays MOVES searched moves (with random ones between them); 'answer(g)' returns the move and
-- the seconds the answer took; returns the sorted latenesses (seconds past BUDGET).
local function run(answer)
  local rng = require("konane.bot").rng(7)
  local late = {}
  local g = konane.new()
  while #late < MOVES do
    if g:over() then g = konane.new() end
    local ms = g:moves()
    if g:ply() < 4 or rng(5) == 1 or #ms == 1 then
      g:play(ms[rng(#ms)])
    else
      local move, took = answer(g)
      late[#late + 1] = took - BUDGET
      g:play(move)
    end
  end
  table.sort(late)
  return late
end

local function report(name, late)
  local n, over, forfeit = #late, 0, 0
  local function q(p) return late[math.max(1, math.min(n, math.floor(p * n + 0.5)))] * 1000 end
  for _, l in ipairs(late) do
    if BUDGET + l > LIMIT then over = over + 1 end
    if BUDGET + l > LIMIT * 1.05 + 0.01 then forfeit = forfeit + 1 end
  end
  print(("%-11s %d moves, budget %.3f s: late by median %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms;"
    .. " past the limit %d, past the limit + grace %d"):format(name, n, BUDGET, q(0.5), q(0.9), q(0.99),
    late[n] * 1000, over, forfeit))
end

local tt = konane.hashtable(16)
report("in process", run(function(g)
  local t0 = clock()
  local r = g:search { time = BUDGET, table = tt }
  return r.move, clock() - t0
end))

local player = require("konane.bot").new("ugi:" .. konane.core.exe_path() .. " --ugi alphabeta")
report("over UGI", run(function(g)
  local t0 = clock()
  local move = player:choose(g, { time = LIMIT, grace = 1 })
  return move, clock() - t0
end))
if player.done then pcall(player.done, player, {}) end
