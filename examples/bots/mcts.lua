-- Monte Carlo tree search in plain Lua (UCT): grow a tree of positions, pick children by the
-- UCB1 formula, finish each new position with random moves, and count who won.
-- Options ("examples/bots/mcts.lua:playouts=500,seed=2"): playouts, time (seconds per move,
-- default 0.2), c (exploration, default 0.7 as the engine's g:mcts), seed.

local konane = require "konane"

-- A small seeded generator (xorshift), independent of math.random: rand(n) is in 1..n.
local function generator(seed)
  local s = (seed or 1) * 2654435761 % 4294967295 + 1
  return function(n)
    s = s ~ (s << 13) & 0xffffffff
    s = s ~ (s >> 17)
    s = s ~ (s << 5) & 0xffffffff
    return s % n + 1
  end
end

local function new_node(game, parent, move, mover)
  return { parent = parent, move = move, mover = mover, visits = 0, wins = 0,
           untried = game:moves(), children = {} }
end

-- The child of 'node' with the best UCB1 value.
local function select_child(node, c)
  local best, best_value = nil, -math.huge
  local log_n = math.log(node.visits)
  for _, child in ipairs(node.children) do
    local value = child.wins / child.visits + c * math.sqrt(log_n / child.visits)
    if value > best_value then best, best_value = child, value end
  end
  return best
end

local M = {}

function M.new(opts)
  opts = opts or {}
  local c = opts.c or 0.7
  local rand = generator(opts.seed)
  return {
    name = "mcts-lua",
    new_game = function(self, info) rand = generator(opts.seed or (info and info.seed)) end,
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
      local deadline = not opts.playouts and konane.core.clock() + time
      local root = new_node(game)
      local n = 0
      while (opts.playouts and n < opts.playouts) or (deadline and konane.core.clock() < deadline) do
        n = n + 1
        local node, depth = root, 0
        while #node.untried == 0 and #node.children > 0 do      -- 1. select
          node = select_child(node, c)
          game:play(node.move)
          depth = depth + 1
        end
        if #node.untried > 0 then                               -- 2. expand
          local move = table.remove(node.untried, rand(#node.untried))
          local mover = game:turn()
          game:play(move)
          depth = depth + 1
          local child = new_node(game, node, move, mover)
          node.children[#node.children + 1] = child
          node = child
        end
        local plies = 0                                         -- 3. random playout
        while true do
          local moves = game:moves()
          if #moves == 0 then break end
          game:play(moves[rand(#moves)])
          plies = plies + 1
        end
        local winner = game:winner()
        for _ = 1, plies + depth do game:undo() end
        while node do                                           -- 4. count the result
          node.visits = node.visits + 1
          if node.mover == winner then node.wins = node.wins + 1 end
          node = node.parent
        end
      end
      local best = root.children[1]
      for _, child in ipairs(root.children) do
        if child.visits > best.visits then best = child end
      end
      return best.move, { playouts = n, winrate = best.wins / best.visits }
    end,
  }
end

local default = M.new()
M.name, M.choose, M.new_game = default.name, default.choose, default.new_game
return M
