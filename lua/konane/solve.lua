-- konane.solve: solving a board as resumable work units (scripts/solve.lua is its command line).
--
-- The tree above a split depth is expanded once into a plan (DIR/plan.txt): every position is a
-- node keyed by its canonical position text (the least image under the board's symmetries), so
-- transpositions and symmetric positions are one node. Nodes at the split depth are the units;
-- each is solved exactly by g:solve in a worker process and appended to DIR/journal.txt (one line,
-- fsynced) the moment it is proved. The root result follows by minimax over the plan. Units are
-- handed out in depth-first order of the plan (children ordered like the solver: fewest replies
-- first), and a unit no longer needed (an ancestor is decided on every path from the root) is
-- skipped, not lost: a later run still has it in the plan.
local core = require("konane.core")
local files = require("konane.tournament.files")

local M = {}

M.PLAN_FILE = "plan.txt"
M.JOURNAL_FILE = "journal.txt"
M.PROOF_FILE = "proof.txt"
M.LOCK_FILE = "lock"
local PLAN_MAGIC = "konane-solve-plan 1"

local function konane() return require("konane") end

-- A whole number read from a plan, journal or worker line, or nil: twenty digits do not fit in
-- an integer (tonumber gives a float, and %d in a message then raises an error)
local function int(s) return s and math.tointeger(tonumber(s)) end

-- ---------------------------------------------------------------------------------------------
-- Files

local function file_exists(path)
  local f = io.open(path, "r")
  if f then f:close() return true end
  return false
end

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local text = f:read("a")
  f:close()
  return text
end

-- Writes 'text' to 'path' through a temporary file, fsync and rename: readers see the old file or
-- the whole new one. Raises on any failure, naming the file.
local function write_atomic(path, text)
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "wb")
  if not f then error("cannot write " .. tmp .. ": " .. tostring(err), 0) end
  local ok, werr = f:write(text)
  if ok then ok, werr = f:flush() end
  if ok and core.fsync then ok, werr = core.fsync(f) end
  f:close()
  if not ok then
    os.remove(tmp)
    error("cannot write " .. tmp .. ": " .. tostring(werr), 0)
  end
  local rok, rerr = os.rename(tmp, path)
  if not rok then error("cannot rename " .. tmp .. " to " .. path .. ": " .. tostring(rerr), 0) end
end

-- Makes 'dir' and its parents: true, or nil and "cannot create directory DIR: reason" (mkdir's
-- own complaint is caught, not left on stderr).
local function mkdir(dir)
  local ok, err = pcall(files.mkdir, dir)
  if not ok then return nil, tostring(err) end
  return true
end

local ENOENT, ENOTDIR = 2, 20 -- errno values, the same on Linux, the BSDs and macOS

-- Why 'dir' holds no solve to read, or nil when it may hold one: it does not exist, it is a file,
-- or it has no plan. A plan that is there but cannot be read or parsed is not "no solve": the
-- loaders report it (an error, not a bad argument).
function M.no_solve(dir)
  local f, _, code = io.open(dir .. "/" .. M.PLAN_FILE, "rb")
  if f then
    f:close()
    return nil
  end
  if code == ENOTDIR then return dir .. " is a file, not a solve directory" end
  if code ~= ENOENT then return nil end
  if not files.is_dir(dir) then return dir .. ": no such directory" end
  return dir .. " holds no solve (no " .. M.PLAN_FILE .. ")"
end

-- Whether --resume can continue the run in 'dir': true when it holds a plan, or a journal and
-- the options to rebuild the plan from (o.rows or o.fen, and o.split); else nil and a message.
function M.resumable(dir, o)
  if file_exists(dir .. "/" .. M.PLAN_FILE)
    or (file_exists(dir .. "/" .. M.JOURNAL_FILE) and (o.rows or o.fen) and o.split) then
    return true
  end
  return nil, dir .. " holds no solve to resume (no " .. M.PLAN_FILE .. "; with only a journal, "
    .. "give --size (or --fen), --variant and --split to rebuild the plan)"
end

-- Why a resume with options 'o' may not continue the plan of 'dir': a setting given that differs
-- from the plan's; nil when none does.
local function settings_differ(dir, plan, o)
  for _, key in ipairs { "rows", "cols", "variant", "split" } do
    if o[key] ~= nil and o[key] ~= plan[key] then
      return ("%s was planned with %s %s, not %s"):format(dir, key, tostring(plan[key]),
        tostring(o[key]))
    end
  end
  return nil
end

-- Why a run with options 'o' may not use 'dir', which holds a plan: a new solve there (no
-- --resume) or a resume with other settings; nil when it may, when there is no plan, or when the
-- plan cannot be read (the run reports that as an error of its own). For the command line, so
-- that these are refused as bad arguments before any work; run() checks the same.
function M.plan_conflict(dir, o)
  if not file_exists(dir .. "/" .. M.PLAN_FILE) then return nil end
  if not o.resume then
    return dir .. " already holds a solve; continue it with --resume --out " .. dir
  end
  local plan = M.load_plan(dir)
  return plan and settings_differ(dir, plan, o)
