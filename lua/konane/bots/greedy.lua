-- The greedy bot: looks one ply ahead and keeps the move that leaves it the most moves compared
-- with its opponent (mobility difference); a move that leaves the opponent without a move wins at
-- once. Ties are broken by a seeded generator, so seeded games repeat.
-- Options: seed.

local bot_util = require("konane.bot")

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
    return best_moves[b.pick(#best_moves)], { score = best }
  end

  return self
end

return M
