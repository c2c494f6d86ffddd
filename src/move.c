/*
** move.c: square and move notation, and the XOR mask of a move.
** Canonical forms: a removal is its square ("d5"), a jump its first and
** last squares ("f5-b5"). Reading also takes upper case, no separator and
** the full path ("f5-d5-b5").
*/
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "konane.h"

/* Write the name of square 'sq' ("d5") into 'buf'; returns its length. */
size_t kn_square_name(const kn_board *b, int sq, char *buf, size_t len) {
  char t[4];
  size_t n = 0;
  unsigned rank = (unsigned)(sq / b->cols + 1) % 100u;
  t[n++] = (char)('a' + sq % b->cols);
  if (rank >= 10) t[n++] = (char)('0' + rank / 10);
  t[n++] = (char)('0' + rank % 10);
  if (len) {
    size_t c = n < len - 1 ? n : len - 1;
    memcpy(buf, t, c);
    buf[c] = '\0';
  }
  return n;
}

/* Write the canonical text of 'm' ("d5", "f5-b5"); returns its length. */
size_t kn_move_text(const kn_board *b, kn_move m, char *buf, size_t len) {
  char t[KN_MOVE_TEXT];
  size_t n = kn_square_name(b, KN_FROM(m), t, sizeof t);
  if (!KN_IS_REMOVAL(m)) {
    t[n++] = '-';
    n += kn_square_name(b, KN_TO(m), t + n, sizeof t - n);
  }
  if (len) {
    size_t c = n < len - 1 ? n : len - 1;
    memcpy(buf, t, c);
    buf[c] = '\0';
  }
  return n;
}

/* XOR mask of 'm': origin, landing, and the pieces jumped in between. */
void kn_move_mask(const kn_board *b, kn_move m, kn_bits *mask) {
  int from = KN_FROM(m), to = KN_TO(m);
  kn_bits_clear(mask);
  kn_setbit(mask, from);
  if (from == to) return;
  kn_setbit(mask, to);
  int d = kn_move_step(b, m);
  for (int s = from + d; s != to + d; s += 2 * d) kn_setbit(mask, s);
}

/*
** Read one square name at 's' ("d5", "D5"): the file letter a..t then
** 1-2 digits. Stores the file and rank (0-based, not range-checked
** against the board) and returns the characters read, or 0 when 's' does
** not start with a square name.
*/
static int read_square(const char *s, int *file, int *rank) {
  int c = tolower((unsigned char)s[0]);
  if (c < 'a' || c > 'z' || !isdigit((unsigned char)s[1])) return 0;
  int n = 1, r = 0;
  while (n < 4 && isdigit((unsigned char)s[n])) r = r * 10 + (s[n++] - '0');
  if (isdigit((unsigned char)s[n])) return 0;
  *file = c - 'a';
  *rank = r - 1;
  return n;
}

int kn_square_parse(const kn_board *b, const char *s, int *sq, char *err,
                    size_t errlen) {
  int f, r, n = read_square(s, &f, &r);
  if (!n || s[n]) {
    snprintf(err, errlen, "'%.20s' is not a square name (like d5)", s);
    return -1;
  }
  if (f >= b->cols || r < 0 || r >= b->rows) {
    snprintf(err, errlen, "no such square %.20s on this %dx%d board", s,
             b->rows, b->cols);
    return -1;
  }
  *sq = r * b->cols + f;
  return 0;
}

static void list_squares(const kn_board *b, const kn_bits *set, char *buf,
                         size_t len) {
  size_t n = 0;
  int count = 0;
  buf[0] = '\0';
  for (int sq = 0; sq < b->nsq && n + 16 < len; sq++) {
    if (!kn_bit(set, sq)) continue;
    if (count++) n += (size_t)snprintf(buf + n, len - n, ", ");
    n += kn_square_name(b, sq, buf + n, len - n);
  }
  if (!count) snprintf(buf, len, "none");
}

/* The squares the side to move may remove in a removal phase. */
static void removal_set(const kn_board *b, const kn_pos *p, kn_phase ph,
                        kn_bits *set) {
  const kn_bits *own = &b->side[p->stm];
  if (ph == KN_REMOVE1) {
    for (int i = 0; i < KN_WORDS; i++)
      set->w[i] = b->first.w[i] & own->w[i] & p->occ.w[i];
    return;
  }
  int hole = -1;
  for (int sq = 0; sq < b->nsq; sq++)
    if (!kn_bit(&p->occ, sq)) {
      hole = sq;
      break;
    }
  kn_bits_clear(set);
  if (b->second) {
    *set = b->second[hole];
  } else {
    int f = hole % b->cols, r = hole / b->cols;
    if (f > 0) kn_setbit(set, hole - 1);
    if (f + 1 < b->cols) kn_setbit(set, hole + 1);
    if (r > 0) kn_setbit(set, hole - b->cols);
    if (r + 1 < b->rows) kn_setbit(set, hole + b->cols);
  }
  for (int i = 0; i < KN_WORDS; i++) set->w[i] &= own->w[i] & p->occ.w[i];
}

/* Exported for movegen.c: the legal removals as a set. */
void kn_removals(const kn_board *b, const kn_pos *p, kn_bits *set);
void kn_removals(const kn_board *b, const kn_pos *p, kn_bits *set) {
  removal_set(b, p, kn_pos_phase(b, p), set);
}

static const char *side_name(int s) { return s == KN_BLACK ? "Black" : "White"; }

