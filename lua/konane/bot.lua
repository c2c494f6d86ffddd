-- konane.bot: building bots from tables, one-line specs and files.
--
-- A bot is a table { name = "...", choose = function(self, game, clock) return "d5" end } with
-- optional new_game(self, info) and done(self, result). konane.bot(spec) accepts:
--   * a bot table (returned as it is, after a check);
--   * a built-in name with options: "alphabeta:depth=6,time=0.1", "mcts:time=0.2", "random:seed=3";
--   * a path to a Lua file returning a bot (or a table with new(opts)), run in a process of its
--     own (`konane --ugi FILE`): "bots/mine.lua" or "bots/mine.lua:depth=3";
--   * an external UGI engine: "ugi:python3 mybot.py", or {ugi = {"python3", "mybot.py"}, ...}.
-- The helpers below (rng, budget, parse_spec) are shared by the built-in bots.

local M = {}

-- The built-in bots, in the order they are listed.
M.BUILTIN = { "random", "greedy", "alphabeta", "mcts", "solver", "human" }
local BUILTIN_SET = {}
for _, name in ipairs(M.BUILTIN) do BUILTIN_SET[name] = true end

--- rng(seed) -> function
-- The seeded generator of konane.util (splitmix64): each bot makes its own from the game's seed,
-- so no player shares random numbers with another or with the host's math.random.
M.rng = require("konane.util").rng

--- budget(clock, want, share, game) -> seconds
-- The time a bot should spend on this move: its own wish 'want' (nil: no wish), at most 'share'
-- (default 0.7) of the time left for the move minus 5 ms, and with a game clock at most a share
-- of the game's time planned as the engine's search plans its own (kn_search_budget,
-- docs/search.md, Clocks): a reserve is kept back (0.1 s + 3 increments, or 90% of a smaller
-- clock) for what the bot's limit does not see (its clock checks every few thousand nodes, the
-- answer's way to the referee, the machine's stalls), 2 ms a move still to play are counted too,
-- and of the rest one move's share is spent (the moves to play: a third of the pieces of 'game'
-- when given, at least 8; else 15) plus 0.8 of the increment (in proportion below the reserve, so
-- the clock climbs back above it). A bot that obeys it does not lose on time unless its moves
-- overrun their limits by more than that; a bot that measures its overrun passes it as
-- 'overhead' (seconds a move, counted for each move to play instead of the 2 ms). A bot that
-- answers within a millisecond of its limit (the alphabeta bot) may pass a larger share. Never
-- below 1 ms. Returns nil when neither the bot nor the clock sets a limit.
local RESERVE, OVERHEAD = 0.1, 0.002
function M.budget(clock, want, share, game, overhead)
  local t = want
  if clock then
    local move_left = clock.time
    if move_left and move_left < math.huge then
      local cap = move_left * (share or 0.7) - 0.005
      t = t and math.min(t, cap) or cap
    end
    local left = clock.game_time
    if left and left < math.huge then
      if left < 0 then left = 0 end
      local inc = clock.increment or 0
      if not (inc > 0 and inc < math.huge) then inc = 0 end
      local togo = 15
      if game then togo = math.max(8, (game:count("black") + game:count("white")) / 3) end
      local rb = RESERVE + 3 * inc
      local per_move = math.max(OVERHEAD, tonumber(overhead) or 0)
      local usable = math.max(left - math.min(left * 0.9, rb) - per_move * togo, 0)
      local cap = usable / togo + inc * 0.8 * (left < rb and left / rb or 1)
      t = t and math.min(t, cap) or cap
    end
  end
  if t == nil then return nil end
  if t < 0.001 then t = 0.001 end
  return t
end

-- Convert an option value from a spec string: integers, floats, booleans, otherwise the string.
local function option_value(s)
  if s == "true" then return true end
  if s == "false" then return false end
  local n = math.tointeger(tonumber(s)) or tonumber(s)
  if n then return n end
  return s
end

