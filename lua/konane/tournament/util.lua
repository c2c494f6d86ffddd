-- konane.tournament.util: small helpers shared by the tournament modules (seeds, clock,
-- messages).

local M = {}

local function core() return require("konane").core end

-- mix(a, b): a 53-bit integer hash of two integers (splitmix64 finaliser), used for every
-- per-game and per-opening seed so that they depend only on the tournament seed and the number.
function M.mix(a, b)
  local z = (a * 0x9E3779B97F4A7C15 + b * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB)
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  z = z ~ (z >> 31)
  return z >> 11
end

-- A splitmix64 generator: r(n) -> integer in [1, n].
function M.rng(seed)
  local s = seed
  return function(n)
    s = s + 0x9E3779B97F4A7C15
    local z = s
    z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ~ (z >> 27)) * 0x94D049BB133111EB
    z = z ~ (z >> 31)
    return (z >> 1) % n + 1
  end
end

function M.clock()
  local c = core()
  return c.clock and c.clock() or os.clock()
end

-- An error message without the "file.lua:12: " of its raiser.
function M.clean(msg)
  return (tostring(msg):gsub("^[^\n:]-%.lua:%d+: ", ""))
end

M.read = require("konane.tournament.files").read

return M
