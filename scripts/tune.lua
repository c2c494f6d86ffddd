-- scripts/tune.lua: fit the built-in evaluation's weights from self-play.
--
--   konane scripts/tune.lua [--games N] [--nodes N] [--random K] [--solve-pieces P]
--                           [--solve-nodes N] [--size RxC] [--variant NAME] [--seed N]
--                           [--label result|search] [--label-nodes N] [--label-scale S]
--                           [--fit NAME,NAME,...] [--holdout PCT] [--from FILE] [--out FILE]
--                           [--data FILE] [--phase P]
--
-- 1. Self-play: --games games (400) of the engine at --nodes nodes a move (3000, so games are
--    reproducible and fast) from openings of --random K random plies (6) after the removals; one
--    move in ten is random, so the positions vary.
-- 2. Labels: every position after the opening gets its game's result for the side to move
--    (--label result, the default), or with --label search a deeper search's opinion: the
--    score s of g:search{nodes = --label-nodes} (100000) on the position, as the probability
--    1 / (1 + exp(-s / --label-scale)) (scale 400: a lead of 4 moves of mobility is 73%), 1 or
--    0 for a proved result. Either way a position with at most --solve-pieces pieces (20) is
--    solved instead (at most --solve-nodes nodes, 200000) and gets the exact result when the
--    solver proves one.
--    --from FILE skips 1 and 2 and reads the labelled positions of an earlier --data FILE
--    (columns fen,label and the features by name; a row's features are taken as written;
--    labels from 0 to 1).
-- 3. Fit: logistic regression P(side to move wins) = 1 / (1 + exp(-sum w_i f_i)) over the
--    features of g:features() (mobility, movers, tempo, safe, attacked, potential, takeaway,
--    reach, region, edge, corner; a --from file without the last two reads them as 0; --fit
--    names a subset, mobility always in it, the others weigh 0), by
--    Newton's method with a little L2 regularisation (cross-entropy, so a label may be a
--    probability), on all rows but a held-out --holdout PCT percent
--    (10; whole games stay together); the held-out rows measure the fit against the default
--    weights' shape (one scale fitted). The weights are scaled so mobility is 100 (the engine's
--    scale) and rounded.
--    --phase P: every fitted feature gets two weights, NAME on the full board and NAME_late on
--    an empty one, blended linearly in the number of pieces (the engine's game-phase weights:
--    with n pieces on N squares a feature weighs (NAME * n + NAME_late * (N - n)) / N); the
--    pieces are counted in each row's position; the scale puts mobility at 100 with P pieces.
-- 4. Output: the weights as a Lua table in --out (lua/konane/weights/tuned.lua), which
--    `alphabeta:weights=FILE` and g:search{weights = dofile(FILE)} load; --data writes the
--    labelled positions (fen, label, features, game number) as CSV for other tools.
--
-- Prints the data size, the time taken and the fitted weights with their standard errors.

local konane = require "konane"

-- With 'msg' (a mistake): the message and the usage on stderr, exit 2; without: the usage on
-- stdout, exit 0 (--help).
local function usage(msg)
  local out = msg and io.stderr or io.stdout
  if msg then out:write("tune.lua: ", msg, "\n") end
  out:write("usage: konane scripts/tune.lua [--games N] [--nodes N] [--random K] " ..
    "[--solve-pieces P] [--solve-nodes N] [--size RxC] [--variant NAME] [--seed N] " ..
    "[--label result|search] [--label-nodes N] [--label-scale S] [--fit NAME,NAME,...] " ..
    "[--holdout PCT] [--from FILE] [--out FILE] [--data FILE] [--phase P]\n")
  os.exit(msg and 2 or 0)
end

local opts = { games = 400, nodes = 3000, random = 6, ["solve-pieces"] = 20,
               ["solve-nodes"] = 200000, size = "8x8", variant = "brainking", seed = 1,
               holdout = 10, out = "lua/konane/weights/tuned.lua", label = "result",
               ["label-nodes"] = 100000, ["label-scale"] = 400, fit = "all" }
local NUMERIC = { games = true, nodes = true, random = true, ["solve-pieces"] = true,
                  ["solve-nodes"] = true, seed = true, holdout = true, ["label-nodes"] = true,
                  ["label-scale"] = true, phase = true }
