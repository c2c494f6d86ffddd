-- weights fitted by scripts/tune.lua: 1500 games at 3000 nodes a move, 57390 positions,
-- 8x8 brainking, seed 1 (382 s). Load with alphabeta:weights=FILE or dofile.
return {
  mobility = 100,
  movers = 98,
  tempo = -42,
  safe = 11,
  attacked = -38,
  potential = 54,
}
