-- REPL commands that ask the engine: hint, analyze, go, perft, solve.

local S = require("konane.repl.session")
local match = require("konane.repl.match")
local format = require("konane.repl.format")

local paint, write, side_name = S.paint, S.write, S.side_name

-- A progress reporter for g:search{info=}: on a terminal, 'mode' "lines" prints one line per
-- completed depth, "status" keeps one line updated in place; elsewhere nothing is printed.
-- Returns the callback, a function to call at the end (erases the status line) and a function
-- returning the last report (the best line found so far, kept even when nothing is printed).
local function progress(mode)
  local last
  local shown = false
  local show = S.opts.tty and (mode == "lines" or S.can_redraw())
  local function cb(t)
    if type(t) ~= "table" then return end
    last = t
    if not show then return end
    local s = format.info_line(t)
    local width = (tonumber(S.opts.width) or 80) - 3
    if #s > width then s = s:sub(1, width - 3) .. "..." end
    if mode == "lines" then
      write(s, "\n")
    else
      write("\r\27[K", paint("dim", s))
      shown = true
    end
  end
  return cb, function() if shown then write("\r\27[K") end end, function() return last end
end

local function search(g, limits)
  if not g.search then S.fail("the engine's search (g:search) is not in this build") end
  return g:search(limits)
end

local function check_seconds(seconds)
  if seconds ~= nil and (type(seconds) ~= "number" or not (seconds > 0) or seconds > 1e6) then
    error("seconds must be a number above 0, at most 1000000", 0)
  end
end

return {
  {
    name = "hint", usage = "hint(seconds)", line = "the engine's suggestion for the side to move",
    detail = [[
Searches the current position (1 second by default) and prints the best move, its score (a
proved result as "win in 5" / "loss in 4", counted in plies; otherwise moves of mobility for
the side to move, +1.0 = one move more than the opponent) and the expected line, without
playing it. Ctrl-C stops the search early and shows the best move found so far.]],
    fn = function(seconds)
      check_seconds(seconds)
      local g = S.game()
      if g:over() then print(match.result_line(g)) return end
      local cb, done, last = progress("status")
      local ok, r = pcall(search, g, { time = seconds or S.think_time, info = cb })
      done()
      if not ok then
        if S.is_interrupt(r) and last() then
          print("interrupted; hint so far: " .. format.result(last()))
          return
        end
        error(r, 0)
      end
      print("hint: " .. format.result(r))
    end,
  },
  {
    name = "analyze", usage = "analyze(seconds)", line = "search with live progress: depth, score, best line",
    detail = [[
analyze(5) searches the position for 5 seconds, printing a line per completed depth (depth,
score for the side to move, nodes, time, the expected line). analyze() runs until Ctrl-C,
which ends it with the best line found so far. The game is not changed.]],
    fn = function(seconds)
      check_seconds(seconds)
      local g = S.game()
      if g:over() then print(match.result_line(g)) return end
      local cb, done, last = progress("lines")
      if S.opts.tty and not seconds then print(paint("dim", "analysing until Ctrl-C...")) end
      local ok, r = pcall(search, g, { time = seconds or 1e6, info = cb })
      done()
      if not ok then
        if not S.is_interrupt(r) then error(r, 0) end
        if not last() then print("interrupted before the first depth was done") return end
        print("interrupted; best: " .. format.result(last()))
        return
      end
      print("best: " .. format.result(r))
      local note = require("konane.cgt").split_note(g)
      if note then print(note) end
    end,
  },
  {
    name = "go", usage = "go(seconds)", line = "let the engine play a move for the side to move",
    detail = [[
The engine searches (1 second by default), plays its move and shows the board. Against an
opponent set by vs(), the opponent then answers as usual; when it is the opponent's own turn
(after Ctrl-C stopped it, or after back()), go() lets it move, with its own settings (a
number of seconds is refused then: the bot's spec sets its time).]],
    fn = function(seconds)
      check_seconds(seconds)
      local g = S.game()
      if g:over() then print(match.result_line(g)) return end
      local opp = S.opponent
      if opp and opp.game == g and g:turn() == opp.side and not opp.over then
        -- the bot thinks as its spec says: go(0.2) silently waited the bot's own time
        if seconds ~= nil then
          error(("it is %s's turn: it thinks with its own settings (vs() chose them); go() lets it move")
            :format(tostring(opp.bot.name or "the bot")), 0)
        end
        match.replies(g)  -- the bot of vs() moves for its side
        S.show_board(g)
        return
      end
      local cb, done = progress("status")
      local ok, r = pcall(search, g, { time = seconds or S.think_time, info = cb })
      done()
      if not ok then error(r, 0) end
      print("engine plays " .. format.result(r))
      match.play(r.move)
    end,
  },
  {
    name = "perft", usage = "perft(depth)", line = "count the move sequences of a depth, with the time taken",
    detail = [[
perft(6) counts the leaf positions 6 plies from here. perft() runs depths 1, 2, ... until a
depth takes more than a second. Ctrl-C stops a long count.]],
    fn = function(depth)
      local g = S.game()
      depth = S.whole(depth)
      if depth ~= nil and (math.type(depth) ~= "integer" or depth < 0 or depth > 64) then
        error("depth must be a whole number from 0 to 64", 0)
      end
      local function one(d)
        local t0 = S.now()
        local n = g:perft(d)
        local dt = S.now() - t0
        local rate = dt >= 0.01 and string.format("  %8s leaves/s", format.count(n / dt)) or ""
        print(string.format("perft(%2d) = %14d  %8.3f s%s", d, n, dt, rate))
        return dt, n
      end
      if depth then one(depth) return end
      for d = 1, 64 do
        local dt, n = one(d)
        if dt > 1 or n == 0 then break end
      end
    end,
  },
  {
    name = "solve", usage = "solve(seconds)", line = "solve the position exactly: who wins, with which move",
    detail = [[
Searches to the end of the game (no time limit by default; solve(10) gives up after 10
seconds). Ctrl-C stops it. Boards up to about 6x6 solve quickly; 8x8 from the start does not.]],
    fn = function(seconds)
      check_seconds(seconds)
      local g = S.game()
      if not g.solve then S.fail("the solver (g:solve) is not in this build") end
      if g:over() then print(match.result_line(g)) return end
      local redraw = S.can_redraw()
      if redraw then write(paint("dim", "solving (Ctrl-C stops)...")) end
      local ok, r = pcall(g.solve, g, { time = seconds })
      if redraw then write("\r\27[K") end
      if not ok then error(r, 0) end
      local stats = string.format("%s nodes, %.2f s", format.count(r.nodes), tonumber(r.time) or 0)
      local plies = r.plies and string.format(" in %d pl%s", r.plies, r.plies == 1 and "y" or "ies") or ""
      if r.win == nil then
        print(string.format("unknown: no result within the limits (%s)", stats))
      elseif r.win then
        print(string.format("%s to move wins%s%s  (%s)", side_name(g:turn()), plies,
          r.move and (" with " .. r.move) or "", stats))
      else
        print(string.format("%s to move loses%s%s  (%s)", side_name(g:turn()), plies,
          r.move and (" (best try " .. r.move .. ")") or "", stats))
      end
    end,
  },
}
