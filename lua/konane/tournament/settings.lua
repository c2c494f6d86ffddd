-- konane.tournament.settings: checks the user's settings and completes them with defaults.
--
-- settings.check(o) -> s raises a plain message (no "file:line:" in front) for any bad value
-- or unknown key; the command line turns those into exit status 2. The checked settings hold
-- s.players: {name =, spec =, bot = <bot table or nil>} per bot, names unique (they name the
-- bots in the records).

local stats = require("konane.stats")
local util = require("konane.util")

local M = {}

M.FORMATS = { roundrobin = true, gauntlet = true, swiss = true }

-- The longest bot name and spec, in bytes: tournament.cfg takes back no more (konane.tournament.cfg),
-- so a longer one is refused at the start, not at the first --resume or --merge.
M.NAME_MAX = 4096
M.EVENT = "konane tournament"

-- Bounds that keep a mistyped value from failing late (or filling the memory): a schedule of
-- more games than a machine could play in a year, a move time of 1e308 s.
M.MAX_GAMES, M.MAX_ROUNDS, M.MAX_WORKERS, M.MAX_TIME = 1000000, 10000, 256, 1e6

local DEFAULTS = { format = "roundrobin", games = 2, time = 1, seed = 1, workers = 1 }

-- Every key a settings table may have.
M.KEYS = { "bots", "format", "games", "rounds", "variant", "rows", "cols", "time", "tc", "margin", "openings",
           "workers", "seed", "out", "resume", "sprt", "shard", "progress", "on_game", "log",
           "event", "hang", "startup" }
local KNOWN = {}
for _, k in ipairs(M.KEYS) do KNOWN[k] = true end

-- The part of the settings that defines the games (saved in tournament.cfg).
M.SAVED = { "format", "games", "rounds", "variant", "rows", "cols", "time", "tc", "margin", "seed", "sprt",
            "shard", "event" }

-- An error message without the "file.lua:12: " of its raiser.
function M.clean(msg)
  return (tostring(msg):gsub("^[^\n:]-%.lua:%d+: ", ""))
end

