-- konane.tournament.cfg: DIR/tournament.cfg, the settings that define a tournament's games.
--
-- The file is data: JSON written by konane.tournament.json and read back by its parser, which
-- cannot run anything. Every field is then checked on its own, and a bad one is reported as
-- "DIR/tournament.cfg:LINE: field: what is wrong", so a hand-edited or damaged file never
-- reaches the schedule. Fields:
--   version 2; format; games; rounds; variant; rows; cols; time and/or tc; margin (optional,
--   seconds tolerated past a move's limit, absent = 0); seed; event;
--   sprt {elo0, elo1, alpha, beta} (optional); shard [I, N] (optional);
--   bots [{name, spec}] (spec absent for a bot table); openings [{moves: [...], fen}].

local json = require("konane.tournament.json")
local settings = require("konane.tournament.settings")

local M = {}

M.VERSION = 2

-- encode(saved) -> text (saved: settings.saved(s)).
function M.encode(saved)
  local doc = { version = M.VERSION }
  for k, v in pairs(saved) do doc[k] = v end
  local bots = {}
  for i, b in ipairs(saved.bots) do bots[i] = { name = b.name, spec = b.spec } end
  doc.bots = json.list(bots)
  local ops = {}
  for i, op in ipairs(saved.openings or {}) do
    ops[i] = { moves = json.list({ table.unpack(op.moves) }), fen = op.fen }
  end
  doc.openings = json.list(ops)
  return json.encode(doc, { exact = true }) .. "\n"
end

-- The names of list entries in messages ("bots[2]"), by list.
local LABELS = setmetatable({}, { __mode = "k" })

-- "bots[2].name": the name of member 'key' of table 't'.
local function label_of(t, key)
  local base = LABELS[t]
  if not base then return tostring(key) end
  if type(key) == "number" then return base .. "[" .. key .. "]" end
  return base .. "." .. tostring(key)
end

-- A validation failure at the line of member 'key' of table 't'.
local function bad(name, t, key, msg)
  local line = json.line_of(t, key)
  error(string.format("%s:%s %s: %s", name, line and (line .. ":") or "", label_of(t, key), msg), 0)
end

local function check_int(name, t, key, lo, hi)
  local v = t[key]
  if math.type(v) ~= "integer" then bad(name, t, key, "an integer expected, got " .. json.encode(v, { compact = true })) end
  if (lo and v < lo) or (hi and v > hi) then
    bad(name, t, key, string.format("must lie in %s..%s, got %d", tostring(lo or ""), tostring(hi or ""), v))
  end
end

local function check_string(name, t, key, max, optional)
  local v = t[key]
  if v == nil and optional then return end
  if type(v) ~= "string" then bad(name, t, key, "a string expected, got " .. json.encode(v, { compact = true })) end
  if #v > max then bad(name, t, key, "longer than " .. max .. " bytes") end
end

local function check_number(name, t, key, ok, what)
  local v = t[key]
  if type(v) ~= "number" or not ok(v) then bad(name, t, key, what .. " expected, got " .. json.encode(v, { compact = true })) end
end

local function check_list(name, t, key, min)
  local v = t[key]
  if type(v) ~= "table" or (v[1] == nil and next(v) ~= nil) then bad(name, t, key, "a list expected") end
  if #v < min then bad(name, t, key, "at least " .. min .. " entries expected") end
  LABELS[v] = label_of(t, key)
  return v
end

local function only(name, t, keys, what)
  local known = {}
  for _, k in ipairs(keys) do known[k] = true end
  for k in pairs(t) do
    if not known[k] then bad(name, t, k, "unknown field in " .. what) end
  end
end

local TOP = { "version", "format", "games", "rounds", "variant", "rows", "cols", "time", "tc", "margin", "seed",
              "event", "sprt", "shard", "bots", "openings" }

-- decode(text, name) -> cfg, or raises "NAME:LINE: field: what is wrong".
function M.decode(text, name)
  local doc, err = json.decode(text, name)
  if doc == nil then
    if text:find("^%s*{%s*\n%s*[%a_]+%s*=") or text:find("^%s*{%s*[%a_]+%s*=") then
      err = name .. ": written by an older version (a Lua table): this version reads only JSON"
    end
    error(err or (name .. ": empty"), 0)
  end
  if type(doc) ~= "table" or doc[1] ~= nil then error(name .. ":1: a JSON object expected", 0) end
  only(name, doc, TOP, "tournament.cfg")
  if doc.version ~= M.VERSION then
    bad(name, doc, "version", "this version reads version " .. M.VERSION .. ", got " .. tostring(doc.version))
  end
  if not settings.FORMATS[doc.format] then bad(name, doc, "format", "roundrobin, gauntlet or swiss expected") end
  check_int(name, doc, "games", 2, settings.MAX_GAMES)
  if doc.games % 2 == 1 then bad(name, doc, "games", "must be even") end
  check_int(name, doc, "rounds", 1, settings.MAX_ROUNDS)
  check_string(name, doc, "variant", 64)
  check_int(name, doc, "rows", 1, 20)
  check_int(name, doc, "cols", 1, 20)
  if doc.time ~= nil or doc.tc == nil then
    check_number(name, doc, "time", function(v) return v > 0 and v <= settings.MAX_TIME end,
      "a positive number of seconds")
  end
  if doc.tc ~= nil then
    check_string(name, doc, "tc", 64)
    local ok, tc_err = pcall(settings.parse_tc, doc.tc)
    if not ok then bad(name, doc, "tc", settings.clean(tc_err)) end
  end
  if doc.margin ~= nil then
    check_number(name, doc, "margin", function(v) return v >= 0 and v <= settings.MAX_TIME end,
      "a number of seconds from 0")
  end
  check_int(name, doc, "seed")
  check_string(name, doc, "event", 200)
  if doc.sprt ~= nil then
    local t = doc.sprt
    if type(t) ~= "table" then bad(name, doc, "sprt", "an object expected") end
    only(name, t, { "elo0", "elo1", "alpha", "beta" }, "sprt")
    for _, k in ipairs { "elo0", "elo1" } do
      check_number(name, t, k, function(v) return v == v and math.abs(v) < 10000 end, "a number")
    end
    for _, k in ipairs { "alpha", "beta" } do
      check_number(name, t, k, function(v) return v > 0 and v < 1 end, "a number between 0 and 1")
    end
    if t.elo1 <= t.elo0 then bad(name, t, "elo1", "must be greater than elo0") end
  end
  if doc.shard ~= nil then
    local sh = check_list(name, doc, "shard", 2)
    if #sh ~= 2 then bad(name, doc, "shard", "[I, N] expected") end
    check_int(name, sh, 2, 1, 1000000)
    check_int(name, sh, 1, 1, sh[2])
  end
  local bots = check_list(name, doc, "bots", 2)
  for i, b in ipairs(bots) do
    if type(b) ~= "table" then bad(name, bots, i, "an object {name, spec} expected") end
    LABELS[b] = label_of(bots, i)
    only(name, b, { "name", "spec" }, "a bot")
    local max = require("konane.tournament.settings").NAME_MAX -- what a new tournament accepts
    check_string(name, b, "name", max)
    check_string(name, b, "spec", max, true)
  end
  local ops = check_list(name, doc, "openings", 1)
  for i, op in ipairs(ops) do
    if type(op) ~= "table" then bad(name, ops, i, "an object {moves, fen} expected") end
    LABELS[op] = label_of(ops, i)
    only(name, op, { "moves", "fen" }, "an opening")
    local moves = check_list(name, op, "moves", 0)
    for k = 1, #moves do check_string(name, moves, k, 64) end
    check_string(name, op, "fen", 1024, true)
  end
  return doc
end

-- line(cfg, key) -> the line of a top-level field (for messages of later checks).
function M.line(cfg, key)
  return json.line_of(cfg, key)
end

return M
