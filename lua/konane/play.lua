-- konane.play: the referee. One game between two players, returning its record (docs/bots.md).
--
-- The referee holds the only real game and checks every move with its own rules: a player sees
-- a copy (an in-process bot) or the moves sent over a pipe (a player in its own process:
-- konane.ugi.player), and nothing it answers is trusted. The referee's clock decides time
-- losses: a time per move (opts.time), a chess clock (opts.tc = "60+0.5": base seconds plus an
-- increment per move), or both. A player loses the game, and the record says which side failed
-- and why, when it fails to start (handshake failure), crashes, hangs or overruns its time (time
-- forfeit), answers something that is not a move (bad answer / malformed output), an illegal
-- move, reports an error, resigns, or claims a final result the referee disagrees with (false
-- claim). The host, the other player and the record survive all of these; only an interrupt
-- (Ctrl-C at the REPL: the error "interrupted!") stops konane.play itself.

local bot_mod = require("konane.bot")
local pgn = require("konane.pgn")

local M = {}

local OTHER = { black = "white", white = "black" }

-- Bytes of a move comment kept in the record (a player chooses what it attaches).
M.COMMENT_MAX = 4096

local KNOWN_OPTIONS = { variant = true, rows = true, cols = true, fen = true, opening = true,
                        time = true, game_time = true, increment = true, tc = true, grace = true, margin = true,
                        seed = true, tags = true, event = true, comments = true, on_move = true,
                        pgn = true }

-- How the failures of a player in its own process are recorded.
local TERMINATION = { time = "time forfeit", crash = "crash", handshake = "handshake failure",
                      malformed = "malformed output", error = "error", bad = "bad answer" }

local library_position = require("konane.util").library_position
local strip_position = require("konane.util").strip_library_position

