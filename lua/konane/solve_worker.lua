-- The worker process of konane.solve: `konane solve_worker.lua PATHS` solves the units the parent
-- sends on stdin (protocol: konane.solve.worker_main). Not a library module: the parent runs this
-- file with the same interpreter it runs in.
local paths_text = ...
if type(paths_text) ~= "string" then
  io.stderr:write("solve_worker.lua: run by konane.solve, not by hand\n")
  os.exit(2)
end
-- the parent's module paths, so the worker loads the same library as the parent
local chunk = load("return " .. paths_text, "=paths", "t", {})
local paths = chunk and chunk()
if type(paths) == "table" then
  package.path = paths.path or package.path
  package.cpath = paths.cpath or package.cpath
end
require("konane.solve").worker_main()
