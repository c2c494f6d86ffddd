-- Game records: PGN written for every game and read back (rules.md "Game records").
local konane = require "konane"
local pgn = konane.pgn
local H = dofile("tests/lua/helpers.lua")

local T = {}

local function play_seeded(seed, opts)
  opts = opts or {}
  opts.seed = seed
  opts.comments = opts.comments
  return konane.play("random:seed=" .. seed, "greedy:seed=" .. seed, opts)
end

local function final_fen(record)
  return pgn.replay(record):fen()
end

T["a written record has the tags of rules.md in order and numbered moves"] = function()
  local rec = play_seeded(1)
  local text = pgn.write(rec)
  local order = {}
  for name in text:gmatch("%[(%w+) ") do order[#order + 1] = name end
  local pos = {}
  for i, name in ipairs(order) do pos[name] = i end
  for _, name in ipairs { "Event", "Black", "White", "Result", "Variant", "Board", "Termination" } do
    assert(pos[name], "missing tag " .. name .. " in\n" .. text)
  end
  assert(pos.Black < pos.White and pos.White < pos.Result and pos.Result < pos.Variant)
  assert(text:find('[Variant "brainking"]', 1, true))
  assert(text:find('[Board "8x8"]', 1, true))
  assert(not text:find("[FEN", 1, true), "no FEN tag for the variant's own start")
  assert(text:find("\n1%. " .. rec.moves[1] .. " "), "movetext starts with 1. <first move>")
  assert(text:find(" 2%. " .. rec.moves[3]:gsub("%-", "%%-")) or text:find("\n2%. " .. rec.moves[3]:gsub("%-", "%%-")))
  assert(text:match("(%S+)%s*$") == rec.result, "the movetext ends with the result")
  for line in text:gmatch("[^\n]+") do assert(#line <= 79, "line too long: " .. line) end
end

T["result 1-0 means Black won and 0-1 White"] = function()
  for seed = 1, 6 do
    local rec = play_seeded(seed)
    local g = final_fen(rec)
    assert(g)
    local replayed = pgn.replay(rec)
    assert(replayed:over())
    assert(replayed:winner() == rec.winner)
    assert(rec.result == (rec.winner == "black" and "1-0" or "0-1"))
  end
end

T["every record read back replays to the same final position"] = function()
  local records, texts = {}, {}
  for seed = 1, 5 do
    local rec = play_seeded(seed, { rows = 6, cols = 6 })
    records[#records + 1] = rec
    texts[#texts + 1] = pgn.write(rec)
  end
  local back, err = pgn.read(table.concat(texts))
  assert(err == nil, err)
  assert(#back == #records)
  for i, rec in ipairs(records) do
    local b = back[i]
    assert(b.result == rec.result and b.winner == rec.winner)
    assert(b.rows == 6 and b.cols == 6 and b.variant == "brainking")
    assert(#b.moves == #rec.moves)
    for j, m in ipairs(rec.moves) do assert(b.moves[j] == m) end
    assert(final_fen(b) == final_fen(rec))
    assert(b.tags.Black == rec.tags.Black and b.termination == "normal")
  end
end

T["a start position other than the variant's is written as FEN and read back"] = function()
  local fen = "xoxoxo/oxoxox/x1xoxo/oxoxox/xoxo1o/oxoxox b"
  local rec = konane.play("greedy", "greedy", { fen = fen, rows = 6, cols = 6 })
  assert(rec.fen == fen, tostring(rec.fen))
  local text = pgn.write(rec)
  assert(text:find('[FEN "' .. fen .. '"]', 1, true))
  local back = assert(pgn.read(text))[1]
  assert(back.fen == fen)
  assert(final_fen(back) == final_fen(rec))
end

T["a game starting with White to move is numbered 1... for White's first move"] = function()
  local rec = konane.play("greedy", "greedy", { variant = "centre_corner", rows = 5, cols = 5 })
  local text = pgn.write(rec)
  assert(text:find("\n1%.%.%. " .. rec.moves[1]:gsub("%-", "%%-")), text)
  local back = assert(pgn.read(text))[1]
  assert(final_fen(back) == final_fen(rec))
end

T["comments and the termination reason survive a round trip"] = function()
  local rec = play_seeded(3)
  rec.comments[2] = "a comment with a } brace"
  rec.comments[0] = "before the first move"
  rec.termination = "time forfeit"
  rec.reason = 'white took "too long"\nreally'
  local back = assert(pgn.read(pgn.write(rec)))[1]
  assert(back.comments[0] == "before the first move")
  assert(back.comments[2] == "a comment with a ) brace", back.comments[2])
  assert(back.comments[1] == rec.comments[1])
  assert(back.termination == "time forfeit")
  assert(back.reason == 'white took "too long" really', back.reason)
end

T["records from other writers are accepted: upper case, paths, NAGs, variations, no result tag"] = function()
  local text = [[
[Event "hand written"]
[Black "A"]
[White "B"]

; a line comment
1.D5 E5 $1 2. B5D5 (2. d7-d5?) {free text} 2... e3-e5!? *
]]
  local recs, err = pgn.read(text)
  assert(err == nil, err)
  assert(#recs == 1)
  local r = recs[1]
  assert(r.moves[1] == "d5" and r.moves[2] == "e5" and r.moves[3] == "b5-d5" and r.moves[4] == "e3-e5",
    table.concat(r.moves, " "))
  assert(r.result == "*" and r.winner == nil)
  assert(r.variant == "brainking" and r.rows == 8)
end

T["files from other editors are read the same: a byte order mark, CRLF, tabs, one mid-file"] = function()
  local text = pgn.write(play_seeded(7, { rows = 6, cols = 6 }))
  local want = assert(pgn.read(text)[1])
  local bom = "\239\187\191"
  local crlf = text:gsub("\n", "\r\n")
  for name, t in pairs { bom = bom .. text, bom_crlf = bom .. crlf, tabs = bom .. text:gsub(" ", "\t"),
                         concatenated = bom .. crlf .. "\r\n" .. bom .. crlf } do
    local recs, err = pgn.read(t)
    assert(err == nil, name .. ": " .. tostring(err))
    assert(#recs == (name == "concatenated" and 2 or 1), name .. ": " .. #recs .. " records")
    for _, r in ipairs(recs) do
      assert(table.concat(r.moves, " ") == table.concat(want.moves, " "), name)
      assert(r.tags.Black == want.tags.Black and r.result == want.result, name)
    end
  end
  -- a byte order mark inside a move or a tag is no white space there
  local _, err = pgn.read((text:gsub("\n1%. ", "\n1. " .. bom:sub(1, 2))))
  assert(err and err:find("line %d+: unexpected"), tostring(err))
end

T["a malformed game gives its line number and the games before it"] = function()
  local good = pgn.write(play_seeded(1)) .. "\n" .. pgn.write(play_seeded(2))
  local lines_before = select(2, good:gsub("\n", "")) + 1
  local cases = {
    { '[Event "x"]\n\n1. d5 e5 2. zz9-q ', "unexpected 'zz9%-q'" },
    { '[Event "x]\n', "unterminated string" },
    { '[Event "x"]\n1. d5 {never closed\n', "unterminated comment" },
    { '[Event "x"]\n1. d5 e5 2. f5-f7 0-1\n', "illegal move 3 'f5%-f7'" },
    { '[Board "8by8"]\n1. d5 *\n', "tag Board" },
    { '[Board "8x8"]\n[FEN "xoxo/oxox/xoxo/oxox b"]\n*\n',
      'tag Board "8x8" disagrees with tag FEN "xoxo/oxox/xoxo/oxox b" %(a 4x4 board%)' },
    { '[Result "1-0"]\n1. d5 0-1\n', "disagrees" },
    { 'Event "x"]\n', "unexpected" },
    { '[Event "x"]\n1. d5 1/2-1/2\n', "draw" },
    -- a record cut after its tags, the next one right behind: one game under two sets of tags
    { '[Event "x"]\n[Game "5"][Event "y"]\n[Game "6"]\n\n1. d5 e5 *\n', 'tag Event a second time in one game' },
    { '[White "a"]\n[White "b"]\n\n*\n', 'tag White a second time' },
    -- a game that says it ended by the rules must end there, won by that side
    { '[Termination "normal"]\n1. d5 e5 0-1\n', 'a result that contradicts its moves %(0%-1 after move 2 with Termination "normal", but black still has a legal move%)' },
    { '[Board "1x4"]\n[FEN "ox.. w"]\n[Termination "normal"]\n1... a1-c1 1-0\n', "contradicts its moves %(1%-0, but after move 1 black has no legal move: white won%)" },
  }
  for _, case in ipairs(cases) do
    local recs, err = pgn.read(good .. case[1])
    assert(err, "no error for " .. case[1])
    assert(#recs == 2, "the two games before are returned (" .. #recs .. ") for " .. case[1])
    local line = tonumber(err:match("^line (%d+):"))
    assert(line and line >= lines_before, "line number in '" .. err .. "' (the bad game starts at line " .. lines_before .. ")")
    assert(err:find(case[2]), "'" .. err .. "' should match '" .. case[2] .. "'")
  end
  local recs, err = pgn.read(good .. '[Event "x"]\n\n1. d5 e5\n2. f5-f7 0-1\n')
  assert(#recs == 2 and err:match("^line (%d+):") == tostring(lines_before + 3), err)
end

T["a record whose moves end the game otherwise than its result says is refused, with its line"] = function()
  local rec = play_seeded(3, { rows = 6, cols = 6 })
  local text = pgn.write(rec)
  assert(rec.termination == "normal" and #pgn.read(text) == 1)
  -- a '}' lost before the last move: the comment swallows it, the game ends a move early
  local last = rec.moves[#rec.moves]
  -- (the writer may break the line before or after the move: any white space)
  local before_last = "%}(%s+)" .. last:gsub("%-", "%%-") .. "(%s+){"
  local broken, n = text:gsub(before_last, "x%1" .. last .. "%2{")
  assert(n == 1)
  local recs, err = pgn.read(broken)
  assert(#recs == 0 and err and err:find("still has a legal move", 1, true), tostring(err))
  -- a forfeit or an unfinished game is not held to the rules' end
  local cut = text:gsub('%[Termination "normal"%]', '[Termination "time forfeit"]'):gsub(before_last, "x%1" .. last .. "%2{")
  recs, err = pgn.read(cut)
  assert(#recs == 1 and not err, tostring(err))
end

T["a Board tag that agrees with the FEN tag is read; pgn.replay refuses one that does not"] = function()
  local recs, err = pgn.read('[Board "4x4"]\n[FEN "xoxo/oxox/xoxo/oxox b"]\n*\n')
  assert(not err and #recs == 1 and recs[1].rows == 4, tostring(err))
  local ok, msg = pcall(pgn.replay, { rows = 8, cols = 8, fen = "xoxo/oxox/xoxo/oxox b", moves = {} })
  assert(not ok and msg:find('tag Board "8x8" disagrees', 1, true), msg)
end

T["read_file names the file in its messages and write_file writes several games"] = function()
  local path = os.tmpname()
  local a, b = play_seeded(4), play_seeded(5)
  assert(pgn.write_file(path, { a, b }))
  local recs, err = pgn.read_file(path)
  assert(err == nil and #recs == 2, err)
  assert(final_fen(recs[2]) == final_fen(b))
  local f = io.open(path, "a")
  f:write("[Event \"broken\"]\n1. d5 e5 2. x\n")
  f:close()
  recs, err = pgn.read_file(path)
  os.remove(path)
  assert(#recs == 2 and err:find(path .. ":%d+: "), err)
  local none, msg = pgn.read_file("/nonexistent/dir/games.pgn")
  assert(none == nil and msg:find("nonexistent"))
end

T["read_file reads a device only up to its size, and a pipe to its end"] = function()
  -- /dev/zero has no end: read whole, it filled the memory (open("/dev/zero") in the REPL,
  -- annotate.lua /dev/zero); checked in a process with a memory limit
  local core = konane.core
  local code = 'local r, e = require("konane").pgn.read_file("/dev/zero") io.write(tostring(r and #r), " ", tostring(e))'
  local _, out = H.run({ core.exe_path(), "-e", code }, { memory = 512 * 2^20 })
  assert(out == "0 nil", out)
  -- a named pipe (process substitution, a fifo) is read to its end
  local dir = H.tmpdir()
  local file, fifo = dir .. "/games.pgn", dir .. "/fifo"
  assert(pgn.write_file(file, { play_seeded(4), play_seeded(5) }))
  assert(os.execute("mkfifo " .. H.sh_quote(fifo)))
  assert(os.execute("cat " .. H.sh_quote(file) .. " > " .. H.sh_quote(fifo) .. " &"))
  local recs, err = pgn.read_file(fifo)
  assert(err == nil and #recs == 2, tostring(err))
  H.cleanup()
end

T["konane.play appends every game to the file given as opts.pgn"] = function()
  local path = os.tmpname()
  os.remove(path)
  local a = konane.play("random", "greedy", { seed = 1, pgn = path })
  local b = konane.play("greedy", "random", { seed = 2, pgn = path })
  local recs, err = pgn.read_file(path)
  os.remove(path)
  assert(err == nil and #recs == 2, err)
  assert(final_fen(recs[1]) == final_fen(a) and final_fen(recs[2]) == final_fen(b))
  local bad = konane.play("random", "greedy", { seed = 3, pgn = "/nonexistent/dir/x.pgn" })
  assert(bad.write_error and bad.result)
end

T["records round-trip on every board size, two-digit ranks and files past h included"] = function()
  for _, sz in ipairs { { 20, 20 }, { 13, 20 }, { 1, 8 }, { 2, 2 }, { 1, 1 }, { 10, 3 } } do
    local rec = konane.play("random:seed=3", "greedy", { rows = sz[1], cols = sz[2], variant = "free", seed = 1 })
    local back, err = pgn.read(pgn.write(rec))
    assert(err == nil and #back == 1, err)
    assert(back[1].rows == sz[1] and back[1].cols == sz[2])
    assert(#back[1].moves == #rec.moves and final_fen(back[1]) == final_fen(rec))
  end
end

T["empty text and text without games give no record and no error"] = function()
  local recs, err = pgn.read("")
  assert(#recs == 0 and err == nil)
  recs, err = pgn.read("\n\n; only a comment\n")
  assert(#recs == 0 and err == nil)
end

T["read with check = false keeps moves as written without replaying"] = function()
  local recs, err = pgn.read('[Variant "nonesuch"]\n1. D5 E5 *\n', { check = false })
  assert(err == nil and recs[1].moves[1] == "D5")
  recs, err = pgn.read('[Variant "nonesuch"]\n1. D5 E5 *\n')
  assert(#recs == 0 and err:find("nonesuch"), err)
end

T["bad arguments raise"] = function()
  assert(not pcall(pgn.write, nil))
  assert(not pcall(pgn.read, 42))
  assert(not pcall(pgn.write, { moves = { 1, 2 } }))
end

-- Runs Lua 'code' in a child konane under a CPU-time limit of 'cpu' seconds (ulimit -t);
-- returns its exit code (the signal number when the limit killed it) and its output.
local function run_limited(code, cpu)
  return H.run { "sh", "-c", 'ulimit -t ' .. cpu .. '; exec "$0" -e "$1"', konane.core.exe_path(), code }
end

T["reading is linear: long runs of spaces in comments and many comments on one move"] = function()
  -- quadratic trimming took 15 s for 40,000 spaces; these inputs would take hours: a CPU limit
  -- of 20 s (the child is killed by SIGXCPU) separates linear from quadratic by a factor of
  -- thousands, whatever the load on the machine
  local code = [[
    local pgn = require "konane.pgn"
    local head = '[Event "x"]\n[Board "6x6"]\n\n1. c4 '
    local a = pgn.read(head .. "{" .. string.rep(" ", 2000000) .. "} c3 1-0\n")
    assert(#a == 1 and a[1].comments[1] == "", "spaces")
    local b = pgn.read(head .. "{" .. string.rep(" ", 1000000) .. "x" .. string.rep(" ", 1000000) .. "} c3 1-0\n")
    assert(b[1].comments[1] == "x", "x in spaces")
    local c = pgn.read(head .. string.rep("{ab} ", 200000) .. "c3 1-0\n")
    assert(#c[1].comments[1] == 200000 * 3 - 1, "many comments")
    local d, err = pgn.read(head .. string.rep("z", 1000000) .. " 1-0\n")
    assert(err and #err < 200, "a long bad token is shown short")
    print("linear ok")
  ]]
  local status, out = run_limited(code, 20)
  assert(status == 0 and out:find("linear ok"), tostring(status) .. ": " .. out)
end

T["reading is linear: many tags on one line, glued move numbers, long move words, marks"] = function()
  -- each of these inputs took minutes to hours with a reader that re-copied or re-scanned the
  -- rest of a line or word per token; under the same 20 s CPU limit as above
  local code = [[
    local pgn = require "konane.pgn"
    local many = {} -- (200,000 different tags: a tag given twice is refused)
    for i = 1, 200000 do many[i] = '[A' .. i .. ' "1"]' end
    local a = pgn.read(table.concat(many) .. '\n[Board "6x6"]\n\n1. c4 *\n')
    assert(#a == 1 and a[1].tags.A1 == "1" and a[1].tags.A200000 == "1" and a[1].moves[1] == "c4", "tags")
    local b = pgn.read('[Board "6x6"]\n\n' .. string.rep("1.", 500000) .. " *\n")
    assert(#b == 1 and #b[1].moves == 0, "glued numbers")
    local c, err = pgn.read('[Board "6x6"]\n\n1. ' .. string.rep("a1", 500000) .. " *\n")
    assert(not c[1] and err and #err < 200, "a long move word is refused and shown short")
    local d, err2 = pgn.read('[Board "6x6"]\n\n1. c4' .. string.rep("!", 1000000) .. "x *\n")
    assert(not d[1] and err2 and #err2 < 200, "marks")
    print("linear ok")
  ]]
  local status, out = run_limited(code, 20)
  assert(status == 0 and out:find("linear ok"), tostring(status) .. ": " .. out)
end

T["messages show control bytes escaped; a directory is not a record file"] = function()
  local _, err = pgn.read("1. d5\0 *")
  assert(err and err:find("d5\\0", 1, true) and not err:find("\0", 1, true), err)
  local none, why = pgn.read_file("/tmp")
  assert(none == nil and why:find("cannot read"), tostring(why))
  local ok, msg = pcall(pgn.replay, { rows = 6, cols = 6, moves = { "zz" } })
  assert(not ok and select(2, tostring(msg):gsub("illegal move", "")) == 0 and msg:find("'zz' is illegal"), msg)
end

T["a written record has no raw control byte: tags and comments show them as \\xNN"] = function()
  local rec = play_seeded(3)
  rec.black = "esc\27[31mred\0nul"
  rec.tags = { Event = "tab\there\1", Site = "del\127" }
  rec.comments[1] = "bell\7 and crlf\r\nend"
  rec.comments[2] = "esc\27[2J" -- short: written by the quick path for move times
  local text = pgn.write(rec)
  -- an annotated copy of a hostile file, a bot named so: nothing raw for a terminal or a reader
  assert(not text:find("[%z\1-\9\11-\31\127]"), "a raw control byte in the record")
  local back = assert(pgn.read(text))[1]
  assert(back.black == "esc\\x1b[31mred\\x00nul", back.black)
  assert(back.tags.Event == "tab here\\x01", back.tags.Event)
  assert(back.tags.Site == "del\\x7f", back.tags.Site)
  assert(back.comments[1] == "bell\\x07 and crlf end", back.comments[1])
  assert(back.comments[2] == "esc\\x1b[2J", back.comments[2])
  -- printable text is written as it is
  rec = play_seeded(4)
  rec.black = 'k\u{14D}nane "\\"'
  back = assert(pgn.read(pgn.write(rec)))[1]
  assert(back.black == rec.black, back.black)
  -- a byte that is not UTF-8 (a Latin-1 name, a cut sequence) as \xNN too: the record stays UTF-8
  rec.white, rec.comments[1], rec.comments[2] = "caf\233", "na\239ve", "\200"
  text = pgn.write(rec)
  assert(utf8.len(text), "the record is not UTF-8")
  back = assert(pgn.read(text))[1]
  assert(back.white == "caf\\xe9" and back.comments[1] == "na\\xefve" and back.comments[2] == "\\xc8",
    back.white .. " " .. back.comments[1] .. " " .. back.comments[2])
end

T["comments are capped and kept on one line when written"] = function()
  local rec = pgn.record { rows = 6, cols = 6, variant = "brainking", moves = { "c4", "c3" },
                           comments = { [1] = string.rep("x", 100000), [2] = "two\n\nlines }" } }
  assert(#rec.comments[1] <= pgn.COMMENT_MAX)
  local text = pgn.write(rec)
  assert(#text < pgn.COMMENT_MAX + 1000)
  assert(not text:find("\n\n.*\n\n.*\n\n"), "a blank line inside the record")
  local back = pgn.read(text)[1]
  assert(back.comments[2] == "two lines )", back.comments[2])
  -- a record made by hand with a huge comment is capped by write too
  local raw = { rows = 6, cols = 6, moves = { "c4" }, comments = { [1] = string.rep("y", 50000) } }
  assert(#pgn.write(raw) < pgn.COMMENT_MAX + 1000)
end

T["pgn.record builds every tag from the game, the players and the end"] = function()
  local g = konane.new { rows = 6, cols = 6 }
  g:play("c4")
  g:play("c3")
  local rec = pgn.record { game = g, black = "alpha", white = "beta", winner = "white",
                           termination = "time forfeit", reason = "alpha (black): no move in 1 s",
                           forfeit = "black", opening = { "c4", "c3" }, event = "e", date = "2026.01.02",
                           tags = { Round = "1.1" } }
  assert(rec.result == "0-1" and rec.winner == "white" and rec.fen == nil)
  local text = pgn.write(rec)
  for _, tag in ipairs { '[Event "e"]', '[Date "2026.01.02"]', '[Black "alpha"]', '[White "beta"]',
                         '[Result "0-1"]', '[Board "6x6"]', '[Opening "c4 c3"]', '[Forfeit "black"]',
                         '[Termination "time forfeit"]', '[Round "1.1"]' } do
    assert(text:find(tag, 1, true), tag .. " missing in\n" .. text)
  end
  local back = pgn.read(text)[1]
  assert(back.forfeit == "black" and table.concat(back.opening, " ") == "c4 c3" and #back.moves == 2)
  -- a start that is not the variant's is written as FEN
  local h = konane.new { rows = 6, cols = 6, fen = g:fen() }
  local r2 = pgn.record { game = h }
  assert(r2.fen == g:fen() and r2.result == "*")
  assert(not pcall(pgn.record, { winner = "red" }))
  assert(not pcall(pgn.record, { wimer = "black" }))
end

return T
