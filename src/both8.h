/*
** both8.h: kn_both64x's move counts for many positions at once, in vector
** lanes. The solver counts, for every child of a node, the moves of both
** sides after the move (its ordering), and the mobility look counts them
** at each of its leaves: every such count uses the same shifts and masks,
** so eight children (AVX-512 with VPOPCNTDQ) or four (AVX2) go through
** one pass of kn_both64x's directions side by side, a chain continuing
** while any lane still jumps. Without either, kn_both_many is the scalar
** loop over kn_both64x (kn_both_many_scalar), which gives the same counts
** (tests/test_solve.c compares the two).
*/
#ifndef KN_BOTH8_H
#define KN_BOTH8_H

#include <stdint.h>
#include <string.h>

#include "eval.h"

/* The counts of one position for a side 's' ('own' its moves, 'opp' its
** opponent's, 'omov' / 'mmov' the opponent's and its own pieces able to
** jump; the last two only when asked for). */
typedef struct kn_counts {
  int own, opp, mmov, omov;
} kn_counts;

/* The counts in 'r' of the 'n' positions occ ^ mk[i] for 's', one
** kn_both64x each; 'movers' (a constant) asks for mmov and omov. */
static inline __attribute__((always_inline)) void
kn_both_many_scalar(const kn_board *b, uint64_t occ, const uint64_t *mk, int n,
                    int s, kn_counts *r, const int movers) {
  const uint64_t me = b->side[s].w[0];
  for (int i = 0; i < n; i++) {
    kn_both c;
    r[i].own = kn_both64x(b, occ ^ mk[i], s, 0, &c);
    r[i].opp = c.omoves;
    if (movers) {
      r[i].mmov = __builtin_popcountll(c.movers & me);
      r[i].omov = __builtin_popcountll(c.movers & ~me);
    }
  }
}

#if defined(__AVX512F__) && defined(__AVX512VPOPCNTDQ__)
#include <immintrin.h>
#define KN_BOTH_LANES 8
typedef uint64_t kn_vq __attribute__((vector_size(64)));
/* Per lane bit counts, added up over a direction's chain (kn_pop_sum). */
typedef kn_vq kn_vacc;
static inline kn_vacc kn_pop_add(kn_vacc a, kn_vq x) {
  return a + (kn_vq)_mm512_popcnt_epi64((__m512i)x);
}
static inline kn_vq kn_pop_sum(kn_vacc a) { return a; }
static inline int kn_any(kn_vq x) {
  return _mm512_test_epi64_mask((__m512i)x, (__m512i)x) != 0;
}
static inline int kn_hmax(kn_vq x) {
  return (int)_mm512_reduce_max_epi64((__m512i)x);
}
/* mk[0..l-1] into the first 'l' lanes, zeros in the others (a masked
** load: a partial vector from scalar stores would stall the load). */
static inline kn_vq kn_load_lanes(const uint64_t *mk, int l) {
  return (kn_vq)_mm512_maskz_loadu_epi64((__mmask8)((1u << l) - 1), mk);
}
#elif defined(__AVX2__)
#include <immintrin.h>
#define KN_BOTH_LANES 4
typedef uint64_t kn_vq __attribute__((vector_size(32)));
/* Per byte bit counts (a nibble table), summed to the lanes once a
** direction: a byte gains at most 8 a step, and a chain has at most
** (KN_MAX_SIDE - 1) / 2 = 9 jumps, so it cannot overflow. */
typedef kn_vq kn_vacc;
static inline kn_vacc kn_pop_add(kn_vacc a, kn_vq x) {
  const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2,
                                       3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2,
                                       2, 3, 2, 3, 3, 4);
  const __m256i lo = _mm256_set1_epi8(15);
  __m256i v = (__m256i)x;
  __m256i c = _mm256_add_epi8(
      _mm256_shuffle_epi8(lut, _mm256_and_si256(v, lo)),
      _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), lo)));
  return (kn_vq)_mm256_add_epi8((__m256i)a, c);
}
static inline kn_vq kn_pop_sum(kn_vacc a) {
  return (kn_vq)_mm256_sad_epu8((__m256i)a, _mm256_setzero_si256());
}
static inline int kn_any(kn_vq x) {
  return !_mm256_testz_si256((__m256i)x, (__m256i)x);
}
static inline kn_vq kn_load_lanes(const uint64_t *mk, int l) {
  const __m256i iota = _mm256_setr_epi64x(0, 1, 2, 3);
  const __m256i m = _mm256_cmpgt_epi64(_mm256_set1_epi64x(l), iota);
  return (kn_vq)_mm256_maskload_epi64((const long long *)mk, m);
}
static inline int kn_hmax(kn_vq x) {
  int64_t a = (int64_t)x[0] > (int64_t)x[1] ? (int64_t)x[0] : (int64_t)x[1];
  int64_t c = (int64_t)x[2] > (int64_t)x[3] ? (int64_t)x[2] : (int64_t)x[3];
  return (int)(a > c ? a : c);
}
#endif

