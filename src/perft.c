/*
** perft.c: move path enumeration, the proof of the move generator.
** Bulk counting at the last ply: a leaf costs a popcount, not a make.
** Once two squares are empty the game stays in the jump phase, so the
** removal plies go through the generic code and the rest through the
** narrow or wide kernel.
*/
#include <stdint.h>

#include "konane.h"

typedef struct perft_ctx {
  const kn_board *b;
  const kn_stop *stop;
  int stopped;
} perft_ctx;

/* Poll the stop check; big subtrees only, so the cost stays invisible. */
static int should_stop(perft_ctx *c) {
  if (!c->stopped && c->stop && c->stop->fn && c->stop->fn(c->stop->ud))
    c->stopped = 1;
  return c->stopped;
}

/* Narrow kernel: depth >= 1, jump phase. */
static uint64_t perft64(perft_ctx *c, uint64_t occ, int stm, int depth) {
  const kn_board *b = c->b;
  uint64_t masks[KN_MAX_MOVES];
  uint64_t total = 0;
  if (depth == 1) return (uint64_t)kn_count64(b, occ, stm);
  if (depth >= 5 && should_stop(c)) return 0;
  int n = kn_gen64(b, occ, stm, masks, NULL);
  if (depth == 2) {
    for (int i = 0; i < n; i++)
      total += (uint64_t)kn_count64(b, occ ^ masks[i], stm ^ 1);
    return total;
  }
  for (int i = 0; i < n && !c->stopped; i++)
    total += perft64(c, occ ^ masks[i], stm ^ 1, depth - 1);
  return total;
}

/* Flip the squares of jump 'm' in 'occ': origin, landing, jumped pieces. */
static inline void apply_jump(const kn_board *b, uint64_t *occ, kn_move m) {
  int from = KN_FROM(m), to = KN_TO(m);
  int d = kn_move_step(b, m);
  occ[from >> 6] ^= (uint64_t)1 << (from & 63);
  occ[to >> 6] ^= (uint64_t)1 << (to & 63);
  for (int s = from + d; s != to + d; s += 2 * d)
    occ[s >> 6] ^= (uint64_t)1 << (s & 63);
}

/* Wide kernel: depth >= 1, jump phase, any board size. */
static uint64_t perft_wide(perft_ctx *c, const kn_bits *occ, int stm,
                           int depth) {
  const kn_board *b = c->b;
  kn_move moves[KN_MAX_MOVES];
  uint64_t total = 0;
  if (depth == 1) return (uint64_t)kn_jumps_wide(b, occ->w, stm, NULL);
  if (depth >= 4 && should_stop(c)) return 0;
  int n = kn_jumps_wide(b, occ->w, stm, moves);
  for (int i = 0; i < n && !c->stopped; i++) {
    kn_bits next = *occ;
    apply_jump(b, next.w, moves[i]);
    total += depth == 2 ? (uint64_t)kn_jumps_wide(b, next.w, stm ^ 1, NULL)
                        : perft_wide(c, &next, stm ^ 1, depth - 1);
  }
  return total;
}

/* Generic recursion: removal phases and wide boards. */
static uint64_t perft_any(perft_ctx *c, kn_pos *p, int depth) {
  const kn_board *b = c->b;
  kn_move moves[KN_MAX_MOVES];
  uint64_t total = 0;
  if (depth == 0) return 1;
  if (kn_pos_phase(b, p) == KN_JUMP)
    return b->narrow ? perft64(c, p->occ.w[0], p->stm, depth)
                     : perft_wide(c, &p->occ, p->stm, depth);
  if (depth == 1) return (uint64_t)kn_count(b, p);
  if (depth >= 4 && should_stop(c)) return 0;
  int n = kn_gen(b, p, moves);
  for (int i = 0; i < n && !c->stopped; i++) {
    kn_make(b, p, moves[i]);
    total += perft_any(c, p, depth - 1);
    kn_unmake(b, p, moves[i]);
  }
  return total;
}

/*
** Count the move paths of exactly 'depth' plies from 'p'. Returns
** UINT64_MAX when 'stop' (may be NULL) asked to stop; 'p' is unchanged.
*/
uint64_t kn_perft(const kn_board *b, const kn_pos *p, int depth,
                  const kn_stop *stop) {
  perft_ctx c = {b, stop, 0};
  kn_pos q = *p;
  if (depth < 0) return 0;
  uint64_t n = perft_any(&c, &q, depth);
  return c.stopped ? UINT64_MAX : n;
}
