-- konane.play: one game between two bots, returning its record (see konane.pgn for the fields).
--
-- Each bot move is asked for on a clone of the game, under the time limit (a count hook stops a
-- bot that overruns, through konane.core.sandbox_call when the binding has it). A bot loses the
-- game, and the record says why, when it:
--   raises an error (termination "error"), answers something that is not a move string
--   ("bad answer"), answers an illegal move ("illegal move"), overruns its time ("time forfeit"),
--   or answers "resign" ("resignation").
-- The host, the other bot and the record survive all of these. Only an interrupt (Ctrl-C at the
-- REPL: the error "interrupted!") stops konane.play itself.

local bot_mod = require("konane.bot")
local pgn = require("konane.pgn")

local M = {}

local OTHER = { black = "white", white = "black" }

local KNOWN_OPTIONS = { variant = true, rows = true, cols = true, fen = true, opening = true,
                        time = true, game_time = true, grace = true, seed = true, tags = true,
                        event = true, comments = true, on_move = true, pgn = true }

-- An error message without the "file.lua:12: " its raiser put in front.
local function strip_position(msg)
  return (tostring(msg):gsub("^[^\n:]-%.lua:%d+: ", ""))
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
    error("bad option 'opening' (list or string of moves expected, got " .. type(opening) .. ")", 3)
  end
  local list = {}
  for token in opening:gmatch("%S+") do
    local rest = token:gsub("^%d+%.+", "")
    if rest ~= "" then list[#list + 1] = rest end
  end
  return list
end

-- Is 'err' the REPL's interrupt? Then the whole play stops, it is no fault of the bot.
local function is_interrupt(err, kind)
  if kind == "interrupted" then return true end
  if type(err) == "table" and err.sandbox_kind then
    return err.sandbox_kind == "interrupted"
  end
  return type(err) == "string" and err:match("interrupted!$") ~= nil
end

-- The message and the kind ("time", "memory", "instructions", "error") of a failed bot call.
local function failure(err, kind)
  if type(err) == "table" and err.sandbox_kind then
    return tostring(err.message), err.sandbox_kind
  end
  return tostring(err), kind or "error"
end

-- Call bot[method](bot, ...) within 'limit' seconds (nil: no limit). Returns true and the
-- results, or false, a message and a kind. Uses the binding's sandbox_call (a count hook that
-- stops a loop at the deadline, and the deadline for C searches) when it exists.
local function timed_call(c, limit, fn, ...)
  if c and c.sandbox_call and limit and limit < math.huge then
    return c.sandbox_call({ time = limit }, fn, ...)
  end
  return pcall(fn, ...)
end

