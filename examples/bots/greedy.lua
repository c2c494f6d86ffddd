-- A bot in a dozen lines: play the move after which we have the most moves left compared with
-- the opponent (a move that leaves the opponent without a move wins at once).
-- Try it: build/konane -e 'local k = require "konane"
--   print(k.pgn.write(k.play("examples/bots/greedy.lua", "random", {seed = 1})))'
return {
  name = "greedy-example",
  choose = function(self, game)
    local me, best, best_score = game:turn(), nil, -math.huge
    for _, move in ipairs(game:moves()) do
      game:play(move)
      local score = game:over() and math.huge or game:nmoves(me) - game:nmoves()
      game:undo()
      if score > best_score then best, best_score = move, score end
    end
    return best
  end,
}
