-- konane.repl: what the `konane` REPL knows about Konane and about showing Lua values.
--
-- The host (src/repl.c) owns the terminal: readline, history, Ctrl-C. It asks this module for:
--   start(opts)            install the commands as globals, make the game `g`, return the banner;
--   rewrite(line)          a typed move or a bare command name -> Lua code to run instead (or nil);
--   show(...)              print the values an expression returned (pretty-printed);
--   complete(word, line)   completion candidates for the word before the cursor.
-- Everything else here is the commands themselves (help() lists them) and the helpers they use
-- (format, draw), which scripts and tests may call too.

local M = {}

-- Settings the host passes to start(): tty (stdin and stdout are a terminal), color.
local opts = { tty = false, color = false, width = 80 }
M.opts = opts

-- Engine time per move (seconds) for go(), hint() and the default opponent of vs().
M.think_time = 1.0
M.default_bot = "alphabeta"
-- The time per move the clock gives a bot in vs() (built-in bots use at most 70% of it).
M.bot_clock = 60

local konane            -- the konane module, loaded by start() (nil when it failed to load)
local konane_error      -- why it failed
local opponent          -- { bot=, side=, game= } while vs() is running against the user

local function load_konane()
  if konane then return konane end
  local ok, k = pcall(require, "konane")
  if ok and type(k) == "table" then
    konane = k
  else
    konane_error = tostring(k)
  end
  return konane
end

local function need_konane()
  local k = load_konane()
  if not k then fail("the konane module could not be loaded: " .. tostring(konane_error)) end
  return k
end

local function now()
  local k = konane
  if k and k.core and k.core.clock then return k.core.clock() end
  return os.clock()
end

-- An error the REPL shows as its message alone (the host adds no traceback to an error object
-- with __tostring): for mistakes of the user such as an illegal move.
local PLAIN_ERROR = { __tostring = function(e) return e.message end }
local function fail(msg)
  error(setmetatable({ message = msg }, PLAIN_ERROR), 0)
end
M.fail = fail

local function write(...)
  io.write(...)
  io.flush()
end

local function side_name(side)
  return side == "black" and "Black" or side == "white" and "White" or tostring(side)
end

local function other(side)
  return side == "black" and "white" or "black"
end

-- ---------------------------------------------------------------------------------------------
-- Colour (ANSI, only when the host says so: a terminal and no NO_COLOR).

local SGR = {
  reset = "\27[0m", bold = "\27[1m", dim = "\27[2m", red = "\27[31m", green = "\27[32m",
  yellow = "\27[33m", blue = "\27[34m", magenta = "\27[35m", cyan = "\27[36m",
  black_piece = "\27[1;31m", white_piece = "\27[1;37m", last = "\27[7m",
}

local function paint(style, s, color)
  if color == nil then color = opts.color end
  if not color then return s end
  return SGR[style] .. s .. SGR.reset
end

-- ---------------------------------------------------------------------------------------------
-- Boards

local function is_game(v)
  if type(v) ~= "userdata" then return false end
  local mt = getmetatable(v)
  return type(mt) == "table" and mt.__name == "konane.Game"
end

local function square_name(f, r)
  return string.char(97 + f) .. tostring(r + 1)
end

-- The squares a move touches: origin, landing and (for a jump) the squares in between.
local function move_squares(move)
  local set = {}
  if type(move) ~= "string" then return set end
  local a, b = move:match("^(%a%d+)%-(%a%d+)$")
  if not a then
    set[move] = true
    return set
  end
  local f1, r1 = a:byte(1) - 97, tonumber(a:sub(2)) - 1
  local f2, r2 = b:byte(1) - 97, tonumber(b:sub(2)) - 1
  local df = f2 > f1 and 1 or f2 < f1 and -1 or 0
  local dr = r2 > r1 and 1 or r2 < r1 and -1 or 0
  local f, r = f1, r1
  for _ = 0, 64 do
    set[square_name(f, r)] = true
    if f == f2 and r == r2 then break end
    f, r = f + df, r + dr
  end
  return set
end

local PHASE_TEXT = { remove1 = "first removal", remove2 = "second removal", jump = "jump" }

