-- centre_corner: the centre-or-corner rule on any board, odd sizes included.
-- The first removal takes a piece from a corner or from the centre (the centre square of an odd
-- board, the two or four middle squares of an even one); the second removal takes a piece next
-- to the hole. The side whose pieces stand there moves first: Black, except where every corner
-- and the centre are dark squares, so White (on the dark squares) starts: boards with an odd
-- number of rows and of columns whose sum leaves 2 divided by 4 (3x3, 5x5, 3x7; on 3x5 the
-- centre is light, Black's). Results keep their meaning: 1-0 is a win for Black.

-- The corners and the centre squares of a rows x cols board, without repeats, as {f, r} pairs.
local function candidates(rows, cols)
  local out, seen = {}, {}
  local function add(f, r)
    local key = r * cols + f
    if not seen[key] then
      seen[key] = true
      out[#out + 1] = { f, r }
    end
  end
  add(0, 0); add(cols - 1, 0); add(0, rows - 1); add(cols - 1, rows - 1)
  local f0, f1 = (cols - 1) // 2, cols // 2
  local r0, r1 = (rows - 1) // 2, rows // 2
  add(f0, r0); add(f1, r0); add(f0, r1); add(f1, r1)
  return out
end

-- The full board as position text with 'side' ("b" or "w") to move.
local function full_board(rows, cols, side)
  local ranks = {}
  for r = rows - 1, 0, -1 do
    local row = {}
    for f = 0, cols - 1 do row[#row + 1] = (f + r) % 2 == 1 and "x" or "o" end
    ranks[#ranks + 1] = table.concat(row)
  end
  return table.concat(ranks, "/") .. " " .. side
end

return {
  name = "centre_corner",
  description = "first removal from a corner or the centre on any board (White starts where "
    .. "all of them are White's, as on 5x5), second removal next to the hole",
  rows = 7,
  cols = 7,
  start = function(rows, cols)
    for _, sq in ipairs(candidates(rows, cols)) do
      if (sq[1] + sq[2]) % 2 == 1 then return nil end -- Black holds one: Black starts
    end
    return full_board(rows, cols, "w")
  end,
  first_removal = function(board)
    local out = {}
    for _, sq in ipairs(candidates(board.rows, board.cols)) do
      if board.light(sq[1], sq[2]) == (board.mover == "black") then
        out[#out + 1] = board.square(sq[1], sq[2])
      end
    end
    return out
  end,
}
