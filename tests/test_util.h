/*
** test_util.h
** Helpers shared by the C tests: seeded generator, random positions, stop callbacks
** Header-only (static inline): each test program is one file
*/
#ifndef KONANE_TEST_UTIL_H
#define KONANE_TEST_UTIL_H

#include <stdint.h>

#include "konane.h"

/* splitmix64: the next number of the sequence whose state is '*s'. Any
** seed (even 0) gives a full-period sequence. */
static inline uint64_t tu_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A uniform-enough index in [0, n) (n > 0) for picking test inputs. */
static inline int tu_pick(uint64_t *s, int n) {
  return (int)(tu_rand(s) % (uint64_t)n);
}

/* Plays up to 'plies' random legal moves from the start of 'b' into 'p'
** (stopping early at the end of the game); returns the plies played. */
static inline int tu_random_play(const kn_board *b, kn_pos *p, int plies,
                                 uint64_t *seed) {
  kn_move mv[KN_MAX_MOVES];
  int i, n;
  kn_pos_start(b, p);
  for (i = 0; i < plies; i++) {
    n = kn_gen(b, p, mv);
    if (n == 0) break;
    kn_make(b, p, mv[tu_pick(seed, n)]);
  }
  return i;
}

/* A free-opening 'rows' x 'cols' board in 'b' and, in 'p', the position
** after up to 'plies' random moves from its start. Returns 0, or -1 when
** the size is out of range. */
static inline int tu_random_pos(kn_board *b, kn_pos *p, int rows, int cols,
                                int plies, uint64_t *seed) {
  if (kn_board_init(b, rows, cols) != 0) return -1;
  kn_board_default_first(b);
  tu_random_play(b, p, plies, seed);
  return 0;
}

/* A kn_stop callback: 'ud' points to an int count of polls still allowed;
** says stop on the poll that brings it to 0 (so n = 1 stops at once). */
static inline int tu_stop_after(void *ud) {
  int *n = (int *)ud;
  return --*n <= 0;
}

#endif
