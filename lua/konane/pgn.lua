-- konane.pgn: game records as PGN-style text (rules.md "Game records").
--
-- A record is a plain table:
--   { tags = {Event=..., Black=..., White=..., ...},  -- every tag pair, by name
--     variant = "brainking", rows = 8, cols = 8,
--     fen = <start position text, only when not the variant's start>,
--     moves = {"d5", "e5", "f5-d5", ...},             -- canonical move strings
--     comments = {[i] = "text after move i", [0] = "text before the first move"},
--     result = "1-0" | "0-1" | "*",                   -- 1-0: Black (first player) won
--     winner = "black" | "white" | nil,
--     termination = "normal" | "illegal move" | "error" | "time forfeit" | "bad answer" | ...,
--     reason = <why the game ended, when not a normal end>,
--     forfeit = "black" | "white" | nil,              -- the side that failed (tag Forfeit)
--     opening = {"c4", "c3"} | nil }                   -- the opening's moves (tag Opening)
--
-- record(info) builds a record (the one way konane.play, the REPL and the tournament make
-- them); write(record) gives the text; read(text) gives back the list of records of every game in the
-- text (several games per file), or on a malformed game the records before it and an error
-- message naming the line.

local pgn = {}

-- The standard tags first, in this order; every other tag follows sorted by name.
local TAG_ORDER = { "Event", "Site", "Date", "Round", "Black", "White", "Result",
                    "Variant", "Board", "FEN", "Opening", "Termination", "Reason", "Forfeit" }
local TAG_RANK = {}
for i, name in ipairs(TAG_ORDER) do TAG_RANK[name] = i end

local RESULT_WINNER = { ["1-0"] = "black", ["0-1"] = "white" }
local WINNER_RESULT = { black = "1-0", white = "0-1" }

local LINE_WIDTH = 79

-- Text as a record writes it: tab, CR and LF become spaces (a tag pair lives on one line, a
-- blank line would split a record), any other control byte, and any byte that is not UTF-8, as
-- \xNN (util.printable: no raw control byte reaches a record, as konane.play.clean_reason).
local printable = require("konane.util").printable

-- Quote a tag value: as printable, backslash and double quote escaped.
local function quote(value)
  local s = tostring(value)
  if not s:find('[%c\\"\128-\255]') then return '"' .. s .. '"' end
  s = printable(s)
  s = s:gsub("[\\\"]", "\\%0")
  return '"' .. s .. '"'
end

-- The most bytes a comment keeps: a player's chatter must not swell the records.
pgn.COMMENT_MAX = 2000

-- A comment as written: capped at COMMENT_MAX bytes, on one line (a blank line inside a record
-- would split it), and without '}' (it would end the comment early: written as ')').
local function clean_comment(text)
  local s = tostring(text)
  if #s > pgn.COMMENT_MAX then s = s:sub(1, pgn.COMMENT_MAX - 3) .. "..." end
  if not s:find("[}%c\128-\255]") then return s end
  return (printable((s:gsub("}", ")"):gsub("[\r\n]+", " "))))
end

local function comment_text(text)
  return "{" .. clean_comment(text) .. "}"
end

