/*
** eval.h: the built-in static evaluation, its features and weights.
** Scores are from the side to move's point of view; 100 is worth one
** legal move of mobility difference (see docs/search.md).
*/
#ifndef KN_EVAL_H
#define KN_EVAL_H

#include "konane.h"

/*
** The features, each a difference "side to move minus opponent" (tempo
** is 1 for the side to move):
**   mobility   legal moves (each multi-jump stop counts)
**   movers     pieces having at least one jump
**   tempo      a constant for the side to move (parity of the game)
**   safe       single jumps the opponent cannot take away with its next
**              move: the mover cannot be jumped, the jumped piece cannot
**              move away, the landing square cannot be taken
**   attacked   movers the opponent can jump over next move
**   potential  jumps blocked only by an occupied landing square
**   takeaway   single jumps the opponent can take away with its next move
**              (the single jumps that are not safe)
**   reach      jumps one opponent move may open: blocked by a landing piece
**              the opponent can take, or over a square the opponent can land
**              on with an empty square beyond
**   region     regions (pieces joined side by side) where only this side
**              has a move: it keeps the last move there
**   edge       pieces on the board's edge (first and last rank and file):
**              they can only be jumped along the edge
**   corner     pieces on a corner: they can never be jumped
** score = sum(weight * feature). Weights are integers. The last eight are
** computed in the jump phase of boards of up to 64 squares (0 elsewhere).
** Edge and corner are popcounts of the occupancy: they add no pass.
** Game phase: each weight has a late value too ("NAME_late", the weight
** on an empty board; by default the same); with n pieces on a board of N
** squares a weight counts (late * (N - n) + weight * n) / N, the sum
** divided once (a linear blend from the full board to the empty one).
*/
enum {
  KN_F_MOBILITY,
  KN_F_MOVERS,
  KN_F_TEMPO,
  KN_F_SAFE,
  KN_F_ATTACKED,
  KN_F_POTENTIAL,
  KN_F_TAKEAWAY,
  KN_F_REACH,
  KN_F_REGION,
  KN_F_EDGE,
  KN_F_CORNER,
  KN_NWEIGHTS
};

typedef struct kn_weights {
  int w[KN_NWEIGHTS];
  int late[KN_NWEIGHTS]; /* the weights on an empty board (see above) */
  int phased;            /* nonzero when some late[i] != w[i] */
  int phased_short;      /* phased, and only mobility, movers, tempo,
                         ** region, edge and corner weighted in either set */
} kn_weights;

void kn_weights_default(kn_weights *w);
/* The name of weight 'i' (0 <= i < 2 * KN_NWEIGHTS: the weights, then
** their late values "NAME_late"), NULL past the end. */
const char *kn_weight_name(int i);
/* The weight named by index 'i' as kn_weight_name; NULL past the end.
** After writing through it call kn_weights_phase. */
int *kn_weight_ref(kn_weights *w, int i);
/* Sets w->phased and w->phased_short from the two sets. */
void kn_weights_phase(kn_weights *w);

/* Fills 'f' with the features of 'p' for its side to move; 'mymoves' is
** the side to move's legal move count when the caller knows it, else -1. */
void kn_features(const kn_board *b, const kn_pos *p, int mymoves,
                 int f[KN_NWEIGHTS]);

/* Evaluates 'p' for its side to move (sum of weight * feature). */
int kn_eval(const kn_board *b, const kn_pos *p, const kn_weights *w,
            int mymoves);

/* kn_eval of the narrow (b->narrow) jump-phase position ('occ', 'stm'),
** at least two squares empty, with the side to move's legal move count
** in '*moves' (0: it has lost, the score means nothing): the search's
** horizon in one pass over each colour's jumps, every feature included
** (safe and takeaway, and the regions, only when weighted). */
int kn_eval64_full(const kn_board *b, uint64_t occ, int stm,
                   const kn_weights *w, int *moves);

