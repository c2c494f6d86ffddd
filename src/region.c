/*
** region.c: Kōnane positions as sums of independent regions, and their
** values in a table keyed by shape.
**
** Independence (proved in docs/cgt.md): let the reach S(A) of a group of
** pieces A be the set of squares its pieces occupy in some position
** reachable from A alone, by any sequence of moves of either side. Two
** groups A and B whose reaches neither overlap nor touch orthogonally
** never interact: every move of A + B is a move of A or of B, with the
** same effect, so the game A + B is the disjunctive sum of A and B.
**
** The split starts from the orthogonally connected groups of pieces,
** computes each group's value and reach (the reach of a region is its own
** squares plus the reaches of all its options, which the value recursion
** visits anyway), merges any two groups whose reaches overlap or touch,
** and repeats until no two touch.
**
** The table: a region is cut out with its bounding box plus, on each side,
** the board squares beyond it up to the region's piece count (no piece can
** ever get further than that: to land k squares beyond the box a piece
** must jump a piece standing k-1 beyond it, which an earlier jump put
** there, and every jump removes a piece). That frame is a small board of
** its own with the same game, so its contents, up to the 8 symmetries of
** a rectangle and the colour swap (which negates the value), are the key.
*/
#include "region.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* ---- parsing and text ---- */

int cgk_parse(const char *text, cgk_pos *p, int *stm, char *err,
              size_t errlen) {
  uint8_t cells[KN_MAX_SIDE][KN_MAX_SIDE]; /* CGK_EMPTY, CGK_BLACK, CGK_WHITE */
  int row, cols;
  const char *s;
  if (stm) *stm = -1;
  if (kn_ranks_parse(text, cells, &row, &cols, &s, err, errlen)) return -1;
  while (*s == ' ' || *s == '\t') s++;
  if (*s == 'b' || *s == 'w') {
    if (stm) *stm = *s == 'b' ? KN_BLACK : KN_WHITE;
    s++;
  }
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  if (*s) {
    if (errlen)
      snprintf(err, errlen,
               "unexpected text after the ranks (character %d): expected 'b', 'w' or nothing",
               (int)(s - text) + 1);
    return -1;
  }
  memset(p, 0, sizeof *p);
  p->rows = row;
  p->cols = cols;
  for (int r = 0; r < row; r++)
    for (int f = 0; f < cols; f++)
      p->cell[(row - 1 - r) * cols + f] = cells[r][f];
  return 0;
}

size_t cgk_text(const cgk_pos *p, char *buf, size_t len) {
  char tmp[KN_POS_TEXT];
  size_t n = 0;
  for (int r = p->rows - 1; r >= 0; r--) {
    int run = 0;
    for (int f = 0; f < p->cols; f++) {
      uint8_t c = p->cell[r * p->cols + f];
      if (c == CGK_EMPTY) {
        run++;
        continue;
      }
      if (run) n += (size_t)sprintf(tmp + n, "%d", run);
      run = 0;
      tmp[n++] = c == CGK_BLACK ? 'x' : 'o';
    }
    if (run) n += (size_t)sprintf(tmp + n, "%d", run);
    if (r) tmp[n++] = '/';
  }
  tmp[n] = '\0';
  if (len) {
    size_t c = n < len - 1 ? n : len - 1;
    memcpy(buf, tmp, c);
    buf[c] = '\0';
  }
  return n;
}

void cgk_from_kn(const kn_board *b, const kn_pos *p, cgk_pos *out) {
  memset(out, 0, sizeof *out);
  out->rows = b->rows;
  out->cols = b->cols;
  for (int sq = 0; sq < b->nsq; sq++)
    if (kn_bit(&p->occ, sq))
      out->cell[sq] = kn_bit(&b->side[KN_BLACK], sq) ? CGK_BLACK : CGK_WHITE;
}

/* ---- moves ---- */

static const int DR[4] = {1, 0, -1, 0}, DC[4] = {0, 1, 0, -1};

/*
** Calls 'fn' for each jump of the piece colour 'me' in 'p': origin 'sq',
** direction 'd', 'k' pieces jumped. Stops early when 'fn' returns
** nonzero, passing that value on.
*/
typedef int (*move_fn)(void *ud, int sq, int d, int k);

