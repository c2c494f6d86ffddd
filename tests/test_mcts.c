/*
** test_mcts.c: UCT finds the only winning move, is deterministic for a
** seed and a playout count, honours its limits and the stop callback,
** and handles positions without moves and wide boards. Core only.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "konane.h"
#include "mcts.h"
#include "solve.h"
#include "test_util.h"

/* 1 win, 0 loss, -1 too big to solve quickly. */
static int wins(const kn_board *b, const kn_pos *p, kn_tt *tt) {
  kn_limits lim;
  kn_solve_result r;
  memset(&lim, 0, sizeof lim);
  lim.nodes = 200000;
  assert_int_equal(kn_solve(b, p, tt, &lim, &r), 0);
  return r.win;
}

/* The only winning move of 'p' or KN_NOMOVE when there are 0 or >= 2. */
static kn_move only_win(const kn_board *b, const kn_pos *p, kn_tt *tt,
                        int *nmoves) {
  kn_move mv[KN_MAX_MOVES], w = KN_NOMOVE;
  int n = kn_gen(b, p, mv), i, c = 0;
  *nmoves = n;
  for (i = 0; i < n; i++) {
    kn_pos q = *p;
    kn_make(b, &q, mv[i]);
    switch (wins(b, &q, tt)) {
    case 0:
      w = mv[i];
      c++;
      break;
    case -1:
      return KN_NOMOVE;
    }
  }
  return c == 1 ? w : KN_NOMOVE;
}

static void finds_the_single_winning_move(void **state) {
  static const int shapes[][2] = {{5, 5}, {6, 6}, {8, 8}, {4, 6}};
  kn_tt *tt = kn_tt_new(4);
  uint64_t seed = 2024;
  int found = 0, tries = 0;
  (void)state;
  while (found < 12 && tries < 4000) {
    kn_board b;
    kn_pos p;
    kn_move mv[KN_MAX_MOVES], w;
    int plies, i, n, nm;
    const int *sh = shapes[tries++ % 4];
    assert_int_equal(kn_board_init(&b, sh[0], sh[1]), 0);
    kn_board_default_first(&b);
    kn_pos_start(&b, &p);
    plies = sh[0] * sh[1] / 2 + (int)(tu_rand(&seed) % 8);
    for (i = 0; i < plies && (n = kn_gen(&b, &p, mv)) > 0; i++)
      kn_make(&b, &p, mv[tu_rand(&seed) % (uint64_t)n]);
    w = only_win(&b, &p, tt, &nm);
    if (w == KN_NOMOVE || nm < 3) continue;
    {
      kn_mcts_opts o;
      kn_mcts_result r;
      kn_mcts_opts_default(&o);
      o.lim.nodes = 20000;
      o.seed = 1;
      assert_int_equal(kn_mcts(&b, &p, &o, &r), 0);
      if (r.move != w) {
        char text[KN_POS_TEXT];
        kn_pos_text(&b, &p, text, sizeof text);
        fail_msg("mcts missed the only win in %s", text);
      }
      found++;
    }
  }
  assert_true(found >= 12);
  kn_tt_free(tt);
}

static void a_seed_and_a_playout_count_give_one_answer(void **state) {
  kn_board b;
  kn_pos p;
  kn_mcts_opts o;
  kn_mcts_result r1, r2;
  (void)state;
  assert_int_equal(kn_board_init(&b, 8, 8), 0);
  kn_board_default_first(&b);
  kn_pos_start(&b, &p);
  kn_mcts_opts_default(&o);
  o.lim.nodes = 3000;
  o.seed = 42;
  assert_int_equal(kn_mcts(&b, &p, &o, &r1), 0);
  assert_int_equal(kn_mcts(&b, &p, &o, &r2), 0);
  assert_true(r1.move == r2.move);
  assert_int_equal(r1.visits, r2.visits);
  assert_true(r1.winrate == r2.winrate);
  assert_true(r1.plies == r2.plies);
  assert_true(r1.playouts == 3000);
  assert_true(kn_is_legal(&b, &p, r1.move));
}

static void limits_and_stop_are_honoured(void **state) {
  kn_board b;
  kn_pos p;
  kn_mcts_opts o;
  kn_mcts_result r;
  char err[128];
  int calls = 3;
  (void)state;
  assert_int_equal(kn_board_init(&b, 8, 8), 0);
  kn_board_default_first(&b);
  kn_pos_start(&b, &p);
  kn_mcts_opts_default(&o);
  o.lim.time = 0.05;
  assert_int_equal(kn_mcts(&b, &p, &o, &r), 0);
  assert_int_equal(r.stopped, KN_STOP_LIMIT); /* the limit ended it, not the tree */
  assert_true(kn_is_legal(&b, &p, r.move));
  kn_mcts_opts_default(&o);
  o.lim.stop.fn = tu_stop_after;
  o.lim.stop.ud = &calls;
  assert_int_equal(kn_mcts(&b, &p, &o, &r), 0);
  assert_int_equal(r.stopped, KN_STOP_USER);
  /* a tiny tree cap still works: expansion stops, playouts go on */
  kn_mcts_opts_default(&o);
  o.lim.nodes = 2000;
  o.max_nodes = 10;
  assert_int_equal(kn_mcts(&b, &p, &o, &r), 0);
  assert_true(kn_is_legal(&b, &p, r.move));
  /* no move: nothing to return, the loss is proved */
  assert_int_equal(kn_pos_parse("o... b", &b, &p, err, sizeof err), 0);
  kn_mcts_opts_default(&o);
  o.lim.nodes = 10;
  assert_int_equal(kn_mcts(&b, &p, &o, &r), 0);
  assert_true(r.move == KN_NOMOVE);
  assert_int_equal(r.proven, 0);
  /* an immediate win is proved */
  assert_int_equal(kn_pos_parse("ox.. w", &b, &p, err, sizeof err), 0);
  assert_int_equal(kn_mcts(&b, &p, &o, &r), 0);
  assert_true(r.move == KN_MOVE(0, 2));
  assert_int_equal(r.proven, 1);
}

static void wide_boards_play_out(void **state) {
  kn_board b;
  kn_pos p;
  kn_mcts_opts o;
  kn_mcts_result r;
  (void)state;
  assert_int_equal(kn_board_init(&b, 10, 12), 0);
  kn_board_default_first(&b);
  kn_pos_start(&b, &p);
  kn_mcts_opts_default(&o);
  o.lim.nodes = 300;
  assert_int_equal(kn_mcts(&b, &p, &o, &r), 0);
  assert_true(kn_is_legal(&b, &p, r.move));
  assert_true(r.plies > 300 * 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(finds_the_single_winning_move),
      cmocka_unit_test(a_seed_and_a_playout_count_give_one_answer),
      cmocka_unit_test(limits_and_stop_are_honoured),
      cmocka_unit_test(wide_boards_play_out),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
