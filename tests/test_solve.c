/*
** test_solve.c: the exact solver against a plain brute-force negamax on
** positions reached by seeded random play (boards up to 5x5, late 8x8
** games, a wide board), its moves replayed against every reply, the
** colour-swapped images of jump positions, the 6x6 result, limits and the
** stop callback. Links the core only.
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
#include "search.h"
#include "both8.h"
#include "solve.h"
#include "test_util.h"

/* The reference: does the side to move of 'p' win? No tricks at all. */
static int brute(const kn_board *b, kn_pos *p) {
  kn_move mv[KN_MAX_MOVES];
  int n = kn_gen(b, p, mv), i;
  for (i = 0; i < n; i++) {
    int w;
    kn_make(b, p, mv[i]);
    w = brute(b, p);
    kn_unmake(b, p, mv[i]);
    if (!w) return 1;
  }
  return 0;
}

/* The size of the game tree below 'p', capped at 'cap' (cheap bail-out). */
static uint64_t tree_size(const kn_board *b, kn_pos *p, uint64_t cap) {
  kn_move mv[KN_MAX_MOVES];
  int n = kn_gen(b, p, mv), i;
  uint64_t t = 1;
  for (i = 0; i < n && t < cap; i++) {
    kn_make(b, p, mv[i]);
    t += tree_size(b, p, cap - t);
    kn_unmake(b, p, mv[i]);
  }
  return t;
}

/* A late position of a random game on 'b': the earliest one along the
** game whose whole tree is under 'cap' nodes (walking back from the end,
** where trees only grow). */
static void late_position(const kn_board *b, kn_pos *p, uint64_t cap,
                          uint64_t *seed) {
  kn_move mv[KN_MAX_MOVES], line[KN_MAX_SQ + 4];
  int n, len = 0;
  kn_pos_start(b, p);
  while ((n = kn_gen(b, p, mv)) > 0) {
    line[len] = mv[tu_rand(seed) % (uint64_t)n];
    kn_make(b, p, line[len++]);
  }
  while (len > 0) {
    kn_pos q = *p;
    kn_unmake(b, &q, line[len - 1]);
    if (tree_size(b, &q, cap) >= cap) return;
    *p = q;
    len--;
  }
}

