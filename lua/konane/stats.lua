-- konane.stats: match statistics for a game without draws.
--
-- Every game has a winner, so a game is a Bernoulli trial and the usual chess formulas lose their
-- draw terms: the Elo model is P(i beats j) = 1 / (1 + 10^((Rj - Ri) / 400)), ratings are fitted
-- by maximum likelihood over all games (Bradley-Terry), the error bars come from the observed
-- information matrix, and the SPRT is Wald's test on a binomial parameter.

local stats = {}

-- Game counts and probabilities come from callers' tables: a negative, fractional or NaN count
-- gave a number (match(-3, 5): elo -inf; los(-1, 0): nan) instead of an error.
local function shown(v)
  if type(v) == "number" then return tostring(v) end
  if type(v) == "string" then return ("'%s'"):format(#v > 40 and v:sub(1, 40) .. "..." or v):gsub("%c", "?") end
  return type(v)
end

-- Raises "WHERE: bad argument #I (NAME: a whole number of games >= 0 expected, got V)".
local function check_count(v, where, i, name)
  if type(v) ~= "number" or not (v >= 0 and v < math.huge) or v ~= math.floor(v) then
    error(("%s: bad argument #%d (%s: a whole number of games >= 0 expected, got %s)")
      :format(where, i, name, shown(v)), 3)
  end
end

-- One Elo point in natural-log odds units: logit(p) = C * elo.
local C = math.log(10) / 400

-- The two-sided 95% quantile of the normal distribution.
stats.Z95 = 1.959963984540054

-- stats.expected(diff): the probability that a player 'diff' Elo stronger wins one game.
function stats.expected(diff)
  return 1 / (1 + 10 ^ (-diff / 400))
end

-- stats.elo(p): the Elo difference whose expected score is 'p' (0 < p < 1); +-inf at 1 and 0.
function stats.elo(p)
  if type(p) ~= "number" or not (p >= 0 and p <= 1) then
    error(("stats.elo: bad argument #1 (a score from 0 to 1 expected, got %s)"):format(shown(p)), 2)
  end
  if p <= 0 then return -math.huge end
  if p >= 1 then return math.huge end
  return 400 * math.log(p / (1 - p), 10)
end

-- stats.erf(x): the error function to about 1e-15, by its Taylor series near zero and by the
-- continued fraction of erfc (modified Lentz) further out, where the series would cancel badly.
function stats.erf(x)
  if x ~= x then return x end
  local ax = math.abs(x)
  if ax < 2.5 then
    local sum, term, n = ax, ax, 0
    repeat
      n = n + 1
      term = -term * ax * ax / n
      local add = term / (2 * n + 1)
      sum = sum + add
    until math.abs(add) <= 1e-17 * math.abs(sum) or n > 200
    local r = 2 / math.sqrt(math.pi) * sum
    return x < 0 and -r or r
  end
  if ax > 6 then return x < 0 and -1 or 1 end
  -- erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))
  local tiny = 1e-300
  local f, cc, d = ax, ax, 0
  for k = 1, 500 do
    local a = k / 2
    d = ax + a * d
    if d == 0 then d = tiny end
    cc = ax + a / cc
    if cc == 0 then cc = tiny end
    d = 1 / d
    local delta = cc * d
    f = f * delta
    if math.abs(delta - 1) < 1e-16 then break end
  end
  local erfc = math.exp(-ax * ax) / math.sqrt(math.pi) / f
  return x < 0 and erfc - 1 or 1 - erfc
end

-- stats.phi(z): the standard normal distribution function.
function stats.phi(z)
  return 0.5 + 0.5 * stats.erf(z / math.sqrt(2))
end

-- stats.los(wins, losses): the likelihood of superiority, the probability that the player who
-- scored 'wins' against 'losses' is the stronger one: 1/2 + 1/2 erf((W - L) / sqrt(2 (W + L))).
-- With no game it is 1/2.
function stats.los(wins, losses)
  check_count(wins, "stats.los", 1, "wins")
  check_count(losses, "stats.los", 2, "losses")
  local n = wins + losses
  if n == 0 then return 0.5 end
  return 0.5 + 0.5 * stats.erf((wins - losses) / math.sqrt(2 * n))
end

