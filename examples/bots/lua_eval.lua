-- The engine's alpha-beta search (g:search) guided by an evaluation written in Lua.
-- The search calls evaluate(game) at its leaves: the score is from the point of view of the side
-- to move, 100 = one legal move of mobility, and must stay below 29000 in size (larger scores
-- are the search's proven wins and losses).
-- Options (from a spec such as "examples/bots/lua_eval.lua:depth=4"): depth, time, edge.

local function other(side) return side == "black" and "white" or "black" end

-- Mobility, plus a small bonus for pieces on the edge (they are harder to capture).
local function make_eval(edge_bonus)
  return function(game)
    local me = game:turn()
    local score = 100 * (game:nmoves() - game:nmoves(other(me)))
    if edge_bonus ~= 0 then
      local rows, cols = game:rows(), game:cols()
      local konane = require "konane"
      for r = 0, rows - 1 do
        for f = 0, cols - 1 do
          if f == 0 or r == 0 or f == cols - 1 or r == rows - 1 then
            local who = game:at(konane.square(f, r))
            if who == me then score = score + edge_bonus
            elseif who then score = score - edge_bonus end
          end
        end
      end
    end
    return score
  end
end

local M = {}

--- new(opts) -> bot: a bot searching 'depth' plies or 'time' seconds per move.
function M.new(opts)
  opts = opts or {}
  local evaluate = make_eval(opts.edge or 10)
  return {
    name = "lua-eval",
    choose = function(self, game, clock)
      local time = opts.time or 0.2
      if clock and clock.time < math.huge then time = math.min(time, clock.time * 0.5) end
      if clock and clock.game_time then
        -- a chess clock: keep 0.1 s back (the answer's way to the referee, a busy machine),
        -- then spend a 20th of the rest and most of the increment (half of it in the reserve)
        local rest, inc = clock.game_time - 0.1, clock.increment or 0
        time = math.min(time, rest > 0 and rest / 20 + 0.8 * inc or 0.5 * inc)
      end
      time = math.max(time, 0.001)
      local r = game:search { depth = opts.depth, time = not opts.depth and time or nil,
                              eval = evaluate }
      return r.move, { score = r.score, depth = r.depth }
    end,
  }
end

-- Used as it is (no options), the file is a bot with the defaults.
local default = M.new()
M.name, M.choose = default.name, default.choose
return M
