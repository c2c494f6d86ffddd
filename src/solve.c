/*
** solve.c: the exact solver. A boolean negamax ("does the side to move
** win?") over the XOR masks of narrow boards, with:
**   - a transposition table keyed by the canonical occupancy (the least
**     image under the board's colour-preserving symmetries), storing
**     only proved results, so every hit ends the node;
**   - immediate wins: a move after which the opponent cannot move;
**   - ordering by the opponent's mobility after the move (fewest first,
**     ties broken by our own mobility), the strongest cheap predictor of
**     a win in Konane (a third fewer nodes than the opponent's alone);
**   - a killer move per ply as a tie-breaker;
**   - enhanced transposition cutoffs near the root, where a child already
**     proved lost in the table saves a whole subtree.
** Wide boards and the removal phases go through the generic core.
*/
#include "solve.h"

#include <stdlib.h>
#include <string.h>

#define POLL 4096
/* Positions with fewer pieces than this are not worth a table entry. */
#ifndef TT_MIN_PIECES
#define TT_MIN_PIECES 5
#endif
/* Enhanced transposition cutoffs at nodes with at least this many pieces. */
/* The last winning move at the same ply counts as half a reply fewer
** (worth ~15% of the nodes on 6x6; more than one reply makes it worse). */
#define KILLER_BONUS 128
#ifndef ETC_MIN_PIECES
#define ETC_MIN_PIECES 14
#endif

typedef struct vctx {
  const kn_board *b;
  kn_tt *tt;
  const kn_limits *lim;
  int nsym;                /* non-identity symmetries in 'sym' */
  int nbytes;              /* bytes of the occupancy word in use */
  uint64_t (*sym)[8][256]; /* per symmetry, per byte: the image bits */
  int cap;                 /* masks per ply of 'mk' */
  int maxply;
  uint64_t *mk;
  int *key;
  uint64_t *killer;        /* per ply: the last winning move's mask */
  uint64_t nodes, nextpoll;
  double deadline;
  int stop;
} vctx;

/* Counts a node and checks the limits (every POLL nodes); 1 when stopped. */
static inline int count_node(vctx *s) {
  s->nodes++;
  if (s->lim->nodes && s->nodes >= s->lim->nodes) s->stop = KN_STOP_LIMIT;
  if (s->nodes >= s->nextpoll) {
    s->nextpoll = s->nodes + POLL;
    kn_limits_poll(s->lim, s->deadline, &s->stop);
  }
  return s->stop;
}

/*
** Sorts moves by ascending key 'k' (insertion sort: the lists are short),
** stable, carrying along the masks 'mk' and the moves 'mv' (either may be
** NULL; the function is inlined, so the NULL arm disappears).
*/
static inline void sort_moves(int *k, uint64_t *mk, kn_move *mv, int n) {
  int i;
  for (i = 1; i < n; i++) {
    uint64_t m = mk ? mk[i] : 0;
    kn_move v = mv ? mv[i] : 0;
    int kk = k[i], j = i - 1;
    while (j >= 0 && k[j] > kk) {
      if (mk) mk[j + 1] = mk[j];
      if (mv) mv[j + 1] = mv[j];
      k[j + 1] = k[j];
      j--;
    }
    if (mk) mk[j + 1] = m;
    if (mv) mv[j + 1] = v;
    k[j + 1] = kk;
  }
}

/* The canonical key of a narrow occupancy: its least symmetric image. */
static inline uint64_t canon(const vctx *s, uint64_t occ) {
  uint64_t best = occ;
  int i, j;
  for (i = 0; i < s->nsym; i++) {
    uint64_t img = 0, x = occ;
    for (j = 0; j < s->nbytes; j++, x >>= 8) img |= s->sym[i][j][x & 255];
    if (img < best) best = img;
  }
  return best;
}

/* Pieces of 'colour' with at least one jump in the narrow 'occ'. */
static int movers_of(const kn_board *b, uint64_t occ, int colour) {
  return kn_popcount(kn_movers64(b, occ, colour));
}

/* log2 of a subtree size: the replacement priority of its entry. */
static inline int work_depth(uint64_t n) {
  int d = 0;
  while (n > 1) {
    n >>= 1;
    d++;
  }
  return d;
}