#ifdef KN_BOTH_LANES
/* One direction of kn_both64x over the lanes (KN_BOTH_DIR's steps). */
#define KN_BOTHV_DIR(d, FWD, BACK, n)                                   \
  do {                                                                  \
    const uint64_t jd = b->jump[d].w[0];                                \
    const kn_vq nb = FWD(o8, n), o = nb & emp;                          \
    kn_vq t = FWD(o8 & jd, 2 * (n)) & o;                                \
    kn_vacc a = zero, m = zero;                                         \
    mov |= BACK(t, 2 * (n));                                            \
    while (kn_any(t)) {                                                 \
      a = kn_pop_add(a, t);                                             \
      m = kn_pop_add(m, t & me);                                        \
      t = FWD(t & jd, 2 * (n)) & o;                                     \
    }                                                                   \
    all += kn_pop_sum(a);                                               \
    mine += kn_pop_sum(m);                                              \
  } while (0)

/* The counts of the 'l' (1..KN_BOTH_LANES) positions occ ^ mk[i] for
** 's', one a lane ('own', 'opp'; with 'movers' also 'mmov', 'omov'); the
** lanes from 'l' on hold the counts of 'occ' itself. */
static inline __attribute__((always_inline)) void
kn_both_lanes(const kn_board *b, uint64_t occ, const uint64_t *mk, int l, int s,
              kn_vq *own, kn_vq *opp, kn_vq *mmov, kn_vq *omov,
              const int movers) {
  const uint64_t me = b->side[s].w[0];
  const int c = b->cols;
  const kn_vq zero = {0};
  kn_vq o8, emp, mov = zero, all = zero, mine = zero;
  o8 = kn_load_lanes(mk, l) ^ occ;
  emp = b->all.w[0] & ~o8;
  KN_BOTHV_DIR(0, KN_BOTH_SHL, KN_BOTH_SHR, c); /* north */
  KN_BOTHV_DIR(1, KN_BOTH_SHL, KN_BOTH_SHR, 1); /* east */
  KN_BOTHV_DIR(2, KN_BOTH_SHR, KN_BOTH_SHL, c); /* south */
  KN_BOTHV_DIR(3, KN_BOTH_SHR, KN_BOTH_SHL, 1); /* west */
  *own = mine;
  *opp = all - mine;
  if (movers) {
    *mmov = kn_pop_sum(kn_pop_add(zero, mov & me));
    *omov = kn_pop_sum(kn_pop_add(zero, mov & ~me));
  }
}
#undef KN_BOTHV_DIR

/* Lanes 0..l-1 all ones, the others zero. */
static inline kn_vq kn_first_lanes(int l) {
#if KN_BOTH_LANES == 8
  const kn_vq iota = {0, 1, 2, 3, 4, 5, 6, 7};
#else
  const kn_vq iota = {0, 1, 2, 3};
#endif
  return (kn_vq)(iota < (uint64_t)l);
}

/* kn_both_many_scalar's counts, KN_BOTH_LANES positions at a time. */
static inline __attribute__((always_inline)) void
kn_both_many(const kn_board *b, uint64_t occ, const uint64_t *mk, int n, int s,
             kn_counts *r, const int movers) {
  for (int j = 0; j < n; j += KN_BOTH_LANES) {
    kn_vq own, opp, mm, om;
    int i, l = n - j < KN_BOTH_LANES ? n - j : KN_BOTH_LANES;
    kn_both_lanes(b, occ, mk + j, l, s, &own, &opp, &mm, &om, movers);
    for (i = 0; i < l; i++) {
      r[j + i].own = (int)own[i], r[j + i].opp = (int)opp[i];
      if (movers) r[j + i].mmov = (int)mm[i], r[j + i].omov = (int)om[i];
    }
  }
}
#else
#define KN_BOTH_LANES 1
static inline __attribute__((always_inline)) void
kn_both_many(const kn_board *b, uint64_t occ, const uint64_t *mk, int n, int s,
             kn_counts *r, const int movers) {
  kn_both_many_scalar(b, occ, mk, n, s, r, movers);
}
#endif

