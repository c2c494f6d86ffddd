-- SVG boards (konane.svg, g:svg): structure, square colours as rules.md defines them, pieces,
-- flip, the last move's arrow through every square of a multiple jump, options, validity.
local konane = require "konane"
local svg = require "konane.svg"

local T = {}

-- The position after a double jump f5-b5 (found by replaying this fixed line).
local LINE = { "e4", "e5", "c4-e4", "g5-e5", "f7-f5", "g7-g5", "c6-c4", "d6-d4", "d7-f7",
               "a5-c5", "f5-b5" }

local function game_after(moves, opts)
  local g = konane.new(opts)
  for _, m in ipairs(moves) do g:play(m) end
  return g
end

-- Every <use> element of a kind: list of {sq=, x=, y=, href=, hidden=}.
local function uses(text, class)
  local out = {}
  for attrs in text:gmatch("<use ([^>]-)/>") do
    if attrs:find('class="' .. class .. '"', 1, true) then
      out[#out + 1] = {
        sq = attrs:match('data%-sq="(%w+)"'), href = attrs:match('href="#([%w_-]+)"'),
        x = tonumber(attrs:match(' x="(%-?[%d.]+)"')), y = tonumber(attrs:match(' y="(%-?[%d.]+)"')),
        hidden = attrs:find('display="none"', 1, true) ~= nil,
      }
    end
  end
  return out
end

-- The dark squares' top-left corners, from the single dark path.
local function dark_corners(text)
  local d = text:match('<path class="dark" fill="[^"]+" d="([^"]*)"')
  local set = {}
  for x, y in d:gmatch("M(%d+) (%d+)") do set[x .. "," .. y] = true end
  return set
end

