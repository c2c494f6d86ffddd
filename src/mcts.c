/*
** mcts.c: UCT with uniformly random playouts and proof propagation
** (MCTS-Solver): a node whose side to move has no move is a proved
** loss; a proved child win proves its parent, and all children proved
** losses prove the parent's win. Selection never enters a child proved
** lost for its mover unless nothing else is left, so a single winning
** move is found as soon as its subtree is proved.
**
** The tree is an array of nodes (indices, so it can grow by realloc);
** the children of a node are contiguous.
*/
#include "mcts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POLL 16
#define DEFAULT_MAX_NODES ((size_t)2 << 20)

typedef struct mnode {
  uint64_t mask;     /* narrow XOR mask of 'move' */
  kn_move move;      /* the move leading here */
  uint32_t child;    /* first child index; 0: not expanded */
  uint32_t visits;
  float wins;        /* wins of the side that played 'move' */
  uint16_t nchild;
  int8_t proven;     /* +1: the side that played 'move' wins; -1 loses */
  uint8_t expanded;
} mnode;

typedef struct mctx {
  const kn_board *b;
  mnode *t;
  size_t n, cap, max;
  uint64_t rng;
  uint64_t plies;
  uint64_t mk[KN_MAX_MOVES];
  kn_move mv[KN_MAX_MOVES];
} mctx;

void kn_mcts_opts_default(kn_mcts_opts *o) {
  memset(o, 0, sizeof *o);
  o->c = KN_MCTS_C;
}

static inline void play(const kn_board *b, kn_pos *p, kn_move m,
                        uint64_t mask) {
  if (b->narrow) {
    p->occ.w[0] ^= mask;
    p->stm ^= 1;
  } else {
    kn_make(b, p, m);
  }
}

/*
** A random game from 'p' to its end; returns the winner (the side that
** made the last move). Narrow jump positions run on the word alone.
*/
static int playout(mctx *s, kn_pos *p) {
  const kn_board *b = s->b;
  for (;;) {
    int n;
    if (b->narrow && kn_pos_phase(b, p) == KN_JUMP) break;
    n = kn_gen_masks(b, p, s->mv, s->mk);
    if (n == 0) return p->stm ^ 1;
    {
      uint32_t i = kn_rand_below(&s->rng, (uint32_t)n);
      play(b, p, s->mv[i], s->mk[i]);
      s->plies++;
    }
  }
  {
    uint64_t occ = p->occ.w[0], plies = 0;
    int stm = p->stm, n;
    while ((n = kn_gen64(b, occ, stm, s->mk, NULL)) != 0) {
      occ ^= s->mk[kn_rand_below(&s->rng, (uint32_t)n)];
      stm ^= 1;
      plies++;
    }
    s->plies += plies;
    return stm ^ 1;
  }
}

/* Adds the children of node 'i' (position 'p'); returns -1 when the tree
** is full (the node stays a leaf), else the number of children. */
static int expand(mctx *s, size_t i, const kn_pos *p) {
  int n = kn_gen_masks(s->b, p, s->mv, s->mk), j;
  if (n == 0) {
    s->t[i].expanded = 1;
    s->t[i].proven = 1; /* the side to move here has lost */
    return 0;
  }
  if (s->n + (size_t)n > s->max) return -1;
  if (s->n + (size_t)n > s->cap) {
    size_t cap = s->cap * 2;
    mnode *t;
    while (cap < s->n + (size_t)n) cap *= 2;
    if (cap > s->max) cap = s->max;
    t = realloc(s->t, cap * sizeof *t);
    if (!t) return -1;
    s->t = t;
    s->cap = cap;
  }
  s->t[i].child = (uint32_t)s->n;
  s->t[i].nchild = (uint16_t)n;
  s->t[i].expanded = 1;
  for (j = 0; j < n; j++) {
    mnode *c = &s->t[s->n + (size_t)j];
    memset(c, 0, sizeof *c);
    c->move = s->mv[j];
    c->mask = s->mk[j];
  }
  s->n += (size_t)n;
  return n;
}

/* UCT choice among the children of 'i' (expanded, not proved): a child
** proved won for its mover at once, then unvisited children in order,
** then the best upper confidence bound among the unproved. */
static size_t select_child(const mctx *s, size_t i, double c) {
  const mnode *nd = &s->t[i];
  size_t j, first = nd->child, best = first, lastlost = first;
  double bv = -1e300, lg = log((double)(nd->visits + 1));
  int any = 0;
  for (j = first; j < first + nd->nchild; j++) {
    const mnode *ch = &s->t[j];
    double v;
    if (ch->proven > 0) return j;
    if (ch->proven < 0) {
      lastlost = j;
      continue;
    }
    if (ch->visits == 0) return j;
    v = ch->wins / ch->visits + c * sqrt(lg / ch->visits);
    if (v > bv) {
      bv = v;
      best = j;
      any = 1;
    }
  }
  return any ? best : lastlost;
}

