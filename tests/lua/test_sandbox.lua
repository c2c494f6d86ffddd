-- Players in namespaces of their own (core.spawn{sandbox = true}, docs/bots.md "Isolation"): an
-- engine cannot see, signal or write into its opponent, the referee or any other process, and
-- nothing it starts outlives it, even a referee killed with SIGKILL. Where the system refuses
-- the namespaces (a container's seccomp, user.max_user_namespaces = 0), each attack test asserts
-- the fallback's report instead; KONANE_NO_SANDBOX forces that fallback.
local H = dofile("tests/lua/helpers.lua")
local konane = require "konane"
local core = konane.core
local player = require "konane.ugi.player"

local T = {}

local F = "tests/lua/fixtures/ugi_attack.py"
local MOVE_LIMIT = 20 -- a limit, not a measure: a starved machine is no forfeit
player.defaults.startup = 300

local SANDBOX, WHY = core.sandbox()

-- Where the system refuses the namespaces: the reason is reported, and says which step failed.
local function assert_refused()
  assert(not SANDBOX and type(WHY) == "string", "no reason given")
  assert(WHY:find("KONANE_NO_SANDBOX is set", 1, true) or WHY:find("^the system refused the namespaces %(.+: .+%)$"),
    WHY)
end

-- A word no other process has in its command line: a fresh directory's path (its files hold
-- the attacker's log, so the players of this process may write there).
local function mark() return H.tmpdir() .. "/mark" end

-- konane.play(...) with the players allowed to write the mark's directory (only for this call:
-- the test files share one process).
local function play(m, ...)
  local before = player.writable
  player.writable = { m:match("^(.*)/") }
  local ok, rec = pcall(konane.play, ...)
  player.writable = before
  return assert(ok and rec, rec)
end

-- The same for a referee in another process: its environment.
local function writable_env(m) return "KONANE_SANDBOX_WRITABLE=" .. m:match("^(.*)/") end

local function spec(mode, m) return "ugi:python3 " .. F .. " " .. mode .. " " .. m end

-- The attacker's log lines (what each attack found and did).
local function attack_log(m)
  local f = io.open(m .. ".log", "rb")
  local text = f and f:read("a") or ""
  if f then f:close() end
  return text
end

