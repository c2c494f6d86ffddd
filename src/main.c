/*
** main.c
** The konane host program: runs Lua like lua(1) with the konane module at hand
** See docs/architecture.md for the map of files
*/
#define _POSIX_C_SOURCE 200809L

/*
** Options as lua(1): -e, -l, -i, -v, -E, -W, --, -, script args; LUA_INIT.
** With no script: the interactive REPL (repl.c) on a terminal, else the
** program (or REPL lines) read from standard input.
*/

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#include "host.h"
#include "prefix.h" /* KONANE_LUADIR, generated from PREFIX by the Makefile */

/* Defined in src/lkonane.c; preloaded so that no core.so is needed. */
int luaopen_konane_core(lua_State *L);


/*
** Interrupt state. The SIGINT handler only touches sig_atomic_t flags and
** calls lua_sethook (which Lua documents as safe from a signal handler).
** 'host_interrupted' is also published to the binding through the registry key
** "konane.interrupt", so long C calls (search, solve, perft) stop too.
*/
volatile sig_atomic_t host_interrupted = 0;
static volatile sig_atomic_t running = 0;   /* Lua code is executing */
static volatile sig_atomic_t presses = 0;   /* Ctrl-C presses during this command */
lua_State *host_L = NULL;
int host_in_repl = 0; /* keep the SIGINT handler between commands */
const char *host_progname = PROGNAME;

/*
** The hook set by the SIGINT handler: it removes itself and raises, unless
** a long C call has delivered the interrupt already (and cleared the flag).
** Delivered once, the flag is cleared: Lua code that catches the error goes
** on without being interrupted again.
*/
static void lstop(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  if (!host_interrupted)
    return;
  host_interrupted = 0;
  luaL_error(L, "interrupted!");
}