end

-- ---------------------------------------------------------------------------------------------
-- Positions

-- The canonical text of the position of 'g': the least of its symmetric images.
local function canonical(g)
  local best
  for _, t in ipairs(g:symmetries()) do
    if not best or t < best then best = t end
  end
  return best
end

-- Moves of 'g' in the solver's order: fewest replies for the opponent first, then the move
-- generator's order (stable).
local function ordered_moves(g)
  local moves, key = g:moves(), {}
  for i, m in ipairs(moves) do
    g:play(m)
    key[m] = g:nmoves() * 1000 + i
    g:undo()
  end
  table.sort(moves, function(a, b) return key[a] < key[b] end)
  return moves
end

-- ---------------------------------------------------------------------------------------------
-- The plan

-- Builds the plan of 'rows' x 'cols' 'variant' split at 'split' plies (from the position text
-- 'fen' when given, else from the start). Returns
-- { rows, cols, variant, split, nodes = {[id] = node}, root = 1 } where a node is
-- { id, depth, fen, kind = "node"|"unit"|"end", moves = {...}, children = {ids} }.
function M.build_plan(rows, cols, variant, split, fen)
  local k = konane()
  local start = k.new { rows = not fen and rows or nil, cols = not fen and cols or nil,
                        variant = variant, fen = fen }
  rows, cols = start:rows(), start:cols()
  local plan = { rows = rows, cols = cols, variant = start:variant(), split = split, nodes = {} }
  local byfen, queue = {}, {}
  local function add(text, depth)
    local id = #plan.nodes + 1
    local node = { id = id, depth = depth, fen = text }
    plan.nodes[id] = node
    byfen[text] = id
    queue[#queue + 1] = id
    return id
  end
  add(start:fen(), 0)
  local qi = 1
  while qi <= #queue do
    local node = plan.nodes[queue[qi]]
    qi = qi + 1
    local g = k.new { fen = node.fen, variant = plan.variant }
    if #g:moves() == 0 then
      node.kind = "end"
    elseif node.depth >= split then
      node.kind = "unit"
    else
      node.kind = "node"
      node.moves, node.children = ordered_moves(g), {}
      for i, m in ipairs(node.moves) do
        g:play(m)
        local child = canonical(g)
        g:undo()
        node.children[i] = byfen[child] or add(child, node.depth + 1)
      end
    end
  end
  plan.root = 1
  assert(M.index_plan(plan))
  return plan
end

-- Fills plan.units: the unit ids in depth-first order of the tree (each unit once, at its first
-- visit), and unit.rank (1-based position in that order); and plan.order: every node id, each
-- after all its children. Ids alone do not give that order: a multiple jump removes several
-- pieces in one ply, so a position can be met first at a shallow depth and again, by
-- transposition, as the child of a deeper node with a larger id (6x8 free has such edges).
-- Returns true, or nil and a message when the children form a cycle (a corrupt plan).
function M.index_plan(plan)
  local units, order, state = {}, {}, {}
  local function visit(id)
    local st = state[id]
    if st == 2 then return true end
    if st == 1 then return nil, ("node %d is its own descendant"):format(id) end
    state[id] = 1
    local node = plan.nodes[id]
    if node.kind == "unit" then
      units[#units + 1] = id
      node.rank = #units
    elseif node.kind == "node" then
      for _, c in ipairs(node.children) do
        local ok, err = visit(c)
        if not ok then return nil, err end
      end
    end
    state[id] = 2
    order[#order + 1] = id
    return true
  end
  local ok, err = visit(plan.root)
  if not ok then return nil, err end
  for id = 1, #plan.nodes do -- nodes the root does not reach (none in a plan built here)
    ok, err = visit(id)
    if not ok then return nil, err end
  end
  plan.units, plan.order = units, order
  return true
end

-- The plan as text (DIR/plan.txt).
function M.plan_text(plan)
  local out = {
    PLAN_MAGIC,
    ("rows %d"):format(plan.rows), ("cols %d"):format(plan.cols),
    "variant " .. plan.variant, ("split %d"):format(plan.split),
  }
  for id, node in ipairs(plan.nodes) do
    local line = ("node %d %d %s %s"):format(id, node.depth, node.kind, node.fen)
    if node.kind == "node" then
      local parts = {}
      for i, m in ipairs(node.moves) do parts[i] = m .. "=" .. node.children[i] end
      line = line .. " | " .. table.concat(parts, " ")
    end
    out[#out + 1] = line
  end
  return table.concat(out, "\n") .. "\n"
end

-- Parses plan text; returns the plan or nil and a message naming the line.
function M.parse_plan(text, where)
  where = where or "plan"
  local plan = { nodes = {}, root = 1 }
  local n = 0
  for line in text:gmatch("[^\n]*") do
    n = n + 1
    line = line:gsub("\r$", "") -- CRLF (a checkout by git with autocrlf) reads the same
    if n == 1 then
      line = line:gsub("^\239\187\191", "")
      if line ~= PLAN_MAGIC then return nil, where .. ": not a konane solve plan" end
    elseif line ~= "" then
      local key, val = line:match("^(%a+) (.*)$")
      if key == "rows" or key == "cols" or key == "split" then
        plan[key] = int(val)
        if not plan[key] then return nil, ("%s:%d: bad %s line"):format(where, n, key) end
      elseif key == "variant" then
        plan.variant = val
      elseif key == "node" then
        local id, depth, kind, tail = val:match("^(%d+) (%d+) (%a+) (.*)$")
        local fen, rest = (tail or ""):match("^(.-) | (.*)$")
        if not fen then fen, rest = tail, "" end
        id, depth = int(id), int(depth)
        if not id or not depth or id ~= #plan.nodes + 1 then
          return nil, ("%s:%d: bad node line"):format(where, n)
        end
        local node = { id = id, depth = depth, kind = kind, fen = fen }
        if kind == "node" then
          node.moves, node.children = {}, {}
          for m, c in rest:gmatch("(%S+)=(%d+)") do
            node.moves[#node.moves + 1] = m
            local child = int(c)
            if not child then return nil, ("%s:%d: bad child number %s"):format(where, n, c) end
            node.children[#node.children + 1] = child
          end
          if #node.moves == 0 then return nil, ("%s:%d: a node without moves"):format(where, n) end
        elseif kind ~= "unit" and kind ~= "end" then
          return nil, ("%s:%d: unknown node kind '%s'"):format(where, n, kind)
        end
        plan.nodes[id] = node
      elseif line ~= "" then
        return nil, ("%s:%d: unexpected line"):format(where, n)
      end
    end
  end
  if not (plan.rows and plan.cols and plan.variant and plan.split) or #plan.nodes == 0 then
    return nil, where .. ": incomplete plan"
  end
  for _, node in ipairs(plan.nodes) do
    for _, c in ipairs(node.children or {}) do
      if not plan.nodes[c] or c == node.id then
        return nil, ("%s: node %d has a bad child %d"):format(where, node.id, c)
      end
    end
  end
  local ok, err = M.index_plan(plan)
  if not ok then return nil, where .. ": " .. err end
  return plan
end

function M.load_plan(dir)
  local path = dir .. "/" .. M.PLAN_FILE
  local text, err = read_file(path)
  if not text then return nil, "cannot read " .. tostring(err) end
  local plan, perr = M.parse_plan(text, path)
  -- the text plans are compared by (--merge): as written here, whatever the line ends
  if plan then plan.text = text:gsub("^\239\187\191", ""):gsub("\r\n", "\n") end
  return plan, perr
end

-- ---------------------------------------------------------------------------------------------
-- The journal: one line per proved unit,
--   unit ID win|loss nodes=N time=SECONDS move=MOVE fen=TEXT
-- appended and fsynced as each unit is proved. A last line without its newline (a write cut by
-- a crash) is ignored and cut off on resume.

function M.journal_line(id, r, fen)
  return ("unit %d %s nodes=%d time=%.3f move=%s fen=%s\n"):format(
    id, r.win and "win" or "loss", r.nodes, r.time, r.move or "-", fen)
end

-- Reads a journal; returns { [id] = {win=, nodes=, time=, move=, line=} }, the byte length of
-- its complete lines, and the number of lines; or nil and a message for a bad line, a unit not in
-- the plan, a wrong position or a unit recorded twice with different results.
function M.read_journal(path, plan)
  local text = read_file(path)
  local res, good, count = {}, 0, 0
  if not text then return res, 0, 0 end
  local pos, n = 1, 0
  while true do
    local nl = text:find("\n", pos, true)
    if not nl then break end
    -- CRLF line ends and a byte order mark (a journal kept under version control and checked
    -- out by git with autocrlf, or saved by an editor) read the same
    local line = text:sub(pos, nl - 1):gsub("\r$", "")
    n = n + 1
    if n == 1 then line = line:gsub("^\239\187\191", "") end
    local id, wl, nodes, t, move, fen =
      line:match("^unit (%d+) (%a+) nodes=(%d+) time=([%d.]+) move=(%S+) fen=(.+)$")
    id, nodes, t = int(id), int(nodes), tonumber(t)
    if not (id and nodes and t) or (wl ~= "win" and wl ~= "loss") then
      return nil, ("%s:%d: bad journal line"):format(path, n)
    end
    local node = plan.nodes[id]
    if not node or node.kind ~= "unit" then
      return nil, ("%s:%d: unit %d is not in the plan"):format(path, n, id)
    end
    if node.fen ~= fen then
      return nil, ("%s:%d: unit %d has another position in the plan"):format(path, n, id)
    end
    local r = { win = wl == "win", nodes = nodes, time = t,
                move = move ~= "-" and move or nil, line = line .. "\n" }
    if res[id] and res[id].win ~= r.win then
      return nil, ("%s:%d: unit %d is recorded both as a win and as a loss"):format(path, n, id)
    end
    if not res[id] then count = count + 1 end
    res[id] = res[id] or r
    pos = nl + 1
    good = nl
  end
  return res, good, count
end

-- ---------------------------------------------------------------------------------------------
-- Minimax over the plan

-- Values of all nodes given unit results: value[id] = true (the side to move wins), false, or
-- nil (not known yet).
function M.evaluate(plan, results)
  local value = {}
  for _, id in ipairs(plan.order) do -- children before their parents
    local node = plan.nodes[id]
    if node.kind == "end" then
      value[id] = false
    elseif node.kind == "unit" then
      local r = results[id]
      if r then value[id] = r.win end
    else
      local all = true
      for _, c in ipairs(node.children) do
        local v = value[c]
        if v == false then value[id] = true break end
        if v == nil then all = false end
      end
      if value[id] == nil and all then value[id] = false end
    end
  end
  return value
end

-- The units still needed: not proved and reachable from the root through undecided nodes, in
-- depth-first order. Also returns the values.
function M.needed(plan, results)
  local value = M.evaluate(plan, results)
  local out, seen = {}, {}
  local function visit(id)
    if seen[id] or value[id] ~= nil then return end
    seen[id] = true
    local node = plan.nodes[id]
    if node.kind == "unit" then
      out[#out + 1] = id
    elseif node.kind == "node" then
      for _, c in ipairs(node.children) do visit(c) end
    end
  end
  visit(plan.root)
  return out, value
end

-- A summary: counts, the root's value, its proved moves ("d4 loses", ...), nodes and time summed.
function M.summary(plan, results)
  local need, value = M.needed(plan, results)
  local s = { total = #plan.units, proved = 0, pending = #need, nodes = 0, time = 0,
              root = value[plan.root], moves = {} }
  for _, id in ipairs(plan.units) do
    local r = results[id]
    if r then
      s.proved = s.proved + 1
      s.nodes = s.nodes + r.nodes
      s.time = s.time + r.time
    end
  end
  s.skipped = s.total - s.proved - s.pending
  local root = plan.nodes[plan.root]
  if root.kind == "node" then
    for i, m in ipairs(root.moves) do
      local v = value[root.children[i]]
      if v ~= nil then
        s.moves[#s.moves + 1] = { move = m, wins = not v }
        if v == false and not s.best then s.best = m end
      end
    end
  elseif root.kind == "unit" and results[root.id] then
    s.best = results[root.id].win and results[root.id].move or nil
  end
  return s
end

local function side_name(plan)
  local fen = plan.nodes[plan.root].fen
  return fen:match(" b") and "Black" or "White"
end

-- The lines of --status (and of the progress line's fields).
function M.status_text(plan, results, dir)
  local s = M.summary(plan, results)
  local lines = {}
  lines[#lines + 1] = ("%s: %dx%d %s split at %d plies"):format(dir or "plan", plan.rows, plan.cols,
    plan.variant, plan.split)
  lines[#lines + 1] = ("units: %d proved, %d still needed, %d skipped (not needed), %d in all")
    :format(s.proved, s.pending, s.skipped, s.total)
  lines[#lines + 1] = ("work: %d nodes, %.1f s of solver time"):format(s.nodes, s.time)
  if #s.moves > 0 then
    local parts = {}
    for _, mv in ipairs(s.moves) do parts[#parts + 1] = mv.move .. (mv.wins and " wins" or " loses") end
    lines[#lines + 1] = "root moves proved: " .. table.concat(parts, ", ")
  end
  if s.root == nil then
    lines[#lines + 1] = "result: not known yet"
  else
    lines[#lines + 1] = ("result: the first player (%s) %s%s"):format(side_name(plan),
      s.root and "wins" or "loses", s.best and (", with " .. s.best) or "")
  end
  return table.concat(lines, "\n") .. "\n", s
end

-- DIR/proof.txt: the tree above the split, depth first, with each node's value and each unit's
-- result and node count. A node seen before is named, not repeated.
function M.proof_text(plan, results)
  local value = M.evaluate(plan, results)
  local s = M.summary(plan, results)
  local out = {
    ("konane solve proof: %dx%d %s, split at %d plies"):format(plan.rows, plan.cols, plan.variant,
      plan.split),
    ("units: %d in all, %d proved, %d skipped; %d nodes in the units"):format(s.total, s.proved,
      s.skipped, s.nodes),
    ("root: %s"):format(s.root == nil and "not known" or
      (("the side to move (%s) %s%s"):format(side_name(plan), s.root and "wins" or "loses",
        s.best and (" with " .. s.best) or ""))),
    "Each line: move, node id, value for the side to move there (win, loss, ? unknown,",
    "skipped when not needed), unit results with their node counts.",
    "",
  }
  local seen = {}
  local function tag(id)
    local v = value[id]
    return v == nil and "?" or (v and "win" or "loss")
  end
  local function visit(id, move, indent)
    local node = plan.nodes[id]
    local pad = string.rep("  ", indent)
    local head = ("%s%s #%d %s"):format(pad, move, id, tag(id))
    if seen[id] then
      out[#out + 1] = head .. " (see above)"
      return
    end
    seen[id] = true
    if node.kind == "end" then
      out[#out + 1] = head .. " no move"
    elseif node.kind == "unit" then
      local r = results[id]
      out[#out + 1] = head .. (r and (" unit nodes=%d%s"):format(r.nodes,
        r.move and (" move=" .. r.move) or "") or " unit skipped") .. " " .. node.fen
    else
      out[#out + 1] = head .. " " .. node.fen
      for i, m in ipairs(node.moves) do visit(node.children[i], m, indent + 1) end
    end
  end
  visit(plan.root, "root", 0)
  return table.concat(out, "\n") .. "\n"
end

-- ---------------------------------------------------------------------------------------------
-- Solving one unit (also what a worker process does)

-- Solves the position 'fen' exactly: {win=, move=, nodes=, time=}. opts: hash_mb (a fresh table
-- of that size) or table (a konane.hashtable kept between units of one plan), threads.
function M.solve_unit(fen, variant, opts)
  local g = konane().new { fen = fen, variant = variant }
  local so = { hash_mb = not opts.table and opts.hash_mb or nil, table = opts.table }
  if opts.threads and opts.threads > 1 then so.threads = opts.threads end
  local r = g:solve(so)
  if r.win == nil then error("unit not solved: " .. fen, 0) end
  return r
end

-- The worker process: reads "solve ID VARIANT HASH_MB THREADS FEN" lines on stdin and answers
-- "@@solve ID win|loss NODES TIME MOVE" on stdout, until end of input. One table serves all the
-- units of a worker (they come from one plan, so from one board and variant): neighbouring
-- units share much of their trees. While solving it watches stdin: end of input means the
-- parent is gone (even by kill -9), and the worker stops at once instead of finishing a unit
-- nobody will record.
function M.worker_main()
  local table_of, buf, eof = {}, "", false
  local function fill(timeout)
    local got = core.fd_read(0, timeout)
    if got == nil then eof = true else buf = buf .. got end
  end
  local next_look = 0
  local function parent_gone()
    local now = core.clock()
    if now >= next_look then
      next_look = now + 0.2
      fill(0)
    end
    return eof
  end
  while true do
    local line
    while true do
      line = buf:match("^([^\n]*)\n")
      if line or eof then break end
      fill(-1)
    end
    if not line then return end
    buf = buf:sub(#line + 2)
    local id, variant, mb, threads, fen = line:match("^solve (%d+) (%S+) ([%d.]+) (%d+) (.+)$")
    if not id then
      io.stderr:write("solve worker: bad request\n")
      os.exit(1)
    end
    local key = variant .. " " .. mb
    table_of[key] = table_of[key] or konane().hashtable(tonumber(mb))
    local g = konane().new { fen = fen, variant = variant }
    local r = g:solve { table = table_of[key], threads = tonumber(threads), stop = parent_gone }
    if eof then return end
    if r.win == nil then error("unit not solved: " .. fen, 0) end
    io.stdout:write(("@@solve %s %s %d %.3f %s\n"):format(id, r.win and "win" or "loss", r.nodes,
      r.time, r.move or "-"))
    io.stdout:flush()
  end
end

local function worker_command()
  local exe = core.exe_path and core.exe_path()
  if not exe then
    local lo = 0
    while _G.arg and _G.arg[lo - 1] do lo = lo - 1 end
    exe = _G.arg and _G.arg[lo] or "konane"
  end
  local script = package.searchpath("konane.solve_worker", package.path)
  if not script then error("cannot find konane/solve_worker.lua on package.path", 0) end
  return exe, script
end

-- ---------------------------------------------------------------------------------------------
-- A run

local function fmt_time(s)
  if s < 60 then return ("%.0fs"):format(s) end
  if s < 3600 then return ("%dm%02ds"):format(s // 60, math.floor(s % 60)) end
  return ("%dh%02dm"):format(s // 3600, math.floor(s % 3600) // 60)
end

-- Opens (creating when asked) the run directory: takes the lock, loads or writes the plan, reads
-- the journal and cuts off a torn last line. Returns the state {dir, plan, results, journal}.
local function open_run(o)
  local dir = o.out
  local function check_resumable()
    local ok, err = M.resumable(dir, o)
    if not ok then error(err, 0) end
  end
  -- checked before the directory and its lock are made: a mistyped --resume leaves nothing behind
  if o.resume then check_resumable() end
  local ok, err = mkdir(dir)
  if not ok then error(err, 0) end
  local lf = io.open(dir .. "/" .. M.LOCK_FILE, "a")
  if not lf then error("cannot open " .. dir .. "/" .. M.LOCK_FILE, 0) end
  if core.lock then
    local okl = core.lock(lf)
    if not okl then
      lf:close()
      error(dir .. " is in use by another solve process", 0)
    end
  end
  local plan_path = dir .. "/" .. M.PLAN_FILE
  local plan
  if file_exists(plan_path) then
    if not o.resume then
      error(dir .. " already holds a solve; continue it with --resume --out " .. dir, 0)
    end
    local perr
    plan, perr = M.load_plan(dir)
    if not plan then error(perr, 0) end
    local differ = settings_differ(dir, plan, o)
    if differ then error(differ, 0) end
  else
    -- The plan follows from size, variant and split, so a journal alone (the small file worth
    -- keeping under version control) resumes when they are given again; read_journal below
    -- checks every unit's position against the rebuilt plan.
    if o.resume then check_resumable() end
    if not ((o.rows or o.fen) and o.split) then
      error("a new solve needs --size (or --fen) and --split", 0)
    end
    plan = M.build_plan(o.rows, o.cols, o.variant, o.split, o.fen)
    plan.text = M.plan_text(plan)
    write_atomic(plan_path, plan.text)
  end
  local jpath = dir .. "/" .. M.JOURNAL_FILE
  local results, good = M.read_journal(jpath, plan)
  if not results then error(good, 0) end
  local jf = io.open(jpath, "ab")
  if not jf then error("cannot open " .. jpath .. " for appending", 0) end
  local size = jf:seek("end")
  if size > good then
    -- a torn last line from a crash: cut it off so the next line starts clean
    jf:close()
    local text = read_file(jpath)
    write_atomic(jpath, text:sub(1, good))
    jf = io.open(jpath, "ab")
  end
  return { dir = dir, plan = plan, results = results, journal = jf, lock = lf }
end

-- Appends a proved unit to the journal and syncs it; raises on a failed write.
local function journal_append(st, id, r)
  local line = M.journal_line(id, r, st.plan.nodes[id].fen)
  local ok, err = st.journal:write(line)
  if ok then ok, err = st.journal:flush() end
  if ok and core.fsync then ok, err = core.fsync(st.journal) end
  if not ok then
    error("cannot write the journal " .. st.dir .. "/" .. M.JOURNAL_FILE .. ": " .. tostring(err), 0)
  end
  st.results[id] = { win = r.win, nodes = r.nodes, time = r.time, move = r.move, line = line }
end

local function in_shard(plan, id, shard)
  if not shard then return true end
  return (plan.nodes[id].rank - 1) % shard[2] == shard[1] - 1
end

-- Runs (or resumes) a solve: o = {out=, rows=, cols=, variant=, split=, workers=, hash_mb=,
-- threads=, shard={i,n}, resume=, progress=function(text) or nil, max_units=}.
-- Returns the summary. Workers are separate processes; each proved unit is journaled at once.
function M.run(o)
  local st = open_run(o)
  local plan, results = st.plan, st.results
  local exe, script = worker_command()
  local paths = ("{path=%q,cpath=%q}"):format(package.path, package.cpath)
  local workers, busy = {}, {}
  local t0, done_nodes, done_units = core.clock(), 0, 0
  local mb, threads = o.hash_mb or 256, o.threads or 1
  local stop_after = o.max_units

  local function next_unit()
    local need = M.needed(plan, results)
    for _, id in ipairs(need) do
      if not busy[id] and in_shard(plan, id, o.shard) then return id end
    end
  end

  local function progress()
    if not o.progress then return end
    local s = M.summary(plan, results)
    local el = core.clock() - t0
    local rate = el > 0 and done_nodes / el or 0
    local eta = ""
    if done_units > 0 and s.pending > 0 then
      eta = " ~" .. fmt_time(el / done_units * s.pending / math.max(1, #workers)) .. " left at most"
    end
    local parts = {}
    for _, mv in ipairs(s.moves) do parts[#parts + 1] = mv.move .. (mv.wins and "+" or "-") end
    o.progress(("units %d/%d proved, %d needed, %d skipped | %.2f M nodes/s | root %s%s%s")
      :format(s.proved, s.total, s.pending, s.skipped, rate / 1e6,
        s.root == nil and "?" or (s.root and "win" or "loss"),
        #parts > 0 and (" [" .. table.concat(parts, " ") .. "]") or "", eta))
  end

  local function start_worker()
    local proc, err = core.spawn({ exe, script, paths }, { stdin = true })
    if not proc then error("cannot start a worker: " .. tostring(err), 0) end
    local w = { proc = proc, buf = "" }
    workers[#workers + 1] = w
    return w
  end

  local function assign(w)
    if stop_after then
      local n = 0
      for _ in pairs(busy) do n = n + 1 end
      if done_units + n >= stop_after then return false end
    end
    local id = next_unit()
    if not id then return false end
    w.id = id
    busy[id] = true
    local ok, err = w.proc:write(("solve %d %s %g %d %s\n"):format(id, plan.variant, mb, threads,
      plan.nodes[id].fen))
    if not ok then error("a worker stopped taking work: " .. tostring(err), 0) end
    return true
  end

  local function finish(w, line)
    local id, wl, nodes, t, move = line:match("^@@solve (%d+) (%a+) (%d+) ([%d.]+) (%S+)$")
    id, nodes, t = int(id), int(nodes), tonumber(t)
    if id ~= w.id then error("a worker answered out of turn: " .. line, 0) end
    if not (nodes and t) then error("a worker's answer is malformed: " .. line, 0) end
    local r = { win = wl == "win", nodes = nodes, time = t,
                move = move ~= "-" and move or nil }
    journal_append(st, id, r)
    busy[id], w.id = nil, nil
    done_nodes, done_units = done_nodes + r.nodes, done_units + 1
  end

  local nworkers = o.workers or 1
  local ok, err = pcall(function()
    for _ = 1, nworkers do
      local w = start_worker()
      if not assign(w) then break end
    end
    progress()
    while true do
      local active, procs = 0, {}
      for _, w in ipairs(workers) do
        if w.id then active = active + 1 procs[#procs + 1] = w.proc end
      end
      if active == 0 then break end
      core.poll(procs, 1.0)
      for _, w in ipairs(workers) do
        if w.id then
          local chunk = w.proc:read()
          if chunk == nil then
            local how, code = w.proc:wait(true)
            error(("a worker died while solving unit %d (%s %s)"):format(w.id, tostring(how),
              tostring(code)), 0)
          end
          w.buf = w.buf .. chunk
          while true do
            local line, rest = w.buf:match("^([^\n]*)\n(.*)$")
            if not line then break end
            w.buf = rest
            if line:match("^@@solve ") then
              finish(w, line)
              progress()
              assign(w)
            elseif line ~= "" and o.log then
              o.log(line)
            end
          end
        end
      end
    end
  end)
  for _, w in ipairs(workers) do
    w.proc:close_input()
    if w.id then w.proc:kill() end
    w.proc:wait(true)
  end
  progress()
  local summary = M.summary(plan, results)
  if ok then
    write_atomic(st.dir .. "/" .. M.PROOF_FILE, M.proof_text(plan, results))
  end
  st.journal:close()
  st.lock:close()
  if not ok then error(err, 0) end
  return summary, plan, results
end

-- Solves the plan in this process, unit after unit in the plan's order, skipping units no
-- longer needed; returns the results table (for tests and small boards).
function M.solve_here(plan, opts)
  opts = opts or {}
  local results = {}
  while true do
    local need = M.needed(plan, results)
    if #need == 0 then return results end
    local id = need[1]
    local r = M.solve_unit(plan.nodes[id].fen, plan.variant, opts)
    results[id] = { win = r.win, nodes = r.nodes, time = r.time, move = r.move,
                    line = M.journal_line(id, r, plan.nodes[id].fen) }
  end
end

-- Loads a run directory without taking its lock: plan and results.
function M.load(dir)
  local plan, err = M.load_plan(dir)
  if not plan then return nil, err end
  local results, jerr = M.read_journal(dir .. "/" .. M.JOURNAL_FILE, plan)
  if not results then return nil, jerr end
  return plan, results
end

-- Merges run directories of one plan: returns plan, results, or nil and a message (different
-- plans, or a unit proved with different results in two directories).
function M.merge(dirs)
  local plan, results, from = nil, {}, {}
  for _, dir in ipairs(dirs) do
    local p, r = M.load(dir)
    if not p then return nil, r end
    if plan and p.text ~= plan.text then
      return nil, ("%s has another plan than %s"):format(dir, dirs[1])
    end
    plan = plan or p
    for id, res in pairs(r) do
      local old = results[id]
      if old and old.win ~= res.win then
        return nil, ("unit %d: %s says %s, %s says %s"):format(id, from[id],
          old.win and "win" or "loss", dir, res.win and "win" or "loss")
      end
      if not old then
        results[id], from[id] = res, dir
      end
    end
  end
  return plan, results
end

-- Writes a merged directory: the plan, the journal of all results (in unit order), proof.txt.
-- The directory's lock is held meanwhile (refused while a solve runs there), and when it already
-- holds the same plan its own journal is merged in too (a unit proved there with another result
-- is an error), so nothing proved there is lost. Returns the results written.
function M.write_merged(dir, plan, results)
  local ok, err = mkdir(dir)
  if not ok then error(err, 0) end
  local lf = io.open(dir .. "/" .. M.LOCK_FILE, "a")
  if not lf then error("cannot open " .. dir .. "/" .. M.LOCK_FILE, 0) end
  if core.lock and not core.lock(lf) then
    lf:close()
    error(dir .. " is in use by another solve process", 0)
  end
  local all = results
  if file_exists(dir .. "/" .. M.PLAN_FILE) then
    local text = read_file(dir .. "/" .. M.PLAN_FILE)
    -- every refusal below lets go of the lock first
    local function refuse(msg)
      lf:close()
      error(msg, 0)
    end
    if text ~= plan.text then refuse(dir .. " already holds another plan") end
    local own, jerr = M.read_journal(dir .. "/" .. M.JOURNAL_FILE, plan)
    if not own then refuse(jerr) end
    all = {}
    for id, res in pairs(results) do all[id] = res end
    for id, res in pairs(own) do
      if all[id] and all[id].win ~= res.win then
        refuse(("unit %d: the sources say %s, %s says %s"):format(id,
          all[id].win and "win" or "loss", dir, res.win and "win" or "loss"))
      end
      all[id] = all[id] or res
    end
  end
  write_atomic(dir .. "/" .. M.PLAN_FILE, plan.text)
  local lines = {}
  for _, id in ipairs(plan.units) do
    if all[id] then lines[#lines + 1] = all[id].line end
  end
  write_atomic(dir .. "/" .. M.JOURNAL_FILE, table.concat(lines))
  write_atomic(dir .. "/" .. M.PROOF_FILE, M.proof_text(plan, all))
  lf:close()
  return all
end

-- Re-solves proved units with a fresh table each (all, or a sample of 'sample' chosen with
-- 'seed') and recomputes the root. Returns a list of problems (empty when everything agrees)
-- and the number of units checked.
function M.verify(dir, o)
  local plan, results = M.load(dir)
  if not plan then return { results }, 0 end
  local ids = {}
  for _, id in ipairs(plan.units) do if results[id] then ids[#ids + 1] = id end end
  if o.sample and o.sample < #ids then
    local state = o.seed or 1
    local function rand(n) -- splitmix-like, reproducible
      state = (state * 6364136223846793005 + 1442695040888963407)
      return ((state >> 33) % n) + 1
    end
    for i = #ids, 2, -1 do
      local j = rand(i)
      ids[i], ids[j] = ids[j], ids[i]
    end
    for i = #ids, o.sample + 1, -1 do ids[i] = nil end
    table.sort(ids)
  end
  local problems = {}
  local so = { hash_mb = o.hash_mb or 64, threads = o.threads }
  for i, id in ipairs(ids) do
    local fen, rec = plan.nodes[id].fen, results[id]
    local function problem(what)
      problems[#problems + 1] = ("unit %d: %s (%s)"):format(id, what, fen)
    end
    local g = konane().new { fen = fen, variant = plan.variant }
    local move = rec.move
    if move and not g:legal(move) then
      problem(("the journal's move %s is not legal"):format(move))
    elseif rec.win then
      -- a win is proved by its move: the position after it is lost for the opponent (another
      -- winning move, found with another table or thread count, proves the same)
      if not move then
        problem("the journal says win but gives no move")
      else
        g:play(move)
        local r = M.solve_unit(g:fen(), plan.variant, so)
        if r.win then
          problem(("the journal says win with %s, but the opponent wins after it"):format(move))
        end
      end
    else
      local r = M.solve_unit(fen, plan.variant, so)
      if r.win then
        problem(("the journal says loss, solving it again gives win with %s"):format(r.move))
      elseif (move == nil) ~= (r.move == nil) then
        problem(("the journal's move is %s, but the game is %s"):format(move or "-",
          r.move and "not over" or "over"))
      end
    end
    if o.progress then o.progress(("verified %d/%d units"):format(i, #ids)) end
  end
  -- the combination: the proof file's claimed root result against the journal's minimax
  local proof = read_file(dir .. "/" .. M.PROOF_FILE)
  local s = M.summary(plan, results)
  if not proof then
    -- nothing claimed, nothing checked: a run not finished (--resume writes it) or a file lost
    problems[#problems + 1] = ("no %s in %s: no claimed result to check (a run writes it when it"
      .. " ends; --resume an interrupted one)"):format(M.PROOF_FILE, dir)
  else
    local claim = proof:match("\nroot: ([^\n]*)")
    if not claim then
      problems[#problems + 1] = ("%s has no 'root:' line: its claimed result cannot be checked")
        :format(M.PROOF_FILE)
    end
    local want = s.root == nil and "not known" or
      (("the side to move (%s) %s%s"):format(side_name(plan), s.root and "wins" or "loses",
        s.best and (" with " .. s.best) or ""))
    if claim and claim ~= want then
      problems[#problems + 1] = ("proof.txt claims '%s' but the journal gives '%s'"):format(claim, want)
    end
    -- the tree: every line's move, node and value against the tree made from the journal (the
    -- node counts and moves of units are the journal's own, checked above)
    local function tree(text)
      local t, n = {}, 0
      for line in text:gmatch("([^\n]*)\n?") do
        n = n + 1
        local pad, move, id, tag = line:match("^( *)(%S+) #(%d+) (%S+)")
        if move then t[#t + 1] = { line = n, key = ("%s%s #%s %s"):format(pad, move, id, tag) } end
      end
      return t
    end
    local got, exp = tree(proof), tree(M.proof_text(plan, results))
    for i = 1, math.max(#got, #exp) do
      local g, e = got[i], exp[i]
      if not g or not e or g.key ~= e.key then
        problems[#problems + 1] = g and e and
          ("proof.txt line %d says '%s' but the journal gives '%s'"):format(g.line,
            g.key:match("^ *(.-)$"), e.key:match("^ *(.-)$")) or
          ("proof.txt has %d tree lines, the journal's tree %d"):format(#got, #exp)
        break
      end
    end
  end
  return problems, #ids, s
end

return M
