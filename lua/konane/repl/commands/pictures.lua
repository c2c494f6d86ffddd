-- REPL commands for pictures: svg (the board as an SVG file) and annotate (the engine's marks on
-- the game so far).

local S = require("konane.repl.session")

return {
  {
    name = "svg", usage = "svg(path, opts)", line = "svg(\"pos.svg\") saves the board as an SVG picture",
    detail = [[
svg("pos.svg") writes the current position as an SVG picture (g:svg{...}): squares,
pieces, coordinates, the side to move and the last move as an arrow. opts as g:svg:
{size=480, flip=true, hints=true, marks={"d5"}, arrows={"b5-d5"}, last=false}.
svg() with no path returns the SVG text.]],
    fn = function(path, opts)
      local g = S.game()
      if path == nil then return g:svg(opts) end
      if type(path) ~= "string" then error("a file name expected, got " .. type(path), 0) end
      local ok, err = require("konane.svg").write(g, path, opts)
      if not ok then S.fail_write(path, err) end
      print("saved the position to " .. path)
    end,
  },
  {
    name = "annotate", usage = "annotate(opts)", line = "the engine's judgement on every move so far (?, ??, !)",
    detail = [[
annotate() searches every position of the current game (0.5 s each; annotate{depth=8}
or annotate{time=2} to change) and prints the moves with marks and evaluations from
Black's point of view in moves of mobility: ?? throws away a proved win or much of the
score, ? loses some, ! the only winning move; #7 / #-6: Black / White wins in that many
plies, proved. The file version: konane scripts/annotate.lua game.pgn --html out.html.]],
    fn = function(opts)
      local g = S.game()
      if #g:history() == 0 then
        print("no moves to annotate yet")
        return
      end
      local o = {}
      for k, v in pairs(opts or {}) do o[k] = v end
      local annotate = require("konane.annotate")
      if S.can_redraw() then
        o.progress = function(done, total)
          S.write(("\rannotating: %d/%d positions"):format(done, total))
          if done == total then S.write("\r\27[K") end
        end
      end
      local notes = annotate.game(g, o)
      local start = S.need_konane().new { variant = g:variant(), rows = g:rows(), cols = g:cols(),
                                           fen = g:start_fen() }
      print(annotate.text(notes, start:turn()))
    end,
  },
}