--- status(game) -> string
-- One line: whose turn (or the result), the phase, the ply and the last move.
function M.status(game, color)
  local parts = {}
  if game:over() then
    local w = game:winner()
    parts[1] = paint("bold", string.format("Game over: %s has no legal move, %s wins", side_name(other(w)),
      side_name(w)), color)
  else
    local turn = game:turn()
    parts[1] = paint("bold", string.format("%s (%s) to move", side_name(turn), turn == "black" and "x" or "o"),
      color)
    local phase = game.phase and PHASE_TEXT[game:phase()]
    if phase then parts[#parts + 1] = phase end
  end
  local last = game:last()
  if last then
    local by = other(game:turn())  -- the side that moved last is the one not to move now
    parts[#parts + 1] = string.format("last %s (%s)", last, side_name(by))
  end
  parts[#parts + 1] = "ply " .. game:ply()
  return table.concat(parts, ", ")
end

--- draw(game, {color=}) -> string
-- The board with coordinates on all four sides, Black 'x', White 'o', empty '.', the squares of
-- the last move highlighted (in colour) or listed in the status line, then the status line.
function M.draw(game, o)
  o = o or {}
  local color = o.color
  if color == nil then color = opts.color end
  local rows, cols = game:rows(), game:cols()
  local touched = color and move_squares(game:last()) or {}
  local files = {}
  for f = 0, cols - 1 do files[#files + 1] = string.char(97 + f) end
  local header = "    " .. table.concat(files, " ")
  local out = { paint("dim", header, color) }
  for r = rows - 1, 0, -1 do
    local line = { paint("dim", string.format("%3d", r + 1), color) }
    for f = 0, cols - 1 do
      local sq = square_name(f, r)
      local who = game:at(sq)
      local ch
      if who == "black" then
        ch = paint("black_piece", "x", color)
      elseif who == "white" then
        ch = paint("white_piece", "o", color)
      else
        ch = paint("dim", ".", color)
      end
      if touched[sq] then ch = SGR.last .. ch .. SGR.reset end
      line[#line + 1] = ch
    end
    out[#out + 1] = table.concat(line, " ") .. paint("dim", string.format(" %d", r + 1), color)
  end
  out[#out + 1] = paint("dim", header, color)
  out[#out + 1] = M.status(game, color)
  return table.concat(out, "\n")
end

-- ---------------------------------------------------------------------------------------------
-- Pretty-printing values

local KEYWORDS = {
  "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
  "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}
local IS_KEYWORD = {}
for _, k in ipairs(KEYWORDS) do IS_KEYWORD[k] = true end

local function is_identifier(s)
  return type(s) == "string" and s:match("^[%a_][%w_]*$") ~= nil and not IS_KEYWORD[s]
end

local ESCAPES = { ["\\"] = "\\\\", ['"'] = '\\"', ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
  ["\a"] = "\\a", ["\b"] = "\\b", ["\f"] = "\\f", ["\v"] = "\\v" }

--- quote(s) -> a Lua string literal for s (readable: \n rather than a backslash-newline)
function M.quote(s)
  return '"' .. s:gsub('[%c\\"]', function(c)
    return ESCAPES[c] or string.format("\\%03d", c:byte())
  end) .. '"'
end

local function format_number(n)
  if math.type(n) == "integer" then return tostring(n) end
  if n ~= n then return "nan" end
  if n == math.huge then return "inf" end
  if n == -math.huge then return "-inf" end
  local s = string.format("%.14g", n)
  if not s:find("[%.eEn]") then s = s .. ".0" end
  return s
end

local TYPE_ORDER = { number = 1, string = 2, boolean = 3 }

local function key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return (TYPE_ORDER[ta] or 9) < (TYPE_ORDER[tb] or 9) or
      ((TYPE_ORDER[ta] or 9) == (TYPE_ORDER[tb] or 9) and ta < tb) end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end

local MAX_DEPTH = 4     -- nesting shown before '{...}'
local MAX_ITEMS = 100   -- entries shown per table before '... (n more)'
local WIDTH = 78        -- a table that fits in this many columns is shown on one line

local format_value

local function format_scalar(v, color)
  local t = type(v)
  if t == "string" then return paint("green", M.quote(v), color) end
  if t == "number" then return paint("cyan", format_number(v), color) end
  if t == "boolean" or t == "nil" then return paint("magenta", tostring(v), color) end
  if is_game(v) then
    local ok, s = pcall(function()
      return string.format("<game %dx%d %s, ply %d>", v:rows(), v:cols(), v:variant(), v:ply())
    end)
    return paint("yellow", ok and s or tostring(v), color)
  end
  local ok, s = pcall(tostring, v)  -- a __tostring may raise or return a non-string
  if not ok or type(s) ~= "string" then s = string.format("%s: %p", type(v), v) end
  local mt = getmetatable(v)
  if type(mt) == "table" and mt.__tostring then return s end
  return paint("dim", s, color)
end

-- Table entries in display order: the array part 1..n, then the other keys sorted.
local function entries(t)
  local list, n = {}, 0
  while rawget(t, n + 1) ~= nil do
    n = n + 1
    list[n] = { n, rawget(t, n), array = true }
  end
  local keys = {}
  for k in next, t do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, key_less)
  for _, k in ipairs(keys) do list[#list + 1] = { k, rawget(t, k) } end
  return list
end

local function format_key(k, color)
  if is_identifier(k) then return k end
  return "[" .. format_value(k, color, 0, {}, 0) .. "]"
end

-- format_value(v, color, depth, seen, indent) -> string (may contain newlines)
function format_value(v, color, depth, seen, indent)
  if type(v) ~= "table" then return format_scalar(v, color) end
  local mt = getmetatable(v)
  if type(mt) == "table" and mt.__tostring then return format_scalar(v, color) end
  if seen[v] then return paint("dim", "<cycle: " .. tostring(v) .. ">", color) end
  if depth >= MAX_DEPTH then return next(v) == nil and "{}" or "{...}" end
  seen[v] = true
  local list = entries(v)
  local parts = {}
  local shown = math.min(#list, MAX_ITEMS)
  local simple = true
  for i = 1, shown do
    local e = list[i]
    local s = format_value(e[2], color, depth + 1, seen, indent + 2)
    if type(e[2]) == "table" and next(e[2]) ~= nil then simple = false end
    if not e.array then s = format_key(e[1], color) .. " = " .. s end
    parts[i] = s
  end
  if #list > shown then
    parts[#parts + 1] = paint("dim", string.format("... (%d more)", #list - shown), color)
  end
  seen[v] = nil
  if #parts == 0 then return "{}" end
  local one = "{" .. table.concat(parts, ", ") .. "}"
  local visible = one:gsub("\27%[[%d;]*m", "")
  if #visible + indent <= WIDTH and not one:find("\n") then return one end
  -- Several lines. A list of short scalars is packed, several to a line.
  local pad = string.rep(" ", indent + 2)
  local lines = {}
  if simple then
    local line = pad
    local len = #pad
    for i, s in ipairs(parts) do
      local w = #(s:gsub("\27%[[%d;]*m", "")) + 2
      if len + w > WIDTH and len > #pad then
        lines[#lines + 1] = line
        line, len = pad, #pad
      end
      line = line .. s .. (i < #parts and ", " or "")
      len = len + w
    end
    lines[#lines + 1] = line
  else
    for i, s in ipairs(parts) do lines[i] = pad .. s .. (i < #parts and "," or "") end
  end
  return "{\n" .. table.concat(lines, "\n") .. "\n" .. string.rep(" ", indent) .. "}"
end

--- format(value, {color=}) -> string
-- A readable rendering of any Lua value: strings quoted, tables with their keys sorted, nested up
-- to 4 levels and 100 entries per table, cycles marked, long tables over several lines; a game
-- is shown as a short tag (show() draws a game given on its own as a board).
function M.format(v, o)
  local color = o and o.color
  if color == nil then color = opts.color end
  return format_value(v, color, 0, {}, 0)
end

--- show(...) -> prints the values of an expression typed at the prompt
-- A game on its own is drawn as a board; other values are formatted and separated by tabs (by
-- new lines when one of them takes several lines). The first value is kept in the global `_`.
function M.show(...)
  local n = select("#", ...)
  if n == 0 then return end
  local first = ...
  rawset(_G, "_", first)
  if n == 1 and is_game(first) then
    print(M.draw(first))
    return
  end
  local parts, multi = {}, false
  for i = 1, n do
    local s = M.format((select(i, ...)))
    if s:find("\n") then multi = true end
    parts[i] = s
  end
  print(table.concat(parts, multi and "\n" or "\t"))
end

-- ---------------------------------------------------------------------------------------------
-- Completion

local function collect_keys(v, out, only_functions, depth, seen)
  if depth > 8 or v == nil or seen[v] then return end
  seen[v] = true
  if type(v) == "table" then
    for k, val in next, v do
      if type(k) == "string" and k:match("^[%a_][%w_]*$") then
        if not only_functions or type(val) == "function" or
            (type(val) == "table" and getmetatable(val) and getmetatable(val).__call) then
          if out[k] == nil then out[k] = val end
        end
      end
    end
  end
  local mt = getmetatable(v)
  if type(mt) == "table" then
    local index = rawget(mt, "__index")
    if type(index) == "table" then collect_keys(index, out, only_functions, depth + 1, seen) end
  elseif type(v) == "string" then
    collect_keys(string, out, only_functions, depth + 1, seen)
  end
end

--- complete(word, line, start) -> sorted list of candidates
-- 'word' is what is before the cursor back to the last space or operator, e.g. "g:mo",
-- "konane.ne", "pri". The part before the last '.' or ':' must be a chain of names (a.b.c); it is
-- looked up (without calling anything) and its fields, including those reached through
-- __index tables, are offered. After ':' only functions are offered. A function completes with
-- '(' after it (g:mo -> g:moves(). A bare word completes globals and keywords. 'line' and
-- 'start' (the whole line, the word's offset) are passed by the host for future use.
function M.complete(word, line, start) -- luacheck: ignore line start
  local prefix, sep, partial = word:match("^(.*)([%.:])([%w_]*)$")
  local candidates = {}
  local pool = {}
  if prefix then
    local v = _G
    for name in (prefix .. "."):gmatch("([^%.:]*)[%.:]") do
      if not name:match("^[%a_][%w_]*$") then return {} end
      if type(v) ~= "table" and not (type(v) == "userdata" or type(v) == "string") then return {} end
      local ok, next_v = pcall(function() return v[name] end)
      if not ok then return {} end
      v = next_v
    end
    if v == nil then return {} end
    collect_keys(v, pool, sep == ":", 0, {})
  else
    partial = word
    prefix, sep = "", ""
    collect_keys(_G, pool, false, 0, {})
    for _, k in ipairs(KEYWORDS) do if pool[k] == nil then pool[k] = true end end
  end
  for k, val in pairs(pool) do
    if k:sub(1, #partial) == partial then
      local s = prefix .. sep .. k
      if type(val) == "function" then s = s .. "(" end
      candidates[#candidates + 1] = s
    end
  end
  table.sort(candidates)
  return candidates
end

-- ---------------------------------------------------------------------------------------------
-- The current game and the commands

local function game()
  local g = rawget(_G, "g")
  if not is_game(g) then
    fail("no game: type new() to start one (the current game is the global g)")
  end
  return g
end

local function print_board(g)
  print(M.draw(g))
end

local function format_score(s)
  if type(s) ~= "number" then return tostring(s) end
  if math.type(s) == "float" then s = math.floor(s + 0.5) end
  return (s > 0 and "+" or "") .. tostring(s)
end

local function format_count(n)
  if type(n) ~= "number" then return tostring(n) end
  if n >= 1e9 then return string.format("%.2fG", n / 1e9) end
  if n >= 1e6 then return string.format("%.2fM", n / 1e6) end
  if n >= 1e4 then return string.format("%.1fk", n / 1e3) end
  return tostring(math.tointeger(n) or n)
end

-- "b5-d5  score -100, depth 12, 1.21M nodes, 0.50 s" and the principal variation on a second line
-- 'words' after 'head', wrapped to the terminal width with continuation lines indented.
local function wrap(head, words)
  local width = math.max(40, (tonumber(opts.width) or 80) - 1)
  local lines, line = {}, head
  for i, w in ipairs(words) do
    if i > 1 and #line + 1 + #w > width then
      lines[#lines + 1] = line
      line = string.rep(" ", #head) .. w
    else
      line = line .. (i > 1 and " " or "") .. w
    end
  end
  lines[#lines + 1] = line
  return table.concat(lines, "\n")
end

local function result_text(r)
  local pv = type(r.pv) == "table" and #r.pv > 0 and ("\n" .. wrap("  line: ", r.pv)) or ""
  return string.format("%s  (score %s, depth %s, %s nodes, %.2f s)%s", paint("bold", tostring(r.move)),
    format_score(r.score), tostring(r.depth or "?"), format_count(r.nodes), tonumber(r.time) or 0, pv)
end

local function info_line(t)
  local pv = type(t.pv) == "table" and table.concat(t.pv, " ") or (t.move or "")
  return string.format("depth %2s  score %6s  nodes %7s  %6.2f s  pv %s", tostring(t.depth or "?"),
    format_score(t.score), format_count(t.nodes), tonumber(t.time) or 0, pv)
end

-- A progress reporter for g:search{info=}: on a terminal, 'mode' "lines" prints one line per
-- completed depth, "status" keeps one line updated in place; elsewhere nothing. Returns the
-- callback (or nil) and a function to call at the end (erases the status line).
-- Can a line be rewritten in place ("\r" and erase to end of line)? A terminal that is not dumb.
local function can_redraw()
  return opts.tty and (os.getenv("TERM") or "dumb") ~= "dumb"
end

local function progress(mode)
  if not opts.tty then return nil, function() end end
  if mode == "status" and not can_redraw() then return nil, function() end end
  local shown = false
  local function cb(t)
    if type(t) ~= "table" then return end
    local s = info_line(t)
    local width = (tonumber(opts.width) or 80) - 3
    if #s > width then s = s:sub(1, width - 3) .. "..." end
    if mode == "lines" then
      write(s, "\n")
    else
      write("\r\27[K", paint("dim", s))
      shown = true
    end
  end
  return cb, function() if shown then write("\r\27[K") end end
end

local function search(g, limits)
  if not g.search then
    fail("the engine's search (g:search) is not in this build")
  end
  return g:search(limits)
end

-- The bot factory: konane.bot(spec) when the module has it, else konane.bot's module directly.
local function make_bot(spec)
  local k = load_konane()
  local factory
  if k and type(k.bot) == "function" then
    factory = k.bot
  elseif k and type(k.bot) == "table" and type(k.bot.new) == "function" then
    factory = k.bot.new
  else
    local ok, mod = pcall(require, "konane.bot")
    if ok and type(mod) == "table" and type(mod.new) == "function" then factory = mod.new end
  end
  if factory then return factory(spec) end
  if type(spec) == "table" then return spec end
  -- No bot library: the engine's search if there is one, else a random mover.
  return {
    name = "engine",
    choose = function(_, cg, clock)
      if cg.search then return cg:search { time = clock and clock.time or M.think_time }.move end
      local list = cg:moves()
      return list[math.random(#list)]
    end,
  }
end

-- Let 'bot' choose a move for the side to move of 'g' and play it. Returns the move and the time.
local function bot_move(bot, g)
  local t0 = now()
  local clone = g:clone()
  -- A generous clock: a bot keeps its own time setting (1 s by default for the built-ins).
  local move = bot:choose(clone, { time = M.bot_clock, ply = g:ply() })
  local spent = now() - t0
  if type(move) ~= "string" then
    fail(string.format("bot '%s' answered %s instead of a move", tostring(bot.name), tostring(move)))
  end
  local ok, canon = pcall(g.play, g, move)
  if not ok then
    fail(string.format("bot '%s' answered an illegal move: %s", tostring(bot.name), tostring(canon)))
  end
  return canon, spent
end

local function result_line(g)
  local w = g:winner()
  return string.format("%s wins: %s has no legal move.", side_name(w), side_name(other(w)))
end

-- After a move of the user: the opponent set by vs() answers while it is its turn.
local function opponent_replies(g)
  if not opponent or opponent.game ~= g then
    opponent = nil
    return false
  end
  local replied = false
  while not g:over() and g:turn() == opponent.side do
    local bot = opponent.bot
    local redraw = can_redraw()
    if redraw then write(paint("dim", string.format("%s is thinking...", bot.name or "bot"))) end
    local ok, move, spent = pcall(bot_move, bot, g)
    if redraw then write("\r\27[K") end
    if not ok then
      if not tostring(move):find("interrupted!", 1, true) then opponent = nil end
      error(move, 0)
    end
    print(string.format("%s (%s) plays %s  (%.2f s)", bot.name or "bot", side_name(opponent.side), move, spent))
    replied = true
  end
  if g:over() then
    if opponent.bot.done then pcall(opponent.bot.done, opponent.bot, { winner = g:winner() }) end
    opponent = nil
  end
  return replied
end

-- Play 'move' on the current game, show the board, let the opponent reply.
local function play_and_show(move)
  local g = game()
  if g:over() then
    fail(string.format("illegal move '%s': the game is over (%s)", tostring(move), result_line(g)))
  end
  local ok, err = pcall(g.play, g, move)
  if not ok then fail(tostring(err)) end
  opponent_replies(g)
  print_board(g)
end

-- Parse the arguments of new(): (rows, cols, variant), ("6x6"), ("free"), (fen), {table}.
local function new_options(a, b, c)
  if type(a) == "table" then return a end
  local o = {}
  local args = { a, b, c }
  local nums = {}
  for i = 1, 3 do
    local v = args[i]
    if type(v) == "number" then
      nums[#nums + 1] = v
    elseif type(v) == "string" then
      local r, cc = v:match("^(%d+)[xX](%d+)$")
      if r then
        nums[#nums + 1], nums[#nums + 2] = tonumber(r), tonumber(cc)
      elseif v:find("/") or v:match("^[xo%.%d]+ [bw]$") then
        o.fen = v
      else
        o.variant = v
      end
    elseif v ~= nil then
      error(string.format("bad argument #%d to 'new' (number, string or table expected, got %s)", i, type(v)), 3)
    end
  end
  if nums[1] then
    o.rows = nums[1]
    o.cols = nums[2] or nums[1]
  end
  return o
end

local commands = {}
local order = {}

local function command(name, usage, line, detail, fn)
  commands[name] = { name = name, usage = usage, line = line, detail = detail, fn = fn }
  order[#order + 1] = name
end

command("new", "new(rows, cols, variant)", "start a new game (8x8 brainking by default)", [[
new()                  8x8, variant brainking
new(6)                 6x6;  new(6, 8): 6 rows, 8 columns;  new("10x10")
new(8, 8, "free")      a variant by name (variants() lists them)
new("xoxo/oxox/xoxo/oxox b")   start from a position text
new{rows=6, cols=6, variant="free", fen=...}   the options of konane.new
The new game becomes the global g; an opponent set by vs() is dropped.]],
  function(a, b, c)
    local k = need_konane()
    local o = new_options(a, b, c)
    local g = k.new(o)
    rawset(_G, "g", g)
    opponent = nil
    print_board(g)
  end)

command("play", "play(move)", "play a move (typing the move alone does the same)", [[
play("f5-d5") or simply f5-d5 at the prompt. Accepted: d5 (a removal), f5-d5 (a jump),
f5-b5 (a multiple jump, first and last squares), f5-d5-b5 (full path), F5-B5, f5b5.
The board is shown after the move; when vs() set an opponent, it answers first.]],
  function(move)
    if type(move) ~= "string" then
      error("bad argument #1 to 'play' (move string expected, got " .. type(move) .. ")", 2)
    end
    play_and_show(move)
  end)

command("undo", "undo(n)", "take back the last move (n moves)", [[
undo() takes back one move; undo(3) three. Against an opponent set by vs(), undo() takes back
your last move and the opponent's reply, so it is your turn again.]],
  function(n)
    local g = game()
    if n ~= nil and (math.type(n) ~= "integer" or n < 1) then
      error("bad argument #1 to 'undo' (positive integer expected)", 2)
    end
    local count = n or 1
    local undone = {}
    for _ = 1, count do
      local m = g:undo()
      if not m then break end
      undone[#undone + 1] = m
    end
    if n == nil and opponent and opponent.game == g and #undone > 0 and g:turn() == opponent.side then
      local m = g:undo()
      if m then undone[#undone + 1] = m else g:play(undone[#undone]) table.remove(undone) end
    end
    if #undone == 0 then
      print("nothing to undo: the game is at its start")
    else
      print("undone: " .. table.concat(undone, " "))
    end
    print_board(g)
  end)

command("board", "board()", "show the board", [[
The board with coordinates, whose turn it is, the phase and the last move.
`g` typed alone shows the same; print(g) or tostring(g) the plain text of the core.]],
  function() print_board(game()) end)

command("moves", "moves()", "list the legal moves", [[
The legal moves of the side to move, in the order of g:moves() (by origin square, then landing).]],
  function()
    local g = game()
    local list = g:moves()
    if #list == 0 then
      print(string.format("%s has no legal move: %s", side_name(g:turn()), g:over() and result_line(g) or ""))
      return
    end
    print(string.format("%d legal move%s for %s:", #list, #list == 1 and "" or "s", side_name(g:turn())))
    local text = M.format(list, { color = false }):gsub('"', ""):gsub("^{\n?", ""):gsub("\n?}$", "")
    if not text:find("^ ") then text = "  " .. text end
    print(text)
  end)

command("history", "history()", "the moves played so far, numbered", [[
Moves from the start position, Black's and White's on one numbered line: 1. d5 e5 2. f5-d5 ...]],
  function()
    local g = game()
    local h = g:history()
    if #h == 0 then print("no move yet") return end
    local out = {}
    for i = 1, #h, 2 do
      out[#out + 1] = string.format("%d. %s%s", (i + 1) // 2, h[i], h[i + 1] and (" " .. h[i + 1]) or "")
    end
    print(table.concat(out, " "))
  end)

command("hint", "hint(seconds)", "the engine's suggestion for the side to move", [[
Searches the current position (1 second by default) and prints the best move, its score and the
principal variation, without playing it. Ctrl-C stops the search early.]],
  function(seconds)
    local g = game()
    if g:over() then print(result_line(g)) return end
    local cb, done = progress("status")
    local ok, r = pcall(search, g, { time = seconds or M.think_time, info = cb })
    done()
    if not ok then error(r, 0) end
    print("hint: " .. result_text(r))
  end)

command("analyze", "analyze(seconds)", "search with live progress: depth, score, best line", [[
analyze(5) searches the position for 5 seconds, printing a line per completed depth (depth,
score for the side to move, nodes, time, principal variation). analyze() runs until Ctrl-C.
Interrupting keeps the best line found so far. The game is not changed.]],
  function(seconds)
    local g = game()
    if g:over() then print(result_line(g)) return end
    local info = progress("lines")
    local limits = { time = seconds or 1e9, info = info }
    if opts.tty and not seconds then print(paint("dim", "analysing until Ctrl-C...")) end
    -- Ctrl-C raises "interrupted!" through here: the lines already printed are the analysis.
    local r = search(g, limits)
    print("best: " .. result_text(r))
  end)

command("go", "go(seconds)", "let the engine play a move for the side to move", [[
The engine searches (1 second by default), plays its move and shows the board. Against an
opponent set by vs(), the opponent then answers as usual.]],
  function(seconds)
    local g = game()
    if g:over() then print(result_line(g)) return end
    local cb, done = progress("status")
    local ok, r = pcall(search, g, { time = seconds or M.think_time, info = cb })
    done()
    local move
    if ok then
      move = r.move
      print("engine plays " .. result_text(r))
    elseif tostring(r):find("not in this build", 1, true) then
      move = select(1, bot_move(make_bot(M.default_bot), g:clone()))
      print(string.format("engine plays %s", move))
    else
      error(r, 0)
    end
    play_and_show(move)
  end)

command("vs", "vs(bot, side)", "play against a bot: it answers each move you type", [[
vs()                         you against the engine (alphabeta), you play the side to move
vs("mcts:time=0.5")          another bot (konane.bot specs: random, greedy, alphabeta, mcts,
                             solver, or a path to a bot file); vs("greedy", "white"): you play White
vs("random", "alphabeta")    two bots play the game out from here (Ctrl-C stops)
vs(false)                    stop playing against the bot
A finished game is replaced by a new one of the same size and variant. The bot answers every
move you type (or play with go()); undo() takes back your move and its reply.]],
  function(spec, second)
    if spec == false then
      opponent = nil
      print("no opponent: moves you type are played for either side")
      return
    end
    local k = need_konane()
    local g = rawget(_G, "g")
    if not is_game(g) or g:over() then
      local o = { variant = is_game(g) and g:variant() or nil,
        rows = is_game(g) and g:rows() or nil, cols = is_game(g) and g:cols() or nil }
      g = k.new(o)
      rawset(_G, "g", g)
    end
    local bot = make_bot(spec == nil and M.default_bot or spec)
    if second ~= nil and second ~= "black" and second ~= "white" then
      -- Two bots play the game out.
      local bot2 = make_bot(second)
      local bots = { [g:turn()] = bot, [other(g:turn())] = bot2 }
      opponent = nil
      for side, b in pairs(bots) do
        if b.new_game then b:new_game { side = side, rows = g:rows(), cols = g:cols(), variant = g:variant() } end
      end
      print(string.format("%s (%s) against %s (%s)", bot.name or "bot", side_name(g:turn()), bot2.name or "bot",
        side_name(other(g:turn()))))
      while not g:over() do
        local side = g:turn()
        local move, spent = bot_move(bots[side], g)
        print(string.format("%3d. %-6s %s %s  (%.2f s)", g:ply(), side_name(side), bots[side].name or "bot",
          move, spent))
      end
      print_board(g)
      return
    end
    local you = second or g:turn()
    opponent = { bot = bot, side = other(you), game = g }
    if bot.new_game then
      bot:new_game { side = other(you), rows = g:rows(), cols = g:cols(), variant = g:variant() }
    end
    print(string.format("You play %s against %s. Type your moves (moves() lists them).", side_name(you),
      bot.name or "bot"))
    opponent_replies(g)
    print_board(g)
  end)

command("perft", "perft(depth)", "count the move sequences of a depth, with the time taken", [[
perft(6) counts the leaf positions 6 plies from here. perft() runs depths 1, 2, ... until a
depth takes more than a second. Ctrl-C stops a long count.]],
  function(depth)
    local g = game()
    if depth ~= nil and (math.type(depth) ~= "integer" or depth < 0) then
      error("bad argument #1 to 'perft' (non-negative integer expected)", 2)
    end
    local function one(d)
      local t0 = now()
      local n = g:perft(d)
      local dt = now() - t0
      local rate = dt >= 0.01 and string.format("  %8s leaves/s", format_count(n / dt)) or ""
      print(string.format("perft(%2d) = %14d  %8.3f s%s", d, n, dt, rate))
      return dt, n
    end
    if depth then one(depth) return end
    for d = 1, 64 do
      local dt, n = one(d)
      if dt > 1 or n == 0 then break end
    end
  end)

command("solve", "solve(seconds)", "solve the position exactly: who wins, with which move", [[
Searches to the end of the game (no time limit by default; solve(10) gives up after 10
seconds). Ctrl-C stops it. Boards up to about 6x6 solve quickly; 8x8 from the start does not.]],
  function(seconds)
    local g = game()
    if not g.solve then fail("the solver (g:solve) is not in this build") end
    if g:over() then print(result_line(g)) return end
    local redraw = can_redraw()
    if redraw then write(paint("dim", "solving (Ctrl-C stops)...")) end
    local ok, r = pcall(g.solve, g, { time = seconds })
    if redraw then write("\r\27[K") end
    if not ok then error(r, 0) end
    local stats = string.format("%s nodes, %.2f s", format_count(r.nodes), tonumber(r.time) or 0)
    if r.win == nil then
      print(string.format("unknown: no result within the limits (%s)", stats))
    elseif r.win then
      print(string.format("%s to move wins%s  (%s)", side_name(g:turn()),
        r.move and (" with " .. r.move) or "", stats))
    else
      print(string.format("%s to move loses%s  (%s)", side_name(g:turn()),
        r.move and (" (best try " .. r.move .. ")") or "", stats))
    end
  end)

-- The record of the current game (konane.pgn's record table).
function M.record(g)
  local k = need_konane()
  local rec = { variant = g:variant(), rows = g:rows(), cols = g:cols(), moves = g:history(),
    tags = { Event = "konane REPL", Date = os.date("!%Y.%m.%d") } }
  local ok, plain = pcall(k.new, { variant = g:variant(), rows = g:rows(), cols = g:cols() })
  if not ok or plain:start_fen() ~= g:start_fen() then rec.fen = g:start_fen() end
  if opponent and opponent.game == g then
    rec[opponent.side] = tostring(opponent.bot.name or "bot")
    rec[other(opponent.side)] = "you"
  end
  if g:over() then
    rec.winner = g:winner()
    rec.termination = "normal"
  end
  return rec
end

local function pgn_module()
  local ok, pgn = pcall(require, "konane.pgn")
  if not ok then fail("game records (konane.pgn) are not available: " .. tostring(pgn)) end
  return pgn
end

command("pgn", "pgn(path)", "the game record; pgn(\"game.pgn\") saves it", [[
pgn() prints the current game as a PGN-style record (tags, numbered moves, result: * while
the game goes on). pgn("game.pgn") writes it to a file instead (replacing it), and
pgn("games.pgn", "a") appends. open("game.pgn") reads a game back.]],
  function(path, mode)
    local g = game()
    local pgn = pgn_module()
    local rec = M.record(g)
    if path == nil then
      write(pgn.write(rec))
      return
    end
    if type(path) ~= "string" then
      error("bad argument #1 to 'pgn' (file name expected, got " .. type(path) .. ")", 2)
    end
    local ok, err = pgn.write_file(path, rec, mode == "a" and "a" or "w")
    if not ok then fail("cannot write " .. path .. ": " .. tostring(err)) end
    print(string.format("saved %d move%s to %s", #rec.moves, #rec.moves == 1 and "" or "s", path))
  end)

command("open", "open(path, n)", "load game n (default 1) of a PGN file into g", [[
open("game.pgn") replays the first game of the file into the global g (with its variant, board
and start position); open("games.pgn", 3) the third; open("games.pgn", -1) the last. undo()
then steps back through it.]],
  function(path, n)
    if type(path) ~= "string" then
      error("bad argument #1 to 'open' (file name expected, got " .. type(path) .. ")", 2)
    end
    local pgn = pgn_module()
    local records, err = pgn.read_file(path)
    if not records or #records == 0 then
      fail(err and tostring(err) or ("no game in " .. path))
    end
    n = n or 1
    if math.type(n) ~= "integer" then error("bad argument #2 to 'open' (game number expected)", 2) end
    local index = n < 0 and #records + 1 + n or n
    local rec = records[index]
    if not rec then fail(string.format("%s has %d game%s, not a game %d", path, #records,
      #records == 1 and "" or "s", n)) end
    local ok, g = pcall(pgn.replay, rec)
    if not ok then fail(string.format("%s, game %d: %s", path, index, tostring(g))) end
    rawset(_G, "g", g)
    opponent = nil
    local tags = rec.tags or {}
    print(string.format("game %d of %d: %s - %s, %s, %d moves", index, #records, tostring(tags.Black or "?"),
      tostring(tags.White or "?"), tostring(tags.Result or "*"), #(rec.moves or {})))
    print_board(g)
    if err then print("note: " .. tostring(err)) end
  end)

command("variants", "variants()", "list the opening variants", [[
The variants konane.variants() finds: built-in ones in lua/konane/variants/ and your own on
package.path. Use one with new(8, 8, "free").]],
  function()
    local k = need_konane()
    for _, v in ipairs(k.variants()) do
      print(string.format("%-12s %s", v.name, v.description or ""))
    end
  end)

command("help", "help(name)", "this list, or the details of one command", [[
help() lists the commands; help("vs") or help(vs) shows one in detail.]],
  function(what)
    if what == nil then
      print("Commands (the current game is the global g; see also its methods: g:<Tab>):")
      for _, name in ipairs(order) do
        local c = commands[name]
        print(string.format("  %-25s %s", c.usage, c.line))
      end
      print([[
Type a move such as d5 or f5-d5 to play it. Any Lua works: g:moves(), g:fen(), konane.new{...}.
Tab completes names and methods, Ctrl-C stops a search, Ctrl-D leaves. Details: help("name").]])
      return
    end
    local name = what
    if type(what) == "function" then
      for n, c in pairs(commands) do if c.fn == what then name = n end end
    end
    local c = type(name) == "string" and commands[name]
    if not c then
      print(string.format("no command %s; the commands are: %s", M.format(what, { color = false }),
        table.concat(order, ", ")))
      return
    end
    print(c.usage .. ": " .. c.line)
    print(c.detail)
  end)

command("quit", "quit()", "leave (Ctrl-D does the same)", [[
Leaves the REPL. The history is kept in ~/.konane_history (or $KONANE_HISTORY).]],
  function() os.exit(0, true) end)

M.commands = commands
M.order = order

-- ---------------------------------------------------------------------------------------------
-- Typed moves and bare command names

-- Does 's' read as a move: a square, or squares joined by '-' (or nothing)?
local function looks_like_move(s)
  local rest = s:match("^%a%d%d?(.*)$")
  if not rest then return false end
  while rest ~= "" do
    local r = rest:match("^%-?%a%d%d?(.*)$")
    if not r then return false end
    rest = r
  end
  return true
end

--- rewrite(line) -> code or nil
-- A line that reads as a move (d5, f5-d5, F5-B5, f5b5, f5-d5-b5) is played on the current game,
-- unless one of its names is a global with a value (then it is Lua). A line that is only the
-- name of a REPL command (board, help, undo ...) calls it. Anything else: nil (run as Lua).
function M.rewrite(line)
  local s = line:match("^%s*(.-)%s*;?%s*$")
  if s == "" then return nil end
  if looks_like_move(s) then
    for name in s:gmatch("[%a_][%w_]*") do
      if rawget(_G, name) ~= nil then return nil end
    end
    return string.format("require('konane.repl').typed_move(%q)", s)
  end
  local c = commands[s] or (s == "exit" and commands.quit)
  if c and rawget(_G, s) == c.fn then
    return s .. "()"
  end
  return nil
end

--- typed_move(move): what a move typed at the prompt runs (play with a short error message).
function M.typed_move(move)
  play_and_show(move)
end

-- ---------------------------------------------------------------------------------------------
-- Start

local function banner()
  local k = konane
  local lines = {}
  lines[#lines + 1] = paint("bold", string.format("konane %s", k and tostring(k.VERSION) or "?")) ..
    string.format(" (%s), Hawaiian checkers.", _VERSION)
  if k then
    lines[#lines + 1] = "To play the engine, type vs() and then your moves: d5 first, then jumps such as"
    lines[#lines + 1] = "b5-d5 (moves() lists them). help() lists the commands; any Lua works, the game is g."
    lines[#lines + 1] = "Tab completes, Ctrl-C stops a search, Ctrl-D quits."
  else
    lines[#lines + 1] = "The konane module did not load: " .. tostring(konane_error)
  end
  return table.concat(lines, "\n") .. "\n"
end

--- start({tty=, color=, banner=}) -> banner text
-- Installs the commands as globals (never replacing a global the user already set), loads
-- konane into the global `konane` and starts an 8x8 game in `g`.
function M.start(o)
  o = o or {}
  opts.tty = o.tty and true or false
  opts.color = o.color and true or false
  local k = load_konane()
  if k and rawget(_G, "konane") == nil then rawset(_G, "konane", k) end
  for _, name in ipairs(order) do
    if rawget(_G, name) == nil then rawset(_G, name, commands[name].fn) end
  end
  if rawget(_G, "exit") == nil then rawset(_G, "exit", commands.quit.fn) end
  if k and rawget(_G, "g") == nil then
    local ok, g = pcall(k.new)
    if ok then rawset(_G, "g", g) end
  end
  return banner()
end

return M
