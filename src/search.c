/*
** search.c: iterative-deepening negamax with alpha-beta, principal
** variation search, a transposition table, hash-move / killer / history
** ordering and mate-distance scores. Any board size: narrow boards play
** moves as one XOR on a word, wide boards through kn_make/kn_unmake.
**
** Threads (Lazy SMP): helper threads run the same iterative deepening
** from the same root on their own stacks, sharing only the table (and a
** stop flag); half of them start one ply deeper, and they take the root
** moves after the first from the back, so the table fills with results
** the main thread then finds. The main thread alone polls the
** limits, calls back and decides the move. Helpers live in a pool that
** can outlive the call (kn_search_pool): the main thread answers without
** waiting for them, and they park on their own.
*/
#include "search.h"
#include "solve.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define INF 32000
#define POLL 1024
/* Endgame proof mode: the solver's share of the move's time or nodes,
** and the size of its table when the caller gives none. */
#define PROOF_SHARE 0.4
#define PROOF_MB 1.0
/* Clocks (kn_search_budget): seconds kept back for the machine's stalls,
** and per move for the answer's way out (pipe, referee). */
#define BUDGET_RESERVE 0.1
#define BUDGET_OVERHEAD 0.002
#ifndef LMP_BASE
#define LMP_BASE 3
#endif
#ifndef HDECAY_SHIFT
#define HDECAY_SHIFT 2
#endif
/* ProbCut (node(); KN_EXP_NO_PROBCUT: off): from this depth, the margin over beta (100 is
** a move of mobility), the plies taken off, the moves tried. */
#ifndef PC_DEPTH
#define PC_DEPTH 5
#endif
#ifndef PC_MARGIN
#define PC_MARGIN 150
#endif
#ifndef PC_CUT
#define PC_CUT 3
#endif
#ifndef PC_TRIES
#define PC_TRIES 3
#endif
#ifndef FUT_MARGIN
#define FUT_MARGIN 200
#endif
#ifndef LMR2_DIV
#define LMR2_DIV 2.0
#endif

/* What the threads of one call share besides the table. */
typedef struct shared {
  _Atomic int stop;        /* set by the main thread: helpers unwind */
  _Atomic uint64_t best;   /* the helpers' deepest finished iteration:
                              depth << 48 | score << 32 | move (0: none) */
  _Atomic uint64_t nodes[KN_MAX_THREADS]; /* each helper's count so far */
  /* KN_EXP_LOCKSTEP: the main thread and one helper run POLL nodes in
  ** turn: 'ls_on' while the helper takes part, 'ls_turn' whose turn */
  pthread_mutex_t ls_mu;
  pthread_cond_t ls_cv;
  _Atomic int ls_on;
  int ls_turn;
} shared;

static inline uint64_t pack_best(int depth, int score, kn_move m) {
  return (uint64_t)depth << 48 | (uint64_t)(uint16_t)score << 32 | m;
}

/* The per-thread search context: everything mutable lives here. */
typedef struct sctx {
  const kn_board *b;
  kn_pos pos;              /* the current position (made/unmade in place) */
  kn_tt *tt;
  const kn_search_opts *o;
  int maxply;              /* plies of the move stack */
  int cap;                 /* moves per ply in the stack */
  kn_move *mv;             /* maxply * cap moves */
  uint64_t *mk;            /* their narrow masks */
  int *key;                /* their ordering keys */
  kn_move (*killer)[2];    /* maxply */
  int *hist;               /* [2][nsq * nsq] history counters */
  uint64_t nodes, maxnodes, nextpoll;
  uint64_t pollgap;        /* nodes between polls: POLL, fewer with slow nodes */
  double t0, deadline;     /* deadline <= 0: none */
  double lastpoll;         /* the main thread's last poll (kn_clock) */
  int stop;
  int lmr;                 /* late move reductions on */
  unsigned char red[64][64]; /* LMR2: reduction by depth and move index */
  int id;                  /* 0: the main thread */
  uint64_t salt;           /* the board's identity, mixed into keys */
  shared *sh;
  int pvlen[KN_PV_MAX + 1];
  kn_move pv[KN_PV_MAX + 1][KN_PV_MAX];
} sctx;

void kn_search_opts_default(kn_search_opts *o) {
  memset(o, 0, sizeof *o);
  kn_weights_default(&o->weights);
  o->proof_pieces = KN_PROOF_PIECES;
}

/* Polls the limits every POLL nodes; sets s->stop. Helpers only look at
** the shared flag (the stop callback may not be thread-safe). The main
** thread keeps its polls about a millisecond apart: with slow nodes (a
** Lua evaluation, 30-150 us a node) it polls after fewer of them, down to
** every node, so a time limit or a stop function is honoured within about
** a millisecond whatever a node costs. Which node a poll falls on never
** changes the tree, only when a limit is seen. */
static void lockstep_turn(sctx *s, int give);

static void poll_limits(sctx *s) {
  int lockstep = atomic_load_explicit(&s->sh->ls_on, memory_order_relaxed);
  if (lockstep) lockstep_turn(s, 1);
  if (s->id) {
    s->nextpoll = s->nodes + POLL;
    atomic_store_explicit(&s->sh->nodes[s->id], s->nodes,
                          memory_order_relaxed);
    if (atomic_load_explicit(&s->sh->stop, memory_order_relaxed))
      s->stop = KN_STOP_LIMIT;
    return;
  }
  if (!lockstep) {
    double now = kn_clock(), gap = now - s->lastpoll;
    s->lastpoll = now;
    if (gap > 1e-3 && s->pollgap > 1) s->pollgap /= 2;
    else if (gap < 2.5e-4 && s->pollgap < POLL) s->pollgap *= 2;
  } else {
    s->pollgap = POLL; /* lockstep's turns are POLL nodes long */
  }
  s->nextpoll = s->nodes + s->pollgap;
  kn_limits_poll(&s->o->lim, s->deadline, &s->stop);
}

static inline void make(sctx *s, kn_move m, uint64_t mask) {
  if (s->b->narrow) {
    s->pos.occ.w[0] ^= mask;
    s->pos.stm ^= 1;
  } else {
    kn_make(s->b, &s->pos, m);
  }
}

static inline void unmake(sctx *s, kn_move m, uint64_t mask) {
  if (s->b->narrow) {
    s->pos.occ.w[0] ^= mask;
    s->pos.stm ^= 1;
  } else {
    kn_unmake(s->b, &s->pos, m);
  }
}

