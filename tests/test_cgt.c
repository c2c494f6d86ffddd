/*
** test_cgt.c: game values (cgt.c) and Kōnane regions (region.c).
** Notation and arithmetic against textbook identities; Kōnane values
** against published results (cgt-tools' tests; Ernst 1995; Albert et al.,
** "1xn Konane: a summary of results", More Games of No Chance, 2002);
** the value of a position against a plain recursion with no regions and
** no table; every value's outcome against a brute-force solver for both
** sides to move, and against the project's solver on late 8x8 games.
** Links the core only.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cgt.h"
#include "engine.h"
#include "konane.h"
#include "region.h"
#include "solve.h"
#include "tt.h"

static cg_id P(cg_store *s, const char *text) {
  cg_id g;
  char err[160];
  if (cg_parse(s, text, &g, err, sizeof err))
    fail_msg("parse '%s': %s", text, err);
  return g;
}

static const char *T(cg_store *s, cg_id g) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  cg_text(s, g, buf[k], sizeof buf[k]);
  return buf[k];
}

#define assert_text(s, g, want)                                             \
  do {                                                                      \
    const char *got_ = T(s, g);                                             \
    if (strcmp(got_, want)) fail_msg("got '%s', want '%s'", got_, want);    \
  } while (0)

/* ---- values in the abstract ---- */

static void notation_round_trips(void **state) {
  /* CGSuite's plain notation, each already canonical */
  static const char *const same[] = {
      "0",   "1",     "-2",     "3/4",   "-1/2",      "*",        "*2",
      "^",   "v",     "^^",     "^3",    "vv",        "v3",       "^*",
      "v*",  "1*",    "-1/2^",  "^^*",   "3/8v*2",    "+-1",      "{1|0}",
      "{0|-1}", "{3|1}", "{1||0|-1}", "{2||1|0}", "{0||0|-2}", "+-{2|1}",
      "+-{1,{1|0}}", "{1/2|-1/4}", NULL};
  cg_store *s = cg_store_new();
  (void)state;
  for (int i = 0; same[i]; i++) assert_text(s, P(s, same[i]), same[i]);
  cg_store_free(s);
}

static void canonical_forms_of_textbook_games(void **state) {
  static const char *const pairs[][2] = {
      {"{|}", "0"},        {"{0|}", "1"},        {"{|0}", "-1"},
      {"{0|1}", "1/2"},    {"{1|2}", "3/2"},     {"{-1|1}", "0"},
      {"{0|0}", "*"},      {"{*|*}", "0"},       {"{0,*|0,*}", "*2"},
      {"{0|*}", "^"},      {"{*|0}", "v"},       {"{0,*|0}", "^*"},
      {"{0|^}", "^^*"},    {"{1|-1}", "+-1"},    {"{1,*|0,-1}", "+-1"},
      {"{0|{0|-1}}", "{0||0|-1}"},  {"{2|{1|0}}", "{2||1|0}"},
      {"2+-1", "{3|1}"},   {"+-{2,1}", "+-2"},   {"^+^", "^^"},
      {"^+v", "0"},        {"*+*", "0"},         {"*2+*3", "*"},
      {"1/2+1/2", "1"},    {"+-1 + +-1", "0"},   {"1+^*2", "1^*2"},
      {"-{1|0}", "{0|-1}"}, {"{1/2|1/2}", "1/2*"}, {"{1|1}", "1*"},
      {"{1,1/2|}", "2"},   {"{|-1/2}", "-1"},    {"{-3/4|-1/2}", "-5/8"},
      {"{0|{0|0}}", "^"},  {"{{0|0}|0}", "v"},   {"+-{1,*}", "+-1"},
      {"\xc2\xb1" "1", "+-1"}, {NULL, NULL}};
  cg_store *s = cg_store_new();
  (void)state;
  for (int i = 0; pairs[i][0]; i++) assert_text(s, P(s, pairs[i][0]), pairs[i][1]);
  cg_store_free(s);
}

