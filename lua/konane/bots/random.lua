-- The random bot: a uniformly random legal move from its own seeded generator.
-- Options: seed (integer; default: the seed konane.play passes in new_game, else the clock).

local bot_util = require("konane.bot")

local M = {
  description = "a uniformly random legal move (seeded)",
  options = { "seed" },
}

--- new(opts) -> bot
-- A random bot. With a seed it plays the same moves in the same positions every game it starts.
function M.new(opts)
  opts = opts or {}
  bot_util.check_options(opts, M.options, "random")
  bot_util.check_number(opts, "seed", "random")
  local self = { name = "random", seed = opts.seed }
  self.pick = bot_util.rng(opts.seed or 0)

  function self.new_game(b, info)
    local seed = b.seed or (info and info.seed)
    -- unseeded: the monotonic clock (os may be absent, as in a `konane --ugi` process)
    if seed == nil then seed = math.floor(require("konane").core.clock() * 1e9) end
    b.pick = bot_util.rng(seed)
  end

  function self.choose(b, game)
    local moves = game:moves()
    return moves[b.pick(#moves)]
  end

  return self
end

return M
