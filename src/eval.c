/*
** eval.c: the built-in static evaluation.
** Mobility dominates Konane: a side with no move loses, so the search
** mostly needs the difference in legal moves. Narrow boards compute the
** features with word shifts; wide boards go through the generic core.
*/
#include "eval.h"
#include "engine.h"

#include <string.h>

static const char *const weight_names[2 * KN_NWEIGHTS] = {
    "mobility",       "movers",        "tempo",         "safe",
    "attacked",       "potential",     "takeaway",      "reach",
    "region",         "edge",          "corner",        "mobility_late",
    "movers_late",    "tempo_late",    "safe_late",     "attacked_late",
    "potential_late", "takeaway_late", "reach_late",    "region_late",
    "edge_late",      "corner_late"};

/* The defaults (docs/search.md: fitted by scripts/tune.lua, then kept
** only where a match confirmed them). */
void kn_weights_default(kn_weights *w) {
  memset(w, 0, sizeof *w);
  w->w[KN_F_MOBILITY] = 100;
  w->w[KN_F_MOVERS] = 80;
  w->w[KN_F_TEMPO] = 35;
  w->w[KN_F_EDGE] = 70;
  w->w[KN_F_CORNER] = 146;
  memcpy(w->late, w->w, sizeof w->late);
  kn_weights_phase(w);
}

const char *kn_weight_name(int i) {
  return i >= 0 && i < 2 * KN_NWEIGHTS ? weight_names[i] : NULL;
}

int *kn_weight_ref(kn_weights *w, int i) {
  if (i >= 0 && i < KN_NWEIGHTS) return &w->w[i];
  if (i >= KN_NWEIGHTS && i < 2 * KN_NWEIGHTS) return &w->late[i - KN_NWEIGHTS];
  return NULL;
}

void kn_weights_phase(kn_weights *w) {
  int i, other = 0;
  for (i = 0; i < KN_NWEIGHTS; i++)
    if (i != KN_F_MOBILITY && i != KN_F_MOVERS && i != KN_F_TEMPO &&
        i != KN_F_REGION && i != KN_F_EDGE && i != KN_F_CORNER)
      other |= w->w[i] | w->late[i];
  w->phased = memcmp(w->w, w->late, sizeof w->late) != 0;
  w->phased_short = w->phased && !other;
}

/* The score of features 'f' under phased weights 'w' with 'n' pieces on
** 'nsq' squares (see eval.h): one division for the whole sum. */
static int phase_sum(const kn_weights *w, const int f[KN_NWEIGHTS], int n,
                     int nsq) {
  long long v = 0;
  int i;
  for (i = 0; i < KN_NWEIGHTS; i++)
    if (f[i])
      v += (long long)((long long)w->late[i] * (nsq - n) +
                       (long long)w->w[i] * n) *
           f[i];
  return (int)(v / nsq);
}

int kn_movers(const kn_board *b, const kn_pos *p, int colour) {
  kn_move mv[KN_MAX_MOVES];
  kn_bits seen;
  kn_pos q;
  int n, i, c = 0;
  if (kn_pos_empties(b, p) < 2) return 0;
  if (b->narrow) return kn_popcount(kn_movers64(b, p->occ.w[0], colour));
  q = *p;
  q.stm = colour;
  n = kn_gen(b, &q, mv);
  kn_bits_clear(&seen);
  for (i = 0; i < n; i++)
    if (!kn_bit(&seen, KN_FROM(mv[i]))) {
      kn_setbit(&seen, KN_FROM(mv[i]));
      c++;
    }
  return c;
}

/* One colour's jumps in a narrow jump-phase occupancy, in one pass over its
** four directions: per direction the landing squares of its single jumps
** ('land1'); over all its moves (multiple jumps too) its movers, every
** piece some move takes ('overall') and every landing square ('landall');
** its legal moves (every stop of every chain) and its jumps blocked only
** by an occupied landing square (per direction, at that landing: 'blk').
** 'own' and 'emp' are its pieces and the empty squares. */
typedef struct side64 {
  uint64_t land1[4], blk[4];
  uint64_t movers, overall, landall, own, emp;
  int moves, blocked;
} side64;