static void parse_errors_name_the_place(void **state) {
  static const char *const bad[] = {"", "{1|", "{1}", "1/3", "{1|2|3}",
                                    "x", "{1|0}}", "*2048", "^100", NULL};
  cg_store *s = cg_store_new();
  char err[160];
  cg_id g;
  (void)state;
  for (int i = 0; bad[i]; i++) {
    err[0] = 0;
    if (cg_parse(s, bad[i], &g, err, sizeof err) == 0)
      fail_msg("'%s' parsed", bad[i]);
    if (!strstr(err, "character")) fail_msg("'%s': no place in '%s'", bad[i], err);
  }
  cg_store_free(s);
}

static void order_and_outcomes(void **state) {
  cg_store *s = cg_store_new();
  (void)state;
  assert_int_equal(cg_cmp(s, P(s, "^"), CG_ZERO), CG_GT);
  assert_int_equal(cg_cmp(s, P(s, "^"), P(s, "*")), CG_FUZZY);
  assert_int_equal(cg_cmp(s, P(s, "^*"), CG_ZERO), CG_FUZZY);
  assert_int_equal(cg_cmp(s, P(s, "^^*"), CG_ZERO), CG_GT);
  assert_int_equal(cg_cmp(s, P(s, "1/2"), P(s, "{1|0}")), CG_FUZZY);
  assert_int_equal(cg_cmp(s, P(s, "1/4"), P(s, "^")), CG_GT);
  assert_int_equal(cg_cmp(s, P(s, "{0||0|-2}"), P(s, "^")), CG_LT);
  assert_int_equal(cg_cmp(s, P(s, "{0||0|-2}"), CG_ZERO), CG_GT);
  assert_int_equal(cg_cmp(s, P(s, "-1"), P(s, "v")), CG_LT);
  assert_int_equal(cg_outcome(s, CG_ZERO), 'P');
  assert_int_equal(cg_outcome(s, P(s, "*")), 'N');
  assert_int_equal(cg_outcome(s, P(s, "+-1")), 'N');
  assert_int_equal(cg_outcome(s, P(s, "^")), 'L');
  assert_int_equal(cg_outcome(s, P(s, "v*")), 'N');
  assert_int_equal(cg_outcome(s, P(s, "-1/2")), 'R');
  assert_int_equal(cg_outcome(s, P(s, "+-1 + 1/2")), 'N');
  assert_int_equal(cg_outcome(s, P(s, "{3|1}")), 'L');
  assert_true(cg_first_wins(s, P(s, "*"), 1) && cg_first_wins(s, P(s, "*"), 0));
  assert_true(!cg_first_wins(s, P(s, "^"), 0) && cg_first_wins(s, P(s, "^"), 1));
  cg_store_free(s);
}

/* G - G = 0, G + H = H + G, -(G + H) = -G + -H over many pairs. */
static void group_laws_hold(void **state) {
  static const char *const g[] = {"0", "1/2", "*", "^", "v*", "+-1", "{1|0}",
                                  "{2||1|0}", "{0||0|-2}", "*2", "{1,*|0}",
                                  "{3|1}", "-3/4", "^^*", NULL};
  cg_store *s = cg_store_new();
  (void)state;
  for (int i = 0; g[i]; i++) {
    cg_id a = P(s, g[i]);
    assert_int_equal(cg_sub(s, a, a), CG_ZERO);
    assert_int_equal(cg_neg(s, cg_neg(s, a)), a);
    for (int j = 0; g[j]; j++) {
      cg_id b = P(s, g[j]);
      assert_int_equal(cg_add(s, a, b), cg_add(s, b, a));
      assert_int_equal(cg_neg(s, cg_add(s, a, b)),
                       cg_add(s, cg_neg(s, a), cg_neg(s, b)));
      /* a <= b iff b - a >= 0 */
      assert_int_equal(cg_le(s, a, b), cg_le(s, CG_ZERO, cg_sub(s, b, a)));
    }
  }
  cg_store_free(s);
}

