/*
** lengine.c
** Lua binding: g:search, g:solve, g:mcts, their callbacks and stop checks
** See docs/architecture.md for the map of files
*/
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "lauxlib.h"
#include "lua.h"

#include "lkonane.h"
#include "mcts.h"
#include "search.h"
#include "solve.h"

/*
** The core never sees Lua: a Lua evaluation runs under lua_pcall from a C
** callback; on error the search stops and the error object waits on the
** stack until the core memory is freed, then it is raised again.
*/

/* ---- stop checks ---- */

void lk_stop_init(lua_State *L, lk_stop_ctx *s) {
  memset(s, 0, sizeof *s);
  if (lua_getfield(L, LUA_REGISTRYINDEX, "konane.interrupt") ==
      LUA_TLIGHTUSERDATA)
    s->flag = (volatile sig_atomic_t *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (lua_getfield(L, LUA_REGISTRYINDEX, "konane.deadline") == LUA_TNUMBER)
    s->deadline = lua_tonumber(L, -1);
  lua_pop(L, 1);
}

/*
** Option 'stop' of a long call: a function called about every millisecond
** during the call; when it returns true the call ends early with its
** normal result (the best found so far, field stopped = true). The UGI
** server reads its input there, so `stop` is answered promptly.
*/
void lk_stop_option(lua_State *L, int idx, lk_stop_ctx *s) {
  if (lk_opt_get(L, idx, "stop") == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  if (!lua_isfunction(L, -1)) luaL_argerror(L, idx, "option 'stop' must be a function");
  s->L = L;
  s->fn = lua_gettop(L);
}

/* Calls the stop function (at most once a millisecond): 1 to stop. */
static int stop_ask(lk_stop_ctx *s) {
  double now;
  if (s->fn_failed) return 1; /* its error is kept: never called again */
  now = lk_now();
  if (now < s->next_ask) return 0;
  s->next_ask = now + 0.001;
  if (!lua_checkstack(s->L, 4)) return 0;
  lua_pushvalue(s->L, s->fn);
  if (lua_pcall(s->L, 0, 1, 0) != LUA_OK) {
    s->err_ref = luaL_ref(s->L, LUA_REGISTRYINDEX); /* pops it */
    s->fn_failed = 1;
    return 1;
  }
  if (lua_toboolean(s->L, -1)) s->asked = 1;
  lua_pop(s->L, 1);
  return s->asked;
}

int lk_stop(void *ud) {
  lk_stop_ctx *s = (lk_stop_ctx *)ud;
  if (s->flag && *s->flag) s->interrupted = 1;
  if (s->deadline > 0 && lk_now() >= s->deadline) s->timed_out = 1;
  if (!s->interrupted && !s->timed_out && s->fn && stop_ask(s)) return 1;
  return s->interrupted || s->timed_out;
}

int lk_stop_asked(const lk_stop_ctx *s) {
  return s->asked && !s->interrupted && !s->timed_out && !s->fn_failed;
}

int lk_stop_raise(lua_State *L, const lk_stop_ctx *s) {
  if (s->interrupted) {
    /* delivered: Lua code that catches it is not interrupted again */
    if (s->flag) *s->flag = 0;
    return luaL_error(L, "interrupted!");
  }
  if (s->fn_failed) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->err_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, s->err_ref);
    return lua_error(L);
  }
  return luaL_error(L, "time limit exceeded");
}

/* ---- results and callbacks ---- */

/* The 'time' option: seconds, or 0 when absent. An explicit 0 (a bot
** whose clock ran out) means "as little as possible", not "no limit". */
static double opt_time(lua_State *L, int idx) {
  double t = lk_opt_number(L, idx, "time", 0, 1e9, -1);
  return t < 0 ? 0 : t == 0 ? 1e-9 : t;
}

/* Pushes a move string, or nil for KN_NOMOVE. */
static void push_move_or_nil(lua_State *L, const kn_board *b, kn_move m) {
  if (m == KN_NOMOVE) lua_pushnil(L);
  else lk_push_move(L, b, m);
}

