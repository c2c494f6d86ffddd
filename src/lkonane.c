/*
** lkonane.c
** Lua binding, module entry: konane.Board and konane.Game userdata, notation
** See docs/architecture.md for the map of files
*/
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lauxlib.h"
#include "lua.h"

#include "lkonane.h"

/*
** A board userdata (BOARD_MT): shape and opening rules, shared by a game
** and its clones. Its uservalue 1 is the move text cache (push_cache).
*/
typedef struct lboard {
  kn_board b;
  char variant[64];
  kn_bits second[]; /* nsq sets when the variant has its own second rule */
} lboard;

void lk_push_board(lua_State *L, int game_idx) {
  lua_getiuservalue(L, game_idx, 1);
}

void lk_push_table_holder(lua_State *L, int game_idx) {
  game_idx = lua_absindex(L, game_idx);
  if (lua_getiuservalue(L, game_idx, 2) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_createtable(L, 1, 0);
  lua_pushvalue(L, -1);
  lua_setiuservalue(L, game_idx, 2);
}

static void invalidate(kn_game *g) { g->ncache = -1; }

static const kn_move *legal_moves(kn_game *g, int *n) {
  if (g->ncache < 0) g->ncache = kn_gen(g->b, &g->pos, g->cache);
  *n = g->ncache;
  return g->cache;
}

kn_game *lk_new_game(lua_State *L, int board_idx) {
  lboard *lb = (lboard *)luaL_checkudata(L, board_idx, BOARD_MT);
  board_idx = lua_absindex(L, board_idx);
  kn_game *g = (kn_game *)lua_newuserdatauv(L, sizeof(kn_game), 2);
  memset(g, 0, offsetof(kn_game, cache)); /* the move cache is filled before it is read */
  g->b = &lb->b;
  g->variant = lb->variant;
  g->ncache = -1;
  luaL_setmetatable(L, GAME_MT);
  lua_pushvalue(L, board_idx);
  lua_setiuservalue(L, -2, 1);
  return g;
}

void lk_check_idle(lua_State *L, const kn_game *g, const char *what) {
  if (g->busy)
    luaL_error(L, "%s: the game is in use by a running search, solve or "
                  "mcts of it (its stop, eval or info function may not "
                  "change it: use a clone)", what);
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

void lk_push_move(lua_State *L, const kn_board *b, kn_move m) {
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
  lk_push_move(L, b, m);
  lua_pushvalue(L, -1);
  lua_rawseti(L, cache, (lua_Integer)m);
  lua_pushvalue(L, -1);
  lua_pushinteger(L, (lua_Integer)m);
  lua_rawset(L, cache);
}

static const char *shown_text(const char *s, size_t len, char buf[48]);

/* A side argument: "black" or "white" (luaL_checkoption echoed the whole
** bad string: g:count(a 1 MB string) raised a 1 MB message, escape
** sequences included). */
static int side_arg(lua_State *L, int idx, int def) {
  char shown[48];
  size_t len;
  const char *s;
  if (lua_isnoneornil(L, idx)) return def;
  if (lua_type(L, idx) == LUA_TSTRING) {
    s = lua_tolstring(L, idx, &len);
    if (len == 5 && strcmp(s, "black") == 0) return KN_BLACK;
    if (len == 5 && strcmp(s, "white") == 0) return KN_WHITE;
    return luaL_argerror(L, idx, lua_pushfstring(L, "'black' or 'white' expected, got '%s'",
                                                 shown_text(s, len, shown)));
  }
  return luaL_argerror(L, idx, lua_pushfstring(L, "'black' or 'white' expected, got %s",
                                               luaL_typename(L, idx)));
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

/* A message part without control bytes: each written as \xNN (as
** konane.util.printable does), into 'out' of 'size' bytes. */
static const char *printable(const char *s, char *out, size_t size) {
  size_t o = 0;
  for (; *s && o + 5 < size; s++) {
    unsigned char c = (unsigned char)*s;
    if (c < 0x20 || c == 0x7f) o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
    else out[o++] = (char)c;
  }
  out[o] = 0;
  return out;
}

/* User text as echoed in messages: at most 40 characters, then "...", a
** control byte (an escape sequence, a NUL) shown as \xNN so that a
** message printed on a terminal never carries one. */
static const char *shown_text(const char *s, size_t len, char buf[48]) {
  size_t i = 0, o = 0;
  while (i < len && o < 40) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c == 0x7f) {
      if (o + 4 > 40) break;
      snprintf(buf + o, 5, "\\x%02x", c);
      o += 4;
    } else {
      buf[o++] = (char)c;
    }
    i++;
  }
  if (i < len) memcpy(buf + o, "...", 4);
  else buf[o] = 0;
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
  static const char *const names[] = {"fen",   "rows",   "cols",
                                      "first", "second", "variant", NULL};
  kn_board b;
  kn_pos p;
  char err[256], shown[48], clean[1100];
  luaL_checktype(L, 1, LUA_TTABLE);
  lk_opts_check(L, 1, names, "new");
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
                        shown_text(fen, len, shown), printable(err, clean, sizeof clean));
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
  kn_game *g = lk_new_game(L, board_idx);
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
  char err[256], shown[48], clean[1100];
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
  lua_pushfstring(L, "illegal move '%s': %s", shown_text(s, len, shown),
                  printable(err, clean, sizeof clean)); /* it quotes the text */
  return 0;
}

