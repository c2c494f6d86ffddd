/*
** eval.h: the built-in static evaluation, its features and weights.
** Scores are from the side to move's point of view; 100 is worth one
** legal move of mobility difference (see docs/search.md).
*/
#ifndef KN_EVAL_H
#define KN_EVAL_H

#include "konane.h"

/*
** The features, each a difference "side to move minus opponent" (tempo
** is 1 for the side to move):
**   mobility   legal moves (each multi-jump stop counts)
**   movers     pieces having at least one jump
**   tempo      a constant for the side to move (parity of the game)
**   safe       single jumps the opponent cannot take away with its next
**              move: the mover cannot be jumped, the jumped piece cannot
**              move away, the landing square cannot be taken
**   attacked   movers the opponent can jump over next move
**   potential  jumps blocked only by an occupied landing square
** score = sum(weight * feature). Weights are integers. The last three are
** computed in the jump phase of boards of up to 64 squares (0 elsewhere).
*/
enum {
  KN_F_MOBILITY,
  KN_F_MOVERS,
  KN_F_TEMPO,
  KN_F_SAFE,
  KN_F_ATTACKED,
  KN_F_POTENTIAL,
  KN_NWEIGHTS
};

typedef struct kn_weights {
  int w[KN_NWEIGHTS];
} kn_weights;

void kn_weights_default(kn_weights *w);
/* The name of weight 'i' (0 <= i < KN_NWEIGHTS), NULL past the end. */
const char *kn_weight_name(int i);
int *kn_weight_ref(kn_weights *w, int i);

/* Fills 'f' with the features of 'p' for its side to move; 'mymoves' is
** the side to move's legal move count when the caller knows it, else -1. */
void kn_features(const kn_board *b, const kn_pos *p, int mymoves,
                 int f[KN_NWEIGHTS]);

/* Evaluates 'p' for its side to move (sum of weight * feature). */
int kn_eval(const kn_board *b, const kn_pos *p, const kn_weights *w,
            int mymoves);

/* kn_eval of the narrow (b->narrow) jump-phase position ('occ', 'stm'),
** at least two squares empty, with the side to move's legal move count
** in '*moves' (0: it has lost, the score means nothing): the search's
** horizon in one pass over each colour's jumps, every feature included
** (the safe jumps only when weighted). */
int kn_eval64(const kn_board *b, uint64_t occ, int stm, const kn_weights *w,
              int *moves);

/* Pieces of 'colour' with at least one jump in the jump phase. */
int kn_movers(const kn_board *b, const kn_pos *p, int colour);

#endif
