/*
** test_rules.c: the rules core against rules.md and against itself:
** perft numbers, narrow vs wide generators, make/unmake, position text,
** move notation and symmetries.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "konane.h"
#include "test_util.h"

/* 'b' as n x n brainking: corners and centre squares of Black's colour. */
static void brainking(kn_board *b, int n) {
  kn_board_init(b, n, n);
  int f[4] = {0, n - 1, n / 2 - 1, n / 2}, r[4] = {n - 1, 0, n / 2, n / 2 - 1};
  for (int i = 0; i < 4; i++) kn_setbit(&b->first, kn_square(b, f[i], r[i]));
}

static void perft_8x8_brainking_matches_rules_md(void **state) {
  (void)state;
  static const uint64_t want[] = {1, 4, 12, 28, 172, 892, 7124, 52044};
  kn_board b;
  kn_pos p;
  brainking(&b, 8);
  kn_pos_start(&b, &p);
  for (int d = 0; d <= 7; d++)
    assert_true(kn_perft(&b, &p, d, NULL) == want[d]);
}

static void perft_6x6_brainking_matches_rules_md(void **state) {
  (void)state;
  static const uint64_t want[] = {1, 4, 12, 28, 156, 668, 4192, 22676};
  kn_board b;
  kn_pos p;
  brainking(&b, 6);
  kn_pos_start(&b, &p);
  for (int d = 0; d <= 7; d++)
    assert_true(kn_perft(&b, &p, d, NULL) == want[d]);
}

/* Play a random game on 'b' from 'p', checking at every ply that the
** narrow and wide generators agree, counting agrees with generating, and
** unmake restores the position exactly. */
static void random_game_checks(const kn_board *b, kn_pos p, uint64_t seed) {
  kn_board wide = *b;
  wide.narrow = 0;
  kn_move hist[KN_MAX_SQ];
  kn_pos before[KN_MAX_SQ];
  int ply = 0;
  for (;;) {
    kn_move a[KN_MAX_MOVES], w[KN_MAX_MOVES];
    int n = kn_gen(b, &p, a), nw = kn_gen(&wide, &p, w);
    assert_int_equal(n, nw);
    kn_sort_moves(a, n);
    kn_sort_moves(w, nw);
    assert_memory_equal(a, w, (size_t)n * sizeof *a);
    assert_int_equal(kn_count(b, &p), n);
    assert_true(kn_pos_valid(b, &p));
    if (!n) break;
    kn_move m = a[tu_rand(&seed) % (uint64_t)n];
    before[ply] = p;
    hist[ply++] = m;
    kn_make(b, &p, m);
  }
  while (ply > 0) {
    ply--;
    kn_unmake(b, &p, hist[ply]);
    assert_true(kn_pos_equal(&p, &before[ply]));
  }
}

/* Random games from the full board of each shape, 'games' per shape. */
static void check_shapes(const int (*shapes)[2], size_t n, int games,
                         uint64_t seed) {
  for (size_t i = 0; i < n; i++) {
    kn_board b;
    kn_pos p;
    kn_board_init(&b, shapes[i][0], shapes[i][1]);
    kn_board_default_first(&b);
    kn_pos_start(&b, &p);
    for (int g = 0; g < games; g++) random_game_checks(&b, p, tu_rand(&seed));
  }
}

static void narrow_and_wide_generators_agree_and_unmake_restores(void **s) {
  (void)s;
  static const int shapes[][2] = {{1, 1}, {1, 8}, {2, 6}, {5, 7}, {6, 6},
                                  {8, 8}, {4, 16}, {3, 20}, {7, 9}};
  check_shapes(shapes, sizeof shapes / sizeof shapes[0], 20, 12345);
}

static void wide_boards_play_to_the_end_and_unmake_restores(void **s) {
  (void)s;
  static const int shapes[][2] = {{10, 10}, {13, 20}, {20, 20}, {9, 9}};
  check_shapes(shapes, sizeof shapes / sizeof shapes[0], 5, 99);
}

static void position_text_round_trips(void **s) {
  (void)s;
  static const char *texts[] = {
      "xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox b",
      "xoxo/oxox/xoxo/oxox b",
      "o w",
      "1 b",
      "x1x1/4/4/4 w",
      "20/20/20/20/20/20/20/20/20/20/20/20/20/20/20/20/20/20/20/oxoxoxoxoxoxoxoxoxox b",
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    kn_board b;
    kn_pos p;
    char err[256], out[KN_POS_TEXT];
    assert_int_equal(kn_pos_parse(texts[i], &b, &p, err, sizeof err), 0);
    kn_pos_text(&b, &p, out, sizeof out);
    assert_string_equal(out, texts[i]);
  }
}

