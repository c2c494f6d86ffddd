-- The vs() command: play against a bot, or watch two bots play.

local S = require("konane.repl.session")
local match = require("konane.repl.match")
local clock = require("konane.repl.clock")

local side_name, other = S.side_name, S.other

local VS_OPTIONS = { tc = true }

-- Check everything vs() was given, before anything is changed: the bot specs (an unknown bot or
-- a misspelt option raises here, so a finished game is never thrown away for a typo), the side,
-- the options. Returns the bot, the second bot (two bots play) or nil, your side or nil, opts.
local function check_args(spec, second, opts)
  local bot = match.make_bot(spec == nil and S.default_bot or spec)
  local bot2, you
  if second == "black" or second == "white" then
    you = second
  elseif second ~= nil then
    if type(second) ~= "string" and type(second) ~= "table" then
      error("the second argument is your side (\"black\" or \"white\") or a second bot, not a "
        .. type(second), 0)
    end
    bot2 = match.make_bot(second)
  end
  if opts ~= nil then
    if type(opts) ~= "table" then error("options must be a table such as {tc = \"300+2\"}", 0) end
    for k in pairs(opts) do
      if not VS_OPTIONS[k] then error(string.format("unknown option '%s' (known: tc)", tostring(k)), 0) end
    end
    if opts.tc ~= nil then
      if bot2 then error("a time control is for a game against you (tc with one bot)", 0) end
      clock.parse(opts.tc)
    end
  end
  return bot, bot2, you, opts or {}
end

-- The current game, or a new one of the same size and variant when there is none or it is over.
local function fresh_game()
  local k = S.need_konane()
  local g = rawget(_G, "g")
  if S.is_game(g) and not g:over() then return g end
  local o = {}
  if S.is_game(g) then
    o = { variant = g:variant(), rows = g:rows(), cols = g:cols() }
  end
  return k.new(o)
end

-- How a player is named in the record: a bot by its name (a bot from a file also by its path).
local function player(bot, spec)
  local p = { name = tostring(bot.name or "bot") }
  if type(spec) == "string" then
    local ok, head, _, is_path = pcall(require("konane.bot").parse_spec, spec)
    if ok and is_path then p.path = head end
  end
  return p
end

local function new_game(bot, side, g)
  if type(bot.new_game) == "function" then
    bot:new_game { side = side, rows = g:rows(), cols = g:cols(), variant = g:variant() }
  end
end

return {
  {
    name = "vs", usage = "vs(bot, side)", line = "play against a bot: it answers each move you type",
    detail = [[
vs()                         you against the engine (alphabeta), you play the side to move
vs("mcts:time=0.5")          another bot (konane.bot specs: random, greedy, alphabeta, mcts,
                             solver, or a path to a bot file); vs("greedy", "white"): you play White
vs("random", "alphabeta")    two bots play the game out from here (Ctrl-C stops)
vs("alphabeta", "black", {tc = "300+2"})   with a clock: 5 minutes each and 2 s a move;
                             your time runs while the prompt waits for your move, the bot
                             thinks on its own time; the clocks are on the status line and
                             the side whose time runs out loses
vs(false)                    stop playing against the bot
A finished game is replaced by a new one of the same size and variant (a misspelt bot changes
nothing). The bot answers every move you type (or play with go()) and shows its score (see
help("hint")) and depth; undo() takes back your move and its reply, even after the game ended.
The board is drawn with your side at the bottom (flip() turns it).]],
    fn = function(spec, second, opts)
      if spec == false then
        S.drop_opponent()
        print("no opponent: moves you type are played for either side")
        return
      end
      local bot, bot2, you, o = check_args(spec, second, opts)
      local g = fresh_game()
      S.set_game(g)
      S.drop_opponent()
      if bot2 then
        -- Two bots play the game out.
        local bots = { [g:turn()] = bot, [other(g:turn())] = bot2 }
        -- new_game first: a player in its own process learns its name in the handshake
        for side, b in pairs(bots) do new_game(b, side, g) end
        S.players[g] = { [g:turn()] = player(bot, spec), [other(g:turn())] = player(bot2, second) }
        print(string.format("%s (%s) against %s (%s)", bot.name or "bot", side_name(g:turn()),
          bot2.name or "bot", side_name(other(g:turn()))))
        while not g:over() do
          local side = g:turn()
          local move, spent, info = match.bot_move(bots[side], g)
          print(string.format("%3d. %-6s %s %s  (%s)", g:ply(), side_name(side), bots[side].name or "bot",
            move, match.about(info, spent)))
        end
        for side, b in pairs(bots) do
          if type(b.done) == "function" then pcall(b.done, b, { winner = g:winner(), side = side }) end
        end
        S.show_board(g)
        return
      end
      you = you or g:turn()
      S.opponent = { bot = bot, side = other(you), game = g,
        clock = o.tc ~= nil and clock.new(o.tc, S.now) or nil }
      -- new_game first: a player in its own process learns its name in the handshake
      new_game(bot, other(you), g)
      S.players[g] = { [you] = { name = os.getenv("USER") or "you" },
        [other(you)] = player(bot, spec == nil and S.default_bot or spec) }
      S.flip = you == "white"
      print(string.format("You play %s against %s%s. Type your moves (moves() lists them).",
        side_name(you), bot.name or "bot", o.tc ~= nil and (", clock " .. tostring(o.tc)) or ""))
      match.replies(g)
      S.show_board(g)
    end,
  },
}
