-- An audit of the players' sandbox (docs/bots.md "Isolation") from inside: an engine that tries
-- to get out by the ways test_sandbox.lua does not (tracing or reading the memory of the
-- sandbox's init, joining its namespaces, uncovering the machine's /proc by unmounting or
-- mounting one, also from a nested user namespace) stays in; it opens no disk or console of the
-- machine (run by root), reaches none of its sockets (127.0.0.1, abstract unix) nor its System
-- V shared memory, and what it makes there ends with it; a fork bomb's processes die with
-- their engine. Where the system refuses the namespaces (or KONANE_NO_SANDBOX is set) each test
-- asserts what the fallback is: an engine that is not in a user namespace, with a reason given.
local H = dofile("tests/lua/helpers.lua")
local konane = require "konane"
local core = konane.core
local player = require "konane.ugi.player"

local T = {}

local F = "tests/lua/fixtures/ugi_audit_escape.py"
local SANDBOX, WHY = core.sandbox()
player.defaults.startup = 300 -- a limit, not a measure: a starved machine is no forfeit

-- Plays the escaper (MODE) against the example engine; returns the record and the escaper's
-- log as a table name -> result. 'addr' (text) is what the escaper finds in MARK.addr.
local function escape(mode, addr)
  local m = H.tmpdir() .. "/mark"
  if addr then H.write(m .. ".addr", addr) end
  local rec = konane.play("ugi:python3 " .. F .. " " .. mode .. " " .. m,
    "ugi:python3 examples/ugi/konane_bot.py", { rows = 6, cols = 6, seed = 1, time = 20 })
  player.close_all()
  local log, text = {}, ""
  local f = io.open(m .. ".log", "rb")
  if f then text = f:read("a") f:close() end
  for name, result in text:gmatch("([%w_]+): ([^\n]*)\n") do log[name] = result end
  return rec, log, text, m
end

-- The fallback: no user namespace around the engine, and the reason is given.
local function assert_fallback(log, text)
  assert(not SANDBOX and type(WHY) == "string" and WHY ~= "", "no reason given")
  assert(log.ns == "none", "the engine is in a user namespace without a sandbox: " .. text)
end

T["a sandboxed engine cannot trace its init, open its memory or join its namespaces"] = function()
  local rec, log, text = escape("trace")
  assert(rec.termination == "normal", tostring(rec.reason))
  assert(log.ns, "the tries did not run: " .. text)
  if not SANDBOX then return assert_fallback(log, text) end
  assert(log.ns == "user", text)
  -- its parent is the namespace's init, and it sees that one and itself (python may add none)
  assert(log.parent:match("^1, [23] processes visible$"), text)
  assert(log.ptrace == "EPERM", text)
  assert(log.mem_read ~= "ok" and log.mem_write ~= "ok", text)
  for _, ns in ipairs { "pid", "mnt", "user" } do
    assert(log["setns_" .. ns] and log["setns_" .. ns] ~= "ok", text)
  end
  H.cleanup()
end

