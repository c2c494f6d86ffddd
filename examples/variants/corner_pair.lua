-- corner_pair: an example variant that starts after the removals: the top-left corner and the
-- square to its right are empty, Black to jump. start(rows, cols) returns the position text;
-- the removal rules are then never asked for.
-- Use it: konane.new{variant = dofile("examples/variants/corner_pair.lua"), rows = 6, cols = 6}

return {
  name = "corner_pair",
  description = "starts with the top-left corner pair removed, Black to jump",
  rows = 6,
  cols = 6,
  start = function(rows, cols)
    if cols < 2 then error("corner_pair needs at least two columns", 0) end
    local ranks = {}
    for r = rows - 1, 0, -1 do
      local row = {}
      for f = 0, cols - 1 do
        if r == rows - 1 and f < 2 then
          row[#row + 1] = "."                        -- '.' is one empty square
        else
          row[#row + 1] = (f + r) % 2 == 1 and "x" or "o"  -- Black on light squares
        end
      end
      ranks[#ranks + 1] = table.concat(row)
    end
    return table.concat(ranks, "/") .. " b"
  end,
}
