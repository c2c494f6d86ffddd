-- konane.util: the one place for small helpers every part of the library needs: the clock,
-- the seeded generator and seed mixing, user-facing error messages, option-table checks.
-- It requires only konane.core (never konane), so any module may require it.

local M = {}

local core_ok, core = pcall(require, "konane.core")
if not core_ok then core = nil end

--- now() -> seconds
-- Seconds on a monotonic wall clock (konane.core.clock, the scale of every deadline in the
-- library: the referee's clocks, search time limits), or os.clock() (CPU time)
-- when the C module is not loaded. Only differences between two calls mean anything.
function M.now()
  if core then return core.clock() end
  return os.clock()
end

--- printable(s [, keep_lines]) -> text
-- 's' (any value, through tostring) as text with no raw control byte and only valid UTF-8, for a
-- name that reaches records, JSON files, web pages and terminals: tab, CR and LF become
-- spaces (kept as they are with 'keep_lines', for text of several lines such as an XML
-- document's); other control bytes (C0, DEL, and C1 as UTF-8) and bytes that are not part of a
-- valid UTF-8 sequence are written as \xNN (C1 as \u00NN). Printable text comes back unchanged,
-- so applying it twice changes nothing.
function M.printable(s, keep_lines)
  s = tostring(s)
  if not s:find("[%c\128-\255]") then return s end
  if not keep_lines then s = s:gsub("[\t\r\n]", " ") end
  s = s:gsub("[%z\1-\8\11\12\14-\31\127]", function(ch) return ("\\x%02x"):format(ch:byte()) end)
  if not utf8.len(s) then
    local out, i = {}, 1
    while i <= #s do
      local ok, bad = utf8.len(s, i)
      if ok then
        out[#out + 1] = s:sub(i)
        break
      end
      out[#out + 1] = s:sub(i, bad - 1)
      out[#out + 1] = ("\\x%02x"):format(s:byte(bad))
      i = bad + 1
    end
    s = table.concat(out)
  end
  return (s:gsub("\194([\128-\159])", function(b) return ("\\u%04x"):format(b:byte()) end))
end

--- clip(s, max [, keep_end]) -> text
-- 's' cut to at most 'max' bytes with "..." where it was cut, never inside a UTF-8 character (a
-- cut one would show as \xNN once made printable): its start is kept, or with 'keep_end' its
-- end ("..." first). Text of at most 'max' bytes comes back as it is.
function M.clip(s, max, keep_end)
  if #s <= max then return s end
  if keep_end then
    local from = #s - max + 1
    while from < #s and (s:byte(from) & 0xC0) == 0x80 do from = from + 1 end
    return "..." .. s:sub(from)
  end
  local cut = max + 1
  while cut > 1 and (s:byte(cut) & 0xC0) == 0x80 do cut = cut - 1 end
  return s:sub(1, cut - 1) .. "..."
end

--- is_game(v) -> boolean
-- Is 'v' a game (a konane.Game userdata, as konane.new returns)? The library's functions that
-- take a game check with it, so a wrong argument is an error naming it, not "attempt to index".
function M.is_game(v)
  local mt = type(v) == "userdata" and getmetatable(v)
  return type(mt) == "table" and mt.__name == "konane.Game"
end

--- rng(seed) -> function
-- A small independent pseudo-random generator (splitmix64), so a seeded bot, opening or
-- schedule gives the same sequence whatever else uses math.random. 'seed' is an integer (a
-- float is scaled by 1000003 and floored; nil is 0). The function returned gives an integer in
-- [1, n] when called with n >= 1, a float in [0, 1) when called without argument. The sequence
-- for a seed is part of the public behaviour (seeded games repeat): do not change it.
function M.rng(seed)
  local s = math.tointeger(seed) or math.floor((tonumber(seed) or 0) * 1000003)
  return function(n)
    s = s + 0x9E3779B97F4A7C15
    local z = s
    z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ~ (z >> 27)) * 0x94D049BB133111EB
    z = z ~ (z >> 31)
    if n then
      local k = math.tointeger(n)
      if not k or k < 1 then
        -- (n = 0 was "attempt to perform 'n%0'", a string or a table an arithmetic error)
        error(("rng: bad argument #1 (an integer n >= 1 expected, got %s)"):format(
          type(n) == "number" and tostring(n) or type(n)), 2)
      end
      return (z >> 1) % n + 1
    end
    return (z >> 11) * (1.0 / 9007199254740992.0)
  end
end

--- mix(a, b) -> integer
-- A 53-bit non-negative integer hash of two integers (the splitmix64 finaliser), for deriving
-- independent seeds from one seed and a number (per game, per opening, per worker) so that
-- each depends only on its inputs.
function M.mix(a, b)
  if math.type(a) ~= "integer" or math.type(b) ~= "integer" then
    error(("mix: bad argument #%d (an integer expected, got %s)"):format(
      math.type(a) ~= "integer" and 1 or 2, math.type(a) ~= "integer" and type(a) .. " " .. tostring(a)
      or type(b) .. " " .. tostring(b)), 2)
  end
  local z = (a * 0x9E3779B97F4A7C15 + b * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB)
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  z = z ~ (z >> 31)
  return z >> 11
end

-- Position prefixes Lua puts before error messages: "file.lua:12: ", "stdin:3: ",
-- "[string \"...\"]:1: ", "=(command line):1: ".
local POSITION = {
  "^[^\n:]-%.lua:%d+: ",
  "^%[string \"[^\n]-\"%]:%d+: ",
  "^[%w_%-%.=%(%) ]+:%d+: ",
}

--- message(err) -> string
-- The user-facing text of an error value: tostring(err) without the "file:line: " position
-- prefixes Lua added when it was raised (and re-raised), so a message like
-- "bot.lua:182: konane.lua:40: unknown bot 'x'" reads "unknown bot 'x'". Text after the first
-- line (a traceback) is kept as it is. Use it where a person reads the message; keep the raw
-- error where a developer debugs.
function M.message(err)
  local msg = tostring(err)
  repeat
    local before = msg
    for _, pat in ipairs(POSITION) do msg = msg:gsub(pat, "", 1) end
  until msg == before
  return msg
end

--- library_position(pos) -> boolean
-- Is 'pos' ("path/file.lua:12:") a place in konane's own library (a konane/ directory)? Such a
-- position says nothing to a bot's author; the bot's own file and line say where it failed.
function M.library_position(pos)
  return pos:find("konane[/\\]") ~= nil
end

--- strip_library_position(msg) -> string
-- tostring(msg) without the "konane/file.lua:12: " a library function put in front; a leading
-- position in any other file (a bot's own "mybot.lua:12: ") stays: it is where the author looks.
function M.strip_library_position(msg)
  msg = tostring(msg)
  local pos = msg:match("^[^\n:(]-%.lua:%d+: ")
  if pos and M.library_position(pos) then msg = msg:sub(#pos + 1) end
  return msg
end

--- check_opts(opts, allowed, where [, level])
-- Raises "WHERE: unknown option 'k' (known: a, b, c)" when the options table 'opts' has a key
-- not in 'allowed' (a list of names, or a set {name = true}); nil 'opts' has no keys, anything
-- else but a table raises "WHERE: options must be a table, got T". 'where' names the call
-- ("konane.new", "bot 'mcts'"). 'level' is error()'s level for the position (default 3: the
-- caller of the function calling check_opts). Returns opts (or an empty table for nil), so
-- `opts = util.check_opts(opts, {...}, "x")` reads naturally. The C bindings raise the same
-- message (lk_opts_check).
function M.check_opts(opts, allowed, where, level)
  level = level or 3
  if opts == nil then return {} end
  if type(opts) ~= "table" then
    error(("%s: options must be a table, got %s"):format(where, type(opts)), level)
  end
  local set = allowed
  if allowed[1] ~= nil then
    set = {}
    for _, k in ipairs(allowed) do set[k] = true end
  end
  for k in pairs(opts) do
    if not set[k] then
      local known = {}
      for name in pairs(set) do known[#known + 1] = tostring(name) end
      table.sort(known)
      local key = type(k) == "string" and k or type(k)
      error(("%s: unknown option '%s' (known: %s)"):format(where, key, table.concat(known, ", ")),
        level)
    end
  end
  return opts
end

return M