T["a sandboxed engine cannot uncover the machine's /proc, even from a nested user namespace"] = function()
  local rec, log, text = escape("proc")
  assert(rec.termination == "normal", tostring(rec.reason))
  assert(log.ns, "the tries did not run: " .. text)
  if not SANDBOX then return assert_fallback(log, text) end
  assert(log.umount:match("^EPERM, [23] processes visible$"), text)
  assert(log.mount == "EPERM", text)
  -- a user namespace of its own gives it the capabilities, but the sandbox's /proc is locked
  -- onto what it hides
  local r, n = log.nested_umount:match("^(%S+), (%d+) processes visible$")
  assert(r and r ~= "ok" and tonumber(n) <= 4, text)
  -- a pid namespace of its own: a new proc there shows that namespace only, or is refused
  -- (the sandbox's read-only mounts over its /proc make a fresh proc "too revealing")
  local pr, pn = log.nested_pid_proc:match("^(%S+), (%d+) processes visible$")
  assert((pr == "ok" and pn == "1") or (pr == "EPERM" and tonumber(pn) <= 4), text)
  H.cleanup()
end

T["a referee run inside its output directory: its engines cannot write there through their working directory"] = function()
  local dir = H.tmpdir()
  local m = H.tmpdir() .. "/mark" -- the escaper's log: outside the (read-only) output directory
  local repo = H.sh("pwd"):gsub("%s+$", "")
  local code, text = H.run { "sh", "-c", "cd " .. H.sh_quote(dir) .. " && exec " .. H.sh_quote(core.exe_path()) .. " " ..
    H.sh_quote(repo .. "/scripts/tournament.lua") .. " --bot " ..
    H.sh_quote("ugi:python3 " .. repo .. "/" .. F .. " cwd " .. m) .. " --bot random --size 6x6 --games 2" ..
    " --time 20 --startup 300 --out . 2>&1" }
  assert(code == 0, text)
  local f = io.open(m .. ".log", "rb")
  local log = f and f:read("a") or ""
  if f then f:close() end
  assert(log:find("cwd_write: "), "the try did not run: " .. log .. text)
  if not SANDBOX then
    assert(log:find("ns: none"), log)
    return H.cleanup()
  end
  assert(log:find("cwd_write: Read-only file system", 1, true) and not log:find("cwd_write: ok", 1, true), log)
  H.cleanup()
end

T["the processes of an engine's fork bomb die with it"] = function()
  local rec, log, text, m = escape("bomb")
  assert(rec.termination == "normal", tostring(rec.reason))
  assert(log.bomb == "forked 100", "the bomb did not go off: " .. text)
  -- (sandboxed: the namespace dies with its init; fallback: the referee's sweep after the game)
  local left, want = 0, "\0bomb\0" .. m .. "\0"
  for _, name in ipairs(core.listdir("/proc") or {}) do
    local f = name:match("^%d+$") and io.open("/proc/" .. name .. "/cmdline", "rb")
    if f then
      local cmd = f:read("a") or ""
      f:close()
      local s = io.open("/proc/" .. name .. "/stat", "r")
      local state = s and (s:read("a") or ""):match("%)%s+(%a)")
      if s then s:close() end
      if cmd:find(want, 1, true) and state ~= "Z" then left = left + 1 end
    end
  end
  assert(left == 0, left .. " of the bomb's 100 processes left")
  H.cleanup()
end

-- Runs a Python program outside any sandbox (this test's helper on the referee's machine);
-- returns the process once it printed its first line, and that line.
local function host_python(code)
  local p = assert(core.spawn({ "python3", "-c", code }, { stdin = true }))
  local line, expired = "", H.patience(60, p:pid())
  while not line:find("\n") do
    assert(not expired(), "the helper printed nothing: " .. line)
    core.poll({ p }, 0.2)
    local chunk = p:read()
    assert(chunk, "the helper ended: " .. line)
    line = line .. chunk
  end
  return p, line
end

-- A key for System V IPC no other run picks at the same time.
local function ipc_key()
  local pid = tonumber(H.self_pid() or 0) or 0
  return 0x6b000000 + (pid * 4099 + math.floor(core.clock() * 1000)) % 0xfffff * 2
end

-- Runs 'py' (Python statements; 'l' is the C library) in a throwaway Python on this machine.
local function py(code)
  return H.sh("python3 -c " .. H.sh_quote("import ctypes; l = ctypes.CDLL(None); " .. code) .. " 2>&1")
end

T["a sandboxed engine opens no block device (run by root: a disk's) nor the machine's console, and still has /dev/null and /dev/urandom"] = function()
  local rec, log, text = escape("devices")
  assert(rec.termination == "normal", tostring(rec.reason))
  assert(log.ns, "the tries did not run: " .. text)
  if not SANDBOX then return assert_fallback(log, text) end
  assert(log.null_urandom == "ok", text)
  -- (a referee that is not root: the nodes are root's, refused anyway)
  assert(log.block_opened == "none", "block devices a player opened: " .. text)
  assert(log.char_opened == "none", "devices of the machine a player opened: " .. text)
  -- its own user namespace cannot uncover the machine's /dev either
  local r, n = (log.nested_dev or ""):match("^(%S+), (%d+) block devices$")
  assert(r and (r ~= "ok" or n == "0"), text)
  H.cleanup()
end

T["a sandboxed engine cannot reach the referee machine's sockets: a TCP port on 127.0.0.1, an abstract unix socket"] = function()
  local l, line = host_python([[
import os, socket, sys
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(8)
u = socket.socket(socket.AF_UNIX); name = "konane-audit-%d" % os.getpid(); u.bind("\0" + name); u.listen(8)
print(t.getsockname()[1], name, flush=True)
sys.stdin.read()
]])
  local port, name = line:match("(%d+) (%S+)")
  -- (the default: no network of the machine, whatever KONANE_SANDBOX_NETWORK says here)
  local network = player.network
  player.network = false
  local ok, rec, log, text = pcall(escape, "net", "tcp " .. port .. "\nunix " .. name .. "\n")
  player.network = network
  -- the listener is there for a process outside the sandbox
  local outside = py(([[
import socket
for f, a in ((socket.AF_INET, ("127.0.0.1", %s)), (socket.AF_UNIX, "\0%s")):
    s = socket.socket(f); s.connect(a); s.close()
print("reached")]]):format(port, name))
  l:kill()
  l:wait(true)
  l:close()
  assert(ok, rec)
  assert(rec.termination == "normal", tostring(rec.reason))
  assert(log.ns, "the tries did not run: " .. text)
  assert(outside:find("reached", 1, true), "the listener was not there: " .. outside)
  if not SANDBOX then return assert_fallback(log, text) end
  assert(log.tcp and log.tcp ~= "ok", "a sandboxed engine connected to 127.0.0.1:" .. port .. ": " .. text)
  assert(log.unix and log.unix ~= "ok", "a sandboxed engine connected to the abstract socket " .. name .. ": " .. text)
  H.cleanup()
end

T["a sandboxed engine cannot reach the machine's System V shared memory, and what it makes there ends with it"] = function()
  local key = ipc_key()
  local made = py(("print(l.shmget(%d, 4096, 0o1000 | 0o600))"):format(key))
  assert(tonumber(made) and tonumber(made) >= 0, "cannot make a segment here: " .. made)
  local ok, rec, log, text = pcall(escape, "ipc", "shm " .. key .. "\n")
  -- what is left of the two segments (key, key + 1), then none of them
  local left = H.sh(("awk '$1 == %d || $1 == %d { print $1 }' /proc/sysvipc/shm"):format(key, key + 1))
  py(("[l.shmctl(l.shmget(k, 0, 0), 0, None) for k in (%d, %d) if l.shmget(k, 0, 0) >= 0]"):format(key, key + 1))
  assert(ok, rec)
  assert(rec.termination == "normal", tostring(rec.reason))
  assert(log.ns, "the tries did not run: " .. text)
  if not SANDBOX then return assert_fallback(log, text) end
  assert(log.shm_theirs and log.shm_theirs ~= "ok", "a sandboxed engine attached the machine's segment: " .. text)
  assert(log.shm_mine == "ok", text)
  assert(not left:find(tostring(key + 1), 1, true), "the engine's segment outlived it: " .. left)
  H.cleanup()
end

T["an output directory deep inside the players' writable path: no engine moves it away or plants links in its place"] = function()
  -- KONANE_SANDBOX_WRITABLE=W, --out W/runs/t1: the bind that keeps the directory read-only is
  -- on the directory, not on its parent, which the engine may rename
  local w = H.tmpdir()
  assert(os.execute("mkdir " .. H.sh_quote(w .. "/runs")))
  local out, canary, m = w .. "/runs/t1", H.tmpdir() .. "/canary", w .. "/mark"
  H.write(canary, "untouched")
  H.write(m .. ".addr", "out " .. out .. "\ncanary " .. canary .. "\n")
  local code, text = H.run { "env", "KONANE_SANDBOX_WRITABLE=" .. w, core.exe_path(), "scripts/tournament.lua",
    "--bot", "ugi:python3 " .. F .. " outdir " .. m, "--bot", "random", "--size", "6x6", "--games", "2",
    "--time", "20", "--startup", "300", "--out", out }
  local f = io.open(m .. ".log", "rb")
  local log = f and f:read("a") or ""
  if f then f:close() end
  assert(log:find("rename: "), "the try did not run: " .. log .. text)
  if not SANDBOX then
    assert(log:find("ns: none"), log)
    return H.cleanup()
  end
  assert(H.read(canary) == "untouched", "the referee wrote through a link the engine planted: " .. log .. text)
  local links = H.sh("find " .. H.sh_quote(w) .. " -type l")
  assert(links == "" or code ~= 0, "links in the output directory and the run went on: " .. links .. log)
  if code == 0 then
    assert(#require("konane.pgn").read(H.read(out .. "/games.pgn")) == 2, "the records are not where the run said")
  end
  H.cleanup()
end

return T
