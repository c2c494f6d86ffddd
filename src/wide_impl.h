/*
** wide_impl.h: jump counting and generation for boards of more than 64
** squares, as a template: movegen.c includes it once per word count NW
** (2, 4 and 7), so every loop over the words has a constant bound and
** unrolls. The algorithm is the narrow one of movegen.c, with shifts
** that carry bits across words.
*/
#ifndef NW
#error "define NW before including wide_impl.h"
#endif

#define KN_CAT_(a, b) a##b
#define KN_CAT(a, b) KN_CAT_(a, b)
#define FN(name) KN_CAT(name, NW)

/* o = x shifted towards higher squares by k (1..63) */
static inline void FN(shl_)(uint64_t *o, const uint64_t *x, int k) {
  for (int i = NW - 1; i > 0; i--) o[i] = (x[i] << k) | (x[i - 1] >> (64 - k));
  o[0] = x[0] << k;
}

static inline void FN(shr_)(uint64_t *o, const uint64_t *x, int k) {
  for (int i = 0; i < NW - 1; i++) o[i] = (x[i] >> k) | (x[i + 1] << (64 - k));
  o[NW - 1] = x[NW - 1] >> k;
}

/* t &= o; returns whether anything is left */
static inline int FN(and_any_)(uint64_t *t, const uint64_t *o) {
  uint64_t any = 0;
  for (int i = 0; i < NW; i++) any |= t[i] &= o[i];
  return any != 0;
}

/*
** Walk one direction: 'up' shifts towards higher squares by 'a' (the
** absolute step). Counts the landings into *n, and when 'moves' is not
** NULL stores them with step 's' (signed).
*/
static inline void FN(walk_)(const uint64_t *own, const uint64_t *opp,
                             const uint64_t *emp, const uint64_t *jm, int up,
                             int a, int s, kn_move *moves, int *n) {
  uint64_t o[NW], t[NW], x[NW];
  if (up) FN(shl_)(x, opp, a);
  else FN(shr_)(x, opp, a);
  for (int i = 0; i < NW; i++) o[i] = x[i] & emp[i];
  for (int i = 0; i < NW; i++) x[i] = own[i] & jm[i];
  if (up) FN(shl_)(t, x, 2 * a);
  else FN(shr_)(t, x, 2 * a);
  for (int k = 1; FN(and_any_)(t, o); k++) {
    for (int i = 0; i < NW; i++) {
      if (moves) {
        for (uint64_t y = t[i]; y; y &= y - 1) {
          int to = i * 64 + __builtin_ctzll(y);
          moves[(*n)++] = KN_MOVE(to - 2 * k * s, to);
        }
      } else {
        *n += __builtin_popcountll(t[i]);
      }
    }
    for (int i = 0; i < NW; i++) x[i] = t[i] & jm[i];
    if (up) FN(shl_)(t, x, 2 * a);
    else FN(shr_)(t, x, 2 * a);
  }
}

/* The jumps of 'stm' in occupancy 'occ': counted, or stored in 'moves'. */
static int FN(jumps_)(const kn_board *b, const uint64_t *occ, int stm,
                      kn_move *moves) {
  uint64_t own[NW], opp[NW], emp[NW];
  int n = 0, c = b->cols;
  for (int i = 0; i < NW; i++) {
    own[i] = occ[i] & b->side[stm].w[i];
    opp[i] = occ[i] & b->side[stm ^ 1].w[i];
    emp[i] = b->all.w[i] & ~occ[i];
  }
  FN(walk_)(own, opp, emp, b->jump[KN_NORTH].w, 1, c, c, moves, &n);
  FN(walk_)(own, opp, emp, b->jump[KN_EAST].w, 1, 1, 1, moves, &n);
  FN(walk_)(own, opp, emp, b->jump[KN_SOUTH].w, 0, c, -c, moves, &n);
  FN(walk_)(own, opp, emp, b->jump[KN_WEST].w, 0, 1, -1, moves, &n);
  return n;
}

#undef FN
#undef KN_CAT
#undef KN_CAT_