/*
** Checks one position: solver == brute force; a winning move is legal
** and every reply to it leaves a position the solver's side still wins;
** a full-depth search agrees. Returns 1 when the side to move wins.
*/
static int check_position(const kn_board *b, const kn_pos *p0) {
  kn_tt *tt = kn_tt_new(1);
  kn_limits lim;
  kn_solve_result r;
  kn_pos p = *p0;
  int truth = brute(b, &p), w;
  char text[KN_POS_TEXT];

  memset(&lim, 0, sizeof lim);
  assert_non_null(tt);
  kn_pos_text(b, p0, text, sizeof text);
  assert_int_equal(kn_solve(b, p0, tt, &lim, &r), 0);
  if (r.win != truth) fail_msg("solver says %d, brute force %d: %s", r.win,
                               truth, text);
  assert_int_equal(r.stopped, KN_DONE);
  /* Threads share one table and give the same result and move. */
  for (int t = 2; t <= 3; t++) {
    kn_tt *tt2 = kn_tt_new(1);
    kn_solve_result r2;
    assert_non_null(tt2);
    assert_int_equal(kn_solve_threads(b, p0, tt2, &lim, t, &r2), 0);
    if (r2.win != r.win || r2.move != r.move)
      fail_msg("%d threads: win %d move %u, one thread: win %d move %u: %s",
               t, r2.win, (unsigned)r2.move, r.win, (unsigned)r.move, text);
    kn_tt_free(tt2);
  }
  /* Tables of 16 KB (256 buckets: the fewest where entries are exact,
  ** replaced all the time) and of one bucket (too small: not used). */
  for (int t = 0; t < 2; t++) {
    kn_tt *tt2 = kn_tt_new(t ? 0 : 16.0 / 1024);
    kn_solve_result r2;
    assert_non_null(tt2);
    assert_int_equal(kn_solve_threads(b, p0, tt2, &lim, 1 + t, &r2), 0);
    if (r2.win != r.win)
      fail_msg("table %d: win %d, truth %d: %s", t, r2.win, truth, text);
    kn_tt_free(tt2);
  }
  /* A table of 4 MB: positions of few pieces keep to its first 2 MB
  ** (solve.c, SMALL_MAX_PIECES), the others use all of it; 1 MB tables
  ** are one region. One and two threads. */
  for (int t = 1; t <= 2; t++) {
    kn_tt *tt2 = kn_tt_new(4);
    kn_solve_result r2;
    assert_non_null(tt2);
    assert_int_equal(kn_solve_threads(b, p0, tt2, &lim, t, &r2), 0);
    if (r2.win != truth)
      fail_msg("4 MB table, %d threads: win %d, truth %d: %s", t, r2.win,
               truth, text);
    kn_tt_free(tt2);
  }
  if (truth) {
    kn_move mv[KN_MAX_MOVES];
    int n, i;
    assert_true(kn_is_legal(b, &p, r.move));
    kn_make(b, &p, r.move);
    n = kn_gen(b, &p, mv);
    for (i = 0; i < n; i++) {
      kn_make(b, &p, mv[i]);
      w = brute(b, &p);
      kn_unmake(b, &p, mv[i]);
      if (!w) fail_msg("winning move fails against a reply in %s", text);
    }
    kn_unmake(b, &p, r.move);
  } else if (kn_count(b, &p) > 0) {
    assert_true(kn_is_legal(b, &p, r.move));
  } else {
    assert_true(r.move == KN_NOMOVE);
  }
  /* A search to the end of the game proves the same result, in the
  ** table the solver used (the search claims it back: the solver's
  ** entries are another format); then the solver again in the search's. */
  {
    kn_search_opts o;
    kn_search_result sr;
    kn_search_opts_default(&o);
    o.lim.depth = kn_bits_count(&p0->occ) + 2;
    assert_int_equal(kn_search(b, p0, tt, &o, &sr), 0);
    if (!kn_score_proven(sr.score) || (sr.score > 0) != truth)
      fail_msg("full-depth search score %d, truth %d: %s", sr.score, truth,
               text);
    assert_int_equal(kn_solve(b, p0, tt, &lim, &r), 0);
    if (r.win != truth)
      fail_msg("solver after the search: %d, truth %d: %s", r.win, truth,
               text);
  }
  kn_tt_free(tt);
  return truth;
}

static void board_free_first(kn_board *b, int rows, int cols) {
  assert_int_equal(kn_board_init(b, rows, cols), 0);
  kn_board_default_first(b);
}

/* >= 200 positions from random play on boards up to 5x5. */
static void solver_matches_brute_force_on_small_boards(void **state) {
  static const int shapes[][2] = {{1, 4}, {1, 7}, {2, 3}, {2, 5}, {3, 3},
                                  {3, 4}, {4, 3}, {3, 5}, {4, 4}, {4, 5},
                                  {5, 4}, {5, 5}, {2, 8}, {3, 6}};
  uint64_t seed = 12345;
  int count = 0, wins = 0, s, k;
  (void)state;
  for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++) {
    kn_board b;
    board_free_first(&b, shapes[s][0], shapes[s][1]);
    for (k = 0; k < 16; k++) {
      kn_pos p;
      tu_random_play(&b, &p, (int)(tu_rand(&seed) % 8), &seed);
      wins += check_position(&b, &p);
      count++;
    }
  }
  assert_true(count >= 200);
  /* both outcomes must be well represented for the test to mean much */
  assert_true(wins > count / 5 && wins < count * 4 / 5);
}

