-- The mcts bot: Monte Carlo tree search (UCT with random playouts), the engine's g:mcts.
-- Options: time (seconds per move; default 1), playouts, c (UCT exploration constant; default
-- 0.7, the engine's KN_MCTS_C), seed.

local bot_util = require("konane.bot")

local M = {
  description = "Monte Carlo tree search (UCT, random playouts)",
  options = { "time", "playouts", "c", "seed" },
}

--- new(opts) -> bot
function M.new(opts)
  opts = opts or {}
  bot_util.check_options(opts, M.options, "mcts")
  bot_util.check_number(opts, "time", "mcts", 0)
  bot_util.check_number(opts, "playouts", "mcts", 1)
  bot_util.check_number(opts, "c", "mcts", 0)
  bot_util.check_number(opts, "seed", "mcts")
  local self = { name = "mcts", opts = opts, seed = opts.seed }
  local calls = 0

  function self.new_game(b, info)
    b.seed = opts.seed or (info and info.seed) or 1
    calls = 0
  end

  -- clock: from konane.play the time left; from UGI also nodes (taken as playouts), infinite
  -- (search until stop) and stop (polled during the search, so UGI's stop is answered at once)
  function self.choose(b, game, clock)
    clock = clock or {}
    calls = calls + 1
    local playouts = clock.nodes or opts.playouts
    local time
    if clock.infinite then
      time = nil
      if not clock.nodes then playouts = nil; time = 1e6 end
    else
      time = bot_util.budget(clock, opts.time or (not playouts and 1.0 or nil), nil, game)
    end
    local seed = (b.seed or 1) * 1000003 + calls
    local r = game:mcts { playouts = playouts, time = time, c = opts.c, seed = seed, stop = clock.stop }
    return r.move, { winrate = r.winrate, visits = r.visits }
  end

  return self
end

return M