do
  local i = 1
  while i <= #arg do
    local a = arg[i]
    if a == "-h" or a == "--help" then usage() end
    local k, v = a:match("^%-%-([%w-]+)=(.*)$")
    if not k then
      k = a:match("^%-%-([%w-]+)$")
      if not k then usage("unexpected argument '" .. a .. "'") end
      i = i + 1
      v = arg[i]
    end
    if opts[k] == nil and k ~= "data" and k ~= "from" and k ~= "phase" then usage("unknown option --" .. k) end
    if v == nil then usage("--" .. k .. " needs a value") end
    if NUMERIC[k] then
      local n = math.tointeger(tonumber(v))
      if not n or n < 0 then usage("--" .. k .. " must be a whole number >= 0") end
      v = n
    end
    opts[k] = v
    i = i + 1
  end
end
local rows, cols = opts.size:match("^(%d+)x(%d+)$")
if not rows then usage("--size must look like 8x8") end
if opts.holdout > 90 then usage("--holdout must be a percentage from 0 to 90") end
rows, cols = tonumber(rows), tonumber(cols)
if opts.phase and (opts.phase < 1 or opts.phase > rows * cols) then
  usage(("--phase must be a number of pieces from 1 to %d"):format(rows * cols))
end
if opts.nodes < 1 then usage("--nodes must be at least 1") end
if opts.games < 1 and not opts.from then usage("--games must be at least 1 (or fit a file with --from)") end
if opts.label ~= "result" and opts.label ~= "search" then
  usage("--label must be 'result' or 'search'")
end
if opts["label-nodes"] < 1 then usage("--label-nodes must be at least 1") end
if opts["label-scale"] < 1 then usage("--label-scale must be at least 1") end
if opts.from then
  -- a missing file or a directory is a bad argument, not a data file without its header
  local f, err = io.open(opts.from, "r")
  local ok = f and f:read(0) ~= nil or (f and f:seek("end") == 0)
  if f then f:close() end
  if not ok then usage("--from " .. opts.from .. ": " .. (err or "not a readable file")) end
else
  -- the board and the variant, checked before any game is played
  local ok, err = pcall(konane.new, { rows = rows, cols = cols, variant = opts.variant })
  if not ok then
    usage(("--size %s --variant %s: %s"):format(opts.size, opts.variant,
      tostring(err):gsub("^bad argument #%d+ to '[^']*' %((.*)%)$", "%1")))
  end
end

-- --out and --data must be writable before any game is played (a long run is not lost at the
-- end): an existing file is opened for appending (nothing changes), a new one made and removed.
for _, key in ipairs { "out", "data" } do
  local path = opts[key]
  if path then
    local existed = io.open(path, "r")
    if existed then existed:close() end
    local f, err = io.open(path, "a")
    if not f then
      io.stderr:write("tune.lua: cannot write --", key, " ", tostring(err), "\n")
      os.exit(1)
    end
    f:close()
    if not existed then os.remove(path) end
  end
end

local NAMES = { "mobility", "movers", "tempo", "safe", "attacked", "potential", "takeaway",
                "reach", "region", "edge", "corner" }
-- columns a data file of an earlier version may lack (read as 0)
local OPTIONAL = { edge = true, corner = true }
-- --fit: the indices of the fitted features (mobility first: the scale is set by it)
local FIT = {}
if opts.fit == "all" then
  for k = 1, #NAMES do FIT[k] = k end