static void means_and_temperatures(void **state) {
  static const struct {
    const char *g;
    double mean, temp;
  } cases[] = {{"0", 0, -1},        {"3", 3, -1},           {"3/4", 0.75, -0.25},
               {"*", 0, 0},         {"^", 0, 0},            {"1*", 1, 0},
               {"+-1", 0, 1},       {"{3|1}", 2, 1},        {"{1|0}", 0.5, 0.5},
               {"{2||1|0}", 1.25, 0.75}, {"{1||0|-1}", 0.25, 0.75},
               {"+-{2|1}", 0, 1.5}, {"{0||0|-2}", 0, 0},    {NULL, 0, 0}};
  cg_store *s = cg_store_new();
  (void)state;
  for (int i = 0; cases[i].g; i++) {
    double m, t;
    assert_int_equal(cg_mean_temp(s, P(s, cases[i].g), &m, &t), 0);
    if (m != cases[i].mean || t != cases[i].temp)
      fail_msg("%s: mean %g temp %g, want %g %g", cases[i].g, m, t,
               cases[i].mean, cases[i].temp);
  }
  /* the mean is additive */
  {
    double m1, m2, m3, t;
    cg_id a = P(s, "{2||1|0}"), b = P(s, "{3|1}");
    cg_mean_temp(s, a, &m1, &t);
    cg_mean_temp(s, b, &m2, &t);
    cg_mean_temp(s, cg_add(s, a, b), &m3, &t);
    assert_true(m3 == m1 + m2);
  }
  cg_store_free(s);
}

/* ---- Kōnane values ---- */

typedef struct fixture {
  cg_store *s;
  cgk *k;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  f->s = cg_store_new();
  f->k = cgk_new(f->s);
  *state = f;
  return f->s && f->k ? 0 : -1;
}

static int teardown(void **state) {
  fixture *f = *state;
  cgk_free(f->k);
  cg_store_free(f->s);
  free(f);
  return 0;
}

static cg_id value_of(fixture *f, const char *text) {
  cgk_pos p;
  char err[200];
  cg_id v;
  if (cgk_parse(text, &p, NULL, err, sizeof err)) fail_msg("%s: %s", text, err);
  assert_int_equal(cgk_value(f->k, &p, &v), CGK_OK);
  return v;
}

#define assert_value(f, pos, want)                                          \
  do {                                                                      \
    const char *got_ = T((f)->s, value_of(f, pos));                         \
    if (strcmp(got_, want)) fail_msg("%s: got %s, want %s", pos, got_, want); \
  } while (0)

/* cgt-tools (Müller et al.) Konane tests: 1x4 "..ox" is 1, ".ox." is *,
** and the 3x4 board .ox./o..x/.... is {1|-1}. */
static void cgt_tools_examples(void **state) {
  fixture *f = *state;
  assert_value(f, "..ox", "1");
  assert_value(f, ".ox.", "*");
  assert_value(f, ".ox./o..x/....", "+-1");
  assert_value(f, "xo..", "1");        /* the mirror of ..ox */
  assert_value(f, "..xo b", "-1");     /* the colour swap */
}

/* Ernst, "Playing Konane mathematically" (UMAP J. 16, 1995): a solid
** linear pattern of N alternating pieces, Black at both ends when N is
** odd, with room on both sides: -j for N = 2j + 1, 0 for N = 4j, * for
** N = 4j + 2. */
static void ernst_solid_linear_patterns(void **state) {
  fixture *f = *state;
  char pos[32], want[16];
  for (int n = 1; n <= 16; n++) {
    int k = 0;
    pos[k++] = '.';
    for (int i = 0; i < n; i++) pos[k++] = i % 2 ? 'o' : 'x';
    pos[k++] = '.';
    pos[k] = 0;
    if (n % 2) snprintf(want, sizeof want, "%d", -(n - 1) / 2);
    else snprintf(want, sizeof want, "%s", n % 4 ? "*" : "0");
    assert_value(f, pos, want);
  }
}

/* A rows x cols board (rank 0 at the bottom) with the pieces of 'cells'
** as (file, rank, colour) triples. */
static void board_text(char *out, int rows, int cols, const int (*pc)[3],
                       int n) {
  char g[KN_MAX_SIDE][KN_MAX_SIDE + 1];
  int k = 0;
  for (int r = 0; r < rows; r++) {
    memset(g[r], '.', (size_t)cols);
    g[r][cols] = 0;
  }
  for (int i = 0; i < n; i++) g[pc[i][1]][pc[i][0]] = (char)pc[i][2];
  for (int r = rows - 1; r >= 0; r--) {
    memcpy(out + k, g[r], (size_t)cols);
    k += cols;
    out[k++] = r ? '/' : 0;
  }
}