-- The host pids of the living processes whose command line holds 'word' then 'm'.
local function marked(word, m)
  local found, want = {}, "\0" .. word .. "\0" .. m .. "\0"
  for _, name in ipairs(core.listdir("/proc") or {}) do
    if name:match("^%d+$") then
      local f = io.open("/proc/" .. name .. "/cmdline", "rb")
      local text = f and f:read("a")
      if f then f:close() end
      local s = io.open("/proc/" .. name .. "/stat", "r")
      local stat = s and s:read("a") or ""
      if s then s:close() end
      if text and text:find(want, 1, true) and stat:match("%)%s+(%a)") ~= "Z" then
        found[#found + 1] = name
      end
    end
  end
  return found
end

-- Plays attacker 'mode' against the victim engine (both marked 'm') and returns the record.
local function attack(mode, m)
  local rec = play(m, spec(mode, m), spec("victim", m), { rows = 6, cols = 6, seed = 1, time = MOVE_LIMIT })
  player.close_all()
  return rec
end

T["an engine cannot kill its opponent's engine: it does not see it"] = function()
  if not SANDBOX then return assert_refused() end
  local m = mark()
  local rec = attack("kill", m)
  assert(rec.termination == "normal", "the victim lost: " .. tostring(rec.reason))
  local log = attack_log(m)
  assert(log:find("kill: found 0, struck 0", 1, true) and not log:find("found [1-9]"), log)
  H.cleanup()
end

T["an engine cannot write an answer into its opponent's pipe through /proc/PID/fd"] = function()
  if not SANDBOX then return assert_refused() end
  local m = mark()
  local rec = attack("inject", m)
  assert(rec.termination == "normal", "the victim lost: " .. tostring(rec.reason))
  local log = attack_log(m)
  assert(log:find("inject: found 0, struck 0", 1, true) and not log:find("found [1-9]"), log)
  H.cleanup()
end

T["kill(-1, SIGCONT) from an engine reaches no process outside its namespace"] = function()
  if not SANDBOX then return assert_refused() end
  local m = mark()
  -- a canary with a SIGCONT handler, outside any sandbox: it writes a line when reached
  local canary = assert(core.spawn({ "python3", "-c", table.concat({
    "import signal, sys, time",
    "def reached(s, f):",
    "    with open(sys.argv[1], 'a') as out: out.write('reached\\n')",
    "signal.signal(signal.SIGCONT, reached)",
    "with open(sys.argv[1], 'a') as out: out.write('ready\\n')",
    "time.sleep(120)" }, "\n"), m .. ".canary" }, { stderr = false }))
  local expired = H.patience(30, canary:pid())
  local function canary_says()
    local f = io.open(m .. ".canary", "rb")
    local text = f and f:read("a") or ""
    if f then f:close() end
    return text
  end
  while not canary_says():find("ready", 1, true) and not expired() do core.poll({}, 0.02) end
  assert(canary_says():find("ready", 1, true), "the canary did not start")
  local rec = play(m, spec("cont", m), "random", { rows = 6, cols = 6, seed = 1, time = MOVE_LIMIT })
  player.close_all()
  assert(rec.termination == "normal", rec.reason)
  assert(attack_log(m):find("^cont: "), "the attack did not run: " .. attack_log(m))
  -- (a signal is delivered before kill returns: the attacker logged after it)
  core.poll({}, 0.2)
  assert(not canary_says():find("reached", 1, true), "the canary was reached")
  canary:kill()
  canary:close()
  H.cleanup()
end

T["a referee killed with SIGKILL leaves nothing running that an engine double-forked away"] = function()
  if not SANDBOX then return assert_refused() end
  local m = mark()
  local referee = assert(core.spawn({ "env", writable_env(m), core.exe_path(), "-e", string.format([[
    require("konane.ugi.player").defaults.startup = 300
    require("konane").play(%q, %q, { rows = 8, cols = 8, seed = 1, time = 60 })
  ]], spec("escape", m), spec("victim", m)) }, { stderr = false }))
  -- until the sleeper is running and the game has begun (the victim answers slowly: 0.5 s a move)
  local expired = H.patience(60, referee:pid(), true)
  while (#marked("escaped", m) == 0 or #marked("victim", m) == 0) and not expired() do core.poll({}, 0.05) end
  local escaped = marked("escaped", m)
  assert(#escaped == 1, "the sleeper did not start: " .. attack_log(m))
  referee:kill(9)
  referee:wait(true)
  referee:close()
  -- the engines' inits die with the referee, and their namespaces with them; the wait guards
  -- against a loaded machine only (2 s in which the processes could run)
  expired = H.patience(2, escaped[1])
  while (#marked("escaped", m) > 0 or #marked("victim", m) > 0) and not expired() do core.poll({}, 0.02) end
  local left = marked("escaped", m)
  for _, p in ipairs(marked("victim", m)) do left[#left + 1] = p end
  for _, p in ipairs(left) do os.execute("kill -9 " .. p) end -- nothing stays behind a failure
  assert(#left == 0, "processes left: " .. table.concat(left, " "))
  H.cleanup()
end

T["an engine cannot write into the tournament's directory: games.pgn, a planted link"] = function()
  if not SANDBOX then return assert_refused() end
  local m = mark()
  local out = m:match("^(.*)/") .. "/t"
  local code, text = H.run { "env", writable_env(m), core.exe_path(), "scripts/tournament.lua", "--bot", spec("scribble", m),
    "--bot", "random", "--size", "6x6", "--games", "2", "--time", tostring(MOVE_LIMIT), "--out", out }
  assert(code == 0, text)
  local log = attack_log(m)
  assert(log:find("scribble: append refused (Read-only file system)", 1, true), log)
  assert(log:find("scribble: plant refused (Read-only file system)", 1, true), log)
  assert(not log:find("done", 1, true), log)
  assert(not H.read(out .. "/games.pgn"):find("forged", 1, true))
  assert(not io.open(out .. "/results.json.tmp", "r"))
  -- the referee itself still writes there, and a resume reads it back
  assert(H.read(out .. "/results.json"):find("random", 1, true))
  H.cleanup()
end

-- Run by its files' owner (root owns the system's), a player could rewrite them: the konane
-- tree, the referee's records, its own program. It writes only what it is given, and scratch
-- files in a /var/tmp of its own.
T["a sandboxed player writes only its writable paths and a private /var/tmp"] = function()
  if not SANDBOX then return assert_refused() end
  local given, other = H.tmpdir(), H.tmpdir()
  local script = "for d in " .. given .. " " .. other .. " " .. given .. "/ro; do " ..
    "{ echo x > $d/f; } 2>/dev/null && echo wrote $d || echo refused $d; done; " ..
    "echo x > /var/tmp/konane-sandbox-test && cat /var/tmp/konane-sandbox-test; echo x > /dev/null && echo null"
  assert(os.execute("mkdir " .. given .. "/ro"))
  local _, text = H.run({ "sh", "-c", script },
    { sandbox = true, writable = { given }, readonly = { given .. "/ro" } })
  assert(text == "wrote " .. given .. "\nrefused " .. other .. "\nrefused " .. given .. "/ro\nx\nnull\n", text)
  assert(H.read(given .. "/f") == "x\n")
  assert(not io.open(other .. "/f", "r"))
  assert(not io.open("/var/tmp/konane-sandbox-test", "r"), "the private /var/tmp showed outside")
  local bad, err = core.spawn({ "true" }, { sandbox = true, writable = { other .. "/none" } })
  assert(bad == nil and err:find("cannot make '" .. other .. "/none' writable: No such file", 1, true), err)
  H.cleanup()
end

-- Paths bound inside a writable one two levels down or more: the directories between them are
-- mount points (bound onto themselves, still writable), so no player can move them and put a
-- directory or a link of its own in their place (where the referee writes, or a link the next
-- player's writable path would follow, to / say).
T["no directory between a writable path and a path bound inside it can be moved"] = function()
  if not SANDBOX then return assert_refused() end
  local w = H.tmpdir()
  assert(os.execute("mkdir -p " .. w .. "/a/ro " .. w .. "/b/rw " .. w .. "/c"))
  local script = "for d in a b c; do mv " .. w .. "/$d " .. w .. "/$d.moved 2>/dev/null && echo moved $d || " ..
    "echo kept $d; done; echo x > " .. w .. "/a/f && echo wrote a/f"
  local _, text = H.run({ "sh", "-c", script },
    { sandbox = true, writable = { w, w .. "/b/rw" }, readonly = { w .. "/a/ro" } })
  assert(text == "kept a\nkept b\nmoved c\nwrote a/f\n", text)
  -- a writable path inside a read-only one inside a writable one: what lies between the
  -- read-only path and it stays read-only
  assert(os.execute("mkdir -p " .. w .. "/out/sub/x"))
  _, text = H.run({ "sh", "-c", "for d in out out/sub out/sub/x; do { echo x > " .. w .. "/$d/f; } 2>/dev/null " ..
    "&& echo wrote $d || echo refused $d; done" },
    { sandbox = true, writable = { w, w .. "/out/sub/x" }, readonly = { w .. "/out" } })
  assert(text == "refused out\nrefused out/sub\nwrote out/sub/x\n", text)
  H.cleanup()
end

-- Run by root, a player is uid 0 without capabilities: the owner of root's files, so the
-- kernel's settings and sysfs, which it could write (the same value back here), are read-only.
T["a sandboxed player cannot write the kernel's settings (/proc/sys) or sysfs"] = function()
  if not SANDBOX then return assert_refused() end
  local code, out = H.run({ "sh", "-c", "v=$(cat /proc/sys/vm/swappiness) || exit 3; " ..
    "(echo $v > /proc/sys/vm/swappiness) 2>/dev/null && echo wrote-sysctl; " ..
    "grep -E ' /sys ' /proc/self/mountinfo | tail -1" }, { sandbox = true })
  assert(code == 0, out)
  assert(not out:find("wrote", 1, true), out)
  assert(out:find(" /sys ro[, ]"), out)
end

-- Run by root, a player owns the host's device nodes: a disk's (read the machine's storage,
-- write it under every mount), /dev/mem, a loop device. Its /dev has the harmless nodes only.
T["a sandboxed player has a /dev of its own: null, urandom, no disk or memory node"] = function()
  if not SANDBOX then return assert_refused() end
  local risky = {}
  for _, name in ipairs(core.listdir("/dev") or {}) do
    for _, pat in ipairs { "^sd%a+%d*$", "^vd%a+%d*$", "^xvd%a+%d*$", "^hd%a+%d*$", "^nvme%d", "^mmcblk%d",
                           "^loop%d+$", "^dm%-%d+$", "^zram%d+$", "^mem$", "^kmem$", "^port$" } do
      if name:match(pat) then risky[#risky + 1] = "/dev/" .. name break end
    end
  end
  local script = "for f in " .. table.concat(risky, " ") .. "; do (exec 3<$f) 2>/dev/null && echo opened $f; done; " ..
    "echo x > /dev/null && echo null; head -c 16 /dev/urandom | wc -c; ls -A /dev | tr '\\n' ' '"
  local code, out = H.run({ "sh", "-c", script }, { sandbox = true })
  assert(code == 0, out)
  assert(not out:find("opened", 1, true), out)
  local lines = {}
  for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
  assert(lines[1] == "null" and tonumber(lines[2]) == 16, out)
  local allowed = { null = true, zero = true, full = true, random = true, urandom = true, tty = true, fd = true,
                    stdin = true, stdout = true, stderr = true, shm = true }
  for name in (lines[3] or ""):gmatch("%S+") do assert(allowed[name], "in the player's /dev: " .. name) end
end

-- A listener outside any sandbox on 127.0.0.1 (a free port) and on the abstract unix name 'name',
-- until its stdin closes (no timer: a loaded machine once outlasted a 120 s sleep): the process
-- and its port.
local function listen(name)
  local listener = assert(core.spawn({ "python3", "-c", table.concat({
    "import socket, sys",
    "t = socket.socket(); t.bind(('127.0.0.1', 0)); t.listen(64)",
    "u = socket.socket(socket.AF_UNIX); u.bind('\\0' + sys.argv[1]); u.listen(64)",
    "print(t.getsockname()[1], flush=True)",
    "sys.stdin.read()" }, "\n"), name }, { stdin = true }))
  local expired, line = H.patience(30, listener:pid()), ""
  while not line:find("\n") and not expired() do
    core.poll({ listener }, 0.1)
    line = line .. (listener:read() or "")
  end
  return listener, assert(tonumber(line:match("%d+")), "the listener did not start: " .. line)
end

local function stop(listener)
  listener:kill()
  listener:wait(true)
  listener:close()
end

-- A player reaches no socket of the machine (a service on 127.0.0.1, an abstract unix socket:
-- D-Bus, an X server, a database) and no System V IPC object; its own loopback works.
-- network = true gives the machine's network back (an engine that plays through a server).
T["a sandboxed player reaches no socket or IPC object of the machine, unless network = true"] = function()
  if not SANDBOX then return assert_refused() end
  local name = "konane-sandbox-test" .. H.tmpdir():gsub("%W", "-")
  local listener, port = listen(name)
  local _, shm = H.run { "ipcmk", "-M", "4096" }
  local id = assert(shm:match("(%d+)"), shm)
  local probe = { "sh", "-c", "python3 -c \"" .. table.concat({
    "import socket, sys",
    "def reach(f):",
    "    try: f(); return 'reached'",
    "    except OSError: return 'refused'",
    "def unix(): socket.socket(socket.AF_UNIX).connect('\\0' + sys.argv[2])",
    "def own():",
    "    s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)",
    "    socket.create_connection(s.getsockname(), timeout=5)",
    "print('tcp', reach(lambda: socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5)),",
    "      'unix', reach(unix), 'own', reach(own))" }, "\n") .. "\" " .. port .. " " .. name ..
    "; ipcs -m -i " .. id .. " 2>&1 | grep -q shmid= && echo ipc reached || echo ipc refused" }
  local _, boxed = H.run(probe, { sandbox = true })
  local _, net = H.run(probe, { sandbox = true, network = true })
  local _, plain = H.run(probe, { session = true })
  H.run { "ipcrm", "-m", id }
  stop(listener)
  assert(plain == "tcp reached unix reached own reached\nipc reached\n", plain)
  assert(boxed == "tcp refused unix refused own reached\nipc refused\n", boxed)
  assert(net == "tcp reached unix reached own reached\nipc refused\n", net)
  H.cleanup()
end

-- The same through a referee's players: KONANE_SANDBOX_NETWORK (konane.ugi.player.network) gives
-- an engine the machine's network back; without it the same engine reaches nothing.
T["KONANE_SANDBOX_NETWORK gives a referee's engines the machine's network back"] = function()
  if not SANDBOX then return assert_refused() end
  local dir = H.tmpdir()
  local listener, port = listen("konane-sandbox-test" .. dir:gsub("%W", "-"))
  local engine = dir .. "/net_engine.py"
  H.write(engine, table.concat({
    "import os, socket, sys",
    "try:",
    "    socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5)",
    "    said = 'reached'",
    "except OSError:",
    "    said = 'refused'",
    "with open(sys.argv[2], 'a') as f: f.write(said + '\\n')",
    "os.execv(sys.executable, [sys.executable, 'examples/ugi/konane_bot.py'])" }, "\n"))
  local function said(setting)
    local log = dir .. "/" .. (setting == "" and "off" or "on") .. ".log"
    local code, out = H.run { "env", "KONANE_SANDBOX_WRITABLE=" .. dir, "KONANE_SANDBOX_NETWORK=" .. setting,
      core.exe_path(), "-e", string.format("require('konane.ugi.player').defaults.startup = 300 " ..
        "local rec = require('konane').play(%q, 'random', { rows = 6, cols = 6, seed = 1, time = %d }) " ..
        "print(rec.termination)", "ugi:python3 " .. engine .. " " .. port .. " " .. log, MOVE_LIMIT) }
    assert(code == 0 and out == "normal\n", out)
    return H.read(log)
  end
  local on, off = said("1"), said("")
  stop(listener)
  assert(on:find("^reached\n") and not on:find("refused"), on)
  assert(off:find("^refused\n") and not off:find("reached"), off)
  H.cleanup()
end

-- The namespace's init execs a small program (konane-sandbox-init): a child that never execs
-- keeps a copy-on-write image of the referee, and every page the referee rewrites later is
-- copied into it (156 MB for a referee rewriting a 1e7-entry table). Here a referee with a
-- 1e6-entry table (16 MB) rewrites it with a player running: the init keeps nothing of it.
T["a sandboxed player's init is a small program of its own: none of the referee's memory"] = function()
  if not SANDBOX then return assert_refused() end
  local code, out = H.run { core.exe_path(), "-e", [[
    local core = require("konane").core
    local t = {}
    for i = 1, 1e6 do t[i] = i end
    local p = assert(core.spawn({ "sleep", "30" }, { sandbox = true }))
    for i = 1, 1e6 do t[i] = i + 1 end
    local f = assert(io.open("/proc/" .. p:pid() .. "/smaps_rollup"))
    local dirty = f:read("a"):match("Private_Dirty:%s+(%d+)")
    f:close()
    local exe = io.popen("readlink /proc/" .. p:pid() .. "/exe"):read("l")
    p:kill()
    p:wait(true)
    print(dirty, exe)
  ]] }
  assert(code == 0, out)
  local dirty, exe = out:match("^(%d+)\t(%S+)\n$")
  assert(dirty and tonumber(dirty) < 4096, "the init's private memory (kB): " .. out)
  assert(exe:match("/konane%-sandbox%-init$"), exe)
end

-- The init program is looked for beside the host program (or the module): where it is missing,
-- a sandboxed spawn is a clear error, never a player run without its sandbox.
T["without its init program beside the host, a sandboxed spawn says so; KONANE_NO_SANDBOX still runs"] = function()
  if not SANDBOX then return assert_refused() end
  local dir = H.tmpdir()
  assert(os.execute("cp " .. core.exe_path() .. " " .. dir .. "/konane"))
  local paths = "LUA_PATH=" .. os.getenv("PWD") .. "/lua/?.lua;" .. os.getenv("PWD") .. "/lua/?/init.lua;;"
  local script = "print(require('konane').core.spawn({ 'true' }, { sandbox = true }))"
  local _, out = H.run { "env", paths, dir .. "/konane", "-e", script }
  assert(out:find("^nil\tcannot start 'true' in its sandbox %(its init program " .. dir:gsub("%p", "%%%0") ..
    "/konane%-sandbox%-init: No such file or directory"), out)
  _, out = H.run { "env", paths, "KONANE_NO_SANDBOX=1", dir .. "/konane", "-e", script }
  assert(out:find("^konane.Process"), out)
  -- beside it, it is found: the player runs under it
  local init = core.exe_path():match("^(.*)/") .. "/konane-sandbox-init"
  assert(os.execute("cp " .. init .. " " .. dir .. "/"))
  _, out = H.run { "env", paths, dir .. "/konane", "-e", "local p = require('konane').core.spawn({ 'sleep', '5' }, " ..
    "{ sandbox = true }) print(io.popen('readlink /proc/' .. p:pid() .. '/exe'):read('l')) p:kill() p:wait(true)" }
  assert(out == dir .. "/konane-sandbox-init\n", out)
  H.cleanup()
end

-- A bot file's process keeps of konane.core only what a bot needs (server.lua's allow list):
-- not spawn, poll or sandbox, and not a function the core gains later (here one added before
-- the lockdown). The bot names itself after what it finds.
T["a bot file reaches only the allowed part of konane.core, not a function added later"] = function()
  local path = H.tmpdir() .. "/keys.lua"
  local f = assert(io.open(path, "w"))
  f:write([[
    local keys = {}
    for k in pairs(require("konane").core) do keys[#keys + 1] = k end
    table.sort(keys)
    return { name = table.concat(keys, ","), choose = function(_, g) return g:moves()[1] end }
  ]])
  f:close()
  local p = assert(core.spawn({ core.exe_path(), "-e", string.format([[
    local core = require("konane").core
    core.zz_added_later = function() end
    os.exit(require("konane.ugi.server").main(%q))
  ]], path) }, { stdin = true, stderr = false }))
  p:write("ugi\n")
  local out, expired = "", H.patience(30, p:pid())
  while not out:find("ugiok", 1, true) and not expired() do
    core.poll({ p }, 0.1)
    out = out .. (p:read() or "")
  end
  p:write("quit\n")
  p:wait(true)
  p:close()
  local names = assert(out:match("id name ([^\n]*)"), out)
  local allowed = require("konane.ugi.server").CORE_ALLOWED
  local seen = {}
  for k in names:gmatch("[^,]+") do
    assert(allowed[k], "a bot file reaches konane.core." .. k)
    seen[k] = true
  end
  for _, k in ipairs { "new", "clock", "hashtable", "call_limited" } do assert(seen[k], "missing: " .. k .. " in " .. names) end
  H.cleanup()
end

-- What core.spawn reports about processes must not depend on the sandbox: exit codes, deaths
-- by signal (also the child's own, which a namespace's init would ignore), p:kill, exec
-- failures. Returns the outcomes as one line.
local OUTCOMES = [[
  local core = require("konane").core
  local out = {}
  local function run(argv, sig)
    local p, err = core.spawn(argv, { sandbox = true, stdin = true })
    if not p then out[#out + 1] = err return end
    if sig then
      core.poll({ p }, 30) -- the child says it is ready
      p:read()
      p:kill(sig)
    end
    local how, code = p:wait(true)
    out[#out + 1] = how .. " " .. code
  end
  run { "sh", "-c", "exit 3" }
  run { "sh", "-c", "kill -TERM $$; sleep 5" }
  run { "sh", "-c", "kill -SEGV $$; sleep 5" }
  run { "python3", "-c", "import os; os.abort()" }
  run({ "sh", "-c", "echo ready; sleep 30" }, 15)
  run({ "sh", "-c", "echo ready; sleep 30" }, 9)
  run { "no-such-program-konane" }
  local p = core.spawn({ "sh", "-c", "echo $$" }, { sandbox = true })
  core.poll({ p }, 30)
  local pid, own = tonumber((p:read() or ""):match("%d+")), p:pid()
  p:wait(true)
  print(table.concat(out, "; "))
  print(tostring(p:sandboxed()) .. " " .. tostring(pid == own) .. " " .. tostring(pid))
  local _, why = core.sandbox()
  print(tostring(why))
]]

T["exit statuses, deaths by signal, kills and exec failures read the same sandboxed or not"] = function()
  local code, boxed = H.run { core.exe_path(), "-e", OUTCOMES }
  assert(code == 0, boxed)
  local code2, plain = H.run { "env", "KONANE_NO_SANDBOX=1", core.exe_path(), "-e", OUTCOMES }
  assert(code2 == 0, plain)
  local want = "exit 3; signal 15; signal 11; signal 6; signal 15; signal 9; " ..
               "cannot run 'no-such-program-konane': No such file or directory"
  assert(boxed:match("^[^\n]*") == want, boxed)
  assert(plain:match("^[^\n]*") == want, plain)
  -- forced off: as before the sandbox (the child's own pid), and the reason says why
  assert(plain:find("\nfalse true %d+\nKONANE_NO_SANDBOX is set\n$"), plain)
  if SANDBOX then
    -- the child is PID 2 of its namespace (its init is 1); p:pid() is the init's pid here
    assert(boxed:find("\ntrue false 2\nnil\n$"), boxed)
  else
    assert_refused()
    assert(boxed:find("\nfalse true %d+\n"), boxed)
  end
end

T["a tournament says once, at its start, that its engines run without a sandbox"] = function()
  local dir = H.tmpdir()
  local code, out = H.run { "env", "KONANE_NO_SANDBOX=1", core.exe_path(), "scripts/tournament.lua",
    "--bot", "ugi:python3 examples/ugi/konane_bot.py", "--bot", "random", "--size", "6x6", "--games", "2",
    "--time", tostring(MOVE_LIMIT), "--out", dir .. "/t" }
  assert(code == 0, out)
  local _, n = out:gsub("run without a sandbox here %(KONANE_NO_SANDBOX is set%)", "")
  assert(n == 1, out)
  -- built-in bots only: nothing to say
  code, out = H.run { "env", "KONANE_NO_SANDBOX=1", core.exe_path(), "scripts/tournament.lua",
    "--bot", "greedy", "--bot", "random", "--size", "6x6", "--games", "2", "--out", dir .. "/u" }
  assert(code == 0 and not out:find("sandbox", 1, true), out)
  H.cleanup()
end

return T
