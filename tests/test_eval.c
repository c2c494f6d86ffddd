/*
** test_eval.c: the evaluation's features against a slow reference built
** from the move list alone (kn_gen), over positions of seeded random
** games on several narrow boards; the short path of kn_eval agrees with
** the weighted sum of the features. Links the core only.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "eval.h"

/* What one colour's move list says: movers, pieces taken by some move,
** landing squares, and the single jumps as (from, over, to) triples. */
typedef struct side_info {
  int movers[KN_MAX_SQ], taken[KN_MAX_SQ], lands[KN_MAX_SQ];
  int nsingle, single[KN_MAX_MOVES][3];
  int nmoves;
} side_info;

static void side_of(const kn_board *b, const kn_pos *p, int colour,
                    side_info *s) {
  kn_move mv[KN_MAX_MOVES];
  kn_pos q = *p;
  int n, i;
  memset(s, 0, sizeof *s);
  q.stm = colour;
  n = kn_gen(b, &q, mv);
  s->nmoves = n;
  for (i = 0; i < n; i++) {
    int from = KN_FROM(mv[i]), to = KN_TO(mv[i]), st = kn_move_step(b, mv[i]);
    int sq;
    s->movers[from] = 1;
    s->lands[to] = 1;
    for (sq = from + st; sq != to + st; sq += 2 * st) s->taken[sq] = 1;
    if (to == from + 2 * st) {
      s->single[s->nsingle][0] = from;
      s->single[s->nsingle][1] = from + st;
      s->single[s->nsingle][2] = to;
      s->nsingle++;
    }
  }
}

/* The lines a piece of 'colour' could jump along: the square next to it
** (l[i][0]) and the landing two away (l[i][1]), both on the board, one per
** piece and direction. Returns how many. */
static int lines_of(const kn_board *b, const kn_pos *p, int colour,
                    int (*l)[2]) {
  int r, c, d, n = 0;
  static const int dr[4] = {1, 0, -1, 0}, dc[4] = {0, 1, 0, -1};
  for (r = 0; r < b->rows; r++)
    for (c = 0; c < b->cols; c++) {
      int sq = r * b->cols + c;
      if (!kn_bit(&p->occ, sq) || kn_bit(&b->side[colour], sq) == 0) continue;
      for (d = 0; d < 4; d++) {
        int r2 = r + 2 * dr[d], c2 = c + 2 * dc[d];
        if (r2 < 0 || r2 >= b->rows || c2 < 0 || c2 >= b->cols) continue;
        l[n][0] = (r + dr[d]) * b->cols + c + dc[d];
        l[n][1] = r2 * b->cols + c2;
        n++;
      }
    }
  return n;
}

/* Jumps of 'colour' blocked by an occupied landing square. */
static int blocked_of(const kn_board *b, const kn_pos *p, int colour) {
  int l[4 * KN_MAX_SQ][2], i, nl = lines_of(b, p, colour, l), n = 0;
  for (i = 0; i < nl; i++)
    if (kn_bit(&p->occ, l[i][0]) && kn_bit(&p->occ, l[i][1])) n++;
  return n;
}

/* Jumps of 'colour' one move of the opponent ('o', its move list) may
** open: blocked by a landing piece it takes, or over a square it lands on
** with an empty square beyond. */
static int reach_of(const kn_board *b, const kn_pos *p, int colour,
                    const side_info *o) {
  int l[4 * KN_MAX_SQ][2], i, nl = lines_of(b, p, colour, l), n = 0;
  for (i = 0; i < nl; i++) {
    int s1 = l[i][0], s2 = l[i][1];
    if (kn_bit(&p->occ, s1) && kn_bit(&p->occ, s2) && o->taken[s2]) n++;
    if (!kn_bit(&p->occ, s1) && o->lands[s1] && !kn_bit(&p->occ, s2)) n++;
  }
  return n;
}