local function xmllint(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  local out = io.popen("xmllint --noout " .. path .. " 2>&1; echo rc=$?")
  local report = out:read("a")
  out:close()
  os.remove(path)
  return report
end

T["a board is valid XML by xmllint, with and without every option"] = function()
  local g = game_after(LINE)
  local texts = {
    g:svg(), konane.new():svg(), konane.new { rows = 5, cols = 7 }:svg { flip = true },
    g:svg { size = 1000, flip = true, hints = true, marks = { "a1", h8 = "#0000ff" },
            arrows = { "b3-b5", { "h1", "h3", colour = "green" } }, title = "a <title> & more" },
    svg.template(8, 8, { id = "t1" }), konane.new { rows = 20, cols = 20 }:svg { hints = true },
  }
  for i, text in ipairs(texts) do
    local report = xmllint(text)
    assert(report:match("rc=0%s*$"), ("board %d is not well-formed XML:\n%s"):format(i, report))
    assert(text:match("^<svg xmlns=\"http://www.w3.org/2000/svg\""), "an SVG root element")
  end
end

T["a title with control bytes or bytes that are not UTF-8 still makes well-formed XML"] = function()
  -- a NUL, an escape sequence or a stray byte in a title made the document ill-formed: a browser
  -- shows its parse error instead of the board
  local g = game_after(LINE)
  local text = g:svg { title = "esc\27[31m nul\0 bad\255\192\188 k\u{14D}nane <&>\nline two" }
  local report = xmllint(text)
  assert(report:match("rc=0%s*$"), "not well-formed XML:\n" .. report)
  local title = text:match("<title>(.-)</title>")
  assert(title == "esc\\x1b[31m nul\\x00 bad\\xff\\xc0\\xbc k\u{14D}nane &lt;&amp;&gt;\nline two", title)
  -- valid UTF-8 that XML still refuses: the noncharacters U+FFFE and U+FFFF
  text = g:svg { title = "a\u{FFFE}b\u{FFFF}c\u{FFFD}" }
  report = xmllint(text)
  assert(report:match("rc=0%s*$"), "not well-formed XML:\n" .. report)
  title = text:match("<title>(.-)</title>")
  assert(title == "a\\ufffeb\\uffffc\u{FFFD}", title)
end

T["an error shows a bad value printable and cut short"] = function()
  local g = konane.new()
  local ok, msg = pcall(g.svg, g, { marks = { a1 = ("long name "):rep(2000) } })
  assert(not ok and #msg < 200 and msg:find("bad mark colour long name", 1, true), #msg)
  ok, msg = pcall(g.svg, g, { last = "nul\0esc\27" })
  assert(not ok and msg:find("nul\\x00esc\\x1b", 1, true) and not msg:find("%c"), msg)
end

T["dark squares are those with f + r even: a1 dark, h1 and a8 light"] = function()
  local g = konane.new()
  local text = g:svg()
  local geo = svg.geometry(8, 8, false)
  local dark = dark_corners(text)
  local n = 0
  for r = 0, 7 do
    for f = 0, 7 do
      local key = geo.x(f) .. "," .. geo.y(r)
      assert((dark[key] == true) == ((f + r) % 2 == 0), "square " .. konane.square(f, r))
      if dark[key] then n = n + 1 end
    end
  end
  assert(n == 32)
  assert(dark[geo.x(0) .. "," .. geo.y(0)], "a1 is dark")
  assert(not dark[geo.x(7) .. "," .. geo.y(0)], "h1 is light")
  -- the light colour is the board's background and the dark one is darker
  assert(text:find('fill="' .. svg.COLOURS.light .. '"', 1, true))
  assert(text:find('class="dark" fill="' .. svg.COLOURS.dark .. '"', 1, true))
end

T["every piece is drawn on its square with its side's shape"] = function()
  local g = game_after(LINE)
  local pieces = uses(g:svg(), "piece")
  assert(#pieces == g:count("black") + g:count("white"),
    ("%d pieces drawn, %d on the board"):format(#pieces, g:count("black") + g:count("white")))
  local geo = svg.geometry(8, 8, false)
  for _, p in ipairs(pieces) do
    local f, r = konane.parse_square(p.sq)
    local side = g:at(p.sq)
    assert(side, p.sq .. " is drawn but empty")
    assert(p.href == (side == "black" and "kn-b" or "kn-w"), p.sq .. " has the wrong piece")
    assert(p.x == geo.cx(f) and p.y == geo.cy(r), p.sq .. " is off its square")
  end
  -- White pieces have an outline and an inner ring: a shape, not only a colour
  local text = g:svg()
  assert(text:match('<g id="kn%-w"><circle[^>]-stroke="[^"]+"[^>]-/><circle r="%d+" fill="none"'))
end

T["flip turns the board round: a1 at the top right, h8 at the bottom left"] = function()
  local g = konane.new()
  local plain, flipped = svg.geometry(8, 8, false), svg.geometry(8, 8, true)
  local function where(text, sq)
    for _, p in ipairs(uses(text, "piece")) do if p.sq == sq then return p.x, p.y end end
  end
  local x, y = where(g:svg { flip = true }, "a1")
  assert(x == flipped.cx(0) and y == flipped.cy(0))
  assert(x > plain.cx(0) and y < plain.cy(0), "a1 moved to the top right")
  local x8, y8 = where(g:svg { flip = true }, "h8")
  assert(x8 == plain.cx(0) and y8 == plain.cy(0), "h8 sits where a1 sits unflipped")
  assert(g:svg { flip = true }:find('data-flip="true"', 1, true))
  -- the dark squares stay the same squares: a1 is still dark
  assert(dark_corners(g:svg { flip = true })[flipped.x(0) .. "," .. flipped.y(0)])
end

T["the last move's arrow goes through every landing square of a multiple jump"] = function()
  local g = game_after(LINE)
  assert(g:last() == "f5-b5")
  local text = g:svg()
  local points = text:match('<polyline class="last" points="([^"]*)"')
  assert(points, "an arrow for the last move")
  local geo = svg.geometry(8, 8, false)
  local want = {}
  for _, s in ipairs { "f5", "d5", "b5" } do
    local f, r = konane.parse_square(s)
    want[#want + 1] = ("%d,%d"):format(geo.cx(f), geo.cy(r))
  end
  assert(points == table.concat(want, " "), points)
  assert(text:find('marker-mid="url(#kn-m)"', 1, true), "a dot at the intermediate landing square")
  -- the jumped squares carry a ghost; nothing else does
  local ghosts = {}
  for _, u in ipairs(uses(text, "ghost")) do ghosts[#ghosts + 1] = u.sq end
  table.sort(ghosts)
  assert(table.concat(ghosts, " ") == "c5 e5", table.concat(ghosts, " "))
  assert(not g:svg { last = false }:find('class="last"', 1, true), "last=false: no arrow")
  local removal = game_after { "d5" }:svg()
  assert(not removal:find('class="last"', 1, true), "a removal has no arrow")
  assert(#uses(removal, "ghost") == 1 and uses(removal, "ghost")[1].sq == "d5")
end

T["path names every landing and jumped square of a move"] = function()
  local sq, jumped = svg.path("f5-b5")
  assert(table.concat(sq, " ") == "f5 d5 b5" and table.concat(jumped, " ") == "e5 c5")
  sq, jumped = svg.path("c3-c7")
  assert(table.concat(sq, " ") == "c3 c5 c7" and table.concat(jumped, " ") == "c4 c6")
  assert(svg.path("d5")[1] == "d5")
  assert(svg.path("a1-b2") == nil and svg.path("a1-a2") == nil and svg.path("zz") == nil)
end

T["marks, arrows and hints are drawn with shapes"] = function()
  local g = game_after(LINE)
  local text = g:svg { marks = { "a1", h8 = "#00f" }, arrows = { "b3-b5" }, hints = true }
  local _, nmarks = text:gsub('class="mark"', "")
  assert(nmarks == 2)
  assert(text:find('stroke="#00f"', 1, true))
  assert(text:match('<polyline class="arrow"[^>]-stroke%-dasharray'), "user arrows are dashed")
  local landing, movers = {}, {}
  for _, m in ipairs(g:moves()) do
    local sq = svg.path(m)
    movers[sq[1]] = true
    for i = 2, #sq do landing[sq[i]] = true end
  end
  local function count(t) local n = 0 for _ in pairs(t) do n = n + 1 end return n end
  assert(#uses(text, "hint-dot") == count(landing))
  assert(#uses(text, "hint-ring") == count(movers))
  assert(#uses(g:svg(), "hint-dot") == 0, "no hints unless asked")
end

T["the status line names the side to move, or the winner when the game is over"] = function()
  assert(konane.new():svg():find(">Black to move<", 1, true))
  assert(game_after { "d5" }:svg():find(">White to move<", 1, true))
  local g = konane.new { fen = "ox.. w" }
  g:play("a1-c1")
  assert(g:over())
  assert(g:svg():find(">White wins<", 1, true))
  assert(not konane.new():svg { status = false }:find("to move", 1, true))
end

T["size sets the pixel size; the viewBox keeps the drawing"] = function()
  local text = konane.new():svg { size = 200 }
  local w, h = text:match('width="([%d.]+)" height="([%d.]+)" viewBox')
  assert(tonumber(w) == 200 and tonumber(h) > 200)
  local g = svg.geometry(8, 8)
  assert(text:find(('viewBox="0 0 %d %d"'):format(g.width, g.height), 1, true))
  assert(konane.new():svg():find('data-fen="' .. konane.new():fen() .. '"', 1, true))
end

T["bad options raise and say what is wrong"] = function()
  local g = konane.new()
  local function err(opts)
    local ok, msg = pcall(g.svg, g, opts)
    assert(not ok, "expected an error")
    return tostring(msg)
  end
  assert(err { colour = 1 }:find("unknown option 'colour'", 1, true))
  assert(err { size = "big" }:find("bad option 'size'", 1, true))
  assert(err { size = 3 }:find("out of range", 1, true))
  -- NaN failed both range comparisons: width="-nan" height="-nan", a picture no viewer shows
  assert(err { size = 0 / 0 }:find("out of range", 1, true))
  assert(err { size = math.huge }:find("out of range", 1, true))
  assert(err { marks = { "z9" } }:find("bad square z9", 1, true))
  assert(err { marks = { a1 = "red\"/><script>" } }:find("bad mark colour", 1, true))
  assert(err { arrows = { "a1" } }:find("bad arrow 1", 1, true))
  assert(err { last = "nonsense" }:find("bad option 'last'", 1, true))
  assert(err { id = "1x" }:find("not an XML name", 1, true))
  assert(not pcall(g.svg, g, "big"))
  -- the error names the caller's line, not a line of konane's own files
  local caller = assert(load("local g, opts = ...\nlocal s = g:svg(opts)\nreturn s", "=mine"))
  for _, opts in ipairs { { colour = 1 }, { size = 3 }, { marks = { "z9" } }, { marks = { a1 = "x y" } },
                          { arrows = { "a1" } }, { last = "nonsense" }, "big" } do
    local ok, msg = pcall(caller, g, opts)
    assert(not ok and tostring(msg):match("^mine:2: bad "), tostring(msg))
  end
end

T["a template has every square's piece switched off and all four status lines"] = function()
  local text = svg.template(6, 6, { id = "t" })
  local pieces = uses(text, "piece")
  assert(#pieces == 36)
  for _, p in ipairs(pieces) do
    assert(p.hidden)
    local f, r = konane.parse_square(p.sq)
    assert(p.href == ((f + r) % 2 == 0 and "t-w" or "t-b"), "the piece a square can hold")
  end
  local _, nstatus = text:gsub('class="status"', "")
  assert(nstatus == 4)
end

T["write saves the board and reports a failed write"] = function()
  local path = os.tmpname()
  assert(svg.write(konane.new(), path))
  local f = assert(io.open(path))
  local text = f:read("a")
  f:close()
  os.remove(path)
  assert(text:match("^<svg.*</svg>\n$"))
  local ok, err = svg.write(konane.new(), "/nonexistent-dir/x.svg")
  assert(not ok and err:find("nonexistent", 1, true))
end

T["the REPL's svg(path) writes the current game's board"] = function()
  local repl = require "konane.repl"
  local old = rawget(_G, "g")
  local g = game_after(LINE)
  rawset(_G, "g", g)
  local path = os.tmpname()
  local old_print, said = print, nil
  print = function(s) said = s end
  local ok, err = pcall(repl.commands.svg.call, path, { flip = true })
  print = old_print
  rawset(_G, "g", old)
  assert(ok, tostring(err))
  assert(said == "saved the position to " .. path, said)
  local f = assert(io.open(path))
  local text = f:read("a")
  f:close()
  os.remove(path)
  assert(text == g:svg { flip = true } .. "\n")
  assert(not pcall(repl.commands.svg.call, "/nonexistent-dir/x.svg"))
end

return T
