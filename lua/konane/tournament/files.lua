-- konane.tournament.files: the tournament's file operations, every one checked.
--
-- A tournament directory is worth keeping only if what it says is true, so every write of
-- games.pgn, results.json and tournament.cfg checks write, flush, fsync and close, and a
-- failure (a full disk, an I/O error, a file size limit) raises "cannot write PATH: reason"
-- instead of carrying on. Whole files are replaced through a temporary file and a rename that
-- happens only after the new text is safely on disk, so a failed write leaves the old file as
-- it was. Directories are made by running mkdir(1) with an argument vector: no shell ever sees
-- a path.

local M = {}

local function core() return require("konane").core end

-- read(path) -> text, or nil and a message.
function M.read(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  -- at most the size the file has now: a device or a link to one (/dev/zero) never fills the
  -- memory, and a pipe, which has no size, is refused
  local text, rerr = f:read(0) -- "" before the end, nil at the end, nil and why for a directory
  if text == nil and rerr == nil then
    text = ""
  elseif text then
    local size = f:seek("end")
    if not size or not f:seek("set") then
      text, rerr = nil, "not a regular file"
    elseif size > 0 then
      text, rerr = f:read(size)
    end
  end
  f:close()
  if not text then return nil, path .. ": " .. tostring(rerr) end
  return text
end

function M.exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end

-- The reason of a failed io call, without the path Lua puts in front of some of them.
local function reason(path, msg)
  msg = tostring(msg or "unknown error")
  if msg:sub(1, #path + 2) == path .. ": " then msg = msg:sub(#path + 3) end
  return msg
end

-- The error every failed write raises.
function M.write_error(path, msg)
  return "cannot write " .. path .. ": " .. reason(path, msg)
end

-- Puts the directory entry of 'path' on disk, so a file just created or renamed there survives
-- a power cut. Some file systems cannot fsync a directory: that is not a failed write.
local function sync_dir(path)
  local c = core()
  if not c.fsync then return end
  local d = io.open(path:match("^(.*)/[^/]*$") or ".", "r")
  if d then
    pcall(c.fsync, d)
    d:close()
  end
end

-- Writes 'text' to the open file 'f' (and flushes it to the kernel); with 'sync', also puts
-- it on disk. true, or nil and the reason.
local function put(f, text, sync)
  local ok, err
  if type(text) == "table" then -- a list of pieces, written in order
    for _, piece in ipairs(text) do
      ok, err = f:write(piece)
      if not ok then return nil, err end
    end
  else
    ok, err = f:write(text)
    if not ok then return nil, err end
  end
  ok, err = f:flush()
  if not ok then return nil, err end
  local c = core()
  if sync ~= false and c.fsync then
    ok, err = c.fsync(f)
    if not ok then return nil, err end
  end
  return true
end

local clock = require("konane.util").now

-- write_atomic(path, text): replaces the file at 'path' with 'text' (a string, or a list of
-- strings written one after the other), or raises "cannot write
-- PATH: reason" leaving the old file untouched (the temporary file is removed).
function M.write_atomic(path, text)
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "wb")
  if not f then error(M.write_error(path, reason(tmp, err)), 0) end
  local ok, werr = put(f, text)
  local cok, cerr = f:close()
  if ok and not cok then ok, werr = nil, cerr end
  if not ok then
    os.remove(tmp)
    error(M.write_error(path, werr), 0)
  end
  local rok, rerr = os.rename(tmp, path)
  if not rok then
    os.remove(tmp)
    error(M.write_error(path, reason(tmp, rerr)), 0)
  end
  sync_dir(path)
end

-- An append-only file (the journal): appender(path, every) -> object with :append(text), which
-- writes and flushes (so the text survives the process being killed) or raises "cannot write
-- PATH: reason", and :close(). The file is fsync'ed (put on disk, against a power cut) at the
-- first append, then at most once per 'every' seconds (default 0: at every append), and at
-- close: quick games would otherwise spend most of their time waiting for the disk. What a
-- power cut takes is the tail of the file, which a resume plays again. The file is opened at
-- the first append.
function M.appender(path, every)
  local a = { path = path, every = every or 0, synced = -math.huge }
  function a:append(text)
    if not self.f then
      local f, err = io.open(path, "ab")
      if not f then error(M.write_error(path, err), 0) end
      self.f = f
      sync_dir(path) -- the file's directory entry, once
    end
    local now = self.every > 0 and clock() or 0
    local sync = self.every <= 0 or now - self.synced >= self.every
    local ok, err = put(self.f, text, sync)
    if not ok then
      -- the file may now end with part of 'text': a resume moves it to the .rejected file
      self.f:close()
      self.f = nil
      error(M.write_error(path, err), 0)
    end
    if sync then self.synced = now end
  end
  function a:close()
    if self.f then
      local ok, err = put(self.f, "", true)
      local cok, cerr = self.f:close()
      self.f = nil
      if ok and not cok then err = cerr end
      if not ok or not cok then error(M.write_error(path, err), 0) end
    end
  end
  return a
end

function M.is_dir(path)
  return M.exists(path .. "/.")
end

-- mkdir(path): makes the directory and its parents, or raises "cannot create directory PATH:
-- reason". Runs mkdir -p -- PATH directly (an argument vector, no shell).
function M.mkdir(path)
  if M.is_dir(path) then return end
  local c = core()
  local p, err = c.spawn({ "mkdir", "-p", "--", path })
  if not p then error("cannot create directory " .. path .. ": " .. tostring(err), 0) end
  local out = {}
  while true do
    c.poll({ p }, 1)
    local s = p:read()
    if s == nil then break end
    out[#out + 1] = s
  end
  local how, code = p:wait(true)
  p:close()
  if how ~= "exit" or code ~= 0 or not M.is_dir(path) then
    local msg = table.concat(out):gsub("^mkdir: ", ""):gsub("^cannot create directory .-: ", "")
      :gsub("%s+$", "")
    error("cannot create directory " .. path .. (msg ~= "" and (": " .. msg) or ""), 0)
  end
end

return M
