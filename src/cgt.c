/*
** cgt.c: short partizan games in canonical form, hash-consed in a store.
**
** A game is stored once, as its canonical option lists (ids sorted by
** value of id), so equality is id equality. cg_make turns any option
** lists into the canonical form: it removes dominated options and bypasses
** reversible ones until neither applies (Conway; Siegel, "Combinatorial
** Game Theory", II.2), and takes a shortcut through the simplicity theorem
** when every option is a number. Comparison, sums and negatives are
** memoized in the store. References: docs/cgt.md.
*/
#include "cgt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a uint64 -> uint32 hash map (open addressing, linear probing) ---- */

#define MAP_EMPTY 0xFFFFFFFFu

typedef struct map {
  uint64_t *k;
  uint32_t *v;
  size_t cap, n; /* cap a power of two, or 0 */
} map;

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void map_free(map *m) {
  free(m->k);
  free(m->v);
  memset(m, 0, sizeof *m);
}

/* The value under 'key', or MAP_EMPTY. */
static uint32_t map_get(const map *m, uint64_t key) {
  if (!m->cap) return MAP_EMPTY;
  size_t i = (size_t)mix64(key) & (m->cap - 1);
  while (m->v[i] != MAP_EMPTY) {
    if (m->k[i] == key) return m->v[i];
    i = (i + 1) & (m->cap - 1);
  }
  return MAP_EMPTY;
}

static int map_grow(map *m) {
  size_t cap = m->cap ? m->cap * 2 : 1024, i;
  uint64_t *k = malloc(cap * sizeof *k);
  uint32_t *v = malloc(cap * sizeof *v);
  if (!k || !v) {
    free(k), free(v);
    return -1;
  }
  for (i = 0; i < cap; i++) v[i] = MAP_EMPTY;
  for (i = 0; i < m->cap; i++)
    if (m->v[i] != MAP_EMPTY) {
      size_t j = (size_t)mix64(m->k[i]) & (cap - 1);
      while (v[j] != MAP_EMPTY) j = (j + 1) & (cap - 1);
      k[j] = m->k[i];
      v[j] = m->v[i];
    }
  free(m->k), free(m->v);
  m->k = k, m->v = v, m->cap = cap;
  return 0;
}

/* Store 'val' (not MAP_EMPTY) under 'key'. A cache: failure to grow is
** not an error, the entry is simply not kept. */
static void map_put(map *m, uint64_t key, uint32_t val) {
  if (2 * (m->n + 1) > m->cap && map_grow(m)) return;
  size_t i = (size_t)mix64(key) & (m->cap - 1);
  while (m->v[i] != MAP_EMPTY) {
    if (m->k[i] == key) {
      m->v[i] = val;
      return;
    }
    i = (i + 1) & (m->cap - 1);
  }
  m->k[i] = key;
  m->v[i] = val;
  m->n++;
}

/* ---- dyadic rationals ---- */

#define MAX_EXP 40
#define MAX_INT ((int64_t)1 << 20)

static cg_dyadic dy(int64_t num, int exp) {
  cg_dyadic x;
  while (exp > 0 && !(num & 1)) num /= 2, exp--;
  x.num = num;
  x.exp = exp;
  return x;
}

static int64_t dy_scaled(cg_dyadic a, int e) { /* a * 2^e, e >= a.exp */
  return a.num * ((int64_t)1 << (e - a.exp));
}

static int dy_cmp(cg_dyadic a, cg_dyadic b) {
  int e = a.exp > b.exp ? a.exp : b.exp;
  int64_t x = dy_scaled(a, e), y = dy_scaled(b, e);
  return x < y ? -1 : x > y;
}

static cg_dyadic dy_add(cg_dyadic a, cg_dyadic b) {
  int e = a.exp > b.exp ? a.exp : b.exp;
  return dy(dy_scaled(a, e) + dy_scaled(b, e), e);
}

static int64_t floor_div_pow2(int64_t n, int e) { /* floor(n / 2^e) */
  int64_t d = (int64_t)1 << e, q = n / d;
  if (n % d != 0 && n < 0) q--;
  return q;
}

static int64_t dy_floor(cg_dyadic a) { return floor_div_pow2(a.num, a.exp); }
static int64_t dy_ceil(cg_dyadic a) {
  return -floor_div_pow2(-a.num, a.exp);
}

/* The simplest number strictly between 'lo' (when has_lo) and 'hi'. */
static cg_dyadic simplest(int has_lo, cg_dyadic lo, int has_hi,
                          cg_dyadic hi) {
  cg_dyadic zero = {0, 0};
  if ((!has_lo || dy_cmp(lo, zero) < 0) && (!has_hi || dy_cmp(hi, zero) > 0))
    return zero;
  if (!has_hi) return dy(dy_floor(lo) + 1, 0);
  if (!has_lo) return dy(dy_ceil(hi) - 1, 0);
  if (dy_cmp(lo, zero) >= 0) {
    cg_dyadic n = dy(dy_floor(lo) + 1, 0);
    if (dy_cmp(n, hi) < 0) return n;
  } else {
    cg_dyadic n = dy(dy_ceil(hi) - 1, 0);
    if (dy_cmp(n, lo) > 0) return n;
  }
  for (int k = 1; k <= MAX_EXP + 1; k++) {
    int e = lo.exp > k ? lo.exp : k;
    int64_t m = floor_div_pow2(dy_scaled(lo, e), e - k) + 1;
    cg_dyadic c = dy(m, k);
    if (dy_cmp(c, hi) < 0) return c;
  }
  return lo; /* unreachable for lo < hi */
}

size_t cg_dyadic_text(cg_dyadic x, char *buf, size_t len) {
  int n;
  if (x.exp == 0)
    n = snprintf(buf, len, "%lld", (long long)x.num);
  else
    n = snprintf(buf, len, "%lld/%lld", (long long)x.num,
                 (long long)((int64_t)1 << x.exp));
  return n < 0 ? 0 : (size_t)n;
}

cg_dyadic cg_dyadic_of(double v) {
  int e = 0;
  while (e < 60 && v != floor(v)) v *= 2, e++;
  return dy((int64_t)v, e);
}

static double dy_double(cg_dyadic x) { return ldexp((double)x.num, -x.exp); }

/* ---- the store ---- */

typedef struct game {
  uint32_t opt;    /* options in s->opts: nl left, then nr right */
  uint32_t nl, nr;
  uint32_t neg;    /* the negative, CG_NONE until computed */
  uint64_t hash;
  cg_dyadic x;     /* the value when isnum */
  int isnum;
  int nim;         /* n when the game is *n, else -1 */
  int stops;       /* ls, rs known */
  double ls, rs;
} game;

#define UP_MAX 16
#define NIM_MAX 15

struct cg_store {
  game *g;
  size_t ng, capg;
  cg_id *opts;
  size_t nopts, capopts;
  uint32_t *index; /* id + 1, or 0; capidx a power of two */
  size_t capidx;
  map le, add;
  map upt;         /* id -> (n + UP_MAX) * 16 + m for x = 0 uptimals */
  int upt_built;
};

