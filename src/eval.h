/*
** eval.h: the built-in static evaluation and its weights.
** Scores are from the side to move's point of view; 100 is worth one
** legal move of mobility difference (see docs/search.md).
*/
#ifndef KN_EVAL_H
#define KN_EVAL_H

#include "konane.h"

/*
** The features, each a difference "side to move minus opponent":
**   mobility  legal moves (each multi-jump stop counts)
**   movers    pieces having at least one jump
**   tempo     a constant for the side to move (parity of the game)
** score = sum(weight * feature). Weights are integers.
*/
typedef struct kn_weights {
  int mobility;
  int movers;
  int tempo;
} kn_weights;

#define KN_NWEIGHTS 3

void kn_weights_default(kn_weights *w);
/* The name of weight 'i' (0 <= i < KN_NWEIGHTS) and a pointer to it. */
const char *kn_weight_name(int i);
int *kn_weight_ref(kn_weights *w, int i);

/* Evaluates 'p' for its side to move; 'mymoves' is the side to move's
** legal move count when the caller knows it, else -1. */
int kn_eval(const kn_board *b, const kn_pos *p, const kn_weights *w,
            int mymoves);

/* Pieces of 'colour' with at least one jump in the jump phase. */
int kn_movers(const kn_board *b, const kn_pos *p, int colour);

#endif
