-- konane.repl.match: playing moves on the current game, and the bot set by vs() answering them.
--
-- play(move) is what a typed move, play() and go() run: play it, let the opponent answer while
-- it is its turn, show the board. The opponent stays after the game ends, so undo() can take
-- back the last move and the reply and the game goes on against the same bot.

local S = require("konane.repl.session")
local format = require("konane.repl.format")

local M = {}

local paint, write, side_name, other = S.paint, S.write, S.side_name, S.other

--- make_bot(spec) -> bot
-- konane.bot(spec); raises (with the bot library's message) on an unknown bot or a bad option.
function M.make_bot(spec)
  local k = S.need_konane()
  return k.bot(spec)
end

--- result_line(g) -> "White wins: Black has no legal move."
function M.result_line(g)
  local w = g:winner()
  return string.format("%s wins: %s has no legal move.", side_name(w), side_name(other(w)))
end

-- What a bot said about its move ({score=, depth=} from choose's second result), in words.
local function about(info, spent)
  local parts = {}
  if type(info) == "table" then
    if type(info.score) == "number" then parts[#parts + 1] = format.score(info.score) end
    if info.depth then parts[#parts + 1] = "depth " .. tostring(info.depth) end
  end
  parts[#parts + 1] = string.format("%.2f s", spent)
  return table.concat(parts, ", ")
end
M.about = about

--- bot_move(bot, g, clock) -> move, spent seconds, info
-- Let 'bot' choose a move for the side to move of 'g' (on a copy) and play it on 'g'. 'clock'
-- ({time=, game_time=}) is what the bot is told it has; by default a generous move time.
function M.bot_move(bot, g, clock)
  local t0 = S.now()
  local move, info = bot:choose(g:clone(), clock or { time = S.bot_clock, ply = g:ply() })
  local spent = S.now() - t0
  if type(move) ~= "string" then
    S.fail(string.format("bot '%s' answered %s instead of a move", tostring(bot.name), tostring(move)))
  end
  local ok, canon = pcall(g.play, g, move)
  if not ok then
    S.fail(string.format("bot '%s' answered an illegal move: %s", tostring(bot.name), S.clean(canon)))
  end
  return canon, spent, info
end

-- The status line's extra: the clocks of a vs() game with a time control, and a loss on time.
S.status_info = function(g)
  local opp = S.opponent
  if not (opp and opp.game == g and opp.clock) then return nil end
  local text = opp.clock:text()
  if opp.over then text = text .. "; " .. opp.over.reason end
  return text
end

-- After a move of 'side' on the clock: a flag fall ends the game on time.
local function check_flag(opp, side)
  if opp.clock and opp.clock:flagged() == side and not opp.over then
    local winner = other(side)
    opp.over = { winner = winner, ply = opp.game:ply(),
      reason = string.format("%s's time ran out, %s wins on time", side_name(side), side_name(winner)) }
    print(opp.over.reason:gsub("^%l", string.upper) .. ".")
    return true
  end
  return false
end

--- replies(g) -> true when the opponent moved
-- After a move of the user: the opponent set by vs() answers while it is its turn (and the
-- game is not over). Ctrl-C while it thinks returns to the prompt with the opponent kept.
-- With a clock, the bot thinks on its own time and yours starts when it has moved.
function M.replies(g)
  local opp = S.opponent
  if not opp then return false end
  if opp.game ~= g then
    S.drop_opponent()
    return false
  end
  local replied = false
  while not g:over() and not opp.over and g:turn() == opp.side do
    local bot = opp.bot
    local redraw = S.can_redraw()
    if redraw then write(paint("dim", string.format("%s is thinking...", bot.name or "bot"))) end
    local clock
    if opp.clock then
      opp.clock:start(opp.side)
      clock = opp.clock:for_bot(opp.side, g:ply() + 1)
    end
    local ok, move, spent, info = pcall(M.bot_move, bot, g, clock)
    if redraw then write("\r\27[K") end
    if not ok then
      if not S.is_interrupt(move) then S.drop_opponent() end
      error(move, 0)
    end
    if opp.clock then opp.clock:stop(opp.side) end
    print(string.format("%s (%s) plays %s  (%s)", bot.name or "bot", side_name(opp.side), move,
      about(info, spent)))
    replied = true
    check_flag(opp, opp.side)
  end
  if opp.clock and not opp.over and not g:over() then opp.clock:start(other(opp.side)) end
  return replied
end

--- play(move): play 'move' on the current game, let the opponent answer, show the board.
function M.play(move)
  local g = S.game()
  if g:over() then
    S.fail(string.format("the game is over (%s); undo() takes moves back, new() starts another",
      M.result_line(g)))
  end
  local opp = S.opponent
  if opp and opp.game == g and opp.over then
    S.fail(string.format("the game is over (%s); undo() takes moves back, new() starts another",
      opp.over.reason))
  end
  local mover = g:turn()
  if opp and opp.game == g and mover == opp.side then
    -- after Ctrl-C while it thought, or back(): never play a move for the bot's side
    S.fail(string.format("it is %s's turn (%s): go() lets it move; vs(false) to play both sides",
      tostring(opp.bot.name or "the bot"), side_name(mover)))
  end
  local ok, err = pcall(g.play, g, move)
  if not ok then S.fail(S.clean(err)) end
  if opp and opp.game == g and opp.clock and mover ~= opp.side then
    opp.clock:stop(mover)
    check_flag(opp, mover)
  end
  M.replies(g)
  S.show_board(g)
end

return M
