-- konane.repl: what the `konane` REPL knows about Konane and about showing Lua values.
--
-- The host (src/repl.c) owns the terminal: readline, history, Ctrl-C. It asks this module for:
--   start(opts)            install the commands as globals, make the game `g`, return the banner;
--   rewrite(line)          a typed move or a bare command name -> Lua code to run instead (or nil);
--   show(...)              print the values an expression returned (pretty-printed);
--   complete(word, line, start)   completion candidates for the word before the cursor;
--   opts                   a table the host writes the terminal width into.
-- The parts: konane.repl.session (state shared by the commands), .format (pretty-printer,
-- scores), .complete, .match (moves and the vs() opponent), .commands (the command registry and
-- its groups). The board is drawn by konane.draw, as everywhere else.

local S = require("konane.repl.session")
local format = require("konane.repl.format")
local complete = require("konane.repl.complete")
local match = require("konane.repl.match")
local commands = require("konane.repl.commands")

local M = {}

M.opts = S.opts
M.session = S
M.fail = S.fail
M.format = format.format
M.quote = format.quote
M.show = format.show
M.complete = complete.complete
M.commands = commands.by_name
M.record = require("konane.repl.commands.records").record

--- order: the command names in help order (a live view of the registry)
M.order = setmetatable({}, {
  __index = function(_, i) local c = commands.list[i] return c and c.name end,
  __len = function() return #commands.list end,
})

--- draw(game, {color=}) -> the board as this session draws it (konane.draw with its side/colour)
function M.draw(game, o)
  return S.board(game, o)
end

-- ---------------------------------------------------------------------------------------------
-- Typed moves and bare command names

-- Does 's' read as a move: a square, or squares joined by '-' (or nothing)?
local function looks_like_move(s)
  local rest = s:match("^%a%d%d?(.*)$")
  if not rest then return false end
  while rest ~= "" do
    local r = rest:match("^%-?%a%d%d?(.*)$")
    if not r then return false end
    rest = r
  end
  return true
end

--- rewrite(line) -> code or nil
-- A line that reads as a move (d5, f5-d5, F5-B5, f5b5, f5-d5-b5) is played on the current game,
-- unless one of its names is a global with a value (then it is Lua). A line that is only the
-- name of a REPL command (board, help, undo ...) calls it. Anything else: nil (run as Lua).
function M.rewrite(line)
  local s = line:match("^%s*(.-)%s*;?%s*$")
  if s == "" then return nil end
  if looks_like_move(s) then
    for name in s:gmatch("[%a_][%w_]*") do
      if rawget(_G, name) ~= nil then return nil end
    end
    return string.format("require('konane.repl').typed_move(%q)", s)
  end
  local c = commands.by_name[s] or (s == "exit" and commands.by_name.quit)
  if c and rawget(_G, s) == c.call then
    return s .. "()"
  end
  return nil
end

--- typed_move(move): what a move typed at the prompt runs (play with a short error message).
function M.typed_move(move)
  match.play(move)
end

-- ---------------------------------------------------------------------------------------------
-- Start

local function banner()
  local k, why = S.konane()
  local lines = {}
  lines[#lines + 1] = S.paint("bold", string.format("konane %s", k and tostring(k.VERSION) or "?")) ..
    string.format(" (%s), Hawaiian checkers.", _VERSION)
  if k then
    lines[#lines + 1] = "To play the engine, type vs() and then your moves: d5 first, then jumps such as"
    lines[#lines + 1] = "b5-d5 (moves() lists them). help() lists the commands; any Lua works, the game is g."
    lines[#lines + 1] = "Tab completes, Ctrl-C stops a search, Ctrl-D quits."
  else
    lines[#lines + 1] = "The konane module did not load: " .. tostring(why)
  end
  return table.concat(lines, "\n") .. "\n"
end

--- start({tty=, color=, banner=}) -> banner text
-- Installs the commands as globals (never replacing a global the user already set), loads
-- konane into the global `konane` and starts an 8x8 game in `g`.
function M.start(o)
  o = o or {}
  S.opts.tty = o.tty and true or false
  S.opts.color = o.color and true or false
  local k = S.konane()
  if k and rawget(_G, "konane") == nil then rawset(_G, "konane", k) end
  for _, c in ipairs(commands.list) do
    if rawget(_G, c.name) == nil then rawset(_G, c.name, c.call) end
  end
  if rawget(_G, "exit") == nil then rawset(_G, "exit", commands.by_name.quit.call) end
  if k and rawget(_G, "g") == nil then
    local ok, g = pcall(k.new)
    if ok then rawset(_G, "g", g) end
  end
  return banner()
end

return M