static int each_move(const cgk_pos *p, uint8_t me, move_fn fn, void *ud) {
  uint8_t enemy = me == CGK_BLACK ? CGK_WHITE : CGK_BLACK;
  for (int r = 0; r < p->rows; r++)
    for (int c = 0; c < p->cols; c++) {
      if (p->cell[r * p->cols + c] != me) continue;
      for (int d = 0; d < 4; d++) {
        int rr = r, cc = c;
        for (int k = 1;; k++) {
          int r1 = rr + DR[d], c1 = cc + DC[d], r2 = rr + 2 * DR[d],
              c2 = cc + 2 * DC[d];
          if (r2 < 0 || c2 < 0 || r2 >= p->rows || c2 >= p->cols) break;
          if (p->cell[r1 * p->cols + c1] != enemy ||
              p->cell[r2 * p->cols + c2] != CGK_EMPTY)
            break;
          int e = fn(ud, r * p->cols + c, d, k);
          if (e) return e;
          rr = r2, cc = c2;
        }
      }
    }
  return 0;
}

static void apply_move(cgk_pos *p, int sq, int d, int k) {
  int r = sq / p->cols, c = sq % p->cols;
  uint8_t me = p->cell[sq];
  p->cell[sq] = CGK_EMPTY;
  for (int j = 0; j < k; j++) {
    r += DR[d], c += DC[d];
    p->cell[r * p->cols + c] = CGK_EMPTY;
    r += DR[d], c += DC[d];
  }
  p->cell[r * p->cols + c] = me;
}

static int count_fn(void *ud, int sq, int d, int k) {
  (void)sq, (void)d, (void)k;
  ++*(int *)ud;
  return 0;
}

int cgk_count_moves(const cgk_pos *p, int colour) {
  int n = 0;
  each_move(p, colour == KN_BLACK ? CGK_BLACK : CGK_WHITE, count_fn, &n);
  return n;
}

static int any_fn(void *ud, int sq, int d, int k) {
  (void)ud, (void)sq, (void)d, (void)k;
  return 1;
}

/* ---- the table ---- */

typedef struct entry {
  uint64_t hash;
  uint32_t key, klen; /* key bytes in the arena */
  uint32_t reach;     /* reach bits (normalized frame) in the arena */
  cg_id value;        /* value of the normalized region */
} entry;

struct cgk {
  cg_store *s;
  entry *e;
  size_t ne, cape;
  uint32_t *index; /* entry + 1 or 0 */
  size_t capidx;
  uint8_t *arena;
  size_t narena, caparena;
  uint64_t budget, spent, polls;
  kn_stop stop;
  cgk_stats st;
  /* per frame shape, made on first use: for each symmetry t, the source
  ** cell of each cell of the image (8 * rows * cols entries) */
  uint16_t *inv[KN_MAX_SIDE + 1][KN_MAX_SIDE + 1];
};

cgk *cgk_new(cg_store *s) {
  cgk *k = calloc(1, sizeof *k);
  if (k) k->s = s;
  return k;
}

void cgk_free(cgk *k) {
  if (!k) return;
  for (int r = 0; r <= KN_MAX_SIDE; r++)
    for (int c = 0; c <= KN_MAX_SIDE; c++) free(k->inv[r][c]);
  free(k->e);
  free(k->index);
  free(k->arena);
  free(k);
}

cg_store *cgk_store(cgk *k) { return k->s; }

void cgk_limits(cgk *k, uint64_t budget, const kn_stop *stop) {
  k->budget = budget;
  if (stop) k->stop = *stop;
  else memset(&k->stop, 0, sizeof k->stop);
}

void cgk_get_stats(const cgk *k, cgk_stats *st) {
  *st = k->st;
  st->entries = k->ne;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001B3ull;
  return h ^ (h >> 29);
}

static long arena_add(cgk *k, const uint8_t *p, size_t n) {
  if (k->narena + n > k->caparena) {
    size_t cap = k->caparena ? k->caparena * 2 : 65536;
    while (cap < k->narena + n) cap *= 2;
    if (cap > 0xFFFFFFFFu) return -1;
    uint8_t *a = realloc(k->arena, cap);
    if (!a) return -1;
    k->arena = a;
    k->caparena = cap;
  }
  memcpy(k->arena + k->narena, p, n);
  k->narena += n;
  return (long)(k->narena - n);
}

