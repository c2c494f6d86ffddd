-- scripts/cgt.lua: combinatorial game values of Konane positions.
--
--   build/konane scripts/cgt.lua ".ox./o..x/...."
--   build/konane scripts/cgt.lua --table 1x6
--
-- Exit status: 0 done, 1 error while computing, 2 bad option or position.

local cgt = require("konane.cgt")

local HELP = [[
Usage: konane scripts/cgt.lua [options] POSITION...
       konane scripts/cgt.lua --table RxC [options]

Prints the independent regions of each POSITION (position text, any placement of
pieces, the side to move optional and ignored) with their values in CGSuite's
notation, Left = Black (x), Right = White (o); then the sum and its outcome.

Options:
  --table RxC     every placement of a RxC board (at most 13 squares) with its
                  value, one per line: "position<TAB>value<TAB>outcome"
  --moves         with --table: only placements where some side can move
  --unique        with --table: one line per value (its first placement), then
                  how many placements have it
  --budget N      give up on a position needing more than N region computations
  --stats         print the region table's counters at the end
  -h, --help      this text

Notation (docs/cgt.md): 3, -1/2, *, *2, ^, v, ^^*, 1*, -1/2^, +-1, {3|1}, {2||1|0}.
Outcome: L Black wins, R White wins (whoever starts), N the player to move wins,
P the player to move loses.]]

local function usage(msg)
  io.stderr:write("cgt.lua: ", msg, "\n(cgt.lua --help for usage)\n")
  os.exit(2)
end

local opts = { positions = {} }
local i = 1
while i <= #arg do
  local a = arg[i]
  if a == "-h" or a == "--help" then
    print(HELP)
    os.exit(0)
  elseif a == "--table" then
    local spec = arg[i + 1] or usage("--table needs RxC")
    local r, c = spec:match("^(%d+)x(%d+)$")
    if not r then usage(("--table: '%s' is not RxC (like 1x6)"):format(spec)) end
    r, c = tonumber(r), tonumber(c)
    if r < 1 or c < 1 or r * c > 13 then
      usage(("--table %s: a board of 1 to 13 squares (3^13 placements at most)"):format(spec))
    end
    opts.rows, opts.cols = r, c
    i = i + 1
  elseif a == "--budget" then
    local n = math.tointeger(tonumber(arg[i + 1] or ""))
    if not n or n < 1 then usage("--budget needs a positive integer") end
    opts.budget = n
    i = i + 1
  elseif a == "--moves" then opts.moves = true
  elseif a == "--unique" then opts.unique = true
  elseif a == "--stats" then opts.stats = true
  elseif a:sub(1, 1) == "-" then -- a position text never starts with '-'
    usage(("unknown option '%s'"):format(a))
  else opts.positions[#opts.positions + 1] = a end
  i = i + 1
end

if not opts.rows and #opts.positions == 0 then usage("no position (or --table RxC) given") end
if opts.rows and #opts.positions > 0 then usage("--table takes no positions") end
if (opts.moves or opts.unique) and not opts.rows then usage("--moves and --unique go with --table") end

local vopts = opts.budget and { budget = opts.budget } or nil
local status = 0

local moves_exist = cgt.has_moves

if opts.rows then
  local seen, order = {}, {}
  for pos in cgt.placements(opts.rows, opts.cols) do
    if not opts.moves or moves_exist(pos) then
      local ok, v = pcall(cgt.value, pos, vopts)
      if not ok then
        io.stderr:write("cgt.lua: ", pos, ": ", tostring(v), "\n")
        status = 1
      else
        local s = tostring(v)
        if opts.unique then
          if not seen[s] then
            seen[s] = { pos = pos, n = 0, outcome = v:outcome() }
            order[#order + 1] = s
          end
          seen[s].n = seen[s].n + 1
        else
          print(("%s\t%s\t%s"):format(pos, s, v:outcome()))
        end
      end
    end
  end
  for _, s in ipairs(order) do
    print(("%s\t%s\t%s\t%d"):format(seen[s].pos, s, seen[s].outcome, seen[s].n))
  end
else
  for _, pos in ipairs(opts.positions) do
    local ok, regions = pcall(cgt.regions, pos, vopts)
    if not ok then
      local msg = tostring(regions):gsub("^[^:]*:%d+: ", "")
      io.stderr:write("cgt.lua: ", pos, ": ", msg, "\n")
      status = status == 0 and (msg:find("^bad position") and 2 or 1) or status
    else
      print(pos)
      local values = {}
      for k, r in ipairs(regions) do
        values[k] = r.value
        print(("  region %d  %-20s %s"):format(k, tostring(r.value), r.position:gsub(" [bw]$", "")))
      end
      local sum = cgt.sum(values)
      print(("  sum       %-20s %s: %s"):format(tostring(sum), sum:outcome(),
        cgt.outcome_text(sum:outcome())))
      if not sum:is_number() then
        print(("  mean %s, temperature %s"):format(sum:mean(), sum:temperature()))
      end
    end
  end
end

if opts.stats then
  local s = cgt.stats()
  io.stderr:write(("regions in table %d, look-ups %d, hits %d, computed %d, games %d\n")
    :format(s.regions, s.lookups, s.hits, s.computed, s.games))
end
os.exit(status)
