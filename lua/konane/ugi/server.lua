-- konane.ugi.server: the engine side of UGI (docs/bots.md, shared guide ugi.md).
--
-- `konane --ugi BOT` serves one bot (a built-in spec such as "alphabeta:time=1", or a Lua file
-- "mybot.lua[:opt=v,...]") on stdin/stdout. Before a bot file is loaded the process state is
-- locked down (lockdown below): io, os, package, debug, require of anything but konane's game
-- modules, dofile, loadfile, bytecode and the process functions of konane.core are gone, and
-- print writes to stderr. What the bot does to that state stays in this process: the referee
-- talking to it checks every answer.
--
-- The server is an object fed one line at a time (server:handle(line)), writing its answers
-- through a channel {write = function(text), poll = function() -> line | nil | false}, so tests
-- can drive it in-process as well as over pipes. While the bot searches, the search's stop
-- callback (and, for bots written in Lua, a count hook) polls the channel: `isready` is answered
-- at once, `stop` and `quit` end the search with the best move so far.

local konane = require("konane")
local bot_mod = require("konane.bot")
local printable = require("konane.util").printable
local strip_library_position = require("konane.util").strip_library_position
local clip = require("konane.util").clip

-- Taken before a bot file runs, so what the bot does to the konane table spoils no position.
local konane_new, konane_variant = konane.new, konane.variant
local clock_now = konane.core.clock -- taken before the lockdown: the info lines' time

local M = {}

local Server = {}
Server.__index = Server

-- The longest line read; a longer one is an error (a runaway writer, not a command).
M.MAX_LINE = 1 << 20

-- Options announced otherwise (hash, threads, seed) or that text cannot carry (functions, tables).
local NOT_TEXT = { hash_mb = true, threads = true, seed = true, eval = true, weights = true,
                   input = true, output = true }