#define KN_SHL(x, n) ((x) << (n))
#define KN_SHR(x, n) ((x) >> (n))
/* One direction d whose step is FWD by n bits: 'a' the enemies next to a
** piece that has room to jump over them, 't' the landings of each further
** jump of the chains (a landing that can jump on goes on). */
#define KN_SIDE_DIR(d, FWD, BACK, n)                                   \
  do {                                                                 \
    const uint64_t jd = b->jump[d].w[0];                               \
    uint64_t a = FWD(own & jd, n) & opp, o = FWD(opp, n) & emp, t;     \
    t = FWD(a, n) & emp;                                               \
    j->land1[d] = t;                                                   \
    j->blk[d] = FWD(a, n) & ~emp & b->all.w[0];                        \
    j->blocked += kn_popcount(j->blk[d]);                              \
    j->movers |= BACK(t, 2 * (n));                                     \
    j->moves += kn_popcount(t);                                        \
    j->landall |= t;                                                   \
    j->overall |= BACK(t, n);                                          \
    t = FWD(t & jd, 2 * (n)) & o; /* no branch for the second jump */  \
    j->moves += kn_popcount(t);                                        \
    j->landall |= t;                                                   \
    j->overall |= BACK(t, n);                                          \
    for (t = FWD(t & jd, 2 * (n)) & o; t; t = FWD(t & jd, 2 * (n)) & o) { \
      j->moves += kn_popcount(t);                                      \
      j->landall |= t;                                                 \
      j->overall |= BACK(t, n);                                        \
    }                                                                  \
  } while (0)

static inline void side64_of(const kn_board *b, uint64_t occ, int colour,
                             side64 *j) {
  const uint64_t own = occ & b->side[colour].w[0];
  const uint64_t opp = occ & b->side[colour ^ 1].w[0];
  const uint64_t emp = b->all.w[0] & ~occ;
  const int c = b->cols;
  j->movers = j->overall = j->landall = 0;
  j->own = own;
  j->emp = emp;
  j->moves = j->blocked = 0;
  KN_SIDE_DIR(0, KN_SHL, KN_SHR, c); /* north */
  KN_SIDE_DIR(1, KN_SHL, KN_SHR, 1); /* east */
  KN_SIDE_DIR(2, KN_SHR, KN_SHL, c); /* south */
  KN_SIDE_DIR(3, KN_SHR, KN_SHL, 1); /* west */
}

/* The safe single jumps of 'me' against 'op' (see eval.h), counted at
** their landing squares: the landing is no opponent landing, the jumped
** piece (one step back) no opponent mover, the mover (two steps back) no
** piece the opponent can take. */
static inline int safe64(const kn_board *b, const side64 *me,
                         const side64 *op) {
  const int c = b->cols;
  const uint64_t l = ~op->landall, m = op->movers, t = op->overall;
  return kn_popcount(me->land1[0] & l & ~(m << c) & ~(t << 2 * c)) +
         kn_popcount(me->land1[1] & l & ~(m << 1) & ~(t << 2)) +
         kn_popcount(me->land1[2] & l & ~(m >> c) & ~(t >> 2 * c)) +
         kn_popcount(me->land1[3] & l & ~(m >> 1) & ~(t >> 2));
}

/* The jumps of 'me' one move of 'op' may open (see eval.h, reach): per
** direction, a blocked jump whose landing piece 'op' can take, and a
** piece next to a square 'op' can land on with an empty square beyond. */
static inline int reach64(const kn_board *b, const side64 *me,
                          const side64 *op) {
  const int c = b->cols;
  const uint64_t t = op->overall, l = op->landall, e = me->emp, o = me->own;
  return kn_popcount(me->blk[0] & t) + kn_popcount(me->blk[1] & t) +
         kn_popcount(me->blk[2] & t) + kn_popcount(me->blk[3] & t) +
         kn_popcount(((o & b->jump[0].w[0]) << c) & l & (e >> c)) +
         kn_popcount(((o & b->jump[1].w[0]) << 1) & l & (e >> 1)) +
         kn_popcount(((o & b->jump[2].w[0]) >> c) & l & (e << c)) +
         kn_popcount(((o & b->jump[3].w[0]) >> 1) & l & (e << 1));
}

/* Squares with a square east of them on the board (column < cols - 1). */
static inline uint64_t east_step64(const kn_board *b) {
  const uint64_t je = b->jump[KN_EAST].w[0];
  if (b->cols >= 3) return je | (je << 1);
  return b->cols == 2 ? b->all.w[0] & 0x5555555555555555ull : 0;
}

