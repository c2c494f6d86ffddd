-- free: the first removal may take any of the first mover's pieces; the
-- second removal takes an own piece next to the hole.
return {
  name = "free",
  description = "first removal anywhere (any own piece), second removal next to the hole",
  rows = 8,
  cols = 8,
  first_removal = function(board)
    local out = {}
    for r = 0, board.rows - 1 do
      for f = 0, board.cols - 1 do
        if board.light(f, r) == (board.mover == "black") then
          out[#out + 1] = board.square(f, r)
        end
      end
    end
    return out
  end,
}