static uint64_t hash_opts(const cg_id *L, int nl, const cg_id *R, int nr) {
  uint64_t h = 0x243F6A8885A308D3ull ^ (uint64_t)nl;
  for (int i = 0; i < nl; i++) h = mix64(h ^ L[i]);
  h = mix64(h ^ 0x13198A2E03707344ull ^ (uint64_t)nr);
  for (int i = 0; i < nr; i++) h = mix64(h ^ R[i]);
  return h;
}

size_t cg_store_size(const cg_store *s) { return s->ng; }

int cg_nleft(const cg_store *s, cg_id a) { return (int)s->g[a].nl; }
int cg_nright(const cg_store *s, cg_id a) { return (int)s->g[a].nr; }
cg_id cg_left(const cg_store *s, cg_id a, int i) {
  return s->opts[s->g[a].opt + (uint32_t)i];
}
cg_id cg_right(const cg_store *s, cg_id a, int i) {
  return s->opts[s->g[a].opt + s->g[a].nl + (uint32_t)i];
}

int cg_is_number(const cg_store *s, cg_id a, cg_dyadic *x) {
  if (!s->g[a].isnum) return 0;
  if (x) *x = s->g[a].x;
  return 1;
}

int cg_nimber_value(const cg_store *s, cg_id a) { return s->g[a].nim; }

static int index_grow(cg_store *s) {
  size_t cap = s->capidx ? s->capidx * 2 : 4096;
  uint32_t *ix = calloc(cap, sizeof *ix);
  if (!ix) return -1;
  for (size_t i = 0; i < s->ng; i++) {
    size_t j = (size_t)s->g[i].hash & (cap - 1);
    while (ix[j]) j = (j + 1) & (cap - 1);
    ix[j] = (uint32_t)i + 1;
  }
  free(s->index);
  s->index = ix;
  s->capidx = cap;
  return 0;
}

/* Flags of a new game from its (canonical) options. */
static void set_flags(cg_store *s, game *g, const cg_id *L, int nl,
                      const cg_id *R, int nr) {
  g->isnum = 0;
  g->nim = -1;
  if (nl == 0 && nr == 0) {
    g->isnum = 1;
    g->x = dy(0, 0);
    g->nim = 0;
    return;
  }
  if (nl == 1 && nr == 0 && s->g[L[0]].isnum && s->g[L[0]].x.exp == 0 &&
      s->g[L[0]].x.num >= 0) {
    g->isnum = 1;
    g->x = dy(s->g[L[0]].x.num + 1, 0);
    return;
  }
  if (nl == 0 && nr == 1 && s->g[R[0]].isnum && s->g[R[0]].x.exp == 0 &&
      s->g[R[0]].x.num <= 0) {
    g->isnum = 1;
    g->x = dy(s->g[R[0]].x.num - 1, 0);
    return;
  }
  if (nl == 1 && nr == 1 && s->g[L[0]].isnum && s->g[R[0]].isnum &&
      dy_cmp(s->g[L[0]].x, s->g[R[0]].x) < 0) {
    cg_dyadic m = dy_add(s->g[L[0]].x, s->g[R[0]].x);
    g->isnum = 1;
    g->x = dy(m.num, m.exp + 1);
    return;
  }
  if (nl == nr && nl <= 1024) { /* *n = {0,*,..,*(n-1) | same} */
    unsigned char seen[1024];
    memset(seen, 0, (size_t)nl);
    for (int i = 0; i < nl; i++) {
      int a = s->g[L[i]].nim, b = s->g[R[i]].nim;
      if (a < 0 || a >= nl || seen[a] & 1 || b < 0 || b >= nl || seen[b] & 2)
        return;
      seen[a] |= 1;
      seen[b] |= 2;
    }
    g->nim = nl;
  }
}

/* The id of the game with these canonical, sorted, distinct options. */
static cg_id intern(cg_store *s, const cg_id *L, int nl, const cg_id *R,
                    int nr) {
  uint64_t h = hash_opts(L, nl, R, nr);
  if (2 * (s->ng + 1) > s->capidx && index_grow(s)) return CG_NONE;
  size_t j = (size_t)h & (s->capidx - 1);
  while (s->index[j]) {
    game *g = &s->g[s->index[j] - 1];
    if (g->hash == h && g->nl == (uint32_t)nl && g->nr == (uint32_t)nr &&
        (!nl || !memcmp(s->opts + g->opt, L, (size_t)nl * sizeof *L)) &&
        (!nr || !memcmp(s->opts + g->opt + nl, R, (size_t)nr * sizeof *R)))
      return s->index[j] - 1;
    j = (j + 1) & (s->capidx - 1);
  }
  if (s->ng >= 0xFFFFFFF0u) return CG_NONE;
  if (s->ng == s->capg) {
    size_t cap = s->capg ? s->capg * 2 : 1024;
    game *ng = realloc(s->g, cap * sizeof *ng);
    if (!ng) return CG_NONE;
    s->g = ng;
    s->capg = cap;
  }
  if (s->nopts + (size_t)nl + (size_t)nr > s->capopts) {
    size_t cap = s->capopts ? s->capopts * 2 : 4096;
    while (cap < s->nopts + (size_t)nl + (size_t)nr) cap *= 2;
    cg_id *no = realloc(s->opts, cap * sizeof *no);
    if (!no) return CG_NONE;
    s->opts = no;
    s->capopts = cap;
  }
  game *g = &s->g[s->ng];
  memset(g, 0, sizeof *g);
  g->opt = (uint32_t)s->nopts;
  g->nl = (uint32_t)nl;
  g->nr = (uint32_t)nr;
  g->neg = CG_NONE;
  g->hash = h;
  if (nl) memcpy(s->opts + s->nopts, L, (size_t)nl * sizeof *L);
  if (nr) memcpy(s->opts + s->nopts + nl, R, (size_t)nr * sizeof *R);
  s->nopts += (size_t)nl + (size_t)nr;
  set_flags(s, g, L, nl, R, nr);
  s->index[j] = (uint32_t)s->ng + 1;
  return (cg_id)s->ng++;
}

cg_store *cg_store_new(void) {
  cg_store *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  if (intern(s, NULL, 0, NULL, 0) != CG_ZERO) {
    cg_store_free(s);
    return NULL;
  }
  s->g[0].neg = CG_ZERO;
  return s;
}

void cg_store_free(cg_store *s) {
  if (!s) return;
  free(s->g);
  free(s->opts);
  free(s->index);
  map_free(&s->le);
  map_free(&s->add);
  map_free(&s->upt);
  free(s);
}

/* ---- numbers and nimbers ---- */

cg_id cg_number(cg_store *s, cg_dyadic x) {
  x = dy(x.num, x.exp);
  if (x.exp < 0 || x.exp > MAX_EXP) return CG_NONE;
  if (x.exp == 0) return cg_integer(s, x.num);
  if (x.num > (MAX_INT << x.exp) || x.num < -(MAX_INT << x.exp))
    return CG_NONE;
  cg_id l = cg_number(s, dy(x.num - 1, x.exp));
  cg_id r = cg_number(s, dy(x.num + 1, x.exp));
  if (l == CG_NONE || r == CG_NONE) return CG_NONE;
  return intern(s, &l, 1, &r, 1);
}