/* One direction of kn_both64x: chains of step FWD by n bits from any piece
** over any piece. With X (a constant: the branches fold away) also the
** jumps blocked only by an occupied landing square ('ball', 'bmine': all
** and the side to move's, counted at the landing, which has the mover's
** colour) and every piece some move jumps over ('ov'). */
#define KN_BOTH_SHL(x, n) ((x) << (n))
#define KN_BOTH_SHR(x, n) ((x) >> (n))
#define KN_BOTH_DIR(d, FWD, BACK, n, X)                                \
  do {                                                                 \
    const uint64_t jd = b->jump[d].w[0], nb = FWD(occ, n), o = nb & emp; \
    const uint64_t s2 = FWD(occ & jd, 2 * (n));                        \
    uint64_t t = s2 & o;                                               \
    mov |= BACK(t, 2 * (n));                                           \
    all += __builtin_popcountll(t);                                    \
    mine += __builtin_popcountll(t & me);                              \
    if (X) {                                                           \
      const uint64_t bl = s2 & nb & occ;                               \
      ball += __builtin_popcountll(bl);                                \
      bmine += __builtin_popcountll(bl & me);                          \
      ov |= BACK(t, n);                                                \
    }                                                                  \
    t = FWD(t & jd, 2 * (n)) & o; /* no branch for the second jump */  \
    all += __builtin_popcountll(t);                                    \
    mine += __builtin_popcountll(t & me);                              \
    if (X) ov |= BACK(t, n);                                           \
    for (t = FWD(t & jd, 2 * (n)) & o; t; t = FWD(t & jd, 2 * (n)) & o) { \
      all += __builtin_popcountll(t);                                  \
      mine += __builtin_popcountll(t & me);                            \
      if (X) ov |= BACK(t, n);                                         \
    }                                                                  \
  } while (0)

/* What kn_both64x counts besides the moves (each "side to move minus
** opponent"): movers, and with 'x' set attacked and potential. */
typedef struct kn_both {
  uint64_t movers; /* both colours' movers */
  int omoves, movers_diff, attacked_diff, potential_diff;
} kn_both;

/* The moves of 'stm' (returned) and of its opponent, both sides' movers,
** and with 'x' (a constant: always inlined, so its branches fold) the attacked and potential
** features, in a narrow jump-phase occupancy, in one pass for both
** colours: each colour stands on its own colour of the checkerboard
** (b->side) and a jump keeps it there, so the piece next to a piece is
** always an enemy, and a chain from any piece over any piece is a legal
** move of the colour of its landing square (a blocked jump: of the colour
** of its occupied landing; a piece jumped over: an enemy of its jumper,
** so the opponent's attacks are the pieces of 'stm' jumped over). Half
** the shifts of two side-by-side passes. */
static inline __attribute__((always_inline)) int
kn_both64x(const kn_board *b, uint64_t occ, int stm, int x, kn_both *r) {
  const uint64_t emp = b->all.w[0] & ~occ, me = b->side[stm].w[0];
  const int c = b->cols;
  uint64_t mov = 0, ov = 0;
  int all = 0, mine = 0, ball = 0, bmine = 0, mm;
  KN_BOTH_DIR(0, KN_BOTH_SHL, KN_BOTH_SHR, c, x); /* north */
  KN_BOTH_DIR(1, KN_BOTH_SHL, KN_BOTH_SHR, 1, x); /* east */
  KN_BOTH_DIR(2, KN_BOTH_SHR, KN_BOTH_SHL, c, x); /* south */
  KN_BOTH_DIR(3, KN_BOTH_SHR, KN_BOTH_SHL, 1, x); /* west */
  r->omoves = all - mine;
  mm = __builtin_popcountll(mov & me);
  r->movers_diff = 2 * mm - __builtin_popcountll(mov);
  r->movers = mov;
  if (x) {
    const uint64_t a = mov & ov;
    r->attacked_diff = 2 * __builtin_popcountll(a & me) - __builtin_popcountll(a);
    r->potential_diff = 2 * bmine - ball;
  } else {
    r->attacked_diff = r->potential_diff = 0;
  }
  return mine;
}

/* The region feature (see above) of a narrow occupancy whose movers are
** 'movers' (both colours), for 'stm'. */
int kn_regions64(const kn_board *b, uint64_t occ, int stm, uint64_t movers);

