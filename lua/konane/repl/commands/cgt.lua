-- REPL commands on combinatorial game values: cgt.

local S = require("konane.repl.session")

return {
  {
    name = "cgt", usage = "cgt(budget)", line = "the board's independent regions, their values, who wins the sum",
    detail = [[
Splits the current position into regions that can never interact (docs/cgt.md) and prints
each region's pieces and its value in CGSuite's notation, Left = Black (x), Right = White (o):
numbers (3, -1/2), nimbers (*, *2), ups (^, v*), switches (+-1), {L|R}. Then the sum, its
outcome (L/R: that side wins whoever starts, N: the player to move wins, P: the player to move
loses) and the winner with the side to move. Big regions take long: cgt(budget) gives up after
that many region computations (default 200000); Ctrl-C stops it.]],
    fn = function(budget)
      budget = S.whole(budget)
      if budget ~= nil and (math.type(budget) ~= "integer" or budget < 1) then
        error("budget must be a whole number above 0", 0)
      end
      local g = S.game()
      local cgt = require("konane.cgt")
      local ok, text = pcall(cgt.describe, g, { budget = budget or 200000 })
      if not ok then
        if S.is_interrupt(text) then error(text, 0) end
        if tostring(text):find("budget", 1, true) then
          S.fail("the regions are too big to compute within the budget; try again later in the game or give cgt(budget) more")
        end
        error(text, 0)
      end
      print(text)
    end,
  },
}
