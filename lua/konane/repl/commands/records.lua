-- REPL commands for game records and variants: pgn, open, variants.

local S = require("konane.repl.session")
local other = S.other

local function pgn_module()
  local ok, pgn = pcall(require, "konane.pgn")
  if not ok then S.fail("game records (konane.pgn) are not available: " .. S.clean(pgn)) end
  return pgn
end

--- record(g) -> the konane.pgn record of game 'g' as the REPL knows it: the players of vs()
-- ("you" and the bot's name; a bot from a file is named by its name, its path in a tag), the
-- start position when it is not the variant's, the result once the game is over.
local function record(g)
  local info = { game = g, event = "konane REPL", tags = {} }
  local players = S.players[g]
  if players then
    for _, side in ipairs { "black", "white" } do
      local p = players[side]
      if p then
        info[side] = p.name
        if p.path then info.tags[side == "black" and "BlackFile" or "WhiteFile"] = p.path end
      end
    end
  end
  local opp = S.opponent
  if g:over() then
    info.winner = g:winner()
  elseif opp and opp.game == g and opp.over then
    info.winner, info.termination = opp.over.winner, "time forfeit"
    info.reason, info.forfeit = opp.over.reason, other(opp.over.winner)
  end
  return pgn_module().record(info)
end

return {
  record = record,
  {
    name = "pgn", usage = "pgn(path)", line = "the game record; pgn(\"game.pgn\") saves it",
    detail = [[
pgn() prints the current game as a PGN-style record (tags, numbered moves, result: * while
the game goes on); after vs() the players are named. pgn("game.pgn") writes it to a file
instead (replacing it), and pgn("games.pgn", "a") appends. open("game.pgn") reads a game back.]],
    fn = function(path, mode)
      local g = S.game()
      local pgn = pgn_module()
      local rec = record(g)
      if path == nil then
        S.write(pgn.write(rec))
        return
      end
      if type(path) ~= "string" then error("a file name expected, got " .. type(path), 0) end
      if mode ~= nil and mode ~= "a" and mode ~= "w" then error("mode must be \"w\" or \"a\"", 0) end
      local ok, err = pgn.write_file(path, rec, mode == "a" and "a" or "w")
      if not ok then S.fail_write(path, err) end
      print(string.format("saved %d move%s to %s", #rec.moves, #rec.moves == 1 and "" or "s", path))
    end,
  },
  {
    name = "open", usage = "open(path, n)", line = "load game n (default 1) of a PGN file into g",
    detail = [[
open("game.pgn") replays the first game of the file into the global g (with its variant, board
and start position); open("games.pgn", 3) the third; open("games.pgn", -1) the last. back(),
forward() and seek(ply) then step through it.]],
    fn = function(path, n)
      if type(path) ~= "string" then error("a file name expected, got " .. type(path), 0) end
      n = S.whole(n)
      if n ~= nil and math.type(n) ~= "integer" then error("n must be a whole number (a game of the file)", 0) end
      local pgn = pgn_module()
      local records, err = pgn.read_file(path)
      if not records or #records == 0 then
        -- the reader's message names the file and line ("games.pgn:12: ..."): keep it whole
        S.fail(err and tostring(err):match("^[^\n]*") or ("no game in " .. path))
      end
      n = n or 1
      local index = n < 0 and #records + 1 + n or n
      local rec = records[index]
      if not rec then
        S.fail(string.format("%s has %d game%s; there is no game %d", path, #records,
          #records == 1 and "" or "s", n))
      end
      local ok, g = pcall(pgn.replay, rec)
      if not ok then S.fail(string.format("%s, game %d: %s", path, index, S.clean(g))) end
      S.set_game(g)
      S.sync(g)
      local tags = rec.tags or {}
      S.players[g] = { black = tags.Black and { name = tags.Black }, white = tags.White and { name = tags.White } }
      print(string.format("game %d of %d: %s - %s, %s, %d moves", index, #records, tostring(tags.Black or "?"),
        tostring(tags.White or "?"), tostring(tags.Result or "*"), #(rec.moves or {})))
      S.show_board(g)
      if err then print("note: " .. tostring(err):match("^[^\n]*")) end
    end,
  },
  {
    name = "variants", usage = "variants()", line = "list the opening variants",
    detail = [[
The variants konane.variants() finds: built-in ones in lua/konane/variants/ and your own on
package.path. Use one with new(8, 8, "free").]],
    fn = function()
      local k = S.need_konane()
      for _, v in ipairs(k.variants()) do
        print(string.format("%-12s %s", v.name, v.description or ""))
      end
    end,
  },
}
