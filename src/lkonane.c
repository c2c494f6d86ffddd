/*
** lkonane.c: the Lua binding, module `konane.core`.
** The only file of the library that includes Lua. Userdata types:
** konane.Board (shape and opening rules, shared by a game and its clones)
** and konane.Game (a position, its start and its history).
*/
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#include "konane.h"

#define BOARD_MT "konane.Board"
#define GAME_MT "konane.Game"

/* ---- boards ---- */

typedef struct lboard {
  kn_board b;
  char variant[64];
  kn_bits second[]; /* nsq sets when the variant has its own second rule */
} lboard;

/* ---- games ---- */

typedef struct kn_game {
  const kn_board *b; /* points into the konane.Board in the uservalue */
  const char *variant;
  kn_pos start, pos;
  kn_move *hist;
  int nhist, cap;
  int ncache; /* legal moves of 'pos' in 'cache', or -1 */
  kn_move cache[KN_MAX_MOVES];
} kn_game;

#define check_game(L, i) ((kn_game *)luaL_checkudata(L, i, GAME_MT))

/* ---- stop checks for long calls ---- */

/*
** Everything a long call polls: the host's interrupt flag (registry
** "konane.interrupt", a light userdata to a volatile sig_atomic_t) and a
** deadline (registry "konane.deadline", seconds on the clock() scale)
** set by the bot sandbox. Filled once per call by stop_init, then polled
** through binding_stop without touching Lua.
*/
typedef struct stop_ctx {
  volatile sig_atomic_t *flag;
  double deadline; /* 0: none */
  int interrupted, timed_out;
  unsigned polls;
} stop_ctx;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void stop_init(lua_State *L, stop_ctx *s) {
  memset(s, 0, sizeof *s);
  if (lua_getfield(L, LUA_REGISTRYINDEX, "konane.interrupt") ==
      LUA_TLIGHTUSERDATA)
    s->flag = (volatile sig_atomic_t *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (lua_getfield(L, LUA_REGISTRYINDEX, "konane.deadline") == LUA_TNUMBER)
    s->deadline = lua_tonumber(L, -1);
  lua_pop(L, 1);
}

/* A kn_stop callback; 'ud' is a stop_ctx. */
static int binding_stop(void *ud) {
  stop_ctx *s = (stop_ctx *)ud;
  if (s->flag && *s->flag) s->interrupted = 1;
  if (s->deadline > 0 && now_seconds() >= s->deadline) s->timed_out = 1;
  return s->interrupted || s->timed_out;
}

/* After a stopped call: raise the reason (the game is already restored). */
static int stop_raise(lua_State *L, const stop_ctx *s) {
  if (s->interrupted) return luaL_error(L, "interrupted!");
  return luaL_error(L, "time limit exceeded");
}

static void game_push_board(lua_State *L, int game_idx) {
  lua_getiuservalue(L, game_idx, 1);
}

static void invalidate(kn_game *g) { g->ncache = -1; }

static const kn_move *legal_moves(kn_game *g, int *n) {
  if (g->ncache < 0) g->ncache = kn_gen(g->b, &g->pos, g->cache);
  *n = g->ncache;
  return g->cache;
}

/* Make a new game userdata on the stack sharing the board at 'board_idx'. */
static kn_game *new_game(lua_State *L, int board_idx) {
  lboard *lb = (lboard *)luaL_checkudata(L, board_idx, BOARD_MT);
  board_idx = lua_absindex(L, board_idx);
  kn_game *g = (kn_game *)lua_newuserdatauv(L, sizeof(kn_game), 1);
  memset(g, 0, sizeof *g);
  g->b = &lb->b;
  g->variant = lb->variant;
  g->ncache = -1;
  luaL_setmetatable(L, GAME_MT);
  lua_pushvalue(L, board_idx);
  lua_setiuservalue(L, -2, 1);
  return g;
}

static void push_history(lua_State *L, kn_game *g, kn_move m) {
  if (g->nhist == g->cap) {
    int cap = g->cap ? g->cap * 2 : 64;
    kn_move *h = (kn_move *)realloc(g->hist, (size_t)cap * sizeof *h);
    if (!h) luaL_error(L, "not enough memory for the game history");
    g->hist = h;
    g->cap = cap;
  }
  g->hist[g->nhist++] = m;
}

static void push_move(lua_State *L, const kn_board *b, kn_move m) {
  char buf[KN_MOVE_TEXT];
  size_t n = kn_move_text(b, m, buf, sizeof buf);
  lua_pushlstring(L, buf, n);
}

/*
** Move texts are cached per board in a table holding both directions:
** cache[code] = text and cache[text] = code, so listing and playing moves
** neither formats nor parses once a move has been seen. Pushes the board's
** cache for the game at 'game_idx' and returns its index.
*/
static int push_cache(lua_State *L, int game_idx) {
  lua_getiuservalue(L, game_idx, 1);
  lua_getiuservalue(L, -1, 1);
  lua_remove(L, -2);
  return lua_gettop(L);
}

static void push_move_cached(lua_State *L, int cache, const kn_board *b,
                             kn_move m) {
  if (lua_rawgeti(L, cache, (lua_Integer)m) == LUA_TSTRING) return;
  lua_pop(L, 1);
  push_move(L, b, m);
  lua_pushvalue(L, -1);
  lua_rawseti(L, cache, (lua_Integer)m);
  lua_pushvalue(L, -1);
  lua_pushinteger(L, (lua_Integer)m);
  lua_rawset(L, cache);
}

static int side_arg(lua_State *L, int idx, int def) {
  static const char *const names[] = {"black", "white", NULL};
  if (lua_isnoneornil(L, idx)) return def;
  return luaL_checkoption(L, idx, NULL, names);
}

/*
** Read a list of square names at 'idx' (field 'what' of the variant) into
** 'set', checking each is on the board and, when 'colour' >= 0, holds that
** colour's piece in the start position 'p'.
*/
static void read_squares(lua_State *L, int idx, const kn_board *b,
                         const kn_pos *p, int colour, const char *what,
                         kn_bits *set) {
  char err[128];
  kn_bits_clear(set);
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_Integer n = luaL_len(L, idx);
  for (lua_Integer i = 1; i <= n; i++) {
    int sq;
    lua_geti(L, idx, i);
    const char *s = lua_tostring(L, -1);
    if (!s) luaL_error(L, "%s: entry %d is not a square name", what, (int)i);
    if (kn_square_parse(b, s, &sq, err, sizeof err) != 0)
      luaL_error(L, "%s: %s", what, err);
    if (colour >= 0 &&
        (!kn_bit(&b->side[colour], sq) || !kn_bit(&p->occ, sq)))
      luaL_error(L, "%s: %s does not hold a %s piece", what, s,
                 colour == KN_BLACK ? "Black" : "White");
    kn_setbit(set, sq);
    lua_pop(L, 1);
  }
}

/* User text as echoed in messages: at most 40 bytes, then "...". */
static const char *shown_text(const char *s, size_t len, char buf[48]) {
  if (len <= 40) return s;
  memcpy(buf, s, 40);
  memcpy(buf + 40, "...", 4);
  return buf;
}

/*
** core.new{fen=, rows=, cols=, first=, second=, variant=} -> game.
** 'fen' (or the full board of rows x cols, Black to move) is the start.
** 'first': list of square names the first removal may take (default: any
** own piece); 'second': table hole name -> list of square names (default:
** adjacent to the hole). Squares are checked against the start position:
** off the board or not holding the remover's piece is an error.
*/
static int l_new(lua_State *L) {
  kn_board b;
  kn_pos p;
  char err[256], shown[48];
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  if (lua_getfield(L, 1, "fen") != LUA_TNIL) {
    size_t len;
    const char *fen = lua_tolstring(L, -1, &len);
    if (!fen || lua_type(L, -1) != LUA_TSTRING)
      return luaL_error(L, "bad position text: a string is expected");
    if (strlen(fen) != len)
      return luaL_error(L, "bad position text: unexpected byte 0x00 at character %d",
                        (int)strlen(fen) + 1);
    if (kn_pos_parse(fen, &b, &p, err, sizeof err) != 0)
      return luaL_error(L, "bad position text '%s': %s",
                        shown_text(fen, len, shown), err);
  } else {
    lua_Integer rows, cols;
    lua_getfield(L, 1, "rows");
    lua_getfield(L, 1, "cols");
    rows = luaL_optinteger(L, -2, 8);
    cols = luaL_optinteger(L, -1, 8);
    if (rows < 1 || rows > KN_MAX_SIDE || cols < 1 || cols > KN_MAX_SIDE)
      return luaL_error(L, "board size %dx%d is out of range (1x1 to 20x20)",
                        (int)rows, (int)cols);
    kn_board_init(&b, (int)rows, (int)cols);
    kn_pos_start(&b, &p);
    lua_pop(L, 2);
  }
  lua_settop(L, 1);
  int empties = kn_pos_empties(&b, &p);
  int need_second = lua_getfield(L, 1, "second") != LUA_TNIL;
  size_t extra = need_second ? (size_t)b.nsq * sizeof(kn_bits) : 0;
  lboard *lb = (lboard *)lua_newuserdatauv(L, sizeof(lboard) + extra, 1);
  memset(lb, 0, sizeof(lboard) + extra);
  luaL_setmetatable(L, BOARD_MT);
  lua_newtable(L); /* the move text cache, see push_move_cached */
  lua_setiuservalue(L, -2, 1);
  int board_idx = lua_gettop(L);
  lb->b = b;
  if (lua_getfield(L, 1, "variant") == LUA_TSTRING)
    snprintf(lb->variant, sizeof lb->variant, "%s", lua_tostring(L, -1));
  else
    snprintf(lb->variant, sizeof lb->variant, "free");
  lua_pop(L, 1);
  /* first removal: by the side to move of a full board */
  if (lua_getfield(L, 1, "first") != LUA_TNIL)
    read_squares(L, lua_gettop(L), &lb->b, &p, empties == 0 ? p.stm : -1,
                 "first removal", &lb->b.first);
  else
    kn_board_default_first(&lb->b);
  lua_pop(L, 1);
  if (need_second) {
    int second_idx = board_idx - 1;
    int remover = empties == 0 ? (p.stm ^ 1) : empties == 1 ? p.stm : -1;
    luaL_checktype(L, second_idx, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, second_idx)) {
      int hole;
      char what[64];
      const char *h = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
      if (kn_square_parse(&lb->b, h, &hole, err, sizeof err) != 0)
        return luaL_error(L, "second removal: hole %s", err);
      kn_pos q = p;
      if (empties == 0) kn_clrbit(&q.occ, hole);
      snprintf(what, sizeof what, "second removal after %s", h);
      read_squares(L, lua_gettop(L), &lb->b, &q, remover, what,
                   &lb->second[hole]);
      lua_pop(L, 1);
    }
    lb->b.second = lb->second;
  }
  kn_game *g = new_game(L, board_idx);
  g->start = g->pos = p;
  return 1;
}

