/*
** lkonane.h
** Declarations shared by the Lua binding files (src/l*.c); internal
** See docs/architecture.md for the map of files
*/
#ifndef LKONANE_H
#define LKONANE_H

#include <signal.h>

#include "lauxlib.h"
#include "lua.h"

#include "konane.h"

#define BOARD_MT "konane.Board"
#define GAME_MT "konane.Game"
#define PROCESS_MT "konane.Process"

/* A game userdata (GAME_MT): a position, its start and its history. */
typedef struct kn_game {
  const kn_board *b; /* points into the konane.Board in the uservalue */
  const char *variant;
  kn_pos start, pos;
  kn_move *hist;
  int nhist, cap;
  int ncache; /* legal moves of 'pos' in 'cache', or -1 */
  int busy;   /* running g:search/solve/mcts calls of this game: while one
              ** runs (its stop, eval or info function calls Lua) the game
              ** may not change, so its answer is for the game as it is */
  kn_move cache[KN_MAX_MOVES];
} kn_game;

#define check_game(L, i) ((kn_game *)luaL_checkudata(L, i, GAME_MT))

/* Raises "WHAT: the game is in use by a running search ..." when a call
** running on 'g' (from whose stop, eval or info function we come) would
** see it change. */
void lk_check_idle(lua_State *L, const kn_game *g, const char *what);

/* ---- games (lkonane.c) ---- */

/* Pushes a new game userdata sharing the board at 'board_idx' (a
** konane.Board, checked) and returns it, empty: the caller sets start/pos. */
kn_game *lk_new_game(lua_State *L, int board_idx);

/* Pushes the konane.Board of the game at 'game_idx'. */
void lk_push_board(lua_State *L, int game_idx);

/* Pushes the holder of the search table the game at 'game_idx' shares
** with its clones (its uservalue 2: a Lua table whose field 1 is the table
** object, made by the first search that needs it), making the holder when
** the game has none. */
void lk_push_table_holder(lua_State *L, int game_idx);

/* Pushes the text of move 'm' on board 'b'. */
void lk_push_move(lua_State *L, const kn_board *b, kn_move m);

/* ---- option tables (lkonane.c) ---- */

/*
** Raises "WHERE: unknown option 'k' (known: a, b, c)" unless every key of
** the options table at 'idx' is one of 'allowed' (NULL-terminated). A nil
** or absent argument has no keys; any other non-table raises "bad argument
** #idx (table expected)". 'where' names
** the call for the message ("search", "core.new", ...). Every binding that
** takes an options table calls this first, so a misspelt option is never
** silently ignored.
*/
void lk_opts_check(lua_State *L, int idx, const char *const allowed[],
                   const char *where);

/* Pushes field 'k' of the options at 'idx' (nil when no table); returns
** its type. */
int lk_opt_get(lua_State *L, int idx, const char *k);

/* A number option in [lo, hi], or 'def' when absent; raises otherwise. */
double lk_opt_number(lua_State *L, int idx, const char *k, double lo,
                     double hi, double def);

/* An integer option in [lo, hi], or 'def' when absent; raises otherwise. */
lua_Integer lk_opt_integer(lua_State *L, int idx, const char *k,
                           lua_Integer lo, lua_Integer hi, lua_Integer def);

/* ---- stop checks for long calls (lengine.c) ---- */

/*
** Everything a long call polls: the host's interrupt flag (registry
** "konane.interrupt", a light userdata to a volatile sig_atomic_t) and a
** deadline (registry "konane.deadline", seconds on the clock() scale)
** set by the referee around a bot table's move, and the call's own stop
** function (option 'stop'). Filled once per call by lk_stop_init and
** lk_stop_option, then polled through lk_stop.
*/
typedef struct lk_stop_ctx {
  volatile sig_atomic_t *flag;
  double deadline; /* 0: none */
  int interrupted, timed_out;
  unsigned polls;
  /* the call's own stop function (option 'stop' at stack index 'fn'), 0: none */
  lua_State *L;
  int fn;
  int asked;       /* the stop function said stop: a normal result follows */
  int fn_failed;   /* the stop function raised; its error object is in the
                   ** registry at 'err_ref' (raised again as it was, like an
                   ** eval's: a copy of its text lost a table's fields, cut
                   ** long messages at 255 bytes and added a second position) */
  int err_ref;
  double next_ask; /* lk_now() time of the next call to it */
} lk_stop_ctx;

void lk_stop_init(lua_State *L, lk_stop_ctx *s);

/* Reads option 'stop' (a function) of the options table at 'idx' into 's'. */
void lk_stop_option(lua_State *L, int idx, lk_stop_ctx *s);

/* Did the call's own stop function end it (so its result is a normal one)? */
int lk_stop_asked(const lk_stop_ctx *s);

/* A kn_stop callback; 'ud' is a lk_stop_ctx. */
int lk_stop(void *ud);

/* After a stopped call: raises the reason (the game is already restored); an
** interrupt clears the host's flag, so it is delivered once. */
int lk_stop_raise(lua_State *L, const lk_stop_ctx *s);

/* ---- system (lproc.c) ---- */

/* Seconds on a monotonic clock (the scale of core.clock()). */
double lk_now(void);

/* ---- functions each file registers (luaopen_konane_core) ---- */

extern const luaL_Reg lk_engine_methods[]; /* g:search, g:solve, g:mcts */
void lk_engine_open(lua_State *L);         /* core.hashtable (module on top) */
extern const luaL_Reg lk_proc_funcs[];     /* core.spawn, core.fsync, ... */
extern const luaL_Reg lk_cgt_funcs[];      /* core.cgt_value, ... (lcgt.c) */
extern const luaL_Reg lk_cgt_methods[];    /* g:regions */

#endif
