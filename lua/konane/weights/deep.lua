-- weights fitted by scripts/tune.lua to a deeper search's scores: 1200 games at 3000 nodes a move
-- (seeds 61 and 62, 600 each), 47,249 positions labelled by a search of 60,000 nodes (scale 400)
-- or the solver (6,912 proved), all nine features; 8x8 brainking. Not the default (docs/search.md).
-- Load with alphabeta:weights=deep or dofile.
return {
  mobility = 100,
  movers = 73,
  tempo = 20,
  safe = 16,
  attacked = -28,
  potential = 46,
  takeaway = 26,
  reach = -16,
  region = 116,
}
