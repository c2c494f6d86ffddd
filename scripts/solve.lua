-- scripts/solve.lua: the command line of konane.solve (solving a board as resumable work units).
--
--   build/konane scripts/solve.lua --size 6x6 --variant free --split 4 --out s66
--
-- Exit status: 0 done, 1 error (or a failed check), 2 bad option or value, 130 interrupted
-- (continue with --resume --out DIR).
local solve = require("konane.solve")
local core = require("konane.core")
local files = require("konane.tournament.files")

local PROG = "solve.lua"

local HELP = [[
Usage: konane scripts/solve.lua --size RxC [--variant V] --split PLIES --out DIR [options]
       konane scripts/solve.lua --resume --out DIR [--workers N] [--shard I/N]
       konane scripts/solve.lua --status DIR
       konane scripts/solve.lua --merge DIR... [--out DIR]
       konane scripts/solve.lua --verify DIR [--sample K] [--seed S]

Solves a board exactly. The game tree is split PLIES plies below the start into unit
positions (one per position up to symmetry and transposition); worker processes solve the
units and each result is appended to DIR/journal.txt (synced to disk) as soon as it is
proved; the root result follows by minimax over DIR/plan.txt. Units no longer needed (a
sibling move already proved winning) are skipped. DIR/proof.txt lists the tree above the
split with every unit's result and node count.

Options:
  --size RxC        board rows x columns (1..8 each, at most 64 squares)
  --variant NAME    opening rules (default: brainking where it applies, else free)
  --fen TEXT        solve this position instead of the start (its shape gives the size)
  --split PLIES     depth of the unit positions (0..12)
  --out DIR         the run directory (plan, journal, proof, lock)
  --workers N       unit solves at once, each in its own process (default 1)
  --threads N       threads per unit solve (default 1)
  --hash-mb MB      transposition table per worker in MB (default 256)
  --shard I/N       solve only the units I, I+N, I+2N, ... of the plan's order (for several
                    machines; combine the directories with --merge)
  --resume          continue the run in --out DIR after Ctrl-C, kill or a reboot: no
                    proved unit is lost or solved again
  --max-units K     stop after K more units are proved (for trying things out)
  --status DIR      print the progress recorded in DIR
  --merge DIR...    combine the directories of one plan (shards); with --out, write the
                    combined run there
  --verify DIR      solve the proved units again with a fresh table each and check them,
                    the root result and every node's value in DIR/proof.txt
  --sample K        with --verify: check K units chosen at random (--seed S, default 1)
  -h, --help        show this help

Exit status: 0 done, 1 error or a failed check, 2 bad option or value, 130 interrupted.

Examples:
  konane scripts/solve.lua --size 6x6 --variant free --split 4 --out s66 --workers 2
  konane scripts/solve.lua --resume --out s66
  parallel konane scripts/solve.lua --size 7x7 --variant free --split 6 --out s77-{} \
      --shard {}/2 ::: 1 2
  konane scripts/solve.lua --merge s77-1 s77-2 --out s77
]]

local function usage_error(msg)
  io.stderr:write(PROG .. ": " .. msg .. "\n(see " .. PROG .. " --help)\n")
  os.exit(2)
end