/* Regions (pieces joined side by side) with movers of 'a' only, minus
** those with movers of 'o' only: a flood fill over rows and columns. */
static int regions_of(const kn_board *b, const kn_pos *p, const side_info *a,
                      const side_info *o) {
  int seen[KN_MAX_SQ] = {0}, stack[KN_MAX_SQ], sq, n = 0;
  for (sq = 0; sq < b->nsq; sq++) {
    int top = 0, ha = 0, ho = 0;
    if (seen[sq] || !kn_bit(&p->occ, sq)) continue;
    seen[sq] = 1;
    stack[top++] = sq;
    while (top) {
      int x = stack[--top], r = x / b->cols, c = x % b->cols, d;
      static const int dr[4] = {1, 0, -1, 0}, dc[4] = {0, 1, 0, -1};
      ha |= a->movers[x];
      ho |= o->movers[x];
      for (d = 0; d < 4; d++) {
        int r1 = r + dr[d], c1 = c + dc[d], y = r1 * b->cols + c1;
        if (r1 < 0 || r1 >= b->rows || c1 < 0 || c1 >= b->cols) continue;
        if (seen[y] || !kn_bit(&p->occ, y)) continue;
        seen[y] = 1;
        stack[top++] = y;
      }
    }
    n += ha && !ho;
    n -= ho && !ha;
  }
  return n;
}

static void reference(const kn_board *b, const kn_pos *p, int f[]) {
  static side_info me, op;
  int i, sq, c[2][3] = {{0}};
  side_info *s[2] = {&me, &op};
  side_of(b, p, p->stm, &me);
  side_of(b, p, p->stm ^ 1, &op);
  for (i = 0; i < 2; i++) {
    side_info *a = s[i], *o = s[i ^ 1];
    int j;
    for (sq = 0; sq < b->nsq; sq++) {
      c[i][0] += a->movers[sq];
      c[i][1] += a->movers[sq] && o->taken[sq];
    }
    for (j = 0; j < a->nsingle; j++)
      c[i][2] += !o->taken[a->single[j][0]] && !o->movers[a->single[j][1]] &&
                 !o->lands[a->single[j][2]];
  }
  f[KN_F_MOBILITY] = me.nmoves - op.nmoves;
  f[KN_F_MOVERS] = c[0][0] - c[1][0];
  f[KN_F_TEMPO] = 1;
  f[KN_F_ATTACKED] = c[0][1] - c[1][1];
  f[KN_F_SAFE] = c[0][2] - c[1][2];
  f[KN_F_POTENTIAL] = blocked_of(b, p, p->stm) - blocked_of(b, p, p->stm ^ 1);
  f[KN_F_TAKEAWAY] = (me.nsingle - c[0][2]) - (op.nsingle - c[1][2]);
  f[KN_F_REACH] =
      reach_of(b, p, p->stm, &op) - reach_of(b, p, p->stm ^ 1, &me);
  f[KN_F_REGION] = regions_of(b, p, &me, &op);
  /* edge and corner from the ranks and files: the pieces of the side to
  ** move count +1, the opponent's -1 (Black stands on light squares) */
  f[KN_F_EDGE] = f[KN_F_CORNER] = 0;
  for (sq = 0; sq < b->nsq; sq++) {
    int r = sq / b->cols, col = sq % b->cols, sg;
    if (!kn_bit(&p->occ, sq)) continue;
    sg = (kn_square_light(col, r) ? KN_BLACK : KN_WHITE) == p->stm ? 1 : -1;
    if (r == 0 || col == 0 || r == b->rows - 1 || col == b->cols - 1)
      f[KN_F_EDGE] += sg;
    if ((r == 0 || r == b->rows - 1) && (col == 0 || col == b->cols - 1))
      f[KN_F_CORNER] += sg;
  }
}

