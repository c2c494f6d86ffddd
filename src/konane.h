/*
** konane.h: the rules core's shared types, limits and interface.
** Plain C11; no Lua, no I/O, no mutable globals.
** See docs/rules.md for the rules this implements.
*/
#ifndef KONANE_H
#define KONANE_H

#include <stddef.h>
#include <stdint.h>

#define KN_VERSION "0.1.0"

/* Board limits: any rectangle from 1x1 to 20x20. */
#define KN_MAX_SIDE 20
#define KN_MAX_SQ (KN_MAX_SIDE * KN_MAX_SIDE)
#define KN_WORDS 7 /* 7 * 64 = 448 >= 400 bits */

/*
** An upper bound on the legal moves of any position. Removals: at most
** one per own piece (<= 200). Jumps: in one direction the paths of two
** movers never overlap and a k-jump path uses k enemy pieces, so each
** direction gives at most (enemy pieces) <= 200 moves: 4 * 200 = 800.
*/
#define KN_MAX_MOVES 800

/* Longest canonical move text: "t20-t18" plus the terminator, rounded. */
#define KN_MOVE_TEXT 16
/* Longest position text: 20 ranks of 20 chars, 19 slashes, " b", NUL. */
#define KN_POS_TEXT (KN_MAX_SQ + KN_MAX_SIDE + 8)

/*
** A set of squares. Square index = rank * cols + file (0-based; a1 = 0,
** b1 = 1, ..., a2 = cols). Bit i of the set is bit (i % 64) of w[i / 64].
**
**   8x8:  bit 63 (h8) ... bit 56 (a8)
**         ...
**         bit 15 (h2) ... bit 8  (a2)
**         bit 7  (h1) ... bit 0  (a1)
**
** Boards of at most 64 squares use w[0] only (the "narrow" fast path);
** the words past the board are always zero.
*/
typedef struct kn_bits {
  uint64_t w[KN_WORDS];
} kn_bits;

enum { KN_BLACK = 0, KN_WHITE = 1 };

/* Directions, in the order the generators use them. */
enum { KN_NORTH = 0, KN_EAST = 1, KN_SOUTH = 2, KN_WEST = 3 };

/* The three phases; they follow from the number of empty squares. */
typedef enum { KN_REMOVE1 = 0, KN_REMOVE2 = 1, KN_JUMP = 2 } kn_phase;

/*
** A move: origin square in bits 0-8, landing square in bits 9-17.
** A removal has origin == landing. The XOR of the occupancy with the
** move's mask (kn_move_mask) plays it, and the same XOR takes it back.
*/
typedef uint32_t kn_move;
#define KN_MOVE(from, to) ((kn_move)(from) | ((kn_move)(to) << 9))
#define KN_FROM(m) ((int)((m)&511u))
#define KN_TO(m) ((int)(((m) >> 9) & 511u))
#define KN_IS_REMOVAL(m) (KN_FROM(m) == KN_TO(m))
#define KN_NOMOVE ((kn_move)0xFFFFFFFFu)

/*
** The board: its shape, precomputed masks, and the opening rules of the
** game's variant as square sets. Fixed for a whole game and shared by its
** clones. 'second' is NULL (the default rule: the mover's pieces
** orthogonally adjacent to the hole) or an array of 'nsq' sets indexed by
** the hole, owned by whoever built the board.
*/
typedef struct kn_board {
  int rows, cols, nsq;
  int narrow;        /* nsq <= 64: one word */
  int delta[4];      /* square index step of each direction */
  kn_bits all;       /* the squares of the board */
  kn_bits side[2];   /* where each colour stands: Black light, White dark */
  kn_bits jump[4];   /* squares p with p + 2*delta[d] on the board */
  kn_bits edge;      /* the squares of the first and last rank and file */
  kn_bits corner;    /* the (up to four) corner squares */
  kn_bits first;     /* squares the first removal may take */
  const kn_bits *second;
} kn_board;

/* A position: the occupied squares and the side to move. */
typedef struct kn_pos {
  kn_bits occ;
  int stm;
} kn_pos;

/* A stop check polled by long computations; nonzero means stop now. */
typedef struct kn_stop {
  int (*fn)(void *ud);
  void *ud;
} kn_stop;