/* The search result / info table: move, score, depth, nodes, nps, time,
** pv and, for a proved score, win (boolean) and plies (to the end). */
static void push_search_result(lua_State *L, const kn_board *b,
                               const kn_search_result *r) {
  int i;
  lua_createtable(L, 0, 10);
  push_move_or_nil(L, b, r->move);
  lua_setfield(L, -2, "move");
  lua_pushinteger(L, r->score);
  lua_setfield(L, -2, "score");
  lua_pushinteger(L, r->depth);
  lua_setfield(L, -2, "depth");
  lua_pushinteger(L, (lua_Integer)r->nodes);
  lua_setfield(L, -2, "nodes");
  lua_pushnumber(L, r->time);
  lua_setfield(L, -2, "time");
  lua_pushinteger(L, r->time > 0 ? (lua_Integer)(r->nodes / r->time)
                                 : (lua_Integer)r->nodes);
  lua_setfield(L, -2, "nps");
  lua_createtable(L, r->pvlen, 0);
  for (i = 0; i < r->pvlen; i++) {
    lk_push_move(L, b, r->pv[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "pv");
  if (kn_score_proven(r->score) && (r->depth > 0 || r->move == KN_NOMOVE)) {
    lua_pushboolean(L, r->score > 0);
    lua_setfield(L, -2, "win");
    lua_pushinteger(L, kn_score_plies(r->score));
    lua_setfield(L, -2, "plies");
  }
}

/*
** The state of one g:search call seen by its callbacks. Stack slots:
** 'fn' the eval function, 'tmp' the temporary game the leaf positions are
** copied into, 'info' the info function (0 when absent). After a callback
** failed, its error object is left on the top of the stack.
*/
typedef struct lsearch {
  lua_State *L;
  const kn_board *b;
  int fn, tmp, info;
  int failed;
} lsearch;

/* kn_evalfn: calls the Lua evaluation on the leaf position 'p'. */
static int lua_eval_cb(void *ud, const kn_board *b, const kn_pos *p,
                       int *score) {
  lsearch *ls = (lsearch *)ud;
  lua_State *L = ls->L;
  kn_game *t = (kn_game *)lua_touserdata(L, ls->tmp);
  lua_Number v;
  int isnum;
  (void)b;
  t->start = t->pos = *p;
  t->nhist = 0;
  t->ncache = -1;
  lua_pushvalue(L, ls->fn);
  lua_pushvalue(L, ls->tmp);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    ls->failed = 1;
    return 1;
  }
  v = lua_tonumberx(L, -1, &isnum);
  if (!isnum || v != v) {
    const char *tn = luaL_typename(L, -1);
    lua_pop(L, 1);
    lua_pushfstring(L, "search: the eval function must return a number "
                       "(got %s)", isnum ? "nan" : tn);
    ls->failed = 1;
    return 1;
  }
  lua_pop(L, 1);
  if (v > KN_EVAL_MAX) v = KN_EVAL_MAX;
  if (v < -KN_EVAL_MAX) v = -KN_EVAL_MAX;
  *score = (int)(v < 0 ? v - 0.5 : v + 0.5);
  return 0;
}

/* kn_info_fn: calls the Lua info function with the iteration's table. */
static int lua_info_cb(void *ud, const kn_search_result *r) {
  lsearch *ls = (lsearch *)ud;
  lua_State *L = ls->L;
  if (!lua_checkstack(L, 8)) return 0;
  lua_pushvalue(L, ls->info);
  push_search_result(L, ls->b, r);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    ls->failed = 1;
    return 1;
  }
  return 0;
}

