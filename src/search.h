/*
** search.h: iterative-deepening alpha-beta (PVS) with a transposition
** table, for any board. Plain C11, no globals: all state lives in a
** context allocated per call.
*/
#ifndef KN_SEARCH_H
#define KN_SEARCH_H

#include "engine.h"
#include "eval.h"
#include "tt.h"

/*
** The score scale (side to move's point of view):
**   |score| <  KN_WIN_MIN   heuristic; 100 = one legal move of mobility
**   score  =  KN_WIN - n    proven win: the opponent is out of moves
**                           after n plies (n odd)
**   score  = -(KN_WIN - n)  proven loss in n plies (n even; 0: no move)
*/
#define KN_WIN 30000
#define KN_WIN_MIN (KN_WIN - 1000)
#define KN_EVAL_MAX (KN_WIN_MIN - 1)
#define KN_PV_MAX 64

/* An evaluation callback (e.g. a Lua function): returns 0 and sets
** '*score' (side to move's view), or nonzero to abort the search. */
typedef struct kn_evalfn {
  int (*fn)(void *ud, const kn_board *b, const kn_pos *p, int *score);
  void *ud;
} kn_evalfn;

typedef struct kn_search_result {
  kn_move move;            /* KN_NOMOVE only when there is no legal move */
  int score;               /* of the deepest finished iteration */
  int depth;               /* deepest finished iteration (0: none) */
  uint64_t nodes;
  double time;             /* seconds */
  int stopped;             /* KN_DONE, KN_STOP_LIMIT, ... (engine.h) */
  int pvlen;
  kn_move pv[KN_PV_MAX];
} kn_search_result;

/* Called after each finished iteration; nonzero aborts (KN_STOP_ERROR). */
typedef int (*kn_info_fn)(void *ud, const kn_search_result *r);

/* Experimental switches (kn_search_opts.exp): each bit turns a feature
** off (or an experiment on) so that SPRT matches can compare them. */
#define KN_EXP_NO_PARTIAL 1 /* ignore unfinished iterations */
#define KN_EXP_LATE_HELPERS 16 /* helpers start after the proof mode */
#define KN_EXP_MOBORDER 2   /* order quiet moves by the opponent's replies */
#define KN_EXP_EXTEND 4     /* a forced move costs no depth */
#define KN_EXP_NO_PROOF 8   /* no endgame proof mode */
#define KN_EXP_LMR2 32      /* reductions growing with log(depth) log(index) */
#define KN_EXP_NO_PREFETCH 64 /* no prefetch of the children's table buckets */
#define KN_EXP_LMP 128      /* late move pruning at depth <= 3 */
#define KN_EXP_FUT1 256     /* futility pruning at depth 1 */
#define KN_EXP_FUT2 512     /* futility pruning at depth <= 2 */
#define KN_EXP_LOCKSTEP 1024 /* threads = 2 take turns of POLL nodes: the
                                search then depends on node counts alone, a
                                model of two equal cores (for measuring) */
#define KN_EXP_HELPER_ORDER 2048 /* helpers take the root moves in the main order */
#define KN_EXP_HISTRED 4096 /* one more reduction for moves with no history */
#define KN_EXP_HMALUS 8192 /* history malus (depth^2) for moves tried before a cutoff */
#define KN_EXP_NO_HDECAY 16384 /* no history decay (below): the search of
                                  the eighth session */
#define KN_EXP_NO_PROBCUT 32768 /* no ProbCut (a shallow search of the
                                   first moves far above beta cutting off) */

/* Endgame proof mode: narrow jump-phase roots with at most this many
** pieces go to the exact solver first (kn_search_opts.proof_pieces). */
#define KN_PROOF_PIECES 34

#define KN_MAX_THREADS 64

/*
** A pool of helper threads for kn_search (threads > 1) kept between
** calls, e.g. with the table they search. With a pool, kn_search answers
** as soon as the main thread has its move: it raises the helpers' stop
** flag and returns without waiting for them; they stop at their next node
** and park on their own (a helper the system holds back holds nothing
** else back). The next search with the pool uses its helpers only if
** they are all parked (else it searches alone this time, rather than
** wait). The helpers keep copies of the board, root and options, but
** they still use the table until parked: before the table is cleared,
** freed, or used by anything else than kn_search with this pool, call
** kn_search_pool_wait (kn_search_pool_free waits too, and joins).
** Without a pool, kn_search makes one for the call and joins it.
*/
typedef struct kn_search_pool kn_search_pool;

