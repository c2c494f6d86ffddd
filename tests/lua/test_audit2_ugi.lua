-- A UGI engine that answers in a way the referee cannot take loses on time, and the reason
-- says what it sent: an answer without its line end (CR alone), a line the referee does not
-- read as an answer (`BESTMOVE d5`, a BOM before `bestmove`).
local konane = require "konane"

local T = {}

-- A player for a shell engine that shakes hands and answers every go with 'answer' (printf
-- format), then waits. (2 s a move: a loaded machine must not cut an answer that came.)
local function engine(answer)
  local script = "while read -r cmd rest; do case $cmd in "
    .. "ugi) printf 'id name shellbot\\nugiok\\n';; isready) printf 'readyok\\n';; "
    .. "go) printf '" .. answer .. "';; quit) exit 0;; esac; done"
  return konane.bot { ugi = { "sh", "-c", script }, name = "shellbot" }
end

local function forfeit(answer)
  local record = konane.play(engine(answer), "random", { rows = 6, cols = 6, seed = 1, time = 2 })
  assert(record.termination == "time forfeit", "a time forfeit, got " .. tostring(record.termination)
    .. ": " .. tostring(record.reason))
  assert(record.winner == "white" and record.forfeit == "black" and #record.moves == 0,
    "black loses at its first move")
  return record.reason
end

T["a time forfeit names an answer without a line end and a line that is no answer"] = function()
  local r = forfeit("info depth 1\\rbestmove d3\\r")
  assert(r:find("no bestmove within", 1, true), r)
  assert(r:find("its output ends without a newline: 'info depth 1\\x0Dbestmove d3\\x0D'", 1, true), r)
  r = forfeit("BESTMOVE d3\\n")
  assert(r:find("the last line it sent: 'BESTMOVE d3'", 1, true), r)
  r = forfeit("info depth 2\\n\\357\\273\\277bestmove d3\\n")
  assert(r:find("the last line it sent: '\\xEF\\xBB\\xBFbestmove d3'", 1, true), r)
  -- long text is cut between characters, never inside one (a cut one would show as \xNN)
  r = forfeit(("\195\169"):rep(60) .. "\\r\\r\\r")
  assert(r:find("its output ends without a newline: '..." .. ("\195\169"):rep(38) .. "\\x0D\\x0D\\x0D'", 1, true), r)
  r = forfeit("x" .. ("\195\169"):rep(60) .. "\\n")
  assert(r:find("the last line it sent: 'x" .. ("\195\169"):rep(49) .. "...'", 1, true), r)
  -- an engine that sent nothing at all: the reason as before
  r = forfeit("")
  assert(r:match("no bestmove within [%d.]+ s$"), r)
end

T["a tournament's reasons name an engine as its tags do, not by the engine's id name"] = function()
  local H = dofile("tests/lua/helpers.lua")
  local dir = H.tmpdir()
  -- says its id name, then never answers a go
  H.write(dir .. "/eng.sh", "while read -r cmd rest; do case $cmd in "
    .. "ugi) printf 'id name shellbot\\nugiok\\n';; isready) printf 'readyok\\n';; quit) exit 0;; esac; done\n")
  require("konane.tournament").run { bots = { "ugi:sh " .. dir .. "/eng.sh", "random" }, games = 2,
    rows = 4, cols = 4, time = 0.5, seed = 1, out = dir .. "/t", progress = false }
  local text = H.read(dir .. "/t/games.pgn")
  local n = 0
  for side, name, rest in text:gmatch('%[Reason "(%a+) %((.-)%): ([^"]*)"%]') do
    n = n + 1
    assert(name == "ugi:sh eng.sh", "the reason names '" .. name .. "' (" .. side .. ": " .. rest .. ")")
    assert(text:find('[' .. (side == "black" and "Black" or "White") .. ' "ugi:sh eng.sh"]', 1, true))
  end
  assert(n == 2, "both games lost by the engine, with a reason: " .. n)
end

return T
