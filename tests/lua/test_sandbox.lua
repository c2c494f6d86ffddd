-- The bot sandbox: bots loaded from files run without io/os/package/debug, under limits on time,
-- instructions and memory; whatever they do, the host, the other bot and the record survive.
local konane = require "konane"
local core = konane.core

local T = {}

-- Write 'source' to a temporary .lua file and return its path.
local function bot_file(source)
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write(source)
  f:close()
  return path
end

-- Play 'source' (as Black) against random; returns the record. Removes the file.
local function play_file(source, opts, limits)
  local path = bot_file(source)
  local ok, bot = pcall(konane.bot, path, limits)
  os.remove(path)
  assert(ok, bot)
  opts = opts or {}
  opts.seed = opts.seed or 1
  local rec = konane.play(bot, "random", opts)
  -- the record is whole and konane still works
  assert(rec.winner and rec.result and rec.termination)
  konane.pgn.replay(rec)
  assert(#konane.new():moves() == 4)
  return rec
end

local function loses(rec, termination, reason)
  assert(rec.winner == "white", "the sandboxed bot should have lost: " .. tostring(rec.reason))
  assert(rec.termination == termination, "termination " .. tostring(rec.termination) .. ", reason " .. tostring(rec.reason))
  if reason then
    assert(tostring(rec.reason):find(reason), "reason '" .. tostring(rec.reason) .. "' should say '" .. reason .. "'")
  end
end

T["a well-behaved file bot plays whole games with the konane API"] = function()
  local rec = play_file([[
    local konane = require "konane"
    assert(konane.new and konane.square and konane.variants and konane.core.clock)
    assert(not konane.core.Game, "the host's method table stays out of reach")
    return { name = "first", choose = function(self, g, clock)
      assert(clock.time > 0 and clock.ply >= 1)
      return g:moves()[1], { note = "ok" }
    end }
  ]], { rows = 6, cols = 6 })
  assert(rec.termination == "normal", rec.reason)
  assert(rec.tags.Black == "first")
  assert(rec.comments[1]:find("note=ok"))
end

T["a bot that loops forever loses on time, pcall or coroutines do not save it"] = function()
  for _, src in ipairs {
    "return { choose = function() while true do end end }",
    "return { choose = function() while true do pcall(function() while true do end end) end end }",
    "return { choose = function() while true do xpcall(function() while true do end end, function(e) return e end) end end }",
    "return { choose = function() local f = coroutine.wrap(function() while true do end end) f() end }",
    "return { choose = function() local co = coroutine.create(function() while true do end end) while true do coroutine.resume(co) end end }",
    "return { choose = function() local t = {} for i = 1, 200 do t[i] = i end table.sort(t, function(a, b) while true do end end) end }",
  } do
    local t0 = core.clock()
    local rec = play_file(src, { time = 0.1 })
    assert(core.clock() - t0 < 1.5, "the game stopped soon after the limit")
    loses(rec, "time forfeit", "time limit")
  end
end

T["a bot calling a long C search is stopped at its deadline"] = function()
  local rec = play_file("return { choose = function(self, g) g:perft(40) return g:moves()[1] end }", { time = 0.1 })
  loses(rec, "time forfeit")
end

T["the instruction limit stops a bot even without a time limit"] = function()
  local rec = play_file("return { choose = function() local x = 0 while true do x = x + 1 end end }",
    {}, { instructions = 1e6, time = 30 })
  loses(rec, "error", "instruction limit")
end

T["a bot that allocates without bound loses, even if it catches the memory error"] = function()
  for _, src in ipairs {
    "return { choose = function() local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(100) .. i end end }",
    "return { choose = function() while true do pcall(function() local t = {} for i = 1, 1e9 do t[i] = {} end end) end end }",
    "return { choose = function() local s = 'x' while true do s = s .. s end end }",
  } do
    local rec = play_file(src, { time = 5 }, { memory = 8 * 1024 * 1024 })
    loses(rec, "error", "memory")
  end
  -- and the host can still allocate freely
  local big = {}
  for i = 1, 1e5 do big[i] = i end
  assert(#big == 1e5)
end

T["memory kept from move to move counts against the budget"] = function()
  -- 1 MB more kept at every move, 6 MB allowed: the bot runs out after a few moves
  local rec = play_file([[
    local keep = {}
    return { choose = function(self, g)
      keep[#keep + 1] = string.rep("k", 1024 * 1024 - 64) .. #keep
      return g:moves()[1]
    end }
  ]], { rows = 10, cols = 10, variant = "free" }, { memory = 6 * 1024 * 1024 })
  loses(rec, "error", "memory")
  assert(#rec.moves >= 4 and #rec.moves <= 16, #rec.moves .. " moves")
  -- garbage does not count: 2 MB of garbage per move is fine for a whole game
  rec = play_file([[
    return { choose = function(self, g)
      local junk = {}
      for i = 1, 16 do junk[i] = string.rep("j", 128 * 1024) .. i end
      return g:moves()[1]
    end }
  ]], { rows = 10, cols = 10, variant = "free" }, { memory = 6 * 1024 * 1024 })
  assert(rec.termination == "normal", rec.reason)
end

T["the engine's hash table of a sandboxed search is capped to the memory budget"] = function()
  local search = konane.core.Game.search
  local rec = play_file([[
    return { choose = function(self, g)
      local r = g:search { depth = 2, hash_mb = 60000 }
      return r.move
    end }
  ]], { rows = 6, cols = 6 }, { memory = 16 * 1024 * 1024 })
  assert(rec.termination == "normal", rec.reason)
  assert(konane.core.Game.search == search, "the method is restored")
end

T["the file system, the OS and the debug library are out of reach"] = function()
  for _, case in ipairs {
    { "return { choose = function() return io.open('/etc/passwd'):read('a') end }", "io" },
    { "return { choose = function() os.execute('true') end }", "os" },
    { "return { choose = function() return require('io') end }", "not available in the sandbox" },
    { "return { choose = function() return package.loaded end }", "package" },
    { "return { choose = function() return debug.getregistry() end }", "debug" },
    { "return { choose = function() return dofile('/etc/passwd') end }", "dofile" },
    { "return { choose = function() return loadfile('/etc/passwd') end }", "loadfile" },
    { "return { choose = function() return konane.bot('/tmp/x.lua') end }", "only built%-in bots" },
    { "return { choose = function() return require('konane').bot('human') end }", "only built%-in bots" },
    { "return { choose = function() setmetatable({}, {__gc = function() end}) end }", "__gc" },
  } do
    local src = case[1]
    if src:find("konane%.bot%(") then src = "local konane = require 'konane' " .. src end
    local rec = play_file(src)
    loses(rec, "error", case[2])
  end
end

T["bytecode is refused, in the file and from load"] = function()
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "wb"))
  f:write(string.dump(function() return { choose = function() end } end))
  f:close()
  local ok, err = pcall(konane.bot, path)
  os.remove(path)
  assert(not ok and err:find("binary"), err)
  local rec = play_file([[
    local f, err = load(string.char(27) .. "Lua")
    assert(f == nil and err:find("binary"))
    assert(string.dump == nil)
    local g = load("return 1 + 1")
    assert(g() == 2)
    return { choose = function(self, game) return game:moves()[1] end }
  ]])
  assert(rec.termination == "normal", rec.reason)
end

T["a sandboxed bot cannot change what the host shares with it"] = function()
  local rec = play_file([[
    local smt = getmetatable("")
    assert(smt == nil, "no string metatable")
    string.rep = nil               -- its own copy of string
    local konane = require "konane"
    konane.new = nil               -- its own copy of konane
    local v = konane.variant("brainking")
    v.first_removal = function() return {} end
    return { choose = function(self, g) assert(getmetatable(g) == nil) return g:moves()[1] end }
  ]])
  assert(rec.termination == "normal", rec.reason)
  assert(("ab"):rep(2) == "abab")
  assert(string.rep and konane.new)
  assert(#konane.new():moves() == 4, "brainking is untouched")
end

T["a bot whose tables have hostile metamethods cannot run code outside the limits"] = function()
  local rec = play_file([[
    local bot = setmetatable({}, { __index = function() while true do end end })
    rawset(bot, "choose", function(self, g)
      return setmetatable({}, { __tostring = function() while true do end end,
                               __index = function() while true do end end })
    end)
    return bot
  ]], { time = 0.2 })
  loses(rec, "bad answer")
  rec = play_file([[
    return { choose = function() error(setmetatable({}, { __tostring = function() while true do end end })) end }
  ]], { time = 0.2 })
  loses(rec, "error", "error object")
end

T["loading a file bot that fails, loops or returns no bot is an error at konane.bot"] = function()
  for _, case in ipairs {
    { "error('broken')", "broken" },
    { "while true do end", "limit" },
    { "return 42", "must return a bot" },
    { "return {}", "must return a bot" },
    { "this is not lua", "cannot load bot" },
  } do
    local path = bot_file(case[1])
    local ok, err = pcall(konane.bot, path, { time = 0.1 })
    os.remove(path)
    assert(not ok and tostring(err):find(case[2]), tostring(err))
  end
end

T["file bots take options through new(opts) from the spec"] = function()
  local path = bot_file([[
    return { new = function(opts)
      return { name = "nth" .. opts.n, choose = function(self, g) local m = g:moves() return m[math.min(opts.n, #m)] end }
    end }
  ]])
  local b = konane.bot(path .. ":n=2")
  assert(b.name == "nth2")
  local rec = konane.play(b, "greedy", { seed = 1 })
  os.remove(path)
  assert(rec.termination == "normal")
end

T["sandbox_call reports each kind of failure and restores its limits"] = function()
  local reg = debug.getregistry()
  local before = reg["konane.deadline"]
  local lim = { time = 0.05 }
  local ok, err, kind = core.sandbox_call(lim, function() while true do end end)
  assert(not ok and kind == "time" and err:find("time limit"))
  assert(lim.used_time >= 0.05 and lim.used_instructions > 0)
  assert(reg["konane.deadline"] == before and reg["konane.sandbox"] == nil)
  ok, err, kind = core.sandbox_call({ instructions = 1e5 }, function() while true do end end)
  assert(not ok and kind == "instructions")
  ok, err, kind = core.sandbox_call({ memory = 1e6 }, function() local t = {} for i = 1, 1e7 do t[i] = i end end)
  assert(not ok and kind == "memory" and err:find("memory limit"))
  ok, err, kind = core.sandbox_call({}, function() error("plain") end)
  assert(not ok and kind == "error" and err:find("plain"))
  local a, b, c = core.sandbox_call({ time = 1 }, function(x, y) return x + y, "two", nil end, 1, 2)
  assert(a == true and b == 3 and c == "two")
  -- nested calls never get more than the outer one has left
  ok, err, kind = core.sandbox_call({ time = 0.05 }, function()
    local r = table.pack(core.sandbox_call({ time = 10 }, function() while true do end end))
    return r[3]
  end)
  assert(ok and err == "time")
  -- the deadline reaches C searches
  ok, err, kind = core.sandbox_call({ time = 0.05 }, function() return konane.new():perft(40) end)
  assert(not ok and kind == "time")
  -- bad limits raise
  assert(not pcall(core.sandbox_call, { time = "soon" }, print))
  assert(not pcall(core.sandbox_call, nil, print))
end

return T