/* The table key: the occupancy (or its hash on wide boards) XOR the
** board's salt, so a table shared by searches on different boards (or
** variants) never confuses their positions; within one board the narrow
** key stays perfect. */
static inline uint64_t pos_key(const sctx *s) {
  return (s->b->narrow ? s->pos.occ.w[0] : kn_pos_hash(s->b, &s->pos)) ^
         s->salt;
}

static inline uint64_t mix64(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}

/* The salt of a board: its shape and its opening rules. Zero for an
** 8x8 board with the default rules would be nice but is not needed. */
static uint64_t board_salt(const kn_board *b) {
  uint64_t h = mix64((uint64_t)b->rows, (uint64_t)b->cols);
  int i, w, nw = (b->nsq + 63) / 64;
  for (w = 0; w < nw; w++) h = mix64(h, b->first.w[w]);
  if (b->second)
    for (i = 0; i < b->nsq; i++)
      for (w = 0; w < nw; w++) h = mix64(h, b->second[i].w[w]);
  return h;
}

/* Mate scores are stored relative to the node, not the root. */
static inline int to_tt(int v, int ply) {
  return v >= KN_WIN_MIN ? v + ply : v <= -KN_WIN_MIN ? v - ply : v;
}
static inline int from_tt(int v, int ply) {
  return v >= KN_WIN_MIN ? v - ply : v <= -KN_WIN_MIN ? v + ply : v;
}

/* The side to move's legal move count, phases included. */
static int count_moves(const sctx *s) {
  const kn_board *b = s->b;
  if (b->narrow) {
    uint64_t e = b->all.w[0] & ~s->pos.occ.w[0];
    if (e & (e - 1)) return kn_count64(b, s->pos.occ.w[0], s->pos.stm);
  }
  return kn_count(b, &s->pos);
}

/* A horizon node: a loss when there is no move, else the evaluation
** (built-in, or the caller's callback, clamped below the proven range). */
static int leaf(sctx *s, int ply) {
  int n, v;
  if (s->b->narrow && !s->o->eval.fn) {
    uint64_t e = s->b->all.w[0] & ~s->pos.occ.w[0];
    if (e & (e - 1)) {
      v = kn_eval64(s->b, s->pos.occ.w[0], s->pos.stm, &s->o->weights, &n);
      if (n == 0) return -(KN_WIN - ply);
      return v > KN_EVAL_MAX ? KN_EVAL_MAX : v < -KN_EVAL_MAX ? -KN_EVAL_MAX : v;
    }
  }
  n = count_moves(s);
  if (n == 0) return -(KN_WIN - ply);
  if (s->o->eval.fn) {
    if (s->o->eval.fn(s->o->eval.ud, s->b, &s->pos, &v)) {
      s->stop = KN_STOP_ERROR;
      return 0;
    }
  } else {
    v = kn_eval(s->b, &s->pos, &s->o->weights, n);
  }
  if (v > KN_EVAL_MAX) v = KN_EVAL_MAX;
  if (v < -KN_EVAL_MAX) v = -KN_EVAL_MAX;
  return v;
}

static inline int hist_index(const sctx *s, kn_move m) {
  return (s->pos.stm * s->b->nsq + KN_FROM(m)) * s->b->nsq + KN_TO(m);
}

/*
** The negamax node: returns the value of the current position for its
** side to move within ('alpha', 'beta') (fail-soft), searching 'depth'
** more plies; 'ply' is the distance from the root. When s->stop is set
** the value is meaningless and the caller must unwind.
*/
static int node(sctx *s, int depth, int alpha, int beta, int ply);

/* Swaps entries a and b of a node's move list (moves, masks, keys): the
** selection loops pick the best key left into place. */
static inline void swap_moves(kn_move *mv, uint64_t *mk, int *k, int a,
                              int b) {
  kn_move tm = mv[a];
  uint64_t tk = mk[a];
  int tkey = k[a];
  mv[a] = mv[b], mk[a] = mk[b], k[a] = k[b];
  mv[b] = tm, mk[b] = tk, k[b] = tkey;
}

/* Step 1 of every node: count it and honour the limits; nonzero: stop. */
static inline int enter(sctx *s, int ply) {
  s->nodes++;
  if (s->maxnodes && s->nodes >= s->maxnodes) s->stop = KN_STOP_LIMIT;
  if (s->nodes >= s->nextpoll) poll_limits(s);
  /* helpers look at the shared flag at every node: a main thread waiting
  ** to join them should not wait for a poll */
  if (s->id && atomic_load_explicit(&s->sh->stop, memory_order_relaxed))
    s->stop = KN_STOP_LIMIT;
  if (s->stop) return 1;
  if (ply <= KN_PV_MAX) s->pvlen[ply] = 0;
  return 0;
}

/* A child of a node: node() itself, but a horizon child is evaluated
** here, inline (the same count and result, without node()'s frame: most
** nodes are at the horizon). */
static inline int child(sctx *s, int depth, int alpha, int beta, int ply) {
  if (depth > 0) return node(s, depth, alpha, beta, ply);
  return enter(s, ply) ? 0 : leaf(s, ply);
}

