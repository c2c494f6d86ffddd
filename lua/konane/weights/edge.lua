-- weights fitted by scripts/tune.lua (--fit movers,tempo,edge,corner) to fresh self-play data of
-- the seventh session's defaults: 450 games at 3000 nodes a move (seeds 81 and 82), 17,657
-- positions labelled by a search of 150,000 (seed 81) or 300,000 nodes (seed 82), or by the
-- solver (2,600 proved); 8x8 brainking. Not the default yet (docs/search.md: its SPRT was not
-- decided when the eighth session ended). Load with alphabeta:weights=edge or dofile.
return {
  mobility = 100,
  movers = 80,
  tempo = 35,
  edge = 70,
  corner = 146,
}
