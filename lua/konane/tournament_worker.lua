-- The worker process of konane.tournament: `konane tournament_worker.lua TASK` plays the one
-- game described by TASK (a Lua table literal written by the parent) and prints its record.
-- Not a library module: the parent runs this file with the same interpreter it runs in.
local task_text = ...
if type(task_text) ~= "string" then
  io.stderr:write("tournament_worker.lua: run by konane.tournament, not by hand\n")
  os.exit(2)
end
-- the parent's module paths first, so the worker loads the same library as the parent
local chunk = load("return " .. task_text, "=task", "t", {})
local task = chunk and chunk()
if type(task) == "table" and type(task.paths) == "table" then
  package.path = task.paths.path or package.path
  package.cpath = task.paths.cpath or package.cpath
end
require("konane.tournament").worker_main(task_text)