/*
** Families of "1xn Konane: a summary of results" (Albert, Chan, Tsai,
** More Games of No Chance, MSRI 42, 2002), as tabulated in konjecture's
** tests. A linear pattern in a row with one extra piece off its end:
**   lot1(n): white at (1,2), then "oxox..." from (2,1) (n pieces in all),
**            on a 4-rank board: 0 for n <= 2, v for 3, n/2 - 1 for even n,
**            * for n = 4j + 1, 0 for n = 4j + 3;
**   lt1(n):  a linear pattern "xoxo..." from (1,4) with a white tail
**            piece at (1,5), 8 ranks: {*|v} for 4, then {*|2 - n/2},
**            {(n-1)/2 - 1|*}, {0|1 - (n-2)/2}, {(n-3)/2|0} by n mod 4;
**   lot2(n): "oxox..." from (2,4), tail white (1,5) and black (1,6):
**            v, 0, 1/2 for n = 3, 4, 5, then -1*, (n-1)/2 - 2, -1,
**            (n-3)/2 - 1 by n mod 4.
*/
static void one_by_n_families(void **state) {
  fixture *f = *state;
  char pos[KN_POS_TEXT], want[32];
  int pc[32][3];
  for (int n = 0; n <= 13; n++) { /* lot1 */
    int m = 0;
    for (int x = 0; x < n; x++, m++) {
      pc[m][0] = x + 1;
      pc[m][1] = x < 1 ? 2 : 1;
      pc[m][2] = x < 1 || (x - 1) % 2 == 0 ? 'o' : 'x';
    }
    board_text(pos, 4, 20, (const int (*)[3])pc, m);
    if (n <= 2) strcpy(want, "0");
    else if (n == 3) strcpy(want, "v");
    else if (n % 2 == 0) snprintf(want, sizeof want, "%d", n / 2 - 1);
    else strcpy(want, n % 4 == 1 ? "*" : "0");
    assert_value(f, pos, want);
  }
  for (int tail = 1; tail <= 2; tail++)
    for (int n = tail == 1 ? 1 : 3; n <= 13; n++) {
      int m = 0, off = tail - 1;
      for (int i = 0; i < tail; i++, m++) {
        pc[m][0] = 1;
        pc[m][1] = 5 + i;
        pc[m][2] = i % 2 == 0 ? 'o' : 'x';
      }
      for (int x = off; x < n - tail + off; x++, m++) {
        pc[m][0] = x + 1;
        pc[m][1] = 4;
        pc[m][2] = x % 2 == 0 ? 'x' : 'o';
      }
      board_text(pos, 8, 20, (const int (*)[3])pc, m);
      if (tail == 1) {
        if (n == 1) strcpy(want, "0");
        else if (n <= 3) strcpy(want, "*");
        else if (n == 4) strcpy(want, "{*|v}");
        else if (n % 4 == 0) snprintf(want, sizeof want, "{*|%d}", 2 - n / 2);
        else if (n % 4 == 1) snprintf(want, sizeof want, "{%d|*}", (n - 1) / 2 - 1);
        else if (n % 4 == 2) snprintf(want, sizeof want, "{0|%d}", 1 - (n - 2) / 2);
        else snprintf(want, sizeof want, "{%d|0}", (n - 3) / 2);
      } else {
        if (n == 3) strcpy(want, "v");
        else if (n == 4) strcpy(want, "0");
        else if (n == 5) strcpy(want, "1/2");
        else if (n % 4 == 0) strcpy(want, "-1*");
        else if (n % 4 == 1) snprintf(want, sizeof want, "%d", (n - 1) / 2 - 2);
        else if (n % 4 == 2) strcpy(want, "-1");
        else snprintf(want, sizeof want, "%d", (n - 3) / 2 - 1);
      }
      assert_value(f, pos, want);
    }
}

/* ---- independent references ---- */

/* Moves of an arbitrary placement, written again from the rules. */
#define REF_MAX 160