/* Positions of 24 to 26 pieces on long thin boards, where the move order
** looks three plies ahead (solve.c, THREE_PLY_MIN_PIECES) and brute force
** is still quick: the order never changes a result. */
static void solver_matches_brute_force_at_24_pieces_and_more(void **state) {
  static const int shapes[][2] = {{2, 13}, {3, 9}, {4, 7}, {7, 4}};
  uint64_t seed = 2468;
  int s, k, count = 0, wins = 0;
  (void)state;
  for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++) {
    kn_board b;
    board_free_first(&b, shapes[s][0], shapes[s][1]);
    for (k = 0; k < 6; k++) {
      kn_pos p;
      tu_random_play(&b, &p, 2 + (int)(tu_rand(&seed) % 3), &seed);
      if (kn_bits_count(&p.occ) < 24) continue;
      wins += check_position(&b, &p);
      count++;
    }
  }
  assert_true(count >= 12);
  assert_true(wins > 0 && wins < count);
}

/* Late positions of random 8x8 games (and a wide 9x9 board). */
static void solver_matches_brute_force_on_late_games(void **state) {
  uint64_t seed = 777;
  int k, wins = 0;
  kn_board b, w;
  (void)state;
  board_free_first(&b, 8, 8);
  for (k = 0; k < 40; k++) {
    kn_pos p;
    late_position(&b, &p, 200000, &seed);
    wins += check_position(&b, &p);
  }
  board_free_first(&w, 9, 9);
  for (k = 0; k < 10; k++) {
    kn_pos p;
    late_position(&w, &p, 50000, &seed);
    wins += check_position(&w, &p);
  }
  assert_true(wins > 5 && wins < 45);
}

/*
** Late positions of random games on square boards, where the solver's key
** is the least of four (6x6: the half turn, both diagonals) or eight (7x7,
** every symmetry keeps the colours) images, each child's images made from
** its parent's and the move's squares (solve.c, images_after): a wrong
** image merges positions that differ and gives wrong results.
*/
static void solver_matches_brute_force_on_square_boards(void **state) {
  static const int sides[] = {6, 7};
  uint64_t seed = 4242;
  int s, k, count = 0, wins = 0;
  (void)state;
  for (s = 0; s < 2; s++) {
    kn_board b;
    board_free_first(&b, sides[s], sides[s]);
    for (k = 0; k < 24; k++) {
      kn_pos p;
      late_position(&b, &p, 100000, &seed);
      if (kn_bits_count(&p.occ) < 8) continue;
      wins += check_position(&b, &p);
      count++;
    }
  }
  assert_true(count >= 30);
  assert_true(wins > count / 10 && wins < count * 9 / 10);
}

