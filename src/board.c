/*
** board.c: board shapes, positions, position text and symmetries.
** A position is the set of occupied squares plus the side to move; the
** colour of a piece is the colour of its square (see konane.h).
*/
#include <stdio.h>
#include <string.h>

#include "konane.h"

int kn_bits_count(const kn_bits *b) {
  int n = 0;
  for (int i = 0; i < KN_WORDS; i++) n += __builtin_popcountll(b->w[i]);
  return n;
}

int kn_bits_equal(const kn_bits *a, const kn_bits *b) {
  return memcmp(a->w, b->w, sizeof a->w) == 0;
}

void kn_bits_clear(kn_bits *b) { memset(b, 0, sizeof *b); }

/* Square colour: (file + rank) even is dark (White), odd is light (Black). */
int kn_square_light(int file, int rank) { return (file + rank) & 1; }

/* The index of ('file', 'rank'), or -1 when off the board. */
int kn_square(const kn_board *b, int file, int rank) {
  if (file < 0 || rank < 0 || file >= b->cols || rank >= b->rows) return -1;
  return rank * b->cols + file;
}

/*
** Fill 'b' for a 'rows' x 'cols' board: the square sets and the jump
** masks. The opening rules are left empty ('first' = nothing, 'second' =
** the default adjacency); the caller sets them. Returns 0, or -1 when the
** shape is out of range.
*/
int kn_board_init(kn_board *b, int rows, int cols) {
  memset(b, 0, sizeof *b);
  if (rows < 1 || cols < 1 || rows > KN_MAX_SIDE || cols > KN_MAX_SIDE)
    return -1;
  b->rows = rows;
  b->cols = cols;
  b->nsq = rows * cols;
  b->narrow = b->nsq <= 64;
  b->delta[KN_NORTH] = cols;
  b->delta[KN_EAST] = 1;
  b->delta[KN_SOUTH] = -cols;
  b->delta[KN_WEST] = -1;
  for (int r = 0; r < rows; r++)
    for (int f = 0; f < cols; f++) {
      int sq = r * cols + f;
      kn_setbit(&b->all, sq);
      kn_setbit(&b->side[kn_square_light(f, r) ? KN_BLACK : KN_WHITE], sq);
      if (r + 2 < rows) kn_setbit(&b->jump[KN_NORTH], sq);
      if (f + 2 < cols) kn_setbit(&b->jump[KN_EAST], sq);
      if (r >= 2) kn_setbit(&b->jump[KN_SOUTH], sq);
      if (f >= 2) kn_setbit(&b->jump[KN_WEST], sq);
      if (r == 0 || f == 0 || r == rows - 1 || f == cols - 1)
        kn_setbit(&b->edge, sq);
      if ((r == 0 || r == rows - 1) && (f == 0 || f == cols - 1))
        kn_setbit(&b->corner, sq);
    }
  return 0;
}

/* The "free" opening: the first removal may take any square. */
void kn_board_default_first(kn_board *b) { b->first = b->all; }

/* The full board, Black to move. */
void kn_pos_start(const kn_board *b, kn_pos *p) {
  p->occ = b->all;
  p->stm = KN_BLACK;
}

int kn_pos_empties(const kn_board *b, const kn_pos *p) {
  return b->nsq - kn_bits_count(&p->occ);
}

kn_phase kn_pos_phase(const kn_board *b, const kn_pos *p) {
  int e = kn_pos_empties(b, p);
  return e == 0 ? KN_REMOVE1 : e == 1 ? KN_REMOVE2 : KN_JUMP;
}

int kn_pos_count(const kn_board *b, const kn_pos *p, int colour) {
  int n = 0;
  for (int i = 0; i < KN_WORDS; i++)
    n += __builtin_popcountll(p->occ.w[i] & b->side[colour].w[i]);
  return n;
}

/* Invariant check: occupancy inside the board, side to move 0 or 1. */
int kn_pos_valid(const kn_board *b, const kn_pos *p) {
  for (int i = 0; i < KN_WORDS; i++)
    if (p->occ.w[i] & ~b->all.w[i]) return 0;
  return p->stm == KN_BLACK || p->stm == KN_WHITE;
}

int kn_pos_equal(const kn_pos *a, const kn_pos *b) {
  return a->stm == b->stm && kn_bits_equal(&a->occ, &b->occ);
}

/* A 64-bit hash of the position (exact on narrow boards up to the mix). */
uint64_t kn_pos_hash(const kn_board *b, const kn_pos *p) {
  uint64_t h = (uint64_t)p->stm * 0x9E3779B97F4A7C15u;
  int nw = (b->nsq + 63) / 64;
  for (int i = 0; i < nw; i++) {
    h ^= p->occ.w[i] + 0x9E3779B97F4A7C15u + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9u;
    h ^= h >> 31;
  }
  return h;
}

