/*
** tt.c: the transposition table object.
** A power-of-two array of 4-entry buckets; depth-preferred replacement
** with ageing so that stale entries from earlier searches go first.
*/
#include "tt.h"

#include <stdlib.h>
#include <string.h>

/* Mixes 'key' and 'stm' into a bucket index; the multiply-xorshift
** spreads the occupancy bits (which are very regular) over the index. */
static uint64_t tt_index(const kn_tt *tt, uint64_t key, int stm) {
  uint64_t h = key ^ (stm ? 0x9E3779B97F4A7C15ull : 0);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return h & tt->mask;
}

size_t kn_tt_bytes(double mb) {
  size_t want, buckets = 1;
  if (!(mb > 0)) return KN_TT_BUCKET * sizeof(kn_tt_entry);
  if (mb > 65536) mb = 65536;
  want = (size_t)(mb * 1048576.0) / (KN_TT_BUCKET * sizeof(kn_tt_entry));
  while (buckets * 2 <= want) buckets *= 2;
  return buckets * KN_TT_BUCKET * sizeof(kn_tt_entry);
}

/* Creates a table of about 'mb' megabytes (see kn_tt_bytes); returns
** NULL when out of memory. A size of 0 still gives a one-bucket table,
** so callers never need a "no table" path. */
kn_tt *kn_tt_new(double mb) {
  size_t bytes = kn_tt_bytes(mb);
  kn_tt *tt = malloc(sizeof *tt);
  if (!tt) return NULL;
  tt->e = calloc(1, bytes);
  if (!tt->e) {
    free(tt);
    return NULL;
  }
  tt->mask = bytes / (KN_TT_BUCKET * sizeof(kn_tt_entry)) - 1;
  tt->age = 0;
  return tt;
}

void kn_tt_free(kn_tt *tt) {
  if (!tt) return;
  free(tt->e);
  free(tt);
}

void kn_tt_clear(kn_tt *tt) {
  memset(tt->e, 0, (tt->mask + 1) * KN_TT_BUCKET * sizeof(kn_tt_entry));
  tt->age = 0;
}

void kn_tt_age(kn_tt *tt) { tt->age = (uint8_t)((tt->age + 1) & 31); }

void kn_tt_prefetch(const kn_tt *tt, uint64_t key, int stm) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(tt->e + tt_index(tt, key, stm) * KN_TT_BUCKET);
#else
  (void)tt, (void)key, (void)stm;
#endif
}

/* Returns the entry of ('key', 'stm') or NULL. An empty slot has bound
** KN_TT_NONE, so a zero key never matches by accident. */
kn_tt_entry *kn_tt_probe(const kn_tt *tt, uint64_t key, int stm) {
  kn_tt_entry *e = tt->e + tt_index(tt, key, stm) * KN_TT_BUCKET;
  int i;
  for (i = 0; i < KN_TT_BUCKET; i++)
    if (e[i].key == key && (e[i].flags & 3) &&
        ((e[i].flags >> 2) & 1) == (unsigned)stm)
      return &e[i];
  return NULL;
}

/* Stores a result. The same position is overwritten in place (keeping
** its move when the new one has none); otherwise the victim is the slot
** with the least depth, entries of older searches counting as shallower
** than any of the current one. */
void kn_tt_store(kn_tt *tt, uint64_t key, int stm, kn_move move, int score,
                 int depth, int bound) {
  kn_tt_entry *e = tt->e + tt_index(tt, key, stm) * KN_TT_BUCKET;
  kn_tt_entry *v = NULL;
  int i, best = 1 << 30;
  if (depth < 0) depth = 0;
  if (depth > 255) depth = 255;
  for (i = 0; i < KN_TT_BUCKET; i++) {
    int val;
    if (e[i].key == key && (e[i].flags & 3) &&
        ((e[i].flags >> 2) & 1) == (unsigned)stm) {
      v = &e[i];
      if (move == KN_NOMOVE) move = v->move;
      break;
    }
    val = (e[i].flags & 3) == 0 ? -1000
          : (e[i].flags >> 3) == tt->age ? e[i].depth + 256
                                        : e[i].depth;
    if (val < best) {
      best = val;
      v = &e[i];
    }
  }
  v->key = key;
  v->move = move;
  v->score = (int16_t)score;
  v->depth = (uint8_t)depth;
  v->flags = (uint8_t)((bound & 3) | ((stm & 1) << 2) | (tt->age << 3));
}
