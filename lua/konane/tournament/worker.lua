-- konane.tournament.worker: the worker process's side of the tournament protocol, and the
-- parser the parent reads a worker's output with.
--
-- The parent starts `INTERPRETER lua/konane/tournament_worker.lua PATH CPATH` and writes on its
-- stdin a nonce line, then "settings LEN\n" and LEN bytes of JSON (players, board, time, event,
-- openings), then games ("game LEN\n" and a JSON game of the schedule) one at a time. For each
-- game the worker prints
--   MARK start ID          the game began
--   MARK move M            after each move a bot made (the opening is not repeated)
--   MARK wait SECONDS      an engine starts: the worker may be silent this long more (0: done)
--   MARK record LEN        then LEN bytes: the PGN record
-- where MARK is "@@konane NONCE ". The nonce reaches the worker through its stdin and never
-- reaches a bot, so a bot printing on the shared output cannot forge a move or a record. All
-- data is JSON read by konane.tournament.json: nothing the worker receives is run as code.

local json = require("konane.tournament.json")
local game = require("konane.tournament.game")

local M = {}

M.MARK = "@@konane "
-- A move made in less than this many seconds is quick; move lines wait at most GATHER seconds.
M.QUICK, M.GATHER = 0.002, 0.01
local clock = require("konane.util").now

-- The settings a worker needs, from the tournament's.
function M.settings_for_worker(s)
  local ps = {}
  for i, p in ipairs(s.players) do ps[i] = { name = p.name, spec = p.spec } end
  local ops = {}
  for i, op in ipairs(s.openings_list) do ops[i] = { moves = json.list({ table.unpack(op.moves) }), fen = op.fen } end
  return json.encode({ players = ps, variant = s.variant, rows = s.rows, cols = s.cols,
                       time = s.time, tc = s.tc, margin = s.margin, event = s.event, startup = s.startup,
                       out = s.out, openings_list = ops },
                     { exact = true, compact = true })
end

function M.game_for_worker(g)
  return json.encode({ id = g.id, round = g.round, board = g.board, encounter = g.encounter,
                       opening = g.opening, black = g.black, white = g.white, seed = g.seed },
                     { compact = true })
end

-- consume(w, chunk) -> records completed by this chunk of a worker's output. 'w' is the
-- parser state {buf, need, mark, moves, other}; sets w.ready, w.started (game number),
-- w.allow (the seconds of an engine's start in progress, or nil) and appends bot moves to w.moves. Lines without the mark (a bot's prints, a crash message) are
-- kept, the last 2000 bytes, in w.other.
function M.consume(w, chunk)
  w.buf = w.buf .. chunk
  local records = {}
  while true do
    if w.need then
      if #w.buf < w.need then break end
      records[#records + 1] = w.buf:sub(1, w.need)
      w.buf = w.buf:sub(w.need + 1)
      w.need = nil
    else
      local a = w.buf:find("\n", 1, true)
      if not a then
        if #w.buf > 65536 then -- a bot printing without end: keep the tail only
          w.other = (w.other .. w.buf):sub(-2000)
          w.buf = ""
        end
        break
      end
      local line = w.buf:sub(1, a - 1)
      w.buf = w.buf:sub(a + 1)
      if line:sub(1, #w.mark) == w.mark then
        local what, rest = line:sub(#w.mark + 1):match("^(%S+)%s*(.*)$")
        if what == "ready" then w.ready = true
        elseif what == "start" then w.started, w.moves, w.allow = tonumber(rest), {}, nil
        elseif what == "wait" then
          local sec = tonumber(rest)
          w.allow = sec and sec > 0 and math.min(sec, 1e7) or nil
        elseif what == "move" then w.moves[#w.moves + 1] = rest
        elseif what == "record" then w.need = tonumber(rest) or 0 end
      else
        w.other = (w.other .. line .. "\n"):sub(-2000)
      end
    end
  end
  return records
end

-- main(): the worker process (lua/konane/tournament_worker.lua runs it).
function M.main()
  local nonce = io.read("l")
  if not nonce then return end
  local mark = M.MARK .. nonce .. " "
  local function read_block(kind)
    local hdr = io.read("l")
    if not hdr then return nil end
    local len = tonumber(hdr:match("^" .. kind .. " (%d+)$"))
    if not len then error("tournament worker: unexpected input '" .. hdr:sub(1, 60) .. "'", 0) end
    local v, err = json.decode(io.read(len) or "", kind)
    if v == nil then error("tournament worker: " .. tostring(err), 0) end
    return v
  end
  local out = io.stdout
  out:setvbuf("full")
  local s = read_block("settings")
  if not s then return end
  -- the players it starts see the tournament's files read-only (sandboxed)
  if s.out then require("konane.ugi.player").readonly = { s.out } end
  out:write(mark, "ready\n")
  out:flush()
  while true do
    local g = read_block("game")
    if not g then break end
    out:write(mark, "start ", g.id, "\n")
    out:flush()
    -- Each move line must be with the parent before a move that may be long starts (if this
    -- process dies then, the record keeps every move made), but a write per move of quick bots
    -- costs more than the move: lines are sent at once unless the side to move next made its
    -- last move in under QUICK seconds, and then at most GATHER seconds late.
    local took, last, unsent_since, side = {}, clock(), nil, 1
    local record = game.play(s, g, function(_, move)
      local now = clock()
      took[side] = now - last
      last, side = now, 3 - side
      out:write(mark, "move ", move, "\n")
      unsent_since = unsent_since or now
      if (took[side] or math.huge) >= M.QUICK or now - unsent_since >= M.GATHER then
        out:flush()
        unsent_since = nil
      end
    end, function(seconds)
      -- an engine's start (its handshake deadlines) is not a hang: the parent is told first
      out:write(mark, "wait ", seconds and string.format("%.3f", seconds) or "0", "\n")
      out:flush()
    end)
    local text = game.text(record)
    out:write(mark, "record ", #text, "\n", text)
    out:flush()
  end
end

return M
