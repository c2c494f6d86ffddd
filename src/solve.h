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
** root's first move is solved first, then its other moves are shared
** out whole, one thread each, and the first move in the fixed order that
** wins is the move; below them, idle threads take siblings (young
** brothers wait). Node counts differ from run to run. The node
** limit is checked against the sum of the threads' counts every few
** thousand nodes, so it may be passed by that much. The stop callback is
** only called from the calling thread.
*/
int kn_solve_threads(const kn_board *b, const kn_pos *p, kn_tt *tt,
                     const kn_limits *lim, int nthreads,
                     kn_solve_result *r);

/*
** An exact oracle the solver consults at narrow jump-phase positions of
** at most 'max_pieces' pieces (after its own table): 'fn' returns 1 when
** 'stm' to move in 'occ' wins, 0 when it loses, -1 when it cannot tell
** cheaply. Game values of independent regions give one (region.h,
** cgk_oracle). Called from the solving thread only.
*/
typedef struct kn_solve_oracle {
  int (*fn)(void *ud, const kn_board *b, uint64_t occ, int stm);
  void *ud;
  int max_pieces;
} kn_solve_oracle;

/* kn_solve (one thread) consulting the oracle 'o' (NULL: none). */
int kn_solve_with(const kn_board *b, const kn_pos *p, kn_tt *tt,
                  const kn_limits *lim, const kn_solve_oracle *o,
                  kn_solve_result *r);

#endif