-- Format the per-move comment: time used, and what the bot said about its move.
local function move_comment(elapsed, info)
  local parts = { string.format("%.3fs", elapsed) }
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
    parts[#parts + 1] = info
  end
  return table.concat(parts, " ")
end

--- play(black, white, opts) -> record
-- Plays one game. 'black' and 'white' are bots or bot specs (anything konane.bot accepts).
-- opts (all optional): variant, rows, cols, fen (start position), opening (list or string of
-- moves played first, part of the record), time (seconds per move), game_time (seconds per game
-- and side), grace (extra seconds tolerated past a limit; default 10 ms + 5% of the limit), seed
-- (passed to the bots' new_game and to math.randomseed), tags (extra PGN tags), event, comments
-- (false: no per-move comments), on_move(record, move) called after every move, pgn (a path to
-- append the record to, or an open file to write it to).
-- Raises on bad options (an unknown bot, an illegal opening, a bad position): those are the
-- caller's mistakes, not a bot's.
function M.play(black, white, opts)
  opts = opts or {}
  if type(opts) ~= "table" then
    error("bad argument #3 to 'play' (options table expected, got " .. type(opts) .. ")", 2)
  end
  for k in pairs(opts) do
    if not KNOWN_OPTIONS[k] then
      local known = {}
      for name in pairs(KNOWN_OPTIONS) do known[#known + 1] = name end
      table.sort(known)
      error("bad argument #3 to 'play' (unknown option '" .. tostring(k) .. "'; known: " ..
        table.concat(known, ", ") .. ")", 2)
    end
  end
  local konane, c = core()
  local bots = {}
  for i, side in ipairs { "black", "white" } do
    local ok, b = pcall(bot_mod.new, i == 1 and black or white)
    if not ok then error(side .. " bot: " .. strip_position(b), 2) end
    bots[side] = b
  end
  for _, k in ipairs { "time", "game_time", "grace" } do
    if opts[k] ~= nil and (type(opts[k]) ~= "number" or opts[k] ~= opts[k] or opts[k] > 1e9
        or opts[k] <= 0 and k ~= "grace" or opts[k] < 0) then
      error("bad option '" .. k .. "' (a positive number of seconds expected, got " .. tostring(opts[k]) .. ")", 2)
    end
  end
  if opts.seed ~= nil and not math.tointeger(opts.seed) then
    error("bad option 'seed' (an integer expected, got " .. tostring(opts.seed) .. ")", 2)
  end
  for _, k in ipairs { "on_move", "tags" } do
    local want = k == "on_move" and "function" or "table"
    if opts[k] ~= nil and type(opts[k]) ~= want then
      error("bad option '" .. k .. "' (a " .. want .. " expected, got " .. type(opts[k]) .. ")", 2)
    end
  end
  local clock = c and c.clock or os.clock

  local okg, g = pcall(konane.new, { variant = opts.variant, rows = opts.rows, cols = opts.cols,
                                     fen = opts.fen })
  if not okg then error(strip_position(g), 2) end
  local start = g:start_fen()
  local variant = g:variant()
  local rows, cols = g:rows(), g:cols()
  local record = { tags = {}, variant = variant, rows = rows, cols = cols, moves = {}, comments = {} }
  if opts.fen then
    local ok, default = pcall(konane.new, { variant = opts.variant, rows = rows, cols = cols })
    if not ok or default:start_fen() ~= start then record.fen = start end
  end

  for i, move in ipairs(opening_moves(opts.opening)) do
    local canonical, why = g:legal(tostring(move))
    if not canonical then
      error("opening move " .. i .. " '" .. tostring(move) .. "' is illegal: " .. tostring(why), 2)
    end
    g:play(canonical)
    record.moves[#record.moves + 1] = canonical
  end

  local names = { black = tostring(bots.black.name), white = tostring(bots.white.name) }
  record.black, record.white = names.black, names.white
  local tags = record.tags
  tags.Event = opts.event or "konane game"
  tags.Date = os.date("!%Y.%m.%d")
  for k, v in pairs(opts.tags or {}) do tags[k] = tostring(v) end

  if opts.seed ~= nil then math.randomseed(math.tointeger(opts.seed)) end

  local winner, termination, reason
  local function lose(side, why, text)
    text = tostring(text)
    if #text > 300 then text = text:sub(1, 300) .. "..." end   -- a bot's error can be huge
    winner, termination, reason = OTHER[side], why, text
  end

  -- new_game for both bots: a bot that fails here loses before the first move
  for _, side in ipairs { "black", "white" } do
    local b = bots[side]
    if not winner and b.new_game then
      local info = { side = side, opponent = names[OTHER[side]], variant = variant, rows = rows,
                     cols = cols, fen = g:fen(), start_fen = start, time = opts.time,
                     game_time = opts.game_time,
                     seed = opts.seed and math.tointeger(side == "black" and opts.seed or opts.seed + 7919) }
      local limit = opts.time and opts.time * 10 or nil
      local ok, err, kind = timed_call(c, not b.untimed and limit or nil, b.new_game, b, info)
      if not ok then
        if is_interrupt(err, kind) then error("interrupted!", 0) end
        local msg, k = failure(err, kind)
        if k == "time" then lose(side, "time forfeit", "new_game: " .. msg)
        else lose(side, "error", "new_game: " .. msg) end
      end
    end
  end

  local used = { black = 0, white = 0 }
  local comments = opts.comments ~= false
  while not winner and not g:over() do
    local side = g:turn()
    local b = bots[side]
    local limit = opts.time or math.huge
    local game_left
    if opts.game_time then
      game_left = opts.game_time - used[side]
      if game_left < limit then limit = game_left end
    end
    local grace = opts.grace or (limit < math.huge and 0.01 + 0.05 * limit or 0)
    if limit <= 0 then
      lose(side, "time forfeit", string.format("%s ran out of game time", side))
      break
    end
    local view = g:clone()
    local clk = { time = limit, game_time = game_left, ply = g:ply() + 1 }
    local t0 = clock()
    local results = table.pack(timed_call(c, not b.untimed and limit + grace or nil, b.choose, b, view, clk))
    local elapsed = clock() - t0
    if not b.untimed then used[side] = used[side] + elapsed end
    local ok, answer, info = results[1], results[2], results[3]
    if not ok then
      if is_interrupt(answer, info) then error("interrupted!", 0) end
      local msg, kind = failure(answer, info)
      if kind == "time" then
        lose(side, "time forfeit", string.format("%s: %s", side, msg))
      else
        lose(side, "error", msg)
      end
      break
    end
    if not b.untimed and elapsed > limit + grace then
      lose(side, "time forfeit", string.format("%s took %.3f s for a move (limit %.3f s)", side, elapsed, limit))
      break
    end
    if type(answer) == "table" and rawget(answer, "move") ~= nil then
      info = answer
      answer = rawget(answer, "move")
    end
    if answer == "resign" then
      lose(side, "resignation", side .. " resigned")
      break
    end
    if type(answer) == "string" and #answer > 200 then
      lose(side, "bad answer", string.format("choose returned a string of %d bytes, not a move", #answer))
      break
    end
    if type(answer) ~= "string" then
      lose(side, "bad answer", string.format("choose returned %s instead of a move string",
        answer == nil and "nil" or ("a " .. type(answer))))
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

  if not winner then
    winner = g:winner()
    termination = "normal"
    reason = OTHER[winner] .. " has no legal move"
  end
  record.winner = winner
  record.result = pgn.winner_result[winner]
  record.termination = termination
  record.reason = reason
  tags.Black, tags.White = names.black, names.white
  tags.Result = record.result
  tags.Variant = variant
  tags.Board = string.format("%dx%d", rows, cols)
  tags.FEN = record.fen
  tags.Termination = termination
  tags.Reason = reason
  record.times = used

  -- done for both bots: errors here change nothing any more
  for _, side in ipairs { "black", "white" } do
    local b = bots[side]
    if b.done then
      local result = { side = side, winner = winner, won = winner == side, result = record.result,
                       termination = termination, reason = reason, record = record }
      local ok, err, kind = timed_call(c, not b.untimed and opts.time and opts.time * 10 or nil, b.done, b, result)
      if not ok and is_interrupt(err, kind) then error("interrupted!", 0) end
    end
  end

  -- opts.pgn: append the record to that file (a path) or write it to that open file
  if opts.pgn then
    local ok, err
    if type(opts.pgn) == "string" then
      ok, err = pgn.write_file(opts.pgn, record, "a")
    else
      ok, err = pcall(function() opts.pgn:write(pgn.write(record)) end)
    end
    if not ok then
      record.write_error = tostring(err)
      io.stderr:write("konane.play: cannot write the record: " .. record.write_error .. "\n")
    end
  end
  return record
end

return M
