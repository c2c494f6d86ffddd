/*
** tt.h: the transposition table object shared by search and solver.
** Plain C11; no globals: every table is an object the caller owns.
*/
#ifndef KN_TT_H
#define KN_TT_H

#include <stddef.h>
#include <stdint.h>

#include "konane.h"

/* Bound types stored with a score. */
enum { KN_TT_NONE = 0, KN_TT_UPPER = 1, KN_TT_LOWER = 2, KN_TT_EXACT = 3 };

/*
** One entry, 16 bytes; four make a 64-byte bucket (one cache line).
**
**   key    the occupancy itself on boards of <= 64 squares (a perfect
**          key), kn_pos_hash on wider boards
**   move   best or refuting move (KN_NOMOVE when none)
**   score  search score (or +1/-1 for the solver)
**   depth  draft of the stored result (the solver stores log2 of work)
**   flags  bits 0-1 bound, bit 2 side to move, bits 3-7 search age
*/
typedef struct kn_tt_entry {
  uint64_t key;
  uint32_t move;
  int16_t score;
  uint8_t depth;
  uint8_t flags;
} kn_tt_entry;

typedef struct kn_tt {
  kn_tt_entry *e;  /* 4 * (mask + 1) entries */
  uint64_t mask;   /* bucket count - 1 (a power of two minus one) */
  uint8_t age;     /* bumped by kn_tt_age at each new search */
} kn_tt;

#define KN_TT_BUCKET 4

/* Bytes of a table created with 'mb' megabytes (rounded down to a power
** of two buckets, at least one bucket). */
size_t kn_tt_bytes(double mb);
kn_tt *kn_tt_new(double mb);
void kn_tt_free(kn_tt *tt);
void kn_tt_clear(kn_tt *tt);
void kn_tt_age(kn_tt *tt);
kn_tt_entry *kn_tt_probe(const kn_tt *tt, uint64_t key, int stm);
/* Hints the cache to fetch the bucket of ('key', 'stm') ahead of a probe. */
void kn_tt_prefetch(const kn_tt *tt, uint64_t key, int stm);
void kn_tt_store(kn_tt *tt, uint64_t key, int stm, kn_move move, int score,
                 int depth, int bound);

#endif
