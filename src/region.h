/*
** region.h: Kōnane positions as combinatorial games: any placement of
** pieces (square colours play no part), Left = Black (x), Right = White
** (o); the split into independent regions and a table of region values
** keyed by shape up to translation, the 8 symmetries of the rectangle and
** the colour swap. Plain C11, no globals. See docs/cgt.md.
*/
#ifndef KN_REGION_H
#define KN_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "cgt.h"
#include "konane.h"

enum { CGK_EMPTY = 0, CGK_BLACK = 1, CGK_WHITE = 2 };

/* A placement: cell[rank * cols + file], rank 0 at the bottom (as in
** konane.h's square index). */
typedef struct cgk_pos {
  int rows, cols;
  uint8_t cell[KN_MAX_SQ];
} cgk_pos;

/* Errors of the value computations. */
enum { CGK_OK = 0, CGK_ENOMEM = -1, CGK_EBUDGET = -2, CGK_ESTOP = -3 };

/*
** Position text without the colour check (rules.md's format: ranks from
** the top, x, o, '.', digits, '/'), the side to move optional. 'stm' gets
** KN_BLACK, KN_WHITE or -1 when absent. Returns 0 or -1 with 'err'.
*/
int cgk_parse(const char *text, cgk_pos *p, int *stm, char *err,
              size_t errlen);
/* The ranks of 'p' as position text (no side to move). */
size_t cgk_text(const cgk_pos *p, char *buf, size_t len);
/* The placement of a core position (colours from the square colours). */
void cgk_from_kn(const kn_board *b, const kn_pos *p, cgk_pos *out);
/* The jumps of 'colour' (KN_BLACK or KN_WHITE) in 'p'. */
int cgk_count_moves(const cgk_pos *p, int colour);

typedef struct cgk cgk;

typedef struct cgk_stats {
  uint64_t entries;   /* regions in the table */
  uint64_t lookups;   /* region look-ups */
  uint64_t hits;      /* ... answered by the table */
  uint64_t computed;  /* regions computed (misses) */
} cgk_stats;

/* A value engine over the store 's' (not owned; it must outlive it). */
cgk *cgk_new(cg_store *s);
void cgk_free(cgk *k);
cg_store *cgk_store(cgk *k);
/*
** Limits for the next calls: at most 'budget' region computations per
** call (0: none) and a stop check polled every few hundred (may be NULL).
*/
void cgk_limits(cgk *k, uint64_t budget, const kn_stop *stop);
void cgk_get_stats(const cgk *k, cgk_stats *st);

/* The value of 'p' (the sum of its regions). Returns CGK_OK or an error. */
int cgk_value(cgk *k, const cgk_pos *p, cg_id *out);
/*
** The independent regions of 'p': label[sq] = region index (0-based, in
** order of each region's lowest square) or -1 for an empty square; the
** count in *n and each region's value in 'values' (room for KN_MAX_SQ)
** when not NULL. Returns CGK_OK or an error.
*/
int cgk_regions(cgk *k, const cgk_pos *p, int *label, int *n,
                cg_id *values);

/*
** A solver oracle (solve.h, kn_solve_oracle.fn) over a narrow board: the
** value of the position, within 'budget' region computations per call,
** decides who wins; -1 when over budget, or at once when the board has
** not split (fewer than two connected groups of pieces with a jump) or a
** group is too big. 'ud' is a cgk_oracle_ctx.
*/
typedef struct cgk_oracle_ctx {
  cgk *k;
  uint64_t budget;          /* region computations per call */
  int max_region;           /* skip when a connected group with moves is
                               bigger than this */
  uint64_t calls, decided;  /* counters */
} cgk_oracle_ctx;

int cgk_oracle(void *ud, const kn_board *b, uint64_t occ, int stm);

#endif