cg_id cg_integer(cg_store *s, int64_t n) {
  cg_id id = CG_ZERO;
  if (n > MAX_INT || n < -MAX_INT) return CG_NONE;
  for (int64_t i = 1; i <= (n < 0 ? -n : n) && id != CG_NONE; i++)
    id = n > 0 ? intern(s, &id, 1, NULL, 0) : intern(s, NULL, 0, &id, 1);
  return id;
}

cg_id cg_nimber(cg_store *s, int n) {
  cg_id opts[1024];
  if (n < 0 || n > 1023) return CG_NONE;
  for (int i = 0; i < n; i++) {
    cg_id v = intern(s, opts, i, opts, i);
    if (v == CG_NONE) return CG_NONE;
    opts[i] = v;
    /* keep sorted by id: nimbers are made in increasing id order unless
    ** some already exist; sort to be safe */
    for (int j = i; j > 0 && opts[j] < opts[j - 1]; j--) {
      cg_id t = opts[j];
      opts[j] = opts[j - 1];
      opts[j - 1] = t;
    }
  }
  return intern(s, opts, n, opts, n);
}

/* ---- comparison ---- */

/* a <= b: no Left option of a is >= b, no Right option of b is <= a. */
int cg_le(cg_store *s, cg_id a, cg_id b) {
  if (a == b) return 1;
  const game *ga = &s->g[a], *gb = &s->g[b];
  if (ga->isnum && gb->isnum) return dy_cmp(ga->x, gb->x) <= 0;
  if (ga->nim >= 0 && gb->nim >= 0) return 0; /* distinct nimbers */
  uint64_t key = (uint64_t)a << 32 | b;
  uint32_t c = map_get(&s->le, key);
  if (c != MAP_EMPTY) return (int)c;
  int r = 1, i, n = (int)ga->nl;
  for (i = 0; i < n && r; i++)
    if (cg_le(s, b, cg_left(s, a, i))) r = 0;
  n = (int)s->g[b].nr;
  for (i = 0; i < n && r; i++)
    if (cg_le(s, cg_right(s, b, i), a)) r = 0;
  map_put(&s->le, key, (uint32_t)r);
  return r;
}

int cg_cmp(cg_store *s, cg_id a, cg_id b) {
  if (a == b) return CG_EQ;
  int le = cg_le(s, a, b), ge = cg_le(s, b, a);
  return le ? (ge ? CG_EQ : CG_LT) : ge ? CG_GT : CG_FUZZY;
}

int cg_outcome(cg_store *s, cg_id a) {
  int le = cg_le(s, a, CG_ZERO), ge = cg_le(s, CG_ZERO, a);
  return le ? (ge ? CG_P : CG_R) : ge ? CG_L : CG_N;
}

int cg_first_wins(cg_store *s, cg_id a, int left) {
  return left ? !cg_le(s, a, CG_ZERO) : !cg_le(s, CG_ZERO, a);
}

/* ---- canonical forms ---- */

typedef struct idvec {
  cg_id *a;
  int n, cap;
} idvec;

static int vec_push(idvec *v, cg_id x) {
  if (v->n == v->cap) {
    int cap = v->cap ? v->cap * 2 : 16;
    cg_id *a = realloc(v->a, (size_t)cap * sizeof *a);
    if (!a) return -1;
    v->a = a;
    v->cap = cap;
  }
  v->a[v->n++] = x;
  return 0;
}

static int cmp_id(const void *x, const void *y) {
  cg_id a = *(const cg_id *)x, b = *(const cg_id *)y;
  return a < b ? -1 : a > b;
}

static void vec_sort_unique(idvec *v) {
  int i, j = 0;
  if (v->n > 1) qsort(v->a, (size_t)v->n, sizeof *v->a, cmp_id);
  for (i = 0; i < v->n; i++)
    if (i == 0 || v->a[i] != v->a[j - 1]) v->a[j++] = v->a[i];
  v->n = j;
}

/*
** Comparisons of stored games x with the game G = {L | R} under
** construction. x <= G: no x^L >= G and no G^R <= x. G <= x: no G^L >= x
** and no x^R <= G. Memoized in 'memo' (key 2x + direction) for this G.
*/
typedef struct form {
  cg_store *s;
  const idvec *L, *R;
  map memo;
} form;

static int form_ge(form *f, cg_id x);

static int form_le_x(form *f, cg_id x) { /* x <= G */
  uint32_t c = map_get(&f->memo, 2 * (uint64_t)x);
  if (c != MAP_EMPTY) return (int)c;
  cg_store *s = f->s;
  int r = 1, i, n = cg_nleft(s, x);
  for (i = 0; i < n && r; i++)
    if (form_ge(f, cg_left(s, x, i))) r = 0;
  for (i = 0; i < f->R->n && r; i++)
    if (cg_le(s, f->R->a[i], x)) r = 0;
  map_put(&f->memo, 2 * (uint64_t)x, (uint32_t)r);
  return r;
}

static int form_ge(form *f, cg_id x) { /* G <= x */
  uint32_t c = map_get(&f->memo, 2 * (uint64_t)x + 1);
  if (c != MAP_EMPTY) return (int)c;
  cg_store *s = f->s;
  int r = 1, i, n = cg_nright(s, x);
  for (i = 0; i < f->L->n && r; i++)
    if (cg_le(s, x, f->L->a[i])) r = 0;
  for (i = 0; i < n && r; i++)
    if (form_le_x(f, cg_right(s, x, i))) r = 0;
  map_put(&f->memo, 2 * (uint64_t)x + 1, (uint32_t)r);
  return r;
}

static void form_reset(form *f) {
  if (f->memo.cap) {
    for (size_t i = 0; i < f->memo.cap; i++) f->memo.v[i] = MAP_EMPTY;
    f->memo.n = 0;
  }
}

/* Remove from 'v' each option dominated by another: for Left (left = 1)
** an option <= another, for Right an option >= another. */
static void remove_dominated(cg_store *s, idvec *v, int left) {
  int i, j, k = 0;
  for (i = 0; i < v->n; i++) {
    int dom = 0;
    for (j = 0; j < v->n && !dom; j++)
      if (j != i && v->a[j] != CG_NONE)
        dom = left ? cg_le(s, v->a[i], v->a[j]) : cg_le(s, v->a[j], v->a[i]);
    if (dom) v->a[i] = CG_NONE; /* marked; the survivors compare alike */
  }
  for (i = 0; i < v->n; i++)
    if (v->a[i] != CG_NONE) v->a[k++] = v->a[i];
  v->n = k;
}