/* Reads weights={name=value,...} into 'w' (unknown names raise). A weight
** given without its "NAME_late" value is the same in every phase. */
static void opt_weights(lua_State *L, int idx, kn_weights *w) {
  int t, i, given[2 * KN_NWEIGHTS] = {0};
  if (lk_opt_get(L, idx, "weights") == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  if (!lua_istable(L, -1))
    luaL_argerror(L, idx, "option 'weights' must be a table");
  t = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    int found = -1, isnum;
    lua_Number v;
    if (lua_type(L, -2) == LUA_TSTRING)
      for (i = 0; kn_weight_name(i); i++)
        if (strcmp(lua_tostring(L, -2), kn_weight_name(i)) == 0) found = i;
    if (found < 0) {
      luaL_Buffer buf;
      luaL_buffinit(L, &buf);
      for (i = 0; i < KN_NWEIGHTS; i++) {
        if (i) luaL_addstring(&buf, ", ");
        luaL_addstring(&buf, kn_weight_name(i));
      }
      luaL_addstring(&buf, " (each also NAME_late)");
      luaL_pushresult(&buf);
      luaL_argerror(L, idx,
                    lua_pushfstring(L, "unknown weight '%s' (known: %s)",
                                    lua_type(L, -3) == LUA_TSTRING
                                        ? lua_tostring(L, -3)
                                        : luaL_typename(L, -3),
                                    lua_tostring(L, -1)));
    }
    v = lua_tonumberx(L, -1, &isnum);
    if (!isnum || !(v >= -10000 && v <= 10000))
      luaL_argerror(L, idx,
                    lua_pushfstring(L, "weight '%s' must be a number from "
                                       "-10000 to 10000",
                                    kn_weight_name(found)));
    *kn_weight_ref(w, found) = (int)(v < 0 ? v - 0.5 : v + 0.5);
    given[found] = 1;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  for (i = 0; i < KN_NWEIGHTS; i++)
    if (given[i] && !given[KN_NWEIGHTS + i]) w->late[i] = w->w[i];
  kn_weights_phase(w);
}

/* ---- transposition tables that last ---- */

#define TABLE_MT "konane.Table"
#define TABLES_MADE "konane.tablesmade" /* registry: game tables made since
                                          the last full collection */

/* A table object: konane.hashtable(mb), or a game's own (shared with its
** clones: they have the same board object). 'proof' is the solver's
** table for the search's endgame proof mode (a quarter of the size, at
** most 4 MB), kept with it so that proofs carry over from move to move.
** 'pool' holds the helper threads of searches with threads > 1 (made by
** the first such search): they may still be unwinding after a search
** answered, so anything else that touches 'tt' waits for them first
** (table_quiet). */
typedef struct ltable {
  kn_tt *tt;
  kn_tt *proof;
  kn_search_pool *pool;
  int busy; /* a search or solve on it is running: a call from its stop,
            ** eval or info function may not clear, close, resize or use it
            ** (freed memory; a wait for helpers that wait for the caller) */
} ltable;

/* Waits until no helper thread of an earlier search uses the table. */
static void table_quiet(ltable *t) { kn_search_pool_wait(t->pool); }

static double proof_mb(double mb) { return mb / 4 < 4 ? mb / 4 : 4; }

static ltable *check_table(lua_State *L, int idx) {
  ltable *t = (ltable *)luaL_checkudata(L, idx, TABLE_MT);
  if (!t->tt) luaL_argerror(L, idx, "the table is closed");
  return t;
}

/* Raises when a running call uses table 't' (see ltable.busy). */
static void table_idle(lua_State *L, const ltable *t, const char *what) {
  if (t->busy)
    luaL_error(L, "%s: the table is in use by a running search or solve "
                  "(its stop, eval or info function may not clear, close or "
                  "share it: give a nested call a konane.hashtable of its "
                  "own)", what);
}

/* Pushes a new table object of 'mb' megabytes; raises when out of
** memory. (No collector step for the memory held outside Lua: a forced
** cycle here cost a time-limited bot tens of milliseconds; games and bots
** allocate enough in Lua for the collector to come by regularly.) */
static ltable *push_table(lua_State *L, double mb) {
  ltable *t = (ltable *)lua_newuserdatauv(L, sizeof *t, 0);
  t->tt = t->proof = NULL;
  t->pool = NULL;
  t->busy = 0;
  luaL_setmetatable(L, TABLE_MT);
  t->tt = kn_tt_new(mb);
  t->proof = kn_tt_new(proof_mb(mb));
  if (!t->tt || !t->proof)
    luaL_error(L, "not enough memory for a %f MB table", (lua_Number)mb);
  return t;
}

/* konane.hashtable([mb]) -> a table to share among searches (16 MB).
** Its memory is mapped now, not during the first searches:
** fresh pages can be slow to map, and a timed move should not pay. */
static int l_hashtable(lua_State *L) {
  double mb = luaL_optnumber(L, 1, 16);
  luaL_argcheck(L, mb >= 0 && mb <= 65536, 1, "size must be 0 to 65536 MB");
  ltable *t = push_table(L, mb);
  kn_tt_touch(t->tt);
  kn_tt_touch(t->proof);
  return 1;
}

static int l_table_gc(lua_State *L) {
  ltable *t = (ltable *)luaL_checkudata(L, 1, TABLE_MT);
  kn_search_pool_free(t->pool); /* joins the helpers: then the table */
  t->pool = NULL;
  kn_tt_free(t->tt);
  kn_tt_free(t->proof);
  t->tt = t->proof = NULL;
  return 0;
}

/* t:close() and __close: as __gc, but not under a running call. */
static int l_table_close(lua_State *L) {
  table_idle(L, (ltable *)luaL_checkudata(L, 1, TABLE_MT), "table:close");
  return l_table_gc(L);
}

/* t:size() -> megabytes actually allocated */
static int l_table_size(lua_State *L) {
  ltable *t = check_table(L, 1);
  lua_pushnumber(L, (lua_Number)((t->tt->mask + 1) * KN_TT_BUCKET *
                                 sizeof(kn_tt_slot)) / 1048576.0);
  return 1;
}

static int l_table_clear(lua_State *L) {
  ltable *t = check_table(L, 1);
  table_idle(L, t, "table:clear");
  table_quiet(t);
  kn_tt_clear(t->tt);
  kn_tt_clear(t->proof);
  return 0;
}

/* t:hashfull() -> per mille of the entries written by the last search */
static int l_table_hashfull(lua_State *L) {
  lua_pushinteger(L, kn_tt_hashfull(check_table(L, 1)->tt));
  return 1;
}

static int l_table_tostring(lua_State *L) {
  ltable *t = (ltable *)luaL_checkudata(L, 1, TABLE_MT);
  if (!t->tt) lua_pushliteral(L, "table (closed)");
  else
    lua_pushfstring(L, "table (%f MB)",
                    (lua_Number)((t->tt->mask + 1) * KN_TT_BUCKET *
                                 sizeof(kn_tt_slot)) / 1048576.0);
  return 1;
}

static const luaL_Reg table_methods[] = {{"size", l_table_size},
                                         {"clear", l_table_clear},
                                         {"hashfull", l_table_hashfull},
                                         {"close", l_table_close},
                                         {NULL, NULL}};

/* A game table's memory is out of the collector's sight: a loop making
** fresh games that each search would pile up unreachable 16 MB tables
** before a cycle came by. So every 8th game table made runs a full cycle
** first (a few milliseconds, on a search that maps a new table anyway). */
static void game_table_made(lua_State *L) {
  lua_Integer n;
  lua_getfield(L, LUA_REGISTRYINDEX, TABLES_MADE);
  n = lua_tointeger(L, -1) + 1;
  lua_pop(L, 1);
  if (n >= 8) {
    lua_gc(L, LUA_GCCOLLECT);
    n = 0;
  }
  lua_pushinteger(L, n);
  lua_setfield(L, LUA_REGISTRYINDEX, TABLES_MADE);
}

/*
** The table of a search: the 'table' option's object, else the game's
** own (made on first use, remade when 'hash_mb' asks for another size),
** which its clones share: a bot handed a fresh clone each move still
** finds its earlier work. A game made by konane.new has a table of its own
** (core.own_table), so a fixed-depth search of a fresh game never depends
** on what other games searched. Leaves the table object on the stack (so
** it lives through the call).
*/
static ltable *search_table(lua_State *L, int game, int opts) {
  double mb;
  ltable *t;
  if (lk_opt_get(L, opts, "table") != LUA_TNIL) {
    if (!luaL_testudata(L, -1, TABLE_MT))
      luaL_argerror(L, opts, "option 'table' must be a table from "
                             "konane.hashtable");
    if (lk_opt_get(L, opts, "hash_mb") != LUA_TNIL)
      luaL_argerror(L, opts, "options 'table' and 'hash_mb' exclude each "
                             "other (the table has its size)");
    lua_pop(L, 1);
    t = check_table(L, lua_gettop(L));
    table_idle(L, t, "search");
    return t;
  }
  lua_pop(L, 1);
  mb = lk_opt_number(L, opts, "hash_mb", 0, 65536, 16);
  lk_push_table_holder(L, game);
  if (lua_rawgeti(L, -1, 1) == LUA_TUSERDATA) {
    t = (ltable *)lua_touserdata(L, -1);
    table_idle(L, t, "search (the game's own table, shared with its clones)");
    if (t->tt && t->tt->mb == mb) {
      lua_remove(L, -2);
      return t;
    }
    table_quiet(t);
    kn_tt_free(t->tt); /* another size: free the old one now */
    kn_tt_free(t->proof);
    t->tt = t->proof = NULL;
  }
  lua_pop(L, 1);
  game_table_made(L);
  t = push_table(L, mb);
  lua_pushvalue(L, -1);
  lua_rawseti(L, -3, 1);
  lua_remove(L, -2);
  return t;
}

/* core.own_table(g): g gets a table of its own at its next search, no
** longer the one it shared with the games it was cloned from (konane.new
** calls it on the clone of its prototype it returns). */
static int l_own_table(lua_State *L) {
  check_game(L, 1);
  lua_pushnil(L);
  lua_setiuservalue(L, 1, 2);
  return 0;
}

/* The clock options: game_time (seconds left), increment and overhead
** (seconds a move costs the clock outside the search). */
static void opt_clock(lua_State *L, int idx, kn_search_opts *o,
                      const kn_pos *p) {
  double left = lk_opt_number(L, idx, "game_time", 0, 1e9, -1);
  double inc = lk_opt_number(L, idx, "increment", 0, 1e9, 0);
  double overhead = lk_opt_number(L, idx, "overhead", 0, 1e9, 0);
  double soft, hard;
  if (left < 0) {
    static const char *const need[] = {"increment", "overhead"};
    int i;
    for (i = 0; i < 2; i++) {
      if (lk_opt_get(L, idx, need[i]) != LUA_TNIL)
        luaL_argerror(L, idx,
                      lua_pushfstring(L, "option '%s' needs 'game_time'",
                                      need[i]));
      lua_pop(L, 1);
    }
    return;
  }
  kn_search_budget(left, inc, kn_bits_count(&p->occ), overhead, &soft,
                   &hard);
  o->soft_time = soft;
  if (o->lim.time <= 0 || hard < o->lim.time) o->lim.time = hard;
  if (o->soft_time > o->lim.time) o->soft_time = o->lim.time;
}

/*
** g:search{depth=, time=, nodes=, game_time=, increment=, overhead=,
**          threads=, hash_mb=, table=, eval=, weights=, info=, experiment=}
** -> {move=, score=, depth=, nodes=, nps=, time=, pv={...}[, win=, plies=]}
*/
static int l_search(lua_State *L) {
  static const char *const names[] = {
      "depth", "time",    "nodes", "game_time", "increment", "overhead",
      "threads", "hash_mb", "table", "eval",    "weights",   "info",
      "experiment", "stop", NULL};
  kn_game *g = check_game(L, 1);
  kn_search_opts o;
  kn_search_result r;
  lsearch ls;
  lk_stop_ctx sc;
  kn_tt *tt;
  ltable *lt;
  int rc;

  lk_opts_check(L, 2, names, "search");
  kn_search_opts_default(&o);
  o.lim.depth = (int)lk_opt_integer(L, 2, "depth", 1, 1000, 0);
  o.lim.time = opt_time(L, 2);
  o.lim.nodes = (uint64_t)lk_opt_integer(L, 2, "nodes", 1, LUA_MAXINTEGER, 0);
  opt_clock(L, 2, &o, &g->pos);
  o.threads = (int)lk_opt_integer(L, 2, "threads", 1, KN_MAX_THREADS, 1);
  o.exp = (unsigned)lk_opt_integer(L, 2, "experiment", 0, 0xFFFF, 0);
  opt_weights(L, 2, &o.weights);
  memset(&ls, 0, sizeof ls);
  ls.L = L;
  ls.b = g->b;
  if (lk_opt_get(L, 2, "eval") != LUA_TNIL) {
    if (!lua_isfunction(L, -1))
      luaL_argerror(L, 2, "option 'eval' must be a function");
    ls.fn = lua_gettop(L);
    lk_push_board(L, 1);
    lk_new_game(L, -1);
    lua_remove(L, -2);
    ls.tmp = lua_gettop(L);
    o.eval.fn = lua_eval_cb;
    o.eval.ud = &ls;
  } else {
    lua_pop(L, 1);
  }
  if (lk_opt_get(L, 2, "info") != LUA_TNIL) {
    if (!lua_isfunction(L, -1))
      luaL_argerror(L, 2, "option 'info' must be a function");
    ls.info = lua_gettop(L);
    o.info = lua_info_cb;
    o.info_ud = &ls;
  } else {
    lua_pop(L, 1);
  }
  lt = search_table(L, 1, 2);
  tt = lt->tt;
  o.proof_tt = lt->proof;
  /* helper threads kept with the table: the answer waits for none */
  if (o.threads > 1 && !o.eval.fn) {
    if (!lt->pool) lt->pool = kn_search_pool_new(); /* NULL: per call */
    o.pool = lt->pool;
  }
  lk_stop_init(L, &sc);
  lk_stop_option(L, 2, &sc);
  o.lim.stop.fn = lk_stop;
  o.lim.stop.ud = &sc;
  g->busy++;
  lt->busy = 1;
  rc = kn_search(g->b, &g->pos, tt, &o, &r);
  lt->busy = 0;
  g->busy--;
  if (rc) return luaL_error(L, "search: not enough memory");
  if (ls.failed) return lua_error(L); /* the callback's error is on top */
  if (r.stopped == KN_STOP_USER && !lk_stop_asked(&sc)) return lk_stop_raise(L, &sc);
  push_search_result(L, g->b, &r);
  if (lk_stop_asked(&sc)) {
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "stopped");
  }
  return 1;
}