static const entry *table_find(const cgk *k, const uint8_t *key, size_t n,
                               uint64_t h) {
  if (!k->capidx) return NULL;
  size_t j = (size_t)h & (k->capidx - 1);
  while (k->index[j]) {
    const entry *e = &k->e[k->index[j] - 1];
    if (e->hash == h && e->klen == n && !memcmp(k->arena + e->key, key, n))
      return e;
    j = (j + 1) & (k->capidx - 1);
  }
  return NULL;
}

static int table_add(cgk *k, const uint8_t *key, size_t n, uint64_t h,
                     const uint8_t *reach, size_t rn, cg_id v) {
  if (2 * (k->ne + 1) > k->capidx) {
    size_t cap = k->capidx ? k->capidx * 2 : 4096;
    uint32_t *ix = calloc(cap, sizeof *ix);
    if (!ix) return -1;
    for (size_t i = 0; i < k->ne; i++) {
      size_t j = (size_t)k->e[i].hash & (cap - 1);
      while (ix[j]) j = (j + 1) & (cap - 1);
      ix[j] = (uint32_t)i + 1;
    }
    free(k->index);
    k->index = ix;
    k->capidx = cap;
  }
  if (k->ne == k->cape) {
    size_t cap = k->cape ? k->cape * 2 : 1024;
    entry *e = realloc(k->e, cap * sizeof *e);
    if (!e) return -1;
    k->e = e;
    k->cape = cap;
  }
  long ko = arena_add(k, key, n), ro = arena_add(k, reach, rn);
  if (ko < 0 || ro < 0) return -1;
  entry *e = &k->e[k->ne];
  e->hash = h;
  e->key = (uint32_t)ko;
  e->klen = (uint32_t)n;
  e->reach = (uint32_t)ro;
  e->value = v;
  size_t j = (size_t)h & (k->capidx - 1);
  while (k->index[j]) j = (j + 1) & (k->capidx - 1);
  k->index[j] = (uint32_t)k->ne + 1;
  k->ne++;
  return 0;
}

/* ---- symmetries of a rows x cols frame ---- */

/* Bits of 't': 4 transpose, 1 mirror files, 2 mirror ranks (in that
** order). The image of (r, c) in the image frame. */
static void sym_map(int rows, int cols, int t, int r, int c, int *r2,
                    int *c2, int *rows2, int *cols2) {
  if (t & 4) {
    int x = r;
    r = c;
    c = x;
    x = rows;
    rows = cols;
    cols = x;
  }
  if (t & 1) c = cols - 1 - c;
  if (t & 2) r = rows - 1 - r;
  *r2 = r, *c2 = c, *rows2 = rows, *cols2 = cols;
}

#define KEY_MAX (2 + KN_MAX_SQ / 4 + 1)

/* The inverse maps of the 8 symmetries of a rows x cols frame, cached. */
static const uint16_t *inverse_maps(cgk *k, int rows, int cols) {
  uint16_t *m = k->inv[rows][cols];
  if (m) return m;
  int n = rows * cols;
  m = malloc(8 * (size_t)n * sizeof *m);
  if (!m) return NULL;
  for (int t = 0; t < 8; t++)
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) {
        int r2, c2, rows2, cols2;
        sym_map(rows, cols, t, r, c, &r2, &c2, &rows2, &cols2);
        m[t * n + r2 * cols2 + c2] = (uint16_t)(r * cols + c);
      }
  k->inv[rows][cols] = m;
  return m;
}