/* Phased weights (eval.h): the score is the blend of the two sets by the
** number of pieces, one truncating division, on every path of the horizon
** (all features; without safe, takeaway and reach; only mobility, movers,
** tempo and region; only the first three; and kn_eval). */
static void check_phased(const kn_board *b, const kn_pos *p,
                         const int f[KN_NWEIGHTS], int n) {
  kn_weights w;
  int i, round, pieces = b->nsq - kn_pos_empties(b, p);
  for (round = 0; round < 4; round++) {
    long long v = 0;
    int m = -1;
    kn_weights_default(&w);
    for (i = 0; i < KN_NWEIGHTS; i++) {
      w.w[i] = 3 + 7 * i;
      w.late[i] = 50 - 11 * i;
      if (round && (i == KN_F_SAFE || i == KN_F_TAKEAWAY || i == KN_F_REACH))
        w.w[i] = w.late[i] = 0;
      if (round >= 2 && (i == KN_F_ATTACKED || i == KN_F_POTENTIAL))
        w.w[i] = w.late[i] = 0;
      if (round == 3 && i == KN_F_REGION) w.w[i] = w.late[i] = 0;
    }
    kn_weights_phase(&w);
    assert_true(w.phased);
    assert_int_equal(w.phased_short, round >= 2);
    for (i = 0; i < KN_NWEIGHTS; i++)
      v += ((long long)w.late[i] * (b->nsq - pieces) +
            (long long)w.w[i] * pieces) * f[i];
    assert_int_equal(kn_eval(b, p, &w, -1), (int)(v / b->nsq));
    assert_int_equal(kn_eval64(b, p->occ.w[0], p->stm, &w, &m),
                     (int)(v / b->nsq));
    assert_int_equal(m, n);
  }
  /* equal sets are not phased: the flat sum */
  kn_weights_default(&w);
  w.late[KN_F_MOVERS] = w.w[KN_F_MOVERS] + 1;
  kn_weights_phase(&w);
  assert_true(w.phased);
  w.late[KN_F_MOVERS] = w.w[KN_F_MOVERS];
  kn_weights_phase(&w);
  assert_false(w.phased);
}

