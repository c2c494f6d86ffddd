-- The mcts bot: Monte Carlo tree search (UCT with random playouts), the engine's g:mcts when it
-- exists, else the plain Lua version below.
-- Options: time (seconds per move; default 1), playouts, c (exploration constant), seed.

local bot_util = require("konane.bot")

local M = {
  description = "Monte Carlo tree search (UCT, random playouts)",
  options = { "time", "playouts", "c", "seed" },
}

local function now()
  local ok, konane = pcall(require, "konane")
  if ok and konane.core and konane.core.clock then return konane.core.clock() end
  return os.clock()
end

--- lua_mcts(game, limits) -> {move=, visits=, winrate=, playouts=}
-- UCT in plain Lua on 'game' (left as it was): limits.playouts and/or limits.time (seconds),
-- limits.c the exploration constant (default 1.4), limits.seed. Returns the most visited move of
-- the root and its winning rate for the side to move.
function M.lua_mcts(game, limits)
  local rand = bot_util.rng(limits.seed or 1)
  local c = limits.c or 1.4
  local playouts = limits.playouts
  local deadline = limits.time and now() + limits.time
  if not playouts and not deadline then playouts = 1000 end
  local root = { visits = 0, wins = 0, untried = game:moves(), children = {} }
  local n = 0
  while true do
    if playouts and n >= playouts then break end
    if deadline and n > 0 and now() > deadline then break end
    n = n + 1
    local node, depth = root, 0
    -- 1. selection: descend through fully expanded nodes by the UCT formula
    while #node.untried == 0 and #node.children > 0 do
      local best, best_value = nil, -math.huge
      local log_n = math.log(node.visits)
      for _, child in ipairs(node.children) do
        local v = child.wins / child.visits + c * math.sqrt(log_n / child.visits)
        if v > best_value then best, best_value = child, v end
      end
      game:play(best.move)
      depth = depth + 1
      node = best
    end
    -- 2. expansion: one untried move, chosen at random
    if #node.untried > 0 then
      local i = rand(#node.untried)
      local move = node.untried[i]
      node.untried[i] = node.untried[#node.untried]
      node.untried[#node.untried] = nil
      local mover = game:turn()
      game:play(move)
      depth = depth + 1
      local child = { move = move, mover = mover, parent = node, visits = 0, wins = 0,
                      untried = game:moves(), children = {} }
      node.children[#node.children + 1] = child
      node = child
    end
    -- 3. playout: random moves to the end; the side left without a move loses
    local plies = 0
    while true do
      local moves = game:moves()
      if #moves == 0 then break end
      game:play(moves[rand(#moves)])
      plies = plies + 1
    end
    local winner = game:turn() == "black" and "white" or "black"
    for _ = 1, plies + depth do game:undo() end
    -- 4. back-propagation: each node counts the wins of the side that moved into it
    while node do
      node.visits = node.visits + 1
      if node.mover == winner then node.wins = node.wins + 1 end
      node = node.parent
    end
  end
  local best
  for _, child in ipairs(root.children) do
    if not best or child.visits > best.visits then best = child end
  end
  if not best then return { move = root.untried[1], visits = 0, winrate = 0, playouts = n } end
  return { move = best.move, visits = best.visits, winrate = best.wins / best.visits, playouts = n }
end

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

  function self.choose(b, game, clock)
    calls = calls + 1
    local time = bot_util.budget(clock, opts.time or (not opts.playouts and 1.0 or nil))
    local seed = (b.seed or 1) * 1000003 + calls
    local r
    if game.mcts then
      r = game:mcts { playouts = opts.playouts, time = time, c = opts.c, seed = seed }
    else
      r = M.lua_mcts(game, { playouts = opts.playouts, time = time, c = opts.c, seed = seed })
    end
    return r.move, { winrate = r.winrate, visits = r.visits }
  end

  return self
end

return M
