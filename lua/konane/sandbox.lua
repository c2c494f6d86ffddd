-- konane.sandbox: running bots that come from files someone else wrote.
--
-- The bot's file is loaded as text (never bytecode) into its own environment: the safe parts of
-- the standard library (string, table, math, utf8, coroutine wrapped, pcall wrapped, print to
-- stderr) and the konane API a bot needs (new, square, parse_square, variants, variant,
-- VERSION, core.clock, bot with built-in names), and nothing else: no io, os, package, debug,
-- require of arbitrary modules, load of bytecode, collectgarbage control, __gc finalizers, or access to the
-- metatables of strings and games. Every call into the bot (loading, new_game, choose, done) runs
-- under konane.core.sandbox_call: limits on wall time, instructions and memory, enforced by a
-- count hook and a budgeting allocator. A bot that passes a limit, raises, or reaches for what is
-- not there fails that call with an error saying so; the host goes on.

local M = {}

-- Defaults for every call into a sandboxed bot; konane.play's per-move time is lower when set.
M.defaults = {
  time = 10,                   -- seconds of wall time per call
  instructions = 2000000000,   -- Lua VM instructions per call (about 10-20 s of pure Lua)
  memory = 256 * 1024 * 1024,  -- net bytes the call may allocate
}

local function core()
  return require("konane").core
end

-- A sandbox error: a table with the kind of failure, printable as its message.
local ERR_MT = { __tostring = function(e) return e.message end }
local function sandbox_error(message, kind)
  return setmetatable({ message = message, sandbox_kind = kind or "error" }, ERR_MT)
end

-- A host-side string for any value from the sandbox, without running its metamethods.
local function safe_string(v)
  local t = type(v)
  if t == "string" then return v end
  if t == "number" or t == "boolean" or t == "nil" then return tostring(v) end
  if t == "table" and getmetatable(v) == ERR_MT then return rawget(v, "message") end
  return "(an error object of type " .. t .. ")"
end

-- A deep copy of plain data (the record given to done), so the bot cannot change the host's.
local function copy_data(v, seen)
  if type(v) ~= "table" then return v end
  seen = seen or {}
  if seen[v] then return seen[v] end
  local t = {}
  seen[v] = t
  for k, x in next, v do t[copy_data(k, seen)] = copy_data(x, seen) end
  return t
end

-- Shallow copy of the functions of a library table, without the names in 'drop'.
local function copy_lib(lib, drop)
  local t = {}
  for k, v in pairs(lib) do
    if not (drop and drop[k]) then t[k] = v end
  end
  return t
end