/*
** Bypass one reversible option if there is one: a Left option A with a
** Right option A^R <= G is replaced by the Left options of A^R (and the
** mirror for Right). Returns 1 when one was bypassed, 0 when none, -1 on
** out of memory.
*/
static int bypass_one(form *f, idvec *L, idvec *R) {
  cg_store *s = f->s;
  for (int side = 0; side < 2; side++) {
    idvec *v = side == 0 ? L : R;
    for (int i = 0; i < v->n; i++) {
      cg_id a = v->a[i];
      int n = side == 0 ? cg_nright(s, a) : cg_nleft(s, a);
      for (int j = 0; j < n; j++) {
        cg_id x = side == 0 ? cg_right(s, a, j) : cg_left(s, a, j);
        if (side == 0 ? form_le_x(f, x) : form_ge(f, x)) {
          int m = side == 0 ? cg_nleft(s, x) : cg_nright(s, x);
          v->a[i] = v->a[--v->n];
          for (int k = 0; k < m; k++)
            if (vec_push(v, side == 0 ? cg_left(s, x, k) : cg_right(s, x, k)))
              return -1;
          return 1;
        }
      }
    }
  }
  return 0;
}

/* All of 'v' numbers? Then their max (left) or min (right) in 'x'. */
static int all_numbers(const cg_store *s, const idvec *v, int left,
                       cg_dyadic *x) {
  for (int i = 0; i < v->n; i++) {
    const game *g = &s->g[v->a[i]];
    if (!g->isnum) return 0;
    if (i == 0 || (left ? dy_cmp(g->x, *x) > 0 : dy_cmp(g->x, *x) < 0))
      *x = g->x;
  }
  return 1;
}

static cg_id canon(cg_store *s, idvec *L, idvec *R) {
  form f;
  cg_id out = CG_NONE;
  memset(&f, 0, sizeof f);
  f.s = s;
  f.L = L;
  f.R = R;
  for (;;) {
    cg_dyadic lo = {0, 0}, hi = {0, 0};
    vec_sort_unique(L);
    vec_sort_unique(R);
    if (all_numbers(s, L, 1, &lo) && all_numbers(s, R, 0, &hi) &&
        (L->n == 0 || R->n == 0 || dy_cmp(lo, hi) < 0)) {
      out = cg_number(s, simplest(L->n > 0, lo, R->n > 0, hi));
      break;
    }
    remove_dominated(s, L, 1);
    remove_dominated(s, R, 0);
    form_reset(&f);
    int r = bypass_one(&f, L, R);
    if (r < 0) break;
    if (r == 0) {
      out = intern(s, L->a, L->n, R->a, R->n);
      break;
    }
    form_reset(&f);
  }
  map_free(&f.memo);
  return out;
}

cg_id cg_make(cg_store *s, const cg_id *L, int nl, const cg_id *R, int nr) {
  idvec l = {0, 0, 0}, r = {0, 0, 0};
  cg_id out = CG_NONE;
  int i, ok = 1;
  for (i = 0; i < nl && ok; i++) ok = L[i] != CG_NONE && !vec_push(&l, L[i]);
  for (i = 0; i < nr && ok; i++) ok = R[i] != CG_NONE && !vec_push(&r, R[i]);
  if (ok) out = canon(s, &l, &r);
  free(l.a);
  free(r.a);
  return out;
}

/* ---- arithmetic ---- */

cg_id cg_neg(cg_store *s, cg_id a) {
  if (a == CG_NONE) return CG_NONE;
  if (s->g[a].neg != CG_NONE) return s->g[a].neg;
  if (s->g[a].nim >= 0) return s->g[a].neg = a;
  int nl = cg_nleft(s, a), nr = cg_nright(s, a), i;
  cg_id *L = malloc(((size_t)nr + 1) * sizeof *L);
  cg_id *R = malloc(((size_t)nl + 1) * sizeof *R);
  cg_id out = CG_NONE;
  if (L && R) {
    for (i = 0; i < nr; i++) L[i] = cg_neg(s, cg_right(s, a, i));
    for (i = 0; i < nl; i++) R[i] = cg_neg(s, cg_left(s, a, i));
    /* the negative of a canonical form is canonical */
    int ok = 1;
    for (i = 0; i < nr; i++) ok &= L[i] != CG_NONE;
    for (i = 0; i < nl; i++) ok &= R[i] != CG_NONE;
    if (ok) {
      if (nr > 1) qsort(L, (size_t)nr, sizeof *L, cmp_id);
      if (nl > 1) qsort(R, (size_t)nl, sizeof *R, cmp_id);
      out = intern(s, L, nr, R, nl);
    }
  }
  free(L), free(R);
  if (out != CG_NONE) {
    s->g[a].neg = out;
    s->g[out].neg = a;
  }
  return out;
}

cg_id cg_add(cg_store *s, cg_id a, cg_id b) {
  if (a == CG_NONE || b == CG_NONE) return CG_NONE;
  if (a == CG_ZERO) return b;
  if (b == CG_ZERO) return a;
  if (a > b) {
    cg_id t = a;
    a = b;
    b = t;
  }
  const game *ga = &s->g[a], *gb = &s->g[b];
  if (ga->isnum && gb->isnum) return cg_number(s, dy_add(ga->x, gb->x));
  if (ga->nim >= 0 && gb->nim >= 0) return cg_nimber(s, ga->nim ^ gb->nim);
  uint64_t key = (uint64_t)a << 32 | b;
  uint32_t c = map_get(&s->add, key);
  if (c != MAP_EMPTY) return c;
  /* Number translation: x + G = {x + G^L | x + G^R} for G not a number. */
  int anum = ga->isnum, bnum = gb->isnum;
  idvec L = {0, 0, 0}, R = {0, 0, 0};
  int ok = 1, i, n;
  if (!anum) {
    n = cg_nleft(s, a);
    for (i = 0; i < n && ok; i++)
      ok = !vec_push(&L, cg_add(s, cg_left(s, a, i), b));
    n = cg_nright(s, a);
    for (i = 0; i < n && ok; i++)
      ok = !vec_push(&R, cg_add(s, cg_right(s, a, i), b));
  }
  if (!bnum) {
    n = cg_nleft(s, b);
    for (i = 0; i < n && ok; i++)
      ok = !vec_push(&L, cg_add(s, a, cg_left(s, b, i)));
    n = cg_nright(s, b);
    for (i = 0; i < n && ok; i++)
      ok = !vec_push(&R, cg_add(s, a, cg_right(s, b, i)));
  }
  cg_id out = CG_NONE;
  for (i = 0; i < L.n; i++) ok &= L.a[i] != CG_NONE;
  for (i = 0; i < R.n; i++) ok &= R.a[i] != CG_NONE;
  if (ok) out = canon(s, &L, &R);
  free(L.a), free(R.a);
  if (out != CG_NONE) map_put(&s->add, key, out);
  return out;
}

cg_id cg_sub(cg_store *s, cg_id a, cg_id b) {
  return cg_add(s, a, cg_neg(s, b));
}

cg_id cg_ups(cg_store *s, int n) {
  cg_id star = cg_nimber(s, 1), up, acc = CG_ZERO;
  if (star == CG_NONE || n > 64 || n < -64) return CG_NONE;
  cg_id zero = CG_ZERO;
  up = intern(s, &zero, 1, &star, 1); /* ^ = {0|*} is canonical */
  if (up == CG_NONE) return CG_NONE;
  for (int i = 0; i < (n < 0 ? -n : n); i++) acc = cg_add(s, acc, up);
  return n < 0 ? cg_neg(s, acc) : acc;
}

/* ---- stops, uptimals, thermographs ---- */