/*
** The solver's per-child counts in vector lanes (both8.h: eight children
** at a time with AVX-512, four with AVX2) against the scalar loop over
** kn_both64x, and that loop against kn_count64 for each side: positions
** of random games on boards from 1x20 to 8x8 (chains of up to nine
** jumps, move lists shorter and longer than the lanes), every child's
** counts, the order keys (and nothing written past the last lane) and
** the look's leaves with and without a cutoff bound.
*/
static void vector_counts_match_the_scalar_ones(void **state) {
  static const int shapes[][2] = {{1, 20}, {3, 20}, {2, 16}, {4, 16}, {5, 12},
                                  {6, 6},  {6, 7},  {7, 7},  {7, 9}, {8, 8}};
  uint64_t seed = 777;
  int s, k, i, positions = 0, wins = 0, longer = 0, shorter = 0;
  (void)state;
  for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++) {
    kn_board b;
    board_free_first(&b, shapes[s][0], shapes[s][1]);
    for (k = 0; k < 60; k++) {
      uint64_t mk[KN_MAX_MOVES], occ;
      kn_counts r1[KN_MAX_MOVES], r2[KN_MAX_MOVES];
      int k1[KN_MAX_MOVES + 2 * KN_BOTH_LANES], k2[KN_MAX_MOVES];
      int n, w1, w2, stm, beta, lim1, lim2;
      kn_pos p;
      tu_random_play(&b, &p, 2 + tu_pick(&seed, b.nsq / 2), &seed);
      if (kn_pos_phase(&b, &p) != KN_JUMP) continue;
      occ = p.occ.w[0];
      stm = p.stm;
      n = kn_gen64(&b, occ, stm, mk, NULL);
      if (n == 0) continue;
      positions++;
      longer += n > KN_BOTH_LANES, shorter += n < KN_BOTH_LANES;
      kn_both_many(&b, occ, mk, n, stm, r1, 1);
      kn_both_many_scalar(&b, occ, mk, n, stm, r2, 1);
      for (i = 0; i < n; i++) {
        kn_pos q = p;
        q.occ.w[0] ^= mk[i];
        assert_int_equal(r1[i].own, r2[i].own);
        assert_int_equal(r1[i].opp, r2[i].opp);
        assert_int_equal(r1[i].mmov, r2[i].mmov);
        assert_int_equal(r1[i].omov, r2[i].omov);
        assert_int_equal(r2[i].own, kn_count64(&b, q.occ.w[0], stm));
        assert_int_equal(r2[i].opp, kn_count64(&b, q.occ.w[0], stm ^ 1));
      }
      for (i = 0; i < KN_MAX_MOVES + 2 * KN_BOTH_LANES; i++) k1[i] = -7;
      w1 = kn_order_keys(&b, occ, mk, n, stm, k1);
      w2 = kn_order_keys_scalar(&b, occ, mk, n, stm, k2);
      assert_int_equal(w1, w2);
      wins += w1;
      for (i = 0; !w1 && i < n; i++) assert_int_equal(k1[i], k2[i]);
      for (i = n + KN_BOTH_LANES - 1; i < KN_MAX_MOVES + 2 * KN_BOTH_LANES; i++)
        assert_int_equal(k1[i], -7);
      assert_int_equal(kn_look_leaves(&b, occ, mk, n, stm, 2000),
                       kn_look_leaves_scalar(&b, occ, mk, n, stm, 2000));
      /* with a bound: the exact value below it, else both at least it */
      beta = (int)(tu_rand(&seed) % 21) - 10;
      lim1 = kn_look_leaves(&b, occ, mk, n, stm, beta);
      lim2 = kn_look_leaves_scalar(&b, occ, mk, n, stm, beta);
      if (lim1 < beta || lim2 < beta) assert_int_equal(lim1, lim2);
    }
  }
  assert_true(positions >= 400);
  assert_true(wins > 0 && wins < positions / 2);
  if (KN_BOTH_LANES > 1) assert_true(longer > 50 && shorter > 50);
}

/*
** A symmetry that swaps the square colours (a mirror across a side of even
** length, a quarter turn of an even square) maps a jump position onto the
** same game with the other side to move: the solver gives the image the
** result brute force gives the position. (The solver's key uses the
** colour-keeping symmetries only: the swapped images hardly transpose in
** real trees, docs/search.md, tenth session.)
*/
static void colour_swapped_images_agree(void **state) {
  static const int shapes[][2] = {{4, 4}, {4, 5}, {5, 4},
                                  {3, 6}, {2, 7}, {4, 6}};
  uint64_t seed = 97531;
  int s, k, count = 0, wins = 0;
  (void)state;
  for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++) {
    kn_board b;
    int sym, nsym = 0;
    board_free_first(&b, shapes[s][0], shapes[s][1]);
    for (sym = 1; sym < KN_SYMS; sym++) {
      if ((sym & 4) && b.rows != b.cols) continue;
      if (kn_sym_board_ok(&b, sym)) continue;
      nsym++;
      for (k = 0; k < 4; k++) {
        kn_pos p, q;
        kn_limits lim;
        kn_solve_result r;
        kn_tt *tt;
        int sq, truth;
        tu_random_play(&b, &p, 2 + (int)(tu_rand(&seed) % 6), &seed);
        if (kn_pos_phase(&b, &p) != KN_JUMP) continue;
        tt = kn_tt_new(1);
        assert_non_null(tt);
        kn_bits_clear(&q.occ);
        for (sq = 0; sq < b.nsq; sq++)
          if (kn_bit(&p.occ, sq)) kn_setbit(&q.occ, kn_sym_square(&b, sym, sq));
        q.stm = p.stm ^ 1;
        truth = brute(&b, &p);
        memset(&lim, 0, sizeof lim);
        assert_int_equal(kn_solve(&b, &q, tt, &lim, &r), 0);
        if (r.win != truth) {
          char text[KN_POS_TEXT], itext[KN_POS_TEXT];
          kn_pos_text(&b, &p, text, sizeof text);
          kn_pos_text(&b, &q, itext, sizeof itext);
          fail_msg("%s wins %d (brute force), its colour-swapped image %s: %d",
                   text, truth, itext, r.win);
        }
        kn_tt_free(tt);
        wins += truth;
        count++;
      }
    }
    assert_true(nsym > 0);
  }
  assert_true(count >= 50);
  assert_true(wins > count / 5 && wins < count * 4 / 5);
}

