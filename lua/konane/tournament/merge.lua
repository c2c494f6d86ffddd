-- konane.tournament.merge: the union of the shard directories of one tournament.
--
-- merge(dirs, out, log) -> results: the games of several shard directories of one tournament
-- (same settings apart from the shard), each game counted once. Two records of one game (a
-- shard played twice) must tell the same game, or nothing is merged and the message lists them.
-- 'out' (optional) receives the merged games.pgn, tournament.cfg and results.json. Returns a
-- function of the package table
-- (for its file names and write_results).

local cfg = require("konane.tournament.cfg")
local files = require("konane.tournament.files")
local game = require("konane.tournament.game")
local journal = require("konane.tournament.journal")
local json = require("konane.tournament.json")
local results = require("konane.tournament.results")
local schedule = require("konane.tournament.schedule")
local settings = require("konane.tournament.settings")

-- How a game went, as two records of it must agree: the winner and how it ended (for the
-- message), and its moves.
local function outcome(sum, mv)
  return string.format("%s won (%s) after %d moves", tostring(sum.winner), sum.termination, sum.plies),
         table.concat(mv, " ")
end

return function(T)
  return function(dirs, out, log)
    log = log or function(msg) io.stderr:write(msg, "\n") end
    if #dirs == 0 then error("merge needs at least one tournament directory", 0) end
    local base, s, games
    local done, texts, where, moves, conflicts = {}, {}, {}, {}, {}
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
      local line, last = 1, 1
      for _, chunk in ipairs(journal.split(jt)) do
        local r, why
        if chunk.junk then why = "not a game record" else r, why = journal.parse(chunk.text) end
        if r then why = journal.mismatch(s, r, games[r.id], #games) end
        -- lines counted from the previous record on: linear in the size of the journal
        line = line + select(2, jt:sub(last, chunk.first - 1):gsub("\n", ""))
        last = chunk.first
        if not why then
          local sum = game.summary(r)
          if not done[r.id] then
            done[r.id], texts[r.id], where[r.id], moves[r.id] = sum, chunk.text, jpath .. ":" .. line, r.moves
          else
            local first, first_moves = outcome(done[r.id], moves[r.id])
            local second, second_moves = outcome(sum, r.moves)
            if first == second and first_moves ~= second_moves then second = second .. " with other moves" end
            if first ~= second then
              conflicts[#conflicts + 1] = string.format("game %d: %s says %s, %s:%d says %s", r.id,
                where[r.id], first, jpath, line, second)
            end
          end
        else
          log(string.format("%s:%d: skipped a record: %s", jpath, line, why))
        end
      end
    end
    if #conflicts > 0 then
      -- the standings would depend on the order of the directories: say so, merge nothing
      local shown = { table.unpack(conflicts, 1, math.min(#conflicts, 5)) }
      if #conflicts > 5 then shown[#shown + 1] = string.format("(and %d more)", #conflicts - 5) end
      error(string.format("%d game%s recorded differently in two directories:\n  %s\n" ..
        "Merge only the directories whose games you trust (nothing was written)", #conflicts,
        #conflicts == 1 and " is" or "s are", table.concat(shown, "\n  ")), 0)
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
