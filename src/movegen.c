/*
** movegen.c: legal move generation, counting, make and unmake.
**
** Jumps are generated a direction at a time with shifts. For a direction
** of step s, a first jump lands on t when the mover stands on t-2s, an
** enemy on t-s, and t is empty:
**
**     T1 = shift(own & jump[d], 2s) & shift(opp, s) & empty
**     Tk+1 = shift(Tk & jump[d], 2s) & shift(opp, s) & empty
**
** Tk is the set of landing squares after k jumps (the pieces jumped and
** the squares passed are those of the original position, since a multi
** jump keeps its direction). jump[d] keeps the shifts from wrapping
** around a rank edge or leaving the board.
*/
#include <stdlib.h>
#include <string.h>

#include "konane.h"

void kn_removals(const kn_board *b, const kn_pos *p, kn_bits *set);

#define POP(x) __builtin_popcountll(x)
#define LSB(x) __builtin_ctzll(x)

/* ---- narrow boards: one 64-bit word ---- */

/* XOR mask of a k-jump landing on 't' with step 's' (see kn_move_mask). */
static inline uint64_t mask64(int t, int s, int k) {
  uint64_t m = (uint64_t)1 << t;
  int sq = t - s;
  for (int j = 0; j < k; j++, sq -= 2 * s) m |= (uint64_t)1 << sq;
  return m | (uint64_t)1 << (t - 2 * k * s);
}

/* One direction of kn_count64: the first two jumps of the chains are
** counted without a branch (longer chains are rare, so the loop's test is
** well predicted; a branch per chain step mispredicts often). */
#define COUNT64_DIR(d, t1, o_, sh)                                  \
  do {                                                              \
    const uint64_t jd = b->jump[d].w[0], o = (o_);                  \
    uint64_t t = (t1);                                              \
    n += POP(t);                                                    \
    t = sh(t & jd) & o;                                             \
    n += POP(t);                                                    \
    for (t = sh(t & jd) & o; t; t = sh(t & jd) & o) n += POP(t);    \
  } while (0)

int kn_count64(const kn_board *b, uint64_t occ, int stm) {
  const uint64_t own = occ & b->side[stm].w[0];
  const uint64_t opp = occ & b->side[stm ^ 1].w[0];
  const uint64_t emp = b->all.w[0] & ~occ;
  const int c = b->cols;
  int n = 0;
#define UP2C(x) ((x) << 2 * c)
#define UP2(x) ((x) << 2)
#define DN2C(x) ((x) >> 2 * c)
#define DN2(x) ((x) >> 2)
  COUNT64_DIR(0, UP2C(own & b->jump[0].w[0]) & (opp << c) & emp,
              (opp << c) & emp, UP2C); /* north */
  COUNT64_DIR(1, UP2(own & b->jump[1].w[0]) & (opp << 1) & emp,
              (opp << 1) & emp, UP2); /* east */
  COUNT64_DIR(2, DN2C(own & b->jump[2].w[0]) & (opp >> c) & emp,
              (opp >> c) & emp, DN2C); /* south */
  COUNT64_DIR(3, DN2(own & b->jump[3].w[0]) & (opp >> 1) & emp,
              (opp >> 1) & emp, DN2); /* west */
#undef UP2C
#undef UP2
#undef DN2C
#undef DN2
  return n;
}

/* Emit every landing square of 't' after 'k' jumps of step 's'. */
#define EMIT64(t, s, k)                                         \
  for (uint64_t x_ = (t); x_; x_ &= x_ - 1) {                   \
    int to_ = LSB(x_);                                          \
    masks[n] = mask64(to_, (s), (k));                           \
    if (want) moves[n] = KN_MOVE(to_ - 2 * (k) * (s), to_);     \
    n++;                                                        \
  }

/* The same for single jumps (most moves): the mask from the landing's
** bit by two shifts, BACK(bit, st) stepping back by the direction's step. */
#define EMIT64_1(t, BACK, st, s)                                \
  for (uint64_t x_ = (t); x_; x_ &= x_ - 1) {                   \
    uint64_t bit_ = x_ & (0 - x_);                              \
    masks[n] = bit_ | BACK(bit_, (st)) | BACK(bit_, 2 * (st));  \
    if (want) {                                                 \
      int to_ = LSB(x_);                                        \
      moves[n] = KN_MOVE(to_ - 2 * (s), to_);                   \
    }                                                           \
    n++;                                                        \
  }

#define GEN_SHL(x, k) ((x) << (k))
#define GEN_SHR(x, k) ((x) >> (k))
/* One direction of gen64: FWD steps forward by 'st' bits ('s' the signed
** square step); single jumps, then the longer chains. */
#define GEN64_DIR(d, FWD, BACK, st, s)                           \
  do {                                                           \
    const uint64_t jd = b->jump[d].w[0], o = FWD(opp, st) & emp; \
    uint64_t t = FWD(own & jd, 2 * (st)) & o;                    \
    int k;                                                       \
    EMIT64_1(t, BACK, st, s)                                     \
    for (k = 2, t = FWD(t & jd, 2 * (st)) & o; t;                \
         k++, t = FWD(t & jd, 2 * (st)) & o)                     \
      EMIT64(t, s, k)                                            \
  } while (0)