static void set_err(char *err, size_t errlen, const char *fmt, int a, int b,
                    int c) {
  if (err && errlen) snprintf(err, errlen, fmt, a, b, c);
}

/*
** Read the ranks of position text 'text' (rules.md: ranks top to bottom
** separated by '/', 'x' Black, 'o' White, digits or '.' for empty squares)
** into 'cells' ([row from the top][file]: 0 empty, 1 Black, 2 White) and
** '*rows', '*cols'. Leading blanks are skipped; the ranks end at a space, a
** tab, a new line or the end of the text, where '*end' is left. Returns 0,
** or -1 with a message in 'err' naming the rank and the character. No
** colour check: kn_pos_parse does that, konane.cgt accepts any placement.
*/
int kn_ranks_parse(const char *text, uint8_t cells[KN_MAX_SIDE][KN_MAX_SIDE], int *rows,
                   int *cols, const char **end, char *err, size_t errlen) {
  int row = 0, col = 0, width = -1;
  const char *s = text;
  if (!text) {
    set_err(err, errlen, "no position text", 0, 0, 0);
    return -1;
  }
  while (*s == ' ' || *s == '\t') s++;
  for (;; s++) {
    char c = *s;
    int pos = (int)(s - text) + 1;
    if (c == '/' || c == ' ' || c == '\0' || c == '\t' || c == '\n') {
      if (col == 0) {
        set_err(err, errlen, "empty rank %d (counting from the top) at character %d",
                row + 1, pos, 0);
        return -1;
      }
      if (width < 0) width = col;
      else if (col != width) {
        set_err(err, errlen,
                "rank %d from the top has %d squares, the first rank has %d",
                row + 1, col, width);
        return -1;
      }
      row++;
      col = 0;
      if (c != '/') break;
      if (row >= KN_MAX_SIDE) {
        set_err(err, errlen, "more than %d ranks", KN_MAX_SIDE, 0, 0);
        return -1;
      }
      continue;
    }
    if (c >= '0' && c <= '9') {
      int n = 0;
      if (c == '0') {
        set_err(err, errlen, "rank %d from the top: a run of empty squares cannot start with 0 (character %d)",
                row + 1, pos, 0);
        return -1;
      }
      while (*s >= '0' && *s <= '9') {
        n = n * 10 + (*s - '0');
        if (n > KN_MAX_SIDE) break;
        s++;
      }
      s--;
      if (col + n > KN_MAX_SIDE) {
        set_err(err, errlen, "rank %d from the top is longer than %d squares (character %d)",
                row + 1, KN_MAX_SIDE, pos);
        return -1;
      }
      for (int i = 0; i < n; i++) cells[row][col++] = 0;
      continue;
    }
    if (c == 'x' || c == 'o' || c == '.') {
      if (col >= KN_MAX_SIDE) {
        set_err(err, errlen, "rank %d from the top is longer than %d squares (character %d)",
                row + 1, KN_MAX_SIDE, pos);
        return -1;
      }
      cells[row][col++] = c == 'x' ? 1 : c == 'o' ? 2 : 0;
      continue;
    }
    if (err && errlen) {
      if ((unsigned char)c >= 32 && (unsigned char)c < 127)
        snprintf(err, errlen,
                 "rank %d from the top: unexpected character '%c' at character %d "
                 "(expected x, o, ., a digit, / or a space)",
                 row + 1, c, pos);
      else
        snprintf(err, errlen,
                 "rank %d from the top: unexpected byte 0x%02x at character %d",
                 row + 1, (unsigned char)c, pos);
    }
    return -1;
  }
  *rows = row;
  *cols = width;
  *end = s;
  return 0;
}

