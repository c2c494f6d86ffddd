-- konane.tournament.game: one scheduled game, played here or described after its worker failed.
--
-- Every game builds its two bots afresh from their specs and gets its own seed, so nothing
-- carries over from one game to the next and the games do not depend on which process played
-- which. Records come from konane.play (or pgn.record for a game a worker could not finish) and
-- carry the tags Round, Game, Seed, Settings (settings.digest) and Opening; a forfeit also names
-- the side that failed.

local pgn = require("konane.pgn")
local settings = require("konane.tournament.settings")

local M = {}

local function konane() return require("konane") end

local OTHER = { black = "white", white = "black" }

-- options(s, g) -> the konane.play options of game 'g'.
function M.options(s, g)
  local op = s.openings_list[g.opening]
  return {
    variant = s.variant, rows = not op.fen and s.rows or nil, cols = not op.fen and s.cols or nil,
    fen = op.fen, opening = op.moves, time = s.time, tc = s.tc, margin = s.margin, seed = g.seed, event = s.event,
    tags = { Round = g.round .. "." .. g.board, Game = g.id, Seed = g.seed, Settings = settings.digest(s) },
  }
end

-- A fresh bot for player 'p' (a bot table given by the caller is used as it is); an engine in
-- a process of its own gets the settings' handshake deadline (startup), if any. on_wait(seconds),
-- if given, is called before such an engine's new_game with the longest its start may take
-- (three handshake deadlines: ugiok, readyok, the new game's readyok), and with nil after it.
local function make_bot(s, p, on_wait)
  if p.bot then return p.bot end
  local b = konane().bot(p.spec, s.startup and { startup = s.startup } or nil)
  b.name = p.name
  -- an engine takes its own name (id name) at new_game when it still has its default one,
  -- which is the tournament's name for it: the reasons must name it as the tags and the tables
  -- do (two builds of one engine say the same id name)
  local new_game = b.new_game
  if b.ugi and new_game then
    local startup = b.def and tonumber(b.def.startup) or s.startup or 10
    b.new_game = function(me, info)
      if on_wait then on_wait(3 * startup + 1) end
      local ok, err = pcall(new_game, me, info)
      if on_wait then on_wait(nil) end
      me.name = p.name
      if not ok then error(err, 0) end
    end
  end
  return b
end

-- A failure as the record says it (konane.play's form): "side (NAME): what", without the
-- host's file paths (a Lua error's "dir/file.lua:12: " position, a path's directories).
function M.reason(name, side, text)
  text = tostring(text):gsub("[^%s:]*%.lua:%d+:%s*", "")
  -- no raw control byte and valid UTF-8 in a record (see konane.play.clean_reason)
  text = require("konane.util").printable(text)
  text = text:gsub("[%w%._%-~]*/[%w%._%-/]*", function(path) return path:match("([^/]*)$") end)
  if text:sub(1, #side + 2) == side .. " (" or text:sub(1, #side + 1) == side .. ":" then return text end
  return side .. " (" .. name .. "): " .. text
end

-- Completes a record of game 'g' as konane.play returned it: the players' names, the opening
-- and, for a forfeit, the side that failed, named in the reason.
local function complete(s, g, record)
  local names = { black = s.players[g.black].name, white = s.players[g.white].name }
  record.black, record.white = names.black, names.white
  local op = s.openings_list[g.opening]
  if #op.moves > 0 and not record.opening then record.opening = { table.unpack(op.moves) } end
  if record.termination ~= "normal" and record.winner then
    record.forfeit = record.forfeit or OTHER[record.winner]
    record.reason = M.reason(names[record.forfeit], record.forfeit, record.reason or record.termination)
  end
  return record
end

-- play(s, g, on_move, on_wait) -> record: plays game 'g' in this process (on_wait: make_bot's).
function M.play(s, g, on_move, on_wait)
  local opts = M.options(s, g)
  opts.on_move = on_move
  local record = konane().play(make_bot(s, s.players[g.black], on_wait),
                               make_bot(s, s.players[g.white], on_wait), opts)
  return complete(s, g, record)
end

-- forfeit(s, g, moves, termination, reason) -> record of game 'g' whose worker died or hung
-- after the bots played 'moves' (after the opening): the side to move loses, every move played
-- is kept. Moves that do not replay (there should be none) are left out and said so.
function M.forfeit(s, g, moves, termination, reason)
  local opts = M.options(s, g)
  local game = konane().new { variant = opts.variant, rows = opts.rows, cols = opts.cols, fen = opts.fen }
  for _, m in ipairs(opts.opening) do game:play(m) end
  for i, m in ipairs(moves) do
    local c = game:legal(m)
    if not c then
      reason = reason .. string.format(" (moves from %d on did not replay)", i)
      break
    end
    game:play(c)
  end
  local names = { black = s.players[g.black].name, white = s.players[g.white].name }
  if game:over() then
    -- the last move ended the game before the record came: the rules decide it
    local w = game:winner()
    return pgn.record {
      game = game, black = names.black, white = names.white, winner = w,
      reason = OTHER[w] .. " has no legal move", opening = opts.opening, event = s.event,
      tags = opts.tags,
    }
  end
  local side = game:turn()
  return pgn.record {
    game = game, black = names.black, white = names.white, winner = OTHER[side],
    termination = termination, reason = M.reason(names[side], side, reason),
    forfeit = side, opening = opts.opening, event = s.event, tags = opts.tags,
  }
end

-- summary(record) -> {winner, termination, reason, plies}: what the results need of a game.
function M.summary(record)
  return { winner = record.winner, termination = record.termination or "normal",
           reason = record.reason, plies = #record.moves }
end

M.text = pgn.write

return M
