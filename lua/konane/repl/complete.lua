-- konane.repl.complete: Tab completion of Lua names for the REPL host (src/repl.c asks
-- complete(word, line, start) for candidates; file names inside strings are readline's own).

local format = require("konane.repl.format")

local M = {}

local function callable(val)
  if type(val) == "function" then return true end
  local mt = getmetatable(val)
  return type(val) == "table" and type(mt) == "table" and mt.__call ~= nil
end

local function collect_keys(v, out, only_functions, depth, seen)
  if depth > 8 or v == nil or seen[v] then return end
  seen[v] = true
  if type(v) == "table" then
    for k, val in next, v do
      if type(k) == "string" and k:match("^[%a_][%w_]*$") then
        if not only_functions or callable(val) then
          if out[k] == nil then out[k] = val end
        end
      end
    end
  end
  local mt = getmetatable(v)
  if type(mt) == "table" then
    local index = rawget(mt, "__index")
    if type(index) == "table" then collect_keys(index, out, only_functions, depth + 1, seen) end
  elseif type(v) == "string" then
    collect_keys(string, out, only_functions, depth + 1, seen)
  end
end

-- The name under which table 'v' is in package.loaded (nil: it is not a module).
local function module_name(v)
  for name, mod in pairs(package.loaded) do
    if mod == v and type(name) == "string" and name ~= "_G" then return name end
  end
  return nil
end

local function listdir(dir)
  local ok, core = pcall(require, "konane.core")
  if not ok or type(core.listdir) ~= "function" then return {} end
  local ok2, list = pcall(core.listdir, dir)
  return ok2 and type(list) == "table" and list or {}
end

--- submodules(name) -> set of field names
-- The modules 'name.x' that require would find along package.path (name/x.lua or
-- name/x/init.lua), found without loading them: a module that loads its parts lazily (konane.pgn,
-- konane.tournament) offers them before their first use.
function M.submodules(name)
  local found = {}
  local rel = name:gsub("%.", "/")
  local seen = {}
  for template in package.path:gmatch("[^;]+") do
    local dir = template:match("^(.-)%?%.lua$") or template:match("^(.-)%?/init%.lua$")
    if dir then
      dir = (dir == "" and "./" or dir) .. rel
      if not seen[dir] then
        seen[dir] = true
        for _, file in ipairs(listdir(dir)) do
          local base = file:match("^([%a_][%w_]*)%.lua$")
          -- *_worker.lua are programs run in a child process, not modules to load
          if base and base ~= "init" and not base:match("_worker$") then
            found[base] = true
          elseif file:match("^[%a_][%w_]*$") then
            for _, inner in ipairs(listdir(dir .. "/" .. file)) do
              if inner == "init.lua" then found[file] = true end
            end
          end
        end
      end
    end
  end
  return found
end

--- complete(word, line, start) -> sorted list of candidates
-- 'word' is what is before the cursor back to the last space or operator, e.g. "g:mo",
-- "konane.ne", "pri". The part before the last '.' or ':' must be a chain of names (a.b.c); it is
-- looked up (without calling anything) and its fields, including those reached through
-- __index tables, are offered; for a module, so are its submodules not loaded yet. After ':'
-- only functions are offered. A function completes with '(' after it (g:mo -> g:moves(). A
-- bare word completes globals and keywords. 'line' and 'start' (the whole line, the word's
-- offset) are passed by the host for future use.
function M.complete(word, line, start) -- luacheck: ignore line start
  local prefix, sep, partial = word:match("^(.*)([%.:])([%w_]*)$")
  local candidates = {}
  local pool = {}
  if prefix then
    local v = _G
    for name in (prefix .. "."):gmatch("([^%.:]*)[%.:]") do
      if not name:match("^[%a_][%w_]*$") then return {} end
      if type(v) ~= "table" and not (type(v) == "userdata" or type(v) == "string") then return {} end
      local ok, next_v = pcall(function() return v[name] end)
      if not ok then return {} end
      v = next_v
    end
    if v == nil then return {} end
    collect_keys(v, pool, sep == ":", 0, {})
    if sep == "." and type(v) == "table" then
      local mod = module_name(v)
      if mod then
        for name in pairs(M.submodules(mod)) do
          if pool[name] == nil then pool[name] = true end
        end
      end
    end
  else
    partial = word
    prefix, sep = "", ""
    collect_keys(_G, pool, false, 0, {})
    for _, k in ipairs(format.KEYWORDS) do if pool[k] == nil then pool[k] = true end end
  end
  for k, val in pairs(pool) do
    if k:sub(1, #partial) == partial then
      local s = prefix .. sep .. k
      if callable(val) then s = s .. "(" end
      candidates[#candidates + 1] = s
    end
  end
  table.sort(candidates)
  return candidates
end

return M