/* Every board up to 5x6 from the start (first removal anywhere; the
** first player loses on all of them): one, two and three threads agree
** on the result and the move. */
static void threads_agree_from_the_start(void **state) {
  int rows, cols;
  (void)state;
  for (rows = 1; rows <= 5; rows++)
    for (cols = 1; cols <= 6; cols++) {
      kn_board b;
      kn_pos p;
      kn_limits lim;
      kn_solve_result r1, rt;
      kn_tt *tt = kn_tt_new(4);
      assert_non_null(tt);
      board_free_first(&b, rows, cols);
      kn_pos_start(&b, &p);
      memset(&lim, 0, sizeof lim);
      assert_int_equal(kn_solve(&b, &p, tt, &lim, &r1), 0);
      assert_true(r1.win == 0 || r1.win == 1);
      for (int t = 2; t <= 3; t++) {
        kn_tt_clear(tt);
        assert_int_equal(kn_solve_threads(&b, &p, tt, &lim, t, &rt), 0);
        if (rt.win != r1.win || rt.move != r1.move)
          fail_msg("%dx%d, %d threads: win %d move %u, one: win %d move %u",
                   rows, cols, t, rt.win, (unsigned)rt.move, r1.win,
                   (unsigned)r1.move);
      }
      kn_tt_free(tt);
    }
}

/* Threads stopped by the node limit in the middle of split points leave
** only proved results in the table: solving on with that table (one
** thread, or two) gives the fresh result on 5x6 free. */
static void threads_stopped_leave_the_table_exact(void **state) {
  kn_board b;
  kn_pos p;
  kn_limits lim;
  kn_solve_result want, r;
  kn_tt *tt = kn_tt_new(4);
  static const uint64_t limits[] = {5000, 20000, 60000, 150000};
  (void)state;
  assert_non_null(tt);
  board_free_first(&b, 5, 6);
  kn_pos_start(&b, &p);
  memset(&lim, 0, sizeof lim);
  assert_int_equal(kn_solve(&b, &p, tt, &lim, &want), 0);
  for (int t = 2; t <= 3; t++)
    for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
      kn_tt_clear(tt);
      lim.nodes = limits[i];
      assert_int_equal(kn_solve_threads(&b, &p, tt, &lim, t, &r), 0);
      assert_int_equal(r.stopped, KN_STOP_LIMIT);
      assert_int_equal(r.win, -1);
      lim.nodes = 0;
      assert_int_equal(kn_solve_threads(&b, &p, tt, &lim, 1 + (int)(i & 1), &r), 0);
      if (r.win != want.win || r.move != want.move)
        fail_msg("%d threads stopped at %llu nodes, then: win %d move %u, fresh: "
                 "win %d move %u", t, (unsigned long long)limits[i], r.win,
                 (unsigned)r.move, want.win, (unsigned)want.move);
    }
  kn_tt_free(tt);
}

