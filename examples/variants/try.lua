-- Try the example variants: build/konane examples/variants/try.lua
-- Loads each variant file, shows its first moves, and plays one seeded game with it.
local konane = require "konane"

for _, file in ipairs { "examples/variants/knight.lua", "examples/variants/corner_pair.lua" } do
  local variant = dofile(file)
  konane.register_variant(variant)                 -- now konane.new{variant = "<name>"} works
  local game = konane.new { variant = variant.name }
  print(("%s: %s"):format(variant.name, variant.description))
  print(game)
  print("first moves: " .. table.concat(game:moves(), " "))
  local record = konane.play("greedy", "random:seed=2", { variant = variant.name, seed = 1 })
  print(konane.pgn.write(record))
end
