-- tests/lua/run.lua [file...]: the Lua test harness, run by build/konane.
-- A test file returns a table of functions keyed by sentence-like names;
-- each runs under xpcall in sorted order. Output follows cmocka's summary
-- lines so scripts/run-tests.sh can add the counts up.
local core = require "konane.core"

local files = {}
for i = 1, #arg do files[#files + 1] = arg[i] end
if #files == 0 then
  for _, name in ipairs(core.listdir("tests/lua") or {}) do
    if name:match("^test_.*%.lua$") then files[#files + 1] = "tests/lua/" .. name end
  end
  table.sort(files)
end

local total_failed = 0
for _, file in ipairs(files) do
  local chunk, err = loadfile(file)
  local tests
  if chunk then
    local ok, res = xpcall(chunk, debug.traceback)
    if ok then tests = res else err = res end
  end
  if type(tests) ~= "table" then
    print(("[==========] %s"):format(file))
    print(("[  FAILED  ] %s did not load: %s"):format(file, tostring(err or "no table returned")))
    print("[  FAILED  ] 1 test(s)")
    total_failed = total_failed + 1
  else
    local names = {}
    for name, fn in pairs(tests) do
      if type(fn) == "function" then names[#names + 1] = name end
    end
    table.sort(names)
    print(("[==========] %s: %d test(s)"):format(file, #names))
    local passed, failed = 0, 0
    for _, name in ipairs(names) do
      local t0 = core.clock()
      local ok, msg = xpcall(tests[name], debug.traceback)
      if ok then
        passed = passed + 1
        print(("[       OK ] %s (%.0f ms)"):format(name, (core.clock() - t0) * 1000))
      elseif tostring(msg):match("^[^\n]*"):find("interrupted!$") then
        -- Ctrl-C or SIGTERM (the host raises it in whatever runs): stop the whole run, or it
        -- would go on with the next test after make itself has gone
        print(("[  STOPPED ] %s: interrupted"):format(name))
        io.stdout:flush()
        os.exit(130)
      else
        failed = failed + 1
        print(("[  ERROR   ] %s\n%s"):format(name, tostring(msg)))
        print(("[  FAILED  ] %s"):format(name))
      end
    end
    print(("[  PASSED  ] %d test(s)."):format(passed))
    if failed > 0 then print(("[  FAILED  ] %d test(s)"):format(failed)) end
    total_failed = total_failed + failed
  end
  io.stdout:flush()
end
os.exit(total_failed == 0 and 0 or 1)
