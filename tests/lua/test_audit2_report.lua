-- Reports of tournaments at their edges, opened in headless Chromium: a tournament (or a
-- shard) with no game yet still gets a page whose script runs to its end without an error.
local H = dofile("tests/lua/helpers.lua")

local T = {}

local function sh(cmd)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  return out
end

-- The DOM of 'file' after Chromium ran its scripts (once more with twice the time when a
-- loaded machine gives nothing).
local function dump_dom(file)
  local path = sh("command -v chromium || command -v chromium-browser"):gsub("%s+$", "")
  assert(path ~= "", "chromium is not installed: run scripts/install-deps.sh --test")
  for _, seconds in ipairs { 90, 180 } do
    local profile = H.tmpdir()
    local dom = sh(("timeout %d %s --headless --no-sandbox --disable-gpu --disable-background-networking "
      .. "--disable-component-update --disable-sync --no-first-run --user-data-dir=%s "
      .. "--dump-dom 'file://%s' 2>/dev/null"):format(seconds, path, profile, file))
    sh("rm -rf '" .. profile .. "'")
    if dom:find("</html>", 1, true) then return dom end
  end
  error("chromium gave no document for " .. file .. " (twice)")
end

T["report.html of a shard with no game: no script error, the script finishes"] = function()
  local dir = H.tmpdir() .. "/empty"
  local tournament = require "konane.tournament"
  -- two games in all (one opening on 4x4, both colours): the second of three shards has none
  tournament.run { bots = { "greedy", "random" }, games = 2, rows = 4, cols = 4, time = 5,
                   seed = 1, shard = { 2, 3 }, out = dir, progress = false }
  local res = assert(io.open(dir .. "/results.json")):read("a")
  assert(res:find('\n  "games": 0,'), "the shard played no game: " .. res:sub(1, 300))
  assert(require("konane.report").write(dir))
  local dom = dump_dom(dir .. "/report.html")
  assert(dom:find("No games yet.", 1, true), "the page says there is no game")
  local count, text = dom:match('<pre id="errors" data%-count="(%d+)">(.-)</pre>')
  assert(count, "the page has its error element")
  assert(count == "0" and text == "", "script errors on the page:\n" .. tostring(text))
  assert(dom:find('data-ready="1"', 1, true), "the page script finished")
end

return T