static int push_fen(lua_State *L, const kn_board *b, const kn_pos *p) {
  char buf[KN_POS_TEXT];
  lua_pushlstring(L, buf, kn_pos_text(b, p, buf, sizeof buf));
  return 1;
}

static int l_fen(lua_State *L) {
  kn_game *g = check_game(L, 1);
  return push_fen(L, g->b, &g->pos);
}

static int l_start_fen(lua_State *L) {
  kn_game *g = check_game(L, 1);
  return push_fen(L, g->b, &g->start);
}

/* g:moves() -> the legal moves, canonical strings in canonical order. */
static int l_moves(lua_State *L) {
  kn_game *g = check_game(L, 1);
  int n;
  const kn_move *m = legal_moves(g, &n);
  kn_move sorted[KN_MAX_MOVES];
  memcpy(sorted, m, (size_t)n * sizeof *m);
  if (n > 1) kn_sort_moves(sorted, n);
  int cache = push_cache(L, 1);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    push_move_cached(L, cache, g->b, sorted[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* Parse and check move argument 'idx'; on failure push nil and reason. */
static int parse_legal(lua_State *L, kn_game *g, int idx, kn_move *out) {
  char err[256], shown[48];
  size_t len;
  const char *s = luaL_checklstring(L, idx, &len);
  int n;
  if (lua_type(L, idx) == LUA_TSTRING) { /* seen before: no parsing */
    int cache = push_cache(L, 1);
    lua_pushvalue(L, idx);
    int known = lua_rawget(L, cache) == LUA_TNUMBER;
    kn_move code = known ? (kn_move)lua_tointeger(L, -1) : KN_NOMOVE;
    lua_pop(L, 2);
    if (known) {
      const kn_move *list = legal_moves(g, &n);
      for (int i = 0; i < n; i++)
        if (list[i] == code) {
          *out = code;
          return 1;
        }
    }
  }
  if (strlen(s) != len) {
    lua_pushnil(L);
    lua_pushfstring(L, "illegal move '%s': unexpected byte 0x00 at character %d",
                    shown_text(s, len, shown), (int)strlen(s) + 1);
    return 0;
  }
  const kn_move *list = legal_moves(g, &n);
  if (kn_move_parse(g->b, NULL, s, out, err, sizeof err) == 0)
    for (int i = 0; i < n; i++)
      if (list[i] == *out) return 1;
  /* slow path: find the reason */
  if (kn_move_parse(g->b, &g->pos, s, out, err, sizeof err) == 0)
    snprintf(err, sizeof err, "not a legal move here");
  lua_pushnil(L);
  lua_pushfstring(L, "illegal move '%s': %s", shown_text(s, len, shown), err);
  return 0;
}

/* g:play(move) -> canonical move string; raises when illegal. */
static int l_play(lua_State *L) {
  kn_game *g = check_game(L, 1);
  kn_move m;
  if (!parse_legal(L, g, 2, &m)) return lua_error(L);
  push_history(L, g, m);
  kn_make(g->b, &g->pos, m);
  invalidate(g);
  push_move_cached(L, push_cache(L, 1), g->b, m);
  return 1;
}

/* g:legal(move) -> canonical string, or nil and the reason. */
static int l_legal(lua_State *L) {
  kn_game *g = check_game(L, 1);
  kn_move m;
  if (!parse_legal(L, g, 2, &m)) return 2;
  push_move(L, g->b, m);
  return 1;
}

static int l_undo(lua_State *L) {
  kn_game *g = check_game(L, 1);
  if (g->nhist == 0) return 0;
  kn_move m = g->hist[--g->nhist];
  kn_unmake(g->b, &g->pos, m);
  invalidate(g);
  push_move(L, g->b, m);
  return 1;
}

static int l_turn(lua_State *L) {
  kn_game *g = check_game(L, 1);
  lua_pushstring(L, g->pos.stm == KN_BLACK ? "black" : "white");
  return 1;
}

static int l_over(lua_State *L) {
  kn_game *g = check_game(L, 1);
  int n;
  legal_moves(g, &n);
  lua_pushboolean(L, n == 0);
  return 1;
}

static int l_winner(lua_State *L) {
  kn_game *g = check_game(L, 1);
  int n;
  legal_moves(g, &n);
  if (n) return 0;
  lua_pushstring(L, g->pos.stm == KN_BLACK ? "white" : "black");
  return 1;
}

static int l_history(lua_State *L) {
  kn_game *g = check_game(L, 1);
  int cache = push_cache(L, 1);
  lua_createtable(L, g->nhist, 0);
  for (int i = 0; i < g->nhist; i++) {
    push_move_cached(L, cache, g->b, g->hist[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int l_ply(lua_State *L) {
  lua_pushinteger(L, check_game(L, 1)->nhist);
  return 1;
}

static int l_last(lua_State *L) {
  kn_game *g = check_game(L, 1);
  if (!g->nhist) return 0;
  push_move(L, g->b, g->hist[g->nhist - 1]);
  return 1;
}

static int l_clone(lua_State *L) {
  kn_game *g = check_game(L, 1);
  game_push_board(L, 1);
  kn_game *c = new_game(L, -1);
  c->start = g->start;
  c->pos = g->pos;
  if (g->nhist) {
    c->hist = (kn_move *)malloc((size_t)g->nhist * sizeof *c->hist);
    if (!c->hist) return luaL_error(L, "not enough memory to clone the game");
    memcpy(c->hist, g->hist, (size_t)g->nhist * sizeof *c->hist);
    c->nhist = c->cap = g->nhist;
  }
  return 1;
}

/* g:perft(depth) -> leaf count; interruptible. */
static int l_perft(lua_State *L) {
  kn_game *g = check_game(L, 1);
  lua_Integer d = luaL_checkinteger(L, 2);
  luaL_argcheck(L, d >= 0 && d <= 64, 2, "depth must be between 0 and 64");
  stop_ctx s;
  stop_init(L, &s);
  kn_stop st = {binding_stop, &s};
  uint64_t n = kn_perft(g->b, &g->pos, (int)d, &st);
  if (n == UINT64_MAX) return stop_raise(L, &s);
  lua_pushinteger(L, (lua_Integer)n);
  return 1;
}

static int l_rows(lua_State *L) {
  lua_pushinteger(L, check_game(L, 1)->b->rows);
  return 1;
}

static int l_cols(lua_State *L) {
  lua_pushinteger(L, check_game(L, 1)->b->cols);
  return 1;
}

static int l_variant(lua_State *L) {
  lua_pushstring(L, check_game(L, 1)->variant);
  return 1;
}

static int l_phase(lua_State *L) {
  static const char *const names[] = {"remove1", "remove2", "jump"};
  kn_game *g = check_game(L, 1);
  lua_pushstring(L, names[kn_pos_phase(g->b, &g->pos)]);
  return 1;
}

static int l_at(lua_State *L) {
  kn_game *g = check_game(L, 1);
  const char *s = luaL_checkstring(L, 2);
  char err[128];
  int sq;
  if (kn_square_parse(g->b, s, &sq, err, sizeof err) != 0)
    return luaL_argerror(L, 2, err);
  if (!kn_bit(&g->pos.occ, sq)) return 0;
  lua_pushstring(L, kn_bit(&g->b->side[KN_BLACK], sq) ? "black" : "white");
  return 1;
}

static int l_count(lua_State *L) {
  kn_game *g = check_game(L, 1);
  int side = side_arg(L, 2, g->pos.stm);
  lua_pushinteger(L, kn_pos_count(g->b, &g->pos, side));
  return 1;
}

static int l_nmoves(lua_State *L) {
  kn_game *g = check_game(L, 1);
  int side = side_arg(L, 2, g->pos.stm);
  lua_pushinteger(L, kn_count_side(g->b, &g->pos, side));
  return 1;
}

/* g:symmetries() -> position texts of the colour-preserving images. */
static int l_symmetries(lua_State *L) {
  kn_game *g = check_game(L, 1);
  int ids[KN_SYMS], n = kn_sym_list(g->b, ids);
  char buf[KN_POS_TEXT];
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    kn_pos q;
    kn_sym_pos(g->b, ids[i], &g->pos, &q);
    lua_pushlstring(L, buf, kn_pos_text(g->b, &q, buf, sizeof buf));
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* g:key() -> an integer hash of the position (for tables of positions). */
static int l_key(lua_State *L) {
  kn_game *g = check_game(L, 1);
  lua_pushinteger(L, (lua_Integer)kn_pos_hash(g->b, &g->pos));
  return 1;
}

static int l_eq(lua_State *L) {
  kn_game *a = (kn_game *)luaL_testudata(L, 1, GAME_MT);
  kn_game *b = (kn_game *)luaL_testudata(L, 2, GAME_MT);
  lua_pushboolean(L, a && b && a->b->rows == b->b->rows &&
                         a->b->cols == b->b->cols &&
                         kn_pos_equal(&a->pos, &b->pos));
  return 1;
}

/* __gc and __close share this; idempotent. */
static int l_gc(lua_State *L) {
  kn_game *g = check_game(L, 1);
  free(g->hist);
  g->hist = NULL;
  g->nhist = g->cap = 0;
  return 0;
}

static int l_tostring(lua_State *L) {
  kn_game *g = check_game(L, 1);
  luaL_Buffer buf;
  luaL_buffinit(L, &buf);
  for (int r = g->b->rows - 1; r >= 0; r--) {
    char line[16];
    snprintf(line, sizeof line, "%3d ", r + 1);
    luaL_addstring(&buf, line);
    for (int f = 0; f < g->b->cols; f++) {
      int sq = r * g->b->cols + f;
      luaL_addchar(&buf, ' ');
      luaL_addchar(&buf, !kn_bit(&g->pos.occ, sq)         ? '.'
                         : kn_square_light(f, r) ? 'x'
                                                 : 'o');
    }
    luaL_addchar(&buf, '\n');
  }
  luaL_addstring(&buf, "    ");
  for (int f = 0; f < g->b->cols; f++) {
    luaL_addchar(&buf, ' ');
    luaL_addchar(&buf, (char)('a' + f));
  }
  luaL_addchar(&buf, '\n');
  luaL_addstring(&buf, g->pos.stm == KN_BLACK ? "Black (x) to move"
                                              : "White (o) to move");
  luaL_pushresult(&buf);
  return 1;
}

static int l_clock(lua_State *L) {
  lua_pushnumber(L, now_seconds());
  return 1;
}

/* core.listdir(path) -> sorted-by-Lua list of entry names, or nil, message. */
static int l_listdir(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  DIR *d = opendir(path);
  if (!d) {
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: %s", path, strerror(errno));
    return 2;
  }
  lua_newtable(L);
  int i = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    lua_pushstring(L, e->d_name);
    lua_rawseti(L, -2, ++i);
  }
  closedir(d);
  return 1;
}

/* ==== section: search (owner: search engineer) ==== */
/*
** g:search{...}, g:solve{...}, g:mcts{...}: option checking, Lua
** callbacks (eval, info) and result tables. The core never sees Lua: a
** Lua evaluation runs under lua_pcall from a C callback; on error the
** search stops and the error object waits on the stack until the core
** memory is freed, then it is raised again.
*/
#include "mcts.h"
#include "search.h"
#include "solve.h"

/* Raises unless every key of the options table at 'idx' is in 'names'. */
static void opts_check(lua_State *L, int idx, const char *const names[]) {
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    int i, ok = 0;
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING)
      for (i = 0; names[i]; i++)
        if (strcmp(lua_tostring(L, -1), names[i]) == 0) ok = 1;
    if (!ok) {
      const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                                     : luaL_typename(L, -1);
      luaL_argerror(L, idx, lua_pushfstring(L, "unknown option '%s'", k));
    }
  }
}

/* Pushes field 'k' of the options at 'idx' (nil when no table). */
static int opt_get(lua_State *L, int idx, const char *k) {
  if (lua_isnoneornil(L, idx)) {
    lua_pushnil(L);
    return LUA_TNIL;
  }
  return lua_getfield(L, idx, k);
}

/* A number option in [lo, hi], or 'def' when absent. */
static double opt_number(lua_State *L, int idx, const char *k, double lo,
                         double hi, double def) {
  double v = def;
  if (opt_get(L, idx, k) != LUA_TNIL) {
    int isnum;
    v = lua_tonumberx(L, -1, &isnum);
    if (!isnum || !(v >= lo && v <= hi))
      luaL_argerror(L, idx,
                    lua_pushfstring(L, "option '%s' must be a number from %f "
                                       "to %f",
                                    k, (lua_Number)lo, (lua_Number)hi));
  }
  lua_pop(L, 1);
  return v;
}

/* An integer option in [lo, hi], or 'def' when absent. */
static lua_Integer opt_integer(lua_State *L, int idx, const char *k,
                               lua_Integer lo, lua_Integer hi,
                               lua_Integer def) {
  lua_Integer v = def;
  if (opt_get(L, idx, k) != LUA_TNIL) {
    int isint;
    v = lua_tointegerx(L, -1, &isint);
    if (!isint || v < lo || v > hi)
      luaL_argerror(L, idx,
                    lua_pushfstring(L, "option '%s' must be an integer from "
                                       "%I to %I",
                                    k, lo, hi));
  }
  lua_pop(L, 1);
  return v;
}

/* The 'time' option: seconds, or 0 when absent. An explicit 0 (a bot
** whose clock ran out) means "as little as possible", not "no limit". */
static double opt_time(lua_State *L, int idx) {
  double t = opt_number(L, idx, "time", 0, 1e9, -1);
  return t < 0 ? 0 : t == 0 ? 1e-9 : t;
}

/* Pushes a move string, or nil for KN_NOMOVE. */
static void push_move_or_nil(lua_State *L, const kn_board *b, kn_move m) {
  if (m == KN_NOMOVE) lua_pushnil(L);
  else push_move(L, b, m);
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
    push_move(L, b, r->pv[i]);
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

/* Reads weights={name=value,...} into 'w' (unknown names raise). */
static void opt_weights(lua_State *L, int idx, kn_weights *w) {
  int t;
  if (opt_get(L, idx, "weights") == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  if (!lua_istable(L, -1))
    luaL_argerror(L, idx, "option 'weights' must be a table");
  t = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    int i, found = -1, isnum;
    lua_Number v;
    if (lua_type(L, -2) == LUA_TSTRING)
      for (i = 0; i < KN_NWEIGHTS; i++)
        if (strcmp(lua_tostring(L, -2), kn_weight_name(i)) == 0) found = i;
    if (found < 0)
      luaL_argerror(L, idx,
                    lua_pushfstring(L, "unknown weight '%s' (known: mobility, "
                                       "movers, tempo)",
                                    lua_type(L, -2) == LUA_TSTRING
                                        ? lua_tostring(L, -2)
                                        : luaL_typename(L, -2)));
    v = lua_tonumberx(L, -1, &isnum);
    if (!isnum || !(v >= -10000 && v <= 10000))
      luaL_argerror(L, idx,
                    lua_pushfstring(L, "weight '%s' must be a number from "
                                       "-10000 to 10000",
                                    kn_weight_name(found)));
    *kn_weight_ref(w, found) = (int)(v < 0 ? v - 0.5 : v + 0.5);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/*
** g:search{depth=, time=, nodes=, hash_mb=, eval=, weights=, info=}
** -> {move=, score=, depth=, nodes=, nps=, time=, pv={...}[, win=, plies=]}
*/
static int l_search(lua_State *L) {
  static const char *const names[] = {"depth", "time",  "nodes", "hash_mb",
                                      "eval",  "weights", "info", NULL};
  kn_game *g = check_game(L, 1);
  kn_search_opts o;
  kn_search_result r;
  lsearch ls;
  stop_ctx sc;
  kn_tt *tt;
  double mb;
  int rc;

  opts_check(L, 2, names);
  kn_search_opts_default(&o);
  o.lim.depth = (int)opt_integer(L, 2, "depth", 1, 1000, 0);
  o.lim.time = opt_time(L, 2);
  o.lim.nodes = (uint64_t)opt_integer(L, 2, "nodes", 1, LUA_MAXINTEGER, 0);
  mb = opt_number(L, 2, "hash_mb", 0, 65536, 16);
  opt_weights(L, 2, &o.weights);
  memset(&ls, 0, sizeof ls);
  ls.L = L;
  ls.b = g->b;
  if (opt_get(L, 2, "eval") != LUA_TNIL) {
    if (!lua_isfunction(L, -1))
      luaL_argerror(L, 2, "option 'eval' must be a function");
    ls.fn = lua_gettop(L);
    game_push_board(L, 1);
    new_game(L, -1);
    lua_remove(L, -2);
    ls.tmp = lua_gettop(L);
    o.eval.fn = lua_eval_cb;
    o.eval.ud = &ls;
  } else {
    lua_pop(L, 1);
  }
  if (opt_get(L, 2, "info") != LUA_TNIL) {
    if (!lua_isfunction(L, -1))
      luaL_argerror(L, 2, "option 'info' must be a function");
    ls.info = lua_gettop(L);
    o.info = lua_info_cb;
    o.info_ud = &ls;
  } else {
    lua_pop(L, 1);
  }
  stop_init(L, &sc);
  o.lim.stop.fn = binding_stop;
  o.lim.stop.ud = &sc;
  tt = kn_tt_new(mb);
  if (!tt) return luaL_error(L, "search: not enough memory for a %f MB table",
                             (lua_Number)mb);
  rc = kn_search(g->b, &g->pos, tt, &o, &r);
  kn_tt_free(tt);
  if (rc) return luaL_error(L, "search: not enough memory");
  if (ls.failed) return lua_error(L); /* the callback's error is on top */
  if (r.stopped == KN_STOP_USER) return stop_raise(L, &sc);
  push_search_result(L, g->b, &r);
  return 1;
}

/* g:solve{time=, nodes=, hash_mb=} -> {win=, move=, nodes=, time=} */
static int l_solve(lua_State *L) {
  static const char *const names[] = {"time", "nodes", "hash_mb", NULL};
  kn_game *g = check_game(L, 1);
  kn_limits lim;
  kn_solve_result r;
  stop_ctx sc;
  kn_tt *tt;
  double mb;
  int rc;

  opts_check(L, 2, names);
  memset(&lim, 0, sizeof lim);
  lim.time = opt_time(L, 2);
  lim.nodes = (uint64_t)opt_integer(L, 2, "nodes", 1, LUA_MAXINTEGER, 0);
  mb = opt_number(L, 2, "hash_mb", 0, 65536, 16);
  stop_init(L, &sc);
  lim.stop.fn = binding_stop;
  lim.stop.ud = &sc;
  tt = kn_tt_new(mb);
  if (!tt) return luaL_error(L, "solve: not enough memory for a %f MB table",
                             (lua_Number)mb);
  rc = kn_solve(g->b, &g->pos, tt, &lim, &r);
  kn_tt_free(tt);
  if (rc) return luaL_error(L, "solve: not enough memory");
  if (r.stopped == KN_STOP_USER) return stop_raise(L, &sc);
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
  static const char *const names[] = {"playouts", "time", "c", "seed", NULL};
  kn_game *g = check_game(L, 1);
  kn_mcts_opts o;
  kn_mcts_result r;
  stop_ctx sc;

  opts_check(L, 2, names);
  kn_mcts_opts_default(&o);
  o.lim.nodes =
      (uint64_t)opt_integer(L, 2, "playouts", 1, LUA_MAXINTEGER, 0);
  o.lim.time = opt_time(L, 2);
  o.c = opt_number(L, 2, "c", 0, 1000, KN_MCTS_C);
  o.seed = (uint64_t)opt_integer(L, 2, "seed", LUA_MININTEGER,
                                 LUA_MAXINTEGER, 1);
  stop_init(L, &sc);
  o.lim.stop.fn = binding_stop;
  o.lim.stop.ud = &sc;
  if (kn_mcts(g->b, &g->pos, &o, &r))
    return luaL_error(L, "mcts: not enough memory");
  if (r.stopped == KN_STOP_USER) return stop_raise(L, &sc);
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

static const luaL_Reg search_methods[] = {
    {"search", l_search}, {"solve", l_solve}, {"mcts", l_mcts}, {NULL, NULL}};
/* ==== end: search ==== */

/* ==== section: sandbox (owner: bots engineer) ==== */

/*
** The bot sandbox's limits. core.sandbox_call(limits, fn, ...) runs
** fn(...) under lua_pcall with
**   - a count hook every SANDBOX_HOOK_COUNT instructions that raises once
**     the wall-clock deadline or the instruction budget is passed (or the
**     host's interrupt flag is set);
**   - a budgeting wrapper around the state's allocator that refuses any
**     growth beyond the memory budget, so Lua raises its memory error
**     inside the call;
**   - the registry "konane.deadline" set to the deadline, so a C search
**     called by the bot stops on time too.
** Everything is restored on the way out, whatever happened, and calls nest
** (an inner call never gets more than what is left of the outer one).
** The current limits live on the C stack of sandbox_call and are published
** under the registry key "konane.sandbox" (a light userdata) for the hook,
** which also serves coroutines created inside the sandbox (sandbox_hook).
*/
#define SANDBOX_KEY "konane.sandbox"
#define SANDBOX_HOOK_COUNT 1000

typedef struct sandbox {
  double deadline;                 /* absolute, clock() scale; 0: none */
  double start;
  lua_Integer max_instructions;    /* 0: none */
  lua_Integer instructions;        /* counted by the hook */
  long long max_memory;            /* net bytes; 0: none */
  long long memory;                /* net bytes allocated during the call */
  long long peak;
  int refused;                     /* allocations refused so far */
  const char *tripped;             /* NULL or the limit that stopped it */
  volatile sig_atomic_t *interrupt;
  lua_Alloc alloc;                 /* the allocator below this one */
  void *alloc_ud;
} sandbox;

/* The innermost active sandbox of the state, or NULL. */
static sandbox *sandbox_current(lua_State *L) {
  sandbox *s = NULL;
  if (lua_getfield(L, LUA_REGISTRYINDEX, SANDBOX_KEY) == LUA_TLIGHTUSERDATA)
    s = (sandbox *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  return s;
}

/*
** The budgeting allocator: 'ud' is the sandbox. Growth that would take the
** net bytes of the call past the budget is refused (NULL: Lua collects
** garbage and retries once, then raises its memory error); frees and
** shrinks always go through.
*/
static void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  sandbox *s = (sandbox *)ud;
  long long old = ptr ? (long long)osize : 0;
  long long delta = (long long)nsize - old;
  if (nsize > 0 && delta > 0 && s->max_memory > 0 &&
      s->memory + delta > s->max_memory) {
    s->refused++;
    return NULL;
  }
  void *p = s->alloc(s->alloc_ud, ptr, osize, nsize);
  if (p != NULL || nsize == 0) {
    s->memory += delta;
    if (s->memory > s->peak) s->peak = s->memory;
  }
  return p;
}

/* The count hook: raise once a limit is passed (and keep raising). */
static void sandbox_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  sandbox *s = sandbox_current(L);
  if (s == NULL) return;
  s->instructions += SANDBOX_HOOK_COUNT;
  if (s->tripped == NULL) {
    if (s->interrupt != NULL && *s->interrupt)
      s->tripped = "interrupted";
    else if (s->max_instructions > 0 &&
             s->instructions > s->max_instructions)
      s->tripped = "instructions";
    else if (s->deadline > 0 && now_seconds() >= s->deadline)
      s->tripped = "time";
  }
  if (s->tripped == NULL || strcmp(s->tripped, "memory") == 0) return;
  if (strcmp(s->tripped, "interrupted") == 0)
    luaL_error(L, "interrupted!");
  else if (strcmp(s->tripped, "time") == 0) {
    char used[32];
    snprintf(used, sizeof used, "%.3f", now_seconds() - s->start);
    luaL_error(L, "time limit exceeded (%s s)", used);
  } else
    luaL_error(L, "instruction limit exceeded (%I instructions)",
               (LUAI_UACINT)s->max_instructions);
}

/* A non-negative number field of the limits table (0 when absent). */
static double sandbox_limit(lua_State *L, const char *key) {
  double v = 0;
  int t = lua_getfield(L, 1, key);
  if (t == LUA_TNUMBER) {
    v = lua_tonumber(L, -1);
    if (!(v >= 0)) luaL_error(L, "sandbox limit '%s' must be >= 0", key);
  } else if (t != LUA_TNIL) {
    luaL_error(L, "sandbox limit '%s' must be a number, got %s", key,
               luaL_typename(L, -1));
  }
  lua_pop(L, 1);
  return v;
}

/*
** core.sandbox_call(limits, fn, ...) -> true, results... | false, err, kind
** 'limits' = {time = seconds, instructions = n, memory = bytes}, each
** optional. 'kind' names what stopped the call: "time", "instructions",
** "memory", "interrupted" or "error". On return the fields used_time,
** used_instructions, used_memory (peak net bytes) and used_net (net bytes
** still allocated at the end, when a memory limit was set) of 'limits' are
** set.
*/
static int l_sandbox_call(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  sandbox s;
  memset(&s, 0, sizeof s);
  double time = sandbox_limit(L, "time");
  double instr = sandbox_limit(L, "instructions");
  double mem = sandbox_limit(L, "memory");
  sandbox *parent = sandbox_current(L);
  s.start = now_seconds();
  if (time > 0) s.deadline = s.start + (time < 1e9 ? time : 1e9);
  s.max_instructions = instr > 0 ? (instr < 1e18 ? (lua_Integer)instr : (lua_Integer)1e18) : 0;
  s.max_memory = mem > 0 ? (mem < 1e18 ? (long long)mem : (long long)1e18) : 0;
  if (parent != NULL) { /* never more than what the outer call has left */
    if (parent->deadline > 0 && (s.deadline == 0 || parent->deadline < s.deadline))
      s.deadline = parent->deadline;
    if (parent->max_instructions > 0) {
      lua_Integer left = parent->max_instructions - parent->instructions;
      if (left < 1) left = 1;
      if (s.max_instructions == 0 || left < s.max_instructions)
        s.max_instructions = left;
    }
    if (parent->max_memory > 0) {
      long long left = parent->max_memory - parent->memory;
      if (left < 1) left = 1;
      if (s.max_memory == 0 || left < s.max_memory) s.max_memory = left;
    }
  }
  if (lua_getfield(L, LUA_REGISTRYINDEX, "konane.interrupt") ==
      LUA_TLIGHTUSERDATA)
    s.interrupt = (volatile sig_atomic_t *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  int had_deadline =
      lua_getfield(L, LUA_REGISTRYINDEX, "konane.deadline") == LUA_TNUMBER;
  double old_deadline = had_deadline ? lua_tonumber(L, -1) : 0;
  lua_pop(L, 1);

  /* install: registry first (may allocate), then allocator and hook */
  lua_pushlightuserdata(L, &s);
  lua_setfield(L, LUA_REGISTRYINDEX, SANDBOX_KEY);
  if (s.deadline > 0) {
    lua_pushnumber(L, s.deadline);
    lua_setfield(L, LUA_REGISTRYINDEX, "konane.deadline");
  }
  lua_Hook old_hook = lua_gethook(L);
  int old_mask = lua_gethookmask(L), old_count = lua_gethookcount(L);
  s.alloc = lua_getallocf(L, &s.alloc_ud);
  if (s.max_memory > 0) lua_setallocf(L, sandbox_alloc, &s);
  lua_sethook(L, sandbox_hook, LUA_MASKCOUNT, SANDBOX_HOOK_COUNT);

  int status = lua_pcall(L, lua_gettop(L) - 2, LUA_MULTRET, 0);

  /* restore, in the reverse order; a call that kept much of its budget
     gets a full collection first, with its allocator still counting, so
     'used_net' is what it really retains, not garbage */
  lua_sethook(L, old_hook, old_mask, old_count);
  if (s.max_memory > 0 && s.memory > s.max_memory / 4) lua_gc(L, LUA_GCCOLLECT);
  if (s.max_memory > 0) lua_setallocf(L, s.alloc, s.alloc_ud);
  luaL_checkstack(L, 4, "sandbox results");
  if (parent != NULL)
    lua_pushlightuserdata(L, parent);
  else
    lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, SANDBOX_KEY);
  if (had_deadline)
    lua_pushnumber(L, old_deadline);
  else
    lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, "konane.deadline");
  /* the outer call pays for the inner one (its allocator, chained below
     ours, has already counted the memory) */
  if (parent != NULL) parent->instructions += s.instructions;

  lua_pushnumber(L, now_seconds() - s.start);
  lua_setfield(L, 1, "used_time");
  lua_pushinteger(L, s.instructions);
  lua_setfield(L, 1, "used_instructions");
  lua_pushinteger(L, (lua_Integer)s.peak);
  lua_setfield(L, 1, "used_memory");
  lua_pushinteger(L, (lua_Integer)s.memory);
  lua_setfield(L, 1, "used_net");

  if (status == LUA_OK) {
    lua_pushboolean(L, 1);
    lua_insert(L, 2);
    return lua_gettop(L) - 1;
  }
  const char *kind = s.tripped;
  if (kind == NULL) kind = status == LUA_ERRMEM ? "memory" : "error";
  /* the host's own interrupt hook or a C search stopped by the deadline
     raise their own errors: still an interrupt, still time */
  if (strcmp(kind, "error") == 0 && s.interrupt != NULL && *s.interrupt)
    kind = "interrupted";
  else if (strcmp(kind, "error") == 0 && s.deadline > 0 &&
           now_seconds() >= s.deadline)
    kind = "time";
  if (strcmp(kind, "memory") == 0) {
    lua_pushfstring(L, "memory limit exceeded (%I bytes)",
                    (LUAI_UACINT)s.max_memory);
    lua_replace(L, -2);
  }
  lua_pushboolean(L, 0);
  lua_insert(L, -2);
  lua_pushstring(L, kind);
  return 3;
}

/*
** core.sandbox_hook(co): give the coroutine 'co' the sandbox's count hook,
** so code running in it obeys the same limits (hooks are per thread).
*/
static int l_sandbox_hook(lua_State *L) {
  lua_State *co = lua_tothread(L, 1);
  luaL_argexpected(L, co != NULL, 1, "coroutine");
  lua_sethook(co, sandbox_hook, LUA_MASKCOUNT, SANDBOX_HOOK_COUNT);
  return 0;
}

/*
** core.sandbox_tripped([err]) -> kind or nil: the limit the current
** sandboxed call has passed, so sandboxed pcall/resume wrappers re-raise
** instead of letting the bot catch its own time or memory limit. 'err'
** equal to Lua's memory error message after a refused allocation counts
** as the memory limit.
*/
static int l_sandbox_tripped(lua_State *L) {
  sandbox *s = sandbox_current(L);
  if (s == NULL) {
    lua_pushnil(L);
    return 1;
  }
  if (s->tripped == NULL && s->refused > 0 && lua_type(L, 1) == LUA_TSTRING &&
      strcmp(lua_tostring(L, 1), "not enough memory") == 0)
    s->tripped = "memory";
  if (s->tripped != NULL)
    lua_pushstring(L, s->tripped);
  else
    lua_pushnil(L);
  return 1;
}

static const luaL_Reg sandbox_funcs[] = {{"sandbox_call", l_sandbox_call},
                                         {"sandbox_hook", l_sandbox_hook},
                                         {"sandbox_tripped", l_sandbox_tripped},
                                         {NULL, NULL}};
/* ==== end: sandbox ==== */

/* ==== section: process (owner: tournament engineer) ==== */
/*
** Child processes for the tournament workers. Lua has no fork and io.popen
** is one-way and blocking, so this is the smallest POSIX layer that lets a
** script run several games at once and notice whichever ends first:
**   core.spawn(argv [, {pgroup=bool, stdin=bool}]) -> process (stdout and
**     stderr of the child both go to one non-blocking pipe; stdin is a pipe
**     written with p:write when opts.stdin, else /dev/null)
**   core.poll(processes, timeout) -> number of processes with output or EOF
**   p:read() -> available output ("" when none yet), or nil at EOF
**   p:write(s) -> true, or nil and a message (the child is gone)
**   p:close_input() -> the child reads end of file
**   p:wait([block]) -> nil while running, else "exit", code / "signal", n
**   p:kill([signal number]) ; p:pid() ; p:close()
**   core.isatty(fd) ; core.term_columns(fd) ; core.exe_path() ;
**   core.fsync(file) ; core.lock(file)
** A process still running when its userdata is collected or closed is
** killed and reaped, so a script that fails never leaves orphans behind.
*/
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROCESS_MT "konane.Process"

typedef struct lprocess {
  pid_t pid;    /* 0 once reaped */
  int fd;       /* read end of the output pipe, -1 once closed */
  int wfd;      /* write end of the child's stdin pipe, or -1 */
  int pgroup;   /* the child leads its own process group */
  int status;   /* waitpid status once reaped */
} lprocess;

#define check_process(L, i) ((lprocess *)luaL_checkudata(L, i, PROCESS_MT))

/* Sets FD_CLOEXEC on 'fd' so no other child inherits it. */
static int process_cloexec(int fd) {
  int flags = fcntl(fd, F_GETFD);
  return flags < 0 ? -1 : fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

/* Closes every descriptor of 'fds' (n entries) that is open, keeping errno. */
static void process_close_fds(int *fds, int n) {
  int err = errno;
  for (int i = 0; i < n; i++)
    if (fds[i] >= 0) {
      close(fds[i]);
      fds[i] = -1;
    }
  errno = err;
}

/*
** core.spawn(argv [, opts]): starts argv[1] (searched in PATH when it has
** no slash) with the arguments argv[2..]. opts.pgroup puts the child in a
** process group of its own, so a Ctrl-C at the terminal reaches only the
** parent, which decides what to do with its workers; opts.stdin gives the
** child a pipe as stdin (p:write), else it reads /dev/null. Returns the process,
** or nil and a message when it cannot be started (exec failures are
** reported through a close-on-exec status pipe, not as a dead child).
*/
static int l_spawn(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  int pgroup = 0, with_stdin = 0;
  if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "pgroup");
    pgroup = lua_toboolean(L, -1);
    lua_getfield(L, 2, "stdin");
    with_stdin = lua_toboolean(L, -1);
    lua_pop(L, 2);
  }
  lua_Integer n = luaL_len(L, 1);
  luaL_argcheck(L, n >= 1 && n < 4096, 1, "argv must hold 1 to 4095 strings");
  /* the argument vector lives in Lua-managed memory: nothing leaks on error */
  const char **argv = lua_newuserdatauv(L, sizeof(char *) * (size_t)(n + 1), 0);
  for (lua_Integer i = 1; i <= n; i++) {
    /* the strings stay alive in the table (argument 1) until the call ends */
    if (lua_geti(L, 1, i) != LUA_TSTRING)
      return luaL_error(L, "bad argument #1 to 'spawn' (argv[%d] is not a string)", (int)i);
    argv[i - 1] = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  argv[n] = NULL;
  lprocess *p = lua_newuserdatauv(L, sizeof(lprocess), 0);
  p->pid = 0;
  p->fd = -1;
  p->wfd = -1;
  p->pgroup = pgroup;
  p->status = 0;
  luaL_setmetatable(L, PROCESS_MT);

  /* fds: output pipe (read, write), status pipe (read, write), stdin pipe (read, write) */
  int fds[6] = {-1, -1, -1, -1, -1, -1};
  int err = 0;
  pid_t pid;
  if (pipe(fds) != 0 || pipe(fds + 2) != 0 || (with_stdin && pipe(fds + 4) != 0)) {
    process_close_fds(fds, 6);
    lua_pushnil(L);
    lua_pushfstring(L, "cannot start '%s': %s", argv[0], strerror(errno));
    return 2;
  }
  process_cloexec(fds[0]);
  process_cloexec(fds[2]);
  process_cloexec(fds[3]);
  if (with_stdin) process_cloexec(fds[5]);
  fflush(NULL);
  pid = fork();
  if (pid < 0) {
    process_close_fds(fds, 6);
    lua_pushnil(L);
    lua_pushfstring(L, "cannot start '%s': %s", argv[0], strerror(errno));
    return 2;
  }
  if (pid == 0) { /* child: only async-signal-safe calls until exec */
    int in = with_stdin ? fds[4] : open("/dev/null", O_RDONLY);
    if (pgroup) setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    if (in >= 0 && in != 0) {
      dup2(in, 0);
      close(in);
    }
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    if (fds[1] > 2) close(fds[1]);
    execvp(argv[0], (char *const *)argv);
    err = errno;
    if (write(fds[3], &err, sizeof err) < 0) { /* nothing more to do */ }
    _exit(127);
  }
  if (pgroup) setpgid(pid, pid); /* also here: no race with an early kill */
  close(fds[1]);
  close(fds[3]);
  fds[1] = fds[3] = -1;
  if (with_stdin) {
    close(fds[4]);
    fds[4] = -1;
  }
  ssize_t got;
  do got = read(fds[2], &err, sizeof err);
  while (got < 0 && errno == EINTR);
  close(fds[2]);
  fds[2] = -1;
  if (got == (ssize_t)sizeof err) { /* exec failed: reap and report */
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    process_close_fds(fds, 6);
    lua_pushnil(L);
    lua_pushfstring(L, "cannot run '%s': %s", argv[0], strerror(err));
    return 2;
  }
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  p->pid = pid;
  p->fd = fds[0];
  p->wfd = with_stdin ? fds[5] : -1;
  return 1;
}

/* Reaps the child if it has ended ('block': wait for it). 1 when reaped. */
static int process_reap(lprocess *p, int block) {
  if (p->pid <= 0) return 1;
  int status;
  pid_t r;
  do r = waitpid(p->pid, &status, block ? 0 : WNOHANG);
  while (r < 0 && errno == EINTR && block);
  if (r == p->pid) {
    p->status = status;
    p->pid = 0;
    return 1;
  }
  if (r < 0 && errno == ECHILD) { /* reaped elsewhere: nothing to wait for */
    p->pid = 0;
    return 1;
  }
  return 0;
}

/* p:read(): the output available now ("" if none yet), nil at end of file. */
static int l_process_read(lua_State *L) {
  lprocess *p = check_process(L, 1);
  if (p->fd < 0) {
    lua_pushnil(L);
    return 1;
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (;;) {
    char *dst = luaL_prepbuffer(&b);
    ssize_t got = read(p->fd, dst, LUAL_BUFFERSIZE);
    if (got > 0) {
      luaL_addsize(&b, (size_t)got);
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
      close(p->fd); /* end of file (or a broken pipe): report it once drained */
      p->fd = -1;
    }
    break;
  }
  luaL_pushresult(&b);
  if (p->fd < 0 && lua_rawlen(L, -1) == 0) lua_pushnil(L);
  return 1;
}

/*
** core.poll(list, timeout): waits at most 'timeout' seconds (nil: forever)
** until one process of 'list' has output or has closed its output. Returns
** how many are ready; 0 on timeout or when a signal interrupted the wait
** (the caller checks its own interrupt state and loops).
*/
static int l_process_poll(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  double timeout = luaL_optnumber(L, 2, -1);
  lua_Integer n = luaL_len(L, 1);
  luaL_argcheck(L, n >= 0 && n <= 1024, 1, "at most 1024 processes");
  struct pollfd *fds = lua_newuserdatauv(L, sizeof(struct pollfd) * (size_t)(n + 1), 0);
  int nfds = 0, ready = 0;
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 1, i);
    lprocess *p = check_process(L, -1);
    lua_pop(L, 1);
    if (p->fd < 0) {
      ready++; /* already at EOF: ready at once */
      continue;
    }
    fds[nfds].fd = p->fd;
    fds[nfds].events = POLLIN;
    fds[nfds].revents = 0;
    nfds++;
  }
  if (ready > 0) {
    lua_pushinteger(L, ready);
    return 1;
  }
  int ms = timeout < 0 ? -1 : (timeout > 86400.0 ? 86400000 : (int)(timeout * 1000.0 + 0.5));
  int r = poll(fds, (nfds_t)nfds, ms);
  lua_pushinteger(L, r < 0 ? 0 : r);
  return 1;
}

/* p:wait([block]): nil while the child runs, else "exit", code or "signal", number. */
static int l_process_wait(lua_State *L) {
  lprocess *p = check_process(L, 1);
  if (!process_reap(p, lua_toboolean(L, 2))) {
    lua_pushnil(L);
    return 1;
  }
  if (WIFSIGNALED(p->status)) {
    lua_pushliteral(L, "signal");
    lua_pushinteger(L, WTERMSIG(p->status));
  } else {
    lua_pushliteral(L, "exit");
    lua_pushinteger(L, WIFEXITED(p->status) ? WEXITSTATUS(p->status) : 0);
  }
  return 2;
}

/* p:kill([sig]): sends 'sig' (default SIGKILL) to the child, or to its whole group. */
static int l_process_kill(lua_State *L) {
  lprocess *p = check_process(L, 1);
  int sig = (int)luaL_optinteger(L, 2, SIGKILL);
  if (p->pid > 0) kill(p->pgroup ? -p->pid : p->pid, sig);
  return 0;
}

static int l_process_pid(lua_State *L) {
  lprocess *p = check_process(L, 1);
  lua_pushinteger(L, p->pid);
  return 1;
}

/* p:write(s): writes all of 's' to the child's stdin. SIGPIPE is ignored
** during the call, so a child that died gives nil and a message instead of
** killing this process. */
static int l_process_write(lua_State *L) {
  lprocess *p = check_process(L, 1);
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  if (p->wfd < 0) {
    lua_pushnil(L);
    lua_pushliteral(L, "the process has no input pipe (closed)");
    return 2;
  }
  struct sigaction ign, old;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, &old);
  size_t done = 0;
  int err = 0;
  while (done < len) {
    ssize_t n = write(p->wfd, s + done, len - done);
    if (n > 0) done += (size_t)n;
    else if (n < 0 && errno == EINTR) continue;
    else {
      err = n < 0 ? errno : EIO;
      break;
    }
  }
  sigaction(SIGPIPE, &old, NULL);
  if (err) {
    lua_pushnil(L);
    lua_pushstring(L, strerror(err));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* p:close_input(): closes the child's stdin, which then reads end of file. */
static int l_process_close_input(lua_State *L) {
  lprocess *p = check_process(L, 1);
  if (p->wfd >= 0) {
    close(p->wfd);
    p->wfd = -1;
  }
  return 0;
}

/* __gc / __close / p:close(): closes the pipe, kills a child still running
** and reaps it. Idempotent. */
static int l_process_close(lua_State *L) {
  lprocess *p = check_process(L, 1);
  if (p->fd >= 0) {
    close(p->fd);
    p->fd = -1;
  }
  if (p->wfd >= 0) {
    close(p->wfd);
    p->wfd = -1;
  }
  if (p->pid > 0 && !process_reap(p, 0)) {
    kill(p->pgroup ? -p->pid : p->pid, SIGKILL);
    process_reap(p, 1);
  }
  return 0;
}

/* core.isatty(fd): true when file descriptor 'fd' (0, 1, 2) is a terminal. */
static int l_isatty(lua_State *L) {
  lua_pushboolean(L, isatty((int)luaL_checkinteger(L, 1)) == 1);
  return 1;
}

/* core.term_columns(fd): the width of the terminal on 'fd', or nil when it is
** not a terminal (or the system cannot tell). */
static int l_term_columns(lua_State *L) {
  int fd = (int)luaL_checkinteger(L, 1);
#ifdef TIOCGWINSZ
  struct winsize ws;
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    lua_pushinteger(L, ws.ws_col);
    return 1;
  }
#else
  (void)fd;
#endif
  return 0;
}

/* core.exe_path(): the path of the running executable (Linux /proc), or
** nil. When the file was replaced since it started (a rebuild), the kernel
** appends " (deleted)": the path is still the right one to run. */
static int l_exe_path(lua_State *L) {
  char buf[4096];
  static const char deleted[] = " (deleted)";
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return 0;
  size_t len = (size_t)n, dl = sizeof deleted - 1;
  if (len > dl && memcmp(buf + len - dl, deleted, dl) == 0) len -= dl;
  lua_pushlstring(L, buf, len);
  return 1;
}

/* core.fsync(file): flushes a Lua file and asks the kernel to put it on disk,
** so a finished game survives a power cut. true, or nil and a message. */
static int l_fsync(lua_State *L) {
  luaL_Stream *s = (luaL_Stream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
  luaL_argcheck(L, s->closef != NULL && s->f != NULL, 1, "file is closed");
  if (fflush(s->f) != 0 || fsync(fileno(s->f)) != 0) {
    lua_pushnil(L);
    lua_pushstring(L, strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* core.lock(file): takes an exclusive POSIX lock on an open Lua file without
** waiting. true, or nil and a message when another process holds it. The
** kernel drops the lock when the process ends, even by kill -9, so a stale
** lock never blocks a resume. */
static int l_lock(lua_State *L) {
  luaL_Stream *s = (luaL_Stream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
  luaL_argcheck(L, s->closef != NULL && s->f != NULL, 1, "file is closed");
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (fcntl(fileno(s->f), F_SETLK, &fl) != 0) {
    lua_pushnil(L);
    lua_pushstring(L, (errno == EACCES || errno == EAGAIN) ? "locked by another process"
                                                          : strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

static const luaL_Reg process_methods[] = {{"read", l_process_read},
                                           {"write", l_process_write},
                                           {"close_input", l_process_close_input},
                                           {"wait", l_process_wait},
                                           {"kill", l_process_kill},
                                           {"pid", l_process_pid},
                                           {"close", l_process_close},
                                           {NULL, NULL}};

/* core.spawn, with the process metatable created on first use. */
static int l_spawn_entry(lua_State *L) {
  if (luaL_newmetatable(L, PROCESS_MT)) {
    lua_pushcfunction(L, l_process_close);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, l_process_close);
    lua_setfield(L, -2, "__close");
    luaL_newlib(L, process_methods);
    lua_setfield(L, -2, "__index");
  }
  lua_pop(L, 1);
  return l_spawn(L);
}

static const luaL_Reg process_funcs[] = {{"spawn", l_spawn_entry},
                                         {"poll", l_process_poll},
                                         {"isatty", l_isatty},
                                         {"term_columns", l_term_columns},
                                         {"exe_path", l_exe_path},
                                         {"fsync", l_fsync},
                                         {"lock", l_lock},
                                         {NULL, NULL}};
/* ==== end: process ==== */

/* ==== section: repl (owner: repl engineer) ==== */
static const luaL_Reg repl_funcs[] = {{NULL, NULL}};
/* ==== end: repl ==== */

static const luaL_Reg game_methods[] = {
    {"fen", l_fen},         {"start_fen", l_start_fen},
    {"moves", l_moves},     {"play", l_play},
    {"legal", l_legal},     {"undo", l_undo},
    {"turn", l_turn},       {"over", l_over},
    {"winner", l_winner},   {"history", l_history},
    {"ply", l_ply},         {"last", l_last},
    {"clone", l_clone},     {"perft", l_perft},
    {"rows", l_rows},       {"cols", l_cols},
    {"variant", l_variant}, {"phase", l_phase},
    {"at", l_at},           {"count", l_count},
    {"nmoves", l_nmoves}, {"symmetries", l_symmetries},
    {"key", l_key},         {"close", l_gc},
    {NULL, NULL}};

static const luaL_Reg game_meta[] = {{"__eq", l_eq},
                                     {"__gc", l_gc},
                                     {"__close", l_gc},
                                     {"__tostring", l_tostring},
                                     {NULL, NULL}};

static const luaL_Reg module_funcs[] = {
    {"new", l_new}, {"clock", l_clock}, {"listdir", l_listdir}, {NULL, NULL}};

int luaopen_konane_core(lua_State *L);

/* Module entry: returns the module table, sets no globals. */
int luaopen_konane_core(lua_State *L) {
  luaL_newmetatable(L, BOARD_MT);
  lua_pop(L, 1);
  luaL_newmetatable(L, GAME_MT);
  luaL_setfuncs(L, game_meta, 0);
  lua_newtable(L); /* methods */
  luaL_setfuncs(L, game_methods, 0);
  luaL_setfuncs(L, search_methods, 0);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "__index");
  /* stack: meta, methods */
  luaL_newlib(L, module_funcs);
  luaL_setfuncs(L, sandbox_funcs, 0);
  luaL_setfuncs(L, process_funcs, 0);
  luaL_setfuncs(L, repl_funcs, 0);
  lua_insert(L, -3); /* module, meta, methods */
  lua_setfield(L, -3, "Game");
  lua_setfield(L, -2, "meta");
  lua_pushstring(L, KN_VERSION);
  lua_setfield(L, -2, "VERSION");
  lua_pushinteger(L, KN_MAX_SIDE);
  lua_setfield(L, -2, "MAX_SIDE");
  return 1;
}
