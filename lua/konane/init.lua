-- konane: the Lua library users require. It wraps konane.core (the C
-- rules and search core) and adds what is easier in Lua: variants, board
-- drawing, and lazy access to bots, games, records and tournaments.
local core = require "konane.core"

local M = {
  VERSION = core.VERSION,
  core = core,
  MAX_SIDE = core.MAX_SIDE,
  hashtable = core.hashtable, -- a transposition table to share among searches
}

local Game = core.Game -- the methods table of every game

local FILES = "abcdefghijklmnopqrstuvwxyz"

--- The name of the square at 0-based file 'f' and rank 'r' ("a1"). Raises for a file or rank
-- that no board has (not a whole number from 0 to MAX_SIDE - 1): square(26, 0) was "1", a name
-- that a variant's mistake would pass on as if it were a square.
function M.square(f, r)
  local args = { f, r }
  for i = 1, 2 do
    local v = args[i]
    local n = type(v) == "number" and math.tointeger(v)
    if not n or n < 0 or n >= core.MAX_SIDE then
      error(("bad argument #%d to 'square' (a %s from 0 to %d expected, got %s)")
        :format(i, i == 1 and "file" or "rank", core.MAX_SIDE - 1,
          type(v) == "number" and tostring(v) or type(v) .. " " .. tostring(v)), 2)
    end
  end
  return FILES:sub(f + 1, f + 1) .. math.tointeger(r + 1)
end

--- The 0-based file and rank of square name 's', or nil and a message. Only names of squares
-- some board has: files a to t, ranks 1 to 20 ("a0" was read as rank -1, "z9" as file 25).
function M.parse_square(s)
  if type(s) ~= "string" then return nil, "square name expected" end
  local l, d = s:lower():match("^(%a)(%d%d?)$")
  if not l then return nil, ("'%s' is not a square name (like d5)"):format(s) end
  local f, r = FILES:find(l, 1, true) - 1, tonumber(d) - 1
  if f >= core.MAX_SIDE or r < 0 or r >= core.MAX_SIDE then
    return nil, ("'%s' is no square of any board (files a to %s, ranks 1 to %d)")
      :format(s, FILES:sub(core.MAX_SIDE, core.MAX_SIDE), core.MAX_SIDE)
  end
  return f, r
end

-- ---------------------------------------------------------------- variants

local registered = {} -- variants added with konane.register_variant

local function check_variant(v, where)
  if type(v) ~= "table" then
    error(("%s: a variant must be a table, got %s"):format(where, type(v)), 3)
  end
  if type(v.name) ~= "string" or v.name == "" then
    error(where .. ": a variant needs a 'name' string", 3)
  end
  if v.first_removal ~= nil and type(v.first_removal) ~= "function" then
    error(("variant '%s': first_removal must be a function"):format(v.name), 3)
  end
  if v.second_removal ~= nil and type(v.second_removal) ~= "function" then
    error(("variant '%s': second_removal must be a function"):format(v.name), 3)
  end
  if v.start ~= nil and type(v.start) ~= "function" then
    error(("variant '%s': start must be a function"):format(v.name), 3)
  end
  return v
end