static int node(sctx *s, int depth, int alpha, int beta, int ply) {
  int pvnode = beta - alpha > 1, n, i, best = -INF, oldalpha, mob, ext, prune;
  int first = -1; /* the first pick when the key loop found it, else -1 */
  kn_move hm = KN_NOMOVE, bestm = KN_NOMOVE, *mv;
  uint64_t *mk, key;
  int *k;
  kn_tt_entry e;

  /* 1. Count the node and honour the limits. */
  if (enter(s, ply)) return 0;
  if (depth <= 0 || ply >= s->maxply - 1) return leaf(s, ply);

  /* 2. Mate distance pruning: nothing beats winning on the next ply. */
  if (KN_WIN - (ply + 1) < beta) {
    beta = KN_WIN - (ply + 1);
    if (alpha >= beta) return beta;
  }

  /* 3. Transposition table: a cutoff, or at least a first move. */
  key = pos_key(s);
  if (kn_tt_probe(s->tt, key, s->pos.stm, &e)) {
    hm = e.move;
    if (e.depth >= depth && !pvnode) {
      int v = from_tt(e.score, ply), bd = e.flags & 3;
      if (bd == KN_TT_EXACT || (bd == KN_TT_LOWER && v >= beta) ||
          (bd == KN_TT_UPPER && v <= alpha))
        return v;
    }
  }

  /* 4. Moves; none means the side to move has lost. */
  mv = s->mv + (size_t)ply * s->cap;
  mk = s->mk + (size_t)ply * s->cap;
  k = s->key + (size_t)ply * s->cap;
  n = kn_gen_masks(s->b, &s->pos, mv, mk);
  if (n == 0) return -(KN_WIN - ply);
  /* Fetch the children's table buckets now, all at once: their probes
  ** then hit the cache instead of waiting for memory one after another
  ** (a probe's cache miss was 40% of the time with a 16 MB table). */
  if (depth >= 2 && s->b->narrow && !(s->o->exp & KN_EXP_NO_PREFETCH))
    for (i = 0; i < n; i++)
      kn_tt_prefetch(s->tt, (s->pos.occ.w[0] ^ mk[i]) ^ s->salt,
                     s->pos.stm ^ 1);

  /* 5. Ordering keys: hash move, killers, then history (with MOBORDER:
  ** the opponent's replies after the move first, fewest first, as the
  ** solver does, then history). All quiet keys stay below 1 << 28. */
  mob = (s->o->exp & KN_EXP_MOBORDER) && s->b->narrow && depth >= 2 &&
        !KN_IS_REMOVAL(mv[0]);
  if (!mob) {
    /* without a branch (they mispredicted), the invariants in locals (the
    ** stores to k[] could alias them): history, then killers, then the
    ** hash move override */
    const kn_move k0 = s->killer[ply][0], k1 = s->killer[ply][1];
    const int nsq = s->b->nsq;
    const int *hist = s->hist + (size_t)s->pos.stm * nsq * nsq;
    int fk = -1; /* keys are never negative */
    for (i = 0; i < n; i++) {
      kn_move m = mv[i];
      int kv = hist[KN_FROM(m) * nsq + KN_TO(m)];
      kv = m == k1 ? 1 << 29 : kv;
      kv = m == k0 ? (1 << 29) + 1 : kv;
      kv = m == hm ? 1 << 30 : kv;
      k[i] = kv;
      /* the selection's first pick (the first of the largest keys), here
      ** where the keys are made: most nodes cut off on it, and skip a scan */
      first = kv > fk ? i : first;
      fk = kv > fk ? kv : fk;
    }
  } else for (i = 0; i < n; i++) {
    if (mv[i] == hm) {
      k[i] = 1 << 30;
    } else if (mv[i] == s->killer[ply][0]) {
      k[i] = (1 << 29) + 1;
    } else if (mv[i] == s->killer[ply][1]) {
      k[i] = 1 << 29;
    } else if (mob) {
      int h = s->hist[hist_index(s, mv[i])] >> 7;
      int c = kn_count64(s->b, s->pos.occ.w[0] ^ mk[i], s->pos.stm ^ 1);
      k[i] = ((200 - c) << 19) + (h < (1 << 19) ? h : (1 << 19) - 1);
    } else {
      k[i] = s->hist[hist_index(s, mv[i])];
    }
  }
  /* A forced move costs no depth (with EXTEND): forced lines are common
  ** near the end and decide games. */
  ext = (s->o->exp & KN_EXP_EXTEND) && n == 1 ? 1 : 0;
  /* Pruning of late quiet moves near the horizon (experiments), never
  ** where the horizon reaches the end of the game. */
  prune = 0;
  if (!pvnode && depth <= 3 && s->lmr &&
      (s->o->exp & (KN_EXP_LMP | KN_EXP_FUT1 | KN_EXP_FUT2)) &&
      depth < kn_bits_count(&s->pos.occ) && alpha > -KN_WIN_MIN &&
      beta < KN_WIN_MIN) {
    if (s->o->exp & KN_EXP_LMP) prune = LMP_BASE + depth * depth;
    if (depth <= ((s->o->exp & KN_EXP_FUT2) ? 2 : (s->o->exp & KN_EXP_FUT1) ? 1 : 0)) {
      int ev = leaf(s, ply);
      if (ev + FUT_MARGIN * depth <= alpha) prune = 1;
    }
  }

  /* ProbCut: at a non-PV node far from the end, the first
  ** PC_TRIES moves in order get a null-window search PC_CUT plies
  ** shallower at beta + PC_MARGIN; one that beats it predicts a cutoff
  ** of the full search (stored as a lower bound at the depth it had). */
  if (!(s->o->exp & KN_EXP_NO_PROBCUT) && !pvnode && depth >= PC_DEPTH &&
      s->lmr && depth < kn_bits_count(&s->pos.occ) &&
      beta > -KN_WIN_MIN + PC_MARGIN && beta < KN_WIN_MIN - PC_MARGIN) {
    int rbeta = beta + PC_MARGIN, q, tries = n < PC_TRIES ? n : PC_TRIES;
    for (q = 0; q < tries; q++) {
      int j, bj = q, v;
      for (j = q + 1; j < n; j++)
        if (k[j] > k[bj]) bj = j;
      if (bj != q) swap_moves(mv, mk, k, q, bj);
      make(s, mv[q], mk[q]);
      v = -child(s, depth - 1 - PC_CUT, -rbeta, -rbeta + 1, ply + 1);
      unmake(s, mv[q], mk[q]);
      if (s->stop) return 0;
      if (v >= rbeta) {
        kn_tt_store(s->tt, key, s->pos.stm, mv[q], to_tt(v, ply),
                    depth - PC_CUT, KN_TT_LOWER);
        return v;
      }
    }
    first = -1; /* the moves were reordered: the main loop selects again */
  }

  /* 6. PVS over the moves, best key first (selection: cutoffs come early). */
  oldalpha = alpha;
  for (i = 0; i < n; i++) {
    int j, bj = i, bk = k[i], v;
    kn_move m;
    uint64_t mask;
    /* the best key so far in a register: no load waits on the last pick
    ** (the loop was 16% of the search's time) */
    if (i == 0 && first >= 0)
      bj = first;
    else
      for (j = i + 1; j < n; j++)
        if (k[j] > bk) bk = k[j], bj = j;
    if (bj != i) swap_moves(mv, mk, k, i, bj);
    if (prune && i >= prune && k[i] < (1 << 28)) break;
    m = mv[i];
    mask = mk[i];
    make(s, m, mask);
    if (i == 0) {
      v = -child(s, depth - 1 + ext, -beta, -alpha, ply + 1);
    } else {
      /* Late quiet moves first get a reduced null-window look; only
      ** when the horizon cannot reach the end of the game anyway, so
      ** that a search as deep as the game stays exact. */
      int r = 0;
      if (s->o->exp & KN_EXP_LMR2) {
        if (s->lmr && depth >= 3 && i >= 2 && k[i] < (1 << 28) &&
            depth < kn_bits_count(&s->pos.occ)) {
          r = s->red[depth < 63 ? depth : 63][i < 63 ? i : 63] - pvnode;
          if (r > depth - 2) r = depth - 2;
          if (r < 0) r = 0;
        }
      } else if (s->lmr && depth >= 3 && i >= 3 && k[i] < (1 << 28) &&
          depth < kn_bits_count(&s->pos.occ)) {
        r = i >= 8 && depth >= 5 ? 2 : 1;
        /* a move that never refuted anything: one more (experiment) */
        if ((s->o->exp & KN_EXP_HISTRED) && k[i] == 0 && r < depth - 2) r++;
      }
      v = -child(s, depth - 1 - r, -alpha - 1, -alpha, ply + 1);
      if (r && v > alpha && !s->stop)
        v = -child(s, depth - 1, -alpha - 1, -alpha, ply + 1);
      if (v > alpha && v < beta && !s->stop)
        v = -child(s, depth - 1, -beta, -alpha, ply + 1);
    }
    unmake(s, m, mask);
    if (s->stop) return 0;
    if (v > best) {
      best = v;
      bestm = m;
      if (v > alpha) {
        alpha = v;
        if (ply < KN_PV_MAX) {
          int l = ply + 1 <= KN_PV_MAX ? s->pvlen[ply + 1] : 0;
          if (l > KN_PV_MAX - 1) l = KN_PV_MAX - 1;
          s->pv[ply][0] = m;
          memcpy(&s->pv[ply][1], s->pv[ply + 1], (size_t)l * sizeof(kn_move));
          s->pvlen[ply] = l + 1;
        }
        if (v >= beta) {
          if (m != s->killer[ply][0]) {
            s->killer[ply][1] = s->killer[ply][0];
            s->killer[ply][0] = m;
          }
          s->hist[hist_index(s, m)] += depth * depth;
          /* the quiet moves tried before it did not refute: they lose a
          ** quarter of their history (history decay: +27 Elo in a timed
          ** SPRT; the experiment HMALUS: depth^2, down to 0) */
          if (!(s->o->exp & KN_EXP_NO_HDECAY) || (s->o->exp & KN_EXP_HMALUS)) {
            int q;
            for (q = 0; q < i; q++) {
              int *h;
              if (k[q] >= (1 << 28)) continue;
              h = &s->hist[hist_index(s, mv[q])];
              if (s->o->exp & KN_EXP_HMALUS)
                *h = *h > depth * depth ? *h - depth * depth : 0;
              else
                *h -= *h >> HDECAY_SHIFT;
            }
          }
          if (s->hist[hist_index(s, m)] > (1 << 26)) {
            int t, tot = 2 * s->b->nsq * s->b->nsq;
            for (t = 0; t < tot; t++) s->hist[t] /= 2;
          }
          break;
        }
      }
    }
  }

  /* 7. Store the result with its bound. */
  kn_tt_store(s->tt, key, s->pos.stm, bestm, to_tt(best, ply), depth,
              best >= beta ? KN_TT_LOWER
              : best > oldalpha ? KN_TT_EXACT
                                : KN_TT_UPPER);
  return best;
}

