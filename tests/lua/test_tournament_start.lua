-- A tournament's hang limit and its engines' start: an engine that takes its time to start,
-- within its handshake deadlines, is no hang, and charges neither side.
local T = require "konane.tournament"
local pgn = require "konane.pgn"

local H = dofile("tests/lua/helpers.lua")

local tests = {}

local function records_of(dir)
  local f = assert(io.open(dir .. "/games.pgn", "rb"))
  local text = f:read("a")
  f:close()
  return pgn.read(text)
end

tests["an engine slow to start within its deadlines is no hang: every game is played out"] = function()
  -- each of its handshake answers comes after 2.5 s, past the hang limit of 2 s; the worker is
  -- silent meanwhile (it waits for the engine), and before it said so the pool charged the side
  -- to move (black: greedy in the first game) 'no move for 2 s (the hang limit)'
  local dir = H.tmpdir()
  local res = T.run { bots = { "ugi:python3 tests/lua/fixtures/ugi_slow_start.py 2.5", "greedy" },
                      rows = 6, cols = 6, games = 2, workers = 1, time = 100, hang = 2, startup = 60,
                      out = dir, progress = false, log = function() end }
  assert(res.games == 2 and res.complete, "the run did not finish its games")
  local recs = records_of(dir)
  assert(#recs == 2, "records: " .. #recs)
  for _, r in ipairs(recs) do
    assert(r.termination == "normal", tostring(r.termination) .. ": " .. tostring(r.reason))
  end
  H.cleanup()
end

tests["an engine that misses its start-up deadline loses by handshake failure, not its opponent"] = function()
  -- a start of 3 s against a deadline of 1 s: the worker's own deadline ends it, charged to the
  -- engine, whatever the hang limit (1 s) says meanwhile
  local dir = H.tmpdir()
  local res = T.run { bots = { "ugi:python3 tests/lua/fixtures/ugi_slow_start.py 3", "greedy" },
                      rows = 6, cols = 6, games = 2, workers = 1, time = 100, hang = 1, startup = 1,
                      out = dir, progress = false, log = function() end }
  assert(res.games == 2 and res.complete, "the run did not finish its 2 games")
  assert(#records_of(dir) == 2)
  for _, r in ipairs(records_of(dir)) do
    assert(r.termination == "handshake failure", tostring(r.termination) .. ": " .. tostring(r.reason))
    assert(r.forfeit and r[r.forfeit] ~= "greedy", "greedy was charged: " .. tostring(r.reason))
  end
  H.cleanup()
end

return tests