/* g:solve{time=, nodes=, hash_mb=, table=, threads=, stop=}
** -> {win=, move=, nodes=, time=}. A 'table' object keeps its proved
** positions for later solves (same board and variant only). */
static int l_solve(lua_State *L) {
  static const char *const names[] = {"time", "nodes", "hash_mb", "table",
                                      "threads", "stop", NULL};
  kn_game *g = check_game(L, 1);
  kn_limits lim;
  kn_solve_result r;
  lk_stop_ctx sc;
  kn_tt *tt = NULL;
  ltable *lt = NULL;
  double mb;
  int rc, threads;

  lk_opts_check(L, 2, names, "solve");
  memset(&lim, 0, sizeof lim);
  lim.time = opt_time(L, 2);
  lim.nodes = (uint64_t)lk_opt_integer(L, 2, "nodes", 1, LUA_MAXINTEGER, 0);
  mb = lk_opt_number(L, 2, "hash_mb", 0, 65536, 16);
  threads = (int)lk_opt_integer(L, 2, "threads", 1, KN_SOLVE_MAX_THREADS, 1);
  if (lk_opt_get(L, 2, "table") != LUA_TNIL) {
    if (!luaL_testudata(L, -1, TABLE_MT))
      luaL_argerror(L, 2, "option 'table' must be a table from "
                          "konane.hashtable");
    if (lk_opt_get(L, 2, "hash_mb") != LUA_TNIL)
      luaL_argerror(L, 2, "options 'table' and 'hash_mb' exclude each "
                          "other (the table has its size)");
    lua_pop(L, 1);
    lt = check_table(L, lua_gettop(L)); /* stays on the stack */
    table_idle(L, lt, "solve");
    table_quiet(lt);
    tt = lt->tt;
  } else {
    lua_pop(L, 1);
  }
  lk_stop_init(L, &sc);
  lk_stop_option(L, 2, &sc);
  lim.stop.fn = lk_stop;
  lim.stop.ud = &sc;
  if (!tt) {
    tt = kn_tt_new(mb);
    if (!tt)
      return luaL_error(L, "solve: not enough memory for a %f MB table",
                        (lua_Number)mb);
  }
  g->busy++;
  if (lt) lt->busy = 1;
  rc = kn_solve_threads(g->b, &g->pos, tt, &lim, threads, &r);
  if (lt) lt->busy = 0;
  else kn_tt_free(tt);
  g->busy--;
  if (rc) return luaL_error(L, "solve: not enough memory");
  if (r.stopped == KN_STOP_USER && !lk_stop_asked(&sc)) return lk_stop_raise(L, &sc);
  lua_createtable(L, 0, 5);
  if (r.win >= 0) {
    lua_pushboolean(L, r.win);
    lua_setfield(L, -2, "win");
  }
  push_move_or_nil(L, g->b, r.move);
  lua_setfield(L, -2, "move");
  lua_pushinteger(L, (lua_Integer)r.nodes);
  lua_setfield(L, -2, "nodes");
  lua_pushnumber(L, r.time);
  lua_setfield(L, -2, "time");
  return 1;
}