else
  local index, seen = {}, {}
  for k, name in ipairs(NAMES) do index[name] = k end
  FIT[1] = 1
  seen[1] = true
  for name in (opts.fit .. ","):gmatch("([^,]*),") do
    if not index[name] then
      usage(("--fit: unknown feature '%s' (known: %s)"):format(name, table.concat(NAMES, ", ")))
    end
    if not seen[index[name]] then
      seen[index[name]] = true
      FIT[#FIT + 1] = index[name]
    end
  end
end
local clock = konane.core.clock
local t_start = clock()
local rng = require("konane.bot").rng(opts.seed)
local tty = konane.core.isatty and konane.core.isatty(2)

local function progress(fmt, ...)
  if tty then io.stderr:write("\r", string.format(fmt, ...), "\027[K") end
end

-- 1 and 2: games and labels. Returns the rows { f = {...}, y = 0/1, fen =, game = }, and how
-- many positions the solver was asked to label and proved.
local function play_games()
  local data = {}
  local solved, proved, searched = 0, 0, 0
  local table_ = konane.hashtable(16)
  local label_table = opts.label == "search" and konane.hashtable(64) or nil
  for game_no = 1, opts.games do
    local g = konane.new { rows = rows, cols = cols, variant = opts.variant }
    while g:phase() ~= "jump" and not g:over() do
      local ms = g:moves()
      g:play(ms[rng(#ms)])
    end
    for _ = 1, opts.random do
      if g:over() then break end
      local ms = g:moves()
      g:play(ms[rng(#ms)])
    end
    local positions = {}
    while not g:over() do
      positions[#positions + 1] = { fen = g:fen(), f = g:features(), turn = g:turn() }
      local m
      if rng(10) == 1 then
        local ms = g:moves()
        m = ms[rng(#ms)]
      else
        m = g:search { nodes = opts.nodes, table = table_ }.move
      end
      g:play(m)
    end
    local winner = g:winner()
    for _, p in ipairs(positions) do
      local y = p.turn == winner and 1 or 0
      local pos = konane.new { fen = p.fen, variant = "free" }
      if opts.label == "search" then
        local r = pos:search { nodes = opts["label-nodes"], table = label_table }
        if r.win ~= nil then
          y = r.win and 1 or 0
        else
          y = 1 / (1 + math.exp(-r.score / opts["label-scale"]))
        end
        searched = searched + 1
      end
      if pos:count("black") + pos:count("white") <= opts["solve-pieces"] then
        solved = solved + 1
        local r = pos:solve { nodes = opts["solve-nodes"] }
        if r.win ~= nil then
          proved = proved + 1
          y = r.win and 1 or 0
        end
      end
      local f = {}
      for k, name in ipairs(NAMES) do f[k] = p.f[name] end
      data[#data + 1] = { f = f, y = y, fen = p.fen, game = game_no }
    end
    progress("game %d/%d, %d positions", game_no, opts.games, #data)
  end
  progress("")
  if tty then io.stderr:write("\r") end
  return data, solved, proved, searched
end

-- --from: the rows of a --data file. Errors name the file and the line.
local function read_data(path)
  local f, err = io.open(path, "r")
  if not f then error("cannot read " .. tostring(err), 0) end
  local header = f:read("l") or ""
  local col = {}
  do
    local k = 0
    for name in (header .. ","):gmatch("([^,]*),") do
      k = k + 1
      col[name] = k
    end
  end
  if not col.label then
    f:close()
    error(path .. ":1: no 'label' column (a file written by --data expected)", 0)
  end
  for _, name in ipairs(NAMES) do
    if not col[name] and not OPTIONAL[name] then
      f:close()
      error(path .. ":1: no '" .. name .. "' column", 0)
    end
  end
  local data, line_no = {}, 1
  for line in f:lines() do
    line_no = line_no + 1
    if line ~= "" then
      local t = {}
      for c in (line .. ","):gmatch("([^,]*),") do t[#t + 1] = c end
      local y = tonumber(t[col.label])
      if not y or not (y >= 0 and y <= 1) then
        f:close()
        error(("%s:%d: label must be a number from 0 to 1"):format(path, line_no), 0)
      end
      local fs = {}
      for k, name in ipairs(NAMES) do
        if col[name] then fs[k] = math.tointeger(tonumber(t[col[name]])) else fs[k] = 0 end
        if not fs[k] or fs[k] < -10000 or fs[k] > 10000 then
          f:close()
          error(("%s:%d: '%s' must be a whole number from -10000 to 10000"):format(path,
            line_no, name), 0)
        end
      end
      data[#data + 1] = { f = fs, y = y, fen = t[col.fen] or "",
                          game = tonumber(col.game and t[col.game]) or line_no }
    end
  end
  f:close()
  if #data == 0 then error(path .. ": no labelled positions", 0) end
  return data
end

local function solve_linear(A, b)
  local n = #b
  local M = {}
  for i = 1, n do
    M[i] = {}
    for j = 1, n do M[i][j] = A[i][j] end
    M[i][n + 1] = b[i]
  end
  for c = 1, n do
    local p = c
    for r = c + 1, n do if math.abs(M[r][c]) > math.abs(M[p][c]) then p = r end end
    M[c], M[p] = M[p], M[c]
    local d = M[c][c]
    if math.abs(d) < 1e-12 then error("singular system: a feature never varies", 0) end
    for r = 1, n do
      if r ~= c then
        local f = M[r][c] / d
        for j = c, n + 1 do M[r][j] = M[r][j] - f * M[c][j] end
      end
    end
  end
  local x = {}
  for i = 1, n do x[i] = M[i][n + 1] / M[i][i] end
  return x
end

-- 3. Newton's method on the L2-regularised log-likelihood of 'set' with the features given by
-- 'feat(row) -> {...}' (K of them). Returns the weights and the Hessian at the optimum.
local function fit(set, feat, K)
  local w = {}
  for i = 1, K do w[i] = 0 end
  local lambda = 1e-3 * #set
  local H
  for _ = 1, 50 do
    local grad = {}
    H = {}
    for i = 1, K do
      grad[i] = -lambda * w[i]
      H[i] = {}
      for j = 1, K do H[i][j] = i == j and lambda or 0 end
    end
    for _, d in ipairs(set) do
      local f = feat(d)
      local z = 0
      for i = 1, K do z = z + w[i] * f[i] end
      local p = 1 / (1 + math.exp(-z))
      local r, v = d.y - p, p * (1 - p)
      for i = 1, K do
        local fi = f[i]
        if fi ~= 0 then
          grad[i] = grad[i] + r * fi
          local Hi = H[i]
          for j = 1, K do Hi[j] = Hi[j] + v * fi * f[j] end
        end
      end
    end
    local step = solve_linear(H, grad)
    local size = 0
    for i = 1, K do
      w[i] = w[i] + step[i]
      size = math.max(size, math.abs(step[i]))
    end
    if size < 1e-7 then break end
  end
  return w, H
end

-- Mean log loss and the share of results predicted of 'set' under 'w'.
local function score(set, feat, w)
  local loss, correct = 0, 0
  for _, d in ipairs(set) do
    local f = feat(d)
    local z = 0
    for i = 1, #w do z = z + w[i] * f[i] end
    local p = 1 / (1 + math.exp(-z))
    loss = loss - d.y * math.log(p + 1e-12) - (1 - d.y) * math.log(1 - p + 1e-12)
    if (p > 0.5) == (d.y > 0.5) then correct = correct + 1 end
  end
  return loss / math.max(#set, 1), 100 * correct / math.max(#set, 1)
end

local data, solved, proved, searched
if opts.from then
  local ok, res = pcall(read_data, opts.from)
  if not ok then
    io.stderr:write("tune.lua: ", res, "\n")
    os.exit(1)
  end
  data = res
else
  data, solved, proved, searched = play_games()
end
local t_games = clock() - t_start

-- The held-out rows: whole games (rows of a game are alike), chosen by a hash of the game.
local train, test = {}, {}
for _, d in ipairs(data) do
  if (d.game * 2654435761) % 100 < opts.holdout then test[#test + 1] = d else train[#train + 1] = d end
end
if #train == 0 then train, test = test, {} end

-- --phase: each row's share of pieces on the board (n / N), from its position
local NSQ = rows * cols
if opts.phase then
  for _, d in ipairs(data) do
    local board = d.fen:match("^(%S+)")
    local n = 0
    if board then for _ in board:gmatch("[xo]") do n = n + 1 end end
    if not board or n == 0 or n > NSQ then
      io.stderr:write(("tune.lua: --phase needs each row's position on a %s board (game %d: " ..
        "'%s')\n"):format(opts.size, d.game, d.fen))
      os.exit(1)
    end
    d.t = n / NSQ
  end
end

local K = #FIT
local KF = opts.phase and 2 * K or K
local err
-- the fitted features of a row, in FIT's order (with --phase each as f * t and f * (1 - t))
local function fitted(d)
  local f = {}
  if opts.phase then
    for i = 1, K do
      local v = d.f[FIT[i]]
      f[2 * i - 1], f[2 * i] = v * d.t, v * (1 - d.t)
    end
  else
    for i = 1, K do f[i] = d.f[FIT[i]] end
  end
  return f
end
local ok, wf, H = pcall(fit, train, fitted, KF)
if not ok then
  io.stderr:write("tune.lua: ", wf, "\n")
  os.exit(1)
end

-- Standard errors from the inverse Hessian (column by column), and both by feature index (0 for
-- a feature left out of the fit); with --phase the late ones in wl, sel.
local w, se, wl, sel = {}, {}, {}, {}
for k = 1, #NAMES do w[k], se[k], wl[k], sel[k] = 0, 0, 0, 0 end
local function stderr_of(i)
  local e = {}
  for j = 1, KF do e[j] = i == j and 1 or 0 end
  return math.sqrt(math.max(solve_linear(H, e)[i], 0))
end
for i = 1, K do
  if opts.phase then
    w[FIT[i]], se[FIT[i]] = wf[2 * i - 1], stderr_of(2 * i - 1)
    wl[FIT[i]], sel[FIT[i]] = wf[2 * i], stderr_of(2 * i)
  else
    w[FIT[i]], se[FIT[i]] = wf[i], stderr_of(i)
  end
end

-- The baseline: the default weights' shape (sum default_i * f_i) with one fitted scale.
local default = {}
do
  local _, base = konane.new { rows = rows, cols = cols, variant = opts.variant }:features()
  for k, name in ipairs(NAMES) do default[k] = base[name] end
end
local function shape(d)
  local z = 0
  for i = 1, #NAMES do z = z + default[i] * d.f[i] end
  return { z }
end
local wb = fit(train, shape, 1)

-- 4. Scale to the engine's units (mobility = 100; with --phase at P pieces) and write.
local scale = 100 / w[1]
if opts.phase then scale = 100 / (w[1] * opts.phase / NSQ + wl[1] * (1 - opts.phase / NSQ)) end
local weights = {}
local function engine_units(v)
  v = math.floor(v * scale + 0.5)
  return math.max(-10000, math.min(10000, v))
end
for i, name in ipairs(NAMES) do
  weights[name] = engine_units(w[i])
  if opts.phase then weights[name .. "_late"] = engine_units(wl[i]) end
end

local elapsed = clock() - t_start
if opts.from then
  print(string.format("data: %d positions from %s", #data, opts.from))
else
  print(string.format("data: %d games, %d positions (%d solved by the engine's solver, %d proved)",
    opts.games, #data, solved, proved))
  if opts.label == "search" then
    print(string.format("labels: %d positions by a search of %d nodes (scale %d), the solver's " ..
      "proofs over them", searched, opts["label-nodes"], opts["label-scale"]))
  end
end
print(string.format("time: %.1f s (games and labels %.1f s, fit %.1f s)", elapsed, t_games,
  elapsed - t_games))
local l1, c1 = score(train, fitted, wf)
print(string.format("fit: %d positions, mean log loss %.4f, %.1f%% of results predicted", #train, l1, c1))
if #test > 0 then
  local l2, c2 = score(test, fitted, wf)
  local l3, c3 = score(test, shape, wb)
  print(string.format("held out: %d positions, mean log loss %.4f, %.1f%% predicted " ..
    "(default weights: %.4f, %.1f%%)", #test, l2, c2, l3, c3))
end
for i, name in ipairs(NAMES) do
  print(string.format("  %-10s %6d   (logistic %.4f +- %.4f)", name, weights[name], w[i], 1.96 * se[i]))
end
if opts.phase then
  for i = 1, K do
    local name = NAMES[FIT[i]]
    print(string.format("  %-15s %6d   (logistic %.4f +- %.4f)", name .. "_late", weights[name .. "_late"],
      wl[FIT[i]], 1.96 * sel[FIT[i]]))
  end
end

local function write_file(path, text)
  local f, oerr = io.open(path, "w")
  if not f then error("cannot write " .. path .. ": " .. tostring(oerr), 0) end
  local ok2, werr = f:write(text)
  if not ok2 then error("cannot write " .. path .. ": " .. tostring(werr), 0) end
  ok2, werr = f:close()
  if not ok2 then error("cannot write " .. path .. ": " .. tostring(werr), 0) end
end

local source = opts.from and string.format("-- weights fitted by scripts/tune.lua from %s, %d positions (%.0f s).",
  opts.from, #data, elapsed) or table.concat({
  string.format("-- weights fitted by scripts/tune.lua: %d games at %d nodes a move, %d positions,",
    opts.games, opts.nodes, #data),
  string.format("-- %s %s, seed %d, labels: %s (%.0f s).", opts.size, opts.variant, opts.seed,
    opts.label == "search" and ("a search of " .. opts["label-nodes"] .. " nodes") or "results",
    elapsed) }, "\n")
local lines = { source, "-- Load with alphabeta:weights=FILE or dofile.", "return {" }
for _, name in ipairs(NAMES) do lines[#lines + 1] = string.format("  %s = %d,", name, weights[name]) end
if opts.phase then
  for _, name in ipairs(NAMES) do
    lines[#lines + 1] = string.format("  %s_late = %d,", name, weights[name .. "_late"])
  end
end
lines[#lines + 1] = "}\n"
ok, err = pcall(write_file, opts.out, table.concat(lines, "\n"))
if not ok then
  io.stderr:write("tune.lua: ", err, "\n")
  os.exit(1)
end
print("weights written to " .. opts.out)

if opts.data then
  local out = { "fen,label," .. table.concat(NAMES, ",") .. ",game" }
  for _, d in ipairs(data) do
    local y = math.tointeger(d.y) or string.format("%.6f", d.y)
    out[#out + 1] = string.format("%s,%s,%s,%d", d.fen, y, table.concat(d.f, ","), d.game)
  end
  ok, err = pcall(write_file, opts.data, table.concat(out, "\n") .. "\n")
  if not ok then
    io.stderr:write("tune.lua: ", err, "\n")
    os.exit(1)
  end
  print("data written to " .. opts.data)
end
