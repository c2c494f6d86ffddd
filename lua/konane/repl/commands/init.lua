-- konane.repl.commands: the registry of REPL commands (new, play, vs, help ...).
--
-- A command is one table: { name=, usage=, line=, detail=, fn= }: 'usage' how it is called
-- ("pgn(path)"), 'line' its one-line help (help() lists it), 'detail' what help("name") adds,
-- 'fn' the function. The commands live in groups, one file each under lua/konane/repl/commands/,
-- returning a list of such tables; GROUPS below names them in the order help() lists them. To
-- add a command: add its table to a group file, or add a group file and its name to GROUPS.
--
-- The function a user calls is not 'fn' itself but a wrapper (the entry's 'call'): an error
-- becomes one plain line naming the call, `new(30): rows must be 1..20`, without a position or a
-- traceback; errors raised with session.fail() are shown as they are; Ctrl-C passes through.

local S = require("konane.repl.session")

local M = {}

M.GROUPS = { "game", "engine", "cgt", "vs", "records", "pictures", "help" }

M.list = {}     -- the commands in help order
M.by_name = {}  -- name -> command

local format -- konane.repl.format, loaded on first use (it needs the session)

-- "new(30)", "vs(\"alphabta\")": the call as the user typed it, short.
local function call_text(name, n, args)
  format = format or require("konane.repl.format")
  local parts = {}
  for i = 1, n do
    local s = format.format(args[i], { color = false }):gsub("\n%s*", " ")
    if #s > 40 then s = s:sub(1, 37) .. "..." end
    parts[i] = s
  end
  return name .. "(" .. table.concat(parts, ", ") .. ")"
end

local function wrap(cmd)
  local fn, name = cmd.fn, cmd.name
  return function(...)
    local args = table.pack(...)
    local res = table.pack(pcall(fn, ...))
    if res[1] then return table.unpack(res, 2, res.n) end
    local err = res[2]
    if S.is_plain(err) or S.is_interrupt(err) or type(err) ~= "string" then error(err, 0) end
    S.fail(call_text(name, args.n, args) .. ": " .. S.clean(err))
  end
end

--- add(cmd) -> cmd
-- Registers a command (replacing one of the same name, keeping its place in the list).
function M.add(cmd)
  for _, k in ipairs { "name", "usage", "line", "detail" } do
    if type(cmd[k]) ~= "string" then error("command needs a string '" .. k .. "'", 2) end
  end
  if type(cmd.fn) ~= "function" then error("command '" .. cmd.name .. "' needs a function 'fn'", 2) end
  cmd.call = wrap(cmd)
  if not M.by_name[cmd.name] then M.list[#M.list + 1] = cmd end
  for i, c in ipairs(M.list) do
    if c.name == cmd.name then M.list[i] = cmd end
  end
  M.by_name[cmd.name] = cmd
  return cmd
end

--- find(name_or_function) -> the command called so, or whose call or fn it is (nil: none)
function M.find(what)
  if type(what) == "string" then return M.by_name[what] end
  for _, c in ipairs(M.list) do
    if c.call == what or c.fn == what then return c end
  end
  return nil
end

for _, group in ipairs(M.GROUPS) do
  for _, cmd in ipairs(require("konane.repl.commands." .. group)) do M.add(cmd) end
end

return M