-- A failure as a record may say it: no position in konane's own library ("konane/x.lua:12:")
-- in it (a position in the bot's own file stays, cut to the file's name and line: where the
-- bot failed), no control byte nor byte that is not UTF-8, and every path (a word that starts
-- with /, ./, ../ or ~/, or has a directory and a file extension) cut to its file name: the
-- records never show the host's directories (a position text such as "xox/oxo/xox b" stays).
function M.clean_reason(text)
  text = tostring(text):gsub("[^%s:]*%.lua:%d+:%s*", function(pos)
    if library_position(pos) then return "" end
  end)
  -- no raw control byte reaches a record or a terminal: white space becomes a space, the rest
  -- is shown as \xNN, and so is a byte that is not UTF-8 (an engine's 'bestmove \xff')
  text = require("konane.util").printable(text)
  -- (a space in front: a path at the very start of the text is a word too)
  return ((" " .. text):gsub("%f[^%s'\"(=]([%w%._%-~/]*/[%w%._%-/]*)", function(path)
    if path:match("^%.?%.?~?/") or path:match("/[^/]*%.%w+$") then return path:match("([^/]*)$") end
    return path
  end):sub(2))
end

local function core()
  local konane = require("konane")
  return konane, konane.core
end

-- Split an opening given as a string ("d5 e5 f5-d5", move numbers allowed) or a list.
local function opening_moves(opening)
  if opening == nil then return {} end
  if type(opening) == "table" then return opening end
  if type(opening) ~= "string" then
    error("bad option 'opening' (list or string of moves expected, got " .. type(opening) .. ")", 4)
  end
  local list = {}
  for token in opening:gmatch("%S+") do
    local rest = token:gsub("^%d+%.+", "")
    if rest ~= "" then list[#list + 1] = rest end
  end
  return list
end

local function is_interrupt(err)
  return type(err) == "string" and err:match("interrupted!$") ~= nil
end

-- The kind and message of a failed call into a player.
local function failure(err)
  local player = require("konane.ugi.player")
  if player.is_failure(err) then return err.kind, err.message end
  return "error", strip_position(err)
end

--- parse_tc(text) -> base, increment
-- "60+0.5" -> 60, 0.5; "60" -> 60, 0. Raises on anything else.
function M.parse_tc(tc)
  local base, inc = tostring(tc):match("^%s*([%d%.]+)%s*%+%s*([%d%.]+)%s*$")
  if not base then base, inc = tostring(tc):match("^%s*([%d%.]+)%s*$"), "0" end
  base, inc = tonumber(base), tonumber(inc)
  if not base or base <= 0 or base > 1e9 or not inc or inc > 1e9 then
    error("bad time control '" .. tostring(tc) .. "' (expected BASE+INCREMENT in seconds, such as 60+0.5)", 0)
  end
  return base, inc
end

-- Checks the options; returns the clock settings {time=, game_time=, increment=, grace=, margin=}.
local function check_options(opts)
  for k in pairs(opts) do
    if not KNOWN_OPTIONS[k] then
      local known = {}
      for name in pairs(KNOWN_OPTIONS) do known[#known + 1] = name end
      table.sort(known)
      error("bad argument #3 to 'play' (unknown option '" .. tostring(k) .. "'; known: " ..
        table.concat(known, ", ") .. ")", 3)
    end
  end
  for _, k in ipairs { "time", "game_time", "increment", "grace", "margin" } do
    local v = opts[k]
    if v ~= nil and (type(v) ~= "number" or v ~= v or v > 1e9 or v < 0
        or (v == 0 and (k == "time" or k == "game_time"))) then
      error("bad option '" .. k .. "' (a positive number of seconds expected, got " .. tostring(v) .. ")", 3)
    end
  end
  if opts.seed ~= nil and not math.tointeger(opts.seed) then
    error("bad option 'seed' (an integer expected, got " .. tostring(opts.seed) .. ")", 3)
  end
  for _, k in ipairs { "on_move", "tags" } do
    local want = k == "on_move" and "function" or "table"
    if opts[k] ~= nil and type(opts[k]) ~= want then
      error("bad option '" .. k .. "' (a " .. want .. " expected, got " .. type(opts[k]) .. ")", 3)
    end
  end
  local clk = { time = opts.time, game_time = opts.game_time, increment = opts.increment, grace = opts.grace,
                margin = opts.margin or 0 }
  if opts.tc ~= nil then
    local ok, base, inc = pcall(M.parse_tc, opts.tc)
    if not ok then error("bad option 'tc': " .. base, 3) end
    clk.game_time, clk.increment = base, inc
  end
  if clk.increment and not clk.game_time then
    error("bad option 'increment' (it needs game_time or tc)", 3)
  end
  return clk
end

-- "0.012s": the time a move took, in milliseconds, each text made once (a float format per
-- move costs as much as the move of a quick bot); kept for the times under 10 s.
local ELAPSED = {}
local function elapsed_text(elapsed)
  local ms = math.floor(elapsed * 1000 + 0.5)
  local text = ELAPSED[ms]
  if not text then
    text = string.format("%.3fs", ms / 1000)
    if ms < 10000 then ELAPSED[ms] = text end
  end
  return text
end

-- The per-move comment: time used, and what the player said about its move (capped).
local function move_comment(elapsed, info)
  if info == nil then return elapsed_text(elapsed) end -- the common case, kept cheap
  local parts = { elapsed_text(elapsed) }
  if type(info) == "table" then
    local keys = {}
    for k, v in pairs(info) do
      if type(k) == "string" and (type(v) == "number" or type(v) == "string" or type(v) == "boolean") then
        keys[#keys + 1] = k
      end
    end
    table.sort(keys)
    for _, k in ipairs(keys) do
      local v = info[k]
      if math.type(v) == "float" then
        if v == math.huge then v = "inf" elseif v == -math.huge then v = "-inf"
        else v = string.format("%.3f", v):gsub("0+$", ""):gsub("%.$", "") end
      end
      parts[#parts + 1] = k .. "=" .. tostring(v)
    end
  elseif type(info) == "string" then
    parts[#parts + 1] = (info:gsub("%c", " "))
  end
  local text = table.concat(parts, " ")
  if #text > M.COMMENT_MAX then text = text:sub(1, M.COMMENT_MAX - 3) .. "..." end
  return text
end

-- Calls a bot table the caller gave (code of the caller's own, run in this process) with a
-- count hook that stops a runaway loop at 'deadline' (also seen by the C searches it calls,
-- through the registry key konane.deadline). Built-in bots keep to their budget and run
-- unhooked; players in their own processes are timed by their reads.
local function hooked_call(clock, deadline, fn, ...)
  local reg = debug.getregistry()
  local over = false
  debug.sethook(function()
    if over or clock() > deadline then
      over = true
      error("time limit exceeded", 0)
    end
  end, "", 1000)
  reg["konane.deadline"] = deadline
  local r = table.pack(pcall(fn, ...))
  if not r[1] and not over and type(r[2]) ~= "string"
      and not require("konane.ugi.player").is_failure(r[2]) then
    -- an error value that is not a string is shown with its __tostring, the bot's own code:
    -- still under the hook (one that never returns loses on time instead of hanging the game)
    local shown, text = pcall(tostring, r[2])
    r[2] = shown and type(text) == "string" and text or ("an error value (" .. type(r[2]) .. ") that cannot be shown")
  end
  debug.sethook()
  reg["konane.deadline"] = nil
  if not r[1] and over then
    return false, require("konane.ugi.player").failure("time", "still thinking at its deadline")
  end
  return table.unpack(r, 1, r.n)
end

-- Builds the two players; a bad spec is the caller's mistake and raises.
local function make_players(black, white)
  local bots = {}
  for i, side in ipairs { "black", "white" } do
    local ok, b = pcall(bot_mod.new, i == 1 and black or white)
    if not ok then error(side .. " bot: " .. strip_position(b), 3) end
    bots[side] = b
  end
  return bots
end

-- The start of the game and the record, with the opening played.
local function setup(opts)
  local konane = core()
  local okg, g = pcall(konane.new, { variant = opts.variant, rows = opts.rows, cols = opts.cols,
                                     fen = opts.fen })
  if not okg then error(strip_position(g), 3) end
  local start = g:start_fen()
  local record = { tags = {}, variant = g:variant(), rows = g:rows(), cols = g:cols(), moves = {},
                   comments = {}, opening = {} }
  if opts.fen then
    local ok, default = pcall(konane.new, { variant = opts.variant, rows = record.rows, cols = record.cols })
    if not ok or default:start_fen() ~= start then record.fen = start end
  end
  for i, move in ipairs(opening_moves(opts.opening)) do
    local canonical, why = g:legal(tostring(move))
    if not canonical then
      error("opening move " .. i .. " '" .. tostring(move) .. "' is illegal: " .. tostring(why), 3)
    end
    g:play(canonical)
    record.moves[#record.moves + 1] = canonical
    record.opening[#record.opening + 1] = canonical
  end
  return g, record
end

-- The game: runs the moves until the end or a forfeit. 'st' holds the game, the record, the
-- players, the clock settings and the times used; sets st.loser, st.termination, st.reason.
local function run_game(st, opts)
  local _, c = core()
  local clock = c and c.clock or os.clock
  local g, record, bots, clk = st.game, st.record, st.bots, st.clk
  local function lose(side, termination, text)
    text = M.clean_reason(text)
    if #text > 300 then text = text:sub(1, 300) .. "..." end -- a player's error can be huge
    st.loser, st.termination = side, termination
    st.reason = string.format("%s (%s): %s", side, st.names[side], text)
  end

  for _, side in ipairs { "black", "white" } do
    local b = bots[side]
    if not st.loser and b.new_game then
      local info = { side = side, opponent = tostring(bots[OTHER[side]].name), variant = record.variant,
                     rows = record.rows, cols = record.cols, fen = g:fen(), start_fen = g:start_fen(),
                     custom_start = record.fen ~= nil, time = clk.time, game_time = clk.game_time,
                     increment = clk.increment,
                     seed = opts.seed and math.tointeger(side == "black" and opts.seed or opts.seed + 7919) }
      local ok, err = pcall(b.new_game, b, info)
      if not ok then
        if is_interrupt(err) then error(err, 0) end
        local kind, msg = failure(err)
        lose(side, TERMINATION[kind] or "error", "new_game: " .. msg)
      end
    end
    st.names[side] = tostring(b.name)
  end

  local left = { black = clk.game_time, white = clk.game_time }
  local comments = opts.comments ~= false
  while not st.loser and not g:over() do
    local side = g:turn()
    local b = bots[side]
    local limit = clk.time or math.huge
    -- a clock overdrawn within the tolerance leaves no time, not a negative one
    if left[side] and left[side] < limit then limit = math.max(left[side], 0) end
    -- what a move may take past its limit and still count: the grace (pipe and scheduling
    -- latency) plus the caller's margin (a machine that stalls processes)
    local grace = (clk.grace or (limit < math.huge and 0.01 + 0.05 * limit or 0)) + clk.margin
    -- what the player sees: a process player only reads the moves; a built-in bot (trusted,
    -- keeps no game between moves) gets the same copy of its own each move, refreshed in place
    -- (no garbage per move); a bot table of the caller's a fresh copy
    local view
    if b.ugi then view = g
    elseif b.builtin then
      view = st.views[side]
      if view then g:clone(view) else view = g:clone(); st.views[side] = view end
    else view = g:clone() end
    local clk_arg = { time = limit, game_time = left[side], increment = clk.increment,
                      opponent_time = left[OTHER[side]], ply = g:ply() + 1, grace = grace }
    local t0 = clock()
    local ok, answer, info
    if b.builtin or b.ugi or b.untimed or limit == math.huge then
      ok, answer, info = pcall(b.choose, b, view, clk_arg)
    else
      ok, answer, info = hooked_call(clock, t0 + limit + grace, b.choose, b, view, clk_arg)
    end
    local elapsed = clock() - t0
    if not b.untimed then st.used[side] = st.used[side] + elapsed end
    if not ok then
      if is_interrupt(answer) then error(answer, 0) end
      local kind, msg = failure(answer)
      lose(side, TERMINATION[kind] or "error", msg)
      break
    end
    if not b.untimed and elapsed > limit + grace then
      lose(side, "time forfeit", string.format("took %.3f s for a move (limit %.3f s)", elapsed, limit))
      break
    end
    if left[side] then left[side] = left[side] - (b.untimed and 0 or elapsed) + (clk.increment or 0) end
    if type(answer) == "table" and rawget(answer, "move") ~= nil then
      info = answer
      answer = rawget(answer, "move")
    end
    if answer == "resign" then lose(side, "resignation", "resigned"); break end
    if type(answer) ~= "string" then
      lose(side, "bad answer", string.format("answered %s instead of a move string",
        answer == nil and "nil" or ("a " .. type(answer))))
      break
    end
    if #answer > 200 then
      lose(side, "bad answer", string.format("answered a string of %d bytes, not a move", #answer))
      break
    end
    local move, why = g:legal(answer)
    if not move then
      local shown = #answer > 40 and (answer:sub(1, 40) .. "...") or answer
      why = tostring(why)
      if not why:find("^illegal move") then why = string.format("illegal move '%s': %s", shown, why) end
      lose(side, "illegal move", why)
      break
    end
    g:play(move)
    local n = #record.moves + 1
    record.moves[n] = move
    if comments then record.comments[n] = move_comment(elapsed, info) end
    if opts.on_move then opts.on_move(record, move) end
  end
  st.left = left
end

-- After a normal end: each player in its own process must agree the game is over and who won;
-- a winner that claims otherwise (or fails to answer) loses by it.
local function check_claims(st)
  local g = st.game
  local winner = g:winner()
  local want = winner == "black" and "p1win" or "p2win"
  local failed_ask = {}
  for _, side in ipairs { winner, OTHER[winner] } do
    local b = st.bots[side]
    if b.claim_ask then
      local ok, e = pcall(b.claim_ask, b, g)
      if not ok then
        if is_interrupt(e) then error(e, 0) end
        failed_ask[side] = e
      end
    end
  end
  for _, side in ipairs { winner, OTHER[winner] } do
    local b = st.bots[side]
    if b.claim then
      local ok, over, result
      if failed_ask[side] then ok, over = false, failed_ask[side]
      else ok, over, result = pcall(b.claim, b, g) end
      local what
      if not ok then
        if is_interrupt(over) then error(over, 0) end
        local _, msg = failure(over)
        what = "no answer to the final queries: " .. msg
      elseif not over or result ~= want then
        what = string.format("claimed gameover %s, result %s; the referee says gameover true, result %s",
          tostring(over), tostring(result), want)
      end
      if what then
        st.termination = "false claim"
        st.reason = string.format("%s (%s): %s", side, st.names[side], M.clean_reason(what))
        if side == winner then st.loser = side end
        return
      end
    end
  end
end

--- play(black, white, opts) -> record
-- Plays one game. 'black' and 'white' are bots or bot specs (anything konane.bot accepts).
-- opts (all optional): variant, rows, cols, fen (start position), opening (list or string of
-- moves played first, part of the record), time (seconds per move), tc ("BASE+INC": a chess
-- clock, or game_time and increment), grace (extra seconds tolerated past a limit; default
-- 10 ms + 5% of it), margin (seconds tolerated on top of the grace, like cutechess-cli's
-- timemargin: a move that ends within its limit + grace + margin counts, and a chess clock is
-- still charged the real time used; default 0), seed (each player gets its own seed from it in new_game), tags (extra PGN
-- tags), event, comments (false: no per-move comments), on_move(record, move) after every move,
-- pgn (a path to append the record to, or an open file to write it to).
-- Raises on bad options (an unknown bot, an illegal opening, a bad position): those are the
-- caller's mistakes, not a player's. The record is described in docs/bots.md.
function M.play(black, white, opts)
  opts = opts or {}
  if type(opts) ~= "table" then
    error("bad argument #3 to 'play' (options table expected, got " .. type(opts) .. ")", 2)
  end
  local clk = check_options(opts)
  local bots = make_players(black, white)
  local g, record = setup(opts)
  local st = { game = g, record = record, bots = bots, clk = clk, used = { black = 0, white = 0 }, views = {},
               names = { black = tostring(bots.black.name), white = tostring(bots.white.name) } }
  local ok, err = pcall(run_game, st, opts)
  if ok and not st.loser then
    st.termination, st.reason = "normal", nil
    ok, err = pcall(check_claims, st)
  end
  if not ok then
    -- an interrupt (or a bug): stop the players that may be half-way through a move
    for _, side in ipairs { "black", "white" } do
      if bots[side].close then pcall(bots[side].close, bots[side]) end
    end
    error(err, 0)
  end

  local winner = st.loser and OTHER[st.loser] or g:winner()
  record.black, record.white = st.names.black, st.names.white
  record.winner = winner
  record.result = pgn.winner_result[winner]
  record.termination = st.termination
  record.forfeit = st.loser and st.termination ~= "normal" and st.loser or nil
  record.reason = st.reason or (OTHER[winner] .. " has no legal move")
  record.times = st.used
  record.clock = st.left.black and { black = st.left.black, white = st.left.white } or nil
  local tags = record.tags
  tags.Event = opts.event or "konane game"
  tags.Date = os.date("!%Y.%m.%d")
  for k, v in pairs(opts.tags or {}) do tags[k] = tostring(v) end
  tags.Black, tags.White = record.black, record.white
  tags.Result = record.result
  tags.Variant = record.variant
  tags.Board = string.format("%dx%d", record.rows, record.cols)
  tags.FEN = record.fen
  tags.Termination = record.termination
  tags.Reason = record.reason
  if clk.game_time then
    tags.TimeControl = string.format("%g+%g", clk.game_time, clk.increment or 0)
  end

  -- done for both players: errors here change nothing any more
  for _, side in ipairs { "black", "white" } do
    local b = bots[side]
    if b.done then
      local result = { side = side, winner = winner, won = winner == side, result = record.result,
                       termination = record.termination, reason = record.reason, record = record }
      local okd, e = pcall(b.done, b, result)
      if not okd and is_interrupt(e) then error(e, 0) end
    end
  end

  -- nothing a player in its own process started outlives its game (see konane.ugi.player.sweep)
  if bots.black.ugi or bots.white.ugi then require("konane.ugi.player").sweep() end

  if opts.pgn then
    local okw, werr
    if type(opts.pgn) == "string" then
      okw, werr = pgn.write_file(opts.pgn, record, "a")
    else
      okw, werr = pcall(function() return assert(opts.pgn:write(pgn.write(record))) end)
    end
    if not okw then
      record.write_error = tostring(werr)
      io.stderr:write("konane.play: cannot write the record: " .. record.write_error .. "\n")
    end
  end
  return record
end

return M
