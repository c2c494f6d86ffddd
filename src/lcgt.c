/*
** lcgt.c: the binding of game values (cgt.c) and Kōnane regions
** (region.c). One store and one region table per Lua state, kept in the
** registry; a value is a userdata konane.cgt.Value holding an id of that
** store (and the store as its user value, so the store outlives it).
** The Lua side is lua/konane/cgt.lua.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lauxlib.h"
#include "lua.h"

#include "cgt.h"
#include "lkonane.h"
#include "region.h"
#include "solve.h"
#include "tt.h"

#define STORE_MT "konane.cgt.Store"
#define VALUE_MT "konane.cgt.Value"
#define STORE_KEY "konane.cgt.store"

typedef struct lstore {
  cg_store *s;
  cgk *k;
} lstore;

typedef struct lvalue {
  cg_id id;
} lvalue;

static int store_gc(lua_State *L) {
  lstore *st = (lstore *)luaL_checkudata(L, 1, STORE_MT);
  cgk_free(st->k);
  cg_store_free(st->s);
  st->k = NULL;
  st->s = NULL;
  return 0;
}

/* Pushes this state's store (made on first use) and returns it. */
static lstore *push_store(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, STORE_KEY) == LUA_TUSERDATA)
    return (lstore *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  lstore *st = (lstore *)lua_newuserdatauv(L, sizeof *st, 0);
  st->s = NULL;
  st->k = NULL;
  luaL_setmetatable(L, STORE_MT);
  st->s = cg_store_new();
  st->k = st->s ? cgk_new(st->s) : NULL;
  if (!st->s || !st->k) luaL_error(L, "not enough memory for game values");
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, STORE_KEY);
  return st;
}

static void push_value(lua_State *L, cg_id id) {
  if (id == CG_NONE) luaL_error(L, "not enough memory (or a number out of range)");
  lvalue *v = (lvalue *)lua_newuserdatauv(L, sizeof *v, 1);
  v->id = id;
  luaL_setmetatable(L, VALUE_MT);
  push_store(L);
  lua_setiuservalue(L, -2, 1);
}

/*
** Parse the game text at 'idx' into '*g'. Returns 0, or -1 with the message
** pushed: "bad game 'TEXT': why", the text cut to 40 bytes (a message never
** repeats a huge input); a byte 0x00 inside the text is an error, never a
** silent end of the text.
*/
static int parse_text(lua_State *L, lstore *st, int idx, cg_id *g) {
  size_t len;
  const char *text = lua_tolstring(L, idx, &len);
  char err[160];
  if (strlen(text) != len)
    snprintf(err, sizeof err, "unexpected byte 0x00 at character %d", (int)strlen(text) + 1);
  else if (cg_parse(st->s, text, g, err, sizeof err) == 0)
    return 0;
  lua_pushlstring(L, text, len > 40 ? 40 : len);
  lua_pushfstring(L, "bad game '%s%s': %s", lua_tostring(L, -1), len > 40 ? "..." : "", err);
  lua_remove(L, -2); /* the shortened text */
  return -1;
}

/*
** The value at 'idx': a value userdata, an integer, or game text for
** cg_parse ("3/4", "^*", "{1|0}"). Raises with the argument number.
*/
static cg_id to_value(lua_State *L, lstore *st, int idx) {
  lvalue *v = (lvalue *)luaL_testudata(L, idx, VALUE_MT);
  if (v) return v->id;
  if (lua_isinteger(L, idx)) {
    lua_Integer n = lua_tointeger(L, idx);
    if (n > (1 << 20) || n < -(1 << 20)) luaL_argerror(L, idx, "integer out of range");
    return cg_integer(st->s, (int64_t)n);
  }
  if (lua_type(L, idx) == LUA_TNUMBER) {
    double d = lua_tonumber(L, idx);
    cg_dyadic x = {0, 0};
    if (isfinite(d) && fabs(d) <= (double)(1 << 20)) x = cg_dyadic_of(d);
    if (!isfinite(d) || fabs(d) > (double)(1 << 20) || x.exp > 40 ||
        ldexp((double)x.num, -x.exp) != d)
      luaL_argerror(L, idx, "not a dyadic rational m/2^k in range");
    return cg_number(st->s, x);
  }
  if (lua_type(L, idx) == LUA_TSTRING) {
    cg_id g;
    if (parse_text(L, st, idx, &g)) luaL_argerror(L, idx, lua_tostring(L, -1));
    return g;
  }
  luaL_typeerror(L, idx, "game value, integer or game text");
  return CG_NONE;
}