static void stops(cg_store *s, cg_id a) {
  game *g = &s->g[a];
  if (g->stops) return;
  if (g->isnum) {
    g->ls = g->rs = dy_double(g->x);
  } else {
    double ls = -INFINITY, rs = INFINITY;
    int i, n = (int)g->nl;
    for (i = 0; i < n; i++) {
      cg_id o = cg_left(s, a, i);
      stops(s, o);
      if (s->g[o].rs > ls) ls = s->g[o].rs;
    }
    n = (int)s->g[a].nr;
    for (i = 0; i < n; i++) {
      cg_id o = cg_right(s, a, i);
      stops(s, o);
      if (s->g[o].ls < rs) rs = s->g[o].ls;
    }
    g = &s->g[a];
    g->ls = ls;
    g->rs = rs;
  }
  g->stops = 1;
}

double cg_left_stop(cg_store *s, cg_id a) {
  stops(s, a);
  return s->g[a].ls;
}

double cg_right_stop(cg_store *s, cg_id a) {
  stops(s, a);
  return s->g[a].rs;
}

static int build_uptimals(cg_store *s) {
  cg_id ups[2 * UP_MAX + 1], nims[NIM_MAX + 1];
  for (int m = 0; m <= NIM_MAX; m++)
    if ((nims[m] = cg_nimber(s, m)) == CG_NONE) return -1;
  for (int n = -UP_MAX; n <= UP_MAX; n++)
    if ((ups[n + UP_MAX] = cg_ups(s, n)) == CG_NONE) return -1;
  for (int n = -UP_MAX; n <= UP_MAX; n++)
    for (int m = 0; m <= NIM_MAX; m++) {
      cg_id g = cg_add(s, ups[n + UP_MAX], nims[m]);
      if (g == CG_NONE) return -1;
      map_put(&s->upt, g, (uint32_t)((n + UP_MAX) * 16 + m));
    }
  s->upt_built = 1;
  return 0;
}

int cg_uptimal(cg_store *s, cg_id a, cg_dyadic *x, int *n, int *m) {
  cg_dyadic zero = {0, 0}, v;
  if (s->g[a].isnum) {
    *x = s->g[a].x, *n = 0, *m = 0;
    return 1;
  }
  if (s->g[a].nim >= 0) {
    *x = zero, *n = 0, *m = s->g[a].nim;
    return 1;
  }
  stops(s, a);
  if (s->g[a].ls != s->g[a].rs) return 0;
  if (!s->upt_built && build_uptimals(s)) return 0;
  v = cg_dyadic_of(s->g[a].ls);
  cg_id h = v.num ? cg_add(s, a, cg_number(s, dy(-v.num, v.exp))) : a;
  if (h == CG_NONE) return 0;
  uint32_t c = map_get(&s->upt, h);
  if (c == MAP_EMPTY) return 0;
  *x = v;
  *n = (int)(c / 16) - UP_MAX;
  *m = (int)(c % 16);
  return 1;
}

/*
** Thermographs (Siegel II.5; Berlekamp, Conway, Guy ch. 6). A wall is a
** continuous piecewise linear function of the temperature t >= 0: points
** (t[i], v[i]) with t[0] = 0, then slope 'slope' after the last point. The
** slopes met are -1, 0 and 1, so every crossing point is dyadic and the
** doubles stay exact.
*/
typedef struct pl {
  int n, cap;
  double *t, *v;
  double slope;
} pl;

static void pl_free(pl *f) {
  free(f->t);
  free(f->v);
  memset(f, 0, sizeof *f);
}

static int pl_push(pl *f, double t, double v) {
  if (f->n && t <= f->t[f->n - 1]) return 0; /* duplicate point */
  if (f->n == f->cap) {
    int cap = f->cap ? f->cap * 2 : 8;
    double *nt = realloc(f->t, (size_t)cap * sizeof *nt);
    if (!nt) return -1;
    f->t = nt;
    double *nv = realloc(f->v, (size_t)cap * sizeof *nv);
    if (!nv) return -1;
    f->v = nv;
    f->cap = cap;
  }
  f->t[f->n] = t;
  f->v[f->n++] = v;
  return 0;
}

static double pl_eval(const pl *f, double t) {
  int i = f->n - 1;
  if (t >= f->t[i]) return f->v[i] + f->slope * (t - f->t[i]);
  while (i > 0 && f->t[i - 1] > t) i--;
  /* t in [t[i-1], t[i]] */
  double a = f->t[i - 1], b = f->t[i];
  return f->v[i - 1] + (f->v[i] - f->v[i - 1]) * ((t - a) / (b - a));
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* The breakpoints of f and g merged (sorted, distinct) into 'ts'. */
static int merged_points(const pl *f, const pl *g, double **ts, int *n) {
  double *t = malloc((size_t)(f->n + g->n) * sizeof *t);
  int i, k = 0;
  if (!t) return -1;
  for (i = 0; i < f->n; i++) t[k++] = f->t[i];
  for (i = 0; i < g->n; i++) t[k++] = g->t[i];
  qsort(t, (size_t)k, sizeof *t, cmp_double);
  int j = 0;
  for (i = 0; i < k; i++)
    if (i == 0 || t[i] != t[j - 1]) t[j++] = t[i];
  *ts = t;
  *n = j;
  return 0;
}

/* out = max(f, g) (sign 1) or min(f, g) (sign -1). */
static int pl_extreme(const pl *f, const pl *g, int sign, pl *out) {
  double *ts;
  int n, i;
  memset(out, 0, sizeof *out);
  if (merged_points(f, g, &ts, &n)) return -1;
  for (i = 0; i < n; i++) {
    double a = ts[i], fa = pl_eval(f, a), ga = pl_eval(g, a), da = fa - ga;
    if (pl_push(out, a, sign > 0 ? fmax(fa, ga) : fmin(fa, ga))) goto oom;
    double b, db;
    if (i + 1 < n) {
      b = ts[i + 1];
      db = pl_eval(f, b) - pl_eval(g, b);
    } else {
      b = a + 1; /* beyond the last point both are straight lines */
      db = da + (f->slope - g->slope);
    }
    if ((da < 0 && db > 0) || (da > 0 && db < 0)) {
      double rate = (db - da) / (b - a), c = a - da / rate;
      if (i + 1 < n || c > a) {
        double v = pl_eval(f, c);
        if (pl_push(out, c, v)) goto oom;
      }
    }
  }
  {
    double t = out->t[out->n - 1] + 1;
    double fv = pl_eval(f, t), gv = pl_eval(g, t);
    if (fv == gv)
      out->slope = sign > 0 ? fmax(f->slope, g->slope) : fmin(f->slope, g->slope);
    else
      out->slope = ((fv > gv) == (sign > 0)) ? f->slope : g->slope;
  }
  free(ts);
  return 0;
oom:
  free(ts);
  pl_free(out);
  return -1;
}

/* f(t) + c * t. */
static void pl_tilt(pl *f, double c) {
  for (int i = 0; i < f->n; i++) f->v[i] += c * f->t[i];
  f->slope += c;
}

static int pl_const(pl *f, double x) {
  memset(f, 0, sizeof *f);
  f->slope = 0;
  return pl_push(f, 0, x);
}

static int pl_copy(const pl *f, pl *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < f->n; i++)
    if (pl_push(out, f->t[i], f->v[i])) return -1;
  out->slope = f->slope;
  return 0;
}

