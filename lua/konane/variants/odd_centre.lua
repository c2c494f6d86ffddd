-- odd_centre: the game starts with the centre pair already removed, Black to jump.
-- On an odd board (the classic use: 5x5, 7x7) the pair is the centre square and the square
-- above it; on a board with one even side, the two middle squares of the middle rank or file;
-- on an even board, the left-to-right pair at the bottom of the middle 2x2 block (every choice
-- is the same game up to symmetry on square boards). No removal is ever made: the position text
-- of the start says it all.

-- The two squares of the centre pair as 0-based {f, r} pairs.
local function centre_pair(rows, cols)
  local f0, r0 = (cols - 1) // 2, (rows - 1) // 2
  if rows % 2 == 1 and cols % 2 == 1 then
    if rows > 1 then return { f0, r0 }, { f0, r0 + 1 } end
    return { f0, r0 }, { f0 + 1, r0 }
  elseif cols % 2 == 0 then
    return { f0, r0 }, { f0 + 1, r0 }   -- the middle two of the (lower) middle rank
  else
    return { f0, r0 }, { f0, r0 + 1 }   -- the middle two of the middle file
  end
end

return {
  name = "odd_centre",
  description = "starts with the centre pair removed (odd boards: the centre and the square "
    .. "above it), Black jumps first",
  rows = 7,
  cols = 7,
  start = function(rows, cols)
    if rows * cols < 2 then
      error("odd_centre: a 1x1 board has no centre pair", 0)
    end
    local a, b = centre_pair(rows, cols)
    local ranks = {}
    for r = rows - 1, 0, -1 do
      local row, run = {}, 0
      for f = 0, cols - 1 do
        if (f == a[1] and r == a[2]) or (f == b[1] and r == b[2]) then
          run = run + 1
        else
          if run > 0 then row[#row + 1] = tostring(run); run = 0 end
          row[#row + 1] = (f + r) % 2 == 1 and "x" or "o"
        end
      end
      if run > 0 then row[#row + 1] = tostring(run) end
      ranks[#ranks + 1] = table.concat(row)
    end
    return table.concat(ranks, "/") .. " b"
  end,
  -- never used (the start has two holes already); kept so the table reads like any variant
  first_removal = function() return {} end,
}