/* The edge (or corner: 'sq' the board's corner set) feature of a narrow
** occupancy for 'stm': its pieces on 'sq' minus the opponent's. */
static inline int kn_on64(const kn_board *b, uint64_t occ, int stm,
                          uint64_t sq) {
  const uint64_t o = occ & sq, me = b->side[stm].w[0];
  return 2 * __builtin_popcountll(o & me) - __builtin_popcountll(o);
}

/* The edge and corner terms of weights 'x' (zero weights cost a test). */
static inline int kn_edge_terms64(const kn_board *b, uint64_t occ, int stm,
                                  const int *x) {
  int v = 0;
  if (x[KN_F_EDGE]) v += x[KN_F_EDGE] * kn_on64(b, occ, stm, b->edge.w[0]);
  if (x[KN_F_CORNER])
    v += x[KN_F_CORNER] * kn_on64(b, occ, stm, b->corner.w[0]);
  return v;
}

/* kn_eval64 with attacked or potential weighted, not safe, takeaway or
** reach: one pass of kn_both64x with both (plus the regions when
** weighted). Out of line, so the default's horizon stays small. */
int kn_eval64_ap(const kn_board *b, uint64_t occ, int stm,
                 const kn_weights *w, int *moves);

/* kn_eval64 for phased weights (w->phased): the features of the cheapest
** pass that has every weighted one, blended by the number of pieces. */
int kn_eval64_phased(const kn_board *b, uint64_t occ, int stm,
                     const kn_weights *w, int *moves);

/* kn_eval64 inline: with only mobility, movers, tempo (the default) and
** region weighted the short pass of kn_both64x (and the regions from its
** movers); with attacked or potential too kn_eval64_ap; else
** kn_eval64_full. */
static inline int kn_eval64(const kn_board *b, uint64_t occ, int stm,
                            const kn_weights *w, int *moves) {
  const int *x = w->w;
  if (w->phased) {
    /* the short pass, both sets' sums blended: the same as
    ** kn_eval64_phased (one numerator, one division) */
    const int *y = w->late;
    kn_both r;
    long long a, l;
    int m, n, d;
    if (!w->phased_short) return kn_eval64_phased(b, occ, stm, w, moves);
    m = kn_both64x(b, occ, stm, 0, &r);
    d = m - r.omoves;
    a = x[KN_F_MOBILITY] * d + x[KN_F_TEMPO] + x[KN_F_MOVERS] * r.movers_diff;
    l = y[KN_F_MOBILITY] * d + y[KN_F_TEMPO] + y[KN_F_MOVERS] * r.movers_diff;
    if (x[KN_F_REGION] | y[KN_F_REGION]) {
      int g = kn_regions64(b, occ, stm, r.movers);
      a += x[KN_F_REGION] * g;
      l += y[KN_F_REGION] * g;
    }
    a += kn_edge_terms64(b, occ, stm, x);
    l += kn_edge_terms64(b, occ, stm, y);
    *moves = m;
    n = __builtin_popcountll(occ);
    return (int)((a * n + l * (b->nsq - n)) / b->nsq);
  }
  if (!(x[KN_F_SAFE] | x[KN_F_ATTACKED] | x[KN_F_POTENTIAL] |
        x[KN_F_TAKEAWAY] | x[KN_F_REACH])) {
    kn_both r;
    int m = kn_both64x(b, occ, stm, 0, &r);
    int v = x[KN_F_MOBILITY] * (m - r.omoves) + x[KN_F_TEMPO] +
            x[KN_F_MOVERS] * r.movers_diff;
    *moves = m;
    if (x[KN_F_REGION])
      v += x[KN_F_REGION] * kn_regions64(b, occ, stm, r.movers);
    return v + kn_edge_terms64(b, occ, stm, x);
  }
  if (!(x[KN_F_SAFE] | x[KN_F_TAKEAWAY] | x[KN_F_REACH]))
    return kn_eval64_ap(b, occ, stm, w, moves);
  return kn_eval64_full(b, occ, stm, w, moves);
}

/* Pieces of 'colour' with at least one jump in the jump phase. */
int kn_movers(const kn_board *b, const kn_pos *p, int colour);

#endif
