/*
** solve.h: the exact win/loss solver. Plain C11, no globals.
*/
#ifndef KN_SOLVE_H
#define KN_SOLVE_H

#include "engine.h"
#include "tt.h"

typedef struct kn_solve_result {
  int win;          /* 1: the side to move wins, 0: it loses, -1: unknown */
  kn_move move;     /* a winning move when win == 1; otherwise a legal
                       move (KN_NOMOVE when there is none) */
  uint64_t nodes;
  double time;
  int stopped;      /* KN_DONE, KN_STOP_LIMIT, KN_STOP_USER (engine.h) */
} kn_solve_result;

/*
** Solves 'p' within 'lim' (its depth is ignored) using 'tt' for proved
** positions (entries keep score +1/-1; the table may be reused between
** calls on the same board). Returns 0, or -1 when out of memory.
*/
int kn_solve(const kn_board *b, const kn_pos *p, kn_tt *tt,
             const kn_limits *lim, kn_solve_result *r);

#define KN_SOLVE_MAX_THREADS 64

/*
** kn_solve with 'nthreads' threads (1..KN_SOLVE_MAX_THREADS) sharing
** 'tt'. The result (win and move) is the same for any thread count: the
** root's moves are solved one after the other in a fixed order, all
** threads working on each. Node counts differ from run to run. The node
** limit is checked against the sum of the threads' counts every few
** thousand nodes, so it may be passed by that much. The stop callback is
** only called from the calling thread.
*/
int kn_solve_threads(const kn_board *b, const kn_pos *p, kn_tt *tt,
                     const kn_limits *lim, int nthreads,
                     kn_solve_result *r);

#endif