--- env(name) -> table
-- A fresh environment for one sandboxed bot ('name' prefixes what it prints).
function M.env(name)
  local c = core()
  local konane = require("konane")
  local env = {}

  -- Re-raise a caught error when a limit was passed: a bot must not catch its own time,
  -- instruction or memory limit and go on.
  local function check(ok, ...)
    if not ok and c.sandbox_tripped((...)) then error((...), 0) end
    return ok, ...
  end
  local function spcall(f, ...)
    return check(pcall(f, ...))
  end
  local function sxpcall(f, handler, ...)
    return check(xpcall(f, function(e)
      if c.sandbox_tripped(e) then return e end
      return handler(e)
    end, ...))
  end

  for _, k in ipairs { "assert", "error", "ipairs", "next", "pairs", "rawequal", "rawget",
                       "rawlen", "rawset", "select", "tonumber", "tostring", "type" } do
    env[k] = _G[k]
  end
  env._VERSION = _VERSION
  env.pcall = spcall
  env.xpcall = sxpcall

  -- metatables: never one with __gc (a finalizer would run later in the host, outside every
  -- limit); only the metatables of tables can be read (strings and games share theirs with the
  -- host).
  env.setmetatable = function(t, mt)
    if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
      error("setmetatable: __gc is not allowed in the sandbox", 2)
    end
    return setmetatable(t, mt)
  end
  env.getmetatable = function(v)
    if type(v) ~= "table" then return nil end
    return getmetatable(v)
  end

  env.collectgarbage = function(opt)
    if opt == "count" then return collectgarbage("count") end
    return 0
  end

  env.print = function(...)
    local parts = table.pack(...)
    for i = 1, parts.n do parts[i] = tostring(parts[i]) end
    io.stderr:write("[" .. tostring(name or "bot") .. "] " .. table.concat(parts, "\t", 1, parts.n) .. "\n")
  end

  -- load: text chunks only, in the bot's environment unless it gives one of its own
  env.load = function(chunk, chunkname, _, e)
    if type(chunk) == "string" and chunk:byte(1) == 27 then
      return nil, "attempt to load a binary chunk (the sandbox loads text only)"
    end
    return load(chunk, chunkname, "t", e or env)
  end

  env.string = copy_lib(string, { dump = true })
  env.table = copy_lib(table)
  env.math = copy_lib(math)
  env.utf8 = copy_lib(utf8)

  -- coroutines: each new one gets the sandbox's hook; a resume that caught a passed limit
  -- re-raises it.
  local co = copy_lib(coroutine)
  co.create = function(f)
    local thread = coroutine.create(f)
    c.sandbox_hook(thread)
    return thread
  end
  co.resume = function(thread, ...)
    return check(coroutine.resume(thread, ...))
  end
  co.wrap = function(f)
    local thread = co.create(f)
    return function(...)
      local r = table.pack(coroutine.resume(thread, ...))
      if not r[1] then error(r[2], 0) end
      return table.unpack(r, 2, r.n)
    end
  end
  env.coroutine = co

  -- the konane API a bot needs: a copy, without konane.core (whose Game table is the host's)
  local k = {
    VERSION = konane.VERSION,
    new = konane.new,
    square = konane.square,
    parse_square = konane.parse_square,
    variants = konane.variants,
    -- a copy: the host's variant tables stay as they are
    variant = function(name) return copy_data(konane.variant(name)) end,
    core = { clock = c.clock, VERSION = c.VERSION, MAX_SIDE = c.MAX_SIDE },
  }
  local bot_mod = require("konane.bot")
  k.bot = function(spec)
    if type(spec) == "table" then return bot_mod.validate(spec) end
    if type(spec) ~= "string" then error("konane.bot: spec string or table expected", 2) end
    local head, _, is_path = bot_mod.parse_spec(spec)
    if is_path or head == "human" then
      error("konane.bot: only built-in bots can be made in the sandbox (not '" .. spec .. "')", 2)
    end
    return bot_mod.new(spec)
  end
  env.konane = k

  env.require = function(modname)
    if modname == "konane" then return k end
    error("module '" .. tostring(modname) .. "' is not available in the sandbox", 2)
  end

  env._G = env
  return env
end

-- The limits of one call: the bot's own limits, lowered to 'time' when given.
local function call_limits(limits, time)
  local l = { time = limits.time, instructions = limits.instructions, memory = limits.memory }
  if time and time < math.huge and (not l.time or time < l.time) then l.time = time end
  return l
end

--- call(limits, fn, ...) -> true, results... | false, message, kind
-- fn(...) under the limits (see konane.core.sandbox_call); kind is "time", "instructions",
-- "memory", "interrupted" or "error".
function M.call(limits, fn, ...)
  local c = core()
  if not c.sandbox_call then
    return pcall(fn, ...)
  end
  return c.sandbox_call(limits, fn, ...)
end

-- The engine's hash tables are allocated in C, outside the memory budget: while a sandboxed
-- call runs, g:search and g:solve get their hash_mb option capped to the budget left (the
-- methods table is shared, so the originals are put back right after the call).
local function cap_tables(budget)
  local Game = core().Game
  if not budget or not Game then return function() end end
  local cap = math.max(1, math.floor(budget / (1024 * 1024)))
  local saved = {}
  for _, name in ipairs { "search", "solve" } do
    local orig = rawget(Game, name)
    if type(orig) == "function" then
      saved[name] = orig
      Game[name] = function(g, o, ...)
        if type(o) == "table" and math.type(rawget(o, "hash_mb")) and rawget(o, "hash_mb") > cap then
          local c = {}
          for k, v in next, o do c[k] = v end
          c.hash_mb = cap
          o = c
        end
        return orig(g, o, ...)
      end
    end
  end
  return function()
    for name, orig in pairs(saved) do Game[name] = orig end
  end
end

--- load_bot(path, options, limits) -> bot
-- Loads the bot of the Lua file at 'path' in a fresh sandbox and returns a host-side wrapper bot
-- whose calls all run under the limits (M.defaults, overridden by 'limits'). The file returns a
-- bot table ({name=, choose=...}), or a table with new(options) that makes one, or a function
-- (options) -> bot. 'options' come from the spec ("file.lua:depth=3"). Raises when the file
-- cannot be read, is bytecode, does not compile, fails, passes a limit while loading, or does
-- not give a bot.
function M.load_bot(path, options, limits)
  local lim = {}
  for key, v in pairs(M.defaults) do lim[key] = v end
  for key, v in pairs(limits or {}) do lim[key] = v end

  local f, err = io.open(path, "rb")
  if not f then error("cannot load bot '" .. path .. "': " .. tostring(err), 3) end
  local text = f:read("a")
  f:close()
  if text:byte(1) == 27 then
    error("cannot load bot '" .. path .. "': binary chunks are not accepted", 3)
  end
  local label = path:match("([^/\\]+)%.lua$") or path
  local env = M.env(label)
  local chunk, cerr = load(text, "@" .. path, "t", env)
  if not chunk then error("cannot load bot '" .. path .. "': " .. tostring(cerr), 3) end

  local function run(fn, ...)
    local r = table.pack(M.call(call_limits(lim), fn, ...))
    if not r[1] then
      if r[3] == "interrupted" then error("interrupted!", 0) end
      error("cannot load bot '" .. path .. "': " .. safe_string(r[2]), 4)
    end
    return table.unpack(r, 2, r.n)
  end
  -- the host reads the bot's tables raw only: a metamethod would run sandboxed code unguarded
  local inner = run(chunk)
  local has_options = next(options or {}) ~= nil
  if type(inner) == "function" then
    inner = run(inner, copy_data(options or {}))
  elseif type(inner) == "table" and type(rawget(inner, "new")) == "function"
      and (has_options or rawget(inner, "choose") == nil) then
    inner = run(rawget(inner, "new"), copy_data(options or {}))
  elseif has_options then
    error("cannot load bot '" .. path .. "': options given but the file has no new(options)", 3)
  end
  if type(inner) ~= "table" or type(rawget(inner, "choose")) ~= "function" then
    error("cannot load bot '" .. path .. "': the file must return a bot (a table with a choose function)", 3)
  end

  local wrapper = {
    name = type(rawget(inner, "name")) == "string" and rawget(inner, "name") or label,
    sandboxed = true,
    limits = lim,
    path = path,
    inner = inner,
  }
  -- One call into the bot under the limits; failures become sandbox errors with their kind.
  -- Memory kept from one call to the next counts against the budget of the next calls, so a
  -- bot cannot grow without bound a little at a time. When it nears the budget, a full
  -- collection gives back what it no longer holds.
  local retained = 0
  local function memory_limits(time)
    local l = call_limits(lim, time)
    if l.memory then
      if retained > l.memory / 2 and core().sandbox_call then
        local probe = { memory = 2 ^ 60 }
        core().sandbox_call(probe, collectgarbage, "collect")
        retained = math.max(0, retained + (probe.used_net or 0))
      end
      l.memory = math.max(1, l.memory - retained)
    end
    return l
  end
  local function guarded(method, time, ...)
    local fn = rawget(inner, method)
    local l = memory_limits(time)
    local restore = cap_tables(l.memory)
    local r = table.pack(M.call(l, fn, inner, ...))
    restore()
    retained = math.max(0, retained + (l.used_net or 0))
    wrapper.retained = retained
    if not r[1] then
      local kind = r[3]
      if kind == "interrupted" then error("interrupted!", 0) end
      error(sandbox_error(safe_string(r[2]), kind), 0)
    end
    return table.unpack(r, 2, r.n)
  end
  function wrapper.choose(_, game, clock)
    local t = clock and clock.time
    if t and lim.time and t > lim.time then
      clock = { time = lim.time, game_time = clock.game_time, ply = clock.ply }
    end
    local move, info = guarded("choose", t, game, clock)
    -- only plain data leaves the sandbox: a string move, and a table of simple info values
    if type(info) == "table" then
      local plain = {}
      for key, v in next, info do
        local tv = type(v)
        if type(key) == "string" and (tv == "number" or tv == "string" or tv == "boolean") then
          plain[key] = v
        end
      end
      info = plain
    elseif type(info) ~= "string" then
      info = nil
    end
    if type(move) == "table" then
      local m = rawget(move, "move")
      move = type(m) == "string" and m or move
    end
    return move, info
  end
  if type(rawget(inner, "new_game")) == "function" then
    function wrapper.new_game(_, info)
      guarded("new_game", nil, copy_data(info))
    end
  end
  if type(rawget(inner, "done")) == "function" then
    function wrapper.done(_, result)
      guarded("done", nil, copy_data(result))
    end
  end
  return wrapper
end

return M
