-- konane.annotate: the engine's judgement on every move of a game.
--
-- Every position of the game is searched once with the same limits (time or depth). The score
-- of the position after a move, turned to Black's point of view (Black moves first, like White
-- in chess, so + is good for the first player), becomes that move's `[%eval]`: moves of
-- mobility with two decimals (`[%eval 1.40]`), or a proved result `[%eval #7]` (Black wins in 7
-- plies) / `[%eval #-6]` (White wins in 6 plies), followed by `[%depth N]` and, for a proved
-- result, the words ("White wins in 6 plies"). A win proved by the search's endgame proof mode
-- (a time-limited search hands positions of up to 34 pieces to the solver first) has no exact
-- distance: its N is the most the game can last, and the words say "wins in at most N plies".
--
-- Marks (NAGs), from the mover's point of view, comparing the position before the move with
-- the position after it:
--   ??  the move throws away a proved win (the opponent now has a proved win), or scores at
--       least `blunder` (default 400, four moves of mobility) less than the engine's choice
--       (also a move from an unproved position into one the opponent is proved to win);
--   ?   it scores at least `mistake` (default 150) less than the engine's choice;
--   !   the position was a proved win, the move keeps it, and every other legal move gives it
--       away (each alternative is searched with the same limits and must come out proved lost).
-- The played move and the engine's choice are compared by searching the position after each with
-- the same limits (one extra search where they differ): scores from positions one ply apart are
-- not comparable at a fixed depth. Heuristic scores are compared only when nothing is proved.

local M = {}

M.MISTAKE, M.BLUNDER = 150, 400
local WIN = 30000

local OPTIONS = { time = true, depth = true, hash_mb = true, mistake = true, blunder = true,
                  progress = true }

local function check(opts)
  opts = opts or {}
  if type(opts) ~= "table" then error("bad options to 'annotate' (table expected)", 3) end
  for k in pairs(opts) do
    if not OPTIONS[k] then
      error(("bad option '%s' to 'annotate' (expected time, depth, hash_mb, mistake, blunder "
        .. "or progress)"):format(tostring(k)), 3)
    end
  end
  if opts.time ~= nil and (type(opts.time) ~= "number" or not (opts.time > 0 and opts.time <= 1e9)) then
    error("bad option 'time' to 'annotate' (a positive number of seconds expected)", 3)
  end
  if opts.depth ~= nil and (math.type(opts.depth) ~= "integer" or opts.depth < 1) then
    error("bad option 'depth' to 'annotate' (a positive integer expected)", 3)
  end
  -- a margin that is NaN (every comparison false: no move ever marked) or not a number
  for _, k in ipairs { "mistake", "blunder" } do
    local v = opts[k]
    if v ~= nil and (type(v) ~= "number" or not (v >= 0 and v < math.huge)) then
      error(("bad option '%s' to 'annotate' (a score margin >= 0 expected, got %s)"):format(k,
        type(v) == "number" and tostring(v) or type(v)), 3)
    end
  end
  return opts
end

-- The search limits of one position.
local function limits(opts)
  local l = { hash_mb = opts.hash_mb or 16 }
  if opts.depth then l.depth = opts.depth else l.time = opts.time or 0.5 end
  if opts.depth and opts.time then l.time = opts.time end
  return l
end

