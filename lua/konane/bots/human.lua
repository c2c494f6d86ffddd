-- The human bot: asks for each move on the terminal (the REPL's standard input and output).
-- Commands at the prompt: a move in any accepted notation, "moves" (the legal moves), "board",
-- "resign", "help". End of input resigns. Options: input (a function returning the next line or
-- nil, for scripts and tests), output (a function writing a string).
-- A human is never timed by konane.play (the bot has untimed = true).

local M = {
  description = "asks for each move at the terminal",
  options = { "input", "output", "name" },
}

--- new(opts) -> bot
function M.new(opts)
  opts = opts or {}
  for k in pairs(opts) do
    if k ~= "input" and k ~= "output" and k ~= "name" then
      error("unknown option '" .. tostring(k) .. "' for bot 'human' (known: input, output, name)", 3)
    end
  end
  local input = opts.input or function() return io.read("l") end
  local output = opts.output or function(s) io.write(s); io.flush() end
  local self = { name = opts.name or "human", untimed = true }

  function self.choose(_, game)
    output(tostring(game) .. "\n")
    if game:last() then output("last move: " .. game:last() .. "\n") end
    while true do
      output(game:turn() .. " to move (" .. game:phase() .. ")> ")
      local line = input()
      if line == nil then
        output("\n")
        return "resign"
      end
      line = line:match("^%s*(.-)%s*$")
      if line == "" then
        -- ask again
      elseif line == "moves" or line == "?" then
        output(table.concat(game:moves(), " ") .. "\n")
      elseif line == "board" then
        output(tostring(game) .. "\n")
      elseif line == "resign" then
        return "resign"
      elseif line == "help" then
        output("a move (d5, f5-d5, F5B5), moves, board, resign\n")
      else
        local move, why = game:legal(line)
        if move then return move end
        output("illegal move '" .. line .. "': " .. tostring(why) .. "\n")
      end
    end
  end

  return self
end

return M