static int ref_children(const cgk_pos *p, int colour, cgk_pos *out) {
  int n = 0;
  uint8_t me = colour == KN_BLACK ? CGK_BLACK : CGK_WHITE, them = me ^ 3;
  static const int dr[4] = {1, -1, 0, 0}, dc[4] = {0, 0, 1, -1};
  for (int r = 0; r < p->rows; r++)
    for (int c = 0; c < p->cols; c++) {
      if (p->cell[r * p->cols + c] != me) continue;
      for (int d = 0; d < 4; d++) {
        cgk_pos q = *p;
        int rr = r, cc = c;
        for (;;) {
          int r1 = rr + dr[d], c1 = cc + dc[d], r2 = r1 + dr[d], c2 = c1 + dc[d];
          if (r2 < 0 || r2 >= p->rows || c2 < 0 || c2 >= p->cols) break;
          if (q.cell[r1 * p->cols + c1] != them || q.cell[r2 * p->cols + c2]) break;
          q.cell[rr * p->cols + cc] = 0;
          q.cell[r1 * p->cols + c1] = 0;
          q.cell[r2 * p->cols + c2] = me;
          assert_true(n < REF_MAX);
          out[n++] = q;
          rr = r2, cc = c2;
        }
      }
    }
  return n;
}

/* Does 'colour' to move win? Plain negamax. */
static int ref_wins(const cgk_pos *p, int colour) {
  cgk_pos *ch = malloc(REF_MAX * sizeof *ch);
  int n = ref_children(p, colour, ch), w = 0;
  for (int i = 0; i < n && !w; i++)
    if (!ref_wins(&ch[i], colour ^ 1)) w = 1;
  free(ch);
  return w;
}

/* The value by the definition: no regions, no table. */
static cg_id ref_value(cg_store *s, const cgk_pos *p) {
  cgk_pos *ch = malloc(REF_MAX * sizeof *ch);
  cg_id L[REF_MAX], R[REF_MAX];
  int nl = ref_children(p, KN_BLACK, ch);
  for (int i = 0; i < nl; i++) L[i] = ref_value(s, &ch[i]);
  int nr = ref_children(p, KN_WHITE, ch);
  for (int i = 0; i < nr; i++) R[i] = ref_value(s, &ch[i]);
  free(ch);
  return cg_make(s, L, nl, R, nr);
}

static uint64_t tree_size(const cgk_pos *p, uint64_t cap) {
  cgk_pos *ch = malloc(REF_MAX * sizeof *ch);
  uint64_t t = 1;
  for (int c = 0; c < 2 && t < cap; c++) {
    int n = ref_children(p, c, ch);
    for (int i = 0; i < n && t < cap; i++) t += tree_size(&ch[i], cap - t);
  }
  free(ch);
  return t;
}

static void random_placement(cgk_pos *p, int rows, int cols, int fill,
                             uint64_t *seed) {
  memset(p, 0, sizeof *p);
  p->rows = rows;
  p->cols = cols;
  for (int i = 0; i < rows * cols; i++) {
    uint32_t r = kn_rand_below(seed, 100);
    p->cell[i] = r < (uint32_t)fill ? CGK_BLACK
                 : r < (uint32_t)(2 * fill) ? CGK_WHITE : CGK_EMPTY;
  }
}

/* Random placements (any colours anywhere): the value equals the plain
** recursion's, and its outcome matches the brute-force winner for both
** sides to move. */
static void values_match_the_definition_and_brute_force(void **state) {
  fixture *f = *state;
  static const int shapes[][2] = {{1, 8}, {2, 4}, {2, 6}, {3, 3}, {3, 4},
                                  {4, 3}, {3, 5}, {4, 4}, {2, 8}, {5, 5}};
  uint64_t seed = 2026;
  int count = 0, outc[4] = {0, 0, 0, 0};
  for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++)
    for (int k = 0; k < 120; k++) {
      cgk_pos p;
      cg_id v;
      random_placement(&p, shapes[s][0], shapes[s][1],
                       20 + (int)kn_rand_below(&seed, 20), &seed);
      if (tree_size(&p, 20000) >= 20000) continue;
      assert_int_equal(cgk_value(f->k, &p, &v), CGK_OK);
      cg_id ref = ref_value(f->s, &p);
      if (ref != v) {
        char t[KN_POS_TEXT];
        cgk_text(&p, t, sizeof t);
        fail_msg("%s: value %s, by definition %s", t, T(f->s, v), T(f->s, ref));
      }
      int bw = ref_wins(&p, KN_BLACK), ww = ref_wins(&p, KN_WHITE);
      assert_int_equal(cg_first_wins(f->s, v, 1), bw);
      assert_int_equal(cg_first_wins(f->s, v, 0), ww);
      int o = cg_outcome(f->s, v);
      assert_int_equal(o, bw ? (ww ? 'N' : 'L') : (ww ? 'R' : 'P'));
      outc[o == 'N' ? 0 : o == 'L' ? 1 : o == 'R' ? 2 : 3]++;
      count++;
    }
  assert_true(count >= 1000);
  for (int i = 0; i < 4; i++) assert_true(outc[i] > count / 20);
}

