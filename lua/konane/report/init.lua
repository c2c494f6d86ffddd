-- konane.report: DIR/report.html, the page of a tournament: standings with Elo error bars, the
-- crosstable as a heat map, Elo over the games, the SPRT's LLR path, the list of games with
-- filters and the game viewer (konane.report.viewer, boards from konane.svg). One file, no
-- network: styles, scripts, charts and data inline.
--
--   report.build(dir) -> html          from DIR/results.json and DIR/games.pgn
--   report.write(dir) -> path          writes DIR/report.html (through a temporary file)

local json = require "konane.tournament.json"
local charts = require "konane.report.charts"
local viewer = require "konane.report.viewer"
local svg = require "konane.svg"

local M = {}

M.FILE = "report.html"

local esc = svg.escape

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local text = f:read("a")
  f:close()
  return text
end

local function fmt_elo(v)
  if v == nil then return "" end
  return ("%+.0f"):format(v)
end

local function pct(x) return ("%.1f%%"):format(100 * x) end

-- ---------------------------------------------------------------------------------------------
-- Sections

local function header(res, dir, ngames)
  local name = dir:gsub("/+$", ""):match("([^/]+)$") or dir
  local bits = {}
  local function add(label, v) if v ~= nil then bits[#bits + 1] = label .. " " .. esc(tostring(v)) end end
  add("format", res.format)
  add("variant", res.variant)
  add("board", res.board)
  if res.time then add("time per move", tostring(res.time) .. " s") end
  add("seed", res.seed)
  if res.shard then add("shard", res.shard) end
  local status = res.complete and "complete" or "not complete"
  return ("<h1>Tournament %s</h1><p class=\"sub\">%s &middot; %d of %d games counted (%s), %d in "
    .. "games.pgn</p>"):format(esc(name), table.concat(bits, " &middot; "), res.games or 0,
      res.scheduled or 0, status, ngames)
end

local function standings(res)
  local bots = res.bots or {}
  local lo, hi = -100, 100
  for _, b in ipairs(bots) do
    local e = b.elo_error or 0
    if b.elo then
      lo, hi = math.min(lo, b.elo - e), math.max(hi, b.elo + e)
    end
  end
  local step = charts.nice_step(lo, hi, 4)
  lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
  local o = { "<section id=\"standings\"><h2>Standings</h2><table class=\"std\"><thead><tr>"
    .. "<th>#</th><th class=\"l\">Bot</th><th>Games</th><th>Wins</th><th>Losses</th>"
    .. "<th>Score</th><th>Elo</th><th>&plusmn;95%</th>"
    .. ("<th class=\"l\">Elo with its 95%% interval (%s to %s)</th></tr></thead><tbody>")
      :format(fmt_elo(lo), fmt_elo(hi)) }
  for _, b in ipairs(bots) do
    o[#o + 1] = ("<tr><td>%d</td><td class=\"l\">%s</td><td>%d</td><td>%d</td><td>%d</td>"
      .. "<td>%s</td><td>%s</td><td>%s</td><td class=\"l\">%s</td></tr>")
      :format(b.rank or 0, esc(b.name), b.games or 0, b.wins or 0, b.losses or 0,
        pct(b.score or 0), fmt_elo(b.elo), b.elo_error and ("%.0f"):format(b.elo_error) or "",
        b.elo and charts.error_bar(b.elo, b.elo_error, lo, hi, 300) or "")
  end
  o[#o + 1] = "</tbody></table>"
  local notes = {}
  if res.elo_prior then
    notes[#notes + 1] = "A bot won or lost every game against the others, so the ratings include "
      .. "one virtual game split half a win each way per pair that met (no finite estimate "
      .. "exists otherwise)."
  end
  if res.match then
    local m = res.match
    notes[#notes + 1] = ("%s vs %s: %d - %d, Elo difference %s &plusmn; %s, LOS %s.")
      :format(esc(m.name), esc(m.opponent), m.wins or 0, m.losses or 0,
        m.elo and fmt_elo(m.elo) or "inf", m.elo_error and ("%.0f"):format(m.elo_error) or "?",
        m.los and pct(m.los) or "?")
  end
  local forfeits = {}
  for k, v in pairs(res.forfeits or {}) do forfeits[#forfeits + 1] = ("%s %d"):format(esc(k), v) end
  table.sort(forfeits)
  if #forfeits > 0 then
    notes[#notes + 1] = "Games not ended by the rules: " .. table.concat(forfeits, ", ") .. "."
  end
  for _, n in ipairs(notes) do o[#o + 1] = "<p class=\"note\">" .. n .. "</p>" end
  o[#o + 1] = "</section>"
  return table.concat(o)
end

-- A colour for a score fraction: blue (0) through near white (0.5) to orange (1), lightness
-- kept high enough for black text; the numbers are printed too.
local function heat(x)
  local function mix(a, b, t) return math.floor(a + (b - a) * t + 0.5) end
  local lo, mid, hi = { 86, 140, 200 }, { 246, 244, 238 }, { 230, 140, 60 }
  local from, to, t = lo, mid, x * 2
  if x > 0.5 then from, to, t = mid, hi, (x - 0.5) * 2 end
  return ("#%02x%02x%02x"):format(mix(from[1], to[1], t), mix(from[2], to[2], t),
    mix(from[3], to[3], t))
end

local function crosstable(res)
  local bots = res.bots or {}
  if #bots < 2 then return "" end
  local o = { "<section id=\"crosstable\"><h2>Crosstable</h2><p class=\"note\">Wins-losses of "
    .. "the row against the column; the colour is the row's score (orange: the row won more, "
    .. "blue: lost more).</p><table class=\"heat\"><thead><tr><th></th><th class=\"l\">Bot</th>" }
  for i in ipairs(bots) do o[#o + 1] = ("<th>%d</th>"):format(i) end
  o[#o + 1] = "<th>Score</th></tr></thead><tbody>"
  local cross = res.crosstable or {}
  for i, a in ipairs(bots) do
    o[#o + 1] = ("<tr><td>%d</td><td class=\"l\">%s</td>"):format(i, esc(a.name))
    for _, b in ipairs(bots) do
      if a == b then
        o[#o + 1] = "<td class=\"c self\"></td>"
      else
        local c = (cross[a.name] or {})[b.name]
        if c and (c.wins or 0) + (c.losses or 0) > 0 then
          local x = c.wins / (c.wins + c.losses)
          o[#o + 1] = ("<td class=\"c\" style=\"background:%s\">%d-%d<small>%s</small></td>")
            :format(heat(x), c.wins, c.losses, pct(x))
        else
          o[#o + 1] = "<td class=\"c\"></td>"
        end
      end
    end
    o[#o + 1] = ("<td>%s</td></tr>"):format(pct(a.score or 0))
  end
  o[#o + 1] = "</tbody></table></section>"
  return table.concat(o)
end

-- Elo of every bot after each counted game (at up to 'samples' points), fitted as the
-- tournament fits its final ratings.
local function elo_over_games(games, bots, counted)
  local stats = require "konane.stats"
  local index = {}
  for i, b in ipairs(bots) do index[b.name] = i end
  local n = #bots
  local wins = {}
  for i = 1, n do wins[i] = {} end
  local total = math.min(counted, #games)
  local samples = 80
  local every = math.max(1, math.ceil(total / samples))
  local series = {}
  for i = 1, n do series[i] = { name = bots[i].name, points = {} } end
  for k = 1, total do
    local r = games[k].record
    local bi, wi = index[r.black], index[r.white]
    if bi and wi and r.winner then
      local w, l = bi, wi
      if r.winner == "white" then w, l = wi, bi end
      wins[w][l] = (wins[w][l] or 0) + 1
    end
    if k % every == 0 or k == total then
      local fit = stats.ratings(n, wins)
      for i = 1, n do
        local p = series[i].points
        p[#p + 1] = { k, fit.elo[i] or 0 }
      end
    end
  end
  return series
end

local function progress_charts(res, games)
  local bots = res.bots or {}
  local counted = res.games or #games
  local o = { "<section id=\"progress\"><h2>Over the games</h2><div class=\"charts\">" }
  if #bots >= 2 and counted > 0 then
    o[#o + 1] = "<figure>" .. charts.line {
      width = 600, height = 280, right = 190, series = elo_over_games(games, bots, counted),
      zero = true,
      xlabel = "games (schedule order)", ylabel = "Elo", id = "elochart",
    } .. "<figcaption class=\"note\">Maximum-likelihood Elo after each game.</figcaption>"
      .. "</figure>"
  end
  local s = res.sprt
  if s and res.match and counted > 0 then
    local stats = require "konane.stats"
    local t = stats.sprt { elo0 = s.elo0, elo1 = s.elo1, alpha = s.alpha, beta = s.beta }
    local w, l, pts = 0, 0, { { 0, 0 } }
    for k = 1, math.min(s.games or counted, #games) do
      local r = games[k].record
      if r.winner then
        local winner = r.winner == "black" and r.black or r.white
        if winner == res.match.name then w = w + 1 else l = l + 1 end
      end
      pts[#pts + 1] = { k, t.llr(w, l) }
    end
    o[#o + 1] = "<figure>" .. charts.line {
      width = 600, height = 280, right = 190, zero = true, id = "sprtchart",
      series = { { name = ("LLR %.2f"):format(pts[#pts][2]), points = pts } },
      hlines = { { y = t.upper, label = ("H1 (%s)"):format(s.elo1), colour = "#1b7a36" },
                 { y = t.lower, label = ("H0 (%s)"):format(s.elo0), colour = "#b00020" } },
      xlabel = "games counted", ylabel = "log-likelihood ratio",
    } .. ("<figcaption class=\"note\">SPRT %s vs %s: elo0 %s, elo1 %s, alpha %s, beta %s: %s "
      .. "after %d games.</figcaption></figure>")
      :format(esc(res.match.name), esc(res.match.opponent), s.elo0, s.elo1, s.alpha, s.beta,
        s.status and (esc(tostring(s.status)) .. " accepted") or "undecided", #pts - 1)
  end
  if #o == 1 then return "" end
  o[#o + 1] = "</div></section>"
  return table.concat(o)
end

local GAME_LIST = [[
<section id="games"><h2>Games</h2><div class="filters">
<label>Bot <select id="fbot"><option value="">all</option></select></label>
<label>Result <select id="fres"><option value="">all</option><option value="win">won by the bot</option>
<option value="loss">lost by the bot</option><option value="1-0">1-0 (Black won)</option>
<option value="0-1">0-1 (White won)</option><option value="*">unfinished</option></select></label>
<label>Termination <select id="fterm"><option value="">all</option></select></label>
<span id="gcount" class="note"></span></div>
<table id="glist"><thead><tr><th>Game</th><th>Round</th><th class="l">Black</th>
<th class="l">White</th><th>Result</th><th>Plies</th><th class="l">Termination</th></tr></thead>
<tbody></tbody></table><button id="gmore" type="button">show more</button></section>
]]

--- collector() -> c: the games of a report gathered one at a time by a caller that has their
-- records already (the tournament, as its games end, and from its journal on a resume):
-- c:add(record, n) with 'n' the game number, then build(dir, {games = c}) reads no games.pgn.
-- Only what the page shows is kept (not the records), and the moves are taken as the referee
-- checked them: no game is replayed (see viewer.game_entry's 'checked').
function M.collector()
  local c = { data = viewer.new_data(), index = {}, items = {} }
  function c.add(_, record, n)
    local e = viewer.game_entry(record, c.data, c.index, true)
    e.n = n
    e.rd = record.tags and record.tags.Round
    -- the page's JSON of the game, made now (once, not all at the end); what the charts read
    -- of a game (its record would hold every move and comment)
    local mid, tail = viewer.entry_parts(e)
    c.items[#c.items + 1] = { n = n, i = #c.items + 1, b = e.b, w = e.w, mid = mid, tail = tail,
                              record = { black = record.black, white = record.white, winner = record.winner } }
  end
  return c
end

-- The games of games.pgn as a collector would hold them (each record replayed).
local function read_games(dir)
  local pgn = require "konane.pgn"
  local records, perr = pgn.read_file(dir .. "/games.pgn")
  if not records then
    records = {}
    if not tostring(perr):find("No such file", 1, true) then return nil, perr end
  elseif perr then
    return nil, perr
  end
  local c = { data = viewer.new_data(), index = {}, items = {} }
  for i, r in ipairs(records) do
    local n = math.tointeger(tonumber(r.tags and r.tags.Game)) or i
    local ok, e = pcall(viewer.game_entry, r, c.data, c.index)
    if not ok then return nil, ("%s/games.pgn: game %d: %s"):format(dir, n, tostring(e)) end
    e.n = n
    e.rd = r.tags and r.tags.Round
    local mid, tail = viewer.entry_parts(e)
    c.items[i] = { n = n, i = i, b = e.b, w = e.w, mid = mid, tail = tail, record = r }
  end
  return c
end

--- build_parts(dir [, opts]) -> list of texts (the page in pieces), or nil and a message: see
-- build.
function M.build_parts(dir, opts)
  local rtext, rerr = read_file(dir .. "/results.json")
  if not rtext then return nil, "cannot read results: " .. tostring(rerr) end
  local res, jerr = json.decode(rtext, dir .. "/results.json")
  if not res then return nil, jerr end
  if type(res) ~= "table" or type(res.bots) ~= "table" then
    return nil, dir .. "/results.json: not a tournament's results (no bots list)"
  end
  local c = opts and opts.games
  if not c then
    local err
    c, err = read_games(dir)
    if not c then return nil, err end
  end
  -- games in schedule order (records without a number keep their order)
  local games = {}
  for i, item in ipairs(c.items) do games[i] = item end
  table.sort(games, function(a, b)
    if a.n ~= b.n then return a.n < b.n end
    return a.i < b.i
  end)
  -- the page lists the bots in the order of the results, then any other name met
  local data = viewer.new_data()
  local remap, index = {}, {}
  local function bot(name)
    if index[name] == nil then
      data.bots[#data.bots + 1] = name
      index[name] = #data.bots - 1
    end
    return index[name]
  end
  for _, b in ipairs(res.bots) do bot(b.name) end
  for i, name in ipairs(c.data.bots) do remap[i - 1] = bot(name) end
  data.boards, data.starts = c.data.boards, c.data.starts
  -- the games' JSON from their pieces, with the bots' numbers of the page
  local texts = {}
  for k, item in ipairs(games) do
    texts[k] = viewer.entry_script(item.mid, item.tail, remap[item.b], remap[item.w])
  end
  if #data.boards == 0 then data.boards[1] = res.board or "8x8" end
  if #data.starts == 0 then data.starts[1] = require("konane").new():fen() end
  local body = table.concat {
    header(res, dir, #games), standings(res), crosstable(res), progress_charts(res, games),
    GAME_LIST,
    "<section id=\"view\"><h2>Game viewer</h2>",
    #games > 0 and viewer.html { boards = data.boards } or "<p>No games yet.</p>",
    "<p class=\"note\">Keys: left and right arrows step, Home and End jump; the address "
      .. "(#game=12&amp;ply=20) opens a game at a ply.</p></section>",
  }
  local name = dir:gsub("/+$", ""):match("([^/]+)$") or dir
  return viewer.page_parts("Tournament " .. name, body, viewer.finish(data), texts)
end

--- build(dir [, opts]) -> html, or nil and a message: the report of the tournament in 'dir',
-- from DIR/results.json and DIR/games.pgn, or with opts.games (a collector, see above) from the
-- games gathered there instead of games.pgn.
function M.build(dir, opts)
  local parts, err = M.build_parts(dir, opts)
  if not parts then return nil, err end
  return table.concat(parts)
end

--- save(dir [, opts]): builds the report (opts as for build) and saves it as DIR/report.html (through a temporary file and
-- a rename, so a failed write never leaves half a page). Raises "cannot write PATH: reason" or
-- the reason the report cannot be built.
function M.save(dir, opts)
  local html, err = M.build_parts(dir, opts) -- written piece by piece
  if not html then error(err, 0) end
  local path = dir .. "/" .. M.FILE
  require("konane.tournament.files").write_atomic(path, html)
  return path
end

--- write(dir) -> path, or nil and a message: save() without raising.
function M.write(dir)
  local ok, res = pcall(M.save, dir)
  if not ok then return nil, tostring(res) end
  return res
end

return M
