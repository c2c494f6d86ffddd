-- konane.tournament.report: the results as text for people (text) and as the JSON document of
-- DIR/results.json (json).

local json = require("konane.tournament.json")

local M = {}

local function fmt_elo(v)
  if v == math.huge then return "+inf" end
  if v == -math.huge then return "-inf" end
  return string.format("%+.1f", v)
end

local function pad(s, w, right)
  s = tostring(s)
  local len = utf8.len(s) or #s
  if len >= w then return s end
  return right and (string.rep(" ", w - len) .. s) or (s .. string.rep(" ", w - len))
end

-- text(results) -> text: standings with Elo and error bars, crosstable, LOS and SPRT.
function M.text(res)
  local out = {}
  local function add(line) out[#out + 1] = line end
  local n = #res.bots
  local width = 4
  for _, b in ipairs(res.bots) do width = math.max(width, utf8.len(b.name) or #b.name) end
  add(pad("Rank", 5) .. pad("Bot", width + 2) .. pad("Games", 7, true) .. pad("Wins", 7, true) ..
      pad("Losses", 8, true) .. pad("Score", 8, true) .. pad("Elo", 9, true) .. pad("+-95%", 8, true))
  for _, b in ipairs(res.bots) do
    local err = b.elo_error and string.format("%.1f", b.elo_error) or "-"
    add(pad(b.rank, 4, true) .. " " .. pad(b.name, width + 2) .. pad(b.games, 7, true) ..
        pad(b.wins, 7, true) .. pad(b.losses, 8, true) ..
        pad(string.format("%.1f%%", 100 * b.score), 8, true) .. pad(fmt_elo(b.elo), 9, true) ..
        pad(err, 8, true))
  end
  if res.elo_prior then
    add("(a perfect score has no finite maximum-likelihood Elo: every pair that met counts one")
    add(" virtual game split half a win each way)")
  end
  if n > 2 then
    -- columns are numbered by rank, so long bot names do not widen the table
    local cw = 7
    for _, a in ipairs(res.bots) do
      for _, b in ipairs(res.bots) do
        if a ~= b then
          cw = math.max(cw, #(res.wins[a.index][b.index] .. "-" .. res.wins[b.index][a.index]) + 2)
        end
      end
    end
    local head = pad("", width + 6)
    for _, b in ipairs(res.bots) do head = head .. pad(b.rank, cw, true) end
    local function table_of(title, cell)
      add("")
      add(title)
      add(head)
      for _, a in ipairs(res.bots) do
        local line = pad(a.rank, 4, true) .. "  " .. pad(a.name, width)
        for _, b in ipairs(res.bots) do line = line .. pad(a == b and "-" or cell(a, b), cw, true) end
        add(line)
      end
    end
    table_of("Crosstable (wins-losses of the row against the column):", function(a, b)
      local w, l = res.wins[a.index][b.index], res.wins[b.index][a.index]
      return (w + l > 0) and (w .. "-" .. l) or "."
    end)
    table_of("Likelihood of superiority (row stronger than column, from their games):", function(a, b)
      local v = a.los[b.name]
      return v and string.format("%.1f%%", 100 * v) or "."
    end)
  end
  if res.match then
    local m = res.match
    add("")
    local diff
    if m.elo_error then
      diff = string.format("Elo difference %s +- %.1f", fmt_elo(m.elo), m.elo_error)
    elseif m.wins + m.losses > 0 then
      diff = string.format("Elo difference %s (one side won every game: no finite estimate)", fmt_elo(m.elo))
    else
      diff = "no games"
    end
    add(string.format("%s vs %s: %d - %d, %s, LOS %.1f%%", m.name, m.opponent, m.wins, m.losses,
      diff, 100 * m.los))
  end
  if res.sprt then
    local t = res.sprt
    local verdict = ({ H1 = "H1 accepted", H0 = "H0 accepted", inconclusive = "inconclusive (no games left)",
                       running = "not decided yet" })[t.status]
    add(string.format("SPRT (elo0=%g, elo1=%g, alpha=%g, beta=%g): LLR %.3f, bounds [%.3f, %.3f] after %d games: %s",
      t.elo0, t.elo1, t.alpha, t.beta, t.llr, t.lower, t.upper, t.games, verdict))
    if (t.uncounted or 0) > 0 then
      add(string.format("(%d game%s finished after the decision and %s not counted)", t.uncounted,
        t.uncounted == 1 and "" or "s", t.uncounted == 1 and "is" or "are"))
    end
  end
  local fk = {}
  for k in pairs(res.forfeits or {}) do fk[#fk + 1] = k end
  table.sort(fk)
  if #fk > 0 then
    local parts = {}
    for _, k in ipairs(fk) do parts[#parts + 1] = k .. " " .. res.forfeits[k] end
    add("")
    add("Games not ended by the rules: " .. table.concat(parts, ", "))
  end
  if res.byes and next(res.byes) then
    local parts = {}
    for r, i in pairs(res.bye_rounds or {}) do parts[#parts + 1] = { r, i } end
    table.sort(parts, function(a, b) return a[1] < b[1] end)
    local txt = {}
    for _, p in ipairs(parts) do txt[#txt + 1] = "round " .. p[1] .. ": " .. res.players[p[2]].name end
    add("Byes (half the points of an encounter): " .. table.concat(txt, ", "))
  end
  return table.concat(out, "\n") .. "\n"
end

-- The JSON document of DIR/results.json.
function M.json(res)
  local bots = {}
  for k, b in ipairs(res.bots) do
    bots[k] = { name = b.name, spec = b.spec, rank = b.rank, games = b.games, wins = b.wins,
                losses = b.losses, score = b.score, points = b.points, elo = b.elo,
                elo_error = b.elo_error, los = b.los }
  end
  local cross = {}
  for _, a in ipairs(res.bots) do
    local row = {}
    for _, b in ipairs(res.bots) do
      if a ~= b and res.wins[a.index][b.index] + res.wins[b.index][a.index] > 0 then
        row[b.name] = { wins = res.wins[a.index][b.index], losses = res.wins[b.index][a.index] }
      end
    end
    cross[a.name] = row
  end
  local doc = {
    format = res.format, variant = res.variant, board = res.board, time = res.time, tc = res.tc,
    margin = res.margin, seed = res.seed,
    games = res.games, scheduled = res.scheduled, complete = res.complete, bots = json.list(bots),
    crosstable = cross, forfeits = res.forfeits, elo_prior = res.elo_prior, sprt = res.sprt,
    match = res.match, shard = res.shard and (res.shard[1] .. "/" .. res.shard[2]) or nil,
  }
  return json.encode(doc) .. "\n"
end

return M
