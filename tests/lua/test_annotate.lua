-- Annotated games (konane.annotate, scripts/annotate.lua): evaluation comments, proved results,
-- and the marks checked against the solver on a 6x6 board it decides in milliseconds.
local konane = require "konane"
local annotate = require "konane.annotate"
local pgn = konane.pgn
-- the host running these tests (build/ or build-asan/), quoted for sh
local HOST = "'" .. konane.core.exe_path():gsub("'", "'\\''") .. "'"

local T = {}

local function sh(cmd)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  return out
end

-- The 6x6 position after 'n' first-listed moves, as a new game: the start of the games below
-- (short games the solver and a full-depth search settle at once).
local function midgame(n)
  local g = konane.new { rows = 6, cols = 6 }
  for _ = 1, n do g:play(g:moves()[1]) end
  return konane.new { rows = 6, cols = 6, fen = g:fen() }
end

-- Along first-listed moves from midgame(12), the first position where the side to move has a
-- proved win and a move that throws it away (the solver says so): returns the moves before,
-- the blunder, and the game.
local function blunder_line()
  local g = midgame(12)
  while not g:over() do
    if g:solve {}.win == true then
      for _, m in ipairs(g:moves()) do
        g:play(m)
        local reply = g:solve {}
        g:undo()
        if reply.win == true then return g:history(), m, g end
      end
    end
    g:play(g:moves()[1])
  end
  error("no blunder found on this line")
end

