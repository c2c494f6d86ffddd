-- Reports of tournaments at their edges, opened in headless Chromium: a tournament (or a
-- shard) with no game yet still gets a page whose script runs to its end without an error.
local H = dofile("tests/lua/helpers.lua")

local T = {}

local dump_dom = H.dump_dom

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
