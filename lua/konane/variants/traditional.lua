-- traditional: the removals stay off the edge, as in the traditional Hawaiian rule.
-- The first removal takes any own piece not on the edge of the board; the second removal an own
-- piece next to the hole, also off the edge (when the hole has no such neighbour, as in a 3x3
-- board, any own neighbour of the hole will do, so the game can go on). When Black has no piece
-- off the edge but White has (3x3), White starts. Boards narrower than 3 have no inner square.

local function inner(board, f, r)
  return f > 0 and r > 0 and f < board.cols - 1 and r < board.rows - 1
end

return {
  name = "traditional",
  description = "removals off the edge: first any own inner piece, second an inner neighbour of the hole",
  rows = 8,
  cols = 8,
  start = function(rows, cols)
    for r = 1, rows - 2 do
      for f = 1, cols - 2 do
        if (f + r) % 2 == 1 then return nil end -- Black has an inner piece: Black starts
      end
    end
    if rows >= 3 and cols >= 3 then
      local ranks = {}
      for r = rows - 1, 0, -1 do
        local row = {}
        for f = 0, cols - 1 do row[#row + 1] = (f + r) % 2 == 1 and "x" or "o" end
        ranks[#ranks + 1] = table.concat(row)
      end
      return table.concat(ranks, "/") .. " w"
    end
    return nil
  end,
  first_removal = function(board)
    local out = {}
    for r = 1, board.rows - 2 do
      for f = 1, board.cols - 2 do
        if board.light(f, r) == (board.mover == "black") then
          out[#out + 1] = board.square(f, r)
        end
      end
    end
    if #out == 0 then
      error(("a %dx%d board has no square off the edge; use at least 3x3")
        :format(board.rows, board.cols), 0)
    end
    return out
  end,
  second_removal = function(board, hole)
    local f, r = board.parse(hole)
    local off_edge, any = {}, {}
    for _, d in ipairs { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } } do
      local nf, nr = f + d[1], r + d[2]
      if nf >= 0 and nr >= 0 and nf < board.cols and nr < board.rows
          and board.light(nf, nr) == (board.mover == "black") then
        any[#any + 1] = board.square(nf, nr)
        if inner(board, nf, nr) then off_edge[#off_edge + 1] = board.square(nf, nr) end
      end
    end
    return #off_edge > 0 and off_edge or any
  end,
}