/*
** SIGINT: while Lua runs, set the flag (for the C long calls) and a count
** hook (for Lua loops). Presses are counted per command, delivered or not:
** a command still running after two means something ignores them (stuck
** outside both, or Lua code that catches "interrupted!" and goes on), and
** the third falls back to the default action and ends the program. At the
** prompt only the flag is set; the input loop cancels the line.
*/
void host_on_sigint(int sig) {
  host_interrupted = 1;
  if (!running)
    return;
  presses++;
  if (presses >= 3) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  if (presses == 2) {
    static const char msg[] = "\n" PROGNAME ": still busy; press Ctrl-C again to quit\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
  }
  lua_sethook(host_L, lstop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

/*
** SIGTERM while a script runs (a process manager, timeout(1), kill): the
** same stop as a Ctrl-C, so the script ends as it does when interrupted (a
** tournament or a split solve keeps its journal, ends what its players
** started and says how to resume; SIGTERM's default action would leave an
** engine's escaped descendants running). A second SIGTERM ends the program.
*/
static void on_sigterm(int sig) {
  static volatile sig_atomic_t terms = 0;
  if (terms++ > 0) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  host_interrupted = 1;
  if (running)
    lua_sethook(host_L, lstop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

/* Install 'fn' for 'sig' without SA_RESTART, so select() sees EINTR. */
void host_set_signal(int sig, void (*fn)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

/* Forget any pending interrupt: called before each command. */
void host_clear_interrupt(lua_State *L) {
  lua_sethook(L, NULL, 0, 0);
  host_interrupted = 0;
  presses = 0;
}

static void print_usage(FILE *out, const char *badoption) {
  if (strcmp(badoption, "--ugi") == 0)
    fprintf(stderr, "%s: '--ugi' needs a bot and nothing after it\n", host_progname);
  else if (badoption[0] == '-' && badoption[1] == 'e')
    fprintf(stderr, "%s: '%s' needs argument\n", host_progname, badoption);
  else if (badoption[0] == '-' && badoption[1] == 'l')
    fprintf(stderr, "%s: '%s' needs argument\n", host_progname, badoption);
  else if (badoption[0])
    fprintf(stderr, "%s: unrecognized option '%s'\n", host_progname, badoption);
  fprintf(out,
          "usage: %s [options] [script [args]]\n"
          "Available options are:\n"
          "  -e stat        execute string 'stat'\n"
          "  -i             enter interactive mode after executing 'script'\n"
          "  -l mod         require library 'mod' into global 'mod'\n"
          "  -l g=mod       require library 'mod' into global 'g'\n"
          "  -v, --version  show version information\n"
          "  -E             ignore environment variables\n"
          "  -W             turn warnings on\n"
          "  -h, --help     show this help\n"
          "  --ugi BOT      serve BOT (alphabeta:time=1, mybot.lua, ...) as a UGI\n"
          "                 engine on stdin/stdout, after the -e and -l options\n"
          "  --             stop handling options\n"
          "  -              stop handling options and execute stdin\n"
          "With no script: an interactive REPL on a terminal (type help()),\n"
          "or the program read from standard input. A bad option exits with status 2.\n",
          host_progname);
  fflush(out);
}

/* Print 'msg' on stderr, prefixed by the program name when there is one. */
static void l_message(const char *pname, const char *msg) {
  fflush(stdout);  /* what was printed before the error comes before it */
  if (pname)
    fprintf(stderr, "%s: ", pname);
  fprintf(stderr, "%s\n", msg);
  fflush(stderr);
}

/* Report the error message on top of the stack (if any) and pop it. */
int host_report(lua_State *L, int status) {
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    if (msg == NULL)
      msg = "(error object is not a string)";
    l_message(host_progname, msg);
    lua_pop(L, 1);
  }
  return status;
}

/*
** Message handler: turn the error object into a string and append a
** traceback. Used for every protected call the host makes.
*/
static int msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

/*
** Call the function below 'narg' arguments with the message handler, with
** SIGINT armed for the duration. Leaves the results or the error message.
*/
int host_docall(lua_State *L, int narg, int nres) {
  int status;
  int base = lua_gettop(L) - narg;
  lua_pushcfunction(L, msghandler);
  lua_insert(L, base);
  host_L = L;
  host_clear_interrupt(L);
  host_set_signal(SIGINT, host_on_sigint);
  running = 1;
  status = lua_pcall(L, narg, nres, base);
  running = 0;
  if (!host_in_repl)
    signal(SIGINT, SIG_DFL);
  lua_remove(L, base);
  return status;
}

static int dochunk(lua_State *L, int status) {
  if (status == LUA_OK)
    status = host_docall(L, 0, 0);
  return host_report(L, status);
}

static int dofile(lua_State *L, const char *name) {
  return dochunk(L, luaL_loadfile(L, name));
}

static int dostring(lua_State *L, const char *s, const char *name) {
  return dochunk(L, luaL_loadbuffer(L, s, strlen(s), name));
}

/* -l: 'mod' or 'g=mod'; require the module and set the global. */
static int dolibrary(lua_State *L, char *globname) {
  int status;
  char *modname = strchr(globname, '=');
  if (modname == NULL)
    modname = globname;
  else {
    *modname = '\0';
    modname++;
  }
  lua_getglobal(L, "require");
  lua_pushstring(L, modname);
  status = host_docall(L, 1, 1);
  if (status == LUA_OK)
    lua_setglobal(L, globname);
  return host_report(L, status);
}

/* Push the script arguments (arg[1..n]) and return how many. */
static int pushargs(lua_State *L) {
  int i, n;
  if (lua_getglobal(L, "arg") != LUA_TTABLE)
    luaL_error(L, "'arg' is not a table");
  n = (int)luaL_len(L, -1);
  luaL_checkstack(L, n + 3, "too many arguments to script");
  for (i = 1; i <= n; i++)
    lua_rawgeti(L, -i, i);
  lua_remove(L, -i);
  return n;
}

static int handle_script(lua_State *L, char **argv) {
  int status;
  const char *fname = argv[0];
  if (strcmp(fname, "-") == 0 && strcmp(argv[-1], "--") != 0)
    fname = NULL;  /* stdin */
  status = luaL_loadfile(L, fname);
  if (status == LUA_OK) {
    int n = pushargs(L);
    host_set_signal(SIGTERM, on_sigterm);
    status = host_docall(L, n, LUA_MULTRET);
    signal(SIGTERM, SIG_DFL);
  }
  return host_report(L, status);
}


#define has_error 1
#define has_i 2
#define has_v 4
#define has_e 8
#define has_E 16
#define has_help 32 /* with has_error: -h or --help, usage on stdout */
#define has_ugi 64  /* --ugi BOT: serve BOT in UGI (lua/konane/ugi/server.lua) */
#define EXIT_USAGE 2 /* a bad command line, as getopt programs do */

/*
** Scan the options (as lua.c does). Returns the bits above and sets 'first'
** to the index of the script name (or argc when there is none).
*/
static int collectargs(char **argv, int *first) {
  int args = 0;
  int i;
  if (argv[0] != NULL) {
    if (argv[0][0]) {  /* messages name the program, not the directory it is in */
      const char *slash = strrchr(argv[0], '/');
      host_progname = slash != NULL && slash[1] ? slash + 1 : argv[0];
    }
  } else {
    *first = -1;
    return 0;
  }
  for (i = 1; argv[i] != NULL; i++) {
    *first = i;
    if (argv[i][0] != '-')
      return args;
    switch (argv[i][1]) {
    case '-':
      if (strcmp(argv[i], "--ugi") == 0) {
        /* --ugi BOT ends the options: nothing may follow the bot */
        if (argv[i + 1] == NULL || argv[i + 2] != NULL)
          return has_error;
        *first = i + 2;
        return args | has_ugi;
      }
      if (argv[i][2] != '\0') {
        if (strcmp(argv[i], "--help") == 0)
          return has_error | has_help;
        if (strcmp(argv[i], "--version") == 0) {
          args |= has_v;
          continue;
        }
        return has_error;
      }
      *first = i + 1;
      return args;
    case '\0':
      return args;
    case 'E':
      if (argv[i][2] != '\0')
        return has_error;
      args |= has_E;
      break;
    case 'W':
      if (argv[i][2] != '\0')
        return has_error;
      break;
    case 'h':
      return has_error | has_help;
    case 'i':
      if (argv[i][2] != '\0')
        return has_error;
      args |= has_i;
      break;
    case 'v':
      if (argv[i][2] != '\0')
        return has_error;
      args |= has_v;
      break;
    case 'e':
      args |= has_e;
      /* fallthrough */
    case 'l':
      if (argv[i][2] == '\0') {
        i++;
        if (argv[i] == NULL || argv[i][0] == '-')
          return has_error;
      }
      break;
    default:
      return has_error;
    }
  }
  *first = i;
  return args;
}

/* Run -e and -l options in order. Returns 0 when one failed. */
static int runargs(lua_State *L, char **argv, int n) {
  int i;
  for (i = 1; i < n; i++) {
    int option = argv[i][1];
    switch (option) {
    case 'e':
    case 'l': {
      int status;
      char *extra = argv[i] + 2;
      if (*extra == '\0')
        extra = argv[++i];
      status = (option == 'e') ? dostring(L, extra, "=(command line)")
                               : dolibrary(L, extra);
      if (status != LUA_OK)
        return 0;
      break;
    }
    case 'W':
      lua_warning(L, "@on", 0);
      break;
    default:
      break;
    }
  }
  return 1;
}


static int handle_luainit(lua_State *L) {
  const char *name = "=LUA_INIT_5_4";
  const char *init = getenv(name + 1);
  if (init == NULL) {
    name = "=LUA_INIT";
    init = getenv(name + 1);
  }
  if (init == NULL)
    return LUA_OK;
  if (init[0] == '@')
    return dofile(L, init + 1);
  return dostring(L, init, name);
}

/* arg table: script at 0, options below, script arguments above. */
static void createargtable(lua_State *L, char **argv, int argc, int script) {
  int i, narg;
  if (script == argc)
    script = 0;  /* no script: the program name goes to arg[0] */
  narg = argc - (script + 1);
  lua_createtable(L, narg, script + 1);
  for (i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/*
** Prepend 'dir'/?.lua and 'dir'/?/init.lua to package.path, keeping what
** LUA_PATH (or the default) put there, so user modules still load.
*/
static void prepend_path(lua_State *L, const char *dir) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s", dir, dir,
                  lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
  lua_setfield(L, -3, "path");
  lua_pop(L, 2);
}

/*
** Find the Lua library: from a checkout (the lua/ directory beside the
** build/ directory that holds this executable), from an install relative to
** the executable (PREFIX/bin -> PREFIX/share/lua/5.4), then the compiled-in
** KONANE_LUADIR. The first directory holding konane/init.lua wins.
*/
static void setup_paths(lua_State *L) {
  char exe[PATH_MAX];
  char cand[PATH_MAX + 64];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    char *slash;
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    if (slash != NULL) {
      *slash = '\0';  /* exe = directory of the executable */
      slash = strrchr(exe, '/');
      if (slash != NULL) {
        *slash = '\0';  /* exe = its parent */
        snprintf(cand, sizeof cand, "%s/lua/konane/init.lua", exe);
        if (file_exists(cand)) {
          snprintf(cand, sizeof cand, "%s/lua", exe);
          prepend_path(L, cand);
          return;
        }
        snprintf(cand, sizeof cand, "%s/share/lua/5.4/konane/init.lua", exe);
        if (file_exists(cand)) {
          snprintf(cand, sizeof cand, "%s/share/lua/5.4", exe);
          prepend_path(L, cand);
          return;
        }
      }
    }
  }
#ifdef KONANE_LUADIR
  prepend_path(L, KONANE_LUADIR);
#endif
}

/* Register konane.core in package.preload and publish the interrupt flag. */
static void setup_konane(lua_State *L) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_konane_core);
  lua_setfield(L, -2, "konane.core");
  lua_pop(L, 1);
  lua_pushlightuserdata(L, (void *)&host_interrupted);
  lua_setfield(L, LUA_REGISTRYINDEX, "konane.interrupt");
  setup_paths(L);
}

/*
** No script, stdin not a terminal: if all of stdin is a Lua chunk, run it
** like `lua -`; otherwise feed it line by line to the REPL without prompts
** (so a file of moves and commands works too). Returns an exit status.
*/
static int run_stdin(lua_State *L, int color) {
  luaL_Buffer b;
  char chunk[4096];
  size_t n;
  int status;
  const char *text;
  size_t len;
  luaL_buffinit(L, &b);
  while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
    luaL_addlstring(&b, chunk, n);
  luaL_pushresult(&b);
  text = lua_tolstring(L, -1, &len);
  if (len > 0 && text[0] == '#') {  /* skip a #! line, keeping line numbers */
    while (len > 0 && *text != '\n') {
      text++;
      len--;
    }
  }
  status = luaL_loadbuffer(L, text, len, "=stdin");
  if (status == LUA_OK) {
    lua_remove(L, -2);  /* the source; the chunk stays on top */
    repl_load(L, 0, color, 0, 1);
    return host_report(L, host_docall(L, 0, 0)) == LUA_OK ? EXIT_SUCCESS : EXIT_FAILURE;
  }
  lua_pop(L, 1);  /* the syntax error: try it as REPL input */
  {
    /* a copy: the REPL clears the Lua stack, which anchors 'text' */
    char *copy = malloc(len + 1);
    FILE *mem;
    int errors;
    if (copy == NULL)
      return EXIT_FAILURE;
    memcpy(copy, text, len);
    copy[len] = '\0';
    lua_settop(L, 0);
    mem = fmemopen(copy, len, "r");
    if (mem == NULL) {
      free(copy);
      return len == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    }
    repl_load(L, 0, color, 0, 0);
    errors = repl_loop(L, 0, mem);
    fclose(mem);
    free(copy);
    return errors ? EXIT_FAILURE : EXIT_SUCCESS;
  }
}

static void print_version(lua_State *L) {
  const char *v = "?";
  int top = lua_gettop(L);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "konane");
  if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1)) {
    lua_getfield(L, -1, "VERSION");
    if (lua_type(L, -1) == LUA_TSTRING)
      v = lua_tostring(L, -1);
  }
  printf("%s %s (%s)\n", PROGNAME, v, LUA_RELEASE);
  fflush(stdout);
  lua_settop(L, top);
}