-- The directories holding konane/variants/*.lua along package.path.
local function variant_dirs()
  local dirs, seen = {}, {}
  for template in package.path:gmatch("[^;]+") do
    local dir = template:match("^(.-)%?%.lua$")
    if dir then
      dir = (dir == "" and "./" or dir) .. "konane/variants"
      if not seen[dir] then
        seen[dir] = true
        dirs[#dirs + 1] = dir
      end
    end
  end
  return dirs
end

--- The variant table called 'name' (built-in, registered, or found along
--- package.path as konane/variants/<name>.lua). Raises when unknown.
function M.variant(name)
  if type(name) == "table" then return check_variant(name, "variant") end
  if type(name) ~= "string" then
    error(("bad variant: a name or a variant table expected, got %s"):format(type(name)), 2)
  end
  if not name:match("^[%w_%-]+$") then
    -- quoted: an empty name read "bad variant name " with nothing after it
    error(("bad variant name '%s' (letters, digits, '_' and '-' only)")
      :format(#name > 40 and name:sub(1, 40) .. "..." or name), 2)
  end
  if registered[name] then return registered[name] end
  local ok, v = pcall(require, "konane.variants." .. name)
  if not ok then
    if tostring(v):find("module 'konane.variants." .. name .. "' not found", 1, true) then
      local known = {}
      for _, info in ipairs(M.variants()) do known[#known + 1] = info.name end
      error(("unknown variant '%s' (known: %s)"):format(name, table.concat(known, ", ")), 2)
    end
    error(v, 2)
  end
  return check_variant(v, "variant '" .. name .. "'")
end

--- Add a variant table so that konane.new{variant=name} finds it.
function M.register_variant(v)
  check_variant(v, "register_variant")
  registered[v.name] = v
  return v
end

--- The variants konane can find: a list of {name=, description=}, sorted.
function M.variants()
  local found, list = {}, {}
  local function add(v)
    if type(v) == "table" and type(v.name) == "string" and not found[v.name] then
      found[v.name] = true
      list[#list + 1] = { name = v.name, description = v.description or "" }
    end
  end
  for _, v in pairs(registered) do add(v) end
  for _, dir in ipairs(variant_dirs()) do
    for _, file in ipairs(core.listdir(dir) or {}) do
      local name = file:match("^([%w_%-]+)%.lua$")
      if name and name ~= "init" and not found[name] then
        local ok, v = pcall(require, "konane.variants." .. name)
        if ok then add(v) end
      end
    end
  end
  table.sort(list, function(a, b) return a.name < b.name end)
  return list
end

-- What a variant's functions see of the board.
local function board_view(rows, cols, mover)
  return {
    rows = rows,
    cols = cols,
    mover = mover,
    square = M.square,
    parse = M.parse_square,
    light = function(f, r) return (f + r) % 2 == 1 end,
  }
end

local NEW_OPTIONS = { rows = true, cols = true, variant = true, fen = true }

local function check_size(opts, key)
  local v = opts[key]
  if v == nil then return nil end
  if math.type(v) ~= "integer" then
    error(("bad option '%s' to 'new' (integer expected, got %s)"):format(key,
      math.type(v) or type(v)), 3)
  end
  if v < 1 or v > core.MAX_SIDE then
    error(("bad option '%s' to 'new' (%d is out of range 1..%d)"):format(key, v,
      core.MAX_SIDE), 3)
  end
  return v
end

-- Games made by konane.new, by variant table (the table itself, never its
-- text, which a __tostring could forge) and options: a new game with the
-- same settings is a clone, sharing the board and its move text cache (but
-- not the search table: each new game gets its own).
local prototypes, nprototypes = setmetatable({}, { __mode = "k" }), 0

local new_game

--- A new game: konane.new{rows=, cols=, variant=, fen=}, all optional.
function M.new(opts)
  if opts == nil then opts = {} end
  if type(opts) ~= "table" then
    error(("bad argument #1 to 'new' (table expected, got %s)"):format(type(opts)), 2)
  end
  for k in pairs(opts) do
    if not NEW_OPTIONS[k] then
      error(("bad argument #1 to 'new' (unknown option '%s'; expected rows, cols, variant or fen)")
        :format(tostring(k)), 2)
    end
  end
  local v = opts.variant or "brainking"
  if type(v) == "string" then v = registered[v] or package.loaded["konane.variants." .. v] end
  if type(v) ~= "table" then
    local ok, g = pcall(new_game, opts)
    if not ok then error(g, 2) end
    return g
  end
  local key = ("%s|%s|%s"):format(tostring(opts.rows), tostring(opts.cols), tostring(opts.fen))
  local by_variant = rawget(prototypes, v)
  local proto = by_variant and by_variant[key]
  if proto then
    local g = proto:clone()
    core.own_table(g) -- a search table of its own: a fresh game searches as if alone
    return g
  end
  local ok, g = pcall(new_game, opts)
  if not ok then error(g, 2) end
  if nprototypes >= 64 then prototypes, nprototypes = setmetatable({}, { __mode = "k" }), 0 end
  nprototypes = nprototypes + 1
  if not by_variant then by_variant = {}; rawset(prototypes, v, by_variant) end
  local p = g:clone()
  core.own_table(p) -- the prototype never searches: it keeps no game's table alive
  by_variant[key] = p
  return g
end

-- Called under pcall: its errors carry no position of their own (M.new adds the caller's).
function new_game(opts)
  local okv, variant = pcall(M.variant, opts.variant or "brainking")
  if not okv then error(variant, 0) end
  local rows, cols = check_size(opts, "rows"), check_size(opts, "cols")
  rows = rows or cols or variant.rows or 8
  cols = cols or (opts.rows and rows) or variant.cols or rows
  local fen = opts.fen
  if fen ~= nil and type(fen) ~= "string" then
    error(("bad option 'fen' to 'new' (string expected, got %s)"):format(type(fen)), 2)
  end
  if fen == nil and variant.start then fen = variant.start(rows, cols) end
  -- learn the start position's shape and phase from a rules-free game
  local ok, probe = pcall(core.new, { fen = fen, rows = rows, cols = cols })
  if not ok then error(probe, 2) end
  rows, cols = probe:rows(), probe:cols()
  local args = { fen = fen, rows = rows, cols = cols, variant = variant.name }
  local phase, turn = probe:phase(), probe:turn()
  local function call(fn, ...)
    local ok2, res = pcall(fn, ...)
    if not ok2 then error(("variant '%s': %s"):format(variant.name, tostring(res)), 3) end
    if type(res) ~= "table" then
      error(("variant '%s': a removal rule must return a list of squares, got %s")
        :format(variant.name, type(res)), 3)
    end
    return res
  end
  if phase == "remove1" then
    if variant.first_removal then
      args.first = call(variant.first_removal, board_view(rows, cols, turn))
    end
    if variant.second_removal then
      local other = turn == "black" and "white" or "black"
      args.second = {}
      local holes = args.first
      if not holes then
        holes = {}
        for r = 0, rows - 1 do
          for f = 0, cols - 1 do holes[#holes + 1] = M.square(f, r) end
        end
      end
      for _, hole in ipairs(holes) do
        args.second[hole] = call(variant.second_removal, board_view(rows, cols, other), hole)
      end
    end
  elseif phase == "remove2" and variant.second_removal then
    local hole
    for r = 0, rows - 1 do
      for f = 0, cols - 1 do
        if not probe:at(M.square(f, r)) then hole = M.square(f, r) end
      end
    end
    args.second = { [hole] = call(variant.second_removal, board_view(rows, cols, turn), hole) }
  end
  local ok3, g = pcall(core.new, args)
  if not ok3 then
    error(("variant '%s': %s"):format(variant.name, tostring(g)), 2)
  end
  return g
end

-- ---------------------------------------------------------------- drawing

--- g:draw{color=, flip=, last=, turn=, info=}: the board as text (konane.draw.board), the
--- renderer tostring(g), the REPL and the human bot share.
function Game:draw(opts)
  return require("konane.draw").board(self, opts)
end

core.meta.__tostring = function(g) return require("konane.draw").board(g) end

--- g:svg{...}: the position as an SVG document (konane.svg, docs/pictures.md).
function Game:svg(opts)
  return require("konane.svg").svg(self, opts)
end

-- ---------------------------------------------------------------- lazy parts

--- konane.bot(spec): a bot from a table, a spec string or a file.
function M.bot(...)
  return require("konane.bot").new(...)
end

--- konane.play(black, white, opts): play one game, return its record.
function M.play(...)
  return require("konane.play").play(...)
end

-- konane.pgn, konane.tournament, konane.stats... load on first use.
setmetatable(M, {
  __index = function(t, k)
    if type(k) == "string" and k:match("^[%a_]+$") then
      local ok, mod = pcall(require, "konane." .. k)
      if ok then
        rawset(t, k, mod)
        return mod
      end
      if not tostring(mod):find("module 'konane." .. k .. "' not found", 1, true) then
        error(mod, 2)
      end
    end
    return nil
  end,
})

return M