--- parse_spec(spec) -> name_or_path, options, is_path
-- Splits "name:key=value,key=value" (or "path.lua:key=value"). A bare key without '=' is true.
-- A built-in bot's name before the ':' makes it a built-in spec even when a value is a path.
-- Raises on an empty key.
function M.parse_spec(spec)
  local head, rest = spec, nil
  local path_head, path_rest = spec:match("^(.-%.lua):(.*)$")
  local name_head, name_rest = spec:match("^([%w_]+):(.*)$")
  if name_head and BUILTIN_SET[name_head] then
    -- a built-in bot whose options name a file: alphabeta:weights=my.lua, weights=dir/w.lua
    head, rest = name_head, name_rest
  elseif path_head then
    head, rest = path_head, path_rest
  elseif not spec:find("[/\\]") and not spec:match("%.lua$") then
    local h, r = spec:match("^([^:]*):(.*)$")
    if h then head, rest = h, r end
  end
  local opts = {}
  if rest and rest ~= "" then
    for item in (rest .. ","):gmatch("([^,]*),") do
      item = item:match("^%s*(.-)%s*$")
      if item ~= "" then
        local k, v = item:match("^([^=]*)=(.*)$")
        if not k then k, v = item, "true" end
        k = k:match("^%s*(.-)%s*$")
        if k == "" then error("bad bot spec '" .. spec .. "': option without a name", 3) end
        opts[k] = option_value(v:match("^%s*(.-)%s*$"))
      end
    end
  end
  local is_path = head:find("[/\\]") ~= nil or head:match("%.lua$") ~= nil
  return head, opts, is_path
end

--- check_options(opts, known, bot_name)
-- Raises "unknown option 'x' for bot 'name' (known: a, b)" for an option not in 'known'. Used by
-- the built-in bots so a misspelt option is an error, never silently ignored.
function M.check_options(opts, known, bot_name)
  local set = {}
  for _, k in ipairs(known) do set[k] = true end
  for k in pairs(opts) do
    if not set[k] then
      error(string.format("unknown option '%s' for bot '%s' (known: %s)", tostring(k), bot_name,
        table.concat(known, ", ")), 3)
    end
  end
end

-- Options that must be whole numbers, and the largest value any option may take.
local INTEGER_OPTIONS = { depth = true, nodes = true, playouts = true, seed = true, hash_mb = false }
local MAX_OPTION = { time = 1e6, depth = 1000, hash_mb = 65536, c = 1000 }

--- check_number(opts, key, bot_name, min)
-- Raises when opts[key] is set but is not a finite number >= 'min' (a whole number for depth,
-- nodes, playouts and seed; at most 1e6 seconds for time, 1000 plies for depth).
function M.check_number(opts, key, bot_name, min)
  local v = opts[key]
  if v == nil then return end
  local max = MAX_OPTION[key] or 2 ^ 53
  local ok = type(v) == "number" and v == v and v >= -2 ^ 53 and v <= max and not (min and v < min)
  if ok and INTEGER_OPTIONS[key] then
    ok = math.tointeger(v) ~= nil
    if ok then opts[key] = math.tointeger(v) end
  end
  if not ok then
    local what = INTEGER_OPTIONS[key] and "a whole number" or "a number"
    if min then what = what .. " >= " .. min end
    if MAX_OPTION[key] then what = what .. string.format(" and <= %g", MAX_OPTION[key]) end
    error(string.format("bad option %s=%s for bot '%s' (%s expected)", key, tostring(v), bot_name,
      what), 3)
  end
end

--- validate(bot) -> bot
-- Raises unless 'bot' is a table with a choose function (name defaults to "bot").
function M.validate(bot, what)
  if type(bot) ~= "table" then
    error((what or "bot") .. " must be a table with a choose function, got " .. type(bot), 3)
  end
  if type(bot.choose) ~= "function" then
    error((what or "bot") .. " has no choose function (a bot is {name=, choose=function(self, game, clock) ... end})", 3)
  end
  if bot.name == nil then bot.name = "bot" end
  for _, k in ipairs { "new_game", "done" } do
    if bot[k] ~= nil and type(bot[k]) ~= "function" then
      error((what or "bot") .. "." .. k .. " must be a function", 3)
    end
  end
  return bot