/* g:mcts{playouts=, time=, c=, seed=} -> {move=, visits=, winrate=, ...} */
static int l_mcts(lua_State *L) {
  static const char *const names[] = {"playouts", "time", "c", "seed", "stop", NULL};
  kn_game *g = check_game(L, 1);
  kn_mcts_opts o;
  kn_mcts_result r;
  lk_stop_ctx sc;
  int rc;

  lk_opts_check(L, 2, names, "mcts");
  kn_mcts_opts_default(&o);
  o.lim.nodes =
      (uint64_t)lk_opt_integer(L, 2, "playouts", 1, LUA_MAXINTEGER, 0);
  o.lim.time = opt_time(L, 2);
  o.c = lk_opt_number(L, 2, "c", 0, 1000, KN_MCTS_C);
  o.seed = (uint64_t)lk_opt_integer(L, 2, "seed", LUA_MININTEGER,
                                 LUA_MAXINTEGER, 1);
  lk_stop_init(L, &sc);
  lk_stop_option(L, 2, &sc);
  o.lim.stop.fn = lk_stop;
  o.lim.stop.ud = &sc;
  g->busy++;
  rc = kn_mcts(g->b, &g->pos, &o, &r);
  g->busy--;
  if (rc) return luaL_error(L, "mcts: not enough memory");
  if (r.stopped == KN_STOP_USER && !lk_stop_asked(&sc)) return lk_stop_raise(L, &sc);
  lua_createtable(L, 0, 8);
  push_move_or_nil(L, g->b, r.move);
  lua_setfield(L, -2, "move");
  lua_pushinteger(L, r.visits);
  lua_setfield(L, -2, "visits");
  lua_pushnumber(L, r.winrate);
  lua_setfield(L, -2, "winrate");
  if (r.proven >= 0) {
    lua_pushboolean(L, r.proven);
    lua_setfield(L, -2, "win");
  }
  lua_pushinteger(L, (lua_Integer)r.playouts);
  lua_setfield(L, -2, "playouts");
  lua_pushinteger(L, (lua_Integer)r.plies);
  lua_setfield(L, -2, "plies");
  lua_pushinteger(L, (lua_Integer)r.nodes);
  lua_setfield(L, -2, "nodes");
  lua_pushnumber(L, r.time);
  lua_setfield(L, -2, "time");
  return 1;
}

