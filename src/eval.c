/*
** eval.c: the built-in static evaluation.
** Mobility dominates Konane: a side with no move loses, so the search
** mostly needs the difference in legal moves. Narrow boards compute the
** features with word shifts; wide boards go through the generic core.
*/
#include "eval.h"
#include "engine.h"

#include <string.h>

static const char *const weight_names[KN_NWEIGHTS] = {
    "mobility", "movers", "tempo", "safe", "attacked", "potential"};

/* The defaults (docs/search.md: fitted by scripts/tune.lua, then kept
** only where a match confirmed them). */
void kn_weights_default(kn_weights *w) {
  memset(w, 0, sizeof *w);
  w->w[KN_F_MOBILITY] = 100;
  w->w[KN_F_MOVERS] = 30;
}

const char *kn_weight_name(int i) {
  return i >= 0 && i < KN_NWEIGHTS ? weight_names[i] : NULL;
}

int *kn_weight_ref(kn_weights *w, int i) {
  return i >= 0 && i < KN_NWEIGHTS ? &w->w[i] : NULL;
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

/* Bit p of the result is bit p + s of x (s may be negative). */
static inline uint64_t at(uint64_t x, int s) {
  return s >= 0 ? x >> s : x << -s;
}
/* Bit p + s of the result is bit p of x. */
static inline uint64_t to(uint64_t x, int s) {
  return s >= 0 ? x << s : x >> -s;
}

/* The jumps of one colour in a narrow occupancy: by direction, the single
** jumps ('from' the movers, 'over' the jumped pieces, 'land' the
** landings); over all moves (multiple jumps too) the movers, every piece
** some move takes ('overall') and every landing square ('landall'); and
** 'blocked', the jumps whose landing square is occupied. */
typedef struct jumps64 {
  uint64_t from[4], over[4], land[4];
  uint64_t movers, overall, landall;
  int blocked;
  int moves;   /* legal moves: every stop of every jump chain */
} jumps64;

static void jumps_of(const kn_board *b, uint64_t occ, int colour,
                     jumps64 *j) {
  uint64_t own = occ & b->side[colour].w[0];
  uint64_t enemy = occ & b->side[colour ^ 1].w[0];
  uint64_t empty = b->all.w[0] & ~occ;
  int d;
  j->movers = j->overall = j->landall = 0;
  j->blocked = j->moves = 0;
  for (d = 0; d < 4; d++) {
    int s = b->delta[d];
    uint64_t adj = own & b->jump[d].w[0] & at(enemy, s);
    uint64_t f = adj & at(empty, 2 * s), t;
    j->blocked += kn_popcount(adj & at(occ, 2 * s));
    j->from[d] = f;
    j->over[d] = to(f, s);
    j->land[d] = to(f, 2 * s);
    j->movers |= f;
    /* follow the multiple jumps: a landing that can jump on */
    for (t = f; t; t = to(t, 2 * s) & b->jump[d].w[0] &
                     at(enemy, s) & at(empty, 2 * s)) {
      j->overall |= to(t, s);
      j->landall |= to(t, 2 * s);
      j->moves += kn_popcount(t);
    }
  }
}

/* The safe single jumps of 'me' against 'op' (see eval.h). */
static int safe_jumps(const kn_board *b, const jumps64 *me,
                      const jumps64 *op) {
  int d, n = 0;
  for (d = 0; d < 4; d++) {
    /* the mover must not be jumped, the jumped piece must not be able to
    ** move, the landing must not be an opponent landing */
    uint64_t f = me->from[d] & ~op->overall;
    uint64_t over_ok = ~op->movers, land_ok = ~op->landall;
    /* map the conditions on the jumped and landing squares back to the
    ** mover: shift them by -s and -2s */
    uint64_t x = me->over[d] & over_ok, y = me->land[d] & land_ok;
    int s = b->delta[d];
    n += kn_popcount(f & at(x, s) & at(y, 2 * s));
  }
  return n;
}

void kn_features(const kn_board *b, const kn_pos *p, int mymoves,
                 int f[KN_NWEIGHTS]) {
  int me = p->stm;
  memset(f, 0, KN_NWEIGHTS * sizeof *f);
  f[KN_F_TEMPO] = 1;
  if (b->narrow) {
    uint64_t occ = p->occ.w[0], e = b->all.w[0] & ~occ;
    if (e & (e - 1)) {
      jumps64 jm, jo;
      jumps_of(b, occ, me, &jm);
      jumps_of(b, occ, me ^ 1, &jo);
      f[KN_F_MOBILITY] = jm.moves - jo.moves;
      f[KN_F_MOVERS] = kn_popcount(jm.movers) - kn_popcount(jo.movers);
      f[KN_F_SAFE] = safe_jumps(b, &jm, &jo) - safe_jumps(b, &jo, &jm);
      f[KN_F_ATTACKED] = kn_popcount(jm.movers & jo.overall) -
                         kn_popcount(jo.movers & jm.overall);
      f[KN_F_POTENTIAL] = jm.blocked - jo.blocked;
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

/* The legal moves of 'colour' in a narrow jump-phase occupancy, and in
** '*movers' how many of its pieces have one: kn_count64 and kn_movers64
** in one pass (a mover is the origin of a first jump). */
static inline int count_movers64(const kn_board *b, uint64_t occ, int colour,
                                 int *movers) {
  const uint64_t own = occ & b->side[colour].w[0];
  const uint64_t opp = occ & b->side[colour ^ 1].w[0];
  const uint64_t emp = b->all.w[0] & ~occ;
  const int c = b->cols;
  uint64_t t, o, mv = 0;
  int n = 0;
  o = (opp << c) & emp; /* north */
  t = ((own & b->jump[0].w[0]) << 2 * c) & o;
  mv |= t >> 2 * c;
  for (; t; t = ((t & b->jump[0].w[0]) << 2 * c) & o) n += kn_popcount(t);
  o = (opp << 1) & emp; /* east */
  t = ((own & b->jump[1].w[0]) << 2) & o;
  mv |= t >> 2;
  for (; t; t = ((t & b->jump[1].w[0]) << 2) & o) n += kn_popcount(t);
  o = (opp >> c) & emp; /* south */
  t = ((own & b->jump[2].w[0]) >> 2 * c) & o;
  mv |= t << 2 * c;
  for (; t; t = ((t & b->jump[2].w[0]) >> 2 * c) & o) n += kn_popcount(t);
  o = (opp >> 1) & emp; /* west */
  t = ((own & b->jump[3].w[0]) >> 2) & o;
  mv |= t << 2;
  for (; t; t = ((t & b->jump[3].w[0]) >> 2) & o) n += kn_popcount(t);
  *movers = kn_popcount(mv);
  return n;
}

int kn_eval64(const kn_board *b, uint64_t occ, int stm, const kn_weights *w,
              int *moves) {
  if (!w->w[KN_F_SAFE] && !w->w[KN_F_ATTACKED] && !w->w[KN_F_POTENTIAL]) {
    int mm, om, m = count_movers64(b, occ, stm, &mm);
    int o = count_movers64(b, occ, stm ^ 1, &om);
    *moves = m;
    return w->w[KN_F_MOBILITY] * (m - o) + w->w[KN_F_TEMPO] +
           w->w[KN_F_MOVERS] * (mm - om);
  }
  {
    kn_pos p;
    memset(&p, 0, sizeof p);
    p.occ.w[0] = occ;
    p.stm = stm;
    *moves = kn_count64(b, occ, stm);
    return kn_eval(b, &p, w, *moves);
  }
}

/* The evaluation of 'p' for its side to move (see eval.h). The common
** case (only mobility, movers and tempo weighted, narrow jump phase)
** takes the short path of two counts and two mover sets. */
int kn_eval(const kn_board *b, const kn_pos *p, const kn_weights *w,
            int mymoves) {
  int f[KN_NWEIGHTS], i, score = 0;
  if (b->narrow && !w->w[KN_F_SAFE] && !w->w[KN_F_ATTACKED] &&
      !w->w[KN_F_POTENTIAL]) {
    uint64_t occ = p->occ.w[0], e = b->all.w[0] & ~occ;
    int me = p->stm;
    if (e & (e - 1)) {
      int m = mymoves >= 0 ? mymoves : kn_count64(b, occ, me);
      int o = kn_count64(b, occ, me ^ 1);
      score = w->w[KN_F_MOBILITY] * (m - o) + w->w[KN_F_TEMPO];
      if (w->w[KN_F_MOVERS])
        score += w->w[KN_F_MOVERS] *
                 (kn_popcount(kn_movers64(b, occ, me)) -
                  kn_popcount(kn_movers64(b, occ, me ^ 1)));
      return score;
    }
  }
  kn_features(b, p, mymoves, f);
  for (i = 0; i < KN_NWEIGHTS; i++) score += w->w[i] * f[i];
  return score;
}
