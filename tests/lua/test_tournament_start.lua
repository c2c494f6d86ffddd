-- A tournament's hang limit and its engines' start: an engine that takes its time to start,
-- within its handshake deadlines, is no hang, and charges neither side.
local T = require "konane.tournament"
local pgn = require "konane.pgn"

local H = dofile("tests/lua/helpers.lua")

local tests = {}

-- The records of two 6x6 games, one worker, of the engine slow to start (each handshake answer
-- after 'start' seconds) against greedy, with the hang limit 'hang' and start-up deadline 'startup'.
local function play_slow_start(start, hang, startup)
  local dir = H.tmpdir()
  local res = T.run { bots = { "ugi:python3 tests/lua/fixtures/ugi_slow_start.py " .. start, "greedy" },
                      rows = 6, cols = 6, games = 2, workers = 1, time = 100, hang = hang, startup = startup,
                      out = dir, progress = false, log = function() end }
  assert(res.games == 2 and res.complete, "the run did not finish its 2 games")
  local f = assert(io.open(dir .. "/games.pgn", "rb"))
  local recs = pgn.read(f:read("a"))
  f:close()
  assert(#recs == 2, "records: " .. #recs)
  return recs
end

tests["an engine slow to start within its deadlines is no hang: every game is played out"] = function()
  -- each of its handshake answers comes after 2.5 s, past the hang limit of 2 s; the worker is
  -- silent meanwhile (it waits for the engine), and before it said so the pool charged the side
  -- to move (black: greedy in the first game) 'no move for 2 s (the hang limit)'
  for _, r in ipairs(play_slow_start(2.5, 2, 60)) do
    assert(r.termination == "normal", tostring(r.termination) .. ": " .. tostring(r.reason))
  end
  H.cleanup()
end

tests["an engine that misses its start-up deadline loses by handshake failure, not its opponent"] = function()
  -- a start of 3 s against a deadline of 1 s: the worker's own deadline ends it, charged to the
  -- engine, whatever the hang limit (1 s) says meanwhile
  for _, r in ipairs(play_slow_start(3, 1, 1)) do
    assert(r.termination == "handshake failure", tostring(r.termination) .. ": " .. tostring(r.reason))
    assert(r.forfeit and r[r.forfeit] ~= "greedy", "greedy was charged: " .. tostring(r.reason))
  end
  H.cleanup()
end

return tests