-- Options every bot gets, and how each is announced.
local function option_lines(s)
  local out = {}
  local function add(line) out[#out + 1] = "option name " .. line end
  if s.known.hash_mb then add("hash type spin default 16 min 1 max 65536") end
  if s.known.threads then add("threads type spin default 1 min 1 max 256") end
  local vars = {}
  for _, v in ipairs(s.variant_names) do vars[#vars + 1] = "var " .. v end
  add("variant type combo default brainking " .. table.concat(vars, " "))
  add("rows type spin default 8 min 1 max " .. konane.MAX_SIDE)
  add("cols type spin default 8 min 1 max " .. konane.MAX_SIDE)
  add("seed type string default 0")
  local own = {}
  for name in pairs(s.known) do
    if not NOT_TEXT[name] then own[#own + 1] = name end
  end
  table.sort(own)
  for _, name in ipairs(own) do
    local v = s.spec_opts[name]
    if type(v) ~= "table" and type(v) ~= "function" then
      add(name .. " type string default " .. (v == nil and "<empty>" or tostring(v)))
    end
  end
  return out
end

-- A value from a setoption line: numbers, booleans, otherwise the text ("" or <empty>: unset).
local function option_value(text)
  if text == "" or text == "<empty>" then return nil end
  if text == "true" then return true end
  if text == "false" then return false end
  local n = math.tointeger(tonumber(text)) or tonumber(text)
  if n then return n end
  return text
end

-- Text for an error line: one line, at most 'max' bytes (default 300; cut between characters),
-- without a file:line prefix of konane's own library (the bot file's own "mybot.lua:12:" stays:
-- its chunk is named by the file's base name, no directory), control bytes (and bytes that are not UTF-8) written as \xNN: an echoed
-- command ("unknown command 'seto<NUL>ption'") put a raw NUL or an escape sequence into the
-- runner's input (or a terminal). A huge text is cut first (printable of 5 MB took 0.7 s).
local function clean(msg, max)
  max = max or 300
  msg = tostring(msg)
  if #msg > 4096 then msg = msg:sub(1, 4096) end
  msg = strip_library_position(msg)
  msg = printable((msg:gsub("%s+", " ")))
  return clip(msg, max)
end

--- new(spec, chan [, opts]) -> server
-- A server for the bot 'spec' (a spec string, or a bot table for tests) answering on 'chan'.
-- opts.load_file(path, options) -> bot loads a file bot (default: the locked-down loader of
-- M.main); opts.hook(fn) / opts.unhook() install a count hook polling the channel while a bot
-- written in Lua chooses; opts.exit(code) ends the process on quit.
function M.new(spec, chan, opts)
  opts = opts or {}
  local s = setmetatable({ chan = chan, opts = opts, settings = {}, pending = {},
                           name = "konane", spec_opts = {}, known = {} }, Server)
  s.variant_names = {}
  for _, v in ipairs(konane.variants()) do s.variant_names[#s.variant_names + 1] = v.name end
  if type(spec) == "table" then
    s.fixed_bot = bot_mod.validate(spec)
    s.name = tostring(spec.name)
  else
    local head, options, is_path = bot_mod.parse_spec(spec)
    s.head, s.is_path, s.spec_opts = head, is_path, options
    if is_path then
      s.name = head:match("([^/\\]+)%.lua$") or head
      for k in pairs(options) do s.known[k] = true end
    else
      local ok, mod = pcall(require, "konane.bots." .. head)
      if not ok or type(mod) ~= "table" then error("unknown bot '" .. head .. "'", 0) end
      if head == "human" then
        error("the human bot reads its moves from the terminal: it cannot be served over UGI", 0)
      end
      s.name = head
      for _, k in ipairs(mod.options or {}) do s.known[k] = true end
      -- a weights file is read now, before the lockdown takes file reading away: the bot is
      -- made again after every setoption, and it must not need the file then
      if type(options.weights) == "string" and mod.load_weights then
        options.weights = mod.load_weights(options.weights)
      end
    end
  end
  s.bot_err = nil
  s.dirty = true
  return s
end

function Server:write(text)
  self.chan.write(text)
end

function Server:error(what)
  self:write("info string error: " .. clean(what) .. "\n")
end

-- (Re)builds the bot when its options changed. Returns the bot, or nil and why not.
function Server:ensure_bot()
  if self.fixed_bot then return self.fixed_bot end
  if not self.dirty then
    if self.bot then return self.bot end
    return nil, self.bot_err
  end
  self.dirty = false
  local options = {}
  for k, v in pairs(self.spec_opts) do options[k] = v end
  for k, v in pairs(self.settings) do
    if k == "hash" then
      if self.known.hash_mb then options.hash_mb = v end
    elseif self.known[k] then
      options[k] = v
    end
  end
  local ok, b
  if self.is_path then
    local load = self.opts.load_file
    if not load then return nil, "this server cannot load bot files" end
    ok, b = pcall(load, self.head, options)
  else
    ok, b = pcall(function() return require("konane.bots." .. self.head).new(options) end)
    if ok then ok, b = pcall(bot_mod.validate, b) end
  end
  if not ok then
    self.bot, self.bot_err = nil, "the bot cannot start: " .. clean(b)
    return nil, self.bot_err
  end
  self.bot, self.bot_err = b, nil
  if type(b.name) == "string" and self.is_path then self.name = b.name end
  return b
end

-- The start game for the current variant/rows/cols settings.
function Server:start_game(fen)
  local rows, cols = self.settings.rows, self.settings.cols
  return konane_new { variant = self.settings.variant, rows = fen == nil and rows or nil,
                      cols = fen == nil and (cols or rows) or nil, fen = fen }
end

-- position startpos|fen TEXT [moves ...]: never leaves a stale position behind on an error.
function Server:position(words)
  local base, i
  local old_base, old_moves, old_game = self.base, self.moves, self.game
  self.game, self.base, self.moves = nil, nil, nil
  if words[2] == "startpos" then
    base, i = "startpos", 3
  elseif words[2] == "fen" then
    local parts = {}
    i = 3
    while words[i] and words[i] ~= "moves" do parts[#parts + 1] = words[i]; i = i + 1 end
    if #parts == 0 then return self:error("position fen: no position text") end
    base = "fen " .. table.concat(parts, " ")
  else
    return self:error("position: expected 'startpos' or 'fen', got '" .. tostring(words[2] or "") .. "'")
  end
  if words[i] ~= nil and words[i] ~= "moves" then
    return self:error("position: expected 'moves' after the position, got '" .. words[i] .. "'")
  end
  local moves = {}
  for j = i + 1, #words do moves[#moves + 1] = words[j] end
  local key = base .. "|" .. tostring(self.settings.variant) .. "|" .. tostring(self.settings.rows)
              .. "|" .. tostring(self.settings.cols)
  -- the same game a few moves on (what match runners send every move): only the new moves
  local g, from = nil, 1
  if old_game and old_base == key and #old_moves <= #moves then
    local same = true
    for j = 1, #old_moves do
      if old_moves[j] ~= moves[j] then same = false; break end
    end
    if same then g, from = old_game, #old_moves + 1 end
  end
  if not g then
    local ok, res = pcall(self.start_game, self, base ~= "startpos" and base:sub(5) or nil)
    if not ok then return self:error("position: " .. clean(res)) end
    g = res
  end
  for j = from, #moves do
    local m, why = g:legal(moves[j])
    if not m then
      local shown = #moves[j] > 40 and moves[j]:sub(1, 40) .. "..." or moves[j]
      why = clean(why):gsub("^illegal move '.-': ", "")
      return self:error(string.format("position: move %d '%s' is illegal: %s", j, shown, why))
    end
    g:play(m)
  end
  self.game, self.base, self.moves = g, key, moves
end

-- The go limits from its words, or nil and an error.
local GO_NUMBERS = { p1time = true, p2time = true, p1inc = true, p2inc = true, movetime = true,
                     depth = true, nodes = true, movestogo = true }

local function parse_go(words)
  local lim = {}
  local i = 2
  while i <= #words do
    local w = words[i]
    if w == "infinite" or w == "ponder" then
      lim[w] = true
      i = i + 1
    elseif GO_NUMBERS[w] then
      local v = tonumber(words[i + 1])
      if not v or v ~= v or v < 0 or v > 2 ^ 53 then
        return nil, "go: '" .. w .. "' needs a number >= 0, got '" .. tostring(words[i + 1] or "") .. "'"
      end
      lim[w] = v
      i = i + 2
    else
      return nil, "go: unknown parameter '" .. w .. "'"
    end
  end
  if lim.depth and (lim.depth < 1 or math.type(math.tointeger(lim.depth)) ~= "integer") then
    return nil, "go: depth must be a whole number >= 1"
  end
  if lim.nodes and lim.nodes < 1 then return nil, "go: nodes must be >= 1" end
  return lim
end

-- Is a go queued behind this search (an infinite one: 'infinite' true)?
function Server:go_queued(infinite)
  for _, l in ipairs(self.pending) do
    if l:match("^%s*go%s") or l:match("^%s*go$") then
      if not infinite or (l .. " "):find("%sinfinite%s") then return true end
    end
  end
  return false
end

-- Handles one line arriving while a search runs. Returns true when the search must stop.
-- Commands queued behind the search keep their order (a piped script is served whole): a quit
-- after other commands, an isready after a stop or a queued go, and a stop after a queued go
-- infinite (which only a stop ends) wait for them; otherwise isready is answered and stop taken
-- at once. A search that is itself infinite (self.endless) takes the first stop even then:
-- only a stop ends it, so 'go infinite, go infinite, stop, stop' answered nothing, ever.
function Server:during_search(line)
  local cmd = line:match("^%s*(%S+)")
  if cmd == "isready" and not self.stopping and not self:go_queued() then
    self:write("readyok\n")
  elseif cmd == "stop" and (self.endless or not self:go_queued(true)) then
    self.stopping = true
  elseif cmd == "quit" and #self.pending == 0 then
    self.stopping, self.quitting = true, true
  elseif cmd then
    self.pending[#self.pending + 1] = line
  end
  return self.stopping
end

-- At the start of a search run from the queue: the lines queued after it arrived during it.
function Server:replay_pending()
  local queued = self.pending
  self.pending = {}
  for _, l in ipairs(queued) do self:during_search(l) end
end

-- Reads what arrived during a search; true when the search must stop.
function Server:poll_input()
  while not self.stopping do
    local line = self.chan.poll()
    if line == false then
      -- the input ended: the search goes on to its limit (go infinite stops: no stop can come)
      -- and the commands read before the end are still handled
      if self.infinite then self.stopping = true end
      break
    end
    if not line then break end
    self:during_search(line)
  end
  return self.stopping
end

-- A whole number from a bot's value (rounded), or nil for anything else (NaN, infinities,
-- strings, values beyond 2^53): an info line carries integers only.
local function whole(v)
  if type(v) ~= "number" or v ~= v or v > 2 ^ 53 or v < -2 ^ 53 then return nil end
  return math.tointeger(math.floor(v + 0.5))
end

-- The info line of a bot's report 'r' ({depth, score, win, plies, nodes, nps, time, pv}, each
-- optional); values that are not numbers of the right kind are left out, never an error.
local function info_line(r)
  local parts = { "info" }
  if type(r) ~= "table" then return "info\n" end
  local depth, plies = whole(r.depth), whole(r.plies)
  if depth then parts[#parts + 1] = "depth " .. depth end
  if type(r.win) == "boolean" and plies then
    local moves = (plies + 1) // 2
    parts[#parts + 1] = "score mate " .. (r.win and moves or -moves)
  elseif whole(r.score) then
    parts[#parts + 1] = "score cp " .. whole(r.score)
  end
  if whole(r.nodes) then parts[#parts + 1] = "nodes " .. whole(r.nodes) end
  if whole(r.nps) then parts[#parts + 1] = "nps " .. whole(r.nps) end
  if type(r.time) == "number" and whole(r.time * 1000) then parts[#parts + 1] = "time " .. whole(r.time * 1000) end
  if type(r.pv) == "table" and #r.pv > 0 then
    local pv = {}
    for i = 1, math.min(#r.pv, 256) do
      local m = r.pv[i]
      if type(m) ~= "string" or not m:match("^[%w%-]+$") then break end
      pv[i] = m
    end
    if #pv > 0 then parts[#parts + 1] = "pv " .. table.concat(pv, " ") end
  end
  return table.concat(parts, " ") .. "\n"
end
M.info_line = info_line

-- A move text safe to put on the bestmove line: one word of at most 200 bytes (the referee's
-- own bound on an answer), else 0000.
local MOVE_MAX = 200
local function move_word(m)
  if type(m) ~= "string" or #m > MOVE_MAX or not m:match("^[%w%-]+$") then return "0000" end
  return m
end

-- go: asks the bot for a move under the limits, answers info lines and bestmove.
function Server:go(words)
  local lim, err = parse_go(words)
  if not lim then self:error(err); return self:write("bestmove 0000\n") end
  local g = self.game
  if not g then
    self:error("go: no valid position (send a correct 'position' first)")
    return self:write("bestmove 0000\n")
  end
  if g:over() then
    self:error("go: the game is over")
    return self:write("bestmove 0000\n")
  end
  local bot, why = self:ensure_bot()
  if not bot then
    self:error(why)
    return self:write("bestmove 0000\n")
  end
  if self.new_game_failed then
    self:error(self.new_game_failed)
    return self:write("bestmove 0000\n")
  end
  local side = g:turn()
  local p = side == "black" and "p1" or "p2"
  local clock = { ply = g:ply() + 1, time = math.huge, depth = math.tointeger(lim.depth),
                  nodes = math.tointeger(lim.nodes), infinite = lim.infinite or nil }
  if lim[p .. "time"] then
    clock.game_time = lim[p .. "time"] / 1000
    clock.increment = (lim[p .. "inc"] or 0) / 1000
    local o = side == "black" and "p2" or "p1"
    if lim[o .. "time"] then clock.opponent_time = lim[o .. "time"] / 1000 end
  end
  if lim.movetime then clock.time = lim.movetime / 1000 end
  self.stopping, self.endless = false, lim.infinite
  self:replay_pending()
  clock.stop = function() return self:poll_input() end
  local printed = false
  clock.info = function(r)
    printed = true
    self:write(info_line(r))
  end
  local view = g:clone()
  if self.opts.hook then self.opts.hook(function() return self:poll_input() end) end
  local t0 = clock_now()
  self.infinite = lim.infinite
  local ok, move, info = pcall(bot.choose, bot, view, clock)
  self.infinite = nil
  if self.opts.unhook then self.opts.unhook() end
  if ok and type(move) == "table" and rawget(move, "move") ~= nil then
    info = move
    move = rawget(move, "move")
  end
  local answer
  if not ok then
    if self.stopping then
      -- stopped inside a Lua bot: any legal move is better than none
      answer = g:moves()[1]
      self:write("info string stopped before the bot chose: playing " .. answer .. "\n")
    else
      self:error("the bot failed: " .. clean(move))
      answer = "0000"
    end
  else
    local canonical = type(move) == "string" and #move <= MOVE_MAX and g:legal(move)
    if canonical then
      answer = canonical
    else
      if type(move) == "string" and #move > MOVE_MAX then
        -- what the referee says of a bot in its own process (konane.play): not a move at all
        self:error("bad answer: the bot answered a string of " .. #move .. " bytes, not a move")
      elseif type(move) == "string" then
        self:error("the bot answered '" .. clean(move, 40) .. "', not a legal move")
      else
        self:error("bad answer: the bot answered " .. (move == nil and "nil" or "a " .. type(move))
          .. " instead of a move string")
      end
      answer = move_word(move)
    end
    if canonical and type(info) == "string" and info ~= "" then
      -- the bot's comment on its move, as the referee records it: one line, capped
      printed = true
      local text = info:gsub("%c", " ")
      if #text > 2000 then text = text:sub(1, 1997) .. "..." end
      self:write("info string " .. text .. "\n")
    end
    if not printed and canonical then
      -- every go gets an info line, also from a bot that searched nothing (random, greedy, a
      -- position with one move): what the bot said, the time it took and the move as pv
      local r = { time = clock_now() - t0, pv = { canonical } }
      if type(info) == "table" then
        for _, k in ipairs { "depth", "score", "nodes", "nps", "win", "plies" } do
          local v = rawget(info, k)
          if math.type(v) or (k == "win" and type(v) == "boolean") then r[k] = v end
        end
        if r.depth and r.depth <= 0 then r.depth = nil end
      end
      self:write(info_line(r))
    end
  end
  -- infinite: the answer waits for stop (or quit)
  while lim.infinite and not self.stopping do
    local line = self.chan.read()
    if line == false then break end -- the input ended: answer, handle what came before, end
    if line then self:during_search(line) end
  end
  self:write("bestmove " .. answer .. "\n")
  self.stopping, self.endless = false, nil
end

function Server:query(words)
  local what = words[2]
  local g = self.game
  if what ~= "gameover" and what ~= "p1turn" and what ~= "result" then
    return self:error("query: expected gameover, p1turn or result, got '" .. tostring(what or "") .. "'")
  end
  if not g then return self:error("query " .. what .. ": no valid position") end
  if what == "gameover" then
    self:write(g:over() and "response true\n" or "response false\n")
  elseif what == "p1turn" then
    self:write(g:turn() == "black" and "response true\n" or "response false\n")
  else
    if not g:over() then return self:write("response none\n") end
    self:write(g:winner() == "black" and "response p1win\n" or "response p2win\n")
  end
end

function Server:setoption(line)
  local name, value = line:match("^%s*setoption%s+name%s+(.-)%s+value%s+(.-)%s*$")
  if not name then name = line:match("^%s*setoption%s+name%s+(.-)%s*$"); value = "" end
  if not name or name == "" then
    return self:error("setoption: expected 'setoption name NAME value VALUE'")
  end
  local key = name:lower()
  local v = option_value(value)
  if key == "variant" then
    if v ~= nil then
      local ok, res = pcall(konane_variant, tostring(v))
      if not ok then return self:error("setoption variant: " .. clean(res)) end
    end
  elseif key == "rows" or key == "cols" then
    if v ~= nil and (math.type(v) ~= "integer" or v < 1 or v > konane.MAX_SIDE) then
      return self:error("setoption " .. key .. ": a whole number from 1 to " .. konane.MAX_SIDE .. " expected")
    end
  elseif key == "seed" then
    if v ~= nil and not math.tointeger(v) then
      return self:error("setoption seed: a whole number expected")
    end
  elseif key == "hash" then
    if v ~= nil and (type(v) ~= "number" or v < 1 or v > 65536) then
      return self:error("setoption hash: a number of MB from 1 to 65536 expected")
    end
  elseif not self.known[key] then
    return self:error("setoption: unknown option '" .. name .. "'")
  end
  local old = self.settings[key]
  self.settings[key] = v
  if key ~= "variant" and key ~= "rows" and key ~= "cols" then
    self.dirty = true
    -- a built-in bot checks its options now: one it refuses (threads 0) is refused here and
    -- the old value kept, rather than breaking every later go
    if not self.is_path and not self.fixed_bot then
      local bot, why = self:ensure_bot()
      if not bot then
        self.settings[key], self.dirty = old, true
        if self:ensure_bot() then return self:error("setoption " .. name .. ": " .. tostring(why)) end
        self.settings[key], self.dirty = v, true
      end
    end
  end
end

function Server:new_game()
  local bot = self:ensure_bot()
  if bot and bot.new_game then
    local g = self.game or select(2, pcall(self.start_game, self))
    local info = { seed = math.tointeger(self.settings.seed), variant = self.settings.variant,
                   rows = self.settings.rows, cols = self.settings.cols }
    if type(g) == "userdata" then
      info.variant, info.rows, info.cols, info.fen = g:variant(), g:rows(), g:cols(), g:fen()
      info.start_fen = info.fen
    end
    local ok, err = pcall(bot.new_game, bot, info)
    -- the game's moves are refused until the next uginewgame, as a referee that runs the bot
    -- in its own process (konane.play) scores a new_game that fails: an error, no move
    self.new_game_failed = not ok and ("the bot's new_game failed: " .. clean(err)) or nil
    if not ok then self:error(self.new_game_failed) end
  end
end

--- server:handle(line) -> false when the session is over (quit or end of input)
function Server:handle(line)
  if #line > M.MAX_LINE then
    self:error("line too long (" .. #line .. " bytes)")
    return true
  end
  local words = {}
  for w in line:gmatch("%S+") do words[#words + 1] = w end
  local cmd = words[1]
  if cmd == nil then return true end
  if cmd == "ugi" then
    if self.is_path then self:ensure_bot() end -- its name; errors wait for isready
    local out = { "id name " .. self.name .. "\n", "id author konane\n" }
    for _, l in ipairs(option_lines(self)) do out[#out + 1] = l .. "\n" end
    out[#out + 1] = "ugiok\n"
    self:write(table.concat(out))
  elseif cmd == "isready" then
    local _, why = self:ensure_bot()
    if why then self:error(why) end
    self:write("readyok\n")
  elseif cmd == "setoption" then
    self:setoption(line)
  elseif cmd == "uginewgame" then
    self:new_game()
  elseif cmd == "position" then
    self:position(words)
  elseif cmd == "go" then
    self:go(words)
  elseif cmd == "stop" or cmd == "ponderhit" then -- luacheck: ignore 542 (no search running: nothing to stop)
  elseif cmd == "query" then
    self:query(words)
  elseif cmd == "quit" then
    return false
  else
    self:error("unknown command '" .. (#cmd > 40 and cmd:sub(1, 40) .. "..." or cmd) .. "'")
  end
  return not self.quitting
end

--- server:run() -> when the input ends or quit arrives
-- Reads lines from the channel (chan.read() -> line, or false at end of input) and handles them;
-- lines that arrived during a search are handled first.
function Server:run()
  while true do
    local line
    if #self.pending > 0 then
      line = table.remove(self.pending, 1)
    else
      line = self.chan.read()
    end
    if line == false or line == nil then return end
    -- whatever goes wrong with one command, the engine answers it and keeps serving
    local ok, more = pcall(self.handle, self, line)
    if not ok then
      self:error("internal error: " .. clean(more))
      -- a go is always answered: a runner waits for its bestmove
      if line:match("^%s*go%s") or line:match("^%s*go$") then self:write("bestmove 0000\n") end
      more = true
    end
    if not more then return end
  end
end

-- ---------------------------------------------------------------------------------------------
-- The process: lockdown and the stdin/stdout channel

-- A channel over file descriptors 0 and 1 (konane.core.fd_read: non-blocking reads with a
-- timeout). read() blocks for a whole line; poll() returns a line only if one is there.
local function fd_channel(core, out)
  local buf, eof = "", false
  local skipping = false -- the rest of a line too long to keep is being thrown away
  local first = true     -- a byte order mark before the first command is dropped
  local fd_read = core.fd_read
  local function take()
    local a = buf:find("\n", 1, true)
    if skipping then
      if not a then
        buf = ""
        return nil
      end
      buf, skipping = buf:sub(a + 1), false
      a = buf:find("\n", 1, true)
    end
    if a then
      local line = buf:sub(1, a - 1)
      buf = buf:sub(a + 1)
      if first then
        -- (a command file saved by an editor that writes one: its 'ugi' was an unknown command)
        first = false
        line = line:gsub("^\239\187\191", "")
      end
      return (line:gsub("\r$", ""))
    end
    if #buf > M.MAX_LINE then
      -- handed on to be refused as too long; what follows up to its end is no command of its own
      local line = buf
      buf, skipping = "", true
      return line
    end
    return nil
  end
  -- Output is buffered and sent once before each wait for input (a search's polls included):
  -- one write() for an answer's info and bestmove lines, where a system call may be dear.
  local unsent = false
  local function fill(timeout)
    if unsent then
      unsent = false
      out:flush()
    end
    if eof then return end
    local got = fd_read(0, timeout)
    if got == nil then eof = true elseif got ~= "" then buf = buf .. got end
  end
  local chan = {}
  function chan.read()
    while true do
      local line = take()
      if line then return line end
      if eof then
        if buf ~= "" then line, buf = buf, ""; return line end
        return false
      end
      fill(-1)
    end
  end
  function chan.poll()
    local line = take()
    if line then return line end
    if eof then return false end
    fill(0)
    line = take()
    if line then return line end
    if eof then return false end
    return nil
  end
  function chan.write(text)
    out:write(text)
    unsent = true
  end
  function chan.flush()
    unsent = false
    out:flush()
  end
  return chan
end

--- lockdown() -> what the server keeps
-- What a bot file may reach of konane.core: the game API and what konane's own bots and
-- library call while a bot plays (the search table, the clock, call_limited for alphabeta's
-- weights). An allow list: a function added to the core later stays out of bot files until it
-- is named here (processes, files, descriptors, the terminal, the sandbox are never).
M.CORE_ALLOWED = {
  Game = true, MAX_SIDE = true, VERSION = true, new = true, meta = true, clock = true,
  hashtable = true, own_table = true, call_limited = true,
}

-- Strips this process's Lua state down to the safe library plus konane's game API, after
-- taking what the server itself needs. See the top of this file.
function M.lockdown()
  local core = konane.core
  local keep = {
    stdout = io.stdout, stderr = io.stderr, exit = os.exit, sethook = debug.sethook,
    fd_read = core.fd_read, clock = core.clock, stdin = io.stdin,
  }
  -- load what a bot may use while require still works
  local variants = konane.variants()
  for _, name in ipairs(bot_mod.BUILTIN) do pcall(require, "konane.bots." .. name) end
  local allowed = {}
  for name, mod in pairs(package.loaded) do
    if name == "konane" or name == "konane.bot" or name == "konane.util"
        or name:match("^konane%.variants%.") or name:match("^konane%.bots%.") then
      allowed[name] = mod
    end
  end
  allowed["konane.bots.human"] = nil
  local function safe_require(name)
    local m = allowed[name]
    if m == nil then error("module '" .. tostring(name) .. "' not found (bots may require only konane)", 2) end
    return m
  end
  konane.variants = function()
    local copy = {}
    for i, v in ipairs(variants) do copy[i] = { name = v.name, description = v.description } end
    return copy
  end
  for k in pairs(core) do
    if not M.CORE_ALLOWED[k] then core[k] = nil end
  end
  local raw_load = load
  _G.load = function(chunk, name, _, ...)
    if select("#", ...) == 0 then return raw_load(chunk, name, "t") end
    return raw_load(chunk, name, "t", ...)
  end
  string.dump = nil
  local stderr = keep.stderr
  _G.print = function(...)
    local parts = table.pack(...)
    for i = 1, parts.n do parts[i] = tostring(parts[i]) end
    stderr:write(table.concat(parts, "\t", 1, parts.n), "\n")
  end
  for _, k in ipairs { "io", "os", "package", "debug", "dofile", "loadfile", "arg" } do
    _G[k] = nil
  end
  _G.require = safe_require
  -- init.lua looks variants up in package.loaded: a table of konane's own modules only
  _G.package = { loaded = allowed, path = "", cpath = "" }
  return keep
end

-- Loads the bot file at 'path' as text (after lockdown): it returns a bot, a table with
-- new(options), or a function(options) -> bot. Its chunk name is the file's base name, so its
-- error messages never show the host's directories.
local function file_loader(text_of)
  return function(path, options)
    local text = text_of[path]
    if not text then error("cannot read the bot file", 0) end
    local label = path:match("([^/\\]+)$") or path
    local chunk, err = load(text, "=" .. label, "t")
    if not chunk then error(err, 0) end
    local b = chunk()
    local has_options = next(options) ~= nil
    if type(b) == "function" then
      b = b(options)
    elseif type(b) == "table" and type(rawget(b, "new")) == "function"
        and (has_options or rawget(b, "choose") == nil) then
      b = b.new(options)
    elseif has_options then
      error("options given but the file has no new(options)", 0)
    end
    if type(b) ~= "table" or type(rawget(b, "choose")) ~= "function" then
      error("the file must return a bot (a table with a choose function)", 0)
    end
    if type(rawget(b, "name")) ~= "string" then b.name = label:gsub("%.lua$", "") end
    return b
  end
end

--- main(spec) -> exit status
-- Serves 'spec' on stdin/stdout until quit or end of input (`konane --ugi SPEC`).
function M.main(spec)
  if type(spec) ~= "string" or spec == "" then
    io.stderr:write("konane --ugi: a bot spec is needed (alphabeta:time=1, mybot.lua, ...)\n")
    return 2
  end
  local head, _, is_path = bot_mod.parse_spec(spec)
  local texts = {}
  if is_path then
    local f, err = io.open(head, "rb")
    if not f then -- a file named on the command line that is not there: a usage error
      io.stderr:write("konane --ugi: cannot read '" .. head .. "': " .. tostring(err) .. "\n")
      return 2
    end
    local text, rerr = f:read("a") -- nil for a directory
    f:close()
    if not text then
      io.stderr:write("konane --ugi: cannot read '" .. head .. "': " .. tostring(rerr or "not a readable file") .. "\n")
      return 2
    end
    if text:byte(1) == 27 then
      io.stderr:write("konane --ugi: '" .. head .. "' is a binary chunk; bots are loaded as text only\n")
      return 1
    end
    texts[head] = text
  end
  local ok, server_or_err = pcall(M.new, spec, { write = function() end })
  if not ok then
    -- a built-in bot that cannot be made is a bad spec (unknown bot, bad option): exit status
    -- 2 like every bad command line; a bot file that fails to load is an error of its own (1)
    io.stderr:write("konane --ugi: " .. clean(server_or_err) .. "\n")
    return is_path and 1 or 2
  end
  local s = server_or_err
  if not is_path then
    -- a built-in bot's options are checked now (an unknown one is a bad command line); the bot
    -- made is the one the first search uses
    local b, why = s:ensure_bot()
    if not b then
      io.stderr:write("konane --ugi: " .. clean(why):gsub("^the bot cannot start: ", "") .. "\n")
      return 2
    end
  end
  io.stdout:setvbuf("full")
  local keep = M.lockdown()
  if keep.fd_read then
    s.chan = fd_channel(keep, keep.stdout)
  else -- without konane.core.fd_read: blocking reads, no input seen during a search
    local stdin, out = keep.stdin, keep.stdout
    s.chan = { read = function() return stdin:read("l") or false end,
               poll = function() return nil end,
               write = function(text) out:write(text); out:flush() end }
  end
  s.opts.load_file = file_loader(texts)
  s.opts.exit = keep.exit
  if is_path then
    -- a bot written in Lua: a count hook keeps reading the input while it thinks
    local sethook, clock = keep.sethook, keep.clock
    s.opts.hook = function(poll)
      local last = clock()
      sethook(function()
        local now = clock()
        if now - last < 0.002 then return end
        last = now
        if poll() then error("stopped", 0) end
      end, "", 10000)
    end
    s.opts.unhook = function() sethook() end
  end
  s:run()
  return 0
end

return M