/* The least t >= 0 with f(t) <= g(t), or -1 when there is none. */
static double pl_meet(const pl *f, const pl *g) {
  double *ts, res = -1;
  int n, i;
  if (merged_points(f, g, &ts, &n)) return -2;
  for (i = 0; i < n; i++) {
    double a = ts[i], da = pl_eval(f, a) - pl_eval(g, a);
    if (da <= 0) {
      res = a;
      break;
    }
    double b, db;
    if (i + 1 < n) {
      b = ts[i + 1];
      db = pl_eval(f, b) - pl_eval(g, b);
    } else {
      b = a + 1;
      db = da + (f->slope - g->slope);
      if (db >= da) break; /* never meets */
    }
    if (db <= 0 || i + 1 == n) {
      double rate = (db - da) / (b - a);
      res = a - da / rate;
      break;
    }
  }
  free(ts);
  return res;
}

typedef struct thermo {
  pl lw, rw;
  double mean, temp;
} thermo;

typedef struct tctx {
  cg_store *s;
  map done; /* id -> index in 'th' */
  thermo *th;
  int n, cap;
} tctx;

static int thermograph(tctx *c, cg_id a, int *out);

/* The walls of 'a' (a non-number): scaffolds cut at their meeting point. */
static int thermo_compute(tctx *c, cg_id a, thermo *t) {
  cg_store *s = c->s;
  pl ls, rs, tmp;
  int i, k, nl = cg_nleft(s, a), nr = cg_nright(s, a);
  memset(t, 0, sizeof *t);
  memset(&ls, 0, sizeof ls);
  memset(&rs, 0, sizeof rs);
  if (nl == 0 || nr == 0) return -1; /* only numbers lack a side */
  for (i = 0; i < nl; i++) {
    if (thermograph(c, cg_left(s, a, i), &k)) goto fail;
    pl w;
    if (pl_copy(&c->th[k].rw, &w)) goto fail;
    pl_tilt(&w, -1);
    if (i == 0) {
      ls = w;
    } else {
      int e = pl_extreme(&ls, &w, 1, &tmp);
      pl_free(&ls);
      pl_free(&w);
      if (e) goto fail;
      ls = tmp;
    }
  }
  for (i = 0; i < nr; i++) {
    if (thermograph(c, cg_right(s, a, i), &k)) goto fail;
    pl w;
    if (pl_copy(&c->th[k].lw, &w)) goto fail;
    pl_tilt(&w, 1);
    if (i == 0) {
      rs = w;
    } else {
      int e = pl_extreme(&rs, &w, -1, &tmp);
      pl_free(&rs);
      pl_free(&w);
      if (e) goto fail;
      rs = tmp;
    }
  }
  double T = pl_meet(&ls, &rs);
  if (T < 0) goto fail;
  double m = pl_eval(&ls, T);
  t->temp = T;
  t->mean = m;
  /* walls: the scaffolds up to T, then the mast at m */
  for (int side = 0; side < 2; side++) {
    pl *src = side == 0 ? &ls : &rs, *dst = side == 0 ? &t->lw : &t->rw;
    for (i = 0; i < src->n && src->t[i] < T; i++)
      if (pl_push(dst, src->t[i], src->v[i])) goto fail;
    if (pl_push(dst, T, m)) goto fail;
    dst->slope = 0;
  }
  pl_free(&ls);
  pl_free(&rs);
  return 0;
fail:
  pl_free(&ls);
  pl_free(&rs);
  pl_free(&t->lw);
  pl_free(&t->rw);
  return -1;
}

static int thermograph(tctx *c, cg_id a, int *out) {
  uint32_t k = map_get(&c->done, a);
  thermo t;
  if (k != MAP_EMPTY) {
    *out = (int)k;
    return 0;
  }
  if (cg_is_number(c->s, a, NULL)) {
    cg_dyadic x = c->s->g[a].x;
    double v = dy_double(x);
    memset(&t, 0, sizeof t);
    if (pl_const(&t.lw, v) || pl_const(&t.rw, v)) {
      pl_free(&t.lw), pl_free(&t.rw);
      return -1;
    }
    t.mean = v;
    t.temp = x.exp == 0 ? -1.0 : -ldexp(1.0, -x.exp);
  } else if (thermo_compute(c, a, &t)) {
    return -1;
  }
  if (c->n == c->cap) {
    int cap = c->cap ? c->cap * 2 : 64;
    thermo *nt = realloc(c->th, (size_t)cap * sizeof *nt);
    if (!nt) {
      pl_free(&t.lw), pl_free(&t.rw);
      return -1;
    }
    c->th = nt;
    c->cap = cap;
  }
  c->th[c->n] = t;
  map_put(&c->done, a, (uint32_t)c->n);
  if (map_get(&c->done, a) != (uint32_t)c->n) {
    pl_free(&t.lw), pl_free(&t.rw);
    return -1;
  }
  *out = c->n++;
  return 0;
}

int cg_mean_temp(cg_store *s, cg_id a, double *mean, double *temp) {
  tctx c;
  int k, r;
  memset(&c, 0, sizeof c);
  c.s = s;
  r = thermograph(&c, a, &k);
  if (r == 0) {
    *mean = c.th[k].mean;
    *temp = c.th[k].temp;
  }
  for (int i = 0; i < c.n; i++) pl_free(&c.th[i].lw), pl_free(&c.th[i].rw);
  free(c.th);
  map_free(&c.done);
  return r;
}

/* ---- text ---- */

typedef struct sbuf {
  char *p;
  size_t n, cap;
  int oom;
} sbuf;