/* KN_EXP_LOCKSTEP: hands the turn to the other thread ('give'; without
** it, the helper's start) and waits for it to come back (the main thread
** stops waiting when the helper leaves, the helper when the search
** stops). The search then depends on the node counts alone, as if both
** threads ran at one speed. */
static void lockstep_turn(sctx *s, int give) {
  shared *sh = s->sh;
  int me = s->id ? 1 : 0;
  pthread_mutex_lock(&sh->ls_mu);
  if (atomic_load(&sh->ls_on)) {
    if (give) {
      sh->ls_turn = 1 - me;
      pthread_cond_broadcast(&sh->ls_cv);
    }
    while (atomic_load(&sh->ls_on) && sh->ls_turn != me &&
           !(me && atomic_load(&sh->stop)))
      pthread_cond_wait(&sh->ls_cv, &sh->ls_mu);
  }
  pthread_mutex_unlock(&sh->ls_mu);
}

/* Ends lockstep (the helper left, or the search stopped): nobody waits. */
static void lockstep_end(shared *sh) {
  pthread_mutex_lock(&sh->ls_mu);
  atomic_store(&sh->ls_on, 0);
  pthread_cond_broadcast(&sh->ls_cv);
  pthread_mutex_unlock(&sh->ls_mu);
}

/* Fills the result's timing fields. */
static void finish(sctx *s, kn_search_result *r) {
  r->nodes = s->nodes;
  r->time = kn_clock() - s->t0;
}

static void ctx_free(sctx *s) {
  if (!s) return;
  free(s->mv), free(s->mk), free(s->key), free(s->killer), free(s->hist);
  free(s);
}

/* A context for searching 'root' (thread 'id'); NULL when out of memory. */
static sctx *ctx_new(const kn_board *b, const kn_pos *root, kn_tt *tt,
                     const kn_search_opts *o, shared *sh, int id) {
  sctx *s = calloc(1, sizeof *s);
  size_t stack;
  int p;
  if (!s) return NULL;
  s->b = b;
  s->pos = *root;
  s->tt = tt;
  s->o = o;
  s->sh = sh;
  s->id = id;
  s->t0 = s->lastpoll = kn_clock();
  /* the main thread's first poll comes early (a slow node must not wait
  ** POLL nodes for it); lockstep's turns stay POLL nodes from the start */
  s->nextpoll = s->pollgap = id || (o->exp & KN_EXP_LOCKSTEP) ? POLL : 16;
  s->maxply = kn_bits_count(&root->occ) + 4;
  s->cap = b->narrow ? 2 * b->nsq + 8 : KN_MAX_MOVES;
  if (s->cap > KN_MAX_MOVES) s->cap = KN_MAX_MOVES;
  stack = (size_t)s->maxply * (size_t)s->cap;
  s->mv = malloc(stack * sizeof *s->mv);
  s->mk = malloc(stack * sizeof *s->mk);
  s->key = malloc(stack * sizeof *s->key);
  s->killer = calloc((size_t)s->maxply, sizeof *s->killer);
  s->hist = calloc((size_t)2 * b->nsq * b->nsq, sizeof *s->hist);
  if (!s->mv || !s->mk || !s->key || !s->killer || !s->hist) {
    ctx_free(s);
    return NULL;
  }
  for (p = 0; p < s->maxply; p++)
    s->killer[p][0] = s->killer[p][1] = KN_NOMOVE;
  s->maxnodes = id ? 0 : o->lim.nodes;
  s->salt = board_salt(b);
  s->lmr = !o->no_lmr;
  {
    int d, m;
    for (d = 1; d < 64; d++)
      for (m = 1; m < 64; m++)
        s->red[d][m] = (unsigned char)(0.5 + log(d) * log(m) / LMR2_DIV);
  }
  return s;
}