/* g:features() -> {mobility=, movers=, tempo=, safe=, attacked=,
** potential=}, {the default weights by the same names}: the built-in
** evaluation's features for the side to move (its score is the sum of
** weight * feature). */
static int l_features(lua_State *L) {
  kn_game *g = check_game(L, 1);
  int f[KN_NWEIGHTS], i;
  kn_weights w;
  kn_features(g->b, &g->pos, -1, f);
  kn_weights_default(&w);
  lua_createtable(L, 0, KN_NWEIGHTS);
  lua_createtable(L, 0, KN_NWEIGHTS);
  for (i = 0; i < KN_NWEIGHTS; i++) {
    lua_pushinteger(L, f[i]);
    lua_setfield(L, -3, kn_weight_name(i));
    lua_pushinteger(L, w.w[i]);
    lua_setfield(L, -2, kn_weight_name(i));
  }
  return 2;
}

const luaL_Reg lk_engine_methods[] = {{"search", l_search},
                                      {"solve", l_solve},
                                      {"mcts", l_mcts},
                                      {"features", l_features},
                                      {NULL, NULL}};

/* core.hashtable, core.own_table, and the table objects' metatable. */
void lk_engine_open(lua_State *L) {
  if (luaL_newmetatable(L, TABLE_MT)) {
    lua_pushcfunction(L, l_table_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, l_table_close);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, l_table_tostring);
    lua_setfield(L, -2, "__tostring");
    luaL_newlib(L, table_methods);
    lua_setfield(L, -2, "__index");
  }
  lua_pop(L, 1);
  lua_pushcfunction(L, l_hashtable);
  lua_setfield(L, -2, "hashtable");
  lua_pushcfunction(L, l_own_table);
  lua_setfield(L, -2, "own_table");
}
