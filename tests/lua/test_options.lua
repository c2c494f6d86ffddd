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
  assert(err:find("spawn: unknown option 'pgrp' (known: pgroup, stdin, session, stderr, memory, cpu)", 1, true), err)
end

return T
