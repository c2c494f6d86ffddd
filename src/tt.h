/*
** tt.h: the transposition table object shared by search and solver.
** Plain C11; no globals: every table is an object the caller owns.
**
** Several threads may probe and store in one table at once (Lazy SMP,
** parallel solves) without locks: each slot is two 64-bit atomic words,
** the packed data and a check word (a bijective hash of the key XOR the
** data). A probe reads both and accepts the slot only when the check
** decodes to the probed key, so a slot torn by a concurrent store reads
** as a miss. With one thread a hit is exact (the key is the occupancy on
** boards of <= 64 squares); with several, a torn slot could pass the
** check only by a 64-bit hash coincidence (about 2^-64 per torn read).
*/
#ifndef KN_TT_H
#define KN_TT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "konane.h"

/* Bound types stored with a score. */
enum { KN_TT_NONE = 0, KN_TT_UPPER = 1, KN_TT_LOWER = 2, KN_TT_EXACT = 3 };

/*
** A decoded entry (what a probe returns, by value):
**   move   best or refuting move (KN_NOMOVE when none)
**   score  search score (or +1/-1 for the solver)
**   depth  draft of the stored result (the solver stores log2 of work)
**   flags  bits 0-1 bound, bit 2 side to move, bits 3-7 search age
*/
typedef struct kn_tt_entry {
  kn_move move;
  int16_t score;
  uint8_t depth;
  uint8_t flags;
} kn_tt_entry;

/* One slot in memory: 16 bytes; four make a 64-byte bucket. */
typedef struct kn_tt_slot {
  _Atomic uint64_t check; /* kn_tt_keyhash(key) ^ data */
  _Atomic uint64_t data;  /* move | score << 32 | depth << 48 | flags << 56 */
} kn_tt_slot;

typedef struct kn_tt {
  kn_tt_slot *e;   /* 4 * (mask + 1) slots */
  void *raw;       /* the allocation holding them */
  size_t rawlen;   /* its length when mapped (0: from calloc) */
  uint64_t mask;   /* bucket count - 1 (a power of two minus one) */
  double mb;       /* the size asked for (kn_tt_new's argument) */
  _Atomic uint8_t age; /* bumped by kn_tt_age at each new search */
  int format;      /* KN_TT_EMPTY, KN_TT_SLOTS or KN_TT_WORDS (kn_tt_claim) */
} kn_tt;

/* What a table's memory holds: nothing yet, the 16-byte slots of this
** file's functions, or the solver's own one-word entries (solve.c). */
enum { KN_TT_EMPTY = 0, KN_TT_SLOTS = 1, KN_TT_WORDS = 2 };

#define KN_TT_BUCKET 4

/* Bytes of a table created with 'mb' megabytes (rounded down to a power
** of two buckets, at least one bucket). */
size_t kn_tt_bytes(double mb);
kn_tt *kn_tt_new(double mb);
void kn_tt_free(kn_tt *tt);
/* Empties the table (not while other threads use it). */
void kn_tt_clear(kn_tt *tt);
/* Maps all the table's memory now (kn_tt_new leaves that to the first
** touches, which can be slow): for callers about to run timed searches. */
void kn_tt_touch(kn_tt *tt);
/* Starts a new search generation: older entries are replaced first.
** Also claims the table for slots (kn_tt_claim). */
void kn_tt_age(kn_tt *tt);
/* Readies the table for entries of 'format' (KN_TT_SLOTS or KN_TT_WORDS),
** emptying it first when it holds the other format (a table shared by
** g:search and g:solve); not while other threads use it. */
void kn_tt_claim(kn_tt *tt, int format);
/* Copies the entry of ('key', 'stm') into '*out' and returns 1, or
** returns 0 when the table holds none. */
int kn_tt_probe(const kn_tt *tt, uint64_t key, int stm, kn_tt_entry *out);
/* Hints the cache to fetch the bucket of ('key', 'stm') ahead of a probe. */
void kn_tt_prefetch(const kn_tt *tt, uint64_t key, int stm);
void kn_tt_store(kn_tt *tt, uint64_t key, int stm, kn_move move, int score,
                 int depth, int bound);
/* Per mille of a sample of slots holding an entry of the current age. */
int kn_tt_hashfull(const kn_tt *tt);

/* A bijection of 64-bit keys (murmur3's finaliser): two different keys
** never share a check hash. The search's slots and the solver's words both
** use it. */
static inline uint64_t kn_tt_keyhash(uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDull;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ull;
  k ^= k >> 33;
  return k;
}

#endif