/*
** Parse position text 'text' (the ranks as kn_ranks_parse reads them, then
** a space and 'b' or 'w'). On success fills 'b' (shape; opening rules
** empty) and 'p' and returns 0. On failure returns -1 with a message in
** 'err' naming the rank (as on the board) or the character position that
** is wrong.
*/
int kn_pos_parse(const char *text, kn_board *b, kn_pos *p, char *err,
                 size_t errlen) {
  uint8_t cells[KN_MAX_SIDE][KN_MAX_SIDE]; /* [row from top][file] */
  int rows, cols;
  const char *s;
  if (kn_ranks_parse(text, cells, &rows, &cols, &s, err, errlen)) return -1;
  /* side to move */
  while (*s == ' ' || *s == '\t') s++;
  if (*s != 'b' && *s != 'w') {
    set_err(err, errlen,
            *s && *s != '\n' && *s != '\r'
                ? "side to move must be 'b' or 'w' (character %d)"
                : "missing side to move ('b' or 'w') after the ranks (character %d)",
            (int)(s - text) + 1, 0, 0);
    return -1;
  }
  int stm = *s == 'b' ? KN_BLACK : KN_WHITE;
  s++;
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  if (*s) {
    set_err(err, errlen, "unexpected text after the side to move (character %d)",
            (int)(s - text) + 1, 0, 0);
    return -1;
  }
  if (kn_board_init(b, rows, cols) != 0) {
    set_err(err, errlen, "board %dx%d is out of range (1x1 to 20x20)", rows,
            cols, 0);
    return -1;
  }
  kn_bits_clear(&p->occ);
  p->stm = stm;
  for (int r = 0; r < rows; r++)
    for (int f = 0; f < cols; f++) {
      int v = cells[r][f], rank = rows - 1 - r;
      if (!v) continue;
      int light = kn_square_light(f, rank);
      if ((v == 1) != (light == 1)) {
        if (err && errlen)
          snprintf(err, errlen,
                   "rank %d, file %c: %s piece on a %s square (Black stands on "
                   "light squares, White on dark ones)",
                   rank + 1, 'a' + f, v == 1 ? "a Black" : "a White",
                   light ? "light" : "dark");
        return -1;
      }
      kn_setbit(&p->occ, rank * cols + f);
    }
  return 0;
}

/* Write the position text of 'p' into 'buf'; returns its length. */
size_t kn_pos_text(const kn_board *b, const kn_pos *p, char *buf,
                   size_t len) {
  char tmp[KN_POS_TEXT];
  size_t n = 0;
  for (int r = b->rows - 1; r >= 0; r--) {
    int run = 0;
    for (int f = 0; f < b->cols; f++) {
      int sq = r * b->cols + f;
      if (!kn_bit(&p->occ, sq)) {
        run++;
        continue;
      }
      if (run) n += (size_t)sprintf(tmp + n, "%d", run);
      run = 0;
      tmp[n++] = kn_square_light(f, r) ? 'x' : 'o';
    }
    if (run) n += (size_t)sprintf(tmp + n, "%d", run);
    if (r) tmp[n++] = '/';
  }
  tmp[n++] = ' ';
  tmp[n++] = p->stm == KN_BLACK ? 'b' : 'w';
  tmp[n] = '\0';
  if (len) {
    size_t c = n < len - 1 ? n : len - 1;
    memcpy(buf, tmp, c);
    buf[c] = '\0';
  }
  return n;
}

/*
** Symmetries. Id bits: 1 = mirror files, 2 = mirror ranks, 4 = transpose
** (swap file and rank, square boards only). Applied as transpose first,
** then the mirrors. A symmetry is usable when it maps the board onto
** itself and keeps every square's colour.
*/
int kn_sym_square(const kn_board *b, int sym, int sq) {
  int f = sq % b->cols, r = sq / b->cols;
  if (sym & 4) {
    int t = f;
    f = r;
    r = t;
  }
  if (sym & 1) f = b->cols - 1 - f;
  if (sym & 2) r = b->rows - 1 - r;
  return r * b->cols + f;
}

int kn_sym_board_ok(const kn_board *b, int sym) {
  if ((sym & 4) && b->rows != b->cols) return 0;
  /* colour kept iff the parity change is even for every square */
  for (int r = 0; r < b->rows && r < 2; r++)
    for (int f = 0; f < b->cols && f < 2; f++) {
      int sq = kn_sym_square(b, sym, r * b->cols + f);
      int f2 = sq % b->cols, r2 = sq / b->cols;
      if (kn_square_light(f, r) != kn_square_light(f2, r2)) return 0;
    }
  return 1;
}

/* The usable symmetries of 'b' (identity first); returns how many. */
int kn_sym_list(const kn_board *b, int ids[KN_SYMS]) {
  int n = 0;
  for (int s = 0; s < KN_SYMS; s++)
    if (kn_sym_board_ok(b, s)) ids[n++] = s;
  return n;
}

void kn_sym_pos(const kn_board *b, int sym, const kn_pos *in, kn_pos *out) {
  kn_pos t;
  kn_bits_clear(&t.occ);
  t.stm = in->stm;
  for (int sq = 0; sq < b->nsq; sq++)
    if (kn_bit(&in->occ, sq)) kn_setbit(&t.occ, kn_sym_square(b, sym, sq));
  *out = t;
}
