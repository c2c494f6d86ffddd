-- REPL commands about the REPL itself: help, quit.

local S = require("konane.repl.session")

return {
  {
    name = "help", usage = "help(name)", line = "this list, or the details of one command",
    detail = [[
help() lists the commands; help("vs") or help(vs) shows one in detail.]],
    fn = function(what)
      local commands = require("konane.repl.commands")
      if what == nil then
        print("Commands (the current game is the global g; see also its methods: g:<Tab>):")
        for _, c in ipairs(commands.list) do
          print(string.format("  %-25s %s", c.usage, c.line))
        end
        print([[
Type a move such as d5 or f5-d5 to play it. Any Lua works: g:moves(), g:fen(), konane.new{...}.
Tab completes names and methods, Ctrl-C stops a search, Ctrl-D leaves. Details: help("name").]])
        return
      end
      local c = commands.find(what)
      if not c then
        local names = {}
        for _, cmd in ipairs(commands.list) do names[#names + 1] = cmd.name end
        print(string.format("no command %s; the commands are: %s",
          require("konane.repl.format").format(what, { color = false }), table.concat(names, ", ")))
        return
      end
      print(c.usage .. ": " .. c.line)
      print(c.detail)
    end,
  },
  {
    name = "quit", usage = "quit()", line = "leave (Ctrl-D does the same)",
    detail = [[
Leaves the REPL. The history is kept in ~/.konane_history (or $KONANE_HISTORY).]],
    fn = function()
      S.drop_opponent()
      -- piped input: status 1 when a line failed, as at the end of the input
      os.exit((S.opts.failed or 0) == 0, true)
    end,
  },
}
