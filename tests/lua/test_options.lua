-- Option tables: every binding that takes one rejects unknown keys with a
-- message naming the call, the key and the known keys (issue 10).
local core = require "konane.core"
local konane = require "konane"

local T = {}

local function expect_error(fn, ...)
  local ok, err = pcall(fn, ...)
  assert(not ok, "expected an error")
  return tostring(err)
end

T["core.new rejects a misspelt option and names the known ones"] = function()
  local err = expect_error(core.new, { rowz = 3 })
  assert(err:find("unknown option 'rowz'", 1, true), err)
  assert(err:find("new:", 1, true) and err:find("rows", 1, true), err)
  -- every listed option is accepted
  local g = core.new { rows = 4, cols = 4, variant = "x", first = { "b1" }, second = { b1 = { "a1" } } }
  assert(g:rows() == 4 and g:variant() == "x")
end

T["search, solve and mcts reject unknown options with the call's name"] = function()
  local g = konane.new { rows = 4, cols = 4 }
  for name, fn in pairs { search = g.search, solve = g.solve, mcts = g.mcts } do
    local err = expect_error(fn, g, { bogus = 1 })
    assert(err:find(name .. ": unknown option 'bogus' (known: ", 1, true), err)
  end
  assert(expect_error(g.search, g, { [1] = 2 }):find("unknown option 'number'", 1, true))
end

T["core.spawn rejects unknown options before starting anything"] = function()
  local err = expect_error(core.spawn, { "true" }, { pgrp = true })
  assert(err:find("spawn: unknown option 'pgrp' (known: pgroup, stdin, session, stderr, memory, cpu, sandbox, readonly, writable, network)", 1, true), err)
end


-- The Lua parts of the API named their own internals when given the wrong types (found by a
-- random-call fuzzer): g:draw(5) "attempt to index a number value (local 'o')", g:draw{colour =
-- true} ignored the typo, draw.board(5) "attempt to call a nil value (method 'rows')",
-- pgn.replay(3) "attempt to index a number value (local 'record')", util.rng(1)(0) "attempt to
-- perform 'n%0'", util.mix(true, 1) an arithmetic error.
T["draw, pgn.replay and util name the bad argument or option"] = function()
  local g = konane.new()
  local cases = {
    { "draw.board: options must be a table, got number", g.draw, g, 5 },
    { "draw.board: unknown option 'colour' (known: color, flip, info, last, turn)", g.draw, g, { colour = true } },
    { "draw.board: bad argument #1 (a game expected, got number)", konane.draw.board, 5 },
    { "draw.status: bad argument #1 (a game expected, got table)", konane.draw.status, {} },
    { "draw.status: unknown option 'flip'", konane.draw.status, g, { flip = true } },
    { "pgn.replay: bad argument #1 (a record table expected, got number)", konane.pgn.replay, 3 },
    { "pgn.replay: bad argument #1 (record.moves: a list expected, got string)", konane.pgn.replay, { moves = "d5" } },
    { "rng: bad argument #1 (an integer n >= 1 expected, got 0)", konane.util.rng(1), 0 },
    { "rng: bad argument #1 (an integer n >= 1 expected, got table)", konane.util.rng(1), {} },
    { "mix: bad argument #2 (an integer expected, got nil nil)", konane.util.mix, 1 },
    -- the same for annotate, svg, pgn.read and cgt.winner ("attempt to index a number value")
    { "bad argument #1 to 'annotate' (a game or a record with moves expected, got number)", konane.annotate.game, 5 },
    { "bad argument to 'annotate.apply' (a record with moves expected, got number)", konane.annotate.apply, { moves = 1 }, {} },
    { "bad argument to 'annotate.text' (the notes of annotate.game expected, got nil)", konane.annotate.text },
    { "bad argument to 'annotate.html' (a list of {record=, notes=} expected, got number)", konane.annotate.html, 5 },
    { "bad argument #1 to 'svg.document' (a spec with rows, cols and at expected, got table)", konane.svg.document, { rows = 2 } },
    { "bad argument #1 to 'svg' (a game expected, got number)", core.Game.svg, 5 },
    { "bad argument #2 to 'read' (options table expected, got boolean)", konane.pgn.read, "1. d5 *", true },
    { "bad argument #1 to 'winner' (a value expected, got number)", konane.cgt.winner, 3, "black" },
  }
  for _, c in ipairs(cases) do
    local err = expect_error(table.unpack(c, 2))
    assert(err:find(c[1], 1, true), err)
  end
  -- the good forms are unchanged
  assert(#g:draw { color = true, flip = true, last = false, turn = false, info = "x" } > 0)
  assert(konane.util.rng(1)(3.0) >= 1 and konane.draw.status(g, { color = false, info = "i" }):find("i", 1, true))
end


-- A bad side name was echoed whole: g:count(a 1 MB string) raised a 1 MB message, and a bad
-- move, side or position text put its escape sequences into the message (a terminal obeys them).
T["bad side names, moves and position texts are echoed short and without control bytes"] = function()
  local g = konane.new()
  local big = string.rep("x", 1 << 20)
  for _, f in ipairs { "count", "nmoves" } do
    local err = expect_error(g[f], g, big)
    assert(#err < 200 and err:find("'black' or 'white' expected, got 'xxxx", 1, true), #err)
    err = expect_error(g[f], g, "\27[2J")
    assert(not err:find("%c") and err:find("got '\\x1b[2J'", 1, true), err)
    err = expect_error(g[f], g, 5)
    assert(err:find("'black' or 'white' expected, got number", 1, true), err)
  end
  assert(g:count("black") == 32 and g:nmoves("white") >= 0 and g:count() == 32)
  local err = expect_error(g.play, g, "\27[2Jd5")
  assert(not err:find("%c") and err:find("illegal move '\\x1b[2Jd5'", 1, true), err)
  local ok, why = g:legal("\0d5")
  assert(not ok and not why:find("%c"), why)
  err = expect_error(konane.new, { fen = "xo\27[31m b" })
  assert(not err:find("%c"), err)
end

return T