T["a move throwing away a proved win is marked ?? and the solver agrees"] = function()
  local before, blunder, g = blunder_line()
  local moves = {}
  for i, m in ipairs(before) do moves[i] = m end
  moves[#moves + 1] = blunder
  local record = { rows = 6, cols = 6, variant = "brainking", moves = moves, fen = g:start_fen() }
  local notes = annotate.game(record, { depth = 40 })
  local i = #moves
  assert(notes[i].mark == "??", ("move %d %s: mark %s"):format(i, blunder, tostring(notes[i].mark)))
  -- the evaluation is a proved result for the opponent, with its length
  local after = g:clone()
  after:play(blunder)
  local winner = after:turn()
  local sign = winner == "black" and "" or "%-"
  assert(notes[i].eval:match("^#" .. sign .. "%d+$"), notes[i].eval)
  assert(notes[i].words:find((winner == "black" and "Black" or "White") .. " wins in", 1, true))
  assert(notes[i].comment:match("^%[%%eval #%-?%d+%] %[%%depth %d+%]"), notes[i].comment)
  -- no earlier move of this line is marked ?? unless it also gave away a proved win
  local replay = konane.new { rows = 6, cols = 6, fen = g:start_fen() }
  for k = 1, i - 1 do
    local had = replay:solve {}
    replay:play(moves[k])
    if notes[k].mark == "??" then
      assert(had.win == true and replay:solve {}.win == true,
        ("move %d %s is marked ?? but did not throw away a proved win"):format(k, moves[k]))
    end
  end
end

T["the only winning move is marked !"] = function()
  -- find, along first-listed moves, a proved win with exactly one winning move, and play it
  local g = midgame(9)
  local found
  while not g:over() and not found do
    if #g:moves() > 1 and g:solve {}.win == true then
      local winners = {}
      for _, m in ipairs(g:moves()) do
        g:play(m)
        if g:solve {}.win == false then winners[#winners + 1] = m end
        g:undo()
      end
      if #winners == 1 then found = winners[1] end
    end
    if not found then g:play(g:moves()[1]) end
  end
  assert(found, "a position with one winning move on this line")
  g:play(found)
  local notes = annotate.game(g, { depth = 40 })
  assert(notes[#notes].mark == "!", tostring(notes[#notes].mark))
  for k = 1, #notes - 1 do
    if notes[k].mark == "!" then
      -- every "!" is also checked: the other moves of that position all lose
      local p = konane.new { rows = 6, cols = 6, fen = g:start_fen() }
      for j = 1, k - 1 do p:play(notes[j].move) end
      for _, m in ipairs(p:moves()) do
        p:play(m)
        assert((p:solve {}.win == false) == (m == notes[k].move), "move " .. k)
        p:undo()
      end
    end
  end
end

T["evaluations are from Black's point of view in moves of mobility"] = function()
  local g = konane.new()
  for _, m in ipairs { "d5", "d4", "b5-d5" } do g:play(m) end
  local notes = annotate.game(g, { depth = 2 })
  assert(#notes == 3)
  for i, note in ipairs(notes) do
    assert(note.eval:match("^%-?%d+%.%d%d$"), note.eval)
    assert(note.comment == ("[%%eval %s] [%%depth 2]"):format(note.eval), note.comment)
    -- the score of the position after the move, searched alone, turned to Black's view
    local p = konane.new()
    for k = 1, i do p:play(notes[k].move) end
    local s = p:search { depth = 2 }.score
    if p:turn() == "white" then s = -s end
    assert(note.eval == ("%.2f"):format(s / 100), ("move %d: %s vs %d"):format(i, note.eval, s))
  end
  local text = annotate.text(notes, "black")
  assert(text:match("^1%. d5 %(%-?%d+%.%d%d%) d4 %(%-?%d+%.%d%d%) 2%. b5%-d5"), text)
end

T["a page of several annotated games lists them to choose one; a page of one game does not"] = function()
  local items = {}
  for k = 1, 3 do
    local rec = konane.play("greedy:seed=" .. k, "random:seed=" .. k, { rows = 6, cols = 6, seed = k })
    rec.white = k == 2 and "x<y>&" or rec.white
    items[k] = { record = rec, notes = annotate.game(rec, { depth = 1 }) }
  end
  local page = annotate.html(items)
  local list = assert(page:match('<select id="gpick"[^>]*>(.-)</select>'), "no game list")
  local n = 0
  for value, label in list:gmatch('<option value="(%d+)">([^<]*)</option>') do
    n = n + 1
    local r = items[n].record
    assert(tonumber(value) == n and label:find(n .. ": ", 1, true), label)
    assert(label:find(r.result, 1, true), label)
  end
  assert(n == 3, n)
  assert(list:find("vs x&lt;y&gt;&amp;", 1, true), "names are escaped")
  assert(page:find("<title>3 annotated games</title>", 1, true))
  local one = annotate.html { items[1] }
  assert(not one:find("gpick", 1, true) and one:find("(annotated)</title>", 1, true))
end

T["annotated PGN reads back with its marks and comments"] = function()
  local rec = konane.play("greedy:seed=2", "random:seed=2", { rows = 6, cols = 6, seed = 2 })
  rec.comments = {}
  local notes = annotate.game(rec, { depth = 3 })
  local text = pgn.write(annotate.apply(rec, notes))
  assert(text:find('[Annotator "konane', 1, true))
  local back = assert(pgn.read(text))[1]
  assert(#back.moves == #rec.moves)
  for i, m in ipairs(rec.moves) do
    assert(back.moves[i] == m)
    assert(back.comments[i] == notes[i].comment, back.comments[i])
  end
  assert(back.result == rec.result)
end

T["scripts/annotate.lua: bad input is a clear error with exit status 2"] = function()
  local dir = sh("mktemp -d"):gsub("%s+$", "")
  local function run(args)
    local out = sh(HOST .. " scripts/annotate.lua " .. args .. " 2>&1; echo rc=$?")
    return out, tonumber(out:match("rc=(%d+)%s*$"))
  end
  local out, rc = run(dir .. "/missing.pgn")
  assert(rc == 2 and out:find("missing.pgn", 1, true), out)
  local f = assert(io.open(dir .. "/bad.pgn", "w"))
  f:write('[Board "6x6"]\n\n1. d3 z9 *\n')
  f:close()
  out, rc = run(dir .. "/bad.pgn")
  assert(rc == 2 and out:find("bad.pgn:3", 1, true) and out:find("z9", 1, true), out)
  out, rc = run(dir .. "/bad.pgn --depth=x")
  assert(rc == 2 and out:find("--depth", 1, true), out)
  out, rc = run("--frobnicate x.pgn")
  assert(rc == 2 and out:find("unknown option '--frobnicate'", 1, true), out)
  out, rc = run(dir .. "/bad.pgn --time 1 --depth 2")
  assert(rc == 2 and out:find("exclude", 1, true), out)
  out, rc = run("")
  assert(rc == 2 and out:find("input PGN file", 1, true), out)
  -- a good file: PGN on standard output, no progress bar when stderr is not a terminal
  f = assert(io.open(dir .. "/ok.pgn", "w"))
  f:write('[Board "6x6"]\n[Result "*"]\n\n1. d3 d4 2. d1-d3 *\n')
  f:close()
  out, rc = run(dir .. "/ok.pgn --depth 2")
  assert(rc == 0, out)
  assert(out:match("1%. d3%S* {%[%%eval") and not out:find("positions", 1, true), out)
  -- an output that cannot be written is refused before the search (it failed with exit 1 after
  -- searching every position), and a writable one is not left behind when the input is bad
  for _, opt in ipairs { "--out", "--html" } do
    out, rc = run(dir .. "/ok.pgn --depth 2 " .. opt .. " " .. dir .. "/no/such/dir/x")
    assert(rc == 2 and out:find(opt .. ": cannot write", 1, true)
      and out:find("no/such/dir/x", 1, true), out)
    out, rc = run(dir .. "/bad.pgn " .. opt .. " " .. dir .. "/new.out")
    assert(rc == 2 and not io.open(dir .. "/new.out"), out)
  end
  out, rc = run(dir .. "/ok.pgn --depth 2 --out " .. dir .. "/ok.pgn")
  assert(rc == 0 and sh("cat " .. dir .. "/ok.pgn"):find("[%eval", 1, true), out)
  sh("rm -rf '" .. dir .. "'")
end

T["the REPL's annotate() prints the same marks as the library"] = function()
  local before, blunder, g = blunder_line()
  local game = konane.new { rows = 6, cols = 6, fen = g:start_fen() }
  for _, m in ipairs(before) do game:play(m) end
  game:play(blunder)
  local repl = require "konane.repl"
  local old = rawget(_G, "g")
  rawset(_G, "g", game)
  local out = {}
  local old_print = print
  print = function(s) out[#out + 1] = s end
  local res = table.pack(pcall(repl.commands.annotate.call, { depth = 40 }))
  print = old_print
  rawset(_G, "g", old)
  assert(res[1], tostring(res[2]))
  assert(res.n == 1, "annotate() returned a value the prompt would print") -- only pcall's true
  local start = konane.new { rows = 6, cols = 6, fen = g:start_fen() }
  local want = annotate.text(annotate.game(game, { depth = 40 }), start:turn())
  assert(out[1] == want, tostring(out[1]) .. "\n" .. want)
  assert(out[1]:find(blunder .. "?? (#", 1, true), out[1])
end

T["annotate rejects unknown options"] = function()
  local ok, err = pcall(annotate.game, konane.new(), { dpth = 3 })
  assert(not ok and tostring(err):find("bad option 'dpth'", 1, true), tostring(err))
  ok, err = pcall(annotate.game, konane.new(), { depth = 0 })
  assert(not ok and tostring(err):find("'depth'", 1, true))
  -- margins and times that are NaN, infinite or not numbers: a NaN margin marked no move at all
  -- (every comparison false), a string one raised "attempt to compare number with string"
  for _, bad in ipairs { { mistake = 0 / 0 }, { blunder = "x" }, { blunder = -1 }, { mistake = math.huge },
                         { time = 0 / 0 }, { time = math.huge } } do
    local k = next(bad)
    ok, err = pcall(annotate.game, konane.new(), bad)
    assert(not ok and tostring(err):find("bad option '" .. k .. "' to 'annotate'", 1, true), tostring(err))
  end
end


-- The exact distance to the end with best play (shortest win, longest loss), by brute force.
local function distance(g, memo)
  local key = g:fen()
  if memo[key] then return memo[key][1], memo[key][2] end
  local win, best = false, 0
  local wbest, lbest = math.huge, -1
  for _, m in ipairs(g:moves()) do
    g:play(m)
    local w, d = distance(g, memo)
    g:undo()
    if not w then wbest = math.min(wbest, d + 1) else lbest = math.max(lbest, d + 1) end
  end
  if wbest < math.huge then win, best = true, wbest elseif lbest >= 0 then best = lbest end
  memo[key] = { win, best }
  return win, best
end

-- A time-limited search proves small endgames with the solver first (its endgame proof mode),
-- which scores a win as the longest game the pieces allow: the annotation said "Black wins in 15
-- plies" of this position (after c1-c3), which Black wins in 9.
T["a win proved by the endgame proof mode is annotated as a bound, not a distance"] = function()
  local start = "x5/ox3x/x1xox1/o5/2xo1o/oxo1ox w"
  local notes = annotate.game({ fen = start, variant = "free", rows = 6, cols = 6,
                                moves = { "c1-c3" } }, { time = 0.5 })
  local g = konane.new { fen = start, variant = "free" }
  g:play("c1-c3")
  local win, d = distance(g, {})
  assert(win and d == 9, "the position's exact distance")
  local n = notes[1]
  local plies = tonumber(n.eval:match("^#(%d+)$"))
  assert(plies and plies >= d, "a proved win for Black: " .. n.eval)
  if plies == d then
    assert(n.words == "Black wins in 9 plies", n.words)
  else
    assert(n.words == ("Black wins in at most %d plies"):format(plies), n.words)
  end
  -- a fixed depth never uses the proof mode: its distance is exact
  notes = annotate.game({ fen = start, variant = "free", rows = 6, cols = 6, moves = { "c1-c3" } },
    { depth = 12 })
  assert(notes[1].eval == "#9" and notes[1].words == "Black wins in 9 plies", notes[1].words)
end

-- A move from a position the search had not proved into one the opponent is proved to win was
-- never compared with the engine's choice, so it got no mark even when that choice was sound.
T["a move into a proved loss from an unproved position is marked ?? unless the engine's choice loses too"] = function()
  local marked, compared = 0, 0
  local rng = konane.util.rng(5)
  for _ = 1, 6 do
    local g = konane.new { rows = 6, cols = 6 }
    while not g:over() do
      local ms = g:moves()
      g:play(ms[rng(#ms)])
    end
    local notes = annotate.game(g, { depth = 4 })
    local pos = notes.positions
    for i, n in ipairs(notes) do
      if pos[i - 1].win == nil and pos[i].win == true and n.best and n.best ~= n.move then
        compared = compared + 1
        local p = konane.new { rows = 6, cols = 6 }
        for k = 1, i - 1 do p:play(notes[k].move) end
        p:play(n.best)
        local best = p:search { depth = 4 }
        if best.win ~= true then
          marked = marked + 1
          assert(n.mark == "??", ("move %d %s: into a proved loss, the engine's %s is not lost: %s")
            :format(i, n.move, n.best, tostring(n.mark)))
        end
      end
    end
  end
  assert(marked > 0, "no such move in these games: the test proves nothing")
end

return T
