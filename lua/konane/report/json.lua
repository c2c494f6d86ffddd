-- konane.report.json: JSON for the pages. decode() reads results.json; encode() writes the
-- compact data a page embeds in a <script> element (no indentation, and '<' escaped as \u003c so
-- no text can close the element early).

local M = {}

-- ---------------------------------------------------------------------------------------------
-- Decoding

local ESCAPES = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n",
                  r = "\r", t = "\t" }

local function utf8_of(code) return utf8.char(code) end

--- decode(text, name) -> value, or nil and "name: offset N: message".
-- Objects become tables with string keys, arrays lists (1-based), null nil.
function M.decode(text, name)
  local pos = 1
  local function fail(msg)
    error({ json_error = ("%s: offset %d: %s"):format(name or "JSON", pos, msg) }, 0)
  end
  local function skip()
    pos = text:find("[^ \t\r\n]", pos) or #text + 1
  end
  local value
  local function str()
    pos = pos + 1
    local out = {}
    while true do
      local a, b = text:find('^[^"\\%c]+', pos)
      if a then
        out[#out + 1] = text:sub(a, b)
        pos = b + 1
      end
      local c = text:sub(pos, pos)
      if c == '"' then
        pos = pos + 1
        return table.concat(out)
      elseif c == "\\" then
        local e = text:sub(pos + 1, pos + 1)
        if e == "u" then
          local hex = text:match("^%x%x%x%x", pos + 2)
          if not hex then fail("bad \\u escape") end
          local code = tonumber(hex, 16)
          pos = pos + 6
          if code >= 0xD800 and code <= 0xDBFF then
            local lo = text:match("^\\u(%x%x%x%x)", pos)
            if lo then
              code = 0x10000 + (code - 0xD800) * 0x400 + (tonumber(lo, 16) - 0xDC00)
              pos = pos + 6
            end
          end
          out[#out + 1] = utf8_of(code)
        elseif ESCAPES[e] then
          out[#out + 1] = ESCAPES[e]
          pos = pos + 2
        else
          fail("bad escape")
        end
      elseif c == "" then
        fail("unterminated string")
      else
        fail("control character in a string")
      end
    end
  end
  function value()
    skip()
    local c = text:sub(pos, pos)
    if c == "{" then
      pos = pos + 1
      local t = {}
      skip()
      if text:sub(pos, pos) == "}" then
        pos = pos + 1
        return t
      end
      while true do
        skip()
        if text:sub(pos, pos) ~= '"' then fail("object key expected") end
        local k = str()
        skip()
        if text:sub(pos, pos) ~= ":" then fail("':' expected") end
        pos = pos + 1
        t[k] = value()
        skip()
        c = text:sub(pos, pos)
        pos = pos + 1
        if c == "}" then return t end
        if c ~= "," then fail("',' or '}' expected") end
      end
    elseif c == "[" then
      pos = pos + 1
      local t, n = {}, 0
      skip()
      if text:sub(pos, pos) == "]" then
        pos = pos + 1
        return t
      end
      while true do
        n = n + 1
        t[n] = value()
        skip()
        c = text:sub(pos, pos)
        pos = pos + 1
        if c == "]" then return t end
        if c ~= "," then fail("',' or ']' expected") end
      end
    elseif c == '"' then
      return str()
    end
    local lit = text:match("^%-?%d+%.?%d*[eE]?[-+]?%d*", pos)
    if lit and lit ~= "" and lit ~= "-" then
      local v = tonumber(lit)
      if not v then fail("bad number") end
      pos = pos + #lit
      return v
    end
    for word, v in pairs { ["true"] = true, ["false"] = false, null = M.null } do
      if text:sub(pos, pos + #word - 1) == word then
        pos = pos + #word
        if v == M.null then return nil end
        return v
      end
    end
    fail(c == "" and "unexpected end" or ("unexpected '" .. c .. "'"))
  end
  local ok, v = pcall(function()
    local r = value()
    skip()
    if pos <= #text then fail("trailing text") end
    return r
  end)
  if not ok then
    if type(v) == "table" and v.json_error then return nil, v.json_error end
    error(v, 0)
  end
  return v
end
M.null = setmetatable({}, { __tostring = function() return "null" end })

-- ---------------------------------------------------------------------------------------------
-- Encoding

local function encode_string(s)
  return '"' .. s:gsub('[%c"\\<>&\127]', function(ch)
    local map = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t" }
    return map[ch] or ("\\u%04x"):format(ch:byte())
  end) .. '"'
end

--- encode(v) -> text: compact JSON. Tables with t[1] ~= nil (or empty tables marked with
-- M.list) are arrays, others objects with sorted keys; non-finite numbers become null.
local LISTS = setmetatable({}, { __mode = "k" })
function M.list(t)
  LISTS[t] = true
  return t
end

function M.encode(v)
  local t = type(v)
  if v == nil then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    if math.type(v) == "integer" then return tostring(v) end
    return (("%.6g"):format(v))
  end
  if t == "string" then return encode_string(v) end
  if t ~= "table" then error("cannot encode a " .. t .. " as JSON", 2) end
  local parts = {}
  if v[1] ~= nil or LISTS[v] then
    for i = 1, #v do parts[i] = M.encode(v[i]) end
    return "[" .. table.concat(parts, ",") .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  for i, k in ipairs(keys) do parts[i] = encode_string(k) .. ":" .. M.encode(v[k]) end
  return "{" .. table.concat(parts, ",") .. "}"
end

return M