/*
** With several threads the root's children after the first are shared out
** whole (one thread each). Stopped there, by the node limit at a fraction
** of the full solve's nodes or by the stop callback, a solve says so
** (no result) and leaves only proved results in the table: solving on
** with it gives the fresh result and move. 5x6 free from the start (a
** lost root in the removal phase) and after random plies (jump phase,
** won and lost roots).
*/
static void threads_stopped_in_the_root_work(void **state) {
  kn_board b5, b6;
  uint64_t seed = 4242;
  int k, checked = 0;
  (void)state;
  board_free_first(&b5, 5, 6);
  board_free_first(&b6, 6, 6);
  for (k = 0; k < 5; k++) {
    const kn_board *b = k == 0 ? &b5 : &b6;
    kn_pos p;
    kn_limits lim;
    kn_solve_result want, r;
    kn_tt *tt = kn_tt_new(1);
    assert_non_null(tt);
    if (k == 0) kn_pos_start(b, &p);
    else tu_random_play(b, &p, 3 + k, &seed);
    memset(&lim, 0, sizeof lim);
    assert_int_equal(kn_solve(b, &p, tt, &lim, &want), 0);
    if (want.nodes < 20000) {
      kn_tt_free(tt);
      continue;
    }
    checked++;
    for (int t = 2; t <= 3; t++)
      for (int f = 1; f <= 4; f += 1 + (f == 1)) {
        int calls = f;
        memset(&lim, 0, sizeof lim);
        if (f == 4) {
          lim.stop.fn = tu_stop_after;
          lim.stop.ud = &calls;
        } else {
          lim.nodes = want.nodes * (uint64_t)(2 * f + 1) / 8;
        }
        kn_tt_clear(tt);
        assert_int_equal(kn_solve_threads(b, &p, tt, &lim, t, &r), 0);
        if (r.stopped == KN_DONE) {
          /* the threads may prove it in fewer nodes than one */
          if (r.win != want.win || r.move != want.move)
            fail_msg("%d threads: win %d move %u, one thread: win %d move %u",
                     t, r.win, (unsigned)r.move, want.win, (unsigned)want.move);
        } else {
          assert_int_equal(r.stopped, f == 4 ? KN_STOP_USER : KN_STOP_LIMIT);
          assert_int_equal(r.win, -1);
        }
        memset(&lim, 0, sizeof lim);
        assert_int_equal(kn_solve_threads(b, &p, tt, &lim, t, &r), 0);
        if (r.win != want.win || r.move != want.move)
          fail_msg("position %d, %d threads stopped (%d), then: win %d move %u, "
                   "fresh: win %d move %u", k, t, f, r.win, (unsigned)r.move,
                   want.win, (unsigned)want.move);
      }
    kn_tt_free(tt);
  }
  assert_true(checked >= 3);
}

static void brainking_6x6_is_a_loss_for_black(void **state) {
  kn_board b;
  kn_pos p;
  kn_tt *tt = kn_tt_new(16);
  kn_limits lim;
  kn_solve_result r;
  (void)state;
  assert_int_equal(kn_board_init(&b, 6, 6), 0);
  kn_bits_clear(&b.first);
  kn_setbit(&b.first, kn_square(&b, 0, 5)); /* a6 */
  kn_setbit(&b.first, kn_square(&b, 5, 0)); /* f1 */
  kn_setbit(&b.first, kn_square(&b, 2, 3)); /* c4 */
  kn_setbit(&b.first, kn_square(&b, 3, 2)); /* d3 */
  kn_pos_start(&b, &p);
  memset(&lim, 0, sizeof lim);
  assert_int_equal(kn_solve(&b, &p, tt, &lim, &r), 0);
  assert_int_equal(r.win, 0);
  assert_true(kn_is_legal(&b, &p, r.move));
  kn_tt_free(tt);
}

