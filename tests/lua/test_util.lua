-- konane.util: clock, seeded generator, seed mixing, error messages, option checks (issue 10).
local util = require "konane.util"

local T = {}

T["rng is splitmix64: the published first output for seed 0"] = function()
  -- splitmix64 (Steele, Lea, Flood 2014; Vigna's reference code) from state 0 first gives
  -- 0xE220A8397B1DCDAF; rng() without argument returns its top 53 bits as a float in [0, 1)
  local r = util.rng(0)
  assert(r() == (0xE220A8397B1DCDAF >> 11) * 2.0 ^ -53)
  -- and with n: (z >> 1) % n + 1 on the second output 0x6E789E6AA1B965F4
  assert(r(1000) == (0x6E789E6AA1B965F4 >> 1) % 1000 + 1)
end

T["rng: the same seed gives the same sequence, others differ, values stay in range"] = function()
  local a, b, c = util.rng(42), util.rng(42), util.rng(43)
  local same, differ = true, false
  for _ = 1, 1000 do
    local x, y, z = a(7), b(7), c(7)
    assert(x >= 1 and x <= 7 and math.type(x) == "integer")
    same = same and x == y
    differ = differ or x ~= z
    local f = a()
    assert(f >= 0 and f < 1)
    b()
    c()
  end
  assert(same and differ)
  -- a float seed is scaled, not truncated: 0.5 and 0.25 give different sequences
  assert(util.rng(0.5)(1 << 40) ~= util.rng(0.25)(1 << 40))
end

T["mix depends on both numbers and stays a non-negative 53-bit integer"] = function()
  local seen = {}
  for a = 1, 20 do
    for b = 1, 20 do
      local h = util.mix(a, b)
      assert(math.type(h) == "integer" and h >= 0 and h < 1 << 53)
      assert(not seen[h], "collision")
      seen[h] = true
    end
  end
end

T["clip cuts long text between UTF-8 characters, from the start or keeping the end"] = function()
  local clip = util.clip
  local e = "\195\169" -- two bytes
  assert(clip("short", 5) == "short" and clip("", 0) == "")
  assert(clip("abcdef", 4) == "abcd..." and clip("abcdef", 4, true) == "...cdef")
  -- byte 4 starts no character: the cut moves back before it, the end's start forward past it
  assert(clip("a" .. e .. e, 4) == "a" .. e .. "...")
  assert(clip(e .. e .. "a", 4, true) == "..." .. e .. "a")
  assert(clip(e:rep(5), 5) == e:rep(2) .. "...")
end

T["now is a clock that never goes back"] = function()
  local t0 = util.now()
  local t1 = util.now()
  assert(type(t0) == "number" and t1 >= t0)
end

T["message strips the positions Lua adds, however often it was re-raised"] = function()
  local ok, err = pcall(error, "plain")
  assert(not ok and util.message(err) == "plain")
  ok, err = pcall(function() error("deep") end)
  assert(not ok)
  assert(tostring(err):find(":%d+: deep$") and util.message(err) == "deep", err)
  assert(util.message("a/b.lua:3: c.lua:40: unknown bot 'x'") == "unknown bot 'x'")
  assert(util.message('[string "return 1"]:1: oops') == "oops")
  assert(util.message("stdin:2: x") == "x")
  -- no position: unchanged, even with colons and digits inside
  assert(util.message("time: 3 s: too slow") == "time: 3 s: too slow")
  assert(util.message("illegal move 'd5:3': not a move") == "illegal move 'd5:3': not a move")
  assert(util.message(nil) == "nil")
end

T["check_opts accepts known keys and names an unknown one with the known list"] = function()
  assert(next(util.check_opts(nil, { "a" }, "f")) == nil)
  local o = { a = 1 }
  assert(util.check_opts(o, { "a", "b" }, "f") == o)
  assert(util.check_opts(o, { a = true }, "f") == o)
  local ok, err = pcall(util.check_opts, { a = 1, bb = 2 }, { "b", "a" }, "thing")
  assert(not ok and err:find("thing: unknown option 'bb' (known: a, b)", 1, true), err)
  ok, err = pcall(util.check_opts, { [1] = true }, { a = true }, "thing")
  assert(not ok and err:find("unknown option 'number'", 1, true), err)
  ok, err = pcall(util.check_opts, 5, { "a" }, "thing")
  assert(not ok and err:find("thing: options must be a table, got number", 1, true), err)
end

T["check_opts points the error at the caller of the checked function"] = function()
  local function api(opts) util.check_opts(opts, { "x" }, "api") end
  local ok, err = pcall(function() api { y = 1 } end) -- this line is the position
  local line = debug.getinfo(1, "l").currentline - 1
  assert(not ok and err:find(":" .. line .. ": api: unknown option 'y'", 1, true), err)
end

T["printable: control bytes and bytes that are not UTF-8 as \\xNN, C1 as \\u00NN, twice the same"] = function()
  local P = util.printable
  assert(P("k\u{14D}nane \u{1F600} plain") == "k\u{14D}nane \u{1F600} plain")
  assert(P("a\tb\r\nc") == "a b  c")
  assert(P("esc\27[31m\0\127") == "esc\\x1b[31m\\x00\\x7f", P("esc\27[31m\0\127"))
  -- a lone byte, an overlong '<', a surrogate, a cut sequence; valid text around them kept
  local s = P("\255x\192\188\237\160\128\u{14D}\226\130")
  assert(s == "\\xffx\\xc0\\xbc\\xed\\xa0\\x80\u{14D}\\xe2\\x82", s)
  assert(P("csi\u{9B}31m") == "csi\\u009b31m")
  for _, t in ipairs { "esc\27\255", "\u{9B}", "a\tb" } do assert(P(P(t)) == P(t)) end
  assert(P(42) == "42")
end

return T