/* kn_gen64 with or without the move list ('want' a constant once
** inlined, so the emit loops carry no test of it). */
static inline __attribute__((always_inline)) int
gen64(const kn_board *b, uint64_t occ, int stm, uint64_t *masks,
      kn_move *moves, const int want) {
  const uint64_t own = occ & b->side[stm].w[0];
  const uint64_t opp = occ & b->side[stm ^ 1].w[0];
  const uint64_t emp = b->all.w[0] & ~occ;
  const int c = b->cols;
  int n = 0;
  GEN64_DIR(0, GEN_SHL, GEN_SHR, c, c);  /* north */
  GEN64_DIR(1, GEN_SHL, GEN_SHR, 1, 1);  /* east */
  GEN64_DIR(2, GEN_SHR, GEN_SHL, c, -c); /* south */
  GEN64_DIR(3, GEN_SHR, GEN_SHL, 1, -1); /* west */
  return n;
}

int kn_gen64(const kn_board *b, uint64_t occ, int stm, uint64_t *masks,
             kn_move *moves) {
  return moves ? gen64(b, occ, stm, masks, moves, 1)
               : gen64(b, occ, stm, masks, NULL, 0);
}

/* ---- wide boards: 2, 4 or 7 words ---- */

#define NW 2
#include "wide_impl.h"
#undef NW
#define NW 4
#include "wide_impl.h"
#undef NW
#define NW 7
#include "wide_impl.h"
#undef NW

/*
** Jumps of 'stm' in the occupancy words 'occ' of a board of any size:
** stored in 'moves', or only counted when 'moves' is NULL. Uses the
** smallest word count that holds the board.
*/
int kn_jumps_wide(const kn_board *b, const uint64_t *occ, int stm,
                  kn_move *moves) {
  if (b->nsq <= 128) return jumps_2(b, occ, stm, moves);
  if (b->nsq <= 256) return jumps_4(b, occ, stm, moves);
  return jumps_7(b, occ, stm, moves);
}

static int gen_wide(const kn_board *b, const kn_pos *p, kn_move *moves) {
  return kn_jumps_wide(b, p->occ.w, p->stm, moves);
}

/* ---- the common interface ---- */

static int gen_removals(const kn_board *b, const kn_pos *p, kn_move *moves) {
  kn_bits set;
  int n = 0;
  kn_removals(b, p, &set);
  for (int i = 0; i < KN_WORDS; i++)
    for (uint64_t y = set.w[i]; y; y &= y - 1) {
      int sq = i * 64 + LSB(y);
      if (moves) moves[n] = KN_MOVE(sq, sq);
      n++;
    }
  return n;
}

/*
** Store the legal moves of 'p' in 'moves' (room for KN_MAX_MOVES) and
** return how many. The order is the generator's; kn_sort_moves gives the
** canonical one.
*/
int kn_gen(const kn_board *b, const kn_pos *p, kn_move *moves) {
  if (kn_pos_phase(b, p) != KN_JUMP) return gen_removals(b, p, moves);
  if (b->narrow) {
    uint64_t masks[KN_MAX_MOVES];
    return kn_gen64(b, p->occ.w[0], p->stm, masks, moves);
  }
  return gen_wide(b, p, moves);
}

/* The number of legal moves of 'p' (no list built). */
int kn_count(const kn_board *b, const kn_pos *p) {
  if (kn_pos_phase(b, p) != KN_JUMP) return gen_removals(b, p, NULL);
  if (b->narrow) return kn_count64(b, p->occ.w[0], p->stm);
  return gen_wide(b, p, NULL);
}

/* The moves 'colour' would have in 'p' if it were to move. */
int kn_count_side(const kn_board *b, const kn_pos *p, int colour) {
  kn_pos q = *p;
  q.stm = colour;
  return kn_count(b, &q);
}

static int cmp_move(const void *a, const void *b) {
  kn_move x = *(const kn_move *)a, y = *(const kn_move *)b;
  uint32_t kx = ((uint32_t)KN_FROM(x) << 9) | (uint32_t)KN_TO(x);
  uint32_t ky = ((uint32_t)KN_FROM(y) << 9) | (uint32_t)KN_TO(y);
  return kx < ky ? -1 : kx > ky;
}

/* Canonical order: by origin square index, then landing square index. */
void kn_sort_moves(kn_move *moves, int n) {
  if (n > 48) {
    qsort(moves, (size_t)n, sizeof *moves, cmp_move);
    return;
  }
  for (int i = 1; i < n; i++) { /* short lists: insertion sort */
    kn_move m = moves[i];
    uint32_t k = ((uint32_t)KN_FROM(m) << 9) | (uint32_t)KN_TO(m);
    int j = i - 1;
    while (j >= 0 && (((uint32_t)KN_FROM(moves[j]) << 9) | (uint32_t)KN_TO(moves[j])) > k) {
      moves[j + 1] = moves[j];
      j--;
    }
    moves[j + 1] = m;
  }
}

int kn_is_legal(const kn_board *b, const kn_pos *p, kn_move m) {
  kn_move list[KN_MAX_MOVES];
  int n = kn_gen(b, p, list);
  for (int i = 0; i < n; i++)
    if (list[i] == m) return 1;
  return 0;
}

/* Play 'm' (legal in 'p'): XOR its mask, pass the turn. */
void kn_make(const kn_board *b, kn_pos *p, kn_move m) {
  kn_bits mask;
  kn_move_mask(b, m, &mask);
  for (int i = 0; i < KN_WORDS; i++) p->occ.w[i] ^= mask.w[i];
  p->stm ^= 1;
}

/* Take back 'm', the last move played on 'p': the same XOR. */
void kn_unmake(const kn_board *b, kn_pos *p, kn_move m) { kn_make(b, p, m); }