static void features_match_the_move_list(void **state) {
  static const int shapes[][2] = {{8, 8}, {6, 6}, {5, 7}, {4, 9}, {3, 3},
                                  {7, 2}, {9, 5}};
  uint64_t seed = 7;
  int s, g, checked = 0, nonzero[KN_NWEIGHTS] = {0}, k;
  (void)state;
  for (s = 0; s < 7; s++)
    for (g = 0; g < 40; g++) {
      kn_board b;
      kn_pos p;
      kn_move mv[KN_MAX_MOVES];
      int n;
      assert_int_equal(kn_board_init(&b, shapes[s][0], shapes[s][1]), 0);
      kn_board_default_first(&b);
      kn_pos_start(&b, &p);
      for (;;) {
        int f[KN_NWEIGHTS], r[KN_NWEIGHTS], i, sum = 0, full;
        kn_weights w;
        n = kn_gen(&b, &p, mv);
        if (kn_pos_phase(&b, &p) == KN_JUMP) {
          kn_features(&b, &p, -1, f);
          reference(&b, &p, r);
          for (i = 0; i < KN_NWEIGHTS; i++) {
            assert_int_equal(f[i], r[i]);
            nonzero[i] += f[i] != 0;
          }
          /* kn_eval = the weighted sum, on both of its paths */
          kn_weights_default(&w);
          for (i = 0; i < KN_NWEIGHTS; i++) sum += w.w[i] * f[i];
          assert_int_equal(kn_eval(&b, &p, &w, -1), sum);
          if (b.narrow && kn_pos_empties(&b, &p) >= 2) {
            /* the search's one-pass horizon: the same score and count */
            int m = -1;
            sum += (-41 - w.w[KN_F_TEMPO]) * f[KN_F_TEMPO];
            w.w[KN_F_TEMPO] = -41;
            assert_int_equal(kn_eval64(&b, p.occ.w[0], p.stm, &w, &m),
                             kn_eval(&b, &p, &w, -1));
            assert_int_equal(m, n);
            /* the short pass with the regions */
            w.w[KN_F_REGION] = 55;
            m = -1;
            assert_int_equal(kn_eval64(&b, p.occ.w[0], p.stm, &w, &m),
                             sum + 55 * f[KN_F_REGION]);
            assert_int_equal(m, n);
            /* and edge and corner (popcounts, no pass of their own; the
            ** sum already holds their default weights) */
            sum += (13 - w.w[KN_F_EDGE]) * f[KN_F_EDGE] +
                   (-29 - w.w[KN_F_CORNER]) * f[KN_F_CORNER];
            w.w[KN_F_EDGE] = 13;
            w.w[KN_F_CORNER] = -29;
            assert_int_equal(kn_eval64(&b, p.occ.w[0], p.stm, &w, &m),
                             sum + 55 * f[KN_F_REGION]);
            assert_int_equal(m, n);
          }
          for (i = 0; i < KN_NWEIGHTS; i++) w.w[i] = 3 + 7 * i;
          for (full = 0, i = 0; i < KN_NWEIGHTS; i++) full += w.w[i] * f[i];
          assert_int_equal(kn_eval(&b, &p, &w, -1), full);
          if (b.narrow && kn_pos_empties(&b, &p) >= 2) {
            int m = -1;
            assert_int_equal(kn_eval64(&b, p.occ.w[0], p.stm, &w, &m), full);
            assert_int_equal(m, n);
            /* safe unweighted: takeaway still needs it, the rest counts */
            full -= w.w[KN_F_SAFE] * f[KN_F_SAFE];
            w.w[KN_F_SAFE] = 0;
            m = -1;
            assert_int_equal(kn_eval64(&b, p.occ.w[0], p.stm, &w, &m), full);
            assert_int_equal(m, n);
            /* safe, takeaway and region unweighted: the horizon skips them */
            full -= w.w[KN_F_TAKEAWAY] * f[KN_F_TAKEAWAY] +
                    w.w[KN_F_REGION] * f[KN_F_REGION];
            w.w[KN_F_TAKEAWAY] = w.w[KN_F_REGION] = 0;
            assert_int_equal(kn_eval64(&b, p.occ.w[0], p.stm, &w, &m), full);
            /* reach unweighted too: the one pass with attacked and
            ** potential, with and without the regions */
            full -= w.w[KN_F_REACH] * f[KN_F_REACH];
            w.w[KN_F_REACH] = 0;
            m = -1;
            assert_int_equal(kn_eval64(&b, p.occ.w[0], p.stm, &w, &m), full);
            assert_int_equal(m, n);
            w.w[KN_F_REGION] = -23;
            m = -1;
            assert_int_equal(kn_eval64(&b, p.occ.w[0], p.stm, &w, &m),
                             full - 23 * f[KN_F_REGION]);
            assert_int_equal(m, n);
            /* attacked alone, potential alone */
            w.w[KN_F_REGION] = 0;
            full -= w.w[KN_F_POTENTIAL] * f[KN_F_POTENTIAL];
            w.w[KN_F_POTENTIAL] = 0;
            assert_int_equal(kn_eval64(&b, p.occ.w[0], p.stm, &w, &m), full);
            full += 9 * f[KN_F_POTENTIAL] - w.w[KN_F_ATTACKED] * f[KN_F_ATTACKED];
            w.w[KN_F_POTENTIAL] = 9;
            w.w[KN_F_ATTACKED] = 0;
            assert_int_equal(kn_eval64(&b, p.occ.w[0], p.stm, &w, &m), full);
            check_phased(&b, &p, f, n);
          }
          checked++;
        }
        if (n == 0) break;
        kn_make(&b, &p, mv[kn_rand(&seed) % (uint64_t)n]);
      }
    }
  assert_true(checked > 2000);
  /* every feature varies: the comparison above is not of zeros */
  for (k = 0; k < KN_NWEIGHTS; k++) assert_true(nonzero[k] > 50);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(features_match_the_move_list),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