/* Re-derives the proof state of expanded node 'i' from its children. */
static void update_proof(mctx *s, size_t i) {
  mnode *nd = &s->t[i];
  size_t j;
  int all_lost = nd->nchild > 0;
  if (!nd->expanded || nd->proven) return;
  for (j = nd->child; j < nd->child + nd->nchild; j++) {
    if (s->t[j].proven > 0) {
      nd->proven = -1; /* the side to move here has a winning move */
      return;
    }
    if (s->t[j].proven == 0) all_lost = 0;
  }
  if (all_lost) nd->proven = 1;
}

int kn_mcts(const kn_board *b, const kn_pos *p, const kn_mcts_opts *o,
            kn_mcts_result *r) {
  mctx *s;
  double t0 = kn_clock(), deadline = 0, c = o->c >= 0 ? o->c : KN_MCTS_C;
  size_t path[2 * KN_MAX_SQ + 8];
  uint64_t it = 0;

  memset(r, 0, sizeof *r);
  r->move = KN_NOMOVE;
  r->proven = -1;
  if (o->lim.time > 0) deadline = t0 + o->lim.time;
  else if (o->lim.nodes == 0) deadline = t0 + 1.0;
  s = calloc(1, sizeof *s);
  if (!s) return -1;
  s->b = b;
  s->rng = o->seed;
  s->max = o->max_nodes ? o->max_nodes : DEFAULT_MAX_NODES;
  if (s->max < 1 + KN_MAX_MOVES) s->max = 1 + KN_MAX_MOVES;
  if (s->max > UINT32_MAX) s->max = UINT32_MAX;
  s->cap = 4096;
  s->t = calloc(s->cap, sizeof *s->t);
  if (!s->t) {
    free(s);
    return -1;
  }
  s->n = 1;
  if (expand(s, 0, p) <= 0) goto out; /* no legal move (or no room) */

  for (;;) {
    kn_pos q = *p;
    size_t i = 0;
    int depth = 0, winner;
    /* 1. Limits (and a root already proved). */
    if (o->lim.nodes && it >= o->lim.nodes) break;
    if (it % POLL == 0) {
      if (deadline > 0 && kn_clock() >= deadline) {
        r->stopped = KN_STOP_LIMIT;
        break;
      }
      if (o->lim.stop.fn && o->lim.stop.fn(o->lim.stop.ud)) {
        r->stopped = KN_STOP_USER;
        break;
      }
    }
    if (s->t[0].proven) break;
    it++;
    /* 2. Selection down to a leaf or a proved node. */
    path[depth++] = 0;
    while (s->t[i].expanded && s->t[i].nchild && !s->t[i].proven) {
      i = select_child(s, i, c);
      play(b, &q, s->t[i].move, s->t[i].mask);
      path[depth++] = i;
    }
    /* 3. Expansion and one playout (a proved node needs none). */
    if (s->t[i].proven) {
      winner = s->t[i].proven > 0 ? q.stm ^ 1 : q.stm;
    } else {
      int e = expand(s, i, &q);
      if (e > 0) {
        i = select_child(s, i, c);
        play(b, &q, s->t[i].move, s->t[i].mask);
        path[depth++] = i;
      }
      if (e == 0) {
        winner = q.stm ^ 1;
      } else {
        kn_pos z = q;
        winner = playout(s, &z);
      }
    }
    /* 4. Back-propagation; the mover into path[d] is the side to move at
    ** path[d-1]. Walk down from the root tracking that side. */
    {
      int d, mover = p->stm ^ 1; /* "mover" into the root */
      for (d = 0; d < depth; d++) {
        mnode *nd = &s->t[path[d]];
        nd->visits++;
        if (mover == winner) nd->wins += 1.0f;
        mover ^= 1;
      }
      for (d = depth - 1; d >= 0; d--) update_proof(s, path[d]);
    }
  }

out:
  /* The answer: a proved win, else the most visited (then best rate)
  ** child; a proved loss still returns the most visited move. */
  if (s->t[0].nchild) {
    size_t j, best = s->t[0].child;
    for (j = s->t[0].child; j < s->t[0].child + s->t[0].nchild; j++) {
      const mnode *ch = &s->t[j], *bc = &s->t[best];
      if (ch->proven > 0) {
        best = j;
        break;
      }
      if (bc->proven < 0 && ch->proven >= 0) {
        best = j;
        continue;
      }
      if (ch->proven < 0 && bc->proven >= 0) continue;
      if (ch->visits > bc->visits ||
          (ch->visits == bc->visits && ch->visits &&
           ch->wins / ch->visits > bc->wins / bc->visits))
        best = j;
    }
    r->move = s->t[best].move;
    r->visits = s->t[best].visits;
    r->winrate = s->t[best].visits ? s->t[best].wins / s->t[best].visits
                                   : 0.0;
    if (s->t[best].proven > 0) r->winrate = 1.0;
  }
  if (s->t[0].proven) r->proven = s->t[0].proven < 0 ? 1 : 0;
  else if (s->t[0].expanded && s->t[0].nchild == 0) r->proven = 0;
  r->playouts = it;
  r->plies = s->plies;
  r->nodes = s->n;
  r->time = kn_clock() - t0;
  free(s->t);
  free(s);
  return 0;
}
