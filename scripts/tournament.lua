#!/usr/bin/env konane
-- scripts/tournament.lua: the command line of konane.tournament.
--
--   build/konane scripts/tournament.lua --bot greedy --bot random --size 6x6 --games 10
--
-- Exit status: 0 done, 1 error while running, 2 bad option or value, 130 interrupted (resume
-- with --resume --out DIR).

local tournament = require("konane.tournament")
local settings = require("konane.tournament.settings")

local MAX_TIME = settings.MAX_TIME

local PROG = (arg and arg[0] or "tournament.lua"):match("([^/]+)$") or "tournament.lua"

local HELP = [[
Usage: CMD --bot SPEC --bot SPEC [...] [options]
       CMD --resume --out DIR [--workers N] [--startup SECONDS]
       CMD --merge DIR... [--out DIR]

Plays games between bots, every opening twice with colours swapped, and reports each
bot's score, its Elo (maximum likelihood) with a 95% error bar, the crosstable and the
likelihood of superiority. Every game is appended to DIR/games.pgn as it ends;
DIR/results.json holds the final results.

Options:
  --bot SPEC          a player (at least two): a built-in bot with options such as
                      "alphabeta:depth=4", "mcts:time=0.2", "random:seed=3", "greedy",
                      the path of a Lua file returning a bot ("mybot.lua:depth=3"),
                      or an engine speaking UGI ("ugi:python3 mybot.py")
  --games N           games per pairing in each cycle, even (default 2: one opening,
                      both colours); with --sprt: the most games to play (default 1000)
  --format F          roundrobin (default), gauntlet (the first bot against each of
                      the others) or swiss
  --rounds N          roundrobin/gauntlet: times the whole schedule is repeated
                      (default 1); swiss: number of rounds (default ceil(log2 bots))
  --variant NAME      opening rules (default brainking)
  --size RxC          board size, rows x columns (default: the variant's, 8x8)
  --time SECONDS      time per move (default 1, none with --tc); a bot over it
                      loses the game
  --tc BASE+INC       a chess clock per side: BASE seconds for the game plus INC
                      seconds after each move (like 60+0.5); out of time loses
  --margin SECONDS    extra time a move may take past its limit and still count
                      (default 0; like cutechess-cli's timemargin): for machines
                      that stall processes now and then; the clock still pays the
                      real time (the referee always allows 10 ms + 5% of the limit)
  --openings FILE     openings, one per line (moves like "d5 e5", or position text
                      then moves) or PGN games; "random:K" samples K random plies
                      per opening with the seed; default: every pair of removals
  --workers N         games played at once, in N worker processes (default 1: in
                      this process)
  --startup SECONDS   time an engine (ugi:, a bot file) has to start and answer its
                      handshake, once per game (default 10): for engines slow to
                      load, or a loaded machine; may be given again with --resume
  --seed N            tournament seed (default 1): the same seed plays the same games
  --out DIR           directory for tournament.cfg, games.pgn and results.json
                      (default: tournament-YYYYMMDD-HHMMSS)
  --resume            continue the tournament in --out DIR after Ctrl-C, a crash or
                      a power cut: no game lost, none played twice
  --sprt SPEC         two-bot match stopped by the exact binomial SPRT, SPEC like
                      elo0=0,elo1=10,alpha=0.05,beta=0.05 (each key optional)
  --shard I/N         play only the I-th of N parts of the schedule (for several
                      machines); combine the directories with --merge
  --merge DIR...      combine the shard directories of one tournament and report
  -h, --help          show this help

Exit status: 0 done, 1 error while running, 2 bad option or value, 130 interrupted
(continue with --resume --out DIR).

Examples:
  CMD --bot greedy --bot random --bot mcts:time=0.05 \
      --size 6x6 --games 4 --workers 2 --out t1
  CMD --bot alphabeta:depth=4 --bot alphabeta:depth=3 \
      --sprt elo0=0,elo1=50 --time 0.5 --out sprt1
  parallel CMD --bot greedy --bot random --games 100 \
      --shard {}/4 --out shard{} ::: 1 2 3 4
  CMD --merge shard1 shard2 shard3 shard4 --out all
]]

local this_command -- defined below

-- A bad option: message on stderr, exit status 2.
local function usage_error(msg)
  io.stderr:write(PROG, ": ", msg, "\n", "Try '", this_command(), " --help' for the options.\n")
  os.exit(2)
end

local function positive_int(opt, v, max)
  local n = math.tointeger(tonumber(v))
  if not n or n < 1 or not tostring(v):match("^%s*%d+%s*$") then
    usage_error(opt .. " expects a positive integer, got '" .. tostring(v) .. "'")
  end
  if max and n > max then usage_error(opt .. " expects at most " .. max .. ", got '" .. tostring(v) .. "'") end
  return n
end

-- A word as the shell reads it back: quoted when it holds anything but safe characters.
local function shell_word(w)
  if w:match("^[%w@%%+=:,./_-]+$") then return w end
  return "'" .. w:gsub("'", "'\\''") .. "'"
end

-- Is there an executable file named 'name' in a directory of $PATH?
local function on_path(name)
  for dir in (os.getenv("PATH") or ""):gmatch("[^:]+") do
    local f = io.open(dir .. "/" .. name, "rb")
    if f then
      f:close()
      return true
    end
  end
  return false
end

-- The command that ran this script, as the user typed it (the interpreter and the script
-- path from arg[-n..0]), so a hint like --resume works where the user is: "build/konane
-- scripts/tournament.lua" in a checkout, "konane-tournament" when installed (the script runs
-- itself through its #! line then, and arg[0] is the installed command).
function this_command()
  local script = arg and arg[0] or "tournament.lua"
  local base = script:match("([^/]+)$") or script
  if not base:find("%.lua$") and on_path(base) then return shell_word(base) end
  local parts = {}
  local lo = 0
  while arg and arg[lo - 1] do lo = lo - 1 end
  for i = lo, 0 do
    if arg[i] == "-e" then return "konane " .. shell_word(script) end
    parts[#parts + 1] = shell_word(arg[i])
  end
  if #parts == 0 then return "konane scripts/tournament.lua" end
  return table.concat(parts, " ")
end

-- A message of the library for the user: the "file.lua:12: " of an internal raiser is not for
-- them (a FILE:LINE: naming their own file, the openings file, is kept).
local function for_user(msg)
  msg = tostring(msg)
  local file = msg:match("^([^\n:]-%.lua):%d+: ")
  if file and (file:find("konane/", 1, true) or file:find("tournament.lua", 1, true) or file:find("^%[")) then
    msg = msg:sub(#msg:match("^[^\n:]-%.lua:%d+: ") + 1)
  end
  return msg
end

-- Parses the command line into the settings of konane.tournament (plus merge and help).
local function parse(args)
  local o = { bots = {} }
  local given = {}
  local i = 1
  local takes = {
    ["--bot"] = true, ["--games"] = true, ["--format"] = true, ["--rounds"] = true,
    ["--variant"] = true, ["--size"] = true, ["--time"] = true, ["--openings"] = true,
    ["--workers"] = true, ["--seed"] = true, ["--out"] = true, ["--sprt"] = true, ["--tc"] = true,
    ["--shard"] = true, ["--margin"] = true, ["--startup"] = true,
  }
  while i <= #args do
    local a = args[i]
    local name, inline = a:match("^(%-%-[%w-]+)=(.*)$")
    name = name or a
    local function value()
      if inline then return inline end
      i = i + 1
      if args[i] == nil then usage_error(name .. " needs a value") end
      return args[i]
    end
    if name == "-h" or name == "--help" then
      o.help = true
    elseif name == "--resume" then
      if inline then usage_error("--resume takes no value") end
      o.resume = true
    elseif name == "--merge" then
      o.merge = {}
      if inline then o.merge[1] = inline end
      while args[i + 1] and not args[i + 1]:match("^%-") do
        i = i + 1
        o.merge[#o.merge + 1] = args[i]
      end
      if #o.merge == 0 then usage_error("--merge needs at least one tournament directory") end
    elseif takes[name] then
      local v = value()
      if name ~= "--bot" then
        if given[name] then usage_error(name .. " given twice") end
        given[name] = true
      end
      if name == "--bot" then
        if v == "" then usage_error("--bot needs a bot spec") end
        o.bots[#o.bots + 1] = v
      elseif name == "--games" then o.games = positive_int(name, v, settings.MAX_GAMES)
      elseif name == "--rounds" then o.rounds = positive_int(name, v, settings.MAX_ROUNDS)
      elseif name == "--workers" then o.workers = positive_int(name, v, settings.MAX_WORKERS)
      elseif name == "--format" then
        if not tournament.FORMATS[v] then
          usage_error("--format must be roundrobin, gauntlet or swiss, got '" .. v .. "'")
        end
        o.format = v
      elseif name == "--variant" then o.variant = v
      elseif name == "--size" then
        local r, c = v:match("^(%d+)[xX](%d+)$")
        if not r then
          local n = v:match("^(%d+)$")
          r, c = n, n
        end
        r, c = tonumber(r), tonumber(c)
        if not r or r < 1 or c < 1 or r > 20 or c > 20 then
          usage_error("--size expects RxC with 1 to 20 rows and columns, like 6x6, got '" .. v .. "'")
        end
        o.rows, o.cols = r, c
      elseif name == "--time" then
        local t = tonumber(v)
        if not t or t ~= t or t <= 0 or t > MAX_TIME then
          usage_error(string.format("--time expects a positive number of seconds, at most %.0f, got '%s'", MAX_TIME, v))
        end
        o.time = t
      elseif name == "--tc" then
        local ok, err = pcall(settings.parse_tc, v)
        if not ok then usage_error("--tc: " .. for_user(err)) end
        o.tc = v
      elseif name == "--margin" then
        local t = tonumber(v)
        if not t or not (t >= 0) or t > MAX_TIME then
          usage_error(string.format("--margin expects a number of seconds from 0 to %.0f, got '%s'", MAX_TIME, v))
        end
        o.margin = t
      elseif name == "--startup" then
        local t = tonumber(v)
        if not t or not (t > 0) or t > MAX_TIME then
          usage_error(string.format("--startup expects a positive number of seconds, at most %.0f, got '%s'", MAX_TIME, v))
        end
        o.startup = t
      elseif name == "--openings" then o.openings = v
      elseif name == "--seed" then
        local n = math.tointeger(tonumber(v))
        if not n or not v:match("^%s*%-?%d+%s*$") then
          usage_error("--seed expects an integer, got '" .. v .. "'")
        end
        o.seed = n
      elseif name == "--out" then
        if v == "" then usage_error("--out needs a directory") end
        if v:sub(1, 1) == "-" then
          usage_error("--out expects a directory, got '" .. v .. "' (a name starting with '-' looks like an " ..
            "option; write ./" .. v .. " if you mean it)")
        end
        o.out = v
      elseif name == "--sprt" then
        local t = { elo0 = 0, elo1 = 10, alpha = 0.05, beta = 0.05 }
        for item in v:gmatch("[^,]+") do
          local k, x = item:match("^%s*([%w_]+)%s*=%s*(.-)%s*$")
          if not k or t[k] == nil then
            usage_error("--sprt expects elo0=,elo1=,alpha=,beta=, got '" .. item .. "'")
          end
          t[k] = tonumber(x)
          if not t[k] then usage_error("--sprt: " .. k .. " needs a number, got '" .. x .. "'") end
        end
        if t.elo1 <= t.elo0 then usage_error("--sprt: elo1 must be greater than elo0") end
        if not (t.alpha > 0 and t.alpha < 1 and t.beta > 0 and t.beta < 1) then
          usage_error("--sprt: alpha and beta must lie strictly between 0 and 1")
        end
        o.sprt = t
      elseif name == "--shard" then
        local a_, b_ = v:match("^(%d+)/(%d+)$")
        a_, b_ = tonumber(a_), tonumber(b_)
        if not a_ or b_ < 1 or a_ < 1 or a_ > b_ then
          usage_error("--shard expects I/N with 1 <= I <= N, like 2/4, got '" .. v .. "'")
        end
        o.shard = { math.tointeger(a_), math.tointeger(b_) }
      end
    elseif name:match("^%-") then
      usage_error("unknown option '" .. a .. "'")
    else
      usage_error("unexpected argument '" .. a .. "' (options start with --)")
    end
    i = i + 1
  end
  return o
end

local function describe(s, total)
  local what = ({ roundrobin = "Round robin", gauntlet = "Gauntlet", swiss = "Swiss" })[s.format]
  if s.sprt then what = "SPRT match" end
  local extra = s.format == "swiss" and (", " .. s.rounds .. " rounds") or ""
  local shard = s.shard and s.shard[2] > 1 and string.format(" (shard %d/%d)", s.shard[1], s.shard[2]) or ""
  local clock = s.time and string.format("%g s per move", s.time) or ""
  if s.tc then clock = (clock ~= "" and (clock .. ", ") or "") .. "clock " .. s.tc end
  if s.margin and s.margin > 0 then clock = clock .. string.format(" (margin %g s)", s.margin) end
  return string.format("%s of %d bots%s on %dx%d %s, %s, seed %d: %d games%s%s",
    what, #s.players, extra, s.rows, s.cols, s.variant, clock, s.seed, total,
    s.sprt and " at most" or "", shard)
end

local function main(args)
  local o = parse(args)
  if o.help then
    io.write((HELP:gsub("CMD", function() return this_command() end)))
    return 0
  end
  if o.merge then
    for _, k in ipairs { "games", "format", "rounds", "variant", "rows", "time", "margin", "openings", "seed",
                         "sprt", "shard", "resume", "workers", "startup" } do
      if o[k] ~= nil then usage_error("--merge takes only directories and --out") end
    end
    if #o.bots > 0 then usage_error("--merge takes only directories and --out") end
    for _, dir in ipairs(o.merge) do
      local f = io.open(dir .. "/" .. tournament.CONFIG_FILE, "rb")
      if not f then usage_error("--merge: " .. dir .. " holds no tournament (no " .. tournament.CONFIG_FILE .. ")") end
      f:close()
    end
    local ok, res = pcall(tournament.merge, o.merge, o.out)
    if not ok then
      io.stderr:write(PROG, ": ", for_user(res), "\n")
      return 1
    end
    io.write(string.format("Merged %d director%s: %d of %d games%s\n\n", #o.merge,
      #o.merge == 1 and "y" or "ies", res.games, res.scheduled,
      res.missing > 0 and string.format(" (%d missing: some shard is not finished)", res.missing) or ""))
    io.write(tournament.report(res))
    if o.out then io.write("\nGames: ", o.out, "/games.pgn   Results: ", o.out, "/results.json\n") end
    return 0
  end
  if o.resume then
    if not o.out then usage_error("--resume needs --out DIR, the directory of the tournament") end
  else
    if #o.bots < 2 then usage_error("give at least two --bot (try --help)") end
    if o.sprt and not o.games then o.games = 1000 end
    -- check every bot spec now: a typo is a bad option, not a forfeit in every game
    local konane = require("konane")
    for _, spec in ipairs(o.bots) do
      local ok, err = pcall(konane.bot, spec)
      if not ok then usage_error("--bot " .. spec .. ": " .. for_user(err)) end
    end
    o.out = o.out or os.date("tournament-%Y%m%d-%H%M%S")
    -- an --out naming a file is a bad value too, refused before anything is printed or written
    local files = require("konane.tournament.files")
    if files.exists(o.out) and not files.is_dir(o.out) then
      usage_error("--out " .. o.out .. ": a file, not a directory")
    end
  end
  if #o.bots == 0 then o.bots = nil end
  local ok, t = pcall(tournament.new, o)
  if not ok then usage_error(for_user(t)) end
  local total = t:total()
  io.write(describe(t.s, total), "\n")
  if o.resume then io.write("Resuming ", o.out, "\n") end
  io.flush()
  local okr, res = pcall(t.run, t)
  if not okr then
    local msg = for_user(res)
    if msg:find("already holds a tournament", 1, true) then usage_error(msg) end
    io.stderr:write(PROG, ": ", msg, "\n")
    if msg:find("^cannot write ") then
      io.stderr:write("Every game saved before is kept. Once the file can be written, continue with:\n  ",
        this_command(), " --resume --out ", shell_word(o.out), "\n")
    end
    return 1
  end
  io.write("\n", tournament.report(res))
  io.write("\nGames: ", o.out, "/games.pgn   Results: ", o.out, "/results.json\n")
  if res.interrupted then
    io.stderr:write(string.format("Interrupted after %d of %d games. Continue with:\n  %s --resume --out %s\n",
      res.games, total, this_command(), shell_word(o.out)))
    return 130
  end
  return 0
end

os.exit(main(arg or { ... }))