/*
** The key of frame 'f': the least of its 16 images (8 symmetries, with and
** without the colour swap) as bytes [rows, cols, cells packed 4 a byte].
** Returns the key length (0 when out of memory); *t and *swap name the
** image chosen. Images are compared cell by cell as they are read, so a
** worse image is dropped at its first larger cell.
*/
static size_t normalize(cgk *k, const cgk_pos *f, uint8_t *key, int *t,
                        int *swap) {
  uint8_t best[2 + KN_MAX_SQ];
  int n = f->rows * f->cols, have = 0;
  const uint16_t *inv = inverse_maps(k, f->rows, f->cols);
  if (!inv) return 0;
  for (int tt = 0; tt < 8; tt++) {
    uint8_t r2 = (uint8_t)(tt & 4 ? f->cols : f->rows);
    uint8_t c2 = (uint8_t)(tt & 4 ? f->rows : f->cols);
    const uint16_t *src = inv + (size_t)tt * n;
    for (int sw = 0; sw < 2; sw++) {
      uint8_t x = sw ? 3 : 0;
      int i = 0, less = !have;
      if (!less) {
        if (r2 != best[0] || c2 != best[1]) {
          if (r2 > best[0] || (r2 == best[0] && c2 > best[1])) continue;
          less = 1;
        }
      }
      if (!less) {
        for (; i < n; i++) {
          uint8_t v = f->cell[src[i]];
          if (v) v ^= x;
          if (v != best[2 + i]) {
            if (v > best[2 + i]) break;
            less = 1;
            break;
          }
        }
        if (!less) continue; /* larger, or equal to the best */
      }
      best[0] = r2;
      best[1] = c2;
      for (; i < n; i++) {
        uint8_t v = f->cell[src[i]];
        best[2 + i] = v ? v ^ x : 0;
      }
      *t = tt;
      *swap = sw;
      have = 1;
    }
  }
  size_t len = 2 + ((size_t)n + 3) / 4;
  memset(key, 0, len);
  key[0] = best[0];
  key[1] = best[1];
  for (int i = 0; i < n; i++)
    key[2 + i / 4] |= (uint8_t)(best[2 + i] << (2 * (i % 4)));
  return len;
}

/* ---- values ---- */

static int value_board(cgk *k, const cgk_pos *p, cg_id *out, uint8_t *reach);

static int check_limits(cgk *k) {
  if (k->budget && k->spent >= k->budget) return CGK_EBUDGET;
  k->spent++;
  if (k->stop.fn && ++k->polls % 256 == 0 && k->stop.fn(k->stop.ud))
    return CGK_ESTOP;
  return CGK_OK;
}

typedef struct gen_ctx {
  cgk *k;
  const cgk_pos *f;
  cgk_pos child;
  uint8_t *reach, *creach;
  cg_id *ids;
  int n, cap, err;
} gen_ctx;

static int child_fn(void *ud, int sq, int d, int kk) {
  gen_ctx *g = (gen_ctx *)ud;
  cg_id v;
  int nsq = g->f->rows * g->f->cols;
  g->child = *g->f;
  apply_move(&g->child, sq, d, kk);
  int e = value_board(g->k, &g->child, &v, g->creach);
  if (e) return g->err = e;
  for (int i = 0; i < nsq; i++) g->reach[i] |= g->creach[i];
  if (g->n == g->cap) {
    int cap = g->cap ? g->cap * 2 : 16;
    cg_id *ids = realloc(g->ids, (size_t)cap * sizeof *ids);
    if (!ids) return g->err = CGK_ENOMEM;
    g->ids = ids;
    g->cap = cap;
  }
  g->ids[g->n++] = v;
  return 0;
}

/* The value and reach of the single region filling frame 'f'. */
static int region_compute(cgk *k, const cgk_pos *f, cg_id *out,
                          uint8_t *reach) {
  int nsq = f->rows * f->cols, nl, e;
  uint8_t creach[KN_MAX_SQ];
  gen_ctx g;
  g.k = k;
  g.f = f;
  g.reach = reach;
  g.creach = creach;
  g.ids = NULL;
  g.n = g.cap = g.err = 0;
  for (int i = 0; i < nsq; i++) reach[i] = f->cell[i] != CGK_EMPTY;
  each_move(f, CGK_BLACK, child_fn, &g);
  nl = g.n;
  if (!g.err) each_move(f, CGK_WHITE, child_fn, &g);
  e = g.err;
  if (!e) {
    *out = cg_make(k->s, g.ids, nl, g.ids + nl, g.n - nl);
    if (*out == CG_NONE) e = CGK_ENOMEM;
  }
  free(g.ids);
  return e;
}