/* g:play(move) -> canonical move string; raises when illegal. */
static int l_play(lua_State *L) {
  kn_game *g = check_game(L, 1);
  kn_move m;
  lk_check_idle(L, g, "play");
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
  lk_push_move(L, g->b, m);
  return 1;
}

static int l_undo(lua_State *L) {
  kn_game *g = check_game(L, 1);
  lk_check_idle(L, g, "undo");
  if (g->nhist == 0) return 0;
  kn_move m = g->hist[--g->nhist];
  kn_unmake(g->b, &g->pos, m);
  invalidate(g);
  lk_push_move(L, g->b, m);
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
  lk_push_move(L, g->b, g->hist[g->nhist - 1]);
  return 1;
}

/*
** g:clone([into]) -> an independent copy of g (same board, start, position and
** history). With 'into' (an earlier clone: a game sharing the board) the copy is
** made in it, without a new game: a referee handing a copy to a player at every
** move makes no garbage. The copy shares g's search table (a bot handed a fresh
** copy every move keeps its work).
*/
static int l_clone(lua_State *L) {
  kn_game *g = check_game(L, 1);
  if (!lua_isnoneornil(L, 2)) {
    kn_game *t = check_game(L, 2);
    luaL_argcheck(L, t->b == g->b, 2, "a clone of this game expected (the same board)");
    if (t != g) {
      lk_check_idle(L, t, "clone (into)");
      if (t->cap < g->nhist) {
        kn_move *h = (kn_move *)realloc(t->hist, (size_t)g->nhist * sizeof *h);
        if (!h) return luaL_error(L, "not enough memory to clone the game");
        t->hist = h;
        t->cap = g->nhist;
      }
      if (g->nhist) memcpy(t->hist, g->hist, (size_t)g->nhist * sizeof *t->hist);
      t->nhist = g->nhist;
      t->start = g->start;
      t->pos = g->pos;
      t->ncache = -1;
      lk_push_table_holder(L, 1);
      lua_setiuservalue(L, 2, 2);
    }
    lua_settop(L, 2);
    return 1;
  }
  lk_push_board(L, 1);
  kn_game *c = lk_new_game(L, -1);
  c->start = g->start;
  c->pos = g->pos;
  if (g->nhist) {
    c->hist = (kn_move *)malloc((size_t)g->nhist * sizeof *c->hist);
    if (!c->hist) return luaL_error(L, "not enough memory to clone the game");
    memcpy(c->hist, g->hist, (size_t)g->nhist * sizeof *c->hist);
    c->nhist = c->cap = g->nhist;
  }
  lk_push_table_holder(L, 1);
  lua_setiuservalue(L, -2, 2);
  return 1;
}