/* The squares of 'occ' joined side by side to 'r' (a flood fill; 'es'
** from east_step64). */
static inline uint64_t fill64(uint64_t r, uint64_t occ, uint64_t es, int c) {
  uint64_t prev;
  do {
    prev = r;
    r |= (((r & es) << 1) | ((r >> 1) & es) | (r << c) | (r >> c)) & occ;
  } while (r != prev);
  return r;
}

/* The regions of 'occ' (pieces joined side by side: every move stays in
** the region of its mover) where only one colour has a mover: those of
** the colour with movers 'mm' minus those of the colour with 'om'. The
** regions of each colour's movers are filled from all of them at once
** (few steps: movers are near everywhere), then only the regions one
** colour has alone are counted one by one (few and small). */
static inline int regions64(const kn_board *b, uint64_t occ, uint64_t mm,
                            uint64_t om) {
  const uint64_t es = east_step64(b);
  const int c = b->cols;
  uint64_t rm = mm, ro = om, pm, po, xm, xo;
  int n = 0;
#define KN_GROW(r) (r |= (((r & es) << 1) | ((r >> 1) & es) | (r << c) | (r >> c)) & occ)
  do { /* both fills in one loop, two steps a test: independent work */
    KN_GROW(rm);
    KN_GROW(ro);
    pm = rm, po = ro;
    KN_GROW(rm);
    KN_GROW(ro);
  } while (rm != pm || ro != po);
#undef KN_GROW
  for (xm = rm & ~ro; xm; n++) xm &= ~fill64(xm & -xm, xm, es, c);
  for (xo = ro & ~rm; xo; n--) xo &= ~fill64(xo & -xo, xo, es, c);
  return n;
}

int kn_regions64(const kn_board *b, uint64_t occ, int stm, uint64_t movers) {
  const uint64_t me = b->side[stm].w[0];
  return regions64(b, occ, movers & me, movers & ~me);
}

/* The flags of features64: which optional features to compute. */
enum { KN_X_SAFE = 1, KN_X_REGION = 2 };

/* All the features of a narrow jump-phase occupancy with at least two
** empty squares, for 'stm'; without KN_X_SAFE in 'extra' safe and
** takeaway are left at 0, without KN_X_REGION region (the search skips
** them when unweighted). Returns the side to move's legal move count. */
static inline int features64(const kn_board *b, uint64_t occ, int stm,
                              int extra, int f[KN_NWEIGHTS]) {
  side64 jm, jo;
  side64_of(b, occ, stm, &jm);
  side64_of(b, occ, stm ^ 1, &jo);
  f[KN_F_MOBILITY] = jm.moves - jo.moves;
  f[KN_F_MOVERS] = kn_popcount(jm.movers) - kn_popcount(jo.movers);
  f[KN_F_TEMPO] = 1;
  f[KN_F_SAFE] = f[KN_F_TAKEAWAY] = 0;
  if (extra & KN_X_SAFE) {
    int sm = safe64(b, &jm, &jo), so = safe64(b, &jo, &jm), d, s1 = 0;
    for (d = 0; d < 4; d++)
      s1 += kn_popcount(jm.land1[d]) - kn_popcount(jo.land1[d]);
    f[KN_F_SAFE] = sm - so;
    f[KN_F_TAKEAWAY] = s1 - (sm - so);
  }
  f[KN_F_ATTACKED] = kn_popcount(jm.movers & jo.overall) -
                     kn_popcount(jo.movers & jm.overall);
  f[KN_F_POTENTIAL] = jm.blocked - jo.blocked;
  f[KN_F_REACH] = reach64(b, &jm, &jo) - reach64(b, &jo, &jm);
  f[KN_F_REGION] =
      extra & KN_X_REGION ? regions64(b, occ, jm.movers, jo.movers) : 0;
  f[KN_F_EDGE] = kn_on64(b, occ, stm, b->edge.w[0]);
  f[KN_F_CORNER] = kn_on64(b, occ, stm, b->corner.w[0]);
  return jm.moves;
}

