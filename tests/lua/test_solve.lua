-- Solving as work units (konane.solve, scripts/solve.lua): unit-split results against the plain
-- solver, threads, kill -9 and resume, the lock, shards and merge, --verify catching a corrupted
-- unit, --status and bad arguments. Small boards keep each test to a second or two.
local konane = require "konane"
local S = require "konane.solve"
local core = konane.core

local H = dofile("tests/lua/helpers.lua")

local tmpdir, cleanup = H.tmpdir, H.cleanup

local read = H.read

local write = H.write

-- Runs scripts/solve.lua; returns the exit code and the combined output.
local function cli(args)
  local argv = { core.exe_path(), "scripts/solve.lua" }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  return H.run(argv)
end

local function lines(text)
  local t = {}
  for l in text:gmatch("[^\n]+") do t[#t + 1] = l end
  return t
end

local T = {}

T["unit-split solves agree with the plain solver on every board up to 5x6"] = function()
  for rows = 1, 5 do
    for cols = 1, 6 do
      local g = konane.new { rows = rows, cols = cols, variant = "free" }
      local want = g:solve {}
      for _, split in ipairs { 1, 3 } do
        local plan = S.build_plan(rows, cols, "free", split)
        local results = S.solve_here(plan, { hash_mb = 1 })
        local s = S.summary(plan, results)
        assert(s.root == want.win, ("%dx%d split %d: units say %s, the solver %s"):format(rows, cols,
          split, tostring(s.root), tostring(want.win)))
        assert(s.pending == 0)
      end
    end
  end
end

T["a plan whose transpositions point back to shallower nodes is read and evaluated right"] = function()
  -- A multiple jump removes several pieces in one ply: on 3x8 free a position met at one depth
  -- comes back as the child of a deeper node with a larger id. Every node must still get the
  -- value its children give it, through the plan text too.
  local plan = S.build_plan(3, 8, "free", 7)
  local back = 0
  for id, node in ipairs(plan.nodes) do
    for _, c in ipairs(node.children or {}) do if c < id then back = back + 1 end end
  end
  assert(back > 0, "3x8 free split 7 should have a child with a smaller id than its parent")
  local again = assert(S.parse_plan(S.plan_text(plan), "3x8"))
  local results = {}
  for _, id in ipairs(again.units) do
    local r = S.solve_unit(again.nodes[id].fen, again.variant, { hash_mb = 1 })
    results[id] = { win = r.win, nodes = r.nodes, time = r.time }
  end
  local value = S.evaluate(again, results)
  for id, node in ipairs(again.nodes) do
    if node.kind == "node" then
      local want = false
      for _, c in ipairs(node.children) do
        assert(value[c] ~= nil, ("node %d: child %d has no value"):format(id, c))
        want = want or not value[c]
      end
      assert(value[id] == want, ("node %d: value %s, its children say %s"):format(id,
        tostring(value[id]), tostring(want)))
    end
  end
  local s = S.summary(again, results)
  assert(s.root == konane.new { rows = 3, cols = 8, variant = "free" }:solve {}.win)
  local bad = S.plan_text(plan):gsub("(\nnode 2 1 node [^|]*| %S+=)%d+", "%11")
  local p2, err = S.parse_plan(bad, "cyclic")
  assert(not p2 and err:find("its own descendant"), tostring(err))
end

T["unit-split solves and threads agree with the plain solver on late 8x8 positions"] = function()
  local seed, wins = 11, 0
  local function rnd(n)
    seed = (seed * 6364136223846793005 + 1442695040888963407)
    return ((seed >> 33) % n) + 1
  end
  for _ = 1, 12 do
    local g = konane.new {}
    while #g:moves() > 0 and g:count("black") + g:count("white") > 26 do
      local m = g:moves()
      g:play(m[rnd(#m)])
    end
    if #g:moves() > 0 then
      local fen = g:fen()
      local want = konane.new { fen = fen }:solve {}
      local two = konane.new { fen = fen }:solve { threads = 2 }
      assert(two.win == want.win and two.move == want.move, fen)
      local plan = S.build_plan(nil, nil, "brainking", 2, fen)
      local s = S.summary(plan, S.solve_here(plan, { hash_mb = 1 }))
      assert(s.root == want.win, fen)
      if want.win then
        wins = wins + 1
        -- the plan's winning move is a proved win too
        local h = konane.new { fen = fen }
        h:play(s.best)
        assert(h:solve {}.win == false, fen .. " " .. s.best)
      end
    end
  end
  assert(wins > 0 and wins < 12, "both outcomes should occur: " .. wins)
end

T["g:solve{table=} keeps proved positions for the next solve; table and hash_mb exclude each other"] = function()
  local t = konane.hashtable(4)
  local g = konane.new { rows = 5, cols = 6, variant = "free" }
  local a = g:solve { table = t }
  local b = g:solve { table = t }
  assert(a.win == b.win and a.move == b.move)
  assert(b.nodes < a.nodes / 10, ("second solve %d nodes, first %d"):format(b.nodes, a.nodes))
  local c = g:solve { table = t, threads = 2 }
  assert(c.win == a.win and c.move == a.move)
  local ok, err = pcall(g.solve, g, { table = t, hash_mb = 4 })
  assert(not ok and tostring(err):find("exclude each other"), tostring(err))
  ok, err = pcall(g.solve, g, { table = {} })
  assert(not ok and tostring(err):find("konane.hashtable"), tostring(err))
  ok, err = pcall(g.solve, g, { threads = 0 })
  assert(not ok and tostring(err):find("threads"), tostring(err))
end

T["a run writes plan, journal and proof; status reads them; the result matches the solver"] = function()
  local dir = tmpdir() .. "/run"
  local code, out = cli { "--size", "5x5", "--variant", "free", "--split", "3", "--out", dir,
    "--workers", "2", "--hash-mb", "1" }
  assert(code == 0, out)
  assert(out:find("result: the first player %(Black%) loses"), out)
  local want = konane.new { rows = 5, cols = 5, variant = "free" }:solve {}
  assert(want.win == false)
  local proof = read(dir .. "/proof.txt")
  assert(proof:find("root: the side to move %(Black%) loses"), proof)
  assert(proof:find("unit nodes=%d+"), proof)
  local c2, st = cli { "--status", dir }
  assert(c2 == 0 and st:find("units: %d+ proved, 0 still needed"), st)
  -- a second run on the same directory without --resume is refused as a bad argument (2), as
  -- tournament.lua refuses a directory that holds a tournament, and nothing is written
  local journal = read(dir .. "/journal.txt")
  local c3, o3 = cli { "--size", "5x5", "--variant", "free", "--split", "3", "--out", dir }
  assert(c3 == 2 and o3:find("already holds a solve") and not o3:find("traceback"), o3)
  -- a resume with other settings is refused the same way
  local c4, o4 = cli { "--size", "5x5", "--variant", "free", "--split", "2", "--out", dir, "--resume" }
  assert(c4 == 2 and o4:find("planned with split 3"), o4)
  local c5, o5 = cli { "--size", "4x5", "--variant", "free", "--split", "3", "--out", dir, "--resume" }
  assert(c5 == 2 and o5:find("planned with rows 5, not 4"), o5)
  assert(read(dir .. "/journal.txt") == journal)
  cleanup()
end

-- numbers too long for an integer or malformed in a plan or journal (a damaged file, an edit)
-- name their file and line; they were a Lua traceback from a format or an arithmetic on nil
T["numbers in plan.txt and journal.txt that do not fit are named with their line"] = function()
  local dir = tmpdir() .. "/run"
  local code, out = cli { "--size", "4x5", "--variant", "free", "--split", "3", "--out", dir,
    "--hash-mb", "1" }
  assert(code == 0, out)
  local plan, journal = read(dir .. "/plan.txt"), read(dir .. "/journal.txt")
  local function status_fails(file, text, want)
    write(dir .. "/" .. file, text)
    local c, o = cli { "--status", dir }
    assert(c ~= 0 and o:find(want) and not o:find("traceback"), o)
    write(dir .. "/plan.txt", plan)
    write(dir .. "/journal.txt", journal)
  end
  local first = journal:match("^[^\n]*")
  local function line1(pattern, repl)
    local l, k = first:gsub(pattern, repl)
    assert(k == 1, first)
    return (journal:gsub(first:gsub("%p", "%%%0"), (l:gsub("%%", "%%%%")), 1))
  end
  status_fails("journal.txt", line1("time=[%d.]+", "time=0..1"), "journal.txt:1: bad journal line")
  status_fails("journal.txt", line1("nodes=%d+", "nodes=99999999999999999999"),
    "journal.txt:1: bad journal line")
  status_fails("journal.txt", line1("^unit %d+", "unit 922337203685477580813"),
    "journal.txt:1: bad journal line")
  local child, k = plan:gsub("=(%d+)", "=922337203685477580813", 1)
  assert(k == 1)
  status_fails("plan.txt", child, "plan.txt:%d+: bad child number 922337203685477580813")
  local rows = plan:gsub("\nrows 4\n", "\nrows 4.5\n", 1)
  status_fails("plan.txt", rows, "plan.txt:%d+: bad rows line")
  local c, o = cli { "--status", dir }
  assert(c == 0, o)
  cleanup()
end

T["kill -9 in the middle, then --resume: same result, no unit twice"] = function()
  local dir = tmpdir() .. "/run"
  local argv = { core.exe_path(), "scripts/solve.lua", "--size", "6x6", "--variant", "brainking",
    "--split", "4", "--out", dir, "--hash-mb", "1" }
  local p = assert(core.spawn(argv, { pgroup = true }))
  local journal = dir .. "/journal.txt"
  -- (60 s in which the run could work: a starved test run waits longer)
  local expired = H.patience(60, p:pid(), true)
  local killed_at
  while not expired() do
    local f = io.open(journal, "rb")
    local n = f and #lines(f:read("a")) or 0
    if f then f:close() end
    if n >= 1 then
      p:kill(9)
      killed_at = n
      break
    end
    if p:wait() then break end
    core.poll({}, 0.02)
  end
  p:wait(true)
  assert(killed_at, "the run ended before it could be killed")
  -- the lock went with the process: a resume takes it and finishes
  local code, out = cli { "--resume", "--out", dir, "--hash-mb", "1" }
  assert(code == 0, out)
  local want = konane.new { rows = 6, cols = 6, variant = "brainking" }:solve { hash_mb = 64 }
  assert(out:find("result: the first player %(Black%) " .. (want.win and "wins" or "loses")), out)
  local seen, n = {}, 0
  for _, l in ipairs(lines(read(journal))) do
    local id = assert(l:match("^unit (%d+) "), l)
    assert(not seen[id], "unit " .. id .. " is in the journal twice")
    seen[id] = true
    n = n + 1
  end
  assert(n > killed_at, "the resume solved nothing")
  cleanup()
end

T["a torn last journal line is dropped on resume"] = function()
  local dir = tmpdir() .. "/run"
  local code, out = cli { "--size", "5x5", "--variant", "free", "--split", "3", "--out", dir,
    "--max-units", "1" }
  assert(code == 0, out)
  local j = read(dir .. "/journal.txt")
  assert(#lines(j) == 1)
  write(dir .. "/journal.txt", j .. "unit 12 win nodes=3")
  code, out = cli { "--resume", "--out", dir }
  assert(code == 0, out)
  for _, l in ipairs(lines(read(dir .. "/journal.txt"))) do assert(l:match(" fen="), l) end
  cleanup()
end

T["a second process on the same directory is refused while the first holds it"] = function()
  local dir = tmpdir() .. "/run"
  assert(cli { "--size", "4x4", "--variant", "free", "--split", "2", "--out", dir } == 0)
  local lf = assert(io.open(dir .. "/lock", "a"))
  assert(core.lock(lf))
  local code, out = cli { "--resume", "--out", dir }
  lf:close()
  assert(code == 1 and out:find("in use by another solve process"), out)
  cleanup()
end

-- Solves 5x5 free split at 3 plies as two shards, in base/s1 and base/s2.
local function two_shards(base)
  for i = 1, 2 do
    local code, out = cli { "--size", "5x5", "--variant", "free", "--split", "3", "--out",
      base .. "/s" .. i, "--shard", i .. "/2" }
    assert(code == 0, out)
  end
end

T["shards merge into the whole result; a disagreement between shards is reported"] = function()
  local base = tmpdir()
  two_shards(base)
  local code, out = cli { "--merge", base .. "/s1", base .. "/s2", "--out", base .. "/all" }
  assert(code == 0, out)
  assert(out:find("result: the first player %(Black%) loses"), out)
  assert(read(base .. "/all/proof.txt"):find("root: the side to move %(Black%) loses"))
  -- the same unit proved in both shards with different results
  local j1 = lines(read(base .. "/s1/journal.txt"))
  local id, wl, rest = j1[1]:match("^unit (%d+) (%a+) (.*)$")
  local other = ("unit %s %s %s\n"):format(id, wl == "win" and "loss" or "win", rest)
  write(base .. "/s2/journal.txt", read(base .. "/s2/journal.txt") .. other)
  code, out = cli { "--merge", base .. "/s1", base .. "/s2" }
  assert(code == 1 and out:find("unit " .. id .. ": "), out)
  cleanup()
end

T["a run directory with CRLF line ends and a byte order mark reads the same (git autocrlf)"] = function()
  -- the journal is the file worth keeping under version control; a checkout by git with
  -- autocrlf gave "unit N has another position in the plan" (its position text ended in CR)
  local base = tmpdir()
  two_shards(base)
  local s1 = base .. "/s1"
  local code, want = cli { "--status", s1 }
  assert(code == 0, want)
  for _, f in ipairs { "/plan.txt", "/journal.txt" } do
    write(s1 .. f, "\239\187\191" .. read(s1 .. f):gsub("\n", "\r\n"))
  end
  local out
  code, out = cli { "--status", s1 }
  assert(code == 0 and out == want, out)
  code, out = cli { "--verify", s1 }
  assert(code == 0 and out:find("all agree"), out)
  -- merged with a shard written as usual: one plan
  code, out = cli { "--merge", s1, base .. "/s2" }
  assert(code == 0 and out:find("result: the first player %(Black%) loses"), out)
  -- the journal alone resumes (the plan rebuilt) and the run goes on appending to it
  os.remove(s1 .. "/plan.txt")
  code, out = cli { "--resume", "--size", "5x5", "--variant", "free", "--split", "3", "--out", s1 }
  assert(code == 0 and out:find("result: the first player %(Black%) loses"), out)
  cleanup()
end

T["--merge into a directory keeps the units proved there and respects its lock"] = function()
  local base = tmpdir()
  two_shards(base)
  local n1 = #lines(read(base .. "/s1/journal.txt"))
  local n2 = #lines(read(base .. "/s2/journal.txt"))
  assert(n1 > 0 and n2 > 0)
  -- merging s2 into s1: s1's own units stay
  local code, out = cli { "--merge", base .. "/s2", "--out", base .. "/s1" }
  assert(code == 0, out)
  assert(#lines(read(base .. "/s1/journal.txt")) == n1 + n2, read(base .. "/s1/journal.txt"))
  assert(out:find("result: the first player %(Black%) loses"), out)
  -- a unit of the target proved with the other result: refused, the target untouched
  local before = read(base .. "/s1/journal.txt")
  local j2 = lines(read(base .. "/s2/journal.txt"))
  local id, wl, rest = j2[1]:match("^unit (%d+) (%a+) (.*)$")
  local flipped = ("unit %s %s %s\n"):format(id, wl == "win" and "loss" or "win", rest)
  os.execute("cp -r " .. base .. "/s2 " .. base .. "/s3")
  write(base .. "/s3/journal.txt", flipped)
  code, out = cli { "--merge", base .. "/s3", "--out", base .. "/s1" }
  assert(code == 1 and out:find("unit " .. id .. ": ") and not out:find("traceback"), out)
  assert(read(base .. "/s1/journal.txt") == before)
  -- another plan: one line, exit 1
  assert(cli { "--size", "4x4", "--variant", "free", "--split", "2", "--out", base .. "/o" } == 0)
  code, out = cli { "--merge", base .. "/s2", "--out", base .. "/o" }
  assert(code == 1 and out:find("already holds another plan") and not out:find("traceback"), out)
  -- a directory whose lock is held: refused
  local lf = assert(io.open(base .. "/s1/lock", "a"))
  assert(core.lock(lf))
  code, out = cli { "--merge", base .. "/s2", "--out", base .. "/s1" }
  lf:close()
  assert(code == 1 and out:find("in use by another solve process"), out)
  assert(read(base .. "/s1/journal.txt") == before)
  cleanup()
end

T["--verify passes on a good run, accepts any winning move, catches a wrong result or move"] = function()
  local dir = tmpdir() .. "/run"
  assert(cli { "--size", "4x5", "--variant", "free", "--split", "3", "--out", dir } == 0)
  local code, out = cli { "--verify", dir }
  assert(code == 0 and out:find("all agree"), out)
  code, out = cli { "--verify", dir, "--sample", "1", "--seed", "5" }
  assert(code == 0 and out:find("1 units solved again"), out)
  local j = read(dir .. "/journal.txt")
  local first = j:match("^[^\n]*")
  local id = first:match("^unit (%d+)")
  local flipped = first:gsub(" win ", " LOSS "):gsub(" loss ", " win "):gsub(" LOSS ", " loss ")
  write(dir .. "/journal.txt", (j:gsub(first:gsub("%p", "%%%0"), (flipped:gsub("%%", "%%%%")), 1)))
  code, out = cli { "--verify", dir }
  assert(code == 1, out)
  assert(out:find("unit " .. id .. ": the journal says"), out)
  -- win units: the recorded move replaced by an illegal one, by a legal losing one, and by
  -- another winning move (a re-solve with another table or thread count may find that one)
  local function with_move(line, move)
    local moved = line:gsub("move=%S+", "move=" .. move)
    write(dir .. "/journal.txt", (j:gsub(line:gsub("%p", "%%%0"), (moved:gsub("%%", "%%%%")), 1)))
  end
  local illegal, losing, other
  for line in j:gmatch("[^\n]+") do
    local uid, fen = line:match("^unit (%d+) win .* fen=(.+)$")
    if uid then
      illegal = illegal or line
      local g = konane.new { fen = fen, variant = "free" }
      local rec = line:match("move=(%S+)")
      for _, m in ipairs(g:moves()) do
        local c = g:clone()
        c:play(m)
        local w = c:solve {}.win
        if w and not losing then losing = { line, m } end
        if not w and m ~= rec and not other then other = { line, m } end
      end
    end
  end
  assert(illegal and losing and other, "the 4x5 split 3 run has the win units this test needs")
  local bad
  for _, m in ipairs { "a1-a3", "a3-a1", "b1-b3", "b3-b1" } do
    if not konane.new({ fen = illegal:match("fen=(.+)$"), variant = "free" }):legal(m) then
      bad = m
      break
    end
  end
  with_move(illegal, bad)
  code, out = cli { "--verify", dir }
  assert(code == 1, out)
  assert(out:find("unit " .. illegal:match("^unit (%d+)") .. ": the journal's move "
    .. bad:gsub("%p", "%%%0") .. " is not legal"), out)
  with_move(losing[1], losing[2])
  code, out = cli { "--verify", dir }
  assert(code == 1, out)
  assert(out:find("unit " .. losing[1]:match("^unit (%d+)") .. ": the journal says win with "
    .. losing[2]:gsub("%p", "%%%0") .. ", but the opponent wins after it"), out)
  with_move(other[1], other[2])
  code, out = cli { "--verify", dir }
  assert(code == 0 and out:find("all agree"), out)
  -- proof.txt's tree lines: a node's value flipped, a line dropped
  write(dir .. "/journal.txt", j)
  local proof = read(dir .. "/proof.txt")
  local n, line, pad, head, tag = 0
  for l in proof:gmatch("[^\n]*") do
    n = n + 1
    pad, head, tag = l:match("^(  +)(%S+ #%d+) (%a+)")
    if tag == "win" or tag == "loss" then line = n break end
  end
  assert(line, proof)
  local flip = tag == "win" and "loss" or "win"
  write(dir .. "/proof.txt", (proof:gsub("\n" .. pad .. head:gsub("%p", "%%%0") .. " " .. tag,
    "\n" .. pad .. head .. " " .. flip, 1)))
  code, out = cli { "--verify", dir }
  assert(code == 1, out)
  assert(out:find("proof.txt line " .. line .. " says '" .. head:gsub("%p", "%%%0") .. " "
    .. flip .. "' but the journal gives '" .. head:gsub("%p", "%%%0") .. " " .. tag .. "'"), out)
  write(dir .. "/proof.txt", (proof:gsub("\n[^\n]*$", "\n"):gsub("\n[^\n]*\n$", "\n")))
  code, out = cli { "--verify", dir }
  assert(code == 1 and out:find("proof.txt has %d+ tree lines, the journal's tree %d+"), out)
  -- no claim to check is a failed check, not a pass: proof.txt gone, or its root line
  os.remove(dir .. "/proof.txt")
  code, out = cli { "--verify", dir }
  assert(code == 1 and out:find("no proof.txt", 1, true), out)
  write(dir .. "/proof.txt", (proof:gsub("\nroot: [^\n]*", "\nroot claim lost", 1)))
  code, out = cli { "--verify", dir }
  assert(code == 1 and out:find("proof.txt has no 'root:' line", 1, true), out)
  write(dir .. "/proof.txt", proof)
  code, out = cli { "--verify", dir }
  assert(code == 0 and out:find("all agree"), out)
  cleanup()
end

T["bad arguments exit 2 with a clear message"] = function()
  local cases = {
    { { "--size", "9x9x", "--split", "2", "--out", "x" }, "--size wants" },
    { { "--size", "5x5", "--split", "-1", "--out", "x" }, "--split wants" },
    { { "--size", "5x5", "--split", "2" }, "--out DIR is required" },
    { { "--size", "5x5", "--out", "x" }, "--split is required" },
    { { "--size", "5x5", "--split", "2", "--out", "x", "--shard", "3/2" }, "--shard wants" },
    { { "--size", "5x5", "--split", "2", "--out", "x", "--shard", "1/100000000000000000000" }, "--shard wants" },
    { { "--size", "5x5", "--split", "2", "--out", "x", "--workers", "0" }, "--workers wants" },
    { { "--size", "5x5", "--split", "2", "--out", "x", "--variant", "nosuch" }, "nosuch" },
    { { "--frobnicate" }, "unknown option '--frobnicate'" },
    { { "--status" }, "--status needs a value" },
    { { "--merge" }, "--merge needs at least one directory" },
    { { "--verify", "x", "--split", "3" }, "--verify takes only" },
  }
  for _, c in ipairs(cases) do
    local code, out = cli(c[1])
    assert(code == 2, table.concat(c[1], " ") .. ": exit " .. tostring(code) .. ": " .. out)
    assert(out:find(c[2], 1, true), table.concat(c[1], " ") .. ": " .. out)
  end
  -- a bad position is refused before anything is written to --out
  local tmp = os.tmpname()
  os.remove(tmp)
  for _, fen in ipairs { "xo/ox q", "", "xx/xx b" } do
    local code, out = cli { "--fen", fen, "--split", "1", "--out", tmp }
    assert(code == 2 and out:find("bad position text", 1, true), fen .. ": exit " .. tostring(code) .. ": " .. out)
    assert(not io.open(tmp .. "/lock"), fen .. ": " .. tmp .. " was written")
  end
  -- --resume of a directory that holds no run says so (a bad value: exit 2) and leaves nothing
  -- behind
  local rcode, rout = cli { "--resume", "--out", tmp }
  assert(rcode == 2 and rout:find("holds no solve to resume", 1, true), rout)
  assert(not io.open(tmp .. "/lock"), "--resume made " .. tmp)
end

T["a directory argument that cannot be what it names exits 2 before anything is written"] = function()
  local base = tmpdir()
  local file = base .. "/file"
  write(file, "keep me\n")
  local empty = base .. "/empty"
  assert(os.execute("mkdir " .. H.sh_quote(empty)))
  local function refused(args, want)
    local code, out = cli(args)
    local what = table.concat(args, " ") .. ": exit " .. tostring(code) .. ": " .. out
    assert(code == 2, what)
    assert(out:find(want, 1, true), what)
    -- one message of solve.lua's own, not mkdir's and not a traceback
    assert(not out:find("mkdir:", 1, true) and not out:find("traceback"), what)
    assert(read(file) == "keep me\n", what)
  end
  -- --out naming a file, for a new run and for a merge (a solved run to merge from)
  refused({ "--size", "3x3", "--variant", "free", "--split", "1", "--out", file },
    "--out " .. file .. ": a file, not a directory")
  local run = base .. "/run"
  assert(cli { "--size", "3x3", "--variant", "free", "--split", "1", "--out", run } == 0)
  refused({ "--merge", run, "--out", file }, "--out " .. file .. ": a file, not a directory")
  -- a name starting with '-' is an option in the wrong place, not a directory to make
  local odd = "-konane-test-dir"
  local code, out = cli { "--size", "3x3", "--variant", "free", "--split", "1", "--out", odd }
  local made = io.open(odd .. "/plan.txt")
  if made then
    made:close()
    os.execute("rm -rf -- " .. H.sh_quote(odd))
  end
  assert(code == 2 and out:find("--out wants a directory, not '" .. odd .. "'", 1, true), out)
  assert(not made, "--out " .. odd .. " made a directory")
  refused({ "--status", "-x" }, "--status wants a directory, not '-x'")
  refused({ "--verify", "-x" }, "--verify wants a directory, not '-x'")
  refused({ "--merge", "-x" }, "--merge needs at least one directory")
  -- --status, --verify, --merge of a directory holding no solve: a bad value (exit 2), not a
  -- failed check (exit 1)
  for _, mode in ipairs { "--status", "--verify", "--merge" } do
    refused({ mode, base .. "/nonexistent" }, base .. "/nonexistent: no such directory")
    refused({ mode, empty }, empty .. " holds no solve (no plan.txt)")
    refused({ mode, file }, file .. " is a file, not a solve directory")
  end
  refused({ "--merge", run, empty }, empty .. " holds no solve (no plan.txt)")
  -- a plan that is there but broken is an error of the run: exit 1, naming the file
  write(empty .. "/plan.txt", "not a plan\n")
  code, out = cli { "--status", empty }
  assert(code == 1 and out:find("not a konane solve plan", 1, true), out)
  cleanup()
end

T["a journal alone resumes when the plan's options are given again (--size or --fen)"] = function()
  local k = konane.new { rows = 4, cols = 5, variant = "free" }
  k:play(k:moves()[1])
  k:play(k:moves()[1])
  local fen = k:fen()
  for _, how in ipairs { { "--size", "4x5" }, { "--fen", fen } } do
    local dir = tmpdir() .. "/run"
    local args = { how[1], how[2], "--variant", "free", "--split", "2", "--out", dir }
    local code, out = cli(args)
    assert(code == 0, out)
    local journal, want = read(dir .. "/journal.txt"), out:match("result: [^\n]*")
    assert(journal ~= "" and want, out)
    os.remove(dir .. "/plan.txt")
    os.remove(dir .. "/proof.txt")
    args[#args + 1] = "--resume"
    code, out = cli(args)
    assert(code == 0, how[1] .. ": exit " .. tostring(code) .. ": " .. out)
    assert(out:match("result: [^\n]*") == want, out)
    assert(read(dir .. "/journal.txt") == journal, "the resume solved a unit again")
    assert(read(dir .. "/plan.txt") ~= "", "the plan was not rebuilt")
  end
  cleanup()
end

return T
