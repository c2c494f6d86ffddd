-- luacheck configuration: `luacheck lua scripts examples tests` (make lint) must print no warning.
std = "lua54"
-- long lines are HTML/JS templates and messages; layout is not luacheck's concern here
max_line_length = false
ignore = {
  "581",      -- 'not (x > y)' is written on purpose where x may be NaN (a NaN must fail a check)
  "212/self", -- methods keep 'self' for the colon syntax even when they do not use it
}
files["tests/lua"] = {
  -- the tests replace print and io.write to capture what the REPL and scripts print
  ignore = { "121", "122" },
}
files["lua/konane/ugi/server.lua"] = {
  -- the engine side takes string.dump away from the bot it serves
  ignore = { "122" },
}
