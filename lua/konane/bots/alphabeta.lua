-- The alphabeta bot: the engine's alpha-beta search (g:search) with the options of the spec.
-- Options: depth, time (seconds per move), nodes, threads, hash_mb, eval (a Lua function(game)
-- -> score for the side to move, 100 = one move of mobility), the evaluation weights (mobility,
-- movers, tempo, safe, attacked, potential, takeaway, reach, region: each an option of its own, so "alphabeta:depth=6,mobility=120" works in a
-- spec string; or weights = {mobility=, movers=, ...} in a table, or weights = "NAME": the set
-- lua/konane/weights/NAME.lua, or weights = "path/file.lua": a Lua file returning such a table,
-- as scripts/tune.lua writes), experiment (bits of
-- g:search's experimental switches, for matches). The bot keeps one transposition table for all
-- its moves. The time per move is bounded by the move's limit (konane.bot.budget with M.SHARE
-- of it); with a game
-- clock the engine plans its own time from the time left and the increment (stopping early on a
-- forced move or a stable best move).

local bot_util = require("konane.bot")

local M = {
  description = "alpha-beta search of the engine (depth, time, nodes, eval, weights)",
  options = { "depth", "time", "nodes", "threads", "hash_mb", "eval", "weights", "mobility",
              "movers", "tempo", "safe", "attacked", "potential", "takeaway", "reach", "region",
              "edge", "corner", "experiment" },
}

-- The share of a move's time limit the search may spend (konane.bot.budget: share x limit - 5 ms).
-- The search stops within a millisecond of its own limit and the UGI server adds a few (measured
-- at 0.1 s: median 0.2 ms in process, 0.5 ms over UGI; 99th percentile 3 and 7 ms under load):
-- 0.95 x 0.1 - 0.005 = 0.09 s leaves 10 ms before the limit itself, and the referee's grace
-- (10 ms + 5%) on top, for the pipe and the machine's stalls. (At 0.9 x, 0.085 s, the engine
-- spent 0.082 s of a 0.1 s move on average over UGI; docs/search.md, Time per move.)
M.SHARE = 0.95

-- A loaded machine answers late: the search stops on time, but the process then waits for a
-- core (20-100 ms with a load of 10-15 on 2 cores). After each move the bot takes how late it
-- answered past the search's limit, or half the time the process got less than one core
-- (wall time - CPU time: the machine is busy, a late answer is coming), and keeps the
-- largest such figure, losing a tenth of it each move (M.DECAY). It keeps three times that back
-- from a move's limit, but never spends less than the 0.7 x limit - 5 ms of the other built-in
-- bots (M.FLOOR): on a busy machine it falls back to their rule, on a quiet one (answers within
-- a few ms, the CPU all its own) it spends the full share. A bot with no answer measured yet
-- (a tournament makes its bots afresh for every game) knows nothing of the machine: its first
-- timed move spends the floor, as if it had answered late (most forfeits on a loaded machine were first
-- moves); from then on only what it measured counts. M.clock (wall) and M.cpu (process CPU
-- time): seconds; tests replace them.
M.DECAY = 0.9
M.KEEP = 3
M.FLOOR = 0.7
-- With a game clock the cost of a move outside the search is measured too: from one move to
-- the bot's next (two plies later) the clock lost its time left then plus the increment minus
-- its time left now, of which the bot itself spent its wall time; the rest (the way to the
-- referee and back: 2 ms on a quiet machine, 5-25 ms a move over UGI on a starved one, where
-- the 2 ms the engine counts let 12x12 and 16x16 games at 1 s + 0 run out) is averaged
-- (M.OVER_WEIGHT for the newest) and given to the search as its 'overhead'.
M.OVER_WEIGHT = 0.25
M.cpu = os.clock
do
  local ok, konane = pcall(require, "konane")
  M.clock = ok and konane.core and konane.core.clock or nil
end

local WEIGHTS = { "mobility", "movers", "tempo", "safe", "attacked", "potential", "takeaway",
                  "reach", "region", "edge", "corner" }