-- stats.median(list): the median of a list of numbers (the mean of the two middle ones for an
-- even count), nil for an empty list; the list itself is left as it was.
function stats.median(list)
  local s = { table.unpack(list) }
  local n = #s
  if n == 0 then return nil end
  table.sort(s)
  if n % 2 == 1 then return s[(n + 1) // 2] end
  return (s[n // 2] + s[n // 2 + 1]) / 2
end

-- stats.match(wins, losses): the Elo difference of a two-player match, its 95% error bar (delta
-- method: sd = 400 / ln 10 / sqrt(N p (1 - p))) and the LOS. The difference is +-inf and the
-- error nil when one side won every game (the maximum-likelihood estimate does not exist).
function stats.match(wins, losses)
  check_count(wins, "stats.match", 1, "wins")
  check_count(losses, "stats.match", 2, "losses")
  local n = wins + losses
  local r = { games = n, wins = wins, losses = losses, los = stats.los(wins, losses) }
  if n == 0 then
    r.elo, r.score = 0, 0.5
    return r
  end
  local p = wins / n
  r.score = p
  r.elo = stats.elo(p)
  if wins > 0 and losses > 0 then
    r.error = stats.Z95 / (C * math.sqrt(n * p * (1 - p)))
  end
  return r
end

-- Solves the dense linear system a x = b in place (Gaussian elimination with partial pivoting).
-- Returns x, or nil when the matrix is singular.
local function solve_linear(a, b)
  local n = #b
  for col = 1, n do
    local piv, best = col, math.abs(a[col][col])
    for r = col + 1, n do
      if math.abs(a[r][col]) > best then piv, best = r, math.abs(a[r][col]) end
    end
    if best < 1e-300 then return nil end
    a[col], a[piv] = a[piv], a[col]
    b[col], b[piv] = b[piv], b[col]
    for r = col + 1, n do
      local f = a[r][col] / a[col][col]
      if f ~= 0 then
        for k = col, n do a[r][k] = a[r][k] - f * a[col][k] end
        b[r] = b[r] - f * b[col]
      end
    end
  end
  local x = {}
  for r = n, 1, -1 do
    local s = b[r]
    for k = r + 1, n do s = s - a[r][k] * x[k] end
    x[r] = s / a[r][r]
  end
  return x
end

-- Inverts the n x n matrix 'm' column by column; nil when singular.
local function invert(m)
  local n = #m
  local inv = {}
  for i = 1, n do inv[i] = {} end
  for col = 1, n do
    local a, b = {}, {}
    for i = 1, n do
      a[i] = {}
      for j = 1, n do a[i][j] = m[i][j] end
      b[i] = (i == col) and 1 or 0
    end
    local x = solve_linear(a, b)
    if not x then return nil end
    for i = 1, n do inv[i][col] = x[i] end
  end
  return inv
end

-- True when every player can be reached from every other one along "beat" edges: exactly the
-- condition for the Bradley-Terry maximum-likelihood estimate to exist (Zermelo, Ford).
local function strongly_connected(n, wins)
  local function reach(forward)
    local seen, stack, count = { [1] = true }, { 1 }, 1
    while #stack > 0 do
      local i = table.remove(stack)
      for j = 1, n do
        local w = forward and wins[i][j] or wins[j][i]
        if not seen[j] and w > 0 then
          seen[j] = true
          count = count + 1
          stack[#stack + 1] = j
        end
      end
    end
    return count == n
  end
  return reach(true) and reach(false)
end

-- Fits ratings (mean zero) to the win matrix 'w' (w[i][j] = games i won against j) by Newton's
-- method on the log-likelihood; returns the ratings and their covariance matrix.
local function fit(n, w)
  local r = {}
  for i = 1, n do r[i] = 0 end
  local cov
  for _ = 1, 200 do
    -- gradient and information matrix in Elo units
    local g, h = {}, {}
    for i = 1, n do
      g[i] = 0
      h[i] = {}
      for j = 1, n do h[i][j] = 0 end
    end
    for i = 1, n do
      for j = i + 1, n do
        local games = w[i][j] + w[j][i]
        if games > 0 then
          local p = stats.expected(r[i] - r[j])
          local d = C * (w[i][j] - games * p)
          g[i], g[j] = g[i] + d, g[j] - d
          local info = C * C * games * p * (1 - p)
          h[i][i], h[j][j] = h[i][i] + info, h[j][j] + info
          h[i][j], h[j][i] = h[i][j] - info, h[j][i] - info
        end
      end
    end
    -- The information matrix is a weighted graph Laplacian (null space: the constant vector);
    -- its pseudo-inverse is (H + J/n)^-1 - J/n, which is also the covariance of the
    -- mean-zero ratings.
    local m = {}
    for i = 1, n do
      m[i] = {}
      for j = 1, n do m[i][j] = h[i][j] + 1 / n end
    end
    local inv = invert(m)
    if not inv then return nil end
    for i = 1, n do
      for j = 1, n do inv[i][j] = inv[i][j] - 1 / n end
    end
    cov = inv
    local step, biggest = {}, 0
    for i = 1, n do
      local s = 0
      for j = 1, n do s = s + inv[i][j] * g[j] end
      -- never move more than 400 Elo at once: the log-likelihood is concave, so a damped
      -- Newton step converges from zero.
      if s > 400 then s = 400 elseif s < -400 then s = -400 end
      step[i] = s
      biggest = math.max(biggest, math.abs(s))
    end
    for i = 1, n do r[i] = r[i] + step[i] end
    if biggest < 1e-9 then break end
  end
  local mean = 0
  for i = 1, n do mean = mean + r[i] end
  mean = mean / n
  for i = 1, n do r[i] = r[i] - mean end
  return r, cov
end

-- stats.ratings(n, wins): maximum-likelihood Elo ratings of 'n' players from the win matrix
-- 'wins' (wins[i][j] = games player i won against player j; missing entries count as 0).
-- Returns { elo = {...}, error = {...} (95% half-widths), prior = bool }. Ratings average zero
-- over the players that played. When the estimate does not exist (a player won or lost every
-- game, or the players split into groups that never beat each other) every pair that met gets
-- one virtual game split half a win each way (prior = true), the smallest change that makes the
-- estimate finite; the output says so. When groups are left that never met at all, every pair
-- gets one more such game, met or not. Players without games get rating 0 and no error.
function stats.ratings(n, wins)
  if type(n) ~= "number" or not (n >= 0 and n <= 1e6) or n ~= math.floor(n) then
    error(("stats.ratings: bad argument #1 (a number of players from 0 to 10^6 expected, got %s)"):format(shown(n)), 2)
  end
  if type(wins) ~= "table" then
    error(("stats.ratings: bad argument #2 (a win matrix expected, got %s)"):format(shown(wins)), 2)
  end
  -- the entries given, not n x n (the n x n scan took minutes for n = 10^5 and forever for a
  -- huge n: a player count of 2^53 hung the caller)
  local played = {}
  for i = 1, n do
    local row = wins[i]
    if row ~= nil and type(row) ~= "table" then
      error(("stats.ratings: bad argument #2 (wins[%d]: a table expected, got %s)"):format(i, shown(row)), 2)
    end
    for j, v in pairs(row or {}) do
      if math.type(j) == "integer" and j >= 1 and j <= n then
        check_count(v, "stats.ratings", 2, ("wins[%d][%d]"):format(i, j))
        if j ~= i and v > 0 then played[i], played[j] = true, true end
      end
    end
  end
  local active = {}
  for i = 1, n do
    if played[i] then active[#active + 1] = i end
  end
  local out = { elo = {}, error = {}, prior = false }
  for i = 1, n do out.elo[i] = 0 end
  local m = #active
  if m < 2 then return out end
  local w = {}
  for a = 1, m do
    w[a] = {}
    for b = 1, m do
      w[a][b] = a == b and 0 or ((wins[active[a]] or {})[active[b]] or 0)
    end
  end
  if not strongly_connected(m, w) then
    out.prior = true
    local all_pairs = false
    for _ = 1, 2 do
      for a = 1, m do
        for b = 1, m do
          if a ~= b and (all_pairs or w[a][b] + w[b][a] > 0) then w[a][b] = w[a][b] + 0.5 end
        end
      end
      if strongly_connected(m, w) then break end
      all_pairs = true -- the players fell into groups that never met: link every pair
    end
  end
  local r, cov = fit(m, w)
  if not r then return out end
  for a = 1, m do
    out.elo[active[a]] = r[a]
    out.error[active[a]] = stats.Z95 * math.sqrt(math.max(cov[a][a], 0))
  end
  return out
end

-- stats.sprt{elo0=, elo1=, alpha=, beta=}: Wald's sequential probability ratio test on the
-- probability p that the first player wins a game (no draws, so a game is a Bernoulli trial):
-- H0: p = expected(elo0) against H1: p = expected(elo1). Returns a table with lower and upper
-- (the log bounds ln(beta / (1 - alpha)) and ln((1 - beta) / alpha)), llr(wins, losses)
-- = W ln(p1/p0) + L ln((1-p1)/(1-p0)), and status(wins, losses) -> "H1", "H0" or nil.
function stats.sprt(o)
  o = require("konane.util").check_opts(o, { "elo0", "elo1", "alpha", "beta" }, "sprt")
  local t = {
    elo0 = o.elo0 or 0, elo1 = o.elo1 or 10, alpha = o.alpha or 0.05, beta = o.beta or 0.05,
  }
  for _, k in ipairs { "elo0", "elo1", "alpha", "beta" } do
    local v = t[k]
    if type(v) ~= "number" or not (math.abs(v) < 4000) then
      error(("sprt: %s must be a number%s, got %s"):format(k,
        k:find("elo") and " from -4000 to 4000" or "", shown(v)), 2)
    end
  end
  assert(t.elo1 > t.elo0, "sprt: elo1 must be greater than elo0")
  assert(t.alpha > 0 and t.alpha < 1 and t.beta > 0 and t.beta < 1,
    "sprt: alpha and beta must lie strictly between 0 and 1")
  t.p0, t.p1 = stats.expected(t.elo0), stats.expected(t.elo1)
  t.lower = math.log(t.beta / (1 - t.alpha))
  t.upper = math.log((1 - t.beta) / t.alpha)
  local lw, ll = math.log(t.p1 / t.p0), math.log((1 - t.p1) / (1 - t.p0))
  function t.llr(wins, losses)
    check_count(wins, "sprt.llr", 1, "wins")
    check_count(losses, "sprt.llr", 2, "losses")
    return wins * lw + losses * ll
  end
  function t.status(wins, losses)
    local v = t.llr(wins, losses)
    if v >= t.upper then return "H1" end
    if v <= t.lower then return "H0" end
    return nil
  end
  return t
end

return stats