/*
** Narrow jump-phase solver: 1 when 'stm' to move in 'occ' wins, else 0
** (also 0 when s->stop is set; the caller checks it before trusting).
*/
static int solve64(vctx *s, uint64_t occ, int stm, int ply) {
  const kn_board *b = s->b;
  uint64_t *mk = s->mk + (size_t)ply * s->cap, key = 0, start;
  int *k = s->key + (size_t)ply * s->cap;
  int n, i, pieces, usett;

  if (count_node(s)) return 0;

  /* 1. Moves; none loses. The table bucket loads meanwhile. */
  pieces = kn_popcount(occ);
  usett = pieces >= TT_MIN_PIECES;
  if (usett) {
    key = canon(s, occ);
    kn_tt_prefetch(s->tt, key, stm);
  }
  n = kn_gen64(b, occ, stm, mk, NULL);
  if (n == 0) return 0;

  /* 2. Immediate wins: a move leaving the opponent without a reply.
  ** (Positions won this way are never stored, so this comes first.) */
  for (i = 0; i < n; i++) {
    int c = kn_count64(b, occ ^ mk[i], stm ^ 1);
    if (c == 0) return 1;
    k[i] = c;
  }
  if (n == 1) return !solve64(s, occ ^ mk[0], stm ^ 1, ply + 1);

  /* 3. The table: proved results only, so a hit is final. */
  if (usett) {
    kn_tt_entry e;
    if (kn_tt_probe(s->tt, key, stm, &e)) return e.score > 0;
  }

  /* Fewest replies first; among equals, weigh our moves left, the
  ** opponent's pieces able to jump (fewer is better) and ours (more is
  ** better), then the killer. Tuned on node counts: 6x6 brainking
  ** 8.6 M -> 4.3 M nodes, 6x6 free 12.7 M -> 8.2 M, 5x6 free 289 K ->
  ** 298 K, against the opponent's and our mobility alone. */
  for (i = 0; i < n; i++) {
    uint64_t ch = occ ^ mk[i];
    k[i] = 256 * k[i] - 4 * kn_count64(b, ch, stm) +
           8 * movers_of(b, ch, stm ^ 1) - 2 * movers_of(b, ch, stm);
    if (mk[i] == s->killer[ply]) k[i] -= KILLER_BONUS;
  }

  /* 4. Sort by the opponent's mobility. */
  sort_moves(k, mk, NULL, n);

  /* 5. Enhanced transposition cutoffs: a child already proved lost. */
  if (pieces >= ETC_MIN_PIECES) {
    uint64_t ck[KN_MAX_MOVES];
    for (i = 0; i < n; i++) {
      ck[i] = canon(s, occ ^ mk[i]);
      kn_tt_prefetch(s->tt, ck[i], stm ^ 1);
    }
    for (i = 0; i < n; i++) {
      kn_tt_entry e;
      if (kn_tt_probe(s->tt, ck[i], stm ^ 1, &e) && e.score < 0) {
        kn_tt_store(s->tt, key, stm, KN_NOMOVE, 1, 0, KN_TT_EXACT);
        return 1;
      }
    }
  }

  /* 6. Recurse: a child the opponent loses proves the win. */
  start = s->nodes;
  for (i = 0; i < n; i++) {
    int w = solve64(s, occ ^ mk[i], stm ^ 1, ply + 1);
    if (s->stop) return 0;
    if (!w) {
      s->killer[ply] = mk[i];
      if (usett)
        kn_tt_store(s->tt, key, stm, KN_NOMOVE, 1,
                    work_depth(s->nodes - start), KN_TT_EXACT);
      return 1;
    }
  }
  if (usett)
    kn_tt_store(s->tt, key, stm, KN_NOMOVE, -1, work_depth(s->nodes - start),
                KN_TT_EXACT);
  return 0;
}

