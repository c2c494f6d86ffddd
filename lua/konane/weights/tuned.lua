-- weights fitted by scripts/tune.lua: 400 games at 3000 nodes a move, 15335 positions,
-- 8x8 brainking, seed 1 (9 s). Load with alphabeta:weights=FILE or dofile.
return {
  mobility = 100,
  movers = 164,
  tempo = -41,
  safe = 14,
  attacked = -47,
  potential = 80,
}