static void dots_read_as_empty_squares(void **s) {
  (void)s;
  kn_board b;
  kn_pos p;
  char err[256], out[KN_POS_TEXT];
  assert_int_equal(kn_pos_parse("x..o/oxox/xoxo/oxox w", &b, &p, err, sizeof err), 0);
  kn_pos_text(&b, &p, out, sizeof out);
  assert_string_equal(out, "x2o/oxox/xoxo/oxox w");
  assert_int_equal(p.stm, KN_WHITE);
  assert_int_equal(kn_pos_phase(&b, &p), KN_JUMP);
}

static void malformed_position_texts_are_rejected_with_a_reason(void **s) {
  (void)s;
  static const struct {
    const char *text, *reason;
  } bad[] = {
      {"", "empty rank"},
      {"xoxo/oxo/xoxo/oxox b", "rank 2 from the top has 3 squares"},
      {"xoxo/oxox b", NULL},
      {"oxox/xoxo b", "White piece on a light square"},
      {"xoxo/oxox/xoxo/oxox", "missing side to move"},
      {"xoxo/oxox/xoxo/oxox q", "side to move must be"},
      {"xoxo/oxox/xoxo/oxox b extra", "unexpected text after"},
      {"xoxo/oxoz/xoxo/oxox b", "unexpected character 'z'"},
      {"xoxo//xoxo/oxox b", "empty rank 2"},
      {"21 b", "longer than 20"},
      {"0xox b", "cannot start with 0"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    kn_board b;
    kn_pos p;
    char err[256] = "";
    int rc = kn_pos_parse(bad[i].text, &b, &p, err, sizeof err);
    if (!bad[i].reason) { /* "xoxo/oxox b" is a legal 2x4 text */
      assert_int_equal(rc, 0);
      continue;
    }
    assert_int_equal(rc, -1);
    if (!strstr(err, bad[i].reason))
      fail_msg("'%s': got '%s', want '%s'", bad[i].text, err, bad[i].reason);
  }
}

static void moves_read_in_every_accepted_notation(void **s) {
  (void)s;
  kn_board b;
  kn_pos p;
  char err[256], txt[KN_MOVE_TEXT];
  kn_move m;
  /* 8x8 after d5 (Black) and e5 (White): f5 can jump? no: e5 is empty. */
  assert_int_equal(kn_pos_parse("xoxoxoxo/oxoxoxox/xoxoxoxo/oxo2xox/xoxoxoxo/"
                                "oxoxoxox/xoxoxoxo/oxoxoxox b",
                                &b, &p, err, sizeof err),
                   0);
  static const char *forms[] = {"d7-d5", "D7-D5", "d7d5", " d7-d5 "};
  for (size_t i = 0; i < 4; i++) {
    assert_int_equal(kn_move_parse(&b, &p, forms[i], &m, err, sizeof err), 0);
    kn_move_text(&b, m, txt, sizeof txt);
    assert_string_equal(txt, "d7-d5");
  }
  /* a double jump and its full path */
  assert_int_equal(kn_pos_parse("x5/6/x1x1x1/6/6/6 b", &b, &p, err, sizeof err), 0);
  assert_int_equal(kn_pos_parse("x1o1o1/6/6/6/6/6 b", &b, &p, err, sizeof err), -1);
  /*  rank 1: . x o . o .   Black b1 jumps c1, then e1 */
  assert_int_equal(kn_pos_parse("6/6/6/6/6/1xo1o1 b", &b, &p, err, sizeof err), 0);
  assert_int_equal(kn_move_parse(&b, &p, "b1-f1", &m, err, sizeof err), 0);
  assert_int_equal(kn_move_parse(&b, &p, "B1-D1-F1", &m, err, sizeof err), 0);
  kn_move_text(&b, m, txt, sizeof txt);
  assert_string_equal(txt, "b1-f1");
  assert_true(kn_is_legal(&b, &p, m));
  assert_int_equal(kn_move_parse(&b, &p, "b1-d1", &m, err, sizeof err), 0);
  assert_true(kn_is_legal(&b, &p, m));
  assert_int_equal(kn_count(&b, &p), 2);
}

static void illegal_moves_say_why(void **s) {
  (void)s;
  kn_board b;
  kn_pos p;
  char err[256];
  kn_move m;
  static const struct {
    const char *move, *reason;
  } bad[] = {
      {"e5-e9", "no such square e9"},
      {"c5-e5", "not your piece"},
      {"f5-d5", "nothing to jump on e5"},
      {"d7-d4", "even number of squares"},
      {"d7-c6", "not a straight jump"},
      {"d5", "jump phase"},
      {"d7-d5-d3", "landing square d3 is not empty"},
      {"b7-d5", "not a straight jump"},
      {"zz", "expected a square"},
      {"d7-", "expected a square"},
      {"d7+d5", "unexpected character '+'"},
      {"", "empty move"},
      {"d7-d5 x", "unexpected text after the move"},
  };
  assert_int_equal(kn_pos_parse("xoxoxoxo/oxoxoxox/xoxoxoxo/oxo2xox/xoxoxoxo/"
                                "oxoxoxox/xoxoxoxo/oxoxoxox b",
                                &b, &p, err, sizeof err),
                   0);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    assert_int_equal(kn_move_parse(&b, &p, bad[i].move, &m, err, sizeof err), -1);
    if (!strstr(err, bad[i].reason))
      fail_msg("'%s': got '%s', want '%s'", bad[i].move, err, bad[i].reason);
  }
}