/*
** One root iteration at 'depth': PVS over the root moves in their
** current order. Returns the index of the best move found so far (-1:
** none) with its score in '*best' and its line in s->pv[0]; when the
** search stopped (s->stop) the iteration is unfinished, and a move other
** than the first is still trustworthy: it was searched with the full
** window and beat the first move at this depth.
*/
static int root_iteration(sctx *s, int depth, const kn_move *rm,
                          const uint64_t *rk, int n, int *best) {
  int i, alpha = -INF, beta = INF, bi = -1;
  *best = -INF;
  for (i = 0; i < n; i++) {
    int v;
    make(s, rm[i], rk[i]);
    if (i == 0) {
      v = -node(s, depth - 1, -beta, -alpha, 1);
    } else {
      v = -node(s, depth - 1, -alpha - 1, -alpha, 1);
      if (v > alpha && !s->stop) v = -node(s, depth - 1, -beta, -alpha, 1);
    }
    unmake(s, rm[i], rk[i]);
    if (s->stop) break;
    if (v > alpha) {
      int l = s->pvlen[1];
      if (l > KN_PV_MAX - 1) l = KN_PV_MAX - 1;
      alpha = v;
      *best = v;
      bi = i;
      s->pv[0][0] = rm[i];
      memcpy(&s->pv[0][1], s->pv[1], (size_t)l * sizeof(kn_move));
      s->pvlen[0] = l + 1;
    }
  }
  return bi;
}

/* Moves root move 'bi' to the front, keeping the others' order. */
static void to_front(kn_move *rm, uint64_t *rk, int bi) {
  kn_move tm = rm[bi];
  uint64_t tk = rk[bi];
  memmove(rm + 1, rm, (size_t)bi * sizeof *rm);
  memmove(rk + 1, rk, (size_t)bi * sizeof *rk);
  rm[0] = tm;
  rk[0] = tk;
}

/* Copies the line and score of an iteration into the result. */
static void publish(sctx *s, kn_search_result *r, int score, int depth) {
  r->move = s->pv[0][0];
  r->score = score;
  r->depth = depth;
  r->pvlen = s->pvlen[0];
  memcpy(r->pv, s->pv[0], (size_t)r->pvlen * sizeof(kn_move));
  finish(s, r);
}

/*
** The one-ply look of a search that returns before any iteration
** finished (stopped at once, or a forced move under a clock): each root
** move's child is evaluated at the horizon (n nodes, counted), the best
** becomes the answer with depth 1, so the score reported is the move's
** (a win on the spot says so) instead of a 0 nothing measured. Skipped
** when a node budget stopped the search (the count never exceeds it), a
** callback failed, or a Lua evaluation would run after a stop.
*/
static void one_ply_look(sctx *s, kn_search_result *r, const kn_move *rm,
                         const uint64_t *rk, int n) {
  int i, best = -INF, bi = -1, saved = s->stop;
  if (n <= 0 || r->depth > 0 || saved == KN_STOP_ERROR ||
      (s->maxnodes && s->nodes + (uint64_t)n > s->maxnodes) ||
      (saved && s->o->eval.fn))
    return;
  s->stop = 0;
  s->maxnodes = 0;
  s->deadline = 0;
  s->nextpoll = UINT64_MAX; /* no poll: the look is a few microseconds */
  for (i = 0; i < n; i++) {
    int v;
    make(s, rm[i], rk[i]);
    s->nodes++;
    v = -leaf(s, 1);
    unmake(s, rm[i], rk[i]);
    if (s->stop) break; /* the Lua evaluation failed */
    if (v > best) best = v, bi = i;
  }
  if (s->stop || bi < 0) {
    s->stop = s->stop ? s->stop : saved;
    return;
  }
  s->stop = saved;
  r->move = rm[bi];
  r->score = best;
  r->depth = 1;
  r->pv[0] = rm[bi];
  r->pvlen = 1;
  finish(s, r);
}

/*
** The helper pool (search.h). One job at a time: the main thread fills
** the job fields under the lock while no helper is busy, bumps 'gen' and
** wakes the threads; helpers read the job after taking the lock, so the
** fields need no atomics. The job owns copies of everything a helper
** reads (board, root, options, root moves): a helper still unwinding
** after kn_search returned touches nothing of the caller's but the table.
*/
struct kn_search_pool {
  pthread_mutex_t mu;
  pthread_cond_t work;     /* a new job, 'hold' lifted, or 'quit' */
  pthread_cond_t idle;     /* 'busy' fell to 0 */
  int nth;                 /* threads started (ids 1..nth) */
  pthread_t th[KN_MAX_THREADS];
  unsigned gen;            /* job generation */
  unsigned seen0[KN_MAX_THREADS]; /* gen when thread id was started */
  int busy;                /* helpers still on the current job */
  int quit, hold;
  /* the job */
  int nhelpers;            /* ids 1..nhelpers take part */
  kn_board board;
  kn_bits second[KN_MAX_SQ];
  kn_pos root;
  kn_tt *tt;
  kn_search_opts opts;
  int maxdepth, n;
  kn_move rm[KN_MAX_MOVES];
  uint64_t rk[KN_MAX_MOVES];
  shared sh;
};

/* A helper's share of a job: iterative deepening for the table's sake,
** one ply ahead of the main thread on odd ids, the root moves after the
** first in the reverse of the main thread's order, until told to stop. */
static void helper_job(kn_search_pool *p, int id) {
  kn_move rm[KN_MAX_MOVES];
  uint64_t rk[KN_MAX_MOVES];
  int depth, pieces = kn_bits_count(&p->root.occ), n = p->n;
  sctx *s = ctx_new(&p->board, &p->root, p->tt, &p->opts, &p->sh, id);
  if (!s) { /* out of memory: the main thread goes on alone */
    if (atomic_load(&p->sh.ls_on)) lockstep_end(&p->sh);
    return;
  }
  memcpy(rm, p->rm, (size_t)n * sizeof *rm);
  memcpy(rk, p->rk, (size_t)n * sizeof *rk);
  if (atomic_load(&p->sh.ls_on)) lockstep_turn(s, 0);
  for (depth = 1 + (id & 1); depth <= p->maxdepth; depth++) {
    int best, bi;
    if (!(p->opts.exp & KN_EXP_HELPER_ORDER)) {
      /* the best move first, then the others from the back: the main
      ** thread takes them from the front, so the two meet in the middle
      ** and each finds the other's results in the table instead of
      ** searching the same moves at the same time (to depth 13 on 40
      ** positions, quiet: 1.74x the speed of one thread against 1.44x) */
      kn_move pm[KN_MAX_MOVES];
      uint64_t pk[KN_MAX_MOVES];
      int q;
      pm[0] = rm[0], pk[0] = rk[0];
      for (q = 1; q < n; q++) pm[q] = rm[n - q], pk[q] = rk[n - q];
      bi = root_iteration(s, depth, pm, pk, n, &best);
      if (bi > 0) bi = n - bi;
    } else {
      bi = root_iteration(s, depth, rm, rk, n, &best);
    }
    if (s->stop) break;
    to_front(rm, rk, bi);
    kn_tt_store(s->tt, pos_key(s), s->pos.stm, rm[0], best, depth,
                KN_TT_EXACT);
    {
      /* offer the iteration to the main thread if none deeper is there */
      uint64_t cur = atomic_load(&p->sh.best), mine = pack_best(depth, best, rm[0]);
      while ((int)(cur >> 48) < depth &&
             !atomic_compare_exchange_weak(&p->sh.best, &cur, mine)) {
      }
    }
    if (kn_score_proven(best) && kn_score_plies(best) <= depth) break;
    if (depth >= pieces + 2) break;
  }
  atomic_store_explicit(&p->sh.nodes[id], s->nodes, memory_order_relaxed);
  if (atomic_load(&p->sh.ls_on)) lockstep_end(&p->sh);
  ctx_free(s);
}

