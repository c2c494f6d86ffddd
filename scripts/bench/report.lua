-- scripts/bench/report.lua: the size of a 1,000-game 8x8 tournament report and how fast it opens.
--
--   build/konane scripts/bench/report.lua [games] [runs]
--
-- Plays 'games' (default 1000) games of greedy against random on 8x8 (fast bots: the games are
-- real but cheap), builds DIR/report.html, and prints its size, the time Lua takes to build it,
-- and, when chromium is installed, the time the page takes to open in headless Chromium: the
-- page's own performance.now() when its script has finished (from the start of navigation:
-- parsing the HTML, the inline SVG and the data, building the game list, showing a game).
-- Medians over 'runs' (default 5). A benchmark, not a test.

local konane = require "konane"
local tournament = require "konane.tournament"
local report = require "konane.report"
local core = konane.core

local games = tonumber(arg and arg[1]) or 1000
local runs = tonumber(arg and arg[2]) or 5

local function sh(cmd)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  return out
end

local median = require("konane.stats").median

local dir = sh("mktemp -d"):gsub("%s+$", "") .. "/t"
local t0 = core.clock()
tournament.run { bots = { "greedy", "random" }, games = games, rows = 8, cols = 8, time = 10,
                 seed = 1, out = dir, progress = false }
print(("played %d games of 8x8 in %.1f s"):format(games, core.clock() - t0))

local build = {}
for i = 1, runs do
  local t = core.clock()
  assert(report.write(dir))
  build[i] = (core.clock() - t) * 1000
end
local f = assert(io.open(dir .. "/report.html", "rb"))
local size = f:seek("end")
f:close()
print(("report.html: %d bytes (%.2f MB) for %d games; built in %.0f ms (median of %d)")
  :format(size, size / 1e6, games, median(build), runs))

local chromium = sh("command -v chromium || command -v chromium-browser"):gsub("%s+$", "")
if chromium == "" then
  print("chromium not installed: no opening time (scripts/install-deps.sh --test)")
else
  local open, init = {}, {}
  for i = 1, runs do
    local profile = sh("mktemp -d"):gsub("%s+$", "")
    local dom = sh(("%s --headless --no-sandbox --disable-gpu --disable-background-networking "
      .. "--disable-component-update --disable-sync --no-first-run --user-data-dir=%s "
      .. "--dump-dom 'file://%s/report.html#game=%d&ply=20' 2>/dev/null")
      :format(chromium, profile, dir, (games + 1) // 2)) -- a game in the middle, whatever the count
    sh("rm -rf '" .. profile .. "'")
    open[i] = tonumber(dom:match('data%-open%-ms="([%d.]+)"'))
    init[i] = tonumber(dom:match('data%-init%-ms="([%d.]+)"'))
    assert(open[i] and init[i], "the page did not finish its script")
    assert(dom:match('<pre id="errors" data%-count="0"></pre>'), "script errors on the page")
  end
  print(("opens in %.0f ms in headless Chromium (navigation start to the end of its script; "
    .. "the script alone %.0f ms), medians of %d"):format(median(open), median(init), runs))
end
sh("rm -rf '" .. dir:gsub("/t$", "") .. "'")