/*
** Any board, any phase: 1 when the side to move of 'p' wins, else 0
** (0 with s->stop set when stopped). Narrow jump positions go to solve64.
** If 'best' is not NULL it receives a winning move (or the first move
** when lost).
*/
static int solve_any(vctx *s, kn_pos *p, int ply, kn_move *best) {
  const kn_board *b = s->b;
  kn_move *mv;
  uint64_t key, start;
  int n, i, *k;

  if (best) *best = KN_NOMOVE;
  if (!best && b->narrow && kn_pos_phase(b, p) == KN_JUMP)
    return solve64(s, p->occ.w[0], p->stm, ply);

  if (count_node(s)) return 0;

  mv = malloc(KN_MAX_MOVES * sizeof *mv);
  k = malloc(KN_MAX_MOVES * sizeof *k);
  if (!mv || !k) {
    free(mv), free(k);
    s->stop = KN_STOP_ERROR;
    return 0;
  }
  n = kn_gen(b, p, mv);
  kn_sort_moves(mv, n);
  if (n == 0) goto lost;
  if (best) *best = mv[0];

  /* Order by the opponent's mobility; an immediate win ends here. */
  for (i = 0; i < n; i++) {
    kn_make(b, p, mv[i]);
    k[i] = kn_count(b, p);
    kn_unmake(b, p, mv[i]);
    if (k[i] == 0) {
      if (best) *best = mv[i];
      free(mv), free(k);
      return 1;
    }
  }
  sort_moves(k, NULL, mv, n);
  if (best) *best = mv[0];

  key = b->narrow ? canon(s, p->occ.w[0]) : kn_pos_hash(b, p);
  if (!best) {
    kn_tt_entry e;
    if (kn_tt_probe(s->tt, key, p->stm, &e)) {
      free(mv), free(k);
      return e.score > 0;
    }
  }
  start = s->nodes;
  for (i = 0; i < n; i++) {
    int w;
    kn_make(b, p, mv[i]);
    w = solve_any(s, p, ply + 1, NULL);
    kn_unmake(b, p, mv[i]);
    if (s->stop) break;
    if (!w) {
      if (best) *best = mv[i];
      kn_tt_store(s->tt, key, p->stm, mv[i], 1, work_depth(s->nodes - start),
                  KN_TT_EXACT);
      free(mv), free(k);
      return 1;
    }
  }
  if (!s->stop)
    kn_tt_store(s->tt, key, p->stm, KN_NOMOVE, -1,
                work_depth(s->nodes - start), KN_TT_EXACT);
lost:
  free(mv), free(k);
  return 0;
}

/* Builds the byte tables of the non-identity symmetries (narrow only). */
static int build_syms(vctx *s) {
  const kn_board *b = s->b;
  int ids[KN_SYMS], n = kn_sym_list(b, ids), i, j, v, bit;
  s->nbytes = (b->nsq + 7) / 8;
  s->nsym = 0;
  if (n <= 1) return 0;
  s->sym = calloc((size_t)(n - 1), sizeof *s->sym);
  if (!s->sym) return -1;
  for (i = 1; i < n; i++)
    for (j = 0; j < s->nbytes; j++)
      for (v = 0; v < 256; v++) {
        uint64_t img = 0;
        for (bit = 0; bit < 8; bit++) {
          int sq = j * 8 + bit;
          if ((v >> bit) & 1 && sq < b->nsq)
            img |= (uint64_t)1 << kn_sym_square(b, ids[i], sq);
        }
        s->sym[i - 1][j][v] = img;
      }
  s->nsym = n - 1;
  return 0;
}

int kn_solve(const kn_board *b, const kn_pos *p, kn_tt *tt,
             const kn_limits *lim, kn_solve_result *r) {
  vctx s;
  kn_pos q = *p;
  double t0 = kn_clock();
  int w;

  memset(r, 0, sizeof *r);
  memset(&s, 0, sizeof s);
  r->win = -1;
  r->move = KN_NOMOVE;
  s.b = b;
  s.tt = tt;
  s.lim = lim;
  s.nextpoll = POLL;
  if (lim->time > 0) s.deadline = t0 + lim->time;
  s.maxply = kn_bits_count(&p->occ) + 4;
  if (b->narrow) {
    s.cap = 2 * b->nsq + 8;
    s.mk = malloc((size_t)s.maxply * s.cap * sizeof *s.mk);
    s.key = malloc((size_t)s.maxply * s.cap * sizeof *s.key);
    s.killer = calloc((size_t)s.maxply, sizeof *s.killer);
    if (!s.mk || !s.key || !s.killer || build_syms(&s)) {
      free(s.mk), free(s.key), free(s.sym), free(s.killer);
      return -1;
    }
  }
  if (lim->stop.fn && lim->stop.fn(lim->stop.ud)) s.stop = KN_STOP_USER;
  w = s.stop ? 0 : solve_any(&s, &q, 0, &r->move);
  r->nodes = s.nodes;
  r->time = kn_clock() - t0;
  r->stopped = s.stop;
  if (!s.stop) r->win = w;
  free(s.mk), free(s.key), free(s.sym), free(s.killer);
  return s.stop == KN_STOP_ERROR ? -1 : 0;
}
