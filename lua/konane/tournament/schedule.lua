-- konane.tournament.schedule: which games a tournament plays.
--
-- A schedule is a list of games { id, round, board, encounter, opening, black, white, seed },
-- a pure function of the settings (and, for Swiss, of the results of the earlier rounds): every
-- game has a number, its two players and colours, its opening and its own seed derived from the
-- tournament seed. An encounter is two games of one pair on one opening with the colours
-- swapped. Round robin and gauntlet schedules are fixed (fixed(s)); a Swiss round is paired when
-- the previous one is known (swiss_round).

local util = require("konane.tournament.util")

local M = {}

-- The pairs of a round robin in the order of the circle method (every player plays once per
-- "round" of the circle when the number is even), so that all pairs meet early.
local function circle_pairs(n)
  local ids = {}
  for i = 1, n do ids[i] = i end
  if n % 2 == 1 then ids[#ids + 1] = false end
  local m = #ids
  local out = {}
  for _ = 1, m - 1 do
    for k = 1, m // 2 do
      local a, b = ids[k], ids[m + 1 - k]
      if a and b then out[#out + 1] = { math.min(a, b), math.max(a, b) } end
    end
    -- rotate every id but the first
    table.insert(ids, 2, table.remove(ids))
  end
  return out
end

-- Adds the two colour-swapped games of one encounter to 'games'.
local function add_encounter(s, games, round, board, a, b, opening, encounter)
  local first_black = ((round + board) % 2 == 1) and a or b
  local first_white = first_black == a and b or a
  for k = 0, 1 do
    local id = #games + 1
    games[id] = {
      id = id, round = round, board = board, encounter = encounter, opening = opening,
      black = k == 0 and first_black or first_white,
      white = k == 0 and first_white or first_black,
      seed = util.mix(s.seed, id),
    }
  end
end

-- fixed(s) -> games: the schedule of a round robin or gauntlet (or SPRT match):
-- (games / 2) * rounds cycles; in each cycle every pair plays one opening (the same for all
-- pairs in the cycle) with both colours.
function M.fixed(s)
  local n = #s.players
  local pairs_
  if s.format == "gauntlet" then
    pairs_ = {}
    for j = 2, n do pairs_[#pairs_ + 1] = { 1, j } end
  else
    pairs_ = circle_pairs(n)
  end
  local games, encounter = {}, 0
  local cycles = (s.games // 2) * s.rounds
  for c = 1, cycles do
    local opening = (c - 1) % #s.openings_list + 1
    for b, p in ipairs(pairs_) do
      encounter = encounter + 1
      add_encounter(s, games, c, b, p[1], p[2], opening, encounter)
    end
  end
  return games
end

-- Swiss standings before round 'round': points (wins, plus half the games of an encounter for
-- a bye) per player.
local function swiss_points(s, games, results, byes)
  local pts = {}
  for i = 1, #s.players do pts[i] = (byes[i] or 0) * (s.games / 2) end
  for _, g in ipairs(games) do
    local r = results[g.id]
    if r then
      local w = r.winner == "black" and g.black or g.white
      pts[w] = pts[w] + 1
    end
  end
  return pts
end

-- Pairs one Swiss round: players ordered by points (ties: the order given), the bye to the
-- lowest-placed player who has not had one, then a backtracking search for pairings without a
-- rematch (rematches only when no such pairing exists). Round 1 pairs the top half against the
-- bottom half.
local function swiss_pairings(s, round, pts, met, byes)
  local n = #s.players
  local order = {}
  for i = 1, n do order[i] = i end
  table.sort(order, function(a, b)
    if pts[a] ~= pts[b] then return pts[a] > pts[b] end
    return a < b
  end)
  local bye
  if n % 2 == 1 then
    local at = n
    for k = n, 1, -1 do
      if not byes[order[k]] then at = k break end
    end
    bye = table.remove(order, at)
  end
  if round == 1 then
    local h, out = #order // 2, {}
    for k = 1, h do out[k] = { order[k], order[k + h] } end
    return out, bye
  end
  local function search(rest, allow_rematch, budget)
    if #rest == 0 then return {} end
    local a = rest[1]
    for k = 2, #rest do
      local b = rest[k]
      if allow_rematch or not met[a][b] then
        budget[1] = budget[1] - 1
        if budget[1] < 0 then return nil end
        local sub = {}
        for j = 2, #rest do if j ~= k then sub[#sub + 1] = rest[j] end end
        local tail = search(sub, allow_rematch, budget)
        if tail then
          table.insert(tail, 1, { a, b })
          return tail
        end
      end
    end
    return nil
  end
  local out = search(order, false, { 100000 }) or search(order, true, { 100000 })
  return out, bye
end

-- new_swiss() -> the state a Swiss tournament keeps between rounds.
function M.new_swiss()
  return { byes = {}, bye_rounds = {}, round = 0, encounters = 0 }
end

-- swiss_round(s, games, results, state): pairs the next round from the results so far and
-- appends its games to 'games'; returns the number of the first new game.
function M.swiss_round(s, games, results, state)
  state.round = state.round + 1
  local round = state.round
  local met = {}
  for i = 1, #s.players do met[i] = {} end
  for _, g in ipairs(games) do
    met[g.black][g.white], met[g.white][g.black] = true, true
  end
  local pts = swiss_points(s, games, results, state.byes)
  local pairings, bye = swiss_pairings(s, round, pts, met, state.byes)
  if bye then
    state.byes[bye] = (state.byes[bye] or 0) + 1
    state.bye_rounds[round] = bye
  end
  local first = #games + 1
  local per = s.games // 2
  local encounter = state.encounters
  for b, p in ipairs(pairings) do
    for k = 1, per do
      encounter = encounter + 1
      local cycle = (round - 1) * per + k
      add_encounter(s, games, round, b, p[1], p[2], (cycle - 1) % #s.openings_list + 1, encounter)
    end
  end
  state.encounters = encounter
  return first
end

-- The number of games a Swiss tournament plays in total.
function M.swiss_total(s)
  return s.rounds * (#s.players // 2) * s.games
end

-- Is game 'g' part of this run's shard?
function M.in_shard(s, g)
  if not s.shard or s.shard[2] == 1 then return true end
  return (g.encounter - 1) % s.shard[2] + 1 == s.shard[1]
end

return M
