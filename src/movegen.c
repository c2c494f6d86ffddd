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

int kn_count64(const kn_board *b, uint64_t occ, int stm) {
  const uint64_t own = occ & b->side[stm].w[0];
  const uint64_t opp = occ & b->side[stm ^ 1].w[0];
  const uint64_t emp = b->all.w[0] & ~occ;
  const int c = b->cols;
  int n = 0;
  uint64_t t, o;
  o = (opp << c) & emp; /* north */
  for (t = ((own & b->jump[0].w[0]) << 2 * c) & o; t;
       t = ((t & b->jump[0].w[0]) << 2 * c) & o)
    n += POP(t);
  o = (opp << 1) & emp; /* east */
  for (t = ((own & b->jump[1].w[0]) << 2) & o; t;
       t = ((t & b->jump[1].w[0]) << 2) & o)
    n += POP(t);
  o = (opp >> c) & emp; /* south */
  for (t = ((own & b->jump[2].w[0]) >> 2 * c) & o; t;
       t = ((t & b->jump[2].w[0]) >> 2 * c) & o)
    n += POP(t);
  o = (opp >> 1) & emp; /* west */
  for (t = ((own & b->jump[3].w[0]) >> 2) & o; t;
       t = ((t & b->jump[3].w[0]) >> 2) & o)
    n += POP(t);
  return n;
}

/* Emit every landing square of 't' after 'k' jumps of step 's'. */
#define EMIT64(t, s, k)                                         \
  for (uint64_t x_ = (t); x_; x_ &= x_ - 1) {                   \
    int to_ = LSB(x_);                                          \
    masks[n] = mask64(to_, (s), (k));                           \
    if (moves) moves[n] = KN_MOVE(to_ - 2 * (k) * (s), to_);    \
    n++;                                                        \
  }

int kn_gen64(const kn_board *b, uint64_t occ, int stm, uint64_t *masks,
             kn_move *moves) {
  const uint64_t own = occ & b->side[stm].w[0];
  const uint64_t opp = occ & b->side[stm ^ 1].w[0];
  const uint64_t emp = b->all.w[0] & ~occ;
  const int c = b->cols;
  int n = 0, k;
  uint64_t t, o;
  o = (opp << c) & emp;
  for (k = 1, t = ((own & b->jump[0].w[0]) << 2 * c) & o; t;
       k++, t = ((t & b->jump[0].w[0]) << 2 * c) & o)
    EMIT64(t, c, k)
  o = (opp << 1) & emp;
  for (k = 1, t = ((own & b->jump[1].w[0]) << 2) & o; t;
       k++, t = ((t & b->jump[1].w[0]) << 2) & o)
    EMIT64(t, 1, k)
  o = (opp >> c) & emp;
  for (k = 1, t = ((own & b->jump[2].w[0]) >> 2 * c) & o; t;
       k++, t = ((t & b->jump[2].w[0]) >> 2 * c) & o)
    EMIT64(t, -c, k)
  o = (opp >> 1) & emp;
  for (k = 1, t = ((own & b->jump[3].w[0]) >> 2) & o; t;
       k++, t = ((t & b->jump[3].w[0]) >> 2) & o)
    EMIT64(t, -1, k)
  return n;
}

/* ---- wide boards: KN_WORDS words ---- */

/* out = in shifted towards higher squares by 'k' (1..63) */
static inline void shl_bits(kn_bits *out, const kn_bits *in, int k) {
  for (int i = KN_WORDS - 1; i > 0; i--)
    out->w[i] = (in->w[i] << k) | (in->w[i - 1] >> (64 - k));
  out->w[0] = in->w[0] << k;
}

static inline void shr_bits(kn_bits *out, const kn_bits *in, int k) {
  for (int i = 0; i < KN_WORDS - 1; i++)
    out->w[i] = (in->w[i] >> k) | (in->w[i + 1] << (64 - k));
  out->w[KN_WORDS - 1] = in->w[KN_WORDS - 1] >> k;
}

static inline void shift_bits(kn_bits *out, const kn_bits *in, int s) {
  if (s > 0) shl_bits(out, in, s);
  else shr_bits(out, in, -s);
}

static inline int and_into(kn_bits *out, const kn_bits *a, const kn_bits *b) {
  uint64_t any = 0;
  for (int i = 0; i < KN_WORDS; i++) any |= out->w[i] = a->w[i] & b->w[i];
  return any != 0;
}

/*
** Walk the jumps of 'p' in every direction, calling back for each
** landing set: when 'moves' is NULL only count them.
*/
static int gen_wide(const kn_board *b, const kn_pos *p, kn_move *moves) {
  kn_bits own, opp, emp, o, t, x;
  int n = 0;
  for (int i = 0; i < KN_WORDS; i++) {
    own.w[i] = p->occ.w[i] & b->side[p->stm].w[i];
    opp.w[i] = p->occ.w[i] & b->side[p->stm ^ 1].w[i];
    emp.w[i] = b->all.w[i] & ~p->occ.w[i];
  }
  for (int d = 0; d < 4; d++) {
    int s = b->delta[d];
    shift_bits(&x, &opp, s);
    and_into(&o, &x, &emp);
    and_into(&x, &own, &b->jump[d]);
    shift_bits(&t, &x, 2 * s);
    for (int k = 1; and_into(&t, &t, &o); k++) {
      if (moves) {
        for (int i = 0; i < KN_WORDS; i++)
          for (uint64_t y = t.w[i]; y; y &= y - 1) {
            int to = i * 64 + LSB(y);
            moves[n++] = KN_MOVE(to - 2 * k * s, to);
          }
      } else {
        for (int i = 0; i < KN_WORDS; i++) n += POP(t.w[i]);
      }
      and_into(&x, &t, &b->jump[d]);
      shift_bits(&t, &x, 2 * s);
    }
  }
  return n;
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
  qsort(moves, (size_t)n, sizeof *moves, cmp_move);
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