-- The side that makes the first move of the record: the side to move of its start position
-- (the FEN tag, else the variant's own start, which may give White the first move).
local function first_side(record)
  local fen = record.fen
  if type(fen) == "string" then
    local side = fen:match("%s+([bwBW])%s*$")
    return (side and side:lower() == "w") and "white" or "black"
  end
  if record.variant and record.variant ~= "brainking" then
    local ok, konane = pcall(require, "konane")
    if ok and type(konane) == "table" and konane.new then
      local ok2, g = pcall(konane.new, { variant = record.variant, rows = record.rows,
                                         cols = record.cols })
      if ok2 then return g:turn() end
    end
  end
  return "black"
end

-- Every tag of 'record' with the fields of the record taking precedence over its tags table, so
-- a record edited field by field is written consistently.
local function tags_of(record)
  local tags = {}
  for k, v in pairs(record.tags or {}) do
    if type(k) == "string" and v ~= nil then tags[k] = tostring(v) end
  end
  if record.black then tags.Black = tostring(record.black) end
  if record.white then tags.White = tostring(record.white) end
  local result = record.result or (record.winner and WINNER_RESULT[record.winner])
  tags.Result = result or tags.Result or "*"
  if record.variant then tags.Variant = tostring(record.variant) end
  if record.rows and record.cols then
    tags.Board = string.format("%dx%d", record.rows, record.cols)
  end
  if record.fen then tags.FEN = record.fen end
  if record.termination then tags.Termination = record.termination end
  if record.reason then tags.Reason = record.reason end
  if record.forfeit then tags.Forfeit = record.forfeit end
  local opening = record.opening
  if type(opening) == "table" then opening = table.concat(opening, " ") end
  if opening and opening ~= "" then tags.Opening = opening end
  return tags
end

-- Texts pgn.write makes again and again (tag lines, move numbers, braced move times), each made
-- once: a quick game's record is mostly the same short texts. Bounded: emptied when full.
local CACHE_MAX = 4096
local tag_lines, tag_count = {}, 0
local function tag_line(name, value)
  local by_value = tag_lines[name]
  if not by_value then
    by_value = {}
    tag_lines[name] = by_value
  end
  local line = by_value[value]
  if not line then
    line = "[" .. name .. " " .. quote(value) .. "]"
    if #value <= 200 then
      if tag_count >= CACHE_MAX then tag_lines, tag_count = { [name] = by_value }, 0 end
      by_value[value], tag_count = line, tag_count + 1
    end
  end
  return line
end

local braced, braced_count = {}, 0
local function braced_comment(c)
  local text = braced[c]
  if text then return text end
  if #c <= 64 and not c:find("[}%c\128-\255]") then
    text = "{" .. c .. "}"
    if braced_count >= CACHE_MAX then braced, braced_count = {}, 0 end
    braced[c], braced_count = text, braced_count + 1
    return text
  end
  return comment_text(c)
end

-- "12. ", "12... ": the number before a move (made once per number).
local numbered, numbered_dots = {}, {}
for n = 1, 300 do
  numbered[n], numbered_dots[n] = n .. ". ", n .. "... "
end

--- write(record) -> string
-- The PGN text of one game: tag pairs (standard ones first), a blank line, the numbered moves
-- with their comments, the result token, and a final blank line, so several written games can be
-- concatenated into one file. Raises when 'record' is not a table or a move is not a string.
function pgn.write(record)
  if type(record) ~= "table" then
    error("bad argument #1 to 'write' (record table expected, got " .. type(record) .. ")", 2)
  end
  local tags = tags_of(record)
  local out = {}
  for _, name in ipairs(TAG_ORDER) do -- the standard tags in their order
    if tags[name] then out[#out + 1] = tag_line(name, tags[name]) end
  end
  local names = {}
  for name in pairs(tags) do
    if not TAG_RANK[name] then names[#names + 1] = name end
  end
  table.sort(names) -- then every other tag by name
  for _, name in ipairs(names) do
    if name:match("^[%w_]+$") then
      out[#out + 1] = tag_line(name, tags[name])
    end
  end
  out[#out + 1] = ""

  -- the movetext: its tokens first (a move number stays with its move), then cut into lines of
  -- at most LINE_WIDTH
  local toks, nt = {}, 0
  local comments = record.comments or {}
  if comments[0] then nt = 1; toks[1] = comment_text(comments[0]) end
  local moves = record.moves or {}
  local white_first = first_side(record) == "white"
  for i, move in ipairs(moves) do
    if type(move) ~= "string" then
      error("record move " .. i .. " is not a string", 2)
    end
    -- ply i is made by the first side when i is odd; numbering counts move pairs Black-White.
    local k = white_first and i + 1 or i
    nt = nt + 1
    if k % 2 == 1 then
      toks[nt] = (numbered[(k + 1) // 2] or ((k + 1) // 2 .. ". ")) .. move
    elseif i == 1 then
      toks[nt] = (numbered_dots[(k + 1) // 2] or ((k + 1) // 2 .. "... ")) .. move
    else
      toks[nt] = move
    end
    local c = comments[i]
    if c then
      nt = nt + 1
      if type(c) == "string" then toks[nt] = braced_comment(c)
      else toks[nt] = comment_text(c) end
    end
  end
  nt = nt + 1
  toks[nt] = tags.Result
  local first, len = 1, -1
  for j = 1, nt do
    local l = #toks[j]
    if j > first and len + 1 + l > LINE_WIDTH then
      out[#out + 1] = table.concat(toks, " ", first, j - 1)
      first, len = j, -1
    end
    len = len + 1 + l
  end
  out[#out + 1] = table.concat(toks, " ", first, nt)
  out[#out + 1] = ""
  out[#out + 1] = ""
  return table.concat(out, "\n")
end

--- write_file(path, records, mode) -> true, or nil and a message
-- Writes one record or a list of records to 'path' (mode "w" by default, "a" appends). Every
-- write and the close are checked: a full disk is an error, not a short file.
function pgn.write_file(path, records, mode)
  if records.moves or records.tags then records = { records } end
  local f, err = io.open(path, mode or "w")
  if not f then return nil, err end
  for _, record in ipairs(records) do
    local ok, werr = f:write(pgn.write(record))
    if not ok then
      f:close()
      return nil, path .. ": " .. tostring(werr)
    end
  end
  local ok, cerr = f:close()
  if not ok then return nil, path .. ": " .. tostring(cerr) end
  return true
end

-- The start position of a variant on a board, by "variant RxC" (nil: cannot be set up).
local default_starts = {}
local function default_start(variant, rows, cols)
  local key = tostring(variant) .. " " .. tostring(rows) .. "x" .. tostring(cols)
  local v = default_starts[key]
  if v == nil then
    local ok, g = pcall(require("konane").new, { variant = variant, rows = rows, cols = cols })
    v = ok and g:start_fen() or false
    default_starts[key] = v
  end
  return v or nil
end

local RECORD_FIELDS = { game = true, variant = true, rows = true, cols = true, start = true,
                        moves = true, black = true, white = true, winner = true,
                        termination = true, reason = true, forfeit = true, opening = true,
                        event = true, date = true, tags = true, comments = true }

--- record(info) -> record
-- THE way a game record is made (konane.play, the REPL, the tournament): a record table (see the
-- top of this file) that write() turns into text. info fields, all optional:
--   game         a konane game: variant, board, start position and moves are taken from it
--   variant, rows, cols, start (start position text), moves (canonical strings): the same,
--                given one by one (they override 'game')
--   black, white player names
--   winner       "black" or "white" (nil: the game goes on, result "*")
--   termination  "normal" by default when there is a winner; otherwise why the game ended
--                ("time forfeit", "illegal move", "error", ...), with
--   reason       the words that say it, and
--   forfeit      the side that failed ("black" or "white")
--   opening      the moves of the opening (the first moves of 'moves'), a list or a string
--   event, date  (default "konane game", today in UTC), tags (extra tags), comments ([i] = text
--                after move i, [0] before the first; each capped at pgn.COMMENT_MAX bytes)
-- The start position is written as a FEN tag only when it is not the variant's own start.
function pgn.record(info)
  if type(info) ~= "table" then
    error("bad argument #1 to 'record' (table expected, got " .. type(info) .. ")", 2)
  end
  for k in pairs(info) do
    if not RECORD_FIELDS[k] then error("bad argument #1 to 'record' (unknown field '" .. tostring(k) .. "')", 2) end
  end
  local g = info.game
  local record = {
    variant = info.variant or (g and g:variant()), rows = info.rows or (g and g:rows()),
    cols = info.cols or (g and g:cols()), moves = info.moves or (g and g:history()) or {},
    comments = {}, tags = {},
  }
  local start = info.start or (g and g:start_fen())
  if start and start ~= default_start(record.variant, record.rows, record.cols) then record.fen = start end
  record.black, record.white = info.black and tostring(info.black), info.white and tostring(info.white)
  if info.winner ~= nil then
    if not WINNER_RESULT[info.winner] then
      error("bad argument #1 to 'record' (winner must be \"black\" or \"white\")", 2)
    end
    record.winner = info.winner
    record.result = WINNER_RESULT[info.winner]
    record.termination = info.termination or "normal"
  else
    record.result = "*"
    record.termination = info.termination
  end
  if info.reason ~= nil then record.reason = clean_comment(info.reason) end
  if info.forfeit ~= nil then record.forfeit = info.forfeit end
  for i, text in pairs(info.comments or {}) do record.comments[i] = clean_comment(text) end
  local tags = record.tags
  for k, v in pairs(info.tags or {}) do tags[k] = tostring(v) end
  tags.Event = info.event or tags.Event or "konane game"
  tags.Date = info.date or tags.Date or os.date("!%Y.%m.%d")
  local opening = info.opening
  if type(opening) == "string" then
    local list = {}
    for m in opening:gmatch("%S+") do list[#list + 1] = m end
    opening = list
  end
  if opening and #opening > 0 then
    record.opening = { table.unpack(opening) }
    tags.Opening = table.concat(opening, " ")
  end
  if record.forfeit then tags.Forfeit = record.forfeit end
  return record
end

-- ---------------------------------------------------------------------------------------------
-- Reading

-- Parse the "RxC" Board tag: rows first, as in konane.new{rows=, cols=}.
local function parse_board(value)
  local r, c = value:match("^%s*(%d+)%s*[xX]%s*(%d+)%s*$")
  if not r then return nil end
  return tonumber(r), tonumber(c)
end

-- Does 'token' look like a move in any accepted notation (square, or squares joined by '-' or
-- nothing)? Legality is checked separately, by replaying.
local function move_syntax(token)
  -- positions, not copies of the rest: a long word costs time linear in its length
  local i = token:match("^%a%d%d?()")
  if not i then return false end
  while i <= #token do
    i = token:match("^%-?%a%d%d?()", i)
    if not i then return false end
  end
  return true
end

-- 'text' without its leading and trailing white space, in time linear in its length (the
-- pattern "%s+$" would retry at every position of a long run of spaces).
local function trim(text)
  local a = text:find("%S")
  if not a then return "" end
  local b = #text
  while text:find("^%s", b) do b = b - 1 end
  return text:sub(a, b)
end

-- At most 40 bytes of 'text', for messages, control bytes written as \ddd so that a message
-- never carries them raw to a terminal.
local function shown(text)
  text = #text > 40 and (text:sub(1, 40) .. "...") or text
  return (text:gsub("%c", function(ch) return "\\" .. ch:byte() end))
end

-- The tokenizer: yields tokens with their line numbers from the text, one game after another.
-- Token kinds: "tag" (name, value), "comment" (text), "number", "move", "result", "nag".
local function tokenizer(text)
  local pos, line, len = 1, 1, #text
  local function fail(msg, at_line)
    error({ pgn_error = true, line = at_line or line, message = msg }, 0)
  end
  local function next_token()
    while true do
      if pos > len then return nil end
      local c = text:sub(pos, pos)
      if c == "\n" then
        line = line + 1
        pos = pos + 1
      elseif c:match("%s") then
        pos = pos + 1
      elseif c == "\239" and text:sub(pos, pos + 2) == "\239\187\191" then
        -- a byte order mark: files saved by some editors start with one, and a concatenation
        -- of such files has them mid-text; white space between tokens
        pos = pos + 3
      elseif c == ";" then
        -- a comment to the end of the line
        local e = text:find("\n", pos, true) or len + 1
        local t = text:sub(pos + 1, e - 1)
        pos = e
        return { kind = "comment", text = trim(t), line = line }
      elseif c == "%" and (pos == 1 or text:sub(pos - 1, pos - 1) == "\n") then
        -- an escape line (PGN export standard): ignored
        local e = text:find("\n", pos, true) or len + 1
        pos = e
      elseif c == "[" then
        -- parsed in place from 'pos' (never from a copy of the rest of the line, which made
        -- many tags on one line quadratic); a tag pair stays on one line
        local start_line = line
        local name, q = text:match("^%[[ \t]*([%w_]+)[ \t]+()", pos)
        if not name then
          local e = text:find("\n", pos, true) or len + 1
          fail("malformed tag pair: " .. shown(text:sub(pos, math.min(e - 1, pos + 40))), start_line)
        end
        if text:sub(q, q) ~= '"' then fail("tag " .. name .. ": value must be a quoted string", start_line) end
        local i, value = q + 1, {}
        while true do
          local stop = text:find('[\\"\n]', i)
          if not stop or text:sub(stop, stop) == "\n" then
            fail("tag " .. name .. ": unterminated string", start_line)
          end
          value[#value + 1] = text:sub(i, stop - 1)
          local ch = text:sub(stop, stop)
          if ch == '"' then i = stop + 1; break end
          local nx = text:sub(stop + 1, stop + 1) -- an escaped character
          if nx == "" or nx == "\n" then fail("tag " .. name .. ": unterminated string", start_line) end
          value[#value + 1] = nx
          i = stop + 2
        end
        local close_at = text:match("^[ \t\r]*%]()", i)
        if not close_at then fail("tag " .. name .. ": expected ']' after the value", start_line) end
        pos = close_at
        return { kind = "tag", name = name, value = table.concat(value), line = start_line }
      elseif c == "{" then
        local start_line = line
        local e = text:find("}", pos + 1, true)
        if not e then fail("unterminated comment '{'", start_line) end
        local t = text:sub(pos + 1, e - 1)
        for _ in t:gmatch("\n") do line = line + 1 end
        pos = e + 1
        return { kind = "comment", text = trim(t), line = start_line }
      elseif c == "(" then
        -- a variation (recursive annotation): skipped, nesting included
        local start_line, depth = line, 0
        repeat
          local ch = text:sub(pos, pos)
          if ch == "" then fail("unterminated variation '('", start_line) end
          if ch == "(" then depth = depth + 1
          elseif ch == ")" then depth = depth - 1
          elseif ch == "\n" then line = line + 1
          elseif ch == "{" then
            local e = text:find("}", pos + 1, true)
            if not e then fail("unterminated comment '{'", line) end
            for _ in text:sub(pos, e):gmatch("\n") do line = line + 1 end
            pos = e
          end
          pos = pos + 1
        until depth == 0
      elseif c == ")" then
        fail("')' without '('")
      else
        -- a move number, possibly glued to its move: "12.", "12...", "12.d5"; matched at 'pos'
        -- alone, so that "1.1.1.1..." costs time linear in its length
        local number, dots = text:match("^(%d+)(%.+)", pos)
        if number then
          pos = pos + #number + #dots
          return { kind = "number", number = tonumber(number), dots = #dots, line = line }
        end
        local word = text:match("^[^%s{}%[%];()]+", pos)
        if not word then fail("unexpected '" .. shown(c) .. "'") end
        pos = pos + #word
        if word == "1-0" or word == "0-1" or word == "*" then
          return { kind = "result", text = word, line = line }
        elseif word == "1/2-1/2" then
          fail("a draw (1/2-1/2) cannot happen in Konane")
        elseif word:match("^%$%d+$") or word:match("^[!?]+$") then
          return { kind = "nag", text = word, line = line }
        end
        local e = #word -- annotation marks stripped from the end ("d5!?"), in linear time
        while e > 0 and word:find("^[!?]", e) do e = e - 1 end
        local move = word:sub(1, e)
        if not move_syntax(move) then
          fail("unexpected '" .. shown(word) .. "' (not a move, move number or result)")
        end
        return { kind = "move", text = move, line = line }
      end
    end
  end
  return next_token
end

-- Build the record fields from a game's tags.
local function record_from_tags(tags, game_line)
  local record = { tags = tags, moves = {}, comments = {}, lines = {}, line = game_line }
  record.variant = tags.Variant
  if tags.Board then
    local r, c = parse_board(tags.Board)
    if not r then
      error({ pgn_error = true, line = game_line,
              message = "tag Board: expected rows x cols like \"8x8\", got \"" .. tags.Board .. "\"" }, 0)
    end
    record.rows, record.cols = r, c
  end
  if tags.FEN and tags.FEN ~= "" then record.fen = tags.FEN end
  record.termination = tags.Termination
  record.reason = tags.Reason
  record.forfeit = tags.Forfeit
  if tags.Opening then
    record.opening = {}
    for m in tags.Opening:gmatch("%S+") do record.opening[#record.opening + 1] = m end
  end
  record.black, record.white = tags.Black, tags.White
  return record
end

-- The message for a Board tag whose size is not the size of the FEN tag's position.
local function board_mismatch(record, g)
  return string.format("tag Board \"%dx%d\" disagrees with tag FEN \"%s\" (a %dx%d board)",
    record.rows, record.cols, shown(tostring(record.fen)), g:rows(), g:cols())
end

-- Replay 'record' with the konane module: canonical move strings, and the first illegal move
-- named with its line. Returns the game after the last move.
local function replay(record, konane)
  local ok, g = pcall(konane.new, {
    variant = record.variant, rows = record.rows, cols = record.cols, fen = record.fen })
  if not ok then
    error({ pgn_error = true, line = record.line,
            message = "cannot set up the game: " .. tostring(g):gsub("^[^:]*:%d+: ", "") }, 0)
  end
  if not record.rows then record.rows, record.cols = g:rows(), g:cols() end
  if record.rows ~= g:rows() or record.cols ~= g:cols() then
    error({ pgn_error = true, line = record.line, message = board_mismatch(record, g) }, 0)
  end
  if not record.variant then record.variant = g:variant() end
  for i, move in ipairs(record.moves) do
    local canonical, why = g:legal(move)
    if not canonical then
      error({ pgn_error = true, line = record.lines[i],
              message = "illegal move " .. i .. " '" .. shown(move) .. "': " ..
                tostring(why):gsub("^illegal move '[^']*': ", "") }, 0)
    end
    g:play(canonical)
    record.moves[i] = canonical
  end
  return g
end

local function load_konane()
  local ok, konane = pcall(require, "konane")
  if ok and type(konane) == "table" and konane.new then return konane end
  return nil
end

--- read(text, opts) -> records [, message]
-- Every game in 'text'. A game is its tag pairs followed by its movetext, ended by a result token
-- (1-0, 0-1 or *) or by the tag pairs of the next game. Move numbers, NAGs and variations are
-- skipped; comments are kept (record.comments[i] follows move i). Unless opts.check == false the
-- moves are replayed with the konane module: they come back canonical, and an illegal move is an
-- error. On a malformed game, returns the records read before it and "line N: <what is wrong>"
-- (the records are always a list, so `for _, r in ipairs(pgn.read(t))` works either way). A game
-- with Termination "normal" and a result must end after its last move, won by that side.
function pgn.read(text, opts)
  if type(text) ~= "string" then
    error("bad argument #1 to 'read' (string expected, got " .. type(text) .. ")", 2)
  end
  if opts ~= nil and type(opts) ~= "table" then
    error("bad argument #2 to 'read' (options table expected, got " .. type(opts) .. ")", 2)
  end
  opts = opts or {}
  local konane = opts.check ~= false and load_konane() or nil
  local records = {}
  local next_token = tokenizer(text)
  local ok, err = pcall(function()
    local tok = next_token()
    while tok do
      -- one game: its tag pairs, then its movetext up to a result or the next tag pair
      local tags, game_line = {}, tok.line
      local seen = false
      while tok and tok.kind == "tag" do
        -- PGN allows a tag once per game: a second one is the tags of a cut record run into the
        -- next game's (whose values won silently, and the cut game vanished into it)
        if tags[tok.name] ~= nil then
          error({ pgn_error = true, line = tok.line, message = "tag " .. tok.name
                  .. " a second time in one game (the tag pairs of two games run together?)" }, 0)
        end
        tags[tok.name] = tok.value
        seen = true
        tok = next_token()
      end
      local record = record_from_tags(tags, game_line)
      local n = 0
      local parts = {} -- the comments after each move, joined once the game is read
      local ended = false
      while tok and tok.kind ~= "tag" and not ended do
        if tok.kind == "move" then
          n = n + 1
          record.moves[n] = tok.text
          record.lines[n] = tok.line
          seen = true
        elseif tok.kind == "comment" then
          local list = parts[n]
          if not list then
            list = {}
            parts[n] = list
          end
          list[#list + 1] = tok.text
        elseif tok.kind == "result" then
          if tags.Result and tags.Result ~= tok.text and tags.Result ~= "*" and tok.text ~= "*" then
            error({ pgn_error = true, line = tok.line,
                    message = "result " .. tok.text .. " disagrees with the Result tag \"" .. tags.Result .. "\"" }, 0)
          end
          record.result = tok.text
          ended = true
        end
        -- the game is complete before the next token is read: an error there belongs to the next
        if not ended then tok = next_token() end
      end
      for i, list in pairs(parts) do record.comments[i] = table.concat(list, " ") end
      if seen or ended then
        record.result = record.result or tags.Result or "*"
        if not RESULT_WINNER[record.result] and record.result ~= "*" then
          error({ pgn_error = true, line = game_line,
                  message = "tag Result: expected 1-0, 0-1 or *, got \"" .. record.result .. "\"" }, 0)
        end
        record.winner = RESULT_WINNER[record.result]
        if konane then
          local g = replay(record, konane)
          -- a game that says it ended by the rules must end where its moves end, won by the
          -- side the rules give (a broken '}' that swallows moves gives a shorter game)
          if record.termination == "normal" and record.winner then
            local at = record.lines[#record.moves] or game_line
            if not g:over() then
              error({ pgn_error = true, line = at, message = ("a result that contradicts its moves (%s after move %d with Termination \"normal\", but %s still has a legal move)")
                :format(record.result, #record.moves, g:turn()) }, 0)
            elseif g:winner() ~= record.winner then
              error({ pgn_error = true, line = at, message = ("a result that contradicts its moves (%s, but after move %d %s has no legal move: %s won)")
                :format(record.result, #record.moves, g:turn(), g:winner()) }, 0)
            end
          end
        end
        records[#records + 1] = record
      end
      if ended then tok = next_token() end
      -- after a result, comments before the next tags belong to no game
      while tok and tok.kind == "comment" do tok = next_token() end
    end
  end)
  if not ok then
    if type(err) == "table" and err.pgn_error then
      local where = opts.name and (opts.name .. ":") or "line "
      return records, where .. err.line .. ": " .. err.message
    end
    error(err, 0)
  end
  return records
end

--- read_file(path, opts) -> records [, message]
-- read() on the contents of the file at 'path' (a device as it is now, a pipe to its end);
-- messages are "path:LINE: ...". Returns nil and the message when the file cannot be opened.
function pgn.read_file(path, opts)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  -- what can be sought (a file, a device) is read up to its size now: a device or a link to one
  -- (/dev/zero) never fills the memory; a pipe, which has none, is read to its end
  local text, rerr
  local size = f:seek("end")
  if size and f:seek("set") then
    text, rerr = f:read(0) -- "" before the end, nil at the end, nil and why for a directory
    if text == nil and rerr == nil then
      text = ""
    elseif text and size > 0 then
      text, rerr = f:read(size)
    end
  else
    text, rerr = f:read("a")
  end
  f:close()
  if not text then return nil, path .. ": cannot read (" .. tostring(rerr or "not a regular file") .. ")" end
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  o.name = o.name or path
  return pgn.read(text, o)
end

--- replay(record) -> game
-- A konane game set up as the record says (variant, board, start position) with every move of
-- the record played: the final position of the game. Raises on an illegal move.
function pgn.replay(record)
  if type(record) ~= "table" then
    error(("pgn.replay: bad argument #1 (a record table expected, got %s)"):format(type(record)), 2)
  end
  if record.moves ~= nil and type(record.moves) ~= "table" then
    error(("pgn.replay: bad argument #1 (record.moves: a list expected, got %s)"):format(type(record.moves)), 2)
  end
  local konane = require("konane")
  local g = konane.new { variant = record.variant, rows = record.rows, cols = record.cols,
                         fen = record.fen }
  if record.rows and (record.rows ~= g:rows() or record.cols ~= g:cols()) then
    error(board_mismatch(record, g), 2)
  end
  for i, move in ipairs(record.moves or {}) do
    local canonical, why = g:legal(move)
    if not canonical then
      error("record move " .. i .. " '" .. shown(tostring(move)) .. "' is illegal: " ..
            tostring(why):gsub("^illegal move '[^']*': ", ""), 2)
    end
    g:play(canonical)
  end
  return g
end

pgn.result_winner = RESULT_WINNER
pgn.winner_result = WINNER_RESULT

return pgn