-- Evaluate the position of 'g' for its side to move: {score, win, plies, depth, move, bound}.
-- 'bound': the win came from the endgame proof mode (the solver's move alone, scored as the
-- longest game the pieces allow), so 'plies' is an upper bound, not the distance (annotations
-- said "Black wins in 15 plies" of a position won in 9). Only a win of more than one ply with a
-- one-move pv can be one; a search's own proof with a pv cut short reads as a bound too, which
-- is still true.
local function evaluate(g, lim)
  if g:over() then return { score = -WIN, win = false, plies = 0, depth = 0 } end
  local r = g:search(lim)
  return { score = r.score, win = r.win, plies = r.plies, depth = r.depth, move = r.move,
           bound = r.win == true and #r.pv == 1 and r.plies > 1 and not lim.depth }
end

local function other(side) return side == "black" and "white" or "black" end
local function word(side) return side == "black" and "Black" or "White" end

-- The text of an evaluation 'e' of a position where 'side' is to move, from Black's view.
local function eval_text(e, side)
  if e.win ~= nil then
    local black_wins = (side == "black") == e.win
    return ("#%s%d"):format(black_wins and "" or "-", e.plies),
      e.plies == 0 and ("%s wins: %s has no move"):format(word(black_wins and "black" or "white"), word(side))
      or ("%s wins in %s%d pl%s"):format(word(black_wins and "black" or "white"),
        e.bound and "at most " or "", e.plies, e.plies == 1 and "y" or "ies")
  end
  local v = side == "black" and e.score or -e.score
  return ("%.2f"):format(v / 100), nil
end

--- game(g_or_record, opts) -> notes
-- Annotates the game 'g' (its history from its start position) or a PGN record table.
-- opts: time (seconds per position, default 0.5) or depth, hash_mb, mistake, blunder (score
-- margins, 100 = one move of mobility), progress (function(done, total)). Returns a list with
-- one entry per move: {move=, mark="??"|"?"|"!"|nil, eval="1.40"|"#7", depth=, words=,
-- comment="[%eval 1.40] [%depth 14]", best=, score= (Black's view, proved: +-30000 - plies)},
-- plus notes.positions (the evaluations, index 0 = start, from the side to move's view).
function M.game(source, opts)
  opts = check(opts)
  if not (type(source) == "table" and type(source.moves) == "table")
     and not require("konane.util").is_game(source) then
    error(("bad argument #1 to 'annotate' (a game or a record with moves expected, got %s)")
      :format(type(source)), 2)
  end
  local konane = require "konane"
  local moves, g
  if type(source) == "table" and source.moves then
    moves = source.moves
    g = konane.new { variant = source.variant, rows = source.rows, cols = source.cols,
                     fen = source.fen }
  else
    moves = source:history()
    g = konane.new { variant = source:variant(), rows = source:rows(), cols = source:cols(),
                     fen = source:start_fen() }
  end
  local lim = limits(opts)
  local mistake, blunder = opts.mistake or M.MISTAKE, opts.blunder or M.BLUNDER
  local n = #moves
  local evals, sides = {}, {}
  local progress = opts.progress
  local work = g:clone()
  for k = 0, n do
    sides[k] = work:turn()
    evals[k] = evaluate(work, lim)
    if progress then progress(k + 1, n + 1) end
    if k < n then work:play(moves[k + 1]) end
  end
  local notes = { positions = evals }
  local pos = g:clone()
  for i = 1, n do
    local before, after = evals[i - 1], evals[i]
    local note = { move = moves[i], depth = after.depth, best = before.move }
    note.eval, note.words = eval_text(after, sides[i])
    local black_view = sides[i] == "black" and after.score or -after.score
    if after.win ~= nil then black_view = ((sides[i] == "black") == after.win) and WIN - after.plies
      or -(WIN - after.plies) end
    note.score = black_view
    if before.win == true and after.win == true then
      note.mark = "??"
    elseif before.win == nil and after.win ~= false and before.move and before.move ~= moves[i] then
      -- (a move into a position the opponent is proved to win is compared too: when the
      -- engine's choice is not proved lost, that is a blunder the position before hid)
      -- compare with the engine's choice searched the same way (the same horizon from the same
      -- ply), not with the score of the position before, which is one ply deeper
      pos:play(before.move)
      local best = evaluate(pos, lim)
      pos:undo()
      local drop = after.score - best.score
      if best.win == true then drop = 0 end
      if best.win == false then drop = blunder end
      if drop >= blunder then note.mark = "??" elseif drop >= mistake then note.mark = "?" end
    elseif before.win == true and after.win == false then
      -- the only winning move? every alternative must be proved to lose
      local alternatives, only = 0, true
      for _, m in ipairs(pos:moves()) do
        if m ~= moves[i] then
          alternatives = alternatives + 1
          pos:play(m)
          local e = evaluate(pos, lim)
          pos:undo()
          if e.win ~= true then only = false break end
        end
      end
      if only and alternatives > 0 then note.mark = "!" end
    end
    local parts = { ("[%%eval %s]"):format(note.eval) }
    if note.depth and note.depth > 0 then parts[#parts + 1] = ("[%%depth %d]"):format(note.depth) end
    if note.words then parts[#parts + 1] = note.words end
    note.comment = table.concat(parts, " ")
    notes[i] = note
    pos:play(moves[i])
  end
  notes.mover = sides
  return notes
end

--- apply(record, notes) -> record: a copy of the PGN record with the marks on its moves (as
-- "f5-d5?") and the evaluation comments after them, ready for konane.pgn.write.
-- (a wrong type there, or in text() and html(), was "attempt to index a number value")
local function need_list(v, what, where)
  if type(v) ~= "table" then
    error(("bad argument to '%s' (%s expected, got %s)"):format(where, what, type(v)), 3)
  end
end

function M.apply(record, notes)
  need_list(record, "a PGN record", "annotate.apply")
  need_list(record.moves, "a record with moves", "annotate.apply")
  need_list(notes, "the notes of annotate.game", "annotate.apply")
  local out = {}
  for k, v in pairs(record) do out[k] = v end
  out.moves, out.comments = {}, {}
  for k, v in pairs(record.comments or {}) do out.comments[k] = v end
  for i, m in ipairs(record.moves) do
    local note = notes[i]
    out.moves[i] = m .. (note and note.mark or "")
    if note then
      local old = record.comments and record.comments[i]
      out.comments[i] = old and (note.comment .. " " .. old) or note.comment
    end
  end
  out.tags = {}
  for k, v in pairs(record.tags or {}) do out.tags[k] = v end
  out.tags.Annotator = "konane " .. require("konane").VERSION
  return out
end

--- text(notes, start_side) -> string: the moves numbered, with marks and evaluations, as the
-- REPL's annotate() prints them ("1. d5 (0.12) e5 (0.10) 2. f5-d5?? (#-5) ...").
function M.text(notes, start_side)
  need_list(notes, "the notes of annotate.game", "annotate.text")
  for _, note in ipairs(notes) do need_list(note, "the notes of annotate.game", "annotate.text") end
  local out = {}
  for i, note in ipairs(notes) do
    local k = start_side == "white" and i + 1 or i
    local prefix = ""
    if k % 2 == 1 then prefix = ((k + 1) // 2) .. ". "
    elseif i == 1 then prefix = (k // 2) .. "... " end
    out[#out + 1] = ("%s%s%s (%s)"):format(prefix, note.move, note.mark or "", note.eval)
  end
  return table.concat(out, " ")
end

-- The evaluation graph of one game: Black's view, in moves of mobility, proved results at the
-- top or bottom edge; a dot on every marked move; each ply is a click target.
local function graph(notes, gi)
  local charts = require "konane.report.charts"
  local CAP = 10
  local function clamp(score)
    if score >= WIN - 1000 then return CAP end
    if score <= -(WIN - 1000) then return -CAP end
    return math.max(-CAP, math.min(CAP, score / 100))
  end
  local e0 = notes.positions[0]
  local s0 = e0.score
  if e0.win ~= nil then s0 = e0.win and WIN - e0.plies or -(WIN - e0.plies) end
  if notes.mover[0] == "white" then s0 = -s0 end
  local pts, dots = { { 0, clamp(s0) } }, {}
  local COLOURS = { ["??"] = "#b00020", ["?"] = "#e69f00", ["!"] = "#1b7a36" }
  for i, note in ipairs(notes) do
    pts[#pts + 1] = { i, clamp(note.score) }
    if note.mark then
      dots[#dots + 1] = { i, clamp(note.score), colour = COLOURS[note.mark],
                          title = ("%d. %s%s %s"):format(i, note.move, note.mark, note.eval) }
    end
  end
  return ('<div class="evalgraph" data-gi="%d">'):format(gi) .. charts.line {
    width = 470, height = 190, right = 16, xmin = 0, xmax = math.max(1, #notes), ymin = -CAP, ymax = CAP,
    zero = true, area = true, cursor = true, columns = #notes,
    series = { { points = pts, dots = dots, colour = "#333333", dash = "" } },
    xlabel = "ply (click to go there)", ylabel = "moves (+ Black, - White)",
  } .. "</div>"
end

--- html(games) -> text: the annotated games as one self-contained page: the game viewer with
-- each move's mark and evaluation, and the evaluation graph under the board.
-- 'games' is a list of {record=, notes=}.
function M.html(games)
  need_list(games, "a list of {record=, notes=}", "annotate.html")
  for _, item in ipairs(games) do
    need_list(item, "a list of {record=, notes=}", "annotate.html")
    need_list(item.record, "a list of {record=, notes=}", "annotate.html")
    need_list(item.notes, "a list of {record=, notes=}", "annotate.html")
  end
  local viewer = require "konane.report.viewer"
  local esc = require("konane.svg").escape
  local data = viewer.new_data()
  local index, graphs = {}, {}
  for gi, item in ipairs(games) do
    local e = viewer.game_entry(item.record, data, index)
    e.n = gi
    local a = {}
    for i, note in ipairs(item.notes) do
      a[i] = { g = note.mark, e = note.eval, c = note.comment }
    end
    e.a = a
    data.games[#data.games + 1] = e
    graphs[#graphs + 1] = graph(item.notes, gi - 1)
  end
  local first = games[1] and games[1].record or {}
  local title = #games > 1 and ("%d annotated games"):format(#games)
    or ("%s vs %s (annotated)"):format(first.black or "?", first.white or "?")
  -- a file of several games: a list to choose one (the address, #game=N, follows it)
  local picker = ""
  if #games > 1 then
    local o = { '<p class="ctl"><label for="gpick">Game</label> <select id="gpick" ',
                'onchange="location.hash=\'game=\'+this.value">' }
    for gi, item in ipairs(games) do
      local r = item.record
      o[#o + 1] = ('<option value="%d">%d: %s vs %s, %s</option>'):format(gi, gi,
        esc(r.black or "?"), esc(r.white or "?"), esc(r.result or "*"))
    end
    o[#o + 1] = "</select></p><script>(function(){var s=document.getElementById('gpick');"
      .. "function f(){var m=/game=(\\d+)/.exec(location.hash);if(m)s.value=m[1];}"
      .. "window.addEventListener('hashchange',f);f();})();</script>"
    picker = table.concat(o)
  end
  local body = table.concat {
    "<h1>", esc(title), "</h1><p class=\"sub\">Evaluations from Black's point of view in moves ",
    "of mobility (#N: a proved win in N plies, #-N for White); ?? throws away a proved win or ",
    "a lot of the score, ? loses some, ! is the only winning move.</p><section>", picker,
    viewer.html { boards = data.boards, below = table.concat(graphs) },
    "</section>",
  }
  return viewer.page(title, body, viewer.finish(data))
end

M.other = other
return M
