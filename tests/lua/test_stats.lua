-- Statistics checked against values worked out by hand (the working is in the comments).
local stats = require "konane.stats"

local function near(got, want, tol, what)
  if not (math.abs(got - want) <= tol) then
    error(string.format("%s: got %.12g, want %.12g", what or "value", got, want), 2)
  end
end

return {
  ["erf matches tabulated values on both sides of the series/fraction switch"] = function()
    near(stats.erf(0), 0, 1e-15, "erf(0)")
    near(stats.erf(0.5), 0.5204998778130465, 1e-13, "erf(0.5)")
    near(stats.erf(-1.2), -0.9103139782296353, 1e-13, "erf(-1.2)")
    near(stats.erf(2.4999), 0.9995928300996700, 1e-12, "erf(2.4999)")
    near(stats.erf(3), 0.9999779095030014, 1e-13, "erf(3)")
    near(stats.phi(1.959963984540054), 0.975, 1e-12, "phi(z95)")
  end,

  ["median of odd and even counts, none for an empty list, the list left as it was"] = function()
    local list = { 5, 1, 4 }
    assert(stats.median(list) == 4)
    assert(list[1] == 5 and list[2] == 1 and list[3] == 4, "the list was reordered")
    assert(stats.median { 3, 1, 4, 2 } == 2.5)
    assert(stats.median { 7 } == 7)
    assert(stats.median {} == nil)
  end,

  ["expected score and Elo are inverse functions"] = function()
    near(stats.expected(0), 0.5, 1e-15)
    -- 10^(-400/400) = 0.1, so 1/(1 + 0.1)
    near(stats.expected(400), 1 / 1.1, 1e-15)
    near(stats.elo(0.75), 400 * math.log(3, 10), 1e-9)
    assert(stats.elo(1) == math.huge and stats.elo(0) == -math.huge)
  end,

  ["a 3-1 match is +190.85 Elo +- 393.15 with LOS 84.13%"] = function()
    -- p = 3/4: 400 log10(3) = 190.8485; sd = 400/ln10 / sqrt(4 * 3/4 * 1/4) = 173.7178 / 0.8660
    -- = 200.5938, times 1.95996 = 393.1532. LOS = 1/2 + 1/2 erf(2 / sqrt(8)) = 0.841345.
    local m = stats.match(3, 1)
    near(m.elo, 190.84850188786498, 1e-9, "elo")
    near(m.error, 393.15315208777747, 1e-9, "error")
    near(m.los, 0.8413447460685429, 1e-12, "los")
    near(m.score, 0.75, 0)
  end,

  ["a perfect match has an infinite difference and no error bar"] = function()
    local m = stats.match(5, 0)
    assert(m.elo == math.huge and m.error == nil)
    -- LOS = 1/2 + 1/2 erf(5 / sqrt(10))
    near(m.los, 0.5 + 0.5 * 0.9746526813225317, 1e-12, "los")
    near(stats.los(0, 0), 0.5, 0)
    near(stats.los(10, 10), 0.5, 0)
  end,

  ["two-player maximum likelihood splits the match difference around zero"] = function()
    local r = stats.ratings(2, { { 0, 3 }, { 1, 0 } })
    near(r.elo[1], 190.84850188786498 / 2, 1e-7, "elo 1")
    near(r.elo[2], -190.84850188786498 / 2, 1e-7, "elo 2")
    -- each rating carries half the variance of the difference's half: error / 2
    near(r.error[1], 393.15315208777747 / 2, 1e-6, "error 1")
    assert(not r.prior)
  end,

  ["three-player maximum likelihood: A 3-1 B, A 3-1 C, B 2-2 C"] = function()
    -- B and C are symmetric, so B = C; A's 6 of 8 needs p = 3/4, A - B = 400 log10 3 = 190.85,
    -- and mean zero gives A = 2/3 * 190.85 = 127.23, B = C = -63.62. Check the ML equations:
    -- B expects 4 * 1/4 = 1 win against A and 2 against C: 3 = its real score.
    local r = stats.ratings(3, { { 0, 3, 3 }, { 1, 0, 2 }, { 1, 2, 0 } })
    near(r.elo[1], 2 / 3 * 190.84850188786498, 1e-6, "A")
    near(r.elo[2], -1 / 3 * 190.84850188786498, 1e-6, "B")
    near(r.elo[3], r.elo[2], 1e-9, "C")
    -- information: A-B and A-C pairs carry c^2 * 4 * 3/16 each, B-C c^2 * 4 * 1/4 (c = ln10/400);
    -- the pseudo-inverse of that Laplacian gives var(A) = 2 / (9 * c^2 * 3/4 * 2) ... checked
    -- here through its closed form: var(A) = 2 / (9 a) with a = c^2 * 3/4.
    local c = math.log(10) / 400
    local a = c * c * 0.75
    near(r.error[1], stats.Z95 * math.sqrt(2 / (9 * a)), 1e-6, "error A")
  end,

  ["a cycle of equal results gives equal ratings"] = function()
    local r = stats.ratings(3, { { 0, 2, 1 }, { 1, 0, 2 }, { 2, 1, 0 } })
    for i = 1, 3 do near(r.elo[i], 0, 1e-9, "elo") end
  end,

  ["a perfect score falls back to half a virtual game each way and says so"] = function()
    -- with 3.5 - 0.5 the difference is 400 log10 7 = 338.04
    local r = stats.ratings(2, { { 0, 3 }, { 0, 0 } })
    assert(r.prior)
    near(r.elo[1] - r.elo[2], 400 * math.log(7, 10), 1e-6, "difference")
    assert(r.error[1] > 0)
  end,

  ["players without games are rated zero without an error bar"] = function()
    local r = stats.ratings(3, { { 0, 1, 0 }, { 1, 0, 0 }, { 0, 0, 0 } })
    near(r.elo[3], 0, 0)
    assert(r.error[3] == nil)
    near(r.elo[1], 0, 1e-9)
  end,

  ["SPRT bounds and LLR for elo0=0 elo1=10 alpha=beta=0.05"] = function()
    -- bounds ln(0.05/0.95) = -2.944439 and +2.944439; p1 = 1/(1 + 10^(-1/40)) = 0.5143872;
    -- LLR(10, 4) = 10 ln(p1/0.5) + 4 ln((1-p1)/0.5) = 0.2837 - 0.1168 = 0.166896
    local t = stats.sprt { elo0 = 0, elo1 = 10, alpha = 0.05, beta = 0.05 }
    near(t.lower, -2.9444389791664403, 1e-12, "lower")
    near(t.upper, 2.9444389791664403, 1e-12, "upper")
    near(t.p1, 0.5143871841659987, 1e-12, "p1")
    near(t.llr(10, 4), 0.1668957314020859, 1e-12, "llr")
    assert(t.status(10, 4) == nil)
  end,

  ["SPRT accepts H1 and H0 on lopsided counts"] = function()
    local t = stats.sprt { elo0 = 0, elo1 = 100, alpha = 0.05, beta = 0.05 }
    -- p1 = 0.640065; each win adds ln(1.28013) = 0.24696, each loss ln(0.71987) = -0.32869
    near(t.llr(1, 0), math.log(2 * stats.expected(100)), 1e-12)
    assert(t.status(12, 0) == "H1") -- 12 * 0.24696 = 2.9635 >= 2.9444
    assert(t.status(11, 0) == nil)  -- 2.7166
    assert(t.status(0, 9) == "H0")  -- -2.9582 <= -2.9444
    assert(t.status(0, 8) == nil)
  end,

  -- Counts come from the caller's tables: a negative, fractional or NaN count gave a number
  -- (match(-3, 5): Elo -inf, score -1.5; los(-1, 0): nan; llr(-1, 3) a finite LLR; ratings with
  -- a -1 in the matrix: ratings) instead of an error naming the argument.
  ["bad counts and scores are errors naming the argument, not numbers"] = function()
    local function raises(pattern, f, ...)
      local ok, err = pcall(f, ...)
      assert(not ok, "no error for " .. pattern)
      assert(tostring(err):find(pattern, 1, true), tostring(err))
    end
    raises("stats.match: bad argument #1 (wins: a whole number of games >= 0 expected, got -3)",
      stats.match, -3, 5)
    raises("stats.match: bad argument #2 (losses", stats.match, 3, 0.5)
    raises("stats.match: bad argument #1 (wins", stats.match, 0 / 0, 1)
    raises("stats.match: bad argument #1 (wins", stats.match, math.huge, 1)
    raises("stats.match: bad argument #1 (wins", stats.match, "3", 1)
    raises("stats.los: bad argument #1 (wins", stats.los, -1, 0)
    raises("stats.elo: bad argument #1 (a score from 0 to 1 expected, got 1.5)", stats.elo, 1.5)
    raises("stats.elo: bad argument #1", stats.elo, 0 / 0)
    raises("stats.ratings: bad argument #2 (wins[2][1]: a whole number of games >= 0 expected, got -1)",
      stats.ratings, 2, { { 0, 3 }, { -1, 0 } })
    raises("stats.ratings: bad argument #1", stats.ratings, -1, {})
    raises("stats.ratings: bad argument #1", stats.ratings, 2.5, {})
    raises("stats.ratings: bad argument #1", stats.ratings, 2 ^ 53, {}) -- a loop without end before
    -- a sparse matrix of many players is quick: only the entries given are looked at
    local t0 = os.clock()
    local big = stats.ratings(100000, { [7] = { [99999] = 2 }, [99999] = { [7] = 1 } })
    assert(os.clock() - t0 < 2 and big.elo[7] > 0 and big.elo[99999] < 0 and big.elo[1] == 0)
    raises("stats.ratings: bad argument #2 (wins[1]: a table expected", stats.ratings, 2, { 5 })
    raises("stats.ratings: bad argument #2 (a win matrix expected", stats.ratings, 2)
    raises("sprt: elo0 must be a number", stats.sprt, { elo0 = 0 / 0 })
    raises("sprt: elo1 must be a number", stats.sprt, { elo1 = math.huge })
    raises("sprt: unknown option 'elo'", stats.sprt, { elo = 5 })
    local t = stats.sprt {}
    raises("sprt.llr: bad argument #1 (wins", t.llr, -1, 3)
    raises("sprt.llr: bad argument #2 (losses", t.status, 3, 0 / 0)
    -- whole numbers as floats are counts too (JSON reads them so)
    near(stats.match(3.0, 1.0).elo, stats.match(3, 1).elo, 0, "3.0 wins")
    assert(stats.ratings(2, { { 0, 3.0 }, { 1, 0 } }).elo[1] > 0)
  end,
}
