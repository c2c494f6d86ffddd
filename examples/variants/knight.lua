-- knight: an example variant with its own second removal.
-- First removal: a corner or a centre square, as in brainking. Second removal: any piece of the
-- second player a knight's move away from the hole (a knight's move always lands on the other
-- colour, so those squares hold the second player's pieces).
-- Use it: konane.new{variant = dofile("examples/variants/knight.lua")}
--     or: konane.register_variant(dofile("examples/variants/knight.lua")); konane.new{variant = "knight"}

local JUMPS = { { 1, 2 }, { 2, 1 }, { -1, 2 }, { -2, 1 }, { 1, -2 }, { 2, -1 }, { -1, -2 }, { -2, -1 } }

return {
  name = "knight",
  description = "first removal at a corner or the centre, second a knight's move from the hole",
  rows = 8,
  cols = 8,
  -- board = {rows=, cols=, mover=, square(f, r), parse(name), light(f, r)}: returns square names
  first_removal = function(board)
    local out = {}
    local spots = { { 0, 0 }, { board.cols - 1, 0 }, { 0, board.rows - 1 },
                    { board.cols - 1, board.rows - 1 },
                    { (board.cols - 1) // 2, (board.rows - 1) // 2 }, { board.cols // 2, (board.rows - 1) // 2 },
                    { (board.cols - 1) // 2, board.rows // 2 }, { board.cols // 2, board.rows // 2 } }
    local seen = {}
    for _, s in ipairs(spots) do
      local name = board.square(s[1], s[2])
      if not seen[name] and board.light(s[1], s[2]) == (board.mover == "black") then
        seen[name] = true
        out[#out + 1] = name
      end
    end
    return out
  end,
  -- here board.mover is the side making the second removal
  second_removal = function(board, hole)
    local f, r = board.parse(hole)
    local out = {}
    for _, j in ipairs(JUMPS) do
      local nf, nr = f + j[1], r + j[2]
      if nf >= 0 and nr >= 0 and nf < board.cols and nr < board.rows then
        out[#out + 1] = board.square(nf, nr)
      end
    end
    return out
  end,
}
