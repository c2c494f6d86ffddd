-- REPL commands on the current game: new, play, undo, back, forward, seek, flip, board, moves,
-- history (see konane.repl.commands for the shape of an entry).

local S = require("konane.repl.session")
local match = require("konane.repl.match")
local format = require("konane.repl.format")

local side_name = S.side_name

-- Parse the arguments of new(): (rows, cols, variant), ("6x6"), ("free"), (fen), {table}.
-- Raises a plain-worded string error for a bad size (the command wrapper names the call).
local function new_options(a, b, c)
  if type(a) == "table" then return a end
  local o = {}
  local args = { a, b, c }
  local nums = {}
  for i = 1, 3 do
    local v = args[i]
    if type(v) == "number" then
      nums[#nums + 1] = v
    elseif type(v) == "string" then
      local r, cc = v:match("^(%d+)[xX](%d+)$")
      if r then
        nums[#nums + 1], nums[#nums + 2] = tonumber(r), tonumber(cc)
      elseif v:find("/") or v:match("^[xo%.%d]+ [bw]$") then
        o.fen = v
      else
        o.variant = v
      end
    elseif v ~= nil then
      error(string.format("argument %d must be a number, a string or a table, not a %s", i, type(v)), 0)
    end
  end
  local max = S.need_konane().MAX_SIDE or 20
  for i, key in ipairs { "rows", "cols" } do
    local n = nums[i]
    if n ~= nil and (math.type(n) ~= "integer" or n < 1 or n > max) then
      error(string.format("%s must be 1..%d", key, max), 0)
    end
  end
  if nums[1] then
    o.rows = nums[1]
    o.cols = nums[2] or nums[1]
  end
  return o
end

-- "1. d5 e5 2. b5-d5" for 'moves' from ply 'first' (0-based) of a game whose start position
-- has 'white_first' (White to move): White's move opening a line is numbered "n...".
local function numbered(moves, first, white_first)
  local out = {}
  local offset = white_first and 1 or 0
  for i, m in ipairs(moves) do
    local ply = first + i - 1 + offset  -- counting as if Black always moved first
    local n = ply // 2 + 1
    if ply % 2 == 0 then
      out[#out + 1] = n .. ". " .. m
    elseif i == 1 then
      out[#out + 1] = n .. "... " .. m
    else
      out[#out + 1] = m
    end
  end
  return table.concat(out, " ")
end

local function white_first(g)
  return (g:start_fen() or ""):match(" w$") ~= nil
end

local function check_count(n, what)
  n = S.whole(n)
  if n ~= nil and (math.type(n) ~= "integer" or n < 1) then
    error(what .. " must be a whole number of moves, 1 or more", 0)
  end
  return n or 1
end

-- Step 'g' to 'ply' along its line; returns the moves undone or replayed.
local function step_to(g, ply)
  local h, line = S.sync(g)
  local moved = {}
  if ply < #h then
    for _ = #h, ply + 1, -1 do moved[#moved + 1] = g:undo() end
  else
    for i = #h + 1, ply do
      g:play(line.moves[i])
      moved[#moved + 1] = line.moves[i]
    end
  end
  return moved, #line.moves
end

return {
  {
    name = "new", usage = "new(rows, cols, variant)", line = "start a new game (8x8 brainking by default)",
    detail = [[
new()                  8x8, variant brainking
new(6)                 6x6;  new(6, 8): 6 rows, 8 columns;  new("10x10")
new(8, 8, "free")      a variant by name (variants() lists them)
new("xoxo/oxox/xoxo/oxox b")   start from a position text
new{rows=6, cols=6, variant="free", fen=...}   the options of konane.new
The new game becomes the global g; an opponent set by vs() is dropped.]],
    fn = function(a, b, c)
      local k = S.need_konane()
      local g = k.new(new_options(a, b, c))
      S.set_game(g)
      S.show_board(g)
    end,
  },
  {
    name = "play", usage = "play(move)", line = "play a move (typing the move alone does the same)",
    detail = [[
play("f5-d5") or simply f5-d5 at the prompt. Accepted: d5 (a removal), f5-d5 (a jump),
f5-b5 (a multiple jump, first and last squares), f5-d5-b5 (full path), F5-B5, f5b5.
The board is shown after the move; when vs() set an opponent, it answers first.]],
    fn = function(move)
      if type(move) ~= "string" then error("a move such as \"f5-d5\" expected, got " .. type(move), 0) end
      match.play(move)
    end,
  },
  {
    name = "undo", usage = "undo(n)", line = "take back the last move (n moves)",
    detail = [[
undo() takes back one move; undo(3) three. Against an opponent set by vs(), undo() takes back
your last move and the opponent's reply, so it is your turn again (also after the game has
ended); the opponent then answers your next move as before. After a loss on time the game goes
on without the clock. forward() replays what undo() took
back, until you play another move.]],
    fn = function(n)
      local count = check_count(n, "n")
      local g = S.game()
      S.sync(g)
      local undone = {}
      for _ = 1, count do
        local m = g:undo()
        if not m then break end
        undone[#undone + 1] = m
      end
      local opp = S.opponent
      if n == nil and opp and opp.game == g and #undone > 0 then
        -- back to the user's turn: the reply and the move it answered
        while g:turn() == opp.side do
          local m = g:undo()
          if not m then break end
          undone[#undone + 1] = m
        end
      end
      if opp and opp.game == g and opp.over and #undone > 0 then
        -- the game was lost on time: it goes on, without the clock
        opp.over, opp.clock = nil, nil
        print("the clock is off")
      end
      if #undone == 0 then
        print("nothing to undo: the game is at its start")
      else
        print("undone: " .. table.concat(undone, " "))
      end
      S.show_board(g)
    end,
  },
  {
    name = "back", usage = "back(n)", line = "step back one move (n moves) through the game",
    detail = [[
back() steps one move back through the current game (a game loaded with open(), a finished
one, or one you are playing); back(5) five. forward() steps forward again and seek(ply) jumps.
The later moves are kept until you play a different move from here: then they are dropped.]],
    fn = function(n)
      local count = check_count(n, "n")
      local g = S.game()
      local target = math.max(0, g:ply() - count)
      if g:ply() == 0 then print("already at the start of the game") end
      step_to(g, target)
      S.show_board(g)
    end,
  },
  {
    name = "forward", usage = "forward(n)", line = "step forward one move (n moves) through the game",
    detail = [[
forward() replays the next move of the game after back(), undo() or seek(); forward(5) five.]],
    fn = function(n)
      local count = check_count(n, "n")
      local g = S.game()
      local _, line = S.sync(g)
      if g:ply() >= #line.moves then print("already at the end of the game") end
      step_to(g, math.min(#line.moves, g:ply() + count))
      S.show_board(g)
    end,
  },
  {
    name = "seek", usage = "seek(ply)", line = "go to a ply of the game: seek(0) start, seek(-1) end",
    detail = [[
seek(10) shows the position after the first 10 plies (moves of either side) of the current
game; seek(0) the start; seek(-1) the end, seek(-3) three plies before it. A move played from
there continues the game and drops the later moves.]],
    fn = function(ply)
      ply = S.whole(ply)
      if math.type(ply) ~= "integer" then error("ply must be a whole number (0 the start, -1 the end)", 0) end
      local g = S.game()
      local _, line = S.sync(g)
      local total = #line.moves
      local target = ply < 0 and total + 1 + ply or ply
      if target < 0 or target > total then
        error(string.format("the game has %d plies: 0..%d, or -1..-%d from the end", total, total,
          total + 1), 0)
      end
      step_to(g, target)
      S.show_board(g)
    end,
  },
  {
    name = "flip", usage = "flip()", line = "turn the board: White's side at the bottom, or back",
    detail = [[
flip() draws the board from the other side from now on: ranks from 1 at the top, files from h
at the left. vs() turns it so that your side is at the bottom; flip() again turns it back.]],
    fn = function()
      S.flip = not S.flip
      print(S.flip and "the board is drawn from White's side" or "the board is drawn from Black's side")
      local g = rawget(_G, "g")
      if S.is_game(g) then S.show_board(g) end
    end,
  },
  {
    name = "board", usage = "board()", line = "show the board",
    detail = [[
The board with coordinates, whose turn it is, the phase and the last move (its two squares
marked [ ], or highlighted in colour). `g` typed alone shows the same; print(g) and
tostring(g) give the same drawing without colour.]],
    fn = function() S.show_board(S.game()) end,
  },
  {
    name = "moves", usage = "moves()", line = "list the legal moves",
    detail = [[
The legal moves of the side to move, in the order of g:moves() (by origin square, then landing).]],
    fn = function()
      local g = S.game()
      local list = g:moves()
      if #list == 0 then
        print(g:over() and match.result_line(g) or (side_name(g:turn()) .. " has no legal move."))
        return
      end
      print(string.format("%d legal move%s for %s:", #list, #list == 1 and "" or "s", side_name(g:turn())))
      local text = format.format(list, { color = false }):gsub('"', ""):gsub("^{\n?", ""):gsub("\n?}$", "")
      if not text:find("^ ") then text = "  " .. text end
      print(text)
    end,
  },
  {
    name = "history", usage = "history()", line = "the moves played so far, numbered",
    detail = [[
Moves from the start position, Black's and White's on one numbered line: 1. d5 e5 2. f5-d5 ...
After back() or seek(), the moves ahead (forward() replays them) follow on a second line.]],
    fn = function()
      local g = S.game()
      local h, line = S.sync(g)
      local wf = white_first(g)
      if #h == 0 then print("no move yet") else print(numbered(h, 0, wf)) end
      if #line.moves > #h then
        print("ahead: " .. numbered(table.move(line.moves, #h + 1, #line.moves, 1, {}), #h, wf))
      end
    end,
  },
}