/*
** Check that square 'from' holds a piece of the side to move of 'p'; if
** not, write why into 'err' ('empty' names an empty square) and return -1.
*/
static int check_own(const kn_board *b, const kn_pos *p, int from,
                     const char *empty, char *err, size_t errlen) {
  char name[8];
  kn_square_name(b, from, name, sizeof name);
  if (!kn_bit(&p->occ, from)) {
    snprintf(err, errlen, empty, name);
    return -1;
  }
  if (!kn_bit(&b->side[p->stm], from)) {
    snprintf(err, errlen, "not your piece: %s holds a %s piece and %s is to move",
             name, side_name(!p->stm), side_name(p->stm));
    return -1;
  }
  return 0;
}

/*
** Parse move text 's' and, when 'p' is not NULL, check it is legal there.
** Returns 0 and the move in '*m', or -1 with the reason in 'err' (no
** such square, not a square, not your piece, not a straight jump,
** nothing to jump, landing not empty, wrong phase, game over...).
*/
int kn_move_parse(const kn_board *b, const kn_pos *p, const char *s,
                  kn_move *m, char *err, size_t errlen) {
  int sqf[KN_MAX_SIDE + 2], sqr[KN_MAX_SIDE + 2], n = 0;
  const char *t = s;
  char name[8], list[256];
  while (*t == ' ' || *t == '\t') t++;
  if (!*t) {
    snprintf(err, errlen, "empty move");
    return -1;
  }
  for (;;) {
    int f, r, k = read_square(t, &f, &r);
    if (!k) {
      if (*t)
        snprintf(err, errlen,
                 "expected a square (like d5) at character %d, found '%.8s'",
                 (int)(t - s) + 1, t);
      else
        snprintf(err, errlen,
                 "expected a square (like d5) at character %d, found the end of the text",
                 (int)(t - s) + 1);
      return -1;
    }
    if (n == KN_MAX_SIDE + 2) {
      snprintf(err, errlen, "path too long");
      return -1;
    }
    if (f >= b->cols || r < 0 || r >= b->rows) {
      snprintf(err, errlen, "no such square %c%d on this %dx%d board", 'a' + f,
               r + 1, b->rows, b->cols);
      return -1;
    }
    sqf[n] = f;
    sqr[n++] = r;
    t += k;
    if (*t == '-') {
      t++;
      continue;
    }
    if (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r') {
      while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r') t++;
      if (*t) {
        snprintf(err, errlen, "unexpected text after the move at character %d",
                 (int)(t - s) + 1);
        return -1;
      }
    }
    if (!*t) break;
    if (isalpha((unsigned char)*t)) continue; /* "f5b5" */
    snprintf(err, errlen, "unexpected character '%c' at character %d", *t,
             (int)(t - s) + 1);
    return -1;
  }
  int from = sqr[0] * b->cols + sqf[0], to = sqr[n - 1] * b->cols + sqf[n - 1];
  /* a path must go straight, one jump (two squares) per step */
  int df = 0, dr = 0;
  if (n >= 2) {
    df = sqf[n - 1] - sqf[0];
    dr = sqr[n - 1] - sqr[0];
    if ((df && dr) || (!df && !dr)) {
      snprintf(err, errlen, "not a straight jump: jumps go along a rank or a file");
      return -1;
    }
    if ((df + dr) % 2) {
      snprintf(err, errlen,
               "not a jump: a jump moves an even number of squares (two per piece jumped)");
      return -1;
    }
    int sf = df > 0 ? 1 : df < 0 ? -1 : 0, sr = dr > 0 ? 1 : dr < 0 ? -1 : 0;
    for (int i = 1; i < n; i++)
      if (n > 2 && (sqf[i] - sqf[i - 1] != 2 * sf || sqr[i] - sqr[i - 1] != 2 * sr)) {
        snprintf(err, errlen,
                 "bad path: each step of a path is one jump (two squares) in the same direction");
        return -1;
      }
  }
  *m = KN_MOVE(from, n >= 2 ? to : from);
  if (!p) return 0;

  kn_phase ph = kn_pos_phase(b, p);
  kn_move tmp[KN_MAX_MOVES];
  if (kn_gen(b, p, tmp) == 0) {
    snprintf(err, errlen, "the game is over: %s has no legal move",
             side_name(p->stm));
    return -1;
  }
  if (ph != KN_JUMP) {
    kn_bits set;
    removal_set(b, p, ph, &set);
    list_squares(b, &set, list, sizeof list);
    if (n >= 2) {
      snprintf(err, errlen,
               "it is the removal phase: %s removes one of its pieces (%s)",
               side_name(p->stm), list);
      return -1;
    }
    if (check_own(b, p, from, "%s is empty", err, errlen)) return -1;
    kn_square_name(b, from, name, sizeof name);
    if (!kn_bit(&set, from)) {
      snprintf(err, errlen, "%s may not be removed %s (allowed: %s)", name,
               ph == KN_REMOVE1 ? "first" : "now", list);
      return -1;
    }
    return 0;
  }
  if (n < 2) {
    snprintf(err, errlen,
             "it is the jump phase: a move is a jump such as f5-d5, not a removal");
    return -1;
  }
  if (check_own(b, p, from, "no piece on %s", err, errlen)) return -1;
  int step = df ? (df > 0 ? 1 : -1) : (dr > 0 ? b->cols : -b->cols);
  for (int sq = from + step; sq != to + step; sq += 2 * step) {
    kn_square_name(b, sq, name, sizeof name);
    if (!kn_bit(&p->occ, sq)) {
      snprintf(err, errlen, "nothing to jump on %s", name);
      return -1;
    }
    kn_square_name(b, sq + step, name, sizeof name);
    if (kn_bit(&p->occ, sq + step)) {
      snprintf(err, errlen, "%s square %s is not empty",
               sq + step == to ? "landing" : "intermediate", name);
      return -1;
    }
  }
  return 0;
}
