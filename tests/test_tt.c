/*
** test_tt.c: the transposition table: what is stored is found again,
** replacement keeps the deeper entry, the side to move is part of the
** key, a zero key never matches an empty slot, a claim for the other
** format (the solver's) empties the table, and threads hammering one
** small table never read an entry that was not stored for that key (a
** torn slot reads as a miss). Links the core only.
*/
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "tt.h"

static void store_then_probe(void **state) {
  kn_tt *tt = kn_tt_new(1);
  kn_tt_entry e;
  (void)state;
  assert_non_null(tt);
  assert_false(kn_tt_probe(tt, 0, 0, &e));
  kn_tt_store(tt, 0, 0, KN_MOVE(3, 5), -1234, 7, KN_TT_LOWER);
  assert_true(kn_tt_probe(tt, 0, 0, &e));
  assert_int_equal(e.move, KN_MOVE(3, 5));
  assert_int_equal(e.score, -1234);
  assert_int_equal(e.depth, 7);
  assert_int_equal(e.flags & 3, KN_TT_LOWER);
  assert_false(kn_tt_probe(tt, 0, 1, &e)); /* the other side to move */
  /* A result without a move keeps the stored move. */
  kn_tt_store(tt, 0, 0, KN_NOMOVE, 29000, 9, KN_TT_EXACT);
  assert_true(kn_tt_probe(tt, 0, 0, &e));
  assert_int_equal(e.move, KN_MOVE(3, 5));
  assert_int_equal(e.score, 29000);
  kn_tt_clear(tt);
  assert_false(kn_tt_probe(tt, 0, 0, &e));
  kn_tt_free(tt);
}

/* Claiming a table for the other format empties it; claiming it for the
** format it holds, or an empty one, keeps what it holds. */
static void claim_empties_the_other_format(void **state) {
  kn_tt *tt = kn_tt_new(1);
  kn_tt_entry e;
  (void)state;
  assert_int_equal(tt->format, KN_TT_EMPTY);
  kn_tt_claim(tt, KN_TT_SLOTS);
  kn_tt_store(tt, 42, 0, KN_NOMOVE, 7, 3, KN_TT_EXACT);
  kn_tt_age(tt); /* the search's claim: the same format, kept */
  assert_true(kn_tt_probe(tt, 42, 0, &e));
  kn_tt_claim(tt, KN_TT_WORDS);
  assert_int_equal(tt->format, KN_TT_WORDS);
  assert_false(kn_tt_probe(tt, 42, 0, &e));
  kn_tt_store(tt, 42, 0, KN_NOMOVE, 7, 3, KN_TT_EXACT);
  kn_tt_age(tt); /* back to slots: emptied */
  assert_int_equal(tt->format, KN_TT_SLOTS);
  assert_false(kn_tt_probe(tt, 42, 0, &e));
  kn_tt_store(tt, 42, 0, KN_NOMOVE, 7, 3, KN_TT_EXACT);
  kn_tt_clear(tt);
  assert_int_equal(tt->format, KN_TT_EMPTY);
  kn_tt_free(tt);
}

/* A one-bucket table: the fifth key evicts the shallowest entry. */
static void replacement_keeps_deep_entries(void **state) {
  kn_tt *tt = kn_tt_new(0);
  kn_tt_entry e;
  int i;
  (void)state;
  for (i = 0; i < 4; i++)
    kn_tt_store(tt, 100 + (uint64_t)i, 0, KN_NOMOVE, i, 10 + i, KN_TT_EXACT);
  kn_tt_store(tt, 200, 0, KN_NOMOVE, 5, 1, KN_TT_EXACT);
  assert_false(kn_tt_probe(tt, 100, 0, &e)); /* depth 10: the victim */
  for (i = 1; i < 4; i++) assert_true(kn_tt_probe(tt, 100 + (uint64_t)i, 0, &e));
  assert_true(kn_tt_probe(tt, 200, 0, &e));
  /* After a new generation, old entries go first whatever their depth. */
  kn_tt_age(tt);
  kn_tt_store(tt, 300, 0, KN_NOMOVE, 5, 0, KN_TT_EXACT);
  kn_tt_store(tt, 301, 0, KN_NOMOVE, 5, 0, KN_TT_EXACT);
  assert_true(kn_tt_probe(tt, 300, 0, &e));
  assert_true(kn_tt_probe(tt, 301, 0, &e));
  kn_tt_free(tt);
}

/* The payload a key must carry: a function of the key alone. */
static void payload(uint64_t key, kn_move *m, int *score, int *depth) {
  uint64_t h = key * 0x9E3779B97F4A7C15ull;
  *m = (kn_move)(h >> 40);
  *score = (int)((h >> 20) & 0x7FFF) - 16384;
  *depth = (int)((h >> 8) & 255);
}

typedef struct hammer {
  kn_tt *tt;
  uint64_t seed;
  long hits, bad;
} hammer;

static void *hammer_run(void *ud) {
  hammer *h = ud;
  long i;
  for (i = 0; i < 400000; i++) {
    uint64_t key = kn_rand(&h->seed) % 4096;
    kn_move m;
    int score, depth;
    kn_tt_entry e;
    payload(key, &m, &score, &depth);
    if (i & 1) {
      kn_tt_store(h->tt, key, (int)(key & 1), m, score, depth, KN_TT_EXACT);
    } else if (kn_tt_probe(h->tt, key, (int)(key & 1), &e)) {
      h->hits++;
      if (e.move != m || e.score != score || e.depth != depth) h->bad++;
    }
  }
  return NULL;
}

/* Four threads, a 64-bucket table, keys colliding all the time: many
** hits, and every hit carries its own key's payload. */
static void threads_never_read_a_mixed_entry(void **state) {
  kn_tt *tt = kn_tt_new(0.004);
  pthread_t th[4];
  hammer h[4];
  long hits = 0, bad = 0;
  int i;
  (void)state;
  for (i = 0; i < 4; i++) {
    memset(&h[i], 0, sizeof h[i]);
    h[i].tt = tt;
    h[i].seed = (uint64_t)i + 1;
    assert_int_equal(pthread_create(&th[i], NULL, hammer_run, &h[i]), 0);
  }
  for (i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    hits += h[i].hits;
    bad += h[i].bad;
  }
  assert_true(hits > 1000);
  assert_int_equal(bad, 0);
  kn_tt_free(tt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(store_then_probe),
      cmocka_unit_test(replacement_keeps_deep_entries),
      cmocka_unit_test(claim_empties_the_other_format),
      cmocka_unit_test(threads_never_read_a_mixed_entry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
