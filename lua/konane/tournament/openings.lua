-- konane.tournament.openings: the openings a tournament plays.
--
-- An opening is { moves = {canonical move strings}, fen = <start position text or nil> },
-- checked by playing it on the tournament's board. resolve(s, cycles) turns settings.openings
-- (nil: every pair of removals; "random:K"; a file; a list) into the list the schedule uses.
-- Errors name where the bad opening came from: "FILE:LINE: move 2 'z9' is illegal: ...".

local util = require("konane.tournament.util")

local M = {}

local function konane() return require("konane") end

-- check(setup, op, where) -> the opening with canonical moves, or raises "WHERE: what".
function M.check(setup, op, where)
  local ok, g = pcall(konane().new, { variant = setup.variant, rows = not op.fen and setup.rows or nil,
                                      cols = not op.fen and setup.cols or nil, fen = op.fen })
  if not ok then error(where .. ": " .. util.clean(g), 0) end
  if op.fen and (g:rows() ~= setup.rows or g:cols() ~= setup.cols) then
    error(string.format("%s: the position is %dx%d, the tournament is played on %dx%d", where,
      g:rows(), g:cols(), setup.rows, setup.cols), 0)
  end
  local canonical = {}
  for i, m in ipairs(op.moves) do
    local c, why = g:legal(m)
    if not c then
      why = util.clean(why)
      if why:find("^illegal move") then error(string.format("%s: move %d: %s", where, i, why), 0) end
      error(string.format("%s: move %d '%s' is illegal: %s", where, i, m, why), 0)
    end
    g:play(c)
    canonical[i] = c
  end
  if g:over() then error(where .. ": the game is already over after this opening", 0) end
  return { moves = canonical, fen = op.fen }
end

-- Every two-ply start of the variant (for Konane: every pair of removals), in move order.
local function removal_pairs(setup)
  local g = konane().new { variant = setup.variant, rows = setup.rows, cols = setup.cols }
  local out = {}
  for _, m1 in ipairs(g:moves()) do
    g:play(m1)
    local seconds = g:moves()
    if #seconds == 0 then
      out[#out + 1] = { moves = { m1 } }
    end
    for _, m2 in ipairs(seconds) do
      g:play(m2)
      if not g:over() then out[#out + 1] = { moves = { m1, m2 } } end
      g:undo()
    end
    g:undo()
  end
  if #out == 0 then out[1] = { moves = {} } end
  return out
end

local function move_tokens(text)
  local moves = {}
  for tok in text:gmatch("%S+") do
    tok = tok:gsub("^%d+%.+", "")
    if tok ~= "" then moves[#moves + 1] = tok end
  end
  return moves
end

-- Reads an openings file: PGN games (their start position and moves), or one opening per line:
-- moves ("d5 e5 f5-d5", move numbers allowed) or position text optionally followed by moves
-- ("xoxo/oxox/xo.o/oxox w d2"). Blank lines and lines starting with # are skipped.
local function read_file(path, setup)
  local text, err = util.read(path)
  if not text then error("cannot read the openings file " .. util.clean(err), 0) end
  -- a byte order mark (some editors start a file with one) is no part of the first opening
  text = text:gsub("^\239\187\191", "")
  local out = {}
  if text:find("^%s*%[") or text:find("\n%s*%[%a") then
    local records, perr = require("konane.pgn").read(text, { name = path })
    if perr then error(perr, 0) end
    for i, r in ipairs(records) do
      out[#out + 1] = M.check(setup, { moves = r.moves, fen = r.fen },
        string.format("%s:%d: game %d", path, r.line or 1, i))
    end
  else
    local n = 0
    for line in (text .. "\n"):gmatch("([^\n]*)\n") do
      n = n + 1
      line = line:gsub("^%s+", "")
      if line ~= "" and not line:find("^#") then
        local op = { moves = {} }
        local tokens = {}
        for tok in line:gmatch("%S+") do tokens[#tokens + 1] = tok end
        local first = 1
        if tokens[1]:find("/") or tokens[1]:find("^[xo%.%d]+$") and tokens[2] and tokens[2]:find("^[bwBW]$") then
          op.fen = tokens[1] .. " " .. (tokens[2] or "")
          first = 3
        end
        op.moves = move_tokens(table.concat(tokens, " ", first))
        out[#out + 1] = M.check(setup, op, path .. ":" .. n)
      end
    end
  end
  if #out == 0 then error(path .. ": no opening in the file", 0) end
  return out
end

-- An opening of 'plies' random moves drawn with 'seed' (a game that would end early is drawn
-- again, so the bots always get a game to play).
local function random_opening(setup, plies, seed)
  local r = util.rng(seed)
  local best
  for _ = 1, 100 do
    local g = konane().new { variant = setup.variant, rows = setup.rows, cols = setup.cols }
    local moves = {}
    for _ = 1, plies do
      local ms = g:moves()
      if #ms == 0 then break end
      local m = ms[r(#ms)]
      g:play(m)
      moves[#moves + 1] = m
    end
    if not g:over() then return { moves = moves } end
    best = best or { moves = { table.unpack(moves, 1, #moves - 1) } }
  end
  return best
end

-- resolve(s, cycles) -> list of checked openings, in the order the schedule uses them
-- (shuffled with the seed, except an explicit list or file order).
function M.resolve(s, cycles)
  local spec = s.openings
  if type(spec) == "table" then
    local out = {}
    for i, op in ipairs(spec) do
      if type(op) == "string" then op = { moves = move_tokens(op) } end
      if type(op) ~= "table" or type(op.moves) ~= "table" then
        error("opening " .. i .. ": a string of moves or {moves = {...}, fen = ...} expected", 0)
      end
      out[i] = M.check(s, op, "opening " .. i)
    end
    if #out == 0 then error("openings: the list is empty", 0) end
    return out
  end
  if spec == nil or spec == "" or spec == "removals" then
    local pairs_ = removal_pairs(s)
    -- a seeded shuffle: different seeds meet the openings in a different order
    local r = util.rng(util.mix(s.seed, 0x0BE))
    for i = #pairs_, 2, -1 do
      local j = r(i)
      pairs_[i], pairs_[j] = pairs_[j], pairs_[i]
    end
    return pairs_
  end
  if type(spec) ~= "string" then error("openings must be a file name, \"random:K\" or a list", 0) end
  local plies = spec:match("^random:(%d+)$")
  if plies then
    plies = tonumber(plies)
    if plies > 400 then error("openings random:K: K must be at most 400 (got " .. plies .. ")", 0) end
    local out = {}
    for c = 1, math.max(cycles, 1) do
      out[c] = random_opening(s, plies, util.mix(s.seed, 0x10000 + c))
    end
    return out
  end
  -- "random:x" is a mistyped K unless such a file exists
  local f = spec:match("^random:") and io.open(spec, "rb")
  if f then f:close() end
  if spec:match("^random:") and not f then
    error("openings random:K: K must be a whole number of plies from 0 to 400 (got '" .. spec:sub(8) .. "')", 0)
  end
  return read_file(spec, s)
end

return M
