-- konane.svg: the one SVG board renderer. g:svg{...} (a game method), the REPL's svg(), the
-- tournament report and annotated games all draw their boards here.
--
-- The drawing is in units of 100 per square (the viewBox); `size` only sets the width and
-- height attributes, so the picture scales cleanly from 200 to 1,000 px and beyond.
--
-- Colour-blind safe: squares differ in lightness (rules.md: square (f, r) is dark when f + r is
-- even, so a1 is dark); Black pieces are solid dark discs, White pieces light discs with a dark
-- outline and an inner ring; the last move is a solid arrow, user arrows are dashed, marks are
-- square frames, hints are dots and dashed rings: every cue has a shape, not only a hue.
--
-- A board can also be emitted as a *template* (opts.template): every square then carries its
-- piece, ghost and hint elements, the inactive ones with display="none", and a page script only
-- switches them on and off and sets the arrow's points from the pieces' centres. That is how the
-- report and annotated-game viewers show any ply with this same drawing code.

local util = require("konane.util")

local M = {}

local SQ = 100                 -- one square, in viewBox units
local LEFT, RIGHT, TOP = 56, 16, 16
local BOTTOM = 56              -- file letters
local STATUS = 80              -- the status line under the board
local FILES = "abcdefghijklmnopqrstuvwxyz"

M.SQUARE = SQ

-- The palette (lightness carries the meaning; hue is a bonus).
M.COLOURS = {
  light = "#f0d9b5", dark = "#b58863", background = "#ffffff", text = "#333333",
  black = "#1c1c1c", black_edge = "#000000", white = "#fbfbf8", white_edge = "#1c1c1c",
  last = "#1565c0", arrow = "#c2185b", mark = "#d84315", hint = "#2e7d32",
}
local C = M.COLOURS

local OPTIONS = {
  size = "number", flip = "boolean", last = "any", marks = "table", arrows = "table",
  hints = "boolean", coords = "boolean", status = "boolean", id = "string", title = "string",
}

-- ---------------------------------------------------------------------------------------------
-- Squares and moves

--- parse(s) -> f, r (0-based) or nil: the file and rank of square name 's'.
local function parse(s)
  local l, d = tostring(s):lower():match("^(%a)(%d%d?)$")
  if not l then return nil end
  return FILES:find(l, 1, true) - 1, tonumber(d) - 1
end
M.parse = parse

local function name(f, r) return FILES:sub(f + 1, f + 1) .. (r + 1) end

