-- konane.tournament.results: the standings from the finished games, and the SPRT decision.
--
-- compute(s, games, results, extra) -> res: per bot games, wins, losses, score, points, Elo
-- (maximum likelihood, konane.stats) with its error bar, LOS against each opponent, and the
-- win matrix; a two-bot match also gets res.match. sprt_state(s, games, results) -> the SPRT
-- state over the games in schedule order.

local stats = require("konane.stats")
local json = require("konane.tournament.json")

local M = {}

-- Computes the standings from the finished games (only the games listed in 'counted').
function M.compute(s, games, results, extra)
  local n = #s.players
  local wins = {}
  for i = 1, n do wins[i] = {} for j = 1, n do wins[i][j] = 0 end end
  local forfeits = {}
  local played = 0
  local ids = {}
  for id in pairs(results) do ids[#ids + 1] = id end
  table.sort(ids)
  for _, id in ipairs(ids) do
    local g, r = games[id], results[id]
    local w, l = g.black, g.white
    if r.winner == "white" then w, l = l, w end
    wins[w][l] = wins[w][l] + 1
    played = played + 1
    if r.termination ~= "normal" then
      forfeits[r.termination] = (forfeits[r.termination] or 0) + 1
    end
  end
  local ratings = stats.ratings(n, wins)
  for i = 1, n do
    -- rounding noise of the fit is not a rating: print 0, not -0.0
    if math.abs(ratings.elo[i]) < 1e-9 then ratings.elo[i] = 0 end
  end
  local bots = {}
  for i, p in ipairs(s.players) do
    local w, l = 0, 0
    for j = 1, n do w, l = w + wins[i][j], l + wins[j][i] end
    local b = { name = p.name, spec = p.spec, games = w + l, wins = w, losses = l,
                score = (w + l) > 0 and w / (w + l) or 0, points = w + ((extra and extra.byes
                and extra.byes[i] or 0) * (s.games // 2)),
                elo = ratings.elo[i], elo_error = ratings.error[i], index = i, los = {} }
    for j = 1, n do
      if j ~= i and wins[i][j] + wins[j][i] > 0 then
        b.los[s.players[j].name] = stats.los(wins[i][j], wins[j][i])
      end
    end
    bots[i] = b
  end
  local ranked = {}
  for i = 1, n do ranked[i] = bots[i] end
  table.sort(ranked, function(a, b)
    if a.elo ~= b.elo then return a.elo > b.elo end
    if a.score ~= b.score then return a.score > b.score end
    return a.index < b.index
  end)
  for k, b in ipairs(ranked) do b.rank = k end
  local res = {
    format = s.format, variant = s.variant, board = s.rows .. "x" .. s.cols, time = s.time, tc = s.tc,
    margin = s.margin, seed = s.seed, games = played, bots = json.list(ranked), wins = wins, forfeits = forfeits,
    elo_prior = ratings.prior, players = s.players,
  }
  if n == 2 then
    local m = stats.match(wins[1][2], wins[2][1])
    res.match = { name = s.players[1].name, opponent = s.players[2].name, wins = m.wins,
                  losses = m.losses, elo = m.elo, elo_error = m.error, los = m.los }
  end
  return res
end

-- The SPRT decision on the games in schedule order: the first game after which the LLR crosses
-- a bound decides; later games are not counted (so the outcome does not depend on which games
-- happened to finish first). Returns the state and the set of counted ids.
function M.sprt_state(s, games, results)
  local t = stats.sprt(s.sprt)
  local w, l, last = 0, 0, 0
  local status
  for id = 1, #games do
    local r = results[id]
    if not r then break end
    local g = games[id]
    local winner = r.winner == "black" and g.black or g.white
    if winner == 1 then w = w + 1 else l = l + 1 end
    last = id
    status = t.status(w, l)
    if status then break end
  end
  return {
    elo0 = t.elo0, elo1 = t.elo1, alpha = t.alpha, beta = t.beta, lower = t.lower, upper = t.upper,
    llr = t.llr(w, l), wins = w, losses = l, games = last,
    status = status or (last == #games and "inconclusive" or "running"),
  }
end

return M
