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
  -- The proof's table, also made once: a fresh 16 MB table for every solve cost 4-50 ms of
  -- page faults a move, past the move's limit (on 12x12 at 1 s a game, the bot lost every game
  -- on time). Its proved positions stay for the next moves; it is cleared when the board or
  -- the variant changes (a table serves one board and variant: docs/solving.md).
  local proofs, proofs_for = require("konane").hashtable(opts.hash_mb or 16), nil
  local rate -- nodes a second of the last solve (nil before the first)
  -- How far its moves ran past their budget (seconds; the largest seen, losing a tenth a move):
  -- the proof and the search look at the clock every few thousand nodes, 5-20 ms on big
  -- boards under load, so with a game clock that much is counted for every move still to play
  -- (konane.bot.budget's overhead), not only the 2 ms of a quick engine.
  local late = 0

  local choose
  function self.choose(b, game, clock)
    local start = util.now()
    local time = bot_util.budget(clock, opts.time or 1.0, nil, game, late)
    local move, info = choose(b, game, time, start)
    late = math.max(late * 0.9, util.now() - start - time, 0)
    return move, info
  end

  function choose(_, game, time, start)
    local share = opts.share or 0.5
    if game.solve then
      local board = game:rows() .. "x" .. game:cols() .. " " .. game:variant()
      if board ~= proofs_for then
        if proofs_for then proofs:clear() end
        proofs_for = board
      end
      -- The solve looks at the clock every few thousand nodes (4096: 3-10 ms on 10x10 and
      -- 12x12), so a short share is also bounded in nodes, at the rate (nodes a second of wall
      -- time, a loaded machine included) of this bot's last solve.
      local nodes = opts.nodes
      if rate then
        local cap = math.max(256, math.floor(time * share * rate))
        if not nodes or cap < nodes then nodes = cap end
      end
      local r = game:solve { time = time * share, nodes = nodes, table = proofs }
      local spent = util.now() - start
      if r.nodes and r.nodes >= 256 and spent > 0.0005 then rate = r.nodes / spent end
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
