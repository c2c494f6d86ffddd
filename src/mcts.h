/*
** mcts.h: Monte Carlo tree search (UCT with random playouts), seeded
** and deterministic for a given seed and playout count. Plain C11.
*/
#ifndef KN_MCTS_H
#define KN_MCTS_H

#include "engine.h"

typedef struct kn_mcts_opts {
  kn_limits lim;      /* nodes = playouts; depth ignored; all zero: 1 s */
  double c;           /* UCT exploration constant (< 0: the default) */
  uint64_t seed;
  size_t max_nodes;   /* tree size cap (0: the default, 2M nodes) */
} kn_mcts_opts;

#define KN_MCTS_C 0.7

typedef struct kn_mcts_result {
  kn_move move;       /* most visited root move (a proved win first);
                         KN_NOMOVE when there is no legal move */
  uint32_t visits;    /* playouts through 'move' */
  double winrate;     /* its wins / visits for the side to move */
  int proven;         /* 1: proved win, 0: proved loss, -1: not proved */
  uint64_t playouts;
  uint64_t plies;     /* plies played in playouts (speed measure) */
  uint64_t nodes;     /* tree nodes */
  double time;
  int stopped;        /* KN_DONE, KN_STOP_LIMIT, KN_STOP_USER */
} kn_mcts_result;

void kn_mcts_opts_default(kn_mcts_opts *o);

/* Runs UCT from 'p'; returns 0, or -1 when out of memory. */
int kn_mcts(const kn_board *b, const kn_pos *p, const kn_mcts_opts *o,
            kn_mcts_result *r);

#endif