end

-- Keys of the limits table of konane.bot(spec, limits) and of a {ugi = ...} table.
local PLAYER_KEYS = { memory = true, cpu = true, startup = true, time = true, log = true }
local UGI_TABLE_KEYS = { ugi = true, name = true, options = true, memory = true, cpu = true,
                         startup = true, time = true, log = true }

-- Default address space of an external engine's process (bytes); bot files get the player
-- module's default (256 MiB) plus what the host itself maps.
M.ENGINE_MEMORY = 1 << 30
local HOST_SLACK = 32 * 1024 * 1024

local function check_limits(limits, keys, where)
  if limits == nil then return {} end
  if type(limits) ~= "table" then
    error("bad argument #2 to 'bot' (limits table expected, got " .. type(limits) .. ")", 3)
  end
  for k, v in pairs(limits) do
    if not keys[k] then
      local known = {}
      for name in pairs(keys) do known[#known + 1] = name end
      table.sort(known)
      error(string.format("%s: unknown key '%s' (known: %s)", where, tostring(k), table.concat(known, ", ")), 3)
    end
    if k ~= "log" and k ~= "ugi" and k ~= "name" and k ~= "options"
        and (type(v) ~= "number" or v ~= v or v <= 0) then
      error(string.format("%s: '%s' must be a positive number, got %s", where, k, tostring(v)), 3)
    end
  end
  return limits
end

-- The command that serves bot 'spec' over UGI: this interpreter with the same module paths.
local function host_argv(spec)
  local c = require("konane").core
  local exe = c.exe_path and c.exe_path()
  if not exe then
    local lo = 0
    while _G.arg and _G.arg[lo - 1] do lo = lo - 1 end
    exe = _G.arg and _G.arg[lo] or "konane"
  end
  local paths = string.format("package.path=%q package.cpath=%q", package.path, package.cpath)
  if exe:match("lua[%d%.]*$") then -- a plain Lua interpreter running the module: no --ugi
    return { exe, "-e", paths, "-e", string.format("os.exit(require('konane.ugi.server').main(%q))", spec) }
  end
  return { exe, "-e", paths, "--ugi", spec }
end

-- A bot file becomes a player in its own process (`konane --ugi FILE`). The file is read and
-- compiled here (never run) so that a missing file or a syntax error is the caller's error.
local function file_player(spec, path, limits)
  local f, err = io.open(path, "rb")
  if not f then error("cannot load bot '" .. path .. "': " .. tostring(err), 3) end
  local text, rerr = f:read("a") -- nil for a directory
  f:close()
  if not text then error("cannot load bot '" .. path .. "': " .. tostring(rerr or "not a readable file"), 3) end
  if text:byte(1) == 27 then
    error("cannot load bot '" .. path .. "': binary chunks are not accepted", 3)
  end
  local label = (path:match("([^/\\]+)$") or path):gsub("%.lua$", "")
  local ok, cerr = load(text, "=" .. label, "t", {})
  if not ok then error("cannot load bot '" .. path .. "': " .. tostring(cerr), 3) end
  local player = require("konane.ugi.player")
  local memory = (limits.memory or player.defaults.memory) + HOST_SLACK
  return player.new { argv = host_argv(spec), fallback_name = label, memory = memory,
                      cpu = limits.cpu, startup = limits.startup, time = limits.time,
                      log = limits.log }
end

-- The name of an engine until it says its own: its spec or command with the directories of
-- every word left out ("ugi:python3 engine.py"), so no host path reaches a record or a reason.
local function engine_label(text)
  return (text:gsub("[^%s]+", function(w) return w:match("([^/\\]+)[/\\]*$") or w end))
end

-- An external engine: "ugi:CMD" or {ugi = CMD or {argv...}, name=, options=, ...}.
local function engine_player(def, spec)
  local player = require("konane.ugi.player")
  local argv = def.ugi
  if type(argv) == "string" then argv = player.command(argv) end
  if type(argv) ~= "table" or #argv == 0 then
    error("bad UGI engine: a command is needed (ugi = {\"python3\", \"bot.py\"} or \"ugi:CMD\")", 3)
  end
  for i, a in ipairs(argv) do
    if type(a) ~= "string" then error("bad UGI engine: argument " .. i .. " is not a string", 3) end
  end
  if def.options ~= nil and type(def.options) ~= "table" then
    error("bad UGI engine: options must be a table of name = value", 3)
  end
  if def.name ~= nil and type(def.name) ~= "string" then error("bad UGI engine: name must be a string", 3) end
  return player.new { argv = argv, name = def.name, fallback_name = engine_label(spec or argv[#argv]),
                      options = def.options, memory = def.memory or M.ENGINE_MEMORY,
                      cpu = def.cpu, startup = def.startup, time = def.time, log = def.log }
end

--- new(spec [, limits]) -> bot
-- Builds a bot from a table, a one-line spec or a file path (see the top of this file). A bot
-- file and an external engine ("ugi:CMD", or a table {ugi = {"python3", "bot.py"}, name=,
-- options=}) become players in processes of their own; 'limits' (optional) sets their process
-- limits: {memory = bytes, cpu = seconds, startup = handshake seconds, time = seconds per move
-- when the game sets none, log = a file for the player's stderr}. Raises with a clear message on
-- an unknown bot, a bad option, or a file that cannot be read or compiled.
function M.new(spec, limits)
  if type(spec) == "table" then
    if rawget(spec, "ugi") ~= nil and rawget(spec, "choose") == nil then
      check_limits(spec, UGI_TABLE_KEYS, "konane.bot{ugi = ...}")
      return engine_player(spec)
    end
    return M.validate(spec)
  end
  if type(spec) ~= "string" then
    error("bad argument #1 to 'bot' (bot table or spec string expected, got " .. type(spec) .. ")", 2)
  end
  limits = check_limits(limits, PLAYER_KEYS, "konane.bot limits")
  if spec:match("^ugi:") then
    local def = { ugi = spec:sub(5) }
    for k, v in pairs(limits) do def[k] = v end
    return engine_player(def, spec)
  end
  local head, options, is_path = M.parse_spec(spec)
  if is_path then
    return file_player(spec, head, limits)
  end
  if not head:match("^[%w_]+$") then
    error("bad bot spec '" .. spec .. "' (expected a name such as 'alphabeta:depth=6', a path to a .lua file or ugi:COMMAND)", 2)
  end
  if not BUILTIN_SET[head] then
    error("unknown bot '" .. head .. "' (built-in bots: " .. table.concat(M.BUILTIN, ", ") ..
      "; or give a path to a .lua file, or ugi:COMMAND)", 2)
  end
  local mod = require("konane.bots." .. head)
  local ok, bot = pcall(mod.new, options)
  if not ok then
    -- a bad option is the caller's mistake: report it at the caller, without the bot module's
    -- own file:line (only that one: a message quoting the user's weights file at its line,
    -- "bad option weights ... (w.lua:1: syntax error ...)", keeps all of it)
    local msg = tostring(bot)
    local file = msg:match("^([^\n]-%.lua):%d+: ")
    if file and file:match("konane[/\\]bots[/\\][%w_]+%.lua$") then
      msg = msg:gsub("^[^\n]-%.lua:%d+: ", "", 1)
    end
    error(msg, 2)
  end
  bot.spec = bot.spec or spec
  bot.builtin = true -- trusted: runs in the referee's process, keeps to its own time budget
  -- the spec names the bot in records: "alphabeta:depth=6" says more than "alphabeta"
  if type(bot) == "table" and next(options) ~= nil and bot.name == head then bot.name = spec end
  return M.validate(bot)
end

--- list() -> { {name=, description=, options=}, ... }
-- The built-in bots with a one-line description and their options.
function M.list()
  local out = {}
  for _, name in ipairs(M.BUILTIN) do
    local mod = require("konane.bots." .. name)
    out[#out + 1] = { name = name, description = mod.description, options = mod.options }
  end
  return out
end

return M
