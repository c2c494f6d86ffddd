-- scripts/report.lua DIR...: (re)build DIR/report.html from DIR/results.json and DIR/games.pgn,
-- for a finished, interrupted or merged tournament directory.
--
-- Exit status: 0 written, 1 a directory could not be reported, 2 bad usage.

local USAGE = [[
Usage: konane scripts/report.lua DIR [DIR...]

Writes DIR/report.html: standings with Elo error bars, the crosstable, Elo over the
games (and the SPRT's path), the list of games and a game viewer, in one HTML file
that opens from the disk. DIR is a tournament directory (results.json and games.pgn),
for example one written by scripts/tournament.lua --merge ... --out DIR.
]]

local dirs = {}
for i = 1, #arg do
  local a = arg[i]
  if a == "-h" or a == "--help" then
    io.write(USAGE)
    os.exit(0)
  elseif a:sub(1, 1) == "-" then
    io.stderr:write(("report.lua: unknown option '%s'\n%s"):format(a, USAGE))
    os.exit(2)
  end
  dirs[#dirs + 1] = a
end
if #dirs == 0 then
  io.stderr:write("report.lua: a tournament directory is needed\n" .. USAGE)
  os.exit(2)
end

local report = require "konane.report"
local status = 0
for _, dir in ipairs(dirs) do
  local path, err = report.write(dir)
  if path then
    print(path)
  else
    io.stderr:write(("report.lua: %s\n"):format(err))
    status = 1
  end
end
os.exit(status)
