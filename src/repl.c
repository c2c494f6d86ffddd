/*
** repl.c: the `konane` host program.
** Runs Lua like lua(1) (-e, -l, -i, -v, -E, -W, --, -, script args) with the
** `konane` module at hand, and offers an interactive GNU readline REPL whose
** Konane commands, pretty-printer and completion live in lua/konane/repl.lua.
*/

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

/* Defined in src/lkonane.c; preloaded so that no core.so is needed. */
int luaopen_konane_core(lua_State *L);

#define PROGNAME "konane"
#define PROMPT1 "> "
#define PROMPT2 ">> "
#define HISTORY_NAME ".konane_history"
#define HISTORY_MAX 1000
#define CHUNKNAME "=stdin"
#define EOFMARK "<eof>"
#define MARKLEN (sizeof(EOFMARK) / sizeof(char) - 1)

/*
** Interrupt state. The SIGINT handler only touches sig_atomic_t flags and
** calls lua_sethook (which Lua documents as safe from a signal handler).
** 'interrupted' is also published to the binding through the registry key
** "konane.interrupt", so long C calls (search, solve, perft) stop too.
*/
static volatile sig_atomic_t interrupted = 0;
static volatile sig_atomic_t running = 0;   /* Lua code is executing */
static volatile sig_atomic_t presses = 0;   /* Ctrl-C presses not yet honoured */
static volatile sig_atomic_t resized = 0;   /* SIGWINCH seen at the prompt */
static lua_State *globalL = NULL;
static int in_repl = 0;                     /* keep the handler between commands */
static const char *progname = PROGNAME;

/* The hook set by the SIGINT handler: it removes itself and raises. */
static void lstop(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  luaL_error(L, "interrupted!");
}

