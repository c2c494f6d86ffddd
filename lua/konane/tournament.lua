-- konane.tournament: round robin, gauntlet, Swiss and SPRT matches between bots; parallel,
-- resumable and shardable.
--
--   local tournament = require "konane.tournament"
--   local results = tournament.run { bots = { "greedy", "random" }, rows = 6, cols = 6,
--                                    games = 4, out = "t1" }
--
-- The schedule is a pure function of the settings: every game has a number, its two players and
-- colours, its opening and its own seed derived from the tournament seed, so the games played
-- (and the results) are the same whatever the number of workers, the shard, or the interruptions.
-- The directory 'out' holds tournament.cfg (the settings, as a Lua table), games.pgn (every game,
-- appended and flushed to disk as it ends: the journal a resumed run starts from) and
-- results.json. Statistics come from konane.stats.

local stats = require("konane.stats")

local M = {}

M.FORMATS = { roundrobin = true, gauntlet = true, swiss = true }
M.CONFIG_FILE, M.GAMES_FILE, M.RESULTS_FILE = "tournament.cfg", "games.pgn", "results.json"
M.EVENT = "konane tournament"

local function konane() return require("konane") end
local function core() return require("konane").core end

-- ---------------------------------------------------------------------------------------------
-- Small helpers

-- mix(a, b): a 53-bit integer hash of two integers (splitmix64 finaliser), used for every
-- per-game and per-opening seed so that they depend only on the tournament seed and the number.
local function mix(a, b)
  local z = (a * 0x9E3779B97F4A7C15 + b * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB)
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  z = z ~ (z >> 31)
  return z >> 11
end
M.mix = mix

-- A splitmix64 generator: r(n) -> integer in [1, n].
local function rng(seed)
  local s = seed
  return function(n)
    s = s + 0x9E3779B97F4A7C15
    local z = s
    z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ~ (z >> 27)) * 0x94D049BB133111EB
    z = z ~ (z >> 31)
    return (z >> 1) % n + 1
  end
end

