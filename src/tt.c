/*
** tt.c: the transposition table object.
** A power-of-two array of 4-slot buckets; depth-preferred replacement
** with ageing so that stale entries from earlier searches go first.
** Slots are pairs of relaxed atomic words checked against each other
** (see tt.h), so threads share a table without locks; on x86-64 and
** AArch64 the relaxed loads and stores are plain moves.
*/
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise */
#endif
#include "tt.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HUGE_PAGE ((size_t)2 << 20)

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define STORE(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

/* Mixes 'key' and 'stm' into a bucket index; the multiply-xorshift
** spreads the occupancy bits (which are very regular) over the index. */
static uint64_t tt_index(const kn_tt *tt, uint64_t key, int stm) {
  uint64_t h = key ^ (stm ? 0x9E3779B97F4A7C15ull : 0);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return h & tt->mask;
}

/* The check hash (kn_tt_keyhash, a bijection), unrelated to the index
** mixer. */
#define keyhash kn_tt_keyhash

static inline uint64_t pack(kn_move move, int score, int depth, int flags) {
  return (uint64_t)move | (uint64_t)(uint16_t)score << 32 |
         (uint64_t)(uint8_t)depth << 48 | (uint64_t)(uint8_t)flags << 56;
}

static inline void unpack(uint64_t d, kn_tt_entry *e) {
  e->move = (kn_move)(d & 0xFFFFFFFFu);
  e->score = (int16_t)(uint16_t)(d >> 32);
  e->depth = (uint8_t)(d >> 48);
  e->flags = (uint8_t)(d >> 56);
}

/* Bound bits and side-to-move bit of a packed word. */
#define D_BOUND(d) ((int)((d) >> 56) & 3)
#define D_STM(d) ((int)((d) >> 58) & 1)
#define D_AGE(d) ((int)((d) >> 59))
#define D_DEPTH(d) ((int)((d) >> 48) & 255)

size_t kn_tt_bytes(double mb) {
  size_t want, buckets = 1;
  if (!(mb > 0)) return KN_TT_BUCKET * sizeof(kn_tt_slot);
  if (mb > 65536) mb = 65536;
  want = (size_t)(mb * 1048576.0) / (KN_TT_BUCKET * sizeof(kn_tt_slot));
  while (buckets * 2 <= want) buckets *= 2;
  return buckets * KN_TT_BUCKET * sizeof(kn_tt_slot);
}

/* The slots' memory, zeroed. Tables of 2 MB and more on Linux: an
** anonymous mapping (zero, and free until touched) aligned to huge pages
** and asked to use them: a random probe then costs one TLB entry per 2 MB
** instead of per 4 KB (the solver spends most of its time on probes), and
** the first touches map 2 MB at a time (fresh 4 KB pages cost up to 70 us
** each on some virtual machines: 0.3 s for 16 MB). Nothing is mapped up
** front, so a short g:solve does not pay for its whole table; kn_tt_touch
** maps everything at once for callers that want that. Elsewhere calloc. */
static kn_tt_slot *slots_alloc(size_t bytes, void **raw, size_t *rawlen) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= HUGE_PAGE) {
    uintptr_t a;
    void *p = mmap(NULL, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    *raw = p;
    *rawlen = bytes + HUGE_PAGE;
    a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    madvise((void *)a, bytes, MADV_HUGEPAGE); /* a hint: failure is harmless */
    return (kn_tt_slot *)a;
  }
#endif
  *rawlen = 0;
  return *raw = calloc(1, bytes);
}

static void slots_free(void *raw, size_t rawlen) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (rawlen) {
    munmap(raw, rawlen);
    return;
  }
#endif
  (void)rawlen;
  free(raw);
}

void kn_tt_touch(kn_tt *tt) {
  size_t bytes = (tt->mask + 1) * KN_TT_BUCKET * sizeof(kn_tt_slot);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
  /* one call maps it all (huge pages where possible), far cheaper than a
  ** fault per page; older kernels refuse and the loop below does it */
  if (tt->rawlen && madvise(tt->e, bytes, MADV_POPULATE_WRITE) == 0) return;
#endif
  {
    volatile unsigned char *p = (volatile unsigned char *)tt->e;
    size_t i;
    for (i = 0; i < bytes; i += 4096) p[i] = p[i];
  }
}