/*
** The value and reach (in 'p' coordinates) of the group of pieces of 'p'
** marked in 'sel'. Cuts the group's frame out, looks it up, computes and
** stores it on a miss.
*/
static int region_value(cgk *k, const cgk_pos *p, const uint8_t *sel,
                        cg_id *out, uint8_t *reach) {
  int r0 = p->rows, r1 = -1, c0 = p->cols, c1 = -1, n = 0, e;
  size_t nsq = (size_t)p->rows * (size_t)p->cols;
  for (int sq = 0; sq < (int)nsq; sq++)
    if (sel[sq]) {
      int r = sq / p->cols, c = sq % p->cols;
      n++;
      if (r < r0) r0 = r;
      if (r > r1) r1 = r;
      if (c < c0) c0 = c;
      if (c > c1) c1 = c;
    }
  memset(reach, 0, nsq);
  if (n == 0) {
    *out = CG_ZERO;
    return CGK_OK;
  }
  int mr0 = r0 < n ? r0 : n, mr1 = p->rows - 1 - r1 < n ? p->rows - 1 - r1 : n;
  int mc0 = c0 < n ? c0 : n, mc1 = p->cols - 1 - c1 < n ? p->cols - 1 - c1 : n;
  cgk_pos fbuf;
  uint8_t freach[KN_MAX_SQ], bits[KN_MAX_SQ / 8 + 1];
  cgk_pos *f = &fbuf;
  f->rows = r1 - r0 + 1 + mr0 + mr1;
  f->cols = c1 - c0 + 1 + mc0 + mc1;
  int fr0 = r0 - mr0, fc0 = c0 - mc0, fn = f->rows * f->cols;
  for (int r = 0; r < f->rows; r++)
    for (int c = 0; c < f->cols; c++) {
      int sq = (fr0 + r) * p->cols + fc0 + c;
      f->cell[r * f->cols + c] = sel[sq] ? p->cell[sq] : CGK_EMPTY;
    }
  e = CGK_OK;
  if (!each_move(f, CGK_BLACK, any_fn, NULL) &&
      !each_move(f, CGK_WHITE, any_fn, NULL)) {
    /* no move for either side, ever: 0, and the pieces stay put */
    *out = CG_ZERO;
    for (int i = 0; i < fn; i++) freach[i] = f->cell[i] != CGK_EMPTY;
  } else {
    uint8_t key[KEY_MAX];
    int t, sw;
    size_t klen = normalize(k, f, key, &t, &sw);
    if (!klen) return CGK_ENOMEM;
    uint64_t h = hash_bytes(key, klen);
    const entry *hit = table_find(k, key, klen, h);
    k->st.lookups++;
    if (hit) {
      k->st.hits++;
      cg_id v = hit->value;
      const uint8_t *rb = k->arena + hit->reach;
      for (int r = 0; r < f->rows; r++)
        for (int c = 0; c < f->cols; c++) {
          int r2, c2, rows2, cols2;
          sym_map(f->rows, f->cols, t, r, c, &r2, &c2, &rows2, &cols2);
          int i = r2 * cols2 + c2;
          freach[r * f->cols + c] = (rb[i / 8] >> (i % 8)) & 1;
        }
      *out = sw ? cg_neg(k->s, v) : v;
      if (*out == CG_NONE) e = CGK_ENOMEM;
    } else if ((e = check_limits(k)) == CGK_OK) {
      cg_id v;
      k->st.computed++;
      e = region_compute(k, f, &v, freach);
      if (!e) {
        size_t rn = (size_t)fn / 8 + 1;
        memset(bits, 0, rn);
        for (int r = 0; r < f->rows; r++)
          for (int c = 0; c < f->cols; c++) {
            int r2, c2, rows2, cols2;
            sym_map(f->rows, f->cols, t, r, c, &r2, &c2, &rows2, &cols2);
            int i = r2 * cols2 + c2;
            if (freach[r * f->cols + c]) bits[i / 8] |= (uint8_t)(1u << (i % 8));
          }
        cg_id stored = sw ? cg_neg(k->s, v) : v;
        if (stored == CG_NONE || table_add(k, key, klen, h, bits, rn, stored))
          e = CGK_ENOMEM;
        *out = v;
      }
    }
  }
  if (!e)
    for (int r = 0; r < f->rows; r++)
      for (int c = 0; c < f->cols; c++)
        reach[(fr0 + r) * p->cols + fc0 + c] = freach[r * f->cols + c];
  return e;
}