static void symmetric_positions_have_equal_perft(void **s) {
  (void)s;
  uint64_t seed = 777;
  static const int sizes[] = {6, 7, 8};
  for (size_t k = 0; k < 3; k++) {
    kn_board b;
    kn_pos p;
    int ids[KN_SYMS];
    kn_board_init(&b, sizes[k], sizes[k]);
    kn_board_default_first(&b);
    int nsym = kn_sym_list(&b, ids);
    assert_int_equal(nsym, sizes[k] % 2 ? 8 : 4);
    for (int g = 0; g < 10; g++) {
      kn_pos_start(&b, &p);
      int plies = 2 + (int)(tu_rand(&seed) % 8);
      for (int i = 0; i < plies; i++) {
        kn_move list[KN_MAX_MOVES];
        int n = kn_gen(&b, &p, list);
        if (!n) break;
        kn_make(&b, &p, list[tu_rand(&seed) % (uint64_t)n]);
      }
      uint64_t want = kn_perft(&b, &p, 4, NULL);
      for (int j = 0; j < nsym; j++) {
        kn_pos q;
        kn_sym_pos(&b, ids[j], &p, &q);
        assert_true(kn_perft(&b, &q, 4, NULL) == want);
      }
    }
  }
}

static void perft_stops_when_asked(void **s) {
  (void)s;
  kn_board b;
  kn_pos p;
  int polls = 3;
  kn_stop st = {tu_stop_after, &polls};
  brainking(&b, 8);
  kn_pos_start(&b, &p);
  kn_pos before = p;
  assert_true(kn_perft(&b, &p, 12, &st) == UINT64_MAX);
  assert_true(kn_pos_equal(&p, &before));
}

static void removal_phases_follow_the_variant_masks(void **s) {
  (void)s;
  kn_board b;
  kn_pos p;
  kn_move list[KN_MAX_MOVES];
  char txt[KN_MOVE_TEXT];
  brainking(&b, 8);
  kn_pos_start(&b, &p);
  assert_int_equal(kn_pos_phase(&b, &p), KN_REMOVE1);
  int n = kn_gen(&b, &p, list);
  kn_sort_moves(list, n);
  assert_int_equal(n, 4);
  kn_move_text(&b, list[0], txt, sizeof txt);
  assert_string_equal(txt, "h1");
  kn_make(&b, &p, KN_MOVE(kn_square(&b, 0, 7), kn_square(&b, 0, 7))); /* a8 */
  assert_int_equal(kn_pos_phase(&b, &p), KN_REMOVE2);
  n = kn_gen(&b, &p, list);
  assert_int_equal(n, 2); /* b8, a7 */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(perft_8x8_brainking_matches_rules_md),
      cmocka_unit_test(perft_6x6_brainking_matches_rules_md),
      cmocka_unit_test(narrow_and_wide_generators_agree_and_unmake_restores),
      cmocka_unit_test(wide_boards_play_to_the_end_and_unmake_restores),
      cmocka_unit_test(position_text_round_trips),
      cmocka_unit_test(dots_read_as_empty_squares),
      cmocka_unit_test(malformed_position_texts_are_rejected_with_a_reason),
      cmocka_unit_test(moves_read_in_every_accepted_notation),
      cmocka_unit_test(illegal_moves_say_why),
      cmocka_unit_test(symmetric_positions_have_equal_perft),
      cmocka_unit_test(perft_stops_when_asked),
      cmocka_unit_test(removal_phases_follow_the_variant_masks),
  };
  return cmocka_run_group_tests_name("rules", tests, NULL, NULL);
}
