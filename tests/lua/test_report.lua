-- The tournament report (konane.report, scripts/report.lua): written beside results.json by
-- every tournament, rebuilt from a directory (merged shards included), self-contained, and
-- agreeing with results.json and games.pgn.
local konane = require "konane"
local tournament = require "konane.tournament"
local tjson = require "konane.tournament.json"
local report = require "konane.report"

local T = {}
local H = dofile("tests/lua/helpers.lua")

local function sh(cmd)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  return out
end

local tmpdir, read = H.tmpdir, H.read
local HOST = H.sh_quote(konane.core.exe_path()) -- build/ or build-asan/

local function run(o)
  o.progress = false
  o.rows, o.cols = o.rows or 6, o.cols or 6
  o.time = o.time or 5
  return tournament.run(o)
end

-- The data the page embeds.
local function page_data(html)
  local text = assert(html:match('<script type="application/json" id="kn%-data">(.-)</script>'))
  return assert(tjson.decode(text, "page data"))
end

T["a tournament writes report.html beside results.json, self-contained"] = function()
  local dir = tmpdir() .. "/t"
  run { bots = { "greedy", "random", "greedy:seed=4" }, games = 2, seed = 5, out = dir }
  local html = read(dir .. "/report.html")
  assert(html:match("^<!DOCTYPE html>"))
  -- nothing is loaded from anywhere: no src=, no link, no url outside the page's own ids
  assert(not html:find("<script src", 1, true) and not html:find("<link", 1, true))
  for url in html:gmatch("https?://[^\"' )]+") do
    assert(url == "http://www.w3.org/2000/svg" or url == "http://www.w3.org/1999/xlink",
      "a network address in the page: " .. url)
  end
  for ref in html:gmatch('url%(([^)]*)%)') do assert(ref:match("^#"), ref) end
  local res = assert(tjson.decode(read(dir .. "/results.json")))
  -- standings: every bot with its Elo and an error bar
  for _, b in ipairs(res.bots) do
    local row = html:match("<tr><td>" .. b.rank .. "</td><td class=\"l\">"
      .. b.name:gsub("%p", "%%%0") .. "</td>(.-)</tr>")
    assert(row, "a standings row for " .. b.name)
    assert(row:find(("%+.0f"):format(b.elo), 1, true), row)
    assert(row:find('<svg xmlns="http://www.w3.org/2000/svg" class="bar"', 1, true))
  end
  -- crosstable: a cell per pair that met, with the wins and losses
  local cells = 0
  for a, row in pairs(res.crosstable) do
    for b, c in pairs(row) do
      cells = cells + 1
      assert(html:find((">%d-%d<small>"):format(c.wins, c.losses), 1, true), a .. " vs " .. b)
    end
  end
  assert(cells == 6)
  assert(html:find('id="elochart"', 1, true), "an Elo chart")
  assert(not html:find('id="sprtchart"', 1, true), "no SPRT chart without SPRT")
  -- every game of games.pgn is in the page with its canonical moves; the tournament's page is
  -- built from the games as they ended (the referee's moves, not replayed: no final position),
  -- the page rebuilt from the directory replays each record and gives its final position
  local records = assert(konane.pgn.read_file(dir .. "/games.pgn"))
  local rebuilt = page_data(assert(report.build(dir)))
  for pass, data in ipairs { page_data(html), rebuilt } do
    assert(#data.games == #records and #records == res.games)
    for i, e in ipairs(data.games) do
      local r = records[i]
      assert(e.n == tonumber(r.tags.Game))
      assert(e.m == table.concat(r.moves, " "))
      assert(e.rd == r.tags.Round)
      if pass == 1 then assert(e.f == nil) else assert(e.f == konane.pgn.replay(r):fen()) end
      assert(data.bots[e.b + 1] == r.black and data.bots[e.w + 1] == r.white)
    end
    for i, b in ipairs(res.bots) do assert(data.bots[i] == b.name) end
  end
end

T["a game's JSON made in pieces as it ends is the JSON of the whole entry"] = function()
  local viewer = require "konane.report.viewer"
  local entries = {
    { b = 0, w = 1, r = "1-0", t = "normal", m = "d5 e5 f5-d5", n = 1, rd = "1.1", y = "white has no legal move" },
    { b = 3, w = 2, r = "0-1", t = "illegal move", m = "", n = 12, rd = "2.3", k = 1, s = 2, f = "xox/oxo b",
      y = 'black ("x\\y" \1\31\127 <&> \u{e9}): tab\there' },
    { b = 1, w = 0, r = "*", t = "unfinished", m = "d5", n = 7 },
  }
  for i, e in ipairs(entries) do
    local mid, tail = viewer.entry_parts(e)
    local want = tjson.encode(e, { compact = true })
    assert(viewer.entry_json(mid, tail, e.b, e.w) == want, "entry " .. i .. ": " .. want)
    -- inside the page: as page() would write the whole entry
    assert(viewer.entry_script(mid, tail, e.b, e.w) == viewer.json(e), "entry " .. i)
    -- and the page reads it back
    local back = tjson.decode(viewer.entry_json(mid, tail, 5, 6))
    assert(back.b == 5 and back.w == 6 and back.y == e.y and back.m == e.m and back.n == e.n)
  end
end

T["the page in pieces is the page; its data holds the games given as texts"] = function()
  local viewer = require "konane.report.viewer"
  local data = viewer.new_data()
  data.bots[1], data.bots[2] = "a<b>", "c&d"
  local games = { { b = 0, w = 1, r = "1-0", t = "normal", m = "d5 e5", n = 1, y = "<x>" },
                  { b = 1, w = 0, r = "0-1", t = "normal", m = "", n = 2 } }
  local texts = {}
  for i, e in ipairs(games) do
    local mid, tail = viewer.entry_parts(e)
    texts[i] = viewer.entry_script(mid, tail, e.b, e.w)
    data.games[i] = e
  end
  local whole = viewer.page("t", "<p>body</p>", data)
  data.games = nil
  local parts = viewer.page_parts("t", "<p>body</p>", data, texts)
  assert(table.concat(parts) == whole)
  assert(#parts > 10, "the games are pieces of their own")
  -- no games: an empty list
  data.games = tjson.list {}
  whole = viewer.page("t", "", data)
  data.games = nil
  assert(table.concat(viewer.page_parts("t", "", data, {})) == whole)
end

T["a resumed tournament's report has the games of the journal and the new ones"] = function()
  local dir = tmpdir() .. "/r"
  local n = 0
  local o = { bots = { "greedy", "random", "alphabeta:depth=1" }, games = 4, seed = 3, out = dir,
              on_game = function() n = n + 1 if n == 5 then error("interrupted!", 0) end end }
  assert(run(o).interrupted)
  o.on_game, o.resume = nil, true
  local res = run(o)
  assert(res.complete and res.games == 12)
  local page = page_data(read(dir .. "/report.html"))
  local rebuilt = page_data(assert(report.build(dir)))
  assert(#page.games == 12 and #rebuilt.games == 12)
  for i, e in ipairs(page.games) do
    local f = rebuilt.games[i]
    assert(e.n == i and f.n == i)
    for _, k in ipairs { "m", "r", "t", "y", "k", "s", "rd" } do assert(e[k] == f[k], k) end
    assert(page.bots[e.b + 1] == rebuilt.bots[f.b + 1] and page.bots[e.w + 1] == rebuilt.bots[f.w + 1])
  end
end

T["an SPRT match's report draws the LLR path between its bounds"] = function()
  local dir = tmpdir() .. "/s"
  local res = run { bots = { "greedy", "random" }, games = 60, seed = 2, out = dir,
                    sprt = { elo0 = 0, elo1 = 150 } }
  assert(res.sprt)
  local html = read(dir .. "/report.html")
  local chart = assert(html:match('<svg[^>]-id="sprtchart".-</svg>'))
  local _, lines = chart:gsub('stroke%-dasharray="6 4"', "")
  assert(lines == 2, "two bounds")
  local stats = require "konane.stats"
  local t = stats.sprt { elo0 = 0, elo1 = 150 }
  assert(chart:find(("H1 (150)"), 1, true) and chart:find("H0 (0)", 1, true))
  -- the path ends at the LLR results.json reports
  assert(chart:find(("LLR %.2f"):format(res.sprt.llr), 1, true),
    ("LLR %.2f (bounds %.2f %.2f)"):format(res.sprt.llr, t.lower, t.upper))
  assert(html:find(("after %d games"):format(res.sprt.games), 1, true))
end

T["scripts/report.lua rebuilds the report of merged shards"] = function()
  local base = tmpdir()
  local common = { bots = { "greedy", "random" }, games = 4, seed = 9 }
  for i = 1, 2 do
    local o = {}
    for k, v in pairs(common) do o[k] = v end
    o.shard, o.out = { i, 2 }, base .. "/s" .. i
    run(o)
  end
  tournament.merge({ base .. "/s1", base .. "/s2" }, base .. "/m", function() end)
  os.remove(base .. "/m/report.html")
  local out = sh(("%s scripts/report.lua %s/m 2>&1; echo rc=$?"):format(HOST, base))
  assert(out:match("rc=0%s*$"), out)
  local data = page_data(read(base .. "/m/report.html"))
  local records = assert(konane.pgn.read_file(base .. "/m/games.pgn"))
  assert(#data.games == #records and #records == 4)
  local ns = {}
  for _, e in ipairs(data.games) do ns[#ns + 1] = e.n end
  assert(table.concat(ns, " ") == "1 2 3 4", "games in schedule order: " .. table.concat(ns, " "))
  -- a directory without results: status 1 and the reason; no directory given: status 2
  out = sh(("%s scripts/report.lua %s/nothing 2>&1; echo rc=$?"):format(HOST, base))
  assert(out:match("rc=1%s*$") and out:find("results.json", 1, true), out)
  out = sh(HOST .. " scripts/report.lua 2>&1; echo rc=$?")
  assert(out:match("rc=2%s*$") and out:find("Usage", 1, true), out)
  sh("rm -rf '" .. base .. "'")
end

T["a damaged results.json or games.pgn is reported with its name"] = function()
  local dir = tmpdir() .. "/d"
  run { bots = { "greedy", "random" }, games = 2, seed = 1, out = dir }
  local f = assert(io.open(dir .. "/results.json", "w"))
  f:write('{"bots": [')
  f:close()
  local ok, err = report.write(dir)
  assert(not ok and err:find("results.json", 1, true), err)
  run { bots = { "greedy", "random" }, games = 2, seed = 1, out = dir .. "2" }
  f = assert(io.open(dir .. "2/games.pgn", "a"))
  f:write('[Black "greedy"]\n[Board "6x6"]\n\n1. d3 q7 *\n')
  f:close()
  ok, err = report.write(dir .. "2")
  assert(not ok and err:find("games.pgn", 1, true) and err:find("q7", 1, true), err)
end

T["a chart's legend shortens a long bot name to its margin and keeps the whole name as its tooltip"] = function()
  local charts = require "konane.report.charts"
  local long = "alphabeta:depth=2,weights=/work/matches/s7/eval/w-deep.lua"
  local svg = charts.line { width = 600, height = 280, right = 190, series = {
    { name = "greedy", points = { { 1, 0 }, { 2, 10 } } },
    { name = long, points = { { 1, 0 }, { 2, -10 } } },
    { name = "x<\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}>",
      points = { { 1, 0 }, { 2, 5 } } } } }
  assert(svg:find('fill="#333">greedy</text>', 1, true), "a short name is shown as it is")
  local title, shown = svg:match('<text[^>]*><title>(alphabeta[^<]*)</title>([^<]*)</text>')
  assert(title == long, tostring(title))
  assert(utf8.len(shown) <= (190 - 44) // 7 and shown:find("^alphabeta:") and shown:find("deep%.lua$")
    and shown:find("\u{2026}", 1, true), shown)
  -- characters are cut whole (UTF-8) and escaped
  local t2, s2 = svg:match('<title>(x&lt;[^<]*)</title>([^<]*)</text>')
  assert(t2 and utf8.len(s2) and s2:find("^x&lt;") and s2:find("&gt;$"), tostring(s2))
end

return T