static int uf_find(int *parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

/*
** Split 'p' into regions: label[sq] gets the region of each piece (-1 on
** empty squares), values/reach of each region root. On return *ng is the
** number of first groups; a group g is a region when parent[g] == g.
*/
typedef struct split {
  int nsq, ng;
  int label[KN_MAX_SQ]; /* per square: group (its root at the end) or -1 */
  void *block;          /* the per-group arrays below, one allocation */
  int *parent;          /* union-find over the first groups */
  int *root;
  uint8_t *done;
  cg_id *val;
  uint8_t *reach;       /* per group: nsq bytes */
} split;

static void split_free(split *sp) { free(sp->block); }

static int do_split(cgk *k, const cgk_pos *p, split *sp) {
  int nsq = p->rows * p->cols, ng = 0, e = CGK_OK;
  int stack[KN_MAX_SQ], owner[KN_MAX_SQ];
  uint8_t sel[KN_MAX_SQ];
  sp->nsq = nsq;
  sp->block = NULL;
  /* 1. orthogonally connected groups of pieces */
  for (int i = 0; i < nsq; i++) sp->label[i] = -1;
  for (int i = 0; i < nsq; i++) {
    if (p->cell[i] == CGK_EMPTY || sp->label[i] >= 0) continue;
    int top = 0;
    stack[top++] = i;
    sp->label[i] = ng;
    while (top) {
      int sq = stack[--top], r = sq / p->cols, c = sq % p->cols;
      for (int d = 0; d < 4; d++) {
        int r2 = r + DR[d], c2 = c + DC[d];
        if (r2 < 0 || c2 < 0 || r2 >= p->rows || c2 >= p->cols) continue;
        int s2 = r2 * p->cols + c2;
        if (p->cell[s2] != CGK_EMPTY && sp->label[s2] < 0) {
          sp->label[s2] = ng;
          stack[top++] = s2;
        }
      }
    }
    ng++;
  }
  sp->ng = ng;
  size_t g1 = (size_t)ng + 1;
  sp->block = malloc(g1 * (2 * sizeof(int) + 1 + sizeof(cg_id)) + g1 * (size_t)nsq);
  if (!sp->block) return CGK_ENOMEM;
  sp->parent = (int *)sp->block;
  sp->root = sp->parent + g1;
  sp->val = (cg_id *)(sp->root + g1);
  sp->done = (uint8_t *)(sp->val + g1);
  sp->reach = sp->done + g1;
  for (int g = 0; g < ng; g++) sp->parent[g] = g, sp->done[g] = 0;
  if (ng == 1) { /* one group: one region */
    for (int i = 0; i < nsq; i++) sel[i] = p->cell[i] != CGK_EMPTY;
    return region_value(k, p, sel, &sp->val[0], sp->reach);
  }
  /* 2. values and reaches; merge groups whose reaches overlap or touch */
  for (;;) {
    for (int g = 0; g < ng; g++) sp->root[g] = uf_find(sp->parent, g);
    for (int g = 0; g < ng; g++) {
      if (sp->parent[g] != g || sp->done[g]) continue;
      for (int i = 0; i < nsq; i++)
        sel[i] = sp->label[i] >= 0 && sp->root[sp->label[i]] == g;
      e = region_value(k, p, sel, &sp->val[g], sp->reach + (size_t)g * nsq);
      if (e) return e;
      sp->done[g] = 1;
    }
    int merged = 0;
    for (int i = 0; i < nsq; i++) owner[i] = -1;
    for (int g = 0; g < ng; g++) {
      if (sp->parent[g] != g) continue;
      const uint8_t *rg = sp->reach + (size_t)g * nsq;
      for (int i = 0; i < nsq; i++) {
        if (!rg[i]) continue;
        int o = owner[i] >= 0 ? uf_find(sp->parent, owner[i]) : -1;
        if (o >= 0 && o != uf_find(sp->parent, g)) {
          int a = uf_find(sp->parent, g);
          sp->parent[o] = a;
          sp->done[a] = 0;
          merged = 1;
        }
        owner[i] = g;
      }
    }
    if (!merged)
      for (int i = 0; i < nsq && !merged; i++) {
        if (owner[i] < 0) continue;
        int r = i / p->cols, c = i % p->cols;
        for (int d = 0; d < 4; d++) {
          int r2 = r + DR[d], c2 = c + DC[d];
          if (r2 < 0 || c2 < 0 || r2 >= p->rows || c2 >= p->cols) continue;
          int j = r2 * p->cols + c2;
          if (owner[j] >= 0 && owner[j] != owner[i]) {
            int a = uf_find(sp->parent, owner[i]), b = uf_find(sp->parent, owner[j]);
            if (a == b) continue;
            sp->parent[b] = a;
            sp->done[a] = 0;
            merged = 1;
          }
        }
      }
    if (!merged) break;
  }
  /* 3. labels: the root of each piece's group */
  for (int i = 0; i < nsq; i++)
    if (sp->label[i] >= 0) sp->label[i] = uf_find(sp->parent, sp->label[i]);
  return CGK_OK;
}

static int value_board(cgk *k, const cgk_pos *p, cg_id *out, uint8_t *reach) {
  split sp;
  int nsq = p->rows * p->cols;
  int e = do_split(k, p, &sp);
  cg_id sum = CG_ZERO;
  if (!e) {
    if (reach) memset(reach, 0, (size_t)nsq);
    for (int g = 0; g < sp.ng && sum != CG_NONE; g++) {
      if (sp.parent[g] != g) continue;
      sum = cg_add(k->s, sum, sp.val[g]);
      if (reach)
        for (int i = 0; i < nsq; i++) reach[i] |= sp.reach[(size_t)g * nsq + i];
    }
    if (sum == CG_NONE) e = CGK_ENOMEM;
    *out = sum;
  }
  split_free(&sp);
  return e;
}

int cgk_value(cgk *k, const cgk_pos *p, cg_id *out) {
  k->spent = 0;
  return value_board(k, p, out, NULL);
}

int cgk_regions(cgk *k, const cgk_pos *p, int *label, int *n,
                cg_id *values) {
  split sp;
  int nsq = p->rows * p->cols;
  k->spent = 0;
  int e = do_split(k, p, &sp);
  if (!e) {
    int *map = malloc(((size_t)sp.ng + 1) * sizeof *map), m = 0;
    if (!map) {
      split_free(&sp);
      return CGK_ENOMEM;
    }
    for (int g = 0; g < sp.ng; g++) map[g] = -1;
    for (int i = 0; i < nsq; i++) {
      int g = sp.label[i];
      if (g < 0) {
        label[i] = -1;
        continue;
      }
      if (map[g] < 0) {
        if (values) values[m] = sp.val[g];
        map[g] = m++;
      }
      label[i] = map[g];
    }
    *n = m;
    free(map);
  }
  split_free(&sp);
  return e;
}

int cgk_oracle(void *ud, const kn_board *b, uint64_t occ, int stm) {
  cgk_oracle_ctx *c = (cgk_oracle_ctx *)ud;
  cgk *k = c->k;
  cgk_pos q;
  cg_id v;
  uint64_t save = k->budget;
  c->calls++;
  q.rows = b->rows;
  q.cols = b->cols;
  memset(q.cell, 0, (size_t)b->nsq);
  for (uint64_t x = occ; x; x &= x - 1) {
    int sq = __builtin_ctzll(x);
    q.cell[sq] = (b->side[KN_BLACK].w[0] >> sq) & 1 ? CGK_BLACK : CGK_WHITE;
  }
  /* Worth it only when the board has split: at least two connected
  ** groups where a jump is possible, none of them too big. */
  {
    uint64_t rest = occ, notw = 0, note = 0;
    uint64_t movers = kn_movers64(b, occ, KN_BLACK) | kn_movers64(b, occ, KN_WHITE);
    int live = 0;
    for (int sq = 0; sq < b->nsq; sq++) {
      if (sq % b->cols != 0) notw |= (uint64_t)1 << sq; /* has a west neighbour */
      if (sq % b->cols != b->cols - 1) note |= (uint64_t)1 << sq;
    }
    while (rest) {
      uint64_t g = rest & -rest, prev = 0;
      while (g != prev) { /* flood fill within the occupied squares */
        prev = g;
        g |= ((g << b->cols) | (g >> b->cols) | ((g & note) << 1) |
              ((g & notw) >> 1)) & occ;
      }
      rest &= ~g;
      if (!(g & movers)) continue;
      if (kn_popcount(g) > c->max_region) return -1;
      live++;
    }
    if (live < 2) return -1;
  }
  k->budget = c->budget;
  k->spent = 0;
  int e = value_board(k, &q, &v, NULL);
  k->budget = save;
  if (e) return -1;
  c->decided++;
  return cg_first_wins(k->s, v, stm == KN_BLACK);
}
