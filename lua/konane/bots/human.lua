-- The human bot: asks for each move on the terminal (the REPL's standard input and output).
-- Commands at the prompt: a move in any accepted notation, "moves" (the legal moves), "board",
-- "flip" (turn the board), "resign", "help". End of input resigns. Options: input (a function
-- returning the next line or nil, for scripts and tests), output (a function writing a string),
-- name, color (true/false; default: colour when the output is a terminal and NO_COLOR is not set).
-- The board is drawn by konane.draw, from the side of the player (White's side for White).
-- A human is never timed by konane.play (the bot has untimed = true).

local draw = require("konane.draw")

local M = {
  description = "asks for each move at the terminal",
  options = { "input", "output", "name", "color" },
}

local SIDE = { black = "Black", white = "White" }

--- new(opts) -> bot
function M.new(opts)
  opts = opts or {}
  for k in pairs(opts) do
    local known = false
    for _, name in ipairs(M.options) do known = known or k == name end
    if not known then
      error("unknown option '" .. tostring(k) .. "' for bot 'human' (known: " ..
        table.concat(M.options, ", ") .. ")", 3)
    end
  end
  local input = opts.input or function() return io.read("l") end
  local output = opts.output or function(s) io.write(s); io.flush() end
  local color = opts.color
  if color == nil then color = opts.output == nil and draw.use_color(1) end
  local self = { name = opts.name or "human", untimed = true }
  local flip -- nil: from the player's side; true/false after "flip"

  function self.choose(_, game)
    local me = game:turn()
    local function show()
      local f = flip
      if f == nil then f = me == "white" end
      output(draw.board(game, { color = color, flip = f }) .. "\n")
    end
    show()
    while true do
      output(SIDE[me] .. "'s move (or moves, board, flip, resign, help)> ")
      local line = input()
      if line == nil then
        output("\n")
        return "resign"
      end
      line = line:match("^%s*(.-)%s*$")
      if line == "" then -- luacheck: ignore 542 (an empty line: ask again)
      elseif line == "moves" or line == "?" then
        output(table.concat(game:moves(), " ") .. "\n")
      elseif line == "board" then
        show()
      elseif line == "flip" then
        if flip == nil then flip = me == "white" end
        flip = not flip
        show()
      elseif line == "resign" then
        return "resign"
      elseif line == "help" then
        output("type a move (d5, f5-d5, F5B5), or: moves (list them), board, flip (turn the board), resign\n")
      else
        local move, why = game:legal(line)
        if move then return move end
        output(tostring(why) .. "\n")
      end
    end
  end

  return self
end

return M
