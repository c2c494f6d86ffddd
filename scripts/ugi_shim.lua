-- scripts/ugi_shim.lua: a minimal UGI engine over g:search, for matches against a frozen
-- build of the engine (one that predates `konane --ugi`). It only uses calls every version has
-- (konane.new, g:play, g:search{time=}, g:moves, g:over, g:turn, g:winner), so any konane binary
-- can run it:
--
--   /path/to/old/build/konane scripts/ugi_shim.lua [OPTIONS]
--   build/konane scripts/tournament.lua --bot "ugi:/old/build/konane scripts/ugi_shim.lua" ...
--
-- OPTIONS (key=value words) are passed to g:search as they are (numbers converted), e.g.
-- hash_mb=16. The time of a move follows the frozen engine's own rule (konane.bot.budget as it
-- was then; today's alphabeta bot spends more): at most 70% of the move's time minus 5 ms, at
-- most 1/15 of the game time left (plus the increment), at least 1 ms; `go depth N` and
-- `go nodes N` search to that depth or node count.

local konane = require "konane"

local USAGE = "usage: konane scripts/ugi_shim.lua [KEY=VALUE ...]  (options for g:search, " ..
  "e.g. hash_mb=1; then UGI on stdin/stdout)\n"
local extra = {}
for _, a in ipairs(arg) do
  if a == "-h" or a == "--help" then
    io.stdout:write(USAGE)
    os.exit(0)
  end
  local k, v = a:match("^([%w_]+)=(.*)$")
  if not k then
    io.stderr:write("ugi_shim.lua: unexpected argument '", a, "': arguments are key=value ",
      "options for g:search\n", USAGE)
    os.exit(2)
  end
  extra[k] = tonumber(v) or v
end

local game = konane.new()

local function send(line)
  io.write(line, "\n")
  io.flush()
end

local function set_position(words)
  local i
  if words[2] == "startpos" then
    game = konane.new()
    i = 3
  elseif words[2] == "fen" then
    local parts = {}
    i = 3
    while words[i] and words[i] ~= "moves" do
      parts[#parts + 1] = words[i]
      i = i + 1
    end
    game = konane.new { fen = table.concat(parts, " ") }
  else
    return
  end
  if words[i] == "moves" then
    for j = i + 1, #words do game:play(words[j]) end
  end
end

local function go(words)
  local lim = {}
  for j = 2, #words - 1 do
    local n = tonumber(words[j + 1])
    if n then lim[words[j]] = n end
  end
  local opts = {}
  for k, v in pairs(extra) do opts[k] = v end
  if lim.depth then
    opts.depth = math.floor(lim.depth)
  elseif lim.nodes then
    opts.nodes = math.floor(lim.nodes)
  else
    local t
    if lim.movetime then t = lim.movetime / 1000 * 0.7 - 0.005 end
    local mine = game:turn() == "black" and "p1" or "p2"
    if lim[mine .. "time"] then
      local share = lim[mine .. "time"] / 1000 / 15 + (lim[mine .. "inc"] or 0) / 1000
      local cap = lim[mine .. "time"] / 1000 * 0.7 - 0.005
      if share > cap then share = cap end
      t = t and math.min(t, share) or share
    end
    t = t or 1.0
    if t < 0.001 then t = 0.001 end
    opts.time = t
  end
  local r = game:search(opts)
  send(string.format("info depth %d score cp %d nodes %d", r.depth or 0, r.score or 0, r.nodes or 0))
  send("bestmove " .. tostring(r.move))
end

for line in io.lines() do
  local words = {}
  for w in line:gmatch("%S+") do words[#words + 1] = w end
  local cmd = words[1]
  if cmd == "ugi" then
    send("id name konane-frozen")
    send("id author konane")
    send("ugiok")
  elseif cmd == "isready" then
    send("readyok")
  elseif cmd == "uginewgame" then
    game = konane.new()
  elseif cmd == "position" then
    set_position(words)
  elseif cmd == "go" then
    go(words)
  elseif cmd == "query" then
    if words[2] == "gameover" then
      send("response " .. tostring(game:over()))
    elseif words[2] == "p1turn" then
      send("response " .. tostring(game:turn() == "black"))
    elseif words[2] == "result" then
      local w = game:over() and game:winner()
      send("response " .. (w == "black" and "p1win" or w == "white" and "p2win" or "none"))
    end
  elseif cmd == "quit" then
    break
  end
end
