/*
** test_fuzz.c: the position text and move parsers under seeded random
** mutation. Every input must either parse (and then round-trip to the
** same position) or fail with a message; nothing may crash or read out
** of bounds (run under make asan).
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

static const char *const SEEDS[] = {
    "xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox b",
    "xoxoxoxo/oxoxoxox/xoxoxoxo/oxo2xox/xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox b",
    "xoxo/oxox/xoxo/oxox b",
    "x3/4/4/4 w",
    "20/20/20/20/20/20/20/20/20/20/20/20/20/20/20/20/20/20/20/oxoxoxoxoxoxoxoxoxox b",
    "1 b",
    "6/6/6/6/6/1xo1o1 b",
};

/* Mutate 'buf' (NUL-terminated, room for 'cap') a few random times. */
static void mutate(char *buf, size_t cap, uint64_t *s) {
  static const char alphabet[] = "xo.0123456789/ bw-aAzZ\t\n\x01\xff";
  int edits = 1 + (int)(tu_rand(s) % 4);
  for (int e = 0; e < edits; e++) {
    size_t len = strlen(buf);
    size_t at = len ? tu_rand(s) % (len + 1) : 0;
    char c = alphabet[tu_rand(s) % (sizeof alphabet - 1)];
    switch (tu_rand(s) % 4) {
    case 0: /* replace */
      if (at < len) buf[at] = c;
      break;
    case 1: /* insert */
      if (len + 2 < cap) {
        memmove(buf + at + 1, buf + at, len - at + 1);
        buf[at] = c;
      }
      break;
    case 2: /* delete */
      if (at < len) memmove(buf + at, buf + at + 1, len - at);
      break;
    default: /* truncate */
      buf[at] = '\0';
    }
  }
}

static void mutated_position_texts_parse_or_fail_cleanly(void **state) {
  (void)state;
  uint64_t s = 0x5eed;
  char buf[KN_POS_TEXT + 64], err[256], out[KN_POS_TEXT];
  int parsed = 0, failed = 0;
  for (int i = 0; i < 200000; i++) {
    snprintf(buf, sizeof buf, "%s", SEEDS[tu_rand(&s) % (sizeof SEEDS / sizeof *SEEDS)]);
    mutate(buf, sizeof buf, &s);
    kn_board b;
    kn_pos p;
    err[0] = '\0';
    if (kn_pos_parse(buf, &b, &p, err, sizeof err) == 0) {
      kn_board b2;
      kn_pos p2;
      parsed++;
      assert_true(kn_pos_valid(&b, &p));
      kn_pos_text(&b, &p, out, sizeof out);
      assert_int_equal(kn_pos_parse(out, &b2, &p2, err, sizeof err), 0);
      assert_true(kn_pos_equal(&p, &p2));
      assert_int_equal(b.rows, b2.rows);
      assert_int_equal(b.cols, b2.cols);
    } else {
      failed++;
      assert_true(err[0] != '\0');
    }
  }
  assert_true(parsed > 1000 && failed > 1000); /* both paths exercised */
}

static void random_move_texts_parse_or_fail_cleanly(void **state) {
  (void)state;
  static const char *const moves[] = {"d7-d5", "b1-d1-f1", "D5", "f5b5", "a1", "t20-t18"};
  uint64_t s = 42;
  char buf[64], err[256];
  kn_board b;
  kn_pos p;
  int legal = 0;
  assert_int_equal(kn_pos_parse(SEEDS[1], &b, &p, err, sizeof err), 0);
  for (int i = 0; i < 200000; i++) {
    kn_move m;
    snprintf(buf, sizeof buf, "%s", moves[tu_rand(&s) % (sizeof moves / sizeof *moves)]);
    mutate(buf, sizeof buf, &s);
    err[0] = '\0';
    if (kn_move_parse(&b, &p, buf, &m, err, sizeof err) == 0) {
      legal++;
      assert_true(kn_is_legal(&b, &p, m));
    } else {
      assert_true(err[0] != '\0');
    }
  }
  assert_true(legal > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mutated_position_texts_parse_or_fail_cleanly),
      cmocka_unit_test(random_move_texts_parse_or_fail_cleanly),
  };
  return cmocka_run_group_tests_name("fuzz", tests, NULL, NULL);
}
