-- konane.draw: the one text board renderer. tostring(g), g:draw{}, the REPL's board() and the
-- human bot all draw through board() here, so a position looks the same everywhere:
--
--       a b c d e f g h
--     8 x o x o x o x o 8
--     ...
--     5 o[.].[x]. x o x 5        the last move (b5-d5): its origin and landing in [ ]
--     ...
--       a b c d e f g h
--   White (o) to move, jump, last b5-d5 (Black), ply 3
--
-- Files a.. left to right and ranks 1.. bottom to top (rules.md), Black 'x', White 'o', empty
-- '.'. With colour the two squares of the last move are shown in reverse video instead of the
-- brackets. flip = true draws the board from White's side (turned half a turn: h1 top left).

local M = {}

local FILES = "abcdefghijklmnopqrstuvwxyz"

local SGR = {
  reset = "\27[0m", bold = "\27[1m", dim = "\27[2m",
  black = "\27[1;31m", white = "\27[1;37m", mark = "\27[7m",
}

local PHASE = { remove1 = "first removal", remove2 = "second removal", jump = "jump" }

local function side_name(side)
  return side == "black" and "Black" or side == "white" and "White" or tostring(side)
end

local function other(side)
  return side == "black" and "white" or "black"
end

--- marked(move) -> set of square names
-- The squares a move is marked by: a removal its square, a jump its origin and its landing
-- (never adjacent, so the brackets of the plain drawing never touch).
function M.marked(move)
  local set = {}
  if type(move) == "string" then
    for s in move:gmatch("%a%d+") do set[s:lower()] = true end
  end
  return set
end

-- The first argument of board/status must be a game (a table or number there was "attempt to
-- index a number value (local 'o')" or "attempt to call a nil value (method 'rows')"), and
-- their options are checked like the C bindings' (a misspelt option is never ignored).
local function check_game(game, where)
  if not require("konane.util").is_game(game) then
    error(("%s: bad argument #1 (a game expected, got %s)"):format(where, type(game)), 3)
  end
end

--- status(game, {color=, info=}) -> one line
-- Whose turn it is and the phase in words (or who won and why), the last move and who played
-- it, the ply; 'info' (a string, optional) is appended, e.g. the clocks of a game in progress.
function M.status(game, o)
  check_game(game, "draw.status")
  o = require("konane.util").check_opts(o, { "color", "info" }, "draw.status")
  local parts = {}
  local head
  if game:over() then
    local w = game:winner()
    head = string.format("Game over: %s wins (%s has no legal move)", side_name(w), side_name(other(w)))
  else
    local turn = game:turn()
    head = string.format("%s (%s) to move", side_name(turn), turn == "black" and "x" or "o")
    local phase = PHASE[game:phase()]
    if phase then head = head .. ", " .. phase end
  end
  parts[1] = o.color and SGR.bold .. head .. SGR.reset or head
  local last = game:last()
  if last then
    parts[#parts + 1] = string.format("last %s (%s)", last, side_name(other(game:turn())))
  end
  parts[#parts + 1] = "ply " .. game:ply()
  if o.info and o.info ~= "" then parts[#parts + 1] = o.info end
  return table.concat(parts, ", ")
end

--- board(game, {color=, flip=, last=, turn=, info=}) -> string (no final newline)
-- The board with its coordinates on four sides, then the status line (turn = false leaves it
-- out). color: ANSI colours (the caller decides; see use_color); flip: White's side at the
-- bottom; last = false: the last move is not marked; info: appended to the status line.
function M.board(game, o)
  check_game(game, "draw.board")
  o = require("konane.util").check_opts(o, { "color", "flip", "last", "turn", "info" }, "draw.board")
  local color, flip = o.color and true or false, o.flip and true or false
  local rows, cols = game:rows(), game:cols()
  local marked = o.last ~= false and M.marked(game:last()) or {}
  local function paint(style, s)
    return color and SGR[style] .. s .. SGR.reset or s
  end
  local file_order = {}
  for i = 0, cols - 1 do file_order[#file_order + 1] = flip and cols - 1 - i or i end
  local names = {}
  for _, f in ipairs(file_order) do names[#names + 1] = FILES:sub(f + 1, f + 1) end
  local header = paint("dim", "    " .. table.concat(names, " "))
  local out = { header }
  for i = 0, rows - 1 do
    local r = flip and i or rows - 1 - i
    local line = { paint("dim", string.format("%3d", r + 1)) }
    local prev_marked = false
    for _, f in ipairs(file_order) do
      local sq = FILES:sub(f + 1, f + 1) .. (r + 1)
      local who = game:at(sq)
      local here = marked[sq] or false
      local ch
      if who == "black" then
        ch = paint("black", "x")
      elseif who == "white" then
        ch = paint("white", "o")
      else
        ch = paint("dim", ".")
      end
      if color then
        if here then ch = SGR.mark .. ch end
        line[#line + 1] = " " .. ch
      else
        line[#line + 1] = (here and "[" or prev_marked and "]" or " ") .. ch
      end
      prev_marked = here
    end
    line[#line + 1] = (prev_marked and not color and "]" or " ") .. paint("dim", tostring(r + 1))
    out[#out + 1] = table.concat(line)
  end
  out[#out + 1] = header
  if o.turn ~= false then out[#out + 1] = M.status(game, { color = color, info = o.info }) end
  return table.concat(out, "\n")
end

--- use_color(fd) -> boolean
-- Should output to file descriptor 'fd' (default 1, standard output) be coloured? Only on a
-- terminal that is not dumb, and never when NO_COLOR is set to a non-empty value.
function M.use_color(fd)
  local no = os.getenv("NO_COLOR")
  if no and no ~= "" then return false end
  if (os.getenv("TERM") or "dumb") == "dumb" then return false end
  local ok, core = pcall(require, "konane.core")
  if not ok or type(core.isatty) ~= "function" then return false end
  local ok2, tty = pcall(core.isatty, fd or 1)
  return ok2 and tty == true
end

return M