local function parse(argv)
  local o = { dirs = {} }
  local i = 1
  local function value(name)
    local v = argv[i + 1]
    if v == nil or (v:sub(1, 2) == "--" and name ~= "--merge") then
      usage_error(name .. " needs a value")
    end
    i = i + 1
    return v
  end
  -- a directory: a name starting with '-' is an option typed in the wrong place, not a name
  local function dir_value(name)
    local v = value(name)
    if v == "" then usage_error(name .. " needs a directory") end
    if v:sub(1, 1) == "-" then
      usage_error(("%s wants a directory, not '%s' (a name starting with '-' looks like an option; "
        .. "write ./%s if you mean it)"):format(name, v, v))
    end
    return v
  end
  local function int(name, lo, hi)
    local v = value(name)
    local n = math.tointeger(tonumber(v))
    if not n or n < lo or n > hi then
      usage_error(("%s wants an integer from %d to %d, not '%s'"):format(name, lo, hi, v))
    end
    return n
  end
  while i <= #argv do
    local a = argv[i]
    if a == "-h" or a == "--help" then
      io.write(HELP)
      os.exit(0)
    elseif a == "--size" then
      local v = value(a)
      local r, c = v:match("^(%d+)x(%d+)$")
      r, c = tonumber(r), tonumber(c)
      if not r or r < 1 or c < 1 or r > 8 or c > 8 or r * c > 64 then
        usage_error("--size wants RxC with 1..8 rows and columns (e.g. 7x7), not '" .. v .. "'")
      end
      o.rows, o.cols = r, c
    elseif a == "--fen" then
      o.fen = value(a)
    elseif a == "--variant" then
      o.variant = value(a)
    elseif a == "--split" then
      o.split = int(a, 0, 12)
    elseif a == "--out" then
      o.out = dir_value(a)
    elseif a == "--workers" then
      o.workers = int(a, 1, 256)
    elseif a == "--threads" then
      o.threads = int(a, 1, 256)
    elseif a == "--hash-mb" then
      o.hash_mb = int(a, 0, 65536)
    elseif a == "--max-units" then
      o.max_units = int(a, 1, math.maxinteger)
    elseif a == "--shard" then
      local v = value(a)
      local s, n = v:match("^(%d+)/(%d+)$")
      -- integers only: 20 digits would read as a float and shard a plan by a rounded N
      s, n = math.tointeger(tonumber(s)), math.tointeger(tonumber(n))
      if not s or not n or n < 1 or s < 1 or s > n then
        usage_error("--shard wants I/N with 1 <= I <= N, not '" .. v .. "'")
      end
      o.shard = { s, n }
    elseif a == "--resume" then
      o.resume = true
    elseif a == "--status" then
      o.mode, o.dir = "status", dir_value(a)
    elseif a == "--verify" then
      o.mode, o.dir = "verify", dir_value(a)
    elseif a == "--sample" then
      o.sample = int(a, 1, math.maxinteger)
    elseif a == "--seed" then
      o.seed = int(a, math.mininteger, math.maxinteger)
    elseif a == "--merge" then
      o.mode = "merge"
      while argv[i + 1] and argv[i + 1]:sub(1, 1) ~= "-" do
        o.dirs[#o.dirs + 1] = argv[i + 1]
        i = i + 1
      end
      if #o.dirs == 0 then usage_error("--merge needs at least one directory") end
    else
      usage_error("unknown option '" .. tostring(a) .. "'")
    end
    i = i + 1
  end
  o.mode = o.mode or "run"
  if o.mode == "run" then
    if not o.out then usage_error("--out DIR is required") end
    if not o.resume then
      if not o.rows and not o.fen then usage_error("--size or --fen is required for a new solve") end
      if o.rows and o.fen then usage_error("--size and --fen exclude each other") end
      if not o.split then usage_error("--split is required for a new solve") end
    end
    if o.sample or o.seed then usage_error("--sample and --seed go with --verify") end
  elseif o.mode == "verify" then
    if o.rows or o.split or o.out or o.shard or o.resume then
      usage_error("--verify takes only --sample, --seed, --hash-mb and --threads")
    end
  elseif o.rows or o.split or o.shard or o.resume or o.workers then
    usage_error("--" .. o.mode .. " takes no solving options")
  end
  -- the directories named must be what the mode needs: refused here, exit 2, before anything is
  -- printed or written (a typo in a name is a bad value, not a failed check)
  local function no_solve(dir)
    local why = solve.no_solve(dir)
    if why then usage_error(why) end
  end
  if o.mode == "status" or o.mode == "verify" then no_solve(o.dir) end
  if o.mode == "merge" then
    for _, d in ipairs(o.dirs) do no_solve(d) end
  end
  if o.out and files.exists(o.out) and not files.is_dir(o.out) then
    usage_error("--out " .. o.out .. ": a file, not a directory")
  end
  if o.mode == "run" and o.resume then
    local ok, why = solve.resumable(o.out, o)
    if not ok then usage_error(why) end
  end
  if (o.rows or o.fen) and o.mode == "run" then
    local k = require("konane")
    local ok, err = pcall(k.new, { rows = o.rows, cols = o.cols, variant = o.variant, fen = o.fen })
    if not ok and o.variant == nil then
      -- the default variant where the board has no BrainKing opening; a bad --fen or --size is
      -- still refused here, before anything is written to --out
      ok, err = pcall(k.new, { rows = o.rows, cols = o.cols, variant = "free", fen = o.fen })
      if ok then o.variant = "free" end
    end
    if not ok then
      usage_error(tostring(err))
    elseif o.variant == nil then
      o.variant = err:variant()
    end
  end
  if o.mode == "run" then
    -- a second solve in a directory that holds one, or a resume with other settings
    local why = solve.plan_conflict(o.out, o)
    if why then usage_error(why) end
  end
  return o
end

local function main(argv)
  local o = parse(argv)
  local tty = core.isatty and core.isatty(2)
  local width = tty and core.term_columns and core.term_columns(2) or 80
  local function progress(text)
    if #text > width - 1 then text = text:sub(1, width - 1) end
    io.stderr:write("\r\27[K" .. text)
    io.stderr:flush()
  end
  if o.mode == "status" then
    local plan, results = solve.load(o.dir)
    if not plan then
      io.stderr:write(PROG .. ": " .. results .. "\n")
      return 1
    end
    io.write((solve.status_text(plan, results, o.dir)))
    return 0
  elseif o.mode == "merge" then
    local plan, results = solve.merge(o.dirs)
    if not plan then
      io.stderr:write(PROG .. ": " .. results .. "\n")
      return 1
    end
    if o.out then
      local ok, merged = pcall(solve.write_merged, o.out, plan, results)
      if not ok then
        io.stderr:write(PROG .. ": " .. tostring(merged) .. "\n")
        return 1
      end
      results = merged
    end
    io.write((solve.status_text(plan, results, o.out or table.concat(o.dirs, " + "))))
    return 0
  elseif o.mode == "verify" then
    local problems, n = solve.verify(o.dir, { sample = o.sample, seed = o.seed,
      hash_mb = o.hash_mb, threads = o.threads, progress = tty and progress or nil })
    if tty then io.stderr:write("\r\27[K") end
    for _, p in ipairs(problems) do io.stderr:write(PROG .. ": " .. p .. "\n") end
    if #problems > 0 then return 1 end
    io.write(("%s: %d units solved again, all agree; the root result follows from the journal\n")
      :format(o.dir, n))
    return 0
  end
  o.progress = tty and progress or nil
  o.log = function(line) io.stderr:write(line .. "\n") end
  local ok, summary, plan, results = pcall(solve.run, o)
  if tty then io.stderr:write("\r\27[K") end
  if not ok then
    local msg = tostring(summary)
    if msg:find("interrupted!$") then msg = "interrupted" end -- not the Lua file and line
    io.stderr:write(PROG .. ": " .. msg .. "\n")
    if msg == "interrupted" then
      io.stderr:write(("continue with: konane scripts/solve.lua --resume --out %s\n"):format(o.out))
      return 130
    end
    return 1
  end
  io.write((solve.status_text(plan, results, o.out)))
  return 0
end

os.exit(main(arg or { ... }))
