/*
** lsandbox.c
** Lua binding: the in-process bot sandbox (instruction, time, memory limits)
** See docs/architecture.md for the map of files
*/
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "lauxlib.h"
#include "lua.h"

#include "lkonane.h"

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
    else if (s->deadline > 0 && lk_now() >= s->deadline)
      s->tripped = "time";
  }
  if (s->tripped == NULL || strcmp(s->tripped, "memory") == 0) return;
  if (strcmp(s->tripped, "interrupted") == 0)
    luaL_error(L, "interrupted!");
  else if (strcmp(s->tripped, "time") == 0) {
    char used[32];
    snprintf(used, sizeof used, "%.3f", lk_now() - s->start);
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
  s.start = lk_now();
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

  lua_pushnumber(L, lk_now() - s.start);
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
           lk_now() >= s.deadline)
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

const luaL_Reg lk_sandbox_funcs[] = {{"sandbox_call", l_sandbox_call},
                                         {"sandbox_hook", l_sandbox_hook},
                                         {"sandbox_tripped", l_sandbox_tripped},
                                         {NULL, NULL}};
