-- scripts/tune.lua: the fit recovers known weights from synthetic data (--from), the weights
-- file it writes loads back as the printed weights (and into the alphabeta bot), a tiny
-- self-play run labels and fits, and bad options or bad data files are named with exit 2 / 1.
local konane = require "konane"
local H = dofile("tests/lua/helpers.lua")

local build = os.getenv("KONANE_BUILD") or "build"
local host = build .. "/konane"
local NAMES = { "mobility", "movers", "tempo", "safe", "attacked", "potential", "takeaway",
                "reach", "region" }

local T = {}

-- Runs tune.lua with 'args' (a list); returns the exit code and the combined output.
local function tune(args)
  local argv = { host, "scripts/tune.lua" }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  return H.run(argv)
end

-- The printed weights: { name = integer }.
local function printed(text)
  local w = {}
  for _, name in ipairs(NAMES) do
    w[name] = math.tointeger(tonumber(text:match("\n  " .. name .. "%s+(%-?%d+)")))
  end
  return w
end

-- Synthetic rows drawn from P(win) = 1 / (1 + exp(-sum truth_i f_i)), features small integers
-- (a truth shorter than NAMES weighs the rest 0); with 'soft' the label is that probability.
local function synthetic(path, truth, n, seed, soft)
  local rng = require("konane.bot").rng(seed)
  local lines = { "fen,label," .. table.concat(NAMES, ",") .. ",game" }
  for i = 1, n do
    local f, z = {}, 0
    for k, name in ipairs(NAMES) do
      f[k] = name == "tempo" and 1 or rng(11) - 6
      z = z + (truth[k] or 0) * f[k]
    end
    local p = 1 / (1 + math.exp(-z))
    local y = soft and ("%.6f"):format(p) or (rng(1000000) - 0.5) / 1000000 < p and 1 or 0
    lines[#lines + 1] = ("-,%s,%s,%d"):format(y, table.concat(f, ","), i)
  end
  H.write(path, table.concat(lines, "\n") .. "\n")
end

-- A depth-1 search with weights 'w' on a size x size board after 'plies' moves (the
-- (i * step)-th of each position's list): the result, the position after its move and the
-- position searched.
local function depth1(size, plies, step, w)
  local g = konane.new { rows = size, cols = size }
  for i = 1, plies do
    local ms = g:moves()
    g:play(ms[(i * step) % #ms + 1])
  end
  local r = g:search { depth = 1, weights = w, table = konane.hashtable(0) }
  local c = g:clone()
  c:play(r.move)
  return r, c, g
end

T["the fit recovers known weights from synthetic data"] = function()
  local dir = H.tmpdir()
  -- engine units: mobility 100, movers 50, tempo -75, safe 25, attacked -50, potential 0
  local truth = { 0.4, 0.2, -0.3, 0.1, -0.2, 0 }
  synthetic(dir .. "/d.csv", truth, 12000, 3)
  local code, text = tune { "--from", dir .. "/d.csv", "--out", dir .. "/w.lua" }
  assert(code == 0, text)
  assert(text:find("data: 12000 positions from"), text)
  assert(text:find("held out: %d+ positions"), text)
  local w = printed(text)
  local want = { mobility = 100, movers = 50, tempo = -75, safe = 25, attacked = -50, potential = 0,
                 takeaway = 0, reach = 0, region = 0 }
  for _, name in ipairs(NAMES) do
    assert(math.abs(w[name] - want[name]) <= 12, ("%s: fitted %s, truth %d\n%s"):format(name,
      tostring(w[name]), want[name], text))
  end
  -- a different truth gives a different fit (the test can fail)
  synthetic(dir .. "/e.csv", { 0.4, -0.2, 0.3, 0, 0.2, 0.1 }, 6000, 4)
  code, text = tune { "--from", dir .. "/e.csv", "--out", dir .. "/w2.lua", "--holdout", "0" }
  assert(code == 0, text)
  assert(not text:find("held out"), text)
  local w2 = printed(text)
  assert(math.abs(w2.movers + 50) <= 12 and math.abs(w2.potential - 25) <= 12, text)
end

T["labels may be probabilities (a search's opinion); --fit fits a subset, the rest weigh 0"] = function()
  local dir = H.tmpdir()
  -- engine units: mobility 100, region 150, reach -25, the others 0
  synthetic(dir .. "/s.csv", { 0.2, 0, 0, 0, 0, 0, 0, -0.05, 0.3 }, 3000, 6, true)
  local code, text = tune { "--from", dir .. "/s.csv", "--out", dir .. "/w.lua", "--fit",
    "reach,region,movers" }
  assert(code == 0, text)
  local w = printed(text)
  assert(math.abs(w.region - 150) <= 8 and math.abs(w.reach + 25) <= 8 and math.abs(w.movers) <= 8,
    text)
  for _, name in ipairs { "tempo", "safe", "attacked", "potential", "takeaway" } do
    assert(w[name] == 0, name .. "\n" .. text)
  end
  code, text = tune { "--from", dir .. "/s.csv", "--out", dir .. "/w.lua", "--fit", "region,speed" }
  assert(code == 2 and text:find("unknown feature 'speed'"), text)
end

T["--phase fits two sets blended by the pieces, and the engine scores with them"] = function()
  local dir = H.tmpdir()
  -- truth, logistic units on an 8x8 board: mobility 0.1 on the full board, 0.5 on the empty one;
  -- movers 0 and 0.3 (at 32 pieces mobility is 0.3: scale 100 / 0.3)
  local rng = require("konane.bot").rng(9)
  local lines = { "fen,label," .. table.concat(NAMES, ",") .. ",game" }
  for i = 1, 12000 do
    local n = 8 + rng(56)
    local t = n / 64
    local mob, mov = rng(11) - 6, rng(7) - 4
    local z = (0.1 * t + 0.5 * (1 - t)) * mob + 0.3 * (1 - t) * mov
    local y = (rng(1000000) - 0.5) / 1000000 < 1 / (1 + math.exp(-z)) and 1 or 0
    lines[#lines + 1] = ("%s b,%d,%d,%d,1,0,0,0,0,0,0,%d"):format(string.rep("x", n), y, mob, mov, i)
  end
  H.write(dir .. "/p.csv", table.concat(lines, "\n") .. "\n")
  local code, text = tune { "--from", dir .. "/p.csv", "--out", dir .. "/w.lua", "--fit",
    "movers", "--phase", "32" }
  assert(code == 0, text)
  local w = require("konane.bots.alphabeta").load_weights(dir .. "/w.lua")
  local want = { mobility = 33, mobility_late = 167, movers = 0, movers_late = 100 }
  for name, v in pairs(want) do
    assert(math.abs(w[name] - v) <= 15, ("%s: fitted %s, truth %d\n%s"):format(name,
      tostring(w[name]), v, text))
  end
  assert(w.tempo == 0 and w.tempo_late == 0 and w.safe_late == 0, text)
  -- the engine blends them: a depth-1 search's score is the blend of the best child's features
  local r, c = depth1(8, 12, 5, w)
  local f, z = c:features(), 0
  local n = c:count("black") + c:count("white")
  for _, name in ipairs(NAMES) do z = z + (w[name] * n + w[name .. "_late"] * (64 - n)) * f[name] end
  z = z >= 0 and z // 64 or -((-z) // 64)
  assert(r.score == -z, ("score %d, blended features %d"):format(r.score, -z))
  -- a row without a position is refused by --phase
  H.write(dir .. "/q.csv", "fen,label," .. table.concat(NAMES, ",") .. ",game\n-,1,1,1,1,0,0,0,0,0,0,1\n")
  code, text = tune { "--from", dir .. "/q.csv", "--out", dir .. "/w.lua", "--phase", "32" }
  assert(code == 1 and text:find("--phase needs each row's position", 1, true), text)
end

T["the weights file round-trips: it loads back as printed, by path and into the bot"] = function()
  local dir = H.tmpdir()
  synthetic(dir .. "/d.csv", { 0.5, 0.1, 0.2, -0.1, 0.05, 0.15 }, 2000, 5)
  local code, text = tune { "--from", dir .. "/d.csv", "--out", dir .. "/w.lua" }
  assert(code == 0, text)
  local w = printed(text)
  local loaded = require("konane.bots.alphabeta").load_weights(dir .. "/w.lua")
  for _, name in ipairs(NAMES) do
    assert(loaded[name] == w[name] and math.type(loaded[name]) == "integer", name)
  end
  -- the engine takes it, and a depth-1 search scores with exactly these weights
  local r, c, g = depth1(6, 8, 7, loaded)
  local f, z = c:features(), 0
  for _, name in ipairs(NAMES) do z = z + loaded[name] * f[name] end
  assert(r.score == -z, ("score %d, weighted features %d"):format(r.score, -z))
  local bot = require("konane.bots.alphabeta").new { depth = 2, weights = dir .. "/w.lua" }
  assert(bot:choose(g:clone(), {}))
end

T["a tiny self-play run labels, fits and writes the data it used"] = function()
  local dir = H.tmpdir()
  local code, text = tune { "--games", "4", "--nodes", "300", "--solve-pieces", "12",
    "--holdout", "25", "--out", dir .. "/w.lua", "--data", dir .. "/d.csv" }
  assert(code == 0, text)
  assert(not text:find("labels: "), text)
  local n = math.tointeger(tonumber(text:match("data: 4 games, (%d+) positions")))
  assert(n and n > 20, text)
  local w = require("konane.bots.alphabeta").load_weights(dir .. "/w.lua")
  assert(w.mobility == 100 and math.type(w.potential) == "integer", text)
  -- the data file has one row per position, and refits to the same weights
  local rows = select(2, H.read(dir .. "/d.csv"):gsub("\n", "")) - 1
  assert(rows == n, ("%d rows, %d positions"):format(rows, n))
  local code2, text2 = tune { "--from", dir .. "/d.csv", "--holdout", "25", "--out", dir .. "/w2.lua" }
  assert(code2 == 0, text2)
  local a, b = printed(text), printed(text2)
  for _, name in ipairs(NAMES) do assert(a[name] == b[name], name .. "\n" .. text .. text2) end
  -- the shipped set loads by name
  assert(konane.bot("alphabeta:weights=tuned,depth=1"))
  assert(konane.bot("alphabeta:weights=deep,depth=1"))
  assert(konane.bot("alphabeta:weights=edge,depth=1"))
  -- labels from a deeper search: probabilities between 0 and 1, not only results
  code, text = tune { "--games", "2", "--nodes", "300", "--solve-pieces", "0", "--label",
    "search", "--label-nodes", "2000", "--out", dir .. "/w3.lua", "--data", dir .. "/d3.csv" }
  assert(code == 0, text)
  n = math.tointeger(tonumber(text:match("labels: (%d+) positions by a search of 2000 nodes")))
  assert(n and n > 10, text)
  local soft = 0
  for y in H.read(dir .. "/d3.csv"):gmatch("\n[^,]*,([^,]*),") do
    local v = tonumber(y)
    assert(v and v >= 0 and v <= 1, y)
    if v > 0 and v < 1 then soft = soft + 1 end
  end
  assert(soft > 5, text)
end

T["bad options exit 2, a bad data file exits 1 naming the line"] = function()
  for _, bad in ipairs { { "--games", "x" }, { "--holdout", "95" }, { "--size", "8" },
                         { "--no-such" }, { "--from" }, { "--size", "0x0" }, { "--size", "30x30" },
                         { "--variant", "nope" }, { "--size", "3x3" }, { "--nodes", "0" },
                         { "--from", "/no/such/dir/d.csv" }, { "--label", "deep" },
                         { "--label-nodes", "0" }, { "--fit", "mobility,nope" },
                         { "--phase", "0" }, { "--phase", "65" }, { "--games", "0" } } do
    local code, text = tune(bad)
    assert(code == 2 and text:find("tune.lua: ") and text:find("usage"), table.concat(bad, " ") .. ": " .. text)
  end
  local dir = H.tmpdir()
  H.write(dir .. "/bad.csv", "fen,label," .. table.concat(NAMES, ",") ..
    "\n-,0.25,1,2,1,0,0,0,1,0,0\n-,1.5,1,1,1,1,1,1,1,1,1\n")
  local code, text = tune { "--from", dir .. "/bad.csv", "--out", dir .. "/w.lua" }
  assert(code == 1 and text:find("bad.csv:3: label must be a number from 0 to 1"), text)
  H.write(dir .. "/bad.csv", "fen,label,mobility\n-,1,1\n")
  code, text = tune { "--from", dir .. "/bad.csv", "--out", dir .. "/w.lua" }
  assert(code == 1 and text:find("bad.csv:1: no 'movers' column"), text)
  code, text = tune { "--from", dir .. "/none.csv", "--out", dir .. "/w.lua" }
  assert(code == 2 and text:find("none.csv: No such file", 1, true), text)
  -- a feature that is not a whole number in range (1e308 fitted NaN and ended in a traceback)
  H.write(dir .. "/big.csv", "fen,label," .. table.concat(NAMES, ",") ..
    "\n-,1,1,2,1,0,0,0,1,0,0\n-,0,1e308,1,1,1,1,1,1,1,1\n")
  code, text = tune { "--from", dir .. "/big.csv", "--out", dir .. "/w.lua" }
  assert(code == 1 and text:find("big.csv:3: 'mobility' must be a whole number", 1, true), text)
  H.write(dir .. "/half.csv", "fen,label," .. table.concat(NAMES, ",") .. "\n-,1,1,2.5,1,0,0,0,1,0,0\n")
  code, text = tune { "--from", dir .. "/half.csv", "--out", dir .. "/w.lua" }
  assert(code == 1 and text:find("half.csv:2: 'movers' must be a whole number", 1, true), text)
  -- an unwritable --out or --data stops before any game is played
  for _, opt in ipairs { "--out", "--data" } do
    code, text = tune { "--games", "50", opt, dir .. "/no/such/dir/w.lua" }
    assert(code == 1 and text:find("cannot write " .. opt, 1, true) and not text:find("data: "), text)
  end
  -- the check leaves no file behind
  code, text = tune { "--from", dir .. "/big.csv", "--out", dir .. "/new.lua", "--data", dir .. "/new.csv" }
  assert(code == 1 and not io.open(dir .. "/new.lua") and not io.open(dir .. "/new.csv"), text)
end

-- each test removes its temporary directories, failed or not
for k, fn in pairs(T) do
  T[k] = function()
    local ok, err = pcall(fn)
    H.cleanup()
    if not ok then error(err, 0) end
  end
end

return T