/*
**   4x4 with a hole pair removed: a known second-player win.
*/
static void known_small_results(void **state) {
  kn_board b;
  kn_pos p;
  char err[128];
  kn_tt *tt = kn_tt_new(1);
  kn_limits lim;
  kn_solve_result r;
  (void)state;
  memset(&lim, 0, sizeof lim);
  assert_int_equal(kn_pos_parse("xoxo/oxox/x.xo/o.ox b", &b, &p, err,
                                sizeof err), 0);
  assert_int_equal(kn_solve(&b, &p, tt, &lim, &r), 0);
  assert_int_equal(r.win, brute(&b, &p));
  /* no move at all: lost, no move */
  assert_int_equal(kn_pos_parse("o... b", &b, &p, err, sizeof err), 0);
  assert_int_equal(kn_solve(&b, &p, tt, &lim, &r), 0);
  assert_int_equal(r.win, 0);
  assert_true(r.move == KN_NOMOVE);
  /* one jump that ends the game */
  assert_int_equal(kn_pos_parse("ox.. w", &b, &p, err, sizeof err), 0);
  assert_int_equal(kn_solve(&b, &p, tt, &lim, &r), 0);
  assert_int_equal(r.win, 1);
  assert_true(r.move == KN_MOVE(0, 2));
  kn_tt_free(tt);
}

static void limits_and_stop_are_honoured(void **state) {
  kn_board b;
  kn_pos p;
  kn_tt *tt = kn_tt_new(1);
  kn_limits lim;
  kn_solve_result r;
  int calls = 3;
  (void)state;
  board_free_first(&b, 8, 8);
  kn_pos_start(&b, &p);
  memset(&lim, 0, sizeof lim);
  lim.nodes = 10000;
  assert_int_equal(kn_solve(&b, &p, tt, &lim, &r), 0);
  assert_int_equal(r.win, -1);
  assert_int_equal(r.stopped, KN_STOP_LIMIT);
  assert_true(r.nodes <= 10000);
  assert_true(kn_is_legal(&b, &p, r.move));
  /* with threads the node limit still stops the solve (the count may
  ** pass it by a poll interval per thread) */
  assert_int_equal(kn_solve_threads(&b, &p, tt, &lim, 2, &r), 0);
  assert_int_equal(r.win, -1);
  assert_int_equal(r.stopped, KN_STOP_LIMIT);
  assert_true(r.nodes <= 10000 + 2 * 4096);
  memset(&lim, 0, sizeof lim);
  lim.time = 0.05;
  assert_int_equal(kn_solve(&b, &p, tt, &lim, &r), 0);
  assert_int_equal(r.win, -1);
  assert_int_equal(r.stopped, KN_STOP_LIMIT);
  memset(&lim, 0, sizeof lim);
  lim.stop.fn = tu_stop_after;
  lim.stop.ud = &calls;
  assert_int_equal(kn_solve(&b, &p, tt, &lim, &r), 0);
  assert_int_equal(r.stopped, KN_STOP_USER);
  assert_int_equal(r.win, -1);
  kn_tt_free(tt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(known_small_results),
      cmocka_unit_test(solver_matches_brute_force_on_small_boards),
      cmocka_unit_test(solver_matches_brute_force_on_late_games),
      cmocka_unit_test(solver_matches_brute_force_at_24_pieces_and_more),
      cmocka_unit_test(solver_matches_brute_force_on_square_boards),
      cmocka_unit_test(colour_swapped_images_agree),
      cmocka_unit_test(vector_counts_match_the_scalar_ones),
      cmocka_unit_test(threads_agree_from_the_start),
      cmocka_unit_test(threads_stopped_leave_the_table_exact),
      cmocka_unit_test(threads_stopped_in_the_root_work),
      cmocka_unit_test(brainking_6x6_is_a_loss_for_black),
      cmocka_unit_test(limits_and_stop_are_honoured),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
