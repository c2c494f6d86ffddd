-- odd_centre: the game starts with the centre pair already removed.
-- On an odd board (the classic use: 5x5, 7x7) the pair is the centre square and the square
-- above it, and White moves first: the centre is a dark square, so in the traditional opening
-- White removed it, Black the piece next to it, and the first remover jumps first (as in the
-- centre_corner variant). On a board with one even side the pair is the two middle squares of
-- the middle rank or file, on an even board the left-to-right pair at the bottom of the middle
-- 2x2 block (every choice is the same game up to symmetry on square boards); there Black, the
-- usual first player, jumps first. No removal is ever made: the start position says it all.
-- Known results (exhaustive search): 4x4 and 6x6 are won by the second player, 5x5 by the
-- first.

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
    .. "above it, White jumps first; else Black)",
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
    local first = (rows % 2 == 1 and cols % 2 == 1) and " w" or " b"
    return table.concat(ranks, "/") .. first
  end,
  -- never used (the start has two holes already); kept so the table reads like any variant
  first_removal = function() return {} end,
}