/*
** SIGINT: while Lua runs, set the flag (for the C long calls) and a count
** hook (for Lua loops). A third press that was not honoured means something
** is stuck outside both: fall back to the default action and die. At the
** prompt only the flag is set; the input loop cancels the line.
*/
static void on_sigint(int sig) {
  interrupted = 1;
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
  lua_sethook(globalL, lstop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

static void on_sigwinch(int sig) {
  (void)sig;
  resized = 1;
}

/* Ctrl-Z at the prompt: noted here, acted on by read_tty_line. */
static volatile sig_atomic_t suspended = 0;
static void on_sigtstp(int sig) {
  (void)sig;
  suspended = 1;
}

/* Install 'fn' for 'sig' without SA_RESTART, so select() sees EINTR. */
static void set_signal(int sig, void (*fn)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

/* Forget any pending interrupt: called before each command. */
static void clear_interrupt(lua_State *L) {
  lua_sethook(L, NULL, 0, 0);
  interrupted = 0;
  presses = 0;
}

static void print_usage(FILE *out, const char *badoption) {
  if (badoption[0] == '-' && badoption[1] == 'e')
    fprintf(stderr, "%s: '%s' needs argument\n", progname, badoption);
  else if (badoption[0] == '-' && badoption[1] == 'l')
    fprintf(stderr, "%s: '%s' needs argument\n", progname, badoption);
  else if (badoption[0])
    fprintf(stderr, "%s: unrecognized option '%s'\n", progname, badoption);
  fprintf(out,
          "usage: %s [options] [script [args]]\n"
          "Available options are:\n"
          "  -e stat   execute string 'stat'\n"
          "  -i        enter interactive mode after executing 'script'\n"
          "  -l mod    require library 'mod' into global 'mod'\n"
          "  -l g=mod  require library 'mod' into global 'g'\n"
          "  -v        show version information\n"
          "  -E        ignore environment variables\n"
          "  -W        turn warnings on\n"
          "  -h        show this help\n"
          "  --        stop handling options\n"
          "  -         stop handling options and execute stdin\n"
          "With no script: an interactive REPL on a terminal (type help()),\n"
          "or the program read from standard input.\n",
          progname);
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
static int report(lua_State *L, int status) {
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    if (msg == NULL)
      msg = "(error object is not a string)";
    l_message(progname, msg);
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
static int docall(lua_State *L, int narg, int nres) {
  int status;
  int base = lua_gettop(L) - narg;
  lua_pushcfunction(L, msghandler);
  lua_insert(L, base);
  globalL = L;
  clear_interrupt(L);
  set_signal(SIGINT, on_sigint);
  running = 1;
  status = lua_pcall(L, narg, nres, base);
  running = 0;
  if (!in_repl)
    signal(SIGINT, SIG_DFL);
  lua_remove(L, base);
  return status;
}

static int dochunk(lua_State *L, int status) {
  if (status == LUA_OK)
    status = docall(L, 0, 0);
  return report(L, status);
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
  status = docall(L, 1, 1);
  if (status == LUA_OK)
    lua_setglobal(L, globname);
  return report(L, status);
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
    status = docall(L, n, LUA_MULTRET);
  }
  return report(L, status);
}

/* Bits for the options seen by collectargs. */
#define has_error 1
#define has_i 2
#define has_v 4
#define has_e 8
#define has_E 16

/*
** Scan the options (as lua.c does). Returns the bits above and sets 'first'
** to the index of the script name (or argc when there is none).
*/
static int collectargs(char **argv, int *first) {
  int args = 0;
  int i;
  if (argv[0] != NULL) {
    if (argv[0][0])
      progname = argv[0];
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
      if (argv[i][2] != '\0') {
        if (strcmp(argv[i], "--help") == 0)
          return has_error | 32;
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
      return has_error | 32;
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

/* LUA_INIT_5_4 or LUA_INIT: '@file' runs a file, anything else is code. */
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
  lua_pushlightuserdata(L, (void *)&interrupted);
  lua_setfield(L, LUA_REGISTRYINDEX, "konane.interrupt");
  setup_paths(L);
}

/* ------------------------------------------------------------------------
** The REPL
** --------------------------------------------------------------------- */

/* Registry reference to the table returned by konane.repl (or LUA_NOREF). */
static int repl_ref = LUA_NOREF;

/*
** Push field 'name' of the REPL module if it is a function and return 1;
** push nothing and return 0 otherwise.
*/
static int repl_fn(lua_State *L, const char *name) {
  if (repl_ref == LUA_NOREF)
    return 0;
  lua_rawgeti(L, LUA_REGISTRYINDEX, repl_ref);
  lua_getfield(L, -1, name);
  lua_remove(L, -2);
  if (lua_isfunction(L, -1))
    return 1;
  lua_pop(L, 1);
  return 0;
}

/*
** Load lua/konane/repl.lua and call its start(opts) which installs the
** commands and returns the banner (printed only when 'banner' is set). A
** failure leaves a plain Lua REPL, with a warning unless 'quiet'.
*/
static void load_repl(lua_State *L, int tty, int color, int banner, int quiet) {
  int status;
  lua_getglobal(L, "require");
  lua_pushliteral(L, "konane.repl");
  status = docall(L, 1, 1);
  if (status != LUA_OK || !lua_istable(L, -1)) {
    if (status != LUA_OK && !quiet) {
      const char *msg = lua_tostring(L, -1);
      const char *nl;
      if (msg == NULL)
        msg = "?";
      nl = strchr(msg, '\n');  /* the first line says it; the rest is a search list */
      fprintf(stderr, "%s: the Konane commands are not available (%.*s)\n", progname,
              nl ? (int)(nl - msg) : (int)strlen(msg), msg);
    }
    lua_pop(L, 1);
    return;
  }
  repl_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  if (repl_fn(L, "start")) {
    lua_createtable(L, 0, 3);
    lua_pushboolean(L, tty);
    lua_setfield(L, -2, "tty");
    lua_pushboolean(L, color);
    lua_setfield(L, -2, "color");
    lua_pushboolean(L, banner);
    lua_setfield(L, -2, "banner");
    status = docall(L, 1, 1);
    if (status != LUA_OK)
      report(L, status);
    else {
      if (banner && lua_type(L, -1) == LUA_TSTRING) {
        fputs(lua_tostring(L, -1), stdout);
        fflush(stdout);
      }
      lua_pop(L, 1);
    }
  }
}

/* Prompt from _PROMPT / _PROMPT2 (as lua.c), or the defaults. */
static const char *get_prompt(lua_State *L, int firstline) {
  const char *p;
  if (lua_getglobal(L, firstline ? "_PROMPT" : "_PROMPT2") == LUA_TNIL)
    p = firstline ? PROMPT1 : PROMPT2;
  else
    p = luaL_tolstring(L, -1, NULL);  /* kept alive by the stack below */
  p = lua_pushstring(L, p);
  lua_insert(L, 1);  /* anchor it at the bottom of the stack for the caller */
  lua_settop(L, 1);
  return p;
}

/* A syntax error at the end of the chunk means: read more lines. */
static int incomplete(lua_State *L, int status) {
  if (status == LUA_ERRSYNTAX) {
    size_t lmsg;
    const char *msg = lua_tolstring(L, -1, &lmsg);
    if (lmsg >= MARKLEN && strcmp(msg + lmsg - MARKLEN, EOFMARK) == 0)
      return 1;
  }
  return 0;
}

/*
** Print an error in the REPL: the message and a traceback shortened to the
** frames that mean something to the user (the REPL's own "[C]: in ?" frame
** and the traceback of an interrupt are dropped).
*/
static void report_repl(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  const char *tb;
  fflush(stdout);  /* what the command printed comes before its error */
  if (msg == NULL)
    msg = "(error object is not a string)";
  tb = strstr(msg, "\nstack traceback:");
  if (tb != NULL && tb - msg >= 12 && strncmp(tb - 12, "interrupted!", 12) == 0) {
    /* Ctrl-C: no position, no traceback; after the echo of ^C, a new line */
    fprintf(stderr, "%sinterrupted!\n", isatty(STDERR_FILENO) ? "\n" : "");
  } else if (tb != NULL) {
    const char *p = msg;
    int frames = 0;
    fprintf(stderr, "%.*s\n", (int)(tb - msg), msg);
    p = tb + 1;
    while (*p) {
      const char *e = strchr(p, '\n');
      size_t len = e ? (size_t)(e - p) : strlen(p);
      int skip = (len == 10 && strncmp(p, "\t[C]: in ?", 10) == 0);
      if (!skip && frames < 12) {
        fprintf(stderr, "%.*s\n", (int)len, p);
        frames++;
      }
      if (e == NULL)
        break;
      p = e + 1;
    }
  } else
    fprintf(stderr, "%s\n", msg);
  fflush(stderr);
  lua_pop(L, 1);
}

/* Tell the REPL module the terminal width (it may change between lines). */
static void publish_width(lua_State *L) {
  int rows = 0, cols = 0;
  if (repl_ref == LUA_NOREF)
    return;
  rl_get_screen_size(&rows, &cols);
  if (cols <= 0)
    return;
  lua_rawgeti(L, LUA_REGISTRYINDEX, repl_ref);
  if (lua_getfield(L, -1, "opts") == LUA_TTABLE) {
    lua_pushinteger(L, cols);
    lua_setfield(L, -2, "width");
  }
  lua_pop(L, 2);
}

/* Show the values a command returned, through repl.show or print. */
static void show_results(lua_State *L, int n) {
  int status;
  if (n <= 0)
    return;
  if (!repl_fn(L, "show"))
    lua_getglobal(L, "print");
  lua_insert(L, -(n + 1));
  status = docall(L, n, 0);
  if (status != LUA_OK)
    report_repl(L);
}

/* Run the function on top of the stack and show what it returns. */
static int run_command(lua_State *L) {
  int base = lua_gettop(L) - 1;
  int status = docall(L, 0, LUA_MULTRET);
  if (status == LUA_OK)
    show_results(L, lua_gettop(L) - base);
  else
    report_repl(L);
  lua_settop(L, base);
  fflush(stdout);
  return status;
}

/* Statement collected over one or more lines. */
typedef struct Pending {
  char *buf;
  size_t len, cap;
} Pending;

static void pending_add(Pending *p, const char *line) {
  size_t n = strlen(line);
  size_t need = p->len + n + 2;
  if (need > p->cap) {
    size_t cap = p->cap ? p->cap : 256;
    char *nb;
    while (cap < need)
      cap *= 2;
    nb = realloc(p->buf, cap);
    if (nb == NULL) {
      fprintf(stderr, "%s: out of memory\n", progname);
      exit(EXIT_FAILURE);
    }
    p->buf = nb;
    p->cap = cap;
  }
  if (p->len > 0)
    p->buf[p->len++] = '\n';
  memcpy(p->buf + p->len, line, n);
  p->len += n;
  p->buf[p->len] = '\0';
}

/*
** Ask repl.rewrite(line) whether the line is a REPL shortcut (a move on the
** current game, a bare command name): on success pushes the compiled chunk
** and returns 1.
*/
static int try_rewrite(lua_State *L, const char *line) {
  const char *code;
  int status;
  if (!repl_fn(L, "rewrite"))
    return 0;
  lua_pushstring(L, line);
  status = lua_pcall(L, 1, 1, 0);
  if (status != LUA_OK || lua_type(L, -1) != LUA_TSTRING) {
    lua_pop(L, 1);
    return 0;
  }
  code = lua_tostring(L, -1);
  status = luaL_loadbuffer(L, code, strlen(code), CHUNKNAME);
  lua_remove(L, -2);
  if (status != LUA_OK) {
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

/*
** Feed one input line to the REPL. Returns 1 when the statement is not
** complete yet (the caller shows the continuation prompt), 0 otherwise.
** 'errors' counts the commands that failed.
*/
static int feed_line(lua_State *L, Pending *p, const char *line, int *errors) {
  int status;
  if (p->len == 0) {
    const char *s = line;
    while (*s == ' ' || *s == '\t' || *s == '\r')
      s++;
    if (*s == '\0')
      return 0;
    if (try_rewrite(L, line)) {
      if (run_command(L) != LUA_OK)
        (*errors)++;
      return 0;
    }
    /* An expression: print its values (Lua 5.1's '=expr' is accepted too). */
    lua_pushfstring(L, "return %s;", *s == '=' ? s + 1 : line);
    status = luaL_loadbuffer(L, lua_tostring(L, -1), lua_rawlen(L, -1), CHUNKNAME);
    lua_remove(L, -2);
    if (status == LUA_OK) {
      if (run_command(L) != LUA_OK)
        (*errors)++;
      return 0;
    }
    lua_pop(L, 1);
  }
  pending_add(p, line);
  status = luaL_loadbuffer(L, p->buf, p->len, CHUNKNAME);
  if (incomplete(L, status)) {
    lua_pop(L, 1);
    return 1;
  }
  p->len = 0;
  if (status != LUA_OK) {
    report_repl(L);
    (*errors)++;
    return 0;
  }
  if (run_command(L) != LUA_OK)
    (*errors)++;
  return 0;
}

/* ---- readline: callback mode, so Ctrl-C at the prompt can cancel a line. */

static char *line_got = NULL;
static int line_done = 0;

static void on_line(char *line) {
  line_got = line;
  line_done = 1;
  rl_callback_handler_remove();
}

/*
** Read one line with readline. Returns 1 and the line in *out (malloc'd),
** 0 at end of input, -1 when Ctrl-C cancelled the line.
*/
static int read_tty_line(const char *prompt, char **out) {
  int fd = fileno(rl_instream ? rl_instream : stdin);
  FILE *echo = rl_outstream ? rl_outstream : stdout;
  sigset_t block, orig;
  int result = -2;
  /* SIGINT and SIGWINCH are only delivered inside pselect, so a flag set
     by them is always seen before the next key is read. */
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGWINCH);
  sigaddset(&block, SIGTSTP);
  sigprocmask(SIG_BLOCK, &block, &orig);
  set_signal(SIGTSTP, on_sigtstp);
  line_done = 0;
  line_got = NULL;
  interrupted = 0;
  rl_callback_handler_install(prompt, on_line);
  while (result == -2) {
    fd_set fds;
    int r;
    if (line_done) {
      result = line_got != NULL;
      break;
    }
    if (resized) {
      resized = 0;
      rl_resize_terminal();
    }
    if (suspended) {  /* Ctrl-Z: give the terminal back, stop, then redraw */
      suspended = 0;
      rl_cleanup_after_signal();
      signal(SIGTSTP, SIG_DFL);
      sigprocmask(SIG_SETMASK, &orig, NULL);
      raise(SIGTSTP);  /* stops here until SIGCONT */
      sigprocmask(SIG_BLOCK, &block, NULL);
      set_signal(SIGTSTP, on_sigtstp);
      rl_reset_after_signal();
      rl_forced_update_display();
    }
    if (interrupted) {  /* Ctrl-C: forget the line, show a fresh prompt */
      interrupted = 0;
      rl_point = rl_end;  /* leave the cancelled text on screen, then "^C" */
      rl_redisplay();
      fputs("^C", echo);
      fflush(echo);
      rl_free_line_state();
      rl_callback_sigcleanup();
      rl_cleanup_after_signal();
      rl_callback_handler_remove();
      fputs("\n", echo);
      fflush(echo);
      result = -1;
      break;
    }
    FD_ZERO(&fds);
    FD_SET(fd, &fds);
    r = pselect(fd + 1, &fds, NULL, NULL, NULL, &orig);
    if (r < 0) {
      if (errno != EINTR) {
        rl_callback_handler_remove();
        result = 0;
      }
      continue;
    }
    rl_callback_read_char();
  }
  signal(SIGTSTP, SIG_DFL);
  sigprocmask(SIG_SETMASK, &orig, NULL);
  *out = line_got;
  return result;
}

/* History file: KONANE_HISTORY (empty disables it) or ~/.konane_history. */
static char *history_path(void) {
  const char *env = getenv("KONANE_HISTORY");
  const char *home;
  char *path;
  size_t n;
  if (env != NULL)
    return env[0] ? strdup(env) : NULL;
  home = getenv("HOME");
  if (home == NULL || home[0] == '\0')
    return NULL;
  n = strlen(home) + sizeof(HISTORY_NAME) + 2;
  path = malloc(n);
  if (path != NULL)
    snprintf(path, n, "%s/%s", home, HISTORY_NAME);
  return path;
}

/* ---- completion: candidates come from repl.complete(word, line, start). */

static char **comp_list = NULL;
static size_t comp_n = 0, comp_i = 0;

static void comp_free(void) {
  size_t i;
  for (i = 0; i < comp_n; i++)
    free(comp_list[i]);
  free(comp_list);
  comp_list = NULL;
  comp_n = comp_i = 0;
}

static char *comp_next(const char *text, int state) {
  (void)text;
  if (state == 0)
    comp_i = 0;
  if (comp_i < comp_n) {
    char *s = comp_list[comp_i];
    comp_list[comp_i++] = NULL;  /* readline frees what we return */
    return s;
  }
  return NULL;
}

static char **complete(const char *text, int start, int end) {
  lua_State *L = globalL;
  int top;
  (void)end;
  rl_completion_append_character = '\0';
  rl_attempted_completion_over = 1;
  if (start > 0 && (rl_line_buffer[start - 1] == '"' || rl_line_buffer[start - 1] == '\'')) {
    rl_attempted_completion_over = 0;  /* inside a string: file names */
    return NULL;
  }
  if (L == NULL)
    return NULL;
  top = lua_gettop(L);
  comp_free();
  if (repl_fn(L, "complete")) {
    lua_pushstring(L, text);
    lua_pushstring(L, rl_line_buffer);
    lua_pushinteger(L, start);
    if (lua_pcall(L, 3, 1, 0) == LUA_OK && lua_istable(L, -1)) {
      size_t i, n = (size_t)lua_rawlen(L, -1);
      comp_list = calloc(n + 1, sizeof *comp_list);
      if (comp_list != NULL) {
        for (i = 1; i <= n; i++) {
          lua_rawgeti(L, -1, (lua_Integer)i);
          if (lua_type(L, -1) == LUA_TSTRING)
            comp_list[comp_n++] = strdup(lua_tostring(L, -1));
          lua_pop(L, 1);
        }
      }
    }
  }
  lua_settop(L, top);
  if (comp_n == 0)
    return NULL;
  return rl_completion_matches(text, comp_next);
}

/*
** List ambiguous candidates by the part after the last '.' or ':' (g:moves(
** shows as moves(), as file listings show base names; the line is redrawn.
*/
static void display_matches(char **matches, int num, int max_length) {
  char **shown = malloc(((size_t)num + 2) * sizeof *shown);
  size_t skip = 0;
  int i, longest = 0;
  const char *p;
  if (shown == NULL || num < 1) {
    free(shown);
    rl_display_match_list(matches, num, max_length);
    rl_forced_update_display();
    return;
  }
  for (p = matches[1]; *p; p++)  /* all candidates share the part to skip */
    if (*p == '.' || *p == ':')
      skip = (size_t)(p - matches[1]) + 1;
  shown[0] = matches[0];
  for (i = 1; i <= num; i++) {
    int len;
    shown[i] = strlen(matches[i]) >= skip ? matches[i] + skip : matches[i];
    len = (int)strlen(shown[i]);
    if (len > longest)
      longest = len;
  }
  shown[num + 1] = NULL;
  rl_display_match_list(shown, num, longest);  /* readline has started a new line */
  rl_forced_update_display();
  free(shown);
}

/* Word breaks for completion: '.' and ':' are part of a word (g:mo). */
static const char word_breaks[] = " \t\n\"\\'`@$><=;|&{(,+-*/%^~#[]!?";

static void setup_readline(void) {
  rl_readline_name = PROGNAME;
  rl_catch_signals = 0;
  rl_catch_sigwinch = 0;
  rl_attempted_completion_function = complete;
  rl_completion_display_matches_hook = display_matches;
  rl_completer_word_break_characters = word_breaks;
  rl_basic_word_break_characters = word_breaks;
  /* An ambiguous Tab lists the candidates at once (g:mo -> g:nmoves( g:moves().
     Bound before readline reads ~/.inputrc, so a user's own setting wins. */
  rl_variable_bind("show-all-if-ambiguous", "on");
  set_signal(SIGWINCH, on_sigwinch);
}

/*
** The interactive loop. On a terminal: readline with history, completion
** and prompts. Otherwise: plain lines from 'in', no prompts. Returns the number of
** commands that failed.
*/
static int doREPL(lua_State *L, int tty, FILE *in) {
  Pending p = {NULL, 0, 0};
  int errors = 0;
  char *hist = NULL;
  const char *oldprogname = progname;
  progname = NULL;
  globalL = L;
  in_repl = 1;
  if (tty) {
    setup_readline();
    hist = history_path();
    using_history();
    stifle_history(HISTORY_MAX);
    if (hist != NULL)
      read_history(hist);
  }
  set_signal(SIGINT, on_sigint);
  for (;;) {
    char *line = NULL;
    int more;
    if (tty) {
      const char *prompt = get_prompt(L, p.len == 0);
      int r = read_tty_line(prompt, &line);
      lua_settop(L, 0);
      if (r < 0) {  /* Ctrl-C: drop the pending statement */
        p.len = 0;
        continue;
      }
      if (r == 0) {
        fputc('\n', stdout);
        break;
      }
      publish_width(L);
      if (line[0] != '\0' && strspn(line, " \t") != strlen(line)) {
        HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
        if (last == NULL || strcmp(last->line, line) != 0) {
          add_history(line);
          if (hist != NULL && append_history(1, hist) != 0)
            write_history(hist);  /* the file did not exist yet */
        }
      }
    } else {
      size_t cap = 0;
      ssize_t n;
      errno = 0;
      n = getline(&line, &cap, in);
      if (n < 0) {
        free(line);
        if (errno == EINTR && interrupted) {  /* Ctrl-C while waiting */
          clearerr(in);
          p.len = 0;
          interrupted = 0;
          continue;
        }
        break;
      }
      if (n > 0 && line[n - 1] == '\n')
        line[n - 1] = '\0';
    }
    more = feed_line(L, &p, line, &errors);
    (void)more;
    free(line);
    set_signal(SIGINT, on_sigint);  /* docall re-armed it; keep it at the prompt */
    clear_interrupt(L);
    lua_settop(L, 0);
  }
  if (p.len > 0) {  /* input ended inside a statement: report it */
    int status = luaL_loadbuffer(L, p.buf, p.len, CHUNKNAME);
    if (status != LUA_OK) {
      report_repl(L);
      errors++;
    }
    lua_settop(L, 0);
  }
  if (tty && hist != NULL)
    history_truncate_file(hist, HISTORY_MAX);
  free(hist);
  free(p.buf);
  progname = oldprogname;
  in_repl = 0;
  signal(SIGINT, SIG_DFL);
  return errors;
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
    load_repl(L, 0, color, 0, 1);
    return report(L, docall(L, 0, 0)) == LUA_OK ? EXIT_SUCCESS : EXIT_FAILURE;
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
    load_repl(L, 0, color, 0, 0);
    errors = doREPL(L, 0, mem);
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
  int color = want_color();
  luaL_checkversion(L);
  lua_settop(L, 0);  /* argc and argv are read; the REPL owns the stack */
  if (args & has_error) {
    if (args & 32)
      print_usage(stdout, "");
    else
      print_usage(stderr, argv[script]);
    lua_pushboolean(L, (args & 32) != 0);
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
  if (!runargs(L, argv, script))
    return 0;
  if (script < argc && handle_script(L, argv + script) != LUA_OK)
    return 0;
  if (args & has_i) {
    load_repl(L, tty, color && tty, tty, 0);
    if (doREPL(L, tty, stdin) && !tty) {
      lua_pushboolean(L, 0);
      return 1;
    }
  } else if (script == argc && !(args & (has_e | has_v))) {
    if (tty) {
      load_repl(L, 1, color, 1, 0);
      doREPL(L, 1, stdin);
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
  lua_State *L = luaL_newstate();
  if (L == NULL) {
    l_message(argv[0], "cannot create state: not enough memory");
    return EXIT_FAILURE;
  }
  lua_gc(L, LUA_GCSTOP);
  lua_pushcfunction(L, pmain);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  status = lua_pcall(L, 2, 1, 0);
  result = lua_toboolean(L, -1);
  report(L, status);
  lua_close(L);
  return (result && status == LUA_OK) ? EXIT_SUCCESS : EXIT_FAILURE;
}