static void sb_add(sbuf *b, const char *t) {
  size_t k = strlen(t);
  if (b->oom) return;
  if (b->n + k + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 64;
    while (cap < b->n + k + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, t, k + 1);
  b->n += k;
}

/* CGSuite's order for printing options: numbers, then nimbers, then
** number+ups+star, then the rest by their sorted option lists. */
static int print_cmp(cg_store *s, cg_id a, cg_id b);

static void print_sort(cg_store *s, cg_id *v, int n) {
  for (int i = 1; i < n; i++) {
    cg_id x = v[i];
    int j = i - 1;
    while (j >= 0 && print_cmp(s, v[j], x) > 0) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
}

static int options_sorted(cg_store *s, cg_id a, int left, cg_id **out) {
  int n = left ? cg_nleft(s, a) : cg_nright(s, a);
  cg_id *v = malloc(((size_t)n + 1) * sizeof *v);
  if (!v) return -1;
  for (int i = 0; i < n; i++) v[i] = left ? cg_left(s, a, i) : cg_right(s, a, i);
  print_sort(s, v, n);
  *out = v;
  return n;
}

static int category(cg_store *s, cg_id a, cg_dyadic *x, int *n, int *m) {
  if (cg_is_number(s, a, x)) return 0;
  if ((*m = cg_nimber_value(s, a)) >= 0) return 1;
  if (cg_uptimal(s, a, x, n, m)) return 2;
  return 3;
}

static int print_cmp_lists(cg_store *s, cg_id a, cg_id b, int left) {
  cg_id *u = NULL, *v = NULL;
  int nu = options_sorted(s, a, left, &u), nv = options_sorted(s, b, left, &v);
  int c = 0, i;
  for (i = 0; c == 0 && i < nu && i < nv; i++) c = print_cmp(s, u[i], v[i]);
  if (c == 0) c = nu < nv ? -1 : nu > nv;
  free(u), free(v);
  return c;
}

static int print_cmp(cg_store *s, cg_id a, cg_id b) {
  cg_dyadic xa = {0, 0}, xb = {0, 0};
  int na = 0, nb = 0, ma = 0, mb = 0;
  if (a == b) return 0;
  int ca = category(s, a, &xa, &na, &ma), cb = category(s, b, &xb, &nb, &mb);
  if (ca != cb) return ca < cb ? -1 : 1;
  switch (ca) {
  case 0:
    return dy_cmp(xa, xb);
  case 1:
    return ma < mb ? -1 : ma > mb;
  case 2: {
    int c = dy_cmp(xa, xb);
    if (c) return c;
    if (na != nb) return na < nb ? -1 : 1;
    return ma < mb ? -1 : ma > mb;
  }
  default: {
    int c = print_cmp_lists(s, a, b, 1);
    return c ? c : print_cmp_lists(s, a, b, 0);
  }
  }
}

static void uptimal_text(sbuf *b, cg_dyadic x, int n, int m) {
  char t[64];
  if (x.num != 0 || (n == 0 && m == 0)) {
    cg_dyadic_text(x, t, sizeof t);
    sb_add(b, t);
  }
  if (n == 1 || n == 2) sb_add(b, n == 1 ? "^" : "^^");
  else if (n == -1 || n == -2) sb_add(b, n == -1 ? "v" : "vv");
  else if (n) {
    snprintf(t, sizeof t, "%c%d", n > 0 ? '^' : 'v', n > 0 ? n : -n);
    sb_add(b, t);
  }
  if (m == 1) sb_add(b, "*");
  else if (m > 1) {
    snprintf(t, sizeof t, "*%d", m);
    sb_add(b, t);
  }
}

#define MAX_SLASHES 4

/* Append 'a'; returns the slashes of an unbracketed top level (CGSuite's
** {2||1|0} convention), 0 when bracketed or atomic. */
static int append_game(cg_store *s, sbuf *b, cg_id a, int force) {
  cg_dyadic x;
  int n, m, i;
  if (b->oom) return 0;
  if (cg_uptimal(s, a, &x, &n, &m)) {
    uptimal_text(b, x, n, m);
    return 0;
  }
  cg_id *lo = NULL, *ro = NULL;
  int nl = options_sorted(s, a, 1, &lo), nr = options_sorted(s, a, 0, &ro);
  if (nl < 0 || nr < 0) {
    b->oom = 1;
    free(lo), free(ro);
    return 0;
  }
  int ns = 0;
  if (cg_neg(s, a) == a && nl > 0) { /* a switch: +-G^L */
    sb_add(b, "+-");
    if (nl > 1) sb_add(b, "{");
    for (i = 0; i < nl; i++) {
      if (i) sb_add(b, ",");
      append_game(s, b, lo[i], 1);
    }
    if (nl > 1) sb_add(b, "}");
  } else {
    sbuf l = {0, 0, 0, 0}, r = {0, 0, 0, 0};
    int sl = 1, sr = 1;
    sb_add(&l, "");
    sb_add(&r, "");
    for (i = 0; i < nl; i++) {
      if (i) sb_add(&l, ",");
      int k = append_game(s, &l, lo[i], nl > 1) + 1;
      if (k > sl) sl = k;
    }
    for (i = 0; i < nr; i++) {
      if (i) sb_add(&r, ",");
      int k = append_game(s, &r, ro[i], nr > 1) + 1;
      if (k > sr) sr = k;
    }
    ns = sl > sr ? sl : sr;
    int brackets = force || ns >= MAX_SLASHES;
    if (brackets) sb_add(b, "{");
    if (l.oom || r.oom) b->oom = 1;
    else {
      sb_add(b, l.p);
      for (i = 0; i < ns; i++) sb_add(b, "|");
      sb_add(b, r.p);
    }
    if (brackets) {
      sb_add(b, "}");
      ns = 0;
    }
    free(l.p), free(r.p);
  }
  free(lo), free(ro);
  return ns;
}

size_t cg_text(cg_store *s, cg_id a, char *buf, size_t len) {
  sbuf b = {0, 0, 0, 0};
  size_t n;
  if (a == CG_NONE || a >= s->ng) {
    sb_add(&b, "?");
  } else {
    append_game(s, &b, a, 1);
  }
  if (b.oom) {
    free(b.p);
    if (len) snprintf(buf, len, "?");
    return 0;
  }
  n = b.n;
  if (len) {
    size_t c = n < len - 1 ? n : len - 1;
    memcpy(buf, b.p, c);
    buf[c] = '\0';
  }
  free(b.p);
  return n;
}

/* ---- parsing ---- */

typedef struct parser {
  cg_store *s;
  const char *text, *p;
  char *err;
  size_t errlen;
  int failed;
  int depth;
} parser;

static void perr(parser *ps, const char *msg) {
  if (ps->failed) return;
  ps->failed = 1;
  if (ps->err && ps->errlen)
    snprintf(ps->err, ps->errlen, "%s at character %d", msg,
             (int)(ps->p - ps->text) + 1);
}

static void skip_ws(parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
    ps->p++;
}

static cg_id p_sum(parser *ps);

static int read_int(parser *ps, int64_t *v) {
  int64_t n = 0;
  if (*ps->p < '0' || *ps->p > '9') return 0;
  while (*ps->p >= '0' && *ps->p <= '9') {
    n = n * 10 + (*ps->p - '0');
    if (n > ((int64_t)1 << 50)) {
      perr(ps, "number too large");
      return 0;
    }
    ps->p++;
  }
  *v = n;
  return 1;
}

static int is_pm(const char *p) {
  return (p[0] == '+' && p[1] == '-') ||
         ((unsigned char)p[0] == 0xC2 && (unsigned char)p[1] == 0xB1);
}

/* x, ^, v, * parts: [-]digits[/2^k] [^..|v..] [*[n]] */
static cg_id p_uptimal(parser *ps) {
  const char *start = ps->p;
  int64_t num = 0, den = 1;
  int neg = 0, have = 0, ups = 0, nim = 0;
  cg_dyadic x = {0, 0};
  if (*ps->p == '-' && ps->p[1] >= '0' && ps->p[1] <= '9') neg = 1, ps->p++;
  if (read_int(ps, &num)) {
    have = 1;
    if (*ps->p == '/') {
      ps->p++;
      if (!read_int(ps, &den) || den <= 0 || (den & (den - 1))) {
        perr(ps, "a fraction's denominator must be a power of two");
        return CG_NONE;
      }
    }
    int e = 0;
    while (((int64_t)1 << e) < den) e++;
    if (e > MAX_EXP || num > MAX_INT << e) {
      perr(ps, "number out of range");
      return CG_NONE;
    }
    x = dy(neg ? -num : num, e);
  }
  if (ps->failed) return CG_NONE;
  if (*ps->p == '^' || *ps->p == 'v') {
    char c = *ps->p;
    int k = 0;
    while (*ps->p == c) ps->p++, k++;
    if (k == 1 && *ps->p >= '0' && *ps->p <= '9') {
      int64_t v;
      read_int(ps, &v);
      if (v > 64) {
        perr(ps, "too many ups");
        return CG_NONE;
      }
      k = (int)v;
    }
    ups = c == '^' ? k : -k;
    have = 1;
  }
  if (*ps->p == '*') {
    ps->p++;
    nim = 1;
    if (*ps->p >= '0' && *ps->p <= '9') {
      int64_t v;
      read_int(ps, &v);
      if (v > 1023) {
        perr(ps, "nimber too large");
        return CG_NONE;
      }
      nim = (int)v;
    }
    have = 1;
  }
  if (!have) {
    ps->p = start;
    perr(ps, "expected a game (a number, ^, v, *, +-G or {...|...})");
    return CG_NONE;
  }
  cg_id g = cg_number(ps->s, x);
  g = cg_add(ps->s, g, cg_ups(ps->s, ups));
  g = cg_add(ps->s, g, cg_nimber(ps->s, nim));
  if (g == CG_NONE) perr(ps, "out of memory");
  return g;
}

/* A comma list of options up to a '|' or '}' (possibly empty). */
static int p_list(parser *ps, idvec *v) {
  skip_ws(ps);
  if (*ps->p == '|' || *ps->p == '}') return 0;
  for (;;) {
    cg_id g = p_sum(ps);
    if (g == CG_NONE || vec_push(v, g)) {
      perr(ps, "out of memory");
      return -1;
    }
    skip_ws(ps);
    if (*ps->p != ',') return 0;
    ps->p++;
  }
}

/* Build a game from segments lo..hi joined by slash runs. */
static cg_id p_build(parser *ps, idvec *segs, int *runs, int lo, int hi) {
  int k = -1, best = 0, count = 0, i;
  for (i = lo; i < hi; i++) {
    if (runs[i] > best) best = runs[i], k = i, count = 1;
    else if (runs[i] == best) count++;
  }
  if (count != 1) {
    perr(ps, "ambiguous slashes: use braces or more slashes");
    return CG_NONE;
  }
  cg_id side[2];
  const cg_id *opt[2];
  int nopt[2];
  for (int sd = 0; sd < 2; sd++) {
    int a = sd == 0 ? lo : k + 1, b = sd == 0 ? k : hi;
    if (a == b) {
      opt[sd] = segs[a].a;
      nopt[sd] = segs[a].n;
    } else {
      side[sd] = p_build(ps, segs, runs, a, b);
      if (side[sd] == CG_NONE) return CG_NONE;
      opt[sd] = &side[sd];
      nopt[sd] = 1;
    }
  }
  return cg_make(ps->s, opt[0], nopt[0], opt[1], nopt[1]);
}

/* '{' already consumed: segments separated by runs of '|', then '}'. */
static cg_id p_braced(parser *ps) {
  idvec segs[64];
  int runs[64], n = 0, i;
  cg_id out = CG_NONE;
  memset(segs, 0, sizeof segs);
  for (;;) {
    if (n == 64) {
      perr(ps, "too many '|' groups");
      goto done;
    }
    if (p_list(ps, &segs[n])) goto done;
    n++;
    skip_ws(ps);
    if (*ps->p == '}') {
      ps->p++;
      break;
    }
    if (*ps->p != '|') {
      perr(ps, *ps->p ? "expected ',', '|' or '}'" : "missing '}'");
      goto done;
    }
    int r = 0;
    while (*ps->p == '|') ps->p++, r++;
    runs[n - 1] = r;
  }
  if (n == 1) {
    perr(ps, "a game in braces needs a '|'");
    goto done;
  }
  out = p_build(ps, segs, runs, 0, n - 1);
done:
  for (i = 0; i < 64; i++) free(segs[i].a);
  return out;
}

/* +-G: {G | -G}; +-{a,b}: {a,b | -a,-b}. */
static cg_id p_switch(parser *ps) {
  idvec v = {0, 0, 0};
  cg_id out = CG_NONE;
  skip_ws(ps);
  const char *save = ps->p;
  if (*ps->p == '{') {
    /* a brace with only a comma list is the list of options */
    ps->p++;
    if (!p_list(ps, &v) && *ps->p == '}') {
      ps->p++;
      goto build;
    }
    free(v.a);
    v.a = NULL, v.n = v.cap = 0;
    if (ps->failed) return CG_NONE;
    ps->p = save;
  }
  {
    cg_id g = p_sum(ps);
    if (g == CG_NONE || vec_push(&v, g)) return CG_NONE;
  }
build:;
  idvec r = {0, 0, 0};
  int ok = 1;
  for (int i = 0; i < v.n && ok; i++) ok = !vec_push(&r, cg_neg(ps->s, v.a[i]));
  if (ok) out = cg_make(ps->s, v.a, v.n, r.a, r.n);
  free(v.a), free(r.a);
  if (out == CG_NONE) perr(ps, "out of memory");
  return out;
}

static cg_id p_term(parser *ps) {
  skip_ws(ps);
  if (++ps->depth > 200) {
    perr(ps, "nested too deeply");
    return CG_NONE;
  }
  cg_id g;
  if (is_pm(ps->p)) {
    ps->p += 2;
    g = p_switch(ps);
  } else if (*ps->p == '{') {
    ps->p++;
    g = p_braced(ps);
  } else if (*ps->p == '-' && !(ps->p[1] >= '0' && ps->p[1] <= '9')) {
    ps->p++;
    g = cg_neg(ps->s, p_term(ps));
  } else {
    g = p_uptimal(ps);
  }
  ps->depth--;
  return ps->failed ? CG_NONE : g;
}

/* term { "+-" switch | "+" term } */
static cg_id p_sum(parser *ps) {
  cg_id g = p_term(ps);
  for (;;) {
    if (g == CG_NONE) return CG_NONE;
    skip_ws(ps);
    if (is_pm(ps->p)) {
      ps->p += 2;
      g = cg_add(ps->s, g, p_switch(ps));
    } else if (*ps->p == '+') {
      ps->p++;
      g = cg_add(ps->s, g, p_term(ps));
    } else {
      return g;
    }
  }
}

int cg_parse(cg_store *s, const char *text, cg_id *out, char *err,
             size_t errlen) {
  parser ps;
  memset(&ps, 0, sizeof ps);
  ps.s = s;
  ps.text = ps.p = text ? text : "";
  ps.err = err;
  ps.errlen = errlen;
  cg_id g = p_sum(&ps);
  skip_ws(&ps);
  if (!ps.failed && *ps.p) perr(&ps, "unexpected text");
  if (ps.failed || g == CG_NONE) {
    if (!ps.failed) perr(&ps, "out of memory");
    return -1;
  }
  *out = g;
  return 0;
}
