-- konane.repl.format: how the REPL shows values: the pretty-printer for any Lua value (format,
-- show), and the wording of engine figures (scores people can read, node counts).

local S = require("konane.repl.session")

local M = {}

local paint = S.paint

local KEYWORDS = {
  "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
  "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}
M.KEYWORDS = KEYWORDS
local IS_KEYWORD = {}
for _, k in ipairs(KEYWORDS) do IS_KEYWORD[k] = true end

local function is_identifier(s)
  return type(s) == "string" and s:match("^[%a_][%w_]*$") ~= nil and not IS_KEYWORD[s]
end

local ESCAPES = { ["\\"] = "\\\\", ['"'] = '\\"', ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
  ["\a"] = "\\a", ["\b"] = "\\b", ["\f"] = "\\f", ["\v"] = "\\v" }

--- quote(s) -> a Lua string literal for s (readable: \n rather than a backslash-newline)
function M.quote(s)
  return '"' .. s:gsub('[%c\\"]', function(c)
    return ESCAPES[c] or string.format("\\%03d", c:byte())
  end) .. '"'
end

local function format_number(n)
  if math.type(n) == "integer" then return tostring(n) end
  if n ~= n then return "nan" end
  if n == math.huge then return "inf" end
  if n == -math.huge then return "-inf" end
  local s = string.format("%.14g", n)
  if not s:find("[%.eEn]") then s = s .. ".0" end
  return s
end

local TYPE_ORDER = { number = 1, string = 2, boolean = 3 }

local function key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return (TYPE_ORDER[ta] or 9) < (TYPE_ORDER[tb] or 9) or
      ((TYPE_ORDER[ta] or 9) == (TYPE_ORDER[tb] or 9) and ta < tb) end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end

local MAX_DEPTH = 4     -- nesting shown before '{...}'
local MAX_ITEMS = 100   -- entries shown per table before '... (n more)'
local WIDTH = 78        -- a table that fits in this many columns is shown on one line

local format_value

local function format_scalar(v, color)
  local t = type(v)
  if t == "string" then return paint("green", M.quote(v), color) end
  if t == "number" then return paint("cyan", format_number(v), color) end
  if t == "boolean" or t == "nil" then return paint("magenta", tostring(v), color) end
  if S.is_game(v) then
    local ok, s = pcall(function()
      return string.format("<game %dx%d %s, ply %d>", v:rows(), v:cols(), v:variant(), v:ply())
    end)
    return paint("yellow", ok and s or tostring(v), color)
  end
  local ok, s = pcall(tostring, v)  -- a __tostring may raise or return a non-string
  if not ok or type(s) ~= "string" then s = string.format("%s: %p", type(v), v) end
  local mt = getmetatable(v)
  if type(mt) == "table" and mt.__tostring then return s end
  return paint("dim", s, color)
end

-- Table entries in display order: the array part 1..n, then the other keys sorted.
local function entries(t)
  local list, n = {}, 0
  while rawget(t, n + 1) ~= nil do
    n = n + 1
    list[n] = { n, rawget(t, n), array = true }
  end
  local keys = {}
  for k in next, t do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, key_less)
  for _, k in ipairs(keys) do list[#list + 1] = { k, rawget(t, k) } end
  return list
end

local function format_key(k, color)
  if is_identifier(k) then return k end
  return "[" .. format_value(k, color, 0, {}, 0) .. "]"
end

local function visible_len(s)
  return #(s:gsub("\27%[[%d;]*m", ""))
end

-- format_value(v, color, depth, seen, indent) -> string (may contain newlines)
function format_value(v, color, depth, seen, indent)
  if type(v) ~= "table" then return format_scalar(v, color) end
  local mt = getmetatable(v)
  if type(mt) == "table" and mt.__tostring then return format_scalar(v, color) end
  if seen[v] then return paint("dim", "<cycle: " .. tostring(v) .. ">", color) end
  if depth >= MAX_DEPTH then return next(v) == nil and "{}" or "{...}" end
  seen[v] = true
  local list = entries(v)
  local parts = {}
  local shown = math.min(#list, MAX_ITEMS)
  local simple = true
  for i = 1, shown do
    local e = list[i]
    local s = format_value(e[2], color, depth + 1, seen, indent + 2)
    if type(e[2]) == "table" and next(e[2]) ~= nil then simple = false end
    if not e.array then s = format_key(e[1], color) .. " = " .. s end
    parts[i] = s
  end
  if #list > shown then
    parts[#parts + 1] = paint("dim", string.format("... (%d more)", #list - shown), color)
  end
  seen[v] = nil
  if #parts == 0 then return "{}" end
  local one = "{" .. table.concat(parts, ", ") .. "}"
  if visible_len(one) + indent <= WIDTH and not one:find("\n") then return one end
  -- Several lines. A list of short scalars is packed, several to a line.
  local pad = string.rep(" ", indent + 2)
  local lines = {}
  if simple then
    local line = pad
    local len = #pad
    for i, s in ipairs(parts) do
      local w = visible_len(s) + 2
      if len + w > WIDTH and len > #pad then
        lines[#lines + 1] = line
        line, len = pad, #pad
      end
      line = line .. s .. (i < #parts and ", " or "")
      len = len + w
    end
    lines[#lines + 1] = line
  else
    for i, s in ipairs(parts) do lines[i] = pad .. s .. (i < #parts and "," or "") end
  end
  return "{\n" .. table.concat(lines, "\n") .. "\n" .. string.rep(" ", indent) .. "}"
end

--- format(value, {color=}) -> string
-- A readable rendering of any Lua value: strings quoted, tables with their keys sorted, nested up
-- to 4 levels and 100 entries per table, cycles marked, long tables over several lines; a game
-- is shown as a short tag (show() draws a game given on its own as a board).
function M.format(v, o)
  local color = o and o.color
  if color == nil then color = S.opts.color end
  return format_value(v, color, 0, {}, 0)
end

--- show(...) -> prints the values of an expression typed at the prompt
-- A game on its own is drawn as a board; other values are formatted and separated by tabs (by
-- new lines when one of them takes several lines). The first value is kept in the global `_`.
function M.show(...)
  local n = select("#", ...)
  if n == 0 then return end
  local first = ...
  rawset(_G, "_", first)
  if n == 1 and S.is_game(first) then
    S.show_board(first)
    return
  end
  local parts, multi = {}, false
  for i = 1, n do
    local s = M.format((select(i, ...)))
    if s:find("\n") then multi = true end
    parts[i] = s
  end
  print(table.concat(parts, multi and "\n" or "\t"))
end

-- ---------------------------------------------------------------------------------------------
-- Engine figures

-- Scores at or beyond this are proved results (docs/search.md: 30000 - n plies).
local PROVED = 29000
local WIN = 30000

--- score(s) -> "win in 3", "loss in 4", "+1.4", "-0.3", "0.0"
-- An engine score from the side to move's view, in words: a proved result as the number of
-- plies to the end of the game, a heuristic score in moves of mobility (100 = one move).
function M.score(s)
  if type(s) ~= "number" or s ~= s then return tostring(s) end
  if s == math.huge then return "win" end
  if s == -math.huge then return "loss" end
  if s >= PROVED then return string.format("win in %d", math.floor(WIN - s + 0.5)) end
  if s <= -PROVED then
    local n = math.floor(WIN + s + 0.5)
    return n == 0 and "lost" or string.format("loss in %d", n)
  end
  local v = s / 100
  if math.abs(v) < 0.05 then return "0.0" end
  return string.format("%+.1f", v)
end

--- count(n) -> "892", "12.3k", "1.21M", "3.40G"
function M.count(n)
  if type(n) ~= "number" then return tostring(n) end
  if n >= 1e9 then return string.format("%.2fG", n / 1e9) end
  if n >= 1e6 then return string.format("%.2fM", n / 1e6) end
  if n >= 1e4 then return string.format("%.1fk", n / 1e3) end
  return tostring(math.tointeger(n) or n)
end

--- wrap(head, words) -> 'words' after 'head', wrapped to the terminal width with continuation
-- lines indented under the first word.
function M.wrap(head, words)
  local width = math.max(40, (tonumber(S.opts.width) or 80) - 1)
  local lines, line = {}, head
  for i, w in ipairs(words) do
    if i > 1 and #line + 1 + #w > width then
      lines[#lines + 1] = line
      line = string.rep(" ", #head) .. w
    else
      line = line .. (i > 1 and " " or "") .. w
    end
  end
  lines[#lines + 1] = line
  return table.concat(lines, "\n")
end

--- result(r) -> "b5-d5  (+1.4, depth 12, 1.21M nodes, 0.50 s)" and the line on a second line
-- For a g:search result (or the last progress report of one).
function M.result(r)
  local pv = type(r.pv) == "table" and #r.pv > 0 and ("\n" .. M.wrap("  line: ", r.pv)) or ""
  return string.format("%s  (%s, depth %s, %s nodes, %.2f s)%s", paint("bold", tostring(r.move or
    (type(r.pv) == "table" and r.pv[1]) or "?")), M.score(r.score), tostring(r.depth or "?"),
    M.count(r.nodes), tonumber(r.time) or 0, pv)
end

--- info_line(t) -> one progress line of a search: depth, score, nodes, time, line
function M.info_line(t)
  local pv = type(t.pv) == "table" and table.concat(t.pv, " ") or (t.move or "")
  return string.format("depth %2s  %-10s  nodes %7s  %6.2f s  %s", tostring(t.depth or "?"),
    M.score(t.score), M.count(t.nodes), tonumber(t.time) or 0, pv)
end

return M