--- path(move) -> squares, jumped: the squares a move visits and the squares it jumps over.
-- A removal "d5" visits one square. A jump "f5-b5" (or "f5-d5-b5") visits f5, d5, b5 (every
-- landing square, two apart in one direction) and jumps e5 and c5. Returns nil for text that is
-- not a straight jump of an even distance.
function M.path(move)
  local ends = {}
  for s in tostring(move):gmatch("%a%d+") do ends[#ends + 1] = s end
  if #ends == 0 then return nil end
  local f0, r0 = parse(ends[1])
  if not f0 then return nil end
  if #ends == 1 then return { ends[1]:lower() }, {} end
  local f1, r1 = parse(ends[#ends])
  if not f1 then return nil end
  local df, dr = f1 - f0, r1 - r0
  if (df ~= 0 and dr ~= 0) or (df == 0 and dr == 0) or df % 2 ~= 0 or dr % 2 ~= 0 then
    return nil
  end
  local n = math.max(math.abs(df), math.abs(dr)) // 2
  local sf, sr = (df > 0 and 1) or (df < 0 and -1) or 0, (dr > 0 and 1) or (dr < 0 and -1) or 0
  local squares, jumped = { name(f0, r0) }, {}
  for k = 1, n do
    jumped[#jumped + 1] = name(f0 + sf * (2 * k - 1), r0 + sr * (2 * k - 1))
    squares[#squares + 1] = name(f0 + sf * 2 * k, r0 + sr * 2 * k)
  end
  return squares, jumped
end

-- ---------------------------------------------------------------------------------------------
-- Geometry

--- geometry(rows, cols, flip) -> g: the viewBox size and square positions of a board.
-- g.width, g.height; g.x(f), g.y(r): the top-left corner of square (f, r); g.cx(f), g.cy(r): its
-- centre. Not flipped, rank 1 is at the bottom and file a on the left (as the text board);
-- flipped, the board is turned round (rank 1 at the top, file a on the right).
function M.geometry(rows, cols, flip, status)
  local g = { rows = rows, cols = cols, flip = flip and true or false }
  g.width = LEFT + cols * SQ + RIGHT
  g.board_bottom = TOP + rows * SQ
  g.height = g.board_bottom + BOTTOM + (status == false and 0 or STATUS)
  function g.x(f) return LEFT + (flip and (cols - 1 - f) or f) * SQ end
  function g.y(r) return TOP + (flip and r or (rows - 1 - r)) * SQ end
  function g.cx(f) return g.x(f) + SQ / 2 end
  function g.cy(r) return g.y(r) + SQ / 2 end
  return g
end

-- ---------------------------------------------------------------------------------------------
-- Checking options

-- A value as an error message shows it: printable, and at most 80 bytes (a page of text passed
-- by mistake is not repeated whole).
local function shown_value(v)
  local s = util.printable(v)
  if #s > 80 then s = s:sub(1, (utf8.offset(s, 77) or 77) - 1) .. "..." end
  return s
end

local function check_colour(c, where)
  if type(c) ~= "string" or not (c:match("^#%x%x%x$") or c:match("^#%x%x%x%x%x%x$")
                                 or c:match("^%a+$")) then
    error(("bad %s colour %s (expected #rgb, #rrggbb or a name)"):format(where, shown_value(c)), 4)
  end
  return c
end

local function check_square(s, rows, cols, where)
  local f, r = parse(s)
  if not f or f >= cols or r >= rows then
    error(("bad square %s in '%s' (the board is %dx%d)"):format(shown_value(s), shown_value(where), rows, cols), 4)
  end
  return name(f, r), f, r
end

local function check_options(opts)
  if opts == nil then return {} end
  if type(opts) ~= "table" then
    error(("bad argument #1 to 'svg' (table expected, got %s)"):format(type(opts)), 3)
  end
  for k, v in pairs(opts) do
    local want = OPTIONS[k]
    if not want then
      local known = {}
      for n in pairs(OPTIONS) do known[#known + 1] = n end
      table.sort(known)
      error(("bad argument #1 to 'svg' (unknown option '%s'; known: %s)")
        :format(shown_value(k), table.concat(known, ", ")), 3)
    end
    if want ~= "any" and type(v) ~= want then
      error(("bad option '%s' to 'svg' (%s expected, got %s)"):format(k, want, type(v)), 3)
    end
  end
  -- (NaN failed both comparisons: g:svg{size = 0/0} made width="-nan", an SVG no viewer shows)
  if opts.size and not (opts.size >= 16 and opts.size <= 10000) then
    error(("bad option 'size' to 'svg' (%s is out of range 16..10000)"):format(opts.size), 3)
  end
  if opts.id and not opts.id:match("^[%a][%w_-]*$") then
    error(("bad option 'id' to 'svg' ('%s' is not an XML name)"):format(shown_value(opts.id)), 3)
  end
  return opts
end

-- Marks: a list of squares, or a table square -> colour.
local function read_marks(marks, rows, cols)
  local out = {}
  if not marks then return out end
  for k, v in pairs(marks) do
    local sq, colour
    if math.type(k) == "integer" then
      sq, colour = v, C.mark
    else
      sq, colour = k, v == true and C.mark or v
    end
    local canonical, f, r = check_square(sq, rows, cols, "marks")
    out[#out + 1] = { square = canonical, f = f, r = r, colour = check_colour(colour, "mark") }
  end
  table.sort(out, function(a, b) return a.square < b.square end)
  return out
end

-- Arrows: a list of "a1-c1" strings or {from, to, colour=}.
local function read_arrows(arrows, rows, cols)
  local out = {}
  if not arrows then return out end
  for i, a in ipairs(arrows) do
    local from, to, colour
    if type(a) == "string" then
      from, to = a:match("^(%a%d+)%-?(%a%d+)$")
      if not from then
        error(("bad arrow %d '%s' (expected two squares like 'a1-c1')"):format(i, shown_value(a)), 3)
      end
      colour = C.arrow
    elseif type(a) == "table" then
      from, to, colour = a[1] or a.from, a[2] or a.to, a.colour or a.color or C.arrow
    else
      error(("bad arrow %d (string or table expected, got %s)"):format(i, type(a)), 3)
    end
    local sf, ff, rf = check_square(from, rows, cols, "arrows")
    local st, ft, rt = check_square(to, rows, cols, "arrows")
    out[#out + 1] = { from = sf, to = st, f0 = ff, r0 = rf, f1 = ft, r1 = rt,
                      colour = check_colour(colour, "arrow") }
  end
  return out
end

-- ---------------------------------------------------------------------------------------------
-- Drawing

local function num(x)
  if x == math.floor(x) then return ("%d"):format(x) end
  return ("%.1f"):format(x)
end

-- Text for XML and HTML: markup characters as entities, and nothing XML 1.0 forbids (a control
-- byte, a byte that is not UTF-8 or U+FFFE/U+FFFF in a title made the SVG document ill-formed:
-- browsers show a parse error instead of the board) -- those as \xNN (util.printable; lines
-- kept) or \uffNN.
local function esc(s)
  return (util.printable(s, true):gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
                                                    ['"'] = "&quot;" })
    -- U+FFFE and U+FFFF are UTF-8 but no XML character either
    :gsub("\239\191([\190\191])", function(b) return ("\\uff%02x"):format(b:byte() - 128 + 0xc0) end))
end
M.escape = esc

local function side_word(side) return side == "black" and "Black" or "White" end

-- The <defs>: pieces, ghost ring, hint dot and ring, arrowheads (one per colour).
local function defs(id, arrow_colours)
  local o = { "<defs>" }
  o[#o + 1] = ('<g id="%s-b"><circle r="38" fill="%s" stroke="%s" stroke-width="4"/>'
    .. '<circle r="25" fill="none" stroke="#4a4a4a" stroke-width="3"/></g>')
    :format(id, C.black, C.black_edge)
  o[#o + 1] = ('<g id="%s-w"><circle r="37" fill="%s" stroke="%s" stroke-width="6"/>'
    .. '<circle r="21" fill="none" stroke="%s" stroke-width="5"/></g>')
    :format(id, C.white, C.white_edge, C.white_edge)
  -- a piece that was here a move ago: a dashed ring and a cross
  o[#o + 1] = ('<g id="%s-x" stroke="%s" stroke-width="6" fill="none" opacity="0.85">'
    .. '<circle r="30" stroke-dasharray="10 8"/><path d="M-14 -14L14 14M14 -14L-14 14"/></g>')
    :format(id, C.last)
  o[#o + 1] = ('<circle id="%s-d" r="13" fill="%s" fill-opacity="0.8" stroke="#ffffff" '
    .. 'stroke-width="3"/>'):format(id, C.hint)
  o[#o + 1] = ('<circle id="%s-r" r="44" fill="none" stroke="%s" stroke-width="6" '
    .. 'stroke-dasharray="12 7"/>'):format(id, C.hint)
  for i, colour in ipairs(arrow_colours) do
    o[#o + 1] = ('<marker id="%s-a%d" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3.2" '
      .. 'markerHeight="3.2" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="%s"/>'
      .. '</marker>'):format(id, i, colour)
  end
  o[#o + 1] = ('<marker id="%s-m" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="2" '
    .. 'markerHeight="2"><circle cx="5" cy="5" r="4" fill="%s" stroke="#ffffff" '
    .. 'stroke-width="1.5"/></marker>'):format(id, C.last)
  o[#o + 1] = "</defs>"
  return table.concat(o)
end

-- A straight arrow from the centre of one square towards another, stopping short of the
-- centre so the head does not hide the piece.
local function arrow_points(g, squares)
  local pts = {}
  for i, s in ipairs(squares) do
    local f, r = parse(s)
    pts[i] = num(g.cx(f)) .. "," .. num(g.cy(r))
  end
  return table.concat(pts, " ")
end

--- document(spec) -> SVG text.
-- The renderer behind g:svg and the viewers. 'spec' fields:
--   rows, cols; at(f, r) -> "black" | "white" | nil (the pieces); turn ("black"/"white");
--   over (the side to move has no move); fen (position text, for data-fen and the title);
--   last (a move string or nil); marks, arrows (checked lists); hints (list of legal moves);
--   flip, size, coords, status (booleans; coords and status default true), id (prefix of the
--   document's ids), title; template (true: emit every square's elements, see the file header).
function M.document(spec)
  if type(spec) ~= "table" or math.type(spec.rows) ~= "integer" or math.type(spec.cols) ~= "integer"
     or type(spec.at) ~= "function" then
    error(("bad argument #1 to 'svg.document' (a spec with rows, cols and at expected, got %s)")
      :format(type(spec)), 2)
  end
  local rows, cols, id = spec.rows, spec.cols, spec.id or "kn"
  local g = M.geometry(rows, cols, spec.flip, spec.status)
  local template = spec.template
  local o = {}
  local function add(s) o[#o + 1] = s end
  local width = spec.size or 480
  local height = width * g.height / g.width
  add(('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
    .. 'version="1.1" class="konane-board" width="%s" height="%s" viewBox="0 0 %d %d" '
    .. 'font-family="DejaVu Sans, Verdana, Arial, sans-serif" data-rows="%d" data-cols="%d" '
    .. 'data-flip="%s" data-id="%s"%s>')
    :format(num(width), num(height), g.width, g.height, rows, cols, tostring(g.flip), id,
      spec.fen and (' data-fen="%s"'):format(esc(spec.fen)) or ""))
  local title = spec.title or (spec.fen and ("Konane %dx%d: %s"):format(rows, cols, spec.fen))
  if title then add("<title>" .. esc(title) .. "</title>") end
  local colours, colour_index = { C.last }, { [C.last] = 1 }
  for _, a in ipairs(spec.arrows or {}) do
    if not colour_index[a.colour] then
      colours[#colours + 1] = a.colour
      colour_index[a.colour] = #colours
    end
  end
  add(defs(id, colours))
  add(('<rect width="%d" height="%d" fill="%s"/>'):format(g.width, g.height, C.background))

  -- squares: one light rectangle under the board, a dark square wherever f + r is even
  add(('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>')
    :format(LEFT, TOP, cols * SQ, rows * SQ, C.light))
  local dark = {}
  for r = 0, rows - 1 do
    for f = 0, cols - 1 do
      if (f + r) % 2 == 0 then
        dark[#dark + 1] = ("M%d %dh100v100h-100z"):format(g.x(f), g.y(r))
      end
    end
  end
  add(('<path class="dark" fill="%s" d="%s"/>'):format(C.dark, table.concat(dark)))
  add(('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s" stroke-width="3"/>')
    :format(LEFT, TOP, cols * SQ, rows * SQ, C.text))

  -- coordinates
  if spec.coords ~= false then
    add(('<g fill="%s" font-size="44" text-anchor="middle">'):format(C.text))
    for f = 0, cols - 1 do
      add(('<text x="%d" y="%d">%s</text>'):format(g.cx(f), g.board_bottom + 44,
        FILES:sub(f + 1, f + 1)))
    end
    for r = 0, rows - 1 do
      add(('<text x="%d" y="%d">%d</text>'):format(LEFT // 2 - 2, g.cy(r) + 15, r + 1))
    end
    add("</g>")
  end

  -- marks: a thick frame inside the square
  for _, m in ipairs(spec.marks or {}) do
    add(('<rect class="mark" x="%d" y="%d" width="88" height="88" fill="none" stroke="%s" '
      .. 'stroke-width="10"/>'):format(g.x(m.f) + 6, g.y(m.r) + 6, m.colour))
  end

  -- the last move: ghosts where pieces were removed or jumped
  local ghosts = {}
  local last_squares
  if spec.last then
    local squares, jumped = M.path(spec.last)
    if squares then
      if #squares == 1 then ghosts[squares[1]] = true else last_squares = squares end
      for _, s in ipairs(jumped) do ghosts[s] = true end
    end
  end

  -- hints: a dashed ring around each piece that can move, a dot on each landing square
  local rings, dots = {}, {}
  for _, mv in ipairs(spec.hints or {}) do
    local squares = M.path(mv)
    if squares then
      rings[squares[1]] = true
      for i = 2, #squares do dots[squares[i]] = true end
    end
  end

  -- per square: ghost, piece, hint ring, hint dot (template: all of them, switched off)
  local pieces = {}
  for r = rows - 1, 0, -1 do
    for f = 0, cols - 1 do
      local sq = name(f, r)
      local x, y = g.cx(f), g.cy(r)
      local who = spec.at(f, r)
      local colour = (f + r) % 2 == 0 and "w" or "b" -- the only side that can stand here
      local function use(kind, on, class)
        if on or template then
          pieces[#pieces + 1] = ('<use class="%s" data-sq="%s" xlink:href="#%s-%s" x="%d" y="%d"%s/>')
            :format(class, sq, id, kind, x, y, on and "" or ' display="none"')
        end
      end
      use("x", ghosts[sq], "ghost")
      use(colour, who ~= nil, "piece")
      use("r", rings[sq], "hint-ring")
      use("d", dots[sq], "hint-dot")
    end
  end
  add("<g>" .. table.concat(pieces) .. "</g>")

  -- arrows: the last move solid, through every landing square; the user's dashed
  if last_squares or template then
    add(('<polyline class="last" points="%s" fill="none" stroke="%s" stroke-width="14" '
      .. 'stroke-opacity="0.8" stroke-linecap="round" stroke-linejoin="round" '
      .. 'marker-mid="url(#%s-m)" marker-end="url(#%s-a1)"%s/>')
      :format(last_squares and arrow_points(g, last_squares) or "", C.last, id, id,
        last_squares and "" or ' display="none"'))
  end
  for _, a in ipairs(spec.arrows or {}) do
    add(('<polyline class="arrow" points="%s" fill="none" stroke="%s" stroke-width="12" '
      .. 'stroke-opacity="0.85" stroke-dasharray="22 12" stroke-linecap="round" '
      .. 'marker-end="url(#%s-a%d)"/>')
      :format(arrow_points(g, { a.from, a.to }), a.colour, id, colour_index[a.colour]))
  end

  -- the status line: who is to move, or who won (template: all four, one shown)
  if spec.status ~= false then
    local y = g.board_bottom + BOTTOM + 50
    local shown = spec.over and ("won-" .. (spec.turn == "black" and "white" or "black"))
      or ("turn-" .. spec.turn)
    for _, kind in ipairs { "turn-black", "turn-white", "won-black", "won-white" } do
      if template or kind == shown then
        local side = kind:match("%-(%a+)$")
        local text = kind:match("^turn") and (side_word(side) .. " to move")
          or (side_word(side) .. " wins")
        add(('<g class="status" data-status="%s"%s><use xlink:href="#%s-%s" '
          .. 'transform="translate(%d %d) scale(0.6)"/><text x="%d" y="%d" font-size="46" '
          .. 'fill="%s">%s</text></g>')
          :format(kind, kind == shown and "" or ' display="none"', id, side:sub(1, 1),
            LEFT + 26, y - 16, LEFT + 64, y, C.text, text))
      end
    end
  end
  add("</svg>")
  return table.concat(o)
end

--- game_spec(game, opts) -> spec: what document() needs to draw 'game' with g:svg's options.
function M.game_spec(game, opts)
  if not require("konane.util").is_game(game) then
    error(("bad argument #1 to 'svg' (a game expected, got %s)"):format(type(game)), 3)
  end
  opts = check_options(opts)
  local rows, cols = game:rows(), game:cols()
  local last = opts.last
  if last == nil or last == true then
    last = game:last()
  elseif last == false then
    last = nil
  elseif type(last) ~= "string" or not M.path(last) then
    error(("bad option 'last' to 'svg' (true, false or a move, got %s)"):format(shown_value(last)), 3)
  end
  local spec = {
    rows = rows, cols = cols, flip = opts.flip, size = opts.size, id = opts.id,
    coords = opts.coords, status = opts.status, title = opts.title,
    turn = game:turn(), over = game:over(), fen = game:fen(), last = last,
    marks = read_marks(opts.marks, rows, cols), arrows = read_arrows(opts.arrows, rows, cols),
    hints = opts.hints and game:moves() or nil,
  }
  function spec.at(f, r) return game:at(name(f, r)) end
  return spec
end

--- svg(game, opts) -> text: the SVG document of 'game' (g:svg{...}). Options:
--   size (width in px, 480), flip (turn the board round), last (true: mark the last move;
--   false; or a move string), marks (list of squares or {square = colour}), arrows (list of
--   "a1-c1" or {from, to, colour=}), hints (legal moves), coords, status (default true),
--   id (prefix of the ids inside, for several boards in one HTML page), title.
function M.svg(game, opts)
  -- the checks deep inside raise at different depths: a bad option is reported at the
  -- caller's line (as the C methods do), never at a line of this file
  local ok, spec = pcall(M.game_spec, game, opts)
  if not ok then error((tostring(spec):gsub("^[^\n:]*:%d+: ", "")), 2) end
  return M.document(spec)
end

--- template(rows, cols, opts) -> text: the board with every square's elements present and
-- switched off, for a page script to show any position (the viewers). opts: flip, size, id.
function M.template(rows, cols, opts)
  opts = opts or {}
  return M.document {
    rows = rows, cols = cols, flip = opts.flip, size = opts.size, id = opts.id,
    template = true, turn = "black", at = function() return nil end,
  }
end

--- write(game, path, opts) -> true, or nil and a message: g:svg(opts) saved to 'path'.
function M.write(game, path, opts)
  local text = M.svg(game, opts)
  local f, err = io.open(path, "wb")
  if not f then return nil, err end
  local ok, werr = f:write(text, "\n")
  local cok, cerr = f:close()
  if not ok or not cok then return nil, ("%s: %s"):format(path, tostring(werr or cerr)) end
  return true
end

return M