void kn_features(const kn_board *b, const kn_pos *p, int mymoves,
                 int f[KN_NWEIGHTS]) {
  int me = p->stm;
  memset(f, 0, KN_NWEIGHTS * sizeof *f);
  f[KN_F_TEMPO] = 1;
  if (b->narrow) {
    uint64_t occ = p->occ.w[0], e = b->all.w[0] & ~occ;
    if (e & (e - 1)) {
      features64(b, occ, me, KN_X_SAFE | KN_X_REGION, f);
      return;
    }
  }
  {
    int m = mymoves >= 0 ? mymoves : kn_count_side(b, p, me);
    f[KN_F_MOBILITY] = m - kn_count_side(b, p, me ^ 1);
    if (kn_pos_empties(b, p) >= 2)
      f[KN_F_MOVERS] = kn_movers(b, p, me) - kn_movers(b, p, me ^ 1);
  }
}

int kn_eval64_full(const kn_board *b, uint64_t occ, int stm,
                   const kn_weights *w, int *moves) {
  const int *x = w->w;
  int f[KN_NWEIGHTS], i, score = 0;
  *moves = features64(b, occ, stm,
                      (x[KN_F_SAFE] | x[KN_F_TAKEAWAY] ? KN_X_SAFE : 0) |
                          (x[KN_F_REGION] ? KN_X_REGION : 0),
                      f);
  for (i = 0; i < KN_NWEIGHTS; i++) score += x[i] * f[i];
  return score;
}

int kn_eval64_ap(const kn_board *b, uint64_t occ, int stm,
                 const kn_weights *w, int *moves) {
  const int *x = w->w;
  kn_both r;
  int m = kn_both64x(b, occ, stm, 1, &r);
  int v = x[KN_F_MOBILITY] * (m - r.omoves) + x[KN_F_TEMPO] +
          x[KN_F_MOVERS] * r.movers_diff + x[KN_F_ATTACKED] * r.attacked_diff +
          x[KN_F_POTENTIAL] * r.potential_diff;
  *moves = m;
  if (x[KN_F_REGION]) v += x[KN_F_REGION] * kn_regions64(b, occ, stm, r.movers);
  return v + kn_edge_terms64(b, occ, stm, x);
}

int kn_eval64_phased(const kn_board *b, uint64_t occ, int stm,
                     const kn_weights *w, int *moves) {
  int f[KN_NWEIGHTS] = {0}, i, wide = 0, region = 0;
  for (i = 0; i < KN_NWEIGHTS; i++) {
    int any = w->w[i] | w->late[i];
    if (any && (i == KN_F_SAFE || i == KN_F_TAKEAWAY || i == KN_F_REACH))
      wide = 1;
    if (any && i == KN_F_REGION) region = 1;
  }
  if (wide) {
    *moves = features64(b, occ, stm,
                        KN_X_SAFE | (region ? KN_X_REGION : 0), f);
  } else {
    kn_both r;
    int m = kn_both64x(b, occ, stm, 1, &r);
    f[KN_F_MOBILITY] = m - r.omoves;
    f[KN_F_MOVERS] = r.movers_diff;
    f[KN_F_TEMPO] = 1;
    f[KN_F_ATTACKED] = r.attacked_diff;
    f[KN_F_POTENTIAL] = r.potential_diff;
    if (region) f[KN_F_REGION] = kn_regions64(b, occ, stm, r.movers);
    f[KN_F_EDGE] = kn_on64(b, occ, stm, b->edge.w[0]);
    f[KN_F_CORNER] = kn_on64(b, occ, stm, b->corner.w[0]);
    *moves = m;
  }
  return phase_sum(w, f, __builtin_popcountll(occ), b->nsq);
}

/* The evaluation of 'p' for its side to move (see eval.h): the narrow jump
** phase goes through kn_eval64 ('mymoves' is not needed there). */
int kn_eval(const kn_board *b, const kn_pos *p, const kn_weights *w,
            int mymoves) {
  int f[KN_NWEIGHTS], i, score = 0;
  if (b->narrow) {
    uint64_t occ = p->occ.w[0], e = b->all.w[0] & ~occ;
    if (e & (e - 1)) {
      int m;
      return kn_eval64(b, occ, p->stm, w, &m);
    }
  }
  kn_features(b, p, mymoves, f);
  if (w->phased)
    return phase_sum(w, f, b->nsq - kn_pos_empties(b, p), b->nsq);
  for (i = 0; i < KN_NWEIGHTS; i++) score += w->w[i] * f[i];
  return score;
}
