/*
** engine.c: helpers shared by search, solver and MCTS (engine.h).
*/
#include "engine.h"

#include <time.h>

/* Seconds since an arbitrary origin. C11 only offers TIME_UTC; the
** limits are coarse (milliseconds), so a wall clock is good enough. */
double kn_clock(void) {
  struct timespec ts;
  if (timespec_get(&ts, TIME_UTC) != TIME_UTC) return 0.0;
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void kn_limits_poll(const kn_limits *lim, double deadline, int *stop) {
  if (deadline > 0 && kn_clock() >= deadline) *stop = KN_STOP_LIMIT;
  if (lim->stop.fn && lim->stop.fn(lim->stop.ud)) *stop = KN_STOP_USER;
}

/* Generates the moves of 'p' with their narrow masks (see engine.h):
** the jump phase of a narrow board goes through the shift generator,
** everything else through kn_gen and kn_move_mask. */
int kn_gen_masks(const kn_board *b, const kn_pos *p, kn_move *moves,
                 uint64_t *masks) {
  int n, i;
  if (b->narrow) {
    uint64_t e = b->all.w[0] & ~p->occ.w[0];
    if (e & (e - 1)) return kn_gen64(b, p->occ.w[0], p->stm, masks, moves);
  }
  n = kn_gen(b, p, moves);
  for (i = 0; i < n; i++) {
    if (b->narrow) {
      kn_bits mk;
      kn_move_mask(b, moves[i], &mk);
      masks[i] = mk.w[0];
    } else {
      masks[i] = 0;
    }
  }
  return n;
}
