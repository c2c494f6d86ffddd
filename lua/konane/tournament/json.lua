-- konane.tournament.json: JSON text for the tournament's files (results.json, tournament.cfg)
-- and the worker protocol, and a strict reader for it.
--
-- The reader is a plain recursive-descent parser: it builds tables, strings, numbers and
-- booleans and can run nothing, whatever the text. It records the line of every object member
-- and list element (json.line_of) so that a caller validating the data can name FILE:LINE.

local M = {}

-- Marks a table to be written as a list even when it is empty.
local LIST = setmetatable({}, { __mode = "k" })
function M.list(t)
  LIST[t] = true
  return t
end

-- Lines of members, by table then key (filled by decode).
local LINES = setmetatable({}, { __mode = "k" })

local ESCAPE = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

for b = 0, 31 do
  local ch = string.char(b)
  ESCAPE[ch] = ESCAPE[ch] or string.format("\\u%04x", b)
end
ESCAPE["\127"] = "\\u007f"

-- Bytes that are not UTF-8 (a bot file's path on a Latin-1 file system), each as a lone low
-- surrogate \udc80-\udcff (Python's "surrogateescape"): the file stays UTF-8 text that strict
-- readers accept, and decode gives the same bytes back, so --resume still matches the spec.
local function escape_bytes(s)
  local out, pos = {}, 1
  while true do
    local n, bad = utf8.len(s, pos)
    if n then break end
    out[#out + 1] = s:sub(pos, bad - 1)
    out[#out + 1] = string.format("\\u%04x", 0xDC00 + s:byte(bad))
    pos = bad + 1
  end
  out[#out + 1] = s:sub(pos)
  return table.concat(out)
end

-- quote(s) -> s as a JSON string.
local function quote(s)
  if not s:find('[%c"\\]') and utf8.len(s) then return '"' .. s .. '"' end -- nothing to escape
  s = s:gsub('[%c"\\]', ESCAPE)
  if not utf8.len(s) then s = escape_bytes(s) end
  return '"' .. s .. '"'
end
M.quote = quote

-- Text written as it is by encode (see raw).
local RAW = setmetatable({}, { __mode = "k" })

--- raw(text) -> a value encode writes as 'text' itself: JSON the caller has already made.
function M.raw(text)
  local t = { text }
  RAW[t] = true
  return t
end

-- The shortest "%.Ng" text that reads back as exactly 'v'.
local function exact(v)
  for p = 15, 17 do
    local s = string.format("%." .. p .. "g", v)
    if tonumber(s) == v then return s end
  end
  return string.format("%.17g", v)
end

-- encode(v, opts) -> text. Tables with v[1] ~= nil (or marked with list()) are lists, others
-- objects with their keys sorted, so the same value always gives the same text. Infinite and
-- NaN numbers become null. opts.exact: floats written to read back exactly (default: 10
-- significant digits, for people). opts.compact: one line.
function M.encode(v, opts, indent)
  opts = opts or {}
  indent = indent or ""
  local t = type(v)
  if v == nil then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    if math.type(v) == "integer" then return tostring(v) end
    local s = opts.exact and exact(v) or string.format("%.10g", v)
    if not s:find("[%.eEn]") then s = s .. ".0" end
    return s
  end
  if t == "string" then return quote(v) end
  if t ~= "table" then error("cannot write a " .. t .. " as JSON", 2) end
  if RAW[v] then return v[1] end
  local nl, inner, sep = "\n", indent .. "  ", ": "
  if opts.compact then nl, inner, indent = "", "", "" end
  local parts = {}
  if v[1] ~= nil or LIST[v] then
    for i = 1, #v do parts[i] = inner .. M.encode(v[i], opts, inner) end
    if #parts == 0 then return "[]" end
    return "[" .. nl .. table.concat(parts, "," .. nl) .. nl .. indent .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  for _, k in ipairs(keys) do
    parts[#parts + 1] = inner .. quote(k) .. sep .. M.encode(v[k], opts, inner)
  end
  if #parts == 0 then return "{}" end
  return "{" .. nl .. table.concat(parts, "," .. nl) .. nl .. indent .. "}"
end

local MAX_DEPTH = 64

-- decode(text, name) -> value, or nil and "NAME:LINE: what is wrong". Strict JSON (RFC 8259):
-- one value, no comments, no trailing commas, no duplicate keys; numbers without a fraction or
-- exponent that fit are Lua integers; null reads as nil (a member set to null is absent).
function M.decode(text, name)
  if type(text) ~= "string" then return nil, (name or "JSON") .. ": not a string" end
  local pos, line, len = 1, 1, #text
  local function fail(msg)
    error({ json_error = true, msg = string.format("%s:%d: %s", name or "JSON", line, msg) }, 0)
  end
  local function skip()
    while true do
      local a, b = text:find("^[ \t\r\n]+", pos)
      if not a then return end
      for _ in text:sub(a, b):gmatch("\n") do line = line + 1 end
      pos = b + 1
    end
  end
  local function show()
    if pos > len then return "the end of the text" end
    local c = text:sub(pos, pos)
    if c:find("[%g]") then return "'" .. c .. "'" end
    return string.format("byte %d", c:byte())
  end
  local value
  local function str()
    pos = pos + 1 -- the opening quote
    local out = {}
    while true do
      local a = text:find('["\\%c]', pos)
      if not a then fail("unterminated string") end
      out[#out + 1] = text:sub(pos, a - 1)
      local c = text:sub(a, a)
      if c == '"' then
        pos = a + 1
        return table.concat(out)
      elseif c == "\\" then
        local e = text:sub(a + 1, a + 1)
        local simple = ({ ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n",
                          r = "\r", t = "\t" })[e]
        if simple then
          out[#out + 1] = simple
          pos = a + 2
        elseif e == "u" then
          local hex = text:match("^%x%x%x%x", a + 2)
          if not hex then fail("bad \\u escape in a string") end
          local cp = tonumber(hex, 16)
          pos = a + 6
          if cp >= 0xD800 and cp <= 0xDBFF then
            local lo = text:match("^\\u(%x%x%x%x)", pos)
            lo = lo and tonumber(lo, 16)
            if not lo or lo < 0xDC00 or lo > 0xDFFF then fail("a lone surrogate in a string") end
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
            pos = pos + 6
          elseif cp >= 0xDC80 and cp <= 0xDCFF then
            cp = nil -- a byte that is not UTF-8, as quote escapes it
            out[#out + 1] = string.char(tonumber(hex, 16) - 0xDC00)
          elseif cp >= 0xDC00 and cp <= 0xDFFF then
            fail("a lone surrogate in a string")
          end
          if cp then out[#out + 1] = utf8.char(cp) end
        else
          fail("bad escape '\\" .. e .. "' in a string")
        end
      else
        fail("a control character in a string")
      end
    end
  end
  -- -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][-+]?[0-9]+)?
  local function num()
    local start = pos
    if text:sub(pos, pos) == "-" then pos = pos + 1 end
    local int = text:match("^%d+", pos)
    if not int or (#int > 1 and int:sub(1, 1) == "0") then fail("malformed number") end
    pos = pos + #int
    local float = false
    local frac = text:match("^%.(%d*)", pos)
    if frac then
      if frac == "" then fail("malformed number") end
      pos, float = pos + 1 + #frac, true
    end
    local exp = text:match("^[eE][-+]?%d*", pos)
    if exp then
      if not exp:find("%d$") then fail("malformed number") end
      pos, float = pos + #exp, true
    end
    local s = text:sub(start, pos - 1)
    local n = not float and math.tointeger(tonumber(s)) or tonumber(s)
    if not n then fail("malformed number") end
    return n
  end
  local function collection(close, depth, member)
    if depth > MAX_DEPTH then fail("nested more than " .. MAX_DEPTH .. " deep") end
    pos = pos + 1
    local t, lines, n = {}, {}, 0
    LINES[t] = lines
    skip()
    if text:sub(pos, pos) == close then
      pos = pos + 1
      return close == "]" and M.list(t) or t
    end
    while true do
      skip()
      local at = line
      if member then
        if text:sub(pos, pos) ~= '"' then fail("expected a member name in quotes, found " .. show()) end
        local k = str()
        if lines[k] then fail("member '" .. k .. "' given twice") end
        skip()
        if text:sub(pos, pos) ~= ":" then fail("expected ':' after '" .. k .. "', found " .. show()) end
        pos = pos + 1
        skip()
        at = line
        t[k] = value(depth + 1)
        lines[k] = at
      else
        n = n + 1
        local v = value(depth + 1)
        if v == nil then fail("null in a list") end
        t[n] = v
        lines[n] = at
      end
      skip()
      local c = text:sub(pos, pos)
      pos = pos + 1
      if c == close then return close == "]" and M.list(t) or t end
      if c ~= "," then
        pos = pos - 1
        fail("expected ',' or '" .. close .. "', found " .. show())
      end
    end
  end
  function value(depth)
    skip()
    local c = text:sub(pos, pos)
    if c == "{" then return collection("}", depth, true)
    elseif c == "[" then return collection("]", depth, false)
    elseif c == '"' then return str()
    elseif c == "-" or c:find("%d") then return num()
    elseif text:find("^true", pos) then pos = pos + 4 return true
    elseif text:find("^false", pos) then pos = pos + 5 return false
    elseif text:find("^null", pos) then pos = pos + 4 return nil
    end
    fail("expected a value, found " .. show())
  end
  local ok, v = pcall(function()
    local v = value(1)
    skip()
    if pos <= len then fail("text after the value: " .. show()) end
    return v
  end)
  if ok then return v end
  if type(v) == "table" and v.json_error then return nil, v.msg end
  error(v, 0)
end

-- line_of(t, key) -> the line of member 'key' of a decoded table (nil when unknown).
function M.line_of(t, key)
  local lines = LINES[t]
  return lines and lines[key]
end

return M