/* ---- square sets (board.c) ---- */
static inline int kn_bit(const kn_bits *b, int sq) {
  return (int)((b->w[sq >> 6] >> (sq & 63)) & 1u);
}
static inline void kn_setbit(kn_bits *b, int sq) {
  b->w[sq >> 6] |= (uint64_t)1 << (sq & 63);
}
static inline void kn_clrbit(kn_bits *b, int sq) {
  b->w[sq >> 6] &= ~((uint64_t)1 << (sq & 63));
}
int kn_bits_count(const kn_bits *b);
int kn_bits_equal(const kn_bits *a, const kn_bits *b);
void kn_bits_clear(kn_bits *b);

/* The signed square step of jump 'm' (origin to first jumped piece). A
** horizontal jump stays within its rank, so from and to share a rank. */
static inline int kn_move_step(const kn_board *b, kn_move m) {
  int from = KN_FROM(m), to = KN_TO(m);
  if (to / b->cols == from / b->cols) return to > from ? 1 : -1;
  return to > from ? b->cols : -b->cols;
}

/* ---- board.c: boards and positions ---- */
int kn_board_init(kn_board *b, int rows, int cols);
void kn_board_default_first(kn_board *b);
int kn_square(const kn_board *b, int file, int rank);
int kn_square_light(int file, int rank);
void kn_pos_start(const kn_board *b, kn_pos *p);
kn_phase kn_pos_phase(const kn_board *b, const kn_pos *p);
int kn_pos_empties(const kn_board *b, const kn_pos *p);
int kn_pos_count(const kn_board *b, const kn_pos *p, int colour);
int kn_pos_valid(const kn_board *b, const kn_pos *p);
int kn_pos_equal(const kn_pos *a, const kn_pos *b);
uint64_t kn_pos_hash(const kn_board *b, const kn_pos *p);
int kn_ranks_parse(const char *text, uint8_t cells[KN_MAX_SIDE][KN_MAX_SIDE], int *rows,
                   int *cols, const char **end, char *err, size_t errlen);
int kn_pos_parse(const char *text, kn_board *b, kn_pos *p, char *err,
                 size_t errlen);
size_t kn_pos_text(const kn_board *b, const kn_pos *p, char *buf,
                   size_t len);

/* Symmetries: ids 0..7 of the dihedral group, filtered by shape/colour. */
#define KN_SYMS 8
int kn_sym_list(const kn_board *b, int ids[KN_SYMS]);
int kn_sym_square(const kn_board *b, int sym, int sq);
void kn_sym_pos(const kn_board *b, int sym, const kn_pos *in, kn_pos *out);
int kn_sym_board_ok(const kn_board *b, int sym);

/* ---- move.c: notation ---- */
size_t kn_square_name(const kn_board *b, int sq, char *buf, size_t len);
int kn_square_parse(const kn_board *b, const char *s, int *sq, char *err,
                    size_t errlen);
size_t kn_move_text(const kn_board *b, kn_move m, char *buf, size_t len);
int kn_move_parse(const kn_board *b, const kn_pos *p, const char *s,
                  kn_move *m, char *err, size_t errlen);
void kn_move_mask(const kn_board *b, kn_move m, kn_bits *mask);

/* ---- movegen.c: legal moves, make/unmake ---- */
int kn_gen(const kn_board *b, const kn_pos *p, kn_move *moves);
int kn_count(const kn_board *b, const kn_pos *p);
int kn_count_side(const kn_board *b, const kn_pos *p, int colour);
void kn_sort_moves(kn_move *moves, int n);
int kn_is_legal(const kn_board *b, const kn_pos *p, kn_move m);
void kn_make(const kn_board *b, kn_pos *p, kn_move m);
void kn_unmake(const kn_board *b, kn_pos *p, kn_move m);
/*
** Narrow fast path (b->narrow, jump phase only): fill 'masks' with the XOR
** mask of every jump of 'stm' in the occupancy 'occ' (and 'moves', when
** not NULL, with the moves), returning how many; kn_count64 only counts.
*/
int kn_gen64(const kn_board *b, uint64_t occ, int stm, uint64_t *masks,
             kn_move *moves);
int kn_count64(const kn_board *b, uint64_t occ, int stm);
/* Any board, jump phase only: the jumps of 'stm' in the occupancy words
** 'occ', stored in 'moves' or only counted when 'moves' is NULL. */
int kn_jumps_wide(const kn_board *b, const uint64_t *occ, int stm,
                  kn_move *moves);

/* ---- perft.c ---- */
/* Returns the leaf count, or UINT64_MAX when 'stop' asked to stop. */
uint64_t kn_perft(const kn_board *b, const kn_pos *p, int depth,
                  const kn_stop *stop);

#endif