-- serialize(v): Lua text for a tree of strings, numbers, booleans and tables, keys sorted, so
-- the same value always gives the same text (load it back with deserialize).
local function serialize(v, indent)
  indent = indent or ""
  local t = type(v)
  if t == "string" then return string.format("%q", v) end
  if t == "number" then
    if math.type(v) == "integer" then return tostring(v) end
    if v ~= v or v == math.huge or v == -math.huge then return "nil" end
    return string.format("%.17g", v)
  end
  if t == "boolean" or t == "nil" then return tostring(v) end
  if t ~= "table" then error("cannot save a value of type " .. t) end
  local keys, n = {}, #v
  for k in pairs(v) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local inner = indent .. "  "
  local parts = {}
  for i = 1, n do parts[#parts + 1] = inner .. serialize(v[i], inner) end
  for _, k in ipairs(keys) do
    local key = (type(k) == "string" and k:match("^[%a_][%w_]*$")) and k or ("[" .. serialize(k) .. "]")
    parts[#parts + 1] = inner .. key .. " = " .. serialize(v[k], inner)
  end
  if #parts == 0 then return "{}" end
  return "{\n" .. table.concat(parts, ",\n") .. "\n" .. indent .. "}"
end
M.serialize = serialize

local function deserialize(text, name)
  local chunk, err = load("return " .. text, "=" .. (name or "data"), "t", {})
  if not chunk then return nil, err end
  local ok, v = pcall(chunk)
  if not ok then return nil, v end
  return v
end
M.deserialize = deserialize

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local text = f:read("a")
  f:close()
  return text
end

-- Writes 'text' to 'path' through a temporary file and a rename: the file is either the old one
-- or the new one, never half written.
-- Asks the kernel to put the directory holding 'path' on disk, so a file just created or
-- renamed there survives a power cut (best effort: errors are ignored).
local function sync_dir(path)
  local c = core()
  if not c.fsync then return end
  local d = io.open(path:match("^(.*)/[^/]*$") or ".", "r")
  if d then
    pcall(c.fsync, d)
    d:close()
  end
end

local function write_atomic(path, text)
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "wb")
  if not f then return nil, err end
  f:write(text)
  local c = core()
  if c.fsync then c.fsync(f) end
  f:close()
  local ok, rerr = os.rename(tmp, path)
  if ok then sync_dir(path) end
  return ok, rerr
end

local function file_exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end

local function mkdir(path)
  if file_exists(path .. "/.") then return true end
  local ok = os.execute("mkdir -p '" .. path:gsub("'", "'\\''") .. "'")
  if not ok then return nil, "cannot create directory '" .. path .. "'" end
  return true
end

-- JSON text for a tree of tables (lists when t[1] ~= nil or t is marked as a list), strings,
-- numbers and booleans; object keys sorted. Infinite numbers become null.
local JSON_LIST = setmetatable({}, { __mode = "k" })
local function json(v, indent)
  indent = indent or ""
  local t = type(v)
  if v == nil then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    if math.type(v) == "integer" then return tostring(v) end
    local s = string.format("%.10g", v)
    if not s:find("[%.eEn]") then s = s .. ".0" end
    return s
  end
  if t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(ch)
      local map = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
      return map[ch] or string.format("\\u%04x", ch:byte())
    end) .. '"'
  end
  local inner = indent .. "  "
  if v[1] ~= nil or JSON_LIST[v] then
    local parts = {}
    for i = 1, #v do parts[i] = inner .. json(v[i], inner) end
    if #parts == 0 then return "[]" end
    return "[\n" .. table.concat(parts, ",\n") .. "\n" .. indent .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do
    parts[#parts + 1] = inner .. json(k) .. ": " .. json(v[k], inner)
  end
  if #parts == 0 then return "{}" end
  return "{\n" .. table.concat(parts, ",\n") .. "\n" .. indent .. "}"
end
M.json = json

local function list(t)
  JSON_LIST[t] = true
  return t
end

-- ---------------------------------------------------------------------------------------------
-- Openings

-- An opening: { moves = {...canonical...}, fen = <start text or nil> }. Checked by playing it.
local function check_opening(setup, op, where)
  local ok, g = pcall(konane().new, { variant = setup.variant, rows = not op.fen and setup.rows or nil,
                                      cols = not op.fen and setup.cols or nil, fen = op.fen })
  if not ok then
    error(where .. ": " .. tostring(g):gsub("^[^:]*:%d+: ", ""), 0)
  end
  if op.fen and (g:rows() ~= setup.rows or g:cols() ~= setup.cols) then
    error(string.format("%s: the position is %dx%d, the tournament is played on %dx%d", where,
      g:rows(), g:cols(), setup.rows, setup.cols), 0)
  end
  local canonical = {}
  for i, m in ipairs(op.moves) do
    local c, why = g:legal(m)
    if not c then error(string.format("%s: move %d '%s' is illegal: %s", where, i, m, tostring(why)), 0) end
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

-- Reads an openings file: PGN games (their start position and moves), or one opening per line:
-- moves ("d5 e5 f5-d5", move numbers allowed) or position text optionally followed by moves
-- ("xoxo/oxox/xo.o/oxox w d2"). Blank lines and lines starting with # are skipped.
local function read_openings(path, setup)
  local text, err = read_file(path)
  if not text then error("cannot read openings file: " .. tostring(err), 0) end
  local out = {}
  if text:find("^%s*%[") or text:find("\n%s*%[%a") then
    local records, perr = require("konane.pgn").read(text, { name = path })
    if perr then error(perr, 0) end
    for i, r in ipairs(records) do
      out[#out + 1] = check_opening(setup, { moves = r.moves, fen = r.fen },
        string.format("%s: game %d", path, i))
    end
  else
    local n = 0
    for line in (text .. "\n"):gmatch("([^\n]*)\n") do
      n = n + 1
      line = line:gsub("\r$", ""):gsub("^%s+", ""):gsub("%s+$", "")
      if line ~= "" and not line:find("^#") then
        local op = { moves = {} }
        local tokens = {}
        for tok in line:gmatch("%S+") do tokens[#tokens + 1] = tok end
        local first = 1
        if tokens[1]:find("/") or tokens[1]:find("^[xo%.%d]+$") and tokens[2] and tokens[2]:find("^[bwBW]$") then
          op.fen = tokens[1] .. " " .. (tokens[2] or "")
          first = 3
        end
        for i = first, #tokens do
          local m = tokens[i]:gsub("^%d+%.+", "")
          if m ~= "" then op.moves[#op.moves + 1] = m end
        end
        out[#out + 1] = check_opening(setup, op, path .. ":" .. n)
      end
    end
  end
  if #out == 0 then error(path .. ": no opening in the file", 0) end
  return out
end

-- An opening of 'plies' random moves drawn with 'seed' (a game that would end early is drawn
-- again, so the bots always get a game to play).
local function random_opening(setup, plies, seed)
  local r = rng(seed)
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

-- Resolves settings.openings (nil: every removal pair; "random:K"; a file path; or a list of
-- openings: strings of moves or {moves=, fen=} tables) into a list of checked openings, in the
-- order the schedule uses them (shuffled with the seed, except an explicit list or file order).
local function resolve_openings(s, cycles)
  local spec = s.openings
  if type(spec) == "table" then
    local out = {}
    for i, op in ipairs(spec) do
      if type(op) == "string" then
        local moves = {}
        for tok in op:gmatch("%S+") do
          tok = tok:gsub("^%d+%.+", "")
          if tok ~= "" then moves[#moves + 1] = tok end
        end
        op = { moves = moves }
      end
      out[i] = check_opening(s, op, "opening " .. i)
    end
    if #out == 0 then error("openings: the list is empty", 0) end
    return out
  end
  if spec == nil or spec == "" or spec == "removals" then
    local pairs_ = removal_pairs(s)
    -- a seeded shuffle: different seeds meet the openings in a different order
    local r = rng(mix(s.seed, 0x0BE))
    for i = #pairs_, 2, -1 do
      local j = r(i)
      pairs_[i], pairs_[j] = pairs_[j], pairs_[i]
    end
    return pairs_
  end
  local plies = type(spec) == "string" and spec:match("^random:(%d+)$")
  if plies then
    local out = {}
    for c = 1, math.max(cycles, 1) do
      out[c] = random_opening(s, tonumber(plies), mix(s.seed, 0x10000 + c))
    end
    return out
  end
  return read_openings(spec, s)
end

-- ---------------------------------------------------------------------------------------------
-- Settings

local DEFAULTS = { format = "roundrobin", games = 2, time = 1, seed = 1, workers = 1 }

-- Checks and completes the user's settings; raises "bad setting" messages for the caller (the
-- command line turns them into exit status 2).
function M.settings(o)
  if type(o) ~= "table" then error("tournament settings must be a table", 0) end
  local s = {}
  for k, v in pairs(o) do s[k] = v end
  if s.sprt and s.games == nil then s.games = 1000 end -- the most an SPRT match may take
  for k, v in pairs(DEFAULTS) do if s[k] == nil then s[k] = v end end
  if not M.FORMATS[s.format] then
    error("format must be roundrobin, gauntlet or swiss (got '" .. tostring(s.format) .. "')", 0)
  end
  if type(s.bots) ~= "table" or #s.bots < 2 then error("a tournament needs at least two bots", 0) end
  local function posint(k, v)
    if math.type(v) ~= "integer" or v < 1 then
      error(k .. " must be a positive integer (got " .. tostring(v) .. ")", 0)
    end
  end
  posint("games", s.games)
  if s.games % 2 == 1 then
    error("games must be even: every opening is played twice, colours swapped (got " .. s.games .. ")", 0)
  end
  posint("workers", s.workers)
  if math.type(s.seed) ~= "integer" then error("seed must be an integer (got " .. tostring(s.seed) .. ")", 0) end
  if type(s.time) ~= "number" or not (s.time > 0) or s.time == math.huge then
    error("time must be a positive number of seconds per move (got " .. tostring(s.time) .. ")", 0)
  end
  if s.rounds == nil then
    if s.format == "swiss" then
      local r = 1
      while (1 << r) < #s.bots do r = r + 1 end
      s.rounds = r
    else
      s.rounds = 1
    end
  end
  posint("rounds", s.rounds)
  if s.sprt then
    if #s.bots ~= 2 then error("an SPRT match needs exactly two bots (got " .. #s.bots .. ")", 0) end
    if s.format == "swiss" then error("an SPRT match cannot be a Swiss tournament", 0) end
    local ok, t = pcall(stats.sprt, s.sprt)
    if not ok then error(tostring(t):gsub("^[^:]*:%d+: ", ""), 0) end
    s.sprt = { elo0 = t.elo0, elo1 = t.elo1, alpha = t.alpha, beta = t.beta }
  end
  if s.shard then
    local i, n = s.shard[1], s.shard[2]
    if math.type(i) ~= "integer" or math.type(n) ~= "integer" or n < 1 or i < 1 or i > n then
      error("shard must be I/N with 1 <= I <= N", 0)
    end
    if n > 1 and s.format == "swiss" then
      error("a Swiss tournament cannot be sharded: each round is paired from the results of the last", 0)
    end
    if n > 1 and s.sprt then
      error("an SPRT match cannot be sharded: it stops as soon as it is decided", 0)
    end
  end
  -- players: labels must be unique (they name the bots in the records)
  local players, seen = {}, {}
  for i, b in ipairs(s.bots) do
    local p = {}
    if type(b) == "string" then
      p.spec, p.name = b, b
    elseif type(b) == "table" and (b.choose or b.spec) then
      p.spec = b.spec
      p.name = b.label or b.name or b.spec
      if b.choose then p.bot = b end
    else
      error("bot " .. i .. ": a spec string or a bot table expected", 0)
    end
    p.name = tostring(p.name or ("bot" .. i))
    local base, k = p.name, 1
    while seen[p.name] do
      k = k + 1
      p.name = base .. "#" .. k
    end
    seen[p.name] = true
    players[i] = p
  end
  s.players = players
  -- the board: variant defaults, then the size
  local ok, g = pcall(konane().new, { variant = s.variant, rows = s.rows, cols = s.cols })
  if not ok then error(tostring(g):gsub("^[^:]*:%d+: ", ""), 0) end
  s.variant, s.rows, s.cols = g:variant(), g:rows(), g:cols()
  s.event = s.event or M.EVENT
  return s
end

-- The part of the settings that defines the games (saved in DIR/tournament.cfg): everything
-- except how they are run (workers, progress, callbacks, bot tables).
local SAVED = { "format", "games", "rounds", "variant", "rows", "cols", "time", "seed", "sprt",
                "shard", "event", "openings_list" }

local function saved_config(s)
  local c = { version = 1, bots = {} }
  for _, k in ipairs(SAVED) do c[k] = s[k] end
  for i, p in ipairs(s.players) do c.bots[i] = { name = p.name, spec = p.spec } end
  return c
end

-- ---------------------------------------------------------------------------------------------
-- Schedules

-- The pairs of a round robin in the order of the circle method (every player plays once per
-- "round" of the circle when the number is even), so that all pairs meet early.
local function circle_pairs(n)
  local ids = {}
  for i = 1, n do ids[i] = i end
  if n % 2 == 1 then ids[#ids + 1] = false end
  local m = #ids
  local out = {}
  for _ = 1, m - 1 do
    for k = 1, m // 2 do
      local a, b = ids[k], ids[m + 1 - k]
      if a and b then out[#out + 1] = { math.min(a, b), math.max(a, b) } end
    end
    -- rotate every id but the first
    table.insert(ids, 2, table.remove(ids))
  end
  return out
end

-- Adds the two colour-swapped games of one encounter to 'games'.
local function add_encounter(s, games, round, board, a, b, opening, encounter)
  local first_black = ((round + board) % 2 == 1) and a or b
  local first_white = first_black == a and b or a
  for k = 0, 1 do
    local id = #games + 1
    games[id] = {
      id = id, round = round, board = board, encounter = encounter, opening = opening,
      black = k == 0 and first_black or first_white,
      white = k == 0 and first_white or first_black,
      seed = mix(s.seed, id),
    }
  end
end

-- The fixed schedule of a round robin or gauntlet (or SPRT match): (games / 2) * rounds cycles;
-- in each cycle every pair plays one opening (the same for all pairs in the cycle) with both
-- colours.
local function fixed_schedule(s)
  local n = #s.players
  local pairs_
  if s.format == "gauntlet" then
    pairs_ = {}
    for j = 2, n do pairs_[#pairs_ + 1] = { 1, j } end
  else
    pairs_ = circle_pairs(n)
  end
  local games, encounter = {}, 0
  local cycles = (s.games // 2) * s.rounds
  for c = 1, cycles do
    local opening = (c - 1) % #s.openings_list + 1
    for b, p in ipairs(pairs_) do
      encounter = encounter + 1
      add_encounter(s, games, c, b, p[1], p[2], opening, encounter)
    end
  end
  return games
end

-- Swiss standings before round 'round': points (wins, plus half the games of an encounter for
-- a bye) per player.
local function swiss_points(s, games, results, byes)
  local pts = {}
  for i = 1, #s.players do pts[i] = (byes[i] or 0) * (s.games / 2) end
  for _, g in ipairs(games) do
    local r = results[g.id]
    if r then
      local w = r.winner == "black" and g.black or g.white
      pts[w] = pts[w] + 1
    end
  end
  return pts
end

-- Pairs one Swiss round: players ordered by points (ties: the order given), the bye to the
-- lowest-placed player who has not had one, then a backtracking search for pairings without a
-- rematch (rematches only when no such pairing exists). Round 1 pairs the top half against the
-- bottom half.
local function swiss_pairings(s, round, pts, met, byes)
  local n = #s.players
  local order = {}
  for i = 1, n do order[i] = i end
  table.sort(order, function(a, b)
    if pts[a] ~= pts[b] then return pts[a] > pts[b] end
    return a < b
  end)
  local bye
  if n % 2 == 1 then
    for k = n, 1, -1 do
      if not byes[order[k]] then bye = order[k] break end
    end
    bye = bye or order[n]
    table.remove(order, (function() for k = 1, n do if order[k] == bye then return k end end end)())
  end
  if round == 1 then
    local h, out = #order // 2, {}
    for k = 1, h do out[k] = { order[k], order[k + h] } end
    return out, bye
  end
  local function search(rest, allow_rematch, budget)
    if #rest == 0 then return {} end
    local a = rest[1]
    for k = 2, #rest do
      local b = rest[k]
      if allow_rematch or not met[a][b] then
        budget[1] = budget[1] - 1
        if budget[1] < 0 then return nil end
        local sub = {}
        for j = 2, #rest do if j ~= k then sub[#sub + 1] = rest[j] end end
        local tail = search(sub, allow_rematch, budget)
        if tail then
          table.insert(tail, 1, { a, b })
          return tail
        end
      end
    end
    return nil
  end
  local out = search(order, false, { 100000 }) or search(order, true, { 100000 })
  return out, bye
end

-- Swiss: the games of round 'round' (appended to 'games'), given the results so far.
local function swiss_round(s, games, results, round, state)
  local met = {}
  for i = 1, #s.players do met[i] = {} end
  for _, g in ipairs(games) do
    met[g.black][g.white], met[g.white][g.black] = true, true
  end
  local pts = swiss_points(s, games, results, state.byes)
  local pairings, bye = swiss_pairings(s, round, pts, met, state.byes)
  if bye then
    state.byes[bye] = (state.byes[bye] or 0) + 1
    state.bye_rounds[round] = bye
  end
  local per = s.games // 2
  local encounter = state.encounters or 0
  for b, p in ipairs(pairings) do
    for k = 1, per do
      encounter = encounter + 1
      local cycle = (round - 1) * per + k
      add_encounter(s, games, round, b, p[1], p[2], (cycle - 1) % #s.openings_list + 1, encounter)
    end
  end
  state.encounters = encounter
end

-- The number of games a Swiss tournament plays in total.
local function swiss_total(s)
  return s.rounds * (#s.players // 2) * s.games
end

function M.in_shard(s, g)
  if not s.shard or s.shard[2] == 1 then return true end
  return (g.encounter - 1) % s.shard[2] + 1 == s.shard[1]
end

-- ---------------------------------------------------------------------------------------------
-- Game records and the journal (DIR/games.pgn)

-- The konane.play options for game 'g'.
local function play_options(s, g)
  local op = s.openings_list[g.opening]
  return {
    variant = s.variant, rows = not op.fen and s.rows or nil, cols = not op.fen and s.cols or nil,
    fen = op.fen, opening = op.moves, time = s.time, seed = g.seed, event = s.event,
    tags = { Round = g.round .. "." .. g.board, Game = g.id, Seed = g.seed },
  }
end

-- A fresh bot for player 'p' (a new one every game, so nothing carries over from one game to the
-- next and the games do not depend on which worker played which).
local function make_bot(p)
  if p.bot then return p.bot end
  local b = konane().bot(p.spec)
  b.name = p.name
  return b
end

-- Plays game 'g' in this process; returns the PGN text of its record.
local function play_here(s, g)
  local opts = play_options(s, g)
  local black, white = make_bot(s.players[g.black]), make_bot(s.players[g.white])
  local record = konane().play(black, white, opts)
  record.black, record.white = s.players[g.black].name, s.players[g.white].name
  return require("konane.pgn").write(record)
end

-- Checks that 'text' is one complete record of game 'g' of this schedule. Returns the result
-- summary {winner=, termination=, reason=, plies=} or nil and why not.
local function check_record(s, text, g)
  if not text:find("^%[Event ") then return nil, "does not start with an [Event] tag" end
  if not (text:find("\n1%-0\n\n$") or text:find("\n0%-1\n\n$") or text:find(" 1%-0\n\n$")
          or text:find(" 0%-1\n\n$")) then
    return nil, "incomplete (no result at its end)"
  end
  if text:find("%z") then return nil, "contains NUL bytes" end
  local records, err = require("konane.pgn").read(text)
  if err then return nil, err end
  if #records ~= 1 then return nil, #records .. " games in one record" end
  local r = records[1]
  if g == nil then return nil, "its game number is not part of the schedule" end
  -- g == false: the game is not paired yet (Swiss); its players are checked later
  if g and (r.black ~= s.players[g.black].name or r.white ~= s.players[g.white].name) then
    return nil, string.format("players %s - %s do not match the schedule (%s - %s)",
      tostring(r.black), tostring(r.white), s.players[g.black].name, s.players[g.white].name)
  end
  if g and tostring(r.tags.Seed) ~= tostring(g.seed) then return nil, "its seed does not match the schedule" end
  if r.winner ~= "black" and r.winner ~= "white" then return nil, "no winner" end
  return { winner = r.winner, termination = r.termination or "normal", reason = r.reason,
           plies = #r.moves }
end

-- Splits the journal into records at each line that starts with [Event.
local function split_records(text)
  local starts = {}
  local pos = 1
  if text:sub(1, 7) ~= "[Event " then starts[1] = 1 end
  while true do
    local a = text:find("[Event ", pos, true)
    if not a then break end
    if a == 1 or text:sub(a - 1, a - 1) == "\n" then starts[#starts + 1] = a end
    pos = a + 1
  end
  local out = {}
  for i, a in ipairs(starts) do
    local b = (starts[i + 1] or #text + 1) - 1
    out[i] = { text = text:sub(a, b), first = a }
  end
  return out
end

local function line_of(text, pos)
  local n = 1
  for _ in text:sub(1, pos - 1):gmatch("\n") do n = n + 1 end
  return n
end

-- Reads DIR/games.pgn: every valid record of this schedule, by game number. A record that is
-- truncated, corrupt, a duplicate or not part of the schedule is dropped: the file is rewritten
-- without it (atomically) and the dropped text is kept in games.pgn.rejected. Returns results,
-- texts (by id) and a list of warnings.
local function load_journal(s, path, games_by_id)
  local text = read_file(path)
  local results, texts, warnings = {}, {}, {}
  if not text or text == "" then return results, texts, warnings end
  local keep, rejected = {}, {}
  for _, chunk in ipairs(split_records(text)) do
    local id = math.tointeger(tonumber(chunk.text:match('\n%[Game "(%d+)"%]')))
    local g = id and games_by_id(id)
    local r, why = check_record(s, chunk.text, g)
    if r and results[id] then r, why = nil, "game " .. id .. " is already in the file" end
    if r then
      results[id], texts[id] = r, chunk.text
      keep[#keep + 1] = chunk.text
    else
      rejected[#rejected + 1] = chunk.text
      warnings[#warnings + 1] = string.format("%s:%d: dropped a record%s: %s", path,
        line_of(text, chunk.first), id and (" of game " .. id) or "", why)
    end
  end
  if #rejected > 0 then
    local f = io.open(path .. ".rejected", "ab")
    if f then
      f:write(table.concat(rejected))
      f:close()
    end
    local ok, err = write_atomic(path, table.concat(keep))
    if not ok then error("cannot repair " .. path .. ": " .. tostring(err), 0) end
  end
  return results, texts, warnings
end

-- ---------------------------------------------------------------------------------------------
-- Results

-- Computes the standings from the finished games (only the games listed in 'counted').
function M.compute(s, games, results, extra)
  local n = #s.players
  local wins = {}
  for i = 1, n do wins[i] = {} for j = 1, n do wins[i][j] = 0 end end
  local forfeits = {}
  local played = 0
  local ids = {}
  for id in pairs(results) do ids[#ids + 1] = id end
  table.sort(ids)
  for _, id in ipairs(ids) do
    local g, r = games[id], results[id]
    local w, l = g.black, g.white
    if r.winner == "white" then w, l = l, w end
    wins[w][l] = wins[w][l] + 1
    played = played + 1
    if r.termination ~= "normal" then
      forfeits[r.termination] = (forfeits[r.termination] or 0) + 1
    end
  end
  local ratings = stats.ratings(n, wins)
  for i = 1, n do
    -- rounding noise of the fit is not a rating: print 0, not -0.0
    if math.abs(ratings.elo[i]) < 1e-9 then ratings.elo[i] = 0 end
  end
  local bots = {}
  for i, p in ipairs(s.players) do
    local w, l = 0, 0
    for j = 1, n do w, l = w + wins[i][j], l + wins[j][i] end
    local b = { name = p.name, spec = p.spec, games = w + l, wins = w, losses = l,
                score = (w + l) > 0 and w / (w + l) or 0, points = w + ((extra and extra.byes
                and extra.byes[i] or 0) * (s.games // 2)),
                elo = ratings.elo[i], elo_error = ratings.error[i], index = i, los = {} }
    for j = 1, n do
      if j ~= i and wins[i][j] + wins[j][i] > 0 then
        b.los[s.players[j].name] = stats.los(wins[i][j], wins[j][i])
      end
    end
    bots[i] = b
  end
  local ranked = {}
  for i = 1, n do ranked[i] = bots[i] end
  table.sort(ranked, function(a, b)
    if a.elo ~= b.elo then return a.elo > b.elo end
    if a.score ~= b.score then return a.score > b.score end
    return a.index < b.index
  end)
  for k, b in ipairs(ranked) do b.rank = k end
  local res = {
    format = s.format, variant = s.variant, board = s.rows .. "x" .. s.cols, time = s.time,
    seed = s.seed, games = played, bots = list(ranked), wins = wins, forfeits = forfeits,
    elo_prior = ratings.prior, players = s.players,
  }
  if n == 2 then
    local m = stats.match(wins[1][2], wins[2][1])
    res.match = { name = s.players[1].name, opponent = s.players[2].name, wins = m.wins,
                  losses = m.losses, elo = m.elo, elo_error = m.error, los = m.los }
  end
  return res
end

-- The SPRT decision on the games in schedule order: the first game after which the LLR crosses
-- a bound decides; later games are not counted (so the outcome does not depend on which games
-- happened to finish first). Returns the state and the set of counted ids.
local function sprt_state(s, games, results)
  local t = stats.sprt(s.sprt)
  local w, l, last = 0, 0, 0
  local status
  for id = 1, #games do
    local r = results[id]
    if not r then break end
    local g = games[id]
    local winner = r.winner == "black" and g.black or g.white
    if winner == 1 then w = w + 1 else l = l + 1 end
    last = id
    status = t.status(w, l)
    if status then break end
  end
  return {
    elo0 = t.elo0, elo1 = t.elo1, alpha = t.alpha, beta = t.beta, lower = t.lower, upper = t.upper,
    llr = t.llr(w, l), wins = w, losses = l, games = last,
    status = status or (last == #games and "inconclusive" or "running"),
  }
end

local function fmt_elo(v)
  if v == math.huge then return "+inf" end
  if v == -math.huge then return "-inf" end
  return string.format("%+.1f", v)
end

local function pad(s, w, right)
  s = tostring(s)
  local len = utf8.len(s) or #s
  if len >= w then return s end
  return right and (string.rep(" ", w - len) .. s) or (s .. string.rep(" ", w - len))
end

-- M.report(results) -> text: standings with Elo and error bars, crosstable, LOS and SPRT.
function M.report(res)
  local out = {}
  local function add(line) out[#out + 1] = line end
  local n = #res.bots
  local width = 4
  for _, b in ipairs(res.bots) do width = math.max(width, utf8.len(b.name) or #b.name) end
  add(pad("Rank", 5) .. pad("Bot", width + 2) .. pad("Games", 7, true) .. pad("Wins", 7, true) ..
      pad("Losses", 8, true) .. pad("Score", 8, true) .. pad("Elo", 9, true) .. pad("+-95%", 8, true))
  for _, b in ipairs(res.bots) do
    local err = b.elo_error and string.format("%.1f", b.elo_error) or "-"
    add(pad(b.rank, 4, true) .. " " .. pad(b.name, width + 2) .. pad(b.games, 7, true) ..
        pad(b.wins, 7, true) .. pad(b.losses, 8, true) ..
        pad(string.format("%.1f%%", 100 * b.score), 8, true) .. pad(fmt_elo(b.elo), 9, true) ..
        pad(err, 8, true))
  end
  if res.elo_prior then
    add("(a perfect score has no finite maximum-likelihood Elo: every pair that met counts one")
    add(" virtual game split half a win each way)")
  end
  local by_index = {}
  for _, b in ipairs(res.bots) do by_index[b.index] = b end
  if n > 2 then
    -- columns are numbered by rank, so long bot names do not widen the table
    local cw = 7
    for _, a in ipairs(res.bots) do
      for _, b in ipairs(res.bots) do
        if a ~= b then
          cw = math.max(cw, #(res.wins[a.index][b.index] .. "-" .. res.wins[b.index][a.index]) + 2)
        end
      end
    end
    local head = pad("", width + 6)
    for _, b in ipairs(res.bots) do head = head .. pad(b.rank, cw, true) end
    local function table_of(title, cell)
      add("")
      add(title)
      add(head)
      for _, a in ipairs(res.bots) do
        local line = pad(a.rank, 4, true) .. "  " .. pad(a.name, width)
        for _, b in ipairs(res.bots) do line = line .. pad(a == b and "-" or cell(a, b), cw, true) end
        add(line)
      end
    end
    table_of("Crosstable (wins-losses of the row against the column):", function(a, b)
      local w, l = res.wins[a.index][b.index], res.wins[b.index][a.index]
      return (w + l > 0) and (w .. "-" .. l) or "."
    end)
    table_of("Likelihood of superiority (row stronger than column, from their games):", function(a, b)
      local v = a.los[b.name]
      return v and string.format("%.1f%%", 100 * v) or "."
    end)
  end
  if res.match then
    local m = res.match
    add("")
    local diff
    if m.elo_error then
      diff = string.format("Elo difference %s +- %.1f", fmt_elo(m.elo), m.elo_error)
    elseif m.wins + m.losses > 0 then
      diff = string.format("Elo difference %s (one side won every game: no finite estimate)", fmt_elo(m.elo))
    else
      diff = "no games"
    end
    add(string.format("%s vs %s: %d - %d, %s, LOS %.1f%%", m.name, m.opponent, m.wins, m.losses,
      diff, 100 * m.los))
  end
  if res.sprt then
    local t = res.sprt
    local verdict = ({ H1 = "H1 accepted", H0 = "H0 accepted", inconclusive = "inconclusive (no games left)",
                       running = "not decided yet" })[t.status]
    add(string.format("SPRT (elo0=%g, elo1=%g, alpha=%g, beta=%g): LLR %.3f, bounds [%.3f, %.3f] after %d games: %s",
      t.elo0, t.elo1, t.alpha, t.beta, t.llr, t.lower, t.upper, t.games, verdict))
    if (t.uncounted or 0) > 0 then
      add(string.format("(%d game%s finished after the decision and %s not counted)", t.uncounted,
        t.uncounted == 1 and "" or "s", t.uncounted == 1 and "is" or "are"))
    end
  end
  local fk = {}
  for k in pairs(res.forfeits or {}) do fk[#fk + 1] = k end
  table.sort(fk)
  if #fk > 0 then
    local parts = {}
    for _, k in ipairs(fk) do parts[#parts + 1] = k .. " " .. res.forfeits[k] end
    add("")
    add("Games not ended by the rules: " .. table.concat(parts, ", "))
  end
  if res.byes and next(res.byes) then
    local parts = {}
    for r, i in pairs(res.bye_rounds or {}) do parts[#parts + 1] = { r, i } end
    table.sort(parts, function(a, b) return a[1] < b[1] end)
    local txt = {}
    for _, p in ipairs(parts) do txt[#txt + 1] = "round " .. p[1] .. ": " .. res.players[p[2]].name end
    add("Byes (half the points of an encounter): " .. table.concat(txt, ", "))
  end
  return table.concat(out, "\n") .. "\n"
end

-- The JSON document of DIR/results.json.
function M.results_json(res)
  local bots = {}
  for k, b in ipairs(res.bots) do
    bots[k] = { name = b.name, spec = b.spec, rank = b.rank, games = b.games, wins = b.wins,
                losses = b.losses, score = b.score, points = b.points, elo = b.elo,
                elo_error = b.elo_error, los = b.los }
  end
  local cross = {}
  for _, a in ipairs(res.bots) do
    local row = {}
    for _, b in ipairs(res.bots) do
      if a ~= b and res.wins[a.index][b.index] + res.wins[b.index][a.index] > 0 then
        row[b.name] = { wins = res.wins[a.index][b.index], losses = res.wins[b.index][a.index] }
      end
    end
    cross[a.name] = row
  end
  local doc = {
    format = res.format, variant = res.variant, board = res.board, time = res.time, seed = res.seed,
    games = res.games, scheduled = res.scheduled, complete = res.complete, bots = list(bots),
    crosstable = cross, forfeits = res.forfeits, elo_prior = res.elo_prior, sprt = res.sprt,
    match = res.match, shard = res.shard and (res.shard[1] .. "/" .. res.shard[2]) or nil,
  }
  return json(doc) .. "\n"
end

-- ---------------------------------------------------------------------------------------------
-- Worker processes

-- The command that runs the worker: this Lua interpreter (the konane host, or lua5.4 with the
-- module) and lua/konane/tournament_worker.lua, found on package.path.
local function worker_command()
  local c = core()
  local exe = c.exe_path and c.exe_path()
  if not exe then
    local lo = 0
    while _G.arg and _G.arg[lo - 1] do lo = lo - 1 end
    exe = _G.arg and _G.arg[lo] or "konane"
  end
  local script = package.searchpath("konane.tournament_worker", package.path)
  if not script then error("cannot find konane/tournament_worker.lua on package.path", 0) end
  return exe, script
end

-- Protocol lines start with "@@konane <nonce> ": the nonce comes through the worker's stdin and
-- never reaches the bots (sandboxed, they cannot read the worker's variables), so a bot printing
-- to stderr, which shares the pipe, cannot forge a move or a record.
local MARK = "@@konane "

-- Feeds 'chunk' of a worker's output to its parser state 'w' (buf, need, mark, moves, other).
-- Returns the records completed by this chunk; sets w.ready and w.started (game number).
local function worker_consume(w, chunk)
  w.buf = w.buf .. chunk
  local records = {}
  while true do
    if w.need then
      if #w.buf < w.need then break end
      records[#records + 1] = w.buf:sub(1, w.need)
      w.buf = w.buf:sub(w.need + 1)
      w.need = nil
    else
      local a = w.buf:find("\n", 1, true)
      if not a then
        if #w.buf > 65536 then -- a bot printing without end: keep the tail only
          w.other = (w.other .. w.buf):sub(-2000)
          w.buf = ""
        end
        break
      end
      local line = w.buf:sub(1, a - 1)
      w.buf = w.buf:sub(a + 1)
      if line:sub(1, #w.mark) == w.mark then
        local what, rest = line:sub(#w.mark + 1):match("^(%S+)%s*(.*)$")
        if what == "ready" then w.ready = true
        elseif what == "start" then w.started, w.moves = tonumber(rest), {}
        elseif what == "move" then w.moves[#w.moves + 1] = rest
        elseif what == "record" then w.need = tonumber(rest) or 0 end
      else
        w.other = (w.other .. line .. "\n"):sub(-2000)
      end
    end
  end
  return records
end

-- The record of a game whose worker died or hung: the side to move loses.
local function forfeit_record(s, g, moves, termination, reason)
  local konane_ = konane()
  local opts = play_options(s, g)
  local game = konane_.new { variant = opts.variant, rows = opts.rows, cols = opts.cols, fen = opts.fen }
  local record = { tags = {}, variant = game:variant(), rows = game:rows(), cols = game:cols(),
                   moves = {}, comments = {} }
  if opts.fen then record.fen = game:start_fen() end
  for _, m in ipairs(moves) do
    local c = game:legal(m)
    if not c then break end
    game:play(c)
    record.moves[#record.moves + 1] = c
  end
  local side = game:turn()
  record.winner = side == "black" and "white" or "black"
  record.result = record.winner == "black" and "1-0" or "0-1"
  record.termination, record.reason = termination, side .. ": " .. reason
  record.black, record.white = s.players[g.black].name, s.players[g.white].name
  record.tags.Event = s.event
  record.tags.Date = os.date("!%Y.%m.%d")
  for k, v in pairs(opts.tags) do record.tags[k] = tostring(v) end
  return require("konane.pgn").write(record)
end

-- The worker's side (lua/konane/tournament_worker.lua): reads from stdin its nonce, the
-- settings ("settings LEN" and a Lua table), then games ("game LEN" and a table) until end of
-- file; for each prints "start ID", a line per move, and "record LEN" with the PGN record.
function M.worker_main()
  local nonce = io.read("l")
  if not nonce then return end
  local mark = MARK .. nonce .. " "
  local function read_block(kind)
    local hdr = io.read("l")
    if not hdr then return nil end
    local len = tonumber(hdr:match("^" .. kind .. " (%d+)$"))
    if not len then error("tournament worker: unexpected input '" .. hdr:sub(1, 60) .. "'", 0) end
    local text = io.read(len) or ""
    return assert(deserialize(text, kind))
  end
  local out = io.stdout
  out:setvbuf("full")
  local s = read_block("settings")
  if not s then return end
  out:write(mark, "ready\n")
  out:flush()
  while true do
    local g = read_block("game")
    if not g then break end
    out:write(mark, "start ", g.id, "\n")
    out:flush()
    local opts = play_options(s, g)
    opts.on_move = function(_, move)
      out:write(mark, "move ", move, "\n")
      out:flush()
    end
    local record = konane().play(make_bot(s.players[g.black]), make_bot(s.players[g.white]), opts)
    record.black, record.white = s.players[g.black].name, s.players[g.white].name
    local text = require("konane.pgn").write(record)
    out:write(mark, "record ", #text, "\n", text)
    out:flush()
  end
end

-- ---------------------------------------------------------------------------------------------
-- Progress

local function clock_now()
  local c = core()
  return c.clock and c.clock() or os.clock()
end

local function fmt_duration(sec)
  if sec ~= sec or sec == math.huge then return "?" end
  sec = math.floor(sec + 0.5)
  local h, m, x = sec // 3600, sec // 60 % 60, sec % 60
  if h > 0 then return string.format("%d:%02d:%02d", h, m, x) end
  return string.format("%d:%02d", m, x)
end

-- The default progress display: one line on stderr, redrawn in place, only on a terminal.
local function terminal_progress()
  local c = core()
  if not (c.isatty and c.isatty(2)) then return nil end
  local shown = false
  return function(p)
    if p.done_all then
      if shown then io.stderr:write("\r\27[K") io.stderr:flush() end
      return
    end
    -- never wider than the terminal: a wrapped line could not be redrawn in place
    local cols = (c.term_columns and c.term_columns(2)) or tonumber(os.getenv("COLUMNS")) or 80
    local line = string.format("%d/%d games  %.1f games/s  ETA %s  %s", p.done, p.total,
      p.rate, fmt_duration(p.eta), p.leader and (p.leader:find("^LLR") and p.leader or ("leader: " .. p.leader)) or "")
    if #line > cols - 1 then line = line:sub(1, cols - 1) end
    io.stderr:write("\r" .. line .. "\27[K")
    io.stderr:flush()
    shown = true
  end
end
M.terminal_progress = terminal_progress

-- ---------------------------------------------------------------------------------------------
-- Running a tournament

local Tournament = {}
Tournament.__index = Tournament

-- M.new(settings) -> tournament. Settings (all optional except bots):
--   bots     list of bot specs ("greedy", "alphabeta:depth=4", "path/bot.lua") or bot tables
--   format   "roundrobin" (default), "gauntlet" (the first bot against each other) or "swiss"
--   games    games per pairing and cycle (even, default 2: one opening, both colours; with
--            sprt, the most games of the match, default 1000)
--   rounds   round robin / gauntlet: times the schedule repeats (default 1); Swiss: rounds
--            (default ceil(log2(#bots)))
--   variant, rows, cols   the board (default: the variant's)
--   time     seconds per move (default 1)
--   openings nil (every pair of removals), "random:K" (K random plies per opening), a file
--            path, or a list of move strings
--   workers  games played at once in separate processes (default 1: in this process)
--   seed     the tournament seed (default 1)
--   out      directory for tournament.cfg, games.pgn and results.json (nil: no files)
--   resume   continue the tournament saved in 'out'
--   sprt     {elo0=, elo1=, alpha=, beta=}: a two-bot match stopped by the SPRT
--   shard    {I, N}: play only the I-th of N parts of the schedule
--   progress function(p) called after each game, or false; default: a line on a terminal
--   on_game  function(game, summary, text) called after each game
--   log      function(message) for warnings (default: stderr)
function M.new(o)
  local s
  if o.resume then
    if not o.out then error("resume needs the tournament directory (out)", 0) end
    local text = read_file(o.out .. "/" .. M.CONFIG_FILE)
    if not text then error(o.out .. " holds no tournament to resume (no " .. M.CONFIG_FILE .. ")", 0) end
    local cfg, err = deserialize(text, o.out .. "/" .. M.CONFIG_FILE)
    if not cfg then error("cannot read " .. o.out .. "/" .. M.CONFIG_FILE .. ": " .. tostring(err), 0) end
    -- settings given again must agree with the saved ones
    local given = {}
    for k, v in pairs(o) do given[k] = v end
    local merged = { bots = {} }
    for _, k in ipairs(SAVED) do merged[k] = cfg[k] end
    for i, b in ipairs(cfg.bots) do merged.bots[i] = b.spec and b.spec or b.name end
    for i, b in ipairs(cfg.bots) do
      if b.spec ~= b.name then merged.bots[i] = { spec = b.spec, label = b.name } end
    end
    for _, k in ipairs { "format", "games", "rounds", "variant", "rows", "cols", "time", "seed" } do
      if given[k] ~= nil and given[k] ~= cfg[k] then
        error(string.format("%s %s differs from the saved tournament (%s) in %s", k, tostring(given[k]),
          tostring(cfg[k]), o.out), 0)
      end
    end
    if given.openings ~= nil then
      error("the openings are saved with the tournament in " .. o.out .. ": drop the openings when resuming", 0)
    end
    local function same_table(a, b)
      return serialize(a) == serialize(b)
    end
    if given.shard ~= nil and not same_table(given.shard, cfg.shard) then
      error("the shard differs from the saved tournament in " .. o.out, 0)
    end
    if given.sprt ~= nil then
      local ok, t = pcall(stats.sprt, given.sprt)
      local want = ok and { elo0 = t.elo0, elo1 = t.elo1, alpha = t.alpha, beta = t.beta }
      if not want or not same_table(want, cfg.sprt) then
        error("the SPRT settings differ from the saved tournament in " .. o.out, 0)
      end
    end
    if given.bots then
      local same = #given.bots == #cfg.bots
      for i, b in ipairs(given.bots) do
        local spec = type(b) == "table" and (b.spec or b.name) or b
        if not cfg.bots[i] or (spec ~= cfg.bots[i].spec and spec ~= cfg.bots[i].name) then same = false end
        -- bot tables are used as given (they cannot be saved)
        if type(b) == "table" and b.choose then merged.bots[i] = b end
      end
      if not same then error("the bots differ from the saved tournament in " .. o.out, 0) end
    end
    for _, k in ipairs { "workers", "progress", "on_game", "log", "out" } do merged[k] = o[k] end
    merged.resume = true
    local ok, res = pcall(M.settings, merged)
    if not ok then error(res, 0) end
    s = res
    s.openings_list = cfg.openings_list
  else
    s = M.settings(o)
    if s.out and (file_exists(s.out .. "/" .. M.CONFIG_FILE) or file_exists(s.out .. "/" .. M.GAMES_FILE)) then
      error(s.out .. " already holds a tournament: resume it, or choose another directory", 0)
    end
    local cycles = (s.games // 2) * s.rounds
    s.openings_list = resolve_openings(s, cycles)
  end
  local t = setmetatable({ s = s }, Tournament)
  t.log = o.log or function(msg) io.stderr:write(msg, "\n") end
  return t
end

-- The scheduled games known so far (all of them, except for Swiss rounds not yet paired).
function Tournament:schedule()
  local s = self.s
  if self.games then return self.games end
  if s.format == "swiss" then
    self.games, self.swiss = {}, { byes = {}, bye_rounds = {}, round = 0 }
  else
    self.games = fixed_schedule(s)
  end
  return self.games
end

-- Total number of games this run (or shard) will play when it is not stopped early.
function Tournament:total()
  local s = self.s
  if s.format == "swiss" then return swiss_total(s) end
  local n = 0
  for _, g in ipairs(self:schedule()) do if M.in_shard(s, g) then n = n + 1 end end
  return n
end

local function summary_of_text(s, text, g)
  local r, why = check_record(s, text, g)
  if not r then error("internal error: the record of game " .. g.id .. " is invalid: " .. why, 0) end
  return r
end

-- Runs the tournament (or continues it) and returns the results table (see M.compute) with
-- 'complete' (every scheduled game played), 'interrupted', 'scheduled' and for SPRT 'sprt'.
function Tournament:run()
  local s = self.s
  local games = self:schedule()
  local results, texts = {}, {}
  local journal_path
  if s.out then
    local ok, err = mkdir(s.out)
    if not ok then error(err, 0) end
    journal_path = s.out .. "/" .. M.GAMES_FILE
    -- one process per directory: a second one would play the same games again
    local c = core()
    if c.lock then
      local lf = io.open(s.out .. "/lock", "a")
      if lf then
        local okl = c.lock(lf)
        if not okl then
          lf:close()
          error(s.out .. " is in use by another tournament process", 0)
        end
        self.lock_file = lf -- held until run() returns (or the process ends)
      end
    end
    if not s.resume then
      if file_exists(s.out .. "/" .. M.CONFIG_FILE) or file_exists(journal_path) then
        error(s.out .. " already holds a tournament: resume it, or choose another directory", 0)
      end
      local okw, werr = write_atomic(s.out .. "/" .. M.CONFIG_FILE, serialize(saved_config(s)) .. "\n")
      if not okw then error("cannot write " .. s.out .. "/" .. M.CONFIG_FILE .. ": " .. tostring(werr), 0) end
    end
  end

  -- the games already in the journal (resume)
  local journal_results = {}
  if journal_path and s.resume then
    -- Swiss: a round is paired only once the previous one is known, so the saved records are
    -- checked for integrity now and against the pairings round by round (pair_next_round).
    local swiss = s.format == "swiss"
    local r, tx, warnings = load_journal(s, journal_path, function(id)
      if swiss then
        if id >= 1 and id <= swiss_total(s) then return false end -- checked when paired
        return nil
      end
      return games[id]
    end)
    for _, w in ipairs(warnings) do self.log(w) end
    if swiss then
      self.pending_swiss = tx
    else
      journal_results = r
    end
  end
  -- wins and games per player so far, for the progress line's leader
  local tally = {}
  for i = 1, #s.players do tally[i] = { w = 0, n = 0 } end
  local function count_result(id, r)
    local g = games[id]
    local w = r.winner == "black" and g.black or g.white
    tally[g.black].n, tally[g.white].n = tally[g.black].n + 1, tally[g.white].n + 1
    tally[w].w = tally[w].w + 1
  end
  for id, r in pairs(journal_results) do
    results[id] = r
    count_result(id, r)
  end

  local journal
  local function append(text)
    if not journal_path then return end
    if not journal then
      journal = assert(io.open(journal_path, "ab"))
      sync_dir(journal_path) -- the file's directory entry, once
    end
    journal:write(text)
    journal:flush()
    local c = core()
    if c.fsync then c.fsync(journal) end
  end

  -- Swiss resume: validate the saved records round by round; rewrite the journal when some
  -- record had to be dropped.
  local swiss_dropped = false
  local done = 0 -- games of this run's share of the schedule with a result
  local function pair_next_round()
    local st = self.swiss
    st.round = st.round + 1
    local before = #games
    swiss_round(s, games, results, st.round, st)
    if self.pending_swiss then
      for id = before + 1, #games do
        local text = self.pending_swiss[id]
        if text then
          local r, why = check_record(s, text, games[id])
          if r then
            results[id], texts[id] = r, text
            count_result(id, r)
            done = done + 1
          else
            swiss_dropped = true
            self.log(string.format("%s: dropped the record of game %d: %s", journal_path, id, why))
          end
          self.pending_swiss[id] = nil
        end
      end
    end
  end

  local total = self:total()
  local t0 = clock_now()
  local played_now = 0
  local progress = s.progress
  if progress == nil then progress = terminal_progress() end
  local function done_count()
    local n = 0
    for id in pairs(results) do if M.in_shard(s, games[id]) then n = n + 1 end end
    return n
  end
  done = done_count()
  local last_draw = -math.huge
  local function report_progress()
    if not progress then return end
    local now = clock_now()
    -- at most ten redraws a second, and always the last one
    if now - last_draw < 0.1 and done < total then return end
    last_draw = now
    local elapsed = now - t0
    local rate = elapsed > 0 and played_now / elapsed or 0
    -- the leader by score so far
    local best, best_score
    for i, x in ipairs(tally) do
      local sc = x.n > 0 and x.w / x.n or -1
      if not best_score or sc > best_score then best, best_score = i, sc end
    end
    local remaining = total - done
    local leader = best and best_score >= 0 and string.format("%s %.0f%%", s.players[best].name, 100 * best_score) or nil
    if s.sprt then
      local st = sprt_state(s, games, results)
      leader = string.format("LLR %.2f [%.2f, %.2f]", st.llr, st.lower, st.upper)
    end
    progress {
      done = done, total = total, rate = rate, eta = rate > 0 and remaining / rate or math.huge,
      leader = leader,
    }
  end

  local function finished(g, text)
    local r = summary_of_text(s, text, g)
    results[g.id] = r
    count_result(g.id, r)
    -- the texts are kept only where the journal may have to be rewritten (Swiss)
    if s.format == "swiss" then texts[g.id] = text end
    append(text)
    played_now = played_now + 1
    done = done + 1
    if s.on_game then s.on_game(g, r, text) end
    report_progress()
  end

  local function sprt_decided()
    if not s.sprt then return false end
    local st = sprt_state(s, games, results)
    return st.status == "H0" or st.status == "H1", st
  end

  -- The queue of games still to play, in schedule order.
  local function next_games(from)
    local out = {}
    for id = from, #games do
      local g = games[id]
      if not results[id] and M.in_shard(s, g) then out[#out + 1] = g end
    end
    return out
  end

  local interrupted = false
  -- the worker processes, kept from one Swiss round to the next
  local pool = {}
  local function kill_all()
    for _, w in ipairs(pool) do
      w.proc:kill()
      w.proc:close()
    end
    for k = #pool, 1, -1 do pool[k] = nil end
  end

  local function run_games(queue)
    if s.workers <= 1 then
      for _, g in ipairs(queue) do
        if sprt_decided() then return end
        finished(g, play_here(s, g))
      end
      return
    end
    local exe, script = worker_command()
    local settings_text = serialize {
      players = (function()
        local ps = {}
        for i, p in ipairs(s.players) do ps[i] = { name = p.name, spec = p.spec } end
        return ps
      end)(),
      variant = s.variant, rows = s.rows, cols = s.cols, time = s.time, event = s.event,
      openings_list = s.openings_list,
    }
    local paths = serialize { path = package.path, cpath = package.cpath }
    -- a worker silent this long during a game is hung: the side to move loses on time
    local hang = math.max(30, 3 * s.time + 10)
    local counter = 0

    local function start_worker()
      local proc, err = core().spawn({ exe, script, paths }, { pgroup = true, stdin = true })
      if not proc then error("cannot start a worker: " .. tostring(err), 0) end
      counter = counter + 1
      local addr = tonumber((tostring({}):match("0x(%x+)")), 16) or 0
      local nonce = string.format("%x", mix(os.time() + counter, math.floor(clock_now() * 1e9) ~ addr))
      local w = { proc = proc, buf = "", other = "", mark = MARK .. nonce .. " ", moves = {},
                  last = clock_now() }
      proc:write(nonce .. "\n" .. "settings " .. #settings_text .. "\n" .. settings_text)
      pool[#pool + 1] = w
      return w
    end
    local function drop(w)
      w.proc:kill()
      w.proc:close()
      for k, x in ipairs(pool) do
        if x == w then table.remove(pool, k) break end
      end
    end

    local requeued = {}
    local qi = 1
    while true do
      if sprt_decided() then return end
      -- give a game to every idle worker, starting workers while games are waiting
      local waiting = {}
      while qi <= #queue do
        local g = queue[qi]
        if results[g.id] then
          qi = qi + 1
        elseif s.players[g.black].bot or s.players[g.white].bot then
          qi = qi + 1
          finished(g, play_here(s, g)) -- bot tables only exist in this process
        else
          break
        end
      end
      local busy = 0
      for _, w in ipairs(pool) do if w.game then busy = busy + 1 end end
      local pending = #requeued + (#queue - qi + 1)
      while #pool < s.workers and #pool < busy + pending do start_worker() end
      for _, w in ipairs(pool) do
        if not w.game and w.ready then
          local g = table.remove(requeued, 1)
          if not g and qi <= #queue then
            g = queue[qi]
            qi = qi + 1
          end
          if g and not results[g.id] then
            local text = serialize(g)
            w.game, w.started, w.moves, w.last = g, nil, {}, clock_now()
            w.proc:write("game " .. #text .. "\n" .. text) -- a dead worker shows at EOF below
          end
        end
        waiting[#waiting + 1] = w.proc
      end
      busy = 0
      for _, w in ipairs(pool) do if w.game then busy = busy + 1 end end
      if busy == 0 and #requeued == 0 and qi > #queue then return end
      core().poll(waiting, 0.25)
      local now = clock_now()
      for _, w in ipairs({ table.unpack(pool) }) do
        local chunk = w.proc:read()
        if chunk and #chunk > 0 then
          w.last = now
          for _, text in ipairs(worker_consume(w, chunk)) do
            local g = w.game
            w.game = nil
            if g and w.started == g.id then finished(g, text) end
          end
        end
        if chunk == nil then
          -- end of output: the worker process is gone
          local how, code = w.proc:wait(true)
          local why = how == "signal" and ("the worker process was killed by signal " .. tostring(code))
            or ("the worker process exited with status " .. tostring(code))
          local tail = w.other:gsub("%s+$", "")
          drop(w)
          if not w.ready then
            error("a worker failed before playing (" .. why .. ")" .. (tail ~= "" and (":\n" .. tail) or ""), 0)
          end
          local g = w.game
          if g and w.started == g.id then
            if tail ~= "" then why = why .. ": " .. tail:sub(-300):gsub("\n", " ") end
            finished(g, forfeit_record(s, g, w.moves, "error", why))
          elseif g then
            -- died between two games: the game never started, play it elsewhere (once)
            g.retries = (g.retries or 0) + 1
            if g.retries > 2 then error("workers keep dying before game " .. g.id .. " starts: " .. why, 0) end
            requeued[#requeued + 1] = g
          end
        elseif w.game and now - w.last > hang then
          local g = w.game
          drop(w)
          finished(g, forfeit_record(s, g, w.moves, "time forfeit",
            string.format("no move for %.0f s: the worker was stopped", now - w.last)))
        end
      end
    end
  end

  local ok, err = pcall(function()
    report_progress()
    if s.format == "swiss" then
      while self.swiss.round < s.rounds do
        pair_next_round()
        local first = #games - (#s.players // 2) * s.games + 1
        run_games(next_games(first))
      end
      if swiss_dropped or (self.pending_swiss and next(self.pending_swiss)) then
        -- rewrite the journal with the valid records only
        local ids = {}
        for id in pairs(texts) do ids[#ids + 1] = id end
        table.sort(ids)
        local parts = {}
        for _, id in ipairs(ids) do parts[#parts + 1] = texts[id] end
        if journal then journal:close() journal = nil end
        write_atomic(journal_path, table.concat(parts))
      end
    else
      run_games(next_games(1))
    end
  end)
  kill_all()
  if journal then journal:close() end
  if progress then progress { done_all = true } end
  if not ok then
    if tostring(err):find("interrupted!", 1, true) then
      interrupted = true
    else
      if self.lock_file then
        self.lock_file:close()
        self.lock_file = nil
      end
      error(err, 0)
    end
  end

  -- results: SPRT counts the decided prefix only
  local counted = results
  local sprt
  if s.sprt then
    sprt = sprt_state(s, games, results)
    counted = {}
    for id = 1, sprt.games do counted[id] = results[id] end
    local extra = 0
    for id in pairs(results) do if id > sprt.games then extra = extra + 1 end end
    sprt.uncounted = extra
  end
  local res = M.compute(s, games, counted, self.swiss)
  res.sprt = sprt
  res.scheduled = total
  res.shard = s.shard and s.shard[2] > 1 and s.shard or nil
  res.interrupted = interrupted
  res.complete = not interrupted and (done_count() >= total or (sprt and (sprt.status == "H0" or sprt.status == "H1")) or false)
  if self.swiss then res.byes, res.bye_rounds = self.swiss.byes, self.swiss.bye_rounds end
  res.out = s.out
  if s.out then
    write_atomic(s.out .. "/" .. M.RESULTS_FILE, M.results_json(res))
  end
  if self.lock_file then
    self.lock_file:close()
    self.lock_file = nil
  end
  return res
end

-- M.run(settings) -> results: new + run.
function M.run(o)
  return M.new(o):run()
end

-- M.merge(dirs, out) -> results: the union of the games of several shard directories of one
-- tournament (same settings apart from the shard). Games present in several directories count
-- once. 'out' (optional) receives the merged games.pgn, tournament.cfg and results.json.
function M.merge(dirs, out, log)
  log = log or function(msg) io.stderr:write(msg, "\n") end
  if #dirs == 0 then error("merge needs at least one tournament directory", 0) end
  local base, s, games
  local results, texts = {}, {}
  local shards = {}
  for _, dir in ipairs(dirs) do
    local text = read_file(dir .. "/" .. M.CONFIG_FILE)
    if not text then error(dir .. " holds no tournament (no " .. M.CONFIG_FILE .. ")", 0) end
    local cfg, err = deserialize(text, dir .. "/" .. M.CONFIG_FILE)
    if not cfg then error("cannot read " .. dir .. "/" .. M.CONFIG_FILE .. ": " .. tostring(err), 0) end
    local key = serialize { cfg.format, cfg.games, cfg.rounds, cfg.variant, cfg.rows, cfg.cols,
                            cfg.time, cfg.seed, cfg.sprt, cfg.bots, cfg.openings_list }
    if not base then
      base = key
      local bots = {}
      for i, b in ipairs(cfg.bots) do bots[i] = b.spec ~= b.name and { spec = b.spec, label = b.name } or b.spec or b.name end
      if cfg.format == "swiss" then error("Swiss tournaments cannot be merged (they are never sharded)", 0) end
      s = M.settings { bots = bots, format = cfg.format, games = cfg.games, rounds = cfg.rounds,
                       variant = cfg.variant, rows = cfg.rows, cols = cfg.cols, time = cfg.time,
                       seed = cfg.seed, sprt = cfg.sprt, event = cfg.event }
      s.openings_list = cfg.openings_list
      games = fixed_schedule(s)
    elseif key ~= base then
      error(dir .. " is not a shard of the same tournament as " .. dirs[1] .. " (different settings)", 0)
    end
    if cfg.shard then shards[#shards + 1] = cfg.shard[1] .. "/" .. cfg.shard[2] end
    local jt = read_file(dir .. "/" .. M.GAMES_FILE) or ""
    for _, chunk in ipairs(split_records(jt)) do
      local id = math.tointeger(tonumber(chunk.text:match('\n%[Game "(%d+)"%]')))
      local r, why = check_record(s, chunk.text, id and games[id])
      if r then
        if not results[id] then results[id], texts[id] = r, chunk.text end
      else
        log(string.format("%s/%s:%d: skipped a record: %s", dir, M.GAMES_FILE,
          line_of(jt, chunk.first), why))
      end
    end
  end
  local counted, sprt = results, nil
  if s.sprt then
    sprt = sprt_state(s, games, results)
    counted = {}
    for id = 1, sprt.games do counted[id] = results[id] end
  end
  local res = M.compute(s, games, counted)
  res.sprt = sprt
  res.scheduled = #games
  local n = 0
  for _ in pairs(results) do n = n + 1 end
  res.complete = n >= #games
  res.missing = #games - n
  res.merged = dirs
  if out then
    local ok, err = mkdir(out)
    if not ok then error(err, 0) end
    local ids = {}
    for id in pairs(texts) do ids[#ids + 1] = id end
    table.sort(ids)
    local parts = {}
    for _, id in ipairs(ids) do parts[#parts + 1] = texts[id] end
    local cfg = saved_config(s)
    cfg.shard = nil
    write_atomic(out .. "/" .. M.CONFIG_FILE, serialize(cfg) .. "\n")
    write_atomic(out .. "/" .. M.GAMES_FILE, table.concat(parts))
    write_atomic(out .. "/" .. M.RESULTS_FILE, M.results_json(res))
  end
  return res
end

return M
