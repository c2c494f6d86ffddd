-- konane.report.charts: the small SVG charts of the pages (Lua draws them; the page scripts
-- only move a cursor): line charts (Elo over games, the SPRT's LLR path, an evaluation graph)
-- and per-row error bars. Series differ by dash pattern and a label at their end, not only by
-- colour.

local svg = require "konane.svg"

local M = {}

local esc = svg.escape

-- Colour-blind-safe series colours (Okabe and Ito) and dash patterns to go with them.
M.PALETTE = { "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000",
              "#f0e442" }
M.DASHES = { "", "12 6", "4 4", "16 5 4 5", "2 6", "20 8", "8 3 2 3", "6 10" }

local function num(x)
  if x == math.floor(x) and math.abs(x) < 1e15 then return ("%d"):format(x) end
  return ("%.1f"):format(x)
end

-- A "nice" tick step giving about 'n' ticks over [lo, hi].
local function nice_step(lo, hi, n)
  local span = hi - lo
  if span <= 0 then return 1 end
  local raw = span / n
  local mag = 10 ^ math.floor(math.log(raw, 10))
  for _, m in ipairs { 1, 2, 2.5, 5, 10 } do
    if m * mag >= raw then return m * mag end
  end
  return 10 * mag
end
M.nice_step = nice_step

local function tick_text(v, step)
  if step >= 1 then return ("%d"):format(math.floor(v + 0.5)) end
  local digits = math.max(0, -math.floor(math.log(step, 10) + 1e-9))
  return (("%%.%df"):format(digits)):format(v)
end

-- A legend name that fits 'px' pixels of 12 px text (about 7 px a character): a longer one keeps
-- its start and its end around an ellipsis (bot specs differ at either end: "alphabeta:weights=
-- .../w-deep.lua"). Returns the shown text and whether it was shortened.
local function fit_label(name, px)
  local max = math.max(5, px // 7)
  local n = utf8.len(name)
  if not n or n <= max then return name, false end
  local head = (max - 1) - (max - 1) // 2
  local tail = (max - 1) // 2
  local function cut(from, to) return name:sub(utf8.offset(name, from), utf8.offset(name, to + 1) - 1) end
  return cut(1, head) .. "\u{2026}" .. cut(n - tail + 1, n), true
end
M.fit_label = fit_label

--- line(spec) -> SVG text: a line chart.
-- spec: width, height (px, also the viewBox), series = { {name=, points = {{x, y}, ...}}, ... },
-- xmin, xmax, ymin, ymax (default: the data's), xlabel, ylabel, hlines = { {y=, label=} },
-- zero (draw y = 0), area (fill between the first series and 0), id (an id for the svg),
-- columns (n: add n+1 invisible click targets with data-ply = 0..n, x = ply), cursor (true:
-- a vertical cursor line the page script moves; data-x0/data-dx on the svg give its scale).
function M.line(spec)
  local W, H = spec.width or 640, spec.height or 260
  local L, R, T, B = 56, spec.right or 118, 14, 40
  local xmin, xmax, ymin, ymax = spec.xmin, spec.xmax, spec.ymin, spec.ymax
  for _, s in ipairs(spec.series) do
    for _, p in ipairs(s.points) do
      xmin = math.min(xmin or p[1], p[1]); xmax = math.max(xmax or p[1], p[1])
      ymin = math.min(ymin or p[2], p[2]); ymax = math.max(ymax or p[2], p[2])
    end
  end
  for _, h in ipairs(spec.hlines or {}) do
    ymin = math.min(ymin or h.y, h.y); ymax = math.max(ymax or h.y, h.y)
  end
  xmin, xmax, ymin, ymax = xmin or 0, xmax or 1, ymin or 0, ymax or 1
  if spec.zero then ymin, ymax = math.min(ymin, 0), math.max(ymax, 0) end
  if xmax <= xmin then xmax = xmin + 1 end
  if ymax <= ymin then ymin, ymax = ymin - 1, ymax + 1 end
  local pad = (ymax - ymin) * 0.06
  ymin, ymax = ymin - pad, ymax + pad
  local pw, ph = W - L - R, H - T - B
  local function X(x) return L + (x - xmin) / (xmax - xmin) * pw end
  local function Y(y) return T + (ymax - y) / (ymax - ymin) * ph end
  local o = {}
  local function add(s) o[#o + 1] = s end
  add(('<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="%d" height="%d" '
    .. 'viewBox="0 0 %d %d" font-family="DejaVu Sans, Verdana, Arial, sans-serif" '
    .. 'font-size="12"%s data-x0="%s" data-dx="%s" data-y0="%d" data-y1="%d">')
    :format(W, H, W, H, spec.id and (' id="%s"'):format(spec.id) or "", num(X(0) * 10 / 10),
      ("%.4f"):format(pw / (xmax - xmin)), T, T + ph))
  -- grid and axes
  local ystep = nice_step(ymin, ymax, 5)
  add('<g stroke="#e3e3e3" stroke-width="1">')
  local v = math.ceil(ymin / ystep) * ystep
  local labels = {}
  while v <= ymax + 1e-9 do
    add(('<line x1="%d" x2="%d" y1="%s" y2="%s"/>'):format(L, L + pw, num(Y(v)), num(Y(v))))
    labels[#labels + 1] = ('<text x="%d" y="%s" text-anchor="end">%s</text>')
      :format(L - 6, num(Y(v) + 4), tick_text(v, ystep))
    v = v + ystep
  end
  local xstep = math.max(1, nice_step(xmin, xmax, 8))
  v = math.ceil(xmin / xstep) * xstep
  while v <= xmax + 1e-9 do
    add(('<line x1="%s" x2="%s" y1="%d" y2="%d"/>'):format(num(X(v)), num(X(v)), T, T + ph))
    labels[#labels + 1] = ('<text x="%s" y="%d" text-anchor="middle">%s</text>')
      :format(num(X(v)), T + ph + 16, tick_text(v, xstep))
    v = v + xstep
  end
  add("</g>")
  add('<g fill="#555">' .. table.concat(labels) .. "</g>")
  add(('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>'):format(L, T, pw, ph))
  if spec.zero and ymin < 0 and ymax > 0 then
    add(('<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="#777" stroke-width="1.2"/>')
      :format(L, L + pw, num(Y(0)), num(Y(0))))
  end
  if spec.xlabel then
    add(('<text x="%s" y="%d" text-anchor="middle" fill="#333">%s</text>')
      :format(num(L + pw / 2), H - 6, esc(spec.xlabel)))
  end
  if spec.ylabel then
    add(('<text transform="translate(14 %s) rotate(-90)" text-anchor="middle" fill="#333">%s</text>')
      :format(num(T + ph / 2), esc(spec.ylabel)))
  end
  for _, h in ipairs(spec.hlines or {}) do
    add(('<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="%s" stroke-width="1.5" '
      .. 'stroke-dasharray="6 4"/><text x="%d" y="%s" fill="%s">%s</text>')
      :format(L, L + pw, num(Y(h.y)), num(Y(h.y)), h.colour or "#444", L + 6,
        num(Y(h.y) + (h.y > (ymin + ymax) / 2 and 15 or -5)), h.colour or "#444",
        esc(h.label or "")))
  end
  -- the series
  for i, s in ipairs(spec.series) do
    local colour = s.colour or M.PALETTE[(i - 1) % #M.PALETTE + 1]
    local dash = s.dash or M.DASHES[(i - 1) % #M.DASHES + 1]
    local pts = {}
    for k, p in ipairs(s.points) do pts[k] = num(X(p[1])) .. "," .. num(Y(p[2])) end
    if #pts > 0 then
      if spec.area and i == 1 then
        add(('<path d="M%s,%sL%sL%s,%sz" fill="%s" fill-opacity="0.18" stroke="none"/>')
          :format(num(X(s.points[1][1])), num(Y(0)), table.concat(pts, "L"),
            num(X(s.points[#s.points][1])), num(Y(0)), colour))
      end
      add(('<polyline points="%s" fill="none" stroke="%s" stroke-width="2.2"%s/>')
        :format(table.concat(pts, " "), colour,
          dash ~= "" and (' stroke-dasharray="%s"'):format(dash) or ""))
      if s.name then
        -- the legend on the right, one line per series with its dash pattern
        -- (a name longer than the margin is shortened; the full name is its tooltip)
        local ly = T + 10 + (i - 1) * 20
        local shown, cut = fit_label(s.name, R - 44)
        add(('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2.5"%s/>'
          .. '<text x="%d" y="%d" fill="#333">%s%s</text>')
          :format(L + pw + 10, L + pw + 34, ly, ly, colour,
            dash ~= "" and (' stroke-dasharray="%s"'):format(dash) or "", L + pw + 40, ly + 4,
            cut and ("<title>%s</title>"):format(esc(s.name)) or "", esc(shown)))
      end
    end
    for _, p in ipairs(s.dots or {}) do
      add(('<circle cx="%s" cy="%s" r="4.5" fill="%s" stroke="#fff" stroke-width="1.5">'
        .. '<title>%s</title></circle>'):format(num(X(p[1])), num(Y(p[2])), p.colour or colour,
          esc(p.title or "")))
    end
  end
  if spec.cursor then
    add(('<line class="cursor" x1="%s" x2="%s" y1="%d" y2="%d" stroke="#222" '
      .. 'stroke-width="1.5"/>'):format(num(X(xmin)), num(X(xmin)), T, T + ph))
  end
  if spec.columns then
    local n = spec.columns
    local w = pw / math.max(n, 1)
    add('<g fill="#000" fill-opacity="0">')
    for k = 0, n do
      add(('<rect class="col" data-ply="%d" x="%s" y="%d" width="%s" height="%d"/>')
        :format(k, num(math.max(L, X(k) - w / 2)), T, num(w), ph))
    end
    add("</g>")
  end
  add("</svg>")
  return table.concat(o)
end

--- error_bar(v, err, lo, hi, width) -> SVG text: a point at 'v' with a bar from v - err to
-- v + err on a scale from 'lo' to 'hi', with a line at 0. err nil: the point alone.
function M.error_bar(v, err, lo, hi, width)
  width = width or 260
  local H = 22
  local function X(x) return 8 + (math.max(lo, math.min(hi, x)) - lo) / (hi - lo) * (width - 16) end
  local o = { ('<svg xmlns="http://www.w3.org/2000/svg" class="bar" width="%d" height="%d" '
    .. 'viewBox="0 0 %d %d">'):format(width, H, width, H) }
  o[#o + 1] = ('<line x1="%s" x2="%s" y1="2" y2="%d" stroke="#aaa" stroke-dasharray="3 3"/>')
    :format(num(X(0)), num(X(0)), H - 2)
  if err then
    o[#o + 1] = ('<line x1="%s" x2="%s" y1="11" y2="11" stroke="#0072b2" stroke-width="3"/>'
      .. '<line x1="%s" x2="%s" y1="5" y2="17" stroke="#0072b2" stroke-width="2"/>'
      .. '<line x1="%s" x2="%s" y1="5" y2="17" stroke="#0072b2" stroke-width="2"/>')
      :format(num(X(v - err)), num(X(v + err)), num(X(v - err)), num(X(v - err)),
        num(X(v + err)), num(X(v + err)))
  end
  o[#o + 1] = ('<rect x="%s" y="6" width="10" height="10" fill="#d55e00" stroke="#fff"/>')
    :format(num(X(v) - 5))
  o[#o + 1] = "</svg>"
  return table.concat(o)
end

return M