local WEIGHT_SET = {}
for _, k in ipairs(WEIGHTS) do WEIGHT_SET[k], WEIGHT_SET[k .. "_late"] = true, true end

local WEIGHTS_FILE_BUDGET = 10000000 -- VM instructions
local WEIGHTS_FILE_MEMORY = 16 * 1024 * 1024 -- bytes it may allocate

--- load_weights(name_or_path) -> table
-- Reads a weights file: Lua text returning {name = number, ...} (run with an empty environment,
-- so it can only compute its table, within budgets of instructions and memory). A bare name (no
-- '/', no '.lua') is a set shipped in
-- lua/konane/weights/, found on package.path. Raises with the file and the reason.
function M.load_weights(path)
  if path:match("^[%w_%-]+$") then
    local found = package.searchpath("konane.weights." .. path, package.path)
    if not found then
      error(("bad option weights for bot 'alphabeta' (no weights set '%s' in konane/weights/)")
        :format(path), 0)
    end
    path = found
  end
  local chunk, err = loadfile(path, "t", {})
  if not chunk then error("bad option weights for bot 'alphabeta' (" .. tostring(err) .. ")", 0) end
  -- A weights file is data: a budget of VM instructions (far above any table of numbers) stops
  -- one that loops for ever, instead of hanging the bot's maker (a tournament's start), and a
  -- memory budget one that builds a huge string (it runs in the caller's process).
  local co = coroutine.create(chunk)
  debug.sethook(co, function() error("runs too long (a weights file only returns a table)", 2) end,
    "", WEIGHTS_FILE_BUDGET)
  local called, ok, w = require("konane.core").call_limited(WEIGHTS_FILE_MEMORY, coroutine.resume, co)
  if not called then ok, w = false, ok end
  if not ok and w == "not enough memory" then
    w = path .. ": uses too much memory (a weights file only returns a table)"
  end
  if not ok then
    error(("bad option weights for bot 'alphabeta' (%s)"):format(tostring(w)), 0)
  end
  if type(w) ~= "table" then
    error(("bad option weights for bot 'alphabeta' (%s does not return a table)"):format(path), 0)
  end
  return w
end

-- The weights table from the options: weights = {...} or "FILE", and/or the single weight options.
local function weights_of(opts)
  local w
  if opts.weights ~= nil then
    local src = opts.weights
    if type(src) == "string" then src = M.load_weights(src) end
    if type(src) ~= "table" then
      error("bad option weights for bot 'alphabeta' (a table {mobility=, movers=, ...} or a file name expected)", 4)
    end
    w = {}
    for k, v in pairs(src) do w[k] = v end
  end
  for _, k in ipairs(WEIGHTS) do
    if opts[k] ~= nil then
      w = w or {}
      w[k] = opts[k]
    end
  end
  -- The search's own rules, checked now: a bad set is refused when the bot is made, not at
  -- every move of every game.
  for k, v in pairs(w or {}) do
    if not WEIGHT_SET[k] then
      error(("bad option weights for bot 'alphabeta' (unknown weight '%s'; known: %s, each also NAME_late)")
        :format(tostring(k), table.concat(WEIGHTS, ", ")), 4)
    end
    local n = (type(v) == "number" or type(v) == "string") and tonumber(v) or nil
    if not n or not (n >= -10000 and n <= 10000) then
      error(("bad option weights for bot 'alphabeta' (weight '%s' must be a number from -10000 to 10000, not %s)")
        :format(k, tostring(v)), 4)
    end
  end
  return w
end

--- new(opts) -> bot
function M.new(opts)
  opts = opts or {}
  bot_util.check_options(opts, M.options, "alphabeta")
  bot_util.check_number(opts, "depth", "alphabeta", 1)
  bot_util.check_number(opts, "time", "alphabeta", 0)
  bot_util.check_number(opts, "nodes", "alphabeta", 1)
  bot_util.check_number(opts, "hash_mb", "alphabeta", 0)
  bot_util.check_number(opts, "threads", "alphabeta", 1)
  bot_util.check_number(opts, "experiment", "alphabeta", 0)
  for _, k in ipairs { "threads", "experiment" } do
    if opts[k] ~= nil and math.tointeger(opts[k]) == nil then
      error(string.format("bad option %s for bot 'alphabeta' (a whole number expected)", k), 3)
    end
  end
  for _, k in ipairs(WEIGHTS) do
    bot_util.check_number(opts, k, "alphabeta")
  end
  if opts.eval ~= nil and type(opts.eval) ~= "function" then
    error("bad option eval for bot 'alphabeta' (a function(game) -> score expected)", 3)
  end
  local weights = weights_of(opts)
  -- late: the lateness memory (seconds), nil until a timed answer was measured
  -- over: the clock's measured overhead a move (seconds); prev: the last clocked move
  local self = { name = "alphabeta", opts = opts, late = nil, over = nil, prev = nil }

  -- The transposition table, made now (mapping fresh memory can take a tenth of a second on a
  -- loaded machine: better before the clock runs than during a move) and kept for every move.
  local ok_k, konane = pcall(require, "konane")
  local table_ = ok_k and konane.hashtable and konane.hashtable(opts.hash_mb or 16) or nil

  -- clock (konane.play, or a UGI go): time left, and from UGI also depth, nodes, infinite, an
  -- info function for each finished iteration and a stop function polled during the search
  function self.choose(_, game, clock)
    clock = clock or {}
    local depth, nodes = clock.depth or opts.depth, clock.nodes or opts.nodes
    local game_time = clock.game_time
    if game_time == math.huge or clock.infinite then game_time = nil end
    local want = opts.time or ((depth or nodes or game_time) and nil or 1.0)
    if clock.depth or clock.nodes then want = nil end
    if clock.infinite then want = 1e6 end
    local time = bot_util.budget(game_time and { time = clock.time } or clock, want, M.SHARE)
    -- a move's limit without a game clock: the answer's lateness is measured and kept back
    local limit = not game_time and not clock.infinite and clock.time
    if limit == math.huge or not time or not M.clock then limit = nil end
    -- the prior, before any answer was measured: late enough to be held to the floor
    local held = limit and (self.late or limit * (1 - M.FLOOR) / M.KEEP)
    if limit and held > 0 then
      local cap = math.max(limit - 0.005 - M.KEEP * held, limit * M.FLOOR - 0.005, 0.001)
      if cap < time then time = cap end
    end
    local clocked = game_time and M.clock and true
    if clocked and self.prev and game:ply() == self.prev.ply + 2 then
      local p = self.prev
      local cost = p.left + p.inc - game_time - p.wall
      if cost == cost then -- NaN: ignored
        cost = math.min(math.max(cost, 0), 1)
        self.over = self.over and self.over + M.OVER_WEIGHT * (cost - self.over) or cost
      end
    end
    local t0, c0 = (limit or clocked) and M.clock(), limit and M.cpu()
    local r = game:search { depth = depth, time = time, nodes = nodes, table = table_,
                            game_time = game_time and math.max(game_time - 0.005, 0),
                            increment = game_time and clock.increment or nil,
                            overhead = game_time and self.over or nil,
                            threads = opts.threads, experiment = opts.experiment,
                            eval = opts.eval, weights = weights, info = clock.info,
                            stop = clock.stop }
    if clocked then
      local inc = tonumber(clock.increment) or 0
      self.prev = { ply = game:ply(), left = game_time, inc = inc == inc and inc or 0,
                    wall = M.clock() - t0 }
    end
    if limit then
      local wall = M.clock() - t0
      -- less than one core's worth of CPU (with helper threads too: a helper that waits, or the
      -- proof mode's one solver thread, is no sign of a busy machine)
      local off = wall - (M.cpu() - c0)
      local late = math.max(wall - time, 0.5 * off, 0)
      self.late = math.max((self.late or 0) * M.DECAY, late)
    end
    -- depth 0: nothing was scored (a node budget too small for one ply): no score to report
    return r.move, { score = r.depth > 0 and r.score or nil, depth = r.depth, nodes = r.nodes }
  end

  return self
end

return M