#define check_value(L, i) ((lvalue *)luaL_checkudata(L, i, VALUE_MT))

/* ---- values ---- */

static int l_parse(lua_State *L) {
  lstore *st = push_store(L);
  cg_id g;
  luaL_checkstring(L, 1);
  if (parse_text(L, st, 1, &g)) {
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
  push_value(L, g);
  return 1;
}

static int l_tostring(lua_State *L) {
  lvalue *v = check_value(L, 1);
  lstore *st = push_store(L);
  char small[256];
  size_t n = cg_text(st->s, v->id, small, sizeof small);
  if (n < sizeof small) {
    lua_pushlstring(L, small, n);
  } else {
    char *big = malloc(n + 1);
    if (!big) return luaL_error(L, "not enough memory");
    cg_text(st->s, v->id, big, n + 1);
    lua_pushlstring(L, big, n);
    free(big);
  }
  return 1;
}

static int l_add(lua_State *L) {
  lstore *st = push_store(L);
  push_value(L, cg_add(st->s, to_value(L, st, 1), to_value(L, st, 2)));
  return 1;
}

static int l_sub(lua_State *L) {
  lstore *st = push_store(L);
  push_value(L, cg_sub(st->s, to_value(L, st, 1), to_value(L, st, 2)));
  return 1;
}

static int l_unm(lua_State *L) {
  lstore *st = push_store(L);
  push_value(L, cg_neg(st->s, to_value(L, st, 1)));
  return 1;
}

static int l_eq(lua_State *L) {
  lvalue *a = (lvalue *)luaL_testudata(L, 1, VALUE_MT);
  lvalue *b = (lvalue *)luaL_testudata(L, 2, VALUE_MT);
  lua_pushboolean(L, a && b && a->id == b->id);
  return 1;
}

static int l_le(lua_State *L) {
  lstore *st = push_store(L);
  lua_pushboolean(L, cg_le(st->s, to_value(L, st, 1), to_value(L, st, 2)));
  return 1;
}

static int l_lt(lua_State *L) {
  lstore *st = push_store(L);
  cg_id a = to_value(L, st, 1), b = to_value(L, st, 2);
  lua_pushboolean(L, cg_cmp(st->s, a, b) == CG_LT);
  return 1;
}

/* v:compare(w) -> "=", "<", ">" or "||" */
static int l_compare(lua_State *L) {
  static const char *const names[] = {"=", "<", ">", "||"};
  lstore *st = push_store(L);
  cg_id a = to_value(L, st, 1), b = to_value(L, st, 2);
  lua_pushstring(L, names[cg_cmp(st->s, a, b)]);
  return 1;
}

static int l_fuzzy(lua_State *L) {
  lstore *st = push_store(L);
  cg_id a = to_value(L, st, 1), b = to_value(L, st, 2);
  lua_pushboolean(L, cg_cmp(st->s, a, b) == CG_FUZZY);
  return 1;
}

static int l_outcome(lua_State *L) {
  lstore *st = push_store(L);
  char c = (char)cg_outcome(st->s, check_value(L, 1)->id);
  lua_pushlstring(L, &c, 1);
  return 1;
}

/* v:wins(side): does 'side' ("black"/"left" or "white"/"right") win
** moving first? */
static int l_wins(lua_State *L) {
  static const char *const sides[] = {"black", "white", "left", "right", NULL};
  lstore *st = push_store(L);
  cg_id a = check_value(L, 1)->id;
  int side = luaL_checkoption(L, 2, NULL, sides);
  lua_pushboolean(L, cg_first_wins(st->s, a, side == 0 || side == 2));
  return 1;
}

static void push_dyadic(lua_State *L, cg_dyadic x) {
  if (x.exp == 0) lua_pushinteger(L, (lua_Integer)x.num);
  else lua_pushnumber(L, ldexp((double)x.num, -x.exp));
}

static void push_double(lua_State *L, double d) {
  if (d == floor(d) && fabs(d) < 9e15) lua_pushinteger(L, (lua_Integer)d);
  else lua_pushnumber(L, d);
}

static int l_is_number(lua_State *L) {
  lstore *st = push_store(L);
  lua_pushboolean(L, cg_is_number(st->s, check_value(L, 1)->id, NULL));
  return 1;
}

/* v:number() -> the number (an integer or a float), or nil */
static int l_number(lua_State *L) {
  lstore *st = push_store(L);
  cg_dyadic x;
  if (!cg_is_number(st->s, check_value(L, 1)->id, &x)) {
    luaL_pushfail(L);
    return 1;
  }
  push_dyadic(L, x);
  return 1;
}

/* v:nimber() -> n when v is *n, else nil */
static int l_nimber(lua_State *L) {
  lstore *st = push_store(L);
  int n = cg_nimber_value(st->s, check_value(L, 1)->id);
  if (n < 0) luaL_pushfail(L);
  else lua_pushinteger(L, n);
  return 1;
}

/* v:uptimal() -> number, ups, star when v = x + n.^ + *m, else nil */
static int l_uptimal(lua_State *L) {
  lstore *st = push_store(L);
  cg_dyadic x;
  int n, m;
  if (!cg_uptimal(st->s, check_value(L, 1)->id, &x, &n, &m)) {
    luaL_pushfail(L);
    return 1;
  }
  push_dyadic(L, x);
  lua_pushinteger(L, n);
  lua_pushinteger(L, m);
  return 3;
}

static int l_stops(lua_State *L) {
  lstore *st = push_store(L);
  cg_id a = check_value(L, 1)->id;
  push_double(L, cg_left_stop(st->s, a));
  push_double(L, cg_right_stop(st->s, a));
  return 2;
}

static int mean_temp(lua_State *L, int which) {
  lstore *st = push_store(L);
  double m, t;
  if (cg_mean_temp(st->s, check_value(L, 1)->id, &m, &t))
    return luaL_error(L, "not enough memory for the thermograph");
  push_double(L, which ? t : m);
  return 1;
}

static int l_mean(lua_State *L) { return mean_temp(L, 0); }
static int l_temperature(lua_State *L) { return mean_temp(L, 1); }

static int options(lua_State *L, int left) {
  lstore *st = push_store(L);
  cg_id a = check_value(L, 1)->id;
  int n = left ? cg_nleft(st->s, a) : cg_nright(st->s, a);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    push_value(L, left ? cg_left(st->s, a, i) : cg_right(st->s, a, i));
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int l_left(lua_State *L) { return options(L, 1); }
static int l_right(lua_State *L) { return options(L, 0); }

/* core.cgt_make(lefts, rights): the canonical form of {lefts | rights} */
static int l_make(lua_State *L) {
  lstore *st = push_store(L);
  cg_id *opt[2] = {NULL, NULL};
  int n[2];
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  for (int side = 0; side < 2; side++) {
    n[side] = (int)luaL_len(L, side + 1);
    opt[side] = (cg_id *)lua_newuserdatauv(L, ((size_t)n[side] + 1) * sizeof(cg_id), 0);
    for (int i = 0; i < n[side]; i++) {
      lua_geti(L, side + 1, i + 1);
      opt[side][i] = to_value(L, st, lua_gettop(L));
      lua_pop(L, 1);
    }
  }
  push_value(L, cg_make(st->s, opt[0], n[0], opt[1], n[1]));
  return 1;
}

/* ---- Kōnane positions ---- */

static const char *const limit_opts[] = {"budget", NULL};

/* Runs one region computation with the budget option at 'oidx' and the
** host's interrupt check; raises on failure. */
static void run_limits(lua_State *L, lstore *st, int oidx, lk_stop_ctx *sc,
                       kn_stop *stop) {
  lk_opts_check(L, oidx, limit_opts, "cgt");
  lua_Integer budget = lk_opt_integer(L, oidx, "budget", 0, LUA_MAXINTEGER, 0);
  lk_stop_init(L, sc);
  stop->fn = lk_stop;
  stop->ud = sc;
  cgk_limits(st->k, (uint64_t)budget, stop);
}

static void raise_cgk(lua_State *L, int e, const lk_stop_ctx *sc) {
  if (e == CGK_EBUDGET)
    luaL_error(L, "cgt: the position needs more region computations than the budget");
  if (e == CGK_ESTOP) lk_stop_raise(L, sc);
  luaL_error(L, "cgt: not enough memory");
}

/*
** The placement at 'idx': a konane.Game (its position) or position text
** in any placement. Fills 'p' and *stm (-1 when unknown).
*/
static void to_placement(lua_State *L, int idx, cgk_pos *p, int *stm) {
  kn_game *g = (kn_game *)luaL_testudata(L, idx, GAME_MT);
  if (g) {
    cgk_from_kn(g->b, &g->pos, p);
    *stm = g->pos.stm;
    return;
  }
  if (lua_type(L, idx) != LUA_TSTRING)
    luaL_typeerror(L, idx, "game or position text");
  char err[200];
  size_t len;
  const char *text = lua_tolstring(L, idx, &len);
  if (strlen(text) != len)
    luaL_error(L, "bad position: unexpected byte 0x00 at character %d", (int)strlen(text) + 1);
  if (cgk_parse(text, p, stm, err, sizeof err))
    luaL_error(L, "bad position: %s", err);
}

/* core.cgt_value(game or text [, {budget=}]) -> value */
static int l_value(lua_State *L) {
  lua_settop(L, 2);
  lstore *st = push_store(L);
  cgk_pos *p = (cgk_pos *)lua_newuserdatauv(L, sizeof *p, 0);
  lk_stop_ctx sc;
  kn_stop stop;
  int stm, e;
  cg_id v;
  to_placement(L, 1, p, &stm);
  run_limits(L, st, 2, &sc, &stop);
  e = cgk_value(st->k, p, &v);
  cgk_limits(st->k, 0, NULL);
  if (e) raise_cgk(L, e, &sc);
  push_value(L, v);
  return 1;
}

/*
** core.cgt_regions(game or text [, {budget=}]) -> list of position texts
** (the whole board with one region's pieces each, the side to move kept),
** list of their values.
*/
static int l_regions(lua_State *L) {
  lua_settop(L, 2);
  lstore *st = push_store(L);
  cgk_pos *p = (cgk_pos *)lua_newuserdatauv(L, sizeof *p, 0);
  int *label = (int *)lua_newuserdatauv(L, KN_MAX_SQ * sizeof(int), 0);
  cg_id *vals = (cg_id *)lua_newuserdatauv(L, KN_MAX_SQ * sizeof(cg_id), 0);
  cgk_pos *one = (cgk_pos *)lua_newuserdatauv(L, sizeof *one, 0);
  lk_stop_ctx sc;
  kn_stop stop;
  int stm, e, n, nsq;
  char text[KN_POS_TEXT];
  to_placement(L, 1, p, &stm);
  run_limits(L, st, 2, &sc, &stop);
  e = cgk_regions(st->k, p, label, &n, vals);
  cgk_limits(st->k, 0, NULL);
  if (e) raise_cgk(L, e, &sc);
  nsq = p->rows * p->cols;
  lua_createtable(L, n, 0);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    *one = *p;
    for (int sq = 0; sq < nsq; sq++)
      if (label[sq] != i) one->cell[sq] = CGK_EMPTY;
    size_t len = cgk_text(one, text, sizeof text - 3);
    if (stm >= 0) {
      text[len++] = ' ';
      text[len++] = stm == KN_BLACK ? 'b' : 'w';
      text[len] = '\0';
    }
    lua_pushlstring(L, text, len);
    lua_rawseti(L, -3, i + 1);
    push_value(L, vals[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 2;
}

/* core.cgt_stats() -> {regions=, lookups=, hits=, computed=, games=} */
static int l_stats(lua_State *L) {
  lstore *st = push_store(L);
  cgk_stats s;
  cgk_get_stats(st->k, &s);
  lua_createtable(L, 0, 5);
  lua_pushinteger(L, (lua_Integer)s.entries);
  lua_setfield(L, -2, "regions");
  lua_pushinteger(L, (lua_Integer)s.lookups);
  lua_setfield(L, -2, "lookups");
  lua_pushinteger(L, (lua_Integer)s.hits);
  lua_setfield(L, -2, "hits");
  lua_pushinteger(L, (lua_Integer)s.computed);
  lua_setfield(L, -2, "computed");
  lua_pushinteger(L, (lua_Integer)cg_store_size(st->s));
  lua_setfield(L, -2, "games");
  return 1;
}

/*
** core.cgt_solve(game [, opts]) -> {win=, move=, nodes=, time=, calls=,
** decided=[, plain_win=, plain_nodes=, plain_time=]}: the exact solver
** (one thread) consulting region values at positions of at most
** 'max_pieces' pieces (default 20) that have split, each consultation
** allowed 'budget' region computations (default 200) on groups of at most
** 'max_region' pieces (default 12). 'compare' also runs the plain solver
** on a fresh table of the same size ('hash_mb', default 16).
*/
static const char *const solve_opts[] = {"max_pieces", "budget", "max_region",
                                         "hash_mb", "compare", NULL};

static int l_solve(lua_State *L) {
  kn_game *g = check_game(L, 1);
  lua_settop(L, 2);
  lk_opts_check(L, 2, solve_opts, "cgt.solve");
  lstore *st = push_store(L);
  int maxp = (int)lk_opt_integer(L, 2, "max_pieces", 0, KN_MAX_SQ, 20);
  lua_Integer budget = lk_opt_integer(L, 2, "budget", 1, LUA_MAXINTEGER, 200);
  int maxr = (int)lk_opt_integer(L, 2, "max_region", 1, KN_MAX_SQ, 12);
  double mb = lk_opt_number(L, 2, "hash_mb", 1, 65536, 16);
  int compare = lk_opt_get(L, 2, "compare") != LUA_TNIL && lua_toboolean(L, -1);
  lua_pop(L, 1);
  cgk_oracle_ctx c;
  kn_solve_oracle o;
  kn_limits lim;
  kn_solve_result r, r0;
  lk_stop_ctx sc;
  memset(&c, 0, sizeof c);
  memset(&r, 0, sizeof r); /* always set by the last pass; cppcheck cannot see it */
  c.k = st->k;
  c.budget = (uint64_t)budget;
  c.max_region = maxr;
  o.fn = cgk_oracle;
  o.ud = &c;
  o.max_pieces = maxp;
  memset(&lim, 0, sizeof lim);
  lk_stop_init(L, &sc);
  lim.stop.fn = lk_stop;
  lim.stop.ud = &sc;
  for (int pass = compare ? 0 : 1; pass < 2; pass++) {
    kn_tt *tt = kn_tt_new(mb);
    if (!tt) return luaL_error(L, "cgt.solve: not enough memory for the table");
    int e = pass == 0 ? kn_solve(g->b, &g->pos, tt, &lim, &r0)
                      : kn_solve_with(g->b, &g->pos, tt, &lim, &o, &r);
    kn_tt_free(tt);
    if (e) return luaL_error(L, "cgt.solve: not enough memory");
    if ((pass == 0 ? r0.stopped : r.stopped) != KN_DONE) lk_stop_raise(L, &sc);
  }
  lua_createtable(L, 0, 10);
  lua_pushboolean(L, r.win == 1);
  lua_setfield(L, -2, "win");
  if (r.move != KN_NOMOVE) {
    lk_push_move(L, g->b, r.move);
    lua_setfield(L, -2, "move");
  }
  lua_pushinteger(L, (lua_Integer)r.nodes);
  lua_setfield(L, -2, "nodes");
  lua_pushnumber(L, r.time);
  lua_setfield(L, -2, "time");
  lua_pushinteger(L, (lua_Integer)c.calls);
  lua_setfield(L, -2, "calls");
  lua_pushinteger(L, (lua_Integer)c.decided);
  lua_setfield(L, -2, "decided");
  if (compare) {
    lua_pushboolean(L, r0.win == 1);
    lua_setfield(L, -2, "plain_win");
    lua_pushinteger(L, (lua_Integer)r0.nodes);
    lua_setfield(L, -2, "plain_nodes");
    lua_pushnumber(L, r0.time);
    lua_setfield(L, -2, "plain_time");
  }
  return 1;
}

/* g:regions([opts]): core.cgt_regions for a game. */
static int l_game_regions(lua_State *L) {
  check_game(L, 1);
  return l_regions(L);
}

static const luaL_Reg value_methods[] = {
    {"fuzzy", l_fuzzy},         {"compare", l_compare},
    {"outcome", l_outcome},     {"wins", l_wins},
    {"is_number", l_is_number}, {"number", l_number},
    {"nimber", l_nimber},       {"uptimal", l_uptimal},
    {"stops", l_stops},         {"mean", l_mean},
    {"temperature", l_temperature}, {"left", l_left},
    {"right", l_right},         {NULL, NULL}};

static const luaL_Reg value_meta[] = {
    {"__add", l_add}, {"__sub", l_sub}, {"__unm", l_unm},
    {"__eq", l_eq},   {"__lt", l_lt},   {"__le", l_le},
    {"__tostring", l_tostring}, {NULL, NULL}};

/* core.cgt_methods(): the methods table of values (for konane.cgt). */
static int l_methods(lua_State *L);

static void ensure_metatables(lua_State *L) {
  if (luaL_newmetatable(L, STORE_MT)) {
    lua_pushcfunction(L, store_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
  if (luaL_newmetatable(L, VALUE_MT)) {
    luaL_setfuncs(L, value_meta, 0);
    luaL_newlib(L, value_methods);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "konane.cgt.Value");
    lua_setfield(L, -2, "__name");
  }
  lua_pop(L, 1);
}

static int l_methods(lua_State *L) {
  ensure_metatables(L);
  luaL_getmetatable(L, VALUE_MT);
  lua_getfield(L, -1, "__index");
  return 1;
}

/* Entry points take care of the metatables first (registration in
** luaopen_konane_core is one table of functions). */
#define ENTRY(name, fn)                                                     \
  static int name(lua_State *L) {                                           \
    ensure_metatables(L);                                                   \
    return fn(L);                                                           \
  }
ENTRY(e_parse, l_parse)
ENTRY(e_value, l_value)
ENTRY(e_regions, l_regions)
ENTRY(e_stats, l_stats)
ENTRY(e_make, l_make)
ENTRY(e_game_regions, l_game_regions)
ENTRY(e_solve, l_solve)

const luaL_Reg lk_cgt_funcs[] = {{"cgt_parse", e_parse},
                                 {"cgt_value", e_value},
                                 {"cgt_regions", e_regions},
                                 {"cgt_stats", e_stats},
                                 {"cgt_make", e_make},
                                 {"cgt_methods", l_methods},
                                 {"cgt_solve", e_solve},
                                 {NULL, NULL}};

const luaL_Reg lk_cgt_methods[] = {{"regions", e_game_regions}, {NULL, NULL}};
