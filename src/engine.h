/*
** engine.h: what search, solver and MCTS share: limits, the clock,
** a popcount, the random generator. C11 plus the GCC/Clang bit builtins
** (__builtin_popcountll, __builtin_ctzll, as everywhere in the core), no
** globals.
*/
#ifndef KN_ENGINE_H
#define KN_ENGINE_H

#include <stdint.h>

#include "konane.h"

/*
** Limits of a long computation; zero fields mean "no limit". The stop
** check is polled at least every few thousand nodes (well under 50 ms).
*/
typedef struct kn_limits {
  int depth;       /* search: deepest iteration in plies */
  double time;     /* seconds of wall time */
  uint64_t nodes;  /* nodes (search, solver) or playouts (MCTS) */
  kn_stop stop;    /* fn NULL: never asked to stop */
} kn_limits;

/* Why a computation ended early (the result field 'stopped'). */
enum {
  KN_DONE = 0,     /* finished: depth reached, proof found, ... */
  KN_STOP_LIMIT,   /* time or node limit */
  KN_STOP_USER,    /* the stop callback said so */
  KN_STOP_ERROR    /* a callback failed (e.g. a Lua evaluation raised) */
};

/* Monotonic-enough seconds (C11 timespec_get). */
double kn_clock(void);

/*
** The periodic limit check of search and solver: sets '*stop' to
** KN_STOP_LIMIT when 'deadline' (kn_clock seconds, <= 0: none) has passed
** and to KN_STOP_USER when the stop callback of 'lim' says so; leaves it
** alone otherwise (so a reason set earlier, e.g. the node limit, stays).
*/
void kn_limits_poll(const kn_limits *lim, double deadline, int *stop);

static inline int kn_popcount(uint64_t x) { return __builtin_popcountll(x); }

/* Narrow boards: the pieces of 'colour' in 'occ' with at least one jump
** (evaluation feature and solver move ordering). */
static inline uint64_t kn_movers64(const kn_board *b, uint64_t occ,
                                   int colour) {
  uint64_t own = occ & b->side[colour].w[0];
  uint64_t enemy = occ & b->side[colour ^ 1].w[0];
  uint64_t empty = b->all.w[0] & ~occ;
  uint64_t r = 0;
  for (int d = 0; d < 4; d++) {
    int s = b->delta[d];
    uint64_t e1 = s >= 0 ? enemy >> s : enemy << -s;
    uint64_t e2 = s >= 0 ? empty >> 2 * s : empty << -2 * s;
    r |= own & b->jump[d].w[0] & e1 & e2;
  }
  return r;
}

/*
** The moves of 'colour' in the narrow 'occ' (returned) and how many of its
** pieces have one ('*movers'): kn_count64 and the popcount of kn_movers64
** in one pass (a piece with a jump in a direction is the origin of a first
** jump there), inlined: the evaluation's short path calls it twice per
** leaf and the solver's ordering twice per child. The first
** two steps of each direction's chains are counted without a branch, as in
** kn_count64 (a branch per step mispredicts often: 16-29% of the solver's
** time on 6x6).
*/
static inline int kn_count_movers64(const kn_board *b, uint64_t occ,
                                    int colour, int *movers) {
  const uint64_t own = occ & b->side[colour].w[0];
  const uint64_t opp = occ & b->side[colour ^ 1].w[0];
  const uint64_t emp = b->all.w[0] & ~occ;
  const int c = b->cols;
  const uint64_t j0 = b->jump[0].w[0], j1 = b->jump[1].w[0],
                 j2 = b->jump[2].w[0], j3 = b->jump[3].w[0];
  uint64_t t, o, m;
  int n = 0;
  o = (opp << c) & emp; /* north */
  t = ((own & j0) << 2 * c) & o;
  m = t >> 2 * c;
  n += kn_popcount(t);
  t = ((t & j0) << 2 * c) & o;
  n += kn_popcount(t);
  for (t = ((t & j0) << 2 * c) & o; t; t = ((t & j0) << 2 * c) & o) n += kn_popcount(t);
  o = (opp << 1) & emp; /* east */
  t = ((own & j1) << 2) & o;
  m |= t >> 2;
  n += kn_popcount(t);
  t = ((t & j1) << 2) & o;
  n += kn_popcount(t);
  for (t = ((t & j1) << 2) & o; t; t = ((t & j1) << 2) & o) n += kn_popcount(t);
  o = (opp >> c) & emp; /* south */
  t = ((own & j2) >> 2 * c) & o;
  m |= t << 2 * c;
  n += kn_popcount(t);
  t = ((t & j2) >> 2 * c) & o;
  n += kn_popcount(t);
  for (t = ((t & j2) >> 2 * c) & o; t; t = ((t & j2) >> 2 * c) & o) n += kn_popcount(t);
  o = (opp >> 1) & emp; /* west */
  t = ((own & j3) >> 2) & o;
  m |= t << 2;
  n += kn_popcount(t);
  t = ((t & j3) >> 2) & o;
  n += kn_popcount(t);
  for (t = ((t & j3) >> 2) & o; t; t = ((t & j3) >> 2) & o) n += kn_popcount(t);
  *movers = kn_popcount(m);
  return n;
}

/* splitmix64: a tiny seeded generator; the state lives with the caller. */
static inline uint64_t kn_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A uniform integer in [0, n) (n > 0), by multiply-shift. */
static inline uint32_t kn_rand_below(uint64_t *s, uint32_t n) {
  return (uint32_t)(((kn_rand(s) >> 32) * (uint64_t)n) >> 32);
}

/*
** Moves with their narrow XOR masks. On boards of <= 64 squares 'mask'
** plays the move (occ ^= mask); wide boards leave it 0 and use kn_make.
** kn_gen_masks fills both for any phase and any width, returning the
** count; moves come in kn_gen order for removals and wide boards.
*/
int kn_gen_masks(const kn_board *b, const kn_pos *p, kn_move *moves,
                 uint64_t *masks);

#endif
