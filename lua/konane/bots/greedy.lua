-- The greedy bot: looks one ply ahead and keeps the move that leaves it the most moves compared
-- with its opponent (mobility difference); a move that leaves the opponent without a move wins at
-- once. Ties are broken by a seeded generator, so seeded games repeat.
-- What it says about its move is in the search's units (docs/search.md), so records, the REPL
-- and UGI info lines read it like any other bot's: 100 per move of mobility difference, and a
-- win on the spot as a proved win in one ply (30000 - 1, win = true, plies = 1).
-- Options: seed.

local bot_util = require("konane.bot")

local WIN = 30000 -- a proved win in n plies scores WIN - n (src/search.h's KN_WIN)

local M = {
  description = "one ply ahead: the best mobility difference (own moves minus opponent's)",
  options = { "seed" },
}

--- score(game, me) -> number
-- The mobility difference for side 'me' in 'game' (the opponent to move); a win is +infinity.
function M.score(game, me)
  if game:over() then
    return game:winner() == me and math.huge or -math.huge
  end
  local theirs = game:nmoves()
  local mine = game:nmoves(me)
  return mine - theirs
end

--- new(opts) -> bot
function M.new(opts)
  opts = opts or {}
  bot_util.check_options(opts, M.options, "greedy")
  bot_util.check_number(opts, "seed", "greedy")
  local self = { name = "greedy", seed = opts.seed }
  self.pick = bot_util.rng(opts.seed or 0)

  function self.new_game(b, info)
    b.pick = bot_util.rng(b.seed or (info and info.seed) or 0)
  end

  function self.choose(b, game)
    local me = game:turn()
    local best, best_moves = -math.huge, {}
    for _, move in ipairs(game:moves()) do
      game:play(move)
      local s = M.score(game, me)
      game:undo()
      if s > best then
        best, best_moves = s, { move }
      elseif s == best then
        best_moves[#best_moves + 1] = move
      end
    end
    local move = best_moves[b.pick(#best_moves)]
    if best == math.huge then
      return move, { score = WIN - 1, win = true, plies = 1, depth = 1 }
    end
    return move, { score = best * 100, depth = 1 }
  end

  return self
end

return M
