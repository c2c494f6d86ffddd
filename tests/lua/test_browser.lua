-- The pages in a real browser: headless Chromium loads report.html and an annotated game from
-- the disk. The viewer must show the engine's position for the ply the address names, step with
-- its buttons, the arrow keys, the slider, the move list and the evaluation graph, and raise no
-- script error. The test runs a copy of each page with a small script appended that drives it
-- (clicks and key presses, as a user would) and prints what the viewer shows; Chromium's
-- --dump-dom gives back the document.
local konane = require "konane"
local pgn = konane.pgn

local T = {}

local H = dofile("tests/lua/helpers.lua")

local tmpdir, read, write, sh, dump_dom = H.tmpdir, H.read, H.write, H.sh, H.dump_dom

-- A copy of the page at 'path' with 'script' run after the page's own scripts; returns the
-- lines the script put into <pre id="test-out">, and the document.
local function drive(path, fragment, script)
  local html = read(path)
  local copy = path:gsub("%.html$", "") .. "-driven.html"
  local tail = "<script>(function(){var out=[];function log(s){out.push(s);}\n"
    .. "try{\n" .. script .. "\n}catch(e){log('exception '+e);}\n"
    .. "var p=document.createElement('pre');p.id='test-out';p.textContent=out.join('\\n');"
    .. "document.body.appendChild(p);})();</script></body>"
  local n
  html, n = html:gsub("</body>", function() return tail end)
  assert(n == 1, "the page has one </body>")
  write(copy, html)
  local dom = dump_dom(copy, fragment)
  local out = dom:match('<pre id="test%-out">(.-)</pre>')
  assert(out, "the test script did not run:\n" .. dom:sub(-2000))
  local lines = {}
  local ENTITIES = { amp = "&", lt = "<", gt = ">", quot = '"' }
  out = out:gsub("&(%a+);", ENTITIES)
  for line in (out .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
  return lines, dom
end

local function no_script_error(dom)
  local count, text = dom:match('<pre id="errors" data%-count="(%d+)">(.-)</pre>')
  assert(count, "the page has its error element")
  assert(count == "0" and text == "", "script errors on the page:\n" .. tostring(text))
  assert(dom:find('data-ready="1"', 1, true), "the page script finished")
end

-- The engine's position text after each ply of 'record': fens[0] .. fens[n].
local function engine_fens(record)
  local g = konane.new { variant = record.variant, rows = record.rows, cols = record.cols,
                         fen = record.fen }
  local fens = { [0] = g:fen() }
  for i, m in ipairs(record.moves) do
    g:play(m)
    fens[i] = g:fen()
  end
  return fens
end

-- What the viewer shows, as one log line per step: "game ply fen".
local SHOW = [[
function shown(){var v=document.getElementById('viewer');return v.getAttribute('data-game')+' '+v.getAttribute('data-ply')+' '+v.getAttribute('data-fen');}
function key(k){document.dispatchEvent(new KeyboardEvent('keydown',{key:k,bubbles:true}));}
function click(el){el.dispatchEvent(new MouseEvent('click',{bubbles:true}));}
function boardFen(){return document.querySelector('#viewer .board svg[data-active="true"]').getAttribute('data-fen');}
function pieces(){return document.querySelectorAll('#viewer .board svg[data-active="true"] use.piece:not([display])').length;}
]]

local cached_dir
local function tournament_dir()
  if cached_dir then return cached_dir end
  local dir = tmpdir() .. "/t"
  local tournament = require "konane.tournament"
  tournament.run {
    bots = { "greedy", "random", "greedy:seed=2" }, games = 2, rows = 6, cols = 6,
    time = 5, seed = 3, out = dir, progress = false,
  }
  local report = require "konane.report"
  assert(report.write(dir))
  cached_dir = dir
  return dir
end

T["report.html opens at #game=3&ply=10 on the engine's position and steps"] = function()
  local dir = tournament_dir()
  local records = assert(pgn.read_file(dir .. "/games.pgn"))
  local rec3
  for _, r in ipairs(records) do if r.tags.Game == "3" then rec3 = r end end
  assert(rec3 and #rec3.moves >= 14, "game 3 is long enough to step through")
  local fens = engine_fens(rec3)
  local n = #rec3.moves
  local lines, dom = drive(dir .. "/report.html", "#game=3&ply=10", SHOW .. [[
log(shown()); log(boardFen()); log(String(pieces()));
click(document.getElementById('b-next')); log(shown());
key('ArrowRight'); log(shown());
key('ArrowLeft'); log(shown());
click(document.getElementById('b-prev')); click(document.getElementById('b-prev')); log(shown());
click(document.getElementById('b-first')); log(shown());
click(document.getElementById('b-last')); log(shown());
var s=document.getElementById('slider'); s.value='5'; s.dispatchEvent(new Event('input')); log(shown());
click(document.querySelector('#moves .mv[data-ply="7"]')); log(shown());
key('End'); log(shown());
log(location.hash);
var row=document.querySelector('#glist tbody tr[data-gi="0"]'); click(row); log(shown());
var fb=document.getElementById('fbot'); fb.value='1'; fb.dispatchEvent(new Event('change'));
log(document.getElementById('gcount').textContent);
log(window.konaneViewer.selftest());
]])
  no_script_error(dom)
  local function expect(i, ply, game)
    local want = ("%s %d %s"):format(game or "3", ply, (game and game ~= "3") and "" or fens[ply])
    if game and game ~= "3" then
      assert(lines[i]:sub(1, #want) == want, ("step %d: %s, expected %s"):format(i, lines[i], want))
    else
      assert(lines[i] == want, ("step %d: the viewer shows\n  %s\nthe engine says\n  %s")
        :format(i, lines[i], want))
    end
  end
  expect(1, 10)
  assert(lines[2] == fens[10], "the board's own data-fen agrees")
  local g10 = konane.new { rows = 6, cols = 6, fen = fens[10] }
  assert(tonumber(lines[3]) == g10:count("black") + g10:count("white"), "pieces shown: " .. lines[3])
  expect(4, 11); expect(5, 12); expect(6, 11); expect(7, 9); expect(8, 0); expect(9, n)
  expect(10, 5); expect(11, 7); expect(12, n)
  assert(lines[13] == "#game=3&ply=" .. n, "the address follows: " .. lines[13])
  expect(14, 0, "1")
  local bot = assert(dom:match('<option value="1">([^<]+)</option>'))
  local played = 0
  for _, r in ipairs(records) do if r.black == bot or r.white == bot then played = played + 1 end end
  assert(lines[15] == ("%d of %d games"):format(played, #records), lines[15])
  -- every game's replay in the page ends on the engine's final position
  assert(lines[16] == ("ok %d"):format(#records), "selftest: " .. lines[16])
end

T["an annotated game's page shows the ply from its address and the graph jumps"] = function()
  local dir = tmpdir()
  local rec = konane.play("greedy:seed=5", "random:seed=5", { rows = 6, cols = 6, seed = 5 })
  assert(#rec.moves >= 12, "a long enough game")
  rec.comments = {}
  write(dir .. "/g.pgn", pgn.write(rec))
  local out = sh(("%s scripts/annotate.lua %s/g.pgn --depth 3 --html %s/g.html "
    .. "--out %s/a.pgn 2>&1; echo rc=$?"):format(H.sh_quote(konane.core.exe_path()), dir, dir, dir))
  assert(out:match("rc=0%s*$"), out)
  local fens = engine_fens(rec)
  local lines, dom = drive(dir .. "/g.html", "#ply=10", SHOW .. [[
log(shown());
click(document.querySelector('.evalgraph rect.col[data-ply="4"]')); log(shown());
log(document.querySelector('.evalgraph line.cursor').getAttribute('x1'));
key('ArrowRight'); log(shown());
log(document.querySelectorAll('#moves .mv').length);
]])
  no_script_error(dom)
  assert(lines[1] == "1 10 " .. fens[10], lines[1])
  assert(lines[2] == "1 4 " .. fens[4], lines[2])
  local x0 = tonumber(dom:match('class="chart"[^>]-data%-x0="([%d.]+)"'))
  local dx = tonumber(dom:match('class="chart"[^>]-data%-dx="([%d.]+)"'))
  assert(math.abs(tonumber(lines[3]) - (x0 + 4 * dx)) < 0.2, "the cursor moved to ply 4")
  assert(lines[4] == "1 5 " .. fens[5], lines[4])
  assert(tonumber(lines[5]) == #rec.moves)
  -- the evaluation of each move is shown beside it, as in the PGN
  local annotated = assert(pgn.read_file(dir .. "/a.pgn"))[1]
  local first_eval = annotated.comments[1]:match("%[%%eval ([^%]]+)%]")
  assert(dom:find('class="mv" data%-ply="1"[^>]*>' .. rec.moves[1]:gsub("%-", "%%-") .. '<span class="ev">'
    .. first_eval:gsub("[%-%.]", "%%%0") .. "</span>"), "the first move's evaluation is listed")
end

return T
