-- The solver bot: perfect play when the engine proves a result within its limits (g:solve),
-- otherwise the alpha-beta search with the time left.
-- Options: time (seconds per move; default 1), nodes (solver node limit), hash_mb, depth (for
-- the fallback search), share (fraction of the move time given to the proof; default 0.5).

local bot_util = require("konane.bot")
local util = require("konane.util")

local M = {
  description = "perfect play when a proof is found in time, alpha-beta search otherwise",
  options = { "time", "nodes", "hash_mb", "depth", "share" },
}

--- new(opts) -> bot
function M.new(opts)
  opts = opts or {}
  bot_util.check_options(opts, M.options, "solver")
  bot_util.check_number(opts, "time", "solver", 0)
  bot_util.check_number(opts, "nodes", "solver", 1)
  bot_util.check_number(opts, "hash_mb", "solver", 0)
  bot_util.check_number(opts, "depth", "solver", 1)
  bot_util.check_number(opts, "share", "solver", 0)
  local self = { name = "solver", opts = opts }
  -- The fallback search's own table, made now and kept for every move: never a board's
  -- shared table, which another player on the same board would read and write.
  local table_ = require("konane").hashtable(opts.hash_mb or 16)

  function self.choose(_, game, clock)
    local time = bot_util.budget(clock, opts.time or 1.0)
    local start = util.now()
    local share = opts.share or 0.5
    if game.solve then
      local r = game:solve { time = time * share, nodes = opts.nodes, hash_mb = opts.hash_mb }
      if r.win == true and r.move then
        return r.move, { proof = "win", nodes = r.nodes }
      end
      -- no proof (or a proven loss: the search below still picks the most stubborn move)
      time = time - (util.now() - start)
    end
    if time < 0.001 then time = 0.001 end
    local r = game:search { depth = opts.depth, time = time, table = table_ }
    return r.move, { score = r.score, depth = r.depth, nodes = r.nodes }
  end

  return self
end

return M
