-- The worker process of konane.tournament: `konane tournament_worker.lua PATH CPATH` plays the
-- games the parent sends on stdin and prints their records (protocol: konane.tournament.worker).
-- Not a library module: the parent runs this file with the same interpreter it runs in, and
-- gives it its module paths so the worker loads the same library.
local path, cpath = ...
if type(path) ~= "string" or type(cpath) ~= "string" then
  io.stderr:write("tournament_worker.lua: run by konane.tournament, not by hand\n")
  os.exit(2)
end
package.path, package.cpath = path, cpath
require("konane.tournament.worker").main()