-- Raises "unknown option 'k'" for a key of 'o' not in 'known' (a set), naming the close ones.
function M.check_keys(o, known, what)
  for k in pairs(o) do
    if not known[k] then
      local names = {}
      for name in pairs(known) do names[#names + 1] = name end
      table.sort(names)
      error(string.format("unknown option '%s' in %s (known: %s)", tostring(k), what,
        table.concat(names, ", ")), 0)
    end
  end
end

local function posint(k, v, max)
  if math.type(v) ~= "integer" or v < 1 then
    error(k .. " must be a positive integer (got " .. tostring(v) .. ")", 0)
  end
  if max and v > max then error(k .. " must be at most " .. max .. " (got " .. v .. ")", 0) end
end

-- The name a bot spec goes by in the records and the tables: the spec itself for a built-in
-- bot ("alphabeta:depth=4"), without the directories of a file or a program ("mybot:depth=3",
-- "ugi:python3 engine.py"), so no host path reaches a record.
function M.display_name(spec)
  local rest = spec:match("^ugi:(.*)$")
  if rest then
    return "ugi:" .. rest:gsub("[^%s]+", function(w) return w:match("([^/\\]+)[/\\]*$") or w end)
  end
  local ok, head, _, is_path = pcall(require("konane.bot").parse_spec, spec)
  if ok and is_path and spec:sub(1, #head) == head then
    local base = (head:match("([^/\\]+)$") or head):gsub("%.lua$", "")
    return base .. spec:sub(#head + 1)
  end
  return spec
end

-- Can 'prog' (an engine command's first word) be run: a path to an existing file, or a name
-- found along PATH (as execvp looks for it)? True when PATH is unset: execvp's default applies.
local function runnable(prog)
  local exists = require("konane.tournament.files").exists
  if prog:find("/", 1, true) then return exists(prog) end
  local path = os.getenv("PATH")
  if not path or path == "" then return true end
  for dir in (path .. ":"):gmatch("([^:]*):") do
    if exists((dir == "" and "." or dir) .. "/" .. prog) then return true end
  end
  return false
end

-- The players: labels must be unique (they name the bots in the records).
local function players_of(bots)
  local players, seen = {}, {}
  for i, b in ipairs(bots) do
    local p = {}
    if type(b) == "string" then
      p.spec, p.name = b, M.display_name(b)
      -- a bot file is read and compiled now (no process starts): a missing or broken file is
      -- the caller's mistake, not a forfeit in every game
      local okp, _, _, is_path = pcall(require("konane.bot").parse_spec, b)
      if okp and is_path and not b:match("^ugi:") then
        local ok, err = pcall(require("konane").bot, b)
        if not ok then error("bot " .. i .. ": " .. M.clean(err), 0) end
      elseif b:match("^ugi:") then
        -- so is an engine whose program does not exist (every game a handshake failure)
        local ok, argv = pcall(require("konane.ugi.player").command, b:sub(5))
        if not ok then error("bot " .. i .. ": " .. M.clean(argv), 0) end
        if not argv[1] then error("bot " .. i .. ": '" .. b .. "' names no command", 0) end
        if not runnable(argv[1]) then
          error(("bot %d: %s: cannot run '%s': no such %s"):format(i, b, argv[1],
            argv[1]:find("/", 1, true) and "file" or "program on PATH"), 0)
        end
      end
    elseif type(b) == "table" and (b.choose or b.spec) then
      p.spec = b.spec
      p.name = b.label or b.name or b.spec
      if b.choose then p.bot = b end
    else
      error("bot " .. i .. ": a spec string or a bot table expected", 0)
    end
    -- names reach records, JSON files, pages and terminals: no raw control byte, valid UTF-8
    p.name = util.printable(p.name or ("bot" .. i))
    local base, k = p.name, 1
    while seen[p.name] do
      k = k + 1
      p.name = base .. "#" .. k
    end
    if #p.name > M.NAME_MAX or (p.spec and #p.spec > M.NAME_MAX) then
      error(("bot %d: its %s is longer than %d bytes"):format(i,
        #p.name > M.NAME_MAX and "name" or "spec", M.NAME_MAX), 0)
    end
    seen[p.name] = true
    players[i] = p
  end
  return players
end

-- parse_tc("60+0.5") -> 60, 0.5: a chess clock, base seconds plus an increment per move
-- (konane.play's format); raises on anything else or a base over MAX_TIME.
function M.parse_tc(tc)
  if type(tc) ~= "string" then error("tc must be a string like \"60+0.5\" (got " .. tostring(tc) .. ")", 0) end
  local base, inc = require("konane.play").parse_tc(tc)
  if base > M.MAX_TIME or inc > M.MAX_TIME then
    error(string.format("tc: at most %.0f seconds (got '%s')", M.MAX_TIME, tc), 0)
  end
  return base, inc
end

-- longest_move(s) -> the most seconds one move may take under the settings' clocks (with the
-- margin).
function M.longest_move(s)
  local t = s.time or math.huge
  if s.tc_base then t = math.min(t, s.tc_base + s.tc_inc) end
  return t + (s.margin or 0)
end

-- check_margin(v) raises unless 'v' is a margin: seconds tolerated past a move's limit.
function M.check_margin(v)
  if type(v) ~= "number" or not (v >= 0) or v > M.MAX_TIME then
    error(string.format("margin must be a number of seconds from 0 to %.0f (got %s)", M.MAX_TIME,
      tostring(v)), 0)
  end
end

-- check(o) -> s: the user's settings checked and completed.
function M.check(o)
  if type(o) ~= "table" then error("tournament settings must be a table", 0) end
  M.check_keys(o, KNOWN, "the tournament settings")
  local s = {}
  for k, v in pairs(o) do s[k] = v end
  if s.sprt and s.games == nil then s.games = 1000 end -- the most an SPRT match may take
  for k, v in pairs(DEFAULTS) do
    -- with a chess clock (tc) there is no time per move unless one is given
    if s[k] == nil and not (k == "time" and s.tc ~= nil) then s[k] = v end
  end
  if not M.FORMATS[s.format] then
    error("format must be roundrobin, gauntlet or swiss (got '" .. tostring(s.format) .. "')", 0)
  end
  if type(s.bots) ~= "table" or #s.bots < 2 then error("a tournament needs at least two bots", 0) end
  posint("games", s.games, M.MAX_GAMES)
  if s.games % 2 == 1 then
    error("games must be even: every opening is played twice, colours swapped (got " .. s.games .. ")", 0)
  end
  posint("workers", s.workers, M.MAX_WORKERS)
  if math.type(s.seed) ~= "integer" then error("seed must be an integer (got " .. tostring(s.seed) .. ")", 0) end
  if s.time ~= nil and (type(s.time) ~= "number" or not (s.time > 0) or s.time > M.MAX_TIME) then
    error(string.format("time must be a positive number of seconds per move, at most %.0f (got %s)",
      M.MAX_TIME, tostring(s.time)), 0)
  end
  if s.tc ~= nil then
    local ok, base, inc = pcall(M.parse_tc, s.tc)
    if not ok then error(M.clean(base), 0) end
    s.tc_base, s.tc_inc = base, inc
  end
  if s.margin ~= nil then M.check_margin(s.margin) end
  if s.hang ~= nil and (type(s.hang) ~= "number" or not (s.hang > 0) or s.hang > M.MAX_TIME) then
    error("hang must be a positive number of seconds (got " .. tostring(s.hang) .. ")", 0)
  end
  if s.startup ~= nil and (type(s.startup) ~= "number" or not (s.startup > 0) or s.startup > M.MAX_TIME) then
    error(string.format("startup must be a positive number of seconds, at most %.0f (got %s)", M.MAX_TIME,
      tostring(s.startup)), 0)
  end
  if type(s.event) == "string" then s.event = util.printable(s.event) end
  if s.event ~= nil and (type(s.event) ~= "string" or #s.event > 200) then
    error("event must be a string of at most 200 bytes", 0)
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
  posint("rounds", s.rounds, M.MAX_ROUNDS)
  if s.sprt then
    if #s.bots ~= 2 then error("an SPRT match needs exactly two bots (got " .. #s.bots .. ")", 0) end
    if s.format == "swiss" then error("an SPRT match cannot be a Swiss tournament", 0) end
    local ok, t = pcall(stats.sprt, s.sprt)
    if not ok then error(M.clean(t), 0) end
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
  s.players = players_of(s.bots)
  local pairs_per_cycle = s.format == "gauntlet" and #s.players - 1 or #s.players * (#s.players - 1) // 2
  if pairs_per_cycle * s.games * s.rounds > 10 * M.MAX_GAMES then
    error(string.format("the schedule would hold %d games: more than %d", pairs_per_cycle * s.games *
      s.rounds, 10 * M.MAX_GAMES), 0)
  end
  -- the board: variant defaults, then the size
  local ok, g = pcall(require("konane").new, { variant = s.variant, rows = s.rows, cols = s.cols })
  if not ok then error(M.clean(g), 0) end
  s.variant, s.rows, s.cols = g:variant(), g:rows(), g:cols()
  s.event = s.event or M.EVENT
  return s
end

-- The settings that define the games, as saved in tournament.cfg (see konane.tournament.cfg).
function M.saved(s)
  local c = { bots = {} }
  for _, k in ipairs(M.SAVED) do c[k] = s[k] end
  for i, p in ipairs(s.players) do c.bots[i] = { name = p.name, spec = p.spec } end
  c.openings = s.openings_list
  return c
end

-- digest(s) -> 16 hex digits: a fingerprint of the settings a game's moves depend on (variant,
-- board, time per move, clock, margin, each bot's spec). Every record carries it (tag Settings),
-- so a hand-edited tournament.cfg that changes one of them no longer matches the games already
-- played. FNV-1a over the settings' JSON; Lua's integers wrap, as FNV's 64-bit product needs.
function M.digest(s)
  if s.digest_cache then return s.digest_cache end
  local specs = {}
  for i, p in ipairs(s.players) do specs[i] = p.spec or false end
  local text = require("konane.tournament.json").encode({ s.variant, s.rows or false, s.cols or false,
    s.time or false, s.tc or false, s.margin or 0, specs }, { exact = true, compact = true })
  local h = -3750763034362895579 -- 0xcbf29ce484222325, FNV's offset basis
  for i = 1, #text do h = (h ~ text:byte(i)) * 1099511628211 end
  s.digest_cache = string.format("%016x", h)
  return s.digest_cache
end

-- from_saved(cfg, o, where) -> s: the settings of a saved tournament, with the run options of
-- 'o' (workers, progress, callbacks, bot tables). A setting given again in 'o' must agree with
-- the saved one.
function M.from_saved(cfg, o, where)
  local merged = { bots = {} }
  for _, k in ipairs(M.SAVED) do merged[k] = cfg[k] end
  for i, b in ipairs(cfg.bots) do
    merged.bots[i] = { spec = b.spec, label = b.name }
  end
  for _, k in ipairs { "format", "games", "rounds", "variant", "rows", "cols", "time", "tc", "seed", "event" } do
    if o[k] ~= nil and o[k] ~= cfg[k] then
      error(string.format("%s %s differs from the saved tournament (%s) in %s", k, tostring(o[k]),
        tostring(cfg[k]), where), 0)
    end
  end
  if o.margin ~= nil and o.margin ~= (cfg.margin or 0) then
    error(string.format("margin %s differs from the saved tournament (%s) in %s", tostring(o.margin),
      tostring(cfg.margin or 0), where), 0)
  end
  if o.openings ~= nil then
    error("the openings are saved with the tournament in " .. where .. ": drop the openings when resuming", 0)
  end
  if o.shard ~= nil then
    local a, b = o.shard, cfg.shard or { 1, 1 }
    if type(a) ~= "table" or a[1] ~= b[1] or a[2] ~= b[2] then
      error("the shard differs from the saved tournament in " .. where, 0)
    end
  end
  if o.sprt ~= nil then
    local ok, t = pcall(stats.sprt, o.sprt)
    local c = cfg.sprt
    if not ok or not c or t.elo0 ~= c.elo0 or t.elo1 ~= c.elo1 or t.alpha ~= c.alpha or t.beta ~= c.beta then
      error("the SPRT settings differ from the saved tournament in " .. where, 0)
    end
  end
  if o.bots then
    local same = #o.bots == #cfg.bots
    for i, b in ipairs(o.bots) do
      local spec = type(b) == "table" and (b.spec or b.name) or b
      if not cfg.bots[i] or (spec ~= cfg.bots[i].spec and spec ~= cfg.bots[i].name) then same = false end
      -- bot tables are used as given (they cannot be saved)
      if type(b) == "table" and b.choose then merged.bots[i] = b end
    end
    if not same then error("the bots differ from the saved tournament in " .. where, 0) end
  end
  for _, k in ipairs { "workers", "progress", "on_game", "log", "out", "hang", "startup" } do merged[k] = o[k] end
  merged.resume = true
  local s = M.check(merged)
  s.openings_list = cfg.openings
  return s
end

return M
