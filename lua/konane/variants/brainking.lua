-- brainking: BrainKing's opening rule. The first removal takes a corner or
-- a centre square of the first mover's colour: on an even n x n board the
-- corners and the two centre squares of the anti-diagonal (8x8: a8, h1,
-- d5, e4). The second removal takes an own piece next to the hole.
local function corners_and_centre(board)
  local r, c = board.rows, board.cols
  local out, seen = {}, {}
  local function add(f, k)
    local s = board.square(f, k)
    if not seen[s] and board.light(f, k) == (board.mover == "black") then
      seen[s] = true
      out[#out + 1] = s
    end
  end
  add(0, 0); add(c - 1, 0); add(0, r - 1); add(c - 1, r - 1)
  local f0, f1 = (c - 1) // 2, c // 2
  local r0, r1 = (r - 1) // 2, r // 2
  add(f0, r0); add(f1, r0); add(f0, r1); add(f1, r1)
  return out
end

return {
  name = "brainking",
  description = "BrainKing rules: first removal from a corner or the centre "
    .. "(8x8: a8, h1, d5, e4), second removal next to the hole",
  rows = 8,
  cols = 8,
  first_removal = function(board)
    local squares = corners_and_centre(board)
    if #squares == 0 then
      error(("no corner or centre square holds a %s piece on a "
        .. "%dx%d board; use variant = 'centre_corner' (any size) or 'free'")
        :format(board.mover == "black" and "Black" or "White",
          board.rows, board.cols), 0)
    end
    return squares
  end,
}
