-- konane.repl.session: the state one REPL session shares between its parts (the commands, the
-- pretty-printer, the host glue) and the small helpers every command uses: the current game,
-- the board as this session draws it (colour, side), plain one-line errors, the opponent set
-- by vs(), and the line of moves back()/forward() step through.

local draw = require("konane.draw")

local S = {}

-- Settings the host passes to start() (tty: stdin and stdout are a terminal; color: colour is
-- allowed) and the terminal width it publishes before each line.
S.opts = { tty = false, color = false, width = 80 }

-- Engine time per move (seconds) for go(), hint() and the default opponent of vs().
S.think_time = 1.0
S.default_bot = "alphabeta"
-- The time per move a bot is given in vs() without a time control (the built-in bots use
-- their own setting, 1 s, well within it).
S.bot_clock = 60

-- Draw the board from White's side? vs() sets it from the side you play; flip() toggles it.
S.flip = false

-- The opponent set by vs(): { bot=, side=, game=, clock= } (nil: none).
S.opponent = nil

-- The line back()/forward()/seek() move along: { game=, moves={...} }.
S.line = nil

-- The players of a game, for its record: players[g] = { black = {name=, path=}, white = ... }.
S.players = setmetatable({}, { __mode = "k" })

-- ---------------------------------------------------------------------------------------------
-- Errors

-- An error the REPL shows as its message alone (the host adds no traceback to an error object
-- with __tostring): a mistake of the user, such as an illegal move, phrased for them.
local PLAIN = { __tostring = function(e) return e.message end }
S.PLAIN = PLAIN

--- fail(msg): raise a plain error (one line, no position, no traceback).
function S.fail(msg)
  error(setmetatable({ message = msg }, PLAIN), 0)
end

--- whole(x) -> x as an integer when it is a number with a whole value (5.0 -> 5), else x: the
-- commands take seek(1e3) or perft(6.0) like the integers they are.
function S.whole(x)
  if type(x) == "number" then return math.tointeger(x) or x end
  return x
end

--- fail_write(path, err): fail() with "cannot write PATH: why", naming the path once (io.open's
-- messages start with it already).
function S.fail_write(path, err)
  local why = S.clean(err)
  if why:sub(1, #path + 2) == path .. ": " then why = why:sub(#path + 3) end
  S.fail("cannot write " .. path .. ": " .. why)
end

--- is_plain(err) -> is 'err' a plain error raised by fail()?
function S.is_plain(err)
  return type(err) == "table" and getmetatable(err) == PLAIN
end

--- is_interrupt(err) -> is 'err' the host's Ctrl-C error ("...interrupted!")?
function S.is_interrupt(err)
  return type(err) == "string" and err:find("interrupted!", 1, true) ~= nil
end

--- clean(msg) -> the message of a Lua error without what only a programmer needs
-- Drops a leading "file.lua:12: " and unwraps "bad argument #1 to 'new' (...)" and "bad option
-- 'rows' to 'new' (...)" to their explanation.
function S.clean(msg)
  msg = require("konane.util").message(msg):match("^[^\n]*")
  local inner = msg:match("^bad argument #%d+ to '[^']*' %((.*)%)$")
  if inner then return inner end
  local key, why = msg:match("^bad option '([^']*)' to '[^']*' %((.*)%)$")
  if key then return key .. ": " .. why end
  return msg
end

-- ---------------------------------------------------------------------------------------------
-- Output

function S.write(...)
  io.write(...)
  io.flush()
end

local SGR = {
  reset = "\27[0m", bold = "\27[1m", dim = "\27[2m", red = "\27[31m", green = "\27[32m",
  yellow = "\27[33m", blue = "\27[34m", magenta = "\27[35m", cyan = "\27[36m",
}
S.SGR = SGR

--- paint(style, s, color) -> s in that style when colour is on (color: nil = the session's)
function S.paint(style, s, color)
  if color == nil then color = S.opts.color end
  if not color then return s end
  return SGR[style] .. s .. SGR.reset
end

--- can_redraw() -> can a line be rewritten in place ("\r" and erase)? A terminal, not dumb.
function S.can_redraw()
  return S.opts.tty and (os.getenv("TERM") or "dumb") ~= "dumb"
end

function S.side_name(side)
  return side == "black" and "Black" or side == "white" and "White" or tostring(side)
end

function S.other(side)
  return side == "black" and "white" or "black"
end

-- ---------------------------------------------------------------------------------------------
-- The konane module and the current game

local konane, konane_error

--- konane() -> the konane module, or nil and why it did not load
function S.konane()
  if konane then return konane end
  local ok, k = pcall(require, "konane")
  if ok and type(k) == "table" then konane = k else konane_error = tostring(k) end
  return konane, konane_error
end

function S.need_konane()
  local k, why = S.konane()
  if not k then S.fail("the konane module could not be loaded: " .. tostring(why)) end
  return k
end

S.now = require("konane.util").now

S.is_game = require("konane.util").is_game

--- game() -> the current game (the global g), or a plain error saying how to start one
function S.game()
  local g = rawget(_G, "g")
  if not S.is_game(g) then
    S.fail("no game: type new() to start one (the current game is the global g)")
  end
  return g
end

--- set_game(g): make 'g' the current game; a different game drops the opponent of vs().
function S.set_game(g)
  if S.opponent and S.opponent.game ~= g then S.drop_opponent() end
  rawset(_G, "g", g)
end

--- drop_opponent(): forget the opponent of vs(), telling the bot its game is over.
function S.drop_opponent()
  local o = S.opponent
  S.opponent = nil
  if o and o.bot and type(o.bot.done) == "function" then
    local g = o.game
    pcall(o.bot.done, o.bot, { winner = g and g:over() and g:winner() or nil })
  end
end

-- Extra text for the status line (the clocks of a vs() game with a time control).
S.status_info = nil

--- board(g, {color=}) -> the board as this session draws it (colour, side, status extras)
function S.board(g, o)
  local color = o and o.color
  if color == nil then color = S.opts.color end
  local info = S.status_info and S.status_info(g) or nil
  return draw.board(g, { color = color, flip = S.flip, info = info })
end

function S.show_board(g)
  print(S.board(g))
end

-- ---------------------------------------------------------------------------------------------
-- The line of moves back(), forward() and seek() step along

--- sync(g) -> history, line
-- The line of 'g': the moves played so far followed by those stepped back over. When the game
-- has left the line (a different move was played, or it is another game) the line becomes the
-- game's history: later moves are dropped only when a move is played.
function S.sync(g)
  local h = g:history()
  local line = S.line
  local ok = line and line.game == g and #line.moves >= #h
  if ok then
    for i = 1, #h do
      if line.moves[i] ~= h[i] then ok = false break end
    end
  end
  if not ok then
    line = { game = g, moves = h }
    S.line = line
  end
  return h, line
end

return S