/* The solver's order keys of the 'n' children occ ^ mk[i] of a node
** with 's' to move: k[i] = 256 replies + 8 opponent's pieces able to
** jump - 4 own moves - 2 own pieces able to jump (solve.c). Returns 1
** (k then partly set) when a child leaves the opponent without a move.
** 'k' has room for n + KN_BOTH_LANES - 1 entries. */
static inline __attribute__((always_inline)) int
kn_order_keys_scalar(const kn_board *b, uint64_t occ, const uint64_t *mk,
                     int n, int s, int *k) {
  for (int i = 0; i < n; i++) {
    kn_counts c;
    kn_both_many_scalar(b, occ, mk + i, 1, s, &c, 1);
    if (c.opp == 0) return 1;
    k[i] = 256 * c.opp + 8 * c.omov - 4 * c.own - 2 * c.mmov;
  }
  return 0;
}

/* The look's leaves (solve.c): the best of the 'n' positions occ ^ mk[i]
** for the opponent of 's' ('s' to move in each), a position scored as
** 1000 when 's' has no move, else the opponent's moves minus those of
** 's'; -1000 when n = 0. With 'beta', positions past one scoring 'beta'
** or more may be left out (the value is then at least 'beta'). */
static inline __attribute__((always_inline)) int
kn_look_leaves_scalar(const kn_board *b, uint64_t occ, const uint64_t *mk,
                      int n, int s, int beta) {
  int best = -1000;
  for (int i = 0; i < n && best < beta; i++) {
    kn_counts c;
    int v;
    kn_both_many_scalar(b, occ, mk + i, 1, s, &c, 0);
    v = c.own == 0 ? 1000 : c.opp - c.own;
    if (v > best) best = v;
  }
  return best;
}

#if KN_BOTH_LANES > 1
typedef int kn_vk __attribute__((vector_size(4 * KN_BOTH_LANES)));

static inline __attribute__((always_inline)) int
kn_order_keys(const kn_board *b, uint64_t occ, const uint64_t *mk, int n,
              int s, int *k) {
  const kn_vq zero = {0};
  for (int j = 0; j < n; j += KN_BOTH_LANES) {
    kn_vq own, opp, mm, om;
    kn_vk k32;
    int l = n - j < KN_BOTH_LANES ? n - j : KN_BOTH_LANES;
    kn_both_lanes(b, occ, mk + j, l, s, &own, &opp, &mm, &om, 1);
    if (kn_any((kn_vq)(opp == zero) & kn_first_lanes(l))) return 1;
    k32 = __builtin_convertvector(256 * opp + 8 * om - 4 * own - 2 * mm, kn_vk);
    memcpy(k + j, &k32, sizeof k32);
  }
  return 0;
}

static inline __attribute__((always_inline)) int
kn_look_leaves(const kn_board *b, uint64_t occ, const uint64_t *mk, int n,
               int s, int beta) {
  const kn_vq zero = {0}, lost = zero - 1000;
  int best = -1000;
  for (int j = 0; j < n && best < beta; j += KN_BOTH_LANES) {
    kn_vq own, opp, z, in, v;
    int l = n - j < KN_BOTH_LANES ? n - j : KN_BOTH_LANES, m;
    kn_both_lanes(b, occ, mk + j, l, s, &own, &opp, NULL, NULL, 0);
    z = (kn_vq)(own == zero);
    in = kn_first_lanes(l);
    v = ((opp - own) & ~z) | (1000 & z);
    m = kn_hmax((v & in) | (lost & ~in));
    if (m > best) best = m;
  }
  return best;
}
#else
static inline __attribute__((always_inline)) int
kn_order_keys(const kn_board *b, uint64_t occ, const uint64_t *mk, int n,
              int s, int *k) {
  return kn_order_keys_scalar(b, occ, mk, n, s, k);
}

static inline __attribute__((always_inline)) int
kn_look_leaves(const kn_board *b, uint64_t occ, const uint64_t *mk, int n,
               int s, int beta) {
  return kn_look_leaves_scalar(b, occ, mk, n, s, beta);
}
#endif

#endif