/* Colour is for terminals only, and never when NO_COLOR is set. */
static int want_color(void) {
  const char *no = getenv("NO_COLOR");
  const char *term = getenv("TERM");
  if (no != NULL && no[0] != '\0')
    return 0;
  if (term != NULL && strcmp(term, "dumb") == 0)
    return 0;
  return isatty(STDOUT_FILENO);
}

/* Everything main does, in protected mode (as lua.c's pmain). */
static int pmain(lua_State *L) {
  int argc = (int)lua_tointeger(L, 1);
  char **argv = (char **)lua_touserdata(L, 2);
  int script = argc;
  int args = collectargs(argv, &script);
  int tty = isatty(STDIN_FILENO);
  /* live progress (lines rewritten in place, per-depth lines) only when the output is a
     terminal too: `konane > log` keeps the results and drops the progress */
  int live = tty && isatty(STDOUT_FILENO);
  int color = want_color();
  luaL_checkversion(L);
  lua_settop(L, 0);  /* argc and argv are read; the REPL owns the stack */
  if (args & has_error) {
    if (args & has_help)
      print_usage(stdout, "");
    else
      print_usage(stderr, argv[script]);
    if (args & has_help)
      lua_pushboolean(L, 1);
    else
      lua_pushinteger(L, EXIT_USAGE);
    return 1;
  }
  if (args & has_E) {
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "LUA_NOENV");
  }
  luaL_openlibs(L);
  setup_konane(L);
  createargtable(L, argv, argc, script);
  lua_gc(L, LUA_GCRESTART);
  lua_gc(L, LUA_GCGEN, 0, 0);
  if (!(args & has_E)) {
    if (handle_luainit(L) != LUA_OK)
      return 0;
  }
  if (args & has_v)
    print_version(L);
  if (!runargs(L, argv, (args & has_ugi) ? script - 2 : script))
    return 0;
  if (args & has_ugi) {
    int status;
    lua_getglobal(L, "require");
    lua_pushliteral(L, "konane.ugi.server");
    status = host_docall(L, 1, 1);
    if (status == LUA_OK) {
      lua_getfield(L, -1, "main");
      lua_pushstring(L, argv[script - 1]);
      status = host_docall(L, 1, 1);
    }
    if (host_report(L, status) != LUA_OK)
      return 0;
    if (lua_tointeger(L, -1) == EXIT_USAGE) /* a bad spec: exit status 2 */
      lua_pushinteger(L, EXIT_USAGE);
    else
      lua_pushboolean(L, lua_tointeger(L, -1) == 0);
    return 1;
  }
  if (script < argc && handle_script(L, argv + script) != LUA_OK)
    return 0;
  if (args & has_i) {
    repl_load(L, live, color && tty, tty, 0);
    if (repl_loop(L, tty, stdin) && !tty) {
      lua_pushboolean(L, 0);
      return 1;
    }
  } else if (script == argc && !(args & (has_e | has_v))) {
    if (tty) {
      repl_load(L, live, color, 1, 0);
      repl_loop(L, 1, stdin);
    } else {
      lua_pushboolean(L, run_stdin(L, 0) == EXIT_SUCCESS);
      return 1;
    }
  }
  lua_pushboolean(L, 1);
  return 1;
}

int main(int argc, char **argv) {
  int status, result;
  lua_State *L;
  /* Past a file size limit (ulimit -f) a write fails with EFBIG, which the
  ** tournament reports with the file's name; the default SIGXFSZ would kill
  ** the run without a word instead. */
  signal(SIGXFSZ, SIG_IGN);
  L = luaL_newstate();
  if (L == NULL) {
    l_message(argv[0], "cannot create state: not enough memory");
    return EXIT_FAILURE;
  }
  lua_gc(L, LUA_GCSTOP);
  lua_pushcfunction(L, pmain);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  status = lua_pcall(L, 2, 1, 0);
  if (status == LUA_OK && lua_isinteger(L, -1)) {  /* a bad command line */
    lua_close(L);
    return EXIT_USAGE;
  }
  result = lua_toboolean(L, -1);
  host_report(L, status);
  lua_close(L);
  return (result && status == LUA_OK) ? EXIT_SUCCESS : EXIT_FAILURE;
}