/* The 8 symmetries keep the value; swapping colours negates it. */
static void symmetry_and_colour_swap(void **state) {
  fixture *f = *state;
  uint64_t seed = 99;
  for (int k = 0; k < 200; k++) {
    cgk_pos p, q;
    cg_id v, w;
    random_placement(&p, 3 + (int)kn_rand_below(&seed, 3),
                     3 + (int)kn_rand_below(&seed, 3), 25, &seed);
    if (tree_size(&p, 50000) >= 50000) continue;
    assert_int_equal(cgk_value(f->k, &p, &v), CGK_OK);
    /* transpose */
    memset(&q, 0, sizeof q);
    q.rows = p.cols;
    q.cols = p.rows;
    for (int r = 0; r < p.rows; r++)
      for (int c = 0; c < p.cols; c++) q.cell[c * q.cols + r] = p.cell[r * p.cols + c];
    assert_int_equal(cgk_value(f->k, &q, &w), CGK_OK);
    assert_int_equal(v, w);
    /* colours swapped */
    for (int i = 0; i < p.rows * p.cols; i++)
      if (p.cell[i]) p.cell[i] ^= 3;
    assert_int_equal(cgk_value(f->k, &p, &w), CGK_OK);
    assert_int_equal(cg_neg(f->s, v), w);
  }
}

/* A region shifted on a bigger board keeps its value when the board edges
** stay as far as its piece count (or as near as before). */
static void translation_keeps_values(void **state) {
  fixture *f = *state;
  assert_int_equal(value_of(f, "8/2.ox.2/2o..x2/8/8/8/8/8"),
                   value_of(f, "10/10/10/10/10/4.ox.2/4o..x2/10/10/10 w"));
  assert_int_equal(value_of(f, "..ox/4"), value_of(f, "4..ox/8/8/8"));
  assert_int_equal(value_of(f, "8/8/8/3xo3/8/8/8/8"),
                   value_of(f, "10/10/10/10/10/5xo3/10/10/10/10"));
  assert_text(f->s, value_of(f, "8/8/8/3xo3/8/8/8/8"), "*");
}

/* Regions: labels, one value per region, their sum the whole. */
static void regions_split_and_sum(void **state) {
  fixture *f = *state;
  cgk_pos p;
  int label[KN_MAX_SQ], n;
  cg_id vals[KN_MAX_SQ];
  char err[128];
  /* three regions: a 1x4 "..ox"-like pair, a star pair, a lone piece */
  assert_int_equal(cgk_parse("xo....../......../.....x../........ b", &p, NULL,
                             err, sizeof err), 0);
  assert_int_equal(cgk_regions(f->k, &p, label, &n, vals), CGK_OK);
  assert_int_equal(n, 2);
  /* pieces two squares apart that can never move are separate */
  assert_int_equal(cgk_parse("x.x.o.o", &p, NULL, err, sizeof err), 0);
  assert_int_equal(cgk_regions(f->k, &p, label, &n, vals), CGK_OK);
  assert_int_equal(n, 4);
  /* x o . x : the o can be jumped, then the x's meet: one region */
  assert_int_equal(cgk_parse("xo.x", &p, NULL, err, sizeof err), 0);
  assert_int_equal(cgk_regions(f->k, &p, label, &n, vals), CGK_OK);
  assert_int_equal(n, 1);
}