/* Creates a table of about 'mb' megabytes (see kn_tt_bytes); returns
** NULL when out of memory. A size of 0 still gives a one-bucket table,
** so callers never need a "no table" path. All-zero words are empty
** slots (bound KN_TT_NONE). */
kn_tt *kn_tt_new(double mb) {
  size_t bytes = kn_tt_bytes(mb);
  kn_tt *tt = malloc(sizeof *tt);
  if (!tt) return NULL;
  tt->e = slots_alloc(bytes, &tt->raw, &tt->rawlen);
  if (!tt->e) {
    free(tt);
    return NULL;
  }
  tt->mask = bytes / (KN_TT_BUCKET * sizeof(kn_tt_slot)) - 1;
  tt->mb = mb;
  tt->format = KN_TT_EMPTY;
  atomic_init(&tt->age, 0);
  return tt;
}

void kn_tt_free(kn_tt *tt) {
  if (!tt) return;
  slots_free(tt->raw, tt->rawlen);
  free(tt);
}

void kn_tt_clear(kn_tt *tt) {
  memset(tt->e, 0, (tt->mask + 1) * KN_TT_BUCKET * sizeof(kn_tt_slot));
  STORE(tt->age, 0);
  tt->format = KN_TT_EMPTY;
}

void kn_tt_claim(kn_tt *tt, int format) {
  if (tt->format != format && tt->format != KN_TT_EMPTY) kn_tt_clear(tt);
  tt->format = format;
}

void kn_tt_age(kn_tt *tt) {
  kn_tt_claim(tt, KN_TT_SLOTS);
  STORE(tt->age, (uint8_t)((LOAD(tt->age) + 1) & 31));
}

void kn_tt_prefetch(const kn_tt *tt, uint64_t key, int stm) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(tt->e + tt_index(tt, key, stm) * KN_TT_BUCKET);
#else
  (void)tt, (void)key, (void)stm;
#endif
}

/* Finds ('key', 'stm'): a slot whose check decodes to the key, holding a
** bound (so an empty slot never matches a zero key) and the same side. */
int kn_tt_probe(const kn_tt *tt, uint64_t key, int stm, kn_tt_entry *out) {
  kn_tt_slot *e = tt->e + tt_index(tt, key, stm) * KN_TT_BUCKET;
  uint64_t h = keyhash(key);
  int i;
  for (i = 0; i < KN_TT_BUCKET; i++) {
    uint64_t d = LOAD(e[i].data), c = LOAD(e[i].check);
    if ((c ^ d) == h && D_BOUND(d) && D_STM(d) == stm) {
      unpack(d, out);
      return 1;
    }
  }
  return 0;
}

/* Stores a result. The same position is overwritten in place (keeping
** its move when the new one has none); otherwise the victim is the slot
** with the least depth, entries of older searches counting as shallower
** than any of the current one. Two threads storing into one bucket at
** once may both pick the same victim: one result is lost, never mixed. */
void kn_tt_store(kn_tt *tt, uint64_t key, int stm, kn_move move, int score,
                 int depth, int bound) {
  kn_tt_slot *e = tt->e + tt_index(tt, key, stm) * KN_TT_BUCKET;
  kn_tt_slot *v = NULL;
  uint64_t h = keyhash(key), d;
  int i, best = 1 << 30, age = LOAD(tt->age);
  if (depth < 0) depth = 0;
  if (depth > 255) depth = 255;
  for (i = 0; i < KN_TT_BUCKET; i++) {
    uint64_t di = LOAD(e[i].data), ci = LOAD(e[i].check);
    int val;
    if ((ci ^ di) == h && D_BOUND(di) && D_STM(di) == stm) {
      v = &e[i];
      if (move == KN_NOMOVE) move = (kn_move)(di & 0xFFFFFFFFu);
      break;
    }
    val = D_BOUND(di) == 0 ? -1000
          : D_AGE(di) == age ? D_DEPTH(di) + 256
                             : D_DEPTH(di);
    if (val < best) {
      best = val;
      v = &e[i];
    }
  }
  d = pack(move, score, depth, (bound & 3) | ((stm & 1) << 2) | (age << 3));
  STORE(v->data, d);
  STORE(v->check, h ^ d);
}

/* Samples the first 1000 slots (or all of a smaller table). */
int kn_tt_hashfull(const kn_tt *tt) {
  size_t n = (tt->mask + 1) * KN_TT_BUCKET, i, full = 0;
  int age = LOAD(tt->age);
  if (n > 1000) n = 1000;
  for (i = 0; i < n; i++) {
    uint64_t d = LOAD(tt->e[i].data);
    if (D_BOUND(d) && D_AGE(d) == age) full++;
  }
  return (int)(full * 1000 / n);
}