/* A pool with no threads yet (they start with the first search that
** needs them); NULL when out of memory. */
kn_search_pool *kn_search_pool_new(void);
/* Waits until every helper of the pool is parked. */
void kn_search_pool_wait(kn_search_pool *p);
/* Stops, joins and frees the pool (NULL: nothing). */
void kn_search_pool_free(kn_search_pool *p);
/* For tests: the helpers still on a job, and a switch that keeps helpers
** from parking once their job is done (as a thread the system holds back
** would), to show that kn_search does not wait for them. */
int kn_search_pool_busy(kn_search_pool *p);
void kn_search_pool_hold(kn_search_pool *p, int on);

typedef struct kn_search_opts {
  kn_limits lim;           /* all zero: 1 second; lim.time is the hard limit */
  double soft_time;        /* > 0: clock management (kn_search_budget) */
  int threads;             /* 1 (or 0): this thread only; helpers share tt */
  kn_weights weights;      /* the built-in evaluation's weights */
  kn_evalfn eval;          /* fn NULL: the built-in evaluation (then
                              threads is 1: callbacks are not thread-safe) */
  int no_lmr;              /* 1: no late move reductions (for tests) */
  int proof_pieces;        /* endgame proof mode at roots of at most this
                              many pieces (kn_search); 0: off */
  kn_tt *proof_tt;         /* the solver's table for it (kept between
                              calls by the caller); NULL: a small one
                              per call */
  kn_search_pool *pool;    /* helpers for threads > 1 (above); NULL:
                              threads started and joined in the call */
  unsigned exp;            /* KN_EXP_* bits; 0: the default search */
  kn_info_fn info;         /* may be NULL; called by the main thread */
  void *info_ud;
} kn_search_opts;

void kn_search_opts_default(kn_search_opts *o);

/*
** Time for one move from a clock: 'left' seconds remain for the game,
** 'inc' are added after each move, 'pieces' are on the board. Sets the
** soft target (an iteration ending past it, scaled by the best move's
** stability, ends the search) and the hard limit (never reached by the
** clock: a reserve stays for the moves to come, for the answer's way out
** and for the machine's stalls: 0.1 s + 3 increments, or 90% of a
** smaller clock, below which only part of the increment is spent).
** 'overhead' is what each move costs the clock outside the search (the
** answer's way to the referee and back, as measured by the caller); at
** least 2 ms are counted for each move still to play.
*/
void kn_search_budget(double left, double inc, int pieces, double overhead,
                      double *soft, double *hard);

/*
** Searches 'root' under the options 'o' using the table 'tt' (kept
** between calls by the caller if it wants; aged here). Fills 'r'.
** Endgame proof mode: without a depth limit, a narrow jump-phase root of
** at most o->proof_pieces pieces is first given to the exact solver
** (kn_solve) with a share of the time or node budget; a proved win is
** answered at once with the solver's winning move and the score of a win
** in at most the plies the pieces allow (the largest odd number below
** the piece count); otherwise the search proper runs in the time left.
** When no iteration finished (stopped at once, a forced move under a
** clock) a one-ply look scores the answer (depth 1), unless a node
** budget would be passed by it (depth 0, score 0). Returns 0, or -1 when out of memory. An evaluation or info callback
** failure sets r->stopped = KN_STOP_ERROR; the result is then partial.
** Deterministic for a given table state when no time limit applies and
** threads is 1. With helper threads, 'nodes' counts every thread's.
*/
int kn_search(const kn_board *b, const kn_pos *root, kn_tt *tt,
              const kn_search_opts *o, kn_search_result *r);

/* True when 'score' is a proven win or loss; the plies to the end. */
static inline int kn_score_proven(int score) {
  return score >= KN_WIN_MIN || score <= -KN_WIN_MIN;
}
static inline int kn_score_plies(int score) {
  return score > 0 ? KN_WIN - score : KN_WIN + score;
}

#endif
