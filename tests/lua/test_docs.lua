-- test_docs.lua: the reference pages cover what the module exports. Every method of a game,
-- every field of `konane` and of `konane.core`, and every submodule under lua/konane/ is
-- named somewhere in docs/*.md, so a new export without documentation fails here.
local konane = require "konane"
local H = dofile("tests/lua/helpers.lua")

local function all_docs()
  local parts = {}
  for _, name in ipairs(konane.core.listdir("docs") or {}) do
    if name:match("%.md$") then parts[#parts + 1] = H.read("docs/" .. name) end
  end
  parts[#parts + 1] = H.read("README.md")
  return table.concat(parts, "\n")
end

local function missing(text, names, forms)
  local out = {}
  for _, n in ipairs(names) do
    local found = false
    for _, form in ipairs(forms) do
      if text:find(form:format(n), 1, true) then found = true break end
    end
    if not found then out[#out + 1] = n end
  end
  return out
end

local function sorted_keys(t, skip)
  local r = {}
  for k in pairs(t) do
    if type(k) == "string" and not (skip and skip[k]) then r[#r + 1] = k end
  end
  table.sort(r)
  return r
end

local T = {}

T["every game method is documented as g:NAME"] = function()
  local docs = all_docs()
  local names = sorted_keys(konane.core.Game)
  assert(#names >= 30, "too few methods: " .. #names)
  local m = missing(docs, names, { "g:%s(", "g:%s{", "`g:%s`" })
  assert(#m == 0, "undocumented game methods: " .. table.concat(m, ", "))
end

T["every field of konane and konane.core is documented"] = function()
  local docs = all_docs()
  local m = missing(docs, sorted_keys(konane), { "konane.%s", "`%s`" })
  assert(#m == 0, "undocumented konane fields: " .. table.concat(m, ", "))
  -- the C module: its game functions and helpers; the cgt_* binding is konane.cgt's
  local core_names = {}
  for _, k in ipairs(sorted_keys(konane.core)) do
    if not k:match("^cgt_") and k ~= "meta" then core_names[#core_names + 1] = k end
  end
  m = missing(H.read("docs/api.md"), core_names, { "core.%s", "`%s(", "`%s`" })
  assert(#m == 0, "undocumented konane.core fields in docs/api.md: " .. table.concat(m, ", "))
end

T["every submodule of lua/konane is named in the docs"] = function()
  local docs = all_docs()
  local mods = {}
  for _, name in ipairs(konane.core.listdir("lua/konane") or {}) do
    local mod = name:match("^([%a_]+)%.lua$") or (not name:find("%.") and name)
    -- worker programs are processes the library starts, not modules a user loads
    if mod and mod ~= "init" and not mod:match("_worker$") then mods[#mods + 1] = mod end
  end
  table.sort(mods)
  assert(#mods >= 10, "too few submodules: " .. #mods)
  local m = missing(docs, mods, { "konane.%s", "lua/konane/%s", "| %s/" })
  assert(#m == 0, "submodules the docs never name: " .. table.concat(m, ", "))
end

return T
