/*
** solve.c: the exact solver. A boolean negamax ("does the side to move
** win?") over the XOR masks of narrow boards, with:
**   - a transposition table keyed by the canonical occupancy (the least
**     image under the board's colour-preserving symmetries), storing
**     only proved results, so every hit ends the node; one 64-bit word
**     an entry, eight to a cache line (below);
**   - immediate wins: a move after which the opponent cannot move;
**   - ordering by the opponent's mobility after the move (fewest first,
**     ties broken by our own mobility), the strongest cheap predictor of
**     a win in Konane (a third fewer nodes than the opponent's alone);
**     from 20 pieces up also by a small mobility minimax after the move
**     (the opponent's best reply, from 24 pieces also our best answer);
**   - a killer move per ply as a tie-breaker;
**   - enhanced transposition cutoffs near the root, where a child already
**     proved lost in the table saves a whole subtree;
**   - with several threads, the root's children after the first are
**     shared out whole (rootwork); below, young brothers wait: a node
**     whose first child failed hands its other children to idle threads
**     (split points), and a proved child cuts the others off.
** Wide boards and the removal phases go through the generic core.
*/
#include "solve.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "both8.h"
#include "eval.h"

#define POLL 4096
/* Positions with fewer pieces than this are not worth a table entry. */
#ifndef TT_MIN_PIECES
#define TT_MIN_PIECES 5
#endif
/* The last winning move at the same ply counts as half a reply fewer
** (worth ~15% of the nodes on 6x6; more than one reply makes it worse). */
#define KILLER_BONUS 128
/* From this many pieces up, the order also weighs each move by the
** opponent's best reply to it (a two-ply look at the mobility difference,
** TWO_PLY_WEIGHT per move of difference; 256 is one reply in the key):
** 10-19% fewer nodes on 6x6 and two 6x7 positions for a move count per
** child and reply at each such node. From 18 or 16 pieces: a few percent
** fewer nodes again, but slower (the counts cost more than they save);
** weights 96 and 192 win on some positions and lose on others
** (docs/search.md, seventh session). */
#ifndef TWO_PLY_MIN_PIECES
#define TWO_PLY_MIN_PIECES 20
#endif
#ifndef TWO_PLY_WEIGHT
#define TWO_PLY_WEIGHT 128
#endif
/* From this many pieces up the look goes one ply further: the opponent's
** reply and our best answer to it (three plies with the move). Where the
** nodes are few and their subtrees big the better order pays for its
** counts many times: 6x6 brainking 3.88 M -> 3.09 M nodes, 6x6 free
** 7.78 M -> 6.36 M, 6x7 P2 52.7 M -> 32.7 M, P1 115.5 M -> 93.7 M (from
** 26 or 22: fewer savings or more counts; four plies from 28-30: better
** on 6x7, far worse on 6x6; docs/search.md, eighth session). */
#ifndef THREE_PLY_MIN_PIECES
#define THREE_PLY_MIN_PIECES 24
#endif
/* Enhanced transposition cutoffs at nodes with at least this many pieces:
** from 18, 8% more nodes than from 14 but 5-13% less time on 6x6 (each
** cutoff test fetches every child's table bucket: memory latency is what
** the solver waits for most). */
#ifndef ETC_MIN_PIECES
#define ETC_MIN_PIECES 18
#endif
/*
** Threads: a node with SPLIT_MIN_PIECES to SPLIT_MAX_PIECES pieces whose
** first SPLIT_AFTER children did not prove the win offers the others to
** idle threads (a split point); above SPLIT_MAX_PIECES, only after
** SPLIT_AFTER_HIGH children (0: never). High up, a child handed out
** while a later one is about to prove the node is a big subtree searched
** for nothing, and the owner offers work lower down soon enough anyway.
** Tuned on 6x6 free and brainking with 2 threads (docs/search.md).
*/
#ifndef SPLIT_MIN_PIECES
#define SPLIT_MIN_PIECES 14
#endif
#ifndef SPLIT_MAX_PIECES
#define SPLIT_MAX_PIECES 26
#endif
#ifndef SPLIT_AFTER
#define SPLIT_AFTER 1
#endif
#ifndef SPLIT_AFTER_HIGH
#define SPLIT_AFTER_HIGH 3
#endif
/* Pause instructions an idle thread spins before it sleeps (about a
** millisecond: sleeping and waking cost tens of microseconds, more than
** many of the subtrees handed out). */
#ifndef SPIN
#define SPIN 20000
#endif
/* s->stop value of a thread whose split point (or one above it) has been
** decided by another thread: unwind to it without storing. */
#define STOP_CUT 100

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define STORE(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

/*
** A split point: a narrow jump node whose first child is done without
** proving the win, its other children handed out one at a time to the
** threads that join (young brothers wait). The first child found lost
** for the opponent proves the node; 'cut' then tells everyone below to
** unwind. Its owner keeps one per ply (vctx.splits), in use until every
** helper has left.
*/
typedef struct split {
  struct split *parent;    /* the split point the owner works under */
  struct split *link;      /* the list of open split points, under 'mu' */
  uint64_t occ;
  int stm, ply, n;
  int helpers;             /* threads in it besides the owner, under 'mu' */
  _Atomic int next;        /* the next child to hand out */
  _Atomic int cut;         /* a child proved the node won */
  uint64_t mk[KN_MAX_MOVES];
} split;

/*
** The root's children after the first, shared out whole (several
** threads, narrow boards): each thread takes the next child and solves
** it alone, so the threads work in different subtrees with nothing to
** wait for, instead of meeting at split points high up (a split point
** there hands out work that a proved sibling may make useless). A
** child that is symmetric to an earlier one is not handed out: it has
** that child's result. The root is decided when the first child in the
** order that is lost for the opponent is known with every child before
** it, or when every child is known; 'sp' is then cut, which stops the
** children still searched. The threads that find no child left help at
** the split points of the others.
*/
typedef struct rootwork {
  split sp;                /* cut once the root is decided */
  const kn_pos *p;
  const kn_move *mv;
  int n;
  int next;                /* the next child to hand out, under 'mu' */
  int busy;                /* children being solved, under 'mu' */
  int decided;             /* -1: not yet, else the root's result */
  int winner;              /* the winning child when decided == 1 */
  int *dup;                /* per child: the earlier symmetric child, or -1 */
  signed char *res;        /* per child: 1 won / 0 lost for the opponent, -1 */
} rootwork;

/*
** What the threads of one kn_solve share. The calling thread searches;
** the helpers wait for split points and take children from them. An
** owner whose children are all handed out waits for its helpers and,
** meanwhile, helps at split points below its own.
*/
typedef struct shared {
  const kn_board *b;
  kn_tt *tt;
  _Atomic uint64_t *tw;    /* the table's words (narrow boards; NULL: none) */
  uint64_t tmask;          /* its bucket count - 1 */
  uint64_t smask;          /* the few pieces' region's bucket count - 1 */
  const kn_limits *lim;
  int nsym;                /* non-identity symmetries in 'sym' */
  int nbytes;              /* bytes of the occupancy word in use */
  uint64_t (*sym)[8][256]; /* per symmetry, per byte: the image bits */
  uint64_t *sqimg;         /* per square, KN_SYMS words: its images */
  int nthreads;
  double deadline;         /* kn_clock seconds, <= 0: none */
  /* Read at every node, written seldom: a line of their own, so that the
  ** writes below (locks, idle counts, node reports) do not make every
  ** node of the other threads miss it. */
  _Alignas(64) _Atomic int stop; /* a limit or the user: every thread unwinds */
  _Atomic unsigned cuts;   /* split points decided so far (cut_seen) */
  _Alignas(64) _Atomic uint64_t nodes; /* nodes reported by the threads' polls */
  _Alignas(64) _Atomic int idle; /* threads waiting for work */
  _Alignas(64) pthread_mutex_t mu;
  pthread_cond_t wake;     /* a split point opened or a helper left one */
  split *open;             /* split points taking helpers, under 'mu' */
  struct rootwork *root;   /* the root's children on offer, under 'mu' */
  _Atomic unsigned events; /* bumped with each broadcast of 'wake' */
  int quit;
} shared;

/* The per-thread context. */
typedef struct vctx {
  shared *sh;
  const kn_board *b;
  kn_tt *tt;
  int id;                  /* 0: the calling thread */
  int cap;                 /* masks per ply of 'mk' */
  int maxply;
  uint64_t *mk;
  int *key;
  uint64_t *killer;        /* per ply: the last winning move's mask */
  uint64_t *img;           /* per ply, KN_SYMS words: the node's images */
  uint64_t nodes, nextpoll, reported;
  int stop;
  split *sp;               /* the innermost split point this thread is in */
  unsigned seen;           /* sh->cuts when 'sp' and above were last checked */
  split *splits;           /* per ply: the split point this thread owns */
  pthread_t th;
  int started;
  const kn_solve_oracle *oracle; /* the calling thread's, or NULL */
} vctx;

/* Polls the limits: the calling thread alone runs the stop callback (it
** may not be thread-safe); any thread may see the node limit. */
static void poll_limits(vctx *s) {
  shared *sh = s->sh;
  s->nextpoll = s->nodes + POLL;
  if (sh->nthreads == 1) {
    kn_limits_poll(sh->lim, sh->deadline, &s->stop);
    return;
  }
  uint64_t total = atomic_fetch_add(&sh->nodes, s->nodes - s->reported) +
                   (s->nodes - s->reported);
  s->reported = s->nodes;
  int st = 0;
  if (sh->lim->nodes && total >= sh->lim->nodes) st = KN_STOP_LIMIT;
  if (s->id == 0) kn_limits_poll(sh->lim, sh->deadline, &st);
  if (st && !LOAD(sh->stop)) STORE(sh->stop, st);
}

/* Whether 'sp' or a split point above it has been decided. */
static inline int cut_off(split *sp) {
  for (; sp; sp = sp->parent)
    if (LOAD(sp->cut)) return 1;
  return 0;
}

/* Makes 'sp' the thread's innermost split point; the next node checks it
** and those above it. */
static inline void set_sp(vctx *s, split *sp) {
  s->sp = sp;
  s->seen = LOAD(s->sh->cuts) - 1;
}

/* Marks 'sp' decided: every thread below it unwinds. sh->cuts tells them
** to look (released after the mark, so a thread that sees the count sees
** the mark). */
static inline void cut_split(shared *sh, split *sp) {
  STORE(sp->cut, 1);
  atomic_fetch_add_explicit(&sh->cuts, 1, memory_order_release);
}

/* Counts a node and checks the limits (every POLL nodes), the shared stop
** flag and, when a split point somewhere has been decided since the last
** look, the split points above (several threads: walking them at every
** node reads lines that the other threads write); returns nonzero when
** stopped. */
static inline int count_node(vctx *s) {
  shared *sh = s->sh;
  s->nodes++;
  if (sh->nthreads == 1) {
    if (sh->lim->nodes && s->nodes >= sh->lim->nodes) s->stop = KN_STOP_LIMIT;
  } else {
    int st = LOAD(sh->stop);
    unsigned c;
    if (st) s->stop = st;
    else if ((c = atomic_load_explicit(&sh->cuts, memory_order_acquire)) !=
             s->seen) {
      s->seen = c;
      if (cut_off(s->sp)) s->stop = STOP_CUT;
    }
  }
  if (s->nodes >= s->nextpoll) {
    poll_limits(s);
    if (sh->nthreads > 1 && LOAD(sh->stop)) s->stop = LOAD(sh->stop);
  }
  return s->stop;
}

/*
** Sorts moves by ascending key 'k' (insertion sort: the lists are short),
** stable, carrying along the masks 'mk' and the moves 'mv' (either may be
** NULL; the function is inlined, so the NULL arm disappears).
*/
static inline void sort_moves(int *k, uint64_t *mk, kn_move *mv, int n) {
  int i;
  for (i = 1; i < n; i++) {
    uint64_t m = mk ? mk[i] : 0;
    kn_move v = mv ? mv[i] : 0;
    int kk = k[i], j = i - 1;
    while (j >= 0 && k[j] > kk) {
      if (mk) mk[j + 1] = mk[j];
      if (mv) mv[j + 1] = mv[j];
      k[j + 1] = k[j];
      j--;
    }
    if (mk) mk[j + 1] = m;
    if (mv) mv[j + 1] = v;
    k[j + 1] = kk;
  }
}

/* The canonical key of a narrow occupancy: its least symmetric image. */
static inline uint64_t canon(const shared *sh, uint64_t occ) {
  uint64_t best = occ;
  int i, j;
  for (i = 0; i < sh->nsym; i++) {
    uint64_t img = 0, x = occ;
    for (j = 0; j < sh->nbytes; j++, x >>= 8) img |= sh->sym[i][j][x & 255];
    if (img < best) best = img;
  }
  return best;
}

/* The symmetric images of a narrow occupancy, into 'im' (sh->nsym words). */
static inline void images(const shared *sh, uint64_t occ, uint64_t *im) {
  int i, j;
  for (i = 0; i < sh->nsym; i++) {
    uint64_t img = 0, x = occ;
    for (j = 0; j < sh->nbytes; j++, x >>= 8) img |= sh->sym[i][j][x & 255];
    im[i] = img;
  }
}

/* The images 'out' of the occupancy 'occ' ^ 'mk' from those of 'occ' ('im'):
** an image of a XOR is the XOR of the images, and a move's mask has a few
** bits (three for a single jump), so a bit's images from a table are
** cheaper than the byte tables over the whole occupancy. One image (boards
** of unequal sides: a mirror keeps the colours) and three (even squares)
** are written out, in registers. */
static inline __attribute__((always_inline)) void
images_after(const shared *sh, const uint64_t *im, uint64_t mk,
             uint64_t *out) {
  const uint64_t *t = sh->sqimg;
  int i;
  if (sh->nsym == 1) {
    uint64_t a = im[0];
    for (; mk; mk &= mk - 1) a ^= t[(size_t)__builtin_ctzll(mk) * KN_SYMS];
    out[0] = a;
  } else if (sh->nsym == 3) {
    uint64_t a = im[0], b = im[1], c = im[2];
    for (; mk; mk &= mk - 1) {
      const uint64_t *q = t + (size_t)__builtin_ctzll(mk) * KN_SYMS;
      a ^= q[0], b ^= q[1], c ^= q[2];
    }
    out[0] = a, out[1] = b, out[2] = c;
  } else if (sh->nsym) {
    for (i = 0; i < sh->nsym; i++) out[i] = im[i];
    for (; mk; mk &= mk - 1) {
      const uint64_t *q = t + (size_t)__builtin_ctzll(mk) * KN_SYMS;
      for (i = 0; i < sh->nsym; i++) out[i] ^= q[i];
    }
  }
}

/* KN_SELFCHECK (make asan): every image a node was handed by its parent
** (images_after) is checked against the byte tables; a wrong image would
** only lose transpositions or, worse, make two positions share a key. */
#ifdef KN_SELFCHECK
static void check_images(const shared *sh, uint64_t occ, const uint64_t *im) {
  uint64_t want[KN_SYMS];
  int i;
  images(sh, occ, want);
  for (i = 0; i < sh->nsym; i++)
    if (want[i] != im[i]) {
      fprintf(stderr, "solve: image %d of %016llx is %016llx, not %016llx\n", i,
              (unsigned long long)occ, (unsigned long long)im[i],
              (unsigned long long)want[i]);
      abort();
    }
}
#define CHECK_IMAGES(sh, occ, im) check_images(sh, occ, im)
#else
#define CHECK_IMAGES(sh, occ, im) ((void)0)
#endif

/* The least of 'occ' and its images 'im': the canonical key. */
static inline uint64_t least(const shared *sh, uint64_t occ,
                             const uint64_t *im) {
  int i;
  for (i = 0; i < sh->nsym; i++)
    if (im[i] < occ) occ = im[i];
  return occ;
}

/*
** The table on narrow boards: one 64-bit word an entry, eight to a
** 64-byte bucket of the kn_tt's memory (kn_tt_claim KN_TT_WORDS): twice
** the entries of kn_tt's 16-byte slots in the same memory, one cache line
** a probe. h = a bijective mix of the canonical key (salted by the side to
** move) picks the bucket by its low bits; the word holds h's bits 8-63,
** a valid bit, the side to move, the result and log2 of the subtree's
** size (the replacement priority). With at least 256 buckets the bucket
** holds h's bits 0-7, so a word matches one position only: hits are exact,
** and one word cannot be torn by another thread's store. Smaller tables
** (under 16 KB) are not used.
*/
#define W_DEPTH 31u
#define W_WIN 32u
#define W_STM 64u
#define W_VALID 128u
#define W_BUCKET 8

/*
** Positions of fewer than SMALL_MAX_PIECES pieces (most of the nodes, and
** most of the probes) keep to the table's first buckets, at most
** SMALL_BYTES: a region this virtual machine keeps in its cache (a random
** line of 2 MB 21-24 ns, of 16 MB 160-210 ns; 4 MB stays, 8 MB not).
** Positions of more pieces use the whole table. A position always maps to
** the same region, and both masks keep h's low 8 bits in the bucket's
** index, so hits stay exact. A few percent faster: 6x7 free two threads
** 0.94-1.01 of the time in five pairs (0.8% more nodes), 6x6 brainking and
** free one thread 6 pairs of 6 faster each (docs/search.md, sixteenth
** session).
*/
#ifndef SMALL_MAX_PIECES
#define SMALL_MAX_PIECES 14
#endif
#ifndef SMALL_BYTES
#define SMALL_BYTES (2u << 20)
#endif

/* The bucket mask for a position of 'pieces' pieces. */
static inline uint64_t wt_mask(const shared *sh, int pieces) {
  return pieces < SMALL_MAX_PIECES ? sh->smask : sh->tmask;
}

/* The entry hash of ('key', 'stm'): murmur3's finaliser, a bijection. */
static inline uint64_t wt_hash(uint64_t key, int stm) {
  return kn_tt_keyhash(key ^ (stm ? 0x9E3779B97F4A7C15ull : 0));
}

static inline uint64_t wt_tag(uint64_t h, int stm) {
  return (h & ~(uint64_t)255) | W_VALID | (stm ? W_STM : 0);
}

static inline void wt_prefetch(const shared *sh, uint64_t h, int pieces) {
#if defined(__GNUC__) || defined(__clang__)
  if (sh->tw)
    __builtin_prefetch((const void *)(sh->tw + (h & wt_mask(sh, pieces)) * W_BUCKET));
#else
  (void)sh, (void)h, (void)pieces;
#endif
}

/*
** With AVX-512 a bucket's eight words are compared at once (wt_probe,
** wt_store): the scalar loops below, a compare and a branch a word, cost
** 13% of the solver's instructions, on the path from the table line's
** arrival to the node's next step. The words are still read one atomic
** load each (a vector load of them would race with other threads' stores
** in C11's terms), then put in one register; the lanes decide exactly as
** the loops do.
*/
#if defined(__AVX512F__)
#define W_VECTOR 1
/* The bucket's eight words in one register, word i in lane i. */
static inline __m512i wt_bucket(const _Atomic uint64_t *e) {
  return _mm512_set_epi64((long long)LOAD(e[7]), (long long)LOAD(e[6]),
                          (long long)LOAD(e[5]), (long long)LOAD(e[4]),
                          (long long)LOAD(e[3]), (long long)LOAD(e[2]),
                          (long long)LOAD(e[1]), (long long)LOAD(e[0]));
}
#else
#define W_VECTOR 0
#endif
/* A word's bits that name its position (all but the result and size). */
#define W_KEYBITS ((long long)~(uint64_t)(W_WIN | W_DEPTH))

/* 1 when ('h', 'stm') is proved won, 0 when lost, -1 when not in the
** table ('pieces': the position's, for its region). */
static inline int wt_probe(const shared *sh, uint64_t h, int stm, int pieces) {
  const _Atomic uint64_t *e;
  uint64_t tag = wt_tag(h, stm);
  if (!sh->tw) return -1;
  e = sh->tw + (h & wt_mask(sh, pieces)) * W_BUCKET;
#if W_VECTOR
  {
    __m512i v = wt_bucket(e);
    __mmask8 m = _mm512_cmpeq_epi64_mask(
        _mm512_and_si512(v, _mm512_set1_epi64(W_KEYBITS)),
        _mm512_set1_epi64((long long)tag));
    if (!m) return -1;
    return _mm512_mask_test_epi64_mask(m, v, _mm512_set1_epi64(W_WIN)) != 0;
  }
#else
  for (int i = 0; i < W_BUCKET; i++) {
    uint64_t x = LOAD(e[i]);
    if ((x & ~(uint64_t)(W_WIN | W_DEPTH)) == tag) return (x & W_WIN) != 0;
  }
  return -1;
#endif
}

/* A lost entry counts this many doublings of its subtree more when a
** victim is chosen: it proves its parent won at a glance (the cutoff
** probes) and cost every child's search. 6x7 free 1.152 G -> 1.132 G
** nodes, P1 93.7 M -> 91.1 M, P2 32.7 M -> 32.0 M, 6x6 within 0.2%; 1, 2
** or 3 save less (docs/search.md, ninth session). */
#ifndef W_LOST_BONUS
#define W_LOST_BONUS 5
#endif

/* Stores a proved result over the same position's entry, else over the
** entry of the smallest subtree (an empty one first; lost entries count
** W_LOST_BONUS more). */
static inline void wt_store(shared *sh, uint64_t h, int stm, int win,
                            int depth, int pieces) {
  _Atomic uint64_t *e;
  uint64_t tag = wt_tag(h, stm);
  int v = 0;
  if (!sh->tw) return;
  e = sh->tw + (h & wt_mask(sh, pieces)) * W_BUCKET;
  if (depth > (int)W_DEPTH) depth = W_DEPTH;
#if W_VECTOR
  {
    /* The first word of the same position, else the first of the least
    ** value (the loop's rule): empty -1, won depth, lost depth + bonus. */
    __m512i q = wt_bucket(e), val;
    __mmask8 m = _mm512_cmpeq_epi64_mask(
        _mm512_and_si512(q, _mm512_set1_epi64(W_KEYBITS)),
        _mm512_set1_epi64((long long)tag));
    if (!m) {
      __mmask8 valid = _mm512_test_epi64_mask(q, _mm512_set1_epi64(W_VALID));
      __mmask8 won = _mm512_test_epi64_mask(q, _mm512_set1_epi64(W_WIN));
      val = _mm512_and_si512(q, _mm512_set1_epi64(W_DEPTH));
      val = _mm512_mask_add_epi64(val, (__mmask8)(valid & ~won), val,
                                  _mm512_set1_epi64(W_LOST_BONUS));
      val = _mm512_mask_mov_epi64(_mm512_set1_epi64(-1), valid, val);
      m = _mm512_cmpeq_epi64_mask(val, _mm512_set1_epi64(_mm512_reduce_min_epi64(val)));
    }
    v = __builtin_ctz(m);
  }
#else
  int best = 1 << 30;
  for (int i = 0; i < W_BUCKET; i++) {
    uint64_t x = LOAD(e[i]);
    int val = !(x & W_VALID) ? -1
              : x & W_WIN    ? (int)(x & W_DEPTH)
                             : (int)(x & W_DEPTH) + W_LOST_BONUS;
    if ((x & ~(uint64_t)(W_WIN | W_DEPTH)) == tag) {
      v = i;
      break;
    }
    if (val < best) {
      best = val;
      v = i;
    }
  }
#endif
  STORE(e[v], tag | (win ? W_WIN : 0) | (uint64_t)depth);
}

/* log2 of a subtree size: the replacement priority of its entry. */
static inline int work_depth(uint64_t n) {
  int d = 0;
  while (n > 1) {
    n >>= 1;
    d++;
  }
  return d;
}

/*
** A mobility minimax for the move ordering: the value for 't' to move in
** the narrow jump position 'occ', 'd' plies deep (alpha-beta within
** ('alpha', 'beta')), a leaf scored as t's moves minus the opponent's, a
** side without a move -1000 (it has lost). With d = 1 after our move it
** is the opponent's best reply by the difference it leaves; with d = 2
** our best answer to each reply too (d >= 1). Called with the full window,
** the value is exact however the leaves are batched.
*/
static int look(const kn_board *b, uint64_t occ, int t, int d, int alpha,
                int beta) {
  uint64_t mv[KN_MAX_MOVES];
  int n, i, best = -1000;
  n = kn_gen64(b, occ, t, mv, NULL);
  /* The leaves, KN_BOTH_LANES at a time (both8.h). */
  if (d == 1) return kn_look_leaves(b, occ, mv, n, t ^ 1, beta);
  for (i = 0; i < n && best < beta; i++) {
    int v = -look(b, occ ^ mv[i], t ^ 1, d - 1, -beta,
                  -(best > alpha ? best : alpha));
    if (v > best) best = v;
  }
  return best;
}

static int solve64(vctx *s, uint64_t occ, int stm, int ply, int have);
static int split_search(vctx *s, uint64_t occ, int stm, int ply,
                        const uint64_t *mk, int first, int n);

/*
** Narrow jump-phase solver: 1 when 'stm' to move in 'occ' wins, else 0
** (also 0 when s->stop is set; the caller checks it before trusting).
** 'have': the caller has put occ's symmetric images at s->img's 'ply'
** (else they are computed here when needed).
*/
static int solve64(vctx *s, uint64_t occ, int stm, int ply, int have) {
  const kn_board *b = s->b;
  uint64_t *mk = s->mk + (size_t)ply * s->cap, h = 0, start, kil;
  uint64_t *im = s->img + (size_t)ply * KN_SYMS, *cim = im + KN_SYMS;
  uint64_t ck[KN_MAX_MOVES];
  int *k = s->key + (size_t)ply * s->cap;
  int n, i, pieces, usett, par, after;

  if (count_node(s)) return 0;

  /* 1. Moves; none loses. The table bucket loads meanwhile. The children
  ** get their images from ours (usett: we have them). */
  pieces = kn_popcount(occ);
  usett = pieces >= TT_MIN_PIECES;
  if (usett) {
    if (!have) images(s->sh, occ, im);
    else CHECK_IMAGES(s->sh, occ, im);
    h = wt_hash(least(s->sh, occ, im), stm);
    wt_prefetch(s->sh, h, pieces);
  }
  n = kn_gen64(b, occ, stm, mk, NULL);
  if (n == 0) return 0;

  /* 2. Immediate wins: a move leaving the opponent without a reply.
  ** (Positions won this way are never stored, so this comes first.)
  ** Fewest replies first: 256 a reply, 8 an opponent's piece able to
  ** jump; among equals, weigh our moves left and our pieces able to jump
  ** (more is better), then the killer. Tuned on node counts: 6x6
  ** brainking 8.6 M -> 4.3 M nodes, 6x6 free 12.7 M -> 8.2 M, 5x6 free
  ** 289 K -> 298 K, against the opponent's and our mobility alone. Both
  ** sides' counts come from one pass (kn_both64x: 5% less time than a
  ** pass per side, the same nodes), made before the probe, though a hit
  ** makes them useless: the table's line arrives meanwhile. */
  kil = s->killer[ply];
  if (kn_order_keys(b, occ, mk, n, stm, k)) return 1;
  for (i = 0; i < n; i++)
    if (mk[i] == kil) k[i] -= KILLER_BONUS;
  if (n == 1) {
    if (usett) images_after(s->sh, im, mk[0], cim);
    return !solve64(s, occ ^ mk[0], stm ^ 1, ply + 1, usett);
  }

  /* 3. The table: proved results only, so a hit is final. */
  if (usett) {
    int w = wt_probe(s->sh, h, stm, pieces);
    if (w >= 0) return w;
  }
  if (s->oracle && pieces <= s->oracle->max_pieces) {
    int w = s->oracle->fn(s->oracle->ud, b, occ, stm);
    if (w >= 0) {
      if (usett) wt_store(s->sh, h, stm, w, 0, pieces);
      return w;
    }
  }

  /* 4. Sort by the opponent's mobility (high up, and by the look). */
  if (pieces >= TWO_PLY_MIN_PIECES) {
    int d = pieces >= THREE_PLY_MIN_PIECES ? 2 : 1;
    for (i = 0; i < n; i++)
      k[i] += TWO_PLY_WEIGHT * look(b, occ ^ mk[i], stm ^ 1, d, -2000, 2000);
  }
  sort_moves(k, mk, NULL, n);

  /* 5. Enhanced transposition cutoffs: a child already proved lost. */
  after = pieces <= SPLIT_MAX_PIECES ? SPLIT_AFTER : SPLIT_AFTER_HIGH;
  par = s->sh->nthreads > 1 && pieces >= SPLIT_MIN_PIECES && after > 0 &&
        n > after + 1;
  if (pieces >= ETC_MIN_PIECES) {
    for (i = 0; i < n; i++) {
      images_after(s->sh, im, mk[i], cim);
      ck[i] = wt_hash(least(s->sh, occ ^ mk[i], cim), stm ^ 1);
      wt_prefetch(s->sh, ck[i], pieces - 1);
    }
  }
  if (pieces >= ETC_MIN_PIECES) {
    for (i = 0; i < n; i++) {
      if (wt_probe(s->sh, ck[i], stm ^ 1, pieces - 1) == 0) {
        wt_store(s->sh, h, stm, 1, 0, pieces);
        return 1;
      }
    }
  }

  /* 6. Recurse: a child the opponent loses proves the win. With several
  ** threads and an idle one, the children after the first go to a split
  ** point. */
  start = s->nodes;
  for (i = 0; i < n; i++) {
    int w;
    if (i >= after && par && LOAD(s->sh->idle) > 0) {
      w = split_search(s, occ, stm, ply, mk, i, n);
      if (s->stop) return 0;
      if (w) goto won;
      break;
    }
    if (usett) images_after(s->sh, im, mk[i], cim);
    w = solve64(s, occ ^ mk[i], stm ^ 1, ply + 1, usett);
    if (s->stop) return 0;
    if (!w) {
      s->killer[ply] = mk[i];
    won:
      if (usett) wt_store(s->sh, h, stm, 1, work_depth(s->nodes - start), pieces);
      return 1;
    }
  }
  if (usett) wt_store(s->sh, h, stm, 0, work_depth(s->nodes - start), pieces);
  return 0;
}

/* Works at 'sp': takes its children one at a time until none is left,
** the node is proved (then sets 'cut') or this thread must stop. */
static void split_work(vctx *s, split *sp) {
  for (;;) {
    int i, w;
    if (s->stop || LOAD(sp->cut)) return;
    i = atomic_fetch_add_explicit(&sp->next, 1, memory_order_relaxed);
    if (i >= sp->n) return;
    w = solve64(s, sp->occ ^ sp->mk[i], sp->stm ^ 1, sp->ply + 1, 0);
    if (s->stop) return;
    if (!w) {
      s->killer[sp->ply] = sp->mk[i];
      cut_split(s->sh, sp);
      return;
    }
  }
}

/* An open split point with children left, under 'below' when that is not
** NULL (the highest such, for the biggest work); under sh->mu. */
static split *find_open(shared *sh, split *below) {
  split *sp, *best = NULL;
  for (sp = sh->open; sp; sp = sp->link) {
    split *up = sp;
    if (LOAD(sp->next) >= sp->n || LOAD(sp->cut)) continue;
    if (below) {
      while (up && up != below) up = up->parent;
      if (!up) continue;
    }
    if (!best || sp->ply < best->ply) best = sp;
  }
  return best;
}

/* Waits (under sh->mu) for a broadcast of sh->wake, spinning a while
** first (SPIN), counted in sh->idle meanwhile. */
static void wait_event(shared *sh) {
  unsigned e = LOAD(sh->events);
  int i;
  atomic_fetch_add(&sh->idle, 1);
  pthread_mutex_unlock(&sh->mu);
  for (i = 0; i < SPIN && LOAD(sh->events) == e; i++) cpu_relax();
  pthread_mutex_lock(&sh->mu);
  if (LOAD(sh->events) == e && !sh->quit) pthread_cond_wait(&sh->wake, &sh->mu);
  atomic_fetch_sub(&sh->idle, 1);
}

/* Wakes the waiting threads (under sh->mu). */
static void signal_event(shared *sh) {
  atomic_fetch_add(&sh->events, 1);
  pthread_cond_broadcast(&sh->wake);
}

/* Joins 'sp' (under sh->mu, which it releases while working and takes
** back), works there, and leaves; the caller's own split point is 'home'
** (NULL for a helper): a cut at or below 'sp' but not at 'home' or above
** is not this thread's concern any more. */
static void split_join(vctx *s, split *sp, split *home) {
  shared *sh = s->sh;
  sp->helpers++;
  pthread_mutex_unlock(&sh->mu);
  set_sp(s, sp);
  split_work(s, sp);
  set_sp(s, home);
  if (s->stop == STOP_CUT && !cut_off(home)) s->stop = 0;
  pthread_mutex_lock(&sh->mu);
  if (--sp->helpers == 0) signal_event(sh);
}

/*
** The children first..n-1 of the node ('occ', 'stm') at 'ply', whose masks
** are 'mk', searched by this thread and any that join: 1 when one of them
** is lost for the opponent, else 0 (also 0 with s->stop set when stopped,
** STOP_CUT when a split point above was decided meanwhile).
*/
static int split_search(vctx *s, uint64_t occ, int stm, int ply,
                        const uint64_t *mk, int first, int n) {
  shared *sh = s->sh;
  split *sp = &s->splits[ply], **pp;
  sp->parent = s->sp;
  sp->occ = occ, sp->stm = stm, sp->ply = ply, sp->n = n;
  sp->helpers = 0;
  atomic_init(&sp->next, first);
  atomic_init(&sp->cut, 0);
  memcpy(sp->mk, mk, (size_t)n * sizeof *mk);
  pthread_mutex_lock(&sh->mu);
  sp->link = sh->open;
  sh->open = sp;
  signal_event(sh);
  pthread_mutex_unlock(&sh->mu);

  set_sp(s, sp);
  split_work(s, sp);
  if (s->stop == STOP_CUT && !cut_off(sp->parent)) s->stop = 0;

  /* Close it; help below it until the helpers are out. */
  pthread_mutex_lock(&sh->mu);
  for (pp = &sh->open; *pp != sp; pp = &(*pp)->link) {
  }
  *pp = sp->link;
  while (sp->helpers > 0) {
    split *j = s->stop ? NULL : find_open(sh, sp);
    if (j) {
      split_join(s, j, sp);
      continue;
    }
    wait_event(sh);
  }
  pthread_mutex_unlock(&sh->mu);
  set_sp(s, sp->parent);
  if (s->stop == STOP_CUT && !cut_off(sp->parent)) s->stop = 0;
  if (!s->stop && LOAD(sh->stop)) s->stop = LOAD(sh->stop);
  if (!s->stop && cut_off(sp->parent)) s->stop = STOP_CUT;
  return s->stop ? 0 : LOAD(sp->cut);
}

static int solve_any(vctx *s, kn_pos *p, int ply, kn_move *best);

/* Under sh->mu: decides the root of 'rw' where its children's results
** allow (the first child lost for the opponent, with every one before it
** known; or every child known) and then cuts its split point. */
static void root_update(shared *sh, rootwork *rw) {
  int i;
  if (rw->decided >= 0) return;
  for (i = 0; i < rw->n; i++) {
    int v = rw->res[rw->dup[i] >= 0 ? rw->dup[i] : i];
    if (v < 0) return;
    if (v == 0) {
      rw->decided = 1;
      rw->winner = i;
      cut_split(sh, &rw->sp);
      return;
    }
  }
  rw->decided = 0;
}

/* Under sh->mu (released while solving): takes the next child of the
** root in 'rw' and solves it alone (split points below it open to idle
** threads as anywhere); 0 when there is none to take. */
static int root_take(vctx *s, rootwork *rw) {
  shared *sh = s->sh;
  kn_pos q;
  int i, w;
  while (rw->next < rw->n && rw->dup[rw->next] >= 0) rw->next++;
  if (rw->decided >= 0 || rw->next >= rw->n || LOAD(sh->stop)) return 0;
  i = rw->next++;
  rw->busy++;
  pthread_mutex_unlock(&sh->mu);
  q = *rw->p;
  kn_make(s->b, &q, rw->mv[i]);
  s->stop = 0;
  set_sp(s, &rw->sp);
  w = solve_any(s, &q, 1, NULL);
  set_sp(s, NULL);
  pthread_mutex_lock(&sh->mu);
  if (!s->stop) rw->res[i] = (signed char)w;
  else if (s->stop == STOP_CUT) s->stop = 0; /* the root is decided */
  else if (!LOAD(sh->stop)) STORE(sh->stop, s->stop); /* out of memory */
  rw->busy--;
  root_update(sh, rw);
  signal_event(sh);
  return 1;
}

/*
** The calling thread at the root 'p' of a solve with several threads on
** a narrow board, its first child 'mv'[0] done and won for the opponent:
** the children 'mv'[1..n-1] are shared out whole (rootwork). Returns 1
** when the root is won (the first winning child in the order in
** '*winner', as one thread finds it), else 0 (with s->stop set when the
** solve was stopped).
*/
static int root_split(vctx *s, const kn_pos *p, const kn_move *mv, int n,
                      int *winner) {
  shared *sh = s->sh;
  rootwork rw;
  uint64_t *key = malloc((size_t)n * sizeof *key);
  int i, j;

  memset(&rw, 0, sizeof rw);
  rw.dup = malloc((size_t)n * sizeof *rw.dup);
  rw.res = malloc((size_t)n);
  if (!key || !rw.dup || !rw.res) {
    free(key), free(rw.dup), free(rw.res);
    s->stop = KN_STOP_ERROR;
    return 0;
  }
  for (i = 0; i < n; i++) {
    kn_pos q = *p;
    kn_make(s->b, &q, mv[i]);
    key[i] = canon(sh, q.occ.w[0]); /* exact: every child has one side to move */
    rw.dup[i] = -1;
    rw.res[i] = -1;
    for (j = 0; j < i && rw.dup[i] < 0; j++)
      if (key[j] == key[i]) rw.dup[i] = j;
  }
  free(key);
  rw.res[0] = 1;
  atomic_init(&rw.sp.next, 0);
  atomic_init(&rw.sp.cut, 0);
  rw.p = p, rw.mv = mv, rw.n = n;
  rw.next = 1;
  rw.decided = -1;

  pthread_mutex_lock(&sh->mu);
  root_update(sh, &rw);
  sh->root = &rw;
  signal_event(sh);
  while (rw.decided < 0 || rw.busy > 0) {
    split *sp;
    if (root_take(s, &rw)) continue;
    if (rw.decided < 0 && rw.busy == 0) break; /* stopped */
    sp = rw.decided < 0 && !s->stop ? find_open(sh, NULL) : NULL;
    if (sp) {
      split_join(s, sp, NULL);
      continue;
    }
    wait_event(sh);
  }
  sh->root = NULL;
  pthread_mutex_unlock(&sh->mu);
  free(rw.dup), free(rw.res);
  if (rw.decided < 0) {
    if (!s->stop) s->stop = LOAD(sh->stop) ? LOAD(sh->stop) : KN_STOP_ERROR;
    return 0;
  }
  s->stop = 0;
  *winner = rw.winner;
  return rw.decided;
}

/* A helper thread: joins open split points until told to quit. */
static void *helper_run(void *arg) {
  vctx *s = (vctx *)arg;
  shared *sh = s->sh;
  pthread_mutex_lock(&sh->mu);
  while (!sh->quit) {
    split *j;
    if (sh->root && root_take(s, sh->root)) continue;
    j = find_open(sh, NULL);
    if (j) {
      s->stop = 0;
      split_join(s, j, NULL);
      continue;
    }
    wait_event(sh);
  }
  pthread_mutex_unlock(&sh->mu);
  return NULL;
}

/* Stores a result of solve_any: in the words on narrow boards (where 'key'
** is the entry hash; 'pieces' the position's), else in kn_tt's slots. */
static void any_store(vctx *s, uint64_t key, int stm, kn_move m, int win,
                      int depth, int pieces) {
  if (s->b->narrow) wt_store(s->sh, key, stm, win, depth, pieces);
  else kn_tt_store(s->tt, key, stm, m, win ? 1 : -1, depth, KN_TT_EXACT);
}

/*
** Any board, any phase: 1 when the side to move of 'p' wins, else 0
** (0 with s->stop set when stopped). Narrow jump positions go to solve64.
** If 'best' is not NULL it receives a winning move (or the first move
** when lost).
*/
static int solve_any(vctx *s, kn_pos *p, int ply, kn_move *best) {
  const kn_board *b = s->b;
  kn_move *mv;
  uint64_t key, start;
  int n, i, *k, pieces = b->narrow ? kn_popcount(p->occ.w[0]) : 0;

  if (best) *best = KN_NOMOVE;
  if (!best && b->narrow && kn_pos_phase(b, p) == KN_JUMP)
    return solve64(s, p->occ.w[0], p->stm, ply, 0);

  if (count_node(s)) return 0;

  mv = malloc(KN_MAX_MOVES * sizeof *mv);
  k = malloc(KN_MAX_MOVES * sizeof *k);
  if (!mv || !k) {
    free(mv), free(k);
    s->stop = KN_STOP_ERROR;
    return 0;
  }
  n = kn_gen(b, p, mv);
  kn_sort_moves(mv, n);
  if (n == 0) goto lost;
  if (best) *best = mv[0];

  /* Order by the opponent's mobility; an immediate win ends here. */
  for (i = 0; i < n; i++) {
    kn_make(b, p, mv[i]);
    k[i] = kn_count(b, p);
    kn_unmake(b, p, mv[i]);
    if (k[i] == 0) {
      if (best) *best = mv[i];
      free(mv), free(k);
      return 1;
    }
  }
  sort_moves(k, NULL, mv, n);
  if (best) *best = mv[0];

  key = b->narrow ? wt_hash(canon(s->sh, p->occ.w[0]), p->stm)
                  : kn_pos_hash(b, p);
  if (!best) {
    kn_tt_entry e;
    int w = b->narrow ? wt_probe(s->sh, key, p->stm, pieces)
            : kn_tt_probe(s->tt, key, p->stm, &e) ? e.score > 0
                                                   : -1;
    if (w >= 0) {
      free(mv), free(k);
      return w;
    }
  }
  start = s->nodes;
  for (i = 0; i < n; i++) {
    int w;
    if (i == 1 && best && b->narrow && s->sh->nthreads > 1) {
      int j = 0;
      w = root_split(s, p, mv, n, &j);
      if (s->stop) break;
      if (w) {
        *best = mv[j];
        any_store(s, key, p->stm, mv[j], 1, work_depth(s->nodes - start), pieces);
        free(mv), free(k);
        return 1;
      }
      break;
    }
    kn_make(b, p, mv[i]);
    w = solve_any(s, p, ply + 1, NULL);
    kn_unmake(b, p, mv[i]);
    if (s->stop) break;
    if (!w) {
      if (best) *best = mv[i];
      any_store(s, key, p->stm, mv[i], 1, work_depth(s->nodes - start), pieces);
      free(mv), free(k);
      return 1;
    }
  }
  if (!s->stop)
    any_store(s, key, p->stm, KN_NOMOVE, 0, work_depth(s->nodes - start), pieces);
lost:
  free(mv), free(k);
  return 0;
}

/* Builds the byte tables of the non-identity symmetries (narrow only). */
static int build_syms(shared *s) {
  const kn_board *b = s->b;
  int ids[KN_SYMS], n = kn_sym_list(b, ids), i, j, v, bit;
  s->nbytes = (b->nsq + 7) / 8;
  s->nsym = 0;
  if (n <= 1) return 0;
  s->sym = calloc((size_t)(n - 1), sizeof *s->sym);
  s->sqimg = calloc((size_t)b->nsq * KN_SYMS, sizeof *s->sqimg);
  if (!s->sym || !s->sqimg) return -1;
  for (j = 0; j < b->nsq; j++)
    for (i = 1; i < n; i++)
      s->sqimg[(size_t)j * KN_SYMS + i - 1] = (uint64_t)1
                                              << kn_sym_square(b, ids[i], j);
  for (i = 1; i < n; i++)
    for (j = 0; j < s->nbytes; j++)
      for (v = 0; v < 256; v++) {
        uint64_t img = 0;
        for (bit = 0; bit < 8; bit++) {
          int sq = j * 8 + bit;
          if ((v >> bit) & 1 && sq < b->nsq)
            img |= (uint64_t)1 << kn_sym_square(b, ids[i], sq);
        }
        s->sym[i - 1][j][v] = img;
      }
  s->nsym = n - 1;
  return 0;
}

/* Allocates the move stacks of a thread context; -1 when out of memory. */
static int ctx_init(vctx *s, shared *sh, const kn_pos *p, int id) {
  memset(s, 0, sizeof *s);
  s->sh = sh;
  s->b = sh->b;
  s->tt = sh->tt;
  s->id = id;
  s->nextpoll = POLL;
  s->maxply = kn_bits_count(&p->occ) + 4;
  if (!sh->b->narrow) return 0;
  s->cap = 2 * sh->b->nsq + 8;
  s->mk = malloc((size_t)s->maxply * s->cap * sizeof *s->mk);
  /* kn_order_keys writes whole lanes: up to KN_BOTH_LANES - 1 past n */
  s->key = malloc(((size_t)s->maxply * s->cap + KN_BOTH_LANES) * sizeof *s->key);
  s->killer = calloc((size_t)s->maxply, sizeof *s->killer);
  s->img = malloc(((size_t)s->maxply + 1) * KN_SYMS * sizeof *s->img);
  if (sh->nthreads > 1) {
    s->splits = malloc((size_t)s->maxply * sizeof *s->splits);
    if (!s->splits) return -1;
  }
  return s->mk && s->key && s->killer && s->img ? 0 : -1;
}

static void ctx_free(vctx *s) {
  free(s->mk), free(s->key), free(s->killer), free(s->img), free(s->splits);
}

int kn_solve(const kn_board *b, const kn_pos *p, kn_tt *tt,
             const kn_limits *lim, kn_solve_result *r) {
  return kn_solve_threads(b, p, tt, lim, 1, r);
}

static int solve_run(const kn_board *b, const kn_pos *p, kn_tt *tt,
                     const kn_limits *lim, int nthreads,
                     const kn_solve_oracle *o, kn_solve_result *r);

int kn_solve_threads(const kn_board *b, const kn_pos *p, kn_tt *tt,
                     const kn_limits *lim, int nthreads,
                     kn_solve_result *r) {
  return solve_run(b, p, tt, lim, nthreads, NULL, r);
}

int kn_solve_with(const kn_board *b, const kn_pos *p, kn_tt *tt,
                  const kn_limits *lim, const kn_solve_oracle *o,
                  kn_solve_result *r) {
  return solve_run(b, p, tt, lim, 1, o, r);
}

static int solve_run(const kn_board *b, const kn_pos *p, kn_tt *tt,
                     const kn_limits *lim, int nthreads,
                     const kn_solve_oracle *o, kn_solve_result *r) {
  shared sh;
  vctx *ts;
  kn_pos q = *p;
  double t0 = kn_clock();
  int w, t, fail = 0;

  memset(r, 0, sizeof *r);
  r->win = -1;
  r->move = KN_NOMOVE;
  if (nthreads < 1) nthreads = 1;
  if (nthreads > KN_SOLVE_MAX_THREADS) nthreads = KN_SOLVE_MAX_THREADS;
  if (!b->narrow) nthreads = 1; /* the threads share narrow jump jobs */
  memset(&sh, 0, sizeof sh);
  sh.b = b;
  sh.tt = tt;
  sh.lim = lim;
  sh.nthreads = nthreads;
  if (lim->time > 0) sh.deadline = t0 + lim->time;
  kn_tt_claim(tt, b->narrow ? KN_TT_WORDS : KN_TT_SLOTS);
  if (b->narrow && tt->mask + 1 >= 256) {
    sh.tw = (_Atomic uint64_t *)(void *)tt->e;
    sh.tmask = tt->mask;
    /* the few pieces' region: at most SMALL_BYTES, at least 256 buckets */
    sh.smask = tt->mask;
    while (sh.smask >= 511 && (sh.smask + 1) * W_BUCKET * sizeof *sh.tw > SMALL_BYTES)
      sh.smask >>= 1;
  }
  ts = calloc((size_t)nthreads, sizeof *ts);
  if (!ts || (b->narrow && build_syms(&sh))) {
    free(ts), free(sh.sym), free(sh.sqimg);
    return -1;
  }
  for (t = 0; t < nthreads; t++) fail |= ctx_init(&ts[t], &sh, p, t);
  if (nthreads == 1) ts[0].oracle = o;
  if (fail) goto done;
  if (nthreads > 1) {
    pthread_mutex_init(&sh.mu, NULL);
    pthread_cond_init(&sh.wake, NULL);
    for (t = 1; t < nthreads; t++)
      ts[t].started = pthread_create(&ts[t].th, NULL, helper_run, &ts[t]) == 0;
  }
  if (lim->stop.fn && lim->stop.fn(lim->stop.ud)) ts[0].stop = KN_STOP_USER;
  w = ts[0].stop ? 0 : solve_any(&ts[0], &q, 0, &r->move);
  if (nthreads > 1) {
    pthread_mutex_lock(&sh.mu);
    sh.quit = 1;
    signal_event(&sh);
    pthread_mutex_unlock(&sh.mu);
    for (t = 1; t < nthreads; t++)
      if (ts[t].started) pthread_join(ts[t].th, NULL);
    pthread_cond_destroy(&sh.wake);
    pthread_mutex_destroy(&sh.mu);
  }
  for (t = 0; t < nthreads; t++) r->nodes += ts[t].nodes;
  r->time = kn_clock() - t0;
  r->stopped = ts[0].stop;
  if (!ts[0].stop) r->win = w;
done:
  for (t = 0; t < nthreads; t++) ctx_free(&ts[t]);
  free(ts), free(sh.sym), free(sh.sqimg);
  if (fail) return -1;
  return r->stopped == KN_STOP_ERROR ? -1 : 0;
}
