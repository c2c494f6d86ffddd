-- scripts/annotate.lua: the engine's judgement on every move of the games in a PGN file.
--
--   konane scripts/annotate.lua IN.pgn [--time S | --depth N] [--out OUT.pgn] [--html OUT.html]
--
-- Exit status: 0 done, 1 a failure while writing, 2 bad input (missing or malformed file, bad
-- option, an output that cannot be written: checked before the search).

local USAGE = [[
Usage: konane scripts/annotate.lua IN.pgn [--time S | --depth N] [--out OUT.pgn] [--html OUT.html]

Searches every position of every game in IN.pgn and writes the games back with the
engine's judgement: {[%eval 1.40] [%depth 14]} after each move (Black's point of view,
in moves of mobility; #7 / #-6: Black / White wins in that many plies, proved), and
?? (throws away a proved win, or a big drop), ? (a smaller drop), ! (the only winning
move) on the moves.

Options:
  --time S        seconds of search per position (default 0.5)
  --depth N       search each position to depth N instead
  --mistake M     score drop marked ? (default 150: 1.5 moves of mobility)
  --blunder M     score drop marked ?? (default 400)
  --out FILE      write the annotated PGN there (default: standard output, unless --html)
  --html FILE     write a page with the game viewer and an evaluation graph
  -h, --help      this text
]]

local PROG = "annotate.lua"

local function usage_error(msg)
  io.stderr:write(("%s: %s\n(%s --help lists the options)\n"):format(PROG, msg, PROG))
  os.exit(2)
end

local opts, input, out, html = {}, nil, nil, nil
local i = 1
local function value(name, inline)
  if inline then return inline end
  i = i + 1
  local v = arg[i]
  if v == nil then usage_error(name .. " needs a value") end
  return v
end
while i <= #arg do
  local a = arg[i]
  local name, inline = a:match("^(%-%-[%w-]+)=(.*)$")
  name = name or a
  if name == "-h" or name == "--help" then
    io.write(USAGE)
    os.exit(0)
  elseif name == "--time" then
    local v = value(name, inline)
    opts.time = tonumber(v)
    if not opts.time or opts.time <= 0 then usage_error("--time: '" .. v .. "' is not a positive number of seconds") end
  elseif name == "--depth" then
    local v = value(name, inline)
    opts.depth = math.tointeger(tonumber(v))
    if not opts.depth or opts.depth < 1 or opts.depth > 1000 then
      usage_error("--depth: '" .. v .. "' is not a depth from 1 to 1000")
    end
  elseif name == "--mistake" or name == "--blunder" then
    local v = value(name, inline)
    local n = math.tointeger(tonumber(v))
    if not n or n < 1 then usage_error(name .. ": '" .. v .. "' is not a positive integer") end
    opts[name:sub(3)] = n
  elseif name == "--out" then
    out = value(name, inline)
  elseif name == "--html" then
    html = value(name, inline)
  elseif a:sub(1, 1) == "-" and a ~= "-" then
    usage_error("unknown option '" .. a .. "'")
  elseif input then
    usage_error("one input file only (got '" .. input .. "' and '" .. a .. "')")
  else
    input = a
  end
  i = i + 1
end
if not input then usage_error("an input PGN file is needed") end
if opts.time and opts.depth then usage_error("--time and --depth exclude each other") end

-- An output that cannot be written is refused now, not after the whole search (which can take
-- hours): opened for appending, so nothing is truncated, and removed again if it was made here.
local function check_writable(option, path)
  local before = io.open(path, "rb")
  if before then before:close() end
  local f, oerr = io.open(path, "ab")
  if not f then usage_error(option .. ": cannot write " .. tostring(oerr)) end
  f:close()
  if not before then os.remove(path) end
end
if out then check_writable("--out", out) end
if html then check_writable("--html", html) end

local konane = require "konane"
local pgn = konane.pgn
local annotate = require "konane.annotate"

local records, err = pgn.read_file(input)
if not records then
  io.stderr:write(("%s: cannot read %s\n"):format(PROG, tostring(err)))
  os.exit(2)
end
if err then
  io.stderr:write(("%s: %s\n"):format(PROG, err))
  os.exit(2)
end
if #records == 0 then
  io.stderr:write(("%s: %s: no game found\n"):format(PROG, input))
  os.exit(2)
end

-- a progress bar on a terminal (standard error), nothing otherwise
local core = konane.core
local tty = core.isatty and core.isatty(2)
local total_positions = 0
for _, r in ipairs(records) do total_positions = total_positions + #r.moves + 1 end
local done_before, last_draw = 0, -1
local function progress(done)
  if not tty then return end
  local now = core.clock()
  local all = done_before + done
  if now - last_draw < 0.1 and all < total_positions then return end
  last_draw = now
  local width = 30
  local filled = math.floor(width * all / total_positions)
  io.stderr:write(("\r[%s%s] %d/%d positions"):format(("#"):rep(filled), ("-"):rep(width - filled),
    all, total_positions))
  io.stderr:flush()
end

local results = {}
for gi, record in ipairs(records) do
  opts.progress = progress
  local ok, notes = pcall(annotate.game, record, opts)
  if not ok then
    if tty then io.stderr:write("\n") end
    io.stderr:write(("%s: %s: game %d: %s\n"):format(PROG, input, gi, tostring(notes)))
    os.exit(1)
  end
  done_before = done_before + #record.moves + 1
  results[gi] = { record = record, notes = notes }
end
if tty then io.stderr:write("\n") end

local function save(path, text)
  local f, oerr = io.open(path, "wb")
  if not f then
    io.stderr:write(("%s: %s\n"):format(PROG, tostring(oerr)))
    os.exit(1)
  end
  local ok, werr = f:write(text)
  local cok, cerr = f:close()
  if not ok or not cok then
    io.stderr:write(("%s: %s: %s\n"):format(PROG, path, tostring(werr or cerr)))
    os.exit(1)
  end
end

local texts = {}
for gi, item in ipairs(results) do texts[gi] = pgn.write(annotate.apply(item.record, item.notes)) end
if out then
  save(out, table.concat(texts, "\n"))
elseif not html then
  io.write(table.concat(texts, "\n"))
end
if html then save(html, annotate.html(results)) end
