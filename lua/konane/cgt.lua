-- konane.cgt: combinatorial game values of Konane positions.
--
-- A value is the game itself, with Left = Black (x) and Right = White (o),
-- whoever is to move; any placement of pieces is accepted (square colours
-- play no part). Values are canonical forms printed in CGSuite's notation
-- (docs/cgt.md); they add, subtract, negate and compare with + - == < <=.
local core = require "konane.core"

local M = {}

local methods = core.cgt_methods() -- the methods of every value

-- Raises the core's message as the caller of 'name' should read it: the core's functions
-- ('konane.core.cgt_value') are no names the user knows; level 3 is that caller.
local function raise(err, name)
  local msg = tostring(err):gsub("'konane%.core%.cgt_%w+'", "'" .. name .. "'")
    :gsub("^cgt: unknown option", "cgt." .. name .. ": unknown option")
  error(msg, 3)
end

--- The value of a game or of position text (any placement; the side to
--- move, if given, is ignored). opts.budget caps the regions computed.
function M.value(x, opts)
  if type(x) ~= "string" and not (type(x) == "userdata" and x.fen) then
    error(("bad argument #1 to 'value' (game or position text expected, got %s)")
      :format(type(x)), 2)
  end
  local ok, v = pcall(core.cgt_value, x, opts)
  if not ok then raise(v, "value") end
  return v
end

--- A value from CGSuite-style text ("3/4", "^*", "+-1", "{1|0}",
--- "{2||1|0}"), or nil and a message.
function M.parse(text)
  if type(text) ~= "string" then
    error(("bad argument #1 to 'parse' (string expected, got %s)"):format(type(text)), 2)
  end
  return core.cgt_parse(text)
end

