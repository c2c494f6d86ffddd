-- konane.tournament.util: small helpers shared by the tournament modules (seeds, clock,
-- messages).

local M = {}

local util = require("konane.util")

-- Seeds (mix), seeded generators (rng) and the clock come from konane.util, the one copy.
M.mix = util.mix
M.rng = util.rng
M.clock = util.now

-- An error message without the "file.lua:12: " of its raiser.
function M.clean(msg)
  return (tostring(msg):gsub("^[^\n:]-%.lua:%d+: ", ""))
end

M.read = require("konane.tournament.files").read

return M