/* Late positions of random 8x8 games (legal colours): the sum of the
** regions decides the winner exactly as the solver does, both sides to
** move; and each region's value, computed alone, adds up to the whole. */
static void late_8x8_outcomes_match_the_solver(void **state) {
  fixture *f = *state;
  kn_board b;
  kn_tt *tt = kn_tt_new(8);
  uint64_t seed = 4242;
  int checked = 0, split = 0;
  assert_non_null(tt);
  assert_int_equal(kn_board_init(&b, 8, 8), 0);
  kn_board_default_first(&b);
  for (int game = 0; game < 120; game++) {
    kn_pos p;
    kn_move mv[KN_MAX_MOVES];
    int n;
    kn_pos_start(&b, &p);
    while ((n = kn_gen(&b, &p, mv)) > 0 && kn_bits_count(&p.occ) > 16)
      kn_make(&b, &p, mv[kn_rand_below(&seed, (uint32_t)n)]);
    if (n == 0) continue;
    for (int step = 0; step < 3; step++) {
      cgk_pos q;
      cg_id v, sum = CG_ZERO;
      int label[KN_MAX_SQ], nr;
      cg_id vals[KN_MAX_SQ];
      cgk_from_kn(&b, &p, &q);
      if (tree_size(&q, 200000) >= 200000) break;
      assert_int_equal(cgk_value(f->k, &q, &v), CGK_OK);
      assert_int_equal(cgk_regions(f->k, &q, label, &nr, vals), CGK_OK);
      for (int i = 0; i < nr; i++) {
        cgk_pos one = q;
        cg_id w;
        for (int sq = 0; sq < 64; sq++)
          if (label[sq] != i) one.cell[sq] = 0;
        assert_int_equal(cgk_value(f->k, &one, &w), CGK_OK);
        assert_int_equal(w, vals[i]);
        sum = cg_add(f->s, sum, w);
      }
      assert_int_equal(sum, v);
      split += nr > 1;
      for (int side = 0; side < 2; side++) {
        kn_limits lim;
        kn_solve_result r;
        kn_pos s2 = p;
        memset(&lim, 0, sizeof lim);
        s2.stm = side;
        kn_tt_clear(tt);
        assert_int_equal(kn_solve(&b, &s2, tt, &lim, &r), 0);
        if (r.win != cg_first_wins(f->s, v, side == KN_BLACK)) {
          char t[KN_POS_TEXT];
          kn_pos_text(&b, &s2, t, sizeof t);
          fail_msg("%s: solver %d, value %s", t, r.win, T(f->s, v));
        }
      }
      checked++;
      n = kn_gen(&b, &p, mv);
      if (n == 0) break;
      kn_make(&b, &p, mv[kn_rand_below(&seed, (uint32_t)n)]);
    }
  }
  kn_tt_free(tt);
  assert_true(checked >= 150);
  assert_true(split >= checked / 4);
}

/* The solver oracle: on split late 8x8 positions its answers are the
** solver's, and it declines unsplit boards at once. */
static void oracle_agrees_with_the_solver(void **state) {
  fixture *f = *state;
  kn_board b;
  kn_tt *tt = kn_tt_new(8);
  uint64_t seed = 31337;
  cgk_oracle_ctx c = {f->k, 500, 12, 0, 0};
  int decided = 0;
  assert_non_null(tt);
  assert_int_equal(kn_board_init(&b, 8, 8), 0);
  kn_board_default_first(&b);
  for (int game = 0; game < 60; game++) {
    kn_pos p;
    kn_move mv[KN_MAX_MOVES];
    int n;
    kn_pos_start(&b, &p);
    while ((n = kn_gen(&b, &p, mv)) > 0 && kn_bits_count(&p.occ) > 18)
      kn_make(&b, &p, mv[kn_rand_below(&seed, (uint32_t)n)]);
    if (n == 0) continue;
    for (int side = 0; side < 2; side++) {
      kn_limits lim;
      kn_solve_result r;
      memset(&lim, 0, sizeof lim);
      p.stm = side;
      int w = cgk_oracle(&c, &b, p.occ.w[0], side);
      if (w < 0) continue;
      kn_tt_clear(tt);
      assert_int_equal(kn_solve(&b, &p, tt, &lim, &r), 0);
      assert_int_equal(w, r.win);
      decided++;
    }
  }
  assert_true(decided >= 20);
  assert_true(c.calls >= (uint64_t)decided);
  /* the start position has not split: declined without computing */
  {
    kn_pos p;
    cgk_stats before, after;
    kn_pos_start(&b, &p);
    kn_clrbit(&p.occ, 27);
    kn_clrbit(&p.occ, 28);
    cgk_get_stats(f->k, &before);
    assert_int_equal(cgk_oracle(&c, &b, p.occ.w[0], KN_BLACK), -1);
    cgk_get_stats(f->k, &after);
    assert_true(after.computed == before.computed);
  }
  kn_tt_free(tt);
}