/* g:perft(depth) -> leaf count; interruptible. */
static int l_perft(lua_State *L) {
  kn_game *g = check_game(L, 1);
  lua_Integer d = luaL_checkinteger(L, 2);
  luaL_argcheck(L, d >= 0 && d <= 64, 2, "depth must be between 0 and 64");
  lk_stop_ctx s;
  lk_stop_init(L, &s);
  kn_stop st = {lk_stop, &s};
  uint64_t n = kn_perft(g->b, &g->pos, (int)d, &st);
  if (n == UINT64_MAX) return lk_stop_raise(L, &s);
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
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  char err[128];
  int sq;
  if (strlen(s) != len)
    return luaL_argerror(L, 2, "a square name has no byte 0x00");
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

/* ---- option tables ---- */

void lk_opts_check(lua_State *L, int idx, const char *const allowed[],
                   const char *where) {
  if (lua_isnoneornil(L, idx)) return;
  idx = lua_absindex(L, idx);
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    int i, ok = 0;
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING)
      for (i = 0; allowed[i]; i++)
        if (strcmp(lua_tostring(L, -1), allowed[i]) == 0) ok = 1;
    if (!ok) {
      luaL_Buffer known;
      const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                                     : luaL_typename(L, -1);
      luaL_buffinit(L, &known);
      for (i = 0; allowed[i]; i++) {
        if (i > 0) luaL_addstring(&known, ", ");
        luaL_addstring(&known, allowed[i]);
      }
      luaL_pushresult(&known);
      luaL_error(L, "%s: unknown option '%s' (known: %s)", where, k,
                 lua_tostring(L, -1));
    }
  }
}

int lk_opt_get(lua_State *L, int idx, const char *k) {
  if (lua_isnoneornil(L, idx)) {
    lua_pushnil(L);
    return LUA_TNIL;
  }
  return lua_getfield(L, idx, k);
}

double lk_opt_number(lua_State *L, int idx, const char *k, double lo,
                         double hi, double def) {
  double v = def;
  if (lk_opt_get(L, idx, k) != LUA_TNIL) {
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

lua_Integer lk_opt_integer(lua_State *L, int idx, const char *k,
                               lua_Integer lo, lua_Integer hi,
                               lua_Integer def) {
  lua_Integer v = def;
  if (lk_opt_get(L, idx, k) != LUA_TNIL) {
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
    {"new", l_new}, {NULL, NULL}};

int luaopen_konane_core(lua_State *L);

/* Module entry: returns the module table, sets no globals. */
int luaopen_konane_core(lua_State *L) {
  luaL_newmetatable(L, BOARD_MT);
  lua_pop(L, 1);
  luaL_newmetatable(L, GAME_MT);
  luaL_setfuncs(L, game_meta, 0);
  lua_newtable(L); /* methods */
  luaL_setfuncs(L, game_methods, 0);
  luaL_setfuncs(L, lk_engine_methods, 0);
  luaL_setfuncs(L, lk_cgt_methods, 0);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "__index");
  /* stack: meta, methods */
  luaL_newlib(L, module_funcs);
  luaL_setfuncs(L, lk_proc_funcs, 0);
  lk_engine_open(L);
  luaL_setfuncs(L, lk_cgt_funcs, 0);
  lua_insert(L, -3); /* module, meta, methods */
  lua_setfield(L, -3, "Game");
  lua_setfield(L, -2, "meta");
  lua_pushstring(L, KN_VERSION);
  lua_setfield(L, -2, "VERSION");
  lua_pushinteger(L, KN_MAX_SIDE);
  lua_setfield(L, -2, "MAX_SIDE");
  return 1;
}
