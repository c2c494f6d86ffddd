-- konane.tournament.merge: the union of the shard directories of one tournament.
--
-- merge(dirs, out, log) -> results: the games of several shard directories of one tournament
-- (same settings apart from the shard), each game counted once. 'out' (optional) receives the
-- merged games.pgn, tournament.cfg and results.json. Returns a function of the package table
-- (for its file names and write_results).

local cfg = require("konane.tournament.cfg")
local files = require("konane.tournament.files")
local game = require("konane.tournament.game")
local journal = require("konane.tournament.journal")
local json = require("konane.tournament.json")
local results = require("konane.tournament.results")
local schedule = require("konane.tournament.schedule")
local settings = require("konane.tournament.settings")

return function(T)
  return function(dirs, out, log)
    log = log or function(msg) io.stderr:write(msg, "\n") end
    if #dirs == 0 then error("merge needs at least one tournament directory", 0) end
    local base, s, games
    local done, texts = {}, {}
    for _, dir in ipairs(dirs) do
      local path = dir .. "/" .. T.CONFIG_FILE
      local text = files.read(path)
      if not text then error(dir .. " holds no tournament (no " .. T.CONFIG_FILE .. ")", 0) end
      local c = cfg.decode(text, path)
      local key = json.encode({ c.format, c.games, c.rounds, c.variant, c.rows, c.cols, c.time or false,
                                c.tc or false, c.margin or 0, c.seed,
                                c.sprt or false, c.bots, c.openings, c.event }, { exact = true, compact = true })
      if not base then
        base = key
        if c.format == "swiss" then error("Swiss tournaments cannot be merged (they are never sharded)", 0) end
        local bots = {}
        for i, b in ipairs(c.bots) do bots[i] = { spec = b.spec, label = b.name } end
        s = settings.check { bots = bots, format = c.format, games = c.games, rounds = c.rounds,
                             variant = c.variant, rows = c.rows, cols = c.cols, time = c.time, tc = c.tc,
                             margin = c.margin,
                             seed = c.seed, sprt = c.sprt, event = c.event }
        s.openings_list = c.openings
        games = schedule.fixed(s)
      elseif key ~= base then
        error(dir .. " is not a shard of the same tournament as " .. dirs[1] .. " (different settings)", 0)
      end
      local jpath = dir .. "/" .. T.GAMES_FILE
      local jt = files.read(jpath) or ""
      for _, chunk in ipairs(journal.split(jt)) do
        local r, why
        if chunk.junk then why = "not a game record" else r, why = journal.parse(chunk.text) end
        if r then why = journal.mismatch(s, r, games[r.id], #games) end
        if not why then
          if not done[r.id] then done[r.id], texts[r.id] = game.summary(r), chunk.text end
        else
          local line = select(2, jt:sub(1, chunk.first - 1):gsub("\n", "")) + 1
          log(string.format("%s:%d: skipped a record: %s", jpath, line, why))
        end
      end
    end
    local counted, sprt = done, nil
    if s.sprt then
      sprt = results.sprt_state(s, games, done)
      counted = {}
      for id = 1, sprt.games do counted[id] = done[id] end
    end
    local res = results.compute(s, games, counted)
    res.sprt = sprt
    res.scheduled = #games
    local n = 0
    for _ in pairs(done) do n = n + 1 end
    res.complete = n >= #games
    res.missing = #games - n
    res.merged = dirs
    if out then
      files.mkdir(out)
      local ids = {}
      for id in pairs(texts) do ids[#ids + 1] = id end
      table.sort(ids)
      local parts = {}
      for _, id in ipairs(ids) do parts[#parts + 1] = texts[id] end
      local saved = settings.saved(s)
      saved.shard = nil
      files.write_atomic(out .. "/" .. T.CONFIG_FILE, cfg.encode(saved))
      files.write_atomic(out .. "/" .. T.GAMES_FILE, table.concat(parts))
      T.write_results(out, res)
    end
    return res
  end
end