--- The canonical form of { lefts | rights } (lists of values, integers or
--- game texts).
function M.make(lefts, rights)
  local lists = { lefts or {}, rights or {} }
  for side, list in ipairs(lists) do
    if type(list) ~= "table" then
      error(("bad argument #%d to 'make' (list of options expected, got %s)")
        :format(side, type(list)), 2)
    end
    -- each option converted here, so that a bad one is named by its side and place
    -- (the core's message would count Lua stack slots: 'bad argument #5 to cgt_make')
    local conv = {}
    for i = 1, #list do
      local o = list[i]
      if M.is_value(o) then
        conv[i] = o
      else
        local ok, v = pcall(function() return M.parse("0") + o end)
        if not ok then
          error(("bad argument #%d to 'make' (option %d: %s)"):format(side, i,
            (tostring(v):match("%((.*)%)$") or tostring(v))), 2)
        end
        conv[i] = v
      end
    end
    lists[side] = conv
  end
  return core.cgt_make(lists[1], lists[2])
end

--- Is 'v' a game value?
function M.is_value(v)
  return type(v) == "userdata" and getmetatable(v) ~= nil
    and getmetatable(v).__index == methods
end

--- The independent regions of a game or position text: a list of
--- {position = text (the board with that region's pieces), value = v}.
function M.regions(x, opts)
  if type(x) ~= "string" and not (type(x) == "userdata" and x.fen) then
    error(("bad argument #1 to 'regions' (game or position text expected, got %s)")
      :format(type(x)), 2)
  end
  local ok, texts, values = pcall(core.cgt_regions, x, opts)
  if not ok then raise(texts, "regions") end
  local out = {}
  for i, t in ipairs(texts) do out[i] = { position = t, value = values[i] } end
  return out
end

--- The sum of a list of values (0 for an empty list).
function M.sum(list)
  if type(list) ~= "table" then
    error(("bad argument #1 to 'sum' (list of values expected, got %s)"):format(type(list)), 2)
  end
  local s = M.parse("0")
  for _, v in ipairs(list) do s = s + v end
  return s
end

--- The exact solver on game 'g' consulting region values where the board
--- has split (docs/search.md): {win=, move=, nodes=, time=, calls=,
--- decided=}; opts max_pieces, budget, max_region, hash_mb, compare (also
--- run the plain solver: plain_win, plain_nodes, plain_time).
function M.solve(g, opts)
  local ok, r = pcall(core.cgt_solve, g, opts)
  if not ok then raise(r, "solve") end
  return r
end

--- Counters of the region table: regions, lookups, hits, computed, games.
function M.stats()
  return core.cgt_stats()
end

local OUTCOMES = {
  L = "Black (Left) wins, whoever moves first",
  R = "White (Right) wins, whoever moves first",
  N = "the player to move wins",
  P = "the player to move loses",
}

--- A sentence for an outcome letter ("L", "R", "N" or "P").
function M.outcome_text(o)
  return OUTCOMES[o] or error(("bad outcome %s"):format(tostring(o)), 2)
end

-- More methods of values, written in Lua.

--- Is v infinitesimal (both stops 0)?
function methods.is_infinitesimal(v)
  local l, r = v:stops()
  return l == 0 and r == 0
end

--- The winner of value 'v' when 'turn' ("black" or "white") moves first.
function M.winner(v, turn)
  if not M.is_value(v) then
    error(("bad argument #1 to 'winner' (a value expected, got %s)"):format(type(v)), 2)
  end
  if turn ~= "black" and turn ~= "white" then
    -- an unknown side would otherwise read as White moving first: a silent wrong answer
    error(("bad argument #2 to 'winner' ('black' or 'white' expected, got %s)")
      :format(type(turn) == "string" and ("'" .. turn .. "'") or type(turn)), 2)
  end
  if turn == "black" then return v:wins("black") and "black" or "white" end
  return v:wins("white") and "white" or "black"
end

--- Can a piece of position text 'pos' (ranks, any placement) jump?
function M.has_moves(pos)
  local ranks = {}
  for rank in pos:match("^(%S+)"):gmatch("[^/]+") do
    ranks[#ranks + 1] = rank:gsub("%d+", function(n) return ("."):rep(tonumber(n)) end)
  end
  local rows, cols = #ranks, #ranks[1]
  local function at(r, c)
    if r < 1 or c < 1 or r > rows or c > cols then return nil end
    return ranks[r]:sub(c, c)
  end
  for r = 1, rows do
    for c = 1, cols do
      local p = at(r, c)
      if p == "x" or p == "o" then
        local e = p == "x" and "o" or "x"
        for _, d in ipairs { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } } do
          if at(r + d[1], c + d[2]) == e and at(r + 2 * d[1], c + 2 * d[2]) == "." then
            return true
          end
        end
      end
    end
  end
  return false
end

--- Lines describing the regions of a game (the REPL's cgt()): each live
--- region's pieces and value (groups with no move for either side, ever,
--- are counted on one line), the sum, its outcome and the winner with the
--- game's side to move (in the opening removals, a line saying the values do not decide
--- the game yet). opts.budget as for value().
function M.describe(game, opts)
  local regions = M.regions(game, opts)
  local lines, values, dead, k = {}, {}, 0, 0
  for i, r in ipairs(regions) do
    values[i] = r.value
    if tostring(r.value) == "0" and not M.has_moves(r.position) then
      dead = dead + 1
    else
      k = k + 1
      lines[#lines + 1] = ("region %d: %-24s %s"):format(k, tostring(r.value),
        (r.position:gsub(" [bw]$", "")))
    end
  end
  if dead > 0 then
    lines[#lines + 1] = ("%d group%s of pieces with no move left (value 0)"):format(dead,
      dead == 1 and "" or "s")
  end
  local sum = M.sum(values)
  if #regions == 0 then lines[#lines + 1] = "no pieces" end
  lines[#lines + 1] = ("sum: %s   outcome %s: %s"):format(tostring(sum), sum:outcome(),
    M.outcome_text(sum:outcome()))
  if game.phase and game:phase() ~= "jump" then
    -- the opening removals are moves too, but no part of a value: the sum says nothing yet
    lines[#lines + 1] = "the game is still in its opening removals: the values are of the jump "
      .. "phase, so who wins is not decided by them (solve() decides it)"
  elseif game.turn then
    local turn = game:turn()
    lines[#lines + 1] = ("%s to move: %s wins"):format(
      turn == "black" and "Black" or "White",
      M.winner(sum, turn) == "black" and "Black" or "White")
  end
  return table.concat(lines, "\n"), sum, regions
end

--- A line for the REPL's analyze() when the board of game 'g' has split
--- into several regions ("the board has split into 3 regions: sum ^*, N; cgt()
--- shows them"), or nil: no split, or the split costs more than 'budget'
--- region computations (default 2000).
function M.split_note(g, budget)
  local ok, texts, values = pcall(core.cgt_regions, g, { budget = budget or 2000 })
  if not ok then return nil end
  local live = 0
  for _, t in ipairs(texts) do
    if M.has_moves(t) then live = live + 1 end
  end
  if live < 2 then return nil end
  local sum = M.sum(values)
  return ("the board has split into %d regions with moves: their sum is %s (%s: %s); cgt() shows them")
    :format(live, tostring(sum), sum:outcome(), M.outcome_text(sum:outcome()))
end

--- Every placement of a rows x cols board (3^(rows*cols) of them, at most
--- 3^13): an iterator of position texts, in counting order (x = 1, o = 2
--- per square, the last square fastest).
function M.placements(rows, cols)
  if math.type(rows) ~= "integer" or math.type(cols) ~= "integer"
    or rows < 1 or cols < 1 or rows * cols > 13 then
    error("placements: a board of 1 to 13 squares expected", 2)
  end
  local n = rows * cols
  local digits = {}
  for i = 1, n do digits[i] = 0 end
  local done = false
  local CH = { [0] = ".", "x", "o" }
  return function()
    if done then return nil end
    local ranks = {}
    for r = 0, rows - 1 do
      local t = {}
      for c = 1, cols do t[c] = CH[digits[r * cols + c]] end
      ranks[r + 1] = table.concat(t)
    end
    local i = n
    while i >= 1 and digits[i] == 2 do
      digits[i] = 0
      i = i - 1
    end
    if i == 0 then done = true else digits[i] = digits[i] + 1 end
    return table.concat(ranks, "/")
  end
end

M.methods = methods

return M
