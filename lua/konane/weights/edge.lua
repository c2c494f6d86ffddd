-- weights fitted by scripts/tune.lua (--fit movers,tempo,edge,corner) to fresh self-play data of
-- the seventh session's defaults: 450 games at 3000 nodes a move (seeds 81 and 82), 17,657
-- positions labelled by a search of 150,000 (seed 81) or 300,000 nodes (seed 82), or by the
-- solver (2,600 proved); 8x8 brainking. The default since the ninth session (docs/search.md:
-- SPRT H1 at equal time); the name stays for scripts that ask for it.
return {
  mobility = 100,
  movers = 80,
  tempo = 35,
  edge = 70,
  corner = 146,
}