/* A second look-up of a region costs no computation. */
static void the_table_answers_repeats(void **state) {
  fixture *f = *state;
  cgk_stats a, b;
  value_of(f, "..oxo/oxoxo/x.o.x/o...o/x.x.x");
  cgk_get_stats(f->k, &a);
  value_of(f, "x.x.x/o...o/x.o.x/oxoxo/..oxo"); /* mirrored */
  cgk_get_stats(f->k, &b);
  assert_true(a.computed > 10);
  assert_int_equal(b.computed, a.computed);
  assert_true(b.hits > a.hits);
}

static void budget_stops_cleanly(void **state) {
  fixture *f = *state;
  cgk_pos p;
  cg_id v;
  char err[64];
  assert_int_equal(cgk_parse("..oxo/oxoxo/xoxox/oxoxo/xoxox", &p, NULL, err,
                             sizeof err), 0);
  cgk_limits(f->k, 100, NULL);
  assert_int_equal(cgk_value(f->k, &p, &v), CGK_EBUDGET);
  cgk_limits(f->k, 0, NULL);
  /* the table holds only finished regions: later answers stay right */
  assert_value(f, ".ox./o..x/....", "+-1");
}

static void parse_accepts_any_placement(void **state) {
  cgk_pos p;
  int stm;
  char err[200], t[64];
  (void)state;
  assert_int_equal(cgk_parse("xx/oo w", &p, &stm, err, sizeof err), 0);
  assert_int_equal(stm, KN_WHITE);
  cgk_text(&p, t, sizeof t);
  assert_string_equal(t, "xx/oo");
  assert_int_equal(cgk_parse("x2o", &p, &stm, err, sizeof err), 0);
  assert_int_equal(stm, -1);
  assert_int_not_equal(cgk_parse("xq", &p, &stm, err, sizeof err), 0);
  assert_non_null(strstr(err, "character 2"));
  assert_int_not_equal(cgk_parse("xo/x", &p, &stm, err, sizeof err), 0);
  assert_int_not_equal(cgk_parse("xo b b", &p, &stm, err, sizeof err), 0);
}

int main(void) {
  const struct CMUnitTest values[] = {
      cmocka_unit_test(notation_round_trips),
      cmocka_unit_test(canonical_forms_of_textbook_games),
      cmocka_unit_test(parse_errors_name_the_place),
      cmocka_unit_test(order_and_outcomes),
      cmocka_unit_test(group_laws_hold),
      cmocka_unit_test(means_and_temperatures),
      cmocka_unit_test(parse_accepts_any_placement),
  };
  const struct CMUnitTest konane[] = {
      cmocka_unit_test_setup_teardown(cgt_tools_examples, setup, teardown),
      cmocka_unit_test_setup_teardown(ernst_solid_linear_patterns, setup, teardown),
      cmocka_unit_test_setup_teardown(one_by_n_families, setup, teardown),
      cmocka_unit_test_setup_teardown(values_match_the_definition_and_brute_force,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(symmetry_and_colour_swap, setup, teardown),
      cmocka_unit_test_setup_teardown(translation_keeps_values, setup, teardown),
      cmocka_unit_test_setup_teardown(regions_split_and_sum, setup, teardown),
      cmocka_unit_test_setup_teardown(late_8x8_outcomes_match_the_solver, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(the_table_answers_repeats, setup, teardown),
      cmocka_unit_test_setup_teardown(oracle_agrees_with_the_solver, setup, teardown),
      cmocka_unit_test_setup_teardown(budget_stops_cleanly, setup, teardown),
  };
  int fails = cmocka_run_group_tests_name("cgt values", values, NULL, NULL);
  fails += cmocka_run_group_tests_name("cgt konane", konane, NULL, NULL);
  return fails ? 1 : 0;
}
