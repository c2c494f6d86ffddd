/*
** eval.c: the built-in static evaluation.
** Mobility dominates Konane: a side with no move loses, so the search
** mostly needs the difference in legal moves. Narrow boards compute the
** features with word shifts; wide boards go through the generic core.
*/
#include "eval.h"
#include "engine.h"

#include <string.h>

static const char *const weight_names[KN_NWEIGHTS] = {"mobility", "movers",
                                                      "tempo"};

void kn_weights_default(kn_weights *w) {
  w->mobility = 100;
  w->movers = 30;
  w->tempo = 0;
}

const char *kn_weight_name(int i) {
  return i >= 0 && i < KN_NWEIGHTS ? weight_names[i] : NULL;
}

int *kn_weight_ref(kn_weights *w, int i) {
  switch (i) {
  case 0: return &w->mobility;
  case 1: return &w->movers;
  case 2: return &w->tempo;
  default: return NULL;
  }
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

/* The evaluation of 'p' for its side to move (see eval.h). In the two
** removal phases only mobility counts: nothing else means much yet. */
int kn_eval(const kn_board *b, const kn_pos *p, const kn_weights *w,
            int mymoves) {
  int me = p->stm, score;
  if (b->narrow) {
    uint64_t occ = p->occ.w[0], e = b->all.w[0] & ~occ;
    if (e & (e - 1)) {
      int m = mymoves >= 0 ? mymoves : kn_count64(b, occ, me);
      int o = kn_count64(b, occ, me ^ 1);
      score = w->mobility * (m - o) + w->tempo;
      if (w->movers)
        score += w->movers * (kn_popcount(kn_movers64(b, occ, me)) -
                              kn_popcount(kn_movers64(b, occ, me ^ 1)));
      return score;
    }
  }
  {
    int m = mymoves >= 0 ? mymoves : kn_count_side(b, p, me);
    int o = kn_count_side(b, p, me ^ 1);
    score = w->mobility * (m - o) + w->tempo;
    if (w->movers && kn_pos_empties(b, p) >= 2)
      score += w->movers * (kn_movers(b, p, me) - kn_movers(b, p, me ^ 1));
  }
  return score;
}
