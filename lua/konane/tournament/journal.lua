-- konane.tournament.journal: DIR/games.pgn, every finished game appended as it ends.
--
-- The journal is what a resumed run starts from, so reading it back is strict about what it
-- counts and careful with what it does not:
--   - a record must be complete (its result and a blank line at its end), parse, replay
--     legally and have a winner; anything else (a record cut by kill -9 or a full disk, zeros
--     left by a power cut, junk lines, a second copy of a game) is not used: it goes to
--     games.pgn.rejected, the journal is rewritten without it, and the counts are reported;
--   - a valid record that disagrees with the settings (a game number the schedule does not
--     have, other players, another seed or opening) means tournament.cfg does not describe the
--     games played: the resume is refused with a message saying what differs, and nothing is
--     changed.
-- Writes are checked (konane.tournament.files): the .rejected file is written before the
-- journal is replaced, so a failure at any point loses no record.

local pgn = require("konane.pgn")
local files = require("konane.tournament.files")

local M = {}

-- split(text) -> chunks {text =, first = byte offset, junk = true for text that is no record}.
-- A record starts with "[Event " at the start of a line and ends at the blank line after its
-- movetext (pgn.write puts one blank line after the tags and one after the moves, and none
-- inside); anything between the end of a record and the next "[Event " is junk.
function M.split(text)
  local out = {}
  local function add(a, b)
    if b < a then return end
    local body = text:sub(a, b)
    if body:sub(1, 7) ~= "[Event " then
      if body:find("%S") then out[#out + 1] = { text = body, first = a, junk = true } end
      return
    end
    local tags_end = body:find("\n\n", 1, true)
    local stop = tags_end and body:find("\n\n", tags_end + 2, true)
    if stop and stop + 1 < #body then
      out[#out + 1] = { text = body:sub(1, stop + 1), first = a }
      local rest = body:sub(stop + 2)
      if rest:find("%S") then out[#out + 1] = { text = rest, first = a + stop + 1, junk = true } end
    else
      out[#out + 1] = { text = body, first = a }
    end
  end
  local prev = 1
  local pos = 1
  while true do
    local a = text:find("[Event ", pos, true)
    if not a then break end
    if a > 1 and text:sub(a - 1, a - 1) == "\n" then
      add(prev, a - 1)
      prev = a
    end
    pos = a + 1
  end
  add(prev, #text)
  return out
end

-- parse(text) -> record, or nil and why the text is not one complete, valid record.
function M.parse(text)
  if text:sub(1, 7) ~= "[Event " then return nil, "not a game record" end
  if not (text:find("[\n ]1%-0\n\n$") or text:find("[\n ]0%-1\n\n$")) then
    return nil, "incomplete (no result at its end)"
  end
  if text:find("%z") then return nil, "contains NUL bytes" end
  local records, err = pgn.read(text)
  if err then return nil, err end
  if #records ~= 1 then return nil, #records .. " games in one record" end
  local r = records[1]
  if r.winner ~= "black" and r.winner ~= "white" then return nil, "no winner" end
  r.id = math.tointeger(tonumber(r.tags.Game))
  if not r.id or r.id < 1 then return nil, "no game number (tag Game)" end
  local why = M.result_check(r)
  if why then return nil, why end
  return r
end

local OTHER = { black = "white", white = "black" }

-- result_check(r) -> nil when record 'r''s result is the one its moves allow, else why not.
-- A game that ended by the rules must be won by the side the rules give after its last move;
-- a forfeit (tag Forfeit: the side that failed) must be won by the other side. Records older
-- than the Forfeit tag say a failure only by a Termination other than "normal": the side to
-- move failed.
function M.result_check(r)
  local ok, g = pcall(pgn.replay, r)
  if not ok then return "moves that do not replay (" .. tostring(g):gsub("^[^\n:]-%.lua:%d+: ", "") .. ")" end
  local failed = r.forfeit
  if failed ~= nil and not OTHER[failed] then
    return "a bad Forfeit tag (expected black or white, got \"" .. tostring(failed):sub(1, 40) .. "\")"
  end
  local ended = (r.termination or "normal") == "normal"
  if not failed and not ended then failed = not g:over() and g:turn() or nil end
  local why
  if failed then
    if r.winner ~= OTHER[failed] then
      why = string.format("%s, but %s failed: a forfeit is won by the other side", r.result, failed)
    end
  elseif not g:over() then
    why = string.format("%s after move %d, but %s still has a legal move and no forfeit is recorded",
      r.result, #r.moves, g:turn())
  elseif r.winner ~= g:winner() then
    why = string.format("%s, but after the last move %s has no legal move: %s won", r.result,
      OTHER[g:winner()], g:winner())
  end
  return why and "a result that contradicts its moves (" .. why .. ")"
end

-- The start position text of a board (nil when it cannot be set up).
local function start_of(variant, rows, cols, fen)
  local ok, g = pcall(require("konane").new, { variant = variant, rows = not fen and rows or nil,
                                               cols = not fen and cols or nil, fen = fen })
  return ok and g:start_fen() or nil
end

-- What a record played under other settings shows of the difference: its tags name the
-- variant, the board and the clock; the time per move, the margin and the bots' specs leave no
-- trace but the fingerprint.
function M.what_differs(s, r)
  if r.variant and r.variant ~= s.variant then
    return string.format("the variant differs (%s, the settings give %s)", r.variant, s.variant)
  end
  if r.rows and (r.rows ~= s.rows or r.cols ~= s.cols) and not r.fen then
    return string.format("the board differs (%dx%d, the settings give %dx%d)", r.rows, r.cols, s.rows, s.cols)
  end
  local tc = r.tags.TimeControl
  if (tc ~= nil) ~= (s.tc ~= nil) then
    return string.format("the clock differs (%s, the settings give %s)", tc or "none", s.tc or "none")
  end
  return "the time per move, the clock, the margin or a bot's spec differs"
end

-- mismatch(s, r, g) -> nil when record 'r' is a game 'g' of this schedule, else what differs.
function M.mismatch(s, r, g, total)
  if not g then
    return string.format("it holds game %d, the settings schedule %d games: the number of games differs",
      r.id, total)
  end
  local black, white = s.players[g.black].name, s.players[g.white].name
  if r.black ~= black or r.white ~= white then
    return string.format("game %d was played by %s - %s, the settings give %s - %s: the bots differ",
      r.id, tostring(r.black), tostring(r.white), black, white)
  end
  if tostring(r.tags.Seed) ~= tostring(g.seed) then
    return string.format("game %d was played with seed %s, the settings give %s: the seed differs",
      r.id, tostring(r.tags.Seed), tostring(g.seed))
  end
  local op = s.openings_list[g.opening]
  local played = table.concat(r.moves, " ", 1, math.min(#op.moves, #r.moves))
  local want = table.concat(op.moves, " ")
  if played ~= want then
    return string.format("game %d opened with '%s', the settings give '%s': the openings differ",
      r.id, played, want)
  end
  if start_of(r.variant, r.rows, r.cols, r.fen) ~= start_of(s.variant, s.rows, s.cols, op.fen) then
    return string.format("game %d started from %s, the settings give %s: the openings differ",
      r.id, r.fen or "the variant's start", op.fen or "the variant's start")
  end
  local digest = require("konane.tournament.settings").digest(s)
  if r.tags.Settings ~= nil and r.tags.Settings ~= digest then
    return string.format("game %d was played under other settings (tag Settings %s, the settings " ..
      "give %s): %s", r.id, tostring(r.tags.Settings):sub(1, 40), digest, M.what_differs(s, r))
  end
  return nil
end

-- The line of byte offset 'pos' in 'text'.
local function line_of(text, pos)
  local n = 1
  for _ in text:sub(1, pos - 1):gmatch("\n") do n = n + 1 end
  return n
end

-- load(s, path, lookup, total) -> records (by id), report (text or nil).
-- Reads and repairs the journal at 'path'. lookup(id) -> the game of that number, false when
-- it is not paired yet (Swiss: checked later with check_pending), nil when it is not in the
-- schedule; 'total' is the number of games the settings schedule. Raises when a valid record
-- disagrees with the settings (see the top of the file) or a write fails.
function M.load(s, path, lookup, total)
  local text = files.read(path)
  local records = {}
  if not text or text == "" then return records end
  local keep, rejected, why_list = {}, {}, {}
  local counts = {}
  for _, chunk in ipairs(M.split(text)) do
    local r, why
    if chunk.junk then
      why = "not a game record"
    else
      r, why = M.parse(chunk.text)
    end
    if r then
      local g = lookup(r.id)
      if g ~= false then
        local diff = M.mismatch(s, r, g, total)
        if diff then
          error(string.format("%s:%d: %s.\nThe settings in tournament.cfg do not describe the games " ..
            "already played: put the original tournament.cfg back (nothing was changed)", path,
            line_of(text, chunk.first), diff), 0)
        end
      end
      if records[r.id] then r, why = nil, "a second record of game " .. r.id end
    end
    if r then
      r.text = chunk.text
      records[r.id] = r
      keep[#keep + 1] = chunk.text
    else
      rejected[#rejected + 1] = chunk.text
      local kind = why:gsub("^line %d+: ", ""):match("^([^%(:]+)") or why
      kind = kind:gsub("%s+$", "")
      counts[kind] = (counts[kind] or 0) + 1
      why_list[#why_list + 1] = string.format("  line %d: %s", line_of(text, chunk.first), why)
    end
  end
  if #rejected == 0 then return records end
  -- the rejected text first, then the journal without it: no record is ever only in memory
  local out = files.appender(path .. ".rejected")
  out:append(table.concat(rejected))
  out:close()
  files.write_atomic(path, table.concat(keep))
  local kinds = {}
  for k, n in pairs(counts) do kinds[#kinds + 1] = n .. " " .. k end
  table.sort(kinds)
  local report = string.format("%s: kept %d game record%s, moved %d record%s to %s.rejected (%s):\n%s",
    path, #keep, #keep == 1 and "" or "s", #rejected, #rejected == 1 and "" or "s", path,
    table.concat(kinds, ", "), table.concat(why_list, "\n"))
  return records, report
end

-- check_pending(s, r, g, path): a Swiss record read before its round was paired, against the
-- game the pairing gave; raises like load when they disagree.
function M.check_pending(s, r, g, path)
  local diff = M.mismatch(s, r, g, 0)
  if diff then
    error(string.format("%s: %s.\nThe settings in tournament.cfg do not describe the games " ..
      "already played: put the original tournament.cfg back (nothing was changed)", path, diff), 0)
  end
end

return M
