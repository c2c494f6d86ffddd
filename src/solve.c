/*
** solve.c: the exact solver. A boolean negamax ("does the side to move
** win?") over the XOR masks of narrow boards, with:
**   - a transposition table keyed by the canonical occupancy (the least
**     image under the board's colour-preserving symmetries), storing
**     only proved results, so every hit ends the node;
**   - immediate wins: a move after which the opponent cannot move;
**   - ordering by the opponent's mobility after the move (fewest first,
**     ties broken by our own mobility), the strongest cheap predictor of
**     a win in Konane (a third fewer nodes than the opponent's alone);
**   - a killer move per ply as a tie-breaker;
**   - enhanced transposition cutoffs near the root, where a child already
**     proved lost in the table saves a whole subtree.
** Wide boards and the removal phases go through the generic core.
*/
#include "solve.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define POLL 4096
/* Positions with fewer pieces than this are not worth a table entry. */
#ifndef TT_MIN_PIECES
#define TT_MIN_PIECES 5
#endif
/* The last winning move at the same ply counts as half a reply fewer
** (worth ~15% of the nodes on 6x6; more than one reply makes it worse). */
#define KILLER_BONUS 128
/* Enhanced transposition cutoffs at nodes with at least this many pieces. */
#ifndef ETC_MIN_PIECES
#define ETC_MIN_PIECES 14
#endif
/* With several threads, nodes with at least this many pieces announce
** themselves in the busy table and defer children another thread is in. */
#ifndef PAR_MIN_PIECES
#define PAR_MIN_PIECES 14
#endif
#ifndef BUSY_BITS
#define BUSY_BITS 16
#endif
/* Children before this index are searched even when another thread is in
** them (ABDADA's rule for the first move). */
#ifndef FIRST_SHARED
#define FIRST_SHARED 0
#endif
/* s->stop value of a thread whose job another thread has finished. */
#define STOP_JOB 100

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define STORE(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

/*
** What the threads of one kn_solve share. Below the removal phase every
** narrow jump position that the generic root code wants solved is a job:
** all threads solve it from the top, sharing the table, and a thread
** entering a big node marks it in 'busy' so that the others, at its
** parent, try their other children first (ABDADA's deferral, with the
** simplification of a lossy mark table). The first thread to prove the
** job publishes the result and the others unwind without storing.
*/
typedef struct shared {
  const kn_board *b;
  kn_tt *tt;
  const kn_limits *lim;
  int nsym;                /* non-identity symmetries in 'sym' */
  int nbytes;              /* bytes of the occupancy word in use */
  uint64_t (*sym)[8][256]; /* per symmetry, per byte: the image bits */
  int nthreads;
  double deadline;         /* kn_clock seconds, <= 0: none */
  _Atomic int stop;        /* a limit or the user: every thread unwinds */
  _Atomic uint64_t nodes;  /* nodes reported by the threads' polls */
  _Atomic uint64_t *busy;  /* 1 << BUSY_BITS marks (threads > 1) */
  /* the current job, under 'mu' */
  pthread_mutex_t mu;
  pthread_cond_t wake, idle;
  uint64_t job_occ;
  int job_stm, job_ply;
  unsigned job_gen;        /* bumped for each job */
  int helpers;             /* helper threads started */
  int running;             /* helpers not yet back from the job */
  int quit;
  _Atomic int job_done;    /* the job is proved: everyone unwinds */
  int job_result;
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
  uint64_t nodes, nextpoll, reported;
  int stop;
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

/* Counts a node and checks the limits (every POLL nodes), the shared stop
** flag and the job (several threads); returns nonzero when stopped. */
static inline int count_node(vctx *s) {
  shared *sh = s->sh;
  s->nodes++;
  if (sh->nthreads == 1) {
    if (sh->lim->nodes && s->nodes >= sh->lim->nodes) s->stop = KN_STOP_LIMIT;
  } else {
    int st = LOAD(sh->stop);
    if (st) s->stop = st;
    else if (LOAD(sh->job_done)) s->stop = STOP_JOB;
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

/* The busy table: a lossy set of the positions threads are searching. */
static inline uint64_t busy_tag(uint64_t key, int stm) {
  return key ^ (stm ? 0x9E3779B97F4A7C15ull : 0x5851F42D4C957F2Dull);
}
static inline _Atomic uint64_t *busy_slot(const shared *sh, uint64_t tag) {
  return sh->busy + ((tag * 0xD6E8FEB86659FD93ull) >> (64 - BUSY_BITS));
}
static inline int busy_has(const shared *sh, uint64_t key, int stm) {
  uint64_t t = busy_tag(key, stm);
  return LOAD(*busy_slot(sh, t)) == t;
}
static inline void busy_enter(const shared *sh, uint64_t key, int stm) {
  uint64_t t = busy_tag(key, stm);
  STORE(*busy_slot(sh, t), t);
}
static inline void busy_leave(const shared *sh, uint64_t key, int stm) {
  uint64_t t = busy_tag(key, stm);
  _Atomic uint64_t *p = busy_slot(sh, t);
  if (LOAD(*p) == t) STORE(*p, 0);
}

/* Pieces of 'colour' with at least one jump in the narrow 'occ'. */
static int movers_of(const kn_board *b, uint64_t occ, int colour) {
  return kn_popcount(kn_movers64(b, occ, colour));
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
** Narrow jump-phase solver: 1 when 'stm' to move in 'occ' wins, else 0
** (also 0 when s->stop is set; the caller checks it before trusting).
*/
static int solve64(vctx *s, uint64_t occ, int stm, int ply) {
  const kn_board *b = s->b;
  uint64_t *mk = s->mk + (size_t)ply * s->cap, key = 0, start;
  uint64_t ck[KN_MAX_MOVES];
  char defer[KN_MAX_MOVES];
  int *k = s->key + (size_t)ply * s->cap;
  int n, i, pieces, usett, par, pass;

  if (count_node(s)) return 0;

  /* 1. Moves; none loses. The table bucket loads meanwhile. */
  pieces = kn_popcount(occ);
  usett = pieces >= TT_MIN_PIECES;
  if (usett) {
    key = canon(s->sh, occ);
    kn_tt_prefetch(s->tt, key, stm);
  }
  n = kn_gen64(b, occ, stm, mk, NULL);
  if (n == 0) return 0;

  /* 2. Immediate wins: a move leaving the opponent without a reply.
  ** (Positions won this way are never stored, so this comes first.) */
  for (i = 0; i < n; i++) {
    int c = kn_count64(b, occ ^ mk[i], stm ^ 1);
    if (c == 0) return 1;
    k[i] = c;
  }
  if (n == 1) return !solve64(s, occ ^ mk[0], stm ^ 1, ply + 1);

  /* 3. The table: proved results only, so a hit is final. */
  if (usett) {
    kn_tt_entry e;
    if (kn_tt_probe(s->tt, key, stm, &e)) return e.score > 0;
  }
  if (s->oracle && pieces <= s->oracle->max_pieces) {
    int w = s->oracle->fn(s->oracle->ud, b, occ, stm);
    if (w >= 0) {
      if (usett) kn_tt_store(s->tt, key, stm, KN_NOMOVE, w ? 1 : -1, 0, KN_TT_EXACT);
      return w;
    }
  }

  /* Fewest replies first; among equals, weigh our moves left, the
  ** opponent's pieces able to jump (fewer is better) and ours (more is
  ** better), then the killer. Tuned on node counts: 6x6 brainking
  ** 8.6 M -> 4.3 M nodes, 6x6 free 12.7 M -> 8.2 M, 5x6 free 289 K ->
  ** 298 K, against the opponent's and our mobility alone. */
  for (i = 0; i < n; i++) {
    uint64_t ch = occ ^ mk[i];
    k[i] = 256 * k[i] - 4 * kn_count64(b, ch, stm) +
           8 * movers_of(b, ch, stm ^ 1) - 2 * movers_of(b, ch, stm);
    if (mk[i] == s->killer[ply]) k[i] -= KILLER_BONUS;
  }

  /* 4. Sort by the opponent's mobility. */
  sort_moves(k, mk, NULL, n);

  /* 5. Enhanced transposition cutoffs: a child already proved lost. */
  par = s->sh->nthreads > 1 && pieces >= PAR_MIN_PIECES;
  if (pieces >= ETC_MIN_PIECES || par) {
    for (i = 0; i < n; i++) {
      ck[i] = canon(s->sh, occ ^ mk[i]);
      kn_tt_prefetch(s->tt, ck[i], stm ^ 1);
    }
  }
  if (pieces >= ETC_MIN_PIECES) {
    for (i = 0; i < n; i++) {
      kn_tt_entry e;
      if (kn_tt_probe(s->tt, ck[i], stm ^ 1, &e) && e.score < 0) {
        kn_tt_store(s->tt, key, stm, KN_NOMOVE, 1, 0, KN_TT_EXACT);
        return 1;
      }
    }
  }

  /* 6. Recurse: a child the opponent loses proves the win. With several
  ** threads, a child (but the first) that another thread is in waits
  ** for a second pass, by when its result is often in the table. */
  start = s->nodes;
  if (par) memset(defer, 0, (size_t)n);
  for (pass = 0; pass < 1 + par; pass++) {
    for (i = 0; i < n; i++) {
      int w;
      if (par) {
        if (pass == 1 && !defer[i]) continue;
        if (pass == 0 && i >= FIRST_SHARED &&
            busy_has(s->sh, ck[i], stm ^ 1)) {
          defer[i] = 1;
          continue;
        }
        busy_enter(s->sh, ck[i], stm ^ 1);
      }
      w = solve64(s, occ ^ mk[i], stm ^ 1, ply + 1);
      if (par) busy_leave(s->sh, ck[i], stm ^ 1);
      if (s->stop) return 0;
      if (!w) {
        s->killer[ply] = mk[i];
        if (usett)
          kn_tt_store(s->tt, key, stm, KN_NOMOVE, 1,
                      work_depth(s->nodes - start), KN_TT_EXACT);
        return 1;
      }
    }
  }
  if (usett)
    kn_tt_store(s->tt, key, stm, KN_NOMOVE, -1, work_depth(s->nodes - start),
                KN_TT_EXACT);
  return 0;
}

/* A helper thread: waits for a job, solves it, reports, until told to
** quit. Its result counts only when it finishes before the others. */
static void *helper_run(void *arg) {
  vctx *s = (vctx *)arg;
  shared *sh = s->sh;
  unsigned seen = 0;
  for (;;) {
    uint64_t occ;
    int stm, ply, w;
    pthread_mutex_lock(&sh->mu);
    while (!sh->quit && sh->job_gen == seen) pthread_cond_wait(&sh->wake, &sh->mu);
    if (sh->quit) {
      pthread_mutex_unlock(&sh->mu);
      return NULL;
    }
    seen = sh->job_gen;
    occ = sh->job_occ, stm = sh->job_stm, ply = sh->job_ply;
    pthread_mutex_unlock(&sh->mu);
    s->stop = 0;
    w = solve64(s, occ, stm, ply);
    pthread_mutex_lock(&sh->mu);
    if (!s->stop && !LOAD(sh->job_done)) {
      sh->job_result = w;
      STORE(sh->job_done, 1);
    }
    if (--sh->running == 0) pthread_cond_signal(&sh->idle);
    pthread_mutex_unlock(&sh->mu);
  }
}

/*
** Solves the narrow jump position ('occ', 'stm') with every thread (see
** 'shared'); with one thread, just solve64. Same contract as solve64.
*/
static int solve_job(vctx *s, uint64_t occ, int stm, int ply) {
  shared *sh = s->sh;
  int w;
  if (sh->nthreads == 1) return solve64(s, occ, stm, ply);
  pthread_mutex_lock(&sh->mu);
  sh->job_occ = occ, sh->job_stm = stm, sh->job_ply = ply;
  STORE(sh->job_done, 0);
  sh->job_gen++;
  sh->running = sh->helpers;
  pthread_cond_broadcast(&sh->wake);
  pthread_mutex_unlock(&sh->mu);
  w = solve64(s, occ, stm, ply);
  pthread_mutex_lock(&sh->mu);
  if (!s->stop && !LOAD(sh->job_done)) {
    sh->job_result = w;
    STORE(sh->job_done, 1);
  }
  while (sh->running > 0) pthread_cond_wait(&sh->idle, &sh->mu);
  w = sh->job_result;
  STORE(sh->job_done, 0); /* every helper is idle again */
  pthread_mutex_unlock(&sh->mu);
  if (s->stop == STOP_JOB) s->stop = 0;
  if (LOAD(sh->stop)) s->stop = LOAD(sh->stop);
  return s->stop ? 0 : w;
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
  int n, i, *k;

  if (best) *best = KN_NOMOVE;
  if (!best && b->narrow && kn_pos_phase(b, p) == KN_JUMP)
    return solve_job(s, p->occ.w[0], p->stm, ply);

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

  key = b->narrow ? canon(s->sh, p->occ.w[0]) : kn_pos_hash(b, p);
  if (!best) {
    kn_tt_entry e;
    if (kn_tt_probe(s->tt, key, p->stm, &e)) {
      free(mv), free(k);
      return e.score > 0;
    }
  }
  start = s->nodes;
  for (i = 0; i < n; i++) {
    int w;
    kn_make(b, p, mv[i]);
    w = solve_any(s, p, ply + 1, NULL);
    kn_unmake(b, p, mv[i]);
    if (s->stop) break;
    if (!w) {
      if (best) *best = mv[i];
      kn_tt_store(s->tt, key, p->stm, mv[i], 1, work_depth(s->nodes - start),
                  KN_TT_EXACT);
      free(mv), free(k);
      return 1;
    }
  }
  if (!s->stop)
    kn_tt_store(s->tt, key, p->stm, KN_NOMOVE, -1,
                work_depth(s->nodes - start), KN_TT_EXACT);
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
  if (!s->sym) return -1;
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
  s->key = malloc((size_t)s->maxply * s->cap * sizeof *s->key);
  s->killer = calloc((size_t)s->maxply, sizeof *s->killer);
  return s->mk && s->key && s->killer ? 0 : -1;
}

static void ctx_free(vctx *s) { free(s->mk), free(s->key), free(s->killer); }

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
  ts = calloc((size_t)nthreads, sizeof *ts);
  if (!ts || (b->narrow && build_syms(&sh))) {
    free(ts), free(sh.sym);
    return -1;
  }
  for (t = 0; t < nthreads; t++) fail |= ctx_init(&ts[t], &sh, p, t);
  if (nthreads == 1) ts[0].oracle = o;
  if (nthreads > 1) {
    sh.busy = calloc((size_t)1 << BUSY_BITS, sizeof *sh.busy);
    fail |= !sh.busy;
  }
  if (fail) goto done;
  if (nthreads > 1) {
    pthread_mutex_init(&sh.mu, NULL);
    pthread_cond_init(&sh.wake, NULL);
    pthread_cond_init(&sh.idle, NULL);
    for (t = 1; t < nthreads; t++) {
      ts[t].started = pthread_create(&ts[t].th, NULL, helper_run, &ts[t]) == 0;
      sh.helpers += ts[t].started;
    }
  }
  if (lim->stop.fn && lim->stop.fn(lim->stop.ud)) ts[0].stop = KN_STOP_USER;
  w = ts[0].stop ? 0 : solve_any(&ts[0], &q, 0, &r->move);
  if (nthreads > 1) {
    pthread_mutex_lock(&sh.mu);
    sh.quit = 1;
    pthread_cond_broadcast(&sh.wake);
    pthread_mutex_unlock(&sh.mu);
    for (t = 1; t < nthreads; t++)
      if (ts[t].started) pthread_join(ts[t].th, NULL);
    pthread_cond_destroy(&sh.idle);
    pthread_cond_destroy(&sh.wake);
    pthread_mutex_destroy(&sh.mu);
  }
  for (t = 0; t < nthreads; t++) r->nodes += ts[t].nodes;
  r->time = kn_clock() - t0;
  r->stopped = ts[0].stop;
  if (!ts[0].stop) r->win = w;
done:
  for (t = 0; t < nthreads; t++) ctx_free(&ts[t]);
  free(ts), free(sh.sym), free((void *)sh.busy);
  if (fail) return -1;
  return r->stopped == KN_STOP_ERROR ? -1 : 0;
}