typedef struct helper_arg {
  kn_search_pool *p;
  int id;
} helper_arg;

/* A helper thread: waits for jobs it takes part in, runs them, reports
** when done, until the pool quits. */
static void *helper_main(void *ud) {
  helper_arg a = *(helper_arg *)ud;
  kn_search_pool *p = a.p;
  unsigned seen;
  free(ud);
  pthread_mutex_lock(&p->mu);
  seen = p->seen0[a.id];
  for (;;) {
    while (!p->quit && p->gen == seen) pthread_cond_wait(&p->work, &p->mu);
    if (p->quit) break;
    seen = p->gen;
    if (a.id > p->nhelpers) continue;
    pthread_mutex_unlock(&p->mu);
    helper_job(p, a.id);
    pthread_mutex_lock(&p->mu);
    while (p->hold && !p->quit) pthread_cond_wait(&p->work, &p->mu);
    if (--p->busy == 0) pthread_cond_broadcast(&p->idle);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

kn_search_pool *kn_search_pool_new(void) {
  kn_search_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  if (pthread_mutex_init(&p->mu, NULL)) {
    free(p);
    return NULL;
  }
  if (pthread_cond_init(&p->work, NULL)) {
    pthread_mutex_destroy(&p->mu);
    free(p);
    return NULL;
  }
  if (pthread_cond_init(&p->idle, NULL)) {
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    free(p);
    return NULL;
  }
  if (pthread_mutex_init(&p->sh.ls_mu, NULL)) {
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    free(p);
    return NULL;
  }
  if (pthread_cond_init(&p->sh.ls_cv, NULL)) {
    pthread_mutex_destroy(&p->sh.ls_mu);
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    free(p);
    return NULL;
  }
  atomic_init(&p->sh.ls_on, 0);
  atomic_init(&p->sh.stop, 1);
  atomic_init(&p->sh.best, 0);
  return p;
}

void kn_search_pool_wait(kn_search_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  while (p->busy > 0) pthread_cond_wait(&p->idle, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

int kn_search_pool_busy(kn_search_pool *p) {
  int n;
  pthread_mutex_lock(&p->mu);
  n = p->busy;
  pthread_mutex_unlock(&p->mu);
  return n;
}

void kn_search_pool_hold(kn_search_pool *p, int on) {
  pthread_mutex_lock(&p->mu);
  p->hold = on;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
}

void kn_search_pool_free(kn_search_pool *p) {
  int t;
  if (!p) return;
  atomic_store(&p->sh.stop, 1);
  pthread_mutex_lock(&p->mu);
  p->quit = 1;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
  for (t = 1; t <= p->nth; t++) pthread_join(p->th[t - 1], NULL);
  pthread_cond_destroy(&p->sh.ls_cv);
  pthread_mutex_destroy(&p->sh.ls_mu);
  pthread_cond_destroy(&p->idle);
  pthread_cond_destroy(&p->work);
  pthread_mutex_destroy(&p->mu);
  free(p);
}

/*
** Starts a job for 'nhelpers' helpers of the pool (starting threads as
** needed), unless helpers of an earlier job are still unwinding: then
** nothing starts (the caller searches alone rather than wait). Returns
** the number of helpers at work.
*/
static int pool_start(kn_search_pool *p, const kn_board *b,
                      const kn_pos *root, kn_tt *tt,
                      const kn_search_opts *o, int nhelpers, int maxdepth,
                      const kn_move *rm, const uint64_t *rk, int n) {
  int t, lockstep = (o->exp & KN_EXP_LOCKSTEP) && nhelpers == 1;
  pthread_mutex_lock(&p->mu);
  /* lockstep waits for the last job's helpers: a measurement must not
  ** depend on whether they were parked in time */
  while (lockstep && p->busy > 0) pthread_cond_wait(&p->idle, &p->mu);
  if (p->busy > 0) {
    pthread_mutex_unlock(&p->mu);
    return 0;
  }
  while (p->nth < nhelpers) {
    helper_arg *a = malloc(sizeof *a);
    if (!a) break;
    a->p = p;
    a->id = p->nth + 1;
    p->seen0[a->id] = p->gen;
    if (pthread_create(&p->th[p->nth], NULL, helper_main, a)) {
      free(a);
      break;
    }
    p->nth++;
  }
  if (nhelpers > p->nth) nhelpers = p->nth;
  if (nhelpers > 0) {
    p->board = *b;
    if (b->second) {
      memcpy(p->second, b->second, (size_t)b->nsq * sizeof *p->second);
      p->board.second = p->second;
    }
    p->root = *root;
    p->tt = tt;
    p->opts = *o;
    p->opts.info = NULL; /* helpers call nothing back */
    p->opts.lim.stop.fn = NULL;
    p->opts.proof_tt = NULL;
    p->opts.pool = NULL;
    p->maxdepth = maxdepth;
    p->n = n;
    memcpy(p->rm, rm, (size_t)n * sizeof *rm);
    memcpy(p->rk, rk, (size_t)n * sizeof *rk);
    atomic_store(&p->sh.stop, 0);
    atomic_store(&p->sh.best, 0);
    for (t = 0; t < KN_MAX_THREADS; t++) atomic_store(&p->sh.nodes[t], 0);
    p->sh.ls_turn = 0;
    atomic_store(&p->sh.ls_on, lockstep);
    p->nhelpers = nhelpers;
    p->busy = nhelpers;
    p->gen++;
    pthread_cond_broadcast(&p->work);
  }
  pthread_mutex_unlock(&p->mu);
  return nhelpers;
}

/* The plies a win (or loss) proved by the solver is scored with: each
** jump takes a piece and a piece alone cannot move, so the game ends
** within pieces - 1 plies; a win ends after an odd number of plies, a
** loss after an even one. */
static int proof_plies(int pieces, int win) {
  int n = pieces - 1;
  if (n < 0) n = 0;
  if ((n & 1) != (win ? 1 : 0)) n--;
  return n < 0 ? 0 : n;
}

/*
** Endgame proof mode (see kn_search): runs the solver on the root with
** PROOF_SHARE of the time (the soft target under a clock) or of the node
** limit, on 'nthreads' threads. Returns 1 when the root is won and fills
** 'r' with the winning move; 0 otherwise ('*used' gets the solver's
** nodes, 'r->stopped' KN_STOP_USER when the stop callback fired). -1
** when out of memory.
*/
static int prove_root(const kn_board *b, const kn_pos *root, int pieces,
                      const kn_search_opts *o, int nthreads,
                      kn_search_result *r, uint64_t *used) {
  kn_limits lim;
  kn_solve_result sr;
  kn_tt *tt = o->proof_tt, *own = NULL;
  double t = o->soft_time > 0 ? o->soft_time : o->lim.time;
  memset(&lim, 0, sizeof lim);
  if (t <= 0 && o->lim.nodes == 0) t = 1.0; /* kn_search's default */
  if (t > 0) lim.time = PROOF_SHARE * t;
  if (o->lim.nodes) {
    lim.nodes = (uint64_t)(PROOF_SHARE * (double)o->lim.nodes);
    if (lim.nodes < 1) lim.nodes = 1;
  }
  lim.stop = o->lim.stop;
  if (!tt && !(tt = own = kn_tt_new(PROOF_MB))) return -1;
  if (kn_solve_threads(b, root, tt, &lim, nthreads, &sr)) {
    kn_tt_free(own);
    return -1;
  }
  kn_tt_free(own);
  *used = sr.nodes;
  if (sr.stopped == KN_STOP_USER) r->stopped = KN_STOP_USER;
  if (sr.win != 1 || sr.move == KN_NOMOVE) return 0;
  r->move = sr.move;
  r->depth = proof_plies(pieces, 1);
  r->score = KN_WIN - r->depth;
  r->pv[0] = sr.move;
  r->pvlen = 1;
  return 1;
}

void kn_search_budget(double left, double inc, int pieces, double overhead,
                      double *soft, double *hard) {
  /* Moves still to play by one side: a game rarely lasts longer than a
  ** third of the pieces' count in plies per side, and the last moves are
  ** proved fast; at least 8 keeps a reserve. */
  double togo = pieces / 3.0 < 8 ? 8 : pieces / 3.0;
  /* The reserve the clock keeps for what the search does not see: the
  ** answer's way to the referee (BUDGET_OVERHEAD a move) and the machine's
  ** stalls (a loaded machine holds a thread back 40-100 ms now and then):
  ** BUDGET_RESERVE + 3 increments, or 90% of a smaller clock. Below that
  ** level only part of the increment is spent, so the clock climbs back
  ** above it instead of settling a few ms above zero. */
  /* A measured overhead above the 2 ms is kept back for every move this
  ** side could still make (at most one a piece of the opponent's: about
  ** half the pieces, not the likely count 'togo', since running short
  ** here loses on time whatever the search does), and comes off the
  ** increment before any of it is spent. */
  double rb, reserve, usable, incp, s, h, extra;
  if (left < 0) left = 0;
  if (inc < 0) inc = 0;
  extra = overhead > BUDGET_OVERHEAD ? overhead - BUDGET_OVERHEAD : 0;
  rb = BUDGET_RESERVE + 3 * inc;
  reserve = left * 0.9 < rb ? left * 0.9 : rb;
  usable = left - reserve - BUDGET_OVERHEAD * togo - extra * pieces / 2.0;
  if (usable < 0) usable = 0;
  incp = (inc > extra ? inc - extra : 0) * 0.8 * (left < rb ? left / rb : 1);
  s = usable / togo + incp;
  h = usable * 0.3 + incp;
  if (h > s * 4) h = s * 4;
  if (s > h) s = h;
  if (h < 1e-4) h = 1e-4;
  if (s < 1e-4) s = 1e-4;
  *soft = s;
  *hard = h;
}

/*
** The root: iterative deepening over the root moves, each iteration a
** PVS over them in the order the previous iteration left (best first).
** The answer is the best move of the deepest finished iteration, or of
** an unfinished one when it found a better move; before any iteration
** finishes it is the first generated move.
*/
int kn_search(const kn_board *b, const kn_pos *root, kn_tt *tt,
              const kn_search_opts *o, kn_search_result *r) {
  sctx *s;
  shared sh;
  kn_search_pool *pool = NULL, *own = NULL;
  kn_move rm[KN_MAX_MOVES];
  uint64_t rk[KN_MAX_MOVES];
  int n, depth, maxdepth, pieces, nthreads = 1, nhelpers = 0, t, prevbest = 0;
  int early;
  /* bounded by depth alone: a proved distance must be the shortest */
  int exact_distance = o->lim.depth > 0 && o->lim.time <= 0 &&
                       o->lim.nodes == 0 && o->soft_time <= 0;
  uint64_t proofnodes = 0;
  double instability = 0;
  kn_move prevmove = KN_NOMOVE;

  memset(r, 0, sizeof *r);
  r->move = KN_NOMOVE;
  memset(&sh, 0, sizeof sh);
  atomic_init(&sh.stop, 0);
  atomic_init(&sh.best, 0);
  atomic_init(&sh.ls_on, 0);
  s = ctx_new(b, root, tt, o, &sh, 0);
  if (!s) return -1;
  pieces = kn_bits_count(&root->occ);
  maxdepth = o->lim.depth > 0 ? o->lim.depth : s->maxply - 2;
  if (maxdepth > s->maxply - 2) maxdepth = s->maxply - 2;
  if (o->lim.time > 0) s->deadline = s->t0 + o->lim.time;
  else if (o->lim.depth <= 0 && o->lim.nodes == 0) s->deadline = s->t0 + 1.0;
  kn_tt_age(tt);

  n = kn_gen_masks(b, &s->pos, rm, rk);
  if (n == 0) {
    r->score = -KN_WIN;
    finish(s, r);
    goto done;
  }
  r->move = rm[0];
  r->pv[0] = rm[0];
  r->pvlen = 1;
  if (s->o->lim.stop.fn && s->o->lim.stop.fn(s->o->lim.stop.ud)) {
    r->stopped = KN_STOP_USER;
    finish(s, r);
    goto done;
  }
  /* Clock-managed and forced: nothing to think about. */
  if (n == 1 && o->soft_time > 0) {
    finish(s, r);
    goto done;
  }

  nthreads = o->threads < 1 ? 1 : o->threads > KN_MAX_THREADS ? KN_MAX_THREADS
                                                               : o->threads;
  /* Helpers (never with a Lua evaluation: it is single-threaded): the
  ** caller's pool, or one for this call (joined at the end). The
  ** caller's pool starts before the endgame proof mode, whose solver
  ** then runs on the main thread alone: the helpers fill the table for
  ** the search that follows instead of idling (KN_EXP_LATE_HELPERS: after
  ** it, as before). A pool made for this call starts after it (its
  ** solver uses every thread). */
  if (o->eval.fn) nthreads = 1;
  early = o->pool && !(o->exp & KN_EXP_LATE_HELPERS);
  if (nthreads > 1 && early) {
    pool = o->pool;
    nhelpers = pool_start(pool, b, root, tt, o, nthreads - 1, maxdepth, rm,
                          rk, n);
    if (nhelpers) s->sh = &pool->sh; /* lockstep's turns */
  }

  /* Endgame proof mode: a proved win is played at once. */
  if (o->proof_pieces > 0 && pieces <= o->proof_pieces && o->lim.depth <= 0 &&
      b->narrow && kn_pos_phase(b, root) == KN_JUMP &&
      !(o->exp & KN_EXP_NO_PROOF)) {
    /* with a pool, one solver thread: the answer waits for no thread */
    int won = prove_root(b, root, pieces, o, o->pool ? 1 : nthreads, r,
                         &proofnodes);
    if (won < 0) {
      if (nhelpers) atomic_store(&pool->sh.stop, 1);
      ctx_free(s);
      return -1;
    }
    if (won || r->stopped) {
      finish(s, r);
      r->nodes = proofnodes;
      if (won && o->info && o->info(o->info_ud, r)) r->stopped = KN_STOP_ERROR;
      goto done;
    }
  }

  if (nthreads > 1 && !early) {
    pool = o->pool ? o->pool : (own = kn_search_pool_new());
    if (pool)
      nhelpers = pool_start(pool, b, root, tt, o, nthreads - 1, maxdepth, rm,
                            rk, n);
    if (nhelpers) s->sh = &pool->sh; /* lockstep's turns */
  }

  s->nodes = 1 + proofnodes; /* the root (and the solver's) */
  for (depth = 1; depth <= maxdepth; depth++) {
    int best, bi = root_iteration(s, depth, rm, rk, n, &best);
    if (s->stop) {
      /* An unfinished iteration that already found a better move. */
      if (bi > 0 && !(o->exp & KN_EXP_NO_PARTIAL)) {
        publish(s, r, best, depth - 1);
        /* reported too: the last info a caller saw names the move played */
        if (o->info && o->info(o->info_ud, r)) s->stop = KN_STOP_ERROR;
      }
      break;
    }
    /* The iteration finished: publish it and put its best move first. */
    to_front(rm, rk, bi);
    publish(s, r, best, depth);
    kn_tt_store(tt, pos_key(s), s->pos.stm, rm[0], best, depth, KN_TT_EXACT);
    if (o->info && o->info(o->info_ud, r)) {
      s->stop = KN_STOP_ERROR;
      break;
    }
    /* A proof within the horizon, or a horizon past the end, is final.
    ** Reductions can hide a shorter win below a depth of `pieces`, so a
    ** search bounded by depth alone goes on until its distance is exact;
    ** one with a clock or a node budget plays the proof at once. */
    if (kn_score_proven(best) && kn_score_plies(best) <= depth &&
        (depth >= pieces || !s->lmr || !exact_distance))
      break;
    if (depth >= pieces + 2) break;
    /* Clock management: a stable best move stops early, a changing one
    ** or a falling score earns more time; the hard limit still holds. */
    if (o->soft_time > 0 && depth >= 4) {
      double f, el = kn_clock() - s->t0;
      instability = instability * 0.5 + (rm[0] != prevmove ? 1.0 : 0.0);
      f = 0.5 + instability;
      if (best < prevbest - 60) f *= 1.5;
      if (f > 2.5) f = 2.5;
      if (el > o->soft_time * f * 0.6) break;
    }
    prevmove = rm[0];
    prevbest = best;
  }
  r->stopped = s->stop;
  finish(s, r);
done:
  /* Nothing finished (stopped at once, a forced move under a clock): a
  ** one-ply look still gives the answer a score of its own. */
  if (r->depth == 0 && n > 0) {
    one_ply_look(s, r, rm, rk, n);
    if (r->depth > 0 && o->info && o->info(o->info_ud, r))
      r->stopped = KN_STOP_ERROR;
  }
  /* Helpers stop at their next node; the answer does not wait for them
  ** (a pool of the caller's parks them when they are done). */
  if (nhelpers) {
    atomic_store(&pool->sh.stop, 1);
    if (atomic_load(&pool->sh.ls_on)) lockstep_end(&pool->sh);
    if (own) kn_search_pool_wait(own); /* all counted, then joined */
    for (t = 1; t <= nhelpers; t++)
      r->nodes += atomic_load_explicit(&pool->sh.nodes[t],
                                       memory_order_relaxed);
  }
  /* A helper that finished a deeper iteration than the main thread
  ** knows more: its move is the answer (never over a proof). */
  {
    uint64_t hb = nhelpers ? atomic_load(&pool->sh.best) : 0;
    int hd = (int)(hb >> 48);
    if (hd > r->depth && r->move != KN_NOMOVE && !kn_score_proven(r->score) &&
        r->stopped != KN_STOP_ERROR) {
      r->move = (kn_move)(hb & 0xFFFFFFFFu);
      r->score = (int16_t)(uint16_t)(hb >> 32);
      r->depth = hd;
      if (r->pvlen < 1 || r->pv[0] != r->move) {
        r->pv[0] = r->move;
        r->pvlen = 1;
      }
      /* reported too: the last info a caller saw names the move played */
      if (o->info && o->info(o->info_ud, r)) r->stopped = KN_STOP_ERROR;
    }
  }
  if (r->time > 0 && nhelpers) r->time = kn_clock() - s->t0;
  kn_search_pool_free(own);
  ctx_free(s);
  return 0;
}
